"""Permanent-magnet synchronous motor (PMSM, "brushless EC motor") with its 28 kHz current loop and
a voltage-source inverter: ROTTO's drive (Konyev 2011 §4.2.1, spec §4.3 and §7.2).

Transforms (kept in the source's convention)
--------------------------------------------
(4.1) Park–Clarke, phases A, B, C at ``a_k = 0, 2 pi/3, -2 pi/3`` and the electrical angle ``phi``::

    x_D = k [x_A sin(phi) + x_B sin(phi - 2 pi/3) + x_C sin(phi + 2 pi/3)]
    x_Q = k [x_A cos(phi) + x_B cos(phi - 2 pi/3) + x_C cos(phi + 2 pi/3)]

The source prints ``k = 3/2``; the amplitude-invariant factor is ``k = 2/3`` (errata §8), the default
(``factor``). With 2/3 a balanced set of amplitude I gives ``|(x_D, x_Q)| = I`` (and 2.25 I with 3/2:
acceptance A15), because ``sum_k cos(t - a_k) sin(phi - a_k) = 3/2 sin(phi - t)``. (4.3), read as
``U_D, U_Q -> U_A, U_B, U_C`` (the OCR writes i_D, i_Q on the right and "i_C" on the left, errata §8)::

    U_k = U_D sin(phi - a_k) + U_Q cos(phi - a_k)

is the exact inverse of (4.1) with 2/3. Convention: the source puts ``sin`` on D and ``cos`` on Q; it
is the usual cosine-on-d transform at the angle ``phi - pi/2``, i.e. here ``phi`` is the angle at which
phase A's flux linkage with the magnet peaks: the magnet's phase flux linkages are
``psi sin(phi - a_k)``, whose (4.1) is ``(psi, 0)``: the rotor flux lies on D.

Machine (dq, amplitude-invariant, electrical speed ``w = p omega``)
------------------------------------------------------------------
Differentiating (4.3) gives ``d/dt x_k -> (dx_D/dt - w x_Q, dx_Q/dt + w x_D)``, so with the phase
equations ``u_k = R i_k + dpsi_k/dt`` and ``(psi_D, psi_Q) = (L_d i_D + psi, L_q i_Q)``::

    u_D = R i_D + L_d di_D/dt - w L_q i_Q
    u_Q = R i_Q + L_q di_Q/dt + w (L_d i_D + psi)

With 2/3, ``sum_k x_k y_k = 3/2 (x_D y_D + x_Q y_Q)`` (zero sequence absent: isolated star point), so
the air-gap power is ``3/2 w (psi_D i_Q - psi_Q i_D)`` and the torque ``T = 3/2 p (psi i_Q + (L_d -
L_q) i_D i_Q)`` [N m] (Krause, Wasynczuk, Sudhoff, *Analysis of Electric Machinery and Drive
Systems*, 3rd ed., 2013, §15.3, the PM machine in the rotor reference frame; the factor 3/2 is the
amplitude-invariant transform's). The rotor: ``J domega/dt = T - b omega - T_c tanh(omega/w_eps) -
(load)`` (:mod:`._pmsm_kernels` for the load: rigid through KV, or a series spring).

Inverter (DC link ``v_dc``, PWM period T = 1/28 kHz)
-----------------------------------------------------
The PI's dq voltage is limited to the **circle** ``|u_dq| <= v_dc/sqrt(3)`` (:meth:`PMSM.voltage_limit`),
the D axis first (u_D clipped to the radius, u_Q to what remains, so that i_D stays regulated in
saturation: a radial scaling lets i_D drift negative, an unintended field weakening that ran the
unloaded actuator 1.4 % past its no-load speed), the inscribed circle of the two-level inverter's
hexagon: the largest
voltage available in every direction, the one a rotating vector can hold in steady state, and the
linear range of min-max zero-sequence injection (space-vector equivalent), which turns the phase
voltages of (4.3) into leg duties in [0, 1]. (Clipping to the hexagon instead would allow
overmodulation, up to 10 % more fundamental voltage with distorted currents: left out so that the
averaged and the exact inverter agree and the ratings of :mod:`.drive_loops` hold.)
``pwm="averaged"``: each leg at
its mean level over the period; ``pwm="exact"``: centre-aligned carrier comparison, the legs switch
(the check of the averaged mode; ripple formula :func:`ripple_rms`).

Current loop (4.2), per axis at the PWM rate: ``U/e = P + I/(1 - z^-1)``, i.e. ``S_k = S_{k-1} + e_k``,
``U_k = P e_k + I S_k``; the currents are sampled at the carrier's valley (the period start, where the
centre-aligned ripple crosses its mean), the new duties apply one period later (computation delay),
and an axis's integration holds while its voltage is clipped (anti-windup; not in the source).
:func:`current_pi_gains` gives placeholder gains (the source gives none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import (
    InputError,
    SimulationError,
    as_floats,
    check_broadcast,
    check_number,
    check_values,
    check_whole,
    real_number,
    shown,
)
from . import _pmsm_kernels as _k
from .dcmotor import MAX_VALUE

__all__ = ["park_clarke", "inverse_park_clarke", "pi_response", "PMSM", "DriveLoad", "DriveController",
           "current_pi_gains", "simulate_drive", "DriveRun", "ripple_rms", "AMPLITUDE_INVARIANT",
           "AS_PRINTED"]

AMPLITUDE_INVARIANT = 2.0 / 3.0
"""The Park–Clarke factor that keeps amplitudes (default)."""
AS_PRINTED = 1.5
"""The factor (4.1) prints."""
MAX_POLE_PAIRS = 1000
"""The most pole pairs a :class:`PMSM` takes (ROTTO's motors have 4; large torque motors a few dozen)."""


def park_clarke(ia, ib, ic, phi, factor: float = AMPLITUDE_INVARIANT):
    """(4.1): ``(x_D, x_Q)`` of phase values (broadcast arrays) at electrical angle ``phi`` [rad];
    ``factor`` 2/3 (amplitude invariant) or 3/2 (as printed)."""
    o = "park_clarke"
    k = check_number(o, "factor", factor, lo=0.0, hi=10.0, lo_open=True)
    d, q = np.vectorize(_k.park, otypes=[float, float])(*_signals(o, ia=ia, ib=ib, ic=ic, phi=phi), k)
    return (float(d), float(q)) if np.ndim(d) == 0 else (d, q)


def inverse_park_clarke(ud, uq, phi):
    """(4.3), read as ``U_D, U_Q -> U_A, U_B, U_C`` (errata §8); broadcast arrays (within ±MAX_VALUE,
    ``phi`` [rad] within ±1e9)."""
    args = _signals("inverse_park_clarke", ud=ud, uq=uq, phi=phi)
    out = np.vectorize(_k.inverse_park, otypes=[float, float, float])(*args)
    return tuple(float(x) for x in out) if np.ndim(out[0]) == 0 else out


def _signals(owner: str, **values) -> list[np.ndarray]:
    """The transforms' arguments as float arrays: phase or dq values within ±MAX_VALUE and the last, the
    angle ``phi`` [rad], within ±1e9 (where a float still resolves a turn), shapes that broadcast together."""
    *names, angle = values
    out = [check_values(owner, n, values[n], lo=-MAX_VALUE, hi=MAX_VALUE) for n in names]
    out.append(check_values(owner, angle, values[angle], lo=-1e9, hi=1e9))
    check_broadcast(owner, **dict(zip(values, out, strict=True)))
    return out


def pi_response(errors, p_gain: float, i_gain: float, s0: float = 0.0) -> np.ndarray:
    """Output sequence (n,) of the discrete PI (4.2) ``U/e = P + I/(1 - z^-1)`` for the error
    sequence ``errors`` (n,), integrator starting at ``s0`` (no saturation). ``errors`` and ``s0`` within
    ±MAX_VALUE, the gains in [0, MAX_VALUE]."""
    o = "pi_response"
    e = check_values(o, "errors", errors, lo=-MAX_VALUE, hi=MAX_VALUE).ravel()
    p, i = (check_number(o, name, value, lo=0.0, hi=MAX_VALUE) for name, value in (("p_gain", p_gain),
                                                                                 ("i_gain", i_gain)))
    s = check_number(o, "s0", s0, lo=-MAX_VALUE, hi=MAX_VALUE)
    out = np.empty_like(e)
    for k, ek in enumerate(e):
        out[k], s = _k.pi_step(s, float(ek), p, i)
    return out


def ripple_rms(duties, v_dc: float, inductance: float, period: float) -> np.ndarray:
    """Predicted RMS [A] of phase A's current ripple in each PWM period with leg duties ``duties``
    (n, 3) (centre-aligned; ``L dr/dt = u_A(t) - mean u_A``, R, back-EMF change and rotation within the
    period neglected; RMS about the least-squares line over the period, as ``DriveRun.ripple``), (n,).
    Duties in [0, 1] ((3,) for one period); ``v_dc`` [V], ``inductance`` [H] and ``period`` [s] in
    [1/MAX_VALUE, MAX_VALUE]."""
    o = "ripple_rms"
    d = np.atleast_2d(check_values(o, "duties", duties, lo=0.0, hi=1.0))
    if d.ndim != 2 or d.shape[1] != 3:
        raise InputError(f"{o}: 'duties' = {shown(duties)}, expected an (n, 3) array of leg duties in [0, 1]")
    named = (("v_dc", v_dc), ("inductance", inductance), ("period", period))
    v_dc, inductance, period = (check_number(o, name, value, lo=1.0 / MAX_VALUE, hi=MAX_VALUE)
                                for name, value in named)
    return np.array([_k.ripple_rms(a, b, c, v_dc, inductance, period) for a, b, c in d])


@dataclass(frozen=True)
class PMSM:
    """A PMSM and its inverter (module docstring for the equations).

    Parameters
    ----------
    resistance : phase resistance R [ohm] (star equivalent).
    inductance_d, inductance_q : synchronous inductances L_d, L_q [H] (L_q default L_d: surface magnets).
    flux_linkage : magnet flux linkage psi [V s] (amplitude of a phase's flux linkage).
    pole_pairs : p.
    rotor_inertia : J [kg m^2] of the rotor and what turns with it; 0 holds the speed constant.
    viscous : b [N m s/rad]; coulomb : T_c [N m], regularised by tanh(omega / coulomb_speed).
    v_dc : DC-link voltage [V]; pwm_hz : PWM and current-loop rate [Hz] (28 kHz, §4.2.1).
    park_factor : factor of the controller's (4.1): 2/3 (default) or 3/2 (as printed).

    The positive fields lie in [1/MAX_VALUE, MAX_VALUE], the others in [0, MAX_VALUE]
    (:data:`~legsim.actuators.electric.dcmotor.MAX_VALUE`), ``pole_pairs`` in [1, MAX_POLE_PAIRS].
    """

    resistance: float
    inductance_d: float
    flux_linkage: float
    pole_pairs: int
    rotor_inertia: float
    v_dc: float
    inductance_q: float | None = None
    viscous: float = 0.0
    coulomb: float = 0.0
    coulomb_speed: float = 1.0
    pwm_hz: float = 28000.0
    park_factor: float = AMPLITUDE_INVARIANT

    def __post_init__(self):
        o = "PMSM"
        if self.inductance_q is None:
            object.__setattr__(self, "inductance_q", self.inductance_d)
        for k in ("resistance", "inductance_d", "inductance_q", "flux_linkage", "v_dc", "pwm_hz",
                  "coulomb_speed", "park_factor"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=1.0 / MAX_VALUE,
                                                     hi=MAX_VALUE))
        for k in ("rotor_inertia", "viscous", "coulomb"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0, hi=MAX_VALUE))
        object.__setattr__(self, "pole_pairs", check_whole(o, "pole_pairs", self.pole_pairs, lo=1,
                                                           hi=MAX_POLE_PAIRS))

    @property
    def torque_constant(self) -> float:
        """``3/2 p psi`` [N m/A]: torque per ampere of i_Q (amplitude-invariant dq)."""
        return 1.5 * self.pole_pairs * self.flux_linkage

    @property
    def emf_constant(self) -> float:
        """``p psi`` [V s/rad]: the back-EMF u_Q per rad/s of rotor speed (= phase EMF amplitude)."""
        return self.pole_pairs * self.flux_linkage

    @property
    def voltage_limit(self) -> float:
        """``v_dc / sqrt(3)`` [V]: the largest dq voltage the inverter holds in every direction (the
        hexagon's inscribed circle)."""
        return self.v_dc / math.sqrt(3.0)

    def max_current_q(self, omega, i_max: float = math.inf):
        """Largest steady i_Q [A] (i_D = 0) at rotor speed ``omega`` [rad/s] (>= 0) inside the voltage
        circle, ``(R i + p psi omega)^2 + (p omega L_q i)^2 <= (v_dc/sqrt 3)^2``, and ``|i| <= i_max``;
        negative where even i = 0 exceeds the voltage (above the no-load speed)."""
        w = np.asarray(omega, dtype=float)
        we = self.pole_pairs * w
        a = self.resistance**2 + (we * self.inductance_q) ** 2
        b = 2.0 * self.resistance * we * self.flux_linkage
        c = (we * self.flux_linkage) ** 2 - self.voltage_limit**2
        i = (-b + np.sqrt(np.maximum(b * b - 4.0 * a * c, 0.0))) / (2.0 * a)
        i = np.where(c > 0.0, -np.inf, np.minimum(i, i_max))
        return float(i) if i.ndim == 0 else i

    def no_load_speed(self) -> float:
        """Rotor speed [rad/s] at which the back-EMF takes the whole voltage circle (no friction)."""
        return self.voltage_limit / self.emf_constant


