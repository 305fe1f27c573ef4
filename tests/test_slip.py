"""SLIP runner (digest §3, §6.3-5..7)."""

import numpy as np
import pytest

from legsim.hybrid import Options, simulate
from legsim.robots import slip


@pytest.mark.parametrize("i, j", [(2.0, 1.0), (2.0, 2.0), (3.0, 1.0), (2.0, -1.0), (4.0, 2.0)])
def test_spring_derivative_is_the_derivative_of_the_potential(i, j):
    q0, k = 1.0, 1000.0
    for qr in (0.7, 0.85, 0.95, 1.1):
        d = 1e-6
        u = slip.spring_potential
        fd = (u(qr + d, q0, k, i, j) - u(qr - d, q0, k, i, j)) / (2 * d)
        assert slip.spring_derivative(qr, q0, k, i, j) == pytest.approx(fd, rel=1e-6, abs=1e-6)


def test_the_2_1_spring_is_linear_with_rest_length_q0():
    assert slip.spring_derivative(0.9, 1.0, 1000.0, 2.0, 1.0) == pytest.approx(-100.0)
    assert slip.spring_potential(0.9, 1.0, 1000.0, 2.0, 1.0) == pytest.approx(5.0)


def test_default_run_starts_in_decompression_and_cycles_through_the_four_charts():
    res = simulate(slip.build_model(), 5.0, options=Options(record_period=0.01))
    assert res.mode[0] == slip.DECOMPRESSION
    order = [slip.DECOMPRESSION, slip.ASCENT, slip.DESCENT, slip.COMPRESSION]
    seq = [res.mode[0]] + list(res.events["mode_after"])
    assert len(seq) > 12
    for a, b in zip(seq, seq[1:], strict=False):
        assert order.index(b) == (order.index(a) + 1) % 4
    assert res.x[:, 1].min() > 0.0


def test_initial_compression_lifts_the_body_only_if_k_times_0_1_exceeds_m_g():
    # m = 12 kg: k*0.1 = 100 N < m*g = 120 N, the body sinks and the check stops the run
    from legsim.errors import SimulationError

    with pytest.raises(SimulationError, match="toppled"):
        simulate(slip.build_model(), 3.0, params={"body_mass": 12.0})


def test_fixed_touchdown_angle_policy_uses_the_given_angle():
    model = slip.build_model()
    neutral = simulate(model, 3.0)
    theta = neutral.events[neutral.events["mode_before"] == slip.DESCENT]["x"][0, 6]
    res = simulate(model, 3.0, params={"touchdown_policy": 1, "touchdown_fixed_angle": theta})
    td = res.events[(res.events["mode_before"] == slip.DESCENT)]
    assert len(td) >= 3
    assert np.all(td["x"][:, 6] == theta)
    # the symmetric (neutral) angle reproduces the default gait's apexes
    assert np.allclose(slip.apexes(res)["y"], slip.apexes(neutral)["y"][:len(slip.apexes(res))],
                       atol=1e-7)


def test_a_body_starting_on_the_ground_at_its_toe_is_refused_by_name():
    """y = 0 with the leg reaching the ground: the leg has zero length, so its direction (and q̇_r) is
    0/0. It was a numpy RuntimeWarning and a NaN partition; found by random fuzzing of SimSect files."""
    from legsim.errors import InputError

    with pytest.raises(InputError, match=r"initial state y = 0 m: the leg would have zero length"):
        simulate(slip.build_model(), 1.0, x0={"y": 0.0})
