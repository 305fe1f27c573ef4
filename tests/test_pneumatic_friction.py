"""Cylinder friction laws: pneumatic digest §2.4 (Daepp eqs. 4.2.1–4.2.6) and LuGre."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from legsim.actuators.pneumatic import Friction, FrictionModel, friction_force, stribeck_tanh_source
from legsim.actuators.pneumatic.friction import lugre_bristle_rate, viscous_source
from legsim.actuators.pneumatic.units import LBF


def test_stribeck_tanh_uses_the_sources_parameters_and_formula():
    f = stribeck_tanh_source()
    assert f.f_s == pytest.approx(4.5 * LBF) and f.f_c_pos == pytest.approx(3 * LBF)
    v = np.array([-0.3, -0.05, 0.0, 0.02, 0.1, 0.5])
    expected = [(3 + 1.5 * math.exp(-((abs(x) / 0.1) ** 5))) * math.tanh(40 * x) * LBF
                + 0.5 * LBF * x for x in v]
    np.testing.assert_allclose(friction_force(f, v), expected, rtol=1e-12, atol=1e-14)
    assert friction_force(f, 0.0) == 0.0  # the known limitation: no friction at rest


def test_stribeck_tanh_peaks_near_stiction_then_drops_to_coulomb_plus_viscous():
    f = stribeck_tanh_source()
    v = np.linspace(1e-4, 0.5, 5000)
    ff = friction_force(f, v)
    peak = ff.max()
    assert 0.9 * f.f_s < peak <= f.f_s + f.c_v * 0.2
    assert ff[-1] == pytest.approx(f.f_c_pos + f.c_v * 0.5, rel=1e-3)
    np.testing.assert_allclose(friction_force(f, -v), -ff, rtol=1e-14)


def test_coulomb_friction_opposes_motion_and_balances_small_forces_at_rest():
    f = Friction(model=FrictionModel.COULOMB, f_c_pos=10.0, f_c_neg=8.0)
    assert friction_force(f, 0.1) == 10.0 and friction_force(f, -0.1) == -8.0
    assert friction_force(f, 0.0, f_applied=5.0) == 5.0
    assert friction_force(f, 0.0, f_applied=50.0) == 10.0


def test_stiction_model_sticks_until_the_applied_force_exceeds_static_friction():
    f = Friction(model=FrictionModel.STICTION, f_s=20.0, f_c_pos=13.0, f_c_neg=13.0, c_v=2.0)
    assert friction_force(f, 0.0, f_applied=19.0, stuck=1) == 19.0
    assert friction_force(f, 0.0, f_applied=-25.0, stuck=1) == -20.0
    assert friction_force(f, 0.2, stuck=0) == pytest.approx(13.0 + 0.4)
    assert friction_force(f, -0.2, stuck=0) == pytest.approx(-13.4)


def test_viscous_and_steep_linear_laws():
    assert friction_force(viscous_source(), 0.1) == pytest.approx(7.0)  # b = 70
    f = Friction(model=FrictionModel.STEEP_LINEAR, f_c_pos=10.0, f_c_neg=10.0, c_v=0.0, v_sat=0.01)
    np.testing.assert_allclose(friction_force(f, [0.005, 0.01, 0.2, -0.2]), [5.0, 10.0, 10.0, -10.0])


def test_lugre_steady_state_friction_follows_its_stribeck_curve():
    f = Friction(model=FrictionModel.LUGRE, f_s=20.0, f_c_pos=13.0, f_c_neg=13.0, c_v=2.0, v_s=0.05,
                 sigma0=1e5, sigma1=300.0)
    for v in (0.01, 0.05, 0.2, -0.1):
        sol = solve_ivp(lambda t, z, v=v: [lugre_bristle_rate(f, v, z[0])], (0, 2.0), [0.0],
                        method="LSODA", rtol=1e-10, atol=1e-14)
        z = sol.y[0, -1]
        g = 13.0 + 7.0 * math.exp(-((v / 0.05) ** 2))
        assert friction_force(f, v, z=z) == pytest.approx(math.copysign(g, v) + 2.0 * v, rel=1e-6)
