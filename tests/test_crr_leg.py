"""The pneumatic CRR leg: pneumatic digest §5.2, §7 A7 (coupled leg behaviour), A8, A10 (co-simulation).

The thesis compares its simulation against the prototype, whose data we do not have; its PID gains
are unknown (⚠ 13). A7 is therefore tested, as the digest says, against the reported ranges with
gains tuned here (``leg.DEFAULT_GAINS``), and A10 qualitatively: the thresholds marked "ours" are
our choice of what "stable" and "erroneous response" mean, not numbers from the source.
"""

import dataclasses
import math

import numpy as np
import pytest

from legsim.actuators.pneumatic.linkage import Joint
from legsim.errors import InputError
from legsim.multibody import forward_dynamics
from legsim.robots.crr_leg import JOINTS, JointReference, LegBench, capsule_inertia, crr_leg_bodies
from legsim.robots.crr_leg.geometry import JOINT_LIMITS, LEG_CAPSULES, STROKES, Capsule
from legsim.robots.pneumatic_rig.metrics import lag_by_xcorr, step_metrics

d = np.radians
GAMMA_STEPS = ((0.0, d(30)), (1.0, d(80)), (2.5, d(40)), (4.0, d(90)), (5.5, d(20)))
T_STEPS = 7.0
A7_STEPS = ((0.0, d(56)), (1.5, d(95)), (3.0, d(17)), (4.5, d(56)))
"""A7: three Gamma steps across the whole 17–95° range (Fig. 38: "Gamma steps across 17–95°", three steps),
from mid-range to each joint limit and back."""
A7_STEPS_5 = ((0.0, d(30)), (1.5, d(95)), (3.0, d(17)), (4.5, d(80)), (6.0, d(40)))


def _gamma_step_refs():
    return [JointReference.hold(d(20)), JointReference.hold(d(-30)), JointReference(steps=GAMMA_STEPS)]


@pytest.fixture(scope="module")
def monolithic_steps():
    return LegBench().run(_gamma_step_refs(), T_STEPS)


# ------------------------------------------------------------------------------- the rigid leg
def test_capsule_inertia_reduces_to_the_sphere_and_the_thin_rod():
    m, ax, tr = capsule_inertia(Capsule(0.1, 0.0, 1000.0))
    assert m == pytest.approx(1000.0 * 4.0 / 3.0 * math.pi * 0.05 ** 3, rel=1e-12)
    assert ax == pytest.approx(0.4 * m * 0.05 ** 2, rel=1e-12)
    assert tr == pytest.approx(ax, rel=1e-12)
    m, ax, tr = capsule_inertia(Capsule(1e-5, 2.0, 7800.0))
    assert tr == pytest.approx(m * 4.0 / 12.0, rel=1e-4)   # caps add O(r/L)


def test_leg_mass_is_the_sum_of_the_srlib_capsules():
    expected = sum(c.density * (math.pi * (c.diameter / 2) ** 2 * c.length
                                + 4.0 / 3.0 * math.pi * (c.diameter / 2) ** 3)
                   for c in LEG_CAPSULES.values())
    assert crr_leg_bodies().total_mass() == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(0.666, abs=0.001)


@pytest.mark.parametrize("j", [0, 1, 2])
def test_designed_linkages_span_exactly_zero_to_stroke_over_the_joint_range(j):
    # A8: the x(theta) range covers 0..stroke over the joint limits
    link = LegBench().linkages[j]
    lo, hi = JOINT_LIMITS[j]
    x, _, arm = link.cylinder(np.linspace(lo, hi, 201))
    assert x.min() == pytest.approx(0.0, abs=1e-12)
    assert x.max() == pytest.approx(STROKES[j], rel=1e-9)
    assert np.all(np.sign(arm) == (-1.0 if link.joint == Joint.GAMMA else 1.0))


