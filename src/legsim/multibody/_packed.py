"""Kernel entry points taking flat buffers (``fbuf``, ``ibuf`` of the model, ``dbuf`` of the data).

Calling a numba function from Python costs about 0.1-0.2 us per array argument it unboxes; the model
and data named tuples hold ~50 arrays. These wrappers take the three buffers instead, rebuild the
named tuples of views inside compiled code (no allocation) and call the kernels of
:mod:`legsim.multibody._kernels`. Results land in the data arrays (``ddq``, ``tau``, ``M``, ``J``,
``qfrc_passive``, ``oR``/``op``/``v``/``a``) that the Python-side ``DataArrays`` views. Pass
``data.zero_nv`` / ``data.zero_nb6`` for absent velocities or external wrenches (one compiled
specialisation per entry point keeps the cold compile short).
"""

from __future__ import annotations

from numba import njit

from . import _configuration as C
from . import _kernels as K
from ._layout import data_from_buffer, model_from_buffers


@njit(cache=True)
def _md(fbuf, ibuf, dbuf):
    return model_from_buffers(fbuf, ibuf), data_from_buffer(dbuf, ibuf[0], ibuf[1])


@njit(cache=True)
def forward_kinematics(fbuf, ibuf, dbuf, q, v, a):
    """Placements, twists and accelerations of all bodies."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.forward_kinematics(m, d, q, v, a)


@njit(cache=True)
def rnea(fbuf, ibuf, dbuf, q, v, a, fext):
    """Inverse dynamics into ``d.tau``."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.rnea(m, d, q, v, a, fext, d.tau)


@njit(cache=True)
def crba(fbuf, ibuf, dbuf, q):
    """Mass matrix into ``d.M``."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.crba(m, d, q, d.M)


@njit(cache=True)
def aba(fbuf, ibuf, dbuf, q, v, tau, fext):
    """Forward dynamics into ``d.ddq``; False if an articulated inertia is singular."""
    m, d = _md(fbuf, ibuf, dbuf)
    return K.aba(m, d, q, v, tau, fext, d.ddq)


@njit(cache=True)
def forward_dynamics(fbuf, ibuf, dbuf, q, v, tau, fext):
    """Passive joint forces + ABA into ``d.ddq``; False if an articulated inertia is singular."""
    m, d = _md(fbuf, ibuf, dbuf)
    return K.forward_dynamics(m, d, q, v, tau, fext, d.ddq)


@njit(cache=True)
def passive_forces(fbuf, ibuf, dbuf, q, v):
    """Joint passive forces into ``d.qfrc_passive``."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.passive_forces(m, q, v, d.qfrc_passive)


@njit(cache=True)
def frame_jacobian(fbuf, ibuf, dbuf, q, fid, reference):
    """Placements at ``q`` and the frame Jacobian into ``d.J``."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.joint_placements(m, d, q)
    K.frame_jacobian(m, d, fid, reference, d.J)


@njit(cache=True)
def frame_velocity(fbuf, ibuf, dbuf, fid, reference, out):
    """Frame twist (after forward kinematics) into ``out`` (6,)."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.frame_velocity(m, d, fid, reference, out)


@njit(cache=True)
def frame_placement(fbuf, ibuf, dbuf, fid, R, p):
    """World placement of a frame (after forward kinematics) into ``R`` (3, 3), ``p`` (3,)."""
    m, d = _md(fbuf, ibuf, dbuf)
    K.frame_world_placement(m, d, fid, R, p)


@njit(cache=True)
def qdot(fbuf, ibuf, q, v, out):
    """Configuration rate into ``out`` (nq,)."""
    C.qdot(model_from_buffers(fbuf, ibuf), q, v, out)


@njit(cache=True)
def integrate(fbuf, ibuf, q, v, dt, out):
    """``q (+) v dt`` into ``out`` (nq,)."""
    C.integrate(model_from_buffers(fbuf, ibuf), q, v, dt, out)
