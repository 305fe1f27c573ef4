"""``run_sweep``: validate every variation, compile once, run the batches, keep one table.

Order of work: (1) every run's scenario is parsed in this process, so a bad key or value is an
InputError naming the run, the key and what is allowed before anything starts; the outputs are
checked against the model's record columns. (2) The output directory is opened: a finished run
found there is skipped (resume), a different spec there is refused. (3) The warm-up: the first
pending run for a few milliseconds of simulated time in this process, which compiles whatever
numba's on-disk cache lacks *once*, before any worker starts (concurrent compilations into one
cache have corrupted it: numba issue #4807); workers then load the cache (the table's
``sweep.json`` records each worker's numba cache misses: 0 when this worked). (4) The batches run on
the backend; rows are written as batches finish; the parts are merged into ``sweep.parquet``.
"""

from __future__ import annotations

import math
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._machine import check_workers
from .._progress import check_progress
from ..errors import InputError, LegsimError, check_echo, check_flag, check_number, closest
from ..userfiles import read_text, user_path
from . import _worker as W
from .backends import check_backend, cpu_count, make_pool
from .outputs import check_outputs, load_function, parse_outputs, summary_ref
from .schedule import execute
from .spec import Sweep
from .table import SweepDir

__all__ = ["run_sweep", "resume_sweep", "SweepResult", "WARM_TIME"]

WARM_TIME = 0.01
"""Simulated seconds of the warm-up run [s] (enough to call every compiled function once)."""

RESUME_KEYWORDS = ("workers", "backend", "address", "runs", "overwrite", "batch_seconds", "progress", "echo")
"""The keywords of :func:`run_sweep` that :func:`resume_sweep` passes on: how to run, not what."""
SPEC_KEYWORDS = ("outputs", "records", "common_noise", "run_timeout")
"""What a sweep's ``sweep.json`` keeps of how it was made (``run_timeout`` when it was given)."""

BATCH_SECONDS = {"local": 1.0, "serial": 1.0, "ray": 5.0}
"""Target wall time of one batch [s]: Ray's guidance is tasks of seconds, not milliseconds."""


@dataclass
class SweepResult:
    """A sweep's table and how this call went.

    Attributes
    ----------
    out : the output directory.
    table : ``pyarrow.Table``, one row per finished run (all of them, not only this call's), sorted
        by run_id (``.to_pandas()`` for a DataFrame, with pandas installed: it is not a dependency).
    runs : runs in the spec; ``ran`` rows written by this call; ``skipped`` runs already in the table.
    interrupted : Ctrl-C stopped this call (resume by running the same sweep again).
    stats : timings [s] (``validate_s``, ``warm_s`` the parent's warm-up, ``start_s`` pool start to
        the first worker ready, ``run_s`` first worker ready to the last row, ``total_s``), the
        ``workers`` (pid, host, warm_s, runs, numba ``cache_misses``) and ``batches``.
    """

    out: Path
    table: Any
    runs: int
    ran: int
    skipped: int
    interrupted: bool
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> int:
        """Rows whose status is not "done"."""
        return sum(s != "done" for s in self.table.column("status").to_pylist()) \
            if "status" in self.table.column_names else 0

    def column(self, name: str) -> Any:
        """One column of the table as a numpy array (nulls as NaN for numbers)."""
        import numpy as np

        if name not in self.table.column_names:
            raise InputError(f"the sweep table has no column {name!r}; columns: "
                             f"{', '.join(self.table.column_names)}")
        return np.asarray(self.table.column(name).to_numpy(zero_copy_only=False))


def _validate(sweep: Sweep, outputs: Sequence[Any], run_timeout: float | None) -> list[float]:
    """Parse every run's scenario (with the run timeout); check the outputs; return each run's warm-up
    t_final [s]."""
    from ..scenario import parse_scenario

    if sweep.function is not None:
        W.check_keywords(str(sweep.function), sweep.keys)
        return [0.0] * len(sweep.runs)

    warm_t: list[float] = []
    checked: set[str] = set()
    n = len(sweep.runs)
    for i, var in enumerate(sweep.runs):
        try:
            sc = parse_scenario(W.with_run_timeout(sweep.scenario_data(i), run_timeout), str(sweep.scenario))
        except InputError as exc:
            desc = ", ".join(f"{k} = {v!r}" for k, v in var.items()) or "the scenario as it is"
            raise InputError(f"sweep run {i + 1} of {n} (run_id {i}; {desc}): {exc}") from None
        if sc.model_name not in checked:
            check_outputs(outputs, sc.model, f"model '{sc.model_name}'")
            checked.add(sc.model_name)
        warm_t.append(sc.t0 + min(sc.t_final - sc.t0, WARM_TIME))
    return warm_t


