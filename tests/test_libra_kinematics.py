"""LIBRA kinematics and Jacobians (digest cjtc-libra.md §4.5, App. A, App. C; acceptance test 4)."""

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.libra import kinematics as kin
from legsim.robots.libra.params import LibraParams

P = LibraParams()
L, R, N = P.half_link, P.r, P.N

# Nominal configurations: the App. C sweep pose at y_b = 0 (stage 1, feet at y = 0), a pose with foot 2
# on the next step, a bent random pose, and one with the body tilted.
POSES = [((0.09, 0.0, 0.0), (0.18, 0.0), (0.05, -0.25)),
         ((0.09, -0.15, 0.05), (0.18, 0.134), (0.10, -0.30)),
         ((0.20, 0.05, -0.10), (0.45, 0.0), (0.30, -0.20)),
         ((0.22, -0.10, 0.20), (0.45, 0.134), (0.10, -0.35))]


def _nominal():
    return [kin.inverse(*pose, P) for pose in POSES]


def _app_a_positions(phi, t):
    """App. A's position equations, written out independently of the module (x2 typo corrected)."""
    t1, t2, t3, t4, t5, t6 = t
    f12 = phi + t1 + t2
    xb = 2 * L * math.cos(phi) + 2 * L * math.cos(phi + t1) + R * math.cos(f12 - math.pi / 6)
    yb = 2 * L * math.sin(phi) + 2 * L * math.sin(phi + t1) + R * math.sin(f12 - math.pi / 6)
    x2 = (2 * L * (math.cos(phi) + math.cos(phi + t1) + math.cos(f12 + t3) + math.cos(f12 + t3 + t4))
          + N * math.cos(f12))
    y2 = (2 * L * math.sin(phi) + 2 * L * math.sin(phi + t1) + N * math.sin(f12) + 2 * L * math.sin(f12 + t3)
          + 2 * L * math.sin(f12 + t3 + t4))
    x3 = xb + R * math.sin(f12) + 2 * L * math.sin(f12 + t5) + 2 * L * math.sin(f12 + t5 + t6)
    y3 = yb - R * math.cos(f12) - 2 * L * math.cos(f12 + t5) - 2 * L * math.cos(f12 + t5 + t6)
    return xb, yb, f12, x2, y2, x3, y3


def _u1_of_theta(theta, y2, phi_ref):
    phi = kin.phi_from_y2(theta, y2, P, phi_ref=phi_ref)
    return kin.u1(phi, theta, P)


def test_points_reproduce_the_app_a_position_equations():
    rng = np.random.default_rng(1)
    for _ in range(20):
        phi, theta = rng.uniform(-np.pi, np.pi), rng.uniform(-2, 2, 6)
        pts = kin.points(phi, theta, P)
        xb, yb, thb, x2, y2, x3, y3 = _app_a_positions(phi, theta)
        got = [*pts["body"], phi + theta[0] + theta[1], *pts["foot2"], *pts["foot3"]]
        assert np.allclose(got, [xb, yb, thb, x2, y2, x3, y3], atol=1e-14)
        assert np.allclose(kin.u1(phi, theta, P), [xb, yb, thb, x2, x3, y3], atol=1e-14)
        assert np.allclose(kin.u2(phi, theta, P), [xb, yb, thb, x2, y2, x3], atol=1e-14)
        # every link is 2L long and the body is an (almost) equilateral triangle of side N
        for a, b in [("foot1", "knee1"), ("knee1", "hip1"), ("hip2", "knee2"), ("knee2", "foot2"),
                     ("hip3", "knee3"), ("knee3", "foot3")]:
            assert np.hypot(*(pts[a] - pts[b])) == pytest.approx(2 * L, abs=1e-14)
        assert np.hypot(*(pts["hip1"] - pts["hip2"])) == pytest.approx(N, abs=1e-14)
        assert np.hypot(*(pts["hip1"] - pts["body"])) == pytest.approx(R, abs=1e-14)
        assert np.hypot(*(pts["hip2"] - pts["body"])) == pytest.approx(N / math.sqrt(3), abs=2e-4)


