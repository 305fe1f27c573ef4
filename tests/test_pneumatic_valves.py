"""MPYE-5 valve models (pneumatic digest §2.5, §7 A2–A3) and RATS solenoid valves (§1.3–§1.4)."""

import numpy as np
import pytest

from legsim.actuators.pneumatic import (
    RUBBER_SEAT,
    SPOOL_SLEEVE,
    CommandQueue,
    ValveModel,
    VoltageReference,
    mpye5_fitted,
    mpye5_simple,
    mpye5_underlapped,
)
from legsim.actuators.pneumatic.units import pa_to_psi, psi_to_pa
from legsim.actuators.pneumatic.valves import (
    AEQ_VOLTAGES,
    CD_PORT1,
    CD_PORT2,
    ESTIMATED_AREA_SLOPE,
    LEAK_AREA,
    PORT1_POLY_NEG,
    PORT1_POLY_POS,
    PORT2_POLY_NEG,
    PORT2_POLY_POS,
)
from legsim.errors import InputError
from legsim.validation import pneumatic as case  # measurements shared with `legsim report`

PS, PE = psi_to_pa(65.0), psi_to_pa(15.7)


def test_tanh_input_pressure_reproduces_the_port_2_values():
    # A2: 24.2, 40.4, 56.5, 64.6 psia at centered Vc = 0, 0.25, 0.5, 1.0
    v = mpye5_fitted()
    got = case.input_pressures_psia()  # at Vc = 0, 0.25, 0.5, 1.0
    np.testing.assert_allclose(got, [24.2, 40.4, 56.5, 64.6], atol=0.06)
    ends = pa_to_psi(v.input_pressure([0.0, 10.0], PS, PE))
    np.testing.assert_allclose(ends, [15.7, 65.0], atol=1e-3)


def test_rod_port_input_pressure_mirrors_the_cap_port_about_the_offset():
    v = mpye5_fitted()
    u = np.linspace(0, 10, 41)
    cap = v.input_pressure(u, PS, PE, port="cap")
    rod = v.input_pressure(u, PS, PE, port="rod")
    np.testing.assert_allclose(cap + rod, PS + PE, rtol=1e-12)


def test_quartic_fits_of_the_cd_data_reproduce_the_port_2_code_coefficients():
    # A3: polyfit(x(1:10), A, 4) and polyfit(x(10:19), A, 4) of cd .* (estA + AL)
    x = AEQ_VOLTAGES
    a2 = CD_PORT2 * (ESTIMATED_AREA_SLOPE * np.abs(x) + np.where(x == 0, LEAK_AREA, 0.0))
    np.testing.assert_allclose(np.polyfit(x[:10], a2[:10], 4), PORT2_POLY_NEG, rtol=3e-3)
    np.testing.assert_allclose(np.polyfit(x[9:], a2[9:], 4), PORT2_POLY_POS, rtol=5e-3)
    a1 = CD_PORT1 * (ESTIMATED_AREA_SLOPE * np.abs(x) + np.where(x == 0, LEAK_AREA, 0.0))
    np.testing.assert_allclose(np.polyfit(x[:10], a1[:10], 4), PORT1_POLY_NEG, rtol=2e-3)
    np.testing.assert_allclose(np.polyfit(x[9:], a1[9:], 4), PORT1_POLY_POS, rtol=2e-3)


def test_equivalent_area_sample_values_of_port_2():
    v = mpye5_fitted()
    # digest §2.5: A_eq(0) ~ 1.9e-8; A_eq(+-1) ~ 2.1-3.9e-7; A_eq(4.75) ~ 7.2e-7; A_eq(-4.75) ~ 1.09e-6
    a = v.equivalent_area(5.25 + np.array([0.0, 1.0, -1.0, 4.75, -4.75]))
    assert a[0] == pytest.approx(1.87e-8, rel=1e-9)
    assert 2.1e-7 <= min(a[1], a[2]) and max(a[1], a[2]) <= 3.9e-7 + 1e-10
    assert a[3] == pytest.approx(7.2e-7, rel=0.01)
    assert a[4] == pytest.approx(1.09e-6, rel=0.01)


def test_voltage_reference_conventions_place_the_null_point_where_documented():
    u = np.linspace(0.0, 10.0, 4001)
    cons = mpye5_fitted()
    cen = mpye5_fitted(voltage_reference=VoltageReference.CENTERED)
    adj = mpye5_fitted(voltage_reference=VoltageReference.ADJUSTED)
    mid = 0.5 * (PS + PE)
    for v, u_p, u_a in ((cons, 5.25, 5.25), (cen, 5.25, 5.0), (adj, 5.5, 5.25)):
        p = v.input_pressure(u, PS, PE)
        assert u[np.argmin(abs(p - mid))] == pytest.approx(u_p, abs=3e-3)
        # the quartics meet at their argument 0 with the leak value p0 of the Vc <= 0 side
        assert v.equivalent_area(u_a) == pytest.approx(PORT2_POLY_NEG[4], rel=1e-12)
        assert v.equivalent_area(u_a + 1.0) > 10 * PORT2_POLY_NEG[4]


