"""legsim: design, simulate and control legged and multi-limbed robots."""

from importlib.metadata import PackageNotFoundError, version

from . import _numba_cache

try:
    __version__ = version("legsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

_numba_cache.install()  # legsim's kernels cached per user, by what they import (before numba compiles any)

__all__ = ["__version__"]
