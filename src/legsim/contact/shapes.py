"""Collision shapes and terrains (Konyev 2011 §2.3; digest §1.3, §7.1 item 1).

Shapes are described in their own frame (SI, metres); the caller places them with world poses
(position (3,), rotation (3, 3)). Capsules, cylinders and cones have their axis along local z.
Terrains are static and live in the world frame (heightfields and height functions are z-up).

Every constructor validates its input and raises :class:`~legsim.errors.InputError` naming the
value and what was expected. :func:`mass_properties` gives mass, centre of mass and inertia of a
solid shape of uniform density (used by the small rigid-body helper and by tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, as_float, as_floats, check_array, check_number, shown
from . import _geom as G

__all__ = [
    "Sphere",
    "Capsule",
    "Box",
    "Cylinder",
    "Cone",
    "ConvexMesh",
    "TriangleMesh",
    "Plane",
    "HeightFunction",
    "HeightField",
    "TerrainMesh",
    "inclined_plane",
    "mass_properties",
    "check_closed_mesh",
    "MAX_LENGTH",
    "MIN_WIDTH",
]


MAX_LENGTH = 1e6
"""The largest length or coordinate [m] a shape takes: the collision kernels square lengths, and scipy's
Qhull, which builds a convex mesh's hull, crashed the process on a sphere of points 1e200 m out."""

MIN_WIDTH = 1.0 / MAX_LENGTH
"""The narrowest bump or step of a :class:`HeightFunction` [m] (1 µm): the terrain's slope (A / sigma,
H / w) then stays finite (a bump of width 1e-300 m divided by zero in the compiled height)."""


def _pos(name, v):
    x = as_float(v)
    if not 0.0 < x <= MAX_LENGTH:
        raise InputError(f"shape parameter '{name}' = {v!r}: expected a length in (0, MAX_LENGTH = "
                         f"{MAX_LENGTH:g}] m")
    return x


def _points(name, v, ncols=3):
    a = as_floats(v)
    if a.ndim != 2 or a.shape[1] != ncols or not np.all(np.abs(a) <= MAX_LENGTH):
        raise InputError(f"'{name}' has shape {np.shape(v)}: expected an (n, {ncols}) array of coordinates "
                         f"within ±MAX_LENGTH = {MAX_LENGTH:g} m")
    return np.ascontiguousarray(a)


@dataclass(frozen=True)
class Sphere:
    """Sphere of ``radius`` [m] about the origin."""

    radius: float
    code = G.G_SPHERE

    def __post_init__(self):
        object.__setattr__(self, "radius", _pos("radius", self.radius))


@dataclass(frozen=True)
class Capsule:
    """Capsule: segment z in [-half_length, half_length] swept by a sphere of ``radius`` [m]."""

    radius: float
    half_length: float
    code = G.G_CAPSULE

    def __post_init__(self):
        object.__setattr__(self, "radius", _pos("radius", self.radius))
        object.__setattr__(self, "half_length", _pos("half_length", self.half_length))


@dataclass(frozen=True)
class Box:
    """Box with ``half_extents`` (hx, hy, hz) [m] about the origin."""

    half_extents: tuple
    code = G.G_BOX

    def __post_init__(self):
        h = tuple(_pos(f"half_extents[{i}]", v) for i, v in enumerate(np.ravel(self.half_extents)))
        if len(h) != 3:
            raise InputError(f"Box 'half_extents' = {self.half_extents!r}: expected 3 lengths")
        object.__setattr__(self, "half_extents", h)


@dataclass(frozen=True)
class Cylinder:
    """Solid cylinder of ``radius`` [m], axis z, z in [-half_length, half_length]."""

    radius: float
    half_length: float
    code = G.G_CYLINDER

    def __post_init__(self):
        object.__setattr__(self, "radius", _pos("radius", self.radius))
        object.__setattr__(self, "half_length", _pos("half_length", self.half_length))


