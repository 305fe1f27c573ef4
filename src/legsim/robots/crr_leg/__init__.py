"""The pneumatic 3-DoF CRR leg (Daepp 2011, Ch. 5): multibody leg + MPYE-5 valves + cylinders."""

from .geometry import capsule_inertia, crr_leg_bodies, default_linkages, design_linkage
from .leg import DEFAULT_GAINS, JOINTS, JointReference, LegBench, LegRun, crr_leg_model
from .prismatic import (
    CylinderInertia,
    bimba_cylinder_inertia,
    crr_leg_with_cylinders,
    default_cylinder_inertias,
    massless_cylinders,
)
from .recorded import knots_from_samples, references_from_csv
from .walking import (
    WalkingPath,
    foot_position,
    inverse_kinematics,
    lag_compensated_rmse,
    plot_tracking,
    tracking_rmse,
    walking_references,
)

__all__ = ["capsule_inertia", "crr_leg_bodies", "default_linkages", "design_linkage", "DEFAULT_GAINS",
           "JOINTS", "JointReference", "LegBench", "LegRun", "crr_leg_model", "knots_from_samples",
           "references_from_csv", "WalkingPath", "CylinderInertia", "bimba_cylinder_inertia",
           "crr_leg_with_cylinders", "default_cylinder_inertias", "massless_cylinders",
           "foot_position", "inverse_kinematics", "lag_compensated_rmse", "plot_tracking",
           "tracking_rmse", "walking_references"]
