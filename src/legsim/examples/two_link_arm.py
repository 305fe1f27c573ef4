"""A planar 2-link arm in the x-y plane (CJTC digest Fig. 5), gravity −y: links of 0.4 m (1 kg) and 0.3 m
(0.5 kg) with their mass at mid-link, revolute joints ``l1``, ``l2`` about z, the end point as frame
``tip``. Used by the JTC example (``examples/jtc_arm.py``) and the CJTC tests."""

from __future__ import annotations

from ..multibody import Model, RobotBuilder

L1, L2 = 0.4, 0.3
M1, M2 = 1.0, 0.5


def build(gravity=(0.0, -9.81, 0.0)) -> Model:
    """The arm's multibody model (slender rods: I = m l² / 12 about their centres)."""
    b = RobotBuilder("arm", gravity=gravity)
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=M1, com=(L1 / 2, 0, 0),
               inertia=(1e-4, M1 * L1 ** 2 / 12, M1 * L1 ** 2 / 12))
    b.add_body("l2", "l1", "revolute", xyz=(L1, 0, 0), axis=(0, 0, 1), mass=M2, com=(L2 / 2, 0, 0),
               inertia=(1e-4, M2 * L2 ** 2 / 12, M2 * L2 ** 2 / 12))
    b.add_frame("tip", "l2", xyz=(L2, 0, 0))
    return b.compile()
