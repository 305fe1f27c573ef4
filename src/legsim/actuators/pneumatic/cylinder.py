"""Double-acting cylinder geometry (Daepp (2011) §4.1.3, setup script; digest §3.2)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import InputError, check_number
from . import _layout as L
from ._validate import replaced
from .units import INCH

__all__ = ["Cylinder", "bimba_rig"]


MAX_LENGTH = 10.0
"""The longest bore, rod, stroke or dead length a :class:`Cylinder` takes [m]."""


@dataclass(frozen=True)
class Cylinder:
    """Bore, rod, slider, stroke and dead lengths of a double-acting cylinder [m].

    Areas: A_cap = π bore²/4 − A_slider, A_rod,cs = π rod²/4, A_rod = A_cap − A_rod,cs
    (Daepp's ``Ap``, ``Arod``, ``Ar``). x = 0 is fully retracted; chamber lengths are
    x + dead_cap (cap) and stroke − x + dead_rod (rod).
    """

    bore: float = 1.0625 * INCH
    rod: float = 0.375 * INCH
    slider_area: float = 0.0045 * 0.0025
    stroke: float = 1.75 * INCH
    dead_cap: float = 0.012
    dead_rod: float = 0.018

    def __post_init__(self) -> None:
        for name in ("bore", "rod", "stroke", "dead_cap", "dead_rod"):  # [m]: up to 10 m (bore² stays finite)
            check_number("cylinder", name, getattr(self, name), lo=0.0, hi=MAX_LENGTH,
                         lo_open=name in ("bore", "rod", "stroke"))
        check_number("cylinder", "slider_area", self.slider_area, lo=0.0)
        if self.rod >= self.bore:
            raise InputError(f"cylinder rod {self.rod!r} m must be thinner than bore {self.bore!r} m")
        if self.a_rod <= 0.0:
            raise InputError(f"cylinder: slider_area = {self.slider_area!r} m² leaves no rod-side annulus "
                             f"(bore {self.bore!r} m, rod {self.rod!r} m)")

    def with_(self, **changes) -> Cylinder:
        """A copy with some fields changed (an InputError names a key that is no field)."""
        return replaced("cylinder", self, changes)

    @property
    def a_cap(self) -> float:
        """Cap-side piston area [m²] (5.608e-4 for the Bimba rig)."""
        return math.pi * self.bore ** 2 / 4.0 - self.slider_area

    @property
    def a_rod_cs(self) -> float:
        """Rod cross-section [m²] (7.126e-5)."""
        return math.pi * self.rod ** 2 / 4.0

    @property
    def a_rod(self) -> float:
        """Rod-side annulus area [m²] (4.895e-4)."""
        return self.a_cap - self.a_rod_cs

    def volumes(self, x):
        """Cap and rod chamber volumes [m³] at piston position x [m] (array)."""
        x = np.asarray(x, dtype=float)
        return self.a_cap * (x + self.dead_cap), self.a_rod * (self.stroke - x + self.dead_rod)

    def write(self, row: np.ndarray) -> None:
        row[L.A_CAP] = self.a_cap
        row[L.A_ROD] = self.a_rod
        row[L.A_ROD_CS] = self.a_rod_cs
        row[L.STROKE] = self.stroke
        row[L.L_DEAD_CAP] = self.dead_cap
        row[L.L_DEAD_ROD] = self.dead_rod


def bimba_rig() -> Cylinder:
    """The Bimba PFC cylinder of the 1-DoF rig (1.0625 in bore, 0.375 in rod, 1.75 in stroke)."""
    return Cylinder()
