"""``legsim simsect``: run a SimSect init file unchanged (digest §1.1, §1.7, §6.1).

The top-level sequence of SimSect.c: load the init file into the symbol table, pick the model
by ``systemName``, set its states and parameters from symbols of the same names, let the model
finalise the initial state and chart, save ``<base>.initial`` and ``<base>.param`` (init-file
format, re-loadable), integrate to ``finalTime`` and write ``<base>.data``: one whitespace-
separated row of the model's auxiliary outputs per record. legsim writes ``.data`` as the run
goes (a failed run keeps every row made before it stopped) and adds ``<base>.columns`` naming
the ``.data`` columns, one per line.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from .. import registry
from ..errors import InputError, check_echo, check_whole, closest
from ..hybrid import Options, Result, simulate
from ..hybrid.model import Model
from ..userfiles import output_dir, output_file, read_text, user_path, write_text
from .rcfile import ENGINE_DEFAULTS, LEGSIM_EXTENSIONS, Symbol, parse_rc, write_rc

__all__ = ["SimSectRun", "SimSectSetup", "load_simsect", "run_simsect", "options_from_symbols"]


@dataclass
class SimSectRun:
    """What a SimSect run produced: the result and the files written."""

    result: Result
    data_file: Path
    columns_file: Path
    initial_file: Path
    param_file: Path


def _real(table: dict[str, Symbol], name: str, source: str) -> float:
    sym = table.get(name)
    if sym is None:
        v = ENGINE_DEFAULTS.get(name, LEGSIM_EXTENSIONS.get(name))
        assert isinstance(v, float)
        return v
    if sym.is_string:
        raise InputError(f"{source}:{sym.line}: '{name}' must be a real number, got the string "
                         f"\"{sym.value}\"")
    return float(sym.value)


def _string(table: dict[str, Symbol], name: str, source: str) -> str:
    sym = table.get(name)
    if sym is None:
        v = ENGINE_DEFAULTS.get(name, LEGSIM_EXTENSIONS.get(name))
        assert isinstance(v, str)
        return v
    if not sym.is_string:
        raise InputError(f"{source}:{sym.line}: '{name}' must be a \"quoted string\", got {sym.value!r}")
    return str(sym.value)


def options_from_symbols(table: dict[str, Symbol], source: str) -> Options:
    """Integrator options from SimSect's engine symbols (digest §1.3)."""
    def whole(name: str) -> int:
        line = table[name].line if name in table else 0
        return check_whole(f"{source}:{line}" if line else source, name, _real(table, name, source))

    kwargs: dict[str, Any] = dict(
        method=_string(table, "integrator", source),
        tolerance=_real(table, "tolerance", source),
        power=_real(table, "power", source),
        h_min=_real(table, "minTimeStep", source),
        h_max=_real(table, "maxTimeStep", source),
        stop_precision=_real(table, "stopPrecision", source),
        max_stop_iter=max(1, whole("maxStopIter")),
        max_transitions=whole("maxChartCount"),
        record_period=_real(table, "recordPeriod", source),
        sample_period=_real(table, "samplePeriod", source),
        sliding=bool(_real(table, "slidingMode", source)),
        rtol=min(1e-3, _real(table, "tolerance", source)),
        atol=min(1e-3, _real(table, "tolerance", source)) * 1e-2,
    )
    try:
        return Options(**kwargs)
    except InputError as exc:  # say it in SimSect's symbol names, with the line that set it
        msg = str(exc)
        for option, symbol in _SYMBOL_OF.items():
            if f"'{option}' = " in msg and ", expected " in msg:  # errors.check_*: one option refused
                line = table[symbol].line if symbol in table else 0
                where = f"{source}:{line}" if line else f"{source} (default)"
                wanted = msg.split(", expected ", 1)[1]
                raise InputError(f"{where}: '{symbol}' = {kwargs[option]!r}: expected {wanted}") from None
        for option, symbol in _SYMBOL_OF.items():
            msg = re.sub(rf"\b{option}\b", symbol, msg)
        raise InputError(f"{source}: {msg}") from None


