"""Compiled chamber, cylinder and tank kernels (private; SI; scalar + array loops, no allocation).

Daepp (2011) eqs. (4.1.7), (4.1.10), (4.1.11); Richer & Hurmuzlu (2000) energy balance;
Wagenknecht (2009) eqs. (5.5), (5.11), (5.12).
"""

from __future__ import annotations

from numba import njit

from . import _layout as L
from ._flow_kernels import orifice_flow, signed_orifice_flow
from ._friction_kernels import friction_force
from ._valve_kernels import port_paths, valve_ports

ADIABATIC = 0
POLYTROPIC = 1
ISOTHERMAL = 2

LEAK_NONE = 0
LEAK_EXPONENTIAL = 1
LEAK_ORIFICE = 2


@njit(cache=True)
def pressure_rate(p, v, vdot, enthalpy_flow, n, r_gas):
    """Chamber pressure rate Ṗ [Pa/s] from the energy balance (Richer & Hurmuzlu (2000) eq. 11).

    Ṗ = n R (Σ T_j ṁ_j) / V − n P V̇ / V, where ``enthalpy_flow`` = Σ T_j ṁ_j [K kg/s] sums the
    signed port flows, each at its upstream temperature (inflow at the source temperature,
    outflow at the chamber temperature). n = k adiabatic, n = 1 isothermal, any n polytropic;
    Daepp (4.1.10) as coded is n = 1 + k R/c_p = 1.397. ``v`` volume [m³], ``vdot`` [m³/s].
    """
    return n * (r_gas * enthalpy_flow - p * vdot) / v


@njit(cache=True)
def gas_temperature(p, v, m, r_gas, t_fallback):
    """Ideal-gas temperature T = P V / (m R) [K], Daepp (4.1.7); ``t_fallback`` when m ≤ 0."""
    if m <= 0.0:
        return t_fallback
    return p * v / (m * r_gas)


@njit(cache=True)
def heat_exponent(prm):
    """Exponent n of the coded heat model: k (adiabatic), N_POLY (polytropic) or 1 (isothermal)."""
    mode = int(prm[L.HEAT_MODEL])
    if mode == ISOTHERMAL:
        return 1.0
    if mode == POLYTROPIC:
        return prm[L.N_POLY]
    return prm[L.GAS_K]


@njit(cache=True)
def port_flow(prm, u, port, p_c, t_c):
    """Net signed mass flow into a chamber through its valve port [kg/s].

    Returns (mdot, enthalpy_flow = Σ T_upstream ṁ, supply_draw = inflow through path 1 ≥ 0).
    """
    a1, p1, a2, p2 = port_paths(prm, u, port)
    k = prm[L.GAS_K]
    c1 = prm[L.C1]
    c2 = prm[L.C2]
    rcr = prm[L.CRIT_RATIO]
    rlam = prm[L.LAM_RATIO]
    return paths_flow(a1, p1, a2, p2, p_c, t_c, prm[L.T_SUPPLY], k, c1, c2, rcr, rlam)


@njit(cache=True)
def chamber_volumes(prm, x, xdot):
    """Cap and rod chamber volumes [m³] and rates [m³/s] (Daepp §2.2: x_abs = x + L_dead,cap,
    rod side x_abs = stroke − x + L_dead,rod)."""
    v_cap = prm[L.A_CAP] * (x + prm[L.L_DEAD_CAP])
    v_rod = prm[L.A_ROD] * (prm[L.STROKE] - x + prm[L.L_DEAD_ROD])
    return v_cap, prm[L.A_CAP] * xdot, v_rod, -prm[L.A_ROD] * xdot


@njit(cache=True)
def paths_flow(a1, p1, a2, p2, p_c, t_c, ts, k, c1, c2, rcr, rlam):
    """Net signed mass flow into a chamber through the two paths of its port [kg/s]; a closed
    path (area 0) is skipped. Returns (mdot, Σ T_upstream ṁ, supply draw ≥ 0), as :func:`port_flow`."""
    m1 = 0.0
    t1 = ts
    if a1 > 0.0:
        m1, t1 = signed_orifice_flow(a1, p1, p_c, ts, t_c, k, c1, c2, rcr, rlam)
    m2 = 0.0
    t2 = ts
    if a2 > 0.0:
        m2, t2 = signed_orifice_flow(a2, p2, p_c, ts, t_c, k, c1, c2, rcr, rlam)
    return m1 + m2, t1 * m1 + t2 * m2, max(m1, 0.0)


