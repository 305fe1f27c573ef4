"""Export a compiled :class:`Model` to URDF (Pinocchio, PyBullet) and MJCF (MuJoCo).

Numbers are written with ``repr`` (17 significant digits) so a round trip is exact to rounding.
What is not exported: operational frames in URDF (MJCF gets them as sites); armature in URDF;
contact materials in MJCF (kept as a non-standard ``material`` attribute in URDF ``<collision>``).
Fixed joints were merged at compile time, so exported robots have moving bodies only.

State conversion to MuJoCo (:func:`qpos_to_mujoco`, :func:`qvel_to_mujoco`): MuJoCo's free joint
uses ``qpos = [x y z qw qx qy qz]`` and ``qvel = [v_lin (world axes), w (body axes)]``; legsim
(Pinocchio) uses ``[x y z qx qy qz qw]`` and ``[v_lin (body axes), w (body axes)]``.

Arguments are checked (:class:`InputError` naming the argument): ``model`` a legsim :class:`Model`,
states of the model's sizes with finite entries and no free joint's quaternion all zeros
(:func:`check_coordinates`, which :mod:`legsim.multibody.peers` and
:mod:`legsim.multibody.hybrid_model` use too).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ..errors import InputError, as_floats, check_number, lookup, shown
from ._layout import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from ._spatial import quat_to_rot, rot_to_quat_wxyz, rot_to_rpy
from .dynamics import _check_model
from .model import MAX_LENGTH, ROTATION_RANGE, Model

MJCF_INTEGRATORS = ("Euler", "RK4", "implicit", "implicitfast")
"""MuJoCo's integrators (the ``integrator`` keywords of MJCF ``<option>``; MuJoCo refuses any other)."""

MAX_TIMESTEP = 1.0
"""The longest MuJoCo ``timestep`` [s] :func:`to_mjcf` writes: a longer step resolves no robot's dynamics."""

MAX_VELOCITY = 1e300
"""The largest velocity component [m/s, rad/s] :func:`qvel_to_mujoco` takes: the rotation of a free joint's
linear velocity to world axes sums three products, which stay finite below it."""

MAX_FLOAT = float(np.finfo(float).max)
"""The largest finite float: :func:`check_coordinates`' default ``limit`` (any finite number)."""



def check_coordinates(owner: str, name: str, value, n: int, rotations=(), *, batch: bool = False,
                      limit: float = MAX_FLOAT) -> np.ndarray:
    """``value`` as a float array of ``n`` numbers (flattened, as :func:`legsim.errors.check_array` does)
    or, with ``batch``, of shape (..., n), each finite and within ±``limit``; else an :class:`InputError`
    naming ``owner`` and ``name``.

    ``rotations``: a legsim :class:`Model`, whose free joints' quaternions open at ``jnt_qposadr + 3``
    (positions first), or ``(starts, size)`` pairs (sequences of ints) of groups of ``size`` entries (4: a
    quaternion; 2: a Pinocchio unit-circle point ``[cos, sin]``). Such a group of all zeros is an
    :class:`InputError` (it is no rotation); one whose largest magnitude is outside :data:`ROTATION_RANGE`
    is divided by it, in a copy (the same rotation; the sum of its squares is then finite and non-zero).
    Otherwise the array is returned as it is (a float64 array not copied): valid values keep every bit."""
    x = as_floats(value)
    if not batch:
        x = x.ravel()
    if x.ndim < 1 or x.shape[-1] != n or (x.size and not np.abs(x).max() <= limit):  # NaN fails too
        within = f" within ±{limit:g}" if limit < MAX_FLOAT else ""
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {name} of shape "
                         f"{f'(..., {n})' if batch else f'({n},)'}: finite numbers{within}")
    if x.size == 0:  # an empty batch
        return x
    if isinstance(rotations, Model):
        a = rotations.arrays
        rotations = (([k + 3 for k, t in zip(a.jnt_qposadr.tolist(), a.jnt_type.tolist(), strict=True)
                       if t == JOINT_FREE], 4),)
    lo, hi = ROTATION_RANGE
    for starts, size in rotations:
        for k in starts:
            group = x[..., k:k + size]
            if x.ndim == 1:  # one state (the per-tick case): plain floats
                big = max(map(abs, group.tolist()))
                if lo <= big <= hi:
                    continue
            else:
                b = np.abs(group).max(axis=-1)
                if lo <= b.min() and b.max() <= hi:
                    continue
            largest = np.abs(group).max(axis=-1, keepdims=True)
            if not np.all(largest > 0.0):
                what = "quaternion" if size == 4 else "unit-circle point [cos, sin]"
                raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a {what} in entries "
                                 f"{k}..{k + size - 1}, not zeros (they are no rotation)")
            x = np.array(x)  # a copy: the caller's array is not changed
            x[..., k:k + size] = group / np.where((largest < lo) | (largest > hi), largest, 1.0)
    return x


