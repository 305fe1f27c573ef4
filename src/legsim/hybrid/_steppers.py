"""Runge–Kutta and Rosenbrock steps, dense output and the Filippov sliding field (compiled;
numpy/numba/math only).

Dormand–Prince 5(4) stages with Shampine's dense output, scipy's RMS error norm and step law, or
the same 5th-order solution at a fixed step without error control (Simulink's ode5); classical RK4
with step doubling (SimSect's adaptive RK4) or a fixed step; explicit Euler at a fixed step; the
linearly implicit Rosenbrock 2(3) pair of ode23s (:mod:`legsim.hybrid.tableaux`) on a
forward-difference Jacobian, factorised in place (LU with partial pivoting, no allocation); the
state inside the last step by interpolation (DP, Rosenbrock), re-stepping (RK4) or the Euler line
(which is the Euler re-step); the sliding combination (1 − α) f_A + α f_B with α from Lie
derivatives of the sliding guard.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ._layout import (
    M_DP5_FIXED,
    M_DP45,
    M_EULER,
    M_RK4,
    M_ROS23,
    SI_NFEV,
    SI_NJAC,
    SI_SLIDE,
    SI_SLIDE_B,
    SI_SLIDE_GUARD,
)
from .tableaux import DP_A, DP_C, DP_E, DP_P, ROS23_D, ROS23_E32

JAC_MAX_AGE = 30
"""Accepted Rosenbrock steps a Jacobian is reused for before it is evaluated afresh (ode23s's pair
keeps its order with an inexact W, tested; the engine also re-evaluates after every event and after a
rejected step whose Jacobian came from an earlier point). LIBRA's climb, measured: 10 → 30 halves the
Jacobians (4450 → 2190) at the same steps and the same accuracy; 100 saves 25 % more of them."""


@njit(cache=True, error_model="numpy")
def _lie(gf, t, x, xdot, p, mode, k, xp, gbuf):
    """Directional derivative dg_k/dt along xdot (central difference, time included)."""
    nrm = 0.0
    for i in range(x.size):
        nrm = max(nrm, abs(xdot[i]) / (1.0 + abs(x[i])))
    eps = 1e-7 / max(1.0, nrm)
    for i in range(x.size):
        xp[i] = x[i] + eps * xdot[i]
    gf(t + eps, xp, p, mode, gbuf)
    gp = gbuf[k]
    for i in range(x.size):
        xp[i] = x[i] - eps * xdot[i]
    gf(t - eps, xp, p, mode, gbuf)
    return (gp - gbuf[k]) / (2.0 * eps)


@njit(cache=True, error_model="numpy")
def _field(vf, gf, si, t, x, p, mode, out, fb, xp, gbuf):
    """The active vector field: the mode's own, or the Filippov sliding combination."""
    vf(t, x, p, mode, out)
    if si[SI_SLIDE] == 0:
        return 1
    k = si[SI_SLIDE_GUARD]
    vf(t, x, p, si[SI_SLIDE_B], fb)
    la = _lie(gf, t, x, out, p, mode, k, xp, gbuf)
    lb = _lie(gf, t, x, fb, p, mode, k, xp, gbuf)
    den = la - lb
    alpha = la / den if den != 0.0 else 0.5
    alpha = min(1.0, max(0.0, alpha))
    for i in range(x.size):
        out[i] = (1.0 - alpha) * out[i] + alpha * fb[i]
    return 2


@njit(cache=True, error_model="numpy")
def _slide_alpha(vf, gf, si, t, x, p, mode, fa, fb, xp, gbuf):
    """Filippov weight α at (t, x) (unclipped): 0 means f_A is tangent, 1 means f_B is."""
    k = si[SI_SLIDE_GUARD]
    vf(t, x, p, mode, fa)
    vf(t, x, p, si[SI_SLIDE_B], fb)
    la = _lie(gf, t, x, fa, p, mode, k, xp, gbuf)
    lb = _lie(gf, t, x, fb, p, mode, k, xp, gbuf)
    den = la - lb
    if den == 0.0:
        return 0.5
    return la / den


