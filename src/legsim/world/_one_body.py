"""A free sphere resting on the flat ground, the smallest RobotWorld: what the contact worlds' compile
drivers run (:mod:`._prewarm`, :mod:`._late_callees`). RobotWorld's loop takes named tuples of arrays
whose types do not depend on the robot, so this world's arguments have every world's types."""

from __future__ import annotations

from ..contact import ContactLaw, coulomb, kelvin_voigt
from ..multibody.model import RobotBuilder
from .robot_world import RobotWorld


def one_body_world() -> RobotWorld:
    """A 1 kg sphere (r 0.1 m) on a free joint, its centre 0.1 m above the ground, under a Kelvin–Voigt
    and Coulomb contact law."""
    b = RobotBuilder("robot_world_prewarm")
    b.add_body("body", "world", "free", mass=1.0, inertia=(0.004, 0.004, 0.004))
    b.add_geometry("body", "sphere", radius=0.1)
    model = b.compile()
    world = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(1e4, 10.0), coulomb(1.0, 0.01)))
    q = model.neutral()
    q[2] = 0.1
    world.reset(q=q)
    return world
