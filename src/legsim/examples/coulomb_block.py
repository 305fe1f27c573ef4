"""A block under Coulomb friction pushed by F(t) = F0 sin(ωt): the textbook sliding-mode system.

State x = [position (m), velocity v (m/s)]. Mode 0 slides forward (v > 0, friction −μmg), mode 1
slides backward (v < 0, friction +μmg); each mode's guard is the velocity crossing zero, and the
reset changes nothing but the mode. On v = 0 with |F| < μmg both vector fields point into the
surface: the physical motion is sticking, which is the Filippov solution (α = (μmg − F)/(2μmg),
dv/dt = 0). Without sliding, the engine chatters between the modes, as SimSect did (digest §4.15).

The exact motion from rest: stick until F0 sin(ωt) = μmg, then v(t) = F0/(mω)(cos ωt₁ − cos ωt)
− μg(t − t₁) until v returns to zero, and so on; tests compare against this.
"""

from __future__ import annotations

import math

import numpy as np

from legsim import hybrid
from legsim.hybrid import signatures as hs

P_M, P_MU, P_G, P_F0, P_W = range(5)


@hs.vector_field(allocates=False)
def block_field(t, x, p, mode, xdot):
    force = p[P_F0] * math.sin(p[P_W] * t)
    friction = p[P_MU] * p[P_M] * p[P_G]
    xdot[0] = x[1]
    xdot[1] = (force - friction) / p[P_M] if mode == 0 else (force + friction) / p[P_M]


@hs.guards(allocates=False)
def block_guards(t, x, p, mode, g):
    g[0] = x[1] if mode == 0 else hs.INACTIVE   # forward sliding ends when v falls through 0
    g[1] = -x[1] if mode == 1 else hs.INACTIVE  # backward sliding ends when v rises through 0


@hs.reset(allocates=False)
def block_reset(t, x, p, mode, fired, x_new):
    return 1 if fired[0] == 1 else 0


def init_partition(x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, int]:
    """Forward-sliding mode unless the block moves backward."""
    return x, 1 if x[1] < 0 else 0


def build_model() -> hybrid.Model:
    """m = 1 kg, μ = 0.5, g = 9.81, F0 = 8 N, ω = 2 rad/s (F0 > μmg: stick–slip)."""
    return hybrid.Model(
        name="coulomb_block", state_names=("x", "v"), state_defaults=np.array([0.0, 0.0]),
        param_names=("mass", "mu", "g", "F0", "omega"),
        param_defaults=np.array([1.0, 0.5, 9.81, 8.0, 2.0]),
        guards=(hybrid.Guard("forward_stop"), hybrid.Guard("backward_stop")),
        output_names=(), vector_field=block_field, guard_values=block_guards, reset=block_reset,
        init_partition=init_partition, mode_name=lambda m: ("forward", "backward")[m],
        description="Coulomb-friction block under a sinusoidal force (Filippov sliding example)",
        path_states=None,
        param_ranges={"mass": hybrid.positive("kg"), "mu": hybrid.nonnegative(doc="Coulomb coefficient"),
                      "g": hybrid.nonnegative("m/s^2"), "F0": hybrid.ParamRange("N", doc="force amplitude"),
                      "omega": hybrid.nonnegative("rad/s", "force frequency")},
    )
