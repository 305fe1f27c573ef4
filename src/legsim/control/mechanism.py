"""Mechanism topology and the Gruebler/Kutzbach mobility count (CJTC digest §3.2, eqs. 1, 13, 14, Fig. 8).

A :class:`Mechanism` is a set of links (one of them ground), named points on the links and joints, each
joining two links. Every joint has a kind from :data:`JOINT_KINDS` (its DOF in planar and in spatial
analysis), an active/passive flag and a role:

* ``"actuator"`` — an active joint of a limb (s = Σ m_i counts the active joints, eq. 1);
* ``"environment"`` — a contact with the ground or an object (a foot pinned to a rung);
* ``"control"`` — a constraint the Extended Mobility Analysis adds to fix a control variable (§3.3);
* ``"internal"`` — a passive mechanical joint, or the internal displacement constraint of an actuator;
* ``"force"`` — the spring that marks a controlled force (§3.4); it constrains nothing.

Counting rules of :func:`gruebler`:

* spatial, eq. 13: F = 6(l − j − 1) + Σ f_i; planar, eq. 14: F = 3(l − 1) − 2 f₁ − f₂, generalised to
  F = 3(l − 1) − Σ(3 − f_i) for any planar joint;
* a **weld** (0 DOF) merges the two links it joins into one link: l drops by one and the weld is not
  counted in j (§4.4 table: welding LIBRA's body to ground gives l = 7, f₁ = 8). A weld that closes a
  loop between links already merged removes 3 (planar) or 6 (spatial) DOF;
* a **spring** (3 planar / 6 spatial DOF) is a visual marker: no constraint, not a link, not a joint
  (§3.4, §3.5).

:class:`PlanarPoses` writes a planar mechanism's joints as constraint equations on the absolute poses
(x, y, θ) of its moving links, for the numerical rank test (:mod:`legsim.control.mobility`) that
Gruebler counting can be fooled by (special geometry, §3.6).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, as_floats, check_flag, shown

__all__ = ["JointKind", "JOINT_KINDS", "KIND_ALIASES", "ROLES", "Point", "Joint", "Mechanism",
           "GrueblerCount", "gruebler", "draw_fixed_coordinates", "PlanarPoses", "joint_kind",
           "MAX_COORDINATE"]

SPACES = {"planar": (2, 3), "spatial": (3, 6)}
"""space -> (translational dimension, DOF of a free rigid body)."""
AXES = ("x", "y", "z")
ORIENTATION = {"planar": ("theta",), "spatial": ("alpha", "beta", "gamma")}
ROLES = ("actuator", "environment", "control", "internal", "force")
COORDINATES = AXES + ORIENTATION["planar"] + ORIENTATION["spatial"]
"""Every coordinate name a point's coordinate may have, in one space or the other."""

MAX_COORDINATE = 1e6
"""Largest magnitude of a point's or a joint's position [m] and of an axis vector's component (an axis
vector's largest component is at least its inverse), and of a pose coordinate [m, rad] of
:class:`PlanarPoses`: the rank test's products of two of them stay far within the float range (a
mechanism is not a thousand kilometres wide)."""


@dataclass(frozen=True)
class JointKind:
    """One entry of the joint catalogue.

    Attributes
    ----------
    name : canonical name.
    planar_dof : DOF the joint allows in planar analysis (None: not a planar joint).
    spatial_dof : DOF it allows in spatial analysis (None: not a spatial joint).
    description : what it is, with the source (Fig. 8 for the planar ones).
    marker : True for the spring, which counts as no constraint (§3.4).
    """

    name: str
    planar_dof: int | None
    spatial_dof: int | None
    description: str
    marker: bool = False

    def dof(self, space: str) -> int:
        """DOF allowed in ``space``; InputError if the joint does not exist there."""
        dof = self.planar_dof if space == "planar" else self.spatial_dof
        if dof is None:
            raise InputError(f"joint kind {self.name!r} is not a {space} joint (it exists only in "
                             f"{'spatial' if space == 'planar' else 'planar'} analysis)")
        return dof


