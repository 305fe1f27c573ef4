"""Issue 20 §2: long runs. Peak memory of a 10⁶-record run written to a run directory, streamed
(``keep_records=False``, what ``legsim run`` does) against the same run kept in memory, and the
time a 20,000-record SLIP run spends writing its run directory against the time it spends
simulating.

Part A: the bundled ``hexapod_walk.toml`` (SimSect hexapod) for ``--t`` simulated seconds at its
5 ms record period (5000 s: 1,000,001 records of 150 columns), each mode in a fresh process
(peak resident memory, ``ru_maxrss``), next to a process that only imports legsim's engine and
pyarrow (the floor). The summary (distance, motor currents, battery life) is computed from the
records read back from disk in streaming mode, and reported as a second peak. Goal: under 300 MB.

Part B: ``slip_run.toml`` for 100 s at 5 ms (20,001 records), ``--repeats`` times in one process
after a warm-up: writing time (record buffering, Parquet parts, run.json) over simulation time
(the engine's kernel time, and ``simulate``'s whole wall time). Goal: writing < simulating.

Usage: ``python benchmarks/bench_long_run.py [--t 5000] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parents[1] / "src" / "legsim" / "scenarios"

CHILD = r"""
import json, resource, sys, tomllib
from legsim.runner import run_scenario, summarize
from legsim.scenario import parse_scenario
from legsim.io import load_run
mode, t_final, scen, out = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if mode == "floor":
    import legsim.hybrid, pyarrow.parquet  # noqa
    print(json.dumps({"run_mb": peak()}))
    sys.exit()
data = tomllib.loads(open(scen).read())
data["t_final"] = t_final
sc = parse_scenario(data, scen)
import legsim.runner as R
marks = {}
def measured(sc, res):
    marks["run_mb"] = peak()
    return summarize(sc, res)
R.summarize = measured
res = run_scenario(sc, out, progress=False, echo=lambda s: None, keep_records=(mode == "memory"))
marks["total_mb"] = peak()
marks["records"] = len(load_run(out).t)
print(json.dumps(marks))
"""


def _child(mode: str, t_final: float, out: str) -> dict:
    scenario = str(SCENARIOS / "hexapod_walk.toml")
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, str(t_final), scenario, out],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def part_a(t_final: float) -> None:
    print(f"Part A: hexapod_walk.toml, {t_final:g} s at 5 ms records; peak resident memory (ru_maxrss)")
    with tempfile.TemporaryDirectory() as tmp:
        floor = _child("floor", t_final, tmp)
        rows = {mode: _child(mode, t_final, str(Path(tmp) / mode)) for mode in ("stream", "memory")}
    print(f"  imports only (legsim.hybrid + pyarrow): {floor['run_mb']:.0f} MB")
    for mode, r in rows.items():
        print(f"  {mode:6s}: {r['records']} records; run {r['run_mb']:.0f} MB, with the summary "
              f"{r['total_mb']:.0f} MB")
    s, m = rows["stream"], rows["memory"]
    print(f"  in memory / streamed, run: {m['run_mb'] / s['run_mb']:.1f}x; goal: streamed run < 300 MB: "
          f"{'met' if s['run_mb'] < 300 else 'NOT met'}")


def part_b(repeats: int) -> None:
    from legsim.io.results import RunWriter
    from legsim.runner import simulate_scenario
    from legsim.scenario import load_scenario

    sc = load_scenario(SCENARIOS / "slip_run.toml")
    sc.t_final = 100.0
    ratios_kernel, ratios_wall, n = [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(repeats + 1):
            writer = RunWriter(Path(tmp) / "run", sc.model, {"scenario": sc.resolved()})
            res = simulate_scenario(sc, [writer], progress=False, keep_records=False)
            writer.finish(res.status, res.message, res.stats)
            n = writer.rows
            if k:  # the first round warms the caches
                ratios_kernel.append(writer.write_time_s / res.stats["kernel_time_s"])
                ratios_wall.append(writer.write_time_s / res.stats["wall_time_s"])
    print(f"Part B: slip_run.toml for 100 s, {n} records, {repeats} runs after a warm-up")
    print(f"  writing / simulating (kernel time): median {statistics.median(ratios_kernel):.2f} "
          f"(min {min(ratios_kernel):.2f}, max {max(ratios_kernel):.2f})")
    print(f"  writing / simulate() wall time:     median {statistics.median(ratios_wall):.2f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t", type=float, default=5000.0,
                    help="part A's simulated time [s] (5000: 10^6 records)")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    part_a(args.t)
    part_b(args.repeats)


if __name__ == "__main__":
    main()
