"""The pneumatic CRR quadruped (Daepp 2011, digest §1.1, §7 item 7): four CRR legs on a trunk,
12 MPYE-5 valves and cylinders with the CRR leg's joint controllers, fixed or floating base."""

from .body import LEGS, graft_leg, quadruped_bodies
from .motions import (
    CRAWL_PHASES,
    crawl_references,
    squat_posture,
    squat_references,
    stance_references,
)
from .quadruped import STANCE_POSTURE_DEG, ContactParameters, Quadruped, QuadrupedRun

__all__ = ["CRAWL_PHASES", "crawl_references", "LEGS", "graft_leg", "quadruped_bodies",
           "squat_posture", "squat_references", "stance_references", "STANCE_POSTURE_DEG",
           "ContactParameters", "Quadruped", "QuadrupedRun"]
