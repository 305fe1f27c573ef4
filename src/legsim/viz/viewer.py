"""The 3-D viewer: a run live as it goes, a recorded run replayed, or one self-contained HTML file.

Built on viser (a three.js client served from Python; https://viser.studio): each moving frame
of a :class:`~legsim.viz.scene.Scene` is a scene node whose children are its shapes, so a new
record moves only the frames (meshes are sent once, then poses). Three uses:

- :class:`LiveView` — a monitor for :func:`legsim.hybrid.simulate` (``monitor=``) that shows the
  latest record at most ``framerate`` times per second of wall time, with the simulated time and
  the real-time factor (``legsim run … --view``).
- :class:`Replay` / :func:`serve_replay` — a recorded run with play/pause, speed, a time slider and
  time series of chosen columns (``legsim view RUN_DIR``).
- :func:`export_html` — the replay as one HTML file that opens without a server (viser's embedded
  playback: play/pause, speed and a time slider; ``legsim view RUN_DIR --html FILE``).
"""

from __future__ import annotations

import contextlib
import errno
import io
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, as_floats, check_echo, check_number, check_whole
from ..io.results import load_run
from ..userfiles import output_file, write_text
from .scene import FORCE, LEG, Area, Poses, Scene, Shape, robot_scene, rotation_to_wxyz, scene_for_run

__all__ = ["LiveView", "Replay", "serve_replay", "serve", "export_html", "scene_html", "result_columns",
           "write_robot_replay",
           "live_view", "live_view_of", "frame_indices", "frame_times", "DEFAULT_PORT"]

DEFAULT_PORT = 8080
MAX_FRAMES = 1_000_000
"""Most frames one replay shows (9 hours at 30 frames/s): each is a pose of every shape in the page."""
MIN_FPS = 0.01
"""Lowest frame rate [frames/s] of a replay's or an animation's playback: a frame every 100 s (a GIF holds
one frame at most 655.35 s)."""
MAX_FPS = 1000.0
"""Highest frame rate [frames/s] of a replay's or an animation's playback: a GIF's frame lasts a whole
number of milliseconds, and no screen shows more."""


def _viser():
    try:
        import viser
    except ImportError:  # pragma: no cover - viser is a dependency; a broken environment says so
        raise InputError("the 3-D viewer needs the 'viser' package: pip install viser") from None
    return viser


def start_server(host: str = "127.0.0.1", port: int = DEFAULT_PORT, quiet: bool = False,
                 owner: str = "viewer") -> Any:
    """A viser server on ``host:port`` (the next free port if taken). ``quiet``: no banner (an HTML
    export needs the server only to record the scene). ``host`` and ``port`` are checked, and an address
    the machine cannot serve on, or no free port from ``port`` to 65535 among the next
    :data:`PORT_TRIES`, is an :class:`InputError` (``owner`` names the caller)."""
    if not (isinstance(host, str) and host):
        raise InputError(f"{owner}: 'host' = {host!r}, expected an address to serve on (e.g. '127.0.0.1')")
    port = _serving_port(owner, host, check_whole(owner, "port", port, 0, 65535))
    viser = _viser()
    out = io.StringIO()
    with contextlib.redirect_stdout(out) if quiet else contextlib.nullcontext():
        server = viser.ViserServer(host=host, port=port, verbose=False)
    server.scene.set_up_direction("+z")
    return server


PORT_TRIES = 100
"""How many ports from the one asked for the viewer tries before it says that they are all taken."""


