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
    The cap port opens to supply for u above the offset, the rod port below it. One half of
    :func:`valve_ports`.
    """
    a1c, p1c, a2c, p2c, a1r, p1r, a2r, p2r = valve_ports(p, u)
    if port == 0:
        return a1c, p1c, a2c, p2c
    return a1r, p1r, a2r, p2r


@njit(cache=True)
def valve_ports(p, u):
    """Flow paths of both ports at valve voltage ``u`` [V] (cap = Daepp port 2, then rod).

    Returns (a1c, p1c, a2c, p2c, a1r, p1r, a2r, p2r): per port, effective areas [m²] and node
    pressures [Pa] of its supply and exhaust paths (a2 = 0 when unused). The cap port opens to
    supply for u above the offset, the rod port below it. One pass shares the clamping, the
    voltage references and the model dispatch between the ports, and evaluates one tanh when the
    rod cutoffs mirror the cap's (same centre and width, the MPYE-5 default), since the two input
    pressures then differ only in the sign of C_scale (Daepp (4.2.7)–(4.2.11)).
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
        hc = p[L.C_HP_CAP]
        lc = p[L.C_LP_CAP]
        hr = p[L.C_HP_ROD]
        lr = p[L.C_LP_ROD]
        xo_c = 0.5 * (hc + lc)
        xo_r = 0.5 * (hr + lr)
        k_c = 2.0 * math.pi / abs(lc - hc)
        k_r = 2.0 * math.pi / abs(lr - hr)
        th_c = math.tanh(k_c * (v_tanh - xo_c))
        th_r = th_c if (xo_r == xo_c and k_r == k_c) else math.tanh(k_r * (v_tanh - xo_r))
        mid = 0.5 * (ps + pe)
        half = 0.5 * (ps - pe)
        p0c = mid + math.copysign(half, hc - lc) * th_c
        p0r = mid + math.copysign(half, hr - lr) * th_r
        if v_area > 0.0:
            a_c = polyval5(p, L.POLY_CAP_POS, v_area)
            a_r = polyval5(p, L.POLY_ROD_POS, v_area)
        else:
            a_c = polyval5(p, L.POLY_CAP_NEG, v_area)
            a_r = polyval5(p, L.POLY_ROD_NEG, v_area)
        return max(a_c, 0.0), p0c, 0.0, pe, max(a_r, 0.0), p0r, 0.0, pe
    slope_c = p[L.SLOPE_CAP]
    leak_c = p[L.LEAK_CAP]
    slope_r = p[L.SLOPE_ROD]
    leak_r = p[L.LEAK_ROD]
    if model == LINEAR_UNDERLAPPED:
        lap = p[L.UNDERLAP]
        return (leak_c + slope_c * max(0.0, v_adj + lap), ps, leak_c + slope_c * max(0.0, lap - v_adj), pe,
                leak_r + slope_r * max(0.0, -v_adj + lap), ps, leak_r + slope_r * max(0.0, lap + v_adj), pe)
    # overlapped: the cap port opens to supply for v_adj > 0, the rod port for v_adj < 0
    a_c = leak_c + slope_c * abs(v_adj)
    a_r = leak_r + slope_r * abs(v_adj)
    if v_adj > 0.0:
        return a_c, ps, 0.0, pe, 0.0, ps, a_r, pe
    if v_adj < 0.0:
        return 0.0, ps, a_c, pe, a_r, ps, 0.0, pe
    return 0.0, ps, a_c, pe, 0.0, ps, a_r, pe
