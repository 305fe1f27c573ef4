"""Cylinder friction laws, Daepp (2011) §4.2.2 (eqs. 4.2.1–4.2.6), plus LuGre.

Friction F_f [N] has the sign of the piston velocity and is subtracted from the pressure
force (Daepp (4.1.11)). Parameters are SI; ``lbf`` helpers convert the source's values.

Stribeck-tanh units (digest ⚠ 11): the setup file says "all in lbf" for the friction model.
We read it as: the law is evaluated in lbf with v in m/s, so F_S = 4.5 lbf, F_C = 3 lbf and
C_v = 0.5 lbf·s/m (= 2.224 N·s/m); v_S = 0.1 m/s and k_tanh = 40 s/m. The viscous
alternative b = 70 is taken as N·s/m (SI model, Daepp [15]).

Shu–Bone stiction (4.2.4) ⚠: as printed the breakaway branch is "F_S − F_Cyl" and the viscous
term "− C_V ẋ"; we implement the physical reading: at rest the friction balances the applied
force up to F_S (stick), beyond it the piston slips with F_C sign(ẋ) + C_V ẋ.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...errors import InputError, check_broadcast, check_fields, shown
from . import _layout as L
from ._friction_kernels import friction_force as _friction_force
from ._friction_kernels import lugre_zdot
from ._validate import as_array, broadcast_flat, check_member, finish, in_range, replaced
from .units import LBF

__all__ = ["FrictionModel", "Friction", "stribeck_tanh_source", "viscous_source", "friction_force",
           "lugre_bristle_rate", "SPEED_LIMIT", "BRISTLE_LIMIT"]

SPEED_LIMIT = 1e3
"""Largest |piston velocity| [m/s] :func:`friction_force` and :func:`lugre_bristle_rate` take: three times
the speed of sound in air, beyond any pneumatic piston."""
BRISTLE_LIMIT = 1.0
"""Largest |LuGre bristle deflection| z [m] they take (a steady deflection is g(v)/σ0, about 0.1 mm)."""


class FrictionModel(IntEnum):
    COULOMB = 0
    """F_C sign(v); balances the applied force up to F_C at rest (4.2.1)."""
    VISCOUS = 1
    """C_V v (4.2.5), b = 70 N·s/m in the source's Simulink option."""
    STICTION = 2
    """Coulomb + viscous + stiction with a stick/slip state (Shu & Bone, 4.2.4)."""
    STEEP_LINEAR = 3
    """F_C sat(v / v_sat) + C_V v: a steep linear law saturating at v_sat (Daepp [15])."""
    STRIBECK_TANH = 4
    """[F_C + (F_S − F_C) e^(−(|v|/v_S)^i)] tanh(k_tanh v) + C_v v (4.2.6)."""
    LUGRE = 5
    """σ0 z + σ1 ż + C_V v with ż = v − σ0 |v| z / g(v) (Canudas de Wit et al. 1995)."""


@dataclass(frozen=True)
class Friction:
    """Friction law and parameters (SI).

    f_s : static friction [N]; f_c_pos / f_c_neg : Coulomb level for extension / retraction [N];
    c_v : viscous coefficient [N·s/m]; v_s : Stribeck velocity [m/s]; exponent : i [-];
    k_tanh [s/m]; v_sat : steep-linear saturation velocity [m/s]; sigma0 [N/m], sigma1 [N·s/m]:
    LuGre bristle stiffness and damping.
    """

    model: FrictionModel = FrictionModel.STRIBECK_TANH
    f_s: float = 4.5 * LBF
    f_c_pos: float = 3.0 * LBF
    f_c_neg: float = 3.0 * LBF
    c_v: float = 0.5 * LBF
    v_s: float = 0.1
    exponent: float = 5.0
    k_tanh: float = 40.0
    v_sat: float = 1e-3
    sigma0: float = 1e5
    sigma1: float = 300.0

    def __post_init__(self) -> None:
        check_member("friction", "model", self.model, FrictionModel)
        check_fields("friction", self, nonnegative=("f_s", "f_c_pos", "f_c_neg", "c_v", "sigma0", "sigma1"),
                     positive=("v_s", "exponent", "k_tanh", "v_sat"))
        if int(self.model) == FrictionModel.LUGRE:
            _lugre_levels("friction", self)

    def with_(self, **changes) -> Friction:
        """A copy with some fields changed (an InputError names a key that is no field)."""
        return replaced("friction", self, changes)

    def write(self, row: np.ndarray) -> None:
        """Write into a parameter row (``_layout``)."""
        row[L.FRICTION_MODEL] = int(self.model)
        row[L.F_S] = self.f_s
        row[L.F_C_POS] = self.f_c_pos
        row[L.F_C_NEG] = self.f_c_neg
        row[L.C_V] = self.c_v
        row[L.V_S] = self.v_s
        row[L.I_EXP] = self.exponent
        row[L.K_TANH] = self.k_tanh
        row[L.V_SAT] = self.v_sat
        row[L.SIGMA0] = self.sigma0
        row[L.SIGMA1] = self.sigma1

    def row(self) -> np.ndarray:
        r = np.zeros(L.NPARAM)
        self.write(r)
        return r