JOINT_KINDS: dict[str, JointKind] = {k.name: k for k in (
    JointKind("pin", 1, 1, "revolute (pin) joint, lower pair: f1 in eq. 14 (Fig. 8)"),
    JointKind("slider", 1, 1, "prismatic (slider) joint, lower pair: f1 (Fig. 8)"),
    JointKind("rolling", 1, 3, "rolling contact without slip: f1 in the plane (Fig. 8); a point rolling "
                               "contact allows the 3 rotations in space"),
    JointKind("roll_slide", 2, 5, "roll-slide contact, only the normal translation constrained: f2 (Fig. 8); "
                                  "the point contact of spatial analysis"),
    JointKind("spring", 3, 6, "spring: a visual marker, no constraint and not a link or joint (Fig. 8, §3.4)",
              marker=True),
    JointKind("weld", 0, 0, "rigid connection: merges the two links into one"),
    JointKind("cylindrical", None, 2, "cylindrical joint (spatial)"),
    JointKind("universal", None, 2, "universal (Hooke) joint (spatial)"),
    JointKind("spherical", None, 3, "spherical (ball) joint (spatial)"),
    JointKind("planar", None, 3, "planar joint (spatial)"),
)}
"""The joint catalogue: Fig. 8's planar constraints plus the usual spatial lower pairs."""

KIND_ALIASES = {"revolute": "pin", "prismatic": "slider", "point_contact": "roll_slide",
                "roll-slide": "roll_slide", "rolling_contact": "rolling", "fixed": "weld",
                "ball": "spherical"}


def joint_kind(name: str, space: str | None = None) -> JointKind:
    """The catalogue entry of ``name`` (aliases: revolute = pin, prismatic = slider, point_contact =
    roll_slide, fixed = weld), checked to exist in ``space`` (``"planar"`` or ``"spatial"``) if given."""
    if space is not None:
        _space(space, "joint_kind")
    kind = _catalogued(name, "joint_kind: 'name'")
    if space is not None:
        kind.dof(space)
    return kind


def _catalogued(name, what: str) -> JointKind:
    """The catalogue entry of the kind or alias ``name``; else an InputError saying ``what`` it was."""
    kind = JOINT_KINDS.get(KIND_ALIASES.get(name, name)) if isinstance(name, str) else None
    if kind is None:
        raise InputError(f"{what} = {shown(name)}, expected one of {', '.join(JOINT_KINDS)} "
                         f"(or an alias: {', '.join(KIND_ALIASES)})")
    return kind


def _space(space: str, owner: str | None = None) -> str:
    """``space`` if it is one of :data:`SPACES`, else an InputError (from ``owner`` if given)."""
    if not (isinstance(space, str) and space in SPACES):
        what = f"{owner}: 'space'" if owner else "space"
        raise InputError(f"{what} = {shown(space)}, expected 'planar' or 'spatial'")
    return space


def _label(owner: str, name: str, value, optional: bool = False):
    """``value`` if it is a non-empty string (or None when ``optional``), else an InputError from ``owner``
    naming ``name``: the names of links, points, joints, limbs and candidates."""
    if not ((isinstance(value, str) and value) or (optional and value is None)):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a non-empty string"
                         f"{' or None' if optional else ''}")
    return value


def _coordinates(owner: str, name: str, value, dims: tuple[int, ...]) -> tuple[float, ...]:
    """``value`` as a tuple of ``dims`` (one of them) finite numbers within ±:data:`MAX_COORDINATE` [m]
    (a position), else an InputError from ``owner`` naming ``name``."""
    v = as_floats(value)
    if v.shape not in [(d,) for d in dims] or not np.all(np.abs(v) <= MAX_COORDINATE):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {' or '.join(map(str, dims))} finite "
                         f"numbers within ±{MAX_COORDINATE:g} [m]")
    return tuple(float(x) for x in v)


