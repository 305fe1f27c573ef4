"""The 3-D viewer (issue 19 §1): scenes drawn from each robot's own geometry and state, the
one-file HTML export opened in a real headless Chromium, the replay server, the live view and
`legsim view`.

The browser test needs Debian's chromium (``/usr/bin/chromium``); the fixture installs it with
apt-get when the test runs as root on a machine that has apt (as CI does), and skips with the
reason otherwise. Headless WebGL runs on SwiftShader (``--enable-unsafe-swiftshader``).
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from legsim.cli import main
from legsim.multibody import RobotBuilder
from legsim.viz import scene as S
from legsim.viz.viewer import export_html, frame_indices, scene_html

SCENARIOS = Path(__file__).resolve().parents[1] / "src" / "legsim" / "scenarios"


# --------------------------------------------------------------------------------- scenes
def test_inertia_box_recovers_a_uniform_box():
    m, a, b, c = 2.0, 0.4, 0.2, 0.1  # kg, m
    inertia = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    dims, R = S.inertia_box(m, inertia)
    assert sorted(dims) == pytest.approx(sorted([a, b, c]), rel=1e-9)
    assert np.linalg.det(R) == pytest.approx(1.0)


def two_link_arm():
    b = RobotBuilder("arm", gravity=(0, 0, -9.81))
    b.add_body("upper", "world", "revolute", joint_name="shoulder", axis=(0, 1, 0), xyz=(0, 0, 1.0),
               mass=1.0, com=(0.25, 0, 0), inertia=(0.01, 0.02, 0.02))
    b.add_body("lower", "upper", "revolute", joint_name="elbow", axis=(0, 1, 0), xyz=(0.5, 0, 0),
               mass=1.0, com=(0.2, 0, 0), inertia=(0.01, 0.02, 0.02))
    b.add_geometry("lower", "sphere", radius=0.05, xyz=(0.4, 0, 0), name="hand")
    return b.compile()


def test_multibody_scene_places_bodies_by_forward_kinematics():
    """Planar 2-link arm about y: the hand at shoulder + 0.5 (cos q1, -sin q1) + 0.4 (cos(q1+q2), ...)
    in (x, z), a rotation about y of q1 + q2; the upper link, which has no geometry, shows its
    equivalent inertia box; the skeleton joins shoulder to elbow and elbow to hand."""
    mb = two_link_arm()
    scene = S.multibody_scene(mb)
    q1 = np.array([0.0, 0.3, -1.2])
    q2 = np.array([0.0, 0.5, 2.0])
    poses = scene.poses({"shoulder": q1, "elbow": q2})
    assert scene.frames == ("upper", "lower")
    assert "upper_inertia" in scene.shape_names() and "hand" in scene.shape_names()
    lower = poses.frames[:, 1]
    elbow = np.stack([0.5 * np.cos(q1), np.zeros(3), 1.0 - 0.5 * np.sin(q1)], 1)
    np.testing.assert_allclose(lower[:, :3], elbow, atol=1e-12)
    # rotation about +y by q1 + q2: quaternion (cos(a/2), 0, sin(a/2), 0)
    a = q1 + q2
    np.testing.assert_allclose(np.abs(lower[:, 3]), np.abs(np.cos(a / 2)), atol=1e-12)
    np.testing.assert_allclose(np.abs(lower[:, 5]), np.abs(np.sin(a / 2)), atol=1e-12)
    hand = elbow + 0.4 * np.stack([np.cos(a), np.zeros(3), -np.sin(a)], 1)
    ends = {name: poses.segments[:, k] for k, name in enumerate(scene.segment_names)}
    np.testing.assert_allclose(ends["upper-lower"][:, 1], elbow, atol=1e-12)
    np.testing.assert_allclose(ends["lower-lower"][:, 1], hand, atol=1e-12)


def test_contact_arrows_follow_the_recorded_normal_force():
    """An arrow starts at the sphere's lowest point and is fn / (weight / 0.3 m) long along +z."""
    from legsim.contact import Plane

    mb = two_link_arm()
    pts = [("hand", mb.body_id("lower"), np.array([0.4, 0.0, 0.0]), 0.05)]
    scene = S.multibody_scene(mb, ground=Plane(), contact_points=pts)
    fn = np.array([0.0, 10.0, 40.0])
    poses = scene.poses({"shoulder": np.zeros(3), "elbow": np.zeros(3), "fn_hand": fn})
    start, tip = poses.arrows[:, 0, 0], poses.arrows[:, 0, 1]
    np.testing.assert_allclose(start, [[0.9, 0.0, 0.95]] * 3, atol=1e-12)
    np.testing.assert_allclose(tip[:, 2] - start[:, 2], fn / scene.newtons_per_metre, atol=1e-12)
    assert scene.newtons_per_metre == pytest.approx(mb.total_mass() * 9.81 / 0.3)
    ground = scene.terrain((np.full(3, -1.0), np.full(3, 1.0)))
    assert [s.name for s in ground] == ["ground"]


