"""The full RATS robot on the assembly layer (Wagenknecht (2009) ch. 5; digest §2.1–§2.5, §6.1 item 3).

A free-floating shell (Table 5.1: a uniform 2.858 kg sphere of radius 0.15 m) carries 12 legs on
prismatic joints along :data:`~legsim.robots.rats.geometry.LEG_DIRECTIONS` (joint ``leg<k>``,
extension 0–63 mm with end stops). Each leg (0.049 kg, a cylinder 0.114 m long, 12 mm radius) ends in
a hemispherical foot (sphere ``foot<k>``, radius 12 mm) whose outer surface is ``l`` from the centre
when the leg is retracted. Each leg is a :class:`~legsim.assembly.SolenoidCylinder` (5.5), (5.7)–(5.11)
fed by one :class:`~legsim.assembly.AirSupply`, the 0.84 L core tank (5.12), so every firing lowers
what the next one gets. The feet and the shell touch the ground through the penalty law (5.1)–(5.2)
(Kelvin–Voigt, clipped at 0) with Coulomb friction (5.3) (a regularised cone where ODE has a
pyramid), with the parameters of Table 5.2 ("tipping" or "rolling" set). The accelerometer is the
robot's only sensor (§1.4): ±1.5 g, 12 bit, sampled at 16 Hz, low-passed by a first-order
Butterworth at 0.5 Hz on the PC; a gyro is optional.

Valves are commanded at 1 kHz (``control_period``) in whole milliseconds (T14): :class:`ValveTimers`
is the Netburner's countdown timer per valve, and :func:`firing_controller` turns a policy that
returns firings ``(leg, duration_ms)`` into the per-tick valve commands.

Decisions (digest §6.3): ``l`` = 0.20 m; supply pressures are gauge; the exhaust is an orifice of
the valve's own effective area (a 3-way valve vents the chamber through its exhaust port; the
thesis ignores the exhaust phase: ``exhaust="instant"``); the piston friction is the thesis's
constant F_f against extension (``friction_law="thesis"``; see :func:`build`); the joint end stops
are a stiff spring–damper (``STOP_STIFFNESS``, ``STOP_DAMPING``) where ODE has hard slider limits.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...actuators.pneumatic import SupplyTank
from ...actuators.pneumatic.flow import cv_mass_flow, orifice_mass_flow
from ...actuators.pneumatic.gas import NITROGEN
from ...actuators.pneumatic.solenoid import RUBBER_CV_EFFECTIVE, RUBBER_SEAT, SPOOL_SLEEVE
from ...actuators.pneumatic.tank import RATS_TANK_VOLUME
from ...actuators.pneumatic.units import P_ATM
from ...assembly import IMU, AirSupply, ContactForce, Contacts, Measurement, Robot, SolenoidCylinder
from ...assembly.components import _EXHAUSTS, _FRICTION_LAWS, _choice
from ...contact import ContactLaw, HeightField, HeightFunction, Plane, coulomb, kelvin_voigt
from ...errors import (
    InputError,
    as_float,
    as_floats,
    check_array,
    check_flag,
    check_number,
    check_whole,
    shown,
)
from ...hybrid import Options
from ...multibody import RobotBuilder
from ._tick import OBS_SIZE, OBS_SLICES, observe
from .geometry import LEG_DIRECTIONS, N_LEGS, STANCE_LEG_ANGLE, RatsDims, resting_rotation

__all__ = ["CONTACT_SETS", "VALVES", "STOP_STIFFNESS", "STOP_DAMPING", "G", "build", "RatsRobot",
           "PISTON_V_EPS", "FIXED_STEP", "EULER_STEP", "GROUND_V_EPS", "ValveTimers", "firing_controller",
           "Observation", "schedule_policy", "MAX_P0", "CONTROL_PERIOD"]

G = 9.81
"""Gravity [m/s^2]."""

MAX_P0 = 2e6
"""Highest tank charge [Pa gauge] :func:`build` takes: the thesis charges to 0.758 MPa (110 psi) and its
valves and tank are rated near 1 MPa; more is a unit mistake (bar, psi or kPa read as Pa)."""

CONTROL_PERIOD = 1e-3
"""The valves' command period [s]: the Netburner's 1 kHz timers (T14), whole-millisecond firings."""

CONTACT_SETS = {"tipping": dict(mu=3.0, k=7500.0, b=200.0), "rolling": dict(mu=1.2, k=25000.0, b=400.0)}
"""Table 5.2: friction coefficient, contact stiffness [N/m] and damping [N s/m]. No one set reproduces
both tipping (needs mu = 3) and hopping (a 3-leg hop cannot leave the ground with it, §2.3)."""

VALVES: dict[str, dict[str, Any]] = {"spool": dict(valve=SPOOL_SLEEVE, flow="orifice"),
          "rubber": dict(valve=RUBBER_SEAT, flow="cv_corrected", cv=RUBBER_CV_EFFECTIVE)}
"""The two valve presets of the hop bench (``legsim.robots.pneumatic_rig.hop.PRESETS``): the leaking
spool-and-sleeve valve (13.16 ms, (5.7)) and the rubber-seat valve (5 ms, continuous C_v law with the
effective C_v fitted to E4)."""

STOP_STIFFNESS = 2e5
"""End-stop spring [N/m]: 0.07 mm under a stance leg's axial load (about 14 N)."""
STOP_DAMPING = 50.0
"""End-stop damper [N s/m]: a quarter of critical damping on the 49 g leg (coefficient of restitution
about 0.45 when a leg hits its end stop)."""

