"""LIBRA's analytic kinematics and Jacobians (digest ``shared/spec/cjtc-libra.md`` §4.1, §4.4, §4.5,
App. A, App. C).

Frame (the thesis's): foot 1 pinned at the origin, x horizontal towards the right ladder, y up, all
angles counter-clockwise. Joint vector q = θ = [θ1 .. θ6] (§4.1): limb 1 knee θ1 and hip θ2, limb 2
hip θ3 and knee θ4, limb 3 hip θ5 and knee θ6. φ, the absolute angle of limb 1's first link
(foot 1 -> knee 1), is not measured; with foot 2 on a rung it follows from the y2 constraint.

Absolute link angles (§4.5): α1 = φ, α2 = φ+θ1, body θ_b = φ+θ1+θ2 (the edge joint 2 -> joint 3),
α3 = θ_b+θ3, α4 = α3+θ4, α5 = θ_b+θ5−π/2 (θ5 is measured from the body-edge normal), α6 = α5+θ6.
With e(a) = (cos a, sin a) and every link 2L long::

    knee1 = 2L e(α1)               hip1 = knee1 + 2L e(α2)          (joint 2)
    body  = hip1 + r e(θ_b − π/6)  hip2 = hip1 + N e(θ_b)           (joint 3)
    knee2 = hip2 + 2L e(α3)        foot2 = knee2 + 2L e(α4)
    hip3  = body + r e(θ_b − π/2)  knee3 = hip3 + 2L e(α5)   foot3 = knee3 + 2L e(α6)

which are App. A's x_b, y_b, x_foot (= x2), y2 (the constraint), x_free, y_free. (Joint 5 sits at
r below the body centre as App. A writes x_free; App. C's model puts m10 at hip1 + N e(θ_b − π/3),
0.08 mm away since r = 0.048 ≠ N/√3 = 0.0479. App. A is used throughout.)

Derivatives: everything is built on the one position function :func:`points`. For a planar chain
the partial of a point p with respect to a joint angle whose pivot c lies upstream of p is
∂p/∂q = R90 (p − c) (R90 the +90° rotation); this reproduces App. A's and App. C's printed terms
entry by entry (e.g. j11 = −2L s_φ − 2L s_φ1 − r s_(φ12−π/6) = −y_b, b1 = ∂y2/∂φ = x2,
a_i = ∂y2/∂θ_i = x2 − x(pivot i)), so they are not transcribed one by one.
"""

from __future__ import annotations

import math

import numpy as np

from legsim.errors import (
    InputError,
    as_float,
    as_floats,
    check_array,
    check_number,
    check_whole,
    lookup,
    shown,
)

from .params import LibraParams

__all__ = [
    "POINT_NAMES", "DEFAULT_ELBOWS", "points", "point_jacobian", "u1", "u2", "u3",
    "phi_from_y2", "phi_from_y2_newton", "phi_branches", "dphi_dtheta", "dphi_dtheta_atan",
    "t_matrix", "jacobian_4x5", "jacobian_u1", "jacobian_over", "inverse", "joint_limit_excess",
]

_DEFAULT = LibraParams()

MAX_ANGLE = 1e6
"""The largest joint or limb angle [rad] the kinematics take (beyond, cos and sin have no digits left)."""

MAX_DISTANCE = 1e3
"""The largest foot height or position [m] the kinematics take (LIBRA spans 0.7 m)."""

_M, _RAD = (MAX_DISTANCE, "m"), (MAX_ANGLE, "rad")
"""The bounds of a position and of an angle, as :func:`_within` takes them."""

MAX_NEWTON_STEPS = 10_000
"""The most steps :func:`phi_from_y2_newton` takes (it converges in a few or not at all)."""

POINT_NAMES = ("foot1", "knee1", "hip1", "body", "hip2", "knee2", "foot2", "hip3", "knee3", "foot3")
"""Keys of :func:`points` (hip1 = joint 2, hip2 = joint 3, hip3 = joint 5)."""

