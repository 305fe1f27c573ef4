"""GJK distance and EPA depth against analytic results and scipy ConvexHull references (digest §7.1)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from legsim.contact import Box, Capsule, ConvexMesh, Scene, Sphere, collide, convex_distance, make_contacts

RNG = np.random.default_rng(7)


def _model(*shapes):
    s = Scene()
    for i, sh in enumerate(shapes):
        s.add(sh, body=i)
    return s.compile()


def test_sphere_box_distance_and_depth_match_the_analytic_point_box_distance():
    h = np.array([0.3, 0.2, 0.1])
    r = 0.05
    m = _model(Sphere(r), Box(h))
    for _ in range(60):
        R = Rotation.random(random_state=RNG).as_matrix()
        c_local = RNG.uniform(-0.5, 0.5, 3)
        q = np.abs(c_local) - h
        outside = np.linalg.norm(np.maximum(q, 0.0))
        expected = outside - r if outside > 0 else -(r + np.min(h - np.abs(c_local)))
        gpos = np.array([R @ c_local, np.zeros(3)])
        grot = np.array([np.eye(3), R])
        d = convex_distance(m, 0, 1, gpos, grot)
        assert d["distance"] == pytest.approx(expected, abs=1e-7)
        # the normal separates: moving the box by depth along the normal ends the contact
        if expected < 0:
            gpos2 = gpos.copy()
            gpos2[1] += (-expected + 1e-6) * d["normal"]
            assert convex_distance(m, 0, 1, gpos2, grot)["distance"] > 0


def test_box_box_distance_and_depth_match_the_aligned_box_formulas():
    a = np.array([0.2, 0.3, 0.1])
    b = np.array([0.1, 0.1, 0.25])
    m = _model(Box(a), Box(b))
    for _ in range(60):
        R = Rotation.random(random_state=RNG).as_matrix()
        off = RNG.uniform(-0.6, 0.6, 3)
        gap = np.abs(off) - (a + b)
        if np.all(gap < 0):
            expected = -np.min(-gap)
        else:
            expected = np.linalg.norm(np.maximum(gap, 0.0))
        gpos = np.array([np.zeros(3), R @ off])
        grot = np.array([R, R])
        d = convex_distance(m, 0, 1, gpos, grot)
        assert d["distance"] == pytest.approx(expected, abs=1e-7)


def _qp_distance(A, B):
    """Distance between hulls by a QP over convex weights (scipy SLSQP)."""
    na = len(A)
    nb = len(B)

    def f(x):
        d = x[:na] @ A - x[na:] @ B
        return d @ d

    cons = [
        {"type": "eq", "fun": lambda x: np.sum(x[:na]) - 1},
        {"type": "eq", "fun": lambda x: np.sum(x[na:]) - 1},
    ]
    x0 = np.r_[np.full(na, 1 / na), np.full(nb, 1 / nb)]
    res = minimize(
        f,
        x0,
        bounds=[(0, 1)] * (na + nb),
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-16, "maxiter": 500},
    )
    return np.sqrt(max(res.fun, 0.0))


def test_gjk_distance_between_random_convex_hulls_matches_a_quadratic_program():
    for _ in range(12):
        A = RNG.normal(size=(12, 3)) * [0.2, 0.1, 0.15]
        B = RNG.normal(size=(10, 3)) * [0.1, 0.2, 0.1]
        off = RNG.normal(size=3)
        off *= RNG.uniform(0.5, 1.0) / np.linalg.norm(off)
        m = _model(ConvexMesh(A), ConvexMesh(B))
        d = convex_distance(m, 0, 1, np.array([np.zeros(3), off]), np.array([np.eye(3)] * 2))
        ref = _qp_distance(A, B + off)
        if ref > 1e-6:
            assert d["distance"] == pytest.approx(ref, abs=1e-6)
            assert np.linalg.norm(d["p2"] - d["p1"]) == pytest.approx(ref, abs=1e-6)


def test_epa_depth_of_overlapping_hulls_matches_the_minkowski_difference_hull():
    for _ in range(12):
        A = RNG.normal(size=(12, 3)) * 0.2
        B = RNG.normal(size=(10, 3)) * 0.2
        off = RNG.normal(size=3) * 0.05
        m = _model(ConvexMesh(A), ConvexMesh(B))
        d = convex_distance(m, 0, 1, np.array([np.zeros(3), off]), np.array([np.eye(3)] * 2))
        A_ = m.vert[m.gvadr[0] : m.gvadr[0] + m.gvnum[0]]
        B_ = m.vert[m.gvadr[1] : m.gvadr[1] + m.gvnum[1]] + off
        hull = ConvexHull((A_[:, None, :] - B_[None, :, :]).reshape(-1, 3))
        depth = np.min(-hull.equations[:, 3])
        assert depth > 0
        assert -d["distance"] == pytest.approx(depth, rel=1e-5, abs=1e-7)


def _segment_distance_bruteforce(p, q, u, v):
    s = np.linspace(0, 1, 801)
    P = p + s[:, None] * (q - p)
    Q = u + s[:, None] * (v - u)
    return np.min(np.linalg.norm(P[:, None, :] - Q[None, :, :], axis=2))


def test_capsule_pairs_use_exact_segment_distances_in_the_analytic_and_gjk_paths():
    m = _model(Capsule(0.05, 0.2), Capsule(0.04, 0.1))
    c = make_contacts(m, 8)
    for _ in range(20):
        R1 = Rotation.random(random_state=RNG).as_matrix()
        R2 = Rotation.random(random_state=RNG).as_matrix()
        p2 = RNG.uniform(-0.25, 0.25, 3)
        gpos = np.array([np.zeros(3), p2])
        grot = np.array([R1, R2])
        seg = _segment_distance_bruteforce(
            R1[:, 2] * 0.2, -R1[:, 2] * 0.2, p2 + R2[:, 2] * 0.1, p2 - R2[:, 2] * 0.1
        )
        expected = seg - 0.09
        d = convex_distance(m, 0, 1, gpos, grot)
        if abs(expected) > 1e-3:
            assert d["distance"] == pytest.approx(expected, abs=2e-4)  # brute-force grid resolution
        n = collide(m, gpos, grot, c)
        if expected < -1e-3:
            assert n == 1 and c.depth[0] == pytest.approx(-expected, abs=2e-4)
        elif expected > 1e-3:
            assert n == 0


def test_sphere_pair_contact_has_unit_normal_from_first_to_second_geom():
    m = _model(Sphere(0.1), Sphere(0.2))
    c = make_contacts(m, 4)
    n = collide(m, np.array([[0, 0, 0], [0.25, 0, 0.0]]), np.array([np.eye(3)] * 2), c)
    assert n == 1
    assert c.depth[0] == pytest.approx(0.05)
    np.testing.assert_allclose(c.normal[0] * np.sign(c.geom[0, 1] - c.geom[0, 0]), [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(c.pos[0], [0.075, 0, 0], atol=1e-12)


def test_cylinder_resting_on_a_box_face_has_the_overlap_as_epa_depth():
    from legsim.contact import Cylinder

    m = _model(Cylinder(0.05, 0.1), Box((0.3, 0.3, 0.1)))
    for delta in (1e-3, 2e-2):
        gpos = np.array([[0.02, -0.05, 0.1 + 0.1 - delta], [0.0, 0.0, 0.0]])
        d = convex_distance(m, 0, 1, gpos, np.array([np.eye(3)] * 2))
        assert d["distance"] == pytest.approx(-delta, abs=1e-7)
        np.testing.assert_allclose(d["normal"], [0, 0, -1], atol=1e-6)
