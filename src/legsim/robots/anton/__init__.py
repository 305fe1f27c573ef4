"""ANTON, the six-legged walker with an articulated body (Konyev 2011 Ch. 3; contact digest §4.2):
its parameters (:mod:`.params`) and multibody model with leg kinematics (:mod:`.model`), the robot
and its walking controller (:mod:`.robot`), the ledge-climbing script (:mod:`.climb`). Its gait, step
cycles and force distribution are the robot-independent :mod:`legsim.walking` layer."""

from .model import build_model, foot_layout, hip_placements, joint_names, leg_fk, leg_ik
from .params import LEGS, SEGMENTS, AntonParams

__all__ = ["AntonParams", "LEGS", "SEGMENTS", "build_model", "foot_layout", "hip_placements", "joint_names",
           "leg_fk", "leg_ik"]
