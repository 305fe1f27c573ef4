"""The pneumatic 3-DoF CRR leg on a fixed base (Daepp (2011) Ch. 5; digest §5.2, §7 A7, A10).

Three MPYE-5 valves (fitted model, §2.5) and double-acting Bimba cylinders (§3.2; Alpha stroke
3.75 in) drive the Alpha/Beta/Gamma joints through the linkages of §2.6; Stribeck-tanh friction
(§2.4, source parameters); a joint-level PID at 1 kHz produces the valve voltages (0–10 V).

The leg is a robot assembled from parts (:class:`legsim.assembly.Robot`; no hooks of its own): the
rigid-body leg :func:`.geometry.crr_leg_bodies`, three :class:`~legsim.assembly.PneumaticCylinder` s
through the joints' CRR linkages, a joint encoder and the chamber-pressure sensor (exact
measurements), and the compiled joint controller :func:`.control.joint_pid` in the sample hook
(the CRR quadruped's, with the same joint blocks). ``coupling="monolithic"`` integrates the gas
states with the rigid body in one ODE; ``"cosim"`` adds the emulated split Simulink/SrLib exchange
(:class:`legsim.assembly.SplitExchange`: one-way delays and an optional exchange pause);
``actuation="prismatic"`` builds each cylinder as a barrel + piston-rod closed loop with mass
(:mod:`.prismatic`, :class:`legsim.assembly.LinkageLoop`).

The source gives no PID gains (⚠ 13). The defaults (:data:`DEFAULT_GAINS`,
:data:`DEFAULT_FORCE_GAIN`) were tuned here against the thesis's reported behaviour: Gamma step
rise times inside 0.11–1.3 s, Gamma sine lag 0.15–0.2 s, Beta fast-sine lag ≈ 0.16 s, the Alpha
loop near its limit cycle at nominal gain (the thesis then cut it by 25 %), and a loop that stays
stable with the 3–4 ms exchange round trip. Beta and Gamma use the prototype's "position and
pressure feedback" (digest §1.1): without the net-pressure-force term the PID loop needed for those
rise times went unstable at a 3 ms round trip. The exhaust pressure defaults to the leg setup's
24.7 psia (⚠ 7).

Records (names of :attr:`LegBench.model`): states ``alpha`` … (joint angles [rad]), ``alpha_dot``
… [rad/s], ``<joint>_p_cap``, ``_p_rod`` [Pa], ``_m_cap``, ``_m_rod``, ``_m_supply`` (air drawn
[kg]), the held valve voltages ``u_<joint>`` [V], the controller's memory (``ref_<joint>`` [rad]:
the reference at the last tick, ``integ_<joint>``, ``e_prev_<joint>``, ``f_prev_<joint>``); with the
exchange its states (``exchange_paused`` …); outputs ``tau_<joint>`` (the force on the joint's
coordinate: N m, or N on the piston with prismatic actuation), ``piston_force_<joint>`` [N],
``piston_x_<joint>`` [m].
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...actuators.pneumatic.actuator import PneumaticActuator
from ...actuators.pneumatic.cylinder import Cylinder
from ...actuators.pneumatic.friction import Friction, FrictionModel, stribeck_tanh_source
from ...actuators.pneumatic.linkage import JointLinkage
from ...actuators.pneumatic.units import P_ATM_PSI, PSI
from ...actuators.pneumatic.valves import ProportionalValve, mpye5_fitted
from ...assembly.components import EXCHANGE_DMAX
from ...errors import InputError, as_float, check_fields, check_number, shown
from ...hybrid import Model, Options, Result, simulate
from ..pneumatic_rig.limits import MAX_DURATION, MAX_PSI
from . import _joint_kernels as JB
from .geometry import JOINT_LIMITS, STROKES, crr_leg_bodies, default_linkages
from .prismatic import crr_leg_with_cylinders, default_cylinder_inertias

__all__ = ["JointReference", "LegBench", "LegRun", "crr_leg_model", "DEFAULT_GAINS", "JOINTS"]

JOINTS = ("alpha", "beta", "gamma")
DEFAULT_GAINS = {"alpha": (4.0, 0.0, 0.2), "beta": (4.0, 5.0, 0.0), "gamma": (4.0, 5.0, 0.0)}
"""PID gains (kp [V/rad], ki [V/(rad s)], kd [V s/rad]) per joint (tuned here, see module doc)."""
DEFAULT_FORCE_GAIN = {"alpha": 0.0, "beta": 0.015, "gamma": 0.015}
"""Net pressure-force feedback gains k_F [V/N] per joint."""
DEFAULT_FORCE_RATE_GAIN = {"alpha": 0.0, "beta": 0.0, "gamma": 0.0}
"""Feedback gains k_Fd [V s/N] on the rate of the net pressure force, per joint."""

COUPLINGS = ("monolithic", "cosim")
ACTUATIONS = ("torque", "prismatic")
HOLD_POSTURE_DEG = (20.0, -30.0, 56.0)
"""Alpha, Beta, Gamma [deg] that :func:`crr_leg_model`'s defaults hold (the posture of the tests)."""


def crr_leg_model(reference: dict | None = None) -> Model:
    """The leg as a hybrid model (registry name ``crr_leg``) whose defaults are :class:`LegBench`'s:
    tuned gains and force feedback, supply and exhaust, references holding
    :data:`HOLD_POSTURE_DEG` from a matching initial state. Change the references through the
    ``<joint>_tab_t*``/``<joint>_tab_v*`` step tables (``<joint>_n_table`` entries) or the sine
    parameters ``<joint>_ref_*``; ``<joint>_ref_kind`` selects held steps (0), a sine (1) or linear
    interpolation between the table points (2), ``<joint>_ref_period`` [s] > 0 repeats the table
    (see :class:`JointReference`). The model's ``sample_period`` is the controller's 1 ms, so
    ``simulate`` runs the PID without further options.

    ``reference`` (a scenario's ``[model_options] reference = {file = "walk.csv", unit = "deg"}``)
    loads a recorded trajectory instead: keys ``file``, and optionally ``time_column``,
    ``columns`` (three names), ``unit`` ("rad"/"deg"), ``tolerance`` [rad] of
    :func:`.recorded.references_from_csv`; the leg then starts at rest at the log's first angles.
    """
    bench = LegBench()
    if reference is None:
        refs = [JointReference.hold(float(np.radians(a))) for a in HOLD_POSTURE_DEG]
    else:
        from .recorded import references_from_csv
        keys = {"file", "time_column", "columns", "unit", "tolerance"}
        if not isinstance(reference, dict) or "file" not in reference or set(reference) - keys:
            raise InputError(f"crr_leg option reference={reference!r}: expected a table with 'file' "
                             f"and optionally {', '.join(sorted(keys - {'file'}))}")
        opts = {k: v for k, v in reference.items() if k != "file"}
        if "columns" in opts:
            opts["columns"] = tuple(opts["columns"])
        refs = list(references_from_csv(reference["file"], **opts))
    q0 = [float(r.values_at(0.0)) for r in refs]
    return dataclasses.replace(bench.model, param_defaults=bench.params(refs),
                               state_defaults=bench.initial_state(q0), sample_period=1e-3)


INTERPOLATIONS = {"hold": JB.REF_TABLE, "linear": JB.REF_LINEAR}


