"""RATS closed-loop tipping with gravity sensing (Wagenknecht (2009) §6.1.3, Fig. 6.14; digest §3.4).

At rest the 3-axis accelerometer reads the specific force +g, straight up, which in the body frame
is ``-g * gravity_dir(stance)``: it tells the stance, not the yaw or the position.

* **Calibration**: gravity recorded on several tripods is matched to the expected body-frame
  directions by the best rotation (Wahba's problem, solved by Kabsch/SVD:
  ``scipy.spatial.transform.Rotation.align_vectors``), giving the IMU mounting rotation and a
  table of the expected reading for each of the 20 stances.
* **Identification**: the stance whose expected direction has the largest positive projection of
  the (filtered) reading.
* **Before each firing** the detected stance is compared with the motion model's prediction:
  equal -> proceed; equal to the stance before the last firing -> the tip **failed**: fire the same
  leg again, longer (adaptive valve time); otherwise **unexpected motion** -> reverse location
  propagation: the fewest transitions from the previous stance to the detected one (BFS on the
  stance graph, at most 5 = its diameter), taken as uncommanded tips, are replayed through the
  planner's motion model from the previous position estimate.

Conventions: the mounting rotation ``mounting`` (3, 3) maps sensor axes to body axes (as
``legsim.assembly`` ``IMU.rotation``); readings are specific forces in sensor axes, in any unit
(identification only uses directions; m/s² with ``G0`` by default).
"""

from __future__ import annotations

import enum
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import shortest_path
from scipy.spatial.transform import Rotation

from ...errors import InputError, as_float, as_floats, check_flag, check_values, check_whole, shown
from .geometry import (
    GRAVITY_DIRECTIONS,
    N_LEGS,
    N_STANCES,
    STANCES,
    TRANSITIONS,
    RatsDims,
    _check_leg,
    _check_stance,
)
from .planner import TippingPlanner, TipState, _centre, initial_state, tip
from .valve_time import DepletionEstimator, TipStrengthModel

__all__ = ["G0", "expected_readings", "identify_stance", "calibrate_mounting", "TipOutcome", "classify",
           "STANCE_DISTANCES", "shortest_transitions", "replay", "FiringCommand", "TipEvent",
           "ClosedLoopTipper"]

G0 = 9.80665
"""Standard gravity [m/s²]."""


def _mounting(mounting) -> np.ndarray:
    if mounting is None:
        return np.eye(3)
    r = as_floats(mounting)
    if r.shape != (3, 3) or not np.all(np.isfinite(r)) or not np.allclose(r @ r.T, np.eye(3), atol=1e-9) \
            or np.linalg.det(r) < 0.0:
        raise InputError(f"mounting={mounting!r}: expected a 3x3 rotation matrix (sensor -> body axes)")
    return r


def expected_readings(mounting=None, g: float = G0) -> np.ndarray:
    """(20, 3) accelerometer reading at rest on level ground for each stance, sensor axes:
    the specific force ``-g * gravity_dir(s)`` rotated by ``mounting.T`` (body -> sensor).
    ``g`` sets the unit (G0 for m/s², 1 for g)."""
    if not (math.isfinite(as_float(g)) and g > 0.0):
        raise InputError(f"g={g!r}: expected > 0")
    return -g * GRAVITY_DIRECTIONS @ _mounting(mounting)


def _unit(r: np.ndarray) -> np.ndarray | None:
    """The direction of the finite vector ``r`` (None for zero), scaled first so that no square
    overflows (a reading of 1e300 has a direction too)."""
    big = float(np.abs(r).max())
    if big == 0.0:
        return None
    u = r / big
    return u / np.linalg.norm(u)


def identify_stance(reading, table=None, min_cos: float = 0.0) -> int:
    """The stance whose expected reading has the largest positive projection of ``reading`` (3,)
    (§6.1.3). ``table`` (20, 3) expected readings (default :func:`expected_readings` with the
    identity mounting); ``min_cos`` in [0, 1): the cosine between the reading and the best
    expected direction must exceed it. Returns -1 when no stance qualifies (a zero reading, or
    none above ``min_cos``: e.g. the robot is not at rest on level ground)."""
    r = as_floats(reading)
    if r.shape != (3,) or not np.all(np.isfinite(r)):
        raise InputError(f"reading={reading!r}: expected 3 finite accelerometer components")
    if not (math.isfinite(as_float(min_cos)) and 0.0 <= min_cos < 1.0):
        raise InputError(f"min_cos={min_cos!r}: expected 0 <= min_cos < 1")
    t = expected_readings() if table is None else as_floats(table)
    if t.shape != (N_STANCES, 3):
        raise InputError(f"table: expected ({N_STANCES}, 3) expected readings, got shape {t.shape}")
    u = _unit(r)
    if u is None:
        return -1
    cos = (t / np.linalg.norm(t, axis=1)[:, None]) @ u
    best = int(np.argmax(cos))
    return best if cos[best] > min_cos else -1


