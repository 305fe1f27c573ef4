"""``legsim warmup``: compile legsim's robot families ahead, on every core at once.

A first run compiles what it uses (10–70 s per robot family, see DESIGN.md "Compile time"); later
runs load it from numba's on-disk cache. ``warmup`` fills the cache for every family in parallel
processes, one family per task, largest first, so that on a 2-core machine the whole library
compiles in about half the time it takes one family after another. Each family is the import of
the module whose hooks have eager signatures (importing it compiles them); what the tests or a
robot compile lazily (per argument types) is not covered.

Two workers may compile a callee the families share (the multibody dynamics, say) at the same
time: duplicate work, not a hazard, since numba writes cache files atomically (a unique temporary
file, then a rename) for ``@njit`` functions. (numba #4807 concerns ``guvectorize``.)

One warm-up at a time per cache: each holds the lock file ``warmup.lock`` in the cache directory while
it compiles, and another waits for it (a background one, :func:`start_background`, gives way instead).
After a first run in a terminal, the CLI starts the warm-up of the families still missing in the
background, at the lowest priority, so that the next robot a user tries loads instead of compiling.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._compiling import FAMILY_KERNELS, PREWARM, REPLAY_PREWARM, first_kernel
from ._machine import check_workers, cpu_count

__all__ = ["FAMILIES", "uncached", "warmup", "exclusive", "start_background", "stop_background", "LOCK",
           "LOG"]

LOCK = "warmup.lock"
"""The lock file a warm-up holds in the cache directory (``fcntl.flock``)."""
LOG = "warmup.log"
"""What the background warm-up writes, in the cache directory."""

FAMILIES: dict[str, tuple[str, float]] = {
    name: (module, seconds) for name, (module, _, _, seconds) in FAMILY_KERNELS.items()}
"""Family -> (module whose import compiles its hooks, seconds with an empty cache; from
:data:`legsim._compiling.FAMILY_KERNELS`). All 11 of session 11 (the CRR quadruped's hooks since
replaced by the assembly's) took 92 s in 2 processes against about 175 s one after another."""


def _import(module: str) -> tuple[str, float]:
    import io

    from ._compiling import watch

    watch(stream=io.StringIO())  # a family that runs a simulation would announce itself: the pool reports
    t = time.perf_counter()
    __import__(module)
    return module, time.perf_counter() - t


def uncached() -> list[str]:
    """The families to compile for the current sources: all of them when the cache holds none of the
    families' first kernels (``FAMILY_KERNELS``: an empty cache), else those whose first kernel it does
    not hold (after an edit; the short families that name no kernel compile where they are used)."""
    from ._numba_cache import cached

    marked = {name: kernel for name in FAMILY_KERNELS if (kernel := first_kernel(name)) is not None}
    missing = [name for name, kernel in marked.items() if not cached(*kernel.rsplit(".", 1))]
    return list(FAMILIES) if len(missing) == len(marked) else missing


@contextmanager
def exclusive(wait: bool = True, echo: Callable[[str], None] = print,
              background: bool = False) -> Iterator[bool]:
    """Hold the cache's warm-up lock (:data:`LOCK`) for the block, waiting for another process that holds
    it (saying so), or with ``wait`` False not waiting: the block gets False when another holds it, True
    when this process does. The holder writes its pid into the file, and ``background`` when it is a
    background warm-up, which a first run may stop (:func:`stop_background`). Without ``fcntl``
    (Windows) or a writable cache directory: True, no lock."""
    from ._numba_cache import cache_root
    from .errors import check_echo, check_flag

    wait = check_flag("exclusive", "wait", wait)
    check_echo("exclusive", echo)
    background = check_flag("exclusive", "background", background)

    try:
        import fcntl

        root = cache_root()
        root.mkdir(parents=True, exist_ok=True)
        f = open(root / LOCK, "a")  # noqa: SIM115 - held for the whole block
    except (ImportError, OSError):
        yield True
        return
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                yield False
                return
            echo(f"legsim warmup: waiting for another process's warm-up (log: {cache_root() / LOG}) ...")
            fcntl.flock(f, fcntl.LOCK_EX)
        f.truncate(0)
        f.write(f"{os.getpid()}{' background' if background else ''}\n")
        f.flush()
        yield True


def stop_background() -> bool:
    """Stop the background warm-up running on this cache, if one is (:func:`start_background`; its whole
    process group, pool workers included), so that a first run about to compile in the foreground has the
    cores: on a 2-core machine a niced warm-up beside it made a first run 1.6 times slower (measured).
    What the warm-up had finished stays cached (numba writes a function's cache files when it is compiled);
    the first run starts a new one for the rest when it ends. A warm-up a user or the tests started is
    never stopped. Returns whether one was."""
    from ._numba_cache import cache_root

    try:
        import fcntl
        import signal

        with open(cache_root() / LOCK) as f:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return False  # nobody holds it
            except BlockingIOError:
                pid, _, kind = f.read().strip().partition(" ")
        if kind != "background" or not pid.isdigit() or int(pid) == os.getpgrp():  # (not from inside it)
            return False
        cmdline = Path(f"/proc/{pid}/cmdline")  # the holder is alive (it holds the lock): check what it is
        if cmdline.exists() and b"--background" not in cmdline.read_bytes():
            return False
        os.killpg(int(pid), signal.SIGTERM)
        return True
    except (ImportError, OSError):
        return False


def warmup(families: Sequence[str] | None = None, jobs: int | None = None,
           echo: Callable[[str], None] = print, background: bool = False) -> dict[str, float]:
    """Compile ``families`` (default: all of :data:`FAMILIES`) in ``jobs`` processes (default: all
    cores), longest first; with the ``assembly`` family and two processes or more, the hooks' joint
    accelerations (``legsim.assembly._prewarm``, reported as "assembly dynamics") right after it, so
    that the second process has them cached when the hooks' compile reaches them; with ``assembly``,
    last, the forward kinematics of a robot's replay (``legsim.viz._prewarm``, "replay kinematics").
    While another warm-up runs on the same cache (:func:`exclusive`), first wait for it and then compile
    only what it left; a ``background`` warm-up (:func:`start_background`) returns at once instead,
    compiling nothing, and may be stopped by a first run (:func:`stop_background`).
    Returns family -> seconds its import took (about 0 when already cached)."""
    from .errors import InputError, check_echo, check_flag

    jobs = check_workers("warmup", jobs, "jobs")
    check_echo("warmup", echo)
    background = check_flag("warmup", "background", background)
    given: Any = families  # checked here: a user may pass anything
    names: list[Any]
    if families is None:
        names = list(FAMILIES)
    elif isinstance(given, (str, Mapping)):  # one family's name, or not a list of names (refused below)
        names = [given]
    else:
        try:
            names = list(given)
        except TypeError:  # not a list of names
            names = [given]
    unknown = [n for n in names if not (isinstance(n, str) and n in FAMILIES)]
    if unknown:
        raise InputError(f"warmup: unknown 'families' {unknown}; known: {', '.join(FAMILIES)}")
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        echo("legsim warmup: NUMBA_DISABLE_JIT=1, nothing to compile")
        return {}
    with exclusive(False, echo, background) as mine:
        if mine:
            return _compile(names, jobs, echo)
    if background:  # another warm-up runs: give way
        return {}
    with exclusive(True, echo):  # wait for it, then compile what it left
        left = set(uncached())
        return _compile([n for n in names if n in left], jobs, echo)


def _compile(names: list[str], jobs: int | None, echo: Callable[[str], None]) -> dict[str, float]:
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from ._numba_cache import cache_root

    if not names:
        echo("legsim warmup: nothing left to compile")
        return {}
    names.sort(key=lambda n: -FAMILIES[n][1])  # longest first: the cores finish together
    jobs = max(1, min(jobs or cpu_count(), len(names) + ("assembly" in names)))
    modules = [FAMILIES[n][0] for n in names]
    module_of = {FAMILIES[n][0]: n for n in names}
    if "assembly" in names and jobs > 1:
        # the assembly first and its hooks' joint accelerations next, in the second process: the hooks'
        # own compile reaches them ~25 s in and loads them from the cache instead of compiling them (as on
        # a first run, legsim._compiling.compile_in_background)
        modules.remove(FAMILIES["assembly"][0])
        modules[:0] = [FAMILIES["assembly"][0], PREWARM]
        module_of[PREWARM] = "assembly dynamics"
    if "assembly" in names:  # what a first run's second process compiles for the robot's replay, too
        modules.append(REPLAY_PREWARM)
        module_of[REPLAY_PREWARM] = "replay kinematics"
    echo(f"legsim warmup: compiling {len(names)} families in {jobs} processes into {cache_root()} "
         f"(once per machine; later runs load them from the cache) ...")
    t0 = time.perf_counter()
    out: dict[str, float] = {}
    before = os.environ.get("LEGSIM_BACKGROUND_COMPILE")
    os.environ["LEGSIM_BACKGROUND_COMPILE"] = "0"  # the workers are the parallelism: no second processes
    try:
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(_import, module) for module in modules]
            for fut in as_completed(futures):
                module, seconds = fut.result()
                out[module_of[module]] = seconds
                echo(f"  {module_of[module]:18s} {seconds:6.1f} s")
    finally:
        if before is None:
            del os.environ["LEGSIM_BACKGROUND_COMPILE"]
        else:
            os.environ["LEGSIM_BACKGROUND_COMPILE"] = before
    echo(f"legsim warmup: done in {time.perf_counter() - t0:.0f} s")
    return out


