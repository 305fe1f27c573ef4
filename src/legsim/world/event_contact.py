"""Contact onset and separation as engine events: an articulated robot with point and sphere
contacts on a plane, joint PD control toward constant or tabled targets, as a
:class:`legsim.hybrid.Model` (issue 3: "contact onset and separation are events, so per-contact
state (impact velocity latch ...) is exact").

:class:`legsim.world.RobotWorld` steps at a fixed h and notices a new contact at the first step
inside it, so the impact velocity that Konyev's restitution law (2.20) latches is the velocity of
that step, O(h) late. Here every contact point of the model's geometries (a sphere's centre, a
capsule's segment ends, a box's corners: RobotWorld's multi-point manifolds on a plane) is a
sphere of radius r (0 for a corner) with two guards on its gap g = n . c − d − r to the ground
half-space {x : n . x <= d} (c the sphere centre): onset (g falling through 0) and separation (g
rising through 0). The engine locates each to its ``stop_precision``, the reset latches ``v_imp``
= −dg/dt at the located instant, and between events the force law is smooth, so an adaptive
integrator (``dp45``) keeps its order across contacts. The anchor spring (2.21) keeps its
per-contact anchor as a state (DESIGN.md "Contact: two paths").

This is the assembly layer's event contact path (:class:`legsim.assembly.Robot` with
``Contacts(path="event")``; one mechanism, the assembly's compiled hooks) with the joint law of
:func:`legsim.multibody.articulated_model` made of parts: per 1-DoF joint a
:class:`~legsim.assembly.PositionServo` ``kp (q_ref − q) − kd v`` whose target is ``q_ref`` (or
the rows of a target table, a :class:`~legsim.assembly.CommandTable`), and, where ``tau_ff + kd
v_ref`` is not zero, a :class:`~legsim.assembly.TorqueSource` ``ff_<joint>`` holding it: together
``kp (q_ref − q) + kd (v_ref − v) + tau_ff``. A controller sampled at a fixed rate is the
assembly's: build the :class:`~legsim.assembly.Robot` (:func:`event_contact_robot`) and run it
with a Python or :func:`legsim.assembly.compiled_controller` function.

Not here (use RobotWorld): cylinders and meshes; terrain other than one plane; body-body contact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..contact.laws import ContactLaw
from ..contact.shapes import Plane
from ..errors import InputError, as_floats, check_number, shown
from ..hybrid import Model as HybridModel
from ..multibody._joint_law import joint_gains
from ..multibody.model import Model
from . import _points

__all__ = ["event_contact_model", "event_contact_robot", "contact_points", "MAX_CONTACTS"]

MAX_CONTACTS = 62
"""Contacts are the bits of the engine's int64 mode."""


def contact_points(model: Model, geometries=None) -> list[tuple[str, int, np.ndarray, float]]:
    """The contact candidates of ``model``'s geometries on moving bodies (all of them, or those
    named in ``geometries``): (name, body index, centre in body axes (3,) m, radius m); see
    :func:`legsim.world._points.contact_points`."""
    return [pt[:4] for pt in _points.contact_points(model, geometries, "contact_points")]


def _target_table(targets, dt: float, na: int) -> np.ndarray:
    """The joint targets (K, na) [rad or m] sampled every ``dt`` [s] (checked, a number >= 0: > 0 here)."""
    tab = as_floats(targets)
    if tab.ndim != 2 or tab.shape[1] != na or tab.shape[0] < 1 or not np.all(np.isfinite(tab)):
        given = f"of shape {tab.shape}" if tab.size else f"= {shown(targets)}"
        raise InputError(f"event_contact_model: targets {given}, expected a finite "
                         f"table (K, {na}) (one column per joint of model.joint_names)")
    if not dt > 0.0:
        raise InputError(f"event_contact_model: dt_targets={dt!r} s, expected > 0 with a targets table")
    return tab


