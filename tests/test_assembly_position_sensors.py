"""Incremental encoders and limit switches on assembled robots (issue 17: ROTTO's drives have an encoder and
limit switches; "incremental encoders"). Each reads a joint's position or an actuator's (its joint, or its
rod's length). Expected values are computed here from the recorded positions, independently of the kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import InputError


def _rail():
    """A slider on a frictionless horizontal rail (no gravity): it coasts at its initial speed."""
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("rail", gravity=(0.0, 0.0, 0.0))
    b.add_body("slider", "world", "prismatic", axis=(1, 0, 0), mass=1.0, inertia=np.eye(3) * 1e-3)
    return b.compile()


def _col(res, robot, name):
    names = robot.model.state_names
    return res.x[:, names.index(name)] if name in names else res.y[:, robot.model.output_names.index(name)]


def _coast(sensors, s0=0.01234, v0=0.05, t=0.2):
    from legsim.assembly import Robot, TorqueSource
    from legsim.hybrid import Options

    robot = Robot(_rail(), actuators=[TorqueSource("f", "slider")], sensors=sensors, control_period=1e-3)
    res = robot.simulate(t, q0=[s0], v0=[v0], commands0=[0.0], options=Options(record_period=1e-3))
    return robot, res


def test_an_incremental_encoder_counts_the_edges_passed_since_its_first_sample():
    from legsim.assembly import IncrementalEncoder

    k = 4 * 500 / 0.004  # 500 lines in quadrature per 4 mm of travel [counts/m]
    robot, res = _coast([IncrementalEncoder("enc", joints=["slider"], counts_per_unit=k)])
    s = _col(res, robot, "slider")
    counts = _col(res, robot, "enc_slider")
    want = np.floor(k * s) - math.floor(k * s[0])
    np.testing.assert_array_equal(counts, want)                 # whole counts, 0 at power-on
    assert counts[0] == 0.0 and counts[-1] == pytest.approx(k * 0.05 * 0.2, abs=1.0)   # 5000 counts
    np.testing.assert_allclose(_col(res, robot, "true_enc_slider"), k * s - math.floor(k * s[0]), atol=1e-6)
    assert "_enc_slider_zero" in robot.model.state_names
    assert _col(res, robot, "_enc_slider_zero")[-1] == math.floor(k * s[0])


def test_a_limit_switch_is_pressed_exactly_beyond_its_trip_position_on_its_side():
    from legsim.assembly import LimitSwitch

    robot, res = _coast([LimitSwitch("end", joints=["slider"], positions=0.02),
                         LimitSwitch("start", joints=["slider"], positions=[0.015], side="lower")])
    s = _col(res, robot, "slider")
    np.testing.assert_array_equal(_col(res, robot, "end_slider"), (s >= 0.02).astype(float))
    np.testing.assert_array_equal(_col(res, robot, "start_slider"), (s <= 0.015).astype(float))
    assert 0 < np.argmax(s >= 0.02) < len(s) - 1                # it really crosses the switch


def test_homing_on_a_limit_switch_turns_the_relative_count_into_an_absolute_position():
    """What the pair is for: a controller drives until the switch presses, takes the count there as the
    switch's position, then reads absolute positions from the count alone."""
    from legsim.assembly import IncrementalEncoder, LimitSwitch, Robot, VelocityServo
    from legsim.hybrid import Options

    k, trip = 1e5, 0.03
    robot = Robot(_rail(), actuators=[VelocityServo("v", "slider", kv=50.0, effort=100.0)],
                  sensors=[IncrementalEncoder("enc", joints=["slider"], counts_per_unit=k),
                           LimitSwitch("home", joints=["slider"], positions=trip)], control_period=1e-3)
    state = {"home": None}

    def controller(t, s):
        if state["home"] is None and s.home[0] == 1.0:
            state["home"] = s.enc[0]                            # the count at the switch
        return [0.05 if state["home"] is None else 0.0]

    res = robot.simulate(1.0, controller, q0=[0.0123], options=Options(record_period=1e-3))
    assert state["home"] is not None
    estimate = trip + (_col(res, robot, "enc_slider")[-1] - state["home"]) / k
    # error: one count, plus the travel in the 1 ms before the switch was read (<= 0.05 mm at 50 mm/s)
    assert abs(estimate - _col(res, robot, "slider")[-1]) <= 1.0 / k + 0.05 * 1e-3


