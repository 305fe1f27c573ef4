""":class:`Robot`: a multibody model plus declared parts, compiled into one hybrid-engine model.

The parts (:mod:`legsim.assembly.components`) are packed into tables in the parameter vector
(:mod:`._layout`) that the shared compiled hooks (:mod:`._hooks`) read, so assembling a robot
writes no numba and compiles nothing new. A controller written in Python runs at the control
period, at exact sample instants, between compiled stretches of integration::

    def controller(t, sensors):          # sensors.<name>: read-only arrays of held measurements
        return kp * (q_ref - sensors.encoders) - kd * sensors.rates   # one command per actuator

    result = robot.simulate(2.0, controller)
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .._compiling import assembly_hooks
from ..actuators.pneumatic import _layout as PL
from ..contact import _laws as LW
from ..contact._geom import HF_GRID
from ..contact.shapes import HEIGHT_KINDS, HeightField, HeightFunction, Plane
from ..errors import (
    InputError,
    Interrupted,
    SimulationError,
    as_floats,
    check_flag,
    check_number,
    check_whole,
    closest,
    lookup,
    shown,
)
from ..hybrid import Direction, Guard, Options, ParamRange, Placement, Result, simulate
from ..hybrid import Model as HybridModel
from ..multibody.dynamics import forward_kinematics
from ..multibody.model import Model
from ..world._points import contact_points
from . import _clock
from . import _kernels as K
from . import _layout as L
from .compiled import is_compiled_controller, sample_hook, takes_memory
from .components import (
    _FRICTION_LAWS,
    IMU,
    WRENCH_CHANNELS,
    AirSupply,
    Battery,
    ChamberPressure,
    CommandTable,
    ContactForce,
    Contacts,
    DCMotor,
    ForceTorque,
    IncrementalEncoder,
    JointEncoder,
    JointVelocity,
    LimitSwitch,
    LinkageLoop,
    MotorCurrent,
    PhaseCurrent,
    PMSMDrive,
    PneumaticCylinder,
    PositionServo,
    Rod,
    SolenoidCylinder,
    SplitExchange,
    TorqueSource,
    VelocityServo,
    contact_geometries,
)
from .controller import CommandWriter, Controller, python_controller

__all__ = ["Robot"]

_RESERVED = {"q", "v", "names", "t"}


@dataclass(frozen=True)
class _Channels:
    """One sensor's place in the sensordata: its name, first channel and channel labels."""

    name: str
    start: int
    labels: tuple[str, ...]


def _carries(mb: Model, body: int, other: int) -> bool:
    """Whether ``other`` is ``body`` or hangs below it in the kinematic tree (body indices)."""
    while other > 0 and other != body:
        other = int(mb.body_parent[other])
    return other == body



