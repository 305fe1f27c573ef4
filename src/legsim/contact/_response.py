"""Compiled contact response: per-contact state keyed by contact pair, forces, wrenches.

Konyev Fig. 2.5 (detection -> normal part (2.20) -> friction (2.21) -> summation) and Fig. 2.8
interface 4 (forces and torques back to the bodies). The per-contact state (impact-velocity latch
of (2.20), anchor displacement of (2.21), onset time) lives in ``ContactState`` arrays indexed by
contact slot; a small open-addressing hash on the key (geom 1, geom 2, feature) carries it from
one call to the next, so a contact that persists keeps its latch and anchor, and a contact that
disappears forgets them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .._fastmath import FASTMATH
from . import _laws as L

ContactState = namedtuple(
    "ContactState",
    [
        "key",
        "vimp",
        "anchor",
        "ton",
        "n",
        "key2",
        "vimp2",
        "anchor2",
        "ton2",
        "table",
        "fn",
        "slip",
        "scratch",
    ],
)


def new_state(capacity):
    """State arrays for up to ``capacity`` simultaneous contacts."""
    cap = int(capacity)
    h = 1
    while h < 2 * cap:
        h *= 2
    return ContactState(
        np.zeros((cap, 3), np.int64),
        np.zeros(cap),
        np.zeros((cap, 3)),
        np.zeros(cap),
        np.zeros(1, np.int64),
        np.zeros((cap, 3), np.int64),
        np.zeros(cap),
        np.zeros((cap, 3)),
        np.zeros(cap),
        -np.ones(h, np.int64),
        np.zeros(cap),
        np.zeros(cap, np.bool_),
        np.zeros((2, 3)),
    )


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _hash(a, b, f, mask):
    return ((a * 73856093) ^ (b * 19349663) ^ (f * 83492791)) & mask


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _claim(s, c, k):
    """Key contact k of this evaluation by (geom, geom, feature) into the next state's slot k and
    return the index of its previous state (-1 for a new contact)."""
    a = c.geom[k, 0]
    b = c.geom[k, 1]
    f = c.feature[k]
    s.key2[k, 0] = a
    s.key2[k, 1] = b
    s.key2[k, 2] = f
    return _lookup(s, a, b, f)


@njit(cache=True, fastmath=FASTMATH)
def _lookup(s, a, b, f):
    mask = s.table.shape[0] - 1
    h = _hash(a, b, f, mask)
    while True:
        i = s.table[h]
        if i < 0:
            return -1
        if s.key[i, 0] == a and s.key[i, 1] == b and s.key[i, 2] == f:
            return i
        h = (h + 1) & mask


@njit(cache=True, fastmath=FASTMATH)
def _commit(s, n):
    """Make the freshly written state (key2, ...) current and rebuild the hash."""
    s.table[:] = -1
    mask = s.table.shape[0] - 1
    for k in range(n):
        for i in range(3):
            s.key[k, i] = s.key2[k, i]
            s.anchor[k, i] = s.anchor2[k, i]
        s.vimp[k] = s.vimp2[k]
        s.ton[k] = s.ton2[k]
        h = _hash(s.key[k, 0], s.key[k, 1], s.key[k, 2], mask)
        while s.table[h] >= 0:
            h = (h + 1) & mask
        s.table[h] = k
    s.n[0] = n


@njit(cache=True, fastmath=FASTMATH)
def contact_forces(c, ncode, fcode, prm, s, vrel, t, dt, force):
    """Contact forces on the second geom of every contact [N], written to ``force`` (ncontact, 3).

    Parameters
    ----------
    c : Contacts
        Detected contacts (normal from geom 1 to geom 2, depth [m]).
    ncode, fcode : int64[nlaw]; prm : float64[nlaw, NPRM]
        Law table.
    s : ContactState
        Per-contact state; updated (latch on first sight, anchor integrated over ``dt``).
    vrel : float64[ncontact, 3]
        Velocity of body 2 minus body 1 at each contact point [m/s].
    t, dt : float
        Time and step [s] (dt is the anchor integration step of (2.21)).

    Notes
    -----
    pdot = -vrel . n (approach rate), v_t = vrel - (vrel . n) n. At first sight of a contact
    key the approach rate is latched as v_impact (2.20) and the anchor placed at the contact.
    """
    n = min(c.n[0], c.depth.shape[0])
    vt = s.scratch[0]
    nrm = s.scratch[1]
    for k in range(n):
        for j in range(3):
            nrm[j] = c.normal[k, j]
        vn = vrel[k, 0] * nrm[0] + vrel[k, 1] * nrm[1] + vrel[k, 2] * nrm[2]
        pdot = -vn
        for j in range(3):
            vt[j] = vrel[k, j] - vn * nrm[j]
        i = _claim(s, c, k)
        anchor = s.anchor2[k]
        if i >= 0:
            vimp = s.vimp[i]
            for j in range(3):
                anchor[j] = s.anchor[i, j]
            s.ton2[k] = s.ton[i]
        else:
            vimp = pdot if pdot > 0.0 else 0.0
            for j in range(3):
                anchor[j] = 0.0
            s.ton2[k] = t
        s.vimp2[k] = vimp
        law = c.law[k]
        fn = L.normal_force(ncode[law], prm[law], c.depth[k], pdot, vimp)
        s.fn[k] = fn
        ft = force[k]
        if fcode[law] == L.F_ANCHOR:
            s.slip[k] = L.anchor_update(prm[law], fn, vt, nrm, dt, anchor, ft)
        else:
            s.slip[k] = L.friction_force(fcode[law], prm[law], fn, vt, anchor, ft)
        for j in range(3):
            ft[j] += fn * nrm[j]
    _commit(s, n)
    return n


@njit(cache=True, fastmath=FASTMATH)
def free_body_velocities(c, bcom, bvel, bomega, vrel):
    """vrel[k] = v2(p) - v1(p) for free rigid bodies: v(p) = v_com + omega x (p - com).

    bcom, bvel, bomega : (nb, 3) world CoM position [m], velocity [m/s], angular velocity [rad/s].
    Body -1 (world) is at rest.
    """
    n = min(c.n[0], c.depth.shape[0])
    for k in range(n):
        for i in range(3):
            vrel[k, i] = 0.0
        for side in range(2):
            b = c.body[k, side]
            if b < 0:
                continue
            sg = 1.0 if side == 1 else -1.0
            rx = c.pos[k, 0] - bcom[b, 0]
            ry = c.pos[k, 1] - bcom[b, 1]
            rz = c.pos[k, 2] - bcom[b, 2]
            w = bomega[b]
            vrel[k, 0] += sg * (bvel[b, 0] + w[1] * rz - w[2] * ry)
            vrel[k, 1] += sg * (bvel[b, 1] + w[2] * rx - w[0] * rz)
            vrel[k, 2] += sg * (bvel[b, 2] + w[0] * ry - w[1] * rx)


@njit(cache=True, fastmath=FASTMATH)
def accumulate_wrenches(c, force, bcom, wrench):
    """Add contact wrenches about each body's CoM: wrench[b] += (F, (p - com) x F), world frame.

    Body 2 of a contact receives +force[k], body 1 receives -force[k] (Fig. 2.8 interface 4).
    """
    n = min(c.n[0], c.depth.shape[0])
    for k in range(n):
        for side in range(2):
            b = c.body[k, side]
            if b < 0:
                continue
            sg = 1.0 if side == 1 else -1.0
            fx = sg * force[k, 0]
            fy = sg * force[k, 1]
            fz = sg * force[k, 2]
            rx = c.pos[k, 0] - bcom[b, 0]
            ry = c.pos[k, 1] - bcom[b, 1]
            rz = c.pos[k, 2] - bcom[b, 2]
            wrench[b, 0] += fx
            wrench[b, 1] += fy
            wrench[b, 2] += fz
            wrench[b, 3] += ry * fz - rz * fy
            wrench[b, 4] += rz * fx - rx * fz
            wrench[b, 5] += rx * fy - ry * fx
