"""Test-session set-up.

- On a machine whose numba cache is empty (a fresh clone, as in CI), compile legsim's robot families
  on every core before the first test (``legsim.warmup``), rather than one after another as the tests
  first touch them. Under pytest-xdist this runs once, in the controlling process, before the workers
  start; they then load the kernels from the cache.
- The suite runs on every core (``-n auto`` in pyproject.toml). Tests marked ``realtime`` measure the
  wall clock (a real-time loop, software in the loop over UDP): while one runs, no other test runs on
  any worker. Every test holds a shared lock on a file of this test run; a ``realtime`` test holds it
  exclusively. A turnstile lock in front gives a waiting ``realtime`` test priority, so a stream of
  short tests on the other worker cannot keep it waiting.
- Tests press Ctrl-C (SIGINT) on legsim processes they start. A shell without job control starts a
  background command (``pytest &`` in a script) with SIGINT ignored, and a child inherits that: Python then
  installs no KeyboardInterrupt handler in it and the signal never arrives. The session takes SIGINT back
  (its children start with the default), so those tests test legsim, not how pytest was started.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

os.environ.setdefault("LEGSIM_BACKGROUND_WARMUP", "0")  # CLI tests in a terminal start no warm-up
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:   # started as a background job (module docstring)
    signal.signal(signal.SIGINT, signal.default_int_handler)

_WARMUP: dict[str, float] = {}
"""When the session started and how long the warm-up took [s] (pytest's own clock starts after it)."""


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    if os.environ.get("NUMBA_DISABLE_JIT") == "1" or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    _WARMUP["start"] = time.monotonic()
    from legsim.warmup import uncached, warmup

    families = uncached()  # all on an empty cache; after an edit, those whose sources changed
    if not families:
        return
    warmup(families, echo=lambda line: print(line, flush=True))
    _WARMUP["seconds"] = time.monotonic() - _WARMUP["start"]


def pytest_terminal_summary(terminalreporter):
    """pytest's "passed in" time starts after this session start hook: say what the warm-up added."""
    if "seconds" in _WARMUP:
        total = time.monotonic() - _WARMUP["start"]
        terminalreporter.write_line(
            f"legsim: the warm-up compiled for {_WARMUP['seconds']:.0f} s before pytest's clock started; "
            f"the whole session took {total // 60:.0f}:{total % 60:02.0f} (M:SS)")


@pytest.fixture
def spawn():
    """``spawn(cmd, **popen_kw)``: ``subprocess.Popen`` for this test, killed at the test's teardown if it is
    still running. A test that fails or times out while a legsim process serves or computes (a Ctrl-C that
    did not arrive) then leaves nothing behind: a viewer kept its port, and the next run's test with it."""
    started: list[subprocess.Popen] = []

    def start(cmd, **popen_kw) -> subprocess.Popen:
        proc = subprocess.Popen(cmd, **popen_kw)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def pytest_configure(config):
    config.addinivalue_line("markers", "realtime: measures the wall clock; runs while no other test runs")


class _RunLock:
    """The readers–writer lock of one xdist test run: two lock files named by the run's id."""

    def __init__(self, run_id: str):
        base = Path(tempfile.gettempdir()) / f"legsim-pytest-{run_id}"
        self.turnstile = os.open(f"{base}.turnstile", os.O_RDWR | os.O_CREAT, 0o600)
        self.room = os.open(f"{base}.room", os.O_RDWR | os.O_CREAT, 0o600)

    def enter(self, exclusive: bool) -> None:
        fcntl.flock(self.turnstile, fcntl.LOCK_EX)
        if exclusive:
            fcntl.flock(self.room, fcntl.LOCK_EX)   # the turnstile stays closed until leave()
        else:
            fcntl.flock(self.turnstile, fcntl.LOCK_UN)
            fcntl.flock(self.room, fcntl.LOCK_SH)

    def leave(self, exclusive: bool) -> None:
        fcntl.flock(self.room, fcntl.LOCK_UN)
        if exclusive:
            fcntl.flock(self.turnstile, fcntl.LOCK_UN)


_lock: _RunLock | None = None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Set-up, call and tear-down of every test inside the run lock (module fixtures included, which
    are set up within their module's first test)."""
    global _lock
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        yield
        return
    if _lock is None:
        _lock = _RunLock(run_id)
    exclusive = item.get_closest_marker("realtime") is not None
    _lock.enter(exclusive)
    try:
        yield
    finally:
        _lock.leave(exclusive)
