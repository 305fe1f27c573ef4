"""This machine's CPUs and memory, and stopping the worker processes legsim runs on them."""

from __future__ import annotations

import contextlib
import os
import signal
import threading

from .errors import check_whole

__all__ = ["MAX_WORKERS", "check_workers", "cpu_count", "physical_memory", "stop_workers", "uninterrupted"]

MAX_WORKERS = 1024
"""Most worker processes one pool may ask for (a local pool starts them all at once)."""


def cpu_count() -> int:
    """CPUs this process may use: its affinity mask where the OS has one (a container or ``taskset``
    may allow fewer than the machine has), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def physical_memory() -> float:
    """This machine's physical memory [bytes]; 0 where the OS does not say (nothing is refused for it)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES")) * float(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - Windows
        return 0.0


def check_workers(owner: str, workers, name: str = "workers") -> int | None:
    """``workers`` as a count of processes in [1, :data:`MAX_WORKERS`], or None (all cores), else an
    :class:`~legsim.errors.InputError` naming ``owner`` and the argument ``name``."""
    return None if workers is None else check_whole(owner, name, workers, 1, MAX_WORKERS)


def stop_workers(pool) -> None:
    """Stop a ``concurrent.futures.ProcessPoolExecutor`` now (Ctrl-C in the parent; its workers ignore
    SIGINT): drop what is queued, terminate the workers, wait for them and for the pool's own threads
    and queues, so that nothing is left running or half-closed when the interpreter exits."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)
    pool.shutdown(wait=True)


@contextlib.contextmanager
def uninterrupted():
    """Hold a Ctrl-C back until the block ends, then raise it (in the main thread; elsewhere a no-op).
    For starting worker processes: a KeyboardInterrupt while ``ProcessPoolExecutor.submit`` starts one
    leaves a child the pool does not know yet; the parent cannot stop it, and when the parent exits the
    child fails to open the pool's semaphores and prints a traceback (seen on Ctrl-C 1.5-2.2 s into a
    sweep)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt
