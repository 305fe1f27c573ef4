"""Compiled geometry: shape codes, the collision-model record, support functions, terrain height.

Only numpy/numba/math. ``CollisionModel`` is a namedtuple of flat arrays (struct of arrays,
DESIGN.md §2) built by :mod:`legsim.contact.scene`; kernels read it, never write it.
"""

from __future__ import annotations

import math
from collections import namedtuple

from numba import njit

# shape codes (bodies)
G_SPHERE = 0
G_CAPSULE = 1
G_BOX = 2
G_CYLINDER = 3
G_CONVEX = 4
G_MESH = 5
G_CONE = 6
# terrain codes (static, world frame)
G_PLANE = 10
G_HFIELD = 11
G_HFUNC = 12
G_TMESH = 13

# height-function kinds
HF_SINES = 0
HF_BUMP = 1
HF_STEP = 2
HF_GRID = 3
"""A heightfield's grid (as a kind of :func:`height_at`)."""

NRIM = 8  # rim samples per cylinder end face (and of a cone's base) used as manifold candidates

CollisionModel = namedtuple(
    "CollisionModel",
    [
        "gtype",  # int64[ng]
        "gsize",  # float64[ng, 3]: sphere (r), capsule/cylinder/cone (r, half_length), box (hx, hy, hz),
        #           hfield (dx, dy, 0), hfunc/tmesh (0); plane unused
        "gbody",  # int64[ng], -1 for static terrain
        "gmat",  # int64[ng] material id
        "grbound",  # float64[ng] bounding-sphere radius about the geom origin (inf for terrain)
        "gvadr",
        "gvnum",  # int64[ng]: vertex range in vert (convex/mesh/tmesh)
        "gfadr",
        "gfnum",  # int64[ng]: face range in face
        "gdadr",
        "gint",  # int64[ng], int64[ng, 4]: data range start in data; ints (nx, ny, kind, n)
        "vert",  # float64[nv, 3]
        "face",  # int64[nf, 3] (vertex indices relative to the geom's gvadr)
        "data",  # float64[nd]: hfield heights row-major (nx, ny); hfunc params; tmesh grid info
        "cell_start",  # int64[ncs + 1 per tmesh]: CSR starts of triangle lists per grid cell
        "cell_tri",  # int64[nct]
        "gcadr",  # int64[ng]: start of the geom's cell_start block
        "pair_law",  # int64[nmat, nmat] law index per material pair
        "gcontype",
        "gconaff",  # int64[ng]: pair collides if (ct1 & ca2) | (ct2 & ca1) (MuJoCo rule)
    ],
)


@njit(cache=True)
def shape_view(m):
    """The arrays support/candidate read: (gtype, gsize, gvadr, gvnum, vert, gfadr, face).

    Inner kernels take this 7-array tuple instead of the whole model, which keeps the compiled
    call sites small (numba flattens every array of a tuple argument at each call).
    """
    return (m.gtype, m.gsize, m.gvadr, m.gvnum, m.vert, m.gfadr, m.face)


@njit(cache=True)
def margin(sv, g):
    """Radius by which the core of geom g is swept (sphere, capsule) [m]."""
    t = sv[0][g]
    if t == G_SPHERE or t == G_CAPSULE:
        return sv[1][g, 0]
    return 0.0


