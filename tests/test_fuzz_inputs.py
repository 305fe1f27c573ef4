"""Property-based fuzzing of everything a user types (issue 20 §3): TOML scenarios, hardware
files, SimSect init files and command lines. Whatever the input, legsim either accepts it or
raises :class:`InputError` whose message names the file (and argparse's usage errors exit 2):
never another exception, never a traceback."""

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from legsim.assembly.hardware import parse_hardware
from legsim.cli import SCENARIO_DIR, main
from legsim.errors import InputError
from legsim.scenario import load_scenario
from legsim.simsect.runner import SAMPLE_RC, load_simsect

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

TOKENS = ["0", "-1", "1e9", "-7.5", "nan", "inf", "-inf", "2.5", "true", "false", '"x"', '"slip"', '""',
          "[1, 2]", "[]", '["all"]', "{ a = 1 }", "{}", '"hopper.urdf"', "1e-300", "12345678901234567890"]
"""Replacement values: wrong types, out-of-range numbers, non-finite numbers, odd structures."""


@st.composite
def mutated(draw, text: str):
    """``text`` with a few lines changed: mostly a value replaced (so that most cases pass the TOML
    syntax and reach legsim's own checks), else a line deleted or duplicated, a key misspelt, a
    table header broken, or garbage inserted."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value"] * 5 + ["delete", "duplicate", "key", "header", "garbage"]))
        line = lines[i]
        if action == "value" and "=" in line:
            lines[i] = line.split("=", 1)[0] + "= " + draw(st.sampled_from(TOKENS))
        elif action == "delete":
            del lines[i]
            if not lines:
                lines = [""]
        elif action == "duplicate":
            lines.insert(i, line)
        elif action == "key" and "=" in line:
            key = line.split("=", 1)[0].strip()
            lines[i] = key[::-1] + "x =" + line.split("=", 1)[1]
        elif action == "header":
            lines[i] = "[" + draw(st.sampled_from(["params", "sensors.x", "actuators", "initial", "zz", ""]))
        elif action == "garbage":
            lines.insert(i, draw(st.text(alphabet="ab=[]{}\"#.,-1 ", max_size=12)))
    return "\n".join(lines) + "\n"


def _named(exc: InputError, name: str) -> None:
    assert name in str(exc), f"the message does not name {name}: {exc}"
    assert "Traceback" not in str(exc)


@pytest.mark.parametrize("scenario", ["slip_run.toml", "hexapod_walk.toml", "hopper.toml"])
@FUZZ
@given(data=st.data())
def test_any_mutation_of_a_bundled_scenario_is_accepted_or_refused_naming_the_file(tmp_path, scenario, data):
    text = data.draw(mutated((SCENARIO_DIR / scenario).read_text()))
    path = tmp_path / f"fuzz_{scenario}"
    for extra in ("hopper_hardware.toml", "hopper.urdf", "hopper_controller.py"):
        target = tmp_path / extra
        if not target.exists():
            target.write_text((SCENARIO_DIR / extra).read_text())
    path.write_text(text)
    try:
        load_scenario(path)
    except InputError as exc:
        _named(exc, path.name)


@FUZZ
@given(data=st.data())
def test_any_mutation_of_a_hardware_file_is_accepted_or_refused_naming_the_file(data):
    text = data.draw(mutated((SCENARIO_DIR / "hopper_hardware.toml").read_text()))
    try:
        parse_hardware(text, "fuzz_hardware.toml", SCENARIO_DIR)
    except InputError as exc:
        _named(exc, "fuzz_hardware.toml")


@FUZZ
@given(data=st.data())
def test_any_mutation_of_a_simsect_init_file_is_accepted_or_refused_naming_the_file(tmp_path, data):
    text = data.draw(mutated(SAMPLE_RC.read_text()))
    path = tmp_path / "fuzz.rc"
    path.write_text(text)
    try:
        load_simsect(path)
    except InputError as exc:
        _named(exc, "fuzz.rc")


ARGS = ["--out", "o", "-q", "--plot", "missing.toml", "s.toml", "-c", "missing.rc", "--fps", "-3", "abc",
        "--speed", "nan", "--out-dir", "f", "slip", "u4", "--grid", "params.k=1,x", "--samples", "-2",
        "--workers", "0", "stribeck-tanh", "missing.csv", "--fix", "f_s", "--help", "runs"]


@FUZZ
@given(command=st.sampled_from(["run", "simsect", "plot", "animate", "models", "mobility", "fit",
                                "sweep", "demo", "sil", "nonsense"]),
       args=st.lists(st.sampled_from(ARGS), max_size=5))
def test_any_command_line_exits_with_a_status_and_no_traceback(tmp_path, monkeypatch, capsys, command, args):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text('model = "slip"\nt_final = -1\n')  # a scenario that is refused
    (tmp_path / "f").write_text("a file where a directory is expected")
    argv = [command, *args]
    if command == "demo":
        argv = ["demo", "no_such_demo", *args]  # never the real (long) demo
    if command == "sweep" and "s.toml" not in args:
        argv = ["sweep", "missing.toml", *args]
    if command == "sil":  # no controller answers: it must give up quickly, with a message
        argv = ["sil", "--wait", "0.05", "--duration", "0.05", *args]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage errors (2) and --help (0)
        code = exc.code
    out = capsys.readouterr()
    assert isinstance(code, int) and code in (0, 1, 2)
    assert "Traceback" not in out.err and "Traceback" not in out.out
    if code == 2 and not re.search(r"usage:", out.err):
        assert out.err.startswith("legsim: error: ") and out.err.count("\n") == 1


# ------------------------------------------------------------------------------- run directories
RUN_VALUES = [0, -1, 2.5, 1e300, float("nan"), True, "", "x", "slip", "hexapod", "crr_leg", "bouncing_ball",
              [], ["t", "mode"], [1, 2], {}, {"a": 1}, {"params": 5}, {"params": {"k": "a"}}, None,
              "/no/such/hardware.toml"]
"""Replacement values in run.json: wrong types, other models' names, odd structures."""

