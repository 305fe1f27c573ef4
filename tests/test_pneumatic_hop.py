"""RATS single-leg vertical hop bench: RATS digest §6.2 T7–T10 (numbers and tolerances)."""

import math

import numpy as np
import pytest

from legsim.actuators.pneumatic import SupplyTank
from legsim.errors import InputError
from legsim.robots.pneumatic_rig.hop import RUBBER_CV_EFFECTIVE, HopBench, hop_model
from legsim.validation import rats as case  # measurements shared with `legsim report`

DURATIONS = list(case.DURATIONS)


@pytest.fixture(scope="module")
def spool_curve():
    return case.spool_hop_curve()


def test_spool_hop_does_not_lift_below_15_ms(spool_curve):
    # T7: no lift at <= 15 ms (rise < 1 cm)
    h = dict(zip(DURATIONS, spool_curve, strict=True))
    assert h[10] < 0.01 and h[15] < 0.01


def test_spool_hop_rises_monotonically_from_15_to_50_ms(spool_curve):
    h = spool_curve[(np.array(DURATIONS) >= 15) & (np.array(DURATIONS) <= 50)]
    assert np.all(np.diff(h) > 0.005)


def test_spool_hop_plateaus_at_31_75_cm_from_about_50_ms(spool_curve):
    # T7: plateau 31.75 cm +- 20 % for >= 55 ms; onset (95 % of the plateau) at 50 +- 10 ms
    d = np.array(DURATIONS)
    plateau = spool_curve[d >= 55]
    assert np.all((plateau > 0.2540) & (plateau < 0.3810))
    assert plateau.max() - plateau.min() < 0.015
    onset = d[np.argmax(spool_curve >= 0.95 * plateau.max())]
    assert 40 <= onset <= 60


def test_higher_supply_pressure_hops_higher_at_40_ms():
    # T8: h(0.379) < h(0.552) < h(0.758)
    h = case.pressure_trend_heights()  # 0.379, 0.552, 0.758 MPa
    assert h[0] < h[1] < h[2]


def test_per_leg_friction_spread_widens_the_hop_spread_at_higher_pressure():
    # T8: larger per-leg spread at higher pressure when per-leg friction differs
    spreads = []
    for p in (0.379e6, 0.758e6):
        h = [HopBench("spool", f_f=f).fire(40, p).height for f in (8.0, 9.7003, 11.5)]
        spreads.append(max(h) - min(h))
    assert spreads[1] > spreads[0] > 0


def test_rubber_seat_preset_reaches_26_and_33_cm_with_one_fitted_effective_cv():
    # T9: fit the effective Cv to E4 (26 cm at 0.724 MPa); check E5 (33 cm +- 15 % at 1.034 MPa)
    cv = case.rubber_cv_fit()
    assert cv == pytest.approx(RUBBER_CV_EFFECTIVE, abs=5e-4)
    bench = HopBench("rubber")
    h724, h1034 = case.rubber_heights()
    assert h724 == pytest.approx(0.26, rel=0.15)
    assert h1034 == pytest.approx(0.33, rel=0.15)
    assert bench.valve.latency == pytest.approx(5e-3)


def test_rubber_seat_plateau_arrives_sooner_at_higher_pressure():
    bench = HopBench("rubber")
    d = np.array([30, 40, 50, 60, 70, 80])
    onsets = []
    for p in (0.724e6, 1.034e6):
        h = np.array([bench.fire(x, p).height for x in d])
        onsets.append(d[np.argmax(h >= 0.97 * h.max())])
    assert onsets[1] < onsets[0]


def test_source_cv_law_overpredicts_the_rubber_seat_hop():
    # digest §2.4 (b)-(c): C_v = 0.3 through (5.8)-(5.10) as printed gives far more flow
    assert HopBench("rubber_source").fire(80, 0.724e6).height > 0.45


