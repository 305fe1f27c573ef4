"""Contact onset and separation as engine events: an articulated robot with point and sphere
contacts on a plane as a :class:`legsim.hybrid.Model` (issue 3: "contact onset and separation are events, so
per-contact state (impact velocity latch ...) is exact").

:class:`legsim.world.RobotWorld` steps at a fixed h and notices a new contact at the first step
inside it, so the impact velocity that Konyev's restitution law (2.20) latches is the velocity of
that step, O(h) late. Here every contact point of the model's geometries (a sphere's centre, a
capsule's segment ends, a box's corners: RobotWorld's multi-point manifolds on a plane) is a
sphere of radius r (0 for a corner) with two guards on its gap g = n . c − d − r to the ground
half-space {x : n . x <= d} (c the sphere centre):
onset (g falling through 0) and separation (g rising through 0). The engine locates each to its
``stop_precision``, the reset latches ``v_imp`` = −dg/dt at the located instant, and between
events the force law is smooth, so an adaptive integrator (``dp45``) keeps its order across
contacts. Dynamics: ``legsim.multibody.hybrid_model`` (ABA, joint PD ``kp (q_ref − q) + kd (v_ref
− v)``, passive joint forces) plus the contact wrenches: normal law of the
:class:`legsim.contact.ContactLaw` ((2.1), (2.15), (2.20), Hunt–Crossley, Hertz, Kelvin–Voigt;
penetration p = −g, rate ṗ = −ġ) and a friction law (none, regularised Coulomb, Stribeck (2.18),
threshold (2.19), anchor spring (2.21)) on the tangential velocity of the contact point.

The anchor spring keeps its per-contact state exactly: the anchor is put at the contact point at
the located onset, and its displacement ``s`` is a state integrated with the rest,
``ds/dt = v_t`` while the force ``|c_v v_t + K_I s|`` is below mu F_n (sticking, no creep). Where
RobotWorld's per-step law slides the anchor at once when the force saturates, here it slides at
the rate of the overstress ``(|c_v v_t + K_I s| − mu F_n)^+ / c`` (c = (2.21)'s viscous slope at
rest), which keeps the right-hand side continuous: no stick/slip events, no chattering
(``contact._laws.anchor_rate``; DESIGN.md "Contact: two paths" for how the two paths differ).

A controller of the user's (:func:`joint_controller`, compiled, fixed signature) can run at a fixed
control period through the engine's ``sample`` hook; its joint torques are held between samples
(states ``u_<joint>``) and added to the PD law.

Not here (use RobotWorld): cylinders and meshes; terrain other than one plane; body-body contact.
"""

from __future__ import annotations

from dataclasses import replace

import numba as nb
import numpy as np

from ..contact import _laws as LW
from ..contact.laws import ContactLaw, FrictionLaw
from ..contact.shapes import Plane
from ..errors import InputError
from ..hybrid import Direction, Guard, Placement
from ..hybrid import Model as HybridModel
from ..hybrid import signatures as hs
from ..multibody.hybrid_model import articulated_model
from ..multibody.model import Model
from . import _event_contact as H
from . import _points

__all__ = ["event_contact_model", "contact_points", "joint_controller", "CONTROLLER_SIG", "MAX_CONTACTS"]

MAX_CONTACTS = 62
"""Contacts are the bits of the engine's int64 mode."""

_ARR = nb.types.float64[::1]
CONTROLLER_SIG = nb.types.void(nb.types.float64, _ARR, _ARR, _ARR, _ARR, _ARR)
"""``controller(t, q, v, fn, params, tau) -> None``: t [s], q (nq,), v (nv,) (multibody
conventions), ``fn`` (nc,) the normal force of every contact point [N] (0 when open; the order
of :func:`contact_points`), ``params`` (ncp,) the controller's own parameters, ``tau`` (na,) the
joint torques to hold until the next sample [N m or N] (arrives as the previous sample's values),
in ``joint_names`` order."""


def joint_controller(fn):
    """Compile a joint-torque controller for :func:`event_contact_model` (numba, signature
    :data:`CONTROLLER_SIG`, cached on disk). It runs at the model's control period, in compiled
    code, at exactly ``t = k * control_period``; its torques are added to the PD law's."""
    return nb.njit(CONTROLLER_SIG, cache=True, nogil=True)(fn)


