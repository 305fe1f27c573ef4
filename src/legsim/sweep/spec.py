"""What a sweep runs: variations of one scenario, each a set of dotted TOML keys with new values, or
calls of one Python function, each with its keyword arguments.

A variation such as ``{"params.k": 1200.0, "initial.xdot": 1.5, "t_final": 2.0}`` is applied to the
scenario's TOML data (:func:`apply_variation`: ``params.k`` is key ``k`` of table ``[params]``),
and the result is validated by :func:`legsim.scenario.parse_scenario` exactly as a file would be,
so a wrong key or value gets the usual error naming it. A :class:`Sweep` is the scenario plus
the list of its variations, made from a grid (cartesian product), from samples of ranges
(Latin hypercube, Sobol or uniform, with a fixed seed), from an explicit list, or from a
combination of these (every explicit variation x every grid point x every sample). Run ``i`` is
``Sweep.runs[i]``: its ``run_id`` is its index, stable for a given spec, and its noise seed
(:meth:`Sweep.run_seed`) depends only on the sweep's seed and ``run_id``, never on which worker
runs it or when.

A *function sweep* (``Sweep(function="package.module:function", ...)``) calls the function once per
variation with the variation as keyword arguments (plus ``seed=`` when it takes one): for
experiments that are Python code rather than a scenario file (the RATS rolling trials, a LIBRA
configuration study). It returns a dict of numbers and strings, which become the row's columns, or a
:class:`legsim.hybrid.Result`, which the sweep's outputs and summary reduce as a scenario run's.
"""

from __future__ import annotations

import copy
import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, check_whole, shown
from ..userfiles import parse_toml, read_text, user_path

__all__ = ["Sweep", "apply_variation", "check_key", "read_scenario"]

METHODS = ("lhs", "sobol", "uniform")
MAX_RUNS = 1_000_000
"""Most runs one sweep may hold (its variations are built, and its table written, up front)."""
"""Sampling designs: Latin hypercube (scipy.stats.qmc), scrambled Sobol, independent uniform."""

SCALES = ("linear", "log")


def read_scenario(path: str | Path) -> tuple[str, dict[str, Any]]:
    """(absolute path, TOML data) of a scenario file, or of the bundled scenario a bare name such as
    ``"slip_run.toml"`` names when no such file is here (``legsim sweep`` has no demo to point to, as
    ``legsim run`` does); InputError if missing or not TOML."""
    from ..scenario import bundled_scenario

    where = user_path(path, "scenario")  # a string or path-like: a bundled name is one too
    p = bundled_scenario(path) or where.resolve()
    text = read_text(p, "scenario path")
    return str(p), parse_toml(text, str(path))


def check_key(key: Any, where: str = "variation") -> tuple[str, ...]:
    """The parts of a dotted key (``"params.k"`` -> ``("params", "k")``); InputError if malformed, which
    ``where`` (a string: "variation", "grid", ...) opens."""
    if not isinstance(where, str):
        raise InputError(f"check_key: 'where' = {shown(where)}, expected a string (where the key is, for "
                         "messages)")
    if not isinstance(key, str) or not key:
        raise InputError(f"{where}: key {shown(key)} is not a dotted TOML key such as 'params.k' or "
                         "'t_final'")
    parts = tuple(key.split("."))
    if any(not p.strip() or p != p.strip() for p in parts):
        raise InputError(f"{where}: key {key!r} has an empty or padded part; expected e.g. 'params.k', "
                         "'initial.xdot', 'controller_params.amplitude' or 't_final'")
    return parts


def apply_variation(data: Mapping[str, Any], variation: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of scenario ``data`` with each dotted key of ``variation`` set to its value.

    Missing tables are created (``"params.k"`` on a scenario without ``[params]``); a key that
    passes through a value which is not a table (``"t_final.x"``) is an InputError naming it.
    Whether the key and value are valid for the scenario is :func:`parse_scenario`'s to say.
    """
    for name, value in (("data", data), ("variation", variation)):
        if not isinstance(value, Mapping):
            raise InputError(f"apply_variation: '{name}' = {shown(value)}, expected a mapping "
                             f"({'a scenario' if name == 'data' else 'dotted keys to values'})")
    out = copy.deepcopy(dict(data))
    for key, value in variation.items():
        parts = check_key(key)
        node = out
        for i, part in enumerate(parts[:-1]):
            nxt = node.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise InputError(f"variation key {key!r}: '{'.'.join(parts[:i + 1])}' is a value "
                                 f"({nxt!r}), not a table, so it has no key '{parts[i + 1]}'")
            node = nxt
        node[parts[-1]] = copy.deepcopy(value)
    return out


def _plain(value: Any, where: str) -> Any:
    """A TOML-like value (bool, int, float, str, or a list of them) from numpy scalars and lists."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{where} = {value!r}: expected a finite number")
        return value
    if isinstance(value, list | tuple) or hasattr(value, "tolist"):
        seq = value.tolist() if hasattr(value, "tolist") else value
        return [_plain(v, where) for v in seq]
    raise InputError(f"{where} = {value!r}: expected a number, a string, true/false or a list of them")


