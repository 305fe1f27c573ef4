"""Compile, in a second process, the forward kinematics that a replay of a robot draws its poses with.

Importing this module calls :func:`legsim.multibody.dynamics.forward_kinematics` once on a one-body
model: the compiled kernel takes the model's flat buffers, so its argument types are those of every
model, and numba caches the overload that :mod:`.scene` (the HTML replay, ``legsim view``) then loads. On
a first run of a robot from parts, the second process (:func:`legsim._compiling.compile_in_background`)
imports it after the engine, while this process is still compiling the robot's hooks: the replay
written after the run no longer compiles it (~2 s, DESIGN.md "Compile time").
"""

from __future__ import annotations

from ..multibody.dynamics import forward_kinematics
from ..multibody.model import RobotBuilder

_builder = RobotBuilder("replay_prewarm")
_builder.add_body("body", "world", "free", mass=1.0)
_model = _builder.compile()
forward_kinematics(_model, _model.make_data(), _model.neutral())
