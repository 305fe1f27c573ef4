"""The sample clock of an assembled robot and its sensors' filter coefficients."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ..errors import InputError

__all__ = ["sample_clock", "rate", "butterworth1"]


MAX_CLOCK_HZ = 1_000_000
"""The fastest common sample clock [Hz] of a robot's controller and sensors."""
MIN_PERIOD = 1.0 / MAX_CLOCK_HZ
"""The shortest controller period [s]: one tick of the fastest clock."""
MAX_PERIOD = 1000.0
"""The longest controller period [s]: rates are fractions with denominators up to 1000 (:func:`rate`), so
1 mHz is the slowest."""


def rate(owner: str, rate_hz: float) -> Fraction:
    """A sampling rate as a fraction (Hz), so that rates like 16 Hz and 1 kHz find a common clock."""
    frac = Fraction(rate_hz).limit_denominator(1000)
    if abs(float(frac) - rate_hz) > 1e-9 * rate_hz:
        raise InputError(f"{owner}: rate {rate_hz!r} Hz is not a ratio of whole numbers with a "
                         "denominator up to 1000, so it shares no sample clock with the other rates")
    return frac


def sample_clock(control_period: float, sensors: Sequence) -> tuple[Fraction, int]:
    """The engine's sample clock [Hz]: the least common multiple of the controller's and every
    sensor's rate (1 kHz and 16 Hz: 2 kHz); and the controller's period in its ticks."""
    control = rate("Robot control_period", 1.0 / control_period)
    clock = control
    for sen in sensors:
        r = getattr(sen, "rate_hz", 0.0)
        if isinstance(r, int | float) and r > 0.0:
            f = rate(f"{type(sen).__name__} {getattr(sen, 'name', '?')!r}", float(r))
            clock = Fraction(math.lcm(clock.numerator * f.denominator, f.numerator * clock.denominator),
                             clock.denominator * f.denominator)
    if clock > MAX_CLOCK_HZ or clock / control > 10_000:
        raise InputError(f"Robot: the controller's {float(control):g} Hz and the sensors' rates need a "
                         f"common sample clock of {float(clock):g} Hz; choose rates with a smaller common "
                         "multiple (e.g. sensors at the controller's rate divided by a whole number)")
    return clock, int(clock / control)


def butterworth1(cutoff_hz: float, period: float, owner: str) -> tuple[float, float]:
    """First-order Butterworth low-pass by the bilinear transform with pre-warping, at sample
    period ``period`` [s]: ``y_k = b0 (u_k + u_{k-1}) - a1 y_{k-1}``, ``K = tan(pi fc T)``,
    ``b0 = K / (1 + K)``, ``a1 = (K - 1) / (K + 1)`` (unit gain at DC, zero at Nyquist).
    ``(0, 0)`` without a filter."""
    if cutoff_hz == 0.0:
        return 0.0, 0.0
    nyquist = 0.5 / period
    if cutoff_hz >= nyquist:
        raise InputError(f"{owner}: cutoff_hz = {cutoff_hz:g} Hz is not below the Nyquist frequency "
                         f"{nyquist:g} Hz of its sampling")
    k = math.tan(math.pi * cutoff_hz * period)
    return k / (1.0 + k), (k - 1.0) / (k + 1.0)
