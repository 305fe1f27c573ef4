"""``legsim animate DIR``: offline replay of a run as an animated GIF (or an MP4 video).

SimSect drew its robots live through Geomview (digest §1.6, §4.14); legsim replays a finished (or
failed) run from its records instead, so a run can be watched again, shared and compared. The SLIP
is drawn in its sagittal plane (body, leg, foot) over flat ground; the hexapod in 3-D (body frame,
six legs from hip to toe), following the body, over the terrain the run used: the ``terrain_type``
and ``terrain_arg*`` (and a heightfield's ``hf_*``) parameters resolved in the run's ``run.json``,
drawn as a surface coloured by height with grid lines on the true heights. Every other run is drawn from
the 3-D scene that ``legsim view`` shows (:func:`scene_animation`): robots from hardware files and URDFs,
the CRR leg, the Python demos' robots.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from .._machine import cpu_count
from ..errors import InputError, as_floats, check_number, check_text, shown
from ..io.results import RunData, load_run
from ..userfiles import output_dir, user_path

__all__ = ["animate_run", "BackgroundAnimation", "ANIMATORS", "scene_animation", "terrain_label",
           "write_animation", "MAX_GIF_FRAMES"]


def _columns(run: RunData, names) -> np.ndarray:
    from .scene import drawn_column

    return np.stack([drawn_column(run.records, n, f"animation of {run.meta['model']!r}") for n in names],
                    axis=1)


def _slip(run: RunData, fig, frames: np.ndarray):
    """Sagittal SLIP: body, massless leg to the foot in stance or at the touchdown angle in flight."""
    p = run.params
    x = _columns(run, ["x", "y", "footx", "footy", "touchdown_angle"])[frames]
    modes = run.records["mode"][frames]
    qrt = p.get("q_rt", 1.0)
    ax = fig.add_subplot(111)
    ax.set_aspect("equal")
    ax.axhline(0.0, color="0.3", lw=2)
    ax.set_ylim(-0.1, max(1.6, 1.1 * x[:, 1].max()))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m] (height)")
    leg, = ax.plot([], [], "k-", lw=2)
    body, = ax.plot([], [], "o", color="tab:blue", ms=14)
    label = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top")
    t = run.records["t"][frames]

    def draw(k: int):
        bx, by, fx, fy, th = x[k]
        if modes[k] in (2, 3):  # stance charts: the leg ends at the foot
            tx, ty = fx, fy
        else:
            tx, ty = bx - qrt * np.sin(th), by - qrt * np.cos(th)
        leg.set_data([bx, tx], [by, ty])
        body.set_data([bx], [by])
        ax.set_xlim(bx - 1.5, bx + 1.5)
        label.set_text(f"t = {t[k]:.2f} s")
        return leg, body, label

    return draw


_TERRAIN_LABEL = {0: "flat, h = 0", 1: "sinusoidal, h = {a1:g} sin({a2:g} x) cos({a3:g} y)",
                  2: "sloped, h = {a1:g} x + {a2:g} y + {a3:g} (y > 0)",
                  3: "sloped, h = {a1:g} x + {a2:g} max(y, 0) + {a3:g}",
                  4: "heightfield ({nx} x {ny} points)"}


def terrain_label(p: dict[str, float]) -> str:
    """A one-line description of the run's terrain with its arguments (heights in m): ``p`` the run's
    parameters (a dict; ``terrain_type``, ``terrain_arg1`` .. ``3``, ``hf_nx``, ``hf_ny`` finite numbers,
    0 when missing; an unknown terrain type is "?")."""
    if not isinstance(p, Mapping):
        raise InputError(f"terrain_label: 'p' = {shown(p)}, expected the run's parameters (a dict)")
    v = {key: check_number("terrain_label", f"p.{key}", p.get(key, 0.0))
         for key in ("terrain_type", "terrain_arg1", "terrain_arg2", "terrain_arg3", "hf_nx", "hf_ny")}
    return "terrain: " + _TERRAIN_LABEL.get(int(v["terrain_type"]), "?").format(
        a1=p.get("terrain_arg1", 0.0), a2=p.get("terrain_arg2", 0.0), a3=p.get("terrain_arg3", 0.0),
        nx=int(v["hf_nx"]), ny=int(v["hf_ny"]))


def _hexapod(run: RunData, fig, frames: np.ndarray):
    """Hexapod in 3-D: body outline through the hips, legs hip → toe, terrain patch, camera follows.

    The terrain patch (``2 half`` square around the body) is a surface coloured by height on one
    scale for the whole replay, with grid lines (``gid="terrain"``) through the heights of
    :func:`legsim.robots.rhex.terrain.terrain_height` at the grid points."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    from ..robots.rhex.terrain import terrain_height
    from .scene import hexapod_attach, hexapod_params

    p = run.params
    pvec = hexapod_params(p)
    rot = _columns(run, [f"R_{i}{j}" for i in (1, 2, 3) for j in (1, 2, 3)])[frames].reshape(-1, 3, 3)
    pos = _columns(run, ["x", "y", "z"])[frames]
    toes = _columns(run, [f"f{i}_{c}" for i in range(6) for c in "xyz"])[frames].reshape(-1, 6, 3)
    attach = hexapod_attach(pvec)
    stance = ((run.records["mode"][frames][:, None] >> np.arange(6)) & 1).astype(bool)
    t = run.records["t"][frames]
    # drawn in order (terrain, then the robot on it): mplot3d's depth sort by artist centre would
    # put the terrain patch, whose centre is under the body, in front of the legs
    ax = fig.add_subplot(111, projection="3d", computed_zorder=False)
    outline = [0, 1, 2, 5, 4, 3, 0]  # left legs front→rear, right legs rear→front
    half = 0.45
    g = np.linspace(-half, half, 19)
    # one colour scale for the whole replay: the heights over the area the body crosses
    span = [np.linspace(pos[:, i].min() - half, pos[:, i].max() + half, 60) for i in (0, 1)]
    h_all = terrain_height(pvec, *np.meshgrid(*span))
    lo, hi = float(h_all.min()), float(h_all.max())
    pad = 0.3 * (hi - lo) if hi - lo > 1e-9 else 1.0  # flat ground: one mid-scale colour
    norm = Normalize(lo - pad, hi + pad)
    cmap = colormaps["gist_earth"]
    label = terrain_label(p)

    # the axes and the lines are made once and updated per frame (clearing and rebuilding the axes
    # each frame was a third of the GIF's time); the terrain surface is replaced
    ax.set_box_aspect((2 * half, 2 * half, half + 0.05))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m] (forward)")
    ax.set_zlabel("z [m]")
    ticks = range(0, g.size, 2)
    grid = [ax.plot([], [], [], color="0.35", lw=0.5, gid="terrain")[0] for _ in range(2 * len(ticks))]
    body_line = ax.plot([], [], [], color="tab:blue", lw=2.5)[0]
    legs = [ax.plot([], [], [], lw=1.8)[0] for _ in range(6)]
    surface: list = []  # the terrain surface drawn for the current frame

    def draw(k: int):
        c = pos[k]
        gx, gy = np.meshgrid(c[0] + g, c[1] + g)
        gz = terrain_height(pvec, gx, gy)
        for old in surface:
            old.remove()
        surface[:] = [ax.plot_surface(gx, gy, gz, facecolors=cmap(norm(gz)), shade=False, alpha=0.55, lw=0,
                                      antialiased=False, gid="terrain_surface")]
        for j, i in enumerate(ticks):  # grid lines along x and along y, on the true heights
            grid[2 * j].set_data_3d(gx[i], gy[i], gz[i])
            grid[2 * j + 1].set_data_3d(gx[:, i], gy[:, i], gz[:, i])
        hips = pos[k] + attach @ rot[k].T
        body_line.set_data_3d(*hips[outline].T)
        for i in range(6):
            legs[i].set_data_3d(*np.stack([hips[i], toes[k, i]]).T)
            legs[i].set_color("k" if stance[k, i] else "tab:red")
        ax.set_xlim(c[0] - half, c[0] + half)
        ax.set_ylim(c[1] - half, c[1] + half)
        ax.set_zlim(gz.min() - 0.05, gz.min() + half)
        ax.set_title(f"hexapod  t = {t[k]:.2f} s   (black: stance, red: flight)\n{label}", fontsize=10)
        return ()

    return draw


