"""Joint placements of the compiled rigid-body kernels (numba): the local transform of every joint
for a configuration q (Featherstone (2008) §4.1, Table 4.1), shared by kinematics, RNEA, CRBA and
ABA (:mod:`._kernels`, :mod:`._aba`). Conventions: :mod:`._kernels`.
"""

from __future__ import annotations

import math

from numba import njit

from .._borrow import borrow_all
from .._fastmath import FASTMATH
from ._layout import (
    JOINT_FREE,
    JOINT_REVOLUTE,
)
from ._spatial import (
    axis_angle_to_rot,
    matmul3,
    quat_to_rot,
)


@njit(cache=True, fastmath=FASTMATH)
def local_placements(m, d, q):
    """Joint transforms ``liR, lip`` (body in its parent) for configuration ``q`` (nq,).

    Free joint: ``R = P_R R(quat)``, ``p = P_p + P_R xyz``; revolute: ``R = P_R Rot(axis, q)``;
    prismatic: ``p = P_p + P_R axis q`` (``P`` = the joint placement in the parent body). A revolute
    joint about a unit axis ``e_k`` of its frame (``m.dof_axis``) mixes two columns of ``P_R`` with
    ``cos q, sin q`` instead of Rodrigues' formula and a 3x3 product.
    """
    m = borrow_all(m)
    d = borrow_all(d)
    nb = m.body_parent.shape[0]
    R = d.tmpR
    for i in range(1, nb):
        t = m.jnt_type[i]
        a = m.jnt_qposadr[i]
        PR = m.jnt_R[i]
        Pp = m.jnt_p[i]
        liR = d.liR[i]
        lip = d.lip[i]
        if t == JOINT_FREE:
            quat_to_rot(q[a + 3], q[a + 4], q[a + 5], q[a + 6], R)
            matmul3(PR, R, liR)
            for k in range(3):
                lip[k] = Pp[k] + PR[k, 0] * q[a] + PR[k, 1] * q[a + 1] + PR[k, 2] * q[a + 2]
        elif t == JOINT_REVOLUTE:
            k0 = m.dof_axis[m.jnt_dofadr[i]] - 3
            if k0 >= 0:  # about e_k0: PR's columns k1, k2 turn in their plane, column k0 stays
                k1 = (k0 + 1) % 3
                k2 = (k0 + 2) % 3
                sn = math.sin(q[a])
                cs = math.cos(q[a])
                for k in range(3):
                    liR[k, k0] = PR[k, k0]
                    liR[k, k1] = PR[k, k1] * cs + PR[k, k2] * sn
                    liR[k, k2] = PR[k, k2] * cs - PR[k, k1] * sn
            else:
                ax = m.jnt_axis[i]
                axis_angle_to_rot(ax[0], ax[1], ax[2], q[a], R)
                matmul3(PR, R, liR)
            for k in range(3):
                lip[k] = Pp[k]
        else:  # prismatic
            ax = m.jnt_axis[i]
            s = q[a]
            for k in range(3):
                for j in range(3):
                    liR[k, j] = PR[k, j]
                lip[k] = Pp[k] + s * (PR[k, 0] * ax[0] + PR[k, 1] * ax[1] + PR[k, 2] * ax[2])


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
