"""Robots from parts: a multibody model plus declared actuators, sensors and contacts, compiled
into one hybrid-engine model by shared compiled hooks (no numba per robot), driven by a controller
written in Python at a fixed rate (DESIGN.md "Robots from parts").

>>> robot = Robot(model, actuators=[DCMotor("knee", "knee", resistance=2.0, torque_constant=0.02,
...                                          v_max=24.0, gear=50.0)],
...               sensors=[JointEncoder("enc", joints=["knee"])], contacts=Contacts(law))
>>> result = robot.simulate(1.0, lambda t, s: [12.0 * (0.5 - s.enc[0])])

The components and the controller views are plain Python and load with the package;
:class:`Robot` and :func:`compiled_controller` import the shared compiled hooks (compiled once per
machine, about a minute cold), so they load on first use, as does the hardware-file reader
(:func:`load_parts` reads a robot's parts without compiling anything: the viewer draws from them).
"""

import importlib

from . import components
from .components import *  # noqa: F403  (plain Python: the parts, with their own __all__)
from .controller import Controller, SensorReadings

_WHERE = {"Robot": "robot", "compiled_controller": "compiled", "load_hardware": "hardware",
          "load_parts": "hardware", "Parts": "hardware"}
__all__ = [*_WHERE, "Controller", "SensorReadings", *components.__all__]


def __getattr__(name: str):
    """:class:`Robot`, :func:`compiled_controller` and the hardware-file reader are imported on first
    use (module docstring)."""
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
