"""Spring-loaded inverted pendulum (SLIP) runner, SimSect's first worked model (digest §3).

A point mass m on a massless leg. In stance the leg pivots freely about the toe (f_x, f_y)
and a radial spring with potential U_ij(q_r) pushes the mass; in flight the mass is a
projectile and the leg is swung, without cost, to the touchdown angle.

State (digest §3.3): x = [x, y, xdot, ydot, footx, footy, touchdown_angle]; the last three are
bookkeeping states, constant between events. Parameters: body_mass, q_rt (touchdown leg
length), q_rl (liftoff leg length), g_stance, g_flight, framerate, q_0 (spring rest length),
spri, sprj (spring family exponents), k (stiffness); legsim adds ``touchdown_policy``
(0: touchdown angle = −liftoff angle, SimSect's rule; 1: the fixed ``touchdown_fixed_angle``).

Charts and guards (digest §3.2; one guard per chart, guard index = chart number, each falling
through zero, placement RIGHT as in SimSect's slip_DefineChart):

=====================  =======================================================
ASCENT (0)             b = ydot                          (apex)
DESCENT (1)            b = y − q_rt cos(q_θt)            (toe reaches y = 0)
COMPRESSION (2)        b = −q̇_r = −(l_x ẋ + l_y ẏ)/|l|   (maximum compression)
DECOMPRESSION (3)      b = q_rl − |l|                    (leg reaches liftoff length)
=====================  =======================================================

with l = (x − f_x, y − f_y). Departures from SimSect, each fixing a defect the digest notes:
the initial q̇_r uses the leg vector relative to the foot (SimSect used the absolute position,
§3.5); at liftoff with ẏ ≤ 0 the next chart is DESCENT rather than ASCENT (ASCENT's apex guard
would never fire); the mass default is 1 kg (SimSect's is illegible; k·0.1 > m·g needs m < 10 kg).
"""

from __future__ import annotations

import math

import numpy as np

from .. import hybrid
from ..errors import InputError
from ..hybrid import signatures as hs

ASCENT, DESCENT, COMPRESSION, DECOMPRESSION = 0, 1, 2, 3
CHART_NAMES = ("ASCENT", "DESCENT", "COMPRESSION", "DECOMPRESSION")

STATE_NAMES = ("x", "y", "xdot", "ydot", "footx", "footy", "touchdown_angle")
STATE_DEFAULTS = (0.0, 0.9, 1.0, 0.0, 0.0, 0.0, 0.0)
PARAM_NAMES = ("body_mass", "q_rt", "q_rl", "g_stance", "g_flight", "framerate", "q_0", "spri",
               "sprj", "k", "touchdown_policy", "touchdown_fixed_angle")
PARAM_DEFAULTS = (1.0, 1.0, 1.0, 10.0, 10.0, 120.0, 1.0, 2.0, 1.0, 1000.0, 0.0, 0.0)
OUTPUT_NAMES = ("time", "x", "y", "xdot", "ydot")
PARAM_RANGES = {
    "body_mass": hybrid.positive("kg", "point mass"),
    "q_rt": hybrid.positive("m", "leg length at touchdown"),
    "q_rl": hybrid.positive("m", "leg length at liftoff"),
    "g_stance": hybrid.nonnegative("m/s^2", "gravity in stance"),
    "g_flight": hybrid.nonnegative("m/s^2", "gravity in flight"),
    "framerate": hybrid.positive("1/s", "viewer frames per second (visualisation only)"),
    "q_0": hybrid.positive("m", "spring rest length"),
    "spri": hybrid.positive(doc="spring family exponent i of U_ij (sprj: exponent j, any non-zero)"),
    "k": hybrid.positive("N/m (linear spring)", "spring stiffness"),
    "touchdown_policy": hybrid.choice(0, 1, doc="0: touchdown angle = -liftoff angle; 1: fixed angle"),
    "touchdown_fixed_angle": hybrid.between(-math.pi / 2, math.pi / 2, "rad", "touchdown angle of "
                                            "policy 1, from the vertical", open_low=True, open_high=True),
}

(P_M, P_QRT, P_QRL, P_GST, P_GFL, P_FPS, P_Q0, P_I, P_J, P_K, P_POLICY, P_TDFIX) = range(12)


