"""The split exchange of the assembly (``Robot(exchange=SplitExchange(...))``): Daepp (2011)'s split
Simulink/SrLib architecture (pneumatic digest §7 item 8, A10), with one-way delays of whole controller
ticks and exchange pauses.

Two kinds of checks. (1) The CRR leg assembled from parts with an exchange against the hand-written
leg (``robots.crr_leg._hooks``, ``coupling="cosim"``), the reference the assembled leg must reproduce:
the vector field and one sample step at random states to 1e-12, whole trajectories within the
integrator's tolerance. (2) Checks that need no old hooks, on a pendulum driven through the exchange
by a Python controller: the encoder reads the angle sent ``delay_up`` packets earlier, the body feels
the force sent ``delay_down`` packets earlier (against the records and the pendulum's own equation of
motion), a pause freezes the body while a motor's current keeps integrating (its closed form), and the
exchange resumes with the next packets. Then bad input.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.assembly import (
    IMU,
    ChamberPressure,
    DCMotor,
    JointEncoder,
    JointVelocity,
    PneumaticCylinder,
    Robot,
    Rod,
    SplitExchange,
    TorqueSource,
)
from legsim.assembly import _layout as AL
from legsim.errors import InputError
from legsim.hybrid import Options, simulate
from legsim.multibody import RobotBuilder
from legsim.robots.crr_leg import JOINTS, JointReference, LegBench, control, crr_leg_bodies
from legsim.robots.crr_leg import _hooks as LH
from legsim.robots.crr_leg.geometry import JOINT_LIMITS

D_UP, D_DOWN = 1, 2
PAUSE_T0, PAUSE_DUR = 0.55, 0.09
DT = 1e-3


# ------------------------------------------------------------------------ (1) the assembled CRR leg
class AssembledLeg:
    """The CRR leg from parts with the exchange, and the old leg (``LegBench(coupling="cosim")``) with the
    same delays and pause; ``to_new`` maps an old state to the new layout."""

    def __init__(self):
        self.bench = LegBench(coupling="cosim", delay_up=D_UP, delay_down=D_DOWN, pause_t0=PAUSE_T0,
                              pause_duration=PAUSE_DUR)
        b = self.bench
        self.robot = Robot(
            crr_leg_bodies(), control_period=DT,
            actuators=[PneumaticCylinder(j, j, a, k) for j, a, k in zip(JOINTS, b.actuators, b.linkages,
                                                                         strict=True)],
            sensors=[JointEncoder("angles", joints=JOINTS), ChamberPressure("pressures", actuators=JOINTS)],
            exchange=SplitExchange(D_UP, D_DOWN, PAUSE_T0, PAUSE_DUR))
        channel = {c.name: c.start for c in self.robot.channels}
        blocks = b.model.param_defaults[LH.O_J:LH.O_J + 3 * LH.NJ].reshape(3, LH.NJ)   # as the quadruped
        cparams = control.controller_params(blocks, [a.row() for a in b.actuators], DT, channel["angles"],
                                            channel["pressures"])
        self.model = self.robot.with_compiled_controller(control.joint_pid, cparams,
                                                         control.initial_memory(3))
        self.ocp = self.robot.model.param_defaults.size
        self.xm = self.robot.model.state_defaults.size
        n = {s: i for i, s in enumerate(self.model.state_names)}
        self.n = n
        self.q = np.array([n[j] for j in JOINTS])
        self.v = np.array([n[f"{j}_dot"] for j in JOINTS])
        self.gas = np.array([n[f"{j}_{g}"] for j in JOINTS for g in ("p_cap", "p_rod", "m_cap", "m_rod",
                                                                     "m_supply")])
        self.u = np.array([n[f"u_{j}"] for j in JOINTS])
        self.rx = {k: np.array([n[f"{j}_{k}_rx"] for j in JOINTS]) for k in "qvf"}
        self.up = np.array([[n[f"exchange_up{s}_{j}_{k}"] for k in "qv" for j in JOINTS]
                            for s in range(AL.EX_DMAX)])
        self.down = np.array([[n[f"exchange_down{s}_{j}"] for j in JOINTS] for s in range(AL.EX_DMAX)])
        self.mem = {g: self.xm + control.memory_offset(3, g) + np.arange(3)
                    for g in (control.M_INTEG, control.M_EPREV, control.M_REF, control.M_FPREV)}

    def params(self, refs):
        """(old p, new p) with the three joint references written in."""
        p = self.model.param_defaults.copy()
        for j, r in enumerate(refs):
            r.write(p, self.ocp + control.block_offset(j))
        return self.bench.params(refs), p

    def to_new(self, xo, mode, ticks):
        """The new layout's state of the old state ``xo`` in ``mode``, the controller after ``ticks``."""
        x = self.model.state_defaults.copy()
        x[self.q], x[self.v] = xo[LH.Q:LH.Q + 3], xo[LH.V:LH.V + 3]
        x[self.gas] = xo[LH.GAS:LH.GAS + 15]
        x[self.u] = xo[LH.U:LH.U + 3]
        for k, o in (("q", LH.QRX), ("v", LH.VRX), ("f", LH.TRX)):
            x[self.rx[k]] = xo[o:o + 3]
        x[self.up] = xo[LH.RING_UP:LH.RING_UP + 6 * LH.DMAX].reshape(LH.DMAX, 6)
        x[self.down] = xo[LH.RING_DN:LH.RING_DN + 3 * LH.DMAX].reshape(LH.DMAX, 3)
        x[self.n["exchange_packets"]] = xo[LH.PKT]
        x[self.n["exchange_paused"]] = 1.0 if mode == LH.PAUSED else 0.0
        x[self.xm + control.M_TICKS] = ticks
        for g, o in ((control.M_INTEG, LH.INTEG), (control.M_EPREV, LH.EPREV), (control.M_REF, LH.REF),
                     (control.M_FPREV, LH.FPREV)):
            x[self.mem[g]] = xo[o:o + 3]
        return x

    def random_old_state(self, rng):
        """An old state with every joint, rate, pressure, mass, voltage, held packet, ring slot, packet
        count and controller memory different."""
        lim = np.array(JOINT_LIMITS)
        xo = self.bench.initial_state(rng.uniform(lim[:, 0] + 0.05, lim[:, 1] - 0.05))
        xo[LH.V:LH.V + 3] = rng.normal(0.0, 1.0, 3)
        for j in range(3):
            g = LH.GAS + 5 * j
            xo[g:g + 2] = rng.uniform(1.5e5, 4.4e5, 2)
            xo[g + 2:g + 4] *= rng.uniform(0.5, 2.0, 2)
        xo[LH.U:LH.U + 3] = rng.uniform(0.0, 10.0, 3)
        xo[LH.QRX:LH.QRX + 3] = xo[LH.Q:LH.Q + 3] + rng.normal(0.0, 0.02, 3)
        xo[LH.VRX:LH.VRX + 3] = rng.normal(0.0, 1.0, 3)
        xo[LH.TRX:LH.TRX + 3] = rng.normal(0.0, 5.0, 3)
        ring = xo[LH.RING_UP:LH.RING_UP + 6 * LH.DMAX].reshape(LH.DMAX, 6)
        ring[:, :3] = xo[LH.Q:LH.Q + 3] + rng.normal(0.0, 0.02, (LH.DMAX, 3))
        ring[:, 3:] = rng.normal(0.0, 1.0, (LH.DMAX, 3))
        xo[LH.RING_UP:LH.RING_UP + 6 * LH.DMAX] = ring.ravel()
        xo[LH.RING_DN:LH.RING_DN + 3 * LH.DMAX] = rng.normal(0.0, 5.0, 3 * LH.DMAX)
        xo[LH.PKT] = rng.integers(3, 900)
        xo[LH.INTEG:LH.INTEG + 3] = rng.normal(0.0, 0.05, 3)
        xo[LH.EPREV:LH.EPREV + 3] = rng.normal(0.0, 0.05, 3)
        xo[LH.FPREV:LH.FPREV + 3] = rng.normal(0.0, 30.0, 3)
        return xo


