"""Triangle meshes of primitives (closed, outward-oriented) for mesh-shape experiments.

Konyev §2.5.1 compares analytic primitives with their triangle-mesh versions (mesh sphere,
mesh box, mesh capsule). These helpers tessellate convex primitives through their convex hull
(scipy Qhull), which yields a closed, consistently oriented surface.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_whole
from .shapes import MAX_LENGTH, ConvexMesh, TriangleMesh, _pos

MAX_DIVISIONS = 1000
"""The most rings, segments or grid cells along one direction of a tessellation (a sphere of 1000 x 1000
vertices is already a million points)."""

__all__ = ["convex_triangle_mesh", "sphere_mesh", "capsule_mesh", "cone_mesh", "box_mesh", "grid_surface",
           "MAX_DIVISIONS"]


def convex_triangle_mesh(points):
    """Closed TriangleMesh of the convex hull of ``points`` (n, 3) [m], faces outward (a
    :class:`~.shapes.ConvexMesh`'s hull, as a triangle mesh)."""
    try:
        hull = ConvexMesh(points)
    except InputError as exc:
        raise InputError(f"convex_triangle_mesh: 'points': {exc}") from None
    return TriangleMesh(hull.vertices, hull.faces)


def _primitive(owner: str, points, **sizes) -> TriangleMesh:
    """:func:`convex_triangle_mesh` of a primitive's points; a degenerate hull (one size far below the
    other, e.g. a cone 1e-159 m tall) is an :class:`InputError` naming the sizes."""
    try:
        return convex_triangle_mesh(points)
    except InputError as exc:
        given = ", ".join(f"{k} = {v!r}" for k, v in sizes.items())
        raise InputError(f"{owner}: {given}: no solid mesh ({exc})") from None


def _counts(owner: str, **counts) -> list[int]:
    """Tessellation counts as whole numbers in [3, MAX_DIVISIONS], else an :class:`InputError`."""
    return [check_whole(owner, name, n, 3, MAX_DIVISIONS) for name, n in counts.items()]


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
    radius = _pos("radius", radius)
    nlat, nlon = _counts("sphere_mesh", nlat=nlat, nlon=nlon)
    return _primitive("sphere_mesh", _ring_points(radius, nlat, nlon), radius=radius)


def capsule_mesh(radius, half_length, nlat=12, nlon=24):
    """Capsule TriangleMesh (axis z, segment half-length ``half_length``) [m]."""
    radius, half_length = _pos("radius", radius), _pos("half_length", half_length)
    nlat, nlon = _counts("capsule_mesh", nlat=nlat, nlon=nlon)
    top = _ring_points(radius, nlat, nlon, half_length, hemi=1)
    bot = _ring_points(radius, nlat, nlon, -half_length, hemi=-1)
    return _primitive("capsule_mesh", top + bot, radius=radius, half_length=half_length)


def cone_mesh(radius, half_length, nseg=24):
    """Cone TriangleMesh (apex at z = +half_length, base z = -half_length) [m], ``nseg`` rim vertices.

    Vertices lie on the cone (apex and rim), so the mesh is inscribed: against a plane its
    deepest point is shallower than the analytic cone's by at most r (1 - cos(pi / nseg)) [m].
    """
    radius, half_length = _pos("radius", radius), _pos("half_length", half_length)
    (nseg,) = _counts("cone_mesh", nseg=nseg)
    a = np.linspace(0.0, 2.0 * np.pi, nseg, endpoint=False)
    rim = np.c_[radius * np.cos(a), radius * np.sin(a), np.full(len(a), -half_length)]
    return _primitive("cone_mesh", np.vstack([[0.0, 0.0, half_length], rim]), radius=radius,
                      half_length=half_length)


def box_mesh(half_extents):
    """Box TriangleMesh with ``half_extents`` (3,) [m] (12 triangles)."""
    h = as_floats(half_extents)
    if h.shape != (3,):
        raise InputError(f"box_mesh: 'half_extents' = {half_extents!r}: expected 3 lengths [m]")
    h = np.array([_pos(f"half_extents[{i}]", v) for i, v in enumerate(h)])
    return _primitive("box_mesh", [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)] * h,
                      half_extents=h.tolist())


def grid_surface(height, size, n):
    """(vertices, faces) of a square grid surface z = height(x, y) of side ``size`` [m], n x n cells;
    ``height`` takes and returns arrays (n + 1, n + 1) [m]."""
    if not callable(height):
        raise InputError(f"grid_surface: 'height' = {height!r}, expected a function height(x, y) [m]")
    size = _pos("size", size)
    n = check_whole("grid_surface", "n", n, 1, MAX_DIVISIONS)
    xs = np.linspace(-size / 2, size / 2, n + 1)
    X, Y = np.meshgrid(xs, xs, indexing="ij")
    Z = as_floats(height(X, Y))
    if Z.shape not in ((), X.shape) or not np.all(np.abs(Z) <= MAX_LENGTH):
        raise InputError(f"grid_surface: 'height' gave {Z.shape} values: expected {X.shape} heights within "
                         f"±MAX_LENGTH = {MAX_LENGTH:g} m")
    V = np.c_[X.ravel(), Y.ravel(), np.broadcast_to(Z, X.shape).ravel()]
    F = []
    for i in range(n):
        for j in range(n):
            a = i * (n + 1) + j
            F += [[a, a + n + 1, a + n + 2], [a, a + n + 2, a + 1]]
    return V, np.array(F, dtype=np.int64)
