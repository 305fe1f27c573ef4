"""The CRR leg's cyclic walking motion: foot path → inverse kinematics → joint references.

Daepp (2011) Fig. 44 (digest §5.2, §7 item 11): the operator moved the leg with the Phantom
through a cyclic foot path — from the rear bottom up, forward to the front bottom, then dragged back
along the ground — first slowly, then at medium speed, then fast; the recorded joint trajectories
drove the simulation. The recording is not available, so :class:`WalkingPath` generates a path of
that shape (the speeds, stride and lift are ours), :func:`inverse_kinematics` turns foot positions
into joint angles with the leg's own forward kinematics (the :mod:`legsim.multibody` model of
:func:`.geometry.crr_leg_bodies`, foot frame ``foot``; no second kinematic model), and
:func:`walking_references` samples the path into three piecewise-linear :class:`.leg.JointReference`.

Frames and units: positions [m] in the leg's base (world) frame of :func:`.geometry.crr_leg_bodies`
(z up, coxa along +y at Alpha = 0); the walking direction is +x. Angles [rad], times [s].
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import (
    InputError,
    as_float,
    as_floats,
    check_fields,
    check_number,
    check_text,
    check_whole,
    shown,
)
from ...multibody import Model as BodyModel
from ...multibody import forward_kinematics, frame_jacobian, frame_placement
from ..pneumatic_rig.metrics import lag_by_xcorr, rmse
from ._joint_kernels import NTAB
from .geometry import JOINT_LIMITS, crr_leg_bodies
from .leg import JOINTS, JointReference, LegRun

__all__ = ["NOMINAL_POSTURE_DEG", "WalkingPath", "foot_position", "inverse_kinematics",
           "walking_references", "tracking_rmse", "lag_compensated_rmse", "plot_tracking"]

NOMINAL_POSTURE_DEG = (20.0, -20.0, 75.0)
"""Alpha, Beta, Gamma [deg] whose foot position is the default mid-stance point on the ground."""


@lru_cache(maxsize=1)
def _default_bodies() -> BodyModel:
    return crr_leg_bodies()


def _bodies(bodies: BodyModel | None) -> BodyModel:
    return _default_bodies() if bodies is None else bodies


def _point(p, name: str) -> np.ndarray:
    a = as_floats(p)
    if a.shape != (3,) or not np.all(np.abs(a) <= 1e6):  # a leg's lengths and angles, far inside
        raise InputError(f"{name}={p!r}: expected three finite numbers (x, y, z) [m] (or angles [rad]) "
                         "within ±1e6")
    return a


def foot_position(q, bodies: BodyModel | None = None) -> np.ndarray:
    """Foot (tibia tip) position (3,) [m] at joint angles ``q`` = (Alpha, Beta, Gamma) [rad]: the
    placement of frame ``foot`` after :func:`legsim.multibody.forward_kinematics`."""
    m = _bodies(bodies)
    data = m.make_data()
    forward_kinematics(m, data, _point(q, "q"))
    return frame_placement(m, data, "foot")[:3, 3].copy()


def _start(q_guess) -> str:
    """Where :func:`inverse_kinematics` started, for its messages."""
    return "the nominal posture" if q_guess is None else f"q_guess = {np.round(q_guess, 4).tolist()} rad"


def inverse_kinematics(target, q_guess=None, bodies: BodyModel | None = None, tol: float = 1e-12,
                       max_iter: int = 60) -> np.ndarray:
    """Joint angles (3,) [rad] placing the foot at ``target`` (3,) [m].

    Newton–Raphson on r(q) = target − FK(q) with the multibody foot Jacobian J (linear rows,
    world axes), slightly damped (Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ r, λ = 1e-9 m) and limited to 0.2 rad
    per iteration so that it stays on the branch of ``q_guess`` (default
    :data:`NOMINAL_POSTURE_DEG`). Converged when |r| < ``tol`` [m].

    Raises
    ------
    InputError
        If the iteration does not converge (the point is out of the leg's reach) or the solution
        leaves the joint ranges of digest §2.6.
    """
    m = _bodies(bodies)
    p = _point(target, "target")
    tol = check_number("inverse_kinematics", "tol", tol, lo=0.0, hi=1.0, lo_open=True)  # [m]
    max_iter = check_whole("inverse_kinematics", "max_iter", max_iter, 1, 10**6)
    q = np.radians(NOMINAL_POSTURE_DEG) if q_guess is None else _point(q_guess, "q_guess").copy()
    data = m.make_data()
    lam2 = 1e-18
    err = math.inf
    for _ in range(max_iter):
        forward_kinematics(m, data, q)
        r = p - frame_placement(m, data, "foot")[:3, 3]
        err = float(np.linalg.norm(r))
        if err < tol:
            break
        J = frame_jacobian(m, data, q, "foot")[:3]
        try:
            dq = J.T @ np.linalg.solve(J @ J.T + lam2 * np.eye(3), r)
        except np.linalg.LinAlgError:  # a singular posture (a straight leg): λ is below J Jᵀ's round-off
            dq = np.linalg.pinv(J) @ r
        step = float(np.abs(dq).max())
        if step > 0.2:
            dq *= 0.2 / step
        q = q + dq
    else:
        raise InputError(f"foot target {p.tolist()} m: out of the leg's reach, or not reached from "
                         f"{_start(q_guess)} (inverse kinematics left a residual of {err:.3g} m after "
                         f"{max_iter} iterations)")
    for j, (lo, hi) in enumerate(JOINT_LIMITS):
        if not lo - 1e-12 <= q[j] <= hi + 1e-12:
            raise InputError(f"foot target {p.tolist()} m needs {JOINTS[j]} = "
                             f"{math.degrees(q[j]):.2f} deg on the branch of {_start(q_guess)}: expected "
                             f"within the joint range [{math.degrees(lo):.0f}, {math.degrees(hi):.0f}] deg")
    return q


@dataclass(frozen=True)
class WalkingPath:
    """Fig. 44's cyclic foot path: rear bottom → up → front bottom (swing), then dragged back along
    the ground (stance), repeated once per entry of ``periods`` (slow, medium, fast).

    Parameters
    ----------
    centre : mid-stance foot point on the ground (3,) [m]; None = the foot at
        :data:`NOMINAL_POSTURE_DEG`.
    stride : stance length along +x [m]; lift : swing apex height above the ground [m].
    swing_fraction : share of each cycle spent in the swing (0 < s < 1).
    periods : cycle durations [s], in order. Default: two slow (4 s), two medium (2.5 s) and two
        fast (1.5 s) cycles; the source says "several" of each and gives no durations (ours).
    t_start : time the first cycle starts [s]; the foot waits at the rear bottom before (1 s lets
        the leg settle from :meth:`.leg.LegBench.initial_state`'s mid pressures).
    swing_points, stance_points : samples per swing and per stance, which
        :func:`walking_references` joins linearly in joint space.

    The swing is the half ellipse x = x_c − s/2 + s (1 − cos πu)/2, z = z_g + h sin πu (u ∈ [0, 1]);
    the stance is the straight line back at constant speed, so the path is closed and continuous.
    """

    centre: tuple | None = None
    stride: float = 0.16
    lift: float = 0.05
    swing_fraction: float = 0.4
    periods: tuple = (4.0, 4.0, 2.5, 2.5, 1.5, 1.5)
    t_start: float = 1.0
    swing_points: int = 6
    stance_points: int = 3

    def __post_init__(self) -> None:
        if self.centre is not None:
            _point(self.centre, "centre")
        check_fields("WalkingPath", self, positive=("t_start",))
        for name in ("stride", "lift"):  # [m], within a metre: the leg reaches ~0.3 m
            check_number("WalkingPath", name, getattr(self, name), lo=0.0, lo_open=True, hi=1.0)
        if not 0.0 < as_float(self.swing_fraction) < 1.0:
            raise InputError(f"WalkingPath: swing_fraction={self.swing_fraction!r}, expected in (0, 1)")
        periods = self.periods
        if not (isinstance(periods, (tuple, list)) and periods
                and all(math.isfinite(as_float(T)) and T > 0.0 for T in periods)):
            raise InputError(f"WalkingPath: periods={periods!r} s, expected positive durations")
        for name, least in (("swing_points", 2), ("stance_points", 1)):
            object.__setattr__(self, name, check_whole("WalkingPath", name, getattr(self, name), least, NTAB))
        n = len(self.periods) * (self.swing_points + self.stance_points) + 2
        if n > NTAB:
            raise InputError(f"WalkingPath: {n} reference points ({len(self.periods)} cycles of "
                             f"{self.swing_points} + {self.stance_points}, plus 2), at most "
                             f"{NTAB} supported")

    def ground_centre(self, bodies: BodyModel | None = None) -> np.ndarray:
        """Mid-stance point (3,) [m]."""
        if self.centre is not None:
            return np.asarray(self.centre, dtype=float)
        return foot_position(np.radians(NOMINAL_POSTURE_DEG), bodies)

    def foot_point(self, phase, bodies: BodyModel | None = None) -> np.ndarray:
        """Foot positions (n, 3) [m] at cycle phases ``phase`` (n,) in [0, 1) (0 = rear bottom)."""
        ph = np.mod(np.atleast_1d(np.asarray(phase, dtype=float)), 1.0)
        c = self.ground_centre(bodies)
        s, sf = self.stride, self.swing_fraction
        swing = ph < sf
        u = np.where(swing, ph / sf, (ph - sf) / (1.0 - sf))
        out = np.empty((ph.size, 3))
        out[:, 0] = np.where(swing, c[0] - 0.5 * s + 0.5 * s * (1.0 - np.cos(np.pi * u)),
                             c[0] + 0.5 * s - s * u)
        out[:, 1] = c[1]
        out[:, 2] = c[2] + np.where(swing, self.lift * np.sin(np.pi * u), 0.0)
        return out

    def cycle_phases(self) -> np.ndarray:
        """Sample phases of one cycle (swing_points + stance_points,), from 0, increasing."""
        sf = self.swing_fraction
        return np.concatenate([sf * np.arange(self.swing_points) / self.swing_points,
                               sf + (1.0 - sf) * np.arange(self.stance_points) / self.stance_points])

    def knots(self, bodies: BodyModel | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Sample times (n,) [s] and foot points (n, 3) [m]: rest at the rear bottom from t = 0,
        each cycle's samples, and the rear bottom again at the end of the last cycle."""
        ph = self.cycle_phases()
        times = [0.0]
        phases = [0.0]
        t = self.t_start
        for T in self.periods:
            times.extend(t + T * ph)
            phases.extend(ph)
            t += T
        times.append(t)
        phases.append(0.0)
        return np.asarray(times), self.foot_point(np.asarray(phases), bodies)

    @property
    def duration(self) -> float:
        """Time [s] at which the last cycle ends."""
        return self.t_start + float(sum(self.periods))


def _ik_path(points: np.ndarray, bodies: BodyModel | None) -> np.ndarray:
    """Joint angles (n, 3) for foot points (n, 3), each solve started from the previous one."""
    q = np.radians(NOMINAL_POSTURE_DEG)
    out = np.empty((len(points), 3))
    for i, pt in enumerate(points):
        q = inverse_kinematics(pt, q, bodies)
        out[i] = q
    return out


def walking_references(path: WalkingPath | None = None, bodies: BodyModel | None = None,
                       repeat: bool = False) -> tuple[JointReference, JointReference, JointReference]:
    """Alpha, Beta, Gamma references [rad] following ``path`` (default :class:`WalkingPath`).

    The path's sample points go through :func:`inverse_kinematics` and become piecewise-linear
    tables (``interpolate="linear"``). ``repeat=True`` (with a single period) instead gives one
    cycle from ``t_start`` repeated every period (``JointReference.period``), for arbitrarily long
    runs. Raises :class:`InputError` if a sample point is out of reach or outside the joint ranges.
    """
    path = WalkingPath() if path is None else path
    if not isinstance(path, WalkingPath):
        raise InputError(f"path: expected a WalkingPath, got {type(path).__name__}")
    if not (bodies is None or isinstance(bodies, BodyModel)):
        raise InputError(f"bodies = {bodies!r}: expected None or a legsim.multibody.Model (crr_leg_bodies())")
    if repeat:
        if len(path.periods) != 1:
            raise InputError(f"repeat=True needs a single cycle period, got periods={path.periods!r}")
        period = float(path.periods[0])
        times = path.t_start + period * path.cycle_phases()
        q = _ik_path(path.foot_point(path.cycle_phases(), bodies), bodies)
    else:
        period = 0.0
        times, pts = path.knots(bodies)
        q = _ik_path(pts, bodies)
    a, b, g = (JointReference(steps=tuple(zip(times.tolist(), q[:, j].tolist(), strict=True)),
                              interpolate="linear", period=period) for j in range(3))
    return a, b, g


def _window(owner: str, run: LegRun, t_from, t_to) -> np.ndarray:
    """The records of ``run`` (a :class:`LegRun`) in [t_from, t_to] [s] (finite numbers; ``t_to`` None: to the
    end), at least two, else an :class:`InputError` naming ``owner`` and the argument."""
    if not isinstance(run, LegRun):
        raise InputError(f"{owner}: 'run' = {shown(run)}, expected a LegRun (LegBench.run)")
    t_from = check_number(owner, "t_from", t_from)
    t_to = run.t[-1] if t_to is None else check_number(owner, "t_to", t_to)
    sel = (run.t >= t_from) & (run.t <= t_to)
    if np.count_nonzero(sel) < 2:
        raise InputError(f"{owner}: the window 't_from' = {t_from!r} … 't_to' = {float(t_to)!r} s holds "
                         f"fewer than two samples of the run ({float(run.t[0])!r} … {float(run.t[-1])!r} s)")
    return sel


def tracking_rmse(run: LegRun, t_from: float = 0.0, t_to: float | None = None) -> np.ndarray:
    """Root-mean-square joint error (3,) [rad] of ``run`` against its own references over
    [t_from, t_to] [s] (default to the end). This is reference tracking; the thesis's RMSEs
    (digest §5.2) compare the simulation with the measured robot, which we do not have."""
    sel = _window("tracking_rmse", run, t_from, t_to)
    return np.array([rmse(run.q[sel, j], run.ref[sel, j]) for j in range(3)])


def lag_compensated_rmse(run: LegRun, t_from: float = 0.0, t_to: float | None = None,
                         max_lag: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(RMSE (3,) [rad], lag (3,) [s]): each joint's lag behind its reference by cross-correlation
    (:func:`..pneumatic_rig.metrics.lag_by_xcorr`, up to ``max_lag`` [s], a finite number >= 0), then the
    RMSE against the reference delayed by that lag, θ_ref(t − lag), over [t_from, t_to]. It separates the
    loop's pure delay (shared by the simulated and the real robot) from errors in the motion's shape."""
    o = "lag_compensated_rmse"
    sel = _window(o, run, t_from, t_to)
    max_lag = check_number(o, "max_lag", max_lag, lo=0.0)  # [s]
    t = run.t[sel]
    out = np.empty(3)
    lags = np.empty(3)
    for j in range(3):
        lags[j] = lag_by_xcorr(t, run.q[sel, j], run.ref[sel, j], max_lag=max_lag)
        out[j] = rmse(run.q[sel, j], np.interp(t - lags[j], run.t, run.ref[:, j]))
    return out, lags


def plot_tracking(run: LegRun, filename, title: str = "") -> None:
    """Joint angle and reference [deg] vs time [s] for Alpha, Beta and Gamma (Figs. 44–45 style),
    written to ``filename`` (any format matplotlib's Agg canvas writes, by its suffix, e.g. PNG; its folder
    is made), with ``title`` (a string) over them."""
    from matplotlib.figure import Figure

    from ..pneumatic_rig.scenarios import _figure_file

    o = "plot_tracking"
    if not isinstance(run, LegRun):
        raise InputError(f"{o}: 'run' = {shown(run)}, expected a LegRun (LegBench.run)")
    filename = _figure_file(o, "filename", filename)
    title = check_text(o, "title", title)

    fig = Figure(figsize=(8.0, 7.0))
    axes = fig.subplots(3, 1, sharex=True)
    for j, ax in enumerate(axes):
        ax.plot(run.t, np.degrees(run.ref[:, j]), "k--", lw=1.0, label="reference")
        ax.plot(run.t, np.degrees(run.q[:, j]), lw=1.2, label="simulation")
        ax.set_ylabel(f"{JOINTS[j].capitalize()} [deg]")
        ax.grid(alpha=0.3)
    axes[0].legend(loc="best")
    axes[-1].set_xlabel("time [s]")
    if title:
        axes[0].set_title(title)
    fig.tight_layout()
    fig.savefig(filename)
