"""The walking-robot layer (issue 16; contact digest §4.2, acceptance A10, A11, A13, A14)."""

from __future__ import annotations

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.walking import (
    GaitGenerator,
    LegCycle,
    StepCycle,
    lift_torque_proxy,
    max_ledge_height,
    neighbours,
    segment_orientation,
    support_forces,
    vertical_forces,
    wave_gait,
)

P = 30.0  # N, the digest's worked example
SIX = [(0.15, 0.2), (-0.15, 0.2), (0.15, 0.0), (-0.15, 0.0), (0.15, -0.2), (-0.15, -0.2)]


# ------------------------------------------------------------------------------------ A10
def test_a10_six_feet_around_the_com_carry_five_newtons_each():
    np.testing.assert_allclose(vertical_forces(SIX, P, (0.0, 0.0)), 5.0, atol=1e-12)


def test_a10_a_com_shifted_by_2_cm_loads_the_near_pair():
    f = vertical_forces(SIX, P, (0.0, 0.02))
    np.testing.assert_allclose(f, [5.75, 5.75, 5.0, 5.0, 4.25, 4.25], atol=1e-12)


def test_a10_a_tripod_is_statically_determinate():
    f = vertical_forces([(0.15, 0.2), (-0.15, 0.0), (0.15, -0.2)], P, (0.0, 0.0))
    np.testing.assert_allclose(f, [7.5, 15.0, 7.5], atol=1e-12)


def _balance(feet, f, mass, com, g=9.81):
    net = f.sum(axis=0)
    moment = np.cross(feet - com, f).sum(axis=0)
    np.testing.assert_allclose(net, [0.0, 0.0, mass * g], atol=1e-6)
    np.testing.assert_allclose(moment, 0.0, atol=1e-6)


def test_the_qp_equals_the_closed_form_where_that_pushes_and_stays_in_the_cone_where_it_pulls():
    m, g = P / 9.81, 9.81
    feet = np.array([[x, z, 0.0] for x, z in SIX])
    com = np.array([0.0, 0.02, 0.12])
    f = support_forces(feet, m, com, mu=0.6)
    np.testing.assert_allclose(f[:, 2], vertical_forces(SIX, P, com[:2]), atol=1e-7)
    np.testing.assert_allclose(f[:, :2], 0.0, atol=1e-7)
    # the CoM near the edge of a tripod's polygon with a fourth foot far out: the closed form
    # pulls on one foot, the QP does not, and still balances
    feet4 = np.array([[0.15, 0.2, 0], [-0.15, 0.0, 0], [0.15, -0.2, 0], [0.6, 0.0, 0.0]])
    com4 = np.array([-0.1, 0.0, 0.12])
    closed = vertical_forces(feet4[:, :2], m * g, com4[:2])
    assert closed.min() < -1e-3
    f4 = support_forces(feet4, m, com4, mu=0.6)
    assert f4[:, 2].min() >= -1e-9
    assert np.all(np.hypot(f4[:, 0], f4[:, 1]) <= 0.6 * f4[:, 2] + 1e-7)
    _balance(feet4, f4, m, com4)


def test_the_qp_refuses_a_com_outside_the_support_polygon():
    feet = np.array([[0.15, 0.2, 0], [-0.15, 0.0, 0], [0.15, -0.2, 0]])
    with pytest.raises(InputError, match="outside the support polygon"):
        support_forces(feet, 3.0, (0.5, 0.0, 0.1), mu=0.6)


# ------------------------------------------------------------------------------------ gaits
def test_gait_tables():
    wave, gallop, tripod = (wave_gait(n) for n in ("wave", "gallop", "tripod"))
    assert wave.tau == pytest.approx(1 / 6) and gallop.tau == pytest.approx(1 / 3) and tripod.tau == 0.5
    # wave: rear to front on the left (legs 2, 1, 0), then on the right (5, 4, 3)
    assert np.argsort(wave.offsets).tolist() == [2, 1, 0, 5, 4, 3]
    # gallop: both legs of a row together, rear row first
    assert gallop.offsets[2] == gallop.offsets[5] == 0.0 and gallop.offsets[0] == gallop.offsets[3]
    assert {i for i, o in enumerate(tripod.offsets) if o == 0.0} == {0, 2, 4}
    assert neighbours(6) == [[1], [0, 2], [1], [4], [3, 5], [4]]
    with pytest.raises(InputError, match="tau"):
        wave_gait("tripod", tau=0.7)
    with pytest.raises(InputError, match="unknown"):
        wave_gait("trot")


