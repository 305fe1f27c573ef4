"""Compiled fast path of the collision pass for primitives on planes (numba).

For a robot whose geoms are spheres, capsules and boxes and whose terrain is planes (the common
legged-robot case), this produces exactly the contacts of ``legsim.contact._collide.collide`` with
``legsim.contact._narrow.plane_body`` in multi-point mode (same order, features and normals;
points and depths to round-off, since this path is compiled with fused multiply-adds; tested in
``tests/test_world_contact.py``): the manifold candidates are the sphere
centre, the two capsule end spheres and the eight box corners (``_geom.candidate``), a candidate at
signed height ``s`` above the plane with sweep radius ``r`` gives depth ``r - s`` and the contact
point midway between the candidate's lowest point and the plane.

Why a second path: the generic pass receives whole record tuples (20 + 16 arrays) at every
nested call, which costs more than the geometry itself for ~25 geoms on one plane.

:func:`sphere_on_plane` is the kinematics of one sphere against a plane (gap, approach rate,
contact point and its velocity) for the models that keep their contacts as events or as a few
feet (the event-contact model, the CRR quadruped).
"""

from __future__ import annotations

import math

from numba import njit

from .._fastmath import FASTMATH
from ..contact import _geom as G
from ..contact import _laws as LW
from ..contact._buffer import push