class Robot:
    """A robot assembled from a multibody model and declared parts.

    Parameters
    ----------
    model : legsim.multibody.Model (``RobotBuilder`` or ``load_urdf``), fixed or floating base.
    actuators : sequence of actuator components, each on a 1-DoF joint (forces on the same joint add).
    sensors : sequence of sensor components.
    contacts : :class:`~legsim.assembly.components.Contacts`, optional (no ground contact without).
    resources : shared resources: :class:`~legsim.assembly.components.AirSupply` tanks that
        pneumatic cylinders name as their ``supply``.
    control_period : the controller's period [s]. The engine's sample clock is the least common
        multiple of the controller's and the sensors' rates (1 kHz with a 16 Hz sensor: 2 kHz).
    command_table : :class:`~legsim.assembly.components.CommandTable`, optional: commands of some
        actuators played back from a table (linear in time), in place of their held commands.
    name : model name (default: the multibody model's).
    lanes : evaluate the chamber rates of two or more :class:`PneumaticCylinder` s that draw from their
        own constant supply together, through the SIMD lane kernel
        (``legsim.actuators.pneumatic._lane_kernels``, four or eight per vector; the same equations as the
        scalar kernel, equal to 1e-12); False: each through the scalar kernel (for comparisons).
        Cylinders on an :class:`AirSupply` always take the scalar kernel (the lane block bakes the
        supply pressure into derived parameters).
    loops : closed kinematic loops, :class:`~legsim.assembly.components.LinkageLoop` s: each makes two
        joints of the tree (a cylinder's barrel and piston) explicit functions of a third; the state keeps
        every coordinate, the hooks use the closed ones and the dynamics is the tree's projected onto the
        independent dofs (Featherstone (2008) ch. 8).
    options : :class:`legsim.hybrid.Options` the robot runs with when :meth:`simulate` is given none (a
        robot package's integrator, checked for convergence on its own motions); default: chosen from
        the contacts' path and the drives (:meth:`default_options`).
    exchange : :class:`~legsim.assembly.components.SplitExchange`, optional: the actuators and the
        controller run on an emulated real-time target that exchanges delayed packets with the rigid
        body at each controller tick (Daepp (2011)'s split Simulink/SrLib architecture). Every actuator
        must be on a joint; sensors may read joints driven by an actuator (the held packet) and
        actuator-local quantities, not the bodies (IMU, contact forces: SrLib does not send them).
        States ``exchange_paused``, ``exchange_packets``, ``<actuator>_q_rx``, ``_v_rx``, ``_f_rx`` and
        the rings ``exchange_up<slot>_<actuator>_q``, ``_v``, ``exchange_down<slot>_<actuator>``.

    Attributes
    ----------
    model : the compiled :class:`legsim.hybrid.Model` (states ``q``, ``v`` of
        :func:`legsim.multibody.articulated_model`, then ``v_imp_<point>``, anchors, actuator states,
        the held commands ``u_<actuator>``, the sensordata ``<sensor>_<channel>`` and filter states;
        outputs ``true_<sensor>_<channel>``, ``tau_<actuator>``, ``current_<actuator>``,
        ``fn_<point>``, ``fn_total``, ``n_touching``, then per pneumatic cylinder ``piston_x_<actuator>``
        [m] and ``piston_force_<actuator>`` [N]); with a compiled controller that keeps a memory, its
        states ``ctrl_m<k>`` follow the robot's (:meth:`with_compiled_controller`).
    actuator_names, sensor_names : in declaration order.
    """

    def __init__(self, model: Model, *, actuators: Sequence = (), sensors: Sequence = (),
                 contacts: Contacts | None = None, resources: Sequence = (), control_period: float = 1e-3,
                 command_table: CommandTable | None = None, name: str | None = None,
                 lanes: bool = True, options: Options | None = None, loops: Sequence = (),
                 exchange: SplitExchange | None = None):
        if not isinstance(model, Model):
            raise InputError(f"Robot: model = {type(model).__name__}, expected a legsim.multibody.Model "
                             "(RobotBuilder(...).compile() or legsim.multibody.load_urdf)")
        period = check_number("Robot", "control_period", control_period, lo=_clock.MIN_PERIOD,
                              hi=_clock.MAX_PERIOD)  # [s]
        if not (name is None or (isinstance(name, str) and name)):
            raise InputError(f"Robot: 'name' = {shown(name)}, expected a non-empty string or None (the "
                             "model's name)")
        actuators = _components("actuators", actuators, _ACTUATORS, "an actuator component")
        sensors = _components("sensors", sensors, _SENSORS, "a sensor component")
        resources = _components("resources", resources, (AirSupply, Battery), "a resource component")
        loops = _components("loops", loops, (LinkageLoop,), "a legsim.assembly.LinkageLoop")
        self.mb = _with_rotor_inertia(model, actuators)
        self.control_period = period
        self.sample_rate, self.controller_every = _clock.sample_clock(period, sensors)
        self.name = name or model.name
        self.actuators = actuators
        self.sensors = sensors
        self.contacts = contacts
        self.resources = resources
        if command_table is not None and not isinstance(command_table, CommandTable):
            raise InputError(f"Robot: command_table = {command_table!r}, expected a "
                             "legsim.assembly.CommandTable")
        self.command_table = command_table
        if options is not None and not isinstance(options, Options):
            raise InputError(f"Robot: options = {options!r}, expected legsim.hybrid.Options")
        self.options = options
        self.lanes = check_flag("Robot", "lanes", lanes)
        if exchange is not None and not isinstance(exchange, SplitExchange):
            raise InputError(f"Robot: exchange = {exchange!r}, expected a legsim.assembly.SplitExchange")
        self.exchange = exchange
        self.loops = loops
        self._pack()
        self._check_compiled()

    # ------------------------------------------------------------------------------ packing
    def _joint(self, owner: str, joint: str) -> tuple[int, int]:
        """(dof, q address) of the 1-DoF joint named ``joint``."""
        mb = self.mb
        names = list(mb.joint_names)
        if joint not in names:
            raise InputError(f"{owner}: joint {joint!r} does not exist in {mb.name!r}"
                             f"{closest(joint, names)}; 1-DoF joints: {', '.join(names)}")
        body = list(mb.jnt_names).index(joint)
        a = mb.arrays
        return int(a.jnt_dofadr[body]), int(a.jnt_qposadr[body])

    def _pack(self) -> None:
        mb = self.mb
        nq, nv = mb.nq, mb.nv
        # ---- contacts
        c = self.contacts
        if c is not None and not isinstance(c, Contacts):
            raise InputError(f"Robot: contacts = {c!r}, expected a legsim.assembly.Contacts")
        points = contact_points(mb, contact_geometries(mb, c), "Robot contacts") if c is not None else []
        if c is not None and not points:
            raise InputError(f"Robot contacts: model {mb.name!r} has no sphere, capsule or box on a "
                             "moving body")
        if len(points) > 62 and c is not None and c.path == "event":  # the event path's mode bits
            raise InputError(f"Robot contacts: {len(points)} contact points (a sphere gives 1, a capsule "
                             "2, a box 8); the event path takes at most 62: choose fewer with "
                             "Contacts(geometries=...), or path='smooth'")
        smooth = c is not None and c.path == "smooth"
        nc = len(points)
        geoms = list(dict.fromkeys(pt[4] for pt in points))
        anchors = c is not None and c.law.friction.law == LW.F_ANCHOR
        # ---- actuators
        names: list[str] = []
        rows: list[np.ndarray] = []
        act_states: list[str] = []
        commands0: list[float] = []
        servo_q: list[tuple[int, int]] = []
        pneumatic: list[tuple[int, int, PneumaticCylinder]] = []
        solenoids: list[tuple[int, int, SolenoidCylinder]] = []
        drives: list[tuple[int, int, PMSMDrive]] = []  # (state, qadr, drive) of drives with a series spring
        pblocks: list[np.ndarray] = []
        rods: list[np.ndarray] = []
        ranges: list[tuple[float, float]] = []
        xa = nq + nv + (0 if smooth else nc) + (3 * nc if anchors else 0)
        for act in self.actuators:
            owner = f"{type(act).__name__} {act.name!r}"
            if act.name in names:
                raise InputError(f"{owner}: another actuator has this name; names must be unique")
            names.append(act.name)
            row = np.zeros(L.AW)
            row[L.A_ROD] = -1
            if isinstance(act.joint, Rod) and self.exchange is not None:
                raise InputError(f"{owner}: on {act.joint}: a SplitExchange carries joint angles, rates and "
                                 "joint forces in its packets; every actuator must drive a joint, not a Rod")
            if isinstance(act.joint, Rod):
                dof = qadr = -1
                row[L.A_ROD] = len(rods)
                rods.append(self._rod(owner, act))
            else:
                dof, qadr = self._joint(owner, act.joint)
            row[L.A_DOF], row[L.A_QADR], row[L.A_STATE], row[L.A_LANE] = dof, qadr, -1, -1
            row[L.A_GEAR], row[L.A_ULO], row[L.A_UHI] = 1.0, -np.inf, np.inf
            row[L.A_TABLE] = -1
            p0 = L.A_P0
            u0 = 0.0
            # a joint's own effort limit (URDF <limit effort>) [N m or N], 0: none
            joint_effort = float(mb.dof_effort[dof]) if dof >= 0 else 0.0
            if isinstance(act, TorqueSource):
                lo, hi = act.lo, act.hi
                if joint_effort > 0.0 and lo == -np.inf and hi == np.inf:  # the URDF's, in command units
                    lo, hi = -joint_effort / act.gear, joint_effort / act.gear
                row[L.A_TYPE], row[L.A_GEAR], row[p0], row[p0 + 1] = L.ACT_TORQUE, act.gear, lo, hi
            elif isinstance(act, PositionServo | VelocityServo):
                effort = joint_effort if act.effort == np.inf and joint_effort > 0.0 else act.effort
                if isinstance(act, PositionServo):
                    row[L.A_TYPE] = L.ACT_POSITION
                    row[p0:p0 + 3] = act.kp, act.kd, effort
                    u0 = float(mb.neutral()[qadr]) if qadr >= 0 else 0.0  # holds its joint's initial position
                    servo_q.append((len(rows), qadr))
                else:
                    row[L.A_TYPE], row[p0], row[p0 + 1] = L.ACT_VELOCITY, act.kv, effort
            elif isinstance(act, SolenoidCylinder):
                self._prismatic(owner, act.joint)
                row[L.A_TYPE], row[L.A_STATE], row[L.A_ULO], row[L.A_UHI] = (
                    L.ACT_SOLENOID, xa + len(act_states), 0.0, 1.0)
                row[L.SO_AREA:L.SO_BETA + 1] = (act.area, act.dead_volume, act.stroke, act.k_return,
                                                 act.friction, act.viscous)
                row[L.SO_BLOCK] = len(solenoids)  # made absolute with the blocks' place
                solenoids.append((int(row[L.A_STATE]), len(rows), act))
                act_states += [f"{act.name}_{k}" for k in ("p", "m_used", "valve", "t_switch")]
            elif isinstance(act, PneumaticCylinder):
                u0 = self._pack_cylinder(owner, act, row, qadr, xa + len(act_states), len(pneumatic))
                pneumatic.append((int(row[L.A_STATE]), qadr, act))
                act_states += [f"{act.name}_{k}" for k in ("p_cap", "p_rod", "m_cap", "m_rod", "m_supply")]
            elif isinstance(act, PMSMDrive):
                if act.command == "position":
                    servo_q.append((len(rows), qadr))
                if act.lead is not None and isinstance(act.joint, str):
                    self._prismatic(owner, act.joint, " (a ball screw's lead needs a prismatic joint; "
                                                      "use gear alone on a revolute joint)")
                names_s = self._pack_pmsm(act, row, xa + len(act_states), len(pblocks), pblocks)
                if act.series_spring is not None:
                    drives.append((int(row[L.A_STATE]), qadr, act))
                act_states += names_s
            else:
                row[L.A_TYPE], row[L.A_GEAR] = L.ACT_DC, act.gear
                row[p0:p0 + 8] = (act.resistance, act.inductance, act.torque_constant, act.back_emf,
                                  act.i_max, act.v_max, 1.0 if act.command == "torque" else 0.0,
                                  act.efficiency)
                if act.inductance > 0.0:
                    row[L.A_STATE] = xa + len(act_states)
                    act_states.append(f"i_{act.name}")
            rows.append(row)
            commands0.append(u0)
            ranges.append((row[L.A_ULO], row[L.A_UHI]))
        nact = len(rows)
        table = self._command_table(names, rows, ranges)
        supplies, batteries = self._resources(rows, xa + len(act_states))
        act_states += [f"{r.name}_{'p' if isinstance(r, AirSupply) else 'charge'}" for r in self.resources]
        xu = xa + len(act_states)
        xy = xu + nact
        # ---- sensors
        srows: list[np.ndarray] = []
        zeros: list[tuple[int, int, int, float]] = []  # incremental encoders: row, q address, actuator, k
        held: list[tuple[np.ndarray, bool, int]] = []  # exchange: a row reading a joint (rate?), its actuator
        channels: list[_Channels] = []
        snames: list[str] = []
        nch = 0
        state_names_f: list[str] = []
        nfs = 0
        bodies = list(mb.body_names)
        for sen in self.sensors:
            owner = f"{type(sen).__name__} {sen.name!r}"
            if self.exchange is not None and isinstance(sen, IMU | ContactForce | ForceTorque):
                raise InputError(f"{owner}: under a SplitExchange the target sees the rigid body only "
                                 "through the packets (the joint angles and rates of the actuated "
                                 "joints); an IMU or a contact-force sensor reads the bodies, which SrLib "
                                 "does not send")
            if sen.name in snames:
                raise InputError(f"{owner}: another sensor has this name; names must be unique")
            if sen.name in _RESERVED or not sen.name.isidentifier():
                raise InputError(f"{owner}: a sensor name must be a Python identifier other than "
                                 f"{sorted(_RESERVED)} (it is an attribute of the controller's readings)")
            snames.append(sen.name)
            ticks = self._ticks(owner, sen.rate_hz)
            parts: list[tuple[int, int, int, tuple[str, ...]]] = []  # (type, source, nch, labels)
            on_rod: list[bool] = []  # per channel of an incremental encoder or limit switch: a rod's length
            if isinstance(sen, IncrementalEncoder | LimitSwitch):
                typ = L.SEN_INCREMENTAL if isinstance(sen, IncrementalEncoder) else L.SEN_SWITCH
                for j in sen.joints:
                    qadr = self._joint(owner, j)[1]
                    parts.append((typ, qadr, 1, (j,)))
                    on_rod.append(False)
                    if isinstance(sen, IncrementalEncoder):
                        zeros.append((len(srows) + len(parts) - 1, qadr, -1, sen.counts_per_unit))
                for a in sen.actuators:
                    ai = lookup("actuator", a, names, owner)
                    on_rod.append(bool(rows[ai][L.A_ROD] >= 0))
                    qadr = -1 if on_rod[-1] else int(rows[ai][L.A_QADR])
                    parts.append((typ, int(rows[ai][L.A_ROD]) if on_rod[-1] else qadr, 1, (a,)))
                    if isinstance(sen, IncrementalEncoder):
                        zeros.append((len(srows) + len(parts) - 1, qadr, ai, sen.counts_per_unit))
            elif isinstance(sen, JointEncoder | JointVelocity):
                for j in sen.joints:
                    dof, qadr = self._joint(owner, j)
                    if isinstance(sen, JointEncoder):
                        parts.append((L.SEN_JPOS, qadr, 1, (j,)))
                    else:
                        parts.append((L.SEN_JVEL, dof, 1, (j,)))
            elif isinstance(sen, IMU):
                b = lookup("body", sen.body, bodies[1:], owner) + 1
                if sen.accelerometer:
                    parts.append((L.SEN_ACC, b, 3, ("acc_x", "acc_y", "acc_z")))
                if sen.gyro:
                    parts.append((L.SEN_GYRO, b, 3, ("gyro_x", "gyro_y", "gyro_z")))
            elif isinstance(sen, ContactForce):
                if c is None:
                    raise InputError(f"{owner}: the robot has no contacts (Robot(contacts=...))")
                for g in sen.geometries:
                    gi = lookup("contact geometry", g, geoms, owner)
                    parts.append((L.SEN_FORCE, gi, 3, (f"{g}_x", f"{g}_y", f"{g}_z")))
            elif isinstance(sen, ForceTorque):
                if c is None:
                    raise InputError(f"{owner}: the robot has no contacts (Robot(contacts=...))")
                b = lookup("body", sen.body, bodies[1:], owner) + 1
                gis = [lookup("contact geometry", g, geoms, owner) for g in sen.geometries]
                for _, body, _, _, gname in points:
                    if gname in sen.geometries and not _carries(mb, b, body):
                        raise InputError(f"{owner}: contact geometry {gname!r} is on body "
                                         f"{bodies[body]!r}, which body {sen.body!r} does not carry (a "
                                         "force/torque sensor reads the contacts of its body and below it)")
                for ch in WRENCH_CHANNELS:
                    parts.append((L.SEN_WRENCH, b, 1, (ch,)))
            elif isinstance(sen, ChamberPressure):
                for a in sen.actuators:
                    ai = lookup("actuator", a, names, owner)
                    cyl = [st for st, _, act in pneumatic if act is self.actuators[ai]]
                    leg = [st for st, _, act in solenoids if act is self.actuators[ai]]
                    if cyl:
                        parts.append((L.SEN_PRESSURE, cyl[0], 2, (f"{a}_cap", f"{a}_rod")))
                    elif leg:
                        parts.append((L.SEN_PRESSURE, leg[0], 1, (a,)))
                    else:
                        raise InputError(f"{owner}: actuator {a!r} is a "
                                         f"{type(self.actuators[ai]).__name__}; a pressure sensor needs "
                                         "a PneumaticCylinder or a SolenoidCylinder")
            elif isinstance(sen, PhaseCurrent):
                for a in sen.actuators:
                    ai = lookup("actuator", a, names, owner)
                    if not isinstance(self.actuators[ai], PMSMDrive):
                        raise InputError(f"{owner}: actuator {a!r} is a "
                                         f"{type(self.actuators[ai]).__name__}; phase currents need a "
                                         "PMSMDrive")
                    parts.append((L.SEN_PHASE, ai, 3, (f"{a}_a", f"{a}_b", f"{a}_c")))
            else:
                for a in sen.actuators:
                    ai = lookup("actuator", a, names, owner)
                    if not isinstance(self.actuators[ai], DCMotor | PMSMDrive):
                        raise InputError(f"{owner}: actuator {a!r} is a "
                                         f"{type(self.actuators[ai]).__name__}; a current sensor needs "
                                         "a DCMotor or a PMSMDrive")
                    parts.append((L.SEN_CURRENT, ai, 1, (a,)))
            labels: list[str] = []
            for i, (typ, src, n, labs) in enumerate(parts):
                ms = (sen.gyro_measurement if isinstance(sen, IMU) and typ == L.SEN_GYRO
                      and sen.gyro_measurement is not None else
                      sen.measurement_of(labs[0]) if isinstance(sen, ForceTorque) else sen.measurement)
                b0, a1 = _clock.butterworth1(ms.cutoff_hz, float(ticks / self.sample_rate), owner)
                row = np.zeros(L.SW)
                row[L.S_TYPE], row[L.S_SRC], row[L.S_NCH], row[L.S_CH0] = typ, src, n, nch
                row[L.S_TICKS], row[L.S_STD], row[L.S_OFFSET], row[L.S_SCALE] = (
                    ticks, ms.noise_std, ms.offset, ms.scale_error)
                row[L.S_LO], row[L.S_HI], row[L.S_BITS] = ms.lo, ms.hi, ms.bits
                row[L.S_B0], row[L.S_A1], row[L.S_DELAY], row[L.S_SEED] = b0, a1, ms.delay, ms.seed
                row[L.S_XSTATE], row[L.S_ID] = nfs, len(srows)  # state offset made absolute below
                if isinstance(sen, IMU | ForceTorque):
                    row[L.S_POS:L.S_POS + 3] = sen.position
                    row[L.S_ROT:L.S_ROT + 9] = np.asarray(sen.rotation, dtype=float).ravel()
                if isinstance(sen, ForceTorque):
                    row[L.S_COMP], row[L.S_NG] = WRENCH_CHANNELS.index(labs[0]), len(gis)
                    row[L.S_GEOM:L.S_GEOM + len(gis)] = gis
                if self.exchange is not None and typ in (L.SEN_JPOS, L.SEN_JVEL, L.SEN_INCREMENTAL,
                                                         L.SEN_SWITCH):
                    held.append((row, typ == L.SEN_JVEL, self._held_actuator(owner, labs[0], rows, typ, src)))
                zero = isinstance(sen, IncrementalEncoder)  # one more state: the zero count
                if isinstance(sen, IncrementalEncoder):
                    row[L.S_ROD], row[L.S_COUNTS] = float(on_rod[i]), sen.counts_per_unit
                elif isinstance(sen, LimitSwitch):
                    row[L.S_ROD], row[L.S_TRIP] = float(on_rod[i]), np.asarray(sen.positions, dtype=float)[i]
                    row[L.S_SIDE] = 1.0 if sen.side == "upper" else -1.0
                srows.append(row)
                for lab in labs:
                    state_names_f += [f"_{sen.name}_{lab}_u", f"_{sen.name}_{lab}_y",
                                      *(f"_{sen.name}_{lab}_d{k}" for k in range(ms.delay)),
                                      *((f"_{sen.name}_{lab}_zero",) if zero else ())]
                nch += n
                nfs += n * (L.NFSTATE + ms.delay + int(zero))
                labels += labs
            channels.append(_Channels(sen.name, nch - len(labels), tuple(labels)))
        xf = xy + nch
        for row in srows:
            row[L.S_XSTATE] += xf
        # ---- the split exchange: its states after the sensors' (the rows reading a joint read the packet)
        xex = xf + nfs if self.exchange is not None else -1
        for row, rate, act_i in held:
            h = xex + L.EX_RX + L.EX_RXW * act_i
            row[L.S_SRC] = h + L.EX_V - nq if rate else h + L.EX_Q  # (a rate's source is read at nq + src)
        ex_names: list[str] = []
        if self.exchange is not None:
            if nact == 0:
                raise InputError("Robot: a SplitExchange needs at least one actuator (its packets carry the "
                                 "actuated joints' states and forces)")
            ex_names = ["exchange_paused", "exchange_packets"]
            ex_names += [f"{n}_{k}_rx" for n in names for k in ("q", "v", "f")]
            ex_names += [f"exchange_up{i}_{n}_{k}" for i in range(L.EX_DMAX) for n in names for k in "qv"]
            ex_names += [f"exchange_down{i}_{n}" for i in range(L.EX_DMAX) for n in names]
        # ---- the parameter vector
        fbuf = np.asarray(mb.fbuf, dtype=np.float64)
        ibuf = np.ascontiguousarray(mb.ibuf, dtype=np.int64).view(np.float64)  # raw bits (_layout)
        head = np.zeros(L.HEAD)
        oc = L.HEAD + fbuf.size + ibuf.size
        cblock = np.zeros(L.C_LAW + LW.NPRM + L.CW * nc)
        if c is not None:
            plane = c.ground if isinstance(c.ground, Plane) else Plane()  # a terrain: its own block
            cblock[L.C_NX:L.C_NZ + 1] = plane.normal
            cblock[L.C_OFF] = plane.offset
            cblock[L.C_NLAW], cblock[L.C_FLAW] = int(c.law.normal.law), int(c.law.friction.law)
            cblock[L.C_MIDWAY] = 1.0 if c.point == "midway" else 0.0
            cblock[L.C_LAW:L.C_LAW + LW.NPRM] = c.law.params
            for k, (_, body, centre, radius, gname) in enumerate(points):
                o = L.C_LAW + LW.NPRM + L.CW * k
                cblock[o:o + L.CW] = (body, *centre, radius, geoms.index(gname))
        oa = oc + cblock.size
        os_ = oa + L.AW * nact
        head[[L.P_NQ, L.P_NV, L.P_NF, L.P_NI, L.P_NC, L.P_SMOOTH, L.P_NACT, L.P_NROW, L.P_NCH]] = (
            nq, nv, fbuf.size, ibuf.size, nc, float(smooth), nact, len(srows), nch)
        head[[L.P_OC, L.P_OA, L.P_OS, L.P_NGEOM]] = oc, oa, os_, len(geoms)
        head[L.P_STAMP] = L.STAMP
        head[L.P_CEVERY] = self.controller_every
        for r in srows:  # the stages each row's truth needs
            typ, rod_read = int(r[L.S_TYPE]), r[L.S_TYPE] in (L.SEN_INCREMENTAL, L.SEN_SWITCH) and r[L.S_ROD]
            r[L.S_SENSE] = (L.SENSE_DYNAMICS if typ in (L.SEN_ACC, L.SEN_CURRENT, L.SEN_PHASE) else
                            L.SENSE_CONTACT if typ in (L.SEN_FORCE, L.SEN_WRENCH) else
                            L.SENSE_KINEMATICS if typ == L.SEN_GYRO or rod_read else L.SENSE_STATE)
        head[L.P_SENSE] = max((r[L.S_SENSE] for r in srows), default=L.SENSE_STATE)
        head[[L.P_XC, L.P_XS, L.P_XA, L.P_XU, L.P_XY, L.P_XF]] = (
            nq + nv, (nq + nv + (0 if smooth else nc)) if anchors else -1, xa, xu, xy, xf)
        opn = os_ + L.SW * len(srows)  # the cylinders' parameter rows
        prows = [act.actuator.row() for _, _, act in pneumatic]
        osb = opn + PL.NPARAM * len(prows)  # the solenoids' blocks
        sblocks = [_solenoid_block(act) for _, _, act in solenoids]
        for r in rows:
            if int(r[L.A_TYPE]) == L.ACT_PNEUMATIC:
                r[L.A_P0] = opn + PL.NPARAM * r[L.A_P0]
            elif int(r[L.A_TYPE]) == L.ACT_SOLENOID:
                r[L.SO_BLOCK] = osb + L.NSB * r[L.SO_BLOCK]
        opm = osb + L.NSB * len(sblocks)  # the PMSM drives' blocks
        for r in rows:
            if int(r[L.A_TYPE]) == L.ACT_PMSM:
                r[L.PM_BLOCK] = opm + L.NPB * r[L.PM_BLOCK]
        head[L.P_NAS] = len(act_states)
        scratch = np.zeros(K.scratch_size(mb.nbody, nv, nc, nact, len(act_states)))
        head[L.P_OR], head[L.P_NR] = opm + L.NPB * len(pblocks), len(supplies)
        head[L.P_OB], head[L.P_NB] = head[L.P_OR] + L.RW * len(supplies), len(batteries)
        obstacles = [ob.row() for ob in (c.obstacles if c is not None else ())]
        head[L.P_OOB], head[L.P_NOB] = head[L.P_OB] + L.BW * len(batteries), len(obstacles)
        ord_ = head[L.P_OOB] + L.OW * len(obstacles)
        head[L.P_ORD] = ord_
        ot = ord_ + L.RDW * len(rods)
        head[L.P_OT] = ot if table.size else -1
        terrain = _terrain_block(c.ground) if c is not None else np.zeros(0)
        head[L.P_OTR] = ot + table.size if terrain.size else -1
        oln = ot + table.size + terrain.size
        lanes, nlane_scratch = self._lane_block(rows, pneumatic, prows)
        head[L.P_OLN] = oln if lanes.size else -1
        exblock = self.exchange.row() if self.exchange is not None else np.zeros(0)
        lblock, self._loops = self._loop_block()
        oex = oln + lanes.size
        olp = oex + exblock.size
        head[[L.P_OLP, L.P_NLP, L.P_OEX, L.P_XEX]] = (olp if lblock.size else -1, len(self._loops),
                                                      oex if exblock.size else -1, xex)
        head[L.P_OSCR] = olp + lblock.size
        head[L.P_OWC] = head[L.P_OSCR] + scratch.size - 6 * nc - 2 * nact  # the scratch's last blocks
        head[L.P_OAE] = head[L.P_OSCR] + scratch.size - 2 * nact  # (K.scratch_size)
        head[L.P_OLS] = head[L.P_OSCR] + scratch.size if lanes.size else -1
        scratch = np.concatenate([scratch, np.zeros(nlane_scratch)])
        if lblock.size:  # the loops' scratch ends p's scratch
            nx = xf + len(state_names_f) + len(ex_names)  # the robot's states (a controller's memory follows)
            ni = nv - 2 * len(self._loops)
            lblock[L.LB_SCR], lblock[L.LB_NX], lblock[L.LB_NI] = head[L.P_OSCR] + scratch.size, nx, ni
            scratch = np.concatenate([scratch, np.zeros(K.loop_scratch_size(nx, nv, mb.nbody, ni))])
        pvec = np.concatenate([head, fbuf, ibuf, cblock, *rows, *srows, *prows, *sblocks, *pblocks, *supplies,
                               *batteries, *obstacles, *rods, table, terrain, lanes, exblock, lblock,
                               scratch])
        # ---- names
        qn, vn, _ = mb.coordinate_names()
        pnames = [f"_p{k}" for k in range(pvec.size)]
        pnames[:L.HEAD] = [f"_header{k}" for k in range(L.HEAD)]
        pnames[int(head[L.P_OSCR]):] = [f"_scratch{k}" for k in range(scratch.size)]
        pt_names = [pt[0] for pt in points]
        sensordata = [f"{ch.name}_{lab}" for ch in channels for lab in ch.labels]
        state_names = (qn + vn + ([] if smooth else [f"v_imp_{n}" for n in pt_names])
                       + ([f"s_{n}_{a}" for n in pt_names for a in "xyz"] if anchors else [])
                       + act_states + [f"u_{n}" for n in names] + sensordata + state_names_f + ex_names)
        x0 = np.zeros(len(state_names))
        x0[:nq] = mb.neutral()
        self._close(x0)
        x0[xu:xu + nact] = commands0
        self._x = {"xu": xu, "xy": xy, "nact": nact, "nch": nch, "xex": xex}
        self._exchange_joints = tuple((int(r[L.A_QADR]), nq + int(r[L.A_DOF])) for r in rows)
        self._hold_packets(x0)
        for i, res in enumerate(self.resources):  # their states end the actuator-state block
            x0[xu - len(self.resources) + i] = res.p0 if isinstance(res, AirSupply) else res.c0
        for st, qadr, _ in drives:  # the series spring relaxed
            x0[st] = x0[qadr]
        for st, ia, act in solenoids:  # at its initial pressure, valve closed, no switch pending
            p_atm = supplies[int(rows[ia][L.A_SUPPLY])][L.R_P_ATM]
            x0[st:st + L.NSOL] = (p_atm if act.p0 is None else act.p0, 0.0, 0.0, L.NEVER)
        cylinders = [act.name for _, _, act in pneumatic]
        outputs = ([f"true_{s}" for s in sensordata] + [f"tau_{n}" for n in names]
                   + [f"current_{n}" for n in names] + [f"fn_{n}" for n in pt_names]
                   + ["fn_total", "n_touching"] + [f"piston_x_{n}" for n in cylinders]
                   + [f"piston_force_{n}" for n in cylinders])
        messages: dict[int, str] = {L.ERR_STALE: _STALE}
        for ia, aname in enumerate(names):
            lo, hi = ranges[ia]
            what = f"the command of actuator {aname!r}"
            messages[L.ERR_CMD + 2 * ia] = f"{what} is not finite (NaN or inf)"
            messages[L.ERR_CMD + 2 * ia + 1] = f"{what} is outside [{lo:g}, {hi:g}]"
        self.actuator_names = tuple(names)
        self.sensor_names = tuple(snames)
        self.channels = tuple(channels)
        self.point_names = tuple(pt_names)
        self._points = tuple(points)
        self._servo_q = tuple(servo_q)
        self._pneumatic = tuple(pneumatic)
        self._drives = tuple(drives)
        self._solenoids = tuple((st, a, act.valve.latency, act.valve.close_latency)
                                for st, a, act in solenoids)
        self._zeros = tuple((int(srows[r][L.S_XSTATE]) + L.NFSTATE + int(srows[r][L.S_DELAY]), qadr, ai, k)
                            for r, qadr, ai, k in zeros)
        guards = (() if (smooth or nc == 0) else tuple(
            g for n in pt_names for g in (Guard(f"touchdown_{n}", Direction.FALLING, Placement.RIGHT),
                                          Guard(f"liftoff_{n}", Direction.RISING, Placement.RIGHT)))) + tuple(
            Guard(f"valve_{act.name}", Direction.FALLING, Placement.RIGHT) for _, _, act in solenoids)
        self._ngc = 0 if (smooth or nc == 0) else 2 * nc
        robot = self

        def start(x, p):
            return robot._start(x, p)

        H = assembly_hooks()
        self.model = HybridModel(
            name=self.name, state_names=tuple(state_names), state_defaults=x0,
            param_names=tuple(pnames), param_defaults=pvec, guards=guards,
            output_names=tuple(outputs), vector_field=H.robot_field, guard_values=H.robot_guards,
            reset=H.robot_reset, outputs=H.robot_outputs, sample=H.robot_sample, check=H.robot_check,
            init_partition=start, error_messages=messages, sample_period=float(1 / self.sample_rate),
            error_states=xu,
            mode_name=lambda mode: ("touching: " + (",".join(n for k, n in enumerate(pt_names)
                                                          if (mode >> k) & 1) or "none")
                                    if guards else "free"),
            description=f"assembled robot {self.name!r}: {nact} actuators, {len(snames)} sensors "
                        f"({nch} channels), {nc} contact points ({'smooth' if smooth else 'event'} path)",
        )

    def _held_actuator(self, owner: str, label: str, rows: list[np.ndarray], typ: int, src: int) -> int:
        """Under a split exchange: the (first) actuator whose joint a sensor row reads (``src``: the
        joint's velocity index for a rate, else its q address), whose held packet the row reads."""
        field = L.A_DOF if typ == L.SEN_JVEL else L.A_QADR
        for a, r in enumerate(rows):
            if int(r[field]) == src:
                return a
        raise InputError(f"{owner}: joint {label!r} is driven by no actuator; under a SplitExchange the "
                         "target knows only what the packets carry, the actuated joints' angles and rates")

    def _hold_packets(self, x: np.ndarray) -> None:
        """Under a split exchange, the exchange's states in ``x`` as if the body had been at its joint
        state in ``x`` for ever (``LegBench.initial_state``): q_rx, v_rx and every ring-up slot the
        actuated joints' (q, v), f_rx and the ring down 0, no packet yet, not paused."""
        xe, na = self._x["xex"], self._x["nact"]
        if xe < 0:
            return
        x[xe:xe + K.ex_down(na, L.EX_DMAX, 0)] = 0.0  # (one past the last ring-down slot)
        for a, (qa, va) in enumerate(self._exchange_joints):
            h = xe + L.EX_RX + L.EX_RXW * a
            x[h + L.EX_Q], x[h + L.EX_V] = x[qa], x[va]
            for slot in range(L.EX_DMAX):
                w = xe + K.ex_up(na, slot, a)
                x[w], x[w + 1] = x[qa], x[va]

    def _loop_block(self) -> tuple[np.ndarray, tuple]:
        """The closed loops' block (``_layout.LB_*``: head, dof map, rows; the head's scratch offset and
        state count are set by :meth:`_pack`) and per loop (dof, q address of the joint, barrel, piston,
        linkage) for :meth:`_close`; empty without loops. Checks each :class:`LinkageLoop` against the
        tree: its joints exist, ``joint`` and ``barrel`` are revolute and ``piston`` prismatic, the barrel
        hangs from ``joint``'s parent link and the piston from the barrel, and a dependent joint (barrel,
        piston) is dependent in one loop only and the independent joint of none."""
        from ..multibody._layout import JOINT_PRISMATIC, JOINT_REVOLUTE

        if not self.loops:
            return np.zeros(0), ()
        mb = self.mb
        a = mb.arrays
        jnames = list(mb.jnt_names)
        dependent: dict[str, str] = {}
        independent: dict[str, str] = {}
        rows: list[np.ndarray] = []
        out = []
        for lp in self.loops:
            owner = f"LinkageLoop {lp.joint!r}"
            addr = []
            for what, name, kind in (("joint", lp.joint, JOINT_REVOLUTE),
                                     ("barrel", lp.barrel, JOINT_REVOLUTE),
                                     ("piston", lp.piston, JOINT_PRISMATIC)):
                addr.append(self._joint(owner, name))
                typ = int(a.jnt_type[jnames.index(name)])
                if typ != kind:
                    got = {JOINT_REVOLUTE: "revolute", JOINT_PRISMATIC: "prismatic"}.get(typ, f"type {typ}")
                    want = "revolute" if kind == JOINT_REVOLUTE else "prismatic"
                    raise InputError(f"{owner}: {what} joint {name!r} is {got}, expected a {want} joint")
            bj, bb, bp = (jnames.index(n) for n in (lp.joint, lp.barrel, lp.piston))
            bodies = mb.body_names
            par = [bodies[int(a.body_parent[b])] for b in (bj, bb, bp)]
            if par[1] != par[0]:
                raise InputError(f"{owner}: barrel joint {lp.barrel!r} hangs from body {par[1]!r}, expected "
                                 f"from {par[0]!r}, the parent link of joint {lp.joint!r} (where the fixed "
                                 "arm l1 is)")
            if par[2] != bodies[bb]:
                raise InputError(f"{owner}: piston joint {lp.piston!r} hangs from body {par[2]!r}, expected "
                                 f"from the barrel's body {bodies[bb]!r}")
            for name in (lp.barrel, lp.piston):
                if name in dependent:
                    raise InputError(f"{owner}: joint {name!r} is already a dependent joint of the loop of "
                                     f"{dependent[name]!r}; a joint can follow one loop only")
                if name in independent:
                    raise InputError(f"{owner}: joint {name!r} is the independent joint of the loop of "
                                     f"{independent[name]!r}; it cannot also be a dependent one")
                dependent[name] = lp.joint
            if lp.joint in dependent:
                raise InputError(f"{owner}: joint {lp.joint!r} is a dependent joint of the loop of "
                                 f"{dependent[lp.joint]!r}; the independent joint of a loop must be free")
            independent[lp.joint] = lp.joint
            k = lp.linkage
            rows.append(np.array([*addr[0], *addr[1], *addr[2], int(k.joint), k.l1, k.l2, k.l3, k.l4, k.l5],
                                 dtype=float))
            out.append((*addr[0], *addr[1], *addr[2], k))
        dep = {d for _, _, bd, _, pd, _, _ in out for d in (bd, pd)}
        src = np.zeros(mb.nv)
        n = 0
        for i in range(mb.nv):
            if i not in dep:
                src[i] = n
                n += 1
        for dof, _, bd, _, pd, _, _ in out:
            src[bd] = src[pd] = src[dof]
        head = np.zeros(L.LB_MAP)  # LB_SCR, LB_NX, LB_NI: set by _pack
        return np.concatenate([head, src, *rows]), tuple(out)

    def _close(self, x: np.ndarray) -> np.ndarray:
        """Close the loops in the engine state ``x`` (in place): each loop's barrel angle and piston
        position φ(θ), x(θ) and their rates dφ/dθ θ̇, dx/dθ θ̇ from its joint's θ, θ̇ (as
        ``_kernels.close_loops``)."""
        from ..actuators.pneumatic._linkage_kernels import cylinder_coordinates

        nq = self.mb.nq
        for dof, qadr, bd, bq, pd, pq, k in self._loops:
            phi, dphi, _, xp, dx, _ = cylinder_coordinates(int(k.joint), k.l1, k.l2, k.l3, k.l4, k.l5,
                                                           float(x[qadr]))
            w = float(x[nq + dof])
            x[bq], x[pq], x[nq + bd], x[nq + pd] = phi, xp, dphi * w, dx * w
        return x

    def _rod(self, owner: str, act) -> np.ndarray:
        """The rod row (``_layout.RD*``) of an actuator whose ``joint`` is a :class:`Rod`."""
        rod: Rod = act.joint
        if isinstance(act, PneumaticCylinder | SolenoidCylinder | DCMotor):
            raise InputError(f"{owner}: on a Rod: a rod takes a TorqueSource, PositionServo, VelocityServo "
                             "or PMSMDrive (a cylinder has its own transmission)")
        if isinstance(act, PMSMDrive) and act.series_spring is not None:
            raise InputError(f"{owner}: a series spring on a Rod is not supported; give it a rigid drive")
        bodies = list(self.mb.body_names)
        ends = [lookup("body", name, bodies, f"{owner} {rod}") for name in (rod.body_a, rod.body_b)]
        return np.array([ends[0], *rod.point_a, ends[1], *rod.point_b], dtype=float)

    def rod_lengths(self, q) -> np.ndarray:
        """Length [m] (nact,) of every actuator's rod at the configuration ``q`` (nq,) (NaN for an
        actuator on a joint)."""
        out = np.full(len(self.actuators), np.nan)
        if not any(isinstance(act.joint, Rod) for act in self.actuators):
            return out  # (no forward kinematics to compile)
        from ..multibody import forward_kinematics

        mb = self.mb
        data = mb.make_data()
        forward_kinematics(mb, data, np.asarray(q, dtype=float))
        bodies = list(mb.body_names)
        for a, act in enumerate(self.actuators):
            if isinstance(act.joint, Rod):
                r = act.joint
                ends = [data.op[bodies.index(b)] + data.oR[bodies.index(b)] @ np.asarray(pt)
                        for b, pt in ((r.body_a, r.point_a), (r.body_b, r.point_b))]
                out[a] = float(np.linalg.norm(ends[1] - ends[0]))
        return out

    def _command_table(self, names: list[str], rows: list[np.ndarray],
                       ranges: list[tuple[float, float]]) -> np.ndarray:
        """The command table's block ``[K, dt, n, values (K n)]`` (empty without one); each tabled
        actuator's row gets its column (``A_TABLE``)."""
        ct = self.command_table
        if ct is None:
            return np.zeros(0)
        tab = np.asarray(ct.table, dtype=float)
        for c, aname in enumerate(ct.actuators):
            a = lookup("actuator", aname, names, "CommandTable")
            if int(rows[a][L.A_TYPE]) == L.ACT_SOLENOID:
                raise InputError(f"CommandTable: actuator {aname!r} is a SolenoidCylinder; its valve "
                                 "switches are events scheduled at samples: command it from a controller")
            lo, hi = ranges[a]
            bad = np.flatnonzero((tab[:, c] < lo) | (tab[:, c] > hi))
            if bad.size:
                value = float(tab[bad[0], c])
                raise InputError(f"CommandTable: actuator {aname!r}, row {int(bad[0])}: {value!r} "
                                 f"is outside its command range [{lo:g}, {hi:g}]")
            rows[a][L.A_TABLE] = c
        return np.concatenate([[tab.shape[0], ct.dt, tab.shape[1]], tab.ravel()])

    def _lane_block(self, rows: list[np.ndarray], pneumatic: list, prows: list[np.ndarray]
                    ) -> tuple[np.ndarray, int]:
        """The SIMD lane block of the cylinders that draw from their own constant supply, when there are
        two or more and ``self.lanes``, with each one's lane written into its actuator row
        (``A_LANE``); and the size of its scratch (lane inputs and outputs). Empty and 0 otherwise."""
        from ..actuators.pneumatic import _lane_kernels as LK

        own = [k for k, (_, _, act) in enumerate(pneumatic) if act.supply is None]
        if not self.lanes or len(own) < 2:
            return np.zeros(0), 0
        block = LK.embedded_lanes(np.array([prows[k] for k in own]))
        lane_of = block[3:3 + len(own)]
        cyl = [r for r in rows if int(r[L.A_TYPE]) == L.ACT_PNEUMATIC]
        for k, lane in zip(own, lane_of, strict=True):
            cyl[k][L.A_LANE] = lane
        return block, int(LK.scratch_size(block, 0))

    def _prismatic(self, owner: str, joint: str, hint: str = "") -> None:
        """InputError unless ``joint`` (known to exist) is prismatic."""
        from ..multibody._layout import JOINT_PRISMATIC

        body = list(self.mb.jnt_names).index(joint)
        if int(self.mb.arrays.jnt_type[body]) != JOINT_PRISMATIC:
            raise InputError(f"{owner}: joint {joint!r} is not prismatic{hint}")

    def _resources(self, rows: list[np.ndarray], state: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The rows of the air supplies and of the batteries (their states from ``state`` on, in
        declaration order), and each actuator's row pointed at the resource it names (``A_SUPPLY``:
        a cylinder's supply, a DC motor's battery; -1 for none)."""
        from ..actuators.pneumatic.flow import DEFAULT_LAMINAR_RATIO

        supplies: list[np.ndarray] = []
        batteries: list[np.ndarray] = []
        kinds: dict[str, list[str]] = {"air supply": [], "battery": []}
        for i, res in enumerate(self.resources):
            if res.name in kinds["air supply"] + kinds["battery"]:
                raise InputError(f"{type(res).__name__} {res.name!r}: another resource has this name")
            if isinstance(res, AirSupply):
                t, g = res.tank, res.tank.gas
                r = np.zeros(L.RW)
                r[:L.R_SG + 1] = (state + i, t.volume, t.temperature, g.R, t.p_atm, t.leak_code, t.leak_tau,
                                  t.leak_area, g.k, g.c1, g.c2, g.critical_ratio, DEFAULT_LAMINAR_RATIO,
                                  g.specific_gravity)
                supplies.append(r)
                kinds["air supply"].append(res.name)
            else:
                bm = res.model
                batteries.append(np.array([state + i, bm.capacity_ah, bm.rated_hours, bm.exponent]))
                kinds["battery"].append(res.name)
        for act, row in zip(self.actuators, rows, strict=True):
            ref, kind = ((act.supply, "air supply") if isinstance(act, PneumaticCylinder | SolenoidCylinder)
                         else (act.battery, "battery") if isinstance(act, DCMotor) else (None, ""))
            row[L.A_SUPPLY] = -1
            if ref is None:
                continue
            owner = f"{type(act).__name__} {act.name!r}"
            if not kinds[kind]:
                raise InputError(f"{owner}: {kind} {ref!r}, but the robot has no {kind} "
                                 f"(Robot(resources=[...]))")
            row[L.A_SUPPLY] = lookup(kind, ref, kinds[kind], owner)
        return supplies, batteries

    def _pack_cylinder(self, owner: str, act: PneumaticCylinder, row: np.ndarray, qadr: int, state: int,
                       k: int) -> float:
        """Fill the actuator row of a pneumatic cylinder (its parameter row is the k-th of the
        cylinders' block; the offset is made absolute once the block's place is known); return its
        first command: the valve's equal-flow voltage."""
        from ..actuators.pneumatic.linkage import JointLinkage, LinearLinkage

        prow = act.actuator.row()
        p0 = L.A_P0
        row[L.A_TYPE], row[p0], row[L.A_STATE] = L.ACT_PNEUMATIC, k, state
        row[L.A_ULO], row[L.A_UHI] = prow[PL.U_MIN], prow[PL.U_MAX]
        tr = act.transmission
        if tr is None:
            self._prismatic(owner, act.joint, "; a revolute joint needs a transmission (JointLinkage or "
                                              "LinearLinkage)")
            row[p0 + 1] = L.TR_DIRECT
        elif isinstance(tr, LinearLinkage):
            row[p0 + 1:p0 + 5] = L.TR_LINEAR, tr.theta0, tr.x0, tr.slope
        elif isinstance(tr, JointLinkage):
            row[p0 + 1:p0 + 8] = L.TR_LINKAGE, int(tr.joint), tr.l1, tr.l2, tr.l3, tr.l4, tr.l5
        return float(min(max(prow[PL.U_OFFSET], prow[PL.U_MIN]), prow[PL.U_MAX]))

    @staticmethod
    def _pack_pmsm(act: PMSMDrive, row: np.ndarray, state: int, k: int,
                   blocks: list[np.ndarray]) -> list[str]:
        """Fill the actuator row of a PMSM drive and append its block (the k-th; the offset is made
        absolute once the blocks' place is known); return the names of its states."""
        spring = act.series_spring is not None
        loop = act.mode == "current_loop"
        names = ([f"{act.name}_xm", f"{act.name}_vm"] if spring else []) + (
            [f"{act.name}_{lab}" for lab in ("id", "iq", "zd", "zq")] if loop else [])
        row[L.A_TYPE], row[L.A_GEAR], row[L.PM_BLOCK] = L.ACT_PMSM, act.ratio, k
        row[L.A_STATE] = state if names else -1
        b = np.zeros(L.NPB)
        b[[L.PB_R, L.PB_LD, L.PB_LQ, L.PB_PSI, L.PB_PP, L.PB_B, L.PB_VDC, L.PB_IMAX, L.PB_ETA]] = (
            act.resistance, act.inductance, act.inductance_q, act.flux_linkage, act.pole_pairs, act.viscous,
            act.v_dc, act.i_max, act.efficiency)
        b[L.PB_MODE] = L.PM_LOOP if loop else L.PM_IDEAL
        b[L.PB_CMD] = ("current", "force", "position").index(act.command)
        b[[L.PB_P, L.PB_IT, L.PB_KP, L.PB_KD, L.PB_FG]] = (
            act.p_gain, float(act.i_gain or 0.0) * act.pwm_hz, act.kp, act.kd, act.force_limit)
        if spring:
            kf = act.efficiency * act.ratio * act.motor().torque_constant
            b[[L.PB_CF, L.PB_FF, L.PB_KPF, L.PB_KDF]] = (act.series_spring, 1.0 / kf, act.force_kp,
                                                         act.force_kd)
            b[L.PB_MM] = act.ratio**2 * act.rotor_inertia
            b[L.PB_E0] = L.NPM_SPRING
        blocks.append(b)
        return names

    def _check_compiled(self) -> None:
        """Refuse hooks compiled from older sources than this package (a stale numba cache)."""
        x = self.model.state_defaults.copy()
        if int(self.model.check(0.0, x, self.model.param_defaults.copy(), 0)) == L.ERR_STALE:
            raise InputError(_STALE)

    def _ticks(self, owner: str, rate_hz: float) -> int:
        """The sensor's period in ticks of the sample clock (rate 0: the controller's rate)."""
        if rate_hz == 0.0:
            return self.controller_every
        return int(round(self.sample_rate / _clock.rate(owner, rate_hz)))

    def _start(self, x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, int]:
        """Normalise the quaternions and close the loops; on the event path, points at or below the ground
        start touching (through the model's own guards and reset: their bit set, their approach rate
        latched)."""
        nq, nv = self.mb.nq, self.mb.nv
        x = np.array(x, dtype=float)
        x[:nq + nv] = self.mb.normalise_quaternions(x[:nq + nv])
        self._close(x)
        ng = self.model.nguard
        if not ng:
            return x, 0
        g = np.empty(ng)
        self.model.guard_values(0.0, x, p, 0, g)
        fired = np.zeros(ng, dtype=np.int64)
        fired[0:self._ngc:2] = g[0:self._ngc:2] <= 0.0
        x_new = x.copy()
        mode = int(self.model.reset(0.0, x, p, 0, fired, x_new))
        return x_new, mode

    def reseed(self, seed: int) -> int:
        """Give every sensor's noise a new seed made from ``seed`` and the sensor's own seed
        (numpy's SeedSequence of the two: distinct ``seed`` draw independent noise, distinct
        sensors stay distinct, the same ``seed`` repeats exactly). Returns the sensors reseeded."""
        seed = check_whole(f"{self.name}: reseed", "seed", seed, hi=2**64 - 1)  # SeedSequence's entropy
        p = self.model.param_defaults.copy()
        nrow, first = int(p[L.P_NROW]), int(p[L.P_OS])
        for r in range(nrow):
            k = first + L.SW * r + L.S_SEED
            p[k] = float(np.random.SeedSequence([int(seed), int(p[k])]).generate_state(1)[0])
        if nrow:
            self.model = dataclasses.replace(self.model, param_defaults=p)
        return nrow

    # ---------------------------------------------------------------------------- running
    def initial_state(self, q0=None, v0=None, commands0=None) -> np.ndarray:
        """The engine state (nx,) from ``q0`` (nq,), ``v0`` (nv,) (default: neutral, at rest) and
        the first held commands (default: 0, and a position servo's joint position in ``q0``). The loops'
        dependent coordinates and rates are set from their joints' (whatever ``q0``, ``v0`` hold there);
        under a split exchange the packets held and in the up ring are the actuated joints' (q0, v0), no
        force is held yet (f_rx = 0) and no packet has moved."""
        mb = self.mb
        x = self.model.state_defaults.copy()
        if q0 is not None:
            q = as_floats(q0).ravel()
            if q.shape != (mb.nq,) or not np.all(np.isfinite(q)):
                raise InputError(f"{self.name}: q0 has shape {np.shape(q0)}, expected ({mb.nq},) finite")
            x[:mb.nq] = q
        if v0 is not None:
            v = as_floats(v0).ravel()
            if v.shape != (mb.nv,) or not np.all(np.isfinite(v)):
                raise InputError(f"{self.name}: v0 has shape {np.shape(v0)}, expected ({mb.nv},) finite")
            x[mb.nq:mb.nq + mb.nv] = v
        self._close(x)  # the loops' dependent joints from their joints' θ, θ̇
        xu = self._x["xu"]
        lengths = self.rod_lengths(x[:mb.nq])
        for a, qadr in self._servo_q:  # position-commanded actuators hold their initial position
            x[xu + a] = x[qadr] if qadr >= 0 else lengths[a]
        for st, qadr, _ in self._drives:  # series springs relaxed, motor sides at rest
            x[st], x[st + 1] = x[qadr], 0.0
        for st, qadr, act in self._pneumatic:  # chambers at rest at their initial pressures
            x[st:st + L.NGAS] = act.actuator.initial_state(act.piston(x[qadr]), act.p_cap0, act.p_rod0)[0]
        for slot, qadr, a, k in self._zeros:  # incremental encoders count from the initial position
            x[slot] = math.floor(k * (x[qadr] if qadr >= 0 else lengths[a]))
        self._hold_packets(x)
        if commands0 is not None:
            n = self._x["nact"]
            if not isinstance(commands0, Mapping):  # (a mapping's values: the writer names each actuator)
                c = as_floats(commands0)
                if c.shape != (n,) or not np.all(np.isfinite(c)):
                    raise InputError(f"{self.name}: commands0 = {shown(commands0)}, expected {n} finite "
                                     f"numbers (actuators {', '.join(self.actuator_names)}) or a mapping "
                                     "actuator -> value")
            CommandWriter(self, x)(commands0)
        return x

    def default_options(self, smooth: bool | None = None) -> Options:
        """The options :meth:`simulate` uses when given none: fixed-step RK4 at half the control
        period on the smooth contact path (see :meth:`simulate`), else DP45 at rtol 1e-7 with steps up
        to the control period; a record every control period [s]. ``smooth`` (default: the contacts'
        path) chooses the RK4 form. With a :class:`PMSMDrive` in ``mode="current_loop"`` the RK4 step is
        at most ``2 / omega_c`` (omega_c = 2 pi ``current_bandwidth_hz``, the loop's fastest pole; RK4
        is stable on it for h < 2.785/omega_c), a whole fraction of the control period. A robot built with
        ``options`` returns those when ``smooth`` is not given."""
        if smooth is None and self.options is not None:
            return self.options
        if smooth is None:
            smooth = self.contacts is not None and self.contacts.path == "smooth"
        smooth = check_flag(f"{self.name}: default_options", "smooth", smooth)
        if smooth:
            h = self.control_period / 2
            loops = [a.current_bandwidth_hz for a in self.actuators
                     if isinstance(a, PMSMDrive) and a.mode == "current_loop"]
            if loops:
                h_loop = 2.0 / (2.0 * math.pi * max(loops))
                h = self.control_period / math.ceil(self.control_period / h_loop)
            return Options(method="rk4_fixed", h_max=h, record_period=self.control_period)
        return Options(rtol=1e-7, atol=1e-9, h_max=self.control_period, record_period=self.control_period)

    def simulate(self, t_final: float, controller: Controller | None = None, *, q0=None, v0=None,
                 commands0=None, options: Options | None = None, controller_params=(), controller_memory=(),
                 x0=None, t0: float = 0.0, param_names: Sequence[str] | None = None,
                 param_ranges: Mapping[str, ParamRange] | None = None,
                 memory_names: Sequence[str] | None = None, **kwargs) -> Result:
        """Run the robot to ``t_final`` [s] with ``controller`` (called every control period from t = 0
        with the sensors' held measurements; None: the commands stay ``commands0``): a Python function
        ``controller(t, sensors) -> commands``, or one compiled with
        :func:`legsim.assembly.compiled_controller` (then ``controller_params`` reach it as ``params``,
        and a controller with a memory starts with ``controller_memory``; ``param_names``,
        ``param_ranges`` and ``memory_names`` name them in the run, see :meth:`with_compiled_controller`).

        ``options`` default: the robot's own (``Robot(options=...)``), else DP45 at rtol 1e-7 for the
        event path; fixed-step RK4 at h = half the
        control period for the smooth path (steps also end at every sample instant; on the sample
        hexapod with Hunt–Crossley feet, h = 1 ms settles into a limit cycle 5 % off the weight
        that h <= 0.5 ms does not have: check convergence for your contact stiffness); records
        every control period. ``x0`` (nx,) and ``t0`` [s] continue a run from a recorded engine
        state (``res.x[-1]``, ``res.t[-1]``: tank and chamber pressures, filters, held commands and a
        compiled controller's memory included) instead of ``q0``/``v0``/``commands0``. Other keywords go to
        :func:`legsim.hybrid.simulate` (``sinks``, ``progress``, ``raise_on_error``).
        """
        if x0 is None:
            x0 = self.initial_state(q0, v0, commands0)
        elif q0 is not None or v0 is not None or commands0 is not None:
            raise InputError(f"{self.name}: give x0 (a whole engine state) or q0/v0/commands0, not both")
        options = self.default_options() if options is None else options
        if is_compiled_controller(controller):
            x0 = np.asarray(x0, dtype=float)
            nx = self.model.state_defaults.size
            if x0.size > nx and not np.size(controller_memory):  # a recorded state holds the memory
                controller_memory = x0[nx:]
            model = self.with_compiled_controller(controller, controller_params, controller_memory,
                                                  param_names=param_names, param_ranges=param_ranges,
                                                  memory_names=memory_names)
            if x0.shape == (nx,):  # the robot's state: the memory starts at controller_memory
                x0 = np.concatenate([x0, model.state_defaults[nx:]])
            with self._explained(x0):
                return simulate(model, t_final, x0=x0, t0=t0, options=options, **kwargs)
        if np.size(controller_memory):
            raise InputError(f"{self.name}: controller_memory is for a compiled controller that keeps a "
                             "memory (legsim.assembly.compiled_controller)")
        named = [k for k, v in (("param_names", param_names), ("param_ranges", param_ranges),
                                ("memory_names", memory_names)) if v is not None]
        if named:
            raise InputError(f"{self.name}: {', '.join(named)} name a compiled controller's values "
                             "(legsim.assembly.compiled_controller), not a Python controller's")
        callback = None if controller is None else python_controller(self, controller)
        with self._explained(x0):
            return simulate(self.model, t_final, x0=x0, t0=t0, options=options, controller=callback,
                            controller_every=self.controller_every, **kwargs)

    def check_run(self, owner: str, result) -> None:
        """An :class:`InputError` naming ``owner`` unless ``result`` is a run of this robot: the
        :class:`~legsim.hybrid.Result` of its :meth:`simulate`, or its run directory read back
        (:func:`legsim.io.load_run`), holding every state of the robot."""
        if not (hasattr(result, "t") and callable(getattr(result, "state", None))
                and set(self.model.state_names) <= set(getattr(result, "state_names", ()))):
            raise InputError(f"{owner}: 'result' = {shown(result)}, expected the run of 'robot' (the Result "
                             "of its simulate(), or its run directory read back: legsim.io.load_run)")

    def contact_gaps(self, q) -> dict[str, float]:
        """The gap [m] between each contact point's sphere and the ground at configuration ``q`` (nq,),
        by point name (:attr:`point_names`): positive above the ground, negative inside it (on a
        terrain, measured vertically from h(x, y)). Empty without contacts; obstacles are not included."""
        if self.contacts is None:
            return {}
        mb = self.mb
        q = np.asarray(q, dtype=float)
        if q.shape != (mb.nq,) or not np.all(np.isfinite(q)):
            raise InputError(f"{self.name}: contact_gaps(q): q has shape {q.shape}, expected ({mb.nq},) "
                             "finite")
        q = mb.normalise_quaternions(np.concatenate([q, np.zeros(mb.nv)]))[:mb.nq]
        data = mb.make_data()
        forward_kinematics(mb, data, q)
        ground = self.contacts.ground
        gaps = {}
        for name, body, centre, radius, _ in self._points:
            at = data.oR[body] @ centre + data.op[body]
            if isinstance(ground, Plane):
                above = float(np.dot(ground.normal, at)) - ground.offset
            else:
                above = float(at[2] - ground.height(at[0], at[1]))
            gaps[name] = above - radius
        return gaps

    @contextlib.contextmanager
    def _explained(self, x0):
        """A run that stops early from a state with contact points deep in the ground says so: the
        likely cause (a robot whose initial state was not set: a free base at the origin), the
        deepest point and how deep (the engine's own message says only that the state became
        non-finite or the step too small)."""
        try:
            yield
        except Interrupted:
            raise
        except SimulationError as exc:
            hint = self._start_hint(x0)
            if not hint:
                raise
            raise SimulationError(f"{exc} {hint}", t=exc.t, mode=exc.mode, cause=exc.cause,
                                  result=exc.result) from exc.__cause__

    DEEP_START = 0.01
    """How far [m] a contact point may start inside the ground before a failed run mentions it."""

    def _start_hint(self, x0) -> str:
        x0 = np.asarray(x0, dtype=float)
        gaps = self.contact_gaps(x0[:self.mb.nq]) if x0.size >= self.mb.nq else {}
        inside = {n: g for n, g in gaps.items() if g < -self.DEEP_START}
        if not inside:
            return ""
        deepest = min(inside, key=inside.__getitem__)
        return (f"At the start, contact point {deepest!r} was {-inside[deepest]:.3g} m inside the ground "
                f"({len(inside)} of {len(gaps)} points more than {self.DEEP_START * 100:g} cm inside): start "
                "the robot on or above the ground (its initial coordinates: a scenario's [initial] table, or "
                "q0).")

    def with_compiled_controller(self, controller, controller_params=(), controller_memory=(), *,
                                 param_names: Sequence[str] | None = None,
                                 param_ranges: Mapping[str, ParamRange] | None = None,
                                 memory_names: Sequence[str] | None = None) -> HybridModel:
        """The robot's hybrid model with ``controller`` (:func:`legsim.assembly.compiled_controller`) in
        its sample hook, ``controller_params`` (ncp,) appended to its parameters (named ``param_names``,
        default ``ctrl_p<k>``; ``param_ranges`` name -> :class:`~legsim.hybrid.ParamRange` for those a
        scenario may set, checked as a model's own) and, for a controller with a memory,
        ``controller_memory`` (nm,) its initial memory, appended to its states as bookkeeping states
        (named ``memory_names``, default ``ctrl_m<k>``; the controller's fifth argument)."""
        if not is_compiled_controller(controller):
            raise InputError(f"{self.name}: controller = {controller!r}, expected a function compiled with "
                             "legsim.assembly.compiled_controller")
        cp = _controller_values(self.name, "controller_params", controller_params)
        mem = _controller_values(self.name, "controller_memory", controller_memory)
        if mem.size and not takes_memory(controller):
            raise InputError(f"{self.name}: controller_memory has {mem.size} values, but the controller "
                             "takes no memory (its fifth argument)")
        base = self.model.param_defaults
        p = np.concatenate([base, cp])
        nx = self.model.state_defaults.size
        p[L.P_OCP], p[L.P_NCP], p[L.P_XM], p[L.P_NM] = base.size, cp.size, nx, mem.size
        pn = _own_names(self.name, "param_names", param_names, [f"ctrl_p{k}" for k in range(cp.size)])
        mn = _own_names(self.name, "memory_names", memory_names, [f"ctrl_m{k}" for k in range(mem.size)])
        if not (param_ranges is None or isinstance(param_ranges, Mapping) and all(
                isinstance(k, str) and isinstance(v, ParamRange) for k, v in param_ranges.items())):
            raise InputError(f"{self.name}: param_ranges = {shown(param_ranges)}, expected None or a mapping "
                             "of parameter name -> legsim.hybrid.ParamRange")
        ranges = dict(param_ranges or {})
        unknown = sorted(set(ranges) - set(pn))
        if unknown:
            raise InputError(f"{self.name}: param_ranges names {', '.join(map(repr, unknown))}, which are "
                             "not among the controller's param_names")
        names = (*self.model.param_names, *pn)
        states = (*self.model.state_names, *mn)
        taken = set(self.model.param_names) & set(pn) | set(self.model.state_names) & set(mn)
        if taken:
            raise InputError(f"{self.name}: controller names {', '.join(map(repr, sorted(taken)))} are "
                             "already the robot's own parameter or state names")
        return dataclasses.replace(self.model, sample=sample_hook(controller), param_defaults=p,
                                   param_names=names, state_names=states,
                                   param_ranges={**self.model.param_ranges, **ranges},
                                   state_defaults=np.concatenate([self.model.state_defaults, mem]))


