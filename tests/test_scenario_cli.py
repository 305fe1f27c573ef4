"""TOML scenarios, run directories and the ``legsim`` command (issue 2 §4)."""

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from legsim.cli import SCENARIO_DIR, main
from legsim.errors import InputError, SimulationError
from legsim.io import load_run
from legsim.runner import run_scenario
from legsim.scenario import load_scenario, parse_scenario


def _write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


BUNDLED = sorted(p.stem for p in SCENARIO_DIR.glob("*.toml") if not p.stem.endswith("_hardware"))


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_scenario_runs_with_figures_and_its_run_reads_back(tmp_path, name):
    """Each bundled scenario, cut to 0.3 s, through ``legsim run --plot`` as a user runs it, then its run
    directory read back with every parameter as written. Before session 42 the CRR leg's failed once
    written (so did ``legsim demo crr_leg_gamma_steps``): the assembled leg's parameters hold its unused
    slots (NaN) and open limits (±inf), and reading run.json back refused a NaN in 'scenario.params'."""
    from legsim.io.results import run_params

    text = re.sub(r"(?m)^t_final\s*=\s*\S+", "t_final = 0.3", (SCENARIO_DIR / f"{name}.toml").read_text(),
                  count=1)
    path = _write(tmp_path, text, f"{name}.toml")
    for extra in SCENARIO_DIR.glob(f"{name}*"):  # a scenario's hardware file, URDF and controller
        if extra.suffix != ".toml" or extra.stem != name:
            (tmp_path / extra.name).write_bytes(extra.read_bytes())
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--plot", "-q"]) == 0
    run = load_run(tmp_path / "out")
    assert run.meta["status"] == "done" and float(run.records["t"][-1]) == pytest.approx(0.3)
    sc, written = load_scenario(path), run_params(run.meta)
    if sc.robot is None:  # (a hardware file's robot records its parts instead)
        assert list(written) == list(sc.model.param_names)
        np.testing.assert_array_equal(np.array(list(written.values())), sc.model.params(sc.params))


@pytest.mark.parametrize("text, fragment", [
    ('model = "slip"\nt_fnal = 1\n', "unknown key.*did you mean 't_final'"),
    ('model = "slip"\nt_final = 1\n[params]\nbody_mas = 1\n',
     r"\[params\] body_mas.*did you mean 'body_mass'"),
    ('model = "slip"\nt_final = 1\n[initial]\nydot = "fast"\n', r"\[initial\] ydot.*expected a number"),
    ('model = "slip"\nt_final = 1\n[integrator]\nrtol = -1\n', r"\[integrator\] rtol = -1.*allowed > 0"),
    ('model = "slip"\nt_final = 1\n[integrator]\nmax_stop_iter = 2.5\n', "whole number"),
    ('model = "slip"\nt_final = 1\n[integrator]\nmethod = "leapfrog"\n', "method 'leapfrog' is unknown"),
    ('model = "slip"\nt_final = -1\n', "t_final = -1.*out of range"),
    ('model = "slp"\nt_final = 1\n', "did you mean 'slip'"),
    ('t_final = 1\n', "missing key 'model'"),
    ('model = "slip"\nt_final = 1\n[outputs]\nrecord_perod = 0.1\n', "did you mean 'record_period'"),
    ('model = "slip"\nt_final = 1\n[params]\nk = inf\n', "finite"),
])
def test_bad_scenarios_name_the_file_key_and_what_is_allowed(tmp_path, text, fragment):
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=fragment) as exc:
        load_scenario(path)
    assert str(path) in str(exc.value)


def test_invalid_toml_is_reported_with_the_file_name(tmp_path):
    with pytest.raises(InputError, match="not valid TOML"):
        load_scenario(_write(tmp_path, "model = \n"))


