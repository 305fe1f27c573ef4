"""Compiled hooks of the RATS single-leg vertical hop bench (private; see :mod:`.hop`).

Wagenknecht (2009) eqs. (5.5)–(5.7), (5.8)–(5.10), (5.11), (5.12); digest §2.4–§2.8.
Mode = phase + 8 · valve_open. Phases: REST (body on the retracted leg), UP / DOWN (stance,
leg sliding), STUCK (stance, stuck mid-stroke), FLIGHT, LANDED.
"""

from __future__ import annotations

import math

from numba import njit

from legsim.actuators.pneumatic._flow_kernels import cv_flow_corrected, cv_flow_source, orifice_flow
from legsim.hybrid import signatures as sig

REST = 0
UP = 1
DOWN = 2
STUCK = 3
FLIGHT = 4
LANDED = 5
VALVE = 8

# state indices
Y, X, V, P, PT, MU = 0, 1, 2, 3, 4, 5
# parameter indices
(M_BODY, M_LEG, G, AREA, V0, STROKE, BETA, F_F, K_RET, KAPPA, R_GAS, TEMP, P_ATM, T_OPEN, T_CLOSE,
 FLOW, CFA, CV, C1, C2, R_CR, R_LAM, SG, EXHAUST, EXH_AREA, V_TANK, LEAK_TAU, FRICTION) = range(28)

FLOW_ORIFICE = 0
FLOW_CV_SOURCE = 1
FLOW_CV_CORRECTED = 2
EXH_TRAPPED = 0
EXH_INSTANT = 1
EXH_ORIFICE = 2
FRICTION_THESIS = 0     # constant F_f against extension, as printed in (5.5)
FRICTION_SIGNED = 1     # F_f sign(v) with stick







@njit(cache=True)
def valve_flow(x, p):
    """Mass flow tank -> cylinder through the open valve [kg/s] (5.7) or (5.8)–(5.10)."""
    code = int(p[FLOW])
    if code == FLOW_ORIFICE:
        return orifice_flow(p[CFA], x[PT], x[P], p[TEMP], p[KAPPA], p[C1], p[C2], p[R_CR], p[R_LAM])
    if code == FLOW_CV_SOURCE:
        return cv_flow_source(p[CV], x[PT], x[P], p[TEMP], p[SG], p[R_GAS], p[R_CR])
    return cv_flow_corrected(p[CV], x[PT], x[P], p[TEMP], p[SG], p[R_GAS], 1.0 - p[R_CR], p[R_LAM])


@njit(cache=True)
def drive_force(x, p):
    """Gas and spring force on the body through the leg [N]: (P − P_atm) A − k x (5.5)."""
    return (x[P] - p[P_ATM]) * p[AREA] - p[K_RET] * x[X]


@njit(cache=True)
def leg_force(x, p, phase):
    """Force the leg exerts on the body in stance [N]: drive − friction − β v (5.5)."""
    ff = p[F_F]
    if int(p[FRICTION]) == FRICTION_SIGNED and phase == DOWN:
        ff = -ff
    return drive_force(x, p) - ff - p[BETA] * x[V]


@njit(cache=True)
def chamber_flow(x, p, valve):
    """Net mass flow into the cylinder [kg/s]: through the open valve, or the exhaust."""
    if valve:
        return valve_flow(x, p)
    if int(p[EXHAUST]) == EXH_ORIFICE:
        return -orifice_flow(p[EXH_AREA], x[P], p[P_ATM], p[TEMP], p[KAPPA], p[C1], p[C2], p[R_CR],
                             p[R_LAM])
    return 0.0