def test_no_leak_depletion_grounds_the_robot_after_about_75_firings():
    # T10: repeated 40 ms firings from 0.689 MPa, no leak: hop < 5 cm by firing 75 +- 25
    heights, tanks = case.no_leak_depletion()
    first_low = int(np.argmax(heights < 0.05)) + 1
    assert heights[0] > 0.15 and 50 <= first_low <= 100
    assert np.all(np.diff(tanks) < 0)


def test_exponential_leak_halves_the_tank_gauge_pressure_in_300_s():
    # T10: leak model tau ~ 433 s from 0.758 MPa: pressure at 300 s is 50 % +- 2 %
    tank = SupplyTank(leak="exponential")
    p0 = 0.758e6 + tank.p_atm
    assert case.leak_pressure_fraction(300.0) == pytest.approx(0.5, abs=0.02)
    # the ODE form agrees with the closed form
    assert tank.pressure_rate(p0, 0.0) == pytest.approx(-0.758e6 / tank.leak_tau)


def test_leak_halves_the_hop_height_after_about_150_s():
    # T10: hop height halved at 150 s +- 50 s
    ratio = case.leak_hop_ratios()
    assert ratio[100.0] > 0.5 > ratio[200.0]


def test_leaking_valves_at_rapid_3_s_hops_need_more_firings_than_the_source_reports():
    """T10 / E9: leaking spool valves, 40 ms single-leg hops from 0.758 MPa "in rapid succession": the source
    counts 40 hops until the robot cannot leave the ground (digest: 40 ± 15). Decided: the interval is not
    given, "rapid succession" reads as the digest's 2–5 s, 3 s here (validation.rats.LEAKING_HOP_INTERVAL);
    the valves leak "constantly, even when not actuated", so the tank leaks (E10, τ ≈ 433 s) over the whole
    start-to-start interval, the firing included. Measured: 102 hops at 3 s (and more at 2 s, fewer at 5 s,
    all above 55): not reproduced. Why: over 40 hops at ≤ 5 s the leak removes at most 1 − e^(−200/433) =
    37 % of the gauge pressure, while this model's 40 ms firing draws ~0.9 % of the tank and still lifts the
    robot at ~0.15 MPa; 40 hops need ~3× that gas per firing (or a 15 s interval, which gives 37 hops but is
    not "rapid"). Leakage while firing cannot close the gap: at the E10 rate a 40 ms firing leaks ~1 % of
    its own draw. The earlier version assumed a 10 s interval to pass (51 hops). The full robot at the same
    3 s (experiments.endurance_run, `legsim demo rats_endurance`, not run here: ~26 s): the hop falls below
    1 cm from firing 70 (62 at 4 s)."""
    hops = case.leaking_valve_hops(3.0)
    assert case.LEAKING_HOP_INTERVAL == 3.0
    assert hops == pytest.approx(102, abs=2) and hops > 55  # documented gap
    assert case.leaking_valve_hops(2.0) > hops > case.leaking_valve_hops(5.0) > 55
    assert 25 <= case.leaking_valve_hops(15.0) <= 55


def test_tank_depletion_per_firing_matches_the_gas_drawn():
    bench = HopBench("spool")
    r = bench.fire(40, 0.724e6)
    tank = SupplyTank()
    expected = tank.pressure_after_draw(r.p_tank_start, r.mass_used)
    assert r.p_tank_end == pytest.approx(expected, rel=1e-6)
    assert math.isfinite(r.liftoff_time) and r.mass_used > 0


def test_exhaust_variants_reproduce_the_digests_independent_one_dimensional_check():
    # digest §2.8 (a separate 1-D integration of the same equations): COM rise [cm] at
    # 15..65 ms with gas trapped after the valve closes, and with the gas force removed
    durations = [15, 20, 25, 30, 40, 50, 60, 65]
    trapped = [0, 4.7, 8.9, 12.8, 21.6, 28.6, 31.7, 31.8]
    removed = [0, 0.2, 1.7, 4.8, 13.3, 22.0, 29.8, 31.8]
    h_t = [HopBench("spool", exhaust="trapped").fire(d).height * 100 for d in durations]
    h_i = [HopBench("spool", exhaust="instant").fire(d).height * 100 for d in durations]
    np.testing.assert_allclose(h_t, trapped, atol=0.6)
    np.testing.assert_allclose(h_i, removed, atol=2.6)
    assert np.all(np.array(h_i) <= np.array(h_t) + 1e-9)


