"""Software in the loop: a simulated robot stepped in real time behind a transport.

Konyev (2011) §3.3 (contact-processing digest §5): the controller talks to the real robot or to a
virtual one through the same interface. Daepp (2011) §1.2/App. C.2 (pneumatic digest §1.2, §1.4):
SrLib received joint torques, stepped the dynamics and sent joint angles and velocities back,
every 1 ms. :class:`SilServer` does the same for any assembled :class:`legsim.assembly.Robot`:

* **Real-time stepping.** One :meth:`Robot.simulate` call runs the whole session with a Python
  controller callback at the control period; the callback waits for the period's wall-clock
  deadline (:class:`.loop.RealtimeLoop`), takes the newest command received (zero-order hold), sends
  the sensors and returns. The engine integrates each period between callbacks, compiled. Measured
  on the CRR leg: 40 µs of engine and callback per 1 ms period, against 150 µs per period when
  simulating one period per ``simulate`` call (its set-up cost), so the callback is the design.
  The first run on a machine compiles the engine (tens of seconds): :meth:`SilServer.warm_up` does
  that before the clock starts.
* **Exchange.** At period k (t = k T): receive the newest valid command, hold it from now on; send
  the sensors measured at t with sequence number k, the robot's time t, the latest command's
  timestamp echoed (round-trip measurement) and its sequence number acknowledged. The command's own
  ``ack`` (the sensor period it was computed from) gives the exchange delay d_k = k − ack in periods,
  recorded for every period: :func:`.timing.run_tick_delays` replays it in simulated time.
* **Lock-step** (optional, the thesis's SrLib: "receive → compute → send"): at period k wait, up to
  ``lockstep_timeout``, for the command computed from period k − 1.
* Before the clock starts the server sends the initial sensors every 10 ms until the controller's
  first command arrives (``wait_for_controller``), so both sides start from the same state.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, Interrupted, SimulationError, check_flag, check_number
from .loop import DEFAULT_SPIN, MAX_CAPACITY, LoopStats, RealtimeLoop
from .messages import NO_ACK, Packet, _packet
from .transport import Endpoint

__all__ = ["crr_leg_robot", "robot_options", "RobotPlant", "SilServer", "SilRun", "CRR_JOINTS",
           "CRR_POSTURE"]

MAX_WAIT = 60.0
"""Longest wait a SiL server takes for a command, spins or drains the link for [s]."""
MAX_DURATION = 86400.0
"""Longest run paced to the wall clock [s]: a day (its acknowledgement log is one int64 a period)."""
CRR_JOINTS = ("alpha", "beta", "gamma")
CRR_POSTURE = tuple(math.radians(a) for a in (20.0, -20.0, 75.0))
"""The CRR leg's default posture [rad] (Alpha, Beta, Gamma): the mid-stance posture of
:data:`legsim.robots.crr_leg.walking.NOMINAL_POSTURE_DEG`."""


def crr_leg_robot(period: float = 1e-3):
    """The 3-DoF CRR front leg (:func:`legsim.robots.crr_leg.geometry.crr_leg_bodies`: capsule links,
    fixed base, joint-limit springs, gravity) assembled with one ideal :class:`TorqueSource` per joint
    (``tau_alpha``, ``tau_beta``, ``tau_gamma`` [N m]) and ideal sensors ``enc`` (joint angles [rad])
    and ``rate`` (joint velocities [rad/s]) at the control ``period`` [s]: the SrLib side of Daepp
    (2011) §1.4, which took torques and returned angles and velocities."""
    from ..assembly import JointEncoder, JointVelocity, Robot, TorqueSource
    from ..robots.crr_leg.geometry import crr_leg_bodies

    return Robot(crr_leg_bodies(), actuators=[TorqueSource(f"tau_{j}", j) for j in CRR_JOINTS],
                 sensors=[JointEncoder("enc", joints=CRR_JOINTS), JointVelocity("rate", joints=CRR_JOINTS)],
                 control_period=period, name="crr_leg_sil")


def _check_robot(owner: str, robot):
    from ..assembly import Robot

    if not isinstance(robot, Robot):
        raise InputError(f"{owner}: robot = {robot!r}, expected an assembled legsim.assembly.Robot")
    return robot


def robot_options(period: float):
    """Integrator options of every SiL run: fixed-step RK4 with h = the period [s] (a robot's control
    period: :data:`legsim.assembly._clock.MIN_PERIOD` to ``MAX_PERIOD``), a record each period (a fixed
    cost per period, and the same steps in real time and in simulated time)."""
    from ..assembly._clock import MAX_PERIOD, MIN_PERIOD
    from ..hybrid import Options

    period = check_number("robot_options", "period", period, lo=MIN_PERIOD, hi=MAX_PERIOD)
    return Options(method="rk4_fixed", h_max=period, record_period=period)


class RobotPlant:
    """An assembled robot as a plant of :mod:`.timing`: advances one :meth:`Robot.simulate` call per
    stretch between events (exact instants, e.g. jittered ones), commands written into the held
    commands, ``sample()`` = true joint positions then velocities (nq + nv,) (ideal sensors; the
    robot's sensor models act in :class:`SilServer`, not here). ``log()`` gives the trajectory."""

    def __init__(self, robot, q0=None, v0=None, options=None):
        from ..hybrid import Options

        self.robot = _check_robot("RobotPlant", robot)
        if not (options is None or isinstance(options, Options)):
            raise InputError(f"RobotPlant: options = {options!r}, expected None or legsim.hybrid.Options")
        self.options = options if options is not None else robot_options(robot.control_period)
        self.x = robot.initial_state(q0=q0, v0=v0)
        names = list(robot.model.state_names)
        self._xu = names.index(f"u_{robot.actuator_names[0]}") if robot.actuator_names else 0
        self._nu = len(robot.actuator_names)
        self.t = 0.0
        self._nq, self._nv = robot.mb.nq, robot.mb.nv
        self._log: list[np.ndarray] = [self._row()]

    def _row(self) -> np.ndarray:
        return np.concatenate([[self.t], self.x[:self._nq + self._nv], self.x[self._xu:self._xu + self._nu]])

    def advance_to(self, t: float) -> None:
        if t <= self.t + 1e-12:
            return
        res = self.robot.simulate(t, x0=self.x, t0=self.t, options=self.options, progress=False)
        self.x = np.array(res.x[-1])
        self.t = float(t)
        self._log.append(self._row())

    def apply(self, u) -> None:
        u = np.asarray(u, dtype=float).ravel()
        if u.size != self._nu:
            raise InputError(f"{self.robot.name}: {u.size} commands, expected {self._nu} "
                             f"({', '.join(self.robot.actuator_names)})")
        self.x[self._xu:self._xu + self._nu] = u

    def sample(self) -> np.ndarray:
        return np.array(self.x[:self._nq + self._nv])

    def log(self) -> dict[str, np.ndarray]:
        """``t`` (n,), ``q`` (n, nq), ``v`` (n, nv), ``u`` (n, nu) at the end of every stretch."""
        a = np.array(self._log)
        nq, nv = self._nq, self._nv
        return {"t": a[:, 0], "q": a[:, 1:1 + nq], "v": a[:, 1 + nq:1 + nq + nv], "u": a[:, 1 + nq + nv:]}


@dataclass
class SilRun:
    """What a :meth:`SilServer.run` produced: the engine's ``result`` (records every period), the
    loop's statistics, the transport's counters, and per period ``ack`` (the sensor period the held
    command was computed from, -1 before any) and ``delay`` (k − ack, -1 before any)."""

    result: Any
    loop: LoopStats
    link: dict
    ack: np.ndarray
    delay: np.ndarray
    lateness: np.ndarray
    lockstep_timeouts: int = 0
    status: str = "done"
    extra: dict = field(default_factory=dict)

    def exchange_summary(self) -> dict:
        """Counts of the exchange delay [periods] over the periods with a command, and the counters."""
        d = self.delay[self.delay >= 0]
        values, counts = np.unique(d, return_counts=True)
        return {"delay_periods_histogram": {int(v): int(c) for v, c in zip(values, counts, strict=True)},
                "periods_without_command": int(np.count_nonzero(self.delay < 0)),
                "lockstep_timeouts": self.lockstep_timeouts, "link": self.link}


class SilServer:
    """A simulated robot behind a robot-side :class:`.transport.Endpoint`, stepped in real time.

    Parameters
    ----------
    robot : an assembled :class:`legsim.assembly.Robot`; its control period is the loop's period.
    endpoint : the robot side of a link (sends SENSORS, receives COMMANDS with one value per actuator).
    sensors : names of the robot's sensors whose channels are sent, concatenated in this order
        (default: all, in declaration order).
    q0 : initial joint positions (nq,) [rad, m] (default: the model's neutral).
    lockstep : wait each period for the command computed from the previous one (see module docstring).
    lockstep_timeout : the longest such wait [s] (default: 0.8 of the period).
    spin : spin margin of the real-time loop [s] (:class:`.loop.RealtimeLoop`).
    drain : after the last period, keep receiving this long [s], so that the link's counters include
        the answers to the last sensors (they are not applied).
    """

    def __init__(self, robot, endpoint: Endpoint, *, sensors=None, q0=None, lockstep: bool = False,
                 lockstep_timeout: float | None = None, spin: float = DEFAULT_SPIN, drain: float = 0.05):
        o = "SilServer"
        self.robot = _check_robot(o, robot)
        if not isinstance(endpoint, Endpoint):
            raise InputError(f"{o}: endpoint = {endpoint!r}, expected a legsim.realtime transport Endpoint "
                             "(robot_side(...), InProcessLink(...).robot)")
        self.endpoint = endpoint
        names = [s.name for s in robot.sensors]
        if not (sensors is None or (isinstance(sensors, list | tuple)
                                    and all(isinstance(s, str) for s in sensors))):
            raise InputError(f"{o}: sensors = {sensors!r}, expected None or a list of sensor names")
        self.sensor_names = tuple(names if sensors is None else sensors)
        for s in self.sensor_names:
            if s not in names:
                raise InputError(f"SilServer: sensor {s!r} is not one of the robot's: {', '.join(names)}")
        self.period = robot.control_period
        robot.initial_state(q0=q0)  # a wrong q0 is named now, not when the clock starts
        self.q0 = q0
        self.lockstep = check_flag(o, "lockstep", lockstep)
        self.lockstep_timeout = 0.8 * self.period if lockstep_timeout is None else \
            check_number(o, "lockstep_timeout", lockstep_timeout, lo=0.0, lo_open=True, hi=MAX_WAIT)
        self.spin = check_number(o, "spin", spin, lo=0.0, hi=MAX_WAIT)
        self.drain = check_number(o, "drain", drain, lo=0.0, hi=MAX_WAIT)
        self.options = robot_options(self.period)
        self.nu = len(robot.actuator_names)
        self.preroll_sent = 0
        """Initial sensor packets sent while waiting for the controller."""
        self.ny = sum(len(c.labels) for c in robot.channels if c.name in self.sensor_names)
        self._y0: np.ndarray | None = None

    # ------------------------------------------------------------------------------- phases
    def warm_up(self, echo=print) -> float:
        """Run the robot for a few periods so that the engine is compiled (a first run on a machine:
        tens of seconds) or loaded from its cache before the clock starts; returns the seconds taken."""
        t0 = time.perf_counter()
        echo("legsim sil: warming up the engine (a first run on this machine compiles it: up to a "
             "minute) ...")
        self.robot.simulate(20 * self.period, lambda t, s: np.zeros(self.nu), q0=self.q0,
                            options=self.options, progress=False)
        self.initial_readings()
        took = time.perf_counter() - t0
        echo(f"legsim sil: engine ready in {took:.1f} s")
        return took

    def initial_readings(self) -> np.ndarray:
        """The sensors' channels (ny,) at t = 0: what the controller sees first."""
        if self._y0 is None:
            self._y0 = _initial_readings(self.robot, self.robot.initial_state(q0=self.q0), self.sensor_names)
        return self._y0

    def wait_for_controller(self, timeout: float, echo=print) -> Packet:
        """Send the initial sensors (sequence 0, t = 0) every 10 ms until a valid command arrives;
        returns it. InputError after ``timeout`` [s] without one."""
        end = time.perf_counter() + check_number("wait_for_controller", "timeout", timeout, lo=0.0)
        pkt = None
        while pkt is None:
            if time.perf_counter() > end:
                raise InputError(f"no controller answered within --wait {timeout:g} s: start one (e.g. "
                                 "python examples/sil_controller.py) or raise --wait")
            self.endpoint.send(_packet(seq=0, t=0.0, values=self.initial_readings()))
            self.preroll_sent += 1
            self.endpoint.wait(0.01)
            pkt = self.endpoint.recv_latest()
        echo(f"legsim sil: controller connected ({type(self.endpoint).__name__})")
        return pkt

    def run(self, duration: float, first_command: Packet | None = None) -> SilRun:
        """Run the robot for ``duration`` [s] of simulated time paced to the wall clock. Garbage
        collection is off inside. A Ctrl-C stops the run: the returned :class:`SilRun` has status
        ``interrupted`` and everything recorded so far (the caller decides to re-raise)."""
        duration = check_number("SilRun", "duration", duration, lo=0.0, lo_open=True, hi=MAX_DURATION)
        T = self.period
        n = int(round(duration / T)) + 2
        ack = np.full(n, -1, dtype=np.int64)
        u = np.zeros(self.nu)
        state: dict[str, Any] = {"cmd_t": 0.0, "cmd_seq": NO_ACK, "ack": -1, "timeouts": 0}
        if first_command is not None:
            self._take(first_command, u, state)
        loop = RealtimeLoop(T, spin=self.spin, capacity=min(n, MAX_CAPACITY))
        ep = self.endpoint
        channels = _channel_slices(self.robot, self.sensor_names)
        y = np.empty(self.ny)
        out = np.empty(self.nu)

        def tick(t: float, sensors) -> np.ndarray:
            if not loop.running:  # the clock starts at the first period (after the engine's set-up)
                loop.start(lead=0.0)
            k = loop.tick()
            if self.lockstep and k > 0:
                self._wait_lockstep(k, u, state)
            else:
                pkt = ep.recv_latest()
                if pkt is not None:
                    self._take(pkt, u, state)
            x = sensors.x
            j = 0
            for start, m in channels:
                y[j:j + m] = x[start:start + m]
                j += m
            ep.send(_packet(seq=k, t=t, values=y, echo=state["cmd_t"], ack=state["cmd_seq"]))
            if k < n:
                ack[k] = state["ack"]
            out[:] = u
            return out

        result, status = None, "done"
        try:
            result = self.robot.simulate(duration, tick, q0=self.q0, options=self.options, progress=False)
        except SimulationError as exc:  # Ctrl-C (Interrupted) or a failed step: keep what was recorded
            result, status = exc.result, ("interrupted" if isinstance(exc, Interrupted) else "failed")
            if status == "failed":
                raise
        finally:
            stats = loop.stop()
            end = time.perf_counter() + self.drain
            while time.perf_counter() < end:  # count the answers still on their way (not applied)
                ep.wait(end - time.perf_counter())
                ep.recv_latest()
        m = min(stats.periods, n)
        k_idx = np.arange(m)
        delay = np.where(ack[:m] >= 0, k_idx - ack[:m], -1)
        rec = loop.records()
        lateness = (rec["wake"] - rec["deadline"])[:m]
        return SilRun(result=result, loop=stats, link=ep.stats.to_dict(), ack=ack[:m], delay=delay,
                      lateness=lateness, lockstep_timeouts=state["timeouts"], status=status,
                      extra={"preroll_sent": self.preroll_sent})

    def _take(self, pkt: Packet, u: np.ndarray, state: dict) -> None:
        """Hold the command ``pkt`` from now on."""
        u[:] = pkt.values
        state["cmd_t"], state["cmd_seq"] = pkt.t, pkt.seq
        state["ack"] = -1 if pkt.ack == NO_ACK else int(pkt.ack)

    def _wait_lockstep(self, k: int, u: np.ndarray, state: dict) -> None:
        end = time.perf_counter() + self.lockstep_timeout
        while True:
            pkt = self.endpoint.recv_latest()
            if pkt is not None:
                self._take(pkt, u, state)
            if state["ack"] >= k - 1:
                return
            left = end - time.perf_counter()
            if left <= 0.0:
                state["timeouts"] += 1
                return
            self.endpoint.wait(left)


def _initial_readings(robot, x: np.ndarray, names) -> np.ndarray:
    """The sensors' readings at t = 0 (one engine sample: the held values of ``x`` are only filled
    by the engine's sample hook)."""
    res = robot.simulate(robot.control_period, None, x0=x, options=robot_options(robot.control_period),
                         progress=False)
    xs = res.x[0]
    parts = [xs[start:start + m] for start, m in _channel_slices(robot, names)]
    return np.concatenate(parts) if parts else np.zeros(0)


def _channel_slices(robot, names) -> list[tuple[int, int]]:
    """(first state index, channel count) of each named sensor's held measurements, in ``names``
    order (the states ``<sensor>_<channel>`` of :attr:`Robot.model`)."""
    states = list(robot.model.state_names)
    return [(states.index(f"{c.name}_{c.labels[0]}"), len(c.labels)) for name in names
            for c in robot.channels if c.name == name]


def write_run(out_dir, robot, run: SilRun, metadata: dict) -> Path:
    """Write a SiL run directory: the records (``legsim.io`` format, read with ``load_run``),
    ``loop_stats.json`` (:meth:`LoopStats.to_dict`), ``exchange.json`` (delay histogram, link counters)
    and ``exchange.csv`` (per period: k, t [s], wake lateness [us], ack, delay [periods])."""
    from ..io import RunWriter

    out = Path(out_dir)
    writer = RunWriter(out, robot.model, {"sil": metadata})
    res = run.result
    if res is not None and getattr(res, "t", np.zeros(0)).size:
        rec = np.column_stack([res.t, res.x, res.y]) if res.y.size else np.column_stack([res.t, res.x])
        writer(rec, np.asarray(res.mode), res.events)
    loop = run.loop.to_dict()
    exchange = run.exchange_summary()
    writer.finish(run.status, f"software in the loop, {run.loop.periods} periods",
                  {"loop": loop, "exchange": exchange, **run.extra})
    (out / "loop_stats.json").write_text(json.dumps(loop, indent=2))
    (out / "exchange.json").write_text(json.dumps({**exchange, **run.extra}, indent=2))
    k = np.arange(run.delay.size)
    table = np.column_stack([k, k * robot.control_period, run.lateness * 1e6, run.ack, run.delay])
    np.savetxt(out / "exchange.csv", table, delimiter=",", header="k,t_s,lateness_us,ack,delay_periods",
               comments="", fmt=["%d", "%.6f", "%.1f", "%d", "%d"])
    return out
