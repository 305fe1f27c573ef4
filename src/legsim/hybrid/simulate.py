"""`simulate`: run a hybrid model with the compiled engine (SimSect ``SS_IntegTraj``, digest §1.7).

The kernel fills fixed-size record and event buffers; this driver hands each full buffer to
the caller's sinks (so files grow as the run goes), keeps the in-memory result, shows a
progress bar on runs longer than a couple of seconds, and turns kernel status codes into
messages that say the time, the mode and the cause. A failed or interrupted run keeps every
record made before it stopped.
"""

from __future__ import annotations

import dataclasses
import math
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .._compiling import engine
from .._compiling import watch as watch_compilation
from .._direct import entry_point
from .._progress import check_progress
from ..errors import (
    InputError,
    Interrupted,
    SimulationError,
    check_flag,
    check_number,
    check_whole,
    describe_failure,
    real_number,
    shown,
)
from . import _layout as L
from . import signatures as sig
from ._kernels import work_sizes
from .model import Model
from .options import Method, Options
from .result import Result, event_dtype

__all__ = ["simulate", "RecordSink", "SampleCallback", "Monitor", "WallTimeExceeded"]

RecordSink = Callable[[np.ndarray, np.ndarray, np.ndarray], None]
"""Called with (records (n, 1 + nx + ny), modes (n,), events (m,) event_dtype(nx)) per chunk. A sink
with a method ``run_ended(status, message, stats)`` is also told how each run ended, after its last
chunk and before :func:`simulate` returns or raises (a :class:`legsim.io.RunWriter` writes it into
run.json)."""


def tell_sinks(sinks: Sequence[RecordSink], result: Result) -> None:
    """Tell the sinks that have a ``run_ended`` method how the run of ``result`` ended."""
    for sink in sinks:
        ended = getattr(sink, "run_ended", None)
        if ended is not None:
            ended(result.status, result.message, result.stats)

SampleCallback = Callable[[float, np.ndarray, int], None]
"""A controller in Python: called as ``callback(t, x, mode)`` at sample instants, after the model's
``sample`` hook, with the live state ``x`` (nx,) that it may change in place (the model's held
commands); always the same array object, so views of it can be made once."""

Monitor = Callable[[np.ndarray, int], None]
"""Watches a run: ``monitor(record, mode)`` with the latest record (1 + nx + ny,) as the run goes."""

_REC_CAP = 4096
_EV_CAP = 1024
_RECENT = 20  # event times kept to tell chattering from a used-up transition budget
_STEPS_PER_CALL = 20_000
_MONITOR_STEPS = 500  # a watched run returns to Python more often (a live view at 30+ frames/s)


@sig.outputs
def _no_outputs(t, x, p, mode, y):  # pragma: no cover - trivial
    return None


class WallTimeExceeded(BaseException):
    """Raised inside a Python controller that outlasts ``Options.wall_time_limit`` (a BaseException,
    so that a controller's own ``except Exception`` does not swallow it); the run then stops with
    status "wall_time_limit"."""


class _WallClock:
    """The run's wall-time limit [s] (0: none): :meth:`expired` at each return from the engine, and a
    one-shot SIGALRM timer that interrupts a Python controller still running at the deadline (main
    thread, POSIX only, and only when no other real-time timer is set, such as a test runner's
    timeout; elsewhere only the returns are checked). Elsewhere than in the controller the timer only
    marks the deadline, so that no record or sink write is cut in half."""

    def __init__(self, limit: float):
        self.deadline = time.perf_counter() + limit if limit > 0.0 else math.inf
        self.limit = limit
        self.in_controller = False
        self._old: Any = None
        self._armed = (limit > 0.0 and hasattr(signal, "setitimer")
                       and threading.current_thread() is threading.main_thread()
                       and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))

    def _ring(self, signum, frame) -> None:
        if self.in_controller:
            raise WallTimeExceeded(f"the controller was still running at the wall-time limit of "
                                   f"{self.limit:g} s")

    def expired(self) -> bool:
        return time.perf_counter() >= self.deadline

    def __enter__(self) -> _WallClock:
        if self._armed:
            self._old = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, self.limit)
        return self

    def __exit__(self, *exc) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, 0.0)
            signal.signal(signal.SIGALRM, self._old)


