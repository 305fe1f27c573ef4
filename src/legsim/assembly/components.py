"""Robot parts declared as data: actuators, sensors and contacts (DESIGN.md "Robots from parts").

Each part is a frozen dataclass that checks its own values when it is made (an
:class:`~legsim.errors.InputError` naming the part, the field and the allowed range); whether the
joint, body or geometry it names exists is checked when :class:`legsim.assembly.Robot` compiles
the robot. Every actuator takes one command per control sample (MuJoCo's ``ctrl``), held between
samples (zero-order hold). Units are SI: rad, m, N m, N, V, A, s, Hz.

Actuators (one per 1-DoF joint, revolute or prismatic; generalised force ``tau`` on the joint)
--------------------------------------------------------------------------------------------
* :class:`TorqueSource` — ``tau = gear * clip(u, lo, hi)``; ``u`` [N m or N at the motor side].
* :class:`PositionServo` — ``tau = clip(kp (u - q) - kd qdot, -effort, effort)``; ``u`` [rad or m].
* :class:`VelocityServo` — ``tau = clip(kv (u - qdot), -effort, effort)``; ``u`` [rad/s or m/s].
* :class:`PneumaticCylinder` — a valve-driven double-acting cylinder through a linkage (``u``: valve
  voltage [V]); two or more on their own supplies are evaluated together through the SIMD lane kernel
  (``Robot(lanes=...)``).
* :class:`SolenoidCylinder` — the RATS leg: a single chamber on a 3-way solenoid valve with latency
  (``u``: 1 energised, 0 not).
* :class:`DCMotor` — brushed DC motor through a gear of ratio N and efficiency eta (motor speed
  ``omega_m = N qdot``, back-EMF ``kb omega_m``, torque ``tau = eta N kt i``):

  - ``command="voltage"``: ``u`` is the armature voltage, clipped to ``±v_max``; without
    inductance ``i = (u - kb omega_m) / R``, with inductance ``L > 0`` the current is a state,
    ``L di/dt = u - R i - kb omega_m``; the torque-producing current is clipped to ``±i_max``.
  - a rotor inertia ``J_r`` adds the reflected inertia ``N^2 J_r`` to the joint (armature).
  - ``command="torque"``: ``u`` is the joint torque wanted, clipped to what the motor can give at
    this speed, ``eta N kt clip((±v_max - kb omega_m) / R, -i_max, i_max)``: the linear
    torque-speed limit of SimSect's hexapod motor (digest §4.9; :func:`DCMotor.simsect`).

* :class:`PMSMDrive` — a PMSM with its current loop (Konyev 2011 §4.2; ROTTO's drives) through a
  gear or a belt and ball screw, optionally with a series spring (a series-elastic actuator):

  - transmission ratio ``G`` = ``gear`` (motor rad per joint rad or m) or, with a ball screw of
    ``lead`` h [m] on a prismatic joint, ``2 pi gear / h`` (``gear``: the belt ratio); joint force
    ``eta G T``, ``T = 3/2 p (psi i_q + (L_d - L_q) i_d i_q)`` (:mod:`legsim.actuators.electric.pmsm`);
    the rotor's viscous friction ``b`` costs ``G^2 b qdot``; the rotor inertia ``J`` reflects as ``G^2 J``.
  - ``mode="ideal"``: ``i_q`` = its reference clipped to ``±i_max`` and to the steady band the voltage
    circle ``v_dc/sqrt 3`` allows at this speed (``i_d = 0``); ``mode="current_loop"``: the 28 kHz PI
    (4.2) as its continuous averaged-PWM equivalent ``u = P e + (I/T) int e`` per axis (``i_d* = 0``),
    the voltage limited to the circle (D first, clipped axis's integral held), the dq winding
    equations; states ``<name>_id``, ``_iq`` [A], ``_zd``, ``_zq`` [A s].
  - ``command``: ``"current"`` (u = i_q* [A]), ``"force"`` (u = joint force [N or N m]; with a spring
    the spring force, held by the PD force loop of Fig. 4.19), ``"position"`` (u = joint target:
    ``F* = clip(kp (u - q) - kd qdot, -force_limit, force_limit)``, Fig. 4.20, then as ``"force"``).
  - ``series_spring`` CF [N/m or N m/rad]: the motor side is a state (``<name>_xm``, ``_vm``: position
    and rate in joint units, inertia ``G^2 J``), the joint gets ``CF (x_m - q)``; the force loop
    ``i_q* = F*/g + force_kp (F* - F) - force_kd dF/dt`` (``g = eta G kt``) with gains by the pole
    placement of :func:`legsim.actuators.electric.drive_loops.sea_force_gains` (default: 50 Hz, 15 ms).

Closed loops
------------
:class:`LinkageLoop` — a cylinder with mass (barrel and piston-rod bodies of the tree) closed by an
explicit constraint on a revolute joint's angle (``Robot(loops=...)``; Featherstone (2008) ch. 8).

Sensors (each sampled at its own rate; the engine's sample clock is the least common multiple of all rates)
--------------------------------------------------------------------------------
:class:`JointEncoder` (joint positions), :class:`JointVelocity`, :class:`IMU` (accelerometer: the
specific force ``a - g`` of a body point, and/or gyro: the body's angular velocity, in sensor
axes rotated by ``rotation`` from the body's), :class:`ContactForce` (3-axis contact force in world
axes on a contact geometry), :class:`MotorCurrent` (a DC motor's armature current, a PMSM's i_q),
:class:`ChamberPressure` (a cylinder's two chamber pressures). Every channel
goes through :class:`Measurement`: scale error, offset, Gaussian noise (seeded, reproducible),
saturation, quantisation, a first-order low-pass (Butterworth order 1), a delay of whole samples
and a hold until its next sample (module ``_sensing``).

Coupling: :class:`SplitExchange` (``Robot(exchange=...)``) emulates the CRR leg's split target/SrLib
architecture: delayed packets of joint states up and forces down at each controller tick, and pauses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..actuators.electric.battery import PeukertBattery
from ..actuators.electric.dcmotor import MAX_VALUE, MAXON_RE118751
from ..actuators.electric.drive_loops import rotto_actuator, sea_force_gains
from ..actuators.electric.pmsm import MAX_POLE_PAIRS, PMSM, current_pi_gains
from ..actuators.pneumatic.actuator import MAX_PRESSURE, PneumaticActuator
from ..actuators.pneumatic.linkage import JointLinkage, LinearLinkage
from ..actuators.pneumatic.solenoid import SolenoidValve
from ..actuators.pneumatic.tank import SupplyTank
from ..contact.laws import ContactLaw, FrictionLaw, NormalLaw
from ..contact.shapes import HeightField, HeightFunction, Plane
from ..errors import InputError, check_array, check_number, check_whole, closest, real_number, shown
from ..multibody.model import Model
from ._layout import EX_DMAX

__all__ = [
    "TorqueSource", "PositionServo", "VelocityServo", "DCMotor", "Measurement", "JointEncoder",
    "JointVelocity", "IMU", "ContactForce", "ForceTorque", "WRENCH_CHANNELS", "MotorCurrent", "PhaseCurrent",
    "Contacts", "Obstacle", "Actuator", "Sensor",
    "PneumaticCylinder", "ChamberPressure", "AirSupply", "SolenoidCylinder", "Battery", "contact_geometries",
    "PMSMDrive", "rotto_ft_sensor", "rotto_ft_measurements", "ROTTO_FT_TABLE_4_1", "ROTTO_FT_ROTATION",
    "CommandTable", "Rod", "IncrementalEncoder", "LimitSwitch", "SplitExchange", "EXCHANGE_DMAX",
    "LinkageLoop", "MAX_MEASURED",
]


MAX_MEASURED = 1e12
"""The largest magnitude of a :class:`Measurement`'s ``noise_std``, ``offset``, ``scale_error`` and finite
range ends ``lo``, ``hi``, in the channel's SI units (rad, m, N, Pa, A, counts), and 1/MAX_MEASURED its
smallest quantisation step: a sensed value (a pressure up to 1e9 Pa) scaled and offset by them stays far
from overflow in the compiled sensor model (a range of ±1e308 made its state infinite), and the step
divides without reaching zero."""


def _limit(owner: str, name: str, value) -> float:
    """A limit (an effort, a current): a number > 0, inf for none."""
    v = real_number(owner, name, value)
    if not v > 0.0:
        raise InputError(f"{owner}: '{name}' = {value!r}, expected a number > 0 (inf: no limit)")
    return v


def _choice(owner: str, name: str, value, choices) -> str:
    """``value`` if it is one of the strings ``choices``, else InputError."""
    if not (isinstance(value, str) and value in choices):
        raise InputError(f"{owner}: {name} = {value!r}, expected one of {', '.join(choices)}")
    return value


def _joint(owner: str, value) -> None:
    """An actuator's joint: a joint's name or a :class:`Rod` (the robot checks that it exists)."""
    if not (isinstance(value, Rod) or isinstance(value, str) and value):
        raise InputError(f"{owner}: joint = {value!r}, expected a joint's name or a Rod")


def _name(kind: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(f"{kind}: name = {value!r}, expected a non-empty string")
    return value


# ----------------------------------------------------------------------------------- actuators
@dataclass(frozen=True)
class Rod:
    """A linear actuator between two bodies, given as an actuator's ``joint``: from ``point_a`` (3,) [m]
    on ``body_a`` to ``point_b`` (3,) [m] on ``body_b`` (body axes; ``"world"`` for a fixed end). Its
    coordinate is the length l = |p_B − p_A| [m] and its rate l̇ = u · (v_B − v_A), u the unit vector
    from A to B; the actuator's force F [N] (positive lengthening) pushes B along +u and A along −u,
    which the joints feel as τ = Jᵀ F with J = ∂l/∂q (virtual work; a massless rod with ball joints
    at both ends, as ROTTO's drives, Konyev 2011 §4.1). The joints between the bodies may be any
    number and kind. A rotor's inertia behind a rod is not reflected into the joints (it depends on
    the posture): give the joints an armature for it (ROTTO: diag(Jᵀ m J) at its zero posture)."""

    body_a: str
    point_a: Sequence[float]
    body_b: str
    point_b: Sequence[float]

    def __post_init__(self):
        for k in ("body_a", "body_b"):
            if not isinstance(getattr(self, k), str) or not getattr(self, k):
                raise InputError(f"Rod: {k} = {getattr(self, k)!r}, expected a body name")
        if self.body_a == self.body_b:
            raise InputError(f"Rod: both ends on body {self.body_a!r}; a rod joins two bodies")
        for k in ("point_a", "point_b"):
            v = check_array("Rod", k, getattr(self, k), (3,), "m")
            object.__setattr__(self, k, tuple(float(c) for c in v))

    def __str__(self) -> str:
        return f"rod {self.body_a}-{self.body_b}"


@dataclass(frozen=True)
class TorqueSource:
    """Ideal torque (revolute) or force (prismatic, :class:`Rod`) source: ``tau = gear * clip(u, lo, hi)``.
    Without ``lo``, ``hi`` on a joint that has an effort limit (a URDF's ``<limit effort>``, as Pinocchio's
    ``effortLimit`` and MuJoCo's ``actuatorfrcrange`` read it): ``±effort / gear``."""

    name: str
    joint: str | Rod
    gear: float = 1.0
    lo: float = -math.inf
    hi: float = math.inf

    def __post_init__(self):
        o = f"TorqueSource {self.name!r}"
        _name("TorqueSource", self.name)
        _joint(o, self.joint)
        object.__setattr__(self, "gear", check_number(o, "gear", self.gear, lo=0.0, lo_open=True))
        for k in ("lo", "hi"):
            object.__setattr__(self, k, real_number(o, k, getattr(self, k)))
        if not self.lo < self.hi:
            raise InputError(f"{o}: lo = {self.lo:g} must be below hi = {self.hi:g}")


@dataclass(frozen=True)
class PositionServo:
    """Position servo: ``tau = clip(kp (u - q) - kd qdot, -effort, effort)`` (u: target [rad or m]; on a
    :class:`Rod`, q is its length); ``effort`` default: the joint's effort limit (a URDF's), else none."""

    name: str
    joint: str | Rod
    kp: float
    kd: float = 0.0
    effort: float = math.inf

    def __post_init__(self):
        o = f"PositionServo {self.name!r}"
        _name("PositionServo", self.name)
        _joint(o, self.joint)
        object.__setattr__(self, "kp", check_number(o, "kp", self.kp, lo=0.0))
        object.__setattr__(self, "kd", check_number(o, "kd", self.kd, lo=0.0))
        object.__setattr__(self, "effort", _limit(o, "effort", self.effort))


@dataclass(frozen=True)
class VelocityServo:
    """Velocity servo: ``tau = clip(kv (u - qdot), -effort, effort)`` (u: target [rad/s or m/s]);
    ``effort`` default: the joint's effort limit (a URDF's), else none."""

    name: str
    joint: str | Rod
    kv: float
    effort: float = math.inf

    def __post_init__(self):
        o = f"VelocityServo {self.name!r}"
        _name("VelocityServo", self.name)
        _joint(o, self.joint)
        object.__setattr__(self, "kv", check_number(o, "kv", self.kv, lo=0.0))
        object.__setattr__(self, "effort", _limit(o, "effort", self.effort))


@dataclass(frozen=True)
class DCMotor:
    """Brushed DC motor through a gear (module docstring for the equations).

    Parameters
    ----------
    name, joint : actuator name and the 1-DoF joint it drives.
    resistance : armature resistance R [ohm] (> 0).
    torque_constant : kt [N m/A] (> 0).
    back_emf : kb [V s/rad]; default ``torque_constant`` (an ideal machine in SI units).
    inductance : L [H]; 0 (default) neglects the electrical dynamics, > 0 makes the current a state.
    gear : ratio N (motor turns per joint turn, > 0).
    efficiency : eta of the gear, in (0, 1].
    v_max : supply voltage [V] (commands are clipped to ±v_max).
    i_max : current limit [A] (inf: none).
    command : ``"voltage"`` or ``"torque"``.
    battery : the name of a :class:`Battery` of the robot that the motor's current drains.
    rotor_inertia : J_r [kg m^2] of the rotor (and first gear stage); the joint gets the reflected
        inertia ``N^2 J_r`` as armature (added to its mass-matrix diagonal, as MuJoCo's
        ``armature``). With a large gear this dominates a light link's inertia, and leaving it out
        makes the joint's electrical damping ``eta N^2 kt kb / R`` over the link inertia a stiff mode.
    """

    name: str
    joint: str
    resistance: float
    torque_constant: float
    v_max: float
    back_emf: float | None = None
    inductance: float = 0.0
    gear: float = 1.0
    efficiency: float = 1.0
    i_max: float = math.inf
    command: str = "voltage"
    rotor_inertia: float = 0.0
    battery: str | None = None

    def __post_init__(self):
        o = f"DCMotor {self.name!r}"
        object.__setattr__(self, "rotor_inertia",
                           check_number(o, "rotor_inertia", self.rotor_inertia, lo=0.0))
        _name("DCMotor", self.name)
        _joint(o, self.joint)
        for k in ("resistance", "torque_constant", "v_max", "gear"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0, lo_open=True))
        kb = self.torque_constant if self.back_emf is None else self.back_emf
        object.__setattr__(self, "back_emf", check_number(o, "back_emf", kb, lo=0.0))
        object.__setattr__(self, "inductance", check_number(o, "inductance", self.inductance, lo=0.0))
        object.__setattr__(self, "efficiency", check_number(o, "efficiency", self.efficiency, lo=0.0,
                                                    hi=1.0, lo_open=True))
        object.__setattr__(self, "i_max", _limit(o, "i_max", self.i_max))
        _choice(o, "command", self.command, ("voltage", "torque"))
        if self.command == "torque" and self.inductance > 0.0:
            raise InputError(f"{o}: a torque-commanded motor has no current state: set inductance = 0 "
                             "or command = 'voltage'")

    @classmethod
    def simsect(cls, name: str, joint: str, *, max_speed_rpm: float = MAXON_RE118751["max_speed"],
                speed_constant: float = MAXON_RE118751["speed_constant"],
                resistance: float = MAXON_RE118751["armature_resist"],
                gear: float = MAXON_RE118751["gear_ratio"]) -> DCMotor:
        """SimSect's hexapod motor (digest §4.9; ``legsim.actuators.electric.MAXON_RE118751``): a
        torque command clipped to the linear torque-speed band of a motor whose supply gives
        ``max_speed_rpm`` at no load (``v_max = w_nl / K_omega``, ``kt = kb = 1 / K_omega``)."""
        k_omega = check_number(f"DCMotor {name!r}", "speed_constant", speed_constant, lo=0.0, lo_open=True)
        w_nl = max_speed_rpm * 2.0 * math.pi / 60.0
        v_max = w_nl / k_omega
        return cls(name, joint, resistance=resistance, torque_constant=1.0 / k_omega, v_max=v_max,
                   gear=gear, i_max=v_max / resistance, command="torque")


