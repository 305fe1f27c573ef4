"""`ActuatorBatch`: N valve-driven cylinders evaluated together, SIMD-wide.

The actuators' parameters are packed once into lanes (:mod:`._lane_kernels`); each call then
evaluates every actuator's gas-state rates in one vectorised pass, four actuators per AVX2 vector
(eight per AVX-512 vector on AMD Zen 4). The physics is exactly
:func:`._chamber_kernels.cylinder_rates` (Daepp (2011) (4.1.1), (4.1.5)–(4.1.7), (4.1.10), §4.2.3);
the results agree with it to ~1e-14 relative (``tests/test_pneumatic_lanes.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...errors import InputError, as_floats, check_whole, shown
from . import _lane_kernels as K
from . import _layout as L
from ._chamber_kernels import piston_force_array
from ._validate import in_range

__all__ = ["ActuatorBatch", "stack_rows", "checked_state", "per_actuator"]


def stack_rows(actuators) -> np.ndarray:
    """Parameter rows (N, NPARAM) of N >= 1 (possibly different) actuators: a list, tuple or other iterable
    of :class:`~legsim.actuators.pneumatic.PneumaticActuator`."""
    return _stacked("stack_rows", actuators)


def _stacked(owner: str, actuators) -> np.ndarray:
    """:func:`stack_rows` of ``actuators``, else an :class:`InputError` from ``owner`` naming them."""
    from .actuator import PneumaticActuator  # here: that module imports this one

    try:
        items = list(actuators) if not isinstance(actuators, (str, bytes)) else None
    except TypeError:  # not iterable
        items = None
    if items is None:
        raise InputError(f"{owner}: 'actuators' = {shown(actuators)}, expected a list of PneumaticActuator")
    if not items:
        raise InputError(f"{owner}: 'actuators' = {shown(actuators)}: expected at least one actuator, got "
                         "none")
    for i, a in enumerate(items):
        if not isinstance(a, PneumaticActuator):
            raise InputError(f"{owner}: 'actuators[{i}]' = {shown(a)}, expected a PneumaticActuator")
    return np.ascontiguousarray(np.stack([a.row() for a in items]))


def checked_state(state, n: int | None = None) -> np.ndarray:
    """Gas states as a C-contiguous float64 (N, 5) array [P_cap, P_rod, m_cap, m_rod, m_air] [Pa, Pa, kg,
    kg, kg]; InputError for another shape (N = ``n`` when given, a whole number >= 1), a value that is not
    a finite number, or a negative pressure or mass."""
    return _checked_state(state, None if n is None else check_whole("checked_state", "n", n, lo=1))


def _checked_state(state, n: int | None) -> np.ndarray:
    """:func:`checked_state` with ``n`` (None or a whole number) known to be valid (per-call code)."""
    try:
        state = np.ascontiguousarray(np.atleast_2d(state), dtype=float)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the largest float
        raise InputError(f"state = {shown(state)}: expected an array (N, 5) of numbers [P_cap, P_rod, m_cap, "
                         "m_rod, m_air]") from None
    if state.ndim != 2 or state.shape[1] != 5 or (n is not None and state.shape[0] != n):
        raise InputError(f"state: expected shape ({'N' if n is None else f'n = {n}'}, 5) [P_cap, P_rod, "
                         f"m_cap, m_rod, m_air], got {np.shape(state)}")
    if not ((state[:, :4] >= 0.0).all() and np.isfinite(state).all()):  # one pass each (NaN fails >= 0)
        if not np.isfinite(state).all():
            raise InputError(f"state: expected finite values, got {state[~np.isfinite(state)][0]!r}")
        if np.any(state[:, :2] < 0.0):
            raise InputError(f"state: negative chamber pressure {state[:, :2].min():g} Pa")
        raise InputError(f"state: negative chamber mass {state[:, 2:4].min():g} kg")
    return state


def per_actuator(name: str, value, n: int, bounds: tuple[float, float] | None = None,
                 unit: str = "") -> np.ndarray:
    """``value`` (a number, or one per actuator) as a contiguous float (n,) array of finite numbers, each in
    ``bounds`` (lo, hi) when given (``unit`` for the message), else an :class:`InputError` naming ``name``."""
    if type(value) is float and value - value == 0.0 and (bounds is None or bounds[0] <= value <= bounds[1]):
        return np.full(n, value)  # a finite float (the common case): checked without numpy's reductions
    try:
        if isinstance(value, (str, bytes, bool, np.bool_)):  # numpy would read "111" as 111.0, True as 1.0
            raise TypeError
        v = np.broadcast_to(np.asarray(value, dtype=float), (n,))
    except (TypeError, ValueError, OverflowError):  # not numbers, or not a scalar or (n,)
        raise InputError(f"{name} = {shown(value)}: expected a number or an array ({n},) of "
                         "numbers") from None
    if bounds is None:
        ok = np.isfinite(v).all()
    elif v.size:  # two reductions (about 1 µs each) instead of three: NaN propagates through min and max
        low, high = float(v.min()), float(v.max())
        ok = bounds[0] <= low and high <= bounds[1] and math.isfinite(low) and math.isfinite(high)
    else:
        ok = True
    if not ok:
        if bounds is None or not np.isfinite(v).all():
            raise InputError(f"{name}: expected finite values, got {v[~np.isfinite(v)][0]!r}")
        raise InputError(f"{name}: expected values in [{bounds[0]:g}, {bounds[1]:g}]{unit}, got "
                         f"[{v.min():g}, {v.max():g}]")
    return np.ascontiguousarray(v)


class ActuatorBatch:
    """A fixed set of N pneumatic actuators (any mix of valve, heat and friction models).

    Holds scratch buffers: one batch must not be evaluated from two threads at once.

    Parameters
    ----------
    actuators : a list (tuple, iterable) of one or more
        :class:`~legsim.actuators.pneumatic.PneumaticActuator`, or a finite parameter array
        (N >= 1, NPARAM) from :func:`~legsim.actuators.pneumatic.stack_rows`.
    """

    def __init__(self, actuators: Sequence | np.ndarray):
        if isinstance(actuators, np.ndarray):
            rows = np.ascontiguousarray(as_floats(actuators))
            n = rows.shape[0] if rows.ndim == 2 else 0
            if rows.shape != (n, L.NPARAM) or n == 0 or not np.isfinite(rows).all():
                raise InputError(f"ActuatorBatch: 'actuators' is an array of shape {actuators.shape} and "
                                 f"dtype {actuators.dtype}: expected finite parameter rows (N >= 1, "
                                 f"{L.NPARAM}) from stack_rows")
        else:
            rows = _stacked("ActuatorBatch", actuators)
        self.rows = rows
        self.n = rows.shape[0]
        # the ranges the packed actuators take (contiguous: compared on every call)
        self._u_min, self._u_max, self._stroke = (np.ascontiguousarray(rows[:, k])
                                                  for k in (L.U_MIN, L.U_MAX, L.STROKE))
        self.order, self.block_lanes, self.n_fitted_blocks = K.lane_order(rows)
        nb = self.block_lanes.size
        self.lanes = np.zeros(nb * K.NLANE * K.LANE_WIDTH)
        K.pack_lanes(rows, self.order, self.lanes)
        self._lin = np.zeros(nb * K.NIN * K.LANE_WIDTH)
        self._lout = np.zeros(nb * K.NOUT * K.LANE_WIDTH)

    def __len__(self) -> int:
        return self.n

    def derivatives(self, state, u, x, xdot, out: np.ndarray | None = None) -> np.ndarray:
        """d(state)/dt (N, 5) of every actuator (Daepp (4.1.1), (4.1.10)).

        state (N, 5) = [P_cap, P_rod, m_cap, m_rod, m_air] [Pa, Pa, kg, kg, kg]; u valve
        voltages [V] within each valve's range; x piston positions [m] within [0, stroke];
        xdot [m/s]. u, x, xdot are scalars or (N,). ``out`` (N, 5), a C-contiguous float64 array, receives
        the rates (None: a new array).
        """
        state, u, x, xdot = self._checked(state, u, x, xdot)
        if out is None:
            out = np.empty((self.n, 5))
        elif not (isinstance(out, np.ndarray) and out.shape == (self.n, 5) and out.dtype == np.float64
                  and out.flags.c_contiguous and out.flags.writeable):
            raise InputError(f"ActuatorBatch.derivatives: 'out' = {shown(out)}, expected None or a writeable "
                             f"C-contiguous float64 array of shape ({self.n}, 5)")
        return self._evaluate(state, u, x, xdot, out)

    def force(self, state, xdot=0.0) -> np.ndarray:
        """Piston forces (N,) [N], Daepp (4.1.11): P_cap A_cap − P_rod A_rod − P_atm A_rod,cs
        minus each actuator's friction law in its velocity-only form (as
        :meth:`PneumaticActuator.force`). state (N, 5); xdot [m/s] scalar or (N,)."""
        state = _checked_state(state, self.n)
        out = np.empty(self.n)
        piston_force_array(self.rows, state, per_actuator("piston velocity xdot", xdot, self.n), out)
        return out

    def _evaluate(self, state, u, x, xdot, out, own_scratch: bool = False):
        """The compiled pass on checked, contiguous float64 inputs (no validation).
        ``own_scratch``: use fresh scratch buffers (for a batch shared between callers)."""
        lin, lout = ((np.empty_like(self._lin), np.empty_like(self._lout)) if own_scratch
                     else (self._lin, self._lout))
        K.cylinder_rates_lanes(self.lanes, self.order, self.block_lanes, self.n_fitted_blocks,
                               u, x, xdot, state, lin, lout, out)
        return out

    def _checked(self, state, u, x, xdot):
        state = _checked_state(state, self.n)
        u = per_actuator("valve voltage u", u, self.n)
        x = per_actuator("piston position x", x, self.n)
        xdot = per_actuator("piston velocity xdot", xdot, self.n)
        for i in np.flatnonzero((u < self._u_min) | (u > self._u_max))[:1]:
            in_range(f"valve voltage u[{i}]", u[i], self._u_min[i], self._u_max[i])
        for i in np.flatnonzero((x < 0.0) | (x > self._stroke))[:1]:
            in_range(f"piston position x[{i}] [m]", x[i], 0.0, self._stroke[i])
        return state, u, x, xdot

