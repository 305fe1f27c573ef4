"""The RATS control tick, compiled: the observation a policy sees (:func:`observe`, for
:func:`legsim.robots.rats.robot.firing_controller`) and the rolling controller's step (:func:`rolling_tick`,
the body of :meth:`legsim.robots.rats.rolling.RollingController.step`, and of the brake's update),
equations (6.8)–(6.25) as documented in :mod:`legsim.robots.rats.rolling` (Wagenknecht (2009) §6.2).

Why compiled: both run at every 1 kHz tick of a Python controller. In Python the step cost 10.7 µs
and the observation ~3 µs a tick on the session-41 machine (AMD Zen 4), together more than the
Python share of the "≥ 20× real time for rolling" budget (BENCHMARKS "RATS rolling"); here each is one
call of ~1–2 µs. The arithmetic is that of the Python code they replaced, in the same order, so the
observations and firings are the same to the bit (checked when they replaced it, session 42:
1 008 504 replayed ticks, 20 151 firings; tests/test_rats_rolling.py checks the step against the
reference functions).

The rolling step's data (float64 unless noted; nothing is allocated per tick):
    pf (N_PF,) the packed parameters, indices ``P_*`` (``legsim.robots.rats.rolling._packed``);
    legs (N, 3) the legs' unit directions in the body frame;
    R (3, 3) body→world; omega, v, heading (3,) world frame [rad/s, m/s, -]; t [s], z [m] floats;
    v_d [m/s] the brake's command, < 0 for none;
    ready (N,) earliest time each leg may fire again [s]; armed (N,) bool;
    bs (N_BS,) the brake's state, indices ``B_*``;
    pl (N_PL, N) per-leg values of the tick, rows ``L_*``; diag (N_DIAG,) scalars of the tick, ``D_*``;
    fired (N, 2) int64: [leg, valve time in whole ms] rows of the legs fired, first the returned count.
A negative return is an ``E_*`` code: the tick's input is bad and nothing was changed.
"""

from __future__ import annotations

import math

from numba import njit

from ...multibody._spatial import quat_to_rot
from .geometry import N_LEGS

(P_PHI, P_T_DELAY, P_V_EXTEND, P_L, P_GAMMA, P_H_MAX, P_ALPHA, P_CHECK_ALPHA, P_TAN2BETA, P_REACH2,
 P_SEC2PHI, P_INV_BETA2, P_YAW_DPHI, P_ROLL_DT, P_T_FIRE, P_DT_BRAKE, P_BRAKE_A, P_T_RETRACT, P_REARM,
 P_TURN, P_ROLL_POLICY, P_YAW_POLICY, P_OMEGA_TURN_MIN, P_THETA_LO, P_THETA_HI, P_TURN_BRAKE, P_DV_MAX,
 P_K_I, P_C_FF, P_INTEGRAL_LIMIT, P_GX, P_GY, P_GZ) = range(33)
N_PF = 33
B_INTEGRAL, B_XI, B_T_PREV, B_HAS_PREV = range(4)
N_BS = 4
L_THETA_SAG, L_THETA_COR, L_THETA_FIRE, L_Q2, L_ELIGIBLE, L_IN_ZONE = range(6)
N_PL = 6
D_HX, D_HY, D_HZ, D_OMEGA_PITCH, D_OMEGA_ROLL, D_THETA_ERROR, D_XI_TURN, D_XI_BRAKE = range(8)
N_DIAG = 8
E_HEADING, E_OMEGA, E_V, E_R, E_HORIZONTAL, E_BACKWARDS = -1, -2, -3, -4, -5, -6

OBS_SLICES = ((0, 3), (3, 6), (6, 15), (15, 18), (18, 21), (21, 33), (33, 36))
"""Where the observation keeps accel, position, rotation (row by row), omega, velocity, legs and gyro
in its one buffer (:func:`observe`)."""
OBS_SIZE = 36