def start_background(echo: Callable[[str], None] = print, popen: Callable = subprocess.Popen) -> bool:
    """After a first run in a terminal: compile the families the cache still lacks (:func:`uncached`) in
    a detached process at the lowest priority (``legsim warmup --background``, its output in :data:`LOG`
    in the cache directory), so that the next robot the user tries loads from the cache instead of
    compiling for a minute. Says so in one line; returns whether it started. Not with
    ``LEGSIM_BACKGROUND_WARMUP=0``, without a terminal on stdin and stderr (scripts, CI, the tests),
    without the JIT or ``fcntl`` (Windows), when nothing is missing, or while another warm-up runs. A
    later first run stops it while that run compiles (:func:`stop_background`) and starts it again when
    it ends."""
    from ._numba_cache import cache_root

    if os.environ.get("LEGSIM_BACKGROUND_WARMUP") == "0" or os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return False
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    try:
        import fcntl  # noqa: F401 - without the lock a first run could not stop it (Windows): none
    except ImportError:
        return False
    names = uncached()
    if not names:
        return False
    with exclusive(wait=False) as free:
        if not free:
            return False
    log = cache_root() / LOG
    try:
        with open(log, "a") as out:  # appended: one that gives way must not cut the running one's log
            popen([sys.executable, "-m", "legsim", "warmup", "--background"], stdin=subprocess.DEVNULL,
                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError:
        return False
    echo(f"legsim: compiling the robot families this machine lacks ({', '.join(names)}) in the background, "
         f"once, at the lowest priority (`legsim warmup` waits for it; log: {log}; "
         f"LEGSIM_BACKGROUND_WARMUP=0 turns this off)")
    return True
