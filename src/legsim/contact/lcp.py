"""LCP (Lemke) contact baseline: velocity-level time-stepping of free rigid bodies.

Konyev §2.3.10 (digest §1.8, §2) names the force-based update "with Lagrange multipliers": contact
forces found by an optimisation between integration steps, a linear complementarity problem solved
by Lemke's algorithm, exact non-penetration, constraint forces that do no work. The thesis rejects
it without running it; this module is that baseline, beside the impulse baseline
(:mod:`.impulse`), so the trade-offs of digest §2 can be measured (examples/contact_baselines.py).

Formulation (Stewart & Trinkle 1996, Int. J. Numer. Meth. Eng. 39; Anitescu & Potra 1997,
Nonlinear Dynamics 14), one step of length h for generalized velocities v (6 per free body, world
frame), mass matrix M, contacts k with normal Jacobian rows J_n and, per contact, ``nd`` tangent
directions d_j (a pyramid approximating the friction cone, D = their Jacobian rows)::

    M (v+ - v) = h f_ext + J_n^T p_n + D^T p_f
    0 <= p_n  ⟂  J_n v+ - b          >= 0      (no approach beyond the target b)
    0 <= p_f  ⟂  D v+ + E lambda     >= 0      (lambda: the sliding speed)
    0 <= lambda ⟂ mu p_n - E^T p_f   >= 0      (friction inside the pyramid)

with E the block matrix of ones per contact. Eliminating v+ gives an LCP in (p_n, p_f, lambda)
solved by :func:`solve_lcp` (Lemke). The normal target b is Newton's restitution b = -e v_n
when the contact approaches faster than ``v_rest`` (v_n: normal velocity at the step start), and
otherwise a depth correction b = beta (depth - slop)^+ / h (Anitescu–Potra stabilisation with a
Baumgarte factor beta) so that a resting body keeps a constant depth ``slop`` and its impulse is
exactly m g h. Contacts come from the same collision pipeline as the force-based laws
(:func:`~legsim.contact.collide`: penetrating points only, manifolds or single witness).

Lemke's method is written here: the one PyPI package found for it (``lemkelcp`` 0.1, one release
in 2016) is not maintained; it is tested against closed forms and brute-force enumeration of the
complementary index sets (tests/test_contact_lcp.py).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, SimulationError, as_floats, check_number, check_whole
from . import _lcp
from .bodies import RigidWorld

__all__ = ["solve_lcp", "simulate_lcp", "LemkeError", "MAX_EDGES", "MAX_FRICTION"]

MAX_EDGES = 64
"""The most edges of the friction pyramid (each is an LCP variable per contact)."""

MAX_FRICTION = 1e6
"""The largest friction coefficient ``mu`` [-] of :func:`simulate_lcp`: Lemke's pivot tolerance is relative
to the LCP's largest entry, and with mu = 1e12 or more a sphere dropped on a plane stopped the run on a ray
termination (no solution found); real contacts have mu below 10, and 1e6 already holds any slip."""


class LemkeError(SimulationError):
    """Lemke's method stopped on a ray or the pivot limit (no solution found)."""


def solve_lcp(M, q, max_pivots=None):
    """Solve w = M z + q, w >= 0, z >= 0, w·z = 0 by Lemke's method; returns z (n,).

    Parameters
    ----------
    M : (n, n) array; q : (n,) array
    max_pivots : int, optional
        Pivot limit (default 50 n + 50).

    Raises
    ------
    InputError
        Shapes that do not match or non-finite entries.
    LemkeError
        Ray termination (no solution found from this q: M is not copositive-plus, or the LCP
        is infeasible) or the pivot limit.
    """
    M = np.ascontiguousarray(as_floats(M))
    q = np.ascontiguousarray(as_floats(q)).ravel()
    n = q.shape[0]
    if M.shape != (n, n):
        raise InputError(f"solve_lcp: M has shape {M.shape}, q has {n} entries: expected M ({n}, {n})")
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(q))):
        raise InputError("solve_lcp: M or q contains NaN or inf: expected finite numbers")
    pivots = 50 * n + 50 if max_pivots is None else check_whole("solve_lcp", "max_pivots", max_pivots, 1)
    z = np.zeros(n)
    st = _lcp.lemke(M, q, z, pivots)
    if st != _lcp.LEMKE_OK:
        why = "ray termination" if st == _lcp.LEMKE_RAY else f"pivot limit max_pivots = {pivots} reached"
        raise LemkeError(f"Lemke's method found no solution: {why} (n = {n})", t=0.0, mode="lcp", cause=why)
    return z


