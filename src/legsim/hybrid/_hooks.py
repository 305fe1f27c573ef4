"""The six hooks of a model bundled once into a numba structure (``StructRef``).

Passing six first-class functions to a compiled function costs ~70 µs each per call (numba
resolves each one's address in Python every time). Bundled once per model into a ``Hooks``
structure, they cost under a microsecond per engine call, calls inside the loop use the direct
(jit) entry points, and the engine's signature stays fixed, so it is compiled once and cached.
"""

from __future__ import annotations

import warnings

from numba import njit
from numba import types as T
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.experimental import structref

from .signatures import CHECK_T, FLOW_T, GUARD_T, OUTPUT_T, RESET_T, SAMPLE_T

warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

__all__ = ["HOOKS_T", "make_hooks"]


@structref.register
class HooksType(T.StructRef):
    """Numba type of a model's hook bundle."""

    def preprocess_fields(self, fields):
        return tuple((name, T.unliteral(typ)) for name, typ in fields)


HOOKS_T = HooksType(fields=(("vector_field", FLOW_T), ("guards", GUARD_T), ("reset", RESET_T),
                            ("outputs", OUTPUT_T), ("sample", SAMPLE_T), ("check", CHECK_T)))


class Hooks(structref.StructRefProxy):
    """Python handle of a hook bundle (create it with :func:`make_hooks`)."""


structref.define_boxing(HooksType, Hooks)


@njit(HOOKS_T(FLOW_T, GUARD_T, RESET_T, OUTPUT_T, SAMPLE_T, CHECK_T), cache=True)
def make_hooks(vector_field, guards, reset, outputs, sample, check):
    """Bundle the six hooks of a model (called once per model)."""
    h = structref.new(HOOKS_T)
    h.vector_field = vector_field
    h.guards = guards
    h.reset = reset
    h.outputs = outputs
    h.sample = sample
    h.check = check
    return h