_PIVOTS = ("foot1", "knee1", "hip1", "hip2", "knee2", "hip3", "knee3")
"""Pivot of each over-specified coordinate q_o = [φ, θ1, θ2, θ3, θ4, θ5, θ6]."""

_UPSTREAM = {
    "foot1": (), "knee1": (0,), "hip1": (0, 1), "body": (0, 1, 2), "hip2": (0, 1, 2),
    "knee2": (0, 1, 2, 3), "foot2": (0, 1, 2, 3, 4), "hip3": (0, 1, 2),
    "knee3": (0, 1, 2, 5), "foot3": (0, 1, 2, 5, 6),
}
"""Indices into q_o of the coordinates that move each point (the chain from foot 1)."""

_ELBOW_JOINTS = ((0, 1), (2, 3), (4, 5))
"""θ indices (0-based) of each limb's joints; the knees are θ1, θ4, θ6."""

DEFAULT_ELBOWS = (-1, -1, -1)
"""Knee-bend signs (sign of θ1, θ4, θ6) used by :func:`inverse` when both branches are equally
admissible. −1 bends limbs 1 and 2 clockwise: knee 1 above and outside foot 1 and, by the mirror
symmetry of the body (θ4 = θ1 for a mirrored posture), knee 2 outside foot 2. With the body
between the ladders this is the branch that keeps the hips θ2, θ3 inside +132/−69° (§4.2)."""


def _e(angle: float) -> np.ndarray:
    return np.array([math.cos(angle), math.sin(angle)])


def _r90(v: np.ndarray) -> np.ndarray:
    return np.array([-v[1], v[0]])


def _theta6(owner: str, theta) -> np.ndarray:
    """``theta``, the joint angles θ1..θ6 (or θ1..θ4: θ5 = θ6 = 0) within ±MAX_ANGLE [rad], as (6,)."""
    t = as_floats(theta).reshape(-1)
    if t.shape == (4,) and np.all(np.abs(t) <= MAX_ANGLE):
        return np.concatenate([t, np.zeros(2)])
    if t.shape != (6,) or not np.all(np.abs(t) <= MAX_ANGLE):
        raise InputError(f"{owner}: 'theta' = {shown(theta)}, expected the 6 joint angles θ1..θ6 [rad] (or "
                         f"θ1..θ4), each within ±{MAX_ANGLE:g}")
    return t


def _angle(owner: str, name: str, value) -> float:
    """An angle [rad] within ±MAX_ANGLE, as a float."""
    v = as_float(value)
    if not abs(v) <= MAX_ANGLE:
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected an angle within ±{MAX_ANGLE:g} rad")
    return v


def _check_params(owner: str, params) -> LibraParams:
    """``params`` if it is a :class:`LibraParams`, else an :class:`InputError` naming ``owner``."""
    if not isinstance(params, LibraParams):
        raise InputError(f"{owner}: 'params' = {shown(params)}, expected a LibraParams")
    return params


def _within(owner: str, name: str, value, bounds: tuple[tuple[float, str], ...]) -> np.ndarray:
    """``value`` as len(bounds) finite floats, each within ±its bound (a (bound, unit) pair: MAX_DISTANCE m
    for a position, MAX_ANGLE rad for an angle), else an :class:`InputError` naming ``owner`` and ``name``."""
    v = check_array(owner, name, value, (len(bounds),))
    if not np.all(np.abs(v) <= [b for b, _ in bounds]):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {len(bounds)} numbers within "
                         f"{', '.join(f'±{b:g} {unit}' for b, unit in bounds)}")
    return v


def _pose(owner: str, phi, theta, params) -> None:
    """Check a public function's (φ, θ, params) naming ``owner``: what :func:`points` takes."""
    _angle(owner, "phi", phi)
    _theta6(owner, theta)
    _check_params(owner, params)


