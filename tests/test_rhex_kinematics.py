"""Hexapod leg kinematics, leg forces and terrain (SimSect digest §4.3–§4.5, §4.11; §6.3 items 8, 14)."""

import math

import numpy as np
import pytest

from legsim.robots.rhex import _hooks, build_model
from legsim.robots.rhex._kinematics import (
    leg_basis,
    leg_cart,
    leg_polar,
    leg_rates,
    leg_vectors,
    radial_force,
    toe_force_body,
)
from legsim.robots.rhex.params import P_AX, X_POS, X_R, X_TOE, X_TOEV, X_VEL, X_W
from legsim.robots.rhex.terrain import HeightField, terrain_height, terrain_normal, terrain_params


def _rotation(rng):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


def _random_state(rng, model):
    """A state with a random body pose/velocity and toes around the hips."""
    x = model.state()
    r = _rotation(rng)
    x[X_R:X_R + 9] = r.ravel()
    x[X_W:X_W + 3] = rng.normal(size=3)
    x[X_POS:X_POS + 3] = rng.normal(size=3)
    x[X_VEL:X_VEL + 3] = rng.normal(size=3)
    p = model.params()
    for i in range(6):
        a = np.array([p[P_AX + i], p[P_AX + 6 + i], p[P_AX + 12 + i]])
        v = np.array(leg_cart(rng.uniform(0.1, 0.3), rng.uniform(-0.5, 0.5), rng.uniform(-2.5, 2.5)))
        x[X_TOE + 3 * i:X_TOE + 3 * i + 3] = r @ (v + a) + x[X_POS:X_POS + 3]
        x[X_TOEV + 3 * i:X_TOEV + 3 * i + 3] = rng.normal(size=3)
    return x, p


def test_toe_to_leg_vector_to_spherical_coordinates_and_back_round_trips():
    rng = np.random.default_rng(1)
    model = build_model()
    for _ in range(20):
        x, p = _random_state(rng, model)
        r = x[X_R:X_R + 9].reshape(3, 3)
        for i in range(6):
            vx, vy, vz, *_ = leg_vectors(x, p, i)
            rho, th, ph = leg_polar(vx, vy, vz)
            np.testing.assert_allclose(leg_cart(rho, th, ph), (vx, vy, vz), atol=1e-14)
            # f = R (V + a) + r_b (digest §4.3)
            a = np.array([p[P_AX + i], p[P_AX + 6 + i], p[P_AX + 12 + i]])
            f = r @ (np.array([vx, vy, vz]) + a) + x[X_POS:X_POS + 3]
            np.testing.assert_allclose(f, x[X_TOE + 3 * i:X_TOE + 3 * i + 3], atol=1e-14)


def test_vertical_leg_has_zero_angles_and_a_forward_toe_has_positive_phi():
    assert leg_polar(0.0, 0.0, -0.2) == pytest.approx((0.2, 0.0, 0.0))
    assert leg_polar(0.0, 0.1, -0.1)[2] == pytest.approx(math.pi / 4)
    assert leg_polar(0.1, 0.0, -0.1)[1] == pytest.approx(math.pi / 4)


def test_projection_matrix_is_orthonormal_and_its_columns_are_the_coordinate_directions():
    rng = np.random.default_rng(2)
    for _ in range(50):
        th, ph = rng.uniform(-1.4, 1.4), rng.uniform(-math.pi, math.pi)
        b = np.array(leg_basis(th, ph)).reshape(3, 3)
        np.testing.assert_allclose(b.T @ b, np.eye(3), atol=1e-14)
        # columns: dV/drho, (1/rho) dV/dtheta, (1/(rho cos th)) dV/dphi  (finite differences)
        e = 1e-6
        d_rho = (np.array(leg_cart(1 + e, th, ph)) - np.array(leg_cart(1 - e, th, ph))) / (2 * e)
        d_th = (np.array(leg_cart(1, th + e, ph)) - np.array(leg_cart(1, th - e, ph))) / (2 * e)
        d_ph = (np.array(leg_cart(1, th, ph + e)) - np.array(leg_cart(1, th, ph - e))) / (2 * e)
        np.testing.assert_allclose(b[:, 0], d_rho, atol=1e-8)
        np.testing.assert_allclose(b[:, 1], d_th, atol=1e-8)
        np.testing.assert_allclose(b[:, 2], d_ph / math.cos(th), atol=1e-8)


