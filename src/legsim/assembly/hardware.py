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
    path = "event"                # or "smooth"; point = "midway" (default) or "sphere": where a point pushes
    normal = { law = "hunt_crossley", k = 1e5, alpha = 0.5 }   # a normal-law factory + its keywords
    friction = { law = "coulomb", mu = 0.8, v_eps = 0.01 }    # a friction-law factory (default: none)
    ground = { normal = [0, 0, 1], offset = 0.0 }             # or { incline = 0.1 } [rad], + through,
                                  # or a terrain { terrain = "sines", params = [a, kx, ky, phase, ...] }
                                  # or a grid { heightfield = "steps.csv", dx = 0.05, dy = 0.05,
                                  # origin = [x0, y0] }: heights [m] in a .csv/.txt (row i at
                                  # x0 + i dx, column j at y0 + j dy) or .npy file, relative to this file

    [actuators.knee]              # one table per actuator, named by its key; commands in file order
    type = "DCMotor"              # TorqueSource | PositionServo | VelocityServo | DCMotor | DCMotor.simsect
                                  # | PMSMDrive | PMSMDrive.rotto (ROTTO's linear drive; keys: its fields)
    joint = "knee"                # default: the actuator's name
    resistance = 2.0              # every other key: a field of the component (or simsect's keywords)

    [actuators.legs]              # one spec for many joints: an actuator on each, named after its joint
    type = "PositionServo"
    joints = ["hip", "knee"]      # or "all": every 1-DoF joint, in the model's order
    kp = 20.0

    [sensors.imu]                 # one table per sensor, named by its key
    type = "IMU"                  # JointEncoder | JointVelocity | IMU | ContactForce | ForceTorque
                                  # | MotorCurrent | PhaseCurrent | ChamberPressure
                                  # | IncrementalEncoder | LimitSwitch
    body = "trunk"
    rate_hz = 500                 # default 0: the controller's rate
    measurement = { noise_std = 0.01, bits = 12, lo = -40, hi = 40, seed = 1 }   # Measurement fields

    [sensors.ankle_ft]            # a six-axis force/torque sensor: the wrench of these contacts
    type = "ForceTorque"          # about its mounting point (position, rotation on body), sensor axes
    body = "foot"
    geometries = ["heel", "toe"]
    channel_measurements = { Fz = { bits = 12, lo = -400, hi = 400 } }   # per channel (Fx .. Mz)

    [sensors.home]                # limit switches (1 while pressed) on joints, or on actuators:
    type = "LimitSwitch"          # their joints, or their rods' lengths
    actuators = ["knee_drive"]    # or joints = [...]; "all": every actuator (every 1-DoF joint)
    positions = 0.31              # [rad or m], one for all or one per name; side = "upper"
                                  # (pressed at s >= position) | "lower"

    [sensors.counts]              # edges counted since the first sample (joints or actuators, as above)
    type = "IncrementalEncoder"
    joints = ["knee"]
    counts_per_unit = 2037.18     # [counts per rad or m]: counts per motor turn x ratio / (2 pi)

    [sensors.enc]
    type = "JointEncoder"
    joints = "all"                # "all" also for JointVelocity joints, ContactForce geometries (every
                                  # contact geometry), MotorCurrent actuators (every DCMotor, PMSMDrive),
                                  # PhaseCurrent actuators (every PMSMDrive)

    [loops.alpha]                 # a closed loop (LinkageLoop): a cylinder with mass between the links of
    joint = "alpha"               # a revolute joint, its barrel (revolute) and piston (prismatic) joints
    barrel = "alpha_barrel"       # following the joint's angle through the CRR triangle of
    piston = "alpha_piston"       # linkage (JointLinkage fields, as a transmission's, without type)
    linkage = { joint = "ALPHA", l1 = 0.14, l2 = 0.11, l3 = 0.03, l4 = 0.0 }

    [exchange]                    # optional: the split target/SrLib exchange (SplitExchange, Daepp 2011)
    delay_up = 1                  # one-way delays [controller ticks, whole, 0 .. 3]; the round trip is
    delay_down = 2                # delay_up + delay_down + 1 ticks
    pause_t0 = 0.55               # an exchange pause [s] (default pause_duration 0: none)
    pause_duration = 0.09

