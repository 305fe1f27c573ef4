"""Event detection and location, records, the event log and the sliding test (compiled).

A guard crosses when it enters its strictly crossed side from the closed other side in its
direction; crossings are located by a safeguarded Illinois iteration to ``stop_precision`` on the
requested side; records fall at exact multiples of the record period; a sliding motion starts
when an event A→B would be undone at once by B (Filippov, see ``_try_slide``).
"""

from __future__ import annotations

from numba import njit

from ._layout import (
    SI_NEV,
    SI_NREC,
    SI_NSLIDE,
    SI_NSTOPIT,
    SI_REC_K,
    SI_SLIDE,
    SI_SLIDE_B,
    SI_SLIDE_GUARD,
)
from ._steppers import _lie, _slide_alpha, _state_at


@njit(cache=True, inline="always", error_model="numpy")
def _crossed(g0, g1, direction):
    """True when a guard entered the strictly crossed side from the closed other side, in its
    direction: falling means g0 >= 0 and g1 < 0 (NaN, an inactive guard, never crosses). A state
    that starts exactly on a surface and moves across it therefore fires at once."""
    if direction <= 0 and g0 >= 0.0 and g1 < 0.0:
        return True
    if direction >= 0 and g0 <= 0.0 and g1 > 0.0:
        return True
    return False


@njit(cache=True, inline="always", error_model="numpy")
def _armed(si, j):
    """A guard is watched unless it is the surface of the current sliding motion."""
    return not (si[SI_SLIDE] == 1 and si[SI_SLIDE_GUARD] == j)


@njit(cache=True, inline="always", error_model="numpy")
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


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def _locate(method, vf, gf, si, j, t, x, h, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf, fa_buf,
            ga, gb, hi, direction, place, prec, max_iter, eps_t):
    """Bracket a crossing of guard j (or, for j = -1, the end of sliding) inside θ ∈ [0, hi].

    ``ga``/``gb`` are the values at θ = 0 and θ = hi. Each iterate is the inverse quadratic
    interpolant of the last three points (Brent's choice) when it falls inside the bracket, else
    the secant of the bracket ends, aimed 1 % of the precision past the root on the side ``place``
    asks for, so that a converged estimate ends the search in one evaluation; a bisection
    follows any two iterations that did not halve the bracket. Returns (converged, lo, hi, g_hi):
    the guard has not crossed at lo and has crossed at hi, where its value is g_hi; the side named
    by ``place`` satisfies |g| ≤ prec (or the bracket is at the time resolution).
    """
    tol_g = prec if j >= 0 else 1e-10
    lo = 0.0
    fa = ga  # guard values at the bracket ends: uncrossed at lo, crossed at hi
    fb_ = gb
    x3 = 0.0  # the point most recently dropped from the bracket, for the quadratic
    f3 = 0.0
    have3 = False
    w_old = 4.0 * hi  # bracket widths one and two iterations ago
    w_prev = 4.0 * hi
    it = 0
    while it < max_iter:
        it += 1
        w = hi - lo
        stalled = w > 0.5 * w_old
        w_old = w_prev
        w_prev = w
        if stalled or fb_ == fa:
            th = lo + 0.5 * w
            w_old = 4.0 * w
            w_prev = 4.0 * w
        else:
            th = hi - fb_ * w / (fb_ - fa)
            if have3 and f3 != fa and f3 != fb_:
                q = (lo * fb_ * f3 / ((fa - fb_) * (fa - f3))
                     + hi * fa * f3 / ((fb_ - fa) * (fb_ - f3))
                     + x3 * fa * fb_ / ((f3 - fa) * (f3 - fb_)))
                if lo < q < hi:
                    th = q
            nudge = 0.01 * tol_g * w / abs(fb_ - fa)
            th = th + nudge if place > 0 else th - nudge
            th = min(max(th, lo + 1e-6 * w), hi - 1e-6 * w)
        _state_at(method, vf, gf, si, t, x, h, th, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf)
        if j >= 0:
            gf(t + th * h, xe, p, mode, gbuf)
            gm = gbuf[j]
            was = _crossed(fa, gm, direction)
        else:
            am = _slide_alpha(vf, gf, si, t + th * h, xe, p, mode, fa_buf, fb, xp, gbuf)
            gm = am if am <= 0.5 else 1.0 - am
            was = gm <= 0.0
        have3 = True
        if was:
            x3 = hi
            f3 = fb_
            hi = th
            fb_ = gm
        else:
            x3 = lo
            f3 = fa
            lo = th
            fa = gm
        si[SI_NSTOPIT] += 1
        if place > 0 and abs(fb_) <= tol_g:
            return True, lo, hi, fb_
        if place < 0 and lo > 0.0 and abs(fa) <= tol_g:
            return True, lo, hi, fb_
        if (hi - lo) * h <= eps_t:
            return True, lo, hi, fb_
    return False, lo, hi, fb_


@njit(cache=True, error_model="numpy")
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
        elif th <= 0.0:  # at the step's start (a record at a sample instant, after its update): x itself,
            _record(of, tr, x, p, mode, rec, rec_mode, si, ybuf)  # which every interpolant gives at θ = 0
        else:
            _state_at(method, vf, gf, si, t, x, h, th, p, mode, K, k2, k3, k4, xs, xr, fb, xp, gbuf)
            _record(of, tr, xr, p, mode, rec, rec_mode, si, ybuf)
        si[SI_REC_K] += 1


@njit(cache=True, error_model="numpy")
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
    have_fb = False
    for j in range(ng):
        if not (abs(g1[j]) <= slide_tol):
            continue
        if not have_fb:  # B's field only when one of its guards is at zero (rare)
            vf(te, xnew, p, mode_b, fb)
            have_fb = True
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
