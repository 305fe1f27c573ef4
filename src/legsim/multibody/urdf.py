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
- ``<mesh>`` (STL, OBJ, PLY, ...; DAE needs ``pycollada``), with ``meshes="hull"`` (default): read
  with ``trimesh``, scaled, and replaced by its convex hull, decimated to at most
  ``max_hull_vertices`` vertices (support points in evenly spread directions, an inner
  approximation). The geometry's ``params`` gain ``vertices`` (n, 3) m and ``faces`` (k, 3) (hull,
  outward, geometry frame), ``filename`` becomes the resolved absolute path and ``uri`` keeps the
  text of the URDF. ``package://a/b`` and relative names are looked up under ``package_dirs``, then
  the URDF's directory and up to three of its parents (``package://pkg/x`` is tried as ``pkg/x``
  and as ``x``: ROS package paths usually resolve to a parent folder). ``meshes="record"`` keeps
  the filename only (no file access); ``meshes="skip"`` drops mesh collisions.
- ``<mimic>``: legsim has no mimic constraint. ``mimic="error"`` (default) refuses the file;
  ``"ignore"`` makes the mimic joint an independent joint (what Pinocchio's ``buildModelFromUrdf``
  and PyBullet's ``loadURDF`` do by default); ``"fixed"`` locks it where the mimic relation puts it
  when the mimicked joint is at 0 (q = offset).
- The root link is attached to the world by a fixed joint, or by a free joint when
  ``floating_base=True``; a root link named ``world`` is the world itself.

A link moved by a joint (or the floating root) must carry a positive mass, on itself or on links
fixed to it; a link without ``<inertial>`` has zero mass (fine for sensor/marker links attached by
fixed joints). A link with ``<mass value="0">`` but a non-zero ``<inertia>`` fixed to a moving link
adds its rotational inertia to it (as in Pinocchio). Violations raise :class:`InputError` naming
the link and joint.
"""

from __future__ import annotations

import functools
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import InputError, check_array, check_flag, check_whole, shown
from ..userfiles import read_text
from .model import MAX_LENGTH, Model, RobotBuilder

_JOINT_MAP = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
              "fixed": "fixed", "floating": "free"}
MIMIC_OPTIONS = ("error", "ignore", "fixed")
MESH_OPTIONS = ("hull", "record", "skip")
MAX_HULL_VERTICES = 100_000
"""The largest vertex budget of a mesh's convex hull (``max_hull_vertices``; 200 by default)."""
_PARENT_LEVELS = 3  # parents of the URDF directory searched for mesh files


def _floats(el, attr, n, where, default=None, infinite=False):
    """``n`` numbers of attribute ``attr``, finite, or with ``infinite`` also INF and -INF (an XML Schema
    double's infinities: a joint's open side, no effort limit)."""
    if el is None or el.get(attr) is None:
        if default is None:
            raise InputError(f"{where}: missing attribute {attr!r}")
        return np.array(default, dtype=float)
    text = el.get(attr)
    try:
        vals = np.array([float(t) for t in text.split()], dtype=float)
    except ValueError:
        raise InputError(f"{where}: attribute {attr}={text!r} is not a list of numbers") from None
    if vals.shape != (n,) or not np.all(~np.isnan(vals) if infinite else np.isfinite(vals)):
        raise InputError(f"{where}: attribute {attr}={text!r} must be {n} "
                         f"{'number(s) (INF or -INF: none)' if infinite else 'finite number(s)'}")
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


def _mesh_candidates(uri, base_dir, package_dirs):
    """Paths where the mesh ``uri`` of a URDF in ``base_dir`` may live, most likely first."""
    rests = []
    if uri.startswith("package://"):
        rest = uri[len("package://"):].lstrip("/")
        rests = [rest]
        if "/" in rest:  # package://pkg/x -> <folder of pkg>/x
            rests.append(rest.split("/", 1)[1])
    else:
        rest = uri[len("file://"):] if uri.startswith("file://") else uri
        if os.path.isabs(rest):
            return [Path(rest)]
        rests = [rest]
    base = Path(base_dir).resolve()
    roots = [Path(d) for d in package_dirs] + [base] + list(base.parents)[:_PARENT_LEVELS]
    return [root / r for root in roots for r in rests]


def _support_decimate(v, nmax):
    """At most ``nmax`` of the points ``v`` (n, 3): the support point in each of ``nmax`` evenly
    spread (Fibonacci) directions, so that all picks are hull vertices."""
    k = np.arange(nmax) + 0.5
    z = 1.0 - 2.0 * k / nmax
    r = np.sqrt(1.0 - z * z)
    phi = np.pi * (3.0 - np.sqrt(5.0)) * k
    dirs = np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)
    c = v.mean(axis=0)
    return v[np.unique(np.argmax((v - c) @ dirs.T, axis=0))]


