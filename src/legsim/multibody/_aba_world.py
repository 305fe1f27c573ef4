"""Forward dynamics in world coordinates (numba): kinematics and the articulated-body algorithm with
every spatial quantity expressed in the world frame about the world origin (Featherstone (2008)
§7.3 notes that ABA may run in any coordinate system; Pinocchio's ``Convention::WORLD``).

Why a second ABA: in body coordinates (:mod:`._aba`) each body's articulated inertia must be carried
to its parent by a 6x6 congruence with that joint's transform (Featherstone (7.38)); in world
coordinates the parent simply adds it, and a body's rigid inertia is put in world axes once, with
its mass, first moment and 3x3 inertia (cheaper than a general congruence). On the 18-DoF hexapod
the passes take about a third less time (``benchmarks/bench_multibody_dynamics.py``).

Conventions (as :mod:`._kernels`, with world coordinates): a spatial vector is ``[linear; angular]``;
``d.ov[i]`` is body i's spatial velocity in world coordinates (the velocity of the body-fixed point
at the world origin, and the angular velocity, world axes); ``d.oS[k]`` is DoF k's motion subspace
column in world coordinates; ``d.c, d.a, d.IA, d.pA`` hold world-coordinate values after
:func:`aba_world`. External wrenches ``fext`` (nb, 6) are ``[force; moment about the world
origin]`` in world axes: a force ``f`` at the world point ``x`` is ``(f, x x f)``. Joint
velocities and accelerations keep the model's convention: a free joint's ``v``/``ddq`` are its
body-axes twist and its derivative (Pinocchio's), so ``ddq`` equals :func:`._aba.aba`'s.
A free joint whose parent is the world is solved in its body axes with the Cholesky factor of
``D``, as in :mod:`._aba`.
"""

from __future__ import annotations

from numba import njit

from .._borrow import borrow_all
from .._fastmath import FASTMATH
from ._aba import _spd_inverse_inplace, multi_dof_acceleration, multi_dof_downdate, passive_forces
from ._layout import JOINT_FREE
from ._placements import _init_world, joint_transform
from ._spatial import (
    _rot_sym3,
    cholesky6_inplace,
    cholesky6_solve,
    force_to_parent_add,
    inertia_to_parent_add,
    mat6_vec,
    motion_cross,
    motion_to_child,
)


