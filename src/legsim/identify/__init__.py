"""Identification: filtering logs and fitting pneumatic model parameters (Daepp (2011) §4.2, App. A.2).

Python API: :mod:`.filters` (zero-phase Chebyshev-II), :mod:`.friction` (stiction, Coulomb/viscous,
Stribeck-tanh), :mod:`.valve` (tanh input pressure, quartic equivalent area), :mod:`.general`
(least squares of any model parameter against a log), :mod:`.logs` (CSV logs with named columns).
CLI: ``legsim fit ...`` (:mod:`.cli`).
"""

import importlib

_WHERE = {
    "FILTER_SPECS": "filter_specs", "FilterSpec": "filter_specs", "design_lowpass": "filters",
    "zero_phase": "filters",
    "velocity_from_position": "filters", "stiction_from_step": "friction",
    "coulomb_viscous_fit": "friction", "constant_velocity_segments": "friction",
    "fit_stribeck_tanh": "friction", "fit_input_pressure": "valve", "fit_quartic_area": "valve",
    "area_from_cd": "valve", "fit_parameters": "general", "FitResult": "general", "read_log": "logs",
}
__all__ = list(_WHERE)


def __getattr__(name: str):
    """The API is imported on first use (SciPy loads only then: ``legsim --help`` stays fast)."""
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
