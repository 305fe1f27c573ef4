"""Errors legsim reports to users.

`InputError` is a user mistake (bad file, key or value): the CLI prints its message without
a traceback (exit status 2). `SimulationError` is a run that could not continue; it carries the
time, mode and cause, and the records written up to that point stay on disk (exit status 1).
`Interrupted` is a run the user stopped with Ctrl-C (exit status 130).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = ["LegsimError", "InputError", "SimulationError", "Interrupted", "closest"]


def closest(name: str, choices: Sequence[str]) -> str:
    """A hint naming the valid choice closest to ``name`` (empty when none is close), for messages."""
    match = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.5)
    return f" (did you mean '{match[0]}'?)" if match else ""


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


class Interrupted(SimulationError):
    """The user stopped a run (Ctrl-C); the records up to ``t`` are kept. The CLI exits with 130."""

