"""The pneumatic CRR quadruped stands up from a 3 mm drop and squats (Daepp 2011, §6.6.1: all 12 joints).

Twelve MPYE-5 valves and Bimba cylinders, the CRR leg's 1 kHz PID with pressure-force feedback on
every joint, a free trunk (2 kg, documented in ``legsim.robots.crr_quadruped.body``) and
Hunt–Crossley + regularised Coulomb foot contact (μ = 0.8). The robot is released 3 mm above the
ground holding the stance posture (Alpha 0°, Beta −10°, Gamma 85° on every leg), settles, then
lowers its trunk by 3 cm (1 s ramp), holds, and rises again. Prints the settled height, the
weight the feet carry, the squat depth against the legs' kinematics and the air used; writes
``quadruped_stand.png`` (trunk height, total vertical foot force, one leg's joints, pressures).
Usage: ``python examples/crr_quadruped_stand.py --out DIR [--quick]`` (quick: no rise phase).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.robots.crr_quadruped import Quadruped, squat_posture, squat_references
from legsim.viz.example_cli import run_example

DEPTH = 0.03          # m
T_SQUAT = 2.5         # s: squat starts
RAMP, HOLD = 1.0, 1.5  # s


def run(quick: bool = False) -> dict:
    q = Quadruped()
    t_final = T_SQUAT + RAMP + HOLD if quick else T_SQUAT + 2 * RAMP + HOLD + 1.5
    r = q.run(squat_references(DEPTH, T_SQUAT, RAMP, HOLD), t_final, drop=0.003)
    stance = np.tile(np.radians([0.0, -10.0, 85.0]), 4)
    squat = np.tile(squat_posture(DEPTH), 4)

    def mean_height(t0, t1):
        sel = (r.t >= t0) & (r.t <= t1)
        return float(r.trunk_position[sel, 2].mean())

    before = mean_height(T_SQUAT - 0.25, T_SQUAT)
    low = mean_height(T_SQUAT + RAMP + HOLD - 0.25, T_SQUAT + RAMP + HOLD)
    sel = (r.t >= T_SQUAT - 0.5) & (r.t <= T_SQUAT)
    return {"run": r, "model": q, "before": before, "low": low,
            "kinematic": q.standing_height(squat) - q.standing_height(stance),
            "standing_height": q.standing_height(stance),
            "weight_ratio": float(np.mean(r.foot_force[sel, :, 2].sum(axis=1))
                                  / (q.bodies.total_mass() * 9.81)),
            "rtf": r.result.stats["real_time_factor"]}


def report(res: dict) -> str:
    r = res["run"]
    return "\n".join([
        f"settled trunk height {1e3 * res['before']:.1f} mm (kinematic standing height "
        f"{1e3 * res['standing_height']:.1f} mm)",
        f"vertical foot force / weight before the squat: {res['weight_ratio']:.4f}",
        f"squat: trunk moved {1e3 * (res['low'] - res['before']):.1f} mm, legs' kinematics say "
        f"{1e3 * res['kinematic']:.1f} mm",
        f"air used {1e6 * r.air_used[-1]:.0f} mg over {r.t[-1]:.1f} s; real-time factor {res['rtf']:.2f}",
    ])


def plot(res: dict, out: Path) -> list[Path]:
    from matplotlib.figure import Figure

    r = res["run"]
    out.mkdir(parents=True, exist_ok=True)
    fig = Figure(figsize=(8.0, 9.0))
    ax = fig.subplots(4, 1, sharex=True)
    ax[0].plot(r.t, 1e3 * r.trunk_position[:, 2])
    ax[0].set_ylabel("trunk height [mm]")
    ax[1].plot(r.t, r.foot_force[:, :, 2].sum(axis=1), label="sum of foot F_z")
    ax[1].axhline(res["model"].bodies.total_mass() * 9.81, color="k", ls="--", lw=1, label="m g")
    ax[1].set_ylabel("force [N]")
    ax[1].legend(loc="best")
    for j, name in enumerate(("alpha", "beta", "gamma")):
        line, = ax[2].plot(r.t, np.degrees(r.q[:, j]), label=f"lf {name}")
        ax[2].plot(r.t, np.degrees(r.ref[:, j]), "--", color=line.get_color(), lw=1)
    ax[2].set_ylabel("joint [deg]")
    ax[2].legend(loc="best", fontsize=8)
    ax[3].plot(r.t, r.p_cap[:, 1] / 1e3, label="lf beta cap")
    ax[3].plot(r.t, r.p_rod[:, 1] / 1e3, label="lf beta rod")
    ax[3].set_ylabel("pressure [kPa]")
    ax[3].set_xlabel("time [s]")
    ax[3].legend(loc="best", fontsize=8)
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    path = out / "quadruped_stand.png"
    fig.savefig(path)
    return [path]


def main(argv=None) -> dict:
    return run_example(__doc__, run, report, plot, "stop after the squat hold (tests)", argv)


if __name__ == "__main__":
    run_script(lambda: main(sys.argv[1:]))
