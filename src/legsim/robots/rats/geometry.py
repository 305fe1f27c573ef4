"""RATS geometry: the 12 leg directions on the icosahedron (Wagenknecht (2009) §3.1; digest §1.2).

The legs sit on the faces of a dodecahedral core, so their unit vectors point at the 12 vertices
of an icosahedron: each leg has 5 neighbours at arccos(1/sqrt 5) = 63.435 deg, 5 legs at
116.565 deg and one antipodal leg.

Leg numbering (the thesis's own numbering is not given; per-leg data from the thesis are labels):
body frame z up through leg 1, x towards leg 2.

* leg 1: the north pole (0, 0, 1);
* legs 2-6: the upper ring, elevation +arctan(1/2) = 26.565 deg, azimuths 0, 72, 144, 216, 288 deg;
* legs 7-11: the lower ring, elevation -26.565 deg, azimuths 108, 36, 324, 252, 180 deg;
* leg 12: the south pole.

so that leg ``13 - k`` is antipodal to leg ``k``. In code legs are indexed 0-11 (leg k is row k-1).

Topology (digest §1.2, §6.1 item 1): the 20 tripod stances are the icosahedron's faces
(``STANCES``, sorted leg triples in lexicographic order), the 30 tip edges its edges (``EDGES``);
firing stance leg i tips the robot over the edge of the two other stance legs onto the face
across it (``TRANSITIONS``, the thesis's Fig. 6.6 lookup table; the stance graph is the
dodecahedral graph: 3-regular, 30 edges, diameter 5). At rest on level ground gravity points
along the face normal (``GRAVITY_DIRECTIONS``); each stance leg is 37.377 deg from it; one tip
turns the body 41.81 deg about the pivot edge (20.905 deg to the apex).

Planar geometry on level ground: with point feet at distance l from the centre the feet form an
equilateral triangle of side L = l |v_i - v_j| = 1.0515 l whose centroid is below the centre; a
tip reflects the fired foot and the centre across the pivot edge, so foot positions stay on a
triangular lattice and stance centres on a honeycomb with neighbours L / sqrt 3 = l sin θ apart
(thesis Fig. 6.1). ``RatsDims`` holds l (an estimate; the thesis does not give it), the stroke,
radii and the Table 5.1 masses.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

from ...errors import InputError, as_floats, check_array, check_fields, check_number, shown

__all__ = ["N_LEGS", "LEG_DIRECTIONS", "leg_directions", "ADJACENT_ANGLE", "EDGE_CHORD", "STANCES",
           "N_STANCES", "EDGES", "TRANSITIONS", "GRAVITY_DIRECTIONS", "STANCE_LEG_ANGLE", "TIP_ANGLE",
           "APEX_ANGLE", "LEG_STANCES", "stance_of", "transition", "tip_edge", "gravity_dir",
           "tip_axis", "tip_rotation", "RatsDims", "resting_rotation", "planar_feet", "tip_pose",
           "reflect_across_line", "honeycomb"]

N_LEGS = 12
_ELEVATION = math.atan(0.5)   # of the two rings [rad]
_LOWER_AZIMUTHS_DEG = (108.0, 36.0, 324.0, 252.0, 180.0)


def leg_directions() -> np.ndarray:
    """(12, 3) unit leg vectors in the body frame, row ``k - 1`` for leg ``k`` (module docstring)."""
    out = np.zeros((N_LEGS, 3))
    out[0] = (0.0, 0.0, 1.0)
    ce, se = math.cos(_ELEVATION), math.sin(_ELEVATION)
    for i in range(5):
        a = math.radians(72.0 * i)
        out[1 + i] = (ce * math.cos(a), ce * math.sin(a), se)
        b = math.radians(_LOWER_AZIMUTHS_DEG[i])
        out[6 + i] = (ce * math.cos(b), ce * math.sin(b), -se)
    out[11] = (0.0, 0.0, -1.0)
    return out


LEG_DIRECTIONS = leg_directions()
"""(12, 3) unit leg vectors, body frame (read-only)."""
LEG_DIRECTIONS.setflags(write=False)


# ------------------------------------------------------------------------------ stances and edges
ADJACENT_ANGLE = math.acos(1.0 / math.sqrt(5.0))
"""Angle between neighbouring legs [rad]: arccos(1/sqrt 5) = 63.435 deg (thesis: 63.44 deg)."""
EDGE_CHORD = math.sqrt(2.0 - 2.0 / math.sqrt(5.0))
"""|v_i - v_j| for neighbouring unit leg vectors [-] (1.05146): the foot triangle side is l times this."""


def _adjacency() -> np.ndarray:
    return np.isclose(LEG_DIRECTIONS @ LEG_DIRECTIONS.T, 1.0 / math.sqrt(5.0), atol=1e-9)


def _faces() -> np.ndarray:
    adj = _adjacency()
    faces = [t for t in itertools.combinations(range(N_LEGS), 3)
             if adj[t[0], t[1]] and adj[t[0], t[2]] and adj[t[1], t[2]]]
    return np.array(faces, dtype=np.int64)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


STANCES = _readonly(_faces())
"""(20, 3) int: the tripod stances (icosahedron faces) as sorted 0-based leg indices. Order:
lexicographic in the sorted triple, so stance 0 is legs (0, 1, 2) = thesis-style labels
(1, 2, 3) and stance 19 is (9, 10, 11). Row ``s`` is "stance s" everywhere in this package."""
N_STANCES = len(STANCES)

EDGES = _readonly(np.argwhere(np.triu(_adjacency())).astype(np.int64))
"""(30, 2) int: the tip edges (pairs of neighbouring legs, i < j), lexicographic order."""

_STANCE_INDEX = {tuple(int(v) for v in row): s for s, row in enumerate(STANCES)}


def _transitions() -> np.ndarray:
    table = np.full((N_STANCES, N_LEGS), -1, dtype=np.int64)
    by_edge: dict[tuple[int, int], list[int]] = {}
    for s, (a, b, c) in enumerate(STANCES.tolist()):
        for e in ((a, b), (a, c), (b, c)):
            by_edge.setdefault(e, []).append(s)
    for s, legs in enumerate(STANCES):
        for leg in legs:
            a, b = (int(v) for v in legs if v != leg)
            other = [t for t in by_edge[(a, b)] if t != s]
            table[s, leg] = other[0]
    return table


TRANSITIONS = _readonly(_transitions())
"""(20, 12) int: ``TRANSITIONS[s, i]`` is the stance after firing leg ``i`` from stance ``s``
(thesis Fig. 6.6): the robot tips over the edge opposite leg i (the other two stance legs), which
stay on the ground, and leg i is replaced by the vertex across that edge. -1 where leg i is not
in stance s. Involutive: firing the new leg from the new stance tips back over the same edge."""

GRAVITY_DIRECTIONS = _readonly(
    LEG_DIRECTIONS[STANCES].sum(axis=1)
    / np.linalg.norm(LEG_DIRECTIONS[STANCES].sum(axis=1), axis=1)[:, None])
"""(20, 3) unit vectors, body frame: for stance s resting on level ground, the direction from the
centre towards the ground (gravity), the normalised sum of the 3 stance-leg vectors (the outward
normal of the icosahedron face)."""

STANCE_LEG_ANGLE = math.acos(float(LEG_DIRECTIONS[0] @ GRAVITY_DIRECTIONS[0]))
"""Angle between each stance leg and the vertical (face normal) [rad]: 37.377 deg, the thrust
angle θ of (4.1)–(4.3) (thesis: 37.38 deg)."""
TIP_ANGLE = math.acos(float(GRAVITY_DIRECTIONS[0] @ GRAVITY_DIRECTIONS[TRANSITIONS[0, 0]]))
"""Body rotation of one tip, stance to next stance [rad]: 41.81 deg (180 deg minus the
icosahedron's dihedral angle)."""
APEX_ANGLE = 0.5 * TIP_ANGLE
"""Body rotation from a stance to the apex, centre above the pivot edge [rad]: 20.905 deg."""

LEG_STANCES = _readonly(np.array([np.flatnonzero((STANCES == i).any(axis=1)) for i in range(N_LEGS)]))
"""(12, 5) int: the 5 stances containing each leg (ascending)."""


def _check_leg(leg, name: str = "leg") -> int:
    if isinstance(leg, bool) or not isinstance(leg, (int, np.integer)) or not 0 <= leg < N_LEGS:
        raise InputError(f"{name}={leg!r}: expected a leg index 0..{N_LEGS - 1} (leg k of the thesis's "
                         "labels is index k - 1)")
    return int(leg)


def _check_stance(stance, name: str = "stance") -> int:
    if isinstance(stance, bool) or not isinstance(stance, (int, np.integer)) \
            or not 0 <= stance < N_STANCES:
        raise InputError(f"{name}={stance!r}: expected a stance index 0..{N_STANCES - 1}")
    return int(stance)


def stance_of(legs) -> int:
    """Index of the stance formed by three legs (any order, 0-based indices).

    Raises InputError when the legs are not three mutually neighbouring legs (not a face)."""
    try:
        key = tuple(sorted(int(v) for v in legs))
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"legs={legs!r}: expected three leg indices") from None
    if key not in _STANCE_INDEX:
        raise InputError(f"legs={legs!r}: expected three mutually neighbouring legs (an icosahedron "
                         "face; see STANCES)")
    return _STANCE_INDEX[key]


