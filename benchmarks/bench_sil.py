"""Software-in-the-loop timing on this machine: the bare real-time loop, and ``legsim sil`` with the
external controller ``examples/sil_controller.py`` over UDP loopback, at 1 ms and 0.1 ms.

Reports per case: period p50/p99/max, wake-up lateness (jitter) p50/p99/max, deadline misses, the
exchange delay in periods and the controller's round trip (its command timestamp echoed by the
robot's next sensor packet, the thesis's measure), and the machine's load (other processes shift
every number here: run it on a quiet machine, and read the load it prints).

    python benchmarks/bench_sil.py [--seconds 10] [--periods 1e-3,1e-4]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from legsim.realtime.loop import RealtimeLoop

ROOT = Path(__file__).resolve().parents[1]


def bare(period: float, seconds: float, spin: float) -> dict:
    loop = RealtimeLoop(period, spin=spin, capacity=int(seconds / period) + 10)
    loop.start()
    for _ in range(int(seconds / period)):
        loop.tick()
    return loop.stop().to_dict()


def _port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sil(period: float, seconds: float, spin: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        pr, pc = _port(), _port()
        server = subprocess.Popen([sys.executable, "-m", "legsim", "sil", "--duration", str(seconds),
                                   "--period", str(period), "--spin", str(spin), "--port", str(pr), "--peer",
                                   f"127.0.0.1:{pc}", "--out", f"{tmp}/run", "-q"],
                                  stderr=subprocess.PIPE, text=True)
        client = subprocess.Popen([sys.executable, str(ROOT / "examples" / "sil_controller.py"), "--robot",
                                   f"127.0.0.1:{pr}", "--bind", f"127.0.0.1:{pc}", "--out", f"{tmp}/c.json"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, err = server.communicate(timeout=seconds + 600)
        client.communicate(timeout=60)
        if server.returncode:
            raise SystemExit(err)
        loop = json.loads(Path(f"{tmp}/run/loop_stats.json").read_text())
        ex = json.loads(Path(f"{tmp}/run/exchange.json").read_text())
        loop["exchange"] = ex["delay_periods_histogram"]
        loop["rtt_ms"] = json.loads(Path(f"{tmp}/c.json").read_text())["rtt_ms"]
        return loop


def row(name: str, s: dict) -> str:
    us = 1e6
    text = (f"{name:28s} period p50/p99/max {s['period_p50_s'] * us:7.1f} {s['period_p99_s'] * us:7.1f} "
            f"{s['period_max_s'] * us:7.1f} us | lateness p50/p99/max {s['lateness_p50_s'] * us:6.1f} "
            f"{s['lateness_p99_s'] * us:7.1f} {s['lateness_max_s'] * us:7.1f} us | work p50 "
            f"{s['work_p50_s'] * us:5.1f} us | misses {s['deadline_misses']}/{s['periods']} | load "
            f"{s['load_1min']:.2f}")
    if "exchange" in s:
        hist = s["exchange"]
        n = sum(hist.values())
        one = hist.get("1", 0) / n if n else 0.0
        r = s["rtt_ms"]
        text += (f"\n{'':28s} delay 1 period in {100 * one:.1f} % of periods, histogram {hist}; round trip "
                 f"p50 {r['p50']:.3f} ms p99 {r['p99']:.3f} ms max {r['max']:.2f} ms")
    return text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="SiL loop timing")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--periods", default="1e-3,1e-4")
    args = p.parse_args(argv)
    print(f"machine: {os.cpu_count()} cpus, load at start {os.getloadavg()[0]:.2f}, "
          f"python {sys.version.split()[0]}, numpy {np.__version__}")
    for period in (float(x) for x in args.periods.split(",")):
        print(row(f"bare loop {period * 1e3:g} ms spin 0.3", bare(period, args.seconds, 3e-4)))
        if period >= 1e-3:
            print(row(f"bare loop {period * 1e3:g} ms sleep only", bare(period, args.seconds, 0.0)))
        print(row(f"sil + udp {period * 1e3:g} ms spin 0.3", sil(period, args.seconds, 3e-4)))
        if period >= 1e-3:
            print(row(f"sil + udp {period * 1e3:g} ms sleep only", sil(period, args.seconds, 0.0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
