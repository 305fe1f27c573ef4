"""Accuracy and failure modes of the engine's integrators, and the sampled-controller schedule.

Expected values are closed forms: the harmonic oscillator x = cos ωt; ẋ = x² escapes at t = 1; the
zero-order-hold discretisation of τẏ = −y + Ku (a = e^(−T/τ), b = K(1 − a), computed here with
scipy.signal.cont2discrete) for the discrete PI loop.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import cont2discrete

from legsim.errors import SimulationError
from legsim.hybrid import Options, simulate
from legsim.hybrid._steppers import JAC_MAX_AGE
from models import odes

W = 2.0 * math.pi


def exact_x(t):
    return np.cos(W * t)


def oscillator_error(options, t_final=5.0):
    res = simulate(odes.build_oscillator(), t_final, options=options)
    return np.max(np.abs(res.x[:, 0] - exact_x(res.t))), res


@pytest.mark.parametrize("rtol", [1e-7, 1e-10])
def test_dp45_follows_the_harmonic_oscillator_to_the_tolerance_scale(rtol):
    err, res = oscillator_error(Options(rtol=rtol, atol=rtol * 1e-2, h_max=1.0))
    # 5 periods: global error stays within a small multiple of the requested tolerance
    assert err <= 50.0 * rtol
    assert res.t[-1] == 5.0


def test_dp45_error_shrinks_when_the_tolerance_is_tightened():
    loose, _ = oscillator_error(Options(rtol=1e-5, atol=1e-7, h_max=1.0))
    tight, _ = oscillator_error(Options(rtol=1e-10, atol=1e-12, h_max=1.0))
    assert tight < loose / 1000.0


def test_dense_output_records_between_steps_are_accurate():
    err, res = oscillator_error(Options(rtol=1e-10, atol=1e-12, h_max=1.0, record_period=0.001))
    assert res.stats["steps"] < res.n / 3  # most records are interpolated, not step ends
    assert err <= 5e-9


def test_dense_output_between_fixed_size_steps_converges_at_fourth_order_or_better():
    """Huge rtol/atol accept every step, so steps equal h_max; records at 0.001 s are almost all
    interpolated. The Shampine interpolant is 4th order: error ratio ≥ 2⁴ when h halves (allowing
    20 % slack)."""
    errs = []
    for h in (0.05, 0.025, 0.0125):
        err, res = oscillator_error(Options(rtol=1e3, atol=1e3, h_max=h, h_min=1e-6,
                                            record_period=0.001), t_final=1.0)
        assert res.stats["steps"] == pytest.approx(1.0 / h, abs=2)
        errs.append(err)
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all(ratios >= 0.8 * 16.0), ratios


def test_simsect_adaptive_rk4_never_steps_beyond_h_max():
    h_max = 0.004
    res = simulate(odes.build_oscillator(), 1.0,
                   options=Options(method="rk4", tolerance=1e-3, h_max=h_max, record_period=0.0))
    steps = np.diff(res.t)
    assert steps.max() <= h_max * (1 + 1e-12)
    assert res.stats["steps"] >= math.ceil(1.0 / h_max)
    assert res.stats["steps"] == res.n - 1


def test_simsect_adaptive_rk4_error_shrinks_with_its_tolerance():
    errs = []
    steps = []
    for tol in (1e-4, 1e-7, 1e-10):
        err, res = oscillator_error(Options(method="rk4", tolerance=tol, power=0.2, h_max=0.5))
        errs.append(err)
        steps.append(res.stats["steps"])
    assert errs[0] > 10 * errs[1] > 100 * errs[2]
    assert steps[0] < steps[1] < steps[2]
    assert errs[2] <= 1e-7


def test_fixed_step_rk4_global_error_is_fourth_order_in_h():
    errs = []
    for h in (0.02, 0.01, 0.005):
        res = simulate(odes.build_oscillator(), 5.0, options=Options(method="rk4_fixed", h_max=h))
        # accumulated rounding of t must not leave an extra sliver step at the end
        assert res.stats["steps"] == round(5.0 / h)
        # the phase error (the O(h⁴) part) shows in v at whole periods, so measure both
        xe, ve = exact_x(5.0), -W * math.sin(W * 5.0)
        errs.append(math.hypot(res.x[-1, 0] - xe, (res.x[-1, 1] - ve) / W))
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all((ratios > 13.0) & (ratios < 19.0)), ratios  # 2⁴ = 16


@pytest.mark.parametrize("method, t_tol", [("dp45", 1e-6), ("rk4", 1e-3)])
def test_a_solution_that_escapes_to_infinity_stops_with_step_underflow_and_keeps_records(method, t_tol):
    """ẋ = x², x(0) = 1: x = 1/(1 − t) escapes at t = 1; no step can follow it past that time."""
    with pytest.raises(SimulationError) as info:
        simulate(odes.build_blowup(), 2.0, options=Options(method=method, h_min=1e-12, h_max=0.1))
    err = info.value
    assert err.result.status == "step_underflow"
    assert "h_min" in str(err)
    assert abs(err.t - 1.0) <= t_tol
    res = err.result
    before = res.t < 0.9  # x <= 10 there; errors grow like x² near the escape time
    exact = 1.0 / (1.0 - res.t[before])
    assert np.max(np.abs(res.x[before, 0] / exact - 1.0)) <= 1e-4


@pytest.mark.parametrize("method", ["dp45", "rk4", "rk4_fixed"])
def test_a_vector_field_that_turns_nan_stops_the_run_as_nonfinite(method):
    with pytest.raises(SimulationError) as info:
        simulate(odes.build_nan_field(0.5), 2.0, options=Options(method=method, h_max=0.01))
    err = info.value
    assert err.result.status == "nonfinite"
    assert "non-finite" in str(err)
    assert 0.48 <= err.t <= 0.5
    assert np.all(np.isfinite(err.result.x))
    assert np.allclose(err.result.x[:, 0], err.result.t, atol=1e-12)


@pytest.mark.parametrize("method", ["dp45", "rk4", "rk4_fixed"])
def test_a_vector_field_that_is_nan_from_the_start_stops_at_t0_keeping_the_initial_record(method):
    with pytest.raises(SimulationError) as info:
        simulate(odes.build_nan_field(-1.0), 1.0, options=Options(method=method))
    assert info.value.result.status == "nonfinite" and info.value.t == 0.0
    assert info.value.result.n == 1 and info.value.result.t[0] == 0.0


def test_rk4_fixed_running_through_the_singularity_reports_nonfinite():
    with pytest.raises(SimulationError) as info:
        simulate(odes.build_blowup(), 3.0, options=Options(method="rk4_fixed", h_max=0.3))
    assert info.value.result.status == "nonfinite"


def test_the_sampled_controller_runs_exactly_at_every_sample_instant():
    """1 kHz over 1 s: 1001 calls including t0 and t_final, each at t = k·1e-3 (to 1e-12); a record
    at a sample instant shows the state after that sample's update, as the one at t0 does."""
    res = simulate(odes.build_sample_clock(1e-3), 1.0,
                   options=Options(sample_period=1e-3, record_period=0.0))
    s = dict(zip(res.state_names, res.x[-1], strict=True))
    assert s["calls"] == 1001.0
    assert s["max_dev"] <= 1e-12
    assert s["t_last"] == pytest.approx(1.0, abs=1e-12)
    assert res.x[0, 1] == 1.0  # the call at t0 = 0 happened before the first record
    # the state t_last takes the value of every sample time in turn
    times = np.unique(res.state("t_last"))
    times = times[times >= 0.0]
    assert times.size == 1001
    assert np.max(np.abs(times - np.arange(1001) * 1e-3)) <= 1e-12


