"""Parameters and state layout of the compliant hexapod (SimSect digest §4.12, Table 2).

Every Table 2 name is accepted under the same spelling. Defaults the digest could read are kept
(``friction_coeff`` 0.5, ``max_torque`` 10000, ``max_speed`` 10000 rpm, ``speed_constant``
61.261056, ``gear_ratio`` 33, leg springs and dampers, rest lengths 0.2 m). Defaults the OCR
lost are chosen for an RHex-sized robot (0.53 m long, 7 kg; Saranli–Buehler–Koditschek 2001):

* ``body_mass`` 7 kg; ``J_11..J_33`` of a uniform 0.2 (x, lateral) × 0.5 (y, forward) × 0.1 (z)
  m box: J_xx = m(0.5²+0.1²)/12, J_yy = m(0.2²+0.1²)/12, J_zz = m(0.5²+0.2²)/12.
* ``leg_mass`` (toe mass) 0.1 kg — small against the body, large enough that a swinging toe
  is not a stiff mode for an explicit integrator.
* ``gravity`` 9.81 m/s² (the digest reads "10?").
* ``q_rt`` (leg length of the initial rest posture) and ``q_rl`` (liftoff length = the extension
  limit ``rho_bar`` where the exponential term of the radial law starts) both 0.2 m = rest length.
* ``theta*_r0`` 0 rad: the digest's "0.2" is doubtful (its sign is lost); with one sign for
  both sides the robot would stand skewed. RHex legs turn in the sagittal plane, so 0.
* ``attach{i}_*``: legs 0,1,2 on the left (x = −0.1 m), 3,4,5 on the right (x = +0.1 m),
  ordered front (y = +0.2), middle (0), rear (−0.2), z = 0. Tripod A = {0, 2, 4}
  (left front, left rear, right middle), tripod B = {1, 3, 5}; each tripod has stiffness
  500 + 1000 + 500 = 2000 N/m.
* ``armature_resist`` 2 Ω, ``torque_constant`` = 1/``speed_constant`` (see
  :mod:`legsim.actuators.electric.dcmotor`). ``max_torque`` keeps Table 2's 10000 N·m
  (effectively unlimited: only the no-load speed limits the hip); for a motor-limited robot
  pass ``max_torque = dcmotor.stall_torque()`` ≈ 4.6 N·m (the default gait walks the same).

The kernels read the ``P_*``/``X_*`` indices below as compile-time constants; legsim's kernel
cache keys them on the sources they import (:mod:`legsim._numba_cache`), so an edit here
recompiles them.

Parameters added by this implementation (the digest names none for them): the extension
exponential ``ext_force`` and ``ext_scale``, the sliding-friction gain ``slide_gain``, the
reset ``contact_clearance``, the switch ``contact_weight``, and the controller ``t_c, t_s,
phi_s, phi_0, kp, kd, delta_t,
delta_phi, turn_in_place, direction`` (digest §4.13 gives the symbols, not the names). A user
heightfield appends ``hf_*`` parameters (see :mod:`.terrain`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...hybrid.params import ParamRange, between, choice, nonnegative, positive

NLEG = 6
LEFT_LEGS = (0, 1, 2)
RIGHT_LEGS = (3, 4, 5)
TRIPOD_A = (0, 2, 4)
TRIPOD_B = (1, 3, 5)

_BOX = (0.2, 0.5, 0.1)   # lateral, forward, vertical size of the default body [m]
_M = 7.0

# (name, default, unit / meaning) — order defines the parameter vector.
SCALAR_PARAMS: tuple[tuple[str, float, str], ...] = (
    ("body_mass", _M, "kg"),
    ("leg_mass", 0.1, "toe mass, kg"),
    ("friction_coeff", 0.5, "Coulomb coefficient k_f of the toe–ground contact"),
    ("gravity", 9.81, "m/s^2"),
    ("q_rt", 0.2, "leg length of the initial rest posture, m"),
    ("q_rl", 0.2, "liftoff length = extension limit rho_bar of the radial law, m"),
    ("ext_force", 5.0, "K of the extension exponential K(exp((rho-rho_bar)/L)-1), N"),
    ("ext_scale", 0.005, "L of the extension exponential, m"),
    ("slide_gain", 0.01, "stance sliding velocity per N of force outside the friction cone, m/(N s)"),
    ("contact_clearance", 1e-9, "toe height above the terrain set by flight-starting resets, m"),
    ("max_torque", 10000.0, "stall torque at the leg (torque-speed line), N m"),
    ("max_speed", 10000.0, "no-load motor speed, rpm"),
    ("speed_constant", 61.261056, "K_omega, rad/(V s) (= 585 rpm/V)"),
    ("torque_constant", 1.0 / 61.261056, "K_tau, N m/A (= 1/K_omega, SI)"),
    ("armature_resist", 2.0, "r_a, ohm"),
    ("gear_ratio", 33.0, "k_g"),
    ("torque_loss", 0.0, "actuator efficiency loss (unused, as in SimSect)"),
    ("terrain_type", 0.0, "0 flat, 1 sinusoidal, 2 sloped (Table 3), 3 sloped_continuous, 4 heightfield"),
    ("terrain_arg1", 0.0, "a1"),
    ("terrain_arg2", 0.0, "a2"),
    ("terrain_arg3", 0.0, "a3"),
    ("control_type", 0.0, "0 open_loop (Buehler clock + PD), 1 passive (zero hip torque)"),
    ("framerate", 30.0, "viewer updates per second (visualisation only)"),
    ("frame_width", 640.0, "viewer width, px (visualisation only)"),
    ("frame_height", 480.0, "viewer height, px (visualisation only)"),
    ("t_c", 1.0, "clock period, s"),
    ("t_s", 0.6, "slow (stance) phase duration, s"),
    ("phi_s", 0.8, "slow phase sweep, rad"),
    ("phi_0", 0.0, "mid-stance leg angle (offset from vertical), rad"),
    ("kp", 30.0, "hip PD proportional gain, N m/rad"),
    ("kd", 0.5, "hip PD derivative gain, N m s/rad"),
    ("delta_t", 0.0, "differential turning gain on t_s, s (positive turns right)"),
    ("delta_phi", 0.0, "differential turning gain on phi_s, rad (positive turns right)"),
    ("turn_in_place", 0.0, "0 walk; +1 turn right (clockwise from above) in place; -1 left"),
    ("direction", 1.0, "+1 walk forward (+y), -1 backward (negated profiles)"),
    ("contact_weight", 1.0, "1: the toe weight counts in the normal reaction (liftoff guard, friction "
     "cone); 0: leg force only (SimSect-literal reading, chatters for light pulls)"),
)

_RHO_K = (500.0, 1000.0, 500.0, 500.0, 1000.0, 500.0)
_RHO_D = (10.0, 20.0, 10.0, 10.0, 20.0, 10.0)
_TH_K = (100.0, 200.0, 100.0, 100.0, 200.0, 100.0)
_TH_D = (0.4, 0.8, 0.4, 0.4, 0.8, 0.4)
_ATTACH = ((-0.1, 0.2, 0.0), (-0.1, 0.0, 0.0), (-0.1, -0.2, 0.0),
           (0.1, 0.2, 0.0), (0.1, 0.0, 0.0), (0.1, -0.2, 0.0))


def _inertia() -> tuple[float, ...]:
    a, b, c = _BOX
    return (_M * (b * b + c * c) / 12.0, 0.0, 0.0,
            0.0, _M * (a * a + c * c) / 12.0, 0.0,
            0.0, 0.0, _M * (a * a + b * b) / 12.0)


def _leg_params() -> list[tuple[str, float, str]]:
    out: list[tuple[str, float, str]] = []
    for fmt, vals, unit in (("rho{}_k", _RHO_K, "N/m"), ("rho{}_d", _RHO_D, "N s/m"),
                            ("rho{}_r0", (0.2,) * 6, "m"), ("theta{}_k", _TH_K, "N m/rad"),
                            ("theta{}_d", _TH_D, "N m s/rad"), ("theta{}_r0", (0.0,) * 6, "rad")):
        out += [(fmt.format(i), vals[i], unit) for i in range(NLEG)]
    for ax, col in (("x", 0), ("y", 1), ("z", 2)):
        out += [(f"attach{i}_{ax}", _ATTACH[i][col], "m, body frame") for i in range(NLEG)]
    out += [(f"J_{r}{c}", _inertia()[3 * (r - 1) + (c - 1)], "kg m^2, body frame")
            for r in (1, 2, 3) for c in (1, 2, 3)]
    return out


MAX_TERRAIN = 1e6
"""The largest magnitude of a terrain's numbers: query coordinates x, y [m], the arguments a1..a3
(amplitude [m] and wavenumbers [1/m]; slopes [-] and offset [m]), a heightfield's heights and origin [m]
(a 1000 km course). Products of two stay within 1e12, far inside the floats the compiled lookup uses
(:mod:`.terrain`)."""

HF_HEADER = ("hf_nx", "hf_ny", "hf_x0", "hf_y0", "hf_dx", "hf_dy")
"""Heightfield header parameters; ``hf_z{k}`` grid values follow (row-major, y rows)."""

PARAMS: tuple[tuple[str, float, str], ...] = (
    SCALAR_PARAMS + tuple(_leg_params()) + tuple((n, 0.0, "heightfield header") for n in HF_HEADER))
PARAM_NAMES: tuple[str, ...] = tuple(n for n, _, _ in PARAMS)
PARAM_DEFAULTS = np.array([v for _, v, _ in PARAMS], dtype=np.float64)
PARAM_INDEX = {n: i for i, n in enumerate(PARAM_NAMES)}


def _ranges() -> dict[str, ParamRange]:
    """Units and allowed values (``legsim models hexapod``); the meaning is PARAMS' third field."""
    meaning = {n: d for n, _, d in PARAMS}
    pos, nonneg = positive, nonnegative
    r: dict[str, ParamRange] = {
        "body_mass": pos("kg"), "leg_mass": pos("kg"), "friction_coeff": nonneg(),
        "gravity": nonneg("m/s^2"), "q_rt": pos("m"), "q_rl": pos("m"), "ext_force": nonneg("N"),
        "ext_scale": pos("m"), "slide_gain": nonneg("m/(N s)"), "contact_clearance": nonneg("m"),
        "max_torque": pos("N m"), "max_speed": pos("rpm"), "speed_constant": pos("rad/(V s)"),
        "torque_constant": pos("N m/A"), "armature_resist": pos("ohm"), "gear_ratio": pos(),
        "torque_loss": nonneg(), "terrain_type": choice(0, 1, 2, 3, 4),
        **{f"terrain_arg{k}": between(-MAX_TERRAIN, MAX_TERRAIN) for k in (1, 2, 3)},
        "control_type": choice(0, 1), "framerate": pos("1/s"), "frame_width": pos("px"),
        "frame_height": pos("px"), "t_c": pos("s"), "t_s": pos("s"), "phi_s": pos("rad"),
        "phi_0": ParamRange("rad"), "kp": nonneg("N m/rad"), "kd": nonneg("N m s/rad"),
        "delta_t": ParamRange("s"), "delta_phi": ParamRange("rad"), "turn_in_place": choice(-1, 0, 1),
        "direction": choice(-1, 1), "contact_weight": between(0.0, 1.0),
    }
    for i in range(NLEG):
        r |= {f"rho{i}_k": nonneg("N/m"), f"rho{i}_d": nonneg("N s/m"), f"rho{i}_r0": pos("m"),
              f"theta{i}_k": nonneg("N m/rad"), f"theta{i}_d": nonneg("N m s/rad"),
              f"theta{i}_r0": ParamRange("rad")}
        r |= {f"attach{i}_{a}": ParamRange("m") for a in "xyz"}
    r |= {f"J_{a}{b}": ParamRange("kg m^2") for a in (1, 2, 3) for b in (1, 2, 3)}
    def doc(name: str, unit: str) -> str:  # the meaning without a repeated unit
        text = meaning[name]
        head, _, tail = text.rpartition(", ")
        if text.startswith(f"{unit}, "):
            return text[len(unit) + 2:]
        return "" if text == unit else head if tail == unit else text

    return {n: replace(rng, doc=doc(n, rng.unit)) for n, rng in r.items()}


