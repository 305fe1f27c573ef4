"""Issue 14 §2: a controller written in Python at 1 kHz driving an assembled robot — what a call costs,
and how fast the robot runs — against MuJoCo stepped from Python with the same controller, in one run.

Robot: the 18-DoF hexapod of ``bench_hexapod_contact.py`` (``legsim.multibody.samples.hexapod``), all
25 geoms against the plane (50 contact points), Kelvin–Voigt k = 2e4 N/m, c = 20 N s/m and
regularised Coulomb mu = 1, v_eps = 0.05 m/s (that benchmark's ``legsim-coulomb`` row), assembled
with ``legsim.assembly.Robot``: 18 torque sources, a joint encoder and a joint-velocity sensor (no
noise). Controller, in Python, every 1 ms: ``tau = kp (q_ref(t) - q) - kd qdot`` with kp = 30,
kd = 0.3 and q_ref the stand-then-tripod-gait table of ``bench_hexapod_contact.py``.

Rows:
- legsim smooth path, fixed-step RK4 at h = 1 ms and 0.5 ms (contact forces inside the vector field);
- legsim event path, DP45 rtol 1e-6 (touchdowns and liftoffs located as events);
- MuJoCo (exported MJCF, ``motor`` actuators, its default soft contacts), Euler at 1 ms, stepped from
  Python with the same controller reading ``d.qpos``/``d.qvel``: the usual way to drive MuJoCo from a
  Python controller;
- legsim smooth path RK4 1 ms with the same PD compiled (``legsim.assembly.compiled_controller``), no
  return to Python at the samples;
- per-call overhead: the RK4 1 ms run with a controller that returns a fixed array, minus the same
  run with no controller (the commands held throughout), divided by the number of calls: the cost
  of the engine's stop at the sample, the return to Python, the readings and the command write.

Reported: seconds per simulated second, the real-time factor, ratios to MuJoCo, the base position at
the end (each engine stands and walks), and the cold start of a new assembled robot in a fresh
process with an empty numba cache (printed separately).

``--crr-ab BASE_SRC``: instead, the CRR quadruped and the CRR leg (``legsim.robots.crr_quadruped``,
``legsim.robots.crr_leg``, assembled from parts) against the same robots in another legsim, e.g. the
hand-written hooks they replaced (a git worktree of the commit before: ``git worktree add ../wt_base
<rev>``, then ``--crr-ab ../wt_base/src``). Each side runs in a worker process of its own (its own numba
cache), loaded and warmed up first; then rounds alternate between them, each round one run of each case
per side. Cases: the floating quadruped dropped 3 mm standing (the default contact, DP45 rtol 1e-6, 1 kHz
PID), the fixed-base quadruped with the legs following sines and steps, and the leg following Gamma steps
monolithic, through the split exchange (1 + 2 ticks of delay) and with prismatic cylinders. Reported per
case: the best wall time of each side per simulated second, their ratio (this legsim / the base: the cost
of the assembly), the median of the per-round ratios, the steps and field evaluations of each side (they
integrate the same equations, so their steps should agree), the final joint angles' difference, and the
load average before and after (the machine is shared: re-measure when it exceeds 1.5).

Usage: ``python benchmarks/bench_assembly.py [--t 5] [--repeat 3] [--cold]``,
``python benchmarks/bench_assembly.py --crr-ab BASE_SRC [--t 2] [--repeat 5]``
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

sys.path.insert(0, os.path.dirname(__file__))
from bench_hexapod_contact import C_N, K_N, KD, KP, MU, gait_table, mjcf_with_floor_and_actuators  # noqa: E402

T_STAND = 0.5


def make_robot(path: str):
    from legsim.assembly import Contacts, JointEncoder, JointVelocity, Robot, TorqueSource
    from legsim.contact import ContactLaw, coulomb, kelvin_voigt
    from legsim.multibody.samples import hexapod

    mb = hexapod()
    law = ContactLaw(kelvin_voigt(K_N, C_N), coulomb(MU, 0.05))
    joints = list(mb.joint_names)
    return Robot(mb, actuators=[TorqueSource(j, j) for j in joints],
                 sensors=[JointEncoder("enc", joints=joints), JointVelocity("rate", joints=joints)],
                 contacts=Contacts(law, path=path))


def pd_controller(tab):
    """The Python controller: PD toward row k of the 1 ms target table."""
    def controller(t, s):
        k = min(int(t * 1000.0 + 0.5), len(tab) - 1)
        return KP * (tab[k] - s.enc) - KD * s.rate
    return controller


def compiled_pd():
    """The same PD, compiled (``legsim.assembly.compiled_controller``): params = [kp, kd, rows, table]."""
    from legsim.assembly import compiled_controller

    @compiled_controller
    def pd(t, sensors, params, commands):
        n = commands.shape[0]
        rows = int(params[2])
        k = min(int(t * 1000.0 + 0.5), rows - 1)
        for j in range(n):
            commands[j] = params[0] * (params[3 + k * n + j] - sensors[j]) - params[1] * sensors[n + j]

    return pd


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def mujoco_run(mb, q0, tab, t_final):
    import mujoco

    from legsim.multibody import qpos_to_mujoco

    xml = mjcf_with_floor_and_actuators(mb, 1e-3, "Euler").replace("<position ", "<motor ")
    xml = xml.replace(f' kp="{KP!r}" kv="{KD!r}"', "")
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    qadr = np.array([m.jnt_qposadr[m.joint(n).id] for n in mb.joint_names])
    vadr = np.array([m.jnt_dofadr[m.joint(n).id] for n in mb.joint_names])

    def run():
        mujoco.mj_resetData(m, d)
        d.qpos[:] = qpos_to_mujoco(mb, q0)
        step = mujoco.mj_step
        for i in range(int(round(t_final / 1e-3))):
            d.ctrl[:] = KP * (tab[min(i, len(tab) - 1)] - d.qpos[qadr]) - KD * d.qvel[vadr]
            step(m, d)
        return d.qpos[:3].copy()

    return run


COLD = """
import time
t0 = time.perf_counter()
import numpy as np
from legsim.assembly import Robot, TorqueSource, JointEncoder, Contacts
from legsim.contact import ContactLaw, coulomb, kelvin_voigt
from legsim.multibody.samples import hexapod
from legsim.multibody import RobotBuilder
mb = hexapod()
law = ContactLaw(kelvin_voigt(2e4, 20.0), coulomb(1.0, 0.05))
r = Robot(mb, actuators=[TorqueSource(j, j) for j in mb.joint_names],
          sensors=[JointEncoder("enc", joints=mb.joint_names)], contacts=Contacts(law))
