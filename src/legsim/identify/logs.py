"""Measured logs: CSV files with a header row of column names."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..userfiles import read_text

__all__ = ["read_log"]


def read_log(path, required: Sequence[str] = ()) -> dict[str, np.ndarray]:
    """Read a CSV log into ``{column name: float array}``.

    Raises InputError naming the file and the column when a required column is missing, and
    the file, column and row when a value is not a number.
    """
    p = Path(path)
    reader = csv.reader(io.StringIO(read_text(p, "log file"), newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise InputError(f"log file '{p}' is empty; expected a header row of column names") from None
    rows = [r for r in reader if r and any(c.strip() for c in r)]
    if not rows:
        raise InputError(f"log file '{p}' has a header row but no data rows")
    for name in required:
        if name not in header:
            raise InputError(f"log file '{p}' has no column '{name}' (columns: {', '.join(header)})")
    data = {}
    for j, name in enumerate(header):
        col = np.empty(len(rows))
        for i, r in enumerate(rows):
            try:
                col[i] = float(r[j])
            except (ValueError, IndexError):
                raise InputError(f"log file '{p}', column '{name}', data row {i + 1}: "
                                 f"expected a number, got {r[j] if j < len(r) else '(missing)'!r}") from None
        data[name] = col
    return data
