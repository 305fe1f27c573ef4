"""Parameter sweeps (issue 20 §4): variations of a scenario on local processes, in-process and on Ray,
into one Parquet table; validation, reproducibility, resume, failures, records, the CLI."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from legsim.cli import SCENARIO_DIR, main
from legsim.errors import InputError, LegsimError
from legsim.io import load_run
from legsim.sweep import Sweep, apply_variation, load_sweep, resume_sweep, run_sweep
from legsim.sweep.cli import parse_grid, parse_range, parse_runs, read_variations

SLIP = SCENARIO_DIR / "slip_run.toml"
HOPPER = SCENARIO_DIR / "hopper.toml"
HEXAPOD = SCENARIO_DIR / "hexapod_walk.toml"
TIMING = ("wall_time_s",)  # the only columns that may differ between two executions of one spec
QUIET = {"progress": False, "echo": lambda s: None}


def slip_sweep(**kw):
    """12 short SLIP runs: spring stiffness x forward speed, 0.5 s each."""
    grid = {"params.k": [800.0, 1000.0, 1200.0], "initial.xdot": [0.8, 1.0, 1.2, 1.4], "t_final": [0.5]}
    return Sweep(SLIP, grid=grid, **kw)


OUTPUTS = ["x@final", "y@min", "ydot@max", "xdot@mean"]


def comparable(table):
    """The table without its timing columns, as Python lists (NaN-safe equality via repr)."""
    return {c: repr(table.column(c).to_pylist()) for c in table.column_names if c not in TIMING}


def sentence_summary(result):
    """A user summary: apex count and the last touchdown angle."""
    return {"n_records": int(result.n), "last_touchdown_angle": float(result.state("touchdown_angle")[-1])}


def fails_on_fast_runs(result):
    if result.state("xdot")[0] > 1.3:
        raise ValueError("too fast for this summary")
    return {"ok": True}


def dies_on_fast_runs(result):
    """A summary that kills its process on one variation, as a crash in compiled code would."""
    if result.state("xdot")[0] > 1.3:
        os._exit(3)
    return {}


@pytest.fixture(scope="module")
def serial_table(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    return run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", **QUIET)


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory):
    out = tmp_path_factory.mktemp("two")
    return run_sweep(slip_sweep(), out, outputs=OUTPUTS, workers=2, batch_seconds=0.002, **QUIET)


# ------------------------------------------------------------------------------------------- spec
def test_a_variation_sets_dotted_keys_on_a_copy_of_the_scenario_data():
    data = {"model": "slip", "t_final": 1.0, "params": {"k": 1000.0}}
    out = apply_variation(data, {"params.k": 1200.0, "initial.xdot": 1.5, "t_final": 2.0})
    assert out == {"model": "slip", "t_final": 2.0, "params": {"k": 1200.0}, "initial": {"xdot": 1.5}}
    assert data == {"model": "slip", "t_final": 1.0, "params": {"k": 1000.0}}
    with pytest.raises(InputError, match=r"'t_final' is a value .* not a table"):
        apply_variation(data, {"t_final.x": 1.0})
    with pytest.raises(InputError, match="empty or padded part"):
        apply_variation(data, {"params..k": 1.0})


def test_a_grid_is_the_cartesian_product_with_the_last_key_fastest():
    sw = Sweep(SLIP, grid={"params.k": [1, 2], "initial.xdot": [3, 4, 5]})
    assert len(sw) == 6 and sw.keys == ["params.k", "initial.xdot"]
    assert sw.runs[:4] == ({"params.k": 1, "initial.xdot": 3}, {"params.k": 1, "initial.xdot": 4},
                           {"params.k": 1, "initial.xdot": 5}, {"params.k": 2, "initial.xdot": 3})
    both = Sweep(SLIP, variations=[{"t_final": 1.0}, {"t_final": 2.0}], grid={"params.k": [1, 2]})
    assert [r["t_final"] for r in both.runs] == [1.0, 1.0, 2.0, 2.0] and len(both) == 4


@pytest.mark.parametrize("method", ["lhs", "sobol", "uniform"])
def test_samples_lie_in_their_ranges_and_repeat_with_the_seed(method):
    ranges = {"params.k": (800, 1200), "params.body_mass": (0.1, 10.0, "log")}
    a = Sweep(SLIP, ranges=ranges, samples=16, method=method, seed=3)
    b = Sweep(SLIP, ranges=ranges, samples=16, method=method, seed=3)
    c = Sweep(SLIP, ranges=ranges, samples=16, method=method, seed=4)
    k = np.array([r["params.k"] for r in a.runs])
    m = np.array([r["params.body_mass"] for r in a.runs])
    assert a.runs == b.runs and a.runs != c.runs
    assert np.all((k >= 800) & (k <= 1200)) and np.all((m >= 0.1) & (m <= 10.0))
    if method == "lhs":  # one sample in each of the 16 strata of each axis (log axis: strata in log m)
        assert sorted(np.floor((k - 800) / 400 * 16).astype(int)) == list(range(16))
        assert sorted(np.floor(np.log(m / 0.1) / np.log(100) * 16).astype(int)) == list(range(16))


def test_a_runs_seed_depends_on_the_sweep_seed_and_run_id_only():
    a, b = slip_sweep(seed=7), Sweep(SLIP, grid={"params.k": [1.0] * 12}, seed=7)
    assert [a.run_seed(i) for i in range(12)] == [b.run_seed(i) for i in range(12)]
    assert len({a.run_seed(i) for i in range(12)}) == 12
    assert a.run_seed(3) != slip_sweep(seed=8).run_seed(3)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"grid": {"params.kk": [1.0, 2.0]}},
     r"sweep run 1 of 2 \(run_id 0; params.kk = 1.0\).*\[params\] kk.*did you mean 'k'"),
    ({"grid": {"params.k": [1000.0, "stiff"]}},
     r"sweep run 2 of 2 \(run_id 1; .*\[params\] k = 'stiff'.*expected a number"),
    ({"grid": {"t_final": [1.0, -1.0]}}, r"sweep run 2 of 2 \(run_id 1; t_final = -1.0.*out of range"),
    ({"grid": {"integrator.h_min": [0.5]}}, r"\[integrator\].*h_min = 0.5 exceeds h_max"),
    ({"variations": [{"initial.xdott": 1.0}]}, r"\[initial\] xdott.*did you mean 'xdot'"),
    ({"ranges": {"params.k": (2.0, 1.0)}, "samples": 4}, r"range 'params.k'.*low < high"),
    ({"ranges": {"params.k": (1.0, 2.0)}}, "ranges and samples go together"),
    ({"grid": {"params.k": []}}, "list of values is empty"),
])
def test_bad_variations_are_refused_before_anything_runs_naming_the_run_and_key(tmp_path, kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        run_sweep(Sweep(SLIP, **kwargs), tmp_path / "out", **QUIET)
    assert not (tmp_path / "out").exists()


def test_a_wrong_kind_of_sweep_or_run_sweep_argument_is_named(tmp_path):
    """Before session 31: numpy's ambiguous-truth ValueError (an array as a flag, a backend or a method),
    a TypeError (a number as the scenario, the variations or the runs) or an OverflowError (an infinite
    batch_seconds)."""
    for kwargs, name in (({"method": np.zeros(2)}, "method"), ({"scenario": 3.0}, "scenario"),
                         ({"variations": 5}, "variations")):
        with pytest.raises(InputError, match=f"{name} = "):
            Sweep(**{"scenario": SLIP, **kwargs})
    for kwargs, name in (({"backend": np.zeros(2)}, "backend"), ({"records": np.zeros(2)}, "records"),
                         ({"progress": "yes"}, "progress"), ({"runs": 3}, "runs"),
                         ({"batch_seconds": float("inf")}, "batch_seconds"), ({"outputs": 1.0}, "outputs")):
        with pytest.raises(InputError, match=f"{name}'? = "):
            run_sweep(Sweep(SLIP), tmp_path / "out", **{**QUIET, **kwargs})
    assert not (tmp_path / "out").exists()


def test_an_output_of_an_unknown_column_names_the_closest_one(tmp_path):
    with pytest.raises(InputError, match=r"output 'xdt@final'.*no column 'xdt' \(did you mean 'xdot'\?\)"):
        run_sweep(Sweep(SLIP), tmp_path, outputs=["xdt@final"], **QUIET)
    with pytest.raises(InputError, match=r"an unknown reduction 'fnal' \(did you mean 'final'\?\)"):
        run_sweep(Sweep(SLIP), tmp_path, outputs=["x@fnal"], **QUIET)


def test_a_bundled_scenarios_name_is_swept_from_anywhere_as_the_readme_shows(tmp_path, monkeypatch, capsys):
    """README's Python sweep (`Sweep("slip_run.toml", ...)`) and `legsim sweep slip_run.toml` run the bundled
    scenario from any folder (was "scenario file 'slip_run.toml' not found": a sweep has no `legsim demo`
    to point to); a file of that name here is still the one swept; anything but a Sweep is named."""
    monkeypatch.chdir(tmp_path)
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "run_sweep(" in b)
    scope: dict = {}
    exec(compile(block.replace('"sw1", ', '"sw1", backend="serial", progress=False, '), "README.md", "exec"),
         scope)
    table = scope["res"].table
    assert table.num_rows == 6 and set(table.column("status").to_pylist()) == {"done"}
    assert Sweep("slip_run.toml").scenario == str(SLIP)
    assert main(["sweep", "slip_run", "--out", "sw2", "--grid", "params.k=900", "--output", "x@final"]) == 0
    assert load_sweep("sw2").column("params.k").to_pylist() == [900.0]
    (tmp_path / "slip_run.toml").write_text(SLIP.read_text())
    assert Sweep("slip_run.toml").scenario == str(tmp_path / "slip_run.toml")
    with pytest.raises(InputError, match=r"sweep = 'slip_run.toml': expected a legsim.sweep.Sweep \(e.g. "
                                         r"Sweep\('slip_run.toml', grid=...\)\)"):
        run_sweep("slip_run.toml", "sw3", **QUIET)


# -------------------------------------------------------------------------------- the table
def test_the_table_has_a_row_per_run_with_its_variation_outputs_and_statistics(serial_table):
    t = serial_table.table
    assert t.num_rows == 12 and serial_table.ran == 12 and serial_table.failed == 0
    assert t.column_names[:5] == ["run_id", "params.k", "initial.xdot", "t_final", "seed"]
    assert t.column_names[5:7] == ["status", "message"]
    assert t.column_names[7:11] == OUTPUTS
    assert set(t.column("status").to_pylist()) == {"done"}
    assert t.column("run_id").to_pylist() == list(range(12))
    assert np.all(serial_table.column("t_end") == 0.5) and np.all(serial_table.column("steps") > 10)
    # each row is what a single run of that variation gives
    from legsim.runner import simulate_scenario
    from legsim.scenario import parse_scenario

    sw = slip_sweep()
    res = simulate_scenario(parse_scenario(sw.scenario_data(7), str(SLIP)))
    assert serial_table.column("x@final")[7] == res.state("x")[-1]
    assert serial_table.column("ydot@max")[7] == res.state("ydot").max()
    tt, v = res.t, res.state("xdot")
    assert serial_table.column("xdot@mean")[7] == pytest.approx(np.trapezoid(v, tt) / 0.5, rel=1e-12)
    assert load_sweep(serial_table.out).equals(t)


def test_the_table_is_bitwise_the_same_for_one_or_two_workers_and_any_order(serial_table, two_workers,
                                                                               tmp_path):
    ref = comparable(serial_table.table)
    assert comparable(two_workers.table) == ref
    assert two_workers.stats["batches"] >= 4 and len(two_workers.stats["workers"]) == 2
    one = run_sweep(slip_sweep(), tmp_path / "one", outputs=OUTPUTS, workers=1, **QUIET)
    assert comparable(one.table) == ref
    # another order: the last runs first, in reverse, then the rest
    out = tmp_path / "reverse"
    for rid in (11, 10, 9, 8):
        run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", runs=[rid], **QUIET)
    rest = run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", **QUIET)
    assert rest.ran == 8 and rest.skipped == 4 and comparable(rest.table) == ref


def test_workers_load_the_compiled_code_from_the_cache_instead_of_compiling(two_workers):
    workers = two_workers.stats["workers"]
    assert [w["cache_misses"] for w in workers] == [0, 0]
    assert {w["pid"] for w in workers}.isdisjoint({os.getpid()})
    assert sum(w["runs"] for w in workers) == 12


def test_resume_skips_finished_runs_and_a_changed_spec_is_refused_unless_overwritten(tmp_path):
    out = tmp_path / "sweep"
    first = run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", runs=[0, 1, 2], **QUIET)
    assert first.table.column("run_id").to_pylist() == [0, 1, 2]
    assert json.loads((out / "sweep.json").read_text())["status"] == "partial"
    again = run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", **QUIET)
    assert (again.ran, again.skipped) == (9, 3) and again.table.num_rows == 12
    # the first three rows were not run again: their wall times are the first call's
    assert again.table.slice(0, 3).column("wall_time_s").equals(first.table.column("wall_time_s"))
    assert run_sweep(slip_sweep(), out, outputs=OUTPUTS, backend="serial", **QUIET).ran == 0
    with pytest.raises(InputError, match=r"holds a different sweep \(it differs in outputs\).*overwrite"):
        run_sweep(slip_sweep(), out, outputs=["x@final"], backend="serial", **QUIET)
    with pytest.raises(InputError, match="it differs in keys, variations"):
        run_sweep(Sweep(SLIP, grid={"params.k": [900.0]}), out, outputs=OUTPUTS, **QUIET)
    new = run_sweep(Sweep(SLIP, grid={"params.k": [900.0], "t_final": [0.5]}), out, outputs=["x@final"],
                    backend="serial", overwrite=True, **QUIET)
    assert new.table.num_rows == 1 and new.table.column("params.k").to_pylist() == [900.0]
    assert json.loads((out / "sweep.json").read_text())["status"] == "finished"


def test_failing_runs_are_rows_with_their_status_and_message_and_the_sweep_goes_on(tmp_path):
    sw = Sweep(SLIP, variations=[{}, {"integrator.max_transitions": 1}, {"initial.xdot": 1.4}, {}],
               grid={"t_final": [0.5]})
    res = run_sweep(sw, tmp_path, outputs=["x@final"], summary=fails_on_fast_runs, workers=2, **QUIET)
    status = res.table.column("status").to_pylist()
    msg = res.table.column("message").to_pylist()
    assert status == ["done", "max_transitions", "summary_failed", "done"] and res.failed == 2
    assert "max_transitions = 1" in msg[1] and "run stopped at t = " in msg[1]
    line = fails_on_fast_runs.__code__.co_firstlineno + 2  # the user's raise, named in the message
    assert msg[2] == f"ValueError: too fast for this summary ({__file__}:{line}, in fails_on_fast_runs)"
    x = res.column("x@final")
    assert np.isnan(x[1]) and np.isfinite(x[[0, 2, 3]]).all()  # a failed run has no outputs
    assert 0.0 < res.column("t_end")[1] < 0.5  # how far it got
    assert res.table.column("ok").to_pylist() == [True, None, None, True]


def test_a_run_that_kills_its_worker_is_a_crashed_row_and_the_other_runs_finish(tmp_path):
    sw = Sweep(SLIP, grid={"initial.xdot": [1.0, 1.1, 1.4, 1.2, 1.0, 1.1], "t_final": [0.5]})
    res = run_sweep(sw, tmp_path, outputs=["x@final"], summary=dies_on_fast_runs, workers=2, **QUIET)
    status = res.table.column("status").to_pylist()
    assert status == ["done", "done", "crashed", "done", "done", "done"]
    assert "worker process died" in res.table.column("message").to_pylist()[2]
    assert res.stats["crashes"] >= 2  # the batch it was in, then the run alone


def dies_always(result):
    os._exit(3)


def test_workers_that_die_before_any_run_finishes_stop_the_sweep_with_an_error(tmp_path):
    sw = Sweep(SLIP, grid={"params.k": [900.0, 1000.0, 1100.0], "t_final": [0.2]})
    with pytest.raises(LegsimError, match="workers died 3 times before any run finished"):
        run_sweep(sw, tmp_path, summary=dies_always, workers=2, **QUIET)
    assert json.loads((tmp_path / "sweep.json").read_text())["status"] == "failed"
    with pytest.raises(InputError, match=r"summary = 'nowhere.py:f': file '.*nowhere.py' not found"):
        run_sweep(sw, tmp_path, summary="nowhere.py:f", **QUIET)


def test_a_user_summary_and_the_models_own_summary_become_columns(tmp_path):
    res = run_sweep(Sweep(SLIP, grid={"params.k": [900.0, 1100.0], "t_final": [0.5]}), tmp_path / "slip",
                    summary=sentence_summary, backend="serial", **QUIET)
    assert res.table.column("n_records").to_pylist() == [101, 101]
    hexa = run_sweep(Sweep(HEXAPOD, grid={"params.body_mass": [6.0, 8.0], "t_final": [0.2]}),
                     tmp_path / "hex", outputs=["z@min"], backend="serial", **QUIET)
    forward = hexa.column("distance_forward_m")  # legsim.runner.SUMMARIES["hexapod"]
    assert hexa.failed == 0 and np.all(np.isfinite(forward)) and forward[0] != forward[1]
    assert hexa.column("body_height_min_m") == pytest.approx(hexa.column("z@min"), rel=0, abs=0)


HANGING_CONTROLLER = """
def hopper(*, hang=False):
    def controller(t, s):
        while hang and t > 0.05:  # a controller stuck in a loop
            pass
        return [0.0, 0.0]
    return controller
