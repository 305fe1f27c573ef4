"""Robots from parts: a multibody model plus declared actuators, sensors and contacts, compiled
into one hybrid-engine model by shared compiled hooks (no numba per robot), driven by a controller
written in Python at a fixed rate (DESIGN.md "Robots from parts").

>>> robot = Robot(model, actuators=[DCMotor("knee", "knee", resistance=2.0, torque_constant=0.02,
...                                          v_max=24.0, gear=50.0)],
...               sensors=[JointEncoder("enc", joints=["knee"])], contacts=Contacts(law))
>>> result = robot.simulate(1.0, lambda t, s: [12.0 * (0.5 - s.enc[0])])
"""

from .compiled import compiled_controller
from .components import (
    IMU,
    AirSupply,
    Battery,
    ChamberPressure,
    ContactForce,
    Contacts,
    DCMotor,
    JointEncoder,
    JointVelocity,
    Measurement,
    MotorCurrent,
    Obstacle,
    PneumaticCylinder,
    PositionServo,
    SolenoidCylinder,
    TorqueSource,
    VelocityServo,
)
from .controller import Controller, SensorReadings
from .hardware import load_hardware
from .robot import Robot

__all__ = ["Robot", "load_hardware", "compiled_controller", "SensorReadings", "Controller",
           "TorqueSource", "PositionServo", "VelocityServo", "DCMotor", "Measurement", "JointEncoder",
           "JointVelocity", "IMU", "ContactForce", "MotorCurrent", "Contacts", "Obstacle",
           "PneumaticCylinder",
           "ChamberPressure", "AirSupply", "SolenoidCylinder", "Battery"]
