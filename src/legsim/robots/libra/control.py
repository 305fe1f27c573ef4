"""LIBRA's CJTC controller at 300 Hz (CJTC digest §4.4–§4.6, eqs. 17–20) for the assembled robot.

Per cycle: read the six encoders (quantised to 1,584,000 counts per output revolution, §4.2; with the
2° backlash seen by a motor-side encoder as a play operator), rates
by differencing successive readings over the period (the PMAC's counts), solve the unmeasured base
and φ from the stage's supports (the pinned foot's seat and the other supporting foot's rung height,
the T-matrix method generalised), then τ = Jᵀ[K_p(u_cmd − u) + K_d(u̇_cmd − u̇)] + G (eq. 20),
saturated. At a stage change the control vector switches and the new command starts where the old
torques are reproduced (bumpless), blending into the planned path over ``blend`` seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...control import CJTC, ConstrainedChain, Kinematics, Orientation, PointCoordinate
from ...control.cost import LAW_GAIN_LIMIT
from ...errors import (
    InputError,
    check_flag,
    check_keywords,
    check_number,
    check_values,
    lookup,
    shown,
)
from .gait import VECTORS, Stage
from .kinematics import MAX_ANGLE
from .params import FOOT3_KD, FOOT3_KP, MAX_MASS, TUNED_KD, TUNED_KP, encoder_counts_per_output_rev
from .robot import JOINTS, LibraRobot

__all__ = ["LibraController", "variables", "gains", "Inclinometer", "MIN_RESOLUTION", "GAIN_KEYWORDS"]

MIN_RESOLUTION = 1e-9
"""The finest resolution [rad] an :class:`Inclinometer` takes: an angle within ±MAX_ANGLE (1e6 rad) is then
at most 1e15 steps, a whole number a float holds exactly."""


def variables(kin: Kinematics) -> dict:
    """Every control variable LIBRA's vectors use, by name."""
    v = {"x_b": PointCoordinate(kin, "body_centre", "x", "x_b"),
         "y_b": PointCoordinate(kin, "body_centre", "y", "y_b"),
         "theta_b": Orientation(kin, "body", "z", "theta_b")}
    for i in (1, 2, 3):
        for a in "xy":
            v[f"{a}{i}"] = PointCoordinate(kin, f"foot{i}", a, f"{a}{i}")
    return v


def gains(vector: str, body_kp=TUNED_KP[:3], body_kd=TUNED_KD[:3], force_kp: float = TUNED_KP[3],
          force_kd: float = TUNED_KD[3], foot_kp=FOOT3_KP[0],
          foot_kd=FOOT3_KD[0]) -> tuple[np.ndarray, np.ndarray]:
    """Diagonal (k_p, k_d) (6,) of a control vector (eq. 18): the body's tuned stiff springs, the
    force-controlled (blocked) foot's x at k_p2, the free foot's soft springs (§4.5).

    ``vector``: ``"u1"``, ``"u2"`` or ``"u3"``; ``body_kp``, ``body_kd``: the 3 gains on [x_b, y_b, θ_b];
    the others one gain each. Stiffnesses [N/m, N m/rad] in (0, ``LAW_GAIN_LIMIT``], dampings [N s/m,
    N m s/rad] in [0, ``LAW_GAIN_LIMIT``] (1e12, :mod:`legsim.control.cost`).
    """
    o = "gains"
    lookup("control vector", vector, tuple(VECTORS), o)
    body = {}
    for name, value in (("body_kp", body_kp), ("body_kd", body_kd)):
        body[name] = check_values(o, name, value, lo=0.0, hi=LAW_GAIN_LIMIT, lo_open=name == "body_kp")
        if body[name].shape != (3,):
            raise InputError(f"{o}: '{name}' = {shown(value)}, expected 3 gains on [x_b, y_b, θ_b]")
    body_kp, body_kd = body["body_kp"], body["body_kd"]
    force_kp, force_kd, foot_kp, foot_kd = (
        check_number(o, name, value, lo=0.0, hi=LAW_GAIN_LIMIT, lo_open=name.endswith("kp"))
        for name, value in (("force_kp", force_kp), ("force_kd", force_kd), ("foot_kp", foot_kp),
                            ("foot_kd", foot_kd)))
    kp, kd = [], []
    for name in VECTORS[vector]:
        if name in ("x_b", "y_b", "theta_b"):
            i = ("x_b", "y_b", "theta_b").index(name)
            kp.append(body_kp[i])
            kd.append(body_kd[i])
        elif (vector in ("u1", "u3") and name == "x2") or (vector == "u2" and name == "x3"):
            kp.append(force_kp)
            kd.append(force_kd)
        else:
            kp.append(foot_kp)
            kd.append(foot_kd)
    return np.array(kp), np.array(kd)


