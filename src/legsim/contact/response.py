"""Public contact response: per-contact state, forces, velocities and wrenches.

Thin validating wrappers over ``_response`` (Konyev Fig. 2.5 and Fig. 2.8 interface 4).
Sign conventions: a contact's normal points from geom 1 to geom 2; ``vrel`` is the velocity of
body 2 minus body 1 at the contact point [m/s]; the returned force acts on body 2 (body 1 gets
its negative) [N].
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, check_whole
from . import _response
from ._response import ContactState
from .laws import LawTable

__all__ = ["ContactState", "MAX_CONTACTS", "check_capacity", "make_state",
           "contact_forces", "free_body_velocities", "accumulate_wrenches"]


MAX_CONTACTS = 1_000_000
"""The most contacts a :func:`make_state` holds (its arrays then take ~200 MB)."""


def check_capacity(owner: str, capacity) -> int:
    """``capacity`` (a number of contacts) as an int in [1, :data:`MAX_CONTACTS`], else an
    :class:`InputError` naming ``owner``."""
    return check_whole(owner, "capacity", capacity, 1, MAX_CONTACTS)


def make_state(capacity=256):
    """Per-contact state (v_impact latch, anchor, onset time) for up to ``capacity`` contacts."""
    return _response.new_state(check_capacity("contact state", capacity))


def _count(contacts):
    return min(int(contacts.n[0]), contacts.depth.shape[0])


def contact_forces(contacts, laws, state, vrel, t, dt, force=None):
    """Contact forces (n, 3) [N] on body 2 of each contact; updates ``state``.

    Parameters
    ----------
    contacts : Contacts
        From :func:`legsim.contact.collide`.
    laws : LawTable
        The same table the scene was compiled with.
    state : ContactState
        From :func:`make_state`; must have at least the contact buffer's capacity.
    vrel : (capacity or n, 3) [m/s]
    t, dt : float [s]
    """
    if not isinstance(laws, LawTable):
        raise InputError(f"contact_forces 'laws' is a {type(laws).__name__}: expected a LawTable")
    cap = contacts.depth.shape[0]
    if state.vimp.shape[0] < cap:
        raise InputError(f"contact state capacity {state.vimp.shape[0]} < contact buffer capacity {cap}")
    vrel = np.ascontiguousarray(vrel, dtype=float)
    n = _count(contacts)
    if vrel.ndim != 2 or vrel.shape[1] != 3 or vrel.shape[0] < n:
        raise InputError(f"'vrel' has shape {vrel.shape}: expected ({n}, 3) or larger")
    force = np.zeros((max(n, 1), 3)) if force is None else force
    ncode, fcode, prm, _ = laws.arrays()
    _response.contact_forces(contacts, ncode, fcode, prm, state, vrel, float(t), float(dt), force)
    return force[:n]


def free_body_velocities(contacts, com, vel, omega, vrel=None):
    """Relative contact velocities (n, 3) [m/s] for free rigid bodies (CoM frames, world vectors)."""
    n = _count(contacts)
    vrel = np.zeros((max(n, 1), 3)) if vrel is None else vrel
    _response.free_body_velocities(
        contacts,
        np.ascontiguousarray(com, dtype=float),
        np.ascontiguousarray(vel, dtype=float),
        np.ascontiguousarray(omega, dtype=float),
        vrel,
    )
    return vrel[:n]


def accumulate_wrenches(contacts, force, com, wrench=None):
    """Body wrenches (nb, 6) = (force [N], torque about the CoM [N m]) from contact forces."""
    com = np.ascontiguousarray(com, dtype=float)
    wrench = np.zeros((com.shape[0], 6)) if wrench is None else wrench
    _response.accumulate_wrenches(contacts, np.ascontiguousarray(force, dtype=float), com, wrench)
    return wrench