@njit(cache=True, error_model="numpy")
def _rk4(vf, gf, si, t, x, h, p, mode, k1, k2, k3, k4, xs, out, fb, xp, gbuf):
    """One classical RK4 step of size h from (t, x) into ``out``; ``k1`` must hold f(t, x)."""
    n = x.size
    plain = si[SI_SLIDE] == 0
    for i in range(n):
        xs[i] = x[i] + 0.5 * h * k1[i]
    if plain:
        vf(t + 0.5 * h, xs, p, mode, k2)
    else:
        _field(vf, gf, si, t + 0.5 * h, xs, p, mode, k2, fb, xp, gbuf)
    for i in range(n):
        xs[i] = x[i] + 0.5 * h * k2[i]
    if plain:
        vf(t + 0.5 * h, xs, p, mode, k3)
    else:
        _field(vf, gf, si, t + 0.5 * h, xs, p, mode, k3, fb, xp, gbuf)
    for i in range(n):
        xs[i] = x[i] + h * k3[i]
    if plain:
        vf(t + h, xs, p, mode, k4)
    else:
        _field(vf, gf, si, t + h, xs, p, mode, k4, fb, xp, gbuf)
    for i in range(n):
        out[i] = x[i] + h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
    return 3 if plain else 6


@njit(cache=True, inline="always", error_model="numpy")
def _dp(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf):
    """Dormand–Prince stages 2..7; K[0] must hold f(t, x). Leaves K[6] = f(t+h, xnew)."""
    n = x.size
    nf = 0
    for s in range(1, 7):
        for i in range(n):
            acc = 0.0
            for r in range(s):
                acc += DP_A[s, r] * K[r, i]
            xs[i] = x[i] + h * acc
        # K is a borrowed view (see :mod:`legsim._borrow`): its rows cost no reference counting
        if si[SI_SLIDE] == 0:
            vf(t + DP_C[s] * h, xs, p, mode, K[s])
            nf += 1
        else:
            nf += _field(vf, gf, si, t + DP_C[s] * h, xs, p, mode, K[s], fb, xp, gbuf)
    for i in range(n):
        xnew[i] = xs[i]
    return nf


@njit(cache=True, inline="always", error_model="numpy")
def _dp_error(x, xnew, K, h, rtol, atol, n):
    """RMS over the first ``n`` states (the ODE's: :attr:`legsim.hybrid.Model.error_states`) of the
    embedded error estimate scaled by atol + rtol·max(|x|, |x_new|)."""
    acc = 0.0
    for i in range(n):
        e = 0.0
        for s in range(7):
            e += DP_E[s] * K[s, i]
        sc = atol + rtol * max(abs(x[i]), abs(xnew[i]))
        acc += (h * e / sc) ** 2
    return math.sqrt(acc / max(n, 1))


@njit(cache=True, inline="always", error_model="numpy")
def _state_at(method, vf, gf, si, t, x, h, theta, p, mode, K, k2, k3, k4, xs, out, fb, xp, gbuf):
    """State at t + θh inside the last step: DP dense output (DP45 and fixed DP5), ode23s's
    continuous extension (Rosenbrock: K[1], K[2] hold k1, k2), the Euler line (exactly the Euler
    step of size θh), or an RK4 re-step of size θh."""
    n = x.size
    if method == M_DP45 or method == M_DP5_FIXED:
        th2 = theta * theta
        th3 = th2 * theta
        th4 = th3 * theta
        for i in range(n):
            acc = 0.0
            for s in range(7):
                acc += K[s, i] * (DP_P[s, 0] * theta + DP_P[s, 1] * th2 + DP_P[s, 2] * th3
                                  + DP_P[s, 3] * th4)
            out[i] = x[i] + h * acc
        return 0
    if method == M_EULER:
        for i in range(n):
            out[i] = x[i] + theta * h * K[0, i]
        return 0
    if method == M_ROS23:
        c = h / (1.0 - 2.0 * ROS23_D)
        a1 = c * theta * (1.0 - theta)
        a2 = c * theta * (theta - 2.0 * ROS23_D)
        for i in range(n):
            out[i] = x[i] + a1 * K[1, i] + a2 * K[2, i]
        return 0
    return _rk4(vf, gf, si, t, x, theta * h, p, mode, K[0], k2, k3, k4, xs, out, fb, xp, gbuf)


