"""Errors legsim reports to users.

`InputError` is a user mistake (bad file, key or value): the CLI prints its message without
a traceback. `SimulationError` is a run that could not continue; it carries the time, mode
and cause, and the records written up to that point stay on disk.
"""

from __future__ import annotations

__all__ = ["LegsimError", "InputError", "SimulationError"]


class LegsimError(Exception):
    """Base class of the errors legsim reports to users."""


class InputError(LegsimError, ValueError):
    """Bad user input: the message names the file, key or value and what was expected."""


class SimulationError(LegsimError, RuntimeError):
    """A run stopped early. ``t``, ``mode`` and ``cause`` say where and why; ``result``
    holds everything recorded up to that point."""

    def __init__(self, message: str, *, t: float, mode: str, cause: str, result=None):
        super().__init__(message)
        self.t = t
        self.mode = mode
        self.cause = cause
        self.result = result