@dataclass
class JointReference:
    """A joint reference [rad]: a table of points or a sine.

    ``steps`` = ((t_0, θ_0), (t_1, θ_1), …) [s, rad], at most :data:`._hooks.NTAB` (64) points with
    strictly increasing times. ``interpolate="hold"`` holds θ_i on [t_i, t_{i+1}) (step series);
    ``"linear"`` interpolates linearly between the points (ramps, trapezoids, sampled paths, digest
    §7 item 11). Both give θ_0 before t_0 and θ_{n-1} after the last point. ``period`` P [s] > 0
    repeats the table from t_0: r(t) = r(t_0 + (t − t_0) mod P); the linear kind then closes the
    cycle with a ramp from the last point back to (t_0 + P, θ_0), so the points must lie within
    [t_0, t_0 + P). Without ``steps``: the sine ``offset + amplitude sin(omega (t − t0))`` for
    t ≥ t0 (``omega`` rad/s), ``offset`` before.
    """

    steps: tuple = ()
    offset: float = 0.0
    amplitude: float = 0.0
    omega: float = 0.0
    t0: float = 0.0
    interpolate: str = "hold"
    period: float = 0.0

    def __post_init__(self) -> None:
        if not (isinstance(self.interpolate, str) and self.interpolate in INTERPOLATIONS):
            raise InputError(f"JointReference: interpolate={self.interpolate!r}, expected one of "
                             f"{', '.join(INTERPOLATIONS)}")
        if not isinstance(self.steps, (tuple, list)):
            raise InputError(f"JointReference: steps={self.steps!r}, expected ((time, angle), ...)")
        if len(self.steps) > JB.NTAB:
            raise InputError(f"JointReference: {len(self.steps)} steps, at most {JB.NTAB} supported")
        if any(not isinstance(s, (tuple, list, np.ndarray)) or len(s) != 2 for s in self.steps):
            raise InputError(f"JointReference: steps must be (time, angle) pairs, got {self.steps!r}")
        if not all(math.isfinite(as_float(v)) for pair in self.steps for v in pair):
            raise InputError(f"JointReference: steps must be finite numbers, got {self.steps!r}")
        check_fields("JointReference", self, finite=("offset", "amplitude", "omega", "t0"),
                     nonnegative=("period",))
        times = [float(s[0]) for s in self.steps]
        if any(b <= a for a, b in zip(times, times[1:], strict=False)):
            raise InputError(f"JointReference: step times must increase strictly, got {times}")
        if self.period > 0.0:
            if not self.steps:
                raise InputError("JointReference: a period needs a table (steps), not a sine")
            if times[-1] >= times[0] + self.period:
                raise InputError(f"JointReference: period={self.period!r} s must exceed the table's "
                                 f"span {times[-1] - times[0]!r} s (last point before t_0 + period)")

    @classmethod
    def hold(cls, theta: float) -> JointReference:
        return cls(steps=((0.0, float(theta)),))

    @classmethod
    def trapezoid(cls, low: float, high: float, t_start: float, ramp: float, hold: float,
                  period: float = 0.0) -> JointReference:
        """Ramp–hold–ramp [rad]: ``low`` until ``t_start`` [s], a ``ramp`` [s] to ``high``, held for
        ``hold`` [s], a ``ramp`` back to ``low`` (Fig. 39's Gamma trapezoids); ``period`` > 0
        repeats it every ``period`` s from ``t_start`` (must exceed 2 ramp + hold)."""
        if not (ramp > 0.0 and hold >= 0.0):
            raise InputError(f"trapezoid: ramp={ramp!r} s must be > 0 and hold={hold!r} s >= 0")
        pts = [(t_start, low), (t_start + ramp, high), (t_start + ramp + hold, high),
               (t_start + 2.0 * ramp + hold, low)]
        if not pts[0][0] < pts[1][0]:
            raise InputError(f"trapezoid: ramp={ramp!r} s is shorter than the times resolve at "
                             f"t_start={t_start!r} s")
        if pts[2][0] == pts[1][0]:  # no hold, or one shorter than the times resolve
            del pts[2]
        if 0.0 < period <= 2.0 * ramp + hold:
            raise InputError(f"trapezoid: period={period!r} s must exceed 2 ramp + hold = "
                             f"{2.0 * ramp + hold!r} s")
        return cls(steps=tuple((float(a), float(b)) for a, b in pts), interpolate="linear",
                   period=float(period))

    def write(self, p: np.ndarray, b: int) -> None:
        if self.steps:
            n = len(self.steps)
            p[b + JB.REF_KIND] = INTERPOLATIONS[self.interpolate]
            p[b + JB.N_TAB] = n
            p[b + JB.REF_PERIOD] = self.period
            p[b + JB.TAB:b + JB.TAB + n] = [s[0] for s in self.steps]
            p[b + JB.TAB + JB.NTAB:b + JB.TAB + JB.NTAB + n] = [s[1] for s in self.steps]
        else:
            p[b + JB.REF_KIND] = JB.REF_SINE
            p[b + JB.REF_OFF], p[b + JB.REF_AMP] = self.offset, self.amplitude
            p[b + JB.REF_OMEGA], p[b + JB.REF_T0] = self.omega, self.t0

    def values_at(self, t) -> np.ndarray:
        """The reference [rad] at times ``t`` [s] (any shape), as the compiled controller sees it."""
        t = np.asarray(t, dtype=float)
        if not self.steps:
            return np.where(t < self.t0, self.offset,
                            self.offset + self.amplitude * np.sin(self.omega * (t - self.t0)))
        ts = np.array([s[0] for s in self.steps], dtype=float)
        vs = np.array([s[1] for s in self.steps], dtype=float)
        if self.period > 0.0:
            t = np.where(t > ts[0], ts[0] + np.mod(t - ts[0], self.period), t)
            if self.interpolate == "linear":
                ts = np.append(ts, ts[0] + self.period)
                vs = np.append(vs, vs[0])
        if self.interpolate == "linear":
            return np.interp(t, ts, vs)
        idx = np.searchsorted(ts, t, side="right") - 1
        return vs[np.clip(idx, 0, None)]


