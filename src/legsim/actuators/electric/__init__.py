"""Electric actuation: brushed DC motor through a gear (:mod:`.dcmotor`), battery (:mod:`.battery`), and
ROTTO's PMSM drives: Park–Clarke, the 28 kHz current loop, averaged and exact PWM (:mod:`.pmsm`), the
linear actuator, set-point shaper and series-elastic force/position loops (:mod:`.drive_loops`)."""

from .battery import PeukertBattery, charge_fraction, lifetime
from .dcmotor import (
    RPM_PER_RAD_S,
    armature_current,
    armature_voltage,
    saturate_torque,
    speed_constant_rpm_per_volt,
    torque_limits,
)
from .drive_loops import rotto_actuator, sea_force_gains, shape_step
from .pmsm import PMSM, DriveController, DriveLoad, inverse_park_clarke, park_clarke, simulate_drive

__all__ = [
    "PeukertBattery",
    "charge_fraction",
    "lifetime",
    "RPM_PER_RAD_S",
    "armature_current",
    "armature_voltage",
    "saturate_torque",
    "speed_constant_rpm_per_volt",
    "torque_limits",
    "PMSM",
    "DriveController",
    "DriveLoad",
    "inverse_park_clarke",
    "park_clarke",
    "simulate_drive",
    "rotto_actuator",
    "sea_force_gains",
    "shape_step",
]