@dataclass(frozen=True)
class Cone:
    """Solid cone of base ``radius`` [m], axis z: apex at z = +half_length, base disc at
    z = -half_length (centred on its axis midpoint like SOLID's DT_NewCone; digest §1.3, §7.1).

    Its centre of mass is at z = -half_length / 2 (:func:`mass_properties`).
    """

    radius: float
    half_length: float
    code = G.G_CONE

    def __post_init__(self):
        object.__setattr__(self, "radius", _pos("radius", self.radius))
        object.__setattr__(self, "half_length", _pos("half_length", self.half_length))


@dataclass(frozen=True, eq=False)
class ConvexMesh:
    """Convex polytope: the convex hull of ``vertices`` (n, 3) [m]; only hull vertices are kept."""

    vertices: np.ndarray
    faces: np.ndarray = field(init=False)
    code = G.G_CONVEX

    def __post_init__(self):
        from scipy.spatial import ConvexHull, QhullError

        v = _points("ConvexMesh vertices", self.vertices)
        if len(v) < 4:
            raise InputError(f"ConvexMesh has {len(v)} vertices: expected at least 4 non-coplanar points")
        try:
            hull = ConvexHull(v)
        except QhullError as exc:
            raise InputError(f"ConvexMesh vertices are degenerate (coplanar or collinear): "
                             f"{str(exc).strip().splitlines()[0]}") from None
        keep = np.unique(hull.vertices)
        remap = -np.ones(len(v), dtype=np.int64)
        remap[keep] = np.arange(len(keep))
        faces = remap[hull.simplices]
        verts = v[keep]
        # orient faces outward
        c = verts.mean(axis=0)
        a, b, cc = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
        flip = np.einsum("ij,ij->i", np.cross(b - a, cc - a), a - c) < 0
        faces[flip] = faces[flip][:, [0, 2, 1]]
        object.__setattr__(self, "vertices", verts)
        object.__setattr__(self, "faces", faces)


def check_closed_mesh(vertices, faces, name="TriangleMesh"):
    """Raise InputError unless the mesh is closed and consistently oriented (2-manifold).

    Every directed edge (a, b) must appear in exactly one face and its reverse (b, a) in
    exactly one other face; faces must not be degenerate. ``vertices`` (n, 3) [m], ``faces`` (m, 3)
    vertex indices; ``name`` says whose mesh it is in the messages.
    """
    nv = len(_points(f"{name} vertices", vertices))
    f = _faces(f"{name} faces", faces, nv)
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    key = edges[:, 0] * (nv + 1) + edges[:, 1]
    uniq, counts = np.unique(key, return_counts=True)
    if np.any(counts > 1):
        bad = uniq[counts > 1][0]
        a, b = divmod(int(bad), nv + 1)
        raise InputError(
            f"{name} faces are not a consistently oriented 2-manifold: edge ({a}, {b}) is used by "
            f"{counts[counts > 1][0]} faces in the same direction (expected 1)"
        )
    rev = edges[:, 1] * (nv + 1) + edges[:, 0]
    missing = ~np.isin(rev, uniq)
    if np.any(missing):
        a, b = edges[np.argmax(missing)]
        raise InputError(
            f"{name} faces are not closed: edge ({a}, {b}) has no opposite face "
            f"(a body mesh must be watertight; use TerrainMesh for open surfaces)"
        )


def _faces(name, faces, nv):
    """``faces`` as an (m, 3) int64 array of distinct indices into ``nv`` vertices."""
    a = as_floats(faces)
    if a.ndim != 2 or a.shape[1] != 3 or len(a) == 0:
        raise InputError(f"'{name}' has shape {np.shape(faces)}: expected an (m, 3) integer array")
    if not np.all((a >= 0) & (a < nv) & (a == np.floor(a))):  # NaN fails all three
        bad = a[~((a >= 0) & (a < nv) & (a == np.floor(a)))][0]
        raise InputError(f"'{name}' indexes vertex {shown(bad.item())}: expected whole numbers 0 <= index < "
                         f"{nv} (the number of vertices)")
    f = np.ascontiguousarray(a, dtype=np.int64)
    if np.any((f[:, 0] == f[:, 1]) | (f[:, 1] == f[:, 2]) | (f[:, 0] == f[:, 2])):
        raise InputError(f"'{name}' has a degenerate face (repeated vertex index)")
    return f


