"""ANTON climbs a ledge as high as its body: the 8-step script of Konyev 2011 §3.4.7 ([Pal04],
simulated there too; contact digest §4.2), planned statically and run on the dynamic robot.

The script, in the symmetric gallop (the two legs of one shoulder together), shoulders in the order
rear → middle → front:

1. approach the ledge, measure it and compute the foot support points;
2. switch to the gallop and move the legs close to the ledge, the CoM inside the support polygon;
3. lift the front legs while moving the body forward and place them on top (end of wave 1);
4. move the body onto the obstacle, the CoM near the middle feet;
5. transfer the rear legs, lift the middle legs onto the edge, move the front legs as far forward
   as possible (end of wave 2);
6. move the body past the obstacle, the CoM between the middle and front shoulders;
7. support on the middle and front legs plus the body, lift the rear legs (the critical step);
8. transfer the middle and front legs (end of wave 3).

What the source leaves open, chosen here (each a :class:`ClimbPlan` parameter):

- The ledge's height: "as high as the body" is taken as the top of the body in the walking posture,
  the body's centre height (0.12 m) plus half a segment's height: 0.15 m for the placeholder robot.
  (3.11) puts the highest ledge at l_LEG + l_BS sin α, over 0.3 m for these legs: the script, not
  the reach, is what a body-high ledge tests.
- The ledge is known to the planner (step 1's measuring is the near-navigation's, an operator's in
  the source). Step 1 walks up in gallop waves of at most ``stride`` with the feet on their
  rectangle, until the body comes ``body_gap`` short of the face; step 2 raises the body, pitches
  the front segment up and moves the feet to footholds computed from where the body will stand in
  step 3; the footholds on the top are ``top_footholds`` past the edge.
- Every foot transfer is a lift (to ``clearance`` over the higher of its two footholds), a move
  across and a vertical placing; before each transfer the body shifts so that the CoM (3.7) sits
  over the centroid of the four remaining feet's polygon (the Δ_corr of §3.4.4; the CoM from the
  multibody model, three fixed-point passes), never closer to the ledge than ``body_gap``; a pair
  whose transfer would leave the CoM within ``min_margin`` of the others' polygon waits. The middle
  segment stays level; the front segment pitches up to pass over the edge in steps 2-3 and the rear
  segment up in step 7 (the articulated body of Fig. 3.31).
- Step 7's body support: the body is lowered until its segments touch the ledge (the segments' boxes
  are contact geometries), the posture loop holding still, so that the body takes its share of the
  weight while the rear legs lift (measured: up to 41 N of the 74.6 N, the middle feet most of the
  rest).
- Pace: a stage is stretched where a joint would need more than half its drive's no-load speed
  (the source's "V_trans limited by motor speed"; the placeholder knee turns at most 2.2 rad/s).
  Unpaced, at 1.2 s a transfer, the front legs lagged their path onto the top by 8.8 cm and the
  body rocked on the middle feet as they left the ground (measured); paced, the script takes 67 s.
- After step 8, one more gallop wave and a body shift bring the robot into the walking posture on
  the top.

:meth:`ClimbPlan.check` verifies a plan's statics before any simulation (reach, joint limits, the
CoM's margin, the body's clearance); :func:`climber` runs it at 1 ms on :func:`~.robot.build_robot`
with ``body_contact``; :func:`simulate_climb` does both.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field, replace

import numpy as np

from ...assembly import Obstacle
from ...errors import (
    InputError,
    as_float,
    check_array,
    check_fields,
    check_flag,
    check_number,
    check_values,
    check_whole,
    shown,
)
from ...multibody.dynamics import center_of_mass
from ...walking import support_margin
from .model import MAX_DISTANCE, MAX_DURATION, MAX_TICK, build_model, joint_names, leg_arrays
from .params import T_SAMPLE, AntonParams

__all__ = ["Ledge", "ClimbPose", "Stage", "ClimbPlan", "PAIRS", "MAX_WAVES", "climber", "FeltFootholds",
           "climb_robot", "simulate_climb", "steps_at", "step_summary"]

PAIRS = {"front": (0, 3), "middle": (1, 4), "rear": (2, 5)}
"""The legs of each shoulder (indices into :data:`LEGS`)."""

MAX_WAVES = 100
"""The most gallop waves :class:`ClimbPlan` plans for the approach (step 1): a ``stride`` that would need
more is refused (each wave is up to six stages, each planned through the CoM)."""


@dataclass(frozen=True)
class Ledge:
    """A ledge ``height`` [m] high whose face is at x = ``edge_x`` [m], its top extending forward
    (a 2 m x 2 m box)."""

    height: float = 0.15
    edge_x: float = 0.45

    def __post_init__(self):
        for name in ("height", "edge_x"):
            v = getattr(self, name)
            if not (isinstance(v, int | float) and math.isfinite(v)) or (name == "height" and v <= 0.0):
                raise InputError(f"Ledge: {name} = {v!r}, expected a finite number"
                                 + (" > 0 [m]" if name == "height" else " [m]"))

    def obstacle(self) -> Obstacle:
        """The ledge as an :class:`~legsim.assembly.Obstacle`."""
        h = float(self.height)
        return Obstacle((1.0, 1.0, 0.5 * h), (self.edge_x + 1.0, 0.0, 0.5 * h), name="ledge")


@dataclass(frozen=True)
class ClimbPose:
    """A static posture: ``base`` (x, z) [m] of the middle segment's centre (level, heading +x,
    y = 0), ``pitch`` (front, rear) [rad] of the body's pitch joints (yaws 0; front up is
    negative, rear up positive: the joints' axes), ``feet`` (6, 3) [m] the foot spheres' centres in
    the world, :data:`LEGS` order."""

    base: tuple[float, float]
    pitch: tuple[float, float]
    feet: np.ndarray

    def moved(self, **changes) -> ClimbPose:
        return replace(self, **changes)


@dataclass(frozen=True)
class Stage:
    """One stage of the script: its ``step`` (1-8) and a line saying ``what`` it does, its
    ``duration`` [s], the pose at its ``end`` (reached from the previous stage's end), the legs it
    lifts and places (``swing``, indices into :data:`LEGS`) and whether the body rests on the ledge
    (``body_rests``)."""

    step: int
    what: str
    duration: float
    end: ClimbPose
    swing: tuple[int, ...] = ()
    body_rests: bool = False


def _smooth(u: float) -> float:
    """The quintic 0 → 1 on u in [0, 1] with zero end velocity and acceleration."""
    u = min(max(u, 0.0), 1.0)
    return u * u * u * (10.0 + u * (-15.0 + 6.0 * u))


@dataclass
class ClimbPlan:
    """The script of the module docstring for ``params`` and ``ledge``, from the walking posture on
    flat ground (body centre ``height`` [m] up, feet on a rectangle ±``half_length`` × ±``half_width``
    [m] around the middle segment at x = ``start_x``) to the same posture on top of the ledge.

    Timing [s]: ``shift_time`` per body move, ``swing_time`` per foot transfer, each stretched where a
    joint would need more than ``speed_limit`` of its drive's no-load speed.
    Body [m, rad]: ``approach_height`` of its centre in steps 2-3 (default: 2 cm over the ledge, at
    least ``height``), ``climb_height`` in steps 4-6 (default: its bottom 2 cm over the ledge);
    ``front_pitch`` of the front segment, up, in steps 2-3; ``rear_pitch`` of the rear segment, up,
    in step 7 (it lifts the rear hips for the rear legs' long reach up); ``press`` of the resting
    body into the ledge in step 7 (0: planned touching, its weight settles it); ``body_gap``, the
    least distance it keeps from the ledge elsewhere.
    Feet [m]: ``clearance`` of a transfer over the higher foothold; ``approach_gap`` between a foot on
    the ground and the face; ``top_footholds`` (front, middle, rear) past the edge; ``stride`` of an
    approach wave; ``max_step``, how far ahead of its hip a transfer may put a foot; ``row_gap``
    between a transferred foot and the next shoulder's foot; ``min_transfer``, a smaller transfer is
    skipped.
    Balance [m]: ``min_margin``, the CoM's least margin inside the other feet's polygon for a
    transfer to go ahead (else the pair waits for the next wave); ``lift_margin``, the CoM's distance
    behind the middle feet while the front legs lift (step 3).

    ``stages`` (list of :class:`Stage`), ``start`` (:class:`ClimbPose`) and ``duration`` [s] are set
    on construction; :meth:`at` gives the commanded posture at any instant (:meth:`posture`: into a
    controller's arrays), :meth:`check` the plan's statics. InputError for a non-positive parameter,
    a ``shift_time`` or ``swing_time`` under the control period (1 ms), a ``stride`` that needs more
    than :data:`MAX_WAVES` gallop waves, or a foothold out of a leg's reach.
    """

    params: AntonParams = field(default_factory=AntonParams)
    ledge: Ledge = field(default_factory=Ledge)
    height: float = 0.12
    half_length: float = 0.20
    half_width: float = 0.26
    start_x: float = 0.0
    shift_time: float = 1.0
    swing_time: float = 1.2
    approach_height: float | None = None
    climb_height: float | None = None
    front_pitch: float = 0.35
    rear_pitch: float = 0.3
    clearance: float = 0.03
    approach_gap: float = 0.05
    top_footholds: tuple[float, float, float] = (0.15, 0.09, 0.035)
    press: float = 0.0
    max_step: float = 0.15
    stride: float = 0.1
    min_transfer: float = 0.015
    row_gap: float = 0.05
    body_gap: float = 0.015
    min_margin: float = 0.03
    lift_margin: float = 0.07
    speed_limit: float = 0.5

    def __post_init__(self):
        if not isinstance(self.params, AntonParams):
            raise InputError(f"ClimbPlan: params = {self.params!r}, expected an AntonParams")
        if not isinstance(self.ledge, Ledge):
            raise InputError(f"ClimbPlan: ledge = {self.ledge!r}, expected a Ledge")
        p = self.params
        H = self.ledge.height
        lengths = ("height", "half_length", "half_width", "clearance", "approach_gap", "max_step", "stride",
                   "min_transfer", "row_gap", "body_gap", "min_margin", "lift_margin", "speed_limit")
        check_fields("ClimbPlan", self, positive=lengths)
        for name in ("shift_time", "swing_time"):  # a stage lasts a control period at least
            check_number("ClimbPlan", name, getattr(self, name), lo=T_SAMPLE)
        if self.approach_height is None:
            self.approach_height = max(self.height, H + 0.02)
        if self.climb_height is None:
            self.climb_height = H + 0.5 * p.segment_size[2] + 0.02
        check_fields("ClimbPlan", self, positive=("approach_height", "climb_height"))
        for name in ("front_pitch", "rear_pitch"):  # up, within the body joints' ±0.6 rad
            v = getattr(self, name)
            if not (math.isfinite(as_float(v)) and 0.0 <= v < 0.6):
                raise InputError(f"ClimbPlan: {name} = {v!r}, expected a number in [0, 0.6) [rad]")
        if not math.isfinite(as_float(self.start_x)):
            raise InputError(f"ClimbPlan: start_x = {self.start_x!r}, expected a finite position [m]")
        given = self.top_footholds
        tops = [as_float(v) for v in given] if isinstance(given, (list, tuple)) else []
        if len(tops) != 3 or not all(math.isfinite(v) and v >= 0.0 for v in tops):
            raise InputError(f"ClimbPlan: top_footholds = {given!r}, expected 3 distances >= 0 [m] (front, "
                             "middle, rear) past the edge")
        if not (math.isfinite(as_float(self.press)) and 0.0 <= self.press < 0.02):
            raise InputError(f"ClimbPlan: press = {self.press!r}, expected a number in [0, 0.02) [m]")
        front = self.start_x + max(self.half_length + p.foot_radius,
                                   p.segment_gap + 0.5 * p.segment_size[0]) + self.body_gap
        if self.ledge.edge_x < front:
            raise InputError(f"ClimbPlan: the ledge's face at edge_x = {self.ledge.edge_x:g} m is in the way "
                             f"of the robot standing at start_x = {self.start_x:g} m: expected edge_x >= "
                             f"{front:.4g} m")
        self._mb = build_model(p)
        self._data = self._mb.make_data()
        self._legs = leg_arrays(p)
        r = p.foot_radius
        self._ground, self._top = r, self.ledge.height + r
        x0 = self.start_x
        feet = np.column_stack([
            np.array([x0 + self.half_length, x0, x0 - self.half_length] * 2),
            np.repeat([self.half_width, -self.half_width], 3), np.full(6, r)])
        self.start = ClimbPose((x0, self.height), (0.0, 0.0), feet)
        self.stages: list[Stage] = []
        try:
            self._script()
            self._index()
            self._pace()
        except InputError as e:
            raise InputError(f"ClimbPlan for a {H:g} m ledge: {e}") from None
        self.duration = float(sum(s.duration for s in self.stages))
        self._index()

    def _pace(self, samples: int = 48) -> None:
        """Stretch each stage so that no joint needs more than ``speed_limit`` of its drive's no-load
        speed (V/(k N): 3.3 rad/s through 251:1, 2.2 rad/s for the knees through 390:1; the source's
        "V_trans limited by motor speed"), from the joint paths of the inverse kinematics sampled
        ``samples`` times a stage (the quintic's peak rate is 1.875 times its mean, the transfers'
        thirds three times faster than the stage)."""
        from .robot import MOTOR_K, V_SUPPLY, _motor

        top = np.array([V_SUPPLY / (MOTOR_K * _motor(j).gear) for j in self._mb.joint_names])
        limit = self.speed_limit * top
        start = 0.0
        paced = []
        for stage in self.stages:
            ts = start + np.linspace(0.0, stage.duration, samples + 1)
            q = np.array([self.configuration(self.at(t)[0])[7:] for t in ts])
            rate = np.abs(np.diff(q, axis=0)).max(axis=0) / (ts[1] - ts[0])
            stretch = max(1.0, float(np.max(rate / limit)))
            paced.append(replace(stage, duration=stage.duration * stretch))
            start += stage.duration
        self.stages = paced

    # ------------------------------------------------------------------ the script
    def _script(self) -> None:
        e, H, zg, zt = self.ledge.edge_x, self.ledge.height, self._ground, self._top
        gap = self.approach_gap
        pose = self.start
        # where the body will stand in step 3 (as near as the pitched-up front segment lets it come),
        # and the footholds around it: the front feet short of the face, the middle ones a little
        # ahead of their hips (the CoM behind them while the front legs lift), the rear ones at theirs
        raised = pose.moved(base=(pose.base[0], self.approach_height), pitch=(-self.front_pitch, 0.0))
        b3 = self._farthest(raised)
        near = {"front": e - gap, "middle": b3 + self.min_margin + self.approach_gap,
                "rear": b3 - self.params.segment_gap}
        top = dict(zip(("front", "middle", "rear"), (e + x for x in self.top_footholds), strict=True))
        # 1: gallop waves of at most ``stride`` at the walking height, the feet on their rectangle,
        # up to where the body stops short of the ledge
        b1 = min(self._farthest(pose), e - gap - self.half_length)
        n = math.ceil(max(b1 - pose.base[0], 0.0) / self.stride - 1e-9)
        if n > MAX_WAVES:
            raise InputError(f"stride = {self.stride!r} m needs {n} gallop waves to come up to the ledge "
                             f"({b1 - pose.base[0]:.3f} m); expected at most {MAX_WAVES}: stride >= "
                             f"{(b1 - pose.base[0]) / MAX_WAVES:.4f} m")
        for j in range(1, n + 1):
            b = self.start.base[0] + j * (b1 - self.start.base[0]) / n
            pose = self._wave(1, pose, {"rear": (b - self.half_length, zg), "middle": (b, zg),
                                        "front": (b + self.half_length, zg)}, "approach")
        # 2: the body up, the front segment pitched up; the legs close to the ledge
        pose = self._shift(2, pose, "body up to the approach height, front segment pitched up",
                           z=self.approach_height, pitch=(-self.front_pitch, 0.0))
        pose = self._wave(2, pose, {k: (near[k], zg) for k in near}, "legs close to the ledge")
        # 3: the front legs onto the top while the body moves forward
        pose = self._balance(3, pose, PAIRS["front"], "CoM forward over the rear and middle feet",
                             forward=True)
        pose = self._swing(3, pose, "front", top["front"], zt, "front legs onto the top (end of wave 1)")
        # 4: the body up and onto the obstacle, the CoM near the middle feet
        pose = self._shift(4, pose, "body up and onto the obstacle, CoM near the middle feet",
                           x=pose.base[0] + pose.feet[1, 0] + self.approach_gap - self._com(pose)[0],
                           z=self.climb_height, pitch=(0.0, 0.0))
        # 5: rear legs closer, middle legs onto the edge, front legs as far forward as they reach
        pose = self._wave(5, pose, {"rear": (e - gap, zg), "middle": (top["middle"], zt),
                                    "front": (None, zt)}, "wave 2")
        # 6: the body past the obstacle, the CoM between the middle and front shoulders
        mid = 0.5 * (pose.feet[1, 0] + pose.feet[0, 0])
        pose = self._shift(6, pose, "body past the obstacle", x=pose.base[0] + mid - self._com(pose)[0])
        # 7: the body rests on the ledge; the rear legs lift onto the top
        rest = H + 0.5 * self.params.segment_size[2] - self.press
        pose = self._shift(7, pose, "body down onto the ledge, rear segment up", z=rest,
                           pitch=(0.0, self.rear_pitch), rests=True)
        pose = self._swing(7, pose, "rear", top["rear"], zt, "rear legs onto the top", rests=True)
        # 8: up to the walking height over the ledge; the middle and front legs transferred
        pose = self._shift(8, pose, "body up to the walking height", z=H + self.height, pitch=(0.0, 0.0))
        pose = self._wave(8, pose, {"middle": (None, zt), "front": (None, zt)}, "wave 3")
        # then one more gallop wave into the walking posture on the top
        x_end = max(pose.feet[2, 0], pose.feet[0, 0] - 2 * self.half_length) + self.half_length
        pose = self._wave(8, pose, {"rear": (x_end - self.half_length, zt), "middle": (x_end, zt),
                                    "front": (x_end + self.half_length, zt)}, "into the walking posture")
        self._shift(8, pose, "body centred over the feet", x=x_end)

    def _add(self, stage: Stage) -> ClimbPose:
        self.stages.append(stage)
        return stage.end

    def _shift(self, step: int, pose: ClimbPose, what: str, x: float | None = None, z: float | None = None,
               pitch: tuple[float, float] | None = None, rests: bool = False) -> ClimbPose:
        base = (pose.base[0] if x is None else float(x), pose.base[1] if z is None else float(z))
        end = pose.moved(base=base, pitch=pose.pitch if pitch is None else pitch)
        return self._add(Stage(step, what, self.shift_time, end, body_rests=rests))

    def _balance(self, step: int, pose: ClimbPose, lifted: tuple[int, ...], what: str,
                 forward: bool = False) -> ClimbPose:
        """A body shift putting the CoM over the centroid of the polygon of the feet not in ``lifted``
        (``forward``: ``lift_margin`` behind its front row), never closer than ``body_gap`` to the
        ledge."""
        stay = [k for k in range(6) if k not in lifted]
        xs = pose.feet[stay, 0]
        target = xs.max() - self.lift_margin if forward else 0.5 * (xs.min() + xs.max())
        x = x0 = pose.base[0]
        for _ in range(3):
            x += target - self._com(pose.moved(base=(x, pose.base[1])))[0]
        if x > x0:
            x = min(x, self._farthest(pose, x))
        return self._shift(step, pose, what, x=x)

    def _drop_last(self) -> ClimbPose:
        """Take the last stage back: the pose before it."""
        self.stages.pop()
        return self.stages[-1].end if self.stages else self.start

    def _farthest(self, pose: ClimbPose, x_max: float = math.inf) -> float:
        """The farthest base x [m] (up to ``x_max``) at which ``pose``'s body keeps ``body_gap`` from
        the ledge, from ``pose``'s own x forward (bisection to 0.1 mm)."""
        def clear(x):
            return self.body_clearance(pose.moved(base=(x, pose.base[1]))) >= self.body_gap

        lo = pose.base[0]
        hi = min(x_max, self.ledge.edge_x + 1.0)
        if clear(hi):
            return hi
        while hi - lo > 1e-4:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if clear(mid) else (lo, mid)
        return lo

    def _swing(self, step: int, pose: ClimbPose, pair: str, x: float, z: float, what: str,
               rests: bool = False) -> ClimbPose:
        """Transfer the ``pair``'s feet to x [m], on the ground or the top (``z``, the foot centre's
        height)."""
        e, r = self.ledge.edge_x, self.params.foot_radius
        on_top = z > self._ground
        if (x < e + r) if on_top else (x > e - r):
            raise InputError(f"the {pair} feet's foothold x = {x:.3f} m is not on the "
                             f"{'top' if on_top else 'ground'} (the face at {e:g} m, feet {r:g} m in radius)")
        feet = pose.feet.copy()
        for k in PAIRS[pair]:
            feet[k, 0], feet[k, 2] = x, z
        return self._add(Stage(step, what, self.swing_time, pose.moved(feet=feet), PAIRS[pair], rests))

    def _wave(self, step: int, pose: ClimbPose, targets: dict[str, tuple[float | None, float]],
              what: str) -> ClimbPose:
        """Gallop transfers of the named shoulders, rear → middle → front, each after a balancing
        body shift; a foot's x (None: as far forward as allowed) is kept within ``max_step`` ahead of
        its hip and ``row_gap`` behind the next shoulder's feet."""
        order = ("rear", "middle", "front")
        for i, pair in enumerate(order):
            if pair not in targets:
                continue
            pose = self._balance(step, pose, PAIRS[pair],
                                 f"{what}: CoM over the feet without the {pair} legs")
            stay = [k for k in range(6) if k not in PAIRS[pair]]
            if support_margin(self._com(pose)[:2], pose.feet[stay, :2]) < self.min_margin:
                pose = self._drop_last()  # the body cannot balance over the other feet: this pair waits
                continue
            x, z = targets[pair]
            limit = pose.base[0] + (i - 1) * self.params.segment_gap + self.max_step
            if i < 2:
                limit = min(limit, pose.feet[PAIRS[order[i + 1]][0], 0] - self.row_gap)
            x = limit if x is None else min(x, limit)
            k = PAIRS[pair][0]
            if abs(x - pose.feet[k, 0]) < self.min_transfer and abs(z - pose.feet[k, 2]) < 1e-6:
                pose = self._drop_last()  # near enough: no transfer, nor its balancing shift
                continue
            pose = self._swing(step, pose, pair, x, z, f"{what}: {pair} legs")
        return pose

    # ------------------------------------------------------------------ evaluation
    def _com(self, pose: ClimbPose) -> np.ndarray:
        """The whole-body CoM (3,) [m] of ``pose`` (3.7), joints from the inverse kinematics."""
        return center_of_mass(self._mb, self._data, self.configuration(pose))

    def configuration(self, pose: ClimbPose) -> np.ndarray:
        """The multibody configuration q (nq,) of ``pose``: the base, then the 22 joints from
        :func:`~.robot.joint_targets_for` (InputError when a foot is out of reach)."""
        from .robot import _joint_targets

        q = np.zeros(7 + 22)
        q[0], q[2], q[6] = pose.base[0], pose.base[1], 1.0
        body = np.array([0.0, pose.pitch[0], 0.0, pose.pitch[1]])
        q[7:] = _joint_targets(self.params, self._legs, pose.feet - [pose.base[0], 0.0, pose.base[1]], body)
        return q

    def _index(self) -> None:
        """The stages as :meth:`posture` reads them: their end times (a list, for ``bisect``) and, per
        stage, its start and duration [s], the bases and pitches it goes between, the feet (6, 3) it
        starts from, and the rows of its transfers (leg, from (x, y, z), to, the top of the lift [m]) in
        Python floats (scalar arithmetic on them costs a fraction of numpy's, tick after tick)."""
        ends = np.cumsum([s.duration for s in self.stages])
        self._ends = ends.tolist()
        self._table = []
        prev = self.start
        for stage, end in zip(self.stages, self._ends, strict=True):
            a, b = prev.feet.tolist(), stage.end.feet.tolist()
            swing = tuple((k, a[k], b[k], max(a[k][2], b[k][2]) + self.clearance) for k in stage.swing)
            self._table.append((end - stage.duration, stage.duration, prev.base, stage.end.base, prev.pitch,
                                stage.end.pitch, prev.feet, swing))
            prev = stage.end

    def at(self, t: float) -> tuple[ClimbPose, np.ndarray, int, float]:
        """The commanded posture at ``t`` [s] from the script's start: (pose, the legs in the air (6,)
        bool, the stage's index (``len(stages)`` after the end), the stage's progress u in [0, 1]).
        Body moves and transfers follow a quintic in time; a transferred foot lifts in the first
        third, moves across in the second, places in the last (:meth:`posture`)."""
        feet, air = np.empty((6, 3)), np.zeros(6, dtype=bool)
        i, u, base, pitch = self.posture(t, feet, air)
        return ClimbPose(base, pitch, feet), air, i, u

    def posture(self, t: float, feet: np.ndarray, air: np.ndarray) -> tuple[int, float, tuple, tuple]:
        """:meth:`at` into arrays a controller keeps: writes the feet (6, 3) [m] into ``feet`` and the
        legs in the air into ``air`` (6,) bool; returns (the stage's index, its progress u, base (x, z)
        [m], pitch (front, rear) [rad])."""
        i = bisect.bisect_right(self._ends, t)
        if i >= len(self.stages):
            end = self.stages[-1].end
            feet[:] = end.feet
            air[:] = False
            return len(self.stages), 1.0, end.base, end.pitch
        t0, duration, base0, base1, pitch0, pitch1, feet0, swing = self._table[i]
        u = (t - t0) / duration
        s = _smooth(u)
        base = (base0[0] + s * (base1[0] - base0[0]), base0[1] + s * (base1[1] - base0[1]))
        pitch = (pitch0[0] + s * (pitch1[0] - pitch0[0]), pitch0[1] + s * (pitch1[1] - pitch0[1]))
        feet[:] = feet0
        air[:] = False
        if swing:
            lift, across, place = _smooth(3.0 * u), _smooth(3.0 * u - 1.0), _smooth(3.0 * u - 2.0)
            for k, a, b, top in swing:
                z = a[2] + lift * (top - a[2]) if u < 2.0 / 3.0 else top + place * (b[2] - top)
                feet[k] = (a[0] + across * (b[0] - a[0]), a[1] + across * (b[1] - a[1]), z)
                air[k] = 0.0 < u < 1.0
        return i, u, base, pitch

    def segment_corners(self, pose: ClimbPose) -> np.ndarray:
        """The body segments' box corners (3, 8, 3) [m] in the world (front, middle, rear) for
        ``pose``: the middle level at ``base``, the front and rear carried by their pitch joints."""
        p = self.params
        hx, hy, hz = 0.5 * np.asarray(p.segment_size, dtype=float)
        box = np.array([[sx * hx, sy * hy, sz * hz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)])
        hg = 0.5 * p.segment_gap
        base = np.array([pose.base[0], 0.0, pose.base[1]])
        out = np.empty((3, 8, 3))
        out[1] = base + box
        for i, (sign, pitch) in ((0, (1.0, pose.pitch[0])), (2, (-1.0, pose.pitch[1]))):
            c, s = math.cos(pitch), math.sin(pitch)
            local = box + [sign * hg, 0.0, 0.0]  # in the segment's frame, from its joint
            out[i] = base + [sign * hg, 0.0, 0.0] + np.column_stack(
                [c * local[:, 0] + s * local[:, 2], local[:, 1], -s * local[:, 0] + c * local[:, 2]])
        return out

    def body_clearance(self, pose: ClimbPose) -> float:
        """The body's least distance [m] to the ground and to the ledge (in the x-z plane: a corner
        under the top's level measures to the face, one past the face to the top, one above and
        before it to the edge; a segment spanning the edge measures its bottom's height over it);
        negative when a segment cuts into the ledge or the ground."""
        e, H = self.ledge.edge_x, self.ledge.height
        out = math.inf
        for seg in self.segment_corners(pose):
            for x, _, z in seg:
                to_ledge = z - H if x >= e else (e - x if z <= H else math.hypot(e - x, z - H))
                out = min(out, z, to_ledge)
            xs, zs = seg[[0, 1], 0], seg[[0, 1], 2]  # the bottom's two ends along x (y = -hy)
            lo, hi = np.argmin(xs), np.argmax(xs)
            if xs[lo] < e < xs[hi]:
                out = min(out, float(zs[lo] + (e - xs[lo]) * (zs[hi] - zs[lo]) / (xs[hi] - xs[lo])) - H)
        return float(out)

    def check(self, dt: float = 0.02) -> dict[str, float]:
        """The plan's statics, sampled every ``dt`` [s]: ``margin`` [m], the least signed distance of
        the CoM's ground projection inside the support polygon (the feet on the ground or ledge, and
        while the body rests, the corners of its segments over the ledge); ``clearance`` [m], the
        least :meth:`body_clearance` outside the resting stages; ``rest_clearance``, in them and in the
        stage lifting the body off again. InputError when the body cuts into the ledge or the ground
        outside them, a foot leaves its leg's reach (the inverse kinematics fails) or a joint leaves
        its limits."""
        lo, hi = self._mb.dof_range[6:, 0], self._mb.dof_range[6:, 1]
        margin, clear, rest = math.inf, math.inf, math.inf
        for t in np.arange(0.0, self.duration + 1e-9, dt):
            pose, air, i, _ = self.at(t)
            q = self.configuration(pose)
            bad = np.flatnonzero((q[7:] < lo) | (q[7:] > hi))
            if bad.size:
                name = self._mb.joint_names[bad[0]]
                raise InputError(f"ANTON climb: joint {name} at {q[7 + bad[0]]:.3f} rad leaves its limits "
                                 f"at t = {t:.2f} s ({self.stages[min(i, len(self.stages) - 1)].what})")
            com = center_of_mass(self._mb, self._data, q)
            support = pose.feet[~air, :2]
            resting = i < len(self.stages) and self.stages[i].body_rests
            lifting = 0 < i < len(self.stages) and self.stages[i - 1].body_rests  # the body leaves the ledge
            if resting:
                corners = self.segment_corners(pose).reshape(-1, 3)
                on = (corners[:, 0] > self.ledge.edge_x) & (corners[:, 2] < self.ledge.height + 1e-3)
                support = np.vstack([support, corners[on, :2]])
            margin = min(margin, support_margin(com[:2], support))
            c = self.body_clearance(pose)
            if resting or lifting:
                rest = min(rest, c)
            else:
                if c < 0.0:
                    what = self.stages[min(i, len(self.stages) - 1)].what
                    raise InputError(f"ANTON climb: the body cuts {-c * 1000:.1f} mm into the ledge or the "
                                     f"ground at t = {t:.2f} s ({what})")
                clear = min(clear, c)
        return {"margin": margin, "clearance": clear, "rest_clearance": rest}


class FeltFootholds:
    """Stance only on contact, for a scripted climb (§3.4.7: "remaining errors are absorbed by the
    adaptation zone and by the reactive gait (stance only on contact)"): each foot's height offset
    ``offset`` (6,) [m] from the plan's footholds.

    A foot that reaches its planned foothold without its normal force exceeding ``touch`` [N] goes
    on down at ``search_speed`` [m/s], at most ``search_depth`` [m], until it touches, and that is
    its foothold until it is lifted again (it leaves from there; the offset fades over the lift). A
    foot that touches above its foothold is pressed onto it by the position loops, as without this.
    Only the search down: offsets read from where a foot first touches would ratchet up by the sag
    a loaded foot has and a touching one has not (the walker's lesson, measured here too: +5 to +30
    mm over the approach, the body sinking 14 mm), and a ledge higher than planned by 1 cm is
    climbed as planned; one lower by 1 cm leaves the feet hanging (measured: the CoM out of the
    support polygon by 4.8 cm in step 7).

    ``touch`` [N] >= 0; ``search_speed`` [m/s] and ``search_depth`` [m] in
    [0, :data:`~.model.MAX_DISTANCE`]."""

    def __init__(self, touch: float, search_speed: float = 0.02, search_depth: float = 0.03):
        o = "FeltFootholds"
        self.touch = check_number(o, "touch", touch, lo=0.0)
        self.search_speed = check_number(o, "search_speed", search_speed, lo=0.0, hi=MAX_DISTANCE)
        self.search_depth = check_number(o, "search_depth", search_depth, lo=0.0, hi=MAX_DISTANCE)
        self.offset = np.zeros(6)
        self.searching = np.zeros(6, dtype=bool)
        self._lift_from = np.zeros(6)
        self._stage = -2
        self._swing: tuple[int, ...] = ()

    def update(self, stage: int, u: float, swing: tuple[int, ...], fz: np.ndarray,
               dt: float) -> np.ndarray:
        """One tick in ``stage`` (index >= 0) at progress ``u`` (finite) with the legs ``swing`` (distinct leg
        indices 0..5) transferred and the normal forces ``fz`` (6,) [N], of ``dt`` [s] in
        [0, :data:`~.model.MAX_TICK`]. Returns the offsets."""
        o = "FeltFootholds.update"
        stage = check_whole(o, "stage", stage)
        u = check_number(o, "u", u)
        if not (isinstance(swing, (list, tuple)) and all(
                isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= k < 6 for k in swing)
                and len(set(swing)) == len(swing)):
            raise InputError(f"{o}: 'swing' = {shown(swing)}, expected distinct leg indices 0..5")
        fz = check_array(o, "fz", fz, (6,), "N")
        dt = check_number(o, "dt", dt, lo=0.0, hi=MAX_TICK)
        return self._update(stage, u, tuple(swing), fz, dt)

    def _update(self, stage: int, u: float, swing: tuple[int, ...], fz, dt: float) -> np.ndarray:
        """:meth:`update` unchecked, for the climber's tick."""
        if stage != self._stage:
            for k in self._swing:  # the last stage's transfers end: the untouched search on
                self.searching[k] = not fz[k] > self.touch
            for k in swing:
                self._lift_from[k], self.searching[k] = self.offset[k], False
            self._stage, self._swing = stage, swing
        for k in range(6):
            if k in swing:
                self.offset[k] = self._lift_from[k] * (1.0 - _smooth(3.0 * u))
            elif self.searching[k]:
                if fz[k] > self.touch or self.offset[k] <= -self.search_depth:
                    self.searching[k] = False
                else:
                    self.offset[k] -= self.search_speed * dt
        return self.offset


def climber(plan: ClimbPlan, kp: float = 60.0, kd: float = 0.5, *, start: float = 0.3, touch: float = 2.0,
            posture_gain: float = 5.0, rate_ff: bool = True, feel: bool = True):
    """The controller ``(t, sensors) -> voltages (22,)`` [V] running ``plan`` from ``start`` [s] (the
    control hierarchy of §3.4 at 1 ms, as :func:`~.robot.walker`): the action level is the script;
    the primitive level its commanded posture (:meth:`ClimbPlan.at`), the feet taken into the middle
    segment's frame at the commanded body position and into their hip frames through the commanded
    body joints (:func:`._kinematics.joint_targets`), a posture loop and a static force feedforward;
    the servo level a PD on each drive's voltage (``kp`` [V/rad], ``kd`` [V s/rad], the walker's),
    with ``rate_ff`` on the reference's rate too (the commanded joint rate, differenced tick to tick,
    in the D term and as the back-EMF voltage k N q̇_ref it needs: the front legs' transfer onto the
    top then lags its path by 1.7 cm instead of 2.9, measured).

    With ``feel`` a foot that finds no ground where the plan put it searches down for it
    (:class:`FeltFootholds`), and once on the ledge (steps 7-8) the body's height follows the top as
    the feet found it: a plan made for a 15 cm ledge climbs 13 to 17 cm ones (tested; without,
    the CoM leaves the support polygon on a 13 cm ledge in step 4, measured −1.05 cm).

    Posture loop (as the walker's): the plane through the residual heights of the feet that carry
    (in support by the plan, their shank sensor's normal force over ``touch`` [N]), as the encoders
    see them against where the plan puts them relative to the body (:func:`~.robot.support_plane`),
    integrated at ``posture_gain`` [1/s] into the commanded feet: it takes out the servos' sag
    under load. It holds still while the body rests on the ledge (step 7), whose height the body's
    contact then sets.

    Force feedforward: the :class:`~.robot.StaticFeedforward` of every drive, the body joints'
    included (step 7 is "the most critical for the drives": the body joints carry the segments).

    Attributes kept for analysis: ``posture`` (3,) (height [m], slopes along x and y), ``history``
    ((t, stage index), ...: −1 before ``start``, ``len(plan.stages)`` after the end), ``felt`` (the
    :class:`FeltFootholds`, or None).
    """
    from . import _kinematics as _K
    from .robot import MOTOR_K, V_SUPPLY, StaticFeedforward, _joint_targets, _motor, support_plane

    if not isinstance(plan, ClimbPlan):
        raise InputError(f"ANTON climber: plan = {plan!r}, expected a ClimbPlan")
    for name, value in (("kp", kp), ("kd", kd), ("start", start), ("touch", touch),
                        ("posture_gain", posture_gain)):
        check_number("ANTON climber", name, value, lo=0.0)
    rate_ff = check_flag("ANTON climber", "rate_ff", rate_ff)
    feel = check_flag("ANTON climber", "feel", feel)
    p = plan.params
    legs = hips, yaws, segs = leg_arrays(p)
    half_gap = 0.5 * p.segment_gap
    static = StaticFeedforward(p)
    posture = np.zeros(3)
    measured, nominal, targets, body = np.empty((6, 3)), np.empty((6, 3)), np.empty(22), np.zeros(4)
    history: list[tuple[float, int]] = []
    dt = 1e-3
    q_last, rate_ref, started = np.zeros(22), np.zeros(22), [False]
    felt = FeltFootholds(touch) if feel else None
    v_per_rad_s = np.array([MOTOR_K * _motor(j).gear for j in joint_names()])  # back-EMF [V s/rad]

    n_stages, top_z = len(plan.stages), plan.ledge.height
    planned, air = np.empty((6, 3)), np.zeros(6, dtype=bool)

    def controller(t, s):
        i, u, (base_x, base_z), (body[1], body[3]) = plan.posture(t - start, planned, air)
        history.append((t, i if t >= start else -1))
        stage = plan.stages[min(i, n_stages - 1)]
        resting = i < n_stages and stage.body_rests
        fz = s.shank[2::3].tolist()
        in_air = air.tolist()
        _K.feet_in_body(s.enc, hips, yaws, segs, p.coxa, p.femur, p.tibia, half_gap, measured)
        if felt is not None:
            offset = felt._update(i, u, stage.swing if i < n_stages else (), fz, dt)
            if stage.step >= 7:  # on the ledge: the body goes with the top as felt
                z_plan = planned[:, 2].tolist()
                on_top = [k for k in range(6) if not in_air[k] and z_plan[k] > top_z]
                if on_top:
                    base_z += sum(offset[on_top].tolist()) / len(on_top)
            planned[:, 2] += offset
            searching = felt.searching.tolist()
        else:
            searching = [False] * 6
        np.subtract(planned, (base_x, 0.0, base_z), out=nominal)  # the feet relative to the body
        if posture_gain > 0.0 and not resting:
            carrying = [not in_air[k] and fz[k] > touch and not searching[k] for k in range(6)]
            plane = support_plane(measured.tolist(), nominal[:, 2].tolist(), carrying)
            if plane is not None:
                posture[0] -= posture_gain * dt * plane[0]
                posture[1] -= posture_gain * dt * plane[1]
                posture[2] -= posture_gain * dt * plane[2]
        feet = nominal
        feet[:, 2] += posture[0] + posture[1] * feet[:, 0] + posture[2] * feet[:, 1]
        q_ref = _joint_targets(p, legs, feet, body, out=targets)
        if rate_ff:
            rate_ref[:] = (q_ref - q_last) / dt if started[0] else 0.0
            q_last[:] = q_ref
            started[0] = True
            v = kp * (q_ref - s.enc) + kd * (rate_ref - s.rate) + v_per_rad_s * rate_ref
        else:
            v = kp * (q_ref - s.enc) - kd * s.rate
        v += static(s.enc, s.shank)
        np.minimum(v, V_SUPPLY, out=v)
        return np.maximum(v, -V_SUPPLY, out=v)

    controller.posture = posture  # type: ignore[attr-defined]
    controller.history = history  # type: ignore[attr-defined]
    controller.felt = felt  # type: ignore[attr-defined]
    return controller


def _plan(owner: str, plan) -> ClimbPlan:
    """``plan`` a :class:`ClimbPlan`, else an :class:`InputError` naming ``owner``."""
    if not isinstance(plan, ClimbPlan):
        raise InputError(f"{owner}: 'plan' = {shown(plan)}, expected a ClimbPlan")
    return plan


def climb_robot(plan: ClimbPlan):
    """ANTON (:func:`~.robot.build_robot`) with ``plan``'s parameters, its ledge, and the body's
    segments touching it."""
    from .robot import build_robot

    _plan("climb_robot", plan)
    return build_robot(plan.params, obstacles=(plan.ledge.obstacle(),), body_contact=True)


def simulate_climb(plan: ClimbPlan | None = None, robot=None, settle: float = 0.3, after: float = 1.0,
                   **kwargs):
    """Run ``plan`` (default :class:`ClimbPlan`) on ``robot`` (default :func:`climb_robot`; a
    :class:`legsim.assembly.Robot`): released 2 mm over the plan's start, the script from ``settle`` [s],
    ``after`` [s] of standing at its end (each in [0, :data:`~.model.MAX_DURATION`]). Keywords go to
    :meth:`legsim.assembly.Robot.simulate` (``sinks``, ``progress``). Returns (plan, robot, controller,
    result)."""
    from ...assembly.robot import Robot

    o = "simulate_climb"
    plan = ClimbPlan() if plan is None else _plan(o, plan)
    if not (robot is None or isinstance(robot, Robot)):
        raise InputError(f"{o}: 'robot' = {shown(robot)}, expected None or ANTON's legsim.assembly.Robot "
                         "(climb_robot(plan))")
    for name, value in (("settle", settle), ("after", after)):
        check_number(o, name, value, lo=0.0, hi=MAX_DURATION)  # [s]
    robot = robot or climb_robot(plan)
    q0 = plan.configuration(plan.start)
    q0[2] += 0.002
    ctrl = climber(plan, start=settle)
    kwargs.setdefault("progress", False)
    return plan, robot, ctrl, robot.simulate(settle + plan.duration + after, ctrl, q0=q0, **kwargs)


def _history(owner: str, plan, ctrl) -> np.ndarray:
    """The history (n, 2) of ``ctrl``, a :func:`climber` of ``plan`` (a :class:`ClimbPlan`) that ran: its
    ticks' (t [s], stage index), else an :class:`InputError` naming ``owner`` and the argument."""
    _plan(owner, plan)
    history = getattr(ctrl, "history", None)
    try:
        hist = np.array(history, dtype=float) if isinstance(history, list) and history else np.zeros((0, 2))
    except (TypeError, ValueError):  # ragged, or not numbers
        hist = np.zeros((0, 2))
    if hist.ndim != 2 or hist.shape[0] == 0 or hist.shape[1] != 2:
        raise InputError(f"{owner}: 'ctrl' = {shown(ctrl)}, expected a climber that ran (its history of "
                         "(t, stage) ticks)")
    if not np.all((hist[:, 1] >= -1) & (hist[:, 1] <= len(plan.stages))):
        raise InputError(f"{owner}: 'ctrl' ran stages beyond the {len(plan.stages)} of 'plan': a climber of "
                         "another plan")
    return hist


def steps_at(plan: ClimbPlan, ctrl, t) -> np.ndarray:
    """The script step (1-8; 0 while settling, 9 after the end) that ``ctrl`` (a :func:`climber` of ``plan``
    that ran) was in at the instants ``t`` (n,) [s] (finite numbers)."""
    o = "steps_at"
    return _steps_at(plan, _history(o, plan, ctrl), check_values(o, "t", t, unit="s"))


def _steps_at(plan: ClimbPlan, hist: np.ndarray, t: np.ndarray) -> np.ndarray:
    """:func:`steps_at` of the checked history (:func:`_history`) and times."""
    row = np.clip(np.searchsorted(hist[:, 0], t, side="right") - 1, 0, None)
    step_of = np.array([0] + [st.step for st in plan.stages] + [9])  # stage -1: settling
    return step_of[hist[row, 1].astype(int) + 1]


def step_summary(plan: ClimbPlan, ctrl, track: dict) -> dict[int, dict[str, float]]:
    """Per script step (1-8; 9: the standing after it; the settling before it left out), from a
    :func:`~.robot.support_track` of the run: ``margin`` [m], the CoM's least margin inside the
    polygon of the carrying contact points (a record with fewer than three carrying counts as
    −inf), and ``body_load`` [N], the most the body's contacts carried. ``ctrl``: a :func:`climber` of
    ``plan`` that ran; ``track``: the dict :func:`~.robot.support_track` returned (``t``, ``margin`` and
    ``fn_body`` of one length)."""
    o = "step_summary"
    hist = _history(o, plan, ctrl)
    keys = ("t", "margin", "fn_body")
    if not (isinstance(track, dict) and all(k in track for k in keys)):
        raise InputError(f"{o}: 'track' = {shown(track)}, expected the dict support_track() returns (with "
                         f"{', '.join(keys)})")
    t = check_values(o, "track['t']", track["t"], unit="s")
    if t.ndim != 1 or any(np.shape(track[k]) != t.shape for k in keys[1:]):
        raise InputError(f"{o}: 'track' holds {', '.join(keys)} of shapes "
                         f"{', '.join(str(np.shape(track[k])) for k in keys)}: expected one length")
    steps = _steps_at(plan, hist, t)
    out = {}
    for k in range(1, 10):
        m = steps == k
        if m.any():
            margin = np.where(np.isnan(track["margin"][m]), -np.inf, track["margin"][m])
            out[k] = {"margin": float(margin.min()), "body_load": float(track["fn_body"][m].max())}
    return out
