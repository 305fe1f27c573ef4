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


def test_closed_loop_steps_each_have_a_first_order_time_constant_of_0_082_to_0_085_s(step_runs):
    """A5 per step at the source's band: τ_sim 0.082 s and τ_actual 0.085 s (Daepp §4.3), R² > 0.92. The
    identified parameter set (identification.IDENTIFIED: PID gains ⚠ 13 and the A_eq origin ⚠ 12 fitted
    jointly with A4 and A6) gives 0.0844, 0.0840, 0.0828, 0.0831 s. The earlier hand-tuned kp = 100 V/m with
    the A_eq origin at 5.25 V gave 0.103 / 0.069 s on the up / down steps (the fitted valve's ports are
    asymmetric about that origin); only their mean was in the band."""
    r = step_runs[("fitted", "stribeck")]
    for fit in case.step_fits():
        assert fit.r2 > 0.92
        assert 0.082 <= fit.tau <= 0.085, fit
    m = step_metrics(r.t[r.t < 1.5], r.x[r.t < 1.5], 0.01, 0.03, 0.5)
    assert 0.05 < m.rise < 0.4 and m.overshoot < 0.2 and m.settling < 0.9


def test_closed_loop_steps_ring_at_the_gas_spring_frequency(step_runs):
    """A5 ringing: "oscillations characteristic to a third order system" on a dominant first-order response
    (Daepp §4.3; no number given). The third-order position dynamics are the pressure build-up plus the
    mass on the two chambers' gas springs, so the check is physical: each step's velocity shows at least
    two oscillation peaks, at 0.5–1.5 × the linearised gas-spring frequency f_n at the step's final position
    and pressures (k = n P A² / V per chamber), and the oscillation stays small (< 15 % of the step, the
    first-order part dominating). Measured: 3–4 peaks at 30–32 Hz against f_n ≈ 37–40 Hz, 9–10 %."""
    from legsim.robots.pneumatic_rig.metrics import pneumatic_natural_frequency

    r = step_runs[("fitted", "stribeck")]
    act = case.identified_open_loop_step(6.0)[0].actuator
    cyl = act.cylinder
    for (t0, t1), ring in zip(case.STEP_WINDOWS, case.step_ringing(), strict=True):
        i = int(np.searchsorted(r.t, t1)) - 1
        v_cap, v_rod = (float(np.asarray(v).ravel()[0]) for v in cyl.volumes(r.x[i]))
        f_n = pneumatic_natural_frequency(r.p_cap[i], r.p_rod[i], v_cap, v_rod, cyl.a_cap, cyl.a_rod, 0.2)
        assert ring.n_peaks >= 2, (t0, ring)
        assert 0.5 * f_n <= ring.frequency <= 1.5 * f_n, (t0, ring, f_n)
        assert 0.0 < ring.amplitude < 0.15, (t0, ring)


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


@pytest.mark.parametrize("variant", case.VARIANTS)
def test_sine_tracking_lag_falls_with_frequency_for_every_variant(variant):
    """A6: the lag behind a 0.022 ± 0.01 m sine falls over 1, 3, 5 rad/s for each model variant (identified
    set). Measured: full 0.225 / 0.140 / 0.116 s, simple valve 0.201 / 0.155 / 0.139 s, viscous 0.217 /
    0.131 / 0.107 s. With the former settings the simple valve's lag rose (0.097 / 0.112 / 0.116 s): its
    leak area switching between supply and exhaust at the offset acts as a relay with a high gain at small
    errors."""
    lags = case.sine_lags(*variant)
    assert lags[0] > lags[1] > lags[2] > 0


