"""Python functions named by reference in user files and arguments: ``"package.module:function"``
(imported) or ``"file.py:function"`` (a file, relative to a base folder). One loader for the
controllers of scenarios and hardware files and the summary functions of sweeps; every failure is
an :class:`InputError` that names where the reference was given."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import InputError, closest, describe_failure, shown

__all__ = ["load_function"]


def load_function(ref: str, base_dir: str | Path = ".", where: str = "function", *, reuse: bool = False,
                  file_kind: str = "file") -> Callable[..., Any]:
    """The callable ``ref`` names. A ``file.py`` is executed as a fresh module on every call, so
    that module-level state never carries over from one run to the next, unless ``reuse`` (then the
    module loaded first for that path serves again). ``where`` opens every message;
    ``file_kind`` names the file in "not found" (e.g. "controller file")."""
    if not isinstance(where, str):
        raise InputError(f"load_function: 'where' = {shown(where)}, expected a string (what the reference "
                         "is)")
    if not isinstance(base_dir, (str, os.PathLike)):
        raise InputError(f"{where}: 'base_dir' = {shown(base_dir)}, expected a folder (a path)")
    module_ref, sep, func = ref.rpartition(":") if isinstance(ref, str) else ("", "", "")
    if not (sep and module_ref and func):
        raise InputError(f"{where} = {shown(ref)}: expected 'package.module:function' or 'file.py:function'")
    at = f"{where} = {ref!r}"
    module = _import(module_ref, Path(base_dir), at, reuse, file_kind)
    fn = getattr(module, func, None)
    if fn is None:
        public = [n for n in vars(module) if not n.startswith("_")]
        raise InputError(f"{at}: {module_ref} has no function {func!r}{closest(func, public)}")
    if not callable(fn):
        raise InputError(f"{at}: {func} is a {type(fn).__name__}, expected a function")
    return fn


def _import(module_ref: str, base_dir: Path, where: str, reuse: bool, file_kind: str) -> Any:
    if module_ref.endswith(".py"):
        path = (base_dir / module_ref).expanduser()
        if not path.is_file():
            raise InputError(f"{where}: {file_kind} '{path}' not found")
        name = f"_legsim_ref_{abs(hash(str(path.resolve())))}_{path.stem}"
        if reuse and name in sys.modules:
            return sys.modules[name]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise InputError(f"{where}: cannot load '{path}' as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the user's file does not run: say where and why
            del sys.modules[name]
            raise InputError(f"{where}: importing '{path}' failed: {describe_failure(exc)}") from None
        return module
    try:
        return importlib.import_module(module_ref)
    except ImportError as exc:
        beside = base_dir / (module_ref.replace(".", "/") + ".py")
        hint = f" (a file beside it is named '{beside.name}:...')" if beside.is_file() else ""
        raise InputError(f"{where}: cannot import module {module_ref!r}: {exc}{hint}") from None
    except Exception as exc:
        raise InputError(f"{where}: importing {module_ref!r} failed: {describe_failure(exc)}") from None