def test_leg_rates_match_finite_differences_of_the_leg_coordinates_along_the_motion():
    rng = np.random.default_rng(3)
    model = build_model()
    x, p = _random_state(rng, model)
    xd = np.zeros_like(x)
    # kinematic motion only: Rdot = hat(w) R, rdot, fdot (use the vector field with all legs in flight)
    _hooks.vector_field(0.0, x, p, 0, xd)
    e = 1e-6
    for i in range(6):
        rates = leg_rates(*leg_vectors(x, p, i)[:6])
        plus = leg_polar(*leg_vectors(x + e * xd, p, i)[:3])
        minus = leg_polar(*leg_vectors(x - e * xd, p, i)[:3])
        np.testing.assert_allclose(rates[3:], (np.array(plus) - np.array(minus)) / (2 * e), rtol=1e-5,
                                   atol=1e-6)


def test_toe_force_moment_about_the_hip_axis_equals_the_hip_torque():
    rng = np.random.default_rng(4)
    for _ in range(30):
        rho, th, ph = rng.uniform(0.1, 0.3), rng.uniform(-1, 1), rng.uniform(-3, 3)
        f_rho, t_th, t_ph = rng.normal(size=3) * 10
        v = np.array(leg_cart(rho, th, ph))
        f = np.array(toe_force_body(rho, th, ph, f_rho, t_th, t_ph))
        m = np.cross(v, f)
        # the hip (phi) axis is the body x axis; the lateral (theta) axis is -e_phi
        e_phi = np.array(leg_basis(th, ph)).reshape(3, 3)[:, 2]
        assert m[0] == pytest.approx(t_ph, abs=1e-12)
        assert m @ (-e_phi) == pytest.approx(t_th, abs=1e-12)
        assert f @ v / rho == pytest.approx(f_rho, abs=1e-12)


def test_body_torque_from_the_vector_field_equals_the_toe_forces_transported_to_the_com():
    """T = (V + a) x F summed over the stance legs gives the angular-momentum rate (digest §4.4, §4.6)."""
    rng = np.random.default_rng(5)
    model = build_model()
    x, p = _random_state(rng, model)
    x[X_W:X_W + 3] = 0.0                      # no gyroscopic term: J_W wdot = T
    mode = 0b111111
    xd = np.zeros_like(x)
    _hooks.vector_field(0.0, x, p, mode, xd)
    torque = np.zeros(3)
    force = np.zeros(3)
    for i in range(6):
        fw = np.array(_hooks.leg(x, p, mode, i)[:3])  # force of leg on toe, W
        f = x[X_TOE + 3 * i:X_TOE + 3 * i + 3]
        torque += np.cross(f - x[X_POS:X_POS + 3], -fw)
        force += -fw
    r = x[X_R:X_R + 9].reshape(3, 3)
    j = p[model.param_names.index("J_11"):][:9].reshape(3, 3)
    np.testing.assert_allclose(r @ j @ r.T @ xd[X_W:X_W + 3], torque, rtol=1e-10, atol=1e-10)
    m = p[model.param_names.index("body_mass")]
    g = p[model.param_names.index("gravity")]
    np.testing.assert_allclose(m * xd[X_VEL:X_VEL + 3], force + [0, 0, -m * g], rtol=1e-12, atol=1e-10)


def test_radial_law_is_a_spring_damper_below_the_extension_limit_and_continuous_at_it():
    k, d, r0 = 500.0, 10.0, 0.2
    assert radial_force(0.18, 0.1, k, d, r0, 0.2, 5.0, 0.005) == pytest.approx(500 * 0.02 - 1.0)
    below = radial_force(0.2 - 1e-12, 0.0, k, d, r0, 0.2, 5.0, 0.005)
    above = radial_force(0.2 + 1e-12, 0.0, k, d, r0, 0.2, 5.0, 0.005)
    assert above == pytest.approx(below, abs=1e-8)
    # past the limit the exponential pulls the toe in: K (e^1 - 1) extra at one scale length
    extra = radial_force(0.205, 0.0, k, d, r0, 0.2, 5.0, 0.005) - (-k * 0.005)
    assert extra == pytest.approx(-5.0 * (math.e - 1))


