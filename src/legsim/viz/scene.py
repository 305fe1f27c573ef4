"""What a viewer draws: a robot's shapes on moving frames, the terrain, and per-record poses.

A :class:`Scene` is independent of any drawing library. It holds the shapes (boxes, spheres,
capsules, cylinders, meshes) rigidly attached to named *frames*, static world shapes (terrain,
obstacles), and a :class:`Poser` that turns record columns into :class:`Poses`: a placement per
frame, line segments (massless legs, springs) and contact-force arrows per record. The same
scene serves a replay (all records of a run directory) and a live view (one record at a time).

Builders: :func:`scene_for_run` chooses by the run's model (a robot from a hardware file, the
CRR leg, the SLIP, the RHex hexapod, the toy examples); :func:`multibody_scene` draws any
:class:`legsim.multibody.Model` (an assembled :class:`legsim.assembly.Robot` through
:func:`robot_scene`).

Conventions: positions in m, world z up; a placement is ``(x, y, z, qw, qx, qy, qz)`` (scalar-first
unit quaternion, the viewer library's order); colours are RGB 0–255.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import (
    InputError,
    as_float,
    as_floats,
    check_array,
    check_number,
    check_values,
    describe_failure,
    shown,
)
from ..io.results import run_params
from ..userfiles import user_path

__all__ = ["Shape", "Poses", "Scene", "scene_for_run", "multibody_scene", "robot_scene", "cylinder_barrels",
           "SCENES", "rotation_to_wxyz", "wxyz_to_rotation", "shape_mesh", "inertia_box", "z_to"]

MAX_COMPONENT = 1e150
"""Largest magnitude of a quaternion's or a direction's component the frame helpers take (its square stays
finite); a quaternion's largest component is at least its inverse (its squared norm is not zero)."""
MAX_SIZE = 1e9
"""Largest size [m] of a :class:`Shape` (a box's edge, a radius, a length) and magnitude of its placement's,
rotation's and mesh vertices' coordinates: a scene is not a million kilometres wide, and the products
of three that trimesh's normals take stay finite."""
SHAPE_DIMS = {"box": 3, "sphere": 1, "cylinder": 2, "capsule": 2, "mesh": 0}
"""How many sizes ``dims`` each :class:`Shape` kind has."""

Columns = Mapping[str, np.ndarray]
"""Record columns by name: each (T,) (a run's records) or (1,) (the latest record of a live run)."""

PALETTE = ((52, 101, 164), (204, 102, 0), (78, 154, 6), (117, 80, 123), (193, 125, 17),
           (32, 74, 135), (164, 0, 0), (46, 52, 54))
GROUND = (200, 200, 195)
OBSTACLE = (150, 130, 110)
FORCE = (220, 30, 30)
LEG = (40, 40, 40)
BARREL = (170, 175, 185)


@dataclass(frozen=True)
class Shape:
    """A solid rigidly attached to a frame.

    ``kind``: ``box`` (``dims`` = full edge lengths (3,) m), ``sphere`` (``dims`` = (radius,)),
    ``cylinder``/``capsule`` (``dims`` = (radius, length of the cylindrical part) along local z),
    ``mesh`` (``vertices`` (n, 3) m, ``faces`` (k, 3) int, ``dims`` = ()). ``frame``: the moving frame it
    rides on, ``""`` for the world. ``R`` (3, 3), ``p`` (3,): its placement in that frame. ``color``: RGB
    0–255. Sizes >= 0 and coordinates within ±:data:`MAX_SIZE` [m]; checked, then kept as given.
    """

    name: str
    kind: str
    dims: tuple[float, ...]
    frame: str = ""
    R: np.ndarray = field(default_factory=lambda: np.eye(3))
    p: np.ndarray = field(default_factory=lambda: np.zeros(3))
    color: tuple[int, int, int] = PALETTE[0]
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None

    def __post_init__(self):
        o = "Shape"
        if not isinstance(self.name, str):
            raise InputError(f"{o}: 'name' = {shown(self.name)}, expected a string")
        o = f"Shape {self.name!r}"
        if not (isinstance(self.kind, str) and self.kind in SHAPE_DIMS):
            raise InputError(f"{o}: 'kind' = {shown(self.kind)}, expected one of {', '.join(SHAPE_DIMS)}")
        n = SHAPE_DIMS[self.kind]
        if n == 0:  # a mesh
            sized = isinstance(self.dims, (tuple, list)) and not self.dims
        else:
            sized = check_values(o, "dims", self.dims, lo=0.0, hi=MAX_SIZE, unit="m").shape == (n,)
        if not sized:
            raise InputError(f"{o}: 'dims' = {shown(self.dims)}, expected {n} sizes for a {self.kind}")
        if not isinstance(self.frame, str):
            raise InputError(f"{o}: 'frame' = {shown(self.frame)}, expected a frame's name ('' for the "
                             "world)")
        for name, shape in (("R", (3, 3)), ("p", (3,))):
            if not np.all(np.abs(check_array(o, name, getattr(self, name), shape)) <= MAX_SIZE):
                raise InputError(f"{o}: '{name}' = {shown(getattr(self, name))}, expected numbers within "
                                 f"±{MAX_SIZE:g}")
        rgb = as_floats(self.color)
        if rgb.shape != (3,) or not np.all((rgb >= 0) & (rgb <= 255) & (rgb == np.floor(rgb))):
            raise InputError(f"{o}: 'color' = {shown(self.color)}, expected 3 whole numbers 0..255 (RGB)")
        mesh = self.kind == "mesh"
        if mesh or self.vertices is not None:
            v = as_floats(self.vertices)
            if v.ndim != 2 or v.shape[1:] != (3,) or not np.all(np.abs(v) <= MAX_SIZE):
                raise InputError(f"{o}: 'vertices' = {shown(self.vertices)}, expected (n, 3) coordinates "
                                 f"within ±{MAX_SIZE:g} [m]{' (a mesh has them)' if mesh else ''}")
        if mesh or self.faces is not None:
            f = as_floats(self.faces)
            top = len(self.vertices) if self.vertices is not None else 0
            if f.ndim != 2 or f.shape[1:] != (3,) or not np.all((f >= 0) & (f < top) & (f == np.floor(f))):
                raise InputError(f"{o}: 'faces' = {shown(self.faces)}, expected (k, 3) vertex indices (whole "
                                 f"numbers 0..{top - 1}){' (a mesh has them)' if mesh else ''}")


@dataclass
class Poses:
    """Per-record placements of a scene: ``frames`` (T, nframe, 7) (x, y, z, qw, qx, qy, qz) in the
    order of :attr:`Scene.frames`; ``segments`` (T, nseg, 2, 3) m line segments (massless legs,
    skeleton); ``arrows`` (T, narrow, 2, 3) m contact forces from the contact point to its tip
    (zero length when there is no force)."""

    frames: np.ndarray
    segments: np.ndarray
    arrows: np.ndarray

    def __len__(self) -> int:
        return int(self.frames.shape[0])


Poser = Callable[[Columns], Poses]
Area = tuple[np.ndarray, np.ndarray]
"""(lo (3,), hi (3,)) [m]: the world box a viewer draws the ground and terrain over."""
Terrain = Callable[[Area], list[Shape]]


def _no_terrain(area: Area) -> list[Shape]:
    return []


@dataclass
class Scene:
    """A robot to draw: ``frames`` (moving frame names), ``shapes`` on them or on the world,
    ``segment_names``/``arrow_names`` (labels of the poser's segments and arrows), ``poser``
    (record columns -> :class:`Poses`), ``terrain`` (the ground and static shapes over an
    :data:`Area`, drawn once the viewer knows where the robot goes), ``newtons_per_metre`` (the
    force arrows' scale), ``extent`` (the robot's size [m]: camera distance)."""

    name: str
    frames: tuple[str, ...]
    shapes: tuple[Shape, ...]
    poser: Poser
    segment_names: tuple[str, ...] = ()
    arrow_names: tuple[str, ...] = ()
    terrain: Terrain = _no_terrain
    newtons_per_metre: float = 100.0
    extent: float = 1.0
    """typical size of the robot [m] (camera distance, ground patch)"""
    up: tuple[float, float, float] = (0.0, 0.0, 1.0)
    """the world's up direction (against gravity): the camera's up"""

    def poses(self, columns: Columns) -> Poses:
        """Placements for every record in ``columns`` (see :class:`Poses`)."""
        out = self.poser(columns)
        n = len(next(iter(columns.values())))
        want = {"frames": (n, len(self.frames), 7), "segments": (n, len(self.segment_names), 2, 3),
                "arrows": (n, len(self.arrow_names), 2, 3)}
        for key, shape in want.items():
            got = getattr(out, key).shape
            if got != shape:  # a builder's bug, not a user's
                raise ValueError(f"scene {self.name!r}: poser gave {key} of shape {got}, expected {shape}")
        return out

    def shape_names(self) -> list[str]:
        return [s.name for s in self.shapes]


# ------------------------------------------------------------------------------------------ helpers
def rotation_to_wxyz(R: np.ndarray) -> np.ndarray:
    """Unit quaternions (..., 4) scalar first of rotation matrices (..., 3, 3)
    (:func:`legsim.multibody._spatial.rot_to_quat_wxyz`, Shepperd's method, per matrix)."""
    from ..multibody._spatial import rot_to_quat_wxyz

    R = as_floats(R)
    if R.ndim < 2 or R.shape[-2:] != (3, 3) or not np.all(np.abs(R) <= 1.0 + 1e-6):  # NaN fails too
        raise InputError(f"rotation_to_wxyz: 'R' has shape {np.shape(R)}, expected rotation matrices "
                         "(..., 3, 3) (entries within ±1)")
    flat = R.reshape(-1, 3, 3)
    out = np.array([rot_to_quat_wxyz(r) for r in flat]) if len(flat) else np.zeros((0, 4))
    return out.reshape(R.shape[:-2] + (4,))


def shape_mesh(s: Shape) -> tuple[np.ndarray, np.ndarray]:
    """Triangles of ``s`` (a :class:`Shape`) in its frame (its placement ``R``, ``p`` applied): vertices
    (n, 3) m, faces (k, 3) int; coarse (a sphere 80 faces, a cylinder 12 sides), for drawing."""
    import trimesh

    if not isinstance(s, Shape):
        raise InputError(f"shape_mesh: 's' = {shown(s)}, expected a legsim.viz.scene.Shape")
    if s.kind == "box":
        m = trimesh.creation.box(extents=s.dims)
    elif s.kind == "sphere":
        m = trimesh.creation.icosphere(subdivisions=1, radius=s.dims[0])
    elif s.kind == "cylinder":
        m = trimesh.creation.cylinder(radius=s.dims[0], height=s.dims[1], sections=12)
    elif s.kind == "capsule":
        m = trimesh.creation.capsule(height=s.dims[1], radius=s.dims[0], count=(8, 8))
    else:  # a mesh (Shape checks its kind, vertices and faces)
        m = trimesh.Trimesh(np.asarray(s.vertices, dtype=float), np.asarray(s.faces), process=False)
    v = np.asarray(m.vertices, dtype=float) @ np.asarray(s.R, dtype=float).T + np.asarray(s.p, dtype=float)
    return v, np.asarray(m.faces, dtype=np.int64)


