"""Spatial (6-D) algebra kernels for rigid bodies, compiled with numba.

Conventions (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, ch. 2, with Pinocchio's ordering):

- A spatial motion (twist) is ``m = [v, w]`` (linear first, then angular), a spatial force (wrench)
  is ``f = [f, n]`` (force first, then moment), both 6-vectors in SI units (m/s, rad/s; N, N m).
- A placement ``(R, p)`` of frame B in frame A holds ``R = A_R_B`` (3x3) and ``p`` = origin of B in A
  coordinates (m).
- ``motion_transform(R, p, X)`` writes the 6x6 matrix that maps a twist in A coordinates to the
  same twist in B coordinates (``B_X_A``, Featherstone (2.24) reordered); the force transform
  A <- B is its transpose.
- The spatial inertia of a body of mass m, centre of mass c and rotational inertia Ic about the
  centre of mass, both in body coordinates, is (Featherstone (2.63) reordered)
  ``[[m 1, -m [c]x], [m [c]x, Ic - m [c]x [c]x]]``.

All functions write into caller-provided arrays and never allocate, so they can be called inside the
dynamics kernels of :mod:`legsim.multibody._kernels`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._fastmath import FASTMATH


@njit(cache=True, fastmath=FASTMATH, inline="always")
def quat_rotation(qx, qy, qz, qw):
    """Rotation matrix of the unit quaternion ``(qx, qy, qz, qw)`` (Hamilton convention, scalar last
    as in Pinocchio/Eigen) as 9 numbers, row by row. The quaternion is normalised first."""
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    x = qx / n
    y = qy / n
    z = qz / n
    w = qw / n
    return (1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
            2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
            2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _store3x3(R, r):
    R[0, 0], R[0, 1], R[0, 2] = r[0], r[1], r[2]
    R[1, 0], R[1, 1], R[1, 2] = r[3], r[4], r[5]
    R[2, 0], R[2, 1], R[2, 2] = r[6], r[7], r[8]


@njit(cache=True, fastmath=FASTMATH)
def quat_to_rot(qx, qy, qz, qw, R):
    """:func:`quat_rotation` into the (3, 3) array ``R``."""
    _store3x3(R, quat_rotation(qx, qy, qz, qw))


@njit(cache=True, fastmath=FASTMATH, inline="always")
def axis_angle_rotation(ax, ay, az, angle):
    """Rodrigues' formula: rotation by ``angle`` (rad) about the unit axis ``(ax, ay, az)``, as 9
    numbers row by row."""
    s = math.sin(angle)
    c = math.cos(angle)
    t = 1.0 - c
    return (c + ax * ax * t, ax * ay * t - az * s, ax * az * t + ay * s,
            ay * ax * t + az * s, c + ay * ay * t, ay * az * t - ax * s,
            az * ax * t - ay * s, az * ay * t + ax * s, c + az * az * t)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def matmul3(A, B, out):
    """``out = A @ B`` for 3x3 matrices (``out`` must not alias ``A`` or ``B``)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(cache=True, fastmath=FASTMATH)
def matvec3(A, x, out):
    """``out = A @ x`` for a 3x3 matrix and a 3-vector (no aliasing)."""
    for i in range(3):
        out[i] = A[i, 0] * x[0] + A[i, 1] * x[1] + A[i, 2] * x[2]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def compose(Ra, pa, Rb, pb, Rout, pout):
    """Placement composition ``(Ra, pa) * (Rb, pb)``: ``Rout = Ra Rb``, ``pout = pa + Ra pb``."""
    matmul3(Ra, Rb, Rout)
    for i in range(3):
        pout[i] = pa[i] + Ra[i, 0] * pb[0] + Ra[i, 1] * pb[1] + Ra[i, 2] * pb[2]


@njit(cache=True, fastmath=FASTMATH)
def motion_transform(R, p, X):
    """6x6 motion transform ``B_X_A`` for the placement ``(R, p)`` of B in A.

    ``B_X_A = [[R^T, -R^T [p]x], [0, R^T]]`` (Featherstone (2.24), linear part first).
    The force transform ``A_X*_B`` equals ``B_X_A^T``.
    """
    for i in range(6):
        for j in range(6):
            X[i, j] = 0.0
    for i in range(3):
        for j in range(3):
            X[i, j] = R[j, i]
            X[3 + i, 3 + j] = R[j, i]
    # -R^T [p]x : column k of [p]x is p x e_k
    for i in range(3):
        r0 = R[0, i]
        r1 = R[1, i]
        r2 = R[2, i]
        # row i of R^T is (r0, r1, r2); (R^T [p]x)[i, :] = (R^T row) x-product with p columns
        # [p]x = [[0,-p2,p1],[p2,0,-p0],[-p1,p0,0]]
        X[i, 3] = -(r1 * p[2] - r2 * p[1])
        X[i, 4] = -(-r0 * p[2] + r2 * p[0])
        X[i, 5] = -(r0 * p[1] - r1 * p[0])


