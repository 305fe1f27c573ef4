"""Valve identification (Daepp (2011) §4.2.3, App. B.2; digest §2.5).

* the tanh equivalent input pressure (4.2.7)–(4.2.11) fitted to fixed-piston steady-state
  pressures: the cutoffs C_HP, C_LP for given supply and exhaust pressures;
* the quartic equivalent area per side of the offset: ``polyfit`` of A_eq(Vc) on Vc ≤ 0 and
  Vc ≥ 0 separately (both including Vc = 0), as the source did;
* A_eq from per-step hand-tuned discharge coefficients: c_d (estA + AL).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import least_squares

from ..errors import InputError, check_flag, check_number, check_values, shown
from ._samples import MAX_SAMPLE, distinct, samples

__all__ = ["fit_input_pressure", "fit_quartic_area", "area_from_cd", "input_pressure_curve", "MAX_PRESSURE",
           "MIN_CUTOFF_GAP"]


MAX_PRESSURE = 1e9
"""The highest absolute supply or exhaust pressure [Pa] the tanh input pressure takes (1 GPa, a thousand
times a pneumatic supply)."""
MIN_CUTOFF_GAP = 2e-6
"""The smallest |C_HP − C_LP| [V] of the tanh input pressure (the fit's smallest half-width is 1e-6 V):
its slope 2π/|C_LP − C_HP| then stays finite."""


def input_pressure_curve(vc, c_hp, c_lp, p_s, p_e):
    """P_input(Vc) = (P_S + P_E)/2 + sign(C_HP − C_LP)(P_S − P_E)/2 tanh(2π/|C_LP − C_HP| (Vc − x_off)).

    ``vc`` voltages [V], a number or an array, and the cutoffs ``c_hp``, ``c_lp`` [V] within ±MAX_SAMPLE
    (1e12), the cutoffs at least MIN_CUTOFF_GAP apart; ``p_s``, ``p_e`` absolute pressures [Pa] in
    [0, MAX_PRESSURE]."""
    o = "input_pressure_curve"
    v = check_values(o, "vc", vc, lo=-MAX_SAMPLE, hi=MAX_SAMPLE, unit="V")
    hp = check_number(o, "c_hp", c_hp, lo=-MAX_SAMPLE, hi=MAX_SAMPLE)  # [V]
    lp = check_number(o, "c_lp", c_lp, lo=-MAX_SAMPLE, hi=MAX_SAMPLE)
    if not abs(lp - hp) >= MIN_CUTOFF_GAP:
        raise InputError(f"{o}: 'c_hp' = {shown(c_hp)} and 'c_lp' = {shown(c_lp)} V, expected cutoffs at "
                         f"least {MIN_CUTOFF_GAP:g} V apart")
    for name, value in (("p_s", p_s), ("p_e", p_e)):
        check_number(o, name, value, lo=0.0, hi=MAX_PRESSURE)  # [Pa]
    x_off = 0.5 * (c_hp + c_lp)
    return 0.5 * (p_s + p_e) + np.sign(c_hp - c_lp) * 0.5 * (p_s - p_e) * np.tanh(
        2 * math.pi / abs(c_lp - c_hp) * (v - x_off))


def fit_input_pressure(vc, p_ss, supply: float, exhaust: float, rising: bool = True) -> tuple[float, float]:
    """(C_HP, C_LP) [V] of the tanh input pressure fitted to steady-state pressures ``p_ss`` (n,) [Pa]
    at voltages ``vc`` (n,) [V], for the absolute ``supply`` P_S and ``exhaust`` P_E pressures [Pa] of
    (4.2.7). ``rising``: the port pressurises as Vc increases (Daepp's port 2)."""
    o = "fit_input_pressure"
    v, p = samples(o, vc=vc, p_ss=p_ss)
    distinct(o, "vc", v, 3, "fitting the tanh's centre and width")
    p_s = check_number(o, "supply", supply, lo=0.0, hi=MAX_PRESSURE)  # [Pa]
    p_e = check_number(o, "exhaust", exhaust, lo=0.0, hi=MAX_PRESSURE)
    if not p_s > p_e:
        raise InputError(f"{o}: 'supply' = {p_s!r} Pa must exceed 'exhaust' = {p_e!r} Pa")
    sgn = 1.0 if check_flag(o, "rising", rising) else -1.0
    # parametrise by centre x_off and half-width w = |C_HP - C_LP| / 2 > 0
    mid = 0.5 * (p_s + p_e)
    i_mid = int(np.argmin(np.abs(p - mid)))

    def resid(z):
        x_off, w = z
        return (mid + sgn * 0.5 * (p_s - p_e) * np.tanh(math.pi / w * (v - x_off)) - p) / (p_s - p_e)

    sol = least_squares(resid, [v[i_mid], max(np.ptp(v) / 4, 1e-3)],
                        bounds=([-np.inf, MIN_CUTOFF_GAP / 2], np.inf))
    x_off, w = sol.x
    return (x_off + sgn * w, x_off - sgn * w)


def fit_quartic_area(vc, a_eq) -> tuple[np.ndarray, np.ndarray]:
    """Quartic fits (highest power first) of A_eq [m²] on Vc ≥ 0 and on Vc ≤ 0 (App. B.2).

    Returns (positive-side coefficients, negative-side coefficients); each side needs 5 distinct voltages.
    """
    o = "fit_quartic_area"
    v, a = samples(o, vc=vc, a_eq=a_eq)
    pos = v >= 0
    neg = v <= 0
    distinct(o, "vc", v[pos], 5, "fitting a quartic on Vc >= 0")
    distinct(o, "vc", v[neg], 5, "fitting a quartic on Vc <= 0")
    return np.polyfit(v[pos], a[pos], 4), np.polyfit(v[neg], a[neg], 4)


def area_from_cd(vc, cd, slope: float = 2e-6, leak: float = 2e-7) -> np.ndarray:
    """A_eq = c_d (slope |Vc| + leak·[Vc = 0]) [m²], the source's ``cd .* (estA + AL)``."""
    o = "area_from_cd"
    v, c = samples(o, vc=vc, cd=cd)
    slope = check_number(o, "slope", slope, lo=0.0, hi=1.0)  # [m^2/V]
    leak = check_number(o, "leak", leak, lo=0.0, hi=1.0)  # [m^2]
    return c * (slope * np.abs(v) + np.where(v == 0, leak, 0.0))
