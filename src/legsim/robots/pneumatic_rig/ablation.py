"""Ablation harness of the cylinder rig: the cost of each valve and friction variant (pneumatic
digest §7 item 12 and A11; Daepp Table 3, where the xPC target's task execution time (TET) per step
fell 24 % with the simple valve and 11 % with viscous friction).

Two costs per variant, each as a ratio against the base variant (the full model, fitted valve +
Stribeck-tanh): the compiled vector field per evaluation (the actuator block alone, called from a
compiled loop as the engine calls it), and the TET analogue, the wall time per step of a fixed-step
ode5 run at 1 kHz (the thesis's solver and rate) of the closed-loop step series. Absolute numbers
depend on the machine; report ratios (``benchmarks/bench_pneumatic_rig.py`` prints them).

``python -m legsim.robots.pneumatic_rig.ablation`` prints the table.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from ...actuators.pneumatic import _layout as L
from ...errors import InputError, check_number, check_whole, lookup, shown
from ...hybrid import Options
from . import _rig_hooks as H
from .rig import FRICTIONS, MAX_DURATION, VALVES, Reference, RigBench, rig_model

__all__ = ["VARIANTS", "ablation_table", "per_eval_cost", "tet_per_step", "main", "MAX_EVALS"]

VARIANTS: tuple[tuple[str, str], ...] = (("fitted", "stribeck"),) + tuple(
    (v, f) for v in VALVES for f in FRICTIONS if (v, f) != ("fitted", "stribeck"))
"""Every (valve, friction) pair of the rig, the base (the thesis's full model) first."""

MAX_EVALS = 10_000_000
"""The most vector-field evaluations per timing loop of :func:`per_eval_cost` (three loops, each a few
seconds at ~0.2 µs an evaluation: more would look hung)."""

STEPS = Reference("table_hold", times=[0, 0.5, 1.5, 2.5, 3.5], values=[0.01, 0.03, 0.015, 0.035, 0.02])
"""The closed-loop step series of A5 (positions [m])."""


@njit(cache=True)
def _eval_loop(p, x, xdot, mode, n):
    # the field is a global, not an argument: a dispatcher passed as an argument types the loop by that
    # dispatcher object, so every process compiled it anew and the cache index could not be saved again
    s = 0.0
    for i in range(n):
        x[0] = 0.01 + 1e-9 * i
        H.vector_field(0.0, x, p, mode, xdot)
        s += xdot[1]
    return s


_NO_BENCH = object()


def _checked(owner: str, clock, bench=_NO_BENCH, **counts) -> None:
    """An :class:`InputError` naming ``owner`` and the argument unless ``clock`` is a function of no arguments
    returning seconds, ``bench`` (when given) a :class:`RigBench`, each of ``counts`` (name: value) a whole
    number of evaluations in [1, :data:`MAX_EVALS`] and ``t_final`` [s] in (0, :data:`~.rig.MAX_DURATION`]."""
    if bench is not _NO_BENCH and not isinstance(bench, RigBench):
        raise InputError(f"{owner}: 'bench' = {shown(bench)}, expected a RigBench")
    if not callable(clock):
        raise InputError(f"{owner}: 'clock' = {shown(clock)}, expected a function of no arguments returning "
                         "seconds (time.perf_counter)")
    for name, value in counts.items():
        if name == "t_final":
            check_number(owner, name, value, lo=0.0, lo_open=True, hi=MAX_DURATION)  # [s]
        else:
            check_whole(owner, name, value, 1, MAX_EVALS)


def per_eval_cost(bench: RigBench, n: int = 200_000,
                  clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per evaluation of the rig's compiled vector field with ``bench``'s valve and friction, the
    piston moving out at 1 cm/s mid-stroke with the valve at 6 V (best of three loops of ``n``, a whole
    number in [1, :data:`MAX_EVALS`], timed by ``clock``)."""
    _checked("per_eval_cost", clock, bench, n=n)
    n = int(n)
    model = rig_model(STEPS.times.size)
    p = bench.params(STEPS, model)
    x = np.zeros(H.NX)
    x[H.X], x[H.V] = 0.01, 0.01
    x[H.PCAP:H.MAIR + 1] = bench.actuator.initial_state(0.01, 3e5, 2.5e5)[0]
    x[H.U] = 6.0
    xdot = np.zeros(H.NX)
    mode = H.SLIDE_POS if int(p[L.FRICTION_MODEL]) in (0, 2) else H.FREE
    _eval_loop(p, x, xdot, mode, 10)
    best = math.inf
    for _ in range(3):
        t0 = clock()
        _eval_loop(p, x, xdot, mode, n)
        best = min(best, (clock() - t0) / n)
    return best


def tet_per_step(bench: RigBench, t_final: float = 4.5,
                 clock: Callable[[], float] = time.perf_counter) -> tuple[float, Any]:
    """TET analogue: wall seconds per step of a fixed-step ode5 run at 1 kHz (controller and solver at
    1 ms, as the xPC model) of the A5 step series (``t_final`` [s] in (0, :data:`~.rig.MAX_DURATION`]), and
    the run. The bench's own options are ignored; ``clock`` times it."""
    _checked("tet_per_step", clock, bench, t_final=t_final)
    opts = Options(method="dp5_fixed", h_max=1e-3, record_period=1e-3, sample_period=1e-3, sliding=False)
    b = copy.copy(bench)
    b.options = opts
    b.run(STEPS, 0.01, x0=0.01, p_cap0=3e5, p_rod0=3e5)  # compile or load from the cache first
    t0 = clock()
    run = b.run(STEPS, t_final, x0=0.01, p_cap0=3e5, p_rod0=3e5)
    wall = clock() - t0
    return wall / max(run.result.stats["steps"], 1), run


def ablation_table(variants: Sequence[tuple[str, str]] = VARIANTS, n_evals: int = 200_000,
                   t_final: float = 4.5,
                   clock: Callable[[], float] = time.perf_counter) -> list[dict[str, Any]]:
    """One row per (valve, friction) variant, in the given order (the first is the base): seconds per
    vector-field evaluation and per ode5 step (TET analogue), each also as a ratio to the base's, the
    steps and f-evaluations of the run, and its air used [g]. ``variants``: (valve, friction) name pairs
    (:data:`VARIANTS`); ``n_evals`` and ``t_final`` as ``n`` of :func:`per_eval_cost` and ``t_final`` of
    :func:`tet_per_step`; ``clock`` is the timer (injectable)."""
    o = "ablation_table"
    _checked(o, clock, n_evals=n_evals, t_final=t_final)
    pairs = list(variants) if isinstance(variants, (list, tuple)) else None
    if pairs is None or not all(isinstance(v, (list, tuple)) and len(v) == 2 for v in pairs):
        raise InputError(f"{o}: 'variants' = {shown(variants)}, expected (valve, friction) name pairs, e.g. "
                         f"{VARIANTS[1]!r}")
    for valve, friction in pairs:
        lookup("'variants' valve", valve, list(VALVES), o)
        lookup("'variants' friction", friction, list(FRICTIONS), o)
    rows = []
    for valve, friction in variants:
        bench = RigBench(valve, friction)
        ev = per_eval_cost(bench, n_evals, clock)
        tet, run = tet_per_step(bench, t_final, clock)
        rows.append({"valve": valve, "friction": friction, "s_per_eval": ev, "s_per_step": tet,
                     "steps": run.result.stats["steps"], "fevals": run.result.stats["fevals"],
                     "air_used_g": float(run.air_used[-1] * 1e3)})
    base = rows[0] if rows else None
    for r in rows:
        assert base is not None
        r["eval_ratio"] = r["s_per_eval"] / base["s_per_eval"] if base["s_per_eval"] > 0 else math.nan
        r["step_ratio"] = r["s_per_step"] / base["s_per_step"] if base["s_per_step"] > 0 else math.nan
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """Print the ablation table (ratios against the full model)."""
    print(f"{'valve':12s} {'friction':9s} {'ns/eval':>8s} {'ratio':>6s} {'us/step':>8s} {'ratio':>6s} "
          f"{'steps':>6s} {'air g':>7s}")
    for r in ablation_table():
        print(f"{r['valve']:12s} {r['friction']:9s} {r['s_per_eval'] * 1e9:8.1f} {r['eval_ratio']:6.2f} "
              f"{r['s_per_step'] * 1e6:8.2f} {r['step_ratio']:6.2f} {r['steps']:6d} {r['air_used_g']:7.3f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
