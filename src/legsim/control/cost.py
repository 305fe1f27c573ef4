"""What one control cycle costs: CJTC against the model-based alternatives it was proposed to replace
(CJTC digest §1 table, §8 "computationally cheap", acceptance 11: the source claims it without numbers).

Three laws over the same r control variables, s actuated joints and n generalised coordinates, each
given the kinematics they all share (u, J = ∂u/∂θ (r × s), u̇ = J θ̇):

* CJTC (eq. 12): F = K_p e + K_d ė, τ = Jᵀ F + G. No inertia model.
* Resolved rate (inverse Jacobian, Seraji's scheme in the §1 table): θ̇_cmd = J⁻¹(u̇_cmd + K e), then a
  joint velocity servo τ = K_v(θ̇_cmd − θ̇) + G. Needs J square and non-singular.
* Computed torque in task space (the "coordinated walking with actuator model" family): the inertia
  M(q) (s × s), Λ = (J M⁻¹ Jᵀ)⁻¹, τ = Jᵀ Λ (ü_cmd + K_d ė + K_p e) + h(q, q̇) (Coriolis + gravity).

Flop counts (one multiply or add = 1 flop; a diagonal gain = r multiplies; an LU factorisation of a k×k
matrix 2k³/3, each triangular pair of solves 2k²) exclude the shared kinematics and, for computed
torque, the cost of forming M and h (at least one CRBA and one RNEA, O(n²) and O(n)), so they are lower
bounds for the model-based laws.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, check_flag

__all__ = ["cjtc_flops", "resolved_rate_flops", "computed_torque_flops", "cjtc_law", "resolved_rate_law",
           "computed_torque_law"]


def _sizes(r: int, s: int) -> None:
    if not (isinstance(r, (int, np.integer)) and isinstance(s, (int, np.integer)) and 0 < r <= s):
        raise InputError(f"flop count: r = {r!r}, s = {s!r}; expected integers with 0 < r <= s")


def cjtc_flops(r: int, s: int, full_gains: bool = False, gravity: str = "lumped") -> int:
    """F = K_p e + K_d ė (errors 2r; gains 2r + r adds, or 2(2r² − r) + r full), Jᵀ F (r s multiplies,
    (r − 1) s adds), + G (s adds; "lumped" G = M g J_row: s multiplies more)."""
    _sizes(r, s)
    if not (isinstance(gravity, str) and gravity in ("lumped", "full")):
        raise InputError(f"cjtc_flops: gravity = {gravity!r}, expected 'lumped' or 'full'")
    gains = 2 * (2 * r * r - r) + r if check_flag("cjtc_flops", "full_gains", full_gains) else 3 * r
    return 2 * r + gains + (2 * r - 1) * s + s + (s if gravity == "lumped" else 0)


def resolved_rate_flops(r: int, s: int) -> int:
    """θ̇_cmd = J⁻¹(u̇_cmd + K e): error r, gain and add 2r, LU of J 2s³/3, solves 2s²; the joint
    servo: s subtractions, s multiplies, s adds of G."""
    _sizes(r, s)
    if r != s:
        raise InputError(f"resolved_rate_flops: J is {r}x{s}; the inverse-Jacobian law needs r = s")
    return 3 * r + (2 * s ** 3) // 3 + 2 * s * s + 3 * s


def computed_torque_flops(r: int, s: int) -> int:
    """With M and h given: LU of M (2s³/3) and r solves for M⁻¹Jᵀ (2 s² r), J (M⁻¹Jᵀ) (r² (2s − 1)),
    LU of that r × r (2r³/3) and one solve (2r²), the PD + feed-forward (5r), Jᵀ(·) ((2r − 1) s), + h (s)."""
    _sizes(r, s)
    return ((2 * s ** 3) // 3 + 2 * s * s * r + r * r * (2 * s - 1) + (2 * r ** 3) // 3 + 2 * r * r + 5 * r
            + (2 * r - 1) * s + s)


def cjtc_law(J, kp, kd, e, e_dot, G):
    """τ (s,) of eq. 12 with diagonal gains kp, kd (r,)."""
    return J.T @ (kp * e + kd * e_dot) + G


def resolved_rate_law(J, k, e, u_dot_cmd, theta_dot, kv, G):
    """τ (s,): θ̇_cmd = J⁻¹(u̇_cmd + k e), τ = k_v (θ̇_cmd − θ̇) + G."""
    return kv * (np.linalg.solve(J, u_dot_cmd + k * e) - theta_dot) + G


def computed_torque_law(J, M, h, kp, kd, e, e_dot, u_ddot_cmd):
    """τ (s,) = Jᵀ Λ (ü_cmd + K_d ė + K_p e) + h with Λ = (J M⁻¹ Jᵀ)⁻¹ (J̇ θ̇ neglected)."""
    MiJt = np.linalg.solve(M, J.T)
    return J.T @ np.linalg.solve(J @ MiJt, u_ddot_cmd + kd * e_dot + kp * e) + h
