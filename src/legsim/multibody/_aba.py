"""Forward dynamics of the compiled rigid-body kernels (numba): the articulated-body algorithm
(Featherstone (2008) Table 7.1) and the joint force laws it adds (damping, regularised Coulomb
friction, limit spring-dampers). Conventions (model/data arrays, body twists, gravity as a base
acceleration): :mod:`._kernels`, which re-exports these kernels.
"""

from __future__ import annotations

import math

from numba import njit

from .._borrow import borrow_all
from .._fastmath import FASTMATH
from ._placements import _init_world, local_placements
from ._spatial import (
    cholesky6_inplace,
    cholesky6_solve,
    downdated_inertia_to_parent_add,
    force_cross_add,
    force_to_parent_add,
    inertia_to_parent_add,
    mat6_vec,
    motion_cross,
    motion_to_child,
)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _spd_inverse_inplace(A, n):
    """Gauss-Jordan inversion in place of the leading n x n block of a symmetric positive definite A
    (inlined: a literal ``n`` lets the compiler unroll the loops)."""
    for k in range(n):
        piv = A[k, k]
        if not piv > 0.0:
            return False
        A[k, k] = 1.0
        ipiv = 1.0 / piv
        for j in range(n):
            A[k, j] *= ipiv
        for i in range(n):
            if i != k:
                f = A[i, k]
                A[i, k] = 0.0
                for j in range(n):
                    A[i, j] -= f * A[k, j]
    return True


@njit(cache=True, fastmath=FASTMATH, inline="always")
def multi_dof_downdate(d, i, da, n, W, pa):
    """For an n-DoF joint of body i whose ``d.U`` (columns ``da:da+n``), ``d.u`` and ``d.Dinv[i]``
    are set: ``W = U D^-1`` (6, n) into ``W``, the articulated inertia ``I^a = I^A - W U^T`` in
    place of ``d.IA[i]`` and the bias ``p^a = p^A + I^a c + W u`` into ``pa`` (Featherstone
    Table 7.1), in whichever coordinates ``d`` holds them."""
    IA = d.IA[i]
    Dinv = d.Dinv[i]
    for r in range(6):
        for j in range(n):
            s = 0.0
            for jj in range(n):
                s += d.U[da + jj, r] * Dinv[jj, j]
            W[r, j] = s
    for r in range(6):
        for s_ in range(6):
            acc = 0.0
            for j in range(n):
                acc += W[r, j] * d.U[da + j, s_]
            IA[r, s_] -= acc
    for r in range(6):
        acc = d.pA[i, r]
        for s_ in range(6):
            acc += IA[r, s_] * d.c[i, s_]
        for j in range(n):
            acc += W[r, j] * d.u[da + j]
        pa[r] = acc


@njit(cache=True, fastmath=FASTMATH, inline="always")
def multi_dof_acceleration(d, i, da, n, S, ai, ddq):
    """Pass 3 for an n-DoF joint of body i: ``ddq = D^-1 (u - U^T a)`` into ``ddq[da:da+n]``, then
    ``a += S ddq`` (``S`` (nv, 6): the motion subspace columns in the coordinates of ``ai`` (6))."""
    for j in range(n):
        s = d.u[da + j]
        for k in range(6):
            s -= d.U[da + j, k] * ai[k]
        d.tmp6b[j] = s
    for j in range(n):
        s = 0.0
        for jj in range(n):
            s += d.Dinv[i, j, jj] * d.tmp6b[jj]
        ddq[da + j] = s
    for j in range(n):
        for k in range(6):
            ai[k] += S[da + j, k] * ddq[da + j]


@njit(cache=True, fastmath=FASTMATH)
def aba(m, d, q, v, tau, fext, ddq):
    """Forward dynamics by the articulated-body algorithm (Featherstone Table 7.1).

    Solves ``M(q) ddq + b(q, v) = tau + J^T fext`` for ``ddq`` (nv,), in O(nbody). ``fext`` (nb, 6)
    wrenches on the bodies in body axes. Returns False if an articulated joint inertia is not
    positive definite (massless leaf body).
    """
    m = borrow_all(m)
    d = borrow_all(d)
    _init_world(m, d)
    local_placements(m, d, q)
    return _aba_passes(m, d, v, tau, fext, ddq)


