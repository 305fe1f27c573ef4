"""The 1-DoF cylinder test rig on the hybrid engine: pneumatic digest §5.1, §7 A4–A6."""

import numpy as np
import pytest

from legsim.actuators.pneumatic.units import LBF
from legsim.errors import InputError
from legsim.identify import stiction_from_step
from legsim.robots.pneumatic_rig.metrics import step_metrics
from legsim.robots.pneumatic_rig.rig import Reference, RigBench
from legsim.validation import pneumatic as case  # measurements shared with `legsim report`

WEIGHT = case.WEIGHT


@pytest.fixture(scope="module")
def step_runs():
    return case.rig_step_runs()


def test_closed_loop_steps_have_a_dominant_first_order_time_constant_near_0_083_s(step_runs):
    # A5: tau ~ 0.082-0.085 s with R^2 > 0.92 (the PID gain kp = 100 V/m was tuned for this)
    r = step_runs[("fitted", "stribeck")]
    taus = []
    for fit in case.step_fits():
        assert fit.r2 > 0.92
        taus.append(fit.tau)
    assert 0.074 <= np.mean(taus) <= 0.094
    m = step_metrics(r.t[r.t < 1.5], r.x[r.t < 1.5], 0.01, 0.03, 0.5)
    assert 0.05 < m.rise < 0.4 and m.overshoot < 0.2 and m.settling < 0.9


def test_model_variants_differ_in_position_by_rmse_of_order_0_05_inch(step_runs):
    # A5: RMSE differences between variants of order 0.05 in
    rmse_in = case.variant_rmse_in()
    for key in (("simple", "stribeck"), ("fitted", "viscous")):
        d = rmse_in[key]
        assert 0.002 < d < 0.1


def test_air_consumption_and_chamber_masses_are_consistent_with_the_mass_flows(step_runs):
    r = step_runs[("fitted", "stribeck")]
    res = r.result
    assert np.all(np.diff(r.air_used) >= -1e-15) and r.air_used[-1] > 0
    used = np.trapezoid(res.y[:, 6], r.t)
    assert r.air_used[-1] == pytest.approx(used, rel=0.02)
    m = res.x[:, 4] + res.x[:, 5]
    assert m[-1] - m[0] == pytest.approx(np.trapezoid(r.mdot_cap + r.mdot_rod, r.t), rel=0.02, abs=1e-9)


def test_controller_output_is_saturated_and_held_between_1_khz_samples(step_runs):
    r = step_runs[("simple", "stribeck")]
    assert r.u.min() >= 0.0 and r.u.max() <= 10.0
    res = r.result
    changes = res.events[res.events["kind"] == 3] if res.events.size else res.events
    assert changes.size == 0  # the controller never changes the mechanical mode
    # u only changes at the sample instants: records at 1 ms show a staircase
    assert np.any(r.u == 10.0) or np.any(r.u == 0.0) or np.ptp(r.u) > 0.5


@pytest.mark.parametrize("variant", [("simple", "stribeck"), ("fitted", "viscous")])
def test_sine_tracking_lag_shrinks_with_frequency_and_variants_agree_at_5_rad_s(variant):
    # A6: 1, 3, 5 rad/s; the lag decreases and variants differ by <= 0.02 s (at 5 rad/s here;
    # the simple valve departs at low speed, where the source says it fails)
    lags = {key: case.sine_lags(*key) for key in (("fitted", "stribeck"), variant)}
    full = lags[("fitted", "stribeck")]
    assert full[0] > full[1] > full[2] > 0
    assert abs(lags[variant][2] - full[2]) <= 0.02
    if variant[1] == "viscous":
        assert np.all(np.abs(np.subtract(lags[variant], full)) <= 0.02)


def _open_loop_step(friction, u1):
    return case.open_loop_step(friction, u1)


def test_stiction_is_identified_from_the_pressure_peak_of_a_noisy_open_loop_step():
    # identification: F_S from the net pressure force at breakaway, weight removed
    bench, r = _open_loop_step("stiction", 5.8)
    rng = np.random.default_rng(3)
    f_meas = (r.force + r.friction) + 0.2 * rng.standard_normal(r.t.size)
    x_meas = r.x + 2e-5 * rng.standard_normal(r.t.size)
    f_s = stiction_from_step(r.t, f_meas, x_meas, t_step=5.0, offset=-WEIGHT)
    assert f_s == pytest.approx(bench.actuator.friction.f_s, rel=0.08)


