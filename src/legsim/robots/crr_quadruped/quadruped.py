"""The pneumatic CRR quadruped, assembled from parts (Daepp (2011) digest §1.1, §7 item 7).

Twelve MPYE-5 valves (fitted model, §2.5) and double-acting Bimba cylinders (§3.2) drive the legs'
Alpha/Beta/Gamma joints through the linkages of §2.6, with Stribeck-tanh friction (§2.4); a
joint-level PID with the prototype's pressure-force feedback runs at 1 kHz, exactly the CRR leg's
(:mod:`legsim.robots.crr_leg`): the actuator rows, linkages, gains and references of each leg are
those a :class:`~legsim.robots.crr_leg.LegBench` with the same settings builds. The rigid bodies are
:func:`.body.quadruped_bodies`; the trunk is welded (``base="fixed"``, legs in the air) or free with
penalty foot–ground contact (``"floating"``).

The robot is a :class:`legsim.assembly.Robot` (no hooks of its own): 12
:class:`~legsim.assembly.PneumaticCylinder` s through the joints' CRR linkages (their chamber rates
evaluated together by the SIMD lane kernel), a joint encoder and the chamber-pressure sensor (exact
measurements), on the floating base a contact-force sensor on the feet, the feet's contacts (smooth
path: the force is part of the vector field, no events), and the controller
:func:`legsim.robots.crr_leg.control.joint_pid` compiled into the sample hook. Contact law of each foot
sphere (centre c = frame ``<leg>_foot_centre``, radius r) on the plane z = z_g:

    depth δ = r − (c_z − z_g);  δ̇ = −v_z of the contact point c − r e_z (world axes)
    F_n = k δ^n (1 + α δ̇), clipped at 0 (Hunt–Crossley; :func:`legsim.contact._laws.normal_force`)
    F_t = −μ F_n v_t / √(|v_t|² + ε²)   (regularised Coulomb; ``_laws.friction_force``)

applied at the contact point c − r e_z to the tibia. Only the feet touch the ground: the trunk and the
other links pass through it (a fallen robot is not modelled). Units SI (m, N, s, Pa, kg, rad).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ...actuators.pneumatic.friction import Friction, stribeck_tanh_source
from ...actuators.pneumatic.valves import mpye5_simple
from ...assembly.components import ChamberPressure, ContactForce, Contacts, JointEncoder, PneumaticCylinder
from ...contact import ContactLaw, Plane, coulomb, hunt_crossley
from ...contact.shapes import MAX_LENGTH
from ...errors import InputError, check_array, check_fields, check_number
from ...hybrid import Options, Result, simulate
from ...multibody import forward_kinematics, frame_placement
from ..crr_leg.geometry import default_linkages
from ..crr_leg.leg import (
    DEFAULT_FORCE_GAIN,
    DEFAULT_FORCE_RATE_GAIN,
    DEFAULT_GAINS,
    JOINTS,
    JointReference,
    LegBench,
)
from ..pneumatic_rig.limits import MAX_DURATION
from .body import FOOT_RADIUS, LEGS, MAX_TRUNK_MASS, TRUNK_MASS, quadruped_bodies

if TYPE_CHECKING:
    from ...assembly.robot import Robot

__all__ = ["ContactParameters", "Quadruped", "QuadrupedRun", "VALVES", "STANCE_POSTURE_DEG"]

VALVES = ("fitted", "shut")
BASES = ("fixed", "floating")
STANCE_POSTURE_DEG = (0.0, -10.0, 85.0)
"""Alpha, Beta, Gamma [deg] of the default stance (same on every leg): femur 10° above the
horizontal, tibia 5° short of vertical, feet 0.37 m out from the shoulders (chosen here)."""

JOINT_NAMES = tuple(f"{leg}_{j}" for leg in LEGS for j in JOINTS)
"""The 12 joints, and the actuators driving them, in the order of the records' columns."""
FEET = tuple(f"{leg}_foot_sphere" for leg in LEGS)
"""The foot-sphere geometries that touch the ground (floating base)."""