def _sample_hook(controller):
    """The model's ``sample`` hook calling ``controller`` (compiled per model: a closure)."""

    def sample(t, x, p, mode, k, x_new):
        m, d, nq, nv, na, nc, fext, fn, sdot = H.evaluate_contacts(p, x, mode)
        ou = H.state_offsets(p, nq, nv, nc)[1]
        oq = H.controller_offset(p)
        ncp = int(p[oq + 1])
        controller(t, x[:nq], x[nq:nq + nv], fn, p[oq + 2:oq + 2 + ncp], x_new[ou:ou + na])
        return mode

    return hs.sample(sample)


def contact_points(model: Model, geometries=None) -> list[tuple[str, int, np.ndarray, float]]:
    """The contact candidates of ``model``'s geometries on moving bodies (all of them, or those
    named in ``geometries``): (name, body index, centre in body axes (3,) m, radius m); see
    :func:`legsim.world._points.contact_points`."""
    return [pt[:4] for pt in _points.contact_points(model, geometries, "event_contact_model")]


def _target_table(targets, dt, na: int) -> np.ndarray:
    if targets is None:
        return np.zeros((0, na))
    tab = np.array(targets, dtype=float)
    if tab.ndim != 2 or tab.shape[1] != na or tab.shape[0] < 1 or not np.all(np.isfinite(tab)):
        raise InputError(f"event_contact_model: targets of shape {np.shape(targets)}, expected a finite "
                         f"table (K, {na}) (one column per joint of model.joint_names)")
    if not (np.isfinite(dt) and dt > 0.0):
        raise InputError(f"event_contact_model: dt_targets={dt!r} s, expected > 0 with a targets table")
    return tab


def _controller_params(controller, period, params) -> np.ndarray:
    if controller is None:
        return np.zeros(0)
    sigs = getattr(controller, "signatures", None)
    if sigs is None or CONTROLLER_SIG.args not in [tuple(sg) for sg in sigs]:
        raise InputError(f"event_contact_model: controller={controller!r}, expected a function compiled "
                         f"with @legsim.world.joint_controller (signature {CONTROLLER_SIG})")
    if not (np.isfinite(period) and period > 0.0):
        raise InputError(f"event_contact_model: control_period={period!r} s, expected > 0")
    cp = np.array(params, dtype=float).ravel()
    if not np.all(np.isfinite(cp)):
        raise InputError(f"event_contact_model: controller_params={params!r}, expected finite numbers")
    return cp