@hs.njit_helper
def spring_derivative(qr, qr0, k, i, j):
    """dU_ij/dq_r of U_ij(q_r) = k/(|i||j|) · (sgn(j)(q_r^j − q_r0^j))^i (digest §3.4, eq. (1) ⚠).

    (i, j) = (2, 1) is the linear spring k(q_r − q_r0). The value is the negative of the spring
    force along the leg [N].
    """
    if i == 2.0 and j == 1.0:
        return k * (qr - qr0)
    sj = 1.0 if j > 0 else -1.0
    return (k * i / (abs(i) * abs(j)) * ((qr ** j - qr0 ** j) * sj) ** (i - 1.0)
            * abs(j) * qr ** (j - 1.0))


@hs.njit_helper
def spring_potential(qr, qr0, k, i, j):
    """U_ij(q_r) [J] (digest §3.4); (2, 1) gives k/2 (q_r − q_r0)²."""
    sj = 1.0 if j > 0 else -1.0
    return k / (abs(i) * abs(j)) * ((qr ** j - qr0 ** j) * sj) ** i


@hs.vector_field(allocates=False)
def slip_field(t, x, p, mode, xdot):
    """Stance: ẍ = −U'(q_r) sin q_θ / m, ÿ = −U'(q_r) cos q_θ / m − g_stance; flight: ẍ = 0,
    ÿ = −g_flight (digest §3.1), with q_θ = atan2(x − f_x, y − f_y)."""
    xdot[0] = x[2]
    xdot[1] = x[3]
    for i in range(4, 7):
        xdot[i] = 0.0
    if mode == COMPRESSION or mode == DECOMPRESSION:
        lx = x[0] - x[4]
        ly = x[1] - x[5]
        rho = math.sqrt(lx * lx + ly * ly)
        # sin q_θ = l_x/ρ and cos q_θ = l_y/ρ for q_θ = atan2(l_x, l_y)
        force = spring_derivative(rho, p[P_Q0], p[P_K], p[P_I], p[P_J]) / (rho * p[P_M])
        xdot[2] = -force * lx
        xdot[3] = -force * ly - p[P_GST]
    else:
        xdot[2] = 0.0
        xdot[3] = -p[P_GFL]


@hs.guards(allocates=False)
def slip_guards(t, x, p, mode, g):
    """The boundary function of the current chart (digest §3.2); the others are inactive."""
    for i in range(4):
        g[i] = hs.INACTIVE
    if mode == ASCENT:
        g[0] = x[3]
    elif mode == DESCENT:
        g[1] = x[1] - p[P_QRT] * math.cos(x[6])
    else:
        lx = x[0] - x[4]
        ly = x[1] - x[5]
        rho = math.sqrt(lx * lx + ly * ly)
        if mode == COMPRESSION:
            g[2] = -(lx * x[2] + ly * x[3]) / rho
        else:
            g[3] = p[P_QRL] - rho


@hs.reset(allocates=False)
def slip_reset(t, x, p, mode, fired, x_new):
    """Chart transitions (digest §3.5): touchdown places the foot, liftoff sets the next
    touchdown angle (−liftoff angle, or a fixed angle with touchdown_policy = 1)."""
    if mode == ASCENT:
        return DESCENT
    if mode == DESCENT:
        x_new[4] = x[0] - p[P_QRT] * math.sin(x[6])
        x_new[5] = x[1] - p[P_QRT] * math.cos(x[6])
        return COMPRESSION
    if mode == COMPRESSION:
        return DECOMPRESSION
    lx = x[0] - x[4]
    ly = x[1] - x[5]
    if p[P_POLICY] == 0.0:
        x_new[6] = -math.atan2(lx, ly)
    else:
        x_new[6] = p[P_TDFIX]
    return ASCENT if x[3] > 0.0 else DESCENT


@hs.outputs(allocates=False)
def slip_outputs(t, x, p, mode, y):
    """SimSect's slip_AuxFunc columns: time, x, y, xdot, ydot (digest §3.3)."""
    y[0] = t
    y[1] = x[0]
    y[2] = x[1]
    y[3] = x[2]
    y[4] = x[3]


SLIP_BELOW_GROUND = 1


@hs.check(allocates=False)
def slip_check(t, x, p, mode):
    """slip_ValidateChart: the body must stay above the ground (y ≥ 0)."""
    return 0 if x[1] >= 0.0 else SLIP_BELOW_GROUND


