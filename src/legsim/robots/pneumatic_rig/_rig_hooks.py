"""Compiled hooks of the 1-DoF cylinder test rig (private; see :mod:`.rig`).

Daepp (2011) Ch. 4 and App. B: MPYE-5 valve + Bimba cylinder + attached mass, PID valve-voltage
controller sampled at 1 kHz, or PVA (position, velocity and acceleration feedback, the law of the
quadruped's joint control units, digest §1.1, §3.6), both with an overall gain scale.
Parameter vector = the actuator row (``_layout``, NPARAM entries)
followed by the rig parameters below, then an optional reference table (times, values).
Modes: FREE (moving, velocity-only friction laws), BOTTOM / TOP (at an end stop), STUCK (stick
state of the Coulomb and stiction laws), SLIDE_POS / SLIDE_NEG (those laws while sliding with
v > 0 / v < 0: the direction is part of the mode so the friction is smooth within a mode).
"""

from __future__ import annotations

import math

from numba import njit

from legsim.actuators.pneumatic import _layout as L
from legsim.actuators.pneumatic._chamber_kernels import cylinder_rates, pressure_force
from legsim.actuators.pneumatic._friction_kernels import (
    COULOMB,
    LUGRE,
    STICTION,
    friction_force,
    lugre_zdot,
)
from legsim.hybrid import signatures as sig

FREE = 0
BOTTOM = 1
TOP = 2
STUCK = 3
SLIDE_POS = 4
SLIDE_NEG = 5

# state indices: continuous, then bookkeeping (held by the sampled controller): the PVA law's last
# sampled position and its velocity and acceleration estimates
X, V, PCAP, PROD, MCAP, MROD, MAIR, Z, U, INTEG, EPREV, REF, XPREV, VEST, AEST = range(15)
NX = 15

# rig parameter indices (after the actuator row)
O = L.NPARAM
MASS = O + 0          # moving mass [kg]
GRAV = O + 1          # gravity component along extension [m/s^2] (+9.81: rod pointing down)
KP = O + 2            # PID gains [V/m], [V/(m s)], [V s/m]
KI = O + 3
KD = O + 4
U_BIAS = O + 5        # controller output at zero error [V] (the 5.25 V offset)
DT = O + 6            # controller sample period [s]
OPEN_LOOP = O + 7     # 1: the reference is the valve voltage itself
REF_KIND = O + 8      # 0 step, 1 trapezoid, 2 sine, 3 table (linear), 4 table (held)
R0 = O + 9            # initial level
R1 = O + 10           # step / trapezoid level
T_START = O + 11
T_RAMP = O + 12
T_HOLD = O + 13
AMP = O + 14
OMEGA = O + 15        # [rad/s]
N_TABLE = O + 16
GAIN_SCALE = O + 17   # overall factor on the feedback gains [-] (the thesis's -25 %: 0.75)
CONTROLLER = O + 18   # CTRL_PID or CTRL_PVA
KV = O + 19           # PVA velocity gain [V s/m]
KA = O + 20           # PVA acceleration gain [V s^2/m]
PVA_CUTOFF = O + 21   # first-order low-pass on the PVA's differenced estimates [Hz]; 0 = none
TABLE = O + 22        # then N times, then N values
NRIG = 22

CTRL_PID = 0
CTRL_PVA = 1

REF_STEP = 0
REF_TRAPEZOID = 1
REF_SINE = 2
REF_TABLE = 3
REF_TABLE_HOLD = 4


