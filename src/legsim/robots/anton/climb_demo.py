"""``legsim demo anton_climb``: ANTON climbs a ledge as high as its body by the 8-step script of
Konyev 2011 §3.4.7 (:mod:`.climb`), with the records, a side view at the end of every step, the
CoM's margin in the support polygon and the body's share of the load against time, and a 3-D
replay."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ...io.results import RunWriter
from ...userfiles import output_dir, user_path
from ...viz.scene import robot_builder
from .climb import ClimbPlan, climb_robot, simulate_climb, step_summary, steps_at
from .params import LEGS

if TYPE_CHECKING:
    from ...assembly import Robot
    from ...hybrid import Result

__all__ = ["run_demo", "default_climb_robot", "ClimbRun", "RECORD_PERIOD"]

RECORD_PERIOD = 0.01  # [s]


@dataclasses.dataclass
class ClimbRun:
    """What :func:`run_demo` ran: the plan, the robot, its climbing controller (``ctrl.history``: the
    stage of every tick), the result (a record every :data:`RECORD_PERIOD`), the support track of every
    record (:func:`.robot.support_track`) and the per-step summary (:func:`.climb.step_summary`)."""

    plan: ClimbPlan
    robot: Robot
    ctrl: Any
    res: Result
    track: dict
    steps: dict


def _side_view(ax, robot, q, ledge, tibia: float) -> None:
    """ANTON at configuration ``q`` seen from its left side (x-z): the segments' boxes and the left
    legs' links (``tibia`` [m] long to the foot's centre), over the ground and the ledge."""
    from ...multibody.dynamics import forward_kinematics

    mb = robot.mb
    data = mb.make_data()
    forward_kinematics(mb, data, q)
    ax.fill([ledge.edge_x, ledge.edge_x + 0.8, ledge.edge_x + 0.8, ledge.edge_x],
            [0, 0, ledge.height, ledge.height], color="0.85")
    ax.axhline(0.0, color="0.5", lw=0.8)
    for g in mb.geometries:
        if g.shape != "box":
            continue
        half = 0.5 * np.asarray(g.params["size"], dtype=float)
        b = mb.body_id(g.body)
        R, p = data.oR[b] @ g.R, data.op[b] + data.oR[b] @ g.p
        loop = [(-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1)]
        pts = np.array([p + R @ (half * [sx, 0.0, sz]) for sx, sz in loop])
        ax.plot(pts[:, 0], pts[:, 2], color="tab:blue", lw=1.2)
    for leg in LEGS[:3]:
        chain = [mb.body_id(f"{leg}_{link}") for link in ("coxa", "femur", "tibia")]
        tib = chain[-1]
        foot = data.op[tib] + data.oR[tib] @ np.array([0.0, tibia, 0.0])
        pts = np.array([data.op[b] for b in chain] + [foot])
        ax.plot(pts[:, 0], pts[:, 2], color="tab:orange", lw=1.0, marker="o", ms=2)
    ax.set_aspect("equal")


def default_climb_robot():
    """ANTON before the default ledge (:class:`~.climb.ClimbPlan`): the robot of the demo's run (its
    records name this function for ``legsim view``)."""
    return climb_robot(ClimbPlan())


def run_demo(out_dir: str | Path = "anton_climb-out", echo=print) -> ClimbRun:
    """Climb the default ledge (:class:`~.climb.ClimbPlan`); write records, figures and
    ``anton_climb.html`` into ``out_dir`` (a path; made if missing), saying what it did through ``echo`` (a
    function of one string); return what ran (:class:`ClimbRun`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...errors import check_echo
    from ...viz.viewer import write_robot_replay
    from .robot import support_track

    o = "anton_climb run_demo"
    check_echo(o, echo)
    out = output_dir(user_path(out_dir, f"{o}: 'out_dir'"), "the demo's records and figures")
    plan = ClimbPlan()
    ledge = plan.ledge
    robot = climb_robot(plan)
    meta = {"demo": "anton_climb", "ledge": {"height": ledge.height, "edge_x": ledge.edge_x},
            "stages": [[s.step, s.what, s.duration] for s in plan.stages],
            "robot_builder": robot_builder("legsim.robots.anton.climb_demo:default_climb_robot")}
    # a record every 10 ms (the controller still runs every 1 ms): 14 MB of records, not 140
    options = dataclasses.replace(robot.default_options(), record_period=RECORD_PERIOD)
    with RunWriter(out, robot.model, meta) as writer:  # run.json gets a final status however it ends
        plan, robot, ctrl, res = simulate_climb(plan, robot, sinks=[writer], options=options,
                                                progress=None)
    track = support_track(robot, res, every=1)
    steps = step_summary(plan, ctrl, track)
    weight = robot.mb.total_mass() * 9.81
    feet_on_top = int(np.sum((track["feet"][-1, :, 0] > ledge.edge_x)
                             & (track["fn"][-1] > 0.5 * weight / 6.0)))
    echo(f"anton_climb: {res.status}; a {ledge.height * 100:.0f} cm ledge climbed in {plan.duration:.1f} s "
         f"of script ({len(plan.stages)} stages); {feet_on_top} of 6 feet on the top at the end")
    for k, s in steps.items():
        label = f"step {k}" if k <= 8 else "standing"
        echo(f"  {label}: least CoM margin {s['margin'] * 1000:.0f} mm"
             + (f", body carries up to {s['body_load']:.0f} N of {weight:.0f} N"
                if s["body_load"] > 0 else ""))
    # side views at the end of each step
    hist = np.array(ctrl.history)
    ends = {st.step: i for i, st in enumerate(plan.stages)}  # each step's last stage
    fig, axes = plt.subplots(4, 2, figsize=(10, 9), sharex=True, sharey=True)
    names = robot.model.state_names[:robot.mb.nq]
    q_all = np.column_stack([res.state(n) for n in names])
    for ax, (step, i) in zip(axes.ravel(), sorted(ends.items()), strict=True):
        t_end = hist[np.flatnonzero(hist[:, 1] == i)[-1], 0]
        _side_view(ax, robot, q_all[np.searchsorted(res.t, t_end)], ledge, plan.params.tibia)
        ax.set_title(f"end of step {step}: {plan.stages[i].what[:48]}", fontsize=8)
    for ax in axes[-1]:
        ax.set_xlabel("x [m]")
    fig.tight_layout()
    fig.savefig(out / "anton_climb_steps.png", dpi=110)
    plt.close(fig)
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(9, 6))
    ax1.plot(track["t"], track["margin"] * 1000, lw=0.8)
    ax1.set_ylabel("CoM margin in the\nsupport polygon [mm]")
    ax2.plot(track["t"], track["fn_body"], lw=0.8, label="body on the ledge")
    ax2.plot(track["t"], track["fn"].sum(axis=1), lw=0.8, label="feet")
    ax2.axhline(weight, color="0.6", lw=0.6, ls="--")
    ax2.set_ylabel("normal force [N]")
    ax2.set_xlabel("t [s]")
    ax2.legend(fontsize=8)
    step_of = steps_at(plan, ctrl, track["t"])
    for ax in (ax1, ax2):
        for k in range(1, 9, 2):
            on = step_of == k
            if on.any():
                ax.axvspan(track["t"][on][0], track["t"][on][-1], color="0.93", zorder=0)
    fig.tight_layout()
    fig.savefig(out / "anton_climb_balance.png", dpi=110)
    plt.close(fig)
    echo(f"  figures: {out / 'anton_climb_steps.png'}, {out / 'anton_climb_balance.png'}")
    echo(f"  3-D replay (open in a browser): {write_robot_replay(out / 'anton_climb.html', robot, res)}")
    return ClimbRun(plan, robot, ctrl, res, track, steps)