_PMSM_MODES = ("ideal", "current_loop")
_PMSM_COMMANDS = ("current", "force", "position")


@dataclass(frozen=True)
class PMSMDrive:
    """A PMSM drive with its current loop on a 1-DoF joint (module docstring for the equations).

    Parameters
    ----------
    name, joint : actuator name and the joint it drives (prismatic with a ball screw ``lead``), or a
        :class:`Rod` between two bodies (ROTTO's drives; no series spring there).
    resistance : R [ohm]; inductance : L_d [H]; inductance_q : L_q [H] (default L_d).
    flux_linkage : psi [V s]; pole_pairs : p; rotor_inertia : J [kg m^2]; viscous : b [N m s/rad].
    v_dc : DC-link voltage [V]; i_max : current limit [A] (inf: none).
    gear : ratio (motor turns per joint turn), or the belt ratio ahead of a ball screw of ``lead`` [m].
    efficiency : eta in (0, 1] on the force the motor gives.
    mode : ``"ideal"`` or ``"current_loop"``; pwm_hz : the PI's rate (28 kHz); current_bandwidth_hz : the
        loop's placeholder gains by pole-zero cancellation (:func:`~legsim.actuators.electric.pmsm.
        current_pi_gains`), unless ``p_gain`` [V/A] and ``i_gain`` [V/A per sample] are given.
    command : ``"current"``, ``"force"`` or ``"position"`` (``kp``, ``kd``, ``force_limit``).
    series_spring : CF of a series spring [N/m or N m/rad] (None: rigid), with ``force_kp`` [A/N],
        ``force_kd`` [A s/N] (default: the pole placement for ``force_bandwidth_hz`` and
        ``force_first_reach`` [s]).

    The positive numbers lie in [1/MAX_VALUE, MAX_VALUE], the gains, ``rotor_inertia`` and ``viscous`` in
    [0, MAX_VALUE] (:data:`~legsim.actuators.electric.dcmotor.MAX_VALUE`), ``pole_pairs`` in [1,
    MAX_POLE_PAIRS] (:mod:`~legsim.actuators.electric.pmsm`), as for the PMSM itself.
    """

    name: str
    joint: str | Rod
    resistance: float
    inductance: float
    flux_linkage: float
    pole_pairs: int
    rotor_inertia: float
    v_dc: float
    inductance_q: float | None = None
    viscous: float = 0.0
    i_max: float = math.inf
    gear: float = 1.0
    lead: float | None = None
    efficiency: float = 1.0
    mode: str = "ideal"
    command: str = "current"
    pwm_hz: float = 28000.0
    current_bandwidth_hz: float = 1000.0
    p_gain: float | None = None
    i_gain: float | None = None
    kp: float = 0.0
    kd: float = 0.0
    force_limit: float = math.inf
    series_spring: float | None = None
    force_kp: float | None = None
    force_kd: float | None = None
    force_bandwidth_hz: float = 50.0
    force_first_reach: float = 0.015

    def __post_init__(self):
        o = f"PMSMDrive {self.name!r}"
        _name("PMSMDrive", self.name)
        _joint(o, self.joint)
        if self.inductance_q is None:
            object.__setattr__(self, "inductance_q", self.inductance)
        positive = ("resistance", "inductance", "inductance_q", "flux_linkage", "v_dc", "gear", "pwm_hz",
                    "current_bandwidth_hz", "force_bandwidth_hz", "force_first_reach")
        for k in positive + (() if self.lead is None else ("lead",)):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=1.0 / MAX_VALUE,
                                                     hi=MAX_VALUE))
        for k in ("rotor_inertia", "viscous", "kp", "kd"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0, hi=MAX_VALUE))
        object.__setattr__(self, "pole_pairs", check_whole(o, "pole_pairs", self.pole_pairs, lo=1,
                                                           hi=MAX_POLE_PAIRS))
        object.__setattr__(self, "efficiency", check_number(o, "efficiency", self.efficiency, lo=0.0, hi=1.0,
                                                    lo_open=True))
        for k in ("i_max", "force_limit"):
            object.__setattr__(self, k, _limit(o, k, getattr(self, k)))
        _choice(o, "mode", self.mode, _PMSM_MODES)
        _choice(o, "command", self.command, _PMSM_COMMANDS)
        pg, ig = current_pi_gains(self.motor(), self.current_bandwidth_hz)  # finite within the bounds
        for k, v in (("p_gain", pg), ("i_gain", ig)):
            given = getattr(self, k)
            checked = v if given is None else check_number(o, k, given, lo=0.0, hi=MAX_VALUE)
            object.__setattr__(self, k, checked)
        if self.series_spring is None:
            return
        cf = check_number(o, "series_spring", self.series_spring, lo=1.0 / MAX_VALUE, hi=MAX_VALUE)
        object.__setattr__(self, "series_spring", cf)
        if self.rotor_inertia <= 0.0:
            raise InputError(f"{o}: a series spring needs rotor_inertia > 0 (the motor side's inertia)")
        if self.force_kp is None or self.force_kd is None:
            try:
                g = sea_force_gains(cf, 1.0 / self.ratio, self.efficiency * self.motor().torque_constant,
                                    self.rotor_inertia, self.viscous, bandwidth_hz=self.force_bandwidth_hz,
                                    first_reach=self.force_first_reach)
            except InputError as exc:
                raise InputError(f"{o}: {exc}") from None
            object.__setattr__(self, "force_kp", g.kp if self.force_kp is None else self.force_kp)
            object.__setattr__(self, "force_kd", g.kd if self.force_kd is None else self.force_kd)
        for k in ("force_kp", "force_kd"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0))

    @property
    def ratio(self) -> float:
        """G: motor radians per joint unit (rad or m)."""
        return self.gear if self.lead is None else 2.0 * math.pi * self.gear / self.lead

    def motor(self) -> PMSM:
        """The motor as a :class:`legsim.actuators.electric.pmsm.PMSM` (for the drive library)."""
        return PMSM(resistance=self.resistance, inductance_d=self.inductance, inductance_q=self.inductance_q,
                    flux_linkage=self.flux_linkage, pole_pairs=self.pole_pairs,
                    rotor_inertia=self.rotor_inertia, v_dc=self.v_dc, viscous=self.viscous,
                    pwm_hz=self.pwm_hz)

    @classmethod
    def rotto(cls, name: str, joint: str | Rod, actuator=None, **kwargs) -> PMSMDrive:
        """ROTTO's linear actuator (:func:`legsim.actuators.electric.drive_loops.rotto_actuator`: belt 2,
        8 mm lead, motor placeholders giving 128 N at 0.64 m/s, 400 N, 0.72 m/s, or the ``actuator``
        given) on a prismatic joint or a :class:`Rod`; ``kwargs``: any other field (mode, command,
        series_spring, ...)."""
        act = actuator or rotto_actuator()
        m = act.motor
        base = {"resistance": m.resistance, "inductance": m.inductance_d, "flux_linkage": m.flux_linkage,
                "pole_pairs": m.pole_pairs, "rotor_inertia": m.rotor_inertia, "v_dc": m.v_dc,
                "i_max": act.i_max, "gear": act.belt, "lead": act.lead}
        return cls(name, joint, **{**base, **kwargs})


