"""Cylinder ↔ joint-angle maps and force → torque for the CRR leg joints (Daepp (2011) §5.2).

For each joint γ is the angle at the pivot between the mounting arms l1 and l3; the cylinder
pin-to-pin length is l2 + x. The source gives the maps (5.2.1)–(5.2.6) and the torque
T = l3 F sin λ1 = F l1 l3 sin γ / (l2 + x) (5.2.7)–(5.2.9) but **no numerical l1–l5** (digest ⚠ 13):
lengths are user-supplied. We compute the torque as T = F dx/dθ (virtual work), which equals
(5.2.9) in magnitude and carries the sign of dγ/dθ (+1 Alpha and Beta, −1 Gamma), so
T·θ̇ = F·ẋ holds exactly. (5.2.8) prints sin(βα); we use sin(γ_β).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...errors import InputError, check_fields, check_number
from ._linkage_kernels import cylinder_of_joint, joint_of_cylinder
from ._validate import as_array, broadcast_flat, finish

__all__ = ["Joint", "JointLinkage", "LinearLinkage", "JOINT_LIMITS_DEG", "LINEAR_COORDINATE_LIMIT",
           "LINEAR_SLOPE_RANGE"]


class Joint(IntEnum):
    ALPHA = 0
    BETA = 1
    GAMMA = 2


JOINT_LIMITS_DEG = {Joint.ALPHA: (-47.0, 90.0), Joint.BETA: (-67.0, -1.0), Joint.GAMMA: (17.0, 95.0)}
"""Joint ranges of the CRR leg [deg] (digest §2.6)."""

LINEAR_COORDINATE_LIMIT = 1e3
"""Largest |θ| [rad, or m for a slider] and |x| [m] of a :class:`LinearLinkage`'s calibration points."""
LINEAR_SLOPE_RANGE = (1e-6, 1e6)
"""Range of |dx/dθ| [m/rad] of a :class:`LinearLinkage`: a micrometre to a kilometre of piston travel per
radian, beyond any real lever; keeps x(θ), θ(x) = θ0 + (x − x0) / slope and T = F slope finite."""


@dataclass(frozen=True)
class JointLinkage:
    """A cylinder driving a revolute joint through a triangle (l1, l3 arms; l2 + x the cylinder).

    joint : :class:`Joint`; l1 … l5 [m] (l4, l5 set the fixed angles φ1, φ2 of (5.2.2)/(5.2.4)/
    (5.2.6)); Gamma does not use l5.
    """

    joint: Joint
    l1: float
    l2: float
    l3: float
    l4: float
    l5: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.joint, Joint):
            raise InputError(f"linkage joint = {self.joint!r}: expected a Joint (ALPHA, BETA, GAMMA)")
        check_fields(f"{self.joint.name} linkage", self, positive=("l1", "l2", "l3"), finite=("l4", "l5"))
        if self.joint in (Joint.ALPHA, Joint.BETA):
            if not abs(self.l4) <= self.l3:
                raise InputError(f"{self.joint.name} linkage: |l4|={abs(self.l4)!r} must not exceed "
                                 f"l3={self.l3!r} (φ1 = acos(l4/l3))")
            if not abs(self.l5) <= self.l1:
                raise InputError(f"{self.joint.name} linkage: |l5| must not exceed l1 (φ2 = asin(l5/l1))")
        elif not abs(self.l4) <= self.l1:
            raise InputError(f"GAMMA linkage: |l4|={abs(self.l4)!r} must not exceed l1={self.l1!r}")

    def _args(self):
        return int(self.joint), self.l1, self.l2, self.l3, self.l4, self.l5

    def cylinder(self, theta, theta_dot=0.0):
        """Piston position x [m], velocity ẋ [m/s] and lever arm dx/dθ [m/rad] for joint angle
        θ [rad] and rate θ̇ [rad/s] (arrays broadcast)."""
        shape, (th, thd) = broadcast_flat(as_array("theta", theta, minimum=None),
                                          as_array("theta_dot", theta_dot, minimum=None))
        res = np.array([cylinder_of_joint(*self._args(), th[i], thd[i]) for i in range(th.size)])
        res = res.reshape(-1, 3)
        return finish(res[:, 0], shape), finish(res[:, 1], shape), finish(res[:, 2], shape)

    def angle(self, x):
        """Joint angle θ [rad] for piston position x [m] (inverse map)."""
        xx = as_array("x", x, minimum=None)
        out = np.array([joint_of_cylinder(*self._args(), v) for v in np.ravel(xx)])
        return finish(out, xx.shape)

    def torque(self, force, theta):
        """Joint torque T = F dx/dθ [N·m] for piston force F [N] at θ [rad] (5.2.9 with sign)."""
        f = as_array("force", force, minimum=None)
        _, _, arm = self.cylinder(theta)
        return np.asarray(f) * arm if np.ndim(f) or np.ndim(arm) else float(f) * float(arm)


@dataclass(frozen=True)
class LinearLinkage:
    """The "protractor" alternative: x linear in θ between two calibrated end points (θ0, x0) and (θ1, x1)
    [rad, m], each within ±:data:`LINEAR_COORDINATE_LIMIT`, with |dx/dθ| in :data:`LINEAR_SLOPE_RANGE`."""

    theta0: float
    x0: float
    theta1: float
    x1: float

    def __post_init__(self) -> None:
        o, lim = "LinearLinkage", LINEAR_COORDINATE_LIMIT
        t0, x0, t1, x1 = (check_number(o, name, getattr(self, name), lo=-lim, hi=lim)
                          for name in ("theta0", "x0", "theta1", "x1"))
        if t1 == t0:
            raise InputError(f"{o}: theta0 and theta1 must differ ('theta0' = 'theta1' = {t0!r})")
        slope = (x1 - x0) / (t1 - t0)  # Python floats: beyond the float range it is inf, refused below
        lo, hi = LINEAR_SLOPE_RANGE
        if not lo <= abs(slope) <= hi:
            raise InputError(f"{o}: dx/dθ = ('x1' − 'x0') / ('theta1' − 'theta0') = {slope:g} m/rad, "
                             f"expected |dx/dθ| in [{lo:g}, {hi:g}]")

    @property
    def slope(self) -> float:
        """dx/dθ [m/rad]."""
        return (self.x1 - self.x0) / (self.theta1 - self.theta0)

    def cylinder(self, theta, theta_dot=0.0):
        th = np.asarray(theta, dtype=float)
        return self.x0 + self.slope * (th - self.theta0), self.slope * np.asarray(theta_dot), self.slope

    def angle(self, x):
        return self.theta0 + (np.asarray(x, dtype=float) - self.x0) / self.slope

    def torque(self, force, theta=None):
        return np.asarray(force, dtype=float) * self.slope
