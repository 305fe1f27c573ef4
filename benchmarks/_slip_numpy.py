"""A numpy twin of the SLIP runner for scipy.integrate.solve_ivp (SimSect digest §3), written from the
digest independently of ``legsim.robots.slip``; the engine tests and benchmark compare the two.

Physics (digest §3.1, linear spring (i, j) = (2, 1) of §3.4): with leg vector l = (x − f_x, y − f_y),
length ρ = |l| and q_θ = atan2(l_x, l_y),

    stance:  m ẍ = k (q_0 − ρ) sin q_θ,   m ÿ = k (q_0 − ρ) cos q_θ − m g_stance
    flight:  ẍ = 0,                        ÿ = −g_flight

Charts (digest §3.2) and the event that ends each, every one falling through zero:
ASCENT b = ẏ; DESCENT b = y − q_rt cos q_θt; COMPRESSION b = −ρ̇ = −(l·v)/ρ; DECOMPRESSION b = q_rl − ρ.
Transitions (§3.5): touchdown puts the foot at (x − q_rt sin q_θt, y − q_rt cos q_θt); liftoff sets
q_θt = −atan2(l_x, l_y) (minus the liftoff angle) and goes to ASCENT (to DESCENT if ẏ ≤ 0 then).
The run is restarted by solve_ivp at every event (one call per chart), as a SimSect user would.

State vector (SI): [x, y, ẋ, ẏ] (m, m/s); the bookkeeping f_x, f_y, q_θt are held in Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

ASCENT, DESCENT, COMPRESSION, DECOMPRESSION = 0, 1, 2, 3


@dataclass
class SlipParams:
    """SLIP parameters (digest §3.3 names; body_mass chosen as 1 kg, see digest §6.3-5)."""

    body_mass: float = 1.0
    q_rt: float = 1.0
    q_rl: float = 1.0
    g_stance: float = 10.0
    g_flight: float = 10.0
    q_0: float = 1.0
    k: float = 1000.0


@dataclass
class SlipRun:
    """Event log of a run: per event its time, chart before/after and the state [x, y, ẋ, ẏ]
    at the event (before the reset), plus the foot and touchdown angle after it."""

    t: list = field(default_factory=list)
    chart_before: list = field(default_factory=list)
    chart_after: list = field(default_factory=list)
    state: list = field(default_factory=list)
    foot: list = field(default_factory=list)
    touchdown_angle: list = field(default_factory=list)
    nfev: int = 0

    def arrays(self):
        return (np.array(self.t), np.array(self.chart_before), np.array(self.chart_after),
                np.array(self.state).reshape(-1, 4))


def stance_field(t, s, p: SlipParams, fx, fy):
    """(4,) -> (4,) state derivative in stance (spring force along the leg)."""
    lx, ly = s[0] - fx, s[1] - fy
    rho = math.hypot(lx, ly)
    push = p.k * (p.q_0 - rho) / p.body_mass  # spring acceleration along the unit leg vector
    return np.array([s[2], s[3], push * lx / rho, push * ly / rho - p.g_stance])


def flight_field(t, s, p: SlipParams):
    """(4,) -> (4,) state derivative in flight (ballistic)."""
    return np.array([s[2], s[3], 0.0, -p.g_flight])


def chart_event(chart, p: SlipParams, fx, fy, td_angle):
    """The boundary function of ``chart`` as a terminal, falling solve_ivp event."""
    if chart == ASCENT:
        def ev(t, s):
            return s[3]
    elif chart == DESCENT:
        c = p.q_rt * math.cos(td_angle)

        def ev(t, s):
            return s[1] - c
    elif chart == COMPRESSION:
        def ev(t, s):
            lx, ly = s[0] - fx, s[1] - fy
            return -(lx * s[2] + ly * s[3]) / math.hypot(lx, ly)
    else:
        def ev(t, s):
            return p.q_rl - math.hypot(s[0] - fx, s[1] - fy)
    ev.terminal = True
    ev.direction = -1
    return ev


def initial_chart(s, p: SlipParams, td_angle):
    """Chart and foot of a start state (digest §3.5 InitPartition, with q̇_r relative to the foot)."""
    if s[1] - p.q_rt * math.cos(td_angle) < 0.0:
        fx, fy = s[0] - s[1] * math.tan(td_angle), 0.0
        lx, ly = s[0] - fx, s[1] - fy
        qrdot = (lx * s[2] + ly * s[3]) / math.hypot(lx, ly)
        return (COMPRESSION if qrdot < 0.0 else DECOMPRESSION), fx, fy
    return (ASCENT if s[3] > 0.0 else DESCENT), 0.0, 0.0


def simulate_slip(x0, t_final, p: SlipParams | None = None, td_angle=0.0, method="RK45",
                  rtol=1e-10, atol=1e-12, max_events=100_000) -> SlipRun:
    """Integrate the SLIP from [x, y, ẋ, ẏ] = x0 until t_final with solve_ivp, one call per chart.

    Returns the event log (:class:`SlipRun`).
    """
    p = p or SlipParams()
    s = np.array(x0, dtype=float)
    chart, fx, fy = initial_chart(s, p, td_angle)
    t = 0.0
    run = SlipRun()
    while t < t_final and len(run.t) < max_events:
        if chart in (COMPRESSION, DECOMPRESSION):
            fun = lambda tt, ss, fx=fx, fy=fy: stance_field(tt, ss, p, fx, fy)
        else:
            fun = lambda tt, ss: flight_field(tt, ss, p)
        ev = chart_event(chart, p, fx, fy, td_angle)
        sol = solve_ivp(fun, (t, t_final), s, method=method, rtol=rtol, atol=atol, events=ev)
        run.nfev += sol.nfev
        if sol.status != 1:  # reached t_final
            break
        t = float(sol.t_events[0][0])
        s = np.array(sol.y_events[0][0])
        before = chart
        if chart == ASCENT:
            chart = DESCENT
        elif chart == DESCENT:
            fx = s[0] - p.q_rt * math.sin(td_angle)
            fy = s[1] - p.q_rt * math.cos(td_angle)
            chart = COMPRESSION
        elif chart == COMPRESSION:
            chart = DECOMPRESSION
        else:
            td_angle = -math.atan2(s[0] - fx, s[1] - fy)
            chart = ASCENT if s[3] > 0.0 else DESCENT
        run.t.append(t)
        run.chart_before.append(before)
        run.chart_after.append(chart)
        run.state.append(s.copy())
        run.foot.append((fx, fy))
        run.touchdown_angle.append(td_angle)
    return run
