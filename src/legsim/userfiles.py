"""Files and directories a user names: read and created with errors that name them.

Every file a user hands legsim is read through :func:`read_text`, and every output directory a user
names is made by :func:`output_dir`, so that whatever is wrong with either (missing, a directory
where a file is expected or the reverse, no permission, not UTF-8 text) is one
:class:`~legsim.errors.InputError` line naming the path, never a traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import InputError, shown

__all__ = ["read_text", "parse_toml", "output_dir", "output_file", "write_text", "user_path"]


def user_path(path, what: str) -> Path:
    """``path`` (a string or path-like) as a :class:`Path`, a leading ``~`` or ``~user`` expanded; an
    :class:`InputError` naming ``what`` (e.g. "run directory") when it is something else (None, a
    number, a list) or names a user without a home directory."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InputError(f"{what} = {path!r}: expected a path (a string or pathlib.Path)")
    if "\x00" in os.fspath(path):  # no file system takes it (open() and stat() raise ValueError)
        raise InputError(f"{what} = {str(path)!r}: a path cannot hold a NUL character")
    try:
        return Path(path).expanduser()
    except RuntimeError:  # "~name" of no user: pathlib cannot find a home directory
        raise InputError(f"{what} = {str(path)!r}: no home directory for its '~'") from None


def read_text(path: str | os.PathLike, what: str) -> str:
    """The text of a user's file (UTF-8). Whatever keeps it from being read, a missing file, a
    directory, no permission or bytes that are not UTF-8 text, is an :class:`InputError` naming
    ``what`` (e.g. "scenario file") and the path."""
    user_path(path, what)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise InputError(f"{what} '{path}' not found") from None
    except IsADirectoryError:
        raise InputError(f"{what} '{path}' is a directory, expected a file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} '{path}' is not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} '{path}': {exc.strerror or exc}") from None


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The TOML document ``text`` as a dict, else an :class:`InputError` naming ``source`` (a file's
    path): a syntax error, or a whole number of more than 4300 digits, which Python will not convert
    (tomllib's ValueError, not its TOMLDecodeError). ``text`` and ``source`` are strings."""
    import tomllib

    for name, value in (("text", text), ("source", source)):
        if not isinstance(value, str):
            raise InputError(f"parse_toml: '{name}' = {shown(value)}, expected a string")

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML: {exc}") from None
    except ValueError:
        raise InputError(f"{source}: not valid TOML: a whole number of more than 4300 digits") from None


def output_dir(path: str | os.PathLike, what: str, option: str = "--out") -> Path:
    """Make the output directory ``path`` (and its parents; an existing one is kept) for ``what``
    (e.g. "the run's records") and return it; an :class:`InputError` naming ``option`` and the path
    when it is a file or cannot be made."""
    p = user_path(path, option)
    if p.exists() and not p.is_dir():
        raise InputError(f"{option} '{p}' is a file: expected a directory for {what}")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{option} '{p}': cannot make the directory for {what}: {exc.strerror or exc}") \
            from None
    return p


def output_file(path: str | os.PathLike, what: str, option: str = "--out") -> Path:
    """``path`` of a file to write ``what`` to (e.g. "the replay"), its directory made (:func:`output_dir`);
    an :class:`InputError` naming ``option`` when it names a directory. Called before the work that fills
    the file, so that a wrong path is told at once."""
    out = user_path(path, option)
    if out.is_dir() or not out.name:
        raise InputError(f"{option} '{out}' is a directory: give a file name for {what}")
    output_dir(out.parent, what, option)
    return out


def write_text(out: Path, text: str, what: str, option: str = "--out") -> Path:
    """Write ``text`` (UTF-8) to ``out`` (from :func:`output_file`); an OS error (a full disk, no
    permission) is an :class:`InputError` naming ``option``, the path and ``what``. Returns ``out``."""
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{option} '{out}': cannot write {what}: {exc.strerror or exc}") from None
    return out