_VELOCITY_ONLY = ("STRIBECK_TANH", "VISCOUS", "STEEP_LINEAR")


@dataclass(frozen=True)
class PneumaticCylinder:
    """A valve-driven double-acting cylinder (``legsim.actuators.pneumatic.PneumaticActuator``: valve,
    chambers, friction; Daepp (4.1.1), (4.1.10), (4.1.11)) driving a 1-DoF joint. The command is the
    valve voltage [V], within the valve's range (a voltage outside it stops the run, naming the
    actuator). States: ``<name>_p_cap``, ``_p_rod`` [Pa], ``_m_cap``, ``_m_rod`` [kg] and
    ``_m_supply`` [kg], the air drawn from the supply.

    Transmission (piston position x [m], velocity, and the lever arm dx/dq):
    ``None`` — direct, on a prismatic joint: x = q; a
    :class:`~legsim.actuators.pneumatic.linkage.LinearLinkage` — x linear in q; a
    :class:`~legsim.actuators.pneumatic.linkage.JointLinkage` — the CRR crank/rocker triangle, Daepp
    (5.2.1)–(5.2.9). x is clamped to [0, stroke]; the joint force is F dx/dq (virtual work).

    ``p_cap0``, ``p_rod0``: initial chamber pressures [Pa] in (0, MAX_PRESSURE] (default: the valve's mid
    pressure (P_supply + P_exhaust) / 2, as the CRR leg starts), at the supply temperature.
    ``supply``: the name of an :class:`AirSupply` of the robot to draw from (its pressure and
    temperature replace the actuator's constant supply); None: the actuator's own constant supply.
    Friction: a velocity-only law (Stribeck-tanh, viscous, steep-linear), as the CRR leg's hooks.
    """

    name: str
    joint: str
    actuator: PneumaticActuator
    transmission: JointLinkage | LinearLinkage | None = None
    p_cap0: float | None = None
    p_rod0: float | None = None
    supply: str | None = None

    def __post_init__(self):
        o = f"PneumaticCylinder {self.name!r}"
        _name("PneumaticCylinder", self.name)
        _joint(o, self.joint)
        if not isinstance(self.actuator, PneumaticActuator):
            raise InputError(f"{o}: actuator = {self.actuator!r}, expected a "
                             "legsim.actuators.pneumatic.PneumaticActuator")
        law = self.actuator.friction.model
        if law.name not in _VELOCITY_ONLY:
            raise InputError(f"{o}: friction law {law.name}, expected a velocity-only law "
                             f"({', '.join(_VELOCITY_ONLY)}): stick states are not assembled yet")
        if not (self.transmission is None or isinstance(self.transmission, JointLinkage | LinearLinkage)):
            raise InputError(f"{o}: transmission = {self.transmission!r}, expected None (direct, "
                             "prismatic joint), a LinearLinkage or a JointLinkage")
        if not (self.supply is None or isinstance(self.supply, str) and self.supply):
            raise InputError(f"{o}: supply = {shown(self.supply)}, expected None (the actuator's own "
                             "supply) or the name of an AirSupply")
        mid = 0.5 * (self.actuator.p_supply + self.actuator.p_exhaust)
        for k in ("p_cap0", "p_rod0"):
            v = mid if getattr(self, k) is None else getattr(self, k)
            object.__setattr__(self, k, check_number(o, k, v, lo=0.0, lo_open=True, hi=MAX_PRESSURE))

    def piston(self, q: float) -> float:
        """Piston position x [m] at joint coordinate q (clamped to [0, stroke])."""
        if self.transmission is None:
            x = float(q)
        else:
            x = float(np.asarray(self.transmission.cylinder(q)[0]))
        return min(max(x, 0.0), float(self.actuator.cylinder.stroke))


