"""The split exchange of the assembly (``Robot(exchange=SplitExchange(...))``): Daepp (2011)'s split
Simulink/SrLib architecture (pneumatic digest §7 item 8, A10), with one-way delays of whole controller
ticks and exchange pauses.

On a pendulum driven through the exchange by a Python controller: the encoder reads the angle sent
``delay_up`` packets earlier, the body feels the force sent ``delay_down`` packets earlier (against the
records and the pendulum's own equation of motion), a pause freezes the body while a motor's current keeps
integrating (its closed form), and the exchange resumes with the next packets. Then bad input. (The CRR
leg's ``coupling="cosim"``, tests/test_crr_leg.py, is this exchange; before its hand-written hooks were
removed, the assembled leg reproduced them: vector field to 1.2e-14 relative at 40 random states, sample
steps identical, a 1.5 s Gamma step through a pause to 8.9e-16 rad.)
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.assembly import (
    IMU,
    Contacts,
    DCMotor,
    JointEncoder,
    JointVelocity,
    Robot,
    Rod,
    SplitExchange,
    TorqueSource,
)
from legsim.assembly import _layout as AL
from legsim.errors import InputError
from legsim.hybrid import Options
from legsim.multibody import RobotBuilder

DT = 1e-3


# ------------------------------------------------------------------------------ a pendulum
def in_pause(t, t0, dur):
    """Whether tick t is in the pause [t0, t0 + dur) (1e-9 s tolerance, as the exchange)."""
    return (t >= t0 - 1e-9) & (t < t0 + dur - 1e-9)


M, ELL, I_C, G = 1.0, 0.5, 0.01, 9.81
I_HINGE = I_C + M * ELL**2
R_M, L_M, KT, V_STEP = 2.0, 0.02, 0.05, 6.0


def pendulum():
    """A rod pendulum about the y axis: θ̈ = (τ − m g l sin θ) / (I_c + m l²)."""
    b = RobotBuilder("pendulum", gravity=(0.0, 0.0, -G))
    b.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=M, com=(0, 0, -ELL),
               inertia=(I_C, I_C, I_C))
    return b.compile()


@pytest.fixture(scope="module")
def pendulum_run():
    """A torque source and a DC motor with inductance on the hinge through an exchange (delays 2 up, 1
    down, a 30 ms pause at 50 ms), a Python controller recording what it reads each tick; the motor's
    voltage steps to 6 V at the pause's start."""
    ex = SplitExchange(delay_up=2, delay_down=1, pause_t0=0.05, pause_duration=0.03)
    robot = Robot(pendulum(), control_period=DT, exchange=ex,
                  actuators=[TorqueSource("drive", "hinge"),
                             DCMotor("motor", "hinge", resistance=R_M, torque_constant=KT, inductance=L_M,
                                     v_max=12.0)],
                  sensors=[JointEncoder("enc", joints=["hinge"]), JointVelocity("rate", joints=["hinge"])])
    ticks = []

    def controller(t, s):
        cmd = 0.8 * math.sin(60.0 * t) - 2.0 * s.enc[0]
        volt = V_STEP if t >= ex.pause_t0 - 1e-9 else 0.0
        ticks.append((t, s.enc[0], s.rate[0], s.q[0], s.v[0], cmd, volt))
        return [cmd, volt]

    res = robot.simulate(0.12, controller, q0=[0.4], options=Options(rtol=1e-10, atol=1e-12, h_max=DT,
                                                                     record_period=DT / 4))
    return robot, ex, res, np.array(ticks)


def _col(robot, res, name):
    names = robot.model.state_names
    return res.x[:, names.index(name)] if name in names else res.y[:, robot.model.output_names.index(name)]


def test_the_encoder_reads_the_angle_sent_delay_up_packets_earlier(pendulum_run):
    robot, ex, res, tk = pendulum_run
    t, enc, rate, q, v = tk[:, 0], tk[:, 1], tk[:, 2], tk[:, 3], tk[:, 4]
    paused = in_pause(t, ex.pause_t0, ex.pause_duration)
    assert paused.sum() == 30
    sent = np.flatnonzero(~paused)           # the ticks that moved a packet, in packet order
    for i, n in enumerate(sent):
        src = sent[i - ex.delay_up] if i >= ex.delay_up else None
        assert enc[n] == (q[src] if src is not None else 0.4)
        assert rate[n] == (v[src] if src is not None else 0.0)
    for n in np.flatnonzero(paused):          # held through the pause
        assert enc[n] == enc[sent[sent < n][-1]] and rate[n] == rate[sent[sent < n][-1]]
    assert np.abs(enc - q).max() > 1e-3      # the delay shows
    # the first packet after the pause brings the angle sent delay_up packets before it, from before the
    # pause: the exchange resumed with the next packets, nothing was replayed or skipped
    first = sent[sent > np.flatnonzero(paused)[-1]][0]
    before = sent[sent < first][-ex.delay_up]
    assert t[before] < ex.pause_t0 and enc[first] == q[before]


