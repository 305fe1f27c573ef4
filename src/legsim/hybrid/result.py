"""`Result`: the records of one run (SimSect flow memory, digest §1.6), as numpy arrays."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..errors import check_whole, lookup

__all__ = ["Result", "event_dtype", "EVENT_KINDS"]

EVENT_FIELDS = [("t", "f8"), ("kind", "i8"), ("guard", "i8"), ("mode_before", "i8"),
                ("mode_after", "i8")]


def event_dtype(nx: int) -> np.dtype:
    """Event record: time, kind, guard, modes, and the state x (nx,) just before the reset; ``nx`` 0 to
    2**31 - 1 states."""
    return _event_dtype(check_whole("event_dtype", "nx", nx, 0, 2**31 - 1))


@functools.lru_cache(maxsize=64)
def _event_dtype(nx: int) -> np.dtype:
    return np.dtype(EVENT_FIELDS + [("x", "f8", (nx,))])

EVENT_KINDS = {0: "guard", 1: "slide_start", 2: "slide_end", 3: "sample"}


@dataclass
class Result:
    """Records of a run.

    Attributes
    ----------
    t : (n,) record times [s]
    x : (n, nx) states
    mode : (n,) modes
    y : (n, ny) model outputs (SimSect auxiliary functions)
    events : (m,) structured array: t, kind (0 guard, 1 slide start, 2 slide end, 3 sampled
        controller changed the mode), guard index (-1 for none), mode_before, mode_after, and
        x (nx,), the state at the event before the reset
    stats : integrator statistics (steps, rejected, fevals, events, transitions, wall time, ...)
    status : "done" or the reason the run stopped; ``message`` explains it.
    guard_names : the model's guard names, by guard index (:meth:`event_names` names the events).
    """

    model_name: str
    state_names: tuple[str, ...]
    output_names: tuple[str, ...]
    params: np.ndarray
    t: np.ndarray
    x: np.ndarray
    mode: np.ndarray
    y: np.ndarray
    events: np.ndarray
    stats: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    status: str = "running"
    message: str = ""
    guard_names: tuple[str, ...] = ()

    @classmethod
    def assemble(cls, model, params, options, rec_chunks, mode_chunks, ev_chunks, stats) -> Result:
        """The result of a run from its record chunks; it keeps ``params`` (not a copy)."""
        nx = model.nx
        if rec_chunks:
            rec, modes, ev = (chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
                              for chunks in (rec_chunks, mode_chunks, ev_chunks))
        else:
            rec = np.empty((0, 1 + nx + model.ny))
            modes = np.empty(0, dtype=np.int64)
            ev = np.empty(0, dtype=event_dtype(nx))
        # t, x and y are views of one records array owned by the result
        return cls(model_name=model.name, state_names=model.state_names,
                   output_names=model.output_names, params=params, t=rec[:, 0],
                   x=rec[:, 1:1 + nx], mode=modes, y=rec[:, 1 + nx:], events=ev,
                   stats=stats, options=options.as_dict(), guard_names=tuple(g.name for g in model.guards))

    @property
    def n(self) -> int:
        """Number of records."""
        return int(self.t.size)

    def event_names(self) -> list[str]:
        """What each event was, in ``events`` order: its guard's name (``touchdown_<point>``,
        ``valve_<actuator>``, ...), or ``"slide start"``, ``"slide end"``, ``"controller"`` (a sampled
        controller changed the mode) for the other kinds."""
        other = {1: "slide start", 2: "slide end", 3: "controller"}
        names = self.guard_names
        return [names[g] if k == 0 and 0 <= g < len(names) else other.get(int(k), f"guard {g}")
                for k, g in zip(self.events["kind"], self.events["guard"], strict=True)]

    def state(self, name: str) -> np.ndarray:
        """(n,) the record column of one state, by name."""
        return self.x[:, lookup("state", name, self.state_names, self.model_name,
                                ("output", self.output_names))]

    def output(self, name: str) -> np.ndarray:
        """(n,) the record column of one output, by name."""
        return self.y[:, lookup("output", name, self.output_names, self.model_name,
                                ("state", self.state_names))]
