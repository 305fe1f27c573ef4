"""The cone, analytic and meshed (issue 21 §3; digest §7.1 item 1: "cylinder, cone, convex polytope").

Analytic ``Cone(r, h)``: apex at z = +h, base disc of radius r at z = -h, support function for
GJK/EPA, apex + base-rim candidates against terrain. ``cone_mesh``: its inscribed triangle mesh
through the mesh path. Checked against a dense point sampling of the cone (support), closed forms
(lowest point on a plane, point-to-cone distance for a sphere) and each other (faceting bound).
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from legsim.contact import (
    Cone,
    ContactLaw,
    LawTable,
    Plane,
    RigidWorld,
    Scene,
    Sphere,
    collide,
    convex_distance,
    make_contacts,
    mass_properties,
    restitution,
)
from legsim.contact import _geom as G
from legsim.contact.meshes import cone_mesh
from legsim.errors import InputError

RNG = np.random.default_rng(21)
R_C, H_C = 0.08, 0.06  # cone base radius and half-length [m]
NSEG = 32  # rim vertices of the meshed cone
FACET = R_C * (1.0 - math.cos(math.pi / NSEG))  # largest gap between the cone and its inscribed mesh [m]


def _sv(model):
    return (model.gtype, model.gsize, model.gvadr, model.gvnum, model.vert, model.gfadr, model.face)


def _support(model, g, pos, rot, d):
    out = np.zeros(3)
    G.support(_sv(model), g, -1, pos, rot, np.asarray(d, float), False, out)
    return out


def _cone_samples(n_rim=3600, n_gen=60):
    """Points on the cone's surface: apex, base rim, lateral surface and base disc (local frame)."""
    a = np.linspace(0.0, 2 * np.pi, n_rim, endpoint=False)
    rim = np.c_[R_C * np.cos(a), R_C * np.sin(a), np.full(n_rim, -H_C)]
    apex = np.array([[0.0, 0.0, H_C]])
    s = np.linspace(0.0, 1.0, n_gen)[:, None, None]
    lateral = (apex[None] * (1 - s) + rim[None, ::10] * s).reshape(-1, 3)
    disc = (rim[None, ::10] * s * np.array([1, 1, 0]) + np.array([0, 0, -H_C])).reshape(-1, 3)
    return np.vstack([apex, rim, lateral, disc])


def test_cone_support_matches_a_dense_sampling_of_the_cone():
    s = Scene()
    s.add(Cone(R_C, H_C), body=0)
    model = s.compile()
    pts = _cone_samples()
    # the sampling misses the true support by at most r (1 - cos(pi / 3600)) along the rim
    miss = R_C * (1 - math.cos(math.pi / 3600))
    dirs = list(RNG.normal(size=(300, 3))) + [np.array(d, float) for d in
                                              ([0, 0, 1], [0, 0, -1], [1, 0, 0], [0, 1, -1e-9])]
    for d in dirs:
        Rm = Rotation.random(random_state=RNG).as_matrix()
        p = RNG.uniform(-1, 1, 3)
        sp = _support(model, 0, p, Rm, d)
        world = p + pts @ Rm.T
        best = np.max(world @ d)
        assert sp @ d == pytest.approx(best, abs=miss * np.linalg.norm(d) + 1e-12)
        assert sp @ d >= best - 1e-12 * np.linalg.norm(d)  # never below a point of the cone
        # and the support point is a point of the cone: the apex or on the base rim
        loc = Rm.T @ (sp - p)
        on_apex = np.allclose(loc, [0, 0, H_C], atol=1e-14)
        on_base = abs(loc[2] + H_C) < 1e-14 and np.hypot(loc[0], loc[1]) <= R_C + 1e-14
        assert on_apex or on_base


def test_cone_mass_properties_match_its_triangle_mesh():
    m, com, inertia = mass_properties(Cone(R_C, H_C), 1000.0)
    assert m == pytest.approx(1000.0 * math.pi * R_C**2 * 2 * H_C / 3, rel=1e-14)
    np.testing.assert_allclose(com, [0, 0, -H_C / 2], atol=1e-15)  # a quarter of the height up
    mm, mcom, minertia = mass_properties(cone_mesh(R_C, H_C, nseg=720), 1000.0)
    assert mm == pytest.approx(m, rel=1e-4)  # inscribed 720-gon: area ratio sin(2pi/720)/(2pi/720)
    np.testing.assert_allclose(mcom, com, atol=1e-12)
    np.testing.assert_allclose(minertia, inertia, rtol=1e-3, atol=1e-12)


