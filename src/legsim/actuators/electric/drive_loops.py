"""ROTTO's linear actuator and the loops around its current loop (Konyev 2011 §4.1.1–4.1.2, §4.2.2–
4.2.3; spec §4.3, §7.2, A17).

Linear actuator (Fig. 4.6): PMSM -> belt (ratio N = 2) -> ball screw (lead h): nut travel per rotor
radian ``KV = h / (2 pi N)`` [m/rad], force per rotor torque ``1/KV``. The source gives the ratings
only: **nominal 128 N at 0.64 m/s, maximum 400 N and 0.72 m/s, not together**. :func:`rotto_actuator`
chooses a motor (placeholders: 24 V DC link, 4 pole pairs, L = 0.1 mH, 8 mm lead; losses neglected,
efficiency 1) so that these four numbers are what its voltage and current limits give, read as:

* 0.72 m/s: the no-load speed, where the back-EMF fills the voltage circle ``v_dc/sqrt(3)``:
  ``p psi = (v_dc/sqrt 3) / omega_max``;
* 400 N: the current limit, ``i_max = 400 KV / (3/2 p psi)``;
* 128 N at 0.64 m/s: the rated point on the voltage-limited torque-speed curve, i.e. the steady
  ``(R i + p psi omega)^2 + (p omega L i)^2 = (v_dc/sqrt 3)^2`` with ``i = 128 KV / (3/2 p psi)`` at the
  speed of 0.64 m/s, solved for R. (At 400 N the voltage allows only a lower speed: not together.)

Set-point shaper (Fig. 4.17, "second order position intensity controller"): the figure is lost; the
term is the Russian drive-engineering "задатчик интенсивности второго порядка", a reference
generator that limits the first and second derivatives of a step (an S-curve: trapezoidal velocity).
So it is read as a **rate- and acceleration-limited** filter (:func:`shape_step`,
:func:`legsim.actuators.electric._pmsm_kernels.shaper_step`), not a linear critically damped one.

Force loop of the series-elastic actuator (Fig. 4.19, §4.2.3): a PD over the current loop; plant
constants CF (spring [N/m]), KV (rotary -> translational, [m/rad]) and CM (current -> torque, [N m/A]).
With the output locked, spring force ``F = CF x`` (x the nut's travel), nut dynamics
``m x'' = g i - F - c x'`` with ``m = J / KV^2``, ``g = CM / KV`` [N/A], ``c = b / KV^2``. The controller
``i = F*/g + KP (F* - F) - KD dF/dt`` (static feedforward, so no steady-state error; D on the measured
force, so no closed-loop zero) gives ``F'' + (c + CF g KD)/m F' + CF (1 + g KP)/m F = CF (1 + g KP)/m F*``.
Design rule (pole placement, :func:`sea_force_gains`): choose ``omega_n`` and ``zeta`` of this
second-order loop from the two specifications of the source, a −3 dB bandwidth of 50 Hz and a
"first sequence" of 15 ms, read as the time the step response first reaches its set-point (100 % rise
time, German "Anregelzeit"; :func:`second_order_from_specs`: zeta = 0.905, omega_n = 424.6 rad/s);
then ``KP = (omega_n^2 m / CF - 1) / g``, ``KD = (2 zeta omega_n m - c) / (CF g)``. The back-EMF and the
output's motion (the dotted paths of Fig. 4.19) are left out of the design, as in the source; the
current loop (1 kHz) and the loop's sampling are left out too, and the measured bandwidth shows
what they cost.

Position loop with force limit (Fig. 4.20): ``F* = clip(KP_x (x* - x) - KD_x x', -FG, FG)`` over the
force loop. Hitting a rigid obstacle at speed v, the force's excursion above FG is bounded by the
force loop's response to the initial rate ``dF/dt = CF v`` plus its overshoot to the remaining step:
:func:`obstacle_force_bound`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, as_float, check_number, check_values, check_whole, shown
from . import _pmsm_kernels as _k
from .dcmotor import MAX_VALUE
from .pmsm import PMSM, DriveLoad

__all__ = ["ROTTO_RATINGS", "RottoActuator", "rotto_actuator", "shape_step", "second_order_from_specs",
           "second_order_bandwidth", "second_order_first_reach", "sea_force_gains", "SeaGains",
           "obstacle_force_bound", "sea_force_response", "bandwidth_of", "MAX_ZETA", "MAX_GAIN"]

ROTTO_RATINGS = {"nominal_force": 128.0, "nominal_speed": 0.64, "max_force": 400.0, "max_speed": 0.72}
"""§4.1.1: [N], [m/s]."""

MAX_ZETA = 10.0
"""Largest damping ratio :func:`second_order_bandwidth` takes: its closed form loses digits to cancellation
for an overdamped loop (relative error 3e-12 at zeta = 10, 2e-8 at 100, 1e-4 at 1000, and it gives 0 from
about 1e4 on)."""

MAX_GAIN = 1e100
"""Largest magnitude of a force-loop gain :func:`sea_force_response` takes: :func:`sea_force_gains` gives
at most about 1e68 for plant constants within [1/MAX_VALUE, MAX_VALUE] (see
:data:`~legsim.actuators.electric.dcmotor.MAX_VALUE`) and bandwidths up to 1e9 Hz, and with gains below
1e100 the response's products stay finite."""


