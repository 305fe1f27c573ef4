"""``legsim demo anton_walk``: ANTON's tripod at 0.1 m/s on flat ground (A12), with its records, a
gait diagram, the feet's force traces (the kind of the thesis's Fig. 2.15) and a 3-D replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...io.results import RunWriter
from .params import LEGS
from .robot import WalkPlan, build_robot, standing_pose, walker

__all__ = ["run_demo"]


def run_demo(out_dir: str | Path = "anton_walk-out", echo=print, t_final: float = 6.0) -> dict:
    """Walk ``t_final`` [s]; write records, figures and ``anton_walk.html`` into ``out_dir``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...viz.viewer import write_robot_replay

    out = Path(out_dir)
    plan = WalkPlan()
    robot = build_robot()
    q0 = standing_pose(plan)
    q0[2] += 0.002
    ctrl = walker(plan)
    meta = {"demo": "anton_walk", "plan": {"speed": plan.speed, "gait": plan.gait}}
    writer = RunWriter(out, robot.model, meta)
    res = robot.simulate(t_final, ctrl, q0=q0, sinks=[writer])
    writer.finish(res.status, res.message, res.stats)
    weight = robot.mb.total_mass() * 9.81
    T = plan.cycle().period
    last = res.t >= res.t[-1] - T
    x = res.x[:, 0]
    m = {"speed_m_s": float((x[-1] - np.interp(res.t[-1] - 2 * T, res.t, x)) / (2 * T)),
         "support_over_weight": float(res.output("fn_total")[last].mean() / weight),
         "rule_violations": int(ctrl.gen.violations)}
    echo(f"anton_walk: {plan.gait} at {m['speed_m_s']:.3f} m/s (commanded {plan.speed}), feet carry "
         f"{m['support_over_weight']:.3f} of the weight over the last cycle; "
         f"{res.stats['wall_time_s']:.1f} s wall for {t_final:g} s; records in {out}")
    t_h = np.array([h[0] for h in ctrl.history])
    sup = np.array([h[1] for h in ctrl.history])
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for k, leg in enumerate(LEGS):
        ax1.fill_between(t_h, k - 0.4, k + 0.4, where=~sup[:, k], color="k", step="post")
        ax2.plot(res.t, res.output(f"fn_{leg}_foot"), label=leg, lw=1)
    ax1.set_yticks(range(6), LEGS)
    ax1.set_ylabel("in the air")
    ax2.set_ylabel("normal force [N]")
    ax2.set_xlabel("t [s]")
    ax2.legend(ncol=6, fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "anton_gait_forces.png", dpi=110)
    plt.close(fig)
    echo(f"  figure: {out / 'anton_gait_forces.png'}")
    echo(f"  3-D replay (open in a browser): {write_robot_replay(out / 'anton_walk.html', robot, res)}")
    return m
