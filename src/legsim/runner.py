"""Run a scenario into a run directory (``legsim run`` and ``legsim demo``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import InputError, check_echo, check_flag
from .hybrid import Result, simulate
from .hybrid.simulate import Monitor, check_watchers
from .io.results import RunData, RunWriter, load_run
from .scenario import Scenario, load_scenario

__all__ = ["run_scenario", "simulate_scenario", "summarize"]

SUMMARIES: dict[str, str] = {"hexapod": "legsim.robots.rhex.postprocess:summary",
                              "crr_leg": "legsim.robots.crr_leg.leg:summary"}
"""Model name -> "module:function(result) -> dict" of headline numbers printed after a run."""


def summarize(scenario: Scenario, result: Result | RunData) -> dict:
    """The model's headline numbers of a run (:data:`SUMMARIES`; empty for models without one): ``scenario``
    the validated scenario, ``result`` its run (a :class:`~legsim.hybrid.Result`, or a run directory read
    back by :func:`~legsim.io.load_run`)."""
    _check_scenario("summarize", "scenario", scenario)
    if not isinstance(result, (Result, RunData)):
        raise InputError(f"summarize: 'result' is a {type(result).__name__}, expected the run's "
                         "legsim.hybrid.Result (or its run directory read back by load_run)")
    target = None if scenario.robot is not None else SUMMARIES.get(scenario.model_name)
    if target is None:
        return {}
    import importlib

    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)(result)


def simulate_scenario(sc: Scenario, sinks=(), progress: bool | None = None,
                      keep_records: bool = True, monitor: Monitor | None = None) -> Result:
    """Run a validated scenario (a registered model, or a robot with its controller) to its
    t_final; ``sinks`` (a list of functions) receive the records, ``monitor`` (a function, or None) watches
    them (:func:`legsim.hybrid.simulate`)."""
    _check_scenario("simulate_scenario", "sc", sc)
    check_watchers("simulate_scenario", sinks, monitor)
    if sc.robot is not None:  # a robot from a hardware file, with its Python controller
        return sc.robot.simulate(sc.t_final, sc.robot_controller, options=sc.options, sinks=list(sinks),
                                 progress=progress, keep_records=keep_records, monitor=monitor,
                                 **sc.robot_start)
    return simulate(sc.model, sc.t_final, x0=sc.initial, params=sc.params, options=sc.options,
                    mode0=sc.mode, t0=sc.t0, sinks=list(sinks), progress=progress, keep_records=keep_records,
                    monitor=monitor)


def run_scenario(scenario: str | Path | Scenario, out_dir: str | Path, progress: bool | None = None,
                 plot: bool = False, echo: Callable[[str], None] = print,
                 keep_records: bool = True, monitor: Monitor | None = None) -> Result:
    """Validate and run a scenario, writing records as it goes; optionally plot. ``monitor``
    watches the records as the run goes (a live viewer, :class:`legsim.viz.viewer.LiveView`).

    ``keep_records=False`` streams (the ``legsim`` command does): the records go only to the run
    directory, memory stays bounded however long the run, and the returned result holds only the
    last record; the model's summary then reads the columns it needs back from the directory.

    ``out_dir`` may hold an earlier run: its records, events and figures are replaced (``echo``
    says so). However the run ends, run.json gets a final status: "done", the engine's reason
    for stopping ("chattering", "numerical_error", ...), "interrupted" or "failed".

    Raises :class:`SimulationError` (:class:`Interrupted` for Ctrl-C; records kept on disk) when
    the run stops early, :class:`InputError` (naming the scenario file) for bad input found only
    when the run starts, such as an initial state below the terrain.
    """
    from ._progress import check_progress

    # every argument before the run directory is touched: an earlier run there stays as it was
    check_progress(progress, "run_scenario")
    plot = check_flag("run_scenario", "plot", plot)
    check_echo("run_scenario", echo)
    keep_records = check_flag("run_scenario", "keep_records", keep_records)
    check_watchers("run_scenario", (), monitor)
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    # run.json gets a final status however the block ends (RunWriter as a context manager)
    with RunWriter(out_dir, sc.model, {"scenario": sc.resolved()}) as writer:
        if writer.replaced:
            echo(f"{out_dir}: replacing the earlier run in this directory")
        try:
            result = simulate_scenario(sc, [writer], progress, keep_records, monitor)
        except InputError as exc:  # found when the run starts (initial state, controller arguments)
            raise InputError(f"{sc.source}: {exc}") from None
        writer.flush()  # every record on disk before the summary reads them back
        summary = summarize(sc, result if keep_records else load_run(out_dir))
        writer.meta["summary"] = summary
    st = result.stats
    echo(f"{sc.model_name}: {writer.rows} records in {out_dir} — {st['steps']} steps, "
         f"{st['events']} events; integration {st['kernel_time_s']:.3g} s ({st['real_time_factor']:.0f}x "
         f"real time), writing {writer.write_time_s:.3g} s, run {st['wall_time_s']:.3g} s wall")
    for key, value in summary.items():
        echo(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")
    if plot:
        from .viz import plot_run

        for f in plot_run(out_dir):
            echo(f"  figure: {f}")
    return result


def _check_scenario(owner: str, name: str, sc: object) -> None:
    """An :class:`InputError` naming ``owner`` and ``name`` unless ``sc`` is a validated :class:`Scenario`."""
    if not isinstance(sc, Scenario):
        raise InputError(f"{owner}: '{name}' is a {type(sc).__name__}, expected a legsim.scenario.Scenario "
                         "(load_scenario(path) or parse_scenario(data))")