@njit(cache=True, fastmath=FASTMATH)
def plane_contacts(gtype, gsize, gbody, gmat, grbound, pair_law, pnorm, poff, planes, bodies, gpos, grot, c,
                   brot, lrot):
    """Fill the contact buffer ``c`` with every candidate of the body geoms ``bodies`` (int64[nb_g])
    below the planes ``planes`` (int64[np]; unit normals ``pnorm`` (ng, 3), offsets ``poff`` (ng,)
    in metres: the half-space ``n . x <= offset``). Geom world positions ``gpos`` (ng, 3) m and
    rotations ``grot`` (ng, 3, 3). Returns the number of contacts found (may exceed the capacity).

    With body rotations ``brot`` (nb, 3, 3) given (not empty), ``grot`` is computed here as
    ``brot[body] lrot[g]`` (``lrot`` (ng, 3, 3) local geom rotations), and only for the boxes and
    capsules with a candidate below a plane: candidate heights need only the plane normal in geom
    axes, ``R^T n``, and a box or capsule whose lowest point (support along ``-n``) is clear of
    the plane is skipped without looking at its candidates."""
    lazy = brot.shape[0] > 0
    c.n[0] = 0
    for ip in range(planes.shape[0]):
        gt = planes[ip]
        n0 = pnorm[gt, 0]
        n1 = pnorm[gt, 1]
        n2 = pnorm[gt, 2]
        off = poff[gt]
        bt = gbody[gt]
        for ib in range(bodies.shape[0]):
            g = bodies[ib]
            x0 = gpos[g, 0]
            x1 = gpos[g, 1]
            x2 = gpos[g, 2]
            sc = n0 * x0 + n1 * x1 + n2 * x2 - off  # height of the geom centre
            if sc > grbound[g]:
                continue
            t = gtype[g]
            law = pair_law[gmat[gt], gmat[g]]
            if t == G.G_SPHERE:
                r = gsize[g, 0]
                if sc < r:
                    h = 0.5 * (r + sc)
                    push(c, law, bt, gbody[g], gt, g, 0, x0 - h * n0, x1 - h * n1, x2 - h * n2,
                         n0, n1, n2, r - sc)
                continue
            # the normal in geom axes, m = R^T n (R = brot[body] lrot[g] when lazy): a candidate at
            # l (geom axes) has height sc + m . l, so only a penetrating one needs R itself
            R = grot[g]
            if lazy:
                B = brot[gbody[g]]
                L = lrot[g]
                b0 = B[0, 0] * n0 + B[1, 0] * n1 + B[2, 0] * n2
                b1 = B[0, 1] * n0 + B[1, 1] * n1 + B[2, 1] * n2
                b2 = B[0, 2] * n0 + B[1, 2] * n1 + B[2, 2] * n2
                m0 = L[0, 0] * b0 + L[1, 0] * b1 + L[2, 0] * b2
                m1 = L[0, 1] * b0 + L[1, 1] * b1 + L[2, 1] * b2
                m2 = L[0, 2] * b0 + L[1, 2] * b1 + L[2, 2] * b2
            else:
                m0 = R[0, 0] * n0 + R[1, 0] * n1 + R[2, 0] * n2
                m1 = R[0, 1] * n0 + R[1, 1] * n1 + R[2, 1] * n2
                m2 = R[0, 2] * n0 + R[1, 2] * n1 + R[2, 2] * n2
            if t == G.G_CAPSULE:
                ncand = 2
                r = gsize[g, 0]
                if sc - abs(m2) * gsize[g, 1] >= r:  # lowest end sphere clear of the plane
                    continue
            else:  # box
                ncand = 8
                r = 0.0
                if sc - abs(m0) * gsize[g, 0] - abs(m1) * gsize[g, 1] - abs(m2) * gsize[g, 2] >= 0.0:
                    continue
            rotated = not lazy
            for k in range(ncand):
                l0 = 0.0
                l1 = 0.0
                l2 = 0.0
                if t == G.G_CAPSULE:
                    l2 = gsize[g, 1] if k == 0 else -gsize[g, 1]
                else:
                    l0 = gsize[g, 0] if (k & 1) else -gsize[g, 0]
                    l1 = gsize[g, 1] if (k & 2) else -gsize[g, 1]
                    l2 = gsize[g, 2] if (k & 4) else -gsize[g, 2]
                s = sc + m0 * l0 + m1 * l1 + m2 * l2
                depth = r - s
                if depth > 0.0:
                    if not rotated:
                        for i in range(3):
                            for j in range(3):
                                R[i, j] = B[i, 0] * L[0, j] + B[i, 1] * L[1, j] + B[i, 2] * L[2, j]
                        rotated = True
                    h = 0.5 * (r + s)
                    push(c, law, bt, gbody[g], gt, g, k,
                         x0 + R[0, 0] * l0 + R[0, 1] * l1 + R[0, 2] * l2 - h * n0,
                         x1 + R[1, 0] * l0 + R[1, 1] * l1 + R[1, 2] * l2 - h * n1,
                         x2 + R[2, 0] * l0 + R[2, 1] * l1 + R[2, 2] * l2 - h * n2,
                         n0, n1, n2, depth)
    return c.n[0]


@njit(cache=True, inline="always")
def body_point(oR, op, b, lx, ly, lz):
    """World position (x, y, z) [m] of the point (lx, ly, lz) of body ``b`` (body axes), from the world
    placements ``oR`` (nb, 3, 3), ``op`` (nb, 3) of ``world_kinematics``.

    This function and the sphere kinematics below take the data's arrays, not the data: every array of
    a named tuple handed to a function (inlined or not) costs numba a reference-count call on entry
    and one on exit, ~55 ns for the 29 arrays of a multibody data, which is more than the geometry
    (measured on the hexapod's 50 contact points: 3.4 µs against 0.8 µs per guard evaluation)."""
    return (op[b, 0] + oR[b, 0, 0] * lx + oR[b, 0, 1] * ly + oR[b, 0, 2] * lz,
            op[b, 1] + oR[b, 1, 0] * lx + oR[b, 1, 1] * ly + oR[b, 1, 2] * lz,
            op[b, 2] + oR[b, 2, 0] * lx + oR[b, 2, 1] * ly + oR[b, 2, 2] * lz)


