"""Fitting the RATS leg's valve to hop heights (issue 15 "fitting the pneumatic model to hop data"):
``legsim.identify.hop.fit_hop_heights`` and ``legsim fit rats-hop``."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from legsim.cli import main
from legsim.errors import InputError
from legsim.identify.hop import fit_hop_heights
from legsim.robots.pneumatic_rig.hop import PARAM_NAMES, RUBBER_CV_EFFECTIVE, HopBench

MS = np.array([20.0, 25.0, 30.0, 40.0, 50.0])


def _hops(preset, name, value, latency):
    bench = HopBench(preset)
    bench.base[PARAM_NAMES.index(name)] = value
    bench.valve = dataclasses.replace(bench.valve, latency=latency)
    return np.array([bench.fire(m, 0.724e6).height for m in MS])


def test_fit_recovers_the_spool_valve_area_and_latency_from_its_own_hops():
    """Hops made with C_f A_v at 0.8 of Table 5.3's and an 11 ms latency give back both (to 1e-6)."""
    cfa = 0.8 * 0.5378 * 3.2781e-6
    r = fit_hop_heights(MS, _hops("spool", "cfa", cfa, 11e-3), 0.724e6, preset="spool", fit_latency=True)
    assert r["cfa"] == pytest.approx(cfa, rel=1e-6) and r["latency"] == pytest.approx(11e-3, rel=1e-6)
    assert r["rms"] < 1e-6


def test_fit_of_the_rubber_valve_cv_through_the_cli(tmp_path, capsys):
    """``legsim fit rats-hop`` on a CSV of hops made with C_v = 0.07 prints that C_v."""
    h = _hops("rubber", "cv", 0.07, 5e-3)
    log = tmp_path / "hops.csv"
    np.savetxt(log, np.column_stack([MS, h, np.full(MS.size, 0.724e6)]), delimiter=",",
               header="valve_ms,height,p_gauge", comments="")
    assert main(["fit", "rats-hop", str(log), "--preset", "rubber"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cv"] == pytest.approx(0.07, rel=1e-5) and out["n"] == MS.size
    assert out["cv"] != pytest.approx(RUBBER_CV_EFFECTIVE, rel=0.05)


def test_bad_hop_data_names_the_problem():
    with pytest.raises(InputError, match="same number"):
        fit_hop_heights([20, 30], [0.1], 0.7e6)
    with pytest.raises(InputError, match="preset"):
        fit_hop_heights([20], [0.1], 0.7e6, preset="ball")