@dataclass
class Inclinometer:
    """The pendulum inclinometer on the body (§4.2): resolution 0.35°, stiction ±1° (its reading holds
    until the true angle is more than 1° away, then jumps to it, quantised).

    ``resolution`` [rad] in [:data:`MIN_RESOLUTION`, π]; ``stiction`` [rad] in [0, π]; ``reading`` [rad] the
    reading held: NaN (no reading yet: the first :meth:`read` takes the angle) or an angle within
    ±:data:`~.kinematics.MAX_ANGLE`."""

    resolution: float = math.radians(0.35)
    stiction: float = math.radians(1.0)
    reading: float = math.nan

    def __post_init__(self):
        o = "Inclinometer"
        self.resolution = check_number(o, "resolution", self.resolution, lo=MIN_RESOLUTION, hi=math.pi)
        self.stiction = check_number(o, "stiction", self.stiction, lo=0.0, hi=math.pi)
        if not (isinstance(self.reading, float) and math.isnan(self.reading)):
            self.reading = check_number(o, "reading", self.reading, lo=-MAX_ANGLE, hi=MAX_ANGLE)

    def read(self, angle: float) -> float:
        """The reading [rad] at the true body angle ``angle`` [rad] (within ±MAX_ANGLE)."""
        return self._read(check_number("Inclinometer.read", "angle", angle, lo=-MAX_ANGLE, hi=MAX_ANGLE))

    def _read(self, angle: float) -> float:
        """:meth:`read` unchecked, for a control loop."""
        if math.isnan(self.reading) or abs(angle - self.reading) > self.stiction:
            self.reading = round(angle / self.resolution) * self.resolution
        return self.reading


GAIN_KEYWORDS = ("body_kp", "body_kd", "force_kp", "force_kd", "foot_kp", "foot_kd")
"""The keywords of :func:`gains` a controller's ``gain_kw`` may hold."""


def _plan(owner: str, libra, stages) -> list[Stage]:
    """``stages`` as a list: LIBRA's plan (a non-empty sequence of :class:`~.gait.Stage`) for ``libra`` (a
    :class:`~.robot.LibraRobot`), else an :class:`InputError` naming ``owner`` and the argument."""
    if not isinstance(libra, LibraRobot):
        raise InputError(f"{owner}: 'libra' = {shown(libra)}, expected a LibraRobot "
                         "(legsim.robots.libra.build)")
    if not (isinstance(stages, (list, tuple)) and stages and all(isinstance(st, Stage) for st in stages)):
        if isinstance(stages, (list, tuple)) and not stages:
            raise InputError(f"{owner}: the plan has no stages ('stages' is empty)")
        raise InputError(f"{owner}: 'stages' = {shown(stages)}, expected a sequence of Stage "
                         "(gait.climb_cycle)")
    return list(stages)


def _options(owner: str, stages: Sequence[Stage], gravity, lumped_mass, quantise, backlash, blend,
             gain_kw) -> tuple[str, float | None, bool, bool, float, dict]:
    """The controller options of :class:`LibraController` (and of the compiled one, :func:`._cjtc.pack`)
    checked: ``gravity`` "full" or "lumped", ``lumped_mass`` None or a mass [kg] in [0,
    :data:`~.params.MAX_MASS`], ``quantise`` and ``backlash`` True or False, ``blend`` [s] a finite number
    >= 0, ``gain_kw`` None or a mapping of :data:`GAIN_KEYWORDS` whose gains :func:`gains` takes for every
    stage's vector; else an :class:`InputError` naming ``owner`` and the option."""
    lookup("gravity", gravity, ("full", "lumped"), owner)
    if lumped_mass is not None:
        lumped_mass = check_number(owner, "lumped_mass", lumped_mass, lo=0.0, hi=MAX_MASS)  # [kg]
    quantise = check_flag(owner, "quantise", quantise)
    backlash = check_flag(owner, "backlash", backlash)
    blend = check_number(owner, "blend", blend, lo=0.0)  # [s]
    gain_kw = check_keywords(owner, "gain_kw", gain_kw, GAIN_KEYWORDS, "gain")
    for vector in sorted({st.vector for st in stages}):
        try:
            gains(vector, **gain_kw)
        except InputError as e:
            raise InputError(f"{owner}: 'gain_kw': {e}") from None
    return gravity, lumped_mass, quantise, backlash, blend, dict(gain_kw)


