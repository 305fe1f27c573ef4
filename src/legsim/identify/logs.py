"""Measured logs: CSV files with a header row of column names."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import InputError, shown
from ..userfiles import read_text, user_path

__all__ = ["read_log"]


def read_log(path, required: Sequence[str] | Mapping[str, str] = ()) -> dict[str, np.ndarray]:
    """Read a CSV log into ``{column name: float array}``.

    ``path`` a string or path-like naming the file; ``required`` a list of column names it must hold, or a
    dict column name -> what named it (a caller's argument, e.g. "time_column", for the message).
    A value "nan" (a missing sample) is NaN; an infinite one ("inf", or beyond the largest float) is refused.
    Raises InputError naming the file and the column when a required column is missing, and
    the file, column and row when a value is not a finite number.
    """
    p = user_path(path, "log file path")
    try:
        names = dict(required) if isinstance(required, Mapping) else (
            dict.fromkeys(required) if not isinstance(required, (str, bytes)) else None)
    except TypeError:  # not iterable, or a list of unhashable things
        names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise InputError(f"read_log: 'required' = {shown(required)}, expected a list of column names")
    reader = csv.reader(io.StringIO(read_text(p, "log file path"), newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise InputError(f"log file '{p}' is empty; expected a header row of column names") from None
    rows = [r for r in reader if r and any(c.strip() for c in r)]
    if not rows:
        raise InputError(f"log file '{p}' has a header row but no data rows")
    for name, what in names.items():
        if name not in header:
            by = f" (named by '{what}')" if what else ""
            raise InputError(f"log file '{p}' has no column '{name}'{by} (columns: {', '.join(header)})")
    data = {}
    for j, name in enumerate(header):
        col = np.empty(len(rows))
        for i, r in enumerate(rows):
            try:
                col[i] = float(r[j])
            except (ValueError, IndexError):
                raise InputError(f"log file '{p}', column '{name}', data row {i + 1}: "
                                 f"expected a number, got {r[j] if j < len(r) else '(missing)'!r}") from None
        for i in np.flatnonzero(np.isinf(col))[:1]:
            raise InputError(f"log file '{p}', column '{name}', data row {i + 1}: expected a finite number "
                             f"(or nan for a missing sample), got {rows[i][j]!r}")
        data[name] = col
    return data
