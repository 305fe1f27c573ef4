"""Timing models of the robot–controller exchange, run deterministically in simulated time.

The same controller object — ``controller(t, y) -> u`` with ``t`` the measurement's timestamp [s],
``y`` (ny,) the measurement and ``u`` (nu,) the commands — runs against these models in simulated time
(here) or against the real-time loop over a transport (:mod:`.sil`, ``examples/sil_controller.py``).
A *plant* is anything with ``t`` [s], ``advance_to(t)``, ``apply(u)`` and ``sample() -> y``: a robot
(:class:`legsim.realtime.sil.RobotPlant`) or a stand-in (:class:`ClockPlant`).

Models and their sources:

* :class:`EtherCATTiming` — Konyev (2011) §3.3, Figs 3.7/4.13 (contact-processing digest §5): in
  period n the host computes from the data received and writes the references into telegram n; the
  slaves apply them on arrival and sample their sensors T/2 later; the data go back in telegram
  n+1 and are used in period n+2: the controller's data are 1.5 T old. Jitter of the cycle start
  bounded by 15 µs (the thesis's measured maximum), seeded.
* :class:`LinkModel` — Daepp (2011) §5.3.2, App. D (pneumatic digest §1.8, §3.5): the UDP exchange
  between the xPC target and SrLib: a delay per packet (the round trip measured 3–4 ms), pauses
  (the old configuration: up to ~100 ms, one of 90 ms in a Wireshark trace, while xPC's buffered
  background UDP task stalled), and packet loss (not reported by the thesis; ours, seeded).
* :func:`run_tick_delays` — the software-in-the-loop server's own exchange (:mod:`.sil`) in
  simulated time: at robot period k the held command was computed from the measurement of period
  k − d_k (d_k given, constant or a measured trace).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import InputError, as_float, as_floats, check_flag, check_number, check_whole, shown
from .messages import Packet, _packet

__all__ = ["Plant", "ClockPlant", "EtherCATTiming", "LinkModel", "ExchangeTrace", "run_ethercat",
           "run_exchange", "run_tick_delays", "MAX_ETHERCAT_JITTER", "MAX_PERIODS", "MAX_PERIOD"]

MAX_ETHERCAT_JITTER = 15e-6
"""The thesis's maximum cycle jitter [s] (Konyev (2011) §3.3: "<15 µs")."""

MAX_PERIODS = 10_000_000
"""The most periods one run of a timing model takes: its trace holds arrays of that many rows, and its
loop is Python (about 10^5 periods a second)."""

MAX_PERIOD = 3600.0
"""The longest control period [s] a timing model takes (its instants are k T for k up to MAX_PERIODS)."""

ControllerFn = Callable[[float, np.ndarray], object]


class Plant(Protocol):
    """What the timing models drive: ``t`` [s]; ``advance_to(t)``; ``apply(u)`` (held until the next
    apply); ``sample() -> y`` (ny,) at the current time."""

    t: float

    def advance_to(self, t: float) -> None: ...

    def apply(self, u: np.ndarray) -> None: ...

    def sample(self) -> np.ndarray: ...


class ClockPlant:
    """A stand-in plant whose measurement is the time it is sampled at (``y = [t]``): what a timing
    model delivers is then read off directly (the age of the data is ``t_now - y``). It keeps the
    commands applied, with the times they were applied at, in ``applied``."""

    def __init__(self) -> None:
        self.t = 0.0
        self.applied: list[tuple[float, np.ndarray]] = []

    def advance_to(self, t: float) -> None:
        if t < self.t - 1e-15:
            raise ValueError(f"ClockPlant: cannot go back from t = {self.t} to {t}")
        self.t = t

    def apply(self, u: np.ndarray) -> None:
        self.applied.append((self.t, np.array(u, dtype=float)))

    def sample(self) -> np.ndarray:
        return np.array([self.t])