def _plane_contacts(shape, R, p, single, plane=None):
    s = Scene()
    s.add(plane if plane is not None else Plane())
    s.add(shape, body=0)
    model = s.compile()
    c = make_contacts(model, 64, single)
    n = collide(model, np.array([np.zeros(3), p]), np.array([np.eye(3), R]), c)
    order = np.argsort(-c.depth[:n])
    return c.depth[:n][order], c.normal[:n][order], c.pos[:n][order]


@pytest.mark.parametrize("single", [False, True])
def test_cone_standing_on_its_base_or_on_its_apex_touches_the_plane_exactly(single):
    delta = 1e-3
    # on its base: the base disc sinks by delta; multi-point: the NRIM rim samples, single: one pair
    depth, normal, _ = _plane_contacts(Cone(R_C, H_C), np.eye(3), np.array([0.3, -0.2, H_C - delta]), single)
    assert len(depth) == (1 if single else G.NRIM)
    np.testing.assert_allclose(depth, delta, rtol=1e-12)
    np.testing.assert_allclose(normal, [[0, 0, 1]] * len(depth), atol=0)
    # upside down on its apex: one contact, the apex
    flip = Rotation.from_euler("x", 180, degrees=True).as_matrix()
    depth, normal, pos = _plane_contacts(Cone(R_C, H_C), flip, np.array([0.0, 0.0, H_C - delta]), single)
    assert len(depth) == 1
    assert depth[0] == pytest.approx(delta, rel=1e-12)
    np.testing.assert_allclose(pos[0], [0, 0, -delta / 2], atol=1e-15)  # midway between the surfaces


@pytest.mark.parametrize("theta", [0.3, 1.2, math.pi / 2 + math.atan(R_C / (2 * H_C)), 2.6, 3.0])
@pytest.mark.parametrize("single", [False, True])
def test_tilted_cone_depth_is_the_closed_form_lowest_point(theta, single):
    # tilted by theta about x: world height of the apex h cos(theta), of the lowest rim point
    # -r |sin(theta)| - h cos(theta); the rim sample at 270 deg is that point, so both modes are exact
    pz = -min(H_C * math.cos(theta), -R_C * abs(math.sin(theta)) - H_C * math.cos(theta)) - 2e-3
    R = Rotation.from_euler("x", theta).as_matrix()
    apex = pz + H_C * math.cos(theta)
    rim = pz - R_C * abs(math.sin(theta)) - H_C * math.cos(theta)
    expected = -min(apex, rim)
    assert expected == pytest.approx(2e-3, abs=1e-15)
    depth, normal, _ = _plane_contacts(Cone(R_C, H_C), R, np.array([0.0, 0.0, pz]), single)
    assert depth[0] == pytest.approx(expected, abs=1e-15)
    np.testing.assert_allclose(normal, [[0, 0, 1]] * len(depth), atol=0)
    if not single and abs(apex - rim) < 1e-12:  # lying on a generator: apex and rim both touch
        assert len(depth) == 2 and depth[1] == pytest.approx(expected, abs=1e-15)


def test_single_witness_cone_on_an_inclined_plane_is_the_lowest_point_along_the_normal():
    n = np.array([-math.sin(0.4), 0.0, math.cos(0.4)])
    plane = Plane(tuple(n), 0.0)
    pts = _cone_samples()
    for _ in range(20):
        R = Rotation.random(random_state=RNG).as_matrix()
        p = n * 0.05 + np.array([0.1, 0.2, 0.0])
        expected = -np.min((p + pts @ R.T) @ n)
        if expected <= 0:
            continue
        depth, normal, _ = _plane_contacts(Cone(R_C, H_C), R, p, True, plane)
        # the sampling of the base rim is fine to r (1 - cos(pi/3600)) = 3e-8 m
        assert depth[0] == pytest.approx(expected, abs=4e-8)
        assert depth[0] >= expected - 1e-15
        np.testing.assert_allclose(normal[0], n, atol=1e-15)


