"""LIBRA's experiments on the simulated robot (CJTC digest §6): climbing stage 1 (§6.1, acceptance 8) and
the full four-stage cycle (§6.2, acceptance 9), with their measures taken from the true state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...control import Kinematics, solve_configuration
from ...control.cjtc import SOLVE_LIMIT
from ...errors import (
    InputError,
    SimulationError,
    check_keywords,
    check_number,
    check_values,
    check_whole,
    shown,
)
from ...hybrid import Options, Result
from . import _cjtc
from .control import LibraController, _plan, variables
from .gait import MAX_STRETCH, VECTORS, Stage, climb_cycle, stretch
from .robot import LibraRobot, build

__all__ = ["initial_configuration", "ClimbRun", "climb", "compiled_model", "pace_for_motors",
           "stage1_measures", "cycle_measures", "options", "MAX_PACE_ITERATIONS", "MIN_PACE_SPEED",
           "MIN_SETTLE_BAND"]


def options(rtol: float = 1e-3, atol: float = 1e-4, period: float = 1.0 / 300.0) -> Options:
    """The integrator for LIBRA's runs: the compiled Rosenbrock pair (``method="ros23"``) at ``rtol``,
    ``atol`` (m, rad, m/s, rad/s), steps up to one control period, records every control period.

    Why an implicit method: the regularised friction makes LIBRA stiff. The wheels' Coulomb friction
    (μN over 2 cm/s) and the gears' (0.369 N m over 0.05 rad/s, eigenvalues of M⁻¹C up to ~1.1e4 1/s
    at the start pose) hold an explicit method's step at its stability limit whatever the tolerance:
    DP45 takes ~70 000 steps per 7 s of stage 1 at rtol 1e-3, 1e-4 or 1e-5 alike, and fixed-step RK4
    is not converged above 62.5 µs (at 0.25 ms foot 2's force came out 0.2–9.6 N in stage 1, at
    0.5 ms 33–42 N, against 6.5–12.1 N converged). Measured on the full 25 s cycle against DP45 at
    rtol 1e-8 (the compiled controller): ROS23 at these defaults takes 17 712 steps (DP45 at rtol
    1e-5: 289 041) and stays within 21 µm of the body's and the feet's paths, 1.1e-4 rad of θ_b,
    0.78 N of the wheels' forces and 0.19 N m of the torques (DP45 at 1e-5: 6 µm, 1.3e-5 rad, 0.56 N,
    0.02 N m), far inside what the tests assert (θ_b peaks of 0.058 rad, forces in bands of ±4 N)."""
    return Options(method="ros23", rtol=rtol, atol=atol, h_max=period, record_period=period)

MAX_PACE_ITERATIONS = 100
"""The most passes :func:`pace_for_motors` takes: each climbs the whole plan (about a second of computing per
25 s cycle); it stops as soon as every stage is within 5 % of the speed (6 passes by default)."""
MIN_PACE_SPEED = 1e-3
"""The slowest joint speed [rad/s] :func:`pace_for_motors` paces for: LIBRA's plans ask up to a few rad/s of
a joint, which a slower speed would stretch beyond :data:`~.gait.MAX_STRETCH`."""
MIN_SETTLE_BAND = 1e-6
"""The narrowest settling band [m] :func:`stage1_measures` takes: about what the encoders resolve of y_b
(1,584,000 counts per revolution, 4 µrad, through links of 0.3 m); a narrower one is never met."""

_GUESS = np.radians([0.0, 0.0, 38.0, -115.0, 77.0, 60.0, -91.0, -20.0, 68.0])


def initial_configuration(libra: LibraRobot, stage: Stage, t: float = 0.0, guess=None) -> np.ndarray:
    """The configuration (9,) at which the stage's supports hold (its pinned foot on its seat, the other
    supporting foot on its rung, touching its post) and its commanded body pose and free foot are met
    at time t [s] (a finite number): Newton from ``guess`` (9,) [m, rad] (default: knees up, the elbow
    branches LIBRA climbs with; within ±:data:`legsim.control.cjtc.SOLVE_LIMIT`)."""
    o = "initial_configuration"
    if not isinstance(libra, LibraRobot):
        raise InputError(f"{o}: 'libra' = {shown(libra)}, expected a LibraRobot (legsim.robots.libra.build)")
    if not isinstance(stage, Stage):
        raise InputError(f"{o}: 'stage' = {shown(stage)}, expected a Stage (gait.climb_cycle)")
    t = check_number(o, "t", t)  # [s]
    if guess is not None and check_values(o, "guess", guess, lo=-SOLVE_LIMIT, hi=SOLVE_LIMIT,
                                          unit="m, rad").shape != _GUESS.shape:
        raise InputError(f"{o}: 'guess' = {shown(guess)}, expected the 9 coordinates [x_foot1, y_foot1, φ, "
                         "θ1..θ6] [m, rad]")
    kin = Kinematics(libra.mb)
    v = variables(kin)
    u, _ = stage.command(t)
    vector = VECTORS[stage.vector]
    cmd = dict(zip(vector, u, strict=True))
    pin, seat = stage.pinned
    hfoot, y = stage.height
    i = int(hfoot[-1])
    lad = libra.ladders
    x_post = lad.separation if seat[0] < 0.5 * lad.separation else 0.0
    names = [f"x{pin[-1]}", f"y{pin[-1]}", f"y{i}", f"x{i}"]
    targets = [seat[0], seat[1], y, x_post]
    for n in ("x_b", "y_b", "theta_b"):
        names.append(n)
        targets.append(cmd[n])
    for n in vector:  # the free foot's commanded position completes the 9 equations
        if n not in names and len(names) < 9:
            names.append(n)
            targets.append(cmd[n])
    return solve_configuration([v[n] for n in names], targets, _GUESS if guess is None else guess)


@dataclass
class ClimbRun:
    """A simulated climb: ``t`` (n,) [s] at the controller's samples; ``true`` dict of the true control
    variables (x_b, y_b, theta_b, x1 .. y3) (n,); ``u``, ``u_cmd`` (n, 6) as the controller saw and
    commanded them; ``stage`` (n,) index; ``tau``, ``tau_raw`` (n, 6) [N m]; ``force`` (n, 3, 2) the
    wheels' contact forces (x, y) [N]; ``result`` the engine's Result; ``controller`` the Python
    controller (None when the compiled one ran); ``stages``."""

    t: np.ndarray
    true: dict
    u: np.ndarray
    u_cmd: np.ndarray
    stage: np.ndarray
    tau: np.ndarray
    tau_raw: np.ndarray
    force: np.ndarray
    result: Result
    controller: LibraController | None
    stages: list
    libra: LibraRobot


def compiled_model(libra: LibraRobot, stages: Sequence[Stage], controller_kw: dict | None = None):
    """The hybrid model a compiled :func:`climb` runs (the robot with :func:`._cjtc.libra_cjtc` and its
    memory states): what a :class:`legsim.io.RunWriter` for its records is made with. The controller's
    parameters and memory are named ``cjtc_…`` (:func:`._cjtc.names`): its gains, limits, geometry and
    waypoints may be set by name (checked against their ranges), its layout may not. ``controller_kw``: None
    or the options of :class:`~.control.LibraController` by name."""
    params, memory = _cjtc.pack(libra, stages, **_controller_kw("compiled_model", controller_kw))
    param_names, param_ranges, memory_names = _cjtc.names(libra, params)
    return libra.robot.with_compiled_controller(_cjtc.libra_cjtc, params, memory, param_names=param_names,
                                                param_ranges=param_ranges, memory_names=memory_names)


CONTROLLER_OPTIONS = ("gravity", "lumped_mass", "quantise", "backlash", "blend", "gain_kw")
"""The options of :class:`~.control.LibraController` (and of the compiled controller) a ``controller_kw``
holds."""


def _controller_kw(owner: str, controller_kw) -> dict:
    """``controller_kw`` (None or a mapping of :data:`CONTROLLER_OPTIONS`) as a dict, else an
    :class:`InputError` naming ``owner`` (the options' values are checked by the controller)."""
    return check_keywords(owner, "controller_kw", controller_kw, CONTROLLER_OPTIONS, "controller option")


def climb(libra: LibraRobot | None = None, stages: Sequence[Stage] | None = None, *, q0=None,
          controller_kw: dict | None = None, sinks=(), progress=None,
          opts: Options | None = None, compiled: bool = True) -> ClimbRun:
    """Run LIBRA through ``stages`` (default: one full :func:`climb_cycle`) with the CJTC controller;
    ``sinks`` receive the engine's records as they are made (a :class:`legsim.io.RunWriter` made with
    :func:`compiled_model`, or with ``libra.robot.model`` when ``compiled`` is False); ``opts``
    the integrator (default :func:`options`; its record period must be the control period).
    ``compiled``: the controller compiled into the engine's sample hook (:mod:`._cjtc`; default) or
    the Python :class:`~.control.LibraController` (the same torques to 1e-13 N m, measured; the one
    to subclass or to drive another engine with). ``controller_kw`` go to either."""
    lib = libra or build()
    sts = list(stages) if stages is not None else climb_cycle(lib.ladders)
    q = initial_configuration(lib, sts[0]) if q0 is None else np.asarray(q0, float)
    period = lib.robot.control_period
    run_kw = dict(q0=q, sinks=list(sinks), progress=progress, options=opts or options(period=period))
    ctrl = None
    if compiled:
        params, memory = _cjtc.pack(lib, sts, **_controller_kw("climb", controller_kw))
        param_names, param_ranges, memory_names = _cjtc.names(lib, params)
        try:
            res = lib.robot.simulate(sts[-1].t1, _cjtc.libra_cjtc, controller_params=params,
                                     controller_memory=memory, param_names=param_names,
                                     param_ranges=param_ranges, memory_names=memory_names, **run_kw)
        except SimulationError as e:
            if "not finite" not in str(e):
                raise
            kept = 0 if e.result is None else e.result.n
            raise SimulationError(f"{lib.robot.name}: the CJTC controller stopped the run at t = {e.t:g} s: "
                                  "the stage's contact constraints cannot be met (a limb cannot reach its "
                                  f"support); {kept} records up to that time were kept", t=e.t, mode=e.mode,
                                  cause="controller_error", result=e.result) from None
        rec = _cjtc.log(res, lib.robot.model.nx)
    else:
        ctrl = LibraController(lib, sts, **_controller_kw("climb", controller_kw))
        res = lib.robot.simulate(sts[-1].t1, ctrl, **run_kw)
        rec = ctrl.records()
    # the true state at the controller's instants (records are at the same period)
    n = min(rec["t"].size, res.t.size)
    params, _ = _cjtc.pack(lib, sts)
    values = np.empty((n, len(_cjtc.VARIABLES)))
    _cjtc.variables_along(params, np.ascontiguousarray(res.x[:n, :lib.mb.nq]), values)
    true = {k: values[:, i] for i, k in enumerate(_cjtc.VARIABLES)}
    names = list(lib.robot.model.output_names)
    force = np.empty((n, 3, 2))
    for i in range(3):
        for a, ax in enumerate("xy"):
            force[:, i, a] = res.y[:n, names.index(f"true_feet_wheel{i + 1}_{ax}")]
    return ClimbRun(rec["t"][:n], true, rec["u"][:n], rec["u_cmd"][:n], rec["stage"][:n], rec["tau"][:n],
                    rec["tau_raw"][:n], force, res, ctrl, sts, lib)


def pace_for_motors(libra: LibraRobot, stages: Sequence[Stage], *, speed: float | None = None,
                    percentile: float = 99.0, max_iter: int = 6) -> list[Stage]:
    """``stages`` stretched until LIBRA's motors can follow them: each stage is slowed by the factor by
    which the ``percentile`` of its joints' speeds, in a climb of an ideal-drive LIBRA with ``libra``'s
    parameters and ladders, exceeds ``speed`` [rad/s] (default the joint speed past which the Escap
    motor's torque falls below its continuous limit on the ±24 V rails, (V − R_m i_cont)/(k_b N) =
    0.84 rad/s), repeated until every stage is within 5 % of it. The plan's swings ask limb 3 for
    2–4 rad/s at 6 s stages, and the motors brake beyond 1.32 rad/s (measured: the paced cycle takes
    80 s, and ``drive="motor"`` and ``drive="ideal"`` then climb it alike). ``speed`` None or a finite number
    >= :data:`MIN_PACE_SPEED`; ``percentile`` in [0, 100]; ``max_iter`` passes (each a climb) in [1,
    :data:`MAX_PACE_ITERATIONS`]."""
    o = "pace_for_motors"
    plan = _plan(o, libra, stages)
    if speed is not None:
        check_number(o, "speed", speed, lo=MIN_PACE_SPEED)  # [rad/s]
    check_number(o, "percentile", percentile, lo=0.0, hi=100.0)
    max_iter = check_whole(o, "max_iter", max_iter, 1, MAX_PACE_ITERATIONS)
    m = libra.params.motor
    limit = ((m.supply - m.resistance * m.i_continuous) / (m.back_emf * libra.params.gear)
             if speed is None else float(speed))
    ideal = build(libra.params, libra.ladders, drive="ideal")
    for _ in range(max_iter):
        run = climb(ideal, plan, progress=False)
        rates = np.abs(run.result.x[:run.t.size, ideal.mb.nq + 3:ideal.mb.nq + 9])
        peaks = [float(np.max(np.percentile(rates[run.stage == k], percentile, axis=0)))
                 for k in range(len(plan))]
        factors = [max(1.0, p / limit) for p in peaks]
        if max(factors) < 1.05:
            return plan
        if max(factors) > MAX_STRETCH:
            raise InputError(f"{o}: 'speed' = {limit:g} rad/s would stretch a stage {max(factors):.3g} "
                             f"times, more than MAX_STRETCH = {MAX_STRETCH:g}: expected a faster one")
        plan = stretch(plan, factors)
    return plan


def _run(owner: str, run) -> None:
    """An :class:`InputError` naming ``owner`` unless ``run`` is a :class:`ClimbRun`."""
    if not isinstance(run, ClimbRun):
        raise InputError(f"{owner}: 'run' = {shown(run)}, expected a ClimbRun (climb)")


def stage1_measures(run: ClimbRun, settle_band: float = 0.005) -> dict:
    """The §6.1 measures of a stage-1 run. From the true state: peak and final |x_b error| [m], final
    |y_b error|, peak |θ_b| [rad], foot 2's wall force (the post's push on the wheel, −F_x) min and max
    [N], foot 3's peak push [N]. As the robot measures them (encoders through the kinematics, as the
    thesis's plots): the body's settling time [s] from the start of the push-up (from when on y_b stays
    within ``settle_band`` of its final command: the x_b transient bound of §6.1; the thesis reads
    "steady state in about 4.5 s" off its plot; inf when it never does), peak |x_b error|, final |y_b error|
    and peak |θ_b|. ``run``: a :class:`ClimbRun` (:func:`climb`); ``settle_band`` [m] a finite number >=
    :data:`MIN_SETTLE_BAND`."""
    o = "stage1_measures"
    _run(o, run)
    settle_band = check_number(o, "settle_band", settle_band, lo=MIN_SETTLE_BAND)  # [m]
    st = run.stages[0]
    cmd = np.array([st.command(t)[0] for t in run.t])
    names = list(VECTORS["u1"])
    ex = run.true["x_b"] - cmd[:, names.index("x_b")]
    ey = run.true["y_b"] - cmd[:, names.index("y_b")]
    t_start = float(st.paths["y_b"].t[0])
    mx, my = run.u[:, 0] - run.u_cmd[:, 0], run.u[:, 1] - run.u_cmd[:, 1]
    to_final = np.abs(run.u[:, 1] - run.u_cmd[-1, 1])
    outside = np.nonzero(to_final > settle_band)[0]
    t_settle = (float(run.t[outside[-1] + 1]) if outside.size and outside[-1] + 1 < run.t.size
                else float("inf") if outside.size else t_start) - t_start
    f2 = -run.force[:, 1, 0]
    steady = run.t >= run.t[-1] - 0.5
    moving = run.t >= float(st.paths["y_b"].t[0])
    return {"settle_time": t_settle, "x_b_peak": float(np.max(np.abs(ex[moving]))),
            "x_b_final": float(np.mean(np.abs(ex[steady]))), "y_b_final": float(np.mean(np.abs(ey[steady]))),
            "theta_b_peak": float(np.max(np.abs(run.true["theta_b"][moving]))),
            "theta_b_peak_measured": float(np.max(np.abs(run.u[moving, 2]))),
            "x_b_peak_measured": float(np.max(np.abs(mx[moving]))),
            "y_b_final_measured": float(np.mean(np.abs(my[steady]))),
            "f2_min": float(np.min(f2[moving])), "f2_max": float(np.max(f2[moving])),
            "f3_peak": float(np.max(-run.force[:, 2, 0]))}



def cycle_measures(run: ClimbRun) -> dict:
    """The §6.2 measures of a climbing run, from the true state: ``stages_done`` (the controller reached
    the last stage and the run ended at its end), ``theta_b_peak`` [rad], ``limit_margin`` (6,) [rad] the
    least distance of each joint to its nearer limit over the run (≤ 0 at the stop), ``feet_final``
    (3, 2) [m] and ``seats_final`` (3, 2) [m] the seats the plan puts them on (NaN: free),
    ``y_error_final`` (3,) [m] of the feet against those seats. ``run``: a :class:`ClimbRun`
    (:func:`climb`)."""
    _run("cycle_measures", run)
    last = run.stages[-1]
    q = run.result.x[:run.t.size, 3:9]
    lim = run.libra.params.joint_limits
    margin = np.min(np.minimum(q - lim[:, 0], lim[:, 1] - q), axis=0)
    feet = np.array([[run.true[f"x{i}"][-1], run.true[f"y{i}"][-1]] for i in (1, 2, 3)])
    seats = np.array([last.seats.get(f"foot{i}", (np.nan, np.nan)) for i in (1, 2, 3)], dtype=float)
    return {"stages_done": bool(run.stage[-1] == len(run.stages) - 1 and run.t[-1] >= last.t1 - 0.01),
            "theta_b_peak": float(np.max(np.abs(run.true["theta_b"]))), "limit_margin": margin,
            "feet_final": feet, "seats_final": seats, "y_error_final": feet[:, 1] - seats[:, 1]}
