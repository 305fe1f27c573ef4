"""RATS single-leg vertical hop bench (Wagenknecht (2009) §4.1.2 E3–E5, E8–E10; digest §2.4–§2.8).

The robot (3.397 kg body) balances on one leg; the leg's 3-way solenoid valve is energised for
10–80 ms; tank gas drives the single-chamber piston (5.11) against gravity, Coulomb and viscous
friction and the return spring (5.5); the robot lifts off when the foot unloads or the piston
reaches its end stop (the 0.049 kg leg then joins the body's momentum), and flies ballistically.
The hop height is the apex rise of the body. Tank depletion (5.12) and leakage carry over
between repeated firings.

Choices (digest ⚠): supply pressures are gauge (0.724 MPa = 0.825 MPa absolute); the flow
constants are the air values the thesis uses (C1/C2 of Table 5.3); temperature is constant
298.15 K as in (5.11); after the valve closes the gas is trapped (the variant that reproduces
the 31.75 cm plateau, digest §2.8) unless ``exhaust`` says otherwise; friction is the thesis's
constant F_f opposing extension unless ``friction="signed"``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...actuators.pneumatic.gas import AIR, CRITICAL_RATIO_SOURCE, NITROGEN
from ...actuators.pneumatic.solenoid import RUBBER_SEAT, SPOOL_SLEEVE, SolenoidValve
from ...actuators.pneumatic.tank import RATS_TANK_VOLUME
from ...actuators.pneumatic.units import P_ATM
from ...errors import InputError, check_flag, lookup, shown
from ...hybrid import Guard, Model, Options, Result, simulate
from . import _hop_hooks as H

__all__ = ["hop_model", "HopBench", "HopResult", "RUBBER_CV_EFFECTIVE", "PRESETS"]

RUBBER_CV_EFFECTIVE = 0.0799
"""Effective C_v of the rubber-seat valve in the corrected Cv law, fitted (brentq, this bench,
trapped gas, thesis friction) so that the 80 ms hop at 0.724 MPa is 26 cm (E4); it then predicts
34.3 cm at 1.034 MPa (E5: 33 cm). The manufacturer's 0.3 over-predicts the flow (digest §2.4 (c))."""

PARAM_NAMES = ("m_body", "m_leg", "g", "area", "v0", "stroke", "beta", "f_f", "k_return", "kappa",
               "r_gas", "temperature", "p_atm", "t_open", "t_close", "flow", "cfa", "cv", "c1",
               "c2", "r_cr", "r_lam", "sg", "exhaust", "exhaust_area", "v_tank", "leak_tau",
               "friction")
PARAM_DEFAULTS = (3.397, 0.049, 9.81, 5.0165e-4, 5.4e-6, 0.063, 5.2843, 9.7003, 100.0, 1.4,
                  NITROGEN.R, 298.15, P_ATM, 13.16e-3, 40e-3, H.FLOW_ORIFICE, 0.5378 * 3.2781e-6,
                  0.3, AIR.c1, AIR.c2, CRITICAL_RATIO_SOURCE, 0.999, NITROGEN.specific_gravity,
                  H.EXH_TRAPPED, 0.5378 * 3.2781e-6, RATS_TANK_VOLUME, 0.0, H.FRICTION_THESIS)
STATE_NAMES = ("y", "x", "v", "p_cyl", "p_tank", "m_used")
OUTPUT_NAMES = ("p_cyl_gauge", "p_tank_gauge", "mdot", "leg_force", "ground_reaction")
GUARDS = (Guard("valve_open"), Guard("valve_close"), Guard("breakaway_up"), Guard("breakaway_down"),
          Guard("bottom"), Guard("end_stop"), Guard("foot_unloads"), Guard("velocity_reverses"),
          Guard("lands"))
PHASES = {H.REST: "rest", H.UP: "extending", H.DOWN: "retracting", H.STUCK: "stuck",
          H.FLIGHT: "flight", H.LANDED: "landed"}


def _mode_name(mode: int) -> str:
    return PHASES.get(mode % 8, "?") + (" (valve open)" if mode >= H.VALVE else "")


def hop_model() -> Model:
    """The hop bench as a legsim hybrid model (states y, x, v, p_cyl, p_tank, m_used)."""
    return Model(name="rats_hop", state_names=STATE_NAMES,
                 state_defaults=np.array([0.0, 0.0, 0.0, P_ATM, 0.724e6 + P_ATM, 0.0]),
                 param_names=PARAM_NAMES, param_defaults=np.array(PARAM_DEFAULTS, dtype=float),
                 guards=GUARDS, output_names=OUTPUT_NAMES, vector_field=H.vector_field,
                 guard_values=H.guards, reset=H.reset, outputs=H.outputs, mode_name=_mode_name,
                 description="RATS single-leg vertical hop (Wagenknecht 2009 §4.1.2, §5.2)")


PRESETS: dict[str, dict] = {
    "spool": dict(valve=SPOOL_SLEEVE, flow=H.FLOW_ORIFICE),
    "rubber": dict(valve=RUBBER_SEAT, flow=H.FLOW_CV_CORRECTED, cv=RUBBER_CV_EFFECTIVE),
    "rubber_source": dict(valve=RUBBER_SEAT, flow=H.FLOW_CV_SOURCE, cv=0.3),
}