def test_vector_field_is_the_actuator_model_plus_aba_of_the_leg_under_cylinder_torques():
    bench = LegBench()
    model = dataclasses.replace(bench.model, param_defaults=bench.params(
        [JointReference.hold(0.3), JointReference.hold(-0.5), JointReference.hold(1.0)]))
    ix = {n: i for i, n in enumerate(model.state_names)}
    q = np.array([0.3, -0.5, 1.0])
    v = np.array([0.4, -0.7, 1.1])
    s = bench.initial_state(q)
    s[[ix[f"{j}_dot"] for j in JOINTS]] = v
    rng = np.random.default_rng(3)
    gas = [[ix[f"{j}_{g}"] for g in ("p_cap", "p_rod", "m_cap", "m_rod", "m_supply")] for j in JOINTS]
    for j in range(3):
        s[gas[j][:2]] *= rng.uniform(0.7, 1.3, 2)
    u = (6.0, 4.5, 5.4)
    s[[ix[f"u_{j}"] for j in JOINTS]] = u
    xdot = np.zeros(s.size)
    model.vector_field(0.0, s, model.params(), 0, xdot)
    # the same physics through the public APIs
    tau = np.zeros(3)
    for j, (act, link) in enumerate(zip(bench.actuators, bench.linkages, strict=True)):
        xp, xd, arm = link.cylinder(q[j], v[j])
        np.testing.assert_allclose(xdot[gas[j]], act.derivatives(0.0, s[gas[j]], u[j], xp, xd)[0], rtol=1e-12)
        tau[j] = act.force(s[gas[j]], xdot=xd)[0] * arm
    legs = crr_leg_bodies()
    ddq = forward_dynamics(legs, legs.make_data(), q, v, tau)
    np.testing.assert_allclose(xdot[[ix[f"{j}_dot"] for j in JOINTS]], ddq, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(xdot[[ix[j] for j in JOINTS]], v)


# ------------------------------------------------------------------------------- A7
def _gamma_step_metrics(steps):
    t_end = steps[-1][0] + 1.5
    refs = [JointReference.hold(d(20)), JointReference.hold(d(-30)), JointReference(steps=steps)]
    run = LegBench().run(refs, t_end)
    out = []
    for k in range(1, len(steps)):
        t0 = steps[k][0]
        t1 = steps[k + 1][0] if k + 1 < len(steps) else t_end
        sel = (run.t >= t0) & (run.t < t1)
        out.append(step_metrics(run.t[sel], run.q[sel, 2], steps[k - 1][1], steps[k][1], t0))
    return run, out


def test_gamma_steps_across_17_to_95_degrees_rise_within_the_reported_range():
    """A7 / digest §5.2 over the source's full range: Gamma steps 56 → 95 → 17 → 56° (each joint limit, where
    the cylinder reaches its end stop) rise (10–90 %) within the source's 0.11–1.3 s — measured 0.145, 0.127,
    0.225 s — overshoot ≤ 5° (the source's overshoot differences 0.4–5°; measured ≤ 0.25°), final within 2°
    (ours). The gains are the leg's hand-tuned ones (⚠ 13). Gap, pinned: a five-step series 30 → 95 → 17 →
    80 → 40° rises on its two upward steps from low starts in 0.107 and 0.109 s, 3 % and 1 % under 0.11 s
    (the others 0.153, 0.216 s): the valve saturates on a 63–65° step and the Gamma link's inertia is small,
    so the model is slightly faster than the prototype there (the source's own rise-time error: mean 0.13 s,
    SD 0.19 s, up to ~50 %)."""
    run, metrics = _gamma_step_metrics(A7_STEPS)
    for k, m in enumerate(metrics, start=1):
        y0, y1 = A7_STEPS[k - 1][1], A7_STEPS[k][1]
        assert 0.11 <= m.rise <= 1.3, (k, m)
        assert np.degrees(m.overshoot * abs(y1 - y0)) <= 5.0, (k, m)
        assert abs(np.degrees(m.final - y1)) < 2.0, (k, m)
    assert np.degrees(run.q[:, 2].min()) == pytest.approx(17.0, abs=0.5)
    assert np.degrees(run.q[:, 2].max()) == pytest.approx(95.0, abs=0.5)
    # the other joints hold their references while Gamma moves (coupling disturbance, ours: 10 deg)
    late = run.t > 0.5
    assert np.degrees(np.abs(run.q[late, 1] - d(-30))).max() < 10.0
    assert np.degrees(np.abs(run.q[late, 0] - d(20))).max() < 1.0
    _, five = _gamma_step_metrics(A7_STEPS_5)
    rises = [m.rise for m in five]
    np.testing.assert_allclose(rises, [0.107, 0.153, 0.109, 0.216], atol=0.004)  # documented gap
    assert rises[0] < 0.11 and rises[2] < 0.11 and all(r <= 1.3 for r in rises)


def _sine_lag(joint, offset, omega):
    refs = [JointReference.hold(d(20)), JointReference.hold(d(-30)), JointReference.hold(d(56))]
    refs[joint] = JointReference(offset=d(offset), amplitude=d(10), omega=omega, t0=0.5)
    period = 2 * np.pi / omega
    run = LegBench().run(refs, 0.5 + 3 * period)
    sel = run.t >= 0.5 + period
    return lag_by_xcorr(run.t[sel], run.q[sel, joint], run.ref[sel, joint], max_lag=0.5)


def test_gamma_sine_lags_the_reference_by_015_to_02_seconds():
    # digest §5.2: Gamma sine lag sim > 0.15 s, actual about 0.2 s (10 deg at 5 rad/s: ours)
    assert 0.15 <= _sine_lag(2, 56.0, 5.0) <= 0.20


def test_beta_fast_sine_lags_the_reference_by_about_016_seconds():
    # digest §5.2: Beta fast sine lag sim 0.16 s (thesis tolerance for lags: 25 %; 8 rad/s ours)
    assert _sine_lag(1, -34.0, 8.0) == pytest.approx(0.16, rel=0.25)


def test_alpha_limit_cycles_at_nominal_gain_and_settles_with_25_percent_less():
    # digest §5.2 / A7: Alpha near-critically stable; smoother with the PID gain cut by 25 %
    steps = ((0.0, d(0)), (1.0, d(40)))
    refs = [JointReference(steps=steps), JointReference.hold(d(-30)), JointReference.hold(d(56))]
    spans = {}
    for scale in (1.0, 0.75):
        run = LegBench(gain_scale={"alpha": scale}).run(refs, 3.0)
        late = run.t > 2.0
        spans[scale] = np.degrees(np.ptp(run.q[late, 0]))
        if scale == 0.75:
            assert abs(np.degrees(run.q[-1, 0]) - 40.0) < 2.0
    assert spans[1.0] > 5.0          # a sustained oscillation of several degrees (ours)
    assert spans[0.75] < 0.2 * spans[1.0]


# ------------------------------------------------------------------------------- A10
def test_split_exchange_without_latency_tracks_the_monolithic_leg(monolithic_steps):
    run = LegBench(coupling="cosim").run(_gamma_step_refs(), T_STEPS)
    assert np.degrees(np.abs(run.q - monolithic_steps.q).max()) < 3.0


@pytest.mark.parametrize("delay_up, delay_down", [(1, 1), (1, 2)])
def test_three_to_four_millisecond_round_trip_stays_stable(delay_up, delay_down):
    # A10: round trip = delay_up + delay_down + 1 tick = 3 or 4 ms; "stable" (ours): the last
    # 0.5 s moves less than 3 deg peak to peak and ends within 3 deg of the reference
    run = LegBench(coupling="cosim", delay_up=delay_up, delay_down=delay_down).run(
        _gamma_step_refs(), T_STEPS)
    late = run.t > T_STEPS - 0.5
    assert np.degrees(np.ptp(run.q[late], axis=0)).max() < 3.0
    assert np.degrees(np.abs(run.q[-1] - run.ref[-1])).max() < 3.0


@pytest.mark.parametrize("pause", [0.09, 0.10])
def test_a_90_to_100_ms_exchange_pause_gives_an_erroneous_response(monolithic_steps, pause):
    # A10 / Fig. 51: SrLib freezes while the target integrates stale joint data; after the pause
    # the leg lurches. Ours: the peak Gamma speed in the 0.5 s after the pause exceeds 5x the
    # monolithic run's, and the path departs from it by more than 5 deg.
    t0 = 2.55
    run = LegBench(coupling="cosim", delay_up=1, delay_down=2, pause_t0=t0,
                   pause_duration=pause).run(_gamma_step_refs(), T_STEPS)
    during = (run.t > t0 + 0.002) & (run.t < t0 + pause - 0.002)
    assert np.all(run.paused[during]) and not run.paused[run.t < t0 - 0.002].any()
    assert np.ptp(run.q[during], axis=0).max() == 0.0          # the rigid body is frozen
    after = (run.t > t0 + pause) & (run.t < t0 + pause + 0.5)
    mono = monolithic_steps
    assert np.abs(run.v[after, 2]).max() > 5.0 * np.abs(mono.v[after, 2]).max()
    assert np.degrees(np.abs(run.q[after, 2] - mono.q[after, 2]).max()) > 5.0
    # and it recovers once the exchange is regular again
    assert np.degrees(np.abs(run.q[-1] - run.ref[-1])).max() < 3.0


# ------------------------------------------------------------------------------- bad input
def test_bad_coupling_settings_and_initial_angles_are_rejected_with_the_value():
    with pytest.raises(InputError, match="delay_up=7"):
        LegBench(coupling="cosim", delay_up=7)
    with pytest.raises(InputError, match="coupling='udp'"):
        LegBench(coupling="udp")
    with pytest.raises(InputError, match="gamma angle 120.00 deg"):
        LegBench().initial_state(d([0.0, -30.0, 120.0]))


def test_a_wrong_kind_of_bench_setting_is_refused_naming_it_before_the_leg_is_built():
    """Found by random fuzzing (session 34): these were a ValueError/TypeError/AttributeError from Python
    or numpy, raised from deep inside the bench or the quadruped built on it."""
    for kw, says in ((dict(delay_up="1"), "delay_up='1'"),
                     (dict(pause_duration=None), "'pause_duration' = None"),
                     (dict(supply_psig=[50.0]), "'supply_psig' = \\[50.0\\]"),
                     (dict(u_bias="x"), "'u_bias' = 'x'"),
                     (dict(gains=[]), "gains=\\[\\]: expected a mapping"),
                     (dict(gains={"gamma": 1.0}), "gains\\['gamma'\\] = 1.0: expected 3 numbers"),
                     (dict(force_gain={"beta": None}), "force_gain\\['beta'\\] = None"),
                     (dict(gain_scale={"knee": 1.0}), "gain_scale key 'knee'"),
                     (dict(linkages=0.3), "linkages: expected three JointLinkage"),
                     (dict(strokes="abc"), "strokes='abc'")):
        with pytest.raises(InputError, match=says):
            LegBench(**kw)


def test_the_bundled_gamma_step_scenario_runs_from_toml_and_tracks_each_step():
    from legsim.cli import SCENARIO_DIR
    from legsim.hybrid import simulate
    from legsim.scenario import load_scenario

    sc = load_scenario(SCENARIO_DIR / "crr_leg_gamma_steps.toml")
    res = simulate(sc.model, sc.t_final, x0=sc.initial, params=sc.params, options=sc.options)
    q = np.degrees(res.state("gamma"))
    for t_end, target in ((0.9, 30), (2.4, 80), (3.9, 40), (5.4, 90), (6.9, 20)):
        i = np.searchsorted(res.t, t_end)
        assert abs(q[i] - target) < 2.5, (t_end, q[i])
    assert np.degrees(np.abs(res.state("alpha")[res.t > 0.5] - d(20))).max() < 1.0


def test_air_consumption_is_recorded_per_cylinder_and_summarised(monolithic_steps):
    """Digest §1.6/§7 item 12: cumulative air drawn from the supply [kg] per cylinder is a recorded state
    (<joint>_m_supply), never decreasing; the run summary (``legsim run``) reports it in g, the mean draw
    and a 100 g supply's endurance, consistent with each other."""
    from legsim.robots.crr_leg.leg import summary
    from legsim.runner import SUMMARIES

    res = monolithic_steps.result
    cols = np.column_stack([res.state(f"{j}_m_supply") for j in ("alpha", "beta", "gamma")])
    assert np.all(np.diff(cols, axis=0) >= -1e-15)
    np.testing.assert_allclose(cols.sum(axis=1), monolithic_steps.air_used)
    s = summary(res)
    assert s["air_used_gamma_g"] > 0  # the stepped joint draws air
    assert s["air_used_g"] == pytest.approx(sum(s[f"air_used_{j}_g"] for j in ("alpha", "beta", "gamma")))
    assert s["air_rate_g_per_s"] == pytest.approx(s["air_used_g"] / T_STEPS)
    assert s["endurance_min_per_100g_air"] == pytest.approx(100.0 / s["air_rate_g_per_s"] / 60.0)
    assert SUMMARIES["crr_leg"] == "legsim.robots.crr_leg.leg:summary"
