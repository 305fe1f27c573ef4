"""Software in the loop end to end: ``legsim sil`` (the simulated CRR leg in real time) and the
external controller ``examples/sil_controller.py`` as two processes on UDP loopback for 3 s.

Checked: the leg follows the external PD controller (tracking error bound), no packet is lost or
malformed either way, the exchange delay and the round trip are measured (printed), and the run is
reproduced in simulated time by the same controller class through the deterministic delay model:
exactly with the measured per-period delays, and within a tolerance derived from the measured
delay spread with a constant delay. Bounds are structural and generous for a loaded 2-core machine;
the measured numbers are printed (``pytest -s``).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from legsim.cli import main
from legsim.io import load_run
from legsim.realtime.messages import COMMANDS, SENSORS, CRRFormat, Packet
from legsim.realtime.sil import CRR_POSTURE, RobotPlant, SilServer, crr_leg_robot
from legsim.realtime.timing import run_tick_delays
from legsim.realtime.transport import robot_side

pytestmark = pytest.mark.realtime  # wall-clock timing: no other test runs meanwhile (conftest)

ROOT = Path(__file__).resolve().parents[1]
DURATION = 3.0
PERIOD = 1e-3
TRACKING_BOUND = 0.03
"""Joint tracking error bound [rad] after the start-up (t >= 0.2 s). The deterministic model with a
one-period exchange gives 0.016 rad (Beta, Gamma: the gravity sag of a PD without gravity
compensation); the bound leaves room for the multi-period delays of a loaded machine."""


def _example(name):
    spec = importlib.util.spec_from_file_location(f"legsim_example_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def loopback(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sil")
    p_robot, p_ctrl = _free_port(), _free_port()
    server = subprocess.Popen([sys.executable, "-m", "legsim", "sil", "--duration", str(DURATION), "--period",
                               str(PERIOD), "--port", str(p_robot), "--peer", f"127.0.0.1:{p_ctrl}", "--out",
                               str(tmp / "run"), "--wait", "300"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    client = subprocess.Popen([sys.executable, str(ROOT / "examples" / "sil_controller.py"), "--robot",
                               f"127.0.0.1:{p_robot}", "--bind", f"127.0.0.1:{p_ctrl}", "--duration",
                               str(DURATION), "--wait", "300", "--out", str(tmp / "client.json")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        s_out, s_err = server.communicate(timeout=600)
        c_out, c_err = client.communicate(timeout=60)
    finally:  # a timeout leaves neither process holding its UDP port
        for proc in (server, client):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    print(f"\n--- legsim sil ---\n{s_out}{s_err}--- sil_controller ---\n{c_out}{c_err}")
    assert server.returncode == 0, s_err
    assert client.returncode == 0, c_err
    run = load_run(tmp / "run")
    table = np.loadtxt(tmp / "run" / "exchange.csv", delimiter=",", skiprows=1, ndmin=2)
    return {"run": run, "client": json.loads((tmp / "client.json").read_text()), "table": table,
            "exchange": json.loads((tmp / "run" / "exchange.json").read_text()),
            "loop": json.loads((tmp / "run" / "loop_stats.json").read_text())}


def _q(run) -> np.ndarray:
    return np.column_stack([run.state(j) for j in ("alpha", "beta", "gamma")])


def test_the_leg_follows_the_external_controller_over_udp(loopback):
    run, client = loopback["run"], loopback["client"]
    t, q = run.t, _q(run)
    assert t[-1] == pytest.approx(DURATION) and t.size == int(round(DURATION / PERIOD)) + 1
    pd = _example("sil_controller").PDController(centre=client["centre"])
    np.testing.assert_allclose(client["centre"], CRR_POSTURE, atol=1e-12)  # it started from the robot's state
    q_ref, _ = pd.reference(t)
    late = t >= 0.2
    err = np.abs(q - q_ref)[late].max(axis=0)
    print(f"\ntracking error max [rad] alpha beta gamma: {np.round(err, 4).tolist()} "
          f"(bound {TRACKING_BOUND})")
    assert np.all(err < TRACKING_BOUND)
    assert np.ptp(q[:, 0]) > 0.3  # it did move: the reference swings +-0.2 rad


def test_no_packet_is_lost_or_malformed_either_way_and_the_delays_are_measured(loopback):
    client, ex, loop, table = loopback["client"], loopback["exchange"], loopback["loop"], loopback["table"]
    link = ex["link"]
    periods = loop["periods"]
    assert periods == int(round(DURATION / PERIOD)) + 1
    assert link["malformed"] == 0 and client["malformed"] == 0 and link["foreign"] == 0
    assert client["tick_packets"] == periods - 1  # every period's sensors (1, 2, ...) arrived
    assert link["received"] == client["commands_sent"]  # every command arrived
    assert link["send_errors"] == 0
    delay = table[:, 4].astype(int)
    hist = ex["delay_periods_histogram"]
    rtt = client["rtt_ms"]
    print(f"\nexchange delay [periods] histogram {hist}; round trip (command timestamp echoed by the next "
          f"sensor packet) p50 {rtt['p50']:.3f} ms p99 {rtt['p99']:.3f} ms max {rtt['max']:.3f} ms std "
          f"{rtt['std']:.3f} ms (n {rtt['n']}); loop lateness p50 {loop['lateness_p50_s'] * 1e6:.1f} us p99 "
          f"{loop['lateness_p99_s'] * 1e6:.1f} us max {loop['lateness_max_s'] * 1e6:.1f} us, deadline misses "
          f"{loop['deadline_misses']}, load {loop['load_1min']:.2f}")
    assert delay[0] == 0 and np.all(delay[1:] >= 1)  # the first command answers the initial sensors
    assert np.median(delay[1:]) <= 2  # typically 1: the answer comes back within the period
    assert rtt["n"] >= 0.9 * client["commands_sent"] and 0.0 < rtt["p50"]


def test_the_run_is_reproduced_in_simulated_time_by_the_same_controller_through_the_delay_model(loopback):
    run, client, table = loopback["run"], loopback["client"], loopback["table"]
    q_rt = _q(run)
    delays = table[:, 4].astype(np.int64)
    n = q_rt.shape[0] - 1
    robot = crr_leg_robot(PERIOD)
    PD = _example("sil_controller").PDController

    def model(d):
        plant = RobotPlant(robot, q0=np.array(CRR_POSTURE))
        run_tick_delays(plant, PD(), period=PERIOD, delays=d[:n], u0=np.zeros(3))
        return plant.log()["q"]

    # 1. the measured per-period delays: the same trajectory, to round-off
    replay = np.abs(model(delays) - q_rt).max()
    # 2. a constant delay, the median. Tolerance from the measured spread: one period more delay in
    # every period moves the trajectory by D1 (the constant delays median and median + 1). A period
    # whose delay exceeds the median by e acts within the closed loop's memory (W = 0.1 s: the PD's
    # settling time, 4 / (zeta omega) at 8 Hz, zeta 0.7) and moves the trajectory by at most e D1 (no
    # more than e extra periods everywhere would); so the tolerance is D1 times the largest sum of
    # excess over any 0.1-s window (conservative: isolated late periods measure ~20x below it).
    # A mean over the window instead (tried first) failed once in CI: 5.9e-5 against 5.3e-5 rad.
    d_med = int(np.median(delays[1:]))
    k = np.arange(n)

    def constant(d: int) -> np.ndarray:  # period 0 answers the initial sensors; then d (or as many as exist)
        return np.minimum(k, d)

    q_med = model(constant(d_med))
    d1 = np.abs(model(constant(d_med + 1)) - q_med).max()
    excess = np.abs(delays[1:n] - d_med).astype(float)
    window = int(round(0.1 / PERIOD))
    worst = (np.convolve(excess, np.ones(window), mode="valid").max() if excess.size >= window
             else excess.sum())
    tol = d1 * max(worst, 1.0) + 1e-6
    dev = np.abs(q_med - q_rt).max()
    print(f"\nreplay with the measured delays: max |dq| = {replay:.2e} rad; constant delay {d_med} periods: "
          f"max |dq| = {dev:.2e} rad; tolerance {tol:.2e} rad = D1 {d1:.2e} rad x the largest 0.1-s sum of "
          f"delay excess {worst:.0f} periods ({np.count_nonzero(excess)} of {n - 1} periods off the median, "
          f"largest excess {int(excess.max())})")
    assert replay < 1e-9
    assert dev <= tol
    assert client["commands_sent"] > 0


def test_the_server_survives_fuzzing_while_it_runs_and_counts_every_drop():
    """A controller thread answers every sensor packet and, between answers, fires random bytes,
    truncated packets, a wrong size and NaN payloads at the running server: every period runs, every
    bad packet is counted under its reason, the good commands are applied."""
    robot = crr_leg_robot(PERIOD)
    fmt = CRRFormat()
    endpoint = robot_side(fmt, 3)
    ctrl_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ctrl_sock.bind(("127.0.0.1", 0))
    ctrl_sock.settimeout(0.5)
    endpoint.peer = ctrl_sock.getsockname()
    server = SilServer(robot, endpoint, q0=np.array(CRR_POSTURE))
    server.warm_up(echo=lambda s: None)
    rng = np.random.default_rng(0)
    bad = {"n": 0}
    stop = threading.Event()

    def controller():
        pd = _example("sil_controller").PDController()
        seq = 0
        while not stop.is_set():
            try:
                data = ctrl_sock.recv(65536)
            except TimeoutError:
                continue
            pkt = fmt.decode(data, SENSORS, 6)
            u = pd(pkt.t, pkt.values)
            good = fmt.encode(Packet(seq=seq, t=time.perf_counter(), values=u, ack=pkt.seq, kind=COMMANDS))
            seq += 1
            ctrl_sock.sendto(good, endpoint.address)
            if seq % 3 == 0:
                nan = bytearray(good)
                nan[8:16] = np.array([np.nan]).tobytes()
                junk = [rng.bytes(int(rng.integers(0, 400))), good[:int(rng.integers(0, 168))], bytes(nan),
                        good + b"\0"]
                for blob in junk:
                    if len(blob) != 168 or blob is not junk[0]:
                        ctrl_sock.sendto(blob, endpoint.address)
                        bad["n"] += 1

    thread = threading.Thread(target=controller, daemon=True)
    thread.start()
    try:
        first = server.wait_for_controller(30.0, echo=lambda s: None)
        result = server.run(1.0, first)
    finally:
        stop.set()
        thread.join(2.0)
        endpoint.close()
        ctrl_sock.close()
    link = result.link
    print(f"\nfuzzed server: {result.loop.periods} periods, link {link}; delay histogram "
          f"{result.exchange_summary()['delay_periods_histogram']}")
    assert result.status == "done" and result.loop.periods == 1001
    assert link["malformed"] == bad["n"] > 100
    assert set(link["malformed_by_reason"]) <= {"size", "nonfinite", "counter"}
    assert np.count_nonzero(result.delay >= 1) > 900  # the good commands were applied
    q = result.result.x[:, :3]
    assert np.abs(q - np.array(CRR_POSTURE)).max() < 0.3  # under control, near its reference swing


def test_the_sil_command_refuses_bad_options_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv, expected in ((["sil", "--duration", "nan"], "--duration nan"),
                           (["sil", "--period", "1e-5"],
                            "--period 1e-05: expected a period in [1e-4, 0.1] s"),
                           (["sil", "--port", "70000"], "--port 70000"),
                           (["sil", "--peer", "nohost"], "peer = 'nohost': expected HOST:PORT")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("legsim: error: ") and expected in err and err.count("\n") == 1, err
    assert not list(tmp_path.iterdir())  # a refused run leaves no (empty) sil-out behind
    # its own format for the exposed-address warning is put back: it had prefixed every later warning of
    # the process with "legsim sil: warning:" (found by the fuzz tests' warnings, session 33)
    import warnings

    assert "legsim sil" not in warnings.formatwarning("w", UserWarning, "f.py", 1)


def test_lockstep_over_the_in_process_link_answers_every_period_from_the_one_before():
    """The thesis's SrLib was serial (receive -> compute -> send): in lock-step the server waits, up to
    0.8 T, for the command computed from the previous period. A controller thread on the in-process
    link (the same Endpoint interface as UDP) answers; every period k >= 1 holds the answer to k - 1
    unless its wait timed out (counted)."""
    from legsim.realtime.transport import InProcessLink

    robot = crr_leg_robot(PERIOD)
    link = InProcessLink(n_sensors=6, n_commands=3, fmt=CRRFormat())
    server = SilServer(robot, link.robot, q0=np.array(CRR_POSTURE), lockstep=True)
    server.warm_up(echo=lambda s: None)
    stop = threading.Event()

    def controller():
        pd = _example("sil_controller").PDController()
        seq = 0
        while not stop.is_set():
            link.controller.wait(0.05)
            pkt = link.controller.recv_latest()
            if pkt is not None:
                link.controller.send(Packet(seq=seq, t=0.0, values=pd(pkt.t, pkt.values), ack=pkt.seq))
                seq += 1

    thread = threading.Thread(target=controller, daemon=True)
    thread.start()
    try:
        result = server.run(0.5, server.wait_for_controller(30.0, echo=lambda s: None))
    finally:
        stop.set()
        thread.join(2.0)
    off = int(np.count_nonzero(result.delay[1:] != 1))
    print(f"\nlock-step, in process: {result.loop.periods} periods, delay histogram "
          f"{result.exchange_summary()['delay_periods_histogram']}, timeouts {result.lockstep_timeouts}; "
          f"{result.loop.summary()}")
    assert result.loop.periods == 501 and result.link["malformed"] == 0
    assert off <= result.lockstep_timeouts
    assert np.count_nonzero(result.delay[1:] == 1) >= 250