"""


def test_a_run_timeout_stops_a_stuck_controller_and_the_sweep_goes_on(tmp_path):
    (tmp_path / "stuck.py").write_text(HANGING_CONTROLLER)
    scenario = tmp_path / "hopper.toml"
    scenario.write_text(f"robot = '{(SCENARIO_DIR / 'hopper_hardware.toml').as_posix()}'\n"
                        "controller = 'stuck.py:hopper'\nt_final = 0.3\n[initial]\nrail = 0.36\n"
                        "hip = 0.6\nknee = -1.2\n")
    sw = Sweep(scenario, grid={"controller_params.hang": [False, True, False]})
    t0 = time.perf_counter()
    res = run_sweep(sw, tmp_path / "out", outputs=["rail@final"], workers=2, run_timeout=2.0, **QUIET)
    assert time.perf_counter() - t0 < 60.0
    status = res.table.column("status").to_pylist()
    assert status == ["done", "wall_time_limit", "done"]
    msg = res.table.column("message").to_pylist()[1]
    assert "wall-time limit of 2 s was reached" in msg and "run stopped at t = 0.05" in msg
    assert json.loads((tmp_path / "out" / "sweep.json").read_text())["spec"]["run_timeout"] == 2.0
    with pytest.raises(InputError, match=r"'run_timeout' = -1, expected a finite number in \(0, inf\]"):
        run_sweep(sw, tmp_path / "bad", run_timeout=-1, **QUIET)


def test_a_design_study_sweeps_keys_of_the_robots_hardware_file(tmp_path):
    # the hopper's gear ratio: a dotted key into the scenario's [hardware] table, laid over the file
    sw = Sweep(HOPPER, grid={"hardware.actuators.legs.gear": [20.0, 40.0], "t_final": [0.3]})
    res = run_sweep(sw, tmp_path, outputs=["rail@final", "current_hip@max"], backend="serial", **QUIET)
    assert res.table.column("status").to_pylist() == ["done", "done"]
    assert res.table.column("hardware.actuators.legs.gear").to_pylist() == [20.0, 40.0]
    rail = res.column("rail@final")
    assert abs(rail[1] - rail[0]) > 1e-3  # the gear changes how the leg holds the trunk
    bad = Sweep(HOPPER, grid={"hardware.actuators.legs.geer": [20.0]})
    with pytest.raises(InputError,
                       match=r"sweep run 1 of 1 \(run_id 0; .*unknown DCMotor key 'geer'.*'gear'"):
        run_sweep(bad, tmp_path / "bad", **QUIET)


FUNCTIONS = """
from legsim.hybrid import simulate
from legsim.robots.slip import build_model

