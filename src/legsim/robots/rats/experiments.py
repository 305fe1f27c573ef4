"""RATS experiments on the full robot (Wagenknecht (2009) ch. 4 and §6.1; digest §4 E6, E7, E10–E13).

* :func:`tip_threshold` — E6: the shortest whole-ms firing that tips the robot from rest onto the
  predicted stance (bisection), at a given tank charge.
* :func:`calibrate_tip_model` — E6 → (6.6): thresholds over a range of pressures fitted with the
  thesis's power law ``t = a (P_s - c_res)^b + c_lat`` (scipy ``curve_fit``), as the thesis fitted
  its legs. :data:`SIM_TIP_MODEL` holds the fit for the default robot (rubber-seat valves, tipping
  contact set); the thesis's Table 6.1 values belong to its hardware, not to this model.
* :func:`per_leg_hops` — E7: every leg's 40 ms hop at three charges; :func:`leak_hop_ratio` — E10: the
  hop after the tank has leaked with no firing.
* :func:`range_run` — E11–E13 / T12: open-loop straight-line tipping from one charge, the planner
  choosing the legs, each firing timed by (6.6) at the estimated core pressure (the depletion
  estimator of §3.3, "with compensation") or at the initial charge ("without"), until a tip does not
  land on the planned stance.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, fields

import numpy as np

from ..._progress import check_progress, counter
from ...errors import (
    InputError,
    check_array,
    check_flag,
    check_number,
    check_values,
    check_whole,
    lookup,
    shown,
)
from ...multibody._spatial import quat_to_rot
from .geometry import (
    GRAVITY_DIRECTIONS,
    LEG_STANCES,
    N_LEGS,
    N_STANCES,
    TRANSITIONS,
    RatsDims,
    resting_rotation,
    resting_stance,
)
from .geometry import LEG_DIRECTIONS as _LEGS
from .hopping import MAX_FIRING_MS
from .planner import line_path, plan
from .robot import CONTROL_PERIOD, MAX_P0, RatsRobot, _check_rats, build
from .rolling import MAX_ANGLE, MAX_RATE
from .valve_time import DepletionEstimator, TipStrengthModel

__all__ = ["stance_now", "tip_threshold", "calibrate_tip_model", "SIM_TIP_MODEL", "SIM_TIP_MODEL_SPOOL",
           "SIM_TIP_SLIP",
           "RangeResult",
           "range_run", "measure_tip_slip", "RollTrial", "roll", "roll_trial", "rolling_start",
           "ROLL_OBJECTIVE", "T13_ROBOT",
           "tune_rolling",
           "SIM_ROLLING_PARAMS", "EnduranceResult", "endurance_run", "fire_once", "E7_PRESSURES",
           "per_leg_hops", "leak_hop_ratio", "E1_LATENCY_MS", "HopLanding", "hop_landing", "MAX_DURATION",
           "MAX_TIPS", "MAX_STARTS", "MAX_EVALUATIONS", "MAX_SIMPLEX_STEP"]

MAX_DURATION = 86400.0
"""Longest simulated time [s] an experiment takes for one run, a settling, a roll or the firings of an
endurance run together: a day (hours of wall time; the thesis's longest runs last minutes), so that a
typo (1e300 s) is refused instead of running for ever."""

MAX_TIPS = 10_000
"""Most tips a range run takes (the thesis's runs made tens; each tip simulates about a second)."""

MAX_STARTS = 10_000
"""Most random starts :func:`tune_rolling` rolls at every evaluation (its tuning used 8)."""

MAX_EVALUATIONS = 100_000
"""Most objective evaluations :func:`tune_rolling` makes (its tuning made 80, 17 min)."""

MAX_SIMPLEX_STEP = 10.0
"""Largest initial simplex step of :func:`tune_rolling`, as a fraction of each parameter's value (0.25 by
default; a vertex at 11 times the value probes parameters the controller refuses or never rolls with)."""

_BUILD_KEYWORDS = tuple(inspect.signature(build).parameters)


def _stance(owner: str, stance) -> int:
    return check_whole(owner, "stance", stance, 0, N_STANCES - 1)


def _leg(owner: str, leg) -> int:
    return check_whole(owner, "leg", leg, 0, N_LEGS - 1)


def _angle(owner: str, name: str, value) -> float:
    return check_number(owner, name, value, lo=-MAX_ANGLE, hi=MAX_ANGLE)  # [rad]


def _duration(owner: str, name: str, value, lo: float = 0.0) -> float:
    """A simulated time [s] in (``lo``, :data:`MAX_DURATION`] (``lo`` 0) or [``lo``, MAX_DURATION]."""
    return check_number(owner, name, value, lo=lo, lo_open=lo == 0.0, hi=MAX_DURATION)


def _firing(owner: str, name: str, value, lo: int = 1) -> int:
    """A valve firing [whole ms] in [``lo``, :data:`~.hopping.MAX_FIRING_MS`]."""
    return check_whole(owner, name, value, lo, MAX_FIRING_MS)


def _integrator(owner: str, integrator) -> str:
    if not (isinstance(integrator, str) and integrator in ("rk4", "euler")):
        raise InputError(f"{owner}: 'integrator' = {shown(integrator)}, expected \"rk4\" or \"euler\"")
    return integrator


def _build_keywords(owner: str, kw: dict, taken: tuple[str, ...] = (), what: str = "build keyword") -> None:
    """Refuse a keyword of ``kw`` that :func:`~.robot.build` does not take, or one of ``taken`` (set by
    ``owner`` itself), before anything is built or simulated; their values :func:`~.robot.build` checks."""
    for key in kw:
        if key in taken:
            raise InputError(f"{owner}: {what} {key!r} is set by {owner} itself; expected none of "
                             f"{', '.join(taken)}")
        lookup(what, key, [k for k in _BUILD_KEYWORDS if k not in taken], owner)


def stance_now(quat) -> int:
    """:func:`~.geometry.resting_stance` of the shell quaternion (x, y, z, w)."""
    q = check_array("stance_now", "quat", quat, (4,))
    if not (np.all(np.abs(q) <= 2.0) and 0.5 < float(q @ q) < 2.0):
        raise InputError(f"stance_now: 'quat' = {q.tolist()}: expected a unit quaternion (x, y, z, w)")
    x, y, z, w = (q / np.sqrt(q @ q)).tolist()
    R = np.empty((3, 3))
    quat_to_rot(x, y, z, w, R)
    return resting_stance(R)


def fire_once(leg: int, ms: int):
    """A policy that fires ``leg`` (0-based) for ``ms`` whole ms (0 to :data:`~.hopping.MAX_FIRING_MS`) at
    its first tick, then nothing."""
    leg, ms = _leg("fire_once", leg), _firing("fire_once", "ms", ms, lo=0)
    fired = [False]

    def policy(obs):
        if fired[0]:
            return None
        fired[0] = True
        return [(leg, ms)]

    return policy


def _tips(rats: RatsRobot, ms: int, stance: int, leg: int, yaw: float, settle: float) -> bool:
    q0 = rats.q_rest(stance, yaw)
    res = rats.simulate(settle, fire_once(leg, ms), q0=q0)
    return stance_now(res.x[-1, 3:7]) == TRANSITIONS[stance, leg]


def tip_threshold(p0: float, *, leg: int = 0, stance: int = 0, yaw: float = 0.2, lo: int = 4, hi: int = 120,
                  step: int = 4, settle: float = 1.0, **build_kw) -> int:
    """E6: the shortest firing [whole ms] of ``leg`` (0-based) from rest on ``stance`` that tips the
    robot onto ``TRANSITIONS[stance, leg]``, at tank charge ``p0`` [Pa gauge]: firings from ``lo`` up
    in steps of ``step`` ms until one tips (longer firings can tip twice, so the search does not
    bisect from above), then bisection to 1 ms; each trial settles for ``settle`` s (at most
    :data:`MAX_DURATION`). An InputError when nothing up to ``hi`` (at most
    :data:`~.hopping.MAX_FIRING_MS`) tips. ``build_kw`` go to :func:`~.robot.build` (default: rubber-seat
    valves, tipping contact set)."""
    o = "tip_threshold"
    leg, stance, yaw = _leg(o, leg), _stance(o, stance), _angle(o, "yaw", yaw)
    hi = _firing(o, "hi", hi)
    lo = check_whole(o, "lo", lo, 0, MAX_FIRING_MS)
    if lo >= hi:
        raise InputError(f"{o}: 'lo' = {lo} ms, expected below 'hi' = {hi} ms")
    step = check_whole(o, "step", step, 1, MAX_FIRING_MS)
    if lo + step > hi:
        raise InputError(f"{o}: 'step' = {step} ms, expected at most 'hi' - 'lo' = {hi - lo} ms (the first "
                         "firing after 'lo' is 'lo' + 'step')")
    settle = _duration(o, "settle", settle)
    _build_keywords(o, build_kw)
    build_kw.setdefault("valve", "rubber")
    build_kw.setdefault("contact_set", "tipping")
    rats = build(p0=p0, **build_kw)
    below = lo
    if _tips(rats, below, stance, leg, yaw, settle):
        raise InputError(f"tip_threshold at {p0:g} Pa: lo = {lo} ms already tips; lower it")
    above = below + step
    while not _tips(rats, above, stance, leg, yaw, settle):
        below, above = above, above + step
        if above > hi:
            raise InputError(f"tip_threshold at {p0:g} Pa: no firing up to hi = {hi} ms tips the robot")
    while above - below > 1:
        mid = (below + above) // 2
        below, above = (below, mid) if _tips(rats, mid, stance, leg, yaw, settle) else (mid, above)
    return above


def _power_law(p, a, b, c_res, c_lat):
    return a * np.maximum(p - c_res, 1e-6) ** b + c_lat


def calibrate_tip_model(pressures_mpa=(0.15, 0.2, 0.3, 0.45, 0.6, 0.689, 0.8), *,
                        progress: bool | None = None, **threshold_kw):
    """E6 → (6.6) on the simulated robot: thresholds [ms] at ``pressures_mpa`` [MPa gauge] and the
    power law fitted to them. Returns (TipStrengthModel with every leg's c_res, c_lat the fitted ones,
    thresholds (n,) [ms]). The robot is symmetric, so one leg over one edge stands for all.
    ``pressures_mpa``: at least 4 different charges (the law's 4 parameters) in (0, :data:`~.robot.MAX_P0`].
    ``threshold_kw`` go to :func:`tip_threshold` (all but ``p0``).
    ``progress``: a bar of the pressures done (None: on a terminal, :mod:`legsim._progress`)."""
    import warnings

    from scipy.optimize import OptimizeWarning, curve_fit

    o = "calibrate_tip_model"
    check_progress(progress, o)
    p = check_values(o, "pressures_mpa", pressures_mpa, lo=0.0, lo_open=True, hi=MAX_P0 * 1e-6, unit="MPa")
    if p.ndim != 1 or np.unique(p).size < 4:
        raise InputError(f"{o}: 'pressures_mpa' = {shown(pressures_mpa)}, expected a list of at least 4 "
                         "different charges [MPa gauge] (the power law has 4 parameters)")
    if "p0" in threshold_kw:
        raise InputError(f"{o}: 'p0' = {shown(threshold_kw['p0'])}: the charges are 'pressures_mpa'")
    th = np.empty(p.size)
    with counter(p.size, unit="pressure", desc="E6 thresholds", progress=progress) as bar:
        for i, pi in enumerate(p):
            th[i] = tip_threshold(pi * 1e6, **threshold_kw)
            bar.update()
    with warnings.catch_warnings():  # with 4 charges the fit interpolates: no covariance (it is not used)
        warnings.simplefilter("ignore", OptimizeWarning)
        low, high = [0.0, -5.0, 0.0, -50.0], [1e3, -0.05, float(p.min()), 50.0]
        (a, b, c_res, c_lat), _ = curve_fit(_power_law, p, th, p0=(5.0, -1.0, min(0.05, float(p.min())), 5.0),
                                            bounds=(low, high))
    return TipStrengthModel(a=float(a), b=float(b), c_resistance=(float(c_res),) * N_LEGS,
                            c_latency=(float(c_lat),) * N_LEGS), th


SIM_TIP_MODEL = TipStrengthModel(a=9.1458, b=-0.72506, c_resistance=(0.054192,) * N_LEGS,
                                 c_latency=(6.9347,) * N_LEGS)
"""(6.6) fitted to the default robot (rubber-seat valves, tipping set, leg 1 from stance 0) by
:func:`calibrate_tip_model`: thresholds 57, 44, 32, 25, 21, 20, 18 ms at 0.15, 0.2, 0.3, 0.45, 0.6,
0.689, 0.8 MPa gauge, fitted within 0.35 ms. The thesis's shape (a = 2.2584 ms MPa^-b, b = -1.1795)
is steeper: its 0.689 MPa thresholds are 6-9 ms, where this model's valve needs 20 (its effective
C_v was fitted to the hop height E4, not to tipping)."""


SIM_TIP_MODEL_SPOOL = TipStrengthModel(a=4.8506, b=-1.1202, c_resistance=(0.011662,) * N_LEGS,
                                       c_latency=(18.525,) * N_LEGS)
"""The same fit with the spool-and-sleeve valves (``calibrate_tip_model(valve="spool")``, 10 s): thresholds
63, 50, 38, 31, 27, 26, 25 ms at the same pressures, fitted within 0.31 ms. Its c_lat includes the
valves' 13.16 ms latency; its exponent is near the thesis's (-1.12 against -1.1795)."""


SIM_TIP_SLIP = 0.049
"""The motion model's slip (§3.2 step 5, "tunable for the surface") for the default robot: how far
past the reflected stance each tip carries the centre along the tip direction [m]
(:func:`measure_tip_slip`: 0.0489 +- 0.0020 m over 30 tips at 0.689 MPa with 2 ms margin; each tip
is a short hop, see ``test_rats_robot.test_long_firing_is_a_hop``)."""


@dataclass
class RangeResult:
    """An open-loop tipping run: ``tips`` successful tips before the first failure (or the cap),
    ``distance`` [m] straight-line displacement of the centre over them, ``failed`` (whether a tip
    failed), ``durations`` (n,) [ms] commanded, ``p_true`` / ``p_estimate`` (n,) core pressure [MPa
    gauge] at each firing (simulated / estimated), ``centres`` (n + 1, 2) [m]."""

    tips: int
    distance: float
    failed: bool
    durations: np.ndarray
    p_true: np.ndarray
    p_estimate: np.ndarray
    centres: np.ndarray


def _idle(obs):
    return None


def _settle(rats: RatsRobot, x, t, policy=_idle, *, first: float, chunk: float = 0.1, longest: float = 3.0,
            v_rest: float = 0.01, w_rest: float = 0.05, x_rest: float = 2e-3):
    """Simulate from (x, t) with ``policy`` for ``first`` s, then without firing in ``chunk`` s pieces
    until the shell is at rest (centre speed < ``v_rest`` m/s, angular speed < ``w_rest`` rad/s, every
    leg retracted within ``x_rest`` m) or ``longest`` s have passed. Returns the new (x, t)."""
    t_end = t + longest
    res = rats.simulate(t + first, policy, x0=x, t0=t)
    x, t = res.x[-1], float(res.t[-1])
    while t < t_end and (np.linalg.norm(x[19:22]) >= v_rest or np.linalg.norm(x[22:25]) >= w_rest
                         or x[7:19].max() >= x_rest):
        res = rats.simulate(t + chunk, None, x0=x, t0=t)   # no controller: no engine stop at each tick
        x, t = res.x[-1], float(res.t[-1])
    return x, t


def range_run(*, compensate: bool = True, p0: float = 0.689e6, model: TipStrengthModel | None = None,
              margin_ms: int = 0, max_tips: int = 400, stance: int = 0, yaw: float = 0.2,
              heading: float = 0.0, valve: str = "rubber", contact_set: str = "tipping",
              progress: bool | None = None, **build_kw) -> RangeResult:
    """E11–E13 / T12: tip along a straight line from one charge ``p0`` [Pa gauge] until a tip fails.

    The planner (§3.2, γ = 1.5) picks the legs for a line toward ``heading`` [rad]. Each leg is fired
    once the robot has come to rest after the previous tip (the accelerometer's cue, §3.4; the thesis's
    open-loop runs fired on a timer whose period it does not give), for ``model``'s (6.6) time
    (default :data:`SIM_TIP_MODEL`) + ``margin_ms``, at the core pressure estimated by
    :class:`DepletionEstimator` fed with every firing (``compensate``) or at the initial charge (not).
    A tip fails when the robot does not rest on the planned stance; the run stops there, as the
    thesis's did, or after ``max_tips`` (at most :data:`MAX_TIPS`). ``margin_ms``: whole ms, at most
    :data:`~.hopping.MAX_FIRING_MS`. ``progress``: a count of the tips (None: on a terminal,
    :mod:`legsim._progress`).
    """
    o = "range_run"
    compensate = check_flag(o, "compensate", compensate)
    if not (model is None or isinstance(model, TipStrengthModel)):
        raise InputError(f"{o}: 'model' = {shown(model)}, expected None or a TipStrengthModel")
    margin_ms = _firing(o, "margin_ms", margin_ms, lo=0)
    max_tips = check_whole(o, "max_tips", max_tips, 1, MAX_TIPS)
    stance, yaw, heading = _stance(o, stance), _angle(o, "yaw", yaw), _angle(o, "heading", heading)
    check_progress(progress, o)
    _build_keywords(o, build_kw)
    model = SIM_TIP_MODEL if model is None else model
    rats = build(valve=valve, contact_set=contact_set, p0=p0, **build_kw)
    est = (DepletionEstimator if valve == "rubber" else DepletionEstimator.spool)(p0_mpa=p0 * 1e-6)
    length = max_tips * rats.dims.lattice_step
    seq = plan(line_path((0.0, 0.0), (length * math.cos(heading), length * math.sin(heading))), stance,
               yaw=yaw, dims=rats.dims, max_firings=max_tips)
    tank = rats.model.state_names.index("tank_p")
    p_atm = rats.robot.resources[0].tank.p_atm
    x0 = rats.robot.initial_state(rats.q_rest(stance, yaw))
    x, t = _settle(rats, x0, 0.0, first=0.2)
    centres, durations, p_true, p_est = [x[:2].copy()], [], [], []
    failed = False
    label = f"tipping ({valve} valves, {'with' if compensate else 'without'} compensation)"
    with counter(None, unit=" tips", desc=label, progress=progress) as bar:
        for leg, planned, _ in seq.steps():
            p_now = est.advance(t) if compensate else p0 * 1e-6
            try:
                ms = int(model.duration_ms(leg, p_now)) + margin_ms
            except InputError:   # (6.6) diverges: the estimate says no firing can tip any more
                failed = True
                break
            durations.append(ms)
            p_true.append((x[tank] - p_atm) * 1e-6)
            p_est.append(p_now)
            est.fire(ms, t)
            x, t = _settle(rats, x, t, fire_once(leg, ms), first=0.5)
            if stance_now(x[3:7]) != planned:
                failed = True
                break
            centres.append(x[:2].copy())
            bar.update()
    c = np.array(centres)
    return RangeResult(len(c) - 1, float(np.linalg.norm(c[-1] - c[0])), failed, np.array(durations),
                       np.array(p_true), np.array(p_est), c)


def measure_tip_slip(tips: int = 30, **range_kw) -> tuple[float, float]:
    """Mean and standard deviation [m] of the slip per tip along the tip direction: each tip's centre
    displacement in a :func:`range_run` of ``tips`` tips (1 to :data:`MAX_TIPS`; ``range_kw`` go there,
    ``margin_ms`` 2 by default) minus the motion model's reflection (slip 0). An InputError when the
    first tip already fails (no tip to measure)."""
    o = "measure_tip_slip"
    tips = check_whole(o, "tips", tips, 1, MAX_TIPS)
    for key in ("compensate", "max_tips"):
        if key in range_kw:
            raise InputError(f"{o}: {key!r} = {shown(range_kw[key])}: set by measure_tip_slip itself "
                             "(compensation on, 'tips' tips)")
    range_kw.setdefault("margin_ms", 2)
    r = range_run(compensate=True, max_tips=tips, **range_kw)
    if r.tips == 0:
        raise InputError(f"{o}: the first tip did not land on its planned stance, so there is no slip to "
                         f"measure (the run's settings: {range_kw}; a higher 'p0' or 'margin_ms' lands it)")
    dims = range_kw.get("dims") or RatsDims()
    heading = float(range_kw.get("heading", 0.0))
    length = tips * dims.lattice_step
    seq = plan(line_path((0.0, 0.0), (length * math.cos(heading), length * math.sin(heading))),
               range_kw.get("stance", 0), yaw=range_kw.get("yaw", 0.2), dims=dims, max_firings=tips)
    model = np.diff(seq.centres[:r.tips + 1], axis=0)
    true = np.diff(r.centres - r.centres[0], axis=0)
    step = np.linalg.norm(model, axis=1)
    slip = np.einsum("ij,ij->i", true, model / step[:, None]) - step
    return float(slip.mean()), float(slip.std())


@dataclass
class RollTrial:
    """One rolling run: ``distance`` [m] and ``heading_error`` [rad] of the net displacement, speeds
    [m/s] over the first and last second."""

    distance: float
    heading_error: float
    v_first: float
    v_last: float

    @classmethod
    def of(cls, res, heading: float) -> RollTrial:
        """The figures of :func:`roll`'s result ``res`` (a run of at least 1 s, with at least two records in
        each of its first and last second) rolled toward ``heading`` [rad]."""
        o = "RollTrial.of"
        heading = _angle(o, "heading", heading)
        t, x = getattr(res, "t", None), getattr(res, "x", None)
        if not (isinstance(t, np.ndarray) and isinstance(x, np.ndarray) and t.ndim == 1 and x.ndim == 2
                and len(t) == len(x) and x.shape[1] >= 2):
            raise InputError(f"{o}: 'res' = {shown(res)}, expected the Result of roll() (records t (n,), "
                             "x (n, nx))")
        d = x[-1, :2] - x[0, :2]
        err = (math.atan2(d[1], d[0]) - heading + math.pi) % (2 * math.pi) - math.pi
        t0, t1 = float(t[0]), float(t[-1])

        def speed(a, b):
            m = (t >= a) & (t < b)
            if np.count_nonzero(m) < 2 or not t[m][-1] > t[m][0]:  # (before session 42: 0/0 or IndexError)
                raise InputError(f"{o}: 'res' holds {np.count_nonzero(m)} record(s) in [{a:g}, {b:g}) s; the "
                                 "speeds need two at different times in its first and in its last second")
            return float(np.linalg.norm(x[m][-1, :2] - x[m][0, :2]) / (t[m][-1] - t[m][0]))

        return cls(float(np.linalg.norm(d)), float(err), speed(t0, t0 + 1.0), speed(t1 - 1.0, t1))


def _roll_args(owner: str, rats, stance, yaw, heading, t_final, v_desired, integrator, t_min: float = 0.0):
    """The checked arguments of :func:`roll` (``t_final`` in (0 or [``t_min``, :data:`MAX_DURATION`])."""
    _check_rats(owner, rats)
    stance, yaw = _stance(owner, stance), _angle(owner, "yaw", yaw)
    heading = _angle(owner, "heading", heading)
    t_final = _duration(owner, "t_final", t_final, lo=t_min)
    if v_desired is not None:
        v_desired = check_number(owner, "v_desired", v_desired, lo=0.0, hi=MAX_RATE)  # [m/s]
    return stance, yaw, heading, t_final, v_desired, _integrator(owner, integrator)


def roll(rats: RatsRobot, params, *, stance: int, yaw: float, heading: float, t_final: float = 8.0,
         v_desired: float | None = None, integrator: str = "rk4", sinks=()):
    """Roll ``rats`` from rest on ``stance`` at ``yaw`` toward ``heading`` [rad] with the rolling
    controller (:class:`~.rolling.RollingController` with ``params``; ``v_desired`` [m/s] for the brake)
    for ``t_final`` s (at most :data:`MAX_DURATION`), integrated with ``rats.default_options(integrator)``
    ("rk4" or "euler"); ``sinks`` (a list of callables) receive the records as they are made (a
    :class:`legsim.io.RunWriter`). Returns the run's Result."""
    o = "roll"
    stance, yaw, heading, t_final, v_desired, integrator = _roll_args(o, rats, stance, yaw, heading, t_final,
                                                                      v_desired, integrator)
    if isinstance(sinks, (str, bytes)) or not isinstance(sinks, (list, tuple)) \
            or not all(callable(s) for s in sinks):
        raise InputError(f"{o}: 'sinks' = {shown(sinks)}, expected a list of callables (a "
                         "legsim.io.RunWriter)")
    from .rolling import RollingController

    ctl = RollingController(params)
    h = np.array([math.cos(heading), math.sin(heading), 0.0])

    def policy(obs):
        return ctl.step(obs.t, obs.rotation, obs.omega, obs.position[2], obs.velocity, h, v_desired=v_desired)

    return rats.simulate(t_final, policy, q0=rats.q_rest(stance, yaw),
                         options=rats.default_options(integrator), sinks=list(sinks))


def roll_trial(rats: RatsRobot, params, *, stance: int, yaw: float, heading: float,
               t_final: float = 8.0, v_desired: float | None = None, integrator: str = "rk4") -> RollTrial:
    """:func:`roll`, summed up (:meth:`RollTrial.of`: speeds over the first and last second, so ``t_final``
    is at least 1 s)."""
    _roll_args("roll_trial", rats, stance, yaw, heading, t_final, v_desired, integrator, t_min=1.0)
    res = roll(rats, params, stance=stance, yaw=yaw, heading=heading, t_final=t_final, v_desired=v_desired,
               integrator=integrator)
    return RollTrial.of(res, heading)


_ROLLING_ROBOTS: dict[str, RatsRobot] = {}


T13_ROBOT = {"contact_set": "rolling", "valve": "spool", "p0": 0.689e6, "tank_volume": 1.0}
"""The robot of the T13 rolling runs (:func:`~.robot.build` keywords): rolling contact set, spool valves,
the supply held at 0.689 MPa (a 1 m^3 tank)."""


def rolling_start(*, stance: int, yaw: float, heading: float, t_final: float = 8.0, seed: int = 0,
                  integrator: str = "rk4", robot: dict | None = None, **params) -> dict[str, float]:
    """One rolling start, for a function sweep (``legsim.sweep.Sweep(function=
    "legsim.robots.rats.experiments:rolling_start", ...)``) or a :class:`legsim.sweep.FunctionPool`:
    :func:`roll_trial` of the robot that :func:`~.robot.build` makes with :data:`T13_ROBOT` updated by
    ``robot`` (built once per process) with :data:`SIM_ROLLING_PARAMS`, any of its fields replaced by
    ``params`` (``phi=0.1``, ``beta=0.8``...); the trial's figures as a dict (distance [m],
    heading_error [rad], v_first, v_last [m/s]). ``integrator``: "rk4" (the robot's default) or "euler"
    (robot.EULER_STEP). ``t_final``: 1 s (the trial's speeds are over a second) to :data:`MAX_DURATION`.
    ``seed`` is the sweep's per-run seed (a whole number >= 0), unused: the robot has no noise."""
    import dataclasses

    o = "rolling_start"
    stance, yaw, heading = _stance(o, stance), _angle(o, "yaw", yaw), _angle(o, "heading", heading)
    t_final = _duration(o, "t_final", t_final, lo=1.0)
    check_whole(o, "seed", seed, hi=2**64 - 1)
    integrator = _integrator(o, integrator)
    if not (robot is None or isinstance(robot, dict)):
        raise InputError(f"{o}: 'robot' = {shown(robot)}, expected None or a dict of build() keywords")
    _build_keywords(o, robot or {}, what="'robot' keyword")
    for name in params:
        lookup("RollingParams field", name, _ROLLING_FIELDS, o)
    kw = {**T13_ROBOT, **(robot or {})}
    key = repr(sorted(kw.items()))
    if key not in _ROLLING_ROBOTS:
        _ROLLING_ROBOTS[key] = build(**kw)
    prm = dataclasses.replace(SIM_ROLLING_PARAMS, **params)
    trial = roll_trial(_ROLLING_ROBOTS[key], prm, stance=stance, yaw=yaw, heading=heading, t_final=t_final,
                       integrator=integrator)
    return dataclasses.asdict(trial)


def _sim_rolling_params():
    from .rolling import RollingParams

    return RollingParams(phi=0.12826509, gamma=0.03422115, beta=0.83084435, t_fire=0.04289146)


SIM_ROLLING_PARAMS = _sim_rolling_params()
_ROLLING_FIELDS = tuple(f.name for f in fields(SIM_ROLLING_PARAMS))
_TUNABLE = tuple(n for n in _ROLLING_FIELDS if n not in ("turn_policy", "require_rearm"))  # the numbers
"""The rolling controller tuned for the default robot (spool valves, 13.16 ms latency, rolling contact
set, a supply held at 0.689 MPa) by :func:`tune_rolling` (phi, gamma, beta, t_fire from Table 6.2;
8 starts of 6 s, seed 11, initial simplex 30 %, 80 evaluations, 17 min): phi 0.093 -> 0.128 rad,
gamma 0.032 -> 0.0342 s, beta 0.797 -> 0.831 rad, t_fire 33 -> 42.9 ms; objective 0.0069 rad. On 10
other starts (the T13 test) 10 of 10 ended within 0.15 rad of the heading then, 9 of 10 with today's
robot (one at 0.177 rad; the runs are chaotic: `examples/sweep_rats_rolling.py` measures them);
Table 6.2's values: 6 of 10. The thesis tuned its values on its own ODE model."""

ROLL_OBJECTIVE = ("mean over the starts of |heading error| [rad] of the net displacement, plus 1 for every "
                  "start that rolls less than 2 m")
"""The objective :func:`tune_rolling` minimises (the thesis does not state its own, digest §6.3)."""


def tune_rolling(names=("phi", "gamma", "beta", "v_extend"), *, starts: int = 4, seed: int = 11,
                 t_final: float = 6.0, maxfev: int = 60, step: float = 0.25, base=None,
                 workers: int | None = None, backend: str = "local", progress: bool | None = None,
                 **build_kw):
    """Nelder–Mead (scipy) of the rolling controller's parameters ``names`` (a list of numeric fields of
    :class:`~.rolling.RollingParams`) from ``base`` (a RollingParams; default: Table 6.2 with this robot's
    latency) against :data:`ROLL_OBJECTIVE` over ``starts`` (at most :data:`MAX_STARTS`) random (stance,
    yaw, heading) starts (``seed``), each rolled for ``t_final`` s (1 s to :data:`MAX_DURATION`) on the
    robot of :data:`T13_ROBOT` updated by ``build_kw``, for at most ``maxfev`` evaluations (at most
    :data:`MAX_EVALUATIONS`); the initial simplex steps each parameter by ``step`` of its value (in (0,
    :data:`MAX_SIMPLEX_STEP`]; the objective is noisy: the runs are chaotic, so small steps see only
    noise). Returns (RollingParams at the optimum, scipy OptimizeResult).

    Each evaluation rolls its starts at once on ``workers`` (default: all cores) of ``backend``
    (:class:`legsim.sweep.FunctionPool` calling :func:`rolling_start`, its workers kept for the whole
    tuning; "serial": in this process); the result does not depend on either. A script that tunes on
    the local backend guards its entry point with ``if __name__ == "__main__":`` (the workers import
    the main module, as with any ``multiprocessing`` program). ``progress``: a bar of the objective's
    evaluations (None: on a terminal, :mod:`legsim._progress`). A roll that fails stops the tuning with
    its start and the engine's message."""
    import dataclasses

    from scipy.optimize import minimize

    from ...errors import LegsimError
    from ...sweep.pool import FunctionPool
    from .rolling import RollingParams

    o = "tune_rolling"
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)) or not names:
        raise InputError(f"{o}: 'names' = {shown(names)}, expected a list of RollingParams fields "
                         "(e.g. [\"phi\", \"beta\"])")
    for name in names:
        lookup("'names' entry", name, _TUNABLE, o)
    if len(set(names)) < len(names):
        raise InputError(f"{o}: 'names' = {shown(names)} names a field twice")
    starts = check_whole(o, "starts", starts, 1, MAX_STARTS)
    seed = check_whole(o, "seed", seed, hi=2**64 - 1)
    t_final = _duration(o, "t_final", t_final, lo=1.0)
    maxfev = check_whole(o, "maxfev", maxfev, 1, MAX_EVALUATIONS)
    step = check_number(o, "step", step, lo=0.0, lo_open=True, hi=MAX_SIMPLEX_STEP)
    if not (base is None or isinstance(base, RollingParams)):
        raise InputError(f"{o}: 'base' = {shown(base)}, expected None or a RollingParams")
    check_progress(progress, o)
    _build_keywords(o, build_kw)
    rats = build(**{**T13_ROBOT, **build_kw})
    base = base or RollingParams(t_delay=float(rats.latency[0]))
    rng = np.random.default_rng(seed)
    cases = [{"stance": int(rng.integers(20)), "yaw": float(rng.uniform(-np.pi, np.pi)),
              "heading": float(rng.uniform(-np.pi, np.pi))} for _ in range(starts)]
    x0 = np.array([getattr(base, n) for n in names], dtype=float)

    def params_of(x):
        return dataclasses.replace(base, **{n: float(v) for n, v in zip(names, x, strict=True)})

    def objective(x):
        bar.update()
        try:
            prm = dataclasses.asdict(params_of(x))
        except InputError:
            return 10.0
        rows = pool.map([{**c, "t_final": t_final, "robot": build_kw, **prm} for c in cases])
        for r in rows:
            if r["status"] != "done":
                raise LegsimError(f"tune_rolling: the roll from stance {r['stance']}, yaw {r['yaw']:.3f} rad "
                                  f"toward {r['heading']:.3f} rad failed ({r['status']}): {r['message']}")
        return float(np.mean([abs(r["heading_error"]) + (r["distance"] < 2.0) for r in rows]))

    simplex = np.vstack([x0, x0 + np.diag(step * np.where(x0 != 0.0, x0, 1.0))])
    with FunctionPool(f"{__name__}:rolling_start", workers=workers, backend=backend) as pool, \
            counter(maxfev, unit="evaluation", desc="Nelder-Mead", progress=progress) as bar:
        res = minimize(objective, x0, method="Nelder-Mead",
                       options={"maxfev": maxfev, "xatol": 1e-3, "fatol": 1e-3, "initial_simplex": simplex})
    return params_of(res.x), res


