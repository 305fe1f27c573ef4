"""An external controller for ``legsim sil``: PD control of the simulated CRR leg over UDP.

A plain Python process: it imports the standard library, numpy and the message-format module
``legsim.realtime.messages`` only (a copy of that one file would do), as a controller on another
machine would. Start the robot, then this (either order; the robot waits for its controller)::

    legsim sil --duration 10 --out sil-run                  # robot on 127.0.0.1:47001
    python examples/sil_controller.py --duration 10         # controller on 127.0.0.1:47002

It is event-driven, like SrLib's control loop ("receive → compute → send", Daepp (2011) App. C.2):
the robot's real-time loop sets the pace; on each sensor packet it computes the torques and answers
at once. The reference is a sine about the posture of the first packet received, in the robot's
time (the packet's timestamp), so that a run can be replayed exactly in simulated time
(``tests/test_sil_loopback.py``). Round trip, as the thesis measured it: the command's timestamp
(this process's clock) comes back in the robot's next sensor packet (CRR ``ori31``).

Prints one JSON line of statistics at the end (and writes it to ``--out`` if given).
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import time

import numpy as np

from legsim.cli import run_script
from legsim.realtime.messages import COMMANDS, SENSORS, MessageError, Packet, format_by_name

KP = (80.0, 30.0, 8.0)
"""Proportional gains [N m/rad] of Alpha, Beta, Gamma: about 8 Hz on the leg's joint inertias."""
KD = (2.0, 0.8, 0.2)
"""Derivative gains [N m s/rad] (damping ratio about 0.7)."""
AMPLITUDE = (0.2, 0.15, 0.2)
"""Sine amplitude of the joint references [rad]."""
FREQUENCY = 0.5
"""Sine frequency of the joint references [Hz]."""


class PDController:
    """``u = kp (q_ref(t) - q) + kd (qd_ref(t) - qd)`` [N m] for y = (q (3,), qd (3,)) [rad, rad/s];
    ``q_ref(t) = centre + amplitude sin(2 pi f t)`` about ``centre`` (default: the first q seen)."""

    def __init__(self, kp=KP, kd=KD, amplitude=AMPLITUDE, frequency=FREQUENCY, centre=None):
        self.kp, self.kd = np.asarray(kp, float), np.asarray(kd, float)
        self.amplitude, self.frequency = np.asarray(amplitude, float), float(frequency)
        self.centre = None if centre is None else np.asarray(centre, float)

    def reference(self, t):
        """(q_ref, qd_ref) at time(s) ``t`` [s]: arrays (3,) or (n, 3)."""
        if self.centre is None:
            raise RuntimeError("the reference is centred on the first measurement: none seen yet")
        w = 2.0 * np.pi * self.frequency
        s = np.sin(w * np.asarray(t, float))[..., None]
        c = np.cos(w * np.asarray(t, float))[..., None]
        return self.centre + self.amplitude * s, self.amplitude * w * c

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        q, qd = y[:3], y[3:6]
        if self.centre is None:
            self.centre = np.array(q, dtype=float)
        q_ref, qd_ref = self.reference(t)
        return self.kp * (q_ref - q) + self.kd * (qd_ref - qd)


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def run(args) -> dict:
    fmt = format_by_name(args.format)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(_address(args.bind))
    sock.setblocking(False)
    robot = _address(args.robot)
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    ctrl = PDController(amplitude=np.array(AMPLITUDE) * args.amplitude_scale)
    seq, last_seq, last_echo = 0, -1, None
    rtt: list[float] = []
    counts = {"sensor_packets": 0, "tick_packets": 0, "malformed": 0, "stale": 0, "commands_sent": 0}
    started = None
    wall0 = time.perf_counter()
    while True:
        timeout = args.idle if started is not None else max(args.wait - (time.perf_counter() - wall0), 0.0)
        if not sel.select(timeout):
            break  # the robot stopped (or never came)
        newest = None
        while True:
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                break
            try:
                pkt = fmt.decode(data, SENSORS, 6)
            except MessageError:
                counts["malformed"] += 1
                continue
            counts["sensor_packets"] += 1
            counts["tick_packets"] += pkt.seq >= 1  # the robot's periods 1, 2, ... (0 repeats while it waits)
            if pkt.seq <= last_seq and not (pkt.seq == 0 and started is None):
                counts["stale"] += 1
                continue
            newest = pkt if newest is None or pkt.seq > newest.seq else newest
        if newest is None:
            continue
        now = time.perf_counter()
        if newest.seq >= 2 and newest.echo != last_echo and newest.echo > 0.0:  # (not the start-up's)
            rtt.append(now - newest.echo)  # our command's timestamp, echoed by the robot
        last_echo = newest.echo
        last_seq = newest.seq
        started = started or now
        u = ctrl(newest.t, newest.values)
        sock.sendto(fmt.encode(Packet(seq=seq, t=time.perf_counter(), values=u, ack=newest.seq,
                                      echo=newest.t, kind=COMMANDS)), robot)
        seq += 1
        counts["commands_sent"] += 1
        if args.duration and newest.t >= args.duration:
            break
    sock.close()
    r = np.array(rtt) * 1e3
    stats = {**counts, "last_sensor_seq": last_seq,
             "rtt_ms": {"n": int(r.size), **({"p50": float(np.median(r)), "p99": float(np.quantile(r, 0.99)),
                                              "min": float(r.min()), "max": float(r.max()),
                                              "std": float(r.std())} if r.size else {})},
             "centre": None if ctrl.centre is None else ctrl.centre.tolist()}
    return stats


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--robot", default="127.0.0.1:47001", help="the robot's address (legsim sil --port)")
    p.add_argument("--bind", default="127.0.0.1:47002", help="this controller's address (legsim sil --peer)")
    p.add_argument("--format", default="crr", choices=["crr", "generic"], help="message format")
    p.add_argument("--duration", type=float, default=0.0,
                   help="stop at this robot time [s] (0: when it stops)")
    p.add_argument("--wait", type=float, default=60.0, help="wait this long for the robot's first packet [s]")
    p.add_argument("--idle", type=float, default=1.0, help="stop after this long without a packet [s]")
    p.add_argument("--amplitude-scale", type=float, default=1.0, help="scale of the reference sine")
    p.add_argument("--out", default=None, help="also write the statistics to this JSON file")
    args = p.parse_args(argv)
    stats = run(args)
    line = json.dumps(stats)
    print(line)
    if args.out:
        with open(args.out, "w") as f:
            f.write(line + "\n")
    return 0 if stats["commands_sent"] else 1


if __name__ == "__main__":
    run_script(main)