@dataclass(frozen=True)
class DriveLoad:
    """What the rotor drives: a nut through ``kv`` [m/rad] (rotor angle to travel: belt ratio N and
    screw lead h give ``kv = h / (2 pi N)``), rigidly (``spring = 0``: the output mass reflects as
    ``m kv^2``) or through a series spring CF [N/m] with the output mass m [kg] (0: output locked)
    and damping [N s/m]; a rigid obstacle at ``obstacle`` [m] (spring case), a constant external
    force [N] on the output, and the encoder's counts per turn (0: exact). ``kv`` lies in [1/MAX_VALUE,
    MAX_VALUE], ``spring``, ``mass``, ``damping`` in [0, MAX_VALUE], ``force`` and a finite ``obstacle``
    within ±MAX_VALUE, ``counts_per_turn`` in [0, 2**31]."""

    kv: float = 1.0
    spring: float = 0.0
    mass: float = 0.0
    damping: float = 0.0
    obstacle: float = math.inf
    force: float = 0.0
    counts_per_turn: int = 0

    def __post_init__(self):
        o = "DriveLoad"
        object.__setattr__(self, "kv", check_number(o, "kv", self.kv, lo=1.0 / MAX_VALUE, hi=MAX_VALUE))
        for k in ("spring", "mass", "damping"):
            object.__setattr__(self, k, check_number(o, k, getattr(self, k), lo=0.0, hi=MAX_VALUE))
        obstacle = real_number(o, "obstacle", self.obstacle)
        if math.isfinite(obstacle):
            check_number(o, "obstacle", obstacle, lo=-MAX_VALUE, hi=MAX_VALUE)
        object.__setattr__(self, "obstacle", obstacle)
        object.__setattr__(self, "force", check_number(o, "force", self.force, lo=-MAX_VALUE, hi=MAX_VALUE))
        object.__setattr__(self, "counts_per_turn",
                           check_whole(o, "counts_per_turn", self.counts_per_turn, hi=2**31))


