"""``legsim sweep``: run variations of a scenario on all cores (or Ray) into one Parquet table.

Examples::

    legsim sweep slip_run.toml --out k-sweep --grid params.k=800,1000,1200 --grid initial.xdot=1:2:5 \\
        --output x@final --output y@min
    legsim sweep hopper.toml --out hop --range controller_params.amplitude=0.1:0.4 \\
        --range controller_params.kp=20:200:log --samples 64 --seed 1 --records
    legsim sweep --resume --out hop          # continue after Ctrl-C (or run the same command again)

The main CLI adds it with ``register(subparsers)``; this module imports nothing heavy at load
time (``legsim --help`` stays fast). Mistakes in arguments are InputErrors naming the argument.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..errors import InputError, shown
from ..userfiles import read_text, user_path

__all__ = ["register", "parse_value", "parse_grid", "parse_range", "parse_runs", "read_variations"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``sweep`` command to an argparse subparsers object."""
    p = subparsers.add_parser(
        "sweep", help="run variations of a scenario in parallel into one table",
        description="Run a grid, samples or a list of variations of one scenario on all local cores "
                    "(or a Ray cluster): one row per run in OUT/sweep.parquet. A KEY is a dotted "
                    "scenario key: params.k, initial.xdot, t_final, integrator.rtol, "
                    "controller_params.amplitude, hardware.actuators.legs.gear, ...; or, with --function, "
                    "a keyword argument of the function")
    p.add_argument("scenario", nargs="?", help="scenario file (TOML); not needed with --resume or --function")
    p.add_argument("--function", default=None, metavar="MODULE:FUNCTION",
                   help="instead of a scenario: call this function with each variation's keys as keyword "
                        "arguments; it returns a dict (the row's columns) or a legsim Result")
    p.add_argument("--out", required=True, help="output directory (sweep.parquet, sweep.json, runs/)")
    g = p.add_argument_group("variations (combined: every listed variation x grid point x sample)")
    g.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="values of one key (or KEY=LO:HI:N, N evenly spaced values); repeat for a "
                        "cartesian product")
    g.add_argument("--range", action="append", default=[], metavar="KEY=LO:HI[:log]",
                   help="a range to sample (with --samples); ':log' samples log-uniformly")
    g.add_argument("--samples", type=int, default=None, metavar="N", help="number of samples of the ranges")
    g.add_argument("--method", default="lhs", choices=("lhs", "sobol", "uniform"),
                   help="sampling design (default lhs: Latin hypercube)")
    g.add_argument("--variations", default=None, metavar="FILE",
                   help="explicit variations: a CSV file (header: the keys) or JSON (a list of objects)")
    g.add_argument("--seed", type=int, default=0,
                   help="the sweep's seed (of the samples and of each run's noise seed)")
    o = p.add_argument_group("what to keep")
    o.add_argument("--output", action="append", default=[], metavar="COL@final|initial|min|max|mean",
                   help="a record column reduced to one number per run (repeat, or comma-separate)")
    o.add_argument("--summary", default=None, metavar="MODULE:FUNCTION",
                   help="a function summary(result) -> dict whose keys become columns "
                        "(package.module:function or file.py:function)")
    o.add_argument("--records", action="store_true",
                   help="also keep each run's records in OUT/runs/run-NNNNN")
    o.add_argument("--common-noise", action="store_true",
                   help="every run uses the hardware file's sensor noise seeds (default: a seed per run)")
    r = p.add_argument_group("how to run")
    r.add_argument("--workers", type=int, default=None, help="parallel workers (default: all cores)")
    r.add_argument("--backend", default="local", choices=("local", "ray", "serial"),
                   help="local processes (default), a Ray cluster, or this process")
    r.add_argument("--address", default=None, help="Ray cluster address (default: start a local instance)")
    r.add_argument("--runs", default=None, metavar="IDS", help="only these run_ids now, e.g. 0-9,17")
    r.add_argument("--run-timeout", type=float, default=None, metavar="SECONDS",
                   help="stop a run after this much wall time (its row says wall_time_limit; the sweep "
                        "goes on)")
    r.add_argument("--resume", action="store_true",
                   help="continue the sweep in --out (its sweep.json) without SCENARIO or variations")
    r.add_argument("--overwrite", action="store_true", help="replace a different sweep found in --out")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_cmd_sweep)
    return p


def parse_value(text: str) -> Any:
    """A command-line value as TOML reads it (1, 1.5, 1e-3, true, "a b"), else the bare string."""
    from ..userfiles import parse_toml

    if not isinstance(text, str):
        raise InputError(f"parse_value: 'text' = {shown(text)}, expected a string (a command-line value)")
    text = text.strip()
    try:
        return parse_toml(f"v = {text}", "value")["v"]
    except InputError:
        return text


