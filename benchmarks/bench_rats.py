"""RATS speed benchmark: the full 12-leg RATS with contact and a 1 kHz Python controller, its cost per
simulated second and real-time factor against the same robot in MuJoCo, measured in one run (issue goal:
>= 20x real time for rolling, and faster than the MuJoCo twin).

The robot is ``legsim.robots.rats.robot.build()`` with its defaults: spool valves (13.16 ms latency),
orifice exhaust, the leaking 0.84 L tank at 0.689 MPa gauge, the Table 5.2 rolling contact set
(k = 25 000 N/m, b = 400 N s/m, mu = 1.2), ``RatsDims()``. Both engines run the same Python policy every
1 ms: the impact-angle rolling controller (``rolling.RollingController``, Table 6.2 defaults, heading
world +x, no brake), from rest on stance 0 at yaw 0.3 rad. In legsim it goes through
``rats.firing_controller``; in MuJoCo through the equivalent loop in :meth:`MujocoTwin.run`, which uses the
same ``Observation`` and ``ValveTimers``. Per 1 ms tick that loop reads the state, runs the policy and
the timers, updates the Python pneumatics, and calls ``mj_step`` 4 times.

The MuJoCo twin is built here as an MJCF string (:func:`twin_mjcf`) from ``rats.dims``:
* a free body ``shell``: sphere r 0.15 m, 2.858 kg, inertia 2/5 m r^2;
* 12 child bodies on slide joints along ``rats.legs`` (range 0..0.063 m, limited), each 0.049 kg with
  build()'s leg inertia (a solid cylinder 0.114 m x r 0.012 m ending at the foot centre, drawn as a
  geom that does not collide), ending in a foot sphere r 0.012 m whose outer surface is l = 0.20 m from
  the centre when the leg is retracted;
* the shell and the feet touch a plane;
* timestep 0.25 ms (the source's 4 kHz), MuJoCo's default Euler integrator and Newton solver, elliptic
  friction cone;
* contacts ``solref = (-25000, -400)`` (the direct form), ``friction = 1.2``;
* 12 ``motor`` actuators (gear 1, unlimited) on the slides.

The pneumatics run in Python every 1 ms (:class:`PythonPneumatics`), with every parameter read from the
legsim robot's ``SolenoidCylinder`` and ``AirSupply`` components:
* per leg, the chamber pressure (5.11); while the valve is open, the spool valve's flow (5.7) from the
  tank; while it is closed, the orifice exhaust (build's default ``exhaust="orifice"``);
* the tank (5.12) with its exponential leak;
* the valve latency as a switch instant inside the tick (the sub-step that holds it is weighted by time).

The flow is ``legsim.actuators.pneumatic.flow.orifice_mass_flow``, one call of 24 lanes per sub-step
(12 supplies, 12 exhausts). A "lean" twin replaces that call by the same law in a few numpy operations,
without the public function's input checks (33 us a call here). It is measured too, because that
overhead is a large part of the twin's time.

Each 1 ms tick integrates the 13 pressures with ``SUBSTEPS`` = 4 explicit Euler sub-steps of 0.25 ms.
That is the fewest that are stable: a retracted leg's chamber venting to the atmosphere (laminar end of
the orifice law, dead volume V0) relaxes at 6.1e3 1/s, and Euler needs h < 2 / 6.1e3 = 0.33 ms. Within
the tick the leg kinematics are extrapolated linearly from the tick's reading and stopped at the end
stops. The force held over the tick is (5.5) at the tick's mean pressure: ``(P - P_atm) A - k_return x``.

The piston friction follows the robot's ``SolenoidCylinder.friction_law``. With build()'s default,
"thesis" ((5.5) as printed: a constant F_f against extension), F_f is part of the held Python force
(a constant, so holding it is exact) and the viscous beta v is the slide joint's ``damping``, which
MuJoCo resolves every step. With "signed" (F_f tanh(v / v_eps)), F_f is the joint's ``frictionloss``:
held over 1 ms on the 49 g leg, the law's slope gives h (F_f / v_eps + beta) / m = 2.1 per tick,
beyond explicit Euler's limit of 2 (``--python-friction`` keeps both terms in Python to show it).

What differs between the twins, besides the integrators:
* Ground contact. legsim uses a penalty spring-damper (5.1)-(5.2), F = k d + b d', and a regularised
  Coulomb cone (v_eps 0.01 m/s).
  MuJoCo uses a soft constraint. The direct solref (-k, -b) does not give N/m and N s/m. It gives a
  reference acceleration per unit effective mass, a_ref = -(b / d_w) v - (k d(r) / d_w^2) r, and the
  impedance d(r) (solimp 0.9..0.95) sets how much of it the solver enforces. The resting penetration
  therefore follows (1 - d) / d, not m g / (3 k). Its friction is a soft elliptic cone.
* End stops. legsim uses a spring-damper, 2e5 N/m and 50 N s/m (omega 2020 rad/s, zeta 0.25 on the
  leg). MuJoCo uses soft limits with solreflimit (0.5 ms, 1), the stiffest its two-timestep floor allows:
  omega ~2000 rad/s, critically damped.
* Piston friction: the same constant F_f (default "thesis" law); the viscous term is MuJoCo's joint
  damping, integrated by its own (implicit in damping) Euler step.
* Pneumatics. legsim's are continuous and coupled to the motion (valve switches located as events).
  The twin's run at 1 kHz with a held force. One 33 ms firing of a free leg peaks at 177 kPa in the
  twin against 149 kPa in legsim, and reaches full stroke 1.75 ms earlier: within a tick the sub-steps
  see the tick's starting piston speed, so while the leg accelerates the expansion is under-predicted.
* Sensors. The twin has no accelerometer; the rolling controller reads the true state only.

Rows, per simulated second of rolling (alternating rounds; ratios formed within a round, medians over
rounds):
* legsim with its default options (fixed-step RK4 at robot.FIXED_STEP = 0.125 ms);
* legsim with fixed RK4 at 0.25 ms (the source's step): converged at rest with the rolling set
  (the sanity block checks it and says so when it is not), within 2.5 cm of a 0.031 ms run over 1 s
  of rolling (robot.FIXED_STEP);
* legsim with explicit Euler at robot.EULER_STEP = 0.125 ms (``rats.default_options("euler")``), first
  order like the source's ODE and the twin; half the end stop's stability bound b / k, and the same
  T13 statistics as the default (robot.EULER_STEP gives both, measured);
* the MuJoCo twin, with its time split into mj_step, Python pneumatics and controller;
* the lean twin.

Printed separately:
* legsim's first call in a fresh process: import, build, first simulate, with numba's disk cache loaded;
* with ``--compile``, the same with an empty numba cache, so that everything compiles.

Sanity checks:
* the distance rolled by both under the same controller, from the timed start and (not with
  ``--quick``) three more (lean twin). Rolling is chaotic, with hops and rock-backs, so the distances
  differ from start to start;
* the twin's joint-space mass matrix against legsim's CRBA;
* the resting weight carried by the feet, and the foot penetration, in both;
* one firing of one free (upward) leg in both: peak chamber pressure, time to full extension.

This is a benchmark, not a test.

Usage::

    python benchmarks/bench_rats.py [--quick] [--t 4] [--rounds 5] [--compile] [--python-friction]
        [--substeps 4]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from legsim.actuators.pneumatic.flow import DEFAULT_LAMINAR_RATIO, orifice_mass_flow
from legsim.actuators.pneumatic.units import P_ATM
from legsim.assembly import AirSupply, SolenoidCylinder
from legsim.hybrid import Options
from legsim.robots.rats.robot import (
    CONTACT_SETS,
    EULER_STEP,
    FIXED_STEP,
    G,
    Observation,
    RatsRobot,
    ValveTimers,
    build,
    schedule_policy,
)
from legsim.robots.rats.rolling import RollingController, RollingParams

H_MJ = 0.25e-3          # MuJoCo timestep [s] (the source's 4 kHz)
TICK = 1e-3             # control period [s]
SUBSTEPS = 4            # explicit Euler sub-steps of the Python pneumatics per tick
HEADING = np.array([1.0, 0.0, 0.0])
START_STANCE, START_YAW = 0, 0.3
MORE_STARTS = ((0, 1.5), (5, 0.0), (11, 2.0))   # (stance, yaw) of the extra rolling-distance checks
LIMIT_SOLREF = (2 * H_MJ, 1.0)


# ------------------------------------------------------------------------------------------ the twin
def twin_mjcf(rats: RatsRobot, *, python_friction: bool = False) -> str:
    """The MuJoCo twin of ``rats`` (module docstring) as an MJCF string."""
    cs = CONTACT_SETS[rats.contact_set]
    cyls = [a for a in rats.robot.actuators if isinstance(a, SolenoidCylinder)]
    dm = rats.dims
    m_l, r_f, h_l, stroke = dm.leg_mass, dm.foot_radius, dm.capsule_length, dm.stroke
    i_ax = 0.5 * m_l * r_f**2                          # robot.build's leg: a solid cylinder
    i_perp = m_l * (3 * r_f**2 + h_l**2) / 12.0
    i_shell = 0.4 * dm.body_mass * dm.body_radius**2   # robot.build's default shell: uniform sphere

    def f(v) -> str:
        return " ".join(f"{c:.17g}" for c in np.ravel(v))

    legs = []
    for k, (d, cyl) in enumerate(zip(rats.legs, cyls, strict=True)):
        signed = cyl.friction_law == "signed"   # "thesis": a constant F_f in the held Python force
        piston = "" if python_friction else (f' damping="{cyl.viscous!r}"'
                                             + (f' frictionloss="{cyl.friction!r}"' if signed else ""))
        foot = (dm.l - r_f) * d
        inertia = i_perp * (np.eye(3) - np.outer(d, d)) + i_ax * np.outer(d, d)
        full = (inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2], inertia[1, 2])
        legs.append(f"""
      <body name="leg{k + 1}">
        <joint name="leg{k + 1}" type="slide" axis="{f(d)}" range="0 {stroke!r}" limited="true"
               solreflimit="{f(LIMIT_SOLREF)}"{piston}/>
        <inertial pos="{f(foot - 0.5 * h_l * d)}" mass="{m_l!r}" fullinertia="{f(full)}"/>
        <geom name="rod{k + 1}" type="cylinder" fromto="{f(foot - h_l * d)} {f(foot)}"
              size="{r_f!r}" contype="0" conaffinity="0" group="1" mass="0"/>
        <geom name="foot{k + 1}" type="sphere" size="{r_f!r}" pos="{f(foot)}"/>
      </body>""")
    motors = "\n".join(f'    <motor name="leg{k + 1}" joint="leg{k + 1}" gear="1"/>'
                       for k in range(len(legs)))
    return f"""<mujoco model="rats_twin">
  <option timestep="{H_MJ!r}" gravity="0 0 {-G!r}" integrator="Euler" cone="elliptic"/>
  <default>
    <geom contype="1" conaffinity="0" condim="3" friction="{cs['mu']!r} 0 0"
          solref="{-cs['k']!r} {-cs['b']!r}"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" contype="0" conaffinity="1"/>
    <body name="shell">
      <freejoint name="root"/>
      <inertial pos="0 0 0" mass="{dm.body_mass!r}" diaginertia="{f([i_shell] * 3)}"/>
      <geom name="shell" type="sphere" size="{dm.body_radius!r}"/>{''.join(legs)}
    </body>
  </worldbody>
  <actuator>
{motors}
  </actuator>
