"""General least-squares fit of any model parameter to a measured log.

``fit_parameters`` wraps ``scipy.optimize.least_squares`` around a user ``predict`` function
that maps a parameter dictionary to predictions at the log's sample times — typically a short
:func:`legsim.hybrid.simulate` run of a bench model read back at those times.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from ..errors import InputError

__all__ = ["FitResult", "fit_parameters"]


@dataclass
class FitResult:
    """Fitted ``params`` (name -> value), residual ``rms``, ``cost``, ``nfev`` and ``success``."""

    params: dict
    rms: float
    cost: float
    nfev: int
    success: bool
    message: str


def fit_parameters(predict: Callable[[dict], np.ndarray], measured, start: Mapping[str, float],
                   bounds: Mapping[str, tuple[float, float]] | None = None,
                   scale: Sequence[float] | np.ndarray | float = 1.0, fixed: Mapping | None = None,
                   **kwargs) -> FitResult:
    """Fit the parameters named in ``start`` so that ``predict(params)`` matches ``measured``.

    Parameters
    ----------
    predict : params dict -> predictions shaped like ``measured`` (e.g. (n,) or (n, m)).
    measured : array of measurements (NaN entries are ignored).
    start : initial values of the free parameters.
    bounds : optional (low, high) per free parameter.
    scale : residual weights' inverse (per column for 2-D data), e.g. the sensor noise level.
    fixed : other parameters passed unchanged to ``predict``.
    kwargs : passed to ``scipy.optimize.least_squares``.
    """
    names = list(start)
    if not names:
        raise InputError("fit_parameters: 'start' names no parameter to fit")
    meas = np.asarray(measured, dtype=float)
    ok = np.isfinite(meas)
    if ok.sum() < len(names):
        raise InputError(f"fit_parameters: 'measured' has {int(ok.sum())} finite values: fitting "
                         f"{len(names)} parameters ({', '.join(names)}) needs at least as many")
    bounds = dict(bounds or {})
    for k in bounds:
        if k not in start:
            raise InputError(f"fit_parameters: bound given for '{k}', which is not being fitted "
                             f"(free: {', '.join(names)})")
    lo = [bounds.get(n, (-np.inf, np.inf))[0] for n in names]
    hi = [bounds.get(n, (-np.inf, np.inf))[1] for n in names]
    sc = np.broadcast_to(np.asarray(scale, dtype=float), meas.shape)
    fixed = dict(fixed or {})

    def params_of(z):
        d = dict(fixed)
        d.update(zip(names, (float(v) for v in z), strict=True))
        return d

    def resid(z):
        pred = np.asarray(predict(params_of(z)), dtype=float)
        if pred.shape != meas.shape:
            raise InputError(f"fit_parameters: predict returned shape {pred.shape}, expected "
                             f"{meas.shape} like the measurements")
        r = (pred - meas) / sc
        return np.where(ok, r, 0.0).ravel()

    x0 = np.array([float(start[n]) for n in names])
    sol = least_squares(resid, x0, bounds=(lo, hi), **kwargs)
    n_ok = max(int(ok.sum()), 1)
    rms = float(np.sqrt(np.sum(sol.fun ** 2) / n_ok))
    return FitResult(params=dict(zip(names, map(float, sol.x), strict=True)), rms=rms,
                     cost=float(sol.cost),
                     nfev=int(sol.nfev), success=bool(sol.success), message=str(sol.message))
