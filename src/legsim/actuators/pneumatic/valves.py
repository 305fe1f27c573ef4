"""Proportional spool valve (Festo MPYE-5) models, Daepp (2011) §4.2.3.

Voltage convention (explicit, digest §2.5 ⚠ 12): the valve command ``u`` is 0–10 V. The
*centered* voltage is ``u − 5`` (``u_center``); the *adjusted* voltage is ``u − 5.25``
(``u_offset``, the equal-flow point found with a flow meter). The cap chamber is fed by
Daepp's port 2 ("positive area signifies supply air connected": it opens to supply above the
offset); the rod chamber by port 1 (mirror image).

Which reference the fitted curves read is :class:`VoltageReference`:

* ``CONSISTENT`` (default): the tanh input pressure reads the centered voltage (its centre
  x_off = (1.25 − 0.75)/2 = 0.25 V is then the 5.25 V offset) and the quartic A_eq reads the
  adjusted voltage (its minimum, the leak area at x = 0 of App. B.2, is then at the offset).
  This is the only reading in which both curves put the null point at 5.25 V.
* ``CENTERED``: both read u − 5 (the ``Port_2`` code taken literally with Vc = u − 5).
* ``ADJUSTED``: both read u − 5.25 (the ``Port_2`` comment "Vc = adjusted" taken literally).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from ...errors import InputError, as_floats, check_fields
from . import _layout as L
from ._validate import check_member, in_range, replaced
from ._valve_kernels import fitted_area, port_paths, tanh_input_pressure

__all__ = [
    "ValveModel", "VoltageReference", "ProportionalValve", "PORT2_POLY_POS", "PORT2_POLY_NEG",
    "PORT1_POLY_POS", "PORT1_POLY_NEG", "AEQ_VOLTAGES", "CD_PORT2", "CD_PORT1",
    "ESTIMATED_AREA_SLOPE", "LEAK_AREA", "mpye5_fitted", "mpye5_simple", "mpye5_underlapped",
]


class ValveModel(IntEnum):
    """Valve area model (digest §2.5 variants)."""

    LINEAR_OVERLAPPED = 0
    """A = A_leak + K |u − u_off|; each port sees only supply or only exhaust (Fig. 19)."""
    LINEAR_UNDERLAPPED = 1
    """Both paths open within ±underlap of the offset; net = supply − exhaust flow (method 3)."""
    FITTED = 2
    """tanh equivalent input pressure + quartic A_eq per port (method 4, chosen by Daepp)."""


class VoltageReference(IntEnum):
    """Which voltage the fitted curves read (module docstring)."""

    CONSISTENT = 0
    CENTERED = 1
    ADJUSTED = 2


# App. B.2 data: adjusted voltages, c_d tuned per step at 50 psig, estimated area, leak area.
AEQ_VOLTAGES = np.array([-4.75, -3.75, -2.75, -1.75, -1.25, -0.75, -0.55, -0.35, -0.15, 0.0,
                         0.15, 0.35, 0.55, 0.75, 1.25, 1.75, 2.75, 3.75, 4.75])
CD_PORT2 = np.array([.115, .14, .18, .2, .2, .19, .18, .17, .19, .09, .06, .05, .06, .09, .125,
                     .135, .12, .09, .075])
CD_PORT1 = np.array([.08, .1, .13, .15, .15, .15, .15, .12, .13, .11, .07, .06, .1, .12, .165,
                     .175, .16, .14, .11])
ESTIMATED_AREA_SLOPE = 0.002 * 0.005 / 5.0
"""estA = 2e-6 |x| m² per volt (10 mm² at 5 V), App. B.2."""
LEAK_AREA = 2e-7
"""AL: leak (offset) area at x = 0 [m²], App. B.2."""

# Port 2 quartics as coded (digest Table §2.5, "reg. polyfit"), highest power first [m², V].
PORT2_POLY_POS = (1.32e-8, -1.302e-7, 3.608e-7, -4.33e-8, 1.42e-8)
PORT2_POLY_NEG = (9.4e-9, 9.35e-8, 2.326e-7, -2.225e-7, 1.87e-8)
# Port 1 quartics: not printed in the source; the digest derived them from cd1 with the same fit.
PORT1_POLY_POS = (8.619e-9, -9.566e-8, 2.899e-7, 7.747e-8, 4.378e-9)
PORT1_POLY_NEG = (6.531e-9, 6.397e-8, 1.490e-7, -1.928e-7, 1.419e-8)


@dataclass(frozen=True)
class ProportionalValve:
    """A 5/3 proportional spool valve feeding a double-acting cylinder (MPYE-5 defaults).

    Parameters (SI; voltages in V)
    ----------
    model : :class:`ValveModel`.
    u_min, u_max : command range [V] (0–10).
    u_center : 5 V (centered reference); u_offset : 5.25 V (equal-flow point).
    voltage_reference : :class:`VoltageReference` for the fitted curves.
    slope_cap, leak_cap, slope_rod, leak_rod : linear models, effective area slope c_d·K
        [m²/V] and leak area c_d·A_L [m²]; defaults are the setup file's cdC = 0.09,
        cdR = 0.12 applied to estA = 2e-6 m²/V and AL = 2e-7 m².
    underlap : half-width of the region where a port is open to both sides [V] (±0.75 V).
    c_hp_cap, c_lp_cap : tanh cutoffs of port 2 (1.25, −0.75 V); the rod port (port 1, not
        printed) mirrors them (−0.75, 1.25 V), which flips the sign of C_scale (⚠ assumed).
    poly_* : quartic A_eq coefficients, highest power first [m²].
    """

    model: ValveModel = ValveModel.FITTED
    u_min: float = 0.0
    u_max: float = 10.0
    u_center: float = 5.0
    u_offset: float = 5.25
    voltage_reference: VoltageReference = VoltageReference.CONSISTENT
    slope_cap: float = 0.09 * ESTIMATED_AREA_SLOPE
    leak_cap: float = 0.09 * LEAK_AREA
    slope_rod: float = 0.12 * ESTIMATED_AREA_SLOPE
    leak_rod: float = 0.12 * LEAK_AREA
    underlap: float = 0.75
    c_hp_cap: float = 1.25
    c_lp_cap: float = -0.75
    c_hp_rod: float = -0.75
    c_lp_rod: float = 1.25
    poly_cap_pos: tuple = field(default=PORT2_POLY_POS)
    poly_cap_neg: tuple = field(default=PORT2_POLY_NEG)
    poly_rod_pos: tuple = field(default=PORT1_POLY_POS)
    poly_rod_neg: tuple = field(default=PORT1_POLY_NEG)

    def __post_init__(self) -> None:
        check_member("valve", "model", self.model, ValveModel)
        check_member("valve", "voltage_reference", self.voltage_reference, VoltageReference)
        check_fields("valve", self, finite=("u_min", "u_max", "u_center", "u_offset", "c_hp_cap", "c_lp_cap",
                                            "c_hp_rod", "c_lp_rod"),
                     nonnegative=("slope_cap", "leak_cap", "slope_rod", "leak_rod", "underlap"))
        if not self.u_min < self.u_max:
            raise InputError(f"valve voltage range [{self.u_min}, {self.u_max}] V: expected "
                             "u_min < u_max")
        for name in ("poly_cap_pos", "poly_cap_neg", "poly_rod_pos", "poly_rod_neg"):
            coefficients = as_floats(getattr(self, name))
            if coefficients.shape != (5,) or not np.all(np.isfinite(coefficients)):
                raise InputError(f"valve {name} = {getattr(self, name)!r}: expected 5 finite quartic "
                                 "coefficients")
        if self.c_hp_cap == self.c_lp_cap or self.c_hp_rod == self.c_lp_rod:
            raise InputError("valve tanh cutoffs: C_HP must differ from C_LP")

    def with_(self, **changes) -> ProportionalValve:
        """A copy with some fields changed (an InputError names a key that is no field)."""
        return replaced("valve", self, changes)

    def write(self, row: np.ndarray) -> None:
        """Write this valve into a parameter row (``_layout``)."""
        row[L.VALVE_MODEL] = int(self.model)
        row[L.U_MIN] = self.u_min
        row[L.U_MAX] = self.u_max
        row[L.U_CENTER] = self.u_center
        row[L.U_OFFSET] = self.u_offset
        row[L.VOLT_REF] = int(self.voltage_reference)
        row[L.UNDERLAP] = self.underlap
        row[L.SLOPE_CAP] = self.slope_cap
        row[L.LEAK_CAP] = self.leak_cap
        row[L.SLOPE_ROD] = self.slope_rod
        row[L.LEAK_ROD] = self.leak_rod
        row[L.C_HP_CAP] = self.c_hp_cap
        row[L.C_LP_CAP] = self.c_lp_cap
        row[L.C_HP_ROD] = self.c_hp_rod
        row[L.C_LP_ROD] = self.c_lp_rod
        row[L.POLY_CAP_POS:L.POLY_CAP_POS + 5] = self.poly_cap_pos
        row[L.POLY_CAP_NEG:L.POLY_CAP_NEG + 5] = self.poly_cap_neg
        row[L.POLY_ROD_POS:L.POLY_ROD_POS + 5] = self.poly_rod_pos
        row[L.POLY_ROD_NEG:L.POLY_ROD_NEG + 5] = self.poly_rod_neg

    def check_voltage(self, u, name: str = "valve voltage u") -> np.ndarray:
        """InputError naming any command outside [u_min, u_max]."""
        return in_range(name, u, self.u_min, self.u_max)

    # ----------------------------------------------------------- curves (public helpers)
    def input_pressure(self, u, p_supply: float, p_exhaust: float, port: str = "cap"):
        """Equivalent input pressure P_input(u) [Pa] of a port, Daepp (4.2.7)–(4.2.11).

        ``u`` valve voltage [V] (array), ``port`` "cap" (port 2) or "rod" (port 1).
        """
        uu = self.check_voltage(u)
        _check_supply(p_supply, p_exhaust)
        c_hp, c_lp = (self.c_hp_cap, self.c_lp_cap) if _port(port) == 0 else \
            (self.c_hp_rod, self.c_lp_rod)
        shift = self.u_offset if self.voltage_reference == VoltageReference.ADJUSTED else self.u_center
        out = np.array([tanh_input_pressure(v - shift, c_hp, c_lp, p_supply, p_exhaust)
                        for v in np.ravel(uu)])
        return float(out[0]) if uu.ndim == 0 else out.reshape(uu.shape)

    def equivalent_area(self, u, port: str = "cap"):
        """Equivalent area A_eq(u) = c_d·A [m²] of the fitted model's quartics, ≥ 0."""
        uu = self.check_voltage(u)
        row = np.zeros(L.NPARAM)
        self.write(row)
        shift = self.u_center if self.voltage_reference == VoltageReference.CENTERED else self.u_offset
        pos, neg = (L.POLY_CAP_POS, L.POLY_CAP_NEG) if _port(port) == 0 else \
            (L.POLY_ROD_POS, L.POLY_ROD_NEG)
        out = np.array([fitted_area(row, pos, neg, v - shift) for v in np.ravel(uu)])
        return float(out[0]) if uu.ndim == 0 else out.reshape(uu.shape)

    def paths(self, u: float, p_supply: float, p_exhaust: float, port: str = "cap"):
        """The port's flow paths at voltage u: (a_supply_side, p_1, a_exhaust_side, p_2)."""
        self.check_voltage(u)
        _check_supply(p_supply, p_exhaust)
        row = np.zeros(L.NPARAM)
        self.write(row)
        row[L.P_SUPPLY] = p_supply
        row[L.P_EXHAUST] = p_exhaust
        return port_paths(row, float(u), _port(port))