def test_a_discrete_pi_loop_matches_the_zero_order_hold_recursion():
    """y_{k+1} = a y_k + b u_k with (a, b) from scipy's ZOH discretisation of τẏ = −y + Ku;
    e_k = r − y_k, I_k = I_{k−1} + T e_k, u_k = Kp e_k + Ki I_k."""
    tau, gain, kp, ki, r, ts = 0.1, 2.0, 0.8, 3.0, 1.0, 0.02
    ad, bd, _, _, _ = cont2discrete((np.array([[-1.0 / tau]]), np.array([[gain / tau]]),
                                     np.array([[1.0]]), np.array([[0.0]])), ts, method="zoh")
    a, b = float(ad[0, 0]), float(bd[0, 0])
    n = 100
    y = np.zeros(n + 1)
    integ = 0.0
    for k in range(n):
        e = r - y[k]
        integ += ts * e
        u = kp * e + ki * integ
        y[k + 1] = a * y[k] + b * u
    res = simulate(odes.build_pi_plant(), n * ts,
                   options=Options(sample_period=ts, record_period=ts, rtol=1e-11, atol=1e-13))
    assert res.n == n + 1
    assert np.max(np.abs(res.t - np.arange(n + 1) * ts)) <= 1e-12
    assert np.max(np.abs(res.x[:, 0] - y)) <= 1e-8
    assert abs(y[-1] - r) < 0.05 and np.max(y) > 0.5  # the loop did something (settles near r)


