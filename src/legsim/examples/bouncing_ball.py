"""A ball bouncing on the ground: the worked example of ``docs/writing-a-model.md``.

State x = [height y (m), vertical velocity v (m/s)]; parameters g (m/s²) and the coefficient
of restitution e. One mode ("flight"), one guard (y falling through 0), and a reset v ← −e·v.
Between impacts y(t) = y0 + v0 t − g t²/2, so every event time is known in closed form.
"""

from __future__ import annotations

import numpy as np

from legsim import hybrid
from legsim.hybrid import signatures as hs


@hs.vector_field(allocates=False)
def ball_field(t, x, p, mode, xdot):
    xdot[0] = x[1]
    xdot[1] = -p[0]


@hs.guards(allocates=False)
def ball_guards(t, x, p, mode, g):
    g[0] = x[0]  # height above the ground: positive in flight


@hs.reset(allocates=False)
def ball_reset(t, x, p, mode, fired, x_new):
    x_new[0] = 0.0
    x_new[1] = -p[1] * x[1]
    return mode


@hs.outputs(allocates=False)
def ball_outputs(t, x, p, mode, y):
    y[0] = 0.5 * x[1] * x[1] + p[0] * x[0]  # energy per unit mass


def build_model(placement: hybrid.Placement = hybrid.Placement.RIGHT) -> hybrid.Model:
    """The bouncing ball (default: dropped from 1 m, g = 9.81, e = 0.9)."""
    return hybrid.Model(
        name="bouncing_ball",
        state_names=("y", "v"),
        state_defaults=np.array([1.0, 0.0]),
        param_names=("g", "e"),
        param_defaults=np.array([9.81, 0.9]),
        guards=(hybrid.Guard("ground", hybrid.Direction.FALLING, placement),),
        output_names=("energy",),
        vector_field=ball_field,
        guard_values=ball_guards,
        reset=ball_reset,
        outputs=ball_outputs,
        mode_name=lambda m: "flight",
        param_ranges={"g": hybrid.nonnegative("m/s^2", "gravity"),
                      "e": hybrid.between(0.0, 1.0, doc="coefficient of restitution")},
    )