def test_u3_is_the_foot_1_frame_vector_shifted_by_foot_1s_position():
    phi, theta = _nominal()[1]
    s3 = np.array([0.0, -0.134])  # foot 3 resting on a rung of the left ladder (stage 4)
    foot1 = s3 - kin.points(phi, theta, P)["foot3"]
    u = kin.u3(phi, theta, P, foot1=foot1)
    u_local = kin.u1(phi, theta, P)
    assert np.allclose(u[:2], foot1)
    assert np.allclose(u[2:4], u_local[:2] + foot1)
    assert u[4] == pytest.approx(u_local[2])
    assert u[5] == pytest.approx(u_local[3] + foot1[0])


def test_point_jacobians_equal_central_differences_over_phi_and_theta():
    rng = np.random.default_rng(2)
    h = 1e-6
    for _ in range(5):
        q = rng.uniform(-2, 2, 7)
        for name in kin.POINT_NAMES:
            jac = kin.point_jacobian(name, q[0], q[1:], P)
            fd = np.zeros((2, 7))
            for k in range(7):
                dq = np.zeros(7)
                dq[k] = h
                qp, qm = q + dq, q - dq
                fd[:, k] = (kin.points(qp[0], qp[1:], P)[name] - kin.points(qm[0], qm[1:], P)[name]) / (2 * h)
            assert np.allclose(jac, fd, atol=1e-9), name


def test_analytic_jacobian_u1_equals_central_finite_differences_through_phi_from_y2():
    h = 1e-5
    for phi, theta in _nominal():
        y2 = kin.points(phi, theta, P)["foot2"][1]
        assert kin.phi_from_y2(theta, y2, P, phi_ref=phi) == pytest.approx(phi, abs=1e-12)
        fd = np.zeros((6, 6))
        for k in range(6):
            dt = np.zeros(6)
            dt[k] = h
            fd[:, k] = (_u1_of_theta(theta + dt, y2, phi) - _u1_of_theta(theta - dt, y2, phi)) / (2 * h)
        jac = kin.jacobian_u1(phi, theta, P)
        assert np.max(np.abs(jac - fd)) < 1e-6
        assert np.max(np.abs(jac)) > 0.05  # not trivially small


def test_jacobian_4x5_times_t_equals_the_upper_left_block_of_jacobian_u1():
    for phi, theta in _nominal():
        j45 = kin.jacobian_4x5(phi, theta, P)
        t = kin.t_matrix(phi, theta, P)
        assert j45.shape == (4, 5) and t.shape == (5, 4)
        assert np.allclose(t[1:], np.eye(4))
        assert np.allclose(j45 @ t, kin.jacobian_u1(phi, theta, P)[:4, :4], atol=1e-14)


def test_jacobian_4x5_matches_the_app_c_printed_entries():
    s, c = math.sin, math.cos
    for phi, theta in _nominal():
        t1, t2, t3, t4 = theta[:4]
        f1, f12 = phi + t1, phi + t1 + t2
        f123, f1234 = f12 + t3, f12 + t3 + t4
        fb = f12 - math.pi / 6
        printed = np.array([
            [-2 * L * s(phi) - 2 * L * s(f1) - R * s(fb), -2 * L * s(f1) - R * s(fb), -R * s(fb), 0, 0],
            [2 * L * c(phi) + 2 * L * c(f1) + R * c(fb), 2 * L * c(f1) + R * c(fb), R * c(fb), 0, 0],
            [1, 1, 1, 0, 0],
            [-2 * L * (s(phi) + s(f1) + s(f123) + s(f1234)) - N * s(f12),
             -2 * L * (s(f1) + s(f123) + s(f1234)) - N * s(f12),
             -2 * L * (s(f123) + s(f1234)) - N * s(f12), -2 * L * (s(f123) + s(f1234)), -2 * L * s(f1234)]])
        assert np.allclose(kin.jacobian_4x5(phi, theta, P), printed, atol=1e-14)
        # App. C's a_i and b1 (b1 = x2 with foot 1 at the origin)
        a = np.array([2 * L * c(f1) + N * c(f12) + 2 * L * c(f123) + 2 * L * c(f1234),
                      N * c(f12) + 2 * L * c(f123) + 2 * L * c(f1234), 2 * L * c(f123) + 2 * L * c(f1234),
                      2 * L * c(f1234)])
        b1 = 2 * L * (c(phi) + c(f1) + c(f123) + c(f1234)) + N * c(f12)
        assert b1 == pytest.approx(kin.points(phi, theta, P)["foot2"][0], abs=1e-15)
        assert np.allclose(kin.dphi_dtheta(phi, theta, P), np.r_[-a / b1, 0, 0], atol=1e-13)