def test_every_registered_model_has_a_scene():
    from legsim.registry import available_models

    assert set(available_models()) <= set(S.SCENES)


def test_hexapod_scene_reads_pose_toes_and_terrain(tmp_path):
    """The rough-terrain run: body at (x, y, z) with rotation R, a leg segment from each hip to its
    toe, and the terrain surface at the terrain function's heights."""
    from legsim.io import load_run
    from legsim.robots.rhex.terrain import terrain_height

    out = tmp_path / "rough"
    assert main(["run", str(SCENARIOS / "hexapod_rough.toml"), "--out", str(out), "-q"]) == 0
    run = load_run(out)
    scene = S.scene_for_run(run.meta)
    idx = np.array([0, 100, 200])
    cols = {k: np.asarray(run.records[k])[idx] for k in run.records.keys()}
    poses = scene.poses(cols)
    np.testing.assert_allclose(poses.frames[:, 0, :3], np.stack([cols["x"], cols["y"], cols["z"]], 1))
    np.testing.assert_allclose(poses.segments[:, 2, 1], np.stack([cols[f"f2_{c}"] for c in "xyz"], 1))
    terrain = scene.terrain((np.full(3, -1.0), np.full(3, 1.0)))[0]
    p = np.array(list(run.params.values()))
    v = terrain.vertices
    np.testing.assert_allclose(v[:, 2], terrain_height(p, v[:, 0], v[:, 1]), atol=1e-12)
    assert np.ptp(v[:, 2]) > 0.005  # rough: not a plane


def test_frame_indices_keep_the_last_record():
    t = np.linspace(0.0, 1.0, 1001)
    idx = frame_indices(t, fps=30)
    assert idx[0] == 0 and idx[-1] == 1000 and np.all(np.diff(idx) > 0)
    assert len(idx) == 31


# ------------------------------------------------------------------------------ export
def test_a_minute_of_quadruped_exports_under_20_mb(tmp_path):
    """Issue 19: a 60 s run of a quadruped stays under ~20 MB: the A1 of pybullet_data (13 bodies,
    mesh collision hulls) trotting in place for 60 s, 30 frames/s."""
    import pybullet_data

    from legsim.multibody import load_urdf

    mb = load_urdf(Path(pybullet_data.getDataPath()) / "a1" / "a1.urdf", floating_base=True)
    names = mb.coordinate_names()[0]
    t = np.arange(0.0, 60.0, 1e-3)
    cols = {"t": t}
    for k, n in enumerate(names):
        cols[n] = 0.3 * np.sin(2 * math.pi * 2.0 * t + k)
    cols[names[2]] = 0.3 + 0.0 * t  # trunk height
    for q in ("qx", "qy", "qz"):
        cols[names[0].rsplit("_", 1)[0] + "_" + q] = 0.0 * t
    cols[names[0].rsplit("_", 1)[0] + "_qw"] = 1.0 + 0.0 * t
    html = scene_html(S.multibody_scene(mb), cols, fps=30)
    size = len(html.encode())
    assert size < 20e6, f"{size / 1e6:.1f} MB"