def test_linear_valve_area_is_leak_plus_slope_times_distance_from_the_offset():
    v = mpye5_simple()
    a1, p1, a2, p2 = v.paths(5.25 + 2.0, PS, PE, port="cap")
    assert (a1, p1, a2) == (pytest.approx(0.09 * (2e-7 + 2e-6 * 2.0)), PS, 0.0)
    a1, p1, a2, p2 = v.paths(5.25 + 2.0, PS, PE, port="rod")
    assert a1 == 0.0 and a2 == pytest.approx(0.12 * (2e-7 + 2e-6 * 2.0)) and p2 == PE


def test_underlapped_valve_opens_both_paths_near_the_offset_and_only_one_beyond():
    v = mpye5_underlapped()
    a_s, _, a_e, _ = v.paths(5.25, PS, PE, port="cap")
    assert a_s > v.leak_cap and a_e > v.leak_cap and a_s == pytest.approx(a_e)
    a_s, _, a_e, _ = v.paths(5.25 + 1.0, PS, PE, port="cap")
    assert a_e == v.leak_cap and a_s > 0
    # overlapped: exactly one path at any voltage
    w = mpye5_simple()
    for u in (4.0, 5.2, 5.3, 7.0):
        a_s, _, a_e, _ = w.paths(u, PS, PE, port="cap")
        assert (a_s == 0.0) != (a_e == 0.0)


@pytest.mark.parametrize("u", [-0.5, 10.01, np.nan])
def test_voltage_outside_the_valve_range_raises_an_input_error_naming_it(u):
    with pytest.raises(InputError, match="valve voltage"):
        mpye5_fitted().input_pressure(u, PS, PE)


def test_supply_below_exhaust_raises_an_input_error():
    with pytest.raises(InputError, match="supply pressure"):
        mpye5_fitted().input_pressure(6.0, PE, PS)
    assert mpye5_fitted().model == ValveModel.FITTED


def test_solenoid_presets_carry_the_measured_latencies_and_open_windows():
    assert SPOOL_SLEEVE.latency == pytest.approx(13.16e-3)
    assert RUBBER_SEAT.latency == pytest.approx(5e-3)
    t0, t1 = SPOOL_SLEEVE.open_window(0.1, 0.040)
    assert t0 == pytest.approx(0.11316) and t1 == pytest.approx(0.140)
    t0, t1 = SPOOL_SLEEVE.open_window(0.0, 0.010)  # shorter than the latency: never opens
    assert t0 == t1
    assert not SPOOL_SLEEVE.is_open(0.005, 0.0, 0.040) and SPOOL_SLEEVE.is_open(0.02, 0.0, 0.040)


def test_command_queue_executes_leg_duration_wait_commands_at_1_ms_resolution():
    q = CommandQueue(12, [(3, 40, 100), (7, 20, 5), (3, 10, 0)])
    s = q.schedule()
    np.testing.assert_allclose(s["t_on"], [0.0, 0.100, 0.105])
    np.testing.assert_allclose(s["t_off"], [0.040, 0.120, 0.115])
    assert list(s["leg"]) == [3, 7, 3]
    assert q.energised(39)[3] and not q.energised(40)[3]
    on = q.energised(106)
    assert on[7] and on[3] and on.sum() == 2
    # latency applied before the valve opens
    assert not q.valve_open(0.010, SPOOL_SLEEVE)[3] and q.valve_open(0.014, SPOOL_SLEEVE)[3]


@pytest.mark.parametrize("cmd, word", [((12, 10, 0), "leg"), ((0, 10.5, 0), "duration_ms"),
                                       ((0, 10, -1), "wait_ms")])
def test_command_queue_rejects_bad_commands_naming_the_field(cmd, word):
    with pytest.raises(InputError, match=word):
        CommandQueue(12, [cmd])


@pytest.mark.parametrize("make", [mpye5_fitted, mpye5_simple, mpye5_underlapped])
def test_a_valve_change_names_an_unknown_field_and_refuses_a_model_of_no_kind(make):
    """``mpye5_*(**changes)``: an unknown key was dataclasses' TypeError, and a model or voltage reference
    of no kind (7, NaN) was stored and later read by the kernels as some other model."""
    with pytest.raises(InputError, match="field 'underlapp' does not exist .*did you mean 'underlap'"):
        make(underlapp=0.5)
    for key, value in (("model", 7), ("model", float("nan")), ("voltage_reference", "centered")):
        with pytest.raises(InputError, match=f"valve: '{key}' = "):
            make(**{key: value})
    assert make(model=ValveModel.FITTED, voltage_reference=VoltageReference.CENTERED).model == 2
