"""Runge–Kutta methods as data (DESIGN.md §6: Butcher tableaux are data).

Dormand–Prince 5(4) (Dormand & Prince 1980, "A family of embedded Runge–Kutta formulae",
J. Comp. Appl. Math. 6(1)): seven stages, first-same-as-last, 5th-order solution with an
embedded 4th-order error estimate. Its continuous extension is the 4th-order interpolant of
Shampine (1986, "Some practical Runge–Kutta formulas", Math. Comp. 46), written as the matrix
``DP_P`` so that ``x(t + θh) = x + h Σ_s K_s Σ_j P[s, j] θ^(j+1)``.

The Rosenbrock pair of MATLAB's ode23s (Shampine & Reichelt 1997, "The MATLAB ODE suite", SIAM J.
Sci. Comput. 18(1), §3.1): with ``d = 1/(2 + √2)``, ``W = I − h d J``, ``T ≈ ∂f/∂t``::

    W k1 = f(t, x) + h d T
    W (k2 − k1) = f(t + h/2, x + h k1 / 2) − k1,          x_new = x + h k2
    W k3 = f(t + h, x_new) − e32 (k2 − f(t + h/2, ·)) − 2 (k1 − f(t, x)) + h d T,   e32 = 6 + √2
    error ≈ h (k1 − 2 k2 + k3) / 6

second order, L-stable, with a third-order error estimate; its continuous extension is
``x(t + θh) = x + h [θ(1 − θ) k1 + θ(θ − 2d) k2] / (1 − 2d)``.

Classical RK4 (Kutta 1901) is SimSect's integrator (digest §2); legsim runs it with a fixed
step or with step doubling for the error estimate (see :mod:`legsim.hybrid.options`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DP_A", "DP_B", "DP_C", "DP_E", "DP_P", "RK4_A", "RK4_B", "RK4_C", "ROS23_D", "ROS23_E32"]

DP_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])

DP_A = np.zeros((7, 7))
DP_A[1, :1] = [1 / 5]
DP_A[2, :2] = [3 / 40, 9 / 40]
DP_A[3, :3] = [44 / 45, -56 / 15, 32 / 9]
DP_A[4, :4] = [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]
DP_A[5, :5] = [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]
DP_A[6, :6] = [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]

DP_B = DP_A[6].copy()
"""5th-order weights (equal to the last stage row: FSAL)."""

_DP_BHAT = np.array([5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
DP_E = DP_B - _DP_BHAT
"""Error weights: 5th-order minus embedded 4th-order solution."""

DP_P = np.array([
    [1.0, -8048581381 / 2820520608, 8663915743 / 2820520608, -12715105075 / 11282082432],
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 131558114200 / 32700410799, -68118460800 / 10900136933, 87487479700 / 32700410799],
    [0.0, -1754552775 / 470086768, 14199869525 / 1410260304, -10690763975 / 1880347072],
    [0.0, 127303824393 / 49829197408, -318862633887 / 49829197408, 701980252875 / 199316789632],
    [0.0, -282668133 / 205662961, 2019193451 / 616988883, -1453857185 / 822651844],
    [0.0, 40617522 / 29380423, -110615467 / 29380423, 69997945 / 29380423],
])
"""Dense-output coefficients (7 stages × powers θ..θ⁴)."""

RK4_C = np.array([0.0, 0.5, 0.5, 1.0])
RK4_A = np.array([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]])
RK4_B = np.array([1 / 6, 1 / 3, 1 / 3, 1 / 6])

ROS23_D = 1.0 / (2.0 + math.sqrt(2.0))
"""ode23s's d = 1/(2 + √2): the diagonal of its W = I − h d J."""
ROS23_E32 = 6.0 + math.sqrt(2.0)
"""ode23s's e32 = 6 + √2 (third stage)."""
