"""ANTON's static joint torques compiled (numba) for the climbing controller's 1 kHz force feedforward
(:class:`~.robot.StaticFeedforward`): forward kinematics, the feet's measured forces as external
wrenches, and the recursive Newton-Euler algorithm at rest, in one compiled call. The kinematics and
dynamics are the multibody kernels themselves (:mod:`legsim.multibody._kernels`, loaded from their
cache); in Python the same took ~80 µs a call on a 2-core VM, most of it the per-foot numpy of the
six wrenches.
"""

from __future__ import annotations

from numba import njit

from ...multibody import _kernels as K
from ...multibody._layout import data_from_buffer, model_from_buffers


@njit(cache=True, nogil=True)
def static_torques(fbuf, ibuf, dbuf, q, shank, bodies, foot, foot_radius, fext, zero):
    """Joint torques τ = g(q) − Σ_k J_kᵀ F_k (nv,) [N m] that hold the model at ``q`` (nq,) [rad] at rest
    under the world-axes forces ``shank`` (3 n,) [N] acting on ``bodies`` (n,) int64 at the lowest point
    of a sphere of ``foot_radius`` [m] centred at ``foot`` (3,) [m, body axes]: written into the data's
    ``tau`` (of ``dbuf``). ``fext`` (nbody, 6) is scratch; ``zero`` (nv,) zeros (velocities and
    accelerations). Featherstone Table 5.1 with the wrenches in body axes about the body origin."""
    m = model_from_buffers(fbuf, ibuf)
    d = data_from_buffer(dbuf, ibuf[0], ibuf[1])
    K.forward_kinematics(m, d, q, zero, zero)
    fext[:, :] = 0.0
    for k in range(bodies.size):
        b = bodies[k]
        R = d.oR[b]
        s0, s1, s2 = shank[3 * k], shank[3 * k + 1], shank[3 * k + 2]
        f0 = R[0, 0] * s0 + R[1, 0] * s1 + R[2, 0] * s2  # Rᵀ s: the force in body axes
        f1 = R[0, 1] * s0 + R[1, 1] * s1 + R[2, 1] * s2
        f2 = R[0, 2] * s0 + R[1, 2] * s1 + R[2, 2] * s2
        r0 = foot[0] - foot_radius * R[2, 0]  # the lowest point: world -z in body axes is -R[2]
        r1 = foot[1] - foot_radius * R[2, 1]
        r2 = foot[2] - foot_radius * R[2, 2]
        fext[b, 0] = f0
        fext[b, 1] = f1
        fext[b, 2] = f2
        fext[b, 3] = r1 * f2 - r2 * f1
        fext[b, 4] = r2 * f0 - r0 * f2
        fext[b, 5] = r0 * f1 - r1 * f0
    K.rnea(m, d, q, zero, zero, fext, d.tau)
