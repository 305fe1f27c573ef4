"""``legsim plot DIR``: states and outputs vs time, gait diagram and body path of a run.

Figures go to ``DIR/plots/*.png``. The gait diagram (stance bars per leg vs time) and the body
path need the model's ``stance`` and ``path_states`` (legged models provide them).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .. import registry
from ..io.results import RunData, load_run
from ..userfiles import output_dir
from .scene import drawn_column

__all__ = ["plot_run"]

_MAX_PANELS = 16


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _varying(records: Mapping[str, np.ndarray], names: list[str]) -> list[str]:
    out = []
    for n in names:
        col = records.get(n)
        if col is not None and col.size and np.ptp(col) > 0:
            out.append(n)
    return out


def _panels(plt, t, records, names, title, path):
    names = names[:_MAX_PANELS]
    if not names:
        return None
    ncol = 2 if len(names) > 4 else 1
    nrow = int(np.ceil(len(names) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(6 * ncol, 1.8 * nrow + 0.8), sharex=True,
                             squeeze=False)
    for ax, name in zip(axes.flat, names, strict=False):
        ax.plot(t, records[name], lw=1)
        ax.set_ylabel(name, fontsize=8)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_run(run_dir: str | Path) -> list[Path]:
    """Write the figures of a run directory; returns the files written."""
    run = load_run(run_dir)
    with run.reading():
        return _plot(run, run_dir)


def _plot(run: RunData, run_dir: str | Path) -> list[Path]:
    rec = run.records
    t = run.times(1, "to plot")
    plt = _pyplot()
    out = output_dir(Path(run_dir) / "plots", "the figures")
    meta = run.meta
    # a registered model adds its gait and path figures; a robot assembled from a hardware file
    # (legsim.assembly) is not in the registry: its states and outputs are plotted all the same
    model = (registry.build(meta["model"], where=f"{run_dir}/run.json: model")
             if meta["model"] in registry.available_models() else None)
    nx = len(meta["state_names"])
    state_cols = meta["columns"][2:2 + nx]
    out_cols = meta["columns"][2 + nx:]
    files = []
    title = f"{meta['model']} ({meta.get('status', '?')})"
    f = _panels(plt, t, rec, _varying(rec, state_cols), f"{title}: states", out / "states.png")
    files += [f] if f else []
    f = _panels(plt, t, rec, _varying(rec, [c for c in out_cols if c not in ("time", "out_time")]),
                f"{title}: outputs", out / "outputs.png")
    files += [f] if f else []
    if model is not None and model.stance is not None:
        stance = np.asarray(model.stance(rec["mode"]), dtype=bool)  # a column of every run (load_run)
        fig, ax = plt.subplots(figsize=(9, 0.45 * stance.shape[1] + 1.2))
        for leg in range(stance.shape[1]):
            on = stance[:, leg]
            edges = np.flatnonzero(np.diff(np.r_[0, on.astype(int), 0]))
            spans = [(t[a], t[min(b, t.size - 1)] - t[a]) for a, b in zip(edges[::2], edges[1::2],
                                                                          strict=True)]
            ax.broken_barh(spans, (leg - 0.4, 0.8), color="k")
        ax.set_yticks(range(stance.shape[1]))
        ax.set_yticklabels([f"leg {i}" for i in range(stance.shape[1])])
        ax.set_xlabel("t [s]")
        ax.set_title(f"{meta['model']}: gait diagram (black = stance)")
        ax.set_xlim(t[0], t[-1])
        fig.tight_layout()
        fig.savefig(out / "gait.png", dpi=110)
        plt.close(fig)
        files.append(out / "gait.png")
    if model is not None and model.path_states is not None:
        a, b = model.path_states
        xa, xb = (drawn_column(rec, c, f"path of {meta['model']!r}") for c in (a, b))
        fig, ax = plt.subplots(figsize=(6, 5))
        ax.plot(xa, xb, lw=1.2)
        ax.plot(xa[:1], xb[:1], "go", label="start")
        ax.plot(xa[-1:], xb[-1:], "rs", label="end")
        ax.set_xlabel(f"{a} [m]")
        ax.set_ylabel(f"{b} [m]")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        ax.legend()
        ax.set_title(f"{meta['model']}: body path")
        fig.tight_layout()
        fig.savefig(out / "path.png", dpi=110)
        plt.close(fig)
        files.append(out / "path.png")
    return files
