"""The CRR quadruped as a rigid-body model: a trunk and four copies of the CRR leg.

Daepp (2011) digest §1.1: the simulated robot has "the two-legged robot's dimensions and kinematics,
extended to four legs"; §2.7 places the shoulders on the thorax (SrLib L1/R1/L2/R2) and §2.8 gives
the thorax capsule. The leg itself is :func:`legsim.robots.crr_leg.geometry.crr_leg_bodies` (its
bodies, joints, limits, capsules and foot frame are *copied from the compiled leg model*, not
rebuilt, by :func:`graft_leg`), so the single-leg bench and the quadruped share one leg definition.

Frames: world z up. Trunk frame: x forward along the thorax axis, y to the left, z up. Each leg
has a *leg base frame* at its shoulder (the Alpha joint), axes parallel to the trunk's, in which the
leg is the crr_leg model mirrored by ``S = diag(s_x, s_y, 1)``: left legs s_y = +1 (coxa along +y at
Alpha = 0), right legs s_y = −1; front legs s_x = +1, rear legs s_x = −1. The mirror keeps z, so
each leg's joint-space dynamics under gravity are those of the single leg; a positive Alpha sweeps
the coxa rearward on the front legs and forward on the rear legs (a left–right and front–rear
symmetric stance for equal joint angles).

Choices where the source gives no number (documented):

* Shoulders (§2.7 table: thorax-frame translations (−0.0086, ∓0.046, ±0.375) m along the thorax's
  (x, y, z), its axis being z): here at (±0.375, ±0.046, −0.0086) m in the trunk frame, the SrLib
  x offset read as vertical (below the thorax axis). The SrLib shoulder rotations are not used
  (the Alpha axis is vertical, as in :mod:`legsim.robots.crr_leg.geometry`).
* Trunk mass. §2.8's thorax (capsule 0.094 × 0.75 m, density 10 000 kg/m³) weighs 56 kg; it was a
  welded base in the thesis. As a free body the legs cannot carry it: standing at
  :data:`.quadruped.STANCE_POSTURE_DEG` a Beta cylinder pushes ≈ 3.4 N per N of foot load
  (measured: 39 N for 11.4 N), so 59 kg would need ≈ 500 N per Beta cylinder, three times the
  161 N it can extend with at 50 psig (supply 65 psia, exhaust 24.7 psia). The default trunk keeps
  the capsule's dimensions with a mass of :data:`TRUNK_MASS` = 2.0 kg (robot 4.66 kg; Beta at a
  quarter of its force in stance, margin for the squat and for three-legged support while
  crawling); ``trunk_mass`` is user-settable.
* Feet: a sphere per leg whose centre is the tibia capsule's end-cap centre (frame
  ``<leg>_foot_centre``, 7.5 mm inside the tip frame ``<leg>_foot``); its radius is a contact
  parameter (default the tibia radius, so the sphere is the capsule's cap). Given a ``foot_radius``,
  :func:`quadruped_bodies` adds it as a sphere geometry ``<leg>_foot_sphere`` (the geometry the
  assembled robot's foot contacts name).
"""

from __future__ import annotations

import math

import numpy as np

from ...contact.shapes import MAX_LENGTH
from ...errors import InputError, check_array, check_number, shown
from ...multibody import Model as BodyModel
from ...multibody import RobotBuilder
from ..crr_leg.geometry import LEG_CAPSULES, LINKS, crr_leg_bodies
from ..crr_leg.leg import JOINTS

__all__ = ["LEGS", "SHOULDERS", "MIRRORS", "TRUNK", "TRUNK_MASS", "MAX_TRUNK_MASS", "FOOT_RADIUS",
           "graft_leg", "quadruped_bodies", "trunk_inertia"]

LEGS = ("lf", "rf", "lr", "rr")
"""Leg names: left front (SrLib L1), right front (R1), left rear (L2), right rear (R2)."""

SHOULDERS = ((0.375, 0.046, -0.0086), (0.375, -0.046, -0.0086), (-0.375, 0.046, -0.0086),
             (-0.375, -0.046, -0.0086))
"""Alpha joint (shoulder) positions [m] in the trunk frame, per leg of :data:`LEGS`."""

MIRRORS = ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0))
"""(s_x, s_y) of each leg's mirror S = diag(s_x, s_y, 1) (module docstring)."""

TRUNK = (0.094, 0.75)
"""Thorax capsule (diameter, cylinder length) [m], digest §2.8; its axis is the trunk's x."""