@njit(cache=True, inline="always")
def sphere_on_plane(oR, op, ov, b, lx, ly, lz, r, nx, ny, nz, off, midway, out):
    """Kinematics of a sphere of radius r [m] centred at body point (lx, ly, lz) (body axes) of body
    ``b`` against the plane {x : n . x <= off}, from the world placements and velocities ``oR``, ``op``,
    ``ov`` (nb, 6) of ``world_kinematics``: writes ``out`` =
    [gap (m), approach rate pdot = −dgap/dt (m/s), contact point (3) m, velocity (3) m/s of the
    body point there], world axes. The contact point is the sphere's lowest point c − r n, or with
    ``midway`` the point midway between it and the plane, c − (r + gap/2) n (as RobotWorld and
    MuJoCo place it)."""
    gap, cx, cy, cz = sphere_gap_to_plane(oR, op, b, lx, ly, lz, r, nx, ny, nz, off)
    _touch(ov[b], cx, cy, cz, r + 0.5 * gap if midway else r, gap, nx, ny, nz, out)


@njit(cache=True, inline="always")
def sphere_gap_to_plane(oR, op, b, lx, ly, lz, r, nx, ny, nz, off):
    """(gap [m], centre (3) [m]) of :func:`sphere_on_plane`'s sphere: gap = n . c − off − r, the
    sphere's centre c in world axes. Needs only the world placements (no velocities)."""
    cx, cy, cz = body_point(oR, op, b, lx, ly, lz)
    return nx * cx + ny * cy + nz * cz - off - r, cx, cy, cz


@njit(cache=True, inline="always")
def sphere_on_terrain(oR, op, ov, b, lx, ly, lz, r, data, a, kind, n, nx, ny, dx, dy, midway, out):
    """:func:`sphere_on_plane` against the terrain z = h(x, y) of :func:`legsim.contact._geom.height_at`
    (its numbers from ``data[a]``): the plane is the terrain's tangent plane under the sphere centre
    c, with the upward normal n = (-h_x, -h_y, 1) / |.|, so gap = (c_z - h(c_x, c_y)) n_z - r (exact on
    a plane or slope, first order in the radius times the curvature elsewhere). Also writes the
    normal into ``out[9:12]``."""
    cx, cy, cz = body_point(oR, op, b, lx, ly, lz)
    grad = out[9:11]
    h = G.height_at(data, a, kind, n, nx, ny, dx, dy, cx, cy, grad)
    s = 1.0 / math.sqrt(1.0 + grad[0] * grad[0] + grad[1] * grad[1])
    n0 = -grad[0] * s
    n1 = -grad[1] * s
    gap = (cz - h) * s - r
    _touch(ov[b], cx, cy, cz, r + 0.5 * gap if midway else r, gap, n0, n1, s, out)
    out[9] = n0
    out[10] = n1
    out[11] = s


@njit(cache=True)
def _touch(vo, cx, cy, cz, h, gap, nx, ny, nz, out):
    """``out[:9]`` of a sphere centred at c with outward normal n at the contact: the point c − h n, the
    velocity of the body point there (spatial velocity ``vo`` about the world origin), gap and
    approach rate."""
    px = cx - h * nx
    py = cy - h * ny
    pz = cz - h * nz
    out[6] = vo[0] + vo[4] * pz - vo[5] * py
    out[7] = vo[1] + vo[5] * px - vo[3] * pz
    out[8] = vo[2] + vo[3] * py - vo[4] * px
    # n . v_point = n . v_centre (omega x (-h n) is normal to n), so pdot = -dgap/dt exactly
    out[0] = gap
    out[1] = -(nx * out[6] + ny * out[7] + nz * out[8])
    out[2] = px
    out[3] = py
    out[4] = pz