@njit(cache=True)
def support(sv, g, tri, pos, rot, d, use_margin, out):
    """World support point of geom ``g`` in direction ``d`` (3,), written to ``out`` (3,).

    ``sv`` is :func:`shape_view`. ``tri`` >= 0 selects triangle ``tri`` of a terrain mesh
    instead (world frame). With ``use_margin`` False, spheres and capsules give their core
    (point, segment).
    """
    gtype, gsize, gvadr, gvnum, vert, gfadr, face = sv
    if tri >= 0:
        f0 = gfadr[g] + tri
        va = gvadr[g]
        best = -1e300
        for k in range(3):
            vi = va + face[f0, k]
            s = vert[vi, 0] * d[0] + vert[vi, 1] * d[1] + vert[vi, 2] * d[2]
            if s > best:
                best = s
                out[0] = vert[vi, 0]
                out[1] = vert[vi, 1]
                out[2] = vert[vi, 2]
        return
    # local direction
    l0 = rot[0, 0] * d[0] + rot[1, 0] * d[1] + rot[2, 0] * d[2]
    l1 = rot[0, 1] * d[0] + rot[1, 1] * d[1] + rot[2, 1] * d[2]
    l2 = rot[0, 2] * d[0] + rot[1, 2] * d[1] + rot[2, 2] * d[2]
    t = gtype[g]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    if t == G_SPHERE:
        pass
    elif t == G_CAPSULE:
        s2 = gsize[g, 1] if l2 >= 0.0 else -gsize[g, 1]
    elif t == G_BOX:
        s0 = gsize[g, 0] if l0 >= 0.0 else -gsize[g, 0]
        s1 = gsize[g, 1] if l1 >= 0.0 else -gsize[g, 1]
        s2 = gsize[g, 2] if l2 >= 0.0 else -gsize[g, 2]
    elif t == G_CYLINDER:
        r = math.sqrt(l0 * l0 + l1 * l1)
        if r > 1e-300:
            s0 = gsize[g, 0] * l0 / r
            s1 = gsize[g, 0] * l1 / r
        s2 = gsize[g, 1] if l2 >= 0.0 else -gsize[g, 1]
    elif t == G_CONE:
        s0, s1, s2 = _cone_support(gsize[g, 0], gsize[g, 1], l0, l1, l2)
    else:  # convex / mesh: vertex scan
        va = gvadr[g]
        best = -1e300
        for k in range(gvnum[g]):
            s = vert[va + k, 0] * l0 + vert[va + k, 1] * l1 + vert[va + k, 2] * l2
            if s > best:
                best = s
                s0 = vert[va + k, 0]
                s1 = vert[va + k, 1]
                s2 = vert[va + k, 2]
    for i in range(3):
        out[i] = pos[i] + rot[i, 0] * s0 + rot[i, 1] * s1 + rot[i, 2] * s2
    if use_margin and (t == G_SPHERE or t == G_CAPSULE):
        n = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        if n > 0.0:
            r = gsize[g, 0] / n
            for i in range(3):
                out[i] += r * d[i]


@njit(cache=True, inline="always")
def _cone_support(r, h, l0, l1, l2):
    """Local support point of the cone with apex (0, 0, h) and base disc z = -h of radius r [m].

    The cone is the convex hull of its apex and its base rim, so its support in the local
    direction (l0, l1, l2) is whichever of the two wins: the apex (value h l2) or the rim point
    r (l0, l1)/rho at z = -h (value r rho - h l2, rho = |(l0, l1)|). This is van den Bergen's
    cone support mapping (J. Graphics Tools 4(2), 1999; SOLID's DT_NewCone, centred the same
    way): apex iff l2 > |l| sin(alpha), sin(alpha) = r / sqrt(r^2 + 4 h^2). For rho = 0 and
    l2 < 0 every base point is a support; the base centre is returned.
    """
    rho = math.sqrt(l0 * l0 + l1 * l1)
    if h * l2 >= r * rho - h * l2:
        return 0.0, 0.0, h
    if rho > 1e-300:
        return r * l0 / rho, r * l1 / rho, -h
    return 0.0, 0.0, -h


@njit(cache=True)
def n_candidates(sv, g):
    """Number of manifold candidate points of a body geom against terrain."""
    gtype, gsize, gvadr, gvnum, vert, gfadr, face = sv
    t = gtype[g]
    if t == G_SPHERE:
        return 1
    if t == G_CAPSULE:
        return 2
    if t == G_BOX:
        return 8
    if t == G_CYLINDER:
        return 2 * NRIM
    if t == G_CONE:
        return 1 + NRIM
    return gvnum[g]