def transition(stance: int, leg: int) -> int:
    """The stance after firing ``leg`` from ``stance`` (TRANSITIONS, thesis Fig. 6.6).

    Raises InputError when the leg is not one of the stance's three legs."""
    s, i = _check_stance(stance), _check_leg(leg)
    out = int(TRANSITIONS[s, i])
    if out < 0:
        raise InputError(f"leg={leg} is not in stance {s} (legs {tuple(int(v) for v in STANCES[s])}): "
                         "only a stance leg can tip the robot")
    return out


def tip_edge(stance: int, leg: int) -> tuple[int, int]:
    """The pivot edge (two legs, ascending) when ``leg`` is fired from ``stance``."""
    transition(stance, leg)
    a, b = (int(v) for v in STANCES[stance] if v != leg)
    return a, b


def gravity_dir(stance: int) -> np.ndarray:
    """(3,) unit gravity direction in the body frame for ``stance`` at rest on level ground."""
    return GRAVITY_DIRECTIONS[_check_stance(stance)].copy()


def tip_axis(stance: int, leg: int) -> np.ndarray:
    """(3,) unit axis, body frame, of the body's rotation while tipping from ``stance`` by firing
    ``leg``: parallel to the pivot edge, signed so that a positive rotation of ``TIP_ANGLE``
    about it (:func:`tip_rotation`) carries the body from the old stance to the new one."""
    new = transition(stance, leg)
    axis = np.cross(GRAVITY_DIRECTIONS[new], GRAVITY_DIRECTIONS[stance])
    return axis / np.linalg.norm(axis)