TRUNK_MASS = 2.0
"""Default trunk mass [kg] (a documented choice, see the module docstring)."""
MAX_TRUNK_MASS = 1e12
"""The heaviest trunk [kg] :func:`trunk_inertia` and :func:`quadruped_bodies` take (its inertia, mass times
the capsule's squared lengths, and the weight stay finite and far from overflow)."""

FOOT_RADIUS = 0.5 * LEG_CAPSULES["tibia"].diameter
"""Default foot-sphere radius [m]: the tibia capsule's radius (7.5 mm)."""


def trunk_inertia(mass: float) -> np.ndarray:
    """Central inertia (3, 3) [kg m²] of a solid capsule of :data:`TRUNK` dimensions and ``mass``
    [kg] (> 0, at most :data:`MAX_TRUNK_MASS`), axis along x (same capsule formula as
    :func:`..crr_leg.geometry.capsule_inertia`)."""
    mass = check_number("trunk_inertia", "mass", mass, lo=0.0, lo_open=True, hi=MAX_TRUNK_MASS)
    r = 0.5 * TRUNK[0]
    L = TRUNK[1]
    v_c = math.pi * r * r * L
    v_s = 4.0 / 3.0 * math.pi * r ** 3
    m_c = mass * v_c / (v_c + v_s)
    m_s = mass - m_c
    axial = 0.5 * m_c * r * r + 0.4 * m_s * r * r
    trans = m_c * (L * L / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + L * L / 4.0 + 3.0 * L * r / 8.0)
    return np.diag([axial, trans, trans])


MAX_SHOULDER = 1e3
"""Largest shoulder offset from the trunk [m]: a leg's placements stay within the builder's
:data:`~legsim.contact.shapes.MAX_LENGTH` (1e6 m) once its own joint offsets are added."""


def graft_leg(builder: RobotBuilder, leg: BodyModel, parent: str, prefix: str, shoulder,
              mirror=(1.0, 1.0)) -> None:
    """Copy the fixed-base chain ``leg`` (a compiled multibody model, e.g. the CRR leg) onto
    ``builder`` under body ``parent``, its base frame at ``shoulder`` (3,) [m] in ``parent`` (axes
    parallel), mirrored by S = diag(s_x, s_y, 1) with ``mirror`` = (s_x, s_y), s = ±1.

    Each body's joint placement (R, p) becomes (S R S, S p); its joint axis a becomes det(S) S a
    (an axial vector), so that the mirrored joint turned by θ is S Rot(a, θ) S; centre of mass c
    becomes S c and central inertia I becomes S I S. Names get ``prefix + '_'``; joint limits,
    damping and friction, frames (other than body frames) and capsule geometries are copied.
    """
    o = "graft_leg"
    if not isinstance(builder, RobotBuilder):
        raise InputError(f"{o}: 'builder' = {shown(builder)}, expected a legsim.multibody.RobotBuilder")
    if not isinstance(leg, BodyModel):
        raise InputError(f"{o}: 'leg' = {shown(leg)}, expected a compiled legsim.multibody.Model "
                         "(crr_leg_bodies())")
    if leg.floating_base:
        raise InputError(f"{o}: 'leg' model {leg.name!r} must have a fixed base")
    for name, value in (("parent", parent), ("prefix", prefix)):
        if not isinstance(value, str):
            raise InputError(f"{o}: '{name}' = {shown(value)}, expected a name (a string)")
    shoulder = check_array(o, "shoulder", shoulder, (3,), "m")
    if not np.all(np.abs(shoulder) <= MAX_SHOULDER):
        raise InputError(f"{o}: 'shoulder' = {shown(shoulder)}, expected 3 finite numbers within "
                         f"±MAX_SHOULDER = {MAX_SHOULDER:g} m")
    signs = check_array(o, "mirror", mirror, (2,))
    if not np.all(np.abs(signs) == 1.0):
        raise InputError(f"{o}: 'mirror' = {shown(mirror)}, expected (s_x, s_y) with each +1 or -1")
    sx, sy = float(signs[0]), float(signs[1])
    S = np.diag([sx, sy, 1.0])
    det = sx * sy
    a = leg.arrays
    names = {0: parent}
    for i in range(1, leg.nbody):
        par = int(a.body_parent[i])
        R = S @ a.jnt_R[i] @ S
        p = S @ a.jnt_p[i]
        if par == 0:
            p = p + shoulder
        dof = int(a.jnt_dofadr[i])
        lim = None
        if a.dof_limited[dof]:
            lim = (float(a.dof_range[dof, 0]), float(a.dof_range[dof, 1]))
        name = f"{prefix}_{leg.body_names[i]}"
        builder.add_body(name, names[par], "revolute", joint_name=f"{prefix}_{leg.jnt_names[i]}",
                         xyz=p, rotation=R, axis=det * (S @ a.jnt_axis[i]), mass=leg.body_mass[i],
                         com=S @ leg.body_com[i], inertia=S @ leg.body_inertia[i] @ S, limits=lim,
                         damping=float(a.dof_damping[dof]), friction=float(a.dof_frictionloss[dof]))
        names[i] = name
    for f in range(leg.nframe):
        if leg.frame_names[f] in leg.body_names:
            continue
        b = int(a.frame_body[f])
        builder.add_frame(f"{prefix}_{leg.frame_names[f]}", names[b], xyz=S @ a.frame_p[f],
                          rotation=S @ a.frame_R[f] @ S)
    for g in leg.geometries:
        body = leg.body_names.index(g.body)
        builder.add_geometry(names[body], g.shape, xyz=S @ g.p, rotation=S @ g.R @ S,
                             material=g.material, name=f"{prefix}_{g.name}", **g.params)


