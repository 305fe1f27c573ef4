"""The RATS hop primitives (issue 15; digest §2.6, §6.1 item 6; thesis §4.1.1, §4.4): the single-leg
forward hop and the three-leg vertical hop with per-leg balancing, and E15, the landing after a
three-leg hop (rest 10-30 cm from the launch point after a landing on fewer than three feet)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.rats import geometry as geo
from legsim.robots.rats.experiments import SIM_TIP_MODEL_SPOOL, hop_landing, stance_now
from legsim.robots.rats.hopping import forward_hop, thrust_directions, vertical_hop
from legsim.robots.rats.robot import build, schedule_policy
from legsim.robots.rats.valve_time import TipStrengthModel

LEGS = geo.STANCES[0]
R0 = geo.resting_rotation(0, 0.3)


def _hop(rats, script, t_final=2.0):
    """(result, drift of the centre at the apex [m], angular speed there [rad/s], rest distance [m])."""
    res = rats.simulate(t_final, schedule_policy(script), q0=rats.q_rest(0, 0.3))
    i = int(np.argmax(res.x[:, 2]))
    return (res, float(np.hypot(*(res.x[i, :2] - res.x[0, :2]))), float(np.linalg.norm(res.x[i, 22:25])),
            float(np.hypot(*(res.x[-1, :2] - res.x[0, :2]))))


def test_the_forward_hop_fires_the_stance_leg_nearest_the_heading_and_hops_along_its_thrust():
    """(4.1)-(4.3): the fired foot pushes the centre away along its leg; a 40 ms firing leaves the
    ground (a forward hop), and the centre lands along that leg's thrust (measured: 36 cm away, within
    0.01 rad of it, 0.31 s airborne), whichever of the three stance legs the heading picks."""
    rats = build(contact_set="rolling", valve="spool", p0=0.689e6)
    legs, d = thrust_directions(R0)
    assert sorted(legs) == sorted(LEGS) and np.allclose(np.linalg.norm(d, axis=1), 1.0)
    assert np.allclose(d @ d.T, [[1, -0.5, -0.5], [-0.5, 1, -0.5], [-0.5, -0.5, 1]], atol=1e-9)  # 120° apart
    picked = set()
    for k in range(3):
        thrust = math.atan2(d[k, 1], d[k, 0])
        script = forward_hop(R0, thrust + 0.5)   # within 60° of this leg's thrust: this leg
        assert script == [(int(legs[k]), 40, 0)]
        picked.add(script[0][0])
        res, *_ = _hop(rats, script, 1.5)
        disp = res.x[-1, :2] - res.x[0, :2]
        off = (math.atan2(disp[1], disp[0]) - thrust + math.pi) % (2 * math.pi) - math.pi
        assert np.hypot(*disp) > 0.2 and abs(off) < 0.01, (k, disp, off)
        assert (res.output("fn_total") == 0.0).sum() * 1e-3 > 0.2   # airborne: a hop, not a tip
    assert picked == set(int(k) for k in LEGS)


def test_a_vertical_hop_balanced_by_the_latencies_neither_drifts_nor_turns():
    """The stance legs' valves 2 ms apart in latency (11.16, 13.16, 15.16 ms). Fired at once for 40 ms
    each (the thesis's unbalanced hop), the early valve pushes first: at the apex the robot has drifted
    3.0 cm and turns at 0.57 rad/s, and it comes to rest 21 cm away on another stance. Balanced by the
    latencies (the slow valve commanded 2 and 4 ms before the others, each duration lengthened by its
    latency's excess over the mean, so the three open and close together): no drift, no turn, back on
    its stance. Balanced by durations alone (the thesis's (6.6) form, c_latency shifted by the same
    -2, 0, +2 ms) the impulses are equal but the openings still 2 ms apart: the apex drift falls to
    1.7 cm but the turn rises to 1.02 rad/s (measured)."""
    delta = np.zeros(12)
    delta[LEGS] = (-2.0, 0.0, 2.0)
    lat = 13.16 + delta
    rats = build(contact_set="rolling", valve="spool", p0=0.689e6, latency=1e-3 * lat)
    equal = vertical_hop(R0)
    assert equal == [(int(k), 40, 0) for k in LEGS]
    balanced = vertical_hop(R0, latency_ms=lat)
    assert balanced == [(int(LEGS[2]), 42, 2), (int(LEGS[1]), 40, 2), (int(LEGS[0]), 38, 0)]
    m = SIM_TIP_MODEL_SPOOL
    strength = TipStrengthModel(a=m.a, b=m.b, c_resistance=m.c_resistance,
                                c_latency=tuple(np.array(m.c_latency) + delta))
    by_durations = vertical_hop(R0, strength=strength, p_mpa=0.689)
    assert by_durations == [(int(LEGS[0]), 38, 0), (int(LEGS[1]), 40, 0), (int(LEGS[2]), 42, 0)]
    res_e, drift_e, turn_e, rest_e = _hop(rats, equal)
    res_b, drift_b, turn_b, rest_b = _hop(rats, balanced)
    _, drift_d, turn_d, _ = _hop(rats, by_durations)
    assert drift_e > 0.02 and turn_e > 0.3 and rest_e > 0.1 and stance_now(res_e.x[-1, 3:7]) != 0
    assert drift_b < 1e-3 and turn_b < 1e-2 and rest_b < 1e-3 and stance_now(res_b.x[-1, 3:7]) == 0
    assert drift_d < drift_e and turn_d > turn_e


def test_e15_a_landing_on_fewer_than_three_feet_tumbles_a_lattice_step_away_and_balancing_prevents_it():
    """E15 with the spool valves' latencies as E1 gives them (leg 6 11.25 ms, leg 3 14.58 ms, the others
    13.16 ms), 40 ms three-leg hops: from a stance of three mean legs the robot lands on three feet
    at once and stays; from one with the slow leg 3 it lands on two and tumbles onto the next stance,
    at rest 11.6 cm from the launch point (source: landings on fewer than three feet frequently tumble
    10-30 cm); from one with the fast leg 6 it lands on one foot and rocks back onto its own (0.7 cm).
    (`legsim demo rats_landing` runs all 20 stances: 5 tumble, all 11.6 cm.) Balanced by the
    latencies, each lands back on its own stance within 3 mm."""
    mean3, slow, fast = hop_landing((3, 0, 1))
    assert mean3.feet_at_touchdown == 3 and mean3.final_stance == 3 and mean3.rest_distance < 1e-3
    assert slow.feet_at_touchdown < 3 and slow.final_stance != 0 and 0.10 <= slow.rest_distance <= 0.30
    assert fast.feet_at_touchdown < 3 and fast.final_stance == 1 and fast.rest_distance < 0.01
    for h in hop_landing((0, 1), balance=True):
        assert h.final_stance == h.stance and h.rest_distance < 5e-3, h


def test_a_hop_script_starts_at_the_tick_a_policy_asks_for():
    """schedule_policy(script, t0): a closed-loop policy can start a hop script at any tick and add its
    firings to its own; the commands keep their spacing from t0 (here the balanced hop at 0.5 s)."""
    from types import SimpleNamespace

    lat = np.full(12, 13.16)
    lat[LEGS] += (-2.0, 0.0, 2.0)
    play = schedule_policy(vertical_hop(R0, latency_ms=lat), t0=0.5)
    fired = {}
    for tick in range(0, 600):
        for leg, ms in play(SimpleNamespace(t=tick * 1e-3)):
            fired[leg] = (tick, ms)
    assert fired == {int(LEGS[2]): (500, 42), int(LEGS[1]): (502, 40), int(LEGS[0]): (504, 38)}
    with pytest.raises(InputError, match=r"schedule_policy: t0 = -1.0: expected a time in \[0, 1e9\] s"):
        schedule_policy([(0, 40, 0)], t0=-1.0)


@pytest.mark.parametrize("call, fragment", [
    (lambda: forward_hop(np.eye(2), 0.0), r"expected the \(3, 3\) body-to-world rotation"),
    (lambda: forward_hop(R0, float("nan")), r"heading = nan: expected a finite angle"),
    (lambda: forward_hop(R0, "east"), r"heading = 'east'"),
    (lambda: forward_hop(R0, 0.0, 2.5), r"duration_ms = 2.5: expected a whole number of ms in \[1, 10000\]"),
    (lambda: forward_hop(R0, 0.0, 2**62), r"duration_ms = 4611686018427387904: expected a whole number"),
    (lambda: forward_hop(np.diag([1.0, 1.0, -1.0]), 0.0), r"expected the \(3, 3\) body-to-world rotation"),
    (lambda: forward_hop("", 0.0), r"rotation = '': expected the \(3, 3\) body-to-world rotation"),
    (lambda: vertical_hop(R0, 0), r"duration_ms = 0: expected a whole number"),
    (lambda: vertical_hop(R0, latency_ms=[13.0] * 3), r"latency_ms = .*: expected 12 latencies"),
    (lambda: vertical_hop(R0, latency_ms=[13.0] * 12, strength=SIM_TIP_MODEL_SPOOL, p_mpa=0.7),
     r"give latency_ms or strength, not both"),
    (lambda: vertical_hop(R0, strength=SIM_TIP_MODEL_SPOOL), r"p_mpa = None: balancing by a strength model"),
    (lambda: vertical_hop(R0, strength="table 6.1", p_mpa=0.7), r"strength = 'table 6.1': expected"),
])
def test_bad_hop_arguments_are_named(call, fragment):
    with pytest.raises(InputError, match=fragment):
        call()
