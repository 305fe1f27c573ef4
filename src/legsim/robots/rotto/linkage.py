"""ROTTO's linear drives on their joints: rod geometry, drive lengths, and the forces ↔ torques map
(Konyev 2011 §4.1, Figs 4.3–4.5; contact digest §4.3).

Each drive pushes a rod from an anchor ``A`` on the body above a joint (or a pair of joints) to a
lever point ``B`` on the body below. With the joints' rotation ``R(q)`` (the product of the
chain's elementary rotations, parent first), its length is

    l(q) = | A − R(q) B |                                   (A, B in the upper joint's frame)

and, by virtual work (the drive force F [N] along the rod, positive lengthening, does the work
F dl = τ · dq), the joint torques are ``τ = Jᵀ F`` with ``J = ∂l/∂q`` (k drives × n joints):

    ∂(R B)/∂q_j = R_1 … R_{j−1} (e_j × R_j … R_n B),   ∂l/∂q_j = −(A − R B) · ∂(R B)/∂q_j / l.

The hip and the ankle are **parallel** pairs: two drives on a universal joint, levers at
``(a, ±d, 0)`` from its centre. To first order ``l_{1,2} = l_0 + a θ_pitch ∓ d θ_roll``: the drives
moving together turn the pitch axis, in opposition the roll axis, and both drives' forces add on
each axis (τ_pitch = a (F_1 + F_2), τ_roll = d (F_2 − F_1)): the source's "double rotation moment
on the two axes". The knee and the hip yaw (the pelvis drives) are **serial**: one drive, one
joint. This is the exact kinematics of the rods (massless, ball-jointed); the reduction to the
joint coordinates keeps the drives' force limits per drive (:func:`drive_envelope`); in the engine
each drive is a :class:`~legsim.assembly.Rod` between the two bodies (:func:`drive_rods`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...assembly.components import Rod
from ...errors import InputError, check_whole, shown
from . import _drives as K
from .params import DRIVE_F_MAX, DRIVE_V_MAX, JOINTS, LEGS, RottoParams

__all__ = ["Drive", "leg_drives", "drive_rods", "drive_envelope", "AXES"]

AXES = ("x", "y", "z")


@dataclass(frozen=True)
class Drive:
    """One linear drive: its ``name``, the ``joints`` it turns (indices into the leg's
    :data:`~.params.JOINTS`, chain order, one or two) about ``axes`` (``"x"``, ``"y"``, ``"z"`` of
    each joint's frame), the rod's ``anchor`` A (3,) [m] on the body above the first joint and its
    ``lever`` B (3,) [m] on the body below the last, both in the first joint's frame at q = 0."""

    name: str
    joints: tuple[int, ...]
    axes: tuple[str, ...]
    anchor: np.ndarray
    lever: np.ndarray

    def table(self, offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(joints (2,), axes (2,)) int64 for the compiled kernels: joint indices + ``offset``, −1
        for an unused slot."""
        joints = np.full(2, -1, dtype=np.int64)
        axes = np.zeros(2, dtype=np.int64)
        joints[:len(self.joints)] = np.asarray(self.joints) + offset
        axes[:len(self.axes)] = [AXES.index(a) for a in self.axes]
        return joints, axes

    def _rod(self, q: Sequence[float] | np.ndarray) -> tuple[float, np.ndarray]:
        joints, axes = self.table()
        qq = np.zeros(len(JOINTS))
        qq[list(self.joints)] = np.asarray(q, dtype=float)
        jac = np.empty(2)
        length = K.rod(qq, joints, axes, np.asarray(self.anchor, dtype=float),
                       np.asarray(self.lever, dtype=float), jac)
        return length, jac[:len(self.joints)]

    def length(self, q: Sequence[float] | np.ndarray) -> float:
        """l(q) [m] for the angles (n,) [rad] of this drive's joints."""
        return self._rod(q)[0]

    def jacobian(self, q: Sequence[float] | np.ndarray) -> np.ndarray:
        """∂l/∂q (n,) [m/rad] (module docstring)."""
        return self._rod(q)[1]


def leg_drives(p: RottoParams | None = None) -> list[Drive]:
    """A leg's six drives: ``hip_yaw`` (the pelvis drive, horizontal, on a lever of ``yaw_arm``),
    ``hip_1``/``hip_2`` (the hip pair, levers at (``hip_arm``, ±``hip_spread``, 0) on the thigh),
    ``knee`` (lever ``knee_arm`` ahead of the knee on the shank), ``ankle_1``/``ankle_2`` (levers
    at (``ankle_arm``, ±``ankle_spread``, 0) on the foot); every rod ``rod`` long at q = 0,
    vertical but the yaw drive's (along y). ``p``: None (the defaults) or a :class:`RottoParams`."""
    from .model import _params  # which imports this module

    p = RottoParams() if p is None else _params("ROTTO leg_drives", p)
    up = np.array([0.0, 0.0, p.rod])
    J = {name: k for k, name in enumerate(JOINTS)}

    def pair(name: str, joints: tuple[str, str], axes: tuple[str, str], arm: float,
             spread: float) -> list[Drive]:
        out = []
        for k, side in enumerate((1.0, -1.0)):
            b = np.array([arm, side * spread, 0.0])
            out.append(Drive(f"{name}_{k + 1}", (J[joints[0]], J[joints[1]]), axes, b + up, b))
        return out

    yaw_lever = np.array([p.yaw_arm, 0.0, 0.0])
    knee_lever = np.array([p.knee_arm, 0.0, 0.0])
    return [Drive("hip_yaw", (J["hip_yaw"],), ("z",), yaw_lever + np.array([0.0, p.rod, 0.0]), yaw_lever),
            *pair("hip", ("hip_roll", "hip_pitch"), ("x", "y"), p.hip_arm, p.hip_spread),
            Drive("knee", (J["knee"],), ("y",), knee_lever + up, knee_lever),
            *pair("ankle", ("ankle_pitch", "ankle_roll"), ("y", "x"), p.ankle_arm, p.ankle_spread)]


def drive_envelope(p: RottoParams | None = None, n: int = 145) -> tuple[np.ndarray, np.ndarray]:
    """The drive's largest force along its motion [N] at rod speeds [m/s]: (speeds (n,), forces (n,))
    on 0 … 0.72 m/s, from the actuator's voltage circle and current limit
    (:meth:`~legsim.actuators.electric.drive_loops.RottoActuator.max_force`, the drive library's model):
    400 N up to 0.45 m/s, 128 N at 0.64 m/s, 0 at 0.72 m/s (source §4.1.1, "not at the same time")."""
    from .model import _params

    p = RottoParams() if p is None else _params("drive_envelope", p)
    v = np.linspace(0.0, DRIVE_V_MAX, check_whole("drive_envelope", "n", n, 2, 10**6))
    return v, np.clip(p.drive.max_force(v), 0.0, DRIVE_F_MAX)


def _rotto_model(owner: str, mb) -> None:
    """An :class:`InputError` from ``owner`` unless ``mb`` is ROTTO's multibody model (a
    :class:`~legsim.multibody.Model` with every joint of both legs, :func:`.model.build_model`)."""
    from ...multibody import Model
    from .model import joint_names

    names = list(mb.jnt_names) if isinstance(mb, Model) else []
    missing = [j for j in joint_names() if j not in names]
    if missing:
        given = f"a model without joint {missing[0]!r}" if isinstance(mb, Model) else shown(mb)
        raise InputError(f"{owner}: mb = {given}, expected ROTTO's multibody model (build_model)")


def drive_rods(mb, p: RottoParams | None = None) -> list[Rod]:
    """Every drive of both legs as an assembly :class:`~legsim.assembly.Rod` of the multibody model
    ``mb`` (:func:`.model.build_model`; left leg's :func:`leg_drives`, then the right's): the anchor on
    the body above the drive's first joint, the lever on the body below its last, each moved from the
    first joint's frame at q = 0 into its body's axes (all ROTTO's joint frames are parallel there).
    ``p``: None (the defaults) or a :class:`RottoParams`."""
    from ...multibody import forward_kinematics
    from .model import _params

    _rotto_model("ROTTO drive_rods", mb)
    if p is not None:
        _params("ROTTO drive_rods", p)
    data = mb.make_data()
    forward_kinematics(mb, data, mb.neutral())
    bodies = list(mb.body_names)
    of_joint = {j: i for i, j in enumerate(mb.jnt_names)}  # joint name -> the body it moves
    out = []
    for leg in LEGS:
        for d in leg_drives(p):
            first = of_joint[f"{leg}_{JOINTS[d.joints[0]]}"]
            last = of_joint[f"{leg}_{JOINTS[d.joints[-1]]}"]
            above = int(mb.body_parent[first])
            origin = data.op[first]  # the first joint's frame at q = 0
            a_world = origin + np.asarray(d.anchor, dtype=float)
            b_world = origin + np.asarray(d.lever, dtype=float)
            out.append(Rod(bodies[above], data.oR[above].T @ (a_world - data.op[above]),
                           bodies[last], data.oR[last].T @ (b_world - data.op[last])))
    return out
