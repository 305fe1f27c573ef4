"""Build the validation report: run the cases, write ``report.html`` (self-contained, figures as base64
PNG) and ``report.json`` (the rows, machine-readable).

A case that raises becomes an ``error`` row and the report still builds; :func:`build_report` says how
many errors there were (``legsim report`` then exits with status 1).

The sources are independent (each case caches its measurements for the figures of its own source), so
they run in worker processes, one source per process at a time, on every core: the report's two long
sources (the contact scene, ~50 s, and the RATS range runs, ~40 s on a 2-core machine) run side by side.
The workers' progress lines come to the caller's ``echo`` through a queue; Ctrl-C stops the workers.
"""

from __future__ import annotations

import base64
import concurrent.futures as cf
import datetime
import html
import io
import json
import os
import platform
import queue
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._machine import check_workers, cpu_count, stop_workers, uninterrupted
from ..errors import InputError, check_echo, check_flag, shown
from ..userfiles import output_dir
from ._core import SOURCES, STATUSES, Row, cases, figures

__all__ = ["build_report", "Report", "machine_info", "check_sources"]


@dataclass
class SectionResult:
    """One source's rows, figures (title, base64 PNG or None, error text) and run time [s]."""

    key: str
    rows: list[Row] = field(default_factory=list)
    figures: list[tuple[str, str | None, str]] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Report:
    """What :func:`build_report` wrote: the sections, the number of errors and the two files."""

    sections: list[SectionResult]
    errors: int
    html_path: Path
    json_path: Path

    @property
    def rows(self) -> list[Row]:
        return [r for s in self.sections for r in s.rows]


def check_sources(only: Sequence[str] | None) -> list[str]:
    """The source keys to report (all when ``only`` is empty); InputError naming the valid ones."""
    if only is None or isinstance(only, (list, tuple)) and not only:
        return list(SOURCES)
    if not (isinstance(only, (list, tuple)) and all(isinstance(s, str) for s in only)):
        raise InputError(f"report: 'only' = {shown(only)}, expected None or a list of source names (valid: "
                         f"{', '.join(SOURCES)})")
    bad = [s for s in only if s not in SOURCES]
    if bad:
        raise InputError(
            f"unknown source {', '.join(repr(b) for b in bad)} for --only; valid names: {', '.join(SOURCES)}"
        )
    return [s for s in SOURCES if s in only]


def machine_info() -> dict[str, Any]:
    """Platform, CPU count, Python, numpy and numba versions, legsim's version."""
    import numba
    import numpy

    from .. import __version__

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "legsim": __version__,
    }


def _error_row(source: str, name: str, exc: BaseException) -> Row:
    return Row(
        id="—",
        quantity=f"case {name}",
        source="—",
        cite=SOURCES[source][2],
        legsim="—",
        tolerance="—",
        status="error",
        note=f"{type(exc).__name__}: {exc}",
        test="",
    )


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _run_section(key: str, echo: Callable[[str], None], with_figures: bool, place: str = "") -> SectionResult:
    """Run the cases and (``with_figures``) draw the figures of source ``key``, saying so through
    ``echo`` (its first line starts with ``place``, "[2/5]")."""
    echo(f"{place} {key}: {SOURCES[key][0]}".lstrip())
    sec = SectionResult(key)
    t0 = time.perf_counter()
    for c in cases(key):
        echo(f"  {key}: {c.name} ...")
        t = time.perf_counter()
        try:
            rows = c.func()
        except Exception as exc:  # a failing case is an error row; the report still builds
            echo(f"  {key}: {c.name} raised {type(exc).__name__}: {exc}")
            traceback.print_exc()
            rows = [_error_row(key, c.name, exc)]
        sec.rows.extend(rows)
        echo(f"  {key}: {c.name}: {len(rows)} rows ({time.perf_counter() - t:.1f} s)")
    if with_figures:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        for f in figures(key):
            echo(f"  {key}: figure '{f.title}' ...")
            try:
                fig = f.func()
                sec.figures.append((f.title, _png(fig), ""))
                plt.close(fig)
            except Exception as exc:
                echo(f"  {key}: figure '{f.title}' raised {type(exc).__name__}: {exc}")
                sec.figures.append((f.title, None, f"{type(exc).__name__}: {exc}"))
    sec.seconds = time.perf_counter() - t0
    return sec


_LINES: Any = None  # a worker's queue of progress lines for the parent (set by _init_worker)