def stribeck_tanh_source() -> Friction:
    """Daepp's final Stribeck-tanh parameters (F_S 4.5 lbf, F_C 3 lbf, C_v 0.5, i 5, v_S 0.1,
    k_tanh 40), units as in the module docstring."""
    return Friction()


def viscous_source() -> Friction:
    """Daepp's viscous alternative: b = 70 N·s/m."""
    return Friction(model=FrictionModel.VISCOUS, c_v=70.0)


def _lugre_levels(owner: str, friction: Friction) -> None:
    """Refuse LuGre's ż for ``friction`` unless F_S, F_C+ and F_C− > 0: ż divides by g(v), which lies
    between them."""
    if not min(friction.f_s, friction.f_c_pos, friction.f_c_neg) > 0.0:
        raise InputError(f"{owner}: 'f_s' = {friction.f_s!r}, 'f_c_pos' = {friction.f_c_pos!r}, 'f_c_neg' = "
                         f"{friction.f_c_neg!r} N, expected all > 0 for LuGre (ż divides by g(v), which lies "
                         "between them)")


def _row(owner: str, friction) -> np.ndarray:
    """The parameter row of ``friction``, a :class:`Friction`."""
    if not isinstance(friction, Friction):
        raise InputError(f"{owner}: 'friction' = {shown(friction)}, expected a Friction "
                         "(e.g. stribeck_tanh_source())")
    return friction.row()


def _inputs(owner: str, **arrays) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """:func:`broadcast_flat` of the named, checked arrays (an InputError from ``owner`` naming the first
    that does not broadcast with those before it)."""
    check_broadcast(owner, **arrays)
    return broadcast_flat(*arrays.values())


def _finite(owner: str, friction: Friction, out: np.ndarray) -> np.ndarray:
    """``out`` of the compiled law (which raises no floating-point warnings); refused unless finite: with
    bounded inputs only ``friction``'s parameters (huge ones, or tiny levels dividing ż) overflow."""
    if not np.all(np.isfinite(out)):
        raise InputError(f"{owner}: the result overflows with 'friction' = {shown(friction)}: expected "
                         "parameters of physical size")
    return out


def friction_force(friction: Friction, v, f_applied=0.0, stuck=0, z=0.0):
    """Friction force [N] for velocities ``v`` [m/s] (arrays broadcast).

    ``f_applied`` [N]: the other forces on the piston (used at rest by Coulomb/stiction);
    ``stuck``: 1 in the stick state of :attr:`FrictionModel.STICTION`, else 0; ``z`` [m]: LuGre state.
    |v| <= :data:`SPEED_LIMIT`, |z| <= :data:`BRISTLE_LIMIT`.
    """
    o = "friction_force"
    row = _row(o, friction)
    ss = as_array("stuck", stuck, minimum=None)
    if not np.all((ss == 0.0) | (ss == 1.0)):
        raise InputError(f"{o}: 'stuck' = {shown(stuck)}, expected 0 (slipping) or 1 (stuck)")
    shape, (vv, ff, ss, zz) = _inputs(o, v=in_range("v", v, -SPEED_LIMIT, SPEED_LIMIT),
                                      f_applied=as_array("f_applied", f_applied, minimum=None), stuck=ss,
                                      z=in_range("z", z, -BRISTLE_LIMIT, BRISTLE_LIMIT))
    out = np.array([_friction_force(row, vv[i], ff[i], int(ss[i]), zz[i]) for i in range(vv.size)])
    return finish(_finite(o, friction, out), shape)


def lugre_bristle_rate(friction: Friction, v, z):
    """LuGre ż [m/s] for velocity v [m/s] and bristle deflection z [m] (arrays broadcast; |v| <=
    :data:`SPEED_LIMIT`, |z| <= :data:`BRISTLE_LIMIT`; the friction's F_S, F_C+, F_C− > 0)."""
    o = "lugre_bristle_rate"
    row = _row(o, friction)
    _lugre_levels(f"{o}: 'friction'", friction)  # a LuGre friction has them; ż is asked of any model
    shape, (vv, zz) = _inputs(o, v=in_range("v", v, -SPEED_LIMIT, SPEED_LIMIT),
                              z=in_range("z", z, -BRISTLE_LIMIT, BRISTLE_LIMIT))
    out = np.array([lugre_zdot(row, vv[i], zz[i]) for i in range(vv.size)])
    return finish(_finite(o, friction, out), shape)