def _positive(owner: str, name: str, value) -> float:
    """A physical constant that must be positive (a spring rate, lead, inertia, frequency, voltage...), in
    [1/MAX_VALUE, MAX_VALUE] (SI): products and quotients of a few of them stay finite."""
    return check_number(owner, name, value, lo=1.0 / MAX_VALUE, hi=MAX_VALUE)


def _plant(owner: str, cf, kv, cm, inertia, viscous) -> tuple[float, float, float, float, float]:
    """The series-elastic force loop's plant constants (module docstring): CF [N/m], KV [m/rad], CM [N m/A]
    and J [kg m^2] positive, b [N m s/rad] in [0, MAX_VALUE]."""
    return (_positive(owner, "cf", cf), _positive(owner, "kv", kv), _positive(owner, "cm", cm),
            _positive(owner, "inertia", inertia),
            check_number(owner, "viscous", viscous, lo=0.0, hi=MAX_VALUE))


def _underdamped(owner: str, zeta) -> float:
    """A damping ratio in [0, 1) (the closed forms divide by sqrt(1 - zeta^2))."""
    z = as_float(zeta)  # NaN (refused) when not a number
    if not 0.0 <= z < 1.0:
        raise InputError(f"{owner}: 'zeta' = {shown(zeta)}, expected a finite number in [0, 1) (underdamped)")
    return z


@dataclass(frozen=True)
class RottoActuator:
    """A linear actuator: ``motor`` (a :class:`~legsim.actuators.electric.PMSM`) through ``kv`` [m/rad]
    (belt ratio ``belt``, screw ``lead`` [m]), current limit ``i_max`` [A], incremental encoder
    ``counts_per_turn``, limit switches at ``stroke_min`` < ``stroke_max`` [m] of nut travel. ``lead``,
    ``belt`` and ``i_max`` lie in [1/MAX_VALUE, MAX_VALUE], the strokes within ±MAX_VALUE,
    ``counts_per_turn`` in [0, 2**31] (0: exact, as :class:`~legsim.actuators.electric.pmsm.DriveLoad`)."""

    motor: PMSM
    lead: float
    belt: float
    i_max: float
    counts_per_turn: int = 2000
    stroke_min: float = 0.0
    stroke_max: float = 0.1

    def __post_init__(self):
        o = "RottoActuator"
        if not isinstance(self.motor, PMSM):
            raise InputError(f"{o}: 'motor' = {shown(self.motor)}, expected a legsim.actuators.electric.PMSM")
        for name in ("lead", "belt", "i_max"):
            object.__setattr__(self, name, _positive(o, name, getattr(self, name)))
        object.__setattr__(self, "counts_per_turn", check_whole(o, "counts_per_turn", self.counts_per_turn,
                                                                hi=2**31))
        lo, hi = (check_number(o, name, getattr(self, name), lo=-MAX_VALUE, hi=MAX_VALUE)
                  for name in ("stroke_min", "stroke_max"))
        if not lo < hi:
            raise InputError(f"{o}: 'stroke_min' = {lo!r} m is not below 'stroke_max' = {hi!r} m")
        object.__setattr__(self, "stroke_min", lo)
        object.__setattr__(self, "stroke_max", hi)

    @property
    def kv(self) -> float:
        """Nut travel per rotor radian [m/rad] (KV of Fig. 4.19)."""
        return self.lead / (2.0 * math.pi * self.belt)

    @property
    def force_constant(self) -> float:
        """Nut force per ampere of i_Q [N/A]: ``3/2 p psi / KV``."""
        return self.motor.torque_constant / self.kv

    def limit_switches(self, x) -> tuple[np.ndarray, np.ndarray]:
        """The two limit switches' states (closed = True) at nut positions ``x`` [m]."""
        xx = np.asarray(x, dtype=float)
        return xx <= self.stroke_min, xx >= self.stroke_max

    def load(self, **kwargs) -> DriveLoad:
        """The :class:`DriveLoad` of this actuator (``kv``, encoder), with other fields from ``kwargs``."""
        return DriveLoad(**{"kv": self.kv, "counts_per_turn": self.counts_per_turn, **kwargs})

    def max_force(self, speed):
        """Largest steady nut force [N] at nut speed ``speed`` [m/s] (>= 0) from the voltage circle and
        the current limit; negative above the no-load speed."""
        return self.force_constant * np.asarray(self.motor.max_current_q(np.asarray(speed) / self.kv,
                                                                         self.i_max))