def run(gen: GaitGenerator, t: float, dt: float = 1e-3) -> np.ndarray:
    """(steps, n) support flags over ``t`` seconds."""
    return np.array([gen.step(dt).copy() for _ in range(int(round(t / dt)))])


@pytest.mark.parametrize("name", ["wave", "gallop", "tripod"])
def test_a11_the_stability_rule_is_never_violated(name):
    cyc = StepCycle(0.07, 0.025, 0.14, wave_gait(name).tau)
    gen = GaitGenerator(wave_gait(name), cyc.period)
    support = run(gen, 20.0)
    assert gen.violations == 0
    for leg, nb in enumerate(neighbours(6)):  # recomputed from the flags, not trusted
        for j in nb:
            assert not np.any(~support[:, leg] & ~support[:, j])
    steps = np.diff(support.astype(int), axis=0)
    assert np.all((steps == -1).sum(axis=0) >= 20.0 / cyc.period - 2)  # every leg keeps stepping


def test_a11_the_tripod_stands_on_three_legs_at_all_times():
    cyc = StepCycle(0.07, 0.025, 0.1, 0.5)
    gen = GaitGenerator(wave_gait("tripod"), cyc.period)
    count = run(gen, 20.0).sum(axis=1)
    assert count.min() >= 3
    assert np.mean(count[2000:] == 3) > 0.95  # two alternating tripods once walking


def test_the_rules_are_what_keeps_an_overlapping_wave_safe():
    """A wave gait with τ = 0.4 overlaps neighbours' transfers: without the rules it violates,
    with them it never does (the rules hold legs in support)."""
    gait = wave_gait("wave", tau=0.4)
    free = GaitGenerator(gait, 2.0, stability=False, sequencing=False)
    run(free, 10.0)
    ruled = GaitGenerator(gait, 2.0)
    run(ruled, 10.0)
    assert free.violations > 0 and ruled.violations == 0 and ruled.held > 0


def test_a11_wave_to_tripod_on_the_fly_with_7_cm_steps():
    wave = StepCycle(0.07, 0.025, 0.14, 1 / 6)
    tri = StepCycle(0.07, 0.025, 0.14, 0.5)
    gen = GaitGenerator(wave_gait("wave"), wave.period)
    before = run(gen, 6.0)
    gen.set_gait(wave_gait("tripod"), tri.period)
    after = run(gen, 10.0)
    assert gen.violations == 0
    assert np.mean(before.sum(axis=1) >= 5) > 0.99  # wave: one leg at a time (a hand-over may
    assert before.sum(axis=1).min() >= 4                # share a millisecond)
    late = after[-int(3 * tri.period / 1e-3):]
    assert np.mean(late.sum(axis=1) == 3) > 0.9  # converged to alternating tripods
    a, b = late[:, [0, 2, 4]], late[:, [1, 3, 5]]
    assert np.all(a.all(axis=1) | b.all(axis=1))  # one whole tripod always down


def test_a11_walking_starts_and_is_periodic_after_about_2_s():
    cyc = StepCycle(0.07, 0.025, 0.1, 0.5)
    gen = GaitGenerator(wave_gait("tripod"), cyc.period)
    support = run(gen, 8.0)
    lifts = [np.flatnonzero(np.diff(support[:, i].astype(int)) == -1) * 1e-3 for i in range(6)]
    assert all(ls[0] < 2.0 for ls in lifts)
    for ls in lifts:
        late = np.diff(ls[ls > 2.0])
        np.testing.assert_allclose(late, cyc.period, atol=2e-3)


def test_stop_lands_every_leg_and_keeps_it_down():
    gen = GaitGenerator(wave_gait("tripod"), 1.4)
    run(gen, 3.3)
    gen.stop()
    support = run(gen, 2.0)
    assert support[-1000:].all() and gen.violations == 0


