"""Compiled kernels of ROTTO's drives (private; the equations are in :mod:`.linkage`).

One drive: joints (2,) int64 (indices into the robot's joint vector, −1 unused), axes (2,) int64
(0 x, 1 y, 2 z), anchor A (3,) and lever B (3,) [m]. :func:`rod` gives its length and Jacobian,
:func:`lengths` every drive's length (the walk's commands).
"""

from __future__ import annotations

import math

import numpy as np

from ...hybrid.signatures import njit_helper


@njit_helper
def _rotate(axis, angle, v, out):
    """out = R_axis(angle) v (3,)."""
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = v[0], v[1], v[2]
    if axis == 0:
        out[0], out[1], out[2] = x, c * y - s * z, s * y + c * z
    elif axis == 1:
        out[0], out[1], out[2] = c * x + s * z, y, -s * x + c * z
    else:
        out[0], out[1], out[2] = c * x - s * y, s * x + c * y, z


@njit_helper
def _axis_cross(axis, v, out):
    """out = e_axis × v (3,): x: (0, −v_z, v_y), y: (v_z, 0, −v_x), z: (−v_y, v_x, 0)."""
    if axis == 0:
        out[0], out[1], out[2] = 0.0, -v[2], v[1]
    elif axis == 1:
        out[0], out[1], out[2] = v[2], 0.0, -v[0]
    else:
        out[0], out[1], out[2] = -v[1], v[0], 0.0


@njit_helper
def rod(q, joints, axes, anchor, lever, jac):
    """The rod's length l [m] at the joint angles ``q`` (robot vector, rad); ``jac`` (2,) receives
    ∂l/∂q of its joints [m/rad] (0 for an unused slot). Two joints at most: R = R_1(q_1) R_2(q_2),
    ∂(RB)/∂q_1 = e_1 × (R B), ∂(RB)/∂q_2 = R_1 (e_2 × R_2 B)."""
    inner = np.empty(3)  # R_2 B
    rb = np.empty(3)     # R B
    tmp = np.empty(3)
    two = joints[1] >= 0
    if two:
        _rotate(axes[1], q[joints[1]], lever, inner)
    else:
        inner[:] = lever
    _rotate(axes[0], q[joints[0]], inner, rb)
    d0, d1, d2 = anchor[0] - rb[0], anchor[1] - rb[1], anchor[2] - rb[2]
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    # e_1 × (R B): the axis' unit vector crossed with rb
    _axis_cross(axes[0], rb, tmp)
    jac[0] = -(d0 * tmp[0] + d1 * tmp[1] + d2 * tmp[2]) / length
    jac[1] = 0.0
    if two:
        _axis_cross(axes[1], inner, tmp)
        _rotate(axes[0], q[joints[0]], tmp, rb)
        jac[1] = -(d0 * rb[0] + d1 * rb[1] + d2 * rb[2]) / length
    return length


@njit_helper
def lengths(q, joints, axes, anchors, levers, out):
    """Every drive's rod length (:func:`rod`) at the joint angles ``q`` (robot vector) into ``out``."""
    jac = np.empty(2)
    for i in range(joints.shape[0]):
        out[i] = rod(q, joints[i], axes[i], anchors[i], levers[i], jac)
