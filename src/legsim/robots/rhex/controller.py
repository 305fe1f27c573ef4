"""Open-loop "Buehler clock" controller with hip PD (SimSect digest §4.13; manual §5.2, §5.5).

**Clock.** Each leg follows a monotone clock angle psi(t) with parameters
u = (t_c, t_s, phi_s, phi_0): a slow phase sweeping phi_s in t_s (centred on mid-stance,
psi = phi_0) and a fast phase sweeping 2 pi − phi_s in t_c − t_s. Four phases per leg, measured
from mid-stance (⚠ digest reconstruction):  Z0 = [0, t_s/2), Z1 = [t_s/2, t_c/2),
Z2 = [t_c/2, t_c − t_s/2), Z3 = [t_c − t_s/2, t_c). Tripod A = {0, 2, 4} starts (t = 0) at
mid-stance (phase 0), tripod B = {1, 3, 5} at mid-flight (phase 2): the tripods are offset by
t_c/2.

**Hip angle convention.** With phi > 0 meaning the toe ahead of the hip (see
:mod:`._kinematics`), a stance leg pushes the body forward when phi *decreases*. The reference
is therefore ``phi_ref,i = −d_i psi_i``, with ``d_i = +1`` for a leg that drives the body forward
(``direction`` = +1) and −1 for the negated profile (``direction`` = −1, walking backward).

**Turning** (⚠ signs lost in the digest; convention chosen here):
* in place: ``turn_in_place`` = +1 gives the left legs (0, 1, 2) d = +1 and the right legs
  (3, 4, 5) d = −1, so the robot turns right (clockwise seen from above, yaw decreasing);
  −1 turns left.
* differential: the left legs use ``(t_c, t_s − delta_t, phi_s + delta_phi, phi_0)`` and the
  right legs ``(t_c, t_s + delta_t, phi_s − delta_phi, phi_0)``. When walking forward, positive
  gains make the left legs sweep faster and farther in stance: the robot turns right.

**Implementation as a hybrid controller.** The six reference angles are continuous states
(rate ``−d_i psi_dot``, a function of the leg's phase in the mode bits and of latched
bookkeeping states), and the clock transitions are *time guards* in the model's guard vector:
guard 12 is the half-cycle event (all legs 1→2 and 3→0 at ``t_half + t_c/2``) and guards
13 + i the slow↔fast switches of leg i (0→1 at ``t_half + t_s,i/2``, 2→3 at
``t_half + (t_c − t_s,i)/2``). Time guards are located to ``stop_precision`` like any other.
Parameter changes (t_c, t_s, phi_s, phi_0, turning, direction) are read from ``p`` only at the
half-cycle events (digest: "at phase 3→0 and 1→2"), where they are latched into the bookkeeping
states; the reference is then re-synchronised to the exact profile value (phi_0 at mid-stance,
phi_0 + pi at mid-flight, keeping the revolution count).

**PD** (``hex_OpenLoopControl``): ``tau = −kp wrap(phi − phi_ref) − kd (phidot − phidot_ref)``,
then clipped to the DC-motor torque–speed band (:mod:`legsim.actuators.electric`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...actuators.electric._kernels import saturate_torque
from ...errors import InputError
from .params import (
    CONTROL_PASSIVE,
    NLEG,
    P_CONTROL,
    P_DIR,
    P_DPHI,
    P_DT,
    P_KD,
    P_KG,
    P_KP,
    P_MAX_SPEED,
    P_MAX_TORQUE,
    P_PHI0,
    P_PHIS,
    P_TC,
    P_TS,
    P_TURN,
    TRIPOD_A,
    TWO_PI,
    X_DIR,
    X_PHI0,
    X_PHIS,
    X_REF,
    X_TC,
    X_THALF,
    X_TS,
)

G_HALF = 12
"""Guard index of the half-cycle clock event."""
G_SWITCH = 13
"""Guard index of leg 0's slow/fast switch (leg i: 13 + i)."""
NGUARD_CLOCK = 7

PHASE_SHIFT = 6


@njit(cache=True, nogil=True)
def phase_of(mode, i):
    """Clock phase (0..3) of leg i: bits 6 + 2i, 7 + 2i of the mode (digest §4.13)."""
    return (mode >> (PHASE_SHIFT + 2 * i)) & 3


