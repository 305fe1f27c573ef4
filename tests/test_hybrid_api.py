"""Bad input to the engine's public API gets an InputError naming the value and what was expected."""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.examples import bouncing_ball
from legsim.hybrid import Options, simulate
from legsim.robots import slip


@pytest.fixture(scope="module")
def ball():
    return bouncing_ball.build_model()


def test_an_unknown_parameter_name_is_refused_with_the_closest_valid_name():
    with pytest.raises(InputError) as info:
        simulate(slip.build_model(), 0.1, params={"body_mas": 2.0})
    msg = str(info.value)
    assert "unknown parameter 'body_mas'" in msg and "did you mean 'body_mass'" in msg
    with pytest.raises(InputError) as info:
        simulate(slip.build_model(), 0.1, params={"g_stnace": 9.0})
    assert "did you mean 'g_stance'" in str(info.value)


def test_an_unknown_state_name_is_refused_with_the_closest_valid_name(ball):
    with pytest.raises(InputError) as info:
        simulate(ball, 0.1, x0={"vel": 1.0})
    assert "unknown state 'vel'" in str(info.value)
    with pytest.raises(InputError) as info:
        simulate(slip.build_model(), 0.1, x0={"footy_": 0.0})
    assert "did you mean 'footy'" in str(info.value)


@pytest.mark.parametrize("kind", ["x0", "params"])
def test_a_vector_of_the_wrong_size_is_refused_with_the_expected_size(ball, kind):
    with pytest.raises(InputError) as info:
        simulate(ball, 0.1, **{kind: [1.0, 2.0, 3.0]})
    msg = str(info.value)
    assert "wrong size" in msg and "expected 2" in msg and "got 3" in msg


@pytest.mark.parametrize("kind, value, named", [("x0", {"y": math.nan}, "'y'"),
                                                ("params", {"g": math.inf}, "'g'"),
                                                ("x0", [1.0, np.nan], "for v"),
                                                ("params", [9.81, -np.inf], "for e")])
def test_non_finite_inputs_are_refused_naming_the_entry(ball, kind, value, named):
    with pytest.raises(InputError) as info:
        simulate(ball, 0.1, **{kind: value})
    msg = str(info.value)
    assert "finite" in msg and named in msg


@pytest.mark.parametrize("value", ["ten", "111", True, None, [9.81], 10**400])
def test_a_value_that_is_not_a_finite_real_number_is_refused_by_name(ball, value):
    """Before session 41 a string of digits and True were read as numbers (float()), and an int
    beyond the largest float raised Python's OverflowError."""
    with pytest.raises(InputError, match="parameter 'g': expected a finite real number"):
        simulate(ball, 0.1, params={"g": value})
    with pytest.raises(InputError, match="state 'y': expected a finite real number"):
        simulate(ball, 0.1, x0={"y": value})


@pytest.mark.parametrize("kw, name", [({"sinks": "abc"}, "sinks"), ({"sinks": [3]}, "sinks"),
                                      ({"monitor": 7}, "monitor")])
def test_sinks_and_a_monitor_that_are_not_functions_are_refused_before_the_run(ball, kw, name):
    """Before session 41 they failed at their first use, after the engine had started (a TypeError)."""
    with pytest.raises(InputError, match=f"'{name}' = "):
        simulate(ball, 0.1, **kw)


@pytest.mark.parametrize("name, value", [("rtol", -1e-6), ("atol", 0.0), ("tolerance", math.nan),
                                         ("h_max", -1.0), ("h_min", math.inf), ("power", -0.3),
                                         ("stop_precision", 0.0), ("record_period", -0.01),
                                         ("sample_period", math.inf), ("max_stop_iter", 0),
                                         ("max_transitions", -1), ("max_stop_iter", 2.5)])
def test_a_bad_integrator_option_is_refused_naming_the_option(name, value):
    with pytest.raises(InputError, match=name):
        Options(**{name: value})


