"""Issue 20 §4: parameter sweeps with ``legsim.sweep`` — speed-up on 2 cores over 1, and simulations per
second per core against ``mujoco.rollout`` over a list of models, all in one run.

Part A, the issue's benchmark: 64 runs of the bundled ``hexapod_walk.toml`` (SimSect's compliant
RHex-like hexapod, ``model = "hexapod"``: rigid body, six compliant legs, Buehler clock, hip PD and
motor model) cut to t_final = 2 s, a grid of 8 body masses (6-8 kg) x 8 hip gains kp (20-40
N m/rad), outputs ``y@final``, ``z@min`` plus the model's own summary (distance, currents, battery),
swept with ``workers=1`` and ``workers=2`` (local backend: processes). Reported per worker count:
the end-to-end wall time of ``run_sweep`` (validation of all 64 variations, the warm-up run, pool
start, runs, table) and the run phase (all workers ready -> last row: what more cores divide), the
speed-ups 2 vs 1 of both, the pool start-up, and the workers' numba cache misses (0: no worker
compiled anything). Goal: run-phase speed-up >= 1.8x.

Part B, per core against MuJoCo. The SimSect hexapod of part A has no MJCF twin, so this part runs
the hexapod that has one: ``legsim.multibody.samples.hexapod`` (18 DoF; 2 kg box body 0.4 x 0.2 x
0.1 m, capsule links, sphere feet; 3.5 kg), the robot of ``bench_hexapod_contact.py`` and
``bench_assembly.py``: all 25 geoms touch the floor (Kelvin-Voigt k = 2e4 N/m, c = 20 N s/m and
regularised Coulomb mu = 1, v_eps = 0.05 m/s in legsim; MuJoCo's default soft contacts, mu = 1),
1 ms steps (legsim fixed-step RK4 on the smooth contact path; MuJoCo Euler), 0.5 s standing then
the tripod gait of ``bench_hexapod_contact.gait_table`` at 1.5 Hz, 2 s per run. 64 variations:
8 joint gains kp (24-36 N m/rad, kd = kp/100) x 8 gait amplitude scales (0.6-1.2).
- legsim: ``legsim.sweep`` over a scenario written for this benchmark (the robot exported with
  ``to_urdf`` + a hardware file: 18 torque sources, joint encoders and rates, the contacts above)
  whose controller is this file's ``tripod_pd``, a PD toward the gait table in Python at 1 kHz
  (varied through ``controller_params``), workers = 1 and 2;
- MuJoCo: ``mujoco.rollout.rollout`` over a list of 64 ``MjModel`` (``position`` actuators with
  each run's kp and kv = kd: the same PD, inside MuJoCo's step) with the 64 gait tables as
  open-loop controls, with 1 and 2 threads (one ``MjData`` per thread). Models, states and
  control arrays are built before the clock starts.
Reported: simulations per second per core (legsim: run phase; MuJoCo: the rollout call), their
ratio, and run 0's base position at the end in both (a check that both robots stand and walk).

Each configuration runs ``--repeats`` times in alternating rounds; ratios are formed within a round
and the median is printed (the machine is shared). Optionally (``--cold``) the 2-worker sweep of
part A in a fresh process with an empty numba cache: the parent compiles once, the workers' cache
misses stay 0.

Usage: ``python benchmarks/bench_sweep.py [--runs 64] [--t 2.0] [--repeats 3] [--skip-mujoco] [--cold]``
(``--runs`` must be a square for part A's grid and part B's; small values check the script works).
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_hexapod_contact import C_N, K_N, MU, gait_table, mjcf_with_floor_and_actuators  # noqa: E402

T_STAND = 0.5
QUIET = {"progress": False, "echo": lambda s: None}


# ---- the controller of part B's legsim scenario (loaded by the workers from this file) -------------
@functools.lru_cache(maxsize=8)
def _table(scale: float, t_total: float) -> np.ndarray:
    from legsim.multibody.samples import hexapod, hexapod_stance

    mb = hexapod()
    return gait_table(mb, hexapod_stance(mb), t_total, T_STAND, a_coxa=0.25 * scale, a_lift=0.3 * scale)


def tripod_pd(kp: float = 30.0, kd: float = 0.3, scale: float = 1.0, t_total: float = 2.0):
    """The Python controller ``(t, sensors) -> torques`` [N m]: ``kp (q_ref(t) - q) - kd qdot`` toward
    row k = round(t / 1 ms) of the stand-then-tripod table with amplitudes x ``scale``."""
    tab = _table(float(scale), float(t_total))
    last = len(tab) - 1

    def controller(t, s):
        return kp * (tab[min(int(t * 1000.0 + 0.5), last)] - s.enc) - kd * s.rate

    return controller


def write_hexapod_scenario(folder: Path, t_final: float) -> Path:
    """The 18-DoF sample hexapod as a legsim scenario (URDF + hardware file + scenario) in ``folder``."""
    from legsim.multibody import to_urdf
    from legsim.multibody.samples import hexapod, hexapod_stance

    mb = hexapod()
    (folder / "hexapod.urdf").write_text(to_urdf(mb))
    (folder / "hexapod_hardware.toml").write_text(f"""