@njit(cache=True, nogil=True)
def with_phase(mode, i, phase):
    """``mode`` with leg i's phase bits set to ``phase``."""
    sh = PHASE_SHIFT + 2 * i
    return (mode & ~(3 << sh)) | (phase << sh)


@njit(cache=True, nogil=True)
def clock_rate(x, mode, i):
    """psi_dot of leg i [rad/s]: phi_s/t_s in phases 0, 3 and (2 pi − phi_s)/(t_c − t_s) in 1, 2."""
    ph = phase_of(mode, i)
    ts = x[X_TS + i]
    phs = x[X_PHIS + i]
    if ph == 0 or ph == 3:
        return phs / ts
    return (TWO_PI - phs) / (x[X_TC] - ts)


@njit(cache=True, nogil=True)
def ref_rate(x, mode, i):
    """Rate of the reference hip angle, ``phidot_ref,i = −d_i psi_dot_i`` [rad/s]."""
    return -x[X_DIR + i] * clock_rate(x, mode, i)


@njit(cache=True, nogil=True)
def wrap_angle(a):
    """Angle wrapped into [−pi, pi)."""
    return (a + math.pi) % TWO_PI - math.pi


@njit(cache=True, nogil=True)
def hip_torque(x, p, mode, i, phi, phidot):
    """Hip torque of leg i [N·m]: PD on the clock reference, saturated by the motor (§4.13)."""
    if int(p[P_CONTROL]) == CONTROL_PASSIVE:
        return 0.0
    e = wrap_angle(phi - x[X_REF + i])
    tau = -p[P_KP] * e - p[P_KD] * (phidot - ref_rate(x, mode, i))
    return saturate_torque(tau, phidot, p[P_MAX_TORQUE], p[P_MAX_SPEED], p[P_KG])


@njit(cache=True, nogil=True)
def clock_guards(t, x, mode, g):
    """Write the clock time guards ``g[12]`` (half cycle) and ``g[13 + i]`` (slow/fast switches)."""
    th = x[X_THALF]
    tc = x[X_TC]
    g[G_HALF] = th + 0.5 * tc - t
    for i in range(NLEG):
        ph = phase_of(mode, i)
        if ph == 0:
            g[G_SWITCH + i] = th + 0.5 * x[X_TS + i] - t
        elif ph == 2:
            g[G_SWITCH + i] = th + 0.5 * (tc - x[X_TS + i]) - t
        else:
            g[G_SWITCH + i] = math.nan


@njit(cache=True, nogil=True)
def leg_gait(p, i):
    """Gait values ``(t_s, phi_s, d)`` of leg i from the parameters (turning rules above)."""
    left = i < 3
    turn = p[P_TURN]
    if turn != 0.0:
        d = 1.0 if turn > 0.0 else -1.0
        if not left:
            d = -d
    else:
        d = 1.0 if p[P_DIR] >= 0.0 else -1.0
    if left:
        return p[P_TS] - p[P_DT], p[P_PHIS] + p[P_DPHI], d
    return p[P_TS] + p[P_DT], p[P_PHIS] - p[P_DPHI], d


@njit(cache=True, nogil=True)
def latch(p, x_new):
    """Copy the controller parameters into the bookkeeping states (done at half cycles)."""
    x_new[X_TC] = p[P_TC]
    x_new[X_PHI0] = p[P_PHI0]
    for i in range(NLEG):
        ts, phs, d = leg_gait(p, i)
        x_new[X_TS + i] = ts
        x_new[X_PHIS + i] = phs
        x_new[X_DIR + i] = d