def _port(port: str) -> int:
    if port in ("cap", "port2", 2):
        return 0
    if port in ("rod", "port1", 1):
        return 1
    raise InputError(f"valve port {port!r}: expected 'cap' (port 2) or 'rod' (port 1)")


def _check_supply(p_supply: float, p_exhaust: float) -> None:
    if not (p_exhaust >= 0.0):
        raise InputError(f"exhaust pressure {p_exhaust!r} Pa: expected >= 0 (absolute)")
    if not (p_supply > p_exhaust):
        raise InputError(f"supply pressure {p_supply!r} Pa is not above the exhaust pressure "
                         f"{p_exhaust!r} Pa (both absolute)")


def mpye5_fitted(**changes) -> ProportionalValve:
    """The fitted MPYE-5 model Daepp chose (tanh P_input + quartic A_eq, 50 psig data); ``changes`` set
    :class:`ProportionalValve` fields (an InputError names an unknown field or a bad value)."""
    return ProportionalValve(model=ValveModel.FITTED).with_(**changes)


def mpye5_simple(**changes) -> ProportionalValve:
    """The ablation baseline: linear area + leak, fixed c_d (0.09 cap / 0.12 rod), overlapped; ``changes``
    as :func:`mpye5_fitted`."""
    return ProportionalValve(model=ValveModel.LINEAR_OVERLAPPED).with_(**changes)


def mpye5_underlapped(**changes) -> ProportionalValve:
    """Linear area with a ±0.75 V underlap (both paths open near the offset); ``changes`` as
    :func:`mpye5_fitted`."""
    return ProportionalValve(model=ValveModel.LINEAR_UNDERLAPPED).with_(**changes)
