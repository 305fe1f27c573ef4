"""The preallocated contact buffer (struct of arrays) and its compiled append.

Fields (capacity ``cap``): ``pos`` (cap, 3) contact point [m] (midpoint of the witness points),
``normal`` (cap, 3) unit normal pointing from geom 1 to geom 2 (geom 1 is the terrain for
terrain contacts), ``depth`` (cap,) penetration [m] (> 0), ``geom``/``body`` (cap, 2) ids (body -1
= world), ``law`` (cap,) contact-law index of the material pair, ``feature`` (cap,) id of the
contact within its geom pair (vertex/corner/triangle), ``n`` (1,) number of contacts found
(may exceed ``cap``: overflow, the extra contacts are not stored).
Scratch for the narrow and broad phases rides along so kernels never allocate.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

Contacts = namedtuple(
    "Contacts",
    [
        "pos",
        "normal",
        "depth",
        "geom",
        "body",
        "law",
        "feature",
        "n",
        "res",
        "tmp",
        "lo",
        "hi",
        "order",
        "single",
        "ghead",
        "gkey",
    ],
)


def new_contacts(ngeom, capacity, single=False):
    """Allocate a contact buffer for a model with ``ngeom`` geoms (GJK scratch: ``_gjk.new_work``).

    ``single`` True selects the single-witness-pair mode (one contact per geom pair, as
    SOLID's DT_DEPTH_RESPONSE; digest §1.3) instead of multi-point manifolds.
    """
    cap = int(capacity)
    h = 1
    while h < 2 * max(ngeom, 1):
        h *= 2
    return Contacts(
        np.zeros((cap, 3)),
        np.zeros((cap, 3)),
        np.zeros(cap),
        np.zeros((cap, 2), np.int64),
        np.zeros((cap, 2), np.int64),
        np.zeros(cap, np.int64),
        np.zeros(cap, np.int64),
        np.zeros(1, np.int64),
        np.zeros(10),
        np.zeros((8, 3)),
        np.zeros(ngeom),
        np.zeros(ngeom),
        np.arange(ngeom, dtype=np.int64),
        np.array([1 if single else 0], np.int64),
        -np.ones(h, np.int64),
        np.zeros((ngeom, 4), np.int64),
    )


@njit(cache=True, inline="always")
def push(c, law, b1, b2, g1, g2, feat, px, py, pz, nx, ny, nz, depth):
    """Append one contact (law index, bodies, geoms, feature, point [m], unit normal g1 -> g2, depth [m])."""
    k = c.n[0]
    c.n[0] = k + 1
    if k >= c.depth.shape[0]:
        return
    c.pos[k, 0] = px
    c.pos[k, 1] = py
    c.pos[k, 2] = pz
    c.normal[k, 0] = nx
    c.normal[k, 1] = ny
    c.normal[k, 2] = nz
    c.depth[k] = depth
    c.geom[k, 0] = g1
    c.geom[k, 1] = g2
    c.body[k, 0] = b1
    c.body[k, 1] = b2
    c.law[k] = law
    c.feature[k] = feat
