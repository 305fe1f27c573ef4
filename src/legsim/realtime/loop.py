"""A fixed-rate loop paced to the wall clock, and the statistics of every period it ran.

Konyev (2011) §3.3/§4.2 (contact-processing digest §5, §7.3): the controller runs at a fixed cycle
of 1 ms, configurable down to 0.1 ms ("cycle times up to 100 µs"); the thesis reached a jitter below
15 µs on xPC Target after disabling the PC's peripherals. Stock Linux running Python does not get
there; this loop measures what it does get (BENCHMARKS.md "Software in the loop").

How it waits (a *hybrid sleep*): ``time.sleep`` until ``spin`` seconds before the deadline, then a
busy loop on :func:`time.perf_counter_ns` until the deadline. The kernel's sleep wakes 50–100 µs
late and sometimes milliseconds late; the spin absorbs the usual lateness at the cost of a core
busy for ``spin`` seconds of every period (30 % of a core at 1 ms with the default 0.3 ms; all of it
at 0.1 ms, where every wait is shorter than the spin). ``spin=0`` sleeps only: little CPU, more
jitter. Garbage collection is off inside the loop (a collection can take milliseconds); the loop
collects once before it starts and turns collection back on when it stops.

Timeline of period ``i`` (all from one monotonic clock, integer nanoseconds)::

    deadline_i = t0 + k_i T      wake_i >= deadline_i       end_i: the period's work is done
    lateness_i = wake_i - deadline_i    (the jitter)        slack_i = deadline_{i+1} - end_i
    a deadline miss: slack_i < 0 (the work overran into the next period)

After a miss the loop either runs the late periods back to back (``policy="catch_up"``, the
default: the schedule never drifts and every period runs, so a simulation paced by it stays on
the wall clock on average) or drops the deadlines already passed (``policy="skip"``: counted in
``skipped``).
"""

from __future__ import annotations

import gc
import os
import time
from dataclasses import asdict, dataclass

import numpy as np

from ..errors import InputError, as_float, check_flag, check_number, check_whole

__all__ = ["RealtimeLoop", "LoopStats", "DEFAULT_SPIN", "MIN_PERIOD"]

DEFAULT_SPIN = 3e-4
"""Default spin margin [s]: sleep until 0.3 ms before the deadline, then spin."""
MIN_PERIOD = 1e-4
"""Shortest period the loop accepts [s] (the thesis's "cycle times up to 100 µs")."""
MAX_PERIOD = 3600.0
"""Longest period the loop accepts [s] (its clock counts int64 nanoseconds)."""
MAX_CAPACITY = 10_000_000
"""Most periods whose records a loop preallocates (3 int64 each: 240 MB); more grow the arrays."""


@dataclass
class LoopStats:
    """What a :class:`RealtimeLoop` measured. Times in seconds; percentiles over all periods.

    ``period_*``: wall time between successive wake-ups; ``lateness_*``: wake-up minus deadline
    (the jitter); ``work_*``: wake-up to the end of the period's work; ``slack_*``: end of the work to
    the next deadline (negative: a miss); ``deadline_misses``: periods whose work ended after the
    next deadline; ``skipped``: deadlines dropped (policy ``skip``); ``gc_collections``: garbage
    collections that ran inside the loop (0 with ``gc_disabled``); ``load_1min``: the machine's
    1-minute load average at the end and ``cpus`` its core count (other processes shift the numbers).
    """

    period_s: float
    periods: int
    duration_s: float
    policy: str
    spin_s: float
    period_p50_s: float
    period_p99_s: float
    period_max_s: float
    period_min_s: float
    period_std_s: float
    lateness_p50_s: float
    lateness_p99_s: float
    lateness_max_s: float
    work_p50_s: float
    work_max_s: float
    slack_min_s: float
    slack_p50_s: float
    deadline_misses: int
    skipped: int
    gc_disabled: bool
    gc_collections: int
    load_1min: float
    cpus: int

    def to_dict(self) -> dict:
        """The statistics as a JSON-ready dict (numbers and strings only)."""
        return asdict(self)

    def summary(self) -> str:
        """Three lines for a terminal, in microseconds."""
        us = 1e6
        return (f"{self.periods} periods of {self.period_s * 1e3:g} ms in {self.duration_s:.3f} s "
                f"(policy {self.policy}, spin {self.spin_s * 1e3:g} ms, gc "
                f"{'off' if self.gc_disabled else 'on'}, load {self.load_1min:.2f} on {self.cpus} cpus)\n"
                f"  period p50 {self.period_p50_s * us:.1f} us  p99 {self.period_p99_s * us:.1f} us  "
                f"max {self.period_max_s * us:.1f} us  min {self.period_min_s * us:.1f} us\n"
                f"  lateness p50 {self.lateness_p50_s * us:.1f} us  p99 {self.lateness_p99_s * us:.1f} us  "
                f"max {self.lateness_max_s * us:.1f} us; work p50 {self.work_p50_s * us:.1f} us  "
                f"max {self.work_max_s * us:.1f} us; slack min {self.slack_min_s * us:.1f} us; "
                f"deadline misses {self.deadline_misses}, skipped {self.skipped}")