def test_an_unknown_integrator_method_is_refused_listing_the_valid_ones():
    with pytest.raises(InputError) as info:
        Options(method="rk5")
    msg = str(info.value)
    assert "'rk5'" in msg and "dp45" in msg and "rk4_fixed" in msg


def test_h_min_above_h_max_is_refused():
    with pytest.raises(InputError, match="h_min"):
        Options(h_min=0.1, h_max=0.01)


@pytest.mark.parametrize("t_final", [0.0, -1.0, math.nan, math.inf, "soon"])
def test_a_final_time_that_is_not_after_t0_is_refused(ball, t_final):
    with pytest.raises(InputError):
        simulate(ball, t_final)


@pytest.mark.parametrize("t0", [math.nan, math.inf, -math.inf, None])
def test_a_start_time_that_is_not_a_finite_number_is_refused(ball, t0):
    """Before session 31 a NaN t0 passed the check (t_final <= NaN is False) and the run never ended."""
    with pytest.raises(InputError, match="t0"):
        simulate(ball, 1.0, t0=t0)


def test_an_integrator_method_that_is_not_a_name_is_refused_listing_the_valid_ones():
    for method in (None, 2.5, [1], True, 99):  # were numpy's enum ValueError (or a method for True)
        with pytest.raises(InputError, match="dp45"):
            Options(method=method)


def test_options_of_the_wrong_type_and_a_negative_initial_mode_are_refused(ball):
    with pytest.raises(InputError, match="Options"):
        simulate(ball, 1.0, options={"rtol": 1e-6})
    with pytest.raises(InputError, match="mode"):
        simulate(ball, 1.0, mode0=-1)


def test_method_names_are_case_insensitive_and_good_input_runs(ball):
    res = simulate(ball, 0.2, x0=np.array([1.0, 0.0]), params=[9.81, 0.9],
                   options=Options(method="RK4_FIXED", h_max=1e-3))
    assert res.status == "done"
    assert res.x[-1, 0] == pytest.approx(1.0 - 0.5 * 9.81 * 0.2 ** 2, abs=1e-12)


def _plain_field(t, x, p, mode, xdot):  # the ball's equations, not compiled
    xdot[0] = x[1]
    xdot[1] = -p[0]


def test_a_model_description_that_cannot_run_is_refused_when_it_is_made(ball):
    """A user's own model (docs/writing-a-model.md) is checked as it is made, each mistake named: a hook
    that is a plain Python function or a lambda (was numba's "No matching definition for argument
    type(s)" and every hook's type, at the first run), names given twice or not strings, a guard's
    direction that is not a Direction, declared guards without a hook to write them (ran on with
    uninitialised guard values)."""
    import dataclasses

    from legsim.hybrid import Direction, Guard, Placement
    from legsim.hybrid import signatures as hs

    def made(**change):
        return dataclasses.replace(ball, **change)

    from numba.core import config

    jit = not config.DISABLE_JIT  # without the JIT (the kernel-coverage pass) every hook is plain Python
    for hook in (_plain_field, lambda t, x, p, mode, xdot: None, 3.0):
        if not jit and hook != 3.0:
            assert made(vector_field=hook).vector_field is hook
            continue
        with pytest.raises(InputError, match=r"model 'bouncing_ball': vector_field = .* is (a plain Python "
                                             r"function|not a function): decorate it with "
                                             r"@legsim.hybrid.signatures.vector_field, a function "
                                             r"\(t, x, p, mode, xdot\) -> None"):
            made(vector_field=hook)
    if jit:
        with pytest.raises(InputError, match=r"reset = .* is compiled for other arguments: decorate it with "
                                             r"@legsim.hybrid.signatures.reset"):
            made(reset=ball.vector_field)  # a hook of another kind
    with pytest.raises(InputError, match=r"parameter names must be unique non-empty strings; given twice: g"):
        made(param_names=("g", "g"))
    with pytest.raises(InputError, match=r"state names must be unique non-empty strings; not strings: \[3\]"):
        made(state_names=("y", 3))
    with pytest.raises(InputError, match=r"Guard 'ground': direction = 'down', expected one of "
                                         r"Direction.FALLING, Direction.EITHER, Direction.RISING"):
        Guard("ground", "down")
    assert Guard("ground", "rising", 1) == Guard("ground", Direction.RISING, Placement.RIGHT)
    with pytest.raises(InputError, match=r"1 guards declared \(ground\) but no guard_values hook"):
        made(guard_values=None)
    # None for an optional hook means none, as for outputs
    quiet = made(reset=None, sample=None, check=None)
    assert quiet.reset is hs.no_reset and quiet.sample is hs.no_sample and quiet.check is hs.no_check
    assert simulate(quiet, 0.2, progress=False).status == "done"