PARAM_RANGES = _ranges()

# ---- parameter indices used by the kernels (compile-time constants) -----------------------
P_MASS, P_TOE_MASS, P_MU, P_G, P_QRT, P_QRL, P_EXT_F, P_EXT_L, P_SLIDE, P_CLEAR = range(10)
(P_MAX_TORQUE, P_MAX_SPEED, P_KW, P_KT, P_RA, P_KG, P_TLOSS, P_TERRAIN, P_TA1, P_TA2,
 P_TA3, P_CONTROL, P_FPS, P_FW, P_FH) = range(10, 25)
(P_TC, P_TS, P_PHIS, P_PHI0, P_KP, P_KD, P_DT, P_DPHI, P_TURN, P_DIR, P_TOE_W) = range(25, 36)
P_RHO_K = PARAM_INDEX["rho0_k"]
P_RHO_D = PARAM_INDEX["rho0_d"]
P_RHO_R0 = PARAM_INDEX["rho0_r0"]
P_TH_K = PARAM_INDEX["theta0_k"]
P_TH_D = PARAM_INDEX["theta0_d"]
P_TH_R0 = PARAM_INDEX["theta0_r0"]
P_AX = PARAM_INDEX["attach0_x"]
P_AY = PARAM_INDEX["attach0_y"]
P_AZ = PARAM_INDEX["attach0_z"]
P_J = PARAM_INDEX["J_11"]
P_HF = PARAM_INDEX["hf_nx"]
P_HF_Z = P_HF + len(HF_HEADER)
assert PARAM_NAMES[P_TOE_W] == "contact_weight" and PARAM_NAMES[P_FH] == "frame_height"