def points(phi: float, theta, params: LibraParams = _DEFAULT) -> dict[str, np.ndarray]:
    """Positions of LIBRA's joints, feet and body centre with foot 1 at the origin (§4.5, App. A).

    Parameters
    ----------
    phi : float
        Angle of limb 1's first link (foot 1 -> knee 1) from the x axis [rad].
    theta : array_like, shape (6,) (or (4,): θ5 = θ6 = 0)
        Joint angles θ1..θ6 [rad] (§4.1).
    params : LibraParams
        Geometry (L, r, N).

    Returns
    -------
    dict[str, ndarray (2,)]
        Keys :data:`POINT_NAMES` [m]; ``points(...)["body"]`` is (x_b, y_b) and the body angle is
        θ_b = φ + θ1 + θ2.
    """
    t = _theta6("points", theta)
    phi = _angle("points", "phi", phi)
    link, r, n = _check_params("points", params).link, params.r, params.N
    theta_b = phi + t[0] + t[1]
    p: dict[str, np.ndarray] = {"foot1": np.zeros(2)}
    p["knee1"] = link * _e(phi)
    p["hip1"] = p["knee1"] + link * _e(phi + t[0])
    p["body"] = p["hip1"] + r * _e(theta_b - math.pi / 6)
    p["hip2"] = p["hip1"] + n * _e(theta_b)
    p["knee2"] = p["hip2"] + link * _e(theta_b + t[2])
    p["foot2"] = p["knee2"] + link * _e(theta_b + t[2] + t[3])
    p["hip3"] = p["body"] + r * _e(theta_b - math.pi / 2)
    p["knee3"] = p["hip3"] + link * _e(theta_b + t[4] - math.pi / 2)
    p["foot3"] = p["knee3"] + link * _e(theta_b + t[4] + t[5] - math.pi / 2)
    return p


def _point_jacobian(name: str, pts: dict[str, np.ndarray]) -> np.ndarray:
    jac = np.zeros((2, 7))
    for k in _UPSTREAM[name]:
        jac[:, k] = _r90(pts[name] - pts[_PIVOTS[k]])
    return jac


