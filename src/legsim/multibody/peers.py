"""Configuration and velocity conversion between legsim and Pinocchio models of the same robot.

Joints are matched **by name** (the two loaders may order them differently); the free joint is
matched by name too (``load_urdf`` and Pinocchio's ``buildModelFromUrdf(path, JointModelFreeFlyer())``
both call it ``root_joint``) or, failing that, as the only free joint of each model.

Conventions, per joint:

- free joint: the same in both, ``q = [x y z qx qy qz qw]`` (m; unit quaternion, scalar last) and
  ``v = [v_lin, w]`` in body axes: copied as is;
- revolute / prismatic joint with one coordinate (URDF ``revolute``, ``prismatic``): copied;
- URDF ``continuous`` joint: legsim keeps the angle ``theta`` (rad, nq = 1), Pinocchio a point on
  the unit circle (``JointModelRevoluteUnbounded``: nq = 2, ``[cos theta, sin theta]``); nv = 1 in
  both. Back to legsim, ``theta = atan2(sin, cos)`` in (-pi, pi]: the turn count is lost.

Velocities, accelerations and generalised forces (nv-sized) are only permuted. Pinocchio is not
imported here: ``pin_model`` is a ``pinocchio.Model`` (read through ``names``, ``joints``,
``idx_qs``, ``idx_vs``, ``nqs``, ``nvs``, ``nq``, ``nv``).

Arguments are checked (:class:`InputError` naming the argument): ``model`` a legsim :class:`Model`;
``pin_model`` a ``pinocchio.Model`` with the same joints (names, kinds: free flyer, revolute,
prismatic, and sizes); states (..., n) of finite numbers whose quaternions (and unit-circle points)
are not all zeros (:func:`legsim.multibody.export.check_coordinates`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, shown
from ._layout import JOINT_FREE, JOINT_PRISMATIC
from .dynamics import _check_model
from .export import check_coordinates
from .model import Model

__all__ = ["PinocchioMap", "pinocchio_q", "from_pinocchio_q", "pinocchio_v", "from_pinocchio_v"]


@dataclass(frozen=True)
class PinocchioMap:
    """Index maps between a legsim :class:`Model` and a Pinocchio model (see the module docstring).

    ``v_index`` (nv,) int: legsim dof k is Pinocchio dof ``v_index[k]``; so ``x_pin[v_index]`` is
    the legsim-ordered version of any Pinocchio nv-vector and ``M_pin[np.ix_(v_index, v_index)]``
    of its mass matrix. ``q_copy`` / ``q_copy_pin`` (m,) int: legsim q entries copied unchanged to
    these Pinocchio q entries. ``q_circle`` / ``q_circle_pin`` (c,) int: legsim angles of continuous
    joints and the Pinocchio index of their cosine (the sine follows). ``q_quat`` / ``q_quat_pin``
    (f,) int: the legsim and Pinocchio index of ``qx`` of each free joint (``qy qz qw`` follow).
    ``nq``, ``nv``: legsim sizes; ``pin_nq``, ``pin_nv``: Pinocchio sizes. Build with :meth:`build`.
    """

    nq: int
    nv: int
    pin_nq: int
    pin_nv: int
    v_index: np.ndarray
    q_copy: np.ndarray
    q_copy_pin: np.ndarray
    q_circle: np.ndarray
    q_circle_pin: np.ndarray
    q_quat: np.ndarray
    q_quat_pin: np.ndarray

    @classmethod
    def build(cls, model: Model, pin_model) -> PinocchioMap:
        """Match the joints of ``model`` and ``pin_model`` by name; :class:`InputError` if the two
        do not have the same joints (names, kinds and sizes)."""
        _check_model(model, "PinocchioMap")
        pin = sys.modules.get("pinocchio")  # a pinocchio.Model exists only once pinocchio is imported
        if pin is None or not isinstance(pin_model, pin.Model):
            raise InputError(f"PinocchioMap: 'pin_model' = {shown(pin_model)}, expected a pinocchio.Model "
                             "(pinocchio.buildModelFromUrdf, buildModelFromXML)")
        pm = pin_model
        a = model.arrays
        pin_names = list(pm.names)
        pin_free = [j for j in range(1, len(pin_names)) if pm.nvs[j] == 6 and pm.nqs[j] == 7]
        ours_free = [i for i in range(1, model.nbody) if a.jnt_type[i] == JOINT_FREE]
        v_index = np.full(model.nv, -1, dtype=np.int64)
        copy: list[int] = []
        copy_pin: list[int] = []
        circ: list[int] = []
        circ_pin: list[int] = []
        quat: list[int] = []
        quat_pin: list[int] = []
        used = set()
        for i in range(1, model.nbody):
            name = model.jnt_names[i]
            qa, da, nv = int(a.jnt_qposadr[i]), int(a.jnt_dofadr[i]), int(a.jnt_nv[i])
            if name in pin_names[1:]:
                jid = pin_names.index(name)
            elif nv == 6 and len(ours_free) == 1 and len(pin_free) == 1:
                jid = pin_free[0]
            else:
                raise InputError(f"PinocchioMap: legsim joint {name!r} has no joint of that name in "
                                 f"'pin_model'; its joints: {pin_names[1:]}")
            pnq, pnv = int(pm.nqs[jid]), int(pm.nvs[jid])
            iq, iv = int(pm.idx_qs[jid]), int(pm.idx_vs[jid])
            short = str(pm.joints[jid].shortname())
            # revolute: RX, RY, RZ, RUB*, Revolute(Unbounded)Unaligned; prismatic: PX, PY, PZ,
            # PrismaticUnaligned (a helical, spherical or composite joint of the same sizes is another joint)
            if a.jnt_type[i] == JOINT_FREE:
                kind_ok = short == "JointModelFreeFlyer"
            else:
                prefix = "JointModelP" if a.jnt_type[i] == JOINT_PRISMATIC else "JointModelR"
                kind_ok = short.startswith(prefix)
            if not (kind_ok and pnv == nv and pnq in ((7,) if nv == 6 else (1, 2))):
                raise InputError(f"PinocchioMap: joint {name!r} is a legsim joint with nv={nv} but a "
                                 f"{short} (nq={pnq}, nv={pnv}) in 'pin_model'")
            used.add(jid)
            v_index[da:da + nv] = np.arange(iv, iv + nv)
            if pnq == 2:
                circ.append(qa)
                circ_pin.append(iq)
            else:
                if pnq == 7:
                    quat.append(qa + 3)
                    quat_pin.append(iq + 3)
                copy.extend(range(qa, qa + pnq))
                copy_pin.extend(range(iq, iq + pnq))
        extra = [pin_names[j] for j in range(1, len(pin_names)) if j not in used and pm.nvs[j] > 0]
        if extra:
            raise InputError(f"PinocchioMap: joints {extra} of 'pin_model' have no legsim counterpart "
                             f"(legsim joints: {list(model.jnt_names[1:])})")

        def ro(x):
            arr = np.array(x, dtype=np.int64)
            arr.setflags(write=False)
            return arr

        return cls(model.nq, model.nv, int(pm.nq), int(pm.nv), ro(v_index), ro(copy), ro(copy_pin),
                   ro(circ), ro(circ_pin), ro(quat), ro(quat_pin))

    def q_to_pin(self, q) -> np.ndarray:
        """legsim configuration(s) ``q`` (..., nq) -> Pinocchio configuration(s) (..., pin_nq)."""
        q = check_coordinates("PinocchioMap", "q", q, self.nq, ((self.q_quat, 4),), batch=True)
        out = np.zeros(q.shape[:-1] + (self.pin_nq,))
        out[..., self.q_copy_pin] = q[..., self.q_copy]
        th = q[..., self.q_circle]
        out[..., self.q_circle_pin] = np.cos(th)
        out[..., self.q_circle_pin + 1] = np.sin(th)
        return out

    def q_from_pin(self, q_pin) -> np.ndarray:
        """Pinocchio configuration(s) (..., pin_nq) -> legsim ``q`` (..., nq); angles in (-pi, pi]."""
        qp = check_coordinates("PinocchioMap", "q_pin", q_pin, self.pin_nq,
                               ((self.q_quat_pin, 4), (self.q_circle_pin, 2)), batch=True)
        out = np.zeros(qp.shape[:-1] + (self.nq,))
        out[..., self.q_copy] = qp[..., self.q_copy_pin]
        out[..., self.q_circle] = np.arctan2(qp[..., self.q_circle_pin + 1], qp[..., self.q_circle_pin])
        return out

    def v_to_pin(self, v) -> np.ndarray:
        """legsim velocity / acceleration / force vector(s) (..., nv) -> Pinocchio order (..., pin_nv)."""
        v = check_coordinates("PinocchioMap", "v", v, self.nv, batch=True)
        out = np.zeros(v.shape[:-1] + (self.pin_nv,))
        out[..., self.v_index] = v
        return out

    def v_from_pin(self, v_pin) -> np.ndarray:
        """Pinocchio nv-vector(s) (..., pin_nv) -> legsim order (..., nv)."""
        return check_coordinates("PinocchioMap", "v_pin", v_pin, self.pin_nv, batch=True)[..., self.v_index]


def pinocchio_q(model: Model, q, pin_model) -> np.ndarray:
    """legsim ``q`` (..., model.nq) -> Pinocchio ``q`` (..., pin_model.nq); see :class:`PinocchioMap`
    (build one once to convert many states)."""
    return PinocchioMap.build(model, pin_model).q_to_pin(q)


def from_pinocchio_q(model: Model, q_pin, pin_model) -> np.ndarray:
    """Pinocchio ``q`` (..., pin_model.nq) -> legsim ``q`` (..., model.nq)."""
    return PinocchioMap.build(model, pin_model).q_from_pin(q_pin)


def pinocchio_v(model: Model, v, pin_model) -> np.ndarray:
    """legsim ``v``, ``a`` or ``tau`` (..., model.nv) -> Pinocchio order (..., pin_model.nv)."""
    return PinocchioMap.build(model, pin_model).v_to_pin(v)


def from_pinocchio_v(model: Model, v_pin, pin_model) -> np.ndarray:
    """Pinocchio ``v``, ``a`` or ``tau`` (..., pin_model.nv) -> legsim order (..., model.nv)."""
    return PinocchioMap.build(model, pin_model).v_from_pin(v_pin)
