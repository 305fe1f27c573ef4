"""`Model`: the description of a hybrid system (SimSect digest §1.4, §1.8; DESIGN.md §1).

A model bundles named states and parameters with defaults, the guards with their crossing
direction and placement, and the compiled hooks of :mod:`legsim.hybrid.signatures`.
It is immutable; :meth:`Model.params` and :meth:`Model.state` turn user dictionaries into the
flat arrays the engine reads, with errors that name the unknown key and the closest valid one.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np
from numba.core import config as numba_config
from numba.core.dispatcher import Dispatcher

from ..errors import InputError, as_float, as_floats, check_number, check_whole, closest, shown
from . import signatures as sig
from .params import ParamRange

__all__ = ["Direction", "Placement", "Guard", "Model"]


class Direction(IntEnum):
    """Which zero crossings of a guard are events."""

    FALLING = -1
    """Positive to non-positive: leaving the patch (SimSect's only kind)."""
    EITHER = 0
    RISING = 1


class Placement(IntEnum):
    """Which side of a located crossing the event state lies on (SimSect STOP_TYPE_*)."""

    LEFT = -1
    """Just before the crossing: the guard still has its pre-crossing sign."""
    RIGHT = 1
    """Just after the crossing: the guard has crossed (within ``stop_precision``)."""


@dataclass(frozen=True)
class Guard:
    """One boundary function of the model: its name, crossing direction and placement."""

    name: str
    direction: Direction = Direction.FALLING
    placement: Placement = Placement.RIGHT

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name):
            raise InputError(f"Guard: name = {self.name!r}, expected a non-empty string")
        for key, kind in (("direction", Direction), ("placement", Placement)):
            value = getattr(self, key)
            member = kind.__members__.get(value.upper()) if isinstance(value, str) else None
            if member is None:
                try:
                    member = kind(value)
                except (ValueError, TypeError):
                    allowed = ", ".join(f"{kind.__name__}.{m}" for m in kind.__members__)
                    raise InputError(f"Guard '{self.name}': {key} = {value!r}, expected one of "
                                     f"{allowed}") from None
            object.__setattr__(self, key, member)


_HOOKS = {  # Model field -> (decorator of legsim.hybrid.signatures, signature, its arguments)
    "vector_field": ("vector_field", sig.FLOW_SIG, "(t, x, p, mode, xdot) -> None"),
    "guard_values": ("guards", sig.GUARD_SIG, "(t, x, p, mode, g) -> None"),
    "reset": ("reset", sig.RESET_SIG, "(t, x, p, mode, fired, x_new) -> int"),
    "outputs": ("outputs", sig.OUTPUT_SIG, "(t, x, p, mode, y) -> None"),
    "sample": ("sample", sig.SAMPLE_SIG, "(t, x, p, mode, k, x_new) -> int"),
    "check": ("check", sig.CHECK_SIG, "(t, x, p, mode) -> int"),
}
_NO_HOOK = {"guard_values": sig.no_guards, "reset": sig.no_reset, "sample": sig.no_sample,
            "check": sig.no_check, "outputs": None}
"""What a hook given as None stands for: none (the defaults)."""


def _check_hook(model: str, key: str, fn) -> None:
    """A hook must be compiled for its signature (or compilable for it): a plain Python function, a
    lambda or a function compiled for other argument types is refused by name (the engine would
    fail with numba's "No matching definition" and a list of every hook's type)."""
    deco, signature, args = _HOOKS[key]
    if getattr(numba_config, "DISABLE_JIT", False):  # the decorators return the Python functions themselves
        compiled = callable(fn)
    else:
        compiled = isinstance(fn, Dispatcher) and (tuple(signature.args) in fn.signatures
                                                   or getattr(fn, "_can_compile", False))
    if not compiled:
        what = ("a plain Python function" if callable(fn) and not isinstance(fn, Dispatcher)
                else "compiled for other arguments" if isinstance(fn, Dispatcher) else "not a function")
        raise InputError(f"model '{model}': {key} = {getattr(fn, '__qualname__', fn)!r} is {what}: "
                         f"decorate it with @legsim.hybrid.signatures.{deco}, a function {args}")