PISTON_V_EPS = 0.1
"""Regularising speed of the "signed" piston friction F_f tanh(v / v_eps) [m/s]. Its slope F_f / v_eps
acts as a damper on the 49 g leg: at 1 mm/s (9.7e3 N s/m, a rate of 2e5 1/s) fixed-step RK4 needs
h < 14 us; at 0.1 m/s (97 N s/m) the default step holds. Legs extend at about 3.5 m/s when fired."""

FIXED_STEP = 0.125e-3
"""Step of the fixed-step RK4 default [s]. The source steps ODE at 4 kHz (0.25 ms), whose contact and
joint limits are implicit; explicit RK4 must resolve the fastest modes, set by the slopes of the
regularised friction laws (ground: mu F_n / v_eps per foot; piston: F_f / v_eps with the "signed"
law). Measured at rest on three feet (rubber valves, ground v_eps = 0.03 m/s, thesis piston friction):
the rolling set rests on 33.805 N at 0.25 ms as at 0.02 ms; the tipping set (mu = 3) chatters at
0.25 ms (the feet leave the ground between records) and rests at 0.125 ms. Against 0.031 ms, over 1 s:
a 20 ms tip deviates by at most 4.2 cm (0.25 ms) or 1.6 cm (0.125 ms) mid-tumble and ends within
4.6 mm or 1.1 mm; rolling by 2.5 cm or 0.47 cm. The rolling set at 0.25 ms is 1.5x faster and its
T13 starts still hold their heading (10 of 10), but the brake's 2.5 m/s case, chaotic, falls from
+3.9 % to -27 %: the default stays 0.125 ms for both sets."""

