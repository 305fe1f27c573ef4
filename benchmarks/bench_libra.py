"""LIBRA / CJTC speed benchmark (issue goal: a full climbing cycle with CJTC at 300 Hz and the gear
non-idealities >= 50x real time; a CJTC cycle comfortably within 1/300 s, against computed torque and
resolved rate, acceptance 11). Everything is measured in this one run.

1. The climbing cycle (``legsim.robots.libra.experiments.climb``, 25 s simulated, four stages) in legsim
   (the compiled Rosenbrock method ``ros23`` of ``experiments.options``; explicit methods are held at
   their stability limit by the regularised friction), with the CJTC controller compiled into the engine
   (``robots/libra/_cjtc.py``, climb's default) or in Python (``LibraController``), and, for the record,
   on the DP45 integrator used before; and in a MuJoCo twin driven by the Python controller object
   (``LibraController``), or by the compiled controller function called from Python, at the same
   300 Hz: the twin is the LIBRA multibody model exported by
   ``legsim.multibody.to_mjcf`` (same bodies, inertias, joint ranges, damping; the gear friction becomes
   MuJoCo's constraint ``frictionloss``) plus the ladders' posts and treads as box geoms, wheel–ladder
   friction 0.8, Euler at 1/1200 s (4 steps per control period), motors with the same ±9.13 N m clip.
   Contacts differ (MuJoCo's soft constraints vs legsim's Kelvin–Voigt K_e = 5837 N/m penalty), so the
   twin is a cost peer, not a trajectory oracle; the end positions of the feet are printed for both.
2. One control cycle on LIBRA's u1 at a mid-climb configuration: legsim's whole CJTC step (kinematics,
   constraint elimination, Jacobian, law) in Python and compiled, and the three laws alone on the same J
   (``legsim.control.cost``), with their flop counts.
3. Cold cost: a fresh process with numba's disk cache warm, importing and running 0.1 s of the climb.

Run: ``python benchmarks/bench_libra.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
import timeit
import xml.etree.ElementTree as ET

import numpy as np


def mujoco_twin(lib):
    """MuJoCo model of ``lib`` (a LibraRobot) with its ladders, and the ids of the six motors' joints."""
    import mujoco

    from legsim.multibody import to_mjcf

    root = ET.fromstring(to_mjcf(lib.mb, timestep=1.0 / 1200.0, integrator="Euler"))
    world = root.find("worldbody")
    for ob in lib.ladders.obstacles():
        ET.SubElement(world, "geom", type="box", size=" ".join(f"{x:.9g}" for x in ob.half_extents),
                      pos=" ".join(f"{x:.9g}" for x in ob.centre), friction="0.8 0.005 0.0001",
                      rgba="0.6 0.6 0.6 1")
    for g in root.iter("geom"):
        if g.get("type") == "sphere":
            g.set("friction", "0.8 0.005 0.0001")
    act = ET.SubElement(root, "actuator")
    for j in ("theta1", "theta2", "theta3", "theta4", "theta5", "theta6"):
        ET.SubElement(act, "motor", joint=j, ctrlrange=f"{-lib.tau_max:.9g} {lib.tau_max:.9g}")
    return mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))


class _Readings:
    def __init__(self):
        self.enc = np.zeros(6)


def run_twin(lib, stages, q0, compiled: bool = False):
    """The climb in MuJoCo with the legsim controller, the Python object or the compiled function called
    from Python each period; returns (wall s, final qpos)."""
    import mujoco

    from legsim.robots.libra import _cjtc
    from legsim.robots.libra.control import LibraController

    m = mujoco_twin(lib)
    d = mujoco.MjData(m)
    d.qpos[:] = q0
    s = _Readings()
    if compiled:
        params, memory = _cjtc.pack(lib, stages)
        sensors, tau = np.zeros(15), np.zeros(6)

        def ctrl(t, readings):
            sensors[:6] = readings.enc
            _cjtc.libra_cjtc(t, sensors, params, tau, memory)
            return tau
    else:
        ctrl = LibraController(lib, stages)
    period = lib.robot.control_period
    n_sub = int(round(period / m.opt.timestep))
    n = int(round(stages[-1].t1 / period))
    t0 = time.perf_counter()
    for k in range(n):
        s.enc[:] = d.qpos[3:9]
        d.ctrl[:] = ctrl(k * period, s)
        for _ in range(n_sub):
            mujoco.mj_step(m, d)
    return time.perf_counter() - t0, d.qpos.copy()


