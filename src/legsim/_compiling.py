"""Say so when numba compiles for more than a moment (issue 20: a first run must not be silent),
and compile the engine beside the robot on a first run.

legsim's kernels are compiled on first use and cached on disk (``cache=True``); on a new machine,
or after an upgrade, the first run of each robot family compiles for 10–90 s. :func:`watch`
registers a listener on numba's compile events: when a compilation has lasted ``after`` seconds,
one line on stderr names what is being compiled and how long it took here; when the burst of
compilations ends, a second line says how long it took. A cached run prints nothing.
"""

from __future__ import annotations

import atexit
import math
import subprocess
import sys
import threading
import time
from typing import TextIO

from ._numba_cache import cached

__all__ = ["watch", "compiled", "FAMILY_KERNELS", "ESTIMATES", "engine_cached", "assembly_cached",
           "compile_in_background", "engine", "engine_callees", "assembly_hooks"]

FAMILY_KERNELS: dict[str, tuple[str, str | None, str, float]] = {
    "assembly": ("legsim.assembly._hooks", "robot_guards", "the assembly layer's robot hooks", 45.0),
    "crr_leg": ("legsim.robots.crr_leg.control", None, "", 5.0),
    "multibody": ("legsim.multibody.hybrid_model", "articulated_field", "the multibody model's hooks", 27.0),
    "engine": ("legsim.hybrid._engine", "legsim.hybrid._kernels.advance", "the hybrid-system engine", 12.0),
    "engine_stiff": ("legsim.hybrid._engine_stiff", "legsim.hybrid._kernels.advance_stiff",
                     "the engine's stiff (Rosenbrock) variant", 15.0),
    "hexapod": ("legsim.robots.rhex._hooks", "vector_field", "the SimSect hexapod", 6.0),
    "pneumatic_rig": ("legsim.robots.pneumatic_rig._rig_hooks", None, "", 2.0),
    "rats_hop": ("legsim.robots.pneumatic_rig._hop_hooks", None, "", 2.0),
    "rats_tick": ("legsim.robots.rats._prewarm", None, "", 2.0),
    "slip": ("legsim.robots.slip", None, "", 1.0),
    "contact": ("legsim.world._prewarm", "legsim.world._kernels.run",
                "the contact worlds' loops (RigidWorld, RobotWorld)", 85.0),
}
"""The families of compiled code a first run may need: family -> (module whose import compiles its
hooks, the hook whose compile starts the family (its name in that module, or a full dotted name;
None: too short to announce), what it is, the seconds the family took to compile with an empty
cache on this 2-core x86_64 machine, session 11; the engine's two variants session 20; the assembly's
hooks session 21, with their joint accelerations compiled by the second process: 60–70 s without; the
contact worlds session 35: RigidWorld's loop 39 s, then RobotWorld's 49 s sharing its collision kernels, 80 s
alone).
One table for the compile notice and for ``legsim warmup`` (its order: largest first). The robots
assembled from parts (RATS, ANTON, ROTTO, LIBRA, the CRR leg and quadruped) are the ``assembly`` family, plus
their compiled controllers (the CRR leg's and quadruped's joint PID: the ``crr_leg`` family,
``robots.crr_leg.control``) and the families of the libraries they import."""


def first_kernel(family: str) -> str | None:
    """The dotted name of the hook whose compile starts ``family`` (:data:`FAMILY_KERNELS`), or None."""
    module, kernel = FAMILY_KERNELS[family][:2]
    return None if kernel is None else kernel if "." in kernel else f"{module}.{kernel}"


ESTIMATES: dict[str, tuple[str, float]] = {
    name: (FAMILY_KERNELS[family][2], FAMILY_KERNELS[family][3])
    for family in FAMILY_KERNELS if (name := first_kernel(family)) is not None}
"""Top-level compiled function -> (what it is, seconds), for the notice's estimate; others are
named as they are."""
ESTIMATES["legsim.contact._bodies.run"] = ("the rigid-body contact world (RigidWorld)", 39.0)  # in "contact"
ESTIMATES["legsim.hybrid._prewarm.late_callees"] = (
    "the engine's records and event location, here while a second process compiles its loop", 6.0)


