"""Compiled normal-force and friction laws (Konyev 2011, digest §1.6–§1.7).

Only numpy/numba/math here. Every law reads its parameters from one row ``prm`` (float64[NPRM])
of the law table; the slot indices below name the entries. SI units: stiffness N/m (N/m^n for
exponent n), damping factor s/m, velocities m/s, forces N.

Conventions (digest §1.6): ``p`` is the penetration depth [m] (> 0 in contact), ``pdot`` its
rate [m/s] (> 0 while the bodies approach), ``v_imp`` the approach rate latched at the onset
of the contact [m/s]. A normal law returns the magnitude of the pushing-out force [N] (>= 0:
contacts never pull). A friction law returns the tangential force vector [N] acting on the
second body of the contact, opposing the tangential slip velocity ``vt`` (3,) [m/s].
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._fastmath import FASTMATH

# ---- law codes -------------------------------------------------------------------------------
N_LINEAR = 0  # (2.1) linear penalty
N_ENGELSON = 1  # (2.15) velocity-multiplied damping, fixed damping factor d
N_RESTITUTION = 2  # (2.20) restitution-parameterised, d = D / v_impact (latched, clamped)
N_HUNT_CROSSLEY = 3  # k p^n (1 + alpha pdot)
N_HERTZ = 4  # k p^(3/2)
N_KELVIN_VOIGT = 5  # linear spring-damper k p + c pdot (clipped at 0)

F_NONE = 0
F_COULOMB = 1  # regularised Coulomb
F_STRIBECK = 2  # (2.18)
F_THRESHOLD = 3  # (2.19), capped at mu F_n
F_ANCHOR = 4  # (2.21) 1/n-scaled (2.19) + anchor spring (integral loop), saturated at mu F_n

# ---- parameter slots -------------------------------------------------------------------------
S_K = 0  # stiffness k
S_EXP = 1  # exponent n of p^n (1 for (2.1)/(2.15)/(2.20))
S_DAMP = 2  # d (2.15) [s/m], alpha (Hunt-Crossley) [s/m], c (Kelvin-Voigt) [N s/m]
S_D = 3  # dimensionless D = d * v_impact for (2.20)
S_VMIN = 4  # floor for v_impact in (2.20) [m/s]
S_MU = 8  # friction ratio mu
S_VEPS = 9  # regularisation velocity [m/s] (Coulomb, Stribeck sign)
S_BRK = 10  # const_brk: breakaway / Coulomb ratio
S_VISC = 11  # const_damping / viscous coefficient [N s/m]
S_DECAY = 12  # Stribeck "const" (< 0); for (2.19) dimensionless, for (2.18) [s/m]
S_VTH = 13  # threshold velocity v_th (2.19) [m/s]
S_FVMIN = 14  # v_min of (2.19) [m/s]
S_NSCALE = 15  # scale-down factor n of (2.21)
S_KI = 16  # anchor-spring (integral loop) stiffness [N/m]
NPRM = 20


@njit(cache=True, fastmath=FASTMATH)
def normal_force(ncode, prm, p, pdot, v_imp):
    """Normal contact force magnitude [N] for one contact (digest §1.6).

    Parameters
    ----------
    ncode : int
        Law code (``N_*``).
    prm : float64[NPRM]
        Law parameters (slots ``S_*``).
    p, pdot : float
        Penetration depth [m] and its rate [m/s] (positive = approaching).
    v_imp : float
        Approach rate latched at contact onset [m/s] (only (2.20) uses it).

    Returns
    -------
    float
        F_n >= 0. Laws: (2.1) k p; (2.15) k p (1 + d pdot); (2.20) k p^n (1 + D/max(v_imp, v_min)
        pdot); Hunt–Crossley k p^n (1 + alpha pdot); Hertz k p^1.5; Kelvin–Voigt k p + c pdot.
        Zero for p <= 0 and clipped at zero (no adhesion).
    """
    if p <= 0.0:
        return 0.0
    k = prm[S_K]
    if ncode == N_LINEAR:
        f = k * p
    elif ncode == N_ENGELSON:
        f = k * p * (1.0 + prm[S_DAMP] * pdot)
    elif ncode == N_RESTITUTION:
        vi = v_imp if v_imp > prm[S_VMIN] else prm[S_VMIN]
        f = k * p ** prm[S_EXP] * (1.0 + prm[S_D] / vi * pdot)
    elif ncode == N_HUNT_CROSSLEY:
        f = k * p ** prm[S_EXP] * (1.0 + prm[S_DAMP] * pdot)
    elif ncode == N_HERTZ:
        f = k * p * math.sqrt(p)
    elif ncode == N_KELVIN_VOIGT:
        f = k * p + prm[S_DAMP] * pdot
    else:
        f = 0.0
    return f if f > 0.0 else 0.0


@njit(cache=True, fastmath=FASTMATH)
def threshold_curve(prm, v):
    """Friction curve (2.19), odd-symmetric, [N] (no sign flip: same sign as ``v``).

    Below v_th: const_brk * const_damping * v. Above: const_damping * v_th * (const_brk - 1)
    * exp(const * (|v| - v_th) / v_min) + const_damping * |v|. Continuous at v_th.
    """
    a = abs(v)
    brk = prm[S_BRK]
    c = prm[S_VISC]
    vth = prm[S_VTH]
    if a < vth:
        g = brk * c * a
    else:
        g = c * vth * (brk - 1.0) * math.exp(prm[S_DECAY] * (a - vth) / prm[S_FVMIN]) + c * a
    return g if v >= 0.0 else -g


@njit(cache=True, fastmath=FASTMATH)
def stribeck_magnitude(prm, fn, v):
    """Stribeck + Coulomb + viscous friction magnitude (2.18) at speed |v| [N].

    F = F_C + (F_brk - F_C) exp(const |v|) + F_V with F_C = mu F_n, F_brk = const_brk F_C,
    F_V = const_damping |v| (const < 0 gives the Stribeck decay).
    """
    a = abs(v)
    fc = prm[S_MU] * fn
    return fc + (prm[S_BRK] * fc - fc) * math.exp(prm[S_DECAY] * a) + prm[S_VISC] * a


@njit(cache=True, fastmath=FASTMATH)
def anchor_raw_force(prm, vt, anchor, out):
    """Unsaturated anchor-spring force (2.21) ``F_raw = -(g(|v|)/|v| v / n + K_I s)`` [N] into
    ``out`` (3,), for the tangential slip ``vt`` (3,) [m/s] and anchor displacement ``anchor`` (3,)
    [m] (g the (2.19) curve, n the scale-down factor); returns ``|F_raw|``."""
    speed = math.sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2])
    if speed > 0.0:
        cv = threshold_curve(prm, speed) / speed / prm[S_NSCALE]
    else:
        cv = prm[S_BRK] * prm[S_VISC] / prm[S_NSCALE]
    ki = prm[S_KI]
    for i in range(3):
        out[i] = -(cv * vt[i] + ki * anchor[i])
    return math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2])


@njit(cache=True, fastmath=FASTMATH)
def friction_force(fcode, prm, fn, vt, anchor, out):
    """Tangential friction force on the second body [N], written into ``out`` (3,).

    Parameters
    ----------
    fcode : int
        Friction law code (``F_*``).
    prm : float64[NPRM]
        Law parameters.
    fn : float
        Normal force magnitude [N].
    vt : float64[3]
        Tangential slip velocity of body 2 relative to body 1 at the contact [m/s].
    anchor : float64[3]
        Anchor displacement s (current point minus anchor, tangent plane) [m], used by
        ``F_ANCHOR`` only (Konyev Fig. 2.6). Not modified here; see :func:`anchor_update`.
    out : float64[3]
        Output force.

    Returns
    -------
    bool
        True when the force is saturated at mu F_n (sliding).
    """
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    if fn <= 0.0 or fcode == F_NONE:
        return False
    speed = math.sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2])
    mu_fn = prm[S_MU] * fn
    if fcode == F_ANCHOR:
        mag = anchor_raw_force(prm, vt, anchor, out)
        if mag > mu_fn:
            s = mu_fn / mag
            for i in range(3):
                out[i] *= s
            return True
        return False
    if speed == 0.0:
        return False
    veps = prm[S_VEPS]
    if fcode == F_COULOMB:
        mag = mu_fn * speed / math.sqrt(speed * speed + veps * veps)
    elif fcode == F_STRIBECK:
        mag = stribeck_magnitude(prm, fn, speed)
        if veps > 0.0:
            mag *= speed / math.sqrt(speed * speed + veps * veps)
    elif fcode == F_THRESHOLD:
        mag = threshold_curve(prm, speed)
        if mu_fn > 0.0 and mag > mu_fn:
            mag = mu_fn
    else:
        mag = 0.0
    for i in range(3):
        out[i] = -mag * vt[i] / speed
    return False


@njit(cache=True, fastmath=FASTMATH)
def anchor_update(prm, fn, vt, normal, dt, anchor, force):
    """Advance the anchor displacement of (2.21) over one step and slide it when saturated.

    s <- s + v_t dt, projected on the tangent plane (integral action). The force is then
    evaluated; when |F| reaches mu F_n the anchor slides so that the spring alone carries the
    saturated force, K_I s = -F (digest §1.7: the seed leaves this open; we slide).

    Parameters
    ----------
    prm : float64[NPRM]
    fn : float
        Normal force [N].
    vt, normal : float64[3]
        Tangential slip velocity [m/s] and unit contact normal.
    dt : float
        Step [s].
    anchor : float64[3]
        Updated in place [m].
    force : float64[3]
        Receives the friction force [N].

    Returns
    -------
    bool
        True when saturated.
    """
    for i in range(3):
        anchor[i] += vt[i] * dt
    sn = anchor[0] * normal[0] + anchor[1] * normal[1] + anchor[2] * normal[2]
    for i in range(3):
        anchor[i] -= sn * normal[i]
    sat = friction_force(np.int64(F_ANCHOR), prm, fn, vt, anchor, force)  # a literal would compile it twice
    if sat:
        ki = prm[S_KI]
        for i in range(3):
            anchor[i] = -force[i] / ki
    return sat


def new_params():
    """A zeroed parameter row (float64[NPRM])."""
    return np.zeros(NPRM)


@njit(cache=True, fastmath=FASTMATH)
def anchor_rate(prm, fn, vt, s, out):
    """Rate of the anchor displacement ``s`` (3,) [m] of the anchor-spring friction (2.21) [m/s].

    Continuous-time form of the per-step law of :func:`anchor_update`, which adds
    ``v_t h`` and, when the force ``F_raw = -(c_v v_t + K_I s)`` exceeds mu F_n, slides the anchor
    at once so that the spring alone carries the saturated force. Here the anchor holds
    (``ds/dt = v_t``: no creep under any load below the limit) until ``|F_raw|`` exceeds mu F_n,
    and then slides at the rate of the overstress (viscoplastic, Perzyna)::

        ds/dt = v_t - (|F_raw| - mu F_n)^+ / (c |F_raw|) (c_v v_t + K_I s),
        c = c_v(0) = const_brk const_damping / n    [N s/m]

    while ``_laws.friction_force`` clamps the force at mu F_n. In steady sliding at speed v this
    settles where ``|F_raw| = mu F_n + c v``, i.e. (with c_v = c) where ``K_I |s| = mu F_n``: the
    spring alone carries the saturated force, as in the per-step law. The right-hand side is
    continuous, so an adaptive integrator needs no stick/slip events and does not chatter when
    F_n dips while the point moves toward its anchor.
    """
    mag = anchor_raw_force(prm, vt, s, out)
    over = mag - prm[S_MU] * (fn if fn > 0.0 else 0.0)
    rate = 0.0
    if over > 0.0:
        rate = over / (prm[S_BRK] * prm[S_VISC] / prm[S_NSCALE]) / mag
    for i in range(3):
        out[i] = vt[i] + rate * out[i]
