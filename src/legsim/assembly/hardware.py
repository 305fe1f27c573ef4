"""Hardware files: a robot's actuators, sensors, contacts and controller rate in TOML beside its URDF
(as Jiminy's ``<robot>_hardware.toml``), checked key by key before anything is built.

Format (SI units: s, Hz, rad, m, N, N m, V, A, ohm)::

    urdf = "hopper.urdf"          # relative to this file, or absolute (unless the caller gives the model)
    floating_base = false         # the URDF's root link joins the world by a free joint (default false)
    control_period = 0.001        # the controller's period [s] (default 0.001)
    name = "hopper"               # optional: the model's name (default: the URDF's robot name)

    [urdf_options]                # optional, as legsim.multibody.load_urdf: gravity = [0, 0, -9.81]
    limit_stiffness = 0.0         # [N m/rad]; limit_damping [N m s/rad], friction_velocity [m/s or
                                  # rad/s], mimic = "error" | "ignore" | "fixed", meshes = "hull" | ...
    [contacts]                    # optional: no ground contact without it
    geometries = ["foot"]         # the touching collision shapes (default: every sphere, capsule, box)
    path = "event"                # or "smooth"
    normal = { law = "hunt_crossley", k = 1e5, alpha = 0.5 }   # a normal-law factory + its keywords
    friction = { law = "coulomb", mu = 0.8, v_eps = 0.01 }    # a friction-law factory (default: none)
    ground = { normal = [0, 0, 1], offset = 0.0 }             # or { incline = 0.1 } [rad], + through

    [actuators.knee]              # one table per actuator, named by its key; commands in file order
    type = "DCMotor"              # TorqueSource | PositionServo | VelocityServo | DCMotor | DCMotor.simsect
    joint = "knee"                # default: the actuator's name
    resistance = 2.0              # every other key: a field of the component (or simsect's keywords)

    [actuators.legs]              # one spec for many joints: an actuator on each, named after its joint
    type = "PositionServo"
    joints = ["hip", "knee"]      # or "all": every 1-DoF joint, in the model's order
    kp = 20.0

    [sensors.imu]                 # one table per sensor, named by its key
    type = "IMU"                  # JointEncoder | JointVelocity | IMU | ContactForce | MotorCurrent
    body = "trunk"
    rate_hz = 500                 # default 0: the controller's rate
    measurement = { noise_std = 0.01, bits = 12, lo = -40, hi = 40, seed = 1 }   # Measurement fields

    [sensors.enc]
    type = "JointEncoder"
    joints = "all"                # "all" also for JointVelocity joints, ContactForce geometries (every
                                  # contact geometry) and MotorCurrent actuators (every DCMotor)

Law names are the factories of :mod:`legsim.contact.laws` (``linear_penalty``, ``engelson``,
``restitution``, ``hunt_crossley``, ``hertz``, ``kelvin_voigt``; ``no_friction``, ``coulomb``,
``stribeck``, ``threshold``, ``anchor_spring``) and their keys the factories' keyword arguments.

Every mistake is an :class:`~legsim.errors.InputError` naming the file and the table: an unknown
key gets the closest valid one, a wrong type says what is expected, a bad value gets the
component's own message (field and allowed range), a joint or body the robot lacks gets the
robot's message (with the names it has).

A scenario (``robot = "hopper_hardware.toml"``, :mod:`legsim.scenario`) runs such a robot with a
Python controller named ``"module:function"`` or ``"file.py:function"`` (:func:`load_controller`).
Name hardware files ``<robot>_hardware.toml``: ``legsim demo`` does not list those among the bundled
scenarios (``legsim/scenarios/hopper*``: the example).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..contact import laws as CL
from ..contact.shapes import Plane, inclined_plane
from ..errors import InputError
from ..hybrid import Options
from ..hybrid.model import closest
from ..multibody.model import Model
from ..multibody.urdf import MESH_OPTIONS, MIMIC_OPTIONS, load_urdf
from ..world._points import contact_points
from . import components as C
from .controller import Controller
from .robot import Robot

__all__ = ["load_hardware", "parse_hardware", "load_controller", "start_state", "default_options",
           "describe", "ACTUATORS", "SENSORS", "NORMAL_LAWS", "FRICTION_LAWS"]

ACTUATORS: dict[str, Callable[..., Any]] = {
    "TorqueSource": C.TorqueSource, "PositionServo": C.PositionServo, "VelocityServo": C.VelocityServo,
    "DCMotor": C.DCMotor, "DCMotor.simsect": C.DCMotor.simsect}
"""Actuator ``type`` -> component (or preset) taking ``(name, joint, **keys)``."""
SENSORS: dict[str, Callable[..., Any]] = {cls.__name__: cls for cls in (
    C.JointEncoder, C.JointVelocity, C.IMU, C.ContactForce, C.MotorCurrent)}
"""Sensor ``type`` -> component taking ``(name, **keys)``."""
NORMAL_LAWS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    CL.linear_penalty, CL.engelson, CL.restitution, CL.hunt_crossley, CL.hertz, CL.kelvin_voigt)}
FRICTION_LAWS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    CL.no_friction, CL.coulomb, CL.stribeck, CL.threshold, CL.anchor_spring)}

_TOP = ("urdf", "floating_base", "control_period", "name", "urdf_options", "contacts", "actuators",
        "sensors")
_URDF_OPTIONS = {"gravity": "vector", "limit_stiffness": "number", "limit_damping": "number",
                 "friction_velocity": "number", "mimic": "str", "meshes": "str"}
_CONTACTS = ("geometries", "path", "normal", "friction", "ground")
_GROUND = ("normal", "offset", "incline", "through")
# a parameter's annotation -> the kind of TOML value it takes
_KIND_OF = {"float": "number", "float | None": "number", "int": "int", "bool": "bool", "str": "str",
            "Sequence[str]": "names", "Sequence[str] | None": "names", "Sequence[float]": "vector",
            "Sequence[Sequence[float]]": "matrix", "Measurement": "table"}
_EXPECTED = {"number": "a number", "int": "a whole number", "bool": "true or false",
             "str": "a quoted string", "names": "a name or a list of names", "table": "a table",
             "vector": "a list of numbers", "matrix": "a list of lists of numbers"}


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _ok(kind: str, v: Any) -> bool:
    if kind == "number":
        return _is_number(v)
    if kind == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "str":
        return isinstance(v, str)
    if kind == "names":
        return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))
    if kind == "table":
        return isinstance(v, dict)
    if kind == "vector":
        return isinstance(v, list) and all(_is_number(x) for x in v)
    if kind == "matrix":
        return isinstance(v, list) and all(_ok("vector", r) for r in v)
    return True


def _params(make: Callable[..., Any], skip: tuple[str, ...]) -> dict[str, tuple[str, bool]]:
    """``make``'s keyword parameters (those not in ``skip``): name -> (kind of value, required)."""
    out = {}
    for p in inspect.signature(make).parameters.values():
        if p.name in skip or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        ann = p.annotation if isinstance(p.annotation, str) else ""
        kind = _KIND_OF.get(ann) or ("bool" if isinstance(p.default, bool) else "number" if not ann
                                     else "any")
        out[p.name] = (kind, p.default is p.empty)
    return out