@sig.vector_field(allocates=False)
def vector_field(t, x, p, mode, xdot):
    phase = mode % 8
    valve = mode >= VALVE
    for i in range(xdot.size):
        xdot[i] = 0.0
    moving = phase == UP or phase == DOWN
    if moving:
        xdot[Y] = x[V]
        xdot[X] = x[V]
        xdot[V] = (leg_force(x, p, phase) - p[M_BODY] * p[G]) / p[M_BODY]
    elif phase == FLIGHT:
        xdot[Y] = x[V]
        xdot[V] = -p[G]
    mdot = chamber_flow(x, p, valve)
    if (not valve) and int(p[EXHAUST]) == EXH_INSTANT:
        xdot[P] = 0.0
    else:
        vol = p[V0] + p[AREA] * x[X]
        xdot[P] = p[KAPPA] * (p[R_GAS] * p[TEMP] * mdot - x[P] * p[AREA] * xdot[X]) / vol  # (5.11)
    rt_v = p[R_GAS] * p[TEMP] / p[V_TANK]
    if valve:
        xdot[PT] = -mdot * rt_v                                                          # (5.12)
        xdot[MU] = mdot
    if p[LEAK_TAU] > 0.0:
        xdot[PT] -= (x[PT] - p[P_ATM]) / p[LEAK_TAU]


NAN = math.nan


@sig.guards(allocates=False)
def guards(t, x, p, mode, g):
    phase = mode % 8
    valve = mode >= VALVE
    for i in range(g.size):
        g[i] = NAN
    if valve:
        g[1] = p[T_CLOSE] - t
    elif p[T_CLOSE] > p[T_OPEN]:
        g[0] = p[T_OPEN] - t
    net = drive_force(x, p) - p[M_BODY] * p[G]
    if phase == REST or phase == STUCK:
        g[2] = p[F_F] - net
    if phase == STUCK:
        g[3] = net + p[F_F]
    if phase == UP or phase == DOWN:
        g[4] = x[Y]
        g[5] = p[STROKE] - x[X]
        g[6] = leg_force(x, p, phase) + p[M_LEG] * p[G]
        if int(p[FRICTION]) == FRICTION_SIGNED:
            g[7] = x[V] if phase == UP else -x[V]
    if phase == FLIGHT:
        g[8] = x[Y]


@sig.reset(allocates=False)
def reset(t, x, p, mode, fired, x_new):
    phase = mode % 8
    valve = 1 if mode >= VALVE else 0
    if fired[0] != 0:
        valve = 1
    if fired[1] != 0:
        valve = 0
        if int(p[EXHAUST]) == EXH_INSTANT:
            x_new[P] = p[P_ATM]
    net = drive_force(x, p) - p[M_BODY] * p[G]
    if fired[2] != 0:
        phase = UP
    elif fired[3] != 0:
        phase = DOWN
    elif fired[5] != 0 or fired[6] != 0:
        # liftoff (end stop or foot unloaded): the leg's mass joins the body (momentum shared)
        x_new[V] = p[M_BODY] * x[V] / (p[M_BODY] + p[M_LEG])
        phase = FLIGHT
    elif fired[4] != 0:
        x_new[Y] = 0.0
        x_new[X] = 0.0
        x_new[V] = 0.0
        phase = REST
    elif fired[7] != 0:
        x_new[V] = 0.0
        if abs(net) <= p[F_F]:
            phase = STUCK
        elif net < 0.0:
            phase = DOWN
        else:
            phase = UP
    elif fired[8] != 0:
        x_new[V] = 0.0
        phase = LANDED
    return phase + VALVE * valve


@sig.outputs(allocates=False)
def outputs(t, x, p, mode, y):
    phase = mode % 8
    valve = mode >= VALVE
    y[0] = x[P] - p[P_ATM]
    y[1] = x[PT] - p[P_ATM]
    y[2] = chamber_flow(x, p, valve)
    if phase == UP or phase == DOWN:
        f = leg_force(x, p, phase)
        y[3] = f
        y[4] = f + p[M_LEG] * p[G]
    elif phase == REST or phase == STUCK:
        y[3] = drive_force(x, p)
        y[4] = p[M_BODY] * p[G] + p[M_LEG] * p[G]
    else:
        y[3] = 0.0
        y[4] = 0.0