# ------------------------------------------------------------------------------ step cycle
def test_the_consistent_cycle_closes_and_the_printed_one_does_not():
    L, H, V, tau = 0.07, 0.025, 0.14, 0.5
    c = StepCycle(L, H, V, tau)
    assert c.transfer_time == pytest.approx(L / V)                       # T_tr = L/V_tr
    assert c.period == pytest.approx(c.transfer_time / tau)              # (3.4)
    assert c.stance_speed == pytest.approx(L / c.stance_time)
    assert c.closure_error == pytest.approx(0.0, abs=1e-15)
    p = StepCycle(L, H, V, tau, printed=True)
    assert p.v_up == pytest.approx(2 * H * V / L)                        # (3.2)
    assert p.transfer_time == pytest.approx(2 * L / V)                   # (3.2) in (3.3)
    assert p.stance_speed == pytest.approx(L / (p.period - L / V))       # (3.6)
    # the printed stance covers L (T_st/(Period - L/V)) = L (2L/V)/(3L/V) = 2L/3: L/3 short
    assert p.closure_error == pytest.approx(L / 3)


def test_the_ideal_cycle_lifts_2_h_ad_and_returns():
    c = StepCycle(0.07, 0.025, 0.14, 0.5)
    s, h = c.ideal(np.linspace(0.0, 1.0, 1001)[:-1])
    assert h.max() == pytest.approx(0.05, abs=1e-4) and h.min() == 0.0
    drift = c.stance_speed * c.transfer_time / 4  # the foot holds its place while lifting and placing
    assert s.min() == pytest.approx(-0.035 - drift) and s.max() == pytest.approx(0.035 + drift, abs=1e-4)
    assert s[0] == pytest.approx(-0.035) and s[500] == pytest.approx(0.035)  # PEP, AEP


def walk_over_step(h_ad: float, step: float = 0.025, dt: float = 1e-3, t: float = 12.0):
    """One leg of a tripod walking onto a ``step`` high ledge at x = 0.3 m: the body moves at the
    stance speed, the foot at body + s; returns times, foot (x, h), ground, phase codes, lift times."""
    c = StepCycle(0.07, h_ad, 0.1, 0.5)
    gen = GaitGenerator(wave_gait("tripod"), c.period)
    leg = LegCycle(c)
    out = []
    body = 0.0
    for k in range(int(t / dt)):
        support = gen.step(dt)
        body += c.stance_speed * dt
        phase = float(gen.phase[0])
        s_next, _ = c.ideal(phase)
        x_next = body + (float(s_next) if not support[0] else leg.s)  # where the foot is going
        s, h = leg.update(phase, step if x_next > 0.3 else 0.0, not support[0], dt)
        x = body + s
        out.append((k * dt, x, h, step if x > 0.3 else 0.0, leg.phase_code, support[0]))
    return np.array(out), c


def test_a13_a_2_5_cm_step_is_absorbed_with_h_ad_2_5_cm_at_a_constant_period():
    rec, c = walk_over_step(0.025)
    t, x, h, ground, code, support = rec.T
    assert np.all(h >= ground - 1e-12)                      # the foot never goes through the ledge
    on_ledge = (x > 0.4) & (support == 1)
    assert on_ledge.any() and np.allclose(h[on_ledge], 0.025)  # it stands on the ledge
    assert np.any(code == 14)
    lifts = t[1:][np.diff(support) == -1]
    np.testing.assert_allclose(np.diff(lifts[lifts > 2.0]), c.period, atol=2e-3)  # period unchanged


def test_a13_a_1_cm_zone_cannot_clear_a_2_5_cm_step():
    rec, _ = walk_over_step(0.01)
    t, x, h, ground, code, support = rec.T
    assert np.any((support == 0) & (h < ground - 1e-6))  # the 2 cm lift runs into the ledge


def test_a_foot_over_a_hole_searches_down_within_the_zone():
    c = StepCycle(0.07, 0.025, 0.1, 0.5)
    leg = LegCycle(c)
    for ph in np.linspace(0.0, 0.499, 500):
        leg.update(ph, -0.01, True, c.period / 1000)
    assert not leg.in_contact
    for ph in np.linspace(0.5, 0.6, 100):
        leg.update(ph, -0.01, False, c.period / 1000)
    assert leg.in_contact and leg.contact_height == pytest.approx(-0.01)
    deep = LegCycle(c)
    for ph in np.linspace(0.0, 0.499, 500):
        deep.update(ph, -0.2, True, c.period / 1000)
    for ph in np.linspace(0.5, 0.9, 400):
        deep.update(ph, -0.2, False, c.period / 1000)
    assert deep.contact_height == pytest.approx(-0.025)  # no lower than H_ad below zero


