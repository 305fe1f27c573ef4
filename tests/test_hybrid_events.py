"""Event detection, location and bookkeeping of the hybrid engine (SimSect digest §2, §6.3 items 2–4).

Expected values are analytic: a ball dropped from h hits the ground at t* = sqrt(2h/g); the probe
models of ``tests/models/probes.py`` cross their guards at instants chosen in advance.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import SimulationError
from legsim.examples import bouncing_ball, coulomb_block
from legsim.hybrid import Direction, Options, Placement, simulate
from models import probes

G = 9.81
H = 1.3
T_HIT = math.sqrt(2.0 * H / G)


@pytest.mark.parametrize("method", ["dp45", "rk4", "rk4_fixed"])
def test_a_dropped_ball_hits_the_ground_at_sqrt_2h_over_g_with_the_guard_located_to_stop_precision(method):
    opts = Options(method=method, rtol=1e-10, atol=1e-12, tolerance=1e-10, h_max=1e-2,
                   stop_precision=1e-10)
    res = simulate(bouncing_ball.build_model(), 0.6, x0={"y": H, "v": 0.0}, params={"g": G},
                   options=opts)
    assert res.events.size == 1
    ev = res.events[0]
    y_at_event = ev["x"][0]
    assert abs(y_at_event) <= 1e-10
    # free fall is a quadratic: RK4 and DP45 are exact on it, so the time error is the location
    # error |y| / |v| plus rounding
    assert abs(ev["t"] - T_HIT) <= 1e-9
    # the reset flipped the velocity: v+ = -e v- with v- = -g t*
    i = np.flatnonzero(res.t == ev["t"])
    assert i.size == 2
    assert res.x[i[1], 1] == pytest.approx(0.9 * G * T_HIT, rel=1e-9)


def test_a_result_names_its_events_by_their_guards():
    model = bouncing_ball.build_model()
    res = simulate(model, 1.5, x0={"y": H, "v": 0.0}, params={"g": G})
    assert res.events.size >= 2
    assert res.event_names() == [model.guards[0].name] * res.events.size
    assert res.guard_names == tuple(g.name for g in model.guards)


@pytest.mark.parametrize("placement, sign", [(Placement.LEFT, 1.0), (Placement.RIGHT, -1.0)])
def test_left_placement_reports_the_pre_crossing_sign_and_right_the_post_crossing_sign(placement, sign):
    res = simulate(bouncing_ball.build_model(placement), 0.6, x0={"y": H}, params={"g": G},
                   options=Options(stop_precision=1e-10))
    y_event = res.events["x"][0, 0]
    assert sign * y_event > 0.0  # LEFT: still above ground; RIGHT: just below
    assert abs(y_event) <= 1e-10
    assert abs(res.events["t"][0] - T_HIT) <= 1e-9


def test_records_fall_on_exact_multiples_of_the_record_period_across_events():
    res = simulate(bouncing_ball.build_model(), 3.0, params={"g": G},
                   options=Options(record_period=0.01))
    assert res.events.size >= 3  # several bounces happened inside the run
    k = np.arange(res.n)
    assert res.n == 301
    assert np.max(np.abs(res.t - k * 0.01)) <= 1e-12
    # the records are the exact parabola of the first flight: y = 1 - g t²/2 before the hit
    first = res.t < res.events["t"][0]
    assert np.max(np.abs(res.x[first, 0] - (1.0 - 0.5 * G * res.t[first] ** 2))) <= 1e-9


@pytest.mark.parametrize("t_final, period", [(1.2345, 0.0), (1.005, 0.01), (1.0, 0.1)])
def test_the_last_record_is_at_the_final_time_exactly(t_final, period):
    res = simulate(bouncing_ball.build_model(), t_final, options=Options(record_period=period))
    assert res.t[-1] == t_final
    # with period 0 an event is recorded on both sides of its reset (equal times)
    assert np.all(np.diff(res.t) >= 0.0) and res.t.max() == t_final
    if period > 0:
        assert np.all(np.diff(res.t) > 0.0)
        n_mult = int(np.floor(t_final / period + 1e-9)) + 1  # multiples of the period in [0, tf]
        k = np.arange(n_mult)
        assert np.max(np.abs(res.t[:n_mult] - k * period)) <= 1e-12
        assert res.n == n_mult + (0 if abs(t_final - (n_mult - 1) * period) < 1e-12 else 1)


def test_chattering_between_two_modes_stops_with_an_error_naming_the_mode_and_guard_and_keeps_records():
    """Coulomb block sliding forward from v0 = 1 m/s without Filippov sliding: once v reaches 0
    with |F| < μmg, both modes' fields point into v = 0 and the engine flips modes until
    max_transitions. Before that the records follow v(t) = v0 + F0/(mω)(1 − cos ωt) − μg t."""
    m, mu, g, f0, w = 1.0, 0.5, 9.81, 2.0, 2.0  # F0 < μmg: the block must stop and stick
    model = coulomb_block.build_model()
    with pytest.raises(SimulationError) as info:
        simulate(model, 3.0, x0={"v": 1.0}, params={"F0": f0},
                 options=Options(sliding=False, max_transitions=40, record_period=0.01))
    err = info.value
    msg = str(err)
    assert "chattering" in msg and "max_transitions" in msg
    assert "forward_stop" in msg or "backward_stop" in msg
    assert err.mode in ("forward", "backward") and f"mode {err.mode}" in msg
    res = err.result
    assert res.status == "chattering"
    assert res.stats["transitions"] == 41 and res.events.size == 41  # stopped at the 41st of 40
    assert np.ptp(res.events["t"][1:]) <= 1e-9  # all flips at one instant: pure chatter
    t_stop = res.t[-1]
    assert res.n > 10 and t_stop <= err.t
    v_exact = 1.0 + f0 / (m * w) * (1.0 - np.cos(w * res.t)) - mu * g * res.t
    assert np.max(np.abs(res.x[:, 1] - v_exact)) <= 1e-7
    # the chatter starts where the closed-form velocity first reaches zero
    from scipy.optimize import brentq
    t_stop_exact = brentq(lambda t: 1.0 + f0 / (m * w) * (1.0 - math.cos(w * t)) - mu * g * t, 0.01, 1.0)
    assert abs(err.t - t_stop_exact) <= 1e-6


def test_the_earliest_of_several_crossings_inside_one_step_wins():
    # one huge first step (h0 = 2 s) carries the clock past both T0 = 0.4 and T1 = 0.7
    res = simulate(probes.build_tie(0.4, 0.7), 1.0, options=Options(h0=2.0, h_max=10.0))
    ev = res.events
    assert ev.size == 2
    assert abs(ev["t"][0] - 0.4) <= 1e-10 and ev["guard"][0] == 0
    assert abs(ev["t"][1] - 0.7) <= 1e-10
    s = dict(zip(res.state_names, res.x[-1], strict=True))
    assert s["count_a"] == 1.0 and abs(s["t_a"] - 0.4) <= 1e-10
    assert s["n_events"] == 2.0


@pytest.mark.parametrize("h0", [0.0, 2.0, 0.05])
def test_simultaneous_crossings_fire_together_in_one_reset_deterministically(h0):
    runs = [simulate(probes.build_tie(0.4, 0.7), 1.0, options=Options(h0=h0, h_max=10.0))
            for _ in range(2)]
    res = runs[0]
    s = dict(zip(res.state_names, res.x[-1], strict=True))
    # b and c cross at T1 together: one reset saw both fired, at one time
    assert s["count_b"] == 1.0 and s["count_c"] == 1.0
    assert s["t_b"] == s["t_c"]
    assert abs(s["t_b"] - 0.7) <= 1e-10
    assert s["n_events"] == 2.0  # a, then {b, c}: two resets, not three
    assert res.events.size == 2 and res.events["guard"][1] in (1, 2)
    # deterministic: a second run gives bit-identical events and states
    assert np.array_equal(runs[0].events, runs[1].events)
    assert np.array_equal(runs[0].x, runs[1].x)


@pytest.mark.parametrize("direction, zeros", [
    (Direction.RISING, [0.75, 1.75, 2.75]),
    (Direction.FALLING, [0.25, 1.25, 2.25]),
    (Direction.EITHER, [0.25, 0.75, 1.25, 1.75, 2.25, 2.75]),
])
def test_a_guard_fires_only_on_crossings_in_its_declared_direction(direction, zeros):
    """g = cos(2π s): falling zeros at 1/4 + k, rising zeros at 3/4 + k."""
    res = simulate(probes.build_wave(direction), 3.0)
    assert res.events.size == len(zeros)
    assert np.max(np.abs(res.events["t"] - np.array(zeros))) <= 1e-9
    slope = -np.sin(2.0 * np.pi * res.events["t"])  # sign of dg/dt at each event
    if direction == Direction.RISING:
        assert np.all(slope > 0)
    elif direction == Direction.FALLING:
        assert np.all(slope < 0)
    assert res.x[-1, 1] == len(zeros)


def test_inactive_nan_guards_never_fire_even_when_they_reappear_on_the_crossed_side():
    res = simulate(probes.build_nan_guard(), 2.0)
    # only "appears_positive" (NaN, then 1 - s) fires, at s = 1
    assert res.events.size == 1
    assert res.events["guard"][0] == 1
    assert abs(res.events["t"][0] - 1.0) <= 1e-10
    assert res.x[-1, 1] == 1.0


def test_records_end_exactly_at_t_final_without_a_duplicate_past_it():
    from legsim.examples import bouncing_ball

    res = simulate(bouncing_ball.build_model(), 0.3, options=Options(record_period=0.1))
    assert list(res.t) == [0.0, 0.1, 0.2, 0.3]


def test_an_infinite_derivative_at_the_start_is_reported_as_nonfinite_for_dp45():
    from models import odes

    with pytest.raises(SimulationError) as info:
        simulate(odes.build_blowup(), 1.0, x0=[1e200], options=Options(method="dp45"))
    assert info.value.result.status == "nonfinite"