@pytest.mark.parametrize("u1", [6.0, 6.5])
def test_open_loop_step_shows_a_stiction_peak_then_end_stop_repressurisation(u1):
    # A4: a pressure rise to a stiction peak of net force ~ 4.5 lbf +- weight, a plateau while
    # moving, repressurisation at the end stop (measured range of the source: 3.5-5.0 lbf)
    bench, r = _open_loop_step("stribeck", u1)
    peak = case.stiction_peak(u1)
    assert (3.5 * LBF - WEIGHT) <= peak <= (5.5 * LBF + WEIGHT)
    stroke = bench.actuator.cylinder.stroke
    moving = (r.x > 0.1 * stroke) & (r.x < 0.9 * stroke) & (r.t > 5.0)
    assert moving.any() and r.x[-1] == pytest.approx(stroke)
    p_final = r.p_cap[-1]
    assert r.p_cap[moving].max() < p_final - 0.1 * (p_final - bench.actuator.p_exhaust)
    p_in = bench.actuator.valve.input_pressure(u1, bench.actuator.p_supply, bench.actuator.p_exhaust)
    assert p_final == pytest.approx(p_in, rel=0.01)


@pytest.mark.parametrize("method", ["dp5_fixed", "euler"])
@pytest.mark.parametrize("u1", case.TAU_STEPS)
def test_open_loop_pressure_time_constant_is_stable_across_solver_step_sizes(u1, method):
    """A4: the pressure τ within ~15 % for 1 ms vs 1/640 s (and adaptive DP45), for ode5 (the thesis's
    solver) and explicit Euler. The input is sampled at the solver step (single rate): with the rig's 1 kHz
    sample a 1/640 s step is cut to 1 ms at every sample instant and the comparison would be empty (the
    earlier version of this test compared RK4 that way). Measured spreads: ode5 1.005–1.008, Euler
    1.004–1.015 (validation.pneumatic.solver_study)."""
    fits = case.pressure_taus(u1, method)  # adaptive DP45, then the method at 1 ms and at 1/640 s
    for fit in fits:
        assert fit.r2 > 0.7
    assert case.tau_spread(u1, method) < 1.15


@pytest.mark.parametrize("u1", [8.0, 3.0])
def test_rk4_at_1_640_s_is_not_accurate_on_the_open_loop_step(u1):
    """A4 is not met by fixed-step RK4 at a true 1/640 s step: measured τ 0.0138 s (8 V) and 0.0188 s (3 V)
    against 0.149 and 0.139 s for DP45 (spread ~10). Reason: the Stribeck-tanh law's slope at v = 0,
    F_S k_tanh / m = 20 N · 40 s/m / 0.2 kg ≈ 4000 /s, puts h λ ≈ 6.3 outside RK4's real stability interval
    (2.79) while the piston starts to move; the piston falls back onto the bottom stop, where this model's
    leave-the-stop guard (already negative on entry) cannot fire again, so the stroke never happens. The
    linearised slope is outside ode5's and Euler's intervals too (~3.3, 2), but the friction saturates and
    their runs get through (test above; why RK4's stage values do not was not analysed further). At 1 ms
    RK4 is fine (spread < 1.01)."""
    fits = case.pressure_taus(u1, "rk4_fixed")
    assert fits[1].tau / fits[0].tau == pytest.approx(1.0, abs=0.02)  # 1 ms
    assert case.tau_spread(u1, "rk4_fixed") > 1.15  # 1/640 s: documented failure


def test_the_stiff_solver_keeps_the_pressure_time_constant_across_max_steps():
    """A4 with scipy's Radau (implicit; h_max = 1 ms vs 1/640 s as its max_step): spread measured 1.004 (BDF
    the same, in the study)."""
    assert case.tau_spread(8.0, "radau") < 1.15


def test_trapezoid_and_recorded_csv_references(tmp_path):
    trap = Reference("trapezoid", r0=0.01, r1=0.03, t_start=0.2, t_ramp=0.5, t_hold=0.3)
    np.testing.assert_allclose(trap.values_at([0.1, 0.45, 0.8, 1.2, 1.5, 1.85]),
                               [0.01, 0.02, 0.03, 0.022, 0.01, 0.012], atol=1e-12)
    path = tmp_path / "ref.csv"
    t = np.linspace(0, 1.0, 11)
    np.savetxt(path, np.column_stack([t, 0.01 + 0.02 * t]), delimiter=",", header="t,ref", comments="")
    ref = Reference.from_csv(path)
    r = RigBench().run(ref, 1.0, x0=0.01, p_cap0=3e5, p_rod0=3e5)
    assert r.ref[-1] == pytest.approx(0.03, abs=1e-4)
    assert abs(r.x[-1] - 0.03) < 5e-3 and r.x[-1] > r.x[500] + 5e-3
    with pytest.raises(InputError, match=r"ref\.csv.*'position'"):
        Reference.from_csv(path, value_column="position")