def test_the_body_feels_the_force_sent_delay_down_packets_earlier(pendulum_run):
    """Between ticks the torque on the hinge is the sum of the two held forces: the torque source's force
    sent delay_down packets earlier (its command then: the controller's of the tick before, not this
    tick's) and the motor's at that packet; the hinge's acceleration in the records is the pendulum's own
    equation of motion with that torque."""
    robot, ex, res, tk = pendulum_run
    t, cmd = tk[:, 0], tk[:, 5]
    paused = in_pause(t, ex.pause_t0, ex.pause_duration)
    sent = np.flatnonzero(~paused)
    mid = np.isclose(np.mod(res.t, DT), DT / 2, atol=1e-12)    # records halfway between ticks
    f_drive = _col(robot, res, "tau_drive")
    n_of = np.floor(res.t / DT + 1e-9).astype(int)
    checked = 0
    for r in np.flatnonzero(mid):
        n = n_of[r]
        i = np.searchsorted(sent, n, side="right") - 1          # the last packet at or before tick n
        if i - ex.delay_down < 0:
            assert f_drive[r] == 0.0                             # nothing arrived yet
            continue
        m = sent[i - ex.delay_down]                              # the tick that sent it
        assert f_drive[r] == (cmd[m - 1] if m >= 1 else 0.0)     # the command held at that tick
        checked += 1
    assert checked > 80
    # the body's acceleration is its equation of motion with the held forces (not the live command)
    xdot = np.zeros(res.x.shape[1])
    names = robot.model.state_names
    worst = 0.0
    for r in np.flatnonzero(mid & (res.t > 0.01) & (res.t < 0.05)):
        robot.model.vector_field(res.t[r], res.x[r], robot.model.param_defaults.copy(), 0, xdot)
        x = res.x[r]
        tau = x[names.index("drive_f_rx")] + x[names.index("motor_f_rx")]
        want = (tau - M * G * ELL * math.sin(x[names.index("hinge")])) / I_HINGE
        worst = max(worst, abs(xdot[names.index("hinge_dot")] - want) / abs(want))
        assert x[names.index("drive_f_rx")] != x[names.index("u_drive")]
    assert worst < 1e-12, worst


def test_a_pause_freezes_the_body_while_the_motor_current_integrates(pendulum_run):
    """During the pause q and v stay exactly at their values at its start, no packet moves, and the motor
    current follows L di/dt = V − R i − k_b ω_rx with ω_rx the held (stale) rate: i = i_ss + (i0 − i_ss)
    exp(−R t / L), i_ss = (V − k_b ω_rx) / R; after it the body moves again."""
    robot, ex, res, tk = pendulum_run
    t0, t1 = ex.pause_t0, ex.pause_t0 + ex.pause_duration
    inside = (res.t > t0 + 1e-9) & (res.t < t1 - 1e-9)
    at0 = np.flatnonzero(np.isclose(res.t, t0, atol=1e-12))[-1]
    q, v = _col(robot, res, "hinge"), _col(robot, res, "hinge_dot")
    assert inside.sum() > 100
    assert np.all(q[inside] == q[at0]) and np.all(v[inside] == v[at0])
    assert np.all(_col(robot, res, "exchange_paused")[inside] == 1.0)
    pk = _col(robot, res, "exchange_packets")
    assert np.all(pk[inside] == pk[at0])
    i = _col(robot, res, "i_motor")
    w_rx = _col(robot, res, "motor_v_rx")[at0]
    i_ss = (V_STEP - KT * w_rx) / R_M
    want = i_ss + (i[at0] - i_ss) * np.exp(-R_M / L_M * (res.t[inside] - t0))
    np.testing.assert_allclose(i[inside], want, rtol=1e-7)
    assert i[inside][-1] - i[at0] > 1.0                     # the current did rise (A)
    after = (res.t > t1 + 2 * DT)
    assert np.abs(q[after] - q[at0]).max() > 1e-4 and np.all(pk[after] > pk[at0])
    assert _col(robot, res, "exchange_paused")[after].max() == 0.0