def _split(arg: str, option: str, form: str) -> tuple[str, str]:
    key, sep, rest = arg.partition("=")
    if not (sep and key.strip() and rest.strip()):
        raise InputError(f"{option} {arg!r}: expected {form}")
    return key.strip(), rest.strip()


def _arguments(owner: str, args: Any, example: str) -> list[str]:
    """``args`` (the values of a repeated option) as a list of strings, else an :class:`InputError`
    naming ``owner``."""
    if not (isinstance(args, (list, tuple)) and all(isinstance(a, str) for a in args)):
        raise InputError(f"{owner}: 'args' = {shown(args)}, expected a list of strings such as {example!r}")
    return list(args)


def parse_grid(args: list[str]) -> dict[str, list[Any]]:
    """``["params.k=800,1000", "initial.xdot=1:2:5"]`` -> ``{"params.k": [800, 1000], "initial.xdot":
    [1.0, 1.25, 1.5, 1.75, 2.0]}`` (``LO:HI:N``: two finite numbers and N in [2, MAX_RUNS])."""
    from .spec import MAX_RUNS

    grid: dict[str, list[Any]] = {}
    for arg in _arguments("parse_grid", args, "params.k=800,1000"):
        key, rest = _split(arg, "--grid", "KEY=V1,V2,... or KEY=LO:HI:N")
        if key in grid:
            raise InputError(f"--grid {arg!r}: key {key!r} is given twice")
        parts = rest.split(":")
        if len(parts) == 3 and "," not in rest:
            lo, hi, num = (parse_value(s) for s in parts)
            if not (isinstance(lo, int | float) and isinstance(hi, int | float) and isinstance(num, int)
                    and not isinstance(num, bool) and 2 <= num <= MAX_RUNS):
                raise InputError(f"--grid {arg!r}: LO:HI:N needs two numbers and a whole number N in "
                                 f"[2, {MAX_RUNS}]")
            try:
                values = [lo + (hi - lo) * i / (num - 1) for i in range(num)]
            except OverflowError:  # whole numbers beyond the largest float
                values = [math.inf]
            if not all(math.isfinite(v) for v in values):
                raise InputError(f"--grid {arg!r}: LO:HI:N needs finite numbers LO and HI (and HI - LO "
                                 "finite)")
            grid[key] = values
        else:
            grid[key] = [parse_value(s) for s in rest.split(",") if s.strip()]
    return grid


def parse_range(args: list[str]) -> dict[str, tuple[Any, ...]]:
    """``["params.k=800:1200", "params.c=1e-3:1e-1:log"]`` -> ``{"params.k": (800, 1200), ...}``."""
    ranges: dict[str, tuple[Any, ...]] = {}
    for arg in _arguments("parse_range", args, "params.k=800:1200"):
        key, rest = _split(arg, "--range", "KEY=LO:HI or KEY=LO:HI:log")
        parts = rest.split(":")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2].strip() not in ("log", "linear")):
            raise InputError(f"--range {arg!r}: expected KEY=LO:HI or KEY=LO:HI:log")
        lo, hi = parse_value(parts[0]), parse_value(parts[1])
        if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lo, hi)):
            raise InputError(f"--range {arg!r}: LO and HI must be numbers")
        ranges[key] = (lo, hi, parts[2].strip()) if len(parts) == 3 else (lo, hi)
    return ranges


def parse_runs(text: str | None) -> list[int] | None:
    """``"0-9,17"`` -> ``[0, 1, ..., 9, 17]`` (at most :data:`~legsim.sweep.spec.MAX_RUNS` run_ids, which
    no sweep exceeds)."""
    from .spec import MAX_RUNS

    if text is None:
        return None
    if not isinstance(text, str):
        raise InputError(f"parse_runs: 'text' = {shown(text)}, expected a string of run_ids and ranges "
                         "such as '0-9,17' (or None: all)")
    out: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise InputError(f"parse_runs: 'text' = {text!r} (--runs), expected run_ids and ranges such as "
                             "0-9,17") from None
        if last - first + 1 > MAX_RUNS - len(out):  # a range a sweep cannot hold: not built in memory
            raise InputError(f"parse_runs: 'text' = {text!r} (--runs) holds more than {MAX_RUNS} run_ids (a "
                             "sweep holds at most that many)")
        out += range(first, last + 1)
    return out


