"""Errors legsim reports to users.

`InputError` is a user mistake (bad file, key or value): the CLI prints its message without
a traceback (exit status 2). `SimulationError` is a run that could not continue; it carries the
time, mode and cause, and the records written up to that point stay on disk (exit status 1).
`Interrupted` is a run the user stopped with Ctrl-C (exit status 130).
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping, Sequence

__all__ = ["LegsimError", "InputError", "SimulationError", "Interrupted", "closest", "lookup", "as_float",
           "as_floats", "real_number", "check_number", "check_whole", "check_flag", "check_broadcast",
           "check_function", "check_text", "check_keywords", "check_echo", "check_array", "check_values",
           "check_fields", "describe_failure", "shown"]


def closest(name: str, choices: Sequence[str]) -> str:
    """A hint naming the valid choice closest to ``name`` (empty when none is close), for messages."""
    if not isinstance(name, str):
        return ""
    match = difflib.get_close_matches(name, [c for c in choices if isinstance(c, str)], n=1, cutoff=0.5)
    return f" (did you mean '{match[0]}'?)" if match else ""


def shown(value) -> str:
    """``repr(value)`` for a message; a whole number too long for Python to write (more than 4300 digits:
    repr raises, and the message itself would fail) as its size."""
    try:
        return repr(value)
    except ValueError:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        return f"{'-' if value < 0 else ''}<a whole number of about {digits} digits>"


def as_float(value) -> float:
    """``value`` as a float, or NaN when it is not a real number (a string, None, a bool, a sequence,
    an array of more than one value): for checks of user values whose message says what was expected
    (every such check refuses NaN, or tells it apart)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None:  # a numpy scalar or array (numpy is not imported here: the CLI starts without it)
        real = getattr(dtype, "kind", "") in ("i", "u", "f") and getattr(value, "ndim", 1) == 0
    else:
        real = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if not real:
        return math.nan
    try:
        return float(value)
    except OverflowError:  # an int beyond the largest float (10**400): a real number, not a finite one
        return math.inf if value > 0 else -math.inf


def as_floats(value):
    """``value`` as a float numpy array, or an empty one of NaN when it is not numbers (a string, even
    one of digits, None, a bool, a ragged list): for checks of user arrays, whose shape and finiteness
    test then refuses it with the caller's own message."""
    import numpy as np

    try:
        a = np.asarray(value)
        # numpy reads "111" as 111 and True as 1, also inside a list of numbers ([True, 1.0] is floats)
        if a.dtype.kind not in "iufO" or (a.dtype.kind == "O" or isinstance(value, (list, tuple))) and any(
                isinstance(v, (str, bytes, bool, np.bool_)) for v in _items(value)):
            return np.full(0, np.nan)
        return np.asarray(a, dtype=float)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an int beyond the largest float
        return np.full(0, np.nan)