@njit(cache=True, fastmath=FASTMATH)
def world_kinematics(m, d, q, v):
    """``(q, v) -> (oR, op, oS, ov)``: world placements (the joint transforms of
    :func:`._placements.joint_transform` composed in registers; ``d.liR, d.lip`` are not written),
    world motion subspaces ``d.oS`` (nv, 6) and world spatial velocities ``d.ov`` (nb, 6) (Featherstone (5.1),
    (5.2) in world coordinates: ``v_i = v_parent + S_i qd_i``, ``S_i = X_(O<-i) S_i^body``).

    A column ``S^body = [l; w]`` becomes ``w_O = oR w``, ``l_O = oR l + op x w_O``; unit axes
    (``m.dof_axis``) read a column of ``oR`` instead of a product.
    """
    m = borrow_all(m)
    d = borrow_all(d)
    _init_world(m, d)
    oR = d.oR
    op = d.op
    ov = d.ov
    oS = d.oS
    for k in range(6):
        ov[0, k] = 0.0
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        # everything read before anything is written: all these arrays share one buffer, so a
        # store would otherwise force the loads after it to be repeated
        par = m.body_parent[i]
        a00, a01, a02 = oR[par, 0, 0], oR[par, 0, 1], oR[par, 0, 2]
        a10, a11, a12 = oR[par, 1, 0], oR[par, 1, 1], oR[par, 1, 2]
        a20, a21, a22 = oR[par, 2, 0], oR[par, 2, 1], oR[par, 2, 2]
        b00, b01, b02, b10, b11, b12, b20, b21, b22, l0, l1, l2 = joint_transform(m, i, q)
        v0, v1, v2, v3, v4, v5 = ov[par, 0], ov[par, 1], ov[par, 2], ov[par, 3], ov[par, 4], ov[par, 5]
        r00 = a00 * b00 + a01 * b10 + a02 * b20
        r01 = a00 * b01 + a01 * b11 + a02 * b21
        r02 = a00 * b02 + a01 * b12 + a02 * b22
        r10 = a10 * b00 + a11 * b10 + a12 * b20
        r11 = a10 * b01 + a11 * b11 + a12 * b21
        r12 = a10 * b02 + a11 * b12 + a12 * b22
        r20 = a20 * b00 + a21 * b10 + a22 * b20
        r21 = a20 * b01 + a21 * b11 + a22 * b21
        r22 = a20 * b02 + a21 * b12 + a22 * b22
        p0 = op[par, 0] + a00 * l0 + a01 * l1 + a02 * l2
        p1 = op[par, 1] + a10 * l0 + a11 * l1 + a12 * l2
        p2 = op[par, 2] + a20 * l0 + a21 * l1 + a22 * l2
        oR[i, 0, 0], oR[i, 0, 1], oR[i, 0, 2] = r00, r01, r02
        oR[i, 1, 0], oR[i, 1, 1], oR[i, 1, 2] = r10, r11, r12
        oR[i, 2, 0], oR[i, 2, 1], oR[i, 2, 2] = r20, r21, r22
        op[i, 0], op[i, 1], op[i, 2] = p0, p1, p2
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            dof = da + j
            ax = m.dof_axis[dof]
            w0 = w1 = w2 = e0 = e1 = e2 = 0.0
            if ax == 3:
                w0, w1, w2 = r00, r10, r20
            elif ax == 4:
                w0, w1, w2 = r01, r11, r21
            elif ax == 5:
                w0, w1, w2 = r02, r12, r22
            elif ax == 0:
                e0, e1, e2 = r00, r10, r20
            elif ax == 1:
                e0, e1, e2 = r01, r11, r21
            elif ax == 2:
                e0, e1, e2 = r02, r12, r22
            else:
                S = m.dof_S[dof]
                e0 = r00 * S[0] + r01 * S[1] + r02 * S[2]
                e1 = r10 * S[0] + r11 * S[1] + r12 * S[2]
                e2 = r20 * S[0] + r21 * S[1] + r22 * S[2]
                w0 = r00 * S[3] + r01 * S[4] + r02 * S[5]
                w1 = r10 * S[3] + r11 * S[4] + r12 * S[5]
                w2 = r20 * S[3] + r21 * S[4] + r22 * S[5]
            s0 = e0 + p1 * w2 - p2 * w1
            s1 = e1 + p2 * w0 - p0 * w2
            s2 = e2 + p0 * w1 - p1 * w0
            oS[dof, 0], oS[dof, 1], oS[dof, 2], oS[dof, 3], oS[dof, 4], oS[dof, 5] = s0, s1, s2, w0, w1, w2
            vj = v[dof]
            v0 += s0 * vj
            v1 += s1 * vj
            v2 += s2 * vj
            v3 += w0 * vj
            v4 += w1 * vj
            v5 += w2 * vj
        ov[i, 0], ov[i, 1], ov[i, 2], ov[i, 3], ov[i, 4], ov[i, 5] = v0, v1, v2, v3, v4, v5


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rigid_in_world(R, p, Ib):
    """Mass, first moment ``h`` (3) and rotational inertia ``J`` (upper entries 00 01 02 11 12 22)
    about the world origin, world axes, of the rigid body with spatial inertia ``Ib`` (6, 6) (body
    axes, about the body origin; the form of ``_spatial.spatial_inertia``) placed at ``(R, p)``.

    With ``h_b = m c_b`` read from ``Ib``'s lower-left block ``m [c]x`` and ``g = R h_b``:
    ``h = g + m p`` and ``J = R J_b R^T - g p^T - p g^T - m p p^T + (2 p.g + m p.p) 1`` (the
    parallel-axis theorem moved from the body origin to the world origin; no division, so a
    massless body is fine).
    """
    mass = Ib[0, 0]
    hb0 = Ib[5, 1]
    hb1 = Ib[3, 2]
    hb2 = Ib[4, 0]
    g0 = R[0, 0] * hb0 + R[0, 1] * hb1 + R[0, 2] * hb2
    g1 = R[1, 0] * hb0 + R[1, 1] * hb1 + R[1, 2] * hb2
    g2 = R[2, 0] * hb0 + R[2, 1] * hb1 + R[2, 2] * hb2
    p0 = p[0]
    p1 = p[1]
    p2 = p[2]
    j00, j01, j02, j11, j12, j22 = _rot_sym3(R, Ib[3, 3], Ib[3, 4], Ib[3, 5], Ib[4, 4], Ib[4, 5], Ib[5, 5])
    s = 2.0 * (p0 * g0 + p1 * g1 + p2 * g2) + mass * (p0 * p0 + p1 * p1 + p2 * p2)
    mp0 = mass * p0
    mp1 = mass * p1
    mp2 = mass * p2
    return (mass, g0 + mp0, g1 + mp1, g2 + mp2,
            j00 - 2.0 * g0 * p0 - mp0 * p0 + s, j01 - g0 * p1 - p0 * g1 - mp0 * p1,
            j02 - g0 * p2 - p0 * g2 - mp0 * p2, j11 - 2.0 * g1 * p1 - mp1 * p1 + s,
            j12 - g1 * p2 - p1 * g2 - mp1 * p2, j22 - 2.0 * g2 * p2 - mp2 * p2 + s)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _store_rigid_upper(out, mass, h0, h1, h2, J00, J01, J02, J11, J12, J22):
    """Upper triangle of the 6x6 spatial inertia ``[[m 1, -[h]x], [[h]x, J]]`` into ``out``."""
    out[0, 0] = mass
    out[0, 1] = 0.0
    out[0, 2] = 0.0
    out[0, 3] = 0.0
    out[0, 4] = h2
    out[0, 5] = -h1
    out[1, 1] = mass
    out[1, 2] = 0.0
    out[1, 3] = -h2
    out[1, 4] = 0.0
    out[1, 5] = h0
    out[2, 2] = mass
    out[2, 3] = h1
    out[2, 4] = -h0
    out[2, 5] = 0.0
    out[3, 3] = J00
    out[3, 4] = J01
    out[3, 5] = J02
    out[4, 4] = J11
    out[4, 5] = J12
    out[5, 5] = J22


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _mirror_upper(A):
    """Copy the upper triangle of the 6x6 ``A`` into its lower triangle."""
    for r in range(1, 6):
        for s in range(r):
            A[r, s] = A[s, r]


