"""Leg kinematics and leg force laws of the compliant hexapod (numba kernels).

SimSect digest §4.3–§4.5 (manual §5.1.2, §5.1.8; ⚠ signs reconstructed). Body frame B:
x lateral (to the right), y forward, z up. Leg i is attached at ``a_i`` (B) and ends at the toe
``f_i`` (W). The leg vector in B and its spherical coordinates (rho, theta, phi):

    V_i = R_b^T (f_i − r_b) − a_i = rho (sin th, cos th sin phi, −cos th cos phi),
    rho = |V|,  theta = atan2(V_x, sqrt(V_y² + V_z²)) (lateral),  phi = atan2(V_y, −V_z),

so phi = 0 is a vertical leg and phi > 0 puts the toe ahead (+y) of the hip. The columns of the
projection matrix (digest §4.4) are the orthonormal directions

    e_rho = (s_th, c_th s_phi, −c_th c_phi),  e_th = (c_th, −s_th s_phi, s_th c_phi),
    e_phi = (0, c_phi, s_phi)

(a left-handed triad, det = −1). Velocities: with ``Rdot = hat(w) R`` and w in W,
``Vdot = R^T((fdot − rdot) − w × (f − r))``, ``rhodot = e_rho·Vdot``,
``thetadot = e_th·Vdot / rho``, ``phidot = e_phi·Vdot / (rho cos th)``.

Force balance on the massless leg (digest §4.4): the leg pushes the toe with

    F_toe^B = F_rho e_rho + (tau_th / rho) e_th + (tau_phi / (rho cos th)) e_phi,

and the body feels ``F^B = −F_toe^B`` at the toe point, i.e. the wrench ``(F^B, (V + a) × F^B)``
about the COM (digest §4.4, ``T_i = (V_i + a_i) × F_i``). In W: ``R F^B = −F_toe^W`` and
``R T^B = −(f − r) × F_toe^W``.
"""

from __future__ import annotations

import math

from numba import njit

from .params import (
    P_AX,
    P_AY,
    P_AZ,
    P_EXT_F,
    P_EXT_L,
    P_QRL,
    P_RHO_D,
    P_RHO_K,
    P_RHO_R0,
    P_TH_D,
    P_TH_K,
    P_TH_R0,
    X_POS,
    X_R,
    X_TOE,
    X_TOEV,
    X_VEL,
    X_W,
)

EXP_ARG_MAX = 10.0
"""Argument of the extension exponential beyond which it continues linearly (C¹), to keep the
force finite for wild flight states."""


@njit(cache=True, nogil=True)
def leg_polar(vx, vy, vz):
    """Spherical leg coordinates ``(rho, theta, phi)`` [m, rad, rad] of a leg vector V (B)."""
    rho = math.sqrt(vx * vx + vy * vy + vz * vz)
    theta = math.atan2(vx, math.sqrt(vy * vy + vz * vz))
    phi = math.atan2(vy, -vz)
    return rho, theta, phi


@njit(cache=True, nogil=True)
def leg_cart(rho, theta, phi):
    """Leg vector ``V = rho (s_th, c_th s_phi, −c_th c_phi)`` in B [m] (digest §4.3)."""
    ct = math.cos(theta)
    return rho * math.sin(theta), rho * ct * math.sin(phi), -rho * ct * math.cos(phi)


@njit(cache=True, nogil=True)
def leg_basis(theta, phi):
    """The projection matrix ``[e_rho e_th e_phi]`` (digest §4.4), row-major, 9 floats."""
    st = math.sin(theta)
    ct = math.cos(theta)
    sp = math.sin(phi)
    cp = math.cos(phi)
    return (st, ct, 0.0,
            ct * sp, -st * sp, cp,
            -ct * cp, st * cp, sp)


@njit(cache=True, nogil=True)
def leg_vectors(x, p, i):
    """Leg i geometry from the state: ``(Vx, Vy, Vz, Vdx, Vdy, Vdz, dx, dy, dz)``.

    ``V`` [m] and ``Vdot`` [m/s] in B (digest §4.3), ``d = f_i − r_b`` [m] in W. ``x`` is the
    hexapod state (float64[nx]), ``p`` its parameters.
    """
    w0 = x[X_W]
    w1 = x[X_W + 1]
    w2 = x[X_W + 2]
    d0 = x[X_TOE + 3 * i] - x[X_POS]
    d1 = x[X_TOE + 3 * i + 1] - x[X_POS + 1]
    d2 = x[X_TOE + 3 * i + 2] - x[X_POS + 2]
    # relative velocity of the toe seen from the rotating body, in W
    u0 = x[X_TOEV + 3 * i] - x[X_VEL] - (w1 * d2 - w2 * d1)
    u1 = x[X_TOEV + 3 * i + 1] - x[X_VEL + 1] - (w2 * d0 - w0 * d2)
    u2 = x[X_TOEV + 3 * i + 2] - x[X_VEL + 2] - (w0 * d1 - w1 * d0)
    r00 = x[X_R]
    r01 = x[X_R + 1]
    r02 = x[X_R + 2]
    r10 = x[X_R + 3]
    r11 = x[X_R + 4]
    r12 = x[X_R + 5]
    r20 = x[X_R + 6]
    r21 = x[X_R + 7]
    r22 = x[X_R + 8]
    vx = r00 * d0 + r10 * d1 + r20 * d2 - p[P_AX + i]
    vy = r01 * d0 + r11 * d1 + r21 * d2 - p[P_AY + i]
    vz = r02 * d0 + r12 * d1 + r22 * d2 - p[P_AZ + i]
    vdx = r00 * u0 + r10 * u1 + r20 * u2
    vdy = r01 * u0 + r11 * u1 + r21 * u2
    vdz = r02 * u0 + r12 * u1 + r22 * u2
    return vx, vy, vz, vdx, vdy, vdz, d0, d1, d2


