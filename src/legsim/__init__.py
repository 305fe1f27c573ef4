"""legsim: design, simulate and control legged and multi-limbed robots."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("legsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
