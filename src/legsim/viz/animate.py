"""``legsim animate DIR``: offline replay of a run as an animated GIF.

SimSect drew its robots live through Geomview (digest §1.6, §4.14); legsim replays a finished (or
failed) run from its records instead, so a run can be watched again, shared and compared. The SLIP
is drawn in its sagittal plane (body, leg, foot); the hexapod in 3-D (body frame, six legs from hip
to toe, the terrain under it), following the body.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.results import RunData, load_run

__all__ = ["animate_run", "ANIMATORS"]


def _columns(run: RunData, names) -> np.ndarray:
    return np.stack([run.records[n] for n in names], axis=1)


def _params(run: RunData) -> dict[str, float]:
    return dict(run.meta.get("scenario", {}).get("params", {}))


def _slip(run: RunData, fig, frames: np.ndarray):
    """Sagittal SLIP: body, massless leg to the foot in stance or at the touchdown angle in flight."""
    p = _params(run)
    x = _columns(run, ["x", "y", "footx", "footy", "touchdown_angle"])[frames]
    modes = run.records["mode"][frames]
    qrt = p.get("q_rt", 1.0)
    ax = fig.add_subplot(111)
    ax.set_aspect("equal")
    ax.axhline(0.0, color="0.3", lw=2)
    ax.set_ylim(-0.1, max(1.6, 1.1 * x[:, 1].max()))
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


def _hexapod(run: RunData, fig, frames: np.ndarray):
    """Hexapod in 3-D: body outline through the hips, legs hip → toe, terrain patch, camera follows."""
    from ..robots.rhex.terrain import terrain_height

    p = _params(run)
    pvec = np.array(list(p.values()), dtype=float)
    rot = _columns(run, [f"R_{i}{j}" for i in (1, 2, 3) for j in (1, 2, 3)])[frames].reshape(-1, 3, 3)
    pos = _columns(run, ["x", "y", "z"])[frames]
    toes = _columns(run, [f"f{i}_{c}" for i in range(6) for c in "xyz"])[frames].reshape(-1, 6, 3)
    attach = np.array([[p[f"attach{i}_{c}"] for c in "xyz"] for i in range(6)])
    stance = ((run.records["mode"][frames][:, None] >> np.arange(6)) & 1).astype(bool)
    t = run.records["t"][frames]
    ax = fig.add_subplot(111, projection="3d")
    outline = [0, 1, 2, 5, 4, 3, 0]  # left legs front→rear, right legs rear→front
    half = 0.45
    g = np.linspace(-half, half, 11)

    def draw(k: int):
        ax.cla()
        c = pos[k]
        gx, gy = np.meshgrid(c[0] + g, c[1] + g)
        gz = terrain_height(pvec, gx, gy)
        ax.plot_wireframe(gx, gy, gz, color="0.75", lw=0.5)
        hips = pos[k] + attach @ rot[k].T
        ax.plot(*hips[outline].T, color="tab:blue", lw=2.5)
        for i in range(6):
            ax.plot(*np.stack([hips[i], toes[k, i]]).T, color="k" if stance[k, i] else "tab:red",
                    lw=1.8)
        ax.set_xlim(c[0] - half, c[0] + half)
        ax.set_ylim(c[1] - half, c[1] + half)
        ax.set_zlim(gz.min() - 0.05, gz.min() + half)
        ax.set_box_aspect((2 * half, 2 * half, half + 0.05))
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m] (forward)")
        ax.set_title(f"hexapod  t = {t[k]:.2f} s   (black: stance, red: flight)")
        return ()

    return draw


ANIMATORS: dict[str, Callable] = {"slip": _slip, "hexapod": _hexapod}
"""Model name -> scene builder ``(run, figure, frame indices) -> draw(k)``."""


def animate_run(run_dir: str | Path, out: str | Path | None = None, fps: int = 20,
                speed: float = 1.0) -> Path:
    """Write ``DIR/plots/animation.gif`` (or ``out``): the run replayed at ``speed`` × real time,
    ``fps`` frames per second of the GIF. Returns the file written."""
    run = load_run(run_dir)
    name = run.meta.get("model", "?")
    if name not in ANIMATORS:
        raise InputError(f"{run_dir}: no animation for model '{name}'; available: "
                         f"{', '.join(sorted(ANIMATORS))}")
    if not (fps > 0 and speed > 0):
        raise InputError(f"animate: fps and speed must be > 0, got fps={fps}, speed={speed}")
    t = run.records.get("t")
    if t is None or t.size < 2:
        raise InputError(f"{run_dir}: the run has fewer than two records to animate")
    times = np.arange(t[0], t[-1], speed / fps)
    frames = np.clip(np.searchsorted(t, times), 0, t.size - 1)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(6, 5))
    draw = ANIMATORS[name](run, fig, frames)
    target = Path(out) if out is not None else Path(run_dir) / "plots" / "animation.gif"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_gif(fig, draw, range(len(frames)), target, fps)
    plt.close(fig)
    return target


def write_gif(fig, draw: Callable[[int], object], frames, path: str | Path, fps: float) -> Path:
    """An animated GIF of ``fig``: for each frame index k of ``frames``, ``draw(k)`` updates the
    artists, the figure is rendered once and the pixels kept (``FuncAnimation`` with
    ``PillowWriter`` renders every frame twice: half the time here); ``fps`` frames per second,
    looping. Returns ``path``."""
    from PIL import Image

    canvas = fig.canvas
    images = []
    for k in frames:
        draw(k)
        canvas.draw()
        w, h = canvas.get_width_height(physical=True)
        images.append(Image.frombuffer("RGBA", (w, h), bytes(canvas.buffer_rgba()), "raw", "RGBA", 0, 1))
    if not images:
        raise InputError(f"{path}: no frames to write")
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(round(1000 / fps)), loop=0)
    return Path(path)
