"""Compiled hooks of the compliant hexapod (SimSect digest §4.2–§4.8; ``SS_HexVectorField.c``).

Mode bits: stance flag of leg i in bit i (0–5), clock phase of leg i in bits 6 + 2i, 7 + 2i.
Guards: 2i = liftoff of leg i (stance), 2i + 1 = touchdown of leg i (flight), 12 = clock half
cycle, 13 + i = slow/fast switch of leg i (:mod:`.controller`). All guards are FALLING.

Physics choices (⚠ where the digest is unclear):

* Rigid body (digest §4.6): ``rddot = F_T/M``, ``Rdot = hat(w) R``,
  ``wdot = J_W^{-1}(T_T − w × J_W w)`` with ``J_W = R J R^T`` (computed as
  ``R J^{-1}(R^T T_T − w_b × J w_b)``, ``w_b = R^T w``). Only stance legs load the body.
* Toe in flight (digest §4.7): ``fddot = F_toe^W/m − g e_z`` (gravity acts on the toe — a
  physical choice; the digest leaves it open).
* Toe in stance: first-order friction. With the load the toe puts on the ground
  ``L = F_toe^W − m g e_z``, the normal reaction ``N = −L·n`` and the tangential load
  ``L_t = L − (L·n) n``: ``fdot = 0`` inside the cone ``|L_t| <= k_f N``, else
  ``fdot = slide_gain (|L_t| − k_f N) L_t/|L_t|`` (tangent to the terrain, so the toe stays on
  it). ``slide_gain`` = 0.01 m/(N·s): 10 N outside the cone slide the toe at 0.1 m/s. The toe
  velocity *states* stay zero in stance (their rate is 0); the leg damping sees the toe at rest.
* Liftoff guard = N (positive while the leg presses the toe into the ground; digest §4.8).
  The toe weight counts in N (``contact_weight`` = 1): a resting toe whose leg pulls it up
  by less than its weight stays on the ground, as in flight it would fall straight back.
  ``contact_weight`` = 0 uses the leg force alone (the literal digest reading); then such a
  toe lifts off and falls back at once — SimSect's stance/flight chattering (§4.15).
  Touchdown guard = toe height above the terrain.
* Touchdown reset: plastic impact (toe velocity zeroed, toe put on the terrain); if the normal
  reaction of the new state is not positive the touchdown is skipped (mode unchanged, toe left
  at rest ``contact_clearance`` above the terrain). Liftoff reset: toe raised by
  ``contact_clearance`` (default 1 nm) so that the flight mode starts strictly inside its
  patch — the engine fires a FALLING guard only on a positive → non-positive change.
* After every event the reset makes the state consistent with the new mode: a stance leg whose
  normal reaction is not positive lifts off and a flight toe at or below the terrain touches
  down, even if their guard did not fire (a clock switch steps the PD's reference rate, hence
  the hip torque, and can move a guard across zero at the event instant — the engine only
  detects crossings *during* a step).
* Every reset re-orthonormalises R_b (one Newton step of the polar decomposition).
"""

from __future__ import annotations

import math

from numba import njit

from ...hybrid import signatures as sig
from ._kinematics import body_to_world, leg_passive, leg_rates, leg_vectors, toe_force_body
from .controller import clock_guards, clock_reset, hip_torque, phase_of, ref_rate
from .params import (
    NLEG,
    P_CLEAR,
    P_G,
    P_J,
    P_MASS,
    P_MU,
    P_SLIDE,
    P_TOE_MASS,
    P_TOE_W,
    X_POS,
    X_R,
    X_REF,
    X_TOE,
    X_TOEV,
    X_VEL,
    X_W,
)
from .terrain import normal_from_slope, terrain

ERR_BODY_UNDERGROUND = 1
ERR_TOE_UNDERGROUND = 2
ERR_NONFINITE = 3
ERROR_MESSAGES = {
    ERR_BODY_UNDERGROUND: "body toppled over: the COM is below the terrain (hex_ValidateChart)",
    ERR_TOE_UNDERGROUND: "a flight toe is more than 1 mm below the terrain (missed touchdown)",
    ERR_NONFINITE: "non-finite hexapod state",
}
TOE_DEPTH_TOL = 1e-3


