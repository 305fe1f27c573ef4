"""Compiled compressible-flow kernels (private; SI units; no validation, no allocation).

Scalar functions are meant to be called from other kernels and model hooks; the ``*_array``
loops evaluate them over flattened, broadcast 1-D arrays for the public wrappers in
:mod:`legsim.actuators.pneumatic.flow`.
"""

from __future__ import annotations

import math

from numba import njit

PSI = 6894.76
SCFH_PER_M3S = 127134.0  # RATS eq. (5.9): q[m^3/s] = q_SCFH / (35.315 * 3600)
P_STD = 101325.0         # standard pressure for SCFH [Pa] (14.696 psia)
T_STD = 288.706          # standard temperature for SCFH [K] (60 °F = 520 °R)


@njit(cache=True, inline="always")
def _orifice_shape(r, k, c1, c2, r_cr):
    """Flow function ψ(r) of Daepp (4.1.5)/(4.1.6): ṁ = A P_u/√T_u · ψ(r), r = P_d/P_u."""
    if r <= r_cr:
        return c2
    if r >= 1.0:
        return 0.0
    a = r ** (1.0 / k)          # r^(1/k); r^((k-1)/k) = r / r^(1/k) saves a second power
    return c1 * a * math.sqrt(max(0.0, 1.0 - r / a))


@njit(cache=True)
def orifice_psi(r, k, c1, c2, r_cr, r_lam):
    """ψ(r) with an optional linear ("laminar") region for r > r_lam (0 disables it).

    For r_lam < r < 1 the flow is ψ(r_lam)·(1 − r)/(1 − r_lam): continuous at r_lam and
    Lipschitz at r = 1 (the square root of (4.1.5) has an infinite slope there), the same
    device Simscape's pneumatic orifices use (B_lam = 0.999).
    """
    if r_lam > 0.0 and r > r_lam:
        if r >= 1.0:
            return 0.0
        return _orifice_shape(r_lam, k, c1, c2, r_cr) * (1.0 - r) / (1.0 - r_lam)
    return _orifice_shape(r, k, c1, c2, r_cr)


@njit(cache=True)
def orifice_flow(area, p_up, p_down, t_up, k, c1, c2, r_cr, r_lam):
    """Mass flow [kg/s] from the ``up`` node to the ``down`` node through effective area c_d·A.

    Negative when p_down > p_up (the roles swap, the same temperature ``t_up`` is used).
    Zero (not NaN) at equal pressures and at zero pressure.
    """
    if p_up >= p_down:
        if p_up <= 0.0:
            return 0.0
        return area * p_up / math.sqrt(t_up) * orifice_psi(p_down / p_up, k, c1, c2, r_cr, r_lam)
    if p_down <= 0.0:
        return 0.0
    return -area * p_down / math.sqrt(t_up) * orifice_psi(p_up / p_down, k, c1, c2, r_cr, r_lam)


@njit(cache=True)
def signed_orifice_flow(area, p_a, p_b, t_a, t_b, k, c1, c2, r_cr, r_lam):
    """Signed mass flow a -> b [kg/s] using the temperature of whichever node is upstream.

    This is the direction logic of Daepp's ``Port_2`` code (digest §2.1): if P_a > P_b the
    gas arrives at b with T_a (+1), otherwise it leaves b with T_b (−1).
    Returns (mdot, T_upstream).
    """
    if p_a > p_b:
        if p_a <= 0.0:
            return 0.0, t_a
        return area * p_a / math.sqrt(t_a) * orifice_psi(p_b / p_a, k, c1, c2, r_cr, r_lam), t_a
    if p_b <= 0.0:
        return 0.0, t_b
    return -area * p_b / math.sqrt(t_b) * orifice_psi(p_a / p_b, k, c1, c2, r_cr, r_lam), t_b


@njit(cache=True)
def iso6358_phi(r, b, m, r_lam):
    """ISO 6358 flow shape: 1 for r ≤ b, (1 − ((r − b)/(1 − b))²)^m above, linear beyond r_lam."""
    if r <= b:
        return 1.0
    if r >= 1.0:
        return 0.0
    if r_lam > 0.0 and r > r_lam and r_lam > b:
        s = (r_lam - b) / (1.0 - b)
        return (1.0 - s * s) ** m * (1.0 - r) / (1.0 - r_lam)
    s = (r - b) / (1.0 - b)
    return max(0.0, 1.0 - s * s) ** m