def _grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    axes = []
    for key, values in grid.items():
        check_key(key, "grid")
        seq = values.tolist() if hasattr(values, "tolist") else values
        if isinstance(seq, str | bytes) or not isinstance(seq, Sequence):
            raise InputError(f"grid {key!r} = {values!r}: expected a list of values")
        vals = [_plain(v, f"grid {key!r}") for v in seq]
        if not vals:
            raise InputError(f"grid {key!r}: the list of values is empty")
        axes.append((key, vals))
    _check_runs("grid", math.prod(len(v) for _, v in axes))
    return [dict(zip([k for k, _ in axes], combo, strict=True))
            for combo in itertools.product(*(v for _, v in axes))]


def _check_runs(what: str, n: int) -> None:
    if n > MAX_RUNS:
        raise InputError(f"{what}: {n} runs, expected at most MAX_RUNS = {MAX_RUNS} (split the sweep)")


def _range(key: str, spec: Any) -> tuple[float, float, str]:
    """(low, high, scale) of one range: ``(lo, hi)`` or ``(lo, hi, "log")``."""
    where = f"range {key!r}"
    if isinstance(spec, str) or not isinstance(spec, Sequence) or len(spec) not in (2, 3):
        raise InputError(f"{where} = {spec!r}: expected (low, high) or (low, high, 'log')")
    scale = spec[2] if len(spec) == 3 else "linear"
    if scale not in SCALES:
        raise InputError(f"{where}: scale {scale!r} is unknown; expected one of {', '.join(SCALES)}")
    try:
        lo, hi = float(spec[0]), float(spec[1])
    except (TypeError, ValueError):
        raise InputError(f"{where} = {spec!r}: low and high must be numbers") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InputError(f"{where} = {spec!r}: expected finite numbers with low < high")
    if scale == "log" and lo <= 0.0:
        raise InputError(f"{where} = {spec!r}: a log range needs low > 0")
    return lo, hi, scale


def _samples(ranges: Mapping[str, Any], n: int, method: str, seed: int) -> list[dict[str, Any]]:
    """``n`` points of the box ``ranges`` (unit-cube design mapped per axis, linearly or in log)."""
    import numpy as np

    keys = list(ranges)
    for k in keys:
        check_key(k, "ranges")
    bounds = [_range(k, ranges[k]) for k in keys]
    d = len(keys)
    if method == "uniform":
        u = np.random.default_rng(seed).random((n, d))
    else:
        from scipy.stats import qmc

        make = qmc.LatinHypercube if method == "lhs" else qmc.Sobol
        try:  # scipy >= 1.15 names the generator rng, older versions seed
            engine = make(d, rng=np.random.default_rng(seed))
        except TypeError:
            engine = make(d, seed=np.random.default_rng(seed))
        with warnings.catch_warnings():  # Sobol's balance warning when n is not a power of 2
            warnings.simplefilter("ignore", UserWarning)
            u = engine.random(n)
    out = []
    for row in u:
        v = {}
        for key, (lo, hi, scale), ui in zip(keys, bounds, row, strict=True):
            v[key] = float(math.exp(math.log(lo) + ui * (math.log(hi) - math.log(lo)))) if scale == "log" \
                else float(lo + ui * (hi - lo))
        out.append(v)
    return out


