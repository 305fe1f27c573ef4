"""Impulse-based contact update, the baseline of Konyev §2.3.10 (digest §1.8, Fig. 2.7).

Frictionless Newton restitution between point masses (or spheres) that touch. Two update
schemes for several simultaneous contacts:

* propagation: one contact at a time, sweeping until no contact approaches;
* simultaneous: all active contacts at once, solving J M^-1 J^T P = -(1 + e) J v for the
  impulses P >= 0 (contacts whose impulse would pull are dropped and the system re-solved).

For three equal touching billiard balls with e = 1 the first gives (0, 0, v) and the second
(-v/3, 2v/3, 2v/3) (digest §1.8 [derived]); both conserve momentum and kinetic energy.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_number, check_values, check_whole, shown

__all__ = ["newton_impulse_pair", "resolve_impulses", "collide_spheres_1d"]


MAX_MASS = 1e12
"""The largest mass [kg] the impulse updates take (and 1/MAX_MASS the smallest, whose inverse is finite)."""
MAX_SPEED = 1e6
"""The largest velocity component [m/s] the impulse updates take."""


def _velocity(owner: str, name: str, value):
    """A velocity (d,) [m/s] with components within ±MAX_SPEED."""
    v = check_values(owner, name, value, lo=-MAX_SPEED, hi=MAX_SPEED, unit="m/s")
    if v.ndim != 1:
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a velocity vector (d,) [m/s]")
    return v


def _direction(owner: str, name: str, value, d: int, like: str):
    """A unit vector (d,) along ``value`` (finite, not zero); ``like`` names what sets d."""
    n = as_floats(value).ravel()
    size = np.abs(n).max(initial=0.0) if n.shape == (d,) and np.all(np.isfinite(n)) else 0.0
    if not size > 0.0:
        raise InputError(f"{owner}: {name} = {shown(value)}, expected a non-zero direction of {d} finite "
                         f"numbers (as {like})")
    n = n / size  # to the unit cube first: the norm of a 1e200 component overflows
    return n / np.linalg.norm(n)


def newton_impulse_pair(m1, m2, v1, v2, normal, e):
    """Post-impact velocities of two masses [kg] with velocities v1, v2 (d,) [m/s] (d = 3 in space).

    ``normal`` (d,) points from body 1 to body 2; Newton's law: (v2' - v1') . n = -e (v2 - v1) . n when
    the bodies approach ((v2 - v1) . n < 0), else velocities are unchanged. Masses in
    [1/MAX_MASS, MAX_MASS] kg, velocity components within ±MAX_SPEED, restitution e in [0, 1].
    """
    owner = "newton_impulse_pair"
    m1 = check_number(owner, "m1", m1, lo=1.0 / MAX_MASS, hi=MAX_MASS)
    m2 = check_number(owner, "m2", m2, lo=1.0 / MAX_MASS, hi=MAX_MASS)
    v1 = _velocity(owner, "v1", v1)
    v2 = _velocity(owner, "v2", v2)
    if v2.size != v1.size:
        raise InputError(f"{owner}: 'v1' has {v1.size} components and 'v2' {v2.size}, expected the same")
    n = _direction(owner, "normal", normal, v1.size, "'v1' and 'v2'")
    e = check_number(owner, "e", e, lo=0.0, hi=1.0)
    vn = float((v2 - v1) @ n)
    if vn >= 0.0:
        return v1.copy(), v2.copy()
    P = -(1.0 + e) * vn / (1.0 / m1 + 1.0 / m2)
    return v1 - P / m1 * n, v2 + P / m2 * n


MAX_SWEEPS = 10**6
"""The most sweeps the propagation scheme takes to settle."""


def _check(owner: str, masses, velocities, contacts, e):
    """Masses (n,), velocities (n, d) (a copy) and contacts [(i, j, unit normal (d,))] of an update."""
    m = check_values(owner, "masses", masses, lo=1.0 / MAX_MASS, hi=MAX_MASS, unit="kg")
    if m.ndim != 1:
        raise InputError(f"{owner}: 'masses' = {shown(masses)}, expected a list of masses (n,) [kg]")
    v = check_values(owner, "velocities", velocities, lo=-MAX_SPEED, hi=MAX_SPEED, unit="m/s").copy()
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] != len(m):
        raise InputError(f"{owner}: 'velocities' has shape {np.shape(velocities)}, expected (n,) or (n, d) "
                         f"with n = {len(m)} (one row per mass of 'masses')")
    check_number(owner, "e", e, lo=0.0, hi=1.0)  # restitution
    if not isinstance(contacts, (list, tuple)):
        raise InputError(f"{owner}: 'contacts' = {shown(contacts)}, expected a list of (i, j, normal)")
    cs = []
    for k, c in enumerate(contacts):
        if not (isinstance(c, (list, tuple)) and len(c) == 3):
            raise InputError(f"{owner}: contacts[{k}] = {shown(c)}, expected (i, j, normal)")
        i, j = (check_whole(owner, f"contacts[{k}] body index", b, 0, len(m) - 1) for b in c[:2])
        if i == j:
            raise InputError(f"{owner}: contacts[{k}] = {shown(c)}, expected two distinct bodies")
        normal = _direction(owner, f"contacts[{k}] normal", c[2], v.shape[1], "a row of 'velocities'")
        cs.append((i, j, normal))
    return m, v, cs


def resolve_impulses(masses, velocities, contacts, e=1.0, scheme="simultaneous", max_sweeps=1000):
    """Apply impulsive contact updates.

    Parameters
    ----------
    masses : (n,) [kg]
    velocities : (n,) or (n, d) [m/s]
    contacts : list of (i, j, normal)
        Touching pairs; ``normal`` (d,) points from i to j.
    e : float
        Newton coefficient of restitution.
    scheme : "propagation" | "simultaneous"

    Returns
    -------
    ndarray
        Post-impact velocities, same shape as ``velocities``.
    """
    owner = "resolve_impulses"
    if not (isinstance(scheme, str) and scheme in ("propagation", "simultaneous")):
        raise InputError(f"{owner}: 'scheme' = {shown(scheme)}, expected 'propagation' or 'simultaneous'")
    max_sweeps = check_whole(owner, "max_sweeps", max_sweeps, 1, MAX_SWEEPS)
    shape = np.shape(velocities)
    m, v, cs = _check(owner, masses, velocities, contacts, e)
    if scheme == "propagation":
        for _ in range(max_sweeps):
            changed = False
            for i, j, n in cs:
                if (v[j] - v[i]) @ n < -1e-14:
                    v[i], v[j] = newton_impulse_pair(m[i], m[j], v[i], v[j], n, e)
                    changed = True
            if not changed:
                return v.reshape(shape)
        raise InputError(f"{owner}: propagation did not settle within max_sweeps = {max_sweeps} sweeps")
    active = list(range(len(cs)))
    d = v.shape[1]
    while active:
        J = np.zeros((len(active), len(m) * d))
        for r, c in enumerate(active):
            i, j, n = cs[c]
            J[r, i * d : (i + 1) * d] = -n
            J[r, j * d : (j + 1) * d] = n
        Minv = np.repeat(1.0 / m, d)
        A = (J * Minv) @ J.T
        vv = v.ravel()
        # approaching contacts bounce with e; resting ones (J v = 0) stay non-separating
        try:
            P = np.linalg.solve(A, -(1.0 + e) * (J @ vv))
        except np.linalg.LinAlgError:
            raise InputError(f"{owner}: the active contacts' normals are linearly dependent (the same "
                             "pair twice, or a closed ring of bodies in 1-D): 'contacts' has no unique "
                             "simultaneous impulse") from None
        if np.all(P >= -1e-14):
            return (vv + Minv * (J.T @ P)).reshape(v.shape).reshape(shape)
        active.pop(int(np.argmin(P)))
    return v.reshape(shape)


def collide_spheres_1d(masses, velocities, e=1.0, scheme="simultaneous"):
    """Billiard row (Fig. 2.7): masses touching in a line along x, velocities (n,) [m/s]."""
    n = check_values("collide_spheres_1d", "masses", masses, lo=1.0 / MAX_MASS, hi=MAX_MASS, unit="kg").size
    return resolve_impulses(
        masses, velocities, [(i, i + 1, [1.0]) for i in range(n - 1)], e, scheme
    )
