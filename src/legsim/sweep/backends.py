"""Where a sweep's batches run: in this process, in local worker processes, or on a Ray cluster.

Every backend is a pool with the same small interface (``slots`` workers, ``depth`` batches in
flight, ``submit(runs)``, ``wait(handles)``, ``result(handle)``, ``close()``), so the scheduling
loop (:mod:`legsim.sweep.schedule`) is one.

- ``"local"`` (default): ``concurrent.futures.ProcessPoolExecutor`` with the ``forkserver`` start
  method where the OS has it (``spawn`` elsewhere). The fork server imports the worker module once
  (numba and legsim's compiled functions loaded from the on-disk cache), and every worker forks from
  it; each worker then does the warm-up run, and all start on the batches together (a barrier).
  Workers ignore Ctrl-C: the parent stops them and keeps what finished. A worker that dies (a crash
  in compiled code) breaks the executor: the pool starts a new one and reports
  :class:`WorkerCrash` for every batch in flight.
- ``"ray"``: one Ray task per batch (``num_cpus=1``), the context put in the object store once, a
  warm-up task pinned to every node before the batches (so no node compiles in all its workers at
  once). Connects to ``address`` or starts a local instance (shut down again at the end).
- ``"serial"``: this process, one run after another (for debugging; a crash ends the sweep).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
from collections.abc import Sequence
from typing import Any

from .._machine import check_workers, cpu_count, stop_workers, uninterrupted
from ..errors import InputError
from . import _worker as W

__all__ = ["WorkerCrash", "SerialPool", "LocalPool", "RayPool", "make_pool", "BACKENDS", "cpu_count"]

BACKENDS = ("local", "ray", "serial")


class WorkerCrash(Exception):
    """The process running a batch died (or was lost) before returning it. ``first``: this is the first
    batch to report this death (a local pool's one crash fails every batch in flight)."""

    def __init__(self, message: str, first: bool = True):
        super().__init__(message)
        self.first = first


class SerialPool:
    """Runs each batch in this process when it is submitted."""

    isolates_failures = True
    name = "serial"

    def __init__(self, ctx: W.Context):
        self.ctx = ctx
        self.slots = 1
        self.depth = 1  # a batch runs when submitted: take its rows before the next one

    def submit(self, runs: Sequence[W.Run]) -> W.BatchReport:
        return W.run_batch(self.ctx, runs)

    def wait(self, handles: Sequence[Any]) -> list[Any]:
        return list(handles)

    def result(self, handle: W.BatchReport) -> W.BatchReport:
        return handle

    def close(self, cancel: bool = False, handles: Sequence[Any] = ()) -> None:
        pass


class LocalPool:
    """Batches in ``workers`` local processes (module docstring)."""

    isolates_failures = False
    name = "local"

    def __init__(self, ctx: W.Context, workers: int):
        self.ctx = ctx
        self.slots = workers
        self.depth = 2 * workers  # batches in flight: a worker never waits for the parent
        methods = mp.get_all_start_methods()
        self._mp = mp.get_context("forkserver" if "forkserver" in methods else "spawn")
        if self._mp.get_start_method() == "forkserver":
            self._mp.set_forkserver_preload(["legsim.sweep._worker"])
        self._generation = 0
        self._reported: set[int] = set()  # generations whose death a batch has reported
        self._start()

    def _start(self) -> None:
        # all workers start together, the first time (then every worker is spawned: the parent submits
        # 2 batches per worker at once); a pool restarted after a crash may get a single batch
        barrier = self._mp.Barrier(self.slots) if self.slots > 1 and self._generation == 0 else None
        self._ex = cf.ProcessPoolExecutor(self.slots, mp_context=self._mp, initializer=W.init_worker,
                                          initargs=(self.ctx, barrier))
        self._generation += 1

    def _restart(self) -> None:
        self._ex.shutdown(wait=False, cancel_futures=True)
        self._start()

    def submit(self, runs: Sequence[W.Run]) -> cf.Future:
        try:
            with uninterrupted():  # a submit may start a worker: Ctrl-C after it is registered
                fut = self._ex.submit(W.run_batch, None, list(runs))
        except cf.process.BrokenProcessPool:  # a worker died; its batches report it when awaited
            self._restart()
            with uninterrupted():
                fut = self._ex.submit(W.run_batch, None, list(runs))
        fut.generation = self._generation  # type: ignore[attr-defined]
        return fut

    def wait(self, handles: Sequence[cf.Future]) -> list[cf.Future]:
        done, _ = cf.wait(handles, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def result(self, handle: cf.Future) -> W.BatchReport:
        try:
            return handle.result()
        except cf.process.BrokenProcessPool as exc:
            gen = getattr(handle, "generation", 0)
            first = gen not in self._reported  # one death fails every batch in flight: count it once
            self._reported.add(gen)
            if gen == self._generation:
                self._restart()
            raise WorkerCrash(str(exc), first) from None

    def close(self, cancel: bool = False, handles: Sequence[Any] = ()) -> None:
        if not cancel:
            self._ex.shutdown(wait=True)
            return
        stop_workers(self._ex)  # Ctrl-C: drop what is queued and stop the workers now


class RayPool:
    """Batches as Ray tasks (module docstring)."""

    isolates_failures = True
    name = "ray"

    def __init__(self, ctx: W.Context, workers: int | None, address: str | None):
        try:
            import ray
        except ImportError:
            raise InputError("backend='ray' needs Ray: pip install 'legsim[ray]' (or: pip install ray)") \
                from None
        self._ray = ray
        self._started = False
        if not ray.is_initialized():
            kw: dict[str, Any] = {"include_dashboard": False, "logging_level": "warning",
                                  "log_to_driver": True}
            if address is not None:
                ray.init(address=address, **kw)
            else:
                ray.init(num_cpus=workers or cpu_count(), **kw)
                self._started = True
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.slots = max(1, min(cpus, workers) if workers else cpus)
        self.depth = 2 * self.slots
        self._ctx: Any = ray.put(ctx)  # resolved to the Context in each task
        self._task = ray.remote(num_cpus=1, max_retries=0)(W.run_batch)
        self.warmed = self._warm_nodes()

    def _warm_nodes(self) -> list[dict[str, Any]]:
        """One warm-up task pinned to every live node with CPUs, all awaited: each node loads (or, with
        an empty cache, compiles once) before any batch runs there."""
        ray = self._ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        warm = ray.remote(num_cpus=1, max_retries=0)(W.warm)
        nodes = [n["NodeID"] for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU")]
        refs = [warm.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False))
                .remote(self._ctx) for node in nodes]
        return list(ray.get(refs))

    def submit(self, runs: Sequence[W.Run]) -> Any:
        return self._task.remote(self._ctx, list(runs))

    def wait(self, handles: Sequence[Any]) -> list[Any]:
        ready, _ = self._ray.wait(list(handles), num_returns=1)
        more, _ = self._ray.wait([h for h in handles if h not in ready], num_returns=len(handles) - 1,
                                 timeout=0) if len(handles) > 1 else ([], None)
        return [*ready, *more]

    def result(self, handle: Any) -> W.BatchReport:
        from ray.exceptions import NodeDiedError, ObjectLostError, WorkerCrashedError

        try:
            return self._ray.get(handle)
        except (WorkerCrashedError, NodeDiedError, ObjectLostError) as exc:
            raise WorkerCrash(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None

    def close(self, cancel: bool = False, handles: Sequence[Any] = ()) -> None:
        for h in handles:
            self._ray.cancel(h, force=True)
        if self._started:
            self._ray.shutdown()


def check_backend(owner: str, backend, address) -> None:
    """An :class:`InputError` naming ``owner`` unless ``backend`` is one of :data:`BACKENDS` and
    ``address`` is None, or a Ray cluster's address (a string) with ``backend="ray"``."""
    if not (isinstance(backend, str) and backend in BACKENDS):
        raise InputError(f"{owner}: backend = {backend!r}: expected one of {', '.join(BACKENDS)}")
    if address is not None and not (backend == "ray" and isinstance(address, str)):
        raise InputError(f"{owner}: address = {address!r}: expected None, or with backend='ray' the Ray "
                         "cluster to connect to ('HOST:PORT' or 'auto')")


def make_pool(backend: str, ctx: W.Context, workers: int | None, address: str | None) -> Any:
    """The pool of ``backend`` ("local", "ray" or "serial") for the sweep context ``ctx``, with ``workers``
    (a count in [1, MAX_WORKERS], or None: all cores) and ``address`` (:func:`check_backend`)."""
    check_backend("make_pool", backend, address)
    if not isinstance(ctx, W.Context):
        raise InputError(f"make_pool: 'ctx' is a {type(ctx).__name__}, expected a "
                         "legsim.sweep._worker.Context")
    workers = check_workers("make_pool", workers)
    if backend == "serial":
        return SerialPool(ctx)
    if backend == "local":
        return LocalPool(ctx, workers or cpu_count())
    return RayPool(ctx, workers, address)
