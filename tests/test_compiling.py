"""The first run's second process (legsim._compiling.compile_in_background): what it compiles and in which
order, when it starts at all, and that the engine waits for the engine only. The process is replaced by a
recorder: a real one would compile for a minute (DESIGN.md "Compile time" has the measured effect)."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import sys
import types
from pathlib import Path

import pytest

import legsim._compiling as C
import legsim._machine
from legsim.cli import _runs_a_robot_from_parts, build_parser


class _Job:
    """Records the command line; ``poll`` says it is still running until ``done``."""

    def __init__(self, argv, **kw):
        self.argv = argv
        self.done = False
        jobs.append(self)

    def poll(self):
        return 0 if self.done else None

    def terminate(self):
        self.done = True


jobs: list[_Job] = []
gave_way: list[int] = []  # calls of C._give_way (a background warm-up stopped)


@pytest.fixture
def fresh(monkeypatch):
    """No job yet, both caches empty, two cores, the JIT on, nothing imported."""
    jobs.clear()
    gave_way.clear()
    monkeypatch.setattr(C, "_give_way", lambda: gave_way.append(len(jobs)))
    monkeypatch.setattr(C, "_JOB", None)
    monkeypatch.setattr(C, "_JOB_MODULES", ())
    monkeypatch.setattr(C.subprocess, "Popen", _Job)
    monkeypatch.setattr(C.atexit, "register", lambda f: None)
    monkeypatch.setattr(legsim._machine, "cpu_count", lambda: 2)
    monkeypatch.delenv("LEGSIM_BACKGROUND_COMPILE", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    monkeypatch.setattr(C, "engine_cached", lambda stiff=False: False)
    monkeypatch.setattr(C, "assembly_cached", lambda: False)
    monkeypatch.setattr(C, "replay_cached", lambda: False)
    monkeypatch.setattr(C, "world_cached", lambda world: False)
    for m in ("legsim.hybrid._engine", "legsim.hybrid._engine_stiff", C.PREWARM, C.REPLAY_PREWARM,
              *C.WORLD_LATE.values()):
        monkeypatch.delitem(sys.modules, m, raising=False)
    return monkeypatch


def _imports(job: _Job) -> list[str]:
    assert job.argv[:2] == [sys.executable, "-c"]
    return [part.removeprefix("import ") for part in job.argv[2].split("; ")]


def test_a_robot_from_parts_gets_its_joint_accelerations_first_then_the_engine_then_its_replays_kinematics(
        fresh):
    C.compile_in_background(assembly=True)
    assert len(jobs) == 1 and _imports(jobs[0]) == [C.PREWARM, "legsim.hybrid._engine", C.REPLAY_PREWARM]
    assert gave_way == [0]  # a background warm-up was stopped first (legsim.warmup.stop_background)
    C.compile_in_background(assembly=True)   # one job per process
    assert len(jobs) == 1


def test_other_runs_get_the_engine_alone_and_the_stiff_variant_when_asked(fresh):
    C.compile_in_background(stiff=True)
    assert _imports(jobs[0]) == ["legsim.hybrid._engine_stiff"]


@pytest.mark.parametrize("world", ["robot", "rigid"])
def test_a_world_gets_its_loops_late_callees_and_not_the_engine(fresh, world):
    C.compile_in_background(world=world)
    assert _imports(jobs[0]) == [C.WORLD_LATE[world]]
    fresh.setattr(C, "_JOB", None)
    fresh.setattr(C, "world_cached", lambda world: True)
    C.compile_in_background(world=world)
    assert len(jobs) == 1


def _asks_for_the_second_process_while_its_loop_is_not_here(monkeypatch, module, loop, world, kind):
    """``world.simulate`` (of ``module``, whose compiled loop is ``loop``) asks ``compile_in_background`` for
    ``kind``'s second process when its loop is not in this process, and not once it is (the cache probe
    costs 40 us a call)."""
    asked = []
    monkeypatch.setattr(module, "compile_in_background", lambda **kw: asked.append(kw))
    world.simulate(1e-3, 1e-4)  # the loop is in this process from here on
    asked.clear()
    world.simulate(1e-3, 1e-4)
    assert asked == []
    with monkeypatch.context() as before_the_loop_is_loaded:
        before_the_loop_is_loaded.setattr(loop, "overloads", {})
        world.simulate(1e-3, 1e-4)
    assert asked == [{"world": kind}]


def test_robot_and_rigid_worlds_ask_for_the_second_process_while_their_loop_is_not_here(monkeypatch):
    from legsim.contact import _bodies, bodies
    from legsim.contact._one_sphere import sphere_world
    from legsim.world import _kernels, robot_world
    from legsim.world._one_body import one_body_world

    _asks_for_the_second_process_while_its_loop_is_not_here(monkeypatch, robot_world, _kernels.run,
                                                             one_body_world(), "robot")
    _asks_for_the_second_process_while_its_loop_is_not_here(monkeypatch, bodies, _bodies.run, sphere_world(),
                                                             "rigid")


def test_nothing_starts_when_cached_disabled_or_on_one_core(fresh):
    fresh.setattr(C, "engine_cached", lambda stiff=False: True)
    fresh.setattr(C, "assembly_cached", lambda: True)
    fresh.setattr(C, "replay_cached", lambda: True)
    C.compile_in_background(assembly=True)
    assert jobs == [] and gave_way == []  # nothing to compile: a background warm-up goes on
    fresh.setattr(C, "assembly_cached", lambda: False)
    fresh.setenv("LEGSIM_BACKGROUND_COMPILE", "0")   # legsim warmup's workers
    C.compile_in_background(assembly=True)
    assert jobs == []
    fresh.delenv("LEGSIM_BACKGROUND_COMPILE")
    fresh.setattr(legsim._machine, "cpu_count", lambda: 1)
    C.compile_in_background(assembly=True)
    assert jobs == []


def test_while_the_engine_compiles_there_this_process_compiles_its_late_callees_unless_parts_wait(fresh):
    """legsim._compiling.engine_callees (called by registry.build before a model compiles its hooks) imports
    legsim.hybrid._prewarm only while the second process compiles the engine (either variant) and no robot
    from parts' joint accelerations, whose hooks are this process's own long compile."""
    imported = []
    fresh.setattr(importlib, "import_module", lambda name: imported.append(name))
    fresh.delitem(sys.modules, C.ENGINE_PREWARM, raising=False)
    C.engine_callees()  # no job: not a first run
    C.compile_in_background(assembly=True)
    C.engine_callees()
    assert imported == []
    for stiff in (False, True):
        fresh.setattr(C, "_JOB", None)
        C.compile_in_background(stiff=stiff)
        C.engine_callees()
    assert imported == [C.ENGINE_PREWARM] * 2


def test_a_first_run_from_python_starts_the_engines_second_process_and_compiles_its_callees_here(fresh):
    """engine() called with no second process (a script or the API, not the CLI) and the engine uncached:
    it starts the second process for the engine and imports legsim.hybrid._prewarm meanwhile; not in a
    pool's worker process."""
    imported = []
    stub = types.SimpleNamespace(advance="the loop")
    fresh.setattr(importlib, "import_module", lambda name: imported.append(name) or stub)
    fresh.setattr(C, "engine_cached", lambda stiff=False: bool(jobs) and C.ENGINE_PREWARM in imported)
    fresh.delitem(sys.modules, C.ENGINE_PREWARM, raising=False)
    fresh.setattr(multiprocessing, "parent_process", lambda: object())  # a pool's worker: nothing starts
    assert C.engine() == "the loop" and jobs == [] and imported == ["legsim.hybrid._engine"]
    fresh.setattr(multiprocessing, "parent_process", lambda: None)
    imported.clear()
    assert C.engine() == "the loop"
    assert len(jobs) == 1 and _imports(jobs[0]) == ["legsim.hybrid._engine"]
    assert imported == [C.ENGINE_PREWARM, "legsim.hybrid._engine"]


