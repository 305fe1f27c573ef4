"""Linear analysis of CJTC on LIBRA's top chain (digest ``shared/spec/cjtc-libra.md`` §5, eq. 22, App. C).

Model (App. C, derived here rather than transcribed): the top chain of :mod:`.dynamics` with the
control vector u = [x_b, y_b, θ_b, x2] (the 4-variable version of u1), the CJTC law (eq. 12)

    τ = Jᵀ [K_p (u_cmd − u) + K_d (u̇_cmd − u̇)] + G(q),

exact gravity compensation G (so gravity cancels at every configuration), J = ∂u/∂θ1..4
= J(4×5) T (App. C), frictionless torque sources, and the wall: a spring K_e (params.k_wall) that
pushes foot 2 back when it enters the wall, V_wall = ½ K_e (x2 − x_wall)², i.e. the generalised force
−∂V_wall/∂θ = −J[3,:]ᵀ K_e (x2 − x_wall) (App. C's δV = K_e [0; 0; 0; j4] taken transposed and
multiplied by T: −Tᵀ j4ᵀ K_e δx2). With H = Tᵀ M T, H θ̈ = τ − G + Q_wall, and ü = J θ̈ (+ J̇ θ̇,
second order at u̇ = 0), so in deviations about a configuration with u̇ = 0 and x2 at the wall
(no preload, so no Jacobian-derivative stiffness),

    ü = −Λ K_d u̇ − Λ (K_p + K_w) u + Λ K_d u̇_cmd + Λ K_p u_cmd,   Λ = J H⁻¹ Jᵀ = J(4×5) T H⁻¹ Tᵀ J(4×5)ᵀ,
    K_w = diag(0, 0, 0, K_e),

which is eq. 22 / App. C's A = [[−J T H⁻¹ Tᵀ Jᵀ K_d, −J T H⁻¹ Tᵀ (Jᵀ K_p + δVᵀ)]; [I, 0]],
B = [[Λ K_d, Λ K_p]; [0, 0]], C = [0 I], D = 0 with the wall entering with a + sign inside the bracket
(it adds to the x2 stiffness). Sign check: at DC the x2 loop gives x2 = K_p2 / (K_p2 + K_e) x2_cmd,
eq. 15 with x_e = 0; the opposite sign would put a pole in the right half-plane since K_e > K_p2.

State [u̇; u] (8), inputs [u̇_cmd; u_cmd] (8), outputs u (4). For Bode responses the command is made
consistent, u̇_cmd = s u_cmd: with z = x − B1 u_cmd the 4-input system is (A, A B1 + B2, C, 0)
(C B1 = 0), :meth:`LinearModel.consistent`. :meth:`LinearModel.position_only` is the other reading,
u̇_cmd = 0 (what a Bode plot from the u_cmd inputs of the 8-input model shows).

Findings (tuned gains, y_b = 0, y2 = 0; tests/test_libra_linear.py). The two readings differ a lot:
with u̇_cmd = s u_cmd the body loops reach 5.9, 2.8 and 72 Hz (x_b, y_b, θ_b; θ_b ≈ k_d/I with the
small effective inertia 1/Λ33 ≈ 0.0068 kg m²), the x2 loop peaks at −1 dB and x_b -> θ_b at +5.6 dB;
with u̇_cmd = 0 they are 0.93, 1.11, 0.64 Hz = 5.8, 6.9, 4.0 rad/s (overdamped, ≈ k_p/k_d), the x2
loop peaks at −32 dB and no off-diagonal loop exceeds −10.8 dB. The latter matches every App. C
statement (5.2, ≈7, ≈5.6 "Hz"; x2 far below −3 dB; no coupling above −3 dB) if the thesis's "Hz"
are rad/s, which is how it is read here.

Geometry (not given by the thesis): x_b = 0.09 m with both feet at y = 0 puts hip 1 only 0.054 m
from foot 1, so the knees bend ≈ 160° at y_b = 0, beyond ±117°; they are within the limits only at
y_b = 0.14, −0.18, −0.20 m (:func:`configuration`). The linear model has no joint stops, so the
sweep is still evaluated everywhere and the excess is reported in :class:`SweepPoint`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import control as ct
import numpy as np

from legsim.control.cost import LAW_GAIN_LIMIT
from legsim.errors import InputError, as_floats, check_number, check_values, check_whole, shown

from . import dynamics
from . import kinematics as kin
from .params import LADDER_SEPARATION, TUNED_KD, TUNED_KP, LibraParams

__all__ = ["SWEEP_Y_B", "SWEEP_ELBOWS", "POSE_RANGE", "MAX_OMEGA", "MAX_GAIN_SCALE", "LinearModel",
           "SweepPoint", "linearise", "configuration", "loop_bandwidths", "peak_magnitudes", "analyse",
           "sweep", "sweep_row"]

_DEFAULT = LibraParams()

SWEEP_Y_B = tuple(round(0.14 - 0.02 * k, 2) for k in range(18))
"""The 18 body heights of App. C [m]: 0.14 down to −0.20 in 0.02 steps (the OCR lists 17 values,
dropping −0.16)."""

SWEEP_ELBOWS = (-1, -1, None)
"""Knee branches held over the sweep (signs of θ1, θ4): the one branch that stays continuous over
y_b ∈ [−0.20, 0.14] m and keeps the hips θ2, θ3 within 1.6° of their limits (:func:`configuration`)."""

_OMEGA = 2.0 * math.pi * np.logspace(-2, 3, 2001)
"""Default frequency grid, 0.01 .. 1000 Hz [rad/s]."""

POSE_RANGE = 10.0
"""Bound of the body and foot-2 coordinates a configuration takes: ±10 m (θ_b ±10 rad), a ladder
separation up to 10 m (LIBRA spans 0.7 m)."""
MAX_OMEGA = 1e12
"""The highest frequency [rad/s] :func:`peak_magnitudes` takes."""
MAX_GAIN_SCALE = 1e6
"""The largest factor :func:`sweep_row` takes on the tuned gains."""


@dataclass(frozen=True)
class LinearModel:
    """Eq. 22 at one configuration.

    Attributes
    ----------
    ss : control.StateSpace
        8 states [u̇; u], 8 inputs [u̇_cmd; u_cmd], 4 outputs u = [x_b, y_b, θ_b, x2].
    jacobian : ndarray (4, 4)
        J = ∂u/∂θ1..4 [m/rad; θ_b row rad/rad].
    inertia : ndarray (4, 4)
        H = Tᵀ M T [kg m²].
    mobility : ndarray (4, 4)
        Λ = J H⁻¹ Jᵀ (inverse task-space inertia) [1/kg, …].
    phi, theta : configuration [rad].
    """

    ss: ct.StateSpace
    jacobian: np.ndarray
    inertia: np.ndarray
    mobility: np.ndarray
    phi: float
    theta: np.ndarray

    def consistent(self) -> ct.StateSpace:
        """u_cmd -> u with u̇_cmd = s u_cmd (4 inputs): (A, A B1 + B2, C, 0)."""
        a, b, c = self.ss.A, self.ss.B, self.ss.C
        return ct.ss(a, a @ b[:, :4] + b[:, 4:], c, np.zeros((4, 4)))

    def position_only(self) -> ct.StateSpace:
        """u_cmd -> u with u̇_cmd = 0 (4 inputs): (A, B2, C, 0)."""
        return ct.ss(self.ss.A, self.ss.B[:, 4:], self.ss.C, np.zeros((4, 4)))


def _gains(k, name) -> np.ndarray:
    a = as_floats(k)  # strings, None, ragged lists: an empty array, refused below
    if a.shape == (4,):
        a = np.diag(a)
    if a.shape != (4, 4) or not np.all(np.abs(a) <= LAW_GAIN_LIMIT):
        raise InputError(f"linearise: {name} must be 4 diagonal gains [x_b, y_b, θ_b, x2] or a 4×4 matrix, "
                         f"finite and within ±{LAW_GAIN_LIMIT:g} (SI), got {name} = {shown(k)}")
    return a


def linearise(phi: float, theta, kp=TUNED_KP, kd=TUNED_KD, params: LibraParams = _DEFAULT,
              k_wall: float | None = None) -> LinearModel:
    """Eq. 22 (App. C form) at (φ, θ), u̇ = 0, exact gravity compensation, foot 2 at the wall.

    Parameters
    ----------
    phi, theta : configuration (foot 1 at the origin, foot 2 on its rung) [rad].
    kp, kd : (4,) or (4, 4)
        Gains on [x_b, y_b, θ_b, x2] [N/m, N/m, N m/rad, N/m] and [N s/m, …] (default: tuned, §4.5.1),
        within ±``LAW_GAIN_LIMIT`` (1e12, :mod:`legsim.control.cost`).
    k_wall : float, optional
        Wall stiffness K_e [N/m]; default ``params.k_wall`` (5837), 0 removes the wall.

    Returns
    -------
    LinearModel
    """
    kp, kd = _gains(kp, "kp"), _gains(kd, "kd")
    kin._pose("linearise", phi, theta, params)
    # a negative k_wall is an analysis (tests/test_libra_linear.py: the wall's sign decides the x2 loop)
    k_e = params.k_wall if k_wall is None else check_number("linearise", "k_wall", k_wall, lo=-1e12, hi=1e12)
    jac = kin.jacobian_u1(phi, theta, params)[:4, :4]
    h = dynamics.reduced_inertia(phi, theta, params)
    lam = jac @ np.linalg.solve(h, jac.T)
    k_w = np.diag([0.0, 0.0, 0.0, k_e])
    zero, eye = np.zeros((4, 4)), np.eye(4)
    a = np.block([[-lam @ kd, -lam @ (kp + k_w)], [eye, zero]])
    b = np.block([[lam @ kd, lam @ kp], [zero, zero]])
    c = np.hstack([zero, eye])
    sys = ct.ss(a, b, c, np.zeros((4, 8)))
    return LinearModel(sys, jac, h, lam, float(phi), np.asarray(theta, dtype=float))


def configuration(y_b: float, *, separation: float = LADDER_SEPARATION, y2: float = 0.0,
                  x_b: float | None = None, theta_b: float = 0.0, elbows=SWEEP_ELBOWS,
                  params: LibraParams = _DEFAULT) -> tuple[float, np.ndarray]:
    """A linearisation configuration of App. C: (φ, θ) for body (x_b, y_b, θ_b), foot 2 at (separation, y2).

    Defaults: x_b = separation / 2 = 0.09 m, θ_b = 0, the wall (right ladder) at x2 = 0.18 m, and
    y2 = 0 (feet 1 and 2 on rungs at the same height: stage 1, the push-up of §4.6.1; y2 = 0.134 m,
    foot 2 on the next step, is stage 3). Limb 3 hangs straight (it is lumped at joint 5 in this
    model). The knees then exceed ±117° for −0.16 ≤ y_b ≤ 0.12 m (≈ 160° at y_b = 0); the angles are
    exact but not reachable on the hardware (check ``kinematics.joint_limit_excess``). Raises
    :class:`InputError` if a limb cannot reach (y2 = 0.134 m with y_b = −0.20 m).
    """
    o = "configuration"
    if not isinstance(params, LibraParams):
        raise InputError(f"{o}: 'params' = {shown(params)}, expected a LibraParams")
    y_b, y2, theta_b = (check_number(o, n, v, lo=-POSE_RANGE, hi=POSE_RANGE)  # [m], [m], [rad]
                        for n, v in (("y_b", y_b), ("y2", y2), ("theta_b", theta_b)))
    separation = check_number(o, "separation", separation, lo=0.0, hi=POSE_RANGE, lo_open=True)  # [m]
    x_b = 0.5 * separation if x_b is None else check_number(o, "x_b", x_b, lo=-POSE_RANGE, hi=POSE_RANGE)
    try:
        return kin.inverse((x_b, y_b, theta_b), (separation, y2), None, params, elbows=elbows)
    except InputError as exc:
        raise InputError(f"{o}: the body at (x_b, y_b, theta_b) = ({x_b:g} m, {y_b:g} m, {theta_b:g} rad) "
                         f"with foot 2 at (separation, y2) = ({separation:g}, {y2:g}) m: {exc}") from None


def _system(owner: str, sys, square: bool = False):
    lti = isinstance(sys, ct.StateSpace | ct.TransferFunction)
    if not lti or (square and sys.ninputs != sys.noutputs):
        given = f"a system of {sys.ninputs} inputs and {sys.noutputs} outputs" if lti else shown(sys)
        raise InputError(f"{owner}: 'sys' = {given}, expected a python-control StateSpace or TransferFunction"
                         f"{' with as many inputs as outputs' if square else ''}")
    return sys


def loop_bandwidths(sys: ct.StateSpace) -> np.ndarray:
    """−3 dB bandwidth of each diagonal loop u_cmd,i -> u_i [Hz], shape (n,), of a square ``sys``.

    The first frequency where |G_ii| falls 3 dB below its DC gain (python-control's ``bandwidth``);
    the body loops have DC gain 1, so this is also the absolute −3 dB point. inf if it never drops,
    NaN for an infinite DC gain. Raises :class:`InputError` where python-control's search fails (a loop
    already 3 dB down at the lowest frequency of its grid).
    """
    _system("loop_bandwidths", sys, square=True)
    out = []
    for i in range(sys.ninputs):
        try:
            out.append(ct.bandwidth(sys[i, i]) / (2.0 * math.pi))
        except ValueError as exc:  # scipy's bisection given python-control's bracket [ω_last, ω_0]
            raise InputError(f"loop_bandwidths: loop {i} of 'sys' has no −3 dB point python-control can find "
                             f"(already 3 dB down at its lowest frequency: {exc})") from None
    return np.array(out)


def peak_magnitudes(sys: ct.StateSpace, omega=_OMEGA) -> np.ndarray:
    """max over ω (DC included) of |G_ij(jω)|, u_cmd,j -> u_i, shape (n_out, n_in) [mixed units: m/m, m/rad…].

    The off-diagonal entries are the coupling matrix of App. C ("no off-diagonal loop above −3 dB").
    ``omega``: the frequencies (n,) [rad/s], each in [0, :data:`MAX_OMEGA`]; inf where one is a pole.
    """
    _system("peak_magnitudes", sys)
    w = check_values("peak_magnitudes", "omega", omega, lo=0.0, hi=MAX_OMEGA, unit="rad/s")
    if w.ndim != 1:
        raise InputError(f"peak_magnitudes: 'omega' = {shown(omega)}, expected a list of frequencies [rad/s]")
    w = np.concatenate([[0.0], w])
    with warnings.catch_warnings():  # a pole on the imaginary axis at one of the ω: the peak is inf
        warnings.simplefilter("ignore", RuntimeWarning)
        mag = np.abs(sys(1j * w))
    return mag.max(axis=-1)


@dataclass(frozen=True)
class SweepPoint:
    """Linear-analysis results at one configuration.

    y_b [m]; phi [rad]; theta (6,) [rad]; joint_excess (6,) [rad] beyond the §4.2 limits; poles (8,)
    [rad/s]; zeta (8,) damping ratios; dc (4, 4) the DC gain matrix (the same for both command
    readings). With u̇_cmd = s u_cmd: bandwidth (4,) [Hz] and peak (4, 4), the peak |u_cmd,j -> u_i|;
    with u̇_cmd = 0: bandwidth_position (4,) [Hz] and peak_position (4, 4).
    """

    y_b: float
    phi: float
    theta: np.ndarray
    joint_excess: np.ndarray
    poles: np.ndarray
    zeta: np.ndarray
    dc: np.ndarray
    bandwidth: np.ndarray
    peak: np.ndarray
    bandwidth_position: np.ndarray
    peak_position: np.ndarray

    @property
    def stable(self) -> bool:
        return bool(np.all(self.poles.real < 0.0))


def analyse(phi: float, theta, kp=TUNED_KP, kd=TUNED_KD, params: LibraParams = _DEFAULT,
            y_b: float = math.nan, k_wall: float | None = None) -> SweepPoint:
    """Poles, damping, loop bandwidths and coupling of eq. 22 at one configuration (both command readings).

    Arguments as :func:`linearise`; ``y_b`` [m] (within ±:data:`POSE_RANGE`, or NaN: not known) labels the
    point. Raises :class:`InputError` naming the gains where the analysis has no answer: a zero stiffness
    leaves a pole at 0 and no DC gain; a stiffness far below its damping (kp/kd ≲ 1e-9 1/s) puts a loop's
    −3 dB point below python-control's frequency grid; kp 1e12 with kd 1e4 defeats LAPACK's eigenvalues.
    """
    model = linearise(phi, theta, kp, kd, params, k_wall)
    if not (isinstance(y_b, float) and math.isnan(y_b)):
        y_b = check_number("analyse", "y_b", y_b, lo=-POSE_RANGE, hi=POSE_RANGE)
    problem = ""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # NaN from 0/0 in the damping ratios or the DC gain
        try:
            _, zeta, poles = ct.damp(model.ss, doprint=False)
            cons, pos = model.consistent(), model.position_only()
            dc = np.asarray(cons.dcgain()).reshape(4, 4)
            readings = (loop_bandwidths(cons), peak_magnitudes(cons), loop_bandwidths(pos),
                        peak_magnitudes(pos))
            if not (all(np.all(np.isfinite(a)) for a in (poles, zeta, dc, readings[1], readings[3]))
                    and not np.any(np.isnan(readings[0])) and not np.any(np.isnan(readings[2]))):
                problem = "NaN or inf in its poles, DC gains, bandwidths or peaks"
        except (RuntimeWarning, np.linalg.LinAlgError, InputError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
    if problem:
        raise InputError(f"analyse: eq. 22 with kp = {shown(kp)}, kd = {shown(kd)} has no answer at this "
                         f"configuration ({problem})")
    return SweepPoint(y_b=y_b, phi=float(phi), theta=np.asarray(theta, dtype=float),
                      joint_excess=kin.joint_limit_excess(theta, params), poles=np.asarray(poles),
                      zeta=np.asarray(zeta), dc=dc, bandwidth=readings[0], peak=readings[1],
                      bandwidth_position=readings[2], peak_position=readings[3])


def sweep(y_bs=SWEEP_Y_B, kp=TUNED_KP, kd=TUNED_KD, *, separation: float = LADDER_SEPARATION, y2: float = 0.0,
          elbows=SWEEP_ELBOWS, params: LibraParams = _DEFAULT, skip_unreachable: bool = False
          ) -> list[SweepPoint]:
    """:func:`analyse` over the body heights of App. C (default the 18 of :data:`SWEEP_Y_B`).

    ``skip_unreachable`` drops the heights where a limb cannot reach its foot (e.g. y_b = −0.20 m with
    foot 2 on the 0.134 m step) instead of raising :class:`InputError`.
    """
    heights = as_floats(y_bs)
    if heights.ndim != 1 or heights.size == 0 or not np.all(np.isfinite(heights)):
        raise InputError(f"sweep: 'y_bs' = {shown(y_bs)}, expected a list of body heights [m]")
    out = []
    for y_b in heights:
        try:
            phi, theta = configuration(y_b, separation=separation, y2=y2, elbows=elbows, params=params)
        except InputError:
            if skip_unreachable:
                continue
            raise
        out.append(analyse(phi, theta, kp, kd, params, y_b=float(y_b)))
    return out


LOOPS = ("x_b", "y_b", "theta_b", "x2")
"""The four loops of u = [x_b, y_b, θ_b, x2], in order."""


def sweep_row(*, y_b: float, separation: float = LADDER_SEPARATION, y2: float = 0.0, kp_scale: float = 1.0,
              kd_scale: float = 1.0, seed: int = 0) -> dict[str, float]:
    """One configuration of the linear analysis as a row of a function sweep (:mod:`legsim.sweep`:
    ``Sweep(function="legsim.robots.libra.linear:sweep_row", grid={"y_b": SWEEP_Y_B, ...})``), for
    design studies over body height ``y_b`` [m], ladder ``separation`` [m], foot 2's height ``y2`` [m]
    and the tuned gains scaled by ``kp_scale``, ``kd_scale``. ``seed``: the sweep's per-run seed, unused
    (the analysis is deterministic).

    Row: ``stable`` (1.0 or 0.0), ``max_pole_real`` [rad/s], ``min_zeta``, the −3 dB bandwidths with
    u̇_cmd = 0 (acceptance 7's reading, ``bw_<loop>`` [Hz]) and with u̇_cmd = s u_cmd (``bw_rate_<loop>``),
    the largest off-diagonal peak of each reading (``coupling_db``, ``coupling_rate_db`` [dB]) and the
    largest joint-limit excess [rad] (0: within the §4.2 limits). A height no limb reaches raises
    :class:`InputError` (the sweep records it as the run's error). ``y_b``, ``y2`` within ±:data:`POSE_RANGE`,
    ``separation`` in (0, POSE_RANGE], ``kp_scale`` in (0, :data:`MAX_GAIN_SCALE`], ``kd_scale`` in
    [0, MAX_GAIN_SCALE]; ``seed`` a whole number >= 0."""
    o = "sweep_row"
    y_b, y2 = (check_number(o, n, v, lo=-POSE_RANGE, hi=POSE_RANGE) for n, v in (("y_b", y_b), ("y2", y2)))
    separation = check_number(o, "separation", separation, lo=0.0, hi=POSE_RANGE, lo_open=True)
    kp_scale = check_number(o, "kp_scale", kp_scale, lo=0.0, hi=MAX_GAIN_SCALE, lo_open=True)
    kd_scale = check_number(o, "kd_scale", kd_scale, lo=0.0, hi=MAX_GAIN_SCALE)
    check_whole(o, "seed", seed, hi=2**64 - 1)
    phi, theta = configuration(y_b, separation=separation, y2=y2)
    try:
        pt = analyse(phi, theta, kp_scale * np.asarray(TUNED_KP), kd_scale * np.asarray(TUNED_KD), y_b=y_b)
    except InputError as exc:  # a singular configuration (foot 2 above foot 1) or gains with no answer
        raise InputError(f"{o}: y_b = {y_b:g} m, separation = {separation:g} m, y2 = {y2:g} m with the tuned "
                         f"gains scaled by kp_scale = {kp_scale:g}, kd_scale = {kd_scale:g}: {exc}") from None
    off = ~np.eye(4, dtype=bool)
    row = {"stable": float(pt.stable), "max_pole_real": float(pt.poles.real.max()),
           "min_zeta": float(pt.zeta.min()), "joint_excess": float(pt.joint_excess.max()),
           "coupling_db": float(20.0 * np.log10(pt.peak_position[off].max())),
           "coupling_rate_db": float(20.0 * np.log10(pt.peak[off].max()))}
    for name, bw, bw_rate in zip(LOOPS, pt.bandwidth_position, pt.bandwidth, strict=True):
        row[f"bw_{name}"] = float(bw)
        row[f"bw_rate_{name}"] = float(bw_rate)
    return row
