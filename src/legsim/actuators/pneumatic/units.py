"""Unit helpers for pneumatics: psi (gauge and absolute), lbf, inch, MPa, Rankine, SCFH.

Everything inside legsim is SI (Pa, N, m, K, kg/s). These helpers convert the customary units
the sources use (Daepp 2011 setup script: ``psi2Pa = 6894.76``, ``in2m = 0.0254``,
``P_atm = 14.7 psi``; Wagenknecht 2009: psig/psia, MPa, °R, SCFH) at the boundary.
All functions accept floats or numpy arrays (broadcasting) and return the same kind.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "PSI", "LBF", "INCH", "P_ATM", "P_ATM_PSI", "SCFH",
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


def psi_to_pa(p):
    """Pressure [psi] -> [Pa] (a difference or an absolute value alike)."""
    return np.asarray(p, dtype=float) * PSI if np.ndim(p) else float(p) * PSI


def pa_to_psi(p):
    """Pressure [Pa] -> [psi]."""
    return np.asarray(p, dtype=float) / PSI if np.ndim(p) else float(p) / PSI


def psig_to_pa(p, p_atm_psi: float = P_ATM_PSI):
    """Gauge pressure [psig] -> absolute pressure [Pa] with ``p_atm_psi`` (default 14.7 psi)."""
    return psi_to_pa(np.add(p, p_atm_psi)) if np.ndim(p) else psi_to_pa(float(p) + p_atm_psi)


def pa_to_psig(p, p_atm_psi: float = P_ATM_PSI):
    """Absolute pressure [Pa] -> gauge pressure [psig]."""
    return np.subtract(pa_to_psi(p), p_atm_psi) if np.ndim(p) else pa_to_psi(p) - p_atm_psi


def psia_to_pa(p):
    """Absolute pressure [psia] -> [Pa]."""
    return psi_to_pa(p)


def pa_to_psia(p):
    """Absolute pressure [Pa] -> [psia]."""
    return pa_to_psi(p)


def lbf_to_n(f):
    """Force [lbf] -> [N]."""
    return np.asarray(f, dtype=float) * LBF if np.ndim(f) else float(f) * LBF


def n_to_lbf(f):
    """Force [N] -> [lbf]."""
    return np.asarray(f, dtype=float) / LBF if np.ndim(f) else float(f) / LBF


def inch_to_m(x):
    """Length [in] -> [m]."""
    return np.asarray(x, dtype=float) * INCH if np.ndim(x) else float(x) * INCH


def m_to_inch(x):
    """Length [m] -> [in]."""
    return np.asarray(x, dtype=float) / INCH if np.ndim(x) else float(x) / INCH


def mpa_gauge_to_pa(p, p_atm: float = P_ATM):
    """Gauge pressure [MPa] (the RATS operating pressures, digest §1.3) -> absolute [Pa]."""
    return np.asarray(p, dtype=float) * 1e6 + p_atm if np.ndim(p) else float(p) * 1e6 + p_atm


def kelvin_to_rankine(t):
    """Temperature [K] -> [°R] (RATS eq. 5.8 wants °R)."""
    return np.asarray(t, dtype=float) * 1.8 if np.ndim(t) else float(t) * 1.8