@njit(cache=True)
def reference(t, p):
    """Reference at time t: position [m] (closed loop) or voltage [V] (open loop)."""
    kind = int(p[REF_KIND])
    t0 = p[T_START]
    if kind == REF_STEP:
        return p[R0] if t < t0 else p[R1]
    if kind == REF_TRAPEZOID:
        tr = p[T_RAMP]
        th = p[T_HOLD]
        period = 2.0 * (tr + th)
        if t < t0:
            return p[R0]
        s = (t - t0) % period
        if s < tr:
            return p[R0] + (p[R1] - p[R0]) * s / tr
        if s < tr + th:
            return p[R1]
        if s < 2.0 * tr + th:
            return p[R1] - (p[R1] - p[R0]) * (s - tr - th) / tr
        return p[R0]
    if kind == REF_SINE:
        if t < t0:
            return p[R0]
        return p[R0] + p[AMP] * math.sin(p[OMEGA] * (t - t0))
    n = int(p[N_TABLE])
    ts = TABLE
    vs = TABLE + n
    if t <= p[ts]:
        return p[vs]
    if t >= p[ts + n - 1]:
        return p[vs + n - 1]
    lo = 0
    hi = n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if p[ts + mid] <= t:
            lo = mid
        else:
            hi = mid
    if kind == REF_TABLE_HOLD:
        return p[vs + lo]
    w = (t - p[ts + lo]) / (p[ts + hi] - p[ts + lo])
    return p[vs + lo] + w * (p[vs + hi] - p[vs + lo])


@njit(cache=True)
def applied_force(x, p):
    """Pressure force plus gravity along extension [N] (everything but friction)."""
    return pressure_force(p, x[PCAP], x[PROD]) + p[MASS] * p[GRAV]


@njit(cache=True)
def breakaway_level(p):
    """Force needed to leave rest: F_S (stiction), F_C (Coulomb), 0 for velocity-only laws."""
    model = int(p[L.FRICTION_MODEL])
    if model == STICTION:
        return p[L.F_S]
    if model == COULOMB:
        return min(p[L.F_C_POS], p[L.F_C_NEG])
    return 0.0


@njit(cache=True)
def sticks(p):
    model = int(p[L.FRICTION_MODEL])
    return model == STICTION or model == COULOMB


@njit(cache=True)
def moving_friction(x, p, mode):
    """Friction while moving [N]: the sliding branch F_C± ± C_V v of a sticking law in the
    SLIDE modes (Daepp (4.2.1), (4.2.4)), else the velocity law (Stribeck-tanh, viscous, ...)."""
    if mode == SLIDE_POS:
        return p[L.F_C_POS] + p[L.C_V] * x[V]
    if mode == SLIDE_NEG:
        return -p[L.F_C_NEG] + p[L.C_V] * x[V]
    return friction_force(p, x[V], 0.0, 0, x[Z])


@njit(cache=True)
def is_moving(mode):
    return mode == FREE or mode == SLIDE_POS or mode == SLIDE_NEG


@njit(cache=True)
def friction_now(x, p, mode):
    """Friction force [N] in the current mode (at rest it balances the applied force)."""
    f_app = applied_force(x, p)
    if mode == STUCK:
        return min(breakaway_level(p), max(-breakaway_level(p), f_app))
    if mode == BOTTOM or mode == TOP:
        return 0.0
    return moving_friction(x, p, mode)


@njit(cache=True)
def start_moving(p, f_app):
    """Mode entered when the piston starts to move under the applied force f_app."""
    if not sticks(p):
        return FREE
    return SLIDE_POS if f_app > 0.0 else SLIDE_NEG


@sig.vector_field(allocates=False)
def vector_field(t, x, p, mode, xdot):
    for i in range(xdot.size):
        xdot[i] = 0.0
    xpos = min(max(x[X], 0.0), p[L.STROKE])
    moving = is_moving(mode)
    v = x[V] if moving else 0.0
    dpc, dpr, dmc, dmr, dair = cylinder_rates(p, x[U], xpos, v, x[PCAP], x[PROD], x[MCAP], x[MROD])
    xdot[PCAP] = dpc
    xdot[PROD] = dpr
    xdot[MCAP] = dmc
    xdot[MROD] = dmr
    xdot[MAIR] = dair
    if moving:
        xdot[X] = x[V]
        xdot[V] = (applied_force(x, p) - moving_friction(x, p, mode)) / p[MASS]
        if int(p[L.FRICTION_MODEL]) == LUGRE:
            xdot[Z] = lugre_zdot(p, x[V], x[Z])


NAN = math.nan