@njit(cache=True, fastmath=FASTMATH)
def rigid_inertia_to_world(R, p, Ib, out):
    """Spatial inertia ``Ib`` (6, 6) of a rigid body (body axes, about the body origin) in world axes
    about the world origin for the body placement ``(R, p)``: all of ``out`` (6, 6)
    (:func:`_rigid_in_world`)."""
    mass, h0, h1, h2, J00, J01, J02, J11, J12, J22 = _rigid_in_world(R, p, Ib)
    _store_rigid_upper(out, mass, h0, h1, h2, J00, J01, J02, J11, J12, J22)
    _mirror_upper(out)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rigid_body_bias(R, p, Ib, vel, fe, IA, pA):
    """Pass 1 of :func:`aba_world` for one body: ``IA`` (upper triangle) = its rigid inertia ``I``
    in world coordinates, ``pA = v x* (I v) - fext`` (Featherstone Table 7.1) for its world spatial
    velocity ``vel`` (6) and world wrench ``fe`` (6). ``I v = (m v_l + w x h, h x v_l + J w)``."""
    mass, h0, h1, h2, J00, J01, J02, J11, J12, J22 = _rigid_in_world(R, p, Ib)
    _store_rigid_upper(IA, mass, h0, h1, h2, J00, J01, J02, J11, J12, J22)
    v0, v1, v2, w0, w1, w2 = vel[0], vel[1], vel[2], vel[3], vel[4], vel[5]
    f0 = mass * v0 + w1 * h2 - w2 * h1
    f1 = mass * v1 + w2 * h0 - w0 * h2
    f2 = mass * v2 + w0 * h1 - w1 * h0
    n0 = h1 * v2 - h2 * v1 + J00 * w0 + J01 * w1 + J02 * w2
    n1 = h2 * v0 - h0 * v2 + J01 * w0 + J11 * w1 + J12 * w2
    n2 = h0 * v1 - h1 * v0 + J02 * w0 + J12 * w1 + J22 * w2
    # v x* (f; n) = (w x f; w x n + v x f)
    pA[0] = w1 * f2 - w2 * f1 - fe[0]
    pA[1] = w2 * f0 - w0 * f2 - fe[1]
    pA[2] = w0 * f1 - w1 * f0 - fe[2]
    pA[3] = w1 * n2 - w2 * n1 + v1 * f2 - v2 * f1 - fe[3]
    pA[4] = w2 * n0 - w0 * n2 + v2 * f0 - v0 * f2 - fe[4]
    pA[5] = w0 * n1 - w1 * n0 + v0 * f1 - v1 * f0 - fe[5]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _one_dof_downdate(IA, S, pA, c, armature, tau_j, U, IP, pP, to_parent):
    """Pass 2 of :func:`aba_world` for a 1-DoF joint with world column ``S`` (6): ``U = I^A S``
    (into ``U``), ``D = S^T U + armature``, ``u = tau_j - S^T p^A``; with ``to_parent``, adds
    ``I^A - U U^T / D`` to the upper triangle of ``IP`` and ``p^A + I^A c + U (u - U^T c) / D`` to
    ``pP``. Reads only the upper triangle of ``IA``, into registers first (the parent's inertia is
    in the same array, so interleaved loads and stores would be reloaded). Returns ``(1/D, u)``,
    ``1/D = 0`` when ``D`` is not positive."""
    a00, a01, a02, a03, a04, a05 = IA[0, 0], IA[0, 1], IA[0, 2], IA[0, 3], IA[0, 4], IA[0, 5]
    a11, a12, a13, a14, a15 = IA[1, 1], IA[1, 2], IA[1, 3], IA[1, 4], IA[1, 5]
    a22, a23, a24, a25 = IA[2, 2], IA[2, 3], IA[2, 4], IA[2, 5]
    a33, a34, a35 = IA[3, 3], IA[3, 4], IA[3, 5]
    a44, a45, a55 = IA[4, 4], IA[4, 5], IA[5, 5]
    s0, s1, s2, s3, s4, s5 = S[0], S[1], S[2], S[3], S[4], S[5]
    u0 = a00 * s0 + a01 * s1 + a02 * s2 + a03 * s3 + a04 * s4 + a05 * s5
    u1 = a01 * s0 + a11 * s1 + a12 * s2 + a13 * s3 + a14 * s4 + a15 * s5
    u2 = a02 * s0 + a12 * s1 + a22 * s2 + a23 * s3 + a24 * s4 + a25 * s5
    u3 = a03 * s0 + a13 * s1 + a23 * s2 + a33 * s3 + a34 * s4 + a35 * s5
    u4 = a04 * s0 + a14 * s1 + a24 * s2 + a34 * s3 + a44 * s4 + a45 * s5
    u5 = a05 * s0 + a15 * s1 + a25 * s2 + a35 * s3 + a45 * s4 + a55 * s5
    U[0], U[1], U[2], U[3], U[4], U[5] = u0, u1, u2, u3, u4, u5
    D = armature + s0 * u0 + s1 * u1 + s2 * u2 + s3 * u3 + s4 * u4 + s5 * u5
    uj = tau_j - (s0 * pA[0] + s1 * pA[1] + s2 * pA[2] + s3 * pA[3] + s4 * pA[4] + s5 * pA[5])
    if not D > 0.0:
        return 0.0, uj
    iD = 1.0 / D
    if not to_parent:
        return iD, uj
    c0, c1, c2, c3, c4, c5 = c[0], c[1], c[2], c[3], c[4], c[5]
    g = (uj - (u0 * c0 + u1 * c1 + u2 * c2 + u3 * c3 + u4 * c4 + u5 * c5)) * iD
    pP[0] += pA[0] + u0 * g + a00 * c0 + a01 * c1 + a02 * c2 + a03 * c3 + a04 * c4 + a05 * c5
    pP[1] += pA[1] + u1 * g + a01 * c0 + a11 * c1 + a12 * c2 + a13 * c3 + a14 * c4 + a15 * c5
    pP[2] += pA[2] + u2 * g + a02 * c0 + a12 * c1 + a22 * c2 + a23 * c3 + a24 * c4 + a25 * c5
    pP[3] += pA[3] + u3 * g + a03 * c0 + a13 * c1 + a23 * c2 + a33 * c3 + a34 * c4 + a35 * c5
    pP[4] += pA[4] + u4 * g + a04 * c0 + a14 * c1 + a24 * c2 + a34 * c3 + a44 * c4 + a45 * c5
    pP[5] += pA[5] + u5 * g + a05 * c0 + a15 * c1 + a25 * c2 + a35 * c3 + a45 * c4 + a55 * c5
    w0, w1, w2, w3, w4, w5 = u0 * iD, u1 * iD, u2 * iD, u3 * iD, u4 * iD, u5 * iD
    IP[0, 0] += a00 - w0 * u0
    IP[0, 1] += a01 - w0 * u1
    IP[0, 2] += a02 - w0 * u2
    IP[0, 3] += a03 - w0 * u3
    IP[0, 4] += a04 - w0 * u4
    IP[0, 5] += a05 - w0 * u5
    IP[1, 1] += a11 - w1 * u1
    IP[1, 2] += a12 - w1 * u2
    IP[1, 3] += a13 - w1 * u3
    IP[1, 4] += a14 - w1 * u4
    IP[1, 5] += a15 - w1 * u5
    IP[2, 2] += a22 - w2 * u2
    IP[2, 3] += a23 - w2 * u3
    IP[2, 4] += a24 - w2 * u4
    IP[2, 5] += a25 - w2 * u5
    IP[3, 3] += a33 - w3 * u3
    IP[3, 4] += a34 - w3 * u4
    IP[3, 5] += a35 - w3 * u5
    IP[4, 4] += a44 - w4 * u4
    IP[4, 5] += a45 - w4 * u5
    IP[5, 5] += a55 - w5 * u5
    return iD, uj


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _world_in_body(R, p, Rt, pt):
    """Placement of the world frame in a body placed at ``(R, p)``: ``Rt = R^T``, ``pt = -R^T p``."""
    for r in range(3):
        for s in range(3):
            Rt[r, s] = R[s, r]
    for r in range(3):
        pt[r] = -(R[0, r] * p[0] + R[1, r] * p[1] + R[2, r] * p[2])