def rotto_actuator(*, v_dc: float = 24.0, pole_pairs: int = 4, inductance: float = 1e-4, lead: float = 0.008,
                   belt: float = 2.0, rotor_inertia: float = 3e-6, ratings=None) -> RottoActuator:
    """ROTTO's linear actuator with a motor chosen so that the ratings (:data:`ROTTO_RATINGS`) are its
    voltage and current limits (module docstring; every number except the belt ratio is a
    placeholder: the source gives no motor data). ``v_dc`` [V], ``inductance`` [H], ``lead`` [m], ``belt``
    [-] and the ratings (the keys of :data:`ROTTO_RATINGS`, [N], [m/s]) lie in [1/MAX_VALUE, MAX_VALUE],
    ``rotor_inertia`` [kg m^2] in [0, MAX_VALUE], ``pole_pairs`` in [1, 1000]."""
    o = "rotto_actuator"
    v_dc, inductance, lead, belt = (_positive(o, name, value) for name, value in (
        ("v_dc", v_dc), ("inductance", inductance), ("lead", lead), ("belt", belt)))
    pole_pairs = check_whole(o, "pole_pairs", pole_pairs, lo=1, hi=1000)
    rotor_inertia = check_number(o, "rotor_inertia", rotor_inertia, lo=0.0, hi=MAX_VALUE)
    if ratings is None:
        ratings = ROTTO_RATINGS
    if not (isinstance(ratings, Mapping) and set(ratings) == set(ROTTO_RATINGS)):
        raise InputError(f"{o}: 'ratings' = {shown(ratings)}, expected None or a mapping with the keys "
                         f"{', '.join(ROTTO_RATINGS)}")
    r = {key: _positive(o, f'ratings["{key}"]', ratings[key]) for key in ROTTO_RATINGS}
    kv = lead / (2.0 * math.pi * belt)
    ulim = v_dc / math.sqrt(3.0)
    w_max = r["max_speed"] / kv
    ke = ulim / w_max                      # p psi [V s/rad]
    kt = 1.5 * ke                          # [N m/A]
    i_max = r["max_force"] * kv / kt
    i_nom = r["nominal_force"] * kv / kt
    w_nom = r["nominal_speed"] / kv
    we = pole_pairs * w_nom
    drop = we * inductance * i_nom         # the inductive voltage at the rated point [V]
    res = (math.sqrt(ulim**2 - drop**2) - ke * w_nom) / i_nom if drop < ulim else -math.inf
    if not res > 0.0:
        raise InputError(f"{o}: 'v_dc' = {v_dc:g} V, 'pole_pairs' = {pole_pairs}, 'inductance' = "
                         f"{inductance:g} H, 'lead' = {lead:g} m, 'belt' = {belt:g} and 'ratings' = {r} "
                         f"leave no room for a winding resistance (R = {res:.3g} ohm: the back-EMF and the "
                         "inductive drop at the rated point take the whole voltage v_dc/sqrt(3))")
    motor = PMSM(resistance=res, inductance_d=inductance, flux_linkage=ke / pole_pairs, pole_pairs=pole_pairs,
                 rotor_inertia=rotor_inertia, v_dc=v_dc)
    return RottoActuator(motor, lead, belt, i_max)


