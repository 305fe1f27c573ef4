"""LIBRA's four-stage climbing gait (CJTC digest §4.3 Fig. 16, §4.4 control vectors, §6.2 full cycle):

1. push-up: the body rises level with the next rungs, foot 3 swings over and is placed on the
   right-hand ladder one rung below foot 2 (control vector u1 = [x_b, y_b, θ_b, x2, x3, y3]);
2. foot 2 lifts off and moves up one rung while foot 3 supports (u2 = [x_b, y_b, θ_b, x2, y2, x3]);
3. foot 2 takes over, foot 3 swings to the left-hand rung one below foot 1 (u1);
4. foot 1 lifts up one rung (u3 = [x1, y1, x_b, y_b, θ_b, x2]).

Each stage names its supports (the pinned foot and the foot whose height is known: the constraints that
eliminate the passive coordinates) and, for every control variable, a path of waypoints joined by
minimum-jerk segments (zero velocity and acceleration at every waypoint). A foot blocked by a ladder
post is commanded 0.1 m inside it: 10 N at k_p = 100 N/m (§6.1, :func:`legsim.control.force_offset`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError, as_float, check_number, check_whole
from .kinematics import VECTORS
from .robot import MAX_RUNGS, Ladders

__all__ = ["Path", "Stage", "climb_cycle", "stretch", "MAX_STRETCH", "VECTORS"]



class Path:
    """A scalar command through waypoints (t_k [s], value_k) joined by minimum-jerk quintics:
    value(t) and rate(t); constant before the first and after the last waypoint."""

    def __init__(self, points: Sequence[tuple[float, float]]):
        pairs = list(points) if isinstance(points, (tuple, list)) else []
        pts = sorted((as_float(p[0]), as_float(p[1])) for p in pairs
                     if isinstance(p, (tuple, list)) and len(p) == 2)
        if not (pts and len(pts) == len(pairs) and all(math.isfinite(x) for pt in pts for x in pt)):
            raise InputError(f"Path: points = {points!r}, expected waypoints (t [s], value), finite numbers")
        ts = np.array([t for t, _ in pts])
        if np.any(np.diff(ts) <= 0):
            raise InputError(f"Path: waypoint times {ts.tolist()} must increase strictly")
        self.t = ts
        self.v = np.array([v for _, v in pts])

    def __call__(self, t: float) -> tuple[float, float]:
        ts, vs = self.t, self.v
        if t <= ts[0]:
            return float(vs[0]), 0.0
        if t >= ts[-1]:
            return float(vs[-1]), 0.0
        k = int(np.searchsorted(ts, t)) - 1
        T = ts[k + 1] - ts[k]
        s = (t - ts[k]) / T
        dv = vs[k + 1] - vs[k]
        return (float(vs[k] + dv * (10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5)),
                float(dv * (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / T))


@dataclass
class Stage:
    """One gait stage: ``vector`` ('u1', 'u2', 'u3'); ``pinned`` (foot, seat (2,)); ``height`` (foot, y)
    of the foot standing on a known rung (with the pinned foot: the three constraints that fix foot 1's
    base and φ); ``paths`` one :class:`Path` per component of the vector; [t0, t1] its span [s];
    ``seats`` the seat (2,) each foot rests on at the stage's end (absent: the foot is free)."""

    name: str
    vector: str
    pinned: tuple[str, np.ndarray]
    height: tuple[str, float]
    paths: dict[str, Path]
    t0: float
    t1: float
    seats: dict = field(default_factory=dict)

    def __post_init__(self):
        late = {k: float(p.t[-1]) for k, p in self.paths.items() if p.t[-1] > self.t1 + 1e-9}
        if late:
            raise InputError(f"Stage {self.name!r}: paths {late} end after the stage's end t1 = {self.t1} s; "
                             "a support must be seated before the next stage takes its weight")

    def command(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(u_cmd (6,), u̇_cmd (6,)) at time t."""
        out = [self.paths[k](t) for k in VECTORS[self.vector]]
        return np.array([v for v, _ in out]), np.array([d for _, d in out])


MAX_STRETCH = 1e4
"""The most :func:`stretch` lengthens a stage (beyond, its waypoints' float64 times lose their digits)."""


def stretch(stages: Sequence[Stage], factors: Sequence[float]) -> list[Stage]:
    """The plan with stage k lasting ``factors[k]`` (1 to :data:`MAX_STRETCH`) times as long: its waypoint
    times scaled about its start, the later stages shifted by what the earlier ones gained; supports and
    seats unchanged."""
    if not (isinstance(factors, (tuple, list, np.ndarray)) and len(factors) == len(stages)
            and all(1.0 <= as_float(f) <= MAX_STRETCH for f in factors)):
        raise InputError(f"stretch: factors = {factors!r} for {len(stages)} stages, expected one number in "
                         f"[1, {MAX_STRETCH:g}] each")
    out: list[Stage] = []
    shift = 0.0
    for st, f in zip(stages, factors, strict=True):
        f = float(f)

        def scaled(t: float, t0=st.t0, shift=shift, f=f) -> float:
            return t0 + shift + f * (t - t0)

        paths = {k: Path([(scaled(t), v) for t, v in zip(p.t.tolist(), p.v.tolist(), strict=True)])
                 for k, p in st.paths.items()}
        out.append(Stage(st.name, st.vector, st.pinned, st.height, paths, st.t0 + shift, scaled(st.t1),
                         dict(st.seats)))
        shift += (f - 1.0) * (st.t1 - st.t0)
    return out


def _place(start, seat, t0: float, T: float, *, on_seat: bool, clear: float, lift: float, sink: float,
           push: float, separation: float):
    """Waypoints (x, y) of a free foot from ``start`` to the ``seat`` of a rung (stage time T [s]):
    off its own seat (when ``on_seat``: out of the corner by ``clear`` and up by ``lift``), across to
    ``clear`` inside the target post and ``lift`` above the seat, over the seat (5 mm off the post),
    down ``sink`` below the seat (seating it on the tread with k_p × sink), then ``push`` into the post
    (the force of the next stage). A post at x = 0 is the left one, its inward direction +x."""
    def inward(x):
        return 1.0 if x < 0.5 * separation else -1.0
    x0, y0 = start
    x1, y1 = seat
    d1 = inward(x1)
    pts = [(t0, x0, y0)]
    t = t0
    if on_seat:
        t += 0.12 * T
        pts.append((t, x0 + inward(x0) * clear, y0 + lift))
    t += 0.35 * T
    pts.append((t, x1 + d1 * clear, y1 + lift))
    for frac, x, y in ((0.1, x1 + d1 * 0.005, y1 + lift), (0.1, x1 + d1 * 0.005, y1 - sink),
                       (0.1, x1 - d1 * push, y1 - sink)):
        t += frac * T
        pts.append((t, x, y))
    return Path([(tk, x) for tk, x, _ in pts]), Path([(tk, y) for tk, _, y in pts])


def climb_cycle(ladders: Ladders | None = None, *, level: int = 0,
                y_body: tuple[float, float] = (-0.08, 0.06),
                x_body: float | None = None, push: float = 0.1, clear: float = 0.055, lift: float = 0.02,
                stage_time: float = 6.0, stages: Sequence[int] = (1, 2, 3, 4),
                foot3_start: Sequence[float] | None = None, hold: float = 1.0,
                sink: float = 0.02, shift: float = 0.065, drop: float = 0.06, cycles: int = 1) -> list[Stage]:
    """The four stages from the rung ``level`` (foot 1 on the left seat ``level``, foot 2 on the right
    seat ``level``, foot 3 hanging free): each ``stage_time`` [s] long, the body rising from
    ``y_body[0]`` to ``y_body[1]`` (+ level × step) in stage 1 at ``x_body`` (default 0.44 × separation),
    blocked feet pushed ``push`` [m] into their posts (10 N at 100 N/m), swing feet moving ``clear`` [m]
    away from the post and ``lift`` [m] above the rungs. ``stages`` selects some of them (stage 1 alone
    is the §6.1 experiment). ``foot3_start`` (2,): where foot 3 hangs at the start (default below hip 3).
    ``sink`` [m]: a landing foot is commanded this far below its seat (a small push into the tread,
    k_p × sink, so that it seats against the gear friction before it is pushed into the post).
    ``shift``, ``drop`` [m]: stage 4 first moves the body this far right and down: limb 1's knee limit
    (−117°) keeps foot 1 at least 0.163 m from its hip, too close to clear the tread above otherwise,
    and the drop keeps foot 2 (knee 4, the same limit) reachable (the thesis's joints 1 and 4 sat at
    these limits in stages 4 and 2).
    ``hold`` [s]: the first stage holds its start for this long (the robot settles onto its supports
    and builds foot 2's push before anything moves, as the real one stood before an experiment).
    ``cycles``: climb this many rungs; from the second cycle on, foot 3 leaves its seat on the left
    ladder and the push-up starts where stage 4 left the body.
    """
    if not (ladders is None or isinstance(ladders, Ladders)):
        raise InputError(f"climb_cycle: ladders = {ladders!r}, expected a Ladders or None")
    lad = ladders or Ladders()
    S, h = lad.separation, lad.step
    cycles = check_whole("climb_cycle", "cycles", cycles, 1, MAX_RUNGS)
    level = check_whole("climb_cycle", "level", level, -MAX_RUNGS, MAX_RUNGS)  # a rung of the ladders
    # lengths within the ladders' scale (1 m), times within a day: beyond, the waypoints' float64 times
    # and positions lose the digits that tell them apart
    for name, length in (("push", push), ("clear", clear), ("lift", lift), ("sink", sink), ("shift", shift),
                         ("drop", drop)):
        check_number("climb_cycle", name, length, lo=0.0, hi=1.0)
    check_number("climb_cycle", "hold", hold, lo=0.0, hi=86400.0)
    check_number("climb_cycle", "stage_time", stage_time, lo=1e-3, hi=86400.0)  # [s]: a control period+
    if x_body is not None:
        check_number("climb_cycle", "x_body", x_body, lo=-10.0, hi=10.0)
    for name, point in (("y_body", y_body), ("foot3_start", foot3_start)):
        if isinstance(point, (tuple, list, np.ndarray)):
            ok = len(point) == 2 and all(abs(as_float(v)) <= 10.0 for v in point)
        else:
            ok = point is None and name == "foot3_start"  # (None: foot 3 hangs below hip 3)
        if not ok:
            raise InputError(f"climb_cycle: {name} = {point!r}, expected 2 numbers within ±10 m")
    if not (isinstance(stages, (tuple, list)) and stages
            and all(isinstance(k, int) and not isinstance(k, bool) and k in (1, 2, 3, 4) for k in stages)):
        raise InputError(f"climb_cycle: stages = {stages!r}, expected some of 1, 2, 3, 4")
    xb = 0.44 * S if x_body is None else float(x_body)
    T = float(stage_time)
    out: list[Stage] = []
    t = hold if hold > 0.0 else 0.0
    body_th = Path([(0.0, 0.0)])
    place = dict(T=T, clear=clear, lift=lift, sink=sink, push=push, separation=S)
    seats = {"foot1": lad.seat("left", level), "foot2": lad.seat("right", level)}
    body = (xb, y_body[0] + level * h)  # where the body starts each cycle's push-up
    f3, f3_seated = (np.array([xb + 0.06, body[1] - 0.30]) if foot3_start is None
                     else np.asarray(foot3_start, float)), False
    for c in range(cycles):
        lev = level + c
        y1 = y_body[1] + lev * h
        L0, R0 = lad.seat("left", lev), lad.seat("right", lev)
        L1, R1 = lad.seat("left", lev + 1), lad.seat("right", lev + 1)
        Lm, Rm = lad.seat("left", lev - 1), lad.seat("right", lev - 1)
        lands = {1: ("foot3", Rm), 2: ("foot2", R1), 3: ("foot3", Lm), 4: ("foot1", L1)}
        for k in stages:
            if k == 1:  # push-up, then foot 3 to the right ladder one rung below foot 2, pushed in; off a
                # seat (cycles ≥ 2) it starts earlier by its lift-off (0.12 T) to be seated by 0.95 T
                x3, y3 = _place(f3, Rm, t + (0.18 if f3_seated else 0.3) * T, on_seat=f3_seated, **place)
                paths = {"y_b": Path([(t, body[1]), (t + 0.45 * T, y1)]), "x2": Path([(t, R0[0] + push)]),
                         "x3": x3, "y3": y3, "x_b": Path([(t, body[0]), (t + 0.45 * T, xb)])}
                spec = ("1 push-up, foot 3 to the right ladder", "u1", ("foot1", L0), ("foot2", R0[1]))
            elif k == 2:  # foot 2 up one rung on the right; foot 3 pushes into the post
                x2, y2 = _place(R0, R1, t, on_seat=True, **place)
                paths = {"y_b": Path([(t, y1)]), "x2": x2, "y2": y2, "x3": Path([(t, Rm[0] + push)]),
                         "x_b": Path([(t, xb)])}
                spec = ("2 foot 2 up one rung", "u2", ("foot1", L0), ("foot3", Rm[1]))
            elif k == 3:  # foot 2 supports again; foot 3 swings to the left ladder one rung below foot 1
                x3, y3 = _place(Rm, Lm, t, on_seat=True, **place)
                paths = {"y_b": Path([(t, y1)]), "x2": Path([(t, R1[0] + push)]), "x3": x3, "y3": y3,
                         "x_b": Path([(t, xb)])}
                spec = ("3 foot 3 to the left ladder", "u1", ("foot1", L0), ("foot2", R1[1]))
            else:  # 4 (checked above): foot 1 up one rung; foot 3 holds on the left, foot 2 pushes right;
                # the body first moves right and down so that limb 1 can bring its foot out past the tread
                x1, y1f = _place(L0, L1, t + 0.15 * T, on_seat=True, **place)
                body = (xb + shift, y1 - drop)
                paths = {"x1": x1, "y1": y1f, "y_b": Path([(t, y1), (t + 0.15 * T, body[1])]),
                         "x2": Path([(t, R1[0] + push)]), "x_b": Path([(t, xb), (t + 0.15 * T, body[0])])}
                spec = ("4 foot 1 up one rung", "u3", ("foot3", Lm), ("foot2", R1[1]))
            paths["theta_b"] = body_th
            foot, seat_k = lands[k]
            seats[foot] = seat_k
            name = spec[0] if cycles == 1 else f"{spec[0]} (cycle {c + 1})"
            out.append(Stage(name, *spec[1:], paths, 0.0 if not out else t, t + T, dict(seats)))
            t += T
        f3, f3_seated = Lm, True
    return out
