"""CJTC (digest §2, §3.5; acceptance 5, 6, 10 and the controller's own identities) on legsim's
multibody models: control variables and their gradients, the constraint elimination (T-matrix), the
JTC special case on an assembled 2-link arm, bumpless control-vector switching, and the compliant-
environment equilibrium."""

import math

import numpy as np
import pytest

from legsim.assembly import Contacts, Obstacle, Robot
from legsim.contact import ContactLaw, Plane, coulomb, kelvin_voigt
from legsim.control import (
    CJTC,
    CentreOfMass,
    ConstrainedChain,
    JointAngle,
    Kinematics,
    Orientation,
    PointCoordinate,
    PotentialEnergy,
    StabilityMargin,
    compliant_equilibrium,
    environment_is_rigid,
    force_offset,
)
from legsim.errors import InputError
from legsim.examples import two_link_arm as two_link_arm_model
from legsim.hybrid import Options
from legsim.multibody import RobotBuilder
from legsim.validation import cjtc as case  # measurements shared with `legsim report`

L1, L2 = two_link_arm_model.L1, two_link_arm_model.L2


def two_link_arm():
    return two_link_arm_model.build()


def fd_gradient(var, q, eps=1e-6):
    g = np.zeros(q.size)
    for i in range(q.size):
        d = np.zeros(q.size)
        d[i] = eps
        g[i] = (var.value(q + d) - var.value(q - d)) / (2 * eps)
    return g


def test_every_builtin_control_variable_has_the_gradient_of_its_value():
    mb = two_link_arm()
    kin = Kinematics(mb)
    q = np.array([0.7, -1.1])
    vs = [PointCoordinate(kin, "tip", "x"), PointCoordinate(kin, "tip", "y"), Orientation(kin, "l2"),
          JointAngle(kin, "l2"), CentreOfMass(kin, "x"), CentreOfMass(kin, "y"), PotentialEnergy(kin),
          StabilityMargin(kin, ["l2", "tip"], "x")]
    for v in vs:
        np.testing.assert_allclose(v.gradient(q), fd_gradient(v, q), atol=1e-8, err_msg=v.name)
    # values: tip position, orientation of link 2 = q1 + q2, energy = m g y_com summed
    x = L1 * math.cos(0.7) + L2 * math.cos(-0.4)
    assert vs[0].value(q) == pytest.approx(x, abs=1e-12)
    assert vs[2].value(q) == pytest.approx(-0.4, abs=1e-12)
    yc = (1.0 * L1 / 2 * math.sin(0.7) + 0.5 * (L1 * math.sin(0.7) + L2 / 2 * math.sin(-0.4))) / 1.5
    assert vs[5].value(q) == pytest.approx(yc, abs=1e-12)
    assert vs[6].value(q) == pytest.approx(1.5 * 9.81 * yc, abs=1e-10)


def test_the_t_matrix_of_a_closed_chain_keeps_its_constraints_and_matches_finite_differences():
    # the arm's tip pinned in y (a wall): l1 active, l2 passive, eliminated through y_tip = const
    mb = two_link_arm()
    kin = Kinematics(mb)
    y_tip = PointCoordinate(kin, "tip", "y")
    chain = ConstrainedChain(kin, ["l1"], [y_tip], [0.2])
    q = chain.solve([0.8], np.array([0.8, -1.0]))
    assert y_tip.value(q) == pytest.approx(0.2, abs=1e-12)
    T = chain.t_matrix(q)
    d = 1e-6
    qp, qm = chain.solve([0.8 + d], q), chain.solve([0.8 - d], q)
    np.testing.assert_allclose(T[:, 0], (qp - qm) / (2 * d), atol=1e-7)
    with pytest.raises(InputError, match="cannot be met"):  # 5 m is out of the arm's reach
        ConstrainedChain(kin, ["l1"], [y_tip], [5.0]).solve([0.8], q)


def test_cjtc_with_the_tip_as_control_vector_is_classical_jtc():
    mb = two_link_arm()
    kin = Kinematics(mb)
    u = [PointCoordinate(kin, "tip", "x"), PointCoordinate(kin, "tip", "y")]
    kp, kd = np.array([300.0, 200.0]), np.array([20.0, 15.0])
    c = CJTC(u, kp, kd, active=["l1", "l2"], gravity="full")
    q, qd = np.array([0.5, 0.9]), np.array([0.3, -0.2])
    u_cmd = np.array([0.35, 0.5])
    out = c.step(q, qd, u_cmd)
    J = np.array([v.gradient(q) for v in u])  # eq. 4
    x = np.array([v.value(q) for v in u])
    tau_jtc = J.T @ (kp * (u_cmd - x) + kd * (0.0 - J @ qd))  # eq. 8 without G
    np.testing.assert_allclose(out.tau - kin.at(q).gravity_torques(), tau_jtc, atol=1e-12)
    # G(q) = the torques that hold the arm still: the tip's and the links' weights through J^T
    m1, m2 = 1.0, 0.5
    g1 = 9.81 * (m1 * L1 / 2 + m2 * L1) * math.cos(0.5) + 9.81 * m2 * L2 / 2 * math.cos(1.4)
    assert kin.at(q).gravity_torques()[0] == pytest.approx(g1, rel=1e-12)


