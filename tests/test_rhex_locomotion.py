"""Qualitative hexapod locomotion, Buehler clock (SimSect digest §6.3 item 12; sign and trend only)."""

import numpy as np
import pytest

from legsim.hybrid import simulate
from legsim.robots.rhex import build_model, default_options
from legsim.robots.rhex.model import DEFAULT_GAIT
from legsim.robots.rhex.postprocess import motor_battery


def _run(t_final=6.0, **params):
    model = build_model(**params)
    return simulate(model, t_final, options=default_options(record_period=0.01), progress=False)


def _col(res, name):
    return res.y[:, res.output_names.index(name)]


@pytest.fixture(scope="module")
def walk():
    return _run()


def test_forward_gait_walks_along_plus_y_at_a_plausible_speed_with_the_body_up(walk):
    t, y = _col(walk, "time"), _col(walk, "y")
    late = t >= 2.0
    speed = (y[-1] - y[late][0]) / (t[-1] - t[late][0])
    assert 0.1 < speed < 0.6                                  # RHex: up to ~0.55 m/s
    assert np.min(_col(walk, "z")) > 0.12
    assert np.max(np.abs(_col(walk, "roll"))) < 0.3 and np.max(np.abs(_col(walk, "pitch"))) < 0.3
    assert abs(_col(walk, "x")[-1]) < 0.1 * y[-1]               # fairly straight


def test_tripods_alternate_their_stance_phases(walk):
    ev = walk.events
    tc = DEFAULT_GAIT["t_c"]
    phases = {}
    for leg in range(6):
        before = (ev["mode_before"] >> leg) & 1
        after = (ev["mode_after"] >> leg) & 1
        lo = ev["t"][(before == 1) & (after == 0)]       # by its own guard or at a clock event
        td = ev["t"][(before == 0) & (after == 1)]
        assert lo.size >= 5 and td.size >= 5, f"leg {leg} does not step"
        phases[leg] = np.angle(np.mean(np.exp(2j * np.pi * lo[lo > 1.0] / tc)))
    a = np.angle(np.exp(1j * (phases[0] - phases[1])))
    assert abs(abs(a) - np.pi) < 0.6                          # tripods half a period apart
    for leg in (2, 4):
        assert abs(np.angle(np.exp(1j * (phases[leg] - phases[0])))) < 0.6
    for leg in (3, 5):
        assert abs(np.angle(np.exp(1j * (phases[leg] - phases[1])))) < 0.6


def test_negated_profiles_walk_backward():
    res = _run(4.0, direction=-1)
    assert _col(res, "y")[-1] < -0.3


def test_turning_in_place_yaws_clockwise_with_little_translation():
    res = _run(4.0, turn_in_place=1, t_c=1.5, t_s=0.9)
    yaw = np.unwrap(_col(res, "yaw"))
    assert yaw[-1] < -0.8                                     # positive gain turns right
    disp = np.hypot(_col(res, "x")[-1], _col(res, "y")[-1])
    assert disp < 0.1 * abs(yaw[-1]) * 0.3 + 0.05             # << arc of a 0.3 m radius
    res_left = _run(4.0, turn_in_place=-1, t_c=1.5, t_s=0.9)
    assert np.unwrap(_col(res_left, "yaw"))[-1] > 0.8


def test_differential_turning_gives_a_curved_path_to_the_right():
    res = _run(6.0, delta_t=0.05, delta_phi=0.1)
    yaw = np.unwrap(_col(res, "yaw"))
    x, y = _col(res, "x"), _col(res, "y")
    assert yaw[-1] < -0.3 and y[-1] > 0.8
    assert x[-1] > 0.1                                        # drifted to the right (+x)
    # the heading keeps turning: the path is curved, not a straight line at an angle
    assert yaw[-1] < 1.5 * yaw[len(yaw) // 2] < 0
    straight = _run(6.0)
    assert abs(np.unwrap(_col(straight, "yaw"))[-1]) < 0.5 * abs(yaw[-1])


def test_motor_and_battery_postprocessor_reports_currents_voltages_and_a_finite_lifetime(walk):
    rep = motor_battery(walk, walk.params)
    kt = 1 / 61.261056
    tau0 = _col(walk, "tau0")
    np.testing.assert_allclose(rep.i_a[:, 0], tau0 / (kt * 33.0))
    np.testing.assert_allclose(rep.current, np.abs(rep.i_a).sum(axis=1))
    assert rep.charge[0] == 1.0 and np.all(np.diff(rep.charge) <= 1e-15)
    assert rep.extrapolated and 60.0 < rep.lifetime < 1e6
    assert np.all(np.isfinite(rep.v_a))