def test_on_a_rod_actuator_both_read_the_rods_length():
    from legsim.assembly import IncrementalEncoder, LimitSwitch, Robot, Rod, TorqueSource
    from legsim.hybrid import Options
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("arm", gravity=(0.0, 0.0, 0.0))
    b.add_body("link", "world", "revolute", axis=(0, 0, 1), mass=1.0, com=(0.2, 0, 0),
               inertia=np.eye(3) * 1e-2)
    rod = Rod("world", (0.0, -0.1, 0.0), "link", (0.2, 0.0, 0.0))
    k = 2e4
    robot = Robot(b.compile(), actuators=[TorqueSource("push", rod)],
                  sensors=[IncrementalEncoder("enc", actuators=["push"], counts_per_unit=k),
                           LimitSwitch("stop", actuators=["push"], positions=0.25)], control_period=1e-3)
    res = robot.simulate(0.3, q0=[0.0], v0=[2.0], commands0=[0.0], options=Options(record_period=1e-3))
    th = _col(res, robot, "link")
    length = np.hypot(0.2 * np.cos(th), 0.2 * np.sin(th) + 0.1)
    np.testing.assert_array_equal(_col(res, robot, "enc_push"),
                                  np.floor(k * length) - math.floor(k * length[0]))
    np.testing.assert_array_equal(_col(res, robot, "stop_push"), (length >= 0.25).astype(float))
    assert _col(res, robot, "stop_push").max() == 1.0 and _col(res, robot, "stop_push")[0] == 0.0


def test_bad_position_sensors_are_refused_with_the_name_and_value():
    from legsim.assembly import IncrementalEncoder, LimitSwitch, Robot, TorqueSource

    with pytest.raises(InputError, match=r"IncrementalEncoder 'e': joints = \['a'\], actuators = \['b'\]"):
        IncrementalEncoder("e", joints=["a"], actuators=["b"], counts_per_unit=1.0)
    with pytest.raises(InputError, match=r"LimitSwitch 's': joints = \(\), actuators = \(\)"):
        LimitSwitch("s", positions=0.1)
    with pytest.raises(InputError, match="counts_per_unit"):
        IncrementalEncoder("e", joints=["slider"])
    with pytest.raises(InputError, match="side = 'left', expected one of upper, lower"):
        LimitSwitch("s", joints=["slider"], side="left")
    with pytest.raises(InputError, match=r"positions = \[0.1, 0.2\], expected a finite number or one per "
                                         r"name \(1\)"):
        LimitSwitch("s", joints=["slider"], positions=[0.1, 0.2])
    with pytest.raises(InputError, match="joint 'knee' does not exist"):
        Robot(_rail(), actuators=[TorqueSource("f", "slider")],
              sensors=[LimitSwitch("s", joints=["knee"], positions=0.1)])
    with pytest.raises(InputError, match="actuator 'g'"):
        Robot(_rail(), actuators=[TorqueSource("f", "slider")],
              sensors=[IncrementalEncoder("e", actuators=["g"], counts_per_unit=10.0)])


def test_a_hardware_file_declares_them():
    from legsim.assembly.hardware import parse_hardware, parse_parts

    text = """
[actuators.f]
type = "TorqueSource"
joint = "slider"

[sensors.enc]
type = "IncrementalEncoder"
actuators = "all"
counts_per_unit = 1e5

[sensors.home]
type = "LimitSwitch"
joints = ["slider"]
positions = 0.02
side = "lower"
"""
    enc, home = parse_parts(text, "rail.toml", model=_rail()).sensors
    assert (enc.actuators, enc.counts_per_unit) == (("f",), 1e5)
    assert (home.joints, home.positions, home.side) == (("slider",), (0.02,), "lower")
    robot = parse_hardware(text, "rail.toml", model=_rail())
    assert [c.labels for c in robot.channels] == [("f",), ("slider",)]
    with pytest.raises(InputError, match=r"rail.toml \[sensors.home\].*side = 'middle'"):
        parse_parts(text.replace('"lower"', '"middle"'), "rail.toml", model=_rail())


def test_a_run_continued_from_a_final_state_keeps_counting_from_the_same_zero():
    """The zero count is a state set from the initial position (``Robot.initial_state``), not at a run's
    first sample: continuing with ``x0 = res.x[-1]`` keeps the count (a first version restarted at 0)."""
    from legsim.assembly import IncrementalEncoder
    from legsim.hybrid import Options

    k, s0 = 1e5, 0.01234
    robot, first = _coast([IncrementalEncoder("enc", joints=["slider"], counts_per_unit=k)], s0=s0, t=0.1)
    rest = robot.simulate(0.2, x0=first.x[-1], t0=first.t[-1], options=Options(record_period=1e-3))
    counts = _col(rest, robot, "enc_slider")
    assert counts[0] == _col(first, robot, "enc_slider")[-1] == pytest.approx(500.0, abs=1.0)
    np.testing.assert_array_equal(counts, np.floor(k * _col(rest, robot, "slider")) - math.floor(k * s0))
