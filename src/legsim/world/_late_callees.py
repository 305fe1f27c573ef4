"""Compile, in a first run's second process, the callees that RobotWorld's loop compile reaches last.

A first ``RobotWorld.simulate`` on a machine compiles the loop (:func:`._kernels.run`) for ~73 s on this
2-core VM. Its per-step evaluation (:func:`._kernels.evaluate`) types its callees in order: the
kinematics, the contact detection (``collide``, ~30 s, reached ~7 s in), then the contact forces (Euler's
and RK4's), the joint targets and the world-coordinate ABA (``forward_dynamics_world``, ~11 s), from ~37 s
in. Importing this module compiles :func:`late_callees`, a call of each of those last five with exactly
the argument types they get in :func:`._kernels.evaluate`, on the one-body world (:mod:`._one_body`,
whose arguments have every world's types). ``RobotWorld.simulate`` has a second process import it
(:func:`legsim._compiling.compile_in_background`) while the first compiles the loop, which then loads
them (~16 s of its compile). If it gets there first, both compile them: nothing is lost but the time. A
test checks that the types are the loop's.

:func:`late_callees` is compiled, never called.
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof

from .._fastmath import FASTMATH
from ..contact._response import contact_forces
from ..multibody._aba_world import forward_dynamics_world
from ._kernels import _target, rk4_commit_forces, rk4_stage_forces
from ._one_body import one_body_world


@njit(cache=True, fastmath=FASTMATH)
def late_callees(m, d, cm, c, wk, s, w, q, v, t, h):  # pragma: no cover - a compile driver
    """The late callees of :func:`._kernels.evaluate`, called as there (its ``c``, ``s``, ``w`` fields;
    the RK4 stage's ``cst h`` and weight as float products; ``ddq`` its ``kv``)."""
    contact_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, t, h, w.force)
    rk4_commit_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, t, h, w.adelta, w.ads, w.force)
    rk4_stage_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, 0.5 * h, 2.0 * h / 6.0, w.adelta, w.ads, w.force)
    _target(w, t, w.act_dof.shape[0])
    return forward_dynamics_world(m, d, q, v, w.tau, w.fext, w.kv)


_world = one_body_world()
_state = [np.ascontiguousarray(x, dtype=float).copy() for x in (_world.q, _world.v)]  # as simulate() has them
late_callees.compile(tuple(typeof(a) for a in (*_world.kernel_buffers(), *_state, 0.0, 1e-3)))
