"""RATS tipping valve times with gas-depletion compensation (Wagenknecht (2009) §6.1.2; digest §3.3).

Two parts (thesis Fig. 6.10):

* **Leg-strength model** (6.6): the threshold valve time that tips the robot over the hardest of
  leg i's five edges, ``t = a (P_s - c_res,i)^b + c_lat,i`` [ms], P_s the core pressure in MPa,
  a = 2.2584, b = -1.1795 for every leg, per-leg shifts from Table 6.1, rounded **up** to whole
  milliseconds (the valves have 1 ms resolution and a conservative time makes sure the robot
  tips). The optional surface term (6.7) subtracts ``c_surface,n`` [MPa] from the pressure.
* **Core-pressure estimator**: there is no pressure transducer, so the pressure is estimated from
  the initial charge by integrating the valve flow and the tank equation (5.12) for the time each
  valve is actually open (command duration minus latency) at every firing.

Decisions (digest ⚠, §6.3):

* Pressures in (6.6) are **gauge** MPa (the digest's reading; the §3.3 table is reproduced with
  1 psi = 0.00689476 MPa gauge). Inside the estimator pressures are absolute Pa (SI), converted at
  the boundary.
* **Leg numbering**: Table 6.1's legs 1-12 are mapped 1:1 onto our legs 1-12 (index k - 1, see
  :mod:`.geometry`). The thesis never gives its numbering on the icosahedron, so the per-leg
  constants are labels: they make the 12 legs different, not the same legs as the prototype's.
* Table 6.1's short times (6-28 ms) fit the 5 ms rubber-seat valves, so the estimator defaults to
  the rubber-seat preset (corrected C_v law with the effective C_v fitted on the hop bench,
  ``RUBBER_CV_EFFECTIVE``); the spool-and-sleeve preset (orifice flow (5.7), leaking) is available.
* **Chamber model**: while the valve is open the gas fills one leg cylinder held at a fixed
  extension ``chamber_extension`` (default stroke / 2), volume V = V0 + A x_c, from atmospheric
  pressure (it is vented after each firing), adiabatically by (5.11) with ẋ = 0:
  Ṗ_cyl = κ R T ṁ / V. Why a fixed, half-stroke volume: a tip is short (the valve is open
  ≈ 2-20 ms) and the leg is moving throughout it (quasi-statically, reaching the apex would need
  0.124 m of extension at l = 0.2 m, twice the stroke, so the robot coasts over the edge on the
  momentum the leg gave it); half the stroke is the mean volume of a steady extension to the end
  stop. The gas one firing draws is bounded by a full cylinder at P_s: (V0 + A stroke) / V_tank
  = 4.4 % of the tank gas (digest §2.5); the adiabatic fixed-volume fill draws at most
  (V0 + A x_c) / (κ V_tank) of it (1.8 % at half stroke).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from ...actuators.pneumatic.flow import cv_mass_flow, orifice_mass_flow
from ...actuators.pneumatic.gas import AIR
from ...actuators.pneumatic.solenoid import RUBBER_CV_EFFECTIVE, RUBBER_SEAT, SPOOL_SLEEVE, SolenoidValve
from ...actuators.pneumatic.tank import SupplyTank
from ...errors import InputError, SimulationError, as_float, as_floats
from .geometry import N_LEGS

__all__ = ["A_SHAPE", "B_SHAPE", "TABLE_6_1", "PSI_MPA", "TipStrengthModel", "DepletionEstimator",
           "LEG_AREA", "LEG_V0", "LEG_STROKE", "KAPPA"]

A_SHAPE = 2.2584
"""Shape parameter a of (6.6), all legs [ms MPa^-b]."""
B_SHAPE = -1.1795
"""Shape exponent b of (6.6), all legs [-]."""
TABLE_6_1 = np.array([
    [0.01175, 3.0517], [0.05455, 2.1951], [0.05705, 2.8776], [0.06298, 2.7901],
    [0.01396, 2.0872], [0.02718, 4.7386], [0.05915, 3.5766], [0.04534, 2.5904],
    [0.07336, 2.8272], [0.04756, 2.2999], [0.01646, 4.1676], [0.04789, 2.0860]])
"""(12, 2) Table 6.1 curve shifts: row k - 1 = thesis leg k = our leg k (labels, module docstring);
columns c_resistance [MPa], c_latency [ms]."""
TABLE_6_1.setflags(write=False)
PSI_MPA = 0.00689476
"""MPa per psi (the conversion of the digest's §3.3 table)."""

LEG_AREA = 5.0165e-4
"""Piston area A [m²] (Table 5.3)."""
LEG_V0 = 5.4e-6
"""End-of-stroke inactive volume V0 [m³] (Table 5.3)."""
LEG_STROKE = 0.063
"""Leg stroke [m] (§3.1, Table 5.1)."""
KAPPA = 1.4
"""Ratio of specific heats in (5.11) [-] (Table 5.3)."""
_CEIL_TOL = 1e-9   # [ms]: a raw time within this of a whole number is not pushed up by rounding error


@dataclass(frozen=True)
class TipStrengthModel:
    """The tip valve-time model (6.6)/(6.7), Table 6.1 defaults.

    a, b : shape parameters (2.2584, -1.1795). c_resistance : (12,) per-leg pressure shifts [MPa];
    c_latency : (12,) per-leg time shifts [ms]. c_surface : surface shift of (6.7) [MPa]
    (0 = sealed concrete, where Table 6.1 was measured; the thesis never calibrated it).
    """

    a: float = A_SHAPE
    b: float = B_SHAPE
    c_resistance: tuple[float, ...] = tuple(TABLE_6_1[:, 0])
    c_latency: tuple[float, ...] = tuple(TABLE_6_1[:, 1])
    c_surface: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(as_float(self.a)) and self.a > 0.0):
            raise InputError(f"TipStrengthModel a={self.a!r}: expected a finite number > 0 [ms]")
        if not (math.isfinite(as_float(self.b)) and self.b < 0.0):
            raise InputError(f"TipStrengthModel b={self.b!r}: expected a finite exponent < 0 (valve "
                             "time falls as the pressure rises)")
        for name in ("c_resistance", "c_latency"):
            v = as_floats(getattr(self, name))
            if v.shape != (N_LEGS,) or not np.all(np.isfinite(v)):
                raise InputError(f"TipStrengthModel {name}: expected {N_LEGS} finite numbers, got "
                                 f"{getattr(self, name)!r}")
            object.__setattr__(self, name, tuple(float(x) for x in v))
        if not math.isfinite(as_float(self.c_surface)):
            raise InputError(f"TipStrengthModel c_surface={self.c_surface!r}: expected a finite "
                             "number [MPa]")

    def raw_time(self, leg, p_supply_mpa, c_surface: float | None = None):
        """Threshold valve time before rounding [ms], (6.6), or (6.7) with ``c_surface`` [MPa]
        (default the model's).

        leg : leg index 0-11 (or an int array); p_supply_mpa : core pressure [MPa gauge], float or
        array (broadcast with ``leg``). Raises InputError when the pressure does not exceed the
        leg's c_resistance + c_surface (the power law diverges: no valve time tips the robot).
        """
        legs = np.asarray(leg)
        if legs.dtype.kind not in "iu" or np.any((legs < 0) | (legs >= N_LEGS)):
            raise InputError(f"leg={leg!r}: expected leg indices 0..{N_LEGS - 1}")
        p = np.asarray(p_supply_mpa, dtype=float)
        if not np.all(np.isfinite(p)):
            raise InputError(f"p_supply_mpa={p_supply_mpa!r}: expected finite pressures [MPa gauge]")
        cs = self.c_surface if c_surface is None else float(c_surface)
        shift = p - np.asarray(self.c_resistance)[legs] - cs
        if np.any(shift <= 0.0):
            raise InputError(f"p_supply_mpa={p_supply_mpa!r} MPa gauge: at or below leg {leg!r}'s "
                             f"c_resistance + c_surface (c_surface={cs:g}); (6.6) diverges, the leg "
                             "cannot tip the robot")
        out = self.a * shift ** self.b + np.asarray(self.c_latency)[legs]
        return float(out) if out.ndim == 0 else out

    def duration_ms(self, leg, p_supply_mpa, c_surface: float | None = None):
        """Valve command [whole ms]: :meth:`raw_time` rounded up (thesis §6.1.2). int, or an int
        array for array input."""
        t = np.ceil(np.asarray(self.raw_time(leg, p_supply_mpa, c_surface)) - _CEIL_TOL).astype(np.int64)
        return int(t) if t.ndim == 0 else t