def test_without_an_exchange_the_robot_has_no_exchange_states_and_its_header_says_so():
    robot = Robot(pendulum(), actuators=[TorqueSource("drive", "hinge")],
                  sensors=[JointEncoder("enc", joints=["hinge"])])
    p = robot.model.param_defaults
    assert p[AL.P_OEX] == -1 and p[AL.P_XEX] == -1
    assert not any("exchange" in s or s.endswith("_rx") for s in robot.model.state_names)
    with_ex = Robot(pendulum(), actuators=[TorqueSource("drive", "hinge")],
                    sensors=[JointEncoder("enc", joints=["hinge"])], exchange=SplitExchange(1, 0))
    q = with_ex.model.param_defaults
    np.testing.assert_array_equal(q[int(q[AL.P_OEX]):int(q[AL.P_OEX]) + AL.EXW], [1, 0, 0.0, 0.0])
    assert with_ex.model.state_names[int(q[AL.P_XEX])] == "exchange_paused"


def test_initial_state_holds_the_initial_joint_state_in_every_packet():
    robot = Robot(pendulum(), actuators=[TorqueSource("drive", "hinge")], exchange=SplitExchange(3, 3))
    x = robot.initial_state(q0=[0.3], v0=[-1.5])
    names = robot.model.state_names
    got = {s: x[names.index(s)] for s in names if "exchange" in s or s.endswith("_rx")}
    for slot in range(AL.EX_DMAX):
        assert got[f"exchange_up{slot}_drive_q"] == 0.3 and got[f"exchange_up{slot}_drive_v"] == -1.5
        assert got[f"exchange_down{slot}_drive"] == 0.0
    assert (got["drive_q_rx"], got["drive_v_rx"], got["drive_f_rx"]) == (0.3, -1.5, 0.0)
    assert got["exchange_packets"] == 0.0 and got["exchange_paused"] == 0.0


# ------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, words", [
    ({"delay_up": 4}, ["'delay_up' = 4", "[0, 3]"]),
    ({"delay_down": -1}, ["'delay_down' = -1", "whole number"]),
    ({"delay_up": 1.5}, ["'delay_up' = 1.5", "whole number"]),
    ({"delay_down": "2"}, ["'delay_down' = '2'"]),
    ({"delay_up": True}, ["'delay_up' = True"]),
    ({"pause_duration": -0.01}, ["'pause_duration' = -0.01", "[0, inf]"]),
    ({"pause_t0": -1.0}, ["'pause_t0' = -1.0", "[0, inf]"]),
    ({"pause_t0": math.nan}, ["'pause_t0' = nan"]),
])
def test_bad_exchange_settings_raise_input_errors_naming_the_value(kwargs, words):
    with pytest.raises(InputError) as err:
        SplitExchange(**kwargs)
    for w in words:
        assert w in str(err.value)
    assert "SplitExchange" in str(err.value)


def test_an_exchange_refuses_rods_unactuated_joints_body_sensors_and_other_objects():
    two = RobotBuilder("two", gravity=(0.0, 0.0, 0.0))
    two.add_body("a", "world", "revolute", joint_name="ja", axis=(0, 1, 0), mass=1.0, com=(0, 0, -0.5),
                 inertia=(0.01, 0.01, 0.01))
    two.add_body("b", "a", "revolute", joint_name="jb", xyz=(0, 0, -1), axis=(0, 1, 0), mass=1.0,
                 com=(0, 0, -0.5), inertia=(0.01, 0.01, 0.01))
    mb = two.compile()
    ex = SplitExchange(1, 1)
    rod = Rod("a", (0, 0, -0.2), "b", (0, 0, -0.2))
    with pytest.raises(InputError, match=r"TorqueSource 'push': on rod a-b: .*must drive a joint, not a Rod"):
        Robot(mb, actuators=[TorqueSource("push", rod)], exchange=ex)
    with pytest.raises(InputError, match=r"JointEncoder 'enc': joint 'jb' is driven by no actuator"):
        Robot(mb, actuators=[TorqueSource("ta", "ja")], sensors=[JointEncoder("enc", joints=["ja", "jb"])],
              exchange=ex)
    with pytest.raises(InputError, match=r"JointVelocity 'w': joint 'jb' is driven by no actuator"):
        Robot(mb, actuators=[TorqueSource("ta", "ja")], sensors=[JointVelocity("w", joints=["jb"])],
              exchange=ex)
    with pytest.raises(InputError, match=r"IMU 'imu': under a SplitExchange .* reads the bodies"):
        Robot(mb, actuators=[TorqueSource("ta", "ja")], sensors=[IMU("imu", body="b")], exchange=ex)
    with pytest.raises(InputError, match=r"SplitExchange needs at least one actuator"):
        Robot(mb, exchange=ex)
    with pytest.raises(InputError, match=r"exchange = \(1, 1\), expected a legsim.assembly.SplitExchange"):
        Robot(mb, actuators=[TorqueSource("ta", "ja")], exchange=(1, 1))
    # without the exchange the same parts are fine
    Robot(mb, actuators=[TorqueSource("push", rod)], sensors=[JointEncoder("enc", joints=["jb"])])


