"""RATS impact-angle rolling controller, brake and turning (Wagenknecht (2009) §6.2; digest §3.5–§3.7).

World frame z up, gravity direction g = (0, 0, −1). For the heading h = +x the lateral vector
n = h × g = +y points to the left. The sign conventions these tests pin down (module docstring of
``legsim.robots.rats.rolling``): theta_sag > 0 for trailing legs, theta_cor > 0 for legs on the right,
omega_pitch = ω·n (> 0 rolling forward), omega_roll = ω·h (> 0 rolling toward the right), theta_error > 0
when rolling to the left of the command.
"""

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.rats.geometry import LEG_DIRECTIONS
from legsim.robots.rats.rolling import (
    BrakeController,
    RollingController,
    RollingParams,
    brake_signal,
    brake_valve_time,
    eligible,
    firing_angle,
    frame,
    heading_error,
    leg_angles,
    quantise_ms,
    r_total,
    turn_adjustments,
    turn_effort,
)

G = np.array([0.0, 0.0, -1.0])
X, Y, Z = np.eye(3)
P = RollingParams()


def rot(axis, angle):
    """Rodrigues rotation matrix about ``axis`` by ``angle`` [rad]."""
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def leg_from_angles(theta_sag, theta_cor, h=X, n=Y):
    """World unit vector of a downward leg with the given projection angles (trailing > 0, right > 0)."""
    v = -math.tan(theta_sag) * np.asarray(h) - math.tan(theta_cor) * np.asarray(n) + G
    return v / np.linalg.norm(v)


