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

from ..contact import _prewarm  # noqa: F401 - compiles RigidWorld
from ._one_body import one_body_world

one_body_world().simulate(1e-3, 1e-3, method="rk4")
