"""Figures of runs (matplotlib, written as PNG files)."""

from .plots import plot_run

__all__ = ["plot_run"]
