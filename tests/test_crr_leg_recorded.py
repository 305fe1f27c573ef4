"""Recorded (CSV) joint trajectories as CRR leg references: pneumatic digest §7 item 11."""

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.crr_leg._joint_kernels import NTAB
from legsim.robots.crr_leg.recorded import knots_from_samples, references_from_csv

d = np.radians


def _write_log(path, t, cols, header=("t", "alpha", "beta", "gamma")):
    rows = np.column_stack([t, *cols])
    np.savetxt(path, rows, delimiter=",", header=",".join(header), comments="")
    return path


def test_knots_of_a_sampled_polyline_are_exactly_its_corners():
    corners_t = np.array([0.0, 0.3, 0.5, 1.2, 1.6, 2.0])
    corners_v = np.array([0.1, 0.9, 0.4, 0.4, -0.2, 0.3])
    t = np.linspace(0.0, 2.0, 2001)              # 1 ms samples: every corner is a sample
    v = np.interp(t, corners_t, corners_v)
    idx, err = knots_from_samples(t, v, tolerance=1e-12)
    np.testing.assert_allclose(t[idx], corners_t, atol=1e-12)
    assert err < 1e-12


def test_a_1_khz_log_becomes_64_knot_references_within_the_tolerance(tmp_path):
    t = np.arange(0.0, 4.0, 1e-3)
    alpha = 20.0 + 5.0 * np.sin(2 * np.pi * 0.5 * t)          # deg
    beta = -30.0 + 8.0 * np.sin(2 * np.pi * 0.5 * t + 1.0)
    gamma = 56.0 + 15.0 * np.clip(np.sin(2 * np.pi * 0.25 * t), -0.6, 0.6)
    path = _write_log(tmp_path / "walk.csv", t, (alpha, beta, gamma))
    tol = d(0.1)
    refs = references_from_csv(path, unit="deg", tolerance=tol)
    for ref, col in zip(refs, (alpha, beta, gamma), strict=True):
        assert 2 <= len(ref.steps) <= NTAB and ref.interpolate == "linear"
        assert np.max(np.abs(ref.values_at(t) - d(col))) <= tol + 1e-15


def test_the_leg_follows_a_recorded_gamma_ramp_from_a_toml_scenario(tmp_path):
    from legsim.hybrid import simulate
    from legsim.scenario import load_scenario

    t = np.arange(0.0, 2.0 + 5e-4, 1e-3)
    gamma = np.interp(t, [0.0, 0.2, 0.7, 2.0], [40.0, 40.0, 70.0, 70.0])
    _write_log(tmp_path / "ramp.csv", t, (np.full_like(t, 20.0), np.full_like(t, -30.0), gamma),
               header=("time", "a", "b", "g"))
    (tmp_path / "ramp.toml").write_text(
        'model = "crr_leg"\nt_final = 2.0\n'
        '[model_options]\nreference = { file = "ramp.csv", time_column = "time", '
        'columns = ["a", "b", "g"], unit = "deg" }\n'
        '[integrator]\nmethod = "dp45"\nrtol = 1e-6\natol = 1e-8\nh_max = 0.001\n'
        'sample_period = 0.001\nmax_transitions = 100000\n[outputs]\nrecord_period = 0.002\n')
    sc = load_scenario(tmp_path / "ramp.toml")
    res = simulate(sc.model, sc.t_final, x0=sc.initial, params=sc.params, options=sc.options)
    q = np.degrees(res.state("gamma"))
    assert q[0] == pytest.approx(40.0, abs=1e-9)            # starts at the log's first angle
    assert abs(q[-1] - 70.0) < 2.5                            # and ends on its last one
    ref = np.degrees(res.state("ref_gamma"))
    np.testing.assert_allclose(ref, np.interp(res.t, t, gamma), atol=0.1 + 1e-9)


def test_bad_logs_are_refused_naming_the_file_and_what_is_wrong(tmp_path):
    t = np.arange(0.0, 1.0, 1e-3)
    ok = (np.zeros_like(t), np.zeros_like(t), np.zeros_like(t))
    path = _write_log(tmp_path / "a.csv", t, ok, header=("t", "alpha", "beta", "knee"))
    with pytest.raises(InputError, match=r"a\.csv.*no column 'gamma'"):
        references_from_csv(path)
    path = _write_log(tmp_path / "b.csv", t[::-1], ok)
    with pytest.raises(InputError, match=r"b\.csv.*'t'.*increase strictly"):
        references_from_csv(path)
    path = _write_log(tmp_path / "c.csv", t, ok)
    with pytest.raises(InputError, match="unit 'degrees'"):
        references_from_csv(path, unit="degrees")
    noisy = np.random.default_rng(0).normal(0.0, 5.0, t.size)     # deg: no 64-segment fit exists
    path = _write_log(tmp_path / "d.csv", t, (noisy, noisy, noisy))
    with pytest.raises(InputError, match=r"d\.csv.*'alpha'.*64 linear segments reach"):
        references_from_csv(path, unit="deg")
    from legsim.robots.crr_leg.leg import crr_leg_model
    with pytest.raises(InputError, match="reference="):
        crr_leg_model(reference={"path": "x.csv"})