def test_model_variants_lag_the_full_model_by_at_most_0_02_s_except_the_simple_valve():
    """A6 "variants differ in lag by ≤ 0.02 s" at all three speeds. Viscous friction: −0.008, −0.009,
    −0.009 s, inside. The simple valve is not reproduced, and the test pins its measured gap: −0.024,
    +0.015, +0.023 s (1, 3, 5 rad/s) after the joint fit of its c_d scale and leak area
    (identification.IDENTIFIED). Why no set meets it: a linear area A = c_d (K |u − u_off| + A_L) has
    a flow gain near the offset that is nearly independent of the opening, while the fitted quartic
    A_eq is ~20× smaller there than at 1 V; the full model's lag therefore falls more steeply with
    speed than any linear-area valve's, and moving the simple valve's c_d or leak trades the 1 rad/s
    gap against the 5 rad/s one. This is the source's own finding — the simple valve "fails at small
    openings near the offset" (§4.3, §6) — and "variants within 0.02 s" is the digest's reading: the
    source's 0.02 / 0.01 / 0.005 s are differences between simulated and measured lags."""
    full = case.sine_lags(*case.VARIANTS[0])
    visc = np.subtract(case.sine_lags("fitted", "viscous"), full)
    assert np.all(np.abs(visc) <= 0.02)
    simple = np.subtract(case.sine_lags("simple", "stribeck"), full)
    np.testing.assert_allclose(simple, [-0.024, 0.015, 0.023], atol=0.0025)
    assert abs(simple[0]) > 0.02 and abs(simple[2]) > 0.02  # the documented gap is still there


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
    """A4 at the source's conditions (50 psig, 0.2 kg, rod down, open-loop steps from the retracted stop): a
    pressure rise to a stiction peak of net pressure force 4.5 lbf ± the weight (18.06–21.98 N), a plateau
    while moving, repressurisation at the end stop. Identified set: 6.0 V 18.41 N (inside); 6.5 V 22.38 N,
    0.40 N above the band — not reproduced, pinned here. Why: the peak is the net force reached while the
    piston creeps its first 0.2 mm, and a faster pressure rise (6.5 V) overshoots more; the spread between
    the two steps (~4 N) exceeds the band's width (3.9 N) for every friction shape that keeps A5's per-step τ.
    The in/s reading of k_tanh and v_S (⚠ 11) puts both peaks inside (18.28, 21.91 N) but makes the closed
    loop stick-slip: the fourth step's τ falls to 0.075 s (identification.IDENTIFIED). The earlier band
    13.6–26.4 N of this test is gone."""
    bench, r = case.identified_open_loop_step(u1)
    peak = case.stiction_peak(u1)
    lo, hi = 4.5 * LBF - WEIGHT, 4.5 * LBF + WEIGHT
    if u1 == 6.0:
        assert lo <= peak <= hi
    else:
        assert peak == pytest.approx(22.38, abs=0.1) and peak > hi  # documented gap
    stroke = bench.actuator.cylinder.stroke
    moving = (r.x > 0.1 * stroke) & (r.x < 0.9 * stroke) & (r.t > 5.0)
    assert moving.any() and r.x[-1] == pytest.approx(stroke)
    p_final = r.p_cap[-1]
    assert r.p_cap[moving].max() < p_final - 0.1 * (p_final - bench.actuator.p_exhaust)
    p_in = bench.actuator.valve.input_pressure(u1, bench.actuator.p_supply, bench.actuator.p_exhaust)
    assert p_final == pytest.approx(p_in, rel=0.01)


def test_the_identified_set_reproduces_its_recorded_joint_cost():
    """The saved set (identification.IDENTIFIED) re-measured: every residual of the weighted joint fit
    (A4 peaks, A5 τ and R² per step, A6 lag differences and falls) gives the cost recorded when it was
    fitted, 3.39 against 292 for the former settings; the residuals outside the source's bands are exactly
    the documented gaps (A4 at 6.5 V, the simple valve's A6 lag at 1 and 5 rad/s)."""
    from legsim.robots.pneumatic_rig import identification as ident

    m = ident.measure()
    r = ident.residuals(m)
    c = 0.5 * sum(v * v for v in r.values())
    assert c == pytest.approx(ident.IDENTIFIED_COST, rel=0.02)
    outside = {k for k, v in r.items() if abs(v) > 1.0}
    assert outside == {"A4 peak 6.5 V", "A6 simple/stribeck - full at 1 rad/s",
                       "A6 simple/stribeck - full at 5 rad/s"}
    assert m.peaks[0] == pytest.approx(case.stiction_peak(6.0), rel=1e-9)  # the report measures the same