def _axis(owner: str, value, dims: tuple[int, ...], axes: tuple[str, ...] = AXES):
    """``value`` if it is one of ``axes`` or None, else it as a tuple of ``dims`` (one of them) numbers within
    ±:data:`MAX_COORDINATE`, the largest at least 1/MAX_COORDINATE; else an InputError from ``owner``
    naming 'axis'."""
    if value is None or (isinstance(value, str) and value in axes):
        return value
    v = as_floats(value)
    big = np.max(np.abs(v)) if v.size else np.nan
    if isinstance(value, str) or v.shape not in [(d,) for d in dims] or not (
            1.0 / MAX_COORDINATE <= big <= MAX_COORDINATE):
        raise InputError(f"{owner}: 'axis' = {shown(value)}, expected one of {', '.join(axes)} or a non-zero "
                         f"vector of {' or '.join(map(str, dims))} numbers within ±{MAX_COORDINATE:g}")
    return tuple(float(x) for x in v)


def _mechanism(owner: str, value, name: str = "mechanism") -> Mechanism:
    """``value`` if it is a :class:`Mechanism`, else an InputError from ``owner`` naming ``name``."""
    if not isinstance(value, Mechanism):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a legsim.control.mechanism.Mechanism")
    return value


@dataclass(frozen=True)
class Point:
    """A named point fixed on ``link``; ``position`` (dim,) [m] is where it is in the reference
    configuration (needed only by the numerical rank test)."""

    name: str
    link: str
    position: tuple[float, ...] | None = None

    def __post_init__(self):
        _label("Point", "name", self.name)
        _label(f"Point {self.name!r}", "link", self.link)
        if self.position is not None:
            object.__setattr__(self, "position", _coordinates(f"Point {self.name!r}", "position",
                                                              self.position, (2, 3)))


@dataclass(frozen=True)
class Joint:
    """A joint between ``link_a`` and ``link_b``.

    Attributes
    ----------
    name : unique within the mechanism.
    kind : a :data:`JOINT_KINDS` name or alias (stored canonical).
    link_a, link_b : the links it joins. For a slider and a roll-slide, ``link_b`` carries the guide or
        the contact surface.
    active : an actuated joint (counted in s, eq. 1).
    role : one of :data:`ROLES`; default ``"actuator"`` if active, else ``"internal"``.
    limb : the limb it belongs to (for m_i, eq. 1), or None.
    point : the named point where it sits, if any (ground contacts that the Extended Mobility Analysis
        may relax or merge with control constraints need one).
    at : its position (dim,) [m] in the reference configuration, if no ``point`` gives it.
    axis : a slider's direction of motion, or a roll-slide's constrained (normal) direction: ``"x"``,
        ``"y"``, ``"z"`` or a non-zero vector (dim,) (components within ±:data:`MAX_COORDINATE`).
    ``at`` [m] within ±:data:`MAX_COORDINATE`.
    """

    name: str
    kind: str
    link_a: str
    link_b: str
    active: bool = False
    role: str | None = None
    limb: str | None = None
    point: str | None = None
    at: tuple[float, ...] | None = None
    axis: str | tuple[float, ...] | None = None

    def __post_init__(self):
        o = f"joint {_label('Joint', 'name', self.name)!r}"
        object.__setattr__(self, "kind", _catalogued(self.kind, f"{o}: 'kind'").name)
        _label(o, "link_a", self.link_a)
        _label(o, "link_b", self.link_b)
        check_flag(o, "active", self.active)
        role = self.role if self.role is not None else ("actuator" if self.active else "internal")
        if not (isinstance(role, str) and role in ROLES):
            raise InputError(f"{o}: role = {shown(role)}, expected one of {', '.join(ROLES)}")
        if self.active and role in ("environment", "control", "force"):
            raise InputError(f"{o}: an active joint cannot have role {role!r}, expected "
                             f"'actuator' or 'internal'")
        if self.link_a == self.link_b:
            raise InputError(f"{o} joins link {self.link_a!r} to itself (link_a = link_b), expected two "
                             "links")
        _label(o, "limb", self.limb, optional=True)
        _label(o, "point", self.point, optional=True)
        if self.at is not None:
            object.__setattr__(self, "at", _coordinates(o, "at", self.at, (2, 3)))
        object.__setattr__(self, "axis", _axis(o, self.axis, (2, 3)))
        object.__setattr__(self, "role", role)