ANIMATORS: dict[str, Callable] = {"slip": _slip, "hexapod": _hexapod}
"""Model name -> its own drawing ``(run, figure, frame indices) -> draw(k)``; every other run with a 3-D
scene (``legsim view``'s) is drawn by :func:`scene_animation`."""


def _rgb(color) -> tuple[float, float, float]:
    return tuple(c / 255.0 for c in color)


def scene_animation(scene, records, fig, frames: np.ndarray, title: str = ""):
    """Any robot with a :class:`~legsim.viz.scene.Scene` (what ``legsim view`` draws: robots from parts,
    URDFs, the Python demos' robots) in 3-D: its shapes as triangles shaded by a light from above (one
    collection, so that matplotlib sorts them by depth across bodies), its segments and its contact-force
    arrows, the ground near it (a 0.25 m grid fixed to a plane, so that it passes under a robot that
    travels; a terrain surface as its mesh; obstacles), the view following the robot's first frame.
    matplotlib does not clip to the view, so the ground and the obstacles are drawn only within it (their
    triangles cut to 0.25 m, those whose centre is in view). ``records``: the run's columns by name;
    ``frames``: the record indices drawn (whole numbers from 0 to the records' count - 1); ``title``: the
    run's name; ``fig``: the matplotlib figure drawn in."""
    import trimesh
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    from .scene import FORCE, LEG, shape_mesh, wxyz_to_rotation
    from .viewer import _check_scene_records, _Rows, area_of

    _check_scene_records("scene_animation", scene, records)
    _check_figure("scene_animation", fig)
    n = len(np.asarray(records["t"]))
    index = as_floats(frames)
    whole = (index >= 0) & (index < n) & (index == np.floor(index))
    if not (index.ndim == 1 and index.size and np.all(whole)):
        raise InputError(f"scene_animation: 'frames' = {shown(frames)}, expected the record indices drawn "
                         f"(whole numbers 0..{n - 1})")
    check_text("scene_animation", "title", title, "'' for the scene's name")
    frames = index.astype(np.int64)
    poses = scene.poses(_Rows(records, frames))
    t = np.asarray(records["t"])[frames]
    index = {f: j for j, f in enumerate(scene.frames)}
    half = max(0.3, 1.2 * scene.extent)  # [m] the view: a cube of 2 half around the robot
    cell = 0.25
    light = np.array([-0.4, -0.6, 1.0]) / np.linalg.norm([-0.4, -0.6, 1.0])
    meshes = [(*shape_mesh(s), index.get(s.frame, -1) if s.frame else -1) for s in scene.shapes]
    colors = np.concatenate([np.tile(_rgb(s.color), (len(m[1]), 1))
                             for s, m in zip(scene.shapes, meshes, strict=True)] or [np.zeros((0, 3))])
    rot = wxyz_to_rotation(poses.frames[..., 3:])  # (T, nframe, 3, 3)
    planes, fixed = [], []  # the ground planes (a grid per frame); the rest, cut to cells once
    for g in scene.terrain(area_of(poses, half)):
        if g.kind == "box" and g.name == "ground":
            planes.append((g.p + g.R[:, 2] * g.dims[2] / 2, g.R[:, 0], g.R[:, 1]))
        else:
            v, f = trimesh.remesh.subdivide_to_size(*shape_mesh(g), max_edge=cell)
            fixed.append((v[f], _rgb(g.color)))

    ax = fig.add_subplot(111, projection="3d", computed_zorder=False)  # drawn in zorder: ground first
    ax.set_box_aspect((1.0, 1.0, 1.0), zoom=1.3)
    ax.set_axis_off()
    grid = [ax.plot([], [], [], color="0.55", lw=0.6, zorder=0)[0]
            for _ in range(len(planes) * 2 * (int(2 * half / cell) + 2))]
    ground = Poly3DCollection([], edgecolor=(0, 0, 0, 0.1), lw=0.2, alpha=0.7, zorder=0)
    body = Poly3DCollection([], edgecolor=(0, 0, 0, 0.12), lw=0.2, zorder=1)
    ax.add_collection3d(ground)
    ax.add_collection3d(body)
    width = 0.02 * scene.extent  # [m] of the segments and arrows, drawn as ribbons among the body's triangles
    line_rgb = np.concatenate([np.tile(_rgb(LEG), (len(scene.segment_names), 1)),
                               np.tile(_rgb(FORCE), (len(scene.arrow_names), 1))])

    def shaded(tri: np.ndarray, rgb: np.ndarray) -> np.ndarray:
        n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
        return rgb * (0.55 + 0.45 * np.abs(n @ light))[:, None]

    def draw_ground(c: np.ndarray) -> None:
        lines = iter(grid)
        for top, u, w in planes:  # the grid on each plane's top face, in view around the robot
            cu, cw = (c - top) @ u, (c - top) @ w
            for e1, e2, c1, c2 in ((u, w, cu, cw), (w, u, cw, cu)):
                for a in np.arange(np.ceil((c1 - half) / cell) * cell, c1 + half, cell):
                    next(lines).set_data_3d(*(top + a * e1 + np.outer([c2 - half, c2 + half], e2)).T)
        for line in lines:
            line.set_data_3d([], [], [])
        tris, rgbs = [], []
        for tri, rgb in fixed:
            keep = np.all(np.abs(tri.mean(axis=1) - c) <= half, axis=1)
            tris.append(tri[keep])
            rgbs.append(np.tile(rgb, (int(keep.sum()), 1)))
        tri = np.concatenate(tris) if tris else np.zeros((0, 3, 3))
        ground.set_verts(tri)
        ground.set_facecolor(shaded(tri, np.concatenate(rgbs)) if len(tri) else "none")

    def ribbons(ends: np.ndarray) -> np.ndarray:
        """Segments ``ends`` (n, 2, 3) as ribbons facing the camera, each in 8 pieces (2 triangles a
        piece) so that the depth sort puts each piece in front of or behind the body where it is."""
        e, a = np.radians(ax.elev), np.radians(ax.azim)
        eye = np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
        d = ends[:, 1] - ends[:, 0]
        side = np.cross(d, eye)
        side *= (width / 2) / np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-12)
        s = np.linspace(0.0, 1.0, 9)
        pts = ends[:, None, 0] + s[None, :, None] * d[:, None]  # (n, 9, 3)
        lo, hi = pts - side[:, None], pts + side[:, None]
        quads = np.stack([lo[:, :-1], lo[:, 1:], hi[:, 1:], hi[:, :-1]], axis=2)  # (n, 8, 4, 3)
        return np.concatenate([quads[:, :, [0, 1, 2]], quads[:, :, [0, 2, 3]]], axis=1).reshape(-1, 3, 3)

    def draw(k: int):
        c = poses.frames[k, 0, :3] if poses.frames.shape[1] else np.zeros(3)
        draw_ground(c)
        tri = [(v if j < 0 else v @ rot[k, j].T + poses.frames[k, j, :3])[f] for v, f, j in meshes]
        rgb = [shaded(np.concatenate(tri), colors)] if tri else []
        ends = np.concatenate([poses.segments[k], poses.arrows[k]])
        live = np.linalg.norm(ends[:, 1] - ends[:, 0], axis=1) > 1e-9  # an arrow without force: none
        if live.any():
            tri.append(ribbons(ends[live]))
            rgb.append(np.repeat(line_rgb[live], 16, axis=0))
        if tri:
            body.set_verts(np.concatenate(tri))
            body.set_facecolor(np.concatenate(rgb))
        ax.set_xlim(c[0] - half, c[0] + half)
        ax.set_ylim(c[1] - half, c[1] + half)
        ax.set_zlim(c[2] - half, c[2] + half)
        ax.set_title(f"{title or scene.name}  t = {t[k]:.2f} s", fontsize=10)
        return ()

    return draw


