"""Runnable bench scenarios with plots and metrics (Daepp Figs. 25–28; Wagenknecht E3–E5).

``python -m legsim.robots.pneumatic_rig.scenarios OUT_DIR`` runs the closed-loop step series,
the sine-tracking series, an open-loop step and the hop sweep, writes PNG plots into OUT_DIR and
prints the metrics as JSON. ``python -m legsim.robots.pneumatic_rig.scenarios --solvers`` prints the
A4 solver study instead (:func:`legsim.validation.pneumatic.solver_study`: the open-loop pressure τ of
each solver at 1 ms and 1/640 s against adaptive DP45).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ...actuators.pneumatic.actuator import MAX_PRESSURE
from ...actuators.pneumatic.consumption import air_summary
from ...actuators.pneumatic.units import INCH, P_ATM, pa_to_psi
from ...errors import InputError, check_number, check_text, check_values, shown
from ...userfiles import output_file
from . import _rig_hooks as H
from .hop import HopBench
from .metrics import first_order_fit, lag_by_xcorr, rmse
from .rig import MAX_DURATION, Reference, RigBench, RigRun

__all__ = ["plot_rig_run", "plot_hop_sweep", "closed_loop_steps", "sine_tracking", "hop_sweep",
           "print_solver_study", "main", "SINE_OMEGA_RANGE"]

SINE_SETTLE = 0.5
"""When the sines of :func:`sine_tracking` start [s] (the rig at rest at mid-stroke before)."""
SINE_OMEGA_RANGE = (6.0 * math.pi / (MAX_DURATION - SINE_SETTLE), 1000.0 * math.pi)
"""The sine frequencies [rad/s] :func:`sine_tracking` takes: from the slowest whose three periods fit in a
run of :data:`~.rig.MAX_DURATION` to the 1 kHz controller's Nyquist frequency (a faster sine is aliased by
its sampling, and its two periods of lag measurement hold fewer than four 1 ms records)."""


def _figure_file(owner: str, name: str, path) -> Path:
    """``path`` of a figure to write (a string or path-like; its folder is made), else an :class:`InputError`
    naming ``owner`` and ``name``: not a path, a folder, or a suffix naming a format matplotlib does not
    write (without one: PNG)."""
    from matplotlib.backend_bases import FigureCanvasBase

    out = output_file(path, "the figure", f"{owner}: '{name}'")
    kinds = FigureCanvasBase.get_supported_filetypes()
    if out.suffix and out.suffix[1:].lower() not in kinds:
        raise InputError(f"{owner}: '{name}' = {str(path)!r}: matplotlib writes no {out.suffix!r} figures; "
                         f"expected one of {', '.join('.' + k for k in sorted(kinds))}")
    return out


def _bench(owner: str, bench) -> RigBench:
    """``bench`` (None: the default :class:`RigBench`), else an :class:`InputError` naming ``owner``."""
    if bench is None:
        return RigBench()
    if not isinstance(bench, RigBench):
        raise InputError(f"{owner}: 'bench' = {shown(bench)}, expected None or a RigBench")
    return bench


def _valve_times(owner: str, durations):
    """Valve command durations [ms]: a sequence of finite numbers in [0, 1000 MAX_DURATION] (the firings of
    :meth:`.hop.HopBench.fire`), as a float array, else an :class:`InputError` naming ``owner``."""
    d = check_values(owner, "durations", durations, lo=0.0, hi=1e3 * MAX_DURATION, unit="ms")
    if d.ndim != 1:
        raise InputError(f"{owner}: 'durations' = {shown(durations)}, expected a sequence of valve times "
                         "[ms]")
    return d


def plot_rig_run(run: RigRun, path, title: str = "") -> None:
    """Position vs reference [in], chamber pressures [psia], friction [N]; end stops shaded. ``run``: a
    :class:`RigRun` (:meth:`RigBench.run`); ``path``: the figure's file (by its suffix any format matplotlib
    writes; its folder is made); ``title``: a string."""
    o = "plot_rig_run"
    if not isinstance(run, RigRun):
        raise InputError(f"{o}: 'run' = {shown(run)}, expected a RigRun (RigBench.run)")
    path = _figure_file(o, "path", path)
    title = check_text(o, "title", title)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(3, 1, sharex=True, figsize=(8, 8))
    open_loop = bool(run.result.params[H.OPEN_LOOP])
    if not open_loop:
        ax[0].plot(run.t, run.ref / INCH, "k--", label="reference")
    ax[0].plot(run.t, run.x / INCH, label="position")
    ax[0].set_ylabel("position [in]")
    twin = ax[0].twinx()
    twin.plot(run.t, run.u, color="tab:red", lw=0.8)
    twin.set_ylabel("valve voltage [V]", color="tab:red")
    ax[1].plot(run.t, pa_to_psi(run.p_cap), label="cap")
    ax[1].plot(run.t, pa_to_psi(run.p_rod), label="rod")
    ax[1].set_ylabel("pressure [psia]")
    ax[2].plot(run.t, run.friction, label="friction")
    ax[2].set_ylabel("friction [N]")
    ax[2].set_xlabel("time [s]")
    stop = np.isin(run.mode, (1, 2))
    for a in ax:
        a.fill_between(run.t, 0, 1, where=stop, color="0.85", transform=a.get_xaxis_transform())
        a.legend(loc="best")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_hop_sweep(durations, heights: dict, path) -> None:
    """Hop height [cm] vs valve command duration [ms], one curve per label: ``durations`` [ms] (as
    :func:`hop_sweep`), ``heights`` label -> as many heights [m] (finite numbers), ``path`` the figure's file
    (as :func:`plot_rig_run`)."""
    o = "plot_hop_sweep"
    d = _valve_times(o, durations)
    if not isinstance(heights, Mapping):
        raise InputError(f"{o}: 'heights' = {shown(heights)}, expected a mapping label -> heights [m]")
    for label, h in heights.items():
        if not isinstance(label, str):
            raise InputError(f"{o}: 'heights' label {shown(label)} is not a string")
        if check_values(o, f"heights[{label!r}]", h, unit="m").shape != d.shape:
            raise InputError(f"{o}: 'heights[{label!r}]' = {shown(h)}, expected {d.size} heights [m], one "
                             "per entry of 'durations'")
    path = _figure_file(o, "path", path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for label, h in heights.items():
        ax.plot(durations, np.asarray(h) * 100, "o-", label=label)
    ax.axhline(31.75, color="k", ls=":", label="measured plateau (spool)")
    ax.set_xlabel("valve command [ms]")
    ax.set_ylabel("hop height [cm]")
    ax.legend()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def closed_loop_steps(bench: RigBench | None = None):
    """Five closed-loop steps (Daepp §4.3.2): run, first-order τ and R² per step, RMSE [in]. ``bench``: a
    :class:`RigBench` (None: the default one)."""
    bench = _bench("closed_loop_steps", bench)
    ref = Reference("table_hold", times=[0, 0.5, 1.5, 2.5, 3.5], values=[0.01, 0.03, 0.015, 0.035, 0.02])
    run = bench.run(ref, 4.5, x0=0.01, p_cap0=3e5, p_rod0=3e5)
    fits = []
    for t0, t1 in ((0.5, 1.5), (1.5, 2.5), (2.5, 3.5), (3.5, 4.5)):
        sel = (run.t >= t0) & (run.t < t1)
        f = first_order_fit(run.t[sel], run.x[sel], t0)
        fits.append({"t_step": t0, "tau": f.tau, "r2": f.r2})
    return run, {"steps": fits, "rmse_in": rmse(run.x, run.ref) / INCH, **air_summary(run.t, run.air_used)}


def sine_tracking(bench: RigBench | None = None, omegas=(1.0, 3.0, 5.0)):
    """Closed-loop sines (Daepp §4.3.3): lag by cross-correlation per frequency [s], over the second and third
    of three periods from 0.5 s. ``bench``: a :class:`RigBench` (None: the default one); ``omegas``: a
    sequence of frequencies [rad/s] in :data:`SINE_OMEGA_RANGE`. Returns (runs, lags), each keyed by the
    frequencies as given."""
    o = "sine_tracking"
    bench = _bench(o, bench)
    lo, hi = SINE_OMEGA_RANGE
    if check_values(o, "omegas", omegas, lo=lo, hi=hi, unit="rad/s").ndim != 1:
        raise InputError(f"{o}: 'omegas' = {shown(omegas)}, expected a sequence of frequencies [rad/s]")
    out = {}
    runs = {}
    for w in omegas:
        ref = Reference("sine", r0=0.022, amplitude=0.01, omega=w, t_start=SINE_SETTLE)
        run = bench.run(ref, SINE_SETTLE + 3 * 2 * np.pi / w, x0=0.022, p_cap0=3e5, p_rod0=3e5)
        sel = run.t > SINE_SETTLE + 2 * np.pi / w
        if np.count_nonzero(sel) < 2:  # the bench's records too sparse for the sine
            raise InputError(f"{o}: 'omegas' {w!r} rad/s: its last two periods hold "
                             f"{np.count_nonzero(sel)} of the run's records, expected two or more (a slower "
                             "sine, or records more often)")
        out[w] = lag_by_xcorr(run.t[sel], run.x[sel], run.ref[sel], 1.0)
        runs[w] = run
    return runs, out


def hop_sweep(durations=(10, 15, 20, 25, 30, 40, 50, 60, 70, 80), p_gauge: float = 0.724e6):
    """Hop height [m] vs valve time for the spool and rubber presets (E3, E4): ``durations`` [ms] a sequence
    of valve times in [0, 1000 MAX_DURATION], ``p_gauge`` the tank [Pa gauge] in [0, MAX_PRESSURE − P_ATM]
    (:meth:`.hop.HopBench.fire`)."""
    o = "hop_sweep"
    _valve_times(o, durations)
    check_number(o, "p_gauge", p_gauge, lo=0.0, hi=MAX_PRESSURE - P_ATM)  # [Pa gauge]
    return {name: [HopBench(name).fire(d, p_gauge).height for d in durations]
            for name in ("spool", "rubber")}


def print_solver_study() -> None:
    """The A4 solver study as a table (digest §7 item 9: solver choice is the thesis's open question)."""
    from ...validation.pneumatic import solver_study

    print(f"{'method':10s} {'u [V]':>5s} {'tau DP45':>9s} {'tau 1 ms':>9s} {'tau 1/640':>9s} {'R2 min':>6s} "
          f"{'spread':>7s}  within 15 %")
    for r in solver_study():
        print(f"{r['method']:10s} {r['u_V']:5.1f} {r['tau_dp45_s']:9.4f} {r['tau_1ms_s']:9.4f} "
              f"{r['tau_640Hz_s']:9.4f} {r['r2_min']:6.3f} {r['spread']:7.3f}  {r['within_15pct']}")


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--solvers":
        print_solver_study()
        return 0
    out = Path(args[0] if args else ".")
    out.mkdir(parents=True, exist_ok=True)
    run, steps = closed_loop_steps()
    plot_rig_run(run, out / "rig_steps.png", "closed-loop steps")
    runs, lags = sine_tracking()
    plot_rig_run(runs[3.0], out / "rig_sine_3rad.png", "sine 3 rad/s")
    ol = RigBench().run(Reference("step", r0=0.0, r1=7.0, t_start=5.0, open_loop=True), 6.5)
    plot_rig_run(ol, out / "rig_open_loop_7V.png", "open-loop step to 7 V")
    durations = (10, 15, 20, 25, 30, 40, 50, 60, 70, 80)
    hops = hop_sweep(durations)
    plot_hop_sweep(durations, hops, out / "hop_sweep.png")
    json.dump({"steps": steps, "sine_lag_s": lags, "hop_height_m": hops}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