def _check_sendable(summary: Callable[..., Any], ref: str | None) -> None:
    """InputError unless local worker processes can receive ``summary`` (pickled by reference)."""
    import sys

    hint = "define it in a module or file and give it, or 'module:function' / 'file.py:function'"
    try:
        pickle.dumps(summary)
    except Exception:
        raise InputError(f"summary = {ref}: the workers cannot receive this function (a lambda or a nested "
                         f"function does not pickle); {hint}") from None
    if getattr(summary, "__module__", None) == "__main__" and \
            getattr(sys.modules.get("__main__"), "__file__", None) is None:
        raise InputError(f"summary = {ref}: a function defined in an interactive session (a notebook, "
                         f"python -c) does not exist in the worker processes; {hint}, or use "
                         "backend='serial'")


def _run_ids(runs: Sequence[int] | None, n: int) -> list[int]:
    if runs is None:
        return list(range(n))
    if not isinstance(runs, (list, tuple, range, np.ndarray)):
        raise InputError(f"runs = {runs!r}: expected a list of run_ids (or None: all)")
    out = []
    for r in runs:
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 0 <= r < n:
            raise InputError(f"runs: {r!r} is not a run_id of this sweep (0 to {n - 1})")
        out.append(int(r))
    return sorted(set(out))


def run_sweep(sweep: Sweep, out: str | Path, *, outputs: Sequence[str] | str | None = None,
              summary: Callable[..., Any] | str | None = None, records: bool = False,
              common_noise: bool = False, workers: int | None = None, backend: str = "local",
              address: str | None = None, runs: Sequence[int] | None = None, overwrite: bool = False,
              batch_seconds: float | None = None, run_timeout: float | None = None,
              progress: bool | None = None, echo: Callable[[str], None] = print) -> SweepResult:
    """Run every variation of ``sweep`` into ``out`` (module docstring) and return the table.

    Parameters
    ----------
    sweep : the :class:`~legsim.sweep.Sweep` (scenario and variations).
    out : output directory: ``sweep.parquet``, ``sweep.json`` and with ``records`` ``runs/run-NNNNN/``.
    outputs : ``"COLUMN@REDUCTION"`` summaries of record columns (final, initial, min, max, mean).
    summary : a function ``summary(result) -> dict`` (module-level, so it pickles) or its
        ``"module:function"`` / ``"file.py:function"``; its keys become columns. The model's own
        summary (``legsim.runner.SUMMARIES``, e.g. the hexapod's) is always added.
    records : also keep each run's records (``legsim.io.load_run(out / "runs" / "run-00003")``).
    common_noise : every run uses the noise seeds of the robot's hardware file (common random
        numbers: differences between runs come from the variations alone). Default: each run's
        sensors are reseeded from the run's ``seed`` column (from the sweep's seed and run_id).
    workers : parallel workers (local: processes, default all cores; ray: at most this many CPUs).
    backend : ``"local"``, ``"ray"`` (``address=`` a cluster, else a local Ray instance) or
        ``"serial"`` (this process).
    runs : only these run_ids now (the others can follow later into the same ``out``).
    overwrite : replace a different sweep found in ``out`` instead of refusing.
    batch_seconds : target wall time per batch [s] (default 1 locally, 5 on Ray).
    run_timeout : stop a run after this much wall time [s] (its row: status ``"wall_time_limit"``, the
        sweep goes on), even inside a Python controller that never returns; a run's own
        ``integrator.wall_time_limit`` wins. Default: none.
    progress : progress bar (None: when stderr is a terminal).
    echo : where the one-line reports go (None-like ``lambda s: None`` to silence).
    """
    t_begin = time.perf_counter()
    if not isinstance(sweep, Sweep):
        example = f" (e.g. Sweep({str(sweep)!r}, grid=...))" if isinstance(sweep, str | Path) else ""
        raise InputError(f"sweep = {sweep!r}: expected a legsim.sweep.Sweep{example}")
    user_path(out, "run_sweep: out")
    check_backend("run_sweep", backend, address)
    for name, flag in (("records", records), ("common_noise", common_noise), ("overwrite", overwrite)):
        check_flag("run_sweep", name, flag)
    check_progress(progress, "run_sweep")
    if not (outputs is None or isinstance(outputs, (str, list, tuple))):
        raise InputError(f"outputs = {outputs!r}: expected 'COLUMN@REDUCTION' or a list of them")
    workers = check_workers("run_sweep", workers)
    if batch_seconds is not None:
        batch_seconds = check_number("run_sweep", "batch_seconds", batch_seconds, lo=0.0, lo_open=True)
    if sweep.function is not None and (records or run_timeout is not None):
        raise InputError("records and run_timeout are for scenario sweeps: a function sweep keeps what its "
                         "function returns (and may run with Options(wall_time_limit=...) itself)")
    if run_timeout is not None:
        run_timeout = check_number("run_sweep", "run_timeout", run_timeout, lo=0.0,
                                   lo_open=True)

    check_echo("run_sweep", echo)
    outs = parse_outputs(outputs)
    sref = summary_ref(summary)
    if isinstance(summary, str):
        load_function(summary)  # an InputError here rather than in every worker
    elif callable(summary) and backend == "local":
        _check_sendable(summary, sref)
    n = len(sweep.runs)
    wanted = _run_ids(runs, n)
    warm_t = _validate(sweep, outs, run_timeout)
    spec: dict[str, Any] = {"scenario": sweep.scenario, "data": sweep.data, "variations": list(sweep.runs),
                            "keys": sweep.keys, "seed": sweep.seed, "outputs": [o.name for o in outs],
                            "summary": sref, "records": bool(records), "common_noise": bool(common_noise)}
    if sweep.function is not None:  # only then: the specs of scenario sweeps stay as they were
        spec["function"] = sweep.function
    if run_timeout is not None:  # only when given: sweeps made before the option resume unchanged
        spec["run_timeout"] = float(run_timeout)
    sd = SweepDir(out, spec, overwrite=overwrite, keys=sweep.keys)
    done = sd.done_ids()
    todo = [W.Run(i, sweep.runs[i], sweep.run_seed(i)) for i in wanted if i not in done]
    t_valid = time.perf_counter()
    sd.write_meta(design=sweep.design(), status="running")
    function = sweep.function is not None
    ctx = W.Context(token=sd.hash, source=sweep.source, data=dict(sweep.data or {}), outputs=outs,
                    summary=summary, records_dir=str(sd.dir / "runs") if records else None,
                    common_noise=common_noise, warm_run=todo[0] if todo and not function else None,
                    warm_t_final=warm_t[todo[0].run_id] if todo else 0.0, run_timeout=run_timeout,
                    function=sweep.function)
    name = sweep.source if function else Path(sweep.source).name
    stats: dict[str, Any] = {"validate_s": t_valid - t_begin, "backend": backend}
    interrupted, ran = False, 0
    already = f" ({len(done)} already in {out})" if done else ""
    if not todo:
        echo(f"sweep: nothing to run: the {len(wanted)} runs asked for are in {out} already")
    elif function:
        echo(f"sweep: {_runs(len(todo))} of {name}{already}; the first runs here, as the warm-up")
    if todo and function:  # a function cannot be run short: its first run, here, is the warm-up
        try:
            sd.add_rows([W.run_one(ctx, todo[0])])
            ran, todo = 1, todo[1:]
        except KeyboardInterrupt:
            interrupted, todo = True, []
    if todo:
        W.warm(ctx)  # compile what the cache lacks, here, once
        t_warm = time.perf_counter()
        stats["warm_s"] = t_warm - t_valid
        t_pool = time.time()
        if backend == "local":  # no more processes than runs
            workers = min(workers or cpu_count(), len(todo))
        pool = make_pool(backend, ctx, workers, address)
        what = f"the other {_runs(len(todo))}" if function else f"{_runs(len(todo))} of {name}{already}"
        echo(f"sweep: {what} on {pool.slots} {backend} worker{'s' if pool.slots != 1 else ''}")
        outcome = None
        try:
            outcome = execute(pool, todo, sd.add_rows, progress=progress, total=len(wanted),
                              done=len(wanted) - len(todo),
                              batch_seconds=batch_seconds or BATCH_SECONDS[backend])
        except LegsimError:  # workers that cannot start: keep what is there, say the sweep stopped
            sd.consolidate()
            sd.write_meta(status="failed")
            raise
        finally:
            if outcome is None or not outcome.interrupted:
                pool.close()
        interrupted, ran = outcome.interrupted, ran + outcome.rows
        workers_seen = list(outcome.workers.values())
        ready = max(min((w["ready_at"] for w in workers_seen), default=math.nan), t_pool)
        stats.update(start_s=ready - t_pool, run_s=outcome.last_result - ready, batches=outcome.batches,
                     crashes=outcome.crashes, workers=workers_seen)
    table = sd.consolidate()
    stats["total_s"] = time.perf_counter() - t_begin
    finished = table.num_rows
    sd.write_meta(status="interrupted" if interrupted else "finished" if finished == n else "partial",
                  runs_done=finished, last_call=stats)
    if interrupted:
        echo(f"sweep interrupted: {finished} of {n} runs are in {sd.dir / 'sweep.parquet'}; resume with: "
             f"legsim sweep --resume --out {sd.dir}")
    return SweepResult(out=sd.dir, table=table, runs=n, ran=ran, skipped=len(wanted) - len(todo),
                       interrupted=interrupted, stats=stats)