@njit(cache=True, nogil=True, fastmath={"contract"})
def observe(x, accel_at, gyro_at, buf):
    """Fill the observation buffer (``OBS_SLICES``) from the engine state ``x`` of the RATS (q: free joint
    [position, quaternion (x, y, z, w)], 12 legs; v: [linear, angular] in body axes, 12 legs): the
    sensor channels at ``accel_at`` and ``gyro_at`` (< 0: none), the rotation body -> world, omega and
    the centre's velocity turned into world axes. The rotation is :func:`quat_to_rot`'s and the products
    fuse multiply-adds as numpy's matrix-vector product did on the machine where it replaced that code
    (OpenBLAS, AVX-512): the same numbers to the bit there; elsewhere within rounding."""
    nq = 7 + N_LEGS
    R = buf[6:15].reshape((3, 3))
    quat_to_rot(x[3], x[4], x[5], x[6], R)
    for i in range(3):
        buf[i] = x[accel_at + i]
        buf[3 + i] = x[i]
        if gyro_at >= 0:
            buf[33 + i] = x[gyro_at + i]
        buf[15 + i] = R[i, 0] * x[nq + 3] + R[i, 1] * x[nq + 4] + R[i, 2] * x[nq + 5]
        buf[18 + i] = R[i, 0] * x[nq] + R[i, 1] * x[nq + 1] + R[i, 2] * x[nq + 2]
    for k in range(N_LEGS):
        buf[21 + k] = x[7 + k]


@njit(cache=True, nogil=True)
def brake_signal(pf, v, v_d, integral):
    """(6.22) ξ_brake = clip((v − v_d)/Δv_max + K_I·I + c_ff, 0, 1) [-]; v, v_d [m/s], I [m]."""
    x = (v - v_d) / pf[P_DV_MAX] + pf[P_K_I] * integral + pf[P_C_FF]
    return 0.0 if x <= 0.0 else (1.0 if x >= 1.0 else x)


@njit(cache=True, nogil=True)
def turn_effort(pf, theta_error):
    """ξ_turn (Fig. 6.23) [-]: 0 for |θ_error| ≤ theta_lo, rising linearly to 1 at theta_hi [rad]."""
    x = (abs(theta_error) - pf[P_THETA_LO]) / (pf[P_THETA_HI] - pf[P_THETA_LO])
    return 0.0 if x <= 0.0 else (1.0 if x >= 1.0 else x)


@njit(cache=True, nogil=True)
def brake_update(pf, bs, t, v, v_d):
    """The brake (6.22) advanced to time t [s] at horizontal speed v [m/s] with command v_d [m/s] (< 0:
    brake off, integral held): conditional-integration anti-windup, |K_I·I| ≤ integral_limit. Returns
    ξ_brake, or E_BACKWARDS (nothing changed) when t is before the last update's time."""
    dt = t - bs[B_T_PREV] if bs[B_HAS_PREV] != 0.0 else 0.0
    if dt < 0.0:
        return float(E_BACKWARDS)
    bs[B_T_PREV] = t
    bs[B_HAS_PREV] = 1.0
    if v_d < 0.0:
        bs[B_XI] = 0.0
        return 0.0
    e = v - v_d
    k_i = pf[P_K_I]
    if dt > 0.0 and k_i > 0.0:
        raw = e / pf[P_DV_MAX] + k_i * bs[B_INTEGRAL] + pf[P_C_FF]
        if not ((raw >= 1.0 and e > 0.0) or (raw <= 0.0 and e < 0.0)):
            lim = pf[P_INTEGRAL_LIMIT] / k_i
            bs[B_INTEGRAL] = min(max(bs[B_INTEGRAL] + e * dt, -lim), lim)
    xi = brake_signal(pf, v, v_d, bs[B_INTEGRAL])
    bs[B_XI] = xi
    return xi


@njit(cache=True, nogil=True)
def _finite3(a) -> bool:
    return math.isfinite(a[0]) and math.isfinite(a[1]) and math.isfinite(a[2])


