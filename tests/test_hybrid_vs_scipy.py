"""The engine against scipy.integrate.solve_ivp with events, and SLIP's conservation and symmetry laws
(SimSect digest §6.3 items 5–6).

The scipy side is ``benchmarks/_slip_numpy.py``, a numpy twin of the SLIP written from digest §3
without legsim, restarted at every chart like a SimSect run; the bouncing ball twin is below. The
energy and apex tests compute their expected values from physics (energy ½m|v|² + mgy + ½k(ρ − q_0)²;
time-reversal symmetry of a stance), not from legsim helpers. The runs and the energy and apex
measurements live in ``legsim.validation.simsect`` (shared with `legsim report`).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from legsim.examples import bouncing_ball
from legsim.hybrid import Options, simulate
from legsim.robots import slip
from legsim.validation import simsect as case

_TWIN = Path(__file__).resolve().parents[1] / "benchmarks" / "_slip_numpy.py"
_spec = importlib.util.spec_from_file_location("_slip_numpy", _TWIN)
sn = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("_slip_numpy", sn)  # dataclasses look their module up there
_spec.loader.exec_module(sn)

TIGHT = Options(rtol=1e-10, atol=1e-12)
T_10_STRIDES = case.T_10_STRIDES  # 6.9 s: one stride of the default runner lasts 0.667 s


@pytest.fixture(scope="module")
def slip_default():
    return case.slip_default_run()  # TIGHT options


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
def test_slip_event_times_and_states_agree_with_solve_ivp_over_ten_strides(slip_default, method):
    twin = sn.simulate_slip([0.0, 0.9, 1.0, 0.0], T_10_STRIDES, method=method, rtol=1e-10, atol=1e-12)
    t_ref, before_ref, after_ref, x_ref = twin.arrays()
    ev = slip_default.events
    assert np.sum(ev["mode_before"] == slip.DECOMPRESSION) >= 10  # ten liftoffs: ten strides
    assert ev.size == t_ref.size
    assert np.array_equal(ev["mode_before"], before_ref)
    assert np.array_equal(ev["mode_after"], after_ref)
    assert np.max(np.abs(ev["t"] - t_ref)) <= 1e-7
    assert np.max(np.abs(ev["x"][:, :4] - x_ref)) <= 1e-7
    apex = ev["mode_before"] == slip.ASCENT
    assert np.max(np.abs(ev["x"][apex, 1] - x_ref[apex, 1])) <= 1e-7
    assert np.max(np.abs(ev["x"][apex, 2] - x_ref[apex, 2])) <= 1e-7


def test_slip_starts_in_decompression_and_cycles_through_the_four_charts(slip_default):
    modes = slip_default.events["mode_before"]
    assert modes[0] == slip.DECOMPRESSION
    expected = (slip.DECOMPRESSION + np.arange(modes.size)) % 4  # 3, 0, 1, 2, 3, ...
    assert np.array_equal(modes, expected)


def test_bouncing_ball_impact_times_agree_with_solve_ivp_and_the_closed_form():
    g, e, h = 9.81, 0.9, 1.0
    res = simulate(bouncing_ball.build_model(), 4.0, x0={"y": h}, params={"g": g, "e": e},
                   options=TIGHT)

    def hit(t, s):
        return s[0]

    hit.terminal, hit.direction = True, -1
    t, s, t_ref = 0.0, np.array([h, 0.0]), []
    while True:
        sol = solve_ivp(lambda tt, ss: [ss[1], -g], (t, 4.0), s, rtol=1e-10, atol=1e-12, events=hit)
        if sol.status != 1:
            break
        t = float(sol.t_events[0][0])
        s = np.array([0.0, -e * sol.y_events[0][0][1]])
        t_ref.append(t)
    t_ref = np.array(t_ref)
    # closed form: first fall sqrt(2h/g), then flights of 2 v_n / g with v_n = e^n sqrt(2gh)
    v1 = math.sqrt(2.0 * g * h)
    n = np.arange(t_ref.size)
    t_exact = math.sqrt(2.0 * h / g) + np.concatenate(([0.0], np.cumsum(2.0 * v1 * e ** (n[1:]) / g)))
    assert res.events.size == t_ref.size >= 5
    assert np.max(np.abs(res.events["t"] - t_ref)) <= 1e-8
    assert np.max(np.abs(res.events["t"] - t_exact)) <= 1e-8


def test_slip_total_energy_is_conserved_to_the_tolerance_scale_when_gravity_is_equal():
    # energy ½m|v|² + m g y + ½k(ρ − q_0)² (case.slip_energy) of a DP45 run at rtol 1e-8, atol 1e-10
    p = sn.SlipParams()
    assert p.g_stance == p.g_flight
    model = slip.build_model()
    assert [model.param_defaults[model.param_names.index(n)] for n in ("body_mass", "k", "q_0", "q_rt")] \
        == [p.body_mass, p.k, p.q_0, p.q_rt]  # the physics parameters of the twin
    drift, _, n = case.slip_energy_drift()
    assert n > 200
    assert drift <= 1e-6
    # with unequal gravities energy is not conserved (the test can tell the difference)
    _, flight_drift, _ = case.slip_energy_drift(12.0)
    assert flight_drift > 1e-3


def _apexes(res):
    return case.slip_apexes(res)


def test_slip_apex_map_is_the_identity_after_a_symmetric_first_stance(slip_default):
    """The default start (leg vertical, ẏ = 0) is the midpoint of a symmetric stance."""
    y, xd = _apexes(slip_default)
    assert y.size >= 10
    assert np.max(np.abs(y - y[0])) <= 1e-6
    assert np.max(np.abs(xd - xd[0])) <= 1e-6


def test_slip_apex_states_return_with_period_two_after_an_asymmetric_touchdown():
    """Start at an apex (y = 1.1, ẋ = 1) with touchdown angle −0.2 rad: stance 2 is the mirror of
    stance 1, so apex 2 equals the start and apexes alternate."""
    y0, xd0 = 1.1, 1.0
    assert case.ASYMMETRIC_START == {"y": y0, "xdot": xd0, "ydot": 0.0, "touchdown_angle": -0.2}
    res = case.slip_asymmetric_run()  # 8 s, TIGHT options
    y, xd = _apexes(res)
    assert y.size >= 8
    assert abs(y[0] - y0) > 1e-3 and abs(xd[0] - xd0) > 1e-3  # the first stance was asymmetric
    assert np.max(np.abs(y[1::2] - y0)) <= 1e-6 and np.max(np.abs(xd[1::2] - xd0)) <= 1e-6
    assert np.max(np.abs(y[0::2] - y[0])) <= 1e-6 and np.max(np.abs(xd[0::2] - xd[0])) <= 1e-6


def test_slip_touchdown_puts_the_foot_on_the_ground_at_the_touchdown_leg_length(slip_default):
    res = slip_default
    p = sn.SlipParams()
    td_times = res.events["t"][res.events["mode_before"] == slip.DESCENT]
    assert td_times.size >= 9
    for t in td_times:
        i = np.flatnonzero((res.t == t) & (res.mode == slip.COMPRESSION))
        assert i.size == 1
        xs = res.x[i[0]]
        assert abs(xs[5]) <= 1e-9  # footy
        assert abs(math.hypot(xs[0] - xs[4], xs[1] - xs[5]) - p.q_rt) <= 1e-9


@pytest.fixture(scope="module")
def slip_reference():
    """A tighter reference than the engine runs: DOP853, rtol 1e-12, atol 1e-13."""
    return sn.simulate_slip([0.0, 0.9, 1.0, 0.0], T_10_STRIDES, method="DOP853", rtol=1e-12,
                            atol=1e-13).arrays()


@pytest.mark.parametrize("options, bound", [
    (Options(method="rk4", tolerance=1e-8, h_max=1e-2), 1e-5),
    (Options(method="rk4", tolerance=1e-10, h_max=1e-2), 1e-7),
    (Options(method="rk4", tolerance=1e-12, h_max=1e-2), 1e-9),
    (Options(method="rk4_fixed", h_max=1e-3), 1e-6),
    (Options(method="dp45", rtol=1e-10, atol=1e-12), 1e-7),
    (Options(method="dp45", rtol=1e-10, atol=1e-12, restart_step_after_event=True), 1e-7),
])
def test_every_integrator_reproduces_the_slip_events_of_a_tight_scipy_reference(slip_reference, options,
                                                                                 bound):
    t_ref, before_ref, _, x_ref = slip_reference
    res = simulate(slip.build_model(), T_10_STRIDES, options=options)
    ev = res.events
    assert ev.size == t_ref.size and np.array_equal(ev["mode_before"], before_ref)
    assert np.max(np.abs(ev["t"] - t_ref)) <= bound
    assert np.max(np.abs(ev["x"][:, :4] - x_ref)) <= bound


def test_slip_event_states_lie_on_the_crossed_side_of_their_guard_within_stop_precision(slip_default):
    """RIGHT placement (digest §3.2): each chart's boundary function, computed here from the state
    at the event, is negative and within stop_precision (1e-10) of zero."""
    ev = slip_default.events
    x = ev["x"]
    lx, ly = x[:, 0] - x[:, 4], x[:, 1] - x[:, 5]
    rho = np.hypot(lx, ly)
    b = np.select([ev["mode_before"] == slip.ASCENT, ev["mode_before"] == slip.DESCENT,
                   ev["mode_before"] == slip.COMPRESSION],
                  [x[:, 3], x[:, 1] - np.cos(x[:, 6]), -(lx * x[:, 2] + ly * x[:, 3]) / rho],
                  1.0 - rho)
    assert np.all(b < 0.0) and np.all(b >= -1e-10)


def test_restarting_the_step_at_mode_changes_trades_rejections_for_steps():
    # keeping the controller's step across an event: the first step in stance is often too long
    # (rejected); restarting (solve_ivp style) costs extra short steps in flight instead
    model = slip.build_model()
    keep = simulate(model, T_10_STRIDES, options=Options(rtol=1e-8, atol=1e-10, h_max=1.0))
    restart = simulate(model, T_10_STRIDES, options=Options(rtol=1e-8, atol=1e-10, h_max=1.0,
                                                           restart_step_after_event=True))
    assert keep.events.size == restart.events.size
    assert np.max(np.abs(keep.events["t"] - restart.events["t"])) <= 1e-6
    assert keep.stats["rejected"] > restart.stats["rejected"]
    assert keep.stats["steps"] < restart.stats["steps"]
    assert keep.stats["fevals"] < restart.stats["fevals"]