@njit(cache=True, fastmath=FASTMATH, inline="always")
def motion_to_child(R, p, m_parent, m_child):
    """Twist in parent coordinates -> child coordinates for the child placement ``(R, p)``:
    ``w_c = R^T w``, ``v_c = R^T (v + w x p)``."""
    vx = m_parent[0] + m_parent[4] * p[2] - m_parent[5] * p[1]
    vy = m_parent[1] + m_parent[5] * p[0] - m_parent[3] * p[2]
    vz = m_parent[2] + m_parent[3] * p[1] - m_parent[4] * p[0]
    wx = m_parent[3]
    wy = m_parent[4]
    wz = m_parent[5]
    for i in range(3):
        m_child[i] = R[0, i] * vx + R[1, i] * vy + R[2, i] * vz
        m_child[3 + i] = R[0, i] * wx + R[1, i] * wy + R[2, i] * wz


@njit(cache=True, fastmath=FASTMATH, inline="always")
def force_to_parent_add(R, p, f_child, f_parent):
    """Add a wrench in child coordinates to ``f_parent`` in parent coordinates:
    ``f_p += R f``, ``n_p += R n + p x (R f)``."""
    fx = R[0, 0] * f_child[0] + R[0, 1] * f_child[1] + R[0, 2] * f_child[2]
    fy = R[1, 0] * f_child[0] + R[1, 1] * f_child[1] + R[1, 2] * f_child[2]
    fz = R[2, 0] * f_child[0] + R[2, 1] * f_child[1] + R[2, 2] * f_child[2]
    nx = R[0, 0] * f_child[3] + R[0, 1] * f_child[4] + R[0, 2] * f_child[5]
    ny = R[1, 0] * f_child[3] + R[1, 1] * f_child[4] + R[1, 2] * f_child[5]
    nz = R[2, 0] * f_child[3] + R[2, 1] * f_child[4] + R[2, 2] * f_child[5]
    f_parent[0] += fx
    f_parent[1] += fy
    f_parent[2] += fz
    f_parent[3] += nx + p[1] * fz - p[2] * fy
    f_parent[4] += ny + p[2] * fx - p[0] * fz
    f_parent[5] += nz + p[0] * fy - p[1] * fx


@njit(cache=True, fastmath=FASTMATH, inline="always")
def motion_cross(m, x, out):
    """Spatial motion cross product ``out = m x x`` (Featherstone (2.31)):
    ``[w x xv + v x xw, w x xw]``."""
    v0, v1, v2, w0, w1, w2 = m[0], m[1], m[2], m[3], m[4], m[5]
    a0, a1, a2, b0, b1, b2 = x[0], x[1], x[2], x[3], x[4], x[5]
    out[0] = w1 * a2 - w2 * a1 + v1 * b2 - v2 * b1
    out[1] = w2 * a0 - w0 * a2 + v2 * b0 - v0 * b2
    out[2] = w0 * a1 - w1 * a0 + v0 * b1 - v1 * b0
    out[3] = w1 * b2 - w2 * b1
    out[4] = w2 * b0 - w0 * b2
    out[5] = w0 * b1 - w1 * b0


@njit(cache=True, fastmath=FASTMATH, inline="always")
def force_cross_add(m, f, out):
    """Add the spatial force cross product ``m x* f`` (Featherstone (2.32)) to ``out``:
    ``[w x ff, w x fn + v x ff]``."""
    v0, v1, v2, w0, w1, w2 = m[0], m[1], m[2], m[3], m[4], m[5]
    a0, a1, a2, b0, b1, b2 = f[0], f[1], f[2], f[3], f[4], f[5]
    out[0] += w1 * a2 - w2 * a1
    out[1] += w2 * a0 - w0 * a2
    out[2] += w0 * a1 - w1 * a0
    out[3] += w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1
    out[4] += w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2
    out[5] += w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0


@njit(cache=True, fastmath=FASTMATH, inline="always")
def mat6_vec(A, x, out):
    """``out = A @ x`` for a 6x6 matrix (no aliasing)."""
    for i in range(6):
        s = 0.0
        for j in range(6):
            s += A[i, j] * x[j]
        out[i] = s


