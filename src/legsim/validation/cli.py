"""``legsim report``: the validation report (legsim's figures against the sources' published numbers).

The main CLI adds it with ``register(subparsers)``; nothing heavy is imported at load time. An unknown
``--only`` name is an InputError (exit status 2); a case that raises is an error row in the report and
the command exits with status 1.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register"]

_SOURCE_KEYS = ("simsect", "pneumatic", "rats", "contact", "cjtc")  # = _core.SOURCES (checked in tests)


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import build_report

    rep = build_report(args.out, args.only, echo=lambda s: print(s, flush=True), workers=args.workers)
    if rep.errors:
        print(f"legsim: report: {rep.errors} case(s) or figure(s) raised; see the error rows", flush=True)
        return 1
    return 0


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` command to an argparse subparsers object."""
    p = subparsers.add_parser(
        "report",
        help="write the validation report (HTML + JSON) against the sources' numbers",
        description="Run the validation cases (the published numbers of legsim's sources, computed by the "
        "code the tests assert on) and write OUT/report.html (self-contained) and OUT/report.json. "
        f"Sources: {', '.join(_SOURCE_KEYS)}.",
    )
    p.add_argument("--out", default="legsim-report", help="output directory (default legsim-report/)")
    p.add_argument(
        "--only",
        nargs="+",
        default=None,
        metavar="SOURCE",
        help=f"report only these sources ({', '.join(_SOURCE_KEYS)})",
    )
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes to run the sources in (default: one per CPU, at most one per source)")
    p.set_defaults(func=_cmd_report)
    return p
