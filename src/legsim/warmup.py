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
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

from ._compiling import FAMILY_KERNELS, PREWARM, REPLAY_PREWARM, first_kernel

__all__ = ["FAMILIES", "uncached", "warmup"]

FAMILIES: dict[str, tuple[str, float]] = {
    name: (module, seconds) for name, (module, _, _, seconds) in FAMILY_KERNELS.items()}
"""Family -> (module whose import compiles its hooks, seconds with an empty cache; from
:data:`legsim._compiling.FAMILY_KERNELS`). All 11 of session 11 (the CRR quadruped's hooks since
replaced by the assembly's) took 92 s in 2 processes against about 175 s one after another."""


def _import(module: str) -> tuple[str, float]:
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


def warmup(families: Sequence[str] | None = None, jobs: int | None = None,
           echo: Callable[[str], None] = print) -> dict[str, float]:
    """Compile ``families`` (default: all of :data:`FAMILIES`) in ``jobs`` processes (default: all
    cores), longest first; with the ``assembly`` family and two processes or more, the hooks' joint
    accelerations (``legsim.assembly._prewarm``, reported as "assembly dynamics") right after it, so
    that the second process has them cached when the hooks' compile reaches them; with ``assembly``,
    last, the forward kinematics of a robot's replay (``legsim.viz._prewarm``, "replay kinematics").
    Returns family -> seconds its import took (about 0 when already cached)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    from ._numba_cache import cache_root
    from .errors import InputError

    names = list(FAMILIES) if families is None else list(families)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        raise InputError(f"warmup: unknown families {unknown}; known: {', '.join(FAMILIES)}")
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        echo("legsim warmup: NUMBA_DISABLE_JIT=1, nothing to compile")
        return {}
    names.sort(key=lambda n: -FAMILIES[n][1])  # longest first: the cores finish together
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(names) + ("assembly" in names)))
    modules = [FAMILIES[n][0] for n in names]
    module_of = {FAMILIES[n][0]: n for n in names}
    if "assembly" in names and jobs > 1:
        # the assembly hooks' joint accelerations next, in the second process: the hooks' own compile
        # reaches them ~25 s in and loads them from the cache instead of compiling them (as on a first
        # run, legsim._compiling.compile_in_background)
        modules.insert(modules.index(FAMILIES["assembly"][0]) + 1, PREWARM)
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