def tip_rotation(stance: int, leg: int) -> np.ndarray:
    """(3, 3) body-frame rotation D of one tip: ``R_new = R_old @ D`` for body-to-world rotations
    R, so that ``D @ gravity_dir(new) = gravity_dir(stance)`` (rotation by ``TIP_ANGLE`` about
    :func:`tip_axis`). The yaw is carried over from the old pose (no yaw slip)."""
    return Rotation.from_rotvec(TIP_ANGLE * tip_axis(stance, leg)).as_matrix()


# ------------------------------------------------------------------------------ dimensions
@dataclass(frozen=True)
class RatsDims:
    """Dimensions [m] and masses [kg] of the RATS prototype (digest §1.2, §2.2 Table 5.1).

    l : centre to the retracted foot contact point [m]. **Not given by the thesis**; 0.20 m is
        the digest's estimate (§1.2: the 0.15 m body sphere must clear the ground,
        l cos θ > 0.15 → l > 0.189 m; the measured ≈0.105 m per tip; h_max = 0.289 ≈ l + stroke).
        The planar tipping model treats each foot as a point at ``l`` along its leg axis.
    stroke : leg travel, 0.063 m. foot_radius : hemispherical foot / capsule radius, 0.012 m.
    body_radius : the simulation's body sphere, 0.15 m. capsule_length : leg capsule cylinder
        length, 0.114 m. body_mass : 2.858 kg, leg_mass : 0.049 kg each (Table 5.1).
    """

    l: float = 0.20
    stroke: float = 0.063
    foot_radius: float = 0.012
    body_radius: float = 0.15
    capsule_length: float = 0.114
    body_mass: float = 2.858
    leg_mass: float = 0.049

    def __post_init__(self) -> None:
        check_fields("RatsDims", self, positive=("l", "stroke", "foot_radius", "body_radius",
                                                  "capsule_length", "body_mass", "leg_mass"))

    @property
    def total_mass(self) -> float:
        """Body plus 12 legs [kg] (3.446 kg fully charged, Table 5.1)."""
        return self.body_mass + N_LEGS * self.leg_mass

    @property
    def side_length(self) -> float:
        """Side L of the foot triangle on the ground [m]: l |v_i - v_j| = 1.0515 l."""
        return self.l * EDGE_CHORD

    @property
    def lattice_step(self) -> float:
        """Distance between neighbouring stance centres (one tip) [m]: L / sqrt 3 = l sin θ."""
        return self.side_length / math.sqrt(3.0)

    @property
    def centre_height(self) -> float:
        """Height of the centre above level ground at rest [m]: l cos θ."""
        return self.l * math.cos(STANCE_LEG_ANGLE)

    @property
    def rests_on_feet(self) -> bool:
        """Whether the body sphere clears the ground at rest (l cos θ > body_radius)."""
        return self.centre_height > self.body_radius


