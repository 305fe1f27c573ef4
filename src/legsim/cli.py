"""The ``legsim`` command line: run | view | simsect | plot | animate | demo | models | mobility | fit |
sweep | warmup | report | sil.

User mistakes (bad files, keys, values) print one clear message and exit with status 2; a run
that fails says the time, mode and cause, keeps its records, and exits with status 1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from . import __version__
from .errors import InputError, Interrupted, LegsimError, SimulationError

__all__ = ["main", "guarded", "run_script"]

SCENARIO_DIR = Path(__file__).parent / "scenarios"


def _cmd_run(args) -> int:
    from .runner import run_scenario

    echo = (lambda s: None) if args.quiet else print
    if not args.view:
        run_scenario(args.scenario, args.out, progress=False if args.quiet else None,
                     plot=args.plot, echo=echo, keep_records=False)
        return 0
    from .scenario import load_scenario
    from .viz.viewer import live_view_of

    sc = load_scenario(args.scenario)
    view = live_view_of(sc, framerate=args.framerate, port=args.port, echo=print, pace=args.pace)
    try:
        try:
            run_scenario(sc, args.out, progress=False, plot=args.plot, echo=echo, keep_records=False,
                         monitor=view)
        finally:  # a failed run is replayed too: its records up to the failure are on disk
            view.serve_replay(args.out)
    finally:
        view.close()
    return 0


def _cmd_view(args) -> int:
    from .viz.viewer import export_html, serve_replay

    if args.html:
        path = export_html(args.run_dir, args.html, fps=args.fps, speed=args.speed)
        print(f"{path} ({path.stat().st_size / 1e6:.1f} MB): open it in a browser")
        return 0
    serve_replay(args.run_dir, host=args.host, port=args.port, plot_columns=args.plot or None)
    return 0


def _cmd_simsect(args) -> int:
    from .simsect.runner import main_simsect

    return main_simsect(args)


def _cmd_plot(args) -> int:
    from .viz import plot_run

    for f in plot_run(args.run_dir):
        print(f)
    return 0


def _cmd_animate(args) -> int:
    from .viz.animate import animate_run

    print(animate_run(args.run_dir, args.out, fps=args.fps, speed=args.speed))
    return 0


PYTHON_DEMOS: dict[str, tuple[str, dict]] = {
    "libra_climb": ("legsim.robots.libra.demo", {}),
    "anton_walk": ("legsim.robots.anton.demo", {}),
    "anton_climb": ("legsim.robots.anton.climb_demo", {}),
    "rotto_walk": ("legsim.robots.rotto.demo", {}),
    **{f"rats_{e}": ("legsim.robots.rats.demo", {"experiment": e})
       for e in ("hop", "tip", "legs", "range", "roll", "planner", "closed", "endurance", "landing")},
}
"""Demos that are Python experiments rather than TOML scenarios (a robot package's own plan): name ->
(module whose ``run_demo(out_dir, **keywords)`` runs it, keywords)."""

PYTHON_DEMO_TITLES = {
    "libra_climb": "LIBRA climbs one cycle between two ladders under CJTC",
    "anton_walk": "ANTON's tripod, a gait change to the wave and back, a 2.5 cm step found by touch",
    "anton_climb": "ANTON climbs a ledge as high as its body (the 8-step script)",
    "rotto_walk": "ROTTO's static walk, CoM and ZMP over the feet",
    "rats_hop": "RATS E3-E5: single-leg hop height against valve time (hop bench)",
    "rats_tip": "RATS E6: tip threshold against pressure on the full robot",
    "rats_legs": "RATS E7: every leg's 40 ms hop at three pressures",
    "rats_range": "RATS E11-E13: straight-line tipping range from one charge",
    "rats_roll": "RATS E16: rolling from rest toward several headings, the first one's run and 3-D replay",
    "rats_planner": "RATS E18: the tipping planner on a circle and a figure-8",
    "rats_closed": "RATS E14: closed-loop tipping with an uncommanded tip, its run and 3-D replay",
    "rats_endurance": "RATS E8-E10: repeated 40 ms firings from one charge",
    "rats_landing": "RATS E15: landing after a three-leg hop, unbalanced and balanced by the valve latencies",
}
"""One line per Python demo for ``legsim demo --help`` (the TOML demos' come from their files)."""


def _demo_names() -> list[str]:
    """Every bundled demo: the TOML scenarios (a robot's hardware file is no scenario) and the Python
    demos, sorted."""
    return sorted([*(p.stem for p in SCENARIO_DIR.glob("*.toml") if not p.stem.endswith("_hardware")),
                   *PYTHON_DEMOS])


def _demo_title(name: str) -> str:
    """A demo's line for the help: a Python demo's title, a scenario's ``description`` (its line read as
    text: building the help imports nothing); "" without one."""
    if name in PYTHON_DEMO_TITLES:
        return PYTHON_DEMO_TITLES[name]
    for line in (SCENARIO_DIR / f"{name}.toml").read_text().splitlines():
        if line.startswith("description") and "=" in line:
            return line.split("=", 1)[1].strip().strip('"')
    return ""

ASSEMBLED_MODELS = frozenset({"crr_leg"})
"""Registered models built from parts (the assembly layer), besides every scenario with a ``robot`` hardware
file and every Python demo."""


def _runs_a_robot_from_parts(args) -> bool:
    """Whether the command runs a robot assembled from parts: on a first run the second process then starts
    with the last part of the assembly's hooks (legsim._compiling.compile_in_background). Read from the
    scenario file's ``robot`` and ``model`` keys; a file that does not read says no (the run reports it)."""
    from .userfiles import parse_toml

    if args.command == "sil":
        return True
    if args.command == "demo":
        if args.name in PYTHON_DEMOS:
            return True
        path = SCENARIO_DIR / f"{args.name}.toml"
    else:
        path = Path(getattr(args, "scenario", None) or "")
    try:
        data = parse_toml(path.read_text(), str(path))
    except (OSError, ValueError):  # read and told when the command runs (an InputError is a ValueError)
        return False
    return "robot" in data or data.get("model") in ASSEMBLED_MODELS


STIFF_DEMOS = frozenset({"libra_climb"})
"""Demos whose robot runs on the engine's stiff variant (``method="ros23"``): a first run compiles that
one beside the robot."""


def _cmd_demo(args) -> int:
    scenario = SCENARIO_DIR / f"{args.name}.toml"
    if args.name not in PYTHON_DEMOS and (not scenario.is_file() or args.name.endswith("_hardware")):
        raise InputError(f"no demo named '{args.name}'; available: {', '.join(_demo_names())} "
                         "(legsim demo --help says what each shows)")
    if args.name in PYTHON_DEMOS:
        import importlib

        module, keywords = PYTHON_DEMOS[args.name]
        importlib.import_module(module).run_demo(args.out or f"{args.name}-out", **keywords)
        return 0
    from .runner import load_scenario, run_scenario
    from .viz.animate import BackgroundAnimation

    out = Path(args.out) if args.out else Path(f"{args.name}-out")
    sc = load_scenario(scenario)  # builds the model (on a first run: compiles it)
    # the animation renders in a second process while this one draws the figures and the replay; it
    # starts now, so that its imports overlap the run (on a first run, the wait for the engine)
    animation = BackgroundAnimation(out, fps=10, speed=2.0)
    try:
        run_scenario(sc, out, progress=None, plot=False, echo=print, keep_records=False)
    except BaseException:
        animation.cancel()
        raise
    animation.render()
    from .viz import plot_run
    from .viz.viewer import export_html

    for f in plot_run(out):
        print(f"  figure: {f}")
    replay = export_html(out, out / "plots" / "replay.html")
    print(f"  animation: {animation.result()}")
    print(f"  3-D replay (open in a browser): {replay}")
    return 0


def _cmd_models(args) -> int:
    from . import registry

    if args.name is None:
        for name, target in sorted(registry.available_models().items()):
            print(f"{name:16s} {target}")
        return 0
    robot = None
    if args.name.endswith(".toml"):  # a scenario or a hardware file: its model
        model, robot = _file_model(Path(args.name))
    else:
        model = registry.build(args.name)
    print(f"{model.name}: {model.description}")
    if robot is not None:
        _print_parts(robot)
    # names starting with "_" are a model's internals (an assembled robot's packed tables, scratch and
    # filter states): counted, not listed
    print(f"states ({model.nx}):")
    for n, v in zip(model.state_names, model.state_defaults, strict=True):
        if not n.startswith("_"):
            print(f"  {n} = {v:g}")
    _hidden(model.state_names, "states")
    print(f"parameters ({model.nparam}): name = default   allowed values [unit] — meaning")
    shown = [(n, v) for n, v in zip(model.param_names, model.param_defaults, strict=True)
             if not n.startswith("_")]
    width = max((len(n) for n, _ in shown), default=0)
    for n, v in shown:
        about = model.describe_param(n)
        print(f"  {n:{width}s} = {v:<10g} {about}".rstrip())
    _hidden(model.param_names, "parameters")
    print(f"guards ({model.nguard}): {', '.join(g.name for g in model.guards)}")
    print(f"outputs ({model.ny}): {', '.join(model.output_names)}")
    if robot is not None:  # what a controller of this robot reads and writes
        print(f"controller, every {robot.control_period * 1e3:g} ms: reads sensors.NAME")
        width = max((len(ch.name) for ch in robot.channels), default=0)
        kinds = {s.name: type(s).__name__ for s in robot.sensors}
        for ch in robot.channels:
            kind = kinds.get(ch.name, "")
            print(f"  {ch.name:{width}s} {kind:14s} ({len(ch.labels)}): {', '.join(ch.labels)}")
        print(f"  returns {len(robot.actuators)} commands, in this order: "
              + ", ".join(f"{a.name} ({type(a).__name__})" for a in robot.actuators))
    return 0


def _value(v) -> str:
    """A part's field as a hardware file would give it."""
    if isinstance(v, bool) or v is None:
        return str(v).lower()
    if isinstance(v, int | float):
        return f"{float(v):g}"
    if isinstance(v, str):
        return v
    if isinstance(v, tuple | list) and all(isinstance(x, str) for x in v):
        return ", ".join(v)
    if isinstance(v, tuple | list) and all(isinstance(x, int | float | tuple | list) for x in v):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return str(v) if type(v).__str__ is not object.__str__ else type(v).__name__


def _fields(part, skip: tuple[str, ...] = ("name",)) -> str:
    """``key = value`` of a part's fields (a Measurement: only those off their defaults)."""
    import dataclasses

    from .assembly import Measurement

    out = []
    for f in dataclasses.fields(part):
        v = getattr(part, f.name)
        if f.name in skip or f.name.startswith("_"):
            continue
        if isinstance(v, Measurement):
            changed = _fields_changed(v)
            if changed:
                out.append(f"measurement = {{ {changed} }}")
            continue
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            out.append(f"{f.name} = {type(v).__name__}")
            continue
        out.append(f"{f.name} = {_value(v)}")
    return ", ".join(out)


def _fields_changed(part) -> str:
    import dataclasses

    default = type(part)()
    return ", ".join(f"{f.name} = {_value(getattr(part, f.name))}" for f in dataclasses.fields(part)
                     if getattr(part, f.name) != getattr(default, f.name))


def _print_parts(robot) -> None:
    """A robot's parts with every field, defaults included, as its hardware file could give them."""
    print("parts: (SI units; every field, the defaults included)")
    for kind, parts in (("actuator", robot.actuators), ("sensor", robot.sensors),
                        ("resource", robot.resources)):
        for part in parts:
            print(f"  {kind} {part.name}: {type(part).__name__}; {_fields(part)}")
    c = robot.contacts
    if c is not None:
        print(f"  contacts: {c.path} path, {len(robot.point_names)} points ({', '.join(robot.point_names)}); "
              f"normal law {c.law.normal.law.name.lower()}, friction {c.law.friction.law.name.lower()}; "
              f"ground {type(c.ground).__name__}; {len(c.obstacles)} obstacles")


def _file_model(path: Path):
    """(model, robot) of a scenario file (robot None unless it runs a hardware file) or of a hardware
    file (its robot from parts)."""
    from .userfiles import parse_toml, read_text

    data = parse_toml(read_text(path, "file"), str(path))
    if "model" in data or "robot" in data:  # a scenario
        from .scenario import load_scenario

        sc = load_scenario(path)
        return sc.model, sc.robot
    from .assembly.hardware import load_hardware

    robot = load_hardware(path)
    return robot.model, robot


def _hidden(names, what: str) -> None:
    n = sum(name.startswith("_") for name in names)
    if n:
        print(f"  (and {n} internal {what}, named _...)")


def _cmd_warmup(args) -> int:
    from .warmup import LOCK, exclusive, stop_background, uncached, warmup

    if args.clear:
        from ._numba_cache import clear

        if args.families or args.background:
            raise InputError("warmup --clear: clears the whole cache; name no families and no --background")
        stop_background()
        from ._compiling import TIMES

        with exclusive():  # not under a warm-up that is writing to it (one a user started: wait for it)
            where, size = clear(keep=(LOCK, TIMES))  # the lock, and how long compiles take here
        print(f"legsim warmup: removed {size / 1e6:.0f} MB of compiled kernels from {where}")
        return 0
    if args.background:  # what a first run starts (legsim.warmup.start_background)
        if args.families:
            raise InputError("warmup --background compiles what the cache lacks; name no families")
        try:
            os.nice(19)  # the pool's workers inherit it
        except (AttributeError, OSError):
            pass
        warmup(uncached(), jobs=args.jobs, background=True)
        return 0
    warmup(args.families or None, jobs=args.jobs)
    return 0


def _cmd_mobility(args) -> int:
    from .robots.libra.mobility import libra_report

    print(libra_report(args.vector))
    return 0


_PLUGINS = ("legsim.identify.cli", "legsim.sweep.cli", "legsim.validation.cli", "legsim.realtime.cli")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="legsim", description="Simulate legged robots.")
    parser.add_argument("--version", action="version", version=f"legsim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("run", help="run a TOML scenario and write its records")
    p.add_argument("scenario", help="scenario file (TOML)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--plot", action="store_true", help="also write the figures")
    p.add_argument("--view", action="store_true",
                   help="show the robot in a browser while it runs, then replay the run (Ctrl-C ends)")
    p.add_argument("--framerate", type=float, default=30.0, help="live view frames per second of wall time")
    p.add_argument("--port", type=int, default=8080, help="live view port (the next free one if taken)")
    p.add_argument("--pace", type=float, default=None, metavar="X",
                   help="live view: run at most X times real time (default: as fast as it runs)")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("view", help="a run directory in the 3-D viewer (browser), or as one HTML file")
    p.add_argument("run_dir")
    p.add_argument("--html", default=None, metavar="FILE",
                   help="write one self-contained HTML file (opens without a server) instead of serving")
    p.add_argument("--plot", nargs="*", default=None, metavar="COLUMN",
                   help="columns to plot beside the 3-D view (default: the first states)")
    p.add_argument("--fps", type=float, default=30.0, help="frames per second of the HTML playback")
    p.add_argument("--speed", type=float, default=1.0, help="HTML playback speed, x real time")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (0.0.0.0: the whole network)")
    p.add_argument("--port", type=int, default=8080, help="port (the next free one if taken)")
    p.set_defaults(func=_cmd_view)

    p = sub.add_parser("simsect", help="run a SimSect init file (.rc) unchanged")
    p.add_argument("-c", dest="config", default="SimSect.rc", help="init file (default SimSect.rc)")
    p.add_argument("--out-dir", default=None, help="where to write the output files (default: .)")
    p.add_argument("--sample", action="store_true", help="write a commented sample init file (-c name)")
    p.add_argument("--view", action="store_true",
                   help="show the robot in a browser as it runs, at the file's framerate (Ctrl-C ends)")
    p.add_argument("--port", type=int, default=8080, help="live view port (the next free one if taken)")
    p.add_argument("-q", "--quiet", action="store_true")
    p.set_defaults(func=_cmd_simsect)

    p = sub.add_parser("plot", help="write PNG figures of a run directory")
    p.add_argument("run_dir")
    p.set_defaults(func=_cmd_plot)

    p = sub.add_parser("animate", help="replay a run directory as an animated GIF or an MP4 video")
    p.add_argument("run_dir")
    p.add_argument("--out", default=None,
                   help="GIF or MP4 file (default RUN_DIR/plots/animation.gif; MP4 needs legsim[video])")
    p.add_argument("--fps", type=int, default=20, help="frames per second of the GIF")
    p.add_argument("--speed", type=float, default=1.0, help="replay speed, x real time")
    p.set_defaults(func=_cmd_animate)

    p = sub.add_parser("demo", help="run a bundled demo scenario with figures",
                       description="Run a bundled demo: its records, a summary and figures in NAME-out/.",
                       epilog="demos:\n" + "\n".join(f"  {n:22s}{_demo_title(n)}" for n in _demo_names()),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", default="hexapod_walk", help="the demo (default hexapod_walk)")
    p.add_argument("--out", default=None, help="output directory (default NAME-out)")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("models", help="list models, or show one's states and parameters")
    p.add_argument("name", nargs="?", help="a registered model, or a scenario or hardware file (.toml): "
                   "its model, and for a robot from parts what its controller reads and returns")
    p.set_defaults(func=_cmd_models)

    p = sub.add_parser("warmup", help="compile every robot family ahead, on all cores (once per machine)")
    p.add_argument("families", nargs="*", help="families to compile (default: all: legsim.warmup.FAMILIES)")
    p.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--clear", action="store_true",
                   help="remove every compiled kernel from legsim's cache (~/.cache/legsim/kernels on Linux, "
                        "or LEGSIM_CACHE_DIR) instead")
    p.add_argument("--background", action="store_true",
                   help="compile only what the cache lacks, at the lowest priority, and not at all while "
                        "another warm-up runs (what a first run in a terminal starts)")
    p.set_defaults(func=_cmd_warmup)

    p = sub.add_parser("mobility", help="the Extended Mobility Analysis log of LIBRA's control vectors")
    p.add_argument("vector", nargs="?", default="u1", choices=["u1", "u2", "u3"],
                   help="u1 (stages 1, 3), u2 (stage 2), u3 (stage 4)")
    p.set_defaults(func=_cmd_mobility)

    for mod in _PLUGINS:
        try:
            plugin = importlib.import_module(mod)
        except ImportError:
            continue
        plugin.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """``legsim ARGS``: the exit status of the command (:func:`guarded`)."""
    return guarded(lambda: _command(argv))


def _command(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    builds_a_file = args.command == "models" and (args.name or "").endswith(".toml")  # may compile
    if args.command not in ("models", "mobility") or builds_a_file:  # commands that may compile: say so
        from ._compiling import compile_in_background, watch

        watch()
        if args.command in ("run", "demo", "simsect", "sweep", "sil"):  # they run the engine
            compile_in_background(stiff=args.command == "demo" and args.name in STIFF_DEMOS,
                                  assembly=_runs_a_robot_from_parts(args))
    code = int(args.func(args) or 0)
    if code == 0 and args.command != "warmup":
        from ._compiling import compiled

        if compiled():  # a first run: compile what the next one may need, in the background
            from .warmup import start_background

            start_background(echo=lambda line: print(line, file=sys.stderr, flush=True))
    return code


OPTIONAL = {"mujoco": ("mujoco", "peers"), "pinocchio": ("pin", "peers"), "pybullet": ("pybullet", "peers"),
            "pybullet_data": ("pybullet", "peers"), "pandas": ("pandas", "test"), "sympy": ("sympy", "test"),
            "ray": ("ray", "ray"), "imageio_ffmpeg": ("imageio-ffmpeg", "video")}
"""Module -> (its distribution, legsim's extra that installs it) of the optional packages that examples
and benchmarks import (the peers they compare against, the robots' data of pybullet_data)."""


def guarded(body: Callable[[], int | None], prog: str = "legsim") -> int:
    """The exit status of ``body()`` (None: 0), with what it raises told the legsim way, one line on
    stderr after ``prog``: a user mistake (InputError) 2, a failed run 1, Ctrl-C 130, output into a
    closed pipe 141 (quietly, like a tool killed by SIGPIPE), a missing optional package
    (:data:`OPTIONAL`) 2, saying how to install it."""
    try:
        return int(body() or 0)
    except ModuleNotFoundError as exc:
        optional = OPTIONAL.get((exc.name or "").partition(".")[0])
        if optional is None:
            raise
        dist, extra = optional
        print(f"{prog}: error: this needs the optional package {dist!r}: pip install {dist} (or, in legsim's "
              f"folder, pip install '.[{extra}]')", file=sys.stderr)
        return 2
    except InputError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"{prog}: interrupted: {exc}", file=sys.stderr)
        return 130
    except SimulationError as exc:
        print(f"{prog}: run failed: {exc}", file=sys.stderr)
        return 1
    except LegsimError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`legsim models crr_leg | head`): stdout on /dev/null so that the flush
        # at exit cannot raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def run_script(body: Callable[[], Any]) -> NoReturn:
    """Exit with :func:`guarded`'s status of ``body()``, named after the script: for a script's
    ``if __name__ == "__main__":`` (the examples), so that a user's mistake in its arguments is one line,
    not a traceback. ``body`` returns an exit status, or anything else (an example's ``main`` returns its
    results to the tests) for 0."""

    def status() -> int:
        out = body()
        return out if isinstance(out, int) and not isinstance(out, bool) else 0

    sys.exit(guarded(status, Path(sys.argv[0]).name))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