def quadruped_bodies(base: str = "floating", trunk_mass: float = TRUNK_MASS,
                     trunk_height: float = 0.3, gravity: float = 9.81,
                     foot_radius: float | None = None) -> BodyModel:
    """The quadruped as a :class:`legsim.multibody.Model`.

    ``base="floating"``: the trunk hangs from the world by a free joint (q = [x y z qx qy qz qw,
    12 joints], pinocchio convention); ``"fixed"``: the trunk is welded level at height
    ``trunk_height`` [m] above the origin (q = the 12 joints). Joints in the order of :data:`LEGS`
    × (alpha, beta, gamma), named ``<leg>_<joint>``; frames ``<leg>_foot`` (tibia tip) and
    ``<leg>_foot_centre`` (foot-sphere centre). ``trunk_mass`` [kg] in (0, :data:`MAX_TRUNK_MASS`];
    ``trunk_height`` [m] within ±:data:`~legsim.contact.shapes.MAX_LENGTH`; gravity [m/s²] along −z.
    ``foot_radius`` [m] > 0: a sphere geometry ``<leg>_foot_sphere`` of this radius centred on
    ``<leg>_foot_centre`` (the foot contact; None: none).
    """
    if not (isinstance(base, str) and base in ("floating", "fixed")):
        raise InputError(f"base={base!r}: expected 'floating' or 'fixed'")
    check_number("quadruped_bodies", "trunk_mass", trunk_mass, lo=0.0, lo_open=True, hi=MAX_TRUNK_MASS)
    check_number("quadruped_bodies", "trunk_height", trunk_height, lo=-MAX_LENGTH, hi=MAX_LENGTH)
    if foot_radius is not None:
        check_number("quadruped_bodies", "foot_radius", foot_radius, lo=0.0, lo_open=True)
    leg = crr_leg_bodies(gravity=gravity)
    # one frame more on the leg: the foot-sphere centre, the tibia end cap's centre
    a3 = LINKS[2]
    b = RobotBuilder("crr_quadruped", gravity=(0.0, 0.0, -gravity),
                     limit_stiffness=float(leg.arrays.dof_limit_stiffness[0]),
                     limit_damping=float(leg.arrays.dof_limit_damping[0]))
    joint = "free" if base == "floating" else "fixed"
    xyz = (0.0, 0.0, 0.0) if base == "floating" else (0.0, 0.0, trunk_height)
    b.add_body("trunk", "world", joint, joint_name="trunk", xyz=xyz, mass=trunk_mass,
               inertia=trunk_inertia(trunk_mass))
    b.add_geometry("trunk", "capsule", radius=0.5 * TRUNK[0], length=TRUNK[1],
                   rpy=(0.0, math.pi / 2, 0.0), material="trunk")
    for name, shoulder, mirror in zip(LEGS, SHOULDERS, MIRRORS, strict=True):
        graft_leg(b, leg, "trunk", name, shoulder, mirror)
        centre = (0.0, mirror[1] * (a3 - FOOT_RADIUS), 0.0)      # S (0, a3 - r, 0), mirrored
        b.add_frame(f"{name}_foot_centre", f"{name}_tibia", xyz=centre)
        if foot_radius is not None:
            b.add_geometry(f"{name}_tibia", "sphere", xyz=centre, radius=float(foot_radius),
                           material="foot", name=f"{name}_foot_sphere")
    model = b.compile()
    expected = [f"{n}_{j}" for n in LEGS for j in JOINTS]
    if list(model.joint_names) != expected:  # pragma: no cover - guards the joint order of the records
        raise AssertionError(f"joint order {model.joint_names} != {expected}")
    return model
