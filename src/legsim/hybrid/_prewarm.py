"""Compile, in a first run's own process, the engine's callees that the engine's compile reaches last.

On a first run of a model with its own hooks (the SLIP, the SimSect hexapod: not a robot from parts), a
second process compiles the engine (:func:`legsim._compiling.compile_in_background`), the critical path
of the run (~16 s cold), while this process compiles the model's hooks (~5 s for the hexapod) and then
waits. The engine's compile types its callees from ~3 s to ~8 s in, then lowers its own loop. Importing
this module compiles :func:`late_callees`, whose only work is a call of each of those callees in the order
the engine's compile reaches them (the interpolated records with the RK4 re-step and the field, the
sliding factor, the event location, the Filippov test), with exactly the argument types they get in
:func:`._kernels._advance`, so that numba caches those overloads before the second process gets to them:
it loads them instead of compiling them (:func:`legsim._compiling.engine_callees`; DESIGN.md "Compile
time"). If it gets there first, both compile them (numba writes each cache file atomically): nothing is
lost but the time. Measured cold (empty caches): the Quickstart's ``legsim demo`` 21.0-23.3 -> 18.1-18.2 s,
``legsim run`` of the SLIP 16.6-16.8 -> 13.1-14.0 s. A test checks that the types are the engine's.

:func:`late_callees` is never called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._events import _locate, _records_until, _try_slide
from ._kernels import _ADVANCE_SIG, _scratch
from ._layout import (
    OF_REC_PERIOD,
    OF_SLIDE_TOL,
    OF_STOP_PREC,
    OF_T0,
    OF_TF,
    OI_MAX_STOP_ITER,
    OI_METHOD,
    SF_H,
    SF_T,
    SI_MODE,
)
from ._steppers import _slide_alpha


@njit(_ADVANCE_SIG, cache=True, error_model="numpy")
def late_callees(hooks, gdir, gplace, p, optf, opti, sf, si, x, rec, rec_mode, ev_t, ev_i, work,
                 iwork):  # pragma: no cover - a compile driver, never called
    """One call of each late callee of :func:`._kernels._advance`, its arguments typed as there (the
    hooks, the views of :func:`._kernels._scratch`, the scalars read from the same arrays, guard indices
    int64; borrowing the arrays, as the engine does, does not change their types)."""
    vf, gf = hooks.vector_field, hooks.guards
    K, xs, xnew, xe, xr, xh, k2, k3, k4, fb, fa, xp, g0, g1, gbuf, ybuf, fired = _scratch(
        work, iwork, x.size, gdir.size, rec.shape[1] - 1 - x.size)
    method = opti[OI_METHOD]
    t = sf[SF_T]
    h = sf[SF_H]
    mode = si[SI_MODE]
    j = np.int64(0)
    place = gplace[j]
    eps_t = 8.0 * 2.220446049250313e-16 * max(1.0, abs(optf[OF_TF]), abs(optf[OF_T0]))
    _records_until(method, vf, gf, hooks.outputs, si, t, x, h, t, xe, p, mode, K, k2, k3, k4, xs, xr, fb, xp,
                   gbuf, rec, rec_mode, ybuf, optf[OF_T0], optf[OF_REC_PERIOD], optf[OF_TF], eps_t)
    _slide_alpha(vf, gf, si, t, xnew, p, mode, fa, fb, xp, gbuf)
    _locate(method, vf, gf, si, j, t, x, h, p, mode, K, k2, k3, k4, xs, xe, fb, xp, gbuf, fa, g0[j], g1[j],
            h, gdir[j] if j >= 0 else -1, place, optf[OF_STOP_PREC], opti[OI_MAX_STOP_ITER], eps_t)
    _try_slide(vf, gf, hooks.reset, si, t, xnew, p, mode, mode, j, gdir, g0[j], fired, gbuf, fa, fb, xr, xp,
               g1, optf[OF_SLIDE_TOL])
    return 0
