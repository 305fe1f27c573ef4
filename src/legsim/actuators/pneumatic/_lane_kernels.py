"""Lane-parallel cylinder rates: N valve-driven cylinders evaluated SIMD-wide (private).

The physics is that of :func:`._chamber_kernels.cylinder_rates` (Daepp (2011) (4.1.1),
(4.1.5)–(4.1.7), (4.1.10), §4.2.3), rewritten so that LLVM vectorises the loop over actuators:

- data are blocks of :data:`LANE_WIDTH` actuators, struct-of-arrays inside a block: field k of
  lane l of block b is ``buf[(b·NF + k)·W + l]`` in a flat array (NF fields, W = LANE_WIDTH).
  Per-actuator parameters form the *lane block* ``lanes`` (NLANE fields), derived once by
  :func:`pack_lanes` (tanh centres and slopes, voltage offsets of the chosen reference, 1/k,
  1/√T_s, …); inputs ``lin`` (NIN fields) and outputs ``lout`` (NOUT fields) likewise. With
  compile-time distances between fields, LLVM sees three streams (two read, one written) and
  needs two overlap checks per call; with a row per field (runtime row stride) every row is a
  stream and the loop is not vectorised;
- every branch of the scalar kernel is a select, and the flow's power law and the valve's tanh
  use :mod:`._lane_math` (no libm call);
- the loops are compiled with ``error_model="numpy"`` (no ZeroDivisionError check per division).

Actuators are sorted by valve family when packed: blocks of fitted valves first (one path per
port), then blocks of linear valves (supply and exhaust paths per port, overlapped or underlapped
per lane), so each loop is uniform. ``order[j]`` is the actuator held by lane j (j = b·W + l),
−1 for a padding lane, which repeats a real actuator's parameters and inputs and is computed but
never scattered back.

Orifice law (the lane form of :func:`._flow_kernels.signed_orifice_flow`): with r = P_d/P_u,
ψ(r) = C2 for r ≤ r_cr, C1 r^(1/k) √(1 − r^((k−1)/k)) for r_cr < r ≤ r_lam, ψ(r_lam)(1 − r)/(1 − r_lam)
above r_lam. One power per orifice serves both regions: it is evaluated at r clamped to
[r_cr, r_top], r_top = r_lam (or 1 without the linear region).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import _layout as L
from ._chamber_kernels import ISOTHERMAL, POLYTROPIC
from ._lane_math import pow_unit, sqrt_lane, tanh_lane
from ._valve_kernels import FITTED, LINEAR_OVERLAPPED, REF_ADJUSTED, REF_CENTERED

# ---- lane block rows (derived parameters, one column per lane)
R_GAS = 0
N_EXP = 1            # heat exponent n of Ṗ = n (R Σ T ṁ − P V̇)/V
ISO = 2              # 1.0 isothermal, else 0.0
T_S = 3
ISQ_TS = 4           # 1/√T_s
INV_K = 5
C1 = 6
C2 = 7
R_CR = 8
R_TOP = 9            # upper clamp of the power's argument: r_lam, or 1 without a linear region
R_LAM = 10           # r_lam, or 2 (never reached) without a linear region
INV_1M_RLAM = 11     # 1/(1 − r_lam)
A_CAP = 12
A_ROD = 13
L_CAP = 14           # dead length of the cap side [m]
L_ROD = 15           # stroke + dead length of the rod side [m]
U_MIN = 16
U_MAX = 17
P_S = 18
P_E = 19
OFF_TANH = 20        # fitted: the tanh reads u − OFF_TANH, the quartics u − OFF_AREA [V]
OFF_AREA = 21
K_CAP = 22           # fitted: 2π/|C_LP − C_HP| and centre (C_HP + C_LP)/2, per port
X_CAP = 23
K_ROD = 24
X_ROD = 25
S_CAP = 26           # fitted: sign(C_HP − C_LP)(P_S − P_E)/2, per port
S_ROD = 27
P_MID = 28           # (P_S + P_E)/2
POLY = 29            # fitted: 4 quartics × 5 coefficients (cap +, cap −, rod +, rod −)
OFF_LIN = 49         # linear: u − U_OFFSET
SLOPE_CAP = 50
LEAK_CAP = 51
SLOPE_ROD = 52
LEAK_ROD = 53
LAP = 54             # underlap [V]
OVERLAPPED = 55      # 1.0 overlapped, 0.0 underlapped
NLANE = 56

# ---- inputs and outputs (rows of lin / lout)
IN_U, IN_X, IN_XDOT, IN_PCAP, IN_PROD, IN_MCAP, IN_MROD = range(7)
NIN = 7
NOUT = 5             # Ṗ_cap, Ṗ_rod, ṁ_cap, ṁ_rod, ṁ_supply

LANE_WIDTH = 16
"""Lanes per block: the compile-time distance between a block's fields. Every lane of a block
is computed (padding lanes repeat an actuator)."""
VECTOR = 8
"""A block computes its lanes in multiples of this: the widest vector LLVM picks for the lane
loops, eight doubles (one AVX-512 register) on AMD Zen 4 (``znver4``), four (AVX2) on Intel's
AVX-512 hosts, which prefer 256-bit vectors, and on AVX2 hosts. Lanes beyond a multiple of LLVM's
width run in the loop's scalar remainder, ~100 ns each: with 4 here, 12 actuators on Zen 4 cost
574 ns (8 vector lanes, 4 scalar) against 322 ns for 16 vector lanes. The lane loop's trip count is
a run-time value: a constant one gets fully unrolled before the loop vectoriser runs, and the
unrolled body does not vectorise."""


def _kernel(**options):
    """``njit(cache=True)`` without numba's reference counting, for the kernels that create no
    array: it saves the atomic increment/decrement pair per array argument on every call
    (as ``hybrid.signatures`` does for hooks); N = 12 went from ~400 to ~360 ns."""
    # _nrt is a numba target option its type stubs do not list
    return njit(cache=True, _nrt=False, **options)  # type: ignore[call-overload]


def n_blocks(n: int) -> int:
    """Blocks needed for n actuators of one valve family."""
    return -(-n // LANE_WIDTH)


@njit(cache=True, inline="always", error_model="numpy")
def _at(buf, pos, k):
    """Field k of the lane at ``pos`` = b·NF·W + l of a flat lane buffer. The index is
    unsigned: a signed one gets numba's negative-index wrap, which hides from LLVM that
    neighbouring lanes are neighbouring addresses."""
    return buf[np.uint64(pos + k * LANE_WIDTH)]


@njit(cache=True, inline="always", error_model="numpy")
def _put(buf, pos, k, value):
    """Store field k of the lane at ``pos`` (unsigned index, as :func:`_at`)."""
    buf[np.uint64(pos + k * LANE_WIDTH)] = value


@njit(cache=True)
def pack_lanes(rows, order, lanes):
    """Fill the flat lane block (n_blocks·NLANE·W,) from parameter rows (N, NPARAM) (``_layout``).

    ``order`` (n_blocks·W,) gives the actuator of each lane, −1 for padding (the sort by family
    is the caller's: :func:`lane_order`); a padding lane copies the previous lane's actuator.
    Derived quantities follow :func:`._valve_kernels.valve_ports`,
    :func:`._chamber_kernels.heat_exponent` and :func:`._flow_kernels.orifice_psi`.
    """
    W = LANE_WIDTH
    v = np.empty(NLANE)            # one lane's fields, then spread at stride W
    i = 0
    for j in range(order.size):
        i = order[j] if order[j] >= 0 else i
        p = rows[i]
        pos = (j // W) * NLANE * W + j % W
        heat = int(p[L.HEAT_MODEL])
        fitted = int(p[L.VALVE_MODEL]) == FITTED
        ref = int(p[L.VOLT_REF])
        ps = p[L.P_SUPPLY]
        pe = p[L.P_EXHAUST]
        r_lam = p[L.LAM_RATIO]
        hc, lc, hr, lr = p[L.C_HP_CAP], p[L.C_LP_CAP], p[L.C_HP_ROD], p[L.C_LP_ROD]
        v[R_GAS] = p[L.GAS_R]
        v[N_EXP] = 1.0 if heat == ISOTHERMAL else (p[L.N_POLY] if heat == POLYTROPIC
                                                  else p[L.GAS_K])
        v[ISO] = 1.0 if heat == ISOTHERMAL else 0.0
        v[T_S] = p[L.T_SUPPLY]
        v[ISQ_TS] = 1.0 / math.sqrt(p[L.T_SUPPLY])
        v[INV_K] = 1.0 / p[L.GAS_K]
        v[C1] = p[L.C1]
        v[C2] = p[L.C2]
        v[R_CR] = p[L.CRIT_RATIO]
        v[R_TOP] = r_lam if r_lam > 0.0 else 1.0
        v[R_LAM] = r_lam if r_lam > 0.0 else 2.0
        v[INV_1M_RLAM] = 1.0 / (1.0 - r_lam) if r_lam > 0.0 else 0.0
        v[A_CAP] = p[L.A_CAP]
        v[A_ROD] = p[L.A_ROD]
        v[L_CAP] = p[L.L_DEAD_CAP]
        v[L_ROD] = p[L.STROKE] + p[L.L_DEAD_ROD]
        v[U_MIN] = p[L.U_MIN]
        v[U_MAX] = p[L.U_MAX]
        v[P_S] = ps
        v[P_E] = pe
        v[OFF_TANH] = p[L.U_OFFSET] if ref == REF_ADJUSTED else p[L.U_CENTER]
        v[OFF_AREA] = p[L.U_CENTER] if ref == REF_CENTERED else p[L.U_OFFSET]
        v[K_CAP] = 2.0 * math.pi / abs(lc - hc) if fitted else 0.0
        v[X_CAP] = 0.5 * (hc + lc)
        v[K_ROD] = 2.0 * math.pi / abs(lr - hr) if fitted else 0.0
        v[X_ROD] = 0.5 * (hr + lr)
        v[S_CAP] = math.copysign(0.5 * (ps - pe), hc - lc)
        v[S_ROD] = math.copysign(0.5 * (ps - pe), hr - lr)
        v[P_MID] = 0.5 * (ps + pe)
        v[POLY:POLY + 20] = p[L.POLY_CAP_POS:L.POLY_CAP_POS + 20]
        v[OFF_LIN] = p[L.U_OFFSET]
        v[SLOPE_CAP] = p[L.SLOPE_CAP]
        v[LEAK_CAP] = p[L.LEAK_CAP]
        v[SLOPE_ROD] = p[L.SLOPE_ROD]
        v[LEAK_ROD] = p[L.LEAK_ROD]
        v[LAP] = p[L.UNDERLAP]
        v[OVERLAPPED] = 1.0 if int(p[L.VALVE_MODEL]) == LINEAR_OVERLAPPED else 0.0
        for k in range(NLANE):
            lanes[pos + k * W] = v[k]


@njit(cache=True, inline="always", error_model="numpy")
def _orifice_law(lanes, lp):
    """The lane's orifice constants (r_cr, r_top, 1/k, C1, C2, r_lam, 1/(1 − r_lam)), read
    once per lane: a load under a select would stop vectorisation."""
    return (_at(lanes, lp, R_CR), _at(lanes, lp, R_TOP), _at(lanes, lp, INV_K),
            _at(lanes, lp, C1), _at(lanes, lp, C2), _at(lanes, lp, R_LAM),
            _at(lanes, lp, INV_1M_RLAM))


@njit(cache=True, inline="always", error_model="numpy")
def _lane_flow(law, area, p_n, t_n, isq_n, p_c, t_c, isq_c):
    """Signed mass flow [kg/s] from a node (P, T, 1/√T) into a chamber through c_d·A = ``area``
    and its enthalpy term T_upstream·ṁ [K kg/s] (the lane form of ``signed_orifice_flow``).
    ``law`` from :func:`_orifice_law`."""
    r_cr, r_top, inv_k, c1, c2, r_lam, inv_1m_rlam = law
    fwd = p_n > p_c
    up = p_n if fwd else p_c
    dn = p_c if fwd else p_n
    r = dn / max(up, 1e-300)
    rr = min(max(r, r_cr), r_top)
    a = pow_unit(rr, inv_k)
    shape = c1 * a * sqrt_lane(max(0.0, 1.0 - rr / a))
    shape = shape * (1.0 - r) * inv_1m_rlam if r > r_lam else shape
    psi = c2 if r <= r_cr else shape
    m = area * up * (isq_n if fwd else isq_c) * psi
    m = m if fwd else -m
    return m, (t_n if fwd else t_c) * m


@njit(cache=True, inline="always", error_model="numpy")
def _lane_chambers(lanes, lp, lin, ip):
    """Volumes [m³], volume rates [m³/s], temperatures [K] and 1/√T of both chambers of a lane
    (Daepp §2.2 geometry, (4.1.7) ideal gas; T_s when isothermal or empty)."""
    x = _at(lin, ip, IN_X)
    xd = _at(lin, ip, IN_XDOT)
    a_cap = _at(lanes, lp, A_CAP)
    a_rod = _at(lanes, lp, A_ROD)
    v_cap = a_cap * (x + _at(lanes, lp, L_CAP))
    v_rod = a_rod * (_at(lanes, lp, L_ROD) - x)
    r_gas = _at(lanes, lp, R_GAS)
    ts = _at(lanes, lp, T_S)
    use_ts = _at(lanes, lp, ISO) > 0.5
    m_cap = _at(lin, ip, IN_MCAP)
    m_rod = _at(lin, ip, IN_MROD)
    t_cap = _at(lin, ip, IN_PCAP) * v_cap / (m_cap * r_gas)
    t_rod = _at(lin, ip, IN_PROD) * v_rod / (m_rod * r_gas)
    t_cap = ts if (use_ts or m_cap <= 0.0) else t_cap
    t_rod = ts if (use_ts or m_rod <= 0.0) else t_rod
    return (v_cap, a_cap * xd, t_cap, 1.0 / sqrt_lane(t_cap),
            v_rod, -a_rod * xd, t_rod, 1.0 / sqrt_lane(t_rod))


@njit(cache=True, inline="always", error_model="numpy")
def _lane_store(lanes, lp, lin, ip, lout, op, chambers, mc, hc, mr, hr, supply):
    """Energy balance (4.1.10) per chamber into the lane's outputs; isothermal: Σ T ṁ = T_s Σ ṁ."""
    v_cap, vd_cap, _, _, v_rod, vd_rod, _, _ = chambers
    iso = _at(lanes, lp, ISO) > 0.5
    ts = _at(lanes, lp, T_S)
    hc = ts * mc if iso else hc
    hr = ts * mr if iso else hr
    n = _at(lanes, lp, N_EXP)
    r_gas = _at(lanes, lp, R_GAS)
    _put(lout, op, 0, n * (r_gas * hc - _at(lin, ip, IN_PCAP) * vd_cap) / v_cap)
    _put(lout, op, 1, n * (r_gas * hr - _at(lin, ip, IN_PROD) * vd_rod) / v_rod)
    _put(lout, op, 2, mc)
    _put(lout, op, 3, mr)
    _put(lout, op, 4, supply)


@njit(cache=True, inline="always", error_model="numpy")
def _quartic(lanes, lp, off, v):
    """Quartic A_eq(v) [m²] of the 5 coefficients at fields off … off+4 (highest power first)."""
    return ((((_at(lanes, lp, off) * v + _at(lanes, lp, off + 1)) * v + _at(lanes, lp, off + 2))
             * v + _at(lanes, lp, off + 3)) * v + _at(lanes, lp, off + 4))


@njit(cache=True, inline="always", error_model="numpy")
def _fitted_area(lanes, lp, off, v):
    """A_eq ≥ 0 of one port: the quartic at ``off`` for v > 0, at ``off + 5`` otherwise (both
    are evaluated; selecting the fields instead would put loads under a select)."""
    a_pos = _quartic(lanes, lp, off, v)
    a_neg = _quartic(lanes, lp, off + 5, v)
    return max(a_pos if v > 0.0 else a_neg, 0.0)


@_kernel(error_model="numpy")
def fitted_rates(lanes, lin, lout, block_lanes, b0, b1):
    """Blocks b0 ≤ b < b1 with the fitted MPYE-5 model (tanh input pressure + quartic A_eq per
    port, Daepp (4.2.7)–(4.2.11), App. B.2): one equivalent path per port. Block b computes
    its first ``block_lanes[b]`` lanes (a run-time trip count, see :data:`VECTOR`).

    The lane body is written in the loop: moved into an inlined function it no longer
    vectorised (numba 0.68).
    """
    W = LANE_WIDTH
    for b in range(b0, b1):
        for la in range(int(block_lanes[b])):
            lp = b * NLANE * W + la
            ip = b * NIN * W + la
            op = b * NOUT * W + la
            ch = _lane_chambers(lanes, lp, lin, ip)
            u = min(max(_at(lin, ip, IN_U), _at(lanes, lp, U_MIN)), _at(lanes, lp, U_MAX))
            vt = u - _at(lanes, lp, OFF_TANH)
            va = u - _at(lanes, lp, OFF_AREA)
            mid = _at(lanes, lp, P_MID)
            p0c = mid + _at(lanes, lp, S_CAP) * tanh_lane(
                _at(lanes, lp, K_CAP) * (vt - _at(lanes, lp, X_CAP)))
            p0r = mid + _at(lanes, lp, S_ROD) * tanh_lane(
                _at(lanes, lp, K_ROD) * (vt - _at(lanes, lp, X_ROD)))
            a_c = _fitted_area(lanes, lp, POLY, va)
            a_r = _fitted_area(lanes, lp, POLY + 10, va)
            law = _orifice_law(lanes, lp)
            ts = _at(lanes, lp, T_S)
            isq_s = _at(lanes, lp, ISQ_TS)
            mc, hc = _lane_flow(law, a_c, p0c, ts, isq_s, _at(lin, ip, IN_PCAP), ch[2], ch[3])
            mr, hr = _lane_flow(law, a_r, p0r, ts, isq_s, _at(lin, ip, IN_PROD), ch[6], ch[7])
            _lane_store(lanes, lp, lin, ip, lout, op, ch, mc, hc, mr, hr,
                        max(mc, 0.0) + max(mr, 0.0))


@_kernel(error_model="numpy")
def linear_rates(lanes, lin, lout, block_lanes, b0, b1):
    """Blocks b0 ≤ b < b1 with a linear-area valve, overlapped or underlapped per lane (Daepp
    §4.2.3 methods 1–3): a supply and an exhaust path per port. Lane counts as
    :func:`fitted_rates`."""
    W = LANE_WIDTH
    for b in range(b0, b1):
        for la in range(int(block_lanes[b])):
            lp = b * NLANE * W + la
            ip = b * NIN * W + la
            op = b * NOUT * W + la
            ch = _lane_chambers(lanes, lp, lin, ip)
            u = min(max(_at(lin, ip, IN_U), _at(lanes, lp, U_MIN)), _at(lanes, lp, U_MAX))
            v = u - _at(lanes, lp, OFF_LIN)
            sl_c = _at(lanes, lp, SLOPE_CAP)
            lk_c = _at(lanes, lp, LEAK_CAP)
            sl_r = _at(lanes, lp, SLOPE_ROD)
            lk_r = _at(lanes, lp, LEAK_ROD)
            lap = _at(lanes, lp, LAP)
            # overlapped: each port is on supply or on exhaust (the cap port on supply for v > 0)
            o_c = lk_c + sl_c * abs(v)
            o_r = lk_r + sl_r * abs(v)
            over = _at(lanes, lp, OVERLAPPED) > 0.5
            cs = (o_c if v > 0.0 else 0.0) if over else lk_c + sl_c * max(0.0, v + lap)
            ce = (0.0 if v > 0.0 else o_c) if over else lk_c + sl_c * max(0.0, lap - v)
            rs = (o_r if v < 0.0 else 0.0) if over else lk_r + sl_r * max(0.0, lap - v)
            re = (0.0 if v < 0.0 else o_r) if over else lk_r + sl_r * max(0.0, lap + v)
            ps = _at(lanes, lp, P_S)
            pe = _at(lanes, lp, P_E)
            ts = _at(lanes, lp, T_S)
            isq_s = _at(lanes, lp, ISQ_TS)
            p_cap = _at(lin, ip, IN_PCAP)
            p_rod = _at(lin, ip, IN_PROD)
            law = _orifice_law(lanes, lp)
            m1c, h1c = _lane_flow(law, cs, ps, ts, isq_s, p_cap, ch[2], ch[3])
            m2c, h2c = _lane_flow(law, ce, pe, ts, isq_s, p_cap, ch[2], ch[3])
            m1r, h1r = _lane_flow(law, rs, ps, ts, isq_s, p_rod, ch[6], ch[7])
            m2r, h2r = _lane_flow(law, re, pe, ts, isq_s, p_rod, ch[6], ch[7])
            _lane_store(lanes, lp, lin, ip, lout, op, ch, m1c + m2c, h1c + h2c, m1r + m2r,
                        h1r + h2r, max(m1c, 0.0) + max(m1r, 0.0))


@njit(cache=True, inline="always")
def lane_rates(lanes, block_lanes, n_fitted_blocks, lin, lout):
    """Rates of every block: fitted valves in blocks [0, n_fitted_blocks), linear valves after.
    A family without blocks is not called. Inlined (numba IR): a layer of calls between these
    kernels costs 20–60 ns (measured), the loop work of one to three actuators."""
    nfb = int(n_fitted_blocks)
    if nfb > 0:
        fitted_rates(lanes, lin, lout, block_lanes, 0, nfb)
    if block_lanes.size > nfb:
        linear_rates(lanes, lin, lout, block_lanes, nfb, block_lanes.size)


@njit(cache=True, inline="always")
def set_lane_inputs(lin, j, u, x, xdot, p_cap, p_rod, m_cap, m_rod):
    """Inputs of lane j (= b·W + l): valve voltage [V], piston position [m] and velocity [m/s],
    chamber pressures [Pa] and masses [kg]."""
    W = LANE_WIDTH
    ip = (j // W) * NIN * W + j % W
    lin[ip] = u
    lin[ip + IN_X * W] = x
    lin[ip + IN_XDOT * W] = xdot
    lin[ip + IN_PCAP * W] = p_cap
    lin[ip + IN_PROD * W] = p_rod
    lin[ip + IN_MCAP * W] = m_cap
    lin[ip + IN_MROD * W] = m_rod


@njit(cache=True, inline="always")
def rates_of_lane(lout, j):
    """(Ṗ_cap, Ṗ_rod, ṁ_cap, ṁ_rod, ṁ_supply) of lane j [Pa/s, Pa/s, kg/s, kg/s, kg/s]."""
    W = LANE_WIDTH
    op = (j // W) * NOUT * W + j % W
    return lout[op], lout[op + W], lout[op + 2 * W], lout[op + 3 * W], lout[op + 4 * W]


@_kernel()
def gather_inputs(order, block_lanes, u, x, xdot, state, lin):
    """Write each computed lane's inputs into ``lin`` (:func:`cylinder_rates_lanes`); a padding
    lane takes the inputs of the lane before it."""
    W = LANE_WIDTH
    for b in range(block_lanes.size):
        i = 0
        for la in range(int(block_lanes[b])):
            i = order[b * W + la] if order[b * W + la] >= 0 else i
            set_lane_inputs(lin, b * W + la, u[i], x[i], xdot[i], state[i, 0], state[i, 1],
                            state[i, 2], state[i, 3])


@_kernel()
def pad_inputs(lin, lane_of, block_lanes):
    """Give every computed padding lane the inputs of its block's last actuator (what
    :func:`gather_inputs` does), for a hook that wrote the actuators' lanes of ``lin`` itself with
    :func:`set_lane_inputs`: ``lane_of`` (N,) and ``block_lanes`` of :func:`embedded_view`. A block
    holds its actuators in its first lanes (:func:`lane_order`); with none to pad this costs one pass
    over ``lane_of``."""
    W = LANE_WIDTH
    for b in range(block_lanes.size):
        last = -1
        for i in range(lane_of.size):
            j = int(lane_of[i])
            if j // W == b and j > last:
                last = j
        src = b * NIN * W + last % W
        for la in range(last % W + 1, int(block_lanes[b])):
            for k in range(NIN):
                lin[b * NIN * W + k * W + la] = lin[src + k * W]


@_kernel()
def scatter_rates(order, lout, out):
    """Copy each actuator's rates from its lane of ``lout`` into ``out`` (N, 5)."""
    for j in range(order.size):
        i = order[j]
        if i >= 0:
            out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = rates_of_lane(lout, j)


@_kernel()
def cylinder_rates_lanes(lanes, order, block_lanes, n_fitted_blocks, u, x, xdot, state, lin,
                         lout, out):
    """:func:`._chamber_kernels.cylinder_rates_array` through the lane kernels.

    u, x, xdot (N,); state (N, 5) = [P_cap, P_rod, m_cap, m_rod, m_air]; out (N, 5). ``lanes``
    from :func:`pack_lanes` with ``order``, ``block_lanes`` (:func:`lane_order`); lin
    (n_blocks·NIN·W,) and lout (n_blocks·NOUT·W,) scratch. A robot hook whose state holds the
    gas states in its own layout writes ``lin`` itself and calls :func:`lane_rates`.
    """
    gather_inputs(order, block_lanes, u, x, xdot, state, lin)
    lane_rates(lanes, block_lanes, n_fitted_blocks, lin, lout)
    scatter_rates(order, lout, out)


def lane_order(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(order, block_lanes, n_fitted_blocks) for parameter rows (N, NPARAM).

    Lanes hold fitted valves first, then linear valves; each family fills whole blocks, padded
    with −1 (no actuator). ``block_lanes[b]``: lanes block b computes, its actuators rounded up
    to a multiple of :data:`VECTOR`.
    """
    fitted = rows[:, L.VALVE_MODEL].astype(int) == FITTED
    order, counts = [], []
    for g in (np.flatnonzero(fitted), np.flatnonzero(~fitted)):
        nb = n_blocks(g.size)
        order.append(np.concatenate([g, np.full(nb * LANE_WIDTH - g.size, -1)]))
        in_block = np.minimum(g.size - LANE_WIDTH * np.arange(nb), LANE_WIDTH)
        counts.append(-(-in_block // VECTOR) * VECTOR)
    return (np.concatenate(order).astype(np.int64), np.concatenate(counts).astype(np.int64),
            n_blocks(int(fitted.sum())))


# ------------------------------------------------------------------ a lane block inside a model's p
# Layout at offset ``off`` of a hook's parameter vector (floats): [N, n_blocks, n_fitted_blocks,
# lane of each actuator (N), block_lanes (n_blocks), lanes (n_blocks·NLANE·W)]. The lanes are
# derived from the actuator rows: whoever writes the rows into p writes this block with them.

def embedded_lanes(rows: np.ndarray) -> np.ndarray:
    """The flat lane block of parameter rows (N, NPARAM), for a model's parameter vector."""
    order, block_lanes, nfb = lane_order(rows)
    nb = block_lanes.size
    lanes = np.zeros(nb * NLANE * LANE_WIDTH)
    pack_lanes(np.ascontiguousarray(rows, dtype=float), order, lanes)
    lane_of = np.empty(rows.shape[0])
    real = order >= 0
    lane_of[order[real]] = np.flatnonzero(real)
    return np.concatenate([[rows.shape[0], nb, nfb], lane_of, block_lanes, lanes]).astype(float)


@njit(cache=True, inline="always")
def embedded_view(p, off):
    """(lane_of (N,), block_lanes (n_blocks,), n_fitted_blocks, lanes) viewed from ``p[off:]``
    (:func:`embedded_lanes`); the lane of actuator i is ``int(lane_of[i])``."""
    n = int(p[off])
    nb = int(p[off + 1])
    o = off + 3
    return (p[o:o + n], p[o + n:o + n + nb], p[off + 2],
            p[o + n + nb:o + n + nb + nb * NLANE * LANE_WIDTH])


@njit(cache=True, inline="always")
def scratch_size(p, off):
    """Floats of ``lin`` + ``lout`` scratch the embedded block at ``off`` needs."""
    return int(p[off + 1]) * (NIN + NOUT) * LANE_WIDTH