MAX_READING = 1e150
"""The largest magnitude of a reading's component :func:`calibrate_mounting` takes (in any unit: only the
directions count), whose squares stay finite."""


def calibrate_mounting(readings, stances) -> tuple[np.ndarray, float]:
    """Mounting rotation (sensor -> body) from readings at rest on known stances (Wahba/Kabsch).

    readings : (n, 3) specific forces in sensor axes (several samples per stance are fine; components within
    ±:data:`MAX_READING`, none all zero); stances : (n,) the stance of each reading (whole numbers
    0..19). The readings must span at least two non-parallel gravity directions. Returns ((3, 3)
    rotation, rms angular residual [rad])."""
    r = check_values("calibrate_mounting", "readings", readings, lo=-MAX_READING, hi=MAX_READING)
    s = np.asarray(stances)
    if r.ndim != 2 or r.shape[1] != 3:
        raise InputError(f"readings: expected (n, 3) finite accelerometer readings, got shape {r.shape}")
    if s.shape != (len(r),) or s.dtype.kind not in "iu" or np.any((s < 0) | (s >= N_STANCES)):
        raise InputError(f"stances={shown(stances)}: expected {len(r)} stance indices 0..{N_STANCES - 1} "
                         "(one per row of readings)")
    norms = np.linalg.norm(r, axis=1)
    if np.any(norms == 0.0):
        raise InputError("readings: a zero reading carries no direction")
    body = -GRAVITY_DIRECTIONS[s]
    if np.linalg.svd(body, compute_uv=False)[1] < 1e-6:
        raise InputError(f"stances={np.unique(s).tolist()}: the gravity directions are all parallel; "
                         "calibrate on at least two stances that are not the same or antipodal")
    rot, _ = Rotation.align_vectors(body, r / norms[:, None])
    resid = np.einsum("ij,ij->i", body, rot.apply(r / norms[:, None]))
    return rot.as_matrix(), float(np.sqrt(np.mean(np.arccos(np.clip(resid, -1.0, 1.0)) ** 2)))


class TipOutcome(enum.Enum):
    """What the detected stance says about the last firing (§6.1.3)."""

    EXPECTED = "expected"      # the predicted stance: proceed
    FAILED = "failed"          # still the previous stance: the tip failed, fire again
    UNEXPECTED = "unexpected"  # any other stance: reverse location propagation
    UNKNOWN = "unknown"        # no stance identified (not at rest)


def classify(detected: int, predicted: int, previous: int) -> TipOutcome:
    """:class:`TipOutcome` of a detected stance given the motion model's prediction and the stance
    before the firing (stance indices; ``detected`` -1 = unidentified)."""
    if not (isinstance(detected, int | np.integer) and detected == -1):
        detected = _check_stance(detected, "detected")
    predicted, previous = _check_stance(predicted, "predicted"), _check_stance(previous, "previous")
    if detected == -1:
        return TipOutcome.UNKNOWN
    if detected == predicted:
        return TipOutcome.EXPECTED
    if detected == previous:
        return TipOutcome.FAILED
    return TipOutcome.UNEXPECTED


def _distances() -> np.ndarray:
    rows = np.repeat(np.arange(N_STANCES), 3)
    cols = TRANSITIONS[TRANSITIONS >= 0]   # row-major: the 3 successors of each stance in order
    graph = csr_matrix((np.ones(rows.size), (rows, cols)), shape=(N_STANCES, N_STANCES))
    d = shortest_path(graph, directed=False, unweighted=True)
    return d.astype(np.int64)


STANCE_DISTANCES = _distances()
"""(20, 20) int: fewest tips between two stances (scipy.sparse.csgraph BFS); max 5 (the diameter)."""
STANCE_DISTANCES.setflags(write=False)


def _bfs_path(start: int, goal: int) -> list[int]:
    parent: dict[int, tuple[int, int]] = {start: (-1, -1)}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if s == goal:
            break
        for leg in STANCES[s]:
            nxt = int(TRANSITIONS[s, leg])
            if nxt not in parent:
                parent[nxt] = (s, int(leg))
                queue.append(nxt)
    legs: list[int] = []
    s = goal
    while s != start:
        s, leg = parent[s]
        legs.append(leg)
    return legs[::-1]


