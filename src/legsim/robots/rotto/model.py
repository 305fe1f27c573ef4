"""ROTTO as a multibody model and its legs' kinematics (Konyev 2011 §4.1, Fig. 4.2; §4.3 frames).

Axes (legsim's, not the thesis's WorldCS): x forward (the thesis's Z_w, straight walking), y to the
left, z up (the thesis's −Y_w). The pelvis carries the free joint ``base`` (the thesis's RobotCS is
fixed to it; there is no BodyCS). Each leg ``L``/``R`` hangs from the pelvis by ``<leg>_hip_yaw``
(about z), ``<leg>_hip_roll`` (x) and ``<leg>_hip_pitch`` (y), whose axes meet at the hip centre;
``<leg>_knee`` (y); ``<leg>_ankle_pitch`` (y) and ``<leg>_ankle_roll`` (x), meeting at the ankle
centre. Positive pitch turns the link below about +y (the leg swings back, the knee bends forward
with a positive knee angle, the toes go down with a positive ankle pitch). Each foot is a plate
with four rubber pads (spheres) at the sole's corners, the contact points: ``<leg>_pad0..3``.
"""

from __future__ import annotations

import math

import numpy as np

from ...contact import Box, Cylinder, mass_properties
from ...errors import InputError, check_array, check_number, shown
from ...multibody import Model, RobotBuilder
from .linkage import leg_drives
from .params import JOINTS, LEGS, RottoParams

__all__ = ["build_model", "joint_names", "leg_ik", "hip_centre", "pad_names", "pad_positions", "armature"]


def _box_inertia(m: float, size) -> np.ndarray:
    half = 0.5 * np.asarray(size, dtype=float)
    return mass_properties(Box(tuple(half)), m / float(np.prod(2 * half)))[2]


def _rod_z(m: float, length: float, radius: float = 0.03) -> np.ndarray:
    """Inertia (3, 3) about the COM of a solid rod along z [kg m²]."""
    return mass_properties(Cylinder(radius, 0.5 * length), m / (math.pi * radius ** 2 * length))[2]


def joint_names() -> list[str]:
    """The 12 actuated joints: :data:`~.params.JOINTS` of the left leg, then of the right."""
    return [f"{leg}_{j}" for leg in LEGS for j in JOINTS]


def pad_names() -> list[str]:
    """The contact pads, four per foot: left foot first (front-left, front-right, back-left,
    back-right of each sole)."""
    return [f"{leg}_pad{k}" for leg in LEGS for k in range(4)]


def _params(owner: str, p, name: str = "p") -> RottoParams:
    """``p`` if it is a :class:`RottoParams`, else an :class:`InputError` from ``owner`` naming ``name``."""
    if not isinstance(p, RottoParams):
        raise InputError(f"{owner}: {name} = {shown(p)}, expected a RottoParams")
    return p


def pad_positions(p: RottoParams) -> np.ndarray:
    """The pads' centres (4, 3) [m] in the foot frame (the ankle centre), in :func:`pad_names` order."""
    lx, ly, _ = _params("ROTTO pad_positions", p).foot_size
    r = p.sole_radius
    xs = (p.foot_x + 0.5 * lx - r, p.foot_x - 0.5 * lx + r)
    ys = (0.5 * ly - r, -0.5 * ly + r)
    return np.array([(x, y, -p.ankle_height + r) for x in xs for y in ys])


def hip_centre(p: RottoParams, leg: str) -> np.ndarray:
    """The hip's centre (3,) [m] in the pelvis frame (where its roll and pitch axes meet)."""
    _params("ROTTO hip_centre", p)
    if not (isinstance(leg, str) and leg in LEGS):
        raise InputError(f"ROTTO hip_centre: leg = {leg!r}, expected one of {', '.join(LEGS)}")
    side = 1.0 if leg == "L" else -1.0
    return np.array([0.0, side * p.hip_y, -p.hip_z - p.yaw_link])


def armature(p: RottoParams) -> np.ndarray:
    """Each leg joint's armature (6,) [kg m²]: the drives' rotor inertia reflected through the rods,
    the diagonal of Jᵀ m_d J at q = 0 (m_d = :attr:`RottoParams.drive_mass`; J from
    :mod:`.linkage`). The rods' lever arms change little over the walking range (cos 20° = 0.94), so
    a constant armature is kept, as MuJoCo's ``armature``; the off-diagonal coupling of a pair is
    zero at q = 0 by symmetry."""
    out = np.zeros(len(JOINTS))
    for drive in leg_drives(p):
        J = drive.jacobian(np.zeros(len(drive.joints)))
        out[list(drive.joints)] += p.drive_mass * J ** 2
    return out


