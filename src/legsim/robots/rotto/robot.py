"""ROTTO on the assembly layer: its drives as a position loop per linear drive, and static walking
with the centre of mass kept over the support (Konyev 2011 §4.1–4.3; contact digest §4.3).

The engine sees each joint's torque (a :class:`~legsim.assembly.TorqueSource` per joint); the
drives live in the servo level (:class:`DriveServo`), at the control period: each drive's rod
length is measured through :mod:`.linkage` from the joint encoders, a PD loop per drive gives its
force, clipped to what the drive gives at its speed (400 N at most, the motor's torque–speed line
through 128 N at 0.64 m/s to 0.72 m/s), and the rods' Jacobians turn the forces into joint torques,
τ = Jᵀ F, so a parallel pair's two forces add on both its axes. The rotors' inertia reflected
through the rods is the joints' armature (:func:`.model.armature`).

The walk (:class:`StaticWalk`, :func:`walker`) is the source's static walking (§4.4: "static
walking of biped robot ROTTO"): the pelvis moves so that the whole-body centre of mass is over the
stance foot's centre before the other foot lifts (§4.3: "stabilisation of COM ... inside the
supporting polygon", the CoM computed from the model as in §3.4.4), the swing foot steps, the
CoM moves over the next stance foot in double support. :func:`zmp_track` computes the zero-moment
point from the feet's contact forces, as the source's F/T sensors give it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...assembly import (
    IMU,
    ContactForce,
    Contacts,
    JointEncoder,
    JointVelocity,
    Measurement,
    Robot,
    TorqueSource,
)
from ...contact import ContactLaw, coulomb, hunt_crossley
from ...multibody import center_of_mass
from ...walking.balance import support_margin
from . import _drives
from .linkage import STALL_FORCE, Drive, leg_drives
from .model import build_model, hip_centre, joint_names, leg_ik, pad_names, pad_positions
from .params import DRIVE_F_MAX, DRIVE_V_MAX, JOINTS, LEGS, T_SAMPLE, RottoParams

__all__ = ["build_robot", "DriveServo", "StaticWalk", "walker", "standing_pose", "support_track",
           "balance_summary"]


def _torque_limit(drives: list[Drive]) -> np.ndarray:
    """Each leg joint's largest torque (6,) [N m] at q = 0: Σ |J_ij| · 400 N over its drives."""
    out = np.zeros(len(JOINTS))
    for d in drives:
        out[list(d.joints)] += np.abs(d.jacobian(np.zeros(len(d.joints)))) * DRIVE_F_MAX
    return out


def build_robot(params: RottoParams | None = None, *, mu: float = 0.8, path: str = "smooth") -> Robot:
    """ROTTO with a torque source per joint (the drives' joint torques, bounded by their 400 N at the
    zero posture's lever arms), absolute joint encoders (12 bits per turn), joint rates, the feet's
    contact forces on the four pads of each sole, and the body's inertial sensor; rubber pads
    (Hunt–Crossley, Coulomb friction ``mu``; placeholders) on the ground z = 0."""
    p = params or RottoParams()
    mb = build_model(p)
    joints = joint_names()
    limit = np.tile(_torque_limit(leg_drives(p)), 2)
    actuators = [TorqueSource(j, j, lo=-lim, hi=lim) for j, lim in zip(joints, limit, strict=True)]
    sensors = [JointEncoder("enc", joints=joints, measurement=Measurement(bits=12, lo=-math.pi, hi=math.pi)),
               JointVelocity("rate", joints=joints),
               ContactForce("pads", geometries=pad_names()),
               IMU("imu", body="pelvis")]
    law = ContactLaw(hunt_crossley(3e7, 1.0), coulomb(mu, 1e-2))
    return Robot(mb, actuators=actuators, sensors=sensors,
                 contacts=Contacts(law, geometries=pad_names(), path=path))


