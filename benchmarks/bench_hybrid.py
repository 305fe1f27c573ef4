"""Benchmark of the hybrid engine against scipy.integrate.solve_ivp (issue 2 §7).

Same model, same tolerance, one run, side by side. The two run in alternating rounds
(``--repeats`` rounds after one warm-up run each, ``time.perf_counter``): per round legsim runs
a few times, then the peer once. legsim's time is its warm (steady-state) run; its first run
after the peer, with caches emptied by the peer's run, is reported too ("cold"). Ratios are
formed within a round and the median over rounds is reported, so that a slow spell of this
shared machine (seconds long, up to 2x) hits both sides of a ratio alike:

* SLIP, 20 strides (digest §3, defaults, body_mass 1 kg): legsim DP45 vs solve_ivp RK45 with
  terminal, directional events restarted per chart, on the numpy twin ``_slip_numpy.py``;
  rtol 1e-8, atol 1e-10. Prints wall times, the ratio scipy/legsim, and the largest difference in
  event times and in the states at events (apexes included) between the two.
* JIT compile time, separately: a fresh Python process with ``NUMBA_CACHE_DIR`` set to an empty
  directory imports legsim and runs a short SLIP (cold: everything compiles), then a second
  process with the same directory does the same (cached: nothing should compile).

Usage::

    python benchmarks/bench_hybrid.py [--repeats 5] [--skip-compile]

To add a model (e.g. the hexapod, 5 s walking, with its real-time factor), write a function
``bench_<name>(report, repeats)`` that calls ``report.add(...)`` and append it to ``BENCHES``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _slip_numpy as sn  # noqa: E402
from legsim.hybrid import Options, simulate  # noqa: E402
from legsim.robots import slip  # noqa: E402

RTOL, ATOL = 1e-8, 1e-10
N_STRIDES = 20


@dataclass
class Row:
    name: str
    legsim_s: float
    peer_s: float | None = None
    peer: str = ""
    max_dt: float | None = None
    max_dx: float | None = None
    note: str = ""
    ratio: float | None = None  # median of paired ratios; None: ratio of the median times


@dataclass
class Report:
    """Rows of the benchmark table plus free-form lines (compile times, machine)."""

    rows: list[Row] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.rows.append(row)

    def note(self, line: str) -> None:
        self.lines.append(line)

    def print(self) -> None:
        head = f"{'case':<22}{'legsim [ms]':>13}{'peer [ms]':>12}{'peer':>14}{'peer/legsim':>13}" \
               f"{'max |dt| [s]':>14}{'max |dx|':>11}  note"
        print(head)
        print("-" * len(head))
        for r in self.rows:
            peer = f"{1e3 * r.peer_s:12.2f}" if r.peer_s is not None else f"{'-':>12}"
            q = r.ratio if r.ratio is not None else (r.peer_s / r.legsim_s if r.peer_s else None)
            ratio = f"{q:13.1f}" if q is not None else f"{'-':>13}"
            dt = f"{r.max_dt:14.1e}" if r.max_dt is not None else f"{'-':>14}"
            dx = f"{r.max_dx:11.1e}" if r.max_dx is not None else f"{'-':>11}"
            print(f"{r.name:<22}{1e3 * r.legsim_s:13.2f}{peer}{r.peer:>14}{ratio}{dt}{dx}  {r.note}")
        for line in self.lines:
            print(line)


@dataclass
class Paired:
    """Times of alternating runs: per round, one run of ``fn`` straight after the peer (cold
    caches), ``block - 1`` more (warm), then one run of the peer."""

    fn_warm: float  # median over rounds of the median warm run of fn [s]
    fn_cold: float  # median over rounds of fn's first run after the peer [s]
    peer: float  # median run of the peer [s]
    ratio_warm: float  # median over rounds of peer / warm fn
    ratio_cold: float  # median over rounds of peer / cold fn
    out: object = None
    out_peer: object = None


def paired_times(fn, peer, rounds: int, block: int = 5) -> Paired:
    """Run ``fn`` (``block`` times) and ``peer`` (once) alternately for ``rounds`` rounds, after
    one warm-up call each; see :class:`Paired`. Ratios are formed within a round, so a slow spell
    of the machine hits both sides alike."""
    out, out_peer = fn(), peer()
    warm, cold, tp = [], [], []
    for _ in range(rounds):
        ts = []
        for _ in range(block):
            t0 = time.perf_counter()
            out = fn()
            ts.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        out_peer = peer()
        tp.append(time.perf_counter() - t0)
        cold.append(ts[0])
        warm.append(statistics.median(ts[1:]) if block > 1 else ts[0])
    med = statistics.median
    return Paired(med(warm), med(cold), med(tp), med(p / w for p, w in zip(tp, warm, strict=True)),
                  med(p / c for p, c in zip(tp, cold, strict=True)), out, out_peer)


def bench_slip(report: Report, repeats: int) -> None:
    """SLIP 20 strides, legsim DP45 vs solve_ivp RK45 (numpy twin), rtol 1e-8, atol 1e-10."""
    model = slip.build_model()
    # h_max = 1 s: scipy's RK45 has no step bound either (legsim's default h_max is 10 ms)
    opts = Options(method="dp45", rtol=RTOL, atol=ATOL, h_max=1.0)
    probe = simulate(model, 30.0, options=opts)
    liftoffs = probe.events["t"][probe.events["mode_before"] == slip.DECOMPRESSION]
    # the run starts at mid-stance; 20 full strides end at the 21st liftoff
    t_final = float(liftoffs[N_STRIDES]) + 1e-3

    pt = paired_times(
        lambda: simulate(model, t_final, options=opts, progress=False),
        lambda: sn.simulate_slip([0.0, 0.9, 1.0, 0.0], t_final, method="RK45", rtol=RTOL, atol=ATOL),
        repeats)
    t_leg, t_sci, res, twin = pt.fn_warm, pt.peer, pt.out, pt.out_peer
    t_ref, before, _, x_ref = twin.arrays()
    ev = res.events
    n = min(ev.size, t_ref.size)
    same = ev.size == t_ref.size and np.array_equal(ev["mode_before"][:n], before[:n])
    max_dt = float(np.max(np.abs(ev["t"][:n] - t_ref[:n])))
    max_dx = float(np.max(np.abs(ev["x"][:n, :4] - x_ref[:n])))
    apex = ev["mode_before"][:n] == slip.ASCENT
    max_apex = float(np.max(np.abs(ev["x"][:n][apex][:, [1, 2]] - x_ref[apex][:, [1, 2]])))
    strides = int(np.sum(ev["mode_before"] == slip.DECOMPRESSION)) - 1
    report.add(Row(f"SLIP {strides} strides", t_leg, t_sci, "RK45", max_dt, max_dx,
                   f"cold run straight after the peer {1e3 * pt.fn_cold:.2f} ms (ratio "
                   f"{pt.ratio_cold:.0f}); {ev.size} events "
                   f"({'same sequence' if same else 'SEQUENCES DIFFER'}), "
                   f"apex max|d(y, xdot)| {max_apex:.1e}, legsim {res.stats['steps']} steps / "
                   f"{res.stats['fevals']} f-evals, scipy {twin.nfev} f-evals, t_final {t_final:.4f} s",
                   pt.ratio_warm))


def bench_hexapod(report: Report, repeats: int) -> None:
    """Compliant hexapod, 5 s walking (bundled demo gait), legsim DP45 vs solve_ivp RK45 calling
    the same compiled hooks from Python; rtol 1e-6, atol 1e-8, max step 5 ms for both."""
    from legsim.hybrid.stiff import simulate_scipy
    from legsim.robots.rhex.model import build_model
    t_final = 5.0
    model = build_model(max_torque=4.6)
    opts = Options(method="dp45", rtol=1e-6, atol=1e-8, h_max=5e-3, record_period=0.01,
                   max_transitions=200_000)
    p = model.param_defaults
    x0, mode0 = model.init_partition(model.state_defaults.copy(), p)
    pt = paired_times(
        lambda: simulate(model, t_final, x0=x0, params=p, mode0=mode0, options=opts, progress=False),
        lambda: simulate_scipy(model, t_final, x0, p, mode0, 1e-6, 1e-8, max_step=5e-3),
        max(3, repeats // 3), block=3)
    t_leg, t_sci, res, twin = pt.fn_warm, pt.peer, pt.out, pt.out_peer
    ix, iy = model.state_names.index("x"), model.state_names.index("y")
    dpos = float(np.hypot(res.x[-1, ix] - twin.x_final[ix], res.x[-1, iy] - twin.x_final[iy]))
    rtf = t_final / t_leg
    # legsim reports guards that cross together as one event, scipy one at a time: compare the
    # final state instead of event lists
    report.add(Row("hexapod 5 s walk", t_leg, t_sci, "RK45+jit", None, dpos,
                   f"cold run straight after the peer: ratio {pt.ratio_cold:.1f}; "
                   f"real-time factor {rtf:.0f}x "
                   f"(kernel {res.stats['real_time_factor']:.0f}x); {res.events.size} vs "
                   f"{twin.t_events.size} events; |dx| = final body position difference [m]; "
                   f"legsim {res.stats['fevals']} f-evals, scipy {twin.nfev}; peer calls the "
                   "compiled hooks", pt.ratio_warm))
    interp = _interpreted_hexapod(t_final)
    if interp is not None:
        dpos_i = float(np.hypot(res.x[-1, ix] - interp["x"], res.x[-1, iy] - interp["y"]))
        report.add(Row("hexapod 5 s walk", t_leg, interp["time"], "RK45+numpy", None, dpos_i,
                       "peer: the same hook source interpreted by Python/numpy "
                       "(NUMBA_DISABLE_JIT=1), one run"))


_INTERP_SNIPPET = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from legsim.hybrid.stiff import simulate_scipy
from legsim.robots.rhex.model import build_model
model = build_model(max_torque=4.6)
p = model.param_defaults
x0, mode0 = model.init_partition(model.state_defaults.copy(), p)
t0 = time.perf_counter()
run = simulate_scipy(model, float(sys.argv[2]), x0, p, mode0, 1e-6, 1e-8, max_step=5e-3)
dt = time.perf_counter() - t0
print(json.dumps({"time": dt, "x": float(run.x_final[model.state_names.index("x")]),
                  "y": float(run.x_final[model.state_names.index("y")])}))
"""


