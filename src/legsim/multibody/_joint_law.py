"""The joint law's gains of :func:`legsim.multibody.articulated_model` and
:func:`legsim.world.event_contact_model` read from the user's values (plain Python: nothing compiles
on import)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, as_float, shown
from .model import Model

GAINS = ("kp", "kd", "q_ref", "v_ref", "tau_ff")
"""The joint law ``tau = kp (q_ref - q) + kd (v_ref - v) + tau_ff`` per 1-DoF joint."""


def _gain(name: str, value, joints: tuple[str, ...]) -> np.ndarray:
    na = len(joints)
    if value is None:
        return np.zeros(na)
    if isinstance(value, dict):
        out = np.zeros(na)
        for key, val in value.items():
            if key not in joints:
                raise InputError(f"articulated_model: {name} names unknown joint {shown(key)}; joints are "
                                 f"{list(joints)}")
            out[joints.index(key)] = as_float(val)  # NaN when not a number: refused below
        arr = out
    else:
        try:  # OverflowError: an int beyond the largest float
            arr = np.array(np.broadcast_to(np.asarray(value, dtype=float), (na,)))
        except (TypeError, ValueError, OverflowError):
            raise InputError(f"articulated_model: {name} = {shown(value)}, expected a number, {na} numbers "
                             "or a {joint: value} table") from None
    if not np.all(np.isfinite(arr)):
        raise InputError(f"articulated_model: {name} must be finite numbers, got {shown(value)}")
    if name in ("kp", "kd") and np.any(arr < 0):
        raise InputError(f"articulated_model: {name} must be >= 0, got {shown(value)}")
    return arr


def joint_gains(model: Model, **values) -> tuple[np.ndarray, ...]:
    """``(kp, kd, q_ref, v_ref, tau_ff)``, each (na,) in ``model.joint_names`` order, from scalars,
    (na,) arrays or {joint name: value} tables (None: 0) [N m/rad, N m s/rad, rad, rad/s, N m]."""
    joints = tuple(model.joint_names)
    return tuple(_gain(n, values.get(n), joints) for n in GAINS)
