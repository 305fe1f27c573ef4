"""The CRR front leg as a rigid-body model, and its three cylinder linkages (Daepp (2011) Ch. 5).

Rigid bodies (digest §2.7 Table 1, §2.8 Leg.cpp): coxa (Coxa1 + Coxa2 capsules welded), femur and
tibia, each a capsule whose mass and inertia follow from the SrLib density argument. The D-H chain
is Alpha (θ1, α1 = −90°, coxa a1) → Beta (θ2, femur a2) → Gamma (θ3, tibia a3) → tip; the base is
fixed (the thesis's validation mode).

Choices where the source gives no number (digest ⚠ 13), documented here:

* Orientation. The source's shoulder rotations do not pin down the direction of gravity in the
  leg's frame. We take the classic legged-robot arrangement that matches the joint ranges of §2.6:
  the Alpha axis is vertical (world z), the coxa points outward along world +y at θ1 = 0, and Beta
  and Gamma turn about axes parallel to world −x, so θ2 < 0 (Beta's whole range [−67°, −1°]) raises
  the femur above the horizontal and θ3 > 0 (Gamma's range [17°, 95°]) folds the tibia down.
* Lengths. a1 = 0.0731 + 0.0481 + 0.025 = 0.1462 m (SrLib Alpha → weld → Coxa2 frame offsets laid
  end to end; d1 = 0); a2 = 0.174 m (the femur joint-to-joint distance the digest derives); a3 =
  0.152 + 0.255/2 + 0.0075 = 0.287 m (Gamma → tibia centre, half the capsule, the end cap).
* Capsule centres sit at the middle of each link's joint-to-joint segment, the capsule axis along
  the link.
* Linkages. l1–l5 are designed by :func:`design_linkage`: given the fixed arm l1 and the pivot angle
  γ at the middle of the joint range, the crank l3 is solved so that the piston travels exactly
  0 … stroke over the joint's range (A8), with the retracted pin-to-pin length l2 the law-of-cosines
  length at the range end where x = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ...actuators.pneumatic.linkage import JOINT_LIMITS_DEG, Joint, JointLinkage
from ...actuators.pneumatic.units import INCH
from ...errors import InputError, check_number, shown
from ...multibody import Model as BodyModel
from ...multibody import RobotBuilder

__all__ = ["Capsule", "capsule_inertia", "MAX_CAPSULE_LENGTH", "MAX_DENSITY", "LINKS", "LEG_CAPSULES",
           "crr_leg_bodies", "design_linkage", "default_linkages", "STROKES", "JOINT_LIMITS"]

A1 = 0.0731 + 0.0481 + 0.025
A2 = 0.174
A3 = 0.152 + 0.255 / 2.0 + 0.0075
LINKS = (A1, A2, A3)
"""D-H link lengths a1, a2, a3 [m] (coxa, femur, tibia)."""

STROKES = (3.75 * INCH, 1.75 * INCH, 1.75 * INCH)
"""Cylinder strokes [m] of Alpha, Beta, Gamma (digest §3.2; Alpha 3.75 in from the setup file ⚠ 6)."""

JOINT_LIMITS = tuple(tuple(math.radians(a) for a in JOINT_LIMITS_DEG[j]) for j in Joint)
"""Joint ranges [rad] of Alpha, Beta, Gamma (digest §2.6)."""


MAX_CAPSULE_LENGTH = 100.0
"""The largest diameter and cylinder length [m] of a :class:`Capsule` (a link of a leg is well below)."""
MAX_DENSITY = 1e5
"""The largest density [kg/m³] of a :class:`Capsule`, above any solid's (osmium: 22 590); with
:data:`MAX_CAPSULE_LENGTH` its mass and moments stay finite."""


@dataclass(frozen=True)
class Capsule:
    """A capsule link: ``diameter`` (> 0) and cylinder ``length`` (>= 0) [m], both at most
    :data:`MAX_CAPSULE_LENGTH`, and ``density`` [kg/m³] in (0, :data:`MAX_DENSITY`] (Leg.cpp)."""

    diameter: float
    length: float
    density: float

    def __post_init__(self) -> None:
        check_number("Capsule", "diameter", self.diameter, lo=0.0, hi=MAX_CAPSULE_LENGTH, lo_open=True)
        check_number("Capsule", "length", self.length, lo=0.0, hi=MAX_CAPSULE_LENGTH)
        check_number("Capsule", "density", self.density, lo=0.0, hi=MAX_DENSITY, lo_open=True)


LEG_CAPSULES = {
    "coxa1": Capsule(0.05, 0.0961, 1200.0),
    "coxa2": Capsule(0.05, 0.0, 300.0),
    "femur": Capsule(0.05, 0.123, 700.0),
    "tibia": Capsule(0.015, 0.255, 2700.0),
}
"""The SrLib leg capsules of digest §2.8 (the density arguments read as kg/m³)."""


def capsule_inertia(cap: Capsule) -> tuple[float, float, float]:
    """Mass [kg] and central moments (axial, transverse) [kg m²] of a solid capsule.

    A cylinder of radius r and length L plus two hemispherical caps (together a sphere of mass m_s):
    I_axial = m_c r²/2 + 2 m_s r²/5; I_transverse = m_c (L²/12 + r²/4) + m_s (2r²/5 + L²/4 + 3Lr/8)
    (each hemisphere: 2 m_h r²/5 about its flat face, centroid 3r/8 from it, parallel-axis shift).
    """
    if not isinstance(cap, Capsule):
        raise InputError(f"capsule_inertia: 'cap' = {shown(cap)}, expected a Capsule")
    r = 0.5 * cap.diameter
    L = cap.length
    m_c = cap.density * math.pi * r * r * L
    m_s = cap.density * 4.0 / 3.0 * math.pi * r ** 3
    axial = 0.5 * m_c * r * r + 0.4 * m_s * r * r
    trans = m_c * (L * L / 12.0 + r * r / 4.0) + m_s * (0.4 * r * r + L * L / 4.0 + 3.0 * L * r / 8.0)
    return m_c + m_s, axial, trans


def _rod_body(cap: Capsule, along: int, centre: float):
    """(mass, com (3,), inertia (3, 3) about the com) of a capsule whose axis is body axis ``along``
    with its centre at ``centre`` [m] on that axis."""
    m, ax, tr = capsule_inertia(cap)
    d = np.full(3, tr)
    d[along] = ax
    com = np.zeros(3)
    com[along] = centre
    return m, com, np.diag(d)


def crr_leg_bodies(limit_stiffness: float = 200.0, limit_damping: float = 2.0,
                   gravity: float = 9.81) -> BodyModel:
    """The fixed-base 3-DoF CRR leg as a :class:`legsim.multibody.Model`.

    Bodies ``coxa`` (Coxa1 + Coxa2 merged), ``femur``, ``tibia``; joints ``alpha`` (about world z),
    ``beta`` and ``gamma`` (about −x of the coxa/femur frames); every link extends along its local
    +y. A frame ``foot`` marks the tibia tip. Joint limits of §2.6 act through the multibody limit
    spring-damper (``limit_stiffness`` N m/rad, ``limit_damping`` N m s/rad); gravity [m/s²] along
    −z.
    """
    gravity = check_number("crr_leg_bodies", "gravity", gravity)
    b = RobotBuilder("crr_leg", gravity=(0.0, 0.0, -gravity), limit_stiffness=limit_stiffness,
                     limit_damping=limit_damping)
    m1, c1, i1 = _rod_body(LEG_CAPSULES["coxa1"], 1, 0.5 * (A1 - 0.025))
    m2, c2, i2 = _rod_body(LEG_CAPSULES["coxa2"], 1, A1 - 0.025)
    mc = m1 + m2
    com = (m1 * c1 + m2 * c2) / mc
    inert = i1 + i2
    for m, c in ((m1, c1), (m2, c2)):
        dv = c - com
        inert = inert + m * (np.dot(dv, dv) * np.eye(3) - np.outer(dv, dv))
    lim = JOINT_LIMITS
    b.add_body("coxa", "world", "revolute", joint_name="alpha", axis=(0, 0, 1), mass=mc, com=com,
               inertia=inert, limits=lim[0])
    mf, cf, If = _rod_body(LEG_CAPSULES["femur"], 1, 0.5 * A2)
    b.add_body("femur", "coxa", "revolute", joint_name="beta", axis=(-1, 0, 0), xyz=(0, A1, 0),
               mass=mf, com=cf, inertia=If, limits=lim[1])
    mt, ct, It = _rod_body(LEG_CAPSULES["tibia"], 1, 0.5 * A3)
    b.add_body("tibia", "femur", "revolute", joint_name="gamma", axis=(-1, 0, 0), xyz=(0, A2, 0),
               mass=mt, com=ct, inertia=It, limits=lim[2])
    b.add_frame("foot", "tibia", xyz=(0, A3, 0))
    for name, L in (("coxa", A1), ("femur", A2), ("tibia", A3)):
        cap = LEG_CAPSULES["coxa1" if name == "coxa" else name]
        b.add_geometry(name, "capsule", radius=0.5 * cap.diameter, length=L, xyz=(0, 0.5 * L, 0),
                       rpy=(math.pi / 2, 0, 0), material="leg")
    return b.compile()


def design_linkage(joint: Joint, l1: float, stroke: float, gamma_mid: float = math.pi / 2,
                   phi1: float = 0.2) -> JointLinkage:
    """A linkage whose piston travels exactly 0 … ``stroke`` [m] over the joint's range (§2.6).

    ``l1`` [m] is the fixed arm, ``gamma_mid`` [rad] the pivot angle at mid-range, ``phi1`` [rad] the
    φ1 = acos(l4/l3) of Alpha/Beta (5.2.2)/(5.2.4). The crank l3 is found by root bracketing so that
    |L(γ_hi) − L(γ_lo)| = stroke with L(γ) = √(l1² + l3² − 2 l1 l3 cos γ); l2 = L at the x = 0 end.
    Then l4, l5 place γ_mid at the middle of the range: Alpha γ = asin(l5/l1) − φ1 + θ, Beta
    γ = π − asin(l5/l1) − φ1 + θ, Gamma γ = π − asin(l4/l1) − θ. ``l1`` in [1e-5, 1e3] m, ``stroke`` in
    [1e-5, l1], ``gamma_mid`` in (0, π), ``phi1`` in [0, π/2].
    """
    o = "design_linkage"
    joints = [int(j) for j in Joint]
    if isinstance(joint, bool) or not (isinstance(joint, (int, np.integer)) and int(joint) in joints):
        raise InputError(f"{o}: 'joint' = {shown(joint)}, expected a Joint (ALPHA, BETA or GAMMA)")
    joint = Joint(int(joint))
    l1 = check_number(o, "l1", l1, lo=1e-5, hi=1e3)
    stroke = check_number(o, "stroke", stroke, lo=1e-5, hi=1e3)  # > 2e-6: a crank of 1e-6 m travels less
    if stroke > l1:
        raise InputError(f"{o}: 'stroke' = {stroke:g} m is longer than the fixed arm 'l1' = {l1:g} m")
    gamma_mid = check_number(o, "gamma_mid", gamma_mid, lo=0.0, lo_open=True, hi=math.pi)
    phi1 = check_number(o, "phi1", phi1, lo=0.0, hi=math.pi / 2)
    lo, hi = JOINT_LIMITS[int(joint)]
    half = 0.5 * (hi - lo)
    g_lo, g_hi = gamma_mid - half, gamma_mid + half
    if not (0.0 < g_lo and g_hi < math.pi):
        raise InputError(f"{joint.name}: gamma_mid={gamma_mid!r} rad puts the pivot angle range "
                         f"[{g_lo:.3f}, {g_hi:.3f}] outside (0, pi)")

    def travel(l3):
        def length(g):
            return math.sqrt(l1 * l1 + l3 * l3 - 2.0 * l1 * l3 * math.cos(g))
        return length(g_hi) - length(g_lo) - stroke

    if travel(l1) < 0.0:
        raise InputError(f"{joint.name}: arm l1={l1!r} m too short for a stroke of {stroke!r} m")
    l3 = brentq(travel, 1e-6, l1, xtol=1e-14)
    l2 = math.sqrt(l1 * l1 + l3 * l3 - 2.0 * l1 * l3 * math.cos(g_lo))
    mid = 0.5 * (lo + hi)
    if joint == Joint.GAMMA:
        phi2 = math.pi - gamma_mid - mid
        return JointLinkage(joint, l1=l1, l2=l2, l3=l3, l4=l1 * math.sin(phi2))
    s = gamma_mid - mid + phi1 if joint == Joint.ALPHA else math.pi - gamma_mid + mid - phi1
    if not 0.0 <= s <= math.pi / 2:
        raise InputError(f"{joint.name}: no l5 gives asin(l5/l1)={s:.3f} rad; change phi1 or gamma_mid")
    return JointLinkage(joint, l1=l1, l2=l2, l3=l3, l4=l3 * math.cos(phi1), l5=l1 * math.sin(s))


def default_linkages() -> tuple[JointLinkage, JointLinkage, JointLinkage]:
    """Alpha, Beta, Gamma linkages (fixed arms 0.14, 0.12, 0.12 m; pivot angle 90° mid-range).

    The arms are sized like the prototype's cylinders (a retracted Bimba 1.75 in cylinder is about
    0.11 m pin to pin): l2 comes out 0.10–0.13 m and the cranks 0.03–0.05 m.
    """
    return (design_linkage(Joint.ALPHA, 0.14, STROKES[0]),
            design_linkage(Joint.BETA, 0.12, STROKES[1]),
            design_linkage(Joint.GAMMA, 0.12, STROKES[2]))