</mujoco>
"""


class PythonPneumatics:
    """The 12 RATS legs and the tank in Python, advanced one control tick at a time (module docstring).

    State: chamber pressures ``p`` (12,) [Pa abs], tank ``pt`` [Pa abs], valve ``open`` (12,) and the
    pending switch (``t_switch`` [s], ``target``) of each valve, as legsim's SolenoidCylinder: a command
    change at t switches the valve to the command at t + latency (opening) or t + close latency."""

    def __init__(self, rats: RatsRobot, substeps: int = SUBSTEPS, python_friction: bool = False,
                 lean_flow: bool = False):
        cyls = [a for a in rats.robot.actuators if isinstance(a, SolenoidCylinder)]
        supply = next(r for r in rats.robot.resources if isinstance(r, AirSupply))
        c0 = cyls[0]
        if any(c.exhaust != "orifice" or c.flow != "orifice" for c in cyls):
            raise ValueError("the twin implements the orifice valve and orifice exhaust (build's default)")
        tank = supply.tank
        self.gas, self.temp, self.vt, self.p_atm = tank.gas, tank.temperature, tank.volume, tank.p_atm
        self.tau = tank.leak_tau if tank.leak == "exponential" else math.inf
        self.area, self.v0, self.stroke, self.kappa = c0.area, c0.dead_volume, c0.stroke, c0.kappa
        self.k_ret = np.array([c.k_return for c in cyls])
        self.ff = np.array([c.friction for c in cyls])
        self.beta = np.array([c.viscous for c in cyls])
        self.v_eps = np.array([c.v_eps for c in cyls])
        self.t_open = np.array([c.valve.latency for c in cyls])
        self.t_close = np.array([c.valve.close_latency for c in cyls])
        # 24 flow lanes: 12 supplies (tank -> chamber), 12 exhausts (chamber -> atmosphere)
        self.orifice = np.array([c.valve.area for c in cyls] + [c.exhaust_area for c in cyls])
        self.t_up = np.full(24, self.temp)
        self.p_up = np.empty(24)
        self.p_down = np.empty(24)
        self.rt = self.gas.R * self.temp
        self.n, self.h = int(substeps), TICK / int(substeps)
        self.s_col = (np.arange(self.n) * self.h)[:, None]
        self.rt_vt = -self.rt / self.vt
        self.python_friction = python_friction
        self.thesis_friction = c0.friction_law == "thesis"
        self.p0 = supply.p0
        g = self.gas
        self._law = (1.0 / g.k, g.c1, g.c2, g.critical_ratio, DEFAULT_LAMINAR_RATIO)
        self._coef = self.orifice / np.sqrt(self.t_up)
        self.flow = self.flow_numpy if lean_flow else self.flow_legsim
        self.reset()

    def reset(self) -> None:
        self.p = self.p_down[:12]             # the chambers are the supplies' downstream lanes
        self.p[:] = self.p_atm
        self.p_down[12:] = self.p_atm
        self.pt = float(self.p0)
        self.open = np.zeros(12)
        self.shut = np.ones(12)
        self.target = np.zeros(12)
        self.t_switch = np.full(12, math.inf)
        self.next_switch = math.inf
        self.last_cmd = np.zeros(12)

    def command(self, t: float, cmd: np.ndarray) -> None:
        """Valve commands (12,) at tick t: a change schedules the switch one latency later."""
        changed = cmd != self.last_cmd
        if changed.any():
            on = cmd > 0.5
            self.t_switch[changed] = (t + np.where(on, self.t_open, self.t_close))[changed]
            self.target[changed] = on[changed]
            self.last_cmd[:] = cmd
            self.next_switch = float(self.t_switch.min())

    def flow_legsim(self) -> np.ndarray:
        """Mass flows (24,) [kg/s] from ``p_up`` to ``p_down``: legsim's public orifice law (5.7)."""
        return orifice_mass_flow(self.orifice, self.p_up, self.p_down, self.t_up, gas=self.gas)

    def flow_numpy(self) -> np.ndarray:
        """The same law as :meth:`flow_legsim` in a few numpy operations, without its input checks
        (``legsim.actuators.pneumatic._flow_kernels.orifice_psi``: choked below the critical ratio,
        linear in the pressure difference above the laminar ratio 0.999)."""
        inv_k, c1, c2, r_cr, r_lam = self._law
        pu, pd = self.p_up, self.p_down
        hi = np.maximum(pu, pd)
        r = np.minimum(pu, pd) / hi
        rr = np.minimum(r, r_lam)
        a = rr**inv_k
        psi = np.where(rr <= r_cr, c2, c1 * a * np.sqrt(np.maximum(0.0, 1.0 - rr / a)))
        psi = np.where(r > r_lam, psi * ((1.0 - r) / (1.0 - r_lam)), psi)
        return np.copysign(self._coef * hi * psi, pu - pd)

    def tick(self, t: float, x: np.ndarray, xd: np.ndarray, force: np.ndarray) -> None:
        """Advance the pressures over [t, t + TICK] from the leg extensions ``x`` and speeds ``xd`` read
        at t (extrapolated linearly, stopped at the end stops) and write into ``force`` (12,) [N] the
        force (5.5) held over the tick, at the tick's mean chamber pressure."""
        h, a, p, p_up = self.h, self.area, self.p, self.p_up
        # (5.11) as dP/dt = g (mdot_in - mdot_out) - gv P over the tick's sub-steps (rows)
        xs = x + xd * self.s_col
        xc = np.minimum(np.maximum(xs, 0.0), self.stroke)
        g = self.kappa / (self.v0 + a * xc)
        gv = g * (a * np.where(xs == xc, xd, 0.0))
        g *= self.rt
        pmean = np.zeros(12)
        w, wc = self.open, self.shut
        for j in range(self.n):
            s1 = t + (j + 1) * h
            if self.next_switch < s1:         # a valve switches inside this sub-step: weight by time
                frac = np.minimum(np.maximum((s1 - self.t_switch) / h, 0.0), 1.0)
                w = self.open * (1.0 - frac) + self.target * frac
                wc = 1.0 - w
                done = self.t_switch < s1
                self.open[done] = self.target[done]
                self.shut[:] = 1.0 - self.open
                self.t_switch[done] = math.inf
                self.next_switch = float(self.t_switch.min())
            elif j and w is not self.open:
                w, wc = self.open, self.shut
            p_up[:12] = self.pt
            p_up[12:] = p
            mdot = self.flow()
            m_in = mdot[:12] * w
            dp = g[j] * (m_in - mdot[12:] * wc) - p * gv[j]
            pmean += p
            pmean += (0.5 * h) * dp
            p += h * dp
            self.pt += h * (self.rt_vt * m_in.sum() - (self.pt - self.p_atm) / self.tau)
        np.multiply(pmean, a / self.n, out=force)
        force -= self.p_atm * a + self.k_ret * np.minimum(np.maximum(x, 0.0), self.stroke)
        if self.thesis_friction:   # (5.5) as printed: constant, so holding it over the tick is exact
            force -= self.ff
        elif self.python_friction:
            force -= self.ff * np.tanh(xd / self.v_eps)
        if self.python_friction:
            force -= self.beta * xd


