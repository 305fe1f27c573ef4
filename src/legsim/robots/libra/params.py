"""LIBRA's numbers (MIT thesis on CJTC, digest ``shared/spec/cjtc-libra.md`` §4, §5, §10.1 item 8).

Coordinates are the thesis's: a vertical plane, x horizontal (to the right ladder), y up, angles
counter-clockwise. Joint variables q = [θ1 .. θ6]: limb 1 knee θ1 and hip θ2; limb 2 hip θ3 and knee
θ4; limb 3 hip θ5 and knee θ6. φ is the (unmeasured) angle of limb 1's first link, foot 1 -> knee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import InputError, check_array, check_number, check_whole, shown

MAX_LENGTH = 10.0
"""The largest length [m] of LIBRA's geometry (a half link, the hip spacing, a wheel, the span): LIBRA spans
0.7 m, and with parts up to 10 m every point of the kinematics stays well within
:data:`legsim.robots.libra.kinematics.MAX_DISTANCE` (1e3 m)."""
MAX_MASS = 1000.0
"""The largest mass [kg] of a part (LIBRA's are 0.2 kg to 1.1 kg, 8 kg in all)."""
MAX_VALUE = 1e9
"""The largest drive or environment number, in SI units: a gear ratio, a torque [N m], a stiffness [N/m], a
motor constant [N m/A, V s/rad], a resistance [Ω], an inductance [H], a current [A], a voltage [V], a speed
[rpm]. LIBRA's are 1e-3 to 6e3; products of a few (a continuous torque k_t i N η) stay finite."""
MAX_BACKLASH = math.pi
"""The largest gear backlash [rad] (LIBRA's: 2°): half a turn of play is no gear."""
MAX_JOINT_LIMIT = 2.0 * math.pi
"""The largest magnitude of a joint limit [rad]: one turn either way (LIBRA's stops are within ±132°)."""


def _check(owner: str, obj, *, positive=(), nonnegative=(), hi: float = MAX_VALUE) -> None:
    """Hold the named fields of the frozen dataclass ``obj`` as floats: ``positive`` ones in (0, ``hi``],
    ``nonnegative`` ones in [0, ``hi``]; else an :class:`InputError` naming ``owner`` and the field."""
    for names, lo_open in ((positive, True), (nonnegative, False)):
        for name in names:
            object.__setattr__(obj, name, check_number(owner, name, getattr(obj, name), lo=0.0, hi=hi,
                                                       lo_open=lo_open))


ENCODER_COUNTS_PER_MOTOR_REV = 2000
"""Escap motor encoder, counts per motor revolution after quadrature (§4.2)."""
GEAR_RATIO = 792.0
"""Escap 23DT12-216E gearhead ratio (§4.2)."""


def encoder_counts_per_output_rev(counts: int = ENCODER_COUNTS_PER_MOTOR_REV,
                                  gear: float = GEAR_RATIO) -> int:
    """Counts per output revolution: 2000 x 792 = 1,584,000 (§4.2, acceptance 10); ``counts`` per motor
    revolution a whole number in [1, MAX_VALUE], ``gear`` in (0, MAX_VALUE]."""
    o = "encoder_counts_per_output_rev"
    counts = check_whole(o, "counts", counts, 1, int(MAX_VALUE))
    return int(round(counts * check_number(o, "gear", gear, lo=0.0, hi=MAX_VALUE, lo_open=True)))


@dataclass(frozen=True)
class EscapMotor:
    """The Escap 23DT12-216E DC motor (§4.2 table) behind LIBRA's transconductance amplifier (App. B).

    torque_constant : k_t [N m/A] (23.3 mN m/A); back_emf : k_b [V s/rad] (0.0024 V/rpm);
    resistance : R_m [Ω] (9.7); inductance : L_m [H] (0.8 mH; the amplifier's current loop hides it);
    no_load_current : i_0 [A] (20 mA: the motor's own friction); i_continuous : [A] (0.9);
    efficiency : the gearhead's η (0.55); supply : the amplifiers' rails ±V [V] (two 24 V supplies,
    App. B); max_input_speed : [rpm] (3000, the gearhead's rating).

    Checked when made (held as floats): efficiency in (0, 1], inductance and no_load_current in
    [0, MAX_VALUE], the others in (0, MAX_VALUE].
    """

    torque_constant: float = 0.0233
    back_emf: float = 0.0024 * 60.0 / (2.0 * math.pi)
    resistance: float = 9.7
    inductance: float = 0.8e-3
    no_load_current: float = 0.020
    i_continuous: float = 0.9
    efficiency: float = 0.55
    supply: float = 24.0
    max_input_speed: float = 3000.0

    def __post_init__(self):
        o = "EscapMotor"
        _check(o, self, positive=("torque_constant", "back_emf", "resistance", "i_continuous", "supply",
                                  "max_input_speed"), nonnegative=("inductance", "no_load_current"))
        _check(o, self, positive=("efficiency",), hi=1.0)


def _motor(owner: str, motor) -> EscapMotor:
    """``motor`` if it is an :class:`EscapMotor`, else an :class:`InputError` naming ``owner``."""
    if not isinstance(motor, EscapMotor):
        raise InputError(f"{owner}: 'motor' = {shown(motor)}, expected an EscapMotor")
    return motor


def continuous_torque(motor: EscapMotor = EscapMotor(), gear: float = GEAR_RATIO) -> float:
    """Continuous output torque [N m] = k_t i_cont N η = 0.0233 x 0.9 x 792 x 0.55 ≈ 9.13 (§4.2 [derived]);
    ``motor`` an :class:`EscapMotor`, ``gear`` in (0, MAX_VALUE]."""
    motor = _motor("continuous_torque", motor)
    gear = check_number("continuous_torque", "gear", gear, lo=0.0, hi=MAX_VALUE, lo_open=True)
    return motor.torque_constant * motor.i_continuous * gear * motor.efficiency


JOINT_LIMITS_DEG = ((-117.0, 117.0), (-69.0, 132.0), (-69.0, 132.0), (-117.0, 117.0), (-110.0, 110.0),
                    (-117.0, 117.0))
"""Joint limits θ1..θ6 [deg], set by the mounting hardware (§4.2 table; J2, J3: +132/−69)."""


@dataclass(frozen=True)
class LibraParams:
    """LIBRA's geometry, masses and drive limits (§4.1, §4.2, App. C).

    half_link : L [m]; every link is 2L = 0.156 m long.
    r : body centre to a hip (body motor) [m] (equilateral body of side N: r = N/√3).
    N : distance between the hips of limbs 1 and 2 [m].
    m_link : each link, lumped at mid-link [kg]; m_motor : each joint motor, at the joint [kg];
    m_body : the body plate at its centre ("100 kg" in the OCR, read 1.00 kg) [kg];
    m_limb3 : limb 3 lumped at its hip (joint 5) in the App. C model [kg] (≈ 2 m_link + 2 m_motor).
    k_wall : the environmental (wall) stiffness K_e [N/m]; wheel_diameter : rubber foot wheels [m];
    span : limb span [m]; mass_stated : the thesis's stated total mass [kg] (the modelled parts sum
    to ≈ 4.26 kg; the difference is unexplained in the source).
    gear : gearhead ratio; backlash : output backlash [rad] (2°); tau_dynamic : max dynamic output
    torque [N m] (4.5 at 20 rpm); tau_static : max static torque [N m] (20); joint_limits : (6, 2) [rad];
    motor : the six drives' :class:`EscapMotor`.

    Checked when made (an :class:`~legsim.errors.InputError` naming the field; numbers held as floats):
    lengths (half_link, r, N, wheel_diameter, span) in (0, MAX_LENGTH] m, masses (m_link, m_motor, m_body,
    m_limb3, mass_stated) in (0, MAX_MASS] kg, k_wall, gear, tau_dynamic and tau_static in (0, MAX_VALUE],
    backlash in [0, MAX_BACKLASH] rad, joint_limits (lower, upper) per joint with lower <= upper, within
    ±MAX_JOINT_LIMIT rad.
    """

    half_link: float = 0.078
    r: float = 0.048
    N: float = 0.083
    m_link: float = 0.1960
    m_motor: float = 0.3466
    m_body: float = 1.00
    m_limb3: float = 1.09
    k_wall: float = 5837.0
    wheel_diameter: float = 0.083
    span: float = 0.7
    mass_stated: float = 8.0
    gear: float = GEAR_RATIO
    backlash: float = math.radians(2.0)
    tau_dynamic: float = 4.5
    tau_static: float = 20.0
    joint_limits: np.ndarray = field(default_factory=lambda: np.radians(np.array(JOINT_LIMITS_DEG)))
    motor: EscapMotor = EscapMotor()

    def __post_init__(self):
        o = "LibraParams"
        _check(o, self, positive=("half_link", "r", "N", "wheel_diameter", "span"), hi=MAX_LENGTH)
        _check(o, self, positive=("m_link", "m_motor", "m_body", "m_limb3", "mass_stated"), hi=MAX_MASS)
        _check(o, self, positive=("k_wall", "gear", "tau_dynamic", "tau_static"))
        _check(o, self, nonnegative=("backlash",), hi=MAX_BACKLASH)
        lim = check_array(o, "joint_limits", self.joint_limits, (6, 2), "rad")
        if not (np.all(lim[:, 0] <= lim[:, 1]) and np.all(np.abs(lim) <= MAX_JOINT_LIMIT)):
            raise InputError(f"{o}: joint_limits = {shown(self.joint_limits)}, expected (lower, upper) [rad] "
                             f"per joint with lower <= upper, within ±{MAX_JOINT_LIMIT:g}")
        object.__setattr__(self, "joint_limits", lim)
        _motor(o, self.motor)

    @property
    def link(self) -> float:
        """2L, one link's length [m]."""
        return 2.0 * self.half_link

    @property
    def wheel_radius(self) -> float:
        return 0.5 * self.wheel_diameter

    @property
    def tau_continuous(self) -> float:
        """≈ 9.1 N m (:func:`continuous_torque`)."""
        return continuous_torque(self.motor, self.gear)


TUNED_KP = np.array([1000.0, 500.0, 8.0, 100.0])
"""Tuned body/foot-2 stiffnesses [x_b, y_b (N/m), θ_b (N m/rad), x_2 (N/m)] (§4.5.1)."""
TUNED_KD = np.array([200.0, 100.0, 2.0, 20.0])
"""Tuned dampings [x_b, y_b (N s/m), θ_b (N m s/rad), x_2 (N s/m)] (§4.5.1; App. C prints
[100, 50, 8, 10] for the same set — inconsistent; §4.5.1 is taken)."""
SUGGESTED_KP = np.array([1000.0, 1000.0, 22.0, 500.0])
SUGGESTED_KD = np.array([160.0, 160.0, 4.0, 120.0])
"""The gains the linear analysis suggested before tuning (§4.5)."""
FOOT3_KP = np.array([100.0, 100.0])
FOOT3_KD = np.array([10.0, 10.0])
"""The free foot's x, y gains, trial and error (§4.5)."""

LADDER_SEPARATION = 0.18
"""Ladder separation of §4.1.1 and App. C [m] (the full-cycle plots put the right rungs at 0.45 m)."""
LADDER_SEPARATION_CYCLE = 0.45
STEP_HEIGHT = 0.134
"""Rung spacing [m] (§4.1; the full-cycle plots show steps at y = −0.135, 0, +0.135)."""
CONTROL_RATE = 300.0
"""The CJTC loop rate on the 68020 [Hz] (§4.2)."""
