"""``legsim report``: the validation report builds from the cases (legsim.validation), its HTML has a
section per requested source and a table row per case row, report.json parses, every row names a test
that exists, and a bad ``--only`` is a user error (exit 2). A fast subset (simsect, pneumatic) keeps this
quick; the other sources' test names are checked statically."""

from __future__ import annotations

import ast
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from legsim.cli import main
from legsim.errors import InputError
from legsim.validation import SOURCES, STATUSES, cases
from legsim.validation.cli import _SOURCE_KEYS

ROOT = Path(__file__).resolve().parents[1]
SUBSET = ["simsect", "pneumatic"]


def _test_functions(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def _node_exists(node: str) -> bool:
    path, _, name = node.partition("::")
    name = re.sub(r"\[.*\]$", "", name)
    return (ROOT / path).is_file() and name in _test_functions(path)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert main(["report", "--out", str(out), "--only", *SUBSET]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    return out, page, json.loads((out / "report.json").read_text())


def test_the_report_has_a_section_and_a_table_row_per_case_row(built):
    _, page, data = built
    assert list(data["sources"]) == SUBSET
    for key in SUBSET:
        rows = data["sources"][key]["rows"]
        assert rows, f"{key} has no row"
        assert f'<section id="{key}">' in page
        section = page.split(f'<section id="{key}">')[1].split("</section>")[0]
        assert section.count('<tr class="row ') == len(rows)
        assert all(r["status"] in STATUSES and r["status"] != "error" for r in rows)
        assert section.count('src="data:image/png;base64,') == len(data["sources"][key]["figures"]) >= 1
    for absent in set(SOURCES) - set(SUBSET):
        assert f'<section id="{absent}">' not in page
    assert data["summary"]["pass"] >= 10 and sum(data["summary"].values()) == sum(
        len(s["rows"]) for s in data["sources"].values())
    for key in ("platform", "cpu_count", "python", "numpy", "numba", "legsim"):
        assert key in data["machine"] and str(data["machine"][key]) in page
    assert data["date"] in page
    # the sources by their titles (issue 20), not by the developers' files
    assert "Source: U. Saranli, SimSect Hybrid Dynamical Simulation Environment" in page
    assert "Source: H. G. Daepp, Development of a Multi-Platform Simulation" in page
    assert "digest" not in page.lower() and ".md" not in page


def test_honest_rows_say_what_is_not_reproduced(built):
    _, _, data = built
    rows = data["sources"]["pneumatic"]["rows"]
    a4 = next(r for r in rows if r["id"] == "A4" and "6.5 V" in r["quantity"])
    assert a4["status"] == "not reproduced" and "N" in a4["legsim"] and "above the band" in a4["note"]
    a5 = next(r for r in rows if r["id"] == "A5" and "τ" in r["quantity"])
    assert a5["status"] == "pass" and "identified" in a5["note"]


def test_every_row_names_an_existing_test(built):
    _, _, data = built
    for s in data["sources"].values():
        for r in s["rows"]:
            assert _node_exists(r["test"]), r


def test_every_test_name_in_the_case_modules_exists():
    """Static check of all sources (the subset above runs only two): every 'tests/…py::test_…' literal, and
    every 'test_…' literal beside a 'tests/…py::' prefix, names a test function of that file."""
    import legsim.validation as v

    for module in Path(v.__file__).parent.glob("*.py"):
        consts = [n.value for n in ast.walk(ast.parse(module.read_text(encoding="utf-8")))
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        files = {c.split("::")[0] for c in consts if re.match(r"^tests/test_\w+\.py::", c)}
        for c in consts:
            if re.match(r"^tests/test_\w+\.py::test_\w+", c) and not c.endswith("_"):
                assert _node_exists(c), (module.name, c)
            elif re.fullmatch(r"test_\w+(\[.*\])?", c) and not c.endswith("_"):
                name = re.sub(r"\[.*\]$", "", c)
                assert any(name in _test_functions(f) for f in files), (module.name, c)


def test_every_source_has_cases_and_the_cli_lists_the_sources():
    assert tuple(SOURCES) == _SOURCE_KEYS
    for key in SOURCES:
        assert cases(key), f"no case for {key}"


def test_an_unknown_only_name_is_a_user_error_listing_the_valid_names(tmp_path):
    cmd = [sys.executable, "-m", "legsim", "report", "--out", str(tmp_path), "--only", "slip"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "'slip'" in proc.stderr and all(k in proc.stderr for k in SOURCES)
    assert not (tmp_path / "report.html").exists()


def test_a_source_name_from_python_that_is_not_one_is_refused_naming_the_valid_ones(tmp_path):
    """Before session 43 ``figures("rat")`` and ``cases("rat")`` listed nothing, and ``build_report(
    only="rats")`` took the string's letters as five unknown sources."""
    from legsim.validation import figures
    from legsim.validation.report import build_report

    for find in (figures, cases):
        with pytest.raises(InputError, match=f"{find.__name__}: .*'rat'.*did you mean 'rats'"):
            find("rat")
        with pytest.raises(InputError, match=f"{find.__name__}: source 3 is not a name"):
            find(3)
        assert find("rats") and len(find(None)) > len(find("rats"))
    for only in ("rats", 3, ["rats", 3]):
        with pytest.raises(InputError, match="report: 'only' = .*, expected None or a list of source names"):
            build_report(tmp_path / "r", only)
    assert not (tmp_path / "r").exists()


def test_a_case_that_raises_is_an_error_row_and_the_command_exits_1(tmp_path, monkeypatch, capsys):
    from legsim.validation import _core

    def broken():
        raise RuntimeError("deliberately broken case")

    monkeypatch.setattr(_core, "_CASES", [*_core._CASES, _core.Case("simsect", "broken", broken)])
    monkeypatch.setattr(_core, "_FIGURES", [])
    assert main(["report", "--out", str(tmp_path), "--only", "simsect"]) == 1
    data = json.loads((tmp_path / "report.json").read_text())
    err = [r for r in data["sources"]["simsect"]["rows"] if r["status"] == "error"]
    assert len(err) == 1 and "deliberately broken case" in err[0]["note"]
    assert "deliberately broken case" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "simsect: broken" in capsys.readouterr().out


def test_the_sources_run_in_worker_processes_with_the_rows_of_a_serial_run(built, tmp_path):
    """The fixture's report ran its two sources in two processes (the default on a machine with two
    CPUs or more); run in this process, one source after the other, the rows are the same."""
    from legsim.validation.report import build_report

    _, _, data = built
    lines: list[str] = []
    rep = build_report(tmp_path, SUBSET, echo=lines.append, with_figures=False, workers=1)
    assert [r.as_dict() for r in rep.rows] == [r for s in data["sources"].values() for r in s["rows"]]
    assert lines[0].startswith("[1/2] simsect") and not any("processes" in s for s in lines)
    with pytest.raises(InputError, match=r"report: 'workers' = 0, expected a whole number in \[1, 1024\]"):
        build_report(tmp_path, SUBSET, workers=0)
    # before session 43 these ran the report (any value of with_figures counted as yes; a non-function echo
    # failed at the first line printed)
    with pytest.raises(InputError, match=r"report: 'with_figures' = 'no', expected True or False"):
        build_report(tmp_path / "b", SUBSET, with_figures="no")
    with pytest.raises(InputError, match=r"report: 'echo' = 'print', expected a function of one string"):
        build_report(tmp_path / "b", SUBSET, echo="print")
    assert not (tmp_path / "b").exists()


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc (Linux)")
def test_ctrl_c_stops_the_report_and_its_workers_in_one_line(tmp_path, spawn):
    """Ctrl-C while both workers run their sources: exit status 130, one line on stderr (no traceback,
    no warning of a leaked lock), no report written, no worker left running."""
    cmd = [sys.executable, "-m", "legsim", "report", "--out", str(tmp_path), "--only", "rats", "contact",
           "--workers", "2"]
    proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    while "tipping_range ..." not in seen or "primitive_scene ..." not in seen:  # both in their long case
        line = proc.stdout.readline()
        assert line, f"the report ended before Ctrl-C could reach it: {seen}{proc.stderr.read()}"
        seen += line
    workers = [c for c in _children(proc.pid) if _running(c)]
    assert len(workers) >= 2, workers  # the two workers (and the queue's process tracker)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and stderr == "legsim: interrupted\n", stderr
    assert not (tmp_path / "report.json").exists()
    deadline = time.monotonic() + 10
    while any(_running(c) for c in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_running(c) for c in workers)