def test_terrain_heights_and_normals_match_table_3_analytically():
    m = build_model()
    rng = np.random.default_rng(6)
    pts = rng.uniform(-1, 1, size=(20, 2))
    a1, a2, a3 = 0.05, 3.0, 2.0
    p = m.params(terrain_params("sinusoidal", a1, a2, a3))
    for x, y in pts:
        h = a1 * math.sin(a2 * x) * math.cos(a3 * y)
        hx = a1 * a2 * math.cos(a2 * x) * math.cos(a3 * y)
        hy = -a1 * a3 * math.sin(a2 * x) * math.sin(a3 * y)
        n = np.array([-hx, -hy, 1.0]) / math.sqrt(1 + hx * hx + hy * hy)
        assert terrain_height(p, x, y) == pytest.approx(h, abs=1e-15)
        np.testing.assert_allclose(terrain_normal(p, x, y), n, atol=1e-15)
    p = m.params(terrain_params("sloped", 0.1, 0.2, 0.05))
    assert terrain_height(p, 0.5, 1.0) == pytest.approx(0.1 * 0.5 + 0.2 + 0.05)
    assert terrain_height(p, 0.5, -1.0) == pytest.approx(0.05)
    np.testing.assert_allclose(terrain_normal(p, 0.5, 1.0), np.array([-0.1, -0.2, 1]) / math.sqrt(1.05))
    # Table 3 is discontinuous across y = 0 when a1 != 0; the continuous variant is not
    jump = terrain_height(p, 0.5, 1e-12) - terrain_height(p, 0.5, -1e-12)
    assert jump == pytest.approx(0.05, abs=1e-9)
    pc = m.params(terrain_params("sloped_continuous", 0.1, 0.2, 0.05))
    assert terrain_height(pc, 0.5, 1e-12) - terrain_height(pc, 0.5, -1e-12) == pytest.approx(0, abs=1e-9)
    assert terrain_height(m.params(), 0.3, 0.4) == 0.0
    np.testing.assert_allclose(terrain_normal(m.params(), 0.3, 0.4), [0, 0, 1])


def test_heightfield_interpolates_bilinearly_and_reproduces_a_plane_exactly():
    xs = np.arange(5) * 0.25 - 0.5
    ys = np.arange(4) * 0.25 - 0.5
    z = 0.1 * xs[None, :] - 0.2 * ys[:, None] + 0.03
    hf = HeightField(z, x0=-0.5, y0=-0.5, dx=0.25, dy=0.25)
    m = build_model(heightfield=hf, terrain_type=4)
    p = m.params()
    for x, y in [(-0.4, -0.3), (0.1, 0.2), (0.49, 0.24)]:
        assert terrain_height(p, x, y) == pytest.approx(0.1 * x - 0.2 * y + 0.03, abs=1e-14)
        np.testing.assert_allclose(terrain_normal(p, x, y), np.array([-0.1, 0.2, 1]) / math.sqrt(1.05),
                                   atol=1e-13)
    # a bump in one cell: value at the cell centre is the mean of its corners
    z2 = np.zeros((3, 3))
    z2[1, 1] = 1.0
    p2 = build_model(heightfield=HeightField(z2, 0, 0, 1, 1), terrain_type=4).params()
    assert terrain_height(p2, 0.5, 0.5) == pytest.approx(0.25)


def test_a_heightfield_header_that_does_not_describe_its_grid_is_refused_before_the_lookup_reads_past_it():
    """The compiled lookup reads hf_nx * hf_ny heights without bounds checks: a header larger than the grid
    after it (a scenario's hf_nx = 1000 on a 3 x 3 grid, or on a model without one) is refused by the model,
    terrain_height and terrain_normal, naming the header; a terrain code of NaN is refused as a code."""
    from legsim.errors import InputError
    from legsim.robots.rhex.terrain import check_terrain_code

    m = build_model(heightfield=HeightField(np.zeros((3, 3)), 0, 0, 1, 1), terrain_type=4)
    for bad in ({"hf_nx": 1000.0}, {"hf_ny": 2.0}, {"hf_nx": 2.5}, {"hf_dx": 0.0}):
        with pytest.raises(InputError, match="'hf_nx' = .*the header of the model's heightfield of 9"):
            m.params(bad)
        p = m.params()
        for name, value in bad.items():
            p[m.param_names.index(name)] = value
        with pytest.raises(InputError, match="expected the header"):
            terrain_height(p, 0.5, 0.5)
        with pytest.raises(InputError, match="expected the header"):
            terrain_normal(p, 0.5, 0.5)
    with pytest.raises(InputError, match="needs a model built with"):
        build_model().params({"terrain_type": 4, "hf_nx": 1000.0, "hf_ny": 1000.0})
    with pytest.raises(InputError, match="'terrain_type' = nan"):
        check_terrain_code(float("nan"))
