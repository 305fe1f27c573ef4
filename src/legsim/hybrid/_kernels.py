"""Compiled hybrid-system integration loop (numba; only numpy/numba/math here).

One function, :func:`advance`, integrates a hybrid model from its current state until the
final time, a full record or event buffer, a step budget, or an error, and returns a status
code. Everything it needs between calls lives in the small arrays ``sf`` (floats) and ``si``
(integers), so Python can flush records to disk and call it again: records are written as the
run goes and a failed run keeps them. Scratch arrays are allocated once per call, never per step.

Algorithms (SimSect digest §2, extended):

* Dormand–Prince 5(4) with Shampine's dense output, scipy-compatible RMS error norm and step
  control; classical RK4 with step doubling (SimSect's adaptive RK4: error = max|x_{h/2,h/2} −
  x_h| / 15, accepted when ≤ ``tolerance``, next step h·(tol/err)^power); fixed-step RK4.
* Events: guards are evaluated after every step; a crossing in the guard's direction is located by
  a safeguarded Illinois (regula falsi) iteration on the dense interpolant (DP) or by re-stepping
  from the step start (RK4), until the guard on the requested side (LEFT/RIGHT) is within
  ``stop_precision``, in at most ``max_stop_iter`` iterations. The earliest crossing wins; all
  guards crossed by that instant are reported together to the reset (ties are deterministic).
* Records at exact multiples of ``record_period`` (interpolated), or at every step when it is 0;
  the final time is hit exactly; a sampled controller runs exactly at t0 + k·``sample_period``.
* Sliding (Filippov): when an event takes mode A to B across guard k and B would immediately
  return to A with both vector fields pointing into the surface g_k = 0, the engine integrates the
  Filippov convex combination f = (1−α) f_A + α f_B with α chosen so that dg_k/dt = 0, and leaves
  the surface when α reaches 0 (into A) or 1 (into B, through the model's reset).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numba import types as T

from ._hooks import HOOKS_T
from .tableaux import DP_A, DP_C, DP_E, DP_P

# ---- option vector layout (floats) ---------------------------------------------------------
OF_T0, OF_TF, OF_RTOL, OF_ATOL, OF_TOL, OF_POWER, OF_HMIN, OF_HMAX, OF_H0 = range(9)
OF_STOP_PREC, OF_REC_PERIOD, OF_SAMPLE_PERIOD, OF_SLIDE_TOL = range(9, 13)
N_OPTF = 13
# ---- option vector layout (integers) ------------------------------------------------------
OI_METHOD, OI_MAX_STOP_ITER, OI_MAX_TRANS, OI_SLIDING, OI_MAX_STEPS, OI_CHECK_STEPS = range(6)
N_OPTI = 6
# ---- persistent state (floats) ------------------------------------------------------------
SF_T, SF_H = range(2)
N_SF = 2
# ---- persistent state (integers) ----------------------------------------------------------
(SI_MODE, SI_STARTED, SI_NSTEP, SI_NREJ, SI_NFEV, SI_NTRANS, SI_NEVENT, SI_REC_K, SI_SAMPLE_K,
 SI_NREC, SI_NEV, SI_ERR, SI_ERR_GUARD, SI_SLIDE, SI_SLIDE_GUARD, SI_SLIDE_B, SI_NSTOPIT,
 SI_DONE_FINAL, SI_NSLIDE) = range(19)
N_SI = 19

# ---- methods -------------------------------------------------------------------------------
M_DP45, M_RK4, M_RK4_FIXED = 0, 1, 2

# ---- status codes --------------------------------------------------------------------------
ST_DONE = 0
ST_RECORDS_FULL = 1
ST_EVENTS_FULL = 2
ST_BUDGET = 3
ST_STEP_UNDERFLOW = -1
ST_NONFINITE = -2
ST_CHATTER = -3
ST_LOCATE_FAILED = -4
ST_MODEL_ERROR = -5
ST_CHECK_FAILED = -6

# ---- event kinds in the event log ---------------------------------------------------------
EV_GUARD, EV_SLIDE_START, EV_SLIDE_END, EV_SAMPLE_MODE = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _crossed(g0, g1, direction):
    """True when a guard entered the strictly crossed side from the closed other side, in its
    direction: falling means g0 >= 0 and g1 < 0 (NaN, an inactive guard, never crosses). A state
    that starts exactly on a surface and moves across it therefore fires at once."""
    if direction <= 0 and g0 >= 0.0 and g1 < 0.0:
        return True
    if direction >= 0 and g0 <= 0.0 and g1 > 0.0:
        return True
    return False


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True, inline="always")
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
        # the field writes into the scratch row ``fb`` and is copied: a view K[s] per stage
        # would cost an atomic reference-count pair each time
        if si[SI_SLIDE] == 0:
            vf(t + DP_C[s] * h, xs, p, mode, xnew)
            nf += 1
        else:
            nf += _field(vf, gf, si, t + DP_C[s] * h, xs, p, mode, xnew, fb, xp, gbuf)
        for i in range(n):
            K[s, i] = xnew[i]
    for i in range(n):
        xnew[i] = xs[i]
    return nf


@njit(cache=True, inline="always")
def _dp_error(x, xnew, K, h, rtol, atol):
    """RMS of the embedded error estimate scaled by atol + rtol·max(|x|, |x_new|)."""
    n = x.size
    acc = 0.0
    for i in range(n):
        e = 0.0
        for s in range(7):
            e += DP_E[s] * K[s, i]
        sc = atol + rtol * max(abs(x[i]), abs(xnew[i]))
        acc += (h * e / sc) ** 2
    return math.sqrt(acc / max(n, 1))


@njit(cache=True)
def _state_at(method, vf, gf, si, t, x, h, theta, p, mode, K, k2, k3, k4, xs, out, fb, xp, gbuf):
    """State at t + θh inside the last step: DP dense output, or an RK4 re-step of size θh."""
    n = x.size
    if method == M_DP45:
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
    return _rk4(vf, gf, si, t, x, theta * h, p, mode, K[0], k2, k3, k4, xs, out, fb, xp, gbuf)


@njit(cache=True)
def _initial_step(vf, gf, si, t, x, p, mode, f0, rtol, atol, hmax, xs, f1, fb, xp, gbuf):
    """Hairer–Nørsett–Wanner starting-step heuristic (order 5)."""
    n = x.size
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
    for i in range(n):
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


@njit(cache=True)
def _record(of, t, x, p, mode, rec, rec_mode, si, ybuf):
    """Append one record row [t, x..., y...] and its mode."""
    r = si[SI_NREC]
    n = x.size
    rec[r, 0] = t
    for i in range(n):
        rec[r, 1 + i] = x[i]
    ny = ybuf.size
    if ny > 0:
        of(t, x, p, mode, ybuf)
        for i in range(ny):
            rec[r, 1 + n + i] = ybuf[i]
    rec_mode[r] = mode
    si[SI_NREC] = r + 1


@njit(cache=True)
def _log_event(t, x, kind, guard, mode_before, mode_after, ev_t, ev_i, si):
    """Append an event: ev_t row = [t, state before the reset...]; ev_i row = kind, guard, modes."""
    r = si[SI_NEV]
    ev_t[r, 0] = t
    for i in range(x.size):
        ev_t[r, 1 + i] = x[i]
    ev_i[r, 0] = kind
    ev_i[r, 1] = guard
    ev_i[r, 2] = mode_before
    ev_i[r, 3] = mode_after
    si[SI_NEV] = r + 1


@njit(cache=True, inline="always")
def _armed(si, j):
    """A guard is watched unless it is the surface of the current sliding motion."""
    return not (si[SI_SLIDE] == 1 and si[SI_SLIDE_GUARD] == j)


@njit(cache=True, inline="always")
def _step(method, vf, gf, si, t, x, h, p, mode, K, xs, xnew, xr, xh, k2, k3, k4, fb, xp, gbuf,
          rtol, atol, tol, power):
    """Attempt one step of size h. Returns (error ratio ≤ 1 when acceptable, proposed next h).

    The ratio is +inf when the trial state is not finite.
    """
    n = x.size
    if method == M_DP45:
        si[SI_NFEV] += _dp(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf)
        err = _dp_error(x, xnew, K, h, rtol, atol)
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
        for i in range(n):
            err = max(err, abs(xnew[i] - xr[i]) / 15.0)
        ratio = err / tol
        fac = 5.0 if err == 0.0 else 0.9 * (tol / err) ** power
        fac = min(5.0, max(0.1, fac))
    else:
        si[SI_NFEV] += _rk4(vf, gf, si, t, x, h, p, mode, K[0], k2, k3, k4, xs, xnew, fb, xp, gbuf)
        ratio = 0.0
        fac = 1.0
    for i in range(n):
        if not math.isfinite(xnew[i]):
            return np.inf, 0.1 * h
    if not math.isfinite(ratio):
        return np.inf, 0.1 * h
    if ratio > 1.0:
        fac = min(fac, 0.9)
    return ratio, h * fac


@njit(cache=True)
def _locate(method, vf, gf, si, j, t, x, h, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf, fa_buf,
            ga, gb, hi, direction, place, prec, max_iter, eps_t):
    """Bracket a crossing of guard j (or, for j = -1, the end of sliding) inside θ ∈ [0, hi].

    ``ga``/``gb`` are the values at θ = 0 and θ = hi. Safeguarded Illinois iteration with a
    bisection every third step. Returns (converged, lo, hi): the guard has not crossed at lo and
    has crossed at hi; the side named by ``place`` satisfies |g| ≤ prec (or the bracket is at
    the time resolution).
    """
    lo = 0.0
    side = 0
    it = 0
    fa = ga  # true values at the bracket ends (the Illinois weights below only steer the secant)
    fb_ = gb
    while it < max_iter:
        it += 1
        w = hi - lo
        if it % 3 == 0 or gb == ga:
            th = lo + 0.5 * w
        else:
            th = hi - gb * w / (gb - ga)
            th = min(max(th, lo + 1e-3 * w), hi - 1e-3 * w)
        _state_at(method, vf, gf, si, t, x, h, th, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf)
        if j >= 0:
            gf(t + th * h, xe, p, mode, gbuf)
            gm = gbuf[j]
            was = _crossed(fa, gm, direction)
        else:
            am = _slide_alpha(vf, gf, si, t + th * h, xe, p, mode, fa_buf, fb, xp, gbuf)
            gm = am if am <= 0.5 else 1.0 - am
            was = gm <= 0.0
        if was:
            hi = th
            gb = gm
            fb_ = gm
            if side == 1:
                ga *= 0.5
            side = 1
        else:
            lo = th
            ga = gm
            fa = gm
            if side == -1:
                gb *= 0.5
            side = -1
        si[SI_NSTOPIT] += 1
        if j >= 0:
            if place > 0 and abs(fb_) <= prec:
                return True, lo, hi
            if place < 0 and lo > 0.0 and abs(fa) <= prec:
                return True, lo, hi
        elif abs(fb_) <= 1e-10:
            return True, lo, hi
        if (hi - lo) * h <= eps_t:
            return True, lo, hi
    return False, lo, hi


@njit(cache=True)
def _records_until(method, vf, gf, of, si, t, x, h, t_end, xend, p, mode, K, k2, k3, k4, xs, xr,
                   fb, xp, gbuf, rec, rec_mode, ybuf, t0, rp, tf, eps_t):
    """Records at the multiples of the record period in (t, t_end], from this step's interpolant."""
    while True:
        tr = t0 + si[SI_REC_K] * rp
        if abs(tr - tf) <= eps_t:
            tr = tf
        if tr > t_end + eps_t or tr > tf:
            return
        th = (tr - t) / h
        if th >= 1.0 - 1e-14:
            _record(of, tr, xend, p, mode, rec, rec_mode, si, ybuf)
        else:
            _state_at(method, vf, gf, si, t, x, h, th, p, mode, K, k2, k3, k4, xs, xr, fb, xp, gbuf)
            _record(of, tr, xr, p, mode, rec, rec_mode, si, ybuf)
        si[SI_REC_K] += 1