def wxyz_to_rotation(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of quaternions (..., 4), scalar first
    (:func:`legsim.multibody._spatial.quat_to_rot`, per quaternion)."""
    from ..multibody._spatial import quat_to_rot

    q = as_floats(q)
    size = np.abs(q).max(axis=-1, initial=0.0) if q.ndim >= 1 and q.shape[-1] == 4 else np.full(1, np.nan)
    if not np.all((size >= 1.0 / MAX_COMPONENT) & (size <= MAX_COMPONENT)):  # NaN fails too
        raise InputError(f"wxyz_to_rotation: 'q' = {shown(q)}, expected quaternions (..., 4), each not zero, "
                         f"of finite numbers within ±{MAX_COMPONENT:g}")
    flat = q.reshape(-1, 4)
    out = np.empty((len(flat), 3, 3))
    for R, (w, x, y, z) in zip(out, flat.tolist(), strict=True):
        quat_to_rot(x, y, z, w, R)
    return out.reshape(q.shape[:-1] + (3, 3))


def drawn_column(columns: Columns, name: str, who: str) -> np.ndarray:
    """The record column ``name`` as floats, else an :class:`InputError` naming ``who`` draws from it."""
    try:
        return np.asarray(columns[name], dtype=float)
    except KeyError:
        raise InputError(f"{who}: the records have no column {name!r} to draw from") from None


def _placements(pos: np.ndarray, R: np.ndarray) -> np.ndarray:
    """(T, 7) placements from positions (T, 3) and rotations (T, 3, 3)."""
    return np.concatenate([pos, rotation_to_wxyz(R)], axis=-1)


def _arrows(points: np.ndarray, direction: np.ndarray, force: np.ndarray, n_per_m: float) -> np.ndarray:
    """(T, k, 2, 3) arrows from ``points`` (T, k, 3) along unit ``direction`` (T, k, 3) or (3,),
    length ``force`` (T, k) N / ``n_per_m``; no arrow (zero length) where the force is <= 0."""
    length = np.where(force > 0.0, force, 0.0) / n_per_m
    return np.stack([points, points + direction * length[..., None]], axis=-2)


def z_to(direction) -> np.ndarray:
    """The rotation (3, 3) taking +z to the unit vector along ``direction`` (3,) (Rodrigues; not zero,
    components within ±:data:`MAX_COMPONENT`, whose squares stay finite)."""
    n = as_floats(direction)
    norm = float(np.linalg.norm(n)) if n.shape == (3,) and np.all(np.abs(n) <= MAX_COMPONENT) else 0.0
    if not norm > 0.0:
        raise InputError(f"z_to: 'direction' = {shown(direction)}, expected a non-zero 3-vector of finite "
                         f"numbers within ±{MAX_COMPONENT:g}")
    n = n / norm
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, n)
    s, c = float(np.linalg.norm(axis)), float(z @ n)
    if s < 1e-12:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    k = axis / s
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + s * K + (1 - c) * K @ K


def ground_shapes(area: Area, normal=(0.0, 0.0, 1.0), offset: float = 0.0) -> list[Shape]:
    """The plane {x : n·x = offset} as a thin square box under the centre of ``area``, as wide as
    the box's largest side."""
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    R = z_to(n)
    lo, hi = (np.asarray(a, dtype=float) for a in area)
    size = float(np.max(hi - lo))
    c0 = (lo + hi) / 2
    c0 = c0 - (n @ c0 - offset) * n  # the centre's foot on the plane
    thick = 0.02
    return [Shape("ground", "box", (size, size, thick), "", R, c0 - n * thick / 2, GROUND)]


def heightmap_shape(height: Callable[[np.ndarray, np.ndarray], np.ndarray], area: Area,
                    spacing: float = 0.05, name: str = "terrain") -> Shape:
    """A terrain surface z = ``height(X, Y)`` [m] as a triangle mesh on a grid over ``area``'s x and
    y, ``spacing`` m apart (at most 151 points a side)."""
    (x0, y0), (x1, y1) = area[0][:2], area[1][:2]
    nx = int(min(151, max(2, np.ceil((x1 - x0) / spacing) + 1)))
    ny = int(min(151, max(2, np.ceil((y1 - y0) / spacing) + 1)))
    X, Y = np.meshgrid(np.linspace(x0, x1, nx), np.linspace(y0, y1, ny), indexing="ij")
    Z = np.asarray(height(X, Y), dtype=float)
    vertices = np.stack([X, Y, Z], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(nx - 1), np.arange(ny - 1), indexing="ij")
    a = (i * ny + j).ravel()
    b, c, d = a + ny, a + 1, a + ny + 1
    faces = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)]).astype(np.int32)
    return Shape(name, "mesh", (), "", np.eye(3), np.zeros(3), GROUND, vertices, faces)


# ------------------------------------------------------------------------------------ multibody
def _geometry_shape(g: Any, color) -> Shape | None:
    pr = g.params
    if g.shape == "box":
        return Shape(g.name, "box", tuple(float(v) for v in pr["size"]), g.body, g.R, g.p, color)
    if g.shape == "sphere":
        return Shape(g.name, "sphere", (float(pr["radius"]),), g.body, g.R, g.p, color)
    if g.shape in ("cylinder", "capsule"):
        return Shape(g.name, g.shape, (float(pr["radius"]), float(pr["length"])), g.body, g.R, g.p, color)
    if g.shape == "mesh" and "vertices" in pr:
        return Shape(g.name, "mesh", (), g.body, g.R, g.p, color,
                     np.asarray(pr["vertices"], dtype=float), np.asarray(pr["faces"], dtype=np.int32))
    return None  # a mesh recorded by name only: nothing to draw