def _items(value):
    """The leaves of nested lists and tuples (or a numpy object array's entries)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _items(v)
    elif getattr(value, "dtype", None) is not None and value.dtype.kind == "O":
        yield from value.flat
    else:
        yield value


def real_number(owner: str, name: str, value) -> float:
    """``value`` as a float (inf passes; NaN, a bool, a string or a sequence is refused), else an
    :class:`InputError` naming ``owner`` and ``name``."""
    v = as_float(value)
    if math.isnan(v):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a number")
    return v


def check_number(owner: str, name: str, value, *, lo: float = -math.inf, hi: float = math.inf,
                 lo_open: bool = False) -> float:
    """``value`` as a finite float in [lo, hi] (or (lo, hi] with ``lo_open``), else an
    :class:`InputError` naming ``owner`` and ``name``."""
    v = real_number(owner, name, value)
    if not (math.isfinite(v) and (v > lo if lo_open else v >= lo) and v <= hi):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a finite number in "
                         f"{'(' if lo_open else '['}{lo:g}, {hi:g}]")
    return v


def check_whole(owner: str, name: str, value, lo: int = 0, hi: int = 2**53) -> int:
    """``value`` as an int in [lo, hi]: a whole number (an int, a numpy integer, or a float with no
    fractional part; not a bool), else an :class:`InputError` naming ``owner`` and ``name``. The default
    ``hi`` is the largest count a float holds exactly (and compiled code's int64 takes); an int is
    compared and returned exactly (a seed up to 2**64 - 1 keeps every bit)."""
    v = as_float(value)
    if math.isfinite(v) and v == math.floor(v):
        whole = int(value)
        if lo <= whole <= hi:
            return whole
    expected = f">= {lo}" if hi == 2**53 else f"in [{lo}, {hi}]"
    raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a whole number {expected}")


def check_values(owner: str, name: str, value, *, lo: float = -math.inf, hi: float = math.inf,
                 lo_open: bool = False, unit: str = ""):
    """``value``, a number or an array of numbers, as a float numpy array (any shape, at least one
    entry) whose every entry is finite and in [lo, hi] (or (lo, hi] with ``lo_open``), else an
    :class:`InputError` naming ``owner`` and ``name``."""
    import numpy as np

    a = as_floats(value)
    if a.size == 0 or not (np.all(np.isfinite(a)) and np.all(a > lo if lo_open else a >= lo)
                           and np.all(a <= hi)):
        unit = f" [{unit}]" if unit else ""
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected finite numbers in "
                         f"{'(' if lo_open else '['}{lo:g}, {hi:g}]{unit}")
    return a


def check_broadcast(owner: str, **arrays) -> tuple[int, ...]:
    """The shape the named arrays (checked numpy arrays) broadcast to, else an :class:`InputError` naming
    ``owner``, the first array that does not fit and those before it."""
    import numpy as np

    shape: tuple[int, ...] = ()
    for i, (name, a) in enumerate(arrays.items()):
        try:
            shape = np.broadcast_shapes(shape, np.shape(a))
        except ValueError:
            before = ", ".join(f"'{n}'" for n in list(arrays)[:i])
            raise InputError(f"{owner}: '{name}' has shape {np.shape(a)}, which does not broadcast with the "
                             f"shape {shape} of {before}") from None
    return shape


def check_flag(owner: str, name: str, value) -> bool:
    """``value`` as a bool (a Python or numpy bool; not 0/1, a string or None), else an
    :class:`InputError` naming ``owner`` and ``name``."""
    dtype = getattr(value, "dtype", None)  # a numpy bool scalar (numpy is not imported here)
    numpy_bool = dtype is not None and getattr(dtype, "kind", "") == "b" and getattr(value, "ndim", 1) == 0
    if not (isinstance(value, bool) or numpy_bool):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected True or False")
    return bool(value)


def check_text(owner: str, name: str, value, hint: str = "") -> str:
    """``value``, a string of printable characters and line breaks (a figure's title: a control character
    or an unassigned code point has no glyph, which matplotlib warns of and draws as a box), else an
    :class:`InputError` naming ``owner`` and ``name`` (``hint``: what the empty string means, say)."""
    if not (isinstance(value, str) and value.replace("\n", "").isprintable()):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a string of printable characters"
                         f"{f' ({hint})' if hint else ''}")
    return value


def check_function(owner: str, name: str, value, expected: str = "a function"):
    """``value`` if it can be called, else an :class:`InputError` naming ``owner`` and ``name`` and saying
    what was ``expected`` (its arguments)."""
    if not callable(value):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {expected}")
    return value


def check_keywords(owner: str, name: str, value, valid: Sequence[str], what: str = "option") -> dict:
    """``value``, None or a mapping whose keys are among ``valid`` (keyword arguments passed on), as a dict
    ({} for None), else an :class:`InputError` naming ``owner`` and ``name`` (an unknown key with the
    closest valid one). The values are checked by whatever takes them."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected None or a mapping of "
                         f"{', '.join(valid)}")
    for key in value:
        if key not in valid:
            raise InputError(f"{owner}: '{name}' key {shown(key)} is no {what}{closest(key, valid)}; valid: "
                             f"{', '.join(valid)}")
    return dict(value)


def check_echo(owner: str, echo):
    """``echo``, a function of one string (``print``), else an :class:`InputError` naming ``owner``: the
    one check of every ``echo`` argument (the runner's, the sweep's, SimSect's, the warm-up's, the
    viewer's, the demos')."""
    return check_function(owner, "echo", echo, "a function of one string (print; lambda s: None for silence)")