def test_jacobian_u1_free_foot_rows_follow_the_app_a_pattern():
    s, c = math.sin, math.cos
    for phi, theta in _nominal():
        jac = kin.jacobian_u1(phi, theta, P)
        f12 = phi + theta[0] + theta[1]
        f125, f1256 = f12 + theta[4], f12 + theta[4] + theta[5]
        dthb = np.r_[1.0, 1.0, 0.0, 0.0] + kin.dphi_dtheta(phi, theta, P)[:4]  # ∂θ_b/∂θ_k, App. A J31..J34
        assert np.allclose(jac[2], np.r_[dthb, 0, 0], atol=1e-14)
        cx = R * c(f12) + 2 * L * c(f125) + 2 * L * c(f1256)
        cy = R * s(f12) + 2 * L * s(f125) + 2 * L * s(f1256)
        assert np.allclose(jac[4, :4], jac[0, :4] + cx * dthb, atol=1e-14)
        assert np.allclose(jac[5, :4], jac[1, :4] + cy * dthb, atol=1e-14)
        assert np.allclose(jac[4:, 4:], [[2 * L * (c(f125) + c(f1256)), 2 * L * c(f1256)],
                                         [2 * L * (s(f125) + s(f1256)), 2 * L * s(f1256)]], atol=1e-14)
        assert np.all(jac[:4, 4:] == 0)


def test_minus_a_over_b1_agrees_with_the_app_a_atan_derivative_on_both_branches():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(20):
        theta = rng.uniform(-2, 2, 6)
        y2 = rng.uniform(-0.1, 0.1)
        try:
            branches = kin.phi_branches(theta, y2, P)
        except InputError:
            continue
        for phi in branches:
            a = kin.dphi_dtheta(phi, theta, P)
            b = kin.dphi_dtheta_atan(phi, theta, P)
            assert np.allclose(a, b, rtol=1e-9, atol=1e-11)
            assert np.all(b[4:] == 0)
            checked += 1
    assert checked >= 30


def test_closed_form_phi_satisfies_the_y2_constraint_and_newton_agrees():
    rng = np.random.default_rng(4)
    for _ in range(30):
        theta = rng.uniform(-2, 2, 6)
        reach = np.hypot(*kin.points(0.0, theta, P)["foot2"])
        y2 = rng.uniform(-0.95, 0.95) * reach
        for phi in kin.phi_branches(theta, y2, P):
            assert kin.points(phi, theta, P)["foot2"][1] == pytest.approx(y2, abs=1e-14)
            newton = kin.phi_from_y2_newton(theta, y2, P, phi0=phi + 0.05)
            assert math.remainder(newton - phi, 2 * math.pi) == pytest.approx(0.0, abs=1e-11)


def test_default_branch_puts_foot_2_on_the_right_and_phi_ref_keeps_continuity():
    phi, theta = _nominal()[0]
    assert kin.phi_from_y2(theta, 0.0, P) == pytest.approx(phi, abs=1e-12)
    other = [b for b in kin.phi_branches(theta, 0.0, P) if abs(math.remainder(b - phi, 2 * math.pi)) > 1e-6]
    assert len(other) == 1
    assert kin.points(other[0], theta, P)["foot2"][0] < 0 < kin.points(phi, theta, P)["foot2"][0]
    assert kin.phi_from_y2(theta, 0.0, P, phi_ref=other[0] + 0.1) == pytest.approx(other[0], abs=1e-12)
    # unwrapped to within π of the reference
    assert kin.phi_from_y2(theta, 0.0, P, phi_ref=phi + 4 * math.pi) == pytest.approx(phi + 4 * math.pi)