def shortest_transitions(start: int, goal: int, first_leg: int | None = None) -> list[int]:
    """Fewest legs to fire to go from stance ``start`` to stance ``goal`` (breadth-first search on
    the transition graph; ≤ 5 legs). Ties: if ``first_leg`` (e.g. the commanded leg) begins some
    shortest sequence, the returned one begins with it; otherwise legs are tried in ascending order.
    Returns the fired legs in order (empty when start == goal)."""
    a, b = _check_stance(start, "start"), _check_stance(goal, "goal")
    first_leg = None if first_leg is None else _check_leg(first_leg, "first_leg")
    if first_leg is not None and a != b and first_leg in STANCES[a]:
        nxt = int(TRANSITIONS[a, first_leg])
        if STANCE_DISTANCES[nxt, b] == STANCE_DISTANCES[a, b] - 1:
            return [int(first_leg)] + _bfs_path(nxt, b)
    return _bfs_path(a, b)


def replay(state: TipState, legs, slip: float = 0.0) -> TipState:
    """The motion model (:func:`~.planner.tip`) applied along ``legs`` from ``state``."""
    for leg in legs:
        state = tip(state, int(leg), slip)
    return state


@dataclass(frozen=True)
class FiringCommand:
    """Energise ``leg``'s valve (index 0..11) for ``duration_ms`` [whole ms >= 0]; ``retry`` (True or False)
    marks a repeat after a failed tip."""

    leg: int
    duration_ms: int
    retry: bool = False

    def __post_init__(self):
        o = "FiringCommand"
        object.__setattr__(self, "leg", check_whole(o, "leg", self.leg, 0, N_LEGS - 1))
        object.__setattr__(self, "duration_ms", check_whole(o, "duration_ms", self.duration_ms))
        object.__setattr__(self, "retry", check_flag(o, "retry", self.retry))


@dataclass(frozen=True)
class TipEvent:
    """One decision of :class:`ClosedLoopTipper`: time [s], detected stance, outcome, the
    transitions assumed for an unexpected motion, the command issued (None: none), the core
    pressure estimate [MPa gauge] after accounting for that command, and the centre estimate
    (2,) [m] the command was planned from."""

    t: float
    detected: int
    outcome: TipOutcome | None
    assumed_legs: tuple[int, ...]
    command: FiringCommand | None
    p_estimate_mpa: float
    centre: np.ndarray


