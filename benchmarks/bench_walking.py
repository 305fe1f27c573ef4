"""Issue 16 speed: the walking layer's costs, each as a ratio against a peer in the same run.

Part A: the six-foot support-force QP (legsim.walking.SupportQP: the constant parts built once)
with the DAQP and quadprog backends of qpsolvers, against the same QP built anew each call, per
call; the issue's goal is <= 50 us per call.
Part B: ANTON's tripod walk (legsim.robots.anton) for ``--t`` simulated seconds: the real-time
factor, and the wall time split between the 1 kHz Python controller (gait generator, six leg
cycles, inverse kinematics, PD loops) and the compiled engine, then the same with the per-foot force
tracking (the support QP of (3.8)/(3.9) every tick, ``walker(plan, force_gain=2e-4)``); goal >= 10x
real time.

Usage: ``python benchmarks/bench_walking.py [--t 4] [--calls 5000]``
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

from legsim.walking import SupportQP


def part_a(calls: int) -> None:
    import qpsolvers

    feet = np.array([[x, y, 0.0] for x, y in [(0.15, 0.2), (-0.15, 0.2), (0.15, 0.0), (-0.15, 0.0),
                                               (0.15, -0.2), (-0.15, -0.2)]])
    com, mass = np.array([0.0, 0.02, 0.12]), 3.0
    base = None
    for solver in ("daqp", "quadprog"):
        if solver not in qpsolvers.available_solvers:
            continue
        qp = SupportQP(6, 0.6, solver=solver)
        per_call = timeit.timeit(lambda q=qp: q.solve(feet, mass, com), number=calls) / calls
        n_fresh = max(calls // 10, 1)
        fresh = timeit.timeit(lambda s=solver: SupportQP(6, 0.6, solver=s).solve(feet, mass, com),
                              number=n_fresh) / n_fresh
        x = qp.solve(feet, mass, com)
        base = x if base is None else base
        print(f"support QP (6 feet) with {solver}: {per_call * 1e6:.1f} us/call kept, "
              f"{fresh * 1e6:.1f} us/call built anew (ratio {fresh / per_call:.1f}); "
              f"max |difference| to DAQP {np.abs(x - base).max():.1e} N")


def part_b(t_final: float) -> None:
    from legsim.robots.anton.robot import WalkPlan, build_robot, standing_pose, walker

    plan = WalkPlan()
    robot = build_robot()
    q0 = standing_pose(plan)
    q0[2] += 0.002
    robot.simulate(0.2, walker(plan), q0=q0, progress=False)  # warm: compiled code loaded
    for label, kw in (("", {}), (" with per-foot force tracking (force_gain 2e-4)", {"force_gain": 2e-4})):
        ctrl = walker(plan, **kw)
        spent = [0.0]

        def timed(t, s, ctrl=ctrl, spent=spent):
            t0 = time.perf_counter()
            out = ctrl(t, s)
            spent[0] += time.perf_counter() - t0
            return out

        t0 = time.perf_counter()
        res = robot.simulate(t_final, timed, q0=q0, progress=False)
        wall = time.perf_counter() - t0
        kernel = res.stats["kernel_time_s"]
        tick = spent[0] / (res.t.size or 1) * 1e6
        step = kernel / res.stats["steps"] * 1e6
        print(f"ANTON tripod{label}, {t_final:g} s: {t_final / wall:.2f}x real time; controller "
              f"{spent[0] / wall:.0%} of the wall time ({tick:.0f} us per 1 ms tick), engine "
              f"{kernel / wall:.0%} ({res.stats['steps']} RK4 steps, {step:.0f} us/step)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t", type=float, default=4.0)
    ap.add_argument("--calls", type=int, default=5000)
    args = ap.parse_args()
    part_a(args.calls)
    part_b(args.t)


if __name__ == "__main__":
    main()
