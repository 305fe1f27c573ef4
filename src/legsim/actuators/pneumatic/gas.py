"""Gas properties and the compressible-flow constants derived from them.

Daepp (2011) §4.1.1, eqs. (4.1.4), (4.1.8), (4.1.9); Wagenknecht (2009) Table 5.3.
The constant multiplying the *unchoked* flow function is called ``c1`` and the one multiplying
the *choked* flow is ``c2`` (Daepp's naming: C1 = 0.15617, C2 = 0.040418 for air). Wagenknecht's
Table 5.3 swaps the labels (his C1 = 0.040418 is the choked constant); the values are the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InputError

__all__ = ["Gas", "AIR", "NITROGEN", "CRITICAL_RATIO_SOURCE"]

CRITICAL_RATIO_SOURCE = 0.528
"""The rounded critical pressure ratio both sources code (Daepp ``choke_ratio``, RATS P_cr)."""


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
    """

    k: float = 1.4
    R: float = 287.0
    cp: float = 1012.0
    specific_gravity: float = 1.0
    name: str = "air"

    def __post_init__(self) -> None:
        if not (self.k > 1.0):
            raise InputError(f"gas '{self.name}': ratio of specific heats k={self.k!r}; expected k > 1")
        if not (self.R > 0.0):
            raise InputError(f"gas '{self.name}': gas constant R={self.R!r}; expected R > 0 J/(kg K)")
        if not (self.cp > 0.0):
            raise InputError(f"gas '{self.name}': c_p={self.cp!r}; expected c_p > 0 J/(kg K)")
        if not (self.specific_gravity > 0.0):
            raise InputError(f"gas '{self.name}': specific_gravity={self.specific_gravity!r}; "
                             "expected > 0")

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
