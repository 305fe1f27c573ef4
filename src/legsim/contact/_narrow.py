"""Compiled narrow phase: terrain against bodies, analytic swept pairs, GJK/EPA fallback.

Digest §1.3/§7.1 item 1. Multi-point manifolds: a body geom is reduced to manifold candidates
(sphere centre, capsule end spheres, box corners, cylinder rim samples, mesh vertices, see
``_geom.candidate``); each candidate below the terrain gives one contact whose ``feature`` is the
candidate index. Single-witness mode (``c.single[0] == 1``) reproduces SOLID's one contact pair
per object pair: the deepest point (plane, heightfield) or the deepest GJK/EPA triangle pair
(terrain mesh).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import _geom as G
from ._buffer import push
from ._gjk import gjk_epa


@njit(cache=True, inline="always")
def _cells_around(m, gt, c, reach):
    """Grid cells of mesh terrain ``gt`` under the square of half-side ``reach`` around c[0], c[1]."""
    return _cells(m.data, m.gdadr[gt], m.gint[gt, 0], m.gint[gt, 1], c[0] - reach, c[1] - reach,
                  c[0] + reach, c[1] + reach)


@njit(cache=True, inline="always")
def _push_mid(c, law, b1, b2, g1, g2, feat, p, n, h, depth):
    """Push a contact at p − h·n (the midpoint between the two surfaces along the normal n)."""
    push(c, law, b1, b2, g1, g2, feat, p[0] - h * n[0], p[1] - h * n[1], p[2] - h * n[2], n[0], n[1],
         n[2], depth)


@njit(cache=True)
def _cand_or_support(sv, tmp, g, k, pos, rot, nrm, single):
    """Candidate k (multi) or the deepest support point along -nrm (single) into tmp[0]."""
    if single:
        d = tmp[7]
        for i in range(3):
            d[i] = -nrm[i]
        G.support(sv, g, np.int64(-1), pos, rot, d, np.bool_(False), tmp[0])
        return G.margin(sv, g)
    return G.candidate(sv, g, k, pos, rot, tmp[0])


@njit(cache=True)
def plane_body(m, sv, c, gt, g, pos, rot):
    """Plane gt (normal gsize, offset data) against body geom g at world pose (pos, rot)."""
    n = m.gsize[gt]
    off = m.data[m.gdadr[gt]]
    if n[0] * pos[0] + n[1] * pos[1] + n[2] * pos[2] - off > m.grbound[g]:
        return
    single = c.single[0] == 1
    nc = 1 if single else G.n_candidates(sv, g)
    law = m.pair_law[m.gmat[gt], m.gmat[g]]
    b2 = m.gbody[g]
    for k in range(nc):
        r = _cand_or_support(sv, c.tmp, g, k, pos, rot, n, single)
        p = c.tmp[0]
        s = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - off
        depth = r - s
        if depth > 0.0:
            h = 0.5 * (r + s)
            _push_mid(c, law, m.gbody[gt], b2, gt, g, k, p, n, h, depth)


@njit(cache=True)
def _height_contact(m, tmp, gt, p, r):
    """Local tangent-plane projection of point p onto a height terrain; returns (depth, s), tmp[1] normal."""
    x = p[0]
    y = p[1]
    grad = tmp[2]
    nrm = tmp[1]
    s = 0.0
    h = 0.0
    for _ in range(3):
        h = G.height(m, gt, x, y, grad)
        inv = 1.0 / math.sqrt(1.0 + grad[0] * grad[0] + grad[1] * grad[1])
        nrm[0] = -grad[0] * inv
        nrm[1] = -grad[1] * inv
        nrm[2] = inv
        s = nrm[0] * (p[0] - x) + nrm[1] * (p[1] - y) + nrm[2] * (p[2] - h)
        x = p[0] - s * nrm[0]
        y = p[1] - s * nrm[1]
    return r - s, s


@njit(cache=True)
def height_body(m, sv, c, gt, g, pos, rot):
    """Heightfield or height function gt against body geom g."""
    single = c.single[0] == 1
    nc = G.n_candidates(sv, g)
    law = m.pair_law[m.gmat[gt], m.gmat[g]]
    b2 = m.gbody[g]
    best = 0.0
    bk = np.int64(-1)  # not a literal: candidate would compile once more for it
    for k in range(nc):
        r = G.candidate(sv, g, k, pos, rot, c.tmp[0])
        depth, s = _height_contact(m, c.tmp, gt, c.tmp[0], r)
        if depth > 0.0:
            if single:
                if depth > best:
                    best = depth
                    bk = k
            else:
                p = c.tmp[0]
                n = c.tmp[1]
                h = 0.5 * (r + s)
                _push_mid(c, law, m.gbody[gt], b2, gt, g, k, p, n, h, depth)
    if bk >= 0:
        r = G.candidate(sv, g, bk, pos, rot, c.tmp[0])
        depth, s = _height_contact(m, c.tmp, gt, c.tmp[0], r)
        p = c.tmp[0]
        n = c.tmp[1]
        h = 0.5 * (r + s)
        _push_mid(c, law, m.gbody[gt], b2, gt, g, np.int64(0), p, n, h, depth)


@njit(cache=True)
def closest_on_triangle(p, a, b, cc, out):
    """Closest point to p on triangle (a, b, cc) into out (Ericson, Real-Time Collision Detection 5.1.5)."""
    ab0 = b[0] - a[0]
    ab1 = b[1] - a[1]
    ab2 = b[2] - a[2]
    ac0 = cc[0] - a[0]
    ac1 = cc[1] - a[1]
    ac2 = cc[2] - a[2]
    ap0 = p[0] - a[0]
    ap1 = p[1] - a[1]
    ap2 = p[2] - a[2]
    d1 = ab0 * ap0 + ab1 * ap1 + ab2 * ap2
    d2 = ac0 * ap0 + ac1 * ap1 + ac2 * ap2
    if d1 <= 0.0 and d2 <= 0.0:
        u, v = 0.0, 0.0
    else:
        bp0 = p[0] - b[0]
        bp1 = p[1] - b[1]
        bp2 = p[2] - b[2]
        d3 = ab0 * bp0 + ab1 * bp1 + ab2 * bp2
        d4 = ac0 * bp0 + ac1 * bp1 + ac2 * bp2
        cp0 = p[0] - cc[0]
        cp1 = p[1] - cc[1]
        cp2 = p[2] - cc[2]
        d5 = ab0 * cp0 + ab1 * cp1 + ab2 * cp2
        d6 = ac0 * cp0 + ac1 * cp1 + ac2 * cp2
        vc = d1 * d4 - d3 * d2
        vb = d5 * d2 - d1 * d6
        va = d3 * d6 - d5 * d4
        if d3 >= 0.0 and d4 <= d3:
            u, v = 1.0, 0.0
        elif vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
            u, v = d1 / (d1 - d3), 0.0
        elif d6 >= 0.0 and d5 <= d6:
            u, v = 0.0, 1.0
        elif vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
            u, v = 0.0, d2 / (d2 - d6)
        elif va <= 0.0 and (d4 - d3) >= 0.0 and (d5 - d6) >= 0.0:
            w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
            u, v = 1.0 - w, w
        else:
            den = 1.0 / (va + vb + vc)
            u, v = vb * den, vc * den
    out[0] = a[0] + ab0 * u + ac0 * v
    out[1] = a[1] + ab1 * u + ac1 * v
    out[2] = a[2] + ab2 * u + ac2 * v


@njit(cache=True)
def _tri_normal(vert, face, va, f, out):
    """Unit normal of face row f (vertex offset va) into out."""
    a = vert[va + face[f, 0]]
    b = vert[va + face[f, 1]]
    cc = vert[va + face[f, 2]]
    n0 = (b[1] - a[1]) * (cc[2] - a[2]) - (b[2] - a[2]) * (cc[1] - a[1])
    n1 = (b[2] - a[2]) * (cc[0] - a[0]) - (b[0] - a[0]) * (cc[2] - a[2])
    n2 = (b[0] - a[0]) * (cc[1] - a[1]) - (b[1] - a[1]) * (cc[0] - a[0])
    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    out[0] = n0 / nn
    out[1] = n1 / nn
    out[2] = n2 / nn


@njit(cache=True, inline="always")
def _first_cell(m, gt, a, b, cc, i, j, i0, j0):
    """True when cell (i, j) is the first cell of a query range starting at (i0, j0) that lists the
    triangle (a, b, cc) of mesh terrain ``gt``: the scene's grid lists a triangle in every cell its xy
    bounding box covers, from the cell of its lowest x and y (``scene._grid``)."""
    ti, _, tj, _, _ = _cells(m.data, m.gdadr[gt], m.gint[gt, 0], m.gint[gt, 1], min(a[0], b[0], cc[0]),
                             min(a[1], b[1], cc[1]), 0.0, 0.0)
    return i == max(ti, i0) and j == max(tj, j0)


@njit(cache=True)
def _cells(data, a, nx, ny, xlo, ylo, xhi, yhi):
    """Index range of the terrain-mesh grid cells (grid info at data[a:]) covering an xy box."""
    x0 = data[a]
    y0 = data[a + 1]
    cs = data[a + 2]
    i0 = min(max(int((xlo - x0) / cs), 0), nx - 1)
    i1 = min(max(int((xhi - x0) / cs), 0), nx - 1)
    j0 = min(max(int((ylo - y0) / cs), 0), ny - 1)
    j1 = min(max(int((yhi - y0) / cs), 0), ny - 1)
    return i0, i1, j0, j1, ny


@njit(cache=True)
def tmesh_body(m, sv, c, wk, gt, g, pos, rot):
    """Terrain mesh gt against body geom g (per-candidate deepest triangle, or GJK/EPA single)."""
    single = c.single[0] == 1
    va = m.gvadr[gt]
    law = m.pair_law[m.gmat[gt], m.gmat[g]]
    b2 = m.gbody[g]
    if single and m.gtype[g] != G.G_SPHERE:
        rb = m.grbound[g]
        if pos[2] - rb > m.data[m.gdadr[gt] + 5]:
            return
        i0, i1, j0, j1, ny = _cells_around(m, gt, pos, rb)
        best = 0.0
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                cs = m.gcadr[gt] + i * ny + j
                for q in range(m.cell_start[cs], m.cell_start[cs + 1]):
                    t = m.cell_tri[q]
                    f = m.gfadr[gt] + t
                    a = m.vert[va + m.face[f, 0]]
                    b = m.vert[va + m.face[f, 1]]
                    cc = m.vert[va + m.face[f, 2]]
                    if not _first_cell(m, gt, a, b, cc, i, j, i0, j0):
                        continue  # a triangle listed in several of these cells is tested once
                    # the geom lies inside its bounding sphere: a triangle farther than rb cannot touch it
                    closest_on_triangle(pos, a, b, cc, c.tmp[2])
                    d0 = pos[0] - c.tmp[2, 0]
                    d1 = pos[1] - c.tmp[2, 1]
                    d2 = pos[2] - c.tmp[2, 2]
                    if d0 * d0 + d1 * d1 + d2 * d2 > rb * rb:
                        continue
                    _tri_normal(m.vert, m.face, va, f, c.tmp[3])
                    n3 = c.tmp[3]
                    # nor can one whose plane has the whole geom on its outer side (a separating axis)
                    low = c.tmp[6]
                    for k in range(3):
                        c.tmp[7, k] = -n3[k]
                    G.support(sv, g, np.int64(-1), pos, rot, c.tmp[7], np.bool_(True), low)
                    if n3[0] * (low[0] - a[0]) + n3[1] * (low[1] - a[1]) + n3[2] * (low[2] - a[2]) > 0.0:
                        continue
                    st = gjk_epa(sv, gt, t, pos, rot, g, np.int64(-1), pos, rot, wk, c.res)
                    if st == 1 and -c.res[0] > best:
                        if c.res[7] * n3[0] + c.res[8] * n3[1] + c.res[9] * n3[2] > 0.0:
                            best = -c.res[0]
                            for k in range(3):
                                c.tmp[4, k] = 0.5 * (c.res[1 + k] + c.res[4 + k])
                                c.tmp[5, k] = c.res[7 + k]
        if best > 0.0:
            p = c.tmp[4]
            n = c.tmp[5]
            push(c, law, m.gbody[gt], b2, gt, g, np.int64(0), p[0], p[1], p[2], n[0], n[1], n[2], best)
        return
    nc = G.n_candidates(sv, g)
    q3 = c.tmp[2]
    nrm = c.tmp[3]
    zmax = m.data[m.gdadr[gt] + 5]
    if pos[2] - m.grbound[g] > zmax:
        return
    for k in range(nc):
        r = G.candidate(sv, g, k, pos, rot, c.tmp[0])
        p = c.tmp[0]
        if p[2] - r > zmax:
            continue
        reach = r if r > 0.0 else 1e-9
        i0, i1, j0, j1, ny = _cells_around(m, gt, p, reach)
        best = 0.0
        maxdepth = m.grbound[g] + r
        for i in range(i0, i1 + 1):
            for j in range(j0, j1 + 1):
                cs = m.gcadr[gt] + i * ny + j
                for q in range(m.cell_start[cs], m.cell_start[cs + 1]):
                    t = m.cell_tri[q]
                    f = m.gfadr[gt] + t
                    a = m.vert[va + m.face[f, 0]]
                    b = m.vert[va + m.face[f, 1]]
                    cc = m.vert[va + m.face[f, 2]]
                    _tri_normal(m.vert, m.face, va, f, nrm)
                    s = nrm[0] * (p[0] - a[0]) + nrm[1] * (p[1] - a[1]) + nrm[2] * (p[2] - a[2])
                    if s > r or s < -maxdepth:
                        continue
                    closest_on_triangle(p, a, b, cc, q3)
                    d0 = p[0] - q3[0]
                    d1 = p[1] - q3[1]
                    d2 = p[2] - q3[2]
                    dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
                    if r > 0.0 and s > 0.0:
                        depth = r - dist
                        if depth <= best:
                            continue
                        if dist > 1e-12:
                            n0, n1, n2 = d0 / dist, d1 / dist, d2 / dist
                        else:
                            n0, n1, n2 = nrm[0], nrm[1], nrm[2]
                    else:
                        # point (or sphere centre) below the plane: must project inside the triangle
                        if dist - abs(s) > 1e-9 * (1.0 + abs(s)):
                            continue
                        depth = r - s
                        if depth <= best:
                            continue
                        n0, n1, n2 = nrm[0], nrm[1], nrm[2]
                    best = depth
                    c.tmp[5, 0] = n0
                    c.tmp[5, 1] = n1
                    c.tmp[5, 2] = n2
                    c.tmp[6, 0] = p[0] - (r - 0.5 * depth) * n0
                    c.tmp[6, 1] = p[1] - (r - 0.5 * depth) * n1
                    c.tmp[6, 2] = p[2] - (r - 0.5 * depth) * n2
        if best > 0.0:
            push(
                c,
                law,
                m.gbody[gt],
                b2,
                gt,
                g,
                k,
                c.tmp[6, 0],
                c.tmp[6, 1],
                c.tmp[6, 2],
                c.tmp[5, 0],
                c.tmp[5, 1],
                c.tmp[5, 2],
                best,
            )


@njit(cache=True, inline="always")
def _segment(gtype, gsize, g, pos, rot, a, b):
    """Core segment (a, b) of a sphere (degenerate) or capsule, world frame."""
    h = gsize[g, 1] if gtype[g] == G.G_CAPSULE else 0.0
    for i in range(3):
        a[i] = pos[i] + rot[i, 2] * h
        b[i] = pos[i] - rot[i, 2] * h


@njit(cache=True, inline="always")
def _clamp01(x):
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@njit(cache=True, inline="always")
def swept_pair(m, c, g1, p1, r1, g2, p2, r2):
    """Analytic sphere/capsule pair: closest points of the core segments (Ericson 5.1.9)."""
    a1 = c.tmp[0]
    b1 = c.tmp[1]
    a2 = c.tmp[2]
    b2 = c.tmp[3]
    _segment(m.gtype, m.gsize, g1, p1, r1, a1, b1)
    _segment(m.gtype, m.gsize, g2, p2, r2, a2, b2)
    d1 = c.tmp[4]
    d2 = c.tmp[5]
    rr = c.tmp[6]
    for i in range(3):
        d1[i] = b1[i] - a1[i]
        d2[i] = b2[i] - a2[i]
        rr[i] = a1[i] - a2[i]
    A = d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]
    E = d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2]
    F = d2[0] * rr[0] + d2[1] * rr[1] + d2[2] * rr[2]
    eps = 1e-18
    if A <= eps and E <= eps:
        s = 0.0
        t = 0.0
    elif A <= eps:
        s = 0.0
        t = _clamp01(F / E)
    else:
        C = d1[0] * rr[0] + d1[1] * rr[1] + d1[2] * rr[2]
        if E <= eps:
            t = 0.0
            s = _clamp01(-C / A)
        else:
            B = d1[0] * d2[0] + d1[1] * d2[1] + d1[2] * d2[2]
            den = A * E - B * B
            s = _clamp01((B * F - C * E) / den) if den > 1e-14 * A * E else 0.0
            t = (B * s + F) / E
            if t < 0.0:
                t = 0.0
                s = _clamp01(-C / A)
            elif t > 1.0:
                t = 1.0
                s = _clamp01((B - C) / A)
    q1 = c.tmp[7]
    n = c.tmp[6]
    for i in range(3):
        q1[i] = a1[i] + s * d1[i]
        n[i] = a2[i] + t * d2[i] - q1[i]
    dist = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
    ra = m.gsize[g1, 0]
    rb = m.gsize[g2, 0]
    depth = ra + rb - dist
    if depth <= 0.0:
        return
    if dist > 1e-12:
        for i in range(3):
            n[i] /= dist
    else:
        n[0] = 0.0
        n[1] = 0.0
        n[2] = 1.0
    w = ra - 0.5 * depth
    push(
        c,
        m.pair_law[m.gmat[g1], m.gmat[g2]],
        m.gbody[g1],
        m.gbody[g2],
        g1,
        g2,
        np.int64(0),
        q1[0] + w * n[0],
        q1[1] + w * n[1],
        q1[2] + w * n[2],
        n[0],
        n[1],
        n[2],
        depth,
    )


@njit(cache=True)
def convex_pair(m, sv, c, wk, g1, p1, r1, g2, p2, r2):
    """General convex pair by GJK + EPA: one contact (the witness pair)."""
    st = gjk_epa(sv, g1, np.int64(-1), p1, r1, g2, np.int64(-1), p2, r2, wk, c.res)
    if st == 1:
        res = c.res
        push(
            c,
            m.pair_law[m.gmat[g1], m.gmat[g2]],
            m.gbody[g1],
            m.gbody[g2],
            g1,
            g2,
            np.int64(0),
            0.5 * (res[1] + res[4]),
            0.5 * (res[2] + res[5]),
            0.5 * (res[3] + res[6]),
            res[7],
            res[8],
            res[9],
            -res[0],
        )