class MujocoTwin:
    """The MuJoCo twin plus the Python pneumatics, driven by a RATS policy at 1 kHz."""

    def __init__(self, rats: RatsRobot, substeps: int = SUBSTEPS, python_friction: bool = False,
                 lean_flow: bool = False):
        import mujoco

        self.mujoco = mujoco
        self.m = mujoco.MjModel.from_xml_string(twin_mjcf(rats, python_friction=python_friction))
        self.d = mujoco.MjData(self.m)
        self.pn = PythonPneumatics(rats, substeps, python_friction, lean_flow)
        self.steps = int(round(TICK / self.m.opt.timestep))
        self.feet = np.array([self.m.geom(f"foot{k + 1}").id for k in range(12)])
        self.shell_geom = self.m.geom("shell").id

    def reset(self, q0: np.ndarray) -> None:
        """State from a legsim q (19,): position, quaternion (x, y, z, w), 12 leg extensions; at rest."""
        mj, m, d = self.mujoco, self.m, self.d
        mj.mj_resetData(m, d)
        d.qpos[:3] = q0[:3]
        d.qpos[3:7] = (q0[6], q0[3], q0[4], q0[5])
        d.qpos[7:19] = q0[7:19]
        mj.mj_forward(m, d)
        self.pn.reset()

    def run(self, t_final: float, policy, q0: np.ndarray, trace: bool = False) -> dict:
        """Run ``t_final`` [s] from rest at ``q0`` with ``policy`` (as rats.firing_controller: an
        Observation in, firings out, through ValveTimers). Returns times per part [s] (``mj``: mj_step,
        ``pneumatics``, ``controller``: observation + policy + timers), the final qpos, and with
        ``trace`` the pressures per tick and the leg extensions per MuJoCo step."""
        mj, m, d, pn = self.mujoco, self.m, self.d, self.pn
        self.reset(q0)
        step, quat2mat, clock = mj.mj_step, mj.mju_quat2Mat, time.perf_counter
        qpos, qvel, ctrl = d.qpos, d.qvel, d.ctrl
        timers = ValveTimers()
        z3 = np.zeros(3)
        obs = Observation(0.0, z3.copy(), z3.copy(), np.eye(3), z3.copy(), z3.copy(), np.zeros(12), 0.0)
        rot9 = obs.rotation.reshape(9)
        force = np.zeros(12)
        n_ticks = int(round(t_final / TICK))
        t_mj = t_pn = t_ctl = 0.0
        p_trace, x_trace = [], []
        nfire = 0
        for i in range(n_ticks):
            c0 = clock()
            t = i * TICK
            obs.t = t
            obs.position[:] = qpos[:3]
            quat2mat(rot9, qpos[3:7])
            np.dot(obs.rotation, qvel[3:6], out=obs.omega)
            obs.velocity[:] = qvel[:3]
            obs.legs[:] = qpos[7:19]
            obs.tank = pn.pt - P_ATM
            firings = policy(obs)
            if firings:
                for leg, ms in firings:
                    timers.fire(leg, ms)
                    nfire += 1
            cmd = timers.tick()
            c1 = clock()
            pn.command(t, cmd)
            if trace:
                p_trace.append(pn.p.copy())
            pn.tick(t, obs.legs, qvel[6:18], force)
            ctrl[:] = force
            c2 = clock()
            if trace:
                for _ in range(self.steps):
                    step(m, d)
                    x_trace.append(qpos[7:19].copy())
            else:
                for _ in range(self.steps):
                    step(m, d)
            c3 = clock()
            t_ctl += c1 - c0
            t_pn += c2 - c1
            t_mj += c3 - c2
        out = dict(mj=t_mj, pneumatics=t_pn, controller=t_ctl, total=t_mj + t_pn + t_ctl, qpos=qpos.copy(),
                   firings=nfire)
        if trace:
            out["p"] = np.array(p_trace)
            out["x"] = np.array(x_trace)
        return out

    def contact_loads(self) -> tuple[float, float, float]:
        """(normal force on the feet [N], on the shell [N], deepest foot penetration [m]) now."""
        mj, m, d = self.mujoco, self.m, self.d
        f6 = np.zeros(6)
        feet = shell = 0.0
        pen = 0.0
        for i in range(d.ncon):
            c = d.contact[i]
            mj.mj_contactForce(m, d, i, f6)
            g = c.geom1 if c.geom1 != 0 else c.geom2
            if g == self.shell_geom:
                shell += f6[0]
            elif g in self.feet:
                feet += f6[0]
                pen = max(pen, -c.dist)
        return feet, shell, pen


