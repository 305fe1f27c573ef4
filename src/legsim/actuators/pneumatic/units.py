"""Unit helpers for pneumatics: psi (gauge and absolute), lbf, inch, MPa, Rankine, SCFH.

Everything inside legsim is SI (Pa, N, m, K, kg/s). These helpers convert the customary units
the sources use (Daepp 2011 setup script: ``psi2Pa = 6894.76``, ``in2m = 0.0254``,
``P_atm = 14.7 psi``; Wagenknecht 2009: psig/psia, MPa, °R, SCFH) at the boundary.
All functions accept numbers or arrays (sequences) of numbers and return a float or a float array;
a value of another kind, non-finite or out of its range (:data:`MAX_MAGNITUDE`, physical limits) is an
:class:`~legsim.errors.InputError` naming the function and the argument.
"""

from __future__ import annotations

from ...errors import check_number, check_values

__all__ = [
    "PSI", "LBF", "INCH", "P_ATM", "P_ATM_PSI", "SCFH", "MAX_MAGNITUDE",
    "psi_to_pa", "pa_to_psi", "psig_to_pa", "pa_to_psig", "psia_to_pa", "pa_to_psia",
    "lbf_to_n", "n_to_lbf", "inch_to_m", "m_to_inch", "mpa_gauge_to_pa", "kelvin_to_rankine",
]

PSI = 6894.76
"""Pascal per psi (Daepp setup script ``psi2Pa``; exact value 6894.757 Pa)."""
LBF = 4.4482216152605
"""Newton per pound-force (exact by definition)."""
INCH = 0.0254
"""Metre per inch (exact)."""
P_ATM_PSI = 14.7
"""Atmospheric pressure the CRR setup script uses to convert psig to psia [psi]."""
P_ATM = 101325.0
"""Standard atmosphere [Pa] (RATS Table 5.3)."""
SCFH = 0.3048 ** 3 / 3600.0
"""Cubic metre per second per standard cubic foot per hour (RATS eq. 5.9 uses 1/127134)."""


MAX_MAGNITUDE = 1e12
"""The largest magnitude of a value the conversions take, in the unit it is given in (psi, Pa, lbf, N, in,
m, MPa, K): 1e12 Pa is a million times any supply pressure here, and every product and sum below stays
finite (no overflow to inf)."""


def _quantity(owner: str, name: str, value, lo: float = -MAX_MAGNITUDE, unit: str = "",
              lo_open: bool = False):
    """``value`` as a float (a number; a numpy scalar or 0-d array alike) or a float64 array (an array or
    a sequence of numbers), every entry finite and in [lo, MAX_MAGNITUDE] (or (lo, MAX_MAGNITUDE] with
    ``lo_open``), else an :class:`InputError` naming ``owner`` and ``name``."""
    if type(value) is float or type(value) is int:  # the common case, kept cheap (constants at import)
        return check_number(owner, name, value, lo=lo, hi=MAX_MAGNITUDE, lo_open=lo_open)
    a = check_values(owner, name, value, lo=lo, hi=MAX_MAGNITUDE, lo_open=lo_open, unit=unit)
    return float(a) if a.ndim == 0 else a


def _atmosphere(owner: str, name: str, value) -> float:
    """An atmospheric (absolute) pressure: a number in [0, MAX_MAGNITUDE] in its unit."""
    return check_number(owner, name, value, lo=0.0, hi=MAX_MAGNITUDE)


def psi_to_pa(p):
    """Pressure [psi] -> [Pa] (a difference or an absolute value alike), |p| <= MAX_MAGNITUDE."""
    return _quantity("psi_to_pa", "p", p, unit="psi") * PSI


def pa_to_psi(p):
    """Pressure [Pa] -> [psi] (a difference or an absolute value alike), |p| <= MAX_MAGNITUDE."""
    return _quantity("pa_to_psi", "p", p, unit="Pa") / PSI


def psig_to_pa(p, p_atm_psi: float = P_ATM_PSI):
    """Gauge pressure [psig] -> absolute pressure [Pa] with ``p_atm_psi`` (default 14.7 psi, in [0,
    MAX_MAGNITUDE]); ``p`` in [−p_atm_psi, MAX_MAGNITUDE] (an absolute pressure >= 0)."""
    atm = _atmosphere("psig_to_pa", "p_atm_psi", p_atm_psi)
    return (_quantity("psig_to_pa", "p", p, lo=-atm, unit="psig") + atm) * PSI


def pa_to_psig(p, p_atm_psi: float = P_ATM_PSI):
    """Absolute pressure [Pa] in [0, MAX_MAGNITUDE] -> gauge pressure [psig] with ``p_atm_psi`` (default
    14.7 psi, in [0, MAX_MAGNITUDE])."""
    atm = _atmosphere("pa_to_psig", "p_atm_psi", p_atm_psi)
    return _quantity("pa_to_psig", "p", p, lo=0.0, unit="Pa") / PSI - atm


def psia_to_pa(p):
    """Absolute pressure [psia] in [0, MAX_MAGNITUDE] -> [Pa]."""
    return _quantity("psia_to_pa", "p", p, lo=0.0, unit="psia") * PSI


def pa_to_psia(p):
    """Absolute pressure [Pa] in [0, MAX_MAGNITUDE] -> [psia]."""
    return _quantity("pa_to_psia", "p", p, lo=0.0, unit="Pa") / PSI


def lbf_to_n(f):
    """Force [lbf] -> [N], |f| <= MAX_MAGNITUDE."""
    return _quantity("lbf_to_n", "f", f, unit="lbf") * LBF


def n_to_lbf(f):
    """Force [N] -> [lbf], |f| <= MAX_MAGNITUDE."""
    return _quantity("n_to_lbf", "f", f, unit="N") / LBF


def inch_to_m(x):
    """Length [in] -> [m], |x| <= MAX_MAGNITUDE."""
    return _quantity("inch_to_m", "x", x, unit="in") * INCH


def m_to_inch(x):
    """Length [m] -> [in], |x| <= MAX_MAGNITUDE."""
    return _quantity("m_to_inch", "x", x, unit="m") / INCH


def mpa_gauge_to_pa(p, p_atm: float = P_ATM):
    """Gauge pressure [MPa] (the RATS operating pressures, digest §1.3) -> absolute [Pa] with ``p_atm``
    [Pa] (default 101325, in [0, MAX_MAGNITUDE]); ``p`` in [−p_atm/1e6, MAX_MAGNITUDE] (an absolute
    pressure >= 0)."""
    atm = _atmosphere("mpa_gauge_to_pa", "p_atm", p_atm)
    return _quantity("mpa_gauge_to_pa", "p", p, lo=-atm / 1e6, unit="MPa") * 1e6 + atm


def kelvin_to_rankine(t):
    """Temperature [K] in (0, MAX_MAGNITUDE] -> [°R] (RATS eq. 5.8 wants °R)."""
    return _quantity("kelvin_to_rankine", "t", t, lo=0.0, unit="K", lo_open=True) * 1.8
