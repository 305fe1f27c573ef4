"""Friction identification (Daepp (2011) §4.2.2.4; digest §2.4).

* stiction: the net pressure force at the "stiction peak" of an open-loop step, minus the
  rod/load weight offset;
* Coulomb + viscous: least squares F = F_C sign(v) + C_V v over constant-velocity segments;
* Stribeck-tanh: nonlinear least squares of (4.2.6) to friction-vs-velocity data.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares

from ..errors import InputError, check_number, check_values, check_whole
from ._samples import MAX_SAMPLE, distinct, samples

__all__ = ["stiction_from_step", "constant_velocity_segments", "coulomb_viscous_fit",
           "fit_stribeck_tanh", "stribeck_tanh_curve"]


def stiction_from_step(t, f_net, x, t_step: float = 0.0, offset: float = 0.0,
                       move_threshold: float = 2e-4) -> float:
    """Static friction [N] from the pressure peak of an open-loop step.

    ``f_net`` (n,) net pressure force on the piston [N] (P_cap A_cap − P_rod A_rod − P_atm A_rod);
    ``x`` (n,) piston position [m]; the step is applied at ``t_step``. The breakaway is the first
    sample after the step where |x − x(t_step)| exceeds ``move_threshold`` [m]; the stiction
    peak is the largest net force *in the direction of that motion* between the step and the
    breakaway. Returns peak − ``offset``, where ``offset`` [N] is the part of
    the breakaway force that is not friction (e.g. the load weight when lifting it, or minus
    the weight when it helps).
    """
    o = "stiction_from_step"
    t, f, xx = samples(o, t=t, f_net=f_net, x=x)
    t_step = check_number(o, "t_step", t_step)
    offset = check_number(o, "offset", offset)
    move_threshold = check_number(o, "move_threshold", move_threshold, lo=0.0, lo_open=True)
    after = t >= t_step
    if not np.any(after):
        raise InputError(f"{o}: 't_step' = {t_step!r} s is after the end of the log")
    i0 = int(np.argmax(after))
    moved = np.abs(xx[i0:] - xx[i0]) > move_threshold
    if not np.any(moved):
        raise InputError(f"{o}: the piston never moved more than 'move_threshold' = {move_threshold:g} m")
    i_move = i0 + int(np.argmax(moved))
    direction = np.sign(xx[i_move] - xx[i0])
    seg = f[i0:i_move + 1]
    return float((direction * seg).max() - offset)


def constant_velocity_segments(v, tol: float, min_samples: int = 20) -> list[tuple[int, int]]:
    """Index ranges [i, j) of at least ``min_samples`` samples where the velocity ``v`` (n,) [m/s] stays
    within ±``tol`` [m/s] of its segment mean and moves (|mean| > 2 tol)."""
    (vv,) = samples("constant_velocity_segments", v=v)
    tol = check_number("constant_velocity_segments", "tol", tol, lo=0.0, lo_open=True)  # [m/s]
    min_samples = check_whole("constant_velocity_segments", "min_samples", min_samples, 1)
    segs = []
    i = 0
    n = vv.size
    while i < n:
        j = i + 1
        while j < n and abs(vv[j] - vv[i:j].mean()) <= tol:
            j += 1
        if j - i >= min_samples and abs(vv[i:j].mean()) > 2 * tol:
            segs.append((i, j))
        i = j
    return segs


def _segments(owner: str, segments, n: int) -> list[tuple[int, int]]:
    """``segments`` as index ranges [a, b) within the n samples, else an :class:`InputError`."""
    try:
        pairs = [tuple(p) for p in segments] if not isinstance(segments, str) else [()]
    except TypeError:
        pairs = [()]
    if not all(len(p) == 2 for p in pairs):
        raise InputError(f"{owner}: 'segments' = {segments!r}, expected index ranges (a, b) as "
                         f"constant_velocity_segments gives")
    out = []
    for a, b in pairs:
        a, b = check_whole(owner, "segments", a, 0, n), check_whole(owner, "segments", b, 0, n)
        out.append((a, b))
    return out


def coulomb_viscous_fit(v, f, segments=None) -> tuple[float, float]:
    """(F_C [N], C_V [N s/m]) minimising Σ (f − F_C sign(v) − C_V v)² over the samples of
    ``segments`` (index ranges; all samples when None). Needs at least two distinct speeds."""
    o = "coulomb_viscous_fit"
    vv, ff = samples(o, v=v, f=f)
    if segments is not None:
        ranges = [np.arange(a, b) for a, b in _segments(o, segments, vv.size)]
        idx = np.concatenate(ranges) if ranges else np.zeros(0, int)
        vv, ff = vv[idx], ff[idx]
    moving = vv != 0
    vv, ff = vv[moving], ff[moving]
    if vv.size < 2 or np.ptp(np.abs(vv)) == 0.0:
        raise InputError(f"{o}: 'v' needs moving samples at two or more different speeds"
                         + (" within 'segments'" if segments is not None else ""))
    a = np.column_stack([np.sign(vv), vv])
    (fc, cv), *_ = np.linalg.lstsq(a, ff, rcond=None)
    return float(fc), float(cv)


def stribeck_tanh_curve(v, f_s, f_c, c_v, v_s, i, k_tanh):
    """Daepp (4.2.6): [F_C + (F_S − F_C) e^(−(|v|/v_S)^i)] tanh(k_tanh v) + C_v v [N].

    ``v`` velocities [m/s], a number or an array; forces ``f_s``, ``f_c`` >= 0 [N], ``c_v`` [N s/m] of
    either sign; ``v_s`` [m/s], ``i`` [-], ``k_tanh`` [s/m] > 0; each within ±MAX_SAMPLE (1e12), so that
    every product stays finite. A power (|v|/v_S)^i beyond the largest float is inf, and e^(−inf) = 0 is
    the exact limit (no overflow warning).
    """
    o = "stribeck_tanh_curve"
    vv = check_values(o, "v", v, lo=-MAX_SAMPLE, hi=MAX_SAMPLE, unit="m/s")
    for name, value, lo in (("f_s", f_s, 0.0), ("f_c", f_c, 0.0), ("c_v", c_v, -MAX_SAMPLE)):
        check_number(o, name, value, lo=lo, hi=MAX_SAMPLE)
    for name, value in (("v_s", v_s), ("i", i), ("k_tanh", k_tanh)):
        check_number(o, name, value, lo=0.0, hi=MAX_SAMPLE, lo_open=True)
    with np.errstate(over="ignore"):
        return _stribeck_tanh(vv, f_s, f_c, c_v, v_s, i, k_tanh)


def _stribeck_tanh(v, f_s, f_c, c_v, v_s, i, k_tanh):
    """:func:`stribeck_tanh_curve` without its checks (the fit's residuals)."""
    v = np.asarray(v, dtype=float)
    return (f_c + (f_s - f_c) * np.exp(-(np.abs(v) / v_s) ** i)) * np.tanh(k_tanh * v) + c_v * v


def fit_stribeck_tanh(v, f, p0=None, fix: dict | None = None) -> dict:
    """Fit (4.2.6) to friction-vs-velocity data by bounded nonlinear least squares.

    ``p0``: starting values {f_s, f_c, c_v, v_s, i, k_tanh} (defaults from the data scale);
    ``fix``: parameters held at given values (the source fitted i and k_tanh by eye).
    Returns the parameter dict plus ``rms`` [N].
    """
    o = "fit_stribeck_tanh"
    vv, ff = samples(o, v=v, f=f)
    names = ["f_s", "f_c", "c_v", "v_s", "i", "k_tanh"]
    for what, given in (("p0", p0), ("fix", fix)):
        if given is not None and not isinstance(given, dict):
            raise InputError(f"{o}: '{what}' = {given!r}, expected None or a dict of {names}")
        for k, value in (given or {}).items():
            if k not in names:
                raise InputError(f"{o}: '{what}' names an unknown parameter {k!r}; expected {names}")
            check_number(o, f"{what}[{k!r}]", value)
    fmax = float(np.abs(ff).max())
    vmax = float(np.abs(vv).max())
    start = {"f_s": fmax, "f_c": 0.7 * fmax, "c_v": 0.0, "v_s": 0.2 * vmax, "i": 2.0,
             "k_tanh": 20.0 / max(vmax, 1e-9)}
    start.update(p0 or {})
    fix = dict(fix or {})
    free = [n for n in names if n not in fix]
    if not free:
        raise InputError(f"{o}: 'fix' holds all of {names}: nothing is left to fit")
    # (4.2.6) is odd in v: a speed |v| > 0 is one equation, whatever its sign or repeats
    distinct(o, "v", np.abs(vv[vv != 0]), len(free), f"fitting {len(free)} free parameters "
             f"({', '.join(free)}; hold some with 'fix')", kind="nonzero speed")
    lo = {"f_s": 0.0, "f_c": 0.0, "c_v": -np.inf, "v_s": 1e-6, "i": 0.5, "k_tanh": 1e-3}
    hi = {"f_s": np.inf, "f_c": np.inf, "c_v": np.inf, "v_s": np.inf, "i": 20.0, "k_tanh": np.inf}

    def full(z):
        d = dict(fix)
        d.update(zip(free, z, strict=True))
        return d

    def resid(z):
        return _stribeck_tanh(vv, **full(z)) - ff

    x0 = np.array([np.clip(start[n], lo[n] + 1e-12, hi[n]) for n in free])
    sol = least_squares(resid, x0, bounds=([lo[n] for n in free], [hi[n] for n in free]),
                        x_scale="jac", max_nfev=2000)
    out = full(sol.x)
    out["rms"] = float(np.sqrt(np.mean(sol.fun ** 2)))
    return out
