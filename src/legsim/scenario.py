"""TOML scenario files: model, parameters, initial state, integrator, controller, terrain, outputs.

A scenario is validated before anything runs: an unknown key gets an error naming the file,
the table and the closest valid key; a wrong type or out-of-range value gets an error naming
the file, the key and what is allowed. Example::

    model = "hexapod"          # a registered model (legsim models lists them)
    t_final = 5.0              # [s]
    mode = 0                   # optional; otherwise the model's init_partition decides

    [params]                   # any model parameter, by name
    body_mass = 7.0
    [controller]               # parameters too, grouped for readability
    t_c = 0.5
    [terrain]
    terrain_type = 0
    [initial]                  # initial state, by state name
    r_z = 0.2
    [integrator]               # legsim.hybrid.Options fields
    method = "dp45"
    rtol = 1e-6
    [outputs]
    record_period = 0.01
    [model_options]            # passed to the model's builder, e.g. a user heightfield:
    heightfield = { file = "ground.csv", x0 = -1.0, y0 = -1.0, dx = 0.05, dy = 0.05 }

A robot from a hardware file (:mod:`legsim.assembly.hardware`) instead of a registered model::

    robot = "hopper_hardware.toml"   # relative to this file; excludes model, t0, mode, params,
    t_final = 3.0                    # terrain and model_options
    controller = "hopper_controller.py:pd_bounce"   # or "package.module:function"; optional
    [controller_params]              # if given, the function is a factory: function(**params)
    amplitude = 0.25                 # returns controller(t, sensors); else it is the controller
    [hardware.actuators.legs]        # optional: keys laid over the hardware file's tables (a design
    gear = 40.0                      # study sweeps them: --grid hardware.actuators.legs.gear=20,30,40)
    [initial]                        # q0 = [...], v0 = [...], coordinates by state name, and
    knee = -1.2                      # first commands u_<actuator>
    [integrator]                     # over the robot's defaults (legsim.assembly.hardware.default_options)
    [outputs]
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import registry
from .errors import InputError, closest, shown
from .hybrid import Model, Options
from .userfiles import parse_toml, read_text, user_path

if TYPE_CHECKING:
    from .assembly import Robot

__all__ = ["Scenario", "load_scenario", "parse_scenario"]

_TOP = {"model", "t_final", "t0", "mode", "description", "params", "controller", "terrain",
        "initial", "integrator", "outputs", "model_options"}
_ROBOT_TOP = {"robot", "t_final", "description", "controller", "controller_params", "initial",
              "integrator", "outputs", "hardware"}
_PARAM_TABLES = ("params", "controller", "terrain")
_OUTPUT_KEYS = {"record_period", "events", "progress"}

# allowed ranges for the integrator options: (type, low, low_inclusive)
_INTEGRATOR = {
    "method": (str, None, None), "rtol": (float, 0.0, False), "atol": (float, 0.0, False),
    "tolerance": (float, 0.0, False), "power": (float, 0.0, False), "h_min": (float, 0.0, False),
    "h_max": (float, 0.0, False), "h0": (float, 0.0, True),
    "stop_precision": (float, 0.0, False), "max_stop_iter": (int, 1, True),
    "max_transitions": (int, 0, True), "record_period": (float, 0.0, True),
    "sample_period": (float, 0.0, True), "sliding": (bool, None, None),
    "sliding_tolerance": (float, 0.0, False), "check_every_step": (bool, None, None),
    "restart_step_after_event": (bool, None, None), "wall_time_limit": (float, 0.0, True),
}


@dataclass
class Scenario:
    """A validated scenario: the model, its inputs and the integrator options."""

    source: str
    model: Model
    model_name: str
    t_final: float
    t0: float
    mode: int | None
    params: dict[str, float]
    initial: dict[str, float]
    options: Options
    outputs: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    robot: Robot | None = None
    """The robot of a hardware-file scenario (None for a registered model)."""
    robot_controller: Callable[..., Any] | None = None
    robot_start: dict[str, Any] = field(default_factory=dict)
    """:meth:`legsim.assembly.Robot.simulate` keywords ``q0``, ``v0``, ``commands0``."""
    robot_meta: dict[str, Any] = field(default_factory=dict)

    def resolved(self) -> dict[str, Any]:
        """The scenario with every default filled in (written to the run's metadata)."""
        x = self.model.state(self.initial)
        if self.robot is not None:  # its parameters are packed tables: the parts say more
            return {"model": self.model_name, **self.robot_meta, "t0": self.t0, "t_final": self.t_final,
                    "initial": dict(zip(self.model.state_names, map(float, x), strict=True)),
                    "integrator": self.options.as_dict(), "outputs": dict(self.outputs),
                    "source": self.source}
        p = self.model.params(self.params)
        return {
            "model": self.model_name, "t0": self.t0, "t_final": self.t_final, "mode": self.mode,
            "params": dict(zip(self.model.param_names, map(float, p), strict=True)),
            "initial": dict(zip(self.model.state_names, map(float, x), strict=True)),
            "integrator": self.options.as_dict(), "outputs": dict(self.outputs),
            "source": self.source,
        }


def _where(src: str, table: str | None, key: str) -> str:
    return f"{src}: [{table}] {key}" if table else f"{src}: {key}"


def _number(src: str, table: str | None, key: str, value: Any, kind: type, low=None,
            inclusive=True) -> Any:
    where = _where(src, table, key)
    if kind is bool:
        if not isinstance(value, bool):
            raise InputError(f"{where} = {value!r}: expected true or false")
        return value
    if kind is str:
        if not isinstance(value, str):
            raise InputError(f"{where} = {value!r}: expected a quoted string")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where} = {value!r}: expected a {'whole number' if kind is int else 'number'}")
    if kind is int and (not float(value).is_integer()):
        raise InputError(f"{where} = {value!r}: expected a whole number")
    if not math.isfinite(value):
        raise InputError(f"{where} = {value!r}: expected a finite number")
    if low is not None and (value < low or (value == low and not inclusive)):
        rel = ">=" if inclusive else ">"
        raise InputError(f"{where} = {value!r}: out of range, allowed {rel} {low:g}")
    return int(value) if kind is int else float(value)


