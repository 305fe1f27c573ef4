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

import math
from dataclasses import dataclass

import numpy as np

from ...actuators.pneumatic.actuator import MAX_PRESSURE, MAX_TEMPERATURE, MIN_CRITICAL_RATIO
from ...actuators.pneumatic.cylinder import MAX_LENGTH
from ...actuators.pneumatic.gas import (
    AIR,
    CRITICAL_RATIO_SOURCE,
    K_RANGE,
    NITROGEN,
    R_RANGE,
    SPECIFIC_GRAVITY_RANGE,
)
from ...actuators.pneumatic.solenoid import RUBBER_CV_EFFECTIVE, RUBBER_SEAT, SPOOL_SLEEVE, SolenoidValve
from ...actuators.pneumatic.tank import RATS_TANK_VOLUME
from ...actuators.pneumatic.units import P_ATM
from ...errors import InputError, as_float, check_flag, check_number, check_whole, lookup, shown
from ...hybrid import Guard, Model, Options, Result, simulate
from ...hybrid.params import ParamRange, between, choice, nonnegative
from . import _hop_hooks as H
from .rig import MASS_RANGE, MAX_DURATION, MAX_VALUE

__all__ = ["hop_model", "HopBench", "HopResult", "RUBBER_CV_EFFECTIVE", "PRESETS", "PARAM_RANGES",
           "MIN_GRAVITY", "MIN_VOLUME", "MIN_TEMPERATURE", "MAX_FLOW_AREA", "MAX_CV", "MAX_FLOW_CONSTANT",
           "MIN_LEAK_TAU", "MAX_FIRINGS"]

PARAM_NAMES = ("m_body", "m_leg", "g", "area", "v0", "stroke", "beta", "f_f", "k_return", "kappa",
               "r_gas", "temperature", "p_atm", "t_open", "t_close", "flow", "cfa", "cv", "c1",
               "c2", "r_cr", "r_lam", "sg", "exhaust", "exhaust_area", "v_tank", "leak_tau",
               "friction")
PARAM_DEFAULTS = (3.397, 0.049, 9.81, 5.0165e-4, 5.4e-6, 0.063, 5.2843, 9.7003, 100.0, 1.4,
                  NITROGEN.R, 298.15, P_ATM, 13.16e-3, 40e-3, H.FLOW_ORIFICE, 0.5378 * 3.2781e-6,
                  0.3, AIR.c1, AIR.c2, CRITICAL_RATIO_SOURCE, 0.999, NITROGEN.specific_gravity,
                  H.EXH_TRAPPED, 0.5378 * 3.2781e-6, RATS_TANK_VOLUME, 0.0, H.FRICTION_THESIS)
MIN_GRAVITY = 1e-3
"""The weakest gravity g [m/s²] the hop takes (a ten-thousandth of the Earth's; at most
:data:`~legsim.robots.pneumatic_rig.rig.MAX_VALUE`): the apex rise v²/2g stays finite."""
MIN_VOLUME = 1e-9
"""The smallest dead volume and tank volume [m³] (a cubic millimetre; at most MAX_LENGTH³ = 1000 m³): the
pressure rates R T ṁ / V stay within what the explicit integrator steps through (a 1e-12 m³ tank takes
over a minute of computing per firing)."""
MIN_TEMPERATURE = 1.0
"""The coldest gas [K] (at most :data:`~legsim.actuators.pneumatic.actuator.MAX_TEMPERATURE`): the Cv laws'
flows grow as 1/√T and overflow near 0 K."""
MAX_FLOW_AREA = 1e-3
"""The largest valve and exhaust effective area C_f A [m²] (10 cm², 570 times the spool valve's): larger,
the pressures equalise within microseconds and a firing takes minutes of computing."""
MAX_CV = 50.0
"""The largest valve flow coefficient C_v [US gpm/√psi] (about the same valve as :data:`MAX_FLOW_AREA`:
C_v 1 is about 20 mm²; the rubber-seat valve is 0.3)."""
MAX_FLOW_CONSTANT = 100.0
"""The largest orifice flow constants C1, C2 [√(kg K/J)] (any gas of the actuator's ranges has C1 < 16 and
C2 < 1; air 0.156 and 0.0404)."""
MIN_LEAK_TAU = 1e-3
"""The shortest tank leak time constant [s] besides 0 (no leak): shorter than a millisecond, the tank
empties before the valve opens, and the explicit integrator's steps shrink with it."""
MAX_FIRINGS = 10_000
"""The most firings :meth:`HopBench.repeated` runs (a charged tank lasts about a hundred, E10: 110)."""

STATE_NAMES = ("y", "x", "v", "p_cyl", "p_tank", "m_used")
OUTPUT_NAMES = ("p_cyl_gauge", "p_tank_gauge", "mdot", "leg_force", "ground_reaction")
GUARDS = (Guard("valve_open"), Guard("valve_close"), Guard("breakaway_up"), Guard("breakaway_down"),
          Guard("bottom"), Guard("end_stop"), Guard("foot_unloads"), Guard("velocity_reverses"),
          Guard("lands"))