@njit(cache=True, fastmath=FASTMATH)
def aba_world(m, d, v, tau, fext, ddq):
    """``ddq`` (nv,) solving ``M(q) ddq + b(q, v) = tau + J^T fext`` by ABA in world coordinates
    (Featherstone Table 7.1 with ``X = 1`` between bodies); :func:`world_kinematics` must have run
    for the same ``(q, v)``. ``fext`` (nb, 6): world wrenches about the world origin (module
    docstring). Returns False if a joint's articulated inertia is not positive definite.

    A 1-DoF joint: ``U = I^A S``, ``D = S^T U + armature``, ``u = tau - S^T p^A``; the parent gets
    ``I^A - U U^T / D`` and ``p^A + I^A c + U (u - U^T c) / D`` (= ``p^a`` of Table 7.1) added,
    no transform. A free joint on the world is solved in its body axes (one congruence for it
    alone); other multi-DoF joints use ``D^-1`` of their columns.
    """
    m = borrow_all(m)
    d = borrow_all(d)
    nb = m.body_parent.shape[0]
    vJ = d.tmp6
    for i in range(1, nb):
        par = m.body_parent[i]
        for k in range(6):
            vJ[k] = d.ov[i, k] - d.ov[par, k]
        motion_cross(d.ov[i], vJ, d.c[i])
        _rigid_body_bias(d.oR[i], d.op[i], m.body_I[i], d.ov[i], fext[i], d.IA[i], d.pA[i])
    Rt = d.tmpR
    pt = d.tmp3
    for i in range(nb - 1, 0, -1):
        da = m.jnt_dofadr[i]
        n = m.jnt_nv[i]
        IA = d.IA[i]
        pA = d.pA[i]
        par = m.body_parent[i]
        c = d.c[i]
        if n == 1:
            iD, ui = _one_dof_downdate(IA, d.oS[da], pA, c, m.dof_armature[da], tau[da], d.U[da], d.IA[par],
                                       d.pA[par], par > 0)
            if iD == 0.0:
                return False
            d.Dinv[i, 0, 0] = iD
            d.u[da] = ui
            continue
        _mirror_upper(IA)  # complete now: every child has added its upper triangle
        if n == 0:
            if par > 0:
                for r in range(6):
                    d.pA[par, r] += pA[r]
                    for s_ in range(r, 6):
                        d.IA[par, r, s_] += IA[r, s_]
            continue
        if n == 6 and par == 0 and m.jnt_type[i] == JOINT_FREE:
            # S = X_(O<-i): D = S^T I^A S and S^T p^A are I^A and p^A in the body's axes
            _world_in_body(d.oR[i], d.op[i], Rt, pt)
            L = d.Dinv[i]
            pb = d.tmp6b
            for r in range(6):
                pb[r] = 0.0
                for s_ in range(6):
                    L[r, s_] = 0.0
            inertia_to_parent_add(Rt, pt, IA, L)
            force_to_parent_add(Rt, pt, pA, pb)
            for r in range(6):
                d.u[da + r] = tau[da + r] - pb[r]
                L[r, r] += m.dof_armature[da + r]
            if not cholesky6_inplace(L):
                return False
            continue
        if not _multi_dof_joint(m, d, i, tau):
            return False
    for i in range(1, nb):
        par = m.body_parent[i]
        ai = d.a[i]
        da = m.jnt_dofadr[i]
        n = m.jnt_nv[i]
        a0 = d.a[par, 0] + d.c[i, 0]
        a1 = d.a[par, 1] + d.c[i, 1]
        a2 = d.a[par, 2] + d.c[i, 2]
        a3 = d.a[par, 3] + d.c[i, 3]
        a4 = d.a[par, 4] + d.c[i, 4]
        a5 = d.a[par, 5] + d.c[i, 5]
        if n == 1:
            S = d.oS[da]
            U = d.U[da]
            qdd = d.Dinv[i, 0, 0] * (d.u[da] - (U[0] * a0 + U[1] * a1 + U[2] * a2 + U[3] * a3 + U[4] * a4
                                                + U[5] * a5))
            ddq[da] = qdd
            ai[0] = a0 + S[0] * qdd
            ai[1] = a1 + S[1] * qdd
            ai[2] = a2 + S[2] * qdd
            ai[3] = a3 + S[3] * qdd
            ai[4] = a4 + S[4] * qdd
            ai[5] = a5 + S[5] * qdd
            continue
        ai[0], ai[1], ai[2], ai[3], ai[4], ai[5] = a0, a1, a2, a3, a4, a5
        if n == 6 and par == 0 and m.jnt_type[i] == JOINT_FREE:
            # D ddq = u - S^T I^A a_parent (c = 0 for a joint on the world); a_i = a_parent + S ddq
            _world_in_body(d.oR[i], d.op[i], Rt, pt)
            mat6_vec(d.IA[i], ai, d.tmp6)
            fb = d.tmp6b
            for k in range(6):
                fb[k] = 0.0
            force_to_parent_add(Rt, pt, d.tmp6, fb)
            for k in range(6):
                ddq[da + k] = d.u[da + k] - fb[k]
            cholesky6_solve(d.Dinv[i], ddq, da)
            motion_to_child(Rt, pt, ddq[da:da + 6], d.tmp6)
            for k in range(6):
                ai[k] += d.tmp6[k]
            continue
        if n > 1:
            multi_dof_acceleration(d, i, da, n, d.oS, ai, ddq)
    return True


