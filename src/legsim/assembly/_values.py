"""Kinds of TOML value a part's parameter takes, read from its annotations (shared by the hardware-file
and controller-reference loaders)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["KIND_OF", "EXPECTED", "is_number", "ok", "params"]

# a parameter's annotation -> the kind of TOML value it takes
KIND_OF = {"float": "number", "float | None": "number", "int": "int", "bool": "bool", "str": "str",
            "str | None": "str", "tuple": "vector",
            "Sequence[str]": "names", "Sequence[str] | None": "names", "Sequence[float]": "vector",
            "Sequence[Sequence[float]]": "matrix", "Measurement": "table",
            "Measurement | None": "table", "Mapping[str, Measurement] | tuple": "table"}
EXPECTED = {"number": "a number", "int": "a whole number", "bool": "true or false",
             "str": "a quoted string", "names": "a name or a list of names", "table": "a table",
             "vector": "a list of numbers", "matrix": "a list of lists of numbers"}


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def ok(kind: str, v: Any) -> bool:
    if kind == "number":
        return is_number(v)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "str":
        return isinstance(v, str)
    if kind == "names":
        return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
    if kind == "table":
        return isinstance(v, dict)
    if kind == "vector":
        return isinstance(v, list) and all(is_number(x) for x in v)
    if kind == "matrix":
        return isinstance(v, list) and all(ok("vector", r) for r in v)
    return True


def params(make: Callable[..., Any], skip: tuple[str, ...]) -> dict[str, tuple[str, bool]]:
    """``make``'s keyword parameters (those not in ``skip``): name -> (kind of value, required)."""
    out = {}
    for p in inspect.signature(make).parameters.values():
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        ann = p.annotation if isinstance(p.annotation, str) else ""
        kind = KIND_OF.get(ann) or ("bool" if isinstance(p.default, bool) else "number" if not ann
                                     else "any")
        out[p.name] = (kind, p.default is p.empty)
    return out
