"""Issue 19 §1: what the live 3-D view costs a run. The bundled ``hexapod_walk.toml`` (SimSect
hexapod, records every 5 ms) run to a run directory as ``legsim run`` does, with
and without a :class:`legsim.viz.viewer.LiveView` at ``--fps`` frames per second, alternated
``--repeats`` times in one process after a warm-up; and the same for the hopper (a robot from a
hardware file with a Python controller), each for ``--t`` simulated seconds. The ratio is the
run's wall time with the view over without (goal: at most ~1.10 at 30 frames/s). No browser is
connected: a browser's own drawing runs in another process (on this 2-core machine it competes
for the same cores).

Usage: ``python benchmarks/bench_viewer.py [--fps 30] [--repeats 5] [--t 100]``
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

from legsim.runner import run_scenario
from legsim.scenario import load_scenario
from legsim.viz.viewer import live_view_of

SCENARIOS = Path(__file__).resolve().parents[1] / "src" / "legsim" / "scenarios"


def one(name: str, fps: float | None, out: Path, t_final: float) -> tuple[float, int]:
    sc = dataclasses.replace(load_scenario(SCENARIOS / f"{name}.toml"), t_final=t_final)
    view = None if fps is None else live_view_of(sc, framerate=fps, port=8765, echo=lambda s: None)
    try:
        t0 = time.perf_counter()
        run_scenario(sc, out, progress=False, echo=lambda s: None, keep_records=False, monitor=view)
        wall = time.perf_counter() - t0
    finally:
        if view is not None:
            view.close()
    return wall, (view.frames_shown if view is not None else 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--t", type=float, default=100.0, help="simulated seconds of each run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("hexapod_walk", "hopper"):
            out = Path(tmp) / name
            one(name, None, out, args.t), one(name, args.fps, out, args.t)  # warm-up: compile, caches
            bare, viewed, frames = [], [], []
            for _ in range(args.repeats):
                bare.append(one(name, None, out, args.t)[0])
                w, n = one(name, args.fps, out, args.t)
                viewed.append(w)
                frames.append(n)
            b, v = statistics.median(bare), statistics.median(viewed)
            print(f"{name}: run {b:.3f} s without the view, {v:.3f} s with it at {args.fps:g} fps "
                  f"({statistics.median(frames):.0f} frames drawn): ratio {v / b:.3f}")


if __name__ == "__main__":
    main()
