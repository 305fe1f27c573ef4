"""The hybrid-system engine: modes, guards, resets, exact event location (SimSect digest §1–§2).

Write a model as numba hooks with the fixed signatures of :mod:`legsim.hybrid.signatures`,
describe it with :class:`Model`, and run it with :func:`simulate`. See
``docs/writing-a-model.md`` for a complete worked example (a bouncing ball).
"""

from . import signatures
from .model import Direction, Guard, Model, Placement
from .options import Method, Options
from .params import ParamRange, between, choice, nonnegative, positive
from .result import Result, event_dtype
from .signatures import INACTIVE
from .simulate import simulate

__all__ = ["signatures", "Direction", "Guard", "Model", "Placement", "Method", "Options", "Result",
           "event_dtype", "INACTIVE", "simulate", "ParamRange", "between", "choice", "nonnegative",
           "positive"]