def test_bad_rig_settings_raise_input_errors():
    with pytest.raises(InputError, match="valve"):
        RigBench(valve="bogus")
    with pytest.raises(InputError, match="x0"):
        RigBench().run(Reference("step"), 0.1, x0=0.2)


def test_bench_scenarios_write_plots_and_report_metrics(tmp_path, capsys):
    from legsim.robots.pneumatic_rig.scenarios import main

    assert main([str(tmp_path)]) == 0
    for name in ("rig_steps.png", "rig_sine_3rad.png", "rig_open_loop_7V.png", "hop_sweep.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    out = capsys.readouterr().out
    import json

    report = json.loads(out)
    assert len(report["steps"]["steps"]) == 4 and report["steps"]["air_used_g"] > 0
    assert report["hop_height_m"]["spool"][-1] > 0.25


def _closed_loop_step(**bench):
    from legsim.robots.pneumatic_rig.metrics import first_order_fit

    r = RigBench(**bench).run(Reference("step", r0=0.01, r1=0.03, t_start=0.2), 1.5, x0=0.01, p_cap0=3e5,
                              p_rod0=3e5)
    sel = r.t >= 0.2
    return r, step_metrics(r.t, r.x, 0.01, 0.03, 0.2), first_order_fit(r.t[sel], r.x[sel], 0.2)


def test_pva_feedback_closes_the_loop_on_the_rig_step():
    """PVA (digest §1.1, §3.6: the quadruped's JCUs; the source gives neither gains nor a PVA number, ⚠ 13).
    Physical checks instead, with kp = 100 V/m as the PID and kv = 2 V s/m, ka = 0.02 V s²/m (each term of
    the order of kp e on a 2 cm step): the loop settles on the reference (|e| < 0.5 mm, measured 0.26 mm);
    velocity feedback adds damping, so the response is slower than P alone (τ measured 0.127 vs 0.106 s)
    and overshoots no more; the differenced velocity estimate follows the true velocity."""
    r_p, m_p, f_p = _closed_loop_step()
    r, m, f = _closed_loop_step(controller="pva")
    assert abs(r.x[-1] - 0.03) < 5e-4 and m.settling < 1.0
    assert f.r2 > 0.92 and f.tau > 1.1 * f_p.tau
    assert m.overshoot <= m_p.overshoot + 1e-3
    v_est, v = r.result.state("v_est"), r.result.state("v")
    moving = np.abs(v) > 0.05
    assert moving.sum() > 20
    assert np.sqrt(np.mean((v_est - v)[moving] ** 2)) < 0.1 * np.abs(v).max()
    assert np.all(r.u >= 0.0) and np.all(r.u <= 10.0)


def test_gain_scale_multiplies_every_feedback_gain():
    """gain_scale s (the thesis's −25 % on Alpha, §5.2): s = 0.75 with kp = 100 is kp = 75 to the last bit,
    and the lower gain slows the step (τ 0.158 vs 0.106 s measured)."""
    r75, _, f75 = _closed_loop_step(gain_scale=0.75)
    r_kp, _, _ = _closed_loop_step(kp=75.0)
    _, _, f = _closed_loop_step()
    np.testing.assert_allclose(r75.x, r_kp.x, rtol=0, atol=1e-12)
    assert f75.tau > 1.2 * f.tau
    with pytest.raises(InputError, match="controller='pd'.*pid, pva"):
        RigBench(controller="pd")
    with pytest.raises(InputError, match="gain_scale=-1"):
        RigBench(gain_scale=-1.0)


def test_ablation_harness_covers_every_variant_with_finite_costs_against_the_base():
    """A11 harness structure only (nothing is timed here: a counting clock stands in for the timer, so
    every interval is positive and finite): every valve × friction variant once, the full model first
    with ratio 1, finite positive costs, and each variant's run reaching its final time."""
    from itertools import count

    from legsim.robots.pneumatic_rig import ablation

    ticks = count()
    rows = ablation.ablation_table(n_evals=10, t_final=0.05, clock=lambda: float(next(ticks)))
    assert [(r["valve"], r["friction"]) for r in rows] == list(ablation.VARIANTS)
    assert set(ablation.VARIANTS) == {(v, f) for v in ablation.VALVES for f in ablation.FRICTIONS}
    assert ablation.VARIANTS[0] == ("fitted", "stribeck")
    assert rows[0]["eval_ratio"] == 1.0 and rows[0]["step_ratio"] == 1.0
    for r in rows:
        for key in ("s_per_eval", "s_per_step", "eval_ratio", "step_ratio"):
            assert np.isfinite(r[key]) and r[key] > 0, (r, key)
        assert np.isfinite(r["air_used_g"]) and r["air_used_g"] >= 0
        assert r["steps"] >= 50  # 0.05 s at 1 ms
