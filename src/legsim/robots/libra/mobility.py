"""LIBRA's topology and the Extended Mobility Analysis of its three control vectors (CJTC digest §4.3,
§4.4; Figs. 16–25).

Topology (Fig. 17): ground, the body and 6 links (l = 8). Each limb is two links and two active pins:

* limb 1: foot 1 – link 1a – knee (θ1) – link 1b – hip (θ2) – body;
* limb 2: body – hip (θ3) – link 2a – knee (θ4) – link 2b – foot 2;
* limb 3: body – hip (θ5) – link 3a – knee (θ6) – link 3b – foot 3.

Supporting feet are pinned to the ladders' rungs (the wheels seat in the L-shaped steps); a free foot has
no contact. The gait (§4.3) and the control vectors (§4.4) give the supports chosen here:

* **u1** = [x_b, y_b, θ_b, x2, x3, y3], stages 1 and 3: feet 1 and 2 pinned, foot 3 free. Stage one fixes
  x_b, y_b, θ_b and foot 3's (x3, y3); stage two relaxes foot 2's x (the wall force x2).
* **u2** = [x_b, y_b, θ_b, x2, y2, x3], stage 2: foot 2 lifts off, so feet 1 and 3 are pinned (foot 3
  on the right-hand rung it was placed on in stage 1). Stage one fixes x_b, y_b, θ_b and foot 2's
  (x2, y2); stage two relaxes foot 3's x (its force).
* **u3** = [x1, y1, x_b, y_b, θ_b, x2], stage 4: foot 1 lifts, so feet 2 and 3 are pinned (foot 3 on the
  left-hand rung it swung to in stage 3). Stage one fixes foot 1's (x1, y1), then x_b, y_b, θ_b; stage two
  relaxes foot 2's x.

The digest names only foot 3 as the support in stages 2 and 4, but one pinned foot would leave
l = 8, f₁ = 7, a = 3·7 − 14 = 7 > s = 6 (underactuated), and foot 1 moves only in stage 4 while foot 2
pushes on its rung in stages 1, 3 and 4 (Figs. 39–40); so two feet support in every stage. The thesis
declares u2 and u3 valid "by symmetry"; here they are analysed like u1, and all three give a = 5, b = 0
after stage one and r = s = 6 after stage two.

The joint positions (for the numerical rank test) come from :func:`legsim.robots.libra.kinematics.points`
(App. A, foot 1 at the origin).
"""

from __future__ import annotations

import math

import numpy as np

from ...control.mechanism import Mechanism
from ...control.mobility import (
    ControlCandidate,
    ForceCandidate,
    MobilityResult,
    extended_mobility_analysis,
    format_mobility,
)
from ...errors import InputError, check_flag, check_number, check_values, lookup, shown
from .kinematics import MAX_ANGLE, VECTORS, _check_params, points
from .params import LibraParams

__all__ = ["LIBRA_CONTROL_VECTORS", "LIBRA_SUPPORTS", "NOMINAL_PHI", "NOMINAL_Q", "libra_mechanism",
           "libra_candidates", "libra_mobility", "libra_report"]

LIBRA_CONTROL_VECTORS = VECTORS
"""The control vectors in the thesis's order (§4.4, eq. 17)."""
LIBRA_SUPPORTS = {"u1": ("foot1", "foot2"), "u2": ("foot1", "foot3"), "u3": ("foot2", "foot3")}
"""The feet pinned to rungs while each control vector is in use (module docstring)."""
_FORCE_FOOT = {"u1": "2", "u2": "3", "u3": "2"}
_FREE_FOOT = {"u1": "3", "u2": "2", "u3": "1"}

NOMINAL_PHI = math.radians(70.0)
NOMINAL_Q = np.radians([-100.0, 30.0, -60.0, 100.0, 30.0, -60.0])
"""A generic configuration inside the joint limits (θ_b = 0, all knees bent) [rad]."""

_CONTACTS = ("pin", "spring", "none")


def _vector(vector: str) -> str:
    lookup("control vector", vector, sorted(LIBRA_CONTROL_VECTORS), "LIBRA")
    return vector


