"""Acceptance test A9 (digest §7.4, Konyev §2.5.1): six primitives on a triangle-mesh surface at Ts = 0.1 ms.

Analytic sphere, mesh sphere, box, analytic capsule, mesh capsule and cylinder (1 kg each) are
dropped on a gently undulating triangle surface and integrated at a fixed 0.1 ms step with the
(2.20) normal law and (2.21) anchor friction. All stay stable and their vertical reaction
settles to m g; the analytic shapes oscillate less than their meshed twins (the seed's
qualitative ranking). The single-witness (SOLID) mode reproduces the oscillating box.

The source's full ranking (§2.5.1: the analytic sphere is the steadiest *and* the fastest of all
shapes) is measured per shape alone (``case.a9_alone``, 1.5 s at Ts = 0.1 ms, late window 1–1.5 s):
it holds in the thesis's single-witness mode, and not with legsim's multi-point manifolds on the
undulating surface (see the tests' docstrings for the numbers and why).
"""

import numpy as np
import pytest

from legsim.contact import (
    Box,
    LawTable,
    RigidWorld,
)
from legsim.validation import contact as case  # measurements shared with `legsim report`

G = 9.81
LAW = case.a9_law()


def _surface():
    return case.a9_surface()


def test_six_primitives_on_a_mesh_surface_are_stable_and_carry_their_weight():
    # analytic sphere, mesh sphere, box, analytic capsule, mesh capsule, cylinder (1 kg each)
    res = case.a9_scene()
    assert np.all(np.isfinite(res.pos))
    late = res.t > 1.0
    fz = res.contact_force[late, :, 2]
    np.testing.assert_allclose(fz.mean(axis=0), G, rtol=0.01)
    assert np.all(res.pos[-1, :, 2] > 0.0)  # nothing fell through the surface
    std = fz.std(axis=0)
    assert std[0] < std[1]  # analytic sphere steadier than the mesh sphere
    assert std[3] < std[4]  # analytic capsule steadier than the mesh capsule


def _box_run(single):
    w = RigidWorld(LawTable(1, LAW), capacity=64, single=single)
    w.scene.add(_surface())
    w.add_solid(Box((0.1, 0.08, 0.06)), mass=1.0, pos=(0.3, 0.2, 0.1))
    return w.simulate(0.8, 1e-4, record_every=10)


def test_single_witness_mode_reproduces_the_oscillating_box_of_the_source():
    multi = _box_run(False)
    single = _box_run(True)
    late = multi.t > 0.5
    for res in (multi, single):
        assert np.all(np.isfinite(res.pos))
        assert res.contact_force[late, 0, 2].mean() == pytest.approx(G, rel=0.03)
    assert single.ncontact[late].max() == 1
    assert multi.ncontact[late].min() >= 3
    assert single.contact_force[late, 0, 2].std() > 10 * multi.contact_force[late, 0, 2].std()


def _std(r):
    return {k: v["std"] for k, v in r.items()}


def test_single_witness_mode_ranks_the_analytic_sphere_steadiest_and_fastest():
    """Thesis mode (one contact pair per shape pair, as SOLID returned): the source's ranking holds.

    Measured (late F_z std [N] | CPU s for 1.5 s, two runs of session 32): analytic sphere 0.015 |
    0.15-0.19, mesh sphere 1.6 | 0.37-0.53, box 0.85 | 1.6-2.4, analytic capsule 0.12 | 1.1-1.6, mesh
    capsule 0.93 | 3.1-4.5, cylinder 0.50 | 1.8-2.0. The single witness of a mesh, box or capsule is the
    deepest of the GJK/EPA pairs with the surface triangles that the shape may touch (within its bounding
    sphere, not wholly above the triangle's plane) and jumps between features; the analytic sphere's is
    its centre's nearest triangle. The CPU margin (2.5-2.8x over the mesh sphere, the next fastest) is
    asserted at 2x: the source ranks, it gives no times. (Before session 32 every triangle under the
    bounding sphere's square went through GJK/EPA, as often as grid cells listed it: the others took
    8-25x longer, with the same results to the bit.) The single-witness box also carries its weight only
    to 1.2 % (9.69 N mean).
    """
    r = case.a9_alone(True)
    std = _std(r)
    sphere = case.A9_SHAPES[0]
    assert all(std[sphere] < 0.2 * s for k, s in std.items() if k != sphere)
    assert all(v["contacts"] == 1.0 for v in r.values())
    assert all(r[sphere]["cpu"] < 0.5 * v["cpu"] for k, v in r.items() if k != sphere)
    for v in r.values():
        assert v["mean"] == pytest.approx(G, rel=0.015)


def test_multi_point_manifolds_do_not_reproduce_the_ranking_on_the_undulating_surface():
    """legsim's multi-point manifolds on the undulating surface: not the source's ranking.

    Measured (late F_z std [N]): box 7.7e-13, analytic capsule 0.0115, analytic sphere 0.015, mesh
    sphere 0.54, mesh capsule 0.55, cylinder 1.7. Why: no contact law here resists rolling, and the
    surface is never level, so the analytic sphere (0.13 m/s) and capsule (0.11 m/s) keep rolling over
    the facets of the triangle surface, each facet edge a small change of normal; the box settles on
    three corners and its force is constant to rounding. The analytic shapes still beat their meshed
    twins (40x). CPU (s for 1.5 s): analytic sphere 0.056, capsule 0.12, box 0.095, cylinder 0.12,
    mesh capsule 0.26, mesh sphere 0.54: the sphere is the fastest here too, by less than 2x, which a
    shared machine does not separate reliably, so it is reported, not asserted.
    """
    r = case.a9_alone(False)
    std = _std(r)
    sphere, box = case.A9_SHAPES[0], case.A9_SHAPES[2]
    assert min(std, key=lambda k: std[k]) == box  # the source's ranking is not reproduced
    assert std[box] < 1e-9 and r[box]["speed"] < 1e-9  # the box rests
    assert r[sphere]["speed"] > 0.05  # the sphere rolls
    assert std[sphere] < std["mesh sphere"] / 10 and std["analytic capsule"] < std["mesh capsule"] / 10
    # the whole scene (six shapes together) measures the same
    res = case.a9_scene()
    late = res.t > 1.0
    scene_std = res.contact_force[late, :, 2].std(axis=0)
    np.testing.assert_allclose(scene_std, [std[k] for k in case.A9_SHAPES], rtol=1e-6, atol=1e-9)


def test_on_a_flat_triangle_surface_the_analytic_sphere_force_is_constant():
    """Multi-point manifolds on a flat triangle surface (the same 40 x 40 grid at z = 0): every shape
    rests; the analytic sphere's (and the mesh sphere's) single contact gives m g to round-off, the
    multi-point box, capsules and cylinder 2e-11 to 9e-11 N: the ranking holds, with a tie.

    Round-off: std 0.0 in a serial run, 1.8e-15 N (one ulp of 9.81 N) once in a pytest-xdist worker of a
    CI run; the bound is a few ulp, four orders under the multi-point shapes."""
    std = _std(case.a9_alone(False, "flat"))
    sphere, mesh_sphere = case.A9_SHAPES[0], case.A9_SHAPES[1]
    ulp = np.spacing(9.81)
    assert std[sphere] <= 4 * ulp and std[mesh_sphere] <= 4 * ulp
    multi = [s for k, s in std.items() if k not in (sphere, mesh_sphere)]
    assert all(1e3 * 4 * ulp < s < 1e-9 for s in multi)