@njit(cache=True, error_model="numpy")
def _jacobian(vf, gf, si, t, x, p, mode, f0, jac, xs, fcol, fb, xp, gbuf):
    """Forward differences at (t, x), given ``f0`` = f(t, x): ``jac`` (m, m) = ∂f/∂x over the first
    m states (the ODE's: the rest are bookkeeping that changes only at events and samples, so their
    rows are zero and their columns meet a zero stage), column j from a step of √eps·max(|x_j|, 1)
    in x_j. Returns the evaluations."""
    n = jac.shape[0]
    for i in range(x.size):
        xs[i] = x[i]
    for j in range(n):
        xj = x[j]
        xs[j] = xj + 1.4901161193847656e-08 * max(abs(xj), 1.0)
        dx = xs[j] - xj  # the step as represented
        _field(vf, gf, si, t, xs, p, mode, fcol, fb, xp, gbuf)
        for i in range(n):
            jac[i, j] = (fcol[i] - f0[i]) / dx
        xs[j] = xj
    si[SI_NJAC] += 1
    return n


@njit(cache=True, error_model="numpy")
def _lu(a, piv):
    """LU factorisation of the square ``a`` in place with partial pivoting (row k swapped with
    ``piv[k]``). False when a pivot is zero or not finite."""
    n = a.shape[0]
    for k in range(n):
        m = k
        big = abs(a[k, k])
        for i in range(k + 1, n):
            if abs(a[i, k]) > big:
                big = abs(a[i, k])
                m = i
        piv[k] = m
        if not (big > 0.0 and math.isfinite(big)):
            return False
        if m != k:
            for j in range(n):
                tmp = a[k, j]
                a[k, j] = a[m, j]
                a[m, j] = tmp
        inv = 1.0 / a[k, k]
        for i in range(k + 1, n):
            f = a[i, k] * inv
            a[i, k] = f
            if f != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= f * a[k, j]
    return True


@njit(cache=True, error_model="numpy")
def _lu_solve(a, piv, b):
    """Solve (LU from :func:`_lu`) x = b in place over the first m = a.shape[0] entries of ``b``
    (the rest stay: W is the identity on the bookkeeping states)."""
    n = a.shape[0]
    for k in range(n):
        m = piv[k]
        if m != k:
            tmp = b[k]
            b[k] = b[m]
            b[m] = tmp
    for i in range(n):
        acc = b[i]
        for j in range(i):
            acc -= a[i, j] * b[j]
        b[i] = acc
    for i in range(n - 1, -1, -1):
        acc = b[i]
        for j in range(i + 1, n):
            acc -= a[i, j] * b[j]
        b[i] = acc / a[i, i]