def _fmt(x):
    vals = np.ravel(np.asarray(x, dtype=float))
    return " ".join(repr(float(v)) for v in vals)


def _inertia_attrs(I):
    return {"ixx": repr(float(I[0, 0])), "iyy": repr(float(I[1, 1])), "izz": repr(float(I[2, 2])),
            "ixy": repr(float(I[0, 1])), "ixz": repr(float(I[0, 2])), "iyz": repr(float(I[1, 2]))}


def _check_free_joints(model: Model, fmt):
    a = model.arrays
    for i in range(1, model.nbody):
        if a.jnt_type[i] == JOINT_FREE:
            if a.body_parent[i] != 0:
                raise InputError(f"{fmt} export: free joint of body {model.body_names[i]!r} must hang "
                                 f"from the world, not {model.body_names[a.body_parent[i]]!r}")
            if not (np.allclose(a.jnt_R[i], np.eye(3)) and np.allclose(a.jnt_p[i], 0.0)):
                raise InputError(f"{fmt} export: free joint of body {model.body_names[i]!r} must have an "
                                 f"identity placement")


def _urdf_geometry(parent, g, capsules):
    P = g.params
    if g.shape == "capsule" and capsules == "cylinder_spheres":
        for k, (shape, dz) in enumerate((("cylinder", 0.0), ("sphere", 0.5), ("sphere", -0.5))):
            el = ET.SubElement(parent, "collision", name=f"{g.name}_{k}", material=g.material)
            ET.SubElement(el, "origin", xyz=_fmt(g.p + g.R[:, 2] * dz * P["length"]),
                          rpy=_fmt(rot_to_rpy(g.R)))
            geo = ET.SubElement(el, "geometry")
            if shape == "cylinder":
                ET.SubElement(geo, shape, radius=repr(float(P["radius"])), length=repr(float(P["length"])))
            else:
                ET.SubElement(geo, shape, radius=repr(float(P["radius"])))
        return
    el = ET.SubElement(parent, "collision", name=g.name, material=g.material)
    ET.SubElement(el, "origin", xyz=_fmt(g.p), rpy=_fmt(rot_to_rpy(g.R)))
    geo = ET.SubElement(el, "geometry")
    if g.shape == "box":
        ET.SubElement(geo, "box", size=_fmt(P["size"]))
    elif g.shape == "sphere":
        ET.SubElement(geo, "sphere", radius=repr(float(P["radius"])))
    elif g.shape in ("cylinder", "capsule"):
        ET.SubElement(geo, g.shape, radius=repr(float(P["radius"])), length=repr(float(P["length"])))
    else:
        ET.SubElement(geo, "mesh", filename=str(P["filename"]), scale=_fmt(P.get("scale", (1, 1, 1))))


_LARGEST = float(np.finfo(float).max)
"""An effort or velocity without a limit (inf) in a URDF: the largest float (urdfdom refuses inf)."""