def point_jacobian(name: str, phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """∂p/∂q_o of one point of :func:`points` over q_o = [φ, θ1..θ6], shape (2, 7) [m/rad].

    Column k is R90 (p − c_k) when the pivot c_k of coordinate k lies between foot 1 and p, else 0
    (the planar rotation rule, module docstring). A mid-link point's Jacobian is the mean of its two
    ends' (the positions are linear in the points). ``name``: one of :data:`POINT_NAMES`.
    """
    lookup("point name", name, POINT_NAMES, "point_jacobian")
    _pose("point_jacobian", phi, theta, params)
    return _point_jacobian(name, points(phi, theta, params))


_THETA_B_ROW = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
"""∂θ_b/∂q_o: θ_b = φ + θ1 + θ2."""

_U_ROWS = {"x_b": ("body", 0), "y_b": ("body", 1), "x2": ("foot2", 0), "y2": ("foot2", 1),
           "x3": ("foot3", 0), "y3": ("foot3", 1), "x1": ("foot1", 0), "y1": ("foot1", 1)}
U1 = ("x_b", "y_b", "theta_b", "x2", "x3", "y3")
"""Control vector 1 (stages 1 and 3, eq. 17)."""
U2 = ("x_b", "y_b", "theta_b", "x2", "y2", "x3")
"""Control vector 2 (stage 2, §4.4)."""
U3 = ("x1", "y1", "x_b", "y_b", "theta_b", "x2")
"""Control vector 3 (stage 4, §4.4)."""
_VARIABLES = ("theta_b", *_U_ROWS)
"""The control variables :func:`jacobian_over` takes."""
VECTORS = {"u1": U1, "u2": U2, "u3": U3}
"""The three control vectors of §4.4 (Figs. 23–25) by name."""


def _u_value(owner, names, phi, theta, params, origin=(0.0, 0.0)) -> np.ndarray:
    _pose(owner, phi, theta, params)
    pts = points(phi, theta, params)
    t = _theta6(owner, theta)
    org = np.asarray(origin, dtype=float)
    out = []
    for n in names:
        if n == "theta_b":
            out.append(phi + t[0] + t[1])
        else:
            name, axis = _U_ROWS[n]
            out.append(pts[name][axis] + org[axis])
    return np.array(out)


def jacobian_over(names, phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """∂u/∂q_o of the named control variables over q_o = [φ, θ1..θ6], shape (len(names), 7).

    ``names`` are taken from ``x_b, y_b, theta_b, x1, y1, x2, y2, x3, y3``; this is the
    over-specified Jacobian that App. C writes for [x_b, y_b, θ_b, x2] (j11..j45).
    """
    if not (isinstance(names, list | tuple) or (isinstance(names, np.ndarray) and names.ndim == 1)) \
            or len(names) == 0:
        raise InputError(f"jacobian_over: 'names' = {shown(names)}, expected a list of control variables "
                         f"from {', '.join(_VARIABLES)}")
    for n in names:
        lookup("'names' entry", n, _VARIABLES, "jacobian_over")
    _pose("jacobian_over", phi, theta, params)
    pts = points(phi, theta, params)
    rows = []
    for n in names:
        if n == "theta_b":
            rows.append(_THETA_B_ROW)
        else:
            rows.append(_point_jacobian(_U_ROWS[n][0], pts)[_U_ROWS[n][1]])
    return np.array(rows)


def u1(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """Control vector 1, [x_b, y_b, θ_b, x2, x3, y3] (eq. 17, §4.4), shape (6,) [m, m, rad, m, m, m].

    Foot-1 frame (foot 1 at the origin); stages 1 and 3, feet 1 and 2 supporting.
    """
    return _u_value("u1", U1, phi, theta, params)


def u2(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """Control vector 2, [x_b, y_b, θ_b, x2, y2, x3] (§4.4, stage 2), shape (6,), foot-1 frame.

    In stage 2 foot 2 is free and foot 3 supports; φ is then no longer fixed by y2 but by foot 3's
    contact (that elimination is done by the generic constraint code, not here).
    """
    return _u_value("u2", U2, phi, theta, params)


def u3(phi: float, theta, params: LibraParams = _DEFAULT, foot1=(0.0, 0.0)) -> np.ndarray:
    """Control vector 3, [x1, y1, x_b, y_b, θ_b, x2] (§4.4, stage 4), shape (6,).

    In stage 4 foot 1 is free, foot 3 supports and foot 2 pushes the wall, so x1, y1 are not
    identically 0: the vector is returned in the frame where foot 1 sits at ``foot1`` = (x1, y1)
    [m], i.e. every position is the foot-1-frame one shifted by foot 1's position relative to the
    support frame, p_world = foot1 + p(φ, θ). φ keeps its meaning (absolute angle of limb 1's first
    link, frame-independent); the caller obtains (foot1, φ) from the support: with foot 3 pinned at
    s3, foot1 = s3 − points(φ, θ)["foot3"] and φ follows from foot 2's contact relative to foot 3.
    """
    origin = _within("u3", "foot1", foot1, (_M, _M))
    return _u_value("u3", U3, phi, theta, params, origin=origin)


def phi_branches(theta, y2: float, params: LibraParams = _DEFAULT) -> tuple[float, float]:
    """Both closed-form solutions φ± of the y2 constraint (App. A), wrapped to (−π, π] [rad].

    y2 = k1 sin φ + k2 cos φ, where (k1, k2) is foot 2's position for φ = 0 (App. A's
    k1 = 2L + 2L c1 + 2L c123 + 2L c1234 + N c12 and k2 = 2L s1 + 2L s123 + 2L s1234 + N s12).
    With t = tan(φ/2), (y+k2) t² − 2 k1 t + (y − k2) = 0, so

        φ± = 2 atan[(k1 ± √(k1² + k2² − y²)) / (y + k2)] = 2 atan[(y − k2) / (k1 ∓ √(k1² + k2² − y²))],

    the second form (product of the roots) being used whenever its denominator is the larger, so
    y + k2 → 0 (one root at φ = π) stays exact. Raises :class:`InputError` when foot 2 cannot reach
    y2, i.e. y2² > k1² + k2².
    """
    _pose("phi_branches", 0.0, theta, params)
    k1, k2 = points(0.0, theta, params)["foot2"]
    y2 = check_number("phi_branches", "y2", y2, lo=-MAX_DISTANCE, hi=MAX_DISTANCE)  # [m]
    reach2 = k1 * k1 + k2 * k2
    disc = reach2 - y2 * y2
    if disc < -1e-12 * max(reach2, 1e-30):
        raise InputError(f"foot 2 cannot reach y2 = {y2:.6g} m: |y2| must be at most the foot-1 to foot-2 "
                         f"distance {math.sqrt(reach2):.6g} m for these joint angles")
    s = math.sqrt(max(disc, 0.0))
    out = []
    for sign in (1.0, -1.0):
        num_a, den_a = k1 + sign * s, y2 + k2
        num_b, den_b = y2 - k2, k1 - sign * s
        num, den = (num_a, den_a) if abs(den_a) >= abs(den_b) else (num_b, den_b)
        phi = 2.0 * math.atan2(num, den)
        out.append(math.remainder(phi, 2.0 * math.pi))
    return out[0], out[1]


def phi_from_y2(theta, y2: float, params: LibraParams = _DEFAULT, phi_ref: float | None = None) -> float:
    """φ from foot 2's rung height y2 (closed form, App. A; §10.1 item 5), [rad].

    Parameters
    ----------
    theta : array_like, shape (6,) or (4,)
        Joint angles [rad]; only θ1..θ4 matter.
    y2 : float
        Foot 2's height relative to foot 1 [m].
    phi_ref : float, optional
        Previous φ [rad]: the branch nearest to it (modulo 2π) is returned, unwrapped to within π of
        phi_ref, which keeps φ continuous along a trajectory. Default (None): the branch that puts
        foot 2 on the right-ladder side of foot 1, x2 = ∂y2/∂φ = b1 > 0 (the other branch is the
        whole top chain flipped over foot 1), wrapped to (−π, π].

    Raises
    ------
    InputError
        If foot 2 cannot reach y2 with these joint angles.
    """
    _pose("phi_from_y2", 0.0, theta, params)
    check_number("phi_from_y2", "y2", y2, lo=-MAX_DISTANCE, hi=MAX_DISTANCE)  # [m]
    phi_ref = None if phi_ref is None else _angle("phi_from_y2", "phi_ref", phi_ref)
    branches = phi_branches(theta, y2, params)
    if phi_ref is None:
        k1, k2 = points(0.0, theta, params)["foot2"]
        x2 = [k1 * math.cos(p) - k2 * math.sin(p) for p in branches]
        return branches[int(np.argmax(x2))]
    near = [phi_ref + math.remainder(p - phi_ref, 2.0 * math.pi) for p in branches]
    return min(near, key=lambda p: abs(p - phi_ref))


def phi_from_y2_newton(theta, y2: float, params: LibraParams = _DEFAULT, phi0: float = 0.0,
                       tol: float = 1e-13, max_iter: int = 50) -> float:
    """φ from y2 by Newton's method on y2(φ) − y2 = 0, the check of :func:`phi_from_y2` [rad].

    The derivative is b1 = ∂y2/∂φ = x2 (App. C). Converges to the branch nearest ``phi0`` [rad] to a
    step below ``tol`` (0 < tol <= 1 rad) within ``max_iter`` (1 .. :data:`MAX_NEWTON_STEPS`) steps;
    raises :class:`InputError` if it does not converge (y2 out of reach, or b1 ≈ 0 on the way).
    """
    o = "phi_from_y2_newton"
    _pose(o, 0.0, theta, params)
    y2 = check_number(o, "y2", y2, lo=-MAX_DISTANCE, hi=MAX_DISTANCE)  # [m]
    phi = start = _angle(o, "phi0", phi0)
    tol = check_number(o, "tol", tol, lo=0.0, hi=1.0, lo_open=True)  # [rad]
    max_iter = check_whole(o, "max_iter", max_iter, lo=1, hi=MAX_NEWTON_STEPS)
    for _ in range(max_iter):
        if not abs(phi) <= MAX_ANGLE:  # a step from b1 ≈ 1e-12 m threw φ away
            break
        x2, y = points(phi, theta, params)["foot2"]
        if abs(x2) < 1e-12:
            break
        step = (y - y2) / x2
        phi -= step
        if abs(step) < tol:
            return phi
    raise InputError(f"{o}: Newton's method found no φ with foot 2 at y2 = {y2:.6g} m from phi0 = "
                     f"{start:.6g} rad in max_iter = {max_iter} steps to tol = {tol:g} rad")


def dphi_dtheta(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """dφ/dθ_i = −a_i / b1 with foot 2's y held (App. C), shape (6,) [rad/rad].

    a_i = ∂y2/∂θ_i (a1 = 2L c_φ1 + N c_φ12 + 2L c_φ123 + 2L c_φ1234, …, a4 = 2L c_φ1234) and
    b1 = ∂y2/∂φ = 2L(c_φ + c_φ1 + c_φ123 + c_φ1234) + N c_φ12 = x2; θ5, θ6 do not move foot 2, so
    the last two entries are 0. Raises :class:`InputError` where b1 = x2 = 0 (foot 2 straight above
    or below foot 1: φ is not determined by y2 to first order).
    """
    _pose("dphi_dtheta", phi, theta, params)
    row = _point_jacobian("foot2", points(phi, theta, params))[1]
    b1 = row[0]
    if abs(b1) < 1e-12:
        raise InputError(f"dphi_dtheta: b1 = ∂y2/∂φ = x2 = {b1:.3g} m at phi = {as_float(phi):.6g} rad, "
                         f"theta = {shown(theta)}: the y2 constraint does not determine φ here")
    return -row[1:] / b1


def dphi_dtheta_atan(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """dφ/dθ_i by differentiating App. A's φ = 2 atan[(k1 ± √(k1²+k2²−y²)) / (y + k2)], shape (6,).

    dφ/dθ_i = 2[(y+k2) w′ − w k2′] / [(y+k2)² + w²], w = k1 ± s, s = √(k1²+k2²−y²),
    w′ = k1′ ± (k1 k1′ + k2 k2′)/s, with k1′, k2′ = ∂(foot 2)/∂θ_i at φ = 0 and y = y2(φ, θ)
    held. The branch sign is the one that reproduces ``phi``. Where y + k2 is below 1 % of
    v = k1 ∓ s, the other form of :func:`phi_branches`, φ = 2 atan[(y − k2) / v], is differentiated
    instead: dφ/dθ_i = 2[−v k2′ − (y − k2) v′] / [(y − k2)² + v²], v′ = k1′ ∓ (k1 k1′ + k2 k2′)/s
    (the first form is 0/0 at y + k2 = 0 on the branch away from φ = π). Independent of
    :func:`dphi_dtheta` (acceptance 4 compares them).
    """
    _pose("dphi_dtheta_atan", phi, theta, params)
    y = points(phi, theta, params)["foot2"][1]
    k1, k2 = points(0.0, theta, params)["foot2"]
    dk = _point_jacobian("foot2", points(0.0, theta, params))[:, 1:]
    branches = phi_branches(theta, y, params)
    sign = 1.0 if abs(math.remainder(branches[0] - phi, 2 * math.pi)) <= abs(
        math.remainder(branches[1] - phi, 2 * math.pi)) else -1.0
    s = math.sqrt(max(k1 * k1 + k2 * k2 - y * y, 0.0))
    if s == 0.0:
        raise InputError(f"dphi_dtheta_atan: at phi = {as_float(phi):.6g} rad, theta = {shown(theta)} the y2 "
                         f"constraint is singular (k1² + k2² = y²): dφ/dθ is unbounded")
    w, v = k1 + sign * s, k1 - sign * s
    if abs(y + k2) < 1e-2 * abs(v):
        dv = dk[0] - sign * (k1 * dk[0] + k2 * dk[1]) / s
        return 2.0 * (-v * dk[1] - (y - k2) * dv) / ((y - k2) ** 2 + v * v)
    dw = dk[0] + sign * (k1 * dk[0] + k2 * dk[1]) / s
    return 2.0 * ((y + k2) * dw - w * dk[1]) / ((y + k2) ** 2 + w * w)


def t_matrix(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """T of App. C, shape (5, 4): [δφ; δθ1..δθ4] = T [δθ1..δθ4], T = [[−a1/b1 .. −a4/b1]; I4]."""
    _pose("t_matrix", phi, theta, params)
    return np.vstack([dphi_dtheta(phi, theta, params)[:4], np.eye(4)])


def jacobian_4x5(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """App. C's over-specified Jacobian of [x_b, y_b, θ_b, x2] over [φ, θ1..θ4], shape (4, 5).

    Entry by entry j11 = −2L s_φ − 2L s_φ1 − r s_(φ12−π/6), …, j45 = −2L s_φ1234 (digest §4.5).
    """
    _pose("jacobian_4x5", phi, theta, params)
    return jacobian_over(U1[:4], phi, theta, params)[:, :5]


def jacobian_u1(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """The 6×6 Jacobian ∂u1/∂θ with φ eliminated through foot 2's y2 contact (App. A, §4.5).

    App. A's form: J_ik = ∂u_i/∂φ · dφ/dθ_k + ∂u_i/∂θ_k (e.g. J11 = P_x φ1′ − 2L s_φ1 −
    r s_(φ12−π/6) with P_x = ∂x_b/∂φ), rows [x_b, y_b, θ_b, x2, x3, y3], columns θ1..θ6.
    The upper-left 4×4 block equals jacobian_4x5 · T (App. C). Units m/rad (row θ_b: rad/rad).
    """
    _pose("jacobian_u1", phi, theta, params)
    jo = jacobian_over(U1, phi, theta, params)
    return jo[:, 1:] + np.outer(jo[:, 0], dphi_dtheta(phi, theta, params))


def joint_limit_excess(theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """How far each θ_i lies outside its hardware limit (§4.2), shape (6,) [rad]; 0 inside."""
    t = _theta6("joint_limit_excess", theta)
    lim = np.asarray(_check_params("joint_limit_excess", params).joint_limits)
    return np.maximum(lim[:, 0] - t, 0.0) + np.maximum(t - lim[:, 1], 0.0)


def _two_link(base: np.ndarray, target: np.ndarray, link: float, sign: int, limb: int) -> tuple[float, float]:
    """First-link angle and knee bend of a two-equal-link limb reaching from base to target [rad]."""
    d_vec = np.asarray(target, dtype=float) - base
    d = float(np.hypot(*d_vec))
    if d > 2.0 * link * (1.0 + 1e-12):
        given = ("'body' (hip 1)", "'foot2'", "'foot3'")[limb - 1]  # the argument that placed the target
        raise InputError(f"inverse: limb {limb} cannot reach {given}: the hip-to-foot distance {d:.6g} m "
                         f"exceeds the limb's length 2·2L = {2.0 * link:.6g} m")
    cos_bend = min(1.0, max(-1.0, (d * d - 2.0 * link * link) / (2.0 * link * link)))
    bend = sign * math.acos(cos_bend)
    return math.atan2(d_vec[1], d_vec[0]) - 0.5 * bend, bend


def _wrap(a: float) -> float:
    return math.remainder(a, 2.0 * math.pi)


def inverse(body, foot2, foot3=None, params: LibraParams = _DEFAULT,
            elbows=None) -> tuple[float, np.ndarray]:
    """Joint angles for a requested body pose and foot positions, foot 1 at the origin.

    Parameters
    ----------
    body : (x_b, y_b, θ_b)
        Body centre [m] and orientation [rad].
    foot2, foot3 : (x, y)
        Feet 2 and 3 [m] (foot-1 frame). ``foot3=None`` leaves limb 3 hanging straight down
        (θ5 = θ6 = 0), for uses where limb 3 does not matter (the top-chain model of App. C).
    elbows : sequence of 3 of {+1, −1, None}, optional
        Knee-bend sign of limbs 1, 2, 3 (the sign of θ1, θ4, θ6). None (default, or per limb):
        the branch whose joint angles exceed the limits of §4.2 (:func:`joint_limit_excess`) the
        least, ties going to :data:`DEFAULT_ELBOWS`. When no branch is inside the limits, the
        returned angles are still exact but violate them; check with :func:`joint_limit_excess`.

    Returns
    -------
    phi : float
        [rad]
    theta : ndarray, shape (6,)
        θ1..θ6 [rad], each wrapped to (−π, π].

    Raises
    ------
    InputError
        If a hip cannot reach its foot (distance > 4L).
    """
    o = "inverse"
    x_b, y_b, theta_b = (float(v) for v in _within(o, "body", body, (_M, _M, _RAD)))
    foot2 = _within(o, "foot2", foot2, (_M, _M))
    foot3 = None if foot3 is None else _within(o, "foot3", foot3, (_M, _M))
    given = elbows
    elbows = ((None, None, None) if elbows is None
              else tuple(elbows) if isinstance(elbows, list | tuple | np.ndarray) else ())
    if len(elbows) != 3 or any(not (e is None or (np.ndim(e) == 0 and e in (1, -1))) for e in elbows):
        raise InputError(f"{o}: 'elbows' = {shown(given)}, expected 3 values from +1, -1, None")
    link, r, n = _check_params(o, params).link, params.r, params.N
    centre = np.array([x_b, y_b])
    hip1 = centre - r * _e(theta_b - math.pi / 6)
    hip2 = hip1 + n * _e(theta_b)
    hip3 = centre + r * _e(theta_b - math.pi / 2)
    lim = np.asarray(params.joint_limits)

    def limb(i, base, target, to_joints):
        best = None
        signs = (elbows[i],) if elbows[i] is not None else (DEFAULT_ELBOWS[i], -DEFAULT_ELBOWS[i])
        for sign in signs:
            first, bend = _two_link(base, target, link, sign, i + 1)
            joints = to_joints(first, bend)
            j = np.array([_wrap(v) for v in joints])
            excess = float(np.sum(np.maximum(lim[list(_ELBOW_JOINTS[i]), 0] - j, 0.0)
                                  + np.maximum(j - lim[list(_ELBOW_JOINTS[i]), 1], 0.0)))
            if best is None or excess < best[0] - 1e-12:
                best = (excess, first, j)
        return best[1], best[2]

    phi, (t1, t2) = limb(0, np.zeros(2), hip1, lambda a, b: (b, theta_b - a - b))
    _, (t3, t4) = limb(1, hip2, foot2, lambda a, b: (a - theta_b, b))
    if foot3 is None:
        t5 = t6 = 0.0
    else:
        _, (t5, t6) = limb(2, hip3, foot3, lambda a, b: (a - theta_b + math.pi / 2, b))
    return _wrap(phi), np.array([t1, t2, t3, t4, t5, t6])
