"""legsim's kernel cache (legsim._numba_cache, issue 20): entries keyed by the sources a module imports,
in one directory per user that every install shares."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import legsim
from legsim import _numba_cache as nc

CALLEE = "from numba import njit\n\nVALUE = {value}\n\n\n@njit(cache=True)\ndef g():\n    return VALUE\n"
CALLER = ("from numba import njit\n\nfrom ._probe_callee import g\n\n\n@njit(cache=True)\ndef f():\n"
          "    return g() + 10\n")
RUN = ("import json, sys\n{first}\nimport legsim._probe_caller as c\nv = c.f()\n"
       "print(json.dumps([v, c.f.stats.cache_hits.get(c.f.signatures[0], 0), c.f.stats.cache_misses.get("
       "c.f.signatures[0], 0), str(c.f._cache._cache_path)]))")


def _install(where: Path, value: int) -> Path:
    """A copy of the legsim package under ``where`` with two probe modules: ``_probe_caller.f`` calls
    ``_probe_callee.g``, which returns the constant ``value``."""
    pkg = where / "legsim"
    shutil.copytree(Path(legsim.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (pkg / "_probe_callee.py").write_text(CALLEE.format(value=value))
    (pkg / "_probe_caller.py").write_text(CALLER)
    return pkg


def _run(where: Path, cache, first: str = "", locators: str | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "LEGSIM_CACHE"))}
    env.update(PYTHONPATH=str(where), LEGSIM_CACHE_DIR=str(cache))
    if locators:
        env["NUMBA_CACHE_LOCATOR_CLASSES"] = locators
    out = subprocess.run([sys.executable, "-c", RUN.format(first=first)], env=env, capture_output=True,
                         text=True, timeout=120, check=True)
    value, hits, misses, path = json.loads(out.stdout.strip().splitlines()[-1])
    return value, hits, misses, Path(path)


def test_an_edit_of_a_callee_recompiles_the_caller_and_a_second_install_loads_the_first_ones_code(tmp_path):
    """numba keys an entry on its own file only, so with its locators the caller keeps the callee's old
    constant after an edit (11 where 12 is right); legsim's closure stamp compiles it again. A second
    copy of the same files elsewhere (another environment) loads the entries the first one made."""
    cache = tmp_path / "cache"
    first = _install(tmp_path / "a", value=1)
    assert _run(tmp_path / "a", cache)[:3] == (11, 0, 1)  # compiled
    value, hits, misses, path = _run(tmp_path / "a", cache)
    assert (value, hits, misses) == (11, 1, 0)  # loaded
    assert path.parent == cache and path.name.startswith("_probe_caller-")
    os.utime(path, (0, 0))
    assert _run(tmp_path / "a", cache)[:3] == (11, 1, 0)
    assert path.stat().st_mtime > time.time() - 600  # a process that loads from it marks it in use

    (first / "_probe_callee.py").write_text(CALLEE.format(value=2))
    value, hits, misses, path2 = _run(tmp_path / "a", cache)
    assert (value, hits, misses) == (12, 0, 1) and path2 != path  # a new closure: compiled again
    assert path.is_dir()  # the old entries stay for an install that still has the old sources

    _install(tmp_path / "b", value=2)  # the same sources at another path
    assert _run(tmp_path / "b", cache)[:3] == (12, 1, 0)
    _install(tmp_path / "c", value=1)
    assert _run(tmp_path / "c", cache, first="import numba")[:3] == (11, 1, 0)  # numba imported first

    # numba's own locator, for contrast: the same edit is not seen
    numba_cache = tmp_path / "numba"
    (first / "_probe_callee.py").write_text(CALLEE.format(value=1))
    only_numba = "InTreeCacheLocator"
    assert _run(tmp_path / "a", numba_cache, locators=only_numba)[0] == 11
    (first / "_probe_callee.py").write_text(CALLEE.format(value=2))
    assert _run(tmp_path / "a", numba_cache, locators=only_numba)[0] == 11  # stale


def test_an_unwritable_cache_falls_back_to_numbas_cache_beside_the_sources(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    _install(tmp_path / "a", value=3)
    value, _, _, path = _run(tmp_path / "a", blocker / "cache")
    assert value == 13 and path == tmp_path / "a" / "legsim" / "__pycache__"


def test_the_closure_follows_imports_and_not_the_rest_of_the_package():
    names = nc.closure("legsim.multibody._aba_world")
    assert {"legsim.multibody._aba", "legsim.multibody._spatial", "legsim._fastmath", "legsim._borrow",
            "legsim.multibody._layout"} <= set(names)
    # not the packages whose __init__ Python runs on the way (no name is taken from them), nor the rest
    assert "legsim" not in names and "legsim.multibody" not in names
    assert not any(n.startswith(("legsim.viz", "legsim.robots", "legsim.assembly")) for n in names)
    imp = nc.imports("legsim.assembly.robot")
    assert "legsim.multibody" in imp  # `from ..multibody import forward_kinematics`, in a function
    assert {"legsim.actuators.pneumatic._layout", "legsim.contact._geom", "legsim.hybrid"} <= imp
    assert "legsim.multibody._aba_world" in nc.closure("legsim.assembly._hooks")
    hooks = nc.cache_dir(Path(legsim.__file__).parent / "assembly" / "_hooks.py")
    assert hooks.parent == nc.cache_root() / "assembly" and hooks.name.startswith("_hooks-")
    assert nc.cache_dir(Path("/elsewhere/legsim/x.py")) is None


def test_a_module_keeps_its_recently_used_closures(tmp_path):
    """A new closure directory removes the module's others beyond the KEEP - 1 most recently used that
    have gone unused for a day; one used an hour ago stays, however many there are (several are in use
    at once when a template is copied per controller: session 27's first version pruned by count after
    10 minutes and removed a directory a CI run was writing to)."""
    made = []
    for i in range(nc.KEEP + 2):
        d = tmp_path / f"_hooks-{i:016x}"
        d.mkdir()
        age = time.time() - 86400 * (10 - i)
        os.utime(d, (age, age))
        made.append(d)
    fresh = tmp_path / "_hooks-ffffffffffffffff"
    fresh.mkdir()
    nc._prune(fresh)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted([fresh.name] + [d.name for d in made[-(nc.KEEP - 1):]])

    recent = []
    for i in range(nc.KEEP + 2):
        d = tmp_path / f"_kernels-{i:016x}"
        d.mkdir()
        age = time.time() - 3600
        os.utime(d, (age, age))
        recent.append(d)
    newer = tmp_path / "_kernels-ffffffffffffffff"
    newer.mkdir()
    nc._prune(newer)
    assert all(d.is_dir() for d in recent)


def test_warmup_clear_removes_the_cache_and_says_where(tmp_path):
    cache = tmp_path / "kernels"
    (cache / "assembly" / "_hooks-0123456789abcdef").mkdir(parents=True)
    (cache / "assembly" / "_hooks-0123456789abcdef" / "x.nbc").write_bytes(b"\0" * 2_000_000)
    env = dict(os.environ, LEGSIM_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-m", "legsim", "warmup", "--clear"], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and f"removed 2 MB of compiled kernels from {cache}" in out.stdout
    assert [f.name for f in cache.rglob("*")] == ["warmup.lock"]  # the lock a waiting warm-up may hold
    bad = subprocess.run([sys.executable, "-m", "legsim", "warmup", "--clear", "engine"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "name no families" in bad.stderr and "Traceback" not in bad.stderr


def test_cached_looks_in_the_modules_closure_directory(tmp_path, monkeypatch):
    module, function = "legsim.hybrid._kernels", "advance"
    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    assert not nc.cached(module, function)
    where = nc.cache_dir(nc._module_file(module))
    where.mkdir(parents=True)
    (where / f"_kernels.{function}-170.py311.nbi").write_bytes(b"")
    assert nc.cached(module, function)
    with pytest.raises(ValueError, match="no legsim module"):
        nc.cached("legsim.nowhere", function)


def test_the_suites_warm_up_compiles_every_family_on_an_empty_cache_and_after_an_edit_only_the_stale(
        tmp_path, monkeypatch):
    from legsim._compiling import first_kernel
    from legsim.warmup import FAMILIES, uncached

    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    assert uncached() == list(FAMILIES)  # nothing cached: every family, the short ones too
    marked = [n for n in FAMILIES if first_kernel(n) is not None]
    for name in marked[1:]:  # everything but the first family's kernel is cached
        where, function = first_kernel(name).rsplit(".", 1)
        d = nc.cache_dir(nc._module_file(where))
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{where.rpartition('.')[2]}.{function}-1.py311.nbi").write_bytes(b"")
    assert uncached() == marked[:1]


def test_a_template_copied_with_its_own_globals_is_keyed_on_what_they_hold_too():
    """assembly.compiled copies its sample-hook template per controller with the hooks module among its
    globals: numba links the hooks' code into the copy, though compiled.py does not import them, so the
    copy's stamp covers their closure too (an edit of the hooks recompiles every controller's copy)."""
    import types

    from legsim.assembly import _hooks, compiled

    template = compiled._controller_sample
    assert nc.bound_modules(template) == ()  # a plain function: its module's imports say it all
    assert "legsim.assembly._hooks" not in nc.closure("legsim.assembly.compiled")
    copy = types.FunctionType(template.__code__, dict(template.__globals__, H=_hooks), "copy")
    assert "legsim.assembly._hooks" in nc.bound_modules(copy)
    assert nc.cache_dir(compiled.__file__, nc.bound_modules(copy)) != nc.cache_dir(compiled.__file__)

    def outer():
        kernels = _hooks

        def inner():
            return kernels

        return inner

    assert nc.bound_modules(outer()) == ("legsim.assembly._hooks",)  # a closure cell


class _Terminal:
    """A stand-in for sys.stdin / sys.stderr attached to a terminal, recording what is written."""

    def __init__(self):
        self.lines: list[str] = []

    def isatty(self):
        return True

    def write(self, text):
        self.lines.append(text)

    def flush(self):
        pass


def test_a_first_run_in_a_terminal_starts_the_missing_families_in_the_background_and_only_then(
        tmp_path, monkeypatch):
    from legsim import warmup as wu

    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LEGSIM_BACKGROUND_WARMUP", raising=False)
    monkeypatch.setattr(wu, "uncached", lambda: ["assembly", "multibody"])
    calls, said = [], []

    def popen(cmd, **kw):
        calls.append((cmd, kw))

    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert wu.start_background(said.append, popen)
    (cmd, kw), = calls
    assert cmd == [sys.executable, "-m", "legsim", "warmup", "--background"]
    assert kw["start_new_session"] and kw["stdout"].name == str(tmp_path / wu.LOG)
    assert "(assembly, multibody) in the background" in said[0] and "LEGSIM_BACKGROUND_WARMUP=0" in said[0]

    calls.clear()
    with wu.exclusive() as mine:  # another warm-up runs: give way
        assert mine and not wu.start_background(said.append, popen)
    monkeypatch.setenv("LEGSIM_BACKGROUND_WARMUP", "0")
    assert not wu.start_background(said.append, popen)
    monkeypatch.delenv("LEGSIM_BACKGROUND_WARMUP")
    monkeypatch.setattr(wu, "uncached", lambda: [])  # everything cached
    assert not wu.start_background(said.append, popen)
    monkeypatch.setattr(wu, "uncached", lambda: ["assembly"])
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # a script, CI, a pipe: no terminal
    assert not wu.start_background(said.append, popen)
    assert calls == []


def test_the_cli_starts_it_after_a_command_that_compiled_and_not_otherwise(monkeypatch):
    from legsim import _compiling, cli
    from legsim import warmup as wu

    started = []
    monkeypatch.setattr(wu, "start_background", lambda echo: started.append(echo) or True)
    monkeypatch.setattr(_compiling, "compiled", lambda: False)
    assert cli.main(["models"]) == 0 and started == []
    monkeypatch.setattr(_compiling, "compiled", lambda: True)
    assert cli.main(["models"]) == 0 and len(started) == 1
    monkeypatch.setattr(wu, "warmup", lambda *a, **k: {})
    assert cli.main(["warmup", "slip"]) == 0 and len(started) == 1  # a warm-up itself starts none


def test_a_warmup_waits_for_the_one_running_then_compiles_what_it_left_and_a_background_one_gives_way(
        tmp_path, monkeypatch):
    import threading

    from legsim import warmup as wu

    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    compiled, said = [], []
    monkeypatch.setattr(wu, "_compile", lambda names, jobs, echo: compiled.append((names, time.monotonic())))
    monkeypatch.setattr(wu, "uncached", lambda: ["engine"])  # what the other warm-up left
    with wu.exclusive() as mine:
        assert mine
        waiter = threading.Thread(target=wu.warmup, args=(["assembly", "engine"],),
                                  kwargs={"echo": said.append})
        waiter.start()
        assert wu.warmup(["assembly"], background=True) == {}  # a background warm-up gives way
        time.sleep(1.0)
        released = time.monotonic()
    waiter.join(30)
    assert any("waiting for another process's warm-up" in line for line in said)
    (names, when), = compiled
    assert names == ["engine"] and when >= released

    env = dict(os.environ, LEGSIM_CACHE_DIR=str(tmp_path))
    bad = subprocess.run([sys.executable, "-m", "legsim", "warmup", "--background", "engine"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "name no families" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.parametrize("background", [True, False])
def test_a_first_run_stops_a_background_warmup_and_never_one_a_user_started(tmp_path, monkeypatch,
                                                                            background):
    from legsim import warmup as wu

    monkeypatch.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    holder = (f"import time\nfrom legsim.warmup import exclusive\nwith exclusive(background={background}):\n"
              "    print('held', flush=True)\n    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", holder, "--background" if background else "--user"],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert wu.stop_background() is background
        if background:
            assert proc.wait(10) != 0  # terminated, and the lock is free again
            with wu.exclusive(wait=False) as mine:
                assert mine
        else:
            time.sleep(0.5)
            assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    assert not wu.stop_background()  # nobody holds it