_OUTER = {"current": _k.OUT_CURRENT, "align": _k.OUT_ALIGN, "force": _k.OUT_FORCE,
          "sea_position": _k.OUT_SEA_POSITION, "cascade": _k.OUT_CASCADE}


@dataclass(frozen=True)
class DriveController:
    """The drive's controllers: the current PI (4.2) gains and one outer loop.

    ``outer``: ``"current"`` (refs = i_D, i_Q references [A] per PWM period); ``"align"`` (rotor
    alignment, §4.2.2: i_D = ``align_current`` at the controller angle 0 for ``align_time``, then the
    encoder's counter is reset and i_D = 0, i_Q = refs[:, 1]); ``"force"`` (SEA force loop: refs[:, 0] the
    force reference [N]; ``i_Q* = ff F* + kp_f (F* - F) - kd_f dF/dt``, F the Hall sensor's spring force,
    :func:`legsim.actuators.electric.drive_loops.sea_force_gains`); ``"sea_position"`` (Fig. 4.20: ``F* =
    clip(kp_x (x* - x) - kd_x dx/dt, +-force_limit)`` over the force loop, refs[:, 0] = x* [m]);
    ``"cascade"`` (Fig. 4.16–4.17: set-point shaper (v_max, a_max), position P ``k_pos``, velocity PI
    ``k_vel``, ``ki_vel`` on the encoder, refs[:, 0] = x* [m]). Outer loops run every ``period`` [s]
    (rounded to whole PWM periods; 1 ms or 0.5 ms in the source); ``i_max`` clips their current.
    The gains and ``align_time`` lie in [0, MAX_VALUE], ``align_current`` within ±MAX_VALUE, ``period``,
    ``i_max``, ``force_limit``, ``v_max`` and ``a_max`` in (0, MAX_VALUE] or inf (none)."""

    p_gain: float
    i_gain: float
    outer: str = "current"
    period: float = 1e-3
    i_max: float = math.inf
    kp_f: float = 0.0
    kd_f: float = 0.0
    ff: float = 0.0
    kp_x: float = 0.0
    kd_x: float = 0.0
    force_limit: float = math.inf
    k_pos: float = 0.0
    k_vel: float = 0.0
    ki_vel: float = 0.0
    v_max: float = math.inf
    a_max: float = math.inf
    align_current: float = 5.0
    align_time: float = 1.0

    def __post_init__(self):
        o = "DriveController"
        if not (isinstance(self.outer, str) and self.outer in _OUTER):
            raise InputError(f"{o}: outer = {self.outer!r}, expected one of {', '.join(_OUTER)}")
        for k in ("p_gain", "i_gain", "kp_f", "kd_f", "ff", "kp_x", "kd_x", "k_pos", "k_vel", "ki_vel",
                  "align_time"):
            check_number(o, k, getattr(self, k), lo=0.0, hi=MAX_VALUE)
        check_number(o, "align_current", self.align_current, lo=-MAX_VALUE, hi=MAX_VALUE)
        for k in ("period", "i_max", "force_limit", "v_max", "a_max"):
            v = real_number(o, k, getattr(self, k))
            if not (0.0 < v <= MAX_VALUE or v == math.inf):
                raise InputError(f"{o}: '{k}' = {shown(getattr(self, k))}, expected a number in (0, "
                                 f"{MAX_VALUE:g}] or inf (none)")

    def vector(self, pwm_hz: float) -> np.ndarray:
        c = np.zeros(_k.NCTL)
        c[[_k.C_P, _k.C_I, _k.C_OUTER]] = self.p_gain, self.i_gain, _OUTER[self.outer]
        c[_k.C_NDEC] = max(1, round(self.period * pwm_hz))
        c[[_k.C_KPF, _k.C_KDF, _k.C_GFF, _k.C_KPX, _k.C_KDX, _k.C_FG]] = (
            self.kp_f, self.kd_f, self.ff, self.kp_x, self.kd_x, self.force_limit)
        c[[_k.C_KPOS, _k.C_KVEL, _k.C_KIVEL, _k.C_IMAX, _k.C_VMAX, _k.C_AMAX]] = (
            self.k_pos, self.k_vel, self.ki_vel, self.i_max, self.v_max, self.a_max)
        c[[_k.C_IALIGN, _k.C_TALIGN]] = self.align_current, self.align_time
        return c