@njit(cache=True, fastmath=FASTMATH)
def _multi_dof_joint(m, d, i, tau):
    """Pass 2 of :func:`aba_world` for an n-DoF joint (1 < n <= 6) of body i: ``U = I^A S``,
    ``u = tau - S^T p^A``, ``D^-1`` into ``d.Dinv[i]``; the parent gets ``I^a = I^A - U D^-1 U^T``
    and ``p^a = p^A + I^a c + U D^-1 u`` (:func:`._aba.multi_dof_downdate`)."""
    da = m.jnt_dofadr[i]
    n = m.jnt_nv[i]
    IA = d.IA[i]
    pA = d.pA[i]
    par = m.body_parent[i]
    for j in range(n):
        mat6_vec(IA, d.oS[da + j], d.U[da + j])
        s = 0.0
        for k in range(6):
            s += d.oS[da + j, k] * pA[k]
        d.u[da + j] = tau[da + j] - s
    Dinv = d.Dinv[i]
    for j in range(n):
        for jj in range(n):
            s = 0.0
            for k in range(6):
                s += d.oS[da + j, k] * d.U[da + jj, k]
            Dinv[j, jj] = s
        Dinv[j, j] += m.dof_armature[da + j]
    if not _spd_inverse_inplace(Dinv, n):
        return False
    if par == 0:
        return True
    pa = d.tmp6
    multi_dof_downdate(d, i, da, n, d.tmp66b, pa)
    for r in range(6):
        d.pA[par, r] += pa[r]
        for s_ in range(r, 6):
            d.IA[par, r, s_] += IA[r, s_]
    return True