def _commands(u, what: str = "the controller", like: np.ndarray | None = None,
              like_name: str = "u0") -> np.ndarray:
    """The commands ``u`` as a finite (nu,) float array (as many as ``like``, named ``like_name``, when
    given), else an :class:`InputError` saying what ``what`` gave."""
    arr = as_floats(u).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)):
        raise InputError(f"{what} gave {shown(u)}: expected finite commands (nu,)")
    if like is not None and arr.size != like.size:
        raise InputError(f"{what} gave {arr.size} commands where {like_name} has {like.size}: expected as "
                         "many")
    return arr


def _check_parts(owner: str, plant, controller) -> None:
    """An :class:`InputError` unless ``plant`` is a :class:`Plant` at t = 0 and ``controller`` can be
    called."""
    if not all(callable(getattr(plant, m, None)) for m in ("advance_to", "apply", "sample")):
        raise InputError(f"{owner}: plant = {shown(plant)}, expected a plant with advance_to(t), apply(u) "
                         "and sample() (legsim.realtime.timing.Plant)")
    if not callable(controller):
        raise InputError(f"{owner}: controller = {shown(controller)}, expected a function "
                         "controller(t, y) -> u")
    if as_float(getattr(plant, "t", math.nan)) != 0.0:
        raise InputError(f"{owner}: the plant is at t = {shown(getattr(plant, 't', None))} s: a run starts "
                         "at t = 0 (a plant serves one run: make another)")


def _periods(owner: str, t_final, period: float) -> int:
    """The whole periods in ``t_final`` [s] (1 to :data:`MAX_PERIODS`), else an :class:`InputError`."""
    t_final = check_number(owner, "t_final", t_final, lo=0.0)
    periods = t_final / period + 1e-9
    if periods < 1.0:
        raise InputError(f"{owner}: 't_final' = {t_final:g} s is shorter than one period ({period:g} s)")
    if not periods < MAX_PERIODS + 1:  # inf too
        raise InputError(f"{owner}: 't_final' = {t_final:g} s is {periods:.4g} periods of {period:g} s, "
                         f"expected at most MAX_PERIODS = {MAX_PERIODS}")
    return math.floor(periods)


@dataclass
class ExchangeTrace:
    """What happened at the controller, one row per controller period: ``t`` (n,) its instants [s];
    ``sample_t`` (n,) the time the measurement it used was taken [s] (NaN: none yet); ``age`` (n,) =
    ``t - sample_t`` [s]; ``u`` (n, nu) the commands it computed (NaN rows: no new measurement, no
    command sent). ``link`` holds the links' counters when there were links."""

    t: np.ndarray
    sample_t: np.ndarray
    u: np.ndarray
    link: dict

    @property
    def age(self) -> np.ndarray:
        return self.t - self.sample_t


# ---------------------------------------------------------------------------------- EtherCAT
@dataclass(frozen=True)
class EtherCATTiming:
    """The EtherCAT cycle of Konyev (2011) §3.3 (Figs 3.7, 4.13; digest §5 items 1–5).

    Parameters
    ----------
    period : cycle time T [s] (1 ms on ANTON and ROTTO).
    jitter : bound of the cycle start's lateness [s], in [0, 15 µs]: telegram n leaves at
        ``n T + j_n`` with ``j_n`` uniform in [0, jitter] (seeded; 0: exact).
    seed : seed of the jitter draws.
    sample_delay : the slaves sample their sensors this long after the telegram arrives [s]
        (default T/2: "T_delay = T_sample/2 ... minimises the age of the data").
    use_delay : periods from the sampling period to the period that uses the data (2: sampled in
        period n, sent in telegram n+1, used in period n+2).
    """

    period: float = 1e-3
    jitter: float = 0.0
    seed: int = 0
    sample_delay: float | None = None
    use_delay: int = 2

    def __post_init__(self):
        if not 0.0 < as_float(self.period) <= MAX_PERIOD:
            raise InputError(f"EtherCATTiming: period = {self.period!r}, expected a number in (0, "
                             f"MAX_PERIOD = {MAX_PERIOD:g}] [s]")
        if not (0.0 <= as_float(self.jitter) <= MAX_ETHERCAT_JITTER + 1e-18):
            raise InputError(f"EtherCATTiming: jitter = {self.jitter!r}, expected 0 to 15e-6 s (the "
                             "thesis's bound)")
        if self.sample_delay is not None and not 0.0 <= as_float(self.sample_delay) < self.period:
            raise InputError(f"EtherCATTiming: sample_delay = {self.sample_delay!r}, expected in [0, T)")
        object.__setattr__(self, "use_delay",
                           check_whole("EtherCATTiming", "use_delay", self.use_delay, 1, 1000))  # periods
        object.__setattr__(self, "seed", check_whole("EtherCATTiming", "seed", self.seed, hi=2**64 - 1))

    def telegram_times(self, n: int) -> np.ndarray:
        """(n,) instants [s] at which periods 0..n-1 start (telegram sent, references applied)."""
        j = np.random.default_rng(self.seed).uniform(0.0, self.jitter, n) if self.jitter > 0 else np.zeros(n)
        return np.arange(n) * self.period + j

    def sample_times(self, n: int) -> np.ndarray:
        """(n,) instants [s] at which the slaves sample in periods 0..n-1 (telegram + T/2)."""
        d = 0.5 * self.period if self.sample_delay is None else self.sample_delay
        return self.telegram_times(n) + d


