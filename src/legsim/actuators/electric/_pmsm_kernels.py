"""Compiled kernels of the PMSM drive (numba; only math here). Public, validating wrappers and the
equations with their sources: :mod:`legsim.actuators.electric.pmsm` and :mod:`.drive_loops`.

Conventions (Konyev 2011 §4.2.1, kept as printed): the electrical angle ``phi`` puts the rotor flux
on the D axis; a dq pair maps to phase quantities by (4.3), ``x_k = x_D sin(phi - a_k) + x_Q cos(phi -
a_k)`` with ``a = (0, 2 pi/3, -2 pi/3)`` for phases A, B, C, and back by (4.1) with the factor
``kpark`` (2/3: amplitude invariant, the exact inverse of (4.3); 3/2: as printed).

Parameter vector ``prm`` (:data:`NPRM`, indices ``M_*``), drive state ``s`` (:data:`NS`: i_D, i_Q [A],
rotor angle theta [rad], rotor speed omega [rad/s], output position x_o [m], output velocity v_o
[m/s]), controller parameters ``ctl`` (``C_*``) and controller state ``cs`` (``Z_*``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

TWO_PI_3 = 2.0 * math.pi / 3.0

# ---- motor, inverter and mechanics --------------------------------------------------------------
(M_R, M_LD, M_LQ, M_PSI, M_PP, M_J, M_B, M_TC, M_WEPS, M_VDC, M_TPWM, M_KPARK, M_KV, M_CF, M_ML,
 M_BL, M_XOBS, M_FEXT, M_CPR) = range(19)
NPRM = 19
"""R [ohm], L_d, L_q [H], flux linkage psi [V s], pole pairs p, rotor inertia J [kg m^2] (0: speed
held), viscous b [N m s/rad], Coulomb T_c [N m], its regularising speed [rad/s], DC link [V], PWM
period [s], controller's Park factor, KV [m/rad] (rotor angle -> nut travel), series spring CF
[N/m] (0: rigid), output mass [kg] (0 with a spring: output locked), output damping [N s/m],
rigid obstacle position [m] (inf: none), external force on the output [N], encoder counts per
revolution (0: exact angle)."""
S_ID, S_IQ, S_TH, S_OM, S_XO, S_VO = range(6)
NS = 6

# ---- controller -------------------------------------------------------------------------------
(C_P, C_I, C_OUTER, C_NDEC, C_KPF, C_KDF, C_GFF, C_KPX, C_KDX, C_FG, C_KPOS, C_KVEL, C_KIVEL,
 C_IMAX, C_VMAX, C_AMAX, C_IALIGN, C_TALIGN) = range(18)
NCTL = 18
OUT_CURRENT, OUT_ALIGN, OUT_FORCE, OUT_SEA_POSITION, OUT_CASCADE = range(5)
(Z_SD, Z_SQ, Z_DA, Z_DB, Z_DC, Z_IDREF, Z_IQREF, Z_FPREV, Z_XPREV, Z_YSH, Z_VSH, Z_SV, Z_COUNT0,
 Z_TH0, Z_PPREV) = range(15)
NZ = 15

# ---- records, one row per PWM period ------------------------------------------------------------
(R_T, R_ID, R_IQ, R_TH, R_OM, R_XO, R_VO, R_TE, R_FS, R_IQREF, R_RIPPLE, R_UMAG, R_YSH, R_IAMEAN,
 R_PHIC, R_DA, R_DB, R_DC) = range(18)
NREC = 18


@njit(cache=True, nogil=True)
def park(ia, ib, ic, phi, k):
    """(4.1): ``(x_D, x_Q)`` of phase values ``(ia, ib, ic)`` at electrical angle ``phi`` [rad], factor k."""
    sa, sb, sc = math.sin(phi), math.sin(phi - TWO_PI_3), math.sin(phi + TWO_PI_3)
    ca, cb, cc = math.cos(phi), math.cos(phi - TWO_PI_3), math.cos(phi + TWO_PI_3)
    return k * (ia * sa + ib * sb + ic * sc), k * (ia * ca + ib * cb + ic * cc)


@njit(cache=True, nogil=True)
def inverse_park(xd, xq, phi):
    """(4.3), read as U_D, U_Q -> U_A, U_B, U_C (errata §8): phase values of a dq pair at ``phi``."""
    return (xd * math.sin(phi) + xq * math.cos(phi),
            xd * math.sin(phi - TWO_PI_3) + xq * math.cos(phi - TWO_PI_3),
            xd * math.sin(phi + TWO_PI_3) + xq * math.cos(phi + TWO_PI_3))


@njit(cache=True, nogil=True)
def pi_step(s, e, p, i):
    """(4.2) ``U/e = P + I/(1 - z^-1)``: ``S_k = S_{k-1} + e_k``, ``U_k = P e_k + I S_k``; returns
    (U_k, S_k)."""
    s_new = s + e
    return p * e + i * s_new, s_new


@njit(cache=True, nogil=True)
def circle_limit(ud, uq, vdc):
    """The dq voltage limited to the circle ``|u| <= vdc / sqrt(3)``, the hexagon's inscribed circle (the
    largest voltage the inverter gives in every direction, so that min-max injected duties stay in
    [0, 1]: no overmodulation), **D axis first**: ``u_D`` clipped to the radius, ``u_Q`` to what is left.
    (A radial scaling would let i_D drift negative in saturation: unintended field weakening.)
    Returns ``(u_D, u_Q, d_clipped, q_clipped)``."""
    lim = vdc / math.sqrt(3.0)
    d = min(lim, max(-lim, ud))
    room = math.sqrt(max(0.0, lim * lim - d * d))
    q = min(room, max(-room, uq))
    return d, q, d != ud, q != uq


@njit(cache=True, nogil=True)
def duties(ua, ub, uc, vdc):
    """Leg duty cycles of phase voltages inside the hexagon, with min-max zero-sequence injection
    (equivalent to space-vector PWM): ``d_k = 1/2 + (u_k - (max + min)/2) / vdc``, in [0, 1]."""
    mid = 0.5 * (max(ua, ub, uc) + min(ua, ub, uc))
    return (min(1.0, max(0.0, 0.5 + (ua - mid) / vdc)), min(1.0, max(0.0, 0.5 + (ub - mid) / vdc)),
            min(1.0, max(0.0, 0.5 + (uc - mid) / vdc)))


@njit(cache=True, nogil=True)
def phase_voltages(la, lb, lc, vdc):
    """Phase-to-neutral voltages of a star winding with isolated neutral for leg levels (0..1 each):
    the leg voltages minus their mean (the neutral's potential)."""
    m = (la + lb + lc) / 3.0
    return vdc * (la - m), vdc * (lb - m), vdc * (lc - m)


@njit(cache=True, nogil=True)
def electromagnetic_torque(prm, i_d, i_q):
    """``T = 3/2 p (psi i_Q + (L_d - L_q) i_D i_Q)`` [N m] (amplitude-invariant dq, power balance)."""
    return 1.5 * prm[M_PP] * (prm[M_PSI] * i_q + (prm[M_LD] - prm[M_LQ]) * i_d * i_q)


@njit(cache=True, nogil=True)
def rates(prm, s, ua, ub, uc, ds):
    """``ds = d s/dt`` (NS,) for phase voltages (ua, ub, uc) [V]: dq voltage equations
    ``L_d di_D/dt = u_D - R i_D + w L_q i_Q``, ``L_q di_Q/dt = u_Q - R i_Q - w (L_d i_D + psi)``
    (w = p omega), rotor ``J domega/dt = T - b omega - T_c tanh(omega/w_eps) - KV F``, F the spring force
    ``CF (KV theta - x_o)`` (or, rigid, the external force with the output mass reflected)."""
    pp = prm[M_PP]
    phi = pp * s[S_TH]
    ud, uq = park(ua, ub, uc, phi, 2.0 / 3.0)
    we = pp * s[S_OM]
    i_d, i_q = s[S_ID], s[S_IQ]
    ds[S_ID] = (ud - prm[M_R] * i_d + we * prm[M_LQ] * i_q) / prm[M_LD]
    ds[S_IQ] = (uq - prm[M_R] * i_q - we * (prm[M_LD] * i_d + prm[M_PSI])) / prm[M_LQ]
    ds[S_TH] = s[S_OM]
    te = electromagnetic_torque(prm, i_d, i_q)
    fric = prm[M_B] * s[S_OM] + prm[M_TC] * math.tanh(s[S_OM] / prm[M_WEPS])
    kv = prm[M_KV]
    ds[S_XO] = 0.0
    ds[S_VO] = 0.0
    if prm[M_J] <= 0.0:
        ds[S_OM] = 0.0
    elif prm[M_CF] > 0.0:
        fs = prm[M_CF] * (kv * s[S_TH] - s[S_XO])
        ds[S_OM] = (te - fric - kv * fs) / prm[M_J]
        if prm[M_ML] > 0.0:
            ds[S_XO] = s[S_VO]
            ds[S_VO] = (fs - prm[M_BL] * s[S_VO] - prm[M_FEXT]) / prm[M_ML]
    else:
        ds[S_OM] = (te - fric - kv * prm[M_FEXT]) / (prm[M_J] + prm[M_ML] * kv * kv)
        ds[S_XO] = kv * s[S_OM]
        ds[S_VO] = kv * ds[S_OM]


@njit(cache=True, nogil=True)
def _rk4(prm, s, ua, ub, uc, h, buf):
    k1, k2, k3, k4, y = buf[0], buf[1], buf[2], buf[3], buf[4]
    rates(prm, s, ua, ub, uc, k1)
    for i in range(NS):
        y[i] = s[i] + 0.5 * h * k1[i]
    rates(prm, y, ua, ub, uc, k2)
    for i in range(NS):
        y[i] = s[i] + 0.5 * h * k2[i]
    rates(prm, y, ua, ub, uc, k3)
    for i in range(NS):
        y[i] = s[i] + h * k3[i]
    rates(prm, y, ua, ub, uc, k4)
    for i in range(NS):
        s[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
    if prm[M_CF] > 0.0 and s[S_XO] > prm[M_XOBS]:  # rigid obstacle: inelastic stop
        s[S_XO] = prm[M_XOBS]
        if s[S_VO] > 0.0:
            s[S_VO] = 0.0


@njit(cache=True, nogil=True)
def _phase_a(prm, s):
    return s[S_ID] * math.sin(prm[M_PP] * s[S_TH]) + s[S_IQ] * math.cos(prm[M_PP] * s[S_TH])


@njit(cache=True, nogil=True)
def _breakpoints(pts, da, db, dc, tp, exact):
    """``pts`` (8,): 0, T and the six switching instants of a centre-aligned period (``exact``; else
    zeros), sorted in place (insertion sort: no allocation)."""
    pts[0], pts[1] = 0.0, tp
    for j, d in enumerate((da, db, dc)):
        pts[2 + 2 * j] = 0.5 * tp * (1.0 - d) if exact else 0.0
        pts[3 + 2 * j] = 0.5 * tp * (1.0 + d) if exact else 0.0
    for i in range(1, 8):
        v = pts[i]
        j = i - 1
        while j >= 0 and pts[j] > v:
            pts[j + 1] = pts[j]
            j -= 1
        pts[j + 1] = v


@njit(cache=True, nogil=True)
def pwm_period(prm, s, da, db, dc, exact, nsub, buf, acc):
    """Advance the drive state ``s`` over one PWM period with leg duties (da, db, dc).

    ``exact``: centre-aligned carrier comparison, leg k on for ``t in [T (1 - d_k)/2, T (1 + d_k)/2]``
    (the switching instants are step boundaries); else the averaged inverter, each leg at its mean
    level ``d_k`` over the period. Both integrate by RK4 with steps of at most ``T / nsub``.
    ``acc`` (4,) returns the period's means of i_A, i_A^2, the torque and t i_A (t from the period's
    start; exact for a current linear over each step)."""
    tp = prm[M_TPWM]
    vdc = prm[M_VDC]
    acc[0] = 0.0
    acc[1] = 0.0
    acc[2] = 0.0
    acc[3] = 0.0
    tt = 0.0
    pts = buf[5]
    _breakpoints(pts, da, db, dc, tp, exact)
    hmax = tp / nsub
    ia0 = _phase_a(prm, s)
    te0 = electromagnetic_torque(prm, s[S_ID], s[S_IQ])
    for j in range(7):
        t0, t1 = pts[j], pts[j + 1]
        if t1 - t0 <= 1e-15 * tp:
            continue
        if exact:
            tm = 0.5 * (t0 + t1)
            la = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * da else 0.0
            lb = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * db else 0.0
            lc = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * dc else 0.0
        else:
            la, lb, lc = da, db, dc
        ua, ub, uc = phase_voltages(la, lb, lc, vdc)
        n = max(1, int(math.ceil((t1 - t0) / hmax - 1e-9)))
        h = (t1 - t0) / n
        for _ in range(n):
            _rk4(prm, s, ua, ub, uc, h, buf)
            ia1 = _phase_a(prm, s)
            te1 = electromagnetic_torque(prm, s[S_ID], s[S_IQ])
            acc[0] += 0.5 * h * (ia0 + ia1)
            # exact for a piecewise-linear current: int (a + (b - a) u)^2 = h (a^2 + a b + b^2) / 3
            acc[1] += h * (ia0 * ia0 + ia0 * ia1 + ia1 * ia1) / 3.0
            acc[2] += 0.5 * h * (te0 + te1)
            acc[3] += h * (tt * 0.5 * (ia0 + ia1) + h * (ia0 + 2.0 * ia1) / 6.0)
            tt += h
            ia0, te0 = ia1, te1
    for i in range(4):
        acc[i] /= tp


@njit(cache=True, nogil=True)
def detrended_rms(m1, m2, mt, tp):
    """RMS about the least-squares line over a period of length ``tp`` of a signal with means ``m1``
    (of i), ``m2`` (of i^2) and ``mt`` (of t i): ``sqrt(var i - cov(t, i)^2 / var t)``, var t = tp^2/12.
    The PWM ripple without the fundamental's slope across the period."""
    var_t = tp * tp / 12.0
    cov = mt - 0.5 * tp * m1
    return math.sqrt(max(0.0, m2 - m1 * m1 - cov * cov / var_t))


@njit(cache=True, nogil=True)
def encoder_angle(prm, theta):
    """Rotor angle as the incremental encoder reports it [rad] (``M_CPR`` counts per turn; 0: exact)."""
    cpr = prm[M_CPR]
    if cpr <= 0.0:
        return theta
    return 2.0 * math.pi * math.floor(theta * cpr / (2.0 * math.pi)) / cpr


@njit(cache=True, nogil=True)
def shaper_step(y, v, r, vmax, amax, t):
    """One sample ``t`` [s] of the second-order set-point shaper (the "position intensity controller",
    Fig. 4.17): output ``y`` moves toward ``r`` with ``|v| <= vmax``, ``|dv/dt| <= amax``, braking in time
    to stop at ``r``: the target speed is ``min(vmax, |e|/t, -a t/2 + sqrt((a t/2)^2 + 2 a |e|))`` toward r
    (the discrete braking curve: decelerating by ``a t`` per sample from it covers e), reached by at
    most ``a t`` per sample.
    Returns (y, v) after the sample."""
    e = r - y
    sgn = 1.0 if e >= 0.0 else -1.0
    half = 0.5 * amax * t
    vstar = sgn * min(vmax, abs(e) / t, -half + math.sqrt(half * half + 2.0 * amax * abs(e)))
    v_new = v + min(amax * t, max(-amax * t, vstar - v))
    return y + v_new * t, v_new


@njit(cache=True, nogil=True)
def _outer(prm, ctl, cs, s, k, refs, tf):
    """The outer loop of ``ctl[C_OUTER]`` at PWM period k (every ``C_NDEC`` periods, period ``tf``):
    sets the current references ``cs[Z_IDREF]``, ``cs[Z_IQREF]``."""
    outer = int(ctl[C_OUTER])
    imax = ctl[C_IMAX]
    if outer == OUT_CURRENT:
        cs[Z_IDREF], cs[Z_IQREF] = refs[k, 0], refs[k, 1]
        return
    if outer == OUT_ALIGN:
        cs[Z_IDREF], cs[Z_IQREF] = 0.0, refs[k, 1]
        return
    if outer == OUT_CASCADE:
        kv = prm[M_KV]
        x = kv * (encoder_angle(prm, s[S_TH] - cs[Z_TH0]))
        vm = (x - cs[Z_PPREV]) / tf
        cs[Z_PPREV] = x
        cs[Z_YSH], cs[Z_VSH] = shaper_step(cs[Z_YSH], cs[Z_VSH], refs[k, 0], ctl[C_VMAX], ctl[C_AMAX], tf)
        vref = ctl[C_KPOS] * (cs[Z_YSH] - x) + cs[Z_VSH]
        ev = vref - vm
        sv = cs[Z_SV] + ev * tf
        iq = ctl[C_KVEL] * ev + ctl[C_KIVEL] * sv
        if abs(iq) <= imax:  # conditional integration (anti-windup)
            cs[Z_SV] = sv
        cs[Z_IDREF], cs[Z_IQREF] = 0.0, min(imax, max(-imax, iq))
        return
    fs = prm[M_CF] * (prm[M_KV] * s[S_TH] - s[S_XO])  # the Hall sensor's spring force
    dfs = (fs - cs[Z_FPREV]) / tf
    cs[Z_FPREV] = fs
    if outer == OUT_SEA_POSITION:
        vx = (s[S_XO] - cs[Z_XPREV]) / tf
        cs[Z_XPREV] = s[S_XO]
        fg = ctl[C_FG]
        fref = min(fg, max(-fg, ctl[C_KPX] * (refs[k, 0] - s[S_XO]) - ctl[C_KDX] * vx))
    else:
        fref = refs[k, 0]
    iq = ctl[C_GFF] * fref + ctl[C_KPF] * (fref - fs) - ctl[C_KDF] * dfs
    cs[Z_IDREF], cs[Z_IQREF] = 0.0, min(imax, max(-imax, iq))


@njit(cache=True, nogil=True)
def run_drive(prm, ctl, s, cs, refs, exact, nsub, t0, rec):
    """Run the current-controlled drive for ``rec.shape[0]`` PWM periods from state ``s`` (NS,) and
    controller state ``cs`` (NZ,), both updated in place; ``refs`` (n, 2) the outer loop's inputs per
    period; ``rec`` (n, NREC) one row per period (state at its start, period means).

    Each period: sample the phase currents (at the carrier's valley, the period start), transform
    them by (4.1) at the controller's angle, PI (4.2) per axis, limit to the voltage circle (D first;
    an axis's integration held while it is clipped: anti-windup), inverse (4.3), duties; these apply
    one period later (the
    computation delay of a controller synchronous with the PWM)."""
    buf = np.zeros((6, 8))
    acc = np.zeros(4)
    pp = prm[M_PP]
    tp = prm[M_TPWM]
    ndec = max(1, int(ctl[C_NDEC]))
    tf = ndec * tp
    outer = int(ctl[C_OUTER])
    n_align = int(round(ctl[C_TALIGN] / tp)) if outer == OUT_ALIGN else 0
    for k in range(rec.shape[0]):
        t = t0 + k * tp
        # angle the controller uses
        if outer == OUT_ALIGN and k < n_align:
            phic = 0.0
            cs[Z_IDREF], cs[Z_IQREF] = ctl[C_IALIGN], 0.0
        else:
            if outer == OUT_ALIGN and k == n_align:  # reset the encoder's counter
                cs[Z_COUNT0] = encoder_angle(prm, s[S_TH] - cs[Z_TH0])
            phic = pp * (encoder_angle(prm, s[S_TH] - cs[Z_TH0]) - cs[Z_COUNT0])
            if k % ndec == 0:
                _outer(prm, ctl, cs, s, k, refs, tf)
        ia, ib, ic = inverse_park(s[S_ID], s[S_IQ], pp * s[S_TH])  # true phase currents
        md, mq = park(ia, ib, ic, phic, prm[M_KPARK])
        ed, eq = cs[Z_IDREF] - md, cs[Z_IQREF] - mq
        ud, sd = pi_step(cs[Z_SD], ed, ctl[C_P], ctl[C_I])
        uq, sq = pi_step(cs[Z_SQ], eq, ctl[C_P], ctl[C_I])
        ud, uq, clip_d, clip_q = circle_limit(ud, uq, prm[M_VDC])
        if not clip_d:  # conditional integration (anti-windup), per axis
            cs[Z_SD] = sd
        if not clip_q:
            cs[Z_SQ] = sq
        ua, ub, uc = inverse_park(ud, uq, phic)
        da, db, dc = duties(ua, ub, uc, prm[M_VDC])
        row = rec[k]
        row[R_T], row[R_ID], row[R_IQ], row[R_TH] = t, s[S_ID], s[S_IQ], s[S_TH]
        row[R_OM], row[R_XO], row[R_VO] = s[S_OM], s[S_XO], s[S_VO]
        row[R_FS] = prm[M_CF] * (prm[M_KV] * s[S_TH] - s[S_XO])
        row[R_IQREF], row[R_UMAG], row[R_YSH], row[R_PHIC] = cs[Z_IQREF], math.hypot(ud, uq), cs[Z_YSH], phic
        row[R_DA], row[R_DB], row[R_DC] = cs[Z_DA], cs[Z_DB], cs[Z_DC]
        # the duties computed in the previous period drive this one
        pwm_period(prm, s, cs[Z_DA], cs[Z_DB], cs[Z_DC], exact, nsub, buf, acc)
        cs[Z_DA], cs[Z_DB], cs[Z_DC] = da, db, dc
        row[R_IAMEAN] = acc[0]
        row[R_RIPPLE] = detrended_rms(acc[0], acc[1], acc[3], tp)
        row[R_TE] = acc[2]


@njit(cache=True, nogil=True)
def ripple_rms(da, db, dc, vdc, ind, tp):
    """Predicted RMS [A] of phase A's PWM current ripple over one centre-aligned period: with R, the
    back-EMF's change within the period and the rotation neglected, ``L dr/dt = u_A(t) - mean(u_A)``,
    r piecewise linear; returns r's RMS about its least-squares line (:func:`detrended_rms`)."""
    pts = np.empty(8)
    _breakpoints(pts, da, db, dc, tp, np.bool_(True))  # a literal True would compile it twice
    ubar, _, _ = phase_voltages(da, db, dc, vdc)
    r0 = 0.0
    m1 = 0.0
    m2 = 0.0
    mt = 0.0
    tt = 0.0
    for j in range(7):
        t0, t1 = pts[j], pts[j + 1]
        h = t1 - t0
        if h <= 0.0:
            continue
        tm = 0.5 * (t0 + t1)
        la = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * da else 0.0
        lb = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * db else 0.0
        lc = 1.0 if abs(tm - 0.5 * tp) < 0.5 * tp * dc else 0.0
        ua, _, _ = phase_voltages(la, lb, lc, vdc)
        r1 = r0 + (ua - ubar) * h / ind
        m1 += 0.5 * h * (r0 + r1)
        m2 += h * (r0 * r0 + r0 * r1 + r1 * r1) / 3.0
        mt += h * (tt * 0.5 * (r0 + r1) + h * (r0 + 2.0 * r1) / 6.0)
        tt += h
        r0 = r1
    return detrended_rms(m1 / tp, m2 / tp, mt / tp, tp)