_SYMBOL_OF = {"method": "integrator", "tolerance": "tolerance", "rtol": "tolerance", "atol": "tolerance",
              "power": "power", "h_min": "minTimeStep", "h_max": "maxTimeStep",
              "stop_precision": "stopPrecision", "max_stop_iter": "maxStopIter",
              "max_transitions": "maxChartCount", "record_period": "recordPeriod",
              "sample_period": "samplePeriod", "sliding": "slidingMode"}
"""legsim's integrator option -> the SimSect symbol that sets it (for messages)."""


def _model_symbols(model: Model, table: dict[str, Symbol], source: str):
    """Split the symbol table into initial state and parameters; reject unknown names."""
    known = set(ENGINE_DEFAULTS) | set(LEGSIM_EXTENSIONS)
    x0: dict[str, float] = {}
    params: dict[str, float] = {}
    valid = list(known) + list(model.state_names) + list(model.param_names)
    for name, sym in table.items():
        if name in known:
            continue
        if name in model.state_names or name in model.param_names:
            if sym.is_string:
                raise InputError(f"{source}:{sym.line}: '{name}' of model '{model.name}' must be a "
                                 f"real number, got the string \"{sym.value}\"")
            (x0 if name in model.state_names else params)[name] = float(sym.value)
            continue
        raise InputError(f"{source}:{sym.line}: unknown symbol '{name}' for systemName = "
                         f"\"{model.name}\"{closest(name, valid)}")
    return x0, params


@dataclass
class SimSectSetup:
    """An init file read and checked, before anything runs: the model, its initial state and
    chart, parameters, integrator options and the output settings."""

    source: str
    model: Model
    x0: np.ndarray
    mode0: int
    params: np.ndarray
    options: Options
    t_final: float
    measure_period: float
    base: str


def load_simsect(rc_path: str | Path = "SimSect.rc") -> SimSectSetup:
    """Read and check a SimSect init file ``rc_path`` (every error names the file, line and symbol)."""
    rc_path = user_path(rc_path, "rc_path")
    source = str(rc_path)
    table = parse_rc(read_text(rc_path, "rc_path: init file"), source)
    system = _string(table, "systemName", source)
    model = registry.build(system, where=f"{source}: systemName")
    opts = options_from_symbols(table, source)
    t_final = _real(table, "finalTime", source)
    measure = _real(table, "measurePeriod", source)
    base = _string(table, "dataBaseName", source)
    if not base or "\0" in base:
        raise InputError(f"{source}: dataBaseName = {base!r}: expected a file name stem for the outputs")
    x0, params = _model_symbols(model, table, source)
    p = model.params(params, where=source)
    x = model.state(x0, where=source)
    mode = 0
    if model.init_partition is not None:
        try:
            x, mode = model.init_partition(x.copy(), p)
        except InputError as exc:
            raise InputError(f"{source}: {exc}") from None
    return SimSectSetup(source, model, x, int(mode), p, opts, t_final, measure, base)


def run_simsect(rc_path: str | Path = "SimSect.rc", out_dir: str | Path | None = None,
                progress: bool | None = None, echo=print, monitor=None) -> SimSectRun:
    """Run a SimSect init file; output files go to ``out_dir`` (default: the current directory).
    ``monitor`` (a function, or None) watches the records as the run goes (:func:`legsim.hybrid.simulate`);
    ``echo`` (a function of one string) reports the simulated time every ``measurePeriod``."""
    from .._progress import check_progress
    from ..hybrid.simulate import check_watchers

    check_progress(progress, "run_simsect")  # before an earlier run's files are written over
    check_echo("run_simsect", echo)
    check_watchers("run_simsect", (), monitor)
    if out_dir is not None:
        user_path(out_dir, "run_simsect: out_dir")
    setup = load_simsect(rc_path)
    model, x, p, mode, base = setup.model, setup.x0, setup.params, setup.mode0, setup.base
    t_final, measure, opts = setup.t_final, setup.measure_period, setup.options
    try:
        out = output_dir(out_dir if out_dir is not None else Path.cwd(), "the output files", "--out-dir")
    except InputError as exc:
        raise InputError(f"run_simsect: 'out_dir': {exc}") from None
    initial_file = out / f"{base}.initial"
    param_file = out / f"{base}.param"
    write_rc(initial_file, dict(zip(model.state_names, map(float, x), strict=True)),
             header=f"initial conditions of '{model.name}' written by legsim simsect")
    write_rc(param_file, dict(zip(model.param_names, map(float, p), strict=True)),
             header=f"parameters of '{model.name}' written by legsim simsect")
    data_file = out / f"{base}.data"
    columns_file = out / f"{base}.columns"
    columns_file.write_text("\n".join(model.output_names) + "\n")
    nx = model.nx
    measured = [1]  # index k of the next progress message, at k * measurePeriod

    with open(data_file, "wb") as fh:
        def sink(rec: np.ndarray, modes: np.ndarray, events: np.ndarray) -> None:
            if rec.shape[0]:
                _write_rows(fh, rec[:, 1 + nx:])
                fh.flush()
                if measure > 0:
                    while measured[0] * measure <= rec[-1, 0] * (1 + 1e-12):
                        echo(f"t = {measured[0] * measure:g} s")
                        measured[0] += 1

        result = simulate(model, t_final, x0=x, params=p, options=opts, mode0=mode, sinks=[sink],
                          progress=progress, monitor=monitor)
    return SimSectRun(result, data_file, columns_file, initial_file, param_file)


