"""ANTON as a multibody model and its legs' kinematics (Konyev 2011 §3.1, §3.4.3; digest §4.2).

Axes (legsim's, not the thesis's WorldCS): x forward (the thesis's Z_w, straight walking), y to the
left, z up (the thesis's −Y_w, against gravity). The middle segment carries the free joint
``base``; the front and rear segments hang from it through two-DoF joints (yaw about z, then pitch
about y: ``front_yaw``, ``front_pitch``, ``rear_yaw``, ``rear_pitch``), each through a light link.
Each leg: ``<leg>_alpha`` (coxa, about the hip's vertical), ``<leg>_beta`` (femur) and
``<leg>_gamma`` (tibia), both about the horizontal axis across the leg, positive lifting; the leg
extends outward along its hip frame's +y (left legs: world +y, right legs: the hip frame turned
by π about z). The foot is a sphere at the tibia's end.
"""

from __future__ import annotations

import math

import numpy as np

from ...contact import Box, Cylinder, mass_properties
from ...errors import InputError, as_floats, check_array, check_number, check_values, shown
from ...multibody import Model, RobotBuilder
from . import _kinematics as _K
from .params import LEGS, AntonParams

__all__ = ["build_model", "hip_placements", "leg_ik", "leg_fk", "leg_jacobian", "feet_in_body", "joint_names",
           "foot_layout", "MAX_ANGLE", "MAX_HIP_OFFSET", "MAX_DISTANCE", "MAX_TICK", "MAX_DURATION"]

MAX_ANGLE = 1e6
"""The largest joint angle or hip yaw [rad] the kinematics take (beyond, cos and sin have no digits left)."""
MAX_HIP_OFFSET = 1e3
"""The largest hip coordinate [m] in its segment's frame that :func:`feet_in_body` takes."""
MAX_DISTANCE = 1e6
"""The largest length [m] ANTON's layout and per-tick helpers take (a foot layout's half sizes, a surface
position and segment gap, a foothold search's depth; a search speed [m/s] up to it too): ANTON is 0.6 m
long, and a product of two such numbers stays far within the float range."""
MAX_TICK = 1.0
"""The longest time step [s] the per-tick helpers (:class:`~.robot.SurfaceFollowing`,
:class:`~.climb.FeltFootholds`) take: ANTON's controllers tick every 1 ms."""
MAX_DURATION = 3600.0
"""The longest simulated time [s] ANTON's runs take (:func:`~.climb.simulate_climb`'s ``settle`` and
``after``, the walk demo's ``t_final``): an hour of 1 ms control ticks, a quarter of an hour of computing
(the 67 s climb takes 18 s); a longer one would look hung."""
_SEGMENT_CODES = {"middle": 0, "front": 1, "rear": -1}


def _box_inertia(m: float, size) -> np.ndarray:
    """Inertia (3, 3) about the COM of a uniform box of mass ``m`` [kg] and edges ``size`` [m]."""
    half = 0.5 * np.asarray(size, dtype=float)
    return mass_properties(Box(tuple(half)), m / float(np.prod(2 * half)))[2]


def _rod(m: float, length: float, radius: float = 0.015) -> np.ndarray:
    """Inertia (3, 3) about the COM of a solid rod along y [kg m²] (a cylinder's, axis z -> y)."""
    I_z = mass_properties(Cylinder(radius, 0.5 * length), m / (math.pi * radius ** 2 * length))[2]
    return I_z[np.ix_([0, 2, 1], [0, 2, 1])]


def hip_placements(p: AntonParams) -> dict[str, tuple[str, np.ndarray, float]]:
    """Each leg's hip: (segment body, position in the segment's frame (3,) [m], yaw of the hip
    frame [rad]: 0 for left legs, π for right legs)."""
    _params(p)
    rows = {"1": "front", "2": "middle", "3": "rear"}
    out = {}
    for leg in LEGS:
        side = 1.0 if leg[0] == "L" else -1.0
        out[leg] = (rows[leg[1]], np.array([0.0, side * p.hip_y, 0.0]), 0.0 if side > 0 else math.pi)
    return out