def multibody_scene(mb: Any, q_columns: list[str] | None = None, *, ground: Any = None,
                    obstacles=(), contact_points=(), cylinders: Sequence[LinkageCylinder] = (),
                    name: str | None = None) -> Scene:
    """Any :class:`legsim.multibody.Model`: each body's geometries on its frame, a skeleton segment
    from each body's origin to its children's, the ``ground`` plane (a
    :class:`legsim.contact.Plane`; none if None) and static ``obstacles``
    (:class:`legsim.assembly.Obstacle`). ``q_columns``: record column of each of the nq positions
    (default :meth:`Model.coordinate_names`). ``contact_points``: (name, body index, centre in body
    axes (3,), radius) of the points whose normal force is the record column ``fn_<name>``, drawn
    as arrows along the ground normal. ``cylinders``: pneumatic cylinders driving revolute joints
    through crank/rocker triangles, drawn as a barrel (a moving frame ``<name>_barrel``) and a rod
    (a segment) between their pins (:class:`LinkageCylinder`)."""
    from ..multibody import dynamics

    q_names = list(q_columns) if q_columns is not None else mb.coordinate_names()[0]
    if len(q_names) != mb.nq:
        raise InputError(f"scene of {mb.name!r}: {len(q_names)} position columns for nq = {mb.nq}")
    bodies = list(range(1, mb.nbody))
    pins = [c.pins(mb) for c in cylinders]
    frames = tuple(mb.body_names[i] for i in bodies) + tuple(f"{c.name}_barrel" for c in cylinders)
    shapes: list[Shape] = []
    for g in mb.geometries:
        if g.body == mb.body_names[0]:
            continue
        s = _geometry_shape(g, PALETTE[mb.body_id(g.body) % len(PALETTE)])
        if s is not None:
            shapes.append(s)
    drawn = {s.frame for s in shapes}
    for i in bodies:  # a body with nothing to draw shows its equivalent inertia box (as MuJoCo does)
        name = mb.body_names[i]
        if name not in drawn and mb.body_mass[i] > 0:
            dims, R = inertia_box(float(mb.body_mass[i]), np.asarray(mb.body_inertia[i]))
            shapes.append(Shape(f"{name}_inertia", "box", dims, name, R, np.asarray(mb.body_com[i]),
                                PALETTE[i % len(PALETTE)]))
    parents = [int(mb.body_parent[i]) for i in bodies]
    # skeleton: parent origin -> child origin, and a body's origin -> each of its shapes away from it
    links = [(p, i, np.zeros(3)) for p, i in zip(parents, bodies, strict=True) if p > 0]
    links += [(mb.body_id(s.frame), mb.body_id(s.frame), np.asarray(s.p, dtype=float)) for s in shapes
              if np.linalg.norm(s.p) > 1e-6 and not s.name.endswith("_inertia")]
    seg_names = tuple(f"{mb.body_names[p]}-{mb.body_names[i]}" for p, i, _ in links) + tuple(
        f"{c.name}_rod" for c in cylinders)
    for c in cylinders:
        shapes.append(Shape(f"{c.name}_barrel", "cylinder", (c.bore / 2, c.linkage.l2), f"{c.name}_barrel",
                            color=BARREL))
    terrain_z = ground is not None and hasattr(ground, "height")  # a HeightField or HeightFunction
    # force arrows along the plane's normal; drawn vertical on a terrain
    vertical = ground is None or terrain_z
    n_ground = np.array([0.0, 0.0, 1.0]) if vertical else np.asarray(ground.normal, dtype=float)
    fixed: list[Shape] = []
    for k, ob in enumerate(obstacles):
        R = np.eye(3) if ob.rotation is None else np.asarray(ob.rotation, dtype=float)
        fixed.append(Shape(f"obstacle_{k}_{ob.name}", "box", tuple(2.0 * np.asarray(ob.half_extents)), "",
                           R, np.asarray(ob.centre, dtype=float), OBSTACLE))

    def terrain(area: Area) -> list[Shape]:
        if ground is None:
            return fixed
        if terrain_z:
            return [heightmap_shape(ground.height, area), *fixed]
        return ground_shapes(area, ground.normal, ground.offset) + fixed
    points = [(str(n), int(b), np.asarray(c, dtype=float), float(r)) for n, b, c, r in contact_points]
    mass = float(mb.total_mass())
    n_per_m = max(mass * 9.81, 1.0) / 0.3  # the robot's weight as a 0.3 m arrow
    data = mb.make_data()
    extent = _model_extent(mb, data)

    def poser(columns: Columns) -> Poses:
        Q = np.stack([drawn_column(columns, c, f"scene of {mb.name!r}") for c in q_names], axis=1)
        T = Q.shape[0]
        out = np.empty((T, len(frames), 7))
        origin = np.empty((T, mb.nbody, 3))
        Rw = np.empty((T, mb.nbody, 3, 3))
        for k in range(T):
            dynamics.forward_kinematics(mb, data, Q[k])
            origin[k] = data.op
            Rw[k] = data.oR
        out[:, :len(bodies)] = _placements(origin[:, bodies], Rw[:, bodies])
        segs = [np.stack([origin[:, p], origin[:, i] + np.einsum("tij,j->ti", Rw[:, i], c)], axis=1)
                for p, i, c in links]
        for j, (pa, a_local, ch, b_local) in enumerate(pins):  # barrel from pin A along AB, rod to pin B
            a = origin[:, pa] + np.einsum("tij,j->ti", Rw[:, pa], a_local)
            b = origin[:, ch] + np.einsum("tij,j->ti", Rw[:, ch], b_local)
            u = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
            l2 = cylinders[j].linkage.l2
            out[:, len(bodies) + j] = _placements(a + u * l2 / 2, np.stack([z_to(v) for v in u]))
            segs.append(np.stack([a + u * l2, b], axis=1))
        segs_arr = np.stack(segs, axis=1) if segs else np.zeros((T, 0, 2, 3))
        if points:
            at = np.stack([origin[:, b] + np.einsum("tij,j->ti", Rw[:, b], c) - r * n_ground
                           for _, b, c, r in points], axis=1)
            fn = np.stack([np.asarray(columns.get(f"fn_{n}", np.zeros(T)), dtype=float) for n, *_ in points],
                          axis=1)
            arrows = _arrows(at, n_ground, fn, n_per_m)
        else:
            arrows = np.zeros((T, 0, 2, 3))
        return Poses(out, segs_arr, arrows)

    g = np.asarray(mb.gravity, dtype=float)
    u = -g / np.linalg.norm(g) if np.linalg.norm(g) > 0 else np.array([0.0, 0.0, 1.0])
    up = (float(u[0]), float(u[1]), float(u[2]))
    return Scene(name or mb.name, frames, tuple(shapes), poser, seg_names,
                 tuple(f"fn_{n}" for n, *_ in points), terrain, n_per_m, extent, up)