def _interpreted_hexapod(t_final: float):
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-c", _INTERP_SNIPPET, str(HERE), str(t_final)],
                          capture_output=True, text=True, env=env, timeout=1800)
    if proc.returncode != 0:
        print(f"interpreted hexapod peer failed: {proc.stderr[-500:]}", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


_COMPILE_SNIPPET = r"""
import json, time
t0 = time.perf_counter()
from legsim.hybrid import Options, simulate
from legsim.robots import slip
model = slip.build_model()
t1 = time.perf_counter()
simulate(model, 0.7, options=Options(), progress=False)
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "first_run": t2 - t1}))
"""


def _compile_probe(cache_dir: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _COMPILE_SNIPPET], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_compile(report: Report, repeats: int) -> None:
    """Cold (empty numba cache) vs cached JIT cost of importing legsim and a first SLIP run."""
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="legsim-numba-") as d:
            cold.append(_compile_probe(d))
            warm.append(_compile_probe(d))

    def med(rows, key):
        return statistics.median(r[key] for r in rows)

    for label, rows in (("cold (empty cache)", cold), ("cached (2nd process)", warm)):
        report.note(f"JIT {label:<21}: import+compile hooks {med(rows, 'import'):7.2f} s, "
                    f"first run {med(rows, 'first_run'):7.2f} s, total "
                    f"{statistics.median(r['import'] + r['first_run'] for r in rows):7.2f} s "
                    f"(median of {repeats} processes)")


BENCHES = [bench_slip, bench_hexapod]


def run(report: Report, repeats: int = 5, compile_time: bool = True) -> Report:
    """Run every benchmark in ``BENCHES`` (and the compile probe) into ``report``."""
    for bench in BENCHES:
        bench(report, repeats)
    if compile_time:
        bench_compile(report, repeats)
    report.note(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
                f"Python {platform.python_version()}, numpy {np.__version__}; "
                f"times are medians over alternating rounds (see the module doc)")
    return report


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per measurement (median reported)")
    ap.add_argument("--skip-compile", action="store_true", help="skip the cold/cached JIT probe")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    run(Report(), args.repeats, not args.skip_compile).print()


if __name__ == "__main__":
    main()