def _controller_values(robot: str, what: str, value) -> np.ndarray:
    """A compiled controller's parameters or initial memory: finite numbers (a number, a list or an array,
    flattened; empty: none), else an :class:`InputError` naming ``what``."""
    a = as_floats(value).ravel()
    if isinstance(value, (str, bytes, Mapping)) or a.size != np.asarray(value, dtype=object).size \
            or not np.all(np.isfinite(a)):
        raise InputError(f"{robot}: {what} = {shown(value)}, expected finite numbers (a list or an array)")
    return a


def _own_names(robot: str, what: str, names: Sequence[str] | None, default: list[str]) -> tuple[str, ...]:
    """A compiled controller's parameter or memory names: ``names`` (one unique identifier each) or the
    defaults."""
    if names is None:
        return tuple(default)
    values = "controller_params" if what == "param_names" else "controller_memory"
    if not (isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)):
        raise InputError(f"{robot}: {what} = {shown(names)}, expected None or a list of names (one per value "
                         f"of {values})")
    out = tuple(names)
    unique = len(set(out)) == len(out) and all(isinstance(n, str) and n for n in out)
    if len(out) != len(default) or not unique:
        raise InputError(f"{robot}: {what} has {len(out)} entries, expected {len(default)} unique non-empty "
                         f"names (one per value of {values})")
    return out