def shape_step(target: float, v_max: float, a_max: float, period: float, n: int, y0: float = 0.0):
    """The set-point shaper's response (n,) positions and (n,) speeds to a step from ``y0`` to
    ``target``, sampled every ``period`` [s] (Fig. 4.17 read as rate/acceleration limited)."""
    o = "shape_step"
    target, y0 = (check_number(o, name, value, lo=-1e9, hi=1e9) for name, value in (("target", target),
                                                                                   ("y0", y0)))
    v_max, a_max, period = (check_number(o, name, value, lo=0.0, hi=1e9, lo_open=True)
                            for name, value in (("v_max", v_max), ("a_max", a_max), ("period", period)))
    n = check_whole(o, "n", n, 0, 10**7)  # samples
    y, v = y0, 0.0
    ys, vs = np.empty(n), np.empty(n)
    for k in range(n):
        y, v = _k.shaper_step(y, v, target, v_max, a_max, period)
        ys[k], vs[k] = y, v
    return ys, vs


def second_order_bandwidth(zeta: float) -> float:
    """−3 dB bandwidth of ``w^2/(s^2 + 2 zeta w s + w^2)`` in units of w (0 <= zeta <= :data:`MAX_ZETA`)."""
    zeta = check_number("second_order_bandwidth", "zeta", zeta, lo=0.0, hi=MAX_ZETA)
    z2 = zeta * zeta
    return math.sqrt(1.0 - 2.0 * z2 + math.sqrt(4.0 * z2 * z2 - 4.0 * z2 + 2.0))


def second_order_first_reach(zeta: float) -> float:
    """Time the unit step response of that system first reaches 1, in units of 1/w (0 <= zeta < 1)."""
    zeta = _underdamped("second_order_first_reach", zeta)
    return (math.pi - math.acos(zeta)) / math.sqrt(1.0 - zeta * zeta)


def second_order_from_specs(bandwidth_hz: float = 50.0, first_reach: float = 0.015) -> tuple[float, float]:
    """``(zeta, omega_n)`` of the second-order loop with −3 dB bandwidth ``bandwidth_hz`` and first
    reach of the set-point at ``first_reach`` [s]: ``t_r w_bw = T(zeta) B(zeta)`` fixes zeta."""
    from scipy.optimize import brentq

    bandwidth_hz = check_number("second_order_from_specs", "bandwidth_hz", bandwidth_hz, lo=0.0, hi=1e9,
                                lo_open=True)
    first_reach = check_number("second_order_from_specs", "first_reach", first_reach, lo=0.0, hi=1e9,
                               lo_open=True)  # [s]
    target = first_reach * 2.0 * math.pi * bandwidth_hz

    def gap(z):
        return second_order_first_reach(z) * second_order_bandwidth(z) - target

    lo, hi = 0.05, 0.999
    if not gap(lo) < 0.0 < gap(hi):
        raise InputError(f"second_order_from_specs: no damping in (0.05, 0.999) gives 'bandwidth_hz' = "
                         f"{bandwidth_hz} Hz and 'first_reach' = {first_reach} s (their product 2 pi f t = "
                         f"{target:.3g} must lie in ({gap(lo) + target:.3g}, {gap(hi) + target:.3g}))")
    z = brentq(gap, lo, hi, xtol=1e-12)
    return z, 2.0 * math.pi * bandwidth_hz / second_order_bandwidth(z)


@dataclass(frozen=True)
class SeaGains:
    """Force-loop gains ``kp`` [A/N], ``kd`` [A s/N], feedforward ``ff = 1/g`` [A/N] (each within
    ±:data:`MAX_GAIN`), and the loop's designed ``omega_n`` [rad/s] (in [1/MAX_VALUE, MAX_VALUE]) and
    ``zeta`` (in [0, :data:`MAX_ZETA`])."""

    kp: float
    kd: float
    ff: float
    omega_n: float
    zeta: float

    def __post_init__(self):
        o = "SeaGains"
        for name in ("kp", "kd", "ff"):
            gain = check_number(o, name, getattr(self, name), lo=-MAX_GAIN, hi=MAX_GAIN)
            object.__setattr__(self, name, gain)
        object.__setattr__(self, "omega_n", _positive(o, "omega_n", self.omega_n))
        object.__setattr__(self, "zeta", check_number(o, "zeta", self.zeta, lo=0.0, hi=MAX_ZETA))