# ---------------------------------------------------------------------------------------- legsim side
def rolling_policy():
    """A fresh rolling controller (Table 6.2, heading +x, no brake) as a RATS policy; ``policy.count``
    counts its firings."""
    ctl = RollingController(RollingParams())

    def policy(obs: Observation):
        out = ctl.step(obs.t, obs.rotation, obs.omega, obs.position[2], obs.velocity, HEADING)
        policy.count += len(out)
        return out

    policy.count = 0
    return policy


Integrator = tuple[str, float] | None
"""A legsim integrator of the benchmark: (method, step [s]), None for the robot's default."""


def legsim_options(rats: RatsRobot, integ: Integrator) -> Options:
    if integ is None:
        return rats.default_options()
    return Options(method=integ[0], h_max=integ[1], record_period=rats.robot.control_period)


def legsim_run(rats: RatsRobot, t_final: float, q0: np.ndarray, integ: Integrator) -> dict:
    policy = rolling_policy()
    t0 = time.perf_counter()
    res = rats.simulate(t_final, policy, q0=q0, options=legsim_options(rats, integ), progress=False)
    wall = time.perf_counter() - t0
    return dict(total=wall, kernel=res.stats["kernel_time_s"], steps=res.stats["steps"], qpos=res.x[-1, :19],
                firings=policy.count, res=res)


