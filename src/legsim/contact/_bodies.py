"""Compiled fixed-step loop for free rigid bodies with contact (test and example helper).

Semi-implicit (symplectic) Euler at a fixed step, the discrete-solver setting of Konyev §2.5.1
(Ts = 0.1 ms): per step, interface 3 (poses, velocities) -> collision detection -> contact
response (2.20)/(2.21) -> interface 4 (wrenches) -> v += a dt, omega += alpha dt, x += v dt,
R <- exp([omega] dt) R. Newton–Euler in the world frame: m a = F + m g,
I_w alpha = tau - omega x (I_w omega), I_w = R I_body R^T.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._collide import collide, world_poses
from ._response import accumulate_wrenches, contact_forces, free_body_velocities

ERR_OVERFLOW = 1
ERR_BLOWUP = 2


@njit(cache=True)
def _rotate(R, w, dt, tmp):
    """R <- exp([w] dt) R (Rodrigues), then Gram–Schmidt re-orthonormalisation of the columns."""
    th = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * dt
    if th > 0.0:
        ax = w[0] * dt / th
        ay = w[1] * dt / th
        az = w[2] * dt / th
        s = math.sin(th)
        c1 = 1.0 - math.cos(th)
        E = tmp
        E[0, 0] = 1.0 - c1 * (ay * ay + az * az)
        E[0, 1] = -s * az + c1 * ax * ay
        E[0, 2] = s * ay + c1 * ax * az
        E[1, 0] = s * az + c1 * ax * ay
        E[1, 1] = 1.0 - c1 * (ax * ax + az * az)
        E[1, 2] = -s * ax + c1 * ay * az
        E[2, 0] = -s * ay + c1 * ax * az
        E[2, 1] = s * ax + c1 * ay * az
        E[2, 2] = 1.0 - c1 * (ax * ax + ay * ay)
        for j in range(3):
            a0 = E[0, 0] * R[0, j] + E[0, 1] * R[1, j] + E[0, 2] * R[2, j]
            a1 = E[1, 0] * R[0, j] + E[1, 1] * R[1, j] + E[1, 2] * R[2, j]
            a2 = E[2, 0] * R[0, j] + E[2, 1] * R[1, j] + E[2, 2] * R[2, j]
            R[0, j] = a0
            R[1, j] = a1
            R[2, j] = a2
    # Gram-Schmidt on columns
    n = math.sqrt(R[0, 0] ** 2 + R[1, 0] ** 2 + R[2, 0] ** 2)
    for i in range(3):
        R[i, 0] /= n
    d = R[0, 0] * R[0, 1] + R[1, 0] * R[1, 1] + R[2, 0] * R[2, 1]
    for i in range(3):
        R[i, 1] -= d * R[i, 0]
    n = math.sqrt(R[0, 1] ** 2 + R[1, 1] ** 2 + R[2, 1] ** 2)
    for i in range(3):
        R[i, 1] /= n
    R[0, 2] = R[1, 0] * R[2, 1] - R[2, 0] * R[1, 1]
    R[1, 2] = R[2, 0] * R[0, 1] - R[0, 0] * R[2, 1]
    R[2, 2] = R[0, 0] * R[1, 1] - R[1, 0] * R[0, 1]


@njit(cache=True)
def record_state(k, t, nc, pos, rot, vel, omega, rec_t, rec_pos, rec_rot, rec_vel, rec_omega, rec_nc):
    """Record ``k``: time, contact count and every body's pose and velocity (at the step start)."""
    rec_t[k] = t
    for b in range(pos.shape[0]):
        for i in range(3):
            rec_pos[k, b, i] = pos[b, i]
            rec_vel[k, b, i] = vel[b, i]
            rec_omega[k, b, i] = omega[b, i]
            for j in range(3):
                rec_rot[k, b, i, j] = rot[b, i, j]
    rec_nc[k] = nc


@njit(cache=True)
def record_forces(k, force, rec_fc):
    """Record ``k``: every body's contact force (the first three columns of ``force`` (nb, >= 3)) [N]."""
    for b in range(force.shape[0]):
        for i in range(3):
            rec_fc[k, b, i] = force[b, i]


@njit(cache=True)
def _solve3(M, r0, r1, r2):
    """Solve M a = r for a 3x3 matrix by Cramer's rule."""
    c00 = M[1, 1] * M[2, 2] - M[1, 2] * M[2, 1]
    c01 = M[1, 2] * M[2, 0] - M[1, 0] * M[2, 2]
    c02 = M[1, 0] * M[2, 1] - M[1, 1] * M[2, 0]
    det = M[0, 0] * c00 + M[0, 1] * c01 + M[0, 2] * c02
    c10 = M[0, 2] * M[2, 1] - M[0, 1] * M[2, 2]
    c11 = M[0, 0] * M[2, 2] - M[0, 2] * M[2, 0]
    c12 = M[0, 1] * M[2, 0] - M[0, 0] * M[2, 1]
    c20 = M[0, 1] * M[1, 2] - M[0, 2] * M[1, 1]
    c21 = M[0, 2] * M[1, 0] - M[0, 0] * M[1, 2]
    c22 = M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    return (
        (c00 * r0 + c10 * r1 + c20 * r2) / det,
        (c01 * r0 + c11 * r1 + c21 * r2) / det,
        (c02 * r0 + c12 * r1 + c22 * r2) / det,
    )