# -------------------------------------------------------------------------------- hardware files
PENDULUM_TOML = """
control_period = 0.001
[actuators.drive]
type = "TorqueSource"
joint = "hinge"
[sensors.enc]
type = "JointEncoder"
joints = ["hinge"]
[exchange]
"""


def test_a_hardware_file_declares_the_exchange_and_its_mistakes_name_the_table():
    from legsim.assembly.hardware import describe, parse_hardware

    text = PENDULUM_TOML + "delay_up = 1\ndelay_down = 2\npause_t0 = 0.55\npause_duration = 0.09\n"
    robot = parse_hardware(text, "pendulum_hardware.toml", model=pendulum())
    assert robot.exchange == SplitExchange(1, 2, 0.55, 0.09)
    assert describe(robot)["exchange"] == {"delay_up": 1, "delay_down": 2, "pause_t0": 0.55,
                                           "pause_duration": 0.09}
    p = robot.model.param_defaults
    np.testing.assert_array_equal(p[int(p[AL.P_OEX]):int(p[AL.P_OEX]) + AL.EXW], [1, 2, 0.55, 0.09])
    none = parse_hardware(PENDULUM_TOML.replace("[exchange]\n", ""), "p.toml", model=pendulum())
    assert none.exchange is None and none.model.param_defaults[AL.P_OEX] == -1
    for body, words in (("delay_up = 5\n", ["pendulum_hardware.toml [exchange]: SplitExchange: "
                                            "'delay_up' = 5", "[0, 3]"]),
                        ("delay_up = 1.5\n", ["[exchange]: delay_up = 1.5: expected a whole number"]),
                        ("pause_duration = -1\n", ["[exchange]: SplitExchange: 'pause_duration' = -1.0"]),
                        ("delay = 1\n", ["[exchange]: unknown SplitExchange key 'delay'", "delay_up"])):
        with pytest.raises(InputError) as err:
            parse_hardware(PENDULUM_TOML + body, "pendulum_hardware.toml", model=pendulum())
        for w in words:
            assert w in str(err.value)
    with pytest.raises(InputError, match=r"p.toml: exchange = 3: expected a table \(\[exchange\]"):
        parse_hardware("exchange = 3\n" + PENDULUM_TOML.replace("[exchange]\n", ""), "p.toml",
                       model=pendulum())


def test_the_event_contact_path_runs_through_an_exchange_and_a_pause_freezes_the_touching_body():
    """A slider with a foot (a prismatic leg held by a PD through the exchange) dropped 3 cm onto the
    ground on the event path: the touchdown is located where the free fall puts it (the leg at its
    target, no internal force: t = √(2 h / g)), and during the pause the body stays frozen in contact
    (its coordinates exactly constant, the contact bit set, no event)."""
    from legsim.contact import ContactLaw, Plane
    from legsim.contact.laws import coulomb, kelvin_voigt

    b = RobotBuilder("foot_drop", gravity=(0.0, 0.0, -G))
    b.add_body("slider", "world", "prismatic", joint_name="z", axis=(0, 0, 1), mass=1.0, inertia=(1e-3,) * 3)
    b.add_body("foot", "slider", "prismatic", joint_name="leg", axis=(0, 0, 1), mass=0.1,
               inertia=(1e-4,) * 3)
    b.add_geometry("foot", "sphere", radius=0.02, name="ball")
    ex = SplitExchange(1, 2, 0.3, 0.05)
    robot = Robot(b.compile(), actuators=[TorqueSource("push", "leg")], exchange=ex,
                  sensors=[JointEncoder("enc", joints=["leg"]), JointVelocity("rate", joints=["leg"])],
                  contacts=Contacts(ContactLaw(kelvin_voigt(2e4, 50.0), coulomb(0.5, 1e-3)), ground=Plane(),
                                    path="event"))
    res = robot.simulate(0.6, lambda t, s: [500.0 * (-0.05 - s.enc[0]) - 10.0 * s.rate[0]], q0=[0.1, -0.05],
                         options=Options(rtol=1e-9, atol=1e-11, record_period=1e-3), progress=False)
    assert res.status == "done"
    touchdown = [g.name for g in robot.model.guards].index("touchdown_ball")
    t_down = res.events["t"][res.events["guard"] == touchdown]
    assert t_down[0] == pytest.approx(math.sqrt(2.0 * 0.03 / G), abs=1e-6)
    paused = res.state("exchange_paused") > 0.5
    assert paused.sum() == 50
    for name in ("z", "leg", "exchange_packets"):
        assert np.ptp(res.state(name)[paused]) == 0.0, name
    assert np.all(res.mode[paused] == 1)                                    # touching throughout
    assert not np.any((res.events["t"] > ex.pause_t0) & (res.events["t"] < ex.pause_t0 + ex.pause_duration))
