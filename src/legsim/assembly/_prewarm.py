"""Compile, in a second process, the part of the assembly's hooks that their own compile reaches last.

Importing this module compiles :func:`joint_accelerations`, whose only work is the two calls of
:func:`._kernels.dynamics` that end it: the world-coordinate ABA
(:func:`legsim.multibody._aba_world.forward_dynamics_world`, robots without closed loops) and the
projected tree dynamics (:func:`legsim.multibody._explicit.explicit_dynamics`, with closed loops), with
exactly the argument types they get inside the hooks, so that numba caches those overloads. On a first
run of a robot from parts, a second process imports this module before compiling the engine
(:func:`legsim._compiling.compile_in_background`) while the first compiles the hooks (``._hooks``): their
compile reaches the two calls about 25 s in (after the guards, the reset hook and the actuator stage),
and the second process has both cached after about 23 s, so the first loads them instead of compiling
them (DESIGN.md "Compile time"). If the first gets there earlier, both compile them (numba writes each
cache file atomically): nothing is lost but the time.

:func:`joint_accelerations` is never called.
"""

from __future__ import annotations

import numba as nb

from .._borrow import borrow_all
from ..hybrid import signatures as hs
from ..multibody._aba_world import forward_dynamics_world
from ..multibody._explicit import explicit_dynamics
from . import _kernels as K
from . import _layout as L


@nb.njit(hs.FLOW_SIG, cache=True, nogil=True)
def joint_accelerations(t, x, p, mode, xdot):  # pragma: no cover - a compile driver, never called
    """The two ways :func:`._kernels.dynamics` ends, on the hooks' workspace (``x`` has the type of the
    hooks' closed state, :func:`._kernels.closed`)."""
    x, p, xdot = borrow_all((x, p, xdot))
    m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.workspace(p)
    nq = int(p[L.P_NQ])
    q, v = x[:nq], x[nq:nq + int(p[L.P_NV])]
    forward_dynamics_world(m, d, q, v, d.tau, fext, d.ddq)
    src, g, conv, r, fb, A, y = K.loop_workspace(p)
    explicit_dynamics(m, d, q, v, d.tau, fext, src, g, conv, r, fb, A, y, d.ddq)
