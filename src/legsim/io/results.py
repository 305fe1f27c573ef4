"""A run directory: ``records/part-NNNNN.parquet``, ``events/part-NNNNN.parquet``, ``run.json``.

Each chunk of records the engine hands over becomes one complete Parquet file, so whatever
happens to the process, every chunk written so far can be read back. Read the records with
``pandas.read_parquet(DIR / "records")`` or ``polars.read_parquet(f"{DIR}/records/*.parquet")``,
or with :func:`load_run`. ``run.json`` holds the resolved scenario, the legsim version, the
column names, the run status and the integrator statistics; it is written before the run starts
and rewritten when it ends.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..errors import InputError
from ..hybrid import Model

__all__ = ["RunWriter", "RunData", "load_run", "record_columns"]


def record_columns(model: Model) -> list[str]:
    """Column names of the records table: t, mode, the states, then the outputs (an output whose
    name repeats a state name is prefixed with ``out_``)."""
    taken = {"t", "mode", *model.state_names}
    outs = [f"out_{n}" if n in taken else n for n in model.output_names]
    return ["t", "mode", *model.state_names, *outs]


class RunWriter:
    """Sink for :func:`legsim.hybrid.simulate` that writes a run directory as the run goes."""

    def __init__(self, out_dir: str | Path, model: Model, metadata: dict[str, Any]):
        self.dir = Path(out_dir)
        self.model = model
        (self.dir / "records").mkdir(parents=True, exist_ok=True)
        (self.dir / "events").mkdir(parents=True, exist_ok=True)
        for old in [*self.dir.glob("records/part-*.parquet"), *self.dir.glob("events/part-*.parquet")]:
            old.unlink()
        self.columns = record_columns(model)
        self.parts = 0
        self.rows = 0
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
        nx = self.model.nx
        if rec.shape[0]:
            cols = {"t": rec[:, 0], "mode": modes}
            for i, name in enumerate(self.columns[2:2 + nx]):
                cols[name] = rec[:, 1 + i]
            for i, name in enumerate(self.columns[2 + nx:]):
                cols[name] = rec[:, 1 + nx + i]
            pq.write_table(pa.table(cols), self.dir / "records" / f"part-{self.parts:05d}.parquet")
        if events.shape[0]:
            names = [g.name for g in self.model.guards]
            ev = {"t": events["t"], "kind": events["kind"], "guard": events["guard"],
                  "guard_name": [names[g] if 0 <= g < len(names) else "" for g in events["guard"]],
                  "mode_before": events["mode_before"], "mode_after": events["mode_after"]}
            for i, name in enumerate(self.model.state_names):
                ev[f"x_{name}"] = events["x"][:, i]
            pq.write_table(pa.table(ev), self.dir / "events" / f"part-{self.parts:05d}.parquet")
        self.parts += 1
        self.rows += rec.shape[0]
        self.meta["records_written"] = self.rows
        self._write_meta()

    def finish(self, status: str, message: str, stats: dict[str, Any]) -> None:
        """Record how the run ended."""
        self.meta.update(status=status, message=message, stats=stats,
                         finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        self._write_meta()


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


@dataclass
class RunData:
    """A run directory read back: metadata, records and events as column dictionaries."""

    meta: dict[str, Any]
    records: dict[str, np.ndarray]
    events: dict[str, np.ndarray]

    @property
    def t(self) -> np.ndarray:
        return self.records["t"]


def _read_parts(folder: Path) -> dict[str, np.ndarray]:
    parts = sorted(folder.glob("part-*.parquet"))
    if not parts:
        return {}
    table = pa.concat_tables([pq.read_table(p) for p in parts])
    return {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}


def load_run(out_dir: str | Path) -> RunData:
    """Read a run directory written by ``legsim run`` (or a :class:`RunWriter`)."""
    d = Path(out_dir)
    meta_file = d / "run.json"
    if not meta_file.is_file():
        raise InputError(f"'{d}' is not a legsim run directory: no run.json inside "
                         "(write one with: legsim run SCENARIO --out DIR)")
    try:
        meta = json.loads(meta_file.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(f"{meta_file}: not valid JSON: {exc}") from None
    return RunData(meta, _read_parts(d / "records"), _read_parts(d / "events"))
