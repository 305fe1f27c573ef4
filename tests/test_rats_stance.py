"""RATS closed-loop tipping logic: RATS digest §6.2 T6 (stance identification, calibration, recovery)
and §3.4.

Accelerometer model used here (digest §1.4): ±1.5 g range, 12-bit ADC (LSB = 3 g / 4096 = 0.73 mg),
plus white Gaussian noise of 0.02 g rms per axis at rest. Why 0.02 g: the ±1.5 g-selectable MEMS
parts of the time (e.g. a 350 µg/√Hz device behind a ~150 Hz output filter) give ≈ 5 mg rms per
raw sample; 0.02 g is four times that, to cover vibration and electrical noise, and ignores the
thesis's 0.5 Hz low-pass, which would cut it further.
"""

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from legsim.errors import InputError
from legsim.robots.rats import geometry as g
from legsim.robots.rats.planner import in_triangle, initial_state, line_path, tip
from legsim.robots.rats.stance import (
    G0,
    STANCE_DISTANCES,
    ClosedLoopTipper,
    TipOutcome,
    calibrate_mounting,
    classify,
    expected_readings,
    identify_stance,
    replay,
    shortest_transitions,
)

LSB = 3.0 * G0 / 4096
NOISE = 0.02 * G0


def _adc(f):
    return np.clip(np.round(np.asarray(f) / LSB) * LSB, -1.5 * G0, 1.5 * G0 - LSB)


def _reading_at_rest(stance, yaw, mounting):
    """Specific force +g up (world), seen in sensor axes, for the robot resting on ``stance``."""
    r_body_world = g.resting_rotation(stance, yaw)
    return np.asarray(mounting).T @ (r_body_world.T @ np.array([0.0, 0.0, G0]))


def _random_mounting(seed):
    return Rotation.random(random_state=seed).as_matrix()


def test_noise_free_readings_identify_all_20_stances_at_any_yaw():
    # T6: 100 %
    for seed in range(5):
        m = _random_mounting(seed)
        table = expected_readings(m)
        for s in range(20):
            for yaw in (0.0, 0.5, 2.0, -2.9):
                reading = _reading_at_rest(s, yaw, m)
                assert np.allclose(reading, table[s])          # the yaw does not change gravity
                assert identify_stance(reading, table) == s


def test_quantised_noisy_readings_at_rest_identify_at_least_99_percent_of_stances():
    # T6: 12-bit over +-1.5 g and 0.02 g noise, 20 stances x 250 trials, seeded
    rng = np.random.default_rng(11)
    m = _random_mounting(3)
    table = expected_readings(m)
    hits = total = 0
    for s in range(20):
        for _ in range(250):
            yaw = rng.uniform(-np.pi, np.pi)
            reading = _adc(_reading_at_rest(s, yaw, m) + rng.normal(0.0, NOISE, 3))
            hits += identify_stance(reading, table) == s
            total += 1
    assert hits / total >= 0.99


def test_identification_takes_only_positive_projections_and_rejects_a_zero_reading():
    table = expected_readings()
    assert identify_stance(np.zeros(3), table) == -1
    # a reading far from every stance direction passes min_cos = 0 but not a strict threshold
    between = table[0] / G0 + table[g.TRANSITIONS[0, 0]] / G0
    assert identify_stance(between, table) in (0, g.TRANSITIONS[0, 0])
    assert identify_stance(between, table, min_cos=0.99) == -1
    # a finite reading of any size has a direction: no overflow to a zero vector
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert identify_stance(1e300 * table[5] / G0, table) == 5
        assert identify_stance(1e-300 * table[7] / G0, table) == 7
    with pytest.raises(InputError, match="reading"):
        identify_stance([1.0, 2.0], table)


@pytest.mark.parametrize("n_stances", [4, 8])
def test_calibration_recovers_a_random_mounting_rotation_within_1_deg(n_stances):
    # T6: 1 s of readings (16 samples at 16 Hz) per stance, quantised and noisy, 40 random mountings
    rng = np.random.default_rng(n_stances)
    worst = 0.0
    for seed in range(40):
        m = _random_mounting(100 + seed)
        stances = np.repeat(rng.choice(20, n_stances, replace=False), 16)
        readings = _adc(expected_readings(m)[stances] + rng.normal(0.0, NOISE, (len(stances), 3)))
        est, rms = calibrate_mounting(readings, stances)
        worst = max(worst, np.degrees(Rotation.from_matrix(est @ m.T).magnitude()))
        assert rms < np.radians(5)
        table = expected_readings(est)
        assert [identify_stance(expected_readings(m)[s], table) for s in range(20)] == list(range(20))
    assert worst < 1.0


def test_calibration_needs_two_non_parallel_gravity_directions():
    antipodal = int(np.argmin(g.GRAVITY_DIRECTIONS @ g.GRAVITY_DIRECTIONS[0]))
    readings = expected_readings()[[0, antipodal]]
    with pytest.raises(InputError, match="parallel"):
        calibrate_mounting(readings, np.array([0, antipodal]))
    with pytest.raises(InputError, match="stances"):
        calibrate_mounting(readings, np.array([0, 20]))


