"""A run directory: ``records/part-NNNNN.parquet``, ``events/part-NNNNN.parquet``, ``run.json``.

Each chunk of records the engine hands over becomes one complete Parquet file, so whatever
happens to the process, every chunk written so far can be read back. Read the records with
``pandas.read_parquet(DIR / "records")`` or ``polars.read_parquet(f"{DIR}/records/*.parquet")``,
or with :func:`load_run`. ``run.json`` holds the resolved scenario, the legsim version, the
column names, the run status and the integrator statistics; it is written before the run starts
and rewritten when it ends.
"""

from __future__ import annotations

import contextlib
import json
import reprlib
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import __version__
from ..errors import InputError, SimulationError, check_flag, lookup, shown
from ..hybrid import Model, Result, event_dtype
from ..userfiles import output_dir, read_text, user_path

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["RunWriter", "RunData", "Columns", "load_run", "record_columns", "read_parquet", "run_params"]


def record_columns(model: Model | Result) -> list[str]:
    """Column names of the records table of ``model`` (a :class:`~legsim.hybrid.Model`, or a run's
    :class:`~legsim.hybrid.Result`): t, mode, the states, then the outputs (an output whose name repeats a
    state name is prefixed with ``out_``)."""
    if not isinstance(model, (Model, Result)):
        raise InputError(f"record_columns: 'model' is a {type(model).__name__}, expected a "
                         "legsim.hybrid.Model (a Robot's is robot.model) or a Result")
    taken = {"t", "mode", *model.state_names}
    outs = [f"out_{n}" if n in taken else n for n in model.output_names]
    return ["t", "mode", *model.state_names, *outs]