def current_pi_gains(motor: PMSM, bandwidth_hz: float = 1000.0) -> tuple[float, float]:
    """Placeholder gains (P [V/A], I [V/A per sample]) of (4.2) by pole-zero cancellation: the PI zero
    cancels the winding pole R/L, ``P = L omega_c``, ``I = R omega_c T``: the continuous equivalent
    ``P + I/(T s)`` then closes the loop at ``omega_c = 2 pi bandwidth_hz`` (first order). The computation
    delay of 1.5 T costs ``1.5 omega_c T`` rad of phase (0.34 rad at 1 kHz and 28 kHz). ``motor`` a
    :class:`PMSM`, ``bandwidth_hz`` in (0, MAX_VALUE]."""
    o = "current_pi_gains"
    if not isinstance(motor, PMSM):
        raise InputError(f"{o}: 'motor' = {shown(motor)}, expected a PMSM")
    wc = 2.0 * math.pi * check_number(o, "bandwidth_hz", bandwidth_hz, lo=0.0, hi=MAX_VALUE, lo_open=True)
    return float(motor.inductance_q or motor.inductance_d) * wc, motor.resistance * wc / motor.pwm_hz


def _prm(motor: PMSM, load: DriveLoad) -> np.ndarray:
    p = np.zeros(_k.NPRM)
    p[[_k.M_R, _k.M_LD, _k.M_LQ, _k.M_PSI, _k.M_PP]] = (
        motor.resistance, motor.inductance_d, motor.inductance_q, motor.flux_linkage, motor.pole_pairs)
    p[[_k.M_J, _k.M_B, _k.M_TC, _k.M_WEPS, _k.M_VDC]] = (motor.rotor_inertia, motor.viscous, motor.coulomb,
                                                          motor.coulomb_speed, motor.v_dc)
    p[[_k.M_TPWM, _k.M_KPARK, _k.M_KV, _k.M_CF, _k.M_ML]] = (1.0 / motor.pwm_hz, motor.park_factor, load.kv,
                                                              load.spring, load.mass)
    p[[_k.M_BL, _k.M_XOBS, _k.M_FEXT, _k.M_CPR]] = (load.damping, load.obstacle, load.force,
                                                    load.counts_per_turn)
    return p