r.simulate(0.01, lambda t, s: np.zeros(18))
t1 = time.perf_counter()
b = RobotBuilder("arm")
b.add_body("a", "world", "revolute", axis=(0, 1, 0), mass=1.0, com=(0, 0, -0.2), inertia=np.eye(3) * 1e-2)
b.add_body("b", "a", "revolute", axis=(0, 1, 0), xyz=(0, 0, -0.4), mass=1.0, com=(0, 0, -0.2),
           inertia=np.eye(3) * 1e-2)
r2 = Robot(b.compile(), actuators=[TorqueSource("a", "a"), TorqueSource("b", "b")],
           sensors=[JointEncoder("enc", joints=["a", "b"])])
r2.simulate(0.01, lambda t, s: np.zeros(2))
t2 = time.perf_counter()
print(f"{t1 - t0:.1f} {t2 - t1:.2f}")
"""


CRR_WORKER = """
import sys, time
t0 = time.perf_counter()
import numpy as np
from legsim.robots.crr_leg import JointReference, LegBench
from legsim.robots.crr_quadruped import Quadruped, stance_references
d = np.radians
legs = [(JointReference(amplitude=0.3, omega=3.0, offset=d(20)), JointReference.hold(d(-30)),
         JointReference(steps=((0.0, d(30)), (0.2, d(80))))),
        (JointReference.hold(d(10)), JointReference(amplitude=0.3, omega=4.0, offset=d(-35)),
         JointReference.hold(d(56)))] * 2