@dataclass(frozen=True)
class GrueblerCount:
    """Result of :func:`gruebler`.

    Attributes
    ----------
    space : ``"planar"`` or ``"spatial"``.
    l : links including ground, after merging welded links.
    j : joints counted (welds and springs excluded).
    f1, f2 : joints with 1 and with 2 DOF (eq. 14's f₁, f₂).
    sum_f : Σ f_i over the counted joints.
    F : the mobility (eq. 13 or 14).
    welds : welds that merged two links; loop_welds : welds between links already merged (each removes a
        full rigid body's DOF); springs : spring markers ignored.
    """

    space: str
    l: int
    j: int
    f1: int
    f2: int
    sum_f: int
    F: int
    welds: int = 0
    loop_welds: int = 0
    springs: int = 0


@dataclass
class Mechanism:
    """Links, points and joints of a planar or spatial mechanism (ground is always link 0).

    Parameters
    ----------
    name : a label for reports (a non-empty string).
    space : ``"planar"`` or ``"spatial"``.
    ground : the ground link's name.
    links, points, joints : a start (usually empty, then :meth:`add_link`, :meth:`add_point`,
        :meth:`add_joint`): distinct link names (ground is added first when missing), a dict of name to
        :class:`Point` on those links, :class:`Joint` s between them; checked as the ``add_*`` methods
        check them, into new containers.
    """

    name: str
    space: str = "planar"
    ground: str = "ground"
    links: list[str] = field(default_factory=list)
    points: dict[str, Point] = field(default_factory=dict)
    joints: list[Joint] = field(default_factory=list)

    def __post_init__(self):
        o = "Mechanism"
        _label(o, "name", self.name)
        _space(self.space)
        _label(o, "ground", self.ground)
        o = f"Mechanism {self.name!r}"
        links, points, joints = self.links, self.points, self.joints
        if not (isinstance(links, (list, tuple)) and all(isinstance(x, str) and x for x in links)
                and len(set(links)) == len(links)):
            raise InputError(f"{o}: 'links' = {shown(links)}, expected a list of distinct link names")
        if not (isinstance(points, Mapping) and all(isinstance(p, Point) and p.name == k
                                                    for k, p in points.items())):
            raise InputError(f"{o}: 'points' = {shown(points)}, expected a dict of name: Point of that name")
        if not (isinstance(joints, (list, tuple)) and all(isinstance(j, Joint) for j in joints)):
            raise InputError(f"{o}: 'joints' = {shown(joints)}, expected a list of Joint")
        self.links = list(links) if self.ground in links else [self.ground, *links]
        self.points, self.joints = {}, []
        for field_name, items, add in (("points", points.values(), self._add_point),
                                       ("joints", joints, self._add_joint)):
            for item in items:
                try:
                    add(item)
                except InputError as exc:
                    raise InputError(f"{o}: '{field_name}': {exc}") from None

    @property
    def dim(self) -> int:
        """Translational dimension: 2 planar, 3 spatial."""
        return SPACES[self.space][0]

    @property
    def body_dof(self) -> int:
        """DOF of a free rigid body: 3 planar, 6 spatial."""
        return SPACES[self.space][1]

    @property
    def axes(self) -> tuple[str, ...]:
        return AXES[: self.dim]

    @property
    def orientation_coords(self) -> tuple[str, ...]:
        return ORIENTATION[self.space]

    def add_link(self, *names: str) -> Mechanism:
        """Add links of the (new, non-empty) ``names``; returns the mechanism."""
        for name in names:
            if not isinstance(name, str) or not name or name in self.links:
                raise InputError(f"mechanism {self.name!r}: link name = {shown(name)}, expected a new "
                                 f"non-empty name (links: {self.links})")
            self.links.append(name)
        return self

    def add_point(self, name: str, link: str, position=None) -> Point:
        """Add the point ``name`` (new) on ``link`` at ``position`` (dim,) [m] (within
        ±:data:`MAX_COORDINATE`; None: not placed) and return it."""
        o = f"mechanism {self.name!r}: point {_label(f'mechanism {self.name!r}: add_point', 'name', name)!r}"
        if name in self.points:
            raise InputError(f"{o} already exists")
        return self._add_point(Point(name, link, position))

    def _add_point(self, point: Point) -> Point:
        o = f"point {point.name!r}"
        self._check_link(point.link, o, "link")
        if point.name in self.points:
            raise InputError(f"mechanism {self.name!r}: {o} already exists")
        if point.position is not None:
            _coordinates(o, "position", point.position, (self.dim,))
        self.points[point.name] = point
        return point

    def add_joint(self, name: str, kind: str, link_a: str, link_b: str, **options) -> Joint:
        """Add a :class:`Joint` (keyword options as its attributes) and return it."""
        return self._add_joint(Joint(name, kind, link_a, link_b, **options))

    def _add_joint(self, joint: Joint) -> Joint:
        if any(j.name == joint.name for j in self.joints):
            raise InputError(f"mechanism {self.name!r}: joint {joint.name!r} already exists")
        self._check_joint(joint)
        self.joints.append(joint)
        return joint

    def _check_joint(self, joint: Joint):
        o = f"joint {joint.name!r}"
        _catalogued(joint.kind, f"{o}: 'kind'").dof(self.space)
        for name in ("link_a", "link_b"):
            self._check_link(getattr(joint, name), o, name)
        if joint.point is not None:
            point = self.points.get(joint.point)
            if point is None:
                raise InputError(f"{o}: point {joint.point!r} does not exist in mechanism "
                                 f"{self.name!r}, expected one of its points {sorted(self.points)}")
            if point.link not in (joint.link_a, joint.link_b):
                raise InputError(f"{o}: point {joint.point!r} is on link {point.link!r}, "
                                 f"expected one of the joined links {joint.link_a!r}, {joint.link_b!r}")
        if joint.at is not None:
            _coordinates(o, "at", joint.at, (self.dim,))
        _axis(o, joint.axis, (self.dim,), self.axes)

    def _check_link(self, link: str, owner: str, name: str):
        if not (isinstance(link, str) and link in self.links):
            raise InputError(f"{owner}: '{name}': link {shown(link)} does not exist in mechanism "
                             f"{self.name!r}, expected one of its links {self.links}")

    def joint(self, name: str) -> Joint:
        for j in self.joints:
            if j.name == name:
                return j
        raise InputError(f"mechanism {self.name!r} has no joint {shown(name)}, expected one of "
                         f"{[j.name for j in self.joints]}")

    def replace_joint(self, name: str, **changes) -> Joint:
        """Replace joint ``name`` by a copy with ``changes`` (e.g. ``kind="slider"``); returns the new one."""
        old = self.joint(name)
        new = dataclasses.replace(old, **changes)
        self._check_joint(new)
        self.joints[self.joints.index(old)] = new
        return new

    def copy(self) -> Mechanism:
        return copy.deepcopy(self)

    @property
    def s(self) -> int:
        """Number of active joints, s = Σ m_i (eq. 1)."""
        return sum(1 for j in self.joints if j.active)

    def active_by_limb(self) -> dict[str | None, int]:
        """m_i, the active joints of each limb (key None: joints assigned to no limb)."""
        m: dict[str | None, int] = {}
        for j in self.joints:
            if j.active:
                m[j.limb] = m.get(j.limb, 0) + 1
        return m

    def location(self, joint: Joint) -> np.ndarray | None:
        """Where ``joint`` is in the reference configuration (dim,) [m], or None if not given."""
        if joint.at is not None:
            return np.array(joint.at)
        if joint.point is not None and self.points[joint.point].position is not None:
            return np.array(self.points[joint.point].position)
        return None

    def axis_vector(self, joint: Joint) -> np.ndarray:
        """``joint.axis`` as a unit vector (dim,)."""
        a = joint.axis
        if isinstance(a, str) and a in self.axes:
            return np.eye(self.dim)[self.axes.index(a)]
        v = np.asarray(a if a is not None else np.nan, dtype=float)
        if v.shape != (self.dim,) or not np.all(np.isfinite(v)) or np.linalg.norm(v) == 0.0:
            raise InputError(f"joint {joint.name!r}: axis = {a!r}, expected one of {self.axes} or a non-zero "
                             f"vector of {self.dim} numbers")
        return v / np.linalg.norm(v)