def test_a_replay_follows_a_robot_that_travels_away_and_not_one_that_stays():
    """A block sliding 3 m (30 times its size) is followed: the world node moves against it, so that the
    block is drawn where it started at every frame, and the camera looks there; the ground gets a grid.
    The same block moving 0.1 m is not followed (every node as before, under the scene's root)."""
    from legsim.viz.viewer import Drawing, area_of, start_server, stop_server, travels

    scene = S.SCENES["coulomb_block"]({"model": "coulomb_block"})
    server = start_server(port=8395, quiet=True)
    try:
        for reach, follow in ((3.0, True), (0.1, False)):
            x = np.linspace(0.0, reach, 7) ** 2 / reach
            poses = scene.poses({"x": x})
            assert travels(poses, scene) is follow
            d = Drawing(server, scene, area_of(poses, 1.0), poses.frames[0], follow=follow)
            for k in range(x.size):
                d.show(poses, k)
                drawn = np.asarray(d.frames[0].position) + (np.asarray(d.world.position) if follow else 0.0)
                np.testing.assert_allclose(drawn, poses.frames[0 if follow else k, 0, :3], atol=1e-12)
            assert (d.world is not None) is follow and (d.grid is not None) is follow
            server.scene.reset()
    finally:
        stop_server(server)


def test_the_live_view_follows_the_robot_and_draws_the_ground_again_ahead_of_it():
    """`legsim run … --view` of a block sliding 30 m: every frame shows the block where it started (the
    world moves under it), and the ground is drawn again around the block whenever it has gone half the
    view's reach, so that it never runs off the ground."""
    from legsim.viz.viewer import LiveView

    scene = S.SCENES["coulomb_block"]({"model": "coulomb_block"})
    view = LiveView(scene, ["t", "x"], framerate=1e6, port=8396, echo=lambda _: None)
    try:
        assert view.drawing is not None
        for k, x in enumerate(np.linspace(2.0, 32.0, 61)):
            view(np.array([0.1 * k, x]), 0)
            d = view.drawing
            drawn = np.asarray(d.frames[0].position) + np.asarray(d.world.position)
            np.testing.assert_allclose(drawn[:2], [2.0, 0.0], atol=1e-12)
            ground = next(s for s in d.static if s.name == "ground")
            assert abs(ground.p[0] - x) <= view.reach / 2 + 0.5 and ground.dims[0] >= 2 * view.reach
        assert view.frames_shown == 61 and d.grid is not None
    finally:
        view.close()


def test_a_run_names_the_function_that_rebuilds_its_robot_and_a_missing_one_is_named(tmp_path):
    """``robot_builder`` in a run's metadata: ``legsim view`` calls it for the robot's geometry; a function
    this legsim does not have is an InputError naming the run and the function."""
    from legsim.errors import InputError

    meta = {"robot_builder": S.robot_builder("legsim.robots.rats.robot:build", contact_set="tipping")}
    scene = S.scene_for_run(meta)
    assert len(scene.frames) == 13  # the shell and its 12 legs
    with pytest.raises(InputError, match=r"run_x: the run's robot_builder = 'legsim.nothing:here': "
                                         r"cannot import"):
        S.scene_for_run({"robot_builder": S.robot_builder("legsim.nothing:here")}, "run_x")
    bad = S.robot_builder("legsim.robots.rats.robot:build", wheels=4)
    with pytest.raises(InputError, match=r"'legsim.robots.rats.robot:build' does not take .*'wheels'"):
        S.scene_for_run({"robot_builder": bad}, "run_x")
    # a function in a script of the user's: kept by its absolute path; if it fails, where and why
    (tmp_path / "mine.py").write_text("def build():\n    raise RuntimeError('no robot today')\n")
    mine = S.robot_builder(str(tmp_path / "sub" / ".." / "mine.py") + ":build")
    assert mine["function"] == f"{tmp_path.resolve() / 'mine.py'}:build"
    with pytest.raises(InputError, match=r"run_x: the run's robot_builder '.*mine.py:build' failed: "
                                         r"RuntimeError: no robot today \(.*mine.py:2, in build\)"):
        S.scene_for_run({"robot_builder": mine}, "run_x")