def run_ethercat(plant: Plant, controller: ControllerFn, timing: EtherCATTiming,
                 t_final: float) -> ExchangeTrace:
    """Run ``controller`` against ``plant`` through the EtherCAT cycle ``timing`` up to ``t_final``.

    Period n: at its start (``telegram_times``) the controller computes from the newest data
    received — sampled in period n − use_delay — and the command is applied at once (the telegram's
    arrival; bus transit neglected); at ``sample_times[n]`` the plant is sampled. Periods before any
    data exist (n < use_delay) use the plant's measurement at t = 0 (a boot read), with age n T.
    """
    _check_parts("run_ethercat", plant, controller)
    if not isinstance(timing, EtherCATTiming):
        raise InputError(f"run_ethercat: timing = {shown(timing)}, expected an EtherCATTiming")
    n = _periods("run_ethercat", t_final, timing.period)
    tt, ts = timing.telegram_times(n), timing.sample_times(n)
    boot = plant.sample()
    samples: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    used_t = np.empty(n)
    for k in range(n):
        plant.advance_to(tt[k])
        m = k - timing.use_delay
        y, used_t[k] = (samples[m], ts[m]) if m >= 0 else (boot, 0.0)
        u = _commands(controller(float(used_t[k]), y), like=rows[0] if rows else None,
                      like_name="its first command")
        plant.apply(u)
        rows.append(u)
        plant.advance_to(ts[k])
        samples.append(plant.sample())
    return ExchangeTrace(t=tt, sample_t=used_t, u=np.array(rows).reshape(n, -1), link={})


