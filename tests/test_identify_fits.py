"""Identification tools recover known parameters from library-generated noisy data
(pneumatic digest §1.7, §2.4 "friction identification", §2.5, §7 item 5)."""

import json

import numpy as np
import pytest
from scipy import signal

from legsim.actuators.pneumatic import (
    Friction,
    FrictionModel,
    friction_force,
    mpye5_fitted,
    stribeck_tanh_source,
)
from legsim.actuators.pneumatic.units import psi_to_pa
from legsim.actuators.pneumatic.valves import PORT2_POLY_NEG, PORT2_POLY_POS
from legsim.errors import InputError
from legsim.identify import (
    FILTER_SPECS,
    FilterSpec,
    area_from_cd,
    constant_velocity_segments,
    coulomb_viscous_fit,
    design_lowpass,
    fit_input_pressure,
    fit_quartic_area,
    fit_stribeck_tanh,
    read_log,
    velocity_from_position,
    zero_phase,
)
from legsim.identify.cli import main as cli_main

RNG = np.random.default_rng(20111201)


@pytest.mark.parametrize("name", list(FILTER_SPECS))
def test_each_chebyshev_filter_meets_its_passband_and_stopband_specification(name):
    spec = FILTER_SPECS[name]
    sos = design_lowpass(name, fs=1000.0)
    w, h = signal.sosfreqz(sos, worN=[spec.f_pass, spec.f_stop], fs=1000.0)
    gain_db = 20 * np.log10(np.abs(h))
    assert gain_db[0] >= -spec.a_pass - 1e-6
    assert gain_db[1] <= -spec.a_stop + 1e-6


@pytest.mark.parametrize("gap", [1e-15, 1e-9, 1e-5])
def test_a_transition_band_too_narrow_to_design_is_an_input_error(gap):
    """Before, f_stop within 1e-5 of f_pass (relative) gave scipy's order-1078 filter with NaN coefficients
    (an overflow warning), 1e-9 an order-373 339 design running for minutes, edges a few ulps apart scipy's
    divide by zero; the order is now bounded (MAX_ORDER)."""
    with pytest.raises(InputError, match="'spec'.*MAX_ORDER"):
        design_lowpass(FilterSpec(12.0, 12.0 * (1 + gap), 1.0, 30.0), fs=1000.0)


def test_a_high_order_filter_with_its_stop_edge_at_nyquist_is_an_input_error():
    """Before, this order-70 design overflowed in scipy (the zeros' product near fs/2: a RuntimeWarning and
    NaN coefficients)."""
    spec = FilterSpec(499.97863434702793, 499.9816740692687, 0.0005523287535462509, 300.0)
    with pytest.raises(InputError, match="order-70 filter of 'spec'.*too close to fs/2"):
        design_lowpass(spec, fs=1000.0)


def test_zero_phase_filtering_removes_noise_without_delay():
    t = np.arange(0, 4, 1e-3)
    clean = np.sin(2 * np.pi * 2.0 * t)
    noisy = clean + 0.2 * RNG.standard_normal(t.size)
    out = zero_phase(noisy, "position")
    mid = slice(500, -500)
    assert np.sqrt(np.mean((out[mid] - clean[mid]) ** 2)) < 0.03
    lags = np.arange(-20, 21)
    xc = [np.dot(out[mid], np.roll(clean, k)[mid]) for k in lags]
    assert lags[int(np.argmax(xc))] == 0


def test_velocity_by_gradient_and_filter_recovers_a_slow_motion():
    t = np.arange(0, 6, 1e-3)
    x = 0.02 * np.sin(2 * np.pi * 0.5 * t)
    v_true = 0.02 * 2 * np.pi * 0.5 * np.cos(2 * np.pi * 0.5 * t)
    v = velocity_from_position(x + 2e-5 * RNG.standard_normal(t.size), 1e-3)
    mid = slice(1000, -1000)
    assert np.max(np.abs(v[mid] - v_true[mid])) < 0.05 * v_true.max()