def read_variations(path: str) -> list[dict[str, Any]]:
    """Variations from a CSV file (header: dotted keys; values as TOML reads them) or a JSON list."""
    p = user_path(path, "read_variations: 'path'")
    try:
        text = read_text(p, "--variations file")
    except InputError as exc:
        raise InputError(f"read_variations: 'path': {exc}") from None
    if p.suffix.lower() == ".json":
        import json

        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"--variations '{path}': not valid JSON: {exc}") from None
        if not (isinstance(data, list) and all(isinstance(v, dict) for v in data)):
            raise InputError(f"--variations '{path}': expected a JSON list of objects (dotted key -> value)")
        return data
    import csv

    rows = list(csv.reader(text.splitlines()))
    if len(rows) < 2:
        raise InputError(f"--variations '{path}': expected a CSV header of keys and one row per run")
    header = [h.strip() for h in rows[0]]
    out = []
    for i, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(f"--variations '{path}' line {i}: {len(row)} values for {len(header)} keys")
        out.append({k: parse_value(v) for k, v in zip(header, row, strict=True) if v.strip()})
    return out


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .run import resume_sweep, run_sweep
    from .spec import Sweep

    quiet = args.quiet
    common: dict[str, Any] = {"workers": args.workers, "backend": args.backend, "address": args.address,
                              "runs": parse_runs(args.runs), "progress": False if quiet else None,
                              "echo": (lambda s: None) if quiet else print}
    outputs = [o.strip() for arg in args.output for o in arg.split(",") if o.strip()]
    if args.resume:
        given = [f for f, v in (("SCENARIO", args.scenario), ("--function", args.function),
                                ("--grid", args.grid), ("--range", args.range),
                                ("--variations", args.variations), ("--output", outputs),
                                ("--records", args.records), ("--overwrite", args.overwrite),
                                ("--run-timeout", args.run_timeout)) if v]
        if given:
            raise InputError(f"--resume continues the sweep stored in --out; drop {', '.join(given)}")
        res = resume_sweep(args.out, summary=args.summary, **common)
    else:
        if (args.scenario is None) == (args.function is None):
            raise InputError("sweep: give the SCENARIO file or --function MODULE:FUNCTION (or --resume to "
                             "continue the sweep in --out)")
        if args.samples is not None and not args.range:
            raise InputError("--samples needs at least one --range KEY=LO:HI to sample")
        if args.range and args.samples is None:
            raise InputError("--range needs --samples N (how many samples to draw)")
        variations = read_variations(args.variations) if args.variations else None
        sweep = Sweep(args.scenario, grid=parse_grid(args.grid) or None,
                      ranges=parse_range(args.range) or None, samples=args.samples, method=args.method,
                      variations=variations, seed=args.seed, function=args.function)
        res = run_sweep(sweep, args.out, outputs=outputs, summary=args.summary, records=args.records,
                        common_noise=args.common_noise, overwrite=args.overwrite,
                        run_timeout=args.run_timeout, **common)
    if not quiet:
        for line in describe(res):
            print(line)
    return 130 if res.interrupted else 0


def describe(res: Any) -> list[str]:
    """A few lines on a :class:`~legsim.sweep.SweepResult`: counts by status, outputs' spread, where."""
    import math
    import statistics

    table = res.table
    status = table.column("status").to_pylist() if "status" in table.column_names else []
    counts: dict[str, int] = {}
    for s in status:
        counts[s] = counts.get(s, 0) + 1
    st = res.stats
    rate = (f" ({res.ran / st['run_s']:.3g} runs/s once the workers were ready)"
            if res.ran and st.get("run_s", 0) > 0 else "")
    lines = [f"sweep: {table.num_rows} of {res.runs} runs in {res.out / 'sweep.parquet'} ("
             + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + f"); this call ran {res.ran}"
             f" in {st.get('total_s', 0.0):.3g} s{rate}"]
    done = {i for i, s in enumerate(status) if s == "done"}
    for name in table.column_names:
        if "@" not in name:
            continue
        vals = [v for i, v in enumerate(table.column(name).to_pylist()) if i in done
                and isinstance(v, int | float) and not (isinstance(v, float) and math.isnan(v))]
        if vals:
            lines.append(f"  {name}: min {min(vals):.6g}, median {statistics.median(vals):.6g}, "
                         f"max {max(vals):.6g}")
    failed = [(r, s) for r, s in zip(table.column("run_id").to_pylist(), status, strict=True) if s != "done"]
    if failed:
        lines.append("  not done: " + ", ".join(f"run {r} ({s})" for r, s in failed[:8])
                     + (" ..." if len(failed) > 8 else ""))
    lines.append(f"  read it with: pandas.read_parquet('{res.out / 'sweep.parquet'}')")
    return lines