@dataclass
class DriveRun:
    """Records of :func:`simulate_drive`, one per PWM period (state at the period's start, means over
    it): ``t`` [s], ``i_d``, ``i_q`` [A], ``theta`` [rad], ``omega`` [rad/s], ``x_out`` [m], ``v_out``
    [m/s], ``torque`` (period mean) [N m], ``spring_force`` [N], ``iq_ref`` [A], ``ripple`` (RMS of phase
    A's current about its least-squares line over the period: the PWM ripple without the
    fundamental's slope) [A], ``u`` (|u_dq| commanded) [V], ``shaped`` (set-point shaper
    output) [m], ``ia_mean`` [A], ``phi_ctrl`` (controller's electrical angle) [rad], ``duties`` (n, 3);
    ``state``, ``cstate``: the final drive and controller states (to continue a run)."""

    rec: np.ndarray
    state: np.ndarray
    cstate: np.ndarray
    names: tuple[str, ...] = field(default=("t", "i_d", "i_q", "theta", "omega", "x_out", "v_out", "torque",
                                            "spring_force", "iq_ref", "ripple", "u", "shaped", "ia_mean",
                                            "phi_ctrl"))

    def __getattr__(self, name: str) -> np.ndarray:
        if name in ("rec", "names", "state", "cstate"):
            raise AttributeError(name)
        if name == "duties":
            return self.rec[:, _k.R_DA:_k.R_DC + 1]
        try:
            return self.rec[:, self.names.index(name)]
        except ValueError:
            raise AttributeError(name) from None


