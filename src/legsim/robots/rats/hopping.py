"""RATS hop primitives (Wagenknecht (2009) §4.1.1, Fig. 4.2; digest §2.6 and §6.1 item 6), as scripts of
Netburner commands ``[(leg, duration ms, wait ms), ...]`` (the next command starts ``wait`` ms after
this one; :func:`~.robot.schedule_policy` plays a script from the tick it is given).

* **Single-leg forward hop.** One stance leg pushes along its axis, through the centre, at 37.4° from
  the vertical (4.1)-(4.3). A short firing tips the robot over the other two feet; a longer one lifts
  them too: a forward hop with induced tumbling. The body is pushed away from the fired foot, along
  ``-(R a_i)`` projected on the ground (``a_i`` the leg's axis in the body, ``R`` the body-to-world
  rotation): :func:`forward_hop` fires the stance leg whose thrust points most along the wanted heading
  (the tipping planner's choice (6.5): the leg opposite the edge the heading crosses), so the hop goes
  within 60° of it.
* **Three-leg vertical hop.** The three stance legs fired together: their horizontal thrusts cancel and
  the hop goes up; "any imbalance in leg strength during the launch phase results in rotation once the
  robot is airborne", so "the controller needs to fire legs with different actuation signal durations
  in an effort to balance leg strengths" (thesis §4.1.1, §4.4). :func:`vertical_hop` balances them in
  one of two ways:

  - by the legs' valve latencies (E1 measured 11.25-14.58 ms across the spool valves): the slower
    valves are commanded earlier, so that the three open at once (waits in whole ms), and each
    duration is lengthened by its latency's excess over the three's mean, so that they close at once;
  - by a per-leg strength model (6.6) at the core pressure, the thesis's own form: leg i fires
    ``duration + t_i - mean(t)`` ms, t_i its threshold time (latency and resistance lumped), all at
    once.

  Measured on the full robot (rolling set, spool valves, 0.689 MPa, the stance legs' latencies
  13.16 ms -+ 2 ms, a 40 ms hop): unbalanced, the robot turns at 0.57 rad/s at the apex and comes to
  rest 21 cm from the launch point, on another stance; balanced by the durations alone, 1.02 rad/s and
  11 cm (equal impulses, but the openings still 2 ms apart); balanced by the latencies, no turn and no
  drift, back on its stance (test_rats_hopping). With latency differences that are not whole ms the
  rounding of the waits leaves a little: E1's latencies give landings within 3 mm (E15,
  :func:`.experiments.hop_landing`).

The rotation is the controller's estimate or the truth (``Observation.rotation``): the accelerometer
at rest gives the stance, not the yaw (§3.4), so a heading in world axes needs the yaw from elsewhere
(the tipping planner's motion model, a gyro's integral, or the truth in simulation).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import InputError, as_float, as_floats
from .geometry import LEG_DIRECTIONS, N_LEGS, STANCES, resting_stance
from .valve_time import TipStrengthModel

__all__ = ["thrust_directions", "forward_hop", "vertical_hop", "HOP_MS", "MAX_FIRING_MS"]

HOP_MS = 40
"""Default hop firing [whole ms]: the thesis's hop experiments' 40 ms (E7-E9), above every tip
threshold of this model's legs at their working pressures (:data:`.experiments.SIM_TIP_MODEL`)."""

MAX_FIRING_MS = 10_000
"""Longest single valve firing [whole ms] the RATS helpers take (10 s): a hop's firing is tens of ms,
every tip threshold under 120 ms, and a valve held open longer only empties the tank."""


def _rotation(rotation) -> np.ndarray:
    R = as_floats(rotation)
    if R.shape != (3, 3) or not np.all(np.isfinite(R)) or not np.allclose(R.T @ R, np.eye(3), atol=1e-6) \
            or np.linalg.det(R) < 0.0:
        raise InputError(f"rotation = {rotation!r}: expected the (3, 3) body-to-world rotation (orthonormal, "
                         "det +1)")
    return R