class RealtimeLoop:
    """A fixed-rate loop on the wall clock: call :meth:`start`, then :meth:`tick` at the top of every
    period (it returns when the period's deadline has come), then :meth:`stop` for the statistics.

    Parameters
    ----------
    period : the period T [s], at least :data:`MIN_PERIOD` (0.1 ms).
    spin : the spin margin [s] of the hybrid sleep (see the module docstring); 0 sleeps only.
    policy : ``"catch_up"`` or ``"skip"`` (what follows a deadline miss).
    capacity : periods to preallocate records for (more are taken by growing the arrays).
    gc_off : turn the garbage collector off between :meth:`start` and :meth:`stop`.

    >>> loop = RealtimeLoop(1e-3)
    >>> loop.start()
    >>> for _ in range(1000):
    ...     k = loop.tick()          # the k-th deadline t0 + k T has come
    ...     do_the_work(k)
    >>> print(loop.stop().summary())
    """

    def __init__(self, period: float, *, spin: float = DEFAULT_SPIN, policy: str = "catch_up",
                 capacity: int = 4096, gc_off: bool = True):
        if not MIN_PERIOD - 1e-12 <= as_float(period) <= MAX_PERIOD:
            raise InputError(f"RealtimeLoop: period = {period!r} s: expected a number in [{MIN_PERIOD:g}, "
                             f"{MAX_PERIOD:g}] s (0.1 ms to an hour)")
        spin = check_number("RealtimeLoop", "spin", spin, lo=0.0, hi=MAX_PERIOD)  # [s]
        if not (isinstance(policy, str) and policy in ("catch_up", "skip")):
            raise InputError(f"policy = {policy!r}: expected 'catch_up' or 'skip'")
        self.period = float(period)
        self.spin = float(spin)
        self.policy = policy
        self.gc_off = check_flag("RealtimeLoop", "gc_off", gc_off)
        self._T = int(round(self.period * 1e9))
        self._spin = int(round(self.spin * 1e9))
        n = max(check_whole("RealtimeLoop", "capacity", capacity, 0, MAX_CAPACITY), 16)
        self._deadline = np.zeros(n, dtype=np.int64)
        self._wake = np.zeros(n, dtype=np.int64)
        self._end = np.zeros(n, dtype=np.int64)
        self._i = -1
        self._k = -1
        self._t0 = 0
        self._skipped = 0
        self._gc_was = True
        self._gc_count0 = 0
        self.running = False

    # ------------------------------------------------------------------------------- running
    def start(self, lead: float | None = None) -> None:
        """Start the clock: deadline 0 is ``lead`` seconds from now (default one period). A background
        warm-up compiling on this machine is stopped first (:func:`legsim.warmup.stop_background`): a
        deadline loop does not share the cores with it."""
        from ..warmup import stop_background

        stop_background()
        self._gc_was = gc.isenabled()
        if self.gc_off:
            gc.collect()
            gc.disable()
        self._gc_count0 = _collections()
        self._t0 = time.perf_counter_ns() + int(round((self.period if lead is None else lead) * 1e9))
        self._i = -1
        self._k = -1
        self._skipped = 0
        self.running = True

    def now(self) -> float:
        """Seconds since deadline 0 (negative before it)."""
        return (time.perf_counter_ns() - self._t0) * 1e-9

    def tick(self) -> int:
        """End the current period's work and wait for the next deadline; return its index k (the
        deadline is t0 + k T). With ``policy="skip"`` an overrun skips the deadlines already passed."""
        now = time.perf_counter_ns()
        if self._i >= 0:
            self._end[self._i] = now
        k = self._k + 1
        if self.policy == "skip" and self._i >= 0:
            behind = (now - self._t0) // self._T  # the latest deadline already passed
            if behind >= k:
                self._skipped += int(behind - k + 1)
                k = int(behind) + 1
        deadline = self._t0 + k * self._T
        _wait_until(deadline, self._spin)
        wake = time.perf_counter_ns()
        i = self._i + 1
        if i >= self._wake.size:
            self._grow()
        self._deadline[i], self._wake[i] = deadline, wake
        self._i, self._k = i, k
        return k

    def stop(self) -> LoopStats:
        """End the last period, restore the garbage collector, return the statistics."""
        if self._i >= 0 and self.running:
            self._end[self._i] = time.perf_counter_ns()
        collections = _collections() - self._gc_count0
        if self.gc_off and self._gc_was:
            gc.enable()
        self.running = False
        return self._stats(collections)

    def _grow(self) -> None:
        n = self._wake.size
        for name in ("_deadline", "_wake", "_end"):
            old = getattr(self, name)
            new = np.zeros(2 * n, dtype=np.int64)
            new[:n] = old
            setattr(self, name, new)

    # --------------------------------------------------------------------------- statistics
    def records(self) -> dict[str, np.ndarray]:
        """Per-period records (n,) in seconds since deadline 0: ``deadline``, ``wake``, ``end``."""
        n = self._i + 1
        return {name: (getattr(self, f"_{name}")[:n] - self._t0) * 1e-9
                for name in ("deadline", "wake", "end")}

    def _stats(self, collections: int) -> LoopStats:
        n = self._i + 1
        d, w, e = (self._deadline[:n].astype(np.float64) * 1e-9, self._wake[:n].astype(np.float64) * 1e-9,
                   self._end[:n].astype(np.float64) * 1e-9)
        periods = np.diff(w) if n > 1 else np.array([self.period])
        late = w - d if n else np.zeros(1)
        work = e - w if n else np.zeros(1)
        slack = (d + self.period - e) if n else np.zeros(1)
        try:
            load = os.getloadavg()[0]
        except OSError:  # pragma: no cover - platforms without a load average
            load = float("nan")
        q = np.quantile
        return LoopStats(
            period_s=self.period, periods=n, duration_s=float(w[-1] - w[0]) if n > 1 else 0.0,
            policy=self.policy, spin_s=self.spin,
            period_p50_s=float(q(periods, 0.5)), period_p99_s=float(q(periods, 0.99)),
            period_max_s=float(periods.max()), period_min_s=float(periods.min()),
            period_std_s=float(periods.std()),
            lateness_p50_s=float(q(late, 0.5)), lateness_p99_s=float(q(late, 0.99)),
            lateness_max_s=float(late.max()), work_p50_s=float(q(work, 0.5)), work_max_s=float(work.max()),
            slack_min_s=float(slack.min()), slack_p50_s=float(q(slack, 0.5)),
            deadline_misses=int(np.count_nonzero(slack < 0.0)), skipped=self._skipped,
            gc_disabled=self.gc_off, gc_collections=int(collections), load_1min=float(load),
            cpus=os.cpu_count() or 1)


def _collections() -> int:
    return sum(s["collections"] for s in gc.get_stats())


def _wait_until(deadline_ns: int, spin_ns: int) -> None:
    """Sleep until ``spin_ns`` before ``deadline_ns`` (perf_counter_ns clock), then spin to it."""
    remaining = deadline_ns - time.perf_counter_ns()
    if remaining > spin_ns:
        time.sleep((remaining - spin_ns) * 1e-9)
    while time.perf_counter_ns() < deadline_ns:
        pass
