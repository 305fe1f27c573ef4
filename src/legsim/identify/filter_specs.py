"""The source's low-pass filter specifications (Daepp (2011) App. A.2), without numpy: ``legsim fit filter
--spec`` lists them while ``legsim --help`` builds its parser (:mod:`.filters` designs and applies them)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FilterSpec", "FILTER_SPECS"]


@dataclass(frozen=True)
class FilterSpec:
    """Low-pass specification: pass-band edge, stop-band edge [Hz], ripple and attenuation [dB]."""

    f_pass: float
    f_stop: float
    a_pass: float
    a_stop: float


FILTER_SPECS = {
    "position": FilterSpec(12.0, 15.0, 1.0, 30.0),
    "velocity": FilterSpec(2.0, 5.0, 1.0, 30.0),
    "pressure": FilterSpec(5.0, 7.0, 1.0, 40.0),
    "force": FilterSpec(20.0, 25.0, 1.0, 30.0),
}
"""The source's four filters (f_pos, f_v, f_press, f_F), App. A.2."""