@dataclass(frozen=True, eq=False)
class TriangleMesh:
    """Closed triangle mesh (body shape), outward-oriented faces (m, 3) over vertices (n, 3).

    Must be watertight (:func:`check_closed_mesh`). Against terrain its vertices are the contact
    candidates (exact for convex meshes); against other bodies GJK/EPA uses its convex hull.
    """

    vertices: np.ndarray
    faces: np.ndarray
    code = G.G_MESH

    def __post_init__(self):
        v = _points("TriangleMesh vertices", self.vertices)
        f = _faces("TriangleMesh faces", self.faces, len(v))
        check_closed_mesh(v, f)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "faces", f)


# ---- terrains --------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Plane:
    """Half-space {x : n . x <= offset}; ``normal`` (3,) points out of the ground."""

    normal: tuple = (0.0, 0.0, 1.0)
    offset: float = 0.0
    code = G.G_PLANE

    def __post_init__(self):
        try:
            n = np.asarray(self.normal, dtype=float).ravel()
        except (TypeError, ValueError):
            n = np.zeros(0)
        if n.shape != (3,) or not np.all(np.isfinite(n)) or np.abs(n).max() < 1e-12:
            raise InputError(f"Plane 'normal' = {self.normal!r}: expected a non-zero 3-vector")
        if np.abs(n).max() > 1e150:  # first to the unit cube: the norm of a 1e154 component overflows
            n = n / np.abs(n).max()
        object.__setattr__(self, "normal", tuple(n / np.linalg.norm(n)))
        offset = as_float(self.offset)
        if not math.isfinite(offset):
            raise InputError(f"Plane 'offset' = {self.offset!r}: expected a finite number [m]")
        object.__setattr__(self, "offset", offset)


def inclined_plane(angle, through=(0.0, 0.0, 0.0)):
    """Plane through ``through`` rising along +x at ``angle`` [rad]: normal (-sin a, 0, cos a)."""
    a = as_float(angle)
    if not (-math.pi / 2 < a < math.pi / 2):
        raise InputError(f"inclined_plane 'angle' = {angle!r}: expected -pi/2 < angle < pi/2 rad")
    n = np.array([-math.sin(a), 0.0, math.cos(a)])
    p = check_array("inclined_plane", "through", through, (3,), "m")
    if not np.all(np.abs(p) <= MAX_LENGTH):
        raise InputError(f"inclined_plane: through = {p.tolist()}: expected coordinates within ±MAX_LENGTH = "
                         f"{MAX_LENGTH:g} m")
    return Plane(tuple(n), float(n @ p))


HEIGHT_KINDS = {"sines": G.HF_SINES, "bump": G.HF_BUMP, "step": G.HF_STEP}


@dataclass(frozen=True, eq=False)
class HeightFunction:
    """Analytic terrain z = h(x, y) (compiled; ``kind`` and parameter array).

    kinds and ``params``:
      "sines": groups (a, kx, ky, phase): h = sum a sin(kx x + ky y + phase)  [m, rad/m, rad]
      "bump":  (A, x0, y0, sigma): h = A exp(-((x-x0)^2 + (y-y0)^2) / (2 sigma^2))
      "step":  (H, x0, w): smooth step h = H (1 + tanh((x - x0)/w)) / 2

    Heights and positions (a, A, H, x0, y0) [m], phases [rad] and wave numbers kx, ky [rad/m] lie within
    ±MAX_LENGTH, the widths sigma, w [m] in [MIN_WIDTH, MAX_LENGTH].
    """

    kind: str
    params: tuple
    code = G.G_HFUNC

    def __post_init__(self):
        o = "HeightFunction"
        if not (isinstance(self.kind, str) and self.kind in HEIGHT_KINDS):
            raise InputError(f"{o}: 'kind' = {shown(self.kind)}, expected one of {sorted(HEIGHT_KINDS)}")
        p = as_floats(self.params).ravel()
        need = {"sines": None, "bump": 4, "step": 3}[self.kind]
        if (need is None and (len(p) == 0 or len(p) % 4)) or (need is not None and len(p) != need):
            raise InputError(f"{o} '{self.kind}': 'params' = {shown(self.params)}, expected "
                             f"{'groups of 4 numbers' if need is None else f'{need} numbers'}")
        width = {"sines": None, "bump": 3, "step": 2}[self.kind]  # the index of the width, if any
        if not np.all(np.abs(p) <= MAX_LENGTH):  # NaN fails too
            raise InputError(f"{o} '{self.kind}': 'params' = {shown(self.params)}, expected finite numbers "
                             f"within ±MAX_LENGTH = {MAX_LENGTH:g}")
        if width is not None and not p[width] >= MIN_WIDTH:
            raise InputError(f"{o} '{self.kind}': 'params' width = {float(p[width])!r} m, expected a width "
                             f"in [MIN_WIDTH = {MIN_WIDTH:g}, MAX_LENGTH = {MAX_LENGTH:g}] m")
        object.__setattr__(self, "params", tuple(p))

    def height(self, x, y) -> np.ndarray:
        """h(x, y) [m] at points of any shape (the compiled :func:`~legsim.contact._geom.height_at`)."""
        data = np.asarray(self.params, dtype=float)
        return _heights(data, HEIGHT_KINDS[self.kind], data.size, 0, 0, 1.0, 1.0, x, y)