class DriveServo:
    """The servo level: a PD position loop per linear drive, ``F = k (l_ref − l) − c l̇`` [N], with
    ``k`` [N/m] and ``c`` [N s/m], clipped to the drive's force at its rod speed
    (:func:`.linkage.clip_drive_force`), then ``τ = Jᵀ F`` per leg (compiled: :mod:`._drives`).
    ``__call__(q_ref, q, qd)`` takes the 12 joints' reference, measured angles [rad] and rates
    [rad/s] and returns their torques (12,) [N m]; :attr:`force` holds the last drive forces (12,)
    [N] (the left leg's :func:`.linkage.leg_drives`, then the right's)."""

    def __init__(self, params: RottoParams | None = None, stiffness: float = 1e6, damping: float = 5e3):
        drives = leg_drives(params)
        rows = [d.table(leg * len(JOINTS)) for leg in range(len(LEGS)) for d in drives]
        self.joints = np.array([r[0] for r in rows])
        self.axes = np.array([r[1] for r in rows])
        self.anchors = np.array([d.anchor for _ in LEGS for d in drives], dtype=float)
        self.levers = np.array([d.lever for _ in LEGS for d in drives], dtype=float)
        self.k, self.c = float(stiffness), float(damping)
        self.force = np.zeros(len(rows))
        self.tau = np.zeros(len(LEGS) * len(JOINTS))

    def __call__(self, q_ref, q, qd) -> np.ndarray:
        _drives.servo(np.asarray(q_ref, dtype=float), q, qd, self.joints, self.axes, self.anchors,
                      self.levers, self.k, self.c, DRIVE_F_MAX, STALL_FORCE, DRIVE_V_MAX, self.tau,
                      self.force)
        return self.tau


@dataclass(frozen=True)
class StaticWalk:
    """The action level: ``steps`` steps, each swing foot landing ``step_length``/2 [m] ahead of the
    stance foot (the first and the last step half as long: the feet start and end side by side),
    the swing foot lifted ``clearance`` [m] (the height (1 − cos 2πs)/2 of the swing's progress s: it
    leaves and lands at zero vertical speed); each step a CoM
    ``shift`` [s] in double support then a ``swing`` [s] in single support; ``height`` of the hip
    centres over the ground [m]; ``start`` [s] of standing first. The feet stand ``stance_width``
    [m] apart (centre to centre)."""

    steps: int = 4
    step_length: float = 0.10
    clearance: float = 0.04
    shift: float = 2.0
    swing: float = 1.0
    height: float = 0.66
    stance_width: float = 0.18
    start: float = 0.5
    params: RottoParams = field(default_factory=RottoParams)

    @property
    def duration(self) -> float:
        """[s] from the start to standing still on both feet again."""
        return self.start + self.steps * (self.shift + self.swing) + self.shift


def _smooth(s: float) -> float:
    """Minimum-jerk blend 10 s³ − 15 s⁴ + 6 s⁵ on [0, 1]."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


class _Plan:
    """Keyframes of the walk: the pelvis (x, y) [m] and both feet's sole points under the ankles
    (2, 3) [m] at each phase's end, the swing leg of each phase (-1: none)."""

    def __init__(self, walk: StaticWalk):
        self.walk = walk
        p = walk.params
        self.mb = build_model(p)
        self.data = self.mb.make_data()
        w = 0.5 * walk.stance_width
        feet = np.array([[-p.foot_x, w, 0.0], [-p.foot_x, -w, 0.0]])
        self.times = [0.0, walk.start]
        self.feet = [feet.copy(), feet.copy()]
        self.swing_leg = [-1, -1]
        self.com = [self.support_centre(feet, None)] * 2
        self.pelvis = [self.balance(feet, None), self.balance(feet, None)]
        t = walk.start
        for k in range(walk.steps):
            swing = 1 if k % 2 == 0 else 0  # the right foot steps first
            stance = 1 - swing
            t += walk.shift
            self._add(t, feet, -1, stance)
            closing = k == walk.steps - 1 and walk.steps > 1  # the last step brings the feet together
            feet = feet.copy()
            feet[swing, 0] = feet[stance, 0] + (0.0 if closing else 0.5 * walk.step_length)
            t += walk.swing
            self._add(t, feet, swing, stance)
        t += walk.shift
        self._add(t, feet, -1, None)

    def _add(self, t: float, feet: np.ndarray, swing: int, stance: int | None) -> None:
        self.times.append(t)
        self.feet.append(feet.copy())
        self.swing_leg.append(swing)
        self.com.append(self.support_centre(feet, stance))
        self.pelvis.append(self.balance(feet, stance))

    def support_centre(self, feet: np.ndarray, stance: int | None) -> np.ndarray:
        """The point (2,) [m] the CoM goes over: the stance foot's sole centre, or the middle of both."""
        centres = feet[:, :2] + [self.walk.params.foot_x, 0.0]
        return centres.mean(axis=0) if stance is None else centres[stance]

    def pose(self, pelvis_xy, feet: np.ndarray) -> np.ndarray:
        """q (19,) with the pelvis level at (x, y, height) and the feet's soles at ``feet``."""
        p = self.walk.params
        q = np.zeros(7 + 12)
        q[0], q[1] = pelvis_xy
        q[2] = self.walk.height + p.hip_z + p.yaw_link
        q[6] = 1.0
        for leg in range(2):
            hip = q[:3] + hip_centre(p, LEGS[leg])
            q[7 + 6 * leg:13 + 6 * leg] = leg_ik(p, feet[leg] + [0.0, 0.0, p.ankle_height] - hip)
        return q

    def balance(self, feet: np.ndarray, stance: int | None) -> np.ndarray:
        """The pelvis (x, y) [m] putting the whole-body CoM over :meth:`support_centre` (fixed-point
        iteration: the CoM follows the pelvis at about its mass share, so each pass cuts the error)."""
        target = self.support_centre(feet, stance)
        xy = target.copy()
        for _ in range(60):
            com = center_of_mass(self.mb, self.data, self.pose(xy, feet))[:2]
            err = target - com
            if float(np.max(np.abs(err))) < 1e-6:
                break
            xy = xy + err
        return xy

    def com_at(self, t: float) -> np.ndarray:
        """The planned CoM projection (2,) [m] at ``t``: the support centres blended as the pelvis is."""
        k = int(np.searchsorted(self.times, t, side="right"))
        if k >= len(self.times):
            return self.com[-1]
        b = _smooth((t - self.times[k - 1]) / (self.times[k] - self.times[k - 1]))
        return (1 - b) * self.com[k - 1] + b * self.com[k]

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray, int, float]:
        """(pelvis (x, y), feet (2, 3), swing leg or -1, the phase's progress in [0, 1]) at ``t`` [s]."""
        k = int(np.searchsorted(self.times, t, side="right"))
        if k >= len(self.times):
            return self.pelvis[-1], self.feet[-1], -1, 1.0
        t0, t1 = self.times[k - 1], self.times[k]
        s = (t - t0) / (t1 - t0)
        b = _smooth(s)
        pelvis = (1 - b) * self.pelvis[k - 1] + b * self.pelvis[k]
        feet = (1 - b) * self.feet[k - 1] + b * self.feet[k]
        swing = self.swing_leg[k]
        if swing >= 0:
            lift = 0.5 * (1.0 - math.cos(2.0 * math.pi * min(max(s, 0.0), 1.0)))
            feet[swing, 2] += self.walk.clearance * lift
        return pelvis, feet, swing, s