def test_the_joint_fit_lowers_the_cost_from_the_source_start_in_two_evaluations():
    """identification.identify runs legsim.identify.fit_parameters (scipy least_squares) over the joint
    residuals: from the former settings, freeing kp and the A_eq origin, two evaluations already cut the
    cost (A5's up/down asymmetry is most of the start's 292)."""
    from legsim.robots.pneumatic_rig import identification as ident

    c0 = ident.cost(ident.SOURCE_START)
    fit, names = ident.identify(free=("kp", "u_aeq"), max_nfev=2)
    assert "A5 tau step 1" in names and fit.nfev <= 3
    assert fit.cost < 0.5 * c0
    assert ident.BOUNDS["u_aeq"][0] <= fit.params["u_aeq"] <= ident.BOUNDS["u_aeq"][1]
    with pytest.raises(InputError, match="unknown free parameter 'ki'"):
        ident.identify(free=("ki",))


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


@pytest.mark.parametrize("kw, name", [(dict(reference="step"), "reference"), (dict(t_final=1e300), "t_final"),
                                      (dict(p_cap0=-1.0), "p_cap0"), (dict(p_rod0="3e5"), "p_rod0"),
                                      (dict(x0="0"), "x0")])
def test_run_arguments_are_checked_naming_them(kw, name):
    """Before, a reference of another kind was an AttributeError, t_final = 1e300 ran without end, x0 = "0"
    a TypeError, and the chamber pressures went unchecked into the gas state."""
    with pytest.raises(InputError, match=name):
        RigBench().run(**{"reference": Reference("step"), "t_final": 0.01, **kw})


def test_a_step_reference_given_a_table_runs_and_ignores_the_table():
    """Before, a step (trapezoid, sine) Reference given times and values, which those kinds ignore, made
    RigBench.run fail with numpy's ValueError: the table was written past the end of a model built without
    table slots."""
    bench = RigBench()
    with_table = Reference("step", r1=0.01, t_start=0.005, times=[0.0, 1.0], values=[0.0, 0.02])
    plain = Reference("step", r1=0.01, t_start=0.005)
    np.testing.assert_array_equal(bench.run(with_table, 0.02).x, bench.run(plain, 0.02).x)
    np.testing.assert_array_equal(with_table.values_at([0.0, 0.01]), [0.0, 0.01])
    with pytest.raises(InputError, match="'t'"):
        plain.values_at("abc")


def test_a_first_order_fit_of_a_flat_or_tiny_response():
    """Before session 41 R² of a constant response was 0/0 (a RuntimeWarning, NaN), and of a response of
    1e-300 m as well (its squares vanish). Constant: an InputError; tiny: the same fit as at full scale."""
    from legsim.robots.pneumatic_rig.metrics import first_order_fit

    t = np.linspace(0.0, 1.0, 50)
    with pytest.raises(InputError, match="y is constant"):
        first_order_fit(t, np.full(50, 0.02))
    y = 1.0 - np.exp(-t / 0.1) + 0.01 * np.random.default_rng(1).normal(size=50)
    full, tiny = first_order_fit(t, y), first_order_fit(t, 1e-300 * y)
    assert 0.99 < full.r2 < 1.0 and tiny.r2 == pytest.approx(full.r2, rel=1e-9)
    assert tiny.tau == pytest.approx(full.tau, rel=1e-6)


def test_identification_parameter_sets_are_checked_naming_the_parameter():
    """Before, bench_for called float() on each value: a string was a ValueError, a list a TypeError, and a
    negative leak area or a voltage beyond the valve's range was taken."""
    from legsim.robots.pneumatic_rig import identification as ident

    for key, value in (("kp", "abc"), ("simple_leak", -1.0), ("u_aeq", 12.0), ("v_s", [0.1])):
        with pytest.raises(InputError, match=f"'{key}'"):
            ident.bench_for(params={key: value})
    with pytest.raises(InputError, match="'variant'"):
        ident.bench_for(variant="fitted")
    with pytest.raises(InputError, match="'m'"):
        ident.residuals({"peaks": []})


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
    with pytest.raises(InputError, match="controller 'pd'.*pid, pva"):
        RigBench(controller="pd")
    with pytest.raises(InputError, match="'gain_scale' = -1"):
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
