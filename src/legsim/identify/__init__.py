"""Identification: filtering logs and fitting pneumatic model parameters (Daepp (2011) §4.2, App. A.2).

Python API: :mod:`.filters` (zero-phase Chebyshev-II), :mod:`.friction` (stiction, Coulomb/viscous,
Stribeck-tanh), :mod:`.valve` (tanh input pressure, quartic equivalent area), :mod:`.general`
(least squares of any model parameter against a log), :mod:`.logs` (CSV logs with named columns).
CLI: ``legsim fit ...`` (:mod:`.cli`).
"""

from .filters import FILTER_SPECS, FilterSpec, design_lowpass, velocity_from_position, zero_phase
from .friction import (
    constant_velocity_segments,
    coulomb_viscous_fit,
    fit_stribeck_tanh,
    stiction_from_step,
)
from .general import FitResult, fit_parameters
from .logs import read_log
from .valve import area_from_cd, fit_input_pressure, fit_quartic_area

__all__ = ["FILTER_SPECS", "FilterSpec", "design_lowpass", "zero_phase", "velocity_from_position",
           "stiction_from_step", "coulomb_viscous_fit", "constant_velocity_segments",
           "fit_stribeck_tanh", "fit_input_pressure", "fit_quartic_area", "area_from_cd",
           "fit_parameters", "FitResult", "read_log"]