# ------------------------------------------------------------------------------ poses on level ground
def resting_rotation(stance: int, yaw: float = 0.0) -> np.ndarray:
    """(3, 3) body-to-world rotation R putting ``stance`` on level ground: ``R @ gravity_dir(stance)
    = (0, 0, -1)``. Yaw convention: at ``yaw = 0`` the first leg of ``STANCES[stance]`` (the lowest
    index) points along world +x in the horizontal projection; ``yaw`` [rad] turns the robot about
    world +z."""
    s = _check_stance(stance)
    yaw = check_number("resting_rotation", "yaw", yaw, lo=-1e6, hi=1e6)  # [rad]
    up = -GRAVITY_DIRECTIONS[s]
    v0 = LEG_DIRECTIONS[STANCES[s, 0]]
    ex = v0 - (v0 @ up) * up
    ex /= np.linalg.norm(ex)
    r0 = np.array([ex, np.cross(up, ex), up])
    c, sn = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -sn, 0.0], [sn, c, 0.0], [0.0, 0.0, 1.0]]) @ r0


def resting_stance(rotation) -> int:
    """The stance (0-19) whose gravity direction is nearest the body's for the body -> world rotation
    ``rotation`` (3, 3) on level ground: the truth that the accelerometer's argmax (§3.4) estimates."""
    R = np.asarray(rotation, dtype=float)
    return int(np.argmax(GRAVITY_DIRECTIONS @ -R[2]))   # R^T (0, 0, -1): world down in body axes


def planar_feet(stance: int, l: float = 0.20, yaw: float = 0.0, centre=(0.0, 0.0)) -> np.ndarray:
    """(3, 2) ground coordinates [m] of the stance feet, rows in the order of ``STANCES[stance]``,
    for the robot resting on level ground with :func:`resting_rotation` ``(stance, yaw)`` and its
    centre above ``centre`` (2,) [m]. The feet form an equilateral triangle of side
    ``l * EDGE_CHORD`` whose centroid is ``centre`` (the centre projects onto the centroid)."""
    l = check_number("planar_feet", "l", l, lo=0.0, hi=1e3, lo_open=True)  # [m], centre to foot
    c = _point2("centre", centre)
    world = (resting_rotation(stance, yaw) @ (l * LEG_DIRECTIONS[STANCES[stance]]).T).T
    return world[:, :2] + c


def tip_pose(rotation, centre, stance: int, leg: int, l: float = 0.20):
    """Rigid tip on level ground: the body turns by ``TIP_ANGLE`` about the pivot edge (the two
    feet opposite ``leg``, which stay put) until the new stance rests.

    Parameters
    ----------
    rotation : (3, 3) body-to-world rotation at rest on ``stance``; centre : (3,) world position
        of the centre [m]; l : centre-to-foot distance [m] (point feet).

    Returns
    -------
    (rotation (3, 3), centre (3,), new stance index).
    """
    new = transition(stance, leg)
    r = check_array("tip_pose", "rotation", rotation, (3, 3))
    c = check_array("tip_pose", "centre", centre, (3,), "m")
    l = check_number("tip_pose", "l", l, lo=0.0, hi=1e3, lo_open=True)  # [m]
    pivot = tip_edge(stance, leg)[0]
    r_new = r @ tip_rotation(stance, leg)
    foot = c + l * (r @ LEG_DIRECTIONS[pivot])
    return r_new, foot - l * (r_new @ LEG_DIRECTIONS[pivot]), new