def test_legsim_view_html_writes_one_file_and_bad_input_is_named(tmp_path, capsys):
    out = tmp_path / "slip"
    assert main(["run", str(SCENARIOS / "slip_run.toml"), "--out", str(out), "-q"]) == 0
    assert main(["view", str(out), "--html", str(tmp_path / "slip.html")]) == 0
    html = (tmp_path / "slip.html").read_text()
    assert "__VISER_EMBED_DATA__" in html and "<script" in html
    assert main(["view", str(tmp_path / "nothing"), "--html", str(tmp_path / "x.html")]) == 2
    assert "not a legsim run directory" in capsys.readouterr().err
    assert main(["view", str(out), "--html", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert main(["view", str(out), "--plot", "no_such_column", "--port", "8391"]) == 2
    assert "'plot_columns' (--plot): no column 'no_such_column'" in capsys.readouterr().err
    # from Python, a string was split into its letters before session 43 ("xy" served the columns 'x' and
    # 'y'); it is refused as not a list of names, before anything is served
    from legsim.errors import InputError
    from legsim.viz.viewer import serve_replay

    with pytest.raises(InputError, match="serve: plot_columns = 'xy', expected a list of column names"):
        serve_replay(out, plot_columns="xy", port=8392)


# ------------------------------------------------------------------------------ browser
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
                 "--use-angle=swiftshader", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through playwright; Debian's package installed here when missing (root)."""
    exe = _chromium()
    if exe is None and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "chromium"]
        if subprocess.run(cmd, env=env, capture_output=True, timeout=900).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
            subprocess.run(cmd, env=env, capture_output=True, timeout=900)
        exe = _chromium()
    if exe is None:
        pytest.skip("no Chromium here and it cannot be installed (needs root and apt-get: "
                    "apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _dismiss_notices(page) -> None:
    """Close the client's notices (its 'software WebGL' warning is orange: not the robot)."""
    for button in page.locator(".mantine-Notification-closeButton").all():
        button.click()
    page.wait_for_timeout(300)


def _robot_pixels(png: bytes) -> np.ndarray:
    """(h, w) mask of strongly coloured pixels (the robot; the ground and GUI are grey/white)."""
    import io

    from PIL import Image

    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=int)
    return (img.max(axis=2) - img.min(axis=2)) > 60


def test_exported_html_shows_the_robot_in_a_real_browser(tmp_path, browser):
    """The hopper (a robot from a hardware file) exported and opened via file://: the page loads the
    embedded scene, the scene tree lists the robot's bodies, the robot is drawn (coloured pixels,
    not an empty canvas), and moving the time slider moves it."""
    out = tmp_path / "hop"
    assert main(["run", str(SCENARIOS / "hopper.toml"), "--out", str(out), "-q"]) == 0
    html = export_html(out, tmp_path / "hop.html")
    page = browser.new_page(viewport={"width": 900, "height": 600})
    logs: list[str] = []
    page.on("console", lambda m: logs.append(m.text))
    page.goto(html.resolve().as_uri())
    page.wait_for_function("() => document.querySelector('canvas') !== null", timeout=60_000)
    page.wait_for_timeout(3000)
    assert any("Embedded data loaded" in m for m in logs), logs[:10]
    _dismiss_notices(page)
    page.locator("button.mantine-ActionIcon-root").first.click()  # the playback bar's play/pause
    box = page.locator(".mantine-Slider-root").first.bounding_box()  # the time slider's track
    assert box is not None

    def at(fraction: float) -> np.ndarray:
        page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)
        page.wait_for_timeout(800)
        return _robot_pixels(page.screenshot())

    early, late = at(0.05), at(0.6)
    assert early.sum() > 2000 and late.sum() > 2000  # the robot is on screen, not a blank canvas
    moved = (early ^ late).sum() / max(early.sum(), late.sum())
    assert moved > 0.05, f"slider moved only {moved:.3f} of the robot's pixels"
    page.get_by_label("Show scene tree").click()
    page.locator('[data-scene-node="/robot"]').click()  # expand the robot's node
    for body in ("trunk", "thigh", "shank"):
        assert page.locator(f'[data-scene-node="/robot/{body}"]').count() == 1, body
    page.close()


# ------------------------------------------------------------------------------ live and served
def _wait_for(url: str, timeout: float = 30.0) -> str:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            return urllib.request.urlopen(url, timeout=2).read().decode()
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing served at {url}")


