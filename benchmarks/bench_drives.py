"""ROTTO drives in an assembled robot: what the PMSM drive with its current loop costs against ideal
force sources, in one run (issue: "the current loop with averaged PWM must not make a run more than 2x
slower than the same robot with ideal force sources").

Robot: a fixed-base 3-joint leg (hip pitch revolute, knee prismatic, ankle pitch revolute; 2, 1 and
0.5 kg; gravity on, no ground contact), each joint tracking a 1 Hz sine by the same PD written as a
compiled controller (``legsim.assembly.compiled_controller``) at 1 kHz that reads a joint encoder and a
joint-velocity sensor and commands a joint force or torque. Actuators:

- ``ideal``: :class:`TorqueSource` (the force as commanded);
- ``drive ideal``: :class:`PMSMDrive` ``mode="ideal"``: the current the force needs, clipped to the
  motor's voltage circle and current limit at this speed (no states);
- ``drive current_loop``: :class:`PMSMDrive` ``mode="current_loop"``: the 28 kHz PI as its continuous
  averaged-PWM equivalent, 4 states per drive (i_d, i_q and the PI integrals);
- ``discrete 28 kHz (stops only)``: the ideal robot with the engine stopped at every PWM period (a 28 kHz
  sensor on the sample clock), the least a run with discrete 28 kHz updates would cost.

The motors are ROTTO's placeholders (:func:`legsim.actuators.electric.drive_loops.rotto_actuator`): the
knee through belt 2 and an 8 mm ball screw, hip and ankle through a 50:1 gear. Two integrators: the
engine's adaptive DP45 (rtol 1e-7, atol 1e-9, steps up to the control period: ``Robot``'s default
without contacts) and fixed-step RK4 (the smooth contact path's default, h = half the control period,
0.5 ms; the current loop at the step ``Robot.default_options`` gives it, 0.25 ms: RK4 is stable on the
loop's pole -omega_c = -2 pi 1 kHz only for h < 2.785/omega_c = 0.44 ms). Reported: seconds per simulated
second and the ratio to ``ideal`` on the same integrator formed in the same run (min of ``--repeat``
runs each), and separately the cold compile of the drive robot in a fresh process with an empty numba
cache (``--cold``).

Then ROTTO itself (``--rotto T``, default 3 s of the static walk: standing, the CoM's shift and the
first step): its 24 drives as ``PMSMDrive`` on their rods (``legsim.robots.rotto.build_robot``), the
walk's Python controller at 1 kHz, event-located pad contacts, ``mode="ideal"`` against
``mode="current_loop"``, ratio in the same run, on ROTTO's own integrator (fixed-step RK4 at
``rotto.robot.STEP``, 0.25 ms) and on DP45 at rtol 1e-7; then, on DP45, the same walk's commands
replayed with interpolated set-points and with the current loops out of DP45's error norm
(:func:`rotto_variants`).

Usage: ``python benchmarks/bench_drives.py [--t 2] [--repeat 5] [--rotto 3] [--cold]``
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

KP = np.array([200.0, 5000.0, 50.0])   # N m/rad, N/m, N m/rad
KD = np.array([5.0, 100.0, 1.0])
AMP = np.array([0.3, 0.02, 0.3])       # rad, m, rad
JOINTS = ("hip", "knee", "ankle")


def leg():
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("leg3", gravity=(0.0, 0.0, -9.81))
    b.add_body("hip", "world", "revolute", axis=(0, 1, 0), mass=2.0, com=(0, 0, -0.2),
               inertia=np.diag([0.02, 0.02, 0.005]))
    b.add_body("knee", "hip", "prismatic", axis=(0, 0, -1), xyz=(0, 0, -0.4), mass=1.0, com=(0, 0, -0.15),
               inertia=np.diag([0.01, 0.01, 0.002]))
    b.add_body("ankle", "knee", "revolute", axis=(0, 1, 0), xyz=(0, 0, -0.3), mass=0.5, com=(0.05, 0, -0.03),
               inertia=np.diag([0.002, 0.002, 0.002]))
    return b.compile()


def make_robot(kind: str):
    from legsim.assembly import JointEncoder, JointVelocity, PMSMDrive, Robot, TorqueSource

    sensors = [JointEncoder("enc", joints=JOINTS), JointVelocity("rate", joints=JOINTS)]
    if kind in ("ideal", "stops"):
        acts = [TorqueSource(j, j) for j in JOINTS]
        if kind == "stops":
            sensors.append(JointEncoder("pwm_clock", joints=["hip"], rate_hz=28000.0))
    else:
        mode = "ideal" if kind == "drive ideal" else "current_loop"
        rot = {"gear": 50.0, "lead": None, "mode": mode, "command": "force"}
        acts = [PMSMDrive.rotto("hip", "hip", **rot),
                PMSMDrive.rotto("knee", "knee", mode=mode, command="force"),
                PMSMDrive.rotto("ankle", "ankle", **rot)]
    return Robot(leg(), actuators=acts, sensors=sensors)


def controller():
    from legsim.assembly import compiled_controller

    @compiled_controller
    def pd(t, sensors, params, commands):
        for j in range(3):
            target = params[6 + j] * np.sin(2.0 * np.pi * t)
            commands[j] = params[j] * (target - sensors[j]) - params[3 + j] * sensors[3 + j]

    return pd


COLD = """
import time
t0 = time.perf_counter()
import sys
sys.path.insert(0, {here!r})
import numpy as np
from bench_drives import make_robot, controller, KP, KD, AMP
r = make_robot("drive current_loop")
r.simulate(0.01, controller(), controller_params=np.concatenate([KP, KD, AMP]))
print(f"{{time.perf_counter() - t0:.1f}}")
"""


def rotto(t_final: float, repeat: int) -> None:
    """ROTTO's walk with ideal-current drives against the current loops (module docstring), on ROTTO's
    own integrator (fixed-step RK4 at ``STEP``, contact events located) and on DP45 at rtol 1e-7."""
    from legsim.robots.rotto.robot import (
        STEP,
        StaticWalk,
        build_robot,
        peak_drive_force,
        standing_pose,
        walker,
    )

    walk = StaticWalk()
    robots = {mode: build_robot(walk.params, mode=mode) for mode in ("ideal", "current_loop")}
    integrators = {f"RK4 {STEP * 1e3:g} ms (ROTTO's)": robots["ideal"].default_options(),
                   "DP45 rtol 1e-7": robots["ideal"].default_options(smooth=False)}
    for label, opts in integrators.items():
        best = {mode: np.inf for mode in robots}
        out = {}
        for robot in robots.values():  # warm-up
            robot.simulate(0.01, walker(walk), q0=standing_pose(walk), options=opts, progress=False)
        for _ in range(repeat):
            for mode, robot in robots.items():
                t0 = time.perf_counter()
                out[mode] = robot.simulate(t_final, walker(walk), q0=standing_pose(walk), options=opts,
                                           progress=False)
                best[mode] = min(best[mode], time.perf_counter() - t0)
        gap = np.abs(out["current_loop"].x[-1, :3] - out["ideal"].x[-1, :3]).max()
        for mode, robot in robots.items():
            res = out[mode]
            print(f"ROTTO walk {t_final:g} s, {label}, drives {mode:<13} {best[mode] / t_final:8.4f} s per "
                  f"sim s, ratio {best[mode] / best['ideal']:5.2f}, steps {res.stats['steps']}, peak force "
                  f"{peak_drive_force(robot, res):.0f} N")
        print(f"ROTTO pelvis position, current loop - ideal, at the end ({label}): {gap:.1e} m")
    rotto_variants(walk, out["ideal"], t_final, repeat)


def _without_loop_errors(robot):
    """``robot`` with the current loops' states out of DP45's error norm (they follow the ODE states)."""
    import dataclasses

    names = robot.model.state_names
    first = min(i for i, n in enumerate(names) if n.endswith("_id"))
    robot.model = dataclasses.replace(robot.model, error_states=first)
    return robot


def rotto_variants(walk, held, t_final: float, repeat: int) -> None:
    """What the current loops cost ROTTO beyond resolving their transients (BENCHMARKS, session 16): the
    walk's rod commands (``held``: the ideal run's records, 1 ms) replayed by a CommandTable, linear
    between the samples (set-points interpolated, as CSP drives do; no controller stops), ideal against
    current loop; and the loops' four states out of DP45's error norm, with the controller and replayed;
    all on DP45 at rtol 1e-7 (on ROTTO's RK4 the loops already cost nothing: :func:`rotto`)."""
    from legsim.assembly import CommandTable, Robot
    from legsim.robots.rotto.robot import build_robot, drive_names, standing_pose, walker

    names = drive_names()
    keep = np.r_[True, np.diff(held.t) > 1e-12]  # one record per instant (events repeat one)
    t, u = held.t[keep], np.column_stack([held.state(f"u_{n}") for n in names])[keep]
    grid = np.arange(0.0, t_final + 1e-9, 1e-3)
    table = np.column_stack([np.interp(grid, t, u[:, j]) for j in range(len(names))])
    table = np.vstack([table[:1], table[:-1]])  # a command reached one period after it was given

    def replayed(mode):
        r = build_robot(walk.params, mode=mode)
        return Robot(r.mb, actuators=r.actuators, sensors=r.sensors, contacts=r.contacts,
                     command_table=CommandTable(names, table, 1e-3))

    cases = {"controller, loops out of the error norm": (_without_loop_errors(
                 build_robot(walk.params, mode="current_loop")), True),
             "replayed, ideal": (replayed("ideal"), False),
             "replayed, current loop": (replayed("current_loop"), False),
             "replayed, loops out of the error norm": (_without_loop_errors(replayed("current_loop")), False)}
    best = {k: np.inf for k in cases}
    steps = {}
    dp45 = cases["replayed, ideal"][0].default_options(smooth=False)  # the analysis is DP45's
    for robot, with_ctl in cases.values():  # warm-up
        robot.simulate(0.01, walker(walk) if with_ctl else None, q0=standing_pose(walk), options=dp45,
                       progress=False)
    for _ in range(repeat):
        for k, (robot, with_ctl) in cases.items():
            t0 = time.perf_counter()
            res = robot.simulate(t_final, walker(walk) if with_ctl else None, q0=standing_pose(walk),
                                 options=dp45, progress=False)
            best[k] = min(best[k], time.perf_counter() - t0)
            steps[k] = res.stats["steps"]
    for k in cases:
        ratio = best[k] / best["replayed, ideal"] if k.startswith("replayed") else float("nan")
        print(f"ROTTO walk {t_final:g} s, {k:<40} {best[k] / t_final:8.4f} s per sim s, ratio to the "
              f"replayed ideal {ratio:5.2f}, steps {steps[k]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--t", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--rotto", type=float, default=3.0, help="seconds of ROTTO's walk (0: skip)")
    a = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.2f} at start")
    from legsim.hybrid import Options

    ctl = controller()
    params = np.concatenate([KP, KD, AMP])
    kinds = ("ideal", "drive ideal", "drive current_loop", "stops")
    robots = {k: make_robot(k) for k in kinds}
    dp45 = Options(rtol=1e-7, atol=1e-9, h_max=1e-3, record_period=1e-3)
    loop_h = robots["drive current_loop"].default_options(smooth=True).h_max
    cases = [(f"DP45: {k}", k, dp45) for k in kinds] + [
        (f"RK4 0.5 ms: {k}", k, Options(method="rk4_fixed", h_max=5e-4, record_period=1e-3))
        for k in ("ideal", "drive ideal")] + [
        (f"RK4 {loop_h * 1e3:.2f} ms: drive current_loop", "drive current_loop",
         Options(method="rk4_fixed", h_max=loop_h, record_period=1e-3))]
    for _, k, opt in cases:  # warm-up (compiles the hooks and the controller on first use)
        robots[k].simulate(0.01, ctl, controller_params=params, options=opt, progress=False)
    best = {label: np.inf for label, _, _ in cases}
    out = {}
    for _ in range(a.repeat):  # alternate the cases so that slow spells of the machine hit all alike
        for label, k, opt in cases:
            t0 = time.perf_counter()
            res = robots[k].simulate(a.t, ctl, controller_params=params, options=opt, progress=False)
            best[label] = min(best[label], time.perf_counter() - t0)
            out[label] = res
    ref = out["DP45: ideal"].x[-1, :3]
    print(f"{'case':<40} {'s per sim s':>12} {'ratio to ideal':>15} {'steps':>7} {'fevals':>7}  "
          "final q - ideal's")
    for label, _, _ in cases:
        st = out[label].stats
        base = best["DP45: ideal"] if label.startswith("DP45") else best["RK4 0.5 ms: ideal"]
        name = label.replace("stops", "discrete 28 kHz (stops only)")
        print(f"{name:<40} {best[label] / a.t:12.4f} {best[label] / base:15.2f} {st['steps']:7d} "
              f"{st['fevals']:7d}  {np.array2string(out[label].x[-1, :3] - ref, precision=5)}")
    if a.rotto > 0:
        rotto(a.rotto, a.repeat)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    if a.cold:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            here = os.path.dirname(os.path.abspath(__file__))
            t = subprocess.run([sys.executable, "-c", COLD.format(here=here)], env=env, capture_output=True,
                               text=True, check=True).stdout.strip().splitlines()[-1]
            print(f"cold start (fresh process, empty numba cache: import, compile, 10 ms run): {t} s")


if __name__ == "__main__":
    main()
