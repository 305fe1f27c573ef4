"""Compiled rigid-body dynamics kernels (numba): kinematics, RNEA, CRBA, ABA, Jacobians, joint force laws.

The joint placements live in :mod:`._placements`, ABA and the joint force laws in :mod:`._aba`;
both are re-exported here, so kernel users import everything from this module.

Every kernel takes ``m`` (a :class:`ModelArrays` named tuple of read-only arrays) and ``d`` (a
:class:`DataArrays` named tuple of preallocated scratch) and never allocates, so a caller's own
numba loop (contact, integrator) can call them directly. Public, validating wrappers are in
:mod:`legsim.multibody.dynamics`.

Each kernel borrows the arrays of ``m`` and ``d`` (:mod:`legsim._borrow`): the per-body views its
loops take then cost no atomic reference counting.

``aba``, ``rnea`` (via ``forward_kinematics``) and ``crba`` differ in what they leave in ``d``:
``forward_kinematics``/``rnea``/``frame_jacobian`` update world placements ``oR, op``; ``aba`` and
``crba`` update only the local placements ``liR, lip`` (call ``joint_placements`` for world ones).

Tree layout: body 0 is the world; body ``i >= 1`` hangs from ``body_parent[i] < i`` through its own
joint (joint index = body index). Joint types: ``FREE`` (7 q, 6 v), ``REVOLUTE`` and ``PRISMATIC``
(1 q, 1 v). Fixed joints are merged away when the model is compiled. Body frame = joint frame.
Velocities and accelerations are body twists in body coordinates, linear part first; the motion
subspace ``S`` of every joint type is constant in body coordinates, so the joint bias ``c_J = 0``.

Algorithms: Featherstone, *Rigid Body Dynamics Algorithms* (2008): RNEA Table 5.1, CRBA Table 6.2,
ABA Table 7.1, all with gravity entered as a fictitious base acceleration ``a_0 = -g``.
"""

from __future__ import annotations

from numba import njit

from .._borrow import borrow_all
from ._aba import (  # noqa: F401 (ABA and the joint force laws, re-exported)
    aba,
    forward_dynamics,
    passive_forces,
)
from ._layout import (  # noqa: F401 (codes re-exported for kernel users)
    JOINT_FREE,
    JOINT_NONE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    REF_LOCAL,
    REF_LOCAL_WORLD_ALIGNED,
    REF_WORLD,
    DataArrays,
    ModelArrays,
)
from ._placements import _init_world, local_placements  # noqa: F401 (re-exported)
from ._spatial import (
    compose,
    force_cross_add,
    force_to_parent_add,
    inertia_to_parent_add,
    mat6_vec,
    motion_cross,
    motion_to_child,
)


@njit(cache=True)
def joint_placements(m, d, q):
    """Local placements (:func:`local_placements`) and world placements ``oR, op`` of all bodies."""
    m = borrow_all(m)
    d = borrow_all(d)
    local_placements(m, d, q)
    _init_world(m, d)
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        par = m.body_parent[i]
        compose(d.oR[par], d.op[par], d.liR[i], d.lip[i], d.oR[i], d.op[i])


@njit(cache=True)
def forward_kinematics(m, d, q, v, a):
    """Placements, twists ``v`` and accelerations ``a`` (incl. ``-g``) of all bodies.

    ``q`` (nq,), ``v`` (nv,), ``a`` (nv,) generalised acceleration. Writes ``d.v``, ``d.a`` (body axes).
    """
    m = borrow_all(m)
    d = borrow_all(d)
    _init_world(m, d)
    joint_placements(m, d, q)
    nb = m.body_parent.shape[0]
    vJ = d.tmp6
    for i in range(1, nb):
        par = m.body_parent[i]
        motion_to_child(d.liR[i], d.lip[i], d.v[par], d.v[i])
        motion_to_child(d.liR[i], d.lip[i], d.a[par], d.a[i])
        for k in range(6):
            vJ[k] = 0.0
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            S = m.dof_S[da + j]
            for k in range(6):
                vJ[k] += S[k] * v[da + j]
                d.a[i, k] += S[k] * a[da + j]
        for k in range(6):
            d.v[i, k] += vJ[k]
        motion_cross(d.v[i], vJ, d.c[i])
        for k in range(6):
            d.a[i, k] += d.c[i, k]