def animate_run(run_dir: str | Path, out: str | Path | None = None, fps: float = 20,
                speed: float = 1.0) -> Path:
    """Write ``DIR/plots/animation.gif`` (or ``out``, a .gif or .mp4: :func:`write_animation`): the
    run replayed at ``speed`` × real time, ``fps`` frames per second. Returns the file written."""
    run = load_run(run_dir)
    with run.reading():
        return _animate(run, Path(run_dir) / "plots" / "animation.gif" if out is None else out, fps, speed)


def _animate(run: RunData, out: str | Path, fps: float, speed: float) -> Path:
    name = run.meta["model"]
    scene = None
    if name not in ANIMATORS:
        from .scene import scene_for_run

        scene = scene_for_run(run.meta, run.dir)  # an InputError naming the run when it has none
    from .viewer import frame_times

    t = run.times(2, "to animate")
    frames = np.clip(np.searchsorted(t, frame_times(t, fps, speed, "animate")), 0, t.size - 1)
    target = user_path(out, "animate --out")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(6, 5))
    try:
        if scene is None:
            draw = ANIMATORS[name](run, fig, frames)
        else:
            draw = scene_animation(scene, run.records, fig, frames, title=str(run.meta.get("demo") or name))
        output_dir(target.parent, "the animation")
        write_animation(fig, draw, range(len(frames)), target, fps)
    finally:
        plt.close(fig)
    return target