def libra_mechanism(vector: str = "u1", *, q=None, phi: float | None = None, contact: str = "pin",
                    supports: tuple[str, ...] | None = None, params: LibraParams | None = None) -> Mechanism:
    """LIBRA under the environmental constraints of control vector ``vector`` (Fig. 17 for u1).

    Parameters
    ----------
    vector : ``"u1"``, ``"u2"`` or ``"u3"`` (which feet support, :data:`LIBRA_SUPPORTS`).
    q : θ1..θ6 (6,) [rad] and phi : φ [rad], the configuration that places the joints (default
        :data:`NOMINAL_Q`, :data:`NOMINAL_PHI`; within ±:data:`~.kinematics.MAX_ANGLE`); it matters only to
        the rank test.
    contact : how a supporting foot holds: ``"pin"`` (a rigid rung), ``"spring"`` (a compliant one: no
        constraint, §3.5) or ``"none"`` (free floating).
    supports : the supporting feet, to override :data:`LIBRA_SUPPORTS` (names ``"foot1"`` .. ``"foot3"``).
    params : geometry (default :class:`LibraParams`).
    """
    vector = _vector(vector)
    if not (isinstance(contact, str) and contact in _CONTACTS):
        raise InputError(f"LIBRA: contact = {shown(contact)}, expected one of {_CONTACTS}")
    o = "libra_mechanism"
    if q is None:
        q = NOMINAL_Q
    elif (q := check_values(o, "q", q, lo=-MAX_ANGLE, hi=MAX_ANGLE, unit="rad")).shape != (6,):
        raise InputError(f"{o}: 'q' = {shown(q)}, expected 6 joint angles θ1..θ6 [rad]")
    phi = NOMINAL_PHI if phi is None else check_number(o, "phi", phi, lo=-MAX_ANGLE, hi=MAX_ANGLE)  # [rad]
    params = LibraParams() if params is None else _check_params(o, params)
    feet = LIBRA_SUPPORTS[vector] if supports is None else supports
    if not (isinstance(feet, (list, tuple)) and all(isinstance(f, str) for f in feet)
            and set(feet) <= {"foot1", "foot2", "foot3"} and len(set(feet)) == len(feet)):
        raise InputError(f"LIBRA: supports = {shown(supports)}, expected distinct names among 'foot1', "
                         "'foot2', 'foot3'")
    pos = points(phi, q, params)
    m = Mechanism(f"LIBRA {vector}", "planar")
    m.add_link("body", "link1a", "link1b", "link2a", "link2b", "link3a", "link3b")
    for foot, link in (("foot1", "link1a"), ("foot2", "link2b"), ("foot3", "link3b")):
        m.add_point(foot, link, pos[foot])
    m.add_point("body_centre", "body", pos["body"])
    for name, a, b, at, limb in (("theta1", "link1a", "link1b", "knee1", "1"),
                                 ("theta2", "link1b", "body", "hip1", "1"),
                                 ("theta3", "body", "link2a", "hip2", "2"),
                                 ("theta4", "link2a", "link2b", "knee2", "2"),
                                 ("theta5", "body", "link3a", "hip3", "3"),
                                 ("theta6", "link3a", "link3b", "knee3", "3")):
        m.add_joint(name, "pin", a, b, active=True, limb=limb, at=pos[at])
    if contact != "none":
        for foot in feet:
            m.add_joint(f"{foot}_rung", contact, m.points[foot].link, "ground", role="environment",
                        point=foot)
    return m


def libra_candidates(vector: str = "u1") -> tuple[tuple[ControlCandidate, ...], tuple[ForceCandidate, ...]]:
    """Stage-one candidates (in the §4.4 order) and the stage-two force of control vector ``vector``."""
    vector = _vector(vector)
    body = (ControlCandidate("x_b", "body_centre", ("x",), ("x_b",)),
            ControlCandidate("y_b", "body_centre", ("y",), ("y_b",)),
            ControlCandidate("theta_b", "body_centre", ("theta",), ("theta_b",)))
    k = _FREE_FOOT[vector]
    free = ControlCandidate(f"foot {k} (x{k}, y{k})", f"foot{k}", ("x", "y"), (f"x{k}", f"y{k}"))
    f = _FORCE_FOOT[vector]
    force = (ForceCandidate(f"x{f}", point=f"foot{f}", coord="x"),)
    return ((free,) + body if vector == "u3" else body + (free,)), force


def libra_mobility(vector: str = "u1", *, q=None, phi: float | None = None, rank: bool = True,
                   params: LibraParams | None = None) -> MobilityResult:
    """The Extended Mobility Analysis of LIBRA's control vector ``vector`` (§4.4 table for u1).

    With ``rank`` (True or False) the numerical rank test checks every row at the configuration (q, φ); a
    stretched limb there makes the result ``"singular"``. ``q``, ``phi``, ``params``:
    :func:`libra_mechanism`'s.
    """
    check_flag("libra_mobility", "rank", rank)
    candidates, forces = libra_candidates(vector)
    mechanism = libra_mechanism(vector, q=q, phi=phi, params=params)
    return extended_mobility_analysis(mechanism, candidates, forces, rank=rank)


def libra_report(vector: str = "u1", **options) -> str:
    """:func:`libra_mobility`'s log as a text table (:func:`legsim.control.mobility.format_mobility`)."""
    return format_mobility(libra_mobility(vector, **options))