@njit(cache=True, fastmath=FASTMATH)
def congruence_add(X, A, tmp, out):
    """``out += X^T A X`` for 6x6 matrices (force-transform an inertia to the parent frame,
    Featherstone (2.66)); ``tmp`` is 6x6 scratch."""
    for i in range(6):
        for j in range(6):
            s = 0.0
            for k in range(6):
                s += A[i, k] * X[k, j]
            tmp[i, j] = s
    for i in range(6):
        for j in range(6):
            s = 0.0
            for k in range(6):
                s += X[k, i] * tmp[k, j]
            out[i, j] += s


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rot_sym3(R, a00, a01, a02, a11, a12, a22):
    """Upper entries ``(00, 01, 02, 11, 12, 22)`` of ``R A R^T`` for a symmetric 3x3 ``A`` given by
    its upper entries (``T = R A``, then only the upper half of ``T R^T``)."""
    r00, r01, r02 = R[0, 0], R[0, 1], R[0, 2]
    r10, r11, r12 = R[1, 0], R[1, 1], R[1, 2]
    r20, r21, r22 = R[2, 0], R[2, 1], R[2, 2]
    t00 = r00 * a00 + r01 * a01 + r02 * a02
    t01 = r00 * a01 + r01 * a11 + r02 * a12
    t02 = r00 * a02 + r01 * a12 + r02 * a22
    t10 = r10 * a00 + r11 * a01 + r12 * a02
    t11 = r10 * a01 + r11 * a11 + r12 * a12
    t12 = r10 * a02 + r11 * a12 + r12 * a22
    t20 = r20 * a00 + r21 * a01 + r22 * a02
    t21 = r20 * a01 + r21 * a11 + r22 * a12
    t22 = r20 * a02 + r21 * a12 + r22 * a22
    return (t00 * r00 + t01 * r01 + t02 * r02, t00 * r10 + t01 * r11 + t02 * r12,
            t00 * r20 + t01 * r21 + t02 * r22, t10 * r10 + t11 * r11 + t12 * r12,
            t10 * r20 + t11 * r21 + t12 * r22, t20 * r20 + t21 * r21 + t22 * r22)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _rot_row(R, i, x0, x1, x2):
    """Row ``i`` of ``R`` dotted with ``(x0, x1, x2)``."""
    return R[i, 0] * x0 + R[i, 1] * x1 + R[i, 2] * x2


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _add_sym3(out, o, s00, s01, s02, s11, s12, s22):
    """``out[o:o+3, o:o+3] +=`` the symmetric 3x3 with upper entries ``s``."""
    out[o, o] += s00
    out[o, o + 1] += s01
    out[o + 1, o] += s01
    out[o, o + 2] += s02
    out[o + 2, o] += s02
    out[o + 1, o + 1] += s11
    out[o + 1, o + 2] += s12
    out[o + 2, o + 1] += s12
    out[o + 2, o + 2] += s22


@njit(cache=True, fastmath=FASTMATH, inline="always")
def inertia_to_parent_add(R, p, A, out):
    """``out += X^T A X`` for a symmetric 6x6 (articulated) inertia ``A`` in child axes, ``X`` the
    motion transform of the child placement ``(R, p)`` (Featherstone (2.66); same result as
    :func:`congruence_add`). Reads only the upper triangle of ``A``; writes both halves of ``out``.
    See :func:`downdated_inertia_to_parent_add`."""
    downdated_inertia_to_parent_add(R, p, A, A[0], 0.0, out)


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _dd(A, U, iD, r, s):
    """Entry ``(r, s)`` of ``A - U U^T iD``."""
    return A[r, s] - U[r] * iD * U[s]


