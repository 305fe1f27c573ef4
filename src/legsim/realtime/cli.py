"""``legsim sil``: the simulated CRR leg in real time behind a UDP bridge (software in the loop).

Example (two terminals)::

    legsim sil --duration 10 --out sil-run            # the robot, on 127.0.0.1:47001
    python examples/sil_controller.py --duration 10   # a controller, on 127.0.0.1:47002

The main CLI adds the command with ``register(subparsers)``; this module imports nothing heavy at
load time (``legsim --help`` stays fast): the engine is imported by the command itself. Mistakes in
arguments are InputErrors naming the option (exit 2); Ctrl-C stops the run, keeps its records and
statistics, and exits 130.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from ..errors import InputError, Interrupted
from ..userfiles import output_dir

__all__ = ["register", "main_sil"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``sil`` command to an argparse subparsers object."""
    p = subparsers.add_parser(
        "sil", help="software in the loop: the simulated CRR leg in real time behind UDP",
        description="Step the simulated 3-DoF CRR leg (torque sources; joint angle and velocity "
                    "sensors) in real time, exchanging one UDP message per period with an external "
                    "controller (examples/sil_controller.py). Writes the records, loop_stats.json, "
                    "exchange.json and exchange.csv into --out.")
    p.add_argument("--duration", type=float, default=10.0,
                   help="simulated = wall seconds to run (default 10)")
    p.add_argument("--period", type=float, default=1e-3, help="period [s], 1e-4 to 0.1 (default 1e-3)")
    p.add_argument("--bind", default="127.0.0.1",
                   help="address to take commands on (default 127.0.0.1; another one warns: the robot is "
                        "then reachable from the network)")
    p.add_argument("--port", type=int, default=47001, help="UDP port of the robot (default 47001)")
    p.add_argument("--peer", default="127.0.0.1:47002",
                   help="the controller's HOST:PORT (default 127.0.0.1:47002)")
    p.add_argument("--format", default="crr", choices=["crr", "generic"],
                   help="message format: the CRR 21-field message (default) or legsim's generic one")
    p.add_argument("--lockstep", action="store_true",
                   help="wait each period for the command computed from the previous one (SrLib's "
                        "receive-compute-send)")
    p.add_argument("--spin", type=float, default=3e-4,
                   help="spin before each deadline [s] (default 3e-4; 0: sleep only, less CPU, more jitter)")
    p.add_argument("--wait", type=float, default=60.0,
                   help="wait this long for the controller [s] (default 60)")
    p.add_argument("--out", default="sil-out", help="output directory (default sil-out)")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=main_sil)
    return p


def _check(args) -> None:
    def number(name: str, value: float, lo: float, hi: float, what: str) -> None:
        if not (math.isfinite(value) and lo <= value <= hi):
            raise InputError(f"--{name} {value!r}: expected {what}")

    number("duration", args.duration, 1e-3, 86400.0, "a number of seconds in [0.001, 86400]")
    number("period", args.period, 1e-4, 0.1, "a period in [1e-4, 0.1] s")
    number("spin", args.spin, 0.0, 0.1, "a spin margin in [0, 0.1] s")
    number("wait", args.wait, 0.0, 86400.0, "a number of seconds in [0, 86400]")
    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port}: expected 0 to 65535")
    if args.duration / args.period > 2e7:
        raise InputError(f"--duration {args.duration:g} at --period {args.period:g}: more than 2e7 periods")


def main_sil(args) -> int:
    """Run ``legsim sil`` (see the module docstring)."""
    _check(args)
    import warnings

    import numpy as np

    from .messages import format_by_name
    from .sil import CRR_POSTURE, SilServer, crr_leg_robot, write_run
    from .transport import ExposedAddressWarning, robot_side

    echo = (lambda s: None) if args.quiet else print
    plain = warnings.formatwarning  # catch_warnings restores the filters, not the format: restore it here
    with warnings.catch_warnings():
        warnings.simplefilter("always", ExposedAddressWarning)
        warnings.formatwarning = lambda msg, *a, **k: f"legsim sil: warning: {msg}\n"  # type: ignore
        try:
            endpoint = robot_side(format_by_name(args.format), 3, bind=(args.bind, args.port), peer=args.peer)
        finally:
            warnings.formatwarning = plain
    try:
        # now, not after the controller has come and gone; after the addresses, so that a bad --peer or
        # --bind leaves no empty output directory behind
        output_dir(args.out, "the run's records")
        robot = crr_leg_robot(args.period)
        server = SilServer(robot, endpoint, q0=np.array(CRR_POSTURE), lockstep=args.lockstep, spin=args.spin)
        warm = server.warm_up(echo)
        host, port = endpoint.address
        echo(f"legsim sil: robot {robot.name!r} on udp {host}:{port} -> controller {args.peer} "
             f"({args.format} format, period {args.period * 1e3:g} ms, "
             f"{'lock-step' if args.lockstep else 'zero-order hold'}); waiting for the controller ...")
        first = server.wait_for_controller(args.wait, echo)
        run = server.run(args.duration, first)
        run.extra["warm_up_s"] = warm
        meta = {"period_s": args.period, "duration_s": args.duration, "format": args.format,
                "lockstep": args.lockstep, "bind": f"{host}:{port}", "peer": args.peer,
                "q0": list(CRR_POSTURE)}
        out = write_run(args.out, robot, run, meta)
    finally:
        endpoint.close()
    echo(run.loop.summary())
    ex = run.exchange_summary()
    echo(f"  exchange: delay [periods] histogram {ex['delay_periods_histogram']}, link "
         f"{json.dumps({k: v for k, v in run.link.items() if v})}")
    echo(f"  records, loop_stats.json, exchange.json/csv in {out}")
    if run.status == "interrupted":
        raise Interrupted(f"stopped after {run.loop.periods} periods; records and statistics kept in {out}",
                          t=run.loop.periods * args.period, mode="", cause="interrupted by the user")
    return 0