# ---- fixed-step Dormand–Prince 5 (Simulink's ode5), explicit Euler, and scipy's stiff solvers
# (pneumatic digest §7 item 9)


@pytest.mark.parametrize("method, steps, order", [("euler", (1e-3, 5e-4, 2.5e-4), 1),
                                                  ("dp5_fixed", (0.04, 0.02, 0.01), 5)])
def test_fixed_step_euler_and_dp5_global_errors_shrink_at_their_orders(method, steps, order):
    """Harmonic oscillator x = cos ωt over one period: halving h divides the final error by 2^order
    (±20 %); the step is exactly h_max (n = 1/h steps), and DP5 costs 6 evaluations a step (FSAL)."""
    errs = []
    for h in steps:
        res = simulate(odes.build_oscillator(), 1.0, options=Options(method=method, h_max=h))
        assert res.stats["steps"] == round(1.0 / h)
        if method == "dp5_fixed":
            assert res.stats["fevals"] == 6 * res.stats["steps"] + 1
        errs.append(math.hypot(res.x[-1, 0] - exact_x(1.0), (res.x[-1, 1] + W * math.sin(W)) / W))
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all((ratios > 0.8 * 2 ** order) & (ratios < 1.2 * 2 ** order)), ratios


def _ball_impacts(options):
    from legsim.examples import bouncing_ball

    g, e, h = 9.81, 0.9, 1.0
    res = simulate(bouncing_ball.build_model(), 4.0, x0={"y": h}, params={"g": g, "e": e}, options=options)
    v1 = math.sqrt(2.0 * g * h)
    n = np.arange(res.events.size)
    exact = math.sqrt(2.0 * h / g) + np.concatenate(([0.0], np.cumsum(2.0 * v1 * e ** n[1:] / g)))
    return res, exact


@pytest.mark.parametrize("method, tol", [("dp5_fixed", 1e-9), ("radau", 1e-6), ("bdf", 1e-5),
                                         ("ros23", 1e-6)])
def test_new_methods_locate_the_bouncing_ball_impacts_at_their_closed_form_times(method, tol):
    """y = y0 + v0 t − g t²/2 between impacts: DP5 and its dense output are exact on a quadratic,
    so its impacts are exact to the location precision; Radau/BDF/ROS23 to their tolerance scale."""
    res, exact = _ball_impacts(Options(method=method, h_max=0.05, rtol=1e-9, atol=1e-11))
    assert res.events.size >= 5
    assert np.max(np.abs(res.events["t"] - exact)) <= tol
    assert np.all(res.events["x"][:, 0] <= 1e-9)  # each impact on the ground, before the bounce
    assert res.t[-1] == 4.0


def test_euler_impact_times_converge_at_first_order():
    errs = []
    for h in (2e-3, 1e-3, 5e-4):
        res, exact = _ball_impacts(Options(method="euler", h_max=h))
        errs.append(np.max(np.abs(res.events["t"][:5] - exact[:5])))
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all((ratios > 1.6) & (ratios < 2.4)), ratios


