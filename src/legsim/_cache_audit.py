"""Compiled functions that numba keeps in more than one signature: a development aid for compile time
(DESIGN.md "One compiled variant per kernel").

numba compiles a function once per tuple of argument types. A read-only array, a literal constant
(``Literal[int](1)``) or another dispatcher passed as an argument each make a new signature, so a kernel
can be compiled twice without anyone noticing. Run a workload with a fresh ``LEGSIM_CACHE_DIR`` (or the
test suite), then::

    python -m legsim._cache_audit [DIR]

lists, for each function whose cache index under ``DIR`` (default: legsim's kernel cache,
:func:`legsim._numba_cache.cache_root`) holds several signatures, how many and the argument positions
where they differ.
"""

from __future__ import annotations

import os
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

from ._numba_cache import cache_root

__all__ = ["Duplicate", "duplicate_signatures", "main"]


@dataclass(frozen=True)
class Duplicate:
    """A function compiled in ``count`` signatures; ``differences``: (argument position, the distinct
    type names there), for the positions where the signatures differ (empty if their lengths do)."""

    function: str
    count: int
    differences: tuple[tuple[int, tuple[str, ...]], ...]


def _signatures(index: Path) -> list[tuple]:
    with open(index, "rb") as fh:
        pickle.load(fh)  # numba's version stamp
        _stamp, overloads = pickle.loads(fh.read())
    return [key[0] for key in overloads]


def duplicate_signatures(root: str | os.PathLike) -> list[Duplicate]:
    """Every function with more than one signature in the numba cache indexes (``*.nbi``) under ``root``,
    most signatures first."""
    out = []
    for index in sorted(Path(root).rglob("*.nbi")):
        sigs = _signatures(index)
        if len(sigs) < 2:
            continue
        diffs: list[tuple[int, tuple[str, ...]]] = []
        if len({len(s) for s in sigs}) == 1:
            for pos, types in enumerate(zip(*sigs, strict=True)):
                names = tuple(sorted({str(t) for t in types}))
                if len(names) > 1:
                    diffs.append((pos, names))
        out.append(Duplicate(index.name.split(".py")[0], len(sigs), tuple(diffs)))
    return sorted(out, key=lambda d: -d.count)


def _short(name: str, width: int = 70) -> str:
    return name if len(name) <= width else f"{name[:width // 2 - 2]} .. {name[-(width // 2 - 2):]}"


def main(argv: list[str] | None = None) -> int:
    """Print :func:`duplicate_signatures` of the cache under ``argv[0]`` (see the module docstring)."""
    args = sys.argv[1:] if argv is None else argv
    root = args[0] if args else str(cache_root())
    dups = duplicate_signatures(root)
    for d in dups:
        print(f"{d.function}: {d.count} signatures")
        for pos, names in d.differences:
            print(f"    argument {pos}: " + " | ".join(_short(n) for n in names))
    print(f"{len(dups)} functions with more than one signature under {root}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
