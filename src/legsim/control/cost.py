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

from ..errors import InputError, check_flag, check_values

__all__ = ["cjtc_flops", "resolved_rate_flops", "computed_torque_flops", "cjtc_law", "resolved_rate_law",
           "computed_torque_law", "LAW_VALUE_LIMIT", "LAW_GAIN_LIMIT"]

LAW_VALUE_LIMIT = 1e9
"""Largest magnitude of an entry the three laws take (SI): of J [m/rad, rad/rad], M [kg m², kg], an error,
rate, commanded rate or acceleration [m, rad, per s, per s²] and a torque G, h [N m, N]."""
LAW_GAIN_LIMIT = 1e12
"""Largest gain the laws take [N/m, N s/m, 1/s, N m s/rad] (as :func:`.cjtc.compliant_equilibrium`'s
stiffness)."""


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


def _law_args(owner: str, J, square: bool = False, **args) -> list[np.ndarray]:
    """``J`` as an (r, s) float array (r = s with ``square``), then each of ``args``, ``name=(value, size)``,
    as a float array of shape ``size`` ("r", "s" or "ss": (r,), (s,) or (s, s)); a name starting with "k"
    is a gain, > 0 (a damping "kd" >= 0), up to :data:`LAW_GAIN_LIMIT`, and may be one number; every
    other entry within ±:data:`LAW_VALUE_LIMIT`. Else an :class:`InputError` from ``owner`` naming the
    argument (and 'J', which sets r and s)."""
    J = check_values(owner, "J", J, lo=-LAW_VALUE_LIMIT, hi=LAW_VALUE_LIMIT)
    if J.ndim != 2 or square and J.shape[0] != J.shape[1]:
        raise InputError(f"{owner}: 'J' has shape {J.shape}, expected a matrix (r, s)"
                         + (" with r = s (square)" if square else ""))
    r, s = J.shape
    out = [J]
    for name, (value, size) in args.items():
        gain = name.startswith("k")
        a = (check_values(owner, name, value, lo=0.0, hi=LAW_GAIN_LIMIT, lo_open=name != "kd") if gain
             else check_values(owner, name, value, lo=-LAW_VALUE_LIMIT, hi=LAW_VALUE_LIMIT))
        shape = tuple(r if c == "r" else s for c in size)
        if a.shape != shape and not (gain and a.ndim == 0):
            sizes = ", ".join(f"{c} = {r if c == 'r' else s}" for c in sorted(set(size)))
            raise InputError(f"{owner}: '{name}' has shape {a.shape}, expected {shape}"
                             f"{' or one number' if gain else ''} ({sizes} from 'J' {J.shape})")
        out.append(a)
    return out


def _solved(owner: str, what: str, law, *args) -> np.ndarray:
    """``law(*args)``, a torque (s,) that inverts ``what`` (named in the message): refused when that
    matrix is singular, or so near it that the torque overflows."""
    with np.errstate(all="ignore"):
        try:
            tau = law(*args)
        except np.linalg.LinAlgError:
            tau = None
    if tau is None or not np.all(np.isfinite(tau)):
        raise InputError(f"{owner}: {what} is singular (or so near it that the torque overflows): the law "
                         "has no torque here")
    return tau


def cjtc_law(J, kp, kd, e, e_dot, G):
    """τ (s,) of eq. 12: J (r, s); diagonal gains kp > 0, kd >= 0 (r,) or one number; errors e, ė (r,); G
    (s,). Entries within ±:data:`LAW_VALUE_LIMIT`, gains up to :data:`LAW_GAIN_LIMIT` (SI)."""
    return _cjtc_tau(*_law_args("cjtc_law", J, kp=(kp, "r"), kd=(kd, "r"), e=(e, "r"), e_dot=(e_dot, "r"),
                                G=(G, "s")))


def resolved_rate_law(J, k, e, u_dot_cmd, theta_dot, kv, G):
    """τ (s,): θ̇_cmd = J⁻¹(u̇_cmd + k e), τ = k_v (θ̇_cmd − θ̇) + G. J (s, s) invertible; gains k (s,), k_v
    (s,) > 0 or one number each; e, u̇_cmd, θ̇, G (s,). Ranges as :func:`cjtc_law`."""
    o = "resolved_rate_law"
    args = _law_args(o, J, square=True, k=(k, "r"), e=(e, "r"), u_dot_cmd=(u_dot_cmd, "r"),
                     theta_dot=(theta_dot, "s"), kv=(kv, "s"), G=(G, "s"))
    return _solved(o, "'J'", _resolved_rate_tau, *args)


def computed_torque_law(J, M, h, kp, kd, e, e_dot, u_ddot_cmd):
    """τ (s,) = Jᵀ Λ (ü_cmd + K_d ė + K_p e) + h with Λ = (J M⁻¹ Jᵀ)⁻¹ (J̇ θ̇ neglected). J (r, s) of rank r;
    M (s, s) invertible (an inertia: symmetric positive definite); h (s,); gains kp > 0, kd >= 0 (r,) or
    one number; e, ė, ü_cmd (r,). Ranges as :func:`cjtc_law`."""
    o = "computed_torque_law"
    args = _law_args(o, J, M=(M, "ss"), h=(h, "s"), kp=(kp, "r"), kd=(kd, "r"), e=(e, "r"),
                     e_dot=(e_dot, "r"), u_ddot_cmd=(u_ddot_cmd, "r"))
    return _solved(o, "'M' or J M⁻¹ Jᵀ (of 'J' and 'M')", _computed_torque_tau, *args)


# The laws' arithmetic, as the flop counts above count it (benchmarks/bench_libra.py times these: the
# public laws check their arguments first).
def _cjtc_tau(J, kp, kd, e, e_dot, G):
    return J.T @ (kp * e + kd * e_dot) + G


def _resolved_rate_tau(J, k, e, u_dot_cmd, theta_dot, kv, G):
    return kv * (np.linalg.solve(J, u_dot_cmd + k * e) - theta_dot) + G


def _computed_torque_tau(J, M, h, kp, kd, e, e_dot, u_ddot_cmd):
    MiJt = np.linalg.solve(M, J.T)
    return J.T @ np.linalg.solve(J @ MiJt, u_ddot_cmd + kd * e_dot + kp * e) + h