@njit(cache=True, nogil=True)
def leg_rates(vx, vy, vz, vdx, vdy, vdz):
    """Polar coordinates and rates ``(rho, theta, phi, rhodot, thetadot, phidot)`` of leg V."""
    rho, theta, phi = leg_polar(vx, vy, vz)
    b = leg_basis(theta, phi)
    rhod = b[0] * vdx + b[3] * vdy + b[6] * vdz
    thd = (b[1] * vdx + b[4] * vdy + b[7] * vdz) / rho
    phd = (b[2] * vdx + b[5] * vdy + b[8] * vdz) / (rho * math.cos(theta))
    return rho, theta, phi, rhod, thd, phd


@njit(cache=True, nogil=True)
def radial_force(rho, rhodot, k, d, rho0, rho_bar, ext_force, ext_scale):
    """Radial leg force on the toe, outward positive [N] (digest §4.5, eq. (2), ⚠ form chosen).

    ``F = −k (rho − rho0) − d rhodot − E(rho)`` with the extension term
    ``E = K (exp((rho − rho_bar)/L) − 1)`` for ``rho > rho_bar`` and 0 otherwise. E is
    continuous (and its slope is K/L) at the extension limit ``rho_bar`` (``q_rl``), so the
    law has no jump; past ``(rho − rho_bar)/L = EXP_ARG_MAX`` it continues along its tangent.
    The manual calls this term critical for liftoff: it stops a stance leg being stretched
    beyond its travel by the hip torque, which would keep pressing the toe into the ground.
    """
    f = -k * (rho - rho0) - d * rhodot
    if rho > rho_bar:
        u = (rho - rho_bar) / ext_scale
        if u <= EXP_ARG_MAX:
            f -= ext_force * (math.exp(u) - 1.0)
        else:
            f -= ext_force * (math.exp(EXP_ARG_MAX) * (1.0 + u - EXP_ARG_MAX) - 1.0)
    return f


@njit(cache=True, nogil=True)
def lateral_torque(theta, thetadot, k, d, theta0):
    """Lateral (theta) leg torque ``−k (theta − theta0) − d thetadot`` [N·m] (digest eq. (3))."""
    return -k * (theta - theta0) - d * thetadot


@njit(cache=True, nogil=True)
def leg_passive(p, i, rho, theta, rhod, thd):
    """Radial force [N] and lateral torque [N·m] of leg i from its parameters (Table 2)."""
    fr = radial_force(rho, rhod, p[P_RHO_K + i], p[P_RHO_D + i], p[P_RHO_R0 + i], p[P_QRL],
                      p[P_EXT_F], p[P_EXT_L])
    tt = lateral_torque(theta, thd, p[P_TH_K + i], p[P_TH_D + i], p[P_TH_R0 + i])
    return fr, tt


@njit(cache=True, nogil=True)
def toe_force_body(rho, theta, phi, f_rho, tau_theta, tau_phi):
    """Force of the massless leg on its toe in B, ``F_toe^B`` [N] (digest §4.4)."""
    b = leg_basis(theta, phi)
    ft = tau_theta / rho
    fp = tau_phi / (rho * math.cos(theta))
    return (b[0] * f_rho + b[1] * ft + b[2] * fp,
            b[3] * f_rho + b[4] * ft + b[5] * fp,
            b[6] * f_rho + b[7] * ft + b[8] * fp)


@njit(cache=True, nogil=True)
def body_to_world(x, bx, by, bz):
    """``R_b v`` for a body-frame vector v (R from the state, row-major)."""
    return (x[X_R] * bx + x[X_R + 1] * by + x[X_R + 2] * bz,
            x[X_R + 3] * bx + x[X_R + 4] * by + x[X_R + 5] * bz,
            x[X_R + 6] * bx + x[X_R + 7] * by + x[X_R + 8] * bz)
