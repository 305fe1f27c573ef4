"""ANTON's parameters (Konyev 2011 §3.1–3.3; contact digest §4.2).

From the source: three body segments ("shoulders") joined by two-DoF joints, each carrying two
3-DoF insect-like legs; servo DC drives of 2.8 W (knees) and 8.68 W (the other joints) with gear
ratios 390 (knees) and 251; six 3-axis shank force sensors (≤ 50 N, ≤ 1 % crosstalk), a 2-axis
gyroscope, spherical rubber feet; control at T_sample = 1 ms.

Not in the source (masses and lengths are not given): every length and mass below is a documented
placeholder for a realistic insect-like hexapod of about 8 kg, configurable through
:class:`AntonParams`.

Degrees of freedom: **22** = 6 legs × 3 + 2 inter-segment joints × 2. The source also counts "24
potentiometers and IGRs", which would make 24 joints; the mechanical description (two 2-DoF body
joints, 3-DoF legs) adds up to 22 and is the one the kinematics needs, so legsim builds 22 and
leaves the two extra sensors unexplained (perhaps the head's camera axes).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import check_fields

__all__ = ["AntonParams", "LEGS", "SEGMENTS", "GEAR_KNEE", "GEAR_OTHER", "POWER_KNEE_W", "POWER_OTHER_W",
           "FORCE_SENSOR_RANGE_N", "FORCE_SENSOR_CROSSTALK", "T_SAMPLE"]

SEGMENTS = ("front", "middle", "rear")
LEGS = ("L1", "L2", "L3", "R1", "R2", "R3")
"""Leg names: side (L/R) and row from the front; index order of :mod:`legsim.walking.gaits`."""

GEAR_KNEE, GEAR_OTHER = 390.0, 251.0          # source §3.2
POWER_KNEE_W, POWER_OTHER_W = 2.8, 8.68        # source §3.2, maximum drive power [W]
FORCE_SENSOR_RANGE_N = 50.0                    # source Fig. 3.4
FORCE_SENSOR_CROSSTALK = 0.01
T_SAMPLE = 1e-3                                # [s], source §3.4


@dataclass(frozen=True)
class AntonParams:
    """Placeholder geometry and masses (SI: m, kg). ``segment_size`` (length, width, height) of each
    body segment box; ``segment_gap`` between segment centres; ``hip_y`` the hips' lateral offset
    from a segment's centre line; ``coxa``, ``femur``, ``tibia`` link lengths; ``foot_radius`` the
    rubber sphere; masses per segment, per inter-segment joint link and per leg link."""

    segment_size: tuple[float, float, float] = (0.16, 0.14, 0.06)
    segment_gap: float = 0.20
    hip_y: float = 0.07
    coxa: float = 0.05
    femur: float = 0.14
    tibia: float = 0.18
    foot_radius: float = 0.02
    segment_mass: float = 1.4
    joint_link_mass: float = 0.05
    coxa_mass: float = 0.12
    femur_mass: float = 0.25
    tibia_mass: float = 0.15
    foot_mass: float = 0.03

    def __post_init__(self):
        check_fields("AntonParams", self, positive_triples=("segment_size",),
                      positive=[f for f in self.__dataclass_fields__ if f != "segment_size"])

    @property
    def total_mass(self) -> float:
        leg = self.coxa_mass + self.femur_mass + self.tibia_mass + self.foot_mass
        return 3 * self.segment_mass + 2 * self.joint_link_mass + 6 * leg