@dataclass(eq=False)
class ClosedLoopTipper:
    """Closed-loop path-following tipping: planner (§6.1.1) + compensated valve times (§6.1.2) +
    stance feedback (§6.1.3). Independent of any simulator: call :meth:`update` with the
    accelerometer reading (3,) (sensor axes, at rest, filtered) and the time [s] each time the
    robot has settled; it returns the next :class:`FiringCommand`, or None (goal reached, gas
    exhausted, or no stance identified yet: see :attr:`status`).

    Parameters
    ----------
    path : (n, 2) waypoints [m]; start_stance : the stance the robot starts on.
    dims, yaw, start_centre : initial pose (yaw [rad], centre (2,) [m], default the first waypoint).
    gamma, slip : planner look-ahead multiplier and motion-model slip [m] (:mod:`.planner`).
    strength : :class:`TipStrengthModel` (Table 6.1 defaults); estimator : :class:`DepletionEstimator`
        (rubber-seat valves from 0.689 MPa by default).
    mounting : (3, 3) IMU mounting rotation, sensor -> body (e.g. from :func:`calibrate_mounting`).
    retry_increment_ms : adaptive valve time: each failed tip of a leg adds this [whole ms] to that
        leg's later commands, up to ``max_extra_ms`` (it compensates the surface and an
        under-estimated pressure, thesis §6.1.3); ``keep_extra``: False resets a leg's extra after
        a successful tip.
    min_cos : identification threshold (:func:`identify_stance`).
    """

    path: np.ndarray
    start_stance: int
    dims: RatsDims = field(default_factory=RatsDims)
    yaw: float = 0.0
    start_centre: np.ndarray | None = None
    gamma: float = 1.5
    slip: float = 0.0
    strength: TipStrengthModel = field(default_factory=TipStrengthModel)
    estimator: DepletionEstimator = field(default_factory=DepletionEstimator)
    mounting: np.ndarray | None = None
    retry_increment_ms: int = 1
    max_extra_ms: int = 10
    keep_extra: bool = True
    min_cos: float = 0.0
    log: list[TipEvent] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        self.planner = TippingPlanner(self.path, self.dims, gamma=self.gamma, slip=self.slip)
        c0 = self.planner.path[0] if self.start_centre is None else _centre(self.start_centre, "start_centre")
        self.estimate: TipState = initial_state(_check_stance(self.start_stance, "start_stance"), self.dims,
                                                self.yaw, c0)
        self.table = expected_readings(self.mounting)
        if not isinstance(self.strength, TipStrengthModel):
            raise InputError(f"strength={self.strength!r}: expected a TipStrengthModel")
        if not isinstance(self.estimator, DepletionEstimator):
            raise InputError(f"estimator={self.estimator!r}: expected a DepletionEstimator")
        self.keep_extra = check_flag("ClosedLoopTipper", "keep_extra", self.keep_extra)
        if not (math.isfinite(as_float(self.min_cos)) and 0.0 <= self.min_cos < 1.0):
            raise InputError(f"min_cos={self.min_cos!r}: expected 0 <= min_cos < 1")
        for name in ("retry_increment_ms", "max_extra_ms"):  # valve time [ms], at most a hop's 10 s
            setattr(self, name, check_whole("ClosedLoopTipper", name, getattr(self, name), 0, 10_000))
        self.extra_ms = np.zeros(len(self.strength.c_latency), dtype=np.int64)
        self.status = "running"
        self._pending: tuple[TipState, int, TipState] | None = None   # (before, leg, predicted)

    # ---------------------------------------------------------------------------- feedback
    def _account(self, detected: int) -> tuple[TipOutcome | None, tuple[int, ...], int | None]:
        """Update the estimate from the detected stance (a stance index, not -1).

        Returns (outcome, transitions assumed for an unexpected motion, leg to fire again after a
        failed tip or None). Before the first command the outcome is None unless the robot is
        not on the assumed start stance (then UNEXPECTED, propagated like a disturbance)."""
        if self._pending is None:
            if detected == self.estimate.stance:
                return None, (), None
            legs = tuple(shortest_transitions(self.estimate.stance, detected))
            self.estimate = replay(self.estimate, legs, self.slip)
            return TipOutcome.UNEXPECTED, legs, None
        before, leg, predicted = self._pending
        outcome = classify(detected, predicted.stance, before.stance)
        if outcome is TipOutcome.FAILED:
            self.estimate = before
            self.extra_ms[leg] = min(self.extra_ms[leg] + self.retry_increment_ms, self.max_extra_ms)
            return outcome, (), leg
        if outcome is TipOutcome.EXPECTED:
            self.estimate = predicted
            if not self.keep_extra:
                self.extra_ms[leg] = 0
            return outcome, (), None
        legs = tuple(shortest_transitions(before.stance, detected, first_leg=leg))
        self.estimate = replay(before, legs, self.slip)
        return outcome, legs, None

    def update(self, reading, t: float) -> FiringCommand | None:
        """Feedback at rest and the next command (see the class docstring).

        reading : (3,) accelerometer specific force, sensor axes; t : time [s] (non-decreasing).
        Returns None while no stance is identified (the pending firing stays pending), when the
        goal is reached (:attr:`status` "done"; a later disturbance resumes the plan) or when the
        pressure estimate no longer allows a tip ("exhausted", (6.6) diverges)."""
        detected = identify_stance(reading, self.table, self.min_cos)
        if detected == -1:
            self.log.append(TipEvent(t, -1, TipOutcome.UNKNOWN, (), None, self.estimator.p_gauge_mpa,
                                     self.estimate.centre))
            return None
        outcome, assumed, retry_leg = self._account(detected)
        self._pending = None
        cmd = None
        if self.status != "exhausted":
            leg = retry_leg if retry_leg is not None else self.planner.next_leg(self.estimate)
            self.status = "done" if leg is None else "running"
            if leg is not None:
                cmd = self._command(leg, t, retry_leg is not None)
        self.log.append(TipEvent(t, detected, outcome, assumed, cmd, self.estimator.p_gauge_mpa,
                                 self.estimate.centre))
        return cmd

    def _command(self, leg: int, t: float, retry: bool) -> FiringCommand | None:
        """The valve command for ``leg`` at time ``t`` [s]: (6.6) at the estimated pressure, rounded
        up, plus the leg's adaptive extra; the estimator accounts for the firing."""
        self.estimator.advance(t)
        try:
            base = self.strength.duration_ms(leg, self.estimator.p_gauge_mpa)
        except InputError:
            self.status = "exhausted"
            return None
        cmd = FiringCommand(leg, int(base + self.extra_ms[leg]), retry)
        self.estimator.fire(cmd.duration_ms)
        self._pending = (self.estimate, leg, self.planner.step(self.estimate, leg))
        return cmd
