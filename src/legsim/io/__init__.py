"""Results files: columnar records written as the run goes, with run metadata."""

from .results import RunWriter, load_run

__all__ = ["RunWriter", "load_run"]
