"""Bad input never gets a traceback (issue 20 §3): parameter ranges declared by every model and
checked before any compile or run, run directories that always end with a final status, clear
exit codes (2 user mistake, 1 failed run, 130 interrupted), and SimSect's transition budget told
apart from chattering."""

import contextlib
import json
import math
import re
import shutil
import socket
import subprocess
import sys

import numpy as np
import pytest

from legsim import hybrid, registry
from legsim.cli import SCENARIO_DIR, main
from legsim.errors import InputError, SimulationError
from legsim.hybrid import Options, simulate
from legsim.hybrid import signatures as hs
from legsim.simsect.runner import SAMPLE_RC, run_simsect


def _scenario(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _run(argv, capsys):
    code = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


@pytest.mark.parametrize("table, key, value, fragment", [
    ("params", "body_mass", 0, "> 0 kg"),           # was ZeroDivisionError inside the kernel
    ("params", "body_mass", -3, "> 0 kg"),          # was "Body toppled over" later
    ("params", "k", -1000, "> 0 N/m"),
    ("params", "touchdown_policy", 2, "one of 0, 1"),
    ("params", "g_flight", -9.81, ">= 0 m/s^2"),
])
def test_slip_parameters_out_of_range_are_refused_with_file_key_range_and_unit(tmp_path, capsys, table,
                                                                                key, value, fragment):
    path = _scenario(tmp_path, f'model = "slip"\nt_final = 1\n[{table}]\n{key} = {value}\n')
    code, err = _run(["run", str(path), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert f"s.toml: [{table}] {key} = {value:g}: out of range, expected" in err and fragment in err
    assert not (tmp_path / "out").exists()  # refused before anything was written or compiled


def test_hexapod_errors_name_the_file_and_print_plain_numbers(tmp_path, capsys):
    path = _scenario(tmp_path, 'model = "hexapod"\nt_final = 1\n[params]\nbody_mass = -7.0\n')
    code, err = _run(["run", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "s.toml: [params] body_mass = -7: out of range, expected > 0 kg" in err
    assert "np.float64" not in err
    # a rule tying parameters together (stance time inside the clock period), still with the file
    path = _scenario(tmp_path, 'model = "hexapod"\nt_final = 1\n[controller]\nt_s = 2.0\n')
    code, err = _run(["run", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "s.toml: parameters 't_s' = 2" in err and "t_c = 1 s" in err
    assert "np.float64" not in err


def test_bad_input_found_when_the_run_starts_still_names_the_file_and_closes_run_json(tmp_path, capsys):
    path = _scenario(tmp_path, 'model = "hexapod"\nt_final = 1\n[initial]\nz = -0.5\n')
    code, err = _run(["run", str(path), "--out", str(tmp_path / "o")], capsys)
    assert code == 2 and "s.toml: initial state 'z' = -0.5: the body must start above the terrain" in err
    meta = json.loads((tmp_path / "o" / "run.json").read_text())
    assert meta["status"] == "failed" and "z' = -0.5" in meta["message"]


@pytest.mark.parametrize("argv, option", [
    (["run", str(SCENARIO_DIR / "slip_run.toml"), "--out", "taken"], "--out"),
    (["sweep", str(SCENARIO_DIR / "slip_run.toml"), "--grid", "params.k=1e4", "--out", "taken"], "--out"),
    (["report", "--only", "rats", "--out", "taken"], "--out"),       # was FileExistsError
    (["sil", "--duration", "0.01", "--out", "taken"], "--out"),      # was after waiting for a controller
    (["simsect", "-c", str(SAMPLE_RC), "--out-dir", "taken"], "--out-dir"),
    (["animate", "run", "--out", "taken/a.gif"], "--out"),
])
def test_out_naming_a_file_is_a_user_error(tmp_path, capsys, monkeypatch, argv, option):
    """Every command's output directory (``userfiles.output_dir``): naming an existing file is exit 2 and
    one line naming it, before anything runs."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").write_text("not a directory")
    if argv[0] == "animate":
        assert main(["run", str(SCENARIO_DIR / "slip_run.toml"), "--out", "run", "-q"]) == 0
    code, err = _run(argv, capsys)
    assert code == 2 and f"{option} 'taken' is a file: expected a directory" in err, err


def test_rerunning_into_an_earlier_run_replaces_its_records_and_figures_and_says_so(tmp_path, capsys):
    out = tmp_path / "o"
    short = _scenario(tmp_path, 'model = "slip"\nt_final = 0.5\n[outputs]\nrecord_period = 0.01\n')
    assert main(["run", str(short), "--out", str(out), "--plot"]) == 0
    figures = sorted(p.name for p in (out / "plots").iterdir())
    assert figures and "replacing" not in capsys.readouterr().out
    (out / "plots" / "notes.txt").write_text("mine")  # not a figure: kept
    assert main(["run", str(short), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "replacing the earlier run" in said
    assert sorted(p.name for p in (out / "plots").iterdir()) == ["notes.txt"]
    assert len(list((out / "records").glob("part-*.parquet"))) >= 1


def _hopper_with(tmp_path, source: str, ref: str, params: str, name: str = "hopper") -> str:
    """The bundled hopper scenario in ``tmp_path`` (as ``name``.toml) run by the controller factory ``ref``
    ("file.py:function") of the module ``source`` (written beside it) with ``params`` (TOML lines of its
    [controller_params]); returns the scenario's path."""
    for part in ("hopper.urdf", "hopper_hardware.toml"):
        shutil.copy(SCENARIO_DIR / part, tmp_path / part)
    (tmp_path / ref.partition(":")[0]).write_text(source)
    text = (SCENARIO_DIR / "hopper.toml").read_text().replace("hopper_controller.py:pd_bounce", ref)
    text = (text[:text.index("[controller_params]")] + f"[controller_params]\n{params}\n"
            + text[text.index("[initial]"):])
    (tmp_path / f"{name}.toml").write_text(text)
    return str(tmp_path / f"{name}.toml")


def test_ctrl_c_in_a_run_exits_130_keeps_records_and_marks_run_json_interrupted(tmp_path, capsys):
    scenario = _hopper_with(tmp_path, "import numpy as np\n\n"
                                      "def stop_at(t_stop=0.1):\n"
                                      "    def controller(t, s):\n"
                                      "        if t >= t_stop:\n"
                                      "            raise KeyboardInterrupt\n"
                                      "        return np.zeros(2)\n"
                                      "    return controller\n", "stop.py:stop_at", "t_stop = 0.1")
    code, err = _run(["run", scenario, "--out", str(tmp_path / "o")], capsys)
    assert code == 130 and "interrupted" in err and "run failed" not in err
    meta = json.loads((tmp_path / "o" / "run.json").read_text())
    assert meta["status"] == "interrupted"
    assert meta["records_written"] > 10  # every record up to t = 0.1 s was kept


@hs.vector_field(allocates=False)
def _divide_by_first(t, x, p, mode, xdot):
    xdot[0] = 1.0 / p[0]


def test_a_division_by_zero_in_a_models_equations_is_a_failed_run_with_time_mode_and_cause():
    model = hybrid.Model(name="divider", state_names=("x",), state_defaults=np.zeros(1),
                         param_names=("c",), param_defaults=np.array([0.0]), guards=(),
                         output_names=(), vector_field=_divide_by_first)
    with pytest.raises(SimulationError) as info:
        simulate(model, 1.0, options=Options(method="rk4_fixed", h0=0.01), progress=False)
    assert info.value.result.status == "numerical_error"
    assert "t = 0 s" in str(info.value) and "ZeroDivisionError" in str(info.value)


def test_a_run_writer_or_load_run_given_the_wrong_kind_of_argument_names_it(tmp_path):
    """Before session 31: TypeError from pathlib (None or a number as the directory), AttributeError (a
    Robot instead of its model) or TypeError (a list as the metadata)."""
    from legsim.io import RunWriter, load_run

    ball = registry.build("bouncing_ball")
    for args, fragment in (((None, ball, {}), "RunWriter out_dir = None: expected a path"),
                           ((tmp_path / "r", "ball", {}), "RunWriter: model = str, expected a legsim.hybrid"),
                           ((tmp_path / "r", ball, ["x"]), r"RunWriter: metadata = \['x'\], expected a map")):
        with pytest.raises(InputError, match=fragment):
            RunWriter(*args)
    with pytest.raises(InputError, match="load_run: out_dir = 3: expected a path"):
        load_run(3)


def test_a_run_written_from_python_ends_with_a_final_status_however_it_stops(tmp_path):
    """``with RunWriter(...)`` (the Python demos' runs, the runner): a failed run keeps the engine's status
    and its message (time, mode, cause), Ctrl-C outside the engine is "interrupted", any other error is
    "failed" naming it; never a run.json left saying "running"."""
    from legsim.io import RunWriter

    model = hybrid.Model(name="divider", state_names=("x",), state_defaults=np.zeros(1),
                         param_names=("c",), param_defaults=np.array([0.0]), guards=(),
                         output_names=(), vector_field=_divide_by_first)
    with pytest.raises(SimulationError), RunWriter(tmp_path / "a", model, {}) as writer:
        simulate(model, 1.0, options=Options(method="rk4_fixed", h0=0.01), progress=False, sinks=[writer])
    meta = json.loads((tmp_path / "a" / "run.json").read_text())
    assert meta["status"] == "numerical_error" and "ZeroDivisionError" in meta["message"]
    # a block that ends normally writes what waits and how the run ended (the engine tells its sinks),
    # also a run that stopped without raising; before session 30 its records were lost, run.json "running"
    with RunWriter(tmp_path / "b", model, {}) as writer:
        res = simulate(model, 1.0, options=Options(method="rk4_fixed", h0=0.01), progress=False,
                       sinks=[writer], raise_on_error=False)
    meta = json.loads((tmp_path / "b" / "run.json").read_text())
    assert meta["status"] == "numerical_error" == res.status and meta["message"] == res.message
    ball = registry.build("bouncing_ball")
    with RunWriter(tmp_path / "c", ball, {}) as writer:
        res = simulate(ball, 0.2, progress=False, sinks=[writer])
    meta = json.loads((tmp_path / "c" / "run.json").read_text())
    assert meta["status"] == "done" and meta["records_written"] == res.n > 0
    assert meta["stats"]["steps"] == res.stats["steps"]
    for stop, status, message in ((KeyboardInterrupt, "interrupted", "interrupted by the user"),
                                  (ValueError("no feet"), "failed", "ValueError: no feet")):
        with pytest.raises(type(stop) if isinstance(stop, Exception) else stop), \
                RunWriter(tmp_path / status, model, {}):
            raise stop
        meta = json.loads((tmp_path / status / "run.json").read_text())
        assert meta["status"] == status and message in meta["message"]


def test_a_state_or_output_that_a_run_does_not_have_is_named_with_the_closest_and_the_valid_ones(tmp_path):
    """``Result.state``/``output`` and the same on a run directory read back (``load_run``): was
    ``ValueError: tuple.index(x): x not in tuple`` (a KeyError on the run directory)."""
    from legsim.io import RunWriter, load_run

    model = registry.build("bouncing_ball")
    with RunWriter(tmp_path / "ball", model, {}) as writer:
        res = simulate(model, 0.2, progress=False, sinks=[writer])
    for run in (res, load_run(tmp_path / "ball")):
        np.testing.assert_array_equal(run.state("y"), res.x[:, 0])
        with pytest.raises(InputError, match=r"bouncing_ball: state 'yy' does not exist "
                                             r"\(did you mean 'y'\?\); valid: y, v$"):
            run.state("yy")
        with pytest.raises(InputError, match=r"output 'enrgy' does not exist \(did you mean 'energy'\?\)"):
            run.output("enrgy")
        with pytest.raises(InputError, match=r"bouncing_ball: 'energy' is an output, not a state: "
                                             r"use .output\('energy'\)"):
            run.state("energy")
        with pytest.raises(InputError, match=r"'v' is a state, not an output: use .state\('v'\)"):
            run.output("v")
        for name in (np.array([0, 1]), 0, None):  # an array was numpy's "truth value ... is ambiguous"
            with pytest.raises(InputError, match=r"is not a name \(expected a string\); valid: y, v$"):
                run.state(name)


def test_the_transition_budget_is_not_called_chattering_unless_events_pile_up(tmp_path):
    """SimSect's maxChartCount (default 128) stops a long SLIP run: the message says so and how to
    go on. The Coulomb block without sliding flips modes at one instant: that is chattering."""
    rc = tmp_path / "SimSect.rc"
    rc.write_text(SAMPLE_RC.read_text().replace("finalTime     = 20", "finalTime     = 25")
                  .replace("maxChartCount = 1000", "maxChartCount = 128"))
    with pytest.raises(SimulationError) as info:
        run_simsect(rc, tmp_path, progress=False, echo=lambda s: None)
    msg = str(info.value)
    assert info.value.result.status == "max_transitions"
    assert "max_transitions = 128 transitions reached (SimSect's maxChartCount)" in msg
    assert "raise max_transitions (maxChartCount) for longer runs" in msg and "not chattering" in msg
    assert 15.0 < info.value.t < 25.0
    assert sum(1 for _ in (tmp_path / "slip.data").open()) == info.value.result.n  # rows kept
    from legsim.examples import coulomb_block

    with pytest.raises(SimulationError) as info:
        simulate(coulomb_block.build_model(), 2.5, options=Options(sliding=False, max_transitions=200))
    assert info.value.result.status == "chattering" and "pile up" in str(info.value)


def test_the_sample_simsect_rc_runs_and_is_written_on_request(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, err = _run(["simsect"], capsys)
    assert code == 2 and "legsim simsect --sample" in err
    assert main(["simsect", "--sample"]) == 0
    assert (tmp_path / "SimSect.rc").read_text() == SAMPLE_RC.read_text()
    code, err = _run(["simsect", "--sample"], capsys)
    assert code == 2 and "exists already" in err
    assert main(["simsect", "-q"]) == 0
    rows = np.loadtxt(tmp_path / "slip.data")
    assert rows.shape == (2001, 5) and rows[-1, 0] == pytest.approx(20.0)


@pytest.mark.parametrize("name", sorted(registry.BUILTIN_MODELS))
def test_every_registered_model_declares_units_and_ranges_its_defaults_satisfy(name):
    model = registry.build(name)
    assert model.param_ranges, f"{name} declares no parameter ranges"
    index = {n: i for i, n in enumerate(model.param_names)}
    for key, rng in model.param_ranges.items():
        assert rng.contains(float(model.param_defaults[index[key]])), key
    model.params()  # the defaults pass the model's own cross-parameter rules


def test_models_name_shows_each_parameters_unit_and_allowed_values(capsys):
    assert main(["models", "slip"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("body_mass"))
    assert "> 0 kg" in line and "point mass" in line
    assert "one of 0, 1" in out and "digest" not in out


def test_models_of_a_file_shows_its_model_and_what_a_controller_of_its_robot_reads_and_returns(capsys):
    """``legsim models FILE.toml``: a hardware file's robot from parts, or a scenario's model; for a robot
    the controller's inputs (sensors.NAME: type, channels) and its commands in order."""
    assert main(["models", str(SCENARIO_DIR / "hopper_hardware.toml")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hopper: assembled robot 'hopper': 2 actuators, 5 sensors (16 channels)")
    assert "controller, every 1 ms: reads sensors.NAME" in out
    assert re.search(r"^  enc +JointEncoder +\(3\): rail, hip, knee$", out, re.M), out
    assert re.search(r"^  imu +IMU +\(6\): acc_x, acc_y, acc_z, gyro_x, gyro_y, gyro_z$", out, re.M), out
    assert "returns 2 commands, in this order: hip (DCMotor), knee (DCMotor)" in out
    # its parts, every field with the defaults the file leaves out (back_emf = the torque constant,
    # inductance 0, ...), a measurement by the fields off their defaults
    assert ("  actuator knee: DCMotor; joint = knee, resistance = 1, torque_constant = 0.03, v_max = 24, "
            "back_emf = 0.03, inductance = 0, gear = 30, efficiency = 0.9, i_max = 10, command = voltage, "
            "rotor_inertia = 1e-05, battery = none\n") in out
    assert ("  sensor rate: JointVelocity; rate_hz = 0, measurement = { noise_std = 0.01, cutoff_hz = 100, "
            "seed = 3 }, joints = hip, knee\n") in out
    assert "rotation = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], accelerometer = true" in out
    assert ("  contacts: event path, 1 points (foot); normal law hunt_crossley, friction coulomb; "
            "ground Plane; 0 obstacles\n") in out
    assert main(["models", str(SCENARIO_DIR / "hopper.toml")]) == 0  # the scenario running that file
    assert capsys.readouterr().out == out
    assert main(["models", str(SCENARIO_DIR / "slip_run.toml")]) == 0
    slip = capsys.readouterr().out
    assert slip.startswith("slip: ") and "controller" not in slip
    code, err = _run(["models", "nothing.toml"], capsys)
    assert code == 2 and "file 'nothing.toml' not found" in err


def test_a_param_range_describes_and_checks_itself():
    r = hybrid.between(0.0, 1.0, "m", open_high=True)
    assert r.allowed() == "in [0, 1) m" and r.contains(0.0) and not r.contains(1.0)
    assert not hybrid.positive().contains(0.0) and hybrid.nonnegative().contains(0.0)
    assert not hybrid.positive().contains(float("nan"))
    with pytest.raises(InputError, match=r"f.toml: \[params\] e = 2: out of range, expected in \[0, 1\] m"):
        hybrid.between(0.0, 1.0, "m").check(2.0, "f.toml: [params] e")
    with pytest.raises(ValueError, match="outside its declared range"):  # a model's own mistake
        hybrid.Model(name="m", state_names=("x",), state_defaults=np.zeros(1), param_names=("c",),
                     param_defaults=np.array([-1.0]), guards=(), output_names=(),
                     vector_field=_divide_by_first, param_ranges={"c": hybrid.positive()})


def test_the_cli_starts_without_loading_the_numerics():
    """``legsim --help`` and ``legsim models`` must start fast (issue 20: <= 0.3 s): neither the
    parser nor the model list imports numba, SciPy or the engine."""
    code = ("import sys\nfrom legsim import cli, registry\ncli.build_parser()\nregistry.available_models()\n"
            "print(sorted(m for m in ('numba', 'scipy', 'legsim.hybrid', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"




def test_a_long_compilation_is_announced_with_what_and_an_estimate_then_its_duration(monkeypatch, tmp_path):
    """Issue 20: a first run is not silent. Driven by hand here (a cold compile cannot be forced in a
    test): compilations shorter than ``after`` say nothing; a longer one names what it compiles and
    the estimate, the next known kernel of the same burst is named too, and the burst ends with its
    duration. In an empty cache directory: the estimate is then the table's, not the last compile's on this
    machine (which the suite's warm-up records when it compiles the engine)."""
    import io
    import time

    from legsim._compiling import ESTIMATES, _Watcher

    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))

    out = io.StringIO()
    w = _Watcher(out, after=0.05)
    w.start("legsim.robots.slip.slip_field")  # quick: nothing said
    w.end()
    time.sleep(0.1)
    assert out.getvalue() == ""
    w.start("legsim.hybrid._kernels.advance")
    w.start("legsim.hybrid._kernels._step")  # nested: part of the same compilation
    time.sleep(0.15)
    w.end()
    w.end()
    w.start("legsim.assembly._hooks.robot_guards")
    w.end()
    w.close()
    lines = out.getvalue().splitlines()
    what, seconds = ESTIMATES["legsim.hybrid._kernels.advance"]
    assert lines[0].startswith("legsim: compiling for this machine, once") and what in lines[0]
    assert f"about {seconds:.0f} s" in lines[0]
    assert "now the assembly layer's robot hooks" in lines[1]
    assert lines[2].startswith("legsim: compiled in ") and len(lines) == 3


def test_warmup_compiles_the_families_asked_for_and_refuses_unknown_ones():
    from legsim.warmup import FAMILIES, warmup

    said = []
    took = warmup(["slip", "hexapod"], jobs=2, echo=said.append)
    assert set(took) == {"slip", "hexapod"} and all(s >= 0.0 for s in took.values())
    assert said[0].startswith("legsim warmup: compiling 2 families in 2 processes")
    assert said[-1].startswith("legsim warmup: done in")
    assert {m for m, _ in FAMILIES.values()} >= {"legsim.hybrid._engine", "legsim.assembly._hooks"}
    with pytest.raises(InputError, match="unknown 'families'"):
        warmup(["slp"], echo=said.append)
    for jobs in (0, -2, 2.5, "2"):  # 0 and -2 were taken as all cores and as one process
        with pytest.raises(InputError, match=f"warmup: 'jobs' = {jobs!r}, expected a whole number in"):
            warmup(["slip"], jobs=jobs, echo=said.append)


def test_warmup_compiles_the_assembly_hooks_dynamics_next_in_the_second_process(monkeypatch):
    """The assembly family's hooks reach their joint accelerations ~25 s in: with two processes or more,
    the second compiles those first (legsim.assembly._prewarm) so that the hooks load them from the
    cache (measured: the assembly family 64-69 s -> 47 s, the warm-up 68-71 -> 66 s)."""
    import concurrent.futures as cf

    from legsim._compiling import PREWARM, REPLAY_PREWARM
    from legsim.warmup import FAMILIES, warmup

    order = []

    class Pool:  # runs nothing: records what is submitted, in order
        def __init__(self, jobs, mp_context=None):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def submit(self, fn, module):
            order.append(module)
            f = cf.Future()
            f.set_result((module, 0.0))
            return f

    monkeypatch.setattr(cf, "ProcessPoolExecutor", Pool)
    took = warmup(["slip", "assembly", "engine"], jobs=2, echo=lambda line: None)
    assert order == [FAMILIES["assembly"][0], PREWARM, FAMILIES["engine"][0], FAMILIES["slip"][0],
                     REPLAY_PREWARM]  # last: what a first run's replay of a robot needs
    order.clear()
    warmup(["contact", "assembly"], jobs=2, echo=lambda line: None)  # the assembly first, though smaller
    assert FAMILIES["contact"][1] > FAMILIES["assembly"][1]
    assert order == [FAMILIES["assembly"][0], PREWARM, FAMILIES["contact"][0], REPLAY_PREWARM]
    assert set(took) == {"assembly", "assembly dynamics", "engine", "slip", "replay kinematics"}
    order.clear()
    warmup(["slip", "assembly"], jobs=1, echo=lambda line: None)  # one process: nothing to overlap
    assert order == [FAMILIES["assembly"][0], FAMILIES["slip"][0], REPLAY_PREWARM]
    order.clear()
    warmup(["slip"], jobs=2, echo=lambda line: None)  # no robot from parts: no replay kinematics
    assert order == [FAMILIES["slip"][0]]
    order.clear()
    said = []
    warmup(["assembly"], jobs=2, echo=said.append)  # the assembly alone (after an edit): still two processes
    assert order == [FAMILIES["assembly"][0], PREWARM, REPLAY_PREWARM] and " in 2 processes " in said[0]


def test_a_bundled_scenarios_name_given_to_run_says_how_to_run_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, err = _run(["run", "slip_run", "--out", "o"], capsys)
    assert code == 2 and "scenario file 'slip_run' not found ('slip_run' is a bundled scenario: " in err
    bundled = SCENARIO_DIR / "slip_run.toml"
    assert f"`legsim demo slip_run` runs it with its figures; its file is {bundled})" in err
    for name in ("hopper_hardware", "nothing", "elsewhere/slip_run.toml"):  # no scenario by that name here
        code, err = _run(["run", name, "--out", "o"], capsys)
        assert code == 2 and err.strip().endswith(f"scenario file '{name}' not found"), err


@pytest.mark.parametrize("kind", ["scenario", "init file", "hardware file", "URDF file", "variations",
                                  "run file", "sweep file", "log file"])
@pytest.mark.parametrize("bad", ["directory", "not utf-8"])
def test_a_file_that_cannot_be_read_as_text_is_named_without_a_traceback(tmp_path, capsys, monkeypatch,
                                                                         kind, bad):
    """Every file a user hands legsim (a scenario, a SimSect init file, a hardware file and its URDF, a
    sweep's variations, a run's run.json, a sweep's sweep.json, a CSV log to fit) that is a directory
    or holds bytes that are not UTF-8 text: exit 2, one line naming the file (both were tracebacks:
    IsADirectoryError, UnicodeDecodeError)."""
    monkeypatch.chdir(tmp_path)
    names = {"run file": "r/run.json", "sweep file": "w/sweep.json", "URDF file": "leg.urdf",
             "hardware file": "hw.toml", "variations": "v.csv", "init file": "x.rc", "log file": "log.csv"}
    target = tmp_path / names.get(kind, "s.toml")
    target.parent.mkdir(exist_ok=True)
    if bad == "directory":
        target.mkdir()
    else:
        target.write_bytes(b"\xff\xfe\x00 not text")
    slip = (SCENARIO_DIR / "slip_run.toml").read_text()
    hopper = (SCENARIO_DIR / "hopper_hardware.toml").read_text()
    if kind == "hardware file":
        _scenario(tmp_path, 'robot = "hw.toml"\nt_final = 0.1\n')
    if kind == "URDF file":
        (tmp_path / "hw.toml").write_text(hopper.replace('urdf = "hopper.urdf"', 'urdf = "leg.urdf"'))
        _scenario(tmp_path, 'robot = "hw.toml"\nt_final = 0.1\n')
    if kind == "variations":
        _scenario(tmp_path, slip)
    argv = {"init file": ["simsect", "-c", "x.rc"], "run file": ["plot", "r"],
            "variations": ["sweep", "s.toml", "--variations", "v.csv", "--out", "o"],
            "sweep file": ["sweep", "--resume", "--out", "w"],
            "log file": ["fit", "stribeck-tanh", "log.csv"]}.get(kind, ["run", "s.toml", "--out", "o"])
    code, err = _run(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and target.name in err, err
    assert ("is a directory" if bad == "directory" else "is not UTF-8 text") in err, err


def test_a_part_being_written_when_a_run_dies_is_never_read_and_a_damaged_part_is_named(tmp_path, capsys,
                                                                                          monkeypatch):
    """Parquet parts are written whole or not at all (a temporary name, then a rename): a run killed while
    writing one leaves a run directory that reads back (without that part), and the next run into it
    removes the leftover; run.json says the run was interrupted while writing (it said "running": the
    writer tried the same write again on the way out). A part damaged some other way, or a run.json
    that is JSON but not a run's, is named, exit 2, not a pyarrow traceback or a KeyError."""
    import pyarrow.parquet as pq

    from legsim.io import RunWriter, load_run

    model = registry.build("slip")
    write_table = pq.write_table

    def dies_half_way(table, where, **options):
        with open(where, "wb") as fh:
            fh.write(b"PAR1 half a part")
        raise KeyboardInterrupt

    monkeypatch.setattr(pq, "write_table", dies_half_way)
    killed = tmp_path / "killed"
    with pytest.raises(KeyboardInterrupt), RunWriter(killed, model, {}) as writer:
        res = simulate(model, 0.2, progress=False, sinks=[writer])
        writer.finish(res.status, res.message, res.stats)  # writes the last part, dies half way
    monkeypatch.setattr(pq, "write_table", write_table)
    assert [p.name for p in (killed / "records").iterdir()] == [".part-00000.parquet.tmp"]
    run = load_run(killed)
    assert run.meta["status"] == "interrupted" and len(run.records) == 0
    assert re.fullmatch(r"interrupted by the user while writing the last [1-9]\d* records \(not kept\); "
                        r"the run had ended: done", run.meta["message"]), run.meta["message"]
    with RunWriter(killed, model, {}) as writer:
        res = simulate(model, 0.2, progress=False, sinks=[writer])
        writer.finish(res.status, res.message, res.stats)
    assert [p.name for p in (killed / "records").iterdir()] == ["part-00000.parquet"]
    assert len(load_run(killed).records["t"]) > 10

    run_json = (killed / "run.json").read_text()
    for other in ("{}", "[1, 2]"):  # valid JSON, not a run's (was a KeyError / TypeError traceback)
        (killed / "run.json").write_text(other)
        code, err = _run(["plot", str(killed)], capsys)
        assert code == 2 and "run.json is not a legsim run file: no 'model', 'columns'" in err, err
    (killed / "run.json").write_text(run_json)
    (killed / "records" / "part-00000.parquet").write_bytes(b"not parquet at all")
    code, err = _run(["plot", str(killed)], capsys)
    assert code == 2 and "part-00000.parquet' is not a readable Parquet file" in err, err


def test_a_damaged_sweep_table_is_named_without_a_traceback(tmp_path, capsys):
    """`legsim sweep --resume` (and the table's readers) on a sweep whose sweep.parquet was overwritten:
    exit 2 naming the file (was pyarrow's ArrowInvalid traceback)."""
    shutil.copy(SCENARIO_DIR / "slip_run.toml", tmp_path / "s.toml")
    out = tmp_path / "sw"
    code, err = _run(["sweep", str(tmp_path / "s.toml"), "--grid", "params.k=10000,20000", "--out", str(out),
                      "-q", "--workers", "1"], capsys)
    assert code == 0, err
    (out / "sweep.parquet").write_bytes(b"junk")
    code, err = _run(["sweep", "--resume", "--out", str(out)], capsys)
    assert code == 2 and f"'{out / 'sweep.parquet'}' is not a readable Parquet file" in err, err


def test_a_controllers_own_error_is_told_with_its_type_and_the_line_of_the_users_code(tmp_path, capsys):
    """A bug in a user's controller, from the CLI (no traceback): the exception's type and message and
    the file, line and function of the user's code it came from; a sensor that does not exist is named
    with the closest one and the list (was "the controller failed: my bug", nothing else)."""
    buggy = ("import numpy as np\n\n"
             "def make(which='raise'):\n"
             "    def controller(t, s):\n"
             "        if which == 'raise':\n"
             "            raise RuntimeError('my bug')\n"
             "        return np.zeros(2) + s.encc[0]\n"
             "    return controller\n")
    for which, says in (("raise", "RuntimeError: my bug"),
                        ("sensor", "AttributeError: no sensor 'encc' (did you mean 'enc'?); sensors: enc, "
                                   "rate, imu, foot_force, amps (and q, v, x: the true state)")):
        scenario = _hopper_with(tmp_path, buggy, "buggy.py:make", f"which = '{which}'", which)
        code, err = _run(["run", scenario, "--out", str(tmp_path / which)], capsys)
        line = 6 if which == "raise" else 7
        where = f"({tmp_path / 'buggy.py'}:{line}, in controller)"
        assert code == 1 and f"the controller failed: {says} {where}" in err, err


def test_a_controller_that_cannot_take_t_and_sensors_is_refused_before_the_run():
    """``Robot.simulate(t, controller)`` with a function of the wrong arity: an InputError naming it and
    its signature before anything runs (was a failed run at t = 0, "TypeError: ... takes 1 positional
    argument but 2 were given")."""
    from legsim.assembly.hardware import load_hardware

    robot = load_hardware(SCENARIO_DIR / "hopper_hardware.toml")

    def only_time(t):
        return [0.0, 0.0]

    with pytest.raises(InputError, match=r"controller .*only_time\(t\) cannot be called as controller\(t, "
                                         r"sensors\)"):
        robot.simulate(0.01, only_time)
    robot.simulate(0.01, lambda t, s, *rest: [0.0, 0.0])  # more, optional, arguments are fine


def test_a_missing_optional_package_is_one_line_saying_how_to_install_it(capsys):
    """The examples that compare with MuJoCo or load pybullet_data's robots, run after the Quickstart's
    `pip install .` (no extras): was a ModuleNotFoundError traceback. A module that is no optional
    package of legsim's is a bug, and keeps its traceback."""
    from legsim.cli import guarded

    def needs(name):
        def body():
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return body

    assert guarded(needs("mujoco"), "incline_creep.py") == 2
    assert capsys.readouterr().err == ("incline_creep.py: error: this needs the optional package "
                                       "'mujoco': pip install mujoco (or, in legsim's folder, pip install "
                                       "'.[peers]')\n")
    assert guarded(needs("pybullet_data.x"), "a1_trot.py") == 2
    assert "optional package 'pybullet'" in capsys.readouterr().err
    with pytest.raises(ModuleNotFoundError):
        guarded(needs("legsim_nothing"))


def test_a_sweeps_folder_given_where_a_run_belongs_says_where_its_runs_are(tmp_path, capsys):
    """`legsim plot SWEEP` (or view, animate): was "not a legsim run directory ... write one with legsim
    run"."""
    from legsim.sweep import Sweep, run_sweep

    slip = SCENARIO_DIR / "slip_run.toml"
    quiet = {"backend": "serial", "progress": False, "echo": lambda s: None}
    sweep = Sweep(slip, grid={"params.k": [900.0], "t_final": [0.2]})
    run_sweep(sweep, tmp_path / "bare", **quiet)
    run_sweep(sweep, tmp_path / "kept", records=True, **quiet)
    code, err = _run(["plot", str(tmp_path / "bare")], capsys)
    assert code == 2 and (f"'{tmp_path / 'bare'}' is a sweep, not one run: its table is "
                          f"{tmp_path / 'bare' / 'sweep.parquet'}; its runs' records were not kept "
                          "(legsim sweep ... --records keeps them)") in err
    code, err = _run(["view", str(tmp_path / "kept"), "--html", str(tmp_path / "x.html")], capsys)
    assert code == 2 and f"its runs' records are in {tmp_path / 'kept' / 'runs'} (run-00000 ...)" in err
    assert main(["plot", str(tmp_path / "kept" / "runs" / "run-00000")]) == 0


def test_view_on_an_address_it_cannot_serve_on_says_so_instead_of_waiting_for_ever(tmp_path, capsys):
    """viser's server thread tries port after port on any error and then gives up without telling its
    caller: ``legsim view RUN --host NAME`` with a name that does not resolve (or an address of no
    interface here) waited for ever, and so did a port past which no port up to 65535 was free. legsim
    now tries the address and finds the port first (a subprocess with a time limit, so that a regression
    fails instead of hanging the suite)."""
    assert main(["run", str(SCENARIO_DIR / "slip_run.toml"), "--out", str(tmp_path / "run"), "-q"]) == 0
    for host in ("nonsense.invalid", "192.0.2.1"):  # no such name; an address (TEST-NET-1) of no interface
        done = subprocess.run([sys.executable, "-m", "legsim", "view", str(tmp_path / "run"), "--host", host],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert f"'host' = '{host}': cannot serve on it" in done.stderr and "Traceback" not in done.stderr
    # Past port 65535 viser's thread died with an OverflowError and the command waited for ever: the last
    # port taken (by this test, or already by another program) is now a message naming --port.
    with socket.socket() as taken:
        with contextlib.suppress(OSError):
            taken.bind(("127.0.0.1", 65535))
            taken.listen()
        done = subprocess.run([sys.executable, "-m", "legsim", "view", str(tmp_path / "run"),
                               "--port", "65535"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "'port' = 65535: ports 65535 to 65535 are all taken" in done.stderr
    assert "Traceback" not in done.stderr
    capsys.readouterr()


def test_a_whole_number_of_thousands_of_digits_is_named_not_a_traceback(tmp_path, capsys):
    """Python will not convert an int of more than 4300 digits to text: tomllib raises a ValueError (not
    its TOMLDecodeError) for one in a file, and a message that showed one with repr() failed itself.
    A scenario, a hardware file and the checks of the Python API now say what it is."""
    from legsim.assembly.hardware import parse_hardware
    from legsim.errors import as_floats, check_array, check_number, check_whole

    huge = "9" * 5000
    scenario = _scenario(tmp_path, f'model = "slip"\nt_final = {huge}\n')
    assert main(["run", str(scenario), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == f"legsim: error: {scenario}: not valid TOML: a whole number of more than 4300 digits\n"
    with pytest.raises(InputError, match="hw.toml: not valid TOML: a whole number of more than 4300 digits"):
        parse_hardware(f'[robot]\nname = "x"\nmass = {huge}\n', "hw.toml")
    for check in (lambda v: check_number("part", "mass", v), lambda v: check_whole("part", "count", v),
                  lambda v: check_array("part", "offset", v, (3,))):
        with pytest.raises(InputError, match=r"= -?<a whole number of about 5001 digits>, expected"):
            check(-(10**5000))
    assert as_floats([1.0, 10**400]).size == 0  # not numbers a float holds: refused by the caller's check


def test_a_string_of_digits_or_a_bool_is_not_a_number_to_the_array_checks():
    """numpy reads "111" as 111.0 and True as 1.0, also inside a list of numbers, so before session 39
    errors.check_values took ``r_total(z=True, ...)`` as z = 1 m and a heading of "111" as (1, 1, 1); it now
    refuses them, as check_number does for one number, and keeps every array of numbers as it was."""
    from legsim.errors import as_floats, check_values

    for value in ("111", b"1", True, [True, 1.0], [[1.0, False]], [1.0, "2"], np.array([True]),
                  np.array([1, "a"], dtype=object), 1 + 2j):
        assert as_floats(value).size == 0, value
        with pytest.raises(InputError, match="'z' = "):
            check_values("r_total", "z", value)
    for value, expected in (([1, 2.5], [1.0, 2.5]), (np.arange(3), [0.0, 1.0, 2.0]), (3, 3.0),
                            ((np.float64(1.0), 2), [1.0, 2.0]), ([2**70, 1], [2.0**70, 1.0])):
        np.testing.assert_array_equal(as_floats(value), expected)


def test_fit_options_that_are_not_what_they_say_are_named(tmp_path, capsys):
    """``legsim fit``'s ``--fix NAME=VALUE`` without a number was float()'s ValueError, and ``filter --out``
    naming a directory or a path that cannot be written was an IsADirectoryError or FileNotFoundError from
    numpy; each is now one line naming the option. The filtered column written is the zero-phase filter's."""
    from legsim import identify

    log = tmp_path / "log.csv"
    v = np.linspace(-0.3, 0.3, 200)
    log.write_text("v,F\n" + "".join(f"{a!r},{10 * math.tanh(a / 0.01) + 5 * a!r}\n" for a in v.tolist()))
    for fix, said in (("f_s=abc", "the value 'abc' is not a number"), ("f_s", "expected NAME=VALUE")):
        assert main(["fit", "stribeck-tanh", str(log), "--force", "F", "--fix", fix]) == 2
        assert capsys.readouterr().err == f"legsim: error: --fix '{fix}': {said} (e.g. --fix f_s=12.5)\n"
    spec = sorted(identify.FILTER_SPECS)[0]
    assert main(["fit", "filter", str(log), "--column", "v", "--spec", spec, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == f"legsim: error: --out '{tmp_path}' is a directory: give a file name for the filtered " \
                  "column\n"
    out = tmp_path / "new" / "v.csv"
    assert main(["fit", "filter", str(log), "--column", "v", "--spec", spec, "--fs", "1000", "--out",
                 str(out)]) == 0
    written = np.loadtxt(out, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(written, identify.zero_phase(v, spec, 1000.0))
    assert out.read_text().splitlines()[0] == "v_filtered"
    capsys.readouterr()


def test_a_log_that_cannot_determine_a_fit_is_refused_not_fitted(tmp_path, capsys):
    """A log of one velocity gave a Stribeck-tanh "fit" of six parameters (k_tanh at 2e10, rms 0), a
    quartic area of one voltage numpy's LinAlgError traceback, and a log of a header only a message
    showing an empty array. Each fit now needs as many distinct abscissae as it has free parameters, and
    the options' messages use the options' names (the function arguments were min_len, p_s and p_e)."""
    from legsim.identify import fit_parameters
    from legsim.identify.hop import fit_hop_heights

    const = tmp_path / "const.csv"
    const.write_text("v,F\n" + "0.1,3.0\n" * 50)
    moving = tmp_path / "moving.csv"
    moving.write_text("v,F\n" + "".join(f"{a / 100!r},{a!r}\n" for a in range(-50, 50)))
    header = tmp_path / "header.csv"
    header.write_text("v,F\n")
    for argv, said in (
            (["stribeck-tanh", const, "--force", "F"], "fit_stribeck_tanh: 'v' has 1 distinct nonzero speed: "
             "fitting 6 free parameters (f_s, f_c, c_v, v_s, i, k_tanh; hold some with 'fix') needs at "
             "least 6"),
            (["area", const, "--voltage", "v", "--area", "F"],
             "fit_quartic_area: 'vc' has 1 distinct value: fitting a quartic on Vc >= 0 needs at least 5"),
            (["input-pressure", const, "--voltage", "v", "--pressure", "F", "--supply", "6e5", "--exhaust",
              "1e5"], "fit_input_pressure: 'vc' has 1 distinct value: fitting the tanh's centre and width "
             "needs at least 3"),
            (["input-pressure", moving, "--voltage", "v", "--pressure", "F", "--supply", "-5", "--exhaust",
              "0"], "fit_input_pressure: 'supply' = -5.0, expected a finite number in [0, 1e+09]"),
            (["coulomb-viscous", moving, "--force", "F", "--min-samples", "0"],
             "constant_velocity_segments: 'min_samples' = 0, expected a whole number >= 1"),
            (["stribeck-tanh", header, "--force", "F"],
             f"log file '{header}' has a header row but no data rows")):
        assert main(["fit", *map(str, argv)]) == 2
        assert capsys.readouterr().err == f"legsim: error: {said}\n"
    fix = [a for name in ("i=2", "k_tanh=40", "v_s=0.1", "c_v=0", "f_c=1") for a in ("--fix", name)]
    assert main(["fit", "stribeck-tanh", str(const), "--force", "F", *fix]) == 0  # F_S alone: determined
    assert json.loads(capsys.readouterr().out)["f_s"] == pytest.approx(1 + math.e * (3 / math.tanh(4) - 1))
    with pytest.raises(InputError, match="'measured' has 1 finite values: fitting 2 parameters"):
        fit_parameters(lambda q: np.full(3, q["a"] + q["b"]), [np.nan, 1.0, np.nan], {"a": 0.0, "b": 0.0})
    with pytest.raises(InputError, match="'valve_ms' has 1 distinct value: fitting the flow rating and "
                                         "the latency"):
        fit_hop_heights([20.0, 20.0], [0.1, 0.1], 5e5, fit_latency=True)


def test_simsect_sample_goes_into_a_new_folder_and_an_unwritable_place_is_named(tmp_path, capsys):
    """``legsim simsect --sample -c PATH`` in a folder that does not exist yet makes it (it was a
    FileNotFoundError), and a place that cannot be written (below a file) is one line naming ``-c``."""
    target = tmp_path / "new" / "SimSect.rc"
    assert main(["simsect", "--sample", "-c", str(target)]) == 0
    assert target.read_text() == SAMPLE_RC.read_text()
    (tmp_path / "a_file").write_text("")
    assert main(["simsect", "--sample", "-c", str(tmp_path / "a_file" / "SimSect.rc")]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"legsim: error: -c '{tmp_path / 'a_file'}' is a file: expected a directory for the "
                        "sample init file\n")


def test_a_run_writer_refuses_a_chunk_of_the_wrong_kind_when_it_is_handed_over(tmp_path):
    """Before session 41 a RunWriter took any arrays as a chunk of records and failed only when it wrote the
    part, a second later or at the end of the run (pyarrow's "Length of names (14) does not match length
    of arrays", an IndexError for the events); ``finish(message=nan)`` wrote NaN into run.json;
    ``read_parquet`` read the metadata for any ``what`` but "table" ("tabel" too)."""
    from legsim.io import RunWriter, load_run
    from legsim.io.results import read_parquet

    model = registry.build("slip")
    chunks = []
    simulate(model, 0.02, sinks=[lambda *chunk: chunks.append(chunk)])
    rec, modes, events = chunks[0]
    with RunWriter(tmp_path / "r", model, {}) as writer:
        for chunk, name in (((rec[:, :3], modes, events), "rec"), ((rec, modes[:1], events), "modes"),
                            ((rec, modes, np.zeros(2)), "events"),
                            ((rec.astype(np.float32), modes, events), "rec")):
            with pytest.raises(InputError, match=f"RunWriter: '{name}' = "):
                writer(*chunk)
        writer(rec, modes, events)
        with pytest.raises(InputError, match=r"RunWriter.finish: 'message' = nan, expected a string"):
            writer.finish("done", math.nan, {})
    assert np.array_equal(load_run(tmp_path / "r").records["t"], rec[:, 0])
    part = tmp_path / "r" / "records" / "part-00000.parquet"
    assert read_parquet(part).num_rows == rec.shape[0]
    with pytest.raises(InputError, match=r"read_parquet: 'what' = 'tabel', expected 'table' or 'metadata'"):
        read_parquet(part, "tabel")


def test_a_wrong_argument_to_run_scenario_leaves_an_earlier_run_in_its_directory(tmp_path):
    """Before session 41 ``run_scenario`` opened the run directory, removing the earlier run's records, before
    the engine refused ``keep_records="yes"`` or ``progress="no"``; a ``plot`` or ``echo`` of the wrong kind
    failed only after the whole run (a ValueError, a TypeError)."""
    from legsim.io import load_run
    from legsim.runner import run_scenario

    scenario = tmp_path / "s.toml"
    scenario.write_text('model = "slip"\nt_final = 0.05\n[outputs]\nrecord_period = 0.01\n')
    run_scenario(scenario, tmp_path / "o", progress=False, echo=lambda s: None)
    before = load_run(tmp_path / "o").records["t"]
    for kw, name in (({"keep_records": "yes"}, "keep_records"), ({"progress": "no"}, "progress"),
                     ({"plot": np.zeros(2)}, "plot"), ({"echo": None}, "echo")):
        with pytest.raises(InputError, match=f"run_scenario: '{name}' = "):
            run_scenario(scenario, tmp_path / "o", **{"progress": False, "echo": lambda s: None, **kw})
        assert np.array_equal(load_run(tmp_path / "o").records["t"], before)


def test_a_figure_title_with_a_character_no_font_can_draw_is_refused_by_name(tmp_path):
    """Found by the fuzzing in session 42: ``plot_rig_run`` took a title of a control character or an
    unassigned code point, and matplotlib warned "Glyph 26 missing from font(s) DejaVu Sans" while it
    drew a box. Titles (line breaks allowed) are checked before anything is drawn."""
    import warnings

    from legsim.errors import check_text
    from legsim.robots.pneumatic_rig.rig import Reference, RigBench
    from legsim.robots.pneumatic_rig.scenarios import plot_rig_run

    assert check_text("f", "title", "RATS: roll\nα = 0.3") == "RATS: roll\nα = 0.3"
    for bad in ("\x1a", "a\U00076779", "tab\there", 3):
        with pytest.raises(InputError, match="f: 'title' = .*, expected a string of printable characters"):
            check_text("f", "title", bad)
    run = RigBench().run(Reference("step", r0=0.01, r1=0.02, t_start=0.05), 0.1, x0=0.01)
    with pytest.raises(InputError, match="plot_rig_run: 'title' = '\\\\x1a', expected a string of printable"):
        plot_rig_run(run, tmp_path / "rig.png", title="\x1a")
    assert not (tmp_path / "rig.png").exists()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_rig_run(run, tmp_path / "rig.png", title="step\nresponse")
    assert (tmp_path / "rig.png").stat().st_size > 0
