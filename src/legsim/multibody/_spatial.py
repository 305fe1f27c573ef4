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


@njit(cache=True)
def quat_to_rot(qx, qy, qz, qw, R):
    """Rotation matrix (3, 3) of the unit quaternion ``(qx, qy, qz, qw)`` (Hamilton convention,
    scalar last as in Pinocchio/Eigen). The quaternion is normalised first."""
    n = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    x = qx / n
    y = qy / n
    z = qz / n
    w = qw / n
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - z * w)
    R[0, 2] = 2.0 * (x * z + y * w)
    R[1, 0] = 2.0 * (x * y + z * w)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - x * w)
    R[2, 0] = 2.0 * (x * z - y * w)
    R[2, 1] = 2.0 * (y * z + x * w)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit(cache=True)
def axis_angle_to_rot(ax, ay, az, angle, R):
    """Rodrigues' formula: rotation (3, 3) by ``angle`` (rad) about the unit axis ``(ax, ay, az)``."""
    s = math.sin(angle)
    c = math.cos(angle)
    t = 1.0 - c
    R[0, 0] = c + ax * ax * t
    R[0, 1] = ax * ay * t - az * s
    R[0, 2] = ax * az * t + ay * s
    R[1, 0] = ay * ax * t + az * s
    R[1, 1] = c + ay * ay * t
    R[1, 2] = ay * az * t - ax * s
    R[2, 0] = az * ax * t - ay * s
    R[2, 1] = az * ay * t + ax * s
    R[2, 2] = c + az * az * t


@njit(cache=True, inline="always")
def matmul3(A, B, out):
    """``out = A @ B`` for 3x3 matrices (``out`` must not alias ``A`` or ``B``)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(cache=True)
def matvec3(A, x, out):
    """``out = A @ x`` for a 3x3 matrix and a 3-vector (no aliasing)."""
    for i in range(3):
        out[i] = A[i, 0] * x[0] + A[i, 1] * x[1] + A[i, 2] * x[2]


@njit(cache=True, inline="always")
def compose(Ra, pa, Rb, pb, Rout, pout):
    """Placement composition ``(Ra, pa) * (Rb, pb)``: ``Rout = Ra Rb``, ``pout = pa + Ra pb``."""
    matmul3(Ra, Rb, Rout)
    for i in range(3):
        pout[i] = pa[i] + Ra[i, 0] * pb[0] + Ra[i, 1] * pb[1] + Ra[i, 2] * pb[2]


@njit(cache=True)
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def mat6_vec(A, x, out):
    """``out = A @ x`` for a 6x6 matrix (no aliasing)."""
    for i in range(6):
        s = 0.0
        for j in range(6):
            s += A[i, j] * x[j]
        out[i] = s


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _rot_block(R, A, r0, c0, T, out, o0, o1):
    """``out[o0:o0+3, o1:o1+3] = R A[r0:r0+3, c0:c0+3] R^T`` using 3x3 scratch ``T``."""
    for i in range(3):
        for j in range(3):
            T[i, j] = R[i, 0] * A[r0, c0 + j] + R[i, 1] * A[r0 + 1, c0 + j] + R[i, 2] * A[r0 + 2, c0 + j]
    for i in range(3):
        for j in range(3):
            out[o0 + i, o1 + j] = T[i, 0] * R[j, 0] + T[i, 1] * R[j, 1] + T[i, 2] * R[j, 2]


@njit(cache=True, inline="always")
def inertia_to_parent_add(R, p, A, B, T, out):
    """``out += X^T A X`` for a symmetric 6x6 inertia ``A`` in child axes, with ``X`` the motion
    transform of the child placement ``(R, p)`` (same result as :func:`congruence_add`).

    Uses ``X = diag(R^T, R^T) [[1, -[p]x], [0, 1]]``: rotate the blocks (``B_ij = R A_ij R^T``),
    then shift: ``C11 = B11``, ``C12 = B12 - B11 [p]x``, ``C22 = B22 - B12^T [p]x + [p]x C12``.
    ``B`` (6, 6) and ``T`` (3, 3) are scratch.
    """
    _rot_block(R, A, 0, 0, T, B, 0, 0)
    _rot_block(R, A, 0, 3, T, B, 0, 3)
    _rot_block(R, A, 3, 3, T, B, 3, 3)
    p0, p1, p2 = p[0], p[1], p[2]
    # C12 = B12 - B11 P  (stored in B[3:, :3] as scratch, transposed later)
    for i in range(3):
        m0, m1, m2 = B[i, 0], B[i, 1], B[i, 2]
        B[3 + 0, i] = B[i, 3] - (m1 * p2 - m2 * p1)
        B[3 + 1, i] = B[i, 4] - (-m0 * p2 + m2 * p0)
        B[3 + 2, i] = B[i, 5] - (m0 * p1 - m1 * p0)
    # now B[3+j, i] = C12[i, j]
    for i in range(3):
        for j in range(3):
            out[i, j] += B[i, j]
            out[i, 3 + j] += B[3 + j, i]
            out[3 + j, i] += B[3 + j, i]
    # C22 = B22 - B21 P + P C12, B21 = B12^T (B[j, 3+i] = B12[j, i])
    for i in range(3):
        # row i of B21 = column i of B12 = (B[0,3+i], B[1,3+i], B[2,3+i])
        m0, m1, m2 = B[0, 3 + i], B[1, 3 + i], B[2, 3 + i]
        bp0 = m1 * p2 - m2 * p1
        bp1 = -m0 * p2 + m2 * p0
        bp2 = m0 * p1 - m1 * p0
        for j in range(3):
            c0, c1, c2 = B[3 + j, 0], B[3 + j, 1], B[3 + j, 2]  # column j of C12
            if i == 0:
                pc = -p2 * c1 + p1 * c2
            elif i == 1:
                pc = p2 * c0 - p0 * c2
            else:
                pc = -p1 * c0 + p0 * c1
            bpj = bp0 if j == 0 else (bp1 if j == 1 else bp2)
            out[3 + i, 3 + j] += B[3 + i, 3 + j] - bpj + pc


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