def standing_pose(walk: StaticWalk) -> np.ndarray:
    """q0 (19,): the walk's first keyframe (feet side by side, the CoM between them)."""
    plan = _Plan(walk)
    return plan.pose(plan.pelvis[0], plan.feet[0])


def walker(walk: StaticWalk, servo: DriveServo | None = None, force_gain: float = 1e-4,
           max_offset: float = 0.01):
    """The controller ``(t, sensors) -> joint torques (12,)`` [N m] of the static walk: the plan's
    pelvis and feet at ``t`` → leg inverse kinematics (pelvis level, feet flat) → the drives'
    position loops (:class:`DriveServo`).

    Balance: the plan puts the CoM over the stance foot before the other lifts. The feet's
    vertical forces (the pads' force sensors) close one loop at the primitive level (§3.4 "force
    and compliance feedback"): while both feet touch, the split of the weight between them is made
    the one the planned CoM implies (the lever rule across the feet), by raising one foot's target
    and lowering the other's, ``ż_off = force_gain (F_R − F_R*)`` [m/(N s)] (a foot pressing more
    than its share is lifted), within ±``max_offset`` [m]. Without it a stiff position-controlled
    biped lands each step on a foot a millimetre too low and rolls over the stance sole's edge.
    ``force_gain`` 0 turns it off. Kept on the function for analysis: ``plan`` (keyframes:
    ``times``, ``pelvis``, ``feet``, ``swing_leg``, ``com``), ``servo``, ``offset`` (the right
    foot's height offset [m]; the left's is its negative) and ``peak_force`` (the largest drive
    force so far [N])."""
    plan = _Plan(walk)
    servo = servo or DriveServo(walk.params)
    offset = np.zeros(1)
    weight = 9.81 * walk.params.total_mass

    def controller(t, s):
        pelvis, feet, _, _ = plan.at(t)
        fz = s.pads[2::3]
        f_left, f_right = float(fz[:4].sum()), float(fz[4:].sum())
        if force_gain > 0.0 and min(f_left, f_right) > 0.05 * weight:
            y_left, y_right = feet[0, 1], feet[1, 1]
            share = min(max((y_left - plan.com_at(t)[1]) / (y_left - y_right), 0.0), 1.0)
            rate = force_gain * (f_right - share * (f_left + f_right))
            offset[0] = min(max(offset[0] + rate * T_SAMPLE, -max_offset), max_offset)
        feet[0, 2] -= offset[0]
        feet[1, 2] += offset[0]
        tau = servo(plan.pose(pelvis, feet)[7:], s.enc, s.rate)
        controller.peak_force = max(controller.peak_force, float(np.max(np.abs(servo.force))))  # type: ignore
        return tau

    controller.plan = plan  # type: ignore[attr-defined]
    controller.servo = servo  # type: ignore[attr-defined]
    controller.peak_force = 0.0  # type: ignore[attr-defined]
    controller.offset = offset  # type: ignore[attr-defined]
    return controller


