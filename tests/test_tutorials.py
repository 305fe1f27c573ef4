"""The tutorials in docs/ run and show the physics they teach (issue 14 §4).

``examples/a1_trot.py`` (docs/tutorial-a1.md): the Unitree A1 of pybullet_data on 12 DC motors stands
on its four feet carrying its weight, then trots forward on alternating diagonal pairs, upright and
at its standing height. 2 s simulated (0.5 s standing, 0.5 s gait ramp, 1 s = 2 full trot cycles).

Measured on this run: roll -1.2..1.5 deg, pitch -1.1..0.6 deg, trunk height 0.294..0.311 m; the feet
carry 1.000 m g standing (each foot 0.97-1.04 of its quarter) and 1.004 m g over the last trot cycle;
every foot is in the air 41-47 % of the trot; 0.30 m/s forward once the gait is in (kinematic: 0.16).
"""

import importlib.util
from pathlib import Path

import numpy as np
import pybullet_data  # noqa: F401  (a test extra: the A1 URDF ships with pybullet)
import pytest
from scipy.spatial.transform import Rotation

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "a1_trot.py"
T_RUN = 2.0
# An open-loop trot has no balance feedback but the gyro damping: a stumble (a foot catching, a leg
# buckling) tilts the trunk past 5 deg within a step, while the gait itself stays within 1.5 deg.
TILT_DEG = 5.0
# Standing height: 0.29 m hip-to-foot-centre + 0.02 m foot radius = 0.31 m; the feet sink 3-5 mm and
# the trot bounces +-1 cm. A leg that buckles under the PD, or a trunk thrown up, leaves this band.
Z_BAND = (0.28, 0.325)


def load():
    spec = importlib.util.spec_from_file_location("legsim_tutorial_a1_trot", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def a1():
    mod = load()
    return mod, mod.main(["--t", str(T_RUN)])


def window(res, t0, t1):
    return (res.t >= t0) & (res.t < t1)


def test_the_a1_stands_on_four_feet_that_carry_its_weight(a1):
    mod, res = a1
    stand = window(res, 0.2, mod.T_STAND)  # after the 2 cm drop has settled
    assert res.output("fn_total")[stand].mean() == pytest.approx(mod.WEIGHT, rel=0.10)
    for foot in mod.FEET:  # each foot about its quarter: the robot stands square
        assert res.output(f"fn_{foot}")[stand].mean() == pytest.approx(mod.WEIGHT / 4, rel=0.15)
    # trotting, over the last full cycle: the mean ground force still balances gravity
    cycle = window(res, T_RUN - 1.0 / mod.FREQ, T_RUN)
    assert res.output("fn_total")[cycle].mean() == pytest.approx(mod.WEIGHT, rel=0.10)


def test_the_a1_stays_upright_and_at_its_standing_height(a1):
    _, res = a1
    roll, pitch, _ = np.degrees(Rotation.from_quat(res.x[:, 3:7]).as_euler("xyz")).T
    assert np.abs(roll).max() < TILT_DEG and np.abs(pitch).max() < TILT_DEG
    assert Z_BAND[0] < res.x[:, 2].min() and res.x[:, 2].max() < Z_BAND[1]
    assert res.status == "done" and res.t[-1] == pytest.approx(T_RUN)


def test_the_a1_trots_forward_on_alternating_diagonal_pairs(a1):
    mod, res = a1
    trot = res.t >= mod.T_STAND + 0.5  # the gait fully ramped in
    down = np.transpose([res.output(f"fn_{foot}") for foot in mod.FEET])[trot] > 0.0  # FR, FL, RR, RL
    air = 1.0 - down.mean(axis=0)
    assert np.all((0.3 < air) & (air < 0.7)), air  # every foot steps: about half the time in the air
    pair = np.corrcoef(down.T)
    assert pair[0, 3] > 0.5 and pair[1, 2] > 0.5  # FR with RL, FL with RR
    assert pair[0, 1] < -0.5 and pair[2, 3] < -0.5  # and the pairs alternate
    # forward at about the stride rate (the kinematic 0.16 m/s; the dynamic trot makes 0.24 m/s)
    speed = np.polyfit(res.t[trot], res.x[trot, 0], 1)[0]
    assert 0.5 * mod.STRIDE * mod.FREQ < speed < 2.5 * mod.STRIDE * mod.FREQ
    assert abs(res.x[-1, 1]) < 0.05  # and straight


def test_the_smooth_contact_path_gives_the_same_gait(a1):
    mod, res = a1
    smooth = mod.build("smooth").simulate(T_RUN, mod.controller, q0=mod.Q0)
    assert smooth.x[-1, 0] == pytest.approx(res.x[-1, 0], rel=0.05)  # measured: 1.6 % at 3 s
    assert smooth.x[:, 2].min() == pytest.approx(res.x[:, 2].min(), abs=2e-3)


def test_these_checks_catch_a_robot_whose_motors_are_off(a1):
    mod, _ = a1
    limp = mod.build().simulate(0.5, lambda t, s: np.zeros(12), q0=mod.Q0)
    assert limp.x[:, 2].min() < Z_BAND[0]  # the legs fold within half a second
