"""General least-squares fit of any model parameter to a measured log.

``fit_parameters`` wraps ``scipy.optimize.least_squares`` around a user ``predict`` function
that maps a parameter dictionary to predictions at the log's sample times — typically a short
:func:`legsim.hybrid.simulate` run of a bench model read back at those times.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import least_squares

from ..errors import (
    InputError,
    LegsimError,
    as_float,
    as_floats,
    check_number,
    check_values,
    describe_failure,
    shown,
)
from ._samples import MAX_SAMPLE

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
    predict : params dict -> predictions shaped like ``measured`` (e.g. (n,) or (n, m)), finite and
        within ±MAX_SAMPLE (1e12) where ``measured`` is; an exception it raises (other than legsim's own
        errors) becomes an InputError naming it and the parameters it was given.
    measured : array of measurements within ±MAX_SAMPLE (NaN entries are ignored).
    start : initial values of the free parameters (name -> finite number).
    bounds : optional (low, high) per free parameter, low < high (±inf: no bound), around its start.
    scale : residual weights' inverse (per column for 2-D data), e.g. the sensor noise level: numbers
        in [1/MAX_SAMPLE, MAX_SAMPLE] broadcasting to ``measured``.
    fixed : other parameters passed unchanged to ``predict`` (a dict of names not in ``start``).
    kwargs : passed to ``scipy.optimize.least_squares``.
    """
    o = "fit_parameters"
    if not callable(predict):
        raise InputError(f"{o}: 'predict' = {shown(predict)}, expected a function of the parameter dict")
    meas = as_floats(measured)
    if meas.size == 0 or np.any(np.abs(meas) > MAX_SAMPLE):  # NaN (ignored) passes
        raise InputError(f"{o}: 'measured' = {shown(measured)}, expected numbers within ±{MAX_SAMPLE:g} "
                         "(NaN: ignored)")
    start = _named(o, "start", start)
    names = list(start)
    if not names:
        raise InputError("fit_parameters: 'start' names no parameter to fit")
    for n in names:
        check_number(o, f"start['{n}']", start[n])
    ok = np.isfinite(meas)
    if ok.sum() < len(names):
        raise InputError(f"fit_parameters: 'measured' has {int(ok.sum())} finite values: fitting "
                         f"{len(names)} parameters ({', '.join(names)}) needs at least as many")
    bounds = _named(o, "bounds", bounds)
    for k in bounds:
        if k not in start:
            raise InputError(f"fit_parameters: bound given for '{k}', which is not being fitted "
                             f"(free: {', '.join(names)})")
        _bound(o, k, bounds[k], start[k])
    lo = [bounds.get(n, (-np.inf, np.inf))[0] for n in names]
    hi = [bounds.get(n, (-np.inf, np.inf))[1] for n in names]
    sc = check_values(o, "scale", scale, lo=1.0 / MAX_SAMPLE, hi=MAX_SAMPLE)
    try:
        sc = np.broadcast_to(sc, meas.shape)
    except ValueError:
        raise InputError(f"{o}: 'scale' has shape {sc.shape}, which does not broadcast to the shape "
                         f"{meas.shape} of 'measured'") from None
    fixed = _named(o, "fixed", fixed)
    for k in fixed:
        if k in start:
            raise InputError(f"{o}: 'fixed' holds '{k}', which is being fitted (in 'start')")

    def params_of(z):
        d = dict(fixed)
        d.update(zip(names, (float(v) for v in z), strict=True))
        return d

    def resid(z):
        params = params_of(z)
        try:
            pred = as_floats(predict(params))
        except LegsimError:
            raise
        except Exception as exc:  # the user's function: one line naming it and what it was given
            raise InputError(f"{o}: 'predict' failed at {params} (from 'start' and 'fixed'): "
                             f"{describe_failure(exc)}") from exc
        if pred.shape != meas.shape:
            raise InputError(f"fit_parameters: 'predict' returned shape {pred.shape}, expected the shape "
                             f"{meas.shape} of 'measured'")
        if not np.all(np.abs(pred[ok]) <= MAX_SAMPLE):
            raise InputError(f"{o}: 'predict' returned values that are not finite numbers within "
                             f"±{MAX_SAMPLE:g} at {params}")
        r = (pred - meas) / sc
        return np.where(ok, r, 0.0).ravel()

    x0 = np.array([float(start[n]) for n in names])
    sol = least_squares(resid, x0, bounds=(lo, hi), **kwargs)
    n_ok = max(int(ok.sum()), 1)
    rms = float(np.sqrt(np.sum(sol.fun ** 2) / n_ok))
    return FitResult(params=dict(zip(names, map(float, sol.x), strict=True)), rms=rms,
                     cost=float(sol.cost),
                     nfev=int(sol.nfev), success=bool(sol.success), message=str(sol.message))


def _named(owner: str, name: str, value) -> dict:
    """``value`` (a mapping of parameter names, or None: none) as a dict, else an :class:`InputError`."""
    if value is None:
        return {}
    if not (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a dict of parameter names")
    return dict(value)


def _bound(owner: str, key: str, bound, start) -> None:
    """An :class:`InputError` unless ``bound`` is (low, high), low < high (±inf: none), holding ``start``."""
    pair = list(bound) if isinstance(bound, (tuple, list, np.ndarray)) else []
    lo, hi = (as_float(v) for v in pair) if len(pair) == 2 else (math.nan, math.nan)
    if not lo < hi:
        raise InputError(f"{owner}: 'bounds['{key}']' = {shown(bound)}, expected (low, high) with low < high "
                         "(±inf: no bound)")
    if not lo <= float(start) <= hi:
        raise InputError(f"{owner}: 'start['{key}']' = {shown(start)} is outside 'bounds['{key}']' = "
                         f"{shown(bound)}")
