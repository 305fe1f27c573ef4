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
from dataclasses import dataclass, fields

import numpy as np

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


def _tick_number(owner: str, name: str, value, lo: float = -math.inf, hi: float = math.inf) -> float:
    """A number of the control tick within [lo, hi] and finite (a Python float passes without a
    conversion), else an :class:`InputError` naming ``owner`` and ``name``."""
    v = value if type(value) is float else as_float(value)
    if not (math.isfinite(v) and lo <= v <= hi):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected a finite number in [{lo:g}, {hi:g}]")
    return v


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
    return _brake_signal(check_number(o, "v", v, lo=0.0, hi=MAX_RATE),  # [m/s]
                         check_number(o, "v_d", v_d, lo=0.0, hi=MAX_RATE),  # [m/s]
                         _params(o, params),
                         check_number(o, "integral", integral, lo=-MAX_GROUND, hi=MAX_GROUND))  # [m]


def _brake_signal(v: float, v_d: float, p: RollingParams, integral: float) -> float:
    """:func:`brake_signal` of checked values (:class:`BrakeController` calls it every control tick)."""
    x = (v - v_d) / p.dv_max + p.k_i * integral + p.c_ff
    return 0.0 if x <= 0.0 else (1.0 if x >= 1.0 else x)


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
    saturation (conditional integration), and K_I·I is kept within ±integral_limit."""

    def __init__(self, params: RollingParams) -> None:
        self.params = _params("BrakeController", params)
        self.reset()

    def reset(self) -> None:
        self.integral = 0.0
        self.xi = 0.0
        self._t_prev: float | None = None

    def update(self, t: float, v: float, v_d: float | None) -> float:
        """Advance to time t [s] with speed v [m/s] and command v_d [m/s] (None: brake off, integral held),
        both in [0, MAX_RATE]. Returns ξ_brake."""
        o = "BrakeController.update"
        return self._update(_tick_number(o, "t", t), _tick_number(o, "v", v, 0.0, MAX_RATE),
                            None if v_d is None else _tick_number(o, "v_d", v_d, 0.0, MAX_RATE))

    def _update(self, t: float, v: float, v_d: float | None) -> float:
        """:meth:`update` of checked values (:meth:`RollingController.step` calls it every tick)."""
        p = self.params
        dt = 0.0 if self._t_prev is None else t - self._t_prev
        if dt < 0.0:
            raise InputError(f"brake: time went backwards ({t!r} < {self._t_prev!r} s); call reset()")
        self._t_prev = t
        if v_d is None:
            self.xi = 0.0
            return 0.0
        e = v - v_d
        if dt > 0.0 and p.k_i > 0.0:
            raw = e / p.dv_max + p.k_i * self.integral + p.c_ff
            if not ((raw >= 1.0 and e > 0.0) or (raw <= 0.0 and e < 0.0)):
                lim = p.integral_limit / p.k_i
                self.integral = min(max(self.integral + e * dt, -lim), lim)
        self.xi = _brake_signal(v, v_d, p, self.integral)
        return self.xi


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
    return _turn_effort(check_number("turn_effort", "theta_error", theta_error, lo=-math.pi, hi=math.pi),
                        _params("turn_effort", params))


def _turn_effort(theta_error: float, p: RollingParams) -> float:
    """:func:`turn_effort` of checked values (:meth:`RollingController.step` calls it every control tick)."""
    x = (abs(theta_error) - p.theta_lo) / (p.theta_hi - p.theta_lo)
    return 0.0 if x <= 0.0 else (1.0 if x >= 1.0 else x)


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
        self.params = _params("RollingController", params if params is not None else RollingParams())
        legs = as_floats(legs).copy()
        if legs.ndim != 2 or legs.shape[1] != 3 or len(legs) == 0:
            raise InputError(f"legs: shape {legs.shape}, expected (N, 3)")
        nrm = np.linalg.norm(legs, axis=1)
        if not np.all(np.abs(nrm - 1.0) < 1e-9):
            raise InputError("legs: expected unit vectors")
        self.legs = np.ascontiguousarray(legs)
        self._legs3 = [tuple(r) for r in self.legs.tolist()]
        self.gravity = _unit3(gravity_world, "gravity_world")
        p = self.params
        self._sec2phi = 1.0 / math.cos(p.phi) ** 2
        self._dt_brake = p.t_fire - p.t_delay
        self._brake_a = self._dt_brake / (p.beta * p.beta)
        self._tan2beta = math.tan(p.beta) ** 2
        self._reach2 = (p.l + p.dr_max) ** 2
        self._check_alpha = p.alpha < math.pi / 2
        self._turn_on = p.turn_policy != "none"
        self._roll_policy = p.turn_policy in ("both", "roll")
        self._yaw_policy = p.turn_policy in ("both", "yaw")
        self._inv_beta2 = 1.0 / (p.beta * p.beta)
        self.brake = BrakeController(p)
        self.reset()

    def reset(self) -> None:
        """Forget the lockout, re-arm state, brake integral and time."""
        n = len(self.legs)
        self.ready_time = [-math.inf] * n          # earliest time each leg may fire again [s]
        self.armed = [True] * n
        self.brake.reset()
        self._last: tuple | None = None
        # the last step's per-leg values (Python lists: a scalar loop over 12 legs costs half of numpy's
        # per-call overhead on (12,) arrays): θ_sag, θ_cor, θ_fire, sec²φ + tan²θ_cor, eligible, in zone
        self._per_leg = tuple([0.0] * n for _ in range(4)) + tuple([False] * n for _ in range(2))

    def step(self, t, R, omega_world, z, v_world, heading_world, v_desired=None) -> list[tuple[int, int]]:
        """Legs to fire at this tick: [(leg index, valve time in whole ms)] (class docstring)."""
        p = self.params
        o = "RollingController.step"
        t = _tick_number(o, "t", t)
        z = _tick_number(o, "z", z, -MAX_GROUND, MAX_GROUND)  # [m]
        if v_desired is not None:
            v_desired = _tick_number(o, "v_desired", v_desired, 0.0, MAX_RATE)  # [m/s]
        gx, gy, gz = self.gravity
        # desired frame {h, n = h × g, g} (§6.2.1), scalar Python (cheaper than numpy on 3-vectors)
        hx, hy, hz = _floats3(heading_world, "heading_world")
        d = hx * gx + hy * gy + hz * gz
        hx, hy, hz = hx - d * gx, hy - d * gy, hz - d * gz
        m = math.sqrt(hx * hx + hy * hy + hz * hz)
        if not m > 1e-9:
            raise InputError(f"heading_world={heading_world!r}: expected a non-zero horizontal component")
        hx, hy, hz = hx / m, hy / m, hz / m
        nx, ny, nz = hy * gz - hz * gy, hz * gx - hx * gz, hx * gy - hy * gx
        wx, wy, wz = _floats3(omega_world, "omega_world")
        # heading error and turning effort (6.23)–(6.25); basis {h_roll, ω̂_proj, g} when ξ_turn > 0
        theta_error = 0.0
        xi_turn = 0.0
        if self._turn_on:
            wg = wx * gx + wy * gy + wz * gz
            px, py, pz = wx - wg * gx, wy - wg * gy, wz - wg * gz
            wpn = math.sqrt(px * px + py * py + pz * pz)
            if wpn > 0.0 and wpn >= p.omega_turn_min:
                rx, ry, rz = (gy * pz - gz * py) / wpn, (gz * px - gx * pz) / wpn, (gx * py - gy * px) / wpn
                ang = math.acos(min(max(rx * hx + ry * hy + rz * hz, -1.0), 1.0))
                theta_error = -ang if rx * nx + ry * ny + rz * nz < 0.0 else ang
                xi_turn = _turn_effort(theta_error, p)
                if xi_turn > 0.0:
                    hx, hy, hz = rx, ry, rz
                    nx, ny, nz = hy * gz - hz * gy, hz * gx - hx * gz, hx * gy - hy * gx
        omega_pitch = wx * nx + wy * ny + wz * nz
        omega_roll = wx * hx + wy * hy + wz * hz
        # brake (6.22) on the horizontal speed
        vx, vy, vz = _floats3(v_world, "v_world")
        vg = vx * gx + vy * gy + vz * gz
        vx, vy, vz = vx - vg * gx, vy - vg * gy, vz - vg * gz
        xi_brake = self.brake._update(t, math.sqrt(vx * vx + vy * vy + vz * vz), v_desired)
        if xi_turn > 0.0 and p.turn_brake > 0.0:
            xi_brake = min(1.0, xi_brake + p.turn_brake * xi_turn)
        # projections (6.8)–(6.11), leg by leg: (R̂·ĝ, −R̂·ĥ, −R̂·n̂) of the leg's world direction R̂ = R L,
        # formed as L·(Rᵀg), L·(−Rᵀh), L·(−Rᵀn) from its body-frame direction L
        try:
            (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = R.tolist() if isinstance(R, np.ndarray) else R
            g0, g1, g2 = r00 * gx + r10 * gy + r20 * gz, r01 * gx + r11 * gy + r21 * gz, \
                r02 * gx + r12 * gy + r22 * gz
            s0, s1, s2 = -(r00 * hx + r10 * hy + r20 * hz), -(r01 * hx + r11 * hy + r21 * hz), \
                -(r02 * hx + r12 * hy + r22 * hz)
            c0, c1, c2 = -(r00 * nx + r10 * ny + r20 * nz), -(r01 * nx + r11 * ny + r21 * nz), \
                -(r02 * nx + r12 * ny + r22 * nz)
            finite = math.isfinite(g0 + g1 + g2 + s0 + s1 + s2 + c0 + c1 + c2)
        except (TypeError, ValueError):  # not 3 rows of 3, or not numbers (a string times a float)
            finite = False
        if not finite:
            got = f"shape {np.shape(R)}" if isinstance(R, np.ndarray) else shown(R)
            raise InputError(f"R: expected a (3, 3) body-to-world rotation of finite numbers, got {got}")
        turning = xi_turn > 0.0
        yaw_turn = turning and self._yaw_policy
        roll_turn = turning and self._roll_policy
        # (6.14)–(6.18): θ_fire = φ − ω_pitch (Δr/v + t_delay), Δr = z sqrt(sec²φ + tan²θ_cor,adj) − l
        k = omega_pitch / p.v_extend
        lead = p.phi - omega_pitch * p.t_delay + k * p.l
        kz = k * z
        damped = p.gamma != 0.0 and omega_roll != 0.0             # roll damping (6.19): timing only
        reach = z <= p.h_max
        zz = z * z
        sec2 = self._sec2phi
        t_ready = t + 1e-9                                           # lockout (1e-9 s: float noise)
        ts_, tc_, tf_, q2_, ok_, iz_ = self._per_leg
        ready, armed, rearm = self.ready_time, self.armed, p.require_rearm
        candidates = []
        for i, (lx, ly, lz) in enumerate(self._legs3):
            dg = lx * g0 + ly * g1 + lz * g2
            dc = lx * c0 + ly * c1 + lz * c2
            theta_sag = math.atan2(lx * s0 + ly * s1 + lz * s2, dg)
            theta_cor = math.atan2(dc, dg)
            tc = dc / (dg if dg > 1e-12 else 1e-12)                  # tan θ_cor of the downward legs
            tc2 = tc * tc
            fire_lead = lead
            if yaw_turn:                                              # yaw-type: outside legs' φ lowered
                outside = theta_cor * theta_error < 0.0
                w = min(theta_cor * theta_cor * self._inv_beta2, 1.0) if outside else 0.0
                phi = p.phi - (xi_turn * p.yaw_dphi_max) * w
                c = math.cos(phi)
                sec2 = 1.0 / (c * c)
                fire_lead = phi - omega_pitch * p.t_delay + k * p.l
            if damped:
                ta = math.tan(theta_cor + p.gamma * omega_roll)
                q = math.sqrt(sec2 + ta * ta)
            else:
                q = math.sqrt(sec2 + tc2)
            theta_fire = fire_lead - kz * q
            # eligibility (6.12), (6.16) on the physical θ_cor:
            # Δr < Δr_max ⇔ z²(sec²φ + tan²θ_cor) < (l + Δr_max)²
            q2 = sec2 + tc2
            ok = reach and dg > 0.0 and tc2 <= self._tan2beta and zz * q2 < self._reach2 \
                and (not self._check_alpha or abs(theta_sag) <= p.alpha)
            in_zone = ok and theta_sag >= theta_fire                      # (6.13)
            if in_zone and ready[i] <= t_ready and (not rearm or armed[i]):
                candidates.append((i, theta_cor))
            if rearm and not in_zone:
                armed[i] = True
            ts_[i], tc_[i], tf_[i], q2_[i], ok_[i], iz_[i] = theta_sag, theta_cor, theta_fire, q2, ok, in_zone
        out: list[tuple[int, int]] = []
        if candidates:
            a = self._brake_a * xi_brake
            b = p.t_fire - xi_brake * self._dt_brake
            for i, tci in candidates:
                tk = a * tci * tci + b                                  # brake parabola (6.21)
                if roll_turn:                                           # roll-type turning
                    si = tci * theta_error
                    if si > 0.0:
                        continue                                        # inside of the turn: no fire
                    if si < 0.0:
                        tk += xi_turn * p.roll_dt_max * min(tci * tci * self._inv_beta2, 1.0)
                if tk <= p.t_delay + 1e-12:                     # the valve would never open
                    continue
                ms = quantise_ms(tk)
                out.append((i, ms))
                ready[i] = t + ms * 1e-3 + p.t_retract
                armed[i] = False
        self._last = ((hx, hy, hz), z, omega_pitch, omega_roll, theta_error, xi_turn, xi_brake, out)
        return out

    @property
    def last(self) -> RollingDiagnostics | None:
        """Diagnostics of the last :meth:`step` (built on access, so that step stays cheap)."""
        if self._last is None:
            return None
        h, z, wp, wr, te, xt, xb, out = self._last
        ts, tcor, tf, q2 = (np.array(v) for v in self._per_leg[:4])
        ok, iz = (np.array(v, dtype=bool) for v in self._per_leg[4:])
        return RollingDiagnostics(heading=h, theta_sag=ts, theta_cor=tcor, theta_fire=tf,
                                  dr=z * np.sqrt(q2) - self.params.l, eligible=ok, in_zone=iz, omega_pitch=wp,
                                  omega_roll=wr, theta_error=te, xi_turn=xt, xi_brake=xb, fired=out)