class _Watcher:
    def __init__(self, stream: TextIO | None, after: float):
        self.stream = stream
        self.after = after
        self.depth = 0
        self.current = ""
        self.started = 0.0  # start of the running top-level compilation
        self.burst = 0.0  # start of the first compilation of the burst that was announced, or 0
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None
        self.closer: threading.Timer | None = None
        self.named: set[str] = set()
        self.last_end = 0.0  # end of the last top-level compilation
        self.announced = False  # whether a compilation lasted long enough to be announced
        self.first = ""  # the compilation that started the announced burst

    def start(self, name: str) -> None:
        with self.lock:
            self.depth += 1
            if self.depth > 1:
                return
            self.current = name
            self.started = time.monotonic()
            if self.closer is not None:  # still the same burst
                self.closer.cancel()
                self.closer = None
            if self.burst and name in ESTIMATES and name not in self.named:
                self.named.add(name)
                what, seconds = ESTIMATES[name]
                self._say(f"legsim:   now {what} (about {seconds:.0f} s) ...")
            if not self.burst:
                self.timer = threading.Timer(self.after, self.announce)
                self.timer.daemon = True
                self.timer.start()

    def end(self, failed: bool = False) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth > 0:
                return
            self.last_end = time.monotonic()
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if failed:  # cut short (Ctrl-C) or refused: no "compiled in" line, and no time to estimate from
                if self.closer is not None:
                    self.closer.cancel()
                    self.closer = None
                self.burst = 0.0
                return
            if self.burst:  # the burst ends when no compilation follows within a second
                self.closer = threading.Timer(1.0, self.close)
                self.closer.daemon = True
                self.closer.start()

    def announce(self) -> None:
        with self.lock:
            if self.depth == 0 or self.burst:
                return
            self.burst = self.started
            self.first = self.current
            self.announced = True
            _give_way()
            self.named.add(self.current)
            what, seconds = ESTIMATES.get(self.current, (self.current.rsplit(".", 1)[-1], 0.0))
            last = _last_times().get(self.current, 0.0)
            estimate = (f" (about {last:.0f} s, as its last compile here)" if last >= MIN_RECORDED else
                        f" (about {seconds:.0f} s on a 2-core machine)" if seconds else "")
            self._say(f"legsim: compiling for this machine, once (later runs load it from the cache): "
                      f"{what}{estimate} ...")

    def close(self) -> None:
        with self.lock:
            if self.burst and self.depth == 0:
                self._say(f"legsim: compiled in {self.last_end - self.burst:.0f} s")
                if self.last_end - self.burst >= MIN_RECORDED:
                    _record_time(self.first, self.last_end - self.burst)
                self.burst = 0.0
            self.closer = None

    def _say(self, text: str) -> None:
        try:
            print(text, file=self.stream if self.stream is not None else sys.stderr, flush=True)
        except (OSError, ValueError):  # a closed stream: nobody is listening
            pass


TIMES = "compile_times.json"
"""In the cache directory: how long the last announced burst that began with each function lasted on this
machine [s], the notice's estimate the next time it compiles (after an upgrade or an edit)."""


MIN_RECORDED = 2.0
"""Shorter bursts are neither recorded nor used as an estimate (a first run announces after 2 s; a
watcher driven by hand with a shorter ``after``, as a test does, must not leave 0 s estimates behind)."""


def _last_times() -> dict[str, float]:
    import json

    from ._numba_cache import cache_root

    try:
        times = json.loads((cache_root() / TIMES).read_text())
        return times if isinstance(times, dict) else {}
    except (OSError, ValueError):
        return {}


def _record_time(name: str, seconds: float) -> None:
    import json
    import os

    from ._numba_cache import cache_root

    times = _last_times()
    times.pop(name, None)
    times[name] = round(seconds, 1)  # newest last; the file keeps the 200 newest (controllers add keys)
    times = dict(list(times.items())[-200:])
    path = cache_root() / TIMES
    tmp = path.with_name(f"{TIMES}.{os.getpid()}")
    try:
        tmp.write_text(json.dumps(times, indent=0))
        os.replace(tmp, path)  # whole, whoever wrote last
    except OSError:
        pass


_WATCHER: _Watcher | None = None
_WAITED = False
"""Whether :func:`engine` waited for the second process to compile the engine."""


def compiled() -> bool:
    """Whether this process has announced a compilation (its own, or the engine's in its second process):
    it was a first run, for at least part of what it ran."""
    return _WAITED or (_WATCHER is not None and _WATCHER.announced)


def _raised(ev) -> bool:
    """Whether the compile that numba's END event ``ev`` closes raised (Ctrl-C, an error). Not
    ``ev.is_failed``: numba 0.68 returns ``_exc_details is None`` there, True for every compile that
    succeeded."""
    return getattr(ev, "_exc_details", None) is not None