class _File:
    """Checks values read from one file; every message starts ``<file> [<table>]:``."""

    def __init__(self, source: str):
        self.src = source

    def where(self, table: str | None) -> str:
        return f"{self.src} [{table}]" if table else self.src

    def fail(self, table: str | None, msg: str) -> InputError:
        return InputError(f"{self.where(table)}: {msg}")

    def keys(self, table: str | None, got: Mapping[str, Any], allowed, what: str = "key") -> None:
        for key in got:
            if key not in allowed:
                raise self.fail(table, f"unknown {what} {key!r}{closest(key, list(allowed))}; "
                                       f"valid: {', '.join(allowed)}")

    def value(self, table: str | None, key: str, v: Any, kind: str) -> Any:
        if not _ok(kind, v):
            raise self.fail(table, f"{key} = {v!r}: expected {_EXPECTED[kind]}")
        return float(v) if kind == "number" else v

    def table(self, table: str | None, key: str, v: Any) -> dict[str, Any]:
        if not isinstance(v, dict):
            full = f"{table}.{key}" if table else key
            raise self.fail(table, f"{key} = {v!r}: expected a table ([{full}] or {key} = {{ ... }})")
        return v

    def kwargs(self, table: str, spec: Mapping[str, Any], params: Mapping[str, tuple[str, bool]],
               what: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
        """The keys of ``spec`` that are ``params``, type-checked; the others must be in ``extra``."""
        self.keys(table, spec, [*extra, *params], f"{what} key")
        missing = [k for k, (_, req) in params.items() if req and k not in spec]
        if missing:
            raise self.fail(table, f"missing key {missing[0]!r} (required by {what})")
        return {k: self.value(table, k, v, params[k][0]) for k, v in spec.items() if k in params}

    def build(self, table: str, make: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``make(*args, **kwargs)`` with its InputError prefixed by the file and table."""
        try:
            return make(*args, **kwargs)
        except (InputError, TypeError, ValueError) as exc:
            raise self.fail(table, str(exc)) from None

    def choose(self, table: str, spec: Mapping[str, Any], key: str, options: Mapping[str, Any]) -> str:
        if key not in spec:
            raise self.fail(table, f"missing key {key!r}; one of {', '.join(options)}")
        name = self.value(table, key, spec[key], "str")
        if name not in options:
            raise self.fail(table, f"{key} = {name!r} is unknown{closest(name, list(options))}; "
                                   f"one of {', '.join(options)}")
        return name


# ------------------------------------------------------------------------------------- the file
def load_hardware(path: str | Path, model: Model | None = None) -> Robot:
    """The :class:`Robot` a hardware file declares; its URDF is read relative to the file's folder,
    unless ``model`` (a :class:`legsim.multibody.Model`) is given (then ``urdf``,
    ``floating_base`` and ``[urdf_options]`` are not read)."""
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise InputError(f"hardware file '{p}' not found") from None
    except OSError as exc:
        raise InputError(f"cannot read hardware file '{p}': {exc.strerror}") from None
    return parse_hardware(text, str(p), p.parent, model=model)


def parse_hardware(text: str, source: str = "<hardware>", urdf_dir: str | Path | None = None, *,
                   model: Model | None = None) -> Robot:
    """The :class:`Robot` declared by hardware-file ``text`` (module docstring); ``source`` names the
    file in messages, ``urdf_dir`` is where a relative ``urdf`` is looked for (default: the folder
    of ``source``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML: {exc}") from None
    f = _File(source)
    f.keys(None, data, _TOP)
    if model is None:
        mb = _urdf(f, data, Path(urdf_dir) if urdf_dir is not None else Path(source).parent)
    elif isinstance(model, Model):
        mb = model
    else:
        raise InputError(f"{source}: model = {type(model).__name__}, expected a legsim.multibody.Model")
    contacts = _contacts(f, f.table(None, "contacts", data["contacts"])) if "contacts" in data else None
    actuators, origin = _actuators(f, f.table(None, "actuators", data.get("actuators", {})), mb)
    sensors, sorigin = _sensors(f, f.table(None, "sensors", data.get("sensors", {})), mb, contacts,
                                actuators)
    period = f.value(None, "control_period", data.get("control_period", 1e-3), "number")
    name = f.value(None, "name", data["name"], "str") if "name" in data else None
    try:
        return Robot(mb, actuators=actuators, sensors=sensors, contacts=contacts, control_period=period,
                     name=name)
    except InputError as exc:  # name the table of the part the robot refused, when it says which
        msg = str(exc)
        table = next((t for prefix, t in {**origin, **sorigin}.items() if msg.startswith(prefix)), None)
        if table is None and msg.startswith(("Robot contacts", "Contacts")):
            table = "contacts"
        raise f.fail(table, msg) from None


def _urdf(f: _File, data: Mapping[str, Any], base: Path) -> Model:
    if "urdf" not in data:
        raise f.fail(None, "missing key 'urdf' (the robot's URDF file, relative to this file)")
    rel = f.value(None, "urdf", data["urdf"], "str")
    path = base / rel
    if not path.is_file():
        raise f.fail(None, f"urdf = {rel!r}: URDF file '{path}' not found")
    floating = f.value(None, "floating_base", data.get("floating_base", False), "bool")
    opts = f.table(None, "urdf_options", data.get("urdf_options", {}))
    f.keys("urdf_options", opts, list(_URDF_OPTIONS), "URDF option")
    kw = {k: f.value("urdf_options", k, v, _URDF_OPTIONS[k]) for k, v in opts.items()}
    for k, choices in (("mimic", MIMIC_OPTIONS), ("meshes", MESH_OPTIONS)):
        if k in kw and kw[k] not in choices:
            raise f.fail("urdf_options", f"{k} = {kw[k]!r}: expected one of {', '.join(choices)}")
    for k, low_open in (("limit_stiffness", False), ("limit_damping", False), ("friction_velocity", True)):
        if k in kw:
            f.build("urdf_options", C._num, "load_urdf", k, kw[k], lo=0.0, lo_open=low_open)
    if "gravity" in kw and len(kw["gravity"]) != 3:
        raise f.fail("urdf_options", f"gravity = {kw['gravity']!r}: expected 3 numbers [m/s^2]")
    try:
        return load_urdf(path, floating_base=floating, **kw)
    except InputError as exc:
        raise f.fail(None, f"urdf = {rel!r}: {exc}") from None


def _contacts(f: _File, spec: dict[str, Any]) -> C.Contacts:
    t = "contacts"
    f.keys(t, spec, _CONTACTS)
    if "normal" not in spec:
        raise f.fail(t, "missing key 'normal' (the normal-force law, e.g. normal = "
                        "{ law = \"hunt_crossley\", k = 1e5, alpha = 0.5 })")
    normal = _law(f, "contacts.normal", spec["normal"], NORMAL_LAWS)
    friction = _law(f, "contacts.friction", spec["friction"], FRICTION_LAWS) if "friction" in spec \
        else CL.no_friction()
    ground = _ground(f, f.table(t, "ground", spec["ground"])) if "ground" in spec else Plane()
    kw = {}
    if "geometries" in spec:
        kw["geometries"] = f.value(t, "geometries", spec["geometries"], "names")
    if "path" in spec:
        kw["path"] = f.value(t, "path", spec["path"], "str")
    return f.build(t, C.Contacts, CL.ContactLaw(normal, friction), ground, **kw)


def _law(f: _File, t: str, spec: Any, laws: Mapping[str, Callable[..., Any]]) -> Any:
    spec = f.table(t.rpartition(".")[0], t.rpartition(".")[2], spec)
    name = f.choose(t, spec, "law", laws)
    kw = f.kwargs(t, spec, _params(laws[name], ()), name, ("law",))
    return f.build(t, laws[name], **kw)


def _ground(f: _File, spec: dict[str, Any]) -> Plane:
    t = "contacts.ground"
    f.keys(t, spec, _GROUND)
    if "incline" in spec:
        if "normal" in spec or "offset" in spec:
            raise f.fail(t, "give either incline [rad] (and through) or normal and offset, not both")
        through = f.value(t, "through", spec.get("through", [0.0, 0.0, 0.0]), "vector")
        if len(through) != 3:
            raise f.fail(t, f"through = {through!r}: expected 3 numbers [m]")
        return f.build(t, inclined_plane, f.value(t, "incline", spec["incline"], "number"), through)
    if "through" in spec:
        raise f.fail(t, "through goes with incline (a plane by its normal is placed by offset [m])")
    normal = f.value(t, "normal", spec.get("normal", [0.0, 0.0, 1.0]), "vector")
    return f.build(t, Plane, tuple(normal), f.value(t, "offset", spec.get("offset", 0.0), "number"))


def _names_or_all(f: _File, t: str, key: str, v: Any, every: tuple[str, ...], what: str) -> list[str]:
    if v == "all":
        if not every:
            raise f.fail(t, f"{key} = 'all', but the robot has no {what}")
        return list(every)
    v = f.value(t, key, v, "names")
    if not v:
        raise f.fail(t, f"{key} = []: expected one or more names")
    return [v] if isinstance(v, str) else list(v)


def _actuators(f: _File, tables: dict[str, Any], mb: Model) -> tuple[list[Any], dict[str, str]]:
    out: list[Any] = []
    origin: dict[str, str] = {}
    for key, spec in tables.items():
        t = f"actuators.{key}"
        spec = f.table("actuators", key, spec)
        kind = f.choose(t, spec, "type", ACTUATORS)
        make = ACTUATORS[kind]
        kw = f.kwargs(t, spec, _params(make, ("name", "joint")), kind, ("type", "joint", "joints"))
        if "joints" in spec:
            if "joint" in spec:
                raise f.fail(t, "give joint (one actuator) or joints (one per joint), not both")
            joints = _names_or_all(f, t, "joints", spec["joints"], tuple(mb.joint_names), "1-DoF joints")
            pairs = [(j, j) for j in joints]
        else:
            pairs = [(key, f.value(t, "joint", spec.get("joint", key), "str"))]
        for name, joint in pairs:
            act = f.build(t, make, name, joint, **kw)
            out.append(act)
            origin[f"{type(act).__name__} {name!r}:"] = t
    return out, origin


def _sensors(f: _File, tables: dict[str, Any], mb: Model, contacts: C.Contacts | None,
             actuators: list[Any]) -> tuple[list[Any], dict[str, str]]:
    every: dict[str, tuple[str, ...]] = {
        "joints": tuple(mb.joint_names),
        "actuators": tuple(a.name for a in actuators if isinstance(a, C.DCMotor)),
        "geometries": () if contacts is None else tuple(dict.fromkeys(
            p[4] for p in f.build("contacts", contact_points, mb, contacts.geometries, "Contacts")))}
    what = {"joints": "1-DoF joints", "actuators": "DC motors", "geometries": "contact geometries"}
    out: list[Any] = []
    origin: dict[str, str] = {}
    for key, spec in tables.items():
        t = f"sensors.{key}"
        spec = f.table("sensors", key, spec)
        kind = f.choose(t, spec, "type", SENSORS)
        params = _params(SENSORS[kind], ("name",))
        every_of = {k: v for k, v in spec.items() if k in every and k in params and v == "all"}
        kw = f.kwargs(t, {k: v for k, v in spec.items() if k not in every_of}, params, kind, ("type",))
        for k in every_of:
            kw[k] = _names_or_all(f, t, k, "all", every[k], what[k])
        if "measurement" in kw:
            m = kw["measurement"]
            mt = f"{t}.measurement"
            kw["measurement"] = C.Measurement(**f.kwargs(mt, m, _params(C.Measurement, ()), "Measurement"))
        out.append(f.build(t, SENSORS[kind], key, **kw))
        origin[f"{kind} {key!r}:"] = t
    return out, origin


# ------------------------------------------------------------------------- running the robot
def default_options(robot: Robot) -> Options:
    """The options :meth:`Robot.simulate` uses when given none: DP45 (rtol 1e-7) with steps up to
    the control period on the event path, fixed-step RK4 at half the control period on the smooth
    path; a record every control period [s]."""
    if robot.model.nguard == 0:
        return Options(method="rk4_fixed", h_max=robot.control_period / 2,
                       record_period=robot.control_period)
    return Options(rtol=1e-7, atol=1e-9, h_max=robot.control_period, record_period=robot.control_period)


def start_state(robot: Robot, initial: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Keywords ``q0``, ``v0``, ``commands0`` of :meth:`Robot.simulate` from a table holding ``q0``
    (nq numbers), ``v0`` (nv numbers), and/or single coordinates by state name (``knee``,
    ``knee_dot``, ``root_joint_z``, ...: they override the arrays) and first commands ``u_<actuator>``.
    Defaults: the neutral configuration, at rest, commands as :meth:`Robot.initial_state`."""
    mb = robot.mb
    names = robot.model.state_names
    coords = list(names[:mb.nq + mb.nv])
    commands = [f"u_{a}" for a in robot.actuator_names]
    allowed = ["q0", "v0", *coords, *commands]
    x = np.concatenate([mb.neutral(), np.zeros(mb.nv)])
    cmd: dict[str, float] = {}
    for key in initial:
        if key not in allowed:
            raise InputError(f"{where} {key}: unknown initial value of robot {robot.name!r}"
                             f"{closest(key, allowed)}; valid: q0, v0, {', '.join(coords + commands)}")
    for key, n, off in (("q0", mb.nq, 0), ("v0", mb.nv, mb.nq)):
        if key in initial:
            v = initial[key]
            if not (_ok("vector", v) and len(v) == n):
                raise InputError(f"{where} {key} = {v!r}: expected a list of {n} numbers")
            x[off:off + n] = v
    for key, v in initial.items():
        if key in ("q0", "v0"):
            continue
        if not _is_number(v):
            raise InputError(f"{where} {key} = {v!r}: expected a number")
        if key in commands:
            cmd[key[2:]] = float(v)
        else:
            x[coords.index(key)] = float(v)
    return {"q0": x[:mb.nq], "v0": x[mb.nq:], "commands0": cmd or None}


def load_controller(ref: str, base_dir: str | Path = ".", params: Mapping[str, Any] | None = None,
                    where: str = "controller") -> Controller:
    """The controller ``ref`` names: ``"package.module:function"`` (imported) or
    ``"file.py:function"`` (a file relative to ``base_dir``). Without ``params`` the function is
    the controller, ``function(t, sensors) -> commands``; with ``params`` it is a factory,
    ``function(**params)`` returning the controller (unknown keys get the closest parameter)."""
    module_ref, sep, func = ref.rpartition(":")
    if not (sep and module_ref and func):
        raise InputError(f"{where} = {ref!r}: expected 'package.module:function' or 'file.py:function'")
    module = _import(module_ref, Path(base_dir), f"{where} = {ref!r}")
    fn = getattr(module, func, None)
    if fn is None:
        public = [n for n in vars(module) if not n.startswith("_")]
        raise InputError(f"{where} = {ref!r}: {module_ref} has no function {func!r}{closest(func, public)}")
    if not callable(fn):
        raise InputError(f"{where} = {ref!r}: {func} is a {type(fn).__name__}, expected a function")
    if params is not None:
        _check_params(fn, params, f"{where} = {ref!r}: [controller_params]")
        try:
            fn = fn(**params)
        except Exception as exc:  # the user's factory refused its parameters
            raise InputError(f"{where} = {ref!r}: {func}(**controller_params) failed: "
                             f"{type(exc).__name__}: {exc}") from None
        if not callable(fn):
            raise InputError(f"{where} = {ref!r}: {func}(**controller_params) returned a "
                             f"{type(fn).__name__}, expected a function controller(t, sensors)")
    try:
        _signature(fn).bind(0.0, None)
    except TypeError:
        if params is not None:
            raise InputError(f"{where} = {ref!r}: the function {func}(**controller_params) returns cannot "
                             "be called as controller(t, sensors)") from None
        raise InputError(f"{where} = {ref!r}: {func}() cannot be called as controller(t, sensors); if it "
                         "makes the controller, give its parameters in [controller_params] (an empty "
                         "table calls it without any)") from None
    return fn


def _check_params(fn: Callable[..., Any], params: Mapping[str, Any], where: str) -> None:
    """Every key of ``params`` is a parameter of the factory ``fn`` (unless it takes ``**kwargs``)."""
    ps = {p.name: p for p in _signature(fn).parameters.values()}
    takes = [n for n, p in ps.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for key, value in params.items():
        if key not in takes:
            if any(p.kind == p.VAR_KEYWORD for p in ps.values()):
                continue
            raise InputError(f"{where} {key}: {getattr(fn, '__name__', 'the factory')}() takes no "
                             f"parameter {key!r}{closest(key, takes)}; it takes {', '.join(takes) or 'none'}")
        ann = ps[key].annotation  # a simple annotation (float, int, bool, str) is checked
        kind = _KIND_OF.get(ann if isinstance(ann, str) else getattr(ann, "__name__", ""), "any")
        if kind in ("number", "int", "bool", "str") and not _ok(kind, value):
            raise InputError(f"{where} {key} = {value!r}: expected {_EXPECTED[kind]}")


def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: accept it as it is
        return inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])


def _import(module_ref: str, base_dir: Path, where: str) -> Any:
    if module_ref.endswith(".py"):
        path = base_dir / module_ref
        if not path.is_file():
            raise InputError(f"{where}: controller file '{path}' not found")
        name = f"_legsim_controller_{abs(hash(str(path.resolve())))}_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise InputError(f"{where}: cannot load '{path}' as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # the user's file does not run: say where and why
            del sys.modules[name]
            raise InputError(f"{where}: importing '{path}' failed: {type(exc).__name__}: {exc}") from None
        return module
    try:
        return importlib.import_module(module_ref)
    except ImportError as exc:
        beside = base_dir / (module_ref.replace(".", "/") + ".py")
        hint = f" (a file beside the scenario is named '{beside.name}:...')" if beside.is_file() else ""
        raise InputError(f"{where}: cannot import module {module_ref!r}: {exc}{hint}") from None
    except Exception as exc:
        raise InputError(f"{where}: importing {module_ref!r} failed: {type(exc).__name__}: {exc}") from None


def describe(robot: Robot) -> dict[str, Any]:
    """The robot's parts as plain data (for a run's metadata): control period [s], actuators,
    sensors and contacts with every field."""
    def part(p: Any) -> dict[str, Any]:
        return {"type": type(p).__name__, **dataclasses.asdict(p)}

    c = robot.contacts
    return {"name": robot.name, "control_period": robot.control_period,
            "actuators": [part(a) for a in robot.actuators], "sensors": [part(s) for s in robot.sensors],
            "contacts": None if c is None else {
                "normal": c.law.normal.law.name.lower(), "friction": c.law.friction.law.name.lower(),
                "params": c.law.params.tolist(), "ground_normal": list(c.ground.normal),
                "ground_offset": c.ground.offset, "geometries": c.geometries, "path": c.path}}
