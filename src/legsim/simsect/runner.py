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

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import registry
from ..errors import InputError
from ..hybrid import Options, Result, simulate
from ..hybrid.model import Model, closest
from .rcfile import ENGINE_DEFAULTS, LEGSIM_EXTENSIONS, Symbol, read_rc, write_rc

__all__ = ["SimSectRun", "run_simsect", "options_from_symbols"]


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
        v = _real(table, name, source)
        if v < 0 or v != int(v):
            raise InputError(f"{source}: '{name}' must be a whole number >= 0, got {v:g}")
        return int(v)

    return Options(
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


def run_simsect(rc_path: str | Path = "SimSect.rc", out_dir: str | Path | None = None,
                progress: bool | None = None, echo=print) -> SimSectRun:
    """Run a SimSect init file; output files go to ``out_dir`` (default: the current directory)."""
    rc_path = Path(rc_path)
    source = str(rc_path)
    table = read_rc(rc_path)
    system = _string(table, "systemName", source)
    model = registry.build(system, where=f"{source}: systemName")
    opts = options_from_symbols(table, source)
    t_final = _real(table, "finalTime", source)
    measure = _real(table, "measurePeriod", source)
    base = _string(table, "dataBaseName", source)
    out = Path(out_dir) if out_dir is not None else Path.cwd()
    out.mkdir(parents=True, exist_ok=True)
    x0, params = _model_symbols(model, table, source)

    p = model.params(params, where=source)
    x = model.state(x0, where=source)
    mode = 0
    if model.init_partition is not None:
        x, mode = model.init_partition(x.copy(), p)
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

    with open(data_file, "w") as fh:
        def sink(rec: np.ndarray, modes: np.ndarray, events: np.ndarray) -> None:
            if rec.shape[0]:
                np.savetxt(fh, rec[:, 1 + nx:], fmt="%.17g")
                fh.flush()
                if measure > 0:
                    while measured[0] * measure <= rec[-1, 0] * (1 + 1e-12):
                        echo(f"t = {measured[0] * measure:g} s")
                        measured[0] += 1

        result = simulate(model, t_final, x0=x, params=p, options=opts, mode0=mode, sinks=[sink],
                          progress=progress)
    return SimSectRun(result, data_file, columns_file, initial_file, param_file)


def main_simsect(args) -> int:
    """CLI handler for ``legsim simsect``."""
    run = run_simsect(args.config, args.out_dir, progress=None if not args.quiet else False,
                      echo=(lambda s: None) if args.quiet else print)
    st = run.result.stats
    if not args.quiet:
        print(f"{run.result.model_name}: {run.result.n} records to {run.data_file} "
              f"({st['steps']} steps, {st['transitions']} chart transitions, "
              f"{st['wall_time_s']:.3f} s wall)", file=sys.stderr)
    return 0
