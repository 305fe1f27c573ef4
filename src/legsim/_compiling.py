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
import subprocess
import sys
import threading
import time
from typing import TextIO

__all__ = ["watch", "FAMILY_KERNELS", "ESTIMATES", "engine_cached", "compile_engine_in_background", "engine"]

FAMILY_KERNELS: dict[str, tuple[str, str | None, str, float]] = {
    "assembly": ("legsim.assembly._hooks", "robot_field", "the assembly layer's robot dynamics", 70.0),
    "crr_leg": ("legsim.robots.crr_leg.control", None, "", 5.0),
    "multibody": ("legsim.multibody.hybrid_model", "articulated_field", "the multibody model's hooks", 27.0),
    "engine": ("legsim.hybrid._engine", "legsim.hybrid._kernels.advance", "the hybrid-system engine", 12.0),
    "engine_stiff": ("legsim.hybrid._engine_stiff", "legsim.hybrid._kernels.advance_stiff",
                     "the engine's stiff (Rosenbrock) variant", 15.0),
    "hexapod": ("legsim.robots.rhex._hooks", "vector_field", "the SimSect hexapod", 6.0),
    "pneumatic_rig": ("legsim.robots.pneumatic_rig._rig_hooks", None, "", 2.0),
    "rats_hop": ("legsim.robots.pneumatic_rig._hop_hooks", None, "", 2.0),
    "slip": ("legsim.robots.slip", None, "", 1.0),
}
"""The families of compiled code a first run may need: family -> (module whose import compiles its
hooks, the hook whose compile starts the family (its name in that module, or a full dotted name;
None: too short to announce), what it is, the seconds the family took to compile with an empty
cache on this 2-core x86_64 machine, session 11; the engine's two variants session 20).
One table for the compile notice and for ``legsim warmup`` (its order: largest first). The robots
assembled from parts (RATS, ANTON, ROTTO, LIBRA, the CRR leg and quadruped) are the ``assembly`` family, plus
their compiled controllers (the CRR leg's and quadruped's joint PID: the ``crr_leg`` family,
``robots.crr_leg.control``) and the families of the libraries they import."""

ESTIMATES: dict[str, tuple[str, float]] = {
    (kernel if "." in kernel else f"{module}.{kernel}"): (what, seconds)
    for module, kernel, what, seconds in FAMILY_KERNELS.values() if kernel is not None}
"""Top-level compiled function -> (what it is, seconds), for the notice's estimate; others are
named as they are."""


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

    def end(self) -> None:
        with self.lock:
            self.depth -= 1
            if self.depth > 0:
                return
            self.last_end = time.monotonic()
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.burst:  # the burst ends when no compilation follows within a second
                self.closer = threading.Timer(1.0, self.close)
                self.closer.daemon = True
                self.closer.start()

    def announce(self) -> None:
        with self.lock:
            if self.depth == 0 or self.burst:
                return
            self.burst = self.started
            self.named.add(self.current)
            what, seconds = ESTIMATES.get(self.current, (self.current.rsplit(".", 1)[-1], 0.0))
            estimate = f" (about {seconds:.0f} s on a 2-core machine)" if seconds else ""
            self._say(f"legsim: compiling for this machine, once (later runs load it from the cache): "
                      f"{what}{estimate} ...")

    def close(self) -> None:
        with self.lock:
            if self.burst and self.depth == 0:
                self._say(f"legsim: compiled in {self.last_end - self.burst:.0f} s")
                self.burst = 0.0
            self.closer = None

    def _say(self, text: str) -> None:
        try:
            print(text, file=self.stream if self.stream is not None else sys.stderr, flush=True)
        except (OSError, ValueError):  # a closed stream: nobody is listening
            pass


_WATCHER: _Watcher | None = None


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
            watcher.end()

    event.register("numba:compile", Listener())
    atexit.register(watcher.close)  # a run that ends right after compiling still says how long


# ------------------------------------------------------------------ the engine, compiled beside
_ENGINE_JOB: subprocess.Popen | None = None
_ENGINE_JOB_STIFF = False  # which variant the job compiles


def _engine_module(stiff: bool) -> str:
    return "legsim.hybrid._engine_stiff" if stiff else "legsim.hybrid._engine"


def engine_cached(stiff: bool = False) -> bool:
    """Whether numba's cache holds the engine (``hybrid._kernels.advance``, compiled by importing
    ``hybrid._engine``; with ``stiff`` its Rosenbrock variant ``advance_stiff``), looked up without
    importing it: an index file under ``NUMBA_CACHE_DIR`` when it is set, else in the package's
    ``__pycache__``."""
    import glob
    import os
    from importlib.util import find_spec

    if os.environ.get("NUMBA_CACHE_DIR"):  # then numba looks nowhere else
        place = os.path.join(os.environ["NUMBA_CACHE_DIR"], "**")
    else:
        spec = find_spec("legsim.hybrid")
        assert spec is not None and spec.submodule_search_locations
        place = os.path.join(next(iter(spec.submodule_search_locations)), "__pycache__")
    name = "advance_stiff" if stiff else "advance"
    return bool(glob.glob(os.path.join(place, f"_kernels.{name}-*.nbi"), recursive=True))


def compile_engine_in_background(stiff: bool = False) -> None:
    """On a first run (the engine not in the cache), compile it in a second process while this one
    compiles the robot: the engine is 12 s of every first run, the robot's hooks take as long or
    longer, and machines have two cores or more; ``stiff``: the variant with the Rosenbrock method,
    for a run known to use it. :func:`engine` waits for it. Two processes never compile the same
    function at once here: this one imports the engine only after the other finished (numba writes
    cache files atomically, so even that would be safe for njit)."""
    global _ENGINE_JOB, _ENGINE_JOB_STIFF
    import os

    module = _engine_module(stiff)
    if _ENGINE_JOB is not None or os.environ.get("NUMBA_DISABLE_JIT") == "1" or module in sys.modules \
            or (os.cpu_count() or 1) < 2 or engine_cached(stiff):
        return
    _ENGINE_JOB = subprocess.Popen([sys.executable, "-c", f"import {module}"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _ENGINE_JOB_STIFF = stiff
    atexit.register(_stop_engine_job)


def _stop_engine_job() -> None:
    if _ENGINE_JOB is not None and _ENGINE_JOB.poll() is None:
        _ENGINE_JOB.terminate()


def engine(stiff: bool = False):
    """The engine's integration loop (``legsim.hybrid._engine.advance``, or with ``stiff`` the variant
    that carries the Rosenbrock method), once the background compile of that variant (if one was
    started) has finished; if it failed, the import compiles here as before."""
    global _ENGINE_JOB
    import importlib

    module = _engine_module(stiff)
    job = _ENGINE_JOB if _ENGINE_JOB_STIFF == stiff else None
    if job is not None:
        _ENGINE_JOB = None
    if job is not None and module not in sys.modules:
        try:
            job.wait(timeout=1.0)
        except subprocess.TimeoutExpired:  # a while yet: say so
            t = time.monotonic()
            what, seconds = ESTIMATES[f"legsim.hybrid._kernels.{'advance_stiff' if stiff else 'advance'}"]
            print(f"legsim: compiling for this machine, once (later runs load it from the cache): {what} "
                  f"(about {seconds:.0f} s on a 2-core machine, in a second process) ...", file=sys.stderr,
                  flush=True)
            job.wait()
            print(f"legsim: compiled in {time.monotonic() - t + 1:.0f} s more", file=sys.stderr, flush=True)
    return importlib.import_module(module).advance
