"""T12 (issue 15; digest §3.3, E11-E13): straight-line open-loop tipping from one 0.689 MPa charge on the
full RATS (rubber-seat valves, tipping contact set), legs chosen by the planner, valve times from the
(6.6) power law fitted to this robot's own thresholds (E6 on the simulation, as the thesis fitted its
legs), with and without gas-depletion compensation (§3.3)."""

from __future__ import annotations

import numpy as np
import pytest

from legsim.robots.rats.experiments import SIM_TIP_MODEL, SIM_TIP_MODEL_SPOOL, tip_threshold
from legsim.robots.rats.geometry import RatsDims
from legsim.validation import rats as case  # measurements shared with `legsim report`


@pytest.mark.parametrize("valve, p_mpa, threshold", [("rubber", 0.3, 32), ("rubber", 0.689, 20),
                                                      ("spool", 0.3, 38), ("spool", 0.689, 26)])
def test_fitted_tip_model_matches_the_robots_thresholds(valve, p_mpa, threshold):
    """SIM_TIP_MODEL (SIM_TIP_MODEL_SPOOL) is the (6.6) fit of calibrate_tip_model with the rubber-seat
    (spool) valves: at two of the calibration pressures the robot's bisected threshold (E6) is as
    recorded, and the model's time, rounded up as the thesis does, is that threshold or 1 ms more (the
    fits are within 0.25 and 0.31 ms of the thresholds)."""
    model = SIM_TIP_MODEL if valve == "rubber" else SIM_TIP_MODEL_SPOOL
    assert tip_threshold(p_mpa * 1e6, valve=valve) == threshold
    assert threshold <= model.duration_ms(0, p_mpa) <= threshold + 1


def test_range_with_and_without_compensation():
    """T12. With compensation: 160 +- 30 tips before the first failed tip (measured 169). Without
    (fixed times from the full charge): failure within 30-65 tips (measured 36, 4.5 m since
    session 44; 38, 4.7 m from session 21 and 36 before: the fixed-time run is sensitive to round-off).

    Both runs add a 2 ms margin to (6.6): the thesis's thresholds were the shortest firings that tip
    9 times in 10 over the hardest of a leg's 5 edges, a margin above the bare threshold that this
    deterministic, symmetric robot does not have (its (6.6) fit is within 0.2 ms of the bare
    thresholds). Without the margin the fixed 20 ms fails at tip 11 (the tank falls 0.46 % a tip,
    the threshold passes 20 ms at 0.65 MPa); with 2 ms, (6.6) predicted failure near tip 36 before
    the run (threshold 22 ms at 0.56 MPa).

    Not met: the distance, 17 +- 3 m in the source (0.106 m a tip). Ours covers 20.7 m (0.1225 m a
    tip, about the 0.1214 m lattice step). On this line the planner's stances, pure reflections, advance
    0.0927 m a tip (0.76 of the step: 15.7 m for 169 tips); the rest is slip: each tip here is a short
    hop that carries the robot past the reflected stance centre (by SIM_TIP_SLIP = 4.9 cm, 3.8 cm at the
    bare threshold; the pivot feet unload 15 ms after the command and the robot flies for ~90 ms;
    test_rats_robot.test_long_firing_is_a_hop). The source's 0.106 m a tip corresponds to about 2.2 cm
    of slip in this geometry: its tips hopped less than this model's (session 25's note)."""
    comp, fixed = case.range_runs()  # compensate=True / False, margin_ms=2
    assert comp.failed and 130 <= comp.tips <= 190, comp.tips
    assert fixed.failed and 30 <= fixed.tips <= 65 and fixed.distance <= 6.5, (fixed.tips, fixed.distance)
    step = RatsDims().lattice_step
    per_tip = comp.distance / comp.tips
    assert 0.95 * step <= per_tip <= 1.05 * step, per_tip / step
    # compensation follows the tank: the estimate stays within 0.03 MPa of the simulated pressure
    assert np.abs(comp.p_estimate - comp.p_true).max() < 0.03
    assert np.all(np.diff(comp.durations) >= 0) and comp.durations[-1] > 2 * comp.durations[0]
