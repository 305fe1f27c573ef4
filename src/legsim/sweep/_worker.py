"""What runs in a sweep's worker process: one run into one table row, a batch of runs, the warm-up.

A worker gets the sweep's :class:`Context` once (the scenario's TOML data and what to keep of each
run), then batches of :class:`Run`. Each run parses its own scenario (the variation applied, then
:func:`legsim.scenario.parse_scenario`), so a run's result depends on nothing but its variation
and seed: not on the worker, the batch, or what the worker ran before. A run that fails is a row
with the engine's status and message; nothing a run does ends the batch except an interrupt.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, SimulationError, closest, describe_failure
from ..hybrid import Result
from ..runner import simulate_scenario, summarize
from ..scenario import Scenario, parse_scenario
from .outputs import Output, load_function, plain_value, reduce_outputs
from .spec import apply_variation

__all__ = ["Context", "Run", "BatchReport", "run_one", "run_batch", "init_worker", "warm",
           "reseed_sensors", "numba_cache_misses", "with_run_timeout", "sweep_function", "check_keywords"]

BARRIER_TIMEOUT = 60.0
"""How long a ready worker waits for the others [s] before it starts alone."""

STATS = ("steps", "rejected", "fevals", "events")
"""Integrator statistics kept per row (besides ``t_end`` and ``wall_time_s``)."""


@dataclass(frozen=True)
class Run:
    """One run of a sweep: its id (index in the spec), variation (dotted key -> value), noise seed."""

    run_id: int
    variation: dict[str, Any]
    seed: int


@dataclass(frozen=True)
class Context:
    """What every run of one sweep shares (sent to each worker once)."""

    token: str
    """The spec's hash: a worker that already holds this context is not warmed again."""
    source: str
    """Path of the scenario file (relative files in it are found beside it)."""
    data: dict[str, Any]
    outputs: tuple[Output, ...] = ()
    summary: Callable[..., Any] | str | None = None
    records_dir: str | None = None
    """``OUT/runs`` when each run's records are kept, else None."""
    common_noise: bool = False
    warm_run: Run | None = None
    warm_t_final: float = 0.0
    run_timeout: float | None = None
    """Each run's wall-time limit [s] (``integrator.wall_time_limit`` unless its variation sets one)."""
    function: str | None = None
    """A function sweep's ``"module:function"`` (``source`` and ``data`` then unused)."""


@dataclass(eq=False)  # hashed by identity: the serial pool's handle is the report itself
class BatchReport:
    """A finished batch: one row per run, and who ran it (pid, host, start-up, numba cache misses)."""

    rows: list[dict[str, Any]]
    worker: dict[str, Any] = field(default_factory=dict)


_STATE: dict[str, Any] = {}


def reseed_sensors(sc: Scenario, seed: int) -> int:
    """Reseed a robot scenario's sensor noise from the run's ``seed`` (:meth:`.Robot.reseed`);
    0 for a registered model, which has no random inputs."""
    if sc.robot is None:
        return 0
    n = sc.robot.reseed(seed)
    sc.model = sc.robot.model
    return n