def gruebler(mechanism: Mechanism) -> GrueblerCount:
    """Gruebler/Kutzbach mobility of ``mechanism`` (eq. 13 spatial, eq. 14 planar).

    Spatial F = 6(l − j − 1) + Σ f_i; planar F = 3(l − 1) − Σ(3 − f_i), which is 3(l − 1) − 2 f₁ − f₂ for
    pins, sliders, rolling and roll-slide contacts (eq. 14). Welds merge links (l − 1 each; a weld that
    closes a loop removes 3 or 6 DOF); springs count as nothing (§3.4).

    Returns
    -------
    GrueblerCount with l, j, f1, f2 and F.
    """
    space, body = _mechanism("gruebler", mechanism).space, mechanism.body_dof
    parent = {link: link for link in mechanism.links}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    welds = loop_welds = springs = 0
    counted: list[int] = []
    for joint in mechanism.joints:
        kind = joint_kind(joint.kind, space)
        if kind.marker:
            springs += 1
        elif kind.name == "weld":
            ra, rb = root(joint.link_a), root(joint.link_b)
            if ra == rb:
                loop_welds += 1
            else:
                parent[ra] = rb
                welds += 1
        else:
            counted.append(kind.dof(space))
    l = len({root(x) for x in mechanism.links})
    j = len(counted)
    F = body * (l - 1) - sum(body - f for f in counted) - body * loop_welds
    return GrueblerCount(space, l, j, counted.count(1), counted.count(2), sum(counted), F, welds, loop_welds,
                         springs)


