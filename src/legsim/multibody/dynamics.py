"""Public rigid-body dynamics functions (validate, then call the compiled kernels).

Stage functions in Pinocchio style: ``f(model, data, ...)`` writes into ``data`` and returns the
relevant array of ``data`` (overwritten by the next call; copy it to keep it). Conventions of
``q``/``v`` (floating base: Pinocchio's) are in :mod:`legsim.multibody.model`. External wrenches
``fext`` (nbody, 6) are ``[force, moment]`` on each body, in body axes about the body origin (N, N m);
row 0 (world) is ignored.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_array, check_number, check_whole, shown
from . import _kernels as K
from . import _packed as P
from ._layout import data_buffer_size
from .model import Model

_REFS = {"world": K.REF_WORLD, "local_world_aligned": K.REF_LOCAL_WORLD_ALIGNED, "local": K.REF_LOCAL}


def _vec(x, n, name, model):
    # a float array as it is (the per-tick case); anything else converted, and not numbers (a string,
    # None, a ragged list) get no shape and are refused below
    a = x if isinstance(x, np.ndarray) and x.dtype == np.float64 else as_floats(x)
    if a.shape != (n,):
        size = "nq" if name == "q" else "nv"
        raise InputError(f"`{name}` = {x!r}: expected ({size}={n},) numbers for model {model.name!r}, "
                         f"got shape {a.shape}")
    # a read-only or strided input (a controller's sensor view) would type a second compiled variant
    return a if a.flags.c_contiguous and a.flags.writeable else np.array(a)


def _check_model(model, owner: str = "", name: str = "model"):
    """An :class:`InputError` (from ``owner``, naming the argument ``name``) unless ``model`` is a
    :class:`Model`."""
    if not isinstance(model, Model):
        raise InputError(f"{owner + ': ' if owner else ''}{name} = {shown(model)}: expected a "
                         "legsim.multibody.Model (RobotBuilder.compile(), load_urdf)")


def _check_data(model, data):
    _check_model(model)
    nb, nv = model.nbody, model.nv
    size = data_buffer_size(nb, nv)
    buf = getattr(data, "buf", None)
    if buf is None or buf.shape != (size,):
        raise InputError(f"`data` does not belong to model {model.name!r} (nbody={nb}, nv={nv}); "
                         f"create it with model.make_data()")


def _fext(fext, model, data):
    if fext is None:
        return data.zero_nb6
    f = as_floats(fext)
    if f.shape != (model.nbody, 6):
        raise InputError(f"`fext` = {fext!r}: expected (nbody={model.nbody}, 6) numbers, got shape {f.shape}")
    return np.ascontiguousarray(f)


def _ref(reference):
    if not (isinstance(reference, str) and reference in _REFS):
        raise InputError(f"unknown reference frame {reference!r}; expected one of {sorted(_REFS)}")
    return _REFS[reference]


def forward_kinematics(model: Model, data, q, v=None, a=None):
    """Body placements (and twists, accelerations if ``v``/``a`` given).

    ``(q, v, a) -> (data.oR (nb,3,3), data.op (nb,3) m, data.v (nb,6), data.a (nb,6))``; twists and
    accelerations in body axes, linear first; ``data.a`` includes the fictitious ``-g``
    (Featherstone (5.1)-(5.5)).
    """
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    v = data.zero_nv if v is None else _vec(v, model.nv, "v", model)
    a = data.zero_nv if a is None else _vec(a, model.nv, "a", model)
    P.forward_kinematics(*model.kernel_buffers, data.buf, q, v, a)


def rnea(model: Model, data, q, v, a, fext=None):
    """Inverse dynamics ``tau = M(q) a + C(q, v) v + g(q) - J^T fext`` (Featherstone Table 5.1).

    ``q`` (nq,), ``v`` (nv,), ``a`` (nv,) -> ``data.tau`` (nv,) in N m / N.
    """
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    a = _vec(a, model.nv, "a", model)
    P.rnea(*model.kernel_buffers, data.buf, q, v, a, _fext(fext, model, data))
    return data.tau


def crba(model: Model, data, q):
    """Joint-space mass matrix ``M(q)`` (nv, nv), full symmetric, kg m^2 / kg (Featherstone Table 6.2)."""
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    P.crba(*model.kernel_buffers, data.buf, q)
    return data.M


def aba(model: Model, data, q, v, tau, fext=None):
    """Forward dynamics ``ddq = M^-1 (tau + J^T fext - C v - g)`` by the articulated-body algorithm
    (Featherstone Table 7.1). ``tau`` (nv,) is the total generalised force (no passive joint forces;
    see :func:`forward_dynamics`). Returns ``data.ddq`` (nv,) rad/s^2 or m/s^2.
    """
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    tau = _vec(tau, model.nv, "tau", model)
    if not P.aba(*model.kernel_buffers, data.buf, q, v, tau, _fext(fext, model, data)):
        raise InputError(f"model {model.name!r}: articulated inertia is singular (a massless leaf body?)")
    return data.ddq


def passive_forces(model: Model, data, q, v):
    """Joint damping, regularised Coulomb friction and limit spring-damper forces (nv,).

    ``(q, v) -> data.qfrc_passive``; force laws in :func:`legsim.multibody._kernels.passive_forces`.
    """
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    P.passive_forces(*model.kernel_buffers, data.buf, q, v)
    return data.qfrc_passive


def forward_dynamics(model: Model, data, q, v, tau, fext=None):
    """``ddq`` (nv,) under ``tau`` + passive joint forces + ``fext`` (one compiled call)."""
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    tau = _vec(tau, model.nv, "tau", model)
    if not P.forward_dynamics(*model.kernel_buffers, data.buf, q, v, tau, _fext(fext, model, data)):
        raise InputError(f"model {model.name!r}: articulated inertia is singular (a massless leaf body?)")
    return data.ddq


def frame_placement(model: Model, data, frame):
    """World placement (4, 4) homogeneous matrix of ``frame`` (name or index), from the last
    :func:`forward_kinematics`."""
    _check_data(model, data)
    fid = model.frame_id(frame)
    R = np.empty((3, 3))
    p = np.empty(3)
    P.frame_placement(*model.kernel_buffers, data.buf, fid, R, p)
    out = np.eye(4)
    out[:3, :3] = R
    out[:3, 3] = p
    return out


def frame_velocity(model: Model, data, frame, reference="local_world_aligned"):
    """Twist (6,) ``[v, w]`` of ``frame`` from the last :func:`forward_kinematics` with ``v``.

    ``reference``: ``"local"`` (frame axes), ``"local_world_aligned"`` (velocity of the frame origin,
    world axes) or ``"world"`` (twist at the world origin, world axes); m/s, rad/s.
    """
    _check_data(model, data)
    fid = model.frame_id(frame)
    out = np.empty(6)
    P.frame_velocity(*model.kernel_buffers, data.buf, fid, _ref(reference), out)
    return out


def frame_jacobian(model: Model, data, q, frame, reference="local_world_aligned"):
    """Frame Jacobian (6, nv) at ``q``: ``frame_velocity(reference) = J v``. Returns ``data.J``."""
    _check_data(model, data)
    q = _vec(q, model.nq, "q", model)
    fid = model.frame_id(frame)
    ref = _ref(reference)
    P.frame_jacobian(*model.kernel_buffers, data.buf, q, fid, ref)
    return data.J


def add_world_force(model: Model, data, fext, body, point, force):
    """Accumulate a world-axes force (3,) N acting at a world point (3,) m on ``body`` (name or
    index) into ``fext`` (nbody, 6), as the body-axes wrench the dynamics functions expect. Uses the
    world placements of the last :func:`forward_kinematics`."""
    _check_data(model, data)
    o = f"add_world_force (model {model.name!r})"
    b = check_whole(o, "body (0: the world)", model.body_id(body) if isinstance(body, str) else body, 1,
                    model.nbody - 1)
    if not (isinstance(fext, np.ndarray) and fext.shape == (model.nbody, 6) and fext.dtype == np.float64
            and fext.flags.writeable and fext.flags.c_contiguous):
        raise InputError(f"{o}: `fext` = {fext!r}: expected a writeable, contiguous float64 array of shape "
                         f"(nbody={model.nbody}, 6) to add to")
    K.add_world_force(data, b, check_array(o, "point", point, (3,), "m"),
                      check_array(o, "force", force, (3,), "N"), fext)
    return fext


def qdot(model: Model, q, v):
    """Configuration rate ``dq/dt`` (nq,) of twist coordinates ``v`` (nv,) (quaternion kinematics)."""
    _check_model(model)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    out = np.empty(model.nq)
    P.qdot(*model.kernel_buffers, q, v, out)
    return out


def integrate(model: Model, q, v, dt=1.0):
    """``q (+) v dt`` (nq,): SE(3) exponential for free joints, ``q + v dt`` otherwise."""
    _check_model(model)
    q = _vec(q, model.nq, "q", model)
    v = _vec(v, model.nv, "v", model)
    out = np.empty(model.nq)
    P.integrate(*model.kernel_buffers, q, v, check_number("integrate", "dt", dt), out)
    return out


def center_of_mass(model: Model, data, q):
    """Whole-body centre of mass (3,) in world coordinates, m."""
    _check_data(model, data)
    forward_kinematics(model, data, q)
    c = np.einsum("bij,bj->bi", data.oR, model.body_com) + data.op
    return model.body_mass @ c / model.body_mass.sum()


def energy(model: Model, data, q, v):
    """``(kinetic, potential)`` energy in J: ``T = v^T M v / 2`` (from the body twists and
    spatial inertias), ``V = -sum_i m_i g . c_i`` (zero at the world origin)."""
    _check_data(model, data)
    forward_kinematics(model, data, q, v)
    I6 = model.arrays.body_I
    T = 0.5 * float(np.einsum("bi,bij,bj->", data.v, I6, data.v))
    c = np.einsum("bij,bj->bi", data.oR, model.body_com) + data.op
    V = -float(model.body_mass @ (c @ model.arrays.gravity))
    return T, V
