"""Supply tank depletion with optional leakage (Wagenknecht (2009) eq. (5.12), §2.5; E10).

Isothermal tank: Ṗ_s = −ṁ_out R T / V_tank (the printed (5.12) lacks the minus sign).
Leakage, which the thesis does not model, is either an exponential decay of the gauge pressure
with time constant τ (τ = 300 s / ln 2 ≈ 433 s reproduces "−50 % in 5 min", E10) or an orifice
to the atmosphere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InputError, as_float, check_fields
from ._chamber_kernels import LEAK_EXPONENTIAL, LEAK_NONE, LEAK_ORIFICE, tank_pressure_rate
from .flow import DEFAULT_LAMINAR_RATIO
from .gas import NITROGEN, Gas
from .units import P_ATM

__all__ = ["SupplyTank", "RATS_TANK_VOLUME"]

RATS_TANK_VOLUME = 0.84e-3
"""RATS core tank internal volume [m³] (≈0.84 L, digest §1.3)."""


@dataclass(frozen=True)
class SupplyTank:
    """An isothermal gas tank.

    volume [m³]; temperature [K]; gas; leak: "none", "exponential" (leak_tau [s]) or
    "orifice" (leak_area [m²]); p_atm [Pa].
    """

    volume: float = RATS_TANK_VOLUME
    temperature: float = 298.15
    gas: Gas = NITROGEN
    leak: str = "none"
    leak_tau: float = 300.0 / math.log(2.0)
    leak_area: float = 0.0
    p_atm: float = P_ATM

    def __post_init__(self) -> None:
        check_fields("tank", self, positive=("volume", "temperature", "p_atm"), nonnegative=("leak_area",))
        if not isinstance(self.gas, Gas):
            raise InputError(f"tank gas={self.gas!r}: expected a legsim Gas (AIR, NITROGEN)")
        if not (isinstance(self.leak, str) and self.leak in ("none", "exponential", "orifice")):
            raise InputError(f"tank leak={self.leak!r}: expected 'none', 'exponential' or 'orifice'")
        tau = as_float(self.leak_tau)
        if not (math.isfinite(tau) and (tau > 0.0 or (tau == 0.0 and self.leak != "exponential"))):
            raise InputError(f"tank leak_tau={self.leak_tau!r} s: expected a finite number > 0")

    @property
    def leak_code(self) -> int:
        return {"none": LEAK_NONE, "exponential": LEAK_EXPONENTIAL, "orifice": LEAK_ORIFICE}[self.leak]

    def pressure_rate(self, p_tank: float, mdot_out: float) -> float:
        """Ṗ [Pa/s] at tank pressure p_tank [Pa] (absolute, ≥ 0) with outflow mdot_out [kg/s]."""
        if p_tank < 0.0:
            raise InputError(f"tank pressure {p_tank!r} Pa: expected an absolute pressure >= 0")
        g = self.gas
        return tank_pressure_rate(float(p_tank), float(mdot_out), self.temperature, self.volume, g.R,
                                  self.p_atm, self.leak_code, self.leak_tau, self.leak_area, g.k,
                                  g.c1, g.c2, g.critical_ratio, DEFAULT_LAMINAR_RATIO)

    def mass(self, p_tank: float) -> float:
        """Gas mass in the tank [kg] at absolute pressure p_tank [Pa]."""
        return p_tank * self.volume / (self.gas.R * self.temperature)

    def pressure_after_draw(self, p_tank: float, mass_drawn: float) -> float:
        """Absolute pressure [Pa] after ``mass_drawn`` [kg] leaves isothermally (integrated (5.12))."""
        return p_tank - mass_drawn * self.gas.R * self.temperature / self.volume

    def pressure_after_leak(self, p_tank: float, dt: float) -> float:
        """Absolute pressure [Pa] after ``dt`` [s] of exponential leakage with no firings."""
        if self.leak != "exponential":
            return p_tank
        return self.p_atm + (p_tank - self.p_atm) * math.exp(-dt / self.leak_tau)