def random_rotation(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def face_down_rotation(face=(0, 1, 2)):
    """Body→world rotation resting the robot on the tripod ``face`` (face normal straight down)."""
    f = LEG_DIRECTIONS[list(face)].mean(axis=0)
    f /= np.linalg.norm(f)
    axis = np.cross(f, G)
    return rot(axis, math.acos(np.clip(f @ G, -1, 1)))


# ----------------------------------------------------------------------------- angles (6.8)–(6.11)
def test_frame_n_is_h_cross_g_and_points_left():
    g, h, n = frame([2.0, 0.0, 0.7])               # the vertical part of the heading is dropped
    assert np.allclose(g, G) and np.allclose(h, X)
    assert np.allclose(n, np.cross(X, G)) and np.allclose(n, Y)   # left of +x when z is up


def test_a_leg_straight_down_has_zero_angles_and_an_upward_leg_is_no_candidate():
    a = leg_angles(np.eye(3), X)
    assert a.theta_sag[11] == pytest.approx(0.0, abs=1e-15)       # leg 12: (0, 0, -1)
    assert a.theta_cor[11] == pytest.approx(0.0, abs=1e-15)
    assert a.down[11] and not a.down[0]                            # leg 1 points up
    assert np.allclose(a.g, G) and np.allclose(a.h, X) and np.allclose(a.n, Y)


@pytest.mark.parametrize("angle", [0.05, 0.3, 1.0])
def test_a_leg_tilted_backward_in_the_sagittal_plane_has_that_positive_theta_sag(angle):
    # rolling forward by `angle` (rotation about +n) swings the down leg backward: a trailing leg
    R = rot(Y, angle)
    w = R @ LEG_DIRECTIONS[11]
    assert w @ X < 0.0                                             # the foot is behind the centre
    a = leg_angles(R, X)
    assert a.theta_sag[11] == pytest.approx(angle, abs=1e-12)
    assert a.theta_cor[11] == pytest.approx(0.0, abs=1e-12)
    assert leg_angles(rot(Y, -angle), X).theta_sag[11] == pytest.approx(-angle, abs=1e-12)  # leading
    assert leg_angles(R, -X).theta_sag[11] == pytest.approx(-angle, abs=1e-12)   # heading reversed


@pytest.mark.parametrize("angle", [0.1, 0.6])
def test_a_leg_tilted_to_the_right_has_positive_theta_cor(angle):
    R = rot(X, angle)                      # about +h: the bottom swings toward +n (left)... and back
    w = R @ LEG_DIRECTIONS[11]
    a = leg_angles(R, X)
    assert np.sign(a.theta_cor[11]) == -np.sign(w @ Y)            # foot to the left (+n): negative
    assert a.theta_cor[11] == pytest.approx(-angle, abs=1e-12)
    right = leg_from_angles(0.0, angle)
    assert right @ Y < 0.0                                         # −n side: right of +x heading
    assert leg_angles(np.eye(3), X, legs=right[None]).theta_cor[0] == pytest.approx(angle, abs=1e-12)


def test_atan2_angles_equal_the_thesis_arcsin_forms_for_every_downward_leg():
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(50):
        R = random_rotation(rng)
        hw = np.array([math.cos(rng.uniform(0, 6.3)), math.sin(rng.uniform(0, 6.3)), 0.0])
        hw /= np.linalg.norm(hw)
        a = leg_angles(R, hw)
        g, h, n = a.g, a.h, a.n
        for i, Rh in enumerate(LEG_DIRECTIONS):
            if Rh @ g <= 1e-6:
                assert not a.down[i] or Rh @ g > 0
                continue
            Rs = Rh - (Rh @ n) * n                                   # (6.8)
            c = np.cross(g, Rs)
            sag = np.sign(c @ n) * math.asin(min(np.linalg.norm(c) / np.linalg.norm(Rs), 1.0))   # (6.9)
            Rc = Rh - (Rh @ h) * h                                   # (6.10)
            c = np.cross(g, Rc)
            cor = -np.sign(c @ h) * math.asin(min(np.linalg.norm(c) / np.linalg.norm(Rc), 1.0))  # (6.11)
            assert a.down[i]
            assert a.theta_sag[i] == pytest.approx(sag, abs=1e-9)
            assert a.theta_cor[i] == pytest.approx(cor, abs=1e-9)
            checked += 1
    assert checked > 200


def test_mirror_legs_about_the_sagittal_plane_have_opposite_theta_cor():
    a = leg_angles(np.eye(3), X)               # the icosahedron is symmetric under y -> -y
    mirrored = LEG_DIRECTIONS * np.array([1.0, -1.0, 1.0])
    pairs = 0
    for i, m in enumerate(mirrored):
        j = int(np.argmin(np.linalg.norm(LEG_DIRECTIONS - m, axis=1)))
        assert np.allclose(LEG_DIRECTIONS[j], m)
        pairs += i != j
        if not a.down[i]:
            continue                          # upward legs (angles near ±π) are never candidates
        assert a.theta_cor[j] == pytest.approx(-a.theta_cor[i], abs=1e-12)
        assert a.theta_sag[j] == pytest.approx(a.theta_sag[i], abs=1e-12)
    assert pairs >= 8 and a.down.sum() >= 5
    # and for an arbitrary attitude and heading (legs given in the body frame)
    rng = np.random.default_rng(5)
    R = random_rotation(rng)
    g, h, n = (np.array(v) for v in frame([1.0, 2.0, 0.0]))
    world = np.array([leg_from_angles(0.4, 0.3, h, n), leg_from_angles(-0.2, 0.7, h, n)])
    world = np.vstack([world, world - 2 * np.outer(world @ n, n)])
    b = leg_angles(R, h, legs=world @ R)                        # body vectors R^T w
    assert np.allclose(b.theta_cor[:2], [0.3, 0.7]) and np.allclose(b.theta_cor[2:], [-0.3, -0.7])
    assert np.allclose(b.theta_sag[:2], b.theta_sag[2:])


def test_forward_rolling_is_positive_omega_pitch_and_increases_theta_sag():
    # a sphere rolling on the ground along +h: v = ω × (centre − contact) = ω × (−g r)
    n = np.cross(X, G)
    omega = 3.0 * n
    assert np.cross(omega, -G * 0.2) @ X > 0.0                      # ω along +n moves the centre forward
    rng = np.random.default_rng(7)
    R = random_rotation(rng)
    dt = 1e-7
    R2 = rot(omega, np.linalg.norm(omega) * dt) @ R
    a, b = leg_angles(R, X), leg_angles(R2, X)
    sag_plane = np.abs(LEG_DIRECTIONS @ R.T @ n) < 0.99            # exclude legs along n
    rate = (b.theta_sag - a.theta_sag) / dt
    # d(theta_sag)/dt = omega_pitch / (1 - (R·n)^2)^0 for in-plane legs; its sign always follows ω·n
    assert np.all(rate[a.down & sag_plane] > 0.0)
    straight = leg_angles(np.eye(3), X)
    assert straight.theta_sag[11] == 0.0
    assert (leg_angles(rot(omega, 3.0 * dt), X).theta_sag[11]) / dt == pytest.approx(omega @ n, rel=1e-6)


# --------------------------------------------------------------------- firing angle (6.14)–(6.19)
@pytest.mark.parametrize("z,tc,phi", [(0.16, 0.0, 0.093), (0.2, 0.5, 0.093), (0.25, -0.79, 0.3),
                                      (0.18, 0.3, -0.1)])
def test_r_total_is_the_length_of_the_imaginary_leg_to_the_ground(z, tc, phi):
    assert r_total(z, tc, phi) == pytest.approx(z * np.linalg.norm([math.tan(phi), math.tan(tc), 1.0]),
                                                rel=1e-14)
    u = leg_from_angles(phi, tc)                                    # imaginary leg: sag φ, cor θ_cor
    a = leg_angles(np.eye(3), X, legs=u[None])
    assert a.theta_sag[0] == pytest.approx(phi, abs=1e-12)
    assert a.theta_cor[0] == pytest.approx(tc, abs=1e-12)
    foot = np.array([0.0, 0.0, z]) + r_total(z, tc, phi) * u      # centre at height z
    assert foot[2] == pytest.approx(0.0, abs=1e-12)                 # the ray ends on the ground


def test_firing_angle_hand_computed_and_decreasing_with_omega_pitch():
    tc = np.array([0.0, 0.4, -0.7])
    z = 0.19
    th, dr, tt = firing_angle(tc, z, 0.0, 0.0, P)
    assert np.allclose(th, P.phi)                                   # at rest: fire at θ_sag ≥ φ
    r = z * math.sqrt(1 / math.cos(0.093) ** 2 + math.tan(0.4) ** 2)
    assert dr[1] == pytest.approx(r - 0.20, rel=1e-12)
    assert tt[1] == pytest.approx((r - 0.20) / 3.4 + 13.16e-3, rel=1e-12)
    w = np.linspace(-5, 20, 26)
    fires = np.array([firing_angle(tc, z, wp, 0.0, P)[0] for wp in w])
    assert np.all(np.diff(fires, axis=0) < 0.0)                    # rolling faster → fire earlier
    assert fires[-1, 1] == pytest.approx(0.093 - 20.0 * tt[1], rel=1e-12)


def test_roll_damping_fires_the_leg_on_the_side_the_robot_rolls_toward_earlier():
    h = X
    n = np.cross(h, G)
    omega = 2.0 * h + 6.0 * n                      # rolling forward and rolling toward the right
    assert np.cross(2.0 * h, -G) @ n < 0.0         # ω·h > 0 moves the centre toward −n: the right
    right, left = leg_from_angles(0.0, 0.5), leg_from_angles(0.0, -0.5)
    # turning off: with it, this 0.32 rad sideways roll would be read as a heading error and the planes
    # re-aligned with h_roll, in which ω·h_roll = 0 by construction (6.24)
    c = RollingController(RollingParams(turn_policy="none"), legs=np.array([right, left]))
    c.step(0.0, np.eye(3), omega, 0.18, np.zeros(3), h)
    d = c.last
    assert d.omega_roll == pytest.approx(2.0) and d.omega_pitch == pytest.approx(6.0)
    assert d.theta_cor[0] > 0 > d.theta_cor[1]
    assert d.theta_fire[0] < d.theta_fire[1]                        # right leg fires earlier
    th, _, _ = firing_angle(d.theta_cor, 0.18, 6.0, 2.0, P)
    assert np.allclose(th, d.theta_fire, atol=1e-13)
    c0 = RollingController(RollingParams(gamma=0.0, turn_policy="none"), legs=np.array([right, left]))
    c0.step(0.0, np.eye(3), omega, 0.18, np.zeros(3), h)
    assert c0.last.theta_fire[0] == pytest.approx(c0.last.theta_fire[1], abs=1e-14)


def test_the_controllers_leg_loop_computes_the_reference_equations_at_random_states():
    """The step's per-leg loop (scalar, for speed) against the reference functions (6.8)–(6.18) on
    random orientations, rates and heights, with and without roll damping: the projection angles of
    every leg, and for the legs pointing down the firing angle and the eligibility (6.12), (6.16)."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(24)
    for gamma in (0.0, P.gamma):
        params = RollingParams(gamma=gamma, turn_policy="none")
        for _ in range(200):
            R = Rotation.random(random_state=rng).as_matrix()
            omega, v = rng.normal(0.0, 4.0, 3), rng.normal(0.0, 1.0, 3)
            z, heading = rng.uniform(0.15, 0.32), np.r_[rng.normal(size=2), 0.0]
            c = RollingController(params)
            c.step(0.0, R, omega, z, v, heading)
            d = c.last
            ref = leg_angles(R, heading)
            np.testing.assert_allclose(d.theta_sag, ref.theta_sag, rtol=0, atol=1e-12)
            np.testing.assert_allclose(d.theta_cor, ref.theta_cor, rtol=0, atol=1e-12)
            down = ref.down
            fire, _, _ = firing_angle(ref.theta_cor, z, d.omega_pitch, d.omega_roll, params)
            np.testing.assert_allclose(d.theta_fire[down], fire[down], rtol=1e-12, atol=1e-12)
            dr = r_total(z, ref.theta_cor, params.phi) - params.l
            np.testing.assert_allclose(d.dr[down], dr[down], rtol=1e-12, atol=1e-12)
            assert (d.eligible == eligible(z, ref.theta_sag, ref.theta_cor, dr, down, params)).all()


def test_a_rotation_that_is_not_3_by_3_is_named():
    c = RollingController()
    expected = r"R: expected a \(3, 3\) body-to-world rotation of finite numbers, got "
    with pytest.raises(InputError, match=expected + r"shape \(2, 2\)"):
        c.step(0.0, np.eye(2), np.zeros(3), 0.2, np.zeros(3), X)
    with pytest.raises(InputError, match=expected + "None"):
        c.step(0.0, None, np.zeros(3), 0.2, np.zeros(3), X)
    with pytest.raises(InputError, match=expected + r"\[\['1', '0', '0'\]"):  # was a TypeError
        c.step(0.0, [["1", "0", "0"]] * 3, np.zeros(3), 0.2, np.zeros(3), X)
    with pytest.raises(InputError, match=expected + "shape"):  # NaN left every leg out without a word
        c.step(0.0, np.full((3, 3), np.nan), np.zeros(3), 0.2, np.zeros(3), X)


def test_the_control_ticks_numbers_are_checked_and_a_string_of_digits_is_not_one():
    """Before session 40 step and the brake read "0.2" as 0.2 (float()), a NaN height made no leg
    eligible without a word, and a string v_desired was a TypeError inside the brake."""
    c = RollingController()
    args = dict(t=0.0, R=np.eye(3), omega_world=np.zeros(3), z=0.2, v_world=np.zeros(3), heading_world=X)
    for name, value in (("t", "0.0"), ("z", float("nan")), ("z", 1e300), ("v_desired", "0.2"),
                        ("v_desired", -0.1), ("omega_world", ["0", "0", "1"]), ("v_world", [True, 0.0, 0.0])):
        with pytest.raises(InputError, match=f"'?{name}'?"):
            c.step(**{**args, name: value})
    brake = BrakeController(P)
    for name, value in (("t", None), ("v", "1"), ("v_d", math.inf)):
        with pytest.raises(InputError, match=f"BrakeController.update: '{name}' = "):
            brake.update(**{**dict(t=0.0, v=0.1, v_d=0.2), name: value})
    fired = RollingController().step(**{**args, "t": 1.0, "v_desired": 0.0})
    assert fired and c.step(**{**args, "t": 1, "z": np.float64(0.2), "v_desired": 0}) == fired  # ints, numpy


# ----------------------------------------------------------------------- eligibility (6.12), (6.16)
def test_eligibility_boundaries():
    p = RollingParams(alpha=1.0)
    up = np.nextafter
    ts = np.array([1.0, -1.0, up(1.0, 2), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    tc = np.array([0.0, 0.0, 0.0, p.beta, -p.beta, up(p.beta, 2), 0.0, 0.0, 0.0])
    dr = np.array([0.0] * 6 + [up(p.dr_max, 0), p.dr_max, 0.0])
    down = np.array([True] * 8 + [False])
    assert eligible(p.h_max, ts, tc, dr, down, p).tolist() == [True, True, False, True, True, False,
                                                                 True, False, False]
    assert not eligible(up(p.h_max, 1), ts, tc, dr, down, p).any()


def test_controller_eligibility_dead_zone_and_extension_limit():
    leg = leg_from_angles(0.3, 0.2)[None]
    # with l = 0.20 m, Δr < Δr_max already excludes z > 0.276 m, so widen Δr_max to see z_max (6.12)
    c = RollingController(RollingParams(dr_max=0.2), legs=leg)
    assert c.step(0.0, np.eye(3), np.zeros(3), P.h_max, np.zeros(3), X) == [(0, 33)]
    c.reset()
    assert c.step(0.0, np.eye(3), np.zeros(3), P.h_max + 1e-6, np.zeros(3), X) == []
    # (6.16): Δr = z sqrt(sec²φ + tan²θ_cor) − l must stay below Δr_max
    zlim = (P.l + P.dr_max) / math.sqrt(1 / math.cos(P.phi) ** 2 + math.tan(0.2) ** 2)
    p = RollingParams(h_max=1.0)
    c = RollingController(p, legs=leg)
    assert c.step(0.0, np.eye(3), np.zeros(3), zlim * (1 - 1e-9), np.zeros(3), X) == [(0, 33)]
    c.reset()
    assert c.step(0.0, np.eye(3), np.zeros(3), zlim * (1 + 1e-9), np.zeros(3), X) == []
    # |θ_cor| > β is never a candidate
    c = RollingController(legs=leg_from_angles(0.3, P.beta + 1e-6)[None])
    assert c.step(0.0, np.eye(3), np.zeros(3), 0.17, np.zeros(3), X) == []


# -------------------------------------------------------------------------------- firing logic
def test_the_fired_leg_pushes_the_centre_toward_the_heading():
    """Standing on a tripod at rest, every leg the controller fires is a trailing leg: extended against
    the ground it moves the centre along −R̂, which has a positive component along +heading."""
    fired_any = 0
    for face in [(0, 1, 2), (11, 7, 8), (1, 2, 7)]:
        R = face_down_rotation(face)
        stance = [i for i in range(12) if (R @ LEG_DIRECTIONS[i]) @ G > 0.79]
        assert sorted(stance) == sorted(face)
        for psi in np.linspace(0, 2 * math.pi, 12, endpoint=False):
            h = np.array([math.cos(psi), math.sin(psi), 0.0])
            c = RollingController()
            fired = c.step(0.0, R, np.zeros(3), 0.20 * math.cos(math.radians(37.38)), np.zeros(3), h)
            for i, ms in fired:
                push = -(R @ LEG_DIRECTIONS[i])             # centre displacement per unit extension
                assert push @ h > 0.0
                assert c.last.theta_sag[i] >= P.phi and ms == 33
            fired_any += bool(fired)
            # the opposite heading never fires the same legs
            c2 = RollingController()
            back = c2.step(0.0, R, np.zeros(3), 0.16, np.zeros(3), -h)
            assert not ({i for i, _ in fired} & {i for i, _ in back})
    assert fired_any == 36


def test_firing_zone_boundary_and_upward_legs():
    # at rest θ_fire = φ: (6.13) fires as soon as θ_sag reaches φ ("equal to or greater")
    legs = np.array([leg_from_angles(P.phi + 1e-9, 0.2), leg_from_angles(P.phi - 1e-9, 0.2),
                     [-0.5, 0.0, math.sqrt(0.75)], [0.0, 0.0, 1.0]])     # last two point up
    c = RollingController(legs=legs)
    assert c.step(0.0, np.eye(3), np.zeros(3), 0.17, np.zeros(3), X) == [(0, 33)]
    assert c.last.theta_sag[2] > P.phi and not c.last.eligible[2:].any()  # up-and-back is no candidate


def test_legs_fire_earlier_when_rolling_forward_and_later_when_rolling_backward():
    n = np.cross(X, G)
    z = 0.22                                         # Δr = 30 mm: t_total = 22 ms
    early = leg_from_angles(0.05, 0.2)[None]        # not yet at φ = 0.093
    c = RollingController(legs=early)
    assert c.step(0.0, np.eye(3), np.zeros(3), z, np.zeros(3), X) == []
    c.reset()
    assert c.step(0.0, np.eye(3), 5.0 * n, z, np.zeros(3), X) == [(0, 33)]
    assert c.last.omega_pitch == pytest.approx(5.0) and c.last.xi_turn == 0.0
    late = leg_from_angles(0.12, 0.2)[None]
    c = RollingController(legs=late)
    assert c.step(0.0, np.eye(3), np.zeros(3), z, np.zeros(3), X) == [(0, 33)]
    c.reset()
    assert c.step(0.0, np.eye(3), -5.0 * n, z, np.zeros(3), X) == []


def test_controller_angles_agree_with_the_reference_functions():
    rng = np.random.default_rng(11)
    for _ in range(30):
        R = random_rotation(rng)
        h = np.array([rng.normal(), rng.normal(), 0.0])
        w = rng.normal(size=3) * 0.5                          # below omega_turn_min: no turning
        w *= 0.9 / max(np.linalg.norm(w), 0.9)
        z = rng.uniform(0.12, 0.3)
        c = RollingController()
        c.step(0.0, R, w, z, np.zeros(3), h)
        d = c.last
        a = leg_angles(R, h)
        g, hw, nw = (np.array(v) for v in frame(h))
        assert d.xi_turn == 0.0
        assert np.allclose(d.theta_sag, a.theta_sag, atol=1e-12)
        assert np.allclose(d.theta_cor, a.theta_cor, atol=1e-12)
        th, _, _ = firing_angle(a.theta_cor, z, w @ nw, w @ hw, P)
        assert np.allclose(d.theta_fire[a.down], th[a.down], atol=1e-12)
        dr = r_total(z, a.theta_cor, P.phi) - P.l
        assert np.allclose(d.dr[a.down], dr[a.down], atol=1e-12)
        assert np.array_equal(d.eligible, eligible(z, a.theta_sag, a.theta_cor, dr, a.down, P))


# ------------------------------------------------------------------------------ lockout, reset
def test_lockout_prevents_immediate_refire_until_valve_time_and_retraction_have_passed():
    leg = leg_from_angles(0.3, 0.2)[None]
    c = RollingController(legs=leg)
    args = (np.eye(3), np.zeros(3), 0.17, np.zeros(3), X)
    assert c.step(0.0, *args) == [(0, 33)]
    lock_ms = 33 + round(P.t_retract * 1e3)                           # 66 ms
    for k in range(1, lock_ms):
        assert c.step(k * 1e-3, *args) == [], k
    assert c.step(lock_ms * 1e-3, *args) == [(0, 33)]
    # the re-arm option also requires the leg to leave the firing zone first
    c = RollingController(RollingParams(require_rearm=True), legs=leg)
    assert c.step(0.0, *args) == [(0, 33)]
    assert c.step(0.1, *args) == []
    assert c.step(0.101, np.eye(3), np.zeros(3), 0.5, np.zeros(3), X) == []     # above h_max: out of zone
    assert c.step(0.102, *args) == [(0, 33)]


def test_reset_clears_lockout_and_brake_state():
    leg = leg_from_angles(0.3, 0.2)[None]
    c = RollingController(legs=leg)
    args = (np.eye(3), np.zeros(3), 0.17, np.array([1.1, 0.0, 0.0]), X)
    assert c.step(0.0, *args, v_desired=1.0)
    c.step(0.01, *args, v_desired=1.0)
    assert c.brake.integral != 0.0
    with pytest.raises(InputError, match="reset"):
        c.step(0.005, *args)
    c.reset()
    assert c.brake.integral == 0.0 and c.last is None
    assert c.step(0.0, *args) == [(0, 33)]


def test_a_refused_tick_changes_nothing():
    """The compiled tick checks all its input before it touches the lockout, the re-arm flags or the
    brake (session 42): a refused step (a NaN rotation, time going backwards, a zero heading) leaves
    the controller as the step before it left it, and the run goes on as if it had not been called."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(42)
    ticks = [(k * 1e-3, Rotation.random(random_state=rng).as_matrix(), rng.normal(0.0, 4.0, 3),
              rng.uniform(0.15, 0.3), rng.normal(0.0, 1.0, 3)) for k in range(300)]
    clean, refused = RollingController(RollingParams(require_rearm=True)), RollingController(
        RollingParams(require_rearm=True))
    bad = ((np.full((3, 3), np.nan), "R"), (None, "backwards"), (np.zeros(3), "heading"))
    fired = 0
    for k, (t, R, w, z, v) in enumerate(ticks):
        want = clean.step(t, R, w, z, v, X, v_desired=0.5)
        if k % 7 == 3:
            R_bad, what = bad[k % 3]
            with pytest.raises(InputError):
                if what == "R":
                    refused.step(t, R_bad, w, z, v, X, v_desired=0.5)
                elif what == "backwards":
                    refused.step(t - 0.5, R, w, z, v, X, v_desired=0.5)
                else:
                    refused.step(t, R, w, z, v, R_bad, v_desired=0.5)
        assert refused.step(t, R, w, z, v, X, v_desired=0.5) == want
        fired += len(want)
        assert np.array_equal(refused.ready_time, clean.ready_time)
        assert np.array_equal(refused.armed, clean.armed) and refused.brake.integral == clean.brake.integral
    assert fired > 20


def test_the_tick_takes_lists_read_only_and_strided_arrays_as_the_observations_arrays():
    """The step passes a writeable C-contiguous float64 array to the compiled tick as it is and copies
    anything else (a list, a read-only array, a transposed rotation, float32, a numpy float): the same
    firings and diagnostics."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(3)
    a, b = RollingController(), RollingController()
    fired = 0
    for k in range(400):
        R = Rotation.random(random_state=rng).as_matrix()
        w, v = rng.normal(0.0, 4.0, 3), rng.normal(0.0, 1.0, 3)
        z, h = float(rng.uniform(0.15, 0.3)), np.array([1.0, 0.5, 0.0])
        want = a.step(k * 1e-3, R, w, z, v, h)
        Rt = np.asfortranarray(R)
        ro = w.copy()
        ro.flags.writeable = False
        h32 = h.astype(np.float32)  # (1, 0.5, 0) exactly
        got = b.step(k * 1e-3, Rt if k % 2 else R.tolist(), ro, np.float64(z), v.tolist(),
                     h32 if k % 3 else h)
        assert got == want
        fired += len(got)
        np.testing.assert_array_equal(a.last.theta_fire, b.last.theta_fire)
    assert fired > 10
    # from the second step on, both call the compiled tick's entry (legsim._direct), not the dispatcher:
    # every one of these kinds of input reached it as the types of the first step's
    from legsim.robots.rats import _tick

    if hasattr(_tick.rolling_tick, "overloads"):  # (with NUMBA_DISABLE_JIT the tick is Python)
        assert a._tick is b._tick is not _tick.rolling_tick and len(_tick.rolling_tick.overloads) == 1


def test_the_packed_parameters_fill_every_slot():
    """``_packed`` writes each of the compiled tick's parameter slots (a slot left out stays NaN)."""
    from legsim.robots.rats import _tick
    from legsim.robots.rats.rolling import _packed

    for params in (P, RollingParams(alpha=math.pi, turn_policy="none", require_rearm=True)):
        pf = _packed(params, (0.0, 0.0, -2.0))
        assert pf.shape == (_tick.N_PF,) and np.isfinite(pf).all()
        assert tuple(pf[[_tick.P_GX, _tick.P_GY, _tick.P_GZ]]) == (0.0, 0.0, -1.0)


def test_durations_are_whole_ms_rounded_up():
    assert quantise_ms(0.033) == 33
    assert quantise_ms(0.0331) == 34
    assert quantise_ms(13.16e-3) == 14
    assert quantise_ms(0.03300000001) == 34
    leg = leg_from_angles(0.3, 0.2)[None]
    c = RollingController(RollingParams(t_fire=0.0304), legs=leg)
    assert c.step(0.0, np.eye(3), np.zeros(3), 0.17, np.zeros(3), X) == [(0, 31)]


# ------------------------------------------------------------------------------ brake (6.20)–(6.22)
@pytest.mark.parametrize("xi", [0.0, 0.3, 0.7, 1.0])
def test_brake_parabola_keeps_t_std_at_beta_and_moves_the_vertex_linearly(xi):
    assert brake_valve_time(P.beta, xi, P) == pytest.approx(P.t_fire, rel=1e-12)
    assert brake_valve_time(-P.beta, xi, P) == pytest.approx(P.t_fire, rel=1e-12)
    vertex = brake_valve_time(0.0, xi, P)
    assert vertex == pytest.approx(P.t_fire - xi * (P.t_fire - P.t_delay), rel=1e-12)
    tc = np.linspace(0.0, P.beta, 9)
    t = brake_valve_time(tc, xi, P)
    assert np.all(np.diff(t) > 0.0) if xi > 0 else np.allclose(t, P.t_fire)


def test_brake_parabola_vertex_ends_and_clipping():
    assert brake_valve_time(0.0, 0.0, P) == pytest.approx(0.033)
    assert brake_valve_time(0.0, 1.0, P) == pytest.approx(13.16e-3)
    assert brake_valve_time(0.3, -2.0, P) == brake_valve_time(0.3, 0.0, P)
    assert brake_valve_time(0.3, 5.0, P) == brake_valve_time(0.3, 1.0, P)
    rubber = RollingParams(t_delay=5e-3)
    assert brake_valve_time(0.0, 1.0, rubber) == pytest.approx(5e-3)


def test_brake_signal_proportional_form_620():
    p = RollingParams(c_ff=0.0, k_i=0.0, dv_max=0.5)
    assert brake_signal(1.0, 1.0, p) == 0.0
    assert brake_signal(0.5, 1.0, p) == 0.0
    assert brake_signal(1.25, 1.0, p) == pytest.approx(0.5)
    assert brake_signal(1.5, 1.0, p) == 1.0
    assert brake_signal(9.0, 1.0, p) == 1.0
    q = RollingParams(c_ff=0.25, k_i=0.3, dv_max=0.5)
    assert brake_signal(1.0, 1.0, q, integral=0.5) == pytest.approx(0.25 + 0.15)


def test_brake_integral_accumulates():
    p = RollingParams(c_ff=0.0, k_i=1.0, dv_max=10.0)
    b = BrakeController(p)
    for k in range(1001):
        xi = b.update(k * 1e-3, 1.5, 1.0)
    assert b.integral == pytest.approx(0.5, rel=1e-9)                 # ∫ 0.5 m/s dt over 1 s
    assert xi == pytest.approx(0.05 + 0.5, rel=1e-9)
    b.update(1.001, 1.0, None)                                         # brake off: integral held
    assert b.integral == pytest.approx(0.5, rel=1e-9) and b.xi == 0.0


def test_brake_integral_anti_windup():
    p = RollingParams(c_ff=0.0, k_i=1.0, dv_max=0.5)
    b = BrakeController(p)
    for k in range(10001):                                             # 10 s far above the command
        assert b.update(k * 1e-3, 3.0, 1.0) == 1.0
    assert b.integral == 0.0                                           # saturated: no integration
    assert b.update(10.001, 0.9, 1.0) == 0.0                          # releases at once
    for k in range(10000):                                             # 10 s far below: no negative windup
        b.update(10.002 + k * 1e-3, 0.0, 1.0)
    assert b.integral == 0.0
    assert b.update(20.002, 1.2, 1.0) == pytest.approx(0.4, abs=1e-3)  # proportional response intact
    # the hard bound |K_I I| <= integral_limit
    q = RollingParams(c_ff=0.0, k_i=2.0, dv_max=100.0, integral_limit=0.2)
    c = BrakeController(q)
    for k in range(5001):
        c.update(k * 1e-3, 1.5, 1.0)
    assert c.integral == pytest.approx(0.1) and c.xi == pytest.approx(0.2 + 0.5 / 100.0)


def test_brake_shortens_forward_legs_only_in_the_controller():
    p = RollingParams(c_ff=0.0, k_i=0.0, dv_max=0.5)
    legs = np.array([leg_from_angles(0.3, 0.0), leg_from_angles(0.3, 0.5), leg_from_angles(0.3, P.beta)])
    args = (np.eye(3), np.zeros(3), 0.17)
    c = RollingController(p, legs=legs)
    assert c.step(0.0, *args, np.array([2.0, 0.0, 0.0]), X) == [(0, 33), (1, 33), (2, 33)]   # no v_d
    c.reset()
    fired = dict(c.step(0.0, *args, np.array([2.0, 0.0, 0.5]), X, v_desired=1.0))     # ξ = 1
    assert c.last.xi_brake == 1.0
    assert 0 not in fired                                              # vertex at t_delay: not commanded
    assert fired[1] == quantise_ms(float(brake_valve_time(0.5, 1.0, p)))
    assert 13 < fired[1] < 33 and fired[2] == 33
    c.reset()
    half = dict(c.step(0.0, *args, np.array([0.0, 1.25, 0.0]), X, v_desired=1.0))    # ξ = 0.5 (|v_h|)
    assert c.last.xi_brake == pytest.approx(0.5)
    assert half[0] == quantise_ms(0.5 * (0.033 + 13.16e-3)) == 24


# ----------------------------------------------------------------------------- turning (6.23)–(6.25)
def rolling_omega(direction, rate):
    """Angular velocity of a sphere rolling on the ground toward the horizontal ``direction``."""
    d = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
    return rate * np.cross(-G, d)


@pytest.mark.parametrize("err", [0.3, -0.3, 1.2, -2.5])
def test_heading_error_is_positive_when_rolling_to_the_left_of_the_command(err):
    n = np.cross(X, G)
    d = math.cos(err) * X + math.sin(err) * n                         # err > 0: toward +n, the left
    w = rolling_omega(d, 4.0) + 0.7 * Z                               # plus some yaw, removed by (6.23)
    assert np.cross(w - 0.7 * Z, -G * 0.2) @ d > 0                     # it does roll toward d
    e, hr, m = heading_error(w, X)
    assert np.allclose(hr, d) and m == pytest.approx(4.0)
    assert e == pytest.approx(err, abs=1e-12)
    assert heading_error(0.1 * w, X, omega_min=1.0)[:2] == (0.0, None)


def test_turn_effort_ramp():
    assert turn_effort(0.0, P) == 0.0 and turn_effort(0.1, P) == 0.0
    assert turn_effort(0.785, P) == pytest.approx(1.0) and turn_effort(-0.785, P) == pytest.approx(1.0)
    assert turn_effort((0.1 + 0.785) / 2, P) == pytest.approx(0.5)
    assert turn_effort(-0.3, P) == pytest.approx(0.2 / 0.685)
    assert turn_effort(3.0, P) == 1.0 and turn_effort(0.09, P) == 0.0


def test_turn_adjustments_inside_outside():
    tc = np.array([0.6, -0.6, 0.0, -P.beta, 0.2])
    sup, extra, phi = turn_adjustments(tc, +0.5, 0.5, P)              # rolling left: turn right
    assert sup.tolist() == [True, False, False, False, True]          # inside = right = θ_cor > 0
    assert extra[1] == pytest.approx(0.5 * P.roll_dt_max * (0.6 / P.beta) ** 2)
    assert extra[3] == pytest.approx(0.5 * P.roll_dt_max) and extra[0] == extra[2] == 0.0
    assert phi[3] == pytest.approx(P.phi - 0.5 * P.yaw_dphi_max) and phi[0] == phi[2] == P.phi
    sup, extra, phi = turn_adjustments(tc, +0.5, 0.0, P)               # no effort: no change
    assert not sup.any() and not extra.any() and np.all(phi == P.phi)
    sup, _, _ = turn_adjustments(tc, -0.5, 0.5, RollingParams(turn_policy="yaw"))
    assert not sup.any()


def _turning_setup(policy, err=0.5):
    """Robot rolling 0.5 rad to the left of the +x command, legs symmetric about its rolling plane."""
    n = np.cross(X, G)
    hr = math.cos(err) * X + math.sin(err) * n
    nr = np.cross(hr, G)
    legs = np.array([leg_from_angles(0.3, 0.6, hr, nr), leg_from_angles(0.3, -0.6, hr, nr),
                     leg_from_angles(0.3, -0.05, hr, nr), leg_from_angles(0.3, 0.05, hr, nr)])
    c = RollingController(RollingParams(turn_policy=policy), legs=legs)
    fired = dict(c.step(0.0, np.eye(3), rolling_omega(hr, 3.0), 0.17, np.zeros(3), X))
    return c, fired, hr, nr


def test_turning_redefines_the_basis_and_roll_policy_suppresses_inside_legs():
    c, fired, hr, nr = _turning_setup("roll")
    d = c.last
    xi = (0.5 - 0.1) / (0.785 - 0.1)
    assert d.theta_error == pytest.approx(0.5) and d.xi_turn == pytest.approx(xi)
    assert np.allclose(d.heading, hr)                                  # basis {h_roll, ω̂_proj, g}
    assert d.omega_pitch == pytest.approx(3.0) and d.omega_roll == pytest.approx(0.0, abs=1e-12)
    assert d.theta_cor[0] == pytest.approx(0.6) and d.theta_cor[1] == pytest.approx(-0.6)
    assert 0 not in fired                                              # inside (right) leg held
    assert fired[1] == quantise_ms(P.t_fire + xi * P.roll_dt_max * (0.6 / P.beta) ** 2) > 33
    assert fired[2] == quantise_ms(P.t_fire + xi * P.roll_dt_max * (0.05 / P.beta) ** 2)   # barely
    assert 3 not in fired                                              # just inside: held as well
    push = -(c.legs[1])                                                # outside leg pushes to the right…
    assert push @ nr < 0 and X @ nr < 0                                # …where the command lies
    c0, fired0, _, _ = _turning_setup("none")
    assert c0.last.xi_turn == 0.0 and fired0 and set(fired0.values()) == {33}
    assert np.allclose(c0.last.heading, X)


def test_yaw_policy_fires_outside_large_coronal_legs_earlier():
    cy, _, _, _ = _turning_setup("yaw")
    cn, _, _, _ = _turning_setup("none")
    # the basis differs (h_roll vs h), so compare against the plain firing angle in the rolling basis
    ref, _, _ = firing_angle(cy.last.theta_cor, 0.17, cy.last.omega_pitch, cy.last.omega_roll, P)
    tf = cy.last.theta_fire
    assert tf[1] < ref[1] - 0.05                                       # outside: much earlier
    assert tf[0] == pytest.approx(ref[0], abs=1e-14)                   # inside: unchanged
    assert tf[3] == pytest.approx(ref[3], abs=1e-14)                   # just inside: unchanged
    assert 0 < ref[2] - tf[2] < 0.01 * (ref[1] - tf[1])                # near the plane: barely moved
    assert cn.last.xi_turn == 0.0


def test_small_heading_errors_and_slow_rolling_do_not_turn():
    c, fired, _, _ = _turning_setup("both", err=0.09)
    assert c.last.xi_turn == 0.0 and np.allclose(c.last.heading, X) and len(fired) == 4
    n = np.cross(X, G)
    d = math.cos(1.0) * X + math.sin(1.0) * n
    c = RollingController()
    c.step(0.0, np.eye(3), rolling_omega(d, 0.9 * P.omega_turn_min), 0.17, np.zeros(3), X)
    assert c.last.xi_turn == 0.0 and c.last.theta_error == 0.0


# ------------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("kw,field", [
    (dict(beta=-1.0), "beta"), (dict(beta=1.6), "beta"), (dict(t_fire=0.01), "t_fire"),
    (dict(turn_policy="spin"), "turn_policy"), (dict(theta_hi=0.05), "theta_hi"), (dict(phi=2.0), "phi"),
    (dict(v_extend=0.0), "v_extend"), (dict(h_max=float("nan")), "h_max"), (dict(k_i=-1.0), "k_i"),
    (dict(require_rearm=1), "require_rearm"), (dict(dr_max=0.0), "dr_max")])