# ------------------------------------------------------------------------------- UDP link
class LinkModel:
    """One direction of a co-simulation network link in simulated time (Daepp (2011) §5.3.2).

    Parameters
    ----------
    delay : one-way delay [s]: a number, or ``(lo, hi)`` for a delay drawn uniformly per packet.
    loss : probability that a packet is lost (seeded draws).
    pauses : ``((start, duration), ...)`` [s]: nothing is delivered inside ``[start, start + duration)``;
        a packet due then arrives at the pause's end (xPC's buffered UDP task: a burst after the
        pause), or is lost with ``pause_drops=True``.
    seed : seed of the delay and loss draws (one stream, drawn in send order: deterministic).

    ``send(t, packet)`` queues a packet; ``poll(t)`` returns the newest packet (by sequence number)
    delivered at or before ``t`` that is newer than the last one returned, else None.
    """

    def __init__(self, delay: float | tuple[float, float] = 0.0, *, loss: float = 0.0,
                 pauses: Sequence[tuple[float, float]] = (), pause_drops: bool = False, seed: int = 0):
        pair = delay if isinstance(delay, (tuple, list)) and len(delay) == 2 else (delay, delay)
        lo, hi = as_float(pair[0]), as_float(pair[1])
        if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 <= lo <= hi):
            raise InputError(f"LinkModel: delay = {delay!r}, expected a number >= 0 or (lo, hi) with "
                             "0 <= lo <= hi [s]")
        if not 0.0 <= as_float(loss) < 1.0:
            raise InputError(f"LinkModel: loss = {loss!r}, expected a probability in [0, 1)")
        if not (isinstance(pauses, (tuple, list)) and all(
                isinstance(p, (tuple, list)) and len(p) == 2 and 0.0 <= as_float(p[0]) < math.inf
                and 0.0 < as_float(p[1]) < math.inf for p in pauses)):
            raise InputError(f"LinkModel: pauses = {pauses!r}, expected ((start >= 0, duration > 0), ...) "
                             "[s]")
        seed = check_whole("LinkModel", "seed", seed, hi=2**64 - 1)  # numpy's default_rng takes any
        pause_drops = check_flag("LinkModel", "pause_drops", pause_drops)
        self.lo, self.hi, self.loss = float(lo), float(hi), float(loss)
        self.pauses = tuple(sorted((float(a), float(b)) for a, b in pauses))
        self.pause_drops = pause_drops
        self._rng = np.random.default_rng(seed)
        self._queue: list[tuple[float, int, Packet]] = []
        self._n = 0
        self._last_seq = -1
        self.sent = self.lost = self.held = self.delivered = self.stale = 0

    def _pause_at(self, t: float) -> tuple[float, float] | None:
        for start, dur in self.pauses:
            if start <= t < start + dur:
                return start, dur
        return None

    def send(self, t: float, packet: Packet) -> None:
        self.sent += 1
        d = self.lo if self.hi == self.lo else float(self._rng.uniform(self.lo, self.hi))
        if self.loss > 0.0 and self._rng.random() < self.loss:
            self.lost += 1
            return
        due = t + d
        pause = self._pause_at(due)
        if pause is not None:
            if self.pause_drops:
                self.lost += 1
                return
            self.held += 1
            due = pause[0] + pause[1]
        heapq.heappush(self._queue, (due, self._n, packet))
        self._n += 1

    def poll(self, t: float) -> Packet | None:
        best: Packet | None = None
        q = self._queue
        while q and q[0][0] <= t + 1e-12:
            pkt = heapq.heappop(q)[2]
            self.delivered += 1
            if pkt.seq <= self._last_seq or (best is not None and pkt.seq <= best.seq):
                self.stale += 1
                continue
            if best is not None:  # superseded by a newer one in the same burst
                self.stale += 1
            best = pkt
        if best is not None:
            self._last_seq = best.seq
        return best

    def counters(self) -> dict:
        return {"sent": self.sent, "lost": self.lost, "held_by_pause": self.held,
                "delivered": self.delivered, "stale_or_superseded": self.stale}


