"""Brushed DC motor through a gear: Maxon RE118751 (20 W) with a 33:1 gearhead (digest §4.9).

The only mechanical effect in the hexapod simulation is the torque–speed limit (linear curve,
zero driving torque at the no-load speed). Armature current and voltage are computed offline
from a run, neglecting the electrical dynamics (digest §4.9):

    i_a = tau / (K_tau k_g),        v_a = r_a i_a + k_g omega / K_omega,

with ``tau`` and ``omega`` the torque [N·m] and speed [rad/s] at the gear output (the leg).
SI-consistent constants: ``K_omega`` = ``speed_constant`` = 61.261056 rad/(V·s) = 585 rpm/V,
and ``K_tau = 1/K_omega`` = 0.0163235 N·m/A (for an ideal DC machine the torque constant in
N·m/A equals the back-EMF constant in V·s/rad; the manual's torque-constant value is lost, so
this identity is the documented choice). The back-EMF term ``k_g omega / K_omega`` is the motor
speed ``k_g omega`` divided by the speed constant.
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import check_broadcast, check_number, check_values
from . import _kernels as _k

__all__ = [
    "RPM_PER_RAD_S",
    "MAX_VALUE",
    "MAXON_RE118751",
    "speed_constant_rpm_per_volt",
    "torque_limits",
    "saturate_torque",
    "armature_current",
    "armature_voltage",
    "stall_torque",
]

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)
"""rpm per rad/s."""

MAXON_RE118751 = {
    "max_speed": 10000.0,          # no-load speed [rpm] (digest Table 2)
    "speed_constant": 61.261056,   # K_omega [rad/(V s)] = 585 rpm/V (digest Table 2)
    "torque_constant": 1.0 / 61.261056,  # K_tau [N m/A], SI identity K_tau = 1/K_omega
    "armature_resist": 2.0,        # r_a [ohm]; lost in the digest, typical of 20 W RE25 windings
    "gear_ratio": 33.0,            # k_g (digest §4.9)
}
"""Motor and gear constants used as defaults by the hexapod model."""


MAX_VALUE = 1e12
"""Largest magnitude of a checked value (SI units), here and in :mod:`.pmsm` and :mod:`.drive_loops`: a
motor constant, gear ratio or speed lies in [1/MAX_VALUE, MAX_VALUE], a torque, current or speed within
±MAX_VALUE, so that products and quotients of a few of them stay finite (no overflow to inf, no division
by a subnormal number)."""


def _positive(name: str, value: float) -> float:
    """A motor constant, gear ratio or speed in [1/MAX_VALUE, MAX_VALUE]."""
    return check_number("DC motor", name, value, lo=1.0 / MAX_VALUE, hi=MAX_VALUE)


def _values(name: str, value) -> np.ndarray:
    """A torque, current or speed: a number or an array within ±MAX_VALUE."""
    return check_values("DC motor", name, value, lo=-MAX_VALUE, hi=MAX_VALUE)


def speed_constant_rpm_per_volt(k_omega: float) -> float:
    """Convert a speed constant ``K_omega`` from rad/(V·s) to rpm/V (61.261056 -> 585.0); ``k_omega`` in
    [1/MAX_VALUE, MAX_VALUE]."""
    return _positive("k_omega", k_omega) * RPM_PER_RAD_S


def torque_limits(omega_leg, stall_torque: float, max_speed_rpm: float = 10000.0,
                  gear_ratio: float = 33.0):
    """Available output-torque band ``(lo, hi)`` [N·m] at leg speed ``omega_leg`` [rad/s].

    See :func:`legsim.actuators.electric._kernels.torque_limits`; vectorised over ``omega_leg``.
    """
    ts = _positive("stall_torque", stall_torque)
    ns = _positive("max_speed_rpm", max_speed_rpm)
    kg = _positive("gear_ratio", gear_ratio)
    w = _values("omega_leg", omega_leg)
    lo = np.empty_like(w)
    hi = np.empty_like(w)
    for idx, om in np.ndenumerate(w):
        lo[idx], hi[idx] = _k.torque_limits(float(om), ts, ns, kg)
    if w.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def saturate_torque(tau, omega_leg, stall_torque: float, max_speed_rpm: float = 10000.0,
                    gear_ratio: float = 33.0):
    """Clip commanded output torques ``tau`` [N·m] to the motor band at ``omega_leg`` [rad/s] (shapes that
    broadcast together; a Python wrapper for analysis: the robot's controller calls the compiled kernel)."""
    lo, hi = torque_limits(omega_leg, stall_torque, max_speed_rpm, gear_ratio)
    t = _values("tau", tau)
    check_broadcast("DC motor", tau=t, omega_leg=lo)
    return np.minimum(hi, np.maximum(lo, t))


def armature_current(tau, torque_constant: float = MAXON_RE118751["torque_constant"],
                     gear_ratio: float = 33.0):
    """Armature current ``i_a = tau / (K_tau k_g)`` [A] for output torque ``tau`` [N·m].

    Digest §4.9 (electrical dynamics and gear losses neglected). Shape follows ``tau``.
    """
    kt = _positive("torque_constant", torque_constant)
    kg = _positive("gear_ratio", gear_ratio)
    return _values("tau", tau) / (kt * kg)


def armature_voltage(i_a, omega_leg, armature_resist: float = MAXON_RE118751["armature_resist"],
                     gear_ratio: float = 33.0,
                     speed_constant: float = MAXON_RE118751["speed_constant"]):
    """Armature voltage ``v_a = r_a i_a + k_g omega / K_omega`` [V] (digest §4.9).

    ``i_a`` [A] and the leg speed ``omega_leg`` [rad/s] broadcast together.
    """
    ra = check_number("DC motor", "armature_resist", armature_resist, lo=0.0, hi=MAX_VALUE)
    kg = _positive("gear_ratio", gear_ratio)
    kw = _positive("speed_constant", speed_constant)
    i, w = _values("i_a", i_a), _values("omega_leg", omega_leg)
    check_broadcast("DC motor", i_a=i, omega_leg=w)
    return ra * i + kg * w / kw


def stall_torque(max_speed_rpm: float = 10000.0, speed_constant: float = MAXON_RE118751["speed_constant"],
                 torque_constant: float = MAXON_RE118751["torque_constant"],
                 armature_resist: float = MAXON_RE118751["armature_resist"], gear_ratio: float = 33.0):
    """Stall torque at the gear output [N·m] of the motor driven at the voltage that gives
    ``max_speed_rpm`` at no load: ``V = w_nl / K_omega``, ``tau_s = k_g K_tau V / r_a``.

    With the defaults (10000 rpm, 585 rpm/V, 2 Ω, 33:1): V ≈ 17.1 V and tau_s ≈ 4.6 N·m. Use it
    as the hexapod's ``max_torque`` for a motor-limited robot (Table 2's 10000 N·m is
    effectively unlimited).
    """
    w_nl = _positive("max_speed_rpm", max_speed_rpm) / RPM_PER_RAD_S
    volts = w_nl / _positive("speed_constant", speed_constant)
    return (_positive("gear_ratio", gear_ratio) * _positive("torque_constant", torque_constant) * volts
            / _positive("armature_resist", armature_resist))