def test_run_view_shows_live_then_replays_until_ctrl_c(tmp_path, spawn):
    """`legsim run … --view --pace 4`: the live view serves a page while the run goes, replays the
    finished run, and Ctrl-C ends it with status 0 and a complete run directory."""
    out = tmp_path / "walk"
    cmd = [sys.executable, "-m", "legsim", "run", str(SCENARIOS / "slip_run.toml"), "--out", str(out),
           "--view", "--port", "8392", "--pace", "4"]
    p = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    assert p.stdout is not None
    for line in p.stdout:
        lines.append(line)
        if "live at" in line:
            assert "<html" in _wait_for(line.split("live at ")[1].strip()).lower()
        if "replaying" in line:
            break
    p.send_signal(signal.SIGINT)
    rest, _ = p.communicate(timeout=30)
    assert p.returncode == 0, "".join(lines) + rest
    text = "".join(lines)
    assert "live at http://127.0.0.1:" in text and "replaying the run" in text
    import json

    assert json.loads((out / "run.json").read_text())["status"] == "done"


def test_simsect_view_uses_the_init_files_framerate(tmp_path):
    """`legsim simsect --view`: SimSect's `framerate` symbol sets the live view's frames per second
    (a 2 s SLIP run paced by nothing is drawn at most framerate × wall time + 1 times)."""
    from legsim.simsect.runner import _live_view

    rc = tmp_path / "s.rc"
    assert main(["simsect", "--sample", "-c", str(rc)]) == 0
    rc.write_text(rc.read_text() + "\nframerate = 5\n")
    view = _live_view(rc, 8393)
    try:
        assert view.period == pytest.approx(1 / 5)
        record = np.zeros(len(view.columns))
        record[view.columns.index("y")] = 1.0
        for k in range(50):  # 50 records offered within far less than a second: one drawn
            record[0] = 0.01 * k
            view(record, 0)
        assert view.frames_shown == 1
        time.sleep(0.25)
        view(record, 0)
        assert view.frames_shown == 2
    finally:
        view.close()


