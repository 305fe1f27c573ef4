"""A controller named by reference in a scenario or a hardware file: ``"package.module:function"`` or
``"file.py:function"``, the function being the controller or, with parameters, its factory."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._references import load_function
from ..errors import InputError, closest, describe_failure, shown
from . import _values as V
from .controller import Controller, signature

__all__ = ["load_controller"]


def load_controller(ref: str, base_dir: str | Path = ".", params: Mapping[str, Any] | None = None,
                    where: str = "controller") -> Controller:
    """The controller ``ref`` names: ``"package.module:function"`` (imported) or
    ``"file.py:function"`` (a file relative to ``base_dir``). Without ``params`` the function is
    the controller, ``function(t, sensors) -> commands``; with ``params`` it is a factory,
    ``function(**params)`` returning the controller (unknown keys get the closest parameter)."""
    if not (params is None or isinstance(params, Mapping)):
        raise InputError(f"{where}: 'params' = {shown(params)}, expected None or a mapping of the factory's "
                         "parameters by name ([controller_params])")
    fn = load_function(ref, base_dir, where, file_kind="controller file")
    func = ref.rpartition(":")[2]
    if params is not None:
        _check_params(fn, params, f"{where} = {ref!r}: [controller_params]")
        try:
            fn = fn(**params)
        except Exception as exc:  # the user's factory refused its parameters
            raise InputError(f"{where} = {ref!r}: {func}(**controller_params) failed: "
                             f"{describe_failure(exc)}") from None
        if not callable(fn):
            raise InputError(f"{where} = {ref!r}: {func}(**controller_params) returned a "
                             f"{type(fn).__name__}, expected a function controller(t, sensors)")
    try:
        signature(fn).bind(0.0, None)
    except TypeError:
        if params is not None:
            raise InputError(f"{where} = {ref!r}: the function {func}(**controller_params) returns cannot "
                             "be called as controller(t, sensors)") from None
        raise InputError(f"{where} = {ref!r}: {func}() cannot be called as controller(t, sensors); if it "
                         "makes the controller, give its parameters in [controller_params] (an empty "
                         "table calls it without any)") from None
    return fn


def _check_params(fn: Callable[..., Any], params: Mapping[str, Any], where: str) -> None:
    """Every key of ``params`` is a parameter of the factory ``fn`` (unless it takes ``**kwargs``)."""
    ps = {p.name: p for p in signature(fn).parameters.values()}
    takes = [n for n, p in ps.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for key, value in params.items():
        if key not in takes:
            if any(p.kind == p.VAR_KEYWORD for p in ps.values()):
                continue
            raise InputError(f"{where} {key}: {getattr(fn, '__name__', 'the factory')}() takes no "
                             f"parameter {key!r}{closest(key, takes)}; it takes {', '.join(takes) or 'none'}")
        ann = ps[key].annotation  # a simple annotation (float, int, bool, str) is checked
        kind = V.KIND_OF.get(ann if isinstance(ann, str) else getattr(ann, "__name__", ""), "any")
        if kind in ("number", "int", "bool", "str") and not V.ok(kind, value):
            raise InputError(f"{where} {key} = {value!r}: expected {V.EXPECTED[kind]}")
