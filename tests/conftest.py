"""Test-session set-up: on a machine whose numba cache is empty (a fresh clone, as in CI), compile
legsim's robot families on every core before the first test (``legsim.warmup``), rather than one
after another as the tests first touch them."""

import os


def pytest_sessionstart(session):
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        return
    from legsim._compiling import engine_cached

    if engine_cached():
        return
    from legsim.warmup import warmup

    warmup(echo=lambda line: print(line, flush=True))
