"""``legsim demo libra_climb``: LIBRA climbing one full cycle between two ladders under CJTC, written as a
run directory (records as the run goes, ``run.json``) with the figures of §6.2: commanded and actual
control variables, the wheels' contact forces, the joint torques against their limits, and a planar
replay (GIF).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import InputError, check_echo, shown
from ...io.results import RunWriter
from ...userfiles import output_dir, user_path
from ...viz.scene import robot_builder
from .experiments import ClimbRun, climb, compiled_model, cycle_measures
from .gait import VECTORS, climb_cycle
from .robot import build

__all__ = ["run_demo", "plot_climb", "replay"]


def plot_climb(run: ClimbRun, out: Path) -> list[Path]:
    """Figures of a climb (``run``, a :class:`~.experiments.ClimbRun`) in the folder ``out`` (a path; made if
    missing): control variables (true solid, commanded dashed), forces, torques. Returns their files."""
    o = "plot_climb"
    if not isinstance(run, ClimbRun):
        raise InputError(f"{o}: 'run' = {shown(run)}, expected a ClimbRun (experiments.climb)")
    out = output_dir(user_path(out, f"{o}: 'out'"), "the figures", f"{o}: 'out'")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    fig, axes = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
    names = {"body": ("x_b", "y_b"), "feet x": ("x1", "x2", "x3"), "feet y": ("y1", "y2", "y3")}
    for ax, (title, group) in zip(axes, names.items(), strict=True):
        for n in group:
            line, = ax.plot(run.t, run.true[n], label=f"{n}")
            cmd = np.full(run.t.size, np.nan)
            for k, st in enumerate(run.stages):
                if n in VECTORS[st.vector]:
                    sel = run.stage == k
                    cmd[sel] = run.u_cmd[sel, list(VECTORS[st.vector]).index(n)]
            ax.plot(run.t, cmd, "--", color=line.get_color(), lw=0.8)
        ax.set_ylabel(f"{title} [m]")
        ax.legend(fontsize=7, ncol=3)
    th = axes[0].twinx()
    th.plot(run.t, np.degrees(run.true["theta_b"]), "k", lw=0.7)
    th.set_ylabel("θ_b [deg]")
    for st in run.stages[1:]:
        for ax in axes:
            ax.axvline(st.t0, color="0.7", lw=0.6)
    axes[-1].set_xlabel("t [s]  (dashed: commanded; a foot commanded inside a post or tread is pushing)")
    fig.tight_layout()
    files.append(out / "libra_control_variables.png")
    fig.savefig(files[-1], dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for i in range(3):
        axes[0].plot(run.t, -run.force[:, i, 0], label=f"wheel {i + 1}: post push (−F_x)")
    axes[0].axhline(10.0, color="k", lw=0.5, ls=":")
    axes[0].set_ylabel("force [N]")
    axes[0].legend(fontsize=7)
    axes[1].plot(run.t, run.tau, lw=0.8)
    for s in (1, -1):
        axes[1].axhline(s * run.libra.tau_max, color="k", lw=0.6)
        axes[1].axhline(s * run.libra.params.tau_dynamic, color="k", lw=0.4, ls=":")
    axes[1].set_ylabel("joint torques [N m] (limits: 9.1 continuous, 4.5 dynamic)")
    axes[1].set_xlabel("t [s]")
    fig.tight_layout()
    files.append(out / "libra_forces_torques.png")
    fig.savefig(files[-1], dpi=90)
    plt.close(fig)
    return files


def replay(run: ClimbRun, path: Path, fps: float = 10.0, speed: float = 4.0) -> Path:
    """A planar replay GIF of the climb: ladders (posts and treads), links, wheels, sim time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    from ...control import Kinematics
    from ...viz.animate import write_animation

    lib = run.libra
    kin = Kinematics(lib.mb)
    chains = (("foot1", "link1b", "body"), ("link2a", "link2b", "foot2"), ("link3a", "link3b", "foot3"))
    fig, ax = plt.subplots(figsize=(5, 6))
    lad = lib.ladders
    for ob in lad.obstacles():
        c, h = np.asarray(ob.centre), np.asarray(ob.half_extents)
        ax.add_patch(Rectangle((c[0] - h[0], c[1] - h[1]), 2 * h[0], 2 * h[1], color="0.6"))
    ax.set_xlim(-0.15, lad.separation + 0.15)
    ax.set_ylim(-0.5, 0.35)
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    lines = [ax.plot([], [], "o-", lw=3)[0] for _ in chains]
    body = ax.plot([], [], "k-", lw=2)[0]
    wheels = [ax.add_patch(Circle((0, 0), lib.params.wheel_radius, fill=False, lw=1.5)) for _ in range(3)]
    label = ax.set_title("")
    step = max(1, int(round(speed / (fps * (run.t[1] - run.t[0])))))
    frames = range(0, run.t.size, step)

    def pos(name):
        return kin.position(kin.frame(name))[:2].copy()

    def draw(j):
        kin.at(run.result.x[j, :9])
        for ln, ch in zip(lines, chains, strict=True):
            p = np.array([pos(n) for n in ch])
            ln.set_data(p[:, 0], p[:, 1])
        tri = np.array([pos("body"), pos("link2a"), pos("link3a"), pos("body")])
        body.set_data(tri[:, 0], tri[:, 1])
        for i, w in enumerate(wheels):
            w.center = tuple(pos(f"foot{i + 1}"))
        label.set_text(f"LIBRA  t = {run.t[j]:5.2f} s  stage {run.stages[run.stage[j]].name}")
        return [*lines, body, *wheels, label]

    write_animation(fig, draw, frames, path, fps)
    plt.close(fig)
    return path