@dataclass
class EnduranceResult:
    """Repeated single-leg firings from one charge: per firing, the apex rise of the centre [m], whether
    the ground carried no force at some record after the valve opened (a flight: a hop), and the tank
    pressure before it [MPa gauge]; ``hops``: the firings before the first that does not leave the ground
    (None if all did)."""

    rise: np.ndarray
    airborne: np.ndarray
    p_tank: np.ndarray
    hops: int | None


def endurance_run(*, interval: float, firings: int, duration_ms: int = 40, p0: float = 0.758e6,
                  valve: str = "spool", contact_set: str = "rolling", progress: bool | None = None,
                  **build_kw) -> EnduranceResult:
    """E8–E10 on the full robot: every ``interval`` s fire one leg of the stance the robot rests on
    (its lowest-numbered) for ``duration_ms``, ``firings`` times, from one charge ``p0`` [Pa gauge]
    (the spool preset leaks through the tank's exponential law, τ = 433 s, between and during firings).
    The rise and the flight are read in the first 0.5 s after each command; the rest of the interval
    runs without a controller (nothing is commanded then), so the engine does not stop at every
    control tick. ``interval``: at least the control period (1 ms); ``firings`` x ``interval`` at most
    :data:`MAX_DURATION`; ``duration_ms`` 1 to :data:`~.hopping.MAX_FIRING_MS`. ``progress``: a bar of the
    firings (None: on a terminal, :mod:`legsim._progress`)."""
    o = "endurance_run"
    interval = check_number(o, "interval", interval, lo=CONTROL_PERIOD, hi=MAX_DURATION)  # [s]
    firings = check_whole(o, "firings", firings, 1)
    if firings * interval > MAX_DURATION:
        raise InputError(f"{o}: 'firings' = {firings} every 'interval' = {interval:g} s last "
                         f"{firings * interval:g} s, expected at most MAX_DURATION = {MAX_DURATION:g} s")
    duration_ms = _firing(o, "duration_ms", duration_ms)
    check_progress(progress, o)
    _build_keywords(o, build_kw)
    rats = build(valve=valve, contact_set=contact_set, p0=p0, **build_kw)
    tank = rats.model.state_names.index("tank_p")
    p_atm = rats.robot.resources[0].tank.p_atm
    x = rats.robot.initial_state(rats.q_rest(0, 0.2))
    t = 0.0
    rise, air, p = [], [], []
    with counter(firings, unit="firing", desc=f"firings every {interval:g} s", progress=progress) as bar:
        for _ in range(firings):
            leg = int(np.flatnonzero(GRAVITY_DIRECTIONS[stance_now(x[3:7])] @ _LEGS.T > 0.7)[0])
            p.append((x[tank] - p_atm) * 1e-6)
            res = rats.simulate(t + min(0.5, interval), fire_once(leg, duration_ms), x0=x, t0=t)
            rise.append(float(res.x[:, 2].max() - res.x[0, 2]))
            # a flight the firing causes starts after its valve opens (before session 42 the first firing
            # counted the first ~1.2 ms from q_rest, where the stance legs sink into their end stops and the
            # ground's damping holds the clipped contact force at 0 with the feet in the ground, as one)
            opened = res.t >= t + float(rats.latency[leg])
            air.append(bool(np.any(res.output("fn_total")[opened] == 0.0)))
            x, t = res.x[-1], float(res.t[-1])
            t_next = t + interval - 0.5
            if interval > 0.5 and t_next > t:  # (an interval a rounding error above 0.5 s: nothing left)
                res = rats.simulate(t_next, None, x0=x, t0=t)
                x, t = res.x[-1], float(res.t[-1])
            bar.update()
    a = np.array(air)
    return EnduranceResult(np.array(rise), a, np.array(p), None if a.all() else int(np.argmin(a)))