@dataclass(frozen=True)
class LinkageLoop:
    """A closed kinematic loop given as an explicit constraint (Featherstone (2008) ch. 8: q = γ(y),
    q̇ = G ẏ, q̈ = G ÿ + Ġẏ): a cylinder with mass between the two links of the revolute ``joint``,
    modelled in the open tree as a barrel body (revolute joint ``barrel`` on ``joint``'s parent link,
    at the fixed-arm end A) and a piston-rod body (prismatic joint ``piston`` on the barrel, its
    coordinate the piston position x [m]), the loop closed by the CRR triangle of ``linkage`` (Daepp
    (5.2.1)–(5.2.9); :func:`legsim.robots.crr_leg.prismatic.crr_leg_with_cylinders` builds such a
    tree). The barrel angle φ and the piston position x are functions of the joint angle θ:

    with γ' = (dγ/dθ) γ(θ) the signed angle from the fixed arm l1 to the crank l3 and
    L = √(l1² + l3² − 2 l1 l3 cos γ') the pin-to-pin length,
    φ = atan2(l3 sin γ', l3 cos γ' − l1), dφ/dθ = (l3² − l1 l3 cos γ')/L²,
    d²φ/dθ² = l1 l3 sin γ'/L² − 2 (l3² − l1 l3 cos γ') l1 l3 sin γ'/L⁴;
    x = L − l2, dx/dθ = l1 l3 sin γ'/L, d²x/dθ² = l1 l3 cos γ'/L − (dx/dθ)²/L
    (:func:`legsim.actuators.pneumatic._linkage_kernels.cylinder_coordinates`).

    The robot's state keeps every tree coordinate (φ and x too, recorded); the hooks use the closed
    values φ(θ), x(θ), φ̇ = dφ/dθ θ̇, ẋ = dx/dθ θ̇, and the dynamics is the tree's projected onto θ
    (``Robot(loops=...)``). An actuator may act on any of the three joints: a
    :class:`PneumaticCylinder` with ``transmission=None`` on ``piston`` pushes on x with its force F,
    which θ feels as F dx/dθ.
    """

    joint: str
    barrel: str
    piston: str
    linkage: JointLinkage

    def __post_init__(self):
        o = "LinkageLoop"
        for k in ("joint", "barrel", "piston"):
            v = getattr(self, k)
            if not isinstance(v, str) or not v:
                raise InputError(f"{o}: {k} = {v!r}, expected a joint name")
        o = f"LinkageLoop {self.joint!r}"
        if len({self.joint, self.barrel, self.piston}) < 3:
            raise InputError(f"{o}: joint, barrel and piston must be three different joints, got "
                             f"{self.joint!r}, {self.barrel!r}, {self.piston!r}")
        if not isinstance(self.linkage, JointLinkage):
            raise InputError(f"{o}: linkage = {self.linkage!r}, expected a "
                             "legsim.actuators.pneumatic.linkage.JointLinkage")


@dataclass(frozen=True)
class Battery:
    """A shared resource: a battery drained by the DC motors that name it, SimSect's model (digest
    §4.10, ``legsim.actuators.electric.PeukertBattery``): the charge fraction is a state
    (``<name>_charge``, from ``c0``) with ``dC/dt = -1 / f(sum |i_a|)``, f the Peukert discharge time.
    Voltage sag is ignored, as in the source (the motors' ``v_max`` stays)."""

    name: str
    model: PeukertBattery = field(default_factory=PeukertBattery)
    c0: float = 1.0

    def __post_init__(self):
        o = f"Battery {self.name!r}"
        _name("Battery", self.name)
        if not isinstance(self.model, PeukertBattery):
            raise InputError(f"{o}: model = {self.model!r}, expected a "
                             "legsim.actuators.electric.PeukertBattery")
        object.__setattr__(self, "c0", check_number(o, "c0", self.c0, lo=0.0, hi=1.0))


_EXHAUSTS = ("trapped", "instant", "orifice")
_FRICTION_LAWS = ("signed", "thesis")
_FLOWS = ("orifice", "cv", "cv_corrected")


@dataclass(frozen=True)
class SolenoidCylinder:
    """The RATS leg (Wagenknecht (2009) §5.2): a single-chamber cylinder on a prismatic joint (leg
    extension x = q [m], clamped to [0, stroke] for the gas), filled from an :class:`AirSupply` through
    a 3-way solenoid valve (``legsim.actuators.pneumatic.SolenoidValve``) and vented when it closes.

    Command: 1 energises the valve, 0 de-energises it (anything else stops the run, naming the
    actuator). The valve opens ``valve.latency`` after the command turns 1 and closes
    ``valve.close_latency`` after it turns 0: located events (guard ``valve_<name>``), not the
    sample grid. States: ``<name>_p`` chamber pressure [Pa], ``_m_used`` gas drawn [kg], and the
    bookkeeping ``_valve`` (1 open) and ``_t_switch`` (the pending switch instant, NaN for none).

    Chamber (5.11): ``dP/dt = kappa (R T mdot - P A dx/dt) / (V0 + A x)``. Flow while open: (5.7)
    (orifice of effective area ``valve.area``) or (5.8)–(5.10) (``valve.cv``, ``flow="cv"`` as
    printed, ``"cv_corrected"`` the continuous form); ``cv`` overrides the valve's C_v. Closed:
    ``exhaust`` "trapped" (no flow, the variant that reproduces the source's 31.75 cm plateau),
    "instant" (vented to atmospheric at the closing event) or "orifice" (``exhaust_area`` [m^2]).
    The draw lowers the supply's pressure (5.12). Force on the joint (5.5):
    ``(P - P_atm) A - k_return x - F - viscous v``, with ``friction_law`` "signed": F = friction
    tanh(v / v_eps) (Coulomb friction opposing the motion, regularised over ``v_eps`` [m/s]; a leg
    whose spring is weaker than the friction, k_return x < F_f, stays extended), or "thesis": F =
    friction, the source's constant F_f against extension in (5.5) and (5.6) as printed (it acts as
    an extra return force: the leg retracts in about 33 ms; digest ⚠ §2.4).
    Defaults: the RATS leg of Table 5.2 (``legsim.robots.pneumatic_rig.hop``).
    """

    name: str
    joint: str
    valve: SolenoidValve
    supply: str
    area: float = 5.0165e-4
    dead_volume: float = 5.4e-6
    stroke: float = 0.063
    k_return: float = 100.0
    friction: float = 9.7003
    viscous: float = 5.2843
    v_eps: float = 1e-3
    kappa: float = 1.4
    exhaust: str = "trapped"
    exhaust_area: float = 0.0
    flow: str | None = None
    cv: float | None = None
    p0: float | None = None
    friction_law: str = "signed"

    def __post_init__(self):
        o = f"SolenoidCylinder {self.name!r}"
        _name("SolenoidCylinder", self.name)
        _joint(o, self.joint)
        if not isinstance(self.valve, SolenoidValve):
            raise InputError(f"{o}: valve = {self.valve!r}, expected a "
                             "legsim.actuators.pneumatic.SolenoidValve")
        if not isinstance(self.supply, str) or not self.supply:
            raise InputError(f"{o}: supply = {self.supply!r}, expected the name of an AirSupply")
        for k in ("area", "dead_volume", "stroke", "kappa", "v_eps"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0, lo_open=True))
        for k in ("k_return", "friction", "viscous", "exhaust_area"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0))
        _choice(o, "exhaust", self.exhaust, _EXHAUSTS)
        _choice(o, "friction_law", self.friction_law, _FRICTION_LAWS)
        if self.exhaust == "orifice" and self.exhaust_area <= 0.0:
            raise InputError(f"{o}: exhaust 'orifice' needs exhaust_area > 0 [m^2]")
        flow = _choice(o, "flow", self.valve.flow if self.flow is None else self.flow, _FLOWS)
        object.__setattr__(self, "flow", flow)
        cv = self.valve.cv if self.cv is None else self.cv
        object.__setattr__(self, "cv", check_number(o, "cv", cv, lo=0.0))
        if flow == "orifice" and not self.valve.area > 0.0:
            raise InputError(f"{o}: orifice flow needs the valve's effective area > 0 [m^2]")
        if flow != "orifice" and not self.cv > 0.0:
            raise InputError(f"{o}: Cv flow needs cv > 0")
        if self.p0 is not None:
            object.__setattr__(self, "p0", check_number(o, "p0", self.p0, lo=0.0, lo_open=True))