urdf = "hexapod.urdf"
floating_base = true
control_period = 0.001
[contacts]
path = "smooth"
normal = {{ law = "kelvin_voigt", k = {K_N!r}, c = {C_N!r} }}
friction = {{ law = "coulomb", mu = {MU!r}, v_eps = 0.05 }}
[actuators.legs]
type = "TorqueSource"
joints = "all"
[sensors.enc]
type = "JointEncoder"
joints = "all"
[sensors.rate]
type = "JointVelocity"
joints = "all"
""")
    q0 = ", ".join(repr(float(v)) for v in hexapod_stance(mb))
    path = folder / "hexapod_tripod.toml"
    path.write_text(f"""
robot = "hexapod_hardware.toml"
controller = "{Path(__file__).resolve()}:tripod_pd"
t_final = {t_final!r}
[controller_params]
kp = 30.0
kd = 0.3
scale = 1.0
t_total = {t_final!r}
[initial]
q0 = [{q0}]
[integrator]
method = "rk4_fixed"
h_max = 0.001
record_period = 0.01
""")
    return path


def square_grid(runs: int, a: tuple[str, float, float], b: tuple[str, float, float]) -> dict:
    n = math.isqrt(runs)
    if n * n != runs:
        raise SystemExit(f"--runs {runs}: expected a square number (8 x 8 = 64)")
    return {key: [float(v) for v in np.linspace(lo, hi, n)] for key, lo, hi in (a, b)}


# ---- part A --------------------------------------------------------------------------------------
def part_a(args) -> None:
    from legsim.cli import SCENARIO_DIR
    from legsim.sweep import Sweep, run_sweep

    grid = square_grid(args.runs, ("params.body_mass", 6.0, 8.0), ("controller.kp", 20.0, 40.0))
    sweep = Sweep(SCENARIO_DIR / "hexapod_walk.toml", variations=[{"t_final": args.t}], grid=grid)
    rows: dict[int, list] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        run_sweep(sweep, Path(tmp) / "warm", outputs=["y@final"], workers=2, **QUIET)  # caches, forkserver
        for r in range(args.repeats):
            for w in (1, 2):
                t0 = time.perf_counter()
                res = run_sweep(sweep, Path(tmp) / f"a{r}-{w}", outputs=["y@final", "z@min"], workers=w,
                                **QUIET)
                rows[w].append((time.perf_counter() - t0, res))
    print(f"\nPart A: {args.runs} runs of hexapod_walk.toml (SimSect hexapod), t_final = {args.t} s, "
          "local backend")
    print(f"{'workers':>7s} {'end-to-end s':>12s} {'run phase s':>11s} {'pool start s':>12s} "
          f"{'validate s':>10s} {'runs/s':>7s} {'batches':>7s}  cache misses")
    for w, rs in rows.items():
        total = statistics.median(t for t, _ in rs)
        run = statistics.median(res.stats["run_s"] for _, res in rs)
        start = statistics.median(res.stats["start_s"] for _, res in rs)
        val = statistics.median(res.stats["validate_s"] for _, res in rs)
        misses = sorted({wk["cache_misses"] for _, res in rs for wk in res.stats["workers"]})
        print(f"{w:7d} {total:12.3f} {run:11.3f} {start:12.3f} {val:10.3f} {args.runs / run:7.1f} "
              f"{rs[0][1].stats['batches']:7d}  {misses}")
        failed = {res.failed for _, res in rs}
        if failed != {0}:
            print(f"  (failed runs: {failed})")
    sp_run = statistics.median(a[1].stats["run_s"] / b[1].stats["run_s"] for a, b in zip(rows[1], rows[2],
                                                                                          strict=True))
    sp_total = statistics.median(a[0] / b[0] for a, b in zip(rows[1], rows[2], strict=True))
    print(f"speed-up 2 workers vs 1: run phase {sp_run:.2f}x (goal >= 1.8x), end-to-end {sp_total:.2f}x")
    one = rows[1][0][1]
    per_run = statistics.median(one.column("wall_time_s"))
    print(f"one run (parse + {args.t:g} s simulated + summary) in a worker: median {per_run * 1e3:.1f} ms; "
          f"y@final {np.min(one.column('y@final')):.3f}-{np.max(one.column('y@final')):.3f} m")


# ---- part B --------------------------------------------------------------------------------------
def mujoco_rollout(grid: dict, t_final: float):
    """run(nthread) -> (seconds, final base positions (n, 3)) of mujoco.rollout over a model list."""
    import mujoco
    from mujoco import rollout

    from legsim.multibody import qpos_to_mujoco
    from legsim.multibody.samples import hexapod, hexapod_stance

    mb = hexapod()
    q0 = hexapod_stance(mb)
    base = mujoco.MjModel.from_xml_string(mjcf_with_floor_and_actuators(mb, 1e-3, "Euler"))
    nstep = int(round(t_final / 1e-3))
    models, controls = [], []
    for kp in grid["controller_params.kp"]:
        for scale in grid["controller_params.scale"]:
            m = mujoco.MjModel.from_xml_string(mjcf_with_floor_and_actuators(mb, 1e-3, "Euler"))
            m.actuator_gainprm[:, 0] = kp
            m.actuator_biasprm[:, 1] = -kp
            m.actuator_biasprm[:, 2] = -kp / 100.0
            models.append(m)
            controls.append(_table(scale, t_final)[:nstep])
    d = mujoco.MjData(base)
    d.qpos[:] = qpos_to_mujoco(mb, q0)
    mujoco.mj_forward(base, d)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    x0 = np.empty(mujoco.mj_stateSize(base, spec))
    mujoco.mj_getState(base, d, x0, spec)
    x0 = np.tile(x0, (len(models), 1))
    control = np.asarray(controls)

    def run(nthread):
        datas = [mujoco.MjData(base) for _ in range(nthread)]
        t0 = time.perf_counter()
        state, _ = rollout.rollout(models, datas, x0, control)
        sec = time.perf_counter() - t0
        return sec, state[:, -1, 1:4]  # full physics state: time, then qpos (base x, y, z first)

    return run


def part_b(args) -> None:
    from legsim.sweep import Sweep, run_sweep

    grid = square_grid(args.runs, ("controller_params.kp", 24.0, 36.0), ("controller_params.scale", 0.6, 1.2))
    mj = None
    if not args.skip_mujoco:
        try:
            mj = mujoco_rollout(grid, args.t)
            mj(1)  # load, first-touch memory
        except ImportError as exc:
            print(f"MuJoCo unavailable ({exc}): part B runs legsim only")
    times: dict[str, list[float]] = {"legsim 1": [], "legsim 2": [], "mujoco 1": [], "mujoco 2": []}
    legsim_pos = mj_pos = None
    with tempfile.TemporaryDirectory() as tmp:
        scenario = write_hexapod_scenario(Path(tmp), args.t)
        variations = [{**v, "controller_params.kd": v["controller_params.kp"] / 100.0}
                      for v in Sweep(scenario, grid=grid).runs]
        sweep = Sweep(scenario, variations=variations)
        base = [f"root_joint_{a}@final" for a in "xyz"]
        run_sweep(Sweep(scenario, variations=variations[:2]), Path(tmp) / "warm", workers=2, **QUIET)
        for r in range(args.repeats):
            for w in (1, 2):
                res = run_sweep(sweep, Path(tmp) / f"b{r}-{w}", outputs=base, workers=w, **QUIET)
                if res.failed:
                    why = set(res.table.column("message").to_pylist())
                    print(f"  legsim: {res.failed} runs failed: {why}")
                times[f"legsim {w}"].append(res.stats["run_s"] * w / args.runs)  # core-seconds per run
                legsim_pos = [res.column(f"root_joint_{a}@final")[0] for a in "xyz"]
            if mj is not None:
                for nt in (1, 2):
                    sec, pos = mj(nt)
                    times[f"mujoco {nt}"].append(sec * nt / args.runs)
                    mj_pos = pos[0]
    print(f"\nPart B: {args.runs} runs of the 18-DoF sample hexapod, {args.t} s each (0.5 s stand, tripod "
          "gait), 1 ms steps")
    print(f"{'engine, workers/threads':28s} {'sims/s/core':>11s} {'core-s per run':>14s}")
    for key, vals in times.items():
        if vals:
            per = statistics.median(vals)
            print(f"{key:28s} {1 / per:11.2f} {per:14.4f}")
    if times["mujoco 1"]:
        for n in (1, 2):
            ratio = statistics.median(a / b for a, b in zip(times[f"mujoco {n}"], times[f"legsim {n}"],
                                                            strict=True))
            print(f"legsim / MuJoCo sims per second per core, {n} core{'s' if n > 1 else ''}: {ratio:.2f}")
    if legsim_pos is not None:
        print(f"run 0 base x, y, z at the end: legsim {legsim_pos[0]:+.4f} {legsim_pos[1]:+.4f} "
              f"{legsim_pos[2]:.4f}" + (f"; MuJoCo {mj_pos[0]:+.4f} {mj_pos[1]:+.4f} {mj_pos[2]:.4f}"
                                        if mj_pos is not None else ""))


COLD = """
import time
from legsim.cli import SCENARIO_DIR
from legsim.sweep import Sweep, run_sweep
t0 = time.perf_counter()
grid = {"t_final": [2.0], "params.body_mass": [6.0, 7.0, 8.0, 9.0]}
res = run_sweep(Sweep(SCENARIO_DIR / "hexapod_walk.toml", grid=grid), OUT, workers=2, progress=False,
                echo=lambda s: None)
misses = [w["cache_misses"] for w in res.stats["workers"]]
print(f"{time.perf_counter() - t0:.1f} {res.stats['warm_s']:.1f} {misses}")
"""


def cold(args) -> None:
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        code = COLD.replace("OUT", repr(out))
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if proc.returncode:
            print(proc.stderr[-2000:])
            return
        total, warm, misses = proc.stdout.split(maxsplit=2)
    print(f"\ncold start, empty numba cache, 4 hexapod runs on 2 workers: {total} s in all, {warm} s of it "
          f"the parent's warm-up (compiling once); workers' numba cache misses: {misses.strip()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=64, help="runs per sweep (a square number)")
    ap.add_argument("--t", type=float, default=2.0, help="simulated seconds per run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-mujoco", action="store_true", help="part B without MuJoCo")
    ap.add_argument("--skip-b", action="store_true", help="part A only")
    ap.add_argument("--cold", action="store_true", help="also a cold start with an empty numba cache")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    part_a(args)
    if not args.skip_b:
        part_b(args)
    if args.cold:
        cold(args)


if __name__ == "__main__":
    main()
