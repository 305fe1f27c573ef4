"""Controller of the bundled hopper example (``hopper.toml``): a PD law on the encoders driving the
hip and knee motors' voltages, the leg crouching and extending in a sine so that the trunk bobs.

The foot stays under the hip when ``knee = -2 hip`` (equal thigh and shank lengths), so a single
bend angle ``b(t)`` [rad] sets both targets: ``hip = b``, ``knee = -2 b``.
"""

from __future__ import annotations

import math

import numpy as np


def pd_bounce(*, kp: float = 60.0, kd: float = 1.0, crouch: float = 0.6, amplitude: float = 0.0,
              frequency: float = 2.0, start: float = 0.5, v_max: float = 24.0):
    """A controller ``(t, sensors) -> [u_hip, u_knee]`` [V]: ``kp`` [V/rad] and ``kd`` [V s/rad] on
    the hip and knee errors; bend ``b(t) = crouch + amplitude sin(2 pi frequency (t - start))``
    after ``start`` [s], ``crouch`` before; voltages clipped to ``v_max`` [V]."""
    gains = np.array([kp, kp])

    def controller(t, s):
        phase = 2.0 * math.pi * frequency * (t - start)
        b = crouch + (amplitude * math.sin(phase) if t > start else 0.0)
        target = np.array([b, -2.0 * b])
        volts = gains * (target - s.enc[1:]) - kd * s.rate
        return np.clip(volts, -v_max, v_max)

    return controller
