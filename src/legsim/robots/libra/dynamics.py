"""Dynamics of LIBRA's top kinematic chain (digest ``shared/spec/cjtc-libra.md`` §5, App. C, Fig. 26/C1).

The model of App. C: foot 1 pinned at the origin; limb 1, the body, limb 2; foot 2 on a rung (its
height y2 is a holonomic constraint) and against the wall spring K_e in x. Point masses (§4.1 table):

* m_link at the middle of each of the four links (foot1-knee1, knee1-hip1, hip2-knee2, knee2-foot2);
* m_motor at each of the four joints (knee1 = joint 1, hip1 = joint 2, hip2 = joint 3, knee2 = joint 4);
* m_body at the body centre;
* m_limb3 at joint 5 (hip3): limb 3 lumped at its hip.

Over the over-specified coordinates q_o = [φ, θ1, θ2, θ3, θ4] the kinetic energy of point masses is
T = ½ Σ m_i |ṗ_i|² = ½ q̇_oᵀ M q̇_o with

    M(q_o) = Σ m_i J_iᵀ J_i,     J_i = ∂p_i/∂q_o (2×5, :func:`legsim.robots.libra.kinematics.point_jacobian`),

which is exactly what Lagrange's equation (21) gives for the inertia term; the velocity-product terms
vanish when linearising about q̇ = 0 (App. C). M is not transcribed from App. C: the printed matrix
depends on φ (its cos(2φ + …) terms), which a chain pinned at foot 1 cannot do — rotating the whole
chain about foot 1 changes no |ṗ_i| (digest §5, §9.8). Here ∂p/∂φ = R90 p, so M_φφ = Σ m_i |p_i|² and
every entry depends on θ only.

Eliminating φ through the y2 constraint (δφ = T δθ, App. C) gives the reduced inertia H = Tᵀ M T over
θ1..θ4, and the generalised gravity forces ∂V/∂q_o, V = g Σ m_i y_i, reduce to the joint torques
Tᵀ ∂V/∂q_o that exact gravity compensation (eq. 7, §5 "gravity compensation assumed exact") supplies.
The rung's reaction on foot 2 does no work under δq_o = T δθ and drops out of both.
"""

from __future__ import annotations

import numpy as np

from legsim.errors import check_number

from . import kinematics as kin
from .params import LibraParams

__all__ = ["GRAVITY", "MAX_GRAVITY", "TOP_CHAIN_MASSES", "mass_points", "inertia_matrix", "reduced_inertia",
           "potential_energy", "gravity_forces", "gravity_torques", "top_chain_mass"]

_DEFAULT = LibraParams()

GRAVITY = 9.81
"""g [m/s²]."""

MAX_GRAVITY = 1e3
"""The largest g [m/s²] the functions take (0 to 100 Earth gravities)."""

TOP_CHAIN_MASSES = (
    ("m_link", ("foot1", "knee1")), ("m_link", ("knee1", "hip1")),
    ("m_link", ("hip2", "knee2")), ("m_link", ("knee2", "foot2")),
    ("m_motor", ("knee1",)), ("m_motor", ("hip1",)), ("m_motor", ("hip2",)), ("m_motor", ("knee2",)),
    ("m_body", ("body",)), ("m_limb3", ("hip3",)),
)
"""The point masses of Fig. 26/C1: (LibraParams attribute, the points whose mean locates the mass)."""


def mass_points(phi: float, theta,
                params: LibraParams = _DEFAULT) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The top chain's point masses with positions and position Jacobians.

    Returns
    -------
    list of (m [kg], p (2,) [m], J (2, 5) [m/rad])
        J = ∂p/∂[φ, θ1..θ4]; a mid-link mass takes the mean of its two ends' positions and Jacobians.
    """
    kin._pose("mass_points", phi, theta, params)
    pts = kin.points(phi, theta, params)
    out = []
    for attr, where in TOP_CHAIN_MASSES:
        p = np.mean([pts[w] for w in where], axis=0)
        jac = np.mean([kin._point_jacobian(w, pts)[:, :5] for w in where], axis=0)
        out.append((float(getattr(params, attr)), p, jac))
    return out


def top_chain_mass(params: LibraParams = _DEFAULT) -> float:
    """Σ m_i of the top-chain model [kg] (4 m_link + 4 m_motor + m_body + m_limb3 ≈ 4.26 kg, §4.1)."""
    params = kin._check_params("top_chain_mass", params)
    return float(sum(getattr(params, attr) for attr, _ in TOP_CHAIN_MASSES))


def inertia_matrix(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """M = Σ m_i J_iᵀ J_i over q_o = [φ, θ1..θ4], shape (5, 5) [kg m²] (App. C, derived, not printed).

    Symmetric positive definite, independent of φ (see the module docstring).
    """
    kin._pose("inertia_matrix", phi, theta, params)
    return sum(m * jac.T @ jac for m, _, jac in mass_points(phi, theta, params))


def reduced_inertia(phi: float, theta, params: LibraParams = _DEFAULT) -> np.ndarray:
    """H = Tᵀ M T over θ1..θ4 with φ eliminated by foot 2's y2 contact, shape (4, 4) [kg m²] (App. C)."""
    kin._pose("reduced_inertia", phi, theta, params)
    t = kin.t_matrix(phi, theta, params)
    return t.T @ inertia_matrix(phi, theta, params) @ t


def potential_energy(phi: float, theta, params: LibraParams = _DEFAULT, g: float = GRAVITY) -> float:
    """V = g Σ m_i y_i of the top chain [J], foot 1 (y = 0) the datum; g [m/s²] in
    [0, :data:`MAX_GRAVITY`]."""
    g = check_number("potential_energy", "g", g, lo=0.0, hi=MAX_GRAVITY)
    kin._pose("potential_energy", phi, theta, params)
    return float(g * sum(m * p[1] for m, p, _ in mass_points(phi, theta, params)))


def gravity_forces(phi: float, theta, params: LibraParams = _DEFAULT, g: float = GRAVITY) -> np.ndarray:
    """Generalised gravity forces ∂V/∂q_o = g Σ m_i ∂y_i/∂q_o, shape (5,) [N m] (eq. 21's ∂V/∂q); g [m/s²]
    in [0, :data:`MAX_GRAVITY`]."""
    g = check_number("gravity_forces", "g", g, lo=0.0, hi=MAX_GRAVITY)
    kin._pose("gravity_forces", phi, theta, params)
    return g * sum(m * jac[1] for m, _, jac in mass_points(phi, theta, params))


def gravity_torques(phi: float, theta, params: LibraParams = _DEFAULT, g: float = GRAVITY) -> np.ndarray:
    """Joint torques τ1..τ4 that hold the top chain against gravity: Tᵀ ∂V/∂q_o, shape (4,) [N m].

    Exact gravity compensation G(q) of eq. 7 for the App. C model (foot 2's rung carries the rest of
    the weight; no wall force). Compare the lumped form of eq. 19, Jᵀ [0, M g, 0, 0]ᵀ. g [m/s²] in
    [0, :data:`MAX_GRAVITY`].
    """
    g = check_number("gravity_torques", "g", g, lo=0.0, hi=MAX_GRAVITY)
    kin._pose("gravity_torques", phi, theta, params)
    return kin.t_matrix(phi, theta, params).T @ gravity_forces(phi, theta, params, g)