@dataclass(frozen=True)
class Sweep:
    """Variations of one scenario.

    Parameters
    ----------
    scenario : path of the scenario TOML file (resolved to an absolute path); or None with
        ``function``.
    function : instead of a scenario, ``"package.module:function"`` or ``"file.py:function"`` (a file
        relative to the working folder) called as ``function(**variation)`` per run (module
        docstring); the variations' keys are its keyword arguments.
    grid : dotted key -> list of values; the runs are the cartesian product (last key fastest).
    ranges : dotted key -> ``(low, high)`` or ``(low, high, "log")``; with ``samples``.
    samples : number of points drawn in ``ranges`` by ``method`` with ``seed``.
    method : ``"lhs"`` (Latin hypercube, default), ``"sobol"`` (scrambled; best with a power
        of 2 samples) or ``"uniform"`` (independent draws).
    variations : an explicit list of variations (dotted key -> value).
    seed : the sweep's seed: the sampling design's, and the root of every run's noise seed.
    data : the scenario's TOML data (default: read from ``scenario``); a resumed sweep passes the
        data it stored so that it runs what it started with.

    Given several of ``variations``, ``grid`` and ``ranges``, the runs are every explicit
    variation x every grid point x every sample (later keys win on a clash); given none, one
    run of the scenario as it is. ``runs[i]`` is run ``i``'s variation.
    """

    scenario: str | Path | None = None
    grid: Mapping[str, Sequence[Any]] | None = None
    ranges: Mapping[str, Any] | None = None
    samples: int | None = None
    method: str = "lhs"
    variations: Sequence[Mapping[str, Any]] | None = None
    seed: int = 0
    data: Mapping[str, Any] | None = field(default=None, repr=False)
    function: str | None = None
    runs: tuple[dict[str, Any], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.scenario is None) == (self.function is None):
            raise InputError("a sweep runs a scenario or a function: give one of scenario = 'file.toml' and "
                             "function = 'package.module:function'")
        if self.scenario is not None and not isinstance(self.scenario, (str, Path)):
            raise InputError(f"scenario = {self.scenario!r}: expected the path of a scenario file (TOML)")
        if self.function is not None:
            if not isinstance(self.function, str):
                raise InputError(f"function = {self.function!r}: expected 'package.module:function' or "
                                 "'file.py:function' (a name the worker processes can import)")
            object.__setattr__(self, "data", {})
        elif self.data is None:
            source, data = read_scenario(self.scenario)  # type: ignore[arg-type]
            object.__setattr__(self, "scenario", source)
            object.__setattr__(self, "data", data)
        else:
            if not isinstance(self.data, Mapping):
                raise InputError(f"Sweep: 'data' = {shown(self.data)}, expected the scenario's TOML data (a "
                                 "mapping), or None: read from the scenario file")
            object.__setattr__(self, "scenario", str(user_path(self.scenario, "scenario").resolve()))
            object.__setattr__(self, "data", copy.deepcopy(dict(self.data)))
        # the runs' seeds are SeedSequence([seed, run_id]): every 64-bit seed is distinct
        object.__setattr__(self, "seed", check_whole("Sweep", "seed", self.seed, hi=2**64 - 1))
        if not (isinstance(self.method, str) and self.method in METHODS):
            raise InputError(f"method = {self.method!r}: expected one of {', '.join(METHODS)}")
        if (self.ranges is None) != (self.samples is None):
            raise InputError("ranges and samples go together: give the ranges to sample and how many "
                             "samples (e.g. ranges={'params.k': (800, 1200)}, samples=64)")
        if self.samples is not None:
            object.__setattr__(self, "samples", check_whole("Sweep", "samples", self.samples, 1, MAX_RUNS))
        factors: list[list[dict[str, Any]]] = []
        if self.variations is not None:
            if not isinstance(self.variations, (list, tuple)):
                raise InputError(f"variations = {self.variations!r}: expected a list of mappings of dotted "
                                 "keys to values")
            explicit = []
            for i, var in enumerate(self.variations):
                if not isinstance(var, Mapping):
                    raise InputError(f"variations[{i}] = {var!r}: expected a mapping of dotted keys to "
                                     "values")
                for k in var:
                    check_key(k, f"variations[{i}]")
                explicit.append({k: _plain(v, f"variations[{i}] {k!r}") for k, v in var.items()})
            if not explicit:
                raise InputError("variations: the list is empty")
            factors.append(explicit)
        if self.grid is not None:
            if not isinstance(self.grid, Mapping) or not self.grid:
                raise InputError(f"grid = {self.grid!r}: expected a mapping of dotted keys to lists of "
                                 "values")
            factors.append(_grid(self.grid))
        if self.ranges is not None:
            if not isinstance(self.ranges, Mapping) or not self.ranges:
                raise InputError(f"ranges = {self.ranges!r}: expected a mapping of dotted keys to "
                                 "(low, high)")
            factors.append(_samples(self.ranges, int(self.samples or 0), self.method, self.seed))
        _check_runs("Sweep", math.prod(len(f) for f in factors))
        runs = [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*factors)]
        if self.function is not None:
            for k in dict.fromkeys(k for run in runs for k in run):
                if not k.isidentifier():
                    raise InputError(f"function sweep: key {k!r} is not a keyword argument name of "
                                     f"{self.function}")
        object.__setattr__(self, "runs", tuple(runs))

    def __len__(self) -> int:
        return len(self.runs)

    @property
    def keys(self) -> list[str]:
        """The varied dotted keys, in order of first appearance (the table's variation columns)."""
        return list(dict.fromkeys(k for run in self.runs for k in run))

    def run_seed(self, run_id: int) -> int:
        """Run ``run_id``'s noise seed, a 32-bit number from ``(seed, run_id)`` (numpy's SeedSequence)."""
        import numpy as np

        return int(np.random.SeedSequence([self.seed, int(run_id)]).generate_state(1)[0])

    @property
    def source(self) -> str:
        """What the runs run: the scenario's path, or the function's reference."""
        return str(self.function if self.function is not None else self.scenario)

    def scenario_data(self, run_id: int) -> dict[str, Any]:
        """The TOML data of run ``run_id``: the scenario with its variation applied."""
        assert self.data is not None and self.function is None
        return apply_variation(self.data, self.runs[run_id])

    def design(self) -> dict[str, Any]:
        """How the runs were made (for ``sweep.json`` and people reading it)."""
        out: dict[str, Any] = {"runs": len(self.runs), "seed": self.seed}
        if self.variations is not None:
            out["variations"] = len(self.variations)
        if self.grid is not None:
            out["grid"] = {k: [_plain(v, k) for v in vals] for k, vals in self.grid.items()}
        if self.ranges is not None:
            out["ranges"] = {k: list(_range(k, r)) for k, r in self.ranges.items()}
            out["samples"], out["method"] = self.samples, self.method
        return out