def test_run_writes_columnar_records_pandas_reads_and_metadata(tmp_path):
    res = run_scenario(SCENARIO_DIR / "slip_run.toml", tmp_path / "run", progress=False,
                       echo=lambda s: None)
    df = pd.read_parquet(tmp_path / "run" / "records")
    assert list(df.columns[:4]) == ["t", "mode", "x", "y"]
    assert len(df) == res.n == 2001
    assert np.allclose(df["t"].to_numpy(), np.arange(2001) * 0.005, rtol=0, atol=1e-12)
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert meta["status"] == "done" and meta["model"] == "slip"
    assert meta["scenario"]["params"]["k"] == 1000.0 and meta["scenario"]["integrator"]["rtol"] == 1e-9
    assert meta["stats"]["steps"] > 0 and "legsim_version" in meta
    events = pd.read_parquet(tmp_path / "run" / "events")
    assert set(events["guard_name"]) == {"apex", "touchdown", "bottom", "liftoff"}


def test_a_failed_run_keeps_every_record_and_says_time_mode_and_cause(tmp_path):
    sc = parse_scenario({"model": "slip", "t_final": 5.0, "params": {"body_mass": 12.0},
                         "outputs": {"record_period": 0.001}}, "heavy.toml")
    with pytest.raises(SimulationError) as exc:
        run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    msg = str(exc.value)
    assert "t = " in msg and "mode" in msg and "toppled" in msg
    run = load_run(tmp_path / "run")
    assert run.meta["status"] == "invalid_state"
    assert len(run.t) == exc.value.result.n > 500
    assert np.array_equal(run.t, exc.value.result.t)
    assert run.t[-1] == pytest.approx(exc.value.t, abs=1e-3)


