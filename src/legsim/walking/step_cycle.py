"""The step cycle of one leg (Konyev 2011 §3.4.2, Figs 3.19–3.20; contact digest §4.2, A13).

Phases: 1 transfer (horizontal, forward), 2 stance (horizontal, backward), 3 up, 4 down; combined
13 (forward and up), 14 (forward and down), 23 (support ending: lift-off) and 24 (support starting
below the nominal ground: the foot searching down). Parameters: the step length L_sum, the
adaptation-zone height H_ad, the horizontal transfer speed V_trans (limited by the motors) and the
transfer fraction τ. The thesis's equations:

    (3.1) V_tr = V_trans
    (3.2) V_up = V_down = 2 H_ad V_tr / L_sum
    (3.3) T_tr = 2 H_ad / V_up + 2 H_ad / V_down
    (3.4) Period = T_tr / τ
    (3.5) T_st = Period − T_tr
    (3.6) V_st = L_sum / (Period − L_sum / V_tr)

(3.2) into (3.3) gives T_tr = 2 L_sum / V_tr, while (3.6) takes the transfer to last L_sum / V_tr:
the printed set does not close (the foot covers L_sum forward in transfer and less than L_sum back
in stance). :class:`StepCycle` takes the consistent reading by default (``printed=False``): the
transfer lasts T_tr = L_sum / V_tr, the foot rising 2 H_ad over its first half and falling 2 H_ad
over its second (V_up = V_down = 4 H_ad V_tr / L_sum), V_st = L_sum / T_st. ``printed=True`` uses
(3.1)–(3.6) as printed, and :attr:`StepCycle.closure_error` says by how much a cycle fails to close.

The foot's path in the air, in four quarters of the transfer at the vertical speed V_up (so that
the 2 H_ad up and 2 H_ad down of (3.3) fill T_tr): 23, lift-off vertically from the support (the
foot keeps its place over the ground while the body moves on) by H_ad; 13, forward and up H_ad;
14, forward and down H_ad; 24, vertical placement: down H_ad to the zero level (the adaptation zone,
continued below zero in support when no ground has been met, down to H_ad below). The digest's
recommended "rise over the first half, fall over the second" is this path with the vertical lift-off
and placement the thesis lists among the cycle's features; they are what lets a foot step onto an
obstacle up to H_ad high without touching its edge (A13). Relative to the body the foot's forward
speed in 13 and 14 is 2 V_tr + V_st (it makes up the ground the body covered during 23 and 24).

Coordinates: ``s`` [m] along the walking direction relative to the cycle's centre (AEP at +L/2,
PEP at −L/2), ``h`` [m] up from the cycle's zero level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, as_float, shown

__all__ = ["StepCycle", "LegCycle", "adapt_clearance"]


@dataclass(frozen=True)
class StepCycle:
    """Step-cycle parameters: ``step_length`` L_sum [m], ``adaptation_height`` H_ad [m],
    ``transfer_speed`` V_trans [m/s], ``tau`` (0, ½], ``printed`` (see the module docstring)."""

    step_length: float
    adaptation_height: float
    transfer_speed: float
    tau: float
    printed: bool = False

    def __post_init__(self):
        for key in ("step_length", "adaptation_height", "transfer_speed"):
            v = getattr(self, key)
            if not 0.0 < as_float(v) < math.inf:
                raise InputError(f"StepCycle: {key} = {v!r}, expected a number > 0 [m or m/s]")
        if not 0.0 < as_float(self.tau) <= 0.5:
            raise InputError(f"StepCycle: tau = {self.tau!r}, expected 0 < tau <= 1/2")

    @property
    def v_up(self) -> float:
        """Vertical foot speed in transfer [m/s]: (3.2), or 4 H_ad V_tr / L_sum (consistent)."""
        k = 2.0 if self.printed else 4.0
        return k * self.adaptation_height * self.transfer_speed / self.step_length

    @property
    def transfer_time(self) -> float:
        """T_tr [s]: (3.3) = 2 L_sum / V_tr as printed; L_sum / V_tr consistent."""
        return 4.0 * self.adaptation_height / self.v_up

    @property
    def period(self) -> float:
        """(3.4) [s]."""
        return self.transfer_time / self.tau

    @property
    def stance_time(self) -> float:
        """(3.5) [s]."""
        return self.period - self.transfer_time

    @property
    def stance_speed(self) -> float:
        """The body's speed over ground [m/s]: (3.6) as printed; L_sum / T_st consistent."""
        if self.printed:
            return self.step_length / (self.period - self.step_length / self.transfer_speed)
        return self.step_length / self.stance_time

    @property
    def transfer_horizontal_speed(self) -> float:
        """The foot's forward speed in transfer [m/s]: L_sum / T_tr (V_tr when consistent)."""
        return self.step_length / self.transfer_time

    @property
    def closure_error(self) -> float:
        """Forward travel in transfer minus backward travel in stance per cycle [m] (0: it closes)."""
        return self.step_length - self.stance_speed * self.stance_time

    def ideal(self, phase) -> tuple[np.ndarray, np.ndarray]:
        """The ideal cycle on flat ground: foot (s, h) [m] at ``phase`` ∈ [0, 1) (0: lift-off at the
        PEP; τ: touchdown at the AEP), elementwise over an array of phases (:meth:`ideal_at`)."""
        ph = np.asarray(phase, dtype=float)
        out = np.array([self.ideal_at(float(v)) for v in ph.ravel()]).reshape(ph.shape + (2,))
        return out[..., 0], out[..., 1]

    def ideal_at(self, phase: float) -> tuple[float, float]:
        """:meth:`ideal` at one phase (the controller's per-tick call: scalar arithmetic only): the
        four transfer quarters of the module docstring, then the stance back from AEP to PEP."""
        ph = phase % 1.0
        L, H = self.step_length, self.adaptation_height
        if ph >= self.tau:  # stance: AEP -> PEP at the stance speed
            return (0.5 - (ph - self.tau) / (1.0 - self.tau)) * L, 0.0
        q = 4.0 * ph / self.tau
        drift = self.stance_speed * self.transfer_time / 4  # the body's travel during 23 (and 24)
        if q < 1.0:
            s = -L / 2 - drift * q
        elif q < 3.0:
            s = (-L / 2 - drift) + (L + 2 * drift) * (q - 1.0) / 2.0  # 13 and 14
        else:
            s = L / 2 + drift * (4.0 - q)
        return s, H * (q if q < 2.0 else 4.0 - q)


