"""Compiled hooks of the CRR leg with prismatic cylinder actuators (private; see :mod:`.prismatic`).

The state, parameter layout, chamber/valve/friction models and the PID are those of
:mod:`._hooks` (imported, not copied); only the rigid-body step differs. The multibody block of
``p`` holds the augmented 9-DoF tree of :func:`.prismatic.crr_leg_with_cylinders` instead of the
3-DoF leg.

Closed loops by coordinate projection (Featherstone (2008) ch. 8, the explicit-constraint form
q = γ(y), q̇ = G ẏ, q̈ = G ÿ + Ġẏ): the tree's coordinates are an explicit function of the joint
angles, q_full = g(θ), so v_full = G θ̇ and
a_full = G θ̈ + Ġθ̇ with G = ∂g/∂θ (9 × 3). Projecting the tree's equations of motion
M_full a_full + b_full = τ_full + τ_passive onto the admissible motions gives

    (Gᵀ M_full G) θ̈ = Gᵀ (τ_full + τ_passive − [M_full Ġθ̇ + b_full]),

where the bracket is one RNEA call with acceleration Ġθ̇ (gravity included as a base
acceleration), τ_full carries the piston force F on each rod coordinate x (and the joint torque,
zero in monolithic mode), and τ_passive the leg's joint-limit spring-dampers. Gᵀ τ_full = F dx/dθ
on θ: exactly the torque of the torque mode; the difference is the cylinders' inertia and weight.

G is block-sparse: column j has 1 on θ_j, dφ_j/dθ_j on the barrel angle and dx_j/dθ_j on the
piston coordinate (each triangle spans only joint j's parent and child).

COSIM/PAUSED modes: the rigid body receives the held joint torque as in :mod:`._hooks` (the
emulated exchange sends torques); the cylinder bodies still contribute their inertia and weight.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from legsim.actuators.pneumatic._linkage_kernels import cylinder_coordinates
from legsim.hybrid import signatures as sig
from legsim.multibody._explicit import spd_solve
from legsim.multibody._kernels import crba, passive_forces, rnea
from legsim.multibody._workspace import model_workspace

from ._hooks import (
    KIND,
    L1,
    L2,
    L3,
    L4,
    L5,
    MB,
    MONOLITHIC,
    NFB,
    NIB,
    PAUSED,
    QRX,
    TRX,
    VRX,
    Q,
    V,
    gas_rates,
    joint_block,
    piston,
    piston_force,
)

NQ_FULL = 9                    # [θ (3), then (φ, x) per joint]
# scratch layout after the multibody data buffer
S_QF, S_VF, S_CONV = 0, 9, 18  # q_full, v_full, Ġθ̇ (9 each)
S_GPHI, S_GX = 27, 30          # dφ/dθ, dx/dθ (3 each)
NSCRATCH = 33


@njit(cache=True)
def barrel(j):
    """Index of joint j's barrel angle φ_j in q_full (its piston coordinate x_j is the next)."""
    return 3 + 2 * j


@njit(cache=True)
def closure(p, q, v, qf, vf, conv, gphi, gx):
    """Tree coordinates of the closed leg: q_full = g(θ) (9,), v_full = G θ̇ (9,), the convective
    acceleration Ġθ̇ (9,), and G's non-trivial entries dφ_j/dθ_j, dx_j/dθ_j (3,) each.
    ``q``, ``v``: joint angles [rad] and rates [rad/s] (3,)."""
    for j in range(3):
        b = joint_block(j)
        phi, dphi, ddphi, x, dx, ddx = cylinder_coordinates(
            int(p[b + KIND]), p[b + L1], p[b + L2], p[b + L3], p[b + L4], p[b + L5], q[j])
        k = barrel(j)
        w = v[j]
        qf[j] = q[j]
        vf[j] = w
        conv[j] = 0.0
        qf[k] = phi
        vf[k] = dphi * w
        conv[k] = ddphi * w * w
        qf[k + 1] = x
        vf[k + 1] = dx * w
        conv[k + 1] = ddx * w * w
        gphi[j] = dphi
        gx[j] = dx