PHASES = {H.REST: "rest", H.UP: "extending", H.DOWN: "retracting", H.STUCK: "stuck",
          H.FLIGHT: "flight", H.LANDED: "landed"}


def _ranges() -> dict[str, ParamRange]:
    """Units and allowed values of the hop parameters (:data:`PARAM_RANGES`)."""
    flow = between(0.0, MAX_FLOW_AREA, "m^2", "valve effective area C_f A_v, orifice law (5.7)")
    return {
        "m_body": between(*MASS_RANGE, "kg", "body mass"),
        "m_leg": between(0.0, MASS_RANGE[1], "kg", "leg mass, joins the body's momentum at liftoff"),
        "g": between(MIN_GRAVITY, MAX_VALUE, "m/s^2", "gravity"),
        "area": between(0.0, math.pi / 4 * MAX_LENGTH ** 2, "m^2", "piston area", open_low=True),
        "v0": between(MIN_VOLUME, MAX_LENGTH ** 3, "m^3", "dead volume of the retracted cylinder"),
        "stroke": between(0.0, MAX_LENGTH, "m", "piston stroke", open_low=True),
        "beta": between(0.0, MAX_VALUE, "N s/m", "viscous friction"),
        "f_f": between(0.0, MAX_VALUE, "N", "Coulomb friction F_f"),
        "k_return": between(0.0, MAX_VALUE, "N/m", "return spring rate"),
        "kappa": between(*K_RANGE, doc="ratio of specific heats", open_low=True),
        "r_gas": between(*R_RANGE, "J/(kg K)", "specific gas constant"),
        "temperature": between(MIN_TEMPERATURE, MAX_TEMPERATURE, "K", "gas temperature (constant)"),
        "p_atm": between(0.0, MAX_PRESSURE, "Pa", "atmosphere, absolute"),
        "t_open": between(0.0, MAX_DURATION, "s", "valve opens (set by each firing)"),
        "t_close": between(0.0, MAX_DURATION, "s", "valve closes (set by each firing)"),
        "flow": choice(H.FLOW_ORIFICE, H.FLOW_CV_SOURCE, H.FLOW_CV_CORRECTED,
                       doc="valve flow law: 0 orifice (5.7), 1 Cv as printed (5.8)-(5.10), 2 Cv corrected"),
        "cfa": flow,
        "cv": between(0.0, MAX_CV, "US gpm/psi^0.5", "valve flow coefficient C_v, Cv laws"),
        "c1": between(0.0, MAX_FLOW_CONSTANT, "(kg K/J)^0.5", "unchoked flow constant", open_low=True),
        "c2": between(0.0, MAX_FLOW_CONSTANT, "(kg K/J)^0.5", "choked flow constant", open_low=True),
        "r_cr": between(MIN_CRITICAL_RATIO, 1.0, doc="critical pressure ratio", open_high=True),
        "r_lam": between(0.0, 1.0, doc="laminar pressure ratio: 0 (none) or above r_cr", open_high=True),
        "sg": between(*SPECIFIC_GRAVITY_RANGE, doc="specific gravity of the gas (Cv laws)"),
        "exhaust": choice(H.EXH_TRAPPED, H.EXH_INSTANT, H.EXH_ORIFICE,
                          doc="after the valve closes: 0 gas trapped, 1 instant exhaust, 2 exhaust orifice"),
        "exhaust_area": between(0.0, MAX_FLOW_AREA, "m^2", "exhaust effective area (exhaust 2)"),
        "v_tank": between(MIN_VOLUME, MAX_LENGTH ** 3, "m^3", "tank volume"),
        "leak_tau": nonnegative("s", f"tank leak time constant: 0 (none) or >= {MIN_LEAK_TAU:g} s"),
        "friction": choice(H.FRICTION_THESIS, H.FRICTION_SIGNED,
                           doc="0 F_f against extension (5.5), 1 F_f sign(v) with stick"),
    }


PARAM_RANGES = _ranges()
"""Units and allowed values of the hop model's parameters (rules tying two: :func:`_check_params`)."""


def _leak_tau(owner: str, name: str, value) -> float:
    """A tank leak time constant [s]: 0 (no leak) or a finite number >= :data:`MIN_LEAK_TAU`."""
    tau = check_number(owner, name, value, lo=0.0)
    if 0.0 < tau < MIN_LEAK_TAU:
        raise InputError(f"{owner}: '{name}' = {shown(value)} s, expected 0 (no leak) or at least "
                         f"{MIN_LEAK_TAU:g} s")
    return tau