def test_the_detected_stance_is_classified_as_expected_failed_or_unexpected():
    assert classify(5, 5, 0) is TipOutcome.EXPECTED
    assert classify(0, 5, 0) is TipOutcome.FAILED
    assert classify(7, 5, 0) is TipOutcome.UNEXPECTED
    assert classify(-1, 5, 0) is TipOutcome.UNKNOWN


def test_bfs_finds_a_shortest_transition_sequence_between_every_pair_of_stances():
    # BFS (deque) against scipy.sparse.csgraph distances; max 5 hops (the diameter)
    assert STANCE_DISTANCES.max() == 5
    for a in range(20):
        for b in range(20):
            legs = shortest_transitions(a, b)
            assert len(legs) == STANCE_DISTANCES[a, b]
            s = a
            for leg in legs:
                s = g.transition(s, leg)
            assert s == b


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_k_uncommanded_tips_are_recovered_by_reverse_location_propagation(k):
    # T6: a commanded tip followed by k random uncommanded tips (40 random sequences per k)
    rng = np.random.default_rng(k)
    for _ in range(40):
        start = int(rng.integers(20))
        tipper = ClosedLoopTipper(line_path((0, 0), (5, 0)), start, yaw=float(rng.uniform(-3, 3)))
        table = expected_readings()
        before = tipper.estimate
        cmd = tipper.update(table[start], 0.0)
        truth = tip(before, cmd.leg)
        for _j in range(k):
            truth = tip(truth, int(rng.choice(truth.legs)))
        detected = identify_stance(table[truth.stance], table)
        legs = shortest_transitions(before.stance, detected, first_leg=cmd.leg)
        assert len(legs) == STANCE_DISTANCES[before.stance, detected] <= 5
        assert replay(before, legs).stance == detected
        tipper.update(table[truth.stance], 1.0)
        event = tipper.log[-1]
        assert tipper.estimate.stance == truth.stance
        if detected == before.stance:
            assert event.outcome is TipOutcome.FAILED            # the disturbance undid the tip
        elif detected == g.TRANSITIONS[before.stance, cmd.leg]:
            assert event.outcome is TipOutcome.EXPECTED
        else:
            assert event.outcome is TipOutcome.UNEXPECTED
            assert list(event.assumed_legs) == legs
            if k == 1:   # girth 5: the path of length 2 is unique, so the position is exact
                assert np.allclose(tipper.estimate.centre, truth.centre)


def test_a_failed_tip_fires_the_same_leg_again_for_longer():
    tipper = ClosedLoopTipper(line_path((0, 0), (3, 0)), 0, retry_increment_ms=2)
    table = expected_readings()
    first = tipper.update(table[0], 0.0)
    again = tipper.update(table[0], 1.0)                 # still on stance 0: the tip failed
    assert tipper.log[-1].outcome is TipOutcome.FAILED
    assert again.leg == first.leg and again.retry
    assert again.duration_ms >= first.duration_ms + 2
    third = tipper.update(table[0], 2.0)
    assert third.leg == first.leg and third.duration_ms >= first.duration_ms + 4
    predicted = g.TRANSITIONS[0, first.leg]
    nxt = tipper.update(table[predicted], 3.0)           # the tip finally succeeded
    assert tipper.log[-1].outcome is TipOutcome.EXPECTED and not nxt.retry
    assert tipper.estimate.stance == predicted


def test_an_unidentified_reading_keeps_the_firing_pending():
    tipper = ClosedLoopTipper(line_path((0, 0), (3, 0)), 0)
    table = expected_readings()
    cmd = tipper.update(table[0], 0.0)
    assert tipper.update(np.zeros(3), 0.5) is None and tipper.status == "running"
    tipper.update(table[g.TRANSITIONS[0, cmd.leg]], 1.0)
    assert tipper.log[-1].outcome is TipOutcome.EXPECTED


def test_closed_loop_tipping_reaches_the_goal_despite_failed_tips_and_disturbances():
    # a virtual robot on the motion model: 15 % of tips fail, 10 % add an uncommanded tip;
    # readings quantised and noisy, IMU mounted at a calibrated random rotation
    rng = np.random.default_rng(7)
    m = _random_mounting(42)
    goal = np.array([3.0, 1.0])
    tipper = ClosedLoopTipper(line_path((0, 0), goal), 6, yaw=0.3, mounting=m)
    truth = initial_state(6, g.RatsDims(), 0.3)
    table = expected_readings(m)
    outcomes = []
    t = 0.0
    for _ in range(200):
        cmd = tipper.update(_adc(table[truth.stance] + rng.normal(0.0, NOISE, 3)), t)
        outcomes.append(tipper.log[-1].outcome)
        if cmd is None:
            break
        u = rng.random()
        if u >= 0.15:
            truth = tip(truth, cmd.leg)
            if u >= 0.9:
                truth = tip(truth, int(rng.choice(truth.legs)))
        t += 1.0
    assert tipper.status == "done"
    assert in_triangle(truth.feet, goal)
    assert tipper.estimate.stance == truth.stance
    assert {TipOutcome.FAILED, TipOutcome.UNEXPECTED} <= set(outcomes)
    assert tipper.estimator.p_gauge_mpa < 0.689
