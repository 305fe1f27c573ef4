"""A 2-D relay system with a known sliding motion: first-order sliding-mode control of a double
integrator (Utkin, *Sliding Modes in Control and Optimization*, 1992, ch. 1; Slotine & Li,
*Applied Nonlinear Control*, §7.1).

State [x1 (m), x2 (m/s)], ẋ1 = x2, ẋ2 = u with the relay u = −M sgn(s), s = x2 + c x1.
Mode 0 is s > 0 (u = −M), mode 1 is s < 0 (u = +M); each mode's guard is its sign of s falling
through zero and the reset only switches the mode. On s = 0 the equivalent control is
u_eq = −c x2 = c² x1, inside (−M, M) while c² |x1| < M, so the motion slides along s = 0 with
x1(t) = x1(ts) exp(−c (t − ts)) and x2 = −c x1.
"""

from __future__ import annotations

import numpy as np

from legsim import hybrid
from legsim.hybrid import signatures as hs


@hs.vector_field
def relay_field(t, x, p, mode, xdot):
    """ẋ1 = x2, ẋ2 = −M (mode 0) or +M (mode 1). Parameters p = [M, c]."""
    xdot[0] = x[1]
    xdot[1] = -p[0] if mode == 0 else p[0]


@hs.guards
def relay_guards(t, x, p, mode, g):
    """g0 = s in mode 0, g1 = −s in mode 1 (NaN otherwise)."""
    s = x[1] + p[1] * x[0]
    g[0] = s if mode == 0 else hs.INACTIVE
    g[1] = -s if mode == 1 else hs.INACTIVE


@hs.reset
def relay_reset(t, x, p, mode, fired, x_new):
    """Crossing s = 0 switches the relay."""
    return 1 if fired[0] == 1 else 0


def _init(x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, int]:
    return x, 0 if x[1] + p[1] * x[0] > 0 else 1


def build_relay() -> hybrid.Model:
    """M = 2 m/s², c = 1 /s, start (x1, x2) = (1, 0.5): reaches s = 0 and slides."""
    return hybrid.Model(
        name="smc_relay", state_names=("x1", "x2"), state_defaults=[1.0, 0.5],
        param_names=("M", "c"), param_defaults=[2.0, 1.0],
        guards=(hybrid.Guard("s_falls"), hybrid.Guard("s_rises")), output_names=(),
        vector_field=relay_field, guard_values=relay_guards, reset=relay_reset,
        init_partition=_init,
    )