@njit(cache=True)
def iso6358_flow(c, b, m, p_up, p_down, t_up, rho0, t0, r_lam):
    """ISO 6358 mass flow [kg/s]: ṁ = C ρ0 p_up √(T0/T_up) φ(p_down/p_up); signed as orifice_flow."""
    if p_up >= p_down:
        if p_up <= 0.0:
            return 0.0
        return c * rho0 * p_up * math.sqrt(t0 / t_up) * iso6358_phi(p_down / p_up, b, m, r_lam)
    if p_down <= 0.0:
        return 0.0
    return -c * rho0 * p_down * math.sqrt(t0 / t_up) * iso6358_phi(p_up / p_down, b, m, r_lam)


@njit(cache=True)
def cv_flow_source(cv, p_s, p_c, t, sg, r_gas, r_cr):
    """RATS eqs. (5.8)–(5.10) exactly as printed (thesis-faithful; discontinuous at r_cr).

    q_SCFH = Y C_v √((P_s − P_c) P_s / (SG T)), P in psia, T in °R, Y = 907 if P_c/P_s ≤ r_cr
    else 1360; q = q_SCFH/127134 m³/s; ṁ = P_s q / (R T) with the *supply* density (5.10).
    Zero for P_c ≥ P_s (the source models charging only).
    """
    if p_s <= p_c or p_s <= 0.0:
        return 0.0
    y = 907.0 if p_c / p_s <= r_cr else 1360.0
    ps_psi = p_s / PSI
    dp_psi = (p_s - p_c) / PSI
    q_scfh = y * cv * math.sqrt(dp_psi * ps_psi / (sg * t * 1.8))
    return p_s * (q_scfh / SCFH_PER_M3S) / (r_gas * t)


@njit(cache=True)
def cv_flow_corrected(cv, p_up, p_down, t_up, sg, r_gas, x_t, r_lam):
    """Continuous Cv flow (ISA-75.01 gas form) converted with the *standard* density.

    q_SCFH = 1360 C_v P_1 Y √(x/(SG T_1)), x = min(ΔP/P_1, x_T), Y = 1 − x/(3 x_T), P in psia,
    T in °R; ṁ = ρ_std q with ρ_std = P_std/(R T_std). Agrees with (5.8) for small x, chokes
    continuously at x = x_T (Y = 2/3, the 907/1360 of the source), and carries the linear
    region r > r_lam like :func:`orifice_psi`. Signed: negative when p_down > p_up.
    """
    sign = 1.0
    if p_down > p_up:
        p_up, p_down = p_down, p_up
        sign = -1.0
    if p_up <= 0.0 or p_up == p_down:
        return 0.0
    r = p_down / p_up
    scale = 1.0
    if r_lam > 0.0 and r > r_lam:
        scale = (1.0 - r) / (1.0 - r_lam)
        r = r_lam
    x = min(1.0 - r, x_t)
    y = 1.0 - x / (3.0 * x_t)
    q_scfh = 1360.0 * cv * (p_up / PSI) * y * math.sqrt(x / (sg * t_up * 1.8))
    rho_std = P_STD / (r_gas * T_STD)
    return sign * scale * rho_std * q_scfh / SCFH_PER_M3S


# ----------------------------------------------------------------------------- array loops
@njit(cache=True)
def orifice_flow_array(area, p_up, p_down, t_up, k, c1, c2, r_cr, r_lam, out):
    for i in range(out.size):
        out[i] = orifice_flow(area[i], p_up[i], p_down[i], t_up[i], k, c1, c2, r_cr, r_lam)


@njit(cache=True)
def signed_orifice_flow_array(area, p_a, p_b, t_a, t_b, k, c1, c2, r_cr, r_lam, out, t_out):
    for i in range(out.size):
        out[i], t_out[i] = signed_orifice_flow(area[i], p_a[i], p_b[i], t_a[i], t_b[i],
                                               k, c1, c2, r_cr, r_lam)


@njit(cache=True)
def iso6358_flow_array(c, b, m, p_up, p_down, t_up, rho0, t0, r_lam, out):
    for i in range(out.size):
        out[i] = iso6358_flow(c[i], b[i], m, p_up[i], p_down[i], t_up[i], rho0, t0, r_lam)


@njit(cache=True)
def cv_flow_array(cv, p_up, p_down, t_up, sg, r_gas, r_cr, x_t, r_lam, corrected, out):
    for i in range(out.size):
        if corrected:
            out[i] = cv_flow_corrected(cv[i], p_up[i], p_down[i], t_up[i], sg, r_gas, x_t, r_lam)
        else:
            out[i] = cv_flow_source(cv[i], p_up[i], p_down[i], t_up[i], sg, r_gas, r_cr)