def check_watchers(owner: str, sinks: object, monitor: object) -> None:
    """An :class:`InputError` naming ``owner`` unless ``sinks`` is a list of functions (each called with a
    chunk of records) and ``monitor`` a function or None (checked by :func:`simulate`, and first by the
    runners that open a run directory for them)."""
    if not (isinstance(sinks, (list, tuple)) and all(callable(f) for f in sinks)):
        raise InputError(f"{owner}: 'sinks' = {shown(sinks)}, expected a list of functions sink(records, "
                         "modes, events) (a RunWriter is one)")
    if not (monitor is None or callable(monitor)):
        raise InputError(f"{owner}: 'monitor' = {shown(monitor)}, expected a function monitor(record, mode) "
                         "or None")


def simulate(model: Model, t_final: float,
             x0: Mapping[str, float] | Sequence[float] | np.ndarray | None = None,
             params: Mapping[str, float] | Sequence[float] | np.ndarray | None = None,
             options: Options | None = None, mode0: int | None = None, t0: float = 0.0,
             sinks: Sequence[RecordSink] = (), progress: bool | None = None,
             raise_on_error: bool = True, controller: SampleCallback | None = None,
             controller_every: int = 1, keep_records: bool = True,
             monitor: Monitor | None = None) -> Result:
    """Integrate ``model`` from ``t0`` to ``t_final``.

    Parameters
    ----------
    model : the hybrid model.
    t_final : final time [s]; the last record is at exactly this time.
    x0 : initial state: a name -> value mapping over the defaults, or a full vector (nx,).
    params : parameters: a name -> value mapping over the defaults, or a full vector (np,).
    options : integrator options (defaults: DP45, rtol 1e-8, atol 1e-10); ``method="radau"`` or
        ``"bdf"`` runs scipy's stiff solvers on the same hooks (:mod:`legsim.hybrid.stiff`; no
        monitor, no progress bar, sinks get one chunk at the end).
    mode0 : initial mode; None lets ``model.init_partition`` choose (or 0 without one).
    sinks : callables receiving each chunk of records and events as the run goes (:data:`RecordSink`),
        and told how the run ended if they have a ``run_ended`` method.
    progress : show a progress bar (None: only when the run lasts more than ~2 s of wall time).
    raise_on_error : raise :class:`SimulationError` on failure (its ``result`` keeps the
        records); False returns the partial result with ``status``/``message`` set.
    keep_records : False streams: records and events go only to ``sinks`` (a run directory, say),
        and the result holds only the last record, so that memory stays bounded however long the
        run (read the records back with :func:`legsim.io.load_run`).
    monitor : called as ``monitor(record, mode)`` with the latest record (1 + nx + ny,) (a view,
        valid only during the call) each time the engine returns with new records, which it does
        at least every 500 steps while a monitor is set (a live viewer:
        :class:`legsim.viz.viewer.LiveView`).
    controller : a controller in Python (:data:`SampleCallback`), called at every
        ``controller_every``-th sample instant (k = 0, n, 2n, ...; the sample period is the model's
        or ``options.sample_period``) after the model's ``sample`` hook. The engine integrates
        compiled between calls; what the callback writes into ``x`` holds until it writes again.
        An exception it raises stops the run like a model error: the message says the time,
        the mode and the cause, and the records so far are kept.

    Returns
    -------
    Result with ``t`` (n,), ``x`` (n, nx), ``mode`` (n,), ``y`` (n, ny), ``events``, ``stats``.
    """
    if not isinstance(model, Model):
        raise InputError(f"simulate: model = {model!r}, expected a legsim.hybrid.Model")
    check_watchers(model.name, sinks, monitor)
    watch_compilation()  # a first run on a machine compiles: say so rather than sit silent
    opts = options if options is not None else Options()
    if not isinstance(opts, Options):
        raise InputError(f"options must be a legsim.hybrid.Options, got {type(opts).__name__}")
    if opts.sample_period == 0.0 and model.sample_period > 0.0:  # the model's own controller rate
        opts = dataclasses.replace(opts, sample_period=model.sample_period)
    t0 = check_number(model.name, "t0", t0)  # a NaN start ran forever: every comparison with it is False
    t_final = real_number(model.name, "t_final", t_final)
    if not math.isfinite(t_final) or t_final <= t0:
        raise InputError(f"{model.name}: 't_final' = {t_final!r}: the final time must be a finite number "
                         f"greater than t0 = {t0}")
    check_progress(progress, model.name)
    raise_on_error = check_flag(model.name, "raise_on_error", raise_on_error)
    keep_records = check_flag(model.name, "keep_records", keep_records)
    p = model.params(params, "params")
    x = model.state(x0, "x0")
    if mode0 is None:
        if model.init_partition is not None:
            x, mode = model.init_partition(x, p)  # x is a fresh array of ours
            x = np.ascontiguousarray(x, dtype=np.float64)
            mode = check_whole(f"model '{model.name}': init_partition", "mode", mode)
        else:
            mode = 0
    else:
        mode = check_whole(model.name, "mode0 (the initial mode)", mode0)

    if controller is not None:
        if opts.sample_period <= 0.0:
            raise InputError(f"{model.name}: a controller needs a sample period: the model has none "
                             "and options.sample_period is 0")
        controller_every = check_whole(model.name, "controller_every", controller_every, lo=1)
    _check_memory(model, t_final - t0, opts.record_period, keep_records)
    if opts.method_code.stiff:  # scipy's implicit solvers between events (legsim.hybrid.stiff)
        from .stiff import _simulate_stiff

        if monitor is not None or opts.wall_time_limit > 0.0:
            what = "feed a live monitor" if monitor is not None else "keep a wall-time limit"
            raise InputError(f"method {opts.method_code.name.lower()!r} runs through scipy and cannot "
                             f"{what}; use dp45, rk4, rk4_fixed, dp5_fixed or euler")

        return _simulate_stiff(model, t_final, x, p, mode, opts, t0, sinks, controller, controller_every,
                               keep_records, raise_on_error)
    # imported here: its import compiles it on a first run (perhaps in the background)
    advance = engine(stiff=opts.method_code == Method.ROS23)
    hooks = model.hooks(_no_outputs)
    optf, opti = opts.pack(t0, t_final, _STEPS_PER_CALL if monitor is None else _MONITOR_STEPS,
                           controller_every if controller else 0)
    opti[L.OI_NERR] = model.error_states
    sf = np.zeros(L.N_SF)
    sf[L.SF_T] = t0
    sf[L.SF_H] = opts.h0
    si = np.zeros(L.N_SI, dtype=np.int64)
    si[L.SI_MODE] = mode
    width = 1 + model.nx + model.ny
    rec = np.empty((_REC_CAP, width))
    rec_mode = np.empty(_REC_CAP, dtype=np.int64)
    ev_t = np.empty((_EV_CAP, 1 + model.nx))
    ev_i = np.empty((_EV_CAP, 4), dtype=np.int64)
    nwork, niwork = work_sizes(model.nx, model.nguard, model.ny)
    work = np.empty(nwork)
    iwork = np.zeros(niwork, dtype=np.int64)
    gdir = model.guard_direction
    gplace = model.guard_placement

    rec_chunks: list[np.ndarray] = []
    mode_chunks: list[np.ndarray] = []
    ev_chunks: list[np.ndarray] = []
    recent_events: list[float] = []  # times of the last _RECENT events (chattering or not?)

    def flush() -> None:
        n, m = int(si[L.SI_NREC]), int(si[L.SI_NEV])
        if n == 0 and m == 0:
            return
        r = rec[:n].copy()
        md = rec_mode[:n].copy()
        ev = np.empty(m, dtype=event_dtype(model.nx))
        ev["t"] = ev_t[:m, 0]
        ev["x"] = ev_t[:m, 1:]
        ev["kind"] = ev_i[:m, 0]
        ev["guard"] = ev_i[:m, 1]
        ev["mode_before"] = ev_i[:m, 2]
        ev["mode_after"] = ev_i[:m, 3]
        for sink in sinks:
            sink(r, md, ev)
        recent_events[:] = [*recent_events, *ev["t"][-_RECENT:].tolist()][-_RECENT:]
        if keep_records:
            rec_chunks.append(r)
            mode_chunks.append(md)
            ev_chunks.append(ev)
        elif n:  # streaming: only the last record stays
            rec_chunks[:] = [r[-1:]]
            mode_chunks[:] = [md[-1:]]
            ev_chunks[:] = [ev[:0]]
        si[L.SI_NREC] = 0
        si[L.SI_NEV] = 0

    wall0 = time.perf_counter()
    bar = _Progress(t0, t_final, progress)
    status = L.ST_BUDGET
    interrupted = timed_out = False
    failure: BaseException | None = None
    kernel_time = 0.0
    clock = _WallClock(opts.wall_time_limit)
    # the loop's constants as locals: with a controller in Python it turns once per sample instant
    engine_args = (hooks, gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i, work, iwork)
    now = time.perf_counter
    limited = opts.wall_time_limit > 0.0
    done, sampled, sf_t, si_mode = L.ST_DONE, L.ST_SAMPLED, L.SF_T, L.SI_MODE
    entered = False
    try:
        with clock:
            while True:
                k0 = now()
                try:
                    status = int(advance(*engine_args))
                    if not entered:  # after the first call (a compile or cache load): its machine code
                        advance, entered = entry_point(advance, engine_args), True
                except ArithmeticError as exc:  # e.g. a division by zero inside a model's hooks
                    failure = exc
                    break
                finally:
                    kernel_time += now() - k0
                if monitor is not None and si[L.SI_NREC] > 0:
                    last = int(si[L.SI_NREC]) - 1
                    monitor(rec[last], int(rec_mode[last]))
                if limited and status != done and clock.expired():
                    timed_out = True
                    break
                if status == sampled:
                    clock.in_controller = True
                    try:
                        controller(sf.item(sf_t), x, si.item(si_mode))  # type: ignore[misc]
                    except Exception as exc:  # the run stops, as at a model error, keeping its records
                        failure = exc
                        break
                    finally:
                        clock.in_controller = False
                    continue
                if status in (L.ST_RECORDS_FULL, L.ST_EVENTS_FULL):
                    flush()
                elif status == L.ST_BUDGET:
                    if si[L.SI_NREC] > _REC_CAP // 2:
                        flush()
                else:
                    break
                bar.update(float(sf[L.SF_T]))
    except KeyboardInterrupt:
        interrupted = True
    except WallTimeExceeded:
        timed_out = True
    finally:
        flush()
        bar.update(float(sf[L.SF_T]))
        bar.close()
    wall = time.perf_counter() - wall0

    stats = {
        "steps": int(si[L.SI_NSTEP]), "rejected": int(si[L.SI_NREJ]),
        "fevals": int(si[L.SI_NFEV]), "events": int(si[L.SI_NEVENT]),
        "transitions": int(si[L.SI_NTRANS]), "slides": int(si[L.SI_NSLIDE]),
        "locate_iterations": int(si[L.SI_NSTOPIT]), "jacobians": int(si[L.SI_NJAC]), "wall_time_s": wall,
        "kernel_time_s": kernel_time, "sim_time_s": float(sf[L.SF_T]) - t0,
    }
    # integration speed: simulated seconds per second spent in the compiled engine (writing
    # records to sinks and the first call's loading of cached machine code are in wall_time_s)
    stats["real_time_factor"] = stats["sim_time_s"] / kernel_time if kernel_time > 0 else float("inf")
    result = Result.assemble(model, p, opts, rec_chunks, mode_chunks, ev_chunks, stats)
    t_stop = float(sf[L.SF_T])
    mode_stop = int(si[L.SI_MODE])
    if interrupted:
        cause, status_name = "interrupted by the user", "interrupted"
    elif timed_out:
        cause, status_name = (f"the wall-time limit of {opts.wall_time_limit:g} s was reached "
                              "(options.wall_time_limit)"), "wall_time_limit"
    elif isinstance(failure, ArithmeticError):
        cause, status_name = (f"numerical error in the model's equations ({type(failure).__name__}: "
                              f"{failure}); check the parameters"), "numerical_error"
    elif failure is not None:
        cause, status_name = f"the controller failed: {describe_failure(failure)}", "controller_error"
    elif status == L.ST_DONE:
        result.status = "done"
        tell_sinks(sinks, result)
        return result
    else:
        status_name, cause = _explain(model, status, si, opts, np.array(recent_events), t0, t_final)
    msg = (f"{model.name}: run stopped at t = {t_stop:.9g} s in mode {model.mode_name(mode_stop)} "
           f"({mode_stop}): {cause}. {result.n} records up to that time were kept.")
    result.status = status_name
    result.message = msg
    tell_sinks(sinks, result)
    if raise_on_error:
        kind = Interrupted if interrupted else SimulationError
        raise kind(msg, t=t_stop, mode=model.mode_name(mode_stop), cause=cause,
                   result=result) from failure
    return result


