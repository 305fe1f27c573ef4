"""The walking-robot layer, for any N-legged walker (Konyev 2011 Ch. 3; contact digest §4.2, §7.2).

- :mod:`.gaits`: periodic wave gaits as phase-offset tables (wave, symmetric gallop, tripod, any τ
  in (0, ½], any even number of legs), the stability and sequencing rules, gait changes on the
  fly, start and stop (:class:`GaitGenerator`).
- :mod:`.step_cycle`: the step cycle (3.1)–(3.6) with the factor-2 flag, contact-triggered
  support and the adaptation zone (:class:`StepCycle`, :class:`LegCycle`).
- :mod:`.forces`: force distribution (3.8)/(3.9) in closed form, and as a QP with unilateral feet
  and friction cones (qpsolvers).
- :mod:`.balance`: the support polygon, the CoM's stability margin and Δ_corr (§3.4.4), the ZMP from
  foot force/torque sensors.
- :mod:`.climbing`: (3.10), (3.11).
"""

from .balance import com_correction, support_margin, support_polygon, zmp_from_wrenches
from .climbing import lift_torque_proxy, max_ledge_height, segment_orientation
from .forces import SupportQP, support_forces, vertical_forces
from .gaits import GAITS, Gait, GaitGenerator, neighbours, wave_gait
from .step_cycle import LegCycle, StepCycle, adapt_clearance

__all__ = ["GAITS", "Gait", "GaitGenerator", "LegCycle", "StepCycle", "SupportQP", "lift_torque_proxy",
           "max_ledge_height", "neighbours", "segment_orientation", "support_forces", "vertical_forces",
           "wave_gait", "adapt_clearance", "com_correction", "support_margin", "support_polygon",
           "zmp_from_wrenches"]
