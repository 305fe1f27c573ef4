"""The pneumatic CRR quadruped as a hybrid-engine model (Daepp (2011) digest §1.1, §7 item 7).

Twelve MPYE-5 valves (fitted model, §2.5) and double-acting Bimba cylinders (§3.2) drive the legs'
Alpha/Beta/Gamma joints through the linkages of §2.6, with Stribeck-tanh friction (§2.4); a
joint-level PID with the prototype's pressure-force feedback runs at 1 kHz in the engine's
``sample`` hook, exactly the CRR leg's (:mod:`legsim.robots.crr_leg`): the actuator rows, linkages,
gains and references of each leg are those a :class:`~legsim.robots.crr_leg.LegBench` with the same
settings builds. The rigid bodies are :func:`.body.quadruped_bodies`; the trunk is welded
(``base="fixed"``, legs in the air) or free with penalty foot–ground contact (``"floating"``;
:mod:`._hooks` gives the contact law).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ...actuators.pneumatic import _lane_kernels as LK
from ...actuators.pneumatic.friction import Friction, stribeck_tanh_source
from ...actuators.pneumatic.valves import mpye5_simple
from ...contact import _laws as CL
from ...errors import InputError
from ...hybrid import Model, Options, Result, simulate
from ...multibody import forward_kinematics, frame_placement
from ..crr_leg import _hooks as LH
from ..crr_leg.geometry import default_linkages
from ..crr_leg.leg import (
    DEFAULT_FORCE_GAIN,
    DEFAULT_FORCE_RATE_GAIN,
    DEFAULT_GAINS,
    JOINTS,
    JointReference,
    LegBench,
)
from . import _hooks as H
from .body import FOOT_RADIUS, LEGS, TRUNK_MASS, quadruped_bodies

__all__ = ["ContactParameters", "Quadruped", "QuadrupedRun", "VALVES", "STANCE_POSTURE_DEG"]

VALVES = ("fitted", "shut")
STANCE_POSTURE_DEG = (0.0, -10.0, 85.0)
"""Alpha, Beta, Gamma [deg] of the default stance (same on every leg): femur 10° above the
horizontal, tibia 5° short of vertical, feet 0.37 m out from the shoulders (chosen here)."""

JOINT_NAMES = tuple(f"{leg}_{j}" for leg in LEGS for j in JOINTS)
STATE_NAMES = (("trunk_x", "trunk_y", "trunk_z", "trunk_qx", "trunk_qy", "trunk_qz", "trunk_qw")
               + tuple(f"q_{n}" for n in JOINT_NAMES)
               + ("trunk_vx", "trunk_vy", "trunk_vz", "trunk_wx", "trunk_wy", "trunk_wz")
               + tuple(f"v_{n}" for n in JOINT_NAMES)
               + tuple(f"{g}_{n}" for n in JOINT_NAMES
                       for g in ("p_cap", "p_rod", "m_cap", "m_rod", "m_air"))
               + tuple(f"{b}_{n}" for b in ("u", "integ", "e_prev", "ref", "f_prev")
                       for n in JOINT_NAMES))
OUTPUT_NAMES = (tuple(f"{o}_{n}" for o in ("ref", "torque", "force", "x") for n in JOINT_NAMES)
                + tuple(f"foot_{c}_{leg}" for leg in LEGS for c in ("fx", "fy", "fz")))
BASES = {"fixed": H.FIXED, "floating": H.FLOATING}


@dataclass(frozen=True)
class ContactParameters:
    """Foot–ground penalty contact (floating base only; law in :mod:`._hooks`).

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
        for name in ("stiffness", "exponent", "slip_velocity", "foot_radius"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v > 0.0):
                raise InputError(f"ContactParameters: {name}={v!r}, expected a finite value > 0")
        for name in ("damping", "mu"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= 0.0):
                raise InputError(f"ContactParameters: {name}={v!r}, expected a finite value >= 0")
        if not np.isfinite(self.ground_height):
            raise InputError(f"ContactParameters: ground_height={self.ground_height!r} m, expected "
                             "a finite value")

    def row(self) -> np.ndarray:
        """The law row of :mod:`legsim.contact._laws` (slots S_K, S_EXP, S_DAMP, S_MU, S_VEPS)."""
        prm = CL.new_params()
        prm[CL.S_K], prm[CL.S_EXP], prm[CL.S_DAMP] = self.stiffness, self.exponent, self.damping
        prm[CL.S_MU], prm[CL.S_VEPS] = self.mu, self.slip_velocity
        return prm


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
    trunk_mass : [kg] (default :data:`.body.TRUNK_MASS`, a documented choice).
    contact : :class:`ContactParameters` (floating base).
    valves : "fitted" (the MPYE-5 fitted model) or "shut" (every port area zero: the chambers are
        sealed, for mass-conservation checks).
    supply_psig, exhaust_psia, gains, gain_scale, u_bias, force_gain, force_rate_gain, friction,
    linkages : as :class:`~legsim.robots.crr_leg.LegBench` (same defaults), applied to every leg.
    options : engine options (DP45, rtol 1e-6, atol 1e-8, h_max 1 ms, 1 kHz controller).
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
        if self.base not in BASES:
            raise InputError(f"base={self.base!r}: expected one of {', '.join(BASES)}")
        if self.valves not in VALVES:
            raise InputError(f"valves={self.valves!r}: expected one of {', '.join(VALVES)}")
        if not isinstance(self.contact, ContactParameters):
            raise InputError(f"contact={self.contact!r}: expected a ContactParameters")
        if not isinstance(self.options, Options) or not self.options.sample_period > 0.0:
            raise InputError(f"options={self.options!r}: expected legsim.hybrid.Options with a "
                             "sample_period > 0 (the controller's period)")
        # one leg's actuator rows and joint blocks, validated by the bench
        self.leg_bench = LegBench(supply_psig=self.supply_psig, exhaust_psia=self.exhaust_psia,
                                  gains=self.gains, gain_scale=self.gain_scale, u_bias=self.u_bias,
                                  force_gain=self.force_gain, force_rate_gain=self.force_rate_gain,
                                  friction=self.friction, linkages=self.linkages,
                                  options=self.options)
        self.bodies = quadruped_bodies(self.base, self.trunk_mass, self.trunk_height)
        self._fixed = quadruped_bodies("fixed", self.trunk_mass, 0.0)   # kinematics in trunk frame
        fb, ib = self.bodies.fbuf, self.bodies.ibuf
        names = (tuple(f"{n}_row_{i}" for n in JOINT_NAMES for i in range(H.NA))
                 + tuple(f"{n}_block_{i}" for n in JOINT_NAMES for i in range(H.NJ))
                 + ("dt_control", "base", "foot_radius", "ground_height")
                 + tuple(f"foot_frame_{leg}" for leg in LEGS) + ("n_fbuf", "n_ibuf")
                 + tuple(f"contact_law_{i}" for i in range(CL.NPRM))
                 + tuple(f"mb_f{i}" for i in range(fb.size)) + tuple(f"mb_i{i}" for i in range(ib.size))
                 + tuple(f"lanes_{i}" for i in range(self._lane_block(self._actuator_rows()).size)))
        self.model = Model(name="crr_quadruped", state_names=STATE_NAMES,
                           state_defaults=np.zeros(H.NX), param_names=names,
                           param_defaults=self._defaults(len(names)), guards=(),
                           output_names=OUTPUT_NAMES, vector_field=H.vector_field,
                           outputs=H.outputs, sample=H.sample, mode_name=lambda m: self.base,
                           description=f"Daepp (2011) pneumatic CRR quadruped, {self.base} base")

    def _actuator_rows(self) -> np.ndarray:
        """The 12 actuator rows, flat (12 NA,): one leg's three rows (shut valves if asked), per leg."""
        rows = self.leg_bench.model.param_defaults[:3 * LH.NA].copy()
        if self.valves == "shut":
            closed = mpye5_simple(slope_cap=0.0, leak_cap=0.0, slope_rod=0.0, leak_rod=0.0)
            for j in range(3):
                closed.write(rows[j * LH.NA:(j + 1) * LH.NA])
        return np.tile(rows, len(LEGS))

    def _defaults(self, n: int) -> np.ndarray:
        p = np.zeros(n)
        leg_p = self.leg_bench.model.param_defaults
        p[:H.O_J] = self._actuator_rows()
        blocks = leg_p[LH.O_J:LH.O_J + 3 * LH.NJ]
        for k in range(len(LEGS)):
            p[H.O_J + 3 * k * H.NJ:H.O_J + 3 * (k + 1) * H.NJ] = blocks
        p[H.DT] = self.options.sample_period
        p[H.BASE] = BASES[self.base]
        p[H.FOOT_R] = self.contact.foot_radius
        p[H.GROUND_Z] = self.contact.ground_height
        for i, leg in enumerate(LEGS):
            p[H.FID0 + i] = self.bodies.frame_id(f"{leg}_foot_centre")
        fb, ib = self.bodies.fbuf, self.bodies.ibuf
        p[H.NFB], p[H.NIB] = fb.size, ib.size
        p[H.LAW:H.LAW + CL.NPRM] = self.contact.row()
        p[H.MB:H.MB + fb.size] = fb
        p[H.MB + fb.size:H.MB + fb.size + ib.size] = ib.astype(float)
        self._write_lanes(p)
        return p

    @staticmethod
    def _lane_block(p: np.ndarray) -> np.ndarray:
        """The SIMD lane block of the 12 actuator rows at the start of ``p`` (``_hooks`` layout)."""
        return LK.embedded_lanes(p[:H.O_J].reshape(H.NJOINT, H.NA))

    def _write_lanes(self, p: np.ndarray) -> None:
        """(Re)derive the lane block from the actuator rows in ``p``: it must follow the rows."""
        off = H.lanes_offset(p)
        block = self._lane_block(p)
        p[off:off + block.size] = block

    # ------------------------------------------------------------------ references and state
    def leg_references(self, refs) -> list:
        """Normalise ``refs`` into four (Alpha, Beta, Gamma) :class:`JointReference` triples.

        Accepted: one triple (every leg), a sequence of four triples in :data:`.body.LEGS` order,
        or a mapping leg name -> triple (legs left out hold :data:`STANCE_POSTURE_DEG`).
        """
        def triple(r, where):
            r = tuple(r)
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
        """Parameter vector with the joint references written in (``refs`` as
        :meth:`leg_references`) and the actuators' lane block re-derived from the actuator rows
        (an edit of a row in a parameter vector takes effect only through this re-derivation)."""
        p = self.model.param_defaults.copy()
        for leg, triple in enumerate(self.leg_references(refs)):
            for j, r in enumerate(triple):
                r.write(p, H.O_J + (3 * leg + j) * H.NJ)
        self._write_lanes(p)
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
        """At rest at joint angles ``q0`` (12,) [rad], chambers at the valve's mid pressure (as
        ``LegBench.initial_state``); a floating trunk level, its lowest foot ``drop`` [m] above
        the ground; a fixed trunk at ``trunk_height``."""
        q0 = np.asarray(q0, dtype=float).reshape(-1)
        if q0.shape != (12,):
            raise InputError(f"q0: expected 12 joint angles [rad], got {q0.size}")
        if not (np.isfinite(drop) and drop >= 0.0):
            raise InputError(f"drop={drop!r} m: expected a finite value >= 0")
        s = np.zeros(H.NX)
        s[H.POSE + 6] = 1.0
        if self.base == "floating":
            s[H.POSE + 2] = self.standing_height(q0) + drop
        else:
            s[H.POSE + 2] = self.trunk_height
        s[H.QJ:H.QJ + 12] = q0
        for leg in range(len(LEGS)):
            xl = self.leg_bench.initial_state(q0[3 * leg:3 * leg + 3])
            s[H.GAS + 15 * leg:H.GAS + 15 * (leg + 1)] = xl[LH.GAS:LH.GAS + 15]
        s[H.U:H.U + 12] = self.u_bias
        return s

    def run(self, refs, t_final: float, q0=None, drop: float = 0.003) -> QuadrupedRun:
        """Simulate ``t_final`` s. ``refs``: joint references (see :meth:`leg_references`);
        ``q0`` (12,) initial joint angles [rad] (default: the references at t = 0); ``drop`` [m]:
        initial clearance of the lowest foot (floating base)."""
        triples = self.leg_references(refs)
        if q0 is None:
            q0 = [float(r.values_at(0.0)) for tr in triples for r in tr]
        p = self.params(triples)
        res = simulate(self.model, t_final, x0=self.initial_state(q0, drop), params=p,
                       options=self.options, mode0=0)
        X, Y = res.x, res.y
        gas = X[:, H.GAS:H.GAS + 60].reshape(-1, 12, 5)
        quat = X[:, H.POSE + 3:H.POSE + 7]
        quat = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        return QuadrupedRun(
            t=res.t, trunk_position=X[:, H.POSE:H.POSE + 3], trunk_quaternion=quat,
            trunk_twist=X[:, H.TWIST:H.TWIST + 6], q=X[:, H.QJ:H.QJ + 12], v=X[:, H.VJ:H.VJ + 12],
            ref=Y[:, 0:12], u=X[:, H.U:H.U + 12], torque=Y[:, 12:24], force=Y[:, 24:36],
            x_piston=Y[:, 36:48], p_cap=gas[:, :, 0], p_rod=gas[:, :, 1], m_cap=gas[:, :, 2],
            m_rod=gas[:, :, 3], foot_force=Y[:, 48:60].reshape(-1, 4, 3),
            air_used=gas[:, :, 4].sum(axis=1), result=res)
