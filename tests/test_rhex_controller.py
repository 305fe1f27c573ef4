"""Buehler-clock open-loop controller of the hexapod (SimSect digest §4.13, §6.3 item 11)."""

import math

import numpy as np
import pytest

from legsim.hybrid import simulate
from legsim.robots.rhex import build_model, default_options
from legsim.robots.rhex.controller import (
    G_HALF,
    G_SWITCH,
    clock_angle,
    clock_reset,
    initial_clock,
    phase_of,
    ref_rate,
)
from legsim.robots.rhex.params import TRIPOD_A, X_PHIS, X_REF, X_TC, X_TS

TC, TS, PHIS, PHI0 = 1.0, 0.6, 0.8, 0.1


@pytest.fixture(scope="module")
def run():
    """A 2.2 s walk with the clock parameters above (records every 50 ms)."""
    model = build_model(t_c=TC, t_s=TS, phi_s=PHIS, phi_0=PHI0)
    return simulate(model, 2.2, options=default_options(record_period=0.05), progress=False)


def test_analytic_clock_sweeps_phi_s_in_t_s_and_the_rest_of_the_turn_in_t_c_minus_t_s():
    psi = lambda t: float(clock_angle(t, TC, TS, PHIS, PHI0))  # noqa: E731
    assert psi(TS / 2) - psi(-TS / 2) == pytest.approx(PHIS)
    assert psi(TC - TS / 2) - psi(TS / 2) == pytest.approx(2 * math.pi - PHIS)
    assert psi(0.37 + TC) - psi(0.37) == pytest.approx(2 * math.pi)
    assert psi(0.0) == pytest.approx(PHI0)
    assert float(clock_angle(0.0, TC, TS, PHIS, PHI0, offset=TC / 2)) == pytest.approx(PHI0 + math.pi)


def test_reference_angles_follow_the_clock_with_the_tripods_offset_by_half_a_period(run):
    """phi_ref,i = -psi(t + offset_i): tripod A at mid-stance at t = 0, tripod B half a period later."""
    for i in range(6):
        offset = 0.0 if i in TRIPOD_A else TC / 2
        expected = -clock_angle(run.t, TC, TS, PHIS, PHI0, offset)
        np.testing.assert_allclose(run.x[:, X_REF + i], expected, atol=1e-8)


def _phase_transitions(run, leg):
    out = []
    for ev in run.events:
        a, b = phase_of(int(ev["mode_before"]), leg), phase_of(int(ev["mode_after"]), leg)
        if a != b:
            out.append((float(ev["t"]), int(a), int(b)))
    return out


def test_phase_bits_cycle_0_1_2_3_at_the_reconstructed_times(run):
    """Z0 = [0, t_s/2), Z1 = [t_s/2, t_c/2), Z2 = [t_c/2, t_c - t_s/2), Z3 = [t_c - t_s/2, t_c)."""
    a = _phase_transitions(run, 0)
    expected_a = [(0.3, 0, 1), (0.5, 1, 2), (0.7, 2, 3), (1.0, 3, 0), (1.3, 0, 1), (1.5, 1, 2),
                  (1.7, 2, 3), (2.0, 3, 0)]
    assert [(p, q) for _, p, q in a] == [(p, q) for _, p, q in expected_a]
    np.testing.assert_allclose([t for t, _, _ in a], [t for t, _, _ in expected_a], atol=1e-9)
    b = _phase_transitions(run, 1)                   # tripod B, offset by t_c/2
    expected_b = [(0.2, 2, 3), (0.5, 3, 0), (0.8, 0, 1), (1.0, 1, 2), (1.2, 2, 3), (1.5, 3, 0),
                  (1.8, 0, 1), (2.0, 1, 2)]
    assert [(p, q) for _, p, q in b] == [(p, q) for _, p, q in expected_b]
    np.testing.assert_allclose([t for t, _, _ in b], [t for t, _, _ in expected_b], atol=1e-9)
    for leg in range(2, 6):
        np.testing.assert_allclose(np.array(_phase_transitions(run, leg)),
                                   np.array(_phase_transitions(run, leg % 2)), atol=1e-9)


