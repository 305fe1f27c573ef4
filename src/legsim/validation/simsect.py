"""SimSect: the SLIP runner and the compliant hexapod (digest simsect-hexapod.md §6.3 items 5, 6, 9, 13: the
report's rows S5, S6, S9, S13).

SimSect's text holds few numbers (no speeds, §6.3-12): its acceptance tests are conservation and
symmetry laws of the SLIP, the hexapod's static sag, and the motor's constants. Measurements are
cached; tests/test_hybrid_vs_scipy.py, test_rhex_model.py and test_dcmotor_battery.py assert on them.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ._core import Row, band_status, case, figure

__all__ = [
    "T_10_STRIDES",
    "slip_default_run",
    "slip_apexes",
    "slip_asymmetric_run",
    "slip_energy",
    "slip_energy_drift",
    "hexapod_six_leg_statics",
    "hexapod_tripod_statics",
    "motor_constants",
    "HEXAPOD_MASS",
    "GRAVITY",
    "K_OMEGA",
]

DIGEST = "simsect-hexapod.md §6.3"
T_10_STRIDES = 6.9
"""Ten strides of the default SLIP runner (one lasts 0.667 s) [s]."""
HEXAPOD_MASS = 7.0
"""Hexapod body mass used for the statics [kg]."""
GRAVITY = 9.81
"""[m/s²]"""
K_OMEGA = 61.261056
"""Speed constant of the Maxon RE118751 [rad/(V·s)] (digest §4.9)."""
ASYMMETRIC_START = {"y": 1.1, "xdot": 1.0, "ydot": 0.0, "touchdown_angle": -0.2}
"""SLIP start at an apex with touchdown angle −0.2 rad (an asymmetric first stance) [m, m/s, rad]."""

_SLIP = "tests/test_hybrid_vs_scipy.py::"
_HEX = "tests/test_rhex_model.py::"


# ------------------------------------------------------------------------------------------ measurements


def _tight():
    from ..hybrid import Options

    return Options(rtol=1e-10, atol=1e-12)


@functools.cache
def slip_default_run() -> Any:
    """The default SLIP run (digest §6.3-5 initial state), ten strides, DP45 rtol 1e-10, atol 1e-12."""
    from ..hybrid import simulate
    from ..robots import slip

    return simulate(slip.build_model(), T_10_STRIDES, options=_tight())


@functools.cache
def slip_asymmetric_run() -> Any:
    """SLIP from ASYMMETRIC_START for 8 s (DP45 rtol 1e-10, atol 1e-12)."""
    from ..hybrid import simulate
    from ..robots import slip

    return simulate(slip.build_model(), 8.0, x0=ASYMMETRIC_START, options=_tight())


def slip_apexes(res) -> tuple[np.ndarray, np.ndarray]:
    """Apex heights y [m] and forward speeds ẋ [m/s] of a SLIP run (the ASCENT → DESCENT events)."""
    from ..robots import slip

    ev = res.events
    sel = (ev["kind"] == 0) & (ev["mode_before"] == slip.ASCENT)
    return ev["x"][sel, 1], ev["x"][sel, 2]


def slip_energy(res, params: dict[str, float]) -> np.ndarray:
    """Total energy ½m|v|² + m g_stance y + ½k(ρ − q_0)² [J] of a SLIP run's records, with ρ the leg length
    in stance and q_rt in flight (digest §6.3-5; the linear (2, 1) spring)."""
    from ..robots import slip

    x = res.x
    stance = np.isin(res.mode, (slip.COMPRESSION, slip.DECOMPRESSION))
    rho = np.where(stance, np.hypot(x[:, 0] - x[:, 4], x[:, 1] - x[:, 5]), params["q_rt"])
    m = params["body_mass"]
    return (
        0.5 * m * (x[:, 2] ** 2 + x[:, 3] ** 2)
        + m * params["g_stance"] * x[:, 1]
        + 0.5 * params["k"] * (rho - params["q_0"]) ** 2
    )


@functools.cache
def slip_energy_drift(g_stance: float | None = None) -> tuple[float, float, int]:
    """(max relative energy drift over all records, over flight records only, number of records) of a
    ten-stride SLIP run at DP45 rtol 1e-8, atol 1e-10; ``g_stance`` [m/s²] overrides the default 10."""
    from ..hybrid import Options, simulate
    from ..robots import slip

    model = slip.build_model()
    params = dict(zip(model.param_names, map(float, model.param_defaults), strict=True))
    override = {} if g_stance is None else {"g_stance": g_stance}
    params.update(override)
    res = simulate(model, T_10_STRIDES, params=override or None, options=Options(rtol=1e-8, atol=1e-10))
    e = slip_energy(res, params)
    flight = np.isin(res.mode, (slip.ASCENT, slip.DESCENT))
    return (float(np.max(np.abs(e - e[0])) / e[0]), float(np.max(np.abs(e[flight] - e[0])) / e[0]), res.n)


def _vertical_legs_state(model, z=0.2, toe_z=None):
    """Level body at height z [m] with every toe straight below its hip at toe_z [m] (default 0)."""
    from ..robots.rhex.params import P_AX, X_TOE

    p = model.params()
    x = model.state({"z": z})
    for i in range(6):
        x[X_TOE + 3 * i : X_TOE + 3 * i + 3] = [
            p[P_AX + i],
            p[P_AX + 6 + i],
            0.0 if toe_z is None else toe_z[i],
        ]
    return x


@functools.cache
def hexapod_six_leg_statics() -> Any:
    """Hexapod, zero hip torque, six vertical legs in stance from z = 0.2 m, 3 s (hybrid result)."""
    from ..hybrid import simulate
    from ..robots.rhex import build_model, default_options

    model = build_model(control_type=1, posture="state")
    return simulate(
        model, 3.0, x0=_vertical_legs_state(model), options=default_options(record_period=0.5), progress=False
    )


@functools.cache
def hexapod_tripod_statics() -> tuple[Any, int]:
    """Hexapod with tripod {0, 2, 4} in stance (the other toes 0.1 m up), zero hip torque, its vector field
    integrated 6 s with LSODA (rtol 1e-9): (solve_ivp solution, initial mode)."""
    from scipy.integrate import solve_ivp

    from ..robots.rhex import _hooks, build_model

    model = build_model(control_type=1, posture="state")
    p = model.params()
    init = model.init_partition
    assert init is not None  # the hexapod has SimSect's init partition
    x0, mode = init(_vertical_legs_state(model, toe_z=[0, 0.1, 0, 0.1, 0, 0.1]), p)

    def f(t, x):
        xd = np.zeros_like(x)
        _hooks.vector_field(t, x, p, mode, xd)
        return xd

    return solve_ivp(f, (0.0, 6.0), x0, method="LSODA", rtol=1e-9, atol=1e-12), int(mode)


def motor_constants() -> dict[str, float]:
    """Maxon RE118751 + 33:1: speed constant [rpm/V], no-load speed at the leg [rpm], stall torque [N m]."""
    from ..actuators.electric import speed_constant_rpm_per_volt
    from ..actuators.electric.dcmotor import stall_torque

    return {
        "rpm_per_volt": float(speed_constant_rpm_per_volt(K_OMEGA)),
        "no_load_leg_rpm": 10000.0 / 33.0,
        "stall_torque": float(stall_torque(10000.0, K_OMEGA, 1 / K_OMEGA, 2.0, 33.0)),
    }


# ------------------------------------------------------------------------------------------------ cases


@case("simsect")
def slip_laws() -> list[Row]:
    """§6.3-5 energy conservation, §6.3-6 the apex return map."""
    drift, _, _ = slip_energy_drift()
    y, xd = slip_apexes(slip_default_run())
    sym = max(float(np.max(np.abs(y - y[0]))), float(np.max(np.abs(xd - xd[0]))))
    ya, xda = slip_apexes(slip_asymmetric_run())
    y0, xd0 = ASYMMETRIC_START["y"], ASYMMETRIC_START["xdot"]
    two = max(
        float(np.max(np.abs(ya[1::2] - y0))),
        float(np.max(np.abs(xda[1::2] - xd0))),
        float(np.max(np.abs(ya[0::2] - ya[0]))),
        float(np.max(np.abs(xda[0::2] - xda[0]))),
    )
    return [
        Row(
            "S5",
            "SLIP total energy, max relative drift over 10 strides (g_st = g_fl)",
            "conserved to about the tolerance",
            DIGEST + "-5",
            f"{drift:.1e}",
            "≤ 1e-6 (rtol 1e-8)",
            band_status(drift, 0, 1e-6),
            "",
            _SLIP + "test_slip_total_energy_is_conserved_to_the_tolerance_scale_when_gravity_is_equal",
        ),
        Row(
            "S6",
            "apex map after a symmetric first stance: max apex change",
            "identity, ~1e-6",
            DIGEST + "-6",
            f"{sym:.1e} ({y.size} apexes)",
            "≤ 1e-6",
            band_status(sym, 0, 1e-6),
            "",
            _SLIP + "test_slip_apex_map_is_the_identity_after_a_symmetric_first_stance",
        ),
        Row(
            "S6",
            "apex map after an asymmetric touchdown: period-two error",
            "period ≤ 2 strides, ~1e-6",
            DIGEST + "-6",
            f"{two:.1e} ({ya.size} apexes)",
            "≤ 1e-6",
            band_status(two, 0, 1e-6),
            "start y = 1.1 m, ẋ = 1 m/s, touchdown angle −0.2 rad",
            _SLIP + "test_slip_apex_states_return_with_period_two_after_an_asymmetric_touchdown",
        ),
    ]


@case("simsect")
def hexapod_statics() -> list[Row]:
    """§6.3-9: static sag on six legs and on one tripod."""
    res = hexapod_six_leg_statics()
    sag6 = 0.2 - float(res.x[-1, 2 + _x_pos()])
    sol, _ = hexapod_tripod_statics()
    sag3 = 0.2 - float(sol.y[2 + _x_pos(), -1])
    e6, e3 = HEXAPOD_MASS * GRAVITY / 4000.0, HEXAPOD_MASS * GRAVITY / 2000.0
    return [
        Row(
            "S9",
            "sag on six legs, zero hip torque (M = 7 kg)",
            "M g / 4000 N/m",
            DIGEST + "-9",
            f"{sag6 * 1e3:.5f} mm (M g/4000 = {e6 * 1e3:.5f} mm)",
            "±1e-6 m",
            band_status(abs(sag6 - e6), 0, 1e-6),
            "",
            _HEX
            + "test_six_legs_in_stance_with_zero_hip_torque_settle_where_the_leg_springs_carry_the_weight",
        ),
        Row(
            "S9",
            "sag on tripod {0, 2, 4} (500 + 1000 + 500 N/m)",
            "M g / 2000 N/m",
            DIGEST + "-9",
            f"{sag3 * 1e3:.5f} mm (M g/2000 = {e3 * 1e3:.5f} mm)",
            "±1e-6 m",
            band_status(abs(sag3 - e3), 0, 1e-6),
            "",
            _HEX + "test_one_tripod_in_stance_settles_at_twice_the_sag",
        ),
    ]


def _x_pos() -> int:
    from ..robots.rhex.params import X_POS

    return int(X_POS)


@case("simsect")
def motor() -> list[Row]:
    """§6.3-13: motor constants."""
    c = motor_constants()
    test = "tests/test_dcmotor_battery.py::"
    return [
        Row(
            "S13",
            "speed constant K_ω = 61.261056 rad/(V s)",
            "585 rpm/V",
            DIGEST + "-13",
            f"{c['rpm_per_volt']:.5f} rpm/V",
            "±1e-4 rpm/V",
            band_status(abs(c["rpm_per_volt"] - 585), 0, 1e-4),
            "",
            test + "test_speed_constant_of_61_26_rad_per_volt_second_is_585_rpm_per_volt",
        ),
        Row(
            "S13",
            "no-load speed at the leg through 33:1",
            "≈ 303 rpm",
            DIGEST + "-13",
            f"{c['no_load_leg_rpm']:.2f} rpm",
            "±0.01 rpm of 303.03",
            band_status(abs(c["no_load_leg_rpm"] - 303.03), 0, 0.01),
            "",
            test + "test_torque_limit_is_zero_at_the_no_load_speed_about_303_rpm_at_the_leg",
        ),
    ]


@figure("simsect", "SLIP apex heights per stride (S6): symmetric and asymmetric first stance")
def apex_figure():
    import matplotlib.pyplot as plt

    y, _ = slip_apexes(slip_default_run())
    ya, _ = slip_apexes(slip_asymmetric_run())
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(np.arange(1, y.size + 1), y, "o-", label="symmetric start: identity map")
    ax.plot(np.arange(1, ya.size + 1), ya, "s-", label="touchdown −0.2 rad: period two")
    ax.axhline(ASYMMETRIC_START["y"], color="k", ls=":", lw=0.8)
    ax.set_xlabel("apex n")
    ax.set_ylabel("apex height y [m]")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
