"""Force distribution over the supporting feet (Konyev 2011 §3.4.6; contact digest §4.2, A10).

The vertical problem (3.8): the stance feet's vertical forces F_i carry the weight P and put its
moment through the centre of mass,

    Σ F_i = P,   Σ F_i x_i = P X_COM,   Σ F_i z_i = P Z_COM          (3.8)

with (x_i, z_i) the feet's horizontal coordinates (the thesis's WorldCS has Y along gravity). For
more than three feet it is indeterminate; the thesis takes the energy-optimal solution

    Σ F_i² → min                                                        (3.9)

whose closed form is F = Aᵀ (A Aᵀ)⁻¹ b, A = [1 … 1; x; z], b = P [1, X, Z] (:func:`vertical_forces`).
It may ask a foot to pull (F_i < 0) when the CoM nears the support polygon's edge: the thesis does
not discuss positivity. :func:`support_forces` (:class:`SupportQP`) solves the full 3-D problem
(force and moment balance about the CoM) as a quadratic programme with unilateral feet and a
friction pyramid, through qpsolvers (DAQP); where the closed form is positive and the feet are
level, the two agree.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, as_float, as_floats, check_number, check_whole
from .balance import MAX_COORDINATE

__all__ = ["vertical_forces", "support_forces", "SupportQP", "QP_SOLVER"]

QP_SOLVER = "daqp"
"""qpsolvers backend of :class:`SupportQP` (DAQP, dense active-set: the faster of the two measured)."""


def _feet(feet, cols: int, who: str) -> np.ndarray:
    f = as_floats(feet)
    if (f.ndim != 2 or f.shape[1] != cols or not 1 <= f.shape[0] <= MAX_FEET
            or not np.all(np.abs(f) <= MAX_COORDINATE)):
        raise InputError(f"{who}: 'feet' = {feet!r}, expected (n, {cols}) coordinates within "
                         f"±{MAX_COORDINATE:g} m, 1 <= n <= {MAX_FEET}")
    return f


def vertical_forces(feet, weight: float, com=(0.0, 0.0)) -> np.ndarray:
    """Energy-optimal vertical foot forces (3.8)/(3.9) [N], (n,).

    ``feet`` (n, 2): each stance foot's horizontal coordinates (x, z) [m]; ``weight`` P [N];
    ``com`` (X, Z) [m] the centre of mass's horizontal position. With three feet not on a line the
    answer is the unique statically determinate one; with fewer than three feet, or all on a line,
    (3.8) has a solution only if the CoM lies on that line (least squares otherwise).
    """
    f = _feet(feet, 2, "vertical_forces")
    c = as_floats(com).ravel()
    if c.shape != (2,) or not np.all(np.abs(c) <= MAX_COORDINATE):
        raise InputError(f"vertical_forces: 'com' = {com!r}, expected (X, Z) within ±{MAX_COORDINATE:g} m")
    A = np.vstack([np.ones(len(f)), f[:, 0], f[:, 1]])
    weight = check_number("vertical_forces", "weight", weight, lo=-1e9, hi=1e9)  # [N]
    b = weight * np.array([1.0, c[0], c[1]])
    return np.linalg.pinv(A) @ b  # = Aᵀ (A Aᵀ)⁻¹ b when A has full row rank


MAX_MASS = 1e6
"""The heaviest body [kg] :class:`SupportQP` holds (beyond, the QP's numbers lose the friction cone)."""

MAX_FEET = 1000
"""The most feet :class:`SupportQP` takes: its dense constraint matrices hold (3 n)^2 numbers (72 MB at
1000 feet), and no walker has more."""


class SupportQP:
    """The minimum-norm support forces of ``n_feet`` feet as a quadratic programme with its constant
    parts built once (:func:`support_forces` states the problem); per call only the moment rows (the
    feet's lever arms) and the weight change. The default backend (:data:`QP_SOLVER`, DAQP) is called
    directly with the constraints stacked once (equalities first, flagged as such); any other
    ``solver`` goes through qpsolvers. Measured for six feet (benchmarks/bench_walking.py, quiet
    2-core machine): DAQP directly 6 µs per call, DAQP through qpsolvers 20 µs (its problem checks
    and conversions per call), quadprog through qpsolvers 24 µs; building the matrices anew in Python
    each call cost 70–270 µs, which is why they are kept.
    """

    def __init__(self, n_feet: int, mu: float, gravity=(0.0, 0.0, -9.81), f_min: float = 0.0,
                 solver: str | None = None):
        n_feet = check_whole("SupportQP", "n_feet", n_feet, 1, MAX_FEET)  # dense (3 n_feet)^2 matrices
        if not 0.0 < as_float(mu) < math.inf:
            raise InputError(f"SupportQP: mu = {mu!r}, expected a finite number > 0")
        g = as_floats(gravity).ravel()
        if g.shape != (3,) or not np.all(np.abs(g) <= 1e6) or not np.linalg.norm(g) > 0.0:
            raise InputError(f"SupportQP: 'gravity' = {gravity!r}, expected a non-zero 3-vector, each "
                             f"component within ±1e6 m/s^2")
        f_min = check_number("SupportQP", "f_min", f_min, lo=0.0)  # [N]
        n = n_feet
        self.n, self.g, self.solver, self.f_min = n, g, solver or QP_SOLVER, f_min
        up = -g / np.linalg.norm(g)
        t1 = np.cross(up, [1.0, 0.0, 0.0] if abs(up[0]) < 0.9 else [0.0, 1.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(up, t1)
        k = mu / math.sqrt(2.0)
        # min ½ xᵀ P x subject to A x = b (force and moment balance), G x <= h (pushing, pyramid):
        # stacked as rows [A; G] with bounds [b; -inf] <= . <= [b; h] (the equalities flagged)
        cone = np.array([-up] + [s * t - k * up for t in (t1, t2) for s in (1.0, -1.0)])  # (5, 3)
        self.P, self.q = np.eye(3 * n), np.zeros(3 * n)
        self._rows = np.zeros((6 + 5 * n, 3 * n))
        self._upper = np.zeros(6 + 5 * n)
        self._lower = np.full(6 + 5 * n, -1e30)
        self._sense = np.zeros(6 + 5 * n, dtype=np.int32)
        self._sense[:6] = 5  # DAQP: an equality constraint
        self.A, self.G = self._rows[:6], self._rows[6:]  # views
        self.b, self.h = self._upper[:6], self._upper[6:]
        for i in range(n):
            self.A[0:3, 3 * i:3 * i + 3] = np.eye(3)
            self.G[5 * i:5 * i + 5, 3 * i:3 * i + 3] = cone
            self.h[5 * i] = -f_min
        # the moment rows Σ skew(r_i) f_i = 0, skew(r) = [[0, -rz, ry], [rz, 0, -rx], [-ry, rx, 0]]: their
        # 6 n non-zero entries of the flat constraint rows, which r.ravel() entries, and the signs
        row, col, src, sign = [], [], [], []
        for i in range(n):
            for a, b, c, sg in ((0, 1, 2, -1.0), (0, 2, 1, 1.0), (1, 0, 2, 1.0), (1, 2, 0, -1.0),
                                (2, 0, 1, -1.0), (2, 1, 0, 1.0)):
                row.append(3 + a)
                col.append(3 * i + b)
                src.append(3 * i + c)
                sign.append(sg)
        self._flat = self._rows.reshape(-1)  # a view
        self._at = np.array(row) * (3 * n) + np.array(col)
        self._src, self._sign = np.array(src), np.array(sign)

    def solve(self, feet, mass: float, com) -> np.ndarray:
        """Forces (n, 3) [N] for the feet (n, 3) [m], the body's ``mass`` [kg] and CoM (3,) [m]."""
        try:  # checks cheap enough for a controller's tick (this is called at 1 kHz)
            f, c, m = np.asarray(feet, dtype=float), np.asarray(com, dtype=float), float(mass)
        except (TypeError, ValueError):
            f = c = np.full(0, np.nan)
            m = math.nan
        r = f - c if f.shape == (self.n, 3) and c.shape == (3,) else c
        far = 2 * MAX_COORDINATE
        if r.shape != (self.n, 3) or not np.all(np.abs(r) <= far) or not 0.0 < m <= MAX_MASS:
            raise InputError(f"support_forces: 'feet' = {feet!r}, 'com' = {com!r}, 'mass' = {mass!r}: "
                             f"expected ({self.n}, 3) and (3,) [m], {far:g} m apart at most, and "
                             f"a mass in (0, {MAX_MASS:g}] kg")
        self._flat[self._at] = r.reshape(-1)[self._src] * self._sign  # Σ r_i × f_i = Σ skew(r_i) f_i = 0
        self.b[0:3] = -m * self.g
        if self.solver == "daqp":
            import daqp

            self._lower[:6] = self.b
            x, _, flag, _ = daqp.solve(self.P, self.q, self._rows, self._upper, self._lower, self._sense)
            x = x if flag == 1 else None
        else:
            import qpsolvers

            x = qpsolvers.solve_qp(self.P, self.q, self.G, self.h, self.A, self.b, solver=self.solver)
        if x is None:
            floor = f" each at least 'f_min' = {self.f_min:g} N (more than they share?)" if self.f_min else ""
            raise InputError(f"support_forces: no pushing forces inside the friction cone ('mu') hold the "
                             f"body against 'gravity' on these {self.n} feet{floor}: is the CoM ('com') "
                             f"outside the support polygon?")
        return np.asarray(x).reshape(self.n, 3)


def support_forces(feet, mass: float, com, mu: float, gravity=(0.0, 0.0, -9.81),
                   f_min: float = 0.0) -> np.ndarray:
    """Minimum-norm contact forces (n, 3) [N] of the stance ``feet`` (n, 3) [m] that hold a body of
    ``mass`` [kg] with its centre of mass at ``com`` (3,) [m] in static equilibrium:

        Σ f_i = −m g,   Σ (p_i − c) × f_i = 0,   ½ Σ |f_i|² → min,

    each foot pushing (f_i · n ≥ ``f_min``, n = −g/|g|) and inside the inscribed friction pyramid
    |f_i · t_k| ≤ μ/√2 (f_i · n) for the two tangents t_1, t_2 (so |f_t| ≤ μ f_n). A controller that
    calls this every tick should keep a :class:`SupportQP` (this builds one per call). Raises
    :class:`InputError` when no such forces exist (the CoM outside the support polygon, or too few
    feet).
    """
    p = _feet(feet, 3, "support_forces")
    mass = check_number("support_forces", "mass", mass, lo=0.0, lo_open=True, hi=MAX_MASS)  # [kg]
    return SupportQP(len(p), mu, gravity, f_min).solve(p, mass, com)
