"""Issue 14 §3 ("one path, not two"): the cost of a robot re-expressed through the assembly layer
against the same robot on its old bespoke hooks, in one run of this script.

The old hooks are gone from the tree, so the base is another checkout of legsim (a git worktree of
the last commit that had them): ``git worktree add /tmp/legsim_base fc3f6ce``. Each case runs in a
fresh subprocess per tree (``PYTHONPATH=<tree>/src``), alternating base and head, after a warm-up run
in the same process (compilation excluded); the time is the simulation's wall time, best of
``--repeat``; the result is the ratio head / base (issue 14: ≤ 1.2).

Cases
- ``event_hexapod_coulomb`` / ``event_hexapod_anchor``: ``legsim.world.event_contact_model`` on the
  18-DoF sample hexapod standing 0.3 s, then walking a tripod gait from a 1 ms target table
  (bench_hexapod_contact's ``make_legsim_events``: all 25 geoms as 50 event contacts, Kelvin–Voigt
  with regularised Coulomb or the anchor spring), DP45 rtol 1e-6, ``--t`` simulated seconds.

Usage: ``python benchmarks/bench_one_path.py --base /tmp/legsim_base [--t 2] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEAD = HERE.parent

_CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
import bench_hexapod_contact as B
from legsim.multibody.samples import hexapod, hexapod_stance

case, t_final = {case!r}, {t_final!r}
model = hexapod()
q0 = hexapod_stance(model)
tab = B.gait_table(model, q0, t_final, t_stand=0.3)
run = B.make_legsim_events(model, q0, tab, friction=case.rsplit("_", 1)[1])
run(0.05, 1e-6)                                  # warm-up: compile or load the cache
t0 = time.perf_counter()
q = run(t_final, 1e-6)
print(json.dumps({{"wall": time.perf_counter() - t0, "end": [float(v) for v in q[:3]]}}))
"""

CASES = ("event_hexapod_coulomb", "event_hexapod_anchor")


def run_case(tree: Path, case: str, t_final: float) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    code = _CHILD.format(bench=str(HERE), case=case, t_final=t_final)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{case} in {tree}: failed\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, type=Path, help="a legsim checkout with the old hooks")
    ap.add_argument("--t", type=float, default=2.0, help="simulated seconds per case")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=list(CASES), choices=CASES)
    a = ap.parse_args()
    if not (a.base / "src" / "legsim").is_dir():
        raise SystemExit(f"--base {a.base}: no src/legsim there (make one with git worktree add)")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for case in a.cases:
        best = {"base": float("inf"), "head": float("inf")}
        ends = {}
        for _ in range(a.repeat):
            for name, tree in (("base", a.base), ("head", HEAD)):
                r = run_case(tree, case, a.t)
                best[name] = min(best[name], r["wall"])
                ends[name] = r["end"]
        gap = max(abs(x - y) for x, y in zip(ends["base"], ends["head"], strict=True))
        print(f"{case}: base {best['base']:.3f} s, head {best['head']:.3f} s for {a.t:g} s simulated; "
              f"head/base {best['head'] / best['base']:.3f}; end base positions differ by {gap:.1e} m")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
