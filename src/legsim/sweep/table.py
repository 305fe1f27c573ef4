"""A sweep's output directory: ``sweep.json`` (the spec), ``sweep.parquet`` (one row per run), and
while it runs ``parts/part-NNNNN.parquet`` (one complete file per finished batch).

Rows are written as batches finish (one part per second at most), so an interrupted sweep keeps every
finished run, and a killed one all but its last second;
at the end (also after Ctrl-C) the parts are merged into ``sweep.parquet``, sorted by ``run_id``.
Running the same spec into the same directory again skips the run_ids already in the table; a
different spec there is refused unless the caller asks to overwrite. Read the table with
:func:`load_sweep`, ``pandas.read_parquet(OUT / "sweep.parquet")`` or polars.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError, check_flag, shown
from ..io.results import read_parquet
from ..userfiles import output_dir, read_text, user_path

__all__ = ["SweepDir", "load_sweep", "spec_hash", "FIRST_COLUMNS"]

FORMAT = "legsim-sweep/1"
FIRST_COLUMNS = ("run_id",)
AFTER_VARIATION = ("seed", "status", "message")
LAST_COLUMNS = ("t_end", "steps", "rejected", "fevals", "events", "wall_time_s")


def spec_hash(spec: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of what determines the table (not how or where it runs): ``spec`` a
    dict (as :func:`~legsim.sweep.run_sweep` writes into ``sweep.json``)."""
    _check_spec("spec_hash", spec)
    text = json.dumps(spec, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()



def _check_spec(owner: str, spec: Any) -> None:
    """An :class:`InputError` naming ``owner`` unless ``spec`` is a dict with string keys."""
    if not (isinstance(spec, dict) and all(isinstance(k, str) for k in spec)):
        raise InputError(f"{owner}: 'spec' = {shown(spec)}, expected a sweep's spec (a dict of what "
                         "determines its table: scenario, variations, seed, outputs, ...)")


def _merge(tables: Sequence[Any], order: Sequence[str] = ()) -> Any:
    """Tables concatenated (columns missing in one filled with nulls, int promoted to float), one row
    per run_id (the first), sorted by run_id, columns in the table's order."""
    import pyarrow as pa

    tables = [t for t in tables if t.num_rows]
    if not tables:
        return pa.table({"run_id": pa.array([], pa.int64())})
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # a column of numbers here, of strings there
        table = pa.concat_tables([_as_strings(t, tables) for t in tables], promote_options="permissive")
    ids = table.column("run_id").to_pylist()
    first: dict[int, int] = {}
    for i, r in enumerate(ids):
        first.setdefault(r, i)
    if len(first) < len(ids):
        table = table.take(sorted(first.values()))
    table = table.sort_by("run_id")
    names = table.column_names
    head = [c for c in (*FIRST_COLUMNS, *order, *AFTER_VARIATION) if c in names]
    tail = [c for c in LAST_COLUMNS if c in names]
    middle = [c for c in names if c not in head and c not in tail]
    outputs = [c for c in middle if "@" in c]
    rest = [c for c in middle if "@" not in c]
    return table.select([*head, *outputs, *rest, *tail])


class SweepDir:
    """The output directory of one sweep spec.

    Parameters
    ----------
    out : the directory (created if needed).
    spec : the JSON-able spec (scenario data, variations, seed, outputs, ...); its hash is the
        sweep's identity.
    overwrite : replace a different sweep found in ``out`` (its table, parts and run records)
        instead of refusing with an InputError.
    keys : the varied keys (strings), the table's variation columns in order.
    """

    flush_seconds = 1.0
    """Rows finished within this time [s] go into one part file."""

    def __init__(self, out: str | Path, spec: dict[str, Any], *, overwrite: bool = False,
                 keys: Sequence[str] = ()):
        self.dir = user_path(out, "SweepDir: out")
        _check_spec("SweepDir", spec)
        overwrite = check_flag("SweepDir", "overwrite", overwrite)
        if not (isinstance(keys, (list, tuple)) and all(isinstance(k, str) for k in keys)):
            raise InputError(f"SweepDir: 'keys' = {shown(keys)}, expected a list of the varied keys "
                             "(strings)")
        self.spec = spec
        self.keys = tuple(keys)
        self.hash = spec_hash(spec)
        output_dir(self.dir, "the sweep")
        meta_file = self.dir / "sweep.json"
        old = self._old_meta(meta_file)
        if old is not None and old.get("hash") != self.hash:
            if not overwrite:
                raise InputError(
                    f"'{self.dir}' holds a different sweep ({_difference(old.get('spec', {}), spec)}); "
                    "give another output directory, or overwrite it (overwrite=True, --overwrite)")
            self.clear()
            old = None
        output_dir(self.dir / "parts", "the sweep")
        self.meta: dict[str, Any] = old if old is not None else {
            "format": FORMAT, "hash": self.hash, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "spec": spec}
        self._part = max((int(p.stem.split("-")[1]) for p in self._parts()), default=-1) + 1
        self._pending: list[dict[str, Any]] = []
        self._flushed = time.monotonic()

    @staticmethod
    def _old_meta(meta_file: Path) -> dict[str, Any] | None:
        if not meta_file.exists():
            return None
        try:
            meta = json.loads(read_text(meta_file, "sweep file"))
        except json.JSONDecodeError as exc:
            raise InputError(f"{meta_file}: not valid JSON ({exc}); remove it or overwrite the sweep") \
                from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise InputError(f"{meta_file} is not a legsim sweep file; give another output directory")
        return meta

    def clear(self) -> None:
        """Delete this directory's sweep files (table, parts, run records, sweep.json), nothing else."""
        for name in ("sweep.parquet", "sweep.json"):
            (self.dir / name).unlink(missing_ok=True)
        for name in ("parts", "runs"):
            shutil.rmtree(self.dir / name, ignore_errors=True)

    def _parts(self) -> list[Path]:
        return sorted((self.dir / "parts").glob("part-*.parquet"))

    def write_meta(self, **fields: Any) -> None:
        """Update ``sweep.json`` (written whole to a temporary file, then renamed)."""
        self.meta.update(fields)
        tmp = self.dir / "sweep.json.tmp"
        tmp.write_text(json.dumps(self.meta, indent=1, default=str))
        tmp.replace(self.dir / "sweep.json")

    def done_ids(self) -> set[int]:
        """run_ids with a row in the table or in a part."""
        ids: set[int] = set()
        for path in [self.dir / "sweep.parquet", *self._parts()]:
            if path.is_file():
                ids.update(read_parquet(path, columns=["run_id"]).column("run_id").to_pylist())
        return ids

    def add_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        """Keep finished rows; they are written as one part when ``flush_seconds`` have passed since the
        last part (so a quick sweep does not spend the parent's time writing a file per batch), and
        by :meth:`flush`."""
        self._pending.extend(rows)
        if time.monotonic() - self._flushed >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        """Write the kept rows as one new complete part file."""
        rows, self._pending = self._pending, []
        self._flushed = time.monotonic()
        self.write_rows(rows)

    def write_rows(self, rows: Iterable[dict[str, Any]]) -> None:
        """Write rows as one new complete part file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = list(rows)
        if not rows:
            return
        path = self.dir / "parts" / f"part-{self._part:05d}.parquet"
        tmp = path.with_suffix(".tmp")
        names = list(dict.fromkeys(k for r in rows for k in r))  # every row's keys (rows differ)
        pq.write_table(pa.table({n: _array([r.get(n) for r in rows]) for n in names}), tmp)
        tmp.replace(path)
        self._part += 1

    def consolidate(self) -> Any:
        """Merge the parts into ``sweep.parquet`` (sorted by run_id), delete them, return the table."""
        import pyarrow.parquet as pq

        self.flush()
        parts = self._parts()
        main = self.dir / "sweep.parquet"
        tables = ([read_parquet(main)] if main.is_file() else []) + [read_parquet(p) for p in parts]
        table = _merge(tables, self.keys)
        tmp = self.dir / "sweep.parquet.tmp"
        pq.write_table(table, tmp)
        tmp.replace(main)
        for p in parts:
            p.unlink()
        return table


def _array(values: list[Any]) -> Any:
    """A column of one row per run: Arrow's type for the values, strings if they mix types."""
    import pyarrow as pa

    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        return pa.array([None if v is None else str(v) for v in values], pa.string())


def _as_strings(table: Any, tables: Sequence[Any]) -> Any:
    """``table`` with every column whose type differs between ``tables`` (nulls aside) as strings."""
    import pyarrow as pa

    types: dict[str, set[Any]] = {}
    for t in tables:
        for f in t.schema:
            if not pa.types.is_null(f.type):
                types.setdefault(f.name, set()).add(f.type)
    for name in table.column_names:
        if len(types.get(name, ())) > 1:
            i = table.column_names.index(name)
            table = table.set_column(i, name, table.column(name).cast(pa.string()))
    return table


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What differs between two specs, in words."""
    diff = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "another spec" if not diff else "it differs in " + ", ".join(diff)


def load_sweep(out: str | Path) -> Any:
    """A sweep's table (``pyarrow.Table``, one row per finished run, sorted by run_id), including rows
    of a sweep still running or killed before it merged its parts."""
    d = user_path(out, "load_sweep: out")
    meta_file = d / "sweep.json"
    if not meta_file.exists():
        raise InputError(f"load_sweep: out = '{d}' is not a legsim sweep directory: no sweep.json inside "
                         "(make one with: legsim sweep SCENARIO --out DIR ...)")
    meta = SweepDir._old_meta(meta_file) or {}
    files = [d / "sweep.parquet"] if (d / "sweep.parquet").is_file() else []
    files += sorted((d / "parts").glob("part-*.parquet"))
    return _merge([read_parquet(p) for p in files], meta.get("spec", {}).get("keys", ()))
