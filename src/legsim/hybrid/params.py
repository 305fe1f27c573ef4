"""Units and allowed values of model parameters: declared once by each model, checked before
any compile or run, shown by ``legsim models NAME``.

A model maps parameter names to :class:`ParamRange` (``Model.param_ranges``); a name without an
entry takes any finite number. Rules that tie several parameters together (a stance time shorter
than the clock period, a positive-definite inertia) go in the model's ``check_params`` hook,
which :meth:`legsim.hybrid.Model.params` calls after the per-name ranges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError, as_floats, check_flag, real_number, shown

__all__ = ["ParamRange", "positive", "nonnegative", "between", "choice"]


@dataclass(frozen=True)
class ParamRange:
    """The unit and the allowed values of one parameter.

    ``low``/``high`` bound the value (``low_open``/``high_open``: the bound itself excluded);
    ``choices``, when given, lists the only allowed values (codes such as a terrain type).
    ``unit`` is an SI unit string ("kg", "N/m", "" for dimensionless); ``doc`` says what it is.
    The bounds are numbers (±inf: none) with ``low`` <= ``high`` (and some value between them), the
    choices finite numbers; anything else is an :class:`InputError` naming the field.
    """

    unit: str = ""
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    choices: tuple[float, ...] = ()
    doc: str = ""

    def __post_init__(self) -> None:
        o = "ParamRange"
        for name in ("unit", "doc"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"{o}: '{name}' = {shown(getattr(self, name))}, expected a str")
        low, high = real_number(o, "low", self.low), real_number(o, "high", self.high)
        low_open = check_flag(o, "low_open", self.low_open)
        high_open = check_flag(o, "high_open", self.high_open)
        if not (low < high or low == high and math.isfinite(low) and not (low_open or high_open)):
            raise InputError(f"{o}: 'low' = {shown(self.low)}, 'high' = {shown(self.high)}"
                             f"{' (ends excluded)' if low_open or high_open else ''}: no value is allowed")
        choices = self.choices
        if not (isinstance(choices, (list, tuple)) and len(choices) == 0):  # () : any value in the bounds
            a = as_floats(choices)
            if a.ndim != 1 or a.size == 0 or not all(map(math.isfinite, a.tolist())):
                raise InputError(f"{o}: 'choices' = {shown(choices)}, expected finite numbers (the allowed "
                                 "codes) or () for any value between the bounds")
            choices = tuple(a.tolist())
        for name, value in (("low", low), ("high", high), ("low_open", low_open), ("high_open", high_open),
                            ("choices", choices)):
            object.__setattr__(self, name, value)

    def allowed(self) -> str:
        """The allowed values in words, e.g. ``"> 0 kg"``, ``"in [0, 1]"``, ``"one of 0, 1"``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.choices:
            return "one of " + ", ".join(f"{c:g}" for c in self.choices)
        lo, hi = math.isfinite(self.low), math.isfinite(self.high)
        if lo and hi:
            return (f"in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}"
                    f"{')' if self.high_open else ']'}{unit}")
        if lo:
            return f"{'>' if self.low_open else '>='} {self.low:g}{unit}"
        if hi:
            return f"{'<' if self.high_open else '<='} {self.high:g}{unit}"
        return f"any finite number{unit and ' (' + self.unit + ')'}"

    def contains(self, value: float) -> bool:
        if not math.isfinite(value):
            return False
        if self.choices:
            return value in self.choices
        if value < self.low or (self.low_open and value == self.low):
            return False
        return not (value > self.high or (self.high_open and value == self.high))

    def check(self, value: float, where: str) -> None:
        """Raise :class:`InputError` naming ``where`` (file, table, key) unless ``value`` is allowed."""
        if not self.contains(value):
            doc = f" ({self.doc})" if self.doc else ""
            raise InputError(f"{where} = {value:g}: out of range, expected {self.allowed()}{doc}")


def positive(unit: str = "", doc: str = "") -> ParamRange:
    """A value > 0."""
    return ParamRange(unit, low=0.0, low_open=True, doc=doc)


def nonnegative(unit: str = "", doc: str = "") -> ParamRange:
    """A value >= 0."""
    return ParamRange(unit, low=0.0, doc=doc)


def between(low: float, high: float, unit: str = "", doc: str = "", *, open_low: bool = False,
            open_high: bool = False) -> ParamRange:
    """A value in [low, high] (ends excluded with ``open_low``/``open_high``)."""
    open_low = check_flag("between", "open_low", open_low)
    open_high = check_flag("between", "open_high", open_high)
    return ParamRange(unit, low=low, high=high, low_open=open_low, high_open=open_high, doc=doc)


def choice(*values: float, doc: str = "") -> ParamRange:
    """One of the listed codes (finite numbers, at least one)."""
    codes = as_floats(values)
    if codes.ndim != 1 or codes.size == 0 or not all(map(math.isfinite, codes.tolist())):
        raise InputError(f"choice: 'values' = {shown(values)}, expected one or more finite numbers (the "
                         "codes)")
    return ParamRange("", choices=tuple(codes.tolist()), doc=doc)