def draw_fixed_coordinates(m: Mechanism, link: str, fixed: dict[str, dict[str, str]]) -> str:
    """Add to ``m`` the joints that fix coordinates of ``link``'s points to ground; return what was drawn.

    Parameters
    ----------
    fixed : point name -> {coordinate: the role fixing it, ``"environment"`` or ``"control"``}, for points
        of ``link``. Coordinates: translations ``"x"``, ``"y"`` (``"z"``); orientation planar ``"theta"``,
        spatial all of ``"alpha"``, ``"beta"``, ``"gamma"``.

    Rules, per point with fixed translations T (the §4.4 table's choices, CJTC digest):

    * T = all translations: a pin (spatial: spherical joint) to ground;
    * fewer, fixed by a control variable: slider blocks along the free axes, then a pin (x_b alone: slider
      block + slider + pin, Fig. 18: l + 1, f₁ + 2); one, fixed by the environment alone: a roll-slide
      (spatial: point contact) with that normal (Fig. 22);
    * orientation fixed too, with at most one such point: a weld if T is all translations (Fig. 20), else
      sliders along the free axes; with several points, each point as above plus an orientation-only
      chain of sliders (Gruebler counts it; the rank test judges it, §3.6).

    Everything is checked before ``m`` is changed.
    """
    o = "draw_fixed_coordinates"
    _mechanism(o, m, "m")._check_link(link, o, "link")
    orient_all = m.orientation_coords
    roles = ("environment", "control")
    if not (isinstance(fixed, Mapping) and all(
            isinstance(p, str) and isinstance(cs, Mapping)
            and all(isinstance(c, str) and c in m.axes + orient_all and isinstance(r, str) and r in roles
                    for c, r in cs.items()) for p, cs in fixed.items())):
        raise InputError(f"{o}: 'fixed' = {shown(fixed)}, expected a dict of point name: "
                         f"{{coordinate: role}} with coordinates among {', '.join(m.axes + orient_all)} and "
                         f"roles {' or '.join(roles)}")
    points = list(fixed)
    for p in points:
        if p not in m.points or m.points[p].link != link:
            where = f"on link {m.points[p].link!r}" if p in m.points else f"not a point of {m.name!r}"
            raise InputError(f"{o}: 'fixed' names point {p!r}, {where}, expected a point of link {link!r}")
    trans = {p: [a for a in m.axes if a in fixed[p]] for p in points}
    orient = {c for p in points for c in fixed[p] if c in orient_all}
    if orient and orient != set(orient_all):
        raise InputError(f"link {link!r}: orientation coordinates {sorted(orient)} fixed, expected all of "
                         f"{orient_all} (partial spatial orientations: use the rank test, §3.6)")
    placed = [p for p in points if trans[p]]
    if orient:
        at = next(p for p in points if orient & set(fixed[p]))
        if len(placed) <= 1:
            point = placed[0] if placed else at
            point_roles = {**fixed[point], **{c: fixed[at][c] for c in orient}}
            return _draw_orientation(m, link, point, trans[point], _role(point_roles))
    parts = [_draw_point(m, link, p, trans[p], fixed[p]) for p in placed]
    if orient:
        parts.append(_draw_orientation(m, link, at, [], _role(fixed[at])))
    return "; ".join(parts)


