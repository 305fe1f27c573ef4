"""On/off solenoid valves with latency and the RATS command queue (Wagenknecht (2009) §3.1.4, §5.2).

Each RATS leg has a 3-way solenoid valve: energised it connects the tank to the cylinder,
de-energised it vents the cylinder. The valve opens ``latency`` after the energising signal
(mean 13.16 ms spool-and-sleeve, ≈5 ms rubber-seat) and closes when the signal ends
(digest §6.1: an "open" window of duration − latency, then exhaust). Commands are
(leg, energise duration [ms], wait before the next command [ms]) at 1 ms resolution, executed in
order by the on-board interrupt timer (Netburner protocol). We read "wait" as measured from the
start of the command (the next command begins ``wait`` ms after this one began).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, as_float, check_fields, check_whole, shown

__all__ = ["SolenoidValve", "Command", "CommandQueue", "SPOOL_SLEEVE", "RUBBER_SEAT", "RUBBER_CV_EFFECTIVE",
           "MAX_VALVES", "MAX_COMMAND_MS"]

MAX_VALVES = 1000
"""Most valves a :class:`CommandQueue` drives (12 on RATS): bounds its (n_legs,) arrays of every tick."""
MAX_COMMAND_MS = 86_400_000
"""Longest energise duration or wait of a :class:`Command` [ms] (one day): far beyond any gait command,
and a schedule of such commands keeps its float times exact to the millisecond."""


@dataclass(frozen=True)
class SolenoidValve:
    """On/off valve timing and flow rating.

    latency : delay from the energising signal to the open valve [s].
    close_latency : delay from de-energising to closed [s] (not given by the source: 0).
    flow : "orifice" (effective area ``area`` [m²], RATS (5.7)) or "cv" (``cv``, RATS (5.8)).
    leak_tau : tank leakage time constant through the valve [s] (0 = no leak).
    max_pressure : rated gauge pressure [Pa] (0.758 MPa spool, 1.034 MPa rubber).
    """

    name: str
    latency: float
    flow: str = "orifice"
    area: float = 0.0
    cv: float = 0.0
    close_latency: float = 0.0
    leak_tau: float = 0.0
    max_pressure: float = np.inf

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InputError(f"valve name = {self.name!r}: expected a string")
        check_fields(f"valve '{self.name}'", self,
                     nonnegative=("latency", "close_latency", "area", "cv", "leak_tau"))
        if not as_float(self.max_pressure) > 0.0:
            raise InputError(f"valve '{self.name}': max_pressure = {self.max_pressure!r} Pa: expected > 0")
        if not (isinstance(self.flow, str) and self.flow in ("orifice", "cv")):
            raise InputError(f"valve '{self.name}': flow={self.flow!r}; expected 'orifice' or 'cv'")

    def open_window(self, t_command: float, duration: float) -> tuple[float, float]:
        """(t_open, t_close) [s] of a firing energised at ``t_command`` for ``duration`` [s].

        Empty (t_open == t_close) when the duration does not exceed the latency."""
        t_open = t_command + self.latency
        t_close = max(t_open, t_command + duration + self.close_latency)
        return t_open, t_close

    def is_open(self, t, t_command: float, duration: float):
        """Whether the valve is open at time(s) ``t`` [s] for one firing."""
        t0, t1 = self.open_window(t_command, duration)
        t = np.asarray(t, dtype=float)
        return (t >= t0) & (t < t1)


SPOOL_SLEEVE = SolenoidValve("spool-sleeve", latency=13.16e-3, flow="orifice",
                             area=0.5378 * 3.2781e-6, leak_tau=300.0 / np.log(2.0),
                             max_pressure=0.758e6)
"""Lapped spool valve: C_f A_v = 0.5378 × 3.2781e-6 m² (Table 5.3), latency 13.16 ms (E1),
leaks: −50 % gauge pressure in 5 min (E10) → τ = 300 s / ln 2 ≈ 433 s."""

RUBBER_SEAT = SolenoidValve("rubber-seat", latency=5e-3, flow="cv", cv=0.3, max_pressure=1.034e6)
"""Air-pilot rubber-packed valve: C_v = 0.3 (manufacturer), latency ≈ 5 ms (E2), no leak."""

RUBBER_CV_EFFECTIVE = 0.0799
"""Effective C_v of the rubber-seat valve in the corrected Cv law, fitted on the RATS hop bench
(:mod:`legsim.robots.pneumatic_rig.hop`: brentq, trapped gas, thesis friction) so that the 80 ms hop at
0.724 MPa is 26 cm (E4); it then predicts 34.3 cm at 1.034 MPa (E5: 33 cm). The manufacturer's 0.3
over-predicts the flow (digest §2.4 (c)). Kept here, beside the valve, so that the full RATS reads it
without importing (and, on a first run, compiling) the hop bench."""


@dataclass(frozen=True)
class Command:
    """One queued command: energise ``leg``'s valve for ``duration_ms``, then wait ``wait_ms``: whole
    numbers, a leg in [0, :data:`MAX_VALVES`), durations and waits [ms] in [0, :data:`MAX_COMMAND_MS`]."""

    leg: int
    duration_ms: int
    wait_ms: int

    def __post_init__(self) -> None:
        _command_fields("Command", self.leg, self.duration_ms, self.wait_ms)


def _command_fields(owner: str, leg, duration_ms, wait_ms, n_legs: int = MAX_VALVES) -> tuple[int, int, int]:
    """(leg, duration_ms, wait_ms) as ints: a valve in [0, n_legs) and whole milliseconds in
    [0, MAX_COMMAND_MS] (1 ms resolution); else an InputError from ``owner`` naming the field."""
    fields = (check_whole(owner, "leg", leg, 0, MAX_VALVES - 1),
              check_whole(owner, "duration_ms", duration_ms, 0, MAX_COMMAND_MS),
              check_whole(owner, "wait_ms", wait_ms, 0, MAX_COMMAND_MS))
    if fields[0] >= n_legs:
        raise InputError(f"{owner}: 'leg' = {shown(leg)}, expected a valve of the queue's 'n_legs' = "
                         f"{n_legs}: 0 … {n_legs - 1}")
    return fields


class CommandQueue:
    """FIFO of RATS firing commands at 1 ms resolution (the Netburner protocol, §1.4).

    Parameters
    ----------
    n_legs : number of valves (12 on RATS), in [1, :data:`MAX_VALVES`]; legs are numbered 0 … n_legs − 1
        here.
    commands : iterable of (leg, duration ms, wait ms) tuples or :class:`Command` (checked here and by
        :meth:`push`, not at every tick).
    """

    def __init__(self, n_legs: int = 12, commands: Iterable = ()) -> None:
        self.n_legs = check_whole("CommandQueue", "n_legs", n_legs, 1, MAX_VALVES)
        self.commands: list[Command] = []
        if isinstance(commands, (str, bytes)) or not isinstance(commands, Iterable):
            raise InputError(f"CommandQueue: 'commands' = {shown(commands)}, expected a list of (leg, "
                             "duration ms, wait ms)")
        for i, c in enumerate(commands):
            if isinstance(c, Command):
                c = (c.leg, c.duration_ms, c.wait_ms)
            if isinstance(c, (str, bytes)) or not isinstance(c, Sequence) or len(c) != 3:
                raise InputError(f"CommandQueue: commands[{i}] = {shown(c)}, expected (leg, duration ms, "
                                 "wait ms)")
            leg, duration_ms, wait_ms = c
            self.commands.append(Command(*_command_fields(f"CommandQueue: commands[{i}]", leg, duration_ms,
                                                          wait_ms, self.n_legs)))

    def push(self, leg, duration_ms, wait_ms) -> None:
        """Append a command: ``leg`` in [0, n_legs); ``duration_ms`` and ``wait_ms`` whole milliseconds in
        [0, :data:`MAX_COMMAND_MS`]."""
        self.commands.append(Command(*_command_fields("CommandQueue.push", leg, duration_ms, wait_ms,
                                                      self.n_legs)))

    def schedule(self, t0: float = 0.0) -> np.ndarray:
        """Energise intervals as a structured array (t_on, t_off [s], leg), in command order."""
        out = np.zeros(len(self.commands), dtype=[("t_on", "f8"), ("t_off", "f8"), ("leg", "i8")])
        t_ms = 0
        for i, c in enumerate(self.commands):
            out[i] = (t0 + t_ms * 1e-3, t0 + (t_ms + c.duration_ms) * 1e-3, c.leg)
            t_ms += c.wait_ms
        return out

    def energised(self, t_ms: int) -> np.ndarray:
        """Bool (n_legs,) energise signals during the 1 ms tick [t_ms, t_ms + 1) ms."""
        on = np.zeros(self.n_legs, dtype=bool)
        start = 0
        for c in self.commands:
            if start <= t_ms < start + c.duration_ms:
                on[c.leg] = True
            start += c.wait_ms
        return on

    def valve_open(self, t: float, valves) -> np.ndarray:
        """Bool (n_legs,) physically open valves at time t [s], given per-leg
        :class:`SolenoidValve` (one, or a sequence of n_legs), latency applied."""
        vs = [valves] * self.n_legs if isinstance(valves, SolenoidValve) else list(valves)
        if len(vs) != self.n_legs:
            raise InputError(f"valves: expected {self.n_legs} SolenoidValve, got {len(vs)}")
        out = np.zeros(self.n_legs, dtype=bool)
        for row in self.schedule():
            leg = int(row["leg"])
            t_open, t_close = vs[leg].open_window(row["t_on"], row["t_off"] - row["t_on"])
            if t_open <= t < t_close:
                out[leg] = True
        return out