@dataclass(frozen=True)
class LinkageCylinder:
    """A pneumatic cylinder of bore ``bore`` [m] driving the revolute ``joint`` through the
    crank/rocker triangle ``linkage`` (:class:`legsim.actuators.pneumatic.linkage.JointLinkage`,
    Daepp (5.2.1)–(5.2.9)): pin A on the joint's parent at l1 from the joint axis, pin B on the
    child at l3, the pin distance l2 + x(θ) and the angle γ(θ) at the joint between the arms.

    Placement in the plane normal to the joint axis is schematic (the source gives the triangle,
    not where it sits on the links): the fixed arm points back along the parent (−y of the joint
    frame, projected), the crank is placed so that the arms make exactly the model's γ(θ), so the
    drawn cylinder's length is the model's l2 + x(θ) at every record.
    """

    name: str
    joint: str
    linkage: Any
    bore: float

    def pins(self, mb: Any) -> tuple[int, np.ndarray, int, np.ndarray]:
        """(parent body, pin A in its axes (3,) m, child body, pin B in its axes (3,) m)."""
        from ..actuators.pneumatic._linkage_kernels import gamma_of_theta

        names = list(mb.jnt_names)
        if self.joint not in names:
            raise InputError(f"cylinder {self.name!r}: no joint {self.joint!r} in {mb.name!r}")
        i = names.index(self.joint)
        R = np.asarray(mb.jnt_R[i])
        a = R @ np.asarray(mb.jnt_axis[i])
        v = R @ np.array([0.0, -1.0, 0.0])
        e1 = v - (v @ a) * a
        if np.linalg.norm(e1) < 1e-9:
            v = R @ np.array([1.0, 0.0, 0.0])
            e1 = v - (v @ a) * a
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(a, e1)
        lk = self.linkage
        g0, sense = gamma_of_theta(int(lk.joint), lk.l1, lk.l3, lk.l4, lk.l5, 0.0)
        # γ(θ) = γ0 + sense θ and the child turns by +θ about a: the crank at angle sense γ0 at θ = 0
        ub = math.cos(sense * g0) * e1 + math.sin(sense * g0) * e2
        return (int(mb.body_parent[i]), np.asarray(mb.jnt_p[i]) + lk.l1 * e1, i, lk.l3 * (R.T @ ub))


def _model_extent(mb: Any, data: Any) -> float:
    """Size of the robot at its neutral configuration [m] (body origins' spread, at least 0.2)."""
    from ..multibody import dynamics

    dynamics.forward_kinematics(mb, data, mb.neutral())
    pts = np.asarray(data.op[1:])
    return float(max(0.2, np.ptp(pts, axis=0).max() if len(pts) else 0.0))


def inertia_box(mass: float, inertia: np.ndarray) -> tuple[tuple[float, float, float], np.ndarray]:
    """The uniform box with ``mass`` [kg] and the principal moments of ``inertia`` (3, 3) [kg m²]
    about its COM: full edge lengths (3,) m (from I_1 = m (b² + c²)/12 and its cyclic twins:
    a² = 6 (I_2 + I_3 − I_1)/m) and its axes R (3, 3) (columns: principal axes)."""
    mass = check_number("inertia_box", "mass", mass, lo=0.0, lo_open=True)
    inertia = check_array("inertia_box", "inertia", inertia, (3, 3), "kg m^2")
    moments, R = np.linalg.eigh(0.5 * inertia + 0.5 * inertia.T)  # (as 0.5 (I + Iᵀ), without overflow)
    if np.linalg.det(R) < 0:
        R[:, 2] = -R[:, 2]
    i1, i2, i3 = moments
    with np.errstate(over="ignore"):  # a tiny mass with a sizable inertia: refused below
        sq = 6.0 / mass * np.array([i2 + i3 - i1, i1 + i3 - i2, i1 + i2 - i3])
    dims = np.sqrt(np.maximum(sq, 0.0))
    if not np.all(np.isfinite(dims)):
        raise InputError(f"inertia_box: 'mass' = {mass:g} kg and 'inertia' = {inertia.tolist()} kg m^2 make "
                         "no finite box (an inertia too large for the mass)")
    dims = np.maximum(dims, 0.05 * max(float(dims.max()), 0.02))  # a rod still shows as a thin box
    return (float(dims[0]), float(dims[1]), float(dims[2])), R