RECORD_DAMAGE = ["truncated", "deleted", "empty", "copied twice", "another run's part", "records as events"]


@pytest.fixture(scope="module")
def finished_runs(tmp_path_factory):
    """Run directories written by ``legsim run``: the SLIP (a registered model, its own scene and
    animation) and the hopper (a robot from a hardware file, rebuilt by the viewer)."""
    base = tmp_path_factory.mktemp("runs")
    for name in ("slip_run", "hopper"):
        assert main(["run", str(SCENARIO_DIR / f"{name}.toml"), "--out", str(base / name), "-q"]) == 0
    return base


def _json_paths(node, prefix=()):
    """Every key path of a JSON document (the first 5 items of a list)."""
    yield prefix
    items = node.items() if isinstance(node, dict) else enumerate(node[:5]) if isinstance(node, list) else ()
    for key, child in items:
        yield from _json_paths(child, (*prefix, key))


def _edit(doc, path, value=None, delete=False) -> None:
    """Set (or delete) the item at key ``path`` of a JSON document, if an earlier edit left it there."""
    try:
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if delete:
            del parent[path[-1]]
        else:
            parent[path[-1]] = value
    except (KeyError, IndexError, TypeError):
        pass


READ_KEYS = ("model", "columns", "state_names", "output_names", "status", "scenario", "demo", "robot_builder")
"""The keys of run.json that the readers of a run use."""


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@pytest.mark.filterwarnings("error::RuntimeWarning")
@given(data=st.data())
def test_any_damage_to_a_run_directory_is_read_or_refused_naming_the_run(finished_runs, tmp_path_factory,
                                                                         data):
    """A run.json edited by hand or a records part damaged, copied or deleted: ``legsim plot``, ``view
    --html`` and ``animate`` draw the run or refuse it with a message naming the run directory."""
    import json
    import shutil

    from legsim.viz.animate import animate_run
    from legsim.viz.plots import plot_run
    from legsim.viz.viewer import export_html

    name = data.draw(st.sampled_from(["slip_run", "hopper"]))
    run = tmp_path_factory.mktemp("damaged") / name
    shutil.copytree(finished_runs / name, run)
    if data.draw(st.booleans()):
        meta = json.loads((run / "run.json").read_text())
        used = [p for p in _json_paths(meta) if p and p[0] in READ_KEYS]
        for _ in range(data.draw(st.integers(1, 3))):
            path = data.draw(st.sampled_from(used))
            if data.draw(st.integers(0, 9)) < 7:
                _edit(meta, path, data.draw(st.sampled_from(RUN_VALUES)))
            else:
                _edit(meta, path, delete=True)
        (run / "run.json").write_text(json.dumps(meta))
    else:
        part = run / "records" / "part-00000.parquet"
        damage = data.draw(st.sampled_from(RECORD_DAMAGE))
        if damage == "truncated":
            part.write_bytes(part.read_bytes()[:data.draw(st.integers(0, 2000))])
        elif damage == "deleted":
            part.unlink()
        elif damage == "empty":
            part.write_bytes(b"")
        elif damage == "copied twice":
            shutil.copy(part, part.with_name("part-00001.parquet"))
        elif damage == "another run's part":
            other = "hopper" if name == "slip_run" else "slip_run"
            shutil.copy(finished_runs / other / "records" / "part-00000.parquet",
                        part.with_name("part-00001.parquet"))
        else:
            shutil.copy(part, run / "events" / "part-00001.parquet")
    reader = data.draw(st.sampled_from(["plot", "view --html", "animate"]))
    try:
        if reader == "plot":
            plot_run(run)
        elif reader == "view --html":
            export_html(run, run / "replay.html")
        else:
            animate_run(run, run / "replay.gif", fps=2)
    except InputError as exc:
        _named(exc, str(run))
