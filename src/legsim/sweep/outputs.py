"""The numbers a sweep keeps of each run: reductions of record columns and summary functions.

An output ``"COLUMN@REDUCTION"`` reduces one column of the run's records (the names of
:func:`legsim.io.results.record_columns`: ``t``, ``mode``, the states, then the model outputs, an
output that repeats a state's name prefixed ``out_``) to one number:

- ``final`` / ``initial``: the last / first record;
- ``min`` / ``max``: over all records;
- ``mean``: the time average, the trapezoid integral over the records divided by their time span
  (records at events make the spacing uneven, so a plain average of the records would be biased).

A summary function ``summary(result) -> dict`` (a :class:`legsim.hybrid.Result` in, names to numbers
or strings out) adds its own columns; it is given as a callable (pickled to the workers: a
module-level function) or as ``"package.module:function"`` / ``"path/to/file.py:function"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .._references import load_function as _load_function
from ..errors import InputError, closest, shown

__all__ = ["Output", "parse_outputs", "check_outputs", "reduce_outputs", "summary_ref", "load_function",
           "plain_value"]

REDUCTIONS = ("final", "initial", "min", "max", "mean")


@dataclass(frozen=True)
class Output:
    """One summary output: record ``column`` (a non-empty name) reduced by ``reduction`` (one of
    :data:`REDUCTIONS`; module docstring)."""

    column: str
    reduction: str

    def __post_init__(self):
        if not (isinstance(self.column, str) and self.column.strip()):
            raise InputError(f"Output: 'column' = {shown(self.column)}, expected a record column's name")
        if not (isinstance(self.reduction, str) and self.reduction in REDUCTIONS):
            raise InputError(f"Output: 'reduction' = {shown(self.reduction)}, expected one of "
                             f"{', '.join(REDUCTIONS)}{closest(self.reduction, REDUCTIONS)}")

    @property
    def name(self) -> str:
        """The table column: ``"COLUMN@REDUCTION"``."""
        return f"{self.column}@{self.reduction}"


def parse_outputs(specs: Sequence[str] | str | None) -> tuple[Output, ...]:
    """Parse ``["x@final", "y@max", ...]`` (a list or tuple of such specs, one spec, or None: none);
    InputError naming a malformed one."""
    if specs is None:
        return ()
    if isinstance(specs, str):
        specs = [specs]
    if not isinstance(specs, (list, tuple)):
        raise InputError(f"parse_outputs: 'specs' = {shown(specs)}, expected a list of output specs "
                         "COLUMN@REDUCTION, e.g. ['x@final', 'ydot@max']")
    out: list[Output] = []
    for spec in specs:
        if not isinstance(spec, str) or spec.count("@") != 1:
            raise InputError(f"outputs: {shown(spec)} is not COLUMN@REDUCTION, e.g. 'x@final' or 'ydot@max' "
                             f"(output specs; reductions: {', '.join(REDUCTIONS)})")
        column, reduction = (s.strip() for s in spec.split("@"))
        if reduction not in REDUCTIONS:
            raise InputError(f"outputs: {spec!r} has an unknown reduction {reduction!r}"
                             f"{closest(reduction, REDUCTIONS)}; allowed in output specs: "
                             f"{', '.join(REDUCTIONS)}")
        if not column:
            raise InputError(f"outputs: {spec!r} has an empty column name (output specs are "
                             "COLUMN@REDUCTION)")
        o = Output(column, reduction)
        if o not in out:
            out.append(o)
    return tuple(out)


def _outputs(owner: str, outputs: Any) -> tuple[Output, ...]:
    """``outputs`` as a tuple of :class:`Output` (what :func:`parse_outputs` returns), else an
    :class:`InputError` naming ``owner``."""
    if not (isinstance(outputs, (list, tuple)) and all(isinstance(o, Output) for o in outputs)):
        raise InputError(f"{owner}: 'outputs' = {shown(outputs)}, expected a list of Output (parse_outputs("
                         "['x@final', ...]) makes them)")
    return tuple(outputs)


def check_outputs(outputs: Sequence[Output], model: Any, where: str) -> None:
    """InputError unless every output's column is a record column of ``model`` (a hybrid Model);
    ``where`` (a string, e.g. "model 'slip'") names the model in the message."""
    from ..hybrid import Model
    from ..io.results import record_columns

    outputs = _outputs("check_outputs", outputs)
    if not isinstance(model, Model):
        raise InputError(f"check_outputs: 'model' is a {type(model).__name__}, expected a "
                         "legsim.hybrid.Model")
    if not isinstance(where, str):
        raise InputError(f"check_outputs: 'where' = {shown(where)}, expected a string (the model, for "
                         "messages)")
    columns = record_columns(model)
    for o in outputs:
        if o.column not in columns:
            raise InputError(f"output {o.name!r}: {where} records no column {o.column!r}"
                             f"{closest(o.column, columns)}; its columns: {', '.join(columns)}")


def _column(result: Any, name: str) -> Any:
    """Record column ``name`` of a Result (names of ``record_columns``)."""
    if name == "t":
        return result.t
    if name == "mode":
        return result.mode
    if name in result.state_names:
        return result.x[:, result.state_names.index(name)]
    base = name if name in result.output_names else name[4:]  # "out_x": output x beside state x
    return result.y[:, result.output_names.index(base)]


def _reduce(t: Any, v: Any, reduction: str) -> float:
    import numpy as np

    if v.size == 0:
        return math.nan
    if reduction == "final":
        return float(v[-1])
    if reduction == "initial":
        return float(v[0])
    if reduction == "min":
        return float(np.min(v))
    if reduction == "max":
        return float(np.max(v))
    span = float(t[-1] - t[0])
    if span <= 0.0:
        return float(v[-1])
    vf = np.asarray(v, dtype=float)
    return float(np.sum(0.5 * (vf[1:] + vf[:-1]) * np.diff(t)) / span)


def reduce_outputs(result: Any, outputs: Sequence[Output]) -> dict[str, float]:
    """``{"COLUMN@REDUCTION": value}`` of a run's :class:`legsim.hybrid.Result` (NaN for a run with no
    records); an InputError names an output whose column the result does not record."""
    from ..hybrid import Result

    if not isinstance(result, Result):
        raise InputError(f"reduce_outputs: 'result' is a {type(result).__name__}, expected a "
                         "legsim.hybrid.Result")
    from ..io.results import record_columns

    outputs = _outputs("reduce_outputs", outputs)
    columns = record_columns(result)
    for o in outputs:
        if o.column not in columns:
            raise InputError(f"reduce_outputs: 'outputs' holds {o.name!r}, but the result records no column "
                             f"{o.column!r}{closest(o.column, columns)}; its columns: {', '.join(columns)}")
    return {o.name: _reduce(result.t, _column(result, o.column), o.reduction) for o in outputs}


def summary_ref(summary: Callable[..., Any] | str | None) -> str | None:
    """A stable name of a summary function for the sweep's spec: ``"module:qualname"`` or the string."""
    if summary is None or isinstance(summary, str):
        return summary
    if not callable(summary):
        raise InputError(f"summary = {summary!r}: expected a function summary(result) -> dict or "
                         "'module:function'")
    return f"{getattr(summary, '__module__', '?')}:{getattr(summary, '__qualname__', repr(summary))}"


def load_function(ref: str, where: str = "summary") -> Callable[..., Any]:
    """The function ``"package.module:function"`` or ``"path/to/file.py:function"`` names (a file
    relative to the working folder, loaded once per process: a summary runs after every run); ``where``
    names the reference in messages (e.g. "summary", "sweep function")."""
    if not isinstance(where, str):
        raise InputError(f"load_function: 'where' = {shown(where)}, expected a string (what the function is, "
                         "for messages)")
    if not isinstance(ref, str):
        raise InputError(f"{where} = {shown(ref)}: expected 'package.module:function' or 'file.py:function'")
    return _load_function(ref, ".", where, reuse=True)


def plain_value(value: Any) -> Any:
    """A value a Parquet column holds: numpy scalars as Python numbers, arrays as lists, others as str (any
    value: a summary's NaN or inf, e.g. a reduction of no records, stays a float)."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    return str(value)