def robot_scene(robot: Any) -> Scene:
    """An assembled :class:`legsim.assembly.Robot`, or the :class:`legsim.assembly.Parts` of a
    hardware file (nothing compiled): its multibody model, ground, obstacles, the
    contact points whose normal forces it records (``fn_<point>``), the pneumatic cylinders on
    linkages (:class:`LinkageCylinder`) and the barrels of those that drive prismatic joints
    directly (:func:`cylinder_barrels`)."""
    _check_robot("robot_scene", robot)
    from ..actuators.pneumatic.linkage import JointLinkage
    from ..assembly.components import PneumaticCylinder, contact_geometries
    from ..world import _points

    cyl = [LinkageCylinder(a.name, a.joint, a.transmission, a.actuator.cylinder.bore) for a in robot.actuators
           if isinstance(a, PneumaticCylinder) and isinstance(a.transmission, JointLinkage)]
    c = robot.contacts
    if c is None:
        scene = multibody_scene(robot.mb, cylinders=cyl, name=robot.name)
    else:
        pts = [p[:4] for p in _points.contact_points(robot.mb, contact_geometries(robot.mb, c), "viewer")]
        scene = multibody_scene(robot.mb, ground=c.ground, obstacles=c.obstacles, contact_points=pts,
                                cylinders=cyl, name=robot.name)
    barrels = cylinder_barrels(robot)
    return replace(scene, shapes=scene.shapes + tuple(barrels)) if barrels else scene


def _check_robot(owner: str, robot: Any) -> None:
    """An :class:`InputError` naming ``owner`` unless ``robot`` is an assembled Robot or a hardware file's
    Parts. The robot module is not imported for the test (its import compiles the shared hooks, which
    drawing a hardware file's parts does without): an object made by it has imported it."""
    from ..assembly.hardware import Parts, is_robot

    if not (isinstance(robot, Parts) or is_robot(robot)):
        raise InputError(f"{owner}: 'robot' is a {type(robot).__name__}, expected a legsim.assembly.Robot "
                         "(or the Parts of a hardware file, load_parts(path))")


def cylinder_barrels(robot: Any) -> list[Shape]:
    """The barrel of each pneumatic cylinder on a prismatic joint with no linkage
    (:class:`~legsim.assembly.PneumaticCylinder` with its cylinder's bore and stroke,
    :class:`~legsim.assembly.SolenoidCylinder` with its piston area and stroke): a
    cylinder fixed on the joint's parent body, along the joint axis, ending at the joint origin, so
    the child body (the rod and what it carries) slides out of it. ``robot``: a Robot or a hardware file's
    Parts."""
    _check_robot("cylinder_barrels", robot)
    from ..assembly.components import PneumaticCylinder, SolenoidCylinder
    from ..multibody.model import JOINT_TYPES

    mb = robot.mb
    out: list[Shape] = []
    for act in robot.actuators:
        if isinstance(act, PneumaticCylinder) and act.transmission is None:
            radius, stroke = act.actuator.cylinder.bore / 2, act.actuator.cylinder.stroke
        elif isinstance(act, SolenoidCylinder):
            radius, stroke = float(np.sqrt(act.area / np.pi)), float(act.stroke)
        else:
            continue
        i = list(mb.jnt_names).index(act.joint)
        if mb.jnt_type[i] != JOINT_TYPES["prismatic"] or not (np.isfinite(stroke) and stroke > 0):
            continue
        axis = np.asarray(mb.jnt_R[i]) @ np.asarray(mb.jnt_axis[i])
        parent = int(mb.body_parent[i])
        frame = mb.body_names[parent] if parent > 0 else ""
        centre = np.asarray(mb.jnt_p[i]) - axis * stroke / 2
        out.append(Shape(f"{act.name}_barrel", "cylinder", (radius * 1.15, stroke), frame, z_to(axis), centre,
                         BARREL))
    return out


# ------------------------------------------------------------------------------------- registry
def _slip(meta: Mapping[str, Any]) -> Scene:
    """SimSect's SLIP in its sagittal plane (x forward, y up drawn as world x, z): body sphere, leg
    to the foot in stance or at the touchdown angle in flight."""
    p = run_params(meta)
    qrt = float(p.get("q_rt", 1.0))

    def poser(columns: Columns) -> Poses:
        who = "scene of slip"
        bx, by = drawn_column(columns, "x", who), drawn_column(columns, "y", who)
        fx, fy = drawn_column(columns, "footx", who), drawn_column(columns, "footy", who)
        th = drawn_column(columns, "touchdown_angle", who)
        mode = np.asarray(columns.get("mode", np.zeros_like(bx)))
        stance = np.isin(mode, (2, 3))
        tx = np.where(stance, fx, bx - qrt * np.sin(th))
        ty = np.where(stance, fy, by - qrt * np.cos(th))
        T = bx.size
        frames = np.zeros((T, 2, 7))
        frames[:, :, 3] = 1.0
        frames[:, 0, 0], frames[:, 0, 2] = bx, by
        frames[:, 1, 0], frames[:, 1, 2] = tx, ty
        zero = np.zeros(T)
        seg = np.stack([np.stack([bx, zero, by], 1), np.stack([tx, zero, ty], 1)], axis=1)[:, None]
        return Poses(frames, seg, np.zeros((T, 0, 2, 3)))

    shapes = (Shape("body", "sphere", (0.08,), "body"), Shape("foot", "sphere", (0.02,), "foot", color=LEG))
    return Scene("slip", ("body", "foot"), shapes, poser, ("leg",), terrain=ground_shapes, extent=qrt)


