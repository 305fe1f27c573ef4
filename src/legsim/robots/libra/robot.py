"""LIBRA on the assembly layer: the planar three-limbed climber between two ladders (CJTC digest §4.1–§4.2,
§10.1 items 8–9).

The multibody model lives in the thesis's plane (x to the right ladder, y up, gravity −y, joints about
+z). Its root is foot 1 on a planar base (prismatic x, prismatic y, revolute φ — all passive), so any
foot can be the support: the feet are not pinned by the model but held by the ladder — each rung is an
L-shaped step (a tread the wheel stands on, a post it is pressed against), obstacles the 8.3 cm rubber
wheels touch with a Kelvin–Voigt law of the wall stiffness K_e = 5837 N/m and Coulomb friction. The
thesis's analysis pins the supporting feet; here a supporting foot is held by the tread, the post and
the CJTC's commanded push into the post (foot 2's 10 N), which is what the pins stand for.

Point masses as the App. C model (m_link at mid-links, m_motor at each of the six joints, m_body at the
body centre): 4.26 kg in all (the thesis's 8 kg is unexplained; ``extra_body_mass`` adds the rest if
wanted). Drives: the transconductance amplifiers make the motors torque servos (§4.2, App. B). By
default (``drive="ideal"``, the thesis's model) ideal torque sources clipped at ``tau_max`` = 9.13 N m
(the continuous 0.9 A). ``drive="motor"``: each joint's torque command is met within what the Escap
motor can give at its speed, η N k_t times the current the ±24 V rails drive through R_m against the
back-EMF, at most the continuous 0.9 A — an assembly ``DCMotor`` in torque mode; beyond the rails'
no-load speed (1.32 rad/s at the joint) the back-EMF brakes the joint. The gait plan was made for the
ideal drives: its swings ask limb 3's joints for up to 4 rad/s, which the motors cannot give (with
``drive="motor"`` the cycle's θ_b peaks at 9.5° instead of 4.7°; 6.2° with 8 s stages);
``experiments.pace_for_motors`` slows it until they can (an 80 s cycle, which both drives climb alike).
Gear friction from the motor's no-load current, τ_c = k_t i_0 N = 0.0233 ×
0.020 × 792 = 0.369 N m at the output (Coulomb, regularised), plus optional viscous damping;
joint-limit stops at the mounting hardware's limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...assembly import ContactForce, Contacts, DCMotor, JointEncoder, Obstacle, Robot, TorqueSource
from ...assembly._clock import rate as sample_rate
from ...assembly.components import _choice
from ...contact import ContactLaw, Plane, coulomb, kelvin_voigt
from ...errors import InputError, check_number, shown
from ...multibody import Model, RobotBuilder
from .params import LADDER_SEPARATION_CYCLE, STEP_HEIGHT, LibraParams

__all__ = ["Ladders", "LibraRobot", "build", "JOINTS", "gear_friction", "FEET"]

JOINTS = ("theta1", "theta2", "theta3", "theta4", "theta5", "theta6")
FEET = ("foot1", "foot2", "foot3")
PASSIVE = ("base_x", "base_y", "phi")


def gear_friction(p: LibraParams) -> float:
    """Coulomb friction of a joint at the gearhead output [N m]: the motor's no-load friction torque
    k_t i_0 times the ratio N (§4.2 table: 23.3 mN m/A, 20 mA, 792:1 -> 0.369 N m) of ``p``, a LibraParams."""
    if not isinstance(p, LibraParams):
        raise InputError(f"gear_friction: 'p' = {shown(p)}, expected a LibraParams")
    return p.motor.torque_constant * p.motor.no_load_current * p.gear


MAX_RUNGS = 1000
"""The most rungs a :class:`Ladders` side may have (each is an obstacle that every contact test visits)."""


@dataclass(frozen=True)
class Ladders:
    """Two vertical ladders of L-shaped steps (§4.1): the left one's rung seats at x = 0, the right
    one's at x = ``separation``; rungs every ``step`` [m] in y from ``lowest`` up to ``highest``.

    A seat (x_s, y_s) is where a wheel's centre rests in the step's corner, touching the post's face
    (at x_s ∓ R, R the wheel radius) and standing on the tread, a plate ``tread`` [m] deep from the
    post (4.5 cm by default: deeper than R, so a seated wheel stands flat). A tread shallower than R
    carries the wheel on its tip edge, whose push has a component *away* from the post (the wheel stays
    only while pressed into the post harder than that: with 3.5 cm LIBRA's foot 1 rolled off when foot 3
    pushed the same post); the tread's top is then √(R² − (R − tread)²) below the seat (R below it for
    a deeper tread). A swinging wheel clears a tread when its centre is more than ``tread`` from the
    post's seat line.
    """

    separation: float = LADDER_SEPARATION_CYCLE
    step: float = STEP_HEIGHT
    lowest: float = -2 * STEP_HEIGHT
    highest: float = 3 * STEP_HEIGHT
    tread: float = 0.045
    wheel_radius: float = 0.0415

    def __post_init__(self):
        for key in ("separation", "step", "tread", "wheel_radius"):
            check_number("Ladders", key, getattr(self, key), lo=0.0, lo_open=True, hi=10.0)  # [m]
        for key in ("lowest", "highest"):
            check_number("Ladders", key, getattr(self, key), lo=-100.0, hi=100.0)  # [m]
        if self.highest < self.lowest:
            raise InputError(f"Ladders: highest = {self.highest!r} m, below lowest = {self.lowest!r} m")
        rungs = (self.highest - self.lowest) / self.step + 1
        if rungs > MAX_RUNGS:
            raise InputError(f"Ladders: {rungs:.4g} rungs from lowest = {self.lowest!r} m to highest = "
                             f"{self.highest!r} m every step = {self.step!r} m, expected at most "
                             f"{MAX_RUNGS} (a larger step or a shorter ladder)")

    @property
    def rest_height(self) -> float:
        """Height [m] of a seated wheel's centre above its tread's top."""
        R, d = self.wheel_radius, self.tread
        return R if d >= R else math.sqrt(R * R - (R - d) ** 2)

    @property
    def heights(self) -> np.ndarray:
        n = int(math.floor((self.highest - self.lowest) / self.step + 1e-9)) + 1
        return self.lowest + self.step * np.arange(n)

    def seat(self, side: str, level: int) -> np.ndarray:
        """Seat (2,) [m] of rung ``level`` (0 = y 0, 1 = one step up, −1 one down) on ``side``
        ('left' or 'right')."""
        if side not in ("left", "right"):
            raise InputError(f"Ladders.seat: side = {side!r}, expected 'left' or 'right'")
        return np.array([0.0 if side == "left" else self.separation, level * self.step])

    def obstacles(self) -> list[Obstacle]:
        """Posts (tall boxes whose inner faces are at −R and separation + R) and treads."""
        R, t, depth = self.wheel_radius, 0.01, 1.0
        lo, hi = self.lowest - 2 * self.step, self.highest + 2 * self.step
        mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
        obs = [Obstacle((t, half, depth), (-R - t, mid, 0.0), name="left post"),
               Obstacle((t, half, depth), (self.separation + R + t, mid, 0.0), name="right post")]
        for y in self.heights:
            top = y - self.rest_height
            obs.append(Obstacle((0.5 * self.tread, 0.003, depth), (-R + 0.5 * self.tread, top - 0.003, 0.0),
                                name=f"left rung {y:+.3f}"))
            obs.append(Obstacle((0.5 * self.tread, 0.003, depth),
                                (self.separation + R - 0.5 * self.tread, top - 0.003, 0.0),
                                name=f"right rung {y:+.3f}"))
        return obs


def _model(p: LibraParams, friction: float, damping: float, armature: float, extra_body_mass: float):
    """The multibody model (point masses as App. C; small rotational inertias keep every body regular)."""
    L2 = p.link
    eps_I = 1e-6  # kg m^2: a point mass has none; this regularises bodies whose mass sits on their axis
    lim = p.joint_limits
    b = RobotBuilder("libra", gravity=(0.0, -9.81, 0.0), friction_velocity=0.05, limit_stiffness=2000.0,
                     limit_damping=20.0)
    # foot 1's planar base: the two sliders carry 1 g each (the engine needs a mass on every moving body)
    b.add_body("base_x", "world", "prismatic", axis=(1, 0, 0), mass=1e-3, inertia=(eps_I, eps_I, eps_I))
    b.add_body("base_y", "base_x", "prismatic", axis=(0, 1, 0), mass=1e-3, inertia=(eps_I, eps_I, eps_I))

    def link(name, parent, joint, xyz, rpy=(0, 0, 0), k=None, motor=False):
        # a link of length 2L along its x: m_link at mid-link, plus the motor of its joint at its origin
        # when that motor rides on this link (knees); k: the joint's row of the limits (None: passive)
        mm = p.m_motor if motor else 0.0
        m = p.m_link + mm
        cx = p.m_link * p.half_link / m
        Izz = p.m_link * (p.half_link - cx) ** 2 + mm * cx ** 2 + eps_I
        kw = {}
        if k is not None:
            kw = dict(limits=(lim[k, 0], lim[k, 1]), friction=friction, damping=damping, armature=armature)
        b.add_body(name, parent, "revolute", joint_name=joint, xyz=xyz, rpy=rpy, axis=(0, 0, 1), mass=m,
                   com=(cx, 0.0, 0.0), inertia=(eps_I, Izz, Izz), **kw)  # masses on the link's x axis

    link("link1a", "base_y", "phi", (0, 0, 0))
    link("link1b", "link1a", "theta1", (L2, 0, 0), k=0, motor=True)
    # body: hip-1 motor at its origin (joint 2), plate at the centre, hips 2 and 3 carry their motors
    c = np.array([p.r * math.cos(-math.pi / 6), p.r * math.sin(-math.pi / 6), 0.0])
    hip3 = c + np.array([0.0, -p.r, 0.0])
    hip2 = np.array([p.N, 0.0, 0.0])
    masses = [(p.m_motor, np.zeros(3)), (p.m_body + extra_body_mass, c), (p.m_motor, hip2),
              (p.m_motor, hip3)]
    mb = sum(m for m, _ in masses)
    com = sum(m * x for m, x in masses) / mb
    Izz = sum(m * float(np.sum((x - com)[:2] ** 2)) for m, x in masses) + eps_I
    b.add_body("body", "link1b", "revolute", joint_name="theta2", xyz=(L2, 0, 0), axis=(0, 0, 1), mass=mb,
               com=tuple(com), inertia=(0.5 * Izz, 0.5 * Izz, Izz), limits=(lim[1, 0], lim[1, 1]),
               friction=friction, damping=damping, armature=armature)
    b.add_frame("body_centre", "body", xyz=tuple(c))
    # the motors of joints 3 and 5 ride on the body, those of the knees 4 and 6 on the outer links
    link("link2a", "body", "theta3", tuple(hip2), k=2)
    link("link2b", "link2a", "theta4", (L2, 0, 0), k=3, motor=True)
    link("link3a", "body", "theta5", tuple(hip3), rpy=(0, 0, -math.pi / 2), k=4)
    link("link3b", "link3a", "theta6", (L2, 0, 0), k=5, motor=True)
    for i, (body, x) in enumerate((("link1a", 0.0), ("link2b", L2), ("link3b", L2))):
        b.add_frame(FEET[i], body, xyz=(x, 0.0, 0.0))
        b.add_geometry(body, "sphere", radius=p.wheel_radius, xyz=(x, 0.0, 0.0), name=f"wheel{i + 1}")
    return b.compile()


@dataclass
class LibraRobot:
    """LIBRA assembled (:func:`build`): ``robot`` (assembly Robot: torque sources ``m1``..``m6`` on
    θ1..θ6, encoder ``enc``, the wheels' contact forces ``feet`` (truth, for logging like the thesis's
    force sensor on a step)), ``mb`` its multibody model, ``params``, ``ladders``, ``tau_max``."""

    robot: Robot
    mb: Model
    params: LibraParams
    ladders: Ladders
    tau_max: float
    contact_law: ContactLaw | None = field(repr=False, default=None)

    def q_full(self, phi_base=(0.0, 0.0), phi=0.0, theta=None) -> np.ndarray:
        """Configuration (9,) = [x_foot1, y_foot1, φ, θ1..θ6]."""
        q = np.zeros(9)
        q[0:2] = phi_base
        q[2] = phi
        if theta is not None:
            q[3:] = theta
        return q


def build(params: LibraParams | None = None, ladders: Ladders | None = None, *, tau_max: float | None = None,
          friction: float | None = None, damping: float = 0.0, armature: float = 0.0,
          extra_body_mass: float = 0.0, mu: float = 0.8, contact_damping_ratio: float = 0.5,
          control_rate: float = 300.0, drive: str = "ideal") -> LibraRobot:
    """LIBRA between two ladders on the assembly layer.

    Parameters
    ----------
    params : LibraParams (default the thesis's numbers).
    ladders : Ladders (default: separation 0.45 m as the full-cycle plots, rungs every 0.134 m).
    tau_max : drive saturation [N m] at rest (default the continuous output torque ≈ 9.1 N m, the
        0.9 A limit; the gearhead's 4.5 N m dynamic / 20 N m static ratings are the mechanical bounds
        around it). drive : ``"ideal"`` (a torque source clipped at ``tau_max`` at any speed, the
        default) or ``"motor"`` (the amplifier and motor: ``tau_max`` at rest, less as the back-EMF
        eats the rails' 24 V, braking past 1.32 rad/s; see the module docstring).
    friction : Coulomb gear friction at each joint [N m] (default :func:`gear_friction`, 0.369 N m;
        0 for the frictionless model of the linear analysis). damping : viscous [N m s/rad].
    armature : reflected rotor inertia per joint [kg m^2] (not given by the source; default 0, as the
        thesis's model).
    mu : wheel–ladder friction ratio; contact_damping_ratio : damping of the K_e contact against a
        1 kg mass (ζ).
    control_rate : the CJTC loop [Hz] (300 on the 68020, §4.2).
    """
    p = LibraParams() if params is None else params
    if not isinstance(p, LibraParams):
        raise InputError(f"build: params = {params!r}, expected None or a LibraParams")
    lad = Ladders(wheel_radius=p.wheel_radius) if ladders is None else ladders
    if not isinstance(lad, Ladders):
        raise InputError(f"build: ladders = {ladders!r}, expected None or a Ladders")
    o = "LIBRA build"
    for name, value in (("damping", damping), ("armature", armature), ("extra_body_mass", extra_body_mass)):
        check_number(o, name, value, lo=0.0)
    check_number(o, "contact_damping_ratio", contact_damping_ratio, lo=0.0, hi=1e3)  # beyond: c overflows
    check_number(o, "mu", mu, lo=0.0, lo_open=True)
    check_number(o, "control_rate", control_rate, lo=0.0, hi=1e6, lo_open=True)  # [Hz]
    sample_rate(f"{o}: control_rate", float(control_rate))  # one the robot's sample clock can keep
    if tau_max is not None:
        check_number(o, "tau_max", tau_max, lo=0.0, lo_open=True)
    if friction is not None:
        check_number(o, "friction", friction, lo=0.0)
    _choice(o, "drive", drive, ("motor", "ideal"))
    if abs(lad.wheel_radius - p.wheel_radius) > 1e-12:
        raise InputError(f"build: ladders.wheel_radius = {lad.wheel_radius} m differs from the wheels' "
                         f"{p.wheel_radius} m")
    tm = p.tau_continuous if tau_max is None else float(tau_max)
    if not tm > 0.0:
        raise InputError(f"build: tau_max = {tau_max!r}, expected a torque > 0 [N m]")
    fr = gear_friction(p) if friction is None else float(friction)
    mb = _model(p, fr, damping, armature, extra_body_mass)
    k = p.k_wall
    law = ContactLaw(kelvin_voigt(k, 2.0 * contact_damping_ratio * math.sqrt(k * 1.0)), coulomb(mu, 0.02))
    contacts = Contacts(law, ground=Plane((0.0, 1.0, 0.0), lad.lowest - 10.0), path="smooth",
                        obstacles=lad.obstacles())
    m = p.motor
    acts: list[DCMotor | TorqueSource]
    if drive == "motor":
        g = m.efficiency * p.gear * m.torque_constant
        acts = [DCMotor(f"m{i + 1}", j, resistance=m.resistance, torque_constant=m.torque_constant,
                        back_emf=m.back_emf, v_max=m.supply, gear=p.gear, efficiency=m.efficiency,
                        i_max=tm / g, command="torque") for i, j in enumerate(JOINTS)]
    elif drive == "ideal":
        acts = [TorqueSource(f"m{i + 1}", j, lo=-tm, hi=tm) for i, j in enumerate(JOINTS)]
    else:
        raise InputError(f"build: drive = {drive!r}, expected 'motor' or 'ideal'")
    robot = Robot(mb, actuators=acts,
                  sensors=[JointEncoder("enc", joints=list(JOINTS)),
                           ContactForce("feet", geometries=["wheel1", "wheel2", "wheel3"])],
                  contacts=contacts, control_period=1.0 / control_rate, name="libra")
    return LibraRobot(robot, mb, p, lad, tm, law)
