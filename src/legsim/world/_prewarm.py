"""Compile the contact worlds' fixed-step loops ahead (``legsim warmup``, family ``contact``).

Importing this module first compiles :class:`legsim.contact.RigidWorld`'s loop
(:mod:`legsim.contact._prewarm`), whose collision and contact-force kernels are also RobotWorld's, so
they compile once. It then runs one RK4 step of a one-body robot, a free sphere on the flat ground.
RobotWorld's loop (:func:`._kernels.run`) takes the model, its data, the collision model and the
contact and world buffers as named tuples of arrays whose types do not depend on the robot: this
compiles the overload that every RobotWorld run loads (the laikago with mesh hulls, the hexapod
benchmark). Both integrators and every terrain and collision shape are branches of that one loop.
With an empty cache on a 2-core machine: 39 s, then 49 s (DESIGN.md "Compile time").
"""

from __future__ import annotations

from ..contact import ContactLaw, _prewarm, coulomb, kelvin_voigt  # noqa: F401 - _prewarm compiles RigidWorld
from ..multibody.model import RobotBuilder
from .robot_world import RobotWorld

_builder = RobotBuilder("robot_world_prewarm")
_builder.add_body("body", "world", "free", mass=1.0, inertia=(0.004, 0.004, 0.004))
_builder.add_geometry("body", "sphere", radius=0.1)
_model = _builder.compile()
_world = RobotWorld(_model, contact_law=ContactLaw(kelvin_voigt(1e4, 10.0), coulomb(1.0, 0.01)))
_q = _model.neutral()
_q[2] = 0.1
_world.reset(q=_q)
_world.simulate(1e-3, 1e-3, method="rk4")