@pytest.mark.parametrize("method", ["dp5_fixed", "euler", "radau", "bdf", "ros23"])
def test_the_sampled_pi_loop_runs_at_exact_instants_with_every_new_method(method):
    """The ZOH recursion of the test above, with each new method (Euler and DP5 at a step that divides
    the sample period; their error is the discretisation's: checked loosely)."""
    tau, gain, kp, ki, r, ts = 0.1, 2.0, 0.8, 3.0, 1.0, 0.02
    ad, bd, _, _, _ = cont2discrete((np.array([[-1.0 / tau]]), np.array([[gain / tau]]),
                                     np.array([[1.0]]), np.array([[0.0]])), ts, method="zoh")
    y = np.zeros(51)
    integ = 0.0
    for k in range(50):
        e = r - y[k]
        integ += ts * e
        y[k + 1] = float(ad[0, 0]) * y[k] + float(bd[0, 0]) * (kp * e + ki * integ)
    res = simulate(odes.build_pi_plant(), 50 * ts,
                   options=Options(method=method, h_max=1e-3, sample_period=ts, record_period=ts,
                                   rtol=1e-10, atol=1e-12))
    assert res.n == 51
    assert np.max(np.abs(res.t - np.arange(51) * ts)) <= 1e-12
    tol = {"dp5_fixed": 1e-9, "euler": 2e-2, "radau": 1e-7, "bdf": 1e-5, "ros23": 1e-7}[method]
    assert np.max(np.abs(res.x[:, 0] - y)) <= tol


def test_an_unknown_method_names_the_new_ones():
    from legsim.errors import InputError

    with pytest.raises(InputError, match="dp5_fixed.*euler.*radau"):
        Options(method="ode45")


# ------------------------------------------------------------------- the compiled stiff method


@pytest.mark.parametrize("rtol", [1e-3, 1e-5, 1e-7])
def test_ros23_follows_prothero_robinson_at_lambda_minus_a_million_within_its_tolerance(rtol):
    """ẋ = λ (x − cos t) − sin t, λ = −10⁶: x = cos t. An explicit method's stable step is ~3 µs here
    (DP45 took 1.51 million steps for these 5 s at every one of these tolerances, measured); the
    L-stable Rosenbrock pair follows the slow solution with steps set by accuracy alone (measured:
    103, 1008 and 10 031 steps, errors 0.24 × rtol), ∂f/∂t evaluated at every step as the field is
    not autonomous."""
    res = simulate(odes.build_prothero_robinson(), 5.0,
                   options=Options(method="ros23", rtol=rtol, atol=1e-2 * rtol, h_max=1.0,
                                   record_period=0.01))
    assert np.max(np.abs(res.x[:, 0] - np.cos(res.t))) <= rtol
    # second order: ten times the steps for a hundredth of the tolerance
    assert res.stats["steps"] <= 1.5 * 10.0 * (1e-3 / rtol) ** 0.5 * 103
    assert res.stats["jacobians"] >= res.stats["steps"] / (JAC_MAX_AGE + 1)  # each reused ≤ JAC_MAX_AGE steps


def test_ros23_converges_at_second_order_with_a_reused_jacobian():
    """Fixed steps (huge tolerances accept every step) on the oscillator, whose Jacobian is constant:
    the error at the steps' ends falls by 2² when h halves (ode23s's pair keeps its order with the
    W of an older point; 20 % slack)."""
    errs = []
    for h in (0.02, 0.01, 0.005):
        res = simulate(odes.build_oscillator(), 1.0,
                       options=Options(method="ros23", rtol=1e3, atol=1e3, h_max=h, h_min=1e-6))
        errs.append(np.max(np.abs(res.x[:, 0] - exact_x(res.t))))
        assert res.stats["steps"] == pytest.approx(1.0 / h, abs=2)
    ratios = np.array(errs[:-1]) / np.array(errs[1:])
    assert np.all((ratios > 3.2) & (ratios < 4.8)), ratios


def test_ros23_records_between_its_steps_from_its_continuous_extension():
    """Records at 1 ms between ~6.6 ms steps are as accurate as the steps' ends (the second-order
    method's own global error, 2.6e-3 after five periods at rtol 1e-5, measured)."""
    at_steps, _ = oscillator_error(Options(method="ros23", rtol=1e-5, atol=1e-7, h_max=1.0))
    err, res = oscillator_error(Options(method="ros23", rtol=1e-5, atol=1e-7, h_max=1.0, record_period=0.001))
    assert res.stats["steps"] < res.n / 3  # most records are interpolated
    assert err <= 1.05 * at_steps
