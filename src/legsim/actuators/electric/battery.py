"""Battery state of charge: Panasonic 12 V, 2.2 Ah sealed lead-acid (digest §4.10).

SimSect's model (implemented outside SimSect, offline): the discharge curve of the battery —
discharge time ``f(i)`` [s] under a constant current ``i`` [A] — drives the charge fraction

    dC/dt = -1 / f(i(t)),    C(0) = 1,    i(t) = sum_j |i_a,j(t)|,

where the sum of absolute armature currents approximates the H-bridge/PWM drives. The battery
lifetime is the zero crossing of C. Voltage sag and temperature are ignored (as in the manual).

The data-sheet curve (digest Figure 7b) is lost in the OCR. We fit it with **Peukert's law**,

    f(i) = H (C_n / (i H))^k        [hours; multiplied by 3600 for seconds],

with the rated capacity ``C_n`` = 2.2 Ah at the rated ``H`` = 20 h discharge (0.11 A), and a
Peukert exponent ``k`` = 1.16. The exponent follows from the usual small-VRLA ratings of the
20 h and 10 h capacities (2.2 Ah and ~2.0 Ah): k = ln(20/10) / ln(0.20/0.11) ≈ 1.16, inside the
1.1–1.3 range typical of lead-acid cells. Physically sensible: f is positive and decreasing,
f(C_n/H) = H, and 1/f(i) -> 0 as i -> 0 (no drain without current). At 1C (2.2 A) this gives
f ≈ 0.62 h, close to the ~40 min such batteries deliver at 1C.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, check_number, check_values, shown
from . import _kernels as _k
from .dcmotor import MAX_VALUE

__all__ = ["PeukertBattery", "charge_fraction", "lifetime", "MAX_EXPONENT"]

MAX_EXPONENT = 3.0
"""Largest Peukert exponent accepted (batteries have 1.0–1.6): with capacities, hours and currents within
:data:`~legsim.actuators.electric.dcmotor.MAX_VALUE` the rate ``(i/I_n)^k`` stays finite."""


@dataclass(frozen=True)
class PeukertBattery:
    """Peukert-law discharge curve ``f(i)``.

    Parameters
    ----------
    capacity_ah : rated capacity ``C_n`` [Ah] (2.2)
    rated_hours : discharge time ``H`` [h] at which ``C_n`` is rated (20)
    exponent : Peukert exponent ``k`` [-] (1.16; 1 is an ideal coulomb counter)
    voltage : nominal voltage [V] (12; informative only)

    ``capacity_ah`` and ``rated_hours`` lie in [1/MAX_VALUE, MAX_VALUE], ``exponent`` in [1, MAX_EXPONENT],
    ``voltage`` in (0, MAX_VALUE]; the methods take currents within ±MAX_VALUE [A].
    """

    capacity_ah: float = 2.2
    rated_hours: float = 20.0
    exponent: float = 1.16
    voltage: float = 12.0

    def __post_init__(self) -> None:
        o = "PeukertBattery"
        for name in ("capacity_ah", "rated_hours"):
            check_number(o, name, getattr(self, name), lo=1.0 / MAX_VALUE, hi=MAX_VALUE)
        check_number(o, "exponent", self.exponent, lo=0.0, hi=MAX_EXPONENT, lo_open=True)
        check_number(o, "voltage", self.voltage, lo=0.0, hi=MAX_VALUE, lo_open=True)
        if self.exponent < 1.0:
            raise InputError(f"PeukertBattery: 'exponent' must be >= 1 (Peukert), got {self.exponent!r}")

    @property
    def rated_current(self) -> float:
        """Current [A] of the rated discharge, ``C_n / H``."""
        return self.capacity_ah / self.rated_hours

    def discharge_time(self, current):
        """``f(i)`` [s]: time to empty under the constant current ``|i|`` [A] (inf at 0, and where it
        exceeds the largest float)."""
        i = np.abs(_current("discharge_time", current))
        with np.errstate(divide="ignore", over="ignore"):
            out = self.rated_hours * 3600.0 * (self.rated_current / i) ** self.exponent
        return float(out) if out.ndim == 0 else out

    def rate(self, current):
        """``1/f(i)`` [1/s], the discharge rate of the charge fraction; shape of ``current``."""
        i = _current("rate", current)
        out = np.array([_k.peukert_rate(float(c), self.capacity_ah, self.rated_hours, self.exponent)
                        for c in i.ravel()]).reshape(i.shape)
        return float(out) if out.ndim == 0 else out


def _current(method: str, current) -> np.ndarray:
    """A battery current [A]: a number or an array within ±MAX_VALUE."""
    return check_values(f"PeukertBattery.{method}", "current", current, lo=-MAX_VALUE, hi=MAX_VALUE, unit="A")


def charge_fraction(t, current, battery: PeukertBattery | None = None):
    """Charge fraction ``C(t)`` from ``dC/dt = -1/f(i(t))``, ``C(t0) = 1`` (digest §4.10).

    Integrated by the trapezoidal rule on the samples (exact for piecewise-constant rate).

    Parameters
    ----------
    t : (n,) increasing times [s]
    current : (n,) total battery current ``i(t) = sum_j |i_a,j|`` [A]
    battery : discharge curve (default :class:`PeukertBattery`)

    Returns
    -------
    (n,) charge fraction [-] (may go negative past the lifetime).
    """
    battery = PeukertBattery() if battery is None else battery
    if not isinstance(battery, PeukertBattery):
        raise InputError(f"charge_fraction: 'battery' = {shown(battery)}, expected None or a PeukertBattery")
    t = check_values("charge_fraction", "t", t, lo=-1e12, hi=1e12, unit="s")
    i = check_values("charge_fraction", "current", current, lo=-1e6, hi=1e6, unit="A")
    if t.ndim != 1 or i.shape != t.shape:
        raise InputError(f"charge_fraction: 't' and 'current' must be 1-D of equal length, got shapes "
                         f"{t.shape} and {i.shape}")
    if t.size and np.any(np.diff(t) < 0):
        raise InputError("charge_fraction: 't' must be non-decreasing")
    r = battery.rate(i)
    c = np.ones_like(t)
    if t.size > 1:
        c[1:] = 1.0 - np.cumsum(0.5 * (r[1:] + r[:-1]) * np.diff(t))
    return c


def lifetime(t, charge):
    """Battery lifetime [s]: the first zero crossing of ``C(t)`` (linear interpolation).

    When C stays positive over the record, the lifetime is extrapolated with the mean discharge
    rate of the record, ``t_end + C_end (t_end - t0) / (1 - C_end)`` (a periodic gait drains at a
    constant mean rate).

    Returns
    -------
    (lifetime, extrapolated) : (float, bool); ``inf`` if nothing was drained.
    """
    t = check_values("lifetime", "t", t, lo=-1e12, hi=1e12, unit="s")
    c = check_values("lifetime", "charge", charge, lo=-1e12, hi=1e12)
    if t.ndim != 1 or c.shape != t.shape:
        raise InputError(f"lifetime: 't' and 'charge' must be 1-D, non-empty, equal length; got "
                         f"{t.shape} and {c.shape}")
    below = np.flatnonzero(c <= 0.0)
    if below.size:
        k = int(below[0])
        if k == 0:
            return float(t[0]), False
        t0, t1, c0, c1 = t[k - 1], t[k], c[k - 1], c[k]
        return float(t0 + (t1 - t0) * c0 / (c0 - c1)), False
    drained = 1.0 - c[-1]
    if drained <= 0.0:
        return math.inf, True
    return float(t[-1] + c[-1] * (t[-1] - t[0]) / drained), True