def sea_force_gains(cf: float, kv: float, cm: float, inertia: float, viscous: float = 0.0, *,
                    bandwidth_hz: float = 50.0, first_reach: float = 0.015) -> SeaGains:
    """Pole placement of the PD force loop (module docstring): CF [N/m], KV [m/rad], CM [N m/A], rotor
    inertia J [kg m^2], viscous b [N m s/rad] (CF, KV, CM, J in [1/MAX_VALUE, MAX_VALUE], b in [0,
    MAX_VALUE])."""
    cf, kv, cm, inertia, viscous = _plant("sea_force_gains", cf, kv, cm, inertia, viscous)
    zeta, wn = second_order_from_specs(bandwidth_hz, first_reach)
    m = inertia / kv**2
    g = cm / kv
    c = viscous / kv**2
    if wn * wn * m / cf <= 1.0:
        raise InputError(f"sea_force_gains: the spring's own resonance sqrt(CF/m) = kv sqrt(cf/inertia) = "
                         f"{math.sqrt(cf / m):.4g} rad/s ('cf' = {cf:g} N/m, 'kv' = {kv:g} m/rad, "
                         f"'inertia' = {inertia:g} kg m^2) is above the wanted omega_n = {wn:.4g} rad/s "
                         "('bandwidth_hz', 'first_reach'): a PD cannot slow it down")
    return SeaGains((wn * wn * m / cf - 1.0) / g, (2.0 * zeta * wn * m - c) / (cf * g), 1.0 / g, wn, zeta)


def sea_force_response(freqs, gains: SeaGains, cf: float, kv: float, cm: float, inertia: float,
                       viscous: float = 0.0, *, current_bandwidth_hz: float = 1000.0, pwm_hz: float = 28000.0,
                       period: float = 0.0) -> np.ndarray:
    """Closed-loop ``F/F*`` (complex, shape of ``freqs`` [Hz]) of the linearised force loop with what the
    design leaves out: the current loop as ``1/(1 + s/omega_c)`` with its computation and PWM delay
    ``exp(-1.5 s T_pwm)``, and a PD sampled every ``period`` [s] (0: continuous): zero-order hold
    ``exp(-s period/2)`` and the backward-difference derivative ``(1 - exp(-s period))/period``. Plant
    (output locked): ``F/i = CF g / (m s^2 + c s + CF)``, module docstring. ``freqs`` in [0, MAX_VALUE],
    the plant constants as for :func:`sea_force_gains`, ``gains`` a :class:`SeaGains` (kp, kd, ff within
    ±:data:`MAX_GAIN`), ``current_bandwidth_hz`` and ``pwm_hz`` finite, >= 1/MAX_VALUE, ``period`` 0 or in
    [1/MAX_VALUE, MAX_VALUE]."""
    o = "sea_force_response"
    f = check_values(o, "freqs", freqs, lo=0.0, hi=MAX_VALUE, unit="Hz")
    if not isinstance(gains, SeaGains):  # a SeaGains checked its gains when it was made
        raise InputError(f"{o}: 'gains' = {shown(gains)}, expected a SeaGains (from sea_force_gains)")
    cf, kv, cm, inertia, viscous = _plant(o, cf, kv, cm, inertia, viscous)
    current_bandwidth_hz, pwm_hz = (check_number(o, name, value, lo=1.0 / MAX_VALUE) for name, value in (
        ("current_bandwidth_hz", current_bandwidth_hz), ("pwm_hz", pwm_hz)))
    period = check_number(o, "period", period, lo=0.0, hi=MAX_VALUE)
    if 0.0 < period < 1.0 / MAX_VALUE:  # a subnormal period overflows the difference quotient
        raise InputError(f"{o}: 'period' = {period!r}, expected 0 (continuous) or a number in "
                         f"[{1.0 / MAX_VALUE:g}, {MAX_VALUE:g}] [s]")
    s = 2j * np.pi * f
    m, g, c = inertia / kv**2, cm / kv, viscous / kv**2
    den = m * s * s + c * s + cf
    pole = den == 0.0  # a frequency exactly at the undamped (b = 0) spring's resonance: the plant is infinite
    plant = cf * g / np.where(pole, 1.0, den)
    lag = np.exp(-1.5 * s / pwm_hz) / (1.0 + s / (2.0 * np.pi * current_bandwidth_hz))
    deriv: np.ndarray = s
    if period > 0.0:
        lag = lag * np.exp(-0.5 * s * period)
        deriv = np.asarray((1.0 - np.exp(-s * period)) / period, dtype=complex)
    open_ff = plant * lag * (gains.ff + gains.kp)
    out = open_ff / (1.0 + plant * lag * (gains.kp + gains.kd * deriv))
    if np.any(pole):  # there the loop's limit for plant -> inf: (ff + kp) / (kp + kd D)
        out = np.where(pole, (gains.ff + gains.kp) / (gains.kp + gains.kd * deriv), out)
    return out


