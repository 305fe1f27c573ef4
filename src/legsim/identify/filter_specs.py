"""The source's low-pass filter specifications (Daepp (2011) App. A.2), without numpy: ``legsim fit filter
--spec`` lists them while ``legsim --help`` builds its parser (:mod:`.filters` designs and applies them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError, check_number, shown

__all__ = ["FilterSpec", "FILTER_SPECS", "MAX_RATE", "ATTENUATION_RANGE"]

MAX_RATE = 1e6
"""The highest sampling rate [Hz] a filter is designed for (beyond, the edges of the source's filters fall
below the design's numerical resolution); a :class:`FilterSpec`'s edges lie below its Nyquist MAX_RATE/2."""
ATTENUATION_RANGE = (1e-6, 300.0)
"""The pass-band ripple and stop-band attenuation [dB] a :class:`FilterSpec` takes: from 1e-6 dB (below,
the design's 10^(a/10) − 1 loses its digits) to 300 dB (an amplitude of 1e-15, the resolution of a float)."""


@dataclass(frozen=True)
class FilterSpec:
    """Low-pass specification: pass-band edge, stop-band edge [Hz], ripple and attenuation [dB].

    0 < f_pass < f_stop < MAX_RATE/2; a_pass < a_stop, both in :data:`ATTENUATION_RANGE`."""

    f_pass: float
    f_stop: float
    a_pass: float
    a_stop: float

    def __post_init__(self) -> None:
        o = "FilterSpec"
        for name in ("f_pass", "f_stop"):  # [Hz]
            check_number(o, name, getattr(self, name), lo=0.0, hi=MAX_RATE / 2, lo_open=True)
        for name in ("a_pass", "a_stop"):  # [dB]
            check_number(o, name, getattr(self, name), lo=ATTENUATION_RANGE[0], hi=ATTENUATION_RANGE[1])
        for low, high, unit in (("f_pass", "f_stop", "Hz"), ("a_pass", "a_stop", "dB")):
            if not getattr(self, low) < getattr(self, high):
                raise InputError(f"{o}: '{low}' = {shown(getattr(self, low))} {unit} is not below '{high}' = "
                                 f"{shown(getattr(self, high))} {unit}")


FILTER_SPECS = {
    "position": FilterSpec(12.0, 15.0, 1.0, 30.0),
    "velocity": FilterSpec(2.0, 5.0, 1.0, 30.0),
    "pressure": FilterSpec(5.0, 7.0, 1.0, 40.0),
    "force": FilterSpec(20.0, 25.0, 1.0, 30.0),
}
"""The source's four filters (f_pos, f_v, f_press, f_F), App. A.2."""