@dataclass(frozen=True)
class ContactParameters:
    """Foot–ground penalty contact (floating base only; law in the module docstring).

    stiffness k [N/m^n] and exponent n of F_n = k δ^n (1 + α δ̇) (Hunt–Crossley), damping α [s/m];
    mu: Coulomb friction ratio; slip_velocity ε [m/s]: regularisation of the friction direction
    (|F_t| = μ F_n |v_t| / √(|v_t|² + ε²)); foot_radius [m]; ground_height z_g [m].
    Defaults (ours): a 0.5 mm sink under a quarter of the default robot's weight, α = 10 s/m,
    μ = 0.8, ε = 5 mm/s (creep below 3 mm/s up to half the friction cone).
    """

    stiffness: float = 1.0e6
    exponent: float = 1.5
    damping: float = 10.0
    mu: float = 0.8
    slip_velocity: float = 0.005
    foot_radius: float = FOOT_RADIUS
    ground_height: float = 0.0

    def __post_init__(self) -> None:
        check_fields("ContactParameters", self, nonnegative=("damping", "mu"), finite=("ground_height",),
                     positive=("stiffness", "exponent", "slip_velocity", "foot_radius"))

    def law(self) -> ContactLaw:
        """The law as a :class:`legsim.contact.ContactLaw`: Hunt–Crossley normal force, regularised
        Coulomb friction."""
        return ContactLaw(hunt_crossley(self.stiffness, self.damping, self.exponent),
                          coulomb(self.mu, self.slip_velocity))

    def row(self) -> np.ndarray:
        """The law row of :mod:`legsim.contact._laws` (slots S_K, S_EXP, S_DAMP, S_MU, S_VEPS)."""
        return self.law().params

    def contacts(self) -> Contacts:
        """The feet's contacts for the assembly: the four foot spheres on the plane z = z_g, smooth
        path, each pushing at its sphere's deepest point."""
        return Contacts(self.law(), ground=Plane((0.0, 0.0, 1.0), self.ground_height), geometries=FEET,
                        path="smooth", point="sphere")


@dataclass
class QuadrupedRun:
    """Time histories of a quadruped run (SI units).

    t (n,) s; trunk_position (n, 3) m and trunk_quaternion (n, 4) [qx qy qz qw] (unit) of the
    trunk frame in the world; trunk_twist (n, 6) [v, w] in trunk axes; q, v, ref, u, torque,
    force, x_piston, p_cap, p_rod, m_cap, m_rod (n, 12) in joint order ``<leg>_<joint>`` of
    :data:`.body.LEGS` × (alpha, beta, gamma) (rad, rad/s, rad, V, N m, N, m, Pa, Pa, kg, kg);
    foot_force (n, 4, 3) N on each foot, world axes; air_used (n,) kg drawn from the supply.
    """

    t: np.ndarray
    trunk_position: np.ndarray
    trunk_quaternion: np.ndarray
    trunk_twist: np.ndarray
    q: np.ndarray
    v: np.ndarray
    ref: np.ndarray
    u: np.ndarray
    torque: np.ndarray
    force: np.ndarray
    x_piston: np.ndarray
    p_cap: np.ndarray
    p_rod: np.ndarray
    m_cap: np.ndarray
    m_rod: np.ndarray
    foot_force: np.ndarray
    air_used: np.ndarray
    result: Result

    def leg(self, name: str) -> np.ndarray:
        """Joint angles (n, 3) [rad] of leg ``name`` (one of :data:`.body.LEGS`)."""
        return self.q[:, 3 * _leg_index(name):3 * _leg_index(name) + 3]


def _leg_index(name: str) -> int:
    if name not in LEGS:
        raise InputError(f"leg {name!r}: expected one of {', '.join(LEGS)}")
    return LEGS.index(name)