def numba_cache_misses() -> int:
    """How many of legsim's numba functions this process compiled instead of loading from the cache."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover - numba is a dependency
        return 0
    misses = 0
    for name, mod in list(sys.modules.items()):
        if name.startswith("legsim") and mod is not None:
            for v in list(vars(mod).values()):
                if isinstance(v, Dispatcher):
                    misses += sum(v.stats.cache_misses.values())
    return misses


def _summaries(ctx: Context, sc: Scenario | None, result: Result) -> dict[str, Any]:
    out = dict(summarize(sc, result)) if sc is not None else {}
    if ctx.summary is not None:
        fn = load_function(ctx.summary) if isinstance(ctx.summary, str) else ctx.summary
        got = fn(result)
        if not isinstance(got, dict):
            raise TypeError(f"the summary function returned a {type(got).__name__}, expected a dict")
        out.update(got)
    return {str(k): plain_value(v) for k, v in out.items()}


def _stats(res: Result | None, t0: float) -> dict[str, Any]:
    st = res.stats if res is not None else {}
    t_end = float(res.t[-1]) if res is not None and res.n else t0
    return {"t_end": t_end, **{k: int(st[k]) if k in st else None for k in STATS}}


def with_run_timeout(data: dict[str, Any], run_timeout: float | None) -> dict[str, Any]:
    """Scenario ``data`` whose ``[integrator]`` table has ``wall_time_limit = run_timeout`` [s], unless
    it sets its own (``data`` is changed in place and returned)."""
    if run_timeout:
        table = data.setdefault("integrator", {})
        if isinstance(table, dict):  # anything else is the scenario parser's to refuse
            table.setdefault("wall_time_limit", float(run_timeout))
    return data


def _failed(row: dict[str, Any], exc: Exception) -> Result | None:
    """Set ``row``'s status and message for a run that raised ``exc`` and return the engine's partial
    result, if any; a run the user interrupted (Ctrl-C inside the engine) raises KeyboardInterrupt."""
    if isinstance(exc, SimulationError):
        if exc.result is not None and exc.result.status == "interrupted":
            raise KeyboardInterrupt from None
        row.update(status=exc.result.status if exc.result is not None else "failed", message=str(exc))
        return exc.result
    if isinstance(exc, InputError):
        row.update(status="input_error", message=str(exc))
    else:
        row.update(status="error", message=describe_failure(exc))
    return None


def run_one(ctx: Context, run: Run, warm_up: bool = False) -> dict[str, Any]:
    """Run ``run`` and return its row: run_id, the variation's values, seed, status, message, the
    outputs and summaries, t_end [s], integrator statistics and wall_time_s [s].

    ``status`` is ``"done"``; or the engine's reason a run stopped (``"step_underflow"``,
    ``"chattering"``, ``"controller_error"``, ``"wall_time_limit"`` after ``ctx.run_timeout``, ...;
    outputs empty); ``"summary_failed"`` (the run
    finished, a summary function raised); ``"input_error"`` (the worker's scenario was refused);
    ``"error"`` (anything else raised). ``warm_up``: the warm-up, a run to ``ctx.warm_t_final`` without
    records or summaries (the user's code does not run in the parent; it compiles nothing of legsim's).
    """
    wall0 = time.perf_counter()
    row: dict[str, Any] = {"run_id": run.run_id, **run.variation, "seed": run.seed}
    if ctx.function is not None:
        return _call_function(ctx, run, row, wall0)
    data = with_run_timeout(apply_variation(ctx.data, run.variation), ctx.run_timeout)
    if warm_up:
        data["t_final"] = ctx.warm_t_final
    writer = None
    result: Result | None = None
    t0 = 0.0
    try:
        sc = parse_scenario(data, ctx.source)
        t0 = sc.t0
        if not ctx.common_noise:
            reseed_sensors(sc, run.seed)
        if ctx.records_dir is not None and not warm_up:
            from ..io.results import RunWriter

            meta = {"scenario": sc.resolved(),
                    "sweep": {"run_id": run.run_id, "variation": run.variation, "seed": run.seed}}
            writer = RunWriter(Path(ctx.records_dir) / f"run-{run.run_id:05d}", sc.model, meta)
        result = simulate_scenario(sc, [writer] if writer is not None else [], progress=False)
        status, message = "done", ""
        values: dict[str, Any] = reduce_outputs(result, ctx.outputs)
        try:
            values.update({} if warm_up else _summaries(ctx, sc, result))
        except Exception as exc:  # the run is kept; its summary is not
            status, message = "summary_failed", describe_failure(exc)
        row.update(status=status, message=message, **values)
    except Exception as exc:
        result = _failed(row, exc)
    row.update(_stats(result, t0))
    if writer is not None:
        st = result.stats if result is not None else {}
        writer.meta["summary"] = {k: v for k, v in row.items() if "@" in k}
        writer.finish(row["status"], row["message"], st)
    row["wall_time_s"] = time.perf_counter() - wall0
    return row


def sweep_function(ref: str) -> tuple[Callable[..., Any], bool]:
    """A function sweep's function (loaded once per process) and whether it takes ``seed``."""
    import inspect

    fn = load_function(ref, "sweep function")
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):  # a builtin without a signature: no seed
        return fn, False
    takes = "seed" in params or any(p.kind == p.VAR_KEYWORD for p in params.values())
    return fn, takes


