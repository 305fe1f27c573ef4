"""The 1-DoF pneumatic cylinder test rig (Daepp (2011) Ch. 4, App. B; digest §5.1, §7 A4–A6).

A Festo MPYE-5 valve drives a Bimba PFC cylinder (1.75 in stroke) moving an attached 0.2 kg
mass on a vertical board at 50 psig supply. A PID controller sampled at 1 kHz sets the valve
voltage, saturated to 0–10 V (the engine's ``sample`` hook with ``Options(sample_period=1e-3)``).
Inputs: step, trapezoid, sine, a recorded CSV (linear or held), or an open-loop voltage.
Outputs: position, reference, chamber pressures, pressure force, friction, net force, mass flows,
cumulative air used. Ablations: ``valve="fitted"|"simple"|"underlapped"`` and
``friction="stribeck"|"viscous"|"stiction"|"coulomb"|"steep"|"lugre"``.

Orientation (⚠ unstated in the source): ``gravity_along_extension`` is the component of g
along +x; the default +9.81 reads the setup file's "vertical, downward-facing" as rod pointing
down. End stops are plastic (velocity reset to 0, as the Simulink integrator reset flags).
PID gains are not given in the source (⚠ 13); the defaults were tuned here so the closed-loop
step response has the reported dominant time constant τ ≈ 0.08 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...actuators.pneumatic import _layout as L
from ...actuators.pneumatic.actuator import MAX_PRESSURE, HeatModel, PneumaticActuator
from ...actuators.pneumatic.friction import Friction, FrictionModel, stribeck_tanh_source, viscous_source
from ...actuators.pneumatic.units import P_ATM_PSI, PSI
from ...actuators.pneumatic.valves import mpye5_fitted, mpye5_simple, mpye5_underlapped
from ...errors import InputError, check_flag, check_number, check_values, check_whole, lookup, shown
from ...hybrid import Direction, Guard, Model, Options, Result, simulate
from ...identify.logs import read_log
from . import _rig_hooks as H
from .limits import MASS_RANGE, MAX_DURATION, MAX_PSI, MAX_VALUE

__all__ = ["rig_model", "RigBench", "RigRun", "Reference", "VALVES", "FRICTIONS", "CONTROLLERS", "MAX_PSI",
           "MASS_RANGE", "MAX_VALUE", "MAX_DURATION", "MAX_TABLE"]

STATE_NAMES = ("x", "v", "p_cap", "p_rod", "m_cap", "m_rod", "m_air", "z", "u", "integ", "e_prev",
               "ref", "x_prev", "v_est", "a_est")
OUTPUT_NAMES = ("ref", "pressure_force", "friction", "force", "mdot_cap", "mdot_rod", "mdot_supply")
RIG_PARAM_NAMES = ("mass", "gravity_along_extension", "kp", "ki", "kd", "u_bias", "dt_control",
                   "open_loop", "ref_kind", "r0", "r1", "t_start", "t_ramp", "t_hold", "amplitude",
                   "omega", "n_table", "gain_scale", "controller", "kv", "ka", "pva_cutoff")
MODE_NAMES = {H.FREE: "moving", H.BOTTOM: "at bottom stop", H.TOP: "at top stop", H.STUCK: "stuck",
              H.SLIDE_POS: "sliding out", H.SLIDE_NEG: "sliding in"}

MAX_TABLE = 1_000_000
"""The most (time, value) points of a table :class:`Reference` (a 1 kHz log of 16 minutes): each point is
two named parameters of :func:`rig_model`."""

CONTROLLERS = {"pid": H.CTRL_PID, "pva": H.CTRL_PVA}
VALVES = {"fitted": mpye5_fitted, "simple": mpye5_simple, "underlapped": mpye5_underlapped}
FRICTIONS = {
    "stribeck": stribeck_tanh_source,
    "viscous": viscous_source,
    "stiction": lambda: Friction(model=FrictionModel.STICTION, c_v=0.0),
    "coulomb": lambda: Friction(model=FrictionModel.COULOMB, c_v=0.0),
    "steep": lambda: Friction(model=FrictionModel.STEEP_LINEAR, c_v=0.5 * 4.4482216152605, v_sat=0.01),
    "lugre": lambda: Friction(model=FrictionModel.LUGRE),
}


def _row_names() -> list[str]:
    names = [f"p{i}" for i in range(L.NPARAM)]
    for key, val in vars(L).items():
        if key.isupper() and isinstance(val, int) and key != "NPARAM" and 0 <= val < L.NPARAM:
            names[val] = key.lower()
    for base in ("POLY_CAP_POS", "POLY_CAP_NEG", "POLY_ROD_POS", "POLY_ROD_NEG"):
        off = getattr(L, base)
        for j in range(5):
            names[off + j] = f"{base.lower()}_{4 - j}"
    return names


def rig_model(n_table: int = 0) -> Model:
    """The rig as a hybrid model; ``n_table`` reference-table points (ref_t_i, ref_v_i params), a whole
    number in [0, :data:`MAX_TABLE`]."""
    n_table = check_whole("rig_model", "n_table", n_table, 0, MAX_TABLE)
    names = _row_names() + list(RIG_PARAM_NAMES)
    names += [f"ref_t_{i}" for i in range(n_table)] + [f"ref_v_{i}" for i in range(n_table)]
    defaults = np.zeros(len(names))
    defaults[:L.NPARAM] = PneumaticActuator().row()
    rig = dict(mass=0.2, gravity_along_extension=9.81, kp=100.0, ki=0.0, kd=0.0, u_bias=5.25,
               dt_control=1e-3, open_loop=0.0, ref_kind=0.0, r0=0.0, r1=0.0, t_start=0.0,
               t_ramp=0.5, t_hold=0.5, amplitude=0.0, omega=1.0, n_table=float(n_table), gain_scale=1.0,
               controller=float(H.CTRL_PID), kv=0.0, ka=0.0, pva_cutoff=0.0)
    for k, v in rig.items():
        defaults[names.index(k)] = v
    guards = (Guard("hits_bottom"), Guard("hits_top"), Guard("leaves_bottom"), Guard("leaves_top"),
              Guard("velocity_reverses", Direction.FALLING), Guard("breaks_away"))
    return Model(name="pneumatic_rig", state_names=STATE_NAMES,
                 state_defaults=np.zeros(len(STATE_NAMES)), param_names=tuple(names),
                 param_defaults=defaults, guards=guards, output_names=OUTPUT_NAMES,
                 vector_field=H.vector_field, guard_values=H.guards, reset=H.reset,
                 outputs=H.outputs, sample=H.sample,
                 mode_name=lambda m: MODE_NAMES.get(int(m), str(m)),
                 description="Daepp (2011) 1-DoF MPYE-5 / Bimba cylinder test rig")


@dataclass
class Reference:
    """A reference signal: kind "step" | "trapezoid" | "sine" | "table" | "table_hold".

    Closed loop: positions [m]; open loop (``open_loop=True``): valve voltages [V]. Levels r0, r1,
    amplitude, times [s] (t_start; the trapezoid's t_ramp, t_hold >= 0, not both 0) and omega [rad/s]
    within ±:data:`MAX_VALUE`; a table's ``times`` (strictly increasing) and ``values``: as many finite
    numbers, at least 2 and at most :data:`MAX_TABLE` (other kinds ignore them; empty by default).
    """

    kind: str = "step"
    r0: float = 0.0
    r1: float = 0.0
    t_start: float = 0.0
    t_ramp: float = 0.5
    t_hold: float = 0.5
    amplitude: float = 0.0
    omega: float = 1.0
    times: Any = field(default_factory=lambda: np.zeros(0))
    values: Any = field(default_factory=lambda: np.zeros(0))
    open_loop: bool = False

    KINDS = {"step": H.REF_STEP, "trapezoid": H.REF_TRAPEZOID, "sine": H.REF_SINE,
             "table": H.REF_TABLE, "table_hold": H.REF_TABLE_HOLD}

    def __post_init__(self) -> None:
        o = "Reference"
        lookup("kind", self.kind, list(self.KINDS), o)
        for name in ("r0", "r1", "t_start", "amplitude", "omega"):
            check_number(o, name, getattr(self, name), lo=-MAX_VALUE, hi=MAX_VALUE)
        for name in ("t_ramp", "t_hold"):  # [s]
            check_number(o, name, getattr(self, name), lo=0.0, hi=MAX_VALUE)
        if self.kind == "trapezoid" and not self.t_ramp + self.t_hold > 0.0:
            raise InputError(f"{o}: 't_ramp' = {shown(self.t_ramp)} and 't_hold' = {shown(self.t_hold)} s: a "
                             "trapezoid needs a period > 0")
        check_flag(o, "open_loop", self.open_loop)
        self.times = _table(o, "times", self.times)
        self.values = _table(o, "values", self.values)
        if self.kind.startswith("table"):
            if not 2 <= self.times.size <= MAX_TABLE or self.times.size != self.values.size:
                raise InputError(f"table reference: need 2 to {MAX_TABLE} (time, value) pairs of equal "
                                 f"length, got {self.times.size} times and {self.values.size} values")
            if np.any(np.diff(self.times) <= 0):
                raise InputError("table reference: times must increase strictly")

    @classmethod
    def from_csv(cls, path, time_column: str = "t", value_column: str = "ref", hold: bool = False,
                 open_loop: bool = False) -> Reference:
        """A recorded reference from a CSV log with named columns (``hold``: held between the samples,
        else linear)."""
        o = "Reference.from_csv"
        hold = check_flag(o, "hold", hold)
        columns = {"time_column": time_column, "value_column": value_column}
        for name, column in columns.items():
            if not isinstance(column, str):
                raise InputError(f"{o}: '{name}' = {shown(column)}, expected a column name (a string)")
        d = read_log(path, {column: name for name, column in columns.items()})
        return cls(kind="table_hold" if hold else "table", times=d[time_column],
                   values=d[value_column], open_loop=open_loop)

    @property
    def n_table(self) -> int:
        """Points of the table the model carries: the table's length for a table kind, else 0."""
        return self.times.size if self.kind.startswith("table") else 0

    def values_at(self, t) -> np.ndarray:
        """The reference at times ``t`` [s] (a number or numbers within ±:data:`MAX_VALUE`), evaluated
        in Python (for metrics and plots): a flat array, one value per time."""
        t = _table("Reference.values_at", "t", t)
        p = np.zeros(L.NPARAM + H.NRIG + 2 * self.n_table)
        self.write(p)
        return np.array([H.reference(float(tt), p) for tt in t])

    def write(self, p: np.ndarray) -> None:
        """Write the reference into the parameter vector ``p`` of :func:`rig_model` (``n_table``) (a float
        array of at least ``NPARAM + NRIG + 2 n_table`` entries)."""
        need = L.NPARAM + H.NRIG + 2 * self.n_table
        if not (isinstance(p, np.ndarray) and p.dtype == np.float64 and p.ndim == 1 and p.size >= need):
            raise InputError(f"Reference.write: 'p' = {shown(p)}, expected a float array of at least {need} "
                             f"entries (the parameters of rig_model({self.n_table}))")
        p[H.OPEN_LOOP] = 1.0 if self.open_loop else 0.0
        p[H.REF_KIND] = self.KINDS[self.kind]
        p[H.R0], p[H.R1], p[H.T_START] = self.r0, self.r1, self.t_start
        p[H.T_RAMP], p[H.T_HOLD], p[H.AMP], p[H.OMEGA] = self.t_ramp, self.t_hold, self.amplitude, self.omega
        n = self.n_table  # 0 for the kinds that ignore a table
        p[H.N_TABLE] = n
        p[H.TABLE:H.TABLE + n] = self.times[:n]
        p[H.TABLE + n:H.TABLE + 2 * n] = self.values[:n]


def _reference(owner: str, reference) -> None:
    """An :class:`InputError` from ``owner`` unless ``reference`` is a :class:`Reference`."""
    if not isinstance(reference, Reference):
        raise InputError(f"{owner}: 'reference' = {shown(reference)}, expected a legsim Reference (e.g. "
                         "Reference('step', r1=0.01))")


def _table(owner: str, name: str, value) -> np.ndarray:
    """A reference table's column as a flat float array: empty, or finite numbers within ±MAX_VALUE."""
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) == 0:
        return np.zeros(0)
    return check_values(owner, name, value, lo=-MAX_VALUE, hi=MAX_VALUE).ravel()


