"""Maxon RE118751 with 33:1 gear, Panasonic 12 V 2.2 Ah battery (SimSect digest §4.9–4.10, §6.3 13)."""

import math

import numpy as np
import pytest

from legsim.actuators.electric import (
    PeukertBattery,
    armature_current,
    armature_voltage,
    charge_fraction,
    lifetime,
    saturate_torque,
    torque_limits,
)
from legsim.actuators.electric.dcmotor import MAXON_RE118751, stall_torque
from legsim.errors import InputError
from legsim.validation import simsect as case  # measurements shared with `legsim report`

K_OMEGA = 61.261056


def test_speed_constant_of_61_26_rad_per_volt_second_is_585_rpm_per_volt():
    assert case.K_OMEGA == K_OMEGA
    assert case.motor_constants()["rpm_per_volt"] == pytest.approx(585.0, abs=1e-4)


def test_torque_limit_is_zero_at_the_no_load_speed_about_303_rpm_at_the_leg():
    no_load_leg_rpm = case.motor_constants()["no_load_leg_rpm"]  # 10000 rpm / 33
    assert no_load_leg_rpm == pytest.approx(303.03, abs=0.01)
    omega = no_load_leg_rpm * 2 * math.pi / 60
    lo, hi = torque_limits(omega, stall_torque=4.0)
    assert hi == pytest.approx(0.0, abs=1e-12)
    assert lo == pytest.approx(-4.0)          # braking still available
    # linear in between: half the stall torque at half the no-load speed
    assert torque_limits(omega / 2, 4.0)[1] == pytest.approx(2.0)
    # symmetric for the opposite direction of rotation
    assert torque_limits(-omega, 4.0)[0] == pytest.approx(0.0, abs=1e-12)


def test_saturation_passes_small_torques_and_clips_large_ones_at_the_speed_dependent_limit():
    omega = 0.25 * (10000 * 2 * math.pi / 60) / 33
    out = saturate_torque([1.0, 10.0, -10.0], omega, 4.0)
    np.testing.assert_allclose(out, [1.0, 3.0, -4.0])


def test_armature_current_is_torque_over_torque_constant_times_gear_ratio():
    kt = MAXON_RE118751["torque_constant"]
    assert kt == pytest.approx(1 / K_OMEGA)
    i = armature_current(2.0, kt, 33.0)
    assert i == pytest.approx(2.0 / (kt * 33.0))
    # power balance of the ideal machine: electrical back-EMF power equals mechanical power
    omega = 5.0
    emf = armature_voltage(i, omega, armature_resist=0.0)
    assert emf * i == pytest.approx(2.0 * omega, rel=1e-12)


def test_armature_voltage_at_no_load_speed_is_the_speed_over_the_speed_constant():
    omega_leg = 10000 * 2 * math.pi / 60 / 33
    v = armature_voltage(0.0, omega_leg, armature_resist=2.0)
    assert v == pytest.approx(10000 / 585.0, rel=1e-6)          # ~17.09 V
    assert armature_voltage(1.5, 0.0, armature_resist=2.0) == pytest.approx(3.0)


def test_peukert_curve_gives_the_rated_time_at_the_rated_current_and_shrinks_faster_than_1_over_i():
    b = PeukertBattery()
    assert b.discharge_time(0.11) == pytest.approx(20 * 3600.0)
    t1, t2 = b.discharge_time(1.0), b.discharge_time(2.0)
    assert t2 < t1 / 2                                 # Peukert exponent > 1
    assert 0.5 * 3600 < b.discharge_time(2.2) < 0.8 * 3600  # ~40 min at 1C
    assert b.rate(0.0) == 0.0


def test_constant_current_discharge_reaches_zero_exactly_at_f_of_i():
    b = PeukertBattery()
    i = 1.7
    f = b.discharge_time(i)
    t = np.linspace(0.0, 1.3 * f, 1301)
    c = charge_fraction(t, np.full_like(t, i), b)
    life, extrap = lifetime(t, c)
    assert not extrap
    assert life == pytest.approx(f, rel=1e-12)
    assert c[0] == 1.0


def test_lifetime_is_extrapolated_with_the_mean_rate_when_the_run_is_short():
    b = PeukertBattery()
    t = np.linspace(0, 10.0, 11)
    c = charge_fraction(t, np.full_like(t, 2.0), b)
    life, extrap = lifetime(t, c)
    assert extrap
    assert life == pytest.approx(b.discharge_time(2.0), rel=1e-9)


def test_bad_inputs_are_rejected_with_the_offending_value_named():
    with pytest.raises(InputError, match="exponent"):
        PeukertBattery(exponent=0.8)
    with pytest.raises(InputError, match="gear_ratio"):
        armature_current(1.0, 0.016, 0.0)
    with pytest.raises(InputError, match="equal length"):
        charge_fraction([0, 1, 2], [1.0, 2.0])


def test_torque_speed_line_is_the_armature_circuit_at_the_no_load_voltage():
    """tau = k_g K_tau (V - k_g omega / K_omega) / r_a with V = w_nl / K_omega (independent derivation)."""
    kt, ra, kg = 1 / K_OMEGA, 2.0, 33.0
    volts = 10000 * 2 * math.pi / 60 / K_OMEGA
    ts = stall_torque(10000.0, K_OMEGA, kt, ra, kg)
    assert ts == pytest.approx(kg * kt * volts / ra) and 4.5 < ts < 4.7
    for omega in (0.0, 5.0, 20.0, 31.0):
        circuit = kg * kt * (volts - kg * omega / K_OMEGA) / ra
        assert torque_limits(omega, ts)[1] == pytest.approx(min(ts, circuit), abs=1e-12)