def _typed_as_their_caller(driver, args_types, callees) -> None:
    """A fresh (uncached) compile of the compile driver ``driver`` for ``args_types``, after its caller's
    loop was loaded or compiled, leaves each of ``callees`` one compiled overload in this process and one
    signature in numba's cache index: other types would add the driver's own beside the loop's (compiled
    here, or cached by the warm-up)."""
    from numba import njit

    from legsim._cache_audit import _signatures

    options = {k: v for k, v in driver.targetoptions.items() if k not in ("cache", "nopython")}
    njit(args_types, **options)(driver.py_func)  # not cached: it types the callees afresh
    for c in callees:
        name = c.py_func.__qualname__
        assert len(c.overloads) == 1, name
        [index] = Path(c.stats.cache_path).glob(f"*.{name}-*.nbi")
        assert len(_signatures(index)) == 1, name


def test_the_engines_late_callees_are_compiled_ahead_with_the_engines_own_argument_types():
    """legsim.hybrid._prewarm's driver types the callees the engine's compile reaches last as the engine
    does (after the engine, loaded or compiled here)."""
    from legsim._compiling import engine
    from legsim.hybrid import _events, _prewarm, _steppers
    from legsim.hybrid._kernels import _ADVANCE_SIG

    engine()
    _typed_as_their_caller(_prewarm.late_callees, _ADVANCE_SIG, (
        _events._records_until, _steppers._slide_alpha, _events._locate, _events._try_slide))


