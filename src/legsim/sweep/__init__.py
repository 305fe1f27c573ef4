"""Parameter sweeps: many variations of one scenario, on all local cores or on a Ray cluster, into one table.

::

    from legsim.sweep import Sweep, run_sweep

    sweep = Sweep("slip_run.toml", grid={"params.k": [800, 1000, 1200], "initial.xdot": [1.0, 1.5]})
    res = run_sweep(sweep, "k-sweep", outputs=["x@final", "y@min"])      # all cores
    res.table.column("x@final")         # a pyarrow Table: run_id, params.k, initial.xdot, seed, status, ...
    df = res.table.to_pandas()          # a DataFrame, where pandas is installed (not a dependency)

    Sweep("hopper.toml", ranges={"controller_params.amplitude": (0.1, 0.4),
                                 "controller_params.kp": (20, 200, "log")}, samples=64, seed=1)

The same from the command line: ``legsim sweep slip_run.toml --out k-sweep --grid params.k=800,1000,1200
--output x@final``. A variation is a dict of dotted TOML keys (``params.k`` is ``k`` in ``[params]``)
applied to the scenario and validated like a scenario file (:mod:`legsim.sweep.spec`); each run is a
row of ``OUT/sweep.parquet`` (:mod:`legsim.sweep.table`) with its variation's values, seed, status,
message, chosen outputs (:mod:`legsim.sweep.outputs`), the model's summary, integrator statistics
and wall time. Runs are independent of the worker count and order (tested bit for bit); an
interrupted sweep resumes where it stopped when run again into the same directory. Backends:
:mod:`legsim.sweep.backends`; batching and progress: :mod:`legsim.sweep.schedule`; the order of
work (validate all, compile once, run): :mod:`legsim.sweep.run`. An optimiser whose every evaluation
is a batch of calls of one function keeps its workers up between batches: :mod:`legsim.sweep.pool`.

Scripts that sweep on the local backend must guard their entry point with
``if __name__ == "__main__":`` (worker processes import the main module, as with any
``multiprocessing`` program). This package imports nothing heavy until a function is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pool import FunctionPool
    from .run import SweepResult, resume_sweep, run_sweep
    from .spec import Sweep, apply_variation
    from .table import load_sweep

__all__ = ["Sweep", "run_sweep", "resume_sweep", "load_sweep", "SweepResult", "apply_variation",
           "FunctionPool"]

_WHERE = {"Sweep": "spec", "apply_variation": "spec", "run_sweep": "run", "resume_sweep": "run",
          "SweepResult": "run", "load_sweep": "table", "FunctionPool": "pool"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
