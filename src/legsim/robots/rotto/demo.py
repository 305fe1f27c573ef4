"""``legsim demo rotto_walk``: ROTTO's static walk (the source's §4.4 result), with its records, the
centre of mass and the zero-moment point over the feet (top view and lateral trace) and a 3-D replay."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...io.results import RunWriter
from ...userfiles import output_dir, user_path
from ...viz.scene import robot_builder
from .robot import (
    StaticWalk,
    balance_summary,
    build_robot,
    peak_drive_force,
    standing_pose,
    support_track,
    walker,
)

__all__ = ["run_demo"]


def run_demo(out_dir: str | Path = "rotto_walk-out", echo=print, steps: int = 4) -> dict:
    """Walk ``steps`` steps (a whole number, as :class:`StaticWalk`'s); write records, figures and
    ``rotto_walk.html`` into ``out_dir`` (a path; made if missing), saying what it did through ``echo`` (a
    function of one string)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...errors import check_echo
    from ...viz.viewer import write_robot_replay

    o = "rotto_walk run_demo"
    walk = StaticWalk(steps=steps)
    check_echo(o, echo)
    out = output_dir(user_path(out_dir, f"{o}: 'out_dir'"), "the demo's records and figures")
    robot = build_robot()
    ctrl = walker(walk)
    meta = {"demo": "rotto_walk", "walk": {"steps": walk.steps, "step_length": walk.step_length},
            "robot_builder": robot_builder("legsim.robots.rotto.robot:build_robot")}
    with RunWriter(out, robot.model, meta) as writer:  # run.json gets a final status however it ends
        res = robot.simulate(walk.duration, ctrl, q0=standing_pose(walk), sinks=[writer])
    track = support_track(robot, res, walk.params, every=10)
    m = balance_summary(track)
    m["peak_drive_force_N"] = peak_drive_force(robot, res)
    echo(f"rotto_walk: {walk.steps} steps, the CoM moved {m['advance_m']:.3f} m; CoM margin in the "
         f"support polygon >= {1000 * m['com_margin_min_m']:.1f} mm, ZMP margin >= "
         f"{1000 * m['zmp_margin_min_m']:.1f} mm; pelvis tilt <= {np.degrees(m['tilt_max_rad']):.2f} deg; "
         f"drive forces <= {m['peak_drive_force_N']:.0f} N; {res.stats['wall_time_s']:.1f} s wall for "
         f"{walk.duration:g} s; records in {out}")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    touching = track["fn"] > 1.0
    for k in range(0, len(track["t"]), 25):
        pts = track["pads"][k][touching[k], :2]
        if len(pts):
            ax1.plot(pts[:, 0], pts[:, 1], ".", color="0.8", ms=3)
    ax1.plot(track["com"][:, 0], track["com"][:, 1], label="CoM")
    ax1.plot(track["zmp"][:, 0], track["zmp"][:, 1], lw=0.7, label="ZMP (centre of pressure)")
    ax1.set_aspect("equal")
    ax1.set_xlabel("x [m]")
    ax1.set_ylabel("y [m]")
    ax1.legend(fontsize=8)
    ax1.set_title("top view: pads in contact (grey)")
    ax2.plot(track["t"], track["com"][:, 1], label="CoM y")
    ax2.plot(track["t"], track["zmp"][:, 1], lw=0.7, label="ZMP y")
    ax2.plot(track["t"], track["margin_zmp"], lw=0.7, label="ZMP margin")
    ax2.set_xlabel("t [s]")
    ax2.set_ylabel("[m]")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "rotto_balance.png", dpi=110)
    plt.close(fig)
    echo(f"  figure: {out / 'rotto_balance.png'}")
    echo(f"  3-D replay (open in a browser): {write_robot_replay(out / 'rotto_walk.html', robot, res)}")
    return m
