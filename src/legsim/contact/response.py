"""Public contact response: per-contact state, forces, velocities and wrenches.

Thin validating wrappers over ``_response`` (Konyev Fig. 2.5 and Fig. 2.8 interface 4).
Sign conventions: a contact's normal points from geom 1 to geom 2; ``vrel`` is the velocity of
body 2 minus body 1 at the contact point [m/s]; the returned force acts on body 2 (body 1 gets
its negative) [N]. Every array is checked (shape, finite, range) before the compiled kernels index
it: positions within ±MAX_LENGTH [m], velocities within ±MAX_SPEED [m/s or rad/s], forces within
±MAX_FORCE [N]; an output buffer given is a writable float64 array with a row per contact or body.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_number, check_whole, shown
from . import _response
from ._buffer import Contacts
from ._response import ContactState
from .impulse import MAX_SPEED
from .laws import LawTable
from .shapes import MAX_LENGTH
from .stepping import MAX_DURATION

__all__ = ["ContactState", "MAX_CONTACTS", "MAX_FORCE", "check_capacity", "make_state",
           "contact_forces", "free_body_velocities", "accumulate_wrenches"]


MAX_CONTACTS = 1_000_000
"""The most contacts a :func:`make_state` holds (its arrays then take ~200 MB)."""

MAX_FORCE = 1e200
"""The largest contact force component [N] :func:`accumulate_wrenches` takes: its torques, a force times a
lever within 2 sqrt(3) MAX_LENGTH, summed over up to MAX_CONTACTS contacts, stay finite."""


def check_capacity(owner: str, capacity) -> int:
    """``capacity`` (a number of contacts) as an int in [1, :data:`MAX_CONTACTS`], else an
    :class:`InputError` naming ``owner``."""
    return check_whole(owner, "capacity", capacity, 1, MAX_CONTACTS)


def make_state(capacity=256):
    """Per-contact state (v_impact latch, anchor, onset time) for up to ``capacity`` contacts."""
    return _response.new_state(check_capacity("contact state", capacity))


def _count(owner: str, contacts) -> int:
    """The number of contacts stored in the buffer ``contacts`` (from :func:`~legsim.contact.collide`)."""
    if not isinstance(contacts, Contacts):
        raise InputError(f"{owner}: 'contacts' = {shown(contacts)}, expected a contact buffer "
                         "(legsim.contact.make_contacts, filled by collide)")
    return min(int(contacts.n[0]), contacts.depth.shape[0])


def _bodies(contacts, n: int) -> int:
    """How many bodies the first ``n`` contacts name (1 + the largest body index; the world is -1)."""
    return int(contacts.body[:n].max()) + 1 if n else 0


def _rows(owner: str, name: str, value, rows: int, cols: int, bound: float):
    """``value`` as a C-contiguous float (m, ``cols``) array, m >= ``rows``, entries finite within
    ±``bound``; else an InputError naming ``name``."""
    a = as_floats(value)
    if a.ndim != 2 or a.shape[1] != cols or a.shape[0] < rows or not np.all(np.abs(a) <= bound):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected ({rows} or more, {cols}) finite "
                         f"numbers within ±{bound:g}")
    return np.ascontiguousarray(a)


def _buffer(owner: str, name: str, value, rows: int, cols: int):
    """An output buffer: a writable C-contiguous float64 (m, ``cols``) array with m >= ``rows``."""
    if not (isinstance(value, np.ndarray) and value.dtype == np.float64 and value.ndim == 2
            and value.shape[1] == cols and value.shape[0] >= rows and value.flags.writeable
            and value.flags.c_contiguous):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected None or a writable float64 "
                         f"array ({rows} or more, {cols})")
    return value


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
    vrel : (capacity or n, 3) [m/s], within ±MAX_SPEED
    t, dt : float [s]: t finite, dt in [0, MAX_DURATION] (the anchor's integration step)
    force : optional output buffer (n or more, 3) float64
    """
    o = "contact_forces"
    n = _count(o, contacts)
    if not isinstance(laws, LawTable):
        raise InputError(f"contact_forces 'laws' is a {type(laws).__name__}: expected a LawTable")
    if not isinstance(state, ContactState):
        raise InputError(f"{o}: 'state' = {shown(state)}, expected a ContactState (make_state)")
    cap = contacts.depth.shape[0]
    if state.vimp.shape[0] < cap:
        raise InputError(f"contact state capacity {state.vimp.shape[0]} < contact buffer capacity {cap}")
    vrel = _rows(o, "vrel", vrel, n, 3, MAX_SPEED)
    t = check_number(o, "t", t)
    dt = check_number(o, "dt", dt, lo=0.0, hi=MAX_DURATION)
    force = np.zeros((max(n, 1), 3)) if force is None else _buffer(o, "force", force, n, 3)
    ncode, fcode, prm, _ = laws.arrays()
    _response.contact_forces(contacts, ncode, fcode, prm, state, vrel, t, dt, force)
    return force[:n]


def free_body_velocities(contacts, com, vel, omega, vrel=None):
    """Relative contact velocities (n, 3) [m/s] for free rigid bodies (CoM frames, world vectors):
    ``com`` (nb, 3) [m] within ±MAX_LENGTH, ``vel`` [m/s] and ``omega`` [rad/s] (nb, 3) within ±MAX_SPEED,
    a row for every body the contacts name; ``vrel``: optional output buffer (n or more, 3) float64."""
    o = "free_body_velocities"
    n = _count(o, contacts)
    nb = _bodies(contacts, n)
    com = _rows(o, "com", com, nb, 3, MAX_LENGTH)
    vel = _rows(o, "vel", vel, nb, 3, MAX_SPEED)
    omega = _rows(o, "omega", omega, nb, 3, MAX_SPEED)
    vrel = np.zeros((max(n, 1), 3)) if vrel is None else _buffer(o, "vrel", vrel, n, 3)
    _response.free_body_velocities(contacts, com, vel, omega, vrel)
    return vrel[:n]


def accumulate_wrenches(contacts, force, com, wrench=None):
    """Body wrenches (nb, 6) = (force [N], torque about the CoM [N m]) from contact forces ``force`` (n, 3)
    [N] within ±MAX_FORCE, about the CoMs ``com`` (nb, 3) [m] within ±MAX_LENGTH (a row for every body the
    contacts name); ``wrench``: optional buffer (nb or more, 6) float64 that the wrenches add to."""
    o = "accumulate_wrenches"
    n = _count(o, contacts)
    force = _rows(o, "force", force, n, 3, MAX_FORCE)
    com = _rows(o, "com", com, _bodies(contacts, n), 3, MAX_LENGTH)
    wrench = np.zeros((com.shape[0], 6)) if wrench is None else _buffer(o, "wrench", wrench, com.shape[0], 6)
    _response.accumulate_wrenches(contacts, force, com, wrench)
    return wrench