@dataclass
class HopResult:
    """One firing: apex rise [m], liftoff time [s] (nan without liftoff), gas used [kg],
    tank pressures before/after [Pa abs], and the engine result."""

    height: float
    liftoff_time: float
    mass_used: float
    p_tank_start: float
    p_tank_end: float
    result: Result


class HopBench:
    """Runs firings of one leg.

    Parameters
    ----------
    preset : "spool" (spool-and-sleeve, orifice flow (5.7), 13.16 ms latency, leaking),
        "rubber" (rubber-seat, corrected Cv law with the fitted effective C_v, 5 ms latency) or
        "rubber_source" (C_v = 0.3 through (5.8)–(5.10) as printed).
    exhaust : "trapped" | "instant" | "orifice"; friction : "thesis" | "signed".
    leak : include the valve's tank leakage (spool preset: τ ≈ 433 s).
    overrides : any model parameter by name (e.g. ``f_f=12.0``, ``cv=0.07``).
    """

    def __init__(self, preset: str = "spool", *, exhaust: str = "trapped", friction: str = "thesis",
                 leak: bool = False, options: Options | None = None, **overrides) -> None:
        o = "HopBench"
        lookup("preset", preset, list(PRESETS), o)
        exh = {"trapped": H.EXH_TRAPPED, "instant": H.EXH_INSTANT, "orifice": H.EXH_ORIFICE}
        lookup("exhaust", exhaust, list(exh), o)
        fr = {"thesis": H.FRICTION_THESIS, "signed": H.FRICTION_SIGNED}
        lookup("friction", friction, list(fr), o)
        leak = check_flag(o, "leak", leak)
        if not (options is None or isinstance(options, Options)):
            raise InputError(f"{o}: 'options' = {shown(options)}, expected None or legsim.hybrid.Options")
        self.model = hop_model()
        pre = PRESETS[preset]
        self.valve: SolenoidValve = pre["valve"]
        values = {"flow": pre["flow"], "exhaust": exh[exhaust], "friction": fr[friction]}
        if "cv" in pre:
            values["cv"] = pre["cv"]
        if leak and self.valve.leak_tau > 0:
            values["leak_tau"] = self.valve.leak_tau
        values.update(overrides)
        self.base = self.model.params(values, where="hop bench")
        self.options = options or Options(method="dp45", rtol=1e-8, atol=1e-10, h_max=1e-3,
                                          record_period=5e-4, sliding=False)

    def fire(self, duration_ms: float, p_supply_gauge: float = 0.724e6, *,
             p_tank: float | None = None, t_flight: float = 0.45) -> HopResult:
        """One firing of ``duration_ms`` [ms] from a tank at ``p_supply_gauge`` [Pa gauge]
        (or ``p_tank`` [Pa absolute]). Returns a :class:`HopResult`."""
        if not duration_ms >= 0:
            raise InputError(f"firing duration {duration_ms!r} ms: expected >= 0")
        if p_tank is None:
            if not p_supply_gauge >= 0:
                raise InputError(f"supply pressure {p_supply_gauge!r} Pa gauge: expected >= 0")
            p_tank = p_supply_gauge + P_ATM
        p = self.base.copy()
        t_open, t_close = self.valve.open_window(0.0, duration_ms * 1e-3)
        p[PARAM_NAMES.index("t_open")] = t_open
        p[PARAM_NAMES.index("t_close")] = t_close
        x0 = self.model.state({"p_cyl": p[PARAM_NAMES.index("p_atm")], "p_tank": p_tank})
        res = simulate(self.model, t_final=max(t_close, 1e-3) + t_flight, x0=x0, params=p,
                       options=self.options, mode0=H.REST)
        height = float(res.x[:, H.Y].max())
        t_lo = float("nan")
        ev = res.events
        for e in ev:
            if e["mode_after"] % 8 == H.FLIGHT and e["mode_before"] % 8 != H.FLIGHT:
                xs = e["x"]
                m, ml, g = p[0], p[1], p[2]
                v = m * xs[H.V] / (m + ml)
                height = max(height, xs[H.Y] + max(v, 0.0) ** 2 / (2 * g))
                t_lo = float(e["t"])
                break
        return HopResult(height=height, liftoff_time=t_lo, mass_used=float(res.x[-1, H.MU]),
                         p_tank_start=p_tank, p_tank_end=float(res.x[-1, H.PT]), result=res)

    def repeated(self, n: int, duration_ms: float, p_supply_gauge: float, interval: float = 3.0,
                 leak_tau: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
        """``n`` firings from one charge, ``interval`` [s] apart (tank depletion over repeated
        firings; between firings the tank leaks exponentially with ``leak_tau`` [s], 0 = none).

        Returns (heights [m], tank pressures before each firing [Pa abs])."""
        p_tank = p_supply_gauge + P_ATM
        heights = np.zeros(n)
        tanks = np.zeros(n)
        for i in range(n):
            tanks[i] = p_tank
            r = self.fire(duration_ms, p_tank=p_tank)
            heights[i] = r.height
            p_tank = r.p_tank_end
            if leak_tau > 0.0:
                p_tank = P_ATM + (p_tank - P_ATM) * np.exp(-interval / leak_tau)
        return heights, tanks
