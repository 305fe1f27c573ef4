"""Forward dynamics of a tree closed by explicit constraints (numba; Featherstone (2008) ch. 8).

Closed kinematic loops given as explicit constraints: the tree's coordinates are functions of a
smaller set of independent ones, q = γ(y), so q̇ = G ẏ and q̈ = G ÿ + Ġẏ (Featherstone (2008)
ch. 8, explicit constraints). Projecting the tree's equations of motion M q̈ + C = τ onto the admissible
motions (Gᵀ times them; the constraint forces do no work on them) gives

    (Gᵀ M G) ÿ = Gᵀ (τ − C − M Ġẏ) = Gᵀ (τ − rnea(q, q̇, Ġẏ)),

the bracket being one inverse-dynamics pass with the acceleration Ġẏ (gravity as a base acceleration,
external wrenches inside it). Here G is *block-sparse with one entry per row*: tree dof i moves with
one independent dof ``src[i]`` with the coefficient ``g[i]`` (1 for an independent dof, dφ/dθ or dx/dθ
for a dof of a closed linkage), which covers loops whose dependent joints each follow one joint (the
CRR cylinders, four-bar cranks driven by one angle) and any floating base.

:func:`explicit_dynamics` takes the world-frame wrenches of the assembly (``fext`` (nb, 6), force and
moment about the world origin, world axes: :mod:`._aba_world`) and turns them into the body-axes
wrenches that :func:`._kernels.rnea` takes; τ_ext = Jᵀ fext enters through that pass.
"""

from __future__ import annotations

import math

from numba import njit

from .._borrow import borrow_all
from ._aba import passive_forces
from ._kernels import crba, rnea


@njit(cache=True, nogil=True)
def spd_solve(A, b, n):
    """Solve ``A[:n, :n] y = b[:n]`` in place for symmetric positive definite A: Cholesky A = L Lᵀ in
    A's lower triangle, then the two triangular solves; ``b`` becomes y. Returns False (``b[:n]`` NaN)
    when a pivot is not positive (A not positive definite)."""
    for i in range(n):
        for c in range(i + 1):
            acc = A[i, c]
            for k in range(c):
                acc -= A[i, k] * A[c, k]
            if i == c:
                if not acc > 0.0:
                    for k in range(n):
                        b[k] = math.nan
                    return False
                A[i, i] = math.sqrt(acc)
            else:
                A[i, c] = acc / A[c, c]
    for i in range(n):
        acc = b[i]
        for k in range(i):
            acc -= A[i, k] * b[k]
        b[i] = acc / A[i, i]
    for i in range(n - 1, -1, -1):
        acc = b[i]
        for k in range(i + 1, n):
            acc -= A[k, i] * b[k]
        b[i] = acc / A[i, i]
    return True


@njit(cache=True, nogil=True)
def world_wrenches_to_body(oR, op, fext, fb):
    """Body-axes wrenches about each body's origin ``fb`` (nb, 6) of the world wrenches ``fext`` (nb, 6)
    (force, moment about the world origin; world axes) at the world placements ``oR``, ``op``:
    f_b = Rᵀ f, n_b = Rᵀ (n_O − p × f) [N, N m] (the form :func:`._kernels.rnea` takes)."""
    for k in range(6):
        fb[0, k] = 0.0
    for b in range(1, fext.shape[0]):
        f0, f1, f2 = fext[b, 0], fext[b, 1], fext[b, 2]
        p0, p1, p2 = op[b, 0], op[b, 1], op[b, 2]
        n0 = fext[b, 3] - (p1 * f2 - p2 * f1)
        n1 = fext[b, 4] - (p2 * f0 - p0 * f2)
        n2 = fext[b, 5] - (p0 * f1 - p1 * f0)
        R = oR[b]
        for k in range(3):
            fb[b, k] = R[0, k] * f0 + R[1, k] * f1 + R[2, k] * f2
            fb[b, 3 + k] = R[0, k] * n0 + R[1, k] * n1 + R[2, k] * n2


@njit(cache=True, nogil=True)
def explicit_dynamics(m, d, q, v, tau, fext, src, g, conv, r, fb, A, y, ddq):
    """Accelerations of a tree closed by explicit constraints (module docstring; Featherstone (2008) ch. 8).

    ``q`` (nq,), ``v`` (nv,): the closed tree coordinates and rates (q = γ(y), v = G ẏ); ``tau`` (nv,)
    the applied generalised forces [N m or N]; ``fext`` (nb, 6) world wrenches about the world origin
    (after world kinematics at ``q``: ``d.oR``, ``d.op``); G as ``src`` (nv,) (the independent dof
    each tree dof follows, numbered 0 .. n−1 among the independent ones, floats) and ``g`` (nv,) (its
    coefficient); ``conv`` (nv,) = Ġẏ [rad/s² or m/s²]. Scratch: ``r`` (nv,), ``fb`` (nb, 6), ``A``
    (n, n), ``y`` (n,) (ÿ on return). Writes ``ddq`` (nv,) = G ÿ + Ġẏ, the joints' passive forces into
    ``d.qfrc_passive`` and the mass matrix into ``d.M``. Returns False (``ddq`` NaN) when Gᵀ M G is not
    positive definite.
    """
    m = borrow_all(m)
    d = borrow_all(d)
    n = y.shape[0]
    nv = v.shape[0]
    world_wrenches_to_body(d.oR, d.op, fext, fb)
    passive_forces(m, q, v, d.qfrc_passive)
    rnea(m, d, q, v, conv, fb, r)  # M Ġẏ + C − Jᵀ fext
    crba(m, d, q, d.M)
    M = d.M
    for i in range(n):
        y[i] = 0.0
        for c in range(n):
            A[i, c] = 0.0
    for i in range(nv):
        si = int(src[i])
        gi = g[i]
        y[si] += gi * (tau[i] + d.qfrc_passive[i] - r[i])
        for c in range(nv):
            A[si, int(src[c])] += gi * M[i, c] * g[c]
    ok = spd_solve(A, y, n)
    for i in range(nv):
        ddq[i] = g[i] * y[int(src[i])] + conv[i] if ok else math.nan
    return ok
