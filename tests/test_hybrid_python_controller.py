"""Controllers written in Python: called at exact sample instants between compiled stretches."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from legsim.errors import InputError, SimulationError
from legsim.hybrid import Options, simulate
from legsim.hybrid import signatures as hs
from models.odes import build_pi_plant


def _python_pi(calls: list[float]):
    """The backward-rectangle PI of ``pi_plant_sample``, written in Python (same operations)."""
    def controller(t, x, mode):
        calls.append(t)
        Kp, Ki, r, T = 0.8, 3.0, 1.0, 0.02
        e = r - x[0]
        integ = x[1] + T * e
        x[1] = integ
        x[2] = Kp * e + Ki * integ
    return controller


@pytest.fixture(scope="module")
def plants():
    compiled = build_pi_plant()
    python = dataclasses.replace(compiled, sample=hs.no_sample, sample_period=0.02)
    return compiled, python


@pytest.mark.parametrize("method", ["dp45", "rk4_fixed"])
def test_a_python_controller_reproduces_the_same_compiled_controller_to_the_last_bit(plants, method):
    compiled, python = plants
    opts = Options(method=method, h_max=1e-3, record_period=0.005, sample_period=0.02)
    ref = simulate(compiled, 1.0, options=opts)
    calls: list[float] = []
    res = simulate(python, 1.0, options=opts, controller=_python_pi(calls))
    assert res.t.shape == ref.t.shape
    np.testing.assert_array_equal(res.t, ref.t)
    assert np.max(np.abs(res.x - ref.x)) <= 1e-15
    # called at every sample instant k T, k = 0..50, exactly
    np.testing.assert_allclose(calls, 0.02 * np.arange(51), rtol=0, atol=1e-15)


def test_the_record_at_a_sample_instant_shows_the_command_the_controller_just_wrote(plants):
    _, python = plants
    calls: list[float] = []
    res = simulate(python, 0.1, options=Options(record_period=0.02, sample_period=0.02),
                   controller=_python_pi(calls))
    # u changes only at samples and each record at t = kT holds the new value: with y rising,
    # consecutive held commands differ, so a record taken before the update would repeat a value
    u = res.x[:, 2]
    e = 1.0 - res.x[:, 0]
    integ = res.x[:, 1]
    np.testing.assert_allclose(u, 0.8 * e + 3.0 * integ, rtol=1e-14)
    assert np.all(np.diff(u) != 0.0)


def test_controller_every_n_calls_python_at_every_nth_sample_only(plants):
    _, python = plants
    calls: list[float] = []
    simulate(python, 0.2, options=Options(sample_period=0.01), controller=_python_pi(calls),
             controller_every=4)
    np.testing.assert_allclose(calls, 0.04 * np.arange(6), atol=1e-15)


def test_a_failing_controller_stops_the_run_with_time_mode_and_cause_and_keeps_its_records(plants):
    _, python = plants

    def controller(t, x, mode):
        if t > 0.05:
            raise ValueError("command for 'knee' is NaN")
        x[2] = 1.0

    with pytest.raises(SimulationError) as info:
        simulate(python, 1.0, options=Options(record_period=0.01, sample_period=0.02),
                 controller=controller)
    err = info.value
    assert "t = 0.06" in str(err)
    line = controller.__code__.co_firstlineno + 2  # its raise: the user's code, named as the message's place
    assert (f"the controller failed: ValueError: command for 'knee' is NaN ({__file__}:{line}, in controller)"
            in str(err)), str(err)
    assert err.result.status == "controller_error"
    assert err.result.t[-1] == pytest.approx(0.05, abs=1e-12)  # records up to the failing sample


def test_a_controller_without_a_sample_period_is_refused(plants):
    compiled, _ = plants
    plain = dataclasses.replace(compiled, sample=hs.no_sample, sample_period=0.0)
    with pytest.raises(InputError, match="needs a sample period"):
        simulate(plain, 1.0, controller=lambda t, x, m: None)


# ------------------------------------------------------------------------- wall-time limit
def test_a_controller_that_never_returns_is_stopped_at_the_wall_time_limit_with_its_records(plants):
    import signal
    import time

    _, python = plants
    before = signal.getsignal(signal.SIGALRM)
    pi = _python_pi([])

    def hangs_after_half_a_second(t, x, mode):
        pi(t, x, mode)
        while t > 0.5:  # a controller stuck in a loop, swallowing every Exception it sees
            try:
                time.sleep(0.01)
            except Exception:
                pass

    t0 = time.perf_counter()
    with pytest.raises(SimulationError, match=r"wall-time limit of 0.5 s was reached") as info:
        simulate(python, 5.0, options=Options(record_period=0.02, sample_period=0.02, wall_time_limit=0.5),
                 controller=hangs_after_half_a_second)
    assert time.perf_counter() - t0 < 3.0
    res = info.value.result
    assert res.status == "wall_time_limit" and "run stopped at t = 0.52 s" in str(info.value)
    # the records are kept up to the last sample whose controller returned (a sample's record is
    # written after its controller call, which at 0.52 s never ended)
    assert res.t[-1] == pytest.approx(0.5) and res.n == 26
    assert signal.getsignal(signal.SIGALRM) == before  # the timer's handler is put back


def test_a_long_compiled_run_stops_at_the_wall_time_limit_and_a_short_one_is_unaffected(plants):
    compiled, _ = plants
    opts = Options(method="rk4_fixed", h_max=1e-7, sample_period=0.02, record_period=0.01)
    res = simulate(compiled, 100.0, options=dataclasses.replace(opts, wall_time_limit=0.3),
                   raise_on_error=False)
    # 1e9 steps would take hours; the engine returns every 20 000 steps (~1 s as plain Python)
    assert res.status == "wall_time_limit" and 0.0 < res.stats["sim_time_s"] < 100.0
    assert res.stats["wall_time_s"] < 10.0
    ok = simulate(compiled, 0.2, options=dataclasses.replace(opts, h_max=1e-4, wall_time_limit=60.0))
    ref = simulate(compiled, 0.2, options=dataclasses.replace(opts, h_max=1e-4))
    np.testing.assert_array_equal(ok.x, ref.x)


def test_a_bad_wall_time_limit_is_refused():
    with pytest.raises(InputError, match=r"integrator option: 'wall_time_limit' = .*, expected a finite"):
        Options(wall_time_limit=-1.0)
    compiled = build_pi_plant()
    with pytest.raises(InputError, match="'radau' runs through scipy and cannot keep a wall-time limit"):
        simulate(compiled, 0.1, options=Options(method="radau", wall_time_limit=1.0))
