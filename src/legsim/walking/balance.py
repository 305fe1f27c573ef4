"""Static balance of a walker (Konyev 2011 §3.4.4; digest §4.2): the centre of mass against the
support polygon, and the correction vector Δ_corr that shifts the bodies toward it.

(3.7): COM = rot(Σ X_i M_i g / Σ M_i g) over the bodies and legs (``rot``: the robot's orientation
relative to the bearing surface); in legsim the multibody model gives it
(:func:`legsim.multibody.dynamics.center_of_mass`). Static stability (§3.4.1) needs the CoM's ground
projection inside the polygon of the supporting feet; :func:`support_margin` is its signed distance
to the polygon's nearest edge, :func:`com_correction` the thesis's Δ_corr: a scaled vector from the
CoM to the polygon's centroid (Figs 3.25–3.26), the body shift that restores a margin.

ROTTO's balance (§4.3) keeps the ZMP, computed from the shanks' six-axis force/torque sensors
([Zav08], not reproduced), inside the polygon: :func:`zmp_from_wrenches`.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_number

__all__ = ["support_polygon", "support_margin", "com_correction", "zmp_from_wrenches", "MAX_COORDINATE"]


MAX_COORDINATE = 1e6
"""The largest foot or CoM coordinate [m] (beyond, the products of the balance and force equations
overflow)."""


def _ground_point(owner: str, com) -> np.ndarray:
    """The first two of the numbers ``com`` (x, y [m]: a 3-D CoM's ground projection)."""
    c = as_floats(com).ravel()
    if c.size not in (2, 3) or not np.all(np.abs(c) <= MAX_COORDINATE):
        raise InputError(f"{owner}: 'com' = {com!r}, expected (x, y) or (x, y, z) within "
                         f"±{MAX_COORDINATE:g} m")
    return c[:2]


def support_polygon(feet) -> np.ndarray:
    """The convex hull (k, 2) [m] of the supporting feet's horizontal positions (n, 2), counter-
    clockwise (n >= 3 feet not on one line)."""
    from scipy.spatial import ConvexHull, QhullError

    f = as_floats(feet)
    if f.ndim != 2 or f.shape[1] != 2 or len(f) < 3 or not np.all(np.abs(f) <= MAX_COORDINATE):
        raise InputError(f"support_polygon: 'feet' = {feet!r}, expected (n >= 3, 2) coordinates within "
                         f"±{MAX_COORDINATE:g} m")
    try:
        hull = ConvexHull(f)
    except QhullError:
        raise InputError("support_polygon: the feet lie on one line: no polygon") from None
    return f[hull.vertices]


def support_margin(com, feet) -> float:
    """Signed distance [m] from the CoM's ground projection ``com`` (2,) to the nearest edge of the
    support polygon of ``feet`` (n, 2): positive inside (statically stable), negative outside."""
    c = _ground_point("support_margin", com)
    poly = support_polygon(feet)
    a, b = poly, np.roll(poly, -1, axis=0)
    edge = b - a
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.linalg.norm(edge, axis=1)[:, None]  # outward
    return float(-np.max(np.einsum("ij,ij->i", c - a, normal)))


def com_correction(com, feet, gain: float = 1.0) -> np.ndarray:
    """Δ_corr (2,) [m]: ``gain`` times the vector from the CoM's projection ``com`` to the centroid
    of the support polygon of ``feet`` (n, 2) (area centroid)."""
    c = _ground_point("com_correction", com)
    gain = check_number("com_correction", "gain", gain)
    poly = support_polygon(feet)
    x, y = poly[:, 0], poly[:, 1]
    xn, yn = np.roll(x, -1), np.roll(y, -1)
    cross = x * yn - xn * y
    area = cross.sum() / 2.0
    centroid = np.array([((x + xn) * cross).sum(), ((y + yn) * cross).sum()]) / (6.0 * area)
    return gain * (centroid - c)


def zmp_from_wrenches(positions, forces, moments, ground_height: float = 0.0) -> np.ndarray:
    """The ZMP (2,) [m] on the horizontal ground ``z = ground_height`` from foot force/torque sensors.

    Sensor j at world position ``positions[j]`` (n, 3) [m] measures the force ``forces[j]`` (n, 3) [N]
    and the moment about its own origin ``moments[j]`` (n, 3) [N m] that the ground exerts on the foot,
    in world axes (rotate a sensor's readings by its orientation first). The ZMP is the ground point
    about which the summed moment has no horizontal part (Kajita, Hirukawa, Harada, Yokoi,
    *Introduction to Humanoid Robotics*, Springer 2014, §3.3.3, (3.26)–(3.30); Vukobratović's ZMP)::

        p_x = (sum r_x f_z - (r_z - z_g) f_x - tau_y) / sum f_z
        p_y = (sum r_y f_z - (r_z - z_g) f_y + tau_x) / sum f_z

    (from ``sum tau_j + (r_j - p) x f_j = (0, 0, *)``). A single foot gives its centre of pressure.
    InputError when the feet carry no vertical load (``sum f_z <= 0``).
    """
    r, f, m = (np.atleast_2d(as_floats(a)) for a in (positions, forces, moments))
    same = r.shape == f.shape == m.shape and r.shape[1] == 3
    if not same or not (np.all(np.abs(r) <= MAX_COORDINATE) and np.all(np.isfinite(np.stack([f, m])))):
        raise InputError(f"zmp_from_wrenches: positions, forces, moments of shapes {np.shape(positions)}, "
                         f"{np.shape(forces)}, {np.shape(moments)}: expected three finite (n, 3) arrays")
    fz = f[:, 2].sum()
    if not fz > 0.0:
        raise InputError(f"zmp_from_wrenches: the 'forces' have no upward sum (sum f_z = {fz:g} N): the feet "
                         f"carry no load, no ZMP")
    h = r[:, 2] - check_number("zmp_from_wrenches", "ground_height", ground_height)
    px = (r[:, 0] @ f[:, 2] - h @ f[:, 0] - m[:, 1].sum()) / fz
    py = (r[:, 1] @ f[:, 2] - h @ f[:, 1] + m[:, 0].sum()) / fz
    return np.array([px, py])