def test_coulomb_and_viscous_coefficients_are_recovered_from_constant_velocity_segments():
    truth = Friction(model=FrictionModel.STICTION, f_s=20.0, f_c_pos=13.3, f_c_neg=13.3, c_v=25.0)
    speeds = [0.03, -0.05, 0.08, -0.12, 0.15]
    v = np.concatenate([np.concatenate([np.linspace(0, s, 50), np.full(300, s)]) for s in speeds])
    v_meas = v + 5e-4 * RNG.standard_normal(v.size)
    f = friction_force(truth, v) + 0.5 * RNG.standard_normal(v.size)
    segs = constant_velocity_segments(v_meas, tol=3e-3, min_samples=100)
    assert len(segs) == len(speeds)
    fc, cv = coulomb_viscous_fit(v_meas, f, segs)
    assert fc == pytest.approx(13.3, abs=0.3)
    assert cv == pytest.approx(25.0, abs=3.0)


def test_stribeck_tanh_parameters_are_recovered_from_noisy_friction_data():
    truth = stribeck_tanh_source()
    v = np.concatenate([np.linspace(-0.4, -0.002, 400), np.linspace(0.002, 0.4, 400)])
    f = friction_force(truth, v) + 0.3 * RNG.standard_normal(v.size)
    fit = fit_stribeck_tanh(v, f, fix={"i": 5.0})
    assert fit["f_s"] == pytest.approx(truth.f_s, rel=0.05)
    assert fit["f_c"] == pytest.approx(truth.f_c_pos, rel=0.05)
    assert fit["v_s"] == pytest.approx(truth.v_s, rel=0.08)
    assert fit["k_tanh"] == pytest.approx(truth.k_tanh, rel=0.25)
    assert fit["rms"] == pytest.approx(0.3, rel=0.15)


def test_tanh_input_pressure_cutoffs_are_recovered_from_noisy_steady_state_pressures():
    ps, pe = psi_to_pa(65.0), psi_to_pa(15.7)
    u = np.linspace(3.5, 7.0, 30)
    p = mpye5_fitted().input_pressure(u, ps, pe) + psi_to_pa(0.3) * RNG.standard_normal(u.size)
    c_hp, c_lp = fit_input_pressure(u - 5.0, p, ps, pe)
    assert c_hp == pytest.approx(1.25, abs=0.03)
    assert c_lp == pytest.approx(-0.75, abs=0.03)
    # the rod port falls with voltage: its mirrored cutoffs
    p_rod = mpye5_fitted().input_pressure(u, ps, pe, port="rod")
    c_hp_r, c_lp_r = fit_input_pressure(u - 5.0, p_rod, ps, pe, rising=False)
    assert (c_hp_r, c_lp_r) == (pytest.approx(-0.75, abs=1e-4), pytest.approx(1.25, abs=1e-4))


def test_quartic_area_fit_recovers_the_port_2_polynomials_from_noisy_areas():
    vc = np.linspace(-4.75, 4.75, 191)
    a = np.where(vc > 0, np.polyval(PORT2_POLY_POS, vc), np.polyval(PORT2_POLY_NEG, vc))
    a_meas = a + 5e-9 * RNG.standard_normal(vc.size)
    pos, neg = fit_quartic_area(vc, a_meas)
    grid = np.linspace(0, 4.75, 50)
    assert np.max(np.abs(np.polyval(pos, grid) - np.polyval(PORT2_POLY_POS, grid))) < 4e-9
    assert np.max(np.abs(np.polyval(neg, -grid) - np.polyval(PORT2_POLY_NEG, -grid))) < 4e-9
    # and the source's own cd data give the coded coefficients (A3)
    from legsim.actuators.pneumatic.valves import AEQ_VOLTAGES, CD_PORT2
    pos, neg = fit_quartic_area(AEQ_VOLTAGES, area_from_cd(AEQ_VOLTAGES, CD_PORT2))
    np.testing.assert_allclose(pos, PORT2_POLY_POS, rtol=5e-3)
    np.testing.assert_allclose(neg, PORT2_POLY_NEG, rtol=3e-3)