_STALE = ("legsim.assembly: its compiled hooks are older than its source files (numba's own cache, used when "
          "legsim's cannot be written, does not see edits of the files they import): delete "
          "legsim/assembly/__pycache__/*.nbi and *.nbc and run again")


def _terrain_block(ground) -> np.ndarray:
    """The terrain block (``_layout.TR_*``) of a :class:`~legsim.contact.HeightField` or
    :class:`~legsim.contact.HeightFunction` ground; empty for a plane."""
    if isinstance(ground, HeightField):
        h = np.asarray(ground.heights, dtype=float)
        data = np.concatenate([ground.origin, h.ravel()])
        return np.concatenate([[HF_GRID, data.size, h.shape[0], h.shape[1], ground.dx, ground.dy], data])
    if isinstance(ground, HeightFunction):
        data = np.asarray(ground.params, dtype=float)
        return np.concatenate([[HEIGHT_KINDS[ground.kind], data.size, 0, 0, 1.0, 1.0], data])
    return np.zeros(0)


def _solenoid_block(act: SolenoidCylinder) -> np.ndarray:
    """A solenoid cylinder's parameters beyond its actuator row (``_layout.SB_*``)."""
    b = np.zeros(L.NSB)
    b[:] = (act.kappa, act.v_eps, ("trapped", "instant", "orifice").index(act.exhaust), act.exhaust_area,
            ("orifice", "cv", "cv_corrected").index(str(act.flow)), act.valve.area, act.cv, act.valve.latency,
            act.valve.close_latency, _FRICTION_LAWS.index(act.friction_law))
    return b