def _role(roles: dict[str, str]) -> str:
    return "environment" if all(role == "environment" for role in roles.values()) else "control"


def _block_chain(m: Mechanism, tag: str, point: str, free: Sequence[str], role: str) -> str:
    """Slider blocks from ground along the ``free`` axes, placed at ``point``; returns the last block (or
    ground)."""
    prev, at = m.ground, m.points[point].position
    for i, axis in enumerate(free):
        block = f"{tag}:block{i + 1}"
        m.add_link(block)
        m.add_joint(f"{role}:{tag}:slider{i + 1}", "slider", block, prev, role=role, at=at, axis=axis)
        prev = block
    return prev


def _draw_point(m: Mechanism, link: str, point: str, trans: list[str], roles: dict[str, str]) -> str:
    role = _role({c: roles[c] for c in trans})
    free = [a for a in m.axes if a not in trans]
    if len(trans) == 1 and role == "environment":
        kind = "roll_slide" if m.space == "planar" else "point_contact"
        m.add_joint(f"{role}:{point}:contact", kind, link, m.ground, role=role, point=point, axis=trans[0])
        return f"{point}: {kind.replace('_', '-')} (normal {trans[0]})"
    pin = "pin" if m.space == "planar" else "spherical"
    last = _block_chain(m, point, point, free, role)
    m.add_joint(f"{role}:{point}:{pin}", pin, link, last, role=role, point=point)
    if free:
        return f"{point}: slider block{'s' * (len(free) > 1)} along {', '.join(free)} + {pin}"
    return f"{point}: {pin} to ground"


def _draw_orientation(m: Mechanism, link: str, point: str, trans: list[str], role: str) -> str:
    free = [a for a in m.axes if a not in trans]
    if not free:
        m.add_joint(f"{role}:{link}:weld", "weld", link, m.ground, role=role, point=point)
        return f"{link}: weld to ground"
    last = _block_chain(m, f"{link}:orientation", point, free[:-1], role)
    m.add_joint(f"{role}:{link}:slider", "slider", link, last, role=role, point=point, axis=free[-1])
    return f"{link}: slider{'s' * (len(free) > 1)} along {', '.join(free)} (orientation fixed)"


