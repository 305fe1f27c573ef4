"""Multibody models inside the hybrid engine (``legsim.multibody.hybrid_model``).

Oracles: the closed-form Lagrange equations of a planar double pendulum (links with rotational
inertia, absolute angle of link 2 = q1 + q2), the multibody package's own forward dynamics,
scipy's DOP853 on the closed form, and the conservation laws of a free rigid body.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import fsolve

from legsim.errors import InputError
from legsim.hybrid import Options, simulate
from legsim.multibody import RobotBuilder, center_of_mass, forward_dynamics
from legsim.multibody.hybrid_model import articulated_field, articulated_model, initial_state, split_state

G = 9.81
M1, C1, L1, I1 = 1.0, 0.5, 1.0, 0.02
M2, C2, I2 = 0.5, 0.4, 0.004


def double_pendulum(damping=0.0, friction=0.0):
    """Two links swinging about y; link k hangs along -z with its COM at distance c_k from its pivot."""
    b = RobotBuilder("double_pendulum")
    b.add_body("l1", "world", "revolute", axis=(0, 1, 0), mass=M1, com=(0, 0, -C1),
               inertia=np.diag([I1, I1, 1e-3]), damping=damping, friction=friction)
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(0, 0, -L1), mass=M2, com=(0, 0, -C2),
               inertia=np.diag([I2, I2, 1e-3]), damping=damping, friction=friction)
    return b.compile()


def lagrange_rhs(q, v, tau):
    """Closed form M(q) qdd + C(q, v) v + G(q) = tau of the double pendulum (angles from the downward
    vertical; potential V = -m1 g c1 cos q1 - m2 g (l1 cos q1 + c2 cos(q1 + q2)))."""
    c2, s2 = math.cos(q[1]), math.sin(q[1])
    m11 = I1 + M1 * C1**2 + I2 + M2 * (L1**2 + C2**2 + 2 * L1 * C2 * c2)
    m12 = I2 + M2 * (C2**2 + L1 * C2 * c2)
    m22 = I2 + M2 * C2**2
    h = M2 * L1 * C2 * s2
    cv = np.array([-h * (2 * v[0] * v[1] + v[1] ** 2), h * v[0] ** 2])
    s12 = math.sin(q[0] + q[1])
    g = np.array([G * (M1 * C1 + M2 * L1) * math.sin(q[0]) + M2 * G * C2 * s12, M2 * G * C2 * s12])
    return np.linalg.solve([[m11, m12], [m12, m22]], tau - cv - g)


def lagrange_energy(q, v):
    c2 = math.cos(q[1])
    m11 = I1 + M1 * C1**2 + I2 + M2 * (L1**2 + C2**2 + 2 * L1 * C2 * c2)
    m12 = I2 + M2 * (C2**2 + L1 * C2 * c2)
    m22 = I2 + M2 * C2**2
    T = 0.5 * (m11 * v[0] ** 2 + 2 * m12 * v[0] * v[1] + m22 * v[1] ** 2)
    V = -M1 * G * C1 * math.cos(q[0]) - M2 * G * (L1 * math.cos(q[0]) + C2 * math.cos(q[0] + q[1]))
    return T + V


def test_vector_field_of_a_double_pendulum_matches_the_closed_form_lagrange_equations_with_pd_torques():
    mb = double_pendulum()
    rng = np.random.default_rng(1)
    kp, kd, qr, vr, ff = (rng.uniform(0, 5, 2), rng.uniform(0, 1, 2), rng.normal(size=2),
                          rng.normal(size=2), rng.normal(size=2))
    hm = articulated_model(mb, kp=kp, kd=kd, q_ref=qr, v_ref=vr, tau_ff=ff)
    p = hm.params()
    xdot = np.empty(4)
    for _ in range(20):
        q, v = rng.uniform(-3, 3, 2), rng.normal(size=2) * 3
        articulated_field(0.0, np.r_[q, v], p, 0, xdot)
        tau = ff + kp * (qr - q) + kd * (vr - v)
        np.testing.assert_allclose(xdot[:2], v, rtol=0, atol=0)
        np.testing.assert_allclose(xdot[2:], lagrange_rhs(q, v, tau), rtol=1e-11, atol=1e-11)


def test_gains_given_by_joint_name_become_named_parameters_overridable_per_run():
    mb = double_pendulum()
    hm = articulated_model(mb, kp={"l2": 7.0})
    p = hm.params({"q_ref_l2": 0.3})
    assert p[hm.param_names.index("kp_l1")] == 0.0
    assert p[hm.param_names.index("kp_l2")] == 7.0
    xdot = np.empty(4)
    articulated_field(0.0, np.zeros(4), p, 0, xdot)
    np.testing.assert_allclose(xdot[2:], lagrange_rhs(np.zeros(2), np.zeros(2), np.array([0.0, 2.1])),
                               rtol=1e-12)


def test_vector_field_equals_multibody_forward_dynamics_with_joint_damping_and_coulomb_friction():
    mb = double_pendulum(damping=0.3, friction=0.2)
    hm = articulated_model(mb, kp=2.0, kd=0.1, q_ref=(0.5, -0.5))
    p = hm.params()
    data = mb.make_data()
    rng = np.random.default_rng(2)
    xdot = np.empty(4)
    for _ in range(10):
        q, v = rng.uniform(-3, 3, 2), rng.normal(size=2)
        articulated_field(0.0, np.r_[q, v], p, 0, xdot)
        tau = 2.0 * (np.array([0.5, -0.5]) - q) - 0.1 * v
        np.testing.assert_allclose(xdot[2:], forward_dynamics(mb, data, q, v, tau), rtol=1e-13, atol=1e-13)
        # damping and friction really act: the free (tau = 0) closed form differs by the passive torque
        assert not np.allclose(xdot[2:], lagrange_rhs(q, v, tau), rtol=1e-6)


def test_engine_trajectory_of_the_double_pendulum_matches_scipy_on_the_closed_form_and_keeps_energy():
    mb = double_pendulum()
    hm = articulated_model(mb)
    x0 = np.array([1.2, -0.4, 0.0, 2.0])
    res = simulate(hm, 2.0, x0=x0, options=Options(method="dp45", rtol=1e-11, atol=1e-12, record_period=0.05))
    ref = solve_ivp(lambda t, y: np.r_[y[2:], lagrange_rhs(y[:2], y[2:], np.zeros(2))], (0, 2.0), x0,
                    method="DOP853", rtol=1e-12, atol=1e-13, t_eval=res.t)
    np.testing.assert_allclose(res.x, ref.y.T, atol=1e-7)
    # the engine's energy output is the closed-form energy, and it is conserved
    e_closed = np.array([lagrange_energy(x[:2], x[2:]) for x in res.x])
    np.testing.assert_allclose(res.y[:, hm.output_names.index("energy")], e_closed, atol=1e-11)
    assert np.ptp(e_closed) < 1e-8 * abs(e_closed[0])


def test_fixed_step_rk4_conserves_energy_to_its_truncation_error_and_damping_dissipates_it():
    x0 = {"l1": 1.0, "l2": 0.5}
    opts = Options(method="rk4_fixed", h_max=1e-3, record_period=0.01)
    drift = []
    for h in (2e-3, 1e-3):
        free = simulate(articulated_model(double_pendulum()), 3.0, x0=x0,
                        options=Options(method="rk4_fixed", h_max=h, record_period=0.01))
        drift.append(np.ptp(free.y[:, 2]) / np.abs(free.y[:, 2]).max())
    assert drift[1] < 2e-9  # relative energy drift over 3 s at h = 1 ms
    assert 8.0 < drift[0] / drift[1] < 32.0  # fourth order: halving h divides the drift by ~16
    damped = simulate(articulated_model(double_pendulum(damping=0.05)), 3.0, x0=x0, options=opts)
    ed = damped.y[:, 2]
    assert np.all(np.diff(ed) <= 1e-12)
    assert ed[-1] < ed[0] - 0.1


def test_pd_control_settles_the_pendulum_at_the_static_equilibrium_of_the_closed_form():
    kp, kd, qr = np.array([40.0, 20.0]), np.array([4.0, 2.0]), np.array([0.8, -0.6])
    hm = articulated_model(double_pendulum(), kp=kp, kd=kd, q_ref=qr)
    res = simulate(hm, 20.0, options=Options(method="dp45", rtol=1e-10, atol=1e-12, record_period=0.5))
    q_eq = fsolve(lambda q: lagrange_rhs(q, np.zeros(2), kp * (qr - q)), qr, xtol=1e-14)
    np.testing.assert_allclose(res.x[-1, :2], q_eq, atol=1e-8)
    assert np.abs(q_eq - qr).max() > 0.05  # gravity sag: the equilibrium is not the target itself


def free_body():
    b = RobotBuilder("free_body")
    b.add_body("body", "world", "free", mass=2.0, com=(0.05, -0.02, 0.03),
               inertia=np.array([[0.02, 0.001, 0.0], [0.001, 0.025, 0.002], [0.0, 0.002, 0.03]]))
    return b.compile()


def test_the_joint_law_refuses_strings_of_digits_and_values_beyond_its_bound_naming_them():
    """Before session 40 numpy read the string "111" as the gain 111, a {joint: "1"} table entry was
    refused as "not finite", and a gain or target of 1e300 was taken: its torque overflowed to inf and the
    run stopped at once with a non-finite state. Values lie within ±MAX_JOINT_LAW (1e12), gains >= 0."""
    from legsim.multibody.hybrid_model import MAX_JOINT_LAW

    mb = double_pendulum()
    for kw, says in ((dict(kp="111"), r"'kp' = '111', expected finite numbers in \[0, 1e\+12\]"),
                     (dict(kd={"l1": "1"}), r"'kd\['l1'\]' = '1', expected a number"),
                     (dict(q_ref=1e300), r"'q_ref' = 1e\+300, expected finite numbers in \[-1e\+12, 1e"),
                     (dict(tau_ff=[1.0, 2.0, 3.0]),
                      r"'tau_ff' = \[1.0, 2.0, 3.0\], expected a number, one number per joint of .* \(2\)"),
                     (dict(v_ref={"l3": 1.0}), r"'v_ref' names unknown joint 'l3' \(did you mean 'l2'\?\)")):
        with pytest.raises(InputError, match="articulated_model: " + says):
            articulated_model(mb, **kw)
    hm = articulated_model(mb, kp={"l2": MAX_JOINT_LAW}, kd=[0.0, 2], q_ref=-MAX_JOINT_LAW)
    np.testing.assert_array_equal(hm.param_defaults[5:11], [0.0, MAX_JOINT_LAW, 0.0, 2.0, -MAX_JOINT_LAW,
                                                            -MAX_JOINT_LAW])


def test_free_body_in_the_engine_flies_a_parabola_keeps_angular_momentum_and_a_unit_quaternion():
    mb = free_body()
    hm = articulated_model(mb)
    q0 = np.r_[0.0, 0.0, 1.0, 0.1, 0.2, 0.3, 0.9]
    x0 = initial_state(mb, q0, np.r_[0.3, -0.2, 1.0, 2.0, -3.0, 5.0])
    res = simulate(hm, 1.0, x0=x0, options=Options(method="rk4_fixed", h_max=1e-3, record_period=0.1))
    q, v = split_state(mb, res.x)
    data = mb.make_data()
    com = np.array([center_of_mass(mb, data, qi) for qi in q])
    vcom0 = (com[1] - com[0]) / 0.1 + np.array([0, 0, G]) * 0.05  # exact for a parabola
    expected = com[0] + np.outer(res.t, vcom0) + 0.5 * np.outer(res.t**2, [0, 0, -G])
    np.testing.assert_allclose(com, expected, atol=1e-9)
    # angular momentum about the COM, world axes: R I_c w (body axes) is constant in free flight
    from scipy.spatial.transform import Rotation

    Ic = mb.body_inertia[1]
    L = np.array([Rotation.from_quat(qi[3:7]).as_matrix() @ Ic @ vi[3:] for qi, vi in zip(q, v, strict=True)])
    np.testing.assert_allclose(L - L[0], 0.0, atol=1e-9)
    # the integrated (un-normalised) quaternion drifts only at round-off/truncation level
    assert np.abs(np.linalg.norm(res.x[:, 3:7], axis=1) - 1.0).max() < 1e-12
    np.testing.assert_allclose(res.y[:, 3:7], q[:, 3:7], atol=1e-15)
    assert np.ptp(res.y[:, 2]) < 1e-9 * np.abs(res.y[:, 2]).max()


def test_bad_inputs_name_the_value_and_what_was_expected():
    mb = double_pendulum()
    with pytest.raises(InputError, match="expected a legsim.multibody.Model"):
        articulated_model("pendulum.urdf")
    with pytest.raises(InputError, match="unknown joint 'elbow'"):
        articulated_model(mb, kp={"elbow": 1.0})
    with pytest.raises(InputError, match=r"articulated_model: 'kd' = -1.0, expected finite numbers in \[0"):
        articulated_model(mb, kd=-1.0)
    with pytest.raises(InputError, match="expected q"):
        initial_state(mb, np.zeros(3))
    with pytest.raises(InputError, match="quaternion"):
        initial_state(free_body(), np.zeros(7))
    # a quaternion of huge or tiny components is the same rotation (its squares overflowed to a zero
    # quaternion, or vanished to NaN, before session 39); a NaN one is "not finite", not "zero"
    body = free_body()
    unit = body.normalise_quaternions(np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.6, 0.8]))
    for scale in (1e200, 1e-170):
        x = body.normalise_quaternions(np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.6 * scale, 0.8 * scale]))
        np.testing.assert_allclose(x, unit, rtol=1e-15, atol=0)
    with pytest.raises(InputError, match="not finite"):
        body.normalise_quaternions(np.array([0.0, 0.0, 0.0, 0.0, 0.0, np.nan, 0.8]))


def test_a_non_unit_initial_quaternion_is_normalised_before_the_run():
    mb = free_body()
    hm = articulated_model(mb)
    v0 = np.r_[0.0, 0.0, 0.0, 1.0, -2.0, 0.5]
    unit = initial_state(mb, np.r_[0.0, 0.0, 1.0, 0.0, 0.0, 0.6, 0.8], v0)
    scaled = unit.copy()
    scaled[3:7] *= 3.0
    opts = Options(method="rk4_fixed", h_max=1e-3, record_period=0.1)
    a = simulate(hm, 0.5, x0=unit, options=opts)
    b = simulate(hm, 0.5, x0=scaled, options=opts)
    np.testing.assert_allclose(b.x, a.x, rtol=0, atol=1e-13)