@njit(cache=True, nogil=True)
def leg(x, p, mode, i):
    """Leg i: toe force and geometry, ``(Fw_x, Fw_y, Fw_z, d_x, d_y, d_z, rho, theta, phi,
    phidot, tau_phi)``.

    ``Fw`` = force of the leg on its toe in W [N]; ``d = f_i − r_b`` [m] in W; angles [rad];
    ``phidot`` [rad/s]; ``tau_phi`` hip torque [N·m] (digest §4.3–§4.5, §4.13).
    """
    vx, vy, vz, vdx, vdy, vdz, d0, d1, d2 = leg_vectors(x, p, i)
    rho, th, ph, rhod, thd, phd = leg_rates(vx, vy, vz, vdx, vdy, vdz)
    fr, tt = leg_passive(p, i, rho, th, rhod, thd)
    tp = hip_torque(x, p, mode, i, ph, phd)
    bx, by, bz = toe_force_body(rho, th, ph, fr, tt, tp)
    fx, fy, fz = body_to_world(x, bx, by, bz)
    return fx, fy, fz, d0, d1, d2, rho, th, ph, phd, tp


@njit(cache=True, nogil=True)
def contact(x, p, i, fx, fy, fz):
    """Ground contact of toe i under the leg force ``F`` (W): ``(N, Lt_x, Lt_y, Lt_z)``.

    ``N`` = normal reaction [N] needed to hold the toe (positive = pressing, digest §4.8 liftoff
    boundary), ``Lt`` = tangential load [N] the friction must resist (digest §4.7).
    """
    hh, hx, hy = terrain(p, x[X_TOE + 3 * i], x[X_TOE + 3 * i + 1])
    n0, n1, n2 = normal_from_slope(hx, hy)
    lz = fz - p[P_TOE_W] * p[P_TOE_MASS] * p[P_G]
    ln = fx * n0 + fy * n1 + lz * n2
    return -ln, fx - ln * n0, fy - ln * n1, lz - ln * n2


@njit(cache=True, nogil=True)
def normal_force(x, p, mode, i):
    """Normal ground reaction [N] of leg i as if in stance (liftoff boundary value)."""
    fx, fy, fz, _, _, _, _, _, _, _, _ = leg(x, p, mode, i)
    n, _, _, _ = contact(x, p, i, fx, fy, fz)
    return n


