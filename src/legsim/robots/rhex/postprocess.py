"""Offline motor and battery analysis of a hexapod run (SimSect digest §4.9–§4.10).

SimSect computed the armature voltages/currents and the battery life outside the simulator,
from the recorded leg torques and speeds; so does :func:`motor_battery`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...actuators.electric import PeukertBattery, charge_fraction, lifetime
from ...actuators.electric.dcmotor import MAX_VALUE, armature_current, armature_voltage
from ...errors import InputError, as_floats, check_number, shown
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
    """Parameter ``name`` of a hexapod run: from ``params`` (None, a name -> value mapping or the parameter
    vector; missing names take the model's defaults), within the DC motor's range (``armature_resist`` in
    [0, MAX_VALUE], the other constants in [1/MAX_VALUE, MAX_VALUE]:
    :mod:`legsim.actuators.electric.dcmotor`), else an :class:`InputError` naming ``params``."""
    from .params import PARAM_DEFAULTS

    o = "motor_battery"
    if params is None or isinstance(params, Mapping) and name not in params:
        value = PARAM_DEFAULTS[PARAM_INDEX[name]]
    elif isinstance(params, Mapping):
        value = params[name]
    else:
        arr = as_floats(params)
        if arr.ndim != 1 or arr.size < len(PARAM_NAMES):
            raise InputError(f"{o}: 'params' must be the hexapod parameter vector (>= {len(PARAM_NAMES)} "
                             f"numbers) or a mapping, got {shown(params)}")
        value = arr[PARAM_INDEX[name]]
    lo = 0.0 if name == "armature_resist" else 1.0 / MAX_VALUE
    return check_number(o, f"params['{name}']", value, lo=lo, hi=MAX_VALUE)


def motor_battery(result, params=None, battery: PeukertBattery | None = None) -> MotorBatteryReport:
    """Armature currents/voltages per leg, battery charge C(t) and lifetime of a hexapod run.

    Parameters
    ----------
    result : a :class:`legsim.hybrid.Result` of the hexapod model, or its run directory read back
        (:func:`legsim.io.load_run`); needs the outputs ``tau0..5`` [N·m] and ``phidot0..5`` [rad/s].
    params : the run's parameter vector or a name -> value mapping (missing names take the
        model defaults); uses ``torque_constant``, ``speed_constant``, ``armature_resist``
        and ``gear_ratio``.
    battery : discharge curve (default: Panasonic 12 V 2.2 Ah Peukert fit).
    """
    if not (hasattr(result, "t") and hasattr(result, "output_names")
            and callable(getattr(result, "output", None))):
        raise InputError(f"motor_battery: 'result' = {shown(result)}, expected a legsim.hybrid.Result of the "
                         "hexapod model or its run directory read back (legsim.io.load_run)")
    t = np.asarray(result.t, dtype=float)
    legs = list(_leg_electrics(result, params))
    i_a = np.stack([i for i, _ in legs], axis=1)
    v_a = np.stack([v for _, v in legs], axis=1)
    current = np.abs(i_a).sum(axis=1)
    # records can repeat a time at events (before/after); keep the order, they are harmless
    charge = charge_fraction(t, current, battery)
    life, extrap = lifetime(t, charge)
    return MotorBatteryReport(t=t, i_a=i_a, v_a=v_a, current=current, charge=charge,
                              lifetime=life, extrapolated=extrap)


def _leg_electrics(result, params):
    """(i_a, v_a) of each leg in turn, (n,) arrays [A], [V], from the outputs ``tau<i>``,
    ``phidot<i>`` (one leg at a time: a long run read back from disk stays small in memory)."""
    names = list(getattr(result, "output_names", ()))
    needed = [f"tau{i}" for i in range(NLEG)] + [f"phidot{i}" for i in range(NLEG)]
    missing = [n for n in needed if n not in names]
    if missing:
        raise InputError(f"motor_battery: the result lacks the outputs {', '.join(missing)} "
                         "(is it a hexapod run?)")
    kg = _param(params, "gear_ratio")
    kt, ra, kw = (_param(params, n) for n in ("torque_constant", "armature_resist", "speed_constant"))
    for i in range(NLEG):
        i_a = armature_current(result.output(f"tau{i}"), kt, kg)
        yield i_a, armature_voltage(i_a, result.output(f"phidot{i}"), ra, kg, kw)


def summary(result) -> dict:
    """Headline numbers of a hexapod run (printed by ``legsim run`` / ``legsim demo``).

    Forward is +y in the world frame (body axes: x lateral, y forward, z up; digest §4.1).
    """
    col = {n: np.asarray(result.output(n), dtype=float) for n in ("x", "y", "z", "yaw")}
    t = np.asarray(result.t, dtype=float)
    duration = float(t[-1] - t[0]) if t.size > 1 else 0.0
    current = np.zeros_like(t)
    peak_i = peak_v = 0.0
    for i_a, v_a in _leg_electrics(result, result.params):
        peak_i, peak_v = max(peak_i, float(np.abs(i_a).max())), max(peak_v, float(np.abs(v_a).max()))
        current += np.abs(i_a)
    life, extrapolated = lifetime(t, charge_fraction(t, current))
    out = {
        "duration_s": duration,
        "distance_forward_m": float(col["y"][-1] - col["y"][0]),
        "distance_lateral_m": float(col["x"][-1] - col["x"][0]),
        "mean_forward_speed_m_s": float((col["y"][-1] - col["y"][0]) / duration) if duration else 0.0,
        "yaw_change_deg": float(np.degrees(np.unwrap(col["yaw"])[-1] - col["yaw"][0])),
        "body_height_min_m": float(col["z"].min()),
        "body_height_max_m": float(col["z"].max()),
        "peak_armature_current_A": peak_i,
        "peak_armature_voltage_V": peak_v,
        "mean_battery_current_A": float(current.mean()),
        "battery_lifetime_s": float(life),
        "battery_lifetime_extrapolated": bool(extrapolated),
    }
    return out
