"""Compiled hooks of the pneumatic CRR leg (private; see :mod:`.leg`).

Daepp (2011) Ch. 5 / digest §4 algorithm 1: per joint, PID (1 kHz) → valve voltage → MPYE-5 ports →
chamber energy balance → piston force with Stribeck-tanh friction → torque through the joint
linkage (5.2.7)–(5.2.9) → rigid-body leg (ABA of :mod:`legsim.multibody`).

Parameter vector ``p`` (SI): three actuator rows (``actuators.pneumatic._layout``, Alpha, Beta,
Gamma), then per-joint linkage/controller/reference blocks (``NJ`` each, layout and controller
kernels in :mod:`._joint_kernels`), then the coupling block,
then the multibody model's flat buffers (``fbuf``, then ``ibuf`` stored as exact floats; numba
hooks cannot capture a multibody ``Data`` object, so the hook rebuilds the model views and a
scratch data buffer from ``p`` at each call, as ``multibody._layout`` intends).

Coupling (digest §7 item 8): MONOLITHIC integrates actuators and bodies as one ODE (torque and
joint state exchanged continuously). COSIM emulates the thesis's split architecture: at each 1 kHz
tick the target reads the SrLib packet delivered ``d_up`` ticks late (θ, θ̇ held for the actuator
model and the PID), and the torque it sends reaches the rigid body ``d_down`` ticks later, held for
one tick. During an exchange pause SrLib blocks on receive, so the rigid body freezes (mode PAUSED,
q̇ = v̇ = 0) while the target keeps integrating its actuators with the stale θ, θ̇; after the pause
the exchange resumes with the next packets (queued packets are not replayed).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from legsim.actuators.pneumatic import _layout as L
from legsim.actuators.pneumatic._chamber_kernels import cylinder_rates, pressure_force
from legsim.actuators.pneumatic._friction_kernels import friction_force
from legsim.actuators.pneumatic._linkage_kernels import cylinder_of_joint
from legsim.hybrid import signatures as sig
from legsim.multibody._kernels import forward_dynamics
from legsim.multibody._workspace import model_workspace

from ._joint_kernels import KIND, L1, L2, L3, L4, L5, NJ, pid_law, reference_at
from ._joint_kernels import NTAB as NTAB  # re-exported: the leg's reference tables hold NTAB points

MONOLITHIC = 0
COSIM = 1
PAUSED = 2

NA = L.NPARAM
O_J = 3 * NA                  # first joint block
G = O_J + 3 * NJ              # coupling block
DT, COUPLING, D_UP, D_DOWN, PAUSE_T0, PAUSE_DUR, NFB, NIB = range(G, G + 8)
MB = G + 8                    # multibody fbuf, then ibuf

# states: continuous, then bookkeeping
Q = 0                         # joint angles (3) [rad]
V = 3                         # joint rates (3) [rad/s]
GAS = 6                       # 3 x [P_cap, P_rod, m_cap, m_rod, m_air]
NC = 21
U = 21                        # held valve voltages (3) [V]
INTEG = 24
EPREV = 27
REF = 30
TRX = 33                      # torque held at the rigid body (COSIM) [N m]
QRX = 36                      # joint angle seen by the target (COSIM) [rad]
VRX = 39                      # joint rate seen by the target (COSIM) [rad/s]
PKT = 42                      # packets exchanged so far
DMAX = 4                      # ring depth: one-way delays 0 .. DMAX-1 ticks
RING_UP = 43                  # DMAX x [θ(3), θ̇(3)]
RING_DN = RING_UP + 6 * DMAX  # DMAX x torque(3)
FPREV = RING_DN + 3 * DMAX    # net pressure force at the previous tick (3) [N]
NX = FPREV + 3


@njit(cache=True)
def joint_block(j):
    return O_J + j * NJ


# ---- per-joint kernels at explicit offsets ---------------------------------------------------
# ``ra``: first entry of the joint's actuator row in p; ``b``: its joint block (linkage, PID,
# reference; slots KIND ... TAB of ._joint_kernels); ``g``: its five gas states [P_cap, P_rod, m_cap, m_rod,
# m_air] in x; ``ui``: its held valve voltage in x.

@njit(cache=True)
def piston_at(p, ra, b, theta, theta_dot):
    """(x, ẋ, dx/dθ) of a joint's cylinder, x clamped to [0, stroke] (Daepp (5.2.1)–(5.2.9))."""
    x, xd, arm = cylinder_of_joint(int(p[b + KIND]), p[b + L1], p[b + L2], p[b + L3], p[b + L4],
                                   p[b + L5], theta, theta_dot)
    stroke = p[ra + L.STROKE]
    return min(max(x, 0.0), stroke), xd, arm