Actuator = (TorqueSource | PositionServo | VelocityServo | DCMotor | PneumaticCylinder | SolenoidCylinder
            | PMSMDrive)
"""Any actuator component."""


@dataclass(frozen=True)
class AirSupply:
    """A shared resource: an isothermal tank (``legsim.actuators.pneumatic.SupplyTank``: volume,
    temperature, gas, leakage) feeding every :class:`PneumaticCylinder` whose ``supply`` names it,
    starting at absolute pressure ``p0`` [Pa]. Its pressure is a state (``<name>_p``) with RATS
    (5.12), sign corrected: ``dP/dt = -R T / V sum(mdot drawn) - leakage``, so one cylinder's draw
    lowers what the others get."""

    name: str
    tank: SupplyTank
    p0: float

    def __post_init__(self):
        o = f"AirSupply {self.name!r}"
        _name("AirSupply", self.name)
        if not isinstance(self.tank, SupplyTank):
            raise InputError(f"{o}: tank = {self.tank!r}, expected a legsim.actuators.pneumatic.SupplyTank")
        object.__setattr__(self, "p0", check_number(o, "p0", self.p0, lo=0.0, lo_open=True))


# ------------------------------------------------------------------------------------ sensors
@dataclass(frozen=True)
class Measurement:
    """How a sensor channel turns the true value into the measured one, in this order (DESIGN.md):

    ``y = (1 + scale_error) * truth + offset + noise_std * N(0, 1)``, clipped to ``[lo, hi]``
    (``saturate``), rounded to ``bits`` over ``[lo, hi]`` (LSB = (hi - lo) / 2**bits; 0: no
    quantisation), low-passed (first-order Butterworth by the bilinear transform at the sensor's
    rate, cutoff ``cutoff_hz``; 0: none), delayed by ``delay`` whole samples, and held until the
    next sample. ``seed`` makes the noise reproducible: the draw of channel c at sample k depends
    only on (seed, sensor, c, k), not on the integrator's steps.

    Checked when made (an :class:`~legsim.errors.InputError` naming the field), in the channel's
    units: ``noise_std`` in [0, MAX_MEASURED], ``offset`` within ±MAX_MEASURED, ``scale_error`` in
    (-1, MAX_MEASURED], ``lo`` < ``hi`` each -inf, inf (no saturation on that side) or within
    ±MAX_MEASURED, ``bits`` a whole number in [0, 32], ``cutoff_hz`` a finite number >= 0 [Hz] (below
    the sensor's Nyquist frequency: the robot checks it), ``delay`` a whole number of samples in
    [0, 64], ``seed`` a whole number >= 0; the numbers are held as floats. Quantising needs a finite
    range whose LSB is at least 1/MAX_MEASURED: the sensor that takes the measurement checks that
    (:meth:`check`, naming the sensor).
    """

    noise_std: float = 0.0
    offset: float = 0.0
    scale_error: float = 0.0
    lo: float = -math.inf
    hi: float = math.inf
    bits: int = 0
    cutoff_hz: float = 0.0
    delay: int = 0
    seed: int = 0

    def __post_init__(self):
        o = "Measurement"
        for k, lo_k, lo_open in (("noise_std", 0.0, False), ("offset", -MAX_MEASURED, False),
                                 ("scale_error", -1.0, True)):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=lo_k, hi=MAX_MEASURED,
                                                     lo_open=lo_open))
        object.__setattr__(self, "cutoff_hz", check_number(o, "cutoff_hz", self.cutoff_hz, lo=0.0))  # [Hz]
        for k in ("lo", "hi"):
            v = real_number(o, k, getattr(self, k))
            if math.isfinite(v) and not abs(v) <= MAX_MEASURED:
                raise InputError(f"{o}: '{k}' = {shown(getattr(self, k))}, expected -inf, inf or a number "
                                 f"within ±{MAX_MEASURED:g}")
            object.__setattr__(self, k, v)
        if not self.lo < self.hi:
            raise InputError(f"{o}: range lo = {self.lo!r}, hi = {self.hi!r}: expected lo < hi")
        object.__setattr__(self, "bits", check_whole(o, "bits", self.bits, 0, 32))
        object.__setattr__(self, "delay", check_whole(o, "delay", self.delay, 0, 64))  # samples
        object.__setattr__(self, "seed", check_whole(o, "seed", self.seed))  # a float parameter slot

    def check(self, owner: str) -> None:
        """Refuse what the sensor ``owner`` cannot measure with (its message names the sensor): quantising
        (``bits`` > 0) over a range that is not finite, or whose LSB (hi - lo) / 2**bits is below
        1/MAX_MEASURED (a narrower one divided by zero in the compiled sensor model)."""
        if self.bits > 0 and not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            raise InputError(f"{owner}: quantising to {self.bits} bits needs a finite range lo, hi")
        lsb = (self.hi - self.lo) / 2.0 ** self.bits
        if self.bits > 0 and not lsb >= 1.0 / MAX_MEASURED:
            raise InputError(f"{owner}: quantising to {self.bits} bits over lo = {self.lo!r}, "
                             f"hi = {self.hi!r} gives an LSB of {lsb:g}, expected at least "
                             f"{1.0 / MAX_MEASURED:g} (fewer bits or a wider range)")


@dataclass(frozen=True)
class _Sensor:
    """Fields every sensor has: its name, sampling ``rate_hz`` (0: the controller's rate) and
    :class:`Measurement`."""

    name: str
    rate_hz: float = 0.0
    measurement: Measurement = field(default_factory=Measurement)

    _names_field = ""
    """The field holding the names this sensor measures (joints, geometries, actuators), if any."""

    def __post_init__(self):
        owner = f"{type(self).__name__} {self.name!r}"
        _name(type(self).__name__, self.name)
        object.__setattr__(self, "rate_hz", check_number(owner, "rate_hz", self.rate_hz, lo=0.0))
        if not isinstance(self.measurement, Measurement):
            raise InputError(f"{owner}: measurement = {self.measurement!r}, expected a Measurement")
        self.measurement.check(owner)
        if self._names_field:
            object.__setattr__(self, self._names_field,
                               _names(owner, self._names_field, getattr(self, self._names_field)))


def _placement(owner: str, position, rotation) -> tuple[tuple, tuple]:
    """A sensor's mounting point (3,) [m] and rotation (3, 3) (sensor -> body axes), checked, as tuples."""
    pos = check_array(owner, "position", position, (3,), "m")
    rot = check_array(owner, "rotation", rotation, (3, 3))
    if not np.allclose(rot @ rot.T, np.eye(3), atol=1e-9) or np.linalg.det(rot) < 0:
        raise InputError(f"{owner}: rotation = {rotation!r}, expected a 3x3 rotation matrix")
    return tuple(map(float, pos)), tuple(tuple(map(float, row)) for row in rot)


def _names(owner: str, what: str, values) -> tuple[str, ...]:
    if isinstance(values, str):
        values = (values,)
    out = tuple(values) if isinstance(values, Sequence) else ()
    if not out or not all(isinstance(v, str) and v for v in out):
        raise InputError(f"{owner}: {what} = {values!r}, expected one or more names")
    return out


@dataclass(frozen=True)
class JointEncoder(_Sensor):
    """Positions of ``joints`` [rad or m], one channel each."""

    joints: Sequence[str] = ()
    _names_field = "joints"