def joint_names() -> list[str]:
    """The 22 actuated joints: the four body joints, then α, β, γ of each leg in :data:`LEGS` order."""
    body = ["front_yaw", "front_pitch", "rear_yaw", "rear_pitch"]
    return body + [f"{leg}_{j}" for leg in LEGS for j in ("alpha", "beta", "gamma")]


def build_model(params: AntonParams | None = None, floating: bool = True) -> Model:
    """ANTON's multibody model (22 actuated joints; a free ``base`` on the middle segment if
    ``floating``, else the middle segment fixed to the world)."""
    p = AntonParams() if params is None else params
    if not isinstance(p, AntonParams):
        raise InputError(f"ANTON build_model: params = {params!r}, expected None or an AntonParams")
    b = RobotBuilder("anton", gravity=(0.0, 0.0, -9.81), limit_stiffness=500.0, limit_damping=5.0)
    seg_I = _box_inertia(p.segment_mass, p.segment_size)
    b.add_body("middle", "world", "free" if floating else "fixed", joint_name="base", mass=p.segment_mass,
               inertia=seg_I)
    b.add_geometry("middle", "box", size=p.segment_size, name="middle_box")
    small = (1e-5, 1e-5, 1e-5)
    half_gap = 0.5 * p.segment_gap
    body_limits = (-0.6, 0.6)
    for seg, sign in (("front", 1.0), ("rear", -1.0)):
        b.add_body(f"{seg}_link", "middle", "revolute", joint_name=f"{seg}_yaw", xyz=(sign * half_gap, 0, 0),
                   axis=(0, 0, 1), mass=p.joint_link_mass, inertia=small, limits=body_limits)
        b.add_body(seg, f"{seg}_link", "revolute", joint_name=f"{seg}_pitch", axis=(0, 1, 0),
                   mass=p.segment_mass, com=(sign * half_gap, 0, 0), inertia=seg_I, limits=body_limits)
        b.add_geometry(seg, "box", size=p.segment_size, xyz=(sign * half_gap, 0, 0), name=f"{seg}_box")
    tibia_m = p.tibia_mass + p.foot_mass
    tibia_com = (p.tibia_mass * 0.5 * p.tibia + p.foot_mass * p.tibia) / tibia_m
    for leg, (seg, hip, yaw) in hip_placements(p).items():
        at = hip + (np.array([0.5 * p.segment_gap, 0, 0]) if seg == "front" else
                    np.array([-0.5 * p.segment_gap, 0, 0]) if seg == "rear" else 0.0)
        b.add_body(f"{leg}_coxa", seg, "revolute", joint_name=f"{leg}_alpha", xyz=tuple(at), rpy=(0, 0, yaw),
                   axis=(0, 0, 1), mass=p.coxa_mass, com=(0, 0.5 * p.coxa, 0),
                   inertia=_rod(p.coxa_mass, p.coxa), limits=(-1.0, 1.0))
        b.add_body(f"{leg}_femur", f"{leg}_coxa", "revolute", joint_name=f"{leg}_beta", xyz=(0, p.coxa, 0),
                   axis=(1, 0, 0), mass=p.femur_mass, com=(0, 0.5 * p.femur, 0),
                   inertia=_rod(p.femur_mass, p.femur), limits=(-1.2, 1.5))
        b.add_body(f"{leg}_tibia", f"{leg}_femur", "revolute", joint_name=f"{leg}_gamma", xyz=(0, p.femur, 0),
                   axis=(1, 0, 0), mass=tibia_m, com=(0, tibia_com, 0), inertia=_rod(tibia_m, p.tibia),
                   limits=(-2.6, 0.3))
        b.add_geometry(f"{leg}_tibia", "sphere", radius=p.foot_radius, xyz=(0, p.tibia, 0),
                       name=f"{leg}_foot")
    return b.compile()


