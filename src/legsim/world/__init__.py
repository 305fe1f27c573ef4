"""Articulated robots touching terrain: a compiled fixed-step world (issue 3 §2, §6).

:class:`RobotWorld` couples a :class:`legsim.multibody.Model` (fixed or floating base) with terrain
and contact laws of :mod:`legsim.contact`, and runs whole simulations in one compiled call
(semi-implicit Euler or RK4 at a fixed step, joint PD control, records in preallocated buffers).
"""

from .robot_world import METHODS, RobotWorld, WorldResult

__all__ = ["METHODS", "RobotWorld", "WorldResult"]