@njit(cache=True)
def _try_slide(vf, gf, rf, si, te, xnew, p, mode_a, mode_b, k, gdir, g0k, fired, g1, fa, fb, xr, xp,
               gbuf, slide_tol):
    """Filippov test after an event took mode A to B across guard k at state ``xnew``.

    Sliding starts when some guard j of B is at zero and B's field crosses it at once, B's reset
    through j returns to A without changing the state, and on the surface g_k = 0 the field of A
    points towards B's side while the field of B points back. Returns True if sliding started.
    """
    ng = gdir.size
    nx = xnew.size
    sigma = 1.0 if gdir[k] < 0 else (-1.0 if gdir[k] > 0 else (1.0 if g0k > 0.0 else -1.0))
    gf(te, xnew, p, mode_b, g1)
    vf(te, xnew, p, mode_b, fb)
    for j in range(ng):
        if not (abs(g1[j]) <= slide_tol):
            continue
        lb = _lie(gf, te, xnew, fb, p, mode_b, j, xp, gbuf)
        leaves = (gdir[j] < 0 and lb < 0.0) or (gdir[j] > 0 and lb > 0.0) or (gdir[j] == 0 and lb != 0.0)
        if not leaves:
            continue
        for i in range(ng):
            fired[i] = 0
        fired[j] = 1
        for i in range(nx):
            xr[i] = xnew[i]
        if rf(te, xnew, p, mode_b, fired, xr) != mode_a:
            continue
        dev = 0.0
        for i in range(nx):
            dev = max(dev, abs(xr[i] - xnew[i]) / (1.0 + abs(xnew[i])))
        if dev > slide_tol:
            continue
        vf(te, xnew, p, mode_a, fa)
        la = _lie(gf, te, xnew, fa, p, mode_a, k, xp, gbuf)
        lbk = _lie(gf, te, xnew, fb, p, mode_a, k, xp, gbuf)
        if sigma * la < 0.0 and sigma * lbk > 0.0:
            si[SI_SLIDE] = 1
            si[SI_SLIDE_GUARD] = k
            si[SI_SLIDE_B] = mode_b
            si[SI_NSLIDE] += 1
            return True
    return False