def test_clock_events_are_the_time_guards_12_and_13_plus_leg(run):
    clock = run.events[run.events["guard"] >= 12]
    half = clock[clock["guard"] == G_HALF]["t"]
    np.testing.assert_allclose(half, [0.5, 1.0, 1.5, 2.0], atol=1e-9)


def _clock_state(**changes):
    model = build_model(t_c=TC, t_s=TS, phi_s=PHIS, phi_0=PHI0)
    p = model.params()
    x = model.state()
    mode = initial_clock(p, x)
    return model, p, x, mode


def test_parameter_changes_are_applied_only_at_the_half_cycle_events():
    model, p, x, mode = _clock_state()
    p_new = p.copy()
    p_new[model.param_names.index("t_c")] = 0.8
    p_new[model.param_names.index("phi_s")] = 1.2
    fired = np.zeros(model.nguard, dtype=np.int64)
    # slow -> fast switch of tripod A at t_s/2: the latched values must not change
    fired[[G_SWITCH + i for i in TRIPOD_A]] = 1
    x_new = x.copy()
    m1 = clock_reset(TS / 2, x, p_new, mode, fired, x_new)
    assert all(phase_of(m1, i) == 1 for i in TRIPOD_A)
    assert x_new[X_TC] == TC and np.all(x_new[X_PHIS:X_PHIS + 6] == PHIS)
    # half cycle (1 -> 2 and 3 -> 0): latched, and the references resynchronised
    fired[:] = 0
    fired[G_HALF] = 1
    x2 = x_new.copy()
    for i in range(6):                                 # references at t_c/2, with a small drift
        x_new[X_REF + i] = -float(clock_angle(TC / 2, TC, TS, PHIS, PHI0, 0.0 if i in TRIPOD_A else TC / 2))
        x_new[X_REF + i] += 1e-3
    m2 = clock_reset(TC / 2, x_new, p_new, m1, fired, x2)
    assert x2[X_TC] == 0.8 and np.all(x2[X_PHIS:X_PHIS + 6] == 1.2)
    assert all(phase_of(m2, i) == 2 for i in TRIPOD_A)
    for i in range(6):
        target = PHI0 + math.pi if i in TRIPOD_A else PHI0 + 2 * math.pi
        assert x2[X_REF + i] == pytest.approx(-target, abs=1e-12)


def test_negated_profile_reverses_the_reference_direction():
    model, p, x, mode = _clock_state()
    pb = model.params({"t_c": TC, "t_s": TS, "phi_s": PHIS, "phi_0": PHI0, "direction": -1})
    xb = model.state()
    mb = initial_clock(pb, xb)
    for i in range(6):
        assert ref_rate(xb, mb, i) == pytest.approx(-ref_rate(x, mode, i))
        assert xb[X_REF + i] == pytest.approx(-x[X_REF + i])


def test_turning_in_place_rotates_contralateral_legs_oppositely_and_differential_gains_split_the_sides():
    model = build_model()
    x = model.state()
    mode = initial_clock(model.params({"turn_in_place": 1}), x)
    rates = [ref_rate(x, mode, i) for i in range(6)]
    assert rates[0] == pytest.approx(-rates[4]) and rates[1] == pytest.approx(-rates[3])
    assert rates[0] < 0 < rates[4]          # left legs drive forward, right legs backward
    x = model.state()
    initial_clock(model.params({"delta_t": 0.1, "delta_phi": 0.2}), x)
    np.testing.assert_allclose(x[X_TS:X_TS + 6], [0.5, 0.5, 0.5, 0.7, 0.7, 0.7])
    np.testing.assert_allclose(x[X_PHIS:X_PHIS + 6], [1.0, 1.0, 1.0, 0.6, 0.6, 0.6])