def bandwidth_of(response, freqs) -> float:
    """The first frequency [Hz] at which ``|response|`` falls to 1/sqrt(2) of its first value (linear
    interpolation between the given ``freqs``). ``response``: 2 or more finite (complex) numbers within
    ±MAX_VALUE, the first of magnitude >= 1/MAX_VALUE; ``freqs`` [Hz]: as many, non-decreasing, in [0,
    MAX_VALUE]."""
    o = "bandwidth_of"
    try:
        a = np.asarray(response)
    except ValueError:  # a ragged list
        a = np.full(0, np.nan)
    r = a.astype(complex) if a.dtype.kind in "iufc" else np.full(0, np.nan)
    if not (r.ndim == 1 and r.size >= 2 and np.all(np.isfinite(r)) and np.all(np.abs(r.real) <= MAX_VALUE)
            and np.all(np.abs(r.imag) <= MAX_VALUE) and abs(r[0]) >= 1.0 / MAX_VALUE):
        raise InputError(f"{o}: 'response' = {shown(response)}, expected 2 or more finite numbers within "
                         f"±{MAX_VALUE:g}, the first of magnitude >= {1.0 / MAX_VALUE:g}")
    f = check_values(o, "freqs", freqs, lo=0.0, hi=MAX_VALUE, unit="Hz")
    if f.shape != r.shape or np.any(np.diff(f) < 0.0):
        raise InputError(f"{o}: 'freqs' = {shown(freqs)}, expected {r.size} non-decreasing frequencies, "
                         "one per entry of 'response'")
    mag = np.abs(a) / abs(a[0])
    k = int(np.argmax(mag < 1.0 / math.sqrt(2.0)))
    if k == 0:
        raise InputError("bandwidth_of: the response never falls to -3 dB over the given frequencies")
    lo, hi = mag[k - 1], mag[k]
    return float(f[k - 1] + (lo - 1.0 / math.sqrt(2.0)) / (lo - hi) * (f[k] - f[k - 1]))


def obstacle_force_bound(force_limit: float, f_impact: float, spring_rate_jump: float, omega_n: float,
                         zeta: float) -> float:
    """Largest spring force [N] after the output hits a rigid obstacle, for the second-order force loop
    (``omega_n``, ``zeta``) with its set-point held at ``force_limit``: linear superposition of the step
    from ``f_impact`` to FG (overshoot ``exp(-pi zeta / sqrt(1 - zeta^2))``) and the initial rate
    ``spring_rate_jump`` = CF v [N/s] (the peak of ``x'' + 2 zeta w x' + w^2 x = 0``, ``x'(0) = r``, is
    ``r/w exp(-zeta/sqrt(1 - zeta^2) atan(sqrt(1 - zeta^2)/zeta))``, ``r/w`` undamped). Forces [N] and the
    rate [N/s] within ±MAX_VALUE (``force_limit`` >= 0), ``omega_n`` [rad/s] in [1/MAX_VALUE, MAX_VALUE],
    ``zeta`` in [0, 1)."""
    o = "obstacle_force_bound"
    force_limit = check_number(o, "force_limit", force_limit, lo=0.0, hi=MAX_VALUE)
    f_impact = check_number(o, "f_impact", f_impact, lo=-MAX_VALUE, hi=MAX_VALUE)
    spring_rate_jump = check_number(o, "spring_rate_jump", spring_rate_jump, lo=-MAX_VALUE, hi=MAX_VALUE)
    omega_n = _positive(o, "omega_n", omega_n)
    zeta = _underdamped(o, zeta)
    s = math.sqrt(1.0 - zeta * zeta)
    overshoot = math.exp(-math.pi * zeta / s)
    turn = math.atan(s / zeta) if zeta > 0.0 else 0.5 * math.pi  # the limit zeta -> 0 (s/zeta -> inf)
    rate_peak = spring_rate_jump / omega_n * math.exp(-zeta / s * turn)
    return force_limit + max(0.0, force_limit - f_impact) * overshoot + max(0.0, rate_peak)
