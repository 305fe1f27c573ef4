"""legsim.world without contact: its stepper against the multibody ABA, energy, errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import legsim.multibody as mb
from legsim.contact import ContactLaw, Plane, coulomb, linear_penalty
from legsim.errors import InputError
from legsim.world import RobotWorld

LAW = ContactLaw(linear_penalty(1e4), coulomb(1.0))


def double_pendulum(damping=0.0):
    """Planar double pendulum about x, hanging along -z, a sphere bob far above the (low) floor."""
    b = mb.RobotBuilder("double_pendulum")
    b.add_body("l1", "world", "revolute", axis=(1, 0, 0), mass=1.3, com=(0, 0, -0.4),
               inertia=(0.02, 0.03, 0.04), damping=damping)
    b.add_body("l2", "l1", "revolute", xyz=(0, 0, -0.9), axis=(1, 0, 0), mass=0.7, com=(0, 0, -0.35),
               inertia=(0.015, 0.01, 0.02), damping=damping)
    b.add_geometry("l2", "sphere", radius=0.05, xyz=(0, 0, -0.7), material="bob")
    return b.compile()


FAR_FLOOR = (Plane((0.0, 0.0, 1.0), -10.0),)


def test_rk4_pendulum_without_contact_follows_the_multibody_aba_solved_by_scipy():
    model = double_pendulum()
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW)
    q0, v0 = np.array([1.0, -0.5]), np.array([0.3, 0.0])
    w.reset(q0, v0)
    res = w.simulate(1.0, 1e-3, method="rk4", record_every=100)
    data = model.make_data()

    def rhs(_t, y):
        return np.concatenate([y[2:], mb.aba(model, data, y[:2], y[2:], np.zeros(2))])

    ref = solve_ivp(rhs, (0.0, 1.0), np.concatenate([q0, v0]), method="DOP853", rtol=1e-12, atol=1e-12,
                    t_eval=np.concatenate([res.t, [1.0]]))
    np.testing.assert_allclose(res.q, ref.y[:2, :-1].T, atol=1e-9)
    np.testing.assert_allclose(w.q, ref.y[:2, -1], atol=1e-9)
    np.testing.assert_allclose(w.v, ref.y[2:, -1], atol=1e-8)
    assert np.all(res.ncontact == 0) and np.all(res.contact_force == 0.0)


def test_rk4_error_falls_by_about_sixteen_when_the_step_halves():
    model = double_pendulum()
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW)
    finals = []
    for dt in (4e-3, 2e-3, 1e-3, 1.25e-4):
        w.reset([1.0, -0.5], [0.3, 0.0])
        w.simulate(0.5, dt, method="rk4", record_every=1000)
        finals.append(w.q.copy())
    e1 = np.abs(finals[0] - finals[-1]).max()
    e2 = np.abs(finals[1] - finals[-1]).max()
    e3 = np.abs(finals[2] - finals[-1]).max()
    assert 12.0 < e1 / e2 < 20.0 and 12.0 < e2 / e3 < 20.0


def test_semi_implicit_euler_keeps_the_energy_of_an_undamped_pendulum_bounded_and_damping_dissipates_it():
    model = double_pendulum()
    data = model.make_data()
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW)
    w.reset([1.0, -0.5], [0.0, 0.0])
    res = w.simulate(5.0, 1e-4, method="euler", record_every=100)
    E = np.array([sum(mb.energy(model, data, q, v)) for q, v in zip(res.q, res.v, strict=True)])
    # symplectic: the energy error oscillates with O(dt) amplitude and does not drift
    assert np.abs(E - E[0]).max() < 2e-3 * abs(E[0])
    assert abs(E[-500:].mean() - E[:500].mean()) < 5e-4 * abs(E[0])
    damped = double_pendulum(damping=0.05)
    wd = RobotWorld(damped, terrain=FAR_FLOOR, contact_law=LAW)
    wd.reset([1.0, -0.5], [0.0, 0.0])
    rd = wd.simulate(5.0, 1e-4, method="rk4", record_every=100)
    Ed = np.array([sum(mb.energy(damped, data, q, v)) for q, v in zip(rd.q, rd.v, strict=True)])
    assert np.all(np.diff(Ed) < 1e-9) and Ed[-1] < Ed[0] - 0.1


def test_pd_control_settles_a_single_pendulum_at_the_static_balance_of_gravity_and_spring():
    b = mb.RobotBuilder("pendulum")
    m, c = 2.0, 0.5
    b.add_body("link", "world", "revolute", axis=(1, 0, 0), mass=m, com=(0, 0, -c), inertia=(0.03, 0.1, 0.1))
    b.add_geometry("link", "sphere", radius=0.05, xyz=(0, 0, -c))
    model = b.compile()
    kp, kd, target = 40.0, 2.0, 0.6
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW, kp=kp, kd=kd)
    w.set_targets([target])
    w.simulate(10.0, 1e-3, method="rk4", record_every=1000)
    # kp (target - th) = m g c sin th at rest, solved by fixed-point iteration
    th = target
    for _ in range(200):
        th = target - m * 9.81 * c * np.sin(th) / kp
    assert w.q[0] == pytest.approx(th, abs=1e-6)


def test_a_target_table_is_interpolated_linearly_in_time():
    b = mb.RobotBuilder("slider")
    b.add_body("cart", "world", "prismatic", axis=(1, 0, 0), mass=1.0, inertia=(0.01, 0.01, 0.01))
    b.add_geometry("cart", "sphere", radius=0.05)
    model = b.compile().with_options(gravity=(0.0, 0.0, 0.0))
    # a very stiff, critically damped servo tracks a ramp target closely
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW, kp=1e6, kd=2e3)
    w.set_targets([[0.0], [1.0], [1.0]], dt_table=1.0)  # ramp 0 -> 1 over 1 s, then hold
    res = w.simulate(2.0, 1e-4, method="rk4", record_every=1000)
    # steady-state lag of a ramp (slope 1 m/s) through kp, kd: kd/kp * slope = 2 mm
    np.testing.assert_allclose(res.q[5:10, 0], res.t[5:10] - 2e-3, atol=1e-4)
    assert w.q[0] == pytest.approx(1.0, abs=1e-4)


def test_bad_inputs_raise_input_errors_that_name_the_value():
    model = double_pendulum()
    with pytest.raises(InputError, match="contact_law"):
        RobotWorld(model, contact_law=None)
    with pytest.raises(InputError, match="legsim.multibody.Model"):
        RobotWorld("robot.urdf", contact_law=LAW)
    with pytest.raises(InputError, match="terrain"):
        RobotWorld(model, terrain=("floor",), contact_law=LAW)
    with pytest.raises(InputError, match="kp"):
        RobotWorld(model, contact_law=LAW, kp=[1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="pair_laws"):
        RobotWorld(model, contact_law=LAW, pair_laws={("bob", "steel"): LAW})
    w = RobotWorld(model, terrain=FAR_FLOOR, contact_law=LAW)
    with pytest.raises(InputError, match="method"):
        w.simulate(0.1, 1e-3, method="rk45")
    with pytest.raises(InputError, match="dt"):
        w.simulate(0.1, -1e-3)
    with pytest.raises(InputError, match="nq=2"):
        w.reset(np.zeros(3))
    with pytest.raises(InputError, match="na=2"):
        w.set_targets(np.zeros(5))
    with pytest.raises(InputError, match="dt_table"):
        w.set_targets(np.zeros((3, 2)))
    b = mb.RobotBuilder("meshy")
    b.add_body("l", "world", "revolute", mass=1.0, inertia=(0.1, 0.1, 0.1))
    b.add_geometry("l", "mesh", filename="foot.stl")
    with pytest.raises(InputError, match="mesh"):
        RobotWorld(b.compile(), contact_law=LAW)
