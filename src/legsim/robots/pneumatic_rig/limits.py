"""The limits of the pneumatic rig and hop benches, in a module of their own: the CRR leg and quadruped
check their runs against them without importing (and, on a first run, compiling) the benches' hooks."""

from __future__ import annotations

from ...actuators.pneumatic.actuator import MAX_PRESSURE
from ...actuators.pneumatic.units import P_ATM_PSI, PSI

__all__ = ["MAX_PSI", "MASS_RANGE", "MAX_VALUE", "MAX_DURATION"]

MAX_PSI = 1e5
"""The highest supply [psig] or exhaust [psia] pressure a :class:`~.rig.RigBench` takes (690 MPa:
within the actuator's :data:`~legsim.actuators.pneumatic.actuator.MAX_PRESSURE`)."""
assert (MAX_PSI + P_ATM_PSI) * PSI < MAX_PRESSURE
MASS_RANGE = (1e-6, 1e6)
"""The attached mass [kg] a :class:`~.rig.RigBench` takes, and the body mass a :class:`~.hop.HopBench`
takes: a milligram to a thousand tonnes (its acceleration F/m stays finite)."""
MAX_VALUE = 1e12
"""The largest feedback gain (kp [V/m], ki [V/(m s)], kd, kv [V s/m], ka [V s²/m]), gain factor, PVA
cutoff [Hz] and magnitude of gravity [m/s²] a :class:`~.rig.RigBench` takes, and the largest magnitude
of a :class:`~.rig.Reference`'s levels [m or V], times [s] and omega [rad/s]: products of a few of them
stay finite (the voltage is then saturated to the valve's range). Also the largest friction force [N],
damping [N s/m] and spring rate [N/m] of a :class:`~.hop.HopBench`."""
MAX_DURATION = 3600.0
"""The longest run [s] a :class:`~.rig.RigBench` simulates (and the longest firing and flight of a
:class:`~.hop.HopBench`): an hour, 3.6 million 1 kHz controller samples or 1 ms steps, about ten
seconds of computing; a longer one would look hung."""
