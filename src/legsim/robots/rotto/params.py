"""ROTTO's parameters (Konyev 2011 §4.1–4.3; contact digest §4.3).

From the source: a biped with a linear drive in every joint; hips and ankles are 2-DoF parallel
mechanisms (two drives through connecting rods and a ball joint: moving together turns one axis,
in opposition the other, "double rotation moment on the two axes"), the knee a serial 1-DoF joint
with one drive, and "two linear actuators [in the pelvis] realise the vertical degree of freedom
for each leg". The linear drive: EC motor → belt (ratio 2) → ball screw; nominal 128 N at
0.64 m/s, maximum 400 N and 0.72 m/s, not together. Sensors: an absolute encoder per joint, a
six-axis F/T sensor in each shank (Table 4.1), an inertial sensor on the body. Control at 1 ms.

Not in the source (masses and lengths are not given; "more than 25 DoF" with arms and torso):
legsim models the legs and pelvis, **12 actuated DoF**, 6 per leg, with documented placeholder
lengths and masses for a biped of about 18 kg and 0.75 m hip height (the upper body lumped into
the pelvis), configurable through :class:`RottoParams`. "The vertical DoF" of the pelvis drives is
read as the hip's rotation about the vertical axis (hip yaw): the only leg DoF the hip and ankle
pairs and the knee leave out of a 6-DoF leg.

Each joint's drive acts through a rod on a lever (:mod:`.linkage`): the lever arms below are
placeholders that give the knee and the hip pairs the torques a standing and stepping robot of
this mass needs with 400 N drives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import check_fields

__all__ = ["RottoParams", "LEGS", "JOINTS", "DRIVE_F_MAX", "DRIVE_V_MAX", "DRIVE_F_NOMINAL",
           "DRIVE_V_NOMINAL", "BELT_RATIO", "T_SAMPLE"]

LEGS = ("L", "R")
JOINTS = ("hip_yaw", "hip_roll", "hip_pitch", "knee", "ankle_pitch", "ankle_roll")
"""A leg's joints from the pelvis down (joint ``<leg>_<joint>``): yaw about the vertical, the hip
pair (roll about x, then pitch about y: a universal joint), the knee (pitch), the ankle pair
(pitch, then roll)."""

DRIVE_F_MAX, DRIVE_V_MAX = 400.0, 0.72          # [N], [m/s], source §4.1.1 (not together)
DRIVE_F_NOMINAL, DRIVE_V_NOMINAL = 128.0, 0.64  # [N], [m/s], source §4.1.1
BELT_RATIO = 2.0                                # source §4.1.1
T_SAMPLE = 1e-3                                 # [s], control period (source §4.2.2, §5)


@dataclass(frozen=True)
class RottoParams:
    """Placeholder geometry and masses (SI: m, kg).

    ``pelvis_size`` (length, width, height) of the pelvis box (upper body lumped in);
    ``hip_y`` the hips' lateral offset from the centre line, ``hip_z`` their height below the
    pelvis centre; ``yaw_link`` the vertical distance from the yaw joint down to the hip's
    roll/pitch centre; ``thigh`` and ``shank`` lengths (hip centre → knee → ankle centre);
    ``ankle_height`` from the ankle centre down to the sole; ``foot_size`` (length, width,
    thickness) of the foot plate and ``foot_x`` its centre forward of the ankle; ``sole_radius``
    of the four rubber pads at the sole's corners (the contact points). Lever arms [m] of the drives
    (:mod:`.linkage`): ``hip_arm`` (pitch: the two rods' offset along x), ``hip_spread`` (roll: their
    lateral offset), ``knee_arm``, ``ankle_arm``, ``ankle_spread``, ``yaw_arm``; ``rod`` the drives'
    length at the zero posture. The drive train: ``screw_lead`` [m/rev] of the ball screw and the
    motor's ``rotor_inertia`` [kg m²], the placeholders of
    :func:`legsim.actuators.electric.drive_loops.rotto_actuator` (8 mm: 0.72 m/s at 10 800 rpm of the
    motor through the belt's 2:1); :attr:`drive` is that actuator, :attr:`drive_mass` the rotor's
    inertia reflected to the rod."""

    pelvis_size: tuple[float, float, float] = (0.16, 0.30, 0.14)
    hip_y: float = 0.09
    hip_z: float = 0.07
    yaw_link: float = 0.05
    thigh: float = 0.32
    shank: float = 0.32
    ankle_height: float = 0.06
    foot_size: tuple[float, float, float] = (0.22, 0.12, 0.02)
    foot_x: float = 0.03
    sole_radius: float = 0.01
    pelvis_mass: float = 8.0
    yaw_link_mass: float = 0.3
    hip_link_mass: float = 0.3
    thigh_mass: float = 2.2
    shank_mass: float = 1.6
    ankle_link_mass: float = 0.2
    foot_mass: float = 0.6
    hip_arm: float = 0.07
    hip_spread: float = 0.05
    knee_arm: float = 0.06
    ankle_arm: float = 0.06
    ankle_spread: float = 0.04
    yaw_arm: float = 0.04
    rod: float = 0.16
    screw_lead: float = 0.008
    rotor_inertia: float = 3e-6

    def __post_init__(self):
        boxes = ("pelvis_size", "foot_size")
        check_fields("RottoParams", self, positive_triples=boxes, finite=("foot_x",),
                      positive=[f for f in self.__dataclass_fields__ if f not in boxes and f != "foot_x"])

    @property
    def drive(self):
        """The linear actuator (:class:`~legsim.actuators.electric.drive_loops.RottoActuator`): its motor
        chosen so that its voltage and current limits are the source's ratings."""
        from ...actuators.electric.drive_loops import rotto_actuator

        return rotto_actuator(lead=self.screw_lead, belt=BELT_RATIO, rotor_inertia=self.rotor_inertia)

    @property
    def drive_ratio(self) -> float:
        """Motor angle per rod travel [rad/m]: 2π · belt ratio / lead (1/KV)."""
        return 2.0 * math.pi * BELT_RATIO / self.screw_lead

    @property
    def drive_mass(self) -> float:
        """The rotor's inertia seen at the rod [kg]: J_r · ratio²."""
        return self.rotor_inertia * self.drive_ratio ** 2

    @property
    def leg_mass(self) -> float:
        return (self.yaw_link_mass + self.hip_link_mass + self.thigh_mass + self.shank_mass
                + self.ankle_link_mass + self.foot_mass)

    @property
    def total_mass(self) -> float:
        return self.pelvis_mass + 2 * self.leg_mass
