"""Compiled hybrid-system integration loop (numba; only numpy/numba/math here).

One function, :func:`advance`, integrates a hybrid model from its current state until the
final time, a full record or event buffer, a step budget, or an error, and returns a status
code. Everything it needs between calls lives in the small arrays ``sf`` (floats) and ``si``
(integers), so Python can flush records to disk and call it again: records are written as the
run goes and a failed run keeps them. Scratch arrays are allocated once per call, never per step.

Algorithms (SimSect digest §2, extended):

* Dormand–Prince 5(4) with Shampine's dense output, scipy-compatible RMS error norm and step
  control; classical RK4 with step doubling (SimSect's adaptive RK4: error = max|x_{h/2,h/2} −
  x_h| / 15, accepted when ≤ ``tolerance``, next step h·(tol/err)^power); fixed-step RK4; fixed-step
  Dormand–Prince 5 (Simulink's ode5: the 5th-order solution, no error control) and explicit Euler.
  The fixed-step methods step ``h_max``, shortened to land on sample instants and the final time.
* Stiff models: ode23s's linearly implicit Rosenbrock 2(3) pair (same error norm as DP45, step
  factor err^(-1/3)) on a forward-difference Jacobian over the ODE's states, kept for up to
  ``JAC_MAX_AGE`` accepted steps (across sample instants and calls) and re-evaluated after any event
  and any rejection. It lives in a second variant of the loop (:func:`variant`): the explicit
  engine every run compiles leaves it out (3 s of a cold compile).
* Events: guards are evaluated after every step; a crossing in the guard's direction is located by
  a safeguarded Illinois (regula falsi) iteration on the dense interpolant (DP, Rosenbrock) or by re-stepping
  from the step start (RK4), until the guard on the requested side (LEFT/RIGHT) is within
  ``stop_precision``, in at most ``max_stop_iter`` iterations. The earliest crossing wins; all
  guards crossed by that instant are reported together to the reset (ties are deterministic).
* Records at exact multiples of ``record_period`` (interpolated), or at every step when it is 0;
  the final time is hit exactly; a sampled controller runs exactly at t0 + k·``sample_period``.
* Sliding (Filippov): when an event takes mode A to B across guard k and B would immediately
  return to A with both vector fields pointing into the surface g_k = 0, the engine integrates the
  Filippov convex combination f = (1−α) f_A + α f_B with α chosen so that dg_k/dt = 0, and leaves
  the surface when α reaches 0 (into A) or 1 (into B, through the model's reset).

Speed: every array in the loop is a borrowed view (:mod:`legsim._borrow`) of the arguments, so passing
arrays to the helpers and hooks costs no atomic reference counting; the helpers run on every
step or locate iteration are inlined; the kernels use ``error_model="numpy"`` (no zero-division
checks: every division is by a positive step, tolerance or period, or guarded).
"""

from __future__ import annotations

import math
import types

import numpy as np
from numba import njit
from numba import types as T

from .._borrow import borrow_all
from ._events import _armed, _crossed, _locate, _log_event, _record, _records_until, _try_slide
from ._hooks import HOOKS_T
from ._layout import (
    EV_GUARD,
    EV_SAMPLE_MODE,
    EV_SLIDE_END,
    EV_SLIDE_START,
    M_DP5_FIXED,
    M_DP45,
    M_EULER,
    M_RK4,
    M_RK4_FIXED,
    M_ROS23,
    OF_ATOL,
    OF_HMAX,
    OF_HMIN,
    OF_POWER,
    OF_REC_PERIOD,
    OF_RTOL,
    OF_SAMPLE_PERIOD,
    OF_SLIDE_TOL,
    OF_STOP_PREC,
    OF_T0,
    OF_TF,
    OF_TOL,
    OI_CHECK_STEPS,
    OI_MAX_STEPS,
    OI_MAX_STOP_ITER,
    OI_MAX_TRANS,
    OI_METHOD,
    OI_NERR,
    OI_RESTART_STEP,
    OI_SLIDING,
    OI_YIELD_EVERY,
    SF_H,
    SF_H_SAMPLE,
    SF_T,
    SI_AFTER_SAMPLE,
    SI_DONE_FINAL,
    SI_ERR,
    SI_ERR_GUARD,
    SI_MODE,
    SI_NEV,
    SI_NEVENT,
    SI_NFEV,
    SI_NREC,
    SI_NREJ,
    SI_NSTEP,
    SI_NTRANS,
    SI_PENDING,
    SI_REC_K,
    SI_SAMPLE_K,
    SI_SLIDE,
    SI_SLIDE_GUARD,
    SI_STARTED,
    ST_BUDGET,
    ST_CHATTER,
    ST_CHECK_FAILED,
    ST_DONE,
    ST_EVENTS_FULL,
    ST_LOCATE_FAILED,
    ST_MODEL_ERROR,
    ST_NONFINITE,
    ST_RECORDS_FULL,
    ST_SAMPLED,
    ST_STEP_UNDERFLOW,
)
from ._steppers import _field, _initial_step, _ros_step, _slide_alpha, _state_at, _step