@sig.vector_field(allocates=False)
def vector_field(t, x, p, mode, xdot):
    """Hexapod vector field (digest §4.6–§4.7, §4.13): writes dx/dt, float64[81], SI units."""
    m_body = p[P_MASS]
    m_toe = p[P_TOE_MASS]
    g = p[P_G]
    fx_t = 0.0
    fy_t = 0.0
    fz_t = -m_body * g
    tx = 0.0
    ty = 0.0
    tz = 0.0
    for i in range(NLEG):
        fx, fy, fz, d0, d1, d2, _, _, _, _, _ = leg(x, p, mode, i)
        k = X_TOE + 3 * i
        kv = X_TOEV + 3 * i
        if (mode >> i) & 1:
            fx_t -= fx
            fy_t -= fy
            fz_t -= fz
            tx -= d1 * fz - d2 * fy
            ty -= d2 * fx - d0 * fz
            tz -= d0 * fy - d1 * fx
            nrm, l0, l1, l2 = contact(x, p, i, fx, fy, fz)
            lt = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
            excess = lt - p[P_MU] * max(nrm, 0.0)
            if excess > 0.0 and lt > 0.0:
                s = p[P_SLIDE] * excess / lt
                xdot[k] = s * l0
                xdot[k + 1] = s * l1
                xdot[k + 2] = s * l2
            else:
                xdot[k] = 0.0
                xdot[k + 1] = 0.0
                xdot[k + 2] = 0.0
            xdot[kv] = 0.0
            xdot[kv + 1] = 0.0
            xdot[kv + 2] = 0.0
        else:
            xdot[k] = x[kv]
            xdot[k + 1] = x[kv + 1]
            xdot[k + 2] = x[kv + 2]
            xdot[kv] = fx / m_toe
            xdot[kv + 1] = fy / m_toe
            xdot[kv + 2] = fz / m_toe - g
        xdot[X_REF + i] = ref_rate(x, mode, i)
    for j in range(X_REF + NLEG, x.size):
        xdot[j] = 0.0
    # translation
    for a in range(3):
        xdot[X_POS + a] = x[X_VEL + a]
    xdot[X_VEL] = fx_t / m_body
    xdot[X_VEL + 1] = fy_t / m_body
    xdot[X_VEL + 2] = fz_t / m_body
    # rotation: Rdot = hat(w) R, column by column
    w0 = x[X_W]
    w1 = x[X_W + 1]
    w2 = x[X_W + 2]
    for c in range(3):
        r0 = x[X_R + c]
        r1 = x[X_R + 3 + c]
        r2 = x[X_R + 6 + c]
        xdot[X_R + c] = w1 * r2 - w2 * r1
        xdot[X_R + 3 + c] = w2 * r0 - w0 * r2
        xdot[X_R + 6 + c] = w0 * r1 - w1 * r0
    # body-frame angular velocity and torque
    r00 = x[X_R]
    r01 = x[X_R + 1]
    r02 = x[X_R + 2]
    r10 = x[X_R + 3]
    r11 = x[X_R + 4]
    r12 = x[X_R + 5]
    r20 = x[X_R + 6]
    r21 = x[X_R + 7]
    r22 = x[X_R + 8]
    wb0 = r00 * w0 + r10 * w1 + r20 * w2
    wb1 = r01 * w0 + r11 * w1 + r21 * w2
    wb2 = r02 * w0 + r12 * w1 + r22 * w2
    tb0 = r00 * tx + r10 * ty + r20 * tz
    tb1 = r01 * tx + r11 * ty + r21 * tz
    tb2 = r02 * tx + r12 * ty + r22 * tz
    j00 = p[P_J]
    j01 = p[P_J + 1]
    j02 = p[P_J + 2]
    j10 = p[P_J + 3]
    j11 = p[P_J + 4]
    j12 = p[P_J + 5]
    j20 = p[P_J + 6]
    j21 = p[P_J + 7]
    j22 = p[P_J + 8]
    h0 = j00 * wb0 + j01 * wb1 + j02 * wb2
    h1 = j10 * wb0 + j11 * wb1 + j12 * wb2
    h2 = j20 * wb0 + j21 * wb1 + j22 * wb2
    b0 = tb0 - (wb1 * h2 - wb2 * h1)
    b1 = tb1 - (wb2 * h0 - wb0 * h2)
    b2 = tb2 - (wb0 * h1 - wb1 * h0)
    # solve J a = b (Cramer)
    c00 = j11 * j22 - j12 * j21
    c01 = j02 * j21 - j01 * j22
    c02 = j01 * j12 - j02 * j11
    c10 = j12 * j20 - j10 * j22
    c11 = j00 * j22 - j02 * j20
    c12 = j02 * j10 - j00 * j12
    c20 = j10 * j21 - j11 * j20
    c21 = j01 * j20 - j00 * j21
    c22 = j00 * j11 - j01 * j10
    inv_det = 1.0 / (j00 * c00 + j01 * c10 + j02 * c20)
    a0 = (c00 * b0 + c01 * b1 + c02 * b2) * inv_det
    a1 = (c10 * b0 + c11 * b1 + c12 * b2) * inv_det
    a2 = (c20 * b0 + c21 * b1 + c22 * b2) * inv_det
    xdot[X_W] = r00 * a0 + r01 * a1 + r02 * a2
    xdot[X_W + 1] = r10 * a0 + r11 * a1 + r12 * a2
    xdot[X_W + 2] = r20 * a0 + r21 * a1 + r22 * a2


@njit(cache=True, nogil=True)
def toe_height(x, p, i):
    """Toe i height above the terrain [m] (touchdown boundary, digest §4.8)."""
    fx = x[X_TOE + 3 * i]
    fy = x[X_TOE + 3 * i + 1]
    hh, _, _ = terrain(p, fx, fy)
    return x[X_TOE + 3 * i + 2] - hh


@sig.guards(allocates=False)
def guards(t, x, p, mode, g):
    """Guard values: 2i liftoff (N_i), 2i+1 touchdown (toe height), 12..18 clock (digest §4.8)."""
    for i in range(NLEG):
        if (mode >> i) & 1:
            g[2 * i] = normal_force(x, p, mode, i)
            g[2 * i + 1] = math.nan
        else:
            g[2 * i] = math.nan
            g[2 * i + 1] = toe_height(x, p, i)
    clock_guards(t, x, mode, g)


@njit(cache=True, nogil=True)
def _orthonormalise(x):
    """One Newton step R <- R (3 I − R^T R)/2 towards the nearest rotation (in place)."""
    r = [x[X_R + k] for k in range(9)]
    s = [0.0] * 9
    for a in range(3):
        for b in range(3):
            v = 0.0
            for c in range(3):
                v += r[3 * c + a] * r[3 * c + b]
            s[3 * a + b] = (3.0 if a == b else 0.0) - v
    for a in range(3):
        for b in range(3):
            v = 0.0
            for c in range(3):
                v += r[3 * a + c] * s[3 * c + b]
            x[X_R + 3 * a + b] = 0.5 * v