E1_LATENCY_MS = tuple(11.25 if k == 5 else 14.58 if k == 2 else 13.16 for k in range(N_LEGS))
"""The spool valves' latencies [ms] as far as E1 gives them: leg 6 the fastest (11.25), leg 3 the slowest
(14.58), the mean 13.16 for the others (the per-leg values are only in Fig. 4.4)."""


@dataclass
class HopLanding:
    """A three-leg vertical hop from rest on ``stance`` (E15): its firing script, the apex rise of the
    centre [m], how far from the launch point it came to rest [m], the stance it rests on, and the
    number of feet touching when it first landed (within 5 ms of the touchdown)."""

    stance: int
    script: list
    rise: float
    rest_distance: float
    final_stance: int
    feet_at_touchdown: int


def hop_landing(stances=tuple(range(20)), *, latency_ms=E1_LATENCY_MS, balance: bool = False,
                duration_ms: int = 40, p0: float = 0.689e6, yaw: float = 0.3, t_final: float = 2.5,
                **build_kw) -> list[HopLanding]:
    """E15 on the full robot: a three-leg vertical hop (:func:`.hopping.vertical_hop`, ``duration_ms``)
    from rest on each of ``stances`` at ``yaw``, spool valves with the per-leg ``latency_ms`` (12,) [ms]
    (default :data:`E1_LATENCY_MS`), rolling contact set (the thesis's set for dynamic motion), tank
    charge ``p0`` [Pa gauge]; unbalanced (the three legs fired at once for the same time) or, with
    ``balance``, balanced by the latencies. Each run lasts ``t_final`` s (at most :data:`MAX_DURATION`);
    ``duration_ms`` and each latency at most :data:`~.hopping.MAX_FIRING_MS`."""
    from .hopping import vertical_hop
    from .robot import schedule_policy

    o = "hop_landing"
    st = check_values(o, "stances", stances, lo=0, hi=N_STANCES - 1)
    if st.ndim != 1 or np.any(st != np.floor(st)):
        raise InputError(f"{o}: 'stances' = {shown(stances)}, expected a list of stance indices "
                         f"0..{N_STANCES - 1}")
    lat = check_values(o, "latency_ms", latency_ms, lo=0.0, hi=MAX_FIRING_MS, unit="ms")
    if lat.shape != (N_LEGS,):
        raise InputError(f"{o}: 'latency_ms' = {shown(latency_ms)}, expected {N_LEGS} latencies [ms], one "
                         "per leg")
    balance = check_flag(o, "balance", balance)
    duration_ms = _firing(o, "duration_ms", duration_ms)
    yaw, t_final = _angle(o, "yaw", yaw), _duration(o, "t_final", t_final)
    _build_keywords(o, build_kw, taken=("p0", "latency", "foot_forces"))
    build_kw = {"contact_set": "rolling", "valve": "spool", **build_kw}
    rats = build(p0=p0, latency=1e-3 * lat, foot_forces=True, **build_kw)
    feet = [f"true_feet_foot{k + 1}_z" for k in range(N_LEGS)]
    out = []
    for s in st.astype(int).tolist():
        R = resting_rotation(int(s), yaw)
        script = vertical_hop(R, duration_ms, latency_ms=lat) if balance else vertical_hop(R, duration_ms)
        res = rats.simulate(t_final, schedule_policy(script), q0=rats.q_rest(int(s), yaw))
        air = np.flatnonzero(res.output("fn_total") == 0.0)
        td = int(air[-1]) + 1 if air.size else 0
        fz = np.stack([res.output(name)[td:td + 6] for name in feet], axis=1)
        out.append(HopLanding(int(s), script, float(res.x[:, 2].max() - res.x[0, 2]),
                              float(np.hypot(*(res.x[-1, :2] - res.x[0, :2]))), stance_now(res.x[-1, 3:7]),
                              int(np.count_nonzero((fz > 0.0).any(axis=0)))))
    return out