def simulate_lcp(world, t_final, dt, *, mu, restitution=0.0, nd=4, v_rest=1e-2, beta=0.2, slop=1e-5,
                 record_every=1):
    """Run the bodies and terrain of ``world`` with the LCP time-stepping (module docstring).

    The world's contact-law table is not used: this baseline has only ``mu`` and ``restitution``.
    Continues from the world's current state and leaves it at the end, as
    :meth:`RigidWorld.simulate` does; returns the same :class:`~legsim.contact.WorldResult`
    (``contact_force``: the step's contact impulse on each body divided by dt [N]).

    Parameters
    ----------
    world : RigidWorld
    t_final, dt : float
        Duration and step [s].
    mu : float
        Friction coefficient in [0, :data:`MAX_FRICTION`] (pyramid of ``nd`` edges, 3 <= nd <=
        :data:`MAX_EDGES`, inscribed in the cone; with nd = 4 its edges are ±t1, ±t2, t1 the world x axis
        projected on the contact plane).
    restitution : float
        Newton coefficient e in [0, 1] for approaches faster than ``v_rest`` [m/s] (finite, >= 0).
    beta, slop : float
        Depth correction factor (0, 1] per step and the depth [m] left uncorrected (finite, >= 0).
    record_every : int
        Record every n-th step (whole number >= 1; :func:`~legsim.contact.stepping.fixed_steps`).

    Raises
    ------
    LemkeError
        A step whose LCP Lemke could not solve (time, cause); ``err.result`` keeps the records.
    SimulationError
        Contact buffer overflow.
    """
    if not isinstance(world, RigidWorld):
        raise InputError(f"simulate_lcp 'world' is a {type(world).__name__}: expected a RigidWorld")
    o = "simulate_lcp"
    mu = check_number(o, "mu", mu, lo=0.0, hi=MAX_FRICTION)
    e = check_number(o, "restitution", restitution, lo=0.0, hi=1.0)
    v_rest = check_number(o, "v_rest", v_rest, lo=0.0)
    beta = check_number(o, "beta", beta, lo=0.0, lo_open=True, hi=1.0)
    slop = check_number(o, "slop", slop, lo=0.0)
    nd = check_whole(o, "nd", nd, 3, MAX_EDGES)
    nsteps, every, (pos, rot, vel, omega), rec = world._begin(t_final, dt, record_every)
    a = world._arrays
    nb = len(world.mass)
    ng = len(a["m"].gtype)
    err = np.zeros(4, np.int64)
    n = _lcp.run(
        a["m"], a["lpos"], a["lrot"], a["mass"], a["ibody"], world.gravity,
        np.ascontiguousarray(world.fext, dtype=float).reshape(nb, 6), world._contacts, world._work,
        pos, rot, vel, omega, np.zeros((ng, 3)), np.zeros((ng, 3, 3)), world.t, float(dt), nsteps, every,
        mu, e, v_rest, beta, slop, int(nd),
        rec.t, rec.pos, rec.rot, rec.vel, rec.omega, rec.contact_force, rec.ncontact, err,
    )  # fmt: skip
    world.pos, world.rot, world.vel, world.omega = list(pos), list(rot), list(vel), list(omega)
    if err[0] != 0:
        rec.truncate(n)
        t_err = world.t + err[1] * dt
        if err[0] == _lcp.ERR_OVERFLOW:
            raise SimulationError(
                f"contact buffer overflow at t={t_err:.6g} s: {err[2]} contacts, capacity {world.capacity} "
                f"(raise RigidWorld capacity)", t=t_err, mode="lcp", cause="contact overflow", result=rec)
        why = "ray termination" if err[2] == _lcp.LEMKE_RAY else "pivot limit reached"
        raise LemkeError(f"Lemke's method found no solution at t={t_err:.6g} s: {why}", t=t_err, mode="lcp",
                         cause=why, result=rec)
    world.t += nsteps * dt
    return rec
