"""Compiled collision pipeline: world poses, broad phase, narrow-phase dispatch.

Broad phase (digest §1.3 stage 1–2): every body geom gets an axis-aligned box from its bounding
sphere. Up to ``GRID_MIN`` body geoms (a robot), the boxes are kept sorted along x by insertion
sort on the order of the previous call (time coherence: nearly sorted input costs O(n)), and one
sweep reports the pairs whose boxes overlap in x, y and z. Above that, a uniform hash grid keeps
the cost linear in the number of geoms for scenes of many bodies. Terrain geoms are tested
against every body geom (planes reject by signed distance; terrain meshes by their xy grid).
"""

from __future__ import annotations

import math

from numba import njit

from . import _geom as G
from ._narrow import convex_pair, height_body, plane_body, swept_pair, tmesh_body


@njit(cache=True)
def world_poses(m, lpos, lrot, bpos, brot, gpos, grot, rotations):
    """Geom world poses (gpos (ng, 3), grot (ng, 3, 3)) from body poses; static geoms keep local.
    ``rotations`` False: positions only (a caller that computes rotations where it needs them). Compiled
    callers pass it as ``np.bool_``: a literal True or False would compile this function once for each."""
    for g in range(m.gtype.shape[0]):
        b = m.gbody[g]
        if b < 0:
            for i in range(3):
                gpos[g, i] = lpos[g, i]
                for j in range(3):
                    grot[g, i, j] = lrot[g, i, j]
            continue
        for i in range(3):
            acc = bpos[b, i]
            for k in range(3):
                acc += brot[b, i, k] * lpos[g, k]
            gpos[g, i] = acc
            if not rotations:
                continue
            for j in range(3):
                acc = 0.0
                for k in range(3):
                    acc += brot[b, i, k] * lrot[g, k, j]
                grot[g, i, j] = acc


@njit(cache=True, inline="always")
def _may_touch(m, g1, g2):
    if m.gbody[g1] == m.gbody[g2]:
        return False
    return ((m.gcontype[g1] & m.gconaff[g2]) | (m.gcontype[g2] & m.gconaff[g1])) != 0


@njit(cache=True, inline="always")
def _terrain(m, sv, c, wk, gt, g, gpos, grot):
    t = m.gtype[gt]
    if t == G.G_PLANE:
        plane_body(m, sv, c, gt, g, gpos[g], grot[g])
    elif t == G.G_TMESH:
        tmesh_body(m, sv, c, wk, gt, g, gpos[g], grot[g])
    else:
        height_body(m, sv, c, gt, g, gpos[g], grot[g])


@njit(cache=True, inline="always")
def _pair(m, sv, c, wk, g1, g2, gpos, grot):
    t1 = m.gtype[g1]
    t2 = m.gtype[g2]
    if t2 < t1:
        g1, g2 = g2, g1
        t1, t2 = t2, t1
    if t2 <= G.G_CAPSULE:
        swept_pair(m, c, g1, gpos[g1], grot[g1], g2, gpos[g2], grot[g2])
    else:
        convex_pair(m, sv, c, wk, g1, gpos[g1], grot[g1], g2, gpos[g2], grot[g2])


GRID_MIN = 64  # above this many body geoms, a uniform hash grid replaces sweep-and-prune


@njit(cache=True, inline="always")
def _cell_hash(i, j, k, mask):
    return ((i * 73856093) ^ (j * 19349663) ^ (k * 83492791)) & mask


@njit(cache=True)
def _grid_pairs(m, sv, c, wk, gpos, grot):
    """Uniform hash grid broad phase (cell = twice the largest bounding radius): O(n + pairs).

    Every body geom is hashed into its cell; each geom then scans the 27 cells around its own
    and reports partners with a larger index, so each overlapping pair is found exactly once.
    """
    ng = m.gtype.shape[0]
    head = c.ghead
    key = c.gkey
    mask = head.shape[0] - 1
    cs = 0.0
    for g in range(ng):
        if m.gtype[g] < G.G_PLANE and m.grbound[g] > cs:
            cs = m.grbound[g]
    cs *= 2.0
    head[:] = -1
    for g in range(ng):
        if m.gtype[g] >= G.G_PLANE:
            continue
        for a in range(3):
            key[g, a] = int(math.floor(gpos[g, a] / cs))
        h = _cell_hash(key[g, 0], key[g, 1], key[g, 2], mask)
        key[g, 3] = head[h]
        head[h] = g
    for g1 in range(ng):
        if m.gtype[g1] >= G.G_PLANE:
            continue
        for di in range(-1, 2):
            for dj in range(-1, 2):
                for dk in range(-1, 2):
                    ci = key[g1, 0] + di
                    cj = key[g1, 1] + dj
                    ck = key[g1, 2] + dk
                    g2 = head[_cell_hash(ci, cj, ck, mask)]
                    while g2 >= 0:
                        if (
                            g2 > g1
                            and key[g2, 0] == ci
                            and key[g2, 1] == cj
                            and key[g2, 2] == ck
                            and _may_touch(m, g1, g2)
                        ):
                            rs = m.grbound[g1] + m.grbound[g2]
                            if (
                                abs(gpos[g1, 0] - gpos[g2, 0]) <= rs
                                and abs(gpos[g1, 1] - gpos[g2, 1]) <= rs
                                and abs(gpos[g1, 2] - gpos[g2, 2]) <= rs
                            ):
                                _pair(m, sv, c, wk, g1, g2, gpos, grot)
                        g2 = key[g2, 3]


@njit(cache=True)
def collide(m, gpos, grot, c, wk):
    """Fill the contact buffer ``c`` for geoms at world poses (gpos (ng, 3), grot (ng, 3, 3)).

    ``wk`` is the GJK/EPA scratch (``_gjk.new_work``). Returns the number of contacts found
    (> capacity means overflow).
    """
    c.n[0] = 0
    sv = G.shape_view(m)
    ng = m.gtype.shape[0]
    # terrain against bodies
    for gt in range(ng):
        if m.gtype[gt] < G.G_PLANE:
            continue
        for g in range(ng):
            if m.gtype[g] < G.G_PLANE and _may_touch(m, gt, g):
                _terrain(m, sv, c, wk, gt, g, gpos, grot)
    nbody_geoms = 0
    for g in range(ng):
        if m.gtype[g] < G.G_PLANE:
            nbody_geoms += 1
    if nbody_geoms > GRID_MIN:
        _grid_pairs(m, sv, c, wk, gpos, grot)
        return c.n[0]
    # sweep and prune over body geoms
    lo = c.lo
    hi = c.hi
    order = c.order
    for g in range(ng):
        r = m.grbound[g]
        lo[g] = gpos[g, 0] - r
        hi[g] = gpos[g, 0] + r
    for i in range(1, ng):
        gi = order[i]
        key = lo[gi]
        j = i - 1
        while j >= 0 and lo[order[j]] > key:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = gi
    for i in range(ng):
        g1 = order[i]
        if m.gtype[g1] >= G.G_PLANE:
            continue
        for j in range(i + 1, ng):
            g2 = order[j]
            if lo[g2] > hi[g1]:
                break
            if m.gtype[g2] >= G.G_PLANE or not _may_touch(m, g1, g2):
                continue
            rs = m.grbound[g1] + m.grbound[g2]
            if abs(gpos[g1, 1] - gpos[g2, 1]) > rs or abs(gpos[g1, 2] - gpos[g2, 2]) > rs:
                continue
            _pair(m, sv, c, wk, g1, g2, gpos, grot)
    return c.n[0]