_ADVANCE_SIG = T.int64(
    HOOKS_T,
    T.int64[::1], T.int64[::1], T.float64[::1],
    T.float64[::1], T.int64[::1],
    T.float64[::1], T.int64[::1], T.float64[::1],
    T.float64[:, ::1], T.int64[::1],
    T.float64[:, ::1], T.int64[:, ::1],
)


@njit(_ADVANCE_SIG, cache=True)
def advance(hooks, gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i):
    """Integrate until done, a buffer fills, the step budget ends, or an error.

    Data flow: (x, sf, si) -> (x, sf, si, rec[si[NREC]:], ev[si[NEV]:]); returns a status code.
    On return ``sf``/``si``/``x`` hold the state to resume from (or where the error happened).
    """
    vf = hooks.vector_field
    gf = hooks.guards
    rf = hooks.reset
    of = hooks.outputs
    sfn = hooks.sample
    cf = hooks.check
    nx = x.size
    ng = gdir.size
    ny = rec.shape[1] - 1 - nx
    method = opti[OI_METHOD]
    t0 = optf[OF_T0]
    tf = optf[OF_TF]
    rtol = optf[OF_RTOL]
    atol = optf[OF_ATOL]
    tol = optf[OF_TOL]
    power = optf[OF_POWER]
    hmin = optf[OF_HMIN]
    hmax = optf[OF_HMAX]
    prec = optf[OF_STOP_PREC]
    rp = optf[OF_REC_PERIOD]
    spd = optf[OF_SAMPLE_PERIOD]
    slide_tol = optf[OF_SLIDE_TOL]
    max_iter = opti[OI_MAX_STOP_ITER]
    max_trans = opti[OI_MAX_TRANS]
    sliding = opti[OI_SLIDING]
    max_steps = opti[OI_MAX_STEPS]
    check_steps = opti[OI_CHECK_STEPS]
    rec_cap = rec.shape[0]
    ev_cap = ev_t.shape[0]

    K = np.empty((7, nx))
    xs = np.empty(nx)
    xnew = np.empty(nx)
    xe = np.empty(nx)
    xr = np.empty(nx)
    xh = np.empty(nx)
    k2 = np.empty(nx)
    k3 = np.empty(nx)
    k4 = np.empty(nx)
    fb = np.empty(nx)
    fa = np.empty(nx)
    xp = np.empty(nx)
    g0 = np.empty(ng)
    g1 = np.empty(ng)
    gbuf = np.empty(ng)
    fired = np.zeros(ng, dtype=np.int64)
    ybuf = np.empty(ny)
    eps_t = 8.0 * 2.220446049250313e-16 * max(1.0, abs(tf), abs(t0))

    mode = si[SI_MODE]
    t = sf[SF_T]
    h = sf[SF_H]

    if si[SI_STARTED] == 0:
        if rec_cap - si[SI_NREC] < 2 or ev_cap - si[SI_NEV] < 2:
            return ST_RECORDS_FULL
        if spd > 0.0:
            for i in range(nx):
                xnew[i] = x[i]
            m2 = sfn(t, x, p, mode, 0, xnew)
            if m2 < 0:
                si[SI_ERR] = m2
                return ST_MODEL_ERROR
            for i in range(nx):
                x[i] = xnew[i]
            if m2 != mode:
                _log_event(t, x, EV_SAMPLE_MODE, -1, mode, m2, ev_t, ev_i, si)
                mode = m2
                si[SI_MODE] = mode
            si[SI_SAMPLE_K] = 1
        code = cf(t, x, p, mode)
        if code != 0:
            si[SI_ERR] = code
            return ST_CHECK_FAILED
        _record(of, t, x, p, mode, rec, rec_mode, si, ybuf)
        si[SI_REC_K] = 1
        si[SI_STARTED] = 1
        si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
        for i in range(nx):
            if not (math.isfinite(x[i]) and math.isfinite(K[0, i])):
                return ST_NONFINITE
        if h <= 0.0:
            if method == M_DP45:
                h = _initial_step(vf, gf, si, t, x, p, mode, K[0], rtol, atol, hmax, xs, k2,
                                  fb, xp, gbuf)
            elif method == M_RK4:
                h = min(hmax, max(hmin, 1e-4))
            else:
                h = hmax
    else:
        si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)

    gf(t, x, p, mode, g0)
    steps_this_call = 0
    zeno = 0
    t_last_event = -np.inf

    while True:
        sf[SF_T] = t
        sf[SF_H] = h
        si[SI_MODE] = mode
        if t >= tf - eps_t:
            if si[SI_DONE_FINAL] == 0:
                last = si[SI_NREC] - 1
                if last < 0 or rec[last, 0] != tf:
                    if rec_cap - si[SI_NREC] < 1:
                        return ST_RECORDS_FULL
                    _record(of, tf, x, p, mode, rec, rec_mode, si, ybuf)
                si[SI_DONE_FINAL] = 1
            sf[SF_T] = tf
            return ST_DONE
        if steps_this_call >= max_steps:
            return ST_BUDGET
        if method == M_RK4_FIXED:
            h = hmax
        h = min(h, hmax)
        if rp > 0.0:
            h = min(h, rp * max(1.0, rec_cap // 2 - 4))
            need = 6 + int(h / rp)
        else:
            need = 6
        if rec_cap - si[SI_NREC] < need:
            return ST_RECORDS_FULL
        if ev_cap - si[SI_NEV] < 4:
            return ST_EVENTS_FULL

        # ---- the step: clipped to land exactly on the next sample instant and the final time
        t_sample = t0 + si[SI_SAMPLE_K] * spd if spd > 0.0 else np.inf
        h_free = h
        t_end = t + h
        snap = max(eps_t, 1e-9 * h)
        if t_end >= t_sample - snap:
            h = t_sample - t
            t_end = t_sample
        if t_end >= tf - snap:
            h = tf - t
            t_end = tf
        if h <= 0.0:
            h = eps_t
            t_end = t + h
        clipped = h < h_free
        while True:
            ratio, h_next = _step(method, vf, gf, si, t, x, h, p, mode, K, xs, xnew, xr, xh,
                                  k2, k3, k4, fb, xp, gbuf, rtol, atol, tol, power)
            if ratio <= 1.0:
                break
            si[SI_NREJ] += 1
            if method == M_RK4_FIXED or h_next < hmin:
                return ST_NONFINITE if ratio == np.inf else ST_STEP_UNDERFLOW
            h = h_next
            t_end = t + h
            clipped = False
        si[SI_NSTEP] += 1
        steps_this_call += 1
        if clipped:
            h_next = max(h_next, h_free)
        h_next = min(max(h_next, hmin), hmax)

        # ---- events inside (t, t_end]
        gf(t_end, xnew, p, mode, g1)
        first = -1
        for j in range(ng):
            if _armed(si, j) and _crossed(g0[j], g1[j], gdir[j]):
                first = j
                break
        slide_end = False
        if si[SI_SLIDE] == 1:
            a1 = _slide_alpha(vf, gf, si, t_end, xnew, p, mode, fa, fb, xp, gbuf)
            slide_end = a1 <= 0.0 or a1 >= 1.0
        if first < 0 and not slide_end:
            # ---- plain accepted step (records at a sample instant show the sampled update)
            sampled_now = t_end == t_sample
            if rp > 0.0 and t0 + si[SI_REC_K] * rp <= t_end + eps_t:
                _records_until(method, vf, gf, of, si, t, x, h,
                               t_end - 2.0 * eps_t if sampled_now else t_end, xnew, p, mode, K, k2,
                               k3, k4, xs, xr, fb, xp, gbuf, rec, rec_mode, ybuf, t0, rp, tf, eps_t)
            for i in range(nx):
                x[i] = xnew[i]
            t = t_end
            if method == M_DP45 and si[SI_SLIDE] == 0:
                for i in range(nx):
                    K[0, i] = K[6, i]
            else:
                si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
            for j in range(ng):
                g0[j] = g1[j]
            if sampled_now:
                for i in range(nx):
                    xnew[i] = x[i]
                m2 = sfn(t, x, p, mode, si[SI_SAMPLE_K], xnew)
                si[SI_SAMPLE_K] += 1
                if m2 < 0:
                    si[SI_ERR] = m2
                    return ST_MODEL_ERROR
                changed = m2 != mode
                for i in range(nx):
                    if xnew[i] != x[i]:
                        changed = True
                    x[i] = xnew[i]
                if m2 != mode:
                    _log_event(t, x, EV_SAMPLE_MODE, -1, mode, m2, ev_t, ev_i, si)
                    mode = m2
                    si[SI_SLIDE] = 0
                if changed:
                    si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
                    gf(t, x, p, mode, g0)
                if rp > 0.0:
                    _records_until(method, vf, gf, of, si, t, x, h, t, x, p, mode, K, k2, k3, k4,
                                   xs, xr, fb, xp, gbuf, rec, rec_mode, ybuf, t0, rp, tf, eps_t)
            if rp == 0.0:
                _record(of, t, x, p, mode, rec, rec_mode, si, ybuf)
            if check_steps != 0:
                code = cf(t, x, p, mode)
                if code != 0:
                    si[SI_ERR] = code
                    sf[SF_T] = t
                    si[SI_MODE] = mode
                    return ST_CHECK_FAILED
            h = h_next
            continue

        # ---- locate the earliest crossing; the bracket [0, hi] shrinks with each one found
        hi = 1.0
        best = -2
        best_lo = 0.0
        ghi = g1
        for j in range(-1, ng):
            if j == -1:
                if not slide_end:
                    continue
                a1 = _slide_alpha(vf, gf, si, t_end, xnew, p, mode, fa, fb, xp, gbuf)
                ga = 0.5
                gb = a1 if a1 <= 0.5 else 1.0 - a1
                place = 1
            else:
                if not (_armed(si, j) and _crossed(g0[j], ghi[j], gdir[j])):
                    continue
                ga = g0[j]
                gb = ghi[j]
                place = gplace[j]
            ok, lo, hi = _locate(method, vf, gf, si, j, t, x, h, p, mode, K, k2, k3, k4, xs, xe,
                                 fb, xp, gbuf, fa, ga, gb, hi, gdir[j] if j >= 0 else -1, place,
                                 prec, max_iter, eps_t)
            if not ok:
                si[SI_ERR_GUARD] = j
                return ST_LOCATE_FAILED
            best = j
            best_lo = lo
            # guard values at the new upper end, for the remaining candidates
            _state_at(method, vf, gf, si, t, x, h, hi, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf)
            gf(t + hi * h, xe, p, mode, gbuf)
            for i in range(ng):
                g1[i] = gbuf[i]
            ghi = g1
        # every guard crossed by θ = hi fires together (deterministic tie handling)
        nfired = 0
        for j in range(ng):
            c = _armed(si, j) and _crossed(g0[j], g1[j], gdir[j])
            fired[j] = 1 if c else 0
            nfired += fired[j]
        place = gplace[best] if best >= 0 else 1
        th_e = hi if place > 0 else best_lo
        _state_at(method, vf, gf, si, t, x, h, th_e, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf)
        te = t + th_e * h
        if rp > 0.0:
            _records_until(method, vf, gf, of, si, t, x, h, te, xe, p, mode, K, k2, k3, k4, xs, xr,
                           fb, xp, gbuf, rec, rec_mode, ybuf, t0, rp, tf, eps_t)
        else:
            _record(of, te, xe, p, mode, rec, rec_mode, si, ybuf)
        for i in range(nx):
            xnew[i] = xe[i]
        mode_before = mode
        if te - t_last_event <= 1000.0 * eps_t:
            zeno += 1
        else:
            zeno = 0
        t_last_event = te
        if best == -1:
            # the sliding motion ends: into A (α → 0) or through the surface into B (α → 1)
            kg = si[SI_SLIDE_GUARD]
            a_e = _slide_alpha(vf, gf, si, te, xe, p, mode, fa, fb, xp, gbuf)
            si[SI_SLIDE] = 0
            if a_e >= 0.5:
                for j in range(ng):
                    fired[j] = 0
                fired[kg] = 1
                m2 = rf(te, xe, p, mode, fired, xnew)
                if m2 < 0:
                    si[SI_ERR] = m2
                    return ST_MODEL_ERROR
                mode = m2
            _log_event(te, xe, EV_SLIDE_END, kg, mode_before, mode, ev_t, ev_i, si)
        else:
            m2 = rf(te, xe, p, mode, fired, xnew)
            if m2 < 0:
                si[SI_ERR] = m2
                sf[SF_T] = te
                return ST_MODEL_ERROR
            mode = m2
            _log_event(te, xe, EV_GUARD, best, mode_before, mode, ev_t, ev_i, si)
            si[SI_NEVENT] += 1
            if mode != mode_before:
                si[SI_NTRANS] += 1
            if sliding == 1 and mode != mode_before and si[SI_SLIDE] == 0:
                if _try_slide(vf, gf, rf, si, te, xnew, p, mode_before, mode, best, gdir, g0[best],
                              fired, gbuf, fa, fb, xr, xp, g1, slide_tol):
                    _log_event(te, xe, EV_SLIDE_START, best, mode_before, mode, ev_t, ev_i, si)
                    mode = mode_before
                    si[SI_NTRANS] -= 1
                    si[SI_NEVENT] -= 1
            # every event applies a transition map (possibly into the same mode, SimSect §3.1), so
            # all of them count against max_transitions; > 1000 in a row at one instant is Zeno
            if (max_trans > 0 and si[SI_NEVENT] > max_trans) or zeno > 1000:
                si[SI_ERR_GUARD] = best
                for i in range(nx):
                    x[i] = xnew[i]
                sf[SF_T] = te
                si[SI_MODE] = mode
                return ST_CHATTER
        for i in range(nx):
            x[i] = xnew[i]
        t = te
        if rp == 0.0:
            _record(of, t, x, p, mode, rec, rec_mode, si, ybuf)
        code = cf(t, x, p, mode)
        if code != 0:
            si[SI_ERR] = code
            sf[SF_T] = t
            si[SI_MODE] = mode
            return ST_CHECK_FAILED
        si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
        gf(t, x, p, mode, g0)
        h = h_next
        if method == M_DP45 and mode != mode_before:
            h = min(h, _initial_step(vf, gf, si, t, x, p, mode, K[0], rtol, atol, hmax, xs, k2,
                                     fb, xp, gbuf))
            si[SI_NFEV] += 1