@dataclass
class Quadruped:
    """The pneumatic CRR quadruped with its 12 joint controllers.

    Parameters
    ----------
    base : "floating" (free trunk, foot contact) or "fixed" (trunk welded level at
        ``trunk_height`` [m], legs in the air).
    trunk_mass : [kg] (default :data:`.body.TRUNK_MASS`, a documented choice), at most
        :data:`.body.MAX_TRUNK_MASS`; trunk_height within ±:data:`~legsim.contact.shapes.MAX_LENGTH`.
    contact : :class:`ContactParameters` (floating base).
    valves : "fitted" (the MPYE-5 fitted model) or "shut" (every port area zero: the chambers are
        sealed, for mass-conservation checks).
    supply_psig, exhaust_psia, gains, gain_scale, u_bias, force_gain, force_rate_gain, friction,
    linkages : as :class:`~legsim.robots.crr_leg.LegBench` (same defaults), applied to every leg.
    options : engine options (DP45, rtol 1e-6, atol 1e-8, h_max 1 ms, 1 kHz controller).

    Attributes
    ----------
    robot : the :class:`legsim.assembly.Robot` (actuators and sensors named after the joints:
        :data:`JOINT_NAMES`; sensors ``angles`` (joint encoder), ``pressures`` (chamber pressures)
        and, floating, ``feet`` (contact forces on :data:`FEET`)).
    model : its hybrid model with the joint controller (:meth:`Robot.with_compiled_controller`);
        :meth:`params` and :meth:`initial_state` give its parameter and state vectors.
    bodies : the multibody model; leg_bench : the single leg whose rows and blocks each leg copies.
    """

    base: str = "floating"
    trunk_mass: float = TRUNK_MASS
    trunk_height: float = 0.3
    contact: ContactParameters = field(default_factory=ContactParameters)
    valves: str = "fitted"
    supply_psig: float = 50.3
    exhaust_psia: float = 24.7
    gains: dict = field(default_factory=lambda: dict(DEFAULT_GAINS))
    gain_scale: dict = field(default_factory=lambda: {j: 1.0 for j in JOINTS})
    u_bias: float = 5.25
    force_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_GAIN))
    force_rate_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_RATE_GAIN))
    friction: Friction = field(default_factory=stribeck_tanh_source)
    linkages: tuple = field(default_factory=default_linkages)
    options: Options = field(default_factory=lambda: Options(
        method="dp45", rtol=1e-6, atol=1e-8, h_max=1e-3, record_period=1e-3, sample_period=1e-3,
        sliding=False))

    def __post_init__(self) -> None:
        check_number("Quadruped", "trunk_mass", self.trunk_mass, lo=0.0, lo_open=True,
                     hi=MAX_TRUNK_MASS)  # [kg]
        check_number("Quadruped", "trunk_height", self.trunk_height, lo=-MAX_LENGTH, hi=MAX_LENGTH)  # [m]
        if not (isinstance(self.base, str) and self.base in BASES):
            raise InputError(f"base={self.base!r}: expected one of {', '.join(BASES)}")
        if not (isinstance(self.valves, str) and self.valves in VALVES):
            raise InputError(f"valves={self.valves!r}: expected one of {', '.join(VALVES)}")
        if not isinstance(self.contact, ContactParameters):
            raise InputError(f"contact={self.contact!r}: expected a ContactParameters")
        if not isinstance(self.options, Options) or not self.options.sample_period > 0.0:
            raise InputError(f"options={self.options!r}: expected legsim.hybrid.Options with a "
                             "sample_period > 0 (the controller's period)")
        # one leg's actuators, linkages and joint blocks, validated by the bench
        self.leg_bench = LegBench(supply_psig=self.supply_psig, exhaust_psia=self.exhaust_psia,
                                  gains=self.gains, gain_scale=self.gain_scale, u_bias=self.u_bias,
                                  force_gain=self.force_gain, force_rate_gain=self.force_rate_gain,
                                  friction=self.friction, linkages=self.linkages,
                                  options=self.options)
        floating = self.base == "floating"
        self.bodies = quadruped_bodies(self.base, self.trunk_mass, self.trunk_height,
                                       foot_radius=self.contact.foot_radius if floating else None)
        self._fixed = quadruped_bodies("fixed", self.trunk_mass, 0.0)   # kinematics in trunk frame
        from ...assembly.robot import Robot  # compiles the assembly's shared hooks on first use
        from ..crr_leg import control

        acts = self._actuators()
        sensors: list = [JointEncoder("angles", joints=JOINT_NAMES),
                         ChamberPressure("pressures", actuators=JOINT_NAMES)]
        if floating:
            sensors.append(ContactForce("feet", geometries=FEET))
        self.robot: Robot = Robot(
            self.bodies, name="crr_quadruped", control_period=self.options.sample_period, sensors=sensors,
            actuators=[PneumaticCylinder(n, n, acts[J % 3], self.linkages[J % 3])
                       for J, n in enumerate(JOINT_NAMES)],
            contacts=self.contact.contacts() if floating else None)
        channel = {c.name: c.start for c in self.robot.channels}
        cparams = control.controller_params(np.tile(self.leg_bench.joint_blocks(), (len(LEGS), 1)),
                                            [acts[J % 3].row() for J in range(len(JOINT_NAMES))],
                                            self.options.sample_period, channel["angles"],
                                            channel["pressures"])
        self._ocp = self.robot.model.param_defaults.size      # the controller's parameters start here
        self._block = [self._ocp + control.block_offset(J) for J in range(len(JOINT_NAMES))]
        model = self.robot.with_compiled_controller(
            control.joint_pid, cparams, control.initial_memory(len(JOINT_NAMES)),
            param_names=control.param_names(JOINT_NAMES), memory_names=control.memory_names(JOINT_NAMES),
            param_ranges=control.param_ranges(JOINT_NAMES, cparams))
        self.model = dataclasses.replace(
            model, description=f"Daepp (2011) pneumatic CRR quadruped, {self.base} base "
                               f"(assembled: {model.description.partition(': ')[2]})")
        self._columns(control)

    def _actuators(self) -> list:
        """One leg's three :class:`PneumaticActuator` (Alpha, Beta, Gamma), the bench's or, with
        ``valves="shut"``, the same with every port area zero."""
        acts = list(self.leg_bench.actuators)
        if self.valves == "shut":
            closed = mpye5_simple(slope_cap=0.0, leak_cap=0.0, slope_rod=0.0, leak_rod=0.0)
            acts = [a.with_(valve=closed) for a in acts]
        return acts

    def _columns(self, control) -> None:
        """Where :meth:`run` finds each quantity in the records (states, outputs) and the state."""
        xn = {n: i for i, n in enumerate(self.model.state_names)}
        yn = {n: i for i, n in enumerate(self.model.output_names)}
        nj = len(JOINT_NAMES)
        xm = self.robot.model.state_defaults.size                 # the controller's memory
        if self.base == "floating":  # the free joint "trunk": position, quaternion, twist
            self._x_pose = np.array([xn[f"trunk_{c}"] for c in ("x", "y", "z", "qx", "qy", "qz", "qw")])
            self._x_twist = np.array([xn[f"trunk_{c}"] for c in ("vx", "vy", "vz", "wx", "wy", "wz")])
        self._x_q = np.array([xn[n] for n in JOINT_NAMES])
        self._x_v = np.array([xn[f"{n}_dot"] for n in JOINT_NAMES])
        self._x_gas = np.array([[xn[f"{n}_{g}"] for g in ("p_cap", "p_rod", "m_cap", "m_rod", "m_supply")]
                                for n in JOINT_NAMES])
        self._x_u = np.array([xn[f"u_{n}"] for n in JOINT_NAMES])
        self._x_ref = xm + control.memory_offset(nj, control.M_REF) + np.arange(nj)
        self._y_torque = np.array([yn[f"tau_{n}"] for n in JOINT_NAMES])
        self._y_force = np.array([yn[f"piston_force_{n}"] for n in JOINT_NAMES])
        self._y_x = np.array([yn[f"piston_x_{n}"] for n in JOINT_NAMES])
        self._y_feet = (np.array([yn[f"true_feet_{g}_{c}"] for g in FEET for c in "xyz"])
                        if self.base == "floating" else None)

    # ------------------------------------------------------------------ references and state
    def leg_references(self, refs) -> list:
        """Normalise ``refs`` into four (Alpha, Beta, Gamma) :class:`JointReference` triples.

        Accepted: one triple (every leg), a sequence of four triples in :data:`.body.LEGS` order,
        or a mapping leg name -> triple (legs left out hold :data:`STANCE_POSTURE_DEG`).
        """
        def triple(r, where):
            r = tuple(r) if isinstance(r, (list, tuple)) else (r,)  # a number or an array: not a triple
            if len(r) != 3 or not all(isinstance(x, JointReference) for x in r):
                raise InputError(f"refs{where}: expected three JointReference (Alpha, Beta, Gamma), "
                                 f"got {r!r}")
            return r

        if isinstance(refs, Mapping):
            for key in refs:
                _leg_index(key)
            hold = tuple(JointReference.hold(float(np.radians(a))) for a in STANCE_POSTURE_DEG)
            return [triple(refs[leg], f"[{leg!r}]") if leg in refs else hold for leg in LEGS]
        if isinstance(refs, str) or not hasattr(refs, "__len__"):
            raise InputError(f"refs={refs!r}: expected one (Alpha, Beta, Gamma) triple of "
                             "JointReference, four triples or a mapping leg -> triple")
        refs = list(refs)
        if len(refs) == 3 and all(isinstance(r, JointReference) for r in refs):
            return [tuple(refs)] * len(LEGS)
        if len(refs) != len(LEGS):
            raise InputError(f"refs: expected one (Alpha, Beta, Gamma) triple or {len(LEGS)} "
                             f"(one per leg {', '.join(LEGS)}), got {len(refs)} entries")
        return [triple(r, f"[{i}]") for i, r in enumerate(refs)]

    def params(self, refs) -> np.ndarray:
        """Parameter vector of :attr:`model` with the joint references (``refs`` as
        :meth:`leg_references`) written into the controller's joint blocks. (The robot's SIMD lane
        block is derived from the actuator rows when the robot is assembled: an actuator row edited
        in a parameter vector by hand would leave it stale; build another Quadruped instead.) It
        holds the robot's infinite ranges (commands, sensors): run it as the model's defaults,
        ``dataclasses.replace(q.model, param_defaults=p)``, as :meth:`run` does."""
        p = self.model.param_defaults.copy()
        for leg, triple in enumerate(self.leg_references(refs)):
            for j, r in enumerate(triple):
                r.write(p, self._block[3 * leg + j])
        return p

    def foot_heights(self, q) -> np.ndarray:
        """Heights (4,) [m] of the foot-sphere centres in the trunk frame at joint angles ``q``
        (12,) [rad] (forward kinematics of the welded model)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (12,) or not np.all(np.isfinite(q)):
            raise InputError(f"q: expected 12 finite joint angles [rad], got shape {q.shape}")
        data = self._fixed.make_data()
        forward_kinematics(self._fixed, data, q)
        return np.array([frame_placement(self._fixed, data, f"{leg}_foot_centre")[2, 3]
                         for leg in LEGS])

    def standing_height(self, q) -> float:
        """Trunk height [m] above the ground at which the lowest foot sphere just touches it, for
        a level trunk at joint angles ``q`` (12,) [rad]."""
        return float(self.contact.ground_height + self.contact.foot_radius - self.foot_heights(q).min())

    def initial_state(self, q0, drop: float = 0.003) -> np.ndarray:
        """State of :attr:`model` at rest at joint angles ``q0`` (12,) [rad], chambers at the valve's
        mid pressure (as ``LegBench.initial_state``), valves held at ``u_bias``, the controller before
        its first tick; a floating trunk level, its lowest foot ``drop`` [m] above the ground (a fixed
        trunk is at ``trunk_height``). ``drop`` in [0, :data:`~legsim.contact.shapes.MAX_LENGTH`]."""
        o = "Quadruped.initial_state"
        q0 = check_array(o, "q0", q0, (12,), "rad")
        drop = check_number(o, "drop", drop, lo=0.0, hi=MAX_LENGTH)  # [m]
        q = self.bodies.neutral()
        q[self._x_q] = q0  # q's slots are the state's first
        if self.base == "floating":
            q[self._x_pose] = (0.0, 0.0, self.standing_height(q0) + drop, 0.0, 0.0, 0.0, 1.0)
        s = self.robot.initial_state(q0=q)  # chambers at rest at their initial pressures
        s = np.concatenate([s, self.model.state_defaults[s.size:]])  # the controller's memory
        s[self._x_u] = self.u_bias
        return s

    def run(self, refs, t_final: float, q0=None, drop: float = 0.003) -> QuadrupedRun:
        """Simulate ``t_final`` s. ``refs``: joint references (see :meth:`leg_references`);
        ``q0`` (12,) initial joint angles [rad] (default: the references at t = 0); ``drop`` [m]:
        initial clearance of the lowest foot (floating base). ``t_final`` in (0,
        :data:`~legsim.robots.pneumatic_rig.rig.MAX_DURATION`]."""
        check_number("Quadruped.run", "t_final", t_final, lo=0.0, lo_open=True, hi=MAX_DURATION)  # [s]
        triples = self.leg_references(refs)
        if q0 is None:
            q0 = [float(r.values_at(0.0)) for tr in triples for r in tr]
        # the references as the model's defaults (the robot's tables hold infinite ranges, which a
        # parameter vector passed to simulate may not)
        model = dataclasses.replace(self.model, param_defaults=self.params(triples))
        res = simulate(model, t_final, x0=self.initial_state(q0, drop), options=self.options)
        X, Y = res.x, res.y
        n = res.t.size
        gas = X[:, self._x_gas]
        if self.base == "floating":
            pose = X[:, self._x_pose]
            position, quat, twist = pose[:, :3], pose[:, 3:], X[:, self._x_twist]
            quat = quat / np.linalg.norm(quat, axis=1, keepdims=True)
            feet = Y[:, self._y_feet].reshape(-1, len(LEGS), 3)
        else:  # the trunk welded level at trunk_height
            position = np.tile([0.0, 0.0, self.trunk_height], (n, 1))
            quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
            twist, feet = np.zeros((n, 6)), np.zeros((n, len(LEGS), 3))
        return QuadrupedRun(
            t=res.t, trunk_position=position, trunk_quaternion=quat, trunk_twist=twist,
            q=X[:, self._x_q], v=X[:, self._x_v], ref=X[:, self._x_ref], u=X[:, self._x_u],
            torque=Y[:, self._y_torque], force=Y[:, self._y_force], x_piston=Y[:, self._y_x],
            p_cap=gas[:, :, 0], p_rod=gas[:, :, 1], m_cap=gas[:, :, 2], m_rod=gas[:, :, 3],
            foot_force=feet, air_used=gas[:, :, 4].sum(axis=1), result=res)