@njit(cache=True, nogil=True)
def clock_reset(t, x, p, mode, fired, x_new):
    """Apply fired clock guards to ``x_new`` and return the new mode (phase bits only).

    Slow/fast switches (guards 13 + i) only advance the phase (0→1, 2→3). The half-cycle event
    (guard 12) advances 1→2 and 3→0 for all legs, latches the parameters and re-synchronises
    the references (digest §4.13, ``hex_OpenLoopTransition``).
    """
    new = mode
    for i in range(NLEG):
        if fired[G_SWITCH + i] != 0:
            ph = phase_of(new, i)
            if ph == 0 or ph == 2:
                new = with_phase(new, i, ph + 1)
    if fired[G_HALF] != 0:
        latch(p, x_new)
        x_new[X_THALF] = t
        phi0 = x_new[X_PHI0]
        for i in range(NLEG):
            ph = phase_of(new, i)
            if ph == 1 or ph == 0:     # 0 only if its switch was missed: treat as 1
                nph = 2
                target = phi0 + math.pi
            else:
                nph = 0
                target = phi0
            new = with_phase(new, i, nph)
            d = x_new[X_DIR + i]
            psi = -d * x[X_REF + i]
            k = round((psi - target) / TWO_PI)
            x_new[X_REF + i] = -d * (target + TWO_PI * k)
    return new


# ------------------------------------------------------------------------- Python helpers
def initial_clock(p: np.ndarray, x: np.ndarray) -> int:
    """Latch the controller into ``x`` (in place) and return the phase bits.

    Tripod A at mid-stance (phase 0, psi = phi_0), tripod B at mid-flight (phase 2,
    psi = phi_0 + pi) at the clock origin ``x[ol_t_half]`` (0 in the default state; a run
    starting at t0 != 0 should pass ``ol_t_half = t0`` in its initial state, because the
    engine's ``init_partition`` does not receive t0). Writes the reference and bookkeeping
    states.
    """
    latch(p, x)
    mode = 0
    for i in range(NLEG):
        d = x[X_DIR + i]
        if i in TRIPOD_A:
            x[X_REF + i] = -d * x[X_PHI0]
        else:
            x[X_REF + i] = -d * (x[X_PHI0] + math.pi)
            mode = int(with_phase(mode, i, 2))
    return mode


def check_gait(p: np.ndarray) -> None:
    """Reject controller parameters that make the clock ill-defined (:class:`InputError`): each
    side's slow phase, with its turning offset, must fit inside the clock period and sweep less
    than a turn. (Single-parameter ranges are declared in :data:`..params.PARAM_RANGES`.)"""
    tc, ts, phs = p[P_TC], p[P_TS], p[P_PHIS]
    if not tc > 0:
        raise InputError(f"parameter 't_c' = {tc:g}: expected a positive clock period [s]")
    for i in range(NLEG):
        tsi, phsi, _ = leg_gait(p, i)
        side = "left" if i < 3 else "right"
        if not 0 < tsi < tc:
            raise InputError(f"parameters 't_s' = {ts:g}, 'delta_t' = {p[P_DT]:g}: the {side} legs' "
                             f"slow phase t_s = {tsi:g} s must lie in (0, t_c = {tc:g} s)")
        if not 0 < phsi < TWO_PI:
            raise InputError(f"parameters 'phi_s' = {phs:g}, 'delta_phi' = {p[P_DPHI]:g}: the {side} "
                             f"legs' sweep phi_s = {phsi:g} rad must lie in (0, 2 pi)")


def clock_angle(t, t_c: float, t_s: float, phi_s: float, phi_0: float = 0.0, offset: float = 0.0):
    """Analytic Buehler-clock angle psi(t) [rad] (digest §4.13), t measured from mid-stance.

    ``offset`` shifts the leg's clock (t_c/2 for tripod B). Piecewise linear, increasing,
    psi(0) = phi_0, slope phi_s/t_s within t_s/2 of mid-stance and (2 pi − phi_s)/(t_c − t_s)
    elsewhere; psi(t + t_c) = psi(t) + 2 pi.
    """
    tau = np.asarray(t, dtype=float) + offset
    n = np.floor((tau + 0.5 * t_c) / t_c)   # cycle index with tau in [-t_c/2, t_c/2)
    s = tau - n * t_c
    slow = phi_s / t_s
    fast = (TWO_PI - phi_s) / (t_c - t_s)
    half = 0.5 * t_s
    psi = np.where(np.abs(s) <= half, slow * s,
                   np.sign(s) * (0.5 * phi_s + fast * (np.abs(s) - half)))
    return phi_0 + TWO_PI * n + psi