@functools.lru_cache(maxsize=128)
def _hull(path, mtime_ns, scale, nmax):
    """Convex hull of a mesh file: vertices (n <= nmax, 3) m, faces (k, 3) int, outward, read-only.
    Raises ValueError (message for the user) if the file cannot be read or has no volume."""
    import trimesh

    try:
        mesh = trimesh.load_mesh(path, process=False)
        pts = np.asarray(mesh.vertices, dtype=float) * np.asarray(scale)
    except Exception as exc:  # trimesh raises many types; the caller names the URDF and link
        hint = " (DAE files need `pip install pycollada`)" if path.lower().endswith(".dae") else ""
        raise ValueError(f"trimesh cannot read it{hint}: {type(exc).__name__}: {exc}") from None
    try:
        with np.errstate(all="ignore"):  # trimesh divides by a zero volume for flat meshes
            hull = trimesh.convex.convex_hull(pts)
            if len(hull.vertices) > nmax:
                hull = trimesh.convex.convex_hull(_support_decimate(np.asarray(hull.vertices), nmax))
            verts = np.array(hull.vertices, dtype=float)
            faces = np.array(hull.faces, dtype=np.int64)
            flat = len(verts) < 4 or not hull.volume > 0.0
    except Exception as exc:
        raise ValueError(f"its {len(pts)} vertices have no 3-d convex hull ({type(exc).__name__}: "
                         f"{exc})") from None
    if flat:
        raise ValueError(f"its {len(pts)} vertices have no 3-d convex hull (flat or empty mesh)")
    verts.setflags(write=False)
    faces.setflags(write=False)
    return verts, faces


def _mesh_params(g, cw, opts):
    """``params`` of a ``<mesh>`` geometry (see the module docstring), or None to skip it."""
    uri = g.get("filename")
    if not uri:
        raise InputError(f"{cw} <mesh>: missing attribute 'filename'")
    text = g.get("scale", "1 1 1")
    n = len(text.split())
    scale = _floats(g, "scale", 1 if n == 1 else 3, f"{cw} <mesh>", (1, 1, 1)) * np.ones(3)
    if not np.all((np.abs(scale) >= 1e-6) & (np.abs(scale) <= 1e6)):
        raise InputError(f"{cw} <mesh>: attribute scale={text!r}: expected factors of magnitude 1e-6 to 1e6 "
                         "(a mesh drawn in millimetres takes 0.001)")
    if opts["meshes"] == "skip":
        return None
    if opts["meshes"] == "record":
        return {"filename": uri, "scale": tuple(scale)}
    tried = _mesh_candidates(uri, opts["base_dir"], opts["package_dirs"])
    found = next((c for c in tried if c.is_file()), None)
    if found is None:
        raise InputError(f"{cw} <mesh>: mesh file {uri!r} not found (looked for "
                         f"{', '.join(repr(str(c)) for c in tried[:4])}{', ...' if len(tried) > 4 else ''}); "
                         f"put it there, pass package_dirs=[...] to load_urdf, or load with "
                         f"meshes='skip' (no mesh collisions) or meshes='record' (filename only)")
    try:
        verts, faces = _hull(str(found.resolve()), found.stat().st_mtime_ns, tuple(scale),
                             int(opts["max_hull_vertices"]))
    except ValueError as exc:
        raise InputError(f"{cw} <mesh>: mesh file {str(found)!r}: {exc}; load with meshes='skip' or "
                         f"meshes='record' to do without it") from None
    return {"filename": str(found.resolve()), "uri": uri, "scale": tuple(scale), "vertices": verts,
            "faces": faces}