def test_closed_form_phi_is_exact_when_y_plus_k2_vanishes():
    theta = np.array([0.6, -0.4, 0.9, -1.1, 0.0, 0.0])
    k1, k2 = kin.points(0.0, theta, P)["foot2"]
    y2 = -k2  # the quadratic's leading coefficient vanishes: one root is φ = π
    branches = kin.phi_branches(theta, y2, P)
    assert all(np.isfinite(branches))
    assert min(abs(abs(b) - math.pi) for b in branches) < 1e-12
    for phi in branches:
        assert kin.points(phi, theta, P)["foot2"][1] == pytest.approx(y2, abs=1e-14)


def test_phi_from_y2_raises_input_error_when_foot_2_cannot_reach_y2():
    theta = np.array([0.3, 0.2, 0.4, 0.1, 0.0, 0.0])
    reach = np.hypot(*kin.points(0.0, theta, P)["foot2"])
    with pytest.raises(InputError, match="cannot reach y2"):
        kin.phi_from_y2(theta, reach + 1e-3, P)
    with pytest.raises(InputError, match="Newton"):
        kin.phi_from_y2_newton(theta, reach + 1e-3, P)


def test_jacobian_u1_has_rank_6_at_nominal_configurations():
    for phi, theta in _nominal():
        sv = np.linalg.svd(kin.jacobian_u1(phi, theta, P), compute_uv=False)
        assert np.linalg.matrix_rank(kin.jacobian_u1(phi, theta, P)) == 6
        assert sv[-1] > 1e-3


@pytest.mark.parametrize("knee", [0, 5], ids=["limb 1 stretched (θ1 -> 0)", "limb 3 stretched (θ6 -> 0)"])
def test_jacobian_u1_loses_rank_as_a_limb_is_stretched(knee):
    phi, theta = _nominal()[1]
    sigma = []
    for bend in (0.5, 0.1, 1e-2, 1e-4, 0.0):
        t = theta.copy()
        t[knee] = bend
        sigma.append(np.linalg.svd(kin.jacobian_u1(phi, t, P), compute_uv=False)[-1])
    assert sigma[0] > 1e-3
    assert all(b < a for a, b in zip(sigma[:-1], sigma[1:], strict=True))
    assert sigma[-1] < 1e-14
    assert np.linalg.matrix_rank(kin.jacobian_u1(phi, t, P), tol=1e-10) == 5


def test_inverse_kinematics_round_trips_through_points_on_both_elbow_branches():
    for body, foot2, foot3 in POSES:
        for elbows in [(-1, -1, -1), (1, 1, 1), (1, -1, 1), None]:
            phi, theta = kin.inverse(body, foot2, foot3, P, elbows=elbows)
            pts = kin.points(phi, theta, P)
            assert np.allclose(pts["foot1"], 0.0)
            assert np.allclose(pts["body"], body[:2], atol=1e-13)
            theta_b = phi + theta[0] + theta[1]
            assert math.remainder(theta_b - body[2], 2 * math.pi) == pytest.approx(0, abs=1e-13)
            assert np.allclose(pts["foot2"], foot2, atol=1e-13)
            assert np.allclose(pts["foot3"], foot3, atol=1e-13)
            if elbows is not None:
                assert np.sign(theta[[0, 3, 5]]).tolist() == list(elbows)


