"""Compile the RATS control tick ahead (``legsim warmup``, family ``rats_tick``).

Importing this module runs :func:`._tick.observe` and the rolling controller's step
(:func:`._tick.rolling_tick`) and brake once, on the argument types a run gives them (the engine state
is a read-only view of it, the observation's arrays are writeable), so that numba caches those
overloads: about 2 s with an empty cache on a 2-core machine, which a first rolling run would
otherwise spend before its first tick.
"""

from __future__ import annotations

import numpy as np

from . import _tick
from .rolling import RollingController

_x = np.zeros(_tick.OBS_SIZE)
_x[6] = 1.0  # a unit quaternion
_x.flags.writeable = False  # as the engine state the controller reads (SensorReadings.x)
_tick.observe(_x, 0, -1, np.zeros(_tick.OBS_SIZE))
_controller = RollingController()
_controller.step(0.0, np.eye(3), np.zeros(3), 0.2, np.zeros(3), np.array([1.0, 0.0, 0.0]))
_controller.brake.update(0.0, 0.0, None)