@njit(cache=True, fastmath=FASTMATH)
def _aba_passes(m, d, v, tau, fext, ddq):
    """ABA's three passes (Featherstone Table 7.1) on current local placements; the first pass also
    computes the body twists ``d.v``.

    A 1-DoF joint whose motion subspace is a unit axis ``S = e_k`` (``m.dof_axis``) reads
    ``U = I^A S`` as column k of ``I^A``, ``D = U_k``, ``S^T p^A = p^A_k``: no 6x6 products. The
    articulated inertia is symmetric: ``d.IA[i]`` is complete (both halves) when body i is reached;
    a 1-DoF joint's rank-1 downdate ``I^a = I^A - U U^T / D`` is never stored, it is formed entry by
    entry (upper triangle) inside :func:`downdated_inertia_to_parent_add`, and
    ``p^a = p^A + I^a c + U u / D`` is evaluated as ``p^A + I^A c + U (u - U^T c) / D`` (the same
    value). A free root joint (``S = 1``) solves with the Cholesky factor of ``D = I^A + armature``
    (kept in ``d.Dinv``) instead of inverting it.
    """
    nb = m.body_parent.shape[0]
    vJ = d.tmp6
    for i in range(1, nb):
        par = m.body_parent[i]
        motion_to_child(d.liR[i], d.lip[i], d.v[par], d.v[i])
        for k in range(6):
            vJ[k] = 0.0
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            S = m.dof_S[da + j]
            for k in range(6):
                vJ[k] += S[k] * v[da + j]
        for k in range(6):
            d.v[i, k] += vJ[k]
        motion_cross(d.v[i], vJ, d.c[i])
        for r in range(6):
            for s in range(6):
                d.IA[i, r, s] = m.body_I[i, r, s]
        mat6_vec(m.body_I[i], d.v[i], d.tmp6b)
        for k in range(6):
            d.pA[i, k] = -fext[i, k]
        force_cross_add(d.v[i], d.tmp6b, d.pA[i])
    for i in range(nb - 1, 0, -1):
        da = m.jnt_dofadr[i]
        n = m.jnt_nv[i]
        IA = d.IA[i]
        pA = d.pA[i]
        par = m.body_parent[i]
        if n == 1:  # revolute/prismatic: scalar D, rank-1 update
            U = d.U[da]
            ax = m.dof_axis[da]
            if ax >= 0:
                for r in range(6):
                    U[r] = IA[r, ax]
                D = m.dof_armature[da] + U[ax]
                s = pA[ax]
            else:
                S = m.dof_S[da]
                mat6_vec(IA, S, U)
                D = m.dof_armature[da]
                s = 0.0
                for k in range(6):
                    D += S[k] * U[k]
                    s += S[k] * pA[k]
            if not D > 0.0:
                return False
            iD = 1.0 / D
            d.Dinv[i, 0, 0] = iD
            ui = tau[da] - s
            d.u[da] = ui
            if par > 0:
                c0, c1, c2, c3, c4, c5 = d.c[i, 0], d.c[i, 1], d.c[i, 2], d.c[i, 3], d.c[i, 4], d.c[i, 5]
                u0, u1, u2, u3, u4, u5 = U[0], U[1], U[2], U[3], U[4], U[5]
                g = (ui - (u0 * c0 + u1 * c1 + u2 * c2 + u3 * c3 + u4 * c4 + u5 * c5)) * iD
                pa = d.tmp6
                for r in range(6):
                    pa[r] = (pA[r] + U[r] * g + IA[r, 0] * c0 + IA[r, 1] * c1 + IA[r, 2] * c2
                             + IA[r, 3] * c3 + IA[r, 4] * c4 + IA[r, 5] * c5)
                downdated_inertia_to_parent_add(d.liR[i], d.lip[i], IA, U, iD, d.IA[par])
                force_to_parent_add(d.liR[i], d.lip[i], pa, d.pA[par])
            continue
        if n == 6 and par == 0:  # free root joint, S = 1: U = IA, D = IA + armature (Cholesky)
            L = d.Dinv[i]
            for r in range(6):
                d.u[da + r] = tau[da + r] - pA[r]
                for s_ in range(r + 1):
                    L[r, s_] = IA[r, s_]
                L[r, r] += m.dof_armature[da + r]
            if not cholesky6_inplace(L):
                return False
            continue
        for j in range(n):  # U = IA S, u = tau - S^T pA (unit axes: columns / entries)
            ax = m.dof_axis[da + j]
            if ax >= 0:
                for k in range(6):
                    d.U[da + j, k] = IA[k, ax]
                s = pA[ax]
            else:
                mat6_vec(IA, m.dof_S[da + j], d.U[da + j])
                s = 0.0
                for k in range(6):
                    s += m.dof_S[da + j, k] * pA[k]
            d.u[da + j] = tau[da + j] - s
        Dinv = d.Dinv[i]
        for j in range(n):  # D = S^T U + armature, inverted in place
            ax = m.dof_axis[da + j]
            for jj in range(n):
                if ax >= 0:
                    s = d.U[da + jj, ax]
                else:
                    s = 0.0
                    for k in range(6):
                        s += m.dof_S[da + j, k] * d.U[da + jj, k]
                Dinv[j, jj] = s
            Dinv[j, j] += m.dof_armature[da + j]
        if n == 6:  # free joint
            if not _spd_inverse_inplace(Dinv, 6):
                return False
        elif not _spd_inverse_inplace(Dinv, n):
            return False
        if par > 0:
            pa = d.tmp6
            multi_dof_downdate(d, i, da, n, d.tmp66b, pa)
            inertia_to_parent_add(d.liR[i], d.lip[i], IA, d.IA[par])
            force_to_parent_add(d.liR[i], d.lip[i], pa, d.pA[par])
    for i in range(1, nb):
        par = m.body_parent[i]
        ai = d.a[i]
        motion_to_child(d.liR[i], d.lip[i], d.a[par], ai)
        for k in range(6):
            ai[k] += d.c[i, k]
        da = m.jnt_dofadr[i]
        n = m.jnt_nv[i]
        if n == 1:
            U = d.U[da]
            s = d.u[da]
            for k in range(6):
                s -= U[k] * ai[k]
            qdd = d.Dinv[i, 0, 0] * s
            ddq[da] = qdd
            ax = m.dof_axis[da]
            if ax >= 0:
                ai[ax] += qdd
            else:
                for k in range(6):
                    ai[k] += m.dof_S[da, k] * qdd
            continue
        if n == 6 and par == 0:  # free root: D ddq = u - IA a, by the Cholesky factor of D
            for j in range(6):
                s = d.u[da + j]
                for k in range(6):
                    s -= d.IA[i, j, k] * ai[k]
                ddq[da + j] = s
            cholesky6_solve(d.Dinv[i], ddq, da)
            for k in range(6):
                ai[k] += ddq[da + k]
            continue
        multi_dof_acceleration(d, i, da, n, m.dof_S, ai, ddq)
    return True