def _duration(duration_ms) -> int:
    if isinstance(duration_ms, bool) or not isinstance(duration_ms, (int, np.integer)) \
            or not 1 <= duration_ms <= MAX_FIRING_MS:
        raise InputError(f"duration_ms = {duration_ms!r}: expected a whole number of ms in [1, "
                         f"{MAX_FIRING_MS}] (the valve commands' resolution; a hop's firing is tens of ms)")
    return int(duration_ms)


def thrust_directions(rotation) -> tuple[np.ndarray, np.ndarray]:
    """The stance the robot rests on, as (legs (3,) 0-based, unit ground directions (3, 2) in world x-y
    that each leg's firing pushes the centre along; zero for a leg pointing straight down), for the
    body-to-world ``rotation`` (3, 3)."""
    R = _rotation(rotation)
    legs = STANCES[resting_stance(R)]
    d = -(R @ LEG_DIRECTIONS[legs].T).T[:, :2]
    norm = np.linalg.norm(d, axis=1, keepdims=True)  # 0 only for a leg straight down: no thrust direction
    return legs.copy(), np.divide(d, norm, out=np.zeros_like(d), where=norm > 1e-12)


def forward_hop(rotation, heading: float, duration_ms: int = HOP_MS) -> list[tuple[int, int, int]]:
    """The single-leg forward hop toward ``heading`` [rad, world x-y]: one firing of ``duration_ms``
    (whole ms, default :data:`HOP_MS`) of the stance leg whose thrust is nearest the heading, as a
    one-command script ``[(leg, ms, 0)]``."""
    h = as_float(heading)
    if not math.isfinite(h):
        raise InputError(f"heading = {heading!r}: expected a finite angle [rad]")
    ms = _duration(duration_ms)
    legs, d = thrust_directions(rotation)
    k = int(np.argmax(d @ np.array([math.cos(h), math.sin(h)])))
    return [(int(legs[k]), ms, 0)]


def vertical_hop(rotation, duration_ms: int = HOP_MS, *, latency_ms=None,
                 strength: TipStrengthModel | None = None,
                 p_mpa: float | None = None) -> list[tuple[int, int, int]]:
    """The three-leg vertical hop as a script of three commands (leg, ms, wait ms): the stance legs
    fired for ``duration_ms`` (whole ms) each, balanced (module docstring) by ``latency_ms`` (12,) [ms],
    the valves' latencies (``1000 * RatsRobot.latency`` in simulation), or by ``strength`` (a per-leg
    (6.6) model) at the core pressure ``p_mpa`` [MPa gauge]; not both, since (6.6)'s c_latency already
    holds the latency differences. Without either the legs are taken as equal: three commands at once.
    Durations are rounded to whole ms and kept >= 1."""
    ms = _duration(duration_ms)
    legs, _ = thrust_directions(rotation)
    if latency_ms is not None and strength is not None:
        raise InputError("vertical_hop: give latency_ms or strength, not both ((6.6)'s c_latency already "
                         "holds the legs' latency differences)")
    shift, start = np.zeros(3), np.zeros(3)
    if latency_ms is not None:
        lat = as_floats(latency_ms)
        if lat.shape != (N_LEGS,) or not np.all(np.isfinite(lat)) or np.any(lat < 0.0):
            raise InputError(f"latency_ms = {latency_ms!r}: expected {N_LEGS} latencies >= 0 [ms], one per "
                             "leg")
        own = lat[legs]
        shift, start = own - own.mean(), np.rint(own.max() - own)
    elif strength is not None:
        if not isinstance(strength, TipStrengthModel):
            raise InputError(f"strength = {strength!r}: expected a legsim.robots.rats.valve_time."
                             "TipStrengthModel")
        p = as_float(p_mpa)
        if not math.isfinite(p):
            raise InputError(f"vertical_hop: p_mpa = {p_mpa!r}: balancing by a strength model needs the core "
                             "pressure [MPa gauge]")
        t = np.asarray(strength.raw_time(legs, p), dtype=float)
        shift = t - t.mean()
    order = np.argsort(start, kind="stable")
    durations = np.maximum(1, np.rint(ms + shift)).astype(np.int64)
    starts = np.append(start[order], start[order[-1]])  # a command's wait: until the next one starts
    return [(int(legs[i]), int(durations[i]), int(starts[j + 1] - starts[j])) for j, i in enumerate(order)]