def plain(*, a, b=1.0, seed=0):
    return {"total": a + b, "seed_seen": seed, "label": f"a={a}"}

def slip(*, k, t_final=0.3):
    model = build_model()
    return simulate(model, t_final, params={"k": k}, x0={"xdot": 1.0})

def fails(*, a):
    if a > 1:
        raise ValueError("a is too large")
    return {"ok": a}
"""


@pytest.fixture
def functions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a "file.py:function" reference is relative to the working folder
    (tmp_path / "fns.py").write_text(FUNCTIONS)
    return tmp_path


def test_a_function_sweep_calls_it_with_each_variation_and_keeps_what_it_returns(functions):
    sw = Sweep(function="fns.py:plain", grid={"a": [1.0, 2.0, 3.0]}, variations=[{"b": 0.5}, {}], seed=4)
    res = run_sweep(sw, functions / "out", workers=2, batch_seconds=0.001, **QUIET)
    assert res.table.column("status").to_pylist() == ["done"] * 6
    np.testing.assert_allclose(res.column("total"), [1.5, 2.5, 3.5, 2.0, 3.0, 4.0])
    assert res.table.column("seed_seen").to_pylist() == [sw.run_seed(i) for i in range(6)]  # its seed=
    assert res.table.column("label").to_pylist()[0] == "a=1.0"
    again = run_sweep(sw, functions / "serial", backend="serial", **QUIET)  # same table, any backend
    assert comparable(again.table) == comparable(res.table)
    assert resume_sweep(functions / "out", **QUIET).ran == 0  # resumes from sweep.json by name


def test_a_function_returning_a_result_is_reduced_by_the_outputs_and_failures_are_rows(functions):
    res = run_sweep(Sweep(function="fns.py:slip", grid={"k": [800.0, 1200.0]}), functions / "r",
                    outputs=["x@final"], backend="serial", **QUIET)
    x = res.column("x@final")
    assert np.all(x > 0.1) and x[0] != x[1] and res.column("steps").min() > 0
    bad = run_sweep(Sweep(function="fns.py:fails", grid={"a": [1, 2]}), functions / "f", backend="serial",
                    **QUIET)
    assert bad.table.column("status").to_pylist() == ["done", "error"]
    message = bad.table.column("message").to_pylist()[1]
    assert re.fullmatch(r"ValueError: a is too large \(.*fns\.py:14, in fails\)", message), message


@pytest.mark.parametrize("kwargs, fragment", [
    ({"function": "fns.py:plain", "grid": {"c": [1]}}, r"no keyword argument 'c'.*it takes a, b, seed"),
    ({"function": "fns.py:nope", "grid": {"a": [1]}}, r"fns.py has no function 'nope'"),
    ({"function": "fns.py:plain", "grid": {"a.b": [1]}}, r"key 'a.b' is not a keyword argument name"),
])
def test_bad_function_sweeps_are_refused_before_anything_runs(functions, kwargs, fragment):
    with pytest.raises(InputError, match=fragment):
        run_sweep(Sweep(**kwargs), functions / "o", **QUIET)


def test_a_sweep_runs_a_scenario_or_a_function_and_function_sweeps_keep_no_records(functions):
    with pytest.raises(InputError, match="a sweep runs a scenario or a function"):
        Sweep(SLIP, function="fns.py:plain")
    with pytest.raises(InputError, match="records and run_timeout are for scenario sweeps"):
        run_sweep(Sweep(function="fns.py:plain", grid={"a": [1]}), functions / "o", records=True, **QUIET)


def test_the_cli_sweeps_a_function(functions, capsys):
    assert main(["sweep", "--function", "fns.py:plain", "--grid", "a=1,2", "--out", str(functions / "c"),
                 "--backend", "serial"]) == 0
    assert "(2 done)" in capsys.readouterr().out
    assert main(["sweep", str(SLIP), "--function", "fns.py:plain", "--out", str(functions / "d")]) == 2


def test_records_on_request_are_run_directories_named_by_run_id(tmp_path):
    sw = Sweep(SLIP, grid={"params.k": [900.0, 1100.0], "t_final": [0.5]})
    res = run_sweep(sw, tmp_path, outputs=["x@final"], records=True, backend="serial", **QUIET)
    run = load_run(tmp_path / "runs" / "run-00001")
    assert run.meta["status"] == "done"
    assert run.meta["sweep"]["variation"] == {"params.k": 1100.0, "t_final": 0.5}
    assert run.meta["scenario"]["params"]["k"] == 1100.0
    assert run.records["x"][-1] == res.column("x@final")[1]


def test_noisy_sensors_get_a_seed_per_run_and_common_noise_repeats_the_hardware_seeds(tmp_path):
    sw = Sweep(HOPPER, variations=[{}, {}], grid={"t_final": [0.05]})
    outputs = ["rate_hip@mean", "true_rate_hip@mean"]
    per_run = run_sweep(sw, tmp_path / "a", outputs=outputs, backend="serial", **QUIET)
    common = run_sweep(sw, tmp_path / "b", outputs=outputs, backend="serial", common_noise=True, **QUIET)
    measured = per_run.column("rate_hip@mean")
    assert per_run.failed == 0 and measured[0] != measured[1]  # same variation, different noise
    assert common.column("rate_hip@mean")[0] == common.column("rate_hip@mean")[1]
    assert per_run.column("seed").tolist() == [sw.run_seed(0), sw.run_seed(1)]
    again = run_sweep(sw, tmp_path / "c", outputs=outputs, backend="serial", runs=[1], **QUIET)
    assert again.column("rate_hip@mean")[0] == measured[1]  # a run's noise is its own, not its neighbours'


# ----------------------------------------------------------------------------------------- Ray
def test_the_ray_backend_gives_the_local_table(tmp_path, serial_table):
    ray = pytest.importorskip("ray", reason="the Ray backend needs the optional extra legsim[ray]")
    try:
        res = run_sweep(slip_sweep(), tmp_path, outputs=OUTPUTS, backend="ray", workers=2, batch_seconds=0.01,
                        **QUIET)
    finally:
        initialised = ray.is_initialized()
        ray.shutdown()
    assert not initialised  # the sweep shut down the Ray instance it started
    assert comparable(res.table) == comparable(serial_table.table)
    assert res.stats["batches"] >= 2


# ----------------------------------------------------------------------------------------- CLI
def test_cli_arguments_parse_into_grids_ranges_and_run_ids():
    assert parse_grid(["params.k=800,1000", "initial.xdot=1:2:3", "integrator.method=dp45,rk4_fixed"]) == {
        "params.k": [800, 1000], "initial.xdot": [1.0, 1.5, 2.0], "integrator.method": ["dp45", "rk4_fixed"]}
    assert parse_range(["params.k=800:1200", "params.c=1e-3:1e-1:log"]) == {
        "params.k": (800, 1200), "params.c": (1e-3, 1e-1, "log")}
    assert parse_runs("0-3,7") == [0, 1, 2, 3, 7]


def test_cli_variations_come_from_a_csv_or_json_file(tmp_path):
    (tmp_path / "v.csv").write_text("params.k,initial.xdot,integrator.method\n"
                                    "900,1.5,dp45\n1100,,rk4_fixed\n")
    (tmp_path / "v.json").write_text('[{"params.k": 900, "initial.xdot": 1.5}, {"params.k": 1100}]')
    assert read_variations(str(tmp_path / "v.csv")) == [
        {"params.k": 900, "initial.xdot": 1.5, "integrator.method": "dp45"},
        {"params.k": 1100, "integrator.method": "rk4_fixed"}]  # an empty cell keeps the scenario's value
    assert read_variations(str(tmp_path / "v.json")) == [{"params.k": 900, "initial.xdot": 1.5},
                                                         {"params.k": 1100}]
    (tmp_path / "bad.csv").write_text("params.k,initial.xdot\n900\n")
    with pytest.raises(InputError, match="line 2: 1 values for 2 keys"):
        read_variations(str(tmp_path / "bad.csv"))


@pytest.mark.parametrize("argv, fragment", [
    (["--grid", "params.k"], r"--grid 'params.k': expected KEY=V1,V2"),
    (["--grid", "params.k=1:2:x"], "LO:HI:N needs two numbers"),
    (["--range", "params.k=1:2"], "--range needs --samples"),
    (["--range", "params.k=a:2", "--samples", "4"], "LO and HI must be numbers"),
    (["--samples", "4"], "--samples needs at least one --range"),
    (["--runs", "1-x"], r"'text' = '1-x' \(--runs\), expected run_ids"),
    (["--runs", "0-99999999999"], "more than 1000000 run_ids"),  # was a list of 1e11 ints (MemoryError)
    (["--grid", "params.kk=1,2"], r"\[params\] kk.*did you mean 'k'"),
    (["--run-timeout", "0"], r"'run_timeout' = 0.0, expected a finite number in \(0, inf\]"),
])
def test_cli_mistakes_name_the_argument_and_exit_with_status_2(tmp_path, capsys, argv, fragment):
    assert main(["sweep", str(SLIP), "--out", str(tmp_path / "o"), "-q", *argv]) == 2
    assert __import__("re").search(fragment, capsys.readouterr().err)


def test_cli_sweep_writes_the_table_and_prints_a_summary(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["sweep", str(SLIP), "--out", str(out), "--grid", "params.k=900,1100",
                 "--grid", "t_final=0.5", "--output", "x@final,y@min", "--backend", "serial",
                 "--run-timeout", "60"]) == 0
    text = capsys.readouterr().out
    assert "sweep: 2 of 2 runs in" in text and "(2 done)" in text and "x@final: min" in text
    table = pq.read_table(out / "sweep.parquet")
    assert table.column("params.k").to_pylist() == [900, 1100]
    assert main(["sweep", "--resume", "--out", str(out), "--backend", "serial"]) == 0
    assert "this call ran 0" in capsys.readouterr().out


def test_the_sweep_command_and_package_import_nothing_heavy():
    code = ("import sys, legsim.sweep, legsim.sweep.cli; "
            "print([m for m in ('numpy', 'numba', 'pyarrow', 'legsim.hybrid', 'legsim.scenario') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_ctrl_c_stops_the_workers_keeps_finished_rows_and_the_sweep_resumes(tmp_path, spawn):
    out, N = tmp_path / "int", 500
    cmd = [sys.executable, "-m", "legsim", "sweep", str(SLIP), "--out", str(out), "--workers", "2",
           "--grid", "params.k=" + ",".join(str(800 + k) for k in range(N)), "--grid", "t_final=100.0",
           "--output", "x@final"]
    proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((out / "parts").glob("part-*.parquet")):
        time.sleep(0.02)  # the first rows are written (a part per second of finished batches)
    assert proc.poll() is None, "the sweep finished before Ctrl-C could reach it: make the runs longer"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "resume with: legsim sweep --resume --out" in stdout, stderr
    done = load_sweep(out).num_rows
    assert 0 < done < N and not list((out / "parts").glob("*.parquet"))  # parts merged into the table
    assert json.loads((out / "sweep.json").read_text())["status"] == "interrupted"
    res = resume_sweep(out, **QUIET)
    assert res.skipped == done and res.ran == N - done
    assert res.table.column("run_id").to_pylist() == list(range(N))
    assert set(res.table.column("status").to_pylist()) == {"done"}


def test_the_slip_design_study_example_maps_where_the_runner_keeps_running(tmp_path):
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "examples" / "sweep_slip.py"
    spec = importlib.util.spec_from_file_location("legsim_example_sweep_slip", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.main(["--out", str(tmp_path), "--quick", "--backend", "serial"])
    assert (tmp_path / "survival.png").stat().st_size > 10_000
    t_end = res.column("t_end").reshape(5, 5)  # rows: touchdown angle -0.12..0, columns: k 2000..10000
    status = np.array(res.table.column("status").to_pylist()).reshape(5, 5)
    assert np.all(t_end[:, -1] == 8.0) and np.all(status[:, -1] == "done")  # stiff legs: every angle runs
    assert status[-1, 0] == "invalid_state" and t_end[-1, 0] < 4.0  # vertical touchdown, soft leg: falls
    assert np.all(np.diff(t_end[-1]) >= 0)  # at 0 rad, a stiffer leg runs longer


def test_the_rats_rolling_example_sweeps_a_function_over_the_t13_starts(tmp_path, capsys):
    """examples/sweep_rats_rolling.py --quick: 4 T13 starts of 4 s, a function sweep on two workers; the
    same figures as the starts run one after another in this process (measured: all 4 roll, largest
    heading error 0.100 rad). It says that the first run is here and the other 3 on the workers, and,
    run again into the same directory, that there is nothing to run."""
    import importlib.util

    from legsim.robots.rats.experiments import rolling_start

    path = Path(__file__).resolve().parents[1] / "examples" / "sweep_rats_rolling.py"
    spec = importlib.util.spec_from_file_location("legsim_example_sweep_rats_rolling", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    figures = mod.main(["--out", str(tmp_path), "--quick", "--workers", "2"])
    assert figures["runs"] == 4 and figures["started"] >= 0.75
    table = load_sweep(tmp_path / "table")
    errors = table.column("heading_error").to_pylist()
    for i, start in enumerate(mod.starts(4)[:2]):  # the rows are the function's own results
        assert rolling_start(**start, t_final=4.0)["heading_error"] == errors[i]
    assert figures["largest_error_rad"] == max(abs(e) for e in errors)
    said = capsys.readouterr().out
    assert "sweep: 4 runs of legsim.robots.rats.experiments:rolling_start; the first runs here" in said
    assert "sweep: the other 3 runs on 2 local workers" in said
    assert mod.main(["--out", str(tmp_path), "--quick", "--workers", "2"]) == figures
    assert "sweep: nothing to run: the 4 runs asked for are in" in capsys.readouterr().out


def test_the_libra_example_sweeps_the_eighteen_configurations_of_the_linear_analysis(tmp_path):
    """examples/sweep_libra_linear.py: App. C's 18 body heights as a function sweep
    (linear.sweep_row), one process; the rows are linear.sweep()'s own analyses to the bit, every
    configuration stable (acceptance 7)."""
    import importlib.util

    from legsim.robots.libra.linear import LOOPS, sweep

    path = Path(__file__).resolve().parents[1] / "examples" / "sweep_libra_linear.py"
    spec = importlib.util.spec_from_file_location("legsim_example_sweep_libra_linear", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    summary = mod.main(["--out", str(tmp_path), "--workers", "1"])
    assert summary[(1.0, 0.18)] == pytest.approx({"configurations": 18, "reached": 18, "stable": 18,
                                                  "min_zeta": summary[(1.0, 0.18)]["min_zeta"]})
    table = load_sweep(tmp_path / "table")
    points = sweep()
    assert table.column("y_b").to_pylist() == [p.y_b for p in points]
    for i, name in enumerate(LOOPS):
        assert table.column(f"bw_{name}").to_pylist() == [float(p.bandwidth_position[i]) for p in points]
    assert min(table.column("min_zeta").to_pylist()) == min(float(p.zeta.min()) for p in points)


def test_a_ctrl_c_while_workers_start_is_held_until_the_pool_knows_them():
    """``legsim._machine.uninterrupted`` (around the submits that start sweep and report workers): a
    SIGINT inside the block raises KeyboardInterrupt only when it ends, and the previous handler is back.
    Without it, Ctrl-C 1.5-2.2 s into a sweep left a worker the pool did not know, which printed a
    FileNotFoundError traceback from its semaphores after the parent had gone (session 31)."""
    from legsim._machine import uninterrupted

    before = signal.getsignal(signal.SIGINT)
    reached = []
    with pytest.raises(KeyboardInterrupt), uninterrupted():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, and only records it
        reached.append("end of the block")
    assert reached == ["end of the block"] and signal.getsignal(signal.SIGINT) is before
    with uninterrupted():  # no signal: nothing raised
        pass


def test_a_function_pool_keeps_its_workers_across_batches_and_gives_the_rows_in_order(functions):
    """legsim.sweep.FunctionPool (an optimiser's objective: batch after batch of calls): the rows come in
    the order of the variations, with each call's values and seed, the same on 2 local workers as in
    this process; the workers started for the first batch serve the second; a failing call is a row."""
    from legsim.sweep import FunctionPool

    batch = [{"a": float(a)} for a in range(5)]
    with FunctionPool("fns.py:plain", backend="serial", seed=3) as serial:
        expected = [serial.map(batch), serial.map(batch[:2])]
    with FunctionPool("fns.py:plain", workers=2, seed=3, batch_seconds=0.001) as pool:
        first = pool.map(batch)
        workers = pool._pool
        second = pool.map(batch[:2])
        assert pool._pool is workers   # not a new pool per batch
    for got, want in zip((first, second), expected, strict=True):
        totals = [a["a"] + 1.0 for a in batch][:len(got)]
        assert [r["total"] for r in got] == [r["total"] for r in want] == totals
        assert [r["seed_seen"] for r in got] == [r["seed_seen"] for r in want]
    assert first[0]["seed_seen"] != second[0]["seed_seen"]  # a seed per (batch, index)
    with FunctionPool("fns.py:fails", backend="serial") as pool:
        rows = pool.map([{"a": 1}, {"a": 2}])
    assert [r["status"] for r in rows] == ["done", "error"] and "a is too large" in rows[1]["message"]


@pytest.mark.parametrize("make, fragment", [
    (lambda P: P("fns.py:nope"), r"fns.py has no function 'nope'"),
    (lambda P: P("fns.py:plain", workers=0), r"'workers' = 0, expected a whole number in \[1, 1024\]"),
    (lambda P: P("fns.py:plain", batch_seconds="1"),
     r"'batch_seconds' = '1', expected a number"),
    (lambda P: P("fns.py:plain", backend="threads"), r"backend = 'threads': expected one of local, ray"),
    (lambda P: P("fns.py:plain").map([{"c": 1}]), r"no keyword argument 'c'.*it takes a, b, seed"),
    (lambda P: P("fns.py:plain").map({"a": 1}), r"expected a list of dicts of keyword arguments"),
])
def test_a_function_pool_refuses_bad_input_before_any_call(functions, make, fragment):
    from legsim.sweep import FunctionPool

    with pytest.raises(InputError, match=fragment):
        make(FunctionPool)


def test_a_pool_of_an_unknown_backend_is_refused_before_anything_starts():
    """Before session 41 ``make_pool`` took every backend but "serial" and "local" for Ray: a typo ("loacl",
    "Serial") or None started a local Ray instance (in the session's sweep its raylet then died) instead of
    an InputError naming the backend."""
    from legsim.sweep import _worker as W
    from legsim.sweep.backends import make_pool

    ctx = W.Context(token="t", source=str(SLIP), data={})
    for backend in ("loacl", "Serial", None):
        with pytest.raises(InputError, match=r"make_pool: backend = .*: expected one of local, ray, serial"):
            make_pool(backend, ctx, 1, None)
    assert type(make_pool("serial", ctx, 1, None)).__name__ == "SerialPool"


def test_a_sweep_whose_echo_is_not_a_function_is_refused_before_its_directory_is_made(tmp_path):
    """Before session 41 ``run_sweep(..., echo=None)`` parsed every run, wrote sweep.json with the status
    "running", did the warm-up run and made the pool, then stopped on a TypeError where it first reported:
    the sweep's folder said "running" for ever."""
    with pytest.raises(InputError, match=r"run_sweep: 'echo' = None, expected a function of one string"):
        run_sweep(Sweep(SLIP, variations=[{"t_final": 0.02}]), tmp_path / "out", backend="serial",
                  progress=False, echo=None)
    assert not (tmp_path / "out").exists()


def test_resuming_a_sweep_refuses_what_its_spec_keeps_and_cli_helpers_name_their_argument(tmp_path):
    """Before session 41 ``resume_sweep(out, outputs=[...])`` was Python's TypeError (run_sweep "got
    multiple values for keyword argument 'outputs'"); ``parse_grid`` of a LO:HI:N of whole numbers beyond the
    largest float an OverflowError; ``parse_grid("k=1,2")`` (a string, not a list) read each letter as an
    argument ("--grid 'k': expected KEY=..."); ``parse_runs(7)`` an AttributeError."""
    out = tmp_path / "out"
    run_sweep(Sweep(SLIP, variations=[{"t_final": 0.02}]), out, backend="serial", **QUIET)
    with pytest.raises(InputError, match=r"resume_sweep: no keyword 'outputs' \(the sweep in out keeps"):
        resume_sweep(out, outputs=["x@final"], backend="serial", **QUIET)
    assert resume_sweep(out, backend="serial", **QUIET).ran == 0
    with pytest.raises(InputError, match="LO:HI:N needs finite numbers"):
        parse_grid(["params.k=0:" + "9" * 400 + ":3"])
    with pytest.raises(InputError, match=r"parse_grid: 'args' = 'k=1,2', expected a list of strings"):
        parse_grid("k=1,2")
    with pytest.raises(InputError, match=r"parse_runs: 'text' = 7, expected a string of run_ids"):
        parse_runs(7)
