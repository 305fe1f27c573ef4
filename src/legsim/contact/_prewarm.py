"""Compile :class:`legsim.contact.RigidWorld`'s fixed-step loop ahead (``legsim warmup``, family ``contact``,
through :mod:`legsim.world._prewarm`).

Importing this module runs ten steps of a sphere dropped on a plane: the loop
(:func:`._bodies.run`) takes the bodies, the scene and the contact buffers as arrays and named tuples
whose types do not depend on the world, so this compiles the overload that every RigidWorld run loads
(every shape and law is a branch of it). Its collision and contact-force kernels are also
:class:`legsim.world.RobotWorld`'s, which then loads them instead of compiling them.
"""

from __future__ import annotations

from .bodies import RigidWorld
from .laws import ContactLaw, LawTable, coulomb, kelvin_voigt
from .shapes import Plane, Sphere

_world = RigidWorld(LawTable(1, ContactLaw(kelvin_voigt(1e4, 10.0), coulomb(0.5))))
_world.add_solid(Sphere(0.05), mass=0.2, pos=(0.0, 0.0, 0.05))
_world.scene.add(Plane())
_world.simulate(1e-4, 1e-5)
