"""Compiled cylinder-friction kernels (Daepp §4.2.2; Canudas de Wit et al. 1995 for LuGre).

Convention: the returned friction force F_f [N] has the sign of the velocity (it is
*subtracted* from the driving force, Daepp (4.1.11)); at rest it balances the applied force
``f_app`` [N] up to the breakaway level. Scalar functions; private.
"""

from __future__ import annotations

import math

from numba import njit

from . import _layout as L

COULOMB = 0
VISCOUS = 1
STICTION = 2        # Coulomb + viscous + stiction with a stick/slip state (Shu & Bone)
STEEP_LINEAR = 3    # saturated steep linear law (Karnopp-like)
STRIBECK_TANH = 4
LUGRE = 5


@njit(cache=True)
def coulomb_level(p, v):
    """Coulomb level for the direction of motion: F_C+ for v > 0, F_C− for v < 0 [N]."""
    return p[L.F_C_POS] if v >= 0.0 else p[L.F_C_NEG]


@njit(cache=True)
def stribeck_tanh(p, v):
    """[F_C + (F_S − F_C) exp(−(|v|/v_S)^i)] tanh(k_tanh v) + C_v v, Daepp (4.2.6) [N]."""
    fc = coulomb_level(p, v)
    g = fc + (p[L.F_S] - fc) * math.exp(-((abs(v) / p[L.V_S]) ** p[L.I_EXP]))
    return g * math.tanh(p[L.K_TANH] * v) + p[L.C_V] * v


@njit(cache=True)
def lugre_g(p, v):
    """LuGre steady-state level g(v) = F_C + (F_S − F_C) exp(−(v/v_S)²) [N]."""
    fc = coulomb_level(p, v)
    return fc + (p[L.F_S] - fc) * math.exp(-(v / p[L.V_S]) ** 2)


@njit(cache=True)
def lugre_zdot(p, v, z):
    """Bristle deflection rate ż = v − σ0 |v| z / g(v) [m/s] (LuGre)."""
    return v - p[L.SIGMA0] * abs(v) * z / lugre_g(p, v)


@njit(cache=True)
def friction_force(p, v, f_app, stuck, z):
    """Friction force [N] of the model coded in ``p[FRICTION_MODEL]``.

    Parameters
    ----------
    p : parameter row (see ``_layout``); v : piston velocity [m/s]; f_app : the other forces on
    the piston [N] (used at rest); stuck : 1 when a stick-slip model is in its stick state;
    z : LuGre bristle state [m].
    """
    model = int(p[L.FRICTION_MODEL])
    if model == STRIBECK_TANH:
        return stribeck_tanh(p, v)
    if model == VISCOUS:
        return p[L.C_V] * v
    if model == STEEP_LINEAR:
        fc = coulomb_level(p, v)
        return fc * min(1.0, max(-1.0, v / p[L.V_SAT])) + p[L.C_V] * v
    if model == LUGRE:
        zd = lugre_zdot(p, v, z)
        return p[L.SIGMA0] * z + p[L.SIGMA1] * zd + p[L.C_V] * v
    if model == STICTION:
        if stuck != 0:
            return min(p[L.F_S], max(-p[L.F_S], f_app))
        if v == 0.0:
            return min(coulomb_level(p, f_app), max(-coulomb_level(p, f_app), f_app))
        return math.copysign(coulomb_level(p, v), v) + p[L.C_V] * v
    # COULOMB (Daepp (4.2.1)): F_C sign(v); at rest it balances f_app up to F_C
    if v == 0.0:
        return min(coulomb_level(p, f_app), max(-coulomb_level(p, f_app), f_app))
    return math.copysign(coulomb_level(p, v), v)


@njit(cache=True)
def breaks_away(p, f_app):
    """Stick -> slip test of the stiction model: |f_app| > F_S (Daepp (4.2.4))."""
    return abs(f_app) > p[L.F_S]
