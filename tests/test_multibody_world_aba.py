"""The world-coordinate articulated-body algorithm (``legsim.multibody._aba_world``) against Pinocchio,
against the body-coordinate ABA, and its pieces against their dense definitions.

Tolerance as in test_multibody_pinocchio.py: max |legsim - reference| <= 1e-9 * max |reference|.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import legsim.multibody as mb
from legsim.multibody._aba_world import forward_dynamics_world, rigid_inertia_to_world, world_kinematics
from legsim.multibody._spatial import inertia_to_parent_add, motion_to_child, rpy_to_rot, spatial_inertia
from legsim.multibody.samples import hexapod, hexapod_stance, random_state, random_tree
from test_multibody_pinocchio import CASES, assert_rel, build_pair, index_maps, to_pin


def world_ddq(model, data, q, v, tau, fext_world):
    """Forward dynamics by the world-coordinate kernels (as RobotWorld calls them)."""
    ddq = np.zeros(model.nv)
    ma = model.kernel_arrays  # the ModelArrays RobotWorld passes (one compiled variant)
    world_kinematics(ma, data, q, v)
    assert forward_dynamics_world(ma, data, q, v, tau, fext_world, ddq)
    return ddq


def world_wrench(R, p, f_body):
    """A body-axes wrench about the body origin as a world wrench about the world origin."""
    f = R @ f_body[:3]
    return np.concatenate([f, R @ f_body[3:] + np.cross(p, f)])


def test_a_rigid_inertia_in_world_coordinates_is_its_congruence_with_the_body_placement():
    rng = np.random.default_rng(1)
    for mass in (0.0, 0.7, 3.0):  # a massless body (rotational inertia only) needs no division
        R = rpy_to_rot(rng.uniform(-np.pi, np.pi, 3))
        p = rng.normal(size=3) * 2.0
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        Ib = spatial_inertia(mass, rng.normal(size=3) * 0.2, Q @ np.diag(rng.uniform(0.1, 1.0, 3)) @ Q.T)
        ref = np.zeros((6, 6))
        inertia_to_parent_add(R, p, Ib, ref)  # X^T I X, X = the world -> body motion transform
        out = np.full((6, 6), np.nan)
        rigid_inertia_to_world(R, p, Ib, out)
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13 * np.abs(ref).max())


@pytest.mark.parametrize("seed,floating,source", CASES)
def test_world_velocities_are_the_body_twists_in_world_coordinates(seed, floating, source):
    rng, model, _ = build_pair(seed, floating, source)
    q, v, _, _ = random_state(rng, model)
    body, world = model.make_data(), model.make_data()
    mb.forward_kinematics(model, body, q, v)
    world_kinematics(model.kernel_arrays, world, q, v)
    for i in range(1, model.nbody):
        R, p = body.oR[i], body.op[i]
        assert_rel(world.oR[i], R)
        assert_rel(world.op[i], p)
        # X_(O<-i) v_i: the world frame placed in body i is (R^T, -R^T p)
        ref = np.zeros(6)
        motion_to_child(R.T.copy(), -R.T @ p, body.v[i], ref)
        assert_rel(world.ov[i], ref)


@pytest.mark.parametrize("seed,floating,source", CASES)
def test_world_aba_agrees_with_pinocchio_with_external_wrenches(seed, floating, source):
    rng, model, pm = build_pair(seed, floating, source)
    pd, data = pm.createData(), model.make_data()
    pq, pv = index_maps(model, pm)
    for _ in range(2):
        q, v, _, tau = random_state(rng, model)
        Q, V, T = to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv), to_pin(tau, pv, pm.nv)
        pin.forwardKinematics(pm, pd, Q)
        fbody = rng.normal(size=(model.nbody, 6))
        fext = np.zeros((model.nbody, 6))
        pin_f = [pin.Force.Zero() for _ in range(pm.njoints)]
        for i in range(1, model.nbody):
            name = model.jnt_names[i]
            jid = pm.getJointId(name) if pm.existJointName(name) else 1
            pin_f[jid] = pin.Force(fbody[i, :3], fbody[i, 3:])  # Pinocchio: joint-local axes
            fext[i] = world_wrench(pd.oMi[jid].rotation, pd.oMi[jid].translation, fbody[i])
        assert_rel(world_ddq(model, data, q, v, tau, fext), pin.aba(pm, pd, Q, V, T, pin_f)[pv])
        assert_rel(world_ddq(model, data, q, v, tau, np.zeros_like(fext)), pin.aba(pm, pd, Q, V, T)[pv])


def test_world_aba_agrees_with_the_body_frame_aba_for_a_free_joint_below_the_root():
    """A second floating body hanging from a branch takes the general multi-DoF path (D^-1 of six
    world columns); fixed joints merged into their parents, armature and joint damping included."""
    rng = np.random.default_rng(7)
    b = random_tree(rng, 12, floating_base=True, fixed_fraction=0.15)
    b.add_body("drone", "b5", "free", mass=0.8, com=(0.02, -0.01, 0.05), inertia=(0.01, 0.02, 0.015))
    b.add_body("rotor", "drone", "revolute", xyz=(0.1, 0, 0.05), axis=(0.3, 0.2, 1.0), mass=0.1,
               inertia=(1e-3, 1e-3, 2e-3), damping=0.05, armature=0.01)
    model = b.compile()
    assert sum(1 for i in range(1, model.nbody) if model.arrays.jnt_nv[i] == 6) == 2
    body, world = model.make_data(), model.make_data()
    for _ in range(3):
        q, v, _, tau = random_state(rng, model)
        fbody = rng.normal(size=(model.nbody, 6))
        fbody[0] = 0.0
        ref = mb.forward_dynamics(model, body, q, v, tau, fbody)
        mb.forward_kinematics(model, body, q)
        fext = np.array([world_wrench(body.oR[i], body.op[i], fbody[i]) for i in range(model.nbody)])
        assert_rel(world_ddq(model, world, q, v, tau, fext), ref)


def test_world_aba_matches_the_body_frame_aba_on_the_standing_hexapod_far_from_the_origin():
    """Spatial vectors about the world origin grow with the distance from it; 100 m away the result
    still agrees to the suite's tolerance."""
    model = hexapod()
    q = hexapod_stance(model)
    q[:3] = (100.0, -60.0, 0.08)
    v = np.random.default_rng(3).normal(size=model.nv)
    tau = np.random.default_rng(4).normal(size=model.nv)
    body, world = model.make_data(), model.make_data()
    assert_rel(world_ddq(model, world, q, v, tau, np.zeros((model.nbody, 6))),
               mb.forward_dynamics(model, body, q, v, tau))


def test_world_aba_refuses_a_joint_without_inertia_about_its_axis():
    b = mb.RobotBuilder("point_mass_on_axis")
    b.add_body("base", "world", "revolute", mass=1.0, inertia=(0.1, 0.1, 0.1))
    b.add_body("leaf", "base", "revolute", axis=(0, 0, 1), mass=1.0)  # a point mass on the axis: D = 0
    model = b.compile()
    data = model.make_data()
    q = np.zeros(model.nq)
    ma = model.kernel_arrays
    world_kinematics(ma, data, q, q)
    assert not forward_dynamics_world(ma, data, q, q, q, np.zeros((model.nbody, 6)), np.zeros(2))