@dataclass(frozen=True, eq=False)
class HeightField:
    """Grid terrain: ``heights`` (nx, ny) [m] at x0 + i dx, y0 + j dy, bilinear in between."""

    heights: np.ndarray
    dx: float
    dy: float
    origin: tuple = (0.0, 0.0)
    code = G.G_HFIELD

    def __post_init__(self):
        h = np.ascontiguousarray(as_floats(self.heights))
        if h.ndim != 2 or min(h.shape) < 2 or not np.all(np.abs(h) <= MAX_LENGTH):
            raise InputError(
                f"HeightField 'heights' shape {np.shape(self.heights)}: expected an (nx >= 2, ny >= 2) array "
                f"of heights within ±MAX_LENGTH = {MAX_LENGTH:g} m"
            )
        object.__setattr__(self, "heights", h)
        object.__setattr__(self, "dx", _pos("dx", self.dx))
        object.__setattr__(self, "dy", _pos("dy", self.dy))
        origin = as_floats(self.origin).ravel()
        if origin.shape != (2,) or not np.all(np.abs(origin) <= MAX_LENGTH):
            raise InputError(f"HeightField 'origin' = {self.origin!r}: expected (x0, y0) within "
                             f"±MAX_LENGTH = {MAX_LENGTH:g} m")
        object.__setattr__(self, "origin", tuple(float(v) for v in origin))

    def height(self, x, y) -> np.ndarray:
        """h(x, y) [m] at points of any shape: bilinear in the grid, the border's values outside."""
        data = np.concatenate([self.origin, self.heights.ravel()])
        nx, ny = self.heights.shape
        return _heights(data, G.HF_GRID, data.size, nx, ny, self.dx, self.dy, x, y)


def _heights(data, kind, n, nx, ny, dx, dy, x, y) -> np.ndarray:
    """The compiled terrain height at every point of ``x``, ``y`` (broadcast) [m]."""
    X, Y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    out = np.empty(X.shape)
    grad = np.empty(2)
    for i, (a, b) in enumerate(zip(X.ravel(), Y.ravel(), strict=True)):
        out.flat[i] = G.height_at(data, 0, kind, n, nx, ny, dx, dy, a, b, grad)
    return out


@dataclass(frozen=True, eq=False)
class TerrainMesh:
    """Open triangle surface (the thesis' "triangle network"), world frame, normals facing up.

    ``cell`` [m] is the size of the uniform xy grid that accelerates triangle queries
    (default: twice the mean edge length).
    """

    vertices: np.ndarray
    faces: np.ndarray
    cell: float = 0.0
    code = G.G_TMESH

    def __post_init__(self):
        v = _points("TerrainMesh vertices", self.vertices)
        f = _faces("TerrainMesh faces", self.faces, len(v))
        nz = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])[:, 2]
        if np.any(np.abs(nz) < 1e-15):
            raise InputError("TerrainMesh has a vertical or degenerate face: expected a z-up height surface")
        f = f.copy()
        f[nz < 0] = f[nz < 0][:, [0, 2, 1]]
        cell = check_number("TerrainMesh", "cell", self.cell, lo=0.0, hi=MAX_LENGTH)  # 0: automatic
        if cell == 0.0:
            e = np.linalg.norm(v[f[:, 1]] - v[f[:, 0]], axis=1)
            cell = 2.0 * float(e.mean())
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "faces", f)
        object.__setattr__(self, "cell", cell)