@njit(cache=True)
def rnea(m, d, q, v, a, fext, tau):
    """Inverse dynamics (Featherstone Table 5.1): ``tau = M(q) a + b(q, v) - J^T fext``.

    ``fext`` (nb, 6) wrenches on each body in body axes (N, N m); writes ``tau`` (nv,).
    """
    m = borrow_all(m)
    d = borrow_all(d)
    forward_kinematics(m, d, q, v, a)
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        mat6_vec(m.body_I[i], d.a[i], d.f[i])
        mat6_vec(m.body_I[i], d.v[i], d.tmp6)
        force_cross_add(d.v[i], d.tmp6, d.f[i])
        for k in range(6):
            d.f[i, k] -= fext[i, k]
    for i in range(nb - 1, 0, -1):
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            S = m.dof_S[da + j]
            s = 0.0
            for k in range(6):
                s += S[k] * d.f[i, k]
            tau[da + j] = s + m.dof_armature[da + j] * a[da + j]
        par = m.body_parent[i]
        if par > 0:
            force_to_parent_add(d.liR[i], d.lip[i], d.f[i], d.f[par])


@njit(cache=True)
def crba(m, d, q, M):
    """Joint-space mass matrix ``M(q)`` (nv, nv), Featherstone Table 6.2 (composite rigid bodies).

    Fills the full symmetric matrix; the armature is added on the diagonal.
    """
    m = borrow_all(m)
    d = borrow_all(d)
    local_placements(m, d, q)
    nb = m.body_parent.shape[0]
    nv = M.shape[0]
    for r in range(nv):
        for s in range(nv):
            M[r, s] = 0.0
    for i in range(1, nb):
        for r in range(6):
            for s in range(6):
                d.IA[i, r, s] = m.body_I[i, r, s]
    F = d.tmp6
    G = d.tmp6b
    for i in range(nb - 1, 0, -1):
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            col = da + j
            mat6_vec(d.IA[i], m.dof_S[col], F)
            b = i
            while b > 0:
                db = m.jnt_dofadr[b]
                for jj in range(m.jnt_nv[b]):
                    S = m.dof_S[db + jj]
                    s = 0.0
                    for k in range(6):
                        s += S[k] * F[k]
                    M[db + jj, col] = s
                    M[col, db + jj] = s
                par = m.body_parent[b]
                if par > 0:
                    for k in range(6):
                        G[k] = 0.0
                    force_to_parent_add(d.liR[b], d.lip[b], F, G)
                    for k in range(6):
                        F[k] = G[k]
                b = par
        par = m.body_parent[i]
        if par > 0:
            inertia_to_parent_add(d.liR[i], d.lip[i], d.IA[i], d.IA[par])
    for r in range(nv):
        M[r, r] += m.dof_armature[r]


@njit(cache=True)
def frame_world_placement(m, d, fid, R, p):
    """World placement ``(R, p)`` of frame ``fid`` (after :func:`joint_placements`)."""
    m = borrow_all(m)
    d = borrow_all(d)
    b = m.frame_body[fid]
    compose(d.oR[b], d.op[b], m.frame_R[fid], m.frame_p[fid], R, p)


