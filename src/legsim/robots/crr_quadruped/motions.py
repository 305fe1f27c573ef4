"""Joint references for the quadruped: stance, squat (all legs lower and raise the trunk) and a slow
crawl gait.

Every leg base frame is a mirror image of the CRR leg's frame (:mod:`.body`), so one set of Alpha,
Beta, Gamma angles gives the same foot position relative to its shoulder on every leg (mirrored).
A squat of depth Δ [m] lowers the trunk by Δ with the feet fixed on the ground: in the leg frame
each foot tip rises by Δ, i.e. the joint angles are ``crr_leg.walking.inverse_kinematics`` of
``foot(stance) + (0, 0, Δ)`` (the single leg's own kinematics; angles in rad, times in s).

The crawl (:func:`crawl_references`) moves every foot along the CRR leg's walking path of Fig. 44
(:class:`..crr_leg.walking.WalkingPath`: swing as a half ellipse from rear to front, stance dragged
straight back) around its stance point, one leg swinging at a time in the order left rear, left
front, right rear, right front (phase offsets 0, 1/4, 1/2, 3/4 of the cycle; the classic crawl
sequence). The rear legs' base frames are mirrored front to rear, so their paths are reversed along
the leg frame's x to push the trunk forward (+x of the trunk) too.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, as_float, as_floats, check_number, check_whole
from ..crr_leg.leg import JointReference
from ..crr_leg.walking import WalkingPath, foot_position, inverse_kinematics
from .body import LEGS, MIRRORS
from .quadruped import STANCE_POSTURE_DEG

__all__ = ["stance_references", "squat_posture", "squat_references", "crawl_references",
           "CRAWL_PHASES"]

MAX_TIME = 86400.0
"""The longest crawl period or start time [s] (a day: beyond, its reference's float64 times lose the
digits that tell its points apart)."""

CRAWL_PHASES = {"lr": 0.0, "lf": 0.25, "rr": 0.5, "rf": 0.75}
"""Phase offset of each leg in the crawl cycle (fraction of the period)."""


def _posture(posture_deg) -> np.ndarray:
    deg = as_floats(STANCE_POSTURE_DEG if posture_deg is None else posture_deg)
    if deg.shape != (3,) or not np.all(np.abs(deg) <= 360.0):
        raise InputError(f"posture_deg={posture_deg!r}: expected three angles (Alpha, Beta, Gamma) within "
                         "±360 deg")
    return np.radians(deg)


def stance_references(posture_deg=None) -> tuple[JointReference, JointReference, JointReference]:
    """Alpha, Beta, Gamma references holding ``posture_deg`` [deg] (default
    :data:`.quadruped.STANCE_POSTURE_DEG`), for every leg."""
    return tuple(JointReference.hold(float(a)) for a in _posture(posture_deg))  # type: ignore[return-value]


def squat_posture(depth: float, posture_deg=None) -> np.ndarray:
    """Joint angles (3,) [rad] that lower the trunk by ``depth`` [m] (> 0 lowers, < 0 raises) from
    ``posture_deg`` with the foot tip fixed on the ground (module docstring)."""
    depth = check_number("squat_posture", "depth", depth, lo=-1.0, hi=1.0)  # [m]
    q0 = _posture(posture_deg)
    target = foot_position(q0) + np.array([0.0, 0.0, depth])
    try:
        return inverse_kinematics(target, q0)
    except InputError as exc:
        raise InputError(f"squat_posture: depth = {depth:g} m from posture_deg = "
                         f"{np.round(np.degrees(q0), 3).tolist()}: {exc}") from None


def squat_references(depth: float, t_start: float, ramp: float, hold: float, posture_deg=None,
                     ) -> tuple[JointReference, JointReference, JointReference]:
    """Alpha, Beta, Gamma references of one squat: the posture until ``t_start`` [s], a linear
    ``ramp`` [s] in joint space to :func:`squat_posture` (``depth`` [m]), held ``hold`` [s], a ramp
    back, then the posture (:meth:`JointReference.trapezoid` per joint)."""
    q0 = _posture(posture_deg)
    q1 = squat_posture(depth, posture_deg)
    o = "squat_references"
    t_start = check_number(o, "t_start", t_start, lo=0.0, hi=MAX_TIME)
    ramp = check_number(o, "ramp", ramp, lo=0.0, lo_open=True, hi=MAX_TIME)
    hold = check_number(o, "hold", hold, lo=0.0, hi=MAX_TIME)
    return tuple(JointReference.trapezoid(float(a), float(b), t_start, ramp, hold)  # type: ignore[return-value]
                 for a, b in zip(q0, q1, strict=True))


def crawl_references(stride: float = 0.06, lift: float = 0.03, period: float = 4.0,
                     t_start: float = 1.0, swing_fraction: float = 0.25, points: int = 40,
                     posture_deg=None) -> list:
    """Four (Alpha, Beta, Gamma) reference triples (in :data:`.body.LEGS` order) of a crawl gait.

    Each foot tip follows :class:`WalkingPath` (``stride`` [m] along the trunk's x, swing apex
    ``lift`` [m], ``swing_fraction`` of the cycle in the air) centred on its tip at
    ``posture_deg`` (default the stance), with its :data:`CRAWL_PHASES` offset; ``points`` samples
    per cycle become a periodic piecewise-linear :class:`JointReference` (``period`` [s],
    repeating from ``t_start`` [s]; before it every leg holds its phase's starting point, on the
    ground). Raises :class:`InputError` if the path leaves a leg's reach or joint ranges.
    """
    if not (as_float(swing_fraction) < 0.25 + 1e-12):
        raise InputError(f"swing_fraction={swing_fraction!r}: a crawl lifts one leg at a time, "
                         "expected <= 0.25")
    points = check_whole("crawl_references", "points", points, 8, 64)
    check_number("crawl_references", "period", period, lo=0.0, lo_open=True, hi=MAX_TIME)
    check_number("crawl_references", "t_start", t_start, lo=0.0, hi=MAX_TIME)
    q0 = _posture(posture_deg)
    centre = foot_position(q0)
    path = WalkingPath(centre=tuple(centre), stride=stride, lift=lift,
                       swing_fraction=swing_fraction, periods=(period,), t_start=max(t_start, 1e-9))
    k = np.arange(points) / points
    out = []
    for leg, (sx, _) in zip(LEGS, MIRRORS, strict=True):
        pts = path.foot_point(np.mod(k + CRAWL_PHASES[leg], 1.0))
        if sx < 0:                                      # rear legs: reverse along the leg's x
            pts[:, 0] = 2.0 * centre[0] - pts[:, 0]
        q = q0
        angles = np.empty((points, 3))
        for i, pt in enumerate(pts):
            q = inverse_kinematics(pt, q)
            angles[i] = q
        times = t_start + period * k
        out.append(tuple(JointReference(steps=tuple(zip(times.tolist(), angles[:, j].tolist(), strict=True)),
                                        interpolate="linear", period=float(period)) for j in range(3)))
    return out