def hexapod_params(p: Mapping[str, float]) -> np.ndarray:
    """The hexapod's parameter vector rebuilt by name from a run's resolved parameters ``p`` (defaults for
    any missing), with a heightfield's ``hf_z0``, ``hf_z1`` … grid appended in order; each value checked
    against its range (``PARAM_RANGES``), and the terrain with
    :func:`~legsim.robots.rhex.terrain.check_terrain`."""
    from ..robots.rhex.params import P_HF_Z, PARAM_DEFAULTS, PARAM_INDEX, PARAM_RANGES
    from ..robots.rhex.terrain import check_terrain

    pvec = PARAM_DEFAULTS.copy()
    for name, value in p.items():
        if name in PARAM_INDEX:
            if not math.isfinite(as_float(value)):  # as the model, which refuses non-finite ones
                raise InputError(f"parameter '{name}' = {value!r}, expected a finite number")
            if name in PARAM_RANGES:
                PARAM_RANGES[name].check(float(value), f"parameter '{name}'")
            pvec[PARAM_INDEX[name]] = value
    grid: list[float] = []
    while f"hf_z{len(grid)}" in p:
        height = p[f"hf_z{len(grid)}"]
        if not math.isfinite(as_float(height)):
            raise InputError(f"parameter 'hf_z{len(grid)}' = {shown(height)}, expected a finite number")
        grid.append(height)
    pvec = np.concatenate([pvec[:P_HF_Z], np.asarray(grid, dtype=float)])
    check_terrain(pvec)
    return pvec


def hexapod_attach(pvec: np.ndarray) -> np.ndarray:
    """(6, 3) hip attachment points in the body frame [m] of the hexapod's parameter vector ``pvec``."""
    from ..robots.rhex.params import PARAM_INDEX

    return np.array([[pvec[PARAM_INDEX[f"attach{i}_{c}"]] for c in "xyz"] for i in range(6)])


def _hexapod(meta: Mapping[str, Any]) -> Scene:
    """SimSect's compliant hexapod: the body as a box through the hips, six legs hip → toe (massless
    compliant legs as segments), toe spheres, normal-force arrows along the terrain normal, and the
    terrain (plane, slopes, sinusoid or heightfield) as a surface."""
    from ..robots.rhex.terrain import TerrainType, terrain_height, terrain_normal

    p = run_params(meta)
    pvec = hexapod_params(p)
    attach = hexapod_attach(pvec)
    lo, hi = attach.min(axis=0), attach.max(axis=0)
    size = np.maximum(hi - lo, 0.05) + np.array([0.04, 0.04, 0.04])
    centre = (hi + lo) / 2
    weight = float(p.get("body_mass", 7.0)) * 9.81
    n_per_m = weight / 0.3
    who = "scene of hexapod"

    def poser(columns: Columns) -> Poses:
        pos = np.stack([drawn_column(columns, c, who) for c in "xyz"], axis=1)
        R = np.stack([drawn_column(columns, f"R_{i}{j}", who) for i in (1, 2, 3) for j in (1, 2, 3)],
                     axis=1).reshape(-1, 3, 3)
        toes = np.stack([drawn_column(columns, f"f{i}_{c}", who) for i in range(6) for c in "xyz"],
                        axis=1).reshape(-1, 6, 3)
        T = pos.shape[0]
        frames = np.empty((T, 7, 7))
        frames[:, 0] = _placements(pos, R)
        frames[:, 1:, :3] = toes
        frames[:, 1:, 3:] = (1.0, 0.0, 0.0, 0.0)
        hips = pos[:, None, :] + np.einsum("tij,kj->tki", R, attach)
        segs = np.stack([hips, toes], axis=2)
        fn = np.stack([np.asarray(columns.get(f"normal_force{i}", np.zeros(T)), dtype=float)
                       for i in range(6)], axis=1)
        normal = terrain_normal(pvec, toes[..., 0], toes[..., 1]) if fn.any() \
            else np.broadcast_to([0.0, 0.0, 1.0], toes.shape)
        return Poses(frames, segs, _arrows(toes, normal, fn, n_per_m))

    shapes = [Shape("body", "box", tuple(size), "body", np.eye(3), centre)]
    shapes += [Shape(f"toe{i}", "sphere", (0.012,), f"toe{i}", color=LEG) for i in range(6)]
    def terrain(area: Area) -> list[Shape]:
        if int(p.get("terrain_type", TerrainType.FLAT)) == TerrainType.FLAT:  # the plane z = 0
            return ground_shapes(area)
        return [heightmap_shape(lambda X, Y: terrain_height(pvec, X, Y), area)]

    return Scene("hexapod", ("body", *(f"toe{i}" for i in range(6))), tuple(shapes), poser,
                 tuple(f"leg{i}" for i in range(6)), tuple(f"normal_force{i}" for i in range(6)), terrain,
                 n_per_m, extent=float(np.ptp(attach[:, :2], axis=0).max()) + 0.2)


def _point_mass(kind: str, x: str | None, z: str | None, size: float, ground_z: float = 0.0):
    def build(meta: Mapping[str, Any]) -> Scene:
        def poser(columns: Columns) -> Poses:
            n = len(next(iter(columns.values())))
            frames = np.zeros((n, 1, 7))
            frames[:, 0, 3] = 1.0
            if x is not None:
                frames[:, 0, 0] = drawn_column(columns, x, f"scene of {kind}")
            if z is not None:
                frames[:, 0, 2] = drawn_column(columns, z, f"scene of {kind}")
            frames[:, 0, 2] += size / 2 if kind == "box" else 0.0
            return Poses(frames, np.zeros((n, 0, 2, 3)), np.zeros((n, 0, 2, 3)))

        dims = (size, size, size) if kind == "box" else (size / 2,)
        return Scene(str(meta.get("model", kind)), ("body",), (Shape("body", kind, dims, "body"),), poser,
                     terrain=lambda area: ground_shapes(area, offset=ground_z), extent=4 * size)
    return build