def foot_penetration(rats: RatsRobot, x: np.ndarray) -> float:
    """Deepest foot penetration [m] of the legsim state ``x``."""
    from scipy.spatial.transform import Rotation

    R = Rotation.from_quat(x[3:7]).as_matrix()
    r_f = rats.dims.foot_radius
    feet = x[:3] + (R @ ((rats.dims.l - r_f + x[7:19])[:, None] * rats.legs).T).T
    return float(max(0.0, -(feet[:, 2] - r_f).min()))


# ------------------------------------------------------------------------------------------- checks
def check_inertia(rats: RatsRobot, twin: MujocoTwin, q0: np.ndarray) -> str:
    """The twin's joint-space mass matrix against legsim's (CRBA) with the legs spread over their
    stroke: the blocks the two velocity conventions share (free joint: linear velocity in body axes in
    legsim, world axes in MuJoCo; angular velocity in body axes in both)."""
    from legsim.multibody import crba

    q = q0.copy()
    q[7:19] = np.linspace(0.0, rats.dims.stroke, 12)
    m_l = np.asarray(crba(rats.robot.mb, rats.robot.mb.make_data(), q))
    twin.reset(q)
    m_t = np.zeros((twin.m.nv, twin.m.nv))
    twin.mujoco.mj_fullM(twin.m, twin.d, m_t)
    blocks = (np.s_[:3, :3], np.s_[3:, 3:])
    diff = max(np.abs(m_l[b] - m_t[b]).max() for b in blocks)
    return (f"mass matrix of the twin vs legsim (CRBA), legs spread over the stroke: largest difference "
            f"{diff:.1e} (of {np.abs(m_l).max():.3f}); total mass {twin.m.body_subtreemass[1]:.4f} kg")