@njit(cache=True, nogil=True)
def rolling_tick(pf, legs, t, R, omega, z, v, heading, v_d, ready, armed, bs, pl, diag, fired):
    """One control tick of the rolling controller (module docstring): fills ``fired`` and returns how
    many legs fire now, or a negative ``E_*`` code."""
    if not _finite3(heading):
        return E_HEADING
    if not _finite3(omega):
        return E_OMEGA
    if not _finite3(v):
        return E_V
    gx, gy, gz = pf[P_GX], pf[P_GY], pf[P_GZ]
    # desired frame {h, n = h × g, g} (§6.2.1)
    hx, hy, hz = heading[0], heading[1], heading[2]
    d = hx * gx + hy * gy + hz * gz
    hx, hy, hz = hx - d * gx, hy - d * gy, hz - d * gz
    m = math.sqrt(hx * hx + hy * hy + hz * hz)
    if not m > 1e-9:
        return E_HORIZONTAL
    hx, hy, hz = hx / m, hy / m, hz / m
    nx, ny, nz = hy * gz - hz * gy, hz * gx - hx * gz, hx * gy - hy * gx
    wx, wy, wz = omega[0], omega[1], omega[2]
    # heading error and turning effort (6.23)–(6.25); basis {h_roll, ω̂_proj, g} when ξ_turn > 0
    theta_error = 0.0
    xi_turn = 0.0
    if pf[P_TURN] != 0.0:
        wg = wx * gx + wy * gy + wz * gz
        px, py, pz = wx - wg * gx, wy - wg * gy, wz - wg * gz
        wpn = math.sqrt(px * px + py * py + pz * pz)
        if wpn > 0.0 and wpn >= pf[P_OMEGA_TURN_MIN]:
            rx, ry, rz = (gy * pz - gz * py) / wpn, (gz * px - gx * pz) / wpn, (gx * py - gy * px) / wpn
            ang = math.acos(min(max(rx * hx + ry * hy + rz * hz, -1.0), 1.0))
            theta_error = -ang if rx * nx + ry * ny + rz * nz < 0.0 else ang
            xi_turn = turn_effort(pf, theta_error)
            if xi_turn > 0.0:
                hx, hy, hz = rx, ry, rz
                nx, ny, nz = hy * gz - hz * gy, hz * gx - hx * gz, hx * gy - hy * gx
    omega_pitch = wx * nx + wy * ny + wz * nz
    omega_roll = wx * hx + wy * hy + wz * hz
    # the horizontal speed, for the brake (6.22)
    vx, vy, vz = v[0], v[1], v[2]
    vg = vx * gx + vy * gy + vz * gz
    vx, vy, vz = vx - vg * gx, vy - vg * gy, vz - vg * gz
    # projections (6.8)–(6.11), leg by leg: (R̂·ĝ, −R̂·ĥ, −R̂·n̂) of the leg's world direction R̂ = R L,
    # formed as L·(Rᵀg), L·(−Rᵀh), L·(−Rᵀn) from its body-frame direction L
    g0 = R[0, 0] * gx + R[1, 0] * gy + R[2, 0] * gz
    g1 = R[0, 1] * gx + R[1, 1] * gy + R[2, 1] * gz
    g2 = R[0, 2] * gx + R[1, 2] * gy + R[2, 2] * gz
    s0 = -(R[0, 0] * hx + R[1, 0] * hy + R[2, 0] * hz)
    s1 = -(R[0, 1] * hx + R[1, 1] * hy + R[2, 1] * hz)
    s2 = -(R[0, 2] * hx + R[1, 2] * hy + R[2, 2] * hz)
    c0 = -(R[0, 0] * nx + R[1, 0] * ny + R[2, 0] * nz)
    c1 = -(R[0, 1] * nx + R[1, 1] * ny + R[2, 1] * nz)
    c2 = -(R[0, 2] * nx + R[1, 2] * ny + R[2, 2] * nz)
    if not math.isfinite(g0 + g1 + g2 + s0 + s1 + s2 + c0 + c1 + c2):
        return E_R
    if bs[B_HAS_PREV] != 0.0 and t < bs[B_T_PREV]:
        return E_BACKWARDS
    # -- the inputs are good: from here on the state changes
    xi_brake = brake_update(pf, bs, t, math.sqrt(vx * vx + vy * vy + vz * vz), v_d)
    if xi_turn > 0.0 and pf[P_TURN_BRAKE] > 0.0:
        xi_brake = min(1.0, xi_brake + pf[P_TURN_BRAKE] * xi_turn)
    turning = xi_turn > 0.0
    yaw_turn = turning and pf[P_YAW_POLICY] != 0.0
    roll_turn = turning and pf[P_ROLL_POLICY] != 0.0
    # (6.14)–(6.18): θ_fire = φ − ω_pitch (Δr/v + t_delay), Δr = z sqrt(sec²φ + tan²θ_cor,adj) − l
    phi0, t_delay, l_ = pf[P_PHI], pf[P_T_DELAY], pf[P_L]
    k = omega_pitch / pf[P_V_EXTEND]
    lead = phi0 - omega_pitch * t_delay + k * l_
    kz = k * z
    gamma = pf[P_GAMMA]
    damped = gamma != 0.0 and omega_roll != 0.0               # roll damping (6.19): timing only
    reach = z <= pf[P_H_MAX]
    zz = z * z
    sec2 = pf[P_SEC2PHI]
    tan2beta, reach2, alpha = pf[P_TAN2BETA], pf[P_REACH2], pf[P_ALPHA]
    check_alpha = pf[P_CHECK_ALPHA] != 0.0
    inv_beta2 = pf[P_INV_BETA2]
    rearm = pf[P_REARM] != 0.0
    t_ready = t + 1e-9                                          # lockout (1e-9 s: float noise)
    nc = 0                                                      # candidates, in fired[:nc, 0]
    for i in range(legs.shape[0]):
        lx, ly, lz = legs[i, 0], legs[i, 1], legs[i, 2]
        dg = lx * g0 + ly * g1 + lz * g2
        dc = lx * c0 + ly * c1 + lz * c2
        theta_sag = math.atan2(lx * s0 + ly * s1 + lz * s2, dg)
        theta_cor = math.atan2(dc, dg)
        tc = dc / (dg if dg > 1e-12 else 1e-12)                 # tan θ_cor of the downward legs
        tc2 = tc * tc
        fire_lead = lead
        if yaw_turn:                                             # yaw-type: outside legs' φ lowered
            w = min(theta_cor * theta_cor * inv_beta2, 1.0) if theta_cor * theta_error < 0.0 else 0.0
            phi = phi0 - (xi_turn * pf[P_YAW_DPHI]) * w
            c = math.cos(phi)
            sec2 = 1.0 / (c * c)
            fire_lead = phi - omega_pitch * t_delay + k * l_
        if damped:
            ta = math.tan(theta_cor + gamma * omega_roll)
            q = math.sqrt(sec2 + ta * ta)
        else:
            q = math.sqrt(sec2 + tc2)
        theta_fire = fire_lead - kz * q
        # eligibility (6.12), (6.16) on the physical θ_cor:
        # Δr < Δr_max ⇔ z²(sec²φ + tan²θ_cor) < (l + Δr_max)²
        q2 = sec2 + tc2
        ok = reach and dg > 0.0 and tc2 <= tan2beta and zz * q2 < reach2 \
            and (not check_alpha or abs(theta_sag) <= alpha)
        in_zone = ok and theta_sag >= theta_fire                 # (6.13)
        if in_zone and ready[i] <= t_ready and (not rearm or armed[i]):
            fired[nc, 0] = i
            nc += 1
        if rearm and not in_zone:
            armed[i] = True
        pl[L_THETA_SAG, i] = theta_sag
        pl[L_THETA_COR, i] = theta_cor
        pl[L_THETA_FIRE, i] = theta_fire
        pl[L_Q2, i] = q2
        pl[L_ELIGIBLE, i] = 1.0 if ok else 0.0
        pl[L_IN_ZONE, i] = 1.0 if in_zone else 0.0
    nf = 0
    if nc > 0:
        a = pf[P_BRAKE_A] * xi_brake
        b = pf[P_T_FIRE] - xi_brake * pf[P_DT_BRAKE]
        for j in range(nc):
            i = fired[j, 0]
            tci = pl[L_THETA_COR, i]
            tk = a * tci * tci + b                               # brake parabola (6.21)
            if roll_turn:                                        # roll-type turning
                si = tci * theta_error
                if si > 0.0:
                    continue                                     # inside of the turn: no fire
                if si < 0.0:
                    tk += xi_turn * pf[P_ROLL_DT] * min(tci * tci * inv_beta2, 1.0)
            if tk <= t_delay + 1e-12:                            # the valve would never open
                continue
            ms = int(math.ceil(tk * 1e3 - 1e-9))                 # whole ms, rounded up (quantise_ms)
            fired[nf, 0] = i
            fired[nf, 1] = ms
            nf += 1
            ready[i] = t + ms * 1e-3 + pf[P_T_RETRACT]
            armed[i] = False
    diag[D_HX], diag[D_HY], diag[D_HZ] = hx, hy, hz
    diag[D_OMEGA_PITCH] = omega_pitch
    diag[D_OMEGA_ROLL] = omega_roll
    diag[D_THETA_ERROR] = theta_error
    diag[D_XI_TURN] = xi_turn
    diag[D_XI_BRAKE] = xi_brake
    return nf