Pneumatics and batteries (SI: Pa absolute, K, m^3, m^2; a resource is named by its key)::

    [resources.tank]              # a supply tank (AirSupply): p0 + the fields of SupplyTank
    type = "AirSupply"
    p0 = 825325.0                 # [Pa] absolute starting pressure (required)
    gas = "nitrogen"              # or "air"; volume [m^3], temperature [K], leak = "none" |
    volume = 0.84e-3              # "exponential" | "orifice", leak_tau [s], leak_area [m^2], p_atm [Pa]

    [resources.pack]              # a battery the DC motors naming it drain (battery = "pack")
    type = "Battery"
    c0 = 1.0                      # starting charge fraction; + capacity_ah, rated_hours, exponent, voltage

    [actuators.leg]               # the RATS leg on a prismatic joint
    type = "SolenoidCylinder"
    supply = "tank"               # an AirSupply of [resources]
    valve = "rubber_seat"         # or "spool_sleeve", or a table of SolenoidValve fields: { latency =
    exhaust = "orifice"           # 5e-3, flow = "cv", cv = 0.3 }, optionally from preset = "rubber_seat"
    exhaust_area = 1.6e-6         # every other key: a field of SolenoidCylinder (area, stroke, flow, ...)

    [actuators.alpha]             # a proportional-valve cylinder (PneumaticCylinder)
    type = "PneumaticCylinder"
    p_cap0 = 3.0e5                # optional: the initial chamber pressures [Pa]; supply = "tank" optional
    transmission = { type = "JointLinkage", joint = "ALPHA", l1 = 0.14, l2 = 0.11, l3 = 0.03, l4 = 0.0 }
                                  # or { type = "LinearLinkage", theta0, x0, theta1, x1 }; omitted: x = q
    [actuators.alpha.actuator]    # the PneumaticActuator (or actuator = { ... }); every key optional
    p_supply = 448700.0           # [Pa] absolute; p_exhaust, p_atm [Pa], t_supply [K], gas = "air",
    p_exhaust = 170300.0          # heat = "adiabatic" | "polytropic" | "isothermal", n_poly,
    valve = "mpye5_fitted"        # critical_ratio, laminar_ratio; valve: mpye5_fitted | mpye5_simple |
    friction = "stribeck_tanh_source"   # mpye5_underlapped; friction: stribeck_tanh_source |
    cylinder = { stroke = 0.0445 }      # viscous_source; cylinder: bimba_rig or Cylinder fields

    [sensors.p]
    type = "ChamberPressure"
    actuators = "all"             # every pneumatic and solenoid cylinder

``valve``, ``friction`` and ``cylinder`` of an actuator (and a SolenoidCylinder's ``valve``) are
each a preset's name or a table of the class's fields (``ProportionalValve``, ``Friction``,
``Cylinder``, ``SolenoidValve``); a table may start from ``preset = "<name>"`` and change some
fields (``friction = { preset = "viscous_source", c_v = 50.0 }``). Enumerated fields are given by
lower-case name: ``model = "stribeck_tanh"`` (friction), ``model = "fitted"``, ``voltage_reference =
"consistent"`` (valve). A SolenoidValve table without a preset is named after the actuator.

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

import copy
import dataclasses
import math
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..actuators.electric.battery import PeukertBattery
from ..actuators.pneumatic.actuator import HeatModel, PneumaticActuator
from ..actuators.pneumatic.cylinder import Cylinder, bimba_rig
from ..actuators.pneumatic.friction import Friction, FrictionModel, stribeck_tanh_source, viscous_source
from ..actuators.pneumatic.gas import AIR, NITROGEN
from ..actuators.pneumatic.linkage import Joint, JointLinkage, LinearLinkage
from ..actuators.pneumatic.solenoid import RUBBER_SEAT, SPOOL_SLEEVE, SolenoidValve
from ..actuators.pneumatic.tank import SupplyTank
from ..actuators.pneumatic.valves import (
    ProportionalValve,
    ValveModel,
    VoltageReference,
    mpye5_fitted,
    mpye5_simple,
    mpye5_underlapped,
)
from ..contact import laws as CL
from ..contact.shapes import HeightField, HeightFunction, Plane, inclined_plane
from ..errors import InputError, as_float, check_number, closest, shown
from ..hybrid import Options
from ..multibody.model import Model
from ..multibody.urdf import MESH_OPTIONS, MIMIC_OPTIONS, load_urdf
from ..userfiles import parse_toml, read_text
from . import _values as V
from . import components as C
from ._controller_ref import load_controller

if TYPE_CHECKING:  # the robot module compiles the shared hooks: imported only to build one
    from .robot import Robot

__all__ = ["load_hardware", "parse_hardware", "load_parts", "parse_parts", "merge_overrides", "Parts",
           "load_controller",
           "start_state", "default_options",
           "describe", "is_robot", "ACTUATORS", "SENSORS", "RESOURCES", "NORMAL_LAWS", "FRICTION_LAWS"]

ACTUATORS: dict[str, Callable[..., Any]] = {
    "TorqueSource": C.TorqueSource, "PositionServo": C.PositionServo, "VelocityServo": C.VelocityServo,
    "DCMotor": C.DCMotor, "DCMotor.simsect": C.DCMotor.simsect, "SolenoidCylinder": C.SolenoidCylinder,
    "PneumaticCylinder": C.PneumaticCylinder, "PMSMDrive": C.PMSMDrive, "PMSMDrive.rotto": C.PMSMDrive.rotto}
"""Actuator ``type`` -> component (or preset) taking ``(name, joint, **keys)``."""
SENSORS: dict[str, Callable[..., Any]] = {cls.__name__: cls for cls in (
    C.JointEncoder, C.JointVelocity, C.IMU, C.ContactForce, C.ForceTorque, C.MotorCurrent, C.PhaseCurrent,
    C.ChamberPressure, C.IncrementalEncoder, C.LimitSwitch)}
"""Sensor ``type`` -> component taking ``(name, **keys)``."""
RESOURCES: dict[str, Callable[..., Any]] = {"AirSupply": C.AirSupply, "Battery": C.Battery}
"""Resource ``type`` -> component taking ``(name, <model>, **keys)``."""
GASES = {"air": AIR, "nitrogen": NITROGEN}
SOLENOID_VALVES: dict[str, Callable[[], SolenoidValve]] = {
    "spool_sleeve": lambda: SPOOL_SLEEVE, "rubber_seat": lambda: RUBBER_SEAT}
PROPORTIONAL_VALVES: dict[str, Callable[[], ProportionalValve]] = {
    f.__name__: f for f in (mpye5_fitted, mpye5_simple, mpye5_underlapped)}
FRICTIONS: dict[str, Callable[[], Friction]] = {f.__name__: f for f in (stribeck_tanh_source, viscous_source)}
CYLINDERS: dict[str, Callable[[], Cylinder]] = {"bimba_rig": bimba_rig}
TRANSMISSIONS: dict[str, type] = {"JointLinkage": JointLinkage, "LinearLinkage": LinearLinkage}
NORMAL_LAWS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    CL.linear_penalty, CL.engelson, CL.restitution, CL.hunt_crossley, CL.hertz, CL.kelvin_voigt)}
FRICTION_LAWS: dict[str, Callable[..., Any]] = {f.__name__: f for f in (
    CL.no_friction, CL.coulomb, CL.stribeck, CL.threshold, CL.anchor_spring)}