def test_a_control_vector_switch_is_bumpless():
    mb = two_link_arm()
    kin = Kinematics(mb)
    c1 = CJTC([PointCoordinate(kin, "tip", "x"), PointCoordinate(kin, "tip", "y")], [500, 500], [30, 30],
              active=["l1", "l2"])
    c2 = CJTC([Orientation(kin, "l2"), CentreOfMass(kin, "y")], [20, 800], [2, 40], active=["l1", "l2"])
    q, qd = np.array([0.4, 1.2]), np.array([0.5, -0.3])
    tau = c1.step(q, qd, [0.3, 0.5]).tau
    u_cmd = c2.bumpless_command(q, qd, tau)
    np.testing.assert_allclose(c2.step(q, qd, u_cmd, np.zeros(2)).tau, tau, atol=1e-10)


def test_saturation_clips_each_effort_and_keeps_the_raw_law():
    mb = two_link_arm()
    kin = Kinematics(mb)
    c = CJTC([PointCoordinate(kin, "tip", "x"), PointCoordinate(kin, "tip", "y")], [1e4, 1e4], [0, 0],
             active=["l1", "l2"], tau_max=[2.0, 1.0])
    out = c.step(np.array([0.3, 0.3]), np.zeros(2), [0.0, 0.6])
    assert np.all(np.abs(out.tau) <= [2.0, 1.0]) and np.any(np.abs(out.tau_raw) > [2.0, 1.0])


def test_compliant_equilibrium_gives_the_digests_9_83_newton_and_1_68_mm():
    # acceptance 5: K_p = 100 N/m, K_e = 5837 N/m, x_cmd 0.1 m inside the undeformed wall
    x, F = case.compliant_wall()  # compliant_equilibrium(100.0, 5837.0, 0.1, 0.0)
    assert F == pytest.approx(9.83, abs=0.005)
    assert x * 1e3 == pytest.approx(1.68, abs=0.005)
    # a rigid wall (K_e -> inf) gives the full K_p x offset = 10 N
    assert compliant_equilibrium(100.0, 1e12, 0.1, 0.0)[1] == pytest.approx(10.0, rel=1e-8)
    assert force_offset(0.45, 10.0, 100.0) == pytest.approx(0.55)
    # the same through (15): F = K_e (x - x_e) is the wall's push
    assert F == pytest.approx(5837.0 * x, rel=1e-12)
    # matrices: two decoupled directions at once
    xs, Fs = compliant_equilibrium([100.0, 1000.0], [5837.0, 5837.0], [0.1, 0.01], [0.0, 0.0])
    assert Fs[0] == pytest.approx(F) and Fs[1] == pytest.approx(1000 * 5837 / 6837 * 0.01)


def test_the_ten_percent_rule_separates_rigid_from_spring_environments():
    assert environment_is_rigid(0.0017, 0.7)       # LIBRA's wall: 1.7 mm against a 0.7 m span
    assert not environment_is_rigid(0.08, 0.7)     # 8 cm of give: a spring
    with pytest.raises(InputError, match="span"):
        environment_is_rigid(0.01, 0.0)


def test_the_encoder_gives_1_584_000_counts_per_output_revolution():
    assert case.encoder_counts() == 1_584_000  # acceptance 10


def test_bad_cjtc_input_is_refused_naming_what():
    kin = Kinematics(two_link_arm())
    u = [PointCoordinate(kin, "tip", "x")]
    with pytest.raises(InputError, match="kp has shape"):
        CJTC(u, [1.0, 2.0], [1.0], active=["l1", "l2"])
    with pytest.raises(InputError, match="active joint 'knee'"):
        CJTC(u, [1.0], [1.0], active=["knee"])
    with pytest.raises(InputError, match="axis"):
        PointCoordinate(kin, "tip", "w")
    with pytest.raises(InputError, match="3 control variables for 2 active"):
        CJTC(u * 3, [1, 1, 1], [1, 1, 1], active=["l1", "l2"])
    with pytest.raises(InputError, match=r"variables holds 'tip_x', expected control variables"):
        CJTC(["tip_x"], [1.0], [1.0], active=["l1", "l2"])  # was an AttributeError