@sig.guards(allocates=False)
def guards(t, x, p, mode, g):
    for i in range(g.size):
        g[i] = NAN
    f_app = applied_force(x, p)
    lvl = breakaway_level(p)
    if is_moving(mode):
        g[0] = x[X]
        g[1] = p[L.STROKE] - x[X]
        if mode == SLIDE_POS:
            g[4] = x[V]
        elif mode == SLIDE_NEG:
            g[4] = -x[V]
    elif mode == BOTTOM:
        g[2] = lvl - f_app
    elif mode == TOP:
        g[3] = lvl + f_app
    elif mode == STUCK:
        g[5] = lvl - abs(f_app)


@sig.reset(allocates=False)
def reset(t, x, p, mode, fired, x_new):
    if fired[0] != 0:
        x_new[X] = 0.0
        x_new[V] = 0.0
        return BOTTOM
    if fired[1] != 0:
        x_new[X] = p[L.STROKE]
        x_new[V] = 0.0
        return TOP
    f_app = applied_force(x, p)
    if fired[2] != 0 or fired[3] != 0 or fired[5] != 0:
        x_new[V] = 0.0
        return start_moving(p, f_app)
    if fired[4] != 0:
        # velocity reversal of a sticking law: stick unless the applied force breaks away
        x_new[V] = 0.0
        if abs(f_app) <= breakaway_level(p):
            return STUCK
        return start_moving(p, f_app)
    return mode


@sig.sample(allocates=False)
def sample(t, x, p, mode, k, x_new):
    """Valve-voltage controller at the sample instants, saturated to the valve range.

    PID: u = u_bias + s (Kp e + Ki ∫e + Kd ė). PVA: u = u_bias + s (Kp e + Ki ∫e − Kv v̂ − Ka â), with v̂ and
    â the backward differences of the sampled position (the JCUs read a potentiometer only), each through
    a first-order low-pass at ``PVA_CUTOFF``. s is the gain scale; the integrator holds while saturated.
    """
    r = reference(t, p)
    x_new[REF] = r
    lo = p[L.U_MIN]
    hi = p[L.U_MAX]
    if p[OPEN_LOOP] != 0.0:
        x_new[U] = min(max(r, lo), hi)
        return mode
    dt = p[DT]
    e = r - x[X]
    integ = x[INTEG] + e * dt
    fb = p[KP] * e + p[KI] * integ
    if int(p[CONTROLLER]) == CTRL_PVA:
        beta = math.exp(-2.0 * math.pi * p[PVA_CUTOFF] * dt) if p[PVA_CUTOFF] > 0.0 else 0.0
        if k == 0:
            v_est = 0.0
            a_est = 0.0
        else:
            v_est = beta * x[VEST] + (1.0 - beta) * (x[X] - x[XPREV]) / dt
            a_est = beta * x[AEST] + (1.0 - beta) * (v_est - x[VEST]) / dt
        fb += -p[KV] * v_est - p[KA] * a_est
        x_new[XPREV] = x[X]
        x_new[VEST] = v_est
        x_new[AEST] = a_est
    else:
        fb += p[KD] * (0.0 if k == 0 else (e - x[EPREV]) / dt)
    u = p[U_BIAS] + p[GAIN_SCALE] * fb
    if u > hi or u < lo:
        integ = x[INTEG]            # anti-windup: hold the integrator while saturated
        u = min(max(u, lo), hi)
    x_new[U] = u
    x_new[INTEG] = integ
    x_new[EPREV] = e
    return mode


@sig.outputs(allocates=False)
def outputs(t, x, p, mode, y):
    fp = pressure_force(p, x[PCAP], x[PROD])
    ff = friction_now(x, p, mode)
    xpos = min(max(x[X], 0.0), p[L.STROKE])
    v = x[V] if is_moving(mode) else 0.0
    dpc, dpr, dmc, dmr, dair = cylinder_rates(p, x[U], xpos, v, x[PCAP], x[PROD], x[MCAP], x[MROD])
    y[0] = x[REF]
    y[1] = fp
    y[2] = ff
    y[3] = fp - ff
    y[4] = dmc
    y[5] = dmr
    y[6] = dair
