"""legsim: design, simulate and control legged and multi-limbed robots."""

from . import _numba_cache

__version__ = "0.1.0"  # the package's version (flit reads it from here; no importlib.metadata at start-up)

_numba_cache.install()  # legsim's kernels cached per user, by what they import (before numba compiles any)

__all__ = ["__version__"]