@njit(cache=True)
def candidate(sv, g, k, pos, rot, out):
    """World position of manifold candidate ``k`` of geom g; returns its sweep radius [m].

    Sphere: centre (radius r). Capsule: segment end k (radius r). Box: corner k. Cylinder:
    rim sample k (NRIM per end). Cone: apex (k = 0), then NRIM base-rim samples. Convex/mesh:
    vertex k.
    """
    gtype, gsize, gvadr, gvnum, vert, gfadr, face = sv
    t = gtype[g]
    l0 = 0.0
    l1 = 0.0
    l2 = 0.0
    rad = 0.0
    if t == G_SPHERE:
        rad = gsize[g, 0]
    elif t == G_CAPSULE:
        l2 = gsize[g, 1] if k == 0 else -gsize[g, 1]
        rad = gsize[g, 0]
    elif t == G_BOX:
        l0 = gsize[g, 0] if (k & 1) else -gsize[g, 0]
        l1 = gsize[g, 1] if (k & 2) else -gsize[g, 1]
        l2 = gsize[g, 2] if (k & 4) else -gsize[g, 2]
    elif t == G_CYLINDER:
        a = 2.0 * math.pi * (k % NRIM) / NRIM
        l0 = gsize[g, 0] * math.cos(a)
        l1 = gsize[g, 0] * math.sin(a)
        l2 = gsize[g, 1] if k < NRIM else -gsize[g, 1]
    elif t == G_CONE:
        if k == 0:
            l2 = gsize[g, 1]
        else:
            a = 2.0 * math.pi * (k - 1) / NRIM
            l0 = gsize[g, 0] * math.cos(a)
            l1 = gsize[g, 0] * math.sin(a)
            l2 = -gsize[g, 1]
    else:
        v = gvadr[g] + k
        l0 = vert[v, 0]
        l1 = vert[v, 1]
        l2 = vert[v, 2]
    for i in range(3):
        out[i] = pos[i] + rot[i, 0] * l0 + rot[i, 1] * l1 + rot[i, 2] * l2
    return rad


@njit(cache=True)
def height(m, g, x, y, grad):
    """Terrain height h(x, y) [m] of the height function or heightfield geom ``g`` of the collision
    model ``m``; grad (2,) receives dh/dx, dh/dy (:func:`height_at`)."""
    kind = m.gint[g, 2] if m.gtype[g] == G_HFUNC else HF_GRID
    return height_at(m.data, m.gdadr[g], kind, m.gint[g, 3], m.gint[g, 0], m.gint[g, 1], m.gsize[g, 0],
                     m.gsize[g, 1], x, y, grad)


@njit(cache=True)
def height_at(data, a, kind, n, nx, ny, dxc, dyc, x, y, grad):
    """Terrain height h(x, y) [m] of a height function or heightfield whose numbers start at
    ``data[a]``; grad (2,) receives dh/dx, dh/dy.

    ``kind``: HF_SINES (n numbers, groups (a, kx, ky, phase)), HF_BUMP (A, x0, y0, sigma), HF_STEP
    (H, x0, w), or HF_GRID (x0, y0, then the nx x ny heights row by row at spacing dxc, dyc:
    bilinear inside the grid, clamped to the border values outside).
    """
    if kind == HF_SINES:
        grad[0] = 0.0
        grad[1] = 0.0
        h = 0.0
        for j in range(n // 4):
            amp = data[a + 4 * j]
            kx = data[a + 4 * j + 1]
            ky = data[a + 4 * j + 2]
            arg = kx * x + ky * y + data[a + 4 * j + 3]
            h += amp * math.sin(arg)
            c = amp * math.cos(arg)
            grad[0] += c * kx
            grad[1] += c * ky
        return h
    if kind == HF_BUMP:
        A = data[a]
        dx = x - data[a + 1]
        dy = y - data[a + 2]
        s2 = data[a + 3] ** 2
        h = A * math.exp(-(dx * dx + dy * dy) / (2.0 * s2))
        grad[0] = -h * dx / s2
        grad[1] = -h * dy / s2
        return h
    if kind == HF_STEP:
        H = data[a]
        w = data[a + 2]
        th = math.tanh((x - data[a + 1]) / w)
        grad[0] = 0.5 * H * (1.0 - th * th) / w
        grad[1] = 0.0
        return 0.5 * H * (1.0 + th)
    u = (x - data[a]) / dxc
    v = (y - data[a + 1]) / dyc
    inside_u = 0.0 <= u <= nx - 1
    inside_v = 0.0 <= v <= ny - 1
    u = min(max(u, 0.0), nx - 1.0)
    v = min(max(v, 0.0), ny - 1.0)
    i = min(int(u), nx - 2)
    j = min(int(v), ny - 2)
    fu = u - i
    fv = v - j
    b = a + 2
    h00 = data[b + i * ny + j]
    h10 = data[b + (i + 1) * ny + j]
    h01 = data[b + i * ny + j + 1]
    h11 = data[b + (i + 1) * ny + j + 1]
    grad[0] = ((h10 - h00) * (1 - fv) + (h11 - h01) * fv) / dxc if inside_u else 0.0
    grad[1] = ((h01 - h00) * (1 - fu) + (h11 - h10) * fu) / dyc if inside_v else 0.0
    return (h00 * (1 - fu) + h10 * fu) * (1 - fv) + (h01 * (1 - fu) + h11 * fu) * fv
