"""Compressible mass flow through valves: orifice (Daepp §4.1.1), ISO 6358, RATS Cv (5.8–5.10).

All functions take SI values (Pa, K, m², kg/s), broadcast numpy arrays, validate their inputs
(negative pressures, areas or temperatures raise :class:`~legsim.errors.InputError`) and call
the compiled kernels in :mod:`._flow_kernels`. Model hooks call the kernels directly.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, as_float, check_number
from . import _flow_kernels as K
from ._validate import as_array, broadcast_flat, finish
from .gas import AIR, CRITICAL_RATIO_SOURCE, Gas

__all__ = [
    "orifice_mass_flow", "signed_mass_flow", "flow_function", "iso6358_mass_flow",
    "cv_mass_flow", "DEFAULT_LAMINAR_RATIO", "ISO_RHO0", "ISO_T0",
]

DEFAULT_LAMINAR_RATIO = 0.999
"""Pressure ratio above which flow is linear in ΔP (Simscape's B_lam). 0 gives the pure source law."""
ISO_RHO0 = 1.185
"""ISO 6358 reference density [kg/m³] (ANR: 100 kPa, 20 °C, 65 % RH)."""
ISO_T0 = 293.15
"""ISO 6358 reference temperature [K]."""


def _gas(gas) -> Gas:
    if not isinstance(gas, Gas):
        raise InputError(f"gas={gas!r}: expected a legsim.actuators.pneumatic.Gas (e.g. AIR)")
    return gas


def _ratios(gas: Gas, critical_ratio, laminar_ratio) -> tuple[float, float]:
    r_cr = _gas(gas).critical_ratio if critical_ratio is None else as_float(critical_ratio)
    if not (0.0 < r_cr < 1.0):
        raise InputError(f"critical_ratio={critical_ratio!r}: expected 0 < ratio < 1")
    r_lam = as_float(laminar_ratio)
    if r_lam != 0.0 and not (r_cr < r_lam < 1.0):
        raise InputError(f"laminar_ratio={laminar_ratio!r}: expected 0 (off) or critical_ratio "
                         f"({r_cr:.5g}) < ratio < 1")
    return r_cr, r_lam


def orifice_mass_flow(area, p_up, p_down, T_up, *, gas: Gas = AIR, critical_ratio=None,
                      laminar_ratio: float = DEFAULT_LAMINAR_RATIO):
    """Mass flow through an orifice [kg/s], Daepp (4.1.1), (4.1.5), (4.1.6).

    ``ṁ = area · P_u/√T_u · ψ(P_d/P_u)`` with ψ = C2 (choked, ratio ≤ critical) or
    ψ = C1 r^(1/k) √(1 − r^((k−1)/k)) (unchoked).

    Parameters
    ----------
    area : array_like, effective area c_d·A [m²] (≥ 0); broadcast with the others.
    p_up, p_down : array_like, absolute pressures [Pa] (≥ 0). When p_down > p_up the flow is
        reversed and returned negative (computed with the same ``T_up``; use
        :func:`signed_mass_flow` to pick the upstream temperature by direction).
    T_up : array_like, upstream temperature [K] (> 0).
    gas : :class:`Gas`, gives k, C1, C2.
    critical_ratio : float, default the exact (2/(k+1))^(k/(k−1)) = 0.52828 for air, at which
        both branches coincide (continuous flow). The sources code 0.528 (relative jump 2e-8).
    laminar_ratio : float, above this pressure ratio the flow is linear in ΔP (default 0.999;
        0 = the source's pure square-root law, whose slope is infinite at equal pressures).

    Returns
    -------
    float or ndarray of the broadcast shape: mass flow [kg/s] from ``up`` to ``down``.
    """
    r_cr, r_lam = _ratios(gas, critical_ratio, laminar_ratio)
    a = as_array("area", area)
    pu = as_array("p_up", p_up)
    pd = as_array("p_down", p_down)
    tu = as_array("T_up", T_up, strict=True)
    shape, (a, pu, pd, tu) = broadcast_flat(a, pu, pd, tu)
    out = np.empty(a.size)
    K.orifice_flow_array(a, pu, pd, tu, gas.k, gas.c1, gas.c2, r_cr, r_lam, out)
    return finish(out, shape)


def flow_function(pressure_ratio, *, gas: Gas = AIR, critical_ratio=None,
                  laminar_ratio: float = 0.0):
    """ψ(r) of Daepp (4.1.5)/(4.1.6) [√(kg K/J)]: ṁ = A P_u/√T_u ψ(P_d/P_u). r in [0, 1]."""
    r_cr, r_lam = _ratios(gas, critical_ratio, laminar_ratio)
    r = as_array("pressure_ratio", pressure_ratio)
    if np.any(r > 1.0):
        raise InputError(f"pressure_ratio: expected values in [0, 1], got max {r.max():g}")
    flat = np.ascontiguousarray(r).ravel()
    out = np.array([K.orifice_psi(v, gas.k, gas.c1, gas.c2, r_cr, r_lam) for v in flat])
    return finish(out, r.shape)


def signed_mass_flow(area, p_a, p_b, T_a, T_b, *, gas: Gas = AIR, critical_ratio=None,
                     laminar_ratio: float = DEFAULT_LAMINAR_RATIO):
    """Signed mass flow from node a to node b [kg/s] and the temperature it carries [K].

    The upstream node's temperature is used: T_a when P_a > P_b (flow into b), T_b otherwise
    (Daepp ``Port_2``: inflow at the supply temperature, outflow at the chamber temperature).

    Returns
    -------
    (mdot, T_flow) : arrays (or floats) of the broadcast shape.
    """
    r_cr, r_lam = _ratios(gas, critical_ratio, laminar_ratio)
    arrs = [as_array("area", area), as_array("p_a", p_a), as_array("p_b", p_b),
            as_array("T_a", T_a, strict=True), as_array("T_b", T_b, strict=True)]
    shape, (a, pa, pb, ta, tb) = broadcast_flat(*arrs)
    out = np.empty(a.size)
    tout = np.empty(a.size)
    K.signed_orifice_flow_array(a, pa, pb, ta, tb, gas.k, gas.c1, gas.c2, r_cr, r_lam, out, tout)
    return finish(out, shape), finish(tout, shape)


def iso6358_mass_flow(conductance, critical_ratio, p_up, p_down, T_up, *, subsonic_index=0.5,
                      laminar_ratio: float = DEFAULT_LAMINAR_RATIO, rho0: float = ISO_RHO0,
                      T0: float = ISO_T0):
    """ISO 6358 mass flow [kg/s] from sonic conductance C and critical pressure ratio b.

    ``ṁ = C ρ0 P_u √(T0/T_u)`` for P_d/P_u ≤ b, times (1 − ((r − b)/(1 − b))²)^m above
    (ISO 6358-1:2013, m = 0.5 the classic ellipse). Continuous at r = b by construction.

    Parameters
    ----------
    conductance : array_like, sonic conductance C [m³/(s Pa)] (≥ 0).
    critical_ratio : array_like, b in [0, 1).
    p_up, p_down : absolute pressures [Pa]; reversed flow is negative.
    T_up : upstream temperature [K].
    """
    c = as_array("conductance", conductance)
    b = as_array("critical_ratio", critical_ratio)
    if np.any(b >= 1.0):
        raise InputError(f"critical_ratio b: expected 0 <= b < 1, got {b.max():g}")
    o = "iso6358_mass_flow"
    subsonic_index = check_number(o, "subsonic_index", subsonic_index, lo=0.0, hi=10.0, lo_open=True)
    laminar_ratio = as_float(laminar_ratio)
    if not 0.0 <= laminar_ratio < 1.0:
        raise InputError(f"{o}: laminar_ratio={laminar_ratio!r}: expected 0 (off) or a ratio < 1")
    rho0 = check_number(o, "rho0", rho0, lo=0.0, hi=1e3, lo_open=True)  # [kg/m^3]
    T0 = check_number(o, "T0", T0, lo=0.0, hi=1e4, lo_open=True)  # [K]
    arrs = [c, b, as_array("p_up", p_up), as_array("p_down", p_down),
            as_array("T_up", T_up, strict=True)]
    shape, (c, b, pu, pd, tu) = broadcast_flat(*arrs)
    out = np.empty(c.size)
    K.iso6358_flow_array(c, b, subsonic_index, pu, pd, tu, rho0, T0, laminar_ratio, out)
    return finish(out, shape)


def cv_mass_flow(cv, p_up, p_down, T_up, *, mode: str = "corrected", gas: Gas = AIR,
                 critical_ratio: float = CRITICAL_RATIO_SOURCE,
                 laminar_ratio: float = DEFAULT_LAMINAR_RATIO):
    """Mass flow [kg/s] through a valve rated by its flow coefficient C_v (RATS (5.8)–(5.10)).

    Parameters
    ----------
    cv : array_like, flow coefficient [US gpm/√psi] (the rubber-seat valve: 0.3).
    p_up, p_down : absolute pressures [Pa] (tank and cylinder).
    T_up : upstream temperature [K].
    mode : ``"source"`` reproduces (5.8)–(5.10) as printed: Y = 907 / 1360 with a factor-1.5
        jump at the choke point and the supply density in (5.10) (≈ P_s/P_std too much flow);
        charging only (0 when p_down ≥ p_up). ``"corrected"`` uses the continuous ISA factor
        Y = 1 − x/(3 x_T), x = min(ΔP/P_u, x_T), x_T = 1 − critical_ratio, and the standard
        density; signed (reverse flow negative).
    critical_ratio : the choke ratio (0.528 in the source).
    """
    if not (isinstance(mode, str) and mode in ("source", "corrected")):
        raise InputError(f"cv_mass_flow mode={mode!r}: expected 'source' or 'corrected'")
    critical_ratio, laminar_ratio = _ratios(gas, critical_ratio, laminar_ratio)
    arrs = [as_array("cv", cv), as_array("p_up", p_up), as_array("p_down", p_down),
            as_array("T_up", T_up, strict=True)]
    shape, (c, pu, pd, tu) = broadcast_flat(*arrs)
    out = np.empty(c.size)
    K.cv_flow_array(c, pu, pd, tu, gas.specific_gravity, gas.R, float(critical_ratio),
                    1.0 - float(critical_ratio), float(laminar_ratio), mode == "corrected", out)
    return finish(out, shape)
