"""Air consumption: the mass drawn from the supply and the endurance of a compact power source
(pneumatic digest §1.6: the simulation should let one test "compact power sources by modelling their
weight and the time for the actuators to consume the supplied fuel/air"; §7 item 12).

Each valve-driven cylinder integrates its supply draw ṁ_supply ≥ 0 (the inflow through the
supply-side path) as the state ``m_air`` [kg]; these helpers turn such columns into headline numbers.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, check_number, check_values, shown

__all__ = ["air_summary", "endurance_s", "AIR_MASS_LIMIT", "AIR_RATE_LIMIT", "TIME_LIMIT"]

AIR_MASS_LIMIT = 1e6
"""Largest |air mass| [kg] :func:`air_summary` takes (a cumulative draw, a supply): a thousand tonnes, far
beyond any supply a robot carries; keeps the sums over cylinders and the conversions to grams finite."""
AIR_RATE_LIMIT = 1e6
"""Largest mean draw [kg/s] :func:`air_summary` accepts: far beyond any valve; a draw over a run too short
for it (a duration of 0 or a subnormal number of seconds) would be inf."""
TIME_LIMIT = 1e9
"""Largest |time| [s] of a run :func:`air_summary` takes (32 years)."""


def endurance_s(supply_kg: float, rate_kg_s: float) -> float:
    """Seconds a supply holding ``supply_kg`` [kg] of usable air lasts at a mean draw ``rate_kg_s``
    [kg/s] (inf when nothing is drawn)."""
    supply_kg = check_number("endurance_s", "supply_kg", supply_kg, lo=0.0, lo_open=True)  # usable air
    rate_kg_s = check_number("endurance_s", "rate_kg_s", rate_kg_s, lo=0.0)  # mean draw
    return float("inf") if rate_kg_s == 0 else supply_kg / rate_kg_s


def air_summary(t, m_air, supply_kg: float = 0.1) -> dict[str, float]:
    """Headline air numbers of a run: ``t`` (n,) [s], n >= 1, in order (within ±:data:`TIME_LIMIT`);
    ``m_air`` (n,) or (n, k) cumulative supply draw of k cylinders [kg] (within ±:data:`AIR_MASS_LIMIT`;
    the total at the end not below that at the start; a mean draw up to :data:`AIR_RATE_LIMIT`). Returns
    the air used [g] (all cylinders), the mean draw [g/s] over the run and the minutes a supply of
    ``supply_kg`` [kg] of usable air (default 0.1 kg; in (0, AIR_MASS_LIMIT]) would last at that draw
    (inf when nothing is drawn, or so little that the supply would outlast 1.8e308 s)."""
    o = "air_summary"
    check_number(o, "supply_kg", supply_kg, lo=0.0, hi=AIR_MASS_LIMIT, lo_open=True)
    t = check_values(o, "t", t, lo=-TIME_LIMIT, hi=TIME_LIMIT, unit="s")
    if t.ndim != 1:
        raise InputError(f"{o}: 't' has shape {t.shape}, expected times (n,)")
    if np.any(np.diff(t) < 0.0):
        raise InputError(f"{o}: 't' = {shown(t)} goes back in time, expected times in order")
    m = check_values(o, "m_air", m_air, lo=-AIR_MASS_LIMIT, hi=AIR_MASS_LIMIT, unit="kg")
    if m.ndim == 0 or m.shape[0] != t.size:
        raise InputError(f"{o}: 'm_air' has shape {m.shape}, expected ({t.size},) or ({t.size}, k): one row "
                         f"per time of 't'")
    m = m.reshape(m.shape[0], -1).sum(axis=1) if m.ndim > 1 else m
    used = float(m[-1] - m[0])
    duration = float(t[-1] - t[0])
    if used < 0.0:
        raise InputError(f"{o}: 'm_air' totals {m[0]:g} kg at the start and {m[-1]:g} kg at the end, "
                         "expected a cumulative draw (not falling)")
    if used > AIR_RATE_LIMIT * duration:  # also a draw in no time: an infinite rate
        raise InputError(f"{o}: 'm_air' rises by {used:g} kg in {duration:g} s of 't', expected a mean draw "
                         f"of at most {AIR_RATE_LIMIT:g} kg/s")
    rate = used / duration if duration > 0 else 0.0
    return {"air_used_g": used * 1e3, "air_rate_g_per_s": rate * 1e3,
            f"endurance_min_per_{supply_kg * 1e3:g}g_air": endurance_s(supply_kg, rate) / 60.0}
