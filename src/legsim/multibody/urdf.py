"""URDF loader (``xml.etree``): links, joints, inertials, dynamics and collision shapes.

Mapping (URDF spec, wiki.ros.org/urdf/XML):

- ``revolute`` -> revolute with limits; ``continuous`` -> revolute without limits; ``prismatic``;
  ``fixed`` -> merged into the parent body and kept as a frame named after the child link;
  ``floating`` -> free joint. ``planar`` and any other type -> :class:`InputError`.
- ``<inertial>``: ``origin xyz`` is the centre of mass, ``origin rpy`` rotates the inertia tensor:
  ``I_body = R I R^T``.
- ``<dynamics damping friction>`` -> viscous damping and Coulomb friction force laws.
- ``<collision>`` with ``box size`` (full lengths), ``sphere radius``, ``cylinder radius length``,
  ``capsule radius length`` (cylindrical part, non-standard but common) and ``mesh filename scale``
  -> :class:`Geometry` records. A non-standard ``material`` attribute on ``<collision>`` names the
  contact material (default ``"default"``).
- The root link is attached to the world by a fixed joint, or by a free joint when
  ``floating_base=True``; a root link named ``world`` is the world itself.

A link moved by a joint (or the floating root) must carry a positive mass, on itself or on links
fixed to it; a link without ``<inertial>`` has zero mass (fine for sensor/marker links attached by
fixed joints). Violations raise :class:`InputError` naming the link and joint.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import InputError
from .model import Model, RobotBuilder

_JOINT_MAP = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
              "fixed": "fixed", "floating": "free"}


def _floats(el, attr, n, where, default=None):
    if el is None or el.get(attr) is None:
        if default is None:
            raise InputError(f"{where}: missing attribute {attr!r}")
        return np.array(default, dtype=float)
    text = el.get(attr)
    try:
        vals = np.array([float(t) for t in text.split()], dtype=float)
    except ValueError:
        raise InputError(f"{where}: attribute {attr}={text!r} is not a list of numbers") from None
    if vals.shape != (n,) or not np.all(np.isfinite(vals)):
        raise InputError(f"{where}: attribute {attr}={text!r} must be {n} finite number(s)")
    return vals


def _origin(el, where):
    o = None if el is None else el.find("origin")
    return (_floats(o, "xyz", 3, f"{where} <origin>", (0, 0, 0)),
            _floats(o, "rpy", 3, f"{where} <origin>", (0, 0, 0)))


def _inertial(link, where):
    """(mass, com (3,), inertia (3, 3) about com in link axes), or None if the link has none."""
    from ._spatial import rpy_to_rot

    inert = link.find("inertial")
    if inert is None:
        return None
    xyz, rpy = _origin(inert, f"{where} <inertial>")
    m_el = inert.find("mass")
    if m_el is None:
        raise InputError(f"{where}: <inertial> has no <mass>")
    mass = float(_floats(m_el, "value", 1, f"{where} <mass>")[0])
    if mass < 0.0:
        raise InputError(f"{where}: mass must be >= 0 kg, got {mass!r}")
    i_el = inert.find("inertia")
    if i_el is None:
        raise InputError(f"{where}: <inertial> has no <inertia>")
    vals = [float(_floats(i_el, k, 1, f"{where} <inertia>")[0])
            for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")]
    ixx, iyy, izz, ixy, ixz, iyz = vals
    I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    R = rpy_to_rot(rpy)
    return mass, xyz, R @ I @ R.T


def _collisions(builder, link, name, where):
    for k, col in enumerate(link.findall("collision")):
        cw = f"{where} <collision> #{k}"
        xyz, rpy = _origin(col, cw)
        geo = col.find("geometry")
        if geo is None or len(geo) == 0:
            raise InputError(f"{cw}: missing <geometry>")
        g = geo[0]
        kw = {}
        if g.tag == "box":
            kw["size"] = _floats(g, "size", 3, f"{cw} <box>")
        elif g.tag == "sphere":
            kw["radius"] = float(_floats(g, "radius", 1, f"{cw} <sphere>")[0])
        elif g.tag in ("cylinder", "capsule"):
            kw["radius"] = float(_floats(g, "radius", 1, f"{cw} <{g.tag}>")[0])
            kw["length"] = float(_floats(g, "length", 1, f"{cw} <{g.tag}>")[0])
        elif g.tag == "mesh":
            if not g.get("filename"):
                raise InputError(f"{cw} <mesh>: missing attribute 'filename'")
            kw["filename"] = g.get("filename")
            kw["scale"] = tuple(_floats(g, "scale", 3, f"{cw} <mesh>", (1, 1, 1)))
        else:
            raise InputError(f"{cw}: unknown geometry <{g.tag}>; expected box, sphere, cylinder, "
                             f"capsule or mesh")
        builder.add_geometry(name, g.tag, xyz=xyz, rpy=rpy, material=col.get("material", "default"),
                             name=col.get("name") or None, **kw)


def parse_urdf(text, *, source="<string>", floating_base=False, gravity=(0.0, 0.0, -9.81),
               limit_stiffness=0.0, limit_damping=0.0, friction_velocity=1e-3) -> RobotBuilder:
    """Parse URDF text into an editable :class:`RobotBuilder` (see the module docstring).

    ``limit_stiffness`` / ``limit_damping`` (N m/rad, N m s/rad) switch on the joint-limit force law
    for joints with limits; ``friction_velocity`` regularises the ``<dynamics friction>`` law.
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise InputError(f"{source}: not valid XML ({exc})") from None
    if root.tag != "robot":
        raise InputError(f"{source}: root element must be <robot>, got <{root.tag}>")
    links = {}
    for link in root.findall("link"):
        name = link.get("name")
        if not name:
            raise InputError(f"{source}: a <link> has no name")
        if name in links:
            raise InputError(f"{source}: duplicate link {name!r}")
        links[name] = link
    joints = []
    children = {}
    for j in root.findall("joint"):
        jname = j.get("name") or "?"
        where = f"{source}: joint {jname!r}"
        jtype = j.get("type")
        if jtype not in _JOINT_MAP:
            raise InputError(f"{where}: unknown or unsupported joint type {jtype!r}; expected one of "
                             f"{sorted(_JOINT_MAP)}")
        p_el, c_el = j.find("parent"), j.find("child")
        if p_el is None or c_el is None:
            raise InputError(f"{where}: needs <parent link=.../> and <child link=.../>")
        parent, child = p_el.get("link"), c_el.get("link")
        for ln in (parent, child):
            if ln not in links:
                raise InputError(f"{where}: refers to unknown link {ln!r}")
        if child in children:
            raise InputError(f"{where}: link {child!r} already has a parent joint")
        children[child] = j
        joints.append(j)
    roots = [n for n in links if n not in children]
    if len(roots) != 1:
        raise InputError(f"{source}: expected exactly one root link (a link that is no joint's child), "
                         f"found {roots}")
    by_parent: dict[str | None, list] = {}
    for j in joints:
        parent_el = j.find("parent")
        by_parent.setdefault(parent_el.get("link") if parent_el is not None else None, []).append(j)

    b = RobotBuilder(root.get("name", "robot"), gravity=tuple(gravity), friction_velocity=friction_velocity,
                     limit_stiffness=limit_stiffness, limit_damping=limit_damping)
    rname = roots[0]
    rwhere = f"{source}: link {rname!r}"
    if rname == "world":  # the URDF names the world link itself: its children hang from the world
        if floating_base:
            raise InputError(f"{rwhere}: root link 'world' cannot get a floating base; use a <joint "
                             f"type='floating'> below it or load with floating_base=False")
    else:
        inert = _inertial(links[rname], rwhere)
        mass, com, I = inert if inert is not None else (0.0, np.zeros(3), np.zeros((3, 3)))
        b.add_body(rname, "world", "free" if floating_base else "fixed",
                   joint_name="root_joint", mass=mass, com=com, inertia=I)
    _collisions(b, links[rname], rname, rwhere)
    stack = list(reversed(by_parent.get(rname, [])))
    while stack:
        j = stack.pop()
        jname = j.get("name")
        jtype = _JOINT_MAP[j.get("type")]
        child = j.find("child").get("link")
        where = f"{source}: joint {jname!r}"
        lwhere = f"{source}: link {child!r}"
        xyz, rpy = _origin(j, where)
        axis = _floats(j.find("axis"), "xyz", 3, f"{where} <axis>", (1, 0, 0))
        if jtype in ("revolute", "prismatic") and not np.linalg.norm(axis) > 0:
            raise InputError(f"{where}: <axis xyz> must be non-zero, got {axis.tolist()}")
        limits = None
        effort = velocity = 0.0
        lim = j.find("limit")
        if lim is not None:
            effort = float(_floats(lim, "effort", 1, f"{where} <limit>", (0.0,))[0])
            velocity = float(_floats(lim, "velocity", 1, f"{where} <limit>", (0.0,))[0])
            if j.get("type") in ("revolute", "prismatic"):
                lo = float(_floats(lim, "lower", 1, f"{where} <limit>", (0.0,))[0])
                hi = float(_floats(lim, "upper", 1, f"{where} <limit>", (0.0,))[0])
                if lo > hi:
                    raise InputError(f"{where}: <limit> lower={lo} > upper={hi}")
                if not (lo == 0.0 and hi == 0.0):
                    limits = (lo, hi)
        dyn = j.find("dynamics")
        damping = float(_floats(dyn, "damping", 1, f"{where} <dynamics>", (0.0,))[0])
        friction = float(_floats(dyn, "friction", 1, f"{where} <dynamics>", (0.0,))[0])
        inert = _inertial(links[child], lwhere)
        mass, com, I = inert if inert is not None else (0.0, np.zeros(3), np.zeros((3, 3)))
        try:
            b.add_body(child, j.find("parent").get("link"), jtype, joint_name=jname, xyz=xyz, rpy=rpy,
                       axis=axis, mass=mass, com=com, inertia=I, limits=limits, damping=damping,
                       friction=friction, effort=effort, velocity=velocity)
        except InputError as exc:
            raise InputError(f"{source}: joint {jname!r} / {exc}") from None
        _collisions(b, links[child], child, lwhere)
        stack.extend(reversed(by_parent.get(child, [])))
    return b


def load_urdf(path, *, floating_base=False, **options) -> Model:
    """Load a URDF file into a compiled :class:`Model` (options as in :func:`parse_urdf`)."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise InputError(f"cannot read URDF file {str(p)!r}: {exc.strerror}") from None
    builder = parse_urdf(text, source=str(p), floating_base=floating_base, **options)
    try:
        return builder.compile()
    except InputError as exc:
        raise InputError(f"{p}: {exc}") from None