_TOP = ("urdf", "floating_base", "control_period", "name", "urdf_options", "contacts", "resources",
        "actuators", "sensors", "loops", "exchange")
_URDF_OPTIONS = {"gravity": "vector", "limit_stiffness": "number", "limit_damping": "number",
                 "friction_velocity": "number", "mimic": "str", "meshes": "str"}
_CONTACTS = ("geometries", "path", "normal", "friction", "ground", "point")
_GROUND = ("normal", "offset", "incline", "through", "terrain", "params", "heightfield", "dx", "dy", "origin")
_HEIGHTFIELD = ("heightfield", "dx", "dy", "origin")
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
        if not V.ok(kind, v):
            raise self.fail(table, f"{key} = {v!r}: expected {V.EXPECTED[kind]}")
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
@dataclasses.dataclass(frozen=True)
class Parts:
    """What a hardware file declares, read and checked, before anything is compiled: the multibody
    model ``mb``, the components (``actuators``, ``sensors``, ``contacts``, ``resources``), the
    controller's ``control_period`` [s] and the robot's ``name`` (the model's unless the file gives
    one). The viewer draws a robot from its parts; :meth:`robot` compiles them into a
    :class:`Robot` (whose import compiles the shared hooks once per machine)."""

    mb: Model
    actuators: tuple[Any, ...]
    sensors: tuple[Any, ...]
    contacts: C.Contacts | None
    resources: tuple[Any, ...]
    control_period: float
    name: str
    source: str
    origins: Mapping[str, str]
    """Message prefix of each part (``"DCMotor 'knee'"``) -> the table it came from."""
    exchange: C.SplitExchange | None = None
    """The ``[exchange]`` table's :class:`~legsim.assembly.SplitExchange` (None without one)."""
    loops: tuple[C.LinkageLoop, ...] = ()
    """The ``[loops]`` tables' :class:`~legsim.assembly.LinkageLoop` s."""

    def robot(self) -> Robot:
        """The :class:`Robot` of these parts; a part the robot refuses is named by its table."""
        from .robot import Robot

        try:
            return Robot(self.mb, actuators=self.actuators, sensors=self.sensors, contacts=self.contacts,
                         resources=self.resources, control_period=self.control_period, name=self.name,
                         loops=self.loops, exchange=self.exchange)
        except InputError as exc:  # name the table of the part the robot refused, when it says which
            msg = str(exc)
            table = next((t for prefix, t in self.origins.items() if msg.startswith(prefix)), None)
            if table is None and msg.startswith(("Robot contacts", "Contacts")):
                table = "contacts"
            if table is None and msg.startswith("Robot: a SplitExchange"):
                table = "exchange"
            raise _File(self.source).fail(table, msg) from None