def test_invalid_parameters_name_the_field(kw, field):
    with pytest.raises(InputError, match=field):
        RollingParams(**kw)


def test_invalid_inputs():
    with pytest.raises(InputError, match="heading_world"):
        leg_angles(np.eye(3), [0.0, 0.0, 1.0])
    with pytest.raises(InputError, match="heading_world"):
        RollingController().step(0.0, np.eye(3), np.zeros(3), 0.2, np.zeros(3), [0.0, 0.0, -2.0])
    with pytest.raises(InputError, match="legs"):
        RollingController(legs=np.ones((3, 3)))
    with pytest.raises(InputError, match="R"):
        leg_angles(np.eye(2), X)


def test_the_observation_kernel_reads_a_state_vector_into_world_axes():
    """``_tick.observe`` (firing_controller's observation, one compiled call) on random state vectors laid
    out as the RATS engine state (q: position, quaternion (x, y, z, w), 12 legs; v: linear and angular
    velocity in body axes, 12 legs; then the sensors' channels): the rotation against scipy's, omega and
    the centre's velocity turned into world axes, the legs and the sensor channels copied (tests
    test_rats_robot's wiring; this one runs in the no-JIT pass too)."""
    from scipy.spatial.transform import Rotation

    from legsim.robots.rats import _tick

    rng = np.random.default_rng(8)
    accel_at, gyro_at = 40, 45
    for gyro in (-1, gyro_at):
        for _ in range(30):
            x = rng.normal(size=50)
            x[3:7] /= np.linalg.norm(x[3:7])
            x.flags.writeable = False                     # as the engine state a controller reads
            buf = np.full(_tick.OBS_SIZE, np.nan)
            _tick.observe(x, accel_at, gyro, buf)
            views = (buf[a:b] for a, b in _tick.OBS_SLICES)
            accel, position, rotation, omega, velocity, legs, gyro_out = views
            R = Rotation.from_quat(x[3:7]).as_matrix()
            np.testing.assert_allclose(rotation.reshape(3, 3), R, rtol=0, atol=4e-15)  # a few ulp
            np.testing.assert_allclose(omega, R @ x[22:25], rtol=0, atol=1e-14)
            np.testing.assert_allclose(velocity, R @ x[19:22], rtol=0, atol=1e-14)
            np.testing.assert_array_equal(position, x[:3])
            np.testing.assert_array_equal(legs, x[7:19])
            np.testing.assert_array_equal(accel, x[accel_at:accel_at + 3])
            if gyro >= 0:
                np.testing.assert_array_equal(gyro_out, x[gyro_at:gyro_at + 3])
            else:
                assert np.isnan(gyro_out).all()                # no gyro: its slots untouched