def simulate_drive(motor: PMSM, load: DriveLoad, controller: DriveController, refs, *,
                   pwm: str = "averaged", substeps: int = 4, theta0: float = 0.0, omega0: float = 0.0,
                   x0: float | None = None, continue_from: DriveRun | None = None) -> DriveRun:
    """Run the drive for ``len(refs)`` PWM periods; ``refs`` (n, 2) the outer loop's inputs per period
    (:class:`DriveController`), or (n,) for the first column. ``pwm``: ``"averaged"`` or ``"exact"``;
    RK4 steps of at most T/``substeps``. Starts at rest at rotor angle ``theta0`` [rad] (the encoder
    counting from there), speed ``omega0``, output at ``x0`` (default ``kv theta0``), or continues
    ``continue_from``; ``refs``, ``theta0``, ``omega0`` and ``x0`` within ±MAX_VALUE. A state that leaves
    the finite numbers (an RK4 step too long for the winding's L/R, most often) stops the run with a
    :class:`~legsim.errors.SimulationError` whose ``result`` holds the periods before it."""
    o = "simulate_drive"
    for name, value, kind in (("motor", motor, PMSM), ("load", load, DriveLoad),
                              ("controller", controller, DriveController)):
        if not isinstance(value, kind):
            raise InputError(f"{o}: {name} = {value!r}, expected a {kind.__name__}")
    if not (continue_from is None or isinstance(continue_from, DriveRun)):
        raise InputError(f"{o}: continue_from = {continue_from!r}, expected None or a DriveRun")
    if not (isinstance(pwm, str) and pwm in ("averaged", "exact")):
        raise InputError(f"{o}: pwm = {pwm!r}, expected 'averaged' or 'exact'")
    substeps = check_whole(o, "substeps", substeps, lo=1, hi=10_000)
    theta0, omega0 = (check_number(o, name, value, lo=-MAX_VALUE, hi=MAX_VALUE)
                      for name, value in (("theta0", theta0), ("omega0", omega0)))
    x0 = None if x0 is None else check_number(o, "x0", x0, lo=-MAX_VALUE, hi=MAX_VALUE)
    r = as_floats(refs)
    if r.ndim == 1:
        r = np.column_stack([r, np.zeros_like(r)])
    if r.ndim != 2 or r.shape[1] != 2:
        raise InputError(f"{o}: 'refs' of shape {np.shape(r)}, expected (n, 2) or (n,) numbers")
    bad = np.argwhere(~(np.abs(r) <= MAX_VALUE))
    if bad.size:
        i, j = bad[0]
        raise InputError(f"{o}: 'refs'[{i}, {j}] = {float(r[i, j])!r}, expected a number within "
                         f"±{MAX_VALUE:g}")
    prm = _prm(motor, load)
    ctl = controller.vector(motor.pwm_hz)
    if continue_from is None:
        s = np.zeros(_k.NS)
        s[_k.S_TH], s[_k.S_OM] = theta0, omega0
        s[_k.S_XO] = load.kv * theta0 if x0 is None else x0
        s[_k.S_VO] = load.kv * omega0
        cs = np.zeros(_k.NZ)
        cs[[_k.Z_DA, _k.Z_DB, _k.Z_DC]] = 0.5
        cs[_k.Z_TH0] = theta0 if controller.outer == "align" else 0.0
        cs[_k.Z_YSH] = cs[_k.Z_PPREV] = load.kv * _k.encoder_angle(prm, theta0 - cs[_k.Z_TH0])
        cs[_k.Z_XPREV] = s[_k.S_XO]
        cs[_k.Z_FPREV] = load.spring * (load.kv * theta0 - s[_k.S_XO])
        t0 = 0.0
    else:
        s, cs = continue_from.state.copy(), continue_from.cstate.copy()
        t0 = float(continue_from.rec[-1, _k.R_T]) + 1.0 / motor.pwm_hz
    rec = np.zeros((r.shape[0], _k.NREC))
    _k.run_drive(prm, ctl, s, cs, r, pwm == "exact", substeps, t0, rec)
    if not (np.all(np.isfinite(rec)) and np.all(np.isfinite(s))):
        _diverged(motor, controller, rec, s, cs, substeps, t0)
    return DriveRun(rec, s, cs)


def _diverged(motor: PMSM, controller: DriveController, rec: np.ndarray, s: np.ndarray, cs: np.ndarray,
              substeps: int, t0: float):
    """Raise the :class:`SimulationError` of a drive run whose records or final state ``s`` left the
    finite numbers, with the periods before the first such record as its result."""
    bad = np.flatnonzero(~np.all(np.isfinite(rec), axis=1))
    k = int(bad[0]) if bad.size else rec.shape[0]
    t = t0 + k / motor.pwm_hz
    h = 1.0 / (motor.pwm_hz * substeps)
    tau = min(motor.inductance_d, float(motor.inductance_q or motor.inductance_d)) / motor.resistance
    raise SimulationError(
        f"simulate_drive: the drive's state left the finite numbers at t = {t:.6g} s (PWM period {k}): "
        f"the RK4 step T/substeps = {h:.3g} s is likely too long for the drive's fastest time constant "
        f"(RK4 is stable up to about 2.8 times it; the winding's min(L_d, L_q)/R is {tau:.3g} s, a small "
        "rotor inertia or a stiff spring makes shorter ones): raise substeps, or check the motor, load "
        "and gains", t=t, mode=controller.outer, cause="non-finite state",
        result=DriveRun(rec[:k], s, cs))