def test_a_ball_rests_on_a_box_obstacle_and_is_pushed_out_of_a_tilted_wall():
    # the assembly's static box obstacles (used by LIBRA's ladder steps): a 1 kg ball on a step sinks
    # m g / k; dropped against a 30-degree tilted block it leaves along that block's face normal
    b = RobotBuilder("ball")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-4)
    b.add_geometry("ball", "sphere", radius=0.04)
    mb = b.compile()
    k = 5837.0
    law = ContactLaw(kelvin_voigt(k, 2 * 0.7 * math.sqrt(k)), coulomb(0.0, 1e-3))
    step = Obstacle((0.05, 0.2, 0.01), centre=(0.0, 0.0, 0.5), name="step")
    robot = Robot(mb, contacts=Contacts(law, ground=Plane((0, 0, 1), -10.0), path="smooth", obstacles=[step]))
    q0 = mb.neutral()
    q0[2] = 0.56
    res = robot.simulate(1.0, q0=q0, options=Options(method="rk4_fixed", h_max=5e-4, record_period=0.01))
    assert res.x[-1, 2] == pytest.approx(0.51 + 0.04 - 9.81 / k, abs=1e-6)
    a = math.radians(30.0)
    R = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    ramp = Obstacle((0.2, 0.2, 0.05), centre=(0.0, 0.0, 0.0), rotation=R, name="ramp")
    robot = Robot(mb, contacts=Contacts(law, ground=Plane((0, 0, 1), -10.0), path="smooth", obstacles=[ramp]))
    n = R @ np.array([0.0, 0.0, 1.0])  # the ramp's top-face normal
    q0 = mb.neutral()
    q0[:3] = n * (0.05 + 0.04 - 0.002)  # 2 mm into the top face
    res = robot.simulate(1e-3, q0=q0, options=Options(method="rk4_fixed", h_max=1e-5, record_period=1e-3))
    dv = res.x[-1, mb.nq:mb.nq + 3] - np.array([0.0, 0.0, -9.81]) * 1e-3  # remove gravity's share
    assert dv @ n / np.linalg.norm(dv) == pytest.approx(1.0, abs=1e-6)  # pushed out along the face normal
    assert np.linalg.norm(dv) == pytest.approx(k * 0.002 * 1e-3, rel=0.1)  # by k x depth (depth shrinking)
    with pytest.raises(InputError, match="path = 'smooth'"):
        Contacts(law, obstacles=[step])
    with pytest.raises(InputError, match="half_extents"):
        Obstacle((0.1, -0.1, 0.1))


def test_the_three_laws_do_what_they_claim_and_cjtc_needs_the_fewest_flops():
    # acceptance 11 (the counts; the timings are in benchmarks/bench_libra.py)
    from legsim.control import cost

    rng = np.random.default_rng(3)
    s = 6
    J = rng.normal(size=(s, s))
    A = rng.normal(size=(s, s))
    M = A @ A.T + s * np.eye(s)
    h, G = rng.normal(size=s), rng.normal(size=s)
    kp, kd = rng.uniform(1, 10, s), rng.uniform(0.1, 1, s)
    e, ed, ud, thd = (rng.normal(size=s) for _ in range(4))
    np.testing.assert_allclose(cost.cjtc_law(J, kp, kd, e, ed, G), J.T @ (kp * e + kd * ed) + G)
    # resolved rate: the joint-rate command maps to the commanded task rate
    tau = cost.resolved_rate_law(J, kp, e, ud, thd, 1.0, G)
    np.testing.assert_allclose(J @ (tau - G + thd), ud + kp * e, atol=1e-10)
    # computed torque: the task acceleration J M^-1 (tau - h) is the commanded one
    tau = cost.computed_torque_law(J, M, h, kp, kd, e, ed, ud)
    np.testing.assert_allclose(J @ np.linalg.solve(M, tau - h), ud + kd * ed + kp * e, atol=1e-9)
    # LIBRA's 6 x 6: J^T F is 36 multiplies and 30 adds
    assert cost.cjtc_flops(6, 6, gravity="full") == 12 + 18 + 66 + 6
    assert cost.cjtc_flops(6, 6) < cost.resolved_rate_flops(6, 6) < cost.computed_torque_flops(6, 6)
    with pytest.raises(InputError, match="r = s"):
        cost.resolved_rate_flops(4, 6)
