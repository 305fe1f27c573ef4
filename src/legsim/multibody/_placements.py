"""Joint placements of the compiled rigid-body kernels (numba): the local transform of every joint
for a configuration q (Featherstone (2008) §4.1, Table 4.1), shared by kinematics, RNEA, CRBA and
ABA (:mod:`._kernels`, :mod:`._aba`). Conventions: :mod:`._kernels`.
"""

from __future__ import annotations

import math

from numba import njit

from .._borrow import borrow_all
from .._fastmath import FASTMATH
from ._layout import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE
from ._spatial import axis_angle_rotation, quat_rotation


@njit(cache=True, fastmath=FASTMATH, inline="always")
def joint_transform(m, i, q):
    """Placement of body ``i`` in its parent for configuration ``q`` (nq,), as the 12 numbers
    ``(R00, R01, R02, R10, ..., R22, p0, p1, p2)`` (kept in registers by the callers).

    Free joint: ``R = P_R R(quat)``, ``p = P_p + P_R xyz``; revolute: ``R = P_R Rot(axis, q)``;
    prismatic: ``p = P_p + P_R axis q`` (``P`` = the joint placement in the parent body). A revolute
    joint about a unit axis ``e_k`` of its frame (``m.dof_axis``) mixes two columns of ``P_R`` with
    ``cos q, sin q`` instead of Rodrigues' formula and a 3x3 product.
    """
    t = m.jnt_type[i]
    a = m.jnt_qposadr[i]
    PR = m.jnt_R[i]
    Pp = m.jnt_p[i]
    P00, P01, P02 = PR[0, 0], PR[0, 1], PR[0, 2]
    P10, P11, P12 = PR[1, 0], PR[1, 1], PR[1, 2]
    P20, P21, P22 = PR[2, 0], PR[2, 1], PR[2, 2]
    p0, p1, p2 = Pp[0], Pp[1], Pp[2]
    if t == JOINT_REVOLUTE and m.dof_axis[m.jnt_dofadr[i]] >= 3:
        # about e_k0: PR's columns k1, k2 turn in their plane, column k0 stays
        sn = math.sin(q[a])
        cs = math.cos(q[a])
        k0 = m.dof_axis[m.jnt_dofadr[i]] - 3
        if k0 == 0:
            return (P00, P01 * cs + P02 * sn, P02 * cs - P01 * sn,
                    P10, P11 * cs + P12 * sn, P12 * cs - P11 * sn,
                    P20, P21 * cs + P22 * sn, P22 * cs - P21 * sn, p0, p1, p2)
        if k0 == 1:
            return (P00 * cs - P02 * sn, P01, P02 * cs + P00 * sn,
                    P10 * cs - P12 * sn, P11, P12 * cs + P10 * sn,
                    P20 * cs - P22 * sn, P21, P22 * cs + P20 * sn, p0, p1, p2)
        return (P00 * cs + P01 * sn, P01 * cs - P00 * sn, P02,
                P10 * cs + P11 * sn, P11 * cs - P10 * sn, P12,
                P20 * cs + P21 * sn, P21 * cs - P20 * sn, P22, p0, p1, p2)
    if t == JOINT_PRISMATIC:
        ax = m.jnt_axis[i]
        s = q[a]
        return (P00, P01, P02, P10, P11, P12, P20, P21, P22,
                p0 + s * (P00 * ax[0] + P01 * ax[1] + P02 * ax[2]),
                p1 + s * (P10 * ax[0] + P11 * ax[1] + P12 * ax[2]),
                p2 + s * (P20 * ax[0] + P21 * ax[1] + P22 * ax[2]))
    if t == JOINT_FREE:
        p0 += P00 * q[a] + P01 * q[a + 1] + P02 * q[a + 2]
        p1 += P10 * q[a] + P11 * q[a + 1] + P12 * q[a + 2]
        p2 += P20 * q[a] + P21 * q[a + 1] + P22 * q[a + 2]
        B00, B01, B02, B10, B11, B12, B20, B21, B22 = quat_rotation(q[a + 3], q[a + 4], q[a + 5], q[a + 6])
    else:  # revolute about a general axis: Rodrigues
        ax = m.jnt_axis[i]
        B00, B01, B02, B10, B11, B12, B20, B21, B22 = axis_angle_rotation(ax[0], ax[1], ax[2], q[a])
    return (P00 * B00 + P01 * B10 + P02 * B20, P00 * B01 + P01 * B11 + P02 * B21,
            P00 * B02 + P01 * B12 + P02 * B22, P10 * B00 + P11 * B10 + P12 * B20,
            P10 * B01 + P11 * B11 + P12 * B21, P10 * B02 + P11 * B12 + P12 * B22,
            P20 * B00 + P21 * B10 + P22 * B20, P20 * B01 + P21 * B11 + P22 * B21,
            P20 * B02 + P21 * B12 + P22 * B22, p0, p1, p2)


@njit(cache=True, fastmath=FASTMATH)
def local_placements(m, d, q):
    """Joint transforms ``liR, lip`` (body in its parent) for configuration ``q`` (nq,)
    (:func:`joint_transform` of every body)."""
    m = borrow_all(m)
    d = borrow_all(d)
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        r00, r01, r02, r10, r11, r12, r20, r21, r22, p0, p1, p2 = joint_transform(m, i, q)
        R = d.liR[i]
        R[0, 0], R[0, 1], R[0, 2] = r00, r01, r02
        R[1, 0], R[1, 1], R[1, 2] = r10, r11, r12
        R[2, 0], R[2, 1], R[2, 2] = r20, r21, r22
        d.lip[i, 0], d.lip[i, 1], d.lip[i, 2] = p0, p1, p2


@njit(cache=True, fastmath=FASTMATH)
def _init_world(m, d):
    m = borrow_all(m)
    d = borrow_all(d)
    for k in range(3):
        for j in range(3):
            d.oR[0, k, j] = 1.0 if k == j else 0.0
        d.op[0, k] = 0.0
    for k in range(6):
        d.v[0, k] = 0.0
        d.c[0, k] = 0.0
    for k in range(3):
        d.a[0, k] = -m.gravity[k]
        d.a[0, 3 + k] = 0.0