@njit(cache=True)
def cylinder_rates(prm, u, x, xdot, p_cap, p_rod, m_cap, m_rod):
    """Rates of the double-acting cylinder's gas states with its proportional valve.

    Returns (Ṗ_cap, Ṗ_rod, ṁ_cap, ṁ_rod, ṁ_supply) [Pa/s, Pa/s, kg/s, kg/s, kg/s];
    ṁ_supply ≥ 0 is the air drawn from the supply (cumulative consumption when integrated).
    One fused pass: both valve ports at once (:func:`valve_ports`), the parameters read once;
    the same arithmetic as :func:`port_flow`, :func:`pressure_rate` per chamber.
    """
    r = prm[L.GAS_R]
    n = heat_exponent(prm)
    iso = int(prm[L.HEAT_MODEL]) == ISOTHERMAL
    ts = prm[L.T_SUPPLY]
    v_cap, vd_cap, v_rod, vd_rod = chamber_volumes(prm, x, xdot)
    t_cap = ts if iso else gas_temperature(p_cap, v_cap, m_cap, r, ts)
    t_rod = ts if iso else gas_temperature(p_rod, v_rod, m_rod, r, ts)
    a1c, p1c, a2c, p2c, a1r, p1r, a2r, p2r = valve_ports(prm, u)
    k = prm[L.GAS_K]
    c1 = prm[L.C1]
    c2 = prm[L.C2]
    rcr = prm[L.CRIT_RATIO]
    rlam = prm[L.LAM_RATIO]
    mc, hc, sc = paths_flow(a1c, p1c, a2c, p2c, p_cap, t_cap, ts, k, c1, c2, rcr, rlam)
    mr, hr, sr = paths_flow(a1r, p1r, a2r, p2r, p_rod, t_rod, ts, k, c1, c2, rcr, rlam)
    if iso:
        hc = ts * mc
        hr = ts * mr
    return (pressure_rate(p_cap, v_cap, vd_cap, hc, n, r),
            pressure_rate(p_rod, v_rod, vd_rod, hr, n, r), mc, mr, sc + sr)


@njit(cache=True)
def pressure_force(prm, p_cap, p_rod):
    """Net pressure force on the piston [N], Daepp (4.1.11) without friction:
    P_cap A_cap − P_rod A_rod − P_atm A_rod,cs (positive extends)."""
    return p_cap * prm[L.A_CAP] - p_rod * prm[L.A_ROD] - prm[L.P_ATM] * prm[L.A_ROD_CS]


@njit(cache=True)
def cylinder_rates_array(prm, u, x, xdot, state, out):
    """Vectorised :func:`cylinder_rates` over N actuators.

    prm (N, NPARAM); u, x, xdot (N,); state (N, 5) = [P_cap, P_rod, m_cap, m_rod, m_air];
    out (N, 5) receives the rates.
    """
    for i in range(state.shape[0]):
        a, b, c, d, e = cylinder_rates(prm[i], u[i], x[i], xdot[i], state[i, 0], state[i, 1],
                                       state[i, 2], state[i, 3])
        out[i, 0] = a
        out[i, 1] = b
        out[i, 2] = c
        out[i, 3] = d
        out[i, 4] = e


@njit(cache=True)
def piston_force_array(prm, state, xdot, out):
    """Piston forces [N] of N actuators, Daepp (4.1.11): the pressure force minus the velocity-only
    friction law (no stick state: at rest the friction balances the pressure force up to its
    breakaway level). prm (N, NPARAM); state (N, ≥ 2) [P_cap, P_rod, …]; xdot (N,); out (N,)."""
    for i in range(out.size):
        fp = pressure_force(prm[i], state[i, 0], state[i, 1])
        out[i] = fp - friction_force(prm[i], xdot[i], fp, 0, 0.0)


@njit(cache=True)
def tank_pressure_rate(p_tank, mdot_out, t_gas, v_tank, r_gas, p_atm, leak_model, leak_tau,
                       leak_area, k, c1, c2, r_cr, r_lam):
    """Isothermal supply-tank pressure rate [Pa/s], RATS (5.12) with the outflow sign corrected.

    Ṗ_s = −ṁ_out R T / V_tank, plus leakage: exponential decay of the gauge pressure with time
    constant ``leak_tau`` [s] (Ṗ = −(P − P_atm)/τ), or an orifice of ``leak_area`` [m²] to the
    atmosphere.
    """
    rate = -mdot_out * r_gas * t_gas / v_tank
    if leak_model == LEAK_EXPONENTIAL:
        rate -= (p_tank - p_atm) / leak_tau
    elif leak_model == LEAK_ORIFICE:
        rate -= orifice_flow(leak_area, p_tank, p_atm, t_gas, k, c1, c2, r_cr, r_lam) \
            * r_gas * t_gas / v_tank
    return rate


@njit(cache=True)
def leg_pressure_rate(p_cyl, x, xdot, mdot, t_flow, kappa, r_gas, v0, area):
    """Single-chamber RATS leg, eq. (5.11): Ṗ = κ/(V0 + A x) (R T ṁ − P A ẋ) [Pa/s]."""
    return kappa * (r_gas * t_flow * mdot - p_cyl * area * xdot) / (v0 + area * x)


@njit(cache=True)
def leg_gas_force(p_cyl, p_atm, area, k_return, x):
    """Gas and spring part of the RATS leg force (5.5): (P − P_atm) A − k_return x [N]."""
    return (p_cyl - p_atm) * area - k_return * x


