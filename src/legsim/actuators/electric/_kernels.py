"""Compiled kernels of the electric actuator models (numba; only math here).

The public, validating wrappers are in :mod:`.dcmotor` and :mod:`.battery`; robot models call
these kernels directly from their compiled hooks.
"""

from __future__ import annotations

import math

from numba import njit

TWO_PI_OVER_60 = 2.0 * math.pi / 60.0
"""rad/s per rpm."""


@njit(cache=True, nogil=True)
def torque_limits(omega_leg, stall_torque, max_speed_rpm, gear_ratio):
    """Torque band of a voltage-limited DC motor, referred to the gear output (digest §4.9).

    Linear torque–speed curve (Maxon RE118751 data-sheet shape, digest Figure 7a): with the
    motor speed ``w_m = gear_ratio * omega_leg`` and the no-load speed ``w_nl`` the available
    output torque lies in ``[lo, hi]`` with ``hi = tau_s (1 - w_m/w_nl)`` and
    ``lo = -tau_s (1 + w_m/w_nl)``, both clipped to ``[-tau_s, tau_s]`` (the stall torque also
    bounds the current when braking). The band is zero-width on the driving side at the
    no-load speed: ``hi = 0`` at ``w_m = w_nl``.

    Parameters
    ----------
    omega_leg : float, leg (gear output) angular speed [rad/s]
    stall_torque : float, stall torque at the gear output, ``tau_s`` [N·m] (``max_torque``)
    max_speed_rpm : float, no-load motor speed [rpm] (``max_speed``)
    gear_ratio : float, ``k_g`` [-]

    Returns
    -------
    (lo, hi) : floats [N·m]
    """
    w = gear_ratio * omega_leg / (max_speed_rpm * TWO_PI_OVER_60)
    hi = stall_torque * (1.0 - w)
    lo = -stall_torque * (1.0 + w)
    hi = min(stall_torque, max(-stall_torque, hi))
    lo = min(stall_torque, max(-stall_torque, lo))
    return lo, hi


@njit(cache=True, nogil=True)
def saturate_torque(tau, omega_leg, stall_torque, max_speed_rpm, gear_ratio):
    """Commanded output torque clipped to the band of :func:`torque_limits` [N·m]."""
    lo, hi = torque_limits(omega_leg, stall_torque, max_speed_rpm, gear_ratio)
    return min(hi, max(lo, tau))


@njit(cache=True, nogil=True)
def peukert_rate(current, capacity_ah, rated_hours, exponent):
    """Discharge rate ``1/f(i)`` [1/s] of the Peukert law (see :mod:`.battery`); 0 at i = 0."""
    i = abs(current)
    if i == 0.0:
        return 0.0
    rated_current = capacity_ah / rated_hours
    return (i / rated_current) ** exponent / (rated_hours * 3600.0)
