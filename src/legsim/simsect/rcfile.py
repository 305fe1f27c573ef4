"""SimSect init files: ``name = value`` lines (digest §1.2) and the engine symbols (§1.3).

A symbol name starts with a letter and holds letters, digits and ``_``; a value is a real
number or a double-quoted string; ``#`` starts a comment (a whole line, or the rest of a line
outside quotes). The ``=`` separator was lost in the manual's OCR, so ``name value`` is read
too. Later lines replace earlier ones (``SS_PutSymbol``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..userfiles import read_text

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
    """Parse init-file text into a symbol table (aliases resolved to their canonical names)."""
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
        if value.startswith('"'):
            parsed: float | str = bytes(value[1:-1], "utf-8").decode("unicode_escape")
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


def _fmt(value: float | str) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(float(value))


def format_rc(values: dict[str, float | str], header: str = "") -> str:
    """Init-file text for name -> value pairs (exact round trip of floats via repr)."""
    lines = [f"# {h}" for h in header.splitlines()] if header else []
    lines += [f"{name} = {_fmt(v)}" for name, v in values.items()]
    return "\n".join(lines) + "\n"


def write_rc(path: str | Path, values: dict[str, float | str], header: str = "") -> None:
    """Write an init file that :func:`read_rc` reads back to the same values."""
    Path(path).write_text(format_rc(values, header))