def build_model(params: RottoParams | None = None, floating: bool = True) -> Model:
    """ROTTO's multibody model: the pelvis (a free ``base``, or fixed to the world if not
    ``floating``) and two 6-DoF legs (module docstring)."""
    p = params or RottoParams()
    b = RobotBuilder("rotto", gravity=(0.0, 0.0, -9.81), limit_stiffness=2000.0, limit_damping=20.0)
    b.add_body("pelvis", "world", "free" if floating else "fixed", joint_name="base", mass=p.pelvis_mass,
               inertia=_box_inertia(p.pelvis_mass, p.pelvis_size))
    b.add_geometry("pelvis", "box", size=p.pelvis_size, name="pelvis_box")
    small = _rod_z(0.05, 0.02)
    arm = dict(zip(JOINTS, armature(p), strict=True))
    lx, ly, lz = p.foot_size
    for leg in LEGS:
        side = 1.0 if leg == "L" else -1.0
        b.add_body(f"{leg}_yaw_link", "pelvis", "revolute", joint_name=f"{leg}_hip_yaw",
                   armature=arm["hip_yaw"],
                   xyz=(0.0, side * p.hip_y, -p.hip_z), axis=(0, 0, 1), mass=p.yaw_link_mass,
                   com=(0, 0, -0.5 * p.yaw_link), inertia=small, limits=(-0.6, 0.6))
        b.add_body(f"{leg}_hip_link", f"{leg}_yaw_link", "revolute", joint_name=f"{leg}_hip_roll",
                   armature=arm["hip_roll"],
                   xyz=(0.0, 0.0, -p.yaw_link), axis=(1, 0, 0), mass=p.hip_link_mass, inertia=small,
                   limits=(-0.5, 0.5))
        b.add_body(f"{leg}_thigh", f"{leg}_hip_link", "revolute", joint_name=f"{leg}_hip_pitch",
                   armature=arm["hip_pitch"],
                   axis=(0, 1, 0), mass=p.thigh_mass, com=(0, 0, -0.5 * p.thigh),
                   inertia=_rod_z(p.thigh_mass, p.thigh), limits=(-1.5, 1.0))
        b.add_geometry(f"{leg}_thigh", "capsule", radius=0.03, length=p.thigh, xyz=(0, 0, -0.5 * p.thigh),
                       name=f"{leg}_thigh_shape")
        b.add_body(f"{leg}_shank", f"{leg}_thigh", "revolute", joint_name=f"{leg}_knee",
                   armature=arm["knee"],
                   xyz=(0.0, 0.0, -p.thigh), axis=(0, 1, 0), mass=p.shank_mass, com=(0, 0, -0.5 * p.shank),
                   inertia=_rod_z(p.shank_mass, p.shank), limits=(0.0, 2.2))
        b.add_geometry(f"{leg}_shank", "capsule", radius=0.025, length=p.shank, xyz=(0, 0, -0.5 * p.shank),
                       name=f"{leg}_shank_shape")
        b.add_body(f"{leg}_ankle_link", f"{leg}_shank", "revolute", joint_name=f"{leg}_ankle_pitch",
                   armature=arm["ankle_pitch"],
                   xyz=(0.0, 0.0, -p.shank), axis=(0, 1, 0), mass=p.ankle_link_mass, inertia=small,
                   limits=(-1.0, 1.0))
        foot_com = (p.foot_x, 0.0, -p.ankle_height + 0.5 * lz)
        b.add_body(f"{leg}_foot", f"{leg}_ankle_link", "revolute", joint_name=f"{leg}_ankle_roll",
                   armature=arm["ankle_roll"],
                   axis=(1, 0, 0), mass=p.foot_mass, com=foot_com,
                   inertia=_box_inertia(p.foot_mass, p.foot_size), limits=(-0.5, 0.5))
        b.add_frame(f"{leg}_ankle", f"{leg}_foot")
        for k, centre in enumerate(pad_positions(p)):
            b.add_geometry(f"{leg}_foot", "sphere", radius=p.sole_radius, xyz=tuple(centre),
                           name=f"{leg}_pad{k}")
    return b.compile()


def leg_ik(p: RottoParams, ankle, yaw: float = 0.0) -> np.ndarray:
    """The leg's joint angles (6,) [rad] (:data:`~.params.JOINTS` order) putting the ankle centre at
    ``ankle`` (3,) [m], relative to the hip centre in the pelvis frame, with the foot flat and turned
    by ``yaw`` [rad] about the vertical (pelvis level):

    - hip yaw = ``yaw``; d = R_z(yaw)ᵀ · ankle (the hip centre lies on the yaw axis);
    - roll φ = atan2(d_y, −d_z) (the thigh–shank plane through the ankle);
    - in that plane, u = d_x, w = −√(d_y² + d_z²): knee θ_k = acos((u² + w² − T² − S²)/(2 T S)) ≥ 0,
      hip pitch θ_h = atan2(−u, −w) − atan2(S sin θ_k, T + S cos θ_k);
    - flat foot (R_x(φ) R_y(θ_h + θ_k + θ_a) R_x(θ_r) = I): ankle pitch −(θ_h + θ_k), ankle roll −φ.

    Raises :class:`InputError` out of reach."""
    _params("ROTTO leg_ik", p)
    a = check_array("ROTTO leg_ik", "ankle", ankle, (3,), "m")
    if not np.all(np.abs(a) <= 1e3):
        raise InputError(f"ROTTO leg_ik: ankle = {a.tolist()}: expected coordinates within ±1000 m of the "
                         "hip")
    yaw = check_number("ROTTO leg_ik", "yaw", yaw, lo=-1e6, hi=1e6)  # [rad]
    c, s = math.cos(yaw), math.sin(yaw)
    d = np.array([c * a[0] + s * a[1], -s * a[0] + c * a[1], a[2]])
    roll = math.atan2(d[1], -d[2])
    u, w = d[0], -math.hypot(d[1], d[2])
    T, S = p.thigh, p.shank
    ck = (u * u + w * w - T * T - S * S) / (2 * T * S)
    if not -1.0 <= ck <= 1.0:
        raise InputError(f"ROTTO leg: ankle {tuple(np.round(a, 4))} m from the hip is out of reach "
                         f"(thigh {T} m + shank {S} m)")
    knee = math.acos(ck)
    pitch = math.atan2(-u, -w) - math.atan2(S * math.sin(knee), T + S * math.cos(knee))
    return np.array([yaw, roll, pitch, knee, -(pitch + knee), -roll])
