"""Memory layout shared by the kernels: the model and data named tuples and the joint/frame codes.

Both live in flat buffers: a model is two read-only buffers (``fbuf`` float64, ``ibuf`` int64 whose
first three entries are ``nb, nv, nf``) unpacked by :func:`model_from_buffers`; a data workspace is
one float64 buffer unpacked by :func:`data_from_buffer`. Passing three buffers instead of ~50 arrays
keeps the cost of calling a compiled kernel from Python near 1 us.

:class:`ModelArrays` holds the read-only arrays of a compiled model; :class:`DataArrays` the
scratch the kernels write. :func:`data_from_buffer` carves a ``DataArrays`` out of one flat float64
buffer inside compiled code: a hybrid-engine hook (whose globals numba freezes read-only) can then
get writable scratch with a single ``np.empty(data_buffer_size(nb, nv))`` per call, or reuse a
buffer it owns.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._borrow import view_c

JOINT_NONE = 0
JOINT_FREE = 1
JOINT_REVOLUTE = 2
JOINT_PRISMATIC = 3

REF_WORLD = 0
REF_LOCAL_WORLD_ALIGNED = 1
REF_LOCAL = 2


class ModelArrays(NamedTuple):
    """Read-only model arrays passed to the kernels (shapes: nb = nbody incl. world, nv, nf = nframe)."""

    body_parent: np.ndarray  # (nb,) int64, -1 for the world
    jnt_type: np.ndarray  # (nb,) int64, JOINT_* codes
    jnt_qposadr: np.ndarray  # (nb,) int64, first q index of the joint (-1 for world)
    jnt_dofadr: np.ndarray  # (nb,) int64, first v index of the joint (-1 for world)
    jnt_nv: np.ndarray  # (nb,) int64, DoF count of the joint
    jnt_R: np.ndarray  # (nb, 3, 3) joint placement rotation in the parent body frame
    jnt_p: np.ndarray  # (nb, 3) joint placement origin in the parent body frame, m
    jnt_axis: np.ndarray  # (nb, 3) unit axis in the joint frame (revolute, prismatic)
    body_I: np.ndarray  # (nb, 6, 6) spatial inertia about the body origin, body axes
    dof_S: np.ndarray  # (nv, 6) motion subspace column of each DoF, body axes
    dof_axis: np.ndarray  # (nv,) int64, k if dof_S[dof] is the unit vector e_k, else -1 (unit_axis_codes)
    dof_body: np.ndarray  # (nv,) int64 body of each DoF
    dof_qposadr: np.ndarray  # (nv,) int64 q index of a 1-DoF joint's coordinate, -1 for free joints
    dof_armature: np.ndarray  # (nv,) reflected rotor inertia added to the mass matrix diagonal
    dof_damping: np.ndarray  # (nv,) viscous joint damping, N m s/rad or N s/m
    dof_frictionloss: np.ndarray  # (nv,) Coulomb joint friction magnitude, N m or N
    dof_limited: np.ndarray  # (nv,) int64, 1 if the limit law is active
    dof_range: np.ndarray  # (nv, 2) lower/upper limit, rad or m
    dof_limit_stiffness: np.ndarray  # (nv,) limit spring, N m/rad or N/m
    dof_limit_damping: np.ndarray  # (nv,) limit damper, N m s/rad or N s/m
    gravity: np.ndarray  # (3,) m/s^2
    opt: np.ndarray  # (1,) [friction_velocity (m/s or rad/s)]
    frame_body: np.ndarray  # (nf,) int64
    frame_R: np.ndarray  # (nf, 3, 3) frame rotation in its body frame
    frame_p: np.ndarray  # (nf, 3) frame origin in its body frame, m


class DataArrays(NamedTuple):
    """Preallocated per-evaluation state and scratch written by the kernels (all views of ``buf``)."""

    buf: np.ndarray  # (data_buffer_size(nb, nv),) the flat float64 buffer everything below views
    liR: np.ndarray  # (nb, 3, 3) body rotation in its parent for the current q
    lip: np.ndarray  # (nb, 3) body origin in its parent, m
    oR: np.ndarray  # (nb, 3, 3) body rotation in the world
    op: np.ndarray  # (nb, 3) body origin in the world, m
    v: np.ndarray  # (nb, 6) body twist, body axes
    ov: np.ndarray  # (nb, 6) body spatial velocity, world coordinates (about the world origin)
    a: np.ndarray  # (nb, 6) body spatial acceleration (including -g), body axes
    c: np.ndarray  # (nb, 6) velocity-product acceleration
    f: np.ndarray  # (nb, 6) body wrench (RNEA)
    IA: np.ndarray  # (nb, 6, 6) articulated / composite inertia
    pA: np.ndarray  # (nb, 6) articulated bias force
    Dinv: np.ndarray  # (nb, 6, 6) ABA's D^-1 (free root joint: the Cholesky factor of D instead)
    U: np.ndarray  # (nv, 6) IA S columns
    oS: np.ndarray  # (nv, 6) motion subspace columns, world coordinates (_aba_world)
    u: np.ndarray  # (nv,)
    M: np.ndarray  # (nv, nv) joint-space mass matrix
    ddq: np.ndarray  # (nv,) generalised acceleration
    tau: np.ndarray  # (nv,) generalised force (RNEA output)
    qfrc_passive: np.ndarray  # (nv,) joint damping + friction + limit forces
    J: np.ndarray  # (6, nv) frame Jacobian
    zero_nb6: np.ndarray  # (nb, 6) all zeros (no external force)
    zero_nv: np.ndarray  # (nv,) all zeros
    tmpR: np.ndarray  # (3, 3)
    tmp66: np.ndarray  # (6, 6)
    tmp66b: np.ndarray  # (6, 6)
    tmp6: np.ndarray  # (6,)
    tmp6b: np.ndarray  # (6,)
    tmp3: np.ndarray  # (3,)


@njit(cache=True)
def data_buffer_size(nb, nv):
    """Number of float64 values :func:`data_from_buffer` needs for ``nb`` bodies and ``nv`` DoFs."""
    per_body = 9 + 3 + 9 + 3 + 6 * 5 + 36 + 6 + 36 + 6
    per_dof = 6 + 6 + 1 + nv + 1 + 1 + 1 + 6 + 1
    return nb * per_body + nv * per_dof + 9 + 36 * 2 + 12 + 3


@njit(cache=True, inline="always")
def data_from_buffer(buf, nb, nv):
    """A :class:`DataArrays` of views into ``buf`` (float64, at least ``data_buffer_size(nb, nv)``);
    the two zero arrays are cleared, everything else is scratch."""
    o = 0
    liR = view_c(buf[o:o + nb * 9], (nb, 3, 3))
    o += nb * 9
    lip = view_c(buf[o:o + nb * 3], (nb, 3))
    o += nb * 3
    oR = view_c(buf[o:o + nb * 9], (nb, 3, 3))
    o += nb * 9
    op = view_c(buf[o:o + nb * 3], (nb, 3))
    o += nb * 3
    v = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    ov = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    a = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    c = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    f = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    IA = view_c(buf[o:o + nb * 36], (nb, 6, 6))
    o += nb * 36
    pA = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    Dinv = view_c(buf[o:o + nb * 36], (nb, 6, 6))
    o += nb * 36
    zero_nb6 = view_c(buf[o:o + nb * 6], (nb, 6))
    o += nb * 6
    U = view_c(buf[o:o + nv * 6], (nv, 6))
    o += nv * 6
    oS = view_c(buf[o:o + nv * 6], (nv, 6))
    o += nv * 6
    u = buf[o:o + nv]
    o += nv
    M = view_c(buf[o:o + nv * nv], (nv, nv))
    o += nv * nv
    ddq = buf[o:o + nv]
    o += nv
    tau = buf[o:o + nv]
    o += nv
    qfrc_passive = buf[o:o + nv]
    o += nv
    J = view_c(buf[o:o + 6 * nv], (6, nv))
    o += 6 * nv
    zero_nv = buf[o:o + nv]
    o += nv
    tmpR = view_c(buf[o:o + 9], (3, 3))
    o += 9
    tmp66 = view_c(buf[o:o + 36], (6, 6))
    o += 36
    tmp66b = view_c(buf[o:o + 36], (6, 6))
    o += 36
    tmp6 = buf[o:o + 6]
    o += 6
    tmp6b = buf[o:o + 6]
    o += 6
    tmp3 = buf[o:o + 3]
    o += 3
    zero_nb6[:, :] = 0.0
    zero_nv[:] = 0.0
    return DataArrays(buf, liR, lip, oR, op, v, ov, a, c, f, IA, pA, Dinv, U, oS, u, M, ddq, tau,
                      qfrc_passive, J, zero_nb6, zero_nv, tmpR, tmp66, tmp66b, tmp6, tmp6b, tmp3)


MODEL_INT_FIELDS = ("body_parent", "jnt_type", "jnt_qposadr", "jnt_dofadr", "jnt_nv", "dof_body",
                    "dof_qposadr", "dof_limited", "dof_axis", "frame_body")
MODEL_FLOAT_FIELDS = ("jnt_R", "jnt_p", "jnt_axis", "body_I", "dof_S", "dof_armature", "dof_damping",
                      "dof_frictionloss", "dof_range", "dof_limit_stiffness", "dof_limit_damping",
                      "gravity", "opt", "frame_R", "frame_p")


def unit_axis_codes(dof_S):
    """Per-DoF code (nv,) int64: ``k`` if the motion subspace column ``dof_S[dof]`` (nv, 6) is exactly
    the unit vector ``e_k`` (a revolute or prismatic joint about a coordinate axis of its frame, or
    one DoF of a free joint), else -1. The kernels then read ``I S`` as column ``k`` of ``I``."""
    S = np.asarray(dof_S, dtype=np.float64).reshape(-1, 6)
    codes = np.full(S.shape[0], -1, dtype=np.int64)
    for j, col in enumerate(S):
        k = int(np.argmax(np.abs(col)))
        if col[k] == 1.0 and np.count_nonzero(col) == 1:
            codes[j] = k
    return codes


def pack_model(fields: dict, nb: int, nv: int, nf: int):
    """Flatten model arrays (dict of the :class:`ModelArrays` fields) into read-only ``(fbuf, ibuf)``
    in the order :func:`model_from_buffers` reads them; ``dof_axis`` is (re)derived from ``dof_S``."""
    fields = {**fields, "dof_axis": unit_axis_codes(fields["dof_S"])}
    ibuf = np.concatenate([np.array([nb, nv, nf], dtype=np.int64)]
                          + [np.asarray(fields[k], dtype=np.int64).ravel() for k in MODEL_INT_FIELDS])
    fbuf = np.concatenate([np.asarray(fields[k], dtype=np.float64).ravel() for k in MODEL_FLOAT_FIELDS])
    fbuf.setflags(write=False)
    ibuf.setflags(write=False)
    return fbuf, ibuf


@njit(cache=True, inline="always")
def model_from_buffers(fbuf, ibuf):
    """The :class:`ModelArrays` viewed from the buffers of :func:`pack_model` (no copy)."""
    nb = ibuf[0]
    nv = ibuf[1]
    nf = ibuf[2]
    o = 3
    body_parent = ibuf[o:o + nb]
    o += nb
    jnt_type = ibuf[o:o + nb]
    o += nb
    jnt_qposadr = ibuf[o:o + nb]
    o += nb
    jnt_dofadr = ibuf[o:o + nb]
    o += nb
    jnt_nv = ibuf[o:o + nb]
    o += nb
    dof_body = ibuf[o:o + nv]
    o += nv
    dof_qposadr = ibuf[o:o + nv]
    o += nv
    dof_limited = ibuf[o:o + nv]
    o += nv
    dof_axis = ibuf[o:o + nv]
    o += nv
    frame_body = ibuf[o:o + nf]
    o = 0
    jnt_R = view_c(fbuf[o:o + 9 * nb], (nb, 3, 3))
    o += 9 * nb
    jnt_p = view_c(fbuf[o:o + 3 * nb], (nb, 3))
    o += 3 * nb
    jnt_axis = view_c(fbuf[o:o + 3 * nb], (nb, 3))
    o += 3 * nb
    body_I = view_c(fbuf[o:o + 36 * nb], (nb, 6, 6))
    o += 36 * nb
    dof_S = view_c(fbuf[o:o + 6 * nv], (nv, 6))
    o += 6 * nv
    dof_armature = fbuf[o:o + nv]
    o += nv
    dof_damping = fbuf[o:o + nv]
    o += nv
    dof_frictionloss = fbuf[o:o + nv]
    o += nv
    dof_range = view_c(fbuf[o:o + 2 * nv], (nv, 2))
    o += 2 * nv
    dof_limit_stiffness = fbuf[o:o + nv]
    o += nv
    dof_limit_damping = fbuf[o:o + nv]
    o += nv
    gravity = fbuf[o:o + 3]
    o += 3
    opt = fbuf[o:o + 1]
    o += 1
    frame_R = view_c(fbuf[o:o + 9 * nf], (nf, 3, 3))
    o += 9 * nf
    frame_p = view_c(fbuf[o:o + 3 * nf], (nf, 3))
    return ModelArrays(body_parent, jnt_type, jnt_qposadr, jnt_dofadr, jnt_nv, jnt_R, jnt_p, jnt_axis,
                       body_I, dof_S, dof_axis, dof_body, dof_qposadr, dof_armature, dof_damping,
                       dof_frictionloss, dof_limited, dof_range, dof_limit_stiffness, dof_limit_damping,
                       gravity, opt, frame_body, frame_R, frame_p)
