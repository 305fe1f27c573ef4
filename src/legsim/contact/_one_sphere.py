"""A sphere dropped on a plane, the smallest RigidWorld: what the rigid world's compile drivers run
(:mod:`._prewarm`, :mod:`._late_callees`). Its loop takes the bodies, the scene and the contact buffers as
arrays and named tuples whose types do not depend on the world, so this world's have every world's types."""

from __future__ import annotations

from .bodies import RigidWorld
from .laws import ContactLaw, LawTable, coulomb, kelvin_voigt
from .shapes import Plane, Sphere


def sphere_world() -> RigidWorld:
    """A 0.2 kg sphere (r 0.05 m) resting on a plane, under a Kelvin–Voigt and Coulomb law."""
    world = RigidWorld(LawTable(1, ContactLaw(kelvin_voigt(1e4, 10.0), coulomb(0.5))))
    world.add_solid(Sphere(0.05), mass=0.2, pos=(0.0, 0.0, 0.05))
    world.scene.add(Plane())
    return world
