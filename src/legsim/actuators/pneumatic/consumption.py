"""Air consumption: the mass drawn from the supply and the endurance of a compact power source
(pneumatic digest §1.6: the simulation should let one test "compact power sources by modelling their
weight and the time for the actuators to consume the supplied fuel/air"; §7 item 12).

Each valve-driven cylinder integrates its supply draw ṁ_supply ≥ 0 (the inflow through the
supply-side path) as the state ``m_air`` [kg]; these helpers turn such columns into headline numbers.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, check_number

__all__ = ["air_summary", "endurance_s"]


def endurance_s(supply_kg: float, rate_kg_s: float) -> float:
    """Seconds a supply holding ``supply_kg`` [kg] of usable air lasts at a mean draw ``rate_kg_s``
    [kg/s] (inf when nothing is drawn)."""
    supply_kg = check_number("endurance_s", "supply_kg", supply_kg, lo=0.0, lo_open=True)  # usable air
    rate_kg_s = check_number("endurance_s", "rate_kg_s", rate_kg_s, lo=0.0)  # mean draw
    return float("inf") if rate_kg_s == 0 else supply_kg / rate_kg_s


def air_summary(t, m_air, supply_kg: float = 0.1) -> dict[str, float]:
    """Headline air numbers of a run: ``t`` (n,) [s]; ``m_air`` (n,) or (n, k) cumulative supply draw
    of k cylinders [kg]. Returns the air used [g] (all cylinders), the mean draw [g/s] over the run and
    the minutes a supply of ``supply_kg`` [kg] of usable air (default 0.1 kg) would last at that draw."""
    t = np.asarray(t, dtype=float)
    m = np.asarray(m_air, dtype=float)
    m = m.reshape(m.shape[0], -1).sum(axis=1) if m.ndim > 1 else m
    if t.size != m.size or t.size == 0:
        raise InputError(f"air_summary: {t.size} times and {m.size} air masses; expected equal, > 0")
    used = float(m[-1] - m[0])
    duration = float(t[-1] - t[0])
    rate = used / duration if duration > 0 else 0.0
    return {"air_used_g": used * 1e3, "air_rate_g_per_s": rate * 1e3,
            f"endurance_min_per_{supply_kg * 1e3:g}g_air": endurance_s(supply_kg, rate) / 60.0}
