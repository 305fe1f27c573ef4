"""Zero-phase Chebyshev-II low-pass filtering of logs (Daepp (2011) App. A.2; digest §1.7).

The source designs minimum-order Chebyshev type II IIR low-pass filters (direct-form II SOS,
Fs = 1000 Hz) and applies them forwards and backwards (``filtfilt``): zero phase, squared
magnitude. Here: ``scipy.signal.cheb2ord`` → ``cheby2(output="sos")`` → ``sosfiltfilt``.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .filter_specs import FILTER_SPECS, FilterSpec

__all__ = ["FilterSpec", "FILTER_SPECS", "design_lowpass", "zero_phase", "velocity_from_position"]


def _spec(spec) -> FilterSpec:
    if isinstance(spec, FilterSpec):
        return spec
    if spec in FILTER_SPECS:
        return FILTER_SPECS[spec]
    raise InputError(f"filter {spec!r}: expected a FilterSpec or one of {', '.join(FILTER_SPECS)}")


def design_lowpass(spec, fs: float = 1000.0) -> np.ndarray:
    """Minimum-order Chebyshev-II low-pass as second-order sections (n_sections, 6)."""
    s = _spec(spec)
    if not (0 < s.f_pass < s.f_stop < fs / 2):
        raise InputError(f"filter edges {s.f_pass} / {s.f_stop} Hz: expected 0 < f_pass < f_stop "
                         f"< fs/2 = {fs / 2}")
    from scipy import signal

    order, wn = signal.cheb2ord(s.f_pass, s.f_stop, s.a_pass, s.a_stop, fs=fs)
    return signal.cheby2(order, s.a_stop, wn, btype="low", output="sos", fs=fs)


def zero_phase(x, spec, fs: float = 1000.0) -> np.ndarray:
    """Filter ``x`` (n,) or (n, m) along axis 0 forwards and backwards (zero phase)."""
    arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise InputError("zero_phase: the signal contains NaN or inf")
    sos = design_lowpass(spec, fs)
    from scipy import signal

    return signal.sosfiltfilt(sos, arr, axis=0)


def velocity_from_position(x, dt: float = 1e-3, filter_position: bool = True,
                           filter_velocity: bool = True) -> np.ndarray:
    """Velocity by ``gradient(pos_filt, dt)`` then the velocity filter (App. A.2)."""
    fs = 1.0 / dt
    pos = zero_phase(x, "position", fs) if filter_position else np.asarray(x, dtype=float)
    vel = np.gradient(pos, dt, axis=0)
    return zero_phase(vel, "velocity", fs) if filter_velocity else vel