def check_rest(rats: RatsRobot, twin: MujocoTwin, q0: np.ndarray, integs) -> list[str]:
    """Resting weight carried by the feet after 0.5 s with no firing."""
    lines = [f"resting on stance {START_STANCE} for 0.5 s, weight m g = {rats.dims.total_mass * G:.3f} N:"]
    for integ in integs:
        res = rats.simulate(0.5, None, q0=q0, options=legsim_options(rats, integ), progress=False)
        tail = slice(-100, None)                            # the last 0.1 s
        feet = sum(res.output(f"fn_foot{k + 1}")[tail] for k in range(12))
        bad = abs(feet.mean() - rats.dims.total_mass * G) > 0.01 * rats.dims.total_mass * G
        lines.append(f"  legsim {_hname(integ)}: feet carry {feet.mean():.3f} N (min {feet.min():.3f}, "
                     f"max {feet.max():.3f} at the records of the last 0.1 s), shell "
                     f"{res.output('fn_shell')[-1]:.3f} N, foot penetration "
                     f"{1e3 * foot_penetration(rats, res.x[-1]):.3f} mm"
                     + (" -- NOT CONVERGED: the contact chatters at this step" if bad else ""))
    twin.run(0.5, lambda obs: None, q0)
    feet, shell, pen = twin.contact_loads()
    lines.append(f"  MuJoCo twin: feet carry {feet:.3f} N, shell {shell:.3f} N, foot penetration "
                 f"{1e3 * pen:.3f} mm")
    return lines