def test_robot_worlds_late_callees_are_compiled_ahead_with_its_loops_own_argument_types():
    """legsim.world._late_callees's driver types the callees RobotWorld's loop reaches last as the loop does
    (after the loop, loaded or compiled here on the one-body world)."""
    from legsim.contact import _response
    from legsim.multibody import _aba_world
    from legsim.world import _kernels, _late_callees
    from legsim.world._one_body import one_body_world

    one_body_world().simulate(1e-3, 1e-3, method="rk4")
    [sig] = _late_callees.late_callees.signatures
    _typed_as_their_caller(_late_callees.late_callees, sig, (
        _response.contact_forces, _kernels.rk4_commit_forces, _kernels.rk4_stage_forces, _kernels._target,
        _aba_world.forward_dynamics_world))


def test_rigid_worlds_late_callees_are_compiled_ahead_with_its_loops_own_argument_types():
    """legsim.contact._late_callees's driver types the callees RigidWorld's loop reaches last as the loop
    does (after the loop, loaded or compiled here on the sphere world)."""
    from legsim.contact import _collide, _late_callees, _narrow, _response
    from legsim.contact._one_sphere import sphere_world

    sphere_world().simulate(1e-4, 1e-5)
    [sig] = _late_callees.late_callees.signatures
    _typed_as_their_caller(_late_callees.late_callees, sig,
                           (_narrow.height_body, _collide._grid_pairs, _response.contact_forces))


def test_the_engine_waits_for_its_cache_entry_not_for_the_whole_job(fresh):
    """The job goes on with other modules after the engine: engine() returns once the engine's cache index
    is there (here: at the fourth poll, when the stand-in module appears), while the job still runs."""
    C.compile_in_background(assembly=True)
    stub = types.ModuleType("legsim.hybrid._engine")
    stub.advance = "the loop"
    polls = []

    def cached(stiff=False):
        polls.append(stiff)
        if len(polls) > 3:
            fresh.setitem(sys.modules, "legsim.hybrid._engine", stub)   # what the import then loads
            return True
        return False

    fresh.setattr(C, "engine_cached", cached)
    fresh.setattr(C.time, "sleep", lambda s: None)
    assert C.engine() == "the loop"
    assert len(polls) == 4 and jobs[0].poll() is None   # the job was not waited for


