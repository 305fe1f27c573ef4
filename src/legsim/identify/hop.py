"""Fitting the RATS leg's valve to measured hop heights (Wagenknecht (2009) §4.1.2, E3–E5; issue 15
"fitting the pneumatic model to hop data").

The hop bench (:class:`legsim.robots.pneumatic_rig.hop.HopBench`: the single-leg vertical hop of the
launching stand, (5.5), (5.7)–(5.12)) predicts the apex rise for a valve time and a tank pressure. The
fit adjusts the valve's flow rating, the effective orifice area C_f A_v of the spool valve (5.7) or the
C_v of the rubber-seat valve (corrected (5.8)–(5.10)), and optionally its latency, to minimise the
height residuals (``scipy.optimize.least_squares``, in log-parameters so they stay positive). This is
how ``RUBBER_CV_EFFECTIVE`` relates to E4 (one point; here any number of points).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import InputError, check_flag, check_values, lookup, shown
from ._samples import distinct

__all__ = ["fit_hop_heights"]


def fit_hop_heights(valve_ms, heights, p_gauge, *, preset: str = "spool", fit_latency: bool = False,
                    **bench_kw) -> dict:
    """Fit the hop bench's valve to hops.

    Parameters
    ----------
    valve_ms : (n,) valve (energise) times [ms] in [0, 1000 MAX_DURATION]; heights : (n,) apex rises [m] in
        [0, MAX_LENGTH]; p_gauge : (n,) or one tank pressure [Pa gauge] in (0, MAX_PRESSURE − P_ATM] (the
        ranges of :meth:`~legsim.robots.pneumatic_rig.hop.HopBench.fire`). preset : "spool" (fits ``cfa`` =
        C_f A_v [m^2]) or "rubber" (fits ``cv``). fit_latency : also fit the valve latency [s]. ``bench_kw``
        go to ``HopBench`` (``exhaust``, ``friction``, parameter overrides: a fitted one is its start).

    The fitted rating stays within its range (:data:`~legsim.robots.pneumatic_rig.hop.PARAM_RANGES`) and the
    latency within the longest valve time: hops that need more (higher than any valve of the model lifts
    them) are an :class:`InputError` naming ``heights``.

    Returns {"cfa" or "cv": value, "latency": [s], "rms": height residual rms [m], "n": points}.
    """
    from scipy.optimize import least_squares

    from ..actuators.pneumatic.actuator import MAX_PRESSURE
    from ..actuators.pneumatic.cylinder import MAX_LENGTH
    from ..actuators.pneumatic.units import P_ATM
    from ..robots.pneumatic_rig.hop import PARAM_NAMES, PARAM_RANGES, HopBench
    from ..robots.pneumatic_rig.limits import MAX_DURATION

    o = "fit_hop_heights"
    t = check_values(o, "valve_ms", valve_ms, lo=0.0, hi=1e3 * MAX_DURATION, unit="ms").ravel()
    h = check_values(o, "heights", heights, lo=0.0, hi=MAX_LENGTH, unit="m").ravel()
    p = check_values(o, "p_gauge", p_gauge, lo=0.0, lo_open=True, hi=MAX_PRESSURE - P_ATM, unit="Pa gauge")
    fit_latency = check_flag(o, "fit_latency", fit_latency)
    lookup("preset", preset, ("spool", "rubber"), o)
    if t.size < 1 + fit_latency or h.shape != t.shape:
        raise InputError(f"{o}: {t.size} valve times 'valve_ms' and {h.size} 'heights': expected the same "
                         f"number, at least {1 + fit_latency}")
    if p.size not in (1, t.size):
        raise InputError(f"{o}: 'p_gauge' = {shown(p_gauge)}: expected one pressure or {t.size}, one per hop")
    p = np.broadcast_to(p.ravel(), t.shape).copy()
    if fit_latency:
        distinct(o, "valve_ms", np.column_stack([t, p]), 2,
                 "fitting the flow rating and the latency (hops differing in valve time or pressure)")
    bench = HopBench(preset, **bench_kw)
    name = "cfa" if preset == "spool" else "cv"
    k = PARAM_NAMES.index(name)
    if not bench.base[k] > 0.0:
        raise InputError(f"{o}: '{name}' = {float(bench.base[k])!r}: the fit starts from it, expected > 0")
    valve0 = bench.valve
    x0 = [np.log(bench.base[k])] + ([np.log(valve0.latency)] if fit_latency else [])
    # the fit's values stay in their ranges: the rating within PARAM_RANGES, the latency within the longest
    # valve time (beyond it no valve opens); exp() of a larger log would overflow or leave the model's ranges
    high = [PARAM_RANGES[name].high, max(float(t.max()) * 1e-3, valve0.latency)]
    top = np.log(high)

    def model(x):
        bench.base[k] = min(np.exp(min(x[0], top[0])), high[0])
        if fit_latency:
            bench.valve = dataclasses.replace(valve0, latency=float(min(np.exp(min(x[1], top[1])), high[1])))
        return np.array([bench.fire(ti, pi).height for ti, pi in zip(t, p, strict=True)])

    sol = least_squares(lambda x: model(x) - h, x0, diff_step=1e-3, xtol=1e-8)
    if sol.x[0] >= top[0] or fit_latency and sol.x[1] >= top[1]:
        reason = (f"even its largest {name} ({high[0]:g}) does not lift the leg that high"
                  if sol.x[0] >= top[0] else
                  f"they ask for a latency of the longest valve time ({high[1]:g} s) or more, which no "
                  "firing opens")
        raise InputError(f"{o}: 'heights' = {shown(heights)} m: the {preset} valve's model cannot fit them: "
                         f"{reason} (rms {float(np.sqrt(np.mean(sol.fun ** 2))):.3g} m); check the heights' "
                         "unit [m], the valve times [ms] and the pressures [Pa gauge]")
    latency = float(np.exp(sol.x[1])) if fit_latency else valve0.latency
    return {name: float(np.exp(sol.x[0])), "latency": latency, "rms": float(np.sqrt(np.mean(sol.fun**2))),
            "n": int(t.size)}
