"""Orifice, ISO 6358 and Cv flow: pneumatic digest §2.1, §7 A1; RATS digest §2.4, §6.2 T3."""

import math

import numpy as np
import pytest

from legsim.actuators.pneumatic import (
    AIR,
    NITROGEN,
    cv_mass_flow,
    flow_function,
    iso6358_mass_flow,
    orifice_mass_flow,
    signed_mass_flow,
)
from legsim.actuators.pneumatic.units import psi_to_pa
from legsim.errors import InputError
from legsim.validation import pneumatic as case  # measurements shared with `legsim report`


def test_flow_constants_match_the_sources_values():
    # A1 (Daepp): C1 = 0.15617, C2 = 0.040418; T3 (RATS, labels swapped): 0.040418, 0.156174 to 1e-4
    c = case.flow_constants()
    assert c["c1"] == pytest.approx(0.15617, abs=5e-6)
    assert c["c2"] == pytest.approx(0.040418, abs=5e-7)
    assert abs(AIR.c2 - 0.040418) < 1e-4 and abs(AIR.c1 - 0.156174) < 1e-4
    assert AIR.critical_ratio == pytest.approx(0.52828, abs=1e-5)
    assert round(AIR.critical_ratio, 3) == 0.528


def test_choked_flow_equals_the_textbook_critical_mass_flux():
    # independent formula: m* = A p0 sqrt(k/(R T0)) (2/(k+1))^((k+1)/(2(k-1)))
    k, r, t, p, a = 1.4, 287.0, 298.0, 6e5, 2e-6
    expected = a * p * math.sqrt(k / (r * t)) * (2 / (k + 1)) ** ((k + 1) / (2 * (k - 1)))
    got = orifice_mass_flow(a, p, [1e5, 2e5, 3e5], t)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_orifice_branches_coincide_at_the_exact_critical_ratio():
    r_cr = AIR.critical_ratio
    unchoked = AIR.c1 * r_cr ** (1 / 1.4) * math.sqrt(1 - r_cr ** (0.4 / 1.4))
    assert unchoked == pytest.approx(AIR.c2, rel=1e-12)
    # at the coded threshold 0.528 the two branches differ by a relative 1.74e-7 (the digest's
    # A1 says 2e-8; the arithmetic gives 1.74e-7): effectively continuous either way
    at_528 = AIR.c1 * 0.528 ** (1 / 1.4) * math.sqrt(1 - 0.528 ** (0.4 / 1.4))
    assert 1e-8 < abs(at_528 - AIR.c2) / AIR.c2 < 1e-6
    eps = 1e-9
    lo = flow_function(r_cr - eps)
    hi = flow_function(r_cr + eps)
    assert abs(hi - lo) / lo < 1e-8


def test_orifice_flow_is_continuous_at_the_critical_pressure_ratio_with_the_coded_threshold():
    r = np.array([0.528 - 1e-12, 0.528 + 1e-12])
    psi = flow_function(r, critical_ratio=0.528)
    assert abs(psi[1] - psi[0]) / psi[0] < 1e-6


def test_orifice_flow_is_continuous_and_monotone_in_upstream_pressure():
    p_down = 1.2e5
    for lam in (0.0, 0.999):
        largest = []
        for n in (2001, 200001):
            p_up = np.linspace(p_down, 10 * p_down, n)
            m = orifice_mass_flow(1e-6, p_up, p_down, 298.0, laminar_ratio=lam)
            assert m[0] == 0.0
            assert np.all(np.diff(m) > 0)
            largest.append(np.diff(m).max())
        # a jump would not shrink with the grid; a continuous curve's largest step does
        # (by 100x where smooth, by 10x where the square root of (4.1.5) starts)
        assert largest[1] < largest[0] / 5
        # across the exact choke point the step is the local slope times the spacing (2 mPa)
        p_cr = p_down / AIR.critical_ratio
        m = orifice_mass_flow(1e-6, [p_cr - 1e-3, p_cr + 1e-3], p_down, 298.0, laminar_ratio=lam)
        assert abs(m[1] - m[0]) < 2e-3 * 1e-6 * AIR.c2 / math.sqrt(298.0) * 1.5
        # with the coded 0.528 the step is the 1.7e-7 relative mismatch of the branches
        p_cr = p_down / 0.528
        m = orifice_mass_flow(1e-6, [p_cr - 1e-3, p_cr + 1e-3], p_down, 298.0, critical_ratio=0.528,
                              laminar_ratio=lam)
        assert abs(m[1] - m[0]) / m[0] < 1e-6


def test_orifice_flow_is_zero_and_finite_at_equal_pressures_and_reverses_sign():
    assert orifice_mass_flow(1e-6, 3e5, 3e5, 298.0) == 0.0
    assert orifice_mass_flow(1e-6, 0.0, 0.0, 298.0) == 0.0
    fwd = orifice_mass_flow(1e-6, 3e5, 2e5, 298.0)
    rev = orifice_mass_flow(1e-6, 2e5, 3e5, 298.0)
    assert fwd > 0 and rev == pytest.approx(-fwd, rel=1e-14)
    # the laminar region keeps the slope finite at dp -> 0 and matches the source law at r_lam
    p = 3e5
    m1 = orifice_mass_flow(1e-6, p, p * (1 - 1e-6), 298.0)
    m2 = orifice_mass_flow(1e-6, p, p * (1 - 2e-6), 298.0)
    assert m2 == pytest.approx(2 * m1, rel=1e-9)
    src = orifice_mass_flow(1e-6, p, 0.999 * p, 298.0, laminar_ratio=0.0)
    assert orifice_mass_flow(1e-6, p, 0.999 * p, 298.0) == pytest.approx(src, rel=1e-12)