def run_exchange(plant: Plant, controller: ControllerFn, *, period: float, t_final: float, up: LinkModel,
                 down: LinkModel, u0, controller_phase: float = 0.0, clocked: bool = False) -> ExchangeTrace:
    """Two sampled sides joined by two links, as the thesis's co-simulation (Daepp (2011) §4 item 3):
    the robot side, every ``period`` [s] at t = k T, applies the newest command delivered by ``down``
    (zero-order hold; ``u0`` before any) and sends its measurement on ``up``; the controller side,
    every ``period`` at t = k T + ``controller_phase``, takes the newest measurement delivered by
    ``up``, computes ``controller(t_measured, y)`` and sends it on ``down``. At equal instants the
    robot goes first. Runs to ``t_final``; returns the controller's trace.

    ``clocked=False`` (an event-driven controller, ``examples/sil_controller.py``): the controller
    computes only on a new measurement, in the measurement's time. ``clocked=True`` (the thesis's
    xPC target, a 1 kHz Simulink model): it computes every period in its own time ``t`` from the
    newest measurement it holds, stale or not, and sends every period."""
    o = "run_exchange"
    _check_parts(o, plant, controller)
    period = check_number(o, "period", period, lo=0.0, hi=MAX_PERIOD, lo_open=True)  # [s]
    for name, link in (("up", up), ("down", down)):
        if not isinstance(link, LinkModel):
            raise InputError(f"{o}: {name} = {shown(link)}, expected a LinkModel")
    phase = as_float(controller_phase)
    if not 0.0 <= phase < period:
        raise InputError(f"{o}: 'controller_phase' = {shown(controller_phase)}, expected in [0, period = "
                         f"{period:g}) [s]")
    clocked = check_flag(o, "clocked", clocked)
    n = _periods(o, t_final, period)
    u_held = _commands(u0, "u0")
    plant.apply(u_held)
    t_rows, s_rows, u_rows = np.empty(n), np.full(n, np.nan), np.full((n, u_held.size), np.nan)
    last_cmd_t = 0.0
    held: Packet | None = None
    for k in range(n):
        t = k * period
        plant.advance_to(t)
        cmd = down.poll(t)
        if cmd is not None:
            u_held = cmd.values
            last_cmd_t = cmd.t
            plant.apply(u_held)
        up.send(t, _packet(seq=k, t=t, values=plant.sample(), echo=last_cmd_t))
        tc = t + controller_phase
        t_rows[k] = tc
        meas = up.poll(tc)
        if meas is not None:
            held = meas
        if held is not None and (meas is not None or clocked):
            u = _commands(controller(tc if clocked else held.t, held.values), like=u_held)
            s_rows[k], u_rows[k] = held.t, u
            down.send(tc, _packet(seq=k, t=tc, values=u, ack=held.seq, echo=held.t))
    plant.advance_to(n * period)
    return ExchangeTrace(t=t_rows, sample_t=s_rows, u=u_rows,
                         link={"up": up.counters(), "down": down.counters()})


def run_tick_delays(plant: Plant, controller: ControllerFn, *, period: float, delays, u0) -> ExchangeTrace:
    """The software-in-the-loop server's exchange in simulated time (:class:`legsim.realtime.sil.SilServer`):
    at robot period k (t = k T) the plant is sampled, then the command held from then on is the one
    computed from the measurement of period k − d_k, where ``delays`` (n,) gives d_k [periods] (a
    measured trace; -1: no command yet, hold ``u0``). The controller
    is called once per measurement used, in order. Runs n periods (n = len(delays)).
    """
    o = "run_tick_delays"
    _check_parts(o, plant, controller)
    period = check_number(o, "period", period, lo=0.0, hi=MAX_PERIOD, lo_open=True)  # [s]
    d = np.asarray(delays) if not isinstance(delays, str) else np.asarray([delays])
    if d.ndim != 1 or not np.issubdtype(d.dtype, np.integer) or d.size > MAX_PERIODS:
        raise InputError(f"{o}: 'delays' = {shown(delays)}: expected a 1-D array of whole numbers of periods "
                         f"(at most MAX_PERIODS = {MAX_PERIODS})")
    n = d.size
    u_held = _commands(u0, "u0")
    plant.apply(u_held)
    samples: list[np.ndarray] = []
    cache: dict[int, np.ndarray] = {}
    t_rows, s_rows, u_rows = np.arange(n) * period, np.full(n, np.nan), np.full((n, u_held.size), np.nan)
    for k in range(n):
        plant.advance_to(k * period)
        samples.append(plant.sample())
        if d[k] >= 0:
            m = k - int(d[k])
            if not 0 <= m <= k:
                raise InputError(f"delays[{k}] = {d[k]}: the measurement of period {m} does not exist")
            if m not in cache:
                cache[m] = _commands(controller(m * period, samples[m]), like=u_held)
            u_held = cache[m]
            s_rows[k], u_rows[k] = m * period, u_held
            plant.apply(u_held)
    plant.advance_to(n * period)
    return ExchangeTrace(t=t_rows, sample_t=s_rows, u=u_rows, link={})