@njit(cache=True)
def _mg(M, r, c, kc, gphi_c, gx_c):
    """Row r of M times column c of G."""
    return M[r, c] + gphi_c * M[r, kc] + gx_c * M[r, kc + 1]


@njit(cache=True)
def projected_acceleration(m, d, p, q, v, force, torque, ddq, s):
    """θ̈ (3,) of the closed leg under piston forces ``force`` [N] on the rod coordinates and joint
    torques ``torque`` [N m], by (Gᵀ M G) θ̈ = Gᵀ (τ_full + τ_passive − rnea(q_f, v_f, Ġθ̇)).
    ``m``, ``d``: the augmented tree and its data; ``s`` (NSCRATCH,) float scratch. Returns False
    (θ̈ = NaN) if Gᵀ M G is not positive definite."""
    qf = s[S_QF:S_QF + NQ_FULL]
    vf = s[S_VF:S_VF + NQ_FULL]
    conv = s[S_CONV:S_CONV + NQ_FULL]
    gphi = s[S_GPHI:S_GPHI + 3]
    gx = s[S_GX:S_GX + 3]
    closure(p, q, v, qf, vf, conv, gphi, gx)
    M = d.M
    crba(m, d, qf, M)
    r = d.tau
    rnea(m, d, qf, vf, conv, d.zero_nb6, r)
    passive_forces(m, qf, vf, d.qfrc_passive)
    for k in range(NQ_FULL):
        r[k] = d.qfrc_passive[k] - r[k]
    for j in range(3):
        r[j] += torque[j]
        r[barrel(j) + 1] += force[j]
    # A = Gᵀ M G and rhs = Gᵀ r, G column i = e_i + gphi_i e_{k_i} + gx_i e_{k_i + 1}
    A = d.tmp66          # 3 x 3 block of a 6 x 6 scratch
    rhs = ddq
    for i in range(3):
        ki = barrel(i)
        rhs[i] = r[i] + gphi[i] * r[ki] + gx[i] * r[ki + 1]
        for c in range(3):
            kc = barrel(c)
            A[i, c] = (_mg(M, i, c, kc, gphi[c], gx[c]) + gphi[i] * _mg(M, ki, c, kc, gphi[c], gx[c])
                       + gx[i] * _mg(M, ki + 1, c, kc, gphi[c], gx[c]))
    return spd_solve(A, rhs, 3)


@njit(cache=True)
def leg_acceleration(p, q, v, force, torque, ddq):
    """θ̈ (3,) of the closed leg (:func:`projected_acceleration`) with the augmented tree read from
    ``p``'s multibody block (as :func:`._hooks.leg_acceleration` does for the open leg)."""
    m, d, scratch = model_workspace(p, MB, int(p[NFB]), int(p[NIB]), NSCRATCH)
    return projected_acceleration(m, d, p, q, v, force, torque, ddq, scratch)


@sig.vector_field
def vector_field(t, x, p, mode, xdot):
    """Chamber rates as in :func:`._hooks.vector_field`; q̈ of the closed leg with the piston force
    on each rod (MONOLITHIC) or the held joint torque (COSIM)."""
    for i in range(xdot.size):
        xdot[i] = 0.0
    fq = np.empty(9)               # force (3), torque (3), θ̈ (3)
    for j in range(3):
        if mode == MONOLITHIC:
            th = x[Q + j]
            thd = x[V + j]
            _, xd, _ = piston(p, j, th, thd)
            fq[j] = piston_force(p, j, x, xd)
            fq[3 + j] = 0.0
        else:
            th = x[QRX + j]
            thd = x[VRX + j]
            fq[j] = 0.0
            fq[3 + j] = x[TRX + j]
        gas_rates(p, x, j, th, thd, xdot)
    if mode == PAUSED:
        return
    leg_acceleration(p, x[Q:Q + 3], x[V:V + 3], fq[0:3], fq[3:6], fq[6:9])
    for j in range(3):
        xdot[Q + j] = x[V + j]
        xdot[V + j] = fq[6 + j]

