"""Configuration-space kernels: ``dq/dt`` of twist coordinates and the exponential-map update.

Free joints use Pinocchio's convention (``q = [x y z qx qy qz qw]``, ``v`` = body twist in body
axes); quaternion kinematics ``d(quat)/dt = quat * (w, 0) / 2`` (Hamilton product) and the SE(3)
exponential (e.g. Murray, Li & Sastry, *A Mathematical Introduction to Robotic Manipulation*,
(2.36)).
"""

from __future__ import annotations

import math

from numba import njit

from ._layout import JOINT_FREE


@njit(cache=True)
def qdot(m, q, v, out):
    """Configuration rate ``dq/dt`` (nq,) for twist coordinates ``v`` (nv,).

    Free joint: ``d(xyz)/dt = R(quat) v_lin``, ``d(quat)/dt = 1/2 quat * (w, 0)`` (Hamilton).
    """
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        a = m.jnt_qposadr[i]
        da = m.jnt_dofadr[i]
        if m.jnt_type[i] == JOINT_FREE:
            x, y, z, w = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
            n = math.sqrt(x * x + y * y + z * z + w * w)
            x /= n
            y /= n
            z /= n
            w /= n
            vx, vy, vz = v[da], v[da + 1], v[da + 2]
            # rotate v_lin by the quaternion: v + 2 w (u x v) + 2 u x (u x v)
            tx = 2.0 * (y * vz - z * vy)
            ty = 2.0 * (z * vx - x * vz)
            tz = 2.0 * (x * vy - y * vx)
            out[a] = vx + w * tx + (y * tz - z * ty)
            out[a + 1] = vy + w * ty + (z * tx - x * tz)
            out[a + 2] = vz + w * tz + (x * ty - y * tx)
            ox, oy, oz = v[da + 3], v[da + 4], v[da + 5]
            out[a + 3] = 0.5 * (w * ox + y * oz - z * oy)
            out[a + 4] = 0.5 * (w * oy + z * ox - x * oz)
            out[a + 5] = 0.5 * (w * oz + x * oy - y * ox)
            out[a + 6] = -0.5 * (x * ox + y * oy + z * oz)
        else:
            out[a] = v[da]


@njit(cache=True)
def integrate(m, q, v, dt, out):
    """``out = q (+) v dt`` on the configuration manifold (nq,).

    Free joint: exact SE(3) exponential of the body twist ``v dt`` composed on the right
    (constant body twist over the step); the quaternion is renormalised. 1-DoF: ``q + v dt``.
    """
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        a = m.jnt_qposadr[i]
        da = m.jnt_dofadr[i]
        if m.jnt_type[i] != JOINT_FREE:
            out[a] = q[a] + v[da] * dt
            continue
        ux, uy, uz = v[da] * dt, v[da + 1] * dt, v[da + 2] * dt
        wx, wy, wz = v[da + 3] * dt, v[da + 4] * dt, v[da + 5] * dt
        th2 = wx * wx + wy * wy + wz * wz
        th = math.sqrt(th2)
        if th < 1e-6:
            A = 0.5 - th2 / 24.0
            B = 1.0 / 6.0 - th2 / 120.0
            hs = 0.5 - th2 / 48.0  # sin(th/2)/th
        else:
            A = (1.0 - math.cos(th)) / th2
            B = (th - math.sin(th)) / (th2 * th)
            hs = math.sin(0.5 * th) / th
        # t = u + A w x u + B w x (w x u)
        c0 = wy * uz - wz * uy
        c1 = wz * ux - wx * uz
        c2 = wx * uy - wy * ux
        e0 = wy * c2 - wz * c1
        e1 = wz * c0 - wx * c2
        e2 = wx * c1 - wy * c0
        t0 = ux + A * c0 + B * e0
        t1 = uy + A * c1 + B * e1
        t2 = uz + A * c2 + B * e2
        x, y, z, w = q[a + 3], q[a + 4], q[a + 5], q[a + 6]
        n = math.sqrt(x * x + y * y + z * z + w * w)
        x /= n
        y /= n
        z /= n
        w /= n
        # rotate t into the parent (placement) frame
        sx = 2.0 * (y * t2 - z * t1)
        sy = 2.0 * (z * t0 - x * t2)
        sz = 2.0 * (x * t1 - y * t0)
        out[a] = q[a] + t0 + w * sx + (y * sz - z * sy)
        out[a + 1] = q[a + 1] + t1 + w * sy + (z * sx - x * sz)
        out[a + 2] = q[a + 2] + t2 + w * sz + (x * sy - y * sx)
        # quat * dquat, dquat = (hs w, cos(th/2))
        bx, by, bz = hs * wx, hs * wy, hs * wz
        bw = math.cos(0.5 * th)
        nx = w * bx + x * bw + y * bz - z * by
        ny = w * by + y * bw + z * bx - x * bz
        nz = w * bz + z * bw + x * by - y * bx
        nw = w * bw - x * bx - y * by - z * bz
        n = math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw)
        out[a + 3] = nx / n
        out[a + 4] = ny / n
        out[a + 5] = nz / n
        out[a + 6] = nw / n
