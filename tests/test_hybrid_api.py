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


def test_a_non_numeric_value_is_refused(ball):
    with pytest.raises(InputError, match="expected a real number"):
        simulate(ball, 0.1, params={"g": "ten"})


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