@dataclass
class _Firing:
    t: float
    duration_ms: float
    p_before: float
    p_after: float
    mass: float


@dataclass
class DepletionEstimator:
    """Core-pressure estimate from the initial charge and the firings (§6.1.2, Fig. 6.10).

    Parameters
    ----------
    p0_mpa : initial charge [MPa gauge] (0.689 in the thesis's tipping runs).
    valve : :class:`SolenoidValve` preset, ``RUBBER_SEAT`` (default) or ``SPOOL_SLEEVE``; its
        latency gives the open window (duration - latency) and its flow type the flow law:
        "orifice" -> :func:`orifice_mass_flow` (5.7) with C_f A_v = ``valve.area`` and the air
        constants of Table 5.3; "cv" -> :func:`cv_mass_flow` (5.8)-(5.10) with ``cv``.
    cv : C_v for a "cv" valve (default ``RUBBER_CV_EFFECTIVE``, the hop-bench fit; the
        manufacturer's 0.3 over-predicts the flow, digest §2.4 (c)). cv_mode : "corrected" or
        "source" (as printed).
    tank : :class:`SupplyTank` (0.84 L, nitrogen, isothermal (5.12)); its leak model also runs
        during firings, and its exponential leak between firings (:meth:`advance`).
    chamber_extension : fixed leg extension x_c [m] of the filling chamber (module docstring),
        default stroke / 2; chamber volume V0 + A x_c.
    rtol : relative tolerance of the integration.
    """

    p0_mpa: float = 0.689
    valve: SolenoidValve = RUBBER_SEAT
    cv: float = RUBBER_CV_EFFECTIVE
    cv_mode: str = "corrected"
    tank: SupplyTank = field(default_factory=SupplyTank)
    chamber_extension: float = 0.5 * LEG_STROKE
    rtol: float = 1e-8
    history: list = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not (math.isfinite(as_float(self.p0_mpa)) and self.p0_mpa >= 0.0):
            raise InputError(f"p0_mpa={self.p0_mpa!r}: expected an initial charge >= 0 MPa gauge")
        if not isinstance(self.valve, SolenoidValve):
            raise InputError(f"valve={self.valve!r}: expected a SolenoidValve (e.g. RUBBER_SEAT or "
                             "SPOOL_SLEEVE)")
        if self.valve.flow == "cv" and not (math.isfinite(as_float(self.cv)) and self.cv > 0.0):
            raise InputError(f"cv={self.cv!r}: expected a flow coefficient > 0")
        if not (isinstance(self.cv_mode, str) and self.cv_mode in ("corrected", "source")):
            raise InputError(f"cv_mode={self.cv_mode!r}: expected 'corrected' or 'source'")
        if not isinstance(self.tank, SupplyTank):
            raise InputError(f"tank={self.tank!r}: expected a SupplyTank")
        x_c = as_float(self.chamber_extension)
        if not (math.isfinite(x_c) and 0.0 <= x_c <= LEG_STROKE):
            raise InputError(f"chamber_extension={self.chamber_extension!r} m: expected 0..{LEG_STROKE}")
        if not (math.isfinite(as_float(self.rtol)) and 0.0 < self.rtol < 1e-2):
            raise InputError(f"rtol={self.rtol!r}: expected 0 < rtol < 0.01")
        self.p_tank = self.p0_mpa * 1e6 + self.tank.p_atm
        self.t = 0.0

    @classmethod
    def spool(cls, **kw) -> DepletionEstimator:
        """The estimator with the leaking spool-and-sleeve valves (orifice flow (5.7), 13.16 ms
        latency, tank leak τ ≈ 433 s)."""
        kw.setdefault("tank", SupplyTank(leak="exponential", leak_tau=SPOOL_SLEEVE.leak_tau))
        return cls(valve=SPOOL_SLEEVE, **kw)

    @property
    def chamber_volume(self) -> float:
        """Volume of the filling chamber [m³]: V0 + A x_c."""
        return LEG_V0 + LEG_AREA * self.chamber_extension

    @property
    def p_gauge_mpa(self) -> float:
        """Current core-pressure estimate [MPa gauge] (the P_s of (6.6))."""
        return (self.p_tank - self.tank.p_atm) * 1e-6

    def mass_flow(self, p_tank: float, p_cyl: float) -> float:
        """Valve mass flow tank -> cylinder [kg/s] at absolute pressures [Pa], (5.7) or (5.8)-(5.10)."""
        temp = self.tank.temperature
        if self.valve.flow == "orifice":
            return float(orifice_mass_flow(self.valve.area, p_tank, p_cyl, temp, gas=AIR))
        return float(cv_mass_flow(self.cv, p_tank, p_cyl, temp, mode=self.cv_mode, gas=self.tank.gas))

    def _rates(self, _t, y):
        p_tank, p_cyl, _m = y
        mdot = self.mass_flow(max(p_tank, 0.0), max(p_cyl, 0.0))
        gas = self.tank.gas
        return [self.tank.pressure_rate(max(p_tank, 0.0), mdot),                      # (5.12)
                KAPPA * gas.R * self.tank.temperature * mdot / self.chamber_volume,   # (5.11), ẋ = 0
                mdot]

    def advance(self, t: float) -> float:
        """Move the estimate to time ``t`` [s] (≥ the last time): the tank's exponential leak, if
        any, acts over the gap. Returns the pressure [MPa gauge]."""
        if not math.isfinite(t) or t < self.t - 1e-12:
            raise InputError(f"t={t!r} s: expected a finite time >= the estimator's time {self.t:g} s")
        self.p_tank = self.tank.pressure_after_leak(self.p_tank, t - self.t)
        self.t = max(self.t, t)
        return self.p_gauge_mpa

    def open_time(self, duration_ms: float) -> float:
        """Time the valve is open for a command of ``duration_ms`` [ms]: duration - latency [s] (≥ 0)."""
        t0, t1 = self.valve.open_window(0.0, duration_ms * 1e-3)
        return t1 - t0

    def fire(self, duration_ms: float, t: float | None = None) -> float:
        """Account for one firing of ``duration_ms`` [ms] commanded at time ``t`` [s] (default: now):
        integrate (5.7 or 5.8-5.10) + (5.11) + (5.12) over the open window. Returns the gas drawn
        [kg]; the new estimate is :attr:`p_gauge_mpa`."""
        if not (math.isfinite(duration_ms) and duration_ms >= 0.0):
            raise InputError(f"duration_ms={duration_ms!r}: expected a valve command >= 0 ms")
        if t is not None:
            self.advance(t)
        p_before = self.p_tank
        t_open = self.open_time(duration_ms)
        mass = 0.0
        if t_open > 0.0 and self.p_tank > self.tank.p_atm:
            sol = solve_ivp(self._rates, (0.0, t_open), [self.p_tank, self.tank.p_atm, 0.0],
                            method="LSODA", rtol=self.rtol, atol=[1e-3, 1e-3, 1e-15])
            if not sol.success:   # pragma: no cover - LSODA on this smooth 3-state system
                raise SimulationError(f"depletion estimate failed for a {duration_ms} ms firing",
                                      t=self.t, mode="valve open", cause=str(sol.message))
            self.p_tank = float(sol.y[0, -1])
            mass = float(sol.y[2, -1])
        self.history.append(_Firing(self.t, float(duration_ms), p_before, self.p_tank, mass))
        return mass

    def tank_mass(self) -> float:
        """Gas in the tank now [kg] (isothermal)."""
        return self.tank.mass(self.p_tank)