@pytest.mark.parametrize("key, value", [("cv", -1.0), ("f_f", 1e300), ("g", 0.0), ("v0", 0.0), ("cfa", 7.0),
                                        ("leak_tau", 1e-9), ("r_lam", 0.3), ("cv", "0.2"), ("m_body", True)])
def test_parameter_overrides_outside_the_hop_models_ranges_are_refused_naming_them(key, value):
    """Before, overrides were only checked for finiteness (and 10**400 was an OverflowError): cv = -1 ran
    with the gas flowing back into the tank (negative gas used), f_f = 1e300 and a 7 m² valve were taken
    (the latter computed for hours), g = 0 gave an infinite hop height (a divide-by-zero warning), a string
    of digits or True passed as a number. The hop model now declares its parameters' ranges."""
    with pytest.raises(InputError, match=f"'{key}'"):
        HopBench("rubber", **{key: value})


def test_the_hop_model_declares_a_range_for_every_parameter():
    model = hop_model()
    assert all(model.describe_param(name) for name in model.param_names)
    assert model.describe_param("cv").startswith("in [0, 50] US gpm/psi^0.5")


@pytest.mark.parametrize("kw, name", [(dict(t_flight=1e300), "t_flight"),
                                      (dict(duration_ms="40"), "duration_ms"),
                                      (dict(duration_ms=1e300), "duration_ms"), (dict(p_tank=-1.0), "p_tank"),
                                      (dict(p_supply_gauge=None), "p_supply_gauge")])
def test_firing_arguments_are_checked_naming_them(kw, name):
    """Before, t_flight or duration_ms = 1e300 simulated without end, a duration or pressure of another kind
    was a TypeError (or a message without the argument's name), and p_tank was not checked."""
    with pytest.raises(InputError, match=name):
        HopBench("spool").fire(**{"duration_ms": 40.0, **kw})


def test_repeated_firings_check_their_count_and_leak():
    bench = HopBench("spool")
    with pytest.raises(InputError, match="'n'"):
        bench.repeated(2**40, 40.0, 0.7e6)
    with pytest.raises(InputError, match="'leak_tau'"):
        bench.repeated(2, 40.0, 0.7e6, leak_tau=1e-9)
    heights, tanks = bench.repeated(0, 40.0, 0.7e6)
    assert heights.size == tanks.size == 0



def test_the_benches_timing_and_sweep_helpers_refuse_endless_or_empty_work_before_starting():
    """Before session 41 ``ablation.per_eval_cost(n=2**40)`` started three compiled loops of 2**40
    vector-field evaluations (about a week: it looked hung) and ``n=0`` divided by zero; ``hop_sweep`` handed
    a valve time of 2**40 ms to the hop bench, which refused it as its own 'duration_ms'. Each is refused at
    once now, naming the argument (``per_eval_cost`` takes at most MAX_EVALS evaluations a loop)."""
    from legsim.robots.pneumatic_rig.ablation import MAX_EVALS, per_eval_cost
    from legsim.robots.pneumatic_rig.rig import RigBench
    from legsim.robots.pneumatic_rig.scenarios import hop_sweep

    bench = RigBench()
    for n in (2**40, 0):
        with pytest.raises(InputError, match=rf"per_eval_cost: 'n' = {n}, expected a whole number in "
                                             rf"\[1, {MAX_EVALS}\]"):
            per_eval_cost(bench, n)
    with pytest.raises(InputError, match="hop_sweep: 'durations' = "):
        hop_sweep(durations=(20.0, 2**40))
    assert per_eval_cost(bench, 10, clock=iter(range(100)).__next__) == 0.1  # the clock's ticks / n