def _collisions(builder, link, name, where, opts):
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
            params = _mesh_params(g, cw, opts)
            if params is None:
                continue
            kw.update(params)
        else:
            raise InputError(f"{cw}: unknown geometry <{g.tag}>; expected box, sphere, cylinder, "
                             f"capsule or mesh")
        builder.add_geometry(name, g.tag, xyz=xyz, rpy=rpy, material=col.get("material", "default"),
                             name=col.get("name") or None, **kw)


def _mimic_lock(j, jtype, xyz, rpy, axis, where):
    """Placement (R (3, 3), p (3,)) of a mimic joint locked at q = offset (rad or m)."""
    from ._spatial import rpy_to_rot

    offset = float(_floats(j.find("mimic"), "offset", 1, f"{where} <mimic>", (0.0,))[0])
    R0 = rpy_to_rot(rpy)
    u = axis / np.linalg.norm(axis)
    if jtype == "prismatic":
        return R0, xyz + R0 @ (offset * u)
    K = np.array([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])
    return R0 @ (np.eye(3) + np.sin(offset) * K + (1.0 - np.cos(offset)) * K @ K), xyz


def _check_mimic(j, jname, where, mode):
    m = j.find("mimic")
    if m is None or mode != "error":
        return
    mult = m.get("multiplier", "1")
    off = m.get("offset", "0")
    raise InputError(f"{where}: joint {jname!r} mimics joint {m.get('joint')!r} (q = {mult} * "
                     f"q_{m.get('joint')} + {off}), and legsim has no mimic constraint. Load with "
                     f"mimic='ignore' to make {jname!r} an independent joint (as Pinocchio and "
                     f"PyBullet do by default) or mimic='fixed' to lock it at q = {off}")


