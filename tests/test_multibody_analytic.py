"""legsim.multibody against closed-form mechanics and algorithm identities (no peer library)."""

from __future__ import annotations

import numpy as np
import pytest

import legsim.multibody as mb
from legsim.multibody import RobotBuilder
from legsim.multibody.samples import random_state, random_tree

G = 9.81


def pendulum_pair(m1=1.3, m2=0.7, l1=0.9, c1=0.4, c2=0.35, I1=0.02, I2=0.015):
    """Planar double pendulum about the world x axis, hanging along -z (angles from the downward
    vertical)."""
    b = RobotBuilder("double_pendulum")
    b.add_body("l1", "world", "revolute", axis=(1, 0, 0), mass=m1, com=(0, 0, -c1), inertia=(I1, 0.03, 0.04))
    b.add_body("l2", "l1", "revolute", xyz=(0, 0, -l1), axis=(1, 0, 0), mass=m2, com=(0, 0, -c2),
               inertia=(I2, 0.01, 0.02))
    return b.compile()


def test_single_pendulum_acceleration_matches_the_closed_form():
    m, c, I = 2.0, 0.5, 0.03
    b = RobotBuilder("pendulum")
    b.add_body("link", "world", "revolute", axis=(1, 0, 0), mass=m, com=(0, 0, -c), inertia=(I, 0.1, 0.1))
    model = b.compile()
    data = model.make_data()
    for th, thd, tau in [(0.3, 0.0, 0.0), (-1.2, 2.0, 0.5), (2.5, -3.0, -1.0)]:
        ddq = mb.aba(model, data, [th], [thd], [tau])[0]
        # (I + m c^2) th'' = tau - m g c sin th
        expected = (tau - m * G * c * np.sin(th)) / (I + m * c * c)
        assert ddq == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_double_pendulum_acceleration_matches_the_lagrange_equations():
    m1, m2, l1, c1, c2, I1, I2 = 1.3, 0.7, 0.9, 0.4, 0.35, 0.02, 0.015
    model = pendulum_pair(m1, m2, l1, c1, c2, I1, I2)
    data = model.make_data()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, 2)
        v = rng.normal(size=2) * 2
        tau = rng.normal(size=2)
        cs, h = np.cos(q[1]), m2 * l1 * c2 * np.sin(q[1])
        m11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * cs)
        m12 = I2 + m2 * (c2**2 + l1 * c2 * cs)
        M = np.array([[m11, m12], [m12, I2 + m2 * c2**2]])
        C = np.array([-h * (2 * v[0] * v[1] + v[1] ** 2), h * v[0] ** 2])
        s12 = np.sin(q[0] + q[1])
        Gq = np.array([(m1 * c1 + m2 * l1) * G * np.sin(q[0]) + m2 * G * c2 * s12, m2 * G * c2 * s12])
        expected = np.linalg.solve(M, tau - C - Gq)
        np.testing.assert_allclose(mb.aba(model, data, q, v, tau), expected, rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(mb.crba(model, data, q), M, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(mb.rnea(model, data, q, v, np.zeros(2)), C + Gq, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("floating", [False, True])
def test_aba_equals_the_solution_of_crba_against_tau_minus_rnea(floating):
    rng = np.random.default_rng(11)
    model = random_tree(rng, 32, floating_base=floating, fixed_fraction=0.1).compile()
    data = model.make_data()
    for _ in range(3):
        q, v, _, tau = random_state(rng, model)
        bias = mb.rnea(model, data, q, v, np.zeros(model.nv)).copy()
        M = mb.crba(model, data, q).copy()
        expected = np.linalg.solve(M, tau - bias)
        got = mb.aba(model, data, q, v, tau)
        assert np.abs(got - expected).max() <= 1e-9 * np.abs(expected).max()


def test_external_wrench_on_a_free_body_gives_newton_euler_acceleration():
    m, Ic = 2.5, np.diag([0.1, 0.2, 0.3])
    b = RobotBuilder("free_body", gravity=(0, 0, 0))
    b.add_body("body", "world", "free", mass=m, inertia=Ic)
    model = b.compile()
    data = model.make_data()
    q = model.neutral()
    fext = np.zeros((2, 6))
    fext[1] = [1.0, -2.0, 3.0, 0.4, 0.5, -0.6]
    ddq = mb.aba(model, data, q, np.zeros(6), np.zeros(6), fext)
    np.testing.assert_allclose(ddq[:3], fext[1, :3] / m, rtol=1e-14)
    np.testing.assert_allclose(ddq[3:], np.linalg.solve(Ic, fext[1, 3:]), rtol=1e-14)


def _rk4_energy_drift(model, q, v, dt, steps):
    data = model.make_data()
    zero = np.zeros(model.nv)

    def f(q, v):
        return mb.qdot(model, q, v), mb.aba(model, data, q, v, zero).copy()

    def normalize(q):
        a = model.arrays
        for i in range(1, model.nbody):
            if a.jnt_type[i] == 1:
                k = a.jnt_qposadr[i] + 3
                q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
        return q

    E0 = sum(mb.energy(model, data, q, v))
    T0 = mb.energy(model, data, q, v)[0]
    for _ in range(steps):
        k1q, k1v = f(q, v)
        k2q, k2v = f(q + 0.5 * dt * k1q, v + 0.5 * dt * k1v)
        k3q, k3v = f(q + 0.5 * dt * k2q, v + 0.5 * dt * k2v)
        k4q, k4v = f(q + dt * k3q, v + dt * k3v)
        q = normalize(q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q))
        v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    E1 = sum(mb.energy(model, data, q, v))
    return abs(E1 - E0) / T0, q, v


def test_a_free_floating_chain_without_damping_conserves_energy_under_fine_rk4():
    rng = np.random.default_rng(5)
    b = RobotBuilder("free_chain")
    parent = "world"
    for i in range(5):
        b.add_body(f"c{i}", parent, "free" if i == 0 else "revolute",
                   xyz=(0, 0, 0) if i == 0 else (0.3, 0, 0),
                   axis=rng.normal(size=3), mass=0.5 + i * 0.1, com=(0.15, 0.01 * i, 0),
                   inertia=(0.01, 0.02, 0.02))
        parent = f"c{i}"
    model = b.compile()
    q = model.neutral()
    q[3:7] = [0.1, 0.2, 0.3, 0.9]
    q[3:7] /= np.linalg.norm(q[3:7])
    q[7:] = rng.uniform(-1, 1, 4)
    v = rng.normal(size=model.nv) * 2.0
    drift, q1, _ = _rk4_energy_drift(model, q, v, 1e-3, 500)
    print(f"free chain RK4 dt=1e-3, 0.5 s: relative energy drift {drift:.2e}")
    assert drift < 1e-8, f"relative energy drift {drift:.2e}"
    assert np.abs(q1[7:] - q[7:]).max() > 0.1  # the chain really moved


def test_passive_joint_forces_follow_the_documented_laws():
    b = RobotBuilder("passive", friction_velocity=0.01, limit_stiffness=100.0, limit_damping=2.0)
    b.add_body("a", "world", "revolute", mass=1.0, inertia=(1, 1, 1), damping=0.5, friction=0.3,
               limits=(-1.0, 1.0))
    b.add_body("s", "a", "prismatic", mass=1.0, inertia=(1, 1, 1), limits=(0.0, 0.2))
    model = b.compile()
    data = model.make_data()
    # inside the limits: damping and tanh-regularised Coulomb friction
    tau = mb.passive_forces(model, data, [0.2, 0.1], [0.5, 0.0])
    assert tau[0] == pytest.approx(-0.5 * 0.5 - 0.3 * np.tanh(50.0), rel=1e-14)
    assert tau[1] == 0.0
    # below the lower limit, approaching: spring pushes up, damper adds
    tau = mb.passive_forces(model, data, [-1.1, -0.05], [0.0, -0.4])
    assert tau[0] == pytest.approx(100.0 * 0.1, rel=1e-12)
    assert tau[1] == pytest.approx(100.0 * 0.05 + 2.0 * 0.4, rel=1e-12)
    # beyond the upper limit but separating fast: the unilateral clamp gives no pull
    tau = mb.passive_forces(model, data, [0.0, 0.21], [0.0, -10.0])
    assert tau[1] == 0.0
    # forward_dynamics adds the passive forces before ABA
    q, v = np.array([0.2, 0.1]), np.array([0.5, 0.0])
    expected = mb.aba(model, data, q, v, mb.passive_forces(model, data, q, v).copy()).copy()
    np.testing.assert_allclose(mb.forward_dynamics(model, data, q, v, np.zeros(2)), expected, rtol=1e-15)


def test_joint_damping_dissipates_energy_at_the_rate_v_damping_v():
    b = RobotBuilder("damped")
    b.add_body("l1", "world", "revolute", axis=(1, 0, 0), mass=1.0, com=(0, 0, -0.3), inertia=(0.01,) * 3,
               damping=0.2)
    b.add_body("l2", "l1", "revolute", axis=(1, 0, 0), xyz=(0, 0, -0.6), mass=0.5, com=(0, 0, -0.2),
               inertia=(0.01,) * 3, damping=0.1)
    model = b.compile()
    data = model.make_data()
    q, v = np.array([0.4, -0.3]), np.array([1.5, -2.0])
    ddq = mb.forward_dynamics(model, data, q, v, np.zeros(2)).copy()
    # dE/dt = v^T M ddq + v^T (C v + g) = v^T tau_passive  (power balance)
    M = mb.crba(model, data, q).copy()
    bias = mb.rnea(model, data, q, v, np.zeros(2)).copy()
    power = v @ (M @ ddq + bias)
    assert power == pytest.approx(-(0.2 * 1.5**2 + 0.1 * 2.0**2), rel=1e-12)


def test_qdot_is_the_derivative_of_integrate():
    rng = np.random.default_rng(2)
    model = random_tree(rng, 8, floating_base=True).compile()
    q, v, _, _ = random_state(rng, model)
    h = 1e-6
    fd = (mb.integrate(model, q, v, h) - mb.integrate(model, q, v, -h)) / (2 * h)
    np.testing.assert_allclose(mb.qdot(model, q, v), fd, rtol=1e-7, atol=1e-8)


def test_merging_a_fixed_child_preserves_total_mass_and_dynamics():
    rng = np.random.default_rng(9)
    b = RobotBuilder("merge")
    b.add_body("a", "world", "revolute", axis=(0, 1, 0), mass=1.0, com=(0.1, 0, 0),
               inertia=(0.01, 0.02, 0.03))
    b.add_body("tip", "a", "fixed", xyz=(0.5, 0, 0), rpy=(0.3, 0.2, 0.1), mass=0.4, com=(0.05, 0, 0),
               inertia=(0.001, 0.002, 0.003))
    merged = b.compile()
    # the merged inertia about the joint axis (y) is the sum of the two parallel-axis inertias
    assert merged.nbody == 2 and merged.total_mass() == pytest.approx(1.4)
    assert "tip" in merged.frame_names
    data = merged.make_data()
    Iyy_tip = (np.array(b.bodies[1].R) @ np.diag([0.001, 0.002, 0.003]) @ np.array(b.bodies[1].R).T)[1, 1]
    c_tip = np.array([0.5, 0, 0]) + b.bodies[1].R @ np.array([0.05, 0, 0])
    expected = 0.02 + 1.0 * 0.1**2 + Iyy_tip + 0.4 * (c_tip[0] ** 2 + c_tip[2] ** 2)
    assert mb.crba(merged, data, [rng.uniform()])[0, 0] == pytest.approx(expected, rel=1e-12)


def test_a_world_force_at_a_point_acts_like_the_transposed_point_jacobian():
    rng = np.random.default_rng(21)
    b = random_tree(rng, 10, floating_base=True)
    point_local = np.array([0.1, -0.2, 0.3])
    b.add_frame("tool", "b7", xyz=point_local, rpy=(0.3, -0.2, 0.5))
    model = b.compile()
    data = model.make_data()
    q, v, _, tau = random_state(rng, model)
    force = np.array([3.0, -1.0, 2.0])
    mb.forward_kinematics(model, data, q)
    point = mb.frame_placement(model, data, "tool")[:3, 3]
    fext = mb.add_world_force(model, data, np.zeros((model.nbody, 6)), "b7", point, force)
    J = mb.frame_jacobian(model, data, q, "tool", "local_world_aligned").copy()
    expected = mb.aba(model, data, q, v, tau + J[:3].T @ force).copy()
    np.testing.assert_allclose(mb.aba(model, data, q, v, tau, fext), expected, rtol=1e-10, atol=1e-10)
    # and the frame velocity is J v in every reference frame
    mb.forward_kinematics(model, data, q, v)
    for ref in ("world", "local_world_aligned", "local"):
        J = mb.frame_jacobian(model, data, q, "tool", ref)
        np.testing.assert_allclose(mb.frame_velocity(model, data, "tool", ref), J @ v, rtol=1e-12, atol=1e-12)


def test_with_options_changes_gravity_and_limit_gains_without_touching_the_original():
    b = RobotBuilder("p")
    b.add_body("l", "world", "revolute", axis=(1, 0, 0), mass=1.0, com=(0, 0, -0.5), inertia=(0.01,) * 3,
               limits=(-0.5, 0.5))
    model = b.compile()
    data = model.make_data()
    q, v = np.array([0.7]), np.array([0.0])
    assert mb.aba(model, data, q, v, [0.0])[0] < 0.0  # gravity swings it back
    weightless = model.with_options(gravity=(0, 0, 0), limit_stiffness=50.0)
    assert mb.aba(weightless, weightless.make_data(), q, v, [0.0])[0] == 0.0
    assert mb.forward_dynamics(weightless, weightless.make_data(), q, v, [0.0])[0] == pytest.approx(
        -50.0 * 0.2 / (0.01 + 0.25), rel=1e-12)
    assert model.gravity[2] == -9.81 and model.dof_limit_stiffness[0] == 0.0