@dataclass(frozen=True)
class JointVelocity(_Sensor):
    """Velocities of ``joints`` [rad/s or m/s], one channel each."""

    joints: Sequence[str] = ()
    _names_field = "joints"


@dataclass(frozen=True)
class IMU(_Sensor):
    """Accelerometer (specific force ``a - g`` of the body point ``position`` [m/s^2], 3 channels)
    and/or gyro (the body's angular velocity [rad/s], 3 channels), in sensor axes: ``rotation``
    (3, 3) maps sensor axes to body axes (the mounting rotation). Channels: accelerometer x, y, z
    then gyro x, y, z (those present). ``measurement`` applies to both, or to the accelerometer
    only when ``gyro_measurement`` gives the gyro its own (noise in rad/s, range, ...)."""

    body: str = ""
    position: Sequence[float] = (0.0, 0.0, 0.0)
    rotation: Sequence[Sequence[float]] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    accelerometer: bool = True
    gyro: bool = True
    gyro_measurement: Measurement | None = None

    def __post_init__(self):
        super().__post_init__()
        if self.gyro_measurement is not None:
            if not isinstance(self.gyro_measurement, Measurement):
                raise InputError(f"IMU {self.name!r}: gyro_measurement = {self.gyro_measurement!r}, "
                                 "expected a Measurement")
            self.gyro_measurement.check(f"IMU {self.name!r} gyro")
        owner = f"IMU {self.name!r}"
        if not isinstance(self.body, str) or not self.body:
            raise InputError(f"{owner}: body = {self.body!r}, expected the name of a body")
        pos, rot = _placement(owner, self.position, self.rotation)
        if not (self.accelerometer or self.gyro):
            raise InputError(f"{owner}: neither accelerometer nor gyro: expected at least one")
        object.__setattr__(self, "position", pos)
        object.__setattr__(self, "rotation", rot)


@dataclass(frozen=True)
class ContactForce(_Sensor):
    """The contact force on each geometry in ``geometries`` [N], world axes, 3 channels each (the
    sum over its contact points; 0 while it does not touch)."""

    geometries: Sequence[str] = ()
    _names_field = "geometries"


WRENCH_CHANNELS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
"""A :class:`ForceTorque` sensor's channels: force then moment, sensor axes."""


@dataclass(frozen=True)
class ForceTorque(_Sensor):
    """A six-axis force/torque sensor mounted on ``body`` at ``position`` (3,) [m, body axes] with
    ``rotation`` (3, 3) mapping sensor axes to body axes: the wrench that the contacts of
    ``geometries`` (at most 16 contact geometries, on the sensor's body or below it) exert, force
    [N] and moment about the mounting point [N m] in sensor axes, channels ``Fx Fy Fz Mx My Mz``.
    It reads the ground's push on what it carries; the weight and inertia of the parts between the
    sensor and the ground are not in it (mount it right above them, as a shank or wrist sensor is).
    ``measurement`` applies to every channel unless ``channel_measurements`` ({channel: Measurement})
    gives a channel its own (ranges and accuracies differ per axis: :func:`rotto_ft_sensor`)."""

    body: str = ""
    geometries: Sequence[str] = ()
    position: Sequence[float] = (0.0, 0.0, 0.0)
    rotation: Sequence[Sequence[float]] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    channel_measurements: Mapping[str, Measurement] | tuple = ()
    _names_field = "geometries"

    def __post_init__(self):
        super().__post_init__()
        owner = f"ForceTorque {self.name!r}"
        if not isinstance(self.body, str) or not self.body:
            raise InputError(f"{owner}: body = {self.body!r}, expected the name of the body it is mounted on")
        if len(set(self.geometries)) != len(self.geometries) or len(self.geometries) > 16:
            raise InputError(f"{owner}: geometries = {list(self.geometries)!r}, expected 1 to 16 distinct "
                             "contact geometries")
        pos, rot = _placement(owner, self.position, self.rotation)
        object.__setattr__(self, "position", pos)
        object.__setattr__(self, "rotation", rot)
        cms = self.channel_measurements
        if isinstance(cms, tuple):
            cms = dict(cms)
        if not isinstance(cms, Mapping):
            raise InputError(f"{owner}: channel_measurements = {cms!r}, expected {{channel: Measurement}}")
        for ch, ms in cms.items():
            if ch not in WRENCH_CHANNELS:
                raise InputError(f"{owner}: channel_measurements has {ch!r}; channels are "
                                 f"{', '.join(WRENCH_CHANNELS)}")
            if not isinstance(ms, Measurement):
                raise InputError(f"{owner}: channel_measurements[{ch!r}] = {ms!r}, expected a Measurement")
            ms.check(f"{owner} {ch}")
        # kept as ((channel, Measurement), ...) in channel order: the component stays hashable
        object.__setattr__(self, "channel_measurements",
                           tuple((ch, cms[ch]) for ch in WRENCH_CHANNELS if ch in cms))

    def measurement_of(self, channel: str) -> Measurement:
        """The :class:`Measurement` of ``channel`` (one of :data:`WRENCH_CHANNELS`)."""
        return dict(self.channel_measurements).get(channel, self.measurement)


@dataclass(frozen=True)
class MotorCurrent(_Sensor):
    """Armature current [A] of each DC motor, or the torque-producing current i_q [A] of each
    :class:`PMSMDrive`, named in ``actuators``, one channel each."""

    actuators: Sequence[str] = ()
    _names_field = "actuators"


@dataclass(frozen=True)
class PhaseCurrent(_Sensor):
    """Stator phase currents i_A, i_B, i_C [A] of each :class:`PMSMDrive` in ``actuators`` (channels
    ``<actuator>_a``, ``_b``, ``_c``): its i_d, i_q through the inverse transform (4.3) at the electrical
    angle phi_e = p G s of its motor-side coordinate s (the rotor's D axis at s = 0, where rotor
    alignment puts it). The averaged inverter's currents: no PWM ripple."""

    actuators: Sequence[str] = ()
    _names_field = "actuators"


def _given(names) -> bool:
    """Whether a sensor's optional names field was given (anything but None or empty; checked after)."""
    if isinstance(names, str | Sequence | np.ndarray):
        return len(names) > 0
    return names is not None


def _position_sources(sensor) -> tuple[str, ...]:
    """Check a sensor reading positions: exactly one of ``joints``, ``actuators`` names one or more; the
    names (as a tuple, written back)."""
    owner = f"{type(sensor).__name__} {sensor.name!r}"
    if _given(sensor.joints) == _given(sensor.actuators):
        raise InputError(f"{owner}: joints = {sensor.joints!r}, actuators = {sensor.actuators!r}: expected "
                         "names in exactly one (joints, or actuators whose joint or rod it reads)")
    what = "joints" if _given(sensor.joints) else "actuators"
    names = _names(owner, what, getattr(sensor, what))
    object.__setattr__(sensor, what, names)
    return names


@dataclass(frozen=True)
class IncrementalEncoder(_Sensor):
    """Quadrature incremental encoders reading the position s of each of ``joints`` [rad or m], or of
    each of ``actuators`` (its joint, or the length of its :class:`Rod` [m]), one channel each: the count
    of edges passed since the run's initial position s_0 (power-on), ``floor(k s) - floor(k s_0)``
    [counts], edges every 1/k along s with k = ``counts_per_unit`` [counts per rad or per m]. For an
    encoder of N counts per motor turn behind a ratio G (motor radians per joint unit), k = N G / (2 pi);
    on ROTTO's drive (belt ratio b, screw lead h) k = N b / h per metre of rod. The count is relative: a
    controller finds the absolute position by homing against a :class:`LimitSwitch` (the count at the
    switch's edge). The truth beside it is k s - floor(k s_0) (unquantised). The zero floor(k s_0) is a
    state that ``Robot.initial_state`` sets, so a run continued from a final state (``x0``) keeps
    counting from it."""

    joints: Sequence[str] = ()
    actuators: Sequence[str] = ()
    counts_per_unit: float = 0.0

    def __post_init__(self):
        super().__post_init__()
        _position_sources(self)
        k = check_number(f"IncrementalEncoder {self.name!r}", "counts_per_unit", self.counts_per_unit, lo=0.0,
                 lo_open=True)
        object.__setattr__(self, "counts_per_unit", k)


LIMIT_SIDES = ("upper", "lower")


