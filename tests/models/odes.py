"""Smooth test systems with closed-form solutions, and sampled-controller probes.

* :func:`build_oscillator` — ẍ = −ω² x (state [x (m), v (m/s)], parameter ω [rad/s]);
  x(t) = x0 cos ωt + v0/ω sin ωt.
* :func:`build_blowup` — ẋ = x² (state [x]); x(t) = x0 / (1 − x0 t) escapes to infinity at 1/x0, so
  no step size can follow it past that time.
* :func:`build_sample_clock` — no continuous motion of interest; the ``sample`` hook counts its calls,
  stores the time of the latest call, and the largest |t − k·period| it was called at.
* :func:`build_pi_plant` — first-order plant τ ẏ = −y + K u with a discrete PI controller that holds u
  between samples (zero-order hold): at t_k, e_k = r − y(t_k), I_k = I_{k−1} + T e_k,
  u_k = Kp e_k + Ki I_k (Franklin, Powell & Workman, *Digital Control*, the backward-rectangle PI).
"""

from __future__ import annotations

import math

from legsim import hybrid
from legsim.hybrid import signatures as hs

# ------------------------------------------------------------------- oscillator


@hs.vector_field
def oscillator_field(t, x, p, mode, xdot):
    """ẋ = v, v̇ = −ω² x."""
    xdot[0] = x[1]
    xdot[1] = -p[0] * p[0] * x[0]


def build_oscillator() -> hybrid.Model:
    """Harmonic oscillator, ω = 2π rad/s, x0 = 1, v0 = 0; no guards."""
    return hybrid.Model(
        name="oscillator", state_names=("x", "v"), state_defaults=[1.0, 0.0],
        param_names=("omega",), param_defaults=[6.283185307179586],
        guards=(), output_names=(), vector_field=oscillator_field,
    )


# ------------------------------------------------------------------- finite escape time


@hs.vector_field
def blowup_field(t, x, p, mode, xdot):
    """ẋ = x²."""
    xdot[0] = x[0] * x[0]


def build_blowup() -> hybrid.Model:
    """ẋ = x², x0 = 1: escapes at t = 1."""
    return hybrid.Model(
        name="blowup", state_names=("x",), state_defaults=[1.0], param_names=(), param_defaults=[],
        guards=(), output_names=(), vector_field=blowup_field,
    )


# ------------------------------------------------------------------- sample-call probe
# state: s (clock), calls, t_last, max_dev ; parameter: period


@hs.vector_field
def sample_clock_field(t, x, p, mode, xdot):
    """ds/dt = 1; the bookkeeping states are constant between samples."""
    xdot[0] = 1.0
    xdot[1] = 0.0
    xdot[2] = 0.0
    xdot[3] = 0.0


@hs.sample
def sample_clock_sample(t, x, p, mode, k, x_new):
    """Count the call, store t, and track max |t − k·period| (t0 = 0)."""
    x_new[1] = x[1] + 1.0
    x_new[2] = t
    dev = abs(t - k * p[0])
    x_new[3] = dev if dev > x[3] else x[3]
    return mode


def build_sample_clock(period: float = 1e-3) -> hybrid.Model:
    """Probe of the sampled-controller schedule."""
    return hybrid.Model(
        name="sample_clock", state_names=("s", "calls", "t_last", "max_dev"),
        state_defaults=[0.0, 0.0, -1.0, 0.0], param_names=("period",), param_defaults=[period],
        guards=(), output_names=(), vector_field=sample_clock_field, sample=sample_clock_sample,
    )


# ------------------------------------------------------------------- PI on a first-order plant
# state: y (plant output), I (integral of error, bookkeeping), u (held command, bookkeeping)
# parameters: tau [s], K [-], Kp, Ki [1/s], r (set point), T (sample period [s])


@hs.vector_field
def pi_plant_field(t, x, p, mode, xdot):
    """τ ẏ = −y + K u; I and u are held between samples."""
    xdot[0] = (-x[0] + p[1] * x[2]) / p[0]
    xdot[1] = 0.0
    xdot[2] = 0.0


@hs.sample
def pi_plant_sample(t, x, p, mode, k, x_new):
    """e = r − y; I ← I + T e; u ← Kp e + Ki I."""
    e = p[4] - x[0]
    integ = x[1] + p[5] * e
    x_new[1] = integ
    x_new[2] = p[2] * e + p[3] * integ
    return mode


def build_pi_plant() -> hybrid.Model:
    """τ = 0.1 s, K = 2, Kp = 0.8, Ki = 3 /s, r = 1, T = 0.02 s; y(0) = 0."""
    return hybrid.Model(
        name="pi_plant", state_names=("y", "I", "u"), state_defaults=[0.0, 0.0, 0.0],
        param_names=("tau", "K", "Kp", "Ki", "r", "T"),
        param_defaults=[0.1, 2.0, 0.8, 3.0, 1.0, 0.02],
        guards=(), output_names=(), vector_field=pi_plant_field, sample=pi_plant_sample,
    )


# ------------------------------------------------------------------- a field that turns NaN


@hs.vector_field
def nan_after_field(t, x, p, mode, xdot):
    """ẋ = 1 for t ≤ t_nan, NaN afterwards (a model bug the engine must report, not integrate)."""
    xdot[0] = 1.0 if t <= p[0] else hs.INACTIVE


def build_nan_field(t_nan: float = 0.5) -> hybrid.Model:
    """ẋ = 1 until t_nan, then NaN."""
    return hybrid.Model(
        name="nan_field", state_names=("x",), state_defaults=[0.0], param_names=("t_nan",),
        param_defaults=[t_nan], guards=(), output_names=(), vector_field=nan_after_field,
    )


# ------------------------------------------------------------------- stiff (Prothero–Robinson)


@hs.vector_field
def prothero_robinson_field(t, x, p, mode, xdot):
    """ẋ = λ (x − cos t) − sin t."""
    xdot[0] = p[0] * (x[0] - math.cos(t)) - math.sin(t)


def build_prothero_robinson(lam: float = -1e6) -> hybrid.Model:
    """Prothero & Robinson's stiff test (Hairer & Wanner, *Solving ODEs II*, §IV.15): ẋ = λ (x − cos t)
    − sin t, x0 = 1, whose solution is x = cos t for every λ; λ = −10⁶ makes every explicit method's
    stable step ~3 µs while the solution varies on a scale of a second."""
    return hybrid.Model(
        name="prothero_robinson", state_names=("x",), state_defaults=[1.0], param_names=("lam",),
        param_defaults=[lam], guards=(), output_names=(), vector_field=prothero_robinson_field,
    )