def _init_worker(lines: Any) -> None:
    """A report worker: Ctrl-C is the parent's to handle; no second compiling process (the workers
    are the parallelism, as in ``legsim warmup``); progress lines go into ``lines``."""
    global _LINES
    import threading

    from tqdm import tqdm

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ["LEGSIM_BACKGROUND_COMPILE"] = "0"
    # a run's progress bar would create tqdm's multiprocessing lock, which a worker stopped by Ctrl-C
    # leaves to the resource tracker ("leaked semaphore" warning at exit): a thread lock does here
    tqdm.set_lock(threading.RLock())
    _LINES = lines


def _section_in_worker(key: str, with_figures: bool, place: str) -> SectionResult:
    return _run_section(key, _LINES.put, with_figures, place)


def _drain(lines: Any, echo: Callable[[str], None]) -> None:
    while True:
        try:
            echo(lines.get_nowait())
        except queue.Empty:
            return


def _run_in_workers(keys: Sequence[str], echo: Callable[[str], None], with_figures: bool,
                    workers: int) -> list[SectionResult]:
    """:func:`_run_section` of every key in ``workers`` spawned processes; the sections in ``keys``'
    order. A worker that dies (a crash in compiled code) leaves an error row for each source it had."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    lines = ctx.Queue()
    pool = cf.ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(lines,))
    with uninterrupted():  # the submits start the workers: Ctrl-C once the pool knows them
        futures = {key: pool.submit(_section_in_worker, key, with_figures, f"[{i}/{len(keys)}]")
                   for i, key in enumerate(keys, 1)}
    try:
        pending = set(futures.values())
        while pending:
            _, pending = cf.wait(pending, timeout=0.2)
            _drain(lines, echo)
    except BaseException:  # Ctrl-C: drop what is queued and stop the workers now
        stop_workers(pool)
        lines.close()
        raise
    pool.shutdown(wait=True)
    _drain(lines, echo)
    sections = []
    for key, fut in futures.items():
        try:
            sections.append(fut.result())
        except cf.process.BrokenProcessPool as exc:
            echo(f"  {key}: the process running it died: {exc}")
            sections.append(SectionResult(key, [_error_row(key, "(all)", exc)]))
    return sections


def _counts(rows: Sequence[Row]) -> dict[str, int]:
    return {s: sum(r.status == s for r in rows) for s in STATUSES}


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; max-width: 1400px; color: #222; }
table { border-collapse: collapse; width: 100%; font-size: 0.85em; margin-bottom: 1em; }
th, td { border: 1px solid #ccc; padding: 3px 6px; vertical-align: top; text-align: left; }
th { background: #eee; }
td.status { font-weight: bold; white-space: nowrap; }
tr.status-pass td.status { color: #176317; }
tr.status-fail td.status, tr.status-error td.status { color: #b00; }
tr.status-not-reproduced td.status { color: #b35900; }
tr.status-project-chosen-parameter td.status { color: #5a3d99; }
td.test, td.cite { font-family: monospace; font-size: 0.85em; }
td.test { word-break: break-all; max-width: 16em; }
td.note { max-width: 22em; }
body { max-width: 80em; }
.note { color: #555; }
figure { display: inline-block; margin: 0.5em; }
figcaption { font-size: 0.85em; color: #444; }
"""


def _summary_html(rows: Sequence[Row]) -> str:
    c = _counts(rows)
    return " · ".join(f"{html.escape(s)}: {n}" for s, n in c.items() if n or s != "error")


def _section_html(sec: SectionResult) -> str:
    from .contact import NOT_BUILT

    title, work, _ = SOURCES[sec.key]
    e = html.escape
    out = [
        f'<section id="{sec.key}"><h2>{e(title)}</h2>',
        f"<p>Source: {e(work)}. Run time {sec.seconds:.1f} s. "
        f"Summary: {_summary_html(sec.rows)}</p>",
    ]
    if sec.key == "contact":
        out.append(f'<p class="note">{e(NOT_BUILT)}</p>')
    out.append(
        "<table><tr><th>id</th><th>quantity</th><th>source</th><th>legsim</th><th>tolerance</th>"
        "<th>status</th><th>note</th><th>test</th></tr>"
    )
    for r in sec.rows:
        cls = "status-" + r.status.replace(" ", "-")
        out.append(
            f'<tr class="row {cls}"><td>{e(r.id)}</td><td>{e(r.quantity)}</td>'
            f'<td>{e(r.source)}</td><td>{e(r.legsim)}</td>'
            f'<td>{e(r.tolerance)}</td><td class="status">{e(r.status)}</td>'
            f'<td class="note">{e(r.note)}</td><td class="test">{e(r.test)}</td></tr>'
        )
    out.append("</table>")
    for fig_title, png, err in sec.figures:
        if png is None:
            out.append(f'<p class="note">Figure "{e(fig_title)}" failed: {e(err)}</p>')
        else:
            out.append(
                f'<figure><img alt="{e(fig_title)}" src="data:image/png;base64,{png}">'
                f"<figcaption>{e(fig_title)}</figcaption></figure>"
            )
    out.append("</section>")
    return "\n".join(out)


