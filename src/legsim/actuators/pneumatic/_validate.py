"""Input checks shared by the public pneumatic wrappers (raise InputError naming the value)."""

from __future__ import annotations

import dataclasses
import math
from enum import IntEnum

import numpy as np

from ...errors import InputError, lookup, shown


def as_array(name: str, value, *, minimum: float | None = 0.0, strict: bool = False) -> np.ndarray:
    """``value`` as a float64 array; InputError when non-finite or below ``minimum``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the largest float
        raise InputError(f"{name}: expected a real number or array, got {shown(value)}") from None
    if arr.ndim == 0:  # a number: checked in Python floats (numpy's reductions cost ~4 µs a call)
        v = float(arr)
        if math.isfinite(v) and (minimum is None or (v > minimum if strict else v >= minimum)):
            return arr
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: expected finite values, got {_show(arr[~np.isfinite(arr)])}")
    if minimum is not None:
        bad = arr <= minimum if strict else arr < minimum
        if bad.any():
            rel = ">" if strict else ">="
            raise InputError(f"{name}: expected values {rel} {minimum:g}, got {_show(arr[bad])}")
    return arr


def in_range(name: str, value, lo: float, hi: float) -> np.ndarray:
    """``value`` as an array; InputError naming the offending entries outside [lo, hi]."""
    arr = as_array(name, value, minimum=None)
    bad = (arr < lo) | (arr > hi)
    if bad.any():
        raise InputError(f"{name}: expected values in [{lo:g}, {hi:g}], got {_show(arr[bad])}")
    return arr


def _show(bad: np.ndarray) -> str:
    vals = np.atleast_1d(bad).ravel()
    txt = ", ".join(f"{v:g}" for v in vals[:3])
    return txt + (f" (and {vals.size - 3} more)" if vals.size > 3 else "")


def broadcast_flat(*arrays: np.ndarray) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """Broadcast arrays together; return the common shape and contiguous 1-D copies."""
    try:
        b = np.broadcast_arrays(*arrays)
    except ValueError as exc:
        shapes = ", ".join(str(np.shape(a)) for a in arrays)
        raise InputError(f"arrays do not broadcast together: shapes {shapes}") from exc
    shape = b[0].shape
    return shape, [np.ascontiguousarray(a, dtype=np.float64).ravel() for a in b]


def finish(out: np.ndarray, shape: tuple[int, ...]):
    """Reshape a flat result; return a Python float for scalar input."""
    res = out.reshape(shape)
    return float(res) if res.ndim == 0 else res


def check_member(owner: str, name: str, value, enum: type[IntEnum]) -> None:
    """An :class:`InputError` naming ``owner`` and ``name`` unless ``value`` is a member of ``enum`` or its
    whole-number value (an int or a numpy integer; not a bool, a float or a string)."""
    if not (isinstance(value, (int, np.integer)) and not isinstance(value, bool)
            and int(value) in {int(m) for m in enum}):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a {enum.__name__} "
                         f"({', '.join(m.name for m in enum)})")


def replaced(owner: str, obj, changes: dict):
    """A copy of the dataclass ``obj`` with ``changes`` (its own ``__post_init__`` checks the values);
    an :class:`InputError` from ``owner`` naming a key that is none of its fields."""
    names = [f.name for f in dataclasses.fields(obj)]
    for key in changes:
        lookup("field", key, names, owner)
    return dataclasses.replace(obj, **changes)
