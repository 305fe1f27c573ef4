"""The pneumatic 3-DoF CRR leg on a fixed base (Daepp (2011) Ch. 5; digest §5.2, §7 A7, A10).

Three MPYE-5 valves (fitted model, §2.5) and double-acting Bimba cylinders (§3.2; Alpha stroke
3.75 in) drive the Alpha/Beta/Gamma joints through the linkages of §2.6; Stribeck-tanh friction
(§2.4, source parameters); a joint-level PID at 1 kHz in the engine's ``sample`` hook produces the
valve voltages (0–10 V). The rigid-body leg (:func:`.geometry.crr_leg_bodies`) is integrated with the
gas states in one ODE (``coupling="monolithic"``) or through the emulated split Simulink/SrLib
exchange (``coupling="cosim"``, with one-way delays and an optional exchange pause; see
:mod:`._hooks`).

The source gives no PID gains (⚠ 13). The defaults (:data:`DEFAULT_GAINS`,
:data:`DEFAULT_FORCE_GAIN`) were tuned here against the thesis's reported behaviour: Gamma step
rise times inside 0.11–1.3 s, Gamma sine lag 0.15–0.2 s, Beta fast-sine lag ≈ 0.16 s, the Alpha
loop near its limit cycle at nominal gain (the thesis then cut it by 25 %), and a loop that stays
stable with the 3–4 ms exchange round trip. Beta and Gamma use the prototype's "position and
pressure feedback" (digest §1.1): without the net-pressure-force term the PID loop needed for those
rise times went unstable at a 3 ms round trip. The exhaust pressure defaults to the leg setup's
24.7 psia (⚠ 7).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...actuators.pneumatic import _layout as L
from ...actuators.pneumatic.actuator import PneumaticActuator
from ...actuators.pneumatic.cylinder import Cylinder
from ...actuators.pneumatic.friction import stribeck_tanh_source
from ...actuators.pneumatic.linkage import JointLinkage
from ...actuators.pneumatic.units import P_ATM_PSI, PSI
from ...actuators.pneumatic.valves import mpye5_fitted
from ...errors import InputError
from ...hybrid import Model, Options, Result, simulate
from . import _hooks as H
from .geometry import JOINT_LIMITS, STROKES, crr_leg_bodies, default_linkages

__all__ = ["JointReference", "LegBench", "LegRun", "crr_leg_model", "DEFAULT_GAINS", "JOINTS"]

JOINTS = ("alpha", "beta", "gamma")
DEFAULT_GAINS = {"alpha": (4.0, 0.0, 0.2), "beta": (4.0, 5.0, 0.0), "gamma": (4.0, 5.0, 0.0)}
"""PID gains (kp [V/rad], ki [V/(rad s)], kd [V s/rad]) per joint (tuned here, see module doc)."""
DEFAULT_FORCE_GAIN = {"alpha": 0.0, "beta": 0.015, "gamma": 0.015}
"""Net pressure-force feedback gains k_F [V/N] per joint."""
DEFAULT_FORCE_RATE_GAIN = {"alpha": 0.0, "beta": 0.0, "gamma": 0.0}
"""Feedback gains k_Fd [V s/N] on the rate of the net pressure force, per joint."""

STATE_NAMES = (tuple(f"q_{j}" for j in JOINTS) + tuple(f"v_{j}" for j in JOINTS)
               + tuple(f"{n}_{j}" for j in JOINTS for n in ("p_cap", "p_rod", "m_cap", "m_rod", "m_air"))
               + tuple(f"{n}_{j}" for n in ("u", "integ", "e_prev", "ref", "tau_rx", "q_rx", "v_rx")
                       for j in JOINTS)
               + ("packets",) + tuple(f"ring_up_{i}" for i in range(6 * H.DMAX))
               + tuple(f"ring_down_{i}" for i in range(3 * H.DMAX))
               + tuple(f"f_prev_{j}" for j in JOINTS))
OUTPUT_NAMES = (tuple(f"ref_{j}" for j in JOINTS) + tuple(f"torque_{j}" for j in JOINTS)
                + tuple(f"force_{j}" for j in JOINTS) + tuple(f"x_{j}" for j in JOINTS))
MODE_NAMES = {H.MONOLITHIC: "monolithic", H.COSIM: "co-simulation", H.PAUSED: "exchange paused"}
COUPLINGS = {"monolithic": H.MONOLITHIC, "cosim": H.COSIM}


def _param_names(nfb: int, nib: int) -> list[str]:
    names = [f"{j}_row_{i}" for j in JOINTS for i in range(L.NPARAM)]
    blk = ["kind", "l1", "l2", "l3", "l4", "l5", "kp", "ki", "kd", "gain", "u_bias", "ref_kind",
           "ref_t0", "ref_amp", "ref_omega", "ref_offset", "n_table", "k_force", "k_force_rate"]
    for j in JOINTS:
        names += [f"{j}_{b}" for b in blk]
        names += [f"{j}_tab_t{i}" for i in range(H.NTAB)] + [f"{j}_tab_v{i}" for i in range(H.NTAB)]
    names += ["dt_control", "coupling", "delay_up", "delay_down", "pause_t0", "pause_duration",
              "n_fbuf", "n_ibuf"]
    names += [f"mb_f{i}" for i in range(nfb)] + [f"mb_i{i}" for i in range(nib)]
    return names


HOLD_POSTURE_DEG = (20.0, -30.0, 56.0)
"""Alpha, Beta, Gamma [deg] that :func:`crr_leg_model`'s defaults hold (the posture of the tests)."""