@njit(cache=True)
def run(
    m,
    lpos,
    lrot,
    mass,
    ibody,
    gravity,
    fext,
    ncode,
    fcode,
    prm,
    c,
    wk,
    s,
    pos,
    rot,
    vel,
    omega,
    gpos,
    grot,
    vrel,
    force,
    wrench,
    tmp,
    t0,
    dt,
    nsteps,
    every,
    vmax,
    rec_t,
    rec_pos,
    rec_rot,
    rec_vel,
    rec_omega,
    rec_fc,
    rec_nc,
    err,
):
    """Advance ``nsteps`` steps of ``dt``, recording every ``every`` steps (see module docstring).

    State arrays (pos (nb, 3), rot (nb, 3, 3), vel, omega (nb, 3)) are updated in place.
    ``err`` int64[4] receives (code, step, body, contact) when the run stops early. Returns the
    number of records written.
    """
    nb = mass.shape[0]
    Iw = tmp[0]
    A = tmp[1]
    E = tmp[2]
    nrec = np.int64(0)  # not a literal 0: record_state/record_forces would compile twice
    t = t0
    for step in range(nsteps):
        world_poses(m, lpos, lrot, pos, rot, gpos, grot, np.bool_(True))
        nc = collide(m, gpos, grot, c, wk)
        if nc > c.depth.shape[0]:
            err[0] = ERR_OVERFLOW
            err[1] = step
            err[2] = -1
            err[3] = nc
            return nrec
        free_body_velocities(c, pos, vel, omega, vrel)
        contact_forces(c, ncode, fcode, prm, s, vrel, t, dt, force)
        wrench[:, :] = 0.0
        accumulate_wrenches(c, force, pos, wrench)
        if step % every == 0:
            record_state(nrec, t, nc, pos, rot, vel, omega, rec_t, rec_pos, rec_rot, rec_vel, rec_omega,
                         rec_nc)
            record_forces(nrec, wrench, rec_fc)
            nrec += 1
        for b in range(nb):
            if mass[b] <= 0.0:  # kinematic body: keeps its velocity
                for i in range(3):
                    pos[b, i] += vel[b, i] * dt
                _rotate(rot[b], omega[b], dt, E)
                continue
            for i in range(3):
                vel[b, i] += dt * ((wrench[b, i] + fext[b, i]) / mass[b] + gravity[i])
            # I_w = R I R^T
            R = rot[b]
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for k in range(3):
                        acc += ibody[b, i, k] * R[j, k]
                    A[i, j] = acc
            for i in range(3):
                for j in range(3):
                    acc = 0.0
                    for k in range(3):
                        acc += R[i, k] * A[k, j]
                    Iw[i, j] = acc
            w = omega[b]
            L0 = Iw[0, 0] * w[0] + Iw[0, 1] * w[1] + Iw[0, 2] * w[2]
            L1 = Iw[1, 0] * w[0] + Iw[1, 1] * w[1] + Iw[1, 2] * w[2]
            L2 = Iw[2, 0] * w[0] + Iw[2, 1] * w[1] + Iw[2, 2] * w[2]
            r0 = wrench[b, 3] + fext[b, 3] - (w[1] * L2 - w[2] * L1)
            r1 = wrench[b, 4] + fext[b, 4] - (w[2] * L0 - w[0] * L2)
            r2 = wrench[b, 5] + fext[b, 5] - (w[0] * L1 - w[1] * L0)
            a0, a1, a2 = _solve3(Iw, r0, r1, r2)
            w[0] += dt * a0
            w[1] += dt * a1
            w[2] += dt * a2
            for i in range(3):
                pos[b, i] += dt * vel[b, i]
            _rotate(R, w, dt, E)
            sp = math.sqrt(vel[b, 0] ** 2 + vel[b, 1] ** 2 + vel[b, 2] ** 2)
            if not (sp < vmax):
                err[0] = ERR_BLOWUP
                err[1] = step
                err[2] = b
                best = -1
                bd = -1.0
                for k in range(min(nc, c.depth.shape[0])):
                    if (c.body[k, 0] == b or c.body[k, 1] == b) and c.depth[k] > bd:
                        bd = c.depth[k]
                        best = k
                err[3] = best
                return nrec
        t += dt
    return nrec