E7_PRESSURES = (0.379e6, 0.552e6, 0.758e6)
"""E7's tank charges [Pa gauge] (55, 80 and 110 psi)."""


def _hop_rise(rats: RatsRobot, leg: int, ms: int) -> float:
    """Apex rise [m] of the centre in the 0.6 s after ``leg`` fires for ``ms`` from rest on its first stance
    (yaw 0.3 rad)."""
    res = rats.simulate(0.6, fire_once(leg, ms), q0=rats.q_rest(int(LEG_STANCES[leg][0]), 0.3))
    return float(res.x[:, 2].max() - res.x[0, 2])


def per_leg_hops(pressures=E7_PRESSURES, *, friction_spread: float = 0.15, seed: int = 4,
                 duration_ms: int = 40, progress: bool | None = None,
                 **build_kw) -> tuple[np.ndarray, np.ndarray]:
    """E7 / T8 on the full robot: each leg fired for ``duration_ms`` from rest on a stance it belongs to
    (its first, yaw 0.3 rad), at each tank charge of ``pressures`` [Pa gauge], spool valves without the
    leak, rolling contact set. The legs differ by their piston friction, F_f (1 + ``friction_spread``
    N(0, 1)) drawn with ``seed`` (the thesis's legs differ by manufacture; it gives no per-leg values).
    Returns (rise (n_pressures, 12) apex rise of the centre [m], friction (12,) [N]). ``friction_spread``
    in [0, 1], drawing no negative friction; ``duration_ms`` 1 to :data:`~.hopping.MAX_FIRING_MS`;
    ``pressures`` a list in [0, :data:`~.robot.MAX_P0`]. ``progress``: a bar of the hops (None: on a
    terminal, :mod:`legsim._progress`)."""
    o = "per_leg_hops"
    p = check_values(o, "pressures", pressures, lo=0.0, hi=MAX_P0, unit="Pa")
    if p.ndim != 1:
        raise InputError(f"{o}: 'pressures' = {shown(pressures)}, expected a list of tank charges [Pa gauge]")
    spread = check_number(o, "friction_spread", friction_spread, lo=0.0, hi=1.0)
    seed = check_whole(o, "seed", seed, hi=2**64 - 1)
    duration_ms = _firing(o, "duration_ms", duration_ms)
    check_progress(progress, o)
    _build_keywords(o, build_kw, taken=("p0", "friction"))
    rng = np.random.default_rng(seed)
    friction = 9.7003 * (1.0 + spread * rng.standard_normal(N_LEGS))
    if np.any(friction < 0.0):
        raise InputError(f"{o}: 'friction_spread' = {spread:g} with 'seed' = {seed} draws a negative piston "
                         f"friction for leg {int(np.argmin(friction)) + 1}: expected a smaller spread")
    build_kw = {"contact_set": "rolling", "valve": "spool", "leak": False, **build_kw}
    rise = np.empty((len(p), N_LEGS))
    with counter(rise.size, unit="hop", desc="E7 hops", progress=progress) as bar:
        for i, pi in enumerate(p.tolist()):
            rats = build(p0=pi, friction=friction, **build_kw)
            for leg in range(N_LEGS):
                rise[i, leg] = _hop_rise(rats, leg, duration_ms)
                bar.update()
    return rise, friction


