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

from ..errors import InputError, check_number, check_values

__all__ = ["newton_impulse_pair", "resolve_impulses", "collide_spheres_1d"]


def newton_impulse_pair(m1, m2, v1, v2, normal, e):
    """Post-impact velocities of two masses [kg] with velocities v1, v2 (3,) [m/s].

    ``normal`` points from body 1 to body 2; Newton's law: (v2' - v1') . n = -e (v2 - v1) . n when
    the bodies approach ((v2 - v1) . n < 0), else velocities are unchanged.
    """
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    v1 = np.asarray(v1, dtype=float)
    v2 = np.asarray(v2, dtype=float)
    vn = float((v2 - v1) @ n)
    if vn >= 0.0:
        return v1.copy(), v2.copy()
    P = -(1.0 + e) * vn / (1.0 / m1 + 1.0 / m2)
    return v1 - P / m1 * n, v2 + P / m2 * n


def _check(masses, vel, contacts, e):
    m = check_values("impulse", "masses", masses, lo=0.0, hi=1e12, lo_open=True, unit="kg")
    if m.ndim != 1:
        raise InputError(f"impulse 'masses' = {masses!r}: expected a list of masses (n,) [kg]")
    v = check_values("impulse", "velocities", vel, lo=-1e6, hi=1e6, unit="m/s").copy()
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2 or v.shape[0] != len(m):
        raise InputError(f"impulse 'velocities' has shape {v.shape}: expected (n,) or (n, d) with n = "
                         f"{len(m)} (one row per mass of 'masses')")
    check_number("impulse", "e", e, lo=0.0, hi=1.0)  # restitution
    for c in contacts:
        if not (0 <= c[0] < len(m) and 0 <= c[1] < len(m) and c[0] != c[1]):
            raise InputError(f"contact {c!r}: expected two distinct body indices in [0, {len(m)})")
    return m, v


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
    if not (isinstance(scheme, str) and scheme in ("propagation", "simultaneous")):
        raise InputError(f"impulse scheme {scheme!r}: expected 'propagation' or 'simultaneous'")
    shape = np.shape(velocities)
    m, v = _check(masses, velocities, contacts, e)
    cs = [
        (int(i), int(j), np.atleast_1d(np.asarray(nrm, dtype=float)) / np.linalg.norm(nrm))
        for i, j, nrm in contacts
    ]
    if scheme == "propagation":
        for _ in range(max_sweeps):
            changed = False
            for i, j, n in cs:
                if (v[j] - v[i]) @ n < -1e-14:
                    v[i], v[j] = newton_impulse_pair(m[i], m[j], v[i], v[j], n, e)
                    changed = True
            if not changed:
                return v.reshape(shape)
        raise InputError(f"propagation did not settle within {max_sweeps} sweeps")
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
        P = np.linalg.solve(A, -(1.0 + e) * (J @ vv))
        if np.all(P >= -1e-14):
            return (vv + Minv * (J.T @ P)).reshape(v.shape).reshape(shape)
        active.pop(int(np.argmin(P)))
    return v.reshape(shape)


def collide_spheres_1d(masses, velocities, e=1.0, scheme="simultaneous"):
    """Billiard row (Fig. 2.7): masses touching in a line along x, velocities (n,) [m/s]."""
    n = check_values("collide_spheres_1d", "masses", masses, lo=0.0, hi=1e12, lo_open=True, unit="kg").size
    return resolve_impulses(
        masses, velocities, [(i, i + 1, [1.0]) for i in range(n - 1)], e, scheme
    )