class LegCycle:
    """One leg's reference cycle with contact-triggered support and the adaptation zone.

    Feed it the leg's phase (from :class:`~legsim.walking.gaits.GaitGenerator`), whether the gait
    has it in the air, and the ground height under the foot. In the air the foot follows
    :meth:`StepCycle.ideal` (shifted so that it leaves from where the last support left it, in
    height too, the shift fading out over the transfer); it
    enters support the moment it meets the ground on the way down (an obstacle up to 2 H_ad high),
    or, not having met it by the end of the transfer, keeps descending at V_down in support
    (phase 24) down to H_ad below the zero level. In support the foot stays where it landed (it moves
    back relative to the body at the stance speed). The timing never changes: the period is the same
    whatever the contact height. :meth:`update` returns (s, h) [m]; ``phase_code`` is 23, 13, 14 (in
    the air), 24 (support, searching down) or 2; ``contact_height`` the last touchdown height [m].
    """

    def __init__(self, cycle: StepCycle):
        if not isinstance(cycle, StepCycle):
            raise InputError(f"LegCycle: 'cycle' = {shown(cycle)}, expected a StepCycle")
        self.cycle = cycle
        self.s, self.h = -cycle.step_length / 2, 0.0
        self.contact_height = 0.0
        self.in_contact = True
        self.phase_code = 2
        self._lift_offset = 0.0
        self._lift_height = 0.0

    def update(self, phase: float, ground: float, in_air: bool, dt: float,
               touch: bool | None = None, felt: float | None = None) -> tuple[float, float]:
        """Foot (s, h) [m] at ``phase`` with the ground ``ground`` [m] under it; ``in_air``: the gait
        generator has the leg in transfer; ``dt`` [s] since the last update; ``touch``: a sensed
        contact (a shank force sensor) that replaces the comparison with ``ground`` when given (a
        robot does not know the ground's height: it feels it); ``felt``: the foot's measured height
        [m] (its encoders), which a sensed touchdown holds instead of the commanded height (a foot
        lagging its command touches while the command is still above the ground)."""
        c = self.cycle
        s_ideal, h_ideal = c.ideal_at(phase)
        if in_air and self.in_contact and phase < c.tau / 2:
            # lift-off (start of 23): leave from where the support put the foot
            self._lift_offset = self.s - c.ideal_at(0.0)[0]
            self._lift_height = self.contact_height
        if in_air:
            u = phase / c.tau
            descending = u >= 0.5
            self.phase_code = (24 if u >= 0.75 else 14) if descending else (23 if u < 0.25 else 13)
            if not descending:
                self.in_contact = False
            elif not self.in_contact and (h_ideal <= ground if touch is None else touch):
                self.in_contact = True  # touchdown on the way down
                self.contact_height = ground if touch is None else self.h if felt is None else felt
            if self.in_contact:
                self.s -= c.stance_speed * dt
                self.h = self.contact_height
            else:
                self.s = s_ideal + self._lift_offset * (1.0 - u)
                self.h = h_ideal + self._lift_height * (1.0 - u)
            return self.s, self.h
        self.s -= c.stance_speed * dt
        if not self.in_contact:  # support began in the air: search down (24) within the zone
            floor = -c.adaptation_height
            if touch is None:
                self.h = max(min(self.h, 0.0) - c.v_up * dt, ground, floor)
                found = self.h <= ground
            else:
                found = touch
                if not found:
                    self.h = max(min(self.h, 0.0) - c.v_up * dt, floor)
            if found or self.h <= floor:
                self.in_contact = True
                self.contact_height = self.h if felt is None or not found or touch is None else felt
                self.h = self.contact_height
            self.phase_code = 24
            return self.s, self.h
        self.phase_code = 2
        self.h = self.contact_height
        return self.s, self.h


def adapt_clearance(legs: list[LegCycle]) -> float:
    """Clearance adaptation (§3.4.2, start logic step 5): when every leg in support stands above the
    cycles' zero level, the zero level moves up to the lowest of them (the whole cycle shifts
    vertically by the ground's minimal height), so the legs stretch back to their nominal length.
    Returns the shift [m] (0 when some supporting leg is at or below zero, or none supports)."""
    if not (isinstance(legs, (list, tuple)) and all(isinstance(leg, LegCycle) for leg in legs)):
        raise InputError(f"adapt_clearance: 'legs' = {shown(legs)}, expected a list of LegCycle")
    standing = [leg for leg in legs if leg.in_contact]
    if not standing:
        return 0.0
    shift = min(leg.contact_height for leg in standing)
    if shift <= 0.0:
        return 0.0
    for leg in legs:
        leg.contact_height -= shift
        leg.h -= shift
        leg._lift_height -= shift
    return shift