def to_urdf(model: Model, *, capsules="capsule") -> str:
    """URDF text of ``model``. A floating-base model (one free joint, on a child of the world with an
    identity placement) exports its free body as the root link (load it with a free-flyer root joint,
    or ``useFixedBase=False`` in PyBullet); a fixed-base model gets a root link ``world``.
    Unlimited revolute joints are written as ``continuous``. ``capsules="capsule"`` writes the
    ``<capsule>`` element (PyBullet, Drake); ``"cylinder_spheres"`` writes a cylinder and two spheres
    for parsers that only know the URDF-spec shapes (urdfdom, used by Pinocchio)."""
    _check_model(model, "to_urdf")
    lookup("capsules", capsules, ("capsule", "cylinder_spheres"), "to_urdf")
    a = model.arrays
    _check_free_joints(model, "URDF")
    free = [i for i in range(1, model.nbody) if a.jnt_type[i] == JOINT_FREE]
    if len(free) > 1:
        raise InputError(f"URDF export: a URDF holds one tree; model {model.name!r} has {len(free)} "
                         f"free bodies {[model.body_names[i] for i in free]} (use to_mjcf)")
    if free and any(a.body_parent[i] == 0 and i != free[0] for i in range(1, model.nbody)):
        raise InputError("URDF export: bodies fixed to the world next to a floating base are not expressible")
    robot = ET.Element("robot", name=model.name)
    root = free[0] if free else 0
    geoms_by_body: dict[int, list] = {}
    for g in model.geometries:
        geoms_by_body.setdefault(g.body, []).append(g)
    for i in range(model.nbody):
        if free and i == 0:
            continue
        name = model.body_names[i]
        link = ET.SubElement(robot, "link", name=name)
        if i != 0:
            inert = ET.SubElement(link, "inertial")
            ET.SubElement(inert, "origin", xyz=_fmt(model.body_com[i]), rpy="0 0 0")
            ET.SubElement(inert, "mass", value=repr(float(model.body_mass[i])))
            ET.SubElement(inert, "inertia", **_inertia_attrs(model.body_inertia[i]))
        for g in geoms_by_body.get(name, []):
            _urdf_geometry(link, g, capsules)
    for i in range(1, model.nbody):
        if i == root:
            continue
        t = a.jnt_type[i]
        da = a.jnt_dofadr[i]
        limited = bool(a.dof_limited[da])
        jt = {JOINT_REVOLUTE: "revolute" if limited else "continuous", JOINT_PRISMATIC: "prismatic"}[t]
        j = ET.SubElement(robot, "joint", name=model.jnt_names[i], type=jt)
        ET.SubElement(j, "parent", link=model.body_names[a.body_parent[i]])
        ET.SubElement(j, "child", link=model.body_names[i])
        ET.SubElement(j, "origin", xyz=_fmt(a.jnt_p[i]), rpy=_fmt(rot_to_rpy(a.jnt_R[i])))
        ET.SubElement(j, "axis", xyz=_fmt(a.jnt_axis[i]))
        effort, velocity = float(model.dof_effort[da]), float(model.dof_velocity[da])
        if jt != "continuous" or effort or velocity:
            # finite numbers only: urdfdom (pinocchio's and ROS's reader) refuses inf. A side without a stop
            # is written at ±MAX_LENGTH, which parse_urdf reads back as no stop; no effort or velocity limit
            # (inf) as the largest float
            lo, hi = np.clip(a.dof_range[da], -MAX_LENGTH, MAX_LENGTH)  # an unlimited joint's is ±inf
            attrs = {"lower": repr(float(lo)), "upper": repr(float(hi))} if jt != "continuous" else {}
            attrs.update(effort=repr(min(effort, _LARGEST)), velocity=repr(min(velocity, _LARGEST)))
            ET.SubElement(j, "limit", attrs)
        ET.SubElement(j, "dynamics", damping=repr(float(a.dof_damping[da])),
                      friction=repr(float(a.dof_frictionloss[da])))
    ET.indent(robot)
    return ET.tostring(robot, encoding="unicode")


def _quat_attr(R):
    return _fmt(rot_to_quat_wxyz(R))


def _mjcf_geom(parent, g, meshes):
    P = g.params
    attrs = {"name": g.name, "pos": _fmt(g.p), "quat": _quat_attr(g.R)}
    if g.shape == "box":
        attrs.update(type="box", size=_fmt(np.asarray(P["size"]) / 2.0))
    elif g.shape == "sphere":
        attrs.update(type="sphere", size=repr(float(P["radius"])))
    elif g.shape in ("cylinder", "capsule"):
        attrs.update(type=g.shape, size=_fmt([P["radius"], P["length"] / 2.0]))
    else:
        key = (str(P["filename"]), tuple(P.get("scale", (1, 1, 1))))
        if key not in meshes:
            meshes[key] = f"mesh{len(meshes)}"
        attrs.update(type="mesh", mesh=meshes[key])
    ET.SubElement(parent, "geom", **attrs)