@njit(cache=True)
def frame_jacobian(m, d, fid, reference, J):
    """Frame Jacobian (6, nv) after :func:`joint_placements`; rows ``[v; w]``.

    ``reference``: REF_WORLD (twist at the world origin, world axes), REF_LOCAL_WORLD_ALIGNED
    (velocity of the frame origin and angular velocity, world axes) or REF_LOCAL (frame axes).
    """
    m = borrow_all(m)
    d = borrow_all(d)
    nv = J.shape[1]
    for r in range(6):
        for k in range(nv):
            J[r, k] = 0.0
    R = d.tmp66[:3, :3]
    p = d.tmp6[:3]
    frame_world_placement(m, d, fid, R, p)
    b = m.frame_body[fid]
    while b > 0:
        oR = d.oR[b]
        op = d.op[b]
        da = m.jnt_dofadr[b]
        for j in range(m.jnt_nv[b]):
            S = m.dof_S[da + j]
            col = da + j
            for r in range(3):
                J[3 + r, col] = oR[r, 0] * S[3] + oR[r, 1] * S[4] + oR[r, 2] * S[5]
                J[r, col] = oR[r, 0] * S[0] + oR[r, 1] * S[1] + oR[r, 2] * S[2]
            w0, w1, w2 = J[3, col], J[4, col], J[5, col]
            if reference == REF_WORLD:
                # v(0) = v(o_b) + w x (0 - o_b)
                J[0, col] += op[1] * w2 - op[2] * w1
                J[1, col] += op[2] * w0 - op[0] * w2
                J[2, col] += op[0] * w1 - op[1] * w0
            else:
                # v(p) = v(o_b) + w x (p - o_b)
                r0 = p[0] - op[0]
                r1 = p[1] - op[1]
                r2 = p[2] - op[2]
                J[0, col] += w1 * r2 - w2 * r1
                J[1, col] += w2 * r0 - w0 * r2
                J[2, col] += w0 * r1 - w1 * r0
                if reference == REF_LOCAL:
                    for half in range(2):
                        x0 = J[3 * half, col]
                        x1 = J[3 * half + 1, col]
                        x2 = J[3 * half + 2, col]
                        for r in range(3):
                            J[3 * half + r, col] = R[0, r] * x0 + R[1, r] * x1 + R[2, r] * x2
        b = m.body_parent[b]


@njit(cache=True)
def add_world_force(d, body, point, force, fext):
    """Add a force (3,) N in world axes applied at ``point`` (3,) m in world coordinates on ``body``
    to ``fext[body]`` as a body-axes wrench about the body origin (after world placements):
    ``f_b = R^T f``, ``n_b = R^T ((point - o_b) x f)``. Its generalised force is ``J_point^T f``."""
    d = borrow_all(d)
    R = d.oR[body]
    o = d.op[body]
    r0 = point[0] - o[0]
    r1 = point[1] - o[1]
    r2 = point[2] - o[2]
    n0 = r1 * force[2] - r2 * force[1]
    n1 = r2 * force[0] - r0 * force[2]
    n2 = r0 * force[1] - r1 * force[0]
    for k in range(3):
        fext[body, k] += R[0, k] * force[0] + R[1, k] * force[1] + R[2, k] * force[2]
        fext[body, 3 + k] += R[0, k] * n0 + R[1, k] * n1 + R[2, k] * n2


@njit(cache=True)
def frame_velocity(m, d, fid, reference, out):
    """Frame twist (6,) after :func:`forward_kinematics` (same ``reference`` codes as the Jacobian)."""
    m = borrow_all(m)
    d = borrow_all(d)
    b = m.frame_body[fid]
    motion_to_child(m.frame_R[fid], m.frame_p[fid], d.v[b], out)
    if reference == REF_LOCAL:
        return
    R = d.tmp66[:3, :3]
    p = d.tmp6[:3]
    frame_world_placement(m, d, fid, R, p)
    for half in range(2):
        x0 = out[3 * half]
        x1 = out[3 * half + 1]
        x2 = out[3 * half + 2]
        for r in range(3):
            out[3 * half + r] = R[r, 0] * x0 + R[r, 1] * x1 + R[r, 2] * x2
    if reference == REF_WORLD:
        w0, w1, w2 = out[3], out[4], out[5]
        out[0] -= w1 * p[2] - w2 * p[1]
        out[1] -= w2 * p[0] - w0 * p[2]
        out[2] -= w0 * p[1] - w1 * p[0]