@dataclass
class RigRun:
    """Time histories of one rig run (SI) and the engine result."""

    t: np.ndarray
    x: np.ndarray
    ref: np.ndarray
    u: np.ndarray
    p_cap: np.ndarray
    p_rod: np.ndarray
    force: np.ndarray
    friction: np.ndarray
    mdot_cap: np.ndarray
    mdot_rod: np.ndarray
    air_used: np.ndarray
    mode: np.ndarray
    result: Result


class RigBench:
    """The rig with its sub-model switches (the ablation harness).

    Parameters
    ----------
    valve : "fitted" (default) | "simple" | "underlapped"; friction : see ``FRICTIONS``.
    supply_psig : supply pressure [psig] (50.3), above exhaust_psia : exhaust pressure [psia] (15.7),
    both within :data:`MAX_PSI`; mass [kg] (0.2) in :data:`MASS_RANGE`;
    gravity_along_extension [m/s²]; kp, ki, kd : PID gains [V/m, V/(m s), V s/m] >= 0;
    u_bias : controller output at zero error [V], within the valve's range;
    controller : "pid" (default) | "pva" (position–velocity–acceleration feedback, the CRR
    quadruped's JCU law: kp, ki with kv [V s/m], ka [V s²/m] on the velocity and acceleration
    differenced from the sampled position, low-passed at pva_cutoff [Hz], 0 = none; the source gives
    no PVA gains: kv = 2 V s/m and ka = 0.02 V s²/m are chosen here so that each term is of the order
    of kp e on a 2 cm step (v ≈ 0.25 m/s, a ≈ 3 m/s²), not tuned to a target);
    gain_scale : factor on every feedback gain (the thesis cut Alpha's by 25 %: 0.75);
    heat : chamber thermodynamics; options : engine options (default DP45 with the 1 kHz
    controller sample, records every 1 ms). Gains, gain_scale and pva_cutoff are >= 0; they and
    |gravity_along_extension| are at most :data:`MAX_VALUE`.
    """

    def __init__(self, valve: str = "fitted", friction: str = "stribeck", *, supply_psig: float = 50.3,
                 exhaust_psia: float = 15.7, mass: float = 0.2, gravity_along_extension: float = 9.81,
                 kp: float = 100.0, ki: float = 0.0, kd: float = 0.0, u_bias: float = 5.25,
                 heat: HeatModel = HeatModel.ADIABATIC, options: Options | None = None,
                 controller: str = "pid", kv: float = 2.0, ka: float = 0.02, pva_cutoff: float = 0.0,
                 gain_scale: float = 1.0) -> None:
        o = "RigBench"
        lookup("valve", valve, list(VALVES), o)
        lookup("friction", friction, list(FRICTIONS), o)
        lookup("controller", controller, list(CONTROLLERS), o)
        exhaust = check_number(o, "exhaust_psia", exhaust_psia, lo=0.0, hi=MAX_PSI)  # [psia]
        supply = check_number(o, "supply_psig", supply_psig, lo=-P_ATM_PSI, hi=MAX_PSI)  # [psig]
        if not supply + P_ATM_PSI > exhaust:
            raise InputError(f"{o}: 'supply_psig' = {shown(supply_psig)} psig is not above 'exhaust_psia' = "
                             f"{shown(exhaust_psia)} psia (with the atmosphere's {P_ATM_PSI} psi)")
        check_number(o, "mass", mass, lo=MASS_RANGE[0], hi=MASS_RANGE[1])  # [kg]
        check_number(o, "gravity_along_extension", gravity_along_extension, lo=-MAX_VALUE, hi=MAX_VALUE)
        for name, val in (("kp", kp), ("ki", ki), ("kd", kd), ("kv", kv), ("ka", ka),
                          ("pva_cutoff", pva_cutoff), ("gain_scale", gain_scale)):
            check_number(o, name, val, lo=0.0, hi=MAX_VALUE)
        if not (options is None or isinstance(options, Options)):
            raise InputError(f"{o}: 'options' = {shown(options)}, expected None or legsim.hybrid.Options")
        valve_model = VALVES[valve]()
        check_number(o, "u_bias", u_bias, lo=valve_model.u_min, hi=valve_model.u_max)  # [V]
        self.actuator = PneumaticActuator(p_supply=(supply_psig + P_ATM_PSI) * PSI,
                                          p_exhaust=exhaust_psia * PSI, valve=valve_model,
                                          friction=FRICTIONS[friction](), heat=heat)
        self.rig = dict(mass=mass, gravity_along_extension=gravity_along_extension, kp=kp, ki=ki,
                        kd=kd, u_bias=u_bias, gain_scale=gain_scale,
                        controller=float(CONTROLLERS[controller]), kv=kv, ka=ka, pva_cutoff=pva_cutoff)
        self.options = options or Options(method="dp45", rtol=1e-6, atol=1e-9, h_max=1e-3,
                                          record_period=1e-3, sample_period=1e-3, sliding=False)

    def params(self, reference: Reference, model: Model) -> np.ndarray:
        """The parameter vector of :func:`rig_model` ``model`` (with the table of ``reference``, a
        :class:`Reference`) for this bench and reference."""
        o = "RigBench.params"
        _reference(o, reference)
        n = reference.n_table
        if not (isinstance(model, Model) and model.name == "pneumatic_rig"
                and model.nparam == L.NPARAM + H.NRIG + 2 * n):
            raise InputError(f"{o}: 'model' = {shown(model)}, expected rig_model({n}) (the rig with the "
                             f"reference's {n} table points)")
        p = model.param_defaults.copy()
        p[:L.NPARAM] = self.actuator.row()
        for k, v in self.rig.items():
            p[model.param_names.index(k)] = v
        p[H.DT] = self.options.sample_period if self.options.sample_period > 0 else 1e-3
        reference.write(p)
        return p

    def run(self, reference: Reference, t_final: float, x0: float | None = None,
            p_cap0: float | None = None, p_rod0: float | None = None) -> RigRun:
        """Simulate ``t_final`` seconds (in (0, :data:`MAX_DURATION`]) of ``reference`` (a
        :class:`Reference`) from rest at ``x0`` [m] in [0, stroke] (default: retracted) with the given
        chamber pressures [Pa abs] in [0, MAX_PRESSURE] (default: exhaust pressure)."""
        o = "RigBench.run"
        _reference(o, reference)
        t_final = check_number(o, "t_final", t_final, lo=0.0, lo_open=True, hi=MAX_DURATION)  # [s]
        stroke = self.actuator.cylinder.stroke
        x0 = 0.0 if x0 is None else check_number(o, "x0", x0, lo=0.0, hi=stroke)  # [m]
        pe = self.actuator.p_exhaust
        p_cap0, p_rod0 = (pe if v is None else check_number(o, name, v, lo=0.0, hi=MAX_PRESSURE)  # [Pa abs]
                          for name, v in (("p_cap0", p_cap0), ("p_rod0", p_rod0)))
        model = rig_model(reference.n_table)
        p = self.params(reference, model)
        gas = self.actuator.initial_state(x0, p_cap0, p_rod0)[0]
        s0 = np.zeros(H.NX)
        s0[H.X] = x0
        s0[H.PCAP:H.MAIR + 1] = gas
        s0[H.U] = self.rig["u_bias"]
        mode0 = H.BOTTOM if x0 == 0.0 else (H.TOP if x0 == stroke else
                                            (H.STUCK if p[L.FRICTION_MODEL] in (2, 0) else H.FREE))
        res = simulate(model, t_final, x0=s0, params=p, options=self.options, mode0=mode0)
        y = res.y
        return RigRun(t=res.t, x=res.x[:, H.X], ref=y[:, 0], u=res.x[:, H.U], p_cap=res.x[:, H.PCAP],
                      p_rod=res.x[:, H.PROD], force=y[:, 3], friction=y[:, 2], mdot_cap=y[:, 4],
                      mdot_rod=y[:, 5], air_used=res.x[:, H.MAIR], mode=res.mode, result=res)
