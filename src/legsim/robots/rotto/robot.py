"""ROTTO on the assembly layer: its drives as PMSM drives on rods, and static walking with the centre
of mass kept over the support (Konyev 2011 §4.1–4.3; contact digest §4.3).

Each linear drive is a :class:`~legsim.assembly.PMSMDrive` (ROTTO's actuator: belt 2, ball screw,
the drive library's motor, :attr:`.params.RottoParams.drive`) on a :class:`~legsim.assembly.Rod`
from its anchor to its lever (:func:`.linkage.drive_rods`): the engine turns each rod force into
joint torques τ = Jᵀ F (so a parallel pair's two forces add on both its axes), and each drive runs
its own position loop on the rod length, ``F* = clip(kp (l_ref − l) − kd l̇, ±400 N)`` (the
servo level, §3.4, in the engine), then its current: ``mode="ideal"`` (i_q = F*/g within the
current limit and the voltage circle at this speed: 400 N up to ~0.45 m/s, 128 N at 0.64 m/s,
0 at 0.72 m/s emerge from the motor model) or ``"current_loop"`` (the 28 kHz PI as its averaged
continuous equivalent, with the dq winding dynamics). The rotors' inertia reflected through the
rods is the joints' armature (:func:`.model.armature`).

The walk (:class:`StaticWalk`, :func:`walker`) is the source's static walking (§4.4: "static
walking of biped robot ROTTO"): the pelvis moves so that the whole-body centre of mass is over the
stance foot's centre before the other foot lifts (§4.3: "stabilisation of COM ... inside the
supporting polygon", the CoM computed from the model as in §3.4.4), the swing foot steps, the
CoM moves over the next stance foot in double support; the controller sends each drive its rod
length target from the legs' inverse kinematics. :func:`support_track` computes the zero-moment
point from the feet's contact forces, as the source's F/T sensors give it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...assembly import (
    IMU,
    ROTTO_FT_ROTATION,
    WRENCH_CHANNELS,
    ContactForce,
    Contacts,
    IncrementalEncoder,
    JointEncoder,
    JointVelocity,
    LimitSwitch,
    Measurement,
    PMSMDrive,
    Robot,
    rotto_ft_sensor,
)
from ...assembly.components import _choice
from ...contact import ContactLaw, anchor_spring, hunt_crossley
from ...errors import InputError, as_float, check_fields, check_flag, check_number, check_whole, shown
from ...hybrid import Options, Result
from ...multibody import center_of_mass
from ...walking import Gait, GaitGenerator, LegCycle, StepCycle
from ...walking.balance import support_margin, zmp_from_wrenches
from . import _drives
from .linkage import _rotto_model, drive_rods, leg_drives
from .model import _params, build_model, hip_centre, joint_names, leg_ik, pad_names, pad_positions
from .params import DRIVE_F_MAX, JOINTS, LEGS, T_SAMPLE, RottoParams

__all__ = ["build_robot", "drive_names", "drive_strokes", "STEP", "RodTargets", "StaticWalk", "walker",
           "standing_pose", "support_track", "balance_summary", "peak_drive_force", "SERVO_KP", "SERVO_KD"]

STEP = 2.5e-4
"""ROTTO's integrator: fixed-step RK4 at this step [s] with its contacts' events located (BENCHMARKS
"ROTTO drives", session 17). Over 6 s of the walk (15 contact events) it stays within 0.03 µm (pelvis),
1.5e-7 rad (joints) and 0.007 N (pad forces, of 300 N) of DP45 at rtol 1e-9, with ideal drives and with
the current loops alike, where DP45 at rtol 1e-7 resolves each current transient after every 1 kHz
command at 5.4x the cost. The current loops' fastest pole (-2 pi 1 kHz) keeps RK4 stable below 0.44 ms
(at 0.5 ms the loop diverges: measured)."""

MAX_STROKE_GRID = 100
"""The most grid points per joint :func:`drive_strokes` takes (2 find a pair's corners)."""

SERVO_KP, SERVO_KD = 1e6, 5e3
"""The drives' position loop on the rod length: kp [N/m], kd [N s/m] (placeholders, ours: the source
gives no gains; a 0.4 mm error commands the full 400 N)."""


def drive_names() -> list[str]:
    """The drives' names (24): ``<leg>_<drive>``, left leg's :func:`.linkage.leg_drives` then the right's."""
    return [f"{leg}_{d.name}" for leg in LEGS for d in leg_drives()]


def drive_strokes(mb, params: RottoParams | None = None, n: int = 9) -> np.ndarray:
    """(24, 2) [m]: each drive's shortest and longest rod over its joints' ranges (the joints' limits in
    ``mb``, a grid of ``n`` points per joint; a pair's extremes lie at corners of its joints' box). The
    drives' limit switches sit there (placeholder: the source gives no strokes; the switches then mark
    the joints' ends, as a drive's stroke ends would). ``mb``: ROTTO's multibody model
    (:func:`.model.build_model`); ``params``: None (the defaults) or a :class:`RottoParams`; ``n`` in
    [2, :data:`MAX_STROKE_GRID`]."""
    o = "ROTTO drive_strokes"
    _rotto_model(o, mb)
    names = list(mb.jnt_names)
    if params is not None:
        _params(o, params, "params")
    n = check_whole(o, "n", n, lo=2, hi=MAX_STROKE_GRID)
    a = mb.arrays
    out = []
    for leg in range(len(LEGS)):
        for d in leg_drives(params):
            ranges = [a.dof_range[int(a.jnt_dofadr[names.index(f"{LEGS[leg]}_{JOINTS[j]}")])]
                      for j in d.joints]
            grid = np.meshgrid(*[np.linspace(lo, hi, n) for lo, hi in ranges], indexing="ij")
            lengths = [d.length(q) for q in np.stack([g.ravel() for g in grid], axis=1)]
            out.append((min(lengths), max(lengths)))
    return np.array(out)


def build_robot(params: RottoParams | None = None, *, mu: float = 0.8, path: str = "event",
                mode: str = "ideal", drive_sensors: bool = False) -> Robot:
    """ROTTO with a :class:`~legsim.assembly.PMSMDrive` on each drive's rod (``mode`` ``"ideal"`` or
    ``"current_loop"``; the position loop :data:`SERVO_KP`, :data:`SERVO_KD`, 400 N), absolute joint
    encoders (12 bits per turn), joint rates, the feet's contact forces on the four pads of each sole,
    the body's inertial sensor, a six-axis force/torque sensor per foot (``L_ft``, ``R_ft``: Table 4.1,
    :func:`~legsim.assembly.rotto_ft_sensor`, at the ankle centre on the foot, so that it reads the sole's
    pads and not the ankle drives; the source's sits on the shank just above) and the drives'
    currents; rubber pads (Hunt–Crossley, Coulomb friction
    ``mu``; placeholders) on the ground z = 0. ``drive_sensors``: also each drive's incremental encoder
    on its motor shaft (``counts``: the actuator's counts per turn x belt / lead per metre of rod) and
    two limit switches (``stroke_min``, ``stroke_max``, at :func:`drive_strokes`), as the source lists
    per actuator (§4.1); off by default, since the walk does not read them. The robot runs with
    fixed-step RK4 at :data:`STEP` unless ``simulate`` is given other options."""
    p = RottoParams() if params is None else params
    if not isinstance(p, RottoParams):
        raise InputError(f"ROTTO: params = {params!r}, expected None or a RottoParams")
    check_number("ROTTO", "mu", mu, lo=0.0, lo_open=True)
    _choice("ROTTO", "path", path, ("smooth", "event"))
    drive_sensors = check_flag("ROTTO", "drive_sensors", drive_sensors)
    mb = build_model(p)
    joints = joint_names()
    names = drive_names()
    actuators = [PMSMDrive.rotto(n, rod, actuator=p.drive, mode=mode, command="position", kp=SERVO_KP,
                                 kd=SERVO_KD, force_limit=DRIVE_F_MAX)
                 for n, rod in zip(names, drive_rods(mb, p), strict=True)]
    sensors = [JointEncoder("enc", joints=joints, measurement=Measurement(bits=12, lo=-math.pi, hi=math.pi)),
               JointVelocity("rate", joints=joints),
               ContactForce("pads", geometries=pad_names()),
               IMU("imu", body="pelvis"),
               *(rotto_ft_sensor(f"{leg}_ft", f"{leg}_foot", pads, seed=k + 1)
                 for k, (leg, pads) in enumerate(zip(LEGS, (pad_names()[:4], pad_names()[4:]), strict=True)))]
    if drive_sensors:
        strokes = drive_strokes(mb, p)
        sensors += [IncrementalEncoder("counts", actuators=names,
                                       counts_per_unit=p.drive.counts_per_turn * p.drive.belt / p.drive.lead),
                    LimitSwitch("stroke_min", actuators=names, positions=tuple(strokes[:, 0]), side="lower"),
                    LimitSwitch("stroke_max", actuators=names, positions=tuple(strokes[:, 1]))]
    law = ContactLaw(hunt_crossley(3e7, 1.0), anchor_spring(mu, 5e4))
    return Robot(mb, actuators=actuators, sensors=sensors,
                 contacts=Contacts(law, geometries=pad_names(), path=path),
                 options=Options(method="rk4_fixed", h_max=STEP, record_period=T_SAMPLE))


_Q_SHAPE = (len(LEGS) * len(JOINTS),)
"""The shape of ROTTO's joint angles (12,): both legs' joints."""


class RodTargets:
    """The drives' rod lengths (24,) [m] for the 12 joint angles ``q`` [rad] (robot joint order),
    compiled (:mod:`._drives`): the controller's commands to the drives' position loops. ``params``: None
    (the defaults) or a :class:`RottoParams`."""

    def __init__(self, params: RottoParams | None = None):
        if params is not None:
            _params("ROTTO RodTargets", params, "params")
        drives = leg_drives(params)
        rows = [d.table(leg * len(JOINTS)) for leg in range(len(LEGS)) for d in drives]
        self.joints = np.array([r[0] for r in rows])
        self.axes = np.array([r[1] for r in rows])
        self.anchors = np.array([d.anchor for _ in LEGS for d in drives], dtype=float)
        self.levers = np.array([d.lever for _ in LEGS for d in drives], dtype=float)
        self.out = np.zeros(len(rows))

    def __call__(self, q) -> np.ndarray:
        """The rod lengths (24,) [m] (one array, overwritten by the next call) at ``q``: 12 numbers [rad]."""
        try:
            qq = np.asarray(q, dtype=float)
        except (TypeError, ValueError, OverflowError):
            qq = np.zeros(0)
        if qq.shape != _Q_SHAPE:  # the kernel indexes q by joint without a bounds check
            given = f"of shape {qq.shape}" if qq.size else f"= {shown(q)}"
            raise InputError(f"ROTTO RodTargets: q {given}, expected {_Q_SHAPE[0]} joint angles [rad] (robot "
                             "joint order)")
        _drives.lengths(qq, self.joints, self.axes, self.anchors, self.levers, self.out)
        return self.out


@dataclass(frozen=True)
class StaticWalk:
    """The action level of a static walk on the walking layer (§4.3: "the same step-cycle geometry
    and adaptation possibilities" as ANTON): a two-leg gait (the legs half a cycle apart, the right
    leg lifting first) with transfer fraction ``tau`` < ½, so that both feet support for (½ − τ) of
    each half cycle, and one :class:`~legsim.walking.StepCycle` per leg of ``step_length`` L_sum
    [m], adaptation height H_ad = ``clearance``/2 [m] (the transfer's peak is 2 H_ad) and transfer
    time ``transfer`` [s] (V_tr = L_sum / T_tr; the cycle's period is T_tr/τ and the body moves at
    the stance speed L_sum/T_st). ``steps`` transfers in all, then the stop logic. ``height`` of the
    hip centres over the ground [m], ``stance_width`` between the feet's centres [m]; ``start`` [s] of
    standing, then ``shift`` [s] to move the CoM over the left foot before the first lift (and back
    between the feet after the last step)."""

    steps: int = 4
    step_length: float = 0.10
    clearance: float = 0.04
    transfer: float = 1.0
    tau: float = 0.2
    height: float = 0.66
    stance_width: float = 0.18
    start: float = 0.5
    shift: float = 2.0
    params: RottoParams = field(default_factory=RottoParams)

    def __post_init__(self):
        object.__setattr__(self, "steps", check_whole("StaticWalk", "steps", self.steps, 1, 10_000))
        check_fields("StaticWalk", self, positive=("step_length", "clearance", "transfer", "height",
                                                    "stance_width", "shift"), nonnegative=("start",))
        if not 0.0 < as_float(self.tau) < 0.5:
            raise InputError(f"StaticWalk: tau = {self.tau!r}, expected 0 < tau < 1/2 (both feet on the "
                             "ground for (1/2 - tau) of each half cycle)")
        if not isinstance(self.params, RottoParams):
            raise InputError(f"StaticWalk: params = {self.params!r}, expected a RottoParams")

    def cycle(self) -> StepCycle:
        return StepCycle(self.step_length, 0.5 * self.clearance, self.step_length / self.transfer, self.tau)

    @property
    def duration(self) -> float:
        """[s] from t = 0 to standing still on both feet again: standing, the first shift, the steps
        (a step every half period, the last one's transfer), the closing shift."""
        period = self.cycle().period
        return self.start + self.shift + (self.steps - 1) * 0.5 * period + self.transfer + self.shift


def _smooth(s: float) -> float:
    """Minimum-jerk blend 10 s³ − 15 s⁴ + 6 s⁵ on [0, 1]."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


class _Body:
    """The pelvis placements that put the CoM where the walk wants it, from the model (§3.4.4: the
    CoM from the bodies' masses): computed once for the nominal feet (side by side, ``stance_width``
    apart) and reused (the feet's stagger moves the CoM by millimetres)."""

    def __init__(self, walk: StaticWalk):
        self.walk = walk
        p = walk.params
        self.mb = build_model(p)
        self.data = self.mb.make_data()
        w = 0.5 * walk.stance_width
        self.feet_y = np.array([w, -w])
        feet = np.array([[-p.foot_x, w, 0.0], [-p.foot_x, -w, 0.0]])
        # the pelvis offset from the point the CoM is to be over: middle, over the left, over the right
        self.offset = {None: self._balance(feet, None), 0: self._balance(feet, 0), 1: self._balance(feet, 1)}

    def pose(self, pelvis_xy, feet: np.ndarray) -> np.ndarray:
        """q (19,) with the pelvis level at (x, y, height) and the soles under the ankles at ``feet``
        (2, 3) [m]."""
        p = self.walk.params
        q = np.zeros(7 + 12)
        q[0], q[1] = pelvis_xy
        q[2] = self.walk.height + p.hip_z + p.yaw_link
        q[6] = 1.0
        for leg in range(2):
            hip = q[:3] + hip_centre(p, LEGS[leg])
            q[7 + 6 * leg:13 + 6 * leg] = leg_ik(p, feet[leg] + [0.0, 0.0, p.ankle_height] - hip)
        return q

    def _balance(self, feet: np.ndarray, stance: int | None) -> np.ndarray:
        """Pelvis (x, y) − CoM target (2,) [m] with the CoM over the stance sole's centre (or the
        middle of both), by fixed-point iteration (the CoM follows the pelvis at about its mass
        share, so each pass cuts the error)."""
        centres = feet[:, :2] + [self.walk.params.foot_x, 0.0]
        target = centres.mean(axis=0) if stance is None else centres[stance]
        xy = target.copy()
        for _ in range(60):
            err = target - center_of_mass(self.mb, self.data, self.pose(xy, feet))[:2]
            xy = xy + err
            if float(np.max(np.abs(err))) < 1e-7:
                break
        return xy - target


def standing_pose(walk: StaticWalk) -> np.ndarray:
    """q0 (19,): the start of the walk ``walk`` (a :class:`StaticWalk`): the feet where the gait's standing
    start puts them, the CoM between them."""
    if not isinstance(walk, StaticWalk):
        raise InputError(f"ROTTO standing_pose: 'walk' = {shown(walk)}, expected a StaticWalk")
    return _StaticWalker(walk).pose_at_start()


class _StaticWalker:
    """The primitive level of the static walk: the gait generator and the legs' step cycles, the
    CoM's lateral sway over the stance sole, the pelvis moving forward at the stance speed."""

    def __init__(self, walk: StaticWalk):
        self.walk = walk
        self.body = _Body(walk)
        self.cycle = walk.cycle()
        self.gen = GaitGenerator(Gait("static biped", (0.5, 0.0), walk.tau), self.cycle.period)
        self.legs = [LegCycle(self.cycle) for _ in LEGS]
        for leg, lc in zip(range(2), self.legs, strict=True):  # each foot where its phase has it
            lc.s = self.cycle.ideal_at(min(float(self.gen.phase[leg]), 1.0 - 1e-12))[0]
        self.x = 0.0       # the cycles' centre along x [m] (moves at the stance speed while walking)
        self.lifts = 0
        self.last_swing = 1
        self.t_walk: float | None = None   # when the gait's clock started
        self.t_stop: float | None = None   # when every leg stood again after the stop
        self.history: list[tuple[float, np.ndarray]] = []
        self.foot_x0 = -walk.params.foot_x
        self.landed: float | None = None  # the half cycle's clock at the sensed touchdown

    def feet(self) -> np.ndarray:
        """The soles under the ankles (2, 3) [m] in the world (a new array)."""
        return np.array([[self.x + self.foot_x0 + lc.s, y, lc.h]
                         for lc, y in zip(self.legs, self.body.feet_y, strict=True)])

    def _centres(self) -> np.ndarray:
        """The soles' centres (2, 2) [m] now (:meth:`feet` + the foot's forward offset)."""
        return self.feet()[:, :2] + [self.walk.params.foot_x, 0.0]

    def pose_at_start(self) -> np.ndarray:
        return self.body.pose(self._over(None).sum(axis=0), self.feet())

    @staticmethod
    def _com_xy(centres: np.ndarray, stance: int | None) -> np.ndarray:
        """The point (2,) the CoM goes over: a stance sole's centre, or the middle of both."""
        return centres.mean(axis=0) if stance is None else centres[stance]

    def com_target(self, t: float) -> np.ndarray:
        """(CoM target, pelvis offset) (2, 2) [m] at ``t``: the lateral sway. Before the walk the CoM
        moves over the left sole; while walking it is over the stance sole during each transfer and
        moves across in the double support between (the gait's clock: the right leg flies on
        [0, τ), the left on [½, ½ + τ)), starting when the landing foot's touchdown is sensed (a
        late landing shortens the move; the CoM never leaves the stance sole before the other foot
        carries); after the stop it returns between the feet."""
        w = self.walk
        if self.t_walk is None:  # standing, then the first shift
            return self._blend(None, 0, (t - w.start) / w.shift)
        if self.t_stop is not None:  # from over the last transfer's stance sole to the middle
            return self._blend(1 - self.last_swing, None, (t - self.t_stop) / w.shift)
        c, tau = self.gen.clock, w.tau
        if c < tau or 0.5 <= c < 0.5 + tau:
            self.landed = None
            return self._over(0 if c < tau else 1)
        src = 0 if c < 0.5 else 1
        h = c % 0.5  # in [tau, 1/2): the double support's part of the half cycle
        if self.landed is None:  # the CoM leaves the stance sole once the other foot has landed
            if not self.legs[1 - src].in_contact:
                return self._over(src)
            self.landed = h
        return self._blend(src, 1 - src, (h - self.landed) / (0.5 - self.landed))

    def _over(self, stance: int | None, centres: np.ndarray | None = None) -> np.ndarray:
        centres = self._centres() if centres is None else centres
        return np.array([self._com_xy(centres, stance), self.body.offset[stance]])

    def _blend(self, src: int | None, dst: int | None, progress: float) -> np.ndarray:
        b = _smooth(progress)
        centres = self._centres()
        return (1 - b) * self._over(src, centres) + b * self._over(dst, centres)

    def tick(self, t: float, dt: float,
             touch: tuple[bool, bool]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance to ``t`` [s] (``dt`` since the last tick) with the feet's sensed contact ``touch``;
        returns (pelvis (x, y), feet (2, 3), planned CoM (2,)) [m]."""
        w = self.walk
        if self.t_walk is None and t >= w.start + w.shift:
            self.t_walk = t
        if self.t_walk is not None and self.t_stop is None:
            before = self.gen.support.copy()
            support = self.gen.step(dt)
            lifted = np.flatnonzero(before & ~support)
            if len(lifted):
                self.lifts += len(lifted)
                self.last_swing = int(lifted[-1])
            if self.lifts >= w.steps:
                self.gen.stop()
            for k, lc in enumerate(self.legs):
                lc.update(float(self.gen.phase[k]), 0.0, not support[k], dt, touch=touch[k])
            self.x += self.cycle.stance_speed * dt
            if not self.gen.walking and support.all() and all(lc.in_contact for lc in self.legs):
                self.t_stop = t
            self.history.append((t, support.copy()))
        com, offset = self.com_target(t)
        return com + offset, self.feet(), com


def walker(walk: StaticWalk, force_gain: float = 1e-4, max_offset: float = 0.01, touch_force: float = 20.0):
    """The controller ``(t, sensors) -> rod length targets (24,)`` [m] of the static walk: the gait
    generator and the legs' step cycles (:class:`StaticWalk`) → the feet and the pelvis (the CoM
    over the stance sole during each transfer) → leg inverse kinematics (pelvis level, feet flat)
    → each drive's rod length (:class:`RodTargets`), the target of its position loop.

    Sensor feedback (the pads' force sensors, a foot touching when they carry more than
    ``touch_force`` [N]): a transfer ends at the sensed touchdown (the step cycle's contact-triggered
    support, :class:`~legsim.walking.LegCycle`); and while both feet touch, the split of the weight
    between them is made the one the planned CoM implies (the lever rule across the feet) by
    raising one foot's target and lowering the other's, ``ż_off = force_gain (F_R − F_R*)``
    [m/(N s)] (a foot pressing more than its share is lifted), within ±``max_offset`` [m] (§3.4's
    "force and compliance feedback"); "both feet touch" is the step cycles' support (a foot that
    bounced off at its touchdown is pressed down again by this loop rather than left hovering).
    Without that loop a stiff position-controlled biped lands each step on a foot a millimetre too
    low and rolls over the stance sole's edge; ``force_gain`` 0 turns it off. Kept on the function
    for analysis: ``state`` (the gait generator ``gen``, the legs' cycles ``legs``, ``history`` of
    (t, support flags)) and ``offset`` (the right foot's height offset [m]; the left's is its
    negative)."""
    if not isinstance(walk, StaticWalk):
        raise InputError(f"ROTTO walker: walk = {walk!r}, expected a StaticWalk")
    for name, value in (("force_gain", force_gain), ("max_offset", max_offset), ("touch_force", touch_force)):
        check_number("ROTTO walker", name, value, lo=0.0)
    state = _StaticWalker(walk)
    targets = RodTargets(walk.params)
    offset = np.zeros(1)

    def controller(t, s):
        fz = s.pads[2::3]
        f_left, f_right = float(fz[:4].sum()), float(fz[4:].sum())
        pelvis, feet, com = state.tick(t, T_SAMPLE, (f_left > touch_force, f_right > touch_force))
        if force_gain > 0.0 and all(lc.in_contact for lc in state.legs):  # double support
            y_left, y_right = feet[0, 1], feet[1, 1]
            share = min(max((y_left - com[1]) / (y_left - y_right), 0.0), 1.0)
            rate = force_gain * (f_right - share * (f_left + f_right))
            offset[0] = min(max(offset[0] + rate * T_SAMPLE, -max_offset), max_offset)
        feet[0, 2] -= offset[0]
        feet[1, 2] += offset[0]
        return targets(state.body.pose(pelvis, feet)[7:])

    controller.state = state  # type: ignore[attr-defined]
    controller.offset = offset  # type: ignore[attr-defined]
    return controller


def support_track(robot: Robot, result, params: RottoParams | None = None, every: int = 1,
                  contact_force: float = 10.0) -> dict[str, np.ndarray]:
    """The walk's balance record (every ``every``-th record): ``t`` (n,) [s]; ``com`` (n, 3) [m], the
    whole-body centre of mass; ``zmp`` (n, 2) [m], the zero-moment point on the flat ground from the
    two feet's F/T sensors' held readings (:func:`legsim.walking.zmp_from_wrenches`; each foot's force
    and moment about its ankle centre, Table 4.1's quantisation and noise, as the source's sensors
    measure them, [Zav08]; NaN when nothing touches); ``pads`` (n, 8, 3) [m], the pads' contact
    points (the spheres' lowest points) and ``fn`` (n, 8) [N], their normal forces, in
    :func:`.model.pad_names` order; ``margin_com`` and ``margin_zmp`` (n,) [m], the signed distances
    of the CoM's projection and of the ZMP inside the support polygon (the convex hull of the soles
    that carry more than ``contact_force`` [N], each sole the rectangle of its four pads: a flat
    foot's support; NaN when none carries); ``tilt`` (n,) [rad], the pelvis' angle from upright.
    ``robot``: ROTTO's :class:`~legsim.assembly.Robot` (:func:`build_robot` with ``params``, a
    :class:`RottoParams`; None: the default); ``result``: its run (a :class:`~legsim.hybrid.Result`, or its
    run directory read back, :func:`legsim.io.load_run`); ``every`` a whole number >= 1; ``contact_force``
    [N] a finite number >= 0."""
    o = "ROTTO support_track"
    if not isinstance(robot, Robot):
        raise InputError(f"{o}: 'robot' = {shown(robot)}, expected ROTTO's legsim.assembly.Robot "
                         "(build_robot)")
    robot.check_run(o, result)
    if not (params is None or isinstance(params, RottoParams)):
        raise InputError(f"{o}: 'params' = {shown(params)}, expected None or the robot's RottoParams")
    every = check_whole(o, "every", every, lo=1)
    contact_force = check_number(o, "contact_force", contact_force, lo=0.0)  # [N]
    p = RottoParams() if params is None else params
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
    ankles = np.empty((len(rows), 2, 3))
    feet_R = np.empty((len(rows), 2, 3, 3))
    for k, qk in enumerate(q):
        com[k] = center_of_mass(mb, data, qk)
        for leg, b in enumerate(feet):
            pads[k, 4 * leg:4 * leg + 4] = data.op[b] + local @ data.oR[b].T
            ankles[k, leg] = data.op[b]
            feet_R[k, leg] = data.oR[b]
    # each foot's F/T sensor (its held readings, sensor axes, about the ankle centre) in world axes,
    # then the ZMP of the two wrenches
    rot = np.asarray(ROTTO_FT_ROTATION)
    wrench = np.stack([np.column_stack([result.state(f"{leg}_ft_{ch}") for ch in WRENCH_CHANNELS])[rows]
                       for leg in LEGS], axis=1)  # (n, 2, 6)
    zmp = np.full((len(rows), 2), np.nan)
    for k in range(len(rows)):
        to_world = feet_R[k] @ rot  # (2, 3, 3): sensor -> world axes
        forces = np.einsum("lij,lj->li", to_world, wrench[k, :, :3])
        if forces[:, 2].sum() <= 0.0:
            continue
        zmp[k] = zmp_from_wrenches(ankles[k], forces, np.einsum("lij,lj->li", to_world, wrench[k, :, 3:]))
    margin_com = np.full(len(rows), np.nan)
    margin_zmp = np.full(len(rows), np.nan)
    for k in range(len(rows)):
        on = np.repeat(fn[k].reshape(2, 4).sum(axis=1) > contact_force, 4)  # the soles that carry
        touching = pads[k, on, :2]
        if len(touching) >= 3:
            margin_com[k] = support_margin(com[k, :2], touching)
            margin_zmp[k] = support_margin(zmp[k], touching)
    return {"t": np.asarray(result.t)[rows], "com": com, "zmp": zmp, "pads": pads, "fn": fn,
            "margin_com": margin_com, "margin_zmp": margin_zmp, "tilt": tilt}


def peak_drive_force(robot: Robot, result) -> float:
    """The largest drive force of a run [N] (the drives' ``tau_<drive>`` outputs: forces along the rods):
    ``robot`` (:func:`build_robot`) and the :class:`~legsim.hybrid.Result` of its ``simulate``."""
    o = "ROTTO peak_drive_force"
    if not (isinstance(robot, Robot) and robot.actuator_names):
        raise InputError(f"{o}: robot = {shown(robot)}, expected ROTTO's robot (build_robot)")
    taus = [f"tau_{n}" for n in robot.actuator_names]
    if not (isinstance(result, Result) and set(taus) <= set(result.output_names)):
        raise InputError(f"{o}: result = {shown(result)}, expected the legsim.hybrid.Result of the robot's "
                         "simulate() (with its drives' outputs tau_<drive>)")
    return float(max(np.max(np.abs(result.output(name))) for name in taus))


def balance_summary(track: dict[str, np.ndarray], t_from: float = 0.1) -> dict[str, float]:
    """Figures of a :func:`support_track` from ``t_from`` [s] on (the robot starts with its pads just
    touching, unloaded: the first records settle it): the smallest CoM and ZMP margins [m] (a record
    with no sole carrying counts as −inf), the fraction of records whose ZMP margin is under 5 mm
    (the sole about to roll over an edge), the largest pelvis tilt [rad] and the CoM's advance along
    x [m]. ``track``: the dict :func:`support_track` returns; ``t_from`` a finite time [s] before the
    track's end."""
    o = "ROTTO balance_summary"
    keys = ("t", "com", "margin_com", "margin_zmp", "tilt")
    if not (isinstance(track, dict) and all(k in track for k in keys)):
        raise InputError(f"{o}: track = {shown(track)}, expected the dict support_track() returns (with "
                         f"{', '.join(keys)})")
    t_from = check_number(o, "t_from", t_from)
    keep = track["t"] >= t_from
    if not np.any(keep):
        raise InputError(f"{o}: no record from t_from = {t_from:g} s on (the track has {np.size(keep)} "
                         "records before it)")
    com_m = np.nan_to_num(track["margin_com"][keep], nan=-np.inf)
    zmp_m = np.nan_to_num(track["margin_zmp"][keep], nan=-np.inf)
    return {"com_margin_min_m": float(com_m.min()), "zmp_margin_min_m": float(zmp_m.min()),
            "zmp_at_edge_fraction": float(np.mean(zmp_m < 5e-3)), "tilt_max_rad": float(track["tilt"].max()),
            "advance_m": float(track["com"][-1, 0] - track["com"][0, 0])}
