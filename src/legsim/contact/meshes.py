"""Triangle meshes of primitives (closed, outward-oriented) for mesh-shape experiments.

Konyev §2.5.1 compares analytic primitives with their triangle-mesh versions (mesh sphere,
mesh box, mesh capsule). These helpers tessellate convex primitives through their convex hull
(scipy Qhull), which yields a closed, consistently oriented surface.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull

from ..errors import InputError
from .shapes import TriangleMesh

__all__ = ["convex_triangle_mesh", "sphere_mesh", "capsule_mesh", "cone_mesh", "box_mesh", "grid_surface"]


def convex_triangle_mesh(points):
    """Closed TriangleMesh of the convex hull of ``points`` (n, 3) [m], faces outward."""
    P = np.asarray(points, dtype=float)
    hull = ConvexHull(P)
    keep = np.unique(hull.vertices)
    remap = -np.ones(len(P), np.int64)
    remap[keep] = np.arange(len(keep))
    V = P[keep]
    F = remap[hull.simplices]
    c = V.mean(axis=0)
    a, b, cc = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    flip = np.einsum("ij,ij->i", np.cross(b - a, cc - a), a - c) < 0
    F[flip] = F[flip][:, [0, 2, 1]]
    return TriangleMesh(V, F)


def _ring_points(r, nlat, nlon, z0=0.0, hemi=0):
    th = np.linspace(0, np.pi, nlat + 1)
    if hemi > 0:
        th = th[th <= np.pi / 2 + 1e-12]
    elif hemi < 0:
        th = th[th >= np.pi / 2 - 1e-12]
    ph = np.linspace(0, 2 * np.pi, nlon, endpoint=False)
    pts = [[0, 0, z0 + r * np.cos(t)] if np.isclose(np.sin(t), 0) else None for t in th]
    out = []
    for t, p in zip(th, pts, strict=True):
        if p is not None:
            out.append(p)
        else:
            out += [[r * np.sin(t) * np.cos(f), r * np.sin(t) * np.sin(f), z0 + r * np.cos(t)] for f in ph]
    return out


def sphere_mesh(radius, nlat=12, nlon=24):
    """UV-sphere TriangleMesh of ``radius`` [m] (vertices on the sphere)."""
    if not radius > 0:
        raise InputError(f"sphere_mesh radius {radius!r}: expected > 0 m")
    return convex_triangle_mesh(_ring_points(radius, nlat, nlon))


def capsule_mesh(radius, half_length, nlat=12, nlon=24):
    """Capsule TriangleMesh (axis z, segment half-length ``half_length``) [m]."""
    if not (radius > 0 and half_length > 0):
        raise InputError(f"capsule_mesh radius={radius!r}, half_length={half_length!r}: expected > 0 m")
    top = _ring_points(radius, nlat, nlon, half_length, hemi=1)
    bot = _ring_points(radius, nlat, nlon, -half_length, hemi=-1)
    return convex_triangle_mesh(top + bot)


def cone_mesh(radius, half_length, nseg=24):
    """Cone TriangleMesh (apex at z = +half_length, base z = -half_length) [m], ``nseg`` rim vertices.

    Vertices lie on the cone (apex and rim), so the mesh is inscribed: against a plane its
    deepest point is shallower than the analytic cone's by at most r (1 - cos(pi / nseg)) [m].
    """
    if not (radius > 0 and half_length > 0):
        raise InputError(f"cone_mesh radius={radius!r}, half_length={half_length!r}: expected > 0 m")
    if int(nseg) < 3:
        raise InputError(f"cone_mesh nseg={nseg!r}: expected at least 3 rim vertices")
    a = np.linspace(0.0, 2.0 * np.pi, int(nseg), endpoint=False)
    rim = np.c_[radius * np.cos(a), radius * np.sin(a), np.full(len(a), -half_length)]
    return convex_triangle_mesh(np.vstack([[0.0, 0.0, half_length], rim]))


def box_mesh(half_extents):
    """Box TriangleMesh with ``half_extents`` (3,) [m] (12 triangles)."""
    h = np.asarray(half_extents, dtype=float)
    if h.shape != (3,) or np.any(h <= 0):
        raise InputError(f"box_mesh half_extents {half_extents!r}: expected 3 lengths > 0 m")
    return convex_triangle_mesh([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)] * h)


def grid_surface(height, size, n):
    """(vertices, faces) of a square grid surface z = height(x, y) of side ``size`` [m], n x n cells."""
    xs = np.linspace(-size / 2, size / 2, n + 1)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    V = np.c_[X.ravel(), Y.ravel(), np.asarray(height(X, Y), dtype=float).ravel()]
    F = []
    for i in range(n):
        for j in range(n):
            a = i * (n + 1) + j
            F += [[a, a + n + 1, a + n + 2], [a, a + n + 2, a + 1]]
    return V, np.array(F, dtype=np.int64)
