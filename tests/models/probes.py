"""Event probes: models whose guards cross at instants known exactly in advance.

Every model here has a clock state s with ds/dt = 1 (so s = t when s(0) = 0) and bookkeeping states
that the reset writes, so a test can read back which guards fired and when.

* :func:`build_tie` — guards a: T0 − s, b: (T1 − s)(1 + s²), c: 2 (T1 − s). Guards b and c cross at
  the same instant T1 (b is not a multiple of c, so they are not numerically identical); a crosses
  at T0. The reset adds 1 to the counter state of every guard in ``fired`` and stores the event time.
* :func:`build_wave` — one guard cos(2π s) with a chosen direction; rising zeros are at
  s = 3/4 + k, falling zeros at s = 1/4 + k. The reset counts events.
* :func:`build_nan_guard` — guards that are NaN (inactive) on part of the path: one is NaN for
  s < 1/2 and then −1 (it appears already negative: must not fire), one is NaN for s < 1/2 and then
  1 − s (it appears positive, and must fire at s = 1), one is NaN always.
"""

from __future__ import annotations

import math

from legsim import hybrid
from legsim.hybrid import signatures as hs

# ---------------------------------------------------------------- ties and ordering
# state: s, count_a, count_b, count_c, t_a, t_b, t_c, n_events


@hs.vector_field
def clock_field(t, x, p, mode, xdot):
    """ds/dt = 1; bookkeeping states are constant (derivative 0). Units: s [s]."""
    for i in range(x.size):
        xdot[i] = 0.0
    xdot[0] = 1.0


@hs.guards
def tie_guards(t, x, p, mode, g):
    """a = T0 − s, b = (T1 − s)(1 + s²), c = 2 (T1 − s); all falling through zero."""
    s = x[0]
    g[0] = p[0] - s
    g[1] = (p[1] - s) * (1.0 + s * s)
    g[2] = 2.0 * (p[1] - s)


@hs.reset
def tie_reset(t, x, p, mode, fired, x_new):
    """Count each fired guard (states 1..3), store its firing time (4..6), count events (7)."""
    for j in range(3):
        if fired[j] == 1:
            x_new[1 + j] = x[1 + j] + 1.0
            x_new[4 + j] = t
    x_new[7] = x[7] + 1.0
    return mode


def build_tie(t0_fire: float = 0.4, t1_fire: float = 0.7) -> hybrid.Model:
    """Clock with guards crossing at T0 (a) and together at T1 (b and c)."""
    return hybrid.Model(
        name="tie_probe",
        state_names=("s", "count_a", "count_b", "count_c", "t_a", "t_b", "t_c", "n_events"),
        state_defaults=[0.0] * 4 + [-1.0] * 3 + [0.0],
        param_names=("T0", "T1"), param_defaults=[t0_fire, t1_fire],
        guards=(hybrid.Guard("a"), hybrid.Guard("b"), hybrid.Guard("c")),
        output_names=(), vector_field=clock_field, guard_values=tie_guards, reset=tie_reset,
    )


# ---------------------------------------------------------------- direction
# state: s, n_events


@hs.guards
def wave_guards(t, x, p, mode, g):
    """g = cos(2π s)."""
    g[0] = math.cos(2.0 * math.pi * x[0])


@hs.reset
def count_reset(t, x, p, mode, fired, x_new):
    """Count events in the last state."""
    x_new[x.size - 1] = x[x.size - 1] + 1.0
    return mode


def build_wave(direction: hybrid.Direction) -> hybrid.Model:
    """Clock with the guard cos(2π s) watched in ``direction``."""
    return hybrid.Model(
        name="wave_probe", state_names=("s", "n_events"), state_defaults=[0.0, 0.0],
        param_names=(), param_defaults=[],
        guards=(hybrid.Guard("wave", direction),), output_names=(),
        vector_field=clock_field, guard_values=wave_guards, reset=count_reset,
    )


# ---------------------------------------------------------------- inactive guards
# state: s, n_events


@hs.guards
def nan_guards(t, x, p, mode, g):
    """g0: NaN then −1 (appears crossed); g1: NaN then 1 − s; g2: always NaN."""
    s = x[0]
    g[0] = hs.INACTIVE if s < 0.5 else -1.0
    g[1] = hs.INACTIVE if s < 0.5 else 1.0 - s
    g[2] = hs.INACTIVE


def build_nan_guard() -> hybrid.Model:
    """Clock with guards that are inactive (NaN) on part of the path or always."""
    return hybrid.Model(
        name="nan_probe", state_names=("s", "n_events"), state_defaults=[0.0, 0.0],
        param_names=(), param_defaults=[],
        guards=(hybrid.Guard("appears_negative"), hybrid.Guard("appears_positive"),
                hybrid.Guard("never")),
        output_names=(), vector_field=clock_field, guard_values=nan_guards, reset=count_reset,
    )