EULER_STEP = 0.125e-3
"""Step of the explicit Euler option (``RatsRobot.default_options("euler")``) [s], first order like the
source's ODE at 4 kHz, for studies that need speed more than one trajectory's accuracy.

Why not the source's 0.25 ms: explicit Euler on a spring-damper m x'' + b x' + k x = 0 multiplies each
underdamped mode by |1 + h lambda|^2 = 1 + (h / m) (h k - b) a step, so it is stable only for h < b / k.
A leg held on its retracted end stop (the thesis's constant piston friction presses it there) is such
a mode: b / k = STOP_DAMPING / STOP_STIFFNESS = 0.25 ms exactly, and a rolling run at 0.25 ms diverges
(measured: non-finite at t = 0.33 s). 0.125 ms is half the bound and divides the 1 ms control period.

Measured on the rolling set with the impact-angle controller (the T13 set-up: 0.689 MPa held):
* T13 starts (8 s): ``examples/sweep_rats_rolling.py --starts 40 --integrator euler`` (the test's draw,
  seed 7): 40 of 40 roll, 40 of 40 within 0.15 rad of the heading (largest error 0.066 rad), in 9.6 s
  wall on 2 workers; the default: 40 and 39 of 40 (0.177 rad), 22.7 s. Another draw (seed 11), with
  RK4 at 0.25 ms too: all three 40 of 40 (largest errors 0.051, 0.054 default, 0.118 RK4 0.25 ms).
* The brake at 2.5 m/s (the test's set-up, 12 random starts, mean speed over 8-12 s): within 15 % in 12
  of 12 (errors -14.8 .. +7.6 %, mean -4.8 %), against 11 of 12 (default) and 8 of 12 (RK4 0.25 ms);
  the test's own start (stance 5, yaw 1.0) stops under Euler (-99.9 %): single runs are chaotic.
  At 0.2 ms Euler holds 7 of 12 and its heading errors double.
* One trajectory against RK4 at 0.031 ms, 1 s from 8 random starts: median deviation of the end
  position 5.4 cm (RK4 0.25 ms: 6.2 cm; default: 0.52 cm; the default's largest is 18.8 cm, another
  firing sequence).
* The tipping set: T11's 60 short firings (every stance, each of its legs) tip onto the predicted
  stance, as with RK4, in 3.0 s against 9.2 s.
* Cost: one field evaluation per 0.125 ms against RK4's four per 0.25 ms (``benchmarks/bench_rats.py``)."""

GROUND_V_EPS = 0.03
"""Regularising speed of the ground friction's Coulomb cone [m/s] (:func:`legsim.contact.coulomb`).
At 0.01 m/s the tipping set's slope (3 x 11.3 N / 0.01 m/s per foot) makes RK4 chatter at 0.125 ms;
at 0.03 m/s it rests. The price: a foot under a tangential load creeps at about v_eps F_t / (mu F_n)."""

def _equivalent_area(cv: float) -> float:
    """The orifice area [m^2] that passes the same choked mass flow as C_v ``cv`` in the corrected law
    (the rubber-seat valve's exhaust port, which the source does not rate)."""
    p_up = 0.8e6
    return float(cv_mass_flow(cv, p_up, P_ATM, 298.15, gas=NITROGEN)
                 / orifice_mass_flow(1.0, p_up, P_ATM, 298.15, gas=NITROGEN))


def _per_leg(name: str, value) -> np.ndarray:
    """(12,) per-leg values from one number or 12, finite and >= 0 (InputError naming ``name``)."""
    arr = as_floats(value)
    if arr.shape not in ((), (N_LEGS,)) or not np.all(np.isfinite(arr)) or np.any(arr < 0.0):
        raise InputError(f"RATS {name} = {value!r}: expected one number or 12 (one per leg), finite and >= 0")
    return np.broadcast_to(arr, (N_LEGS,)).copy()


