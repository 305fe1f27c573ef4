"""Compiled proportional-valve kernels (Festo MPYE-5; Daepp §4.2.3). Private, SI, no checks.

A valve port is described by at most two flow paths, each an effective area and the pressure
of the node it connects the chamber to: ``(a_1, p_1, a_2, p_2)``. Path 1 is the supply side
(or the single equivalent path of the fitted model), path 2 the exhaust side.
"""

from __future__ import annotations

import math

from numba import njit

from . import _layout as L

LINEAR_OVERLAPPED = 0
LINEAR_UNDERLAPPED = 1
FITTED = 2

REF_CONSISTENT = 0
REF_CENTERED = 1
REF_ADJUSTED = 2


@njit(cache=True)
def polyval5(p, off, v):
    """p[off]·v⁴ + p[off+1]·v³ + … + p[off+4] (Horner)."""
    return (((p[off] * v + p[off + 1]) * v + p[off + 2]) * v + p[off + 3]) * v + p[off + 4]


@njit(cache=True)
def tanh_input_pressure(vc, c_hp, c_lp, p_s, p_e):
    """Equivalent input pressure P_input(Vc) [Pa], Daepp (4.2.7)–(4.2.11).

    y_off = (P_S + P_E)/2, x_off = (C_HP + C_LP)/2, C_scale = sign(C_HP − C_LP)(P_S − P_E)/2,
    K = 2π/|C_LP − C_HP|. (The source evaluates it in psi; the map is linear in the pressures,
    so evaluating it in Pa gives the same pressure.)
    """
    x_off = 0.5 * (c_hp + c_lp)
    scale = math.copysign(0.5 * (p_s - p_e), c_hp - c_lp)
    kp = 2.0 * math.pi / abs(c_lp - c_hp)
    return 0.5 * (p_s + p_e) + scale * math.tanh(kp * (vc - x_off))


@njit(cache=True)
def fitted_area(p, poly_pos, poly_neg, va):
    """Quartic equivalent area A_eq(Va) [m²] on each side of Va = 0 (Daepp App. B.2), ≥ 0."""
    if va > 0.0:
        a = polyval5(p, poly_pos, va)
    else:
        a = polyval5(p, poly_neg, va)
    return max(a, 0.0)


@njit(cache=True)
def port_paths(p, u, port):
    """Flow paths of one port at valve voltage ``u`` [V]; ``port`` 0 = cap (Daepp port 2), 1 = rod.

    Returns (a1, p1, a2, p2): effective areas [m²] and node pressures [Pa] (a2 = 0 when unused).
    The cap port opens to supply for u above the offset, the rod port below it.
    """
    u = min(max(u, p[L.U_MIN]), p[L.U_MAX])
    model = int(p[L.VALVE_MODEL])
    ps = p[L.P_SUPPLY]
    pe = p[L.P_EXHAUST]
    v_adj = u - p[L.U_OFFSET]
    if model == FITTED:
        ref = int(p[L.VOLT_REF])
        v_cen = u - p[L.U_CENTER]
        v_tanh = v_adj if ref == REF_ADJUSTED else v_cen
        v_area = v_cen if ref == REF_CENTERED else v_adj
        if port == 0:
            p0 = tanh_input_pressure(v_tanh, p[L.C_HP_CAP], p[L.C_LP_CAP], ps, pe)
            a = fitted_area(p, L.POLY_CAP_POS, L.POLY_CAP_NEG, v_area)
        else:
            p0 = tanh_input_pressure(v_tanh, p[L.C_HP_ROD], p[L.C_LP_ROD], ps, pe)
            a = fitted_area(p, L.POLY_ROD_POS, L.POLY_ROD_NEG, v_area)
        return a, p0, 0.0, pe
    if port == 0:
        s = v_adj
        slope = p[L.SLOPE_CAP]
        leak = p[L.LEAK_CAP]
    else:
        s = -v_adj
        slope = p[L.SLOPE_ROD]
        leak = p[L.LEAK_ROD]
    if model == LINEAR_UNDERLAPPED:
        lap = p[L.UNDERLAP]
        a_sup = leak + slope * max(0.0, s + lap)
        a_exh = leak + slope * max(0.0, lap - s)
        return a_sup, ps, a_exh, pe
    # overlapped: the port connects exclusively to supply (s > 0) or exhaust (s <= 0)
    a = leak + slope * abs(s)
    if s > 0.0:
        return a, ps, 0.0, pe
    return 0.0, ps, a, pe