def test_orifice_flow_broadcasts_numpy_arrays():
    area = np.array([1e-6, 2e-6])[:, None]
    p_down = np.array([1e5, 2e5, 3e5])[None, :]
    m = orifice_mass_flow(area, 4e5, p_down, 298.0)
    assert m.shape == (2, 3)
    np.testing.assert_allclose(m[1], 2 * m[0], rtol=1e-14)


def test_signed_flow_carries_the_upstream_temperature():
    m_in, t_in = signed_mass_flow(1e-6, 5e5, 2e5, 298.0, 350.0)
    m_out, t_out = signed_mass_flow(1e-6, 2e5, 5e5, 298.0, 350.0)
    assert m_in > 0 and t_in == 298.0
    assert m_out < 0 and t_out == 350.0
    # outflow is computed with the chamber temperature: sqrt(298/350) of the same-temperature flow
    same_t = orifice_mass_flow(1e-6, 5e5, 2e5, 298.0)
    assert -m_out == pytest.approx(same_t * math.sqrt(298.0 / 350.0), rel=1e-12)


def test_iso6358_flow_is_choked_below_b_and_continuous_at_b():
    c, b, t = 1e-9, 0.3, 293.15
    p = 6e5
    choked = iso6358_mass_flow(c, b, p, [0.5e5, 1.5e5], t)
    np.testing.assert_allclose(choked, c * 1.185 * p, rtol=1e-12)
    around = iso6358_mass_flow(c, b, p, [b * p * (1 - 1e-10), b * p * (1 + 1e-10)], t)
    assert abs(around[1] - around[0]) / around[0] < 1e-6
    # subsonic ellipse at r = (1 + b)/2 with the laminar region off: sqrt(1 - 0.25)
    mid = iso6358_mass_flow(c, b, p, p * (1 + b) / 2, t, laminar_ratio=0.0)
    assert mid == pytest.approx(c * 1.185 * p * math.sqrt(0.75), rel=1e-12)


def test_cv_flow_source_mode_jumps_by_the_factor_1360_over_907_at_the_choke_point():
    p_s = 8.25e5
    below, above = cv_mass_flow(0.3, p_s, [0.528 * p_s * (1 - 1e-9), 0.528 * p_s * (1 + 1e-9)],
                                298.15, mode="source", gas=NITROGEN)
    assert below / above == pytest.approx(907 / 1360, rel=1e-6)


def test_corrected_cv_flow_is_continuous_at_the_choke_point():
    # T3: corrected Cv flow continuous at the choke point
    p_s = 8.25e5
    r = np.array([0.528 * (1 - 1e-9), 0.528 * (1 + 1e-9)])
    m = cv_mass_flow(0.3, p_s, p_s * r, 298.15, gas=NITROGEN)
    assert abs(m[1] - m[0]) / m[0] < 1e-6
    ps = np.linspace(1.01e5, 12e5, 5000)
    mm = cv_mass_flow(0.3, ps, 1.0e5, 298.15, gas=NITROGEN)
    assert np.all(np.diff(mm) > 0)


def test_corrected_cv_flow_differs_from_the_source_by_the_density_ratio_at_small_drops():
    # at small dp both modes have Y -> 1360-equivalent; mass differs by rho_std / rho_supply
    p_s, t = 8.25e5, 298.15
    p_c = p_s * 0.99
    src = cv_mass_flow(0.3, p_s, p_c, t, mode="source", gas=NITROGEN, laminar_ratio=0.0)
    cor = cv_mass_flow(0.3, p_s, p_c, t, gas=NITROGEN, laminar_ratio=0.0)
    rho_std = 101325.0 / (NITROGEN.R * 288.706)
    rho_s = p_s / (NITROGEN.R * t)
    y = 1 - 0.01 / (3 * 0.472)
    assert cor / src == pytest.approx(rho_std / rho_s * y, rel=1e-9)


@pytest.mark.parametrize("kw, name", [
    (dict(area=-1e-6, p_up=3e5, p_down=1e5, T_up=298.0), "area"),
    (dict(area=1e-6, p_up=-3e5, p_down=1e5, T_up=298.0), "p_up"),
    (dict(area=1e-6, p_up=3e5, p_down=-1.0, T_up=298.0), "p_down"),
    (dict(area=1e-6, p_up=3e5, p_down=1e5, T_up=0.0), "T_up"),
])
def test_negative_pressures_areas_or_temperatures_raise_input_errors_naming_the_value(kw, name):
    with pytest.raises(InputError, match=name):
        orifice_mass_flow(**kw)


def test_unit_helpers_round_trip_psig_and_match_the_setup_script():
    from legsim.actuators.pneumatic.units import pa_to_psig, psig_to_pa
    assert psig_to_pa(50.3) == pytest.approx(65.0 * 6894.76)
    assert pa_to_psig(psig_to_pa(np.array([20.0, 50.3])))[1] == pytest.approx(50.3)
    assert psi_to_pa(1.0) == 6894.76


def test_psig_to_pa_of_a_float32_array_adds_the_atmosphere_in_double_precision():
    """psig_to_pa added the atmosphere in the array's own precision: a float32 array [50.3] psig became
    448159.4 Pa (the float32 sum, 65.0 psia), 0.005 Pa away from the same value given as a number
    (448159.3947 Pa). Every array is now converted to float64 first, as a number is."""
    from legsim.actuators.pneumatic.units import psig_to_pa
    p = np.array([50.3], dtype=np.float32)
    assert psig_to_pa(p)[0] == psig_to_pa(float(p[0])) == (float(p[0]) + 14.7) * 6894.76
