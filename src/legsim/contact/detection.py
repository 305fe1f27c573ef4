"""Public collision detection: contact buffer, full collide pass, pairwise GJK/EPA query.

Interface 3 of Konyev Fig. 2.8 (poses in) and the collision-detection routine of Fig. 2.1
(contact points, normals, depths out). Kernels live in ``_collide``, ``_narrow``, ``_gjk``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from . import _collide, _gjk
from ._buffer import Contacts, new_contacts
from .response import check_capacity

__all__ = ["Contacts", "make_contacts", "make_work", "collide", "convex_distance"]


def _shape_view(m):
    return (m.gtype, m.gsize, m.gvadr, m.gvnum, m.vert, m.gfadr, m.face)


def make_contacts(model, capacity=256, single=False):
    """Preallocate a contact buffer (struct of arrays, see ``_buffer``) for ``model``.

    Parameters
    ----------
    model : CollisionModel
    capacity : int
        Maximum number of contacts stored per call.
    single : bool
        Single-witness-pair mode (SOLID behaviour, one contact per geom pair) instead of
        multi-point manifolds.
    """
    return new_contacts(len(model.gtype), check_capacity("contact buffer", capacity), single)


def _poses(model, gpos, grot):
    ng = len(model.gtype)
    gpos = np.ascontiguousarray(gpos, dtype=np.float64)
    grot = np.ascontiguousarray(grot, dtype=np.float64)
    if gpos.shape != (ng, 3) or grot.shape != (ng, 3, 3):
        raise InputError(
            f"geom poses have shapes {gpos.shape} and {grot.shape}: expected ({ng}, 3) and "
            f"({ng}, 3, 3) for ng={ng} geoms"
        )
    if not (np.all(np.isfinite(gpos)) and np.all(np.isfinite(grot))):
        raise InputError("geom poses contain NaN or inf")
    return gpos, grot


def collide(model, gpos, grot, contacts, work=None):
    """Detect all contacts of the geoms at world poses; fills ``contacts`` and returns their count.

    Parameters
    ----------
    model : CollisionModel
    gpos : (ng, 3) [m], grot : (ng, 3, 3)
        World poses of every geom (terrain geoms: their local pose, see ``geom_world_poses``).
    contacts : Contacts
        Output buffer; ``contacts.n[0]`` holds the count.
    work : Work, optional
        GJK/EPA scratch from :func:`make_work` (allocated per call when omitted).

    Raises
    ------
    InputError
        Wrong pose shapes, or more contacts than the buffer holds (names the capacity needed).
    """
    gpos, grot = _poses(model, gpos, grot)
    n = _collide.collide(model, gpos, grot, contacts, _gjk.new_work() if work is None else work)
    cap = contacts.depth.shape[0]
    if n > cap:
        raise InputError(
            f"contact buffer overflow: {n} contacts found, capacity {cap}; "
            f"call make_contacts(model, capacity>={n})"
        )
    return n


def make_work():
    """Scratch arrays of the GJK/EPA kernels (allocate once, pass to :func:`collide`)."""
    return _gjk.new_work()


def convex_distance(model, g1, g2, gpos, grot, work=None):
    """GJK/EPA query between two convex body geoms.

    Returns
    -------
    dict
        ``distance`` signed [m] (< 0: penetration depth), ``p1``, ``p2`` witness points (3,) [m],
        ``normal`` (3,) unit vector from geom g1 to geom g2.
    """
    gpos, grot = _poses(model, gpos, grot)
    ng = len(model.gtype)
    for g in (g1, g2):
        if not 0 <= int(g) < ng or model.gtype[g] >= 10:
            raise InputError(f"convex_distance geom {g!r}: expected a body geom index in [0, {ng})")
    wk = _gjk.new_work() if work is None else work
    res = np.zeros(10)
    _gjk.gjk_epa(
        _shape_view(model), int(g1), -1, gpos[g1], grot[g1], int(g2), -1, gpos[g2], grot[g2], wk, res
    )
    return {"distance": res[0], "p1": res[1:4].copy(), "p2": res[4:7].copy(), "normal": res[7:10].copy()}