@njit(cache=True, fastmath=FASTMATH)
def passive_forces(m, q, v, out):
    """Joint damping, regularised Coulomb friction and limit spring-dampers, ``out`` (nv,).

    For each 1-DoF joint with coordinate ``x``, rate ``xd``::

        tau = -b xd - F_c tanh(xd / v_f) + tau_lim
        tau_lim = max(0, k (lo - x) - c xd)   if x < lo   (pushes up)
                 -max(0, k (x - hi) + c xd)   if x > hi   (pushes down)

    ``v_f = opt[0]`` is the friction regularisation velocity (``|tau_fric| >= 0.76 F_c`` once
    ``|xd| > v_f``). The ``max(0, .)`` keeps the limit unilateral: it never pulls the joint back into
    the limit when it separates fast (Hunt-Crossley-like clamp). Free-joint DoFs get 0.
    """
    m = borrow_all(m)
    vf = m.opt[0]
    for k in range(out.shape[0]):
        qa = m.dof_qposadr[k]
        if qa < 0:
            out[k] = 0.0
            continue
        x = q[qa]
        xd = v[k]
        t = -m.dof_damping[k] * xd
        if m.dof_frictionloss[k] > 0.0:
            t -= m.dof_frictionloss[k] * math.tanh(xd / vf)
        if m.dof_limited[k] != 0:
            lo = m.dof_range[k, 0]
            hi = m.dof_range[k, 1]
            if x < lo:
                t += max(0.0, m.dof_limit_stiffness[k] * (lo - x) - m.dof_limit_damping[k] * xd)
            elif x > hi:
                t -= max(0.0, m.dof_limit_stiffness[k] * (x - hi) + m.dof_limit_damping[k] * xd)
        out[k] = t


@njit(cache=True, fastmath=FASTMATH)
def forward_dynamics(m, d, q, v, tau, fext, ddq):
    """``ddq`` of ``tau`` plus the joint passive forces (``d.qfrc_passive``) and the body-axes
    wrenches ``fext``, by :func:`aba` (world-coordinate twin: ``_aba_world.forward_dynamics_world``)."""
    m = borrow_all(m)
    d = borrow_all(d)
    passive_forces(m, q, v, d.qfrc_passive)
    for k in range(tau.shape[0]):
        d.qfrc_passive[k] += tau[k]
    return aba(m, d, q, v, d.qfrc_passive, fext, ddq)