def _check_build(args: dict[str, Any]) -> None:
    """Refuse a keyword of :func:`build` of the wrong kind or range (InputError naming it): before its
    parts are made, whose own messages would name a leg's cylinder or the IMU instead."""
    o = "RATS"
    _choice(o, "valve", args["valve"], tuple(VALVES))
    _choice(o, "contact_set", args["contact_set"], tuple(CONTACT_SETS))
    _choice(o, "exhaust", args["exhaust"], _EXHAUSTS)
    _choice(o, "path", args["path"], ("smooth", "event"))
    _choice(o, "friction_law", args["friction_law"], _FRICTION_LAWS)
    check_number(o, "p0", args["p0"], lo=0.0, hi=MAX_P0)  # Pa gauge
    check_number(o, "tank_volume", args["tank_volume"], lo=0.0, lo_open=True)
    check_number(o, "v_eps", args["v_eps"], lo=0.0, lo_open=True)
    check_number(o, "piston_v_eps", args["piston_v_eps"], lo=0.0, lo_open=True)
    if args["mu"] is not None:
        check_number(o, "mu", args["mu"], lo=0.0, lo_open=True)
    if np.abs(check_array(o, "com_offset", args["com_offset"], (3,), "m")).max() > 1.0:  # (inside the shell)
        raise InputError(f"{o}: com_offset = {args['com_offset']!r}, expected each component within ±1 m "
                         f"(the shell's centre of mass from its centre)")
    for name in ("inertia", "mounting"):
        if args[name] is not None:
            check_array(o, name, args[name], (3, 3))
    for name in ("leak", "gyro", "foot_forces"):
        if not (name == "leak" and args[name] is None):  # leak None: the valve's own
            check_flag(o, name, args[name])
    if not (args["ground"] is None or isinstance(args["ground"], (Plane, HeightField, HeightFunction))):
        raise InputError(f"{o}: ground = {args['ground']!r}, expected None, a Plane, a HeightField or a "
                         "HeightFunction of legsim.contact")
    if not (args["accelerometer"] is None or isinstance(args["accelerometer"], Measurement)):
        raise InputError(f"{o}: accelerometer = {args['accelerometer']!r}, expected None or a "
                         "legsim.assembly.Measurement")


@dataclass
class RatsRobot:
    """The assembled RATS (:func:`build`) and what its controllers need to read it.

    Attributes: ``robot`` (:class:`legsim.assembly.Robot`), ``dims`` (:class:`RatsDims`), ``valve``
    (the preset name), ``contact_set``, ``p0`` (tank charge [Pa gauge]), ``legs`` (12, 3) leg
    directions (body frame), ``latency`` (12,) valve latencies [s]."""

    robot: Robot
    dims: RatsDims
    valve: str
    contact_set: str
    p0: float
    legs: np.ndarray
    latency: np.ndarray

    @property
    def model(self):
        return self.robot.model

    def rest_height(self) -> float:
        """Height [m] of the centre above the ground resting on three retracted feet (no penetration):
        the foot spheres' centres at ``l - r_foot`` along legs 37.38 deg from vertical."""
        r = self.dims.foot_radius
        return (self.dims.l - r) * math.cos(STANCE_LEG_ANGLE) + r

    def q_rest(self, stance: int, yaw: float = 0.0, xy=(0.0, 0.0), lift: float = -3e-4) -> np.ndarray:
        """q (19,) resting on ``stance`` (``geometry.resting_rotation(stance, yaw)``), the centre above
        ``xy`` at the resting height + ``lift`` [m] (default: the feet 0.3 mm into the ground, near the
        contact sets' static sink, so the robot starts loaded), legs retracted."""
        from scipy.spatial.transform import Rotation

        q = np.zeros(7 + N_LEGS)
        q[:2] = xy
        q[2] = self.rest_height() + lift
        q[3:7] = Rotation.from_matrix(resting_rotation(stance, yaw)).as_quat()   # (x, y, z, w)
        return q

    def simulate(self, t_final: float, policy=None, *, q0=None, v0=None, options: Options | None = None,
                 **kwargs):
        """Run to ``t_final`` [s] with ``policy`` (see :func:`firing_controller`; None: no firing).
        ``options`` default: :meth:`default_options` (fixed-step RK4 at :data:`FIXED_STEP` on the smooth
        contact path, DP45 on the event path); records every control period. ``x0``, ``t0`` continue a run
        (:meth:`legsim.assembly.Robot.simulate`); other keywords go there too (no progress bar unless
        ``progress=True``)."""
        ctrl = None if policy is None else firing_controller(self, policy)
        kwargs.setdefault("progress", False)
        return self.robot.simulate(t_final, ctrl, q0=q0, v0=v0, options=options or self.default_options(),
                                   **kwargs)

    def default_options(self, integrator: str = "rk4") -> Options:
        """Integrator options recording every control period. ``integrator`` "rk4": fixed-step RK4 at
        :data:`FIXED_STEP` on the smooth contact path, DP45 (rtol 1e-6) on the event path; "euler":
        explicit Euler at :data:`EULER_STEP` (smooth path only; its accuracy and cost are measured
        there)."""
        smooth = self.robot.contacts is not None and self.robot.contacts.path == "smooth"
        rec = self.robot.control_period
        if integrator == "euler" and smooth:
            return Options(method="euler", h_max=EULER_STEP, record_period=rec)
        if integrator == "euler":
            raise InputError('RATS integrator "euler" needs the smooth contact path (build(path="smooth")); '
                             "the event path locates contacts with DP45")
        if integrator != "rk4":
            raise InputError(f'RATS integrator = {integrator!r}: expected "rk4" or "euler"')
        if smooth:
            return Options(method="rk4_fixed", h_max=FIXED_STEP, record_period=rec)
        return Options(rtol=1e-6, atol=1e-8, h_max=rec, record_period=rec)