def _crr_leg(meta: Mapping[str, Any]) -> Scene:
    """The CRR 3-DoF pneumatic leg: its links (:func:`legsim.robots.crr_leg.geometry.crr_leg_bodies`)
    and its three cylinders on the default linkages (:class:`LinkageCylinder`)."""
    from ..actuators.pneumatic.cylinder import Cylinder
    from ..robots.crr_leg.geometry import crr_leg_bodies, default_linkages

    mb = crr_leg_bodies()
    cyl = [LinkageCylinder(j, j, lk, Cylinder().bore) for j, lk in zip(mb.joint_names, default_linkages(),
                                                                       strict=True)]
    return multibody_scene(mb, list(mb.joint_names), cylinders=cyl, name="crr_leg")


SCENES: dict[str, Callable[[Mapping[str, Any]], Scene]] = {
    "slip": _slip,
    "hexapod": _hexapod,
    "crr_leg": _crr_leg,
    "bouncing_ball": _point_mass("sphere", None, "y", 0.1),
    "coulomb_block": _point_mass("box", "x", None, 0.1),
}
"""Registered model name -> scene builder from a run's metadata (``run.json``)."""


def robot_builder(function: str, **keywords: Any) -> dict[str, Any]:
    """What a run written by Python code records (its metadata's ``robot_builder``) so that
    ``legsim view`` can rebuild the robot's geometry: ``function`` ("package.module:name", or
    "file.py:name" for a function in a script of your own, kept as its absolute path) called with
    ``keywords`` (plain values, as JSON keeps them) returns the :class:`legsim.assembly.Robot`, or a robot
    package's wrapper of it (its ``robot``: RATS, LIBRA). A script is run as a module to find the
    function: keep what it does when run under ``if __name__ == "__main__":``."""
    module, sep, name = function.rpartition(":")
    if sep and module.endswith(".py"):
        function = f"{user_path(module, 'builder script').resolve()}:{name}"
    return {"function": function, "keywords": keywords}


def _rebuild(builder: Mapping[str, Any], where: str | Path) -> Any:
    import inspect

    from .._references import load_function

    name = str(builder.get("function", ""))
    function = load_function(name, where=f"{where}: the run's robot_builder", reuse=True,
                             file_kind="robot builder file")
    keywords = dict(builder.get("keywords", {}))
    try:
        inspect.signature(function).bind(**keywords)
    except TypeError as exc:
        raise InputError(f"{where}: the run's robot_builder {name!r} does not take its keywords "
                         f"{sorted(keywords)}: {exc}") from None
    try:
        built = function(**keywords)
    except InputError as exc:
        raise InputError(f"{where}: the run's robot_builder {name!r}: {exc}") from None
    except Exception as exc:  # the user's builder fails: say where and why
        raise InputError(f"{where}: the run's robot_builder {name!r} failed: "
                         f"{describe_failure(exc)}") from None
    return getattr(built, "robot", built)


def scene_for_run(meta: Mapping[str, Any], where: str | Path = "run") -> Scene:
    """The scene of a run from its metadata: a robot from a hardware file (the scenario's ``robot``)
    is rebuilt from that file; a robot built in Python by the function that its run names
    (:func:`robot_builder`); a registered model uses :data:`SCENES`. ``meta``: a run's metadata
    (``load_run(DIR).meta``, or at least its ``model`` and ``scenario``); ``where`` (a string or path: the
    run directory) opens the messages."""
    if not (isinstance(where, (str, Path)) and str(where)):
        raise InputError(f"scene_for_run: 'where' = {shown(where)}, expected the run's directory or name (a "
                         "string, for messages)")
    if not isinstance(meta, Mapping):
        raise InputError(f"{where}: scene_for_run: 'meta' = {shown(meta)}, expected a run's metadata (a "
                         "mapping: load_run(DIR).meta)")
    builder = meta.get("robot_builder")
    if builder is not None and not (isinstance(builder, Mapping) and isinstance(builder.get("function"), str)
                                    and isinstance(builder.get("keywords", {}), Mapping)):
        raise InputError(f"{where}: scene_for_run: 'meta' has the robot_builder {shown(builder)}, "
                         "expected a table of the 'function' that builds the robot and its 'keywords' "
                         "(robot_builder())")
    if builder:
        return robot_scene(_rebuild(builder, where))
    sc = meta.get("scenario", {}) or {}
    if not isinstance(sc, Mapping):
        raise InputError(f"{where}: scene_for_run: 'meta' has the scenario {shown(sc)}, expected a table "
                         "(the run's resolved scenario)")
    robot_file = sc.get("robot")
    if robot_file and not isinstance(robot_file, str):
        raise InputError(f"{where}: scene_for_run: 'meta' has the robot file {shown(robot_file)}, expected "
                         "the path of the run's hardware file")
    if robot_file:
        from ..assembly.hardware import load_parts

        path = Path(robot_file)
        if not path.is_file():
            raise InputError(f"{where}: the run's robot file {robot_file} no longer exists; the viewer "
                             "rebuilds the robot's geometry from it")
        return robot_scene(load_parts(path, overrides=sc.get("hardware_overrides")))
    if not isinstance(meta.get("model"), str):
        raise InputError(f"{where}: scene_for_run: 'meta' names no model (its 'model' = "
                         f"{shown(meta.get('model'))}), expected a run's metadata (load_run(DIR).meta)")
    name = meta["model"]
    if name not in SCENES:
        raise InputError(f"{where}: no 3-D scene for model {name!r}; available: {', '.join(sorted(SCENES))} "
                         "and robots from hardware files")
    try:
        return SCENES[name](meta)
    except InputError as exc:  # the run's parameters do not draw its model
        raise InputError(f"{where}: {exc}") from None