class RunWriter:
    """Sink for :func:`legsim.hybrid.simulate` that writes a run directory as the run goes.

    Used as a context manager (``with RunWriter(...) as writer: simulate(..., sinks=[writer])``),
    the records waiting are written and run.json gets a final status however the block ends: how the
    last run written ended (the engine tells its sinks: :meth:`run_ended`; "done" if no run told it),
    or :meth:`finish` called in the block with a status of the caller's; when the block raises, the
    engine's reason (a :class:`~legsim.errors.SimulationError`: "chattering", "interrupted", ...),
    "interrupted" (Ctrl-C outside the engine) or "failed" with the error's message."""

    def __init__(self, out_dir: str | Path, model: Model, metadata: dict[str, Any]):
        if not isinstance(model, Model):
            raise InputError(f"RunWriter: model = {type(model).__name__}, expected a legsim.hybrid.Model "
                             "(a Robot's is robot.model)")
        if not isinstance(metadata, Mapping):
            raise InputError(f"RunWriter: metadata = {metadata!r}, expected a mapping (a dict; {{}} for "
                             "none)")
        self.dir = user_path(out_dir, "RunWriter out_dir")
        self.model = model
        what = "the run's records (a new or an earlier run's one)"
        output_dir(self.dir, what)
        self.replaced = (self.dir / "run.json").is_file()
        """True when ``out_dir`` held an earlier run, whose records, events and figures are removed."""
        for sub in ("records", "events"):
            output_dir(self.dir / sub, what)
        stale = [p for sub in ("records", "events") for pattern in ("part-*.parquet", ".part-*.parquet.tmp")
                 for p in self.dir.glob(f"{sub}/{pattern}")]  # .tmp: a part a killed run was writing
        if self.replaced:  # figures of the earlier run would sit beside the new records
            stale += [f for f in self.dir.glob("plots/*") if f.suffix in (".png", ".gif", ".mp4", ".html")]
        for old in stale:
            old.unlink()
        self.columns = record_columns(model)
        self._event_dtype = event_dtype(model.nx)
        self.parts = 0
        self.rows = 0
        """Records written to disk so far."""
        self._rec: list[np.ndarray] = []
        self._modes: list[np.ndarray] = []
        self._events: list[np.ndarray] = []
        self._waiting = 0
        self._last_write = time.monotonic()
        self._ended: tuple[str, str, dict[str, Any]] = ("done", "", {})
        self.write_time_s = 0.0
        """Wall time spent writing parts and run.json [s]."""
        self.meta = {"legsim_version": __version__, "model": model.name,
                     "columns": self.columns, "state_names": list(model.state_names),
                     "output_names": list(model.output_names),
                     "guard_names": [g.name for g in model.guards],
                     "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "status": "running",
                     **metadata}
        self._write_meta()

    def _write_meta(self) -> None:
        tmp = self.dir / "run.json.tmp"
        tmp.write_text(json.dumps(self.meta, indent=2, default=_json_default))
        tmp.replace(self.dir / "run.json")

    def __call__(self, rec: np.ndarray, modes: np.ndarray, events: np.ndarray) -> None:
        """Take a chunk of records (n, 1 + nx + ny), their modes (n,) and events; a part file is
        written once :attr:`PART_BYTES` of records wait or :attr:`PART_SECONDS` passed since the
        last part (few, large parts: writing costs less than simulating; a bounded buffer: memory
        stays flat however long the run; a killed process loses at most about a second). The arrays are
        the engine's (float64 records, int64 modes, :func:`~legsim.hybrid.event_dtype` events), else an
        :class:`InputError` naming the one that is not."""
        width = len(self.columns) - 1
        if not (isinstance(rec, np.ndarray) and rec.dtype == np.float64 and rec.ndim == 2
                and rec.shape[1] == width):
            raise InputError(f"RunWriter: 'rec' = {shown(rec)}, expected the records (n, {width}) in "
                             "float64: t, the states, the outputs")
        if not (isinstance(modes, np.ndarray) and modes.dtype == np.int64 and modes.shape == rec.shape[:1]):
            raise InputError(f"RunWriter: 'modes' = {shown(modes)}, expected the records' modes "
                             f"({rec.shape[0]},) in int64")
        if not (isinstance(events, np.ndarray) and events.dtype == self._event_dtype and events.ndim == 1):
            raise InputError(f"RunWriter: 'events' = {shown(events)}, expected a 1-D array of "
                             f"legsim.hybrid.event_dtype({self.model.nx})")
        if rec.shape[0]:
            self._rec.append(rec)
            self._modes.append(modes)
            self._waiting += rec.nbytes
        if events.shape[0]:
            self._events.append(events)
        if self._waiting >= self.PART_BYTES or time.monotonic() - self._last_write >= self.PART_SECONDS:
            self.flush()

    PART_BYTES = 4 << 20
    PART_SECONDS = 1.0

    def flush(self, meta: bool = True) -> None:
        """Write the records and events waiting as one more part (and, with ``meta``, run.json's
        count)."""
        check_flag("RunWriter.flush", "meta", meta)
        self._last_write = w0 = time.monotonic()
        if not (self._rec or self._events):
            return
        pa, pq = _arrow_modules()
        if self._rec:
            rec = np.concatenate(self._rec) if len(self._rec) > 1 else self._rec[0]
            modes = np.concatenate(self._modes) if len(self._modes) > 1 else self._modes[0]
            by_column = np.ascontiguousarray(rec.T)
            cols = [by_column[0], modes, *by_column[1:]]
            self._write_part(pa.Table.from_arrays([_arrow(c) for c in cols], names=self.columns), "records",
                             use_dictionary=False)  # floats: a dictionary costs 3x the write time
            self.rows += rec.shape[0]
        if self._events:
            events = np.concatenate(self._events) if len(self._events) > 1 else self._events[0]
            names = [g.name for g in self.model.guards]
            ev = {"t": _arrow(events["t"]), "kind": _arrow(events["kind"]), "guard": _arrow(events["guard"]),
                  "guard_name": _strings([names[g] if 0 <= g < len(names) else "" for g in events["guard"]]),
                  "mode_before": _arrow(events["mode_before"]), "mode_after": _arrow(events["mode_after"])}
            for i, name in enumerate(self.model.state_names):
                ev[f"x_{name}"] = _arrow(events["x"][:, i])
            self._write_part(pa.Table.from_pydict(ev), "events", use_dictionary=["guard_name"])
        self._rec, self._modes, self._events, self._waiting = [], [], [], 0
        self.parts += 1
        self.meta["records_written"] = self.rows
        if meta:
            self._write_meta()
        self.write_time_s += time.monotonic() - w0

    def _write_part(self, table, folder: str, **options) -> None:
        """One Parquet part, whole or not at all: written beside its name, then renamed, so that a run
        killed while writing leaves no truncated part (readers take only ``part-*.parquet``)."""
        _, pq = _arrow_modules()
        path = self.dir / folder / f"part-{self.parts:05d}.parquet"
        tmp = path.with_name(f".{path.name}.tmp")
        pq.write_table(table, tmp, **options)
        tmp.replace(path)

    def __enter__(self) -> RunWriter:
        return self

    def run_ended(self, status: str, message: str, stats: dict[str, Any]) -> None:
        """How a run written here ended (:func:`legsim.hybrid.simulate` calls it): what leaving the
        ``with`` block writes into run.json, unless :meth:`finish` was called."""
        _check_ending("RunWriter.run_ended", status, message, stats)
        self._ended = (status, message, stats)

    def __exit__(self, kind, exc, tb) -> None:  # never suppresses the exception
        if self.meta.get("finished"):
            return
        if exc is None:
            self.finish(*self._ended)
        elif isinstance(exc, SimulationError):
            res = exc.result
            self.finish(res.status if res is not None else "failed", str(exc),
                        res.stats if res is not None else {})
        elif isinstance(exc, KeyboardInterrupt):  # outside the engine loop: while compiling or writing
            self.finish("interrupted", "interrupted by the user (while compiling or writing)", {})
        else:
            self.finish("failed", str(exc) if isinstance(exc, InputError) else f"{kind.__name__}: {exc}", {})

    def finish(self, status: str, message: str, stats: dict[str, Any]) -> None:
        """Write what waits, then record how the run ended. If writing what waits fails (Ctrl-C, a full
        disk), run.json still gets a final status, "interrupted" or "failed", saying so, and the error
        goes on. ``status`` a word ("done", "failed", ...), ``message`` a string, ``stats`` a dict."""
        _check_ending("RunWriter.finish", status, message, stats)
        written = self.rows
        try:
            self.flush(meta=False)
        except BaseException as exc:
            lost = sum(r.shape[0] for r in self._rec) - (self.rows - written)  # the events' part may fail
            self._rec, self._modes, self._events = [], [], []
            cause = ("interrupted by the user" if isinstance(exc, KeyboardInterrupt)
                     else f"{type(exc).__name__}: {exc}")
            self._end("interrupted" if isinstance(exc, KeyboardInterrupt) else "failed",
                      f"{cause} while writing the last {lost} records (not kept); the run had ended: "
                      f"{status}" + (f" ({message})" if message else ""), stats)
            raise
        self._end(status, message, stats)

    def _end(self, status: str, message: str, stats: dict[str, Any]) -> None:
        self.meta.update(status=status, message=message, stats={**stats, "write_time_s": self.write_time_s},
                         finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        self._write_meta()


def _check_ending(owner: str, status: Any, message: Any, stats: Any) -> None:
    """An :class:`InputError` naming ``owner`` unless ``status`` is a word, ``message`` a string and
    ``stats`` a mapping (how a run ended, for run.json)."""
    if not (isinstance(status, str) and status.strip()):
        raise InputError(f"{owner}: 'status' = {shown(status)}, expected a word such as 'done' or 'failed'")
    if not isinstance(message, str):
        raise InputError(f"{owner}: 'message' = {shown(message)}, expected a string ('' for none)")
    if not isinstance(stats, Mapping):
        raise InputError(f"{owner}: 'stats' = {shown(stats)}, expected a mapping of statistics ({{}} for "
                         "none)")


def _arrow_modules():
    """``(pyarrow, pyarrow.parquet)``, imported at the first write or read: a run starts simulating before
    it pays their import (0.07 s of a cached run's 0.5 s start)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa, pq


def read_parquet(path: Path, what: str = "table", **options) -> Any:
    """``pyarrow.parquet.read_table`` (``what`` "table") or ``read_metadata`` ("metadata") of a file legsim
    wrote, ``options`` passed on; a damaged file (truncated, overwritten) is an :class:`InputError`
    naming it instead of pyarrow's error."""
    path = user_path(path, "read_parquet: path")
    if not (isinstance(what, str) and what in ("table", "metadata")):
        raise InputError(f"read_parquet: 'what' = {shown(what)}, expected 'table' or 'metadata'")
    pa, pq = _arrow_modules()
    if not path.exists():
        raise InputError(f"read_parquet: path = '{path}' does not exist")
    try:
        return (pq.read_table if what == "table" else pq.read_metadata)(path, **options)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"read_parquet: path = '{path}' is not a readable Parquet file ({exc}); move it "
                         "away or write it again") from None


