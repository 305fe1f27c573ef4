"""The CRR joint's parameter block and its controller kernels (private; pure, no hooks).

Daepp (2011) Ch. 5 / digest §4 algorithm 1: each joint has a block of ``NJ`` floats — its linkage
(joint kind and l1 … l5 of (5.2.1)–(5.2.9)), its PID gains and pressure-force feedback gains, and its
reference (a sine or a table of up to ``NTAB`` points). The CRR leg's hooks
(:mod:`._hooks`, blocks in the leg's parameter vector) and the compiled joint controller of
:mod:`.control` (blocks in a controller's parameters, e.g. the CRR quadruped's) read the same block
through the same kernels: :func:`reference_at` and :func:`pid_law`.
"""

from __future__ import annotations

import math

from numba import njit

from legsim.actuators.pneumatic import _layout as L
from legsim.actuators.pneumatic._linkage_kernels import GAMMA

NTAB = 64                     # reference table points per joint (a walking run needs ~40)
# per-joint block, offsets inside it
KIND, L1, L2, L3, L4, L5, KP, KI, KD, GAIN, U_BIAS = range(11)
REF_KIND, REF_T0, REF_AMP, REF_OMEGA, REF_OFF, N_TAB = range(11, 17)
KF = 17                       # pressure-force feedback gains: static [V/N]
KFD = 18                      # and on its rate [V s/N]
REF_PERIOD = 19               # table repeat period [s] (0: not cyclic)
TAB = 20                      # NTAB times, then NTAB values
NJ = TAB + 2 * NTAB
REF_TABLE = 0                 # held steps
REF_SINE = 1
REF_LINEAR = 2                # piecewise linear through the table points (ramps, trapezoids)


@njit(cache=True)
def reference_at(t, p, b):
    """Reference angle [rad] at time t [s] of the joint whose block starts at ``p[b]``: a sine, or
    a table of n points (t_i, θ_i).

    REF_TABLE holds θ_i on [t_i, t_{i+1}); REF_LINEAR interpolates linearly between the points.
    Both give θ_0 before t_0 and θ_{n-1} after t_{n-1}. With a period P > 0 the table repeats:
    r(t) = r(t_0 + (t − t_0) mod P) for t ≥ t_0, and the linear kind closes the cycle with a ramp
    from (t_{n-1}, θ_{n-1}) back to (t_0 + P, θ_0) (the held kind keeps θ_{n-1} until t_0 + P).
    """
    kind = int(p[b + REF_KIND])
    if kind == REF_SINE:
        if t < p[b + REF_T0]:
            return p[b + REF_OFF]
        return p[b + REF_OFF] + p[b + REF_AMP] * math.sin(p[b + REF_OMEGA] * (t - p[b + REF_T0]))
    n = int(p[b + N_TAB])
    ts = b + TAB
    vs = ts + NTAB
    period = p[b + REF_PERIOD]
    tq = t
    if period > 0.0 and t > p[ts]:
        tq = p[ts] + (t - p[ts]) % period
    if tq <= p[ts]:
        return p[vs]
    i = 0                                   # last point with t_i <= tq
    while i + 1 < n and p[ts + i + 1] <= tq:
        i += 1
    if kind == REF_TABLE:
        return p[vs + i]
    if i + 1 < n:
        t_a, t_b, v_b = p[ts + i], p[ts + i + 1], p[vs + i + 1]
    elif period > 0.0:
        t_a, t_b, v_b = p[ts + i], p[ts] + period, p[vs]
    else:
        return p[vs + i]
    return p[vs + i] + (v_b - p[vs + i]) * (tq - t_a) / (t_b - t_a)


@njit(cache=True)
def pid_law(p, ra, b, f_p, theta, r, integ_prev, e_prev, f_prev, first, dt):
    """One tick of a joint's controller: the PID on e = r − θ plus the net-pressure-force feedback,

        u = u_bias + s g (kp e + ki ∫e + kd Δe/Δt) − g (k_F F_p + k_Fd ΔF_p/Δt),  s = sign(dx/dθ),

    saturated to the valve's [u_min, u_max] with the integrator held while saturated (the
    prototype's "position and pressure feedback", digest §1.1). ``p[b:]``: the joint block (gains),
    ``p[ra:]``: the actuator's parameter row (``actuators.pneumatic._layout``: voltage range);
    ``f_p`` [N]: the net pressure force P_cap A_cap − P_rod A_rod − P_atm A_rod,cs (4.1.11) now,
    ``f_prev`` at the previous tick; θ, r [rad]; ``first``: no derivative terms (the first tick);
    dt [s]: the controller's period. Returns (u [V], ∫e [rad s], e [rad])."""
    e = r - theta
    integ = integ_prev + e * dt
    deriv = 0.0 if first else (e - e_prev) / dt
    c = p[b + GAIN] * (p[b + KP] * e + p[b + KI] * integ + p[b + KD] * deriv)
    sgn = -1.0 if int(p[b + KIND]) == GAMMA else 1.0
    df = 0.0 if first else (f_p - f_prev) / dt
    u = p[b + U_BIAS] + sgn * c - p[b + GAIN] * (p[b + KF] * f_p + p[b + KFD] * df)
    lo = p[ra + L.U_MIN]
    hi = p[ra + L.U_MAX]
    if u > hi or u < lo:
        integ = integ_prev
        u = min(max(u, lo), hi)
    return u, integ, e