def test_what_sweeping_the_scipy_runs_and_parameter_ranges_found_in_session_41(ball):
    """Before session 41 simulate_scipy's record_period of 1e-300 s recorded for ever (5e299 records: a
    hang), t_final = 1e300 at a record period of 0.05 s ran out of memory, t_final = 10**400 was Python's
    OverflowError, atol = 1e-300 overflowed solve_ivp's error norm (a RuntimeWarning), and a model of the
    wrong kind was an AttributeError; simulate_stiff took Options of any method (a KeyError for "dp45");
    ParamRange(low=5, high=1) was made, and then refused every value, and choice("a") was float()'s
    ValueError."""
    import warnings

    from legsim.hybrid import ParamRange, choice
    from legsim.hybrid.stiff import simulate_scipy, simulate_stiff

    x, p = ball.state(None), ball.params(None)
    with pytest.raises(InputError, match="'record_period' = 1e-300 s makes 5e\\+299 instants"):
        simulate_scipy(ball, 0.5, x, p, 0, 1e-6, 1e-8, record_period=1e-300)
    with pytest.raises(InputError, match="'t_final' = inf: the final time must be a finite number"):
        simulate_scipy(ball, 10**400, x, p, 0, 1e-6, 1e-8)
    with pytest.raises(InputError, match="'record_period' = 0.05 s makes 2e\\+301 instants"):
        simulate_scipy(ball, 1e300, x, p, 0, 1e-6, 1e-8, record_period=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InputError, match="'atol' = 1e-300, expected a finite number in \\[1e-100"):
            simulate_scipy(ball, 0.5, x, p, 0, 1e-6, 1e-300)
    with pytest.raises(InputError, match="simulate_scipy: 'model' = 'ball', expected a legsim.hybrid.Model"):
        simulate_scipy("ball", 0.5, x, p, 0, 1e-6, 1e-8)
    with pytest.raises(InputError, match="simulate_stiff: 'opts' = .*, expected legsim.hybrid.Options of "
                                         "method 'radau' or 'bdf'"):
        simulate_stiff(ball, 0.5, x, p, 0, Options())
    with pytest.raises(InputError, match="ParamRange: 'low' = 5, 'high' = 1: no value is allowed"):
        ParamRange("m", low=5, high=1)
    with pytest.raises(InputError, match="choice: 'values' = \\('a',\\), expected one or more finite"):
        choice("a")
    run = simulate_scipy(ball, 0.5, x, p, 0, 1e-6, 1e-8, record_period=0.1)  # still runs
    assert run.status == "done" and run.rec_t.size == 6


