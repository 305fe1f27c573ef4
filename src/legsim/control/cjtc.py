"""Coordinated Jacobian Transpose Control (CJTC digest §2, eqs. 3–12; §3.5 eqs. 15–16).

    τ = Jᵀ(q) [K_p (u_cmd − u) + K_d (u̇_cmd − u̇)] + G(q)        (12)

u (r,) is a stack of control variables (:mod:`legsim.control.variables`), J = ∂u/∂θ (r × s) the
extended Jacobian over the s active joints θ (eq. 11), G the gravity compensation. Classical JTC
(eq. 8) is the special case u = an end-effector's coordinates.

Passive or unmeasured coordinates (LIBRA's φ, a walker's base pose) are eliminated through the
environment's contact constraints c(q) = c_ref: with q = [θ; p] split into active θ and passive p,
δc = C_θ δθ + C_p δp = 0 gives δp = −C_p⁻¹ C_θ δθ, so δq = T δθ with T = [I; −C_p⁻¹ C_θ] (the
T-matrix method of App. A/C, dφ/dθ_i = −a_i/b_1 for LIBRA) and J = U T where U = ∂u/∂q. The passive
coordinates themselves are found by Newton's method on c from the previous solution (branch
continuity).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, as_float, as_floats, check_number, check_values, check_whole, shown
from .variables import ControlVariable, Kinematics

__all__ = ["ConstrainedChain", "CJTC", "CJTCState", "compliant_equilibrium", "environment_is_rigid",
           "solve_configuration",
           "RIGID_DEFLECTION_FRACTION", "SOLVE_LIMIT", "MAX_NEWTON_STEPS"]

RIGID_DEFLECTION_FRACTION = 0.10
"""An environment whose deflection under the expected loads stays below 10 % of the limb span is
treated as rigid (§3.5); otherwise as a spring (which counts as no constraint)."""

SOLVE_LIMIT = 1e9
"""Largest magnitude of a target and of a start coordinate :func:`solve_configuration` takes (SI: m, rad,
J): Newton's residuals and steps stay far from overflow (as :func:`compliant_equilibrium`'s commands)."""
MAX_NEWTON_STEPS = 10_000
"""The most Newton steps :func:`solve_configuration` takes (it converges in a few or not at all)."""


def _gains(name: str, k, r: int) -> np.ndarray:
    K = as_floats(k)  # strings, None, ragged lists: an empty array, refused below with the shape given
    if K.ndim == 1:
        K = np.diag(K)
    if K.shape != (r, r) or not np.all(np.isfinite(K)):
        raise InputError(f"CJTC: {name} has shape {np.shape(k)}, expected ({r},) diagonal gains or a full "
                         f"({r}, {r}) matrix of finite numbers")
    return K


def _active_dofs(owner: str, model, active) -> np.ndarray:
    """The velocity indices (s,) of the joints named in ``active``; an InputError from ``owner`` naming
    what is not a joint of ``model``."""
    if not isinstance(active, (list, tuple, np.ndarray)):
        raise InputError(f"{owner}: active = {active!r}, expected a list of joint names")
    names, jnt = list(model.joint_names), list(model.jnt_names)
    dofs = []
    for j in active:
        if not isinstance(j, str) or j not in names:
            raise InputError(f"{owner}: active joint {j!r} not in model {model.name!r}; joints: "
                             f"{', '.join(names)}")
        dofs.append(int(model.arrays.jnt_dofadr[jnt.index(j)]))
    if len(set(dofs)) != len(dofs):
        raise InputError(f"{owner}: active = {list(active)!r} names a joint twice")
    return np.array(dofs, dtype=np.int64)


def _control_variables(owner: str, field: str, variables, kin: Kinematics | None = None) -> tuple:
    """``variables`` as a tuple of control variables sharing one Kinematics (``kin`` when given)."""
    if not isinstance(variables, (list, tuple)):
        raise InputError(f"{owner}: {field} = {shown(variables)}, expected a list of control variables")
    for v in variables:
        if not isinstance(v, ControlVariable):
            raise InputError(f"{owner}: {field} holds {shown(v)}, expected control variables of "
                             "legsim.control (PointCoordinate, JointAngle, CentreOfMass, ...)")
    kin = kin if kin is not None or not variables else variables[0].kin
    if any(v.kin is not kin for v in variables):
        raise InputError(f"{owner}: all {field} must share one Kinematics")
    return tuple(variables)


class ConstrainedChain:
    """The active joints of a robot and the contact constraints that fix its passive coordinates.

    Parameters
    ----------
    kin : Kinematics of a model without a free joint (q and v coincide; a planar base is two
        prismatic joints and a revolute one).
    active : names of the s actuated joints (θ, in this order).
    constraints : control variables held by the environment (a pinned foot's x and y, a foot's height
        on a rung), as many as there are passive coordinates.
    targets : their values c_ref (default: their values at the first :meth:`solve`).
    """

    def __init__(self, kin: Kinematics, active: Sequence[str], constraints: Sequence[ControlVariable],
                 targets: Sequence[float] | None = None):
        if not isinstance(kin, Kinematics):
            raise InputError(f"ConstrainedChain: kin = {type(kin).__name__}, expected a "
                             "legsim.control.Kinematics")
        m = kin.model
        if m.nq != m.nv:
            raise InputError(f"ConstrainedChain: model {m.name!r} has a free joint (nq = {m.nq} != nv = "
                             f"{m.nv}); model a planar base as prismatic x, y and a revolute joint")
        self.kin = kin
        self.active = _active_dofs("ConstrainedChain", m, active)
        self.passive = np.array([i for i in range(m.nv) if i not in self.active], dtype=np.int64)
        self.constraints = _control_variables("ConstrainedChain", "constraints", constraints, kin)
        if len(self.constraints) != self.passive.size:
            raise InputError(f"ConstrainedChain: constraints has {len(self.constraints)} variable(s) for "
                             f"the {self.passive.size} coordinate(s) of {m.name!r} that active = "
                             f"{list(active)!r} leaves passive; they must match (fewer leaves the robot "
                             "floating, more over-constrains it)")
        self.targets = None
        if targets is not None:
            values = as_floats(targets)
            if values.shape != (len(self.constraints),) or not np.all(np.isfinite(values)):
                raise InputError(f"ConstrainedChain: targets = {targets!r}, expected None or "
                                 f"{len(self.constraints)} finite values (one per constraint)")
            self.targets = values.copy()
        self.q = np.asarray(m.neutral(), dtype=float).copy()

    def residual(self, q) -> np.ndarray:
        kin = self.kin.at(q)
        return np.array([c._value(kin, None) for c in self.constraints]) - self.targets

    def constraint_jacobian(self, q) -> np.ndarray:
        """C = ∂c/∂q (k, nv)."""
        kin = self.kin.at(q)
        return np.array([c._gradient(kin, None) for c in self.constraints])

    def solve(self, theta, q_guess=None, tol: float = 1e-12, max_iter: int = 30) -> np.ndarray:
        """Full configuration q (nv,) with the active joints at ``theta`` (s,) and the passive coordinates
        solving c(q) = c_ref by Newton's method from ``q_guess`` (default: the last solution, which
        keeps the branch continuous). Raises InputError when the constraints cannot be met."""
        q = (self.q if q_guess is None else np.asarray(q_guess, dtype=float)).copy()
        q[self.active] = theta
        if self.targets is None:  # hold the constraints where the first configuration has them
            kin = self.kin.at(q)
            self.targets = np.array([c._value(kin, None) for c in self.constraints])
        for _ in range(max_iter):
            r = self.residual(q)
            if np.max(np.abs(r)) < tol:
                break
            Cp = self.constraint_jacobian(q)[:, self.passive]
            q[self.passive] -= np.linalg.solve(Cp, r)
        else:
            raise InputError(f"ConstrainedChain: the contact constraints cannot be met at θ = "
                             f"{np.round(theta, 4).tolist()} (residual {np.max(np.abs(r)):.2e} after "
                             f"{max_iter} Newton steps: a limb cannot reach its support)")
        self.q = q
        return q.copy()

    def t_matrix(self, q) -> np.ndarray:
        """T (nv, s): δq = T δθ with the constraints held (T = [I; −C_p⁻¹ C_θ] in (active, passive)
        order, scattered to the model's dof order)."""
        C = self.constraint_jacobian(q)
        T = np.zeros((self.kin.model.nv, self.active.size))
        T[self.active, np.arange(self.active.size)] = 1.0
        T[self.passive] = -np.linalg.solve(C[:, self.passive], C[:, self.active])
        return T


@dataclass
class CJTCState:
    """What one CJTC cycle computed: control vector u (r,), its rate u̇ = J θ̇ (r,), the extended
    Jacobian J (r, s), the virtual force F (r,) of eq. 10 and the efforts τ (s,) before and after
    saturation."""

    u: np.ndarray
    u_dot: np.ndarray
    J: np.ndarray
    F: np.ndarray
    tau_raw: np.ndarray
    tau: np.ndarray


class CJTC:
    """The CJTC law (eq. 12) over a control vector, with optional constraint elimination.

    Parameters
    ----------
    variables : the r control variables u.
    kp, kd : (r,) diagonal gains or (r, r) full matrices [N/m, N m/rad; N s/m, N m s/rad].
    chain : :class:`ConstrainedChain` giving the active joints and eliminating passive coordinates
        (J = U T). Without one, ``active`` names the s joints and the others are held where they are.
    active : joint names (only without ``chain``).
    gravity : ``"full"`` — G = Tᵀ g(q), the exact generalised gravity of every body carried by the
        constraints; ``"lumped"`` — G = Jᵀ (−M g) applied at the variable ``lumped_index`` (eq. 19:
        LIBRA's point mass M at the body, G = Jᵀ[0, M g, 0, …]); ``None`` — no compensation.
    lumped_mass : M [kg] for ``"lumped"``; lumped_index : the row of u whose direction carries M g.
    tau_max : (s,) or scalar effort limits [N m or N] (saturation), default none.
    """

    def __init__(self, variables: Sequence[ControlVariable], kp, kd, *, chain: ConstrainedChain | None = None,
                 active: Sequence[str] | None = None, gravity: str | None = "full", lumped_mass: float = 0.0,
                 lumped_index: int = 1, tau_max=None):
        self.variables = _control_variables("CJTC", "variables", variables)
        r = len(self.variables)
        if r == 0:
            raise InputError("CJTC: no control variables (variables = [])")
        kin = self.variables[0].kin
        if chain is None:
            if active is None:
                raise InputError("CJTC: give the active joints (active=[...]) or a ConstrainedChain")
            self.active = _active_dofs("CJTC", kin.model, active)
        else:
            if not isinstance(chain, ConstrainedChain):
                raise InputError(f"CJTC: chain = {chain!r}, expected None or a ConstrainedChain")
            if chain.kin is not kin:
                raise InputError("CJTC: the chain and the control variables must share one Kinematics")
            self.active = chain.active
        self.chain = chain
        self.kin = kin
        s = self.active.size
        if r > s:
            raise InputError(f"CJTC: {r} control variables for {s} active joints; r <= s (eq. 11)")
        self.kp = _gains("kp", kp, r)
        self.kd = _gains("kd", kd, r)
        if not (gravity is None or (isinstance(gravity, str) and gravity in ("full", "lumped"))):
            raise InputError(f"CJTC: gravity = {gravity!r}, expected 'full', 'lumped' or None")
        self.gravity = gravity
        self.lumped_mass = as_float(lumped_mass)
        if not (math.isfinite(self.lumped_mass) and self.lumped_mass >= 0.0):
            raise InputError(f"CJTC: lumped_mass = {lumped_mass!r}, expected a mass >= 0 [kg]")
        if isinstance(lumped_index, bool) or not isinstance(lumped_index, (int, np.integer)) \
                or (gravity == "lumped" and not 0 <= lumped_index < r):
            raise InputError(f"CJTC: lumped_index = {lumped_index!r}, expected a row of u (0..{r - 1})")
        self.lumped_index = int(lumped_index)
        self.tau_max = None
        if tau_max is not None:
            limits = as_floats(tau_max)
            if isinstance(tau_max, bool) or limits.ndim > 1 or limits.size not in (1, s) \
                    or not np.all(limits > 0.0):
                raise InputError(f"CJTC: tau_max = {tau_max!r}, expected None, one effort limit > 0 or {s} "
                                 "(one per active joint) [N m or N]")
            self.tau_max = np.broadcast_to(limits, (s,)).copy()

    # ---------------------------------------------------------------- kinematics of the control vector
    def t_matrix(self, q) -> np.ndarray:
        if self.chain is not None:
            return self.chain.t_matrix(q)
        T = np.zeros((self.kin.model.nv, self.active.size))
        T[self.active, np.arange(self.active.size)] = 1.0
        return T

    def measure(self, q, extra=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(u (r,), J (r, s), T (nv, s)) at the full configuration q."""
        kin = self.kin.at(q)
        u = np.array([v._value(kin, extra) for v in self.variables])
        U = np.array([v._gradient(kin, extra) for v in self.variables])
        T = self.t_matrix(q)
        return u, U @ T, T

    def gravity_compensation(self, q, J, T) -> np.ndarray:
        """G (s,) [N m]: ``"full"`` Tᵀ ∂V/∂q; ``"lumped"`` Jᵀ e_i M |g| (eq. 19); zeros without."""
        if self.gravity == "full":
            return T.T @ self.kin.at(q).gravity_torques()
        if self.gravity == "lumped":
            return J[self.lumped_index] * (self.lumped_mass * float(np.linalg.norm(self.kin.gravity_vector)))
        return np.zeros(self.active.size)

    # ---------------------------------------------------------------- the law
    def step(self, q, theta_dot, u_cmd, u_dot_cmd=None, extra=None) -> CJTCState:
        """One control cycle: u, u̇ = J θ̇, F = K_p(u_cmd − u) + K_d(u̇_cmd − u̇) (eq. 10),
        τ = Jᵀ F + G (eq. 12), saturated at ``tau_max``. ``q`` is the full configuration (nv,)
        (from :meth:`ConstrainedChain.solve` of the measured joints), ``theta_dot`` (s,) the active
        joint rates."""
        u, J, T = self.measure(q, extra)
        u_dot = J @ np.asarray(theta_dot, dtype=float)
        e_dot = -u_dot if u_dot_cmd is None else np.asarray(u_dot_cmd, dtype=float) - u_dot
        F = self.kp @ (np.asarray(u_cmd, dtype=float) - u) + self.kd @ e_dot
        tau_raw = J.T @ F + self.gravity_compensation(q, J, T)
        tau = tau_raw if self.tau_max is None else np.clip(tau_raw, -self.tau_max, self.tau_max)
        return CJTCState(u, u_dot, J, F, tau_raw, tau)

    def bumpless_command(self, q, theta_dot, tau, extra=None) -> np.ndarray:
        """The command u_cmd (r,) (with u̇_cmd = 0) at which this controller produces the efforts ``tau``
        (s,) at (q, θ̇): used when switching control vectors between gait stages so that the torques
        do not jump (§2.2 "switching"): Jᵀ[K_p(u_cmd − u) − K_d u̇] + G = τ, solved in the least-squares
        sense when r < s."""
        u, J, T = self.measure(q, extra)
        u_dot = J @ np.asarray(theta_dot, dtype=float)
        F = np.linalg.lstsq(J.T, np.asarray(tau, float) - self.gravity_compensation(q, J, T), rcond=None)[0]
        return u + np.linalg.solve(self.kp, F + self.kd @ u_dot)


def compliant_equilibrium(kp, ke, x_cmd, x_e):
    """Rest position and force of a virtual spring K_p pulling toward ``x_cmd`` against an environment of
    stiffness K_e undeformed at ``x_e`` (§3.5, ref. 37):

        x = (K_p + K_e)⁻¹ (K_p x_cmd + K_e x_e)            (15)
        F = K_p (K_p + K_e)⁻¹ K_e (x_cmd − x_e)            (16)

    Scalars or matrices/vectors. Returns (x, F): F is the force the robot presses on the environment
    [N] (K_p = 100 N/m, K_e = 5837 N/m, 0.1 m offset: 9.83 N at 1.68 mm penetration)."""
    o = "compliant_equilibrium"
    Kp, Ke = (np.atleast_2d(check_values(o, name, k, lo=0.0, hi=1e12))
              for name, k in (("kp", kp), ("ke", ke)))
    if Kp.shape[0] == 1 and Kp.shape[1] > 1:
        Kp = np.diag(Kp[0])
    if Ke.shape[0] == 1 and Ke.shape[1] > 1:
        Ke = np.diag(Ke[0])
    xc, xe = (np.atleast_1d(check_values(o, name, v, lo=-1e9, hi=1e9)) for name, v in (("x_cmd", x_cmd),
                                                                                        ("x_e", x_e)))
    n = len(xc)
    for name, m in (("kp", Kp), ("ke", Ke)):
        if m.ndim != 2 or m.shape != (n, n) and m.shape != (1, 1):
            raise InputError(f"{o}: '{name}' has shape {m.shape}: expected a stiffness, {n} of them or an "
                             f"({n}, {n}) matrix for x_cmd of {n}")
    if xe.shape != xc.shape:
        raise InputError(f"{o}: 'x_e' has shape {xe.shape}: expected that of x_cmd, {xc.shape}")
    Kp, Ke = (m * np.eye(n) if m.shape == (1, 1) else m for m in (Kp, Ke))
    A = Kp + Ke
    if not abs(np.linalg.det(A)) > 0.0:
        raise InputError(f"{o}: kp + ke is singular: no equilibrium")
    x = np.linalg.solve(A, Kp @ xc + Ke @ xe)
    F = Kp @ np.linalg.solve(A, Ke @ (xc - xe))
    if np.ndim(x_cmd) == 0:
        return float(x[0]), float(F[0])
    return x, F


def environment_is_rigid(deflection: float, span: float) -> bool:
    """§3.5: treat the environment as rigid when its deflection under the expected loads is below 10 %
    of the limb span (both in metres); otherwise model it as a spring."""
    span = check_number("environment_is_rigid", "span", span, lo=0.0, lo_open=True)  # [m]
    deflection = check_number("environment_is_rigid", "deflection", deflection)  # [m]
    return abs(deflection) < RIGID_DEFLECTION_FRACTION * span


def solve_configuration(variables: Sequence[ControlVariable], targets, q0, tol: float = 1e-12,
                        max_iter: int = 50) -> np.ndarray:
    """Configuration q (nv,) at which ``variables`` take the values ``targets`` (inverse kinematics of a
    control vector plus constraints, as many as coordinates), by Newton's method from ``q0`` (which
    selects the elbow branches). Raises InputError when it does not converge (out of reach).

    ``variables``: nv control variables of one :class:`Kinematics` of a model without a free joint;
    ``targets`` (nv,) and ``q0`` (nv,) within ±:data:`SOLVE_LIMIT` [m, rad]; ``tol`` > 0 the largest
    residual accepted; ``max_iter`` 1 .. :data:`MAX_NEWTON_STEPS` steps."""
    o = "solve_configuration"
    vs = _control_variables(o, "variables", variables)
    model = vs[0].kin.model if vs else None
    if model is None or len(vs) != model.nv or model.nq != model.nv:
        raise InputError(f"{o}: 'variables' holds {len(vs)} control variable(s), expected one per "
                         f"coordinate of a model without a free joint"
                         f"{f' (model {model.name!r}: nq = {model.nq}, nv = {model.nv})' if model else ''}")
    kin = vs[0].kin
    target = check_values(o, "targets", targets, lo=-SOLVE_LIMIT, hi=SOLVE_LIMIT)
    if target.shape != (len(vs),):
        raise InputError(f"{o}: 'targets' = {shown(targets)}, expected {len(vs)} values (one per variable)")
    q = check_values(o, "q0", q0, lo=-SOLVE_LIMIT, hi=SOLVE_LIMIT, unit="m, rad").copy()
    if q.shape != (model.nv,):
        raise InputError(f"{o}: 'q0' = {shown(q0)}, expected the {model.nv} coordinates of model "
                         f"{model.name!r}")
    tol = check_number(o, "tol", tol, lo=0.0, lo_open=True)
    max_iter = check_whole(o, "max_iter", max_iter, lo=1, hi=MAX_NEWTON_STEPS)
    for _ in range(max_iter):
        k = kin.at(q)
        r = np.array([v._value(k, None) for v in vs]) - target
        if np.max(np.abs(r)) < tol:
            return q
        G = np.array([v._gradient(k, None) for v in vs])
        step = np.linalg.lstsq(G, r, rcond=None)[0]
        q -= step * min(1.0, 0.3 / max(1e-12, float(np.max(np.abs(step)))))
    want = dict(zip([v.name for v in vs], target.tolist(), strict=True))
    raise InputError(f"{o}: no configuration reaches the 'targets' {want} from the start 'q0' "
                     f"(residual {np.max(np.abs(r)):.2e} after {max_iter} steps): out of reach or a singular "
                     f"pose")