def to_mjcf(model: Model, *, timestep=1e-3, integrator="RK4") -> str:
    """MJCF text of ``model`` (MuJoCo). Inertias are written explicitly (``inertiafromgeom=false``);
    joint damping, ``frictionloss`` (MuJoCo's constraint-based dry friction, not legsim's tanh law),
    armature and ranges (MuJoCo's constraint limits) are carried over. Frames become sites.
    ``timestep`` [s] in (0, :data:`MAX_TIMESTEP`]; ``integrator`` one of :data:`MJCF_INTEGRATORS`."""
    _check_model(model, "to_mjcf")
    timestep = check_number("to_mjcf", "timestep", timestep, lo=0.0, lo_open=True, hi=MAX_TIMESTEP)
    lookup("integrator", integrator, MJCF_INTEGRATORS, "to_mjcf")
    a = model.arrays
    _check_free_joints(model, "MJCF")
    mj = ET.Element("mujoco", model=model.name)
    ET.SubElement(mj, "compiler", angle="radian", autolimits="true", inertiafromgeom="false")
    ET.SubElement(mj, "option", gravity=_fmt(a.gravity), timestep=repr(timestep),
                  integrator=integrator)
    asset = ET.SubElement(mj, "asset")
    world = ET.SubElement(mj, "worldbody")
    meshes: dict[tuple[str, tuple], str] = {}
    elems = {0: world}
    geoms_by_body: dict[int, list] = {}
    for g in model.geometries:
        geoms_by_body.setdefault(g.body, []).append(g)
    for i in range(1, model.nbody):
        name = model.body_names[i]
        body = ET.SubElement(elems[a.body_parent[i]], "body", name=name, pos=_fmt(a.jnt_p[i]),
                             quat=_quat_attr(a.jnt_R[i]))
        elems[i] = body
        I = model.body_inertia[i]
        ET.SubElement(body, "inertial", pos=_fmt(model.body_com[i]), mass=repr(float(model.body_mass[i])),
                      fullinertia=_fmt([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]))
        t = a.jnt_type[i]
        if t == JOINT_FREE:
            ET.SubElement(body, "freejoint", name=model.jnt_names[i])
        else:
            da = a.jnt_dofadr[i]
            attrs = {"name": model.jnt_names[i], "type": "hinge" if t == JOINT_REVOLUTE else "slide",
                     "axis": _fmt(a.jnt_axis[i]), "damping": repr(float(a.dof_damping[da])),
                     "frictionloss": repr(float(a.dof_frictionloss[da])),
                     "armature": repr(float(a.dof_armature[da]))}
            if a.dof_limited[da]:
                attrs["range"] = _fmt(a.dof_range[da])
            ET.SubElement(body, "joint", **attrs)
    for g in model.geometries:
        _mjcf_geom(elems[model.body_id(g.body)], g, meshes)
    for f in range(model.nbody, model.nframe):
        b = int(a.frame_body[f])
        ET.SubElement(elems[b], "site", name=model.frame_names[f], pos=_fmt(a.frame_p[f]),
                      quat=_quat_attr(a.frame_R[f]))
    for (fname, scale), mname in meshes.items():
        ET.SubElement(asset, "mesh", name=mname, file=fname, scale=_fmt(scale))
    if len(asset) == 0:
        mj.remove(asset)
    ET.indent(mj)
    return ET.tostring(mj, encoding="unicode")


def qpos_to_mujoco(model: Model, q) -> np.ndarray:
    """legsim/Pinocchio ``q`` (nq,) -> MuJoCo ``qpos`` (nq,) for a model exported by :func:`to_mjcf`."""
    _check_model(model, "qpos_to_mujoco")
    q = check_coordinates("qpos_to_mujoco", "q", q, model.nq, model)
    out = np.array(q)
    a = model.arrays
    for i in range(1, model.nbody):
        if a.jnt_type[i] == JOINT_FREE:
            k = a.jnt_qposadr[i]
            out[k + 3] = q[k + 6]
            out[k + 4:k + 7] = q[k + 3:k + 6]
    return out


def qvel_to_mujoco(model: Model, q, v) -> np.ndarray:
    """legsim/Pinocchio ``v`` (nv,) -> MuJoCo ``qvel`` (nv,): free-joint linear velocity to world axes
    (the rotation of ``q`` (nq,)); components of ``v`` within ±:data:`MAX_VELOCITY`."""
    o = "qvel_to_mujoco"
    _check_model(model, o)
    q = check_coordinates(o, "q", q, model.nq, model)
    v = check_coordinates(o, "v", v, model.nv, limit=MAX_VELOCITY)
    out = np.array(v)
    a = model.arrays
    R = np.empty((3, 3))
    for i in range(1, model.nbody):
        if a.jnt_type[i] == JOINT_FREE:
            k = a.jnt_qposadr[i]
            d = a.jnt_dofadr[i]
            quat_to_rot(q[k + 3], q[k + 4], q[k + 5], q[k + 6], R)
            out[d:d + 3] = R @ v[d:d + 3]
    return out
