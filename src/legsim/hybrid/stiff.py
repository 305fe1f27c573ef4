"""Any hybrid model under ``scipy.integrate.solve_ivp``: the engine's stiff option and its peer.

The model's own compiled hooks (vector field, guards, reset, sample, outputs) are called from
Python. ``solve_ivp`` integrates each stretch between events with one terminal event per guard
active at its start (direction as declared) and is restarted after the model's reset, the way
hybrid systems are usually run with ``solve_ivp``; a stretch also ends at every sample instant of
the model's sampled controller, where the ``sample`` hook (and a Python controller, if any) runs,
as in the compiled engine. With ``method="Radau"`` or ``"BDF"`` this is the implicit, stiff
integration the pneumatic digest asks for (§7 item 9; Daepp's "solver review, explicit vs
implicit": the xPC target's implicit ode14x overloaded it, §3.5), reached through
``Options(method="radau" | "bdf")`` in :func:`legsim.hybrid.simulate`. With ``"RK45"`` it is the
peer the benchmarks time against the engine (``benchmarks/bench_hybrid.py``).

A guard exactly at zero counts as its uncrossed side, as in the engine (scipy alone would fire an
event at a zero it merely touches, e.g. a piston reset onto its end stop that has not moved yet).
Semantics that differ from the compiled engine: scipy locates a root to ~4 machine epsilons in
time (not to ``stop_precision`` in guard value, so ``placement`` is not honoured), and guards
crossed at the same instant fire together only when scipy reports the same time for them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import InputError, check_flag, check_number, check_whole, describe_failure, real_number, shown

__all__ = ["ScipyRun", "simulate_scipy", "simulate_stiff", "SCIPY_METHODS", "IVP_METHODS", "MAX_INSTANTS",
           "MIN_TOLERANCE"]

SCIPY_METHODS = {"radau": "Radau", "bdf": "BDF"}
"""legsim method name -> solve_ivp method, for the stiff option."""

IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
"""The ``solve_ivp`` methods :func:`simulate_scipy` takes (by name)."""

MAX_INSTANTS = 10_000_000
"""Most sample instants, records at a record period, or steps of the longest step of one run through
scipy: each sample instant restarts ``solve_ivp`` (about 0.1 ms), each step costs tens of us and each
record is kept as Python objects (about 0.2 kB), so 10^7 of them take tens of minutes or 2 GB; more is a
typo in ``t_final``, a period or ``max_step``."""

MIN_TOLERANCE = 1e-100
"""Smallest ``rtol`` and ``atol`` of a run through scipy: ``solve_ivp``'s error norm squares error /
tolerance, which overflows (a RuntimeWarning, then a failed run) for tolerances near 1e-150, and a
tolerance below 1e-16 of the state is beyond double precision anyway."""

_ZENO = 1000  # events at one instant before the run stops as chattering (as the engine)


@dataclass
class ScipyRun:
    """What :func:`simulate_scipy` returns: event times and states (before the reset), the final
    time, state and mode, solver counters, and (when records were asked for) the records."""

    t_events: np.ndarray
    x_events: np.ndarray
    t_final: float
    x_final: np.ndarray
    nfev: int
    mode: int
    njev: int = 0
    nlu: int = 0
    steps: int = 0
    rec_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    rec_x: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    rec_mode: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ev_guard: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ev_modes: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    status: str = "done"
    message: str = ""


def simulate_scipy(model, t_final: float, x0, p, mode: int, rtol: float, atol: float,
                   max_step: float = np.inf, method: str = "RK45", *, t0: float = 0.0,
                   sample_period: float = 0.0, record_period: float | None = None,
                   controller: Callable[[float, np.ndarray, int], None] | None = None,
                   controller_every: int = 1, max_events: int = 0) -> ScipyRun:
    """Integrate ``model`` from (t0, x0, mode) to ``t_final`` with ``solve_ivp(method=...)``.

    ``sample_period`` > 0 runs the model's ``sample`` hook at t0 + k·period (and ``controller(t, x,
    mode)`` at every ``controller_every``-th instant, changing ``x`` in place). ``record_period``:
    None keeps no records (the benchmark peer), 0 records every solver step and every event (before
    and after the reset), > 0 records at exact multiples (dense output; at a sample instant after
    the sample, as the engine does). ``max_events`` > 0 stops the run (status "max_transitions")
    after that many events. A failure does not raise: ``status``/``message`` say what stopped it.
    ``x0`` (nx,) and ``p`` (np,) are checked as :meth:`~legsim.hybrid.Model.state` and
    :meth:`~legsim.hybrid.Model.params` check them; ``method`` is one of :data:`IVP_METHODS`; ``rtol`` and
    ``atol`` at least :data:`MIN_TOLERANCE`; at most :data:`MAX_INSTANTS` sample instants, records at
    ``record_period`` and steps of ``max_step`` [s].
    """
    o = "simulate_scipy"
    t0, t_final, x0, p, mode = _check_run(o, model, t0, t_final, x0, p, mode, "x0")
    rtol = check_number(o, "rtol", rtol, lo=MIN_TOLERANCE)
    atol = check_number(o, "atol", atol, lo=MIN_TOLERANCE)
    if not real_number(o, "max_step", max_step) > 0.0:  # inf: no limit
        raise InputError(f"{o}: 'max_step' = {shown(max_step)}, expected a number > 0 (inf: no limit) [s]")
    max_step = _period(o, "max_step", max_step, t_final - t0, unbounded=True)
    if not (isinstance(method, str) and method in IVP_METHODS):
        raise InputError(f"{o}: 'method' = {shown(method)}, expected one of {', '.join(IVP_METHODS)}")
    sample_period = _period(o, "sample_period", sample_period, t_final - t0)
    if record_period is not None:
        record_period = _period(o, "record_period", record_period, t_final - t0)
    _check_controller(o, controller, controller_every)
    max_events = check_whole(o, "max_events", max_events)
    return _simulate_scipy(model, t_final, x0, p, mode, rtol, atol, max_step, method, t0=t0,
                           sample_period=sample_period, record_period=record_period, controller=controller,
                           controller_every=controller_every, max_events=max_events)


def _check_run(owner: str, model, t0, t_final, x, p, mode, x_name: str):
    """(t0, t_final, x, p, mode) checked as :func:`legsim.hybrid.simulate` checks them (an InputError naming
    ``owner`` and the argument; ``x_name``: what the caller calls the initial state)."""
    from .model import Model

    if not isinstance(model, Model):
        raise InputError(f"{owner}: 'model' = {shown(model)}, expected a legsim.hybrid.Model")
    t0 = check_number(owner, "t0", t0)
    t_final = real_number(owner, "t_final", t_final)
    if not (math.isfinite(t_final) and t_final > t0):
        raise InputError(f"{owner}: 't_final' = {shown(t_final)}: the final time must be a finite number "
                         f"greater than t0 = {t0}")
    x = model.state(x, f"{owner}: '{x_name}'")
    p = model.params(p, f"{owner}: 'p'")
    return t0, t_final, x, p, check_whole(owner, "mode", mode)


def _period(owner: str, name: str, period, span: float, unbounded: bool = False) -> float:
    """A sample or record period or a longest step [s] >= 0 (0: none, or every step; inf too with
    ``unbounded``: no longest step) with at most :data:`MAX_INSTANTS` of them in ``span``."""
    if unbounded and real_number(owner, name, period) == math.inf:
        return math.inf
    period = check_number(owner, name, period, lo=0.0)
    if period > 0.0 and not span / period <= MAX_INSTANTS:
        raise InputError(f"{owner}: '{name}' = {shown(period)} s makes {span / period:.3g} instants in "
                         f"'t_final' - 't0' = {span:g} s, expected at most MAX_INSTANTS = {MAX_INSTANTS:g}")
    return period


def _check_controller(owner: str, controller, controller_every) -> None:
    if not (controller is None or callable(controller)):
        raise InputError(f"{owner}: 'controller' = {shown(controller)}, expected None or a callable "
                         "controller(t, x, mode)")
    check_whole(owner, "controller_every", controller_every, lo=1)


def _simulate_scipy(model, t_final: float, x0, p, mode: int, rtol: float, atol: float, max_step: float,
                    method: str, *, t0: float, sample_period: float, record_period: float | None,
                    controller, controller_every: int, max_events: int) -> ScipyRun:
    """:func:`simulate_scipy` on checked arguments."""
    vf, gf, rf, sfn = model.vector_field, model.guard_values, model.reset, model.sample
    nx, ng = model.nx, model.nguard
    p = np.ascontiguousarray(p, dtype=float)
    direction = model.guard_direction
    xdot = np.empty(nx)
    gbuf = np.empty(ng)
    state = {"mode": int(mode)}

    def f(t, x):
        vf(t, np.ascontiguousarray(x), p, state["mode"], xdot)
        return xdot.copy()

    def make_event(j):
        closed = -float(direction[j]) * 5e-324  # legsim: a guard crosses only into its strict side

        def e(t, x):
            gf(t, np.ascontiguousarray(x), p, state["mode"], gbuf)
            g = gbuf[j]
            return closed if g == 0.0 else g
        e.terminal = True  # type: ignore[attr-defined]
        e.direction = float(direction[j])  # type: ignore[attr-defined]
        return e

    events = [make_event(j) for j in range(ng)]
    recording = record_period is not None
    rp = float(record_period) if record_period is not None else 0.0
    rec_t: list[float] = []
    rec_x: list[np.ndarray] = []
    rec_m: list[int] = []
    k_rec = 0
    eps_t = 8.0 * np.finfo(float).eps * max(1.0, abs(t_final), abs(t0))

    def record(t, x):
        if not np.isfinite(x).all():  # a dense output's interpolant can overflow between finite steps
            raise _Stop("nonfinite", _NONFINITE)
        rec_t.append(float(t))
        rec_x.append(np.array(x, dtype=float))
        rec_m.append(state["mode"])

    def records_until(t_hi, interp, inclusive):
        """Records at the multiples of the record period up to t_hi (from ``interp(t)``)."""
        nonlocal k_rec
        while True:
            tr = t0 + k_rec * rp
            if abs(tr - t_final) <= eps_t:
                tr = t_final
            if tr > t_final or tr > t_hi + eps_t or (not inclusive and tr >= t_hi - eps_t):
                return
            with np.errstate(over="ignore", invalid="ignore"):
                value = interp(tr)
            record(tr, value)
            k_rec += 1

    t = float(t0)
    x = np.array(x0, dtype=float)
    k_sample = 0
    out = ScipyRun(np.zeros(0), np.zeros((0, nx)), t, x, 0, state["mode"])

    def do_sample():
        nonlocal k_sample
        x_new = x.copy()
        m2 = int(sfn(t, x, p, state["mode"], k_sample, x_new))
        if m2 < 0:
            raise _Stop("model_error", model.message(m2))
        x[:] = x_new
        if controller is not None and k_sample % controller_every == 0:
            try:
                controller(t, x, m2)
            except Exception as exc:
                raise _Stop("controller_error", f"the controller failed: {describe_failure(exc)}") from exc
        state["mode"] = m2
        k_sample += 1

    t_ev: list[float] = []
    x_ev: list[np.ndarray] = []
    g_ev: list[int] = []
    m_ev: list[tuple[int, int]] = []
    zeno = 0
    try:
        if sample_period > 0.0:
            do_sample()
        if recording:
            record(t, x)
            k_rec = 1
        while t < t_final - eps_t:
            t_sample = t0 + k_sample * sample_period if sample_period > 0.0 else math.inf
            t_seg = t_final if t_sample >= t_final - eps_t else t_sample
            if t_seg - t > eps_t:
                gf(t, x, p, state["mode"], gbuf)
                active = [j for j in range(ng) if np.isfinite(gbuf[j])]
                # a state or rate that overflows is this run's failure, told as the engine tells it, not
                # numpy's warnings from inside scipy (or the ValueError of Radau's LU of a non-finite matrix)
                with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    try:
                        sol = solve_ivp(f, (t, t_seg), x, method=method, rtol=rtol, atol=atol,
                                        max_step=max_step, events=[events[j] for j in active],
                                        dense_output=recording and rp > 0.0)
                    except ValueError as exc:
                        if "infs or NaNs" not in str(exc):  # scipy.linalg's check_finite
                            raise
                        raise _Stop("nonfinite", _NONFINITE) from None
                finite = np.isfinite(sol.y).all(axis=0)
                if not finite.all():
                    last = int(np.argmin(finite)) - 1
                    if last >= 0:
                        x[:] = sol.y[:, last]
                        t = float(sol.t[last])
                    raise _Stop("nonfinite", _NONFINITE)
                out.nfev += sol.nfev
                out.njev += sol.njev
                out.nlu += sol.nlu
                out.steps += max(sol.t.size - 1, 0)
                if sol.status == -1:
                    x[:] = sol.y[:, -1]
                    t = float(sol.t[-1])
                    raise _Stop("step_underflow", f"solve_ivp({method}) failed: {sol.message}")
                if sol.status == 1:
                    te = min(sol.t_events[k][0] for k in range(len(active)) if sol.t_events[k].size)
                    fired = np.zeros(ng, dtype=np.int64)
                    first = -1
                    xe = None
                    for k, j in enumerate(active):
                        if sol.t_events[k].size and sol.t_events[k][0] == te:
                            fired[j] = 1
                            first = j if first < 0 else first
                            xe = sol.y_events[k][0]
                    xe = np.ascontiguousarray(xe, dtype=float)
                    if recording:
                        if rp > 0.0:
                            records_until(te, sol.sol, True)
                        else:
                            for i in range(1, sol.t.size - 1):
                                record(sol.t[i], sol.y[:, i])
                            record(te, xe)
                    x_new = xe.copy()
                    before = state["mode"]
                    m2 = int(rf(te, xe, p, before, fired, x_new))
                    if m2 < 0:
                        x[:] = xe
                        t = te
                        raise _Stop("model_error", model.message(m2))
                    zeno = zeno + 1 if t_ev and te - t_ev[-1] <= 1000.0 * eps_t else 0
                    t_ev.append(te)
                    x_ev.append(xe)
                    g_ev.append(first)
                    m_ev.append((before, m2))
                    state["mode"] = m2
                    x[:] = x_new
                    t = te
                    if recording and rp == 0.0:
                        record(t, x)
                    if zeno > _ZENO or (max_events > 0 and len(t_ev) > max_events):
                        raise _Stop("chattering" if zeno > _ZENO else "max_transitions",
                                    f"{len(t_ev)} events, the last {zeno + 1} at one instant"
                                    if zeno > _ZENO else f"max_transitions = {max_events} events reached")
                    continue
                if recording:
                    if rp > 0.0:
                        records_until(t_seg, sol.sol, t_seg != t_sample)
                    else:
                        for i in range(1, sol.t.size - (1 if t_seg == t_sample else 0)):
                            record(sol.t[i], sol.y[:, i])
                x[:] = sol.y[:, -1]
            t = t_seg
            if t_seg == t_sample:
                do_sample()
                if recording:
                    if rp > 0.0:
                        records_until(t, lambda _tr, xx=x: xx, True)
                    else:
                        record(t, x)
        if recording and (not rec_t or rec_t[-1] != t_final):
            record(t_final, x)
        t = t_final
    except _Stop as stop:
        out.status, out.message = stop.status, stop.cause
    out.t_events = np.array(t_ev)
    out.x_events = np.array(x_ev).reshape(len(x_ev), nx)
    out.ev_guard = np.array(g_ev, dtype=np.int64)
    out.ev_modes = np.array(m_ev, dtype=np.int64).reshape(len(m_ev), 2)
    out.t_final = t
    out.x_final = x
    out.mode = state["mode"]
    if recording:
        out.rec_t = np.array(rec_t)
        out.rec_x = np.array(rec_x).reshape(len(rec_x), nx)
        out.rec_mode = np.array(rec_m, dtype=np.int64)
    return out


_NONFINITE = "the state became non-finite (NaN or inf)"


class _Stop(Exception):
    def __init__(self, status: str, cause: str):
        super().__init__(cause)
        self.status = status
        self.cause = cause


def simulate_stiff(model, t_final: float, x: np.ndarray, p: np.ndarray, mode: int, opts, t0: float = 0.0,
                   sinks: Sequence = (), controller=None, controller_every: int = 1,
                   keep_records: bool = True, raise_on_error: bool = True):
    """:func:`legsim.hybrid.simulate` for ``Options(method="radau" | "bdf")``: the run as a
    :class:`~legsim.hybrid.Result` (records at ``record_period`` or every step, the model's outputs,
    the event log); sinks get one chunk at the end. Statistics: steps, f-evals (Jacobian columns
    included), Jacobian and LU counts, events. The arguments are checked as :func:`simulate_scipy`'s
    (``opts``: :class:`~legsim.hybrid.Options` of method "radau" or "bdf"; ``sinks`` a list of callables)."""
    t0, t_final, x, p, mode = _check_run("simulate_stiff", model, t0, t_final, x, p, mode, "x")
    return _simulate_stiff(model, t_final, x, p, mode, opts, t0, sinks, controller, controller_every,
                           keep_records, raise_on_error)


def _simulate_stiff(model, t_final: float, x: np.ndarray, p: np.ndarray, mode: int, opts, t0: float,
                    sinks: Sequence, controller, controller_every: int, keep_records: bool,
                    raise_on_error: bool):
    """:func:`simulate_stiff` after its model, times, state, parameters and mode are checked (by it, or
    by :func:`legsim.hybrid.simulate`, whose parameter vector may hold an assembled robot's open limits)."""
    from ..errors import SimulationError
    from .options import Options
    from .result import Result, event_dtype
    from .simulate import check_watchers, tell_sinks

    o = "simulate_stiff"
    if not (isinstance(opts, Options) and opts.method_code.stiff):
        raise InputError(f"{o}: 'opts' = {shown(opts)}, expected legsim.hybrid.Options of method "
                         f"{' or '.join(map(repr, SCIPY_METHODS))}")
    check_watchers(o, sinks, None)
    _check_controller(o, controller, controller_every)
    keep_records = check_flag(o, "keep_records", keep_records)
    raise_on_error = check_flag(o, "raise_on_error", raise_on_error)
    for key in ("h_max", "sample_period", "record_period"):
        _period(o, f"opts.{key}", getattr(opts, key), t_final - t0)
    for key in ("rtol", "atol"):
        check_number(o, f"opts.{key}", getattr(opts, key), lo=MIN_TOLERANCE)
    name = opts.method_code.name.lower()
    wall0 = time.perf_counter()
    run = _simulate_scipy(model, t_final, x, p, mode, opts.rtol, opts.atol, max_step=opts.h_max,
                          method=SCIPY_METHODS[name], t0=t0, sample_period=opts.sample_period,
                          record_period=opts.record_period, controller=controller,
                          controller_every=controller_every, max_events=opts.max_transitions)
    wall = time.perf_counter() - wall0
    n = run.rec_t.size
    y = np.zeros((n, model.ny))
    if model.ny and model.outputs is not None:
        for i in range(n):
            model.outputs(run.rec_t[i], run.rec_x[i], p, int(run.rec_mode[i]), y[i])
    rec = np.column_stack([run.rec_t, run.rec_x, y]) if n else np.zeros((0, 1 + model.nx + model.ny))
    ev = np.zeros(run.t_events.size, dtype=event_dtype(model.nx))
    ev["t"] = run.t_events
    ev["x"] = run.x_events
    ev["guard"] = run.ev_guard
    ev["mode_before"] = run.ev_modes[:, 0]
    ev["mode_after"] = run.ev_modes[:, 1]
    for sink in sinks:
        sink(rec, run.rec_mode, ev)
    if not keep_records and n:
        rec, modes = rec[-1:], run.rec_mode[-1:]
    else:
        modes = run.rec_mode
    stats = {"steps": run.steps, "rejected": 0, "fevals": run.nfev, "jacobians": run.njev,
             "lu_decompositions": run.nlu, "events": int(run.t_events.size),
             "transitions": int(np.sum(run.ev_modes[:, 0] != run.ev_modes[:, 1])), "slides": 0,
             "locate_iterations": 0, "wall_time_s": wall, "kernel_time_s": wall,
             "sim_time_s": run.t_final - t0}
    stats["real_time_factor"] = stats["sim_time_s"] / wall if wall > 0 else float("inf")
    result = Result.assemble(model, p, opts, [rec], [modes], [ev], stats)
    if run.status == "done":
        result.status = "done"
        tell_sinks(sinks, result)
        return result
    msg = (f"{model.name}: run stopped at t = {run.t_final:.9g} s in mode {model.mode_name(run.mode)} "
           f"({run.mode}): {run.message}. {result.n} records up to that time were kept.")
    result.status = run.status
    result.message = msg
    tell_sinks(sinks, result)
    if raise_on_error:
        raise SimulationError(msg, t=run.t_final, mode=model.mode_name(run.mode), cause=run.message,
                              result=result)
    return result
