"""Electric actuation: brushed DC motor through a gear (:mod:`.dcmotor`) and battery (:mod:`.battery`)."""

from .battery import PeukertBattery, charge_fraction, lifetime
from .dcmotor import (
    RPM_PER_RAD_S,
    armature_current,
    armature_voltage,
    saturate_torque,
    speed_constant_rpm_per_volt,
    torque_limits,
)

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
]