steps = [JointReference.hold(d(20)), JointReference.hold(d(-30)),
         JointReference(steps=((0.0, d(30)), (0.5, d(80)), (1.2, d(40))))]
cases = {"quadruped_floating": (Quadruped(), stance_references()),
         "quadruped_fixed": (Quadruped(base="fixed"), legs), "leg": (LegBench(), steps),
         "leg_cosim": (LegBench(coupling="cosim", delay_up=1, delay_down=2), steps),
         "leg_prismatic": (LegBench(actuation="prismatic"), steps)}
for q, refs in cases.values():
    q.run(refs, 0.05)  # compile or load from the cache
print(f"{time.perf_counter() - t0:.2f}", flush=True)
for line in sys.stdin:
    name, t_final = line.split()
    q, refs = cases[name]
    t1 = time.perf_counter()
    r = q.run(refs, float(t_final))
    wall = time.perf_counter() - t1
    st = r.result.stats
    print(wall, st["kernel_time_s"], st["steps"], st["fevals"], *r.q[-1], flush=True)
"""
CASES = ("quadruped_floating", "quadruped_fixed", "leg", "leg_cosim", "leg_prismatic")


def crr_ab(base_src: str, t_final: float, repeat: int) -> None:
    """The CRR quadruped and leg here against those in ``base_src``, alternating (module docstring)."""
    import legsim

    here = os.path.dirname(os.path.dirname(legsim.__file__))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}; "
          f"this legsim: {here}; base: {base_src}; {t_final:g} s simulated per run, {repeat} rounds")
    workers = {}
    for side, src in (("base", base_src), ("this", here)):
        env = dict(os.environ, PYTHONPATH=src)
        workers[side] = subprocess.Popen([sys.executable, "-c", CRR_WORKER], env=env, text=True,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
        print(f"{side}: imported, built and warmed up in {workers[side].stdout.readline().strip()} s (numba "
              "cache warm; the first run on a machine compiles)", flush=True)

    def run(side, case):
        w = workers[side]
        w.stdin.write(f"{case} {t_final}\n")
        w.stdin.flush()
        vals = [float(v) for v in w.stdout.readline().split()]
        return vals[0], vals[1], int(vals[2]), int(vals[3]), np.array(vals[4:])

    cases = CASES
    res = {(side, c): [] for side in workers for c in cases}
    for k in range(repeat):
        for c in cases:
            for side in (("base", "this") if k % 2 == 0 else ("this", "base")):  # alternate who goes first
                res[side, c].append(run(side, c))
    for w in workers.values():
        w.stdin.close()
        w.wait()
    print(f"load after: {os.getloadavg()[0]:.2f}\n")
    print(f"{'case':18s} {'base s/sim s':>12s} {'this s/sim s':>12s} {'this/base':>9s} {'median':>7s}  "
          f"{'steps base / this':>19s}  {'fevals base / this':>21s}  max |dq| end")
    for c in cases:
        b, h = res["base", c], res["this", c]
        wb, wh = min(r[0] for r in b), min(r[0] for r in h)
        med = float(np.median([rh[0] / rb[0] for rb, rh in zip(b, h, strict=True)]))
        dq = float(np.abs(b[-1][4] - h[-1][4]).max())
        print(f"{c:18s} {wb / t_final:12.4f} {wh / t_final:12.4f} {wh / wb:9.3f} {med:7.3f}  "
              f"{b[0][2]:>9d} / {h[0][2]:<7d}  {b[0][3]:>10d} / {h[0][3]:<8d}  {dq:.1e} rad")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t", type=float, default=None, help="simulated seconds per run (5; 2 with "
                                                           "--crr-ab)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per case (3; rounds with "
                                                             "--crr-ab: 5)")
    ap.add_argument("--cold", action="store_true", help="also time a cold start in a fresh process")
    ap.add_argument("--crr-ab", metavar="BASE_SRC", default=None,
                    help="the CRR quadruped and leg A/B against the legsim at BASE_SRC (module docstring)")
    args = ap.parse_args()
    if args.crr_ab is not None:
        crr_ab(args.crr_ab, args.t or 2.0, args.repeat or 5)
        return
    args.t = args.t or 5.0
    args.repeat = args.repeat or 3
    from legsim.hybrid import Options
    from legsim.multibody.samples import hexapod, hexapod_stance

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    mb = hexapod()
    q0 = hexapod_stance(mb)
    tab = gait_table(mb, q0, args.t, T_STAND)
    ctrl = pd_controller(tab)
    smooth, event = make_robot("smooth"), make_robot("event")
    nq = mb.nq
    rows = []
    for name, robot, opts in (
            ("legsim smooth RK4 h=1 ms", smooth, Options(method="rk4_fixed", h_max=1e-3,
                                                         record_period=1e-2)),
            ("legsim smooth RK4 h=0.5 ms", smooth, Options(method="rk4_fixed", h_max=5e-4,
                                                           record_period=1e-2)),
            ("legsim event DP45 rtol 1e-6", event, Options(rtol=1e-6, atol=1e-8, h_max=1e-3,
                                                           record_period=1e-2))):
        robot.simulate(0.05, ctrl, q0=q0, options=opts, progress=False)  # compile / load
        sec, res = best(lambda r=robot, o=opts: r.simulate(args.t, ctrl, q0=q0, options=o, progress=False),
                        args.repeat)
        rows.append((name, sec, res.x[-1, :3], res.stats))
    cpd = compiled_pd()
    cparams = np.concatenate([[KP, KD, len(tab)], np.asarray(tab).ravel()])
    opts = Options(method="rk4_fixed", h_max=1e-3, record_period=1e-2)
    smooth.simulate(0.05, cpd, q0=q0, options=opts, controller_params=cparams, progress=False)
    sec, res = best(lambda: smooth.simulate(args.t, cpd, q0=q0, options=opts, controller_params=cparams,
                                            progress=False), args.repeat)
    rows.append(("legsim smooth RK4 1 ms, compiled", sec, res.x[-1, :3], res.stats))
    mj = mujoco_run(mb, q0, tab, args.t)
    mj()
    sec, pos = best(mj, args.repeat)
    rows.append(("MuJoCo Euler 1 ms, Python loop", sec, pos, None))
    t_mj = sec
    print(f"\n{'engine':34s} {'s per sim s':>11s} {'x real time':>11s} {'/ MuJoCo':>9s}  "
          "base x, y, z at the end")
    for name, sec, pos, _ in rows:
        print(f"{name:34s} {sec / args.t:11.4f} {args.t / sec:11.1f} {sec / t_mj:9.2f}  "
              f"{pos[0]:+.4f} {pos[1]:+.4f} {pos[2]:.4f}")
    # per-call overhead: the same RK4 run with a controller that returns a fixed array, and without one
    opts = Options(method="rk4_fixed", h_max=1e-3, record_period=1e-2)
    tau0 = np.zeros(len(mb.joint_names))
    idle = lambda t, s: tau0  # noqa: E731
    x0 = q0.copy()
    diffs = []
    for _ in range(args.repeat):
        a, _r = best(lambda: smooth.simulate(args.t, idle, q0=x0, options=opts, progress=False), 1)
        b, _r = best(lambda: smooth.simulate(args.t, None, q0=x0, commands0=tau0, options=opts,
                                             progress=False), 1)
        diffs.append((a - b) / (args.t * 1000.0 + 1) * 1e6)
    print(f"\nPython controller overhead per call (RK4 1 ms, {args.t * 1000:.0f} calls): "
          f"min {min(diffs):.2f} us, median {float(np.median(diffs)):.2f} us")
    print(f"(nq = {nq}; the controller above also spends its own time: a PD on 18 joints in numpy)")
    if args.cold:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True,
                                 check=True)
            total = time.perf_counter() - t0
            first, second = out.stdout.split()
        print(f"\ncold start, empty numba cache: first assembled robot (hexapod, contacts, sensors, "
              f"Python controller) built and run in {first} s ({total:.1f} s with interpreter start); "
              f"a second, different robot then {second} s (the shared hooks are not compiled again)")


if __name__ == "__main__":
    main()
