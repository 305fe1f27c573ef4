"""``FunctionPool``: one function called on batch after batch of variations by workers that stay up.

A function sweep (:func:`legsim.sweep.run_sweep` with ``Sweep(function=...)``) starts its workers, runs
its variations and ends. An optimiser's objective is different: every evaluation is a few runs (the RATS
rolling controller's Nelder–Mead tuning rolls from several starts per candidate), and the next batch is
known only once the last one is scored. Starting a pool per evaluation would cost the workers' start-up
(importing legsim and loading the compiled kernels, seconds each) every time, so the pool here is
started once and kept until :meth:`FunctionPool.close`.

Everything else is the sweep's: the same backends (``"local"`` processes, ``"ray"``, ``"serial"`` in
this process), batching, crash handling and rows (:func:`legsim.sweep._worker.run_one`). As in a sweep,
the first run of the first batch runs in this process before any worker starts, so that whatever
numba's cache lacks compiles once and not in every worker at once; and a run's row depends only on its
variation and seed, not on the worker count or order.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from .._machine import check_workers
from ..errors import InputError, check_number, check_whole
from . import _worker as W
from .backends import check_backend, make_pool
from .outputs import load_function
from .schedule import execute

__all__ = ["FunctionPool"]

_TOKENS = itertools.count()


class FunctionPool:
    """Calls of ``function`` (``"package.module:function"`` or ``"file.py:function"``, as a function
    sweep's) on batches of variations, on ``workers`` (default: all cores) of ``backend``.

    Use as a context manager, or call :meth:`close`. :meth:`map` returns one row per variation, in
    order, as a function sweep's table has them: ``run_id`` (its index in the batch), the variation's
    keys, ``seed``, ``status`` ("done", or why the call failed: "error" with the exception's type,
    message and place in ``message``, "crashed" if its worker died), the values the function returned,
    and ``wall_time_s``. ``seed``: the runs' seeds come from (seed, batch number, index) as a sweep's
    from (seed, run_id), for functions that take a ``seed`` keyword.
    """

    def __init__(self, function: str, *, workers: int | None = None, backend: str = "local",
                 address: str | None = None, seed: int = 0, batch_seconds: float = 1.0) -> None:
        if not isinstance(function, str):
            raise InputError(f"FunctionPool: function = {function!r}: expected 'package.module:function' or "
                             "'file.py:function'")
        load_function(function, "sweep function")  # an InputError here rather than in every worker
        check_backend("FunctionPool", backend, address)
        workers = check_workers("FunctionPool", workers)
        seed = check_whole("FunctionPool", "seed", seed, hi=2**64 - 1)  # SeedSequence's entropy
        batch_seconds = check_number("FunctionPool", "batch_seconds", batch_seconds, lo=0.0, lo_open=True)
        self.function = function
        self.backend = backend
        self.workers = workers
        self.address = address
        self.seed = seed
        self.batch_seconds = float(batch_seconds)
        self._ctx = W.Context(token=f"pool-{next(_TOKENS)}-{function}", source=function, data={},
                              function=function)
        self._pool: Any = None
        self._batches = 0

    def _seed(self, batch: int, index: int) -> int:
        import numpy as np

        return int(np.random.SeedSequence([self.seed, batch, index]).generate_state(1)[0])

    def map(self, variations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Call the function once per variation (keyword arguments) and return the rows, in order.
        Ctrl-C stops the workers and raises KeyboardInterrupt; the pool is closed then."""
        if isinstance(variations, Mapping) or not all(isinstance(v, Mapping) for v in variations):
            raise InputError(f"FunctionPool.map: expected a list of dicts of keyword arguments, got "
                             f"{variations!r:.80}")
        W.check_keywords(self.function, dict.fromkeys(k for v in variations for k in v))
        runs = [W.Run(i, dict(v), self._seed(self._batches, i)) for i, v in enumerate(variations)]
        self._batches += 1
        rows: list[dict[str, Any]] = []
        if runs and self._pool is None:  # the first run here: it compiles what the cache lacks, once
            rows.append(W.run_one(self._ctx, runs[0]))
            runs = runs[1:]
            if runs:
                self._pool = make_pool(self.backend, self._ctx, self.workers, self.address)
        if runs:
            outcome = execute(self._pool, runs, rows.extend, batch_seconds=self.batch_seconds, progress=False)
            if outcome.interrupted:  # execute has stopped the workers
                self._pool = None
                raise KeyboardInterrupt
        return sorted(rows, key=lambda r: r["run_id"])

    def close(self) -> None:
        """Stop the workers (a later :meth:`map` starts new ones)."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> FunctionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