@njit(cache=True, fastmath=FASTMATH, inline="always")
def downdated_inertia_to_parent_add(R, p, A, U, iD, out):
    """``out += X^T (A - U U^T iD) X``: :func:`inertia_to_parent_add` of the rank-1 downdated
    inertia ``A - U U^T / D`` that ABA passes to the parent of a 1-DoF joint (Featherstone Table 7.1,
    ``I^a = I^A - U D^-1 U^T``; ``U`` (6,), ``iD = 1/D``), without storing it. ``iD = 0`` gives
    ``X^T A X``. Reads only the upper triangle of ``A``; writes both halves of ``out``.

    Uses ``X = diag(R^T, R^T) [[1, -P], [0, 1]]`` with ``P = [p]x``: rotate the blocks
    (``A' = R A11 R^T``, ``B' = R A12 R^T``, ``C' = R A22 R^T``, the symmetric ones by their 6 upper
    entries), then shift: ``C11 = A'``, ``C12 = B' - A' P``, ``C22 = C' - B'^T P + P C12``
    (symmetric: upper entries only). All intermediate values stay in registers (no scratch).
    """
    a00, a01, a02, a11, a12, a22 = _rot_sym3(R, _dd(A, U, iD, 0, 0), _dd(A, U, iD, 0, 1), _dd(A, U, iD, 0, 2),
                                             _dd(A, U, iD, 1, 1), _dd(A, U, iD, 1, 2), _dd(A, U, iD, 2, 2))
    c00, c01, c02, c11, c12, c22 = _rot_sym3(R, _dd(A, U, iD, 3, 3), _dd(A, U, iD, 3, 4), _dd(A, U, iD, 3, 5),
                                             _dd(A, U, iD, 4, 4), _dd(A, U, iD, 4, 5), _dd(A, U, iD, 5, 5))
    # T = R A12 (rows of T), then B' = T R^T
    h00, h01, h02 = _dd(A, U, iD, 0, 3), _dd(A, U, iD, 0, 4), _dd(A, U, iD, 0, 5)
    h10, h11, h12 = _dd(A, U, iD, 1, 3), _dd(A, U, iD, 1, 4), _dd(A, U, iD, 1, 5)
    h20, h21, h22 = _dd(A, U, iD, 2, 3), _dd(A, U, iD, 2, 4), _dd(A, U, iD, 2, 5)
    t00 = _rot_row(R, 0, h00, h10, h20)
    t01 = _rot_row(R, 0, h01, h11, h21)
    t02 = _rot_row(R, 0, h02, h12, h22)
    t10 = _rot_row(R, 1, h00, h10, h20)
    t11 = _rot_row(R, 1, h01, h11, h21)
    t12 = _rot_row(R, 1, h02, h12, h22)
    t20 = _rot_row(R, 2, h00, h10, h20)
    t21 = _rot_row(R, 2, h01, h11, h21)
    t22 = _rot_row(R, 2, h02, h12, h22)
    b00 = _rot_row(R, 0, t00, t01, t02)
    b01 = _rot_row(R, 1, t00, t01, t02)
    b02 = _rot_row(R, 2, t00, t01, t02)
    b10 = _rot_row(R, 0, t10, t11, t12)
    b11 = _rot_row(R, 1, t10, t11, t12)
    b12 = _rot_row(R, 2, t10, t11, t12)
    b20 = _rot_row(R, 0, t20, t21, t22)
    b21 = _rot_row(R, 1, t20, t21, t22)
    b22 = _rot_row(R, 2, t20, t21, t22)
    p0, p1, p2 = p[0], p[1], p[2]
    # C12 = B' - A' P: row i of A' P is (row i of A') x p
    e00 = b00 - (a01 * p2 - a02 * p1)
    e01 = b01 - (a02 * p0 - a00 * p2)
    e02 = b02 - (a00 * p1 - a01 * p0)
    e10 = b10 - (a11 * p2 - a12 * p1)
    e11 = b11 - (a12 * p0 - a01 * p2)
    e12 = b12 - (a01 * p1 - a11 * p0)
    e20 = b20 - (a12 * p2 - a22 * p1)
    e21 = b21 - (a22 * p0 - a02 * p2)
    e22 = b22 - (a02 * p1 - a12 * p0)
    # C22 = C' - G + H, G = B'^T P (row i: (column i of B') x p), H = P C12 (column j: p x column j)
    _add_sym3(out, 0, a00, a01, a02, a11, a12, a22)
    _add_sym3(out, 3,
              c00 - (b10 * p2 - b20 * p1) + (p1 * e20 - p2 * e10),
              c01 - (b20 * p0 - b00 * p2) + (p1 * e21 - p2 * e11),
              c02 - (b00 * p1 - b10 * p0) + (p1 * e22 - p2 * e12),
              c11 - (b21 * p0 - b01 * p2) + (p2 * e01 - p0 * e21),
              c12 - (b01 * p1 - b11 * p0) + (p2 * e02 - p0 * e22),
              c22 - (b02 * p1 - b12 * p0) + (p0 * e12 - p1 * e02))
    out[0, 3] += e00
    out[0, 4] += e01
    out[0, 5] += e02
    out[1, 3] += e10
    out[1, 4] += e11
    out[1, 5] += e12
    out[2, 3] += e20
    out[2, 4] += e21
    out[2, 5] += e22
    out[3, 0] += e00
    out[4, 0] += e01
    out[5, 0] += e02
    out[3, 1] += e10
    out[4, 1] += e11
    out[5, 1] += e12
    out[3, 2] += e20
    out[4, 2] += e21
    out[5, 2] += e22


