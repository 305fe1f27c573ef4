"""RATS impact-angle rolling controller, brake and turning (Wagenknecht (2009) §6.2; digest §3.5–§3.7).

The controller is reactive: at every control tick (1 kHz) it projects the 12 leg unit vectors onto the
sagittal plane span{h, g} and the coronal plane span{n, g} (6.8)–(6.11), predicts for every eligible
leg (6.12), (6.16) when it would hit the ground if fired now (6.14)–(6.17), and fires it once its
sagittal angle has entered the firing zone (6.13), (6.18). Roll damping (6.19), the parabolic brake
(6.20)–(6.22) and the turning extensions (6.23)–(6.25) modify the firing angle and valve time.

Frames and sign conventions (established from the thesis text, see the tests)
-------------------------------------------------------------------------------
* ``g`` is the unit vector *of* gravity (pointing down, world default (0, 0, -1)), ``h`` the desired
  heading (horizontal unit vector) and ``n = h × g`` ("the cross-product of the heading with gravity",
  §6.2.1). With z up, ``n`` points to the **left** of the heading.
* theta_sag (6.9) = sign((g × R_sag)·n)·arcsin(|g × R_sag|/|R_sag|). Writing R_sag = a h + b g,
  g × R_sag = −a n, so for a downward leg (b = R·g > 0) theta_sag = atan2(−R·h, R·g): **positive for a
  trailing leg** (foot behind the centre, pointing against the heading), negative for a leading leg.
* theta_cor (6.11) = −sign((g × R_cor)·h)·arcsin(...). With R_cor = c n + b g, g × R_cor = c h, so
  theta_cor = atan2(−R·n, R·g): **positive for a leg on the right** (−n side), negative on the left.
* The arcsin forms cannot tell an upward leg from a downward one (digest ⚠); we use the atan2 forms,
  which equal (6.9)/(6.11) for R·g > 0, and only legs with R·g > 0 are candidates.
* omega_pitch = ω·n [rad/s] (world angular velocity about n). Rolling forward along +h on the ground
  means ω along +n (v = ω × (−g r) = r h), and a body-fixed downward leg then swings backward:
  d(theta_sag)/dt = +omega_pitch. This is the only sign for which (6.18) theta_fire = φ − ω_pitch t_total
  makes legs fire *earlier* as the robot rolls faster ("actuating legs earlier as higher rolling rates
  were detected", §6.2.2) and for which the predicted impact angle theta_sag + ω_pitch t_total ≥ φ
  (Fig. 6.18) is the firing condition theta_sag ≥ theta_fire (6.13).
* omega_roll = ω·h [rad/s]. ω along +h rolls the sphere toward −n (the right, theta_cor > 0), so
  theta_cor + γ ω_roll (6.19) increases |theta_cor| for legs on the side the robot rolls toward: their
  r_total and t_total grow and they fire earlier, as the thesis requires ("If the robot had roll
  velocity toward the side with the leg being considered, the coronal projection angle was increased").
* Heading error (6.25) theta_error = sign(h_roll·n) arccos(h_roll·h) is **positive when the robot rolls
  to the left** of the command (so it must turn right). The inside of the turn is then the right side:
  a leg is "inside" when theta_cor·theta_error > 0 and "outside" when theta_cor·theta_error < 0.
* When xi_turn > 0 the planes are redefined on {h_roll, ω̂_proj, g}; since h_roll × g = ω̂_proj this is
  the same construction with h := h_roll (n := ω̂_proj, so omega_pitch = |ω_proj| ≥ 0).

Choices the thesis leaves open (all are :class:`RollingParams` fields)
------------------------------------------------------------------------
* Eligibility (6.12)/(6.16) uses the physical theta_cor (and the Δr it implies); the roll-damping
  adjustment (6.19) only enters the timing (6.14)→(6.17)→(6.18): its stated effect is that the leg "was
  fired slightly earlier than it otherwise would have".
* The brake acts on the horizontal speed |v − (v·g)g|; its integral is a time integral (K_I in 1/m; the
  thesis's per-tick sum Σ_t is K_I·Δt_control times ours) with conditional-integration anti-windup and
  |K_I·I| ≤ ``integral_limit``. The valve-time parabola uses the physical theta_cor.
* A firing whose valve time does not exceed t_delay is not commanded (the valve would never open:
  "resulting in no actuation of a leg"); others are quantised *up* to whole ms.
* Turning policies: roll-type suppresses inside legs whenever xi_turn > 0 and lengthens outside legs by
  xi_turn·roll_dt_max·(theta_cor/β)²; yaw-type lowers the desired impact angle of outside legs by
  xi_turn·yaw_dphi_max·(theta_cor/β)² (legs near the sagittal plane untouched, to avoid hopping).
* Lockout: a fired leg may not fire again before t_command + duration + t_retract; optionally
  (``require_rearm``) its sagittal angle must also have left the firing zone.

Units: SI (m, s, rad, rad/s, m/s); valve commands in whole ms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from ..._direct import entry_point
from ...errors import (
    InputError,
    as_float,
    as_floats,
    check_array,
    check_broadcast,
    check_fields,
    check_flag,
    check_number,
    check_values,
    shown,
)
from . import _tick
from .geometry import LEG_DIRECTIONS, MAX_GROUND

__all__ = ["RollingParams", "LegAngles", "RollingDiagnostics", "BrakeController", "RollingController",
           "TURN_POLICIES", "frame", "leg_angles", "r_total", "firing_angle", "eligible", "brake_signal",
           "brake_valve_time", "heading_error", "turn_effort", "turn_adjustments", "quantise_ms"]

TURN_POLICIES = ("both", "roll", "yaw", "none")
_GRAVITY = (0.0, 0.0, -1.0)

MAX_ANGLE = 1e6
"""The largest |angle| [rad] the functions below take (as LIBRA's ``kinematics.MAX_ANGLE``): the
controller's angles are within ±π (plus γ ω_roll), and a double's sine or tangent beyond is noise."""
MAX_RATE = 1e6
"""The largest |angular rate| [rad/s] and speed [m/s] the functions below take (RATS rolls at about
5 rad/s, 1 m/s)."""


@dataclass(frozen=True)
class RollingParams:
    """All parameters of the rolling controller (SI units). Defaults: Table 6.2 where the thesis gives
    values; the others are our choices (noted per field, digest §6.3).

    Impact-angle controller (Table 6.2):
        h_max : elevation dead-zone limit z_max [m] (0.289). alpha : max |theta_sag| [rad] (π/2, not
        optimised). beta : max |theta_cor| [rad] (0.797). dr_max : max leg extension Δr [m] (0.077).
        phi : desired impact angle φ [rad] (0.093). gamma : coronal (roll) feedback gain γ [s] (0.032).
        t_fire : standard valve time t_std [s] (0.033).
    Not in the thesis:
        l : centre to retracted foot [m] (0.20, digest §1.2; with l = 0.20 the extension limit
        Δr < Δr_max already excludes z > 0.276 m, so h_max = 0.289 only binds for l > 0.213 m).
        v_extend : mean leg extension speed [m/s] (3.4, digest §2.8: 6.3 cm in 17–19 ms).
        t_delay : valve latency [s] (13.16e-3 spool; 5e-3 rubber).
    Brake (6.20)–(6.22), hand-tuned in the thesis, values not given (our untuned starting points):
        dv_max : speed error of full braking Δv_max [m/s] (0.5). k_i : integral gain K_I [1/m] (0.2:
        with the proportional gain 1/Δv_max = 2 s/m the integral time is 10 s, slower than the 8 s
        runs' transients, removing only the steady-state error). c_ff : feed-forward ξ (0.25, the
        vertex 33 → 28 ms: the steady brake the naturally accelerating gait needs at v_d; tune in T13).
        integral_limit : anti-windup bound on |K_I·I| (1.0, the whole range of ξ).
    Turning (6.23)–(6.25), §6.2.2:
        theta_lo, theta_hi : xi_turn ramps from 0 at |theta_error| = theta_lo to 1 at theta_hi [rad]
        (0.1, 0.785). omega_turn_min : below this |ω_proj| [rad/s] the rolling direction is undefined
        and no turning is done (1.0: ~0.2 m/s, below which rocking at rest would give spurious
        errors). turn_policy : "both" | "roll" | "yaw" | "none". roll_dt_max : extra valve time of an
        outside leg at |theta_cor| = β and xi_turn = 1 [s] (0.015: 33 → 48 ms, just below the ~50 ms at
        which the leg reaches its end stop and more gas adds no thrust, E3). yaw_dphi_max : reduction of
        the impact angle of an outside leg at |theta_cor| = β and xi_turn = 1 [rad] (0.2: φ → −0.107,
        "smaller or even negative impact angles"). turn_brake : extra brake signal per unit xi_turn
        (0.0; §6.2.2 says turning should be combined with slowing down).
    Lockout:
        t_retract : time after the valve closes before the leg may fire again [s] (0.033: the return
        (5.6) with Table 5.3 values, −F_f − βẋ − k x, takes 32.9 ms from full stroke).
        require_rearm : also require the leg to leave the firing zone before re-firing (False).
    """

    h_max: float = 0.289
    alpha: float = math.pi / 2
    beta: float = 0.797
    dr_max: float = 0.077
    phi: float = 0.093
    gamma: float = 0.032
    t_fire: float = 33e-3
    l: float = 0.20
    v_extend: float = 3.4
    t_delay: float = 13.16e-3
    dv_max: float = 0.5
    k_i: float = 0.2
    c_ff: float = 0.25
    integral_limit: float = 1.0
    theta_lo: float = 0.1
    theta_hi: float = 0.785
    omega_turn_min: float = 1.0
    turn_policy: str = "both"
    roll_dt_max: float = 15e-3
    yaw_dphi_max: float = 0.2
    turn_brake: float = 0.0
    t_retract: float = 33e-3
    require_rearm: bool = False

    def __post_init__(self) -> None:
        check_fields("RollingParams", self,
                     finite=[f.name for f in fields(self) if f.name not in ("turn_policy", "require_rearm")],
                     positive=("h_max", "alpha", "beta", "dr_max", "t_fire", "l", "v_extend", "dv_max",
                               "theta_hi"),
                     nonnegative=("t_delay", "k_i", "integral_limit", "theta_lo", "omega_turn_min",
                                  "roll_dt_max", "yaw_dphi_max", "turn_brake", "t_retract", "gamma"))
        if self.alpha > math.pi:
            raise InputError(f"RollingParams.alpha={self.alpha!r}: expected <= pi")
        if not 1e-6 <= self.beta < math.pi / 2:  # (6.19)'s 1/beta^2: beta^2 of 1e-200 underflowed to 0
            raise InputError(f"RollingParams.beta={self.beta!r}: expected in [1e-6, pi/2) rad (tan theta_cor "
                             "in (6.14))")
        if abs(self.phi) >= math.pi / 2:
            raise InputError(f"RollingParams.phi={self.phi!r}: expected |phi| < pi/2 (sec phi in (6.14))")
        if not self.t_fire > self.t_delay:
            raise InputError(f"RollingParams.t_fire={self.t_fire!r} s: expected > t_delay={self.t_delay!r} s")
        if not self.theta_hi > self.theta_lo:
            raise InputError(f"RollingParams.theta_hi={self.theta_hi!r}: expected > "
                             f"theta_lo={self.theta_lo!r}")
        if not (isinstance(self.turn_policy, str) and self.turn_policy in TURN_POLICIES):
            raise InputError(f"RollingParams.turn_policy={self.turn_policy!r}: expected one of "
                             f"{', '.join(TURN_POLICIES)}")
        object.__setattr__(self, "require_rearm",
                           check_flag("RollingParams", "require_rearm", self.require_rearm))


def _params(owner: str, params) -> RollingParams:
    """``params`` when it is a :class:`RollingParams`, else an :class:`InputError` naming ``owner``."""
    if not isinstance(params, RollingParams):
        raise InputError(f"{owner}: 'params' = {shown(params)}, expected a RollingParams")
    return params


def _packed(params: RollingParams, gravity_world=_GRAVITY) -> np.ndarray:
    """The parameters as the compiled tick reads them: (``_tick.N_PF``,) float64, indices
    ``_tick.P_*`` (with the constants the tick derives from them, and the unit gravity
    direction ``gravity_world``)."""
    p = params
    pf = np.full(_tick.N_PF, np.nan)
    gx, gy, gz = _unit3(gravity_world, "gravity_world")
    for i, value in ((_tick.P_PHI, p.phi), (_tick.P_T_DELAY, p.t_delay), (_tick.P_V_EXTEND, p.v_extend),
                     (_tick.P_L, p.l), (_tick.P_GAMMA, p.gamma), (_tick.P_H_MAX, p.h_max),
                     (_tick.P_ALPHA, p.alpha), (_tick.P_CHECK_ALPHA, p.alpha < math.pi / 2),
                     (_tick.P_TAN2BETA, math.tan(p.beta) ** 2), (_tick.P_REACH2, (p.l + p.dr_max) ** 2),
                     (_tick.P_SEC2PHI, 1.0 / math.cos(p.phi) ** 2),
                     (_tick.P_INV_BETA2, 1.0 / (p.beta * p.beta)),
                     (_tick.P_YAW_DPHI, p.yaw_dphi_max), (_tick.P_ROLL_DT, p.roll_dt_max),
                     (_tick.P_T_FIRE, p.t_fire), (_tick.P_DT_BRAKE, p.t_fire - p.t_delay),
                     (_tick.P_BRAKE_A, (p.t_fire - p.t_delay) / (p.beta * p.beta)),
                     (_tick.P_T_RETRACT, p.t_retract), (_tick.P_REARM, p.require_rearm),
                     (_tick.P_TURN, p.turn_policy != "none"),
                     (_tick.P_ROLL_POLICY, p.turn_policy in ("both", "roll")),
                     (_tick.P_YAW_POLICY, p.turn_policy in ("both", "yaw")),
                     (_tick.P_OMEGA_TURN_MIN, p.omega_turn_min), (_tick.P_THETA_LO, p.theta_lo),
                     (_tick.P_THETA_HI, p.theta_hi), (_tick.P_TURN_BRAKE, p.turn_brake),
                     (_tick.P_DV_MAX, p.dv_max), (_tick.P_K_I, p.k_i), (_tick.P_C_FF, p.c_ff),
                     (_tick.P_INTEGRAL_LIMIT, p.integral_limit), (_tick.P_GX, gx), (_tick.P_GY, gy),
                     (_tick.P_GZ, gz)):
        pf[i] = value
    return pf


# ---------------------------------------------------------------------------------------------
# geometry of the projections (6.8)–(6.11)

def _unit3(v, name: str) -> tuple[float, float, float]:
    try:
        x, y, z = (as_float(c) for c in v)  # NaN for a string, None or a bool: refused below
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}={v!r}: expected a 3-vector") from exc
    nrm = math.sqrt(x * x + y * y + z * z)
    if not nrm > 1e-12 or not math.isfinite(nrm):
        raise InputError(f"{name}={v!r}: expected a finite non-zero 3-vector")
    return x / nrm, y / nrm, z / nrm


def _floats3(v, name: str) -> tuple[float, float, float]:
    """A finite 3-vector as three floats (the control tick's inputs: Python floats pass untouched; a
    string, even of digits, None or a bool is refused, as by :func:`~legsim.errors.as_float`)."""
    items = v.tolist() if isinstance(v, np.ndarray) else v
    try:
        x, y, z = items
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}={shown(v)}: expected a 3-vector") from exc
    if not (type(x) is float and type(y) is float and type(z) is float):
        x, y, z = as_float(x), as_float(y), as_float(z)
    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        raise InputError(f"{name}={shown(v)}: expected a finite 3-vector")
    return x, y, z


_FLOATS = (float, np.float64)
"""A control tick's number of these types passes without a conversion."""


def _tick_number(owner: str, name: str, value, lo: float = -math.inf, hi: float = math.inf) -> float:
    """A number of the control tick within [lo, hi] and finite (a Python or numpy float passes without a
    conversion), else an :class:`InputError` naming ``owner`` and ``name``."""
    v = value if type(value) in _FLOATS else as_float(value)
    if not (math.isfinite(v) and lo <= v <= hi):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a finite number in [{lo:g}, {hi:g}]")
    return v


_F64 = np.dtype(np.float64)
_SHAPE_R = (3, 3)
_SHAPE_3 = (3,)


def _tick_array(v, shape: tuple, name: str) -> np.ndarray:
    """``v`` as a writeable C-contiguous float64 array of ``shape`` for the compiled tick (an array that is
    one already passes as it is: the observation's); not numbers (a string, even of digits, None, a bool)
    or another shape is an :class:`InputError` naming ``name``. Finiteness is the tick's check."""
    if type(v) is np.ndarray and v.dtype is _F64 and v.shape == shape:
        flags = v.flags
        if flags.c_contiguous and flags.writeable:  # (a read-only array would compile the tick anew)
            return v
    a = as_floats(v)
    if a.shape == shape:
        return np.array(a, order="C")  # a copy: writeable
    if name == "R":
        got = f"shape {np.shape(v)}" if isinstance(v, np.ndarray) else shown(v)
        raise InputError(f"R: expected a (3, 3) body-to-world rotation of finite numbers, got {got}")
    raise InputError(f"{name}={shown(v)}: expected a 3-vector of finite numbers")


def _cross(a, b) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def frame(heading_world, gravity_world=_GRAVITY):
    """World unit vectors (g, h, n) as 3-tuples: g the gravity direction, h the heading projected on the
    horizontal plane and normalised, n = h × g (left of h when z is up) (§6.2.1)."""
    g = _unit3(gravity_world, "gravity_world")
    try:
        hx, hy, hz = (as_float(c) for c in heading_world)  # NaN for a string, None or a bool: refused below
    except (TypeError, ValueError) as exc:
        raise InputError(f"heading_world={heading_world!r}: expected a 3-vector") from exc
    d = hx * g[0] + hy * g[1] + hz * g[2]
    hx, hy, hz = hx - d * g[0], hy - d * g[1], hz - d * g[2]
    nrm = math.sqrt(hx * hx + hy * hy + hz * hz)
    if not nrm > 1e-9 or not math.isfinite(nrm):
        raise InputError(f"heading_world={heading_world!r}: expected a vector with a non-zero horizontal "
                         f"component (across gravity_world={gravity_world!r})")
    h = (hx / nrm, hy / nrm, hz / nrm)
    return g, h, _cross(h, g)


@dataclass
class LegAngles:
    """Projection angles of the legs (6.8)–(6.11).

    g, h, n : (3,) body-frame unit vectors of gravity, heading and n = h × g.
    theta_sag, theta_cor : (N,) [rad], atan2 forms (module docstring), in (−π, π].
    down : (N,) bool, R·g > 0 (the only candidates; for them the atan2 and arcsin forms agree).
    """

    g: np.ndarray
    h: np.ndarray
    n: np.ndarray
    theta_sag: np.ndarray
    theta_cor: np.ndarray
    down: np.ndarray


def _basis(g, h, n) -> np.ndarray:
    """(3, 3) world matrix with columns g, h, n."""
    return np.array(((g[0], h[0], n[0]), (g[1], h[1], n[1]), (g[2], h[2], n[2])))


def leg_angles(R, heading_world, legs=LEG_DIRECTIONS, gravity_world=_GRAVITY) -> LegAngles:
    """Sagittal and coronal projection angles (6.8)–(6.11) of every leg.

    R : (3, 3) body→world rotation (orthonormal within 1e-6, det +1). heading_world : (3,) desired
    heading (its horizontal part is used). legs : (N, 3) unit leg vectors in the body frame (entries within
    ±1; only their directions matter). gravity_world : (3,) gravity direction (down).
    theta_sag = atan2(−R̂·ĥ, R̂·ĝ) (> 0 trailing), theta_cor = atan2(−R̂·n̂, R̂·ĝ) (> 0 right of the
    heading), see the module docstring for the derivation from (6.9), (6.11).
    """
    R = check_array("leg_angles", "R", R, (3, 3))
    if not (np.all(np.abs(R) <= 1.0 + 1e-6) and np.allclose(R.T @ R, np.eye(3), rtol=0.0, atol=1e-6)
            and np.linalg.det(R) > 0.0):  # bounded first: R.T @ R of 1e300 entries would overflow
        raise InputError(f"leg_angles: 'R' = {shown(R)}, expected a body-to-world rotation (orthonormal, "
                         "det +1)")
    legs = check_values("leg_angles", "legs", legs, lo=-1.0 - 1e-9, hi=1.0 + 1e-9)  # unit vectors [-]
    if legs.ndim != 2 or legs.shape[1] != 3:
        raise InputError(f"leg_angles: 'legs' has shape {legs.shape}, expected (N, 3) unit vectors")
    g, h, n = frame(heading_world, gravity_world)
    Bb = R.T @ _basis(g, h, n)             # body-frame columns g, h, n
    D = legs @ Bb                           # (N, 3): R·g, R·h, R·n
    return LegAngles(g=Bb[:, 0].copy(), h=Bb[:, 1].copy(), n=Bb[:, 2].copy(),
                     theta_sag=np.arctan2(-D[:, 1], D[:, 0]), theta_cor=np.arctan2(-D[:, 2], D[:, 0]),
                     down=D[:, 0] > 0.0)


# ---------------------------------------------------------------------------------------------
# firing angle (6.14)–(6.19) and eligibility (6.12), (6.16)

def r_total(z, theta_cor, phi):
    """(6.14) distance [m] from the centre at height z [m] to the ground along the imaginary leg with
    coronal angle theta_cor and sagittal angle phi [rad]: z·sqrt(sec²φ + tan²θ_cor)
    = z·|(tan φ, tan θ_cor, 1)|. Broadcasts; z in [0, MAX_GROUND] m, the angles within ±MAX_ANGLE rad."""
    z = check_values("r_total", "z", z, lo=0.0, hi=MAX_GROUND, unit="m")
    theta_cor = check_values("r_total", "theta_cor", theta_cor, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    phi = check_values("r_total", "phi", phi, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    check_broadcast("r_total", z=z, theta_cor=theta_cor, phi=phi)
    return _r_total(z, theta_cor, phi)


def _r_total(z, theta_cor, phi):
    """:func:`r_total` of checked values (:func:`firing_angle` adds the roll damping to theta_cor)."""
    c = np.cos(phi)
    return z * np.sqrt(1.0 / (c * c) + np.tan(theta_cor) ** 2)


def firing_angle(theta_cor, z, omega_pitch, omega_roll, params: RollingParams, phi=None):
    """Firing angle of each leg, (6.14)–(6.19).

    theta_cor : (N,) physical coronal angles [rad]; z : centre height [m] (in [0, MAX_GROUND]);
    omega_pitch = ω·n̂, omega_roll = ω·ĥ [rad/s] (within ±MAX_RATE); phi : desired impact angle(s) [rad]
    (default params.phi; an (N,) array for the yaw-type turning policy); angles within ±MAX_ANGLE.
    theta_cor_adj = theta_cor + γ ω_roll (6.19); Δr = r_total(z, theta_cor_adj, φ) − l (6.14), (6.15);
    t_total = Δr / v_extend + t_delay (6.17); theta_fire = φ − ω_pitch t_total (6.18).
    Returns (theta_fire [rad], dr [m], t_total [s]), each (N,).
    """
    o = "firing_angle"
    p = _params(o, params)
    theta_cor = check_values(o, "theta_cor", theta_cor, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    z = check_number(o, "z", z, lo=0.0, hi=MAX_GROUND)  # [m]
    omega_pitch = check_number(o, "omega_pitch", omega_pitch, lo=-MAX_RATE, hi=MAX_RATE)  # [rad/s]
    omega_roll = check_number(o, "omega_roll", omega_roll, lo=-MAX_RATE, hi=MAX_RATE)  # [rad/s]
    if phi is None:
        phi = p.phi
    else:
        phi = check_values(o, "phi", phi, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
        check_broadcast(o, theta_cor=theta_cor, phi=phi)
    dr = _r_total(z, theta_cor + p.gamma * omega_roll, phi) - p.l
    t_total = dr / p.v_extend + p.t_delay
    return phi - omega_pitch * t_total, dr, t_total


def eligible(z, theta_sag, theta_cor, dr, down, params: RollingParams):
    """Eligibility (6.12), (6.16): z ≤ h_max, |theta_sag| ≤ α, |theta_cor| ≤ β, Δr < Δr_max, and the
    leg points toward the ground (R·g > 0). Arrays (N,) → bool (N,): theta_sag, theta_cor [rad] within
    ±MAX_ANGLE, dr [m] finite, down booleans; z [m] in [0, MAX_GROUND]."""
    o = "eligible"
    p = _params(o, params)
    z = check_number(o, "z", z, lo=0.0, hi=MAX_GROUND)  # [m]
    theta_sag = check_values(o, "theta_sag", theta_sag, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    theta_cor = check_values(o, "theta_cor", theta_cor, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    dr = check_values(o, "dr", dr, unit="m")
    try:
        flags = np.asarray(down)
    except (TypeError, ValueError):  # a ragged list
        flags = np.zeros(0, dtype=object)
    if flags.dtype != np.bool_:
        raise InputError(f"eligible: 'down' = {shown(down)}, expected booleans (R·g > 0, per leg)")
    check_broadcast(o, theta_sag=theta_sag, theta_cor=theta_cor, dr=dr, down=flags)
    if not z <= p.h_max:
        return np.zeros(np.shape(theta_sag), dtype=bool)
    return flags & (np.abs(theta_sag) <= p.alpha) & (np.abs(theta_cor) <= p.beta) & (dr < p.dr_max)


# ---------------------------------------------------------------------------------------------
# brake (6.20)–(6.22)

def brake_signal(v, v_d, params: RollingParams, integral: float = 0.0) -> float:
    """(6.22) ξ_brake = clip((v − v_d)/Δv_max + K_I·I + c_ff, 0, 1), I = ∫(v − v_d) dt [m].
    With integral = 0 and c_ff = 0 this is (6.20). v, v_d [m/s]: speeds in [0, MAX_RATE]; integral
    within ±MAX_GROUND."""
    o = "brake_signal"
    return _tick.brake_signal(_packed(_params(o, params)),
                              check_number(o, "v", v, lo=0.0, hi=MAX_RATE),  # [m/s]
                              check_number(o, "v_d", v_d, lo=0.0, hi=MAX_RATE),  # [m/s]
                              check_number(o, "integral", integral, lo=-MAX_GROUND, hi=MAX_GROUND))  # [m]


def brake_valve_time(theta_cor, xi, params: RollingParams):
    """(6.21), corrected (digest §3.6): t_fire = ξ (Δt/β²) θ_cor² + (t_std − ξ Δt), Δt = t_std − t_delay.

    t_fire = t_std at θ_cor = ±β for any ξ; the vertex (θ_cor = 0) moves linearly from t_std (ξ = 0) to
    t_delay (ξ = 1). ξ (a finite number) is clipped to [0, 1]. theta_cor [rad] (within ±MAX_ANGLE)
    broadcasts; returns seconds."""
    o = "brake_valve_time"
    p = _params(o, params)
    theta_cor = check_values(o, "theta_cor", theta_cor, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    xi = min(max(check_number(o, "xi", xi), 0.0), 1.0)
    dt = p.t_fire - p.t_delay
    return xi * dt / (p.beta * p.beta) * np.square(theta_cor) + (p.t_fire - xi * dt)


class BrakeController:
    """State of the brake (6.22): the time integral I = ∫(v − v_d) dt with anti-windup.

    Anti-windup: the integral is frozen while ξ is saturated and the error would drive it further into
    saturation (conditional integration), and K_I·I is kept within ±integral_limit. The update is the
    compiled ``_tick.brake_update`` (the rolling controller's tick runs the same one)."""

    def __init__(self, params: RollingParams) -> None:
        self._params = _params("BrakeController", params)
        self._pf = _packed(self._params)
        self._state = np.zeros(_tick.N_BS)
        self.reset()

    @property
    def params(self) -> RollingParams:
        """The parameters (read-only: the compiled update reads them packed once)."""
        return self._params

    def reset(self) -> None:
        """Forget the integral, the last ξ and the time."""
        self._state[:] = 0.0

    @property
    def integral(self) -> float:
        """I = ∫(v − v_d) dt [m]."""
        return float(self._state[_tick.B_INTEGRAL])

    @property
    def xi(self) -> float:
        """ξ_brake of the last update."""
        return float(self._state[_tick.B_XI])

    def update(self, t: float, v: float, v_d: float | None) -> float:
        """Advance to time t [s] with speed v [m/s] and command v_d [m/s] (None: brake off, integral held),
        both in [0, MAX_RATE]. Returns ξ_brake."""
        o = "BrakeController.update"
        t = _tick_number(o, "t", t)
        xi = _tick.brake_update(self._pf, self._state, t, _tick_number(o, "v", v, 0.0, MAX_RATE),
                                -1.0 if v_d is None else _tick_number(o, "v_d", v_d, 0.0, MAX_RATE))
        if xi < 0.0:
            raise self._backwards(t)
        return xi

    def _backwards(self, t: float) -> InputError:
        last = float(self._state[_tick.B_T_PREV])
        return InputError(f"brake: time went backwards ({t!r} < {last!r} s); call reset()")


# ---------------------------------------------------------------------------------------------
# turning (6.23)–(6.25)

def heading_error(omega_world, heading_world, gravity_world=_GRAVITY, omega_min: float = 0.0):
    """Rolling direction and heading error, (6.23)–(6.25).

    ω_proj = ω − (ω·ĝ)ĝ (6.23); ĥ_roll = ĝ × ω_proj / |ω_proj| (6.24);
    θ_error = sign(ĥ_roll·n̂) arccos(ĥ_roll·ĥ) (6.25), positive when rolling to the left of ĥ (n̂ side).
    Returns (theta_error [rad], h_roll (3-tuple, world) or None, |ω_proj| [rad/s]); h_roll is None and
    theta_error 0 when |ω_proj| < omega_min or ω_proj = 0.
    """
    g, h, n = frame(heading_world, gravity_world)
    w = _floats3(omega_world, "omega_world")
    omega_min = check_number("heading_error", "omega_min", omega_min, lo=0.0)  # [rad/s]
    wg = _dot(w, g)
    wp = (w[0] - wg * g[0], w[1] - wg * g[1], w[2] - wg * g[2])
    m = math.sqrt(_dot(wp, wp))
    if m <= 0.0 or m < omega_min:
        return 0.0, None, m
    c = _cross(g, wp)
    hr = (c[0] / m, c[1] / m, c[2] / m)
    cosang = min(max(_dot(hr, h), -1.0), 1.0)
    s = _dot(hr, n)
    return (math.copysign(math.acos(cosang), s) if s != 0.0 else math.acos(cosang)), hr, m


def turn_effort(theta_error: float, params: RollingParams) -> float:
    """ξ_turn (Fig. 6.23): 0 for |θ_error| ≤ theta_lo, rising linearly to 1 at theta_hi, then 1.
    theta_error [rad] in [−π, π] (:func:`heading_error`)."""
    return _tick.turn_effort(_packed(_params("turn_effort", params)),
                             check_number("turn_effort", "theta_error", theta_error, lo=-math.pi, hi=math.pi))


def turn_adjustments(theta_cor, theta_error: float, xi_turn: float, params: RollingParams):
    """Per-leg turning modifications (§6.2.2), in the rolling basis {ĥ_roll, ω̂_proj, ĝ}.

    inside = θ_cor·θ_error > 0 (legs on the side the robot must turn toward), outside = θ_cor·θ_error < 0,
    w = (θ_cor/β)² (large |θ_cor| legs; clipped to 1).
    Roll-type: inside legs are not fired; outside valve times + ξ_turn·roll_dt_max·w [s].
    Yaw-type: outside impact angles φ − ξ_turn·yaw_dphi_max·w [rad] (fire earlier).
    theta_cor [rad] within ±MAX_ANGLE; theta_error [rad] in [−π, π]; xi_turn in [0, 1] (:func:`turn_effort`).
    Returns (suppress (N,) bool, extra_time (N,) [s], phi (N,) [rad]).
    """
    o = "turn_adjustments"
    p = _params(o, params)
    theta_cor = check_values(o, "theta_cor", theta_cor, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")
    theta_error = check_number(o, "theta_error", theta_error, lo=-math.pi, hi=math.pi)  # [rad]
    xi_turn = check_number(o, "xi_turn", xi_turn, lo=0.0, hi=1.0)
    s = theta_cor * theta_error
    w = np.minimum(np.square(theta_cor) / (p.beta * p.beta), 1.0)
    outside = s < 0.0
    active = xi_turn > 0.0
    roll = active and p.turn_policy in ("both", "roll")
    yaw = active and p.turn_policy in ("both", "yaw")
    suppress = (s > 0.0) if roll else np.zeros(theta_cor.shape, dtype=bool)
    extra = np.where(outside, xi_turn * p.roll_dt_max * w, 0.0) if roll else np.zeros(theta_cor.shape)
    phi = p.phi - (np.where(outside, xi_turn * p.yaw_dphi_max * w, 0.0) if yaw else 0.0)
    return suppress, extra, np.broadcast_to(phi, theta_cor.shape)


def quantise_ms(duration_s: float) -> int:
    """Valve time [s] → whole ms, rounded up (1 ms valve resolution); float noise below 1e-9 ms ignored."""
    return int(math.ceil(check_number("quantise_ms", "duration_s", duration_s, lo=-1e6, hi=1e6) * 1e3 - 1e-9))


# ---------------------------------------------------------------------------------------------
# controller

@dataclass
class RollingDiagnostics:
    """What the last :meth:`RollingController.step` computed (arrays (12,) unless noted).

    heading : (3,) world heading of the sagittal plane used (h or h_roll); theta_sag, theta_cor,
    theta_fire [rad]; dr [m] (physical, for (6.16)); eligible, in_zone (eligible and θ_sag ≥ θ_fire);
    omega_pitch, omega_roll [rad/s]; theta_error [rad]; xi_turn; xi_brake; fired : [(leg, ms)]."""

    heading: tuple
    theta_sag: np.ndarray
    theta_cor: np.ndarray
    theta_fire: np.ndarray
    dr: np.ndarray
    eligible: np.ndarray
    in_zone: np.ndarray
    omega_pitch: float
    omega_roll: float
    theta_error: float
    xi_turn: float
    xi_brake: float
    fired: list


class RollingController:
    """Impact-angle rolling controller with brake and turning (§6.2), one call per control tick.

    ``step(t, R, omega_world, z, v_world, heading_world, v_desired=None)`` returns the legs to fire now as
    [(leg index 0–11, valve time in whole ms)]. t [s] must not decrease (else ``reset()``). R (3, 3) is
    body→world; omega_world (3,) [rad/s] and v_world (3,) [m/s] are world-frame; z [m] is the centre's
    height above the ground; heading_world (3,) the desired heading; v_desired [m/s] enables the brake.
    ``last`` holds :class:`RollingDiagnostics` of the last step.
    """

    def __init__(self, params: RollingParams | None = None, legs=LEG_DIRECTIONS,
                 gravity_world=_GRAVITY) -> None:
        self._params = _params("RollingController", params if params is not None else RollingParams())
        legs = as_floats(legs).copy()
        if legs.ndim != 2 or legs.shape[1] != 3 or len(legs) == 0:
            raise InputError(f"legs: shape {legs.shape}, expected (N, 3)")
        nrm = np.linalg.norm(legs, axis=1)
        if not np.all(np.abs(nrm - 1.0) < 1e-9):
            raise InputError("legs: expected unit vectors")
        self.legs = np.ascontiguousarray(legs)
        self.gravity = _unit3(gravity_world, "gravity_world")
        self.brake = BrakeController(self._params)
        n = len(self.legs)
        # the compiled tick's data (legsim.robots.rats._tick's docstring)
        self._pf = _packed(self._params, self.gravity)
        self.ready_time = np.zeros(n)            # earliest time each leg may fire again [s]
        self.armed = np.zeros(n, dtype=bool)
        self._pl = np.zeros((_tick.N_PL, n))
        self._diag = np.zeros(_tick.N_DIAG)
        self._fired = np.zeros((n, 2), dtype=np.int64)
        self._tick: Callable[..., int] = _tick.rolling_tick  # its compiled entry after the first step
        self.reset()

    @property
    def params(self) -> RollingParams:
        """The parameters (read-only: the compiled tick reads them packed once; a new controller takes new
        ones)."""
        return self._params

    def reset(self) -> None:
        """Forget the lockout, re-arm state, brake integral and time."""
        self.ready_time[:] = -math.inf
        self.armed[:] = True
        self.brake.reset()
        self._last: tuple | None = None      # (z, the fired list) of the last step

    def step(self, t, R, omega_world, z, v_world, heading_world, v_desired=None) -> list[tuple[int, int]]:
        """Legs to fire at this tick: [(leg index, valve time in whole ms)] (class docstring)."""
        o = "RollingController.step"
        t = _tick_number(o, "t", t)
        z = _tick_number(o, "z", z, -MAX_GROUND, MAX_GROUND)  # [m]
        v_d = -1.0 if v_desired is None else _tick_number(o, "v_desired", v_desired, 0.0, MAX_RATE)  # [m/s]
        args = (self._pf, self.legs, t, _tick_array(R, _SHAPE_R, "R"),
                _tick_array(omega_world, _SHAPE_3, "omega_world"), z,
                _tick_array(v_world, _SHAPE_3, "v_world"),
                _tick_array(heading_world, _SHAPE_3, "heading_world"), v_d, self.ready_time, self.armed,
                self.brake._state, self._pl, self._diag, self._fired)
        n = self._tick(*args)
        if self._tick is _tick.rolling_tick:  # every argument has its type fixed above: call the overload
            self._tick = entry_point(_tick.rolling_tick, args)
        if n < 0:
            raise self._refusal(n, t, R, omega_world, v_world, heading_world)
        out = [(i, ms) for i, ms in self._fired[:n].tolist()] if n else []
        self._last = (z, out)
        return out

    def _refusal(self, code: int, t: float, R, omega_world, v_world, heading_world) -> InputError:
        """The :class:`InputError` for the compiled tick's refusal ``code`` (``_tick.E_*``)."""
        if code == _tick.E_BACKWARDS:
            return self.brake._backwards(t)
        if code == _tick.E_R:
            got = f"shape {np.shape(R)}" if isinstance(R, np.ndarray) else shown(R)
            return InputError(f"R: expected a (3, 3) body-to-world rotation of finite numbers, got {got}")
        if code == _tick.E_HORIZONTAL:
            return InputError(f"heading_world={heading_world!r}: expected a non-zero horizontal component")
        name, value = {_tick.E_HEADING: ("heading_world", heading_world),
                       _tick.E_OMEGA: ("omega_world", omega_world), _tick.E_V: ("v_world", v_world)}[code]
        return InputError(f"{name}={shown(value)}: expected a 3-vector of finite numbers")

    @property
    def last(self) -> RollingDiagnostics | None:
        """Diagnostics of the last :meth:`step` (built on access, so that step stays cheap)."""
        if self._last is None:
            return None
        z, out = self._last
        pl, d = self._pl.copy(), self._diag.tolist()
        return RollingDiagnostics(heading=(d[_tick.D_HX], d[_tick.D_HY], d[_tick.D_HZ]),
                                  theta_sag=pl[_tick.L_THETA_SAG], theta_cor=pl[_tick.L_THETA_COR],
                                  theta_fire=pl[_tick.L_THETA_FIRE],
                                  dr=z * np.sqrt(pl[_tick.L_Q2]) - self.params.l,
                                  eligible=pl[_tick.L_ELIGIBLE] != 0.0, in_zone=pl[_tick.L_IN_ZONE] != 0.0,
                                  omega_pitch=d[_tick.D_OMEGA_PITCH], omega_roll=d[_tick.D_OMEGA_ROLL],
                                  theta_error=d[_tick.D_THETA_ERROR], xi_turn=d[_tick.D_XI_TURN],
                                  xi_brake=d[_tick.D_XI_BRAKE], fired=list(out))