def leak_hop_ratio(t_leak: float, *, p0: float = 0.758e6, leg: int = 0,
                   duration_ms: int = 40) -> tuple[float, float]:
    """E10 on the full robot with the leaking spool valves and no firing for ``t_leak`` [s]: (the tank's
    gauge pressure then, as a fraction of ``p0`` [Pa gauge]; the apex rise of a ``duration_ms`` firing of
    ``leg`` then, as a fraction of the same firing's at ``p0``). The robot at rest draws no gas, so the
    tank follows its exponential leak law (τ = 433 s) in closed form between the two firings. ``t_leak``
    at most :data:`MAX_DURATION`; ``duration_ms`` 1 to :data:`~.hopping.MAX_FIRING_MS`. An InputError when
    the firing at ``p0`` does not lift the robot (no ratio)."""
    o = "leak_hop_ratio"
    t_leak = check_number(o, "t_leak", t_leak, lo=0.0, hi=MAX_DURATION)  # [s]
    p0 = check_number(o, "p0", p0, lo=0.0, lo_open=True, hi=MAX_P0)  # [Pa gauge]
    leg, duration_ms = _leg(o, leg), _firing(o, "duration_ms", duration_ms)
    rise = []
    p = p0
    for k in range(2):
        rats = build(valve="spool", contact_set="rolling", p0=p)
        rise.append(_hop_rise(rats, leg, duration_ms))
        if k == 0:
            tank = rats.robot.resources[0].tank
            p = float(tank.pressure_after_leak(p0 + tank.p_atm, t_leak) - tank.p_atm)
    if not rise[0] > 0.0:
        raise InputError(f"{o}: a {duration_ms} ms firing of leg {leg + 1} at 'p0' = {p0:g} Pa does not lift "
                         "the robot: no hop to compare (expected a higher 'p0' or a longer 'duration_ms')")
    return p / p0, float(rise[1] / rise[0])
