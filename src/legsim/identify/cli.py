"""``legsim fit``: identification from CSV logs (named columns), results printed as JSON.

The lead wires it into the ``legsim`` CLI with ``register(subparsers)``; each subcommand sets
``args.func(args) -> int``.
"""

from __future__ import annotations

import argparse
import json
import sys

from .. import identify as ident  # its API loads on first use (legsim --help stays fast)

__all__ = ["register", "main"]


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``fit`` command (with its subcommands) to an argparse subparsers object."""
    fit = subparsers.add_parser("fit", help="fit pneumatic model parameters to a CSV log",
                                description="Identification from CSV logs with a header row.")
    sub = fit.add_subparsers(dest="fit_kind", required=True, metavar="KIND")

    p = sub.add_parser("stribeck-tanh", help="Stribeck-tanh friction vs velocity (Daepp 4.2.6)")
    p.add_argument("log")
    p.add_argument("--velocity", default="v", help="velocity column [m/s] (default v)")
    p.add_argument("--force", default="friction", help="friction force column [N]")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="hold a parameter (f_s, f_c, c_v, v_s, i, k_tanh) fixed")
    p.set_defaults(func=_stribeck)

    p = sub.add_parser("coulomb-viscous", help="F_C, C_V from constant-velocity segments")
    p.add_argument("log")
    p.add_argument("--velocity", default="v")
    p.add_argument("--force", default="friction")
    p.add_argument("--tol", type=float, default=5e-3, help="velocity band of a segment [m/s]")
    p.add_argument("--min-samples", type=int, default=20, help="fewest samples of a segment")
    p.set_defaults(func=_coulomb_viscous)

    p = sub.add_parser("stiction", help="static friction from the pressure peak of a step")
    p.add_argument("log")
    p.add_argument("--time", default="t")
    p.add_argument("--force", default="f_net", help="net pressure force column [N]")
    p.add_argument("--position", default="x")
    p.add_argument("--t-step", type=float, default=0.0)
    p.add_argument("--offset", type=float, default=0.0, help="weight offset to remove [N]")
    p.set_defaults(func=_stiction)

    p = sub.add_parser("input-pressure", help="tanh equivalent input pressure cutoffs (4.2.7-11)")
    p.add_argument("log")
    p.add_argument("--voltage", default="vc", help="centered voltage column [V]")
    p.add_argument("--pressure", default="p", help="steady-state pressure column [Pa]")
    p.add_argument("--supply", type=float, required=True, help="absolute supply pressure [Pa]")
    p.add_argument("--exhaust", type=float, required=True, help="absolute exhaust pressure [Pa]")
    p.add_argument("--falling", action="store_true", help="port pressurises as voltage falls")
    p.set_defaults(func=_input_pressure)

    p = sub.add_parser("area", help="quartic equivalent area per side of the offset")
    p.add_argument("log")
    p.add_argument("--voltage", default="vc")
    p.add_argument("--area", default="a_eq")
    p.set_defaults(func=_area)

    p = sub.add_parser("rats-hop", help="the RATS leg's valve (flow rating, latency) from hop heights")
    p.add_argument("log")
    p.add_argument("--valve-ms", default="valve_ms", help="valve time column [ms]")
    p.add_argument("--height", default="height", help="apex rise column [m]")
    p.add_argument("--pressure", default="p_gauge", help="tank pressure column [Pa gauge]")
    p.add_argument("--preset", choices=("spool", "rubber"), default="spool")
    p.add_argument("--latency", action="store_true", help="also fit the valve latency")
    p.set_defaults(func=_rats_hop)

    p = sub.add_parser("filter", help="zero-phase Chebyshev-II filter of one column")
    p.add_argument("log")
    p.add_argument("--column", required=True)
    p.add_argument("--spec", choices=sorted(ident.FILTER_SPECS), required=True)
    p.add_argument("--fs", type=float, default=1000.0)
    p.add_argument("--out", default=None, help="CSV to write (default: print summary)")
    p.set_defaults(func=_filter)
    return fit


def _emit(obj) -> int:
    json.dump(obj, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def _fixed(items: list[str]) -> dict[str, float]:
    """The ``--fix NAME=VALUE`` options as {name: value}; an InputError naming the option otherwise (the
    fit checks the names and the values' ranges)."""
    from ..errors import InputError

    fix = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep:
            raise InputError(f"--fix {item!r}: expected NAME=VALUE (e.g. --fix f_s=12.5)")
        try:
            fix[name.strip()] = float(text)
        except ValueError:
            raise InputError(f"--fix {item!r}: the value {text!r} is not a number "
                             "(e.g. --fix f_s=12.5)") from None
    return fix


def _stribeck(a) -> int:
    fix = _fixed(a.fix)
    d = ident.read_log(a.log, [a.velocity, a.force])
    return _emit(ident.fit_stribeck_tanh(d[a.velocity], d[a.force], fix=fix))


def _coulomb_viscous(a) -> int:
    d = ident.read_log(a.log, [a.velocity, a.force])
    segs = ident.constant_velocity_segments(d[a.velocity], tol=a.tol, min_samples=a.min_samples)
    fc, cv = ident.coulomb_viscous_fit(d[a.velocity], d[a.force], segs)
    return _emit({"f_c": fc, "c_v": cv, "segments": len(segs)})


def _stiction(a) -> int:
    d = ident.read_log(a.log, [a.time, a.force, a.position])
    return _emit({"f_s": ident.stiction_from_step(d[a.time], d[a.force], d[a.position], a.t_step, a.offset)})


def _input_pressure(a) -> int:
    d = ident.read_log(a.log, [a.voltage, a.pressure])
    c_hp, c_lp = ident.fit_input_pressure(d[a.voltage], d[a.pressure], supply=a.supply, exhaust=a.exhaust,
                                          rising=not a.falling)
    return _emit({"c_hp": c_hp, "c_lp": c_lp})


def _area(a) -> int:
    d = ident.read_log(a.log, [a.voltage, a.area])
    pos, neg = ident.fit_quartic_area(d[a.voltage], d[a.area])
    return _emit({"positive": pos.tolist(), "negative": neg.tolist()})


def _rats_hop(a) -> int:
    from .hop import fit_hop_heights

    d = ident.read_log(a.log, [a.valve_ms, a.height, a.pressure])
    return _emit(fit_hop_heights(d[a.valve_ms], d[a.height], d[a.pressure], preset=a.preset,
                                 fit_latency=a.latency))


def _filter(a) -> int:
    from ..userfiles import output_file, write_text

    out = output_file(a.out, "the filtered column") if a.out else None  # told before the work
    d = ident.read_log(a.log, [a.column])
    y = ident.zero_phase(d[a.column], a.spec, a.fs)
    if out is not None:
        write_text(out, "\n".join([f"{a.column}_filtered", *map(repr, y.tolist())]) + "\n",
                   "the filtered column")
        return _emit({"written": a.out, "samples": int(y.size)})
    return _emit({"samples": int(y.size), "mean": float(y.mean()), "std": float(y.std())})


def main(argv=None) -> int:
    """Stand-alone entry (``python -m legsim.identify.cli fit ...``) until the lead wires it."""
    from ..errors import InputError

    parser = argparse.ArgumentParser(prog="legsim")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
