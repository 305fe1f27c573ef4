"""General least-squares fit of model parameters to a measured log, through the hybrid engine."""

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.identify import fit_parameters
from legsim.robots.pneumatic_rig.hop import HopBench


def _cylinder_pressure_trace(bench, t_grid, **params):
    b = HopBench("spool", **params) if params else bench
    res = b.fire(40, 0.724e6, t_flight=0.05).result
    return np.interp(t_grid, res.t, res.x[:, 3])


def test_valve_area_and_friction_of_the_hop_bench_are_recovered_from_a_noisy_pressure_log():
    truth = {"cfa": 1.763e-6, "f_f": 9.7003}
    t = np.arange(0.0, 0.09, 5e-4)
    clean = _cylinder_pressure_trace(None, t, **truth)
    rng = np.random.default_rng(7)
    measured = clean + 2e3 * rng.standard_normal(t.size)      # 2 kPa sensor noise

    def predict(p):
        return _cylinder_pressure_trace(None, t, cfa=p["cfa"], f_f=p["f_f"])

    fit = fit_parameters(predict, measured, start={"cfa": 1.4e-6, "f_f": 12.0},
                         bounds={"cfa": (1e-7, 1e-5), "f_f": (0.0, 50.0)}, scale=2e3,
                         x_scale=[1e-6, 1.0], diff_step=1e-4)
    assert fit.success
    assert fit.params["cfa"] == pytest.approx(truth["cfa"], rel=0.02)
    assert fit.params["f_f"] == pytest.approx(truth["f_f"], rel=0.15)
    assert fit.rms == pytest.approx(1.0, rel=0.2)   # residual at the noise level


def test_fit_parameters_rejects_bounds_for_parameters_not_being_fitted():
    with pytest.raises(InputError, match="'k'"):
        fit_parameters(lambda p: np.zeros(3), np.zeros(3), start={"a": 1.0}, bounds={"k": (0, 1)})