def check_params(p: np.ndarray) -> None:
    """U_ij divides by |j| (digest §3.4): the exponent j may be negative but not zero."""
    if p[P_J] == 0.0:
        raise InputError("parameter 'sprj' = 0: expected a non-zero spring family exponent j "
                         "(U_ij = k/(|i||j|) (sgn(j)(q_r^j - q_r0^j))^i)")


def init_partition(x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, int]:
    """slip_InitPartition (digest §3.5): stance if the leg at the touchdown angle reaches the
    ground, then COMPRESSION or DECOMPRESSION by the sign of q̇_r; flight otherwise, ASCENT or
    DESCENT by the sign of ẏ."""
    x = x.copy()
    tipy = x[1] - p[P_QRT] * math.cos(x[6])
    if tipy < 0.0:
        x[4] = x[0] - x[1] * math.tan(x[6])
        x[5] = 0.0
        lx, ly = x[0] - x[4], x[1] - x[5]
        if math.hypot(lx, ly) == 0.0:  # the body on the ground at its toe: no leg direction
            raise InputError(f"initial state y = {float(x[1]):g} m: the leg would have zero length at "
                             "touchdown; expected the body above the ground, y > 0")
        qrdot = (lx * x[2] + ly * x[3]) / math.hypot(lx, ly)
        return x, COMPRESSION if qrdot < 0.0 else DECOMPRESSION
    return x, ASCENT if x[3] > 0.0 else DESCENT


def build_model() -> hybrid.Model:
    """The SLIP runner with SimSect's defaults (digest §3.3; body_mass = 1 kg, see module doc)."""
    guards = tuple(hybrid.Guard(name, hybrid.Direction.FALLING, hybrid.Placement.RIGHT)
                   for name in ("apex", "touchdown", "bottom", "liftoff"))
    return hybrid.Model(
        name="slip", state_names=STATE_NAMES, state_defaults=np.array(STATE_DEFAULTS),
        param_names=PARAM_NAMES, param_defaults=np.array(PARAM_DEFAULTS), guards=guards,
        output_names=OUTPUT_NAMES, vector_field=slip_field, guard_values=slip_guards,
        reset=slip_reset, outputs=slip_outputs, check=slip_check, init_partition=init_partition,
        mode_name=lambda m: CHART_NAMES[m] if 0 <= m < 4 else f"chart {m}",
        error_messages={SLIP_BELOW_GROUND: "Body toppled over: y < 0 (slip_ValidateChart)"},
        description="SimSect SLIP runner (SimSect manual §4)",
        stance=lambda modes: np.isin(modes, (COMPRESSION, DECOMPRESSION))[:, None],
        path_states=("x", "y"), param_ranges=PARAM_RANGES,
        check_params=check_params,
    )


def energy(result: hybrid.Result) -> np.ndarray:
    """Total energy ½m(ẋ² + ẏ²) + m g y + U(q_r) along the records [J] (stance: U of the leg;
    flight: U at the touchdown length). Conserved when g_stance = g_flight (digest §6.3-5)."""
    p = result.params
    x = result.x
    m = p[P_M]
    stance = (result.mode == COMPRESSION) | (result.mode == DECOMPRESSION)
    rho = np.where(stance, np.hypot(x[:, 0] - x[:, 4], x[:, 1] - x[:, 5]), p[P_QRT])
    u = np.array([spring_potential(r, p[P_Q0], p[P_K], p[P_I], p[P_J]) for r in rho])
    g = np.where(stance, p[P_GST], p[P_GFL])
    return 0.5 * m * (x[:, 2] ** 2 + x[:, 3] ** 2) + m * g * x[:, 1] + u


def apexes(result: hybrid.Result) -> np.ndarray:
    """Apex states from the event log: structured rows (t, y, xdot) at each ASCENT→DESCENT."""
    ev = result.events
    sel = (ev["kind"] == 0) & (ev["mode_before"] == ASCENT)
    out = np.empty(int(sel.sum()), dtype=[("t", "f8"), ("y", "f8"), ("xdot", "f8")])
    out["t"] = ev["t"][sel]
    out["y"] = ev["x"][sel, 1]
    out["xdot"] = ev["x"][sel, 2]
    return out
