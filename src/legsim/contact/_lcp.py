"""Compiled Lemke solver and the velocity-level LCP time-stepping of free rigid bodies.

See :mod:`legsim.contact.lcp` for the formulation (Stewart–Trinkle / Anitescu–Potra) and the
public API. Kernels allocate their (small, per-step) LCP arrays; they serve a baseline, not the
force-based hot path.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._bodies import _rotate, record_forces, record_state
from ._collide import collide, world_poses

LEMKE_OK = 0
LEMKE_RAY = 1
LEMKE_MAXITER = 2


@njit(cache=True)
def lemke(M, q, z, max_pivots):
    """Solve the LCP w = M z + q, w >= 0, z >= 0, w . z = 0 by Lemke's complementary pivoting.

    Covering vector e = 1 (Cottle, Pang & Stone, *The Linear Complementarity Problem*, 1992,
    §4.4: scheme with the artificial variable z0). Tableau columns: w (n), z (n), z0, rhs;
    ties in the ratio test go to z0 (ends the path), then to the lowest row.

    Parameters
    ----------
    M : float64[n, n]; q : float64[n]
    z : float64[n]
        Output (the solution when the status is ``LEMKE_OK``).
    max_pivots : int

    Returns
    -------
    int
        ``LEMKE_OK``, ``LEMKE_RAY`` (ray termination: no solution found, e.g. M not
        copositive-plus on this q) or ``LEMKE_MAXITER``.
    """
    n = q.shape[0]
    for i in range(n):
        z[i] = 0.0
    r = 0
    for i in range(n):
        if q[i] < q[r]:
            r = i
    if n == 0 or q[r] >= 0.0:
        return LEMKE_OK
    nc = 2 * n + 2
    T = np.zeros((n, nc))
    for i in range(n):
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -M[i, j]
        T[i, 2 * n] = -1.0
        T[i, 2 * n + 1] = q[i]
    basis = np.arange(n)
    scale = 1.0
    for i in range(n):
        for j in range(n):
            scale = max(scale, abs(M[i, j]))
    tol = 1e-12 * scale
    entering = 2 * n  # z0
    status = LEMKE_MAXITER
    for _ in range(max_pivots):
        # pivot on (r, entering)
        piv = T[r, entering]
        for j in range(nc):
            T[r, j] /= piv
        for i in range(n):
            if i != r:
                f = T[i, entering]
                if f != 0.0:
                    for j in range(nc):
                        T[i, j] -= f * T[r, j]
        leaving = basis[r]
        basis[r] = entering
        if leaving == 2 * n:
            status = LEMKE_OK
            break
        entering = leaving + n if leaving < n else leaving - n  # the complement
        # ratio test on the entering column (basic variables must stay >= 0)
        r = -1
        best = math.inf
        for i in range(n):
            a = T[i, entering]
            if a > tol:
                ratio = T[i, 2 * n + 1] / a
                if r < 0 or ratio < best - 1e-15 * (1.0 + abs(best)) or (
                    abs(ratio - best) <= 1e-15 * (1.0 + abs(best)) and basis[i] == 2 * n
                ):
                    best = ratio
                    r = i
        if r < 0:
            status = LEMKE_RAY
            break
    if status != LEMKE_OK:
        return status
    for i in range(n):
        b = basis[i]
        if n <= b < 2 * n:
            z[b - n] = T[i, 2 * n + 1]
    return LEMKE_OK


ERR_OVERFLOW = 1
ERR_LEMKE = 3


@njit(cache=True)
def _tangents(n, t1, t2):
    """Unit tangents t1, t2 with (t1, t2, n) right-handed; t1 is the world x axis projected on the
    contact plane (world y when n is nearly x), so a pyramid edge lies along x on a level plane."""
    ax = 0.0
    ay = 0.0
    if abs(n[0]) < 0.9:
        ax = 1.0
    else:
        ay = 1.0
    d = ax * n[0] + ay * n[1]
    t1[0] = ax - d * n[0]
    t1[1] = ay - d * n[1]
    t1[2] = -d * n[2]
    s = math.sqrt(t1[0] ** 2 + t1[1] ** 2 + t1[2] ** 2)
    for i in range(3):
        t1[i] /= s
    t2[0] = n[1] * t1[2] - n[2] * t1[1]
    t2[1] = n[2] * t1[0] - n[0] * t1[2]
    t2[2] = n[0] * t1[1] - n[1] * t1[0]


@njit(cache=True)
def _row(J, row, c, k, pos, d):
    """Jacobian row of contact k along world direction d (3,): body 2 (+), body 1 (-), 6 per body."""
    for s in range(2):
        b = c.body[k, s]
        if b < 0:
            continue
        sg = 1.0 if s == 1 else -1.0
        rx = c.pos[k, 0] - pos[b, 0]
        ry = c.pos[k, 1] - pos[b, 1]
        rz = c.pos[k, 2] - pos[b, 2]
        J[row, 6 * b] += sg * d[0]
        J[row, 6 * b + 1] += sg * d[1]
        J[row, 6 * b + 2] += sg * d[2]
        J[row, 6 * b + 3] += sg * (ry * d[2] - rz * d[1])
        J[row, 6 * b + 4] += sg * (rz * d[0] - rx * d[2])
        J[row, 6 * b + 5] += sg * (rx * d[1] - ry * d[0])


@njit(cache=True)
def lcp_step(c, nc, pos, rot, vel, omega, mass, ibody, gravity, fext, dt, mu, e, v_rest, beta, slop, nd,
             force):
    """One velocity-level step (see :mod:`legsim.contact.lcp`): updates vel, omega in place and
    writes the contact force (impulse / dt) on each body into force (nb, 3). Returns the Lemke status."""
    nb = mass.shape[0]
    n6 = 6 * nb
    W = np.zeros((nb, 3, 3))  # world inverse inertias
    invm = np.zeros(nb)
    vf = np.zeros(n6)  # free velocity (gravity and gyroscopic terms over the step)
    v0 = np.zeros(n6)
    for b in range(nb):
        for i in range(3):
            v0[6 * b + i] = vel[b, i]
            v0[6 * b + 3 + i] = omega[b, i]
            vf[6 * b + i] = vel[b, i]
            vf[6 * b + 3 + i] = omega[b, i]
        if mass[b] <= 0.0:
            continue
        invm[b] = 1.0 / mass[b]
        R = rot[b]
        Ib = np.linalg.inv(ibody[b])
        Wb = R @ Ib @ R.T
        Iw = R @ ibody[b] @ R.T
        for i in range(3):
            for j in range(3):
                W[b, i, j] = Wb[i, j]
            vf[6 * b + i] += dt * (gravity[i] + fext[b, i] / mass[b])
        w = omega[b]
        L = Iw @ w
        tq0 = fext[b, 3] - (w[1] * L[2] - w[2] * L[1])
        tq1 = fext[b, 4] - (w[2] * L[0] - w[0] * L[2])
        tq2 = fext[b, 5] - (w[0] * L[1] - w[1] * L[0])
        for i in range(3):
            vf[6 * b + 3 + i] += dt * (Wb[i, 0] * tq0 + Wb[i, 1] * tq1 + Wb[i, 2] * tq2)
    nr = nc * (1 + nd)
    N = nr + nc
    J = np.zeros((nr, n6))
    t1 = np.zeros(3)
    t2 = np.zeros(3)
    d = np.zeros(3)
    for k in range(nc):
        nk = c.normal[k]
        _row(J, k, c, k, pos, nk)
        _tangents(nk, t1, t2)
        for j in range(nd):
            a = 2.0 * math.pi * j / nd
            for i in range(3):
                d[i] = math.cos(a) * t1[i] + math.sin(a) * t2[i]
            _row(J, nc + k * nd + j, c, k, pos, d)
    WJt = np.zeros((n6, nr))
    for r in range(nr):
        for b in range(nb):
            for i in range(3):
                WJt[6 * b + i, r] = invm[b] * J[r, 6 * b + i]
                WJt[6 * b + 3 + i, r] = (
                    W[b, i, 0] * J[r, 6 * b + 3] + W[b, i, 1] * J[r, 6 * b + 4] + W[b, i, 2] * J[r, 6 * b + 5]
                )
    A = J @ WJt
    M = np.zeros((N, N))
    q = np.zeros(N)
    for r in range(nr):
        for s in range(nr):
            M[r, s] = A[r, s]
    Jvf = J @ vf
    Jv0 = J @ v0
    for k in range(nc):
        lam = nr + k
        for j in range(nd):
            f = nc + k * nd + j
            M[f, lam] = 1.0  # E: tangential velocity + lambda >= 0 (lambda: sliding speed)
            M[lam, f] = -1.0  # mu p_n - sum p_f >= 0 (the pyramid)
        M[lam, k] = mu
        vn = Jv0[k]
        if vn < -v_rest:
            target = -e * vn  # Newton restitution of the approach speed
        else:
            target = beta * max(c.depth[k] - slop, 0.0) / dt  # Anitescu–Potra/Baumgarte depth correction
        q[k] = Jvf[k] - target
    for r in range(nc, nr):
        q[r] = Jvf[r]
    z = np.zeros(N)
    st = lemke(M, q, z, 50 * N + 50)
    for b in range(nb):
        for i in range(3):
            force[b, i] = 0.0
    if st != LEMKE_OK:
        return st
    P = np.zeros(n6)
    for r in range(nr):
        if z[r] != 0.0:
            for i in range(n6):
                P[i] += J[r, i] * z[r]
    for b in range(nb):
        for i in range(3):
            vel[b, i] = vf[6 * b + i] + invm[b] * P[6 * b + i]
            force[b, i] = P[6 * b + i] / dt
        for i in range(3):
            omega[b, i] = vf[6 * b + 3 + i] + (
                W[b, i, 0] * P[6 * b + 3] + W[b, i, 1] * P[6 * b + 4] + W[b, i, 2] * P[6 * b + 5]
            )
    return st


@njit(cache=True)
def run(m, lpos, lrot, mass, ibody, gravity, fext, c, wk, pos, rot, vel, omega, gpos, grot, t0, dt, nsteps,
        every, mu, e, v_rest, beta, slop, nd, rec_t, rec_pos, rec_rot, rec_vel, rec_omega, rec_fc, rec_nc,
        err):
    """``nsteps`` LCP steps of ``dt`` from the state arrays (updated in place), recording every
    ``every`` steps (pose and velocity at the step start, the step's contact force). ``err``
    int64[4] receives (code, step, Lemke status or contact count, 0). Returns the records written."""
    nb = mass.shape[0]
    force = np.zeros((nb, 3))
    E = np.zeros((3, 3))
    nrec = np.int64(0)  # not a literal 0: record_state/record_forces would compile twice
    t = t0
    for step in range(nsteps):
        world_poses(m, lpos, lrot, pos, rot, gpos, grot, np.bool_(True))
        nc = collide(m, gpos, grot, c, wk)
        if nc > c.depth.shape[0]:
            err[0] = ERR_OVERFLOW
            err[1] = step
            err[2] = nc
            return nrec
        if step % every == 0:
            record_state(nrec, t, nc, pos, rot, vel, omega, rec_t, rec_pos, rec_rot, rec_vel, rec_omega,
                         rec_nc)
        st = lcp_step(c, nc, pos, rot, vel, omega, mass, ibody, gravity, fext, dt, mu, e, v_rest, beta, slop,
                      nd, force)
        if st != LEMKE_OK:
            err[0] = ERR_LEMKE
            err[1] = step
            err[2] = st
            return nrec
        if step % every == 0:
            record_forces(nrec, force, rec_fc)
            nrec += 1
        for b in range(nb):
            for i in range(3):
                pos[b, i] += dt * vel[b, i]
            _rotate(rot[b], omega[b], dt, E)
        t += dt
    return nrec