def _arrow(x: np.ndarray) -> pa.Array:
    """A float64 or int64 column (n,) as an Arrow array sharing its memory. (``pa.array`` would
    import pandas, when installed, on first use: 0.15 s, more than writing a long run takes.)"""
    x = np.ascontiguousarray(x)
    pa, _ = _arrow_modules()
    typ = {np.dtype(np.float64): pa.float64(), np.dtype(np.int64): pa.int64()}[x.dtype]
    return pa.Array.from_buffers(typ, len(x), [None, pa.py_buffer(x)])


def _strings(values: list[str]) -> pa.Array:
    """A UTF-8 string column from its offsets and bytes (no pandas import, as :func:`_arrow`)."""
    pa, _ = _arrow_modules()
    data = [v.encode() for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    return pa.Array.from_buffers(pa.string(), len(data), buffers)


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


class Columns(Mapping[str, np.ndarray]):
    """The columns of a run directory's ``records/`` or ``events/`` parts, each read from disk when
    asked for (only that column, and not kept: a long run's records never need to fit in memory
    at once; hold on to the arrays you use)."""

    def __init__(self, folder: Path):
        self._parts = sorted(user_path(folder, "Columns: folder").glob("part-*.parquet"))
        metas = [read_parquet(p, "metadata") for p in self._parts]  # and each part is whole
        self._rows = [m.num_rows for m in metas]
        self._names = list(metas[0].schema.names) if metas else []
        for part, m in zip(self._parts[1:], metas[1:], strict=True):
            if list(m.schema.names) != self._names:  # a part of another run copied in
                raise InputError(f"'{part}' has the columns {reprlib.repr(list(m.schema.names))}, unlike "
                                 f"'{self._parts[0].name}' ({reprlib.repr(self._names)}): the parts of one "
                                 "run have the same columns; move it away")

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._names:
            raise KeyError(name)
        pa, pq = _arrow_modules()
        first = pq.read_table(self._parts[0], columns=[name]).column(0)
        if not pa.types.is_primitive(first.type):  # strings: as objects
            return pa.chunked_array([pq.read_table(p, columns=[name]).column(0)
                                     for p in self._parts]).to_numpy()
        out = np.empty(sum(self._rows), dtype=first.to_numpy().dtype)
        k = 0
        for p, n in zip(self._parts, self._rows, strict=True):  # straight into one array, part by
            out[k:k + n] = pq.read_table(p, columns=[name]).column(0).to_numpy()  # part: one copy
            k += n
        return out

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


@dataclass
class RunData:
    """A run directory read back: its metadata, and its records and events as columns read on
    first access. ``t``, ``params``, ``state(name)`` and ``output(name)`` answer as a
    :class:`legsim.hybrid.Result` does, so a model's summary works on either."""

    meta: dict[str, Any]
    records: Mapping[str, np.ndarray]
    events: Mapping[str, np.ndarray]
    dir: Path = Path(".")
    """The run directory (for messages)."""

    @property
    def t(self) -> np.ndarray:
        """(n,) record times [s]."""
        return self.records["t"]

    def times(self, at_least: int, purpose: str) -> np.ndarray:
        """(n,) record times [s] of a run that has at least ``at_least`` records, else an
        :class:`InputError` naming the run, its status and ``purpose`` ("to plot")."""
        t = self.records["t"] if "t" in self.records else np.zeros(0)
        if t.size < at_least:
            have = "no records" if t.size == 0 else f"{t.size} record{'s' if t.size > 1 else ''}"
            raise InputError(f"{self.dir}: the run has {have} {purpose} (status {self.meta['status']!r}; it "
                             f"needs at least {at_least})")
        if t.dtype.kind != "f" or not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0.0):
            raise InputError(f"'{self.dir / 'records'}': the times t are not finite numbers that do not "
                             "decrease (a part copied twice, or another run's?)")
        return t

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Inside, an :class:`InputError` (a column or parameter the run lacks, a bad fps) names the run
        directory: ``with run.reading(): draw(run)``."""
        try:
            yield
        except InputError as exc:
            if str(self.dir) in str(exc):
                raise
            raise InputError(f"{self.dir}: {exc}") from None

    @property
    def state_names(self) -> tuple[str, ...]:
        return tuple(self.meta["state_names"])

    @property
    def output_names(self) -> tuple[str, ...]:
        return tuple(self.meta["output_names"])

    @property
    def params(self) -> dict[str, float]:
        """The run's parameters by name (a registered model's resolved scenario; else empty)."""
        return run_params(self.meta)

    def state(self, name: str) -> np.ndarray:
        """(n,) record column of one state."""
        lookup("state", name, self.state_names, self.meta["model"], ("output", self.output_names))
        return self.records[name]

    def output(self, name: str) -> np.ndarray:
        """(n,) record column of one output (an output named like a state is stored as ``out_NAME``)."""
        lookup("output", name, self.output_names, self.meta["model"], ("state", self.state_names))
        taken = {"t", "mode", *self.meta["state_names"]}
        return self.records[f"out_{name}" if name in taken else name]


RUN_KEYS = ("model", "columns", "state_names", "output_names", "status")
"""The keys of run.json that every reader of a run directory relies on."""


def load_run(out_dir: str | Path) -> RunData:
    """Read a run directory written by ``legsim run`` (or a :class:`RunWriter`)."""
    d = user_path(out_dir, "load_run: out_dir")
    meta_file = d / "run.json"
    if not meta_file.exists():
        if (d / "sweep.json").is_file():  # a sweep's folder: its runs, if kept, are below it
            runs = sorted(p.name for p in d.glob("runs/run-*") if (p / "run.json").is_file())
            kept = (f"its runs' records are in {d / 'runs'} ({runs[0]} ...): give one of those"
                    if runs else "its runs' records were not kept (legsim sweep ... --records keeps them)")
            raise InputError(f"load_run: out_dir = '{d}' is a sweep, not one run: its table is "
                             f"{d / 'sweep.parquet'}; {kept}")
        raise InputError(f"load_run: out_dir = '{d}' is not a legsim run directory: no run.json inside "
                         "(write one with: legsim run SCENARIO --out DIR)")
    try:
        meta = json.loads(read_text(meta_file, "run file"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{meta_file}: not valid JSON: {exc}") from None
    _check_run_file(meta, meta_file)
    records = Columns(d / "records")
    if records and list(records) != meta["columns"]:
        raise InputError(f"'{d / 'records'}' has the columns {reprlib.repr(list(records))}, but {meta_file} "
                         f"names {reprlib.repr(meta['columns'])}: the records are another run's")
    return RunData(meta, records, Columns(d / "events"), d)


def _check_run_file(meta: Any, meta_file: Path) -> None:
    """The fields of run.json that the readers of a run rely on, in the types a :class:`RunWriter` writes
    them; else an :class:`InputError` naming the file and the field (a run.json edited by hand, or
    another program's)."""
    missing = [k for k in RUN_KEYS if k not in meta] if isinstance(meta, dict) else list(RUN_KEYS)
    if missing:  # what every reader of a run relies on, written by every RunWriter since the first
        raise InputError(f"{meta_file} is not a legsim run file: no {', '.join(map(repr, missing))} in it")

    def refuse(name: str, value: Any, expected: str) -> None:
        raise InputError(f"{meta_file}: '{name}' = {reprlib.repr(value)}, expected {expected}")

    for key in ("model", "status"):
        if not isinstance(meta[key], str):
            refuse(key, meta[key], "a string")
    for key in ("columns", "state_names", "output_names"):
        names = meta[key]
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)
                and len(set(names)) == len(names)):
            refuse(key, names, "a list of distinct names")
    n = 2 + len(meta["state_names"]) + len(meta["output_names"])
    if meta["columns"][:2] != ["t", "mode"] or len(meta["columns"]) != n:
        refuse("columns", meta["columns"], f"'t', 'mode', then a column per state and per output ({n} names)")
    if meta.get("demo") is not None and not isinstance(meta["demo"], str):
        refuse("demo", meta["demo"], "a string")
    builder = meta.get("robot_builder")
    if builder is not None and not (isinstance(builder, dict) and isinstance(builder.get("function"), str)
                                    and isinstance(builder.get("keywords", {}), dict)):
        refuse("robot_builder", builder, "a table of the 'function' ('module:name') that builds the robot "
               "and its 'keywords' (a table)")
    scenario = meta.get("scenario")
    if scenario is None:
        return
    if not isinstance(scenario, dict):
        refuse("scenario", scenario, "a table")
    params = scenario.get("params")
    # numbers, NaN and infinities included: an assembled robot's parameters hold its open limits (±inf) and
    # unused slots (NaN) (before session 42 a NaN was refused: `legsim demo crr_leg_gamma_steps` failed)
    if params is not None and not (isinstance(params, dict) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in params.values())):
        refuse("scenario.params", params, "a table of numbers by parameter name")
    if scenario.get("robot") is not None and not isinstance(scenario["robot"], str):
        refuse("scenario.robot", scenario["robot"], "the path of the robot's hardware file")
    overrides = scenario.get("hardware_overrides")
    if overrides is not None and not isinstance(overrides, dict):
        refuse("scenario.hardware_overrides", overrides, "a table")


def run_params(meta: Mapping[str, Any]) -> dict[str, float]:
    """The parameters by name in a run's metadata (a registered model's resolved scenario; else empty)."""
    if not isinstance(meta, Mapping):
        raise InputError(f"run_params: 'meta' = {shown(meta)}, expected a run's metadata (a mapping, as "
                         "load_run(...).meta)")
    scenario = meta.get("scenario") or {}
    params = scenario.get("params") if isinstance(scenario, Mapping) else None
    return dict(params) if isinstance(params, Mapping) else {}
