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

from ..errors import InputError
from ._samples import distinct

__all__ = ["fit_hop_heights"]


def fit_hop_heights(valve_ms, heights, p_gauge, *, preset: str = "spool", fit_latency: bool = False,
                    **bench_kw) -> dict:
    """Fit the hop bench's valve to hops.

    Parameters
    ----------
    valve_ms : (n,) valve (energise) times [ms]; heights : (n,) apex rises [m]; p_gauge : (n,) or one
        tank pressure [Pa gauge]. preset : "spool" (fits ``cfa`` = C_f A_v [m^2]) or "rubber" (fits
        ``cv``). fit_latency : also fit the valve latency [s]. ``bench_kw`` go to ``HopBench``
        (``exhaust``, ``friction``, parameter overrides).

    Returns {"cfa" or "cv": value, "latency": [s], "rms": height residual rms [m], "n": points}.
    """
    from scipy.optimize import least_squares

    from ..robots.pneumatic_rig.hop import PARAM_NAMES, HopBench

    t = np.asarray(valve_ms, dtype=float).ravel()
    h = np.asarray(heights, dtype=float).ravel()
    p = np.broadcast_to(np.asarray(p_gauge, dtype=float), t.shape).copy()
    if t.size < 1 + fit_latency or h.shape != t.shape:
        raise InputError(f"fit_hop_heights: {t.size} valve times and {h.size} heights: expected the same "
                         f"number, at least {1 + fit_latency}")
    if not (np.all(np.isfinite(t)) and np.all(t >= 0) and np.all(np.isfinite(h)) and np.all(h >= 0)
            and np.all(np.isfinite(p)) and np.all(p > 0)):
        raise InputError("fit_hop_heights: valve times [ms], heights [m] and pressures [Pa gauge] must be "
                         "finite and >= 0 (pressures > 0)")
    if fit_latency:
        distinct("fit_hop_heights", "valve_ms", np.column_stack([t, p]), 2,
                 "fitting the flow rating and the latency (hops differing in valve time or pressure)")
    if preset not in ("spool", "rubber"):
        raise InputError(f"fit_hop_heights: preset = {preset!r}, expected 'spool' or 'rubber'")
    bench = HopBench(preset, **bench_kw)
    name = "cfa" if preset == "spool" else "cv"
    k = PARAM_NAMES.index(name)
    valve0 = bench.valve
    x0 = [np.log(bench.base[k])] + ([np.log(valve0.latency)] if fit_latency else [])

    def model(x):
        bench.base[k] = np.exp(x[0])
        if fit_latency:
            bench.valve = dataclasses.replace(valve0, latency=float(np.exp(x[1])))
        return np.array([bench.fire(ti, pi).height for ti, pi in zip(t, p, strict=True)])

    sol = least_squares(lambda x: model(x) - h, x0, diff_step=1e-3, xtol=1e-8)
    latency = float(np.exp(sol.x[1])) if fit_latency else valve0.latency
    return {name: float(np.exp(sol.x[0])), "latency": latency, "rms": float(np.sqrt(np.mean(sol.fun**2))),
            "n": int(t.size)}