def _runs(n: int) -> str:
    return f"{n} run{'' if n == 1 else 's'}"


def resume_sweep(out: str | Path, *, summary: Callable[..., Any] | str | None = None,
                 **kwargs: Any) -> SweepResult:
    """Continue the sweep stored in ``out`` (its ``sweep.json``): run what is not in its table yet.

    ``summary``: the sweep's summary function when it was given as a Python function (``sweep.json``
    keeps only its name); a ``"module:function"`` name stored there is loaded again by itself.
    Other keywords as :func:`run_sweep` (``workers``, ``backend``, ``address``, ``progress``, ...).
    """
    import json

    meta_file = user_path(out, "resume_sweep: out") / "sweep.json"
    if not meta_file.exists():
        raise InputError(f"resume_sweep: out = '{out}' holds no sweep to resume: no sweep.json inside")
    for key in kwargs:
        if key not in RESUME_KEYWORDS:
            kept = " (the sweep in out keeps its own)" if key in SPEC_KEYWORDS else ""
            raise InputError(f"resume_sweep: no keyword '{key}'{kept}{closest(key, RESUME_KEYWORDS)}; it "
                             f"takes summary and {', '.join(RESUME_KEYWORDS)}")
    try:
        spec = json.loads(read_text(meta_file, "sweep file"))["spec"]
        missing = [k for k in ("variations", "seed", *SPEC_KEYWORDS[:-1]) if k not in spec]
        if missing or "function" not in spec and not ("scenario" in spec and "data" in spec):
            raise KeyError(missing)
    except (json.JSONDecodeError, KeyError, TypeError):
        raise InputError(f"{meta_file}: not a legsim sweep file") from None
    ref = spec.get("summary")
    if summary is None and ref is not None:
        try:
            load_function(ref)
        except InputError:
            raise InputError(f"the sweep in '{out}' has the summary function {ref!r}, which cannot be "
                             "loaded by name here; resume from Python: resume_sweep(out, summary=function)") \
                from None
        summary = ref
    elif summary is not None and summary_ref(summary) != ref:
        raise InputError(f"summary = {summary_ref(summary)!r}, but the sweep in '{out}' was made with "
                         f"{ref!r}")
    if "function" in spec:
        sweep = Sweep(function=spec["function"], variations=spec["variations"], seed=spec["seed"])
    else:
        sweep = Sweep(spec["scenario"], variations=spec["variations"], seed=spec["seed"], data=spec["data"])
    result = run_sweep(sweep, out, outputs=spec["outputs"], summary=summary, records=spec["records"],
                       common_noise=spec["common_noise"], run_timeout=spec.get("run_timeout"), **kwargs)
    return result