def _check_rats(owner: str, rats) -> RatsRobot:
    """``rats`` when it is a :class:`RatsRobot` (:func:`build`), else an :class:`InputError` naming
    ``owner``."""
    if not isinstance(rats, RatsRobot):
        raise InputError(f"{owner}: 'rats' = {shown(rats)}, expected a RatsRobot (legsim.robots.rats.robot."
                         "build())")
    return rats


def build(*, valve: str = "spool", contact_set: str = "rolling", p0: float = 0.689e6,
          dims: RatsDims | None = None, tank_volume: float = RATS_TANK_VOLUME,
          exhaust: str = "orifice", leak: bool | None = None, latency=None, friction=9.7003,
          k_return=100.0, com_offset=(0.0, 0.0, 0.0), inertia=None,
          ground: Plane | HeightField | HeightFunction | None = None,
          path: str = "smooth", accelerometer: Measurement | None = None, mounting=None, gyro: bool = False,
          mu: float | None = None, v_eps: float = GROUND_V_EPS,
          friction_law: str = "thesis", piston_v_eps: float = PISTON_V_EPS,
          foot_forces: bool = False) -> RatsRobot:
    """Assemble the RATS (module docstring).

    Parameters
    ----------
    valve : "spool" (13.16 ms, leaks through the tank's exponential law unless ``leak=False``) or
        "rubber" (5 ms, no leak).
    contact_set : "tipping" or "rolling" (Table 5.2); ``mu`` overrides its friction coefficient.
    p0 : tank charge [Pa gauge] (0.689 MPa: the range runs E11–E13).
    tank_volume : [m^3] (the 0.84 L core tank; a large volume stands for a regulated supply at ``p0``).
    dims : :class:`~legsim.robots.rats.geometry.RatsDims` (Table 5.1; ``l``, the centre to the
        retracted foot's outer surface, is not in the source: 0.20 m, the estimate of digest §1.2).
    exhaust : the chamber after the valve closes: "orifice" (vented through the valve's exhaust port),
        "instant" (the thesis: no gas force in the return phase) or "trapped".
    latency, friction, k_return : per-leg spread: one number or 12 [s], [N], [N/m] (default: the
        preset's latency, Table 5.3's F_f and k_return for every leg).
    com_offset : (3,) centre of mass of the shell from its centre [m], body axes; ``inertia`` (3, 3)
        its inertia about the centre of mass [kg m^2] (default: the uniform sphere's, 2/5 m r^2).
    ground : a :class:`legsim.contact.Plane` (default z = 0; ``inclined_plane`` for a slope) or a terrain
        z = h(x, y): :class:`~legsim.contact.HeightField`, :class:`~legsim.contact.HeightFunction`
        (a smooth ``"step"``, hills); ``RatsRobot.q_rest`` places the sphere over z = 0.
    path : contact path, "smooth" (fixed-step RK4, the default) or "event" (located onsets, DP45).
    accelerometer : the accelerometer's :class:`~legsim.assembly.Measurement` (default: ±1.5 g,
        12 bit, 0.5 Hz first-order Butterworth, noise 0.01 g, seed 0); sampled at 16 Hz.
    mounting : (3, 3) rotation from the accelerometer's axes to the shell's (default identity);
        ``stance.calibrate_mounting`` recovers it from readings at rest (§3.4).
    gyro : add a gyro (sensor ``gyro``, 3 channels [rad/s], every control period, no noise).
    v_eps : the ground friction law's regularising speed [m/s] (:data:`GROUND_V_EPS`).
    friction_law : the piston friction (``SolenoidCylinder.friction_law``): "thesis" (the source's
        constant F_f against extension, (5.5)/(5.6) as printed: a fired leg retracts in about 33 ms, as
        the rolling controller's re-arm time assumes) or "signed" (Coulomb friction opposing the motion:
        the return spring, at most k x = 6.3 N, is weaker than F_f = 9.7 N, so a fired leg stays out
        and creeps back at the regularised friction's speed; the real spring must have a preload the
        source does not give).
    piston_v_eps : the "signed" friction's regularising speed [m/s] (:data:`PISTON_V_EPS`).
    foot_forces : add a sensor ``feet`` with the contact force on every foot (12 x 3 channels [N],
        world axes; truth: the robot has no such sensor).
    """
    _check_build(locals())
    dims = RatsDims() if dims is None else dims
    if not isinstance(dims, RatsDims):
        raise InputError(f"RATS dims = {dims!r}, expected a legsim.robots.rats.geometry.RatsDims")
    if not dims.rests_on_feet:
        l_min = dims.body_radius / math.cos(STANCE_LEG_ANGLE)
        raise InputError(f"RATS dims.l = {dims.l!r} m: the shell (r = {dims.body_radius} m) would touch the "
                         f"ground on three retracted feet: expected l > {l_min:.3f} m")
    pre = VALVES[valve]
    lat = _per_leg("latency", pre["valve"].latency if latency is None else latency)
    ff, kr = _per_leg("friction", friction), _per_leg("k_return", k_return)
    cs = dict(CONTACT_SETS[contact_set])
    if mu is not None:
        cs["mu"] = mu
    leaks = (pre["valve"].leak_tau > 0.0) if leak is None else bool(leak)
    tank = SupplyTank(volume=tank_volume, gas=NITROGEN, leak="exponential" if leaks else "none",
                      **({"leak_tau": pre["valve"].leak_tau} if leaks and pre["valve"].leak_tau > 0 else {}))
    cv = pre.get("cv")
    exhaust_area = pre["valve"].area if pre["flow"] == "orifice" else _equivalent_area(float(pre["cv"]))

    b = RobotBuilder("rats", limit_stiffness=STOP_STIFFNESS, limit_damping=STOP_DAMPING)
    m_s, r_s, m_l, r_f, h_l = dims.body_mass, dims.body_radius, dims.leg_mass, dims.foot_radius, \
        dims.capsule_length
    I_shell = np.eye(3) * 0.4 * m_s * r_s**2 if inertia is None else inertia
    b.add_body("shell", "world", "free", mass=m_s, com=com_offset, inertia=I_shell)
    b.add_geometry("shell", "sphere", radius=r_s, name="shell")
    # the leg cylinder (solid, end caps neglected) ends at the foot sphere's centre
    i_ax = 0.5 * m_l * r_f**2
    i_perp = m_l * (3 * r_f**2 + h_l**2) / 12.0
    actuators = []
    for k, d in enumerate(LEG_DIRECTIONS):
        name = f"leg{k + 1}"
        foot = (dims.l - r_f) * d
        b.add_body(name, "shell", "prismatic", joint_name=name, axis=d, mass=m_l, com=foot - 0.5 * h_l * d,
                   inertia=i_perp * (np.eye(3) - np.outer(d, d)) + i_ax * np.outer(d, d),
                   limits=(0.0, dims.stroke))
        b.add_geometry(name, "sphere", radius=r_f, xyz=foot, name=f"foot{k + 1}")
        v = dataclasses.replace(pre["valve"], latency=float(lat[k]))
        actuators.append(SolenoidCylinder(name, name, v, "tank", flow=pre["flow"], cv=cv, exhaust=exhaust,
                                          exhaust_area=exhaust_area, stroke=dims.stroke,
                                          friction=float(ff[k]), k_return=float(kr[k]), v_eps=piston_v_eps,
                                          friction_law=friction_law))
    acc = accelerometer if accelerometer is not None else Measurement(noise_std=0.01 * G, lo=-1.5 * G,
                                                                       hi=1.5 * G, bits=12, cutoff_hz=0.5)
    rot = np.eye(3) if mounting is None else np.asarray(mounting, dtype=float)
    sensors: list[IMU | ContactForce] = [IMU("accel", body="shell", rate_hz=16.0, gyro=False, measurement=acc,
                                             rotation=rot.tolist())]
    if gyro:
        sensors.append(IMU("gyro", body="shell", accelerometer=False))
    if foot_forces:
        sensors.append(ContactForce("feet", geometries=[f"foot{k + 1}" for k in range(N_LEGS)]))
    law = ContactLaw(kelvin_voigt(cs["k"], cs["b"]), coulomb(cs["mu"], v_eps))
    contacts = Contacts(law, ground=ground or Plane(), path=path,
                        geometries=["shell", *(f"foot{k + 1}" for k in range(N_LEGS))])
    robot = Robot(b.compile(), actuators=actuators, sensors=sensors, contacts=contacts,
                  resources=[AirSupply("tank", tank, p0=p0 + P_ATM)], control_period=CONTROL_PERIOD,
                  name="rats")
    return RatsRobot(robot, dims, valve, contact_set, float(p0), LEG_DIRECTIONS.copy(), lat)


