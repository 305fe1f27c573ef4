"""Compiled GJK distance and EPA penetration depth for convex pairs (digest §1.3, §7.1 item 1).

GJK (Gilbert–Johnson–Keerthi) finds the point of the Minkowski difference A - B closest to the
origin; its sub-simplex step here solves every face of the current simplex for the affine
projection of the origin and keeps the closest one with positive barycentric weights (exact,
no Voronoi bookkeeping). Spheres and capsules run GJK on their cores (point, segment) and add
their radii analytically, which is exact for shallow contacts. When the cores overlap, EPA
(expanding polytope) grows a polytope inside A - B (full shapes) towards the face nearest the
origin: its distance is the penetration depth and its barycentric weights give the witness
points on A and B (SOLID's DT_DEPTH_RESPONSE, van den Bergen 2003).

Result layout ``res`` float64[10]: signed distance (< 0: depth), witness on A (3), witness on B
(3), unit normal from A to B (3).
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from ._geom import margin, support

MAXV = 128
MAXF = 512
MAXE = 256
GJK_ITER = 64
EPA_ITER = 96

Work = namedtuple(
    "Work",
    [
        "sw",
        "sa",
        "sb",
        "lam",
        "v3",
        "V",
        "VA",
        "VB",
        "F",
        "FN",
        "FD",
        "FOK",
        "E",
        "G",
        "M",
        "r",
        "mu",
        "l",
        "idx",
        "tw",
        "ta",
        "tb",
    ],
)


def new_work():
    """Scratch arrays for :func:`gjk_epa` (allocate once, reuse)."""
    return Work(
        np.zeros((4, 3)),
        np.zeros((4, 3)),
        np.zeros((4, 3)),
        np.zeros(4),
        np.zeros((8, 3)),
        np.zeros((MAXV, 3)),
        np.zeros((MAXV, 3)),
        np.zeros((MAXV, 3)),
        np.zeros((MAXF, 3), dtype=np.int64),
        np.zeros((MAXF, 3)),
        np.zeros(MAXF),
        np.zeros(MAXF, dtype=np.bool_),
        np.zeros((MAXE, 2), dtype=np.int64),
        np.zeros((3, 3)),
        np.zeros((3, 3)),
        np.zeros(3),
        np.zeros(3),
        np.zeros(4),
        np.zeros(4, dtype=np.int64),
        np.zeros((4, 3)),
        np.zeros((4, 3)),
        np.zeros((4, 3)),
    )


@njit(cache=True, inline="always")
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _closest_on_simplex(wk, n):
    """Reduce the simplex (n points) to the sub-simplex nearest the origin; return its size."""
    sw = wk.sw
    sa = wk.sa
    sb = wk.sb
    lam = wk.lam
    idx = wk.idx
    G = wk.G
    r = wk.r
    mu = wk.mu
    l = wk.l
    M = wk.M
    best = 1e300
    bestmask = 1
    bl0 = 1.0
    bl1 = 0.0
    bl2 = 0.0
    bl3 = 0.0
    for mask in range(1, 1 << n):
        k = 0
        for i in range(n):
            if mask & (1 << i):
                idx[k] = i
                k += 1
        l[0] = 0.0
        l[1] = 0.0
        l[2] = 0.0
        l[3] = 0.0
        if k == 1:
            l[0] = 1.0
        else:
            i0 = idx[0]
            for a in range(k - 1):
                ia = idx[a + 1]
                r[a] = 0.0
                for c in range(3):
                    r[a] -= (sw[ia, c] - sw[i0, c]) * sw[i0, c]
                for b in range(k - 1):
                    ib = idx[b + 1]
                    acc = 0.0
                    for c in range(3):
                        acc += (sw[ia, c] - sw[i0, c]) * (sw[ib, c] - sw[i0, c])
                    G[a, b] = acc
            if k == 2:
                if G[0, 0] <= 1e-300:
                    continue
                mu[0] = r[0] / G[0, 0]
            elif k == 3:
                det = G[0, 0] * G[1, 1] - G[0, 1] * G[1, 0]
                if abs(det) <= 1e-14 * G[0, 0] * G[1, 1] or det == 0.0:
                    continue
                mu[0] = (r[0] * G[1, 1] - G[0, 1] * r[1]) / det
                mu[1] = (G[0, 0] * r[1] - r[0] * G[1, 0]) / det
            else:
                det = (
                    G[0, 0] * (G[1, 1] * G[2, 2] - G[1, 2] * G[2, 1])
                    - G[0, 1] * (G[1, 0] * G[2, 2] - G[1, 2] * G[2, 0])
                    + G[0, 2] * (G[1, 0] * G[2, 1] - G[1, 1] * G[2, 0])
                )
                if abs(det) <= 1e-14 * G[0, 0] * G[1, 1] * G[2, 2] or det == 0.0:
                    continue
                for c in range(3):
                    for a in range(3):
                        for b in range(3):
                            M[a, b] = r[a] if b == c else G[a, b]
                    mu[c] = (
                        M[0, 0] * (M[1, 1] * M[2, 2] - M[1, 2] * M[2, 1])
                        - M[0, 1] * (M[1, 0] * M[2, 2] - M[1, 2] * M[2, 0])
                        + M[0, 2] * (M[1, 0] * M[2, 1] - M[1, 1] * M[2, 0])
                    ) / det
            s = 0.0
            ok = True
            for a in range(k - 1):
                l[a + 1] = mu[a]
                s += mu[a]
                if mu[a] <= 0.0:
                    ok = False
            l[0] = 1.0 - s
            if l[0] <= 0.0 or not ok:
                continue
        p0 = 0.0
        p1 = 0.0
        p2 = 0.0
        for a in range(k):
            p0 += l[a] * sw[idx[a], 0]
            p1 += l[a] * sw[idx[a], 1]
            p2 += l[a] * sw[idx[a], 2]
        d2 = p0 * p0 + p1 * p1 + p2 * p2
        if d2 < best:
            best = d2
            bestmask = mask
            bl0 = l[0]
            bl1 = l[1]
            bl2 = l[2]
            bl3 = l[3]
    # compact the simplex to the chosen subset
    tmpw = wk.tw
    tmpa = wk.ta
    tmpb = wk.tb
    for i in range(n):
        for c in range(3):
            tmpw[i, c] = sw[i, c]
            tmpa[i, c] = sa[i, c]
            tmpb[i, c] = sb[i, c]
    bl = (bl0, bl1, bl2, bl3)
    k = 0
    for i in range(n):
        if bestmask & (1 << i):
            for c in range(3):
                sw[k, c] = tmpw[i, c]
                sa[k, c] = tmpa[i, c]
                sb[k, c] = tmpb[i, c]
            lam[k] = bl[k]
            k += 1
    return k


@njit(cache=True)
def _face(V, F, FN, FD, FOK, f, a, b, c):
    F[f, 0] = a
    F[f, 1] = b
    F[f, 2] = c
    e1 = V[b] - V[a]
    e2 = V[c] - V[a]
    n0 = e1[1] * e2[2] - e1[2] * e2[1]
    n1 = e1[2] * e2[0] - e1[0] * e2[2]
    n2 = e1[0] * e2[1] - e1[1] * e2[0]
    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    if nn < 1e-300:
        FOK[f] = False
        return
    FN[f, 0] = n0 / nn
    FN[f, 1] = n1 / nn
    FN[f, 2] = n2 / nn
    FD[f] = FN[f, 0] * V[a, 0] + FN[f, 1] * V[a, 1] + FN[f, 2] * V[a, 2]
    FOK[f] = True


@njit(cache=True)
def _mink(sv, g1, t1, p1, r1, g2, t2, p2, r2, d, nd, V, VA, VB, j):
    """Support of A - B in direction d (full shapes) into rows j of V, VA, VB; nd is scratch."""
    for i in range(3):
        nd[i] = -d[i]
    support(sv, g1, t1, p1, r1, d, np.bool_(True), VA[j])
    support(sv, g2, t2, p2, r2, nd, np.bool_(True), VB[j])
    for i in range(3):
        V[j, i] = VA[j, i] - VB[j, i]


@njit(cache=True)
def gjk_epa(sv, g1, t1, p1, r1, g2, t2, p2, r2, wk, res):
    """Signed distance, witness points and normal of two convex geoms (see module docstring).

    Parameters
    ----------
    sv : tuple
        ``_geom.shape_view(model)``.
    g1, g2 : int
        Geom indices. t1, t2 : triangle index for a terrain-mesh geom, else -1.
    p1, p2 : float64[3]; r1, r2 : float64[3, 3]
        World poses [m].
    wk : Work
        Scratch.
    res : float64[10]
        Output.

    Returns
    -------
    int
        0 separated, 1 penetrating, -1 EPA failed (degenerate touching contact, reported as
        depth 0).
    """
    sw = wk.sw
    sa = wk.sa
    sb = wk.sb
    lam = wk.lam
    v = wk.v3[0]
    d = wk.v3[1]
    for i in range(3):
        v[i] = p1[i] - p2[i]
    if t1 >= 0 or t2 >= 0:
        support(sv, g1, t1, p1, r1, v, np.bool_(False), wk.v3[2])
        support(sv, g2, t2, p2, r2, v, np.bool_(False), wk.v3[3])
        for i in range(3):
            v[i] = wk.v3[2, i] - wk.v3[3, i]
    if _dot(v, v) < 1e-30:
        v[0] = 1.0
    n = 0
    hit = False
    for _ in range(GJK_ITER):
        for i in range(3):
            d[i] = -v[i]
        support(sv, g1, t1, p1, r1, d, np.bool_(False), sa[n])
        support(sv, g2, t2, p2, r2, v, np.bool_(False), sb[n])
        for i in range(3):
            sw[n, i] = sa[n, i] - sb[n, i]
        vv = _dot(v, v)
        if n > 0 and vv - _dot(v, sw[n]) <= 1e-12 * vv + 1e-30:
            break
        dup = False
        for k in range(n):
            if abs(sw[k, 0] - sw[n, 0]) + abs(sw[k, 1] - sw[n, 1]) + abs(sw[k, 2] - sw[n, 2]) < 1e-15:
                dup = True
        if dup:
            break
        n = _closest_on_simplex(wk, n + 1)
        for i in range(3):
            v[i] = 0.0
            for k in range(n):
                v[i] += lam[k] * sw[k, i]
        if n == 4 or _dot(v, v) < 1e-24:
            hit = True
            break
    ra = margin(sv, g1) if t1 < 0 else 0.0
    rb = margin(sv, g2) if t2 < 0 else 0.0
    if not hit:
        pa = wk.v3[4]
        pb = wk.v3[5]
        for i in range(3):
            pa[i] = 0.0
            pb[i] = 0.0
            for k in range(n):
                pa[i] += lam[k] * sa[k, i]
                pb[i] += lam[k] * sb[k, i]
        dist = math.sqrt(_dot(v, v))
        if dist > 1e-10:
            for i in range(3):
                nrm = -v[i] / dist
                res[7 + i] = nrm
                res[1 + i] = pa[i] + ra * nrm
                res[4 + i] = pb[i] - rb * nrm
            res[0] = dist - ra - rb
            return 1 if res[0] < 0.0 else 0
    return _epa(sv, g1, t1, p1, r1, g2, t2, p2, r2, wk, res, n)


@njit(cache=True)
def _epa(sv, g1, t1, p1, r1, g2, t2, p2, r2, wk, res, n):
    V = wk.V
    VA = wk.VA
    VB = wk.VB
    nd = wk.v3[6]
    for j in range(n):
        for i in range(3):
            V[j, i] = wk.sw[j, i]
            VA[j, i] = wk.sa[j, i]
            VB[j, i] = wk.sb[j, i]
    d = wk.v3[1]
    cr = wk.v3[2]
    # blow the simplex up to a tetrahedron
    if n == 1:
        for ax in range(6):
            for i in range(3):
                d[i] = 0.0
            d[ax % 3] = 1.0 if ax < 3 else -1.0
            _mink(sv, g1, t1, p1, r1, g2, t2, p2, r2, d, nd, V, VA, VB, np.int64(1))
            e0 = V[1, 0] - V[0, 0]
            e1 = V[1, 1] - V[0, 1]
            e2 = V[1, 2] - V[0, 2]
            if e0 * e0 + e1 * e1 + e2 * e2 > 1e-20:
                n = 2
                break
    if n == 2:
        e0 = V[1, 0] - V[0, 0]
        e1 = V[1, 1] - V[0, 1]
        e2 = V[1, 2] - V[0, 2]
        # u = e x axis of the smallest |component|, w = e x u
        if abs(e0) <= abs(e1) and abs(e0) <= abs(e2):
            u0, u1, u2 = 0.0, e2, -e1
        elif abs(e1) <= abs(e2):
            u0, u1, u2 = -e2, 0.0, e0
        else:
            u0, u1, u2 = e1, -e0, 0.0
        w0 = e1 * u2 - e2 * u1
        w1 = e2 * u0 - e0 * u2
        w2 = e0 * u1 - e1 * u0
        for k in range(4):
            sg = 1.0 if k < 2 else -1.0
            if k % 2 == 0:
                d[0], d[1], d[2] = sg * u0, sg * u1, sg * u2
            else:
                d[0], d[1], d[2] = sg * w0, sg * w1, sg * w2
            _mink(sv, g1, t1, p1, r1, g2, t2, p2, r2, d, nd, V, VA, VB, np.int64(2))
            _tri_cross(V, np.int64(0), np.int64(1), np.int64(2), cr)
            if _dot(cr, cr) > 1e-24:
                n = 3
                break
    if n == 3:
        _tri_cross(V, np.int64(0), np.int64(1), np.int64(2), cr)
        cn = math.sqrt(_dot(cr, cr))
        for k in range(2):
            for i in range(3):
                d[i] = cr[i] if k == 0 else -cr[i]
            _mink(sv, g1, t1, p1, r1, g2, t2, p2, r2, d, nd, V, VA, VB, np.int64(3))
            h = cr[0] * (V[3, 0] - V[0, 0]) + cr[1] * (V[3, 1] - V[0, 1]) + cr[2] * (V[3, 2] - V[0, 2])
            if abs(h) > 1e-14 * cn:
                n = 4
                break
    if n < 4:
        return _touching(res, wk.sa, wk.sb)
    # outward-oriented tetrahedron
    _tri_cross(V, np.int64(0), np.int64(1), np.int64(2), cr)
    if cr[0] * (V[3, 0] - V[0, 0]) + cr[1] * (V[3, 1] - V[0, 1]) + cr[2] * (V[3, 2] - V[0, 2]) > 0.0:
        for i in range(3):
            V[1, i], V[2, i] = V[2, i], V[1, i]
            VA[1, i], VA[2, i] = VA[2, i], VA[1, i]
            VB[1, i], VB[2, i] = VB[2, i], VB[1, i]
    _face(V, wk.F, wk.FN, wk.FD, wk.FOK, np.int64(0), np.int64(0), np.int64(1), np.int64(2))
    _face(V, wk.F, wk.FN, wk.FD, wk.FOK, np.int64(1), np.int64(0), np.int64(3), np.int64(1))
    _face(V, wk.F, wk.FN, wk.FD, wk.FOK, np.int64(2), np.int64(0), np.int64(2), np.int64(3))
    _face(V, wk.F, wk.FN, wk.FD, wk.FOK, np.int64(3), np.int64(1), np.int64(3), np.int64(2))
    for f in range(4):
        if not wk.FOK[f] or wk.FD[f] < -1e-9:
            return _touching(res, wk.sa, wk.sb)
    nv = np.int64(4)  # not literals: _mink and _face would compile once more for them
    nf = np.int64(4)
    best = 0
    for _ in range(EPA_ITER):
        best = -1
        bd = 1e300
        for f in range(nf):
            if wk.FOK[f] and wk.FD[f] < bd:
                bd = wk.FD[f]
                best = f
        if best < 0:
            return _touching(res, wk.sa, wk.sb)
        if nv >= MAXV:
            break
        for i in range(3):
            d[i] = wk.FN[best, i]
        _mink(sv, g1, t1, p1, r1, g2, t2, p2, r2, d, nd, V, VA, VB, nv)
        if _dot(V[nv], d) - bd <= 1e-9 + 1e-7 * abs(bd):
            break
        ne = 0
        for f in range(nf):
            if wk.FOK[f] and _dot(wk.FN[f], V[nv]) - wk.FD[f] > 1e-14:
                wk.FOK[f] = False
                for k in range(3):
                    a = wk.F[f, k]
                    b = wk.F[f, (k + 1) % 3]
                    found = -1
                    for q in range(ne):
                        if wk.E[q, 0] == b and wk.E[q, 1] == a:
                            found = q
                            break
                    if found >= 0:
                        ne -= 1
                        wk.E[found, 0] = wk.E[ne, 0]
                        wk.E[found, 1] = wk.E[ne, 1]
                    elif ne < MAXE:
                        wk.E[ne, 0] = a
                        wk.E[ne, 1] = b
                        ne += 1
        if nf + ne > MAXF:
            break
        for q in range(ne):
            _face(V, wk.F, wk.FN, wk.FD, wk.FOK, nf, wk.E[q, 0], wk.E[q, 1], nv)
            nf += 1
        nv += 1
    # witness points from the barycentric coordinates of the origin's projection
    f = best
    a = wk.F[f, 0]
    b = wk.F[f, 1]
    c = wk.F[f, 2]
    nn = wk.FN[f]
    q = wk.v3[3]
    for i in range(3):
        q[i] = wk.FD[f] * nn[i]
    l0 = _bary(V, b, c, q, nn)
    l1 = _bary(V, c, a, q, nn)
    l2 = _bary(V, a, b, q, nn)
    s = l0 + l1 + l2
    if s <= 0.0:
        l0 = l1 = l2 = 1.0 / 3.0
        s = 1.0
    for i in range(3):
        res[1 + i] = (l0 * VA[a, i] + l1 * VA[b, i] + l2 * VA[c, i]) / s
        res[4 + i] = (l0 * VB[a, i] + l1 * VB[b, i] + l2 * VB[c, i]) / s
        res[7 + i] = nn[i]
    res[0] = -wk.FD[f]
    return 1


@njit(cache=True)
def _tri_cross(V, i, j, k, out):
    """out = (V[j] - V[i]) x (V[k] - V[i])."""
    a0 = V[j, 0] - V[i, 0]
    a1 = V[j, 1] - V[i, 1]
    a2 = V[j, 2] - V[i, 2]
    b0 = V[k, 0] - V[i, 0]
    b1 = V[k, 1] - V[i, 1]
    b2 = V[k, 2] - V[i, 2]
    out[0] = a1 * b2 - a2 * b1
    out[1] = a2 * b0 - a0 * b2
    out[2] = a0 * b1 - a1 * b0


@njit(cache=True)
def _bary(V, i, j, q, nn):
    """((V[i] - q) x (V[j] - q)) . nn: twice the signed area opposite the third vertex."""
    a0 = V[i, 0] - q[0]
    a1 = V[i, 1] - q[1]
    a2 = V[i, 2] - q[2]
    b0 = V[j, 0] - q[0]
    b1 = V[j, 1] - q[1]
    b2 = V[j, 2] - q[2]
    return (a1 * b2 - a2 * b1) * nn[0] + (a2 * b0 - a0 * b2) * nn[1] + (a0 * b1 - a1 * b0) * nn[2]


@njit(cache=True)
def _touching(res, sa, sb):
    """Degenerate overlap (flat touching): depth 0 at the last support points."""
    for i in range(3):
        res[1 + i] = sa[0, i]
        res[4 + i] = sb[0, i]
        res[7 + i] = 0.0
    res[9] = 1.0
    res[0] = 0.0
    return -1
