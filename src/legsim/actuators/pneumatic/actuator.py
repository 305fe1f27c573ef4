"""`PneumaticActuator`: proportional valve + double-acting cylinder, vectorised over N.

Daepp (2011) Ch. 4: voltage -> equivalent area and input pressure (§4.2.3) -> orifice mass
flow (4.1.1) -> chamber energy balance (4.1.10) -> force balance with friction (4.1.11).
The gas state of actuator i is ``state[i] = [P_cap, P_rod, m_cap, m_rod, m_air]`` (Pa, Pa,
kg, kg, kg), ``m_air`` the cumulative air drawn from the supply. The piston motion (x, ẋ) is
an input so the actuator plugs into any mechanism (a test-rig mass or a multibody joint).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache

import numpy as np

from ...errors import InputError, as_floats, check_number, check_whole, shown
from . import _layout as L
from ._chamber_kernels import piston_force_array
from ._validate import check_member, replaced
from .batch import ActuatorBatch, _checked_state, per_actuator, stack_rows
from .cylinder import Cylinder
from .flow import DEFAULT_LAMINAR_RATIO
from .friction import Friction
from .gas import AIR, K_RANGE, Gas
from .units import P_ATM_PSI, PSI
from .valves import ProportionalValve

__all__ = ["HeatModel", "PneumaticActuator", "stack_rows", "STATE_NAMES", "MAX_PRESSURE", "MAX_TEMPERATURE",
           "MAX_ACTUATORS"]

STATE_NAMES = ("p_cap", "p_rod", "m_cap", "m_rod", "m_air")
MIN_CRITICAL_RATIO = 0.01
"""Smallest accepted choke ratio: the lane kernels' power law r^(1/k) is exact for
r ≥ 0.0067 (:mod:`._lane_math`); real gases have 0.48–0.61."""
MAX_PRESSURE = 1e9
"""The highest absolute pressure [Pa] (supply, exhaust, atmosphere) a :class:`PneumaticActuator` takes: 1 GPa,
a thousand times a pneumatic supply (about 1 MPa); the chamber rates' products of pressures, volumes and
temperatures then stay finite."""
MAX_TEMPERATURE = 1e4
"""The highest supply temperature [K] a :class:`PneumaticActuator` takes (as :func:`.flow.iso6358_mass_flow`'s
``T0``)."""
MAX_ACTUATORS = 1_000_000
"""The most gas states :meth:`PneumaticActuator.initial_state` lays out at once (a 40 MB array): far beyond
any robot's cylinders, and a count that does not exhaust the memory."""


class HeatModel(IntEnum):
    """Chamber thermodynamics: the exponent n of Ṗ = n R Σ T ṁ / V − n P V̇ / V."""

    ADIABATIC = 0
    """n = k; inflow enters at the supply temperature, outflow leaves at the chamber's."""
    POLYTROPIC = 1
    """n given (default 1 + k R / c_p = 1.397, Daepp (4.1.10) as coded)."""
    ISOTHERMAL = 2
    """n = 1, every temperature equal to the supply temperature."""


