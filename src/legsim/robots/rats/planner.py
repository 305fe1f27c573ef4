"""RATS path-following tipping planner (Wagenknecht (2009) §6.1.1, Figs 6.1-6.8; digest §3.2).

Tipping moves the robot between the triangles of a triangular lattice of foot positions: from a
stance it can tip over one of its three edges, so its centre moves by the lattice step
L / sqrt 3 in one of three directions 120 deg apart, onto the honeycomb of stance centres.
The planner keeps an estimate {X, Q}: the ground positions of the three stance feet and of the
centre (X) and the stance (Q, the three leg labels), and loops (Fig. 6.2):

1. heading H from the estimated centre to the target waypoint W;
2. W is kept until it lies inside the stance triangle, tested with barycentric coordinates
   (6.1)-(6.4) — (6.3) with a **plus** before its second term (the printed minus is an OCR or
   typesetting error; with it the test fails for points inside the triangle). With a nonzero slip
   a waypoint also counts as reached when the chosen tip would not bring the centre closer
   (:meth:`TippingPlanner.reached`; without it the planner can oscillate for ever around a
   waypoint that falls between two slipped triangles);
3. the new W is the next waypoint along the path at least R = γ L from the centre estimate
   (L the foot-triangle side, γ dimensionless; γ = 1.5 recommended);
4. the tipping edge is the one with the largest positive projection H · n_i (6.5), n_i the
   outward unit normal of the edge opposite foot i, and leg i is fired;
5. motion model (Fig. 6.5): the fired foot and the centre are reflected across the tipping edge,
   all four points are translated by the slip, and Q is updated with the transition table
   (Fig. 6.6).

Slip (digest §6.3, not given by the thesis): the translation is ``slip`` metres along the tip
direction (the unit normal of the tipping edge, pointing away from the fired foot); positive is a
forward slide or short hop, negative a backward slip. Default 0 (the pure reflection, which keeps
the estimate on the honeycomb).

Metrics (§6.1.1): the number of firings (gas) and the mean path error, the distance from the
centre after each firing to the nearest point of the path polyline, averaged over the firings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, as_float, as_floats, check_flag, check_number, check_whole, shown
from .geometry import (
    MAX_GROUND,
    STANCES,
    TRANSITIONS,
    RatsDims,
    _check_leg,
    _check_stance,
    _point2,
    _points2,
    planar_feet,
    reflect_across_line,
)

__all__ = ["TipState", "initial_state", "barycentric", "in_triangle", "edge_normals", "choose_leg",
           "tip", "line_path", "circle_path", "figure8_path", "path_distance", "TippingPlanner",
           "PlanResult", "plan"]


@dataclass(frozen=True)
class TipState:
    """The planner's estimate {X, Q}.

    feet : (3, 2) ground positions of the stance feet [m], rows in the order of ``STANCES[stance]``;
    centre : (2,) ground projection of the body centre [m]; stance : stance index (Q).
    """

    feet: np.ndarray
    centre: np.ndarray
    stance: int

    @property
    def legs(self) -> tuple[int, int, int]:
        """The three stance legs (0-based, ascending), the labels Q."""
        a, b, c = (int(v) for v in STANCES[self.stance])
        return a, b, c


def initial_state(stance: int, dims: RatsDims | None = None, yaw: float = 0.0,
                  centre=(0.0, 0.0)) -> TipState:
    """The estimate of the robot resting on ``stance`` (index 0-19) with yaw ``yaw`` [rad] within ±1e6
    (convention of :func:`~.geometry.resting_rotation`) and its centre above ``centre`` (2,) [m] within
    ±MAX_GROUND; ``dims`` a :class:`RatsDims` (None: the defaults)."""
    dims = _dims(dims)
    s = _check_stance(stance)
    yaw = check_number("initial_state", "yaw", yaw, lo=-1e6, hi=1e6)  # [rad], as resting_rotation's
    feet = planar_feet(s, dims.l, yaw, _centre(centre))
    return TipState(feet, feet.mean(axis=0), s)


def _centre(value, name: str = "centre") -> np.ndarray:
    return _point2(name, value)


def _dims(dims) -> RatsDims:
    if dims is None:
        return RatsDims()
    if not isinstance(dims, RatsDims):
        raise InputError(f"dims={dims!r}: expected None or a legsim.robots.rats.geometry.RatsDims")
    return dims


def _triangle(owner: str, name: str, tri) -> np.ndarray:
    t = _points2(owner, name, tri)
    if t.shape != (3, 2):
        raise InputError(f"{owner}: '{name}' has shape {t.shape}: expected (3, 2) vertex coordinates [m]")
    return t


def barycentric(tri, w) -> np.ndarray:
    """(3,) barycentric coordinates (λ1, λ2, λ3) of point(s) ``w`` (2,) or (n, 2) [m] in triangle
    ``tri`` (3, 2) [m], (6.1)-(6.4) with the corrected sign in (6.3):

    λ1 = [(y2 - y3)(xW - x3) - (x2 - x3)(yW - y3)] / det M,
    λ2 = [-(y1 - y3)(xW - x3) + (x1 - x3)(yW - y3)] / det M, λ3 = 1 - λ1 - λ2.

    Returns (3,) or (n, 3). Raises InputError for a degenerate triangle (det M = 0)."""
    (x1, y1), (x2, y2), (x3, y3) = _triangle("barycentric", "tri", tri)
    det = (x1 - x3) * (y2 - y3) - (x2 - x3) * (y1 - y3)          # det M (6.1)
    scale = max(abs(x1 - x3), abs(x2 - x3), abs(y1 - y3), abs(y2 - y3)) ** 2
    if not abs(det) > 1e-12 * scale:
        raise InputError(f"barycentric: 'tri' = {np.asarray(tri).tolist()}: degenerate (det M = {det:g})")
    p = _points2("barycentric", "w", w)
    dx, dy = p[..., 0] - x3, p[..., 1] - y3
    l1 = ((y2 - y3) * dx - (x2 - x3) * dy) / det                 # (6.2)
    l2 = (-(y1 - y3) * dx + (x1 - x3) * dy) / det                # (6.3), corrected sign
    return np.stack([l1, l2, 1.0 - l1 - l2], axis=-1)            # (6.4)


def in_triangle(tri, w, tol: float = 1e-12):
    """Whether ``w`` lies in the triangle: 0 ≤ λ_i ≤ 1 for all i (within ``tol``). bool, or a bool
    array for (n, 2) points."""
    tol = check_number("in_triangle", "tol", tol, lo=0.0, hi=1.0)
    lam = barycentric(tri, w)
    return np.all((lam >= -tol) & (lam <= 1.0 + tol), axis=-1)


def edge_normals(feet) -> np.ndarray:
    """(3, 2) outward unit normals n_i of the foot triangle's edges, row i for the edge opposite
    foot i (Fig. 6.4)."""
    f = _triangle("edge_normals", "feet", feet)
    out = np.empty((3, 2))
    for i in range(3):
        a, b = f[(i + 1) % 3], f[(i + 2) % 3]
        d = b - a
        n = np.array([d[1], -d[0]])
        if n @ (a - f[i]) < 0.0:
            n = -n
        norm = float(np.linalg.norm(n))
        if norm == 0.0:
            raise InputError(f"edge_normals: 'feet' = {f.tolist()}: a degenerate triangle")
        out[i] = n / norm
    return out


def choose_leg(state: TipState, heading) -> tuple[int, np.ndarray]:
    """The leg to fire for ``heading`` H (2,) [m or unit]: the foot opposite the edge with the
    largest positive projection L_proj,i = H · n_i (6.5). ``state`` a :class:`TipState`; H's components
    within ±2 MAX_GROUND (a waypoint minus a centre, each within ±MAX_GROUND).

    Returns (leg index 0-11, (3,) projections in the order of the stance feet). Raises InputError
    when H = 0 (no direction; the target is at the centre, i.e. inside the triangle)."""
    if not isinstance(state, TipState):
        raise InputError(f"choose_leg: 'state' = {shown(state)}, expected a TipState (initial_state, tip)")
    _check_stance(state.stance, "state.stance")
    h = as_floats(heading)
    if h.shape != (2,) or not np.all(np.abs(h) <= 2.0 * MAX_GROUND) or not np.any(h):
        raise InputError(f"choose_leg: 'heading' = {shown(heading)}, expected a nonzero 2-vector within "
                         f"±2 MAX_GROUND = {2.0 * MAX_GROUND:g} m")
    proj = edge_normals(state.feet) @ h
    return state.legs[int(np.argmax(proj))], proj


MAX_FIRINGS = 1_000_000
"""The most tips one :func:`plan` makes (about 120 km of tipping; a run's charge lasts ~160)."""

MAX_SLIP = 1.0
"""The largest |slip| a tip's motion model takes [m]: the thesis's slip is a small part of a tip's
~0.1 m advance; a metre a tip is a mistake (and 1e154 overflowed the planner's norms)."""


def _check_slip(slip) -> None:
    if not abs(as_float(slip)) <= MAX_SLIP:
        raise InputError(f"slip={slip!r}: expected a distance in [-{MAX_SLIP:g}, {MAX_SLIP:g}] m")


def tip(state: TipState, leg: int, slip: float = 0.0) -> TipState:
    """The motion model (Fig. 6.5): fire ``leg`` (one of the stance legs) from ``state``.

    The fired foot and the centre are reflected across the edge of the two other feet; all four
    points then move ``slip`` [m] along the tip direction (the edge's normal away from the fired
    foot); the fired leg's label is replaced by the leg across the edge (TRANSITIONS). Returns the
    new state with the feet reordered to ``STANCES[new stance]``."""
    i = _check_leg(leg)
    legs = state.legs
    if i not in legs:
        raise InputError(f"leg={leg} is not in stance {state.stance} (legs {legs}): only a stance leg "
                         "can be fired")
    _check_slip(slip)
    k = legs.index(i)
    a, b = state.feet[(k + 1) % 3], state.feet[(k + 2) % 3]
    moved = reflect_across_line(np.vstack([state.feet[k], state.centre]), a, b)
    direction = edge_normals(state.feet)[k]
    feet = {legs[(k + 1) % 3]: a, legs[(k + 2) % 3]: b}
    new = int(TRANSITIONS[state.stance, i])
    (new_leg,) = (int(v) for v in STANCES[new] if int(v) not in feet)
    feet[new_leg] = moved[0]
    shift = slip * direction
    return TipState(np.array([feet[int(v)] for v in STANCES[new]]) + shift, moved[1] + shift, new)


# ------------------------------------------------------------------------------ paths
MAX_WAYPOINTS = 1_000_000
"""The most waypoints a path helper makes (a waypoint every 2 cm of a 20 km path)."""


def _resample(points: np.ndarray, spacing, owner: str, size: str) -> np.ndarray:
    """``points`` (n, 2) [m] resampled every ``spacing`` [m]; ``size`` says what set the path's length."""
    spacing = check_number(owner, "spacing", spacing, lo=0.0, lo_open=True)  # [m] between waypoints
    seg = np.linalg.norm(np.diff(points, axis=0), axis=1)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if not float(s[-1]) <= MAX_WAYPOINTS * spacing:
        raise InputError(f"{owner}: 'spacing' = {spacing:g} m on a {s[-1]:g} m path ({size}): expected at "
                         f"most MAX_WAYPOINTS = {MAX_WAYPOINTS} waypoints")
    n = max(int(math.ceil(s[-1] / spacing)), 1)
    t = np.linspace(0.0, s[-1], n + 1)
    return np.column_stack([np.interp(t, s, points[:, 0]), np.interp(t, s, points[:, 1])])


def line_path(start, end, spacing: float = 0.02) -> np.ndarray:
    """(n, 2) waypoints [m] on the segment start -> end, about ``spacing`` [m] apart (both ends
    included)."""
    a, b = _point2("start", start), _point2("end", end)
    if np.all(a == b):
        raise InputError(f"line_path start={start!r}, end={end!r}: expected two distinct 2-D points")
    return _resample(np.vstack([a, b]), spacing, "line_path", "from 'start' to 'end'")


def circle_path(radius: float, centre=(0.0, 0.0), spacing: float = 0.02, start_angle: float = -0.5 * math.pi,
                ccw: bool = True) -> np.ndarray:
    """(n, 2) waypoints [m] once around a circle of ``radius`` [m] about ``centre``, starting at
    ``start_angle`` [rad] (default: the bottom, heading +x when counter-clockwise) and ending there."""
    radius = check_number("circle_path", "radius", radius, lo=0.0, hi=MAX_GROUND, lo_open=True)
    c = _point2("centre", centre)
    start_angle = check_number("circle_path", "start_angle", start_angle, lo=-1e6, hi=1e6)  # [rad]
    turn = 1.0 if check_flag("circle_path", "ccw", ccw) else -1.0
    th = start_angle + turn * np.linspace(0.0, 2.0 * math.pi, 2049)
    return _resample(c + radius * np.column_stack([np.cos(th), np.sin(th)]), spacing, "circle_path",
                     f"'radius' = {radius:g} m")


def figure8_path(width: float, centre=(0.0, 0.0), spacing: float = 0.02) -> np.ndarray:
    """(n, 2) waypoints [m] once around a figure-8 (lemniscate of Gerono) of total ``width`` [m]
    (x from -width/2 to width/2) and height width/2, starting and ending at its crossing
    ``centre`` (heading +x, +y); x = (w/2) sin t, y = (w/4) sin 2t."""
    width = check_number("figure8_path", "width", width, lo=0.0, hi=MAX_GROUND, lo_open=True)  # [m]
    c = _point2("centre", centre)
    t = np.linspace(0.0, 2.0 * math.pi, 4097)
    return _resample(c + np.column_stack([0.5 * width * np.sin(t), 0.25 * width * np.sin(2.0 * t)]), spacing,
                     "figure8_path", f"'width' = {width:g} m")


def _path(path) -> np.ndarray:
    p = as_floats(path)
    if p.ndim != 2 or p.shape[1] != 2 or len(p) < 1 or not np.all(np.abs(p) <= MAX_GROUND):
        raise InputError(f"path: expected (n, 2) finite waypoints [m] within MAX_GROUND = {MAX_GROUND:g} m "
                         f"of the origin, got shape {np.shape(path)}")
    return p


def path_distance(points, path):
    """Distance [m] from each of ``points`` (m, 2) to the nearest point of the polyline ``path``
    (n, 2): an (m,) array, or a float for one point (2,)."""
    p = _path(path)
    q = np.atleast_2d(_points2("path_distance", "points", points))
    if len(p) == 1:
        d = np.linalg.norm(q - p[0], axis=1)
    else:
        a, ab = p[:-1], np.diff(p, axis=0)
        l2 = np.einsum("ij,ij->i", ab, ab)
        rel = q[:, None, :] - a[None, :, :]
        t = np.clip(np.einsum("mij,ij->mi", rel, ab) / np.where(l2 > 0, l2, 1.0), 0.0, 1.0)
        d = np.linalg.norm(rel - t[..., None] * ab[None], axis=2).min(axis=1)
    return d if np.ndim(points) > 1 else float(d[0])


# ------------------------------------------------------------------------------ planner
class TippingPlanner:
    """Waypoint tracking and leg choice of §6.1.1 (steps 1-4 of the module docstring).

    Parameters
    ----------
    path : (n, 2) waypoints [m]; the last is the goal.
    dims : :class:`RatsDims` (the side L = l |v_i - v_j| sets R = γ L).
    gamma : look-ahead multiplier γ (> 0; thesis: γ < 1 jagged and accurate, γ > 4 greedy, 1.5
        recommended).
    slip : motion-model slip along the tip direction [m] (module docstring).
    """

    def __init__(self, path, dims: RatsDims | None = None, *, gamma: float = 1.5, slip: float = 0.0):
        self.path = _path(path)
        self.dims = _dims(dims)
        if not (math.isfinite(as_float(gamma)) and gamma > 0.0):
            raise InputError(f"gamma={gamma!r}: expected a look-ahead multiplier > 0")
        _check_slip(slip)
        self.gamma = float(gamma)
        self.slip = float(slip)
        self.index = 0

    @property
    def radius(self) -> float:
        """Look-ahead radius R = γ L [m]."""
        return self.gamma * self.dims.side_length

    def reset(self) -> None:
        """Start again at the first waypoint."""
        self.index = 0

    def reached(self, state: TipState, w) -> bool:
        """Whether waypoint ``w`` (2,) counts as reached from ``state``: it lies in the stance
        triangle (6.1)-(6.4), or (our fallback for slip ≠ 0) the tip the planner would choose does
        not bring the centre closer to it. With slip the tipped triangles no longer tile the plane
        and a waypoint in a gap between them would otherwise be chased for ever; with zero slip the
        fallback never fires (a tip over the edge of largest H · n_i > inradius always gets closer)."""
        if in_triangle(state.feet, w):
            return True
        h = w - state.centre
        moved = tip(state, choose_leg(state, h)[0], self.slip)
        return bool(np.linalg.norm(w - moved.centre) >= np.linalg.norm(h))

    def target(self, state: TipState) -> np.ndarray | None:
        """The current target waypoint W for ``state`` (2,) [m], or None when the goal (the last
        waypoint) is reached (:meth:`reached`). Advances past reached waypoints (steps 2-3)."""
        p = self.path
        while self.reached(state, p[self.index]):
            if self.index == len(p) - 1:
                return None
            far = np.flatnonzero(np.linalg.norm(p[self.index + 1:] - state.centre, axis=1) >= self.radius)
            self.index = self.index + 1 + int(far[0]) if far.size else len(p) - 1
        return p[self.index]

    def next_leg(self, state: TipState) -> int | None:
        """The leg to fire from ``state`` (steps 1-4), or None when the goal is reached."""
        w = self.target(state)
        if w is None:
            return None
        return choose_leg(state, w - state.centre)[0]

    def step(self, state: TipState, leg: int) -> TipState:
        """The motion model with this planner's slip (step 5)."""
        return tip(state, leg, self.slip)


@dataclass
class PlanResult:
    """A planned tipping sequence.

    legs : (n,) fired legs; stances : (n + 1,) stances (start first); centres : (n + 1, 2) centre
    estimates [m]; feet : (n + 1, 3, 2) foot estimates [m]; n_firings : n; errors : (n,) path
    error after each firing [m]; mean_error : their mean [m] (the start's error when n = 0);
    reached_goal : False when ``max_firings`` stopped the plan first.
    """

    legs: np.ndarray
    stances: np.ndarray
    centres: np.ndarray
    feet: np.ndarray
    n_firings: int
    errors: np.ndarray
    mean_error: float
    reached_goal: bool

    def steps(self) -> list[tuple[int, int, np.ndarray]]:
        """(fired leg, stance after it, centre after it) per firing."""
        return [(int(self.legs[k]), int(self.stances[k + 1]), self.centres[k + 1])
                for k in range(self.n_firings)]


def plan(path, start_stance: int, *, dims: RatsDims | None = None, yaw: float = 0.0, start_centre=None,
         gamma: float = 1.5, slip: float = 0.0, max_firings: int | None = None) -> PlanResult:
    """Plan the tipping sequence that follows ``path`` (n, 2) [m] from ``start_stance``.

    yaw : initial yaw [rad] (:func:`~.geometry.resting_rotation`); start_centre : (2,) initial
    centre [m] (default the first waypoint); gamma, slip : see :class:`TippingPlanner`;
    max_firings : safety cap (default 4 × path length / lattice step + 50).
    """
    planner = TippingPlanner(path, dims, gamma=gamma, slip=slip)
    p = planner.path
    c0 = p[0] if start_centre is None else _centre(start_centre, "start_centre")
    state = initial_state(_check_stance(start_stance, "start_stance"), planner.dims, yaw, c0)
    if max_firings is None:
        length = float(np.linalg.norm(np.diff(p, axis=0), axis=1).sum()) + float(np.linalg.norm(p[0] - c0))
        max_firings = min(int(4 * length / planner.dims.lattice_step) + 50, MAX_FIRINGS)
    max_firings = check_whole("plan", "max_firings", max_firings, 0, MAX_FIRINGS)
    states = [state]
    legs: list[int] = []
    reached = False
    while True:
        leg = planner.next_leg(state)
        if leg is None:
            reached = True
            break
        if len(legs) >= max_firings:
            break
        state = planner.step(state, leg)
        legs.append(leg)
        states.append(state)
    centres = np.array([s.centre for s in states])
    errors = path_distance(centres[1:], p) if legs else np.zeros(0)
    mean = float(errors.mean()) if legs else path_distance(centres[0], p)
    return PlanResult(np.array(legs, dtype=np.int64), np.array([s.stance for s in states], dtype=np.int64),
                      centres, np.array([s.feet for s in states]), len(legs), errors, mean, reached)