def gamma_step():
    """Hold Alpha and Beta, step Gamma 30 -> 70 deg at 0.2 s (a Gamma step test, digest §6)."""
    return [JointReference.hold(math.radians(10.0)), JointReference.hold(math.radians(-30.0)),
            JointReference(steps=((0.0, math.radians(30.0)), (0.2, math.radians(70.0))))]


def in_pause(t, t0=PAUSE_T0, dur=PAUSE_DUR):
    """Whether tick t is in the pause [t0, t0 + dur) (1e-9 s tolerance, as the exchange)."""
    return (t >= t0 - 1e-9) & (t < t0 + dur - 1e-9)


@pytest.fixture(scope="module")
def leg():
    return AssembledLeg()


@pytest.mark.parametrize("mode", [LH.COSIM, LH.PAUSED])
def test_the_assembled_leg_has_the_old_cosim_leg_vector_field_and_outputs(leg, mode):
    """At random states, exchanging and paused: q, v and chamber rates equal to 1e-12 of each group's
    largest rate; the applied torque output is the held one and the piston outputs are at the held
    packet (old outputs: torque, force, x)."""
    rng = np.random.default_rng(3)
    po, pn = leg.params(gamma_step())
    yn_names = leg.model.output_names
    for _ in range(5):
        xo = leg.random_old_state(rng)
        xn = leg.to_new(xo, mode, 10)
        t = float(rng.uniform(0.0, 1.5))
        fo, fn = np.zeros(LH.NX), np.zeros(xn.size)
        LH.vector_field(t, xo, po, mode, fo)
        leg.model.vector_field(t, xn, pn, 0, fn)
        for old, new in ((slice(LH.Q, LH.Q + 3), leg.q), (slice(LH.V, LH.V + 3), leg.v),
                         (slice(LH.GAS, LH.GAS + 15), leg.gas)):
            scale = np.abs(fo[old]).max()
            if mode == LH.PAUSED and new is not leg.gas:
                np.testing.assert_array_equal(fn[new], 0.0)          # the body frozen
                assert scale == 0.0
            else:
                assert scale > 0.0
                assert np.abs(fn[new] - fo[old]).max() <= 1e-12 * scale   # measured 1.2e-14 rel at most
        yo, yn = np.zeros(12), np.zeros(len(yn_names))
        LH.outputs(t, xo, po, mode, yo)
        leg.model.outputs(t, xn, pn, 0, yn)
        for j, name in enumerate(JOINTS):
            assert yn[yn_names.index(f"tau_{name}")] == xo[LH.TRX + j]
            assert yn[yn_names.index(f"piston_force_{name}")] == pytest.approx(yo[6 + j], rel=1e-12, abs=1e-9)
            assert yn[yn_names.index(f"piston_x_{name}")] == pytest.approx(yo[9 + j], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("t, k", [(0.3, 300), (0.56, 560), (PAUSE_T0 + PAUSE_DUR, 640), (0.002, 2)])
def test_one_sample_step_holds_the_same_packets_forces_and_commands_as_the_old_leg(leg, t, k):
    """One 1 kHz tick from the same state (exchanging, inside the pause, the tick the exchange resumes,
    an early tick): the paused flag, held q_rx, v_rx, f_rx, both rings, the packet count, the encoder
    reading (= q_rx), the valve commands and the controller's integral, error, reference and pressure
    force all equal the old sample's."""
    rng = np.random.default_rng(k)
    po, pn = leg.params(gamma_step())
    xo = leg.random_old_state(rng)
    mode = LH.PAUSED if in_pause(t - DT) else LH.COSIM
    xn = leg.to_new(xo, mode, k)
    xo_new, xn_new = xo.copy(), xn.copy()
    mode_new = LH.sample(t, xo, po, mode, k, xo_new)
    leg.model.sample(t, xn, pn, 0, k, xn_new)
    paused = in_pause(t)
    assert mode_new == (LH.PAUSED if paused else LH.COSIM)
    assert xn_new[leg.n["exchange_paused"]] == float(paused)
    assert (xn_new[leg.n["exchange_packets"]] == xn[leg.n["exchange_packets"]]) == paused
    want = leg.to_new(xo_new, mode_new, k + 1)
    for idx in (leg.rx["q"], leg.rx["v"], leg.rx["f"], leg.up, leg.down, leg.u,
                [leg.n["exchange_packets"]], *leg.mem.values()):
        np.testing.assert_array_equal(xn_new[idx], want[idx])
    angles = [leg.n[f"angles_{j}"] for j in JOINTS]
    np.testing.assert_array_equal(xn_new[angles], xo_new[LH.QRX:LH.QRX + 3])
    if not paused:   # the force sent is the old joint_torque at the new held packet, and it moved
        np.testing.assert_array_equal(xn_new[leg.down[int(xo[LH.PKT]) % LH.DMAX]],
                                      [LH.joint_torque(po, xo, j, xo_new[LH.QRX + j], xo_new[LH.VRX + j])
                                       for j in range(3)])
        assert not np.array_equal(xn_new[leg.rx["f"]], xn[leg.rx["f"]])


def test_a_gamma_step_with_a_pause_follows_the_old_cosim_leg(leg):
    """1.5 s of a Gamma step (30 -> 70 deg at 0.2 s) with a 90 ms exchange pause at 0.55 s, DP45 rtol
    1e-6 (the bench's options) on both: the joint angles agree within 1e-6 rad (measured 8.9e-16 rad, cap
    pressures 1.8e-15 relative: both runs take the same 1501 steps, none rejected), the pause froze the
    leg, and the Gamma joint did step (41 deg)."""
    refs = gamma_step()
    old = leg.bench.run(refs, 1.5)
    po, pn = leg.params(refs)
    import dataclasses
    model = dataclasses.replace(leg.model, param_defaults=pn)
    x0 = leg.robot.initial_state([float(r.values_at(0.0)) for r in refs], commands0=[leg.bench.u_bias] * 3)
    x0 = np.concatenate([x0, model.state_defaults[x0.size:]])
    xo0 = leg.bench.initial_state([float(r.values_at(0.0)) for r in refs])
    np.testing.assert_array_equal(x0, leg.to_new(xo0, LH.COSIM, 0))     # Robot.initial_state = LegBench's
    res = simulate(model, 1.5, x0=x0, options=leg.bench.options)
    np.testing.assert_array_equal(res.t, old.t)
    q = res.x[:, leg.q]
    err = np.abs(q - old.q).max()
    assert err < 1e-6, err
    np.testing.assert_allclose(res.x[:, leg.gas[0::5]], old.p_cap, rtol=1e-6)
    assert q[-1, 2] - q[0, 2] > math.radians(30.0)                      # Gamma stepped
    inside = (res.t > PAUSE_T0 + 1e-6) & (res.t < PAUSE_T0 + PAUSE_DUR - 1e-6)
    assert inside.sum() > 80
    np.testing.assert_array_equal(q[inside], np.broadcast_to(q[inside][0], q[inside].shape))


# ------------------------------------------------------------------------------ (2) a pendulum
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
