"""Robot description (editable builder) and its compiled, frozen :class:`Model`.

Build a robot body by body with :class:`RobotBuilder` (or load one with
:func:`legsim.multibody.load_urdf`), then ``compile()`` it into a :class:`Model` of flat numpy arrays
(DESIGN.md convention 1). ``model.make_data()`` preallocates the scratch the kernels write to.

Configuration conventions
-------------------------
- Fixed base: ``q`` and ``v`` follow ``model.joint_names`` (one entry per revolute/prismatic joint,
  rad or m, rad/s or m/s).
- Floating base (Pinocchio's convention): a free joint contributes
  ``q = [x, y, z, qx, qy, qz, qw]`` (position of the body origin in the parent frame, m; unit
  quaternion, scalar last) and ``v = [vx, vy, vz, wx, wy, wz]``: the body twist in **body axes**
  (linear velocity of the body origin and angular velocity, both expressed in the body frame).
  ``dq/dt`` is therefore not ``v``; use :func:`legsim.multibody.qdot` or
  :func:`legsim.multibody.integrate`.
- Joints are ordered as bodies are (parents first); body 0 is the world.

Fixed joints are merged at compile time: the child's inertia is added to the nearest moving ancestor
(parallel-axis theorem; a massless child's rotational inertia is kept too, as in Pinocchio), and the
child's name becomes a frame on that ancestor; its geometry and frames move with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..contact.shapes import MAX_LENGTH
from ..errors import InputError, as_float, as_floats, lookup, shown
from ._layout import (
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    DataArrays,
    ModelArrays,
    data_buffer_size,
    data_from_buffer,
    model_from_buffers,
    pack_model,
)
from ._spatial import rpy_to_rot, spatial_inertia

ROTATION_RANGE = (1e-150, 1e150)
"""A quaternion (or a point on Pinocchio's unit circle) whose largest magnitude is outside this range is
first divided by it before it is normalised (the sum of its squares would underflow to 0 or overflow)."""

JOINT_TYPES = {"free": JOINT_FREE, "revolute": JOINT_REVOLUTE, "prismatic": JOINT_PRISMATIC, "fixed": -1}
SHAPES = {"box": ("size",), "sphere": ("radius",), "cylinder": ("radius", "length"),
          "capsule": ("radius", "length"), "mesh": ("filename",)}
Data = DataArrays


@dataclass(frozen=True)
class Geometry:
    """A collision shape record attached to a body (collision itself lives in ``legsim.contact``).

    ``shape``: ``box`` (``size`` = full edge lengths (3,), m), ``sphere`` (``radius``),
    ``cylinder`` / ``capsule`` (``radius``, ``length`` of the cylindrical part along the local z
    axis, m), ``mesh`` (``filename``, optional ``scale`` (3,); from :func:`~legsim.multibody.load_urdf`
    also ``vertices`` (n, 3) m and ``faces`` (k, 3) int: the scaled mesh's convex hull in the
    geometry frame, outward faces, read-only; ``uri``: the filename as written in the URDF).
    ``R`` (3, 3), ``p`` (3,): placement in the body frame. ``material``: contact-material name used
    to pick the contact law. ``name`` and ``body`` are non-empty strings, ``material`` a string; made
    directly, the record is checked as :meth:`RobotBuilder.add_geometry` checks it (``R`` finite, ``p``,
    ``radius``, ``length`` and ``size`` within ±:data:`~legsim.contact.shapes.MAX_LENGTH` (1e6 m, what the
    contact shapes take), the shape's parameters present; whether ``body`` exists is the builder's to check).
    """

    name: str
    body: str
    shape: str
    params: dict
    R: np.ndarray
    p: np.ndarray
    material: str = "default"

    def __post_init__(self):
        where = f"Geometry {_text('Geometry', 'name', self.name)!r}"
        _text(where, "body", self.body)
        if not (isinstance(self.shape, str) and self.shape in SHAPES):
            raise InputError(f"{where}: shape = {shown(self.shape)}, expected one of {sorted(SHAPES)}")
        if not isinstance(self.material, str):
            raise InputError(f"{where}: material = {shown(self.material)}, expected a string")
        object.__setattr__(self, "params", _shape_params(where, self.shape, self.params))
        object.__setattr__(self, "R", _floats(where, "R", self.R, (3, 3)))
        object.__setattr__(self, "p", _floats(where, "p", self.p, (3,), MAX_LENGTH))


@dataclass
class BodySpec:
    """One body and the joint that connects it to its parent (editable; see :class:`RobotBuilder`)."""

    name: str
    parent: str
    joint_type: str
    joint_name: str
    R: np.ndarray  # joint placement in the parent body frame
    p: np.ndarray
    axis: np.ndarray
    mass: float
    com: np.ndarray
    inertia: np.ndarray  # (3, 3) about the centre of mass, body axes
    limits: tuple[float, float] | None = None
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0
    effort: float = 0.0
    velocity: float = 0.0


def _floats(where: str, name: str, value, shape: tuple[int, ...], bound: float = np.inf) -> np.ndarray:
    """``value`` as a finite float array of ``shape`` (any layout of as many numbers), each within
    ±``bound`` (a length: :data:`~legsim.contact.shapes.MAX_LENGTH` [m]), else an InputError from ``where``
    naming ``name``."""
    a = as_floats(value)
    size = int(np.prod(shape))
    if a.size != size or not np.all(np.abs(a) <= bound) or not np.all(np.isfinite(a)):
        what = "x".join(map(str, shape)) if len(shape) > 1 else str(size)
        within = f" within ±MAX_LENGTH = {bound:g} m" if bound < np.inf else ""
        raise InputError(f"{where}: {name} = {shown(value)}, expected {what} finite numbers{within}")
    return a.reshape(shape)


def _number(where: str, name: str, value, lo: float = 0.0, inf_ok: bool = False, hi: float = np.inf) -> float:
    """``value`` as a finite float in [``lo``, ``hi``] (or inf with ``inf_ok``: no limit), else an
    InputError from ``where`` naming ``name``."""
    v = as_float(value)
    if not (lo <= v <= hi and np.isfinite(v) or inf_ok and v == np.inf):
        what = f"a number >= {lo:g} (inf: none)" if inf_ok else f"a finite number in [{lo:g}, {hi:g}]"
        raise InputError(f"{where}: {name} = {shown(value)}, expected {what}")
    return v


def _text(where: str, name: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: {name} = {value!r}, expected a non-empty string")
    return value


def _shape_params(where: str, shape: str, params) -> dict:
    """A geometry's ``params`` (a mapping) for ``shape`` (one of :data:`SHAPES`) as a new dict: the shape's
    keys present, ``radius`` and ``length`` numbers in [0, MAX_LENGTH] [m] (as floats), ``size`` 3 of them
    (a tuple); else an InputError from ``where``."""
    if not isinstance(params, Mapping):
        raise InputError(f"{where}: params = {shown(params)}, expected a mapping of the {shape}'s "
                         f"parameters ({', '.join(SHAPES[shape])})")
    params = dict(params)
    for key in SHAPES[shape]:
        if key not in params:
            raise InputError(f"{where}: missing parameter {key!r} (params = {shown(params)})")
    for key in ("radius", "length"):
        if key in params:
            params[key] = _number(where, key, params[key], hi=MAX_LENGTH)
    if "size" in params:
        size = _floats(where, "size", params["size"], (3,), MAX_LENGTH)
        if np.any(size < 0.0):
            raise InputError(f"{where}: size must be >= 0, got {params['size']!r}")
        params["size"] = tuple(float(v) for v in size)
    return params


def _placement(xyz, rpy, rotation, where: str):
    """(R (3, 3), p (3,)) of a placement: ``xyz`` within ±MAX_LENGTH [m], ``rpy`` [rad] or ``rotation``."""
    p = _floats(where, "xyz", xyz, (3,), MAX_LENGTH)
    if rotation is None:
        R = rpy_to_rot(_floats(where, "rpy", rpy, (3,)))
    else:
        R = _floats(where, "rotation", rotation, (3, 3))
    return R, p


def _inertia_matrix(inertia, where):
    a = as_floats(inertia)
    if a.shape == (6,):
        ixx, iyy, izz, ixy, ixz, iyz = a
        a = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    elif a.shape == (3,):
        a = np.diag(a)
    if a.shape != (3, 3) or not np.all(np.isfinite(a)):
        raise InputError(f"{where}: inertia must be finite (3, 3), (3,) diagonal or (6,) "
                         f"[ixx, iyy, izz, ixy, ixz, iyz], got {inertia!r}")
    if not np.allclose(a, a.T, atol=1e-12 * max(1.0, np.abs(a).max())):
        raise InputError(f"{where}: inertia matrix must be symmetric, got {a.tolist()}")
    return a


@dataclass
class RobotBuilder:
    """Editable robot description: bodies, joints, frames and geometry. ``compile()`` -> :class:`Model`.

    ``gravity`` (3,) m/s^2; ``friction_velocity`` (m/s or rad/s) regularises Coulomb joint friction;
    ``limit_stiffness`` / ``limit_damping`` are the gains of the joint-limit force law applied to
    every joint that has ``limits`` (0 disables the law; see ``_kernels.passive_forces``).

    Example
    -------
    >>> b = RobotBuilder("pendulum")
    >>> b.add_body("link", parent="world", joint="revolute", axis=(0, 1, 0), mass=1.0,
    ...            com=(0, 0, -0.5), inertia=np.diag([1e-3, 1e-3, 1e-3]))
    'link'
    >>> model = b.compile()
    """

    name: str = "robot"
    gravity: tuple = (0.0, 0.0, -9.81)
    friction_velocity: float = 1e-3
    limit_stiffness: float = 0.0
    limit_damping: float = 0.0
    bodies: list = field(default_factory=list)
    frames: list = field(default_factory=list)  # (name, body, R, p)
    geometries: list = field(default_factory=list)

    def _names(self):
        return {"world"} | {b.name for b in self.bodies}

    def add_body(self, name, parent="world", joint="revolute", *, joint_name=None, xyz=(0, 0, 0),
                 rpy=(0, 0, 0), rotation=None, axis=(0, 0, 1), mass=0.0, com=(0, 0, 0),
                 inertia=(0.0, 0.0, 0.0), limits=None, damping=0.0, friction=0.0, armature=0.0,
                 effort=0.0, velocity=0.0):
        """Add a body hanging from ``parent`` by a joint of type ``free|revolute|prismatic|fixed``.

        ``xyz`` (m) / ``rpy`` (rad) or ``rotation`` (3, 3): joint frame in the parent body frame
        (the body frame coincides with the joint frame). ``axis`` (3,): joint axis in the joint frame.
        ``mass`` kg, ``com`` (3,) m and ``inertia`` (about the centre of mass, body axes, kg m^2) in
        the body frame. ``limits`` (lower, upper) rad or m for the limit force law; ``damping``
        N m s/rad, ``friction`` (Coulomb) N m, ``armature`` kg m^2 (or N m, N, kg for prismatic);
        ``effort`` N m (or N) and ``velocity`` rad/s (or m/s) limits, 0: not given, inf: none.
        Lengths (``xyz``, ``com``, finite ``limits``) lie within
        ±:data:`~legsim.contact.shapes.MAX_LENGTH` (1e6 m, what the contact shapes take; a limit of -inf
        or inf: no stop on that side).
        """
        where = f"body {_text('add_body', 'name', name)!r}"
        if name in self._names():
            raise InputError(f"{where}: duplicate body name (names must be unique; 'world' is reserved)")
        if not isinstance(parent, str) or parent not in self._names():
            raise InputError(f"{where}: parent {parent!r} is not a known body (add parents first)")
        if joint_name is not None:
            _text(where, "joint_name", joint_name)
        if not isinstance(joint, str) or joint not in JOINT_TYPES:
            raise InputError(f"{where}: unknown joint type {joint!r} for joint "
                             f"{joint_name or name!r}; expected one of {sorted(JOINT_TYPES)}")
        R, p = _placement(xyz, rpy, rotation, where)
        ax = _floats(where, "axis", axis, (3,))
        if joint in ("revolute", "prismatic"):
            if not np.abs(ax).max() > 0:
                raise InputError(f"{where}: joint axis must be non-zero, got {tuple(axis)}")
            if not 1e-150 < np.abs(ax).max() < 1e150:  # first to the unit cube: the norm of a 1e154
                ax = ax / np.abs(ax).max()              # component overflows, of a 1e-168 one is 0
            ax = ax / np.linalg.norm(ax)
        if not (np.isfinite(as_float(mass)) and mass >= 0.0):
            raise InputError(f"{where}: mass must be a finite value >= 0 kg, got {mass!r}")
        I3 = _inertia_matrix(inertia, where)
        if np.linalg.eigvalsh(I3).min() < -1e-12 * max(1.0, np.abs(I3).max()):
            raise InputError(f"{where}: inertia must be positive semi-definite, got {I3.tolist()}")
        if limits is not None:
            bounds = [as_float(x) for x in limits] if isinstance(limits, (list, tuple, np.ndarray)) else []
            if (len(bounds) != 2 or not bounds[0] <= bounds[1] or np.inf in (bounds[0], -bounds[1])
                    or any(np.isfinite(b) and abs(b) > MAX_LENGTH for b in bounds)):
                raise InputError(f"{where}: joint limits must be (lower, upper) with lower <= upper, each "
                                 f"within ±MAX_LENGTH = {MAX_LENGTH:g} rad or m (-inf or inf: no stop on "
                                 f"that side), got {shown(limits)}")
            limits = (bounds[0], bounds[1])
        damping, friction, armature = (_number(where, key, val) for key, val in
                                       (("damping", damping), ("friction", friction), ("armature", armature)))
        effort, velocity = (_number(where, key, val, inf_ok=True)  # 0: not given; inf: no limit
                            for key, val in (("effort", effort), ("velocity", velocity)))
        self.bodies.append(BodySpec(name, parent, joint, joint_name or name, R, p, ax, float(mass),
                                    _floats(where, "com", com, (3,), MAX_LENGTH), I3, limits,
                                    float(damping), float(friction), float(armature),
                                    float(effort), float(velocity)))
        return name

    def add_frame(self, name, body, xyz=(0, 0, 0), rpy=(0, 0, 0), rotation=None):
        """Add an operational frame on ``body`` at ``xyz`` (m) / ``rpy`` (rad) in the body frame."""
        where = f"frame {_text('add_frame', 'name', name)!r}"
        if not isinstance(body, str) or body not in self._names():
            raise InputError(f"{where}: body {body!r} is not a known body")
        R, p = _placement(xyz, rpy, rotation, where)
        self.frames.append((name, body, R, p))
        return name

    def add_geometry(self, body, shape, *, xyz=(0, 0, 0), rpy=(0, 0, 0), rotation=None,
                     material="default", name=None, **params):
        """Attach a collision shape record to ``body`` (see :class:`Geometry` for ``params``)."""
        if not isinstance(body, str) or body not in self._names():
            raise InputError(f"geometry on {body!r}: body is not a known body")
        if not isinstance(shape, str) or shape not in SHAPES:
            raise InputError(f"geometry on {body!r}: unknown shape {shape!r}; "
                             f"expected one of {sorted(SHAPES)}")
        where = f"geometry {shape!r} on {body!r}"
        params = _shape_params(where, shape, params)
        if name is not None:
            _text(where, "name", name)
        R, p = _placement(xyz, rpy, rotation, where)
        gname = name or f"{body}_{shape}_{len(self.geometries)}"
        self.geometries.append(Geometry(gname, body, shape, params, R, p, str(material)))
        return gname

    def compile(self) -> Model:
        """Merge fixed joints, number the DoFs and freeze everything into a :class:`Model`."""
        where = f"RobotBuilder {self.name!r}"
        _text("RobotBuilder", "name", self.name)
        _floats(where, "gravity", self.gravity, (3,))
        _number(where, "friction_velocity", self.friction_velocity)
        if not self.friction_velocity > 0.0:
            raise InputError(f"{where}: friction_velocity must be > 0, got {self.friction_velocity!r}")
        _number(where, "limit_stiffness", self.limit_stiffness)
        _number(where, "limit_damping", self.limit_damping)
        return _compile(self)


def _merge_inertia(m1, c1, I1, m2, c2, I2):
    """Sum of two rigid inertias (parallel-axis theorem); c, I in the same frame.

    A massless part may still carry rotational inertia (URDF ``<mass value="0">`` with a non-zero
    ``<inertia>``, kept as Pinocchio keeps it): a pure rotational inertia is the same about every
    point, so it adds unchanged. With no mass at all the COM is that of the first part."""
    m = m1 + m2
    c = (m1 * c1 + m2 * c2) / m if m > 0.0 else np.array(c1, dtype=float)
    out = np.zeros((3, 3))
    for mi, ci, Ii in ((m1, c1, I1), (m2, c2, I2)):
        dd = ci - c
        out += Ii + mi * (dd @ dd * np.eye(3) - np.outer(dd, dd))
    return m, c, out


def _compile(b: RobotBuilder) -> Model:
    # effective (moving body, placement in it) of every spec body
    eff = {"world": ("world", np.eye(3), np.zeros(3))}
    moving: list[BodySpec] = []
    inert: dict[str, tuple] = {}
    extra_frames = []
    for s in b.bodies:
        pb, pR, pp = eff[s.parent]
        R = pR @ s.R
        p = pp + pR @ s.p
        if s.joint_type == "fixed":
            eff[s.name] = (pb, R, p)
            extra_frames.append((s.name, pb, R, p))
            if pb != "world" and (s.mass > 0.0 or np.any(s.inertia != 0.0)):
                m0, c0, I0 = inert[pb]
                inert[pb] = _merge_inertia(m0, c0, I0, s.mass, p + R @ s.com, R @ s.inertia @ R.T)
        else:
            eff[s.name] = (s.name, np.eye(3), np.zeros(3))
            moving.append(BodySpec(s.name, pb, s.joint_type, s.joint_name, R, p, s.axis, s.mass,
                                   s.com, s.inertia, s.limits, s.damping, s.friction, s.armature,
                                   s.effort, s.velocity))
            inert[s.name] = (s.mass, s.com.copy(), s.inertia.copy())
    for s in moving:
        if not inert[s.name][0] > 0.0:
            raise InputError(f"body {s.name!r} (moved by {s.joint_type} joint {s.joint_name!r}) has no mass: "
                             f"expected a positive mass on it or on bodies fixed to it (missing "
                             f"<inertial>?), got {inert[s.name][0]!r} kg")
    names = ["world"] + [s.name for s in moving]
    index = {n: i for i, n in enumerate(names)}
    nb = len(names)
    parent = np.full(nb, -1, dtype=np.int64)
    jtype = np.zeros(nb, dtype=np.int64)
    qadr = np.full(nb, -1, dtype=np.int64)
    dadr = np.full(nb, -1, dtype=np.int64)
    jnv = np.zeros(nb, dtype=np.int64)
    jR = np.tile(np.eye(3), (nb, 1, 1))
    jp = np.zeros((nb, 3))
    jaxis = np.zeros((nb, 3))
    mass = np.zeros(nb)
    com = np.zeros((nb, 3))
    I3 = np.zeros((nb, 3, 3))
    I6 = np.zeros((nb, 6, 6))
    S_rows: list = []
    dof_body: list = []
    dof_q: list = []
    dof_arm: list = []
    dof_damp: list = []
    dof_fric: list = []
    dof_lim: list = []
    dof_rng: list = []
    dof_eff: list = []
    dof_vel: list = []
    joint_names, jnt_names = [], [""]
    nq = nv = 0
    for i, s in enumerate(moving, start=1):
        parent[i] = index[s.parent]
        jtype[i] = JOINT_TYPES[s.joint_type]
        jR[i], jp[i], jaxis[i] = s.R, s.p, s.axis
        mass[i], com[i], I3[i] = inert[s.name]
        with np.errstate(over="ignore", invalid="ignore"):  # refused just below, by name
            I6[i] = spatial_inertia(mass[i], com[i], I3[i])
        if not np.all(np.isfinite(I6[i])):
            raise InputError(f"body {s.name!r}: mass {float(mass[i])!r} kg, com {com[i].tolist()} m and "
                             f"inertia {I3[i].tolist()} kg m^2 overflow its spatial inertia (m c^2): "
                             "expected lengths and masses of a robot")
        qadr[i], dadr[i] = nq, nv
        jnt_names.append(s.joint_name)
        if s.joint_type == "free":
            jnv[i] = 6
            S_rows.extend(np.eye(6))
            dof_body.extend([i] * 6)
            dof_q.extend([-1] * 6)
            for lst, val in ((dof_arm, 0.0), (dof_damp, 0.0), (dof_fric, 0.0), (dof_lim, 0),
                             (dof_eff, 0.0), (dof_vel, 0.0)):
                lst.extend([val] * 6)
            dof_rng.extend([(0.0, 0.0)] * 6)
            nq += 7
            nv += 6
        else:
            jnv[i] = 1
            col = np.zeros(6)
            if s.joint_type == "revolute":
                col[3:] = s.axis
            else:
                col[:3] = s.axis
            S_rows.append(col)
            dof_body.append(i)
            dof_q.append(nq)
            dof_arm.append(s.armature)
            dof_damp.append(s.damping)
            dof_fric.append(s.friction)
            dof_lim.append(0 if s.limits is None else 1)
            dof_rng.append((-np.inf, np.inf) if s.limits is None else s.limits)
            dof_eff.append(s.effort)
            dof_vel.append(s.velocity)
            joint_names.append(s.joint_name)
            nq += 1
            nv += 1
    frames = [(n, n, np.eye(3), np.zeros(3)) for n in names]
    frames += extra_frames
    for fname, body, R, p in b.frames:
        eb, eR, ep = eff[body]
        frames.append((fname, eb, eR @ R, ep + eR @ p))
    fnames = [f[0] for f in frames]
    if len(set(fnames)) != len(fnames):
        dup = sorted({n for n in fnames if fnames.count(n) > 1})
        raise InputError(f"frame names must be unique; duplicated: {dup}")
    geoms = []
    for g in b.geometries:
        eb, eR, ep = eff[g.body]
        geoms.append(Geometry(g.name, eb, g.shape, g.params, eR @ g.R, ep + eR @ g.p, g.material))

    def arr(x, dtype=float, shape=None):
        a = np.array(x, dtype=dtype)
        if shape is not None:
            a = a.reshape(shape)
        a.setflags(write=False)
        return a

    fields = dict(
        body_parent=arr(parent, np.int64), jnt_type=arr(jtype, np.int64), jnt_qposadr=arr(qadr, np.int64),
        jnt_dofadr=arr(dadr, np.int64), jnt_nv=arr(jnv, np.int64), jnt_R=arr(jR), jnt_p=arr(jp),
        jnt_axis=arr(jaxis), body_I=arr(I6), dof_S=arr(S_rows, shape=(nv, 6)),
        dof_body=arr(dof_body, np.int64, (nv,)), dof_qposadr=arr(dof_q, np.int64, (nv,)),
        dof_armature=arr(dof_arm, shape=(nv,)), dof_damping=arr(dof_damp, shape=(nv,)),
        dof_frictionloss=arr(dof_fric, shape=(nv,)), dof_limited=arr(dof_lim, np.int64, (nv,)),
        dof_range=arr(dof_rng, shape=(nv, 2)),
        dof_limit_stiffness=arr(b.limit_stiffness * np.array(dof_lim, dtype=float).reshape(nv)),
        dof_limit_damping=arr(b.limit_damping * np.array(dof_lim, dtype=float).reshape(nv)),
        gravity=arr(b.gravity, shape=(3,)), opt=arr([b.friction_velocity]),
        frame_body=arr([index[f[1]] for f in frames], np.int64),
        frame_R=arr([f[2] for f in frames], shape=(len(frames), 3, 3)),
        frame_p=arr([f[3] for f in frames], shape=(len(frames), 3)),
    )
    fbuf, ibuf = pack_model(fields, nb, nv, len(frames))
    return Model(name=b.name, nq=nq, nv=nv, nbody=nb, body_names=tuple(names),
                 joint_names=tuple(joint_names), jnt_names=tuple(jnt_names), frame_names=tuple(fnames),
                 geometries=tuple(geoms), body_mass=arr(mass), body_com=arr(com), body_inertia=arr(I3),
                 dof_effort=arr(dof_eff, shape=(nv,)), dof_velocity=arr(dof_vel, shape=(nv,)),
                 arrays=model_from_buffers(fbuf, ibuf), fbuf=fbuf, ibuf=ibuf)


@dataclass(frozen=True, eq=False)
class Model:
    """Compiled, read-only multibody model (flat arrays; see the module docstring for conventions).

    Attributes: ``nq``, ``nv``, ``nbody`` (incl. world body 0); ``body_names``; ``joint_names``
    (revolute/prismatic joints in q order); ``jnt_names`` (joint name per body); ``frame_names``;
    ``geometries``; ``body_mass`` (nbody,) kg, ``body_com`` (nbody, 3) m, ``body_inertia``
    (nbody, 3, 3) kg m^2 about the COM; ``arrays`` (:class:`ModelArrays`, passed to the kernels:
    read-only views of the flat buffers ``fbuf``/``ibuf``, see ``_layout``).
    Array fields of ``arrays`` are also readable as attributes (``model.body_parent``,
    ``model.jnt_qposadr``, ``model.jnt_dofadr``, ...).
    """

    name: str
    nq: int
    nv: int
    nbody: int
    body_names: tuple
    joint_names: tuple
    jnt_names: tuple
    frame_names: tuple
    geometries: tuple
    body_mass: np.ndarray
    body_com: np.ndarray
    body_inertia: np.ndarray
    dof_effort: np.ndarray
    dof_velocity: np.ndarray
    arrays: ModelArrays
    fbuf: np.ndarray
    ibuf: np.ndarray

    @cached_property
    def kernel_buffers(self) -> tuple[np.ndarray, np.ndarray]:
        """``(fbuf, ibuf)`` as the compiled kernels are called with them: private writable copies.
        numba types a read-only array apart from a writable one and compiles every kernel once for
        each; the robots' hooks view the model inside their writable parameter vector, so the
        Python-side calls (:mod:`legsim.multibody.dynamics`, :class:`legsim.world.RobotWorld`) use
        these to share the hooks' compiled kernels. Nothing writes to them; ``fbuf``, ``ibuf`` and
        ``arrays`` stay read-only."""
        return np.array(self.fbuf, dtype=np.float64), np.array(self.ibuf, dtype=np.int64)

    @cached_property
    def kernel_arrays(self) -> ModelArrays:
        """The :class:`ModelArrays` viewing :attr:`kernel_buffers` (what a kernel taking the model's
        named tuple is called with)."""
        return model_from_buffers(*self.kernel_buffers)

    def __getattr__(self, key):
        arrays = object.__getattribute__(self, "arrays")
        if key in ModelArrays._fields:
            return getattr(arrays, key)
        raise AttributeError(key)

    @property
    def nframe(self) -> int:
        return len(self.frame_names)

    @property
    def floating_base(self) -> bool:
        """True if any body has a free joint."""
        return bool(np.any(self.arrays.jnt_type == JOINT_FREE))

    def total_mass(self) -> float:
        """Sum of the body masses, kg."""
        return float(self.body_mass.sum())

    def frame_id(self, name) -> int:
        """Index of a frame (every body name is also a frame name)."""
        if isinstance(name, (int, np.integer)):
            if not 0 <= int(name) < self.nframe:
                raise InputError(f"frame index {name} out of range [0, {self.nframe})")
            return int(name)
        return lookup("frame", name, self.frame_names, self.name)

    def body_id(self, name) -> int:
        """Index of a body by name (0 is the world)."""
        return lookup("body", name, self.body_names, self.name)

    def neutral(self) -> np.ndarray:
        """Neutral configuration (nq,): zeros with identity quaternions (qw = 1)."""
        q = np.zeros(self.nq)
        a = self.arrays
        for i in range(1, self.nbody):
            if a.jnt_type[i] == JOINT_FREE:
                q[a.jnt_qposadr[i] + 6] = 1.0
        return q

    def coordinate_names(self) -> tuple[list[str], list[str], list[str]]:
        """Names of the nq positions, the nv velocities and the quaternion components (a free
        joint ``j`` gives ``j_x``..``j_qw``, ``j_vx``..``j_wz`` and ``j_qx_unit``..``j_qw_unit``;
        a 1-DoF joint its name and ``<name>_dot``)."""
        a = self.arrays
        qn: list[str] = []
        vn: list[str] = []
        quat: list[str] = []
        for i in range(1, self.nbody):
            jn = self.jnt_names[i]
            if a.jnt_type[i] == JOINT_FREE:
                qn += [f"{jn}_{c}" for c in ("x", "y", "z", "qx", "qy", "qz", "qw")]
                vn += [f"{jn}_{c}" for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
                quat += [f"{jn}_{c}_unit" for c in ("qx", "qy", "qz", "qw")]
            else:
                qn.append(jn)
                vn.append(f"{jn}_dot")
        return qn, vn, quat

    def normalise_quaternions(self, x: np.ndarray) -> np.ndarray:
        """A copy of ``x`` (at least nq long, positions first) with each free joint's quaternion
        scaled to unit length (:class:`InputError` for a zero quaternion)."""
        a = self.arrays
        x = np.array(x, dtype=float)
        for i in range(1, self.nbody):
            if a.jnt_type[i] == JOINT_FREE:
                k = a.jnt_qposadr[i] + 3
                size = float(np.abs(x[k:k + 4]).max())
                if not 0.0 < size < np.inf:  # NaN too
                    raise InputError(f"initial state: quaternion of free joint {self.jnt_names[i]!r} is "
                                     f"{'zero' if size == 0.0 else 'not finite'}: {x[k:k + 4].tolist()}")
                if not ROTATION_RANGE[0] <= size <= ROTATION_RANGE[1]:  # its squares would overflow or vanish
                    x[k:k + 4] /= size
                x[k:k + 4] /= np.linalg.norm(x[k:k + 4])
        return x

    def with_options(self, *, gravity=None, friction_velocity=None, limit_stiffness=None,
                     limit_damping=None, armature=None) -> Model:
        """A copy with new gravity (3,) m/s^2, friction regularisation velocity, limit law gains
        (scalars or (nv,) arrays; N m/rad and N m s/rad, or N/m and N s/m for prismatic joints) or
        armature (reflected rotor inertia added to the mass-matrix diagonal; (nv,) kg m^2 or kg)."""
        where = "Model.with_options"
        a = self.arrays
        repl = {}

        def ro(y):
            y = np.array(y, dtype=float)
            y.setflags(write=False)
            return y

        if gravity is not None:
            repl["gravity"] = ro(_floats(where, "gravity", gravity, (3,)))
        if friction_velocity is not None:
            v = _number(where, "friction_velocity", friction_velocity)
            if not v > 0.0:
                raise InputError(f"{where}: friction_velocity = {shown(friction_velocity)}, expected a "
                                 "number > 0")
            repl["opt"] = ro([v])
        for key, val in (("dof_limit_stiffness", limit_stiffness), ("dof_limit_damping", limit_damping),
                         ("dof_armature", armature)):
            if val is not None:
                y = as_floats(val)
                if y.size == 1:
                    y = np.full(self.nv, float(y.ravel()[0]))
                if y.shape != (self.nv,) or not (np.all(np.isfinite(y)) and np.all(y >= 0.0)):
                    raise InputError(f"{where}: {key[4:]} = {shown(val)}, expected a finite number >= 0 or "
                                     f"{self.nv} of them (one per velocity coordinate)")
                repl[key] = ro(y)
        from dataclasses import replace

        fields = a._asdict()
        fields.update(repl)
        fbuf, ibuf = pack_model(fields, self.nbody, self.nv, self.nframe)
        return replace(self, arrays=model_from_buffers(fbuf, ibuf), fbuf=fbuf, ibuf=ibuf)

    def make_data(self) -> DataArrays:
        """Preallocate the :class:`DataArrays` (named tuple of arrays) the kernels write into.

        All arrays are views of one float64 buffer (see ``_layout.data_from_buffer``, which compiled
        hooks use to build the same workspace from a buffer of their own)."""
        nb, nv = self.nbody, self.nv
        return data_from_buffer(np.zeros(data_buffer_size(nb, nv)), nb, nv)
