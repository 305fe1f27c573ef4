"""The joint law's gains of :func:`legsim.multibody.articulated_model` and
:func:`legsim.world.event_contact_model` read from the user's values (plain Python: nothing compiles
on import)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_floats, check_number, check_values, closest, shown
from .model import Model

GAINS = ("kp", "kd", "q_ref", "v_ref", "tau_ff")
"""The joint law ``tau = kp (q_ref - q) + kd (v_ref - v) + tau_ff`` per 1-DoF joint."""

MAX_JOINT_LAW = 1e12
"""The largest magnitude of a joint-law value, in SI units: a gain ``kp`` [N m/rad or N/m] or ``kd``
[N m s/rad or N s/m] (>= 0), a target ``q_ref`` [rad or m] or ``v_ref`` [rad/s or m/s], a torque
``tau_ff`` [N m or N]. The stiffest servo is orders below; a gain times a target stays within 1e24 N m,
where 1e300 overflowed the law's torque to inf and the run to NaN."""


def _gain(owner: str, name: str, value, joints: tuple[str, ...]) -> np.ndarray:
    """``value`` (None: 0; a number, (na,) numbers or a {joint: value} table) as (na,) floats in joint
    order, each finite, within ±:data:`MAX_JOINT_LAW` and, for the gains ``kp``, ``kd``, >= 0; else an
    :class:`InputError` from ``owner`` naming ``name``."""
    na = len(joints)
    lo = 0.0 if name in ("kp", "kd") else -MAX_JOINT_LAW
    if value is None:
        return np.zeros(na)
    if isinstance(value, dict):
        out = np.zeros(na)
        for key, val in value.items():
            if not (isinstance(key, str) and key in joints):
                raise InputError(f"{owner}: '{name}' names unknown joint {shown(key)}{closest(key, joints)}; "
                                 f"joints are {list(joints)}")
            out[joints.index(key)] = check_number(owner, f"{name}[{key!r}]", val, lo=lo, hi=MAX_JOINT_LAW)
        return out
    if na == 0 and isinstance(value, list | tuple | np.ndarray) and as_floats(value).shape == (0,):
        return np.zeros(0)  # no 1-DoF joint (a free body alone): [] is every joint's value
    arr = check_values(owner, name, value, lo=lo, hi=MAX_JOINT_LAW)
    if arr.shape not in ((), (1,), (na,)):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a number, one number per joint of "
                         f"model.joint_names ({na}) or a {{joint: value}} table")
    return np.array(np.broadcast_to(arr, (na,)))


def joint_gains(model: Model, owner: str, **values) -> tuple[np.ndarray, ...]:
    """``(kp, kd, q_ref, v_ref, tau_ff)``, each (na,) in ``model.joint_names`` order, from scalars,
    (na,) arrays or {joint name: value} tables (None: 0) [N m/rad, N m s/rad, rad, rad/s, N m], each
    within ±:data:`MAX_JOINT_LAW` (the gains >= 0); an :class:`InputError` from ``owner`` (the public
    function) names the value."""
    joints = tuple(model.joint_names)
    return tuple(_gain(owner, n, values.get(n), joints) for n in GAINS)