@njit(cache=True)
def piston_force_at(p, ra, x, g, xd):
    """Piston force F = P_cap A_cap − P_rod A_rod − P_atm A_rod,cs − F_f(ẋ) [N], Daepp (4.1.11)."""
    row = p[ra:ra + NA]
    return pressure_force(row, x[g], x[g + 1]) - friction_force(row, xd, 0.0, 0, 0.0)


@njit(cache=True)
def joint_torque_at(p, ra, b, x, g, theta, theta_dot):
    """T = F dx/dθ [N m] of a joint seeing (θ, θ̇) (virtual work; (5.2.7)–(5.2.9) with sign)."""
    _, xd, arm = piston_at(p, ra, b, theta, theta_dot)
    return piston_force_at(p, ra, x, g, xd) * arm


@njit(cache=True)
def gas_rates_at(p, ra, b, x, g, ui, theta, theta_dot, xdot):
    """Chamber-state rates of a joint's actuator (Daepp (4.1.1), (4.1.10)) into ``xdot[g:g+5]``."""
    xp, xd, _ = piston_at(p, ra, b, theta, theta_dot)
    row = p[ra:ra + NA]
    a, bb, c, d, e = cylinder_rates(row, x[ui], xp, xd, x[g], x[g + 1], x[g + 2], x[g + 3])
    xdot[g] = a
    xdot[g + 1] = bb
    xdot[g + 2] = c
    xdot[g + 3] = d
    xdot[g + 4] = e


@njit(cache=True)
def pid_voltage(p, ra, b, x, g, theta, r, integ_prev, e_prev, f_prev, k, dt):
    """One 1 kHz tick of a joint's controller (see :func:`sample`): :func:`._joint_kernels.pid_law`
    with the net pressure force F_p of the joint's gas states ``x[g:g+2]`` (4.1.11); tick ``k`` = 0
    has no derivative. Returns (u [V], ∫e [rad s], e [rad], F_p [N])."""
    f_p = pressure_force(p[ra:ra + NA], x[g], x[g + 1])
    u, integ, e = pid_law(p, ra, b, f_p, theta, r, integ_prev, e_prev, f_prev, k == 0, dt)
    return u, integ, e, f_p


# ---- the leg's joint j (offsets of this module's layout) ------------------------------------

@njit(cache=True)
def piston(p, j, theta, theta_dot):
    """(x, ẋ, dx/dθ) of joint j's cylinder, x clamped to [0, stroke] (Daepp (5.2.1)–(5.2.9))."""
    return piston_at(p, j * NA, joint_block(j), theta, theta_dot)


@njit(cache=True)
def piston_force(p, j, x, xd):
    """Piston force F = P_cap A_cap − P_rod A_rod − P_atm A_rod,cs − F_f(ẋ) [N], Daepp (4.1.11)."""
    return piston_force_at(p, j * NA, x, GAS + 5 * j, xd)


@njit(cache=True)
def joint_torque(p, x, j, theta, theta_dot):
    """T = F dx/dθ [N m] for joint j seeing (θ, θ̇) (virtual work; (5.2.7)–(5.2.9) with sign)."""
    return joint_torque_at(p, j * NA, joint_block(j), x, GAS + 5 * j, theta, theta_dot)


@njit(cache=True)
def gas_rates(p, x, j, theta, theta_dot, xdot):
    """Chamber-state rates of joint j's actuator (Daepp (4.1.1), (4.1.10)) into ``xdot``."""
    gas_rates_at(p, j * NA, joint_block(j), x, GAS + 5 * j, U + j, theta, theta_dot, xdot)


@njit(cache=True)
def leg_acceleration(p, q, v, tau, ddq):
    """q̈ (3,) = ABA(q, v, τ + passive joint-limit forces) of the multibody leg (Featherstone 7.1)."""
    m, d, _ = model_workspace(p, MB, int(p[NFB]), int(p[NIB]), 0)
    if not forward_dynamics(m, d, q, v, tau, d.zero_nb6, ddq):
        for i in range(ddq.size):
            ddq[i] = math.nan