@njit(cache=True, fastmath=FASTMATH, inline="always")
def cholesky6_inplace(L):
    """Cholesky factor in place of a symmetric positive definite 6x6 ``L`` (lower triangle read and
    overwritten by ``L_f`` with ``L_f L_f^T = L``; the strict upper triangle is left as is).
    Returns False if a pivot is not positive."""
    for j in range(6):
        s = L[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            return False
        ljj = math.sqrt(s)
        L[j, j] = ljj
        inv = 1.0 / ljj
        for i in range(j + 1, 6):
            t = L[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t * inv
    return True


@njit(cache=True, fastmath=FASTMATH, inline="always")
def cholesky6_solve(L, x, o):
    """Solve ``L L^T y = x[o:o+6]`` in place (``L`` from :func:`cholesky6_inplace`)."""
    for i in range(6):
        t = x[o + i]
        for k in range(i):
            t -= L[i, k] * x[o + k]
        x[o + i] = t / L[i, i]
    for i in range(5, -1, -1):
        t = x[o + i]
        for k in range(i + 1, 6):
            t -= L[k, i] * x[o + k]
        x[o + i] = t / L[i, i]


def spatial_inertia(mass, com, inertia_com):
    """Spatial inertia (6, 6) about the body-frame origin, linear part first (Featherstone (2.63)).

    Parameters
    ----------
    mass : float, kg.
    com : (3,) centre of mass in body coordinates, m.
    inertia_com : (3, 3) rotational inertia about the centre of mass, body axes, kg m^2.
    """
    c = np.asarray(com, dtype=float)
    cx = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * cx
    out[3:, :3] = mass * cx
    out[3:, 3:] = np.asarray(inertia_com, dtype=float) - mass * cx @ cx
    return out


def rpy_to_rot(rpy):
    """URDF roll-pitch-yaw (rad) to rotation (3, 3): ``R = Rz(yaw) Ry(pitch) Rx(roll)``."""
    r, p, y = (float(a) for a in rpy)
    cr, sr = math.cos(r), math.sin(r)
    cp, sp = math.cos(p), math.sin(p)
    cy, sy = math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def rot_to_rpy(R):
    """Inverse of :func:`rpy_to_rot` (rad); at the pitch singularity, roll is set to 0."""
    R = np.asarray(R, dtype=float)
    sp = -R[2, 0]
    if abs(sp) >= 1.0 - 1e-12:
        pitch = math.copysign(math.pi / 2.0, sp)
        roll = 0.0
        yaw = math.atan2(-R[0, 1], R[1, 1])
    else:
        pitch = math.asin(sp)
        roll = math.atan2(R[2, 1], R[2, 2])
        yaw = math.atan2(R[1, 0], R[0, 0])
    return np.array([roll, pitch, yaw])


def rot_to_quat_wxyz(R):
    """Unit quaternion ``(w, x, y, z)`` of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    tr = np.trace(R)
    if tr > 0.0:
        s = math.sqrt(tr + 1.0) * 2.0
        w = 0.25 * s
        x = (R[2, 1] - R[1, 2]) / s
        y = (R[0, 2] - R[2, 0]) / s
        z = (R[1, 0] - R[0, 1]) / s
    elif R[0, 0] > R[1, 1] and R[0, 0] > R[2, 2]:
        s = math.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2]) * 2.0
        w = (R[2, 1] - R[1, 2]) / s
        x = 0.25 * s
        y = (R[0, 1] + R[1, 0]) / s
        z = (R[0, 2] + R[2, 0]) / s
    elif R[1, 1] > R[2, 2]:
        s = math.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2]) * 2.0
        w = (R[0, 2] - R[2, 0]) / s
        x = (R[0, 1] + R[1, 0]) / s
        y = 0.25 * s
        z = (R[1, 2] + R[2, 1]) / s
    else:
        s = math.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1]) * 2.0
        w = (R[1, 0] - R[0, 1]) / s
        x = (R[0, 2] + R[2, 0]) / s
        y = (R[1, 2] + R[2, 1]) / s
        z = 0.25 * s
    return np.array([w, x, y, z])