_ROWS = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")


def _write_rows(fh, rows: np.ndarray) -> None:
    """Rows (n, m) as whitespace-separated text, each number in its shortest form that reads back
    exactly (``20``, ``0.9321199421393239``, ``1e-20``), as SimSect's .data; pyarrow's CSV writer
    formats about 5x faster than ``np.savetxt``, so writing costs less than simulating."""
    cols = [pa.array(rows[:, j]) for j in range(rows.shape[1])]
    pacsv.write_csv(pa.Table.from_arrays(cols, names=[f"c{j}" for j in range(len(cols))]), fh, _ROWS)


SAMPLE_RC = Path(__file__).with_name("SimSect.rc")
"""A commented sample init file (a 20 s SLIP run); ``legsim simsect --sample`` copies it here."""


def _live_view(rc_path: str | Path, port: int):
    """The live view of a SimSect run at the init file's ``framerate`` [frames/s] (SimSect's display
    rate; 30 where the model has no such symbol)."""
    from ..viz.scene import SCENES
    from ..viz.viewer import LiveView

    setup = load_simsect(rc_path)
    model = setup.model
    params = dict(zip(model.param_names, map(float, setup.params), strict=True))
    if model.name not in SCENES:
        raise InputError(f"{rc_path}: no 3-D view for model {model.name!r}; "
                         f"available: {', '.join(sorted(SCENES))}")
    scene = SCENES[model.name]({"model": model.name, "scenario": {"params": params}})
    rate = params.get("framerate", 30.0)
    columns = ["t", *model.state_names, *model.output_names]
    return LiveView(scene, columns, framerate=rate if rate > 0 else 30.0, port=port)


def main_simsect(args) -> int:
    """CLI handler for ``legsim simsect``."""
    if args.sample:
        target = user_path(args.config, "-c")
        if target.exists():
            raise InputError(f"--sample: '{target}' exists already; move it away or pass -c NEW_NAME.rc")
        write_text(output_file(target, "the sample init file", "-c"), SAMPLE_RC.read_text(),
                   "the sample init file", "-c")
        print(f"wrote the sample init file {target}; run it with: legsim simsect -c {target}")
        return 0
    if not Path(args.config).exists():
        raise InputError(f"init file '{args.config}' not found (legsim simsect --sample writes a sample "
                         f"'{args.config}' here)")
    view = _live_view(args.config, args.port) if args.view else None
    try:
        quiet = args.quiet or view is not None
        run = run_simsect(args.config, args.out_dir, progress=False if quiet else None,
                          echo=(lambda s: None) if args.quiet else print, monitor=view)
        if view is not None:
            print(f"viewer: the run's last state stays at {view.url} (Ctrl-C to stop)")
            view.wait()
    finally:
        if view is not None:
            view.close()
    st = run.result.stats
    if not args.quiet:
        print(f"{run.result.model_name}: {run.result.n} records to {run.data_file} "
              f"({st['steps']} steps, {st['transitions']} chart transitions, "
              f"{st['wall_time_s']:.3f} s wall)", file=sys.stderr)
    return 0
