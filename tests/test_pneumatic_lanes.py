"""The SIMD lane kernels agree with the scalar kernels they restate.

- ``_lane_math``: branch-free exp/log/pow/tanh against numpy on their stated domains.
- ``_lane_kernels`` through :class:`ActuatorBatch`: every valve model (fitted, overlapped,
  underlapped), every heat model, with and without the linear flow region, mixed batches, and
  the edge states of the scalar kernel (equal pressures, empty chamber, closed path, both flow
  directions), against ``_chamber_kernels.cylinder_rates`` (Daepp (4.1.1), (4.1.10), §4.2.3).
Tolerance: 1e-12 of each rate's largest magnitude over the batch (measured: ~1e-14).
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm
import numba
import numpy as np
import pytest

from legsim.actuators.pneumatic import (
    ActuatorBatch,
    HeatModel,
    PneumaticActuator,
    mpye5_simple,
    mpye5_underlapped,
    stack_rows,
)
from legsim.actuators.pneumatic import _lane_kernels as LK
from legsim.actuators.pneumatic._chamber_kernels import cylinder_rates_array
from legsim.actuators.pneumatic._lane_math import LOG_UNIT_MIN, exp_neg, log_unit, pow_unit, tanh_lane
from legsim.errors import InputError

RTOL = 1e-12


@pytest.mark.parametrize("fn, ref, lo, hi, tol", [
    (exp_neg, np.exp, -40.0, 0.0, 5e-14),
    (log_unit, np.log, LOG_UNIT_MIN, 1.0, 1.5e-15),      # absolute
    (tanh_lane, np.tanh, -30.0, 30.0, 5e-15),            # absolute
])
def test_lane_math_matches_numpy_on_its_domain(fn, ref, lo, hi, tol):
    xs = np.concatenate([np.linspace(lo, hi, 20001), [lo, hi, 0.5 * (lo + hi)]])
    got = np.array([fn(v) for v in xs])
    want = ref(xs)
    err = np.abs(got - want) / (np.abs(want) if fn is exp_neg else 1.0)
    assert err.max() < tol


def test_lane_power_matches_numpy_for_air_and_for_exponent_one():
    xs = np.linspace(0.0068, 1.0, 5001)
    for a in (1.0 / 1.4, 1.0, 0.1):
        got = np.array([pow_unit(v, a) for v in xs])
        assert np.max(np.abs(got / xs ** a - 1.0)) < 1e-14


def _states(acts, rng, n):
    x = rng.uniform(0.0, 0.04, n)
    s = np.zeros((n, 5))
    for i, a in enumerate(acts):
        s[i] = a.initial_state(x[i], rng.uniform(0.9e5, 4.6e5), rng.uniform(0.9e5, 4.6e5))[0]
    s[:, 2:4] *= rng.uniform(0.7, 1.3, (n, 2))        # chamber temperatures off T_supply
    u = rng.uniform(0.0, 10.0, n)
    u[: n // 4] = rng.uniform(4.5, 6.0, n // 4)       # around the valve's null
    xd = rng.normal(0.0, 0.2, n)
    s[1, 1] = s[1, 0]                                  # equal chamber pressures
    s[2, 0] = acts[2].p_supply                         # cap at supply pressure
    s[3, 2] = 0.0                                      # empty cap chamber: T falls back to T_s
    u[4] = 5.25                                        # exactly the null (overlapped: both closed)
    return s, u, x, xd


def _compare(acts, seed=0):
    rng = np.random.default_rng(seed)
    n = len(acts)
    s, u, x, xd = _states(acts, rng, n)
    rows = stack_rows(acts)
    want = np.empty((n, 5))
    cylinder_rates_array(rows, u, x, xd, s, want)
    got = ActuatorBatch(acts).derivatives(s, u, x, xd)
    scale = np.maximum(np.abs(want).max(axis=0), 1e-300)
    return np.abs(got - want) / scale


VALVES = {"fitted": None, "overlapped": mpye5_simple(), "underlapped": mpye5_underlapped()}


@pytest.mark.parametrize("valve", list(VALVES))
@pytest.mark.parametrize("heat", list(HeatModel))
@pytest.mark.parametrize("laminar", [0.999, 0.0])
def test_batch_agrees_with_the_scalar_kernel(valve, heat, laminar):
    kw = {} if VALVES[valve] is None else {"valve": VALVES[valve]}
    act = PneumaticActuator(heat=heat, laminar_ratio=laminar, **kw)
    assert _compare([act] * 37).max() < RTOL


@pytest.mark.parametrize("n", [1, 3, 4, 5, 16, 17, 33])
def test_mixed_batches_of_any_size_agree_and_keep_the_actuator_order(n):
    kinds = [PneumaticActuator(), PneumaticActuator(valve=mpye5_simple()),
             PneumaticActuator(valve=mpye5_underlapped(), heat=HeatModel.ISOTHERMAL),
             PneumaticActuator(p_supply=8e5, t_supply=310.0, critical_ratio=0.5)]
    acts = [kinds[(3 * i) % 4] for i in range(max(n, 5))][:n] if n >= 5 else \
        [kinds[i % 4] for i in range(5)]
    assert _compare(acts, seed=n).max() < RTOL


def test_actuator_derivatives_use_the_batch_and_match_single_evaluations():
    act = PneumaticActuator()
    rng = np.random.default_rng(3)
    s, u, x, xd = _states([act] * 12, rng, 12)
    together = act.derivatives(0.0, s, u, x, xd)
    for i in range(12):
        alone = act.derivatives(0.0, s[i:i + 1], u[i], x[i], xd[i])[0]
        np.testing.assert_allclose(together[i], alone, rtol=0, atol=1e-12 * np.abs(together).max())


def test_flow_direction_and_supply_draw_have_the_scalar_signs():
    """Cap below the fitted input pressure fills (ṁ_cap > 0, drawn from supply); a cap above it
    empties (ṁ_cap < 0, nothing drawn)."""
    act = PneumaticActuator()
    batch = ActuatorBatch([act, act])
    s = act.initial_state(0.02, [1.2e5, 4.4e5], 3e5, n=2)
    r = batch.derivatives(s, [8.0, 2.0], 0.02, 0.0)
    assert r[0, 2] > 0 and r[0, 4] > 0
    assert r[1, 2] < 0


def test_batch_rejects_bad_input_naming_the_value():
    batch = ActuatorBatch([PneumaticActuator()] * 3)
    s = PneumaticActuator().initial_state(0.01, 2e5, 2e5, n=3)
    with pytest.raises(InputError, match=r"valve voltage u\[1\]"):
        batch.derivatives(s, [5.0, 10.5, 5.0], 0.01, 0.0)
    with pytest.raises(InputError, match=r"piston position x\[2\]"):
        batch.derivatives(s, 5.0, [0.01, 0.01, 0.2], 0.0)
    with pytest.raises(InputError, match="state: expected shape"):
        batch.derivatives(s[:2], 5.0, 0.01, 0.0)
    with pytest.raises(InputError, match="negative chamber pressure"):
        batch.derivatives(-s, 5.0, 0.01, 0.0)
    with pytest.raises(InputError, match="xdot"):
        batch.derivatives(s, 5.0, 0.01, [0.0, np.nan, 0.0])
    with pytest.raises(InputError, match="at least one actuator"):
        ActuatorBatch([])


@pytest.mark.parametrize("kw, match", [
    ({"critical_ratio": 0.001}, "critical_ratio"),
    ({"critical_ratio": 1.0}, "critical_ratio"),
    ({"laminar_ratio": 0.3}, "laminar_ratio"),
    ({"laminar_ratio": 1.0}, "laminar_ratio"),
])
def test_flow_ratios_outside_their_physical_range_are_refused(kw, match):
    with pytest.raises(InputError, match=match):
        PneumaticActuator(**kw)


@pytest.mark.skipif(numba.config.DISABLE_JIT,
                    reason="NUMBA_DISABLE_JIT is set: the kernels run as Python, there is no "
                           "machine code to inspect (the results are tested in that mode too)")
@pytest.mark.parametrize("loop", ["fitted_rates", "linear_rates"])
def test_the_lane_loops_compile_to_vector_instructions_on_an_avx2_host(loop):
    """Guards the rules of DESIGN.md "Many actuators at once": a change that stops LLVM from
    vectorising the loop (a libm call, a load under a select, the body moved into an inlined
    function, …) keeps the results right but makes 12 actuators cost ~7× one instead of ~2.5×;
    so does a lane count that is not a multiple of the vector width LLVM chose."""
    if not llvm.get_host_cpu_features().get("avx2", False):
        pytest.skip("this CPU has no AVX2: the lane loops compile to scalar code there by design "
                    "(results are still checked by the other tests)")
    fn = numba.njit(error_model="numpy")(getattr(LK, loop).py_func)
    w = LK.LANE_WIDTH
    lanes = np.full(LK.NLANE * w, 0.5)
    fn(lanes, np.full(LK.NIN * w, 0.5), np.zeros(LK.NOUT * w), np.array([w]), 0, 1)
    asm = fn.inspect_asm(fn.signatures[0])
    packed = re.findall(r"\bv\w+pd\b[^\n]*%[yz]mm", asm)
    assert len(packed) > 100, f"{len(packed)} packed-double vector instructions in {loop}"
    # a block's lanes come in multiples of LLVM's vector width, or the rest run in the scalar
    # remainder (~100 ns a lane: on Zen 4, 8 doubles a vector, 4 lanes took 422 ns and 16 took 322)
    width = 8 if any("%zmm" in line for line in packed) else 4
    assert LK.VECTOR % width == 0, (LK.VECTOR, width)


def test_batch_forces_match_each_actuators_own_force_law():
    """ActuatorBatch.force: (4.1.11) with each actuator's friction model (Stribeck-tanh, viscous,
    Coulomb at rest balancing the pressure force) equals PneumaticActuator.force one by one."""
    from legsim.actuators.pneumatic import Friction, FrictionModel
    acts = [PneumaticActuator(),
            PneumaticActuator(friction=Friction(model=FrictionModel.VISCOUS, c_v=40.0)),
            PneumaticActuator(friction=Friction(model=FrictionModel.COULOMB, f_c_pos=8.0,
                                                f_c_neg=6.0))] * 2
    s = PneumaticActuator().initial_state(0.02, [2.0e5, 3.1e5, 1.5e5, 2.0e5, 3.0e5, 2.02e5],
                                          2.0e5, n=6)
    v = np.array([0.1, -0.2, 0.0, 0.0, 0.3, -0.05])
    got = ActuatorBatch(acts).force(s, v)
    want = np.array([a.force(s[i:i + 1], xdot=v[i])[0] for i, a in enumerate(acts)])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-12)
    # Coulomb at rest (index 2, v = 0): the friction balances the pressure force up to F_C
    from legsim.actuators.pneumatic._chamber_kernels import pressure_force
    fp = pressure_force(acts[2].row(), s[2, 0], s[2, 1])
    level = 8.0 if fp >= 0.0 else 6.0
    assert abs(fp) > level and got[2] == pytest.approx(fp - np.sign(fp) * level, rel=1e-14)


def test_derivatives_accept_an_actuator_with_array_valued_fields():
    """An actuator built from fitted numpy coefficients is unhashable; ``derivatives`` caches its
    packed batch by parameter row instead, and agrees with the scalar kernel."""
    from legsim.actuators.pneumatic import mpye5_fitted
    coeffs = np.array(mpye5_fitted().poly_cap_pos) * 1.1
    act = PneumaticActuator(valve=mpye5_fitted().__class__(poly_cap_pos=coeffs))
    s = act.initial_state(0.01, 2e5, 3e5, n=2)
    got = act.derivatives(0.0, s, [6.0, 4.0], 0.01, [0.0, 0.1])
    want = np.empty_like(s)
    cylinder_rates_array(np.tile(act.row(), (2, 1)), np.array([6.0, 4.0]), np.full(2, 0.01),
                         np.array([0.0, 0.1]), s, want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