@njit(cache=True, fastmath=FASTMATH, inline="always")
def add_point_force(fext, body, x0, x1, x2, f0, f1, f2):
    """Add the force ``f = (f0, f1, f2)`` N (world axes) applied at the world point
    ``x = (x0, x1, x2)`` m to body ``body``'s world wrench about the world origin:
    ``fext[body] += (f, x x f)`` (its generalised force is ``J_x^T f``)."""
    fext[body, 0] += f0
    fext[body, 1] += f1
    fext[body, 2] += f2
    fext[body, 3] += x1 * f2 - x2 * f1
    fext[body, 4] += x2 * f0 - x0 * f2
    fext[body, 5] += x0 * f1 - x1 * f0


@njit(cache=True, fastmath=FASTMATH)
def forward_dynamics_world(m, d, q, v, tau, fext, ddq):
    """``ddq`` of ``tau`` plus the joint passive forces (``d.qfrc_passive``) and the world wrenches
    ``fext`` (nb, 6), by :func:`aba_world`; :func:`world_kinematics` must have run for ``(q, v)``."""
    m = borrow_all(m)
    d = borrow_all(d)
    passive_forces(m, q, v, d.qfrc_passive)
    for k in range(tau.shape[0]):
        d.qfrc_passive[k] += tau[k]
    return aba_world(m, d, v, d.qfrc_passive, fext, ddq)