def watch(stream: TextIO | None = None, after: float = 2.0) -> None:
    """Announce compilations that last more than ``after`` seconds on ``stream`` (default: the
    ``sys.stderr`` of the moment). Idempotent: the listener is registered once per process."""
    global _WATCHER
    if _WATCHER is not None:
        return
    from numba.core import event

    watcher = _WATCHER = _Watcher(stream, after)

    class Listener(event.Listener):
        def on_start(self, ev):
            f = ev.data["dispatcher"].py_func
            watcher.start(f"{f.__module__}.{f.__qualname__}")

        def on_end(self, ev):
            watcher.end(failed=_raised(ev))

    event.register("numba:compile", Listener())
    atexit.register(watcher.close)  # a run that ends right after compiling still says how long


# ------------------------------------------------------------------ a first run's second process
_JOB: subprocess.Popen | None = None
"""The second process of a first run (:func:`compile_in_background`), or None."""
_JOB_MODULES: tuple[str, ...] = ()
"""What it imports (compiles), in order."""

PREWARM = "legsim.assembly._prewarm"
"""The module whose import compiles the assembled robots' joint accelerations ahead of their hooks."""

REPLAY_PREWARM = "legsim.viz._prewarm"
"""The module whose import compiles the forward kinematics that a robot's replay draws with."""

WORLD_LATE = {"robot": "legsim.world._late_callees", "rigid": "legsim.contact._late_callees"}
"""World kind -> the module whose import compiles the late callees of that world's loop (RobotWorld's,
RigidWorld's)."""

ENGINE_PREWARM = "legsim.hybrid._prewarm"
"""The module whose import compiles, in this process, the engine's callees that its compile reaches last."""


def _engine_module(stiff: bool) -> str:
    return "legsim.hybrid._engine_stiff" if stiff else "legsim.hybrid._engine"


def engine_cached(stiff: bool = False) -> bool:
    """Whether numba's cache holds the engine (``hybrid._kernels.advance``, compiled by importing
    ``hybrid._engine``; with ``stiff`` its Rosenbrock variant ``advance_stiff``)."""
    return cached("legsim.hybrid._kernels", "advance_stiff" if stiff else "advance")


def assembly_cached() -> bool:
    """Whether numba's cache holds the assembled robots' hooks (``assembly._hooks.robot_field``)."""
    return cached("legsim.assembly._hooks", "robot_field")


def replay_cached() -> bool:
    """Whether numba's cache holds a replay's forward kinematics (``_packed.forward_kinematics``)."""
    return cached("legsim.multibody._packed", "forward_kinematics")


def world_cached(world: str) -> bool:
    """Whether numba's cache holds the loop of RobotWorld (``world`` "robot": ``world._kernels.run``) or of
    RigidWorld ("rigid": ``contact._bodies.run``)."""
    return cached("legsim.world._kernels" if world == "robot" else "legsim.contact._bodies", "run")


