"""The CRR leg with its three cylinders as bodies: barrel + piston-rod closed loops (digest §6 item 3).

Daepp (2011) models each cylinder as a joint torque T = F dx/dθ and leaves the cylinders out of
the inertia; his recommended improvement (digest §6 "Future work" 3, §7 item 7; source lines
~1099, 1124, 1195) is a prismatic-joint actuator that "would remove the torque approximations and
include the piston in the inertia". This module builds that mechanism:

* For each joint the triangle of :mod:`legsim.actuators.pneumatic._linkage_kernels` (pivot O on the
  joint axis, arms l1 and l3 at the pivot angle γ, cylinder pin-to-pin length L = l2 + x) lies in
  the plane through O perpendicular to the joint axis.
* **The fixed arm l1 is on the parent-side link, the crank l3 on the child link** (the naming of
  :func:`.geometry.design_linkage`). The fixed arm points along −y of the parent frame, i.e. back
  along the parent link (Beta: along the coxa towards Alpha; Gamma: along the femur towards Beta;
  Alpha: behind the vertical Alpha axis on the fixed base), so each cylinder lies along its parent
  link. The crank direction follows from γ: with e1 the fixed-arm direction and e2 = n × e1 (n the
  joint axis), the crank sits at the signed angle γ' = s γ from e1 (s = dγ/dθ = +1 Alpha, Beta,
  −1 Gamma; θ rotates the crank about n, so dγ'/dθ = 1).
* The **barrel** hangs from the parent link by a revolute joint about n at A = O + l1 e1; its
  axis in its own frame is e1, so its joint angle φ is the direction of B − A measured from e1.
  The **piston + rod** hangs from the barrel by a prismatic joint along that axis whose coordinate
  is the piston position x itself (the joint frame sits l2 from A), so the rod body's origin is the
  rod-end pin B and the piston force F is the generalised force on x.
* The loop closes analytically: q_full = g(θ) with φ(θ) = atan2(l3 sin γ', l3 cos γ' − l1),
  x(θ) = L(θ) − l2 (:func:`legsim.actuators.pneumatic._linkage_kernels.cylinder_coordinates`).

The augmented open tree (:func:`crr_leg_with_cylinders`) has 9 DoF ordered
[θ_α, θ_β, θ_γ, φ_α, x_α, φ_β, x_β, φ_γ, x_γ]. Each child link carries a frame ``<joint>_crank_end``
at the crank tip; the loop-closure condition is that it coincides with the rod body's origin.

Cylinder masses (:class:`CylinderInertia`, :func:`bimba_cylinder_inertia`): the source gives none
for its Bimba cylinders (1-1/16 in bore, 3/8 in rod, digest §3.2), so they are estimated from the
geometry here, stated in :func:`bimba_cylinder_inertia`, and can be replaced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...actuators.pneumatic._linkage_kernels import gamma_of_theta
from ...actuators.pneumatic.cylinder import Cylinder
from ...actuators.pneumatic.linkage import JointLinkage
from ...errors import InputError, check_fields, check_number, shown
from ...multibody import Model as BodyModel
from ...multibody import RobotBuilder
from .geometry import STROKES

__all__ = ["CylinderInertia", "bimba_cylinder_inertia", "default_cylinder_inertias",
           "crr_leg_with_cylinders", "massless_cylinders", "FIXED_ARM_DIRECTION", "CYLINDER_JOINTS"]

CYLINDER_JOINTS = ("alpha", "beta", "gamma")
FIXED_ARM_DIRECTION = (0.0, -1.0, 0.0)
"""Direction e1 of each fixed arm l1 in its parent frame (back along the parent link)."""

STEEL_DENSITY = 8000.0        # 304 stainless (Bimba Original Line body and rod) [kg/m³]
ALUMINIUM_DENSITY = 2700.0    # piston [kg/m³]
TUBE_OD = 1.125 * 0.0254      # barrel tube outside diameter for the 1-1/16 in bore [m] (estimate)
REAR_HEAD_MASS = 0.020        # rear head with the pivot mount [kg] (estimate)
REAR_HEAD_LENGTH = 0.008      # from the pivot pin to the cap-side inner face [m] (estimate)
FRONT_HEAD_MASS = 0.015       # front head with the rod bushing [kg] (estimate)
ROD_EXPOSED = 0.015           # rod eye + exposed rod beyond the barrel when retracted [m] (estimate)
ROD_EYE_MASS = 0.005          # rod-end eye at the pin B [kg] (estimate)
PISTON_THICKNESS = 0.008      # [m] (estimate)


@dataclass(frozen=True)
class CylinderInertia:
    """Rigid-body data of one cylinder's two bodies (SI; each body is axisymmetric about the
    cylinder axis).

    barrel_mass [kg]; barrel_com [m] from the barrel pivot pin A towards the rod end;
    barrel_axial, barrel_transverse [kg m²] central moments about and across the axis.
    rod_mass [kg] (rod + piston + rod eye); rod_com [m] from the rod-end pin B back towards the
    barrel; rod_axial, rod_transverse [kg m²] central moments.
    """

    barrel_mass: float
    barrel_com: float
    barrel_axial: float
    barrel_transverse: float
    rod_mass: float
    rod_com: float
    rod_axial: float
    rod_transverse: float

    def __post_init__(self) -> None:
        check_fields("CylinderInertia", self, nonnegative=("barrel_com", "rod_com"))
        try:
            masses = ("barrel_mass", "barrel_axial", "barrel_transverse", "rod_mass", "rod_axial",
                      "rod_transverse")
            check_fields("CylinderInertia", self, positive=masses)
        except InputError as e:
            raise InputError(f"{e} (cylinders of negligible mass: massless_cylinders())") from None


def _lumped(parts):
    """(mass, com, transverse moment about the com) of coaxial parts (mass, centre, own transverse
    moment) along one axis (parallel-axis theorem)."""
    m = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / m
    it = sum(p[2] + p[0] * (p[1] - c) ** 2 for p in parts)
    return m, c, it


def bimba_cylinder_inertia(linkage: JointLinkage, cylinder: Cylinder | None = None) -> CylinderInertia:
    """Estimated barrel and rod bodies of a Bimba Original Line cylinder (stainless body) of the
    leg's size (1-1/16 in bore, 3/8 in rod; digest §3.2) mounted with pin-to-pin length l2 + x.

    Not in the source (it gives no cylinder masses); estimated from the geometry:

    * barrel = a 304-stainless tube (OD 1.125 in, ID = bore) from the pivot pin A to
      l2 − 0.015 m (the rod eye and exposed rod take the last 0.015 m when retracted), a rear head
      with the pivot mount (0.020 kg at 4 mm from A) and a front head with the rod bushing
      (0.015 kg at the tube end);
    * rod = a solid stainless rod from the rod-end pin B to the piston, which sits at the cap end
      when retracted (l2 − 0.008 m rear head − the cap dead length from B), an aluminium piston
      (bore diameter, 8 mm thick) at its far end and a 0.005 kg rod eye at B.

    For the default linkages this gives 0.08–0.09 kg barrels and 0.06–0.07 kg rods (0.14–0.15 kg
    per cylinder, 0.43 kg for three, against the 0.67 kg leg). The default Alpha linkage's
    l2 = 0.094 m is shorter than a 3.75 in stroke cylinder can be retracted (stroke + dead lengths
    = 0.125 m); its bodies then simply scale with l2 (a mass model, not a fit check).
    Central moments: tube m (r_o² + r_i²)/2 axial and m (3 (r_o² + r_i²) + ℓ²)/12 transverse;
    solid rod m r²/2 and m (3 r² + ℓ²)/12; piston a disc; heads m r_o²/2 axial and, like the rod
    eye, points on the axis transversely (parallel-axis terms only).
    """
    o = "bimba_cylinder_inertia"
    if not isinstance(linkage, JointLinkage):
        raise InputError(f"{o}: 'linkage' = {shown(linkage)}, expected a JointLinkage (e.g. "
                         "default_linkages())")
    if not (cylinder is None or isinstance(cylinder, Cylinder)):
        raise InputError(f"{o}: 'cylinder' = {shown(cylinder)}, expected a Cylinder or None (the leg's own)")
    cyl = cylinder or Cylinder(stroke=STROKES[int(linkage.joint)])
    ro, ri = 0.5 * TUBE_OD, 0.5 * cyl.bore
    tube_len = linkage.l2 - ROD_EXPOSED
    rod_len = linkage.l2 - REAR_HEAD_LENGTH - cyl.dead_cap
    if not (tube_len > 0.0 and rod_len > 0.0):
        raise InputError(f"{linkage.joint.name} linkage l2={linkage.l2!r} m is too short for a "
                         f"cylinder body (needs > {REAR_HEAD_LENGTH + cyl.dead_cap!r} m)")
    m_tube = STEEL_DENSITY * math.pi * (ro * ro - ri * ri) * tube_len
    tube = (m_tube, 0.5 * tube_len, m_tube * (3.0 * (ro * ro + ri * ri) + tube_len ** 2) / 12.0)
    mb, cb, ib = _lumped([tube, (REAR_HEAD_MASS, 0.5 * REAR_HEAD_LENGTH, 0.0),
                          (FRONT_HEAD_MASS, tube_len, 0.0)])
    ib_ax = 0.5 * m_tube * (ro * ro + ri * ri) + 0.5 * (REAR_HEAD_MASS + FRONT_HEAD_MASS) * ro * ro
    rr = 0.5 * cyl.rod
    m_rod = STEEL_DENSITY * math.pi * rr * rr * rod_len
    rp = 0.5 * cyl.bore
    m_pis = ALUMINIUM_DENSITY * math.pi * rp * rp * PISTON_THICKNESS
    rod = (m_rod, 0.5 * rod_len, m_rod * (3.0 * rr * rr + rod_len ** 2) / 12.0)
    pis = (m_pis, rod_len, m_pis * (3.0 * rp * rp + PISTON_THICKNESS ** 2) / 12.0)
    mr, cr, ir = _lumped([rod, pis, (ROD_EYE_MASS, 0.0, 0.0)])
    ir_ax = 0.5 * m_rod * rr * rr + 0.5 * m_pis * rp * rp
    return CylinderInertia(mb, cb, ib_ax, ib, mr, cr, ir_ax, ir)


def default_cylinder_inertias(linkages) -> tuple[CylinderInertia, ...]:
    """:func:`bimba_cylinder_inertia` of the linkages (a list or tuple of :class:`JointLinkage`, e.g. the
    three of :func:`.geometry.default_linkages`; Alpha stroke 3.75 in, others 1.75 in)."""
    o = "default_cylinder_inertias"
    if not (isinstance(linkages, (list, tuple)) and linkages):
        raise InputError(f"{o}: 'linkages' = {shown(linkages)}, expected a list of JointLinkage (e.g. "
                         "default_linkages())")
    for j, k in enumerate(linkages):
        if not isinstance(k, JointLinkage):
            raise InputError(f"{o}: 'linkages[{j}]' = {shown(k)}, expected a JointLinkage")
    return tuple(bimba_cylinder_inertia(k) for k in linkages)


def massless_cylinders(mass: float = 1e-12) -> tuple[CylinderInertia, ...]:
    """Three (near-)massless cylinders: ``mass`` [kg] on each body, moments ``mass`` × 1 cm²."""
    mass = check_number("massless_cylinders", "mass", mass, lo=0.0, lo_open=True)
    c = CylinderInertia(mass, 0.0, mass * 1e-4, mass * 1e-4, mass, 0.0, mass * 1e-4, mass * 1e-4)
    return (c, c, c)


def _builder_of(model: BodyModel) -> RobotBuilder:
    """A :class:`RobotBuilder` that recompiles to ``model`` (a fixed-base tree of 1-DoF joints):
    bodies, joint placements, axes, inertias, limits, frames and geometry read back from it."""
    a = model.arrays
    stiff = a.dof_limit_stiffness[a.dof_limited == 1]
    damp = a.dof_limit_damping[a.dof_limited == 1]
    b = RobotBuilder(model.name, gravity=tuple(a.gravity), friction_velocity=float(a.opt[0]),
                     limit_stiffness=float(stiff[0]) if stiff.size else 0.0,
                     limit_damping=float(damp[0]) if damp.size else 0.0)
    kinds = {2: "revolute", 3: "prismatic"}
    for i in range(1, model.nbody):
        if int(a.jnt_type[i]) not in kinds:
            raise InputError(f"body {model.body_names[i]!r}: only revolute/prismatic joints supported")
        k = int(a.jnt_dofadr[i])
        lim = tuple(a.dof_range[k]) if a.dof_limited[k] else None
        b.add_body(model.body_names[i], model.body_names[a.body_parent[i]], kinds[int(a.jnt_type[i])],
                   joint_name=model.jnt_names[i], xyz=a.jnt_p[i], rotation=a.jnt_R[i],
                   axis=a.jnt_axis[i], mass=float(model.body_mass[i]), com=model.body_com[i],
                   inertia=model.body_inertia[i], limits=lim, damping=float(a.dof_damping[k]),
                   friction=float(a.dof_frictionloss[k]), armature=float(a.dof_armature[k]))
    bodies = set(model.body_names)
    for f, name in enumerate(model.frame_names):
        if name not in bodies:
            b.add_frame(name, model.body_names[a.frame_body[f]], xyz=a.frame_p[f], rotation=a.frame_R[f])
    for g in model.geometries:
        b.add_geometry(g.body, g.shape, xyz=g.p, rotation=g.R, material=g.material, name=g.name,
                       **g.params)
    return b


def _axisymmetric(axial: float, transverse: float, e: np.ndarray) -> np.ndarray:
    return transverse * np.eye(3) + (axial - transverse) * np.outer(e, e)


def crr_leg_with_cylinders(leg: BodyModel, linkages, cylinders) -> BodyModel:
    """The augmented open tree: ``leg`` (the 3-DoF CRR leg, :func:`.geometry.crr_leg_bodies`) plus,
    per joint, a barrel (revolute about the joint axis at the fixed-arm end) and a piston-rod body
    (prismatic along the barrel, coordinate x [m]). 9 DoF:
    [θ_α, θ_β, θ_γ, φ_α, x_α, φ_β, x_β, φ_γ, x_γ]; the leg's joint limits are kept. The cylinder
    coordinates follow θ; they get limits that the closed loop can never reach (φ within ±2π,
    x within ±1 m: |φ| < π and |x| < l1 + l3 always) only because a hybrid model's parameter vector
    (which carries the tree) must be finite. ``linkages``: three :class:`JointLinkage`;
    ``cylinders``: three :class:`CylinderInertia`.
    """
    o = "crr_leg_with_cylinders"
    if not isinstance(leg, BodyModel):
        raise InputError(f"{o}: 'leg' = {shown(leg)}, expected the CRR leg's multibody model "
                         "(crr_leg_bodies())")
    if leg.nv != 3 or leg.floating_base or tuple(leg.joint_names) != CYLINDER_JOINTS:
        raise InputError(f"{o}: 'leg': expected the fixed-base 3-DoF CRR leg (joints "
                         f"{', '.join(CYLINDER_JOINTS)}), got joints {leg.joint_names}")
    for name, value, kind in (("linkages", linkages, JointLinkage),
                              ("cylinders", cylinders, CylinderInertia)):
        if not (isinstance(value, (list, tuple)) and len(value) == 3
                and all(isinstance(k, kind) for k in value)):
            raise InputError(f"{o}: '{name}' = {shown(value)}, expected three {kind.__name__} (Alpha, Beta, "
                             "Gamma)")
    b = _builder_of(leg)
    a = leg.arrays
    e1 = np.asarray(FIXED_ARM_DIRECTION)
    for j, (name, link, cyl) in enumerate(zip(CYLINDER_JOINTS, linkages, cylinders, strict=True)):
        child = j + 1                                   # body index of the joint's child link
        parent = leg.body_names[a.body_parent[child]]
        R = a.jnt_R[child]
        n = R @ a.jnt_axis[child]                       # joint axis in the parent frame
        if abs(n @ e1) > 1e-12:
            raise InputError(f"{name}: the fixed-arm direction {tuple(e1)} is not perpendicular to "
                             f"the joint axis {tuple(n)}")
        e2 = np.cross(n, e1)
        O = a.jnt_p[child]
        b.add_body(f"{name}_barrel", parent, "revolute", joint_name=f"{name}_barrel",
                   xyz=O + link.l1 * e1, axis=n, mass=cyl.barrel_mass, com=cyl.barrel_com * e1,
                   inertia=_axisymmetric(cyl.barrel_axial, cyl.barrel_transverse, e1),
                   limits=(-2.0 * math.pi, 2.0 * math.pi))
        b.add_body(f"{name}_rod", f"{name}_barrel", "prismatic", joint_name=f"{name}_piston",
                   xyz=link.l2 * e1, axis=e1, mass=cyl.rod_mass, com=-cyl.rod_com * e1,
                   inertia=_axisymmetric(cyl.rod_axial, cyl.rod_transverse, e1), limits=(-1.0, 1.0))
        # crank tip on the child: at θ = 0 the crank is at the signed angle γ'(0) from e1
        g, dg = gamma_of_theta(int(link.joint), link.l1, link.l3, link.l4, link.l5, 0.0)
        psi = dg * g
        tip_parent = link.l3 * (math.cos(psi) * e1 + math.sin(psi) * e2)   # from O, parent axes
        b.add_frame(f"{name}_crank_end", leg.body_names[child], xyz=R.T @ tip_parent)
    return b.compile()