def test_log_with_a_missing_column_raises_an_input_error_naming_file_and_column(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("t,v\n0,0.1\n0.001,0.2\n")
    with pytest.raises(InputError, match=r"run\.csv.*'friction'"):
        read_log(path, ["t", "friction"])
    path.write_text("t,v\n0,abc\n")
    with pytest.raises(InputError, match=r"column 'v', data row 1"):
        read_log(path)


def test_a_log_named_from_the_home_directory_is_read(tmp_path, monkeypatch):
    """read_log handed its path to open() unexpanded: "~/run.csv" was "not found" although it existed, while
    every other file a user names (scenario, hardware, URDF) expands "~". It is now read from $HOME; and a
    value beyond the largest float, which float() read as inf, is refused naming the file, column and row."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "run.csv").write_text("t,v\n0,0.1\n0.001,0.2\n")
    np.testing.assert_array_equal(read_log("~/run.csv")["v"], [0.1, 0.2])
    (tmp_path / "run.csv").write_text("t,v\n0,0.1\n0.001,1e400\n")
    with pytest.raises(InputError, match=r"run\.csv', column 'v', data row 2: expected a finite number"):
        read_log("~/run.csv")


def test_fit_cli_fits_coulomb_and_viscous_friction_from_a_csv_log(tmp_path, capsys):
    truth = Friction(model=FrictionModel.STICTION, f_s=20.0, f_c_pos=10.0, f_c_neg=10.0, c_v=30.0)
    v = np.concatenate([np.full(200, s) for s in (0.05, -0.1, 0.2)])
    f = friction_force(truth, v) + 0.2 * RNG.standard_normal(v.size)
    path = tmp_path / "friction.csv"
    np.savetxt(path, np.column_stack([v, f]), delimiter=",", header="v,friction", comments="")
    assert cli_main(["fit", "coulomb-viscous", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["f_c"] == pytest.approx(10.0, abs=0.2) and out["c_v"] == pytest.approx(30.0, abs=2.0)
    assert cli_main(["fit", "coulomb-viscous", str(path), "--force", "F"]) == 2
    assert "no column 'F'" in capsys.readouterr().err


def test_the_hop_fit_stays_in_the_valve_models_range_and_names_heights_it_cannot_fit():
    """Before session 41 ``fit_hop_heights`` let its least-squares iterate leave the valve's range: a hop
    higher than the spool valve lifts the leg in 20 ms (0.2 m) drove C_f A_v to 10 m² and the hop model
    refused its own parameter in mid-fit ("params: parameter 'cfa' = 10.4891: out of range", naming none of
    the arguments); a fitted latency could grow past the valve times the same way, and a rating override of 0
    started the log-parameter fit at log(0) (a RuntimeWarning, then scipy's ValueError). The fit now keeps
    the rating within the model's range and the latency within the longest valve time, and names the heights
    it cannot fit."""
    from legsim.identify.hop import fit_hop_heights
    from legsim.robots.pneumatic_rig.hop import PARAM_RANGES

    with pytest.raises(InputError, match=r"fit_hop_heights: 'heights' = \[0.2\] m: the spool valve's model "
                                         r"cannot fit them: even its largest cfa \(0.001\) does not lift"):
        fit_hop_heights([20.0], [0.2], 0.724e6)
    with pytest.raises(InputError, match="'cfa' = 0.0: the fit starts from it, expected > 0"):
        fit_hop_heights([20.0], [0.05], 0.724e6, cfa=0.0)
    fit = fit_hop_heights([20.0, 30.0], [0.05, 0.09], 0.724e6)
    assert 0.0 < fit["cfa"] < PARAM_RANGES["cfa"].high and fit["rms"] < 0.02 and fit["n"] == 2