def test_the_cli_tells_robots_from_parts_by_their_scenario(tmp_path):
    p = build_parser()
    scenarios = C.__file__.replace("_compiling.py", "scenarios/")
    assert _runs_a_robot_from_parts(p.parse_args(["run", scenarios + "hopper.toml", "--out", "x"]))
    leg = scenarios + "crr_leg_gamma_steps.toml"
    assert _runs_a_robot_from_parts(p.parse_args(["run", leg, "--out", "x"]))
    assert not _runs_a_robot_from_parts(p.parse_args(["run", scenarios + "slip_run.toml", "--out", "x"]))
    assert _runs_a_robot_from_parts(p.parse_args(["demo", "anton_walk"]))
    assert not _runs_a_robot_from_parts(p.parse_args(["demo", "hexapod_walk"]))
    bad = tmp_path / "bad.toml"
    bad.write_text("robot = [")
    assert not _runs_a_robot_from_parts(p.parse_args(["run", str(bad), "--out", "x"]))
    assert not _runs_a_robot_from_parts(p.parse_args(["run", str(tmp_path / "missing.toml"), "--out", "x"]))



def test_the_cache_audit_names_a_function_compiled_for_two_argument_types(tmp_path):
    """legsim._cache_audit (DESIGN "One compiled variant per kernel"): a cached function called with an
    int and with a float, and once only with a float, in a fresh cache: the first is listed with its
    two signatures and the argument where they differ, the second not."""
    import subprocess

    from legsim._cache_audit import duplicate_signatures, main

    (tmp_path / "twice.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef add(x, k):\n    return x + k\n\n\n"
        "@njit(cache=True)\ndef once(x):\n    return 2.0 * x\n")
    cache = tmp_path / "cache"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", "import twice; twice.add(1.0, 1); twice.add(1.0, 1.5); "
                          "twice.once(1.0)"], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    dups = duplicate_signatures(cache)
    assert [(d.function, d.count) for d in dups] == [("twice.add-4", 2)]
    assert dups[0].differences == ((1, ("float64", "int64")),)
    assert main([str(cache)]) == 0


def test_a_compile_long_enough_to_announce_stops_a_background_warmup(fresh):
    w = C._Watcher(open(os.devnull, "w"), after=0.0)
    w.start("legsim.assembly._hooks.robot_guards")
    w.announce()
    w.end()
    assert gave_way == [0] and w.announced


def test_a_compile_cut_short_says_no_duration_and_leaves_no_estimate(fresh, tmp_path):
    """Ctrl-C (or an error) inside an announced compile: the burst ends without "compiled in N s" (the CLI
    says "interrupted"), and its time does not become the next notice's estimate; the next burst of the same
    function is announced with the table's figure and closes normally."""
    import io

    fresh.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    name = "legsim.assembly._hooks.robot_guards"
    out = io.StringIO()
    w = C._Watcher(out, after=60.0)
    w.start(name)
    w.announce()
    w.end(failed=True)
    w.close()
    assert "compiled in" not in out.getvalue() and not (tmp_path / C.TIMES).exists()
    w.start(name)
    w.announce()
    w.end()
    w.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and "(about 45 s on a 2-core machine)" in lines[1] and "compiled in" in lines[2]


def test_a_compile_that_raised_is_told_from_numbas_end_event():
    from numba.core.event import Event, EventStatus

    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt:
        raised = Event("numba:compile", EventStatus.END, exc_details=sys.exc_info())
    ok = Event("numba:compile", EventStatus.END, exc_details=(None, None, None))
    assert C._raised(raised) and not C._raised(ok)


def test_the_notice_estimates_from_the_last_compile_on_this_machine(fresh, tmp_path):
    import io

    fresh.setenv("LEGSIM_CACHE_DIR", str(tmp_path))
    name = "legsim.assembly._hooks.robot_guards"
    said = []
    for _ in range(2):
        out = io.StringIO()
        w = C._Watcher(out, after=60.0)
        w.start(name)
        w.announce()
        w.end()
        w.last_end = w.burst + 73.0  # the burst lasted 73 s
        w.close()
        said.append(out.getvalue())
    assert "(about 45 s on a 2-core machine)" in said[0] and "compiled in 73 s" in said[0]  # the table's
    assert "(about 73 s, as its last compile here)" in said[1]
