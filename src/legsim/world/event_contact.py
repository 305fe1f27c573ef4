"""Contact onset and separation as engine events: an articulated robot with sphere contacts on a
plane as a :class:`legsim.hybrid.Model` (issue 3: "contact onset and separation are events, so
per-contact state (impact velocity latch ...) is exact").

:class:`legsim.world.RobotWorld` steps at a fixed h and notices a new contact at the first step
inside it, so the impact velocity that Konyev's restitution law (2.20) latches is the velocity of
that step, O(h) late. Here every sphere geometry of the model gets two guards on its gap
g = n . c − d − r to the ground half-space {x : n . x <= d} (c the sphere centre, r its radius):
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
(``_event_contact.anchor_rate``; DESIGN.md "Contact: two paths" for how the two paths differ).

Not here (use RobotWorld): shapes other than spheres; terrain other than one plane.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..contact import _laws as LW
from ..contact.laws import ContactLaw, FrictionLaw
from ..contact.shapes import Plane
from ..errors import InputError
from ..hybrid import Direction, Guard, Placement
from ..hybrid import Model as HybridModel
from ..multibody.hybrid_model import articulated_model
from ..multibody.model import Model
from . import _event_contact as H

__all__ = ["event_contact_model", "contact_spheres", "MAX_CONTACTS"]

MAX_CONTACTS = 62
"""Contacts are the bits of the engine's int64 mode."""


def contact_spheres(model: Model) -> list[tuple[str, int, np.ndarray, float]]:
    """The sphere geometries of ``model`` on moving bodies: (name, body index, centre in body
    axes (3,) m, radius m)."""
    out = []
    for g in model.geometries:
        if g.shape != "sphere" or g.body == model.body_names[0]:
            continue
        out.append((g.name, model.body_id(g.body), np.asarray(g.p, dtype=float).copy(),
                    float(g.params["radius"])))
    return out


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


def event_contact_model(model: Model, contact_law: ContactLaw, *, ground: Plane | None = None,
                        targets=None, dt_targets: float = 0.0, name: str | None = None,
                        **gains) -> HybridModel:
    """The robot ``model`` with its sphere geometries touching ``ground`` (default: the plane z = 0).

    Parameters
    ----------
    model : legsim.multibody.Model (fixed or floating base) with sphere geometries.
    contact_law : ContactLaw (any normal and friction law).
    ground : Plane, optional.
    targets, dt_targets : optional joint PD targets over time: a table (K, na) [rad or m] sampled
        every ``dt_targets`` s from t = 0, linearly interpolated and held beyond its ends (as
        :meth:`RobotWorld.set_targets`); replaces the constant ``q_ref``.
    gains : kp, kd, q_ref, v_ref, tau_ff, q0, v0 of :func:`legsim.multibody.articulated_model`.

    Returns
    -------
    legsim.hybrid.Model
        States ``q``, ``v`` (articulated_model's names), then ``v_imp_<sphere>`` [m/s], then with
        the anchor-spring friction the anchor displacements ``s_<sphere>_x``, ``_y``, ``_z`` [m]
        (world axes); mode bit k
        set while sphere k touches (guards ``touchdown_<sphere>``, ``liftoff_<sphere>``); outputs
        ``fn_<sphere>`` [N], ``fn_total`` [N], ``n_touching``. The start mode has the bits of the
        spheres that begin at or below the ground (their ``v_imp`` = the approach rate then).
    """
    if not isinstance(contact_law, ContactLaw):
        raise InputError(f"event_contact_model: contact_law={contact_law!r}, expected a ContactLaw")
    ground = Plane() if ground is None else ground
    if not isinstance(ground, Plane):
        raise InputError(f"event_contact_model: ground={ground!r}, expected a legsim.contact.Plane")
    base = articulated_model(model, name=name, **gains)
    spheres = contact_spheres(model)
    if not spheres:
        raise InputError(f"event_contact_model: model {model.name!r} has no sphere geometry on a "
                         f"moving body")
    if len(spheres) > MAX_CONTACTS:
        raise InputError(f"event_contact_model: {len(spheres)} spheres, at most {MAX_CONTACTS}")
    nc = len(spheres)
    block = [float(nc), *ground.normal, ground.offset, float(int(contact_law.normal.law)),
             float(int(contact_law.friction.law)), *contact_law.params]
    for _, body, centre, radius in spheres:
        block += [float(body), *centre, radius]
    table = _target_table(targets, dt_targets, len(model.joint_names))
    block += [float(table.shape[0]), float(dt_targets), *table.ravel()]
    names = [s[0] for s in spheres]
    block_names = (["c_n", "c_normal_x", "c_normal_y", "c_normal_z", "c_offset", "c_normal_law",
                    "c_friction_law"] + [f"c_law_{i}" for i in range(LW.NPRM)]
                   + [f"c_{n}_{f}" for n in names for f in ("body", "x", "y", "z", "radius")]
                   + ["target_rows", "target_dt"] + [f"target_{i}" for i in range(table.size)])
    nqv = model.nq + model.nv
    ns = 3 * nc if contact_law.friction.law == FrictionLaw.ANCHOR else 0

    def start(x, p):
        x = base.init_partition(x[:nqv], p)[0] if base.init_partition else x[:nqv]
        x = np.concatenate([x, np.zeros(nc + ns)])
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
                     *(f"s_{n}_{a}" for n in names for a in "xyz" if ns)),
        state_defaults=np.concatenate([base.state_defaults, np.zeros(nc + ns)]),
        param_names=(*base.param_names, *block_names),
        param_defaults=np.concatenate([base.param_defaults, np.asarray(block, dtype=float)]),
        guards=tuple(g for n in names for g in (Guard(f"touchdown_{n}", Direction.FALLING, Placement.RIGHT),
                                                  Guard(f"liftoff_{n}", Direction.RISING, Placement.RIGHT))),
        output_names=(*(f"fn_{n}" for n in names), "fn_total", "n_touching"),
        vector_field=H.contact_field,
        guard_values=H.contact_guards,
        reset=H.contact_reset,
        outputs=H.contact_outputs,
        init_partition=start,
        mode_name=lambda mode: "touching: " + (",".join(n for k, n in enumerate(names) if (mode >> k) & 1)
                                             or "none"),
        description=f"{base.description}; {nc} sphere contacts on a plane, onset/separation as events",
    )