def leg_fk(p: AntonParams, alpha, beta, gamma) -> np.ndarray:
    """Foot-sphere centre (..., 3) [m] in the hip frame for joint angles [rad] (arrays broadcast):
    r = l_c + l_f cos β + l_t cos(β + γ) outward, z = l_f sin β + l_t sin(β + γ), the leg plane
    turned by α about the hip's vertical."""
    _params(p)
    angles = [check_values("leg_fk", n, v, lo=-MAX_ANGLE, hi=MAX_ANGLE)
              for n, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma))]
    try:
        a, b_, g = np.broadcast_arrays(*angles)
    except ValueError:
        raise InputError("leg_fk: alpha, beta and gamma do not broadcast together") from None
    r = p.coxa + p.femur * np.cos(b_) + p.tibia * np.cos(b_ + g)
    z = p.femur * np.sin(b_) + p.tibia * np.sin(b_ + g)
    return np.stack([-r * np.sin(a), r * np.cos(a), z], axis=-1)


def leg_jacobian(p: AntonParams, alpha: float, beta: float, gamma: float) -> tuple[tuple[float, ...], ...]:
    """∂(foot centre)/∂(α, β, γ) of :func:`leg_fk` in the hip frame: three columns (x, y, z) [m/rad]
    (:func:`._kinematics.leg_jacobian`). With r and z as in :func:`leg_fk`: column α = (−r cos α,
    −r sin α, 0); column β (γ) = (−sin α ∂r, cos α ∂r, ∂z) with ∂r/∂β = −l_f sin β − l_t sin(β + γ),
    ∂z/∂β = l_f cos β + l_t cos(β + γ), ∂r/∂γ = −l_t sin(β + γ), ∂z/∂γ = l_t cos(β + γ). Angles within
    ±:data:`MAX_ANGLE`."""
    _params(p)
    a, b, g = (check_number("leg_jacobian", n, v, lo=-MAX_ANGLE, hi=MAX_ANGLE)
               for n, v in (("alpha", alpha), ("beta", beta), ("gamma", gamma)))
    out = np.empty((3, 3))
    _K.leg_jacobian(p.coxa, p.femur, p.tibia, a, b, g, out)
    return tuple(tuple(float(v) for v in col) for col in out)