def event_contact_model(model: Model, contact_law: ContactLaw, *, ground: Plane | None = None,
                        geometries=None, targets=None, dt_targets: float = 0.0, controller=None,
                        control_period: float = 1e-3, controller_params=(), name: str | None = None,
                        **gains) -> HybridModel:
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
    targets, dt_targets : optional joint PD targets over time: a table (K, na) [rad or m] sampled
        every ``dt_targets`` s from t = 0, linearly interpolated and held beyond its ends (as
        :meth:`RobotWorld.set_targets`); replaces the constant ``q_ref``.
    controller : a :func:`joint_controller`, optional
        Compiled joint-torque controller, sampled every ``control_period`` s (zero-order hold;
        the model's ``sample_period``, so ``simulate`` runs it without further options); its
        torques add to the PD law (set kp = kd = 0 for pure torque control). ``controller_params``
        (ncp,) reach it as ``params``.
    gains : kp, kd, q_ref, v_ref, tau_ff, q0, v0 of :func:`legsim.multibody.articulated_model`.

    Returns
    -------
    legsim.hybrid.Model
        States ``q``, ``v`` (articulated_model's names), then ``v_imp_<point>`` [m/s], then with
        the anchor-spring friction the anchor displacements ``s_<point>_x``, ``_y``, ``_z`` [m]
        (world axes), then with a controller the held torques ``u_<joint>``; mode bit k set while
        point k touches (guards ``touchdown_<point>``, ``liftoff_<point>``); outputs
        ``fn_<point>`` [N], ``fn_total`` [N], ``n_touching``.
        Points are named after their geometry (``<geom>``, ``<geom>_end0``/``_end1``,
        ``<geom>_corner0``..``7``). The start mode has the bits of the points that begin at or
        below the ground (their ``v_imp`` = the approach rate then).
    """
    if not isinstance(contact_law, ContactLaw):
        raise InputError(f"event_contact_model: contact_law={contact_law!r}, expected a ContactLaw")
    ground = Plane() if ground is None else ground
    if not isinstance(ground, Plane):
        raise InputError(f"event_contact_model: ground={ground!r}, expected a legsim.contact.Plane")
    base = articulated_model(model, name=name, **gains)
    points = contact_points(model, geometries)
    if not points:
        raise InputError(f"event_contact_model: model {model.name!r} has no geometry on a moving body")
    if len(points) > MAX_CONTACTS:
        raise InputError(f"event_contact_model: {len(points)} contact points (a sphere gives 1, a capsule "
                         f"2, a box 8), at most {MAX_CONTACTS}: leave some out with geometries=")
    nc = len(points)
    block = [float(nc), *ground.normal, ground.offset, float(int(contact_law.normal.law)),
             float(int(contact_law.friction.law)), *contact_law.params]
    for _, body, centre, radius in points:
        block += [float(body), *centre, radius]
    table = _target_table(targets, dt_targets, len(model.joint_names))
    block += [float(table.shape[0]), float(dt_targets), *table.ravel()]
    joints = list(model.joint_names)
    cparams = _controller_params(controller, control_period, controller_params)
    nu = len(joints) if controller is not None else 0
    block += [float(nu), float(cparams.size), *cparams]
    names = [pt[0] for pt in points]
    block_names = (["c_n", "c_normal_x", "c_normal_y", "c_normal_z", "c_offset", "c_normal_law",
                    "c_friction_law"] + [f"c_law_{i}" for i in range(LW.NPRM)]
                   + [f"c_{n}_{f}" for n in names for f in ("body", "x", "y", "z", "radius")]
                   + ["target_rows", "target_dt"] + [f"target_{i}" for i in range(table.size)]
                   + ["controller_nu", "controller_ncp"] + [f"controller_p{i}" for i in range(cparams.size)])
    nqv = model.nq + model.nv
    ns = 3 * nc if contact_law.friction.law == FrictionLaw.ANCHOR else 0

    def start(x, p):
        x = base.init_partition(x[:nqv], p)[0] if base.init_partition else x[:nqv]
        x = np.concatenate([x, np.zeros(nc + ns + nu)])
        gr = H.gaps_and_rates(p, x)[0]
        mode = 0
        for k in range(nc):
            if gr[k, 0] <= 0.0:
                mode |= 1 << k
                x[nqv + k] = max(gr[k, 1], 0.0)
        return x, mode

    return replace(
        base,
        state_names=(*base.state_names, *(f"v_imp_{n}" for n in names),
                     *(f"s_{n}_{a}" for n in names for a in "xyz" if ns),
                     *(f"u_{j}" for j in joints if nu)),
        state_defaults=np.concatenate([base.state_defaults, np.zeros(nc + ns + nu)]),
        param_names=(*base.param_names, *block_names),
        param_defaults=np.concatenate([base.param_defaults, np.asarray(block, dtype=float)]),
        guards=tuple(g for n in names for g in (Guard(f"touchdown_{n}", Direction.FALLING, Placement.RIGHT),
                                                  Guard(f"liftoff_{n}", Direction.RISING, Placement.RIGHT))),
        output_names=(*(f"fn_{n}" for n in names), "fn_total", "n_touching"),
        vector_field=H.contact_field,
        guard_values=H.contact_guards,
        reset=H.contact_reset,
        outputs=H.contact_outputs,
        sample=_sample_hook(controller) if controller is not None else hs.no_sample,
        sample_period=float(control_period) if controller is not None else 0.0,
        init_partition=start,
        mode_name=lambda mode: "touching: " + (",".join(n for k, n in enumerate(names) if (mode >> k) & 1)
                                             or "none"),
        description=f"{base.description}; {nc} contact points on a plane, onset/separation as events",
    )
