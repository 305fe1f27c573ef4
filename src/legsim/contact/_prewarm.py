"""Compile :class:`legsim.contact.RigidWorld`'s fixed-step loop ahead (``legsim warmup``, family ``contact``,
through :mod:`legsim.world._prewarm`).

Importing this module runs ten steps of a sphere dropped on a plane: the loop
(:func:`._bodies.run`) takes the bodies, the scene and the contact buffers as arrays and named tuples
whose types do not depend on the world, so this compiles the overload that every RigidWorld run loads
(every shape and law is a branch of it). Its collision and contact-force kernels are also
:class:`legsim.world.RobotWorld`'s, which then loads them instead of compiling them.
"""

from __future__ import annotations

from ._one_sphere import sphere_world

sphere_world().simulate(1e-4, 1e-5)
