"""ANTON's leg kinematics compiled (numba) for the 1 kHz walker: the same equations as the documented
functions of :mod:`.model` (which call these), for all six legs in one call each.

Arguments in SI units and radians. A leg's numbers: ``coxa``, ``femur``, ``tibia`` [m] (the link
lengths of :class:`~.params.AntonParams`). The legs in :data:`~.params.LEGS` order; ``hips`` (6, 3)
[m] are hip positions, ``yaws`` (6,) [rad] the hip frames' yaws, ``segs`` (6,) int64 each hip's body
segment: 0 middle, 1 front, -1 rear (its side of the middle segment). Joint vectors (22,) are in
:func:`~.model.joint_names` order: the four body joints, then α, β, γ per leg.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True)
def leg_plane(coxa, femur, tibia, beta, gamma):
    """The foot centre in the leg plane: (r outward from the hip axis, z up) [m]."""
    return (coxa + femur * math.cos(beta) + tibia * math.cos(beta + gamma),
            femur * math.sin(beta) + tibia * math.sin(beta + gamma))


@njit(cache=True, nogil=True)
def leg_ik(coxa, femur, tibia, x, y, z):
    """(α, β, γ, ok) putting the foot centre at (x, y, z) [m] in the hip frame, knee up (γ <= 0);
    ``ok`` False out of reach (the angles are then NaN)."""
    alpha = math.atan2(-x, y)
    r = math.hypot(x, y) - coxa
    c = (r * r + z * z - femur * femur - tibia * tibia) / (2.0 * femur * tibia)
    if not (-1.0 <= c <= 1.0):
        return math.nan, math.nan, math.nan, False
    gamma = -math.acos(c)
    beta = math.atan2(z, r) - math.atan2(tibia * math.sin(gamma), femur + tibia * math.cos(gamma))
    return alpha, beta, gamma, True


@njit(cache=True, nogil=True)
def leg_jacobian(coxa, femur, tibia, alpha, beta, gamma, out):
    """∂(foot centre)/∂(α, β, γ) in the hip frame into ``out`` (3, 3): row j is the column of joint j
    (x, y, z) [m/rad]."""
    sa, ca = math.sin(alpha), math.cos(alpha)
    sbg, cbg = math.sin(beta + gamma), math.cos(beta + gamma)
    r = coxa + femur * math.cos(beta) + tibia * cbg
    drb, dzb = -femur * math.sin(beta) - tibia * sbg, femur * math.cos(beta) + tibia * cbg
    drg, dzg = -tibia * sbg, tibia * cbg
    out[0, 0], out[0, 1], out[0, 2] = -r * ca, -r * sa, 0.0
    out[1, 0], out[1, 1], out[1, 2] = -sa * drb, ca * drb, dzb
    out[2, 0], out[2, 1], out[2, 2] = -sa * drg, ca * drg, dzg


@njit(cache=True, nogil=True)
def feet_in_body(q, hips, yaws, segs, coxa, femur, tibia, half_gap, out):
    """Foot centres (6, 3) [m] in the middle segment's frame into ``out`` from the joint angles ``q``
    (22,): each leg's point turned by its hip yaw and placed at its hip (in its segment's frame), and
    for the front and rear legs carried through their segment's pitch, then yaw, joint at ± the half
    gap (as :func:`~.model.build_model` builds them)."""
    for k in range(6):
        a, b, g = q[4 + 3 * k], q[5 + 3 * k], q[6 + 3 * k]
        r, fz = leg_plane(coxa, femur, tibia, b, g)
        fx, fy = -r * math.sin(a), r * math.cos(a)
        cy, sy = math.cos(yaws[k]), math.sin(yaws[k])
        x = hips[k, 0] + cy * fx - sy * fy
        y = hips[k, 1] + sy * fx + cy * fy
        z = hips[k, 2] + fz
        if segs[k] != 0:
            sign = float(segs[k])
            j = 0 if segs[k] > 0 else 2
            x += sign * half_gap
            ct, st = math.cos(q[j + 1]), math.sin(q[j + 1])
            x, z = ct * x + st * z, -st * x + ct * z  # pitch about y, then yaw about z, at the joint
            cp, sp = math.cos(q[j]), math.sin(q[j])
            x, y = cp * x - sp * y + sign * half_gap, sp * x + cp * y
        out[k, 0], out[k, 1], out[k, 2] = x, y, z


@njit(cache=True, nogil=True)
def in_hip_frame(body, hips, yaws, segs, half_gap, k, x, y, z):
    """Leg ``k``'s point (x, y, z) [m] in the middle segment's frame, in its hip frame, with the body
    joints at ``body`` (4,) (front yaw, pitch, rear yaw, pitch [rad]): the inverse of
    :func:`feet_in_body`'s carriage (the point taken into its segment's frame, then its hip frame)."""
    if segs[k] != 0:
        sign = float(segs[k])
        j = 0 if segs[k] > 0 else 2
        x -= sign * half_gap
        cp, sp = math.cos(body[j]), math.sin(body[j])
        x, y = cp * x + sp * y, -sp * x + cp * y
        ct, st = math.cos(body[j + 1]), math.sin(body[j + 1])
        x, z = ct * x - st * z, st * x + ct * z
        x -= sign * half_gap
    c, s = math.cos(yaws[k]), math.sin(yaws[k])
    dx, dy, dz = x - hips[k, 0], y - hips[k, 1], z - hips[k, 2]
    return c * dx + s * dy, -s * dx + c * dy, dz


@njit(cache=True, nogil=True)
def joint_targets(body, hips, yaws, segs, coxa, femur, tibia, half_gap, feet, out):
    """Joint angles (22,) into ``out`` for the feet (6, 3) [m] in the middle segment's frame with the
    body joints at ``body`` (4,) [rad] (copied to ``out[:4]``): :func:`in_hip_frame`, then
    :func:`leg_ik`; returns -1, or the first leg out of reach."""
    for i in range(4):
        out[i] = body[i]
    for k in range(6):
        hx, hy, hz = in_hip_frame(body, hips, yaws, segs, half_gap, k, feet[k, 0], feet[k, 1], feet[k, 2])
        a, b, g, ok = leg_ik(coxa, femur, tibia, hx, hy, hz)
        if not ok:
            return k
        out[4 + 3 * k], out[5 + 3 * k], out[6 + 3 * k] = a, b, g
    return -1


@njit(cache=True, nogil=True)
def load_feedforward(enc, shank, yaws, coxa, femur, tibia, v_per_nm, jac, out):
    """Each leg drive's voltage holding its foot's measured force (22,) into ``out`` (body joints 0):
    V = R/(η N k) τ with τ = −Jᵀ F, ``shank`` (18,) the feet's forces [N] (x, y, z per leg) turned into
    the hip frame by the hip's yaw alone (the body kept level), ``v_per_nm`` (22,) [V/(N m)], ``jac``
    (3, 3) scratch."""
    for i in range(4):
        out[i] = 0.0
    for k in range(6):
        fx, fy, fz = shank[3 * k], shank[3 * k + 1], shank[3 * k + 2]
        c, s = math.cos(yaws[k]), math.sin(yaws[k])
        hx, hy = c * fx + s * fy, -s * fx + c * fy
        i = 4 + 3 * k
        leg_jacobian(coxa, femur, tibia, enc[i], enc[i + 1], enc[i + 2], jac)
        for j in range(3):
            out[i + j] = -(jac[j, 0] * hx + jac[j, 1] * hy + jac[j, 2] * fz) * v_per_nm[i + j]
