"""The logs the identification functions take, checked once."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats

__all__ = ["samples", "distinct", "MAX_SAMPLE"]

MAX_SAMPLE = 1e12
"""The largest magnitude of a logged value (SI: pressures of MPa, forces of kN, times of days are far
below; the fits' sums of squares overflow near 1e154)."""


def samples(owner: str, **named) -> list[np.ndarray]:
    """The named logs as 1-D float arrays of one length (at least one sample, all finite), else an
    :class:`InputError` naming ``owner`` and the log."""
    out: list[np.ndarray] = []
    for name, v in named.items():
        a = as_floats(v)
        if a.ndim > 1 and max(a.shape) != a.size:
            raise InputError(f"{owner}: '{name}' has shape {a.shape}: expected a 1-D log")
        a = a.ravel()
        if a.size == 0:
            raise InputError(f"{owner}: '{name}' has no samples: expected a log of at least one")
        if not np.all(np.abs(a) <= MAX_SAMPLE):
            raise InputError(f"{owner}: '{name}' = {v!r}: expected numbers within ±{MAX_SAMPLE:g} (a log)")
        if out and a.size != out[0].size:
            first = next(iter(named))
            raise InputError(f"{owner}: '{name}' has {a.size} samples and '{first}' {out[0].size}: expected "
                             f"logs of one length")
        out.append(a)
    return out


def distinct(owner: str, name: str, values: np.ndarray, need: int, purpose: str, kind: str = "value") -> None:
    """An :class:`InputError` unless ``values`` (n,) or rows of (n, m) holds at least ``need`` distinct
    entries (each a ``kind``): a fit of k parameters is not determined by fewer than k different abscissae."""
    n = np.unique(values, axis=0).shape[0]
    if n < need:
        raise InputError(f"{owner}: '{name}' has {n} distinct {kind}{'' if n == 1 else 's'}: {purpose} needs "
                         f"at least {need}")
