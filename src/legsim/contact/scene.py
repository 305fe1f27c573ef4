"""Collision scene: geoms attached to bodies plus static terrain, compiled to flat arrays.

Interface 2 of Konyev Fig. 2.8 (CAD -> contact processing, one-time): geometric primitives,
materials and their placement on bodies. :meth:`Scene.compile` returns a
:class:`~legsim.contact._geom.CollisionModel` (read-only arrays for the kernels). Compound bodies
are several geoms with the same body id; geoms of one body never collide with each other.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_whole
from . import _geom as G
from .laws import LawTable
from .shapes import (
    Box,
    Capsule,
    Cone,
    ConvexMesh,
    Cylinder,
    HeightField,
    HeightFunction,
    Plane,
    Sphere,
    TerrainMesh,
    TriangleMesh,
)

__all__ = ["Scene", "geom_world_poses"]

_BODY_SHAPES = (Sphere, Capsule, Box, Cylinder, Cone, ConvexMesh, TriangleMesh)
_TERRAINS = (Plane, HeightFunction, HeightField, TerrainMesh)


MAX_BODIES = 10**6
"""The largest body id a geom may name."""


def check_rotation(owner: str, name: str, R, atol: float = 1e-9) -> np.ndarray:
    """``R`` as a (3, 3) float rotation matrix (orthonormal within ``atol``, determinant +1), else an
    :class:`InputError` naming ``owner`` and ``name``."""
    a = as_floats(R)
    if a.shape != (3, 3) or not np.allclose(a @ a.T, np.eye(3), atol=atol) or np.linalg.det(a) < 0:
        raise InputError(f"{owner} '{name}' = {R!r}: expected a rotation matrix (3x3, orthonormal, det +1)")
    return a


class Scene:
    """Builder of a collision model.

    Parameters
    ----------
    laws : LawTable, optional
        Contact law per material pair; its material count bounds the material ids.
    """

    def __init__(self, laws: LawTable | None = None):
        self.laws = laws
        self.geoms: list = []  # (shape, body, pos, rot, material)

    def add(self, shape, body=-1, pos=(0.0, 0.0, 0.0), rot=None, material=0, contype=1, conaffinity=1):
        """Attach ``shape`` to ``body`` (>= 0; -1 = world) at local pose (pos [m], rot (3, 3)).

        Terrains (Plane, HeightFunction, HeightField, TerrainMesh) must use body -1. Two geoms
        may touch when (contype1 & conaffinity2) | (contype2 & conaffinity1) is non-zero and they
        belong to different bodies. Returns the geom index.
        """
        if not isinstance(shape, _BODY_SHAPES + _TERRAINS):
            raise InputError(f"Scene.add: {type(shape).__name__} is not a shape or terrain")
        body = check_whole("Scene.add", "body", body, -1, MAX_BODIES)
        if isinstance(shape, _TERRAINS) and body != -1:
            raise InputError(f"terrain {type(shape).__name__} attached to body {body}: expected body -1")
        if isinstance(shape, _BODY_SHAPES) and body < 0:
            raise InputError(
                f"{type(shape).__name__} attached to body {body}: expected a body id >= 0 "
                f"(static obstacles: use a terrain type)"
            )
        p = as_floats(pos).ravel()
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise InputError(f"Scene.add 'pos' = {pos!r}: expected a finite 3-vector [m]")
        R = np.eye(3) if rot is None else check_rotation("Scene.add", "rot", rot)
        if (
            isinstance(shape, _TERRAINS)
            and not isinstance(shape, Plane)
            and (np.any(p != 0) or np.any(R != np.eye(3)))
        ):
            raise InputError(
                f"{type(shape).__name__} is defined in the world frame: expected pos=0, rot=None"
            )
        nmat = self.laws.pair.shape[0] if self.laws is not None else 1 << 30
        material = check_whole("Scene.add", "material", material, 0, nmat - 1)
        contype = check_whole("Scene.add", "contype", contype, 0, 2**31 - 1)  # bit masks
        conaffinity = check_whole("Scene.add", "conaffinity", conaffinity, 0, 2**31 - 1)
        self.geoms.append((shape, body, p, R, material, contype, conaffinity))
        return len(self.geoms) - 1

    def compile(self):
        """Flatten the scene into a CollisionModel (see ``_geom.CollisionModel`` for fields)."""
        ng = len(self.geoms)
        if ng == 0:
            raise InputError("Scene has no geoms: add at least one shape")
        gtype = np.zeros(ng, np.int64)
        gsize = np.zeros((ng, 3))
        gbody = np.zeros(ng, np.int64)
        gmat = np.zeros(ng, np.int64)
        grb = np.zeros(ng)
        gvadr = np.zeros(ng, np.int64)
        gvnum = np.zeros(ng, np.int64)
        gfadr = np.zeros(ng, np.int64)
        gfnum = np.zeros(ng, np.int64)
        gdadr = np.zeros(ng, np.int64)
        gint = np.zeros((ng, 4), np.int64)
        gcadr = np.zeros(ng, np.int64)
        verts, faces, data, cstart, ctri = [np.zeros((0, 3))], [np.zeros((0, 3), np.int64)], [], [], []
        nv = nf = nd = ncs = nct = 0
        for g, (s, body, _p, _R, mat, _ct, _ca) in enumerate(self.geoms):
            gtype[g] = s.code
            gbody[g] = body
            gmat[g] = mat
            gvadr[g], gfadr[g], gdadr[g], gcadr[g] = nv, nf, nd, ncs
            if isinstance(s, Sphere):
                gsize[g, 0] = grb[g] = s.radius
            elif isinstance(s, Capsule | Cylinder | Cone):
                gsize[g, :2] = s.radius, s.half_length
                grb[g] = (
                    np.hypot(s.radius, s.half_length)
                    if isinstance(s, Cylinder | Cone)
                    else (s.radius + s.half_length)
                )
            elif isinstance(s, Box):
                gsize[g] = s.half_extents
                grb[g] = float(np.linalg.norm(s.half_extents))
            elif isinstance(s, ConvexMesh | TriangleMesh | TerrainMesh):
                verts.append(s.vertices)
                faces.append(s.faces)
                gvnum[g], gfnum[g] = len(s.vertices), len(s.faces)
                nv += len(s.vertices)
                nf += len(s.faces)
                grb[g] = float(np.max(np.linalg.norm(s.vertices, axis=1)))
                if isinstance(s, TerrainMesh):
                    grb[g] = np.inf
                    d, starts, tris = _grid(s)
                    data.append(d)
                    nd += len(d)
                    cstart.append(starts + nct)
                    ctri.append(tris)
                    ncs += len(starts)
                    nct += len(tris)
                    gint[g, :2] = int(d[3]), int(d[4])
            elif isinstance(s, Plane):
                grb[g] = np.inf
                n = _R @ np.asarray(s.normal)
                gsize[g] = n
                data.append(np.array([s.offset + float(n @ _p)]))
                nd += 1
            elif isinstance(s, HeightFunction):
                grb[g] = np.inf
                data.append(np.asarray(s.params))
                nd += len(s.params)
                gint[g, 2] = (
                    G.HF_SINES if s.kind == "sines" else (G.HF_BUMP if s.kind == "bump" else G.HF_STEP)
                )
                gint[g, 3] = len(s.params)
            elif isinstance(s, HeightField):
                grb[g] = np.inf
                gsize[g, :2] = s.dx, s.dy
                data.append(np.concatenate([s.origin, s.heights.ravel()]))
                nd += 2 + s.heights.size
                gint[g, :2] = s.heights.shape
        pair = self.laws.pair.copy() if self.laws is not None else np.zeros((1, 1), np.int64)
        if self.laws is None and np.any(gmat != 0):
            raise InputError("geoms use material ids > 0 but the Scene has no LawTable")
        return G.CollisionModel(
            gtype,
            gsize,
            gbody,
            gmat,
            grb,
            gvadr,
            gvnum,
            gfadr,
            gfnum,
            gdadr,
            gint,
            np.ascontiguousarray(np.concatenate(verts)),
            np.ascontiguousarray(np.concatenate(faces)),
            np.concatenate(data) if data else np.zeros(1),
            np.concatenate(cstart) if cstart else np.zeros(1, np.int64),
            np.concatenate(ctri) if ctri else np.zeros(1, np.int64),
            gcadr,
            pair,
            np.array([g[5] for g in self.geoms], np.int64),
            np.array([g[6] for g in self.geoms], np.int64),
        )

    # ---- poses -------------------------------------------------------------------------------
    def local_poses(self):
        """(pos (ng, 3), rot (ng, 3, 3)) of every geom in its body frame (world for terrain)."""
        return (np.array([g[2] for g in self.geoms]), np.array([g[3] for g in self.geoms]))


def _grid(s):
    """Uniform xy grid over a terrain mesh: data (x0, y0, cell, nx, ny, zmax), CSR starts, triangle ids."""
    v, f = s.vertices, s.faces
    lo = v[:, :2].min(axis=0)
    hi = v[:, :2].max(axis=0)
    c = s.cell
    nx = max(1, int(np.ceil((hi[0] - lo[0]) / c)))
    ny = max(1, int(np.ceil((hi[1] - lo[1]) / c)))
    tri_lo = np.minimum(np.minimum(v[f[:, 0], :2], v[f[:, 1], :2]), v[f[:, 2], :2])
    tri_hi = np.maximum(np.maximum(v[f[:, 0], :2], v[f[:, 1], :2]), v[f[:, 2], :2])
    i0 = np.clip(((tri_lo - lo) / c).astype(int), 0, [nx - 1, ny - 1])
    i1 = np.clip(((tri_hi - lo) / c).astype(int), 0, [nx - 1, ny - 1])
    cells = [[] for _ in range(nx * ny)]
    for t in range(len(f)):
        for i in range(i0[t, 0], i1[t, 0] + 1):
            for j in range(i0[t, 1], i1[t, 1] + 1):
                cells[i * ny + j].append(t)
    starts = np.zeros(nx * ny + 1, np.int64)
    starts[1:] = np.cumsum([len(cl) for cl in cells])
    tris = np.array([t for cl in cells for t in cl], dtype=np.int64)
    return np.array([lo[0], lo[1], c, nx, ny, v[:, 2].max()]), starts, tris


def geom_world_poses(model, local_pos, local_rot, body_pos, body_rot, out_pos=None, out_rot=None):
    """World poses of all geoms from body poses (interface 3 of Konyev Fig. 2.8).

    Parameters
    ----------
    model : CollisionModel
    local_pos, local_rot : (ng, 3), (ng, 3, 3)
        Geom poses in their body frames (:meth:`Scene.local_poses`).
    body_pos, body_rot : (nb, 3), (nb, 3, 3)
        Body frame poses in the world [m].

    Returns
    -------
    (pos (ng, 3), rot (ng, 3, 3))
    """
    from ._collide import world_poses

    check_model("geom_world_poses", model)
    ng = len(model.gtype)
    nb = int(model.gbody.max(initial=-1)) + 1  # bodies the geoms name
    arrays = []
    for name, value, shape in (("local_pos", local_pos, (ng, 3)), ("local_rot", local_rot, (ng, 3, 3)),
                               ("body_pos", body_pos, (None, 3)), ("body_rot", body_rot, (None, 3, 3))):
        a = np.ascontiguousarray(as_floats(value))
        if (a.ndim != len(shape) or any(n is not None and a.shape[i] != n for i, n in enumerate(shape))
                or (shape[0] is None and a.shape[0] < nb) or not np.all(np.isfinite(a))):
            want = "x".join("nb" if n is None else str(n) for n in shape)
            raise InputError(f"geom_world_poses '{name}' has shape {a.shape}: expected {want} finite numbers"
                             + (f" (nb >= {nb}: the geoms' bodies)" if shape[0] is None else ""))
        arrays.append(a)
    out_pos = np.zeros((ng, 3)) if out_pos is None else out_pos
    out_rot = np.zeros((ng, 3, 3)) if out_rot is None else out_rot
    world_poses(model, *arrays, out_pos, out_rot, True)
    return out_pos, out_rot


def check_model(owner: str, model) -> None:
    """An :class:`InputError` naming ``owner`` unless ``model`` is a collision model
    (:meth:`Scene.compile`)."""
    if not isinstance(model, G.CollisionModel):
        raise InputError(f"{owner} 'model' is a {type(model).__name__}: expected a collision model "
                         f"(Scene.compile())")