def check_firing(rats: RatsRobot, twin: MujocoTwin, q0: np.ndarray, ms: int = 33) -> list[str]:
    """One firing of the most upward (free) leg from rest: chamber pressure and extension in both."""
    from scipy.spatial.transform import Rotation

    up = int(np.argmax((Rotation.from_quat(q0[3:7]).as_matrix() @ rats.legs.T)[2]))
    t_end = 0.08
    opts = Options(method="rk4_fixed", h_max=rats.default_options().h_max, record_period=H_MJ)
    res = rats.simulate(t_end, schedule_policy([(up, ms, 0)]), q0=q0, options=opts, progress=False)
    names = rats.model.state_names
    p_l = res.x[:, names.index(f"leg{up + 1}_p")] - P_ATM
    x_l = res.x[:, names.index(f"leg{up + 1}")]
    tw = twin.run(t_end, schedule_policy([(up, ms, 0)]), q0, trace=True)
    p_t = tw["p"][:, up] - P_ATM
    x_t = np.concatenate([[q0[7 + up]], tw["x"][:, up]])
    t_l = res.t
    t_t = np.arange(x_t.size) * H_MJ

    def reach(t, x):
        i = int(np.argmax(x >= 0.99 * rats.dims.stroke))
        return 1e3 * t[i] if x[i] >= 0.99 * rats.dims.stroke else math.nan

    ticks = np.arange(p_t.size) * TICK
    p_lt = np.interp(ticks, t_l, p_l)                   # legsim at the twin's ticks
    k = int(np.argmax(p_t))
    return [f"one {ms} ms firing of leg {up + 1} (pointing up) from rest, valve latency "
            f"{1e3 * rats.latency[up]:.2f} ms:",
            f"  legsim: peak chamber pressure {1e-3 * p_l.max():.1f} kPa gauge at "
            f"{1e3 * t_l[np.argmax(p_l)]:.2f} ms ({1e-3 * p_lt.max():.1f} kPa at the 1 ms ticks), "
            f"99 % stroke at {reach(t_l, x_l):.2f} ms",
            f"  twin:   peak chamber pressure {1e-3 * p_t[k]:.1f} kPa gauge at the {1e3 * ticks[k]:.0f} ms "
            "tick, "
            f"99 % stroke at {reach(t_t, x_t):.2f} ms",
            f"  largest pressure difference at the ticks: {1e-3 * np.abs(p_lt - p_t).max():.1f} kPa "
            f"(at {1e3 * ticks[np.argmax(np.abs(p_lt - p_t))]:.0f} ms)"]


def _hname(integ: Integrator) -> str:
    if integ is None:
        return f"default, RK4 {1e3 * FIXED_STEP:g} ms"
    return f"{'RK4' if integ[0] == 'rk4_fixed' else 'explicit Euler'} {1e3 * integ[1]:g} ms"


def rolled(out: dict, q0: np.ndarray) -> str:
    d = out["qpos"][:2] - q0[:2]
    return f"({d[0]:+.3f}, {d[1]:+.3f}) m = {np.hypot(*d):.3f} m, {out['firings']} firings"


# ------------------------------------------------------------------------------------------- timing
COLD = """
import json, time
t0 = time.perf_counter()
from legsim.robots.rats.robot import build, schedule_policy
t1 = time.perf_counter()
rats = build()
q0 = rats.q_rest(0, 0.3)
t2 = time.perf_counter()
rats.simulate(0.05, schedule_policy([(9, 20, 0)]), q0=q0, progress=False)
t3 = time.perf_counter()
rats.simulate(0.05, schedule_policy([(9, 20, 0)]), q0=q0, progress=False)
t4 = time.perf_counter()
print(json.dumps(dict(imp=t1 - t0, build=t2 - t1, first=t3 - t2, second=t4 - t3)))
"""