@njit(cache=True, error_model="numpy")
def _ros23(vf, gf, si, t, x, h, p, mode, K, jac, w, piv, jac_age, xs, xnew, fb, xp, gbuf, rtol,
           atol, nerr):
    """One step of ode23s's Rosenbrock pair (:mod:`legsim.hybrid.tableaux`) of size h into ``xnew``;
    ``jac`` and ``w`` are (m, m) over the ODE's states (:func:`_jacobian`).

    K[0] must hold f(t, x). ``jac`` is evaluated afresh when ``jac_age[0]`` < 0 or ≥
    :data:`JAC_MAX_AGE`, and ∂f/∂t (K[5]) with it; ∂f/∂t is evaluated at every step start while it
    was found non-zero (``jac_age[1]`` = 1): an old ∂f/∂t is not an inexact W but a wrong right-hand
    side (on Prothero–Robinson's λ = −10⁶ it diverged), while an autonomous field (the held commands
    are states) costs nothing more. Leaves k1, k2, k3 in K[1..3], the middle evaluation in K[4] and
    f(t + h, xnew) in K[6] (first same as last). Returns the RMS error (scaled as DP45's), +inf when
    W is singular.
    """
    n = x.size
    f0 = K[0]
    k1 = K[1]
    k2 = K[2]
    k3 = K[3]
    f1 = K[4]
    dfdt = K[5]
    f2 = K[6]
    fresh = jac_age[0] < 0 or jac_age[0] >= JAC_MAX_AGE
    if fresh:
        si[SI_NFEV] += _jacobian(vf, gf, si, t, x, p, mode, f0, jac, xs, f2, fb, xp, gbuf)
        jac_age[0] = 0
    if fresh or jac_age[1] == 1:  # ∂f/∂t by a forward difference
        dt = 1.4901161193847656e-08 * max(abs(t), 1.0)
        si[SI_NFEV] += _field(vf, gf, si, t + dt, x, p, mode, f2, fb, xp, gbuf)
        jac_age[1] = 0
        for i in range(n):
            dfdt[i] = (f2[i] - f0[i]) / dt
            if dfdt[i] != 0.0:
                jac_age[1] = 1
    hd = h * ROS23_D
    m = jac.shape[0]
    for i in range(m):
        for j in range(m):
            w[i, j] = -hd * jac[i, j]
        w[i, i] += 1.0
    if not _lu(w, piv):
        return np.inf
    for i in range(n):
        k1[i] = f0[i] + hd * dfdt[i]
    _lu_solve(w, piv, k1)
    for i in range(n):
        xs[i] = x[i] + 0.5 * h * k1[i]
    si[SI_NFEV] += _field(vf, gf, si, t + 0.5 * h, xs, p, mode, f1, fb, xp, gbuf)
    for i in range(n):
        k2[i] = f1[i] - k1[i]
    _lu_solve(w, piv, k2)
    for i in range(n):
        k2[i] += k1[i]
        xnew[i] = x[i] + h * k2[i]
    si[SI_NFEV] += _field(vf, gf, si, t + h, xnew, p, mode, f2, fb, xp, gbuf)
    for i in range(n):
        k3[i] = f2[i] - ROS23_E32 * (k2[i] - f1[i]) - 2.0 * (k1[i] - f0[i]) + hd * dfdt[i]
    _lu_solve(w, piv, k3)
    acc = 0.0
    for i in range(nerr):
        e = h / 6.0 * (k1[i] - 2.0 * k2[i] + k3[i])
        sc = atol + rtol * max(abs(x[i]), abs(xnew[i]))
        acc += (e / sc) ** 2
    return math.sqrt(acc / max(nerr, 1))


@njit(cache=True, error_model="numpy")
def _initial_step(vf, gf, si, t, x, p, mode, f0, rtol, atol, hmax, xs, f1, fb, xp, gbuf, n):
    """Hairer–Nørsett–Wanner starting-step heuristic (order 5), its norms over the first ``n``
    states (:attr:`legsim.hybrid.Model.error_states`)."""
    d0 = 0.0
    d1 = 0.0
    for i in range(n):
        sc = atol + rtol * abs(x[i])
        d0 += (x[i] / sc) ** 2
        d1 += (f0[i] / sc) ** 2
    d0 = math.sqrt(d0 / max(n, 1))
    d1 = math.sqrt(d1 / max(n, 1))
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    if not (h0 > 0.0 and math.isfinite(h0)):
        h0 = 1e-6
    h0 = min(h0, hmax)
    for i in range(x.size):
        xs[i] = x[i] + h0 * f0[i]
    _field(vf, gf, si, t + h0, xs, p, mode, f1, fb, xp, gbuf)
    d2 = 0.0
    for i in range(n):
        sc = atol + rtol * abs(x[i])
        d2 += ((f1[i] - f0[i]) / sc) ** 2
    d2 = math.sqrt(d2 / max(n, 1)) / h0
    if max(d1, d2) <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** 0.2
    h = min(100.0 * h0, h1, hmax)
    return h if (h > 0.0 and math.isfinite(h)) else 1e-6


