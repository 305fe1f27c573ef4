"""Terrain narrow phase, manifolds vs single witness pair, broad phase, mesh checks (digest §1.3, §7.1)."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from legsim.contact import (
    Box,
    Capsule,
    ConvexMesh,
    Cylinder,
    HeightField,
    HeightFunction,
    Plane,
    Scene,
    Sphere,
    TerrainMesh,
    TriangleMesh,
    collide,
    inclined_plane,
    make_contacts,
)
from legsim.errors import InputError

RNG = np.random.default_rng(3)


def _one(shape, terrain, pos, rot=None, single=False, cap=64):
    s = Scene()
    s.add(terrain)
    s.add(shape, body=0)
    m = s.compile()
    c = make_contacts(m, cap, single)
    gpos = np.array([np.zeros(3), pos], dtype=float)
    grot = np.array([np.eye(3), np.eye(3) if rot is None else rot])
    n = collide(m, gpos, grot, c)
    return n, c


def test_box_flat_on_a_plane_gives_four_corner_contacts_or_one_witness_pair():
    n, c = _one(Box((0.2, 0.1, 0.05)), Plane(), [0.3, -0.2, 0.05 - 1e-3])
    assert n == 4
    np.testing.assert_allclose(c.depth[:4], 1e-3, atol=1e-15)
    np.testing.assert_allclose(np.sort(c.pos[:4, 0]), [0.1, 0.1, 0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(c.normal[:4], [[0, 0, 1]] * 4)
    n1, c1 = _one(Box((0.2, 0.1, 0.05)), Plane(), [0.3, -0.2, 0.05 - 1e-3], single=True)
    assert n1 == 1 and c1.depth[0] == pytest.approx(1e-3)


def test_capsule_lying_on_a_plane_gives_two_end_contacts_and_standing_gives_one():
    R = Rotation.from_euler("y", 90, degrees=True).as_matrix()
    n, c = _one(Capsule(0.05, 0.2), Plane(), [0, 0, 0.049], R)
    assert n == 2
    np.testing.assert_allclose(np.sort(c.pos[:2, 0]), [-0.2, 0.2], atol=1e-12)
    np.testing.assert_allclose(c.depth[:2], 1e-3, atol=1e-12)
    n, c = _one(Capsule(0.05, 0.2), Plane(), [0, 0, 0.249])
    assert n == 1 and c.depth[0] == pytest.approx(1e-3)


def test_tilted_cylinder_single_witness_is_the_deepest_rim_point():
    R = Rotation.from_euler("x", 30, degrees=True).as_matrix()
    r, h = 0.1, 0.2
    lowest = -(h * math.cos(math.radians(30)) + r * math.sin(math.radians(30)))
    n, c = _one(Cylinder(r, h), Plane(), [0, 0, -lowest - 2e-3], R, single=True)
    assert n == 1 and c.depth[0] == pytest.approx(2e-3, abs=1e-12)
    n, c = _one(Cylinder(r, h), Plane(), [0, 0, h - 1e-3])
    assert n == 8  # bottom rim samples of an upright cylinder


def test_inclined_plane_contact_normal_is_the_plane_normal():
    th = 0.3
    p = inclined_plane(th)
    nrm = np.array([-math.sin(th), 0, math.cos(th)])
    n, c = _one(Sphere(0.1), p, nrm * 0.099 + [0.0, 0.5, 0.0])
    assert n == 1
    np.testing.assert_allclose(c.normal[0], nrm, atol=1e-12)
    assert c.depth[0] == pytest.approx(1e-3, abs=1e-12)


def test_convex_mesh_on_a_plane_reports_each_vertex_below_it():
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * 0.1
    n, c = _one(ConvexMesh(cube), Plane(), [0, 0, 0.099])
    assert n == 4
    np.testing.assert_allclose(c.depth[:4], 1e-3, atol=1e-12)


def test_planar_heightfield_gives_the_same_contact_as_the_equivalent_plane():
    a, b = 0.2, -0.1  # h = a x + b y is reproduced exactly by bilinear interpolation
    x = np.linspace(-1, 1, 11)
    y = np.linspace(-1, 1, 21)
    H = a * x[:, None] + b * y[None, :]
    hf = HeightField(H, dx=0.2, dy=0.1, origin=(-1.0, -1.0))
    nrm = np.array([-a, -b, 1.0]) / math.sqrt(1 + a * a + b * b)
    centre = np.array([0.13, 0.27, a * 0.13 + b * 0.27]) + nrm * 0.098
    n, c = _one(Sphere(0.1), hf, centre)
    assert n == 1
    np.testing.assert_allclose(c.normal[0], nrm, atol=1e-9)
    assert c.depth[0] == pytest.approx(2e-3, abs=1e-9)


def test_height_function_bump_contact_at_the_crest_points_straight_up():
    hfun = HeightFunction("bump", (0.1, 0.5, 0.5, 0.2))
    n, c = _one(Sphere(0.05), hfun, [0.5, 0.5, 0.1 + 0.05 - 4e-3])
    assert n == 1
    np.testing.assert_allclose(c.normal[0], [0, 0, 1], atol=1e-12)
    assert c.depth[0] == pytest.approx(4e-3, rel=1e-9)


def test_height_function_sine_slope_normal_matches_the_gradient():
    A, k = 0.05, 2.0
    hfun = HeightFunction("sines", (A, k, 0.0, 0.0))
    n, c = _one(Box((0.02, 0.02, 0.02)), hfun, [0.0, 0.0, 0.01])  # slope A k at x = 0
    assert n >= 1
    expected = np.array([-A * k, 0, 1]) / math.sqrt(1 + (A * k) ** 2)
    assert np.min(np.linalg.norm(c.normal[:n] - expected, axis=1)) < 5e-3


def test_height_functions_too_narrow_or_too_large_for_finite_slopes_are_refused():
    """Before session 40 a bump of width sigma = 1e-300 m was accepted and its compiled height divided
    by zero (sigma^2 underflows: ZeroDivisionError at its crest), a step of width 1e-300 m under a 1e300 m
    rise had an infinite slope, and a kind given as a list was a TypeError (unhashable)."""
    for kind, params in (("bump", (0.1, 0.0, 0.0, 1e-300)), ("step", (1e300, 0.0, 1e-300)),
                         ("step", (0.1, 0.0, 0.5e-6)), ("sines", (0.05, 1e7, 0.0, 0.0))):
        with pytest.raises(InputError, match=f"HeightFunction '{kind}': 'params'"):
            HeightFunction(kind, params)
    with pytest.raises(InputError, match="'kind' = \\['bump'\\], expected one of"):
        HeightFunction(["bump"], (0.1, 0.0, 0.0, 0.2))
    with pytest.raises(InputError, match="'params' = 'abc', expected 4 numbers"):
        HeightFunction("bump", "abc")
    narrow = HeightFunction("bump", (0.1, 0.0, 0.0, 1e-6))  # MIN_WIDTH: finite height and slope
    assert narrow.height(0.0, 0.0) == 0.1 and narrow.height(1e-6, 0.0) == pytest.approx(0.1 * math.exp(-0.5))


def _grid_mesh(nx=8, ny=8, size=2.0, z=lambda x, y: 0.0 * x):
    xs = np.linspace(-size / 2, size / 2, nx + 1)
    ys = np.linspace(-size / 2, size / 2, ny + 1)
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    V = np.c_[X.ravel(), Y.ravel(), z(X, Y).ravel()]
    F = []
    for i in range(nx):
        for j in range(ny):
            a = i * (ny + 1) + j
            F += [[a, a + ny + 1, a + ny + 2], [a, a + ny + 2, a + 1]]
    return V, np.array(F)


def test_terrain_mesh_gives_one_contact_per_sphere_even_on_shared_edges():
    V, F = _grid_mesh()
    tm = TerrainMesh(V, F)
    for xy in ([0.1, 0.13], [0.0, 0.0], [0.25, 0.25]):  # face interior, grid vertex, diagonal edge
        n, c = _one(Sphere(0.1), tm, [*xy, 0.097])
        assert n == 1
        assert c.depth[0] == pytest.approx(3e-3, abs=1e-12)
        np.testing.assert_allclose(c.normal[0], [0, 0, 1], atol=1e-12)


def test_box_on_a_terrain_mesh_gets_a_four_point_manifold_or_one_epa_pair():
    V, F = _grid_mesh()
    tm = TerrainMesh(V, F)
    n, c = _one(Box((0.2, 0.15, 0.05)), tm, [0.05, 0.02, 0.05 - 1e-3])
    assert n == 4
    np.testing.assert_allclose(c.depth[:4], 1e-3, atol=1e-12)
    n, c = _one(Box((0.2, 0.15, 0.05)), tm, [0.05, 0.02, 0.05 - 1e-3], single=True)
    assert n == 1
    assert c.depth[0] == pytest.approx(1e-3, abs=1e-7)
    np.testing.assert_allclose(c.normal[0], [0, 0, 1], atol=1e-6)


def test_open_triangle_mesh_body_is_rejected_with_a_clear_error():
    V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2]])  # tetrahedron missing a face
    with pytest.raises(InputError, match="not closed"):
        TriangleMesh(V, F)
    F_bad = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 3, 2]])  # last face flipped inward
    with pytest.raises(InputError, match="oriented"):
        TriangleMesh(V, F_bad)
    TriangleMesh(V, np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]))  # closed: accepted


def test_degenerate_convex_mesh_and_bad_indices_are_rejected():
    with pytest.raises(InputError, match="degenerate"):
        ConvexMesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float))
    with pytest.raises(InputError, match="index"):
        TerrainMesh(np.zeros((3, 3)), np.array([[0, 1, 5]]))
    with pytest.raises(InputError, match="radius"):
        Sphere(-1.0)


@pytest.mark.parametrize("N", [40, 150])  # 40: sweep-and-prune path; 150: hash-grid path
def test_broad_phase_finds_exactly_the_overlapping_sphere_pairs(N):
    r = RNG.uniform(0.02, 0.06, N)
    P = RNG.uniform(0, (N / 150) ** (1 / 3), (N, 3))
    s = Scene()
    for i in range(N):
        s.add(Sphere(r[i]), body=i)
    m = s.compile()
    c = make_contacts(m, 2000)
    grot = np.array([np.eye(3)] * N)
    for _ in range(3):  # repeated calls exercise the time-coherent insertion sort
        P += RNG.normal(0, 0.05, P.shape)
        n = collide(m, P, grot, c)
        D = np.linalg.norm(P[:, None] - P[None], axis=2)
        expected = np.sum(np.triu(D < r[:, None] + r[None, :], 1))
        assert n == expected


def test_geoms_of_one_body_and_filtered_pairs_do_not_collide():
    s = Scene()
    s.add(Sphere(0.1), body=0)
    s.add(Sphere(0.1), body=0, pos=(0.05, 0, 0))
    s.add(Sphere(0.1), body=1, contype=2, conaffinity=2)
    m = s.compile()
    c = make_contacts(m, 8)
    n = collide(m, np.array([[0, 0, 0], [0.05, 0, 0], [0.1, 0, 0]]), np.array([np.eye(3)] * 3), c)
    assert n == 0


def test_terrain_attached_to_a_body_or_buffer_overflow_raise_input_errors():
    s = Scene()
    with pytest.raises(InputError, match="body -1"):
        s.add(Plane(), body=0)
    s.add(Plane())
    s.add(Box((0.1, 0.1, 0.1)), body=0)
    m = s.compile()
    c = make_contacts(m, 2)
    with pytest.raises(InputError, match="overflow"):
        collide(m, np.array([[0, 0, 0.0], [0, 0, 0.05]]), np.array([np.eye(3)] * 2), c)
