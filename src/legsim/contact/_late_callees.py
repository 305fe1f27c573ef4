"""Compile, in a first run's second process, the callees that RigidWorld's loop compile reaches last.

A first ``RigidWorld.simulate`` on a machine compiles the loop (:func:`._bodies.run`) for ~39 s on this
2-core VM. The contact detection (:func:`._collide.collide`, ~30 s of it) types the plane and mesh terrains
first, then the height-field terrain (``height_body``, ~2.6 s, reached ~16 s in) and the broad phase of
many body geoms (``_grid_pairs``, ~7.5 s, ~18 s in); the loop then types the contact forces
(:func:`._response.contact_forces`, ~2.9 s, ~31 s in). Importing this module compiles :func:`late_callees`,
a call of each of those three with exactly the argument types they get there, on the sphere world
(:mod:`._one_sphere`, whose arguments have every world's types). ``RigidWorld.simulate`` has a second
process import it (:func:`legsim._compiling.compile_in_background`) while the first compiles the loop,
which then loads them. If it gets there first, both compile them: nothing is lost but the time. A test
checks that the types are the loop's.

:func:`late_callees` is compiled, never called.
"""

from __future__ import annotations

import numpy as np
from numba import njit, typeof

from . import _geom as G
from ._collide import _grid_pairs
from ._narrow import height_body
from ._one_sphere import sphere_world
from ._response import contact_forces


@njit(cache=True)
def late_callees(m, gpos, grot, c, wk, ncode, fcode, prm, s, vrel, t, dt, force):  # pragma: no cover
    """The late callees of :func:`._collide.collide` and :func:`._bodies.run`, called as there (the shape
    view of ``m``, geom indices int64, the rows of the geoms' world poses)."""
    sv = G.shape_view(m)
    g = np.int64(0)
    height_body(m, sv, c, g, g, gpos[g], grot[g])
    _grid_pairs(m, sv, c, wk, gpos, grot)
    contact_forces(c, ncode, fcode, prm, s, vrel, t, dt, force)
    return 0


def _arguments() -> tuple:
    """The driver's arguments as ``RigidWorld.simulate`` passes them to its loop, for the sphere world."""
    world = sphere_world()
    world._compile()
    a, ng, cap = world._arrays, len(world._arrays["m"].gtype), world.capacity
    return (a["m"], np.zeros((ng, 3)), np.zeros((ng, 3, 3)), world._contacts, world._work, a["ncode"],
            a["fcode"], a["prm"], world._state, np.zeros((cap, 3)), 0.0, 1e-5, np.zeros((cap, 3)))


late_callees.compile(tuple(typeof(a) for a in _arguments()))
