"""Controllers and control analysis shared by the robots: control variables and Coordinated Jacobian
Transpose Control (:mod:`.variables`, :mod:`.cjtc`; CJTC digest §2–§3), the Gruebler/Kutzbach mobility
count and the Extended Mobility Analysis (:mod:`.mobility`).
"""

from .cjtc import (
    CJTC,
    CJTCState,
    ConstrainedChain,
    compliant_equilibrium,
    environment_is_rigid,
    solve_configuration,
)
from .variables import (
    CentreOfMass,
    ControlVariable,
    FunctionVariable,
    JointAngle,
    Kinematics,
    Orientation,
    PointCoordinate,
    PotentialEnergy,
    StabilityMargin,
    force_offset,
)

__all__ = ["CJTC", "CJTCState", "ConstrainedChain", "compliant_equilibrium", "environment_is_rigid",
           "solve_configuration",
           "Kinematics", "ControlVariable", "PointCoordinate", "Orientation", "JointAngle", "CentreOfMass",
           "PotentialEnergy", "StabilityMargin", "FunctionVariable", "force_offset"]