@dataclass(frozen=True)
class LimitSwitch(_Sensor):
    """Limit switches on the position s of each of ``joints`` [rad or m], or of each of ``actuators``
    (its joint, or the length of its :class:`Rod` [m]), one channel each: 1 while pressed, 0 otherwise;
    ``side = "upper"`` presses at s >= its position, ``"lower"`` at s <= it. ``positions``: one number
    for every switch, or one per name. Ideal switches (no differential travel, no bounce)."""

    joints: Sequence[str] = ()
    actuators: Sequence[str] = ()
    positions: float | Sequence[float] = 0.0
    side: str = "upper"

    def __post_init__(self):
        super().__post_init__()
        owner = f"LimitSwitch {self.name!r}"
        names = _position_sources(self)
        pos = np.atleast_1d(np.asarray(self.positions, dtype=float)) if _is_numbers(self.positions) else None
        if pos is None or pos.ndim != 1 or pos.size not in (1, len(names)) or not np.all(np.isfinite(pos)):
            raise InputError(f"{owner}: positions = {self.positions!r}, expected a finite number or one per "
                             f"name ({len(names)})")
        object.__setattr__(self, "positions", tuple(float(v) for v in np.broadcast_to(pos, (len(names),))))
        if self.side not in LIMIT_SIDES:
            raise InputError(f"{owner}: side = {self.side!r}, expected one of {', '.join(LIMIT_SIDES)}")


def _is_numbers(value) -> bool:
    """A number or a flat sequence of numbers (not a string, not booleans)."""
    items = value if isinstance(value, list | tuple | np.ndarray) else [value]
    return all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
               for v in items)


@dataclass(frozen=True)
class ChamberPressure(_Sensor):
    """Chamber pressures [Pa] of the cylinders named in ``actuators``: a :class:`PneumaticCylinder`'s
    cap and rod sides (channels ``<actuator>_cap``, ``<actuator>_rod``), a :class:`SolenoidCylinder`'s
    single chamber (``<actuator>``)."""

    actuators: Sequence[str] = ()
    _names_field = "actuators"


Sensor = (JointEncoder | JointVelocity | IMU | ContactForce | ForceTorque | MotorCurrent | PhaseCurrent
          | ChamberPressure | IncrementalEncoder | LimitSwitch)
"""Any sensor component."""

ROTTO_FT_TABLE_4_1 = {  # channel: (range +- [N or N m], accuracy [N or N m]); 12 bits each
    "Fx": (300.0, 0.29), "Fy": (400.0, 0.39), "Fz": (300.0, 0.29),
    "Mx": (10.0, 0.098), "My": (20.0, 0.1), "Mz": (10.0, 0.098)}
"""ROTTO's six-axis shank force/torque sensor, Konyev 2011 Table 4.1, in the sensor's axes (y vertical:
"the maximal allowed vertical force is 400 N"). "Resettability < 80 %" is left out (garbled, errata §8)."""


def rotto_ft_measurements(seed: int = 0) -> dict[str, Measurement]:
    """One :class:`Measurement` per channel of Table 4.1: 12 bits over ``±range``, saturating there,
    and the accuracy read as the standard deviation of Gaussian noise (the source gives no noise model).
    ``seed``: a whole number >= 0 (the noise's, as :class:`Measurement`'s)."""
    seed = check_whole("rotto_ft_measurements", "seed", seed)
    return {ch: Measurement(noise_std=acc, lo=-rng, hi=rng, bits=12, seed=seed)
            for ch, (rng, acc) in ROTTO_FT_TABLE_4_1.items()}


ROTTO_FT_ROTATION = ((1.0, 0.0, 0.0), (0.0, 0.0, -1.0), (0.0, 1.0, 0.0))
"""Sensor -> body axes of :func:`rotto_ft_sensor` on a z-up foot: the sensor's y (Table 4.1's vertical
axis) along the body's z, its x along the body's x, its z along the body's -y."""


def rotto_ft_sensor(name: str, body: str, geometries, *, position=(0.0, 0.0, 0.0),
                    rotation=ROTTO_FT_ROTATION, rate_hz: float = 0.0, seed: int = 0) -> ForceTorque:
    """ROTTO's shank six-axis force/torque sensor (Table 4.1: 12 bits over each channel's range, its
    accuracy as noise) as a :class:`ForceTorque` on ``body`` at ``position`` [m], reading the contacts of
    ``geometries``; sensor axes y vertical (:data:`ROTTO_FT_ROTATION` on a z-up body)."""
    ms = rotto_ft_measurements(check_whole("rotto_ft_sensor", "seed", seed))
    return ForceTorque(name, rate_hz=rate_hz, body=body, geometries=geometries, position=position,
                       rotation=rotation, measurement=ms["Fy"], channel_measurements=ms)


# --------------------------------------------------------------------------- played-back commands
@dataclass(frozen=True)
class CommandTable:
    """Commands played back over time without a controller (joint targets of a planned gait, a
    recorded valve voltage): ``table`` (K, n) sampled every ``dt`` [s] from t = 0, one column per
    actuator named in ``actuators``, linearly interpolated in time inside the vector field, the first
    row held before t = 0 and the last after (K - 1) dt (the form of
    :meth:`legsim.world.RobotWorld.set_targets`). The table's value replaces the actuator's held
    command; other actuators keep theirs. Not for a :class:`SolenoidCylinder` (its switches are
    events scheduled at samples). Each value must lie in its actuator's command range (checked by
    :class:`legsim.assembly.Robot`, naming the actuator, row and value).
    """

    actuators: Sequence[str]
    table: np.ndarray | Sequence
    dt: float

    def __post_init__(self):
        names = _names("CommandTable", "actuators", self.actuators)
        if len(set(names)) != len(names):
            raise InputError(f"CommandTable: actuators = {list(names)!r} names one twice")
        try:
            tab = np.array(self.table, dtype=float)
        except (TypeError, ValueError):
            tab = np.zeros((0,))
        if tab.ndim != 2 or tab.shape[0] < 1 or tab.shape[1] != len(names) or not np.all(np.isfinite(tab)):
            raise InputError(f"CommandTable: table of shape {np.shape(self.table)}, expected a finite table "
                             f"(K >= 1, {len(names)}): one column per actuator in {list(names)!r}")
        check_number("CommandTable", "dt", self.dt, lo=0.0, lo_open=True)
        tab.setflags(write=False)
        object.__setattr__(self, "actuators", names)
        object.__setattr__(self, "table", tab)
        object.__setattr__(self, "dt", float(self.dt))


EXCHANGE_DMAX = EX_DMAX
"""One-way delays of a :class:`SplitExchange` are 0 … EXCHANGE_DMAX − 1 ticks (the depth of its rings)."""


@dataclass(frozen=True)
class SplitExchange:
    """The split architecture of Daepp (2011) (Ch. 3, 5; pneumatic digest §1.2, §7 item 8, A10): the
    actuators and the controller run on a real-time *target* at the controller's rate (1 kHz on the CRR
    leg) and exchange one UDP packet per tick with the rigid-body simulator (SrLib), which steps only
    when a packet arrives. Given as ``Robot(..., exchange=SplitExchange(...))``; every actuator must be
    on a joint (the packets carry joint angles, rates and generalised forces; not a :class:`Rod`).

    At each controller tick n (k a multiple of ``Robot.controller_every``), in this order:

    1. pause: while t is in [``pause_t0``, ``pause_t0 + pause_duration``) [s] (1e-9 s tolerance) the
       exchange stalls (state ``exchange_paused`` = 1): SrLib blocks on receive, so the rigid body is
       frozen (q̇ = v̇ = 0) while the actuators' states keep integrating with the stale packet; no
       packet moves and the held values stay; after the pause the exchange resumes with the next
       packets (queued ones are not replayed).
    2. up: the live joint state (q, q̇) of each actuator's joint enters the up ring as packet n; the
       target takes packet n − ``delay_up`` as its held ``<actuator>_q_rx``, ``_v_rx``.
    3. sensors: a joint's position or rate (:class:`JointEncoder`, :class:`JointVelocity`,
       :class:`IncrementalEncoder`, :class:`LimitSwitch`) reads the held packet (the target knows only
       what SrLib sent); actuator-local quantities (chamber pressures, currents) are the live ones.
    4. down: each actuator's force at the held joint state and its current states (a cylinder's
       F(x, ẋ) dx/dθ, Daepp (5.2.7)–(5.2.9)) enters the down ring as packet n; the body holds packet
       n − ``delay_down`` as ``<actuator>_f_rx`` until the next tick; packets n + 1.

    The controller then computes its commands from the sensors; they enter the force sent at the next
    tick. Between ticks every actuator's model (force law and state rates) sees the held (q_rx,
    v_rx), and the body feels the held f_rx. Round trip: a joint state sent at tick n shapes the force
    the body feels from tick n + delay_up + delay_down + 1 on (the answer to a force sent at one tick is
    read at the next even without latency), so ``delay_up + delay_down + 1`` ticks; the thesis's new
    configuration measured 3–4 ms (1 + 2 + 1 = 4 ticks at 1 kHz), its old one pauses up to ~100 ms.

    Parameters
    ----------
    delay_up, delay_down : one-way delays [controller ticks], whole numbers 0 … EXCHANGE_DMAX − 1.
    pause_t0 : start of the exchange pause [s], >= 0; pause_duration : its length [s], >= 0 (0: none).
    """

    delay_up: int = 0
    delay_down: int = 0
    pause_t0: float = 0.0
    pause_duration: float = 0.0

    def __post_init__(self):
        o = "SplitExchange"
        for k in ("delay_up", "delay_down"):  # controller ticks
            object.__setattr__(self, k, check_whole(o, k, getattr(self, k), 0, EXCHANGE_DMAX - 1))
        object.__setattr__(self, "pause_t0", check_number(o, "pause_t0", self.pause_t0, lo=0.0))
        object.__setattr__(self, "pause_duration",
                           check_number(o, "pause_duration", self.pause_duration, lo=0.0))

    @property
    def round_trip(self) -> int:
        """delay_up + delay_down + 1 [controller ticks] (class docstring)."""
        return self.delay_up + self.delay_down + 1

    def row(self) -> np.ndarray:
        """The exchange's block of the compiled tables (``_layout.EX_*``)."""
        return np.array([self.delay_up, self.delay_down, self.pause_t0, self.pause_duration], dtype=float)


