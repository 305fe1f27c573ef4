"""The command line shared by the runnable examples (``examples/*.py``): run, report, plot."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from ..userfiles import output_dir


def run_example(doc: str, run: Callable[..., dict], report: Callable[[dict], str],
                plot: Callable[[dict, Path], list[Path]], quick_help: str,
                argv: Sequence[str] | None = None) -> dict:
    """Parse ``--out DIR [--quick]``, then ``res = run(quick=...)``, print ``report(res)``, write
    ``plot(res, DIR)`` and print each file written; returns ``res``. ``doc``'s first line is the
    program description; ``quick_help`` says what ``--quick`` leaves out."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="directory for the PNG plots (created)")
    ap.add_argument("--quick", action="store_true", help=quick_help)
    args = ap.parse_args(argv)
    output_dir(args.out, "the plots")
    res = run(quick=args.quick)
    print(report(res))
    for f in plot(res, args.out):
        print(f"wrote {f}")
    return res
