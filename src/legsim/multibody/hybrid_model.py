"""A multibody model as a hybrid-engine model: state ``[q, v]``, flow ``(qdot(q, v), ABA(q, v, tau))``.

:func:`articulated_model` wraps a compiled :class:`legsim.multibody.Model` (fixed or floating base)
as a :class:`legsim.hybrid.Model` with one mode and no guards, so it runs under
:func:`legsim.hybrid.simulate` with any of its integrators.

Dynamics (Featherstone, *Rigid Body Dynamics Algorithms* (2008), ABA Table 7.1)::

    dq/dt = qdot(q, v)                       (``_configuration.qdot``)
    dv/dt = ABA(q, v, tau + tau_passive)     (``_kernels.forward_dynamics``)
    tau_j = tau_ff_j + kp_j (q_ref_j - q_j) + kd_j (v_ref_j - v_j)     (each 1-DoF joint j)

``tau_passive`` holds the joint damping, regularised Coulomb joint friction and joint-limit laws of
the multibody model (``_kernels.passive_forces``). Units: rad, rad/s, N m (m, m/s, N for prismatic
joints); ``kp`` N m/rad, ``kd`` N m s/rad.

State layout
------------
``x = [q (nq), v (nv)]`` in the multibody conventions (:mod:`legsim.multibody.model`): a free joint
contributes ``q = [x y z qx qy qz qw]`` and ``v = [v_lin, w]`` in body axes. The quaternion is
integrated as an ordinary state with ``d(quat)/dt = quat/|quat| * (0, w) / 2``; this rate is
orthogonal to ``quat``, so the exact flow keeps ``|quat|`` constant and a Runge–Kutta step drifts
only at the method's local error (≈1e-15 per step at 1 ms for the test cases). The kinematics
normalise the quaternion wherever they read it, and the outputs ``<joint>_q{x,y,z,w}_unit``
report the renormalised quaternion. :func:`initial_state` normalises it at the start.

How the hooks reach the model (numba constraint)
------------------------------------------------
Hooks have fixed signatures and must be module-level functions; numba freezes globals as
constants and a captured ``Data`` object crashes it. The model's flat buffers (``fbuf`` float64
and ``ibuf`` int64, stored as exactly representable float64 integers) are therefore appended to
the parameter vector ``p`` (parameter names ``mb_f<k>``, ``mb_i<k>``: internal, do not override).
Each hook call makes **one allocation**: a float64 buffer holding the multibody scratch
(``_layout.data_from_buffer``) followed by an int64 view into which ``ibuf`` is copied back;
the model arrays themselves are views of ``p`` (no copy).

Parameter layout: ``p = [nq, nv, na, len(fbuf), len(ibuf), kp (na), kd (na), q_ref (na),
v_ref (na), tau_ff (na), fbuf, ibuf]`` with ``na`` = the number of 1-DoF joints, in
``mb_model.joint_names`` order. A failed ABA (singular articulated inertia) writes NaN into the
derivative, so the engine stops with "the state became non-finite".
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, shown
from ..hybrid import Model as HybridModel
from ..hybrid import signatures as hs
from . import _configuration as C
from . import _kernels as K
from ._joint_law import GAINS, MAX_JOINT_LAW, joint_gains
from ._layout import JOINT_FREE
from ._workspace import joint_torques, workspace
from .dynamics import _check_model
from .export import check_coordinates
from .model import Model

__all__ = ["articulated_model", "initial_state", "split_state", "HEADER", "MAX_JOINT_LAW"]

HEADER = ("mb_nq", "mb_nv", "mb_na", "mb_nfbuf", "mb_nibuf")
"""Names of the five size entries that open the parameter vector."""


@hs.vector_field
def articulated_field(t, x, p, mode, xdot):
    """``xdot = [qdot(q, v), ABA(q, v, tau + tau_passive)]`` (module docstring); x, xdot (nq + nv,)."""
    m, d, nq, nv, na = workspace(p)
    q = x[:nq]
    v = x[nq:nq + nv]
    C.qdot(m, q, v, xdot[:nq])
    tau = d.tau
    joint_torques(m, p, x, nq, nv, na, tau)
    ok = K.forward_dynamics(m, d, q, v, tau, d.zero_nb6, d.ddq)
    for k in range(nv):
        xdot[nq + k] = d.ddq[k] if ok else math.nan


@hs.njit_helper
def _energies(m, d, q, v):
    """(kinetic, potential) energy [J]: ``T = sum v_i . I_i v_i / 2`` (body twists, spatial inertia
    about the body origin), ``V = -sum m_i g . c_i`` with ``m c`` read from the inertia's
    ``m [c]x`` block (Featherstone (2.63))."""
    K.forward_kinematics(m, d, q, v, d.zero_nv)
    nb = m.body_parent.shape[0]
    T = 0.0
    V = 0.0
    g = m.gravity
    for i in range(1, nb):
        I = m.body_I[i]
        for r in range(6):
            s = 0.0
            for c in range(6):
                s += I[r, c] * d.v[i, c]
            T += 0.5 * d.v[i, r] * s
        mass = I[0, 0]
        mc0 = I[5, 1]
        mc1 = I[3, 2]
        mc2 = I[4, 0]
        R = d.oR[i]
        o = d.op[i]
        for r in range(3):
            mcw = R[r, 0] * mc0 + R[r, 1] * mc1 + R[r, 2] * mc2 + mass * o[r]
            V -= g[r] * mcw
    return T, V


@hs.outputs(allocates=False)
def articulated_outputs(t, x, p, mode, y):
    """``y = [T, V, T + V, unit quaternions of the free joints (4 each)]``; energies in J."""
    m, d, nq, nv, na = workspace(p)
    T, V = _energies(m, d, x[:nq], x[nq:nq + nv])
    y[0] = T
    y[1] = V
    y[2] = T + V
    o = 3
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        if m.jnt_type[i] == JOINT_FREE:
            a = m.jnt_qposadr[i]
            n = math.sqrt(x[a + 3] ** 2 + x[a + 4] ** 2 + x[a + 5] ** 2 + x[a + 6] ** 2)
            for k in range(4):
                y[o + k] = x[a + 3 + k] / n
            o += 4


def articulated_model(mb_model: Model, *, kp=None, kd=None, q_ref=None, v_ref=None, tau_ff=None,
                      q0=None, v0=None, name=None) -> HybridModel:
    """Wrap a multibody model as a hybrid-engine model (module docstring for the equations).

    Parameters
    ----------
    mb_model : legsim.multibody.Model
        Fixed or floating base; joint damping/friction/limits of the model act as passive forces.
    kp, kd, q_ref, v_ref, tau_ff : scalar, (na,) array or {joint name: value}, optional
        Default PD gains [N m/rad, N m s/rad], targets [rad, rad/s] and feed-forward torque [N m]
        of the na 1-DoF joints (``mb_model.joint_names``); parameters ``kp_<joint>`` etc. of the
        returned model (override them per run through ``simulate(params=...)``). Default 0. Finite
        numbers within ±:data:`MAX_JOINT_LAW` (1e12), the gains >= 0.
    q0, v0 : (nq,), (nv,) default initial state (default: ``mb_model.neutral()``, zero velocity): finite
        numbers, no free joint's quaternion all zeros (one beyond ``model.ROTATION_RANGE`` is rescaled).
    name : str, model name (default, or empty: ``mb_model.name``).

    Returns
    -------
    legsim.hybrid.Model
        States ``q`` names then ``v`` names (``<joint>`` / ``<joint>_dot``; free joint
        ``<j>_x .. <j>_qw`` and ``<j>_vx .. <j>_wz``); outputs ``kinetic_energy``,
        ``potential_energy``, ``energy`` [J] and the unit quaternion of each free joint.
    """
    o = "articulated_model"
    _check_model(mb_model, o, "mb_model")
    if not (name is None or isinstance(name, str)):
        raise InputError(f"{o}: 'name' = {shown(name)}, expected a string (or None: the model's name)")
    joints = tuple(mb_model.joint_names)
    na = len(joints)
    gains = joint_gains(mb_model, o, kp=kp, kd=kd, q_ref=q_ref, v_ref=v_ref, tau_ff=tau_ff)
    qn, vn, quat = mb_model.coordinate_names()
    q0 = mb_model.neutral() if q0 is None else check_coordinates(o, "q0", q0, mb_model.nq, mb_model)
    v0 = np.zeros(mb_model.nv) if v0 is None else check_coordinates(o, "v0", v0, mb_model.nv)
    x0 = np.concatenate([q0, v0])
    fbuf = np.asarray(mb_model.fbuf, dtype=np.float64)
    ibuf = np.asarray(mb_model.ibuf, dtype=np.int64)
    header = np.array([mb_model.nq, mb_model.nv, na, fbuf.size, ibuf.size], dtype=float)
    pdef = np.concatenate([header, *gains, fbuf, ibuf.astype(np.float64)])
    pnames = (list(HEADER) + [f"{g}_{j}" for g in GAINS for j in joints]
              + [f"mb_f{k}" for k in range(fbuf.size)] + [f"mb_i{k}" for k in range(ibuf.size)])
    return HybridModel(
        name=name or mb_model.name,
        state_names=tuple(qn + vn),
        state_defaults=x0,
        param_names=tuple(pnames),
        param_defaults=pdef,
        guards=(),
        output_names=("kinetic_energy", "potential_energy", "energy", *quat),
        vector_field=articulated_field,
        outputs=articulated_outputs,
        init_partition=lambda x, p: (mb_model.normalise_quaternions(x), 0),
        mode_name=lambda mode: "free",
        description=f"multibody model {mb_model.name!r} (nq={mb_model.nq}, nv={mb_model.nv}) "
                    "under ABA; quaternions integrated as states",
    )


def initial_state(mb_model: Model, q, v=None) -> np.ndarray:
    """Engine state ``[q, v]`` (nq + nv,) with unit quaternions from ``q`` (nq,) and ``v`` (nv,), default
    zero: finite numbers, no free joint's quaternion all zeros."""
    o = "initial_state"
    _check_model(mb_model, o, "mb_model")
    q = check_coordinates(o, "q", q, mb_model.nq, mb_model)
    v = np.zeros(mb_model.nv) if v is None else check_coordinates(o, "v", v, mb_model.nv)
    return mb_model.normalise_quaternions(np.concatenate([q, v]))


def split_state(mb_model: Model, x) -> tuple[np.ndarray, np.ndarray]:
    """``(q, v)`` from engine states ``x`` (..., nq + nv) of finite numbers (no free joint's quaternion all
    zeros), quaternions renormalised."""
    _check_model(mb_model, "split_state", "mb_model")
    x = check_coordinates("split_state", "x", x, mb_model.nq + mb_model.nv, mb_model, batch=True)
    q = np.array(x[..., :mb_model.nq])
    v = np.array(x[..., mb_model.nq:mb_model.nq + mb_model.nv])
    a = mb_model.arrays
    for i in range(1, mb_model.nbody):
        if a.jnt_type[i] == JOINT_FREE:
            k = a.jnt_qposadr[i] + 3
            q[..., k:k + 4] /= np.linalg.norm(q[..., k:k + 4], axis=-1, keepdims=True)
    return q, v
