"""legsim's compile cache: where numba keeps legsim's compiled kernels, and when an entry is stale.

numba's ``cache=True`` keys each function on its own source file and keeps it beside that file
(``__pycache__``). Two things follow that a user feels (issue 20):

* a compiled function carries the machine code of the functions it calls from other files, and the
  constants it imports from them: after an edit of such a file, or an upgrade that changes it but not
  the caller's, numba loads the caller's old entry, stale code and all;
* every install compiles anew: a second virtual environment, a fresh clone, a reinstall of the same
  version each pay the minute of compiling that a robot from parts costs.

So legsim's own kernels are cached by :class:`numba's locator <numba.core.caching._CacheLocator>` of
its own (installed by :func:`install` when numba is imported; other code keeps numba's locators):

* one directory per user, shared by every install (:func:`cache_root`: ``~/.cache/legsim/kernels``
  on Linux, or ``LEGSIM_CACHE_DIR``, or ``legsim/`` in ``NUMBA_CACHE_DIR``);
* inside it, a module's entries live under its path in the package and its *closure stamp*
  (``assembly/_hooks-<16 hex>/``): a hash of the module's source and of the source of every
  legsim module it imports, directly or through others (:func:`closure`, read from the import
  statements), and, for a function given globals or closure cells of its own, of the modules they hold
  (:func:`bound_modules`). An edit anywhere in what a kernel can call or read gives it a new
  directory, so no entry is ever stale; an install whose files are the same finds the entries another
  install made.
* a module's directories unused for a day, beyond its :data:`KEEP` most recently used, are removed
  when it gets a new one.

If the cache directory cannot be written, numba's own locators take over (beside the sources, with
per-file stamps); ``assembly._layout.STAMP`` still refuses stale assembly hooks there.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import os
import re
import shutil
import sys
import time
from functools import cache
from pathlib import Path
from types import ModuleType

PACKAGE_DIR = Path(__file__).resolve().parent
"""The ``legsim`` package directory whose modules this cache serves."""

KEEP = 3
"""Closure directories kept per module however long unused: when a new one is made, the others beyond
the :data:`KEEP` most recently used are removed if unused for :data:`UNUSED` seconds."""

UNUSED = 86400.0
"""How long [s] a closure directory must have gone unused before it may be removed. A process marks each
directory it uses (its modification time) when it first uses it; a module can have several in use at
once (``assembly.compiled``'s copies, one per controller's modules), so only age tells an abandoned one."""

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)|import[ \t]+([^\n]+))", re.M)
"""An import statement at the start of a line: (from-module, its names) or (None, None, plain names)."""


def cache_root() -> Path:
    """The directory of legsim's compiled kernels: ``LEGSIM_CACHE_DIR``; else ``legsim/`` in
    ``NUMBA_CACHE_DIR`` (a user who points numba's cache somewhere means legsim's too); else
    ``kernels/`` in the platform's user cache directory for legsim (``~/.cache/legsim`` on Linux)."""
    if os.environ.get("LEGSIM_CACHE_DIR"):
        return Path(os.environ["LEGSIM_CACHE_DIR"]).expanduser()
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]).expanduser() / "legsim"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("legsim", appauthor=False)) / "kernels"


def module_name(py_file: str | os.PathLike) -> str | None:
    """The dotted name of the legsim module in ``py_file``, or None for a file outside the package."""
    return _module_name(os.fspath(py_file))


