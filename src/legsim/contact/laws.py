"""Contact response laws, pluggable per material pair (Konyev 2011 §2.3.8–§2.3.9; digest §1.6–§1.7).

A :class:`ContactLaw` pairs one normal-force law with one friction law. Build them with the
factory functions below; put them in a :class:`LawTable` that maps each pair of material ids
to a law. All quantities SI.

Restitution and damping (derivation used by :func:`restitution_damping_exact`)
--------------------------------------------------------------------------------
For the family F = k p^n (1 + alpha pdot) (Engelson (2.15) with n = 1, Hunt–Crossley for any
n), write m pdot dpdot/dp = -k p^n (1 + alpha pdot). Separating variables,

    m pdot dpdot / (1 + alpha pdot) = -k p^n dp
    (m / alpha^2) [alpha pdot - ln(1 + alpha pdot)] = -k p^(n+1)/(n+1) + C.

Entry (p = 0, pdot = v0) and exit (p = 0, pdot = -e v0) have the same left-hand side, so with
D = alpha v0 the coefficient of restitution e solves

    D - ln(1 + D) = -D e - ln(1 - D e),

independent of m, k and n. The approximation (2.16) e ~ 1/(1 + D) overshoots (digest §1.6
table: D = 1 gives e = 0.5936, not 0.5); solving the relation for D at given e inverts it
exactly. With (2.20), alpha = D / v_impact, so one D serves every impact speed.

For a linear spring–damper F = k p + c pdot that may pull (Kelvin–Voigt), the motion is a
damped half-oscillation with damping ratio zeta = c / (2 sqrt(k m)) and
e = exp(-pi zeta / sqrt(1 - zeta^2)); inverted, zeta = -ln e / sqrt(pi^2 + ln^2 e) and
c = 2 zeta sqrt(k m) (:func:`kelvin_voigt_damping`). Our Kelvin–Voigt law never pulls, so it
separates a little earlier and its achieved e is slightly higher than requested.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from ..errors import InputError, as_float, check_array, check_flag, check_number, check_whole, shown
from . import _laws as K

__all__ = [
    "NormalLaw",
    "FrictionLaw",
    "NormalModel",
    "FrictionModel",
    "ContactLaw",
    "LawTable",
    "linear_penalty",
    "engelson",
    "restitution",
    "hunt_crossley",
    "hertz",
    "kelvin_voigt",
    "no_friction",
    "coulomb",
    "stribeck",
    "threshold",
    "anchor_spring",
    "restitution_damping_thesis",
    "restitution_damping_exact",
    "restitution_of_damping",
    "kelvin_voigt_damping",
    "normal_force",
    "friction_force",
    "threshold_curve",
    "MAX_PARAMETER",
    "MAX_EXPONENT",
    "MIN_RESTITUTION",
]


class NormalLaw(IntEnum):
    """Normal-force law codes (digest §1.6)."""

    LINEAR = K.N_LINEAR
    ENGELSON = K.N_ENGELSON
    RESTITUTION = K.N_RESTITUTION
    HUNT_CROSSLEY = K.N_HUNT_CROSSLEY
    HERTZ = K.N_HERTZ
    KELVIN_VOIGT = K.N_KELVIN_VOIGT


class FrictionLaw(IntEnum):
    """Friction law codes (digest §1.7)."""

    NONE = K.F_NONE
    COULOMB = K.F_COULOMB
    STRIBECK = K.F_STRIBECK
    THRESHOLD = K.F_THRESHOLD
    ANCHOR = K.F_ANCHOR


@dataclass(frozen=True)
class NormalModel:
    """A normal law and its parameter slots (use the factory functions)."""

    law: NormalLaw
    slots: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FrictionModel:
    """A friction law and its parameter slots (use the factory functions)."""

    law: FrictionLaw
    slots: dict = field(default_factory=dict)


MAX_PARAMETER = 1e12
"""The largest contact-law parameter, and 1/MAX_PARAMETER the smallest positive one, in SI units: a
stiffness k [N/m^n], a damping (alpha, d [s/m]; c, viscous, const_damping [N s/m]), a friction or breakaway
ratio, a speed (v_min, v_eps, v_th [m/s]), a decay's magnitude, an anchor stiffness k_i [N/m], a scale-down
factor n. Physical laws sit far inside (k up to ~1e9, mu ~1). With penetrations within
:data:`~legsim.contact.shapes.MAX_LENGTH` and speeds within :data:`~legsim.contact.impulse.MAX_SPEED`
(1e6 m, m/s) a force then stays below ~1e60 N (under :data:`~legsim.contact.response.MAX_FORCE`), and no
quotient of parameters (D / v_min, the anchor's c = brk damping / n, -F / k_i) overflows or divides by zero:
an anchor stiffness k_i of 1e300 made the anchor force NaN, a v_min of 1e-310 the restitution law's force
inf, and brk = damping = 1e-300 divided by zero in the anchor's rate (ZeroDivisionError in the compiled
law)."""

MAX_EXPONENT = 3.0
"""The largest exponent n [-] of the penetration in k p^n (Hertz 1.5, fitted Hunt–Crossley laws 1 to 2):
p^n of a penetration of MAX_LENGTH stays 1e18."""


def _parameter(owner: str, name, value, *, zero: bool = False, hi: float = MAX_PARAMETER) -> float:
    """A contact-law parameter: a number in [1/MAX_PARAMETER, ``hi``], or 0 with ``zero``; else an
    :class:`InputError` naming ``owner`` (the factory) and ``name``."""
    v = as_float(value)
    if not (1.0 / MAX_PARAMETER <= v <= hi or zero and v == 0.0):
        raise InputError(f"{owner}: '{name}' = {shown(value)}, expected {'0 or ' if zero else ''}a number in "
                         f"[{1.0 / MAX_PARAMETER:g}, {hi:g}]")
    return v


def _decay(owner: str, value, equation: str) -> float:
    """A decay constant ``decay`` < 0 with its magnitude in [1/MAX_PARAMETER, MAX_PARAMETER] (``equation``
    names the law), else an :class:`InputError` naming ``owner``."""
    v = as_float(value)
    if not 1.0 / MAX_PARAMETER <= -v <= MAX_PARAMETER:
        raise InputError(f"{owner}: 'decay' = {shown(value)}, expected a negative number in "
                         f"[{-MAX_PARAMETER:g}, {-1.0 / MAX_PARAMETER:g}] ({equation})")
    return v


MIN_RESTITUTION = 1e-9
"""The least coefficient of restitution the laws take: the damping that gives it grows as 1/eps (1e9 here;
at a subnormal eps it is infinite)."""


def _restitution(owner: str, eps) -> float:
    """A coefficient of restitution: MIN_RESTITUTION <= eps <= 1."""
    e = as_float(eps)
    if not MIN_RESTITUTION <= e <= 1.0:
        raise InputError(f"{owner}: 'eps' = {shown(eps)}, expected a number in [{MIN_RESTITUTION:g}, 1]")
    return e


# ---- normal laws -----------------------------------------------------------------------------
# Every parameter lies in [1/MAX_PARAMETER, MAX_PARAMETER] (a damping may be 0) and an exponent in
# [1/MAX_PARAMETER, MAX_EXPONENT] (module constants).
def linear_penalty(k):
    """Linear penalty (2.1): F = k p [N], k in N/m. Purely elastic (e = 1, digest A1)."""
    return NormalModel(NormalLaw.LINEAR, {K.S_K: _parameter("linear_penalty", "k", k)})


def engelson(k, d):
    """Velocity-multiplied damping (2.15): F = k p (1 + d pdot); k [N/m], d [s/m] (>= 0)."""
    o = "engelson"
    return NormalModel(NormalLaw.ENGELSON, {K.S_K: _parameter(o, "k", k),
                                            K.S_DAMP: _parameter(o, "d", d, zero=True)})


def restitution(k, eps, *, v_min=1e-2, exact=False, exponent=1.0):
    """Restitution-parameterised law (2.20): F = k p^n (1 + D / max(v_imp, v_min) pdot).

    Parameters
    ----------
    k : float
        Stiffness const_contact [N/m^n].
    eps : float
        Requested coefficient of restitution, MIN_RESTITUTION <= eps <= 1.
    v_min : float
        Floor of the latched impact velocity [m/s]. Guards d -> inf for resting contacts, and
        bounds the damping coefficient c = k p D / v_min of a resting contact (c = m g D / v_min
        for a body of mass m); a fixed explicit step dt needs c dt / m < 2, i.e.
        v_min > g D dt / 2 per contact sharing the weight.
    exact : bool
        False: D = (1 - eps)/eps as in the thesis (2.17) (achieved e overshoots, digest §1.6).
        True: D from :func:`restitution_damping_exact`, so the achieved e equals eps.
    exponent : float
        n (1 for the thesis law; 1.5 gives a Hertzian Hunt–Crossley law with latched damping), at
        most MAX_EXPONENT.
    """
    o = "restitution"
    e = _restitution(o, eps)
    D = restitution_damping_exact(e) if check_flag(o, "exact", exact) else restitution_damping_thesis(e)
    return NormalModel(
        NormalLaw.RESTITUTION,
        {
            K.S_K: _parameter(o, "k", k),
            K.S_D: D,
            K.S_VMIN: _parameter(o, "v_min", v_min),
            K.S_EXP: _parameter(o, "exponent", exponent, hi=MAX_EXPONENT),
        },
    )


def hunt_crossley(k, alpha, exponent=1.5):
    """Hunt–Crossley: F = k p^n (1 + alpha pdot); k [N/m^n], alpha [s/m] (>= 0; e depends on v0),
    n = ``exponent`` at most MAX_EXPONENT."""
    o = "hunt_crossley"
    return NormalModel(
        NormalLaw.HUNT_CROSSLEY,
        {
            K.S_K: _parameter(o, "k", k),
            K.S_DAMP: _parameter(o, "alpha", alpha, zero=True),
            K.S_EXP: _parameter(o, "exponent", exponent, hi=MAX_EXPONENT),
        },
    )


def hertz(k):
    """Hertz: F = k p^(3/2); k [N/m^1.5] (= 4/3 E* sqrt(R) for a sphere on a flat)."""
    return NormalModel(NormalLaw.HERTZ, {K.S_K: _parameter("hertz", "k", k)})


def kelvin_voigt(k, c):
    """Linear spring–damper F = max(k p + c pdot, 0); k [N/m], c [N s/m] (>= 0)."""
    o = "kelvin_voigt"
    return NormalModel(NormalLaw.KELVIN_VOIGT, {K.S_K: _parameter(o, "k", k),
                                                K.S_DAMP: _parameter(o, "c", c, zero=True)})


# ---- friction laws ---------------------------------------------------------------------------
# Parameters as the normal laws' (MAX_PARAMETER); a decay is negative, its magnitude in that range.
def no_friction():
    """Frictionless contact."""
    return FrictionModel(FrictionLaw.NONE, {})


def coulomb(mu, v_eps=1e-3):
    """Regularised Coulomb: F = -mu F_n v / sqrt(|v|^2 + v_eps^2); mu >= 0, v_eps [m/s] > 0."""
    o = "coulomb"
    return FrictionModel(
        FrictionLaw.COULOMB,
        {K.S_MU: _parameter(o, "mu", mu, zero=True), K.S_VEPS: _parameter(o, "v_eps", v_eps)},
    )


def stribeck(mu, brk=1.5, decay=-100.0, viscous=0.0, v_eps=1e-3):
    """Stribeck + Coulomb + viscous (2.18).

    |F| = F_C + (F_brk - F_C) exp(decay |v|) + viscous |v|, F_C = mu F_n, F_brk = brk F_C;
    ``decay`` [s/m] must be < 0, ``viscous`` [N s/m] >= 0. The sign function is regularised over
    ``v_eps`` [m/s] (0 = exact).
    """
    o = "stribeck"
    decay = _decay(o, decay, "2.18")
    return FrictionModel(
        FrictionLaw.STRIBECK,
        {
            K.S_MU: _parameter(o, "mu", mu, zero=True),
            K.S_BRK: _parameter(o, "brk", brk),
            K.S_DECAY: decay,
            K.S_VISC: _parameter(o, "viscous", viscous, zero=True),
            K.S_VEPS: _parameter(o, "v_eps", v_eps, zero=True),
        },
    )


def _threshold_slots(owner, brk, damping, v_th, v_min, decay):
    decay = _decay(owner, decay, "2.19")
    return {
        K.S_BRK: _parameter(owner, "brk", brk),
        K.S_VISC: _parameter(owner, "damping", damping),
        K.S_VTH: _parameter(owner, "v_th", v_th),
        K.S_FVMIN: _parameter(owner, "v_min", v_min),
        K.S_DECAY: decay,
    }


def threshold(brk, damping, v_th, v_min, decay=-1.0, mu=math.inf):
    """Threshold-velocity friction (2.19), capped at mu F_n.

    Parameters: const_brk ``brk``, const_damping ``damping`` [N s/m], threshold velocity ``v_th``
    [m/s], ``v_min`` [m/s], ``decay`` = const (< 0). ``mu`` >= 0; inf (default) leaves it uncapped.
    """
    o = "threshold"
    slots = _threshold_slots(o, brk, damping, v_th, v_min, decay)
    slots[K.S_MU] = 1e300 if as_float(mu) == math.inf else _parameter(o, "mu", mu, zero=True)
    return FrictionModel(FrictionLaw.THRESHOLD, slots)


def anchor_spring(mu, k_i, *, n=1.0, brk=1.5, damping=100.0, v_th=1e-3, v_min=1e-3, decay=-1.0):
    """Anchor-spring friction (2.21): F = -(g(|v|)/|v| v / n + K_I s), |F| <= mu F_n.

    g is the (2.19) curve, n the scale-down factor, s the displacement of the contact point from
    its anchor (integral of v_t: the "second loop with integral properties"), K_I = ``k_i``
    [N/m]. When the force saturates the anchor slides so that K_I s = -F. ``mu`` >= 0.
    """
    o = "anchor_spring"
    slots = _threshold_slots(o, brk, damping, v_th, v_min, decay)
    slots.update(
        {K.S_MU: _parameter(o, "mu", mu, zero=True), K.S_KI: _parameter(o, "k_i", k_i),
         K.S_NSCALE: _parameter(o, "n", n)}
    )
    return FrictionModel(FrictionLaw.ANCHOR, slots)


@dataclass(frozen=True)
class ContactLaw:
    """One normal law plus one friction law: the response of one material pair."""

    normal: NormalModel
    friction: FrictionModel = field(default_factory=no_friction)

    def __post_init__(self) -> None:
        if not isinstance(self.normal, NormalModel):
            raise InputError(f"ContactLaw: normal = {self.normal!r}, expected a normal law of "
                             "legsim.contact (hunt_crossley, linear_penalty, kelvin_voigt, hertz, "
                             "restitution, engelson, ...)")
        if not isinstance(self.friction, FrictionModel):
            raise InputError(f"ContactLaw: friction = {self.friction!r}, expected a friction law of "
                             "legsim.contact (coulomb, stribeck, threshold, anchor_spring, no_friction, ...)")

    @property
    def params(self):
        """The parameter row float64[NPRM] read by the kernels."""
        row = K.new_params()
        row[K.S_EXP] = 1.0
        row[K.S_NSCALE] = 1.0
        for s, v in self.normal.slots.items():
            row[s] = v
        for s, v in self.friction.slots.items():
            row[s] = v
        return row


MAX_MATERIALS = 1000
"""The most material ids of a :class:`LawTable` (its pair table has one entry per pair)."""


class LawTable:
    """Maps pairs of material ids (symmetric) to contact laws.

    Parameters
    ----------
    nmat : int
        Number of material ids (0 .. nmat-1).
    default : ContactLaw
        Law of every pair not set with :meth:`set`.
    """

    def __init__(self, nmat, default):
        nmat = check_whole("LawTable", "nmat", nmat, 1, MAX_MATERIALS)
        if not isinstance(default, ContactLaw):
            raise InputError(f"LawTable 'default' = {default!r}: expected a ContactLaw")
        self.laws = [default]
        self.pair = np.zeros((nmat, nmat), dtype=np.int64)

    def set(self, mat_a, mat_b, law):
        """Use ``law`` for contacts between materials ``mat_a`` and ``mat_b``."""
        n = self.pair.shape[0]
        mat_a = check_whole("LawTable.set", "mat_a", mat_a, 0, n - 1)
        mat_b = check_whole("LawTable.set", "mat_b", mat_b, 0, n - 1)
        if not isinstance(law, ContactLaw):
            raise InputError(f"LawTable.set 'law' = {law!r}: expected a ContactLaw")
        self.laws.append(law)
        self.pair[mat_a, mat_b] = self.pair[mat_b, mat_a] = len(self.laws) - 1
        return self

    def arrays(self):
        """(ncode int64[nlaw], fcode int64[nlaw], prm float64[nlaw, NPRM], pair int64[nmat, nmat])."""
        ncode = np.array([int(law.normal.law) for law in self.laws], dtype=np.int64)
        fcode = np.array([int(law.friction.law) for law in self.laws], dtype=np.int64)
        prm = np.array([law.params for law in self.laws])
        return ncode, fcode, prm, self.pair.copy()


# ---- restitution helpers ---------------------------------------------------------------------
def restitution_damping_thesis(eps):
    """D = d v0 = (1 - eps)/eps, Konyev (2.17) (from the approximation (2.16)); MIN_RESTITUTION <= eps
    <= 1."""
    e = _restitution("restitution_damping_thesis", eps)
    return (1.0 - e) / e


def _phase_residual(u, e):
    """The restitution relation D - ln(1 + D) + D e + ln(1 - D e) (module docstring) in u = -ln(1 - D e),
    D = (1 - e^-u) / e: D e = 1 - e^-u keeps its digits where D e nears 1 (small restitutions; in D
    itself, e < 0.03 needed D e closer to 1 than a double resolves)."""
    D = -math.expm1(-u) / e
    return D - math.log1p(D) + D * e - u


def restitution_damping_exact(eps):
    """Exact D = alpha v0 giving restitution ``eps`` for F = k p^n (1 + alpha pdot).

    Solves D - ln(1 + D) = -D eps - ln(1 - D eps) for D in (0, 1/eps) (module docstring);
    MIN_RESTITUTION <= eps <= 1.
    """
    e = _restitution("restitution_damping_exact", eps)
    if e == 1.0:
        return 0.0
    # the residual is D^2 (1 - e^2)/2 - D^3 (1 + e^3)/3 + ... > 0 below the root and < 0 for u > 1/e + 1
    lo, hi = -math.log1p(-1e-9 * e), 1.0 / e + 2.0
    for _ in range(40):
        if _phase_residual(lo, e) > 0.0:
            break
        lo *= 0.1
    else:  # pragma: no cover - e within ~1e-15 of 1, where the residual is below round-off: its series root
        return 3.0 * (1.0 - e * e) / (2.0 * (1.0 + e**3))
    from scipy.optimize import brentq  # here: scipy.optimize costs every robot's start-up 0.5 s

    u = brentq(_phase_residual, lo, hi, args=(e,), xtol=1e-15, rtol=1e-14)
    return -math.expm1(-u) / e


def restitution_of_damping(D):
    """Achieved restitution e of F = k p^n (1 + alpha pdot) with D = alpha v0 (exact): the root of
    -D e - ln(1 - D e) = D - ln(1 + D), solved in u = -ln(1 - D e) as :func:`restitution_damping_exact`."""
    D = check_number("restitution_of_damping", "D", D, lo=0.0, hi=1e6)
    target = D - math.log1p(D)
    if not target > 0.0:  # D below ~1e-16 (or 0): the series e = 1 - 2 D / 3
        return 1.0 - 2.0 * D / 3.0
    from scipy.optimize import brentq

    # e^-u - 1 + u = target: below it at u = sqrt(target) (e^-u - 1 + u <= u^2/2), above at target + 2
    u = brentq(lambda u: math.expm1(-u) + u - target, math.sqrt(target), target + 2.0, xtol=1e-15,
               rtol=1e-14)
    return min(-math.expm1(-u) / D, 1.0)


def kelvin_voigt_damping(eps, k, m):
    """Damping c [N s/m] of a linear spring–damper giving restitution ``eps`` for mass ``m``.

    zeta = -ln eps / sqrt(pi^2 + ln^2 eps), c = 2 zeta sqrt(k m) (module docstring); k [N/m] and m [kg]
    in [1/MAX_PARAMETER, MAX_PARAMETER].
    """
    o = "kelvin_voigt_damping"
    e = _restitution(o, eps)
    le = math.log(e)
    zeta = -le / math.sqrt(math.pi**2 + le * le)
    return 2.0 * zeta * math.sqrt(_parameter(o, "k", k) * _parameter(o, "m", m))


# ---- scalar evaluation (Python convenience over the kernels) ---------------------------------
def _law(owner: str, law) -> ContactLaw:
    if not isinstance(law, ContactLaw):
        raise InputError(f"{owner}: 'law' = {shown(law)}, expected a ContactLaw (e.g. "
                         "ContactLaw(linear_penalty(1e5), coulomb(1.0)))")
    return law


def normal_force(law, p, pdot, v_imp=0.0):
    """Normal force magnitude [N] of ``law`` (ContactLaw) at depth p [m], rate pdot [m/s] (positive
    approaching) and onset approach rate ``v_imp`` [m/s] (finite numbers)."""
    law = _law("normal_force", law)
    return K.normal_force(int(law.normal.law), law.params, check_number("normal_force", "p", p),
                          check_number("normal_force", "pdot", pdot),
                          check_number("normal_force", "v_imp", v_imp))


def friction_force(law, fn, vt, anchor=None):
    """Friction force (3,) [N] of ``law`` for normal force fn [N] (>= 0), slip velocity vt (3,) [m/s]
    and, for the anchor-spring law, the displacement from the anchor ``anchor`` (3,) [m] (None: zero)."""
    law = _law("friction_force", law)
    fn = check_number("friction_force", "fn", fn, lo=0.0)
    vt = check_array("friction_force", "vt", vt, (3,), "m/s")
    a = np.zeros(3) if anchor is None else check_array("friction_force", "anchor", anchor, (3,), "m")
    out = np.zeros(3)
    K.friction_force(int(law.friction.law), law.params, fn, vt, a, out)
    return out


def threshold_curve(law, v):
    """The (2.19) curve of ``law``'s friction parameters (a threshold or anchor-spring law) at slip
    speed v [m/s] (odd in v)."""
    law = _law("threshold_curve", law)
    if law.friction.law not in (FrictionLaw.THRESHOLD, FrictionLaw.ANCHOR):
        raise InputError(f"threshold_curve: 'law' has {law.friction.law.name.lower()} friction, expected "
                         "a law with the (2.19) curve (threshold or anchor_spring friction)")
    return K.threshold_curve(law.params, check_number("threshold_curve", "v", v))
