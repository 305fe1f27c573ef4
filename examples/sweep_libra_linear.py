"""LIBRA's linear analysis (CJTC thesis §4.5, App. C) as a *function sweep*: the 18 body heights of App. C,
optionally crossed with gain scalings and the second ladder separation, one configuration a call of
``legsim.robots.libra.linear.sweep_row``, one row each in ``OUT/table/sweep.parquet``.

Prints, per gain scaling and separation, how many configurations are stable, the smallest damping
ratio and the range of each loop's -3 dB bandwidth (the u̇_cmd = 0 reading; legsim's acceptance check 7:
stable poles over the configurations, bandwidths near x_b 5.2, y_b ~7, θ_b 5.6 "Hz", read as rad/s).
A configuration no limb reaches (e.g. low bodies at the 0.45 m separation) is a row with status "error".

Usage: ``python examples/sweep_libra_linear.py --out out/libra [--kp-scale 0.5 1 2] [--separation 0.18
0.45] [--workers N]``. One analysis takes ~0.1 s, so the 18 heights alone run fastest in one process
(``--workers 1``); the pool pays for design studies of hundreds of configurations.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.robots.libra.linear import LOOPS, SWEEP_Y_B
from legsim.sweep import Sweep, run_sweep

FUNCTION = "legsim.robots.libra.linear:sweep_row"


def main(argv=None) -> dict[tuple[float, float], dict[str, float]]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--kp-scale", type=float, nargs="+", default=[1.0], help="K_p multipliers (default 1)")
    ap.add_argument("--separation", type=float, nargs="+", default=[0.18], help="ladder separations [m]")
    ap.add_argument("--workers", type=int, default=None, help="default: all cores")
    args = ap.parse_args(argv)
    sweep = Sweep(function=FUNCTION, grid={"kp_scale": args.kp_scale, "separation": args.separation,
                                           "y_b": list(SWEEP_Y_B)})
    res = run_sweep(sweep, Path(args.out) / "table", workers=args.workers, overwrite=True)
    t = res.table
    status = np.array(t.column("status").to_pylist())
    kp, sep = np.array(t.column("kp_scale").to_pylist()), np.array(t.column("separation").to_pylist())
    summary = {}
    for k in args.kp_scale:
        for s in args.separation:
            rows = (kp == k) & (sep == s)
            done = rows & (status == "done")
            col = {c: np.array(t.column(c).to_pylist(), dtype=float)[done]
                   for c in ("stable", "min_zeta", *(f"bw_{n}" for n in LOOPS))}
            summary[(k, s)] = {"configurations": float(rows.sum()), "reached": float(done.sum()),
                               "stable": float(col["stable"].sum()),
                               "min_zeta": float(col["min_zeta"].min()) if done.any() else math.nan}
            w = {n: 2 * np.pi * col[f"bw_{n}"] for n in LOOPS[:3]}   # Hz -> rad/s
            bws = ", ".join(f"{n} {w[n].min():.1f}-{w[n].max():.1f}" for n in w) if done.any() else "-"
            print(f"K_p x {k:g}, separation {s:g} m: {int(done.sum())} of {int(rows.sum())} heights "
                  f"reached, {int(col['stable'].sum())} stable, smallest damping ratio "
                  f"{summary[(k, s)]['min_zeta']:.3f}; bandwidths [rad/s] {bws} (App. C: x_b 5.2, y_b ~7, "
                  "θ_b 5.6)")
    return summary


if __name__ == "__main__":
    run_script(main)
