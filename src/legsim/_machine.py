"""What this machine offers the process: its CPUs."""

from __future__ import annotations

import os

__all__ = ["cpu_count"]


def cpu_count() -> int:
    """CPUs this process may use: its affinity mask where the OS has one (a container or ``taskset``
    may allow fewer than the machine has), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1