class LibraController:
    """The CJTC controller of LIBRA over a gait plan (a Python controller of the assembly layer).

    Parameters
    ----------
    libra : the assembled robot (:func:`legsim.robots.libra.build`).
    stages : the plan (:func:`legsim.robots.libra.gait.climb_cycle`).
    gravity : ``"full"`` (exact, through the constraints) or ``"lumped"`` (eq. 19, a point mass
        ``lumped_mass`` at the body; default the whole robot's mass).
    quantise : encoder quantisation (1,584,000 counts/rev); backlash : model the 2° play as seen by
        the motor-side encoder. blend : seconds over which a new stage's command joins its plan.
    gain_kw : passed to :func:`gains` (keywords :data:`GAIN_KEYWORDS`).
    Ranges: ``lumped_mass`` [kg] in [0, :data:`~.params.MAX_MASS`], ``blend`` [s] a finite number >= 0,
    ``quantise`` and ``backlash`` True or False.
    """

    def __init__(self, libra: LibraRobot, stages: Sequence[Stage], *, gravity: str = "full",
                 lumped_mass: float | None = None, quantise: bool = True, backlash: bool = True,
                 blend: float = 0.5, gain_kw: dict | None = None):
        o = "LibraController"
        stages = _plan(o, libra, stages)
        gravity, lumped_mass, quantise, backlash, blend, gain_kw = _options(
            o, stages, gravity, lumped_mass, quantise, backlash, blend, gain_kw)
        self.libra = libra
        self.stages = stages
        self.kin = Kinematics(libra.mb)
        self.vars = variables(self.kin)
        self.counts = encoder_counts_per_output_rev() if quantise else 0
        self.play = 0.5 * libra.params.backlash if backlash else 0.0
        self.period = libra.robot.control_period
        self.blend = float(blend)
        self.gravity = gravity
        self.lumped_mass = float(libra.mb.body_mass.sum() if lumped_mass is None else lumped_mass)
        self.gain_kw = gain_kw or {}
        self.index = -1
        self.theta_prev: np.ndarray | None = None
        self.motor: np.ndarray | None = None
        self.tau = np.zeros(6)
        self.q = libra.q_full()
        self.log: list[tuple] = []  # (t, stage, u (6), u_cmd (6), tau_raw (6), tau (6))

    # ------------------------------------------------------------------ sensing
    def measure(self, enc: np.ndarray) -> np.ndarray:
        """Joint angles as the motor-side encoders see them: the output angle through the backlash as a
        play operator (the motor angle stays put until the output has crossed half the play, then is
        dragged along: a continuous hysteresis of width 2°), quantised to whole counts."""
        th = np.asarray(enc, dtype=float)
        if self.play > 0.0:
            m = th.copy() if self.motor is None else np.clip(self.motor, th - self.play, th + self.play)
            self.motor = m
            th = self.motor
        if self.counts:
            step = 2.0 * math.pi / self.counts
            th = np.round(th / step) * step
        return th

    def _enter(self, k: int, t: float, theta: np.ndarray, theta_dot: np.ndarray) -> None:
        st = self.stages[k]
        chain = ConstrainedChain(self.kin, JOINTS,
                                 [self.vars[f"x{st.pinned[0][-1]}"], self.vars[f"y{st.pinned[0][-1]}"],
                                  self.vars[f"y{st.height[0][-1]}"]],
                                 [st.pinned[1][0], st.pinned[1][1], st.height[1]])
        q = chain.solve(theta, self.q)
        kp, kd = gains(st.vector, **self.gain_kw)
        body = list(VECTORS[st.vector]).index("y_b")
        self.cjtc = CJTC([self.vars[n] for n in VECTORS[st.vector]], kp, kd, chain=chain,
                         gravity=self.gravity, lumped_mass=self.lumped_mass, lumped_index=body,
                         tau_max=self.libra.tau_max)
        self.chain = chain
        self.start_cmd = self.cjtc.bumpless_command(q, theta_dot, self.tau) if self.index >= 0 else None
        self.t_enter = t
        self.index = k
        self.q = q

    def __call__(self, t: float, s) -> np.ndarray:
        theta = self.measure(s.enc)
        theta_dot = (np.zeros(6) if self.theta_prev is None else (theta - self.theta_prev) / self.period)
        self.theta_prev = theta
        k = self.index if self.index >= 0 else 0
        while k + 1 < len(self.stages) and t >= self.stages[k + 1].t0 - 1e-9:
            k += 1
        if k != self.index:
            self._enter(k, t, theta, theta_dot)
        st = self.stages[k]
        q = self.chain.solve(theta, self.q)
        self.q = q
        u_cmd, u_dot_cmd = st.command(t)
        if self.start_cmd is not None and t - self.t_enter < self.blend:
            w = (t - self.t_enter) / self.blend
            w = w * w * (3.0 - 2.0 * w)
            u_cmd = self.start_cmd + w * (u_cmd - self.start_cmd)
        out = self.cjtc.step(q, theta_dot, u_cmd, u_dot_cmd)
        self.tau = out.tau
        self.log.append((t, k, out.u, u_cmd, out.tau_raw, out.tau))
        return out.tau

    def records(self) -> dict[str, np.ndarray]:
        """The controller's log as arrays: t (n,), stage (n,), u, u_cmd, tau_raw, tau (n, 6)."""
        if not self.log:
            return {}
        cols = list(zip(*self.log, strict=True))
        return {"t": np.array(cols[0]), "stage": np.array(cols[1]), "u": np.array(cols[2]),
                "u_cmd": np.array(cols[3]), "tau_raw": np.array(cols[4]), "tau": np.array(cols[5])}
