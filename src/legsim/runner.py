"""Run a scenario into a run directory (``legsim run`` and ``legsim demo``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import SimulationError
from .hybrid import Result, simulate
from .io.results import RunWriter
from .scenario import Scenario, load_scenario

__all__ = ["run_scenario"]

SUMMARIES: dict[str, str] = {"hexapod": "legsim.robots.rhex.postprocess:summary"}
"""Model name -> "module:function(result) -> dict" of headline numbers printed after a run."""


def _summary(scenario: Scenario, result: Result) -> dict:
    target = None if scenario.robot is not None else SUMMARIES.get(scenario.model_name)
    if target is None:
        return {}
    import importlib

    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)(result)


def run_scenario(scenario: str | Path | Scenario, out_dir: str | Path, progress: bool | None = None,
                 plot: bool = False, echo: Callable[[str], None] = print) -> Result:
    """Validate and run a scenario, writing records as it goes; optionally plot.

    Raises :class:`SimulationError` (records kept on disk, status in run.json) when the run fails.
    """
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    writer = RunWriter(out_dir, sc.model, {"scenario": sc.resolved()})
    try:
        if sc.robot is not None:  # a robot from a hardware file, with its Python controller
            result = sc.robot.simulate(sc.t_final, sc.robot_controller, options=sc.options, sinks=[writer],
                                       progress=progress, **sc.robot_start)
        else:
            result = simulate(sc.model, sc.t_final, x0=sc.initial, params=sc.params, options=sc.options,
                              mode0=sc.mode, t0=sc.t0, sinks=[writer], progress=progress)
    except SimulationError as exc:
        res = exc.result
        writer.finish(res.status if res is not None else "failed", str(exc),
                      res.stats if res is not None else {})
        raise
    summary = _summary(sc, result)
    writer.meta["summary"] = summary
    writer.finish(result.status, result.message, result.stats)
    st = result.stats
    echo(f"{sc.model_name}: {result.n} records in {out_dir} — {st['steps']} steps, "
         f"{st['events']} events, {st['wall_time_s']:.2f} s wall with output; integration "
         f"{st['real_time_factor']:.0f}x real time")
    for key, value in summary.items():
        echo(f"  {key}: {value:.6g}" if isinstance(value, float) else f"  {key}: {value}")
    if plot:
        from .viz import plot_run

        for f in plot_run(out_dir):
            echo(f"  figure: {f}")
    return result