@sig.vector_field
def vector_field(t, x, p, mode, xdot):
    for i in range(xdot.size):
        xdot[i] = 0.0
    tau = np.empty(3)
    for j in range(3):
        if mode == MONOLITHIC:
            th = x[Q + j]
            thd = x[V + j]
            tau[j] = joint_torque(p, x, j, th, thd)
        else:
            th = x[QRX + j]
            thd = x[VRX + j]
            tau[j] = x[TRX + j]
        gas_rates(p, x, j, th, thd, xdot)
    if mode == PAUSED:
        return
    ddq = np.empty(3)
    leg_acceleration(p, x[Q:Q + 3], x[V:V + 3], tau, ddq)
    for j in range(3):
        xdot[Q + j] = x[V + j]
        xdot[V + j] = ddq[j]


@njit(cache=True)
def reference(t, p, j):
    """Joint j's reference angle [rad] at time t [s] (:func:`reference_at` of its block)."""
    return reference_at(t, p, joint_block(j))


@njit(cache=True)
def paused(t, p):
    """True while the emulated exchange is stalled (pause window [t0, t0 + duration))."""
    dur = p[PAUSE_DUR]
    eps = 1e-9
    return dur > 0.0 and t >= p[PAUSE_T0] - eps and t < p[PAUSE_T0] + dur - eps


@sig.sample(allocates=False)
def sample(t, x, p, mode, k, x_new):
    """The target's 1 kHz tick: packet exchange (COSIM), then per joint the PID on the joint angle
    plus feedback of the net pressure force F_p (the prototype's "position and pressure feedback",
    digest §1.1; the pressures are local to the target, so this loop is not delayed):
    u = u_bias + s g (kp e + ki ∫e + kd Δe/Δt) − g (k_F F_p + k_Fd ΔF_p/Δt), s = sign(dx/dθ),
    saturated to 0–10 V
    with the integrator held while saturated."""
    cosim = int(p[COUPLING]) == COSIM
    new_mode = MONOLITHIC
    stalled = False
    n = int(x[PKT])
    if cosim:
        stalled = paused(t, p)
        new_mode = PAUSED if stalled else COSIM
        if not stalled:
            slot = RING_UP + 6 * (n % DMAX)
            for j in range(3):
                x_new[slot + j] = x[Q + j]
                x_new[slot + 3 + j] = x[V + j]
            src = RING_UP + 6 * ((n - int(p[D_UP])) % DMAX)
            for j in range(3):
                x_new[QRX + j] = x_new[src + j]
                x_new[VRX + j] = x_new[src + 3 + j]
    dt = p[DT]
    for j in range(3):
        th = x_new[QRX + j] if cosim else x[Q + j]
        r = reference(t, p, j)
        u, integ, e, f_p = pid_voltage(p, j * NA, joint_block(j), x, GAS + 5 * j, th, r,
                                       x[INTEG + j], x[EPREV + j], x[FPREV + j], k, dt)
        x_new[FPREV + j] = f_p
        x_new[U + j] = u
        x_new[INTEG + j] = integ
        x_new[EPREV + j] = e
        x_new[REF + j] = r
    if cosim and not stalled:
        slot = RING_DN + 3 * (n % DMAX)
        for j in range(3):
            x_new[slot + j] = joint_torque(p, x, j, x_new[QRX + j], x_new[VRX + j])
        src = RING_DN + 3 * ((n - int(p[D_DOWN])) % DMAX)
        for j in range(3):
            x_new[TRX + j] = x_new[src + j]
        x_new[PKT] = n + 1
    return new_mode


@sig.outputs(allocates=False)
def outputs(t, x, p, mode, y):
    """y = [ref (3) rad, applied torque (3) N m, piston force (3) N, piston position (3) m]."""
    for j in range(3):
        if mode == MONOLITHIC:
            th = x[Q + j]
            thd = x[V + j]
        else:
            th = x[QRX + j]
            thd = x[VRX + j]
        xp, xd, arm = piston(p, j, th, thd)
        f = piston_force(p, j, x, xd)
        y[j] = x[REF + j]
        y[3 + j] = f * arm if mode == MONOLITHIC else x[TRX + j]
        y[6 + j] = f
        y[9 + j] = xp