@dataclass
class LegRun:
    """Time histories of a leg run: t (n,), q, v, ref, u, torque, force, x_piston (n, 3) in SI
    (rad, rad/s, rad, V, N m, N, m; ``torque`` is the joint torque the leg feels: F dx/dθ, with prismatic
    actuation the equivalent of the piston force on the closed loop), p_cap / p_rod (n, 3) Pa,
    air_used (n,) kg, paused (n,) bool (the exchange stalled), and the engine result."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    ref: np.ndarray
    u: np.ndarray
    torque: np.ndarray
    force: np.ndarray
    x_piston: np.ndarray
    p_cap: np.ndarray
    p_rod: np.ndarray
    air_used: np.ndarray
    paused: np.ndarray
    result: Result


def _joint_numbers(name: str, value, size: int) -> None:
    """InputError unless ``value`` maps joint names (:data:`JOINTS`) to finite numbers (``size`` 1) or to
    ``size`` finite numbers each (the gains (kp, ki, kd))."""
    what = "a number" if size == 1 else f"{size} numbers"
    if not isinstance(value, Mapping):
        raise InputError(f"{name}={value!r}: expected a mapping joint -> {what} (joints {', '.join(JOINTS)})")
    for key, v in value.items():
        if key not in JOINTS:
            raise InputError(f"{name} key {key!r}: expected one of {', '.join(JOINTS)}")
        items = [v] if size == 1 else (list(v) if isinstance(v, (tuple, list, np.ndarray)) else [])
        if len(items) != size or not all(math.isfinite(as_float(x)) for x in items):
            raise InputError(f"{name}[{key!r}] = {v!r}: expected {what}")


@dataclass
class LegBench:
    """The pneumatic leg with its controller and coupling options.

    Parameters
    ----------
    supply_psig, exhaust_psia : supply [psig] (50.3) and exhaust [psia] (24.7, leg setup ⚠ 7), the supply
    above the exhaust, both within :data:`~legsim.robots.pneumatic_rig.rig.MAX_PSI`.
    gains : joint -> (kp, ki, kd); gain_scale : joint -> overall factor (Alpha 0.75 = the thesis's
    −25 %); force_gain [V/N], force_rate_gain [V s/N] : net-pressure-force feedback per joint.
    linkages : Alpha, Beta, Gamma :class:`JointLinkage`. friction : cylinder friction of all three
    joints (default the source's Stribeck-tanh, §2.4; the viscous and steep-linear laws are
    ablations: the assembled cylinders evaluate friction from the piston velocity alone).
    coupling : "monolithic" | "cosim";
    delay_up / delay_down : one-way exchange delays [ticks of 1 ms] (0 … 3): the round trip is
    delay_up + delay_down + 1 ticks, since even without latency SrLib's answer to a torque sent at
    one tick is read at the next; pause_t0 / pause_duration : an exchange pause [s] (COSIM only).
    options : engine options.
    actuation : "torque" (the thesis: T = F dx/dθ on massless cylinders) | "prismatic" (each
    cylinder a barrel + piston-rod closed loop with mass, digest §6 item 3; :mod:`.prismatic`).
    cylinders : three :class:`.prismatic.CylinderInertia` for "prismatic" (default: the Bimba
    estimates of :func:`.prismatic.bimba_cylinder_inertia`; those used: ``cylinder_inertias``).
    valve : the MPYE-5 model of all three joints (default the fitted one); strokes : Alpha, Beta, Gamma
    cylinder strokes [m] (default :data:`STROKES`; give linkages designed for them).

    Attributes
    ----------
    robot : the :class:`legsim.assembly.Robot` (actuators named after the joints, sensors ``angles``
        and ``pressures``); model : its hybrid model with the joint controller (registry parameter
        names: ``<joint>_kp``, ``<joint>_tab_t<i>`` …, :func:`.control.param_names`); bodies : the
        multibody model (the augmented 9-DoF tree with prismatic actuation); actuators : the three
        :class:`PneumaticActuator`.
    """

    supply_psig: float = 50.3
    exhaust_psia: float = 24.7
    gains: dict = field(default_factory=lambda: dict(DEFAULT_GAINS))
    gain_scale: dict = field(default_factory=lambda: {j: 1.0 for j in JOINTS})
    u_bias: float = 5.25
    force_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_GAIN))
    force_rate_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_RATE_GAIN))
    linkages: tuple = field(default_factory=default_linkages)
    friction: Friction = field(default_factory=stribeck_tanh_source)
    coupling: str = "monolithic"
    delay_up: int = 0
    delay_down: int = 0
    pause_t0: float = 0.0
    pause_duration: float = 0.0
    options: Options = field(default_factory=lambda: Options(
        method="dp45", rtol=1e-6, atol=1e-8, h_max=1e-3, record_period=1e-3, sample_period=1e-3,
        sliding=False))
    actuation: str = "torque"
    cylinders: tuple | None = None
    valve: ProportionalValve = field(default_factory=mpye5_fitted)
    strokes: tuple = STROKES

    def __post_init__(self) -> None:
        if not (isinstance(self.coupling, str) and self.coupling in COUPLINGS):
            raise InputError(f"coupling={self.coupling!r}: expected one of {', '.join(COUPLINGS)}")
        for name in ("delay_up", "delay_down"):
            d = as_float(getattr(self, name))
            if not (math.isfinite(d) and d == int(d) and 0 <= d < EXCHANGE_DMAX):
                raise InputError(f"{name}={getattr(self, name)!r}: expected an integer number of 1 ms ticks "
                                 f"in [0, {EXCHANGE_DMAX - 1}]")
        check_fields("LegBench", self, finite=("u_bias", "pause_t0"), nonnegative=("pause_duration",))
        exhaust = check_number("LegBench", "exhaust_psia", self.exhaust_psia, lo=0.0, hi=MAX_PSI)  # [psia]
        supply = check_number("LegBench", "supply_psig", self.supply_psig, lo=-P_ATM_PSI,
                              hi=MAX_PSI)  # [psig]
        if not supply + P_ATM_PSI > exhaust:
            raise InputError(f"LegBench: 'supply_psig' = {shown(self.supply_psig)} psig is not above "
                             f"'exhaust_psia' = {shown(self.exhaust_psia)} psia (with the atmosphere's "
                             f"{P_ATM_PSI} psi)")
        for name, size in (("gains", 3), ("gain_scale", 1), ("force_gain", 1), ("force_rate_gain", 1)):
            _joint_numbers(name, getattr(self, name), size)
        linkages = self.linkages
        if not (isinstance(linkages, (tuple, list)) and len(linkages) == 3
                and all(isinstance(k, JointLinkage) for k in linkages)):
            raise InputError("linkages: expected three JointLinkage (Alpha, Beta, Gamma)")
        laws = (FrictionModel.STRIBECK_TANH, FrictionModel.VISCOUS, FrictionModel.STEEP_LINEAR)
        if not isinstance(self.valve, ProportionalValve):
            raise InputError(f"valve={self.valve!r}: expected a ProportionalValve (e.g. mpye5_fitted())")
        if not isinstance(self.friction, Friction) or self.friction.model not in laws:
            raise InputError(f"friction={self.friction!r}: expected a Friction with a velocity-only "
                             f"law ({', '.join(m.name for m in laws)})")
        if not (isinstance(self.actuation, str) and self.actuation in ACTUATIONS):
            raise InputError(f"actuation={self.actuation!r}: expected one of {', '.join(ACTUATIONS)}")
        strokes = self.strokes
        if not (isinstance(strokes, (tuple, list, np.ndarray)) and len(strokes) == 3
                and all(math.isfinite(as_float(v)) and v > 0 for v in strokes)):
            raise InputError(f"strokes={self.strokes!r}: expected three cylinder strokes > 0 [m] "
                             "(Alpha, Beta, Gamma); the linkages must be designed for them")
        if self.actuation != "prismatic" and self.cylinders is not None:
            raise InputError("cylinders: only used with actuation='prismatic'")
        if self.actuation == "prismatic" and self.coupling == "cosim":
            raise InputError("actuation='prismatic' with coupling='cosim': not supported (the split "
                             "exchange carries the actuated joints' states, and prismatic cylinders act on "
                             "their piston coordinates, not on the joint angles the controller reads)")
        if not isinstance(self.options, Options) or not self.options.sample_period > 0.0:
            raise InputError(f"options={self.options!r}: expected legsim.hybrid.Options with a "
                             "sample_period > 0 (the controller's period)")
        self.actuators = tuple(
            PneumaticActuator(p_supply=(self.supply_psig + P_ATM_PSI) * PSI,
                              p_exhaust=self.exhaust_psia * PSI,
                              cylinder=Cylinder(stroke=self.strokes[j]), valve=self.valve,
                              friction=self.friction)
            for j in range(3))
        self._build()

    def joint_blocks(self) -> np.ndarray:
        """The joints' controller blocks (3, NJ) (:mod:`._joint_kernels` layout: linkage, gains, a
        reference holding 0): what :func:`.control.controller_params` takes, and the quadruped copies."""
        blocks = np.zeros((3, JB.NJ))
        for j, link in enumerate(self.linkages):
            b = blocks[j]
            b[JB.KIND] = int(link.joint)
            b[JB.L1:JB.L5 + 1] = (link.l1, link.l2, link.l3, link.l4, link.l5)
            b[JB.KP], b[JB.KI], b[JB.KD] = self.gains.get(JOINTS[j], DEFAULT_GAINS[JOINTS[j]])
            b[JB.GAIN] = self.gain_scale.get(JOINTS[j], 1.0)
            b[JB.U_BIAS] = self.u_bias
            b[JB.KF] = self.force_gain.get(JOINTS[j], 0.0)
            b[JB.KFD] = self.force_rate_gain.get(JOINTS[j], 0.0)
        return blocks

    def _build(self) -> None:
        """The robot from its parts and its model with the joint controller."""
        from ...assembly import ChamberPressure, JointEncoder, LinkageLoop, PneumaticCylinder, SplitExchange
        from ...assembly.robot import Robot  # compiles the assembly's shared hooks on first use
        from . import control

        self.bodies = crr_leg_bodies()
        self.cylinder_inertias = None
        loops: tuple[LinkageLoop, ...] = ()
        if self.actuation == "prismatic":  # each cylinder's force on its piston coordinate x
            self.cylinder_inertias = self.cylinders or default_cylinder_inertias(self.linkages)
            self.bodies = crr_leg_with_cylinders(self.bodies, self.linkages, self.cylinder_inertias)
            loops = tuple(LinkageLoop(j, f"{j}_barrel", f"{j}_piston", link)
                          for j, link in zip(JOINTS, self.linkages, strict=True))
            cylinders = [PneumaticCylinder(j, f"{j}_piston", act) for j, act in zip(JOINTS, self.actuators,
                                                                                     strict=True)]
        else:
            cylinders = [PneumaticCylinder(j, j, act, link)
                         for j, act, link in zip(JOINTS, self.actuators, self.linkages, strict=True)]
        exchange = None
        if self.coupling == "cosim":
            exchange = SplitExchange(int(self.delay_up), int(self.delay_down), self.pause_t0,
                                     self.pause_duration)
        dt = self.options.sample_period
        self.robot = Robot(self.bodies, name="crr_leg", actuators=cylinders, control_period=dt,
                           sensors=[JointEncoder("angles", joints=JOINTS),
                                    ChamberPressure("pressures", actuators=JOINTS)],
                           loops=loops, exchange=exchange, options=self.options)
        channel = {c.name: c.start for c in self.robot.channels}
        cparams = control.controller_params(self.joint_blocks(), [a.row() for a in self.actuators], dt,
                                            channel["angles"], channel["pressures"])
        self._ocp = self.robot.model.param_defaults.size  # the controller's parameters start here
        model = self.robot.with_compiled_controller(
            control.joint_pid, cparams, control.initial_memory(3), param_names=control.param_names(JOINTS),
            param_ranges=control.param_ranges(JOINTS, cparams), memory_names=control.memory_names(JOINTS))
        self.model = dataclasses.replace(
            model, description=f"Daepp (2011) pneumatic 3-DoF CRR leg, fixed base, {self.actuation} "
                               f"actuation, {self.coupling} (assembled: "
                               f"{model.description.partition(': ')[2]})")
        xn = {n: i for i, n in enumerate(self.model.state_names)}
        yn = {n: i for i, n in enumerate(self.model.output_names)}
        self._x_q = np.array([xn[j] for j in JOINTS])
        self._x_v = np.array([xn[f"{j}_dot"] for j in JOINTS])
        self._x_gas = np.array([[xn[f"{j}_{g}"] for g in ("p_cap", "p_rod", "m_cap", "m_rod", "m_supply")]
                                for j in JOINTS])
        self._x_u = np.array([xn[f"u_{j}"] for j in JOINTS])
        self._x_ref = np.array([xn[f"ref_{j}"] for j in JOINTS])
        self._x_paused = xn.get("exchange_paused")
        self._y = {k: np.array([yn[f"{k}_{j}"] for j in JOINTS]) for k in ("tau", "piston_force", "piston_x")}

    def params(self, refs) -> np.ndarray:
        """Parameter vector of :attr:`model` with the three joint references written in. It holds the
        robot's infinite ranges: run it as the model's defaults (``dataclasses.replace(bench.model,
        param_defaults=p)``), as :meth:`run` does."""
        from . import control

        p = self.model.param_defaults.copy()
        for j, r in enumerate(refs):
            r.write(p, self._ocp + control.block_offset(j))
        return p

    def initial_state(self, q0) -> np.ndarray:
        """At rest at joint angles q0 [rad], chambers at the valve's mid pressure (P_S + P_E)/2, valves
        held at ``u_bias``, the controller before its first tick."""
        q0 = np.asarray(q0, dtype=float)
        for j in range(3):
            lo, hi = JOINT_LIMITS[j]
            if not lo <= q0[j] <= hi:
                raise InputError(f"initial {JOINTS[j]} angle {np.degrees(q0[j]):.2f} deg: expected "
                                 f"within the joint range [{np.degrees(lo):.0f}, {np.degrees(hi):.0f}]")
        q = self.bodies.neutral()
        q[:3] = q0
        s = self.robot.initial_state(q0=q)
        s = np.concatenate([s, self.model.state_defaults[s.size:]])  # the controller's memory
        s[self._x_u] = self.u_bias
        return s

    def run(self, refs, t_final: float, q0=None) -> LegRun:
        """Simulate ``t_final`` s. ``refs``: three :class:`JointReference` (Alpha, Beta, Gamma);
        ``q0`` initial joint angles [rad] (default: the references at t = 0). ``t_final`` in (0,
        :data:`~legsim.robots.pneumatic_rig.rig.MAX_DURATION`]."""
        check_number("LegBench.run", "t_final", t_final, lo=0.0, lo_open=True, hi=MAX_DURATION)  # [s]
        if len(refs) != 3:
            raise InputError(f"refs: expected three JointReference (Alpha, Beta, Gamma), got {len(refs)}")
        if q0 is None:
            q0 = [float(r.values_at(0.0)) for r in refs]
        model = dataclasses.replace(self.model, param_defaults=self.params(refs))
        res = simulate(model, t_final, x0=self.initial_state(q0), options=self.options)
        X, Y = res.x, res.y
        q = X[:, self._x_q]
        gas = X[:, self._x_gas]
        torque = Y[:, self._y["tau"]]
        if self.actuation == "prismatic":  # the piston force's equivalent joint torque F dx/dθ
            arms = np.column_stack([link.cylinder(q[:, j])[2] for j, link in enumerate(self.linkages)])
            torque = torque * arms
        paused = (X[:, self._x_paused] > 0.5) if self._x_paused is not None else np.zeros(res.t.size, bool)
        return LegRun(t=res.t, q=q, v=X[:, self._x_v], ref=X[:, self._x_ref], u=X[:, self._x_u],
                      torque=torque, force=Y[:, self._y["piston_force"]], x_piston=Y[:, self._y["piston_x"]],
                      p_cap=gas[:, :, 0], p_rod=gas[:, :, 1], air_used=gas[:, :, 4].sum(axis=1),
                      paused=paused, result=res)


def summary(result) -> dict:
    """Headline numbers of a leg run (printed by ``legsim run``): air drawn from the supply by the three
    cylinders [g], per joint and in all, the mean draw [g/s] and the endurance of a 100 g supply
    (:func:`legsim.actuators.pneumatic.consumption.air_summary`)."""
    from ...actuators.pneumatic.consumption import air_summary

    t = np.asarray(result.t, dtype=float)
    cols = {j: np.asarray(result.state(f"{j}_m_supply"), dtype=float) for j in JOINTS}
    out = {f"air_used_{j}_g": float(c[-1] - c[0]) * 1e3 for j, c in cols.items()}
    out.update(air_summary(t, np.column_stack(list(cols.values()))))
    return out