_CHILD = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot, mpl_toolkits.mplot3d, PIL.Image
from legsim.viz.animate import animate_run
if sys.stdin.readline().strip() == "go":
    print(animate_run(sys.argv[1], fps=float(sys.argv[2]), speed=float(sys.argv[3])))
"""


def _check_figure(owner: str, fig: object, pixels: bool = False) -> None:
    """An :class:`InputError` naming ``owner`` unless ``fig`` is a matplotlib figure (with ``pixels``, one
    whose canvas renders them: the Agg backend's, as ``plt.figure()`` makes after
    ``matplotlib.use("Agg")``)."""
    from matplotlib.figure import Figure

    if not isinstance(fig, Figure) or pixels and not hasattr(fig.canvas, "buffer_rgba"):
        agg = " drawn by the Agg backend (matplotlib.use('Agg'); plt.figure())" if pixels else ""
        raise InputError(f"{owner}: 'fig' = {shown(fig)}, expected a matplotlib figure{agg}")


class BackgroundAnimation:
    """:func:`animate_run` in a second process, so that its frames render on the other core while the
    caller draws its figures (the Quickstart demo: 50 frames, ~2.3 s, beside ~2.5 s of figures and
    replay). The process starts at construction and imports the plotting libraries (~1 s), then waits:
    :meth:`render` tells it to animate ``run_dir`` (its records must be on disk by then), :meth:`result`
    waits for the file, :meth:`cancel` lets it go without drawing. On one core, or if the second process
    fails, :meth:`result` animates in this process (so its error, if any, is this process's). ``fps``
    frames per second (MIN_FPS to MAX_FPS of :mod:`legsim.viz.viewer`), ``speed`` × real time (> 0)."""

    def __init__(self, run_dir: str | Path, fps: float = 20, speed: float = 1.0):
        from .viewer import MAX_FPS, MIN_FPS

        user_path(run_dir, "BackgroundAnimation: run_dir")
        fps = check_number("BackgroundAnimation", "fps", fps, lo=MIN_FPS, hi=MAX_FPS)
        speed = check_number("BackgroundAnimation", "speed", speed, lo=0.0, lo_open=True)
        self.run_dir, self.fps, self.speed = run_dir, fps, speed
        self._job: subprocess.Popen | None = None
        if cpu_count() >= 2 and sys.executable:
            try:
                self._job = subprocess.Popen(
                    [sys.executable, "-c", _CHILD, str(run_dir), repr(fps), repr(speed)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            except OSError:  # no second process here: result() animates in this one
                self._job = None

    def render(self) -> None:
        self._end_input("go\n")

    def cancel(self) -> None:
        self._end_input("")  # end of input without "go": it exits without drawing

    def _end_input(self, line: str) -> None:
        if self._job is not None and self._job.stdin is not None and not self._job.stdin.closed:
            try:
                self._job.stdin.write(line)
                self._job.stdin.close()
            except OSError:  # it died: result() animates here
                pass

    def result(self) -> Path:
        if self._job is not None:
            self.render()
            job, self._job = self._job, None
            assert job.stdout is not None
            printed = job.stdout.read()  # its only output (stderr goes nowhere): no deadlock
            job.stdout.close()
            if job.wait() == 0 and printed.strip():
                return Path(printed.strip().splitlines()[-1])
        return animate_run(self.run_dir, fps=self.fps, speed=self.speed)


MAX_GIF_FRAMES = 2000
"""The most frames of a GIF: Pillow writes one from every frame held in memory (~0.3 MB each, quantised,
at the 600 x 500 pixels drawn here); an MP4 is written frame by frame as it is drawn."""


def write_animation(fig, draw: Callable[[int], object], frames, path: str | Path, fps: float) -> Path:
    """An animation of ``fig`` at ``path``: for each frame index k of ``frames``, ``draw(k)`` updates
    the artists, the figure is rendered once and the pixels kept (``FuncAnimation`` renders every
    frame twice: half the time here); ``fps`` frames per second. The file's suffix picks the format:
    ``.gif`` (looping, Pillow; at most :data:`MAX_GIF_FRAMES` frames) or ``.mp4`` (H.264 through
    imageio's ffmpeg, the optional extra ``pip install 'legsim[video]'``). Returns ``path``. ``fig``: a figure
    of the Agg backend; ``frames``: whole numbers, at most :data:`~legsim.viz.viewer.MAX_FRAMES`; ``fps`` from
    MIN_FPS to MAX_FPS of :mod:`legsim.viz.viewer` (a GIF's frame lasts a whole number of milliseconds)."""
    from .viewer import MAX_FPS, MAX_FRAMES, MIN_FPS

    _check_figure("write_animation", fig, pixels=True)
    if not callable(draw):
        raise InputError(f"write_animation: 'draw' = {shown(draw)}, expected a function draw(k) of a frame "
                         "index")
    fps = check_number("write_animation", "fps", fps, lo=MIN_FPS, hi=MAX_FPS)
    target = user_path(path, "write_animation: path")
    kind = target.suffix.lower()
    given = frames
    try:  # at most one frame more than the cap: a range of 10**12 frames is not built in memory
        frames = list(itertools.islice(frames, MAX_FRAMES + 1))
    except TypeError:
        frames = [None]
    if not all(isinstance(k, int | np.integer) and not isinstance(k, bool) for k in frames):
        raise InputError(f"write_animation: 'frames' = {shown(given)}, expected the frame indices (whole "
                         "numbers)")
    if len(frames) > MAX_FRAMES:
        raise InputError(f"write_animation: 'frames' holds more than MAX_FRAMES = {MAX_FRAMES} frames")
    if kind not in (".gif", ".mp4"):
        raise InputError(f"write_animation: path = '{target}': an animation is written as .gif or .mp4, not "
                         f"{kind or 'no suffix'!r}")
    if not frames:
        raise InputError(f"write_animation: 'frames' is empty: no frames to write to {target}")
    if kind == ".gif" and len(frames) > MAX_GIF_FRAMES:
        raise InputError(f"{target}: {len(frames)} frames, expected at most MAX_GIF_FRAMES = "
                         f"{MAX_GIF_FRAMES} for a GIF (all held in memory while it is written): a higher "
                         "speed, a lower fps, or an .mp4")
    if kind == ".mp4":
        try:
            import imageio.v2 as imageio
            import imageio_ffmpeg  # noqa: F401  (the ffmpeg binary imageio writes MP4 with)
        except ImportError:
            raise InputError(f"{target}: writing MP4 needs imageio-ffmpeg: pip install 'legsim[video]' "
                             "(or write a .gif)") from None
    canvas = fig.canvas

    def rendered():  # (h, w, 3) pixels of each frame, a view of the canvas until the next frame
        for k in frames:
            draw(k)
            canvas.draw()
            yield np.asarray(canvas.buffer_rgba())[..., :3]

    if kind == ".gif":
        from PIL import Image

        # each frame's 256 colours by Pillow's fast octree: a third of the adaptive palette's time (50
        # hexapod frames: 0.29 against 0.91 s) and a smaller file (1.1 against 1.9 MB)
        images = [Image.fromarray(np.ascontiguousarray(p)).quantize(256, method=Image.Quantize.FASTOCTREE)
                  for p in rendered()]
        images[0].save(target, save_all=True, append_images=images[1:], duration=int(round(1000 / fps)),
                       loop=0)
    else:
        with imageio.get_writer(target, fps=fps, codec="libx264", quality=8, macro_block_size=16) as out:
            for p in rendered():
                h, w = (p.shape[0] // 16) * 16, (p.shape[1] // 16) * 16  # H.264 wants whole blocks
                out.append_data(p[:h, :w])  # type: ignore[attr-defined]
    return target