def feet(lib, q):
    from legsim.control import Kinematics

    kin = Kinematics(lib.mb).at(q)
    return np.array([kin.position(kin.frame(f))[:2] for f in ("foot1", "foot2", "foot3")])


def cycle_costs(lib, repeat: int):
    """Per-call time [µs] of the whole CJTC step and of the three laws on one u1 Jacobian."""
    from legsim.control import cost
    from legsim.control.cjtc import CJTC, ConstrainedChain
    from legsim.multibody import crba, rnea
    from legsim.robots.libra import kinematics as K
    from legsim.robots.libra.control import gains, variables
    from legsim.robots.libra.robot import JOINTS

    kin_ = __import__("legsim.control", fromlist=["Kinematics"]).Kinematics(lib.mb)
    v = variables(kin_)
    phi, theta = K.inverse(body=(0.2, 0.05, 0.0), foot2=(0.45, 0.0), foot3=(0.4, -0.2))
    q = np.concatenate([[0.0, 0.0, phi], theta])
    chain = ConstrainedChain(kin_, JOINTS, [v["x1"], v["y1"], v["y2"]], [0.0, 0.0, 0.0])
    kp, kd = gains("u1")
    c = CJTC([v[n] for n in ("x_b", "y_b", "theta_b", "x2", "x3", "y3")], kp, kd, chain=chain,
             tau_max=lib.tau_max)
    qd = np.full(6, 0.1)
    u_cmd = c.measure(q)[0] + 0.001

    def full_step():
        kin_.q[:] = np.nan  # force the kinematics to be recomputed, as at a new sample
        c.step(chain.solve(theta, q), qd, u_cmd)

    from legsim.robots.libra import _cjtc
    from legsim.robots.libra.gait import climb_cycle

    params, memory = _cjtc.pack(lib, climb_cycle(lib.ladders, stages=(1,)))
    sensors, commands = np.zeros(15), np.zeros(6)
    sensors[:6] = theta

    def compiled_step():
        _cjtc.libra_cjtc(1.0, sensors, params, commands, memory)

    u, J, T = c.measure(q)
    e, ed, G = u_cmd - u, -J @ qd, np.zeros(6)
    data = lib.mb.make_data()
    M_full = crba(lib.mb, data, q).copy()
    M = T.T @ M_full @ T
    vfull = T @ qd
    h = T.T @ rnea(lib.mb, data, q, vfull, np.zeros(lib.mb.nv)).copy()
    # the laws' arithmetic, as their flop counts count it (the public cost.*_law check their arguments
    # first, which costs more than the CJTC law itself)
    laws = {
        "CJTC law": lambda: cost._cjtc_tau(J, kp, kd, e, ed, G),
        "resolved rate law": lambda: cost._resolved_rate_tau(J, kp / kd, e, np.zeros(6), qd, 5.0, G),
        "computed torque law": lambda: cost._computed_torque_tau(J, M, h, kp, kd, e, ed, np.zeros(6)),
        "computed torque + M, h": lambda: (crba(lib.mb, data, q), rnea(lib.mb, data, q, vfull, np.zeros(9)),
                                           cost._computed_torque_tau(J, M, h, kp, kd, e, ed, np.zeros(6))),
        "CJTC whole cycle (kinematics, elimination, J, law)": full_step,
        "compiled CJTC whole cycle (robots/libra/_cjtc.py, called from Python)": compiled_step,
    }
    out = {}
    for name, fn in laws.items():
        n = 2000
        out[name] = min(timeit.repeat(fn, number=n, repeat=repeat)) / n * 1e6
    flops = {"CJTC law": cost.cjtc_flops(6, 6), "resolved rate law": cost.resolved_rate_flops(6, 6),
             "computed torque law": cost.computed_torque_flops(6, 6)}
    return out, flops