@njit(cache=True)
def sphere_contact_force(ncode, fcode, prm, nx, ny, nz, kin, v_imp, anchor, sdot, vt, force):
    """Contact force of a touching sphere contact (kinematics ``kin`` of :func:`sphere_on_plane`) on the
    plane with normal (nx, ny, nz): the normal law ``ncode`` on penetration ``-gap`` and its rate
    (with the approach speed ``v_imp`` latched at onset, for (2.20)) and the friction law ``fcode`` on
    the tangential velocity ``vt`` (3,) (written here); the anchor-spring law (2.21) reads the anchor
    displacement ``anchor`` (3,) [m] and writes its rate into ``sdot`` (3,) (stateless laws ignore
    both). Writes the total force [N, world axes] into ``force`` (3,); returns the normal force [N]."""
    f_n = LW.normal_force(ncode, prm, -kin[0], kin[1], v_imp)
    vn = nx * kin[6] + ny * kin[7] + nz * kin[8]
    vt[0] = kin[6] - vn * nx
    vt[1] = kin[7] - vn * ny
    vt[2] = kin[8] - vn * nz
    LW.friction_force(fcode, prm, f_n, vt, anchor, force)
    if fcode == LW.F_ANCHOR:
        LW.anchor_rate(prm, f_n, vt, anchor, sdot)
    force[0] += f_n * nx
    force[1] += f_n * ny
    force[2] += f_n * nz
    return f_n


@njit(cache=True, fastmath=FASTMATH)
def sphere_on_box(oR, op, ov, b, lx, ly, lz, r, box, out):
    """Kinematics of a sphere of radius r [m] centred at body point (lx, ly, lz) of body ``b`` against
    a static box ``box`` = [centre (3) m, rotation box -> world (9, row-major), half extents (3) m],
    after ``world_kinematics``: writes ``out`` = [gap (m), approach rate pdot (m/s), contact point (3)
    m, velocity (3) m/s of the body point there, outward box normal (3)], world axes.

    The normal runs from the box's closest point to the sphere centre (a face, edge or corner normal);
    with the centre inside the box it is the normal of the nearest face and the gap is minus the
    depth to that face minus r. The contact point is midway between the sphere's deepest point and
    the box surface, as :func:`sphere_on_plane` places it."""
    vo = ov[b]
    cx, cy, cz = body_point(oR, op, b, lx, ly, lz)
    ex, ey, ez = cx - box[0], cy - box[1], cz - box[2]
    # centre in box axes: local = B^T (c - centre), B row-major in box[3:12]
    u0 = box[3] * ex + box[6] * ey + box[9] * ez
    u1 = box[4] * ex + box[7] * ey + box[10] * ez
    u2 = box[5] * ex + box[8] * ey + box[11] * ez
    h0, h1, h2 = box[12], box[13], box[14]
    w0 = min(max(u0, -h0), h0)
    w1 = min(max(u1, -h1), h1)
    w2 = min(max(u2, -h2), h2)
    d0, d1, d2 = u0 - w0, u1 - w1, u2 - w2
    dist = (d0 * d0 + d1 * d1 + d2 * d2) ** 0.5
    if dist > 1e-12:
        m0, m1, m2 = d0 / dist, d1 / dist, d2 / dist
        gap = dist - r
    else:  # centre inside: push out through the nearest face
        s0, s1, s2 = h0 - abs(u0), h1 - abs(u1), h2 - abs(u2)
        m0 = m1 = m2 = 0.0
        if s0 <= s1 and s0 <= s2:
            m0 = 1.0 if u0 >= 0.0 else -1.0
            depth = s0
        elif s1 <= s2:
            m1 = 1.0 if u1 >= 0.0 else -1.0
            depth = s1
        else:
            m2 = 1.0 if u2 >= 0.0 else -1.0
            depth = s2
        gap = -depth - r
    nx = box[3] * m0 + box[4] * m1 + box[5] * m2
    ny = box[6] * m0 + box[7] * m1 + box[8] * m2
    nz = box[9] * m0 + box[10] * m1 + box[11] * m2
    _touch(vo, cx, cy, cz, r + 0.5 * gap, gap, nx, ny, nz, out)
    out[9] = nx
    out[10] = ny
    out[11] = nz