def test_plot_writes_state_output_gait_and_path_figures(tmp_path):
    run_scenario(SCENARIO_DIR / "slip_run.toml", tmp_path / "run", progress=False, echo=lambda s: None)
    assert main(["plot", str(tmp_path / "run")]) == 0
    for name in ("states", "outputs", "gait", "path"):
        png = tmp_path / "run" / "plots" / f"{name}.png"
        assert png.stat().st_size > 5000
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_errors_are_one_line_without_traceback(tmp_path):
    bad = _write(tmp_path, 'model = "slip"\nt_final = 1\n[params]\nspring = 3\n')
    proc = subprocess.run([sys.executable, "-m", "legsim", "run", str(bad), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "spring" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "legsim", "plot", str(tmp_path / "nothing")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "run.json" in proc.stderr and "Traceback" not in proc.stderr


def test_output_into_a_closed_pipe_stops_quietly():
    """``legsim models crr_leg | head`` (the reader gone before legsim has written): exit 141 (128 +
    SIGPIPE, as a tool killed by it) without a traceback; argparse's help ignores the failed write (0)."""
    for args, code in ((["models", "crr_leg"], 141), (["models"], 141), (["--help"], 0)):
        read, write = os.pipe()
        os.close(read)  # every write to ``write`` now fails with EPIPE
        try:
            proc = subprocess.run([sys.executable, "-m", "legsim", *args], stdout=write,
                                  stderr=subprocess.PIPE, text=True)
        finally:
            os.close(write)
        assert proc.returncode == code, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "Error" not in proc.stderr, proc.stderr


def test_demo_help_lists_every_demo_with_what_it_shows(capsys):
    """``legsim demo --help`` names every bundled demo, each with one line on what it shows (a Python
    demo's title, a scenario's ``description``), so a user can pick one without reading the sources;
    an unknown name lists them and points there."""
    from legsim.cli import PYTHON_DEMO_TITLES, PYTHON_DEMOS

    assert set(PYTHON_DEMO_TITLES) == set(PYTHON_DEMOS)
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--help"])
    assert exit_.value.code == 0
    listed = dict(re.findall(r"^  (\w+) +(\S.*)$", capsys.readouterr().out.split("demos:")[1], re.M))
    scenarios = {p.stem for p in SCENARIO_DIR.glob("*.toml") if not p.stem.endswith("_hardware")}
    assert set(listed) == scenarios | set(PYTHON_DEMOS)
    for name in scenarios:
        assert listed[name] == tomllib.loads((SCENARIO_DIR / f"{name}.toml").read_text())["description"]
    assert listed["rats_range"].startswith("RATS E11-E13")
    assert main(["demo", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no demo named 'nosuch'" in err and "rats_roll" in err and "legsim demo --help" in err


@pytest.mark.parametrize("name", ["rats_planner", "anton_walk"])
def test_a_python_demo_told_to_write_into_a_file_says_so(tmp_path, capsys, name):
    """``--out`` naming an existing file: exit 2 and a message naming it, before anything runs."""
    (tmp_path / "afile").write_text("")
    assert main(["demo", name, "--out", str(tmp_path / "afile")]) == 2
    assert f"--out '{tmp_path / 'afile'}' is a file" in capsys.readouterr().err


def test_models_lists_and_describes_models(capsys):
    assert main(["models"]) == 0
    assert "slip" in capsys.readouterr().out
    assert main(["models", "slip"]) == 0
    out = capsys.readouterr().out
    assert "touchdown_angle" in out and re.search(r"body_mass\s+= 1\s", out)
    # an assembled robot: its named parameters with their ranges, its packed internals only counted
    assert main(["models", "crr_leg"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"gamma_kp\s+= 4\s+>= 0 V/rad", out) and "gamma_tab_t0" in out
    assert "_scratch" not in out and "_header" not in out
    assert re.search(r"\(and \d+ internal parameters, named _\.\.\.\)", out)


@pytest.mark.parametrize("model, t_final", [("slip", 2.0), ("hexapod", 1.0)])
def test_animate_replays_a_run_as_a_gif_with_one_frame_per_interval(tmp_path, model, t_final):
    from PIL import Image

    sc = parse_scenario({"model": model, "t_final": t_final, "outputs": {"record_period": 0.01}},
                        "anim.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    assert main(["animate", str(tmp_path / "run"), "--fps", "5"]) == 0
    gif = Image.open(tmp_path / "run" / "plots" / "animation.gif")
    assert gif.n_frames == round(t_final * 5)


def test_animate_writes_an_mp4_for_papers_and_names_a_format_it_cannot_write(tmp_path, capsys):
    """A .mp4 target is an H.264 video (imageio's ffmpeg, the [video] extra, in the test extras):
    an ISO media file whose frame count is the replay's; another suffix exits 2 naming it."""
    import imageio.v2 as imageio

    sc = parse_scenario({"model": "slip", "t_final": 2.0, "outputs": {"record_period": 0.01}}, "anim.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    video = tmp_path / "slip.mp4"
    assert main(["animate", str(tmp_path / "run"), "--fps", "5", "--out", str(video)]) == 0
    assert video.read_bytes()[4:8] == b"ftyp"
    assert imageio.get_reader(video).count_frames() == 10
    assert main(["animate", str(tmp_path / "run"), "--out", str(tmp_path / "slip.avi")]) == 2
    assert "as .gif or .mp4, not '.avi'" in capsys.readouterr().err


def _terrain_lines(fig):
    ax = fig.axes[0]
    return [ln.get_data_3d() for ln in ax.get_lines() if ln.get_gid() == "terrain"]


@pytest.mark.parametrize("terrain, height", [
    # the bundled hexapod_rough.toml terrain: h = a1 sin(a2 x) cos(a3 y) (SimSect Table 3)
    ({"terrain_type": 1, "terrain_arg1": 0.01, "terrain_arg2": 6.0, "terrain_arg3": 4.0},
     lambda x, y: 0.01 * np.sin(6.0 * x) * np.cos(4.0 * y)),
    # the continuous slope: h = a1 x + a2 max(y, 0) + a3
    ({"terrain_type": 3, "terrain_arg1": 0.02, "terrain_arg2": 0.1, "terrain_arg3": -0.01},
     lambda x, y: 0.02 * x + 0.1 * np.maximum(y, 0.0) - 0.01),
])
def test_the_hexapod_replay_draws_the_terrain_the_run_used_on_labelled_axes(tmp_path, terrain, height):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from legsim.viz import animate

    sc = parse_scenario({"model": "hexapod", "t_final": 0.3, "terrain": terrain,
                         "outputs": {"record_period": 0.01}}, "rough.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    run = load_run(tmp_path / "run")
    frames = np.array([0, run.t.size - 1])
    fig = plt.figure()
    draw = animate.ANIMATORS["hexapod"](run, fig, frames)
    for k in range(frames.size):
        draw(k)
        lines = _terrain_lines(fig)
        assert len(lines) >= 10  # a grid of lines in x and in y
        x, y, z = (np.concatenate(c) for c in zip(*lines, strict=True))
        body = run.records["x"][frames[k]], run.records["y"][frames[k]]
        assert abs(x.mean() - body[0]) < 0.05 and abs(y.mean() - body[1]) < 0.05  # under the body
        np.testing.assert_allclose(z, height(x, y), atol=1e-12)  # on the run's terrain function
        assert np.ptp(z) > 0.005  # and not a flat plane
        ax = fig.axes[0]
        assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("x [m]", "y [m] (forward)", "z [m]")
        assert "terrain: s" in ax.get_title()
    plt.close(fig)


def test_the_replay_renders_each_frame_once_and_labels_the_slip_axes(tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from legsim.viz.animate import animate_run

    sc = parse_scenario({"model": "slip", "t_final": 1.0, "outputs": {"record_period": 0.01}}, "s.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    renders, labels = [], []
    real = FigureCanvasAgg.draw

    def counting_draw(canvas):
        renders.append(1)
        ax = canvas.figure.axes[0]
        labels.append((ax.get_xlabel(), ax.get_ylabel()))
        return real(canvas)

    monkeypatch.setattr(FigureCanvasAgg, "draw", counting_draw)
    animate_run(tmp_path / "run", fps=10)
    assert len(renders) == 10  # 1 s at 10 frames per second, each rendered once
    assert set(labels) == {("x [m]", "y [m] (height)")}


def test_a_gif_longer_than_its_frame_cap_is_refused_before_a_frame_is_drawn(tmp_path):
    """A GIF holds every frame in memory while Pillow writes it: beyond MAX_GIF_FRAMES (a long run at the
    default 20 frames/s) the message says so and what to change, before any frame is drawn."""
    import matplotlib.pyplot as plt

    from legsim.viz.animate import MAX_GIF_FRAMES, write_animation

    fig = plt.figure()
    drawn = []
    with pytest.raises(InputError, match=f"{MAX_GIF_FRAMES + 1} frames, expected at most MAX_GIF_FRAMES"):
        write_animation(fig, drawn.append, range(MAX_GIF_FRAMES + 1), tmp_path / "long.gif", 20)
    plt.close(fig)
    assert drawn == [] and not (tmp_path / "long.gif").exists()


def test_a_run_without_records_is_refused_by_plot_view_and_animate_naming_it(tmp_path, capsys):
    """A run that ended before its first record (or whose records were moved away): each reader says the run
    has no records, naming it and its status (view --html said "records = <Columns object ...>")."""
    sc = parse_scenario({"model": "slip", "t_final": 0.5}, "s.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    for part in (tmp_path / "run" / "records").glob("part-*.parquet"):
        part.unlink()
    for argv in (["plot", "run"], ["view", "run", "--html", "r.html"], ["animate", "run"]):
        assert main([argv[0], str(tmp_path / argv[1]), *argv[2:]]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"legsim: error: {tmp_path / 'run'}: the run has no records to ") and \
            "status 'done'" in err, err


def _run_of_an_unknown_model(tmp_path) -> Path:
    """A finished run whose model legsim has no drawing for (as a model registered by another package)."""
    sc = parse_scenario({"model": "bouncing_ball", "t_final": 0.5}, "ball.toml")
    run_scenario(sc, tmp_path / "other", progress=False, echo=lambda s: None)
    meta = json.loads((tmp_path / "other" / "run.json").read_text())
    (tmp_path / "other" / "run.json").write_text(json.dumps({**meta, "model": "my_model"}))
    return tmp_path / "other"


def test_animate_draws_any_robot_the_viewer_draws_and_names_a_model_it_cannot(tmp_path):
    """Beyond the SLIP and the hexapod (their own drawings), any run with a 3-D scene: the hopper (a robot
    from a URDF and a hardware file) bobs in a GIF, one frame per interval, the robot drawn (coloured
    pixels) and moving; a run of a model with no scene is an InputError naming it."""
    from PIL import Image

    from legsim.viz.animate import animate_run

    assert main(["run", str(SCENARIO_DIR / "hopper.toml"), "--out", str(tmp_path / "hop"), "-q"]) == 0
    assert main(["animate", str(tmp_path / "hop"), "--fps", "5"]) == 0
    gif = Image.open(tmp_path / "hop" / "plots" / "animation.gif")
    t_final = load_run(tmp_path / "hop").t[-1]
    assert gif.n_frames == round(t_final * 5)
    frames = []
    for k in (0, gif.n_frames // 2):
        gif.seek(k)
        rgb = np.asarray(gif.convert("RGB"), dtype=int)
        frames.append((rgb.max(axis=2) - rgb.min(axis=2)) > 60)  # strongly coloured: the robot's bodies
    assert frames[0].sum() > 1000 and frames[1].sum() > 1000 and (frames[0] ^ frames[1]).sum() > 200
    with pytest.raises(InputError, match="no 3-D scene for model 'my_model'"):
        animate_run(_run_of_an_unknown_model(tmp_path))


def test_an_animation_in_a_second_process_is_the_one_drawn_here_and_can_be_called_off(tmp_path):
    """BackgroundAnimation (the demos render their GIF beside their figures): the second process writes
    the same file byte for byte as animate_run here; called off, it exits without drawing; when it
    cannot draw, result() raises this process's own clear error."""
    from legsim.viz.animate import BackgroundAnimation, animate_run

    sc = parse_scenario({"model": "slip", "t_final": 1.0, "outputs": {"record_period": 0.01}}, "anim.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    job = BackgroundAnimation(tmp_path / "run", fps=5)
    job.render()
    gif = job.result()
    assert gif == tmp_path / "run" / "plots" / "animation.gif"
    drawn_there = gif.read_bytes()
    gif.unlink()
    assert animate_run(tmp_path / "run", fps=5).read_bytes() == drawn_there
    gif.unlink()
    job = BackgroundAnimation(tmp_path / "run", fps=5)
    job.cancel()
    assert job._job is None or job._job.wait(timeout=30) == 0
    assert not gif.exists()
    with pytest.raises(InputError, match="no 3-D scene for model 'my_model'"):
        BackgroundAnimation(_run_of_an_unknown_model(tmp_path)).result()


def test_the_quickstart_demo_walks_the_hexapod_and_writes_records_summary_figures_and_replay(
        tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "mean_forward_speed_m_s" in out and "battery_lifetime_s" in out
    run = load_run(tmp_path / "demo")
    assert run.meta["status"] == "done" and run.t[-1] == 10.0
    speed = run.meta["summary"]["mean_forward_speed_m_s"]
    assert 0.1 < speed < 0.6                      # walks forward (+y), RHex-like pace
    for name in ("states.png", "outputs.png", "gait.png", "path.png", "animation.gif", "replay.html"):
        assert (tmp_path / "demo" / "plots" / name).stat().st_size > 5000


def test_a_progress_bar_in_simulated_seconds_is_shown_when_asked_and_not_for_short_runs(capsys):
    from legsim.hybrid import simulate
    from legsim.robots import slip

    simulate(slip.build_model(), 2.0, progress=True)
    err = capsys.readouterr().err
    assert "sim s" in err and "2.000/2.000" in err
    simulate(slip.build_model(), 2.0)          # default: only after ~2 s of wall time
    assert "sim s" not in capsys.readouterr().err


def test_the_libra_demo_climbs_a_cycle_and_writes_records_figures_and_a_replay(tmp_path, capsys):
    assert main(["demo", "libra_climb", "--out", str(tmp_path / "libra")]) == 0
    out = capsys.readouterr().out
    assert "4 stages" in out and "peak |θ_b|" in out
    run = load_run(tmp_path / "libra")
    assert run.meta["status"] == "done" and run.t[-1] == pytest.approx(25.0)
    for name in ("libra_control_variables.png", "libra_forces_torques.png", "libra_climb.gif"):
        assert (tmp_path / "libra" / name).stat().st_size > 5000
    html = (tmp_path / "libra" / "libra_climb.html").read_text()
    assert "__VISER_EMBED_DATA__" in html and len(html) < 20e6
    _viewable(run)


def test_the_anton_demo_walks_changes_gait_climbs_a_step_and_writes_records_figures_and_a_replay(
        tmp_path, capsys):
    import re

    assert main(["demo", "anton_walk", "--out", str(tmp_path / "anton")]) == 0
    out = capsys.readouterr().out
    assert "anton_walk: tripod at" in out and "of the weight" in out and "0 stability-rule violations" in out
    rise = float(re.search(r"the body rose (-?[\d.]+) mm", out).group(1))
    assert 15.0 < rise < 30.0  # onto the 2.5 cm step: measured 21.4 mm
    run = load_run(tmp_path / "anton")
    assert run.meta["status"] == "done" and run.t[-1] == pytest.approx(14.0)
    for name in ("anton_gait_forces.png", "anton_support.png"):
        assert (tmp_path / "anton" / name).stat().st_size > 5000
    assert "__VISER_EMBED_DATA__" in (tmp_path / "anton" / "anton_walk.html").read_text()
    _viewable(run)


def _viewable(run) -> None:
    """``legsim view`` rebuilds a Python demo's robot by the function its run names (``robot_builder``)
    and poses it from the run's records."""
    from legsim.viz.scene import scene_for_run

    scene = scene_for_run(run.meta)
    cols = {k: np.asarray(run.records[k])[:2] for k in run.records.keys()}
    assert scene.poses(cols).frames.shape[:2] == (2, len(scene.frames)) and len(scene.frames) > 1


def test_legsim_mobility_prints_the_extended_mobility_log(capsys):
    assert main(["mobility", "u2"]) == 0
    out = capsys.readouterr().out
    assert "a = 5, s = 6, r = 6" in out and "accepted" in out


def test_an_animation_draws_at_the_frame_rate_asked_for_or_refuses_one_it_cannot_write(tmp_path):
    """Before session 41 BackgroundAnimation gave its second process ``int(fps)``: fps=7.5 drew at 7 frames/s
    there, and at 7.5 when it fell back to drawing here; ``write_animation`` took fps=0 (a ZeroDivisionError),
    fps=1e-300 (Pillow's OverflowError: a frame longer than a GIF holds) and a figure without pixels (an
    AttributeError after drawing), and ``scene_animation`` took frames=[-1] as the last record (numpy's
    negative index) and whole floats as an IndexError."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from legsim.viz.animate import BackgroundAnimation, scene_animation, write_animation
    from legsim.viz.scene import scene_for_run

    sc = parse_scenario({"model": "slip", "t_final": 0.05, "outputs": {"record_period": 0.01}}, "anim.toml")
    run_scenario(sc, tmp_path / "run", progress=False, echo=lambda s: None)
    job = BackgroundAnimation(tmp_path / "run", fps=7.5)
    if job._job is not None:  # (one core: no second process)
        assert job._job.args[-2:] == ["7.5", "1.0"]
    job.cancel()
    assert job._job is None or job._job.wait(timeout=30) == 0
    fig = plt.figure()
    try:
        for fps in (0, 1e-300, 1e6):
            with pytest.raises(InputError, match=r"write_animation: 'fps' = .*, expected a finite number in "
                                                 r"\[0.01, 1000\]"):
                write_animation(fig, lambda k: None, range(2), tmp_path / "a.gif", fps)
        with pytest.raises(InputError, match="write_animation: 'fig' = .*drawn by the Agg backend"):
            write_animation(Figure(), lambda k: None, range(2), tmp_path / "a.gif", 10)
        run = load_run(tmp_path / "run")
        scene = scene_for_run(run.meta, run.dir)
        for frames in ([-1], [0.5], [run.records["t"].size]):
            with pytest.raises(InputError, match=r"scene_animation: 'frames' = .*, expected the record "):
                scene_animation(scene, run.records, fig, frames)
        scene_animation(scene, run.records, fig, [0.0, 2.0])(1)  # whole floats: records 0 and 2
    finally:
        plt.close(fig)
    assert not (tmp_path / "a.gif").exists()
