"""Gas properties and the compressible-flow constants derived from them.

Daepp (2011) §4.1.1, eqs. (4.1.4), (4.1.8), (4.1.9); Wagenknecht (2009) Table 5.3.
The constant multiplying the *unchoked* flow function is called ``c1`` and the one multiplying
the *choked* flow is ``c2`` (Daepp's naming: C1 = 0.15617, C2 = 0.040418 for air). Wagenknecht's
Table 5.3 swaps the labels (his C1 = 0.040418 is the choked constant); the values are the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InputError, check_number, shown

__all__ = ["Gas", "AIR", "NITROGEN", "CRITICAL_RATIO_SOURCE", "K_RANGE", "R_RANGE", "SPECIFIC_GRAVITY_RANGE",
           "CP_PER_R_MAX"]

CRITICAL_RATIO_SOURCE = 0.528
"""The rounded critical pressure ratio both sources code (Daepp ``choke_ratio``, RATS P_cr)."""

K_RANGE = (1.0, 1.7)
"""Ratio of specific heats k of a :class:`Gas`, in (1, 1.7]: 5/3 (a monatomic gas) is the largest of any
ideal gas; 1.7 lets a rounded 1.67 pass."""
R_RANGE = (8.314, 8314.5)
"""Specific gas constant R = R_u / M [J/(kg K)] of a :class:`Gas`, for molar masses M from 1 kg/mol (beyond
the heaviest gas, UF6 at 0.352 kg/mol) down to 1 g/mol (a hydrogen atom). Also keeps C1 and C2 finite."""
SPECIFIC_GRAVITY_RANGE = (0.0345, 34.6)
"""Density relative to air M / M_air [-] of a :class:`Gas`, for the same molar masses (M_air 28.96 g/mol)."""
CP_PER_R_MAX = 1000.0
"""Largest c_p / R of a :class:`Gas` (c_p / R = k / (k − 1): 2.5 for a monatomic gas, about 12 for SF6;
1000 is k = 1.001). The smallest is 1 (c_v = c_p − R > 0)."""


@dataclass(frozen=True)
class Gas:
    """An ideal gas with constant specific heats.

    Parameters
    ----------
    k : ratio of specific heats c_p/c_v [-]
    R : specific gas constant [J/(kg K)]
    cp : specific heat at constant pressure [J/(kg K)] (Daepp uses 1012 for air; it only
        enters the "as coded" polytropic exponent n = 1 + k R / c_p = 1.397, eq. (4.1.10))
    specific_gravity : density relative to air at standard conditions [-] (Cv flow, RATS 5.8)
    name : a label for messages.

    Ranges: :data:`K_RANGE`, :data:`R_RANGE`, R < c_p <= :data:`CP_PER_R_MAX` R,
    :data:`SPECIFIC_GRAVITY_RANGE`.
    """

    k: float = 1.4
    R: float = 287.0
    cp: float = 1012.0
    specific_gravity: float = 1.0
    name: str = "air"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InputError(f"Gas: 'name' = {shown(self.name)}, expected a string")
        o = f"Gas {self.name!r}"
        check_number(o, "k", self.k, lo=K_RANGE[0], hi=K_RANGE[1], lo_open=True)
        R = check_number(o, "R", self.R, lo=R_RANGE[0], hi=R_RANGE[1])  # [J/(kg K)]
        check_number(o, "cp", self.cp, lo=R, hi=CP_PER_R_MAX * R, lo_open=True)  # c_v = c_p - R > 0
        check_number(o, "specific_gravity", self.specific_gravity, lo=SPECIFIC_GRAVITY_RANGE[0],
                     hi=SPECIFIC_GRAVITY_RANGE[1])

    @property
    def c1(self) -> float:
        """Unchoked flow constant sqrt(2k / (R (k-1))) [sqrt(kg K / J)], Daepp (4.1.8)."""
        return math.sqrt(2.0 * self.k / (self.R * (self.k - 1.0)))

    @property
    def c2(self) -> float:
        """Choked flow constant sqrt(k / (R ((k+1)/2)^((k+1)/(k-1)))), Daepp (4.1.9)."""
        k = self.k
        return math.sqrt(k / (self.R * ((k + 1.0) / 2.0) ** ((k + 1.0) / (k - 1.0))))

    @property
    def critical_ratio(self) -> float:
        """Exact critical pressure ratio (2/(k+1))^(k/(k-1)) [-] (0.52828 for k = 1.4).

        At this ratio the choked and unchoked branches of the orifice equation are equal,
        so the flow is continuous; the sources round it to 0.528 (Daepp (4.1.4))."""
        k = self.k
        return (2.0 / (k + 1.0)) ** (k / (k - 1.0))

    @property
    def n_as_coded(self) -> float:
        """Polytropic exponent 1 + k R / c_p of Daepp eq. (4.1.10) (1.397 for air)."""
        return 1.0 + self.k * self.R / self.cp


AIR = Gas()
"""Air as in Daepp's setup script: k = 1.4, R = 287, c_p = 1012."""
NITROGEN = Gas(k=1.4, R=296.8, cp=1040.0, specific_gravity=0.9669, name="nitrogen")
"""Nitrogen as in RATS Table 5.3 (κ = 1.4, R = 296.8, SG = 0.9669)."""