def _check_memory(model: Model, span: float, record_period: float, keep_records: bool) -> None:
    """An :class:`InputError` when the records a run keeps in memory (every ``record_period`` over ``span``
    seconds) would take more than this machine's physical memory: the run would be killed by the OS
    (or swap for hours) instead of stopping with a message."""
    from .._machine import physical_memory

    have = physical_memory()
    if not keep_records or record_period <= 0.0 or have <= 0.0:
        return
    rows = span / record_period
    need = rows * (2 + model.nx + model.ny) * 8.0  # time, states, outputs and the mode: float64 each
    if need > have:
        raise InputError(f"{model.name}: 't_final' - 't0' = {span:g} s recorded every {record_period:g} s "
                         f"(options.record_period) keeps {rows:.3g} records ({need / 1e9:.3g} GB) in memory, "
                         f"more than this machine's {have / 1e9:.3g} GB: stream them to disk "
                         "(sinks=[legsim.io.RunWriter(...)], keep_records=False; the legsim command does), "
                         "or set a longer record_period")


def _explain(model: Model, status: int, si: np.ndarray, opts: Options, recent_events: np.ndarray,
             t0: float, t_final: float) -> tuple[str, str]:
    guard = int(si[L.SI_ERR_GUARD])
    gname = model.guards[guard].name if 0 <= guard < model.nguard else "sliding exit"
    code = int(si[L.SI_ERR])
    if status == L.ST_STEP_UNDERFLOW:
        return "step_underflow", (f"step size fell below h_min = {opts.h_min:g} s (stiff or "
                                  "discontinuous vector field inside a mode?)")
    if status == L.ST_NONFINITE:
        return "nonfinite", "the state became non-finite (NaN or inf)"
    if status == L.ST_CHATTER:
        if _bunched(recent_events, int(si[L.SI_NEVENT]), t0, t_final):
            return "chattering", (f"chattering: events pile up in time at guard '{gname}' (stopped by "
                                  f"max_transitions = {opts.max_transitions} or 1000 at one instant); "
                                  "enable sliding or check the guard and reset")
        return "max_transitions", (f"max_transitions = {opts.max_transitions} transitions reached (SimSect's "
                                   "maxChartCount), spread evenly over the run, last at guard "
                                   f"'{gname}': not chattering; raise max_transitions (maxChartCount) "
                                   "for longer runs")
    if status == L.ST_LOCATE_FAILED:
        return "event_not_located", (f"guard '{gname}' could not be located to stop_precision = "
                                     f"{opts.stop_precision:g} in max_stop_iter = "
                                     f"{opts.max_stop_iter} iterations (discontinuous guard?)")
    if status == L.ST_MODEL_ERROR:
        return "model_error", model.message(code)
    if status == L.ST_CHECK_FAILED:
        return "invalid_state", model.message(code)
    return "unknown", f"engine status {status}"