_ACTUATORS = (TorqueSource, PositionServo, VelocityServo, DCMotor, PneumaticCylinder, SolenoidCylinder,
              PMSMDrive)
_SENSORS = (JointEncoder, JointVelocity, IMU, ContactForce, ForceTorque, MotorCurrent, PhaseCurrent,
            ChamberPressure, IncrementalEncoder, LimitSwitch)


def _components(name: str, value, kinds: tuple[type, ...], what: str) -> tuple:
    """``value``, a list or tuple of parts each of one of ``kinds``, as a tuple, else an
    :class:`InputError` naming the Robot argument ``name`` (and the index of a wrong part)."""
    if not isinstance(value, (list, tuple)):
        raise InputError(f"Robot: '{name}' = {shown(value)}, expected a list of parts, each {what}")
    for i, part in enumerate(value):
        if not isinstance(part, kinds):
            raise InputError(f"Robot: '{name}'[{i}] = {shown(part)} is not {what} "
                             f"({', '.join(k.__name__ for k in kinds)})")
    return tuple(value)


def _with_rotor_inertia(model: Model, actuators: Sequence) -> Model:
    """``model`` with the DC motors' and rigid PMSM drives' reflected rotor inertias ``N^2 J_r`` added to
    their joints' armature (a copy; the model itself when no motor has a rotor inertia)."""
    arm = np.array(model.arrays.dof_armature, dtype=float)
    names = list(model.joint_names)
    for act in actuators:
        if isinstance(act, DCMotor) and act.rotor_inertia > 0.0 and act.joint in names:
            body = list(model.jnt_names).index(act.joint)
            arm[int(model.arrays.jnt_dofadr[body])] += act.gear**2 * act.rotor_inertia
        elif isinstance(act, PMSMDrive) and act.series_spring is None and act.joint in names:
            body = list(model.jnt_names).index(act.joint)  # a series spring keeps the rotor on its own side
            arm[int(model.arrays.jnt_dofadr[body])] += act.ratio**2 * act.rotor_inertia
    if np.array_equal(arm, model.arrays.dof_armature):
        return model
    return model.with_options(armature=arm)