class PlanarPoses:
    """A planar mechanism's joints as constraint equations c(p) = 0 on the absolute poses of its moving links.

    p (3 (l − 1),) stacks (x, y, θ) [m, m, rad] of every non-ground link, in ``mechanism.links`` order. The
    reference configuration is p0 = 0: every link's local frame coincides with the world frame there, so a
    point's local coordinates are its reference position. Equations per joint (at its reference position P):

    * pin: pos_a(P) − pos_b(P) (2 rows); weld: those and θ_a − θ_b (3 rows);
    * slider along d (guide on link_b): θ_a − θ_b and n_b·(pos_a(P) − pos_b(P)), n_b ⟂ d turning with link_b;
    * roll-slide with normal n (surface on link_b): n_b·(pos_a(P) − pos_b(P)) (1 row);
    * spring: none. A rolling contact needs a radius and is refused.

    Then n − rank(∂c/∂p) is the instantaneous mobility at the reference configuration — what Gruebler's
    count (eq. 14) should give unless the geometry is special (§3.6).
    """

    def __init__(self, mechanism: Mechanism):
        if _mechanism("PlanarPoses", mechanism).space != "planar":
            raise InputError(f"PlanarPoses: mechanism {mechanism.name!r} is {mechanism.space}, "
                             f"expected planar")
        self.mechanism = mechanism
        self.moving = [x for x in mechanism.links if x != mechanism.ground]
        self.n = 3 * len(self.moving)
        self.p0 = np.zeros(self.n)
        self._rows: list[tuple[str, str, str, np.ndarray, np.ndarray | None]] = []
        for joint in mechanism.joints:
            kind = joint_kind(joint.kind, "planar").name
            if kind == "spring":
                continue
            if kind == "rolling":
                raise InputError(f"PlanarPoses: joint {joint.name!r} is a rolling contact, whose equations "
                                 f"need a radius; expected pin, slider, roll_slide, weld or spring")
            at = mechanism.location(joint)
            if at is None:
                raise InputError(f"PlanarPoses: joint {joint.name!r} has no position, expected at=(x, y) "
                                 f"or a point with a position")
            normal = None
            if kind in ("slider", "roll_slide"):
                d = mechanism.axis_vector(joint)
                normal = np.array([-d[1], d[0]]) if kind == "slider" else d
            self._rows.append((kind, joint.link_a, joint.link_b, at, normal))

    def _pose(self, p: np.ndarray, link: str) -> tuple[np.ndarray, float]:
        if link == self.mechanism.ground:
            return np.zeros(2), 0.0
        i = 3 * self.moving.index(link)
        return p[i:i + 2], float(p[i + 2])

    def _poses(self, owner: str, p) -> np.ndarray:
        """``p`` checked: (n,) poses within ±:data:`MAX_COORDINATE` [m, rad]."""
        a = as_floats(p)
        if a.shape != (self.n,) or not np.all(np.abs(a) <= MAX_COORDINATE):
            raise InputError(f"PlanarPoses.{owner}: 'p' = {shown(p)}, expected the {self.n} poses "
                             f"(x, y, θ) of the moving links, within ±{MAX_COORDINATE:g} [m, rad]")
        return a

    def position(self, p, link: str, local) -> np.ndarray:
        """World position (2,) [m] of the point with reference position ``local`` (2,) [m] on ``link`` at
        poses p (n,) [m, rad]; positions and poses within ±:data:`MAX_COORDINATE`."""
        p = self._poses("position", p)
        self.mechanism._check_link(link, "PlanarPoses.position", "link")
        return self._position(p, link, _coordinates("PlanarPoses.position", "local", local, (2,)))

    def _position(self, p: np.ndarray, link: str, local) -> np.ndarray:
        r, th = self._pose(p, link)
        c, s = np.cos(th), np.sin(th)
        return r + np.array([c * local[0] - s * local[1], s * local[0] + c * local[1]])

    def constraints(self, p) -> np.ndarray:
        """c(p) (k,): zero when every joint is assembled; p (n,) [m, rad] within ±:data:`MAX_COORDINATE`."""
        return self._constraints(self._poses("constraints", p))

    def _constraints(self, p: np.ndarray) -> np.ndarray:
        out: list[float] = []
        for kind, a, b, at, normal in self._rows:
            gap = self._position(p, a, at) - self._position(p, b, at)
            dth = self._pose(p, a)[1] - self._pose(p, b)[1]
            if kind in ("pin", "weld"):
                out.extend(gap)
                if kind == "weld":
                    out.append(dth)
            else:
                n_b = self._position(p, b, normal) - self._position(p, b, np.zeros(2))
                out.append(float(n_b @ gap))
                if kind == "slider":
                    out.append(dth)
        return np.array(out)

    def coordinate(self, point: str, coord: str) -> Callable[[np.ndarray], float]:
        """u(p): coordinate ``coord`` ('x', 'y' [m] or 'theta' [rad]) of the named ``point``."""
        if not (isinstance(point, str) and point in self.mechanism.points):
            raise InputError(f"PlanarPoses: point {shown(point)} does not exist in mechanism "
                             f"{self.mechanism.name!r}, expected one of {sorted(self.mechanism.points)}")
        if not (isinstance(coord, str) and coord in ("x", "y", "theta")):
            raise InputError(f"PlanarPoses: coordinate {shown(coord)} of point {point!r}, expected 'x', "
                             "'y' or 'theta'")
        pt = self.mechanism.points[point]
        if coord == "theta":
            return lambda p: self._pose(np.asarray(p, dtype=float), pt.link)[1]
        if pt.position is None:
            raise InputError(f"PlanarPoses: point {point!r} has no position, expected one for the rank test")
        k = AXES.index(coord)
        return lambda p: float(self._position(np.asarray(p, dtype=float), pt.link, pt.position)[k])