_ADVANCE_SIG = T.int64(
    HOOKS_T,
    T.int64[::1], T.int64[::1], T.float64[::1],
    T.float64[::1], T.int64[::1],
    T.float64[::1], T.int64[::1], T.float64[::1],
    T.float64[:, ::1], T.int64[::1],
    T.float64[:, ::1], T.int64[:, ::1],
    T.float64[::1], T.int64[::1],
)


N_WORK_NX = 18
"""Scratch vectors of length nx in ``work``: the 7 Runge–Kutta stages and 11 state buffers. One is kept
from a call to the next: at a sample instant handed to Python, ``xe`` holds the state at which K[0] was
evaluated (:func:`_advance`)."""


def work_sizes(nx: int, ng: int, ny: int) -> tuple[int, int]:
    """Lengths of the float and integer scratch vectors :func:`advance` needs (see its doc): besides
    the vectors, the Rosenbrock method's Jacobian and iteration matrix (nx × nx each), its pivots
    and the Jacobian's age."""
    return N_WORK_NX * nx + 3 * ng + ny + 2 * nx * nx, ng + nx + 2


@njit(cache=True, inline="always")
def _same(a, b):
    """Whether the vectors ``a`` and ``b`` are equal element by element (bitwise for finite values)."""
    for i in range(a.size):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True, inline="always")
def _step_after_sample(h, sf, si):
    """The first step after a sample instant that changed the state (a held command jumped): at most
    the step the error control proposed after the first step that followed the previous such
    instant. A command jump excites the fast modes anew each period (contact, stiff loops), so the
    step kept from the settled end of the period would be rejected there each time (measured: one
    rejected DP45 step per 1 ms sample on the event-contact hexapod under a PD controller). Marks the
    next accepted step as the one whose proposal is kept."""
    si[SI_AFTER_SAMPLE] = 1
    hs = sf[SF_H_SAMPLE]
    return min(h, hs) if hs > 0.0 else h


@njit(cache=True, inline="always")
def _scratch(work, iwork, nx, ng, ny):
    """Views of the scratch vectors (:func:`work_sizes`): ``(K (7, nx) Runge–Kutta stages, xs, xnew,
    xe, xr, xh, k2, k3, k4, fb, fa, xp (nx,) state buffers, g0, g1, gbuf (ng,) guard values, ybuf (ny,)
    outputs, fired (ng,) int)``; the Rosenbrock matrices follow them in ``work``."""
    K = work[:7 * nx].reshape((7, nx))
    return (K, work[7 * nx:8 * nx], work[8 * nx:9 * nx], work[9 * nx:10 * nx], work[10 * nx:11 * nx],
            work[11 * nx:12 * nx], work[12 * nx:13 * nx], work[13 * nx:14 * nx], work[14 * nx:15 * nx],
            work[15 * nx:16 * nx], work[16 * nx:17 * nx], work[17 * nx:18 * nx], work[18 * nx:18 * nx + ng],
            work[18 * nx + ng:18 * nx + 2 * ng], work[18 * nx + 2 * ng:18 * nx + 3 * ng],
            work[18 * nx + 3 * ng:18 * nx + 3 * ng + ny], iwork[:ng])


_ROSENBROCK = False
"""Whether a copy of :func:`_advance` carries the Rosenbrock step: False in the engine every run
compiles, True in its stiff variant (:func:`variant`). numba prunes the branch a False constant
guards, so the explicit engine never types the Rosenbrock step."""