# ------------------------------------------------------------------------------------ A14
def test_a14_climbing_geometry():
    alpha = np.radians([0.0, 15.0, 30.0, 45.0])
    np.testing.assert_allclose(max_ledge_height(0.2, 0.15, alpha), 0.2 + 0.15 * np.sin(alpha))
    assert np.all(np.diff(lift_torque_proxy(0.15, alpha)) < 0)
    assert segment_orientation(0.5, 0.2) == pytest.approx(0.3)


def test_a_sensed_touch_ends_the_descent_and_clearance_follows_the_feet():
    """With ``touch`` (a force sensor) the descent stops where the foot felt the ground, whatever
    ``ground`` says; when every supporting foot stands above the zero level, adapt_clearance moves
    the zero level up to the lowest (the thesis's clearance adaptation)."""
    from legsim.walking import adapt_clearance

    c = StepCycle(0.07, 0.025, 0.1, 0.5)
    legs = [LegCycle(c) for _ in range(3)]
    heights = []
    for leg, felt_at in zip(legs, (0.75, 0.8, 0.85), strict=True):
        for ph in np.linspace(0.0, 0.499, 500):
            leg.update(ph, -1.0, True, c.period / 1000, touch=ph >= felt_at * c.tau)
        heights.append(leg.contact_height)
        assert leg.in_contact
    np.testing.assert_allclose(heights, [c.ideal_at(f * c.tau)[1] for f in (0.75, 0.8, 0.85)], atol=2e-4)
    shift = adapt_clearance(legs)
    assert shift == pytest.approx(min(heights))
    assert min(leg.contact_height for leg in legs) == pytest.approx(0.0)
    assert adapt_clearance(legs) == 0.0  # already at zero


def test_a_sensed_touchdown_holds_the_felt_height_not_the_lagging_command():
    """A foot that lags its command touches while the command is still above the ground: with
    ``felt`` (the encoders' foot height) the support holds where the foot is, in the air phase and
    in the search below zero alike."""
    c = StepCycle(0.07, 0.025, 0.1, 0.5)
    leg = LegCycle(c)
    for ph in np.linspace(0.0, 0.8 * c.tau, 400):
        leg.update(ph, -1.0, True, c.period / 1000, touch=ph >= 0.8 * c.tau, felt=-0.004)
    assert leg.in_contact and leg.contact_height == -0.004 and leg.h == -0.004
    assert c.ideal_at(0.8 * c.tau)[1] > 0.005  # where the command was
    late = LegCycle(c)
    for ph in np.linspace(0.0, c.tau - 1e-6, 400):  # never touched in the transfer
        late.update(ph, -1.0, True, c.period / 1000, touch=False, felt=0.0)
    assert not late.in_contact
    late.update(c.tau + 0.01, -1.0, False, c.period / 1000, touch=True, felt=-0.012)
    assert late.in_contact and late.contact_height == -0.012 and late.phase_code == 24


def test_support_margin_and_com_correction():
    from legsim.walking import com_correction, support_margin

    square = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2), (0.0, 0.0)]  # an inner foot ignored
    assert support_margin((0.0, 0.0), square) == pytest.approx(0.2)
    assert support_margin((0.15, 0.0), square) == pytest.approx(0.05)
    assert support_margin((0.3, 0.0), square) == pytest.approx(-0.1)
    np.testing.assert_allclose(com_correction((0.1, -0.05), square), (-0.1, 0.05))
    tri = [(0.15, 0.2), (-0.15, 0.0), (0.15, -0.2)]  # a tripod: centroid (0.05, 0)
    np.testing.assert_allclose(com_correction((0.0, 0.0), tri, gain=0.5), (0.025, 0.0))
    with pytest.raises(InputError, match="one line"):
        support_margin((0, 0), [(0, 0), (1, 0), (2, 0)])