@cache
def _module_name(py_file: str) -> str | None:
    path = Path(py_file).resolve()
    try:
        rel = path.relative_to(PACKAGE_DIR.parent)
    except ValueError:
        return None
    if rel.suffix != ".py" or rel.parts[0] != PACKAGE_DIR.name:
        return None
    parts = list(rel.with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _module_file(name: str) -> Path | None:
    """The source file of the legsim module ``name`` (a module or a package's ``__init__``), or None."""
    base = PACKAGE_DIR.parent.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def _source(path: Path) -> bytes:
    return path.read_bytes()


@cache
def imports(name: str) -> frozenset[str]:
    """The legsim modules whose names the module ``name``'s import statements bind, wherever they stand
    (a function's own imports too): ``from .a import b`` gives ``…a.b`` when ``b`` is a module, else
    ``…a``; ``import legsim.a`` gives ``legsim.a``. A package's ``__init__`` counts only when a name is
    taken from it: Python runs it for any of its modules, but compiled code reads only what it binds.
    Read from the text, so a statement inside a string counts as well (a dependency too many costs a
    recompile, never a stale entry)."""
    path = _module_file(name)
    if path is None:
        return frozenset()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    text = _source(path).decode("utf-8", errors="replace")
    found: set[str] = set()
    for m in _IMPORT.finditer(text):
        source, names, plain = m.groups()
        if plain is not None:
            for item in re.sub(r"#.*", "", plain).split(","):
                target = item.split(" as ")[0].strip()
                if target == "legsim" or target.startswith("legsim."):
                    found.add(target)
            continue
        level = len(source) - len(source.lstrip("."))
        if level:
            head = package.split(".")
            head = head[:len(head) - (level - 1)]
            base = ".".join(head + ([source[level:]] if source[level:] else []))
        else:
            base = source
        if not (base == "legsim" or base.startswith("legsim.")):
            continue
        words = [item.split(" as ")[0].strip()
                 for item in re.sub(r"#.*", "", names).strip("()").replace("\n", ",").split(",")]
        words = [w for w in words if w]
        submodules = {w for w in words if _module_file(f"{base}.{w}") is not None}
        found.update(f"{base}.{w}" for w in submodules)
        if len(submodules) < len(words):  # a name defined in ``base`` itself (or ``*``)
            found.add(base)
    return frozenset(n for n in found if _module_file(n) is not None)


def closure(name: str) -> list[str]:
    """``name`` and every legsim module it imports (:func:`imports`), directly or through others, sorted."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        todo.extend(imports(mod))
    return sorted(n for n in seen if _module_file(n) is not None)


def closure_stamp(name: str, extra: tuple[str, ...] = ()) -> str:
    """The hex SHA-256 of the sources of :func:`closure` ``(name)`` and of the closures of the modules
    ``extra`` (:func:`bound_modules`), each with its module name. Read once per process, when the
    module's first kernel is decorated: the stamp of the code this process runs, even if a file is
    edited while it runs."""
    return _stamp((name, *sorted(set(extra) - {name})))


@cache
def _stamp(names: tuple[str, ...]) -> str:
    h = hashlib.sha256()
    for mod in sorted(set().union(*(closure(n) for n in names))):
        path = _module_file(mod)
        assert path is not None
        h.update(mod.encode() + b"\0" + _source(path) + b"\0")
    return h.hexdigest()


def bound_modules(py_func) -> tuple[str, ...]:
    """The legsim modules that ``py_func`` reaches other than through its module's import statements:
    those of the values in globals it was given (a copy of a template with its own globals, as
    ``assembly.compiled`` makes per controller) and in its closure cells; () for a plain function."""
    values = []
    module = sys.modules.get(getattr(py_func, "__module__", None) or "")
    if module is None or py_func.__globals__ is not vars(module):
        values += list(py_func.__globals__.values())
    for cell in py_func.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    names = set()
    for v in values:
        n = v.__name__ if isinstance(v, ModuleType) else getattr(v, "__module__", None)
        if isinstance(n, str) and n.startswith(f"{PACKAGE_DIR.name}.") and _module_file(n) is not None:
            names.add(n)
    return tuple(sorted(names))


def cache_dir(py_file: str | os.PathLike, extra: tuple[str, ...] = ()) -> Path | None:
    """Where legsim's locator keeps the entries of the functions in ``py_file`` (a legsim module) that
    reach the modules ``extra`` besides their module's imports (:func:`bound_modules`), or None for a
    file outside the package."""
    name = module_name(py_file)
    if name is None:
        return None
    parts = name.split(".")[1:]  # the path inside the package
    leaf = "__init__" if Path(py_file).name == "__init__.py" else parts.pop()
    return cache_root().joinpath(*parts, f"{leaf}-{closure_stamp(name, extra)[:16]}")


def cached(module: str, function: str) -> bool:
    """Whether the cache holds an entry of the legsim module ``module``'s ``function`` (dotted names)
    for the module's current sources; found without importing the module or numba."""
    path = _module_file(module)
    if path is None:
        raise ValueError(f"no legsim module {module!r}")
    where = cache_dir(path)
    return where is not None and any(where.glob(f"{path.stem}.{function}-*.nbi"))


def _prune(made: Path) -> None:
    """Of the other closure directories of ``made``'s module, remove those beyond the :data:`KEEP` - 1
    most recently used that have gone unused for :data:`UNUSED` seconds."""
    stem = made.name.rpartition("-")[0]
    siblings = sorted((p for p in made.parent.glob(f"{stem}-*") if p.is_dir() and p != made),
                      key=lambda p: p.stat().st_mtime, reverse=True)
    for old in siblings[KEEP - 1:]:
        if time.time() - old.stat().st_mtime > UNUSED:
            shutil.rmtree(old, ignore_errors=True)


def clear(keep: tuple[str, ...] = ()) -> tuple[Path, int]:
    """Remove every compiled kernel from :func:`cache_root`, all but the files named in ``keep`` at its top
    (a lock another process may be waiting on); returns the directory and the bytes freed."""
    root = cache_root()
    if not root.is_dir():
        return root, 0
    size = 0
    for entry in root.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            size += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
            shutil.rmtree(entry, ignore_errors=True)
        else:  # a file or a link (a link's own size: its target is not removed)
            size += entry.lstat().st_size
            entry.unlink(missing_ok=True)
    return root, size


_WRITABLE: set[Path] = set()
"""The cache directories this process has made sure it can write to, and marked as in use."""


def _locator_class():
    """numba's locator for legsim's modules (defined once numba's caching module is loaded)."""
    from numba.core.caching import _CacheLocator

    class LegsimCacheLocator(_CacheLocator):
        """Caches a function of a legsim module in :func:`cache_dir`, stamped with its closure stamp (and
        the closures of its :func:`bound_modules`)."""

        def __init__(self, py_func, py_file):
            self._lineno = py_func.__code__.co_firstlineno
            self._name = module_name(py_file)
            self._extra = bound_modules(py_func)
            self._path = cache_dir(py_file, self._extra)

        def ensure_cache_path(self):
            if self._path in _WRITABLE:  # checked for an earlier function of the module
                return
            made = not self._path.is_dir()
            super().ensure_cache_path()
            os.utime(self._path)  # in use: not to be pruned (_prune)
            _WRITABLE.add(self._path)
            if made:
                _prune(self._path)

        def get_cache_path(self):
            return str(self._path)

        def get_source_stamp(self):
            return closure_stamp(self._name, self._extra)

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            if module_name(py_file) is None:
                return None
            self = cls(py_func, py_file)
            try:
                self.ensure_cache_path()
            except OSError:  # not writable: numba's own locators
                return None
            return self

    LegsimCacheLocator.__module__ = __name__
    return LegsimCacheLocator


def install_locator() -> None:
    """Put legsim's locator first in numba's list (numba must be imported). Idempotent."""
    from numba.core.caching import CacheImpl

    classes = CacheImpl._locator_classes
    if not any(getattr(c, "__module__", "") == __name__ for c in classes):
        classes.insert(0, _locator_class())


class _WhenNumbaLoads(importlib.abc.MetaPathFinder):
    """Installs the locator right after ``numba.core.caching`` is first imported (before any of
    legsim's kernels is decorated)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "numba.core.caching":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_install(module):
            exec_module(module)
            install_locator()

        spec.loader.exec_module = exec_then_install  # type: ignore[method-assign]
        return spec


def install() -> None:
    """legsim's locator for legsim's kernels: now if numba's caching module is loaded, else when it is."""
    if "numba.core.caching" in sys.modules:
        install_locator()
    elif not any(isinstance(f, _WhenNumbaLoads) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenNumbaLoads())