def _advance(hooks, gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i, work,
             iwork):
    """Integrate until done, a buffer fills, the step budget ends, or an error.

    Data flow: (x, sf, si) -> (x, sf, si, rec[si[NREC]:], ev[si[NEV]:]); returns a status code.
    On return ``sf``/``si``/``x`` hold the state to resume from (or where the error happened).
    ``work``/``iwork`` are scratch vectors of the lengths :func:`work_sizes` gives, passed unchanged
    to every call of one run (the Rosenbrock method keeps its Jacobian in them from call to call;
    everything else is scratch); every array is used through a borrowed view (see
    :mod:`legsim._borrow`).
    """
    (gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i, work, iwork) = borrow_all(
        (gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i, work, iwork))
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
    fixed = method == M_RK4_FIXED or method == M_DP5_FIXED or method == M_EULER
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
    restart_step = opti[OI_RESTART_STEP]
    yield_every = opti[OI_YIELD_EVERY]
    nerr = opti[OI_NERR] if 0 < opti[OI_NERR] < nx else nx
    rec_cap = rec.shape[0]
    ev_cap = ev_t.shape[0]

    K, xs, xnew, xe, xr, xh, k2, k3, k4, fb, fa, xp, g0, g1, gbuf, ybuf, fired = _scratch(
        work, iwork, nx, ng, ny)
    fired[:] = 0
    if _ROSENBROCK:  # its Jacobian and iteration matrix over the ODE's states, pivots, Jacobian age
        base = 18 * nx + 3 * ng + ny
        jac = work[base:base + nerr * nerr].reshape((nerr, nerr))
        wmat = work[base + nerr * nerr:base + 2 * nerr * nerr].reshape((nerr, nerr))
        piv = iwork[ng:ng + nx]
        jac_age = iwork[ng + nx:ng + nx + 2]  # [steps since the Jacobian, ∂f/∂t ≠ 0]
        if si[SI_STARTED] == 0:
            jac_age[0] = -1  # none yet; later calls (after a controller in Python) keep the last one
    eps_t = 8.0 * 2.220446049250313e-16 * max(1.0, abs(tf), abs(t0))

    mode = si[SI_MODE]
    t = sf[SF_T]
    h = sf[SF_H]

    if si[SI_STARTED] == 0:
        if rec_cap - si[SI_NREC] < 2 or ev_cap - si[SI_NEV] < 2:
            return ST_RECORDS_FULL
        if spd > 0.0 and si[SI_SAMPLE_K] == 0:
            for i in range(nx):
                xnew[i] = x[i]
            m2 = sfn(t, x, p, mode, 0, xnew)
            if m2 < 0:
                si[SI_ERR] = m2
                return ST_MODEL_ERROR
            for i in range(nx):
                x[i] = xnew[i]
            if m2 != mode:
                _log_event(t, x, np.int64(EV_SAMPLE_MODE), np.int64(-1), mode, m2, ev_t, ev_i, si)
                mode = m2
                si[SI_MODE] = mode
            si[SI_SAMPLE_K] = 1
            if yield_every > 0:  # the controller in Python sees the first sample (k = 0)
                return ST_SAMPLED
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
            if method == M_DP45 or method == M_ROS23:
                h = _initial_step(vf, gf, si, t, x, p, mode, K[0], rtol, atol, hmax, xs, k2,
                                  fb, xp, gbuf, nerr)
            elif method == M_RK4:
                h = min(hmax, max(hmin, 1e-4))
            else:
                h = hmax
    elif si[SI_PENDING] == 0 or not _same(x, xe):
        # (after a sample instant handed to Python, K[0] still holds f(t, x) when neither the sample
        # hook nor the controller changed x: a controller holding its commands costs no evaluation)
        si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)

    gf(t, x, p, mode, g0)
    if si[SI_PENDING] == 1:
        # finish a sample instant handed to Python: its record and check see the controller's x
        si[SI_PENDING] = 0
        if rp > 0.0:
            _records_until(method, vf, gf, of, si, t, x, h, t, x, p, mode, K, k2, k3, k4,
                           xs, xr, fb, xp, gbuf, rec, rec_mode, ybuf, t0, rp, tf, eps_t)
        else:
            _record(of, t, x, p, mode, rec, rec_mode, si, ybuf)
        code = cf(t, x, p, mode)
        if code != 0:
            si[SI_ERR] = code
            return ST_CHECK_FAILED
        h = _step_after_sample(h, sf, si)  # a controller in Python has changed x
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
        if fixed:
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
            if _ROSENBROCK and method == M_ROS23:  # (the explicit variant has no such branch)
                ratio, h_next = _ros_step(vf, gf, si, t, x, h, p, mode, K, xs, xnew, fb, xp, gbuf, rtol,
                                          atol, nerr, jac, wmat, piv, jac_age)
            else:
                ratio, h_next = _step(method, vf, gf, si, t, x, h, p, mode, K, xs, xnew, xr, xh,
                                      k2, k3, k4, fb, xp, gbuf, rtol, atol, tol, power, nerr)
            if ratio <= 1.0:
                break
            si[SI_NREJ] += 1
            if _ROSENBROCK and jac_age[0] > 0:  # a Jacobian from an earlier point: evaluate it here
                jac_age[0] = -1
            if fixed or h_next < hmin:
                return ST_NONFINITE if ratio == np.inf else ST_STEP_UNDERFLOW
            h = h_next
            t_end = t + h
            clipped = False
        si[SI_NSTEP] += 1
        steps_this_call += 1
        if _ROSENBROCK and jac_age[0] >= 0:
            jac_age[0] += 1
        if si[SI_AFTER_SAMPLE] == 1:
            sf[SF_H_SAMPLE] = h_next
            si[SI_AFTER_SAMPLE] = 0
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
            if (method == M_DP45 or method == M_DP5_FIXED or method == M_ROS23) and si[SI_SLIDE] == 0:
                for i in range(nx):  # first same as last
                    K[0, i] = K[6, i]
            else:
                si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
            for j in range(ng):
                g0[j] = g1[j]
            if sampled_now:
                for i in range(nx):
                    xnew[i] = x[i]
                if yield_every > 0:  # x of K[0] into xe, for the next call if this instant goes to
                    for i in range(nx):  # Python (nothing uses xe between here and that return)
                        xe[i] = x[i]
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
                    _log_event(t, x, np.int64(EV_SAMPLE_MODE), np.int64(-1), mode, m2, ev_t, ev_i, si)
                    mode = m2
                    si[SI_SLIDE] = 0
                if yield_every > 0 and (si[SI_SAMPLE_K] - 1) % yield_every == 0:
                    si[SI_PENDING] = 1  # the next call re-evaluates the field at the new x
                    sf[SF_T] = t
                    sf[SF_H] = h_next
                    si[SI_MODE] = mode
                    return ST_SAMPLED
                if changed:
                    si[SI_NFEV] += _field(vf, gf, si, t, x, p, mode, K[0], fb, xp, gbuf)
                    gf(t, x, p, mode, g0)
                    h_next = _step_after_sample(h_next, sf, si)
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
            ok, lo, hi, fb_hi = _locate(method, vf, gf, si, j, t, x, h, p, mode, K, k2, k3, k4,
                                        xs, xe, fb, xp, gbuf, fa, ga, gb, hi,
                                        gdir[j] if j >= 0 else -1, place, prec, max_iter, eps_t)
            if not ok:
                si[SI_ERR_GUARD] = j
                return ST_LOCATE_FAILED
            alone = best == -2  # the first crossing found, and no later guard crossed either
            for i in range(j + 1, ng):
                alone = alone and not (_armed(si, i) and _crossed(g0[i], ghi[i], gdir[i]))
            best = j
            best_lo = lo
            if alone:
                # only j fires: the others keep their uncrossed values from the step's end
                if j >= 0:
                    g1[j] = fb_hi
                break
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
            _log_event(te, xe, np.int64(EV_SLIDE_END), kg, mode_before, mode, ev_t, ev_i, si)
        else:
            m2 = rf(te, xe, p, mode, fired, xnew)
            if m2 < 0:
                si[SI_ERR] = m2
                sf[SF_T] = te
                return ST_MODEL_ERROR
            mode = m2
            _log_event(te, xe, np.int64(EV_GUARD), best, mode_before, mode, ev_t, ev_i, si)
            si[SI_NEVENT] += 1
            if mode != mode_before:
                si[SI_NTRANS] += 1
            if sliding == 1 and mode != mode_before and si[SI_SLIDE] == 0:
                if _try_slide(vf, gf, rf, si, te, xnew, p, mode_before, mode, best, gdir, g0[best],
                              fired, gbuf, fa, fb, xr, xp, g1, slide_tol):
                    _log_event(te, xe, np.int64(EV_SLIDE_START), best, mode_before, mode, ev_t, ev_i, si)
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
        if _ROSENBROCK:
            jac_age[0] = -1
        h = h_next
        if method == M_DP45 and mode != mode_before and restart_step != 0:
            h = min(h, _initial_step(vf, gf, si, t, x, p, mode, K[0], rtol, atol, hmax, xs, k2,
                                     fb, xp, gbuf, nerr))
            si[SI_NFEV] += 1


_VARIANTS: dict = {}


def variant(rosenbrock: bool):
    """The integration loop :func:`_advance` compiled (at the first call; cached on disk) without the
    Rosenbrock method (``advance``: every explicit method, what nearly every run uses) or with it
    (``advance_stiff``). A copy of the function with ``_ROSENBROCK`` set in its globals, named after
    the variant so that numba caches the two apart; the Rosenbrock branch of the explicit one is
    pruned at compile time (measured: 11.2–11.6 s cold with one loop carrying both, 14.5–15.3 s)."""
    fn = _VARIANTS.get(bool(rosenbrock))
    if fn is None:
        name = "advance_stiff" if rosenbrock else "advance"
        py = types.FunctionType(_advance.__code__, dict(globals(), _ROSENBROCK=bool(rosenbrock)), name)
        py.__qualname__ = name
        py.__doc__ = _advance.__doc__
        fn = _VARIANTS[bool(rosenbrock)] = njit(_ADVANCE_SIG, cache=True, error_model="numpy")(py)
    return fn
