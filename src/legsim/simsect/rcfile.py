"""SimSect init files: ``name = value`` lines (digest §1.2) and the engine symbols (§1.3).

A symbol name starts with a letter and holds letters, digits and ``_``; a value is a real
number or a double-quoted string; ``#`` starts a comment (a whole line, or the rest of a line
outside quotes). The ``=`` separator was lost in the manual's OCR, so ``name value`` is read
too. Later lines replace earlier ones (``SS_PutSymbol``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, as_float, shown
from ..userfiles import output_file, read_text, write_text

__all__ = ["Symbol", "ENGINE_DEFAULTS", "ALIASES", "parse_rc", "read_rc", "format_rc", "write_rc"]


@dataclass(frozen=True)
class Symbol:
    """One symbol-table entry: its value (float or str) and where it was set."""

    value: float | str
    line: int = 0

    @property
    def is_string(self) -> bool:
        return isinstance(self.value, str)


ENGINE_DEFAULTS: dict[str, float | str] = {
    "systemName": "hexapod",
    "dataBaseName": "SimSect",
    "useGeomview": 0.0,
    "stopPrecision": 1e-10,
    "maxStopIter": 128.0,
    "recordPeriod": 0.0,
    "measurePeriod": 0.0,
    "maxChartCount": 128.0,
    "finalTime": 1.0,
    "tolerance": 1e-4,
    "maxTimeStep": 1e-2,
    "minTimeStep": 1e-15,
    "power": 0.33,
}
"""SimSect's integrator symbols and defaults (digest §1.3). ``useGeomview`` defaults to 0: the
manual says both 0 and 1; legsim has no Geomview link, so the symbol is accepted and ignored."""

LEGSIM_EXTENSIONS: dict[str, float | str] = {
    "integrator": "rk4",
    "slidingMode": 1.0,
    "samplePeriod": 0.0,
}
"""Symbols legsim adds: ``integrator`` (rk4 = SimSect's adaptive RK4, dp45, rk4_fixed),
``slidingMode`` (1: integrate Filippov sliding instead of chattering; 0: SimSect's behaviour)."""

ALIASES = {"maxStopIterations": "maxStopIter", "rkPower": "power"}
"""Both spellings the manual uses (§1.3: Figure 1 vs the symbol table)."""

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_LINE = re.compile(r"""^\s*(?P<name>[^\s=#]+)\s*(?:=\s*|\s+)"""
                   r"""(?P<value>"(?:[^"\\]|\\.)*"|[^#\s="][^#\s]*)\s*(?:\#.*)?$""")


def parse_rc(text: str, source: str = "<string>") -> dict[str, Symbol]:
    """Parse init-file text into a symbol table (aliases resolved to their canonical names); ``source``
    names the text in messages (a file's path)."""
    for name, value in (("text", text), ("source", source)):
        if not isinstance(value, str):
            raise InputError(f"parse_rc: '{name}' = {shown(value)}, expected a string")
    table: dict[str, Symbol] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        m = _LINE.match(raw)
        if not m:
            raise InputError(f"{source}:{lineno}: cannot read '{stripped}': expected "
                             "'name = value' with a number or a \"quoted string\"")
        name, value = m.group("name"), m.group("value")
        if not _NAME.match(name):
            raise InputError(f"{source}:{lineno}: '{name}' is not a symbol name (a letter, then "
                             "letters, digits or '_')")
        name = ALIASES.get(name, name)
        if value.startswith('"'):  # backslash escapes decoded; other letters (UTF-8 text) kept as they are
            escaped = value[1:-1].encode("latin-1", "backslashreplace")
            try:
                parsed: float | str = escaped.decode("unicode_escape")
            except UnicodeDecodeError as exc:
                raise InputError(f"{source}:{lineno}: value of '{name}' is {value}: {exc.reason} (a "
                                 "backslash starts an escape such as \\n, \\\" or \\\\)") from None
        else:
            try:
                parsed = float(value)
            except ValueError:
                raise InputError(f"{source}:{lineno}: value of '{name}' is '{value}': expected a "
                                 "real number or a \"quoted string\"") from None
            if not math.isfinite(parsed):
                raise InputError(f"{source}:{lineno}: value of '{name}' is '{value}': expected a "
                                 "finite real number")
        table[name] = Symbol(parsed, lineno)
    return table


def read_rc(path: str | Path) -> dict[str, Symbol]:
    """Read an init file (``SS_LoadInitFile``)."""
    return parse_rc(read_text(path, "init file"), str(path))


def _fmt(name, value) -> str:
    """``name = value`` of one symbol: a symbol name, and a finite real number or a string."""
    if not (isinstance(name, str) and _NAME.match(name)):
        raise InputError(f"format_rc: 'values' has the key {shown(name)}, expected a symbol name (a letter, "
                         "then letters, digits or '_')")
    if isinstance(value, str):  # as parse_rc decodes it: backslash escapes (a newline, a non-ASCII letter)
        return f'{name} = "' + value.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    number = as_float(value)
    if not math.isfinite(number):
        raise InputError(f"format_rc: 'values'[{name!r}] = {shown(value)}, expected a finite real number "
                         "or a string")
    return f"{name} = {number!r}"


def format_rc(values: Mapping[str, float | str], header: str = "") -> str:
    """Init-file text for name -> value pairs (exact round trip of floats via repr), after ``header``'s
    lines as comments."""
    if not isinstance(values, Mapping):
        raise InputError(f"format_rc: 'values' = {shown(values)}, expected a mapping of symbol names to "
                         "numbers or strings")
    if not isinstance(header, str):
        raise InputError(f"format_rc: 'header' = {shown(header)}, expected a string")
    lines = [f"# {h}" for h in header.splitlines()]
    lines += [_fmt(name, v) for name, v in values.items()]
    return "\n".join(lines) + "\n"


def write_rc(path: str | Path, values: Mapping[str, float | str], header: str = "") -> None:
    """Write an init file that :func:`read_rc` reads back to the same values (its directory made)."""
    text = format_rc(values, header)
    write_text(output_file(path, "the init file", "path"), text, "the init file", "path")