MAX_VALVES = 10_000
"""The most valves a :class:`ValveTimers` keeps (RATS has 12; its commands are an array of that size)."""


class ValveTimers:
    """The on-board countdown timers (§1.4): ``fire(leg, duration_ms)`` energises leg ``leg``'s valve
    (0-based) for that many whole control ticks (1 ms), starting at the current tick; firing a leg
    whose valve is still energised restarts its countdown. ``tick()`` -> the (n,) valve commands
    (1 energised, 0 not) for this tick and counts down. The counts are kept per running timer (a
    tick touches only those: 0.3 us with none running, 0.65 us with two, against 2.2 us for numpy
    operations on all 12). ``n``: the number of valves, 1 .. :data:`MAX_VALVES` (default 12)."""

    def __init__(self, n: int = N_LEGS):
        self.n = check_whole("ValveTimers", "n", n, 1, MAX_VALVES)
        self.commands = np.zeros(n)
        self._left: dict[int, int] = {}  # leg -> ticks still to run, for the timers set
        self._on: list[int] = []  # legs energised at the last tick

    @property
    def remaining(self) -> np.ndarray:
        """(n,) ticks each timer still has to run [ms]."""
        out = np.zeros(self.n, dtype=np.int64)
        for leg, left in self._left.items():
            out[leg] = left
        return out

    def fire(self, leg: int, duration_ms) -> None:
        """Energise valve ``leg`` (a whole number 0..n - 1) for ``duration_ms`` ticks (a whole number >= 0,
        1 ms resolution)."""
        o = "ValveTimers.fire"
        leg = check_whole(o, "leg index", leg, 0, self.n - 1)
        self._left[leg] = check_whole(o, "duration_ms", duration_ms)

    def tick(self) -> np.ndarray:
        c = self.commands
        if not self._left and not self._on:  # no timer running, none ran at the last tick
            return c
        for leg in self._on:
            c[leg] = 0.0
        self._on = on = [leg for leg, left in self._left.items() if left > 0]
        for leg in on:
            c[leg] = 1.0
        self._left = {leg: self._left[leg] - 1 for leg in on if self._left[leg] > 1}
        return c