def _bunched(recent: np.ndarray, n_events: int, t0: float, t_final: float) -> bool:
    """True when the last events (times ``recent``, of ``n_events`` in all) pile up in time: at
    least 100 times faster than the run's average event rate, or faster than one per 10⁻⁶ of the
    run's horizon (a chatter that began at the start). Otherwise the run used up its transition
    budget steadily."""
    k = recent.size
    if k < 2:
        return True
    gap_recent = (recent[-1] - recent[0]) / (k - 1)
    gap_overall = (recent[-1] - t0) / n_events
    return bool(gap_recent < 0.01 * gap_overall or gap_recent < 1e-6 * (t_final - t0))


class _Progress:
    """A tqdm bar in simulated seconds that appears only for runs longer than ~2 s."""

    def __init__(self, t0: float, tf: float, enabled: bool | None):
        self._bar = None
        self._t0 = t0
        self._shown_after = 0.0 if enabled else time.perf_counter() + 2.0
        if enabled is False:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            return
        self._bar = tqdm(total=tf - t0, unit="sim s", delay=0.0 if enabled else 2.0,
                         bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} sim s [{elapsed}<{remaining}]",
                         leave=False)

    def update(self, t: float) -> None:
        if self._bar is not None:
            self._bar.update(max(0.0, t - self._t0 - self._bar.n))

    def close(self) -> None:
        if self._bar is not None:
            if self._bar.n > 0 and time.perf_counter() >= self._shown_after:
                self._bar.refresh()  # show where the run ended (tqdm throttles updates)
            self._bar.close()
