"""Benchmark: the pneumatic cylinder rig (Daepp 2011 Ch. 4) — legsim vs scipy, N actuators, ablations.

Run: ``.venv/bin/python benchmarks/bench_pneumatic_rig.py`` (one run of each; not a timed test).

1. The rig, 10 s with the 1 kHz PID controller: legsim hybrid engine (DP45, compiled hooks) vs the
   same model in ``scipy.integrate.solve_ivp`` (RK45, one call per 1 ms control interval, the
   right-hand side calling the same compiled scalar kernels). Prints the speed ratio and legsim's
   real-time factor (target ≥ 50×).
2. Cost of evaluating N = 1, 12, 100 actuators together, per call, best of 7 repeats (the
   machine is shared; the minimum is the least disturbed estimate), for two kernels: the scalar
   array loop (``cylinder_rates_array``, one actuator after the other) and the SIMD lane kernel
   (``ActuatorBatch``: four actuators per AVX2 vector, eight per AVX-512 one on Zen 4). Each is
   timed from Python and inside compiled code (as a robot model's hook calls it). Target: 12
   actuators ≤ 3× one, where "one" is the cheapest way to evaluate one actuator (the scalar kernel).
3. Ablation (A11): every valve × friction variant's cost per vector-field evaluation and per ode5 step
   at 1 kHz (the TET analogue), as ratios against the full model (``legsim.robots.pneumatic_rig.ablation``).
Cold compile time is printed separately.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit
from scipy.integrate import solve_ivp

from legsim.actuators.pneumatic import ActuatorBatch, PneumaticActuator, stack_rows
from legsim.actuators.pneumatic import _lane_kernels as LK
from legsim.actuators.pneumatic import _layout as L
from legsim.actuators.pneumatic._chamber_kernels import cylinder_rates, cylinder_rates_array, pressure_force
from legsim.actuators.pneumatic._friction_kernels import friction_force
from legsim.robots.pneumatic_rig import _rig_hooks as H
from legsim.robots.pneumatic_rig.ablation import ablation_table
from legsim.robots.pneumatic_rig.rig import Reference, RigBench, rig_model

T_END = 10.0
REPEATS = 7
REF = Reference("table_hold", times=np.arange(0.0, 10.0, 1.0),
                values=[0.01, 0.03, 0.015, 0.035, 0.02, 0.03, 0.01, 0.025, 0.035, 0.015])


def legsim_run(bench: RigBench):
    t0 = time.perf_counter()
    run = bench.run(REF, T_END, x0=0.01, p_cap0=3e5, p_rod0=3e5)
    return time.perf_counter() - t0, run


def scipy_run(bench: RigBench):
    """The same rig in solve_ivp: PID held over each 1 ms, end stops by clamping."""
    model = rig_model(REF.times.size)
    p = bench.params(REF, model)
    stroke = p[L.STROKE]
    m, grav = p[H.MASS], p[H.GRAV]
    state = np.zeros(7)
    state[0] = 0.01
    state[2:7] = bench.actuator.initial_state(0.01, 3e5, 3e5)[0]
    integ, e_prev = 0.0, 0.0
    dt = 1e-3
    n = int(round(T_END / dt))
    xs = np.empty(n)

    def rhs(t, y, u):
        x = min(max(y[0], 0.0), stroke)
        v = y[1]
        f_app = pressure_force(p, y[2], y[3]) + m * grav
        at_stop = (x <= 0.0 and (v < 0 or f_app <= 0)) or (x >= stroke and (v > 0 or f_app >= 0))
        if at_stop:
            v = 0.0
        dpc, dpr, dmc, dmr, dair = cylinder_rates(p, u, x, v, y[2], y[3], y[4], y[5])
        acc = 0.0 if at_stop else (f_app - friction_force(p, v, 0.0, 0, 0.0)) / m
        return [v, acc, dpc, dpr, dmc, dmr, dair]

    t0 = time.perf_counter()
    for k in range(n):
        t = k * dt
        r = H.reference(t, p)
        e = r - state[0]
        integ_new = integ + e * dt
        u = p[H.U_BIAS] + p[H.KP] * e + p[H.KI] * integ_new + (0.0 if k == 0 else p[H.KD] * (e - e_prev) / dt)
        if 0.0 <= u <= 10.0:
            integ = integ_new
        u = min(max(u, 0.0), 10.0)
        e_prev = e
        sol = solve_ivp(rhs, (t, t + dt), state, method="RK45", rtol=1e-6, atol=1e-9, args=(u,))
        state = sol.y[:, -1]
        state[0] = min(max(state[0], 0.0), stroke)
        if state[0] in (0.0, stroke):
            state[1] = 0.0
        xs[k] = state[0]
    return time.perf_counter() - t0, xs


def _inputs(n_act: int):
    acts = [PneumaticActuator() for _ in range(n_act)]
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 0.04, n_act)
    xd = rng.normal(0, 0.1, n_act)
    u = rng.uniform(0, 10, n_act)
    s = acts[0].initial_state(x, 2e5, 3e5, n=n_act)
    return acts, u, x, xd, s


@njit(cache=True)
def _scalar_loop(rows, u, x, xd, s, out, reps):
    acc = 0.0
    for _ in range(reps):
        cylinder_rates_array(rows, u, x, xd, s, out)
        acc += out[0, 0]
    return acc


@njit(cache=True)
def _lane_loop(lanes, order, block_lanes, nfb, u, x, xd, s, lin, lout, out, reps):
    acc = 0.0
    for _ in range(reps):
        LK.cylinder_rates_lanes(lanes, order, block_lanes, nfb, u, x, xd, s, lin, lout, out)
        acc += out[0, 0]
    return acc


def _best(call, reps: int) -> float:
    call(2)
    best = np.inf
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        call(reps)
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


def actuator_costs(n_act: int, reps: int = 20_000) -> dict[str, float]:
    """Seconds per evaluation of n_act actuators: scalar / lane kernel, from Python / compiled."""
    acts, u, x, xd, s = _inputs(n_act)
    rows = stack_rows(acts)
    out = np.empty_like(s)
    b = ActuatorBatch(acts)
    lane_args = (b.lanes, b.order, b.block_lanes, b.n_fitted_blocks, u, x, xd, s, b._lin,
                 b._lout, out)

    def py_loop(kernel, args):
        def run(k):
            for _ in range(k):
                kernel(*args)
        return run

    return {
        "scalar_py": _best(py_loop(cylinder_rates_array, (rows, u, x, xd, s, out)), reps),
        "scalar_jit": _best(lambda k: _scalar_loop(rows, u, x, xd, s, out, k), reps),
        "lanes_py": _best(py_loop(LK.cylinder_rates_lanes, lane_args), reps),
        "lanes_jit": _best(lambda k: _lane_loop(*lane_args, k), reps),
    }


def main() -> None:
    t0 = time.perf_counter()
    RigBench().run(Reference("step", r0=0.01, r1=0.02, t_start=0.01), 0.05, x0=0.01)
    print(f"cold start (import + compile or cache load, first short run): {time.perf_counter() - t0:.2f} s")

    bench = RigBench()
    wall, run = legsim_run(bench)
    print(f"legsim rig 10 s @ 1 kHz control: {wall:.3f} s wall, real-time factor {T_END / wall:.0f}x, "
          f"steps {run.result.stats['steps']}")
    wall_sp, xs = scipy_run(bench)
    err = np.sqrt(np.mean((np.interp(np.arange(xs.size) * 1e-3, run.t, run.x) - xs) ** 2))
    print(f"scipy solve_ivp (RK45 per 1 ms interval): {wall_sp:.2f} s wall -> legsim is "
          f"{wall_sp / wall:.0f}x faster; position RMS difference {err * 1e3:.3f} mm")

    costs = {n: actuator_costs(n) for n in (1, 12, 100)}
    one = costs[1]
    for n, c in costs.items():
        print(f"actuator derivatives, N = {n:3d}:")
        for key, label in (("scalar_py", "scalar kernel, from Python  "),
                           ("scalar_jit", "scalar kernel, compiled loop"),
                           ("lanes_py", "lane kernel,   from Python  "),
                           ("lanes_jit", "lane kernel,   compiled loop")):
            print(f"  {label} {c[key] * 1e6:7.3f} us/call ({c[key] / one[key]:5.2f}x its N = 1)")
    for where in ("py", "jit"):
        print(f"12 actuators (lane kernel) vs one (scalar kernel), {where}: "
              f"{costs[12]['lanes_' + where] / one['scalar_' + where]:.2f}x  (target <= 3x)")

    print("ablation (A11, legsim.robots.pneumatic_rig.ablation): ratios against the full model")
    for r in ablation_table():
        print(f"  valve={r['valve']:11s} friction={r['friction']:9s}: {r['s_per_eval'] * 1e9:7.1f} ns/eval "
              f"({r['eval_ratio']:4.2f}x), ode5 1 kHz {r['s_per_step'] * 1e6:6.2f} us/step "
              f"({r['step_ratio']:4.2f}x), steps {r['steps']}")

if __name__ == "__main__":
    main()