# ------------------------------------------------------------------------------ planar lattice
MAX_GROUND = 1e6
"""The largest ground coordinate [m] the lattice helpers take (a charge tips ~20 m)."""

MAX_HONEYCOMB = 1000
"""The largest honeycomb radius, in foot-triangle sides: beyond, millions of stance centres."""


def _point2(name: str, p) -> np.ndarray:
    a = as_floats(p)
    if a.shape != (2,) or not np.all(np.abs(a) <= MAX_GROUND):
        raise InputError(f"{name}={shown(p)}: expected 2 coordinates within ±MAX_GROUND = {MAX_GROUND:g} m")
    return a


def _points2(owner: str, name: str, p) -> np.ndarray:
    """Ground points (..., 2) [m] within ±:data:`MAX_GROUND`, else an :class:`InputError`."""
    a = as_floats(p)
    if a.ndim == 0 or a.shape[-1] != 2 or not np.all(np.abs(a) <= MAX_GROUND):
        raise InputError(f"{owner}: '{name}' = {shown(p)}, expected ground points (..., 2) within "
                         f"±MAX_GROUND = {MAX_GROUND:g} m")
    return a


def reflect_across_line(points, a, b) -> np.ndarray:
    """Mirror images of ``points`` (..., 2) across the line through ``a`` and ``b`` (2,) [m]
    (the tipping motion model, thesis Fig. 6.5a)."""
    a = _point2("a", a)
    d = _point2("b", b) - a
    n2 = float(d @ d)
    if not n2 > 0.0:
        raise InputError(f"reflect_across_line: a = b = {a.tolist()}: the edge has zero length")
    p = _points2("reflect_across_line", "points", points) - a
    return a + 2.0 * np.multiply.outer(p @ d / n2, d) - p


def honeycomb(feet, radius: float) -> np.ndarray:
    """Stance centres reachable by tipping (the honeycomb, thesis Fig. 6.1) within ``radius`` [m] of
    the centroid of ``feet`` (3, 2) [m], an equilateral foot triangle on the ground.

    The feet of all reachable stances form the triangular lattice spanned by the triangle's sides;
    the centres are the centroids of its triangles, ``(n, 2)``, sorted by distance (the first row
    is the starting centroid)."""
    f = _points2("honeycomb", "feet", feet)
    if f.shape != (3, 2):
        raise InputError(f"honeycomb: 'feet' has shape {f.shape}: expected (3, 2) foot coordinates [m]")
    radius = check_number("honeycomb", "radius", radius, lo=0.0)  # [m]
    a1, a2 = f[1] - f[0], f[2] - f[0]
    side = float(np.linalg.norm(a1))
    if side == 0.0 or abs(float(np.linalg.norm(a2)) - side) > 1e-9 * side \
            or abs(float(np.linalg.norm(a2 - a1)) - side) > 1e-9 * side:
        raise InputError(f"honeycomb: 'feet' = {f.tolist()}: expected an equilateral triangle")
    if radius > MAX_HONEYCOMB * side:
        raise InputError(f"honeycomb: 'radius' = {radius:g} m is {radius / side:.3g} foot-triangle sides: "
                         f"expected at most MAX_HONEYCOMB = {MAX_HONEYCOMB}")
    origin = f.mean(axis=0)
    n = int(math.ceil(radius / side)) + 2
    i, j = np.meshgrid(np.arange(-2 * n, 2 * n + 1), np.arange(-2 * n, 2 * n + 1), indexing="ij")
    base = f[0] + np.multiply.outer(i.ravel(), a1) + np.multiply.outer(j.ravel(), a2)
    pts = np.concatenate([base + (a1 + a2) / 3.0, base + 2.0 * (a1 + a2) / 3.0])
    d = np.linalg.norm(pts - origin, axis=1)
    keep = d <= radius + 1e-9 * side
    order = np.argsort(d[keep], kind="stable")
    return pts[keep][order]
