"""Branch-free exp, log, power and tanh that LLVM can vectorise across actuators (private).

numba lowers ``math.exp``/``math.pow``/``math.tanh`` to libm calls, and a loop containing a call is
not vectorised (pip's llvmlite has no SVML). These versions use only +, ×, ÷, √, compare and select,
so a loop over N actuators built from them runs four lanes per AVX2 vector (eight per AVX-512 vector
where LLVM uses them). Each is accurate to ~1e-14 or better on its stated domain; outside it the
result is wrong, so callers clamp their arguments (the domains are those of the flow and valve
laws).
Polynomials use Estrin's scheme: the actuator loop is latency-bound, and Estrin's tree is
about a third as deep as Horner's chain.

- :func:`exp_neg` — eˣ for −40 ≤ x ≤ 0: Taylor series of degree 16 at x/2^h, squared h times.
- :func:`log_unit` — ln x for 2⁻⁷/√2 ≤ x ≤ 1: bring x into [1/√2, √2) by ×16, ×4, ×2 steps,
  then ln m = 2 atanh((m − 1)/(m + 1)), an odd series in s with s² ≤ 0.0295 (11 terms).
- :func:`pow_unit` — x^a = exp(a ln x) for x in log_unit's domain and 0 < a ≤ 1.
- :func:`tanh_lane` — tanh z = sign(z)(1 − e)/(1 + e), e = exp(−2|z|), |z| clamped to 20
  (tanh 20 = 1 − 8.5e-18 rounds to 1).
- :func:`sqrt_lane` — the ``llvm.sqrt`` intrinsic. numba lowers ``math.sqrt`` to a libm call,
  which LLVM turns into the (vectorisable) instruction only where it can prove the argument is
  not negative; in a large loop body it sometimes cannot, and one call stops vectorisation.
"""

from __future__ import annotations

import math

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

LN2 = 0.6931471805599453
SQRT1_2 = 0.7071067811865476
LOG_UNIT_MIN = 0.005524271728019903
"""Smallest argument of :func:`log_unit`: ×16·4·2 reaches 1/√2 from 2⁻⁷/√2."""


@intrinsic
def _llvm_sqrt(typingctx, x):
    """√x of a float64 (NaN for x < 0), as the LLVM instruction."""
    if not isinstance(x, types.Float):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.float64)
        fn = builder.module.declare_intrinsic("llvm.sqrt", [ir.DoubleType()])
        return builder.call(fn, [value])

    return types.float64(x), codegen


def sqrt_lane(x):
    """√x (NaN for x < 0): ``llvm.sqrt`` in compiled code, ``math.sqrt`` in plain Python
    (``NUMBA_DISABLE_JIT``)."""
    return math.sqrt(x) if x >= 0.0 else math.nan


@overload(sqrt_lane, inline="always")
def _sqrt_lane_compiled(x):
    if isinstance(x, types.Float):
        return lambda x: _llvm_sqrt(x)
    return None


@njit(cache=True, inline="always", error_model="numpy")
def _exp_taylor16(t):
    """e^t by its Taylor series to degree 16 (|t| ≤ 0.625: truncation < 3e-17 relative).

    Estrin's scheme: pairs of terms combined with t², t⁴, t⁸, t¹⁶, six multiply-adds deep
    instead of Horner's sixteen (the loop over actuators is latency-bound).
    """
    t2 = t * t
    t4 = t2 * t2
    t8 = t4 * t4
    q0 = (1.0 + t) + (0.5 + t * (1.0 / 6.0)) * t2
    q1 = (1.0 / 24.0 + t * (1.0 / 120.0)) + (1.0 / 720.0 + t * (1.0 / 5040.0)) * t2
    q2 = (1.0 / 40320.0 + t * (1.0 / 362880.0)) + (1.0 / 3628800.0 + t * (1.0 / 39916800.0)) * t2
    q3 = ((1.0 / 479001600.0 + t * (1.0 / 6227020800.0))
          + (1.0 / 87178291200.0 + t * (1.0 / 1307674368000.0)) * t2)
    return (q0 + q1 * t4) + (q2 + q3 * t4 + (1.0 / 20922789888000.0) * t8) * t8


@njit(cache=True, inline="always", error_model="numpy")
def exp_neg(x):
    """eˣ for −40 ≤ x ≤ 0: e^(x/64) by :func:`_exp_taylor16`, then squared six times.

    Squaring multiplies the relative error by 64: 2.5e-14 relative at worst (measured).
    """
    e = _exp_taylor16(x * (1.0 / 64.0))
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    e = e * e
    return e * e


@njit(cache=True, inline="always", error_model="numpy")
def exp_small(x):
    """eˣ for −5 ≤ x ≤ 0: e^(x/8) by :func:`_exp_taylor16`, squared three times (~1e-15)."""
    e = _exp_taylor16(x * 0.125)
    e = e * e
    e = e * e
    return e * e


@njit(cache=True, inline="always", error_model="numpy")
def _scale_below(m, e, bound, factor, log2_factor):
    """(m·factor, e − log2_factor) if m < bound else (m, e): one step of bringing m into
    [1/√2, √2) by a power of two."""
    low = m < bound
    return (m * factor if low else m), (e - log2_factor if low else e)


@njit(cache=True, inline="always", error_model="numpy")
def log_unit(x):
    """ln x for :data:`LOG_UNIT_MIN` ≤ x ≤ 1 (absolute error < 1e-15)."""
    m, e = _scale_below(x, 0.0, SQRT1_2 / 8.0, 16.0, 4.0)   # [2⁻⁷/√2, 1] → [2⁻³/√2, 1]
    m, e = _scale_below(m, e, SQRT1_2 / 2.0, 4.0, 2.0)      # → [2⁻¹/√2, 1]
    m, e = _scale_below(m, e, SQRT1_2, 2.0, 1.0)            # → [1/√2, √2)
    s = (m - 1.0) / (m + 1.0)
    z = s * s                         # 2 atanh s = 2 s Σ z^i/(2i + 1), Estrin's scheme
    z2 = z * z
    z4 = z2 * z2
    q0 = (1.0 + z * (1.0 / 3.0)) + (1.0 / 5.0 + z * (1.0 / 7.0)) * z2
    q1 = (1.0 / 9.0 + z * (1.0 / 11.0)) + (1.0 / 13.0 + z * (1.0 / 15.0)) * z2
    q2 = (1.0 / 17.0 + z * (1.0 / 19.0)) + (1.0 / 21.0) * z2
    q = q0 + (q1 + q2 * z4) * z4
    return e * LN2 + 2.0 * s * q


@njit(cache=True, inline="always", error_model="numpy")
def pow_unit(x, a):
    """x^a for 0.0067 ≤ x ≤ 1 and 0 < a ≤ 1 (then a ln x ≥ −5, exp_small's domain)."""
    return exp_small(a * log_unit(x))


@njit(cache=True, inline="always", error_model="numpy")
def tanh_lane(z):
    """tanh z for any finite z (absolute error ~1e-15)."""
    az = min(abs(z), 20.0)
    e = exp_neg(-2.0 * az)
    t = (1.0 - e) / (1.0 + e)
    return t if z >= 0.0 else -t
