"""Public collision detection: contact buffer, full collide pass, pairwise GJK/EPA query.

Interface 3 of Konyev Fig. 2.8 (poses in) and the collision-detection routine of Fig. 2.1
(contact points, normals, depths out). Kernels live in ``_collide``, ``_narrow``, ``_gjk``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_flag, check_whole
from . import _collide, _gjk
from ._buffer import Contacts, new_contacts
from .response import check_capacity
from .scene import check_model

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
    check_model("make_contacts", model)
    single = check_flag("make_contacts", "single", single)
    return new_contacts(len(model.gtype), check_capacity("contact buffer", capacity), single)


def _work(owner, work):
    if work is None:
        return _gjk.new_work()
    if not isinstance(work, _gjk.Work):
        raise InputError(f"{owner} 'work' is a {type(work).__name__}: expected make_work() or None")
    return work


def _poses(owner, model, gpos, grot):
    check_model(owner, model)
    ng = len(model.gtype)
    gpos = np.ascontiguousarray(as_floats(gpos))
    grot = np.ascontiguousarray(as_floats(grot))
    if gpos.shape != (ng, 3) or grot.shape != (ng, 3, 3):
        raise InputError(
            f"{owner}: geom poses 'gpos' and 'grot' have shapes {gpos.shape} and {grot.shape}: expected "
            f"({ng}, 3) and ({ng}, 3, 3) for ng={ng} geoms"
        )
    if not (np.all(np.isfinite(gpos)) and np.all(np.isfinite(grot))):
        raise InputError(f"{owner}: geom poses 'gpos' or 'grot' contain NaN or inf")
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
    gpos, grot = _poses("collide", model, gpos, grot)
    if not isinstance(contacts, Contacts) or contacts.ghead.shape[0] < 2 * len(model.gtype):  # (pair hash)
        what = "a buffer for fewer geoms" if isinstance(contacts, Contacts) else type(contacts).__name__
        raise InputError(f"collide 'contacts' is {what}: expected make_contacts(model, ...)")
    n = _collide.collide(model, gpos, grot, contacts, _work("collide", work))
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
    gpos, grot = _poses("convex_distance", model, gpos, grot)
    ng = len(model.gtype)
    g1 = check_whole("convex_distance", "g1", g1, 0, ng - 1)
    g2 = check_whole("convex_distance", "g2", g2, 0, ng - 1)
    for name, g in (("g1", g1), ("g2", g2)):
        if model.gtype[g] >= 10:
            raise InputError(f"convex_distance '{name}' = {g}: geom {g} is terrain, expected a body geom")
    wk = _work("convex_distance", work)
    res = np.zeros(10)
    _gjk.gjk_epa(
        _shape_view(model), int(g1), -1, gpos[g1], grot[g1], int(g2), -1, gpos[g2], grot[g2], wk, res
    )
    return {"distance": res[0], "p1": res[1:4].copy(), "p2": res[4:7].copy(), "normal": res[7:10].copy()}