@dataclass(frozen=True)
class Model:
    """A hybrid dynamical system written for the legsim engine.

    Parameters
    ----------
    name : str
        Model name (``systemName`` in SimSect init files).
    state_names, state_defaults : names and default values of the nx states.
    param_names, param_defaults : names and default values of the np parameters.
    guards : the nguard guards, in the index order the ``guards`` hook writes them.
    output_names : names of the ny auxiliary outputs (the columns of SimSect's .data file).
    vector_field, guard_values, reset, outputs, sample, check : compiled hooks
        (see :mod:`legsim.hybrid.signatures`). ``sample`` and ``check`` may be omitted.
    init_partition : Python callable ``(x, p) -> (x, mode)`` that finalises the initial
        state and chooses the initial mode (SimSect ``InitPartition``). Runs once, in Python.
    mode_name : Python callable ``mode -> str`` used in messages and plots.
    error_messages : model error code -> message (codes returned by reset/sample/check).
    stance : for legged models, ``modes (n,) -> (n, nlegs) bool``, True where a leg is in stance
        (used for gait diagrams).
    path_states : names of the two states that trace the body path in the ground plane.
    sample_period : period [s] of the model's own sampled controller (its ``sample`` hook);
        :func:`legsim.hybrid.simulate` uses it when ``Options.sample_period`` is 0, so a model
        whose controller has a fixed rate runs it without the caller having to know. 0: none.
    param_ranges : parameter name -> :class:`~legsim.hybrid.params.ParamRange` (unit and allowed
        values); a name without an entry takes any finite number.
    check_params : Python callable ``(p) -> None`` raising :class:`InputError` for rules that tie
        parameters together; :meth:`params` calls it after the per-name ranges.
    error_states : the first ``error_states`` states are the ODE's; the rest are bookkeeping that
        changes only at events and samples (held commands, measurements, filter states), which the
        adaptive methods' error norm and starting-step heuristic leave out, so that adding a sensor
        does not change the steps. 0: every state counts.
    """

    name: str
    state_names: tuple[str, ...]
    state_defaults: np.ndarray
    param_names: tuple[str, ...]
    param_defaults: np.ndarray
    guards: tuple[Guard, ...]
    output_names: tuple[str, ...]
    vector_field: Callable
    guard_values: Callable = sig.no_guards
    reset: Callable = sig.no_reset
    outputs: Callable | None = None
    sample: Callable = sig.no_sample
    check: Callable = sig.no_check
    init_partition: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, int]] | None = None
    mode_name: Callable[[int], str] = str
    error_messages: Mapping[int, str] = field(default_factory=dict)
    description: str = ""
    stance: Callable[[np.ndarray], np.ndarray] | None = None
    path_states: tuple[str, str] | None = None
    sample_period: float = 0.0
    param_ranges: Mapping[str, ParamRange] = field(default_factory=dict)
    check_params: Callable[[np.ndarray], None] | None = None
    error_states: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.name, str) and self.name):
            raise InputError(f"hybrid Model: name = {self.name!r}, expected a non-empty string")
        for key in ("state_names", "param_names", "output_names", "guards"):
            if not isinstance(getattr(self, key), tuple | list):
                raise InputError(f"model '{self.name}': {key} = {getattr(self, key)!r}, expected a tuple")
        if not callable(self.mode_name):
            raise InputError(f"model '{self.name}': mode_name = {self.mode_name!r}, expected a function of "
                             "the mode (str: its number)")
        if not isinstance(self.error_messages, Mapping):
            raise InputError(f"model '{self.name}': error_messages = {self.error_messages!r}, expected a "
                             "mapping of error codes to messages")
        for key in _HOOKS:
            fn = getattr(self, key)
            if fn is None and key in _NO_HOOK:
                object.__setattr__(self, key, _NO_HOOK[key])
            elif fn is not None or key == "vector_field":
                _check_hook(self.name, key, fn)
        if any(not isinstance(g, Guard) for g in self.guards):
            raise InputError(f"model '{self.name}': guards = {self.guards!r}, expected legsim.hybrid.Guard "
                             "values")
        for key, what, names in (("state_names", "state", self.state_names),
                                 ("param_names", "parameter", self.param_names),
                                 ("output_names", "output", self.output_names),
                                 ("guards", "guard", tuple(g.name for g in self.guards))):
            bad = [n for n in names if not (isinstance(n, str) and n)]
            twice = sorted(n for n, k in Counter(names).items() if k > 1 and n not in bad) if not bad else []
            if bad or twice:
                which = f"not strings: {bad!r}" if bad else f"given twice: {', '.join(twice)}"
                raise InputError(f"model '{self.name}': {key}: {what} names must be unique non-empty "
                                 f"strings; {which}")
        if self.guards and self.guard_values is sig.no_guards:
            raise InputError(f"model '{self.name}': {len(self.guards)} guards declared "
                             f"({', '.join(g.name for g in self.guards)}) but no guard_values hook to "
                             "write their values")
        sd = np.ascontiguousarray(as_floats(self.state_defaults))
        pd = np.ascontiguousarray(as_floats(self.param_defaults))
        for key, arr, names_key in (("state_defaults", sd, "state_names"),
                                    ("param_defaults", pd, "param_names")):
            names = getattr(self, names_key)
            if arr.shape != (len(names),):
                raise InputError(f"model '{self.name}': {key} = {getattr(self, key)!r}, expected "
                                 f"{len(names)} numbers, one for each of {names_key} {tuple(names)}")
        object.__setattr__(self, "state_defaults", sd)
        object.__setattr__(self, "param_defaults", pd)
        if self.outputs is None and self.output_names:
            raise InputError(f"model '{self.name}': output_names given without an outputs hook")
        object.__setattr__(self, "sample_period",
                           check_number(f"model '{self.name}'", "sample_period", self.sample_period, lo=0.0))
        object.__setattr__(self, "error_states",
                           check_whole(f"model '{self.name}'", "error_states", self.error_states, 0, sd.size))
        index = {n: i for i, n in enumerate(self.param_names)}
        for key, rng in self.param_ranges.items():  # a model's own declaration: a programming error
            if key not in index:
                raise InputError(f"model '{self.name}': param_ranges names unknown parameter '{key}'")
            if not rng.contains(float(pd[index[key]])):
                raise InputError(f"model '{self.name}': default {key} = {pd[index[key]]:g} is outside its "
                                 f"declared range ({rng.allowed()})")

    # ------------------------------------------------------------------ sizes
    @property
    def nx(self) -> int:
        return len(self.state_names)

    @property
    def nparam(self) -> int:
        return len(self.param_names)

    @property
    def nguard(self) -> int:
        return len(self.guards)

    @property
    def ny(self) -> int:
        return len(self.output_names)

    @property
    def guard_direction(self) -> np.ndarray:
        """(nguard,) crossing directions (built once; do not modify)."""
        return self._guard_array("_gdir", "direction")

    @property
    def guard_placement(self) -> np.ndarray:
        """(nguard,) LEFT/RIGHT placements (built once; do not modify)."""
        return self._guard_array("_gplace", "placement")

    def _guard_array(self, key: str, attr: str) -> np.ndarray:
        arr = self.__dict__.get(key)
        if arr is None:
            arr = np.array([int(getattr(g, attr)) for g in self.guards], dtype=np.int64)
            object.__setattr__(self, key, arr)
        return arr

    # --------------------------------------------------------- user input
    def _fill(self, kind: str, names: tuple[str, ...], defaults: np.ndarray | Sequence[float],
              values: Mapping[str, float] | Sequence[float] | np.ndarray | None,
              where: str) -> np.ndarray:
        out = np.array(defaults, dtype=np.float64)
        if values is None:
            return out
        if isinstance(values, Mapping):
            index = {n: i for i, n in enumerate(names)}
            for key, val in values.items():
                if key not in index:
                    raise InputError(f"{where}: unknown {kind} '{key}' for model '{self.name}'"
                                     f"{closest(key, names)}; valid names: {', '.join(names)}")
                out[index[key]] = _finite(val, f"{where}: {kind} '{key}'")
            return out
        arr = as_floats(values)  # not numbers (a string, a ragged list): no shape, refused below
        if arr.shape != out.shape:
            raise InputError(f"{where}: {kind} vector has wrong size: expected {out.size} "
                             f"({', '.join(names)}), got {arr.size}")
        # finite, or the default's own non-finite value (an assembled robot's open limits and unset slots:
        # the vector given back whole)
        bad = ~(np.isfinite(arr) | (arr == out) | np.isnan(arr) & np.isnan(out))
        if np.any(bad):
            raise InputError(f"{where}: non-finite {kind} value(s) for "
                             f"{', '.join(names[i] for i in np.flatnonzero(bad))}")
        return arr.copy()

    def params(self, values=None, where: str = "parameters") -> np.ndarray:
        """Parameter array from defaults overridden by a name->value mapping or a full vector,
        each given value checked against :attr:`param_ranges`, then the whole vector against
        :attr:`check_params` (:class:`InputError` names ``where`` and the parameter)."""
        p = self._fill("parameter", self.param_names, self.param_defaults, values, where)
        if values is not None and self.param_ranges:
            given = values.keys() if isinstance(values, Mapping) else self.param_names
            index = {n: i for i, n in enumerate(self.param_names)}
            for key in given:
                rng = self.param_ranges.get(key)
                if rng is not None:
                    rng.check(float(p[index[key]]), f"{where}: parameter '{key}'")
        if self.check_params is not None:
            try:
                self.check_params(p)
            except InputError as exc:
                raise InputError(f"{where}: {exc}") from None
        return p

    def describe_param(self, name: str) -> str:
        """``"unit, allowed values — meaning"`` of one parameter (``legsim models NAME``)."""
        rng = self.param_ranges.get(name)
        if rng is None:
            return ""
        return rng.allowed() + (f" — {rng.doc}" if rng.doc else "")

    def state(self, values=None, where: str = "initial state") -> np.ndarray:
        """State array from defaults overridden by a name->value mapping or a full vector."""
        return self._fill("state", self.state_names, self.state_defaults, values, where)

    def hooks(self, default_outputs: Callable):
        """The compiled hook bundle the engine calls (built once per model, then reused)."""
        cached = self.__dict__.get("_hooks")
        if cached is None:
            import numba

            from ._hooks import make_hooks

            of = self.outputs if self.outputs is not None else default_outputs
            hooks = (self.vector_field, self.guard_values, self.reset, of, self.sample, self.check)
            if getattr(numba.config, "DISABLE_JIT", False):  # pure-Python run: a plain namespace
                from types import SimpleNamespace

                cached = SimpleNamespace(**dict(zip(("vector_field", "guards", "reset", "outputs",
                                                     "sample", "check"), hooks, strict=True)))
            else:
                cached = make_hooks(*hooks)
            object.__setattr__(self, "_hooks", cached)
        return cached

    def message(self, code: int) -> str:
        """Human-readable text of a model error code."""
        return self.error_messages.get(int(code), f"model error code {int(code)}")


def _finite(val, what: str) -> float:
    """``val`` as a finite float: a real number (not a bool or a string of digits; an int beyond the
    largest float is refused as not finite), else an :class:`InputError` naming ``what``."""
    f = as_float(val)
    if not math.isfinite(f):
        raise InputError(f"{what}: expected a finite real number, got {shown(val)}")
    return f