@dataclass(frozen=True)
class PneumaticActuator:
    """One valve-driven double-acting cylinder (defaults: Daepp's 1-DoF rig at 50 psig).

    Parameters
    ----------
    gas : :class:`Gas`; t_supply : supply temperature [K] (298), in (0, MAX_TEMPERATURE].
    p_supply : absolute supply pressure [Pa] (50.3 psig + 14.7 = 65 psia), above p_exhaust.
    p_exhaust : absolute exhaust pressure [Pa] (15.7 psia rig; the leg setup uses 24.7 ⚠).
    p_atm : atmosphere on the rod cross-section [Pa] (14.7 psia). Pressures in [0, MAX_PRESSURE].
    cylinder, valve, friction : sub-models (:class:`Cylinder`, :class:`ProportionalValve`,
    :class:`Friction`); heat : :class:`HeatModel`; n_poly : its exponent in [1, 1.7] (None: the
    gas's 1 + k R / c_p). critical_ratio : choke ratio in [MIN_CRITICAL_RATIO, 1) (None: exact
    (2/(k+1))^(k/(k−1))); laminar_ratio : 0 or in (critical_ratio, 1), see flow.
    """

    gas: Gas = AIR
    t_supply: float = 298.0
    p_supply: float = (50.3 + P_ATM_PSI) * PSI
    p_exhaust: float = 15.7 * PSI
    p_atm: float = P_ATM_PSI * PSI
    cylinder: Cylinder = field(default_factory=Cylinder)
    valve: ProportionalValve = field(default_factory=ProportionalValve)
    friction: Friction = field(default_factory=Friction)
    heat: HeatModel = HeatModel.ADIABATIC
    n_poly: float | None = None
    critical_ratio: float | None = None
    laminar_ratio: float = DEFAULT_LAMINAR_RATIO

    def __post_init__(self) -> None:
        o = "PneumaticActuator"
        for name, kind in (("gas", Gas), ("cylinder", Cylinder), ("valve", ProportionalValve),
                           ("friction", Friction)):
            part = getattr(self, name)
            if not isinstance(part, kind):
                raise InputError(f"{o}: '{name}' = {shown(part)}, expected a {kind.__name__}")
        check_member(o, "heat", self.heat, HeatModel)
        check_number(o, "t_supply", self.t_supply, lo=0.0, hi=MAX_TEMPERATURE, lo_open=True)  # [K]
        for name in ("p_exhaust", "p_atm", "p_supply"):  # absolute [Pa]
            check_number(o, name, getattr(self, name), lo=0.0, hi=MAX_PRESSURE)
        if not self.p_supply > self.p_exhaust:
            raise InputError(f"{o}: 'p_supply' = {shown(self.p_supply)} Pa is not above 'p_exhaust' = "
                             f"{shown(self.p_exhaust)} Pa (both absolute)")
        if self.n_poly is not None:
            check_number(o, "n_poly", self.n_poly, lo=1.0, hi=K_RANGE[1])
        r_cr = self.gas.critical_ratio
        if self.critical_ratio is not None:
            r_cr = check_number(o, "critical_ratio", self.critical_ratio, lo=MIN_CRITICAL_RATIO, hi=1.0)
        if not r_cr < 1.0:
            raise InputError(f"{o}: 'critical_ratio' = {shown(self.critical_ratio)}, expected "
                             f"{MIN_CRITICAL_RATIO} <= critical_ratio < 1 (air: 0.528)")
        laminar = check_number(o, "laminar_ratio", self.laminar_ratio, lo=0.0, hi=1.0)
        if not (laminar == 0.0 or r_cr < laminar < 1.0):
            raise InputError(f"{o}: 'laminar_ratio' = {shown(self.laminar_ratio)}, expected 0 (no linear "
                             f"region) or a value in (critical_ratio={r_cr:g}, 1)")

    def with_(self, **changes) -> PneumaticActuator:
        """A copy with some fields changed (an InputError names a key that is no field)."""
        return replaced("PneumaticActuator", self, changes)

    def row(self) -> np.ndarray:
        """The flat parameter row the kernels read (``_layout``), shape (NPARAM,)."""
        r = np.zeros(L.NPARAM)
        g = self.gas
        r[L.GAS_K] = g.k
        r[L.GAS_R] = g.R
        r[L.T_SUPPLY] = self.t_supply
        r[L.P_SUPPLY] = self.p_supply
        r[L.P_EXHAUST] = self.p_exhaust
        r[L.P_ATM] = self.p_atm
        r[L.HEAT_MODEL] = int(self.heat)
        r[L.N_POLY] = g.n_as_coded if self.n_poly is None else self.n_poly
        r[L.CRIT_RATIO] = g.critical_ratio if self.critical_ratio is None else self.critical_ratio
        r[L.LAM_RATIO] = self.laminar_ratio
        r[L.C1] = g.c1
        r[L.C2] = g.c2
        self.cylinder.write(r)
        self.valve.write(r)
        self.friction.write(r)
        return r

    def initial_state(self, x, p_cap, p_rod, n: int = 1) -> np.ndarray:
        """Gas state (n, 5) at rest at piston position x [m] in [0, stroke] with the given absolute chamber
        pressures [Pa] in [0, MAX_PRESSURE] and the supply temperature (masses from the ideal-gas law).
        x, p_cap, p_rod: a number, or one per actuator (n,); n a whole number in [1, MAX_ACTUATORS]."""
        o = "PneumaticActuator.initial_state"
        n = check_whole(o, "n", n, lo=1, hi=MAX_ACTUATORS)
        x = per_actuator(f"{o}: 'x'", x, n, (0.0, self.cylinder.stroke), " m")
        p_cap, p_rod = (per_actuator(f"{o}: '{name}'", v, n, (0.0, MAX_PRESSURE), " Pa")
                        for name, v in (("p_cap", p_cap), ("p_rod", p_rod)))
        v_cap, v_rod = self.cylinder.volumes(x)
        rt = self.gas.R * self.t_supply
        s = np.zeros((n, 5))
        s[:, 0] = p_cap
        s[:, 1] = p_rod
        s[:, 2] = p_cap * v_cap / rt
        s[:, 3] = p_rod * v_rod / rt
        return s

    # -------------------------------------------------------------- vectorised evaluation
    def derivatives(self, t, state, u, x, xdot, rows: np.ndarray | None = None) -> np.ndarray:
        """d(state)/dt for N actuators (Daepp (4.1.1), (4.1.10)), by the SIMD lane kernel
        (:class:`~.batch.ActuatorBatch`, packed once per distinct set of actuators).

        state (N, 5); u valve voltages [V] (N,) within the valve range; x, xdot piston
        positions [m] within [0, stroke] and velocities [m/s] (N,). ``rows`` (N, NPARAM)
        lets N different actuators share the call (default: this actuator for all). ``t`` [s] is
        unused (the actuator is time-invariant; it keeps an ODE solver's signature f(t, y)).
        Returns (N, 5).
        """
        state, u, x, xdot, rows = self._prepare(state, u, x, xdot, rows)
        batch = (_copies(self.row().tobytes(), state.shape[0]) if rows is None
                 else _packed(rows.tobytes(), rows.shape))
        # the packed batch is shared (cached): fresh scratch keeps this call thread-safe
        return batch._evaluate(state, u, x, xdot, np.empty_like(state), own_scratch=True)

    def force(self, state, x=None, xdot=0.0, rows: np.ndarray | None = None) -> np.ndarray:
        """Piston force F = P_cap A_cap − P_rod A_rod − P_atm A_rod,cs − F_f(ẋ) [N], (4.1.11).

        state (N, 5) as :meth:`derivatives`; xdot piston velocities [m/s], a number or (N,); ``x``
        piston positions [m] in [0, stroke], optional and checked only (the force does not depend on
        them); ``rows`` as :meth:`derivatives`. Friction uses the velocity-only form of the law (no stick
        state; at rest the Coulomb and stiction laws balance the pressure force up to their breakaway
        level). Returns (N,).
        """
        state = _checked_state(state, None)
        n = state.shape[0]
        if x is not None:
            per_actuator("piston position x", x, n, (0.0, self.cylinder.stroke), " m")
        v = per_actuator("piston velocity xdot", xdot, n)
        rows = self._rows(rows, n)
        out = np.empty(n)
        piston_force_array(rows, state, v, out)
        return out

    def _rows(self, rows, n):
        if rows is None:
            return np.ascontiguousarray(np.tile(self.row(), (n, 1)))
        checked = np.ascontiguousarray(as_floats(rows))
        if checked.shape != (n, L.NPARAM) or not np.isfinite(checked).all():
            got = f"shape {checked.shape}" if checked.size else shown(rows)
            raise InputError(f"rows: expected finite parameter rows ({n}, {L.NPARAM}) from stack_rows, got "
                             f"{got}")
        return checked

    def _prepare(self, state, u, x, xdot, rows):
        state = _checked_state(state, None)
        n = state.shape[0]
        u = per_actuator("valve voltage u", u, n, (self.valve.u_min, self.valve.u_max), " V")
        x = per_actuator("piston position x", x, n, (0.0, self.cylinder.stroke), " m")
        xdot = per_actuator("piston velocity xdot", xdot, n)
        return state, u, x, xdot, (None if rows is None else self._rows(rows, n))


@lru_cache(maxsize=64)
def _copies(row_bytes: bytes, n: int) -> ActuatorBatch:
    """The packed batch of n copies of one actuator's parameter row (packed once per (row, n);
    keyed by the row's bytes: an actuator may hold unhashable fields such as numpy arrays)."""
    return ActuatorBatch(np.tile(np.frombuffer(row_bytes), (n, 1)))


@lru_cache(maxsize=64)
def _packed(row_bytes: bytes, shape: tuple) -> ActuatorBatch:
    """The packed batch of given parameter rows (packed once per distinct rows)."""
    return ActuatorBatch(np.frombuffer(row_bytes).reshape(shape))
