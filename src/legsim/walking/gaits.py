"""Periodic wave gaits and the reactive rules that modify them (Konyev 2011 §3.4.1; digest §4.2).

Legs are numbered per side from the front: for n legs (n even, n/2 rows), legs 0 … n/2−1 are the
left legs front to rear, n/2 … n−1 the right legs front to rear (ANTON: L1 L2 L3 R1 R2 R3 = 0 … 5;
the thesis's Fig. 3.13 numbering did not survive OCR).

A gait is a phase-offset table (the form OpenSHC uses): leg i starts its transfer at the phase
``offsets[i]`` of the cycle and stays in the air for the fraction τ = T_t/T_p of it, τ ∈ (0, ½]
(the thesis calls τ the "duty factor"; the conventional duty factor is the stance fraction 1 − τ).
:func:`wave_gait` builds the three of the thesis: wave (one leg at a time, τ = 1/n), symmetric
gallop (both legs of a row, rear to front, τ = 2/n) and tripod (alternating, τ = ½).

:class:`GaitGenerator` runs the legs' clocks and applies the two reactive rules of §3.4.1:

- stability rule: a leg stays in support while either neighbour is in the air;
- sequencing rule: a leg stays in support while a neighbour reached its PEP before it and waits.

Neighbours are the legs in front of and behind a leg on the same side (the symmetric gallop lifts
both legs of a row together, so left and right cannot be neighbours in the thesis's sense). A leg
held in support falls behind its gait's schedule; it catches up by running its clock faster during
its next stances (at most :attr:`GaitGenerator.catch_up` times the nominal rate; lags are measured
against the legs' mean, so a walker delayed as a whole is not hurried). A gait change on the fly
(or a new period) takes effect, as the thesis's start logic recomputes the ideal cycles, at the
first instant every leg is in support: the legs take the new table's phases there, those the
table wants in the air waiting at their PEPs for the rules to let them go.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, as_float, check_flag, check_number, check_whole, shown

__all__ = ["Gait", "wave_gait", "GAITS", "GaitGenerator", "neighbours"]

GAITS = ("wave", "gallop", "tripod")


@dataclass(frozen=True)
class Gait:
    """``name``; ``offsets`` (n,): the phase in [0, 1) at which each leg lifts; ``tau``: the transfer
    fraction of the cycle, in (0, ½]."""

    name: str
    offsets: tuple[float, ...]
    tau: float

    def __post_init__(self):
        if not 0.0 < as_float(self.tau) <= 0.5:
            raise InputError(f"gait {self.name!r}: tau = {self.tau!r}, expected 0 < tau <= 1/2 "
                             "(the transfer fraction T_t/T_p)")

    @property
    def n_legs(self) -> int:
        return len(self.offsets)


MAX_LEGS = 1000
"""The most legs of a gait (a walker with more is not one of the thesis's)."""


def _leg_count(owner: str, n_legs, least: int) -> int:
    n = check_whole(owner, "n_legs", n_legs, least, MAX_LEGS)
    if n % 2:
        raise InputError(f"{owner}: 'n_legs' = {n_legs!r}, expected an even number (legs in two rows)")
    return n


def wave_gait(name: str, n_legs: int = 6, tau: float | None = None) -> Gait:
    """The thesis's periodic gaits for ``n_legs`` legs (even): ``"wave"`` (rear to front on the left,
    then on the right, τ = 1/n), ``"gallop"`` (the symmetric gallop: both legs of a row together,
    rows rear to front, τ = 2/n), ``"tripod"`` (alternating sets, τ = ½); ``tau`` overrides the
    default, within (0, ½]."""
    n_legs = _leg_count("wave_gait", n_legs, 4)
    rows = n_legs // 2
    offsets = np.zeros(n_legs)
    key = name if isinstance(name, str) else None  # (an array would make == ambiguous)
    if key == "wave":
        order = [*range(rows - 1, -1, -1), *range(n_legs - 1, rows - 1, -1)]
        for k, leg in enumerate(order):
            offsets[leg] = k / n_legs
        default = 1.0 / n_legs
    elif key == "gallop":
        for r in range(rows):
            offsets[r] = offsets[rows + r] = (rows - 1 - r) / rows
        default = 1.0 / rows
    elif key == "tripod":
        for r in range(rows):
            offsets[r] = 0.0 if r % 2 == 0 else 0.5
            offsets[rows + r] = 0.5 if r % 2 == 0 else 0.0
        default = 0.5
    else:
        raise InputError(f"wave_gait: 'name' = {name!r} is unknown; expected one of {', '.join(GAITS)}")
    tau = min(default, 0.5) if tau is None else check_number("wave_gait", "tau", tau)
    return Gait(name, tuple(float(o) for o in offsets), tau)


def neighbours(n_legs: int) -> list[list[int]]:
    """Each leg's neighbours: the legs in front of and behind it on the same side."""
    n_legs = _leg_count("neighbours", n_legs, 2)
    rows = n_legs // 2
    out = []
    for leg in range(n_legs):
        side, r = divmod(leg, rows)
        out.append([side * rows + q for q in (r - 1, r + 1) if 0 <= q < rows])
    return out


MIN_PERIOD, MAX_PERIOD = 1e-3, 1e6
"""The range of a gait cycle's period [s] (the generator steps at most a period at a time)."""


class GaitGenerator:
    """The legs' step-cycle clocks under a :class:`Gait` and the reactive rules.

    ``period`` [s]: the cycle time T_p (the step-cycle generator's T_tr/τ). Each leg has a phase
    ψ ∈ [0, 1): in the air while ψ < τ, in support after. :meth:`step` advances all clocks by ``dt``
    and returns the support flags. A leg whose clock reaches the end of its support (its PEP) lifts
    only if the rules allow (``stability``/``sequencing`` switch them); otherwise it waits in support.

    Attributes: ``phase`` (n,), ``support`` (n,) bool, ``violations`` (the number of steps at which a
    leg was in the air together with a neighbour: 0 while the stability rule is on), ``held`` (the
    number of leg-steps a rule kept a leg in support).
    """

    catch_up = 1.5
    """a late (or early) leg's clock runs at most this many times faster (or 1/this slower) in support"""

    def __init__(self, gait: Gait, period: float, *, stability: bool = True, sequencing: bool = True):
        if not isinstance(gait, Gait):
            raise InputError(f"GaitGenerator: gait = {gait!r}, expected a legsim.walking.Gait "
                             "(wave_gait(...), GAITS)")
        if not MIN_PERIOD <= as_float(period) <= MAX_PERIOD:
            raise InputError(f"GaitGenerator: period = {period!r} s, expected a cycle time in "
                             f"[{MIN_PERIOD:g}, {MAX_PERIOD:g}] s")
        self.gait, self.period = gait, float(period)
        self.n = gait.n_legs
        self.nbrs = neighbours(self.n)
        self.stability = check_flag("GaitGenerator", "stability", stability)
        self.sequencing = check_flag("GaitGenerator", "sequencing", sequencing)
        self.t = 0.0
        self.clock = 0.0  # the gait's own phase (cycles), advancing at 1/period
        self.support = np.ones(self.n, dtype=bool)
        self.pending: tuple[Gait, float] | None = None
        self._rephase()  # standing start
        self.walking = True
        self.violations = 0
        self.held = 0

    def set_gait(self, gait: Gait, period: float | None = None) -> None:
        """Change the gait (and the period [s]) on the fly, at the next instant all legs are in
        support (:attr:`pending` until then)."""
        if not isinstance(gait, Gait):
            raise InputError(f"set_gait: gait = {shown(gait)}, expected a legsim.walking.Gait "
                             "(wave_gait(...))")
        if gait.n_legs != self.n:
            raise InputError(f"set_gait: {gait.name} is for {gait.n_legs} legs, this walker has {self.n}")
        if period is not None and not MIN_PERIOD <= as_float(period) <= MAX_PERIOD:
            raise InputError(f"set_gait: period = {shown(period)} s, expected a cycle time in "
                             f"[{MIN_PERIOD:g}, {MAX_PERIOD:g}] s")
        self.pending = (gait, self.period if period is None else float(period))

    def _rephase(self) -> None:
        """Every leg to its table phase at a restarted gait clock; the table's legs in the air wait
        at their PEPs (the standing start, and the switch of a gait change)."""
        self.clock = 0.0
        table = np.array([self.target(i) for i in range(self.n)])
        self.phase = np.where(table < self.gait.tau - 1e-9, 1.0, table)
        self.waiting_since = np.where(self.phase >= 1.0, self.t, np.inf)

    def stop(self) -> None:
        """Stop logic: legs in the air finish their transfer, then every leg stays in support."""
        self.walking = False

    def start(self) -> None:
        self.walking = True

    def target(self, leg: int) -> float:
        """The phase the gait's table asks of ``leg`` now."""
        return (self.clock - self.gait.offsets[leg]) % 1.0

    def step(self, dt: float) -> np.ndarray:
        """Advance by ``dt`` [s]; returns the support flags (n,) (a view: copy to keep).

        The legs' loops run on Python floats (a step was 12 µs on numpy's six-element arrays, most of
        it per-element overhead); the lags' mean sums in numpy's order, so a walk is the same to the bit.
        A step longer than the cycle's period would skip the rules' instants: ``dt`` is in (0, period]."""
        if not 0.0 < as_float(dt) <= self.period:
            raise InputError(f"GaitGenerator.step: dt = {shown(dt)} s, expected a number in (0, period = "
                             f"{self.period:g}]")
        dt = float(dt)
        n, tau, rate = self.n, self.gait.tau, dt / self.period
        self.t += dt
        self.clock = (self.clock + rate) % 1.0
        phase, support, waiting = self.phase.tolist(), self.support.tolist(), self.waiting_since.tolist()
        lags = [(self.clock - off - ph + 0.5) % 1.0 - 0.5
                for off, ph in zip(self.gait.offsets, phase, strict=True)]
        mean = _mean(lags)  # relative to the walker as a whole
        lo, hi = 1.0 / self.catch_up, self.catch_up
        for i in range(n):
            if not support[i]:  # in the air: the transfer runs at the nominal rate
                phase[i] += rate
                if phase[i] >= tau:
                    support[i] = True
                continue
            new = phase[i] + rate * min(max(1.0 + 4.0 * (lags[i] - mean), lo), hi)  # catch up in support
            if new >= 1.0:  # at the PEP
                phase[i] = 1.0
                if math.isinf(waiting[i]):
                    waiting[i] = self.t
            else:
                phase[i] = new
        self.phase[:], self.support[:], self.waiting_since[:] = phase, support, waiting
        if self.pending is not None and all(support):  # the gait change's instant
            self.gait, self.period = self.pending
            self.pending = None
            self._rephase()
            phase, waiting = self.phase.tolist(), self.waiting_since.tolist()
        lifting = [i for i in range(n) if support[i] and phase[i] >= 1.0] if self.walking else []
        for i in sorted(lifting, key=lambda j: waiting[j]):
            if self.stability and any(not support[j] for j in self.nbrs[i]):
                self.held += 1
                continue
            if self.sequencing and any(waiting[j] < waiting[i] for j in self.nbrs[i]):
                self.held += 1
                continue
            support[i] = False
            phase[i] = 0.0
            waiting[i] = math.inf
        self.phase[:], self.support[:], self.waiting_since[:] = phase, support, waiting
        for i in range(n):
            if not support[i] and any(not support[j] for j in self.nbrs[i]):
                self.violations += 1
                break
        return self.support


def _mean(values: list[float]) -> float:
    """The mean of ``values`` as numpy's ``mean`` computes it: below eight values numpy sums in order
    from 0.0 (its pairwise summation starts there), so a Python loop gives the same bits; from eight
    on, numpy's own."""
    if len(values) >= 8:
        return float(np.mean(values))
    total = 0.0
    for v in values:
        total += v
    return total / len(values)