def _html(sections: Sequence[SectionResult], machine: dict[str, Any], date: str) -> str:
    rows = [r for s in sections for r in s.rows]
    e = html.escape
    mach = "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in machine.items())
    toc = " · ".join(f'<a href="#{s.key}">{e(s.key)}</a>' for s in sections)
    statuses = "".join(f"<li><b>{e(s)}</b></li>" for s in STATUSES)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>legsim validation report</title>
<style>{_CSS}</style></head><body>
<h1>legsim validation report</h1>
<p>legsim {e(str(machine.get("legsim")))}, built {e(date)}. Sections: {toc}</p>
<p><b>Summary</b> ({len(rows)} rows): {_summary_html(rows)}</p>
<p class="note">Each row compares a number published by a source with the value legsim computes now, by the
same code the named test asserts on; its id numbers the item in legsim's list of acceptance checks for that
source (report.json gives each row's place in it). Statuses:</p><ul class="note">{statuses}</ul>
<p class="note">pass/fail: judged against the source's tolerance; not reproduced: outside the source's band
(the test asserts this model's value and its docstring says why); project-chosen parameter: met only with a
parameter legsim chose (the source does not give it); error: the case raised.</p>
<h3>Machine</h3><table style="width:auto">{mach}</table>
{"".join(_section_html(s) for s in sections)}
</body></html>
"""


def build_report(
    out: str | os.PathLike = "legsim-report",
    only: Sequence[str] | None = None,
    *,
    echo: Callable[[str], None] = print,
    with_figures: bool = True,
    workers: int | None = None,
) -> Report:
    """Run the cases of ``only`` (source keys; all when empty), write OUT/report.html and OUT/report.json.

    Prints progress through ``echo``. The sources run in ``workers`` processes (default: one per CPU
    this process may use, at most one per source; 1: in this process, one after another).
    InputError for an unknown source name or a ``workers`` that is not a positive whole number."""
    workers = check_workers("report", workers)
    check_echo("report", echo)
    with_figures = check_flag("report", "with_figures", with_figures)
    keys = check_sources(only)
    out_dir = output_dir(out, "the report")
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    machine = machine_info()
    workers = max(1, min(workers or cpu_count(), len(keys)))
    if workers == 1:
        sections = [_run_section(key, echo, with_figures, f"[{i}/{len(keys)}]")
                    for i, key in enumerate(keys, 1)]
    else:
        echo(f"legsim report: {len(keys)} sources in {workers} processes")
        sections = _run_in_workers(keys, echo, with_figures, workers)
    rows = [r for s in sections for r in s.rows]
    errors = sum(r.status == "error" for r in rows) + sum(
        png is None for s in sections for _, png, _ in s.figures
    )
    html_path = out_dir / "report.html"
    html_path.write_text(_html(sections, machine, date), encoding="utf-8")
    data = {
        "legsim_version": machine["legsim"],
        "date": date,
        "machine": machine,
        "summary": _counts(rows),
        "sources": {
            s.key: {
                "title": SOURCES[s.key][0],
                "source": SOURCES[s.key][1],
                "acceptance_list": SOURCES[s.key][2],
                "seconds": round(s.seconds, 2),
                "summary": _counts(s.rows),
                "rows": [r.as_dict() for r in s.rows],
                "figures": [t for t, png, _ in s.figures if png is not None],
            }
            for s in sections
        },
    }
    json_path = out_dir / "report.json"
    json_path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    echo(f"{len(rows)} rows: " + ", ".join(f"{k} {v}" for k, v in _counts(rows).items() if v))
    echo(f"wrote {html_path} and {json_path}")
    return Report(sections, errors, html_path, json_path)
