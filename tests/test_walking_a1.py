"""The walking layer is robot-independent (issue 16): the Unitree A1 of ``pybullet_data`` (a robot
nobody here wrote, assembled as in ``examples/a1_trot.py``) trots under legsim.walking's gait
generator and step cycles, four legs instead of ANTON's six, with the tutorial's leg IK and PD."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pybullet_data  # noqa: F401  (a test extra: the A1 URDF ships with pybullet)
import pytest
from scipy.spatial.transform import Rotation

from legsim.walking import GaitGenerator, LegCycle, StepCycle, wave_gait

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "a1_trot.py"
A1_OF = [1, 3, 0, 2]
"""The walking layer's legs (left front, left rear, right front, right rear: legs numbered per side
from the front) -> the A1's (FR, FL, RR, RL)."""


def _tutorial():
    spec = importlib.util.spec_from_file_location("legsim_tutorial_a1_walk", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _walker(mod, cycle: StepCycle, dt: float = 1e-3):
    """The tutorial's controller with its feet from the walking layer: the 4-leg "tripod" (a trot:
    diagonal pairs alternate) from the gait generator, each foot's point from its LegCycle (s along x
    from under the hip, h up), the tutorial's sagittal IK, PD, gyro damping and weight feed-forward."""
    gen = GaitGenerator(wave_gait("tripod", n_legs=4), cycle.period)
    legs = [LegCycle(cycle) for _ in range(4)]
    x, z, stance = np.zeros(4), np.full(4, -mod.HEIGHT), np.ones(4, dtype=bool)
    pairs: list[tuple[float, tuple[bool, ...]]] = []

    def controller(t, s):
        if t >= mod.T_STAND:
            support = gen.step(dt)
            phase = gen.phase.tolist()
            for k, leg in enumerate(legs):
                leg.update(phase[k], 0.0, not support[k], dt)
                a = A1_OF[k]
                x[a], z[a], stance[a] = leg.s, -mod.HEIGHT + leg.h, support[k]
            pairs.append((t, tuple(support.tolist())))
        zc = z - mod.DAMP * (mod.HIP_X * s.gyro[1] - mod.HIP_Y * s.gyro[0])
        q_ref = np.column_stack([np.zeros(4), *mod.leg_ik(x, zc)])
        fz = mod.WEIGHT / max(int(stance.sum()), 1) * stance
        tau_ff = np.column_stack([np.zeros(4), x * fz, -0.2 * np.sin(q_ref[:, 1] + q_ref[:, 2]) * fz])
        return mod.KP * (q_ref.ravel() - s.enc) - mod.KD * s.rate + tau_ff.ravel()

    controller.gen, controller.pairs = gen, pairs  # type: ignore[attr-defined]
    return controller


@pytest.fixture(scope="module")
def trot():
    mod = _tutorial()
    # 8 cm steps at 2 Hz, 5 cm lift (2 H_ad): T_tr = L/V_tr = 0.25 s, V_st = L/T_st = 0.32 m/s
    cycle = StepCycle(0.08, 0.025, 0.32, 0.5)
    ctrl = _walker(mod, cycle)
    return mod, cycle, ctrl, mod.build("event").simulate(3.0, ctrl, q0=mod.Q0, progress=False)


def test_the_walking_layer_trots_the_a1(trot):
    """Measured over the last 2 s: 0.293 m/s for the cycle's 0.32 m/s stance speed (the feet slip a
    little), roll -0.6..3.1 deg, pitch -2.0..0.9 deg, the trunk 0.300-0.308 m up, no rule
    violation."""
    mod, cycle, ctrl, res = trot
    assert res.status == "done" and ctrl.gen.violations == 0
    assert cycle.period == pytest.approx(0.5)
    t0 = mod.T_STAND + 0.5
    walk = res.t > t0
    speed = (res.x[-1, 0] - np.interp(t0, res.t, res.x[:, 0])) / (res.t[-1] - t0)
    assert 0.8 * 0.32 < speed < 1.05 * 0.32
    roll, pitch, _ = np.degrees(Rotation.from_quat(res.x[walk, 3:7]).as_euler("xyz")).T
    assert np.abs(roll).max() < 5.0 and np.abs(pitch).max() < 5.0
    assert 0.28 < res.x[walk, 2].min() and res.x[walk, 2].max() < 0.325


def test_the_four_leg_tripod_is_a_trot_on_the_diagonals(trot):
    """The gait table for four legs alternates the diagonal pairs (left front with right rear), with
    two legs in support at every instant of the walk."""
    _, _, ctrl, _ = trot
    sup = np.array([p for _, p in ctrl.pairs])
    steady = sup[1000:]
    assert np.all(steady.sum(axis=1) >= 2)
    np.testing.assert_array_equal(steady[:, 0], steady[:, 3])  # LF with RR
    np.testing.assert_array_equal(steady[:, 1], steady[:, 2])  # LR with RF
    assert np.any(steady[:, 0] != steady[:, 1])
