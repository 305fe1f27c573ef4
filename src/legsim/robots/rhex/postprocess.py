"""Offline motor and battery analysis of a hexapod run (SimSect digest §4.9–§4.10).

SimSect computed the armature voltages/currents and the battery life outside the simulator,
from the recorded leg torques and speeds; so does :func:`motor_battery`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...actuators.electric import PeukertBattery, charge_fraction, lifetime
from ...actuators.electric.dcmotor import armature_current, armature_voltage
from ...errors import InputError
from .params import NLEG, PARAM_INDEX, PARAM_NAMES

__all__ = ["MotorBatteryReport", "motor_battery", "summary"]


@dataclass(frozen=True)
class MotorBatteryReport:
    """Per-leg motor electrical quantities and the battery charge along a run.

    Attributes
    ----------
    t : (n,) record times [s]
    i_a : (n, 6) armature currents [A], ``tau/(K_tau k_g)``
    v_a : (n, 6) armature voltages [V], ``r_a i_a + k_g phidot / K_omega``
    current : (n,) battery current ``sum_j |i_a,j|`` [A]
    charge : (n,) charge fraction C(t) [-], C(t0) = 1
    lifetime : battery lifetime [s] (zero crossing of C)
    extrapolated : True when C did not reach zero within the run and ``lifetime`` was
        extrapolated with the run's mean discharge rate
    """

    t: np.ndarray
    i_a: np.ndarray
    v_a: np.ndarray
    current: np.ndarray
    charge: np.ndarray
    lifetime: float
    extrapolated: bool


def _param(params, name: str) -> float:
    if params is None:
        from .params import PARAM_DEFAULTS
        return float(PARAM_DEFAULTS[PARAM_INDEX[name]])
    if isinstance(params, Mapping):
        if name in params:
            return float(params[name])
        from .params import PARAM_DEFAULTS
        return float(PARAM_DEFAULTS[PARAM_INDEX[name]])
    arr = np.asarray(params, dtype=float)
    if arr.ndim != 1 or arr.size < len(PARAM_NAMES):
        raise InputError(f"motor_battery: 'params' must be the hexapod parameter vector (>= "
                         f"{len(PARAM_NAMES)} values) or a mapping, got shape {arr.shape}")
    return float(arr[PARAM_INDEX[name]])


def motor_battery(result, params=None, battery: PeukertBattery | None = None) -> MotorBatteryReport:
    """Armature currents/voltages per leg, battery charge C(t) and lifetime of a hexapod run.

    Parameters
    ----------
    result : a :class:`legsim.hybrid.Result` of the hexapod model (needs the outputs
        ``tau0..5`` [N·m] and ``phidot0..5`` [rad/s]).
    params : the run's parameter vector or a name -> value mapping (missing names take the
        model defaults); uses ``torque_constant``, ``speed_constant``, ``armature_resist``
        and ``gear_ratio``.
    battery : discharge curve (default: Panasonic 12 V 2.2 Ah Peukert fit).
    """
    names = list(getattr(result, "output_names", ()))
    needed = [f"tau{i}" for i in range(NLEG)] + [f"phidot{i}" for i in range(NLEG)]
    missing = [n for n in needed if n not in names]
    if missing:
        raise InputError(f"motor_battery: the result lacks the outputs {', '.join(missing)} "
                         "(is it a hexapod run?)")
    y = np.asarray(result.y, dtype=float)
    t = np.asarray(result.t, dtype=float)
    tau = np.stack([y[:, names.index(f"tau{i}")] for i in range(NLEG)], axis=1)
    omega = np.stack([y[:, names.index(f"phidot{i}")] for i in range(NLEG)], axis=1)
    kg = _param(params, "gear_ratio")
    i_a = armature_current(tau, _param(params, "torque_constant"), kg)
    v_a = armature_voltage(i_a, omega, _param(params, "armature_resist"), kg,
                           _param(params, "speed_constant"))
    current = np.abs(i_a).sum(axis=1)
    # records can repeat a time at events (before/after); keep the order, they are harmless
    charge = charge_fraction(t, current, battery)
    life, extrap = lifetime(t, charge)
    return MotorBatteryReport(t=t, i_a=i_a, v_a=v_a, current=current, charge=charge,
                              lifetime=life, extrapolated=extrap)


def summary(result) -> dict:
    """Headline numbers of a hexapod run (printed by ``legsim run`` / ``legsim demo``).

    Forward is +y in the world frame (body axes: x lateral, y forward, z up; digest §4.1).
    """
    y = np.asarray(result.y, dtype=float)
    names = list(result.output_names)
    col = {n: y[:, names.index(n)] for n in ("x", "y", "z", "yaw")}
    t = np.asarray(result.t, dtype=float)
    duration = float(t[-1] - t[0]) if t.size > 1 else 0.0
    report = motor_battery(result, result.params)
    out = {
        "duration_s": duration,
        "distance_forward_m": float(col["y"][-1] - col["y"][0]),
        "distance_lateral_m": float(col["x"][-1] - col["x"][0]),
        "mean_forward_speed_m_s": float((col["y"][-1] - col["y"][0]) / duration) if duration else 0.0,
        "yaw_change_deg": float(np.degrees(np.unwrap(col["yaw"])[-1] - col["yaw"][0])),
        "body_height_min_m": float(col["z"].min()),
        "body_height_max_m": float(col["z"].max()),
        "peak_armature_current_A": float(np.abs(report.i_a).max()),
        "peak_armature_voltage_V": float(np.abs(report.v_a).max()),
        "mean_battery_current_A": float(report.current.mean()),
        "battery_lifetime_s": float(report.lifetime),
        "battery_lifetime_extrapolated": bool(report.extrapolated),
    }
    return out
