"""Build the validation report: run the cases, write ``report.html`` (self-contained, figures as base64
PNG) and ``report.json`` (the rows, machine-readable).

A case that raises becomes an ``error`` row and the report still builds; :func:`build_report` says how
many errors there were (``legsim report`` then exits with status 1).
"""

from __future__ import annotations

import base64
import datetime
import html
import io
import json
import os
import platform
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
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
    if not only:
        return list(SOURCES)
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


def _run_section(key: str, echo: Callable[[str], None], with_figures: bool) -> SectionResult:
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
) -> Report:
    """Run the cases of ``only`` (source keys; all when empty), write OUT/report.html and OUT/report.json.

    Prints progress through ``echo``. InputError for an unknown source name."""
    keys = check_sources(only)
    out_dir = output_dir(out, "the report")
    date = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    machine = machine_info()
    sections = []
    for i, key in enumerate(keys, 1):
        echo(f"[{i}/{len(keys)}] {key}: {SOURCES[key][0]}")
        sections.append(_run_section(key, echo, with_figures))
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