@pytest.mark.parametrize("method", ["RK45", "Radau"])
def test_a_scipy_run_whose_state_overflows_stops_as_the_engine_does_without_warnings(ball, method):
    """Before session 43 a ball thrown at 1e308 m/s under scipy filled the log with numpy's overflow
    warnings from inside solve_ivp and ended "done" with NaN records (RK45's dense output overflowed
    between finite steps); under Radau (``Options(method="radau")``) scipy's LU raised ValueError
    ("array must not contain infs or NaNs"), a traceback. Both now stop with the engine's "nonfinite"
    status, keeping the records before it."""
    import warnings

    from legsim.errors import SimulationError
    from legsim.hybrid.stiff import simulate_scipy, simulate_stiff

    x, p = ball.state({"v": 1e308}), ball.params(None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = simulate_scipy(ball, 0.5, x, p, 0, 1e-6, 1e-8, method=method, record_period=0.05)
        assert (run.status, run.message) == ("nonfinite", "the state became non-finite (NaN or inf)")
        assert np.isfinite(run.rec_x).all() and np.isfinite(run.x_final).all() and run.rec_t.size >= 1
    if method == "Radau":
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(SimulationError, match="run stopped at t = 0 s in mode flight .*: the "
                                                      "state became non-finite .* 1 records up to that"):
                simulate_stiff(ball, 0.5, x, p, 0, Options(method="radau"))
        # none from the solver; with NUMBA_DISABLE_JIT the model's own outputs (v² at 1e308, in Python)
        # overflow in numpy and say so
        assert all(w.filename == bouncing_ball.__file__ for w in seen), [str(w.message) for w in seen]
    fine = simulate_scipy(ball, 0.5, ball.state({"v": 1e3}), p, 0, 1e-6, 1e-8, method=method,
                          record_period=0.05)
    assert fine.status == "done" and fine.rec_t.size == 11


def test_the_engine_is_re_entered_through_its_compiled_entry_for_the_runs_argument_types():
    """Session 43: with a controller in Python the engine returns at every sample instant, and the
    dispatcher typed its 15 arguments again at each re-entry (RATS at 1 kHz: 4.1-5.7 µs a round trip,
    2.0-2.9 µs through the entry). The entry is looked up once, after a first call: the only overload
    as it is (typing the 15 arguments to look it up cost 0.1 ms a run, a third of a SLIP run), else
    the one of the arguments' types; without one, the dispatcher."""
    from numba import njit

    from legsim._direct import entry_point as _entry_point

    @njit
    def add(a, b):
        return a[0] + b

    args = (np.ones(2), 2.0)
    if not hasattr(add, "overloads"):  # NUMBA_DISABLE_JIT: njit gave the Python function
        assert _entry_point(add, args) is add and add(*args) == 3.0
        return
    assert _entry_point(add, args) is add  # nothing compiled yet
    assert add(*args) == 3.0
    entry = _entry_point(add, args)  # its one overload, taken without typing the arguments
    assert entry is not add and entry(*args) == 3.0
    ints = (np.ones(2, dtype=np.int64), 2.0)
    assert add(*ints) == 3.0  # a second overload: the entry is looked up by the arguments' types
    assert _entry_point(add, ints)(*ints) == 3.0 and _entry_point(add, args)(*args) == 3.0
    assert _entry_point(add, (np.ones(2, dtype=np.float32), 2.0)) is add  # a type never run: the dispatcher
    assert _entry_point(add.py_func, args) is add.py_func  # no JIT


def test_a_run_whose_kept_records_cannot_fit_in_memory_is_refused_before_it_starts(ball):
    """Session 43: ``Robot.simulate(2**40)`` (found sweeping it) would have recorded 1.1e15 records at 1 ms
    in memory until the OS killed it. A run that keeps more records than the machine's memory holds is
    refused, saying how to stream them; streamed, or recorded less often, it is not."""
    from legsim._machine import physical_memory

    opts = Options(record_period=1e-3)
    with pytest.raises(InputError, match=r"keeps 1.1e\+15 records .* GB\) in memory, more than this "
                                         r"machine's .*: stream them to disk"):
        simulate(ball, 2.0**40, options=opts, progress=False)
    rows = physical_memory() / ((2 + ball.nx + ball.ny) * 8.0)  # just over the memory, at 1 ms
    with pytest.raises(InputError, match="more than this machine's"):
        simulate(ball, 1.01 * rows * 1e-3, options=opts, progress=False)
    assert simulate(ball, 0.05, options=opts, progress=False).t.size == 51