def parse_urdf(text, *, source="<string>", floating_base=False, gravity=(0.0, 0.0, -9.81),
               limit_stiffness=0.0, limit_damping=0.0, friction_velocity=1e-3, mimic="error",
               meshes="hull", package_dirs=(), base_dir=None, max_hull_vertices=200) -> RobotBuilder:
    """Parse URDF text into an editable :class:`RobotBuilder` (see the module docstring).

    ``limit_stiffness`` / ``limit_damping`` (N m/rad, N m s/rad) switch on the joint-limit force law
    for joints with limits; ``friction_velocity`` regularises the ``<dynamics friction>`` law.
    ``mimic``: ``"error"`` | ``"ignore"`` | ``"fixed"``; ``meshes``: ``"hull"`` | ``"record"`` |
    ``"skip"``; ``package_dirs``: extra folders to look for mesh files in; ``base_dir``: the folder
    relative mesh names start from (default: the folder of ``source`` if it is a file, else the
    current directory); ``max_hull_vertices``: vertex budget of a mesh hull (>= 8).
    """
    o = "parse_urdf"
    if not isinstance(text, (str, bytes)):
        raise InputError(f"{o}: 'text' = {shown(text)}, expected the URDF's XML text (a string)")
    if not isinstance(source, (str, os.PathLike)):
        raise InputError(f"{o}: 'source' = {shown(source)}, expected the text's name for messages (a path)")
    source = os.fspath(source)
    if not (isinstance(mimic, str) and mimic in MIMIC_OPTIONS):
        raise InputError(f"{source}: mimic={shown(mimic)}; expected one of {list(MIMIC_OPTIONS)}")
    if not (isinstance(meshes, str) and meshes in MESH_OPTIONS):
        raise InputError(f"{source}: meshes={shown(meshes)}; expected one of {list(MESH_OPTIONS)}")
    floating_base = check_flag(o, "floating_base", floating_base)
    gravity = check_array(o, "gravity", gravity, (3,), "m/s^2")
    max_hull_vertices = check_whole(o, "max_hull_vertices", max_hull_vertices, 8, MAX_HULL_VERTICES)
    if isinstance(package_dirs, (str, os.PathLike)):
        package_dirs = [package_dirs]
    if not (isinstance(package_dirs, (list, tuple))
            and all(isinstance(d, (str, os.PathLike)) for d in package_dirs)):
        raise InputError(f"{o}: 'package_dirs' = {shown(package_dirs)}, expected a folder or a list of "
                         "folders")
    if not (base_dir is None or isinstance(base_dir, (str, os.PathLike))):
        raise InputError(f"{o}: 'base_dir' = {shown(base_dir)}, expected a folder (or None)")
    if base_dir is None:
        base_dir = Path(source).parent if Path(source).is_file() else Path.cwd()
    opts = {"meshes": meshes, "base_dir": base_dir, "package_dirs": tuple(package_dirs),
            "max_hull_vertices": max_hull_vertices}
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
        _check_mimic(j, jname, source, mimic)
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

    b = RobotBuilder(root.get("name", "robot"), gravity=tuple(gravity.tolist()),
                     friction_velocity=friction_velocity, limit_stiffness=limit_stiffness,
                     limit_damping=limit_damping)
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
    _collisions(b, links[rname], rname, rwhere, opts)
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
            effort = float(_floats(lim, "effort", 1, f"{where} <limit>", (0.0,), infinite=True)[0])
            velocity = float(_floats(lim, "velocity", 1, f"{where} <limit>", (0.0,), infinite=True)[0])
            if j.get("type") in ("revolute", "prismatic"):
                lo = float(_floats(lim, "lower", 1, f"{where} <limit>", (0.0,), infinite=True)[0])
                hi = float(_floats(lim, "upper", 1, f"{where} <limit>", (0.0,), infinite=True)[0])
                if lo > hi:
                    raise InputError(f"{where}: <limit> lower={lo} > upper={hi}")
                # a bound at ±MAX_LENGTH (1e6 rad or m) or beyond is no stop on that side: to_urdf writes one
                # there, and files use large placeholders (1e10, 1e16) for a joint without stops
                lo = -np.inf if lo <= -MAX_LENGTH else lo
                hi = np.inf if hi >= MAX_LENGTH else hi
                if not (lo == 0.0 and hi == 0.0 or lo == -np.inf and hi == np.inf):
                    limits = (lo, hi)
        dyn = j.find("dynamics")
        damping = float(_floats(dyn, "damping", 1, f"{where} <dynamics>", (0.0,))[0])
        friction = float(_floats(dyn, "friction", 1, f"{where} <dynamics>", (0.0,))[0])
        inert = _inertial(links[child], lwhere)
        mass, com, I = inert if inert is not None else (0.0, np.zeros(3), np.zeros((3, 3)))
        R = None
        if mimic == "fixed" and j.find("mimic") is not None and jtype in ("revolute", "prismatic"):
            R, xyz = _mimic_lock(j, jtype, xyz, rpy, axis, where)
            jtype = "fixed"
        try:
            b.add_body(child, j.find("parent").get("link"), jtype, joint_name=jname, xyz=xyz, rpy=rpy,
                       rotation=R, axis=axis, mass=mass, com=com, inertia=I, limits=limits,
                       damping=damping, friction=friction, effort=effort, velocity=velocity)
        except InputError as exc:
            raise InputError(f"{source}: joint {jname!r} / {exc}") from None
        _collisions(b, links[child], child, lwhere, opts)
        stack.extend(reversed(by_parent.get(child, [])))
    return b


def load_urdf(path, *, floating_base=False, mimic="error", meshes="hull", **options) -> Model:
    """Load a URDF file into a compiled :class:`Model` (options as in :func:`parse_urdf`).

    ``mimic="error"`` refuses ``<mimic>`` joints (``"ignore"``: independent joints, ``"fixed"``:
    locked); ``meshes="hull"`` turns ``<mesh>`` collisions into convex hulls (``"record"``,
    ``"skip"``); mesh file names are resolved from the URDF's folder (see the module docstring).
    """
    p = Path(path)
    text = read_text(p, "URDF file")
    builder = parse_urdf(text, source=str(p), floating_base=floating_base, mimic=mimic, meshes=meshes,
                         **options)
    try:
        return builder.compile()
    except InputError as exc:
        raise InputError(f"{p}: {exc}") from None