CONTROL_OPEN_LOOP = 0
CONTROL_PASSIVE = 1

# ---- state layout -----------------------------------------------------------------------
X_R = 0            # 9 entries of R_b, row-major (R_11, R_12, ..., R_33): body -> world
X_W = 9            # angular velocity w_b, in W [rad/s]
X_POS = 12         # r_b, body COM in W [m]
X_VEL = 15         # rdot_b [m/s]
X_TOE = 18         # f_i, toe i at 18 + 3 i [m]
X_TOEV = 36        # fdot_i at 36 + 3 i [m/s]
X_REF = 54         # phi_ref,i: controller reference hip angles [rad] (continuous)
NX_CONT = 60
# bookkeeping (change only at events): latched open-loop controller values
X_THALF = 60       # time of the last half-cycle event (3->0 / 1->2) [s]
X_TC = 61          # latched t_c [s]
X_PHI0 = 62        # latched phi_0 [rad]
X_TS = 63          # latched t_s per leg [s]
X_PHIS = 69        # latched phi_s per leg [rad]
X_DIR = 75         # latched travel direction per leg (+1 pushes the body forward) [-]
NX = 81


def _state_names() -> tuple[str, ...]:
    names = [f"R_{r}{c}" for r in (1, 2, 3) for c in (1, 2, 3)]
    names += ["w_x", "w_y", "w_z", "x", "y", "z", "xdot", "ydot", "zdot"]
    names += [f"f{i}_{a}" for i in range(NLEG) for a in "xyz"]
    names += [f"f{i}_{a}dot" for i in range(NLEG) for a in "xyz"]
    names += [f"phi_ref{i}" for i in range(NLEG)]
    names += ["ol_t_half", "ol_t_c", "ol_phi_0"]
    names += [f"ol_t_s{i}" for i in range(NLEG)]
    names += [f"ol_phi_s{i}" for i in range(NLEG)]
    names += [f"ol_dir{i}" for i in range(NLEG)]
    return tuple(names)


STATE_NAMES = _state_names()
assert len(STATE_NAMES) == NX


def state_defaults() -> np.ndarray:
    """Default state: level body (R = I) at rest, COM 0.19 m above the origin.

    The toes, controller references and bookkeeping are filled by ``init_partition`` (rest
    posture from the Buehler clock at t = 0).
    """
    x = np.zeros(NX)
    x[X_R + 0] = x[X_R + 4] = x[X_R + 8] = 1.0
    x[X_POS + 2] = 0.19
    return x


TWO_PI = 2.0 * math.pi
