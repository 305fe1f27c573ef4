"""Response metrics of the rig and leg tests (Daepp (2011) §4.3, §5.4; digest §1.7, §2.9).

RMSE over the response; rise time (10–90 %), overshoot, settling time (within a band of the
final value); lag of a response behind its reference by cross-correlation; first-order fit
y = K0 − A0 exp(−(t − t0)/τ) (eq. (4.3.1) with the sign of the exponent corrected, ⚠ 4) with
its τ and R²; the ringing of a step response (the "oscillations characteristic to a third order
system" of Daepp §4.3: velocity oscillation at the pneumatic-spring frequency, :func:`ringing`,
:func:`pneumatic_natural_frequency`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import OptimizeWarning, curve_fit

from ...errors import InputError, check_number, check_values

__all__ = ["rmse", "step_metrics", "StepMetrics", "lag_by_xcorr", "first_order_fit", "FirstOrderFit",
           "Ringing", "ringing", "pneumatic_natural_frequency"]


def _pair(who: str, a_name: str, a, b_name: str, b) -> tuple[np.ndarray, np.ndarray]:
    """Two signals of one length as 1-D float arrays (values within ±1e12), else an InputError."""
    a, b = (check_values(who, name, v, lo=-1e12, hi=1e12).ravel() for name, v in ((a_name, a), (b_name, b)))
    if a.size != b.size:
        raise InputError(f"{who}: '{a_name}' has {a.size} samples and '{b_name}' {b.size}: expected as many")
    return a, b


def _after_step(who: str, t, y, y0: float, y1: float, t_step: float, n_min: int):
    """(times, values, step size) of the samples at and after ``t_step``; InputError for a zero step or
    fewer than ``n_min`` samples after it."""
    t, y = _pair(who, "t", t, "y", y)
    y0, y1 = check_number(who, "y0", y0, lo=-1e12, hi=1e12), check_number(who, "y1", y1, lo=-1e12, hi=1e12)
    t_step = check_number(who, "t_step", t_step, lo=-1e12, hi=1e12)
    sel = t >= t_step
    span = y1 - y0
    scale = max(abs(y0), abs(y1), float(np.abs(y).max()))
    if not abs(span) > 1e-12 * scale or np.count_nonzero(sel) < n_min:  # a step resolved in the signal
        raise InputError(f"{who}: need a non-zero step y1 - y0 and {n_min} samples or more from t_step on")
    return t[sel], y[sel], span


def rmse(y, y_ref) -> float:
    """Root-mean-square error between two equally sampled signals."""
    a, b = _pair("rmse", "y", y, "y_ref", y_ref)
    return float(np.sqrt(np.mean((a - b) ** 2)))


@dataclass
class StepMetrics:
    """rise [s] (10–90 %), overshoot [fraction of the step], settling [s] (to ``band``), final."""

    rise: float
    overshoot: float
    settling: float
    final: float


def step_metrics(t, y, y0: float, y1: float, t_step: float, band: float = 0.05) -> StepMetrics:
    """Step-response metrics of y(t) for a reference step y0 -> y1 at ``t_step``."""
    ts, ys, span = _after_step("step_metrics", t, y, y0, y1, t_step, 3)
    band = check_number("step_metrics", "band", band, lo=0.0, hi=1.0, lo_open=True)
    ts = ts - t_step
    frac = (ys - y0) / span
    i10 = np.argmax(frac >= 0.1) if np.any(frac >= 0.1) else None
    i90 = np.argmax(frac >= 0.9) if np.any(frac >= 0.9) else None
    rise = float(ts[i90] - ts[i10]) if i10 is not None and i90 is not None else float("nan")
    over = float(max(frac.max() - 1.0, 0.0))
    outside = np.abs(frac - 1.0) > band
    settling = float(ts[np.nonzero(outside)[0][-1] + 1]) if outside.any() and \
        np.nonzero(outside)[0][-1] + 1 < ts.size else (0.0 if not outside.any() else float("nan"))
    return StepMetrics(rise=rise, overshoot=over, settling=settling, final=float(ys[-1]))


def lag_by_xcorr(t, y, ref, max_lag: float = 1.0) -> float:
    """Delay [s] of y behind ref maximising their cross-correlation (means removed)."""
    t, y = _pair("lag_by_xcorr", "t", t, "y", y)
    _, r = _pair("lag_by_xcorr", "t", t, "ref", ref)
    max_lag = check_number("lag_by_xcorr", "max_lag", max_lag, lo=0.0, hi=1e12)  # [s]
    if t.size < 2 or not np.all(np.diff(t) > 0.0):
        raise InputError("lag_by_xcorr: 't' must hold two or more increasing times [s]")
    dt = float(np.median(np.diff(t)))
    n = min(int(round(max_lag / dt)), t.size - 1)
    a = y - y.mean()
    b = r - r.mean()
    best, best_k = -np.inf, 0
    for k in range(0, n + 1):
        c = np.dot(a[k:], b[:a.size - k]) / (a.size - k)
        if c > best:
            best, best_k = c, k
    return best_k * dt


@dataclass
class FirstOrderFit:
    """y = k0 − a0 exp(−(t − t0)/τ): τ [s], gains, and the coefficient of determination R²."""

    tau: float
    k0: float
    a0: float
    r2: float


def first_order_fit(t, y, t0: float = 0.0, t1: float | None = None) -> FirstOrderFit:
    """Least-squares first-order fit over [t0, t1] (Daepp (4.3.1), sign corrected)."""
    t, y = _pair("first_order_fit", "t", t, "y", y)
    t0 = check_number("first_order_fit", "t0", t0, lo=-1e12, hi=1e12)
    t1 = t[-1] if t1 is None else check_number("first_order_fit", "t1", t1, lo=-1e12, hi=1e12)
    sel = (t >= t0) & (t <= t1)
    ts, ys = t[sel] - t0, y[sel]
    if ts.size < 5:
        raise InputError("first_order_fit: fewer than 5 samples of t in the window [t0, t1]")
    if not np.ptp(ys) > 0.0:  # R² would be 0/0
        raise InputError("first_order_fit: y is constant in the window [t0, t1]: there is no response to fit")
    k0 = ys[-1]
    a0 = ys[-1] - ys[0]
    target = k0 - (a0 * np.exp(-1.0))
    i_tau = int(np.argmin(np.abs(ys - target)))
    tau0 = max(ts[i_tau], 1e-3)

    def model(tt, k, a, tau):
        return k - a * np.exp(-tt / tau)

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", OptimizeWarning)
            (k, a, tau), _ = curve_fit(model, ts, ys, p0=[k0, a0, tau0], maxfev=20000)
    except RuntimeError as exc:  # curve_fit's "Optimal parameters not found"
        raise InputError(f"first_order_fit: the samples in [t0, t1] fit no first-order response "
                         f"({exc})") from None
    scale = np.ptp(ys)  # residuals relative to the range of the response: squares neither overflow nor vanish
    res = (ys - model(ts, k, a, tau)) / scale
    ss = np.sum(((ys - ys.mean()) / scale) ** 2)
    return FirstOrderFit(tau=float(tau), k0=float(k), a0=float(a), r2=float(1 - np.sum(res ** 2) / ss))


@dataclass
class Ringing:
    """Oscillation in a step response: ``n_peaks`` velocity peaks in the direction of the step with a
    prominence of at least ``min_prominence`` of the largest; their mean ``frequency`` [Hz] (NaN if fewer
    than two); ``amplitude``: the largest deviation from the response's first-order fit, as a fraction of
    the step [-] (small when the first-order part dominates, Daepp §4.3)."""

    n_peaks: int
    frequency: float
    amplitude: float


def ringing(t, y, y0: float, y1: float, t_step: float, min_prominence: float = 0.1) -> Ringing:
    """Ringing of y(t) after a reference step y0 -> y1 at ``t_step`` (velocity by central differences; times
    increasing); velocity peaks count when their prominence is at least ``min_prominence`` (in (0, 1]) of
    the largest velocity."""
    from scipy.signal import find_peaks

    ts, ys, span = _after_step("ringing", t, y, y0, y1, t_step, 5)
    min_prominence = check_number("ringing", "min_prominence", min_prominence, lo=0.0, lo_open=True, hi=1.0)
    if np.any(np.diff(ts) <= 0.0):
        raise InputError("ringing: 't' after t_step is not increasing: expected sample times in order, each "
                         "once")
    v = np.sign(span) * np.gradient(ys, ts)
    top = float(v.max())
    if not top > 0.0:
        return Ringing(0, float("nan"), 0.0)
    peaks, _ = find_peaks(v, prominence=min_prominence * top)
    freq = float((peaks.size - 1) / (ts[peaks[-1]] - ts[peaks[0]])) if peaks.size >= 2 else float("nan")
    fit = first_order_fit(ts, ys, t_step)
    model = fit.k0 - fit.a0 * np.exp(-(ts - t_step) / fit.tau)
    return Ringing(int(peaks.size), freq, float(np.max(np.abs(ys - model)) / abs(span)))


def pneumatic_natural_frequency(p_cap: float, p_rod: float, v_cap: float, v_rod: float, a_cap: float,
                                a_rod: float, mass: float, n: float = 1.4) -> float:
    """Frequency [Hz] of a mass on the two chambers' gas springs, k = n P A² / V per chamber (the
    second-order part of the cylinder's third-order position dynamics; Daepp (4.1.10) linearised).
    Pressures [Pa], volumes [m³], areas [m²] and the mass [kg] in [1e-12, 1e12]; the polytropic exponent n in
    [1, 5/3] (isothermal to a monatomic gas's adiabat)."""
    o = "pneumatic_natural_frequency"
    p_cap, p_rod, v_cap, v_rod, a_cap, a_rod, mass = (
        check_number(o, name, value, lo=1e-12, hi=1e12) for name, value in (
            ("p_cap", p_cap), ("p_rod", p_rod), ("v_cap", v_cap), ("v_rod", v_rod), ("a_cap", a_cap),
            ("a_rod", a_rod), ("mass", mass)))
    n = check_number(o, "n", n, lo=1.0, hi=5.0 / 3.0)
    k = n * p_cap * a_cap ** 2 / v_cap + n * p_rod * a_rod ** 2 / v_rod
    return float(np.sqrt(k / mass) / (2.0 * np.pi))
