"""Pneumatic actuation: orifice flow, chambers, valves, friction, linkages, supply tank.

Sources: Daepp (2011) CRR quadruped thesis (digest ``pneumatic-quadruped.md``) and Wagenknecht
(2009) RATS thesis (digest ``rats-spherical-robot.md`` §2.4–§2.5). SI units inside; see
:mod:`.units` for psi/psig/psia, lbf and inch helpers.
"""

from .actuator import STATE_NAMES, HeatModel, PneumaticActuator, stack_rows
from .batch import ActuatorBatch
from .cylinder import Cylinder, bimba_rig
from .flow import (
    cv_mass_flow,
    flow_function,
    iso6358_mass_flow,
    orifice_mass_flow,
    signed_mass_flow,
)
from .friction import Friction, FrictionModel, friction_force, stribeck_tanh_source, viscous_source
from .gas import AIR, NITROGEN, Gas
from .linkage import Joint, JointLinkage, LinearLinkage
from .solenoid import RUBBER_SEAT, SPOOL_SLEEVE, CommandQueue, SolenoidValve
from .tank import SupplyTank
from .valves import (
    ProportionalValve,
    ValveModel,
    VoltageReference,
    mpye5_fitted,
    mpye5_simple,
    mpye5_underlapped,
)

__all__ = [
    "AIR", "NITROGEN", "Gas", "orifice_mass_flow", "signed_mass_flow", "flow_function",
    "iso6358_mass_flow", "cv_mass_flow", "Cylinder", "bimba_rig", "HeatModel", "PneumaticActuator",
    "ActuatorBatch", "stack_rows", "STATE_NAMES", "Friction", "FrictionModel", "friction_force",
    "stribeck_tanh_source", "viscous_source", "ProportionalValve", "ValveModel", "VoltageReference",
    "mpye5_fitted", "mpye5_simple", "mpye5_underlapped", "SolenoidValve", "CommandQueue",
    "SPOOL_SLEEVE", "RUBBER_SEAT", "SupplyTank", "Joint", "JointLinkage", "LinearLinkage",
]