# ----------------------------------------------------------------------------------- contacts
_LATCHED = (NormalLaw.RESTITUTION,)


@dataclass(frozen=True)
class Obstacle:
    """A static box in the world that every contact point of :class:`Contacts` touches (steps, rungs,
    walls, blocks), with the contacts' law (smooth path).

    Parameters
    ----------
    half_extents : (3,) half sizes along the box axes [m], each > 0.
    centre : (3,) world position of the box centre [m].
    rotation : (3, 3) box axes -> world axes (default: world-aligned).
    name : label for messages and plots.
    """

    half_extents: Sequence[float]
    centre: Sequence[float] = (0.0, 0.0, 0.0)
    rotation: Sequence | None = None
    name: str = "obstacle"

    def __post_init__(self):
        _name("Obstacle", self.name)
        who = f"Obstacle {self.name!r}"
        h = check_array(who, "half_extents", self.half_extents, (3,), "m")
        if np.any(h <= 0.0):
            raise InputError(f"{who}: half_extents = {self.half_extents!r}, expected 3 numbers > 0 [m]")
        c = check_array(who, "centre", self.centre, (3,), "m")
        R = np.eye(3) if self.rotation is None else check_array(who, "rotation", self.rotation, (3, 3))
        if not np.allclose(R @ R.T, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
            raise InputError(f"{who}: rotation is not a rotation matrix (3x3, orthonormal, det +1)")
        object.__setattr__(self, "half_extents", tuple(h))
        object.__setattr__(self, "centre", tuple(c))
        object.__setattr__(self, "rotation", tuple(map(tuple, R)))

    def row(self) -> np.ndarray:
        """The obstacle's row of the compiled table (``_layout.OW``)."""
        rot = np.asarray(self.rotation, dtype=float).ravel()
        return np.concatenate([self.centre, rot, self.half_extents])


@dataclass(frozen=True)
class Contacts:
    """Which geometries touch the ground, and how.

    Parameters
    ----------
    law : ContactLaw (normal law + friction law of :mod:`legsim.contact.laws`).
    ground : Plane (default z = 0; a slope is a tilted plane, ``legsim.contact.inclined_plane``), or a
        terrain z = h(x, y): a :class:`~legsim.contact.HeightField` (a grid, bilinear) or a
        :class:`~legsim.contact.HeightFunction` (sines, bump, smooth step). On a terrain each contact
        sphere meets the tangent plane under its centre (normal (-h_x, -h_y, 1) / |.|): exact on planes
        and slopes, first order in radius times curvature elsewhere.
    geometries : names of the touching geometries, or of links (a body, or a URDF link merged into one
        by a fixed joint: its spheres, capsules and boxes); default: every sphere, capsule and box on
        a moving body (cylinders and meshes are left out). Each gives contact points as in
        :func:`legsim.world.contact_points`; the event path takes at most 62 points.
    path : ``"event"`` — onset and separation are located events (the impact-velocity latch of
        (2.20) and the friction anchor of (2.21) are exact; DESIGN.md "Contact: two paths");
        ``"smooth"`` — the force is a function of the state inside the vector field, no events (for
        fixed-step RK4 runs; laws that latch the impact velocity or keep an anchor need ``"event"``).
    obstacles : static boxes (:class:`Obstacle`) that the contact points touch besides the ground,
        with the same law; smooth path only.
    point : where a contact point pushes on the ground, and whose velocity the friction law sees:
        ``"midway"`` between the sphere's deepest point and the plane, c − (r + gap/2) n (as RobotWorld
        and MuJoCo place it), or ``"sphere"``, the sphere's deepest point c − r n (the CRR quadruped's
        feet). The obstacles always push midway.
    """

    law: ContactLaw
    ground: Plane | HeightField | HeightFunction = field(default_factory=Plane)
    geometries: Sequence[str] | None = None
    path: str = "event"
    obstacles: Sequence[Obstacle] = ()
    point: str = "midway"

    def __post_init__(self):
        if not isinstance(self.law, ContactLaw):
            raise InputError(f"Contacts: law = {self.law!r}, expected a legsim.contact.ContactLaw")
        if not isinstance(self.ground, Plane | HeightField | HeightFunction):
            raise InputError(f"Contacts: ground = {self.ground!r}, expected a legsim.contact.Plane, "
                             "HeightField or HeightFunction")
        if not (isinstance(self.path, str) and self.path in ("event", "smooth")):
            raise InputError(f"Contacts: path = {shown(self.path)}, expected 'event' or 'smooth'")
        if not (isinstance(self.point, str) and self.point in ("midway", "sphere")):
            raise InputError(f"Contacts: point = {shown(self.point)}, expected 'midway' or 'sphere'")
        if self.path == "smooth" and (self.law.normal.law in _LATCHED
                                      or self.law.friction.law == FrictionLaw.ANCHOR):
            raise InputError(f"Contacts: the {self.law.normal.law.name.lower()} normal law with "
                             f"{self.law.friction.law.name.lower()} friction keeps per-contact state "
                             "(latched impact velocity or friction anchor): use path = 'event'")
        if self.geometries is not None:
            object.__setattr__(self, "geometries", _names("Contacts", "geometries", self.geometries))
        if not isinstance(self.obstacles, Sequence) or isinstance(self.obstacles, str):
            raise InputError(f"Contacts: obstacles = {shown(self.obstacles)}, expected a sequence of "
                             "legsim.assembly.Obstacle")
        obstacles = tuple(self.obstacles)
        for ob in obstacles:
            if not isinstance(ob, Obstacle):
                raise InputError(f"Contacts: obstacles holds {ob!r}, expected legsim.assembly.Obstacle")
        if obstacles and self.path != "smooth":
            raise InputError(f"Contacts: {len(obstacles)} obstacle(s) need path = 'smooth' (the event "
                             "path locates touchdowns on the ground plane only)")
        object.__setattr__(self, "obstacles", obstacles)


def contact_geometries(mb: Model, c: Contacts) -> list[str]:
    """The geometries of the multibody model ``mb`` that touch by the :class:`Contacts` ``c``: those
    named (a link's name stands for its spheres, capsules and boxes), or every sphere, capsule and box
    on a moving body (other shapes are left out)."""
    if not isinstance(mb, Model):
        raise InputError(f"contact_geometries: 'mb' = {shown(mb)}, expected a legsim.multibody.Model")
    if not isinstance(c, Contacts):
        raise InputError(f"contact_geometries: 'c' = {shown(c)}, expected a legsim.assembly.Contacts")
    moving = [g for g in mb.geometries if g.body != mb.body_names[0]]
    usable = [g for g in moving if g.shape in ("sphere", "capsule", "box")]
    if c.geometries is None:
        return [g.name for g in usable]
    out: list[str] = []
    for name in c.geometries:
        if name in {g.name for g in moving}:
            out.append(name)
        elif name in mb.body_names[1:] or name in mb.frame_names:
            # a body, or a link merged into one by a fixed joint (a frame; the URDF loader names its
            # geometries <link>_<shape>_<k>)
            mine = [g.name for g in usable if g.body == name or g.name.startswith(f"{name}_")]
            if not mine:
                raise InputError(f"Robot contacts: link {name!r} has no sphere, capsule or box")
            out += mine
        else:
            known = [g.name for g in moving] + list(mb.frame_names[1:])
            raise InputError(f"Robot contacts: {name!r} is not a geometry on a moving body or a "
                             f"link{closest(name, known)}")
    return out
