"""A design study with ``legsim.sweep``: for how long does a SLIP runner keep running when it always
touches down at the same leg angle, over a grid of touchdown angles and spring stiffnesses?

The bundled ``slip_run.toml`` (SimSect's SLIP, 1 kg, 1 m leg) is run from x' = 2 m/s with
``touchdown_policy = 1`` (a fixed touchdown angle from the vertical) for every pair of angle and
stiffness k, on all cores. A run that falls (y < 0) stops with status ``invalid_state``; its
``t_end`` says when, so the table is itself the stability map: the runner lasts the whole run in a
band of angles that widens with k (the self-stabilising region of a SLIP runner). Prints the map,
writes ``survival.png`` and the table ``sweep.parquet`` into ``--out``.

Usage: ``python examples/sweep_slip.py --out out/sweep [--quick] [--workers N] [--backend local|ray|serial]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from legsim.cli import SCENARIO_DIR, run_script
from legsim.sweep import Sweep, run_sweep


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="a 5 x 5 grid of 8 s runs")
    ap.add_argument("--workers", type=int, default=None, help="default: all cores")
    ap.add_argument("--backend", default="local", choices=("local", "ray", "serial"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    n, t_final = (5, 8.0) if args.quick else (13, 10.0)
    angles = [round(a, 4) for a in np.linspace(-0.12, 0.0, n)]  # [rad] from the vertical
    stiffness = [round(k, 1) for k in np.linspace(2000.0, 10000.0, n)]  # [N/m]
    sweep = Sweep(SCENARIO_DIR / "slip_run.toml", grid={
        "params.touchdown_policy": [1], "params.touchdown_fixed_angle": angles, "params.k": stiffness,
        "initial.xdot": [2.0], "t_final": [t_final]})
    res = run_sweep(sweep, out / "table", outputs=["x@final"], workers=args.workers, backend=args.backend,
                    overwrite=True)
    t_end = res.column("t_end").reshape(len(angles), len(stiffness))
    print(f"time running [s] of {len(res.table)} runs ({res.failed} fell before {t_final:g} s); rows: "
          "touchdown angle [rad], columns: k [N/m]")
    print("        " + " ".join(f"{k:7.0f}" for k in stiffness))
    for a, row in zip(angles, t_end, strict=True):
        print(f"{a:+7.3f} " + " ".join(f"{t:7.2f}" for t in row))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    dk, da = (stiffness[1] - stiffness[0]) / 2, (angles[1] - angles[0]) / 2  # cells centred on the grid
    im = ax.imshow(t_end, origin="lower", aspect="auto", cmap="viridis", vmin=0.0, vmax=t_final,
                   extent=(stiffness[0] - dk, stiffness[-1] + dk, angles[0] - da, angles[-1] + da))
    fig.colorbar(im, ax=ax, label="time running before a fall [s]")
    ax.set(xlabel="leg stiffness k [N/m]", ylabel="touchdown angle [rad]",
           title=f"SLIP at 2 m/s, fixed touchdown angle ({len(res.table)} runs)")
    fig.tight_layout()
    fig.savefig(out / "survival.png", dpi=120)
    plt.close(fig)
    return res


if __name__ == "__main__":
    run_script(main)