def load_hardware(path: str | Path, model: Model | None = None,
                  overrides: Mapping[str, Any] | None = None) -> Robot:
    """The :class:`Robot` a hardware file declares; its URDF is read relative to the file's folder,
    unless ``model`` (a :class:`legsim.multibody.Model`) is given (then ``urdf``,
    ``floating_base`` and ``[urdf_options]`` are not read). ``overrides``: tables and keys laid over
    the file's (:func:`merge_overrides`: a scenario's ``[hardware]``, a sweep's ``hardware.*`` keys)."""
    return load_parts(path, model, overrides).robot()


def parse_hardware(text: str, source: str = "<hardware>", urdf_dir: str | Path | None = None, *,
                   model: Model | None = None) -> Robot:
    """The :class:`Robot` declared by hardware-file ``text`` (module docstring); ``source`` names the
    file in messages, ``urdf_dir`` is where a relative ``urdf`` is looked for (default: the folder
    of ``source``)."""
    return parse_parts(text, source, urdf_dir, model=model).robot()


def load_parts(path: str | Path, model: Model | None = None,
               overrides: Mapping[str, Any] | None = None) -> Parts:
    """The :class:`Parts` of a hardware file (as :func:`load_hardware`, without building the robot);
    ``overrides``: tables and keys that replace the file's (:func:`merge_overrides`)."""
    p = Path(path)
    return parse_parts(read_text(p, "hardware file"), str(p), p.parent, model=model, overrides=overrides)


