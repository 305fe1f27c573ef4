"""Recorded joint trajectories (CSV) as leg references (digest §7 item 11: "recorded trajectories (CSV)").

A log sampled at the controller rate has thousands of points; the compiled leg holds at most
:data:`._joint_kernels.NTAB` (64) knots per joint. :func:`knots_from_samples` picks the knots of a
piecewise-linear reference by greedy worst-point insertion: start from the first and last sample,
then repeatedly add the sample farthest from the current interpolant, until every sample lies
within ``tolerance`` of it. A log that needs more than 64 knots for the tolerance is refused
(InputError naming the file, the column and the deviation reached), never silently degraded.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, check_number, check_values, check_whole, lookup, shown
from ...identify.logs import read_log
from ._joint_kernels import NTAB
from .leg import JOINTS, JointReference

__all__ = ["knots_from_samples", "references_from_csv", "ANGLE_UNITS"]

ANGLE_UNITS = {"rad": 1.0, "deg": np.pi / 180.0}
DEFAULT_TOLERANCE = np.radians(0.1)
"""Largest deviation [rad] of the reduced reference from the recorded samples (0.1°)."""


def knots_from_samples(t, theta, tolerance: float = DEFAULT_TOLERANCE,
                       max_knots: int = NTAB) -> tuple[np.ndarray, float]:
    """Indices of the knots of a piecewise-linear fit to samples ``(t, θ)`` (n,), and its error.

    Returns ``(idx, err)``: sorted sample indices (first and last included, at most ``max_knots``)
    and the largest |θ_i − interp(t_i)| [same unit as θ] over all samples. Stops as soon as
    ``err <= tolerance``; if ``max_knots`` (>= 2) are used first, ``err`` is what they reach. ``t``
    strictly increasing, values within ±1e12.
    """
    o = "knots_from_samples"
    t = check_values(o, "t", t, lo=-1e12, hi=1e12).ravel()
    theta = check_values(o, "theta", theta, lo=-1e12, hi=1e12).ravel()
    if theta.size != t.size:
        raise InputError(f"{o}: 't' has {t.size} samples and 'theta' {theta.size}: expected as many")
    if np.any(np.diff(t) <= 0.0):
        raise InputError(f"{o}: 't' is not strictly increasing: expected sample times in order, each once")
    tolerance = check_number(o, "tolerance", tolerance, lo=0.0)
    max_knots = check_whole(o, "max_knots", max_knots, lo=2)
    chosen = [0, t.size - 1] if t.size > 1 else [0]
    while True:
        idx = np.array(sorted(set(chosen)))
        dev = np.abs(theta - np.interp(t, t[idx], theta[idx]))
        worst = int(np.argmax(dev))
        if dev[worst] <= tolerance or idx.size >= max_knots:
            return idx, float(dev[worst])
        chosen.append(worst)


def references_from_csv(path, time_column: str = "t", columns=JOINTS, unit: str = "rad",
                        tolerance: float = DEFAULT_TOLERANCE) -> tuple[JointReference, ...]:
    """Alpha, Beta, Gamma references from a CSV log with a header row.

    Parameters
    ----------
    path : the CSV file; ``time_column`` [s] (a column name) must increase strictly.
    columns : the three joint-angle column names (Alpha, Beta, Gamma order), a list or tuple.
    unit : "rad" or "deg" for the angle columns.
    tolerance : largest allowed deviation [rad] (a finite number > 0) of the 64-knot linear reference from
        the samples.

    Returns three linear :class:`JointReference` (held at the first/last sample outside the log).
    """
    o = "references_from_csv"
    lookup("unit", unit, list(ANGLE_UNITS), o)
    if not isinstance(time_column, str):
        raise InputError(f"{o}: 'time_column' = {shown(time_column)}, expected a column name")
    names = list(columns) if isinstance(columns, (list, tuple)) else []
    if len(names) != 3 or not all(isinstance(c, str) for c in names):
        raise InputError(f"{o}: 'columns' = {shown(columns)}, expected three column names (Alpha, Beta, "
                         "Gamma)")
    tolerance = check_number(o, "tolerance", tolerance, lo=0.0, lo_open=True)  # [rad]
    data = read_log(path, {time_column: "time_column", **{c: f"columns[{j}]" for j, c in enumerate(names)}})
    t = data[time_column]
    if t.size < 1:
        raise InputError(f"reference log '{path}' has no data rows")
    if not np.all(np.isfinite(t)):
        raise InputError(f"reference log '{path}', column '{time_column}': expected finite times")
    bad = np.flatnonzero(np.diff(t) <= 0.0)
    if bad.size:
        raise InputError(f"reference log '{path}', column '{time_column}': times must increase "
                         f"strictly (data row {bad[0] + 2} is {t[bad[0] + 1]!r} after {t[bad[0]]!r})")
    refs = []
    for name in columns:
        theta = data[name] * ANGLE_UNITS[unit]
        if not np.all(np.isfinite(theta)):
            raise InputError(f"reference log '{path}', column '{name}': expected finite angles")
        idx, err = knots_from_samples(t, theta, tolerance)
        if err > tolerance:
            raise InputError(
                f"reference log '{path}', column '{name}': {NTAB} linear segments reach "
                f"{np.degrees(err):.3f} deg from the samples, more than the tolerance "
                f"{np.degrees(tolerance):.3f} deg; smooth or shorten the log, or raise the tolerance")
        refs.append(JointReference(steps=tuple(zip(t[idx].tolist(), theta[idx].tolist(), strict=True)),
                                   interpolate="linear"))
    return tuple(refs)