# ---- mass properties ---------------------------------------------------------------------------
def _mesh_mass(v, f, density):
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    vol6 = np.einsum("ij,ij->i", a, np.cross(b, c))
    vol = vol6.sum() / 6.0
    if vol <= 0:
        raise InputError(f"mesh encloses volume {vol:g} m^3: expected > 0 (faces must point outward)")
    com = ((a + b + c) * vol6[:, None]).sum(axis=0) / (24.0 * vol)
    # second moments of the signed tetrahedra (origin, a, b, c)
    C = np.zeros((3, 3))
    canon = np.array([[2, 1, 1], [1, 2, 1], [1, 1, 2]]) / 120.0
    for i in range(len(f)):
        A = np.stack([a[i], b[i], c[i]])
        C += vol6[i] * A.T @ canon @ A
    m = density * vol
    C = density * C - m * np.outer(com, com)
    inertia = np.trace(C) * np.eye(3) - C
    return m, com, inertia


def mass_properties(shape, density):
    """(mass [kg], centre of mass (3,) [m], inertia about the CoM (3, 3) [kg m^2]) of a solid.

    Parameters
    ----------
    shape : Sphere | Capsule | Box | Cylinder | Cone | ConvexMesh | TriangleMesh
    density : float
        [kg/m^3].
    """
    rho = check_number("mass_properties", "density", density, lo=0.0, lo_open=True)  # [kg/m^3]
    if isinstance(shape, Sphere):
        r = shape.radius
        m = rho * 4.0 / 3.0 * math.pi * r**3
        return m, np.zeros(3), np.eye(3) * 0.4 * m * r * r
    if isinstance(shape, Box):
        hx, hy, hz = shape.half_extents
        m = rho * 8 * hx * hy * hz
        return m, np.zeros(3), np.diag([m * (hy**2 + hz**2), m * (hx**2 + hz**2), m * (hx**2 + hy**2)]) / 3.0
    if isinstance(shape, Cylinder):
        r, h = shape.radius, shape.half_length
        m = rho * math.pi * r * r * 2 * h
        ixx = m * (3 * r * r + 4 * h * h) / 12.0
        return m, np.zeros(3), np.diag([ixx, ixx, 0.5 * m * r * r])
    if isinstance(shape, Cone):
        # height H = 2 h: V = pi r^2 H / 3, centroid H/4 above the base, I_zz = 3/10 m r^2,
        # I_xx = m (3/20 r^2 + 3/80 H^2) about the centroid (standard solid-cone moments)
        r, h = shape.radius, shape.half_length
        m = rho * math.pi * r * r * 2 * h / 3.0
        ixx = m * (0.15 * r * r + 0.15 * h * h)
        return m, np.array([0.0, 0.0, -0.5 * h]), np.diag([ixx, ixx, 0.3 * m * r * r])
    if isinstance(shape, Capsule):
        r, h = shape.radius, shape.half_length
        mc = rho * math.pi * r * r * 2 * h
        ms = rho * 4.0 / 3.0 * math.pi * r**3
        izz = 0.5 * mc * r * r + 0.4 * ms * r * r
        # hemisphere CoM at 3r/8 from the flat face; parallel-axis for the two halves
        ixx = mc * (3 * r * r + 4 * h * h) / 12.0 + ms * (0.4 * r * r + h * h + 0.75 * h * r)
        return mc + ms, np.zeros(3), np.diag([ixx, ixx, izz])
    if isinstance(shape, ConvexMesh | TriangleMesh):
        return _mesh_mass(shape.vertices, shape.faces, rho)
    raise InputError(f"mass_properties: unsupported shape {type(shape).__name__}")