def _check_params(p: np.ndarray) -> None:
    """The rules tying hop parameters together (after :data:`PARAM_RANGES`)."""
    r_cr, r_lam = float(p[H.R_CR]), float(p[H.R_LAM])
    if not (r_lam == 0.0 or r_cr < r_lam):
        raise InputError(f"rats_hop: 'r_lam' = {r_lam:g}, expected 0 (no linear region) or above 'r_cr' = "
                         f"{r_cr:g}")
    _leak_tau("rats_hop", "leak_tau", float(p[H.LEAK_TAU]))


def _mode_name(mode: int) -> str:
    return PHASES.get(mode % 8, "?") + (" (valve open)" if mode >= H.VALVE else "")


def hop_model() -> Model:
    """The hop bench as a legsim hybrid model (states y, x, v, p_cyl, p_tank, m_used; parameters within
    :data:`PARAM_RANGES`)."""
    return Model(name="rats_hop", state_names=STATE_NAMES,
                 state_defaults=np.array([0.0, 0.0, 0.0, P_ATM, 0.724e6 + P_ATM, 0.0]),
                 param_names=PARAM_NAMES, param_defaults=np.array(PARAM_DEFAULTS, dtype=float),
                 guards=GUARDS, output_names=OUTPUT_NAMES, vector_field=H.vector_field,
                 guard_values=H.guards, reset=H.reset, outputs=H.outputs, mode_name=_mode_name,
                 param_ranges=PARAM_RANGES, check_params=_check_params,
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
    options : engine options (None: DP45, 1 ms steps at most, records every 0.5 ms).
    overrides : any model parameter by name (e.g. ``f_f=12.0``, ``cv=0.07``), a number within its
        range (:data:`PARAM_RANGES`, ``hop_model().describe_param(name)``).
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
        for key, value in overrides.items():
            number = as_float(value)
            if math.isnan(number) and key in PARAM_NAMES:  # a string, a bool, a sequence (or NaN)
                raise InputError(f"{o}: '{key}' = {shown(value)}, expected a number "
                                 f"({self.model.describe_param(key)})")
            values[key] = number if key in PARAM_NAMES else value
        self.base = self.model.params(values, where="hop bench")
        self.options = options or Options(method="dp45", rtol=1e-8, atol=1e-10, h_max=1e-3,
                                          record_period=5e-4, sliding=False)

    def fire(self, duration_ms: float, p_supply_gauge: float = 0.724e6, *,
             p_tank: float | None = None, t_flight: float = 0.45) -> HopResult:
        """One firing of ``duration_ms`` [ms] from a tank at ``p_supply_gauge`` [Pa gauge] (or ``p_tank``
        [Pa absolute], in [0, MAX_PRESSURE]), then ``t_flight`` [s] of flight. Returns a :class:`HopResult`.

        ``duration_ms`` in [0, 1000 MAX_DURATION], ``p_supply_gauge`` in [0, MAX_PRESSURE − P_ATM],
        ``t_flight`` in [0, MAX_DURATION] (:data:`~legsim.robots.pneumatic_rig.rig.MAX_DURATION`)."""
        o = "HopBench.fire"
        duration_ms, p_supply_gauge = _firing(o, duration_ms, p_supply_gauge)
        t_flight = check_number(o, "t_flight", t_flight, lo=0.0, hi=MAX_DURATION)  # [s]
        if p_tank is None:
            p_tank = p_supply_gauge + P_ATM
        else:
            p_tank = check_number(o, "p_tank", p_tank, lo=0.0, hi=MAX_PRESSURE)  # [Pa absolute]
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
        """``n`` firings (a whole number in [0, :data:`MAX_FIRINGS`]) of ``duration_ms`` [ms] from one
        charge at ``p_supply_gauge`` [Pa gauge] (ranges as :meth:`fire`), ``interval`` [s] (>= 0) apart
        (tank depletion over repeated firings; between firings the tank leaks exponentially with
        ``leak_tau`` [s]: 0 = none, else at least :data:`MIN_LEAK_TAU`).

        Returns (heights [m], tank pressures before each firing [Pa abs])."""
        o = "HopBench.repeated"
        n = check_whole(o, "n", n, lo=0, hi=MAX_FIRINGS)
        duration_ms, p_supply_gauge = _firing(o, duration_ms, p_supply_gauge)
        interval = check_number(o, "interval", interval, lo=0.0)  # [s]
        leak_tau = _leak_tau(o, "leak_tau", leak_tau)
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


def _firing(owner: str, duration_ms, p_supply_gauge) -> tuple[float, float]:
    """A firing's energise time [ms] and supply pressure [Pa gauge], checked (:meth:`HopBench.fire`)."""
    return (check_number(owner, "duration_ms", duration_ms, lo=0.0, hi=1e3 * MAX_DURATION),
            check_number(owner, "p_supply_gauge", p_supply_gauge, lo=0.0, hi=MAX_PRESSURE - P_ATM))
