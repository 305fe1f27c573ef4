"""ANTON on the assembly layer, walking under the robot-independent walking layer (issue 16).

Drives (source §3.2): servo DC motors through gears of 390 (knees, the γ joints) and 251 (every
other joint), 2.8 W and 8.68 W maximum. The motors' constants are not given: each is a placeholder
12 V motor whose maximum output power V²/(4R) is the source's rating (knee R = 12.9 Ω, others
4.15 Ω) with k = 14.3 mV s/rad (8000 rpm at no load), so the joints reach 8.2 N m (251:1) and
4.1 N m (390:1) at stall. Sensors: joint encoders, the shank force sensors as each foot's contact
force (±50 N, source Fig. 3.4; crosstalk not modelled), a 2-axis gyroscope (roll and pitch rates).
Feet: rubber spheres (Hunt–Crossley normal law, Coulomb friction μ = 0.8, placeholders).

:func:`walker` is the control hierarchy of §3.4 at 1 ms: the action level (walk at a speed with a
gait, or stand), the primitive level (:class:`~legsim.walking.GaitGenerator` and one
:class:`~legsim.walking.LegCycle` per leg, feet placed on a rectangle around the body, leg inverse
kinematics) and the servo level (a PD position loop on each drive's voltage).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ...assembly import (
    IMU,
    ContactForce,
    Contacts,
    DCMotor,
    JointEncoder,
    JointVelocity,
    Measurement,
    Robot,
)
from ...assembly.components import Obstacle, _choice, contact_geometries
from ...contact import ContactLaw, coulomb, hunt_crossley
from ...errors import (
    InputError,
    as_float,
    check_fields,
    check_flag,
    check_number,
    check_whole,
    describe_failure,
    shown,
)
from ...walking import GAITS, GaitGenerator, LegCycle, StepCycle, SupportQP, adapt_clearance, wave_gait
from . import _kinematics as _K
from ._statics import static_torques
from .model import MAX_DISTANCE, MAX_TICK, build_model, foot_layout, joint_names, leg_arrays, leg_out_of_reach
from .params import (
    FORCE_SENSOR_RANGE_N,
    GEAR_KNEE,
    GEAR_OTHER,
    LEGS,
    POWER_KNEE_W,
    POWER_OTHER_W,
    SEGMENTS,
    AntonParams,
)

__all__ = ["build_robot", "walker", "WalkPlan", "SurfaceFollowing", "StaticFeedforward", "standing_pose",
           "support_track",
           "V_SUPPLY", "MOTOR_K"]

V_SUPPLY = 12.0   # [V], placeholder
MOTOR_K = 0.0143  # [N m/A = V s/rad], placeholder: 8000 rpm at 12 V


def _motor(joint: str) -> DCMotor:
    knee = joint.endswith("_gamma")
    power = POWER_KNEE_W if knee else POWER_OTHER_W
    return DCMotor(joint, joint, resistance=V_SUPPLY ** 2 / (4.0 * power), torque_constant=MOTOR_K,
                   v_max=V_SUPPLY, gear=GEAR_KNEE if knee else GEAR_OTHER, efficiency=0.8,
                   rotor_inertia=1e-6)


def build_robot(params: AntonParams | None = None, *, mu: float = 0.8, path: str = "smooth",
                obstacles=(), body_contact: bool = False) -> Robot:
    """ANTON with its 22 drives, sensors and rubber feet on the ground plane z = 0, and static
    ``obstacles`` (:class:`legsim.assembly.Obstacle`: steps, ledges) that the feet touch; with
    ``body_contact`` the body segments' boxes touch them too (their corners, with the feet's law: a
    body resting on a ledge while climbing)."""
    p = AntonParams() if params is None else params
    if not isinstance(p, AntonParams):
        raise InputError(f"ANTON: params = {params!r}, expected None or an AntonParams")
    check_number("ANTON", "mu", mu, lo=0.0, lo_open=True)
    _choice("ANTON", "path", path, ("smooth", "event"))
    if not (isinstance(obstacles, (list, tuple)) and all(isinstance(o, Obstacle) for o in obstacles)):
        raise InputError(f"ANTON: obstacles = {obstacles!r}, expected a list of legsim.assembly.Obstacle")
    body_contact = check_flag("ANTON", "body_contact", body_contact)
    mb = build_model(p)
    joints = joint_names()
    feet = [f"{leg}_foot" for leg in LEGS]
    sensors = [JointEncoder("enc", joints=joints, measurement=Measurement(bits=16, lo=-math.pi, hi=math.pi)),
               JointVelocity("rate", joints=joints),
               ContactForce("shank", geometries=feet,
                            measurement=Measurement(lo=-FORCE_SENSOR_RANGE_N, hi=FORCE_SENSOR_RANGE_N)),
               IMU("gyro", body="middle", accelerometer=False)]
    law = ContactLaw(hunt_crossley(3e4, 1.5), coulomb(mu, 1e-2))
    touching = feet + ([f"{seg}_box" for seg in SEGMENTS] if body_contact else [])
    return Robot(mb, actuators=[_motor(j) for j in joints], sensors=sensors,
                 contacts=Contacts(law, geometries=touching, path=path, obstacles=tuple(obstacles)))


@dataclass
class WalkPlan:
    """The action level: ``speed`` [m/s] forward (0: stand), ``gait`` name, ``step_length`` L_sum [m],
    ``adaptation_height`` H_ad [m], ``height`` of the body's centre over the ground [m], the feet's
    rectangle (``half_length``, ``half_width``) [m] and its centre's offset ``feet_x`` [m] along x
    from the middle segment (negative: the feet behind, the centre of mass forward of them),
    ``start`` [s] when walking begins; the gait frames (Fig. 3.23 pipeline step 2): ``direction``
    [rad] turns every foot's step about the vertical (0: forward, π/2: sideways to the left) and
    ``turn`` scales the steps of the two sides in opposite senses (left × (1 − turn), right ×
    (1 + turn): 0 straight, ±1 the inner side stepping in place; beyond ±1 the outer steps leave
    the placeholder legs' reach); ``gait_changes`` ((t [s], gait name), ...) switches the gait on
    the fly at the same speed (the gait generator applies it at the next all-support instant)."""

    speed: float = 0.1
    gait: str = "tripod"
    step_length: float = 0.07
    adaptation_height: float = 0.02
    height: float = 0.12
    half_length: float = 0.20
    half_width: float = 0.26
    feet_x: float = 0.0
    start: float = 0.3
    direction: float = 0.0
    turn: float = 0.0
    gait_changes: tuple[tuple[float, str], ...] = ()
    params: AntonParams = field(default_factory=AntonParams)

    def __post_init__(self):
        check_fields("WalkPlan", self, positive=("step_length", "height", "half_length", "half_width"),
                      nonnegative=("speed", "adaptation_height", "start"),
                      finite=("feet_x", "direction", "turn"))
        if not isinstance(self.params, AntonParams):
            raise InputError(f"WalkPlan: params = {self.params!r}, expected an AntonParams")
        if not (isinstance(self.gait, str) and self.gait in GAITS):
            raise InputError(f"WalkPlan: gait = {self.gait!r}, expected one of {', '.join(GAITS)}")
        changes = self.gait_changes
        if not (isinstance(changes, tuple | list) and all(
                isinstance(c, tuple | list) and len(c) == 2 and math.isfinite(as_float(c[0]))
                and isinstance(c[1], str) and c[1] in GAITS for c in changes)):
            raise InputError(f"WalkPlan: gait_changes = {changes!r}, expected ((t [s], gait name), ...) with "
                             f"the gaits among {', '.join(GAITS)}")

    def cycle(self, gait: str | None = None) -> StepCycle:
        """The step cycle whose stance speed is ``speed``: T_tr = L/V_tr and T_st = T_tr (1 − τ)/τ give
        V_st = L/T_st = V_tr τ/(1 − τ), so V_tr = V_st (1 − τ)/τ."""
        tau = wave_gait(gait or self.gait).tau
        v_tr = self.speed * (1.0 - tau) / tau
        return StepCycle(self.step_length, self.adaptation_height, v_tr, tau)


_STRAIGHT = np.zeros(4)


def _joint_targets(p: AntonParams, legs, feet_body: np.ndarray, body: np.ndarray = _STRAIGHT,
                   out: np.ndarray | None = None) -> np.ndarray:
    """Joint angles (22,) for the feet (6, 3) [m] in the middle segment's frame with the body joints
    at ``body`` (4,) [rad] (default straight; ``legs``: :func:`.model.leg_arrays`;
    :func:`._kinematics.joint_targets`); InputError out of reach."""
    q = np.empty(22) if out is None else out
    hips, yaws, segs = legs
    feet_body = np.asarray(feet_body, dtype=float)
    k = _K.joint_targets(body, hips, yaws, segs, p.coxa, p.femur, p.tibia, 0.5 * p.segment_gap, feet_body, q)
    if k >= 0:
        point = _K.in_hip_frame(body, hips, yaws, segs, 0.5 * p.segment_gap, k, *feet_body[k])
        raise leg_out_of_reach(p, point)
    return q


def standing_pose(plan: WalkPlan) -> np.ndarray:
    """q0 (nq,): the body at ``plan.height`` (``plan`` a :class:`WalkPlan`), feet on the rectangle touching
    the ground."""
    if not isinstance(plan, WalkPlan):
        raise InputError(f"ANTON standing_pose: 'plan' = {shown(plan)}, expected a WalkPlan")
    p = plan.params
    feet = np.column_stack([foot_layout("rectangle", plan.half_length, plan.half_width) + [plan.feet_x, 0.0],
                            np.full(6, p.foot_radius - plan.height)])
    q = np.zeros(7 + 22)
    q[2], q[6] = plan.height, 1.0
    q[7:] = _joint_targets(p, leg_arrays(p), feet)
    return q


class FootForceTracking:
    """Per-foot force tracking with the shank sensors (the primitive level's force feedback, §3.4):
    each supporting foot's vertical target moves by an offset integrating ``gain`` [m/(N s)] times
    its measured minus desired normal force, the desired forces being the minimum-norm support
    forces of (3.8)/(3.9) with friction cones (:class:`legsim.walking.SupportQP`, friction ``mu``)
    for the centre of mass the encoders give (the model's, in the middle segment's frame, the body
    taken level). Only the redistribution is tracked: the offsets are kept orthogonal to every plane
    over the feet (height and tilt are the posture loop's), so three feet, statically determinate,
    never move, and four to six share the load as the distribution asks. ``offsets`` (6,) [m] and
    ``desired`` (6,) [N] (NaN off support) are kept for analysis."""

    def __init__(self, params: AntonParams, gain: float, mu: float = 0.8):
        from ...multibody.dynamics import center_of_mass

        self.params, self.gain, self.mu = params, float(gain), float(mu)
        self._mb = build_model(params, floating=False)  # the middle segment is its fixed root
        self._data = self._mb.make_data()
        self._com = center_of_mass
        self._limbs = self._mb.total_mass()  # everything but the root, whose CoM is its origin
        self._mass = params.total_mass
        self._qps: dict[int, SupportQP] = {}
        self.offsets = np.zeros(6)
        self.desired = np.full(6, np.nan)

    def update(self, q_joints, feet_body: np.ndarray, support: np.ndarray, fz, dt: float) -> None:
        """One control tick: ``feet_body`` (6, 3) [m] from the encoders, ``support`` (6,) bool the feet
        that carry, ``fz`` (6,) [N] their measured normal forces."""
        idx = np.flatnonzero(support)
        self.offsets[~support] = 0.0
        self.desired[:] = np.nan
        if idx.size < 4:
            return
        qp = self._qps.get(idx.size) or self._qps.setdefault(idx.size, SupportQP(idx.size, self.mu))
        com = self._com(self._mb, self._data, np.asarray(q_joints, dtype=float)) * (self._limbs / self._mass)
        self.desired[idx] = qp.solve(feet_body[idx], self._mass, com)[:, 2]
        off = self.offsets[idx] + self.gain * dt * (np.asarray(fz)[idx] - self.desired[idx])
        self.offsets[idx] = off_plane(feet_body[idx, 0].tolist(), feet_body[idx, 1].tolist(), off.tolist())


class SurfaceFollowing:
    """The body segments on a smooth surface by (3.10) (§3.4.7): each inter-segment pitch joint takes
    the difference of the surface's slopes under the two segments it joins,
    φ_REF = φ_NORMAL^NEXT − φ_NORMAL^PREVIOUS (:func:`legsim.walking.segment_orientation`), so that
    every segment lies parallel to the ground under it.

    As in the source, the surface is estimated ahead (its near-navigation, an operator in practice):
    ``slope(x)`` [rad] the surface's pitch angle (uphill along +x positive) at world x [m] (arrays),
    looked up under each segment's centre at the robot's dead-reckoned position (``x0`` [m] at the
    start, then the gait's commanded advance). Footholds alone cannot give it: with three rows 0.2 m
    apart and the feet searching down in the troughs, the curvature they report on a 0.8 m wave came
    out a third of the true one (measured). The references pass a first-order filter of ``tau`` [s]
    and stay within ±``limit`` [rad]. ``body`` (4,): the current references (front yaw, pitch, rear
    yaw, pitch; the yaws 0), ``x`` [m] the position estimate.

    ``slope`` a function; ``x0`` [m] within ±:data:`~.model.MAX_DISTANCE`, ``segment_gap`` [m] in
    [0, MAX_DISTANCE]; ``tau`` [s] > 0; ``limit`` [rad] in [0, π]."""

    def __init__(self, slope, x0: float = 0.0, segment_gap: float = 0.2, tau: float = 0.2,
                 limit: float = 0.5):
        o = "SurfaceFollowing"
        if not callable(slope):
            raise InputError(f"{o}: 'slope' = {shown(slope)}, expected a function of x [m] (arrays) giving "
                             "the surface's pitch [rad]")
        self.slope = slope
        self.x = check_number(o, "x0", x0, lo=-MAX_DISTANCE, hi=MAX_DISTANCE)
        self.gap = check_number(o, "segment_gap", segment_gap, lo=0.0, hi=MAX_DISTANCE)
        self.tau = check_number(o, "tau", tau, lo=0.0, lo_open=True)
        self.limit = check_number(o, "limit", limit, lo=0.0, hi=math.pi)
        self.body = np.zeros(4)

    def update(self, advance: float, dt: float) -> np.ndarray:
        """One tick: the robot advanced ``advance`` [m] (within ±MAX_DISTANCE) along x since the last, in
        ``dt`` [s] (in [0, :data:`~.model.MAX_TICK`]). Returns :attr:`body`."""
        o = "SurfaceFollowing.update"
        advance = check_number(o, "advance", advance, lo=-MAX_DISTANCE, hi=MAX_DISTANCE)
        dt = check_number(o, "dt", dt, lo=0.0, hi=MAX_TICK)
        try:
            return self._update(advance, dt)
        except Exception as exc:  # the user's slope: say so, keep its traceback chained
            raise InputError(f"{o}: 'slope' failed or gave no 3 numbers at x = {self.x!r} m: "
                             f"{describe_failure(exc)}") from exc

    def _update(self, advance: float, dt: float) -> np.ndarray:
        """:meth:`update` unchecked, for the walker's tick."""
        from ...walking import segment_orientation

        self.x += advance
        under = self.slope(np.array([self.x + self.gap, self.x, self.x - self.gap]))
        front, middle, rear = (float(v) for v in under)
        a = min(dt / self.tau, 1.0)
        for j, seg in ((1, front), (3, rear)):  # a joint's positive pitch turns its segment nose-down
            target = -float(segment_orientation(seg, middle))
            self.body[j] += a * (min(max(target, -self.limit), self.limit) - self.body[j])
        return self.body


def off_plane(x: list[float], y: list[float], values: list[float]) -> list[float]:
    """``values`` at the points (x_i, y_i) [m] minus their least-squares plane a + b x + c y: the part
    orthogonal to every plane over the points (with the points on one line, to every line along it;
    at one point, the mean). On Python floats, centred (the normal equations decouple the constant):
    a 2 × 2 solve where ``np.linalg.lstsq`` on the (n, 3) basis cost 8 µs a tick, 2.7 µs here."""
    n = len(values)
    mx, my, mv = sum(x) / n, sum(y) / n, sum(values) / n
    sxx = sxy = syy = sxv = syv = 0.0
    for xi, yi, vi in zip(x, y, values, strict=True):
        dx, dy, dv = xi - mx, yi - my, vi - mv
        sxx += dx * dx
        sxy += dx * dy
        syy += dy * dy
        sxv += dx * dv
        syv += dy * dv
    det = sxx * syy - sxy * sxy
    if det > 1e-12 * (sxx + syy) ** 2:
        b = (sxv * syy - syv * sxy) / det
        c = (syv * sxx - sxv * sxy) / det
    else:  # collinear: the slope along the line (u along it; sxy² = sxx syy there)
        ux, uy = (sxx, sxy) if sxx >= syy else (sxy, syy)
        norm = ux * ux + uy * uy
        ss = (sxx * ux * ux + 2.0 * sxy * ux * uy + syy * uy * uy) / norm if norm > 0.0 else 0.0
        k = (sxv * ux + syv * uy) / (ss * norm) if ss > 0.0 else 0.0
        b, c = k * ux, k * uy
    return [vi - mv - b * (xi - mx) - c * (yi - my) for xi, yi, vi in zip(x, y, values, strict=True)]


def support_plane(feet: list, nominal: list, carrying: list) -> tuple[float, float, float] | None:
    """The least-squares plane r = a + b x + c y (normal equations) through the residuals
    r_k = z_k − ``nominal[k]`` of the feet ``feet[k]`` = (x, y, z) [m] (lists of Python floats: the
    controller's per-element arithmetic costs a fraction of numpy's on scalars) flagged in
    ``carrying``: (a [m], b, c), or None with fewer than three feet or the feet on one line. The
    posture loops' measure of how far the body sits off its nominal height and level."""
    n = sx = sy = sz = sxx = sxy = syy = sxz = syz = 0.0
    for k in range(6):
        if carrying[k]:
            x, y, z = feet[k][0], feet[k][1], feet[k][2] - nominal[k]
            n += 1.0
            sx, sy, sz, sxx, sxy, syy, sxz, syz = (sx + x, sy + y, sz + z, sxx + x * x, sxy + x * y,
                                                   syy + y * y, sxz + x * z, syz + y * z)
    if n < 3.0:
        return None
    det = n * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) + sy * (sx * sxy - sxx * sy)
    if abs(det) < 1e-12:  # the feet on one line: no plane
        return None
    # Cramer's rule on [[n, sx, sy], [sx, sxx, sxy], [sy, sxy, syy]] (a b c) = (sz sxz syz): np.linalg.solve
    # cost 33 µs a tick here, two thirds of this function (measured on the climb)
    a = (sz * (sxx * syy - sxy * sxy) - sx * (sxz * syy - sxy * syz) + sy * (sxz * sxy - sxx * syz)) / det
    b = (n * (sxz * syy - sxy * syz) - sz * (sx * syy - sxy * sy) + sy * (sx * syz - sxz * sy)) / det
    c = (n * (sxx * syz - sxz * sxy) - sx * (sx * syz - sxz * sy) + sz * (sx * sxy - sxx * sy)) / det
    return a, b, c


class StaticFeedforward:
    """The voltage of the static joint torques that carry the measured foot forces and the links'
    weights, for all 22 drives: τ = g(q) − Σ Jᵀ F by the recursive Newton-Euler algorithm on the model
    with the middle segment fixed and level (the multibody kernels, in one compiled call:
    :func:`._statics.static_torques`; the shank sensors' forces applied at the feet's lowest points),
    V = R/(η N k) τ. Unlike the walker's per-leg −Jᵀ F (:func:`._kinematics.load_feedforward`) it covers
    the body joints, which carry whole segments when the body climbs (:func:`.climb.climber`); ~6 µs a
    call against ~2 (~80 µs before it was compiled whole). (On the walker with
    :class:`SurfaceFollowing` it left the segments' misalignment with the surface as it was, 0.124
    against 0.128 rad at the rear, at 2.4 times the walk's cost: measured, not used there.)"""

    def __init__(self, params: AntonParams):
        if not isinstance(params, AntonParams):
            raise InputError(f"StaticFeedforward: 'params' = {shown(params)}, expected an AntonParams")
        self.params = params
        self._mb = build_model(params, floating=False)  # the middle segment is its root, level
        self._data = self._mb.make_data()
        self._tibias = np.array([self._mb.body_id(f"{leg}_tibia") for leg in LEGS], dtype=np.int64)
        self._foot = np.array([0.0, params.tibia, 0.0])
        self._fext = np.zeros((self._mb.nbody, 6))
        self._still = np.zeros(self._mb.nv)
        self._q = np.zeros(self._mb.nq)  # contiguous, writable copies of the sensor views: one
        self._shank = np.zeros(3 * len(LEGS))  # compiled variant of the kernel
        self._v_per_nm = _feedforward_gains()

    def __call__(self, enc: np.ndarray, shank: np.ndarray) -> np.ndarray:
        """Voltages (22,) [V] for the joint angles ``enc`` (22,) [rad] and the feet's forces
        ``shank`` (18,) [N, world axes, x y z per leg]."""
        self._q[:] = enc
        self._shank[:] = shank
        static_torques(*self._mb.kernel_buffers, self._data.buf, self._q, self._shank, self._tibias,
                       self._foot, float(self.params.foot_radius), self._fext, self._still)
        return self._v_per_nm * self._data.tau


def _feedforward_gains() -> np.ndarray:
    """V per N m of joint torque holding a load at stall, R / (η N k) (22,), from :func:`_motor`."""
    motors = [_motor(j) for j in joint_names()]
    return np.array([m.resistance / (m.efficiency * m.gear * m.torque_constant) for m in motors])


def walker(plan: WalkPlan, kp: float = 60.0, kd: float = 0.5, *, touch: float | None = 2.0,
           force_feedforward: bool = True, posture_gain: float = 5.0, force_gain: float = 0.0,
           follow_surface: SurfaceFollowing | None = None):
    """The controller ``(t, sensors) -> voltages (22,)`` [V]: stand until ``plan.start``, then walk.

    Primitive level (§3.4): each leg's :class:`LegCycle` point (s along x around its rectangle
    corner, h up from the nominal ground) from its gait phase, in the robot frame, then leg inverse
    kinematics. With ``touch`` [N] a leg enters support when its shank sensor's normal force exceeds
    it (contact-triggered stance; None: on the flat-ground timing), and the clearance adapts
    (:func:`adapt_clearance`, start logic step 5). The robot frame's clearance and inclination are
    held by an integral loop of gain ``posture_gain`` [1/s] (0: off) on the plane through the
    supporting feet as the encoders see them (:func:`feet_in_body`): its height against the nominal
    ``plan.height`` and its slopes against level (why: a loaded foot sinks into the rubber and the
    servo yields, so a touchdown height read at first contact overstates the support height by
    that sag; without this loop the body ratcheted down by it at every step, measured). Force
    feedback: with ``force_feedforward`` each leg's drives also get the voltage holding the load
    its shank sensor measures, V = R/(η N k) τ with τ = −Jᵀ F (:func:`leg_jacobian`; F turned into
    the hip frame by the hip's yaw alone: the body is kept level), halving the position loops' sag;
    with ``force_gain`` [m/(N s)] > 0 the supporting feet also track the support distribution's forces
    (:class:`FootForceTracking`, with four feet or more). With ``follow_surface`` (a
    :class:`SurfaceFollowing`) the front and rear segments follow the surface by (3.10); without, the
    body stays straight.
    Servo level: a PD on each drive's voltage
    (``kp`` [V/rad], ``kd`` [V s/rad]). Attributes kept on the function for analysis: ``gen`` (the
    gait generator), ``legs`` (the leg cycles), ``posture`` (3,) the robot frame's correction (height
    [m], slopes along x and y), ``forces`` (the :class:`FootForceTracking`, or None), ``bending`` (the
    :class:`SurfaceFollowing`, or None) and ``history``
    (t, support flags).
    """
    if not isinstance(plan, WalkPlan):
        raise InputError(f"ANTON walker: plan = {plan!r}, expected a WalkPlan")
    for name, value in (("kp", kp), ("kd", kd), ("posture_gain", posture_gain), ("force_gain", force_gain)):
        check_number("ANTON walker", name, value, lo=0.0)
    if touch is not None:
        check_number("ANTON walker", "touch", touch, lo=0.0, lo_open=True)
    force_feedforward = check_flag("ANTON walker", "force_feedforward", force_feedforward)
    if not (follow_surface is None or isinstance(follow_surface, SurfaceFollowing)):
        raise InputError(f"ANTON walker: follow_surface = {follow_surface!r}, expected None or a "
                         "SurfaceFollowing")
    p = plan.params
    centres = foot_layout("rectangle", plan.half_length, plan.half_width) + [plan.feet_x, 0.0]
    # standing (speed 0) never advances the gait: its generator and leg cycles get a nominal 0.1 m/s cycle
    cyc = plan.cycle() if plan.speed > 0.0 else dataclasses.replace(plan, speed=0.1).cycle()
    gen = GaitGenerator(wave_gait(plan.gait), cyc.period)
    legs = [LegCycle(cyc) for _ in LEGS]
    cycles = {plan.gait: cyc}
    changes = sorted(plan.gait_changes)
    heading = (math.cos(plan.direction), math.sin(plan.direction))
    side_scale = [1.0 - plan.turn if leg[0] == "L" else 1.0 + plan.turn for leg in LEGS]
    dt = 1e-3
    z0 = p.foot_radius - plan.height  # the feet's centres on the nominal ground, body frame
    history: list[tuple[float, np.ndarray]] = []
    posture = np.zeros(3)
    v_per_nm = _feedforward_gains()
    legs_k = seg_hips, seg_yaws, segs = leg_arrays(p)
    half_gap = 0.5 * p.segment_gap
    tracking = FootForceTracking(p, force_gain) if force_gain > 0.0 else None
    bending = follow_surface
    advance = dt * plan.speed * heading[0]  # the dead reckoning of a tick's walk along x
    measured = np.empty((6, 3))  # scratch of the compiled kinematics (._kinematics), reused every tick
    targets, v_ff, jac, feet = np.empty(22), np.empty(22), np.empty((3, 3)), np.empty((6, 3))
    centre_list = centres.tolist()
    nominal_ground = [z0] * 6  # the feet's centres on the nominal ground, body frame

    def level(feet_body: list, carrying) -> None:
        """One step of the posture loop: the plane through the supporting feet's heights over the
        nominal ground (:func:`support_plane`), integrated into the robot frame's correction.
        ``feet_body``: the feet (6 x 3) as lists of floats."""
        plane = support_plane(feet_body, nominal_ground, carrying)
        if plane is not None:
            posture[0] -= posture_gain * dt * plane[0]
            posture[1] -= posture_gain * dt * plane[1]
            posture[2] -= posture_gain * dt * plane[2]

    def walk(t, s, measured: list) -> None:
        """The primitive level's gait: generator, leg cycles (contact-triggered), clearance;
        ``measured``: the feet in the body frame (6 x 3 lists of floats)."""
        while changes and t >= changes[0][0]:
            name = changes.pop(0)[1]
            cycles[name] = plan.cycle(name)
            gen.set_gait(wave_gait(name), cycles[name].period)
        support = gen.step(dt)
        if legs[0].cycle is not cycles[gen.gait.name]:  # the change took effect this tick
            for leg in legs:
                leg.cycle = cycles[gen.gait.name]
        phase, flags, shank = gen.phase.tolist(), support.tolist(), s.shank.tolist()
        p0, p1, p2 = posture.tolist()
        for k, leg in enumerate(legs):
            if touch is None:
                leg.update(phase[k], 0.0, not flags[k], dt)
                continue
            x, y, z = measured[k]
            felt = z - z0 - p0 - p1 * x - p2 * y  # in the robot frame
            leg.update(phase[k], 0.0, not flags[k], dt, touch=shank[3 * k + 2] > touch, felt=felt)
        if touch is not None:
            adapt_clearance(legs)
        history.append((t, support.copy()))

    def controller(t, s):
        walking = t >= plan.start and plan.speed != 0.0
        _K.feet_in_body(s.enc, seg_hips, seg_yaws, segs, p.coxa, p.femur, p.tibia, half_gap, measured)
        feet_now = measured.tolist()
        if walking:
            walk(t, s, feet_now)
        else:
            history.append((t, np.ones(6, dtype=bool)))
        fz = s.shank[2::3]
        carrying = np.array([leg.in_contact for leg in legs]) & (fz > (touch or 0.0))
        if posture_gain > 0.0:
            level(feet_now, carrying.tolist())
        if tracking is not None:
            tracking.update(s.enc, measured, carrying, fz, dt)
        p0, p1, p2 = posture.tolist()
        offsets = tracking.offsets.tolist() if tracking is not None else [0.0] * 6
        for k, leg in enumerate(legs):
            step = leg.s * side_scale[k] if walking else 0.0
            x, y = centre_list[k][0] + step * heading[0], centre_list[k][1] + step * heading[1]
            z = z0 + (leg.h if walking else 0.0) + p0 + p1 * x + p2 * y
            feet[k] = x, y, z + offsets[k]
        body = bending._update(advance if walking else 0.0, dt) if bending is not None else _STRAIGHT
        v = kp * (_joint_targets(p, legs_k, feet, body, out=targets) - s.enc) - kd * s.rate
        if force_feedforward:
            _K.load_feedforward(s.enc, s.shank, seg_yaws, p.coxa, p.femur, p.tibia, v_per_nm, jac, v_ff)
            v += v_ff
        return np.clip(v, -V_SUPPLY, V_SUPPLY)

    controller.gen = gen  # type: ignore[attr-defined]
    controller.legs = legs  # type: ignore[attr-defined]
    controller.posture = posture  # type: ignore[attr-defined]
    controller.forces = tracking  # type: ignore[attr-defined]
    controller.bending = bending  # type: ignore[attr-defined]
    controller.history = history  # type: ignore[attr-defined]
    return controller


def support_track(robot: Robot, result, every: int = 10, contact_force: float = 2.0) -> dict[str, np.ndarray]:
    """The run's balance record (every ``every``-th record): ``t`` (n,) [s]; ``com`` (n, 3) [m], the
    whole-body centre of mass; ``feet`` (n, 6, 3) [m], the foot spheres' centres, and ``fn`` (n, 6)
    [N], their normal forces, in :data:`LEGS` order; ``fn_body`` (n,) [N], the normal force on the
    body's contact points (0 without ``body_contact``); ``margin`` (n,) [m], the signed distance of the
    CoM's ground projection inside the polygon of the contact points (feet, and body corners) carrying
    more than ``contact_force`` [N] (:func:`legsim.walking.support_margin`; NaN with fewer than three
    or all on one line). ``robot``: ANTON's :class:`~legsim.assembly.Robot`; ``result``: its run (a
    :class:`~legsim.hybrid.Result`, or its run directory read back, :func:`legsim.io.load_run`); ``every`` a
    whole number >= 1; ``contact_force`` [N] a finite number >= 0."""
    from ...multibody.dynamics import center_of_mass
    from ...walking import support_margin
    from ...world._points import contact_points

    o = "ANTON support_track"
    if not isinstance(robot, Robot):
        raise InputError(f"{o}: 'robot' = {shown(robot)}, expected ANTON's legsim.assembly.Robot "
                         "(build_robot)")
    robot.check_run(o, result)
    every = check_whole(o, "every", every, lo=1)
    contact_force = check_number(o, "contact_force", contact_force, lo=0.0)  # [N]
    mb = robot.mb
    data = mb.make_data()
    points = contact_points(mb, contact_geometries(mb, robot.contacts))
    foot_rows = [next(i for i, pt in enumerate(points) if pt[0] == f"{leg}_foot") for leg in LEGS]
    body_rows = [i for i in range(len(points)) if i not in foot_rows]
    rows = np.arange(0, len(result.t), every)
    q = np.column_stack([result.state(n) for n in robot.model.state_names[:mb.nq]])[rows]
    fn = np.column_stack([result.output(f"fn_{pt[0]}") for pt in points])[rows]
    com = np.empty((len(rows), 3))
    where = np.empty((len(rows), len(points), 3))
    margin = np.full(len(rows), np.nan)
    for k, qk in enumerate(q):
        com[k] = center_of_mass(mb, data, qk)  # runs the forward kinematics the points read
        where[k] = [data.op[b] + data.oR[b] @ c for _, b, c, _, _ in points]
        on = fn[k] > contact_force
        if on.sum() >= 3:
            try:
                margin[k] = support_margin(com[k, :2], where[k, on, :2])
            except InputError:  # the carrying points on one line
                pass
    return {"t": np.asarray(result.t)[rows], "com": com, "feet": where[:, foot_rows], "fn": fn[:, foot_rows],
            "fn_body": fn[:, body_rows].sum(axis=1), "margin": margin}