def leg_arrays(p: AntonParams, placements=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(hips (6, 3) [m] in their segments' frames, yaws (6,) [rad], segments (6,): 0 middle, 1 front,
    -1 rear) of :func:`hip_placements`, the form :mod:`._kinematics` takes."""
    chosen = placements or hip_placements(p)
    rows = [chosen[leg] for leg in LEGS]
    return (np.array([hip for _, hip, _ in rows], dtype=float), np.array([yaw for _, _, yaw in rows]),
            np.array([_SEGMENT_CODES[seg] for seg, _, _ in rows], dtype=np.int64))


def feet_in_body(p: AntonParams, q_joints, placements=None) -> np.ndarray:
    """Foot-sphere centres (6, 3) [m] in the middle segment's frame from the 22 joint angles (the order
    of :func:`joint_names`): each leg's :func:`leg_fk` turned by its hip yaw, placed at its hip, and
    for the front and rear legs carried through their segment's yaw-then-pitch joint at ±half the
    segment gap (as :func:`build_model` builds them; :func:`._kinematics.feet_in_body`). What the
    encoders say about the feet. ``q_joints`` within ±:data:`MAX_ANGLE`. ``placements``: None, or
    :func:`hip_placements` of ``p`` when the caller keeps them (a dict: each leg of :data:`LEGS` to its
    segment's name, hip (3,) within ±:data:`MAX_HIP_OFFSET` and yaw within ±MAX_ANGLE)."""
    o = "feet_in_body"
    _params(p)
    q = check_values(o, "q_joints", q_joints, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    if q.shape != (22,):
        raise InputError(f"{o}: 'q_joints' = {shown(q_joints)}, expected the 22 joint angles of "
                         "joint_names() [rad]")
    if placements is not None:
        _check_placements(o, placements)
    hips, yaws, segs = leg_arrays(p, placements)
    out = np.empty((6, 3))
    _K.feet_in_body(q, hips, yaws, segs, p.coxa, p.femur, p.tibia, 0.5 * p.segment_gap, out)
    return out


def _check_placements(owner: str, placements) -> None:
    """An :class:`InputError` from ``owner`` unless ``placements`` is a dict like :func:`hip_placements`'."""
    legs = isinstance(placements, dict) and sorted(placements, key=str) == sorted(LEGS)
    entries = [placements[leg] for leg in LEGS] if legs else []
    if not legs or not all(isinstance(e, tuple | list) and len(e) == 3 and isinstance(e[0], str)
                           and e[0] in _SEGMENT_CODES for e in entries):
        raise InputError(f"{owner}: 'placements' = {shown(placements)}, expected a dict of the legs "
                         f"{', '.join(LEGS)} to (segment name: {', '.join(_SEGMENT_CODES)}; hip (3,) [m]; "
                         "yaw [rad]), as hip_placements() gives")
    hips = as_floats([e[1] for e in entries])
    yaws = as_floats([e[2] for e in entries])
    if not (hips.shape == (6, 3) and np.all(np.abs(hips) <= MAX_HIP_OFFSET) and yaws.shape == (6,)
            and np.all(np.abs(yaws) <= MAX_ANGLE)):
        raise InputError(f"{owner}: 'placements' = {shown(placements)}, expected each leg's hip (3,) within "
                         f"±{MAX_HIP_OFFSET:g} m and yaw within ±{MAX_ANGLE:g} rad")


def leg_ik(p: AntonParams, foot) -> tuple[float, float, float]:
    """Joint angles (α, β, γ) [rad] putting the foot-sphere centre at ``foot`` (3,) [m] in the hip
    frame, knee up (γ ≤ 0, the insect posture): α = atan2(−x, y); then the planar two-link solution
    in the leg plane, r = √(x² + y²) − l_c: cos γ = (r² + z² − l_f² − l_t²)/(2 l_f l_t),
    β = atan2(z, r) − atan2(l_t sin γ, l_f + l_t cos γ), for a foot outward of the coxa's end
    (r > 0: a foot folded in behind it is the same point with α turned by π)
    (:func:`._kinematics.leg_ik`). Raises :class:`InputError` out of reach."""
    _params(p)
    x, y, z = check_array("ANTON leg_ik", "foot", foot, (3,), "m").tolist()
    alpha, beta, gamma, ok = _K.leg_ik(p.coxa, p.femur, p.tibia, x, y, z)
    if not ok:
        raise leg_out_of_reach(p, (x, y, z))
    return alpha, beta, gamma


def _params(p) -> None:
    if not isinstance(p, AntonParams):
        raise InputError(f"ANTON leg: p = {p!r}, expected an AntonParams")


def leg_out_of_reach(p: AntonParams, foot) -> InputError:
    """The error for a foot ``foot`` (3,) [m] in the hip frame that no knee-up leg reaches."""
    return InputError(f"ANTON leg: foot {tuple(round(float(v), 4) for v in np.ravel(foot))} m is out of "
                      f"reach (femur {p.femur} m + tibia {p.tibia} m from the coxa)")


def foot_layout(kind: str, half_length: float, half_width: float) -> np.ndarray:
    """Initial foot positions (the gait frames' centres, Fig. 3.24) (6, 2) [m] in the robot frame
    (x forward, y left), in :data:`LEGS` order: ``"rectangle"`` (rows at x = +a, 0, −a, y = ±b) or
    ``"ellipse"`` (x = a cos φ, y = ±b sin φ at φ = 45°, 90°, 135°). ``half_length`` a and ``half_width`` b
    [m] in (0, :data:`MAX_DISTANCE`]."""
    if not (isinstance(kind, str) and kind in ("rectangle", "ellipse")):
        raise InputError(f"foot_layout: 'kind' = {shown(kind)}, expected 'rectangle' or 'ellipse'")
    for name, value in (("half_length", half_length), ("half_width", half_width)):
        check_number("foot_layout", name, value, lo=0.0, lo_open=True, hi=MAX_DISTANCE)
    if kind == "rectangle":
        xs = np.array([half_length, 0.0, -half_length])
        ys = np.full(3, half_width)
    else:  # "ellipse"
        phi = np.radians([45.0, 90.0, 135.0])
        xs, ys = half_length * np.cos(phi), half_width * np.sin(phi)
    return np.concatenate([np.stack([xs, ys], 1), np.stack([xs, -ys], 1)])
