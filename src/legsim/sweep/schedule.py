"""The loop that feeds a pool batches of runs, sized as it learns how long a run takes.

Batch sizes adapt: the first batches hold one run each (a probe per worker); from then on a batch
holds ``batch_seconds / (mean wall time per run so far)`` runs, at most ``1/(2 x slots)`` of what
is left (so the last batches shrink and every worker finishes at about the same time). Two
batches per slot are kept in flight, so a worker never waits for the parent. Rows go to the
caller as each batch arrives (the table writes them at once) and the progress bar (tqdm: runs,
rate, ETA, failures) moves.

A batch lost with its worker (:class:`legsim.sweep.backends.WorkerCrash`) is not fatal: its runs
are retried one per batch; a single run whose worker dies again is a row with status
``"crashed"``. Where one crash takes down every batch in flight (the local process pool), the
retries run one at a time, so the run that crashes is known. Workers that die before any run has
finished (a worker that cannot start) stop the sweep with an error instead. Ctrl-C stops the pool
at once; what finished is kept.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._progress import check_progress, counter
from ..errors import InputError, LegsimError, check_number, check_whole, shown
from . import _worker as W
from .backends import LocalPool, RayPool, SerialPool, WorkerCrash
from .spec import MAX_RUNS

MAX_CRASHES_BEFORE_ANY_ROW = 3
"""Worker deaths with no run finished yet after which the sweep stops (workers that cannot start)."""

__all__ = ["Outcome", "execute"]


@dataclass
class Outcome:
    """What :func:`execute` did: batches, rows, whether Ctrl-C stopped it, the workers seen."""

    batches: int = 0
    rows: int = 0
    failed: int = 0
    crashes: int = 0
    crashed_rows: int = 0
    interrupted: bool = False
    workers: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    last_result: float = math.nan
    """time.time() of the last batch received."""


def _crashed_row(run: W.Run, why: str) -> dict[str, Any]:
    return {"run_id": run.run_id, **run.variation, "seed": run.seed, "status": "crashed",
            "message": f"the worker process died while running this variation ({why})"}


def _bar(total: int, initial: int, progress: bool | None) -> Any:
    return counter(total, unit="run", desc="sweep", progress=progress, initial=initial, smoothing=0.05,
                   delay=0.0, leave=True)


def _check_pool(pool: object) -> None:
    """An :class:`InputError` unless ``pool`` is one of :func:`~legsim.sweep.backends.make_pool`'s."""
    if not isinstance(pool, (SerialPool, LocalPool, RayPool)):
        raise InputError(f"execute: 'pool' is a {type(pool).__name__}, expected a pool of make_pool()")


def execute(pool: Any, runs: Sequence[W.Run], on_rows: Callable[[list[dict[str, Any]]], None], *,
            batch_seconds: float, progress: bool | None = None, total: int | None = None,
            done: int = 0) -> Outcome:
    """Run ``runs`` on ``pool``, handing each batch's rows to ``on_rows`` as it arrives.

    ``pool``: a pool of :func:`~legsim.sweep.backends.make_pool`; ``runs``: a list of
    :class:`~legsim.sweep._worker.Run` (not empty); ``batch_seconds`` > 0 [s]: the target wall time of a
    batch; ``total``/``done``: the progress bar's length and starting count, whole numbers up to
    :data:`~legsim.sweep.spec.MAX_RUNS` (a resumed sweep shows what was done before). Returns the
    :class:`Outcome`; Ctrl-C sets ``interrupted`` instead of raising.
    """
    _check_pool(pool)
    if not (isinstance(runs, (list, tuple)) and runs and all(isinstance(r, W.Run) for r in runs)):
        raise InputError(f"execute: 'runs' = {shown(runs)}, expected a list of legsim.sweep._worker.Run (at "
                         "least one)")
    if not callable(on_rows):
        raise InputError(f"execute: 'on_rows' = {shown(on_rows)}, expected a function of a list of rows")
    batch_seconds = check_number("execute", "batch_seconds", batch_seconds, lo=0.0, lo_open=True)
    check_progress(progress, "execute")
    if total is not None:
        total = check_whole("execute", "total", total, 0, MAX_RUNS)
    done = check_whole("execute", "done", done, 0, MAX_RUNS)
    out = Outcome()
    queue: deque[W.Run] = deque(runs)
    suspects: deque[W.Run] = deque()
    inflight: dict[Any, tuple[list[W.Run], bool]] = {}
    wall_sum, wall_n = 0.0, 0
    depth = pool.depth
    bar = _bar(total if total is not None else len(runs), done, progress)

    def size() -> int:
        if wall_n == 0:
            return 1
        per_run = wall_sum / wall_n
        return max(1, min(int(batch_seconds / max(per_run, 1e-9)), math.ceil(len(queue) / (2 * pool.slots))))

    def submit(batch: list[W.Run], suspect: bool) -> None:
        inflight[pool.submit(batch)] = (batch, suspect)

    def take(report: W.BatchReport) -> None:
        nonlocal wall_sum, wall_n
        rows = report.rows
        on_rows(rows)
        out.batches += 1
        out.rows += len(rows)
        out.failed += sum(r.get("status") != "done" for r in rows)
        for r in rows:
            wall_sum += float(r.get("wall_time_s") or 0.0)
        wall_n += len(rows)
        w = report.worker
        if w:  # reports of one worker can be taken out of order: keep its latest (most runs)
            key = (str(w.get("host")), int(w.get("pid", 0)))
            if w.get("runs", 0) >= out.workers.get(key, {}).get("runs", 0):
                out.workers[key] = w
        out.last_result = time.time()
        bar.update(len(rows))
        if out.failed:
            bar.set_postfix(failed=out.failed, refresh=False)

    try:
        while queue or suspects or inflight:
            # retries of crashed batches first: alone where one crash takes down all in flight
            while suspects and (pool.isolates_failures and len(inflight) < depth or not inflight):
                submit([suspects.popleft()], True)
                if not pool.isolates_failures:
                    break
            retrying = suspects or any(s for _, s in inflight.values())
            if pool.isolates_failures or not retrying:
                while queue and len(inflight) < depth:
                    submit([queue.popleft() for _ in range(min(size(), len(queue)))], False)
            if not inflight:
                continue
            for handle in pool.wait(list(inflight)):
                batch, suspect = inflight.pop(handle)
                try:
                    report = pool.result(handle)
                except WorkerCrash as exc:
                    out.crashes += exc.first  # one death may fail several batches
                    if out.crashes >= MAX_CRASHES_BEFORE_ANY_ROW and out.rows == out.crashed_rows:
                        raise LegsimError(
                            f"the sweep's workers died {out.crashes} times before any run finished (last: "
                            f"{exc}): a worker cannot start (its error is printed above), or every run "
                            "crashes; run one variation with backend='serial' to see why") from None
                    if len(batch) == 1 and (suspect or pool.isolates_failures):
                        out.crashed_rows += 1
                        take(W.BatchReport([_crashed_row(batch[0], str(exc))]))
                    else:
                        suspects.extend(batch)
                    continue
                take(report)
    except KeyboardInterrupt:
        out.interrupted = True
        pool.close(cancel=True, handles=list(inflight))
    finally:
        bar.close()
    return out
