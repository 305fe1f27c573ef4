"""``legsim demo anton_walk``: ANTON's tripod at 0.1 m/s (A12), a gait change to the wave and back
(A11), then a 2.5 cm step that the feet find through their shank sensors (A13), with the records, a
gait diagram, the feet's force traces (the kind of the thesis's Fig. 2.15), the CoM against the
support polygon and a 3-D replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...assembly import Obstacle
from ...errors import check_echo, check_number
from ...io.results import RunWriter
from ...userfiles import output_dir, user_path
from ...viz.scene import robot_builder
from .model import MAX_DURATION
from .params import LEGS
from .robot import WalkPlan, build_robot, standing_pose, support_track, walker

__all__ = ["run_demo", "walk_robot", "STEP_EDGE", "STEP_HEIGHT", "MIN_T_FINAL"]

STEP_EDGE, STEP_HEIGHT = 1.0, 0.025  # [m]: the step's edge along x and its height
MIN_T_FINAL = 4.0
"""The shortest walk [s] :func:`run_demo` takes: to the gait change at 4 s (the tripod's speed is measured
over its two cycles before it; a shorter walk has nothing to measure). At most :data:`.model.MAX_DURATION`."""


def walk_robot():
    """ANTON with the demo's step (:data:`STEP_EDGE`, :data:`STEP_HEIGHT`) ahead of it: the robot of the
    demo's run (its records name this function for ``legsim view``)."""
    step = Obstacle((1.0, 1.0, 0.5 * STEP_HEIGHT), (STEP_EDGE + 1.0, 0.0, 0.5 * STEP_HEIGHT), name="step")
    return build_robot(obstacles=(step,))


def run_demo(out_dir: str | Path = "anton_walk-out", echo=print, t_final: float = 14.0) -> dict:
    """Walk ``t_final`` [s]: the tripod, the wave from 4 s, the tripod again from 8 s, onto the step;
    write records, figures and ``anton_walk.html`` into ``out_dir`` (a path; made if missing); say what it did
    through ``echo`` (a function of one string); return the run's figures. ``t_final`` in
    [:data:`MIN_T_FINAL`, :data:`.model.MAX_DURATION`]."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...viz.viewer import write_robot_replay

    o = "anton_walk run_demo"
    check_number(o, "t_final", t_final, lo=MIN_T_FINAL, hi=MAX_DURATION)  # [s]
    check_echo(o, echo)
    out = output_dir(user_path(out_dir, f"{o}: 'out_dir'"), "the demo's records and figures")
    plan = WalkPlan(adaptation_height=0.03, gait_changes=((4.0, "wave"), (8.0, "tripod")))
    robot = walk_robot()
    q0 = standing_pose(plan)
    q0[2] += 0.002
    ctrl = walker(plan)
    meta = {"demo": "anton_walk", "plan": {"speed": plan.speed, "gait": plan.gait,
                                          "gait_changes": [list(c) for c in plan.gait_changes]},
            "step": {"edge_x": STEP_EDGE, "height": STEP_HEIGHT},
            "robot_builder": robot_builder("legsim.robots.anton.demo:walk_robot")}
    with RunWriter(out, robot.model, meta) as writer:  # run.json gets a final status however it ends
        res = robot.simulate(t_final, ctrl, q0=q0, sinks=[writer])
    weight = robot.mb.total_mass() * 9.81
    T = plan.cycle().period
    x, z = res.x[:, 0], res.x[:, 2]
    first = (res.t >= plan.start) & (res.t < 4.0)
    track = support_track(robot, res)
    statics = track["t"] > plan.start
    m = {"speed_m_s": float((np.interp(4.0, res.t, x) - np.interp(4.0 - 2 * T, res.t, x)) / (2 * T)),
         "support_over_weight": float(res.output("fn_total")[first].mean() / weight),
         "rule_violations": int(ctrl.gen.violations),
         "body_rise_m": float(z[res.t >= res.t[-1] - T].mean() - z[first].mean()),
         "min_margin_m": float(np.nanmin(track["margin"][statics]))}
    echo(f"anton_walk: tripod at {m['speed_m_s']:.3f} m/s (commanded {plan.speed}), feet carry "
         f"{m['support_over_weight']:.3f} of the weight; wave from 4 s, tripod from 8 s; onto the "
         f"{STEP_HEIGHT * 100:.1f} cm step: the body rose {m['body_rise_m'] * 1000:.1f} mm; "
         f"{m['rule_violations']} stability-rule violations; "
         f"{res.stats['wall_time_s']:.1f} s wall for {t_final:g} s; records in {out}")
    t_h = np.array([h[0] for h in ctrl.history])
    sup = np.array([h[1] for h in ctrl.history])
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, sharex=True, figsize=(9, 8))
    for k, leg in enumerate(LEGS):
        ax1.fill_between(t_h, k - 0.4, k + 0.4, where=~sup[:, k], color="k", step="post")
        ax2.plot(res.t, res.output(f"fn_{leg}_foot"), label=leg, lw=0.8)
    ax1.set_yticks(range(6), LEGS)
    ax1.set_ylabel("in the air")
    for t_change, name in plan.gait_changes:
        ax1.axvline(t_change, color="tab:red", lw=0.8)
        ax1.text(t_change, 5.6, f" {name}", color="tab:red", fontsize=8)
    ax2.set_ylabel("normal force [N]")
    ax2.legend(ncol=6, fontsize=8)
    ax3.plot(track["t"], track["margin"] * 1000, lw=0.8, label="CoM margin in the support polygon")
    ax3.plot(res.t, (z - z[first].mean()) * 1000, lw=0.8, label="body height change")
    ax3.axhline(STEP_HEIGHT * 1000, color="0.6", lw=0.6, ls="--")
    ax3.set_ylabel("[mm]")
    ax3.set_xlabel("t [s]")
    ax3.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "anton_gait_forces.png", dpi=110)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(9, 4))
    for k in range(0, len(track["t"]), 40):
        on = track["fn"][k] > 2.0
        if on.sum() >= 3:
            from ...walking import support_polygon

            poly = support_polygon(track["feet"][k, on, :2])
            ax.fill(poly[:, 0], poly[:, 1], alpha=0.04, color="tab:blue")
    ax.plot(track["com"][:, 0], track["com"][:, 1], color="tab:red", lw=1, label="CoM")
    ax.axvline(STEP_EDGE, color="0.4", lw=0.8, ls="--", label="step edge")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title("the CoM over the support polygons (every 0.4 s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "anton_support.png", dpi=110)
    plt.close(fig)
    echo(f"  figures: {out / 'anton_gait_forces.png'}, {out / 'anton_support.png'}")
    echo(f"  3-D replay (open in a browser): {write_robot_replay(out / 'anton_walk.html', robot, res)}")
    return m