@dataclass
class Observation:
    """What a RATS policy sees at a control tick, refreshed in place (copy what you keep).

    ``t`` [s]; ``accel`` (3,) the accelerometer's held, filtered reading [m/s^2] (sensor axes);
    truth for controllers that want it (the thesis's simulation controllers read the true state):
    ``position`` (3,) centre [m], ``rotation`` (3, 3) body -> world, ``omega`` (3,) angular velocity
    [rad/s] and ``velocity`` (3,) centre velocity [m/s] in world axes, ``legs`` (12,) extensions [m],
    ``tank`` tank pressure [Pa gauge]; ``gyro`` (3,) when the robot has one."""

    t: float
    accel: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    omega: np.ndarray
    velocity: np.ndarray
    legs: np.ndarray
    tank: float
    gyro: np.ndarray | None = None


Policy = Callable[[Observation], Iterable[tuple[int, float]] | None]
"""``policy(obs) -> firings``: an iterable of (leg index 0..11, valve duration [whole ms]) to start at
this tick, or None."""


def firing_controller(rats: RatsRobot, policy: Policy):
    """The assembly controller ``(t, sensors) -> (12,) valve commands`` that runs ``policy`` (a callable
    ``policy(obs) -> firings``, :data:`Policy`) every control tick on an :class:`Observation` and its
    firings through :class:`ValveTimers`, for the robot ``rats`` (a :class:`RatsRobot`)."""
    _check_rats("firing_controller", rats)
    if not callable(policy):
        raise InputError(f"firing_controller: 'policy' = {shown(policy)}, expected a callable "
                         "policy(obs) -> firings (a list of (leg, duration_ms), or None)")
    timers = ValveTimers()
    robot = rats.robot
    tank = robot.model.state_names.index("tank_p")
    at = {ch.name: robot._x["xy"] + ch.start for ch in robot.channels}
    has_gyro = "gyro" in at
    buf = np.zeros(OBS_SIZE)  # the observation's arrays are views of it, filled by one compiled call
    accel, position, rotation, omega, velocity, legs, gyro = (buf[a:b] for a, b in OBS_SLICES)
    obs = Observation(0.0, accel, position, rotation.reshape(3, 3), omega, velocity, legs, 0.0,
                      gyro if has_gyro else None)
    accel_at, gyro_at = at["accel"], at.get("gyro", -1)

    def controller(t, s):
        x = s.x
        observe(x, accel_at, gyro_at, buf)
        obs.t = t
        obs.tank = float(x[tank]) - P_ATM
        firings = policy(obs)
        if firings:
            for leg, ms in firings:
                timers.fire(leg, ms)
        return timers.tick()

    return controller


