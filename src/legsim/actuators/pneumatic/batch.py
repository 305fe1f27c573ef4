"""`ActuatorBatch`: N valve-driven cylinders evaluated together, SIMD-wide.

The actuators' parameters are packed once into lanes (:mod:`._lane_kernels`); each call then
evaluates every actuator's gas-state rates in one vectorised pass, four actuators per AVX2
vector. The physics is exactly :func:`._chamber_kernels.cylinder_rates` (Daepp (2011) (4.1.1),
(4.1.5)–(4.1.7), (4.1.10), §4.2.3); the results agree with it to ~1e-14 relative
(``tests/test_pneumatic_lanes.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import InputError
from . import _lane_kernels as K
from . import _layout as L
from ._chamber_kernels import piston_force_array
from ._validate import in_range

__all__ = ["ActuatorBatch", "stack_rows", "checked_state"]


def stack_rows(actuators) -> np.ndarray:
    """Parameter rows (N, NPARAM) of several (possibly different) actuators."""
    return np.ascontiguousarray(np.stack([a.row() for a in actuators]))


def checked_state(state, n: int | None = None) -> np.ndarray:
    """Gas states as a C-contiguous float64 (N, 5) array [P_cap, P_rod, m_cap, m_rod, m_air];
    InputError for another shape (N = ``n`` when given) or a negative pressure or mass."""
    state = np.ascontiguousarray(np.atleast_2d(state), dtype=float)
    if state.ndim != 2 or state.shape[1] != 5 or (n is not None and state.shape[0] != n):
        raise InputError(f"state: expected shape ({'N' if n is None else n}, 5) [P_cap, P_rod, "
                         f"m_cap, m_rod, m_air], got {np.shape(state)}")
    if np.any(state[:, :2] < 0.0):
        raise InputError(f"state: negative chamber pressure {state[:, :2].min():g} Pa")
    if np.any(state[:, 2:4] < 0.0):
        raise InputError(f"state: negative chamber mass {state[:, 2:4].min():g} kg")
    return state


class ActuatorBatch:
    """A fixed set of N pneumatic actuators (any mix of valve, heat and friction models).

    Holds scratch buffers: one batch must not be evaluated from two threads at once.

    Parameters
    ----------
    actuators : sequence of :class:`~legsim.actuators.pneumatic.PneumaticActuator`, or a
        parameter array (N, NPARAM) from :func:`~legsim.actuators.pneumatic.stack_rows`.
    """

    def __init__(self, actuators: Sequence | np.ndarray):
        if isinstance(actuators, np.ndarray):
            rows = np.ascontiguousarray(actuators, dtype=float)
            if rows.ndim != 2 or rows.shape[1] != L.NPARAM or rows.shape[0] == 0:
                raise InputError(f"rows: expected shape (N >= 1, {L.NPARAM}), got {rows.shape}")
        else:
            actuators = list(actuators)
            if not actuators:
                raise InputError("ActuatorBatch: expected at least one actuator, got none")
            rows = stack_rows(actuators)
        self.rows = rows
        self.n = rows.shape[0]
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
        xdot [m/s]. u, x, xdot are scalars or (N,). ``out`` (N, 5) receives the rates.
        """
        state, u, x, xdot = self._checked(state, u, x, xdot)
        if out is None:
            out = np.empty((self.n, 5))
        elif out.shape != (self.n, 5) or out.dtype != np.float64 or not out.flags.c_contiguous:
            raise InputError(f"out: expected a C-contiguous float64 array of shape ({self.n}, 5)")
        return self._evaluate(state, u, x, xdot, out)

    def force(self, state, xdot=0.0) -> np.ndarray:
        """Piston forces (N,) [N], Daepp (4.1.11): P_cap A_cap − P_rod A_rod − P_atm A_rod,cs
        minus each actuator's friction law in its velocity-only form (as
        :meth:`PneumaticActuator.force`). state (N, 5); xdot [m/s] scalar or (N,)."""
        state = checked_state(state, self.n)
        out = np.empty(self.n)
        piston_force_array(self.rows, state, self._per_actuator("piston velocity xdot", xdot), out)
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
        state = checked_state(state, self.n)
        rows = self.rows
        u = self._per_actuator("valve voltage u", u)
        x = self._per_actuator("piston position x", x)
        xdot = self._per_actuator("piston velocity xdot", xdot)
        for i in np.flatnonzero((u < rows[:, L.U_MIN]) | (u > rows[:, L.U_MAX]))[:1]:
            in_range(f"valve voltage u[{i}]", u[i], rows[i, L.U_MIN], rows[i, L.U_MAX])
        for i in np.flatnonzero((x < 0.0) | (x > rows[:, L.STROKE]))[:1]:
            in_range(f"piston position x[{i}] [m]", x[i], 0.0, rows[i, L.STROKE])
        return state, u, x, xdot

    def _per_actuator(self, name: str, value) -> np.ndarray:
        v = np.asarray(value, dtype=float)
        try:
            v = np.broadcast_to(v, (self.n,))
        except ValueError:
            raise InputError(f"{name}: expected a scalar or shape ({self.n},), got "
                             f"{np.shape(value)}") from None
        if not np.all(np.isfinite(v)):
            raise InputError(f"{name}: expected finite values, got {v[~np.isfinite(v)][0]!r}")
        return np.ascontiguousarray(v)