def _serving_port(owner: str, host: str, port: int) -> int:
    """The first port from ``port`` on which this machine can serve ``host`` now, else an
    :class:`InputError`. viser's server thread does the same search on its own, but on a name that does
    not resolve or an address of no interface here it gives up after 1000 ports, and past port 65535 its
    thread dies, without telling the caller, who then waits for ever (``legsim view --host x``, or
    ``--port 65535`` taken); port 0 lets the system choose."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (OSError, ValueError, UnicodeError) as exc:  # socket.gaierror; a name the IDNA codec refuses
        raise _cannot_serve(owner, host, exc) from None
    last = min(port + PORT_TRIES - 1, 65535) if port else 0
    for candidate in range(port, last + 1):
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.bind((address[0], candidate, *address[2:]))
            return candidate
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise _cannot_serve(owner, host, exc) from None
    raise InputError(f"{owner}: 'port' = {port}: ports {port} to {last} are all taken on {host}; "
                     "give another --port (or 0 to let the system choose)")


def _cannot_serve(owner: str, host: str, exc: BaseException) -> InputError:
    why = getattr(exc, "strerror", None) or exc
    return InputError(f"{owner}: 'host' = {host!r}: cannot serve on it ({why}); "
                      "'127.0.0.1' serves this machine, '0.0.0.0' every interface")


def stop_server(server: Any) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        server.stop()


class _Rows(Mapping[str, np.ndarray]):
    """Record columns restricted to the rows ``idx`` (read one column at a time, on demand)."""

    def __init__(self, records: Mapping[str, np.ndarray], idx: np.ndarray):
        self._records, self._idx = records, idx

    def __getitem__(self, name: str) -> np.ndarray:
        return np.asarray(self._records[name])[self._idx]

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)


def frame_times(t: np.ndarray, fps: float, speed: float = 1.0, owner: str = "viewer") -> np.ndarray:
    """(f,) record times [s] of the frames of a playback of records at times ``t`` (n,) [s], ``fps``
    frames per second at ``speed`` × real time: from ``t[0]``, every ``speed / fps`` s, before ``t[-1]``.
    ``fps``, ``speed`` and ``t`` are checked (``owner`` names the caller in the messages), and a playback
    is at most :data:`MAX_FRAMES` frames."""
    fps = check_number(owner, "fps", fps, lo=0.0, lo_open=True)
    speed = check_number(owner, "speed", speed, lo=0.0, lo_open=True)
    t = as_floats(t)
    if t.ndim != 1 or not np.all(np.isfinite(t)) or np.any(np.diff(t) < 0.0):
        raise InputError(f"{owner}: the records' times t = {t!r}, expected a column of finite numbers that "
                         "do not decrease [s]")
    if t.size == 0:
        raise InputError(f"{owner}: the run has no records to show")
    span = float(t[-1]) - float(t[0])  # Python floats: a span of 1e307 s is inf frames, not a warning
    frames = span * fps / speed
    if not frames <= MAX_FRAMES:
        raise InputError(f"{owner}: {span:g} s at fps = {fps:g} and speed = {speed:g} is "
                         f"{frames:.3g} frames, expected at most MAX_FRAMES = {MAX_FRAMES} (a lower fps or a "
                         "higher speed)")
    return np.arange(t[0], t[-1], speed / fps)


def frame_indices(t: np.ndarray, fps: float, speed: float = 1.0) -> np.ndarray:
    """Indices of the records shown at ``fps`` frames per second of playback at ``speed`` × real
    time: the last record at or before each frame's time (the final record always shown)."""
    times = frame_times(t, fps, speed)
    idx = np.clip(np.searchsorted(t, times, side="right") - 1, 0, len(t) - 1)
    return np.unique(np.append(idx, len(t) - 1))


def _names(owner: str, name: str, value: Any) -> list[str]:
    """``value`` as a list of column names (strings), else an :class:`InputError` naming ``owner``."""
    if isinstance(value, str) or not isinstance(value, Sequence) or \
            not all(isinstance(n, str) for n in value):
        raise InputError(f"{owner}: {name} = {value!r}, expected a list of column names")
    return list(value)


def area_of(poses: Poses, margin: float) -> Area:
    """The world box around every frame of ``poses``, ``margin`` m wider on each side."""
    xyz = poses.frames[..., :3].reshape(-1, 3)
    return xyz.min(axis=0) - margin, xyz.max(axis=0) + margin


def across_ground(d: np.ndarray, up) -> np.ndarray:
    """The part of displacements ``d`` (..., 3) across the ground: ``d`` without its component along the
    unit ``up``."""
    up = np.asarray(up, dtype=float)
    return d - np.multiply.outer(d @ up, up)


def travels(poses: Poses, scene: Scene) -> bool:
    """Whether the robot goes far from where it starts: its first frame moves more than twice the robot's
    size (``scene.extent``) across the ground (perpendicular to ``scene.up``). A replay then follows it."""
    if not poses.frames.shape[1]:
        return False
    d = poses.frames[:, 0, :3] - poses.frames[0, 0, :3]
    return bool(np.linalg.norm(across_ground(d, scene.up), axis=1).max() > 2.0 * scene.extent)