COLD = """
import time
t0 = time.perf_counter()
from legsim.robots.libra.experiments import climb
from legsim.robots.libra.gait import climb_cycle
from legsim.robots.libra.robot import build
t1 = time.perf_counter()
lib = build()
st = climb_cycle(lib.ladders, stages=(1,), hold=0.0, stage_time=0.1)
t2 = time.perf_counter()
climb(lib, st, progress=False)
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    from legsim.hybrid import Options
    from legsim.robots.libra.experiments import climb, initial_configuration
    from legsim.robots.libra.gait import climb_cycle
    from legsim.robots.libra.robot import build

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}")
    lib = build()
    stages = climb_cycle(lib.ladders)
    q0 = initial_configuration(lib, stages[0])
    T = stages[-1].t1
    dp45 = Options(method="dp45", rtol=1e-5, atol=1e-7, h_max=1e-3, record_period=lib.robot.control_period)
    variants = {"legsim, ros23 (`experiments.options`), compiled CJTC (climb's default)": {},
                "legsim, ros23, CJTC in Python (`LibraController`)": {"compiled": False},
                "legsim, DP45 rtol 1e-5 (the integrator before ros23), compiled CJTC": {"opts": dp45}}
    for kw in variants.values():
        climb(lib, stages, progress=False, **kw)  # warm: compile
    walls: dict[str, list[float]] = {k: [] for k in variants}
    engine: dict[str, list[float]] = {k: [] for k in variants}
    steps: dict[str, int] = {}
    twin: list[float] = []
    twin_compiled: list[float] = []
    for _ in range(args.repeat):
        for name, kw in variants.items():
            t0 = time.perf_counter()
            run = climb(lib, stages, progress=False, **kw)
            walls[name].append(time.perf_counter() - t0)
            engine[name].append(run.result.stats["wall_time_s"])
            steps[name] = run.result.stats["steps"]
            if not kw:
                q_end = run.result.x[-1, :9]
        tw, qtw = run_twin(lib, stages, q0)
        twin.append(tw)
        twin_compiled.append(run_twin(lib, stages, q0, compiled=True)[0])
    tw = float(np.median(twin))
    twc = float(np.median(twin_compiled))
    print(f"\nClimbing cycle, {T:g} s simulated, CJTC at 300 Hz, gear friction, quantisation, backlash "
          "(climb() wall, with its post-processing; simulate() alone in brackets):")
    print("| engine | steps | s per sim s | x real time | twin / this |")
    print("|---|---|---|---|---|")
    for name in variants:
        w, e = float(np.median(walls[name])), float(np.median(engine[name]))
        print(f"| {name} | {steps[name]} | {w / T:.4f} ({e / T:.4f}) | {T / w:.1f} ({T / e:.1f}) | "
              f"{tw / w:.2f} |")
    print(f"| MuJoCo twin, Euler 1/1200 s, the Python controller object | – | {tw / T:.4f} | {T / tw:.1f} "
          "| 1 |")
    print(f"| MuJoCo twin, the compiled controller called from Python | – | {twc / T:.4f} | {T / twc:.1f} "
          f"| {tw / twc:.2f} |")
    print(f"feet at the end, legsim: {np.round(feet(lib, q_end), 3).tolist()}")
    print(f"feet at the end, twin:   {np.round(feet(lib, qtw[:9]), 3).tolist()}")

    costs, flops = cycle_costs(lib, args.repeat)
    print("\nOne control cycle on u1 (6 x 6), per call:")
    print("| law | us | flops (law alone, shared kinematics excluded) |")
    print("|---|---|---|")
    for name, us in costs.items():
        print(f"| {name} | {us:.1f} | {flops.get(name, '-')} |")
    print(f"budget at 300 Hz: {1e6 / 300:.0f} us; the whole CJTC cycle uses "
          f"{100 * costs['CJTC whole cycle (kinematics, elimination, J, law)'] / (1e6 / 300):.1f} % of it")

    out = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, check=True)
    imp, build_s, first = map(float, out.stdout.split())
    print(f"\ncold (fresh process, numba disk cache warm): import {imp:.2f} s, build {build_s:.2f} s, "
          f"first 0.1 s climb {first:.2f} s")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