def support_track(robot: Robot, result, params: RottoParams | None = None, every: int = 1,
                  contact_force: float = 1.0) -> dict[str, np.ndarray]:
    """The walk's balance record (every ``every``-th record): ``t`` (n,) [s]; ``com`` (n, 3) [m], the
    whole-body centre of mass; ``zmp`` (n, 2) [m], the zero-moment point on the flat ground, the
    centre of pressure of the pads' normal forces Σ f_i p_i / Σ f_i (on flat ground the ZMP of the
    feet's F/T sensors, [Zav08]; NaN when nothing touches); ``pads`` (n, 8, 3) [m], the pads' contact
    points (the spheres' lowest points) and ``fn`` (n, 8) [N], their normal forces, in
    :func:`.model.pad_names` order; ``margin_com`` and ``margin_zmp`` (n,) [m], the signed distances
    of the CoM's projection and of the ZMP inside the support polygon (the convex hull of the pads
    pressing with more than ``contact_force`` [N]; NaN with fewer than three: the sole on an edge or
    in the air); ``tilt`` (n,) [rad], the pelvis' angle from upright."""
    p = params or RottoParams()
    mb = build_model(p)
    data = mb.make_data()
    local = pad_positions(p) - [0.0, 0.0, p.sole_radius]
    feet = [mb.body_id(f"{leg}_foot") for leg in LEGS]
    rows = np.arange(0, len(result.t), every)
    q = np.column_stack([result.state(n) for n in robot.model.state_names[:mb.nq]])[rows]
    fn = np.column_stack([result.output(f"fn_{name}") for name in pad_names()])[rows]
    quat = q[:, 3:7]  # x, y, z, w
    tilt = 2.0 * np.arcsin(np.clip(np.hypot(quat[:, 0], quat[:, 1]), 0.0, 1.0))
    com = np.empty((len(rows), 3))
    pads = np.empty((len(rows), 8, 3))
    for k, qk in enumerate(q):
        com[k] = center_of_mass(mb, data, qk)
        for leg, b in enumerate(feet):
            pads[k, 4 * leg:4 * leg + 4] = data.op[b] + local @ data.oR[b].T
    total = fn.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        zmp = np.einsum("ni,nij->nj", fn, pads[:, :, :2]) / total[:, None]
    margin_com = np.full(len(rows), np.nan)
    margin_zmp = np.full(len(rows), np.nan)
    for k in range(len(rows)):
        touching = pads[k, fn[k] > contact_force, :2]
        if len(touching) >= 3:
            margin_com[k] = support_margin(com[k, :2], touching)
            margin_zmp[k] = support_margin(zmp[k], touching)
    return {"t": np.asarray(result.t)[rows], "com": com, "zmp": zmp, "pads": pads, "fn": fn,
            "margin_com": margin_com, "margin_zmp": margin_zmp, "tilt": tilt}


def balance_summary(track: dict[str, np.ndarray], t_from: float = 0.1) -> dict[str, float]:
    """Figures of a :func:`support_track` from ``t_from`` [s] on (the robot starts with its pads just
    touching, unloaded: the first records settle it): the smallest CoM and ZMP margins [m] (a record
    with fewer than three pads touching counts as −inf: the sole on an edge), the fraction of
    records whose ZMP margin is under 5 mm (the sole about to roll over an edge), the largest
    pelvis tilt [rad] and the CoM's advance along x [m]."""
    keep = track["t"] >= t_from
    com_m = np.nan_to_num(track["margin_com"][keep], nan=-np.inf)
    zmp_m = np.nan_to_num(track["margin_zmp"][keep], nan=-np.inf)
    return {"com_margin_min_m": float(com_m.min()), "zmp_margin_min_m": float(zmp_m.min()),
            "zmp_at_edge_fraction": float(np.mean(zmp_m < 5e-3)), "tilt_max_rad": float(track["tilt"].max()),
            "advance_m": float(track["com"][-1, 0] - track["com"][0, 0])}
