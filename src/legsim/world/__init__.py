"""Articulated robots touching terrain (issue 3 §2, §6).

:class:`RobotWorld` couples a :class:`legsim.multibody.Model` (fixed or floating base) with terrain
and contact laws of :mod:`legsim.contact`, and runs whole simulations in one compiled call
(semi-implicit Euler or RK4 at a fixed step, joint PD control, records in preallocated buffers).
:func:`event_contact_model` makes the same robot's contacts on a plane (spheres, capsule ends, box
corners) a hybrid-engine model whose contact onsets and separations are located events (exact
impact-velocity latch and friction anchor, adaptive integration across contacts): the assembly
layer's event path (:class:`legsim.assembly.Robot`), with the joint PD law as its parts
(:func:`event_contact_robot` for adding a controller).
"""

from .robot_world import METHODS, RobotWorld, WorldResult

__all__ = ["METHODS", "RobotWorld", "WorldResult", "event_contact_model", "event_contact_robot"]


def __getattr__(name: str):
    """``event_contact_model`` and ``event_contact_robot`` load on first use (PEP 562): they build
    assembled robots, whose shared hooks compile on first use (about a minute with an empty numba
    cache), which a RobotWorld user should not wait for."""
    if name in ("event_contact_model", "event_contact_robot"):
        from . import event_contact

        return getattr(event_contact, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