def crr_leg_model() -> Model:
    """The leg as a hybrid model (registry name ``crr_leg``) whose defaults are :class:`LegBench`'s:
    tuned gains and force feedback, supply and exhaust, references holding
    :data:`HOLD_POSTURE_DEG` from a matching initial state. Change the references through the
    ``<joint>_tab_t*``/``<joint>_tab_v*`` step tables (``<joint>_n_table`` entries) or the sine
    parameters ``<joint>_ref_*``; run with ``sample_period = 1e-3`` (the controller's period)."""
    bench = LegBench()
    refs = [JointReference.hold(float(np.radians(a))) for a in HOLD_POSTURE_DEG]
    q0 = [float(r.values_at(0.0)) for r in refs]
    return replace(bench.model, param_defaults=bench.params(refs),
                   state_defaults=bench.initial_state(q0))


@dataclass
class JointReference:
    """A joint reference [rad]: ``steps`` = ((t_0, θ_0), (t_1, θ_1), …) held (≤ 16 entries), or a
    sine ``offset + amplitude sin(omega (t − t0))`` for t ≥ t0 (``omega`` rad/s)."""

    steps: tuple = ()
    offset: float = 0.0
    amplitude: float = 0.0
    omega: float = 0.0
    t0: float = 0.0

    def __post_init__(self) -> None:
        if len(self.steps) > H.NTAB:
            raise InputError(f"JointReference: {len(self.steps)} steps, at most {H.NTAB} supported")
        times = [s[0] for s in self.steps]
        if any(b <= a for a, b in zip(times, times[1:], strict=False)):
            raise InputError(f"JointReference: step times must increase strictly, got {times}")

    @classmethod
    def hold(cls, theta: float) -> JointReference:
        return cls(steps=((0.0, float(theta)),))

    def write(self, p: np.ndarray, b: int) -> None:
        if self.steps:
            n = len(self.steps)
            p[b + H.REF_KIND] = H.REF_TABLE
            p[b + H.N_TAB] = n
            p[b + H.TAB:b + H.TAB + n] = [s[0] for s in self.steps]
            p[b + H.TAB + H.NTAB:b + H.TAB + H.NTAB + n] = [s[1] for s in self.steps]
        else:
            p[b + H.REF_KIND] = H.REF_SINE
            p[b + H.REF_OFF], p[b + H.REF_AMP] = self.offset, self.amplitude
            p[b + H.REF_OMEGA], p[b + H.REF_T0] = self.omega, self.t0

    def values_at(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        if self.steps:
            out = np.full(t.shape, float(self.steps[0][1]))
            for ts, v in self.steps:
                out[t >= ts] = v
            return out
        return np.where(t < self.t0, self.offset,
                        self.offset + self.amplitude * np.sin(self.omega * (t - self.t0)))


@dataclass
class LegRun:
    """Time histories of a leg run: t (n,), q, v, ref, u, torque, force, x_piston (n, 3) in SI
    (rad, rad/s, V, N m, N, m), p_cap / p_rod (n, 3) Pa, air_used (n,) kg, and the engine result."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    ref: np.ndarray
    u: np.ndarray
    torque: np.ndarray
    force: np.ndarray
    x_piston: np.ndarray
    p_cap: np.ndarray
    p_rod: np.ndarray
    air_used: np.ndarray
    mode: np.ndarray
    result: Result


@dataclass
class LegBench:
    """The pneumatic leg with its controller and coupling options.

    Parameters
    ----------
    supply_psig, exhaust_psia : supply [psig] (50.3) and exhaust [psia] (24.7, leg setup ⚠ 7).
    gains : joint -> (kp, ki, kd); gain_scale : joint -> overall factor (Alpha 0.75 = the thesis's
    −25 %); force_gain [V/N], force_rate_gain [V s/N] : net-pressure-force feedback per joint.
    linkages : Alpha, Beta, Gamma :class:`JointLinkage`. coupling : "monolithic" | "cosim";
    delay_up / delay_down : one-way exchange delays [ticks of 1 ms] (0 … 3): the round trip is
    delay_up + delay_down + 1 ticks, since even without latency SrLib's answer to a torque sent at
    one tick is read at the next; pause_t0 / pause_duration : an exchange pause [s] (COSIM only).
    options : engine options.
    """

    supply_psig: float = 50.3
    exhaust_psia: float = 24.7
    gains: dict = field(default_factory=lambda: dict(DEFAULT_GAINS))
    gain_scale: dict = field(default_factory=lambda: {j: 1.0 for j in JOINTS})
    u_bias: float = 5.25
    force_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_GAIN))
    force_rate_gain: dict = field(default_factory=lambda: dict(DEFAULT_FORCE_RATE_GAIN))
    linkages: tuple = field(default_factory=default_linkages)
    coupling: str = "monolithic"
    delay_up: int = 0
    delay_down: int = 0
    pause_t0: float = 0.0
    pause_duration: float = 0.0
    options: Options = field(default_factory=lambda: Options(
        method="dp45", rtol=1e-6, atol=1e-8, h_max=1e-3, record_period=1e-3, sample_period=1e-3,
        sliding=False))

    def __post_init__(self) -> None:
        if self.coupling not in COUPLINGS:
            raise InputError(f"coupling={self.coupling!r}: expected one of {', '.join(COUPLINGS)}")
        for name in ("delay_up", "delay_down"):
            d = getattr(self, name)
            if int(d) != d or not 0 <= d < H.DMAX:
                raise InputError(f"{name}={d!r}: expected an integer number of 1 ms ticks in "
                                 f"[0, {H.DMAX - 1}]")
        if self.pause_duration < 0.0:
            raise InputError(f"pause_duration={self.pause_duration!r} s: expected >= 0")
        if len(self.linkages) != 3 or not all(isinstance(k, JointLinkage) for k in self.linkages):
            raise InputError("linkages: expected three JointLinkage (Alpha, Beta, Gamma)")
        for key in (*self.gains, *self.gain_scale):
            if key not in JOINTS:
                raise InputError(f"gains/gain_scale key {key!r}: expected one of {', '.join(JOINTS)}")
        self.bodies = crr_leg_bodies()
        self.actuators = tuple(
            PneumaticActuator(p_supply=(self.supply_psig + P_ATM_PSI) * PSI,
                              p_exhaust=self.exhaust_psia * PSI,
                              cylinder=Cylinder(stroke=STROKES[j]), valve=mpye5_fitted(),
                              friction=stribeck_tanh_source())
            for j in range(3))
        nfb, nib = self.bodies.fbuf.size, self.bodies.ibuf.size
        names = _param_names(nfb, nib)
        self.model = Model(name="crr_leg", state_names=STATE_NAMES,
                           state_defaults=np.zeros(len(STATE_NAMES)), param_names=tuple(names),
                           param_defaults=self._defaults(len(names)), guards=(),
                           output_names=OUTPUT_NAMES, vector_field=H.vector_field,
                           outputs=H.outputs, sample=H.sample,
                           mode_name=lambda m: MODE_NAMES.get(int(m), str(m)),
                           description="Daepp (2011) pneumatic 3-DoF CRR leg, fixed base")

    def _defaults(self, n: int) -> np.ndarray:
        p = np.zeros(n)
        for j, act in enumerate(self.actuators):
            p[j * H.NA:(j + 1) * H.NA] = act.row()
            b = H.joint_block(j)
            link = self.linkages[j]
            p[b + H.KIND] = int(link.joint)
            p[b + H.L1:b + H.L5 + 1] = (link.l1, link.l2, link.l3, link.l4, link.l5)
            kp, ki, kd = self.gains.get(JOINTS[j], DEFAULT_GAINS[JOINTS[j]])
            p[b + H.KP], p[b + H.KI], p[b + H.KD] = kp, ki, kd
            p[b + H.GAIN] = self.gain_scale.get(JOINTS[j], 1.0)
            p[b + H.U_BIAS] = self.u_bias
            p[b + H.KF] = self.force_gain.get(JOINTS[j], 0.0)
            p[b + H.KFD] = self.force_rate_gain.get(JOINTS[j], 0.0)
        p[H.DT] = self.options.sample_period if self.options.sample_period > 0 else 1e-3
        p[H.COUPLING] = COUPLINGS[self.coupling]
        p[H.D_UP], p[H.D_DOWN] = self.delay_up, self.delay_down
        p[H.PAUSE_T0], p[H.PAUSE_DUR] = self.pause_t0, self.pause_duration
        fb, ib = self.bodies.fbuf, self.bodies.ibuf
        p[H.NFB], p[H.NIB] = fb.size, ib.size
        p[H.MB:H.MB + fb.size] = fb
        p[H.MB + fb.size:H.MB + fb.size + ib.size] = ib.astype(float)
        return p

    def params(self, refs) -> np.ndarray:
        """Parameter vector with the three joint references written in."""
        p = self.model.param_defaults.copy()
        for j, r in enumerate(refs):
            r.write(p, H.joint_block(j))
        return p

    def initial_state(self, q0) -> np.ndarray:
        """At rest at joint angles q0 [rad], chambers at the valve's mid pressure (P_S + P_E)/2."""
        q0 = np.asarray(q0, dtype=float)
        for j in range(3):
            lo, hi = JOINT_LIMITS[j]
            if not lo <= q0[j] <= hi:
                raise InputError(f"initial {JOINTS[j]} angle {np.degrees(q0[j]):.2f} deg: expected "
                                 f"within the joint range [{np.degrees(lo):.0f}, {np.degrees(hi):.0f}]")
        s = np.zeros(H.NX)
        s[H.Q:H.Q + 3] = q0
        for j, act in enumerate(self.actuators):
            xp = float(self.linkages[j].cylinder(q0[j])[0])
            pm = 0.5 * (act.p_supply + act.p_exhaust)
            s[H.GAS + 5 * j:H.GAS + 5 * j + 5] = act.initial_state(xp, pm, pm)[0]
        s[H.U:H.U + 3] = self.u_bias
        s[H.QRX:H.QRX + 3] = q0
        for i in range(H.DMAX):
            s[H.RING_UP + 6 * i:H.RING_UP + 6 * i + 3] = q0
        return s

    def run(self, refs, t_final: float, q0=None) -> LegRun:
        """Simulate ``t_final`` s. ``refs``: three :class:`JointReference` (Alpha, Beta, Gamma);
        ``q0`` initial joint angles [rad] (default: the references at t = 0)."""
        if len(refs) != 3:
            raise InputError(f"refs: expected three JointReference (Alpha, Beta, Gamma), got {len(refs)}")
        if q0 is None:
            q0 = [float(r.values_at(0.0)) for r in refs]
        p = self.params(refs)
        mode0 = COUPLINGS[self.coupling]
        res = simulate(self.model, t_final, x0=self.initial_state(q0), params=p,
                       options=self.options, mode0=mode0)
        X, Y = res.x, res.y
        gas = X[:, H.GAS:H.GAS + 15].reshape(-1, 3, 5)
        return LegRun(t=res.t, q=X[:, H.Q:H.Q + 3], v=X[:, H.V:H.V + 3], ref=Y[:, 0:3],
                      u=X[:, H.U:H.U + 3], torque=Y[:, 3:6], force=Y[:, 6:9], x_piston=Y[:, 9:12],
                      p_cap=gas[:, :, 0], p_rod=gas[:, :, 1], air_used=gas[:, :, 4].sum(axis=1),
                      mode=res.mode, result=res)