class Drawing:
    """A :class:`Scene` on a viser server: one node per moving frame under ``/robot``, its shapes
    as children, the legs as line segments, contact forces as arrows, the terrain under
    ``/terrain`` for ``area``. ``follow``: everything hangs under a ``/world`` node shifted so that the
    robot's first frame stays where it started across the ground (the camera follows a robot that rolls
    or walks away; a flat ground gets a 0.5 m grid, so that the ground's motion shows)."""

    def __init__(self, server: Any, scene: Scene, area: Area, first: np.ndarray | None = None,
                 follow: bool = False):
        self.server, self.scene = server, scene
        sc = server.scene
        sc.set_up_direction(tuple(scene.up))
        root = "/world" if follow else ""
        self.root = root
        self.world = sc.add_frame("/world", show_axes=False) if follow else None
        self.grid = None
        self.draw_terrain(area)
        # created at their first pose: an exported page starts from the scene as created, before
        # any pose update reaches it
        identity = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
        start = first if first is not None else np.tile(identity, (len(scene.frames), 1))
        self.anchor = start[0, :3].copy() if len(scene.frames) else np.zeros(3)
        self.frames = [sc.add_frame(f"{root}/robot/{f}", show_axes=False, position=tuple(start[j, :3]),
                                    wxyz=tuple(start[j, 3:])) for j, f in enumerate(scene.frames)]
        for s in scene.shapes:
            parent = f"{root}/robot/{s.frame}" if s.frame else f"{root}/static"
            self._add(f"{parent}/{s.name}", s)
        thick = 0.02 * scene.extent
        self.lines = sc.add_line_segments(f"{root}/legs", np.zeros((len(scene.segment_names), 2, 3)), LEG,
                                          thickness=thick) if scene.segment_names else None
        self.arrows = sc.add_arrows(f"{root}/forces", np.zeros((len(scene.arrow_names), 2, 3)), FORCE,
                                    shaft_radius=thick / 2, head_radius=thick, head_length=2 * thick) \
            if scene.arrow_names else None

    def draw_terrain(self, area: Area) -> None:
        """The terrain for ``area`` (world box), replacing what was drawn before; following the robot,
        flat ground gets a grid."""
        self.static = self.scene.terrain(area)
        for s in self.static:
            self._add(f"{self.root}/terrain/{s.name}", s)
            if self.world is not None and s.kind == "box" and s.name == "ground":  # on its top face
                top = s.p + s.R[:, 2] * (s.dims[2] / 2 + 1e-3)
                self.grid = self.server.scene.add_grid(
                    f"{self.root}/terrain/grid", s.dims[0], s.dims[1], cell_size=0.5, section_size=1.0,
                    wxyz=tuple(rotation_to_wxyz(s.R)), position=tuple(top))

    def _add(self, name: str, s: Shape) -> None:
        sc = self.server.scene
        pose = {"wxyz": tuple(rotation_to_wxyz(s.R)), "position": tuple(np.asarray(s.p, dtype=float))}
        if s.kind == "box":
            sc.add_box(name, dimensions=s.dims, color=s.color, **pose)
        elif s.kind == "sphere":
            sc.add_icosphere(name, radius=s.dims[0], color=s.color, **pose)
        elif s.kind == "cylinder":
            sc.add_cylinder(name, radius=s.dims[0], height=s.dims[1], color=s.color, **pose)
        elif s.kind == "capsule":
            import trimesh

            m = trimesh.creation.capsule(height=s.dims[1], radius=s.dims[0], count=(12, 12))
            sc.add_mesh_simple(name, np.asarray(m.vertices, dtype=np.float32),
                               np.asarray(m.faces, dtype=np.uint32), color=s.color, **pose)
        elif s.kind == "mesh":
            sc.add_mesh_simple(name, np.asarray(s.vertices, dtype=np.float32),
                               np.asarray(s.faces, dtype=np.uint32), color=s.color, side="double", **pose)
        else:  # a scene builder's bug
            raise ValueError(f"scene {self.scene.name!r}: shape {s.name!r} of unknown kind {s.kind!r}")

    def show(self, poses: Poses, k: int) -> None:
        """Move the robot to record ``k`` of ``poses`` (following it: move the world under it)."""
        if self.world is not None:
            self.world.position = tuple(-across_ground(poses.frames[k, 0, :3] - self.anchor, self.scene.up))
        for j, h in enumerate(self.frames):
            h.position = poses.frames[k, j, :3]
            h.wxyz = poses.frames[k, j, 3:]
        if self.lines is not None:
            self.lines.points = poses.segments[k]
        if self.arrows is not None:
            self.arrows.points = poses.arrows[k]

    def aim_camera(self, poses: Poses, k: int = 0) -> None:
        """Point the initial camera (new clients, exported files) at frame 0's origin at record ``k``
        (following the robot: where it started across the ground)."""
        c = poses.frames[k, 0, :3] if poses.frames.shape[1] else np.zeros(3)
        up = np.asarray(self.scene.up, dtype=float)
        if self.world is not None:  # where the robot started across the ground
            c = c - across_ground(c - self.anchor, up)
        d = 1.2 * self.scene.extent
        side = np.array([1.0, 0.0, 0.0]) if abs(up[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        side = side - (side @ up) * up
        side /= np.linalg.norm(side)
        back = np.cross(up, side)  # z up: side x, back y (the camera looks from -y, as MuJoCo's)
        offset = d * (0.9 * side - 1.6 * back + 0.8 * up)
        # in front of every obstacle box (ladders, walls), looking straight in: seen from the side,
        # the boxes would hide the robot
        boxes = [s for s in self.static if s.kind == "box" and s.name.startswith("obstacle")]
        if boxes:
            offset = d * (-1.6 * back + 0.3 * up)
            reach = max(float(-(s.p - c) @ back + 0.5 * np.abs(s.R.T @ back) @ np.asarray(s.dims))
                        for s in boxes)
            if -offset @ back < reach + 0.5 * d:
                offset = offset * (reach + 0.5 * d) / float(-offset @ back)
        cam = self.server.initial_camera
        cam.position = tuple(c + offset)
        cam.look_at = tuple(c)
        cam.up = tuple(up)


# -------------------------------------------------------------------------------------- export
def export_html(run_dir: str | Path, path: str | Path, fps: float = 30.0, speed: float = 1.0) -> Path:
    """Write the run in ``run_dir`` as one self-contained HTML file at ``path`` (:func:`scene_html`).
    Returns ``path``."""
    out = output_file(path, "the replay", "view --html")
    run = load_run(run_dir)
    with run.reading():
        run.times(1, "to show")
        page = scene_html(scene_for_run(run.meta, run_dir), run.records, fps, speed)
    return write_text(out, page, "the replay", "view --html")


def scene_html(scene: Scene, records: Mapping[str, np.ndarray], fps: float = 30.0, speed: float = 1.0) -> str:
    """One self-contained HTML page replaying ``records`` (columns ``t`` and what ``scene`` reads):
    the robot's shapes once, then a pose per frame, ``fps`` frames per second of playback at
    ``speed`` × real time. It opens from disk (file://) in a browser with WebGL; play/pause, speed
    and a time slider are at the bottom (viser's embedded playback)."""
    _check_scene_records("scene_html", scene, records)
    t_all = as_floats(records["t"])
    idx = frame_indices(t_all, fps, speed)
    poses = scene.poses(_Rows(records, idx))
    t = t_all[idx]
    server = start_server(port=_free_port(), quiet=True)
    try:
        drawing = Drawing(server, scene, area_of(poses, max(1.0, 2 * scene.extent)), poses.frames[0],
                          follow=travels(poses, scene))
        drawing.aim_camera(poses)
        drawing.show(poses, 0)
        rec = server.get_scene_serializer()
        for k in range(1, len(idx)):
            rec.insert_sleep(float(t[k] - t[k - 1]) / speed)
            drawing.show(poses, k)
        return str(rec.as_html())
    finally:
        stop_server(server)


def _check_scene_records(owner: str, scene: Any, records: Any) -> None:
    """``scene`` a :class:`Scene` and ``records`` a mapping of columns with the times ``t``, else an
    :class:`InputError` naming ``owner``."""
    if not isinstance(scene, Scene):
        raise InputError(f"{owner}: scene = {scene!r}, expected a legsim.viz.scene.Scene")
    if not (isinstance(records, Mapping) and "t" in records):
        raise InputError(f"{owner}: records = {records!r}, expected a mapping of column names to arrays "
                         "with the times 't'")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -------------------------------------------------------------------------------------- replay
class Replay:
    """Recorded ``records`` (columns ``t`` and what ``scene`` reads) on a viser ``server``
    (:func:`start_server`): play/pause, speed, a time slider [s] and time series of ``plot_columns`` beside
    the 3-D view, played at ``fps`` frames per second (:data:`MIN_FPS` to :data:`MAX_FPS`)."""

    SPEEDS = ("0.1", "0.25", "0.5", "1", "2", "5", "10")

    def __init__(self, server: Any, scene: Scene, records: Mapping[str, np.ndarray],
                 plot_columns: Sequence[str] = (), fps: float = 30.0):
        if not isinstance(server, _viser().ViserServer):
            raise InputError(f"Replay: 'server' is a {type(server).__name__}, expected a viser server "
                             "(start_server())")
        _check_scene_records("Replay", scene, records)
        plot_columns = _names("Replay", "plot_columns", plot_columns)
        fps = check_number("Replay", "fps", fps, lo=MIN_FPS, hi=MAX_FPS)
        self.server, self.scene, self.records = server, scene, records
        t_all = np.asarray(records["t"], dtype=float)
        self.idx = frame_indices(t_all, 2 * fps)  # slider resolution: twice the frame rate
        self.t = t_all[self.idx]
        self.poses = scene.poses(_Rows(records, self.idx))
        self.drawing = Drawing(server, scene, area_of(self.poses, max(1.0, 2 * scene.extent)),
                               self.poses.frames[0], follow=travels(self.poses, scene))
        self.drawing.aim_camera(self.poses)
        self.fps = fps
        gui = server.gui
        with gui.add_folder("Replay"):
            self.play = gui.add_checkbox("Playing", initial_value=True)
            self.speed = gui.add_dropdown("Speed", self.SPEEDS, initial_value="1")
            self.slider = gui.add_slider("t [s]", min=float(self.t[0]), max=float(self.t[-1]),
                                         step=float(max((self.t[-1] - self.t[0]) / 2000, 1e-4)),
                                         initial_value=float(self.t[0]))
        self.slider.on_update(lambda _: self._show_time(self.slider.value))
        self._plots(plot_columns)
        self._show_time(float(self.t[0]))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _plots(self, names: Sequence[str]) -> None:
        known = set(self.records.keys())
        bad = [c for c in names if c not in known]
        if bad:
            from ..errors import closest

            raise InputError(f"Replay: 'plot_columns' (--plot): no column {bad[0]!r} in the run's records"
                             f"{closest(bad[0], sorted(known))}")
        t_all = np.asarray(self.records["t"], dtype=float)
        step = max(1, t_all.size // 2000)
        with self.server.gui.add_folder("Time series"):
            for c in names:
                y = np.asarray(self.records[c], dtype=float)[::step]
                self.server.gui.add_uplot(data=(t_all[::step], y), series=({"label": "t [s]"},
                                          {"label": c, "stroke": "#3465a4", "width": 1.5}),
                                          scales={"x": {"time": False}}, title=c, aspect=2.0)

    def _show_time(self, t: float) -> None:
        k = int(np.clip(np.searchsorted(self.t, t, side="right") - 1, 0, self.t.size - 1))
        self.drawing.show(self.poses, k)

    def _loop(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(1.0 / self.fps)
            now = time.perf_counter()
            if self.play.value:
                t = self.slider.value + (now - last) * float(self.speed.value)
                if t > self.t[-1]:
                    t = float(self.t[0])  # loop
                self.slider.value = float(t)  # moves the robot through the slider's callback
            last = now

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=1.0)


def serve_replay(run_dir: str | Path, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 plot_columns: Sequence[str] | None = None, echo=print) -> None:
    """Serve the run in ``run_dir`` for a browser at http://host:port until Ctrl-C; time series of
    ``plot_columns`` (default: the model's first three states)."""
    run = load_run(run_dir)
    with run.reading():
        run.times(1, "to show")
        scene = scene_for_run(run.meta, run_dir)
        plots = plot_columns if plot_columns is not None else run.meta["state_names"][:3]  # checked by serve
        serve(scene, run.records, host, port, plots, echo, f"{run.meta['model']} run {run_dir}")


def serve(scene: Scene, records: Mapping[str, np.ndarray], host: str = "127.0.0.1", port: int = DEFAULT_PORT,
          plot_columns: Sequence[str] = (), echo=print, what: str = "") -> None:
    """Serve ``records`` of ``scene`` as a :class:`Replay` at http://host:port until Ctrl-C (a result
    in Python: ``serve(robot_scene(robot), result_columns(res))``)."""
    _check_scene_records("serve", scene, records)
    plot_columns = _names("serve", "plot_columns", plot_columns)
    check_echo("serve", echo)
    server = start_server(host, port, quiet=True, owner="serve")

    def start() -> Replay:
        replay = Replay(server, scene, records, plot_columns)
        echo(f"viewer: {what or scene.name} at http://{host}:{server.get_port()} (Ctrl-C to stop)")
        return replay

    try:
        _hold(start)
    finally:
        stop_server(server)


def result_columns(result: Any) -> dict[str, np.ndarray]:
    """The record columns of an in-memory :class:`legsim.hybrid.Result` by name (``t``, ``mode``,
    states, outputs), as a run directory has them."""
    from ..hybrid import Result

    if not isinstance(result, Result):
        raise InputError(f"result_columns: 'result' is a {type(result).__name__}, expected a "
                         "legsim.hybrid.Result")
    cols: dict[str, np.ndarray] = {"t": result.t, "mode": result.mode}
    cols.update({n: result.x[:, i] for i, n in enumerate(result.state_names)})
    cols.update({n: result.y[:, i] for i, n in enumerate(result.output_names)})
    return cols


def write_robot_replay(path, robot: Any, result: Any, fps: float = 25.0) -> Path:
    """One self-contained HTML replay (:func:`scene_html`) of an in-memory run of an assembled robot
    (:func:`~legsim.viz.scene.robot_scene`) at ``path``; returns the path."""
    from ..assembly import Robot
    from ..hybrid import Result

    out = output_file(path, "the replay", "write_robot_replay: path")
    if not isinstance(robot, Robot):
        raise InputError(f"write_robot_replay: robot = {robot!r}, expected a legsim.assembly.Robot")
    if not isinstance(result, Result):
        raise InputError(f"write_robot_replay: result = {result!r}, expected the legsim.hybrid.Result of "
                         "the robot's simulate()")
    html = scene_html(robot_scene(robot), result_columns(result), fps=fps)
    return write_text(out, html, "the replay", "write_robot_replay: path")


def _wait_forever() -> None:
    while True:
        time.sleep(0.2)


def _hold(start: Callable[[], Replay]) -> None:
    """Start a replay and keep it playing until Ctrl-C (the way to close a viewer), then stop it."""
    replay = None
    try:
        replay = start()
        _wait_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if replay is not None:
            replay.close()


# ---------------------------------------------------------------------------------------- live
class LiveView:
    """A monitor for :func:`legsim.hybrid.simulate`: ``view(record, mode)`` with the latest record
    (1 + nx + ny,) shows it if 1/``framerate`` s of wall time have passed since the last frame.
    ``columns``: the record's column names (``t``, states, outputs). The GUI shows the simulated
    time and the real-time factor. ``pace``: hold the run to at most ``pace`` × real time (None:
    as fast as it runs; the view costs the run ~1 frame's drawing per 1/``framerate`` s).
    :meth:`replay` turns the same page into a replay of the finished run; :meth:`close` stops the
    server."""

    def __init__(self, scene: Scene, columns: Sequence[str], framerate: float = 30.0,
                 host: str = "127.0.0.1", port: int = DEFAULT_PORT, echo=print, pace: float | None = None):
        if not isinstance(scene, Scene):
            raise InputError(f"LiveView: scene = {scene!r}, expected a legsim.viz.scene.Scene")
        self.columns = _names("LiveView", "columns", columns)
        self.period = 1.0 / check_number("LiveView", "framerate", framerate, lo=0.0, lo_open=True)
        self.pace = None if pace is None else check_number("LiveView", "pace", pace, lo=0.0, lo_open=True)
        check_echo("LiveView", echo)
        self.scene = scene
        self.server = start_server(host, port, quiet=True, owner="LiveView")
        self.url = f"http://{host}:{self.server.get_port()}"
        echo(f"viewer: {scene.name} live at {self.url}")
        # shapes and terrain (around the origin) drawn before the run, so the run pays only for poses; the
        # view follows the robot, and draws the terrain again around it once it has gone half the reach
        self.reach = max(5.0, 10 * scene.extent)
        self.drawing: Drawing | None = Drawing(self.server, scene, (np.full(3, -self.reach),
                                                                    np.full(3, self.reach)), follow=True)
        self._centre = np.zeros(3)  # of the terrain drawn
        self._aimed = False
        gui = self.server.gui
        self.sim_time = gui.add_text("Simulated time [s]", initial_value="0", disabled=True)
        self.rtf = gui.add_text("Real-time factor", initial_value="-", disabled=True)
        self.frames_shown = 0
        self._last = -np.inf
        self._wall0: float | None = None
        self._t0 = 0.0

    def __call__(self, record: np.ndarray, mode: int) -> None:
        now = time.perf_counter()
        t = float(record[0])
        if self._wall0 is None:
            self._wall0, self._t0 = now, t
        if self.pace is not None:  # ahead of the wall clock: wait
            ahead = (t - self._t0) / self.pace - (now - self._wall0)
            if ahead > 0:
                time.sleep(ahead)
                now = time.perf_counter()
        if now - self._last < self.period:
            return
        self._last = now
        cols = {c: record[i:i + 1] for i, c in enumerate(self.columns)}
        cols["mode"] = np.array([mode])
        poses = self.scene.poses(cols)
        if self.drawing is None:  # after replay(): nothing live to show
            return
        if not self._aimed:
            self.drawing.anchor = poses.frames[0, 0, :3].copy() if poses.frames.shape[1] else np.zeros(3)
            self.drawing.aim_camera(poses)
            self._aimed = True
        if poses.frames.shape[1]:
            self._recentre(poses.frames[0, 0, :3])
        self.drawing.show(poses, 0)
        self.sim_time.value = f"{t:.3f}"
        if now > self._wall0:
            self.rtf.value = f"{(t - self._t0) / (now - self._wall0):.2f}"
        self.frames_shown += 1

    def _recentre(self, c: np.ndarray) -> None:
        """Draw the terrain again around the robot at ``c`` once it is half the reach from the terrain's
        centre across the ground."""
        assert self.drawing is not None
        if np.linalg.norm(across_ground(c - self._centre, self.scene.up)) > self.reach / 2:
            self._centre = across_ground(c, self.scene.up)
            self.drawing.draw_terrain((self._centre - self.reach, self._centre + self.reach))

    def replay(self, run_dir: str | Path, echo=print) -> Replay:
        """Show the finished run in ``run_dir`` on the same page (the live robot is removed)."""
        self.server.scene.reset()
        self.server.gui.reset()
        self.drawing = None
        run = load_run(run_dir)
        with run.reading():
            run.times(1, "to show")
            replay = Replay(self.server, self.scene, run.records, run.meta["state_names"][:3])
        echo(f"viewer: replaying the run at {self.url} (Ctrl-C to stop)")
        return replay

    def close(self) -> None:
        stop_server(self.server)

    def wait(self) -> None:
        """Keep serving (the last frame shown) until Ctrl-C."""
        try:
            _wait_forever()
        except KeyboardInterrupt:  # the way to close a viewer
            pass

    def serve_replay(self, run_dir: str | Path, echo=print) -> None:
        """:meth:`replay` the run in ``run_dir`` until Ctrl-C."""
        _hold(lambda: self.replay(run_dir, echo))


def live_view(robot: Any, framerate: float = 30.0, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
              echo=print, pace: float | None = None) -> LiveView:
    """A :class:`LiveView` of an assembled :class:`legsim.assembly.Robot`:
    ``robot.simulate(t, controller, monitor=live_view(robot))``."""
    from ..assembly import Robot

    if not isinstance(robot, Robot):
        raise InputError(f"live_view: robot = {robot!r}, expected a legsim.assembly.Robot")
    model = robot.model
    return LiveView(robot_scene(robot), ["t", *model.state_names, *model.output_names], framerate, host, port,
                    echo, pace)


def live_view_of(scenario: Any, framerate: float = 30.0, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                 echo=print, pace: float | None = None) -> LiveView:
    """A :class:`LiveView` of a validated :class:`legsim.scenario.Scenario` (pass it as the run's
    ``monitor``)."""
    from ..scenario import Scenario

    if not isinstance(scenario, Scenario):
        raise InputError(f"live_view_of: scenario = {scenario!r}, expected a legsim.scenario.Scenario "
                         "(load_scenario(path))")
    model = scenario.model
    if scenario.robot is not None:
        scene = robot_scene(scenario.robot)
    else:
        meta = {"model": scenario.model_name, "scenario": scenario.resolved()}
        scene = scene_for_run(meta, scenario.source)
    columns = ["t", *model.state_names, *model.output_names]
    return LiveView(scene, columns, framerate, host, port, echo, pace)