def check_array(owner: str, name: str, value, shape: tuple[int, ...], unit: str = ""):
    """``value`` as a finite float numpy array of ``shape`` (a point (3,), flattened; a rotation (3, 3)),
    else an :class:`InputError` naming ``owner`` and ``name``."""
    import numpy as np

    arr = as_floats(value)
    if len(shape) == 1:
        arr = arr.ravel()
    if arr.shape != shape or not np.all(np.isfinite(arr)):
        size = str(shape[0]) if len(shape) == 1 else "x".join(map(str, shape))
        unit = f" [{unit}]" if unit else ""
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {size} finite numbers{unit}")
    return arr


def check_fields(owner: str, obj, *, positive=(), nonnegative=(), finite=(), positive_triples=()) -> None:
    """:func:`check_number` on the named fields of ``obj`` (a parameter dataclass): each a finite number
    > 0 (``positive``), >= 0 (``nonnegative``) or any (``finite``), or three numbers > 0
    (``positive_triples``: a box's sizes [m])."""
    for name in positive:
        check_number(owner, name, getattr(obj, name), lo=0.0, lo_open=True)
    for name in nonnegative:
        check_number(owner, name, getattr(obj, name), lo=0.0)
    for name in finite:
        check_number(owner, name, getattr(obj, name))
    for name in positive_triples:
        value = getattr(obj, name)
        items = list(value) if isinstance(value, (list, tuple)) or hasattr(value, "tolist") else []
        sizes = [as_float(v) for v in items]
        if len(sizes) != 3 or not all(math.isfinite(v) and v > 0.0 for v in sizes):
            raise InputError(f"{owner}: {name} = {shown(value)}, expected 3 finite numbers > 0 [m]")


def lookup(what: str, name: str, names: Sequence[str], owner: str,
           other: tuple[str, Sequence[str]] | None = None) -> int:
    """The index of ``name`` in ``names``; else an :class:`InputError` from ``owner`` naming ``what``
    it was, the closest valid name and all of them; or, when ``name`` is one of ``other`` (a kind, its
    names: the outputs beside the states), saying so."""
    names = list(names)
    if not isinstance(name, str):  # an array would make `in` ambiguous; a number is no name
        raise InputError(f"{owner}: {what} {shown(name)} is not a name (expected a string); valid: "
                         f"{', '.join(map(str, names))}")
    if name not in names and other is not None and name in other[1]:
        a = {True: "an", False: "a"}
        raise InputError(f"{owner}: {name!r} is {a[other[0][0] in 'aeiou']} {other[0]}, not "
                         f"{a[what[0] in 'aeiou']} {what}: use .{other[0]}({name!r})")
    try:
        return names.index(name)
    except ValueError:
        raise InputError(f"{owner}: {what} {name!r} does not exist{closest(name, names)}; "
                         f"valid: {', '.join(map(str, names))}") from None


class LegsimError(Exception):
    """Base class of the errors legsim reports to users."""


class InputError(LegsimError, ValueError):
    """Bad user input: the message names the file, key or value and what was expected."""


class SimulationError(LegsimError, RuntimeError):
    """A run stopped early. ``t``, ``mode`` and ``cause`` say where and why; ``result``
    holds everything recorded up to that point."""

    def __init__(self, message: str, *, t: float, mode: str, cause: str, result=None):
        super().__init__(message)
        self.t = t
        self.mode = mode
        self.cause = cause
        self.result = result


class Interrupted(SimulationError):
    """The user stopped a run (Ctrl-C); the records up to ``t`` are kept. The CLI exits with 130."""


def describe_failure(exc: BaseException) -> str:
    """What a user's code (a controller, a summary function) raised, for a one-line message: a legsim
    error's own message; any other exception's type and message, and the innermost line of the user's
    code it passed through (not legsim's, the standard library's or an installed package's), e.g.
    ``KeyError: 'imu' (/home/me/ctrl.py:12, in controller)``: from the CLI there is no traceback."""
    if isinstance(exc, LegsimError):
        return str(exc)
    import sysconfig
    import traceback
    from pathlib import Path

    paths = sysconfig.get_paths()
    library = tuple({str(Path(__file__).parent), paths["stdlib"], paths["purelib"], paths["platlib"]})
    mine = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(library)]
    where = f" ({mine[-1].filename}:{mine[-1].lineno}, in {mine[-1].name})" if mine else ""
    return f"{type(exc).__name__}: {exc}{where}"
