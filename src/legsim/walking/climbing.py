"""Climbing geometry (Konyev 2011 §3.4.7; contact digest §4.2, A14).

On smooth obstacles each body segment takes the orientation between its neighbours' surface
normals,

    φ_REF^BODY = φ_NORMAL^NEXT_SEGMENT − φ_NORMAL^PREVIOUS_SEGMENT          (3.10)

and the highest ledge an articulated walker can climb tilts a body segment of length l_BS up by α
on legs of length l_LEG:

    h_MAX = l_LEG + l_BS sin α                                            (3.11)

with the drive torque that lifts the segment growing as τ_MAX ∝ l_BS cos α (the text's
"inversely proportional to cos α" contradicts its own formula; digest §8): a steeper segment
reaches higher and needs less torque.
"""

from __future__ import annotations

import numpy as np

from ..errors import check_broadcast, check_values

__all__ = ["segment_orientation", "max_ledge_height", "lift_torque_proxy"]


def _values(owner: str, **named) -> list[np.ndarray]:
    """Each named argument as a float array of finite numbers (a number or an array; arrays
    broadcast), else an :class:`InputError` naming it."""
    out = [check_values(owner, name, value) for name, value in named.items()]
    check_broadcast(owner, **dict(zip(named, out, strict=True)))
    return out


def segment_orientation(normal_next, normal_previous):
    """(3.10): a body segment's reference orientation [rad] from the surface-normal angles [rad]
    under the next and the previous segments (arrays broadcast)."""
    nxt, prev = _values("segment_orientation", normal_next=normal_next, normal_previous=normal_previous)
    return nxt - prev


def max_ledge_height(leg_length, segment_length, alpha):
    """(3.11): h_MAX [m] for legs ``leg_length`` [m], a body segment ``segment_length`` [m] tilted by
    ``alpha`` [rad] (arrays broadcast)."""
    leg, seg, a = _values("max_ledge_height", leg_length=leg_length, segment_length=segment_length,
                          alpha=alpha)
    return leg + seg * np.sin(a)


def lift_torque_proxy(segment_length, alpha):
    """The torque that lifts a segment, up to a constant factor: l_BS cos α [m] (arrays broadcast)."""
    seg, a = _values("lift_torque_proxy", segment_length=segment_length, alpha=alpha)
    return seg * np.cos(a)
