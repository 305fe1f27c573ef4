"""LIBRA and CJTC (the MIT master's thesis on Coordinated Jacobian Transpose Control): the Extended
Mobility Analysis (§4.3), the linear analysis (§4.5, App. C) and the stage-1 climbing experiment
(§4.6.1) on the simulated robot.

    python examples/libra.py mobility [u1|u2|u3]   # the EMA step log (Figs. 17-22)
    python examples/libra.py linear                # poles and loop bandwidths over the 18 configurations
    python examples/libra.py stage1 [--plot FILE]  # push-up + foot 3 placement (§4.6.1), measures vs source
"""

from __future__ import annotations

import argparse

import numpy as np

from legsim.cli import run_script


def mobility(vector: str) -> None:
    from legsim.robots.libra.mobility import libra_report

    print(libra_report(vector))


def linear() -> None:
    from legsim.robots.libra.linear import sweep

    print("  y_b [m]  stable  min zeta  bandwidth x_b, y_b, theta_b [Hz] (u_dot_cmd = s u_cmd | = 0)")
    for pt in sweep():
        z = float(np.min(pt.zeta))
        print(f"  {pt.y_b:+.2f}   {pt.stable!s:5}   {z:.3f}    {np.round(pt.bandwidth[:3], 2)} | "
              f"{np.round(pt.bandwidth_position[:3], 2)}")


def stage1(plot: str | None) -> None:
    from legsim.robots.libra.experiments import climb, stage1_measures
    from legsim.robots.libra.gait import climb_cycle
    from legsim.robots.libra.robot import build

    lib = build()
    run = climb(lib, climb_cycle(lib.ladders, stages=(1,)))
    m = stage1_measures(run)
    source = {"x_b_peak": "<= 0.005 m", "x_b_final": "<= 0.002 m", "theta_b_peak": "<= 0.03 rad",
              "f2_min": ">= 6 N", "f2_max": "<= 14 N", "settle_time": "~4.5 s"}
    for k, v in m.items():
        print(f"  {k:22s} {v:9.4f}   source: {source.get(k, '-')}")
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
        for i, name in enumerate(("x_b", "y_b")):
            ax[0].plot(run.t, run.true[name], label=f"{name} true")
            ax[0].plot(run.t, run.u_cmd[:, i], "--", label=f"{name} cmd")
        ax[0].set_ylabel("body [m]")
        ax[0].legend(fontsize=7)
        ax[1].plot(run.t, -run.force[:, 1, 0], label="foot 2 wall force")
        ax[1].plot(run.t, -run.force[:, 2, 0], label="foot 3 post force")
        ax[1].set_ylabel("force [N]")
        ax[1].legend(fontsize=7)
        ax[2].plot(run.t, run.tau)
        ax[2].axhline(lib.tau_max, color="k", lw=0.5)
        ax[2].axhline(-lib.tau_max, color="k", lw=0.5)
        ax[2].set_ylabel("joint torques [N m]")
        ax[2].set_xlabel("t [s]")
        fig.savefig(plot, dpi=100)
        print(f"wrote {plot}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("mobility")
    p.add_argument("vector", nargs="?", default="u1", choices=["u1", "u2", "u3"])
    sub.add_parser("linear")
    p = sub.add_parser("stage1")
    p.add_argument("--plot", default=None)
    a = ap.parse_args(argv)
    if a.cmd == "mobility":
        mobility(a.vector)
    elif a.cmd == "linear":
        linear()
    else:
        stage1(a.plot)
    return 0


if __name__ == "__main__":
    run_script(main)