@njit(cache=True, nogil=True)
def _rest_toe(x_new, p, i, lift):
    """Put toe i on the terrain (+ ``lift`` m) with zero velocity (plastic impact)."""
    k = X_TOE + 3 * i
    hh, _, _ = terrain(p, x_new[k], x_new[k + 1])
    x_new[k + 2] = hh + lift
    kv = X_TOEV + 3 * i
    x_new[kv] = 0.0
    x_new[kv + 1] = 0.0
    x_new[kv + 2] = 0.0


@sig.reset
def reset(t, x, p, mode, fired, x_new):
    """Touchdown / liftoff / clock transitions (digest §4.8, §4.13); returns the new mode."""
    new = clock_reset(t, x, p, mode, fired, x_new)
    _orthonormalise(x_new)
    clear = p[P_CLEAR]
    for i in range(NLEG):
        bit = 1 << i
        if mode & bit:
            # a fired liftoff, or a stance leg the reset left pulling (e.g. a clock switch
            # that steps the PD's reference rate): the post-event state must lie in the patch
            if fired[2 * i] or normal_force(x_new, p, new, i) <= 0.0:
                new &= ~bit
                _rest_toe(x_new, p, i, clear)
        elif fired[2 * i + 1] or toe_height(x_new, p, i) <= 0.0:
            _rest_toe(x_new, p, i, 0.0)
            if normal_force(x_new, p, new | bit, i) > 0.0:
                new |= bit
            else:                         # skipped touchdown: the leg would pull the toe up
                _rest_toe(x_new, p, i, clear)
    return new


NOUT_BODY = 13
LEG_OUTPUTS = ("stance", "phase", "tau", "rho", "theta", "phi", "phidot", "phi_ref", "normal_force")


@sig.outputs(allocates=False)
def outputs(t, x, p, mode, y):
    """Auxiliary outputs (``OUTPUT_NAMES`` in :mod:`.model`): time, body pose/velocity,
    roll/pitch/yaw (R = Rz(yaw) Rx(pitch) Ry(roll); x lateral, y forward), angular velocity,
    then per leg: stance flag, clock phase, hip torque, rho, theta, phi, phidot, phi_ref and
    normal ground reaction (0 in flight)."""
    y[0] = t
    for a in range(3):
        y[1 + a] = x[X_POS + a]
        y[4 + a] = x[X_VEL + a]
    y[7] = math.atan2(-x[X_R + 6], x[X_R + 8])                      # roll (about y)
    y[8] = math.asin(min(1.0, max(-1.0, x[X_R + 7])))               # pitch (about x)
    y[9] = math.atan2(-x[X_R + 1], x[X_R + 4])                      # yaw (about z)
    for a in range(3):
        y[10 + a] = x[X_W + a]
    nl = len(LEG_OUTPUTS)
    for i in range(NLEG):
        fx, fy, fz, _, _, _, rho, th, ph, phd, tp = leg(x, p, mode, i)
        st = (mode >> i) & 1
        base = NOUT_BODY + nl * i
        y[base] = st
        y[base + 1] = phase_of(mode, i)
        y[base + 2] = tp
        y[base + 3] = rho
        y[base + 4] = th
        y[base + 5] = ph
        y[base + 6] = phd
        y[base + 7] = x[X_REF + i]
        if st:
            n, _, _, _ = contact(x, p, i, fx, fy, fz)
            y[base + 8] = n
        else:
            y[base + 8] = 0.0


@sig.check(allocates=False)
def check(t, x, p, mode):
    """State/mode consistency (``hex_ValidateChart``, digest §4.8): 0 or an error code.

    Body below the terrain and a flight toe more than 1 mm below it are errors. SimSect's
    "stance leg with a pulling normal force" error cannot arise: the reset lifts such legs off.
    """
    for k in range(x.size):
        if not math.isfinite(x[k]):
            return ERR_NONFINITE
    hh, _, _ = terrain(p, x[X_POS], x[X_POS + 1])
    if x[X_POS + 2] < hh:
        return ERR_BODY_UNDERGROUND
    for i in range(NLEG):
        if not (mode >> i) & 1 and toe_height(x, p, i) < -TOE_DEPTH_TOL:
            return ERR_TOE_UNDERGROUND
    return 0