def compile_in_background(stiff: bool = False, assembly: bool = False, world: str | None = None) -> None:
    """On a first run, compile in a second process what this one would otherwise compile after its own
    work: the engine (``stiff``: its variant with the Rosenbrock method, for a run known to use it; 12–15 s
    of every first run); for a robot from parts (``assembly``) while its hooks are not cached, first
    their joint accelerations (:mod:`legsim.assembly._prewarm`, ~23 s, which this process's compile of
    the hooks reaches last, ~25 s in), and after the engine the forward kinematics of the robot's replay
    (:mod:`legsim.viz._prewarm`, ~2 s, done while this process still compiles the hooks). For a world
    that does not run the engine (``world`` "robot": RobotWorld, "rigid": RigidWorld) while its loop is not
    cached, that loop's late callees (:mod:`legsim.world._late_callees`, ~24 s, reached ~32 s into this
    process's ~73 s; :mod:`legsim.contact._late_callees`, ~13 s, ~16 s into ~39 s).
    Nothing starts when all of it is cached, on one core, without the JIT, or with
    ``LEGSIM_BACKGROUND_COMPILE=0`` (``legsim warmup``'s workers). :func:`engine` waits for the engine
    only; the process is stopped when this one exits. Two processes compiling the same function only
    duplicate work: numba writes each cache file atomically."""
    global _JOB, _JOB_MODULES
    import os

    from ._machine import cpu_count

    if _JOB is not None or os.environ.get("NUMBA_DISABLE_JIT") == "1" or cpu_count() < 2 \
            or os.environ.get("LEGSIM_BACKGROUND_COMPILE") == "0":
        return
    if world is not None:  # a contact world: its loop's late callees, no engine
        late = WORLD_LATE[world]
        wanted: tuple[tuple[str, bool], ...] = ((late, late not in sys.modules and not world_cached(world)),)
    else:
        module = _engine_module(stiff)
        wanted = ((PREWARM, assembly and PREWARM not in sys.modules and not assembly_cached()),
                  (module, module not in sys.modules and not engine_cached(stiff)),
                  (REPLAY_PREWARM, assembly and REPLAY_PREWARM not in sys.modules and not replay_cached()))
    modules = tuple(m for m, needed in wanted if needed)
    if not modules:
        return
    _give_way()
    _JOB = subprocess.Popen([sys.executable, "-c", "; ".join(f"import {m}" for m in modules)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _JOB_MODULES = modules
    atexit.register(_stop_job)


def engine_callees() -> None:
    """While the second process compiles the engine (a first run's critical path, ~16 s) and has no robot
    from parts' hooks to compile first, compile in this process the engine's callees that its compile
    reaches last (:mod:`legsim.hybrid._prewarm`, ~6 s cold with their own callees), so that the second
    process loads them: the engine is ready 3–5 s sooner. Called before a registered model compiles its
    own hooks (:func:`legsim.registry.build`: the SLIP, the SimSect hexapod) and by :func:`engine`;
    nothing happens on other runs, or once the engine is cached."""
    import importlib

    compiling = any(_engine_module(stiff) in _JOB_MODULES and not engine_cached(stiff)
                    for stiff in (False, True))
    if ENGINE_PREWARM in sys.modules or PREWARM in _JOB_MODULES or not compiling:
        return
    importlib.import_module(ENGINE_PREWARM)


def _give_way() -> None:
    """A first run is compiling: stop a background warm-up on the same cache (it restarts when the run
    ends, :func:`legsim.warmup.stop_background`)."""
    from .warmup import stop_background

    stop_background()


def assembly_hooks():
    """The assembled robots' shared hooks (the module :mod:`legsim.assembly._hooks`, whose import compiles
    them), a second process started first when they are not cached (:func:`compile_in_background`)."""
    import importlib

    module = "legsim.assembly._hooks"
    if module not in sys.modules:
        watch()  # a Python caller builds the robot before simulate() would have said it compiles
        compile_in_background(assembly=True)
    return importlib.import_module(module)


def _stop_job() -> None:
    if _JOB is not None and _JOB.poll() is None:
        _JOB.terminate()


def _until(ready, timeout: float | None = None) -> bool:
    """Wait until ``ready()`` or the second process has ended (True), or ``timeout`` [s] (False)."""
    end = math.inf if timeout is None else time.monotonic() + timeout
    while not ready():
        if _JOB is None or _JOB.poll() is not None:
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.05)
    return True


def engine(stiff: bool = False):
    """The engine's integration loop (``legsim.hybrid._engine.advance``, or with ``stiff`` the variant
    that carries the Rosenbrock method), once the second process (if it compiles that variant) has it
    in the cache; if that process failed, the import compiles here as before. A first run from Python
    (a script, the API: nothing has started a second process) that finds the engine uncached starts one
    for it here and compiles the engine's late callees meanwhile (:func:`engine_callees`), as the CLI does;
    not in a worker process of a pool (``multiprocessing``), whose pool is the parallelism."""
    import importlib
    import multiprocessing

    module = _engine_module(stiff)
    if _JOB is None and module not in sys.modules and multiprocessing.parent_process() is None \
            and not engine_cached(stiff):
        compile_in_background(stiff=stiff)
    engine_callees()  # (also a robot from parts whose hooks were cached: its second process has the engine)
    if module in _JOB_MODULES and module not in sys.modules and not _until(lambda: engine_cached(stiff), 1.0):
        global _WAITED
        _WAITED = True
        t = time.monotonic()
        what, seconds = ESTIMATES[f"legsim.hybrid._kernels.{'advance_stiff' if stiff else 'advance'}"]
        print(f"legsim: compiling for this machine, once (later runs load it from the cache): {what} "
              f"(about {seconds:.0f} s on a 2-core machine, in a second process) ...", file=sys.stderr,
              flush=True)
        _until(lambda: engine_cached(stiff))
        print(f"legsim: compiled in {time.monotonic() - t + 1:.0f} s more", file=sys.stderr, flush=True)
    return importlib.import_module(module).advance