@njit(cache=True, inline="always", error_model="numpy")
def _step(method, vf, gf, si, t, x, h, p, mode, K, xs, xnew, xr, xh, k2, k3, k4, fb, xp, gbuf,
          rtol, atol, tol, power, nerr):
    """Attempt one step of size h. Returns (error ratio ≤ 1 when acceptable, proposed next h); the
    error is measured over the first ``nerr`` states (the ODE's; the rest are bookkeeping).

    The ratio is +inf when the trial state is not finite.
    """
    n = x.size
    if method == M_DP45:
        si[SI_NFEV] += _dp(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf)
        err = _dp_error(x, xnew, K, h, rtol, atol, nerr)
        ratio = err
        fac = 10.0 if err == 0.0 else 0.9 * err ** -0.2
        fac = min(10.0, max(0.2, fac))
    elif method == M_RK4:
        si[SI_NFEV] += _rk4(vf, gf, si, t, x, h, p, mode, K[0], k2, k3, k4, xs, xr, fb, xp, gbuf)
        si[SI_NFEV] += _rk4(vf, gf, si, t, x, 0.5 * h, p, mode, K[0], k2, k3, k4, xs, xh,
                            fb, xp, gbuf)
        si[SI_NFEV] += _field(vf, gf, si, t + 0.5 * h, xh, p, mode, K[1], fb, xp, gbuf)
        si[SI_NFEV] += _rk4(vf, gf, si, t + 0.5 * h, xh, 0.5 * h, p, mode, K[1], k2, k3, k4,
                            xs, xnew, fb, xp, gbuf)
        err = 0.0
        for i in range(nerr):
            err = max(err, abs(xnew[i] - xr[i]) / 15.0)
        ratio = err / tol
        fac = 5.0 if err == 0.0 else 0.9 * (tol / err) ** power
        fac = min(5.0, max(0.1, fac))
    elif method == M_DP5_FIXED:
        # Simulink's ode5: the Dormand–Prince 5th-order solution, no error control
        si[SI_NFEV] += _dp(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf)
        ratio = 0.0
        fac = 1.0
    elif method == M_EULER:
        for i in range(n):
            xnew[i] = x[i] + h * K[0, i]
        ratio = 0.0
        fac = 1.0
    else:
        si[SI_NFEV] += _rk4(vf, gf, si, t, x, h, p, mode, K[0], k2, k3, k4, xs, xnew, fb, xp, gbuf)
        ratio = 0.0
        fac = 1.0
    return _verdict(xnew, ratio, fac, h)


@njit(cache=True, inline="always", error_model="numpy")
def _verdict(xnew, ratio, fac, h):
    """(error ratio, proposed next step) of a step attempt whose trial state is ``xnew``: +inf and a
    tenth of h when the state or the ratio is not finite; a rejected step's factor at most 0.9."""
    for i in range(xnew.size):
        if not math.isfinite(xnew[i]):
            return np.inf, 0.1 * h
    if not math.isfinite(ratio):
        return np.inf, 0.1 * h
    if ratio > 1.0:
        fac = min(fac, 0.9)
    return ratio, h * fac


@njit(cache=True, error_model="numpy")
def _ros_step(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf, rtol, atol, nerr, jac, w, piv,
              jac_age):
    """One Rosenbrock step attempt (:func:`_ros23`) as :func:`_step` reports it: (error ratio ≤ 1 when
    acceptable, proposed next h, from err^(-1/3) within [0.2, 5]); +inf for a singular W or a
    non-finite trial state."""
    ratio = _ros23(vf, gf, si, t, x, h, p, mode, K, jac, w, piv, jac_age, xs, xnew, fb, xp, gbuf, rtol,
                   atol, nerr)
    fac = 5.0 if ratio == 0.0 else 0.9 * ratio ** (-1.0 / 3.0)
    return _verdict(xnew, ratio, min(5.0, max(0.2, fac)), h)