def _check_keys(src: str, table: str | None, got: dict, allowed, what: str) -> None:
    for key in got:
        if key not in allowed:
            raise InputError(f"{_where(src, table, key)}: unknown {what}{closest(key, list(allowed))}; "
                             f"valid: {', '.join(sorted(allowed))}")


def parse_scenario(data: dict[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate a scenario dictionary ``data`` (as read from TOML); ``source`` (a string: the file's path)
    opens every message, and files the scenario names are relative to its folder."""
    if not isinstance(source, str):
        raise InputError(f"parse_scenario: 'source' = {shown(source)}, expected a string (the scenario "
                         "file's path, or a name such as '<scenario>')")
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise InputError(f"{source}: the scenario 'data' = {shown(data)}, expected a table of keys (a dict, "
                         "as tomllib reads a scenario file)")
    if not data:
        raise InputError(f"{source}: the scenario 'data' is empty; expected 'model' (or 'robot') and "
                         "'t_final' at least")
    raw = copy.deepcopy(data)
    if "robot" in data:
        return _parse_robot_scenario(data, source, raw)
    _check_keys(source, None, data, _TOP | {"robot"}, "key")
    if "model" not in data:
        raise InputError(f"{source}: missing key 'model' (the model to run, e.g. \"slip\") or 'robot' "
                         "(a hardware file, e.g. \"hopper_hardware.toml\")")
    name = _number(source, None, "model", data["model"], str)
    model_options = data.get("model_options", {})
    if not isinstance(model_options, dict):
        raise InputError(f"{source}: 'model_options' must be a table ([model_options])")
    base = Path(source).parent
    for key, value in model_options.items():  # files named in option tables are relative to here
        if isinstance(value, dict) and isinstance(value.get("file"), str):
            model_options[key] = {**value, "file": str(base / value["file"])}
    model = registry.build(name, where=f"{source}: model", **model_options)
    if "t_final" not in data:
        raise InputError(f"{source}: missing key 't_final' (the final time in seconds)")
    t0 = _number(source, None, "t0", data.get("t0", 0.0), float)
    t_final = _number(source, None, "t_final", data["t_final"], float, t0, False)
    mode = _number(source, None, "mode", data["mode"], int, 0) if "mode" in data else None
    params: dict[str, float] = {}
    for table in _PARAM_TABLES:
        section = data.get(table, {})
        if not isinstance(section, dict):
            raise InputError(f"{source}: '{table}' must be a table ([{table}])")
        for key, value in section.items():
            if key not in model.param_names:
                raise InputError(f"{_where(source, table, key)}: unknown parameter of model '{name}'"
                                 f"{closest(key, model.param_names)}")
            if key in params:
                raise InputError(f"{_where(source, table, key)}: parameter set twice")
            params[key] = _number(source, table, key, value, float)
            rng = model.param_ranges.get(key)
            if rng is not None:
                rng.check(params[key], _where(source, table, key))
    model.params(params, where=source)  # the rules that tie parameters together
    initial = data.get("initial", {})
    if not isinstance(initial, dict):
        raise InputError(f"{source}: 'initial' must be a table ([initial])")
    for key, value in initial.items():
        if key not in model.state_names:
            raise InputError(f"{_where(source, 'initial', key)}: unknown state of model '{name}'"
                             f"{closest(key, model.state_names)}")
        initial[key] = _number(source, "initial", key, value, float)
    opt_kwargs, outputs = _integrator(source, data)
    try:
        options = Options(**opt_kwargs)
    except InputError as exc:
        raise InputError(f"{source}: [integrator] {exc}") from None
    return Scenario(source=source, model=model, model_name=name, t_final=t_final, t0=t0, mode=mode,
                    params=params, initial=dict(initial), options=options, outputs=dict(outputs),
                    raw=raw)


def _integrator(source: str, data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checked ``[integrator]`` options (with ``[outputs] record_period``) and ``[outputs]``."""
    integ = data.get("integrator", {})
    if not isinstance(integ, dict):
        raise InputError(f"{source}: 'integrator' must be a table ([integrator])")
    _check_keys(source, "integrator", integ, _INTEGRATOR, "integrator option")
    opt_kwargs = {k: _number(source, "integrator", k, v, *_INTEGRATOR[k]) for k, v in integ.items()}
    outputs = data.get("outputs", {})
    if not isinstance(outputs, dict):
        raise InputError(f"{source}: 'outputs' must be a table ([outputs])")
    _check_keys(source, "outputs", outputs, _OUTPUT_KEYS, "output option")
    if "record_period" in outputs:
        opt_kwargs["record_period"] = _number(source, "outputs", "record_period",
                                              outputs["record_period"], float, 0.0, True)
    return opt_kwargs, outputs


def _parse_robot_scenario(data: dict[str, Any], source: str, raw: dict[str, Any]) -> Scenario:
    """A scenario running the robot of a hardware file (module docstring)."""
    from .assembly import hardware as hw

    if "model" in data:
        raise InputError(f"{source}: 'model' and 'robot' exclude each other: a scenario runs a registered "
                         "model or a robot from a hardware file")
    _check_keys(source, None, data, _ROBOT_TOP, "key of a robot scenario")
    base = Path(source).parent
    rel = _number(source, None, "robot", data["robot"], str)
    if not (base / rel).exists():
        raise InputError(f"{source}: robot = {rel!r}: hardware file '{base / rel}' not found")
    overrides = data.get("hardware")
    if overrides is not None and not isinstance(overrides, dict):
        raise InputError(f"{source}: 'hardware' must be a table ([hardware] or [hardware.actuators.NAME]: "
                         "keys laid over the hardware file's)")
    try:
        robot = hw.load_hardware(base / rel, overrides=overrides)
    except InputError as exc:  # the message names the hardware file; say which scenario used it
        raise InputError(f"{source}: robot = {rel!r}: {exc}") from None
    if "t_final" not in data:
        raise InputError(f"{source}: missing key 't_final' (the final time in seconds)")
    t_final = _number(source, None, "t_final", data["t_final"], float, 0.0, False)
    initial = data.get("initial", {})
    if not isinstance(initial, dict):
        raise InputError(f"{source}: 'initial' must be a table ([initial])")
    start = hw.start_state(robot, initial, f"{source}: [initial]")
    ref = data.get("controller")
    params = data.get("controller_params")
    if params is not None and not isinstance(params, dict):
        raise InputError(f"{source}: 'controller_params' must be a table ([controller_params])")
    if ref is None and params is not None:
        raise InputError(f"{source}: [controller_params] without controller = \"module:function\"")
    if ref is not None and not isinstance(ref, str):
        raise InputError(f"{source}: controller = {ref!r}: expected \"package.module:function\" or "
                         "\"file.py:function\" (its parameters go in [controller_params])")
    controller = None if ref is None else hw.load_controller(ref, base, params, f"{source}: controller")
    opt_kwargs, outputs = _integrator(source, data)
    try:
        options = dataclasses.replace(hw.default_options(robot), **opt_kwargs)
    except InputError as exc:
        raise InputError(f"{source}: [integrator] {exc}") from None
    try:
        x0 = robot.initial_state(**start)
    except InputError as exc:
        raise InputError(f"{source}: [initial] {exc}") from None
    meta = {"robot": str(base / rel), "controller": ref, "controller_params": params,
            "hardware_overrides": overrides, "hardware": hw.describe(robot)}
    x0_named = dict(zip(robot.model.state_names, map(float, x0), strict=True))
    return Scenario(source=source, model=robot.model, model_name=robot.name, t_final=t_final, t0=0.0,
                    mode=None, params={}, initial=x0_named, options=options, outputs=outputs, raw=raw,
                    robot=robot, robot_controller=controller, robot_start=start, robot_meta=meta)


def bundled_scenario(path: str | Path) -> Path | None:
    """The bundled scenario file (``legsim/scenarios/``) that ``path`` names when it is a bare name
    (``slip_run`` or ``slip_run.toml``) and no such file exists here; else None."""
    path = Path(path)
    bundled = Path(__file__).parent / "scenarios" / f"{path.stem}.toml"
    if (not path.exists() and path.parent == Path() and path.suffix in ("", ".toml") and bundled.is_file()
            and not path.stem.endswith("_hardware")):
        return bundled
    return None


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a TOML scenario file."""
    path = user_path(path, "scenario file")
    bundled = bundled_scenario(path)
    if bundled is not None:
        raise InputError(f"scenario file '{path}' not found ('{path.stem}' is a bundled scenario: "
                         f"`legsim demo {path.stem}` runs it with its figures; its file is {bundled})")
    text = read_text(path, "scenario file")
    return parse_scenario(parse_toml(text, str(path)), str(path))