def _parts(name: str, value) -> tuple:
    """``actuators`` or ``sensors`` as a tuple (the robot checks each part)."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise InputError(f"event_contact_model: {name} = {shown(value)}, expected a sequence of "
                         "legsim.assembly parts")
    return tuple(value)


def event_contact_robot(model: Model, contact_law: ContactLaw, *, ground: Plane | None = None,
                        geometries=None, targets=None, dt_targets: float = 0.0, name: str | None = None,
                        kp=None, kd=None, q_ref=None, v_ref=None, tau_ff=None, actuators=(), sensors=(),
                        control_period: float = 1e-3):
    """The :class:`legsim.assembly.Robot` behind :func:`event_contact_model` (same arguments, q0 and
    v0 aside): the joint law's servos and feed-forward torque sources, driven by a command table (one
    row when the targets are constant), and the contacts on the event path. ``actuators``,
    ``sensors`` (sequences of parts) and ``control_period`` add parts for a controller of your own (its
    commands follow the table-driven ones in ``robot.actuator_names``, whose held commands it cannot
    change)."""
    from ..assembly import CommandTable, Contacts, PositionServo, Robot, TorqueSource

    if not isinstance(contact_law, ContactLaw):
        raise InputError(f"event_contact_model: contact_law={contact_law!r}, expected a ContactLaw")
    ground = Plane() if ground is None else ground
    if not isinstance(ground, Plane):
        raise InputError(f"event_contact_model: ground={ground!r}, expected a legsim.contact.Plane")
    if not isinstance(model, Model):
        raise InputError(f"event_contact_model: expected a legsim.multibody.Model, got "
                         f"{type(model).__name__}")
    points = _points.contact_points(model, geometries, "event_contact_model")
    if not points:
        among = "" if geometries is None else f" among geometries = {shown(geometries)}"
        raise InputError(f"event_contact_model: model {model.name!r} has no geometry on a moving body{among}")
    if len(points) > MAX_CONTACTS:
        raise InputError(f"event_contact_model: {len(points)} contact points (a sphere gives 1, a capsule "
                         f"2, a box 8), at most {MAX_CONTACTS}: leave some out with geometries=")
    joints = tuple(model.joint_names)
    dt_targets = check_number("event_contact_model", "dt_targets", dt_targets, lo=0.0)
    actuators, sensors = _parts("actuators", actuators), _parts("sensors", sensors)
    g_kp, g_kd, g_ref, g_vref, g_ff = joint_gains(model, "event_contact_model", kp=kp, kd=kd, q_ref=q_ref,
                                                  v_ref=v_ref, tau_ff=tau_ff)
    table = g_ref[None, :] if targets is None else _target_table(targets, dt_targets, len(joints))
    dt = 1.0 if targets is None else dt_targets
    ff = g_ff + g_kd * g_vref  # kp (q_ref - q) + kd (v_ref - v) + tau_ff = servo + (tau_ff + kd v_ref)
    servo = targets is not None or bool(np.any(g_kp) or np.any(g_kd))
    with_ff = [i for i in range(len(joints)) if ff[i] != 0.0]
    parts: list = [PositionServo(j, j, kp=g_kp[i], kd=g_kd[i]) for i, j in enumerate(joints) if servo]
    parts += [TorqueSource(f"ff_{joints[i]}", joints[i]) for i in with_ff]
    names = [p.name for p in parts]
    columns = [table] if servo else []
    columns += [np.full((table.shape[0], 1), ff[i]) for i in with_ff]
    return Robot(model, actuators=[*parts, *actuators], sensors=sensors, control_period=control_period,
                 contacts=Contacts(contact_law, ground=ground, geometries=geometries),
                 command_table=CommandTable(names, np.hstack(columns), dt) if names else None, name=name)


def event_contact_model(model: Model, contact_law: ContactLaw, *, ground: Plane | None = None,
                        geometries=None, targets=None, dt_targets: float = 0.0, name: str | None = None,
                        q0=None, v0=None, **gains) -> HybridModel:
    """The robot ``model`` with its geometries touching ``ground`` (default: the plane z = 0).

    Each sphere, capsule and box is reduced to its contact points as RobotWorld's multi-point
    manifolds do (sphere centre; capsule segment ends; box corners, radius 0), and every point is
    one event contact (spheres of that radius below).

    Parameters
    ----------
    model : legsim.multibody.Model (fixed or floating base) with sphere, capsule or box geometries.
    contact_law : ContactLaw (any normal and friction law).
    ground : Plane, optional.
    geometries : sequence of str, optional
        Names of the geometries that touch the ground (default: every geometry on a moving body;
        at most 62 contact points).
    targets, dt_targets : optional joint PD targets over time: a finite table (K, na) [rad or m] sampled
        every ``dt_targets`` s (a finite number, > 0 with a table) from t = 0, linearly interpolated and
        held beyond its ends (as :meth:`RobotWorld.set_targets`); replaces the constant ``q_ref``.
    gains : kp, kd, q_ref, v_ref, tau_ff (scalar, (na,) or {joint: value}) of
        :func:`legsim.multibody.articulated_model`'s joint law
        ``kp (q_ref − q) + kd (v_ref − v) + tau_ff`` [N m/rad, N m s/rad, rad, rad/s, N m]: finite
        numbers within ±1e12 (``legsim.multibody.hybrid_model.MAX_JOINT_LAW``), the gains >= 0.
    q0, v0 : (nq,), (nv,) default initial state (default: ``model.neutral()``, at rest).

    Returns
    -------
    legsim.hybrid.Model
        The assembled robot's model (:class:`legsim.assembly.Robot`): states ``q``, ``v``
        (articulated_model's names), then ``v_imp_<point>`` [m/s], then with the anchor-spring
        friction the anchor displacements ``s_<point>_x``, ``_y``, ``_z`` [m] (world axes), then
        the held commands ``u_<joint>``, ``u_ff_<joint>`` (unused: the command table drives them);
        mode bit k
        set while point k touches (guards ``touchdown_<point>``, ``liftoff_<point>``); outputs
        ``fn_<point>`` [N], ``fn_total`` [N], ``n_touching``, and the joint forces ``tau_<joint>``.
        Points are named after their geometry (``<geom>``, ``<geom>_end0``/``_end1``,
        ``<geom>_corner0``..``7``). The start mode has the bits of the points that begin at or
        below the ground (their ``v_imp`` = the approach rate then).
    """
    unknown = set(gains) - {"kp", "kd", "q_ref", "v_ref", "tau_ff"}
    if unknown:
        raise InputError(f"event_contact_model: unknown argument(s) {sorted(unknown)}; the joint law takes "
                         "kp, kd, q_ref, v_ref, tau_ff (a controller of your own: build the robot with "
                         "event_contact_robot(..., actuators=, sensors=), then robot.simulate)")
    robot = event_contact_robot(model, contact_law, ground=ground, geometries=geometries, targets=targets,
                                dt_targets=dt_targets, name=name, **gains)
    desc = f"{model.name}: {len(robot.point_names)} contact points on a plane, onset/separation as events"
    return replace(robot.model, state_defaults=robot.initial_state(q0, v0), sample_period=0.0,
                   description=desc)