def schedule_policy(commands: Sequence[tuple[int, float, float]], t0: float = 0.0) -> Policy:
    """A policy playing back a script of Netburner commands (leg, duration ms, wait ms) from ``t0`` [s]
    (the first command's tick): the next command starts ``wait`` ms after this one started
    (``legsim.actuators.pneumatic.CommandQueue``). A policy of one's own can start one at any tick and
    add what it returns to its own firings (a hop script of :mod:`.hopping` when an obstacle shows)."""
    from ...actuators.pneumatic.solenoid import CommandQueue

    if not 0.0 <= as_float(t0) <= 1e9:
        raise InputError(f"schedule_policy: t0 = {t0!r}: expected a time in [0, 1e9] s")
    queue = CommandQueue(N_LEGS, commands).schedule(float(t0))
    starts = np.rint(queue["t_on"] * 1e3).astype(np.int64)
    durations = np.rint((queue["t_off"] - queue["t_on"]) * 1e3).astype(np.int64)
    pos = [0]

    def policy(obs: Observation):
        tick = int(round(obs.t * 1e3))
        out = []
        while pos[0] < starts.size and starts[pos[0]] <= tick:
            i = pos[0]
            out.append((int(queue["leg"][i]), int(durations[i])))
            pos[0] += 1
        return out

    return policy

