"""Zero-phase Chebyshev-II low-pass filtering of logs (Daepp (2011) App. A.2; digest §1.7).

The source designs minimum-order Chebyshev type II IIR low-pass filters (direct-form II SOS,
Fs = 1000 Hz) and applies them forwards and backwards (``filtfilt``): zero phase, squared
magnitude. Here: ``scipy.signal.cheb2ord`` → ``cheby2(output="sos")`` → ``sosfiltfilt``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, as_floats, check_flag, check_number
from .filter_specs import FILTER_SPECS, MAX_RATE, FilterSpec

__all__ = ["FilterSpec", "FILTER_SPECS", "MAX_RATE", "MAX_ORDER", "design_lowpass", "zero_phase",
           "velocity_from_position"]

MAX_ORDER = 100
"""The highest order of a designed filter (the source's four need 5 to 10): a narrower transition band
(f_stop within a few parts in 1e5 of f_pass) needs thousands, whose zeros' products overflow the design's
floats, and edges a few ulps apart no finite order at all."""


def _spec(owner: str, spec) -> FilterSpec:
    if isinstance(spec, FilterSpec):
        return spec
    if isinstance(spec, str) and spec in FILTER_SPECS:
        return FILTER_SPECS[spec]
    raise InputError(f"{owner}: 'spec' = {spec!r}, expected a FilterSpec or one of {', '.join(FILTER_SPECS)}")


def _rate(owner: str, fs) -> float:
    return check_number(owner, "fs", fs, lo=0.0, lo_open=True, hi=MAX_RATE)  # [Hz]


def _signal(owner: str, x) -> np.ndarray:
    arr = as_floats(x)
    if arr.ndim not in (1, 2) or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise InputError(f"{owner}: 'x' has shape {arr.shape}: expected a finite signal (n,) or (n, m)")
    return arr


def _design(owner: str, spec, fs, rate: str = "'fs'") -> np.ndarray:
    s = _spec(owner, spec)
    fs = _rate(owner, fs)
    if not (0 < s.f_pass < s.f_stop < fs / 2):
        raise InputError(f"{owner}: filter edges {s.f_pass} / {s.f_stop} Hz of 'spec' at {rate}: expected "
                         f"0 < f_pass < f_stop < fs/2 = {fs / 2:g} Hz")
    from scipy import signal

    with np.errstate(over="raise", divide="raise", invalid="raise"):  # scipy's float trouble: below
        try:
            order, wn = signal.cheb2ord(s.f_pass, s.f_stop, s.a_pass, s.a_stop, fs=fs)
        except (FloatingPointError, OverflowError):  # edges so close their pre-warped ratio is 1
            order = math.inf
        if order > MAX_ORDER:
            raise InputError(f"{owner}: filter edges {s.f_pass} / {s.f_stop} Hz of 'spec' at {rate} need a "
                             f"Chebyshev-II filter of order {order:g}, more than MAX_ORDER = {MAX_ORDER}: "
                             "widen the transition band (f_pass further below f_stop)")
        try:
            return signal.cheby2(order, s.a_stop, wn, btype="low", output="sos", fs=fs)
        except FloatingPointError:  # a high order with its stop edge near fs/2: the zeros' product overflows
            raise InputError(f"{owner}: the order-{order} filter of 'spec' (edges {s.f_pass} / {s.f_stop} "
                             f"Hz) at {rate} overflows in its design: its stop edge is too close to fs/2 = "
                             f"{fs / 2:g} Hz for its order; lower f_stop or widen the transition "
                             "band") from None


def design_lowpass(spec, fs: float = 1000.0) -> np.ndarray:
    """Minimum-order Chebyshev-II low-pass as second-order sections (n_sections, 6).

    ``spec`` a :class:`FilterSpec` or the name of one of :data:`FILTER_SPECS`; ``fs`` the sampling rate
    [Hz] in (0, MAX_RATE], above twice the spec's f_stop. A spec needing an order above :data:`MAX_ORDER`
    (a transition band too narrow) is an :class:`InputError`."""
    return _design("design_lowpass", spec, fs, f"'fs' = {fs!r} Hz")


def _filtfilt(owner: str, x, spec, fs, rate: str = "'fs'") -> np.ndarray:
    arr = _signal(owner, x)
    sos = _design(owner, spec, fs, rate)
    from scipy import signal

    pad = 3 * (2 * len(sos) + 1)  # sosfiltfilt's default padding (at most)
    if arr.shape[0] <= pad:
        raise InputError(f"{owner}: 'x' has {arr.shape[0]} samples, too few for this filter: expected more "
                         f"than {pad}")
    return signal.sosfiltfilt(sos, arr, axis=0)


def zero_phase(x, spec, fs: float = 1000.0) -> np.ndarray:
    """Filter ``x`` (n,) or (n, m) along axis 0 forwards and backwards (zero phase)."""
    return _filtfilt("zero_phase", x, spec, fs, f"'fs' = {fs!r} Hz")


def velocity_from_position(x, dt: float = 1e-3, filter_position: bool = True,
                           filter_velocity: bool = True) -> np.ndarray:
    """Velocity by ``gradient(pos_filt, dt)`` then the velocity filter (App. A.2)."""
    o = "velocity_from_position"
    dt = check_number(o, "dt", dt, lo=1.0 / MAX_RATE, hi=1.0)  # [s]
    filter_position = check_flag(o, "filter_position", filter_position)
    filter_velocity = check_flag(o, "filter_velocity", filter_velocity)
    rate = f"'dt' = {dt!r} s (fs = {1.0 / dt:g} Hz)"
    pos = _filtfilt(o, x, "position", 1.0 / dt, rate) if filter_position else _signal(o, x)
    if pos.shape[0] < 2:
        raise InputError(f"{o}: 'x' has {pos.shape[0]} sample: expected at least 2")
    vel = np.gradient(pos, dt, axis=0)
    return _filtfilt(o, vel, "velocity", 1.0 / dt, rate) if filter_velocity else vel
