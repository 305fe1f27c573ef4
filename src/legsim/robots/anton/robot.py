"""ANTON on the assembly layer, walking under the robot-independent walking layer (issue 16).

Drives (source §3.2): servo DC motors through gears of 390 (knees, the γ joints) and 251 (every
other joint), 2.8 W and 8.68 W maximum. The motors' constants are not given: each is a placeholder
12 V motor whose maximum output power V²/(4R) is the source's rating (knee R = 12.9 Ω, others
4.15 Ω) with k = 14.3 mV s/rad (8000 rpm at no load), so the joints reach 8.2 N m (251:1) and
4.1 N m (390:1) at stall. Sensors: joint encoders, the shank force sensors as each foot's contact
force (±50 N, source Fig. 3.4; crosstalk not modelled), a 2-axis gyroscope (roll and pitch rates).
Feet: rubber spheres (Hunt–Crossley normal law, Coulomb friction μ = 0.8, placeholders).

:func:`walker` is the control hierarchy of §3.4 at 1 ms: the action level (walk at a speed with a
gait, or stand), the primitive level (:class:`~legsim.walking.GaitGenerator` and one
:class:`~legsim.walking.LegCycle` per leg, feet placed on a rectangle around the body, leg inverse
kinematics) and the servo level (a PD position loop on each drive's voltage).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...assembly import IMU, ContactForce, Contacts, DCMotor, JointEncoder, JointVelocity, Measurement, Robot
from ...contact import ContactLaw, coulomb, hunt_crossley
from ...walking import GaitGenerator, LegCycle, StepCycle, wave_gait
from .model import build_model, foot_layout, hip_placements, joint_names, leg_ik
from .params import (
    FORCE_SENSOR_RANGE_N,
    GEAR_KNEE,
    GEAR_OTHER,
    LEGS,
    POWER_KNEE_W,
    POWER_OTHER_W,
    AntonParams,
)

__all__ = ["build_robot", "walker", "WalkPlan", "standing_pose", "V_SUPPLY", "MOTOR_K"]

V_SUPPLY = 12.0   # [V], placeholder
MOTOR_K = 0.0143  # [N m/A = V s/rad], placeholder: 8000 rpm at 12 V


def _motor(joint: str) -> DCMotor:
    knee = joint.endswith("_gamma")
    power = POWER_KNEE_W if knee else POWER_OTHER_W
    return DCMotor(joint, joint, resistance=V_SUPPLY ** 2 / (4.0 * power), torque_constant=MOTOR_K,
                   v_max=V_SUPPLY, gear=GEAR_KNEE if knee else GEAR_OTHER, efficiency=0.8,
                   rotor_inertia=1e-6)


def build_robot(params: AntonParams | None = None, *, mu: float = 0.8, path: str = "smooth",
                obstacles=()) -> Robot:
    """ANTON with its 22 drives, sensors and rubber feet on the ground plane z = 0, and static
    ``obstacles`` (:class:`legsim.assembly.Obstacle`: steps, ledges) that the feet touch."""
    p = params or AntonParams()
    mb = build_model(p)
    joints = joint_names()
    feet = [f"{leg}_foot" for leg in LEGS]
    sensors = [JointEncoder("enc", joints=joints, measurement=Measurement(bits=16, lo=-math.pi, hi=math.pi)),
               JointVelocity("rate", joints=joints),
               ContactForce("shank", geometries=feet,
                            measurement=Measurement(lo=-FORCE_SENSOR_RANGE_N, hi=FORCE_SENSOR_RANGE_N)),
               IMU("gyro", body="middle", accelerometer=False)]
    law = ContactLaw(hunt_crossley(3e4, 1.5), coulomb(mu, 1e-2))
    return Robot(mb, actuators=[_motor(j) for j in joints], sensors=sensors,
                 contacts=Contacts(law, geometries=feet, path=path, obstacles=tuple(obstacles)))


@dataclass
class WalkPlan:
    """The action level: ``speed`` [m/s] forward (0: stand), ``gait`` name, ``step_length`` L_sum [m],
    ``adaptation_height`` H_ad [m], ``height`` of the body's centre over the ground [m], the feet's
    rectangle (``half_length``, ``half_width``) [m] and its centre's offset ``feet_x`` [m] along x
    from the middle segment (negative: the feet behind, the centre of mass forward of them),
    ``start`` [s] when walking begins; the gait frames (Fig. 3.23 pipeline step 2): ``direction``
    [rad] turns every foot's step about the vertical (0: forward, π/2: sideways to the left) and
    ``turn`` scales the steps of the two sides in opposite senses (left × (1 − turn), right ×
    (1 + turn): 0 straight, ±1 the inner side stepping in place; beyond ±1 the outer steps leave
    the placeholder legs' reach); ``gait_changes`` ((t [s], gait name), ...) switches the gait on
    the fly at the same speed (the gait generator applies it at the next all-support instant)."""

    speed: float = 0.1
    gait: str = "tripod"
    step_length: float = 0.07
    adaptation_height: float = 0.02
    height: float = 0.12
    half_length: float = 0.20
    half_width: float = 0.26
    feet_x: float = 0.0
    start: float = 0.3
    direction: float = 0.0
    turn: float = 0.0
    gait_changes: tuple[tuple[float, str], ...] = ()
    params: AntonParams = field(default_factory=AntonParams)

    def cycle(self, gait: str | None = None) -> StepCycle:
        """The step cycle whose stance speed is ``speed``: T_tr = L/V_tr and T_st = T_tr (1 − τ)/τ give
        V_st = L/T_st = V_tr τ/(1 − τ), so V_tr = V_st (1 − τ)/τ."""
        tau = wave_gait(gait or self.gait).tau
        v_tr = self.speed * (1.0 - tau) / tau
        return StepCycle(self.step_length, self.adaptation_height, v_tr, tau)


def _hip_in_robot(p: AntonParams) -> dict[str, tuple[np.ndarray, float]]:
    """Each hip's position in the middle segment's frame with a straight body, and its yaw [rad]."""
    off = {"front": 1.0, "middle": 0.0, "rear": -1.0}
    return {leg: (hip + np.array([off[seg] * p.segment_gap, 0.0, 0.0]), yaw)
            for leg, (seg, hip, yaw) in hip_placements(p).items()}


def _joint_targets(p: AntonParams, hips, feet_body: np.ndarray) -> np.ndarray:
    """Joint angles (22,) for the feet (6, 3) in the middle segment's frame, body joints straight."""
    q = np.zeros(22)
    for k, leg in enumerate(LEGS):
        hip, yaw = hips[leg]
        c, s = math.cos(yaw), math.sin(yaw)
        d = feet_body[k] - hip
        q[4 + 3 * k:7 + 3 * k] = leg_ik(p, (c * d[0] + s * d[1], -s * d[0] + c * d[1], d[2]))
    return q


def standing_pose(plan: WalkPlan) -> np.ndarray:
    """q0 (nq,): the body at ``plan.height``, feet on the rectangle touching the ground."""
    p = plan.params
    feet = np.column_stack([foot_layout("rectangle", plan.half_length, plan.half_width) + [plan.feet_x, 0.0],
                            np.full(6, p.foot_radius - plan.height)])
    q = np.zeros(7 + 22)
    q[2], q[6] = plan.height, 1.0
    q[7:] = _joint_targets(p, _hip_in_robot(p), feet)
    return q


def walker(plan: WalkPlan, kp: float = 60.0, kd: float = 0.5):
    """The controller ``(t, sensors) -> voltages (22,)`` [V]: stand until ``plan.start``, then walk.

    The feet's targets in the body frame: each leg's :class:`LegCycle` point (s along x around its
    rectangle corner, h up from the body's nominal ground) from its gait phase, on flat ground (the
    shank sensors' contact trigger, ``LegCycle.update(touch=...)``, is not used yet: with it the
    body sank step by step in a first trial, the PD loops' sag making every foot touch early);
    the servo level is a PD on each drive's voltage (``kp`` [V/rad], ``kd`` [V s/rad]). Attributes
    kept on the function for analysis: ``gen`` (the gait generator) and ``history`` (t, support
    flags).
    """
    p = plan.params
    hips = _hip_in_robot(p)
    centres = foot_layout("rectangle", plan.half_length, plan.half_width) + [plan.feet_x, 0.0]
    cyc = plan.cycle()
    gen = GaitGenerator(wave_gait(plan.gait), cyc.period)
    legs = [LegCycle(cyc) for _ in LEGS]
    cycles = {plan.gait: cyc}
    changes = sorted(plan.gait_changes)
    heading = (math.cos(plan.direction), math.sin(plan.direction))
    side_scale = [1.0 - plan.turn if leg[0] == "L" else 1.0 + plan.turn for leg in LEGS]
    dt = 1e-3
    history: list[tuple[float, np.ndarray]] = []
    q_stand = _joint_targets(p, hips, np.column_stack([centres, np.full(6, p.foot_radius - plan.height)]))

    def controller(t, s):
        if t < plan.start or plan.speed == 0.0:
            target = q_stand
            history.append((t, np.ones(6, dtype=bool)))
        else:
            while changes and t >= changes[0][0]:
                name = changes.pop(0)[1]
                cycles[name] = plan.cycle(name)
                gen.set_gait(wave_gait(name), cycles[name].period)
            support = gen.step(dt)
            if legs[0].cycle is not cycles[gen.gait.name]:  # the change took effect this tick
                for leg in legs:
                    leg.cycle = cycles[gen.gait.name]
            feet = np.empty((6, 3))
            for k, leg in enumerate(legs):
                leg.update(float(gen.phase[k]), 0.0, not support[k], dt)
            for k, leg in enumerate(legs):
                step = leg.s * side_scale[k]
                feet[k] = (centres[k, 0] + step * heading[0], centres[k, 1] + step * heading[1],
                           p.foot_radius - plan.height + leg.h)
            target = _joint_targets(p, hips, feet)
            history.append((t, support.copy()))
        return np.clip(kp * (target - s.enc) - kd * s.rate, -V_SUPPLY, V_SUPPLY)

    controller.gen = gen  # type: ignore[attr-defined]
    controller.history = history  # type: ignore[attr-defined]
    return controller