def run_demo(out_dir: str | Path = "libra_climb-out", echo=print, progress=None) -> dict:
    """Run the demo into ``out_dir`` (a path; made if missing), saying what it did through ``echo`` (a
    function of one string), with the engine's ``progress`` bar (True, False, or None: on a terminal after
    2 s); returns the cycle measures."""
    from ..._progress import check_progress

    o = "libra_climb run_demo"
    check_echo(o, echo)
    check_progress(progress, o)
    out = output_dir(user_path(out_dir, f"{o}: 'out_dir'"), "the demo's records and figures")
    lib = build()
    stages = climb_cycle(lib.ladders)
    meta = {"demo": "libra_climb", "stages": [s.name for s in stages],
            "robot_builder": robot_builder("legsim.robots.libra.robot:build")}
    with RunWriter(out, compiled_model(lib, stages), meta) as writer:  # a final status however it ends
        run = climb(lib, stages, sinks=[writer], progress=progress)
    m = cycle_measures(run)
    echo(f"libra_climb: {len(stages)} stages in {run.t[-1]:.1f} s simulated, "
         f"{run.result.stats['wall_time_s']:.1f} s wall; records in {out}")
    echo(f"  peak |θ_b| {np.degrees(m['theta_b_peak']):.1f}° (source: ≤ 8°); feet end at "
         + ", ".join(f"({x:.3f}, {y:.3f})" for x, y in m["feet_final"]) + " m")
    for f in plot_climb(run, out):
        echo(f"  figure: {f}")
    echo(f"  replay: {replay(run, out / 'libra_climb.gif')}")
    echo(f"  3-D replay (open in a browser): {replay_html(lib, run, out / 'libra_climb.html')}")
    return m


def replay_html(lib, run, path: Path) -> Path:
    """The climb as one self-contained 3-D HTML page (:func:`legsim.viz.viewer.scene_html`): LIBRA's
    links, wheels and the two ladders, with the wheels' contact forces."""
    from ...viz.scene import robot_scene
    from ...viz.viewer import result_columns, scene_html

    path.write_text(scene_html(robot_scene(lib.robot), result_columns(run.result), fps=20, speed=2.0),
                    encoding="utf-8")
    return path