def check_keywords(ref: str, keys: Iterable[str]) -> None:
    """An InputError unless the function ``ref`` (loaded here) takes every one of ``keys`` as a keyword
    argument (a function with ``**kwargs`` takes any)."""
    import inspect

    fn, _ = sweep_function(ref)
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return
    names = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for k in keys:
        if k not in names:
            raise InputError(f"sweep function {ref}: no keyword argument {k!r}{closest(k, names)}; it takes "
                             f"{', '.join(names) or 'none'}")


def _call_function(ctx: Context, run: Run, row: dict[str, Any], wall0: float) -> dict[str, Any]:
    """A function sweep's run (module docstring of :mod:`.spec`): its returned dict, or its Result
    reduced by the outputs and the summary, as the row's columns."""
    result: Result | None = None
    try:
        fn, takes_seed = sweep_function(str(ctx.function))
        kwargs = dict(run.variation)
        if takes_seed:
            kwargs.setdefault("seed", run.seed)
        got = fn(**kwargs)
        if isinstance(got, Result):
            result = got
            values = reduce_outputs(got, ctx.outputs)
            values.update(_summaries(ctx, None, got))
        elif isinstance(got, dict):
            values = {str(k): plain_value(v) for k, v in got.items()}
        else:
            raise TypeError(f"{ctx.function} returned a {type(got).__name__}, expected a dict of values or "
                            "a legsim Result")
        row.update(status="done", message="", **values)
    except Exception as exc:
        result = _failed(row, exc)
    row.update(_stats(result, 0.0))
    row["wall_time_s"] = time.perf_counter() - wall0
    return row


def warm(ctx: Context) -> dict[str, Any]:
    """Make this process ready for ``ctx``: the warm-up run (a short run of the first variation, so
    every compiled function is loaded from numba's cache now rather than inside a timed run).
    Returns who this worker is: pid, host, when it was ready, how long warming took, numba misses."""
    if _STATE.get("token") == ctx.token:
        return _STATE["info"]
    t = time.perf_counter()
    if ctx.records_dir is not None:
        import legsim.io.results  # noqa: F401  (pyarrow: not inside the first run's wall time)
    if ctx.warm_run is not None:
        run_one(ctx, ctx.warm_run, warm_up=True)
    info = {"pid": os.getpid(), "host": socket.gethostname(), "ready_at": time.time(),
            "warm_s": time.perf_counter() - t, "runs": 0}
    _STATE.update(token=ctx.token, ctx=ctx, info=info)
    return info


def init_worker(ctx: Context, barrier: Any = None) -> None:
    """Initializer of a local worker process: Ctrl-C is the parent's to handle (it stops the workers
    and keeps what finished); :func:`warm`; then wait at ``barrier`` (a multiprocessing Barrier of
    all the pool's workers) so that every worker starts on the batches at once, rather than the
    first one ready taking all of a quick sweep while the others still load."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    info = warm(ctx)
    if barrier is not None:
        try:
            barrier.wait(timeout=BARRIER_TIMEOUT)
        except threading.BrokenBarrierError:  # a worker failed to start: go on without waiting
            pass
        info["ready_at"] = time.time()


def run_batch(ctx: Context | None, runs: Sequence[Run]) -> BatchReport:
    """Run ``runs`` one after another (``ctx`` None: the one this worker was initialised with)."""
    ctx = ctx if ctx is not None else _STATE["ctx"]
    assert ctx is not None
    info = warm(ctx)
    rows = [run_one(ctx, run) for run in runs]
    info["runs"] += len(rows)
    return BatchReport(rows, {**info, "cache_misses": numba_cache_misses()})