def _pneumatic_hopper():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "examples" / "pneumatic_hopper.py"
    spec = importlib.util.spec_from_file_location("legsim_example_pneumatic_hopper", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_pneumatic_leg_shows_its_cylinder_barrel():
    """The RATS leg from parts (examples/pneumatic_hopper.py): the solenoid cylinder's barrel sits on
    the body along the leg axis (-z), 63 mm long, ending at the leg joint 0.10 m below the body, its
    radius that of the 5.0165 cm² piston (× 1.15 for the wall)."""
    robot = _pneumatic_hopper().build()
    scene = S.robot_scene(robot)
    barrel = {s.name: s for s in scene.shapes}["leg_barrel"]
    assert barrel.kind == "cylinder" and barrel.frame == "body"
    assert barrel.dims == pytest.approx((1.15 * math.sqrt(5.0165e-4 / math.pi), 0.063))
    np.testing.assert_allclose(barrel.p, [0.0, 0.0, -0.10 + 0.063 / 2], atol=1e-12)
    np.testing.assert_allclose(barrel.R @ [0, 0, 1], [0, 0, -1], atol=1e-12)


def test_a_python_result_replays_in_the_browser_with_slider_and_plots(browser):
    """A Robot simulated in Python, served as a Replay (legsim.viz.viewer.serve's parts): the page
    draws the robot and has the time slider and the time series; moving the slider from Python
    moves the drawn robot."""
    from legsim.viz.viewer import Replay, result_columns, start_server, stop_server

    mod = _pneumatic_hopper()
    robot = mod.build()
    res = robot.simulate(0.6, mod.hopper_controller(80.0), q0=[0.12, 0.0])
    server = start_server(port=8394, quiet=True)
    replay = Replay(server, S.robot_scene(robot), result_columns(res), ["rail", "leg"])
    try:
        replay.play.value = False
        page = browser.new_page(viewport={"width": 1000, "height": 700})
        page.goto(f"http://127.0.0.1:{server.get_port()}")
        page.wait_for_selector("text=t [s]", timeout=60_000)
        assert page.get_by_text("Time series").count() >= 1
        page.wait_for_timeout(2000)
        _dismiss_notices(page)
        assert _robot_pixels(page.screenshot(clip={"x": 0, "y": 0, "width": 600, "height": 700})).sum() > 2000
        foot = replay.drawing.frames[1]
        replay.slider.value = float(replay.t[0])
        z0 = float(foot.position[2])
        replay.slider.value = float(replay.t[-1])
        assert float(foot.position[2]) != pytest.approx(z0)
        page.close()
    finally:
        replay.close()
        stop_server(server)


def test_crr_leg_cylinders_have_the_linkages_length_at_every_angle():
    """The CRR leg's three cylinders: the pins drawn |B - A| apart = l2 + x(θ) of the model's own
    linkage (Daepp (5.2.7)) over each joint's range; the rod segment ends at pin B."""
    from legsim.robots.crr_leg.geometry import default_linkages

    scene = S.SCENES["crr_leg"]({"model": "crr_leg"})
    assert {"alpha_barrel", "beta_barrel", "gamma_barrel"} <= set(scene.frames)
    th = np.radians(np.linspace(-40.0, 40.0, 9))
    cols = {"alpha": th, "beta": th + np.radians(30), "gamma": th + np.radians(60)}
    poses = scene.poses(cols)
    for j, lk in zip(("alpha", "beta", "gamma"), default_linkages(), strict=True):
        x, _, _ = lk.cylinder(cols[j])
        f = scene.frames.index(f"{j}_barrel")
        centre, rod = poses.frames[:, f, :3], poses.segments[:, scene.segment_names.index(f"{j}_rod")]
        u = (rod[:, 0] - centre) / (lk.l2 / 2)  # unit, along the cylinder
        a = centre - u * lk.l2 / 2
        np.testing.assert_allclose(np.linalg.norm(u, axis=1), 1.0, atol=1e-12)
        np.testing.assert_allclose(np.linalg.norm(rod[:, 1] - a, axis=1), lk.l2 + x, atol=1e-12)


def test_legsim_view_serves_a_run_until_ctrl_c(tmp_path, spawn):
    """`legsim view RUN_DIR`: the page is served (the viser client) and Ctrl-C ends it with status 0."""
    out = tmp_path / "slip"
    assert main(["run", str(SCENARIOS / "slip_run.toml"), "--out", str(out), "-q"]) == 0
    cmd = [sys.executable, "-m", "legsim", "view", str(out), "--port", "8396", "--plot", "x", "y"]
    p = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert "viewer: slip run" in line, line
    assert "<html" in _wait_for(line.split(" at ")[1].split()[0]).lower()
    p.send_signal(signal.SIGINT)
    rest, _ = p.communicate(timeout=30)
    assert p.returncode == 0, line + rest


def test_a_replay_at_a_frame_rate_it_cannot_keep_is_refused_before_it_starts():
    """Before session 41 ``Replay(fps=1e-300)`` started, and its playback thread died at once on
    time.sleep's OverflowError (a page that never played); fps=0 was a ZeroDivisionError and a server of
    the wrong kind an AttributeError; ``result_columns`` of anything but a Result an AttributeError."""
    from legsim.errors import InputError
    from legsim.hybrid import simulate
    from legsim.registry import build
    from legsim.viz.viewer import Replay, _free_port, result_columns, start_server, stop_server

    records = result_columns(simulate(build("slip"), 0.05))
    scene = S.scene_for_run({"model": "slip", "scenario": {"params": {}}})
    server = start_server(port=_free_port(), quiet=True)
    try:
        for fps in (1e-300, 0.0, 1e6, "30"):
            with pytest.raises(InputError, match=r"Replay: 'fps' = .*, expected a (finite )?number"):
                Replay(server, scene, records, ["x"], fps)
        with pytest.raises(InputError, match="Replay: 'server' is a str, expected a viser server"):
            Replay("127.0.0.1", scene, records, ["x"])
        with pytest.raises(InputError, match=r"Replay: 'plot_columns' \(--plot\): no column 'xx'.*'x'"):
            Replay(server, scene, records, ["xx"])
        replay = Replay(server, scene, records, ["x"], fps=2.0)
        replay.close()
        assert replay.t[0] == 0.0
    finally:
        stop_server(server)
    with pytest.raises(InputError, match="result_columns: 'result' is a dict, expected a legsim.hybrid"):
        result_columns(records)
