"""Filippov sliding along a guard whose two sides both point into it (beyond SimSect, digest §4.15).

Two textbook systems with closed-form motions, the switching times found independently with
scipy.optimize.brentq:

* Coulomb block m v̇ = F0 sin ωt − μ m g sgn(v) from rest (Filippov, *Differential Equations with
  Discontinuous Righthand Sides*, 1988, §2.1 example; Leine & Nijmeijer 2004, ch. 2): it sticks while
  |F| < μmg, slips with v(t) = F0/(mω)(cos ωt₁ − cos ωt) − μg(t − t₁) after t₁ = asin(μmg/F0)/ω, and
  sticks again when v returns to zero with |F| < μmg.
* First-order sliding-mode control of a double integrator, u = −M sgn(x2 + c x1) (Utkin 1992):
  a reaching phase with u = −M, then sliding on s = 0 with x1 = x1(ts) e^(−c(t − ts)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from legsim.errors import SimulationError
from legsim.examples import coulomb_block
from legsim.hybrid import Options, simulate
from models import relay

M, MU, G, F0, W = 1.0, 0.5, 9.81, 8.0, 2.0
FRICTION = MU * M * G
T1 = math.asin(FRICTION / (F0)) / W  # end of the first stick


def v_forward(t, t_start):
    """Velocity of a forward slip that starts from rest at t_start [m/s]."""
    return F0 / (M * W) * (math.cos(W * t_start) - np.cos(W * t)) - MU * G * (t - t_start)


def x_forward(t, t_start, x_start):
    """Position during that slip [m]: the integral of v_forward."""
    tau = t - t_start
    swing = (np.sin(W * t) - math.sin(W * t_start)) / W
    return x_start + F0 / (M * W) * (math.cos(W * t_start) * tau - swing) - 0.5 * MU * G * tau ** 2


@pytest.fixture(scope="module")
def block_run():
    return simulate(coulomb_block.build_model(), 2.5, params={"F0": F0, "omega": W},
                    options=Options(record_period=0.001, rtol=1e-10, atol=1e-12))


def test_the_block_sticks_until_the_force_reaches_the_friction_limit(block_run):
    res = block_run
    ends = res.events[res.events["kind"] == 2]  # slide (stick) ends
    starts = res.events[res.events["kind"] == 1]
    assert starts.size >= 2 and ends.size >= 2
    assert abs(starts["t"][0]) <= 1e-9  # sticking from the first instant
    assert abs(ends["t"][0] - T1) <= 1e-7
    assert ends["mode_after"][0] == 0  # leaves into forward sliding
    stick = res.t < T1 - 1e-6
    assert np.max(np.abs(res.x[stick])) <= 1e-9  # at rest at x = 0 the whole time


def test_the_slip_velocity_and_position_follow_the_closed_form_until_the_block_sticks_again(block_run):
    res = block_run
    t2 = brentq(lambda t: v_forward(t, T1), T1 + 0.1, 2.4)
    # at t2 the force is inside the friction cone, so the block must stick again
    assert abs(F0 * math.sin(W * t2)) < FRICTION
    starts = res.events[res.events["kind"] == 1]
    assert abs(starts["t"][1] - t2) <= 1e-7
    slip = (res.t > T1) & (res.t < t2)
    assert np.max(np.abs(res.x[slip, 1] - v_forward(res.t[slip], T1))) <= 1e-7
    assert np.max(np.abs(res.x[slip, 0] - x_forward(res.t[slip], T1, 0.0))) <= 1e-7
    # second stick: position frozen at x(t2) (continuous across the switch), velocity zero,
    # until F = −μmg at t3 = (π + asin(μmg/F0))/ω starts a backward slip
    t3 = (math.pi + math.asin(FRICTION / F0)) / W
    ends = res.events[res.events["kind"] == 2]
    assert abs(ends["t"][1] - t3) <= 1e-7
    assert ends["mode_after"][1] == 1
    stick2 = (res.t > t2 + 1e-6) & (res.t < t3 - 1e-6)
    assert stick2.sum() > 100
    assert np.max(np.abs(res.x[stick2, 1])) <= 1e-9
    assert np.max(np.abs(res.x[stick2, 0] - x_forward(t2, T1, 0.0))) <= 1e-7
    # backward slip from t3: v = F0/(mω)(cos ωt3 − cos ωt) + μg(t − t3)
    back = res.t > t3 + 1e-6
    v_back = F0 / (M * W) * (math.cos(W * t3) - np.cos(W * res.t[back])) + MU * G * (res.t[back] - t3)
    assert np.max(np.abs(res.x[back, 1] - v_back)) <= 1e-7


def test_the_same_block_without_sliding_chatters_and_stops():
    with pytest.raises(SimulationError) as info:
        simulate(coulomb_block.build_model(), 2.5, options=Options(sliding=False, max_transitions=200))
    assert info.value.result.status == "chattering"
    assert info.value.t < T1  # it never gets past the first stick


def test_a_sliding_mode_controller_reaches_the_surface_and_slides_to_the_origin_exponentially():
    mm, c, x10, x20 = 2.0, 1.0, 1.0, 0.5
    res = simulate(relay.build_relay(), 4.0, x0={"x1": x10, "x2": x20}, params={"M": mm, "c": c},
                   options=Options(record_period=0.01, rtol=1e-10, atol=1e-12))

    def reach(t):
        return (x20 - mm * t) + c * (x10 + x20 * t - 0.5 * mm * t * t)

    ts = brentq(reach, 0.0, 2.0)
    x1s = x10 + x20 * ts - 0.5 * mm * ts * ts
    assert c * c * abs(x1s) < mm  # the equivalent control is admissible: a sliding motion exists
    starts = res.events[res.events["kind"] == 1]
    assert starts.size == 1 and abs(starts["t"][0] - ts) <= 1e-8
    assert np.sum(res.events["kind"] == 2) == 0  # it never leaves the surface
    reaching = res.t < ts
    assert np.max(np.abs(res.x[reaching, 0] - (x10 + x20 * res.t[reaching]
                                               - 0.5 * mm * res.t[reaching] ** 2))) <= 1e-9
    on = res.t > ts
    x1_exact = x1s * np.exp(-c * (res.t[on] - ts))
    assert np.max(np.abs(res.x[on, 0] - x1_exact)) <= 1e-7
    assert np.max(np.abs(res.x[on, 1] + c * res.x[on, 0])) <= 1e-8  # stays on s = 0
    assert res.stats["transitions"] <= 2


def test_the_rosenbrock_method_sticks_and_slips_the_block_as_well():
    # ros23 inside Filippov sliding, on a field that depends on time (its ∂f/∂t is evaluated each step):
    # the stick ends at T1 (measured 5e-14 s off) and the first slip follows its closed form to the
    # second-order method's accuracy (measured 4.2e-6 m/s, 5.5e-7 m at rtol 1e-8)
    res = simulate(coulomb_block.build_model(), 2.5, params={"F0": F0, "omega": W},
                   options=Options(method="ros23", record_period=0.001, rtol=1e-8, atol=1e-10))
    starts, ends = res.events[res.events["kind"] == 1], res.events[res.events["kind"] == 2]
    assert starts.size == 2 and ends.size == 2
    assert abs(ends["t"][0] - T1) <= 1e-9
    slip = (res.t > T1 + 1e-3) & (res.t < starts["t"][1] - 1e-3)
    assert np.max(np.abs(res.x[slip, 1] - v_forward(res.t[slip], T1))) <= 2e-5
    assert np.max(np.abs(res.x[slip, 0] - x_forward(res.t[slip], T1, 0.0))) <= 5e-6