def cold_probe(empty_cache: bool) -> dict:
    """legsim in a fresh process: import, build, first and second 0.05 s simulate [s] (numba's disk
    cache as it is, or an empty one: everything compiles)."""
    import json

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, **({"NUMBA_CACHE_DIR": cache} if empty_cache else {}))
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True, text=True,
                             check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["process"] = time.perf_counter() - t0
    return res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t", type=float, default=4.0, help="simulated seconds of rolling per run (default 4)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds, medians reported (default 5)")
    ap.add_argument("--quick", action="store_true", help="1 s runs, one round, no cold probe")
    ap.add_argument("--compile", action="store_true",
                    help="also time a fresh process with an empty numba cache")
    ap.add_argument("--python-friction", action="store_true",
                    help="twin: piston friction F_f tanh(v / v_eps) + beta v in the held Python force")
    ap.add_argument("--substeps", type=int, default=SUBSTEPS, help="twin: pneumatic sub-steps per 1 ms tick")
    args = ap.parse_args(argv)
    if args.quick:
        args.t, args.rounds = 1.0, 1
    if args.t <= 0 or args.rounds < 1 or args.substeps < 1:
        ap.error("--t must be > 0, --rounds and --substeps >= 1")
    import mujoco

    T = args.t
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, numpy {np.__version__}, mujoco {mujoco.__version__}; "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    rats = build()
    q0 = rats.q_rest(START_STANCE, START_YAW)
    t0 = time.perf_counter()
    kw = dict(substeps=args.substeps, python_friction=args.python_friction)
    twins = {"twin": MujocoTwin(rats, **kw)}
    t_mjcf = time.perf_counter() - t0
    twins["lean"] = MujocoTwin(rats, lean_flow=True, **kw)
    legsims = {"default": None, "rk4": ("rk4_fixed", 2 * FIXED_STEP), "euler": ("euler", EULER_STEP)}
    for integ in legsims.values():                   # warm-up: numba cache load, first MuJoCo steps
        legsim_run(rats, 0.05, q0, integ)
    for tw in twins.values():
        tw.run(0.05, rolling_policy(), q0)
    times: dict[str, list[float]] = {k: [] for k in (*legsims, *twins)}
    parts: dict[str, list[float]] = {k: [] for k in (*legsims, "mj", "pneumatics", "controller", "lean")}
    outs: dict[str, dict] = {}
    for _ in range(args.rounds):
        for name, integ in legsims.items():
            out = outs[name] = legsim_run(rats, T, q0, integ)
            times[name].append(out["total"])
            parts[name].append(out["kernel"])
        for name, tw in twins.items():
            out = outs[name] = tw.run(T, rolling_policy(), q0)
            times[name].append(out["total"])
        for k in ("mj", "pneumatics", "controller"):
            parts[k].append(outs["twin"][k])
        parts["lean"].append(outs["lean"]["pneumatics"])
    med = {k: statistics.median(v) / T for k, v in times.items()}          # wall s per simulated s
    part = {k: statistics.median(v) / T for k, v in parts.items()}
    per_tick = 1e6 * TICK                                                   # s per sim s -> us per tick

    def ratio(peer: str, name: str) -> float:
        return statistics.median(p / s for p, s in zip(times[peer], times[name], strict=True))

    print(f"\nRolling from rest on stance {START_STANCE} (yaw {START_YAW} rad), heading +x, {T:g} s per run, "
          f"{args.rounds} round(s) of alternating runs. Wall time per simulated second (median over rounds); "
          "ratios formed within each round (> 1: legsim is faster).\n")
    print("| engine | s per sim s | x real time | twin / this | lean twin / this | where the time goes |")
    print("|---|---|---|---|---|---|")
    for name, integ in legsims.items():
        k, py = part[name], med[name] - part[name]
        print(f"| legsim, {_hname(integ)} | {med[name]:.4f} | {1 / med[name]:.1f} | "
              f"**{ratio('twin', name):.2f}** | {ratio('lean', name):.2f} | compiled engine {k:.4f}, "
              f"Python controller + driver {py:.4f} "
              f"({per_tick * py:.0f} us per tick); {outs[name]['steps'] / T:.0f} steps per s |")
    print(f"| MuJoCo twin: Euler {1e3 * H_MJ:g} ms, Python pneumatics ({args.substeps} sub-steps, "
          f"orifice_mass_flow) | {med['twin']:.4f} | {1 / med['twin']:.1f} | 1 | - | "
          f"mj_step {part['mj']:.4f}, "
          f"pneumatics {part['pneumatics']:.4f} ({per_tick * part['pneumatics']:.0f} us per tick), "
          f"controller {part['controller']:.4f} ({per_tick * part['controller']:.0f} us per tick) |")
    print(f"| lean twin: the flow law inlined in numpy | {med['lean']:.4f} | {1 / med['lean']:.1f} | - | 1 | "
          f"pneumatics {part['lean']:.4f} ({per_tick * part['lean']:.0f} us per tick) |")
    pn = twins["lean"].pn
    pn.p_up[:], pn.p_down[:] = np.linspace(1e5, 8e5, 24), np.linspace(8e5, 1e5, 24)[::-1] * 0.999
    diff = np.abs(pn.flow_numpy() - pn.flow_legsim()).max() / np.abs(pn.flow_legsim()).max()
    print(f"\nMuJoCo model compiled from the MJCF string in {1e3 * t_mjcf:.1f} ms; the lean flow law differs "
          f"from orifice_mass_flow by {diff:.1e} (relative).")
    print(f"\nSanity:\n- rolled in {T:g} s:")
    labels = [(name, f"legsim, {_hname(integ)}") for name, integ in legsims.items()]
    for name, label in (*labels, ("twin", "MuJoCo twin"), ("lean", "lean twin")):
        print(f"  {label}: {rolled(outs[name], q0)}")
    if not args.quick:
        for stance, yaw in MORE_STARTS:
            qs = rats.q_rest(stance, yaw)
            a, b = legsim_run(rats, T, qs, None), twins["lean"].run(T, rolling_policy(), qs)
            print(f"  from stance {stance}, yaw {yaw} rad: legsim {rolled(a, qs)}; twin {rolled(b, qs)}")
    checks = [check_inertia(rats, twins["twin"], q0)]
    checks += check_rest(rats, twins["twin"], q0, list(legsims.values()))
    checks += check_firing(rats, twins["twin"], q0)
    for line in checks:
        print(line if line.startswith(" ") else f"- {line}")
    if not args.quick:
        c = cold_probe(False)
        print(f"\nlegsim cold first call, fresh process with numba's disk cache: import {c['imp']:.2f} s, "
              f"build {1e3 * c['build']:.0f} ms, first 0.05 s simulate {c['first']:.3f} s, second "
              f"{c['second']:.3f} s (whole process {c['process']:.2f} s)")
        if args.compile:
            c = cold_probe(True)
            print(f"legsim cold, empty numba cache (everything compiles): import {c['imp']:.1f} s, first "
                  f"simulate {c['first']:.1f} s, second {c['second']:.3f} s (whole process "
                  f"{c['process']:.1f} s)")
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
