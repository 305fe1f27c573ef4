"""Any legsim hybrid model under scipy.integrate.solve_ivp (the benchmark's peer).

The same compiled hooks (vector field, guards, reset) are called from Python: solve_ivp RK45
integrates each epoch with one terminal event per active guard (direction as declared) and is
restarted after the model's reset, the way hybrid systems are usually run with solve_ivp.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp


@dataclass
class ScipyRun:
    t_events: np.ndarray
    x_events: np.ndarray
    t_final: float
    x_final: np.ndarray
    nfev: int
    mode: int


def simulate_scipy(model, t_final, x0, p, mode, rtol, atol, max_step=np.inf, method="RK45"):
    """Integrate ``model`` from (0, x0, mode) to ``t_final`` with solve_ivp; see module doc."""
    vf, gf, rf = model.vector_field, model.guard_values, model.reset
    nx, ng = model.nx, model.nguard
    p = np.ascontiguousarray(p, dtype=float)
    direction = model.guard_direction
    xdot = np.empty(nx)
    gbuf = np.empty(ng)
    state = {"mode": int(mode)}

    def f(t, x):
        vf(t, np.ascontiguousarray(x), p, state["mode"], xdot)
        return xdot.copy()

    def make_event(j):
        def e(t, x):
            gf(t, np.ascontiguousarray(x), p, state["mode"], gbuf)
            return gbuf[j]
        e.terminal = True
        e.direction = float(direction[j])
        return e

    events = [make_event(j) for j in range(ng)]
    t = 0.0
    x = np.array(x0, dtype=float)
    t_ev, x_ev = [], []
    nfev = 0
    while t < t_final:
        gf(t, x, p, state["mode"], gbuf)
        active = [j for j in range(ng) if np.isfinite(gbuf[j])]
        sol = solve_ivp(f, (t, t_final), x, method=method, rtol=rtol, atol=atol, max_step=max_step,
                        events=[events[j] for j in active])
        nfev += sol.nfev
        if sol.status != 1:
            x = sol.y[:, -1]
            t = t_final
            break
        te = min(sol.t_events[k][0] for k in range(len(active)) if sol.t_events[k].size)
        fired = np.zeros(ng, dtype=np.int64)
        xe = None
        for k, j in enumerate(active):
            if sol.t_events[k].size and sol.t_events[k][0] == te:
                fired[j] = 1
                xe = sol.y_events[k][0]
        xe = np.ascontiguousarray(xe)
        x_new = xe.copy()
        new_mode = rf(te, xe, p, state["mode"], fired, x_new)
        if new_mode < 0:
            raise RuntimeError(f"model error {new_mode} at t = {te}")
        t_ev.append(te)
        x_ev.append(xe)
        state["mode"] = int(new_mode)
        x, t = x_new, te
    return ScipyRun(np.array(t_ev), np.array(x_ev), t, x, nfev, state["mode"])
