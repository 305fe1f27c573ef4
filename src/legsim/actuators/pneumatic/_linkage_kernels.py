"""Compiled joint-linkage kernels: Daepp (2011) eqs. (5.2.1)–(5.2.9). Private; SI (m, rad)."""

from __future__ import annotations

import math

from numba import njit

ALPHA = 0
BETA = 1
GAMMA = 2


@njit(cache=True)
def gamma_of_theta(kind, l1, l3, l4, l5, theta):
    """Pivot angle γ [rad] and dγ/dθ for a joint angle θ [rad] (5.2.1), (5.2.3), (5.2.5)."""
    if kind == ALPHA:
        phi1 = math.acos(l4 / l3)
        phi2 = math.pi - math.asin(l5 / l1)
        return math.pi - phi2 - phi1 + theta, 1.0
    if kind == BETA:
        phi1 = math.acos(l4 / l3)
        phi2 = math.asin(l5 / l1)
        return math.pi - phi2 - phi1 + theta, 1.0
    phi2 = math.asin(l4 / l1)
    return math.pi - phi2 - theta, -1.0


@njit(cache=True)
def theta_of_gamma(kind, l1, l3, l4, l5, gamma):
    """Inverse of :func:`gamma_of_theta`."""
    if kind == ALPHA:
        return gamma - math.pi + (math.pi - math.asin(l5 / l1)) + math.acos(l4 / l3)
    if kind == BETA:
        return gamma - math.pi + math.asin(l5 / l1) + math.acos(l4 / l3)
    return math.pi - math.asin(l4 / l1) - gamma


@njit(cache=True)
def cylinder_of_joint(kind, l1, l2, l3, l4, l5, theta, theta_dot):
    """(x, ẋ, dx/dθ): piston position [m], velocity [m/s] and lever arm [m/rad].

    x = −l2 + √(l1² + l3² − 2 l1 l3 cos γ) (law of cosines); dx/dγ = l1 l3 sin γ / (l2 + x)
    (5.2.7)–(5.2.9); dx/dθ = dx/dγ · dγ/dθ; ẋ = dx/dθ · θ̇.
    """
    g, dg = gamma_of_theta(kind, l1, l3, l4, l5, theta)
    length = math.sqrt(max(l1 * l1 + l3 * l3 - 2.0 * l1 * l3 * math.cos(g), 0.0))
    dxdg = l1 * l3 * math.sin(g) / length
    dxdt = dxdg * dg
    return length - l2, dxdt * theta_dot, dxdt


@njit(cache=True)
def cylinder_coordinates(kind, l1, l2, l3, l4, l5, theta):
    """Barrel angle and piston coordinate of one closed triangle as functions of θ [rad]: the explicit
    constraint q = γ(θ) of a cylinder with mass (barrel revolute at the fixed-arm end A, piston-rod
    prismatic along it; Featherstone (2008) ch. 8, q = γ(y), q̇ = G ẏ, q̈ = G ÿ + Ġẏ).

    With γ' = (dγ/dθ) γ(θ) the signed angle from the fixed arm to the crank (dγ'/dθ = 1),
    D = B − A = (l3 cos γ' − l1, l3 sin γ') in the (e1, e2) basis, L = |D|:
    φ = atan2(l3 sin γ', l3 cos γ' − l1), dφ/dθ = (l3² − l1 l3 cos γ')/L²,
    d²φ/dθ² = l1 l3 sin γ'/L² − 2 (l3² − l1 l3 cos γ') l1 l3 sin γ'/L⁴;
    x = L − l2, dx/dθ = l1 l3 sin γ'/L, d²x/dθ² = l1 l3 cos γ'/L − (dx/dθ)²/L.
    Returns (φ [rad], dφ/dθ, d²φ/dθ² [1/rad], x [m], dx/dθ [m/rad], d²x/dθ² [m/rad²]); x is not
    clamped (the body position), dx/dθ equals :func:`cylinder_of_joint`'s lever arm.
    """
    g, dg = gamma_of_theta(kind, l1, l3, l4, l5, theta)
    gs = dg * g
    c = math.cos(gs)
    s = math.sin(gs)
    len2 = l1 * l1 + l3 * l3 - 2.0 * l1 * l3 * c
    length = math.sqrt(len2)
    num = l3 * l3 - l1 * l3 * c
    phi = math.atan2(l3 * s, l3 * c - l1)
    dphi = num / len2
    ddphi = l1 * l3 * s / len2 - 2.0 * num * l1 * l3 * s / (len2 * len2)
    dx = l1 * l3 * s / length
    ddx = l1 * l3 * c / length - dx * dx / length
    return phi, dphi, ddphi, length - l2, dx, ddx


@njit(cache=True)
def joint_of_cylinder(kind, l1, l2, l3, l4, l5, x):
    """Joint angle θ [rad] for piston position x [m] (γ in [0, π])."""
    length = x + l2
    c = (l1 * l1 + l3 * l3 - length * length) / (2.0 * l1 * l3)
    g = math.acos(min(1.0, max(-1.0, c)))
    return theta_of_gamma(kind, l1, l3, l4, l5, g)