def test_inverse_picks_the_elbow_branch_inside_the_joint_limits_where_one_exists():
    # y_b = 0.14 m with both feet at y = 0: only the clockwise knee (θ1 < 0) keeps hip θ2 in +132/−69°
    phi, theta = kin.inverse((0.09, 0.14, 0.0), (0.18, 0.0), (0.05, -0.1), P)
    assert np.all(kin.joint_limit_excess(theta, P) == 0)
    _, flipped = kin.inverse((0.09, 0.14, 0.0), (0.18, 0.0), (0.05, -0.1), P, elbows=(1, None, None))
    assert math.degrees(kin.joint_limit_excess(flipped, P)[1]) == pytest.approx(61.3, abs=0.1)
    # y_b = 0: the knee must bend ≈ 160° on either branch, beyond ±117° (digest §5)
    _, theta0 = kin.inverse((0.09, 0.0, 0.0), (0.18, 0.0), None, P)
    assert abs(math.degrees(theta0[0])) == pytest.approx(160.0, abs=0.5)
    assert math.degrees(kin.joint_limit_excess(theta0, P)[0]) == pytest.approx(43.0, abs=0.5)


def test_inverse_raises_input_error_for_an_unreachable_foot_or_bad_elbows():
    with pytest.raises(InputError, match="limb 2 cannot reach"):
        kin.inverse((0.09, -0.20, 0.0), (0.18, 0.134), None, P)
    with pytest.raises(InputError, match="elbows"):
        kin.inverse((0.09, 0.0, 0.0), (0.18, 0.0), None, P, elbows=(1, 2, 1))
    with pytest.raises(InputError, match="6 joint angles"):
        kin.points(0.0, np.zeros(5), P)


def test_libra_params_are_checked_when_made_and_the_kinematics_refusals_name_their_function():
    """Before session 40 LibraParams took any field (LibraParams(gear="abc") failed later, as a TypeError in
    gear_friction; a wheel of -1 m or a NaN mass passed), the kinematics' refusals named no function
    ("params = 3: expected a LibraParams", from whichever function was called), and inverse(body="abc")
    was Python's ValueError."""
    from legsim.robots.libra import dynamics
    from legsim.robots.libra.params import EscapMotor, continuous_torque
    from legsim.robots.libra.robot import gear_friction

    cases = [
        (lambda: LibraParams(gear="abc"), r"LibraParams: 'gear' = 'abc', expected a number"),
        (lambda: LibraParams(wheel_diameter=-1.0),
         r"LibraParams: 'wheel_diameter' = -1.0, expected a finite number in \(0, 10\]"),
        (lambda: LibraParams(m_body=math.nan), r"LibraParams: 'm_body' = nan, expected a number"),
        (lambda: LibraParams(joint_limits=np.zeros((6, 3))), r"(?s)LibraParams: 'joint_limits' = .* 6x2"),
        (lambda: LibraParams(joint_limits=[[1.0, -1.0]] * 6), r"expected \(lower, upper\) \[rad\] per joint"),
        (lambda: LibraParams(motor=None), r"LibraParams: 'motor' = None, expected an EscapMotor"),
        (lambda: EscapMotor(efficiency=1.5), r"EscapMotor: 'efficiency' = 1.5, expected a finite number in"),
        (lambda: continuous_torque(gear=[1.0]), r"continuous_torque: 'gear' = \[1.0\], expected a number"),
        (lambda: kin.t_matrix(0.3, np.zeros(6), 3), r"^t_matrix: 'params' = 3, expected a LibraParams"),
        (lambda: kin.jacobian_u1(0.3, np.zeros(5), P), r"^jacobian_u1: 'theta' = .* 6 joint angles"),
        (lambda: dynamics.inertia_matrix("x", np.zeros(6), P), r"^inertia_matrix: 'phi' = 'x', expected an"),
        (lambda: kin.inverse("abc", (0.18, 0.0)), r"^inverse: 'body' = 'abc', expected 3 finite numbers"),
        (lambda: kin.inverse((0.09, 0.0, 0.0), (0.18, 1e9)), r"^inverse: 'foot2' = .* within ±1000 m, ±1000")]
    for make, says in cases:
        with pytest.raises(InputError, match=says):
            make()
    whole = LibraParams(gear=500, m_body=2)  # whole numbers are held as floats, as every other part does
    assert type(whole.gear) is float and type(whole.m_body) is float and gear_friction(whole) > 0.0