def merge_overrides(data: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of hardware-file ``data`` with ``overrides`` laid over it: a table merges into the
    file's table of that name key by key (at any depth), any other value replaces the file's. So
    ``{"actuators": {"legs": {"gear": 40.0}}}`` changes one key of ``[actuators.legs]`` and keeps the
    rest; the result is checked as a file would be. Both are mappings (tables)."""
    for name, table in (("data", data), ("overrides", overrides)):
        if not isinstance(table, Mapping):
            raise InputError(f"merge_overrides: '{name}' = {shown(table)}, expected a table (a mapping of "
                             "keys to values)")
    out = copy.deepcopy(dict(data))
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge_overrides(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def parse_parts(text: str, source: str = "<hardware>", urdf_dir: str | Path | None = None, *,
                model: Model | None = None, overrides: Mapping[str, Any] | None = None) -> Parts:
    """The :class:`Parts` of hardware-file ``text`` (as :func:`parse_hardware`, without building the
    robot); ``overrides`` (:func:`merge_overrides`), then messages name ``source`` "with overrides"."""
    data = parse_toml(text, source)
    if overrides:
        if not isinstance(overrides, Mapping):
            raise InputError(f"{source}: overrides = {overrides!r}, expected a table of its keys")
        data = merge_overrides(data, overrides)
        source = f"{source} (with overrides)"
    f = _File(source)
    f.keys(None, data, _TOP)
    if model is None:
        mb = _urdf(f, data, Path(urdf_dir) if urdf_dir is not None else Path(source).parent)
    elif isinstance(model, Model):
        mb = model
    else:
        raise InputError(f"{source}: model = {type(model).__name__}, expected a legsim.multibody.Model")
    base = Path(urdf_dir) if urdf_dir is not None else Path(source).parent
    contacts = _contacts(f, f.table(None, "contacts", data["contacts"]), base) if "contacts" in data else None
    resources, rorigin = _resources(f, f.table(None, "resources", data.get("resources", {})))
    actuators, origin = _actuators(f, f.table(None, "actuators", data.get("actuators", {})), mb)
    sensors, sorigin = _sensors(f, f.table(None, "sensors", data.get("sensors", {})), mb, contacts,
                                actuators)
    period = f.value(None, "control_period", data.get("control_period", 1e-3), "number")
    name = f.value(None, "name", data["name"], "str") if "name" in data else mb.name
    exchange = _exchange(f, f.table(None, "exchange", data["exchange"])) if "exchange" in data else None
    loops, lorigin = _loops(f, f.table(None, "loops", data.get("loops", {})))
    return Parts(mb, tuple(actuators), tuple(sensors), contacts, tuple(resources), period, name, source,
                 {**origin, **sorigin, **rorigin, **lorigin}, exchange, tuple(loops))


def _loops(f: _File, tables: dict[str, Any]) -> tuple[list[C.LinkageLoop], dict[str, str]]:
    """The ``[loops.<name>]`` tables: ``joint``, ``barrel``, ``piston`` (joint names) and ``linkage`` (a
    table of :class:`JointLinkage` fields); each a :class:`~legsim.assembly.LinkageLoop`."""
    out, origin = [], {}
    for key, spec in tables.items():
        t = f"loops.{key}"
        spec = f.table("loops", key, spec)
        f.keys(t, spec, ("joint", "barrel", "piston", "linkage"), "LinkageLoop key")
        for k in ("joint", "barrel", "piston", "linkage"):
            if k not in spec:
                raise f.fail(t, f"missing key {k!r} (required by LinkageLoop)")
        names = {k: f.value(t, k, spec[k], "str") for k in ("joint", "barrel", "piston")}
        link = f.table(t, "linkage", spec["linkage"])
        if "type" in link:
            raise f.fail(f"{t}.linkage", "a loop's linkage is a JointLinkage: give its fields without 'type'")
        linkage = _transmission(f, f"{t}.linkage", {**link, "type": "JointLinkage"})
        out.append(f.build(t, C.LinkageLoop, linkage=linkage, **names))
        origin[f"LinkageLoop {names['joint']!r}"] = t
    return out, origin


def _exchange(f: _File, spec: dict[str, Any]) -> C.SplitExchange:
    """The ``[exchange]`` table: the keys of :class:`~legsim.assembly.SplitExchange`, type-checked, then
    its own checks (delays 0 .. 3 ticks, pause >= 0)."""
    kw = f.kwargs("exchange", spec, V.params(C.SplitExchange, ()), "SplitExchange")
    return f.build("exchange", C.SplitExchange, **kw)


def _urdf(f: _File, data: Mapping[str, Any], base: Path) -> Model:
    if "urdf" not in data:
        raise f.fail(None, "missing key 'urdf' (the robot's URDF file, relative to this file)")
    rel = f.value(None, "urdf", data["urdf"], "str")
    path = base / rel
    if not path.exists():
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
            f.build("urdf_options", check_number, "load_urdf", k, kw[k], lo=0.0, lo_open=low_open)
    if "gravity" in kw and len(kw["gravity"]) != 3:
        raise f.fail("urdf_options", f"gravity = {kw['gravity']!r}: expected 3 numbers [m/s^2]")
    try:
        return load_urdf(path, floating_base=floating, **kw)
    except InputError as exc:
        raise f.fail(None, f"urdf = {rel!r}: {exc}") from None


def _contacts(f: _File, spec: dict[str, Any], base: Path) -> C.Contacts:
    t = "contacts"
    f.keys(t, spec, _CONTACTS)
    if "normal" not in spec:
        raise f.fail(t, "missing key 'normal' (the normal-force law, e.g. normal = "
                        "{ law = \"hunt_crossley\", k = 1e5, alpha = 0.5 })")
    normal = _law(f, "contacts.normal", spec["normal"], NORMAL_LAWS)
    friction = _law(f, "contacts.friction", spec["friction"], FRICTION_LAWS) if "friction" in spec \
        else CL.no_friction()
    ground = _ground(f, f.table(t, "ground", spec["ground"]), base) if "ground" in spec else Plane()
    kw = {}
    if "geometries" in spec:
        kw["geometries"] = f.value(t, "geometries", spec["geometries"], "names")
    for key in ("path", "point"):
        if key in spec:
            kw[key] = f.value(t, key, spec[key], "str")
    return f.build(t, C.Contacts, CL.ContactLaw(normal, friction), ground, **kw)


def _law(f: _File, t: str, spec: Any, laws: Mapping[str, Callable[..., Any]]) -> Any:
    spec = f.table(t.rpartition(".")[0], t.rpartition(".")[2], spec)
    name = f.choose(t, spec, "law", laws)
    kw = f.kwargs(t, spec, V.params(laws[name], ()), name, ("law",))
    return f.build(t, laws[name], **kw)


def _ground(f: _File, spec: dict[str, Any], base: Path) -> Plane | HeightFunction | HeightField:
    t = "contacts.ground"
    f.keys(t, spec, _GROUND)
    if "heightfield" in spec:
        return _heightfield(f, t, spec, base)
    if "terrain" in spec or "params" in spec:  # z = h(x, y): legsim.contact.HeightFunction
        other = sorted(set(spec) - {"terrain", "params"})
        if other or "terrain" not in spec or "params" not in spec:
            got = f"; got {', '.join(other)}" if other else ""
            raise f.fail(t, "a terrain z = h(x, y) takes terrain = \"sines\" | \"bump\" | \"step\" and "
                            f"params = [...] (HeightFunction), nothing else{got}")
        kind = f.value(t, "terrain", spec["terrain"], "str")
        return f.build(t, HeightFunction, kind, tuple(f.value(t, "params", spec["params"], "vector")))
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


def _heightfield(f: _File, t: str, spec: dict[str, Any], base: Path) -> HeightField:
    """A grid terrain (:class:`legsim.contact.HeightField`) from a file of heights [m]: ``.npy`` (a 2-D
    array) or ``.csv``/``.txt`` (rows of numbers, comma or whitespace separated); row i lies at
    x0 + i dx, column j at y0 + j dy."""
    other = sorted(set(spec) - set(_HEIGHTFIELD))
    if other:
        raise f.fail(t, f"a heightfield takes {', '.join(_HEIGHTFIELD)}, not {', '.join(other)}")
    missing = [k for k in ("dx", "dy") if k not in spec]
    if missing:
        raise f.fail(t, f"missing key {missing[0]!r}: the heightfield's grid spacing [m]")
    rel = f.value(t, "heightfield", spec["heightfield"], "str")
    path = Path(rel) if Path(rel).is_absolute() else base / rel
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".csv", ".txt"):
        raise f.fail(t, f"heightfield = {rel!r}: expected a .npy, .csv or .txt file of heights [m]")
    try:
        if suffix == ".npy":
            heights = np.load(path, allow_pickle=False)
        else:
            heights = np.loadtxt(path, delimiter="," if suffix == ".csv" else None, ndmin=2)
    except FileNotFoundError:
        raise f.fail(t, f"heightfield = {rel!r}: file '{path}' not found") from None
    except (OSError, ValueError) as exc:
        raise f.fail(t, f"heightfield = {rel!r}: cannot read '{path}' as a grid of numbers: {exc}") from None
    origin = f.value(t, "origin", spec.get("origin", [0.0, 0.0]), "vector")
    return f.build(t, HeightField, heights, f.value(t, "dx", spec["dx"], "number"),
                   f.value(t, "dy", spec["dy"], "number"), tuple(origin))


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
        params = V.params(make, ("name", "joint"))
        if kind == "PMSMDrive.rotto":  # a preset: every field of the drive, none required
            params = {k: (v, False) for k, (v, _) in V.params(C.PMSMDrive, ("name", "joint")).items()}
        kw = f.kwargs(t, spec, params, kind, ("type", "joint", "joints"))
        if "joints" in spec:
            if "joint" in spec:
                raise f.fail(t, "give joint (one actuator) or joints (one per joint), not both")
            joints = _names_or_all(f, t, "joints", spec["joints"], tuple(mb.joint_names), "1-DoF joints")
            pairs = [(j, j) for j in joints]
        else:
            pairs = [(key, f.value(t, "joint", spec.get("joint", key), "str"))]
        kw.update(_actuator_parts(f, t, key, kind, spec))
        for name, joint in pairs:
            act = f.build(t, make, name, joint, **kw)
            out.append(act)
            origin[f"{type(act).__name__} {name!r}:"] = t
    return out, origin


def _sensors(f: _File, tables: dict[str, Any], mb: Model, contacts: C.Contacts | None,
             actuators: list[Any]) -> tuple[list[Any], dict[str, str]]:
    cylinders = tuple(a.name for a in actuators if isinstance(a, C.PneumaticCylinder | C.SolenoidCylinder))
    motors = tuple(a.name for a in actuators if isinstance(a, C.DCMotor | C.PMSMDrive))
    drives = tuple(a.name for a in actuators if isinstance(a, C.PMSMDrive))
    geoms = () if contacts is None else tuple(f.build("contacts", C.contact_geometries, mb, contacts))
    every: dict[str, tuple[str, ...]] = {"joints": tuple(mb.joint_names), "geometries": geoms}
    what = {"joints": "1-DoF joints", "actuators": "DC motors or PMSM drives",
            "geometries": "contact geometries"}
    out: list[Any] = []
    origin: dict[str, str] = {}
    for key, spec in tables.items():
        t = f"sensors.{key}"
        spec = f.table("sensors", key, spec)
        kind = f.choose(t, spec, "type", SENSORS)
        # its actuators "all": every cylinder, every PMSM drive, or every motor
        every["actuators"], what["actuators"] = (
            (cylinders, "pneumatic or solenoid cylinders") if kind == "ChamberPressure" else
            (drives, "PMSM drives") if kind == "PhaseCurrent" else
            (tuple(a.name for a in actuators), "actuators") if kind in ("IncrementalEncoder", "LimitSwitch")
            else (motors, "DC motors or PMSM drives"))
        params = V.params(SENSORS[kind], ("name",))
        every_of = {k: v for k, v in spec.items() if k in every and k in params and v == "all"}
        kw = f.kwargs(t, {k: v for k, v in spec.items() if k not in every_of}, params, kind, ("type",))
        for k in every_of:
            kw[k] = _names_or_all(f, t, k, "all", every[k], what[k])
        for mk in ("measurement", "gyro_measurement"):
            if mk in kw:
                kw[mk] = _measurement(f, f"{t}.{mk}", kw[mk])
        if "channel_measurements" in kw:
            ct = f"{t}.channel_measurements"
            chans = f.kwargs(ct, f.table(t, "channel_measurements", kw["channel_measurements"]),
                             {ch: ("table", False) for ch in C.WRENCH_CHANNELS}, "channel")
            kw["channel_measurements"] = {ch: _measurement(f, f"{ct}.{ch}", m) for ch, m in chans.items()}
        out.append(f.build(t, SENSORS[kind], key, **kw))
        origin[f"{kind} {key!r}:"] = t
    return out, origin


def _measurement(f: _File, where: str, spec) -> C.Measurement:
    """A ``{ noise_std = ..., bits = ..., ... }`` table as a :class:`Measurement`."""
    table, _, key = where.rpartition(".")
    spec = f.table(table, key, spec)
    return f.build(where, C.Measurement, **f.kwargs(where, spec, V.params(C.Measurement, ()), "Measurement"))


# --------------------------------------------------------------- resources and pneumatic parts
def _resources(f: _File, tables: dict[str, Any]) -> tuple[list[Any], dict[str, str]]:
    """``[resources.<name>]``: an AirSupply (``p0`` + SupplyTank fields, ``gas`` by name) or a
    Battery (``c0`` + PeukertBattery fields)."""
    out: list[Any] = []
    origin: dict[str, str] = {}
    for key, spec in tables.items():
        t = f"resources.{key}"
        spec = f.table("resources", key, spec)
        kind = f.choose(t, spec, "type", RESOURCES)
        model_cls: type = SupplyTank if kind == "AirSupply" else PeukertBattery
        own = V.params(RESOURCES[kind], ("name", "tank", "model"))
        params = {**own, **V.params(model_cls, ())}
        kw = f.kwargs(t, spec, params, kind, ("type",))
        if "gas" in kw:
            kw["gas"] = GASES[f.choose(t, kw, "gas", GASES)]
        model = f.build(t, model_cls, **{k: v for k, v in kw.items() if k not in own})
        out.append(f.build(t, RESOURCES[kind], key, model, **{k: v for k, v in kw.items() if k in own}))
        origin[f"{kind} {key!r}:"] = t
    return out, origin


def _actuator_parts(f: _File, t: str, key: str, kind: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a cylinder that are objects: a SolenoidCylinder's ``valve``, a
    PneumaticCylinder's ``actuator`` and ``transmission``, from their TOML forms."""
    out: dict[str, Any] = {}
    if kind == "SolenoidCylinder" and "valve" in spec:
        out["valve"] = _part(f, f"{t}.valve", spec["valve"], SolenoidValve, SOLENOID_VALVES,
                             defaults={"name": key})
    if kind == "PneumaticCylinder":
        if "actuator" in spec:
            out["actuator"] = _pneumatic_actuator(f, f"{t}.actuator", spec["actuator"])
        if "transmission" in spec:
            out["transmission"] = _transmission(f, f"{t}.transmission", spec["transmission"])
    return out


_ENUM_FIELDS: dict[str, dict[str, Any]] = {  # enumerated fields, by lower-case name
    "heat": {m.name.lower(): m for m in HeatModel},
    "voltage_reference": {m.name.lower(): m for m in VoltageReference}}


def _pneumatic_actuator(f: _File, t: str, v: Any) -> PneumaticActuator:
    nested = {"cylinder": lambda tt, vv: _part(f, tt, vv, Cylinder, CYLINDERS),
              "valve": lambda tt, vv: _part(f, tt, vv, ProportionalValve, PROPORTIONAL_VALVES,
                                            enums={"model": {m.name.lower(): m for m in ValveModel},
                                                   "voltage_reference": _ENUM_FIELDS["voltage_reference"]}),
              "friction": lambda tt, vv: _part(f, tt, vv, Friction, FRICTIONS,
                                               enums={"model": {m.name.lower(): m for m in FrictionModel}})}
    return _part(f, t, v, PneumaticActuator, {}, enums={"gas": GASES, "heat": _ENUM_FIELDS["heat"]},
                 nested=nested)


def _transmission(f: _File, t: str, v: Any) -> JointLinkage | LinearLinkage:
    parent, _, key = t.rpartition(".")
    spec = f.table(parent, key, v)
    kind = f.choose(t, spec, "type", TRANSMISSIONS)
    enums = {"joint": {j.name: j for j in Joint}} if kind == "JointLinkage" else {}
    if isinstance(spec.get("joint"), str):  # "alpha" as "ALPHA"
        spec = {**spec, "joint": spec["joint"].upper()}
    return _part(f, t, {k: x for k, x in spec.items() if k != "type"}, TRANSMISSIONS[kind], {},
                 enums=enums, extra=("type",))


def _part(f: _File, t: str, v: Any, cls: type, presets: Mapping[str, Callable[[], Any]], *,
          enums: Mapping[str, Mapping[str, Any]] | None = None,
          nested: Mapping[str, Callable[[str, Any], Any]] | None = None,
          defaults: Mapping[str, Any] | None = None, extra: tuple[str, ...] = ()) -> Any:
    """A ``cls`` (a frozen dataclass) from a preset's name, or from a table of its fields, which may
    start from ``preset = "<name>"`` (the other keys change the preset's fields). ``enums``: fields
    given by name; ``nested``: fields that are parts themselves; ``defaults``: fields filled in when
    there is no preset."""
    enums, nested = enums or {}, nested or {}
    parent, _, key = t.rpartition(".")
    what = cls.__name__
    if isinstance(v, str) and presets:
        if v not in presets:
            raise f.fail(parent, f"{key} = {v!r} is unknown{closest(v, list(presets))}; one of "
                                 f"{', '.join(presets)} (or a table of {what} fields)")
        return f.build(t, presets[v])
    if not isinstance(v, dict):
        named = f"the name of a preset ({', '.join(presets)}) or " if presets else ""
        raise f.fail(parent, f"{key} = {v!r}: expected {named}a table of {what} fields "
                             f"({key} = {{ ... }})")
    params = V.params(cls, ())
    base = None
    if "preset" in v and presets:
        base = presets[f.choose(t, v, "preset", presets)]()
        params = {k: (kind, False) for k, (kind, _) in params.items()}
    elif defaults:
        v = {**defaults, **v}
    kw = f.kwargs(t, {k: x for k, x in v.items() if k != "preset"}, params, what,
                  (*extra, "preset") if presets else extra)
    for k, choices in enums.items():
        if k in kw:
            kw[k] = choices[f.choose(t, kw, k, choices)]
    for k, make in nested.items():
        if k in kw:
            kw[k] = make(f"{t}.{k}", kw[k])
    for k, x in kw.items():
        if isinstance(x, list):
            kw[k] = tuple(x)
    if base is not None:
        return f.build(t, dataclasses.replace, base, **kw)
    return f.build(t, cls, **kw)


# ------------------------------------------------------------------------- running the robot
def default_options(robot: Robot) -> Options:
    """The options :meth:`Robot.simulate` uses when given none (:meth:`Robot.default_options`)."""
    return robot.default_options()


def start_state(robot: Robot, initial: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Keywords ``q0``, ``v0``, ``commands0`` of :meth:`Robot.simulate` from a table holding ``q0``
    (nq numbers), ``v0`` (nv numbers), and/or single coordinates by state name (``knee``,
    ``knee_dot``, ``root_joint_z``, ...: they override the arrays) and first commands ``u_<actuator>``.
    Defaults: the neutral configuration, at rest, commands as :meth:`Robot.initial_state`. Every value
    is finite; ``where`` (the table's place, e.g. ``"scenario.toml: [initial]"``) begins the messages."""
    from .robot import Robot  # the robot is built: its module is imported already

    if not isinstance(robot, Robot):
        raise InputError(f"{where}: robot = {shown(robot)}, expected a legsim.assembly.Robot")
    if not isinstance(initial, Mapping):
        raise InputError(f"{where}: initial = {shown(initial)}, expected a table of initial values (q0, v0, "
                         "coordinates by state name, u_<actuator>)")
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
            if not (V.ok("vector", v) and len(v) == n and all(math.isfinite(as_float(x)) for x in v)):
                raise InputError(f"{where} {key} = {shown(v)}: expected a list of {n} numbers, each finite")
            x[off:off + n] = v
    for key, v in initial.items():
        if key in ("q0", "v0"):
            continue
        if not (V.is_number(v) and math.isfinite(as_float(v))):
            raise InputError(f"{where} {key} = {shown(v)}: expected a finite number")
        if key in commands:
            cmd[key[2:]] = float(v)
        else:
            x[coords.index(key)] = float(v)
    return {"q0": x[:mb.nq], "v0": x[mb.nq:], "commands0": cmd or None}


def is_robot(value: Any) -> bool:
    """Whether ``value`` is an assembled :class:`Robot`, without importing its module (whose import
    compiles the shared hooks, which reading or drawing a hardware file's parts does without): an object
    made by it has imported it."""
    module = sys.modules.get("legsim.assembly.robot")
    return module is not None and isinstance(value, module.Robot)


def describe(robot: Robot) -> dict[str, Any]:
    """The robot's parts as plain data (for a run's metadata): control period [s], actuators,
    sensors and contacts with every field."""
    if not is_robot(robot):
        raise InputError(f"describe: 'robot' = {shown(robot)}, expected a legsim.assembly.Robot")

    def part(p: Any) -> dict[str, Any]:
        return {"type": type(p).__name__, **dataclasses.asdict(p)}

    c = robot.contacts
    return {"name": robot.name, "control_period": robot.control_period,
            "actuators": [part(a) for a in robot.actuators], "sensors": [part(s) for s in robot.sensors],
            "resources": [part(r) for r in robot.resources],
            "exchange": None if robot.exchange is None else dataclasses.asdict(robot.exchange),
            "loops": [part(lp) for lp in robot.loops],
            "contacts": None if c is None else {
                "normal": c.law.normal.law.name.lower(), "friction": c.law.friction.law.name.lower(),
                "params": c.law.params.tolist(), **_ground_meta(c.ground), "geometries": c.geometries,
                "path": c.path}}


def _ground_meta(ground) -> dict[str, Any]:
    """A run's metadata of the ground: a plane's normal and offset, or the terrain's kind."""
    if isinstance(ground, Plane):
        return {"ground_normal": list(ground.normal), "ground_offset": ground.offset}
    return {"ground": type(ground).__name__}