def test_meshed_cone_agrees_with_the_analytic_cone_within_its_faceting():
    for _ in range(40):
        R = Rotation.random(random_state=RNG).as_matrix()
        p = np.array([0.0, 0.0, RNG.uniform(0.0, 0.06)])
        for single in (True, False):
            da, _, _ = _plane_contacts(Cone(R_C, H_C), R, p, single)
            dm, nm, _ = _plane_contacts(cone_mesh(R_C, H_C, NSEG), R, p, single)
            if single or len(da):
                a = da[0] if len(da) else 0.0
                b = dm[0] if len(dm) else 0.0
                if single:
                    # the mesh is inscribed: never deeper, shallower by at most the facet gap
                    assert a - FACET - 1e-15 <= b <= a + 1e-15
                else:
                    # multi-point: NRIM = 8 rim samples vs 32 vertices; both within the facet gaps
                    assert abs(a - b) <= R_C * (1 - math.cos(math.pi / G.NRIM)) + 1e-15


def _point_cone_distance(q):
    """Closed-form distance [m] from a point q (3,) outside the cone (local frame) to the cone:
    the 2-D distance of (rho, z) to the half cross-section's slant and base edges."""
    rho, z = math.hypot(q[0], q[1]), q[2]

    def seg(a, b):
        a, b, x = np.asarray(a), np.asarray(b), np.array([rho, z])
        t = np.clip((x - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
        return float(np.linalg.norm(x - a - t * (b - a)))

    return min(seg((0.0, H_C), (R_C, -H_C)), seg((R_C, -H_C), (0.0, -H_C)))


def _inside_cone(q):
    rho, z = math.hypot(q[0], q[1]), q[2]
    return -H_C <= z <= H_C and rho <= R_C * (H_C - z) / (2 * H_C)


def test_gjk_distance_between_a_cone_and_a_sphere_matches_the_closed_form():
    rs = 0.03
    s = Scene()
    s.add(Cone(R_C, H_C), body=0)
    s.add(Sphere(rs), body=1)
    s.add(cone_mesh(R_C, H_C, NSEG), body=2)
    model = s.compile()
    checked = 0
    while checked < 60:
        q = RNG.uniform(-0.2, 0.2, 3)
        if _inside_cone(q) or _point_cone_distance(q) < rs + 1e-3:
            continue
        R = Rotation.random(random_state=RNG).as_matrix()
        p = RNG.uniform(-1, 1, 3)
        gpos = np.array([p, p + R @ q, p])
        grot = np.array([R, np.eye(3), R])
        d = convex_distance(model, 0, 1, gpos, grot)
        expected = _point_cone_distance(q) - rs
        assert d["distance"] == pytest.approx(expected, abs=1e-9)
        # witness points: on the sphere, and the normal points from the cone to the sphere centre
        assert np.linalg.norm(d["p2"] - gpos[1]) == pytest.approx(rs, abs=1e-9)
        np.testing.assert_allclose(d["p2"] - d["p1"], expected * d["normal"], atol=1e-9)
        # the meshed cone: never closer, farther by at most its facet gap
        dm = convex_distance(model, 2, 1, gpos, grot)["distance"]
        assert expected - 1e-9 <= dm <= expected + FACET + 1e-9
        checked += 1


def test_cone_standing_on_a_plane_rests_on_its_weight():
    w = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.5))))
    w.add_solid(Cone(R_C, H_C), mass=1.0, pos=(0.0, 0.0, H_C / 2 + 1e-3))  # body frame at the CoM
    w.scene.add(Plane())
    res = w.simulate(0.5, 1e-4, record_every=50)
    assert res.contact_force[-1, 0, 2] == pytest.approx(9.81, rel=1e-6)
    assert res.ncontact[-1] == G.NRIM
    # the weight shared by the NRIM rim contacts: each sinks by m g / (NRIM k)
    assert res.pos[-1, 0, 2] == pytest.approx(H_C / 2 - 9.81 / (G.NRIM * 1e5), abs=1e-9)


def test_bad_cone_input_raises_input_error():
    with pytest.raises(InputError, match="radius"):
        Cone(-1.0, 0.1)
    with pytest.raises(InputError, match="half_length"):
        Cone(0.1, float("nan"))
    with pytest.raises(InputError, match="nseg"):
        cone_mesh(0.1, 0.1, nseg=2)
