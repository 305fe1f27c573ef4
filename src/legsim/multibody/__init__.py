"""Articulated rigid-body dynamics: robot models, URDF/MJCF I/O and compiled dynamics kernels.

Model/Data style (DESIGN.md): :class:`RobotBuilder` or :func:`load_urdf` -> frozen :class:`Model`
-> ``model.make_data()``; free functions :func:`aba`, :func:`rnea`, :func:`crba`,
:func:`forward_kinematics`, :func:`frame_placement`, :func:`frame_velocity`, :func:`frame_jacobian`.
Floating base follows Pinocchio: ``q = [x y z qx qy qz qw, joints]``,
``v = [v_lin (body axes), w (body axes), joints]``.

Comparing with Pinocchio: :class:`PinocchioMap` (:mod:`legsim.multibody.peers`) converts q and v,
matching joints by name (continuous joints are angles here, unit-circle points in Pinocchio).

To run a multibody model in the hybrid engine, use
:func:`legsim.multibody.hybrid_model.articulated_model` (imported on demand: it compiles engine
hooks).
"""

from .dynamics import (
    aba,
    add_world_force,
    center_of_mass,
    crba,
    energy,
    forward_dynamics,
    forward_kinematics,
    frame_jacobian,
    frame_placement,
    frame_velocity,
    integrate,
    passive_forces,
    qdot,
    rnea,
)
from .export import qpos_to_mujoco, qvel_to_mujoco, to_mjcf, to_urdf
from .model import Data, Geometry, Model, RobotBuilder
from .peers import PinocchioMap, from_pinocchio_q, from_pinocchio_v, pinocchio_q, pinocchio_v
from .urdf import load_urdf, parse_urdf

__all__ = [
    "Data",
    "Geometry",
    "Model",
    "PinocchioMap",
    "RobotBuilder",
    "aba",
    "add_world_force",
    "center_of_mass",
    "crba",
    "energy",
    "forward_dynamics",
    "forward_kinematics",
    "frame_jacobian",
    "frame_placement",
    "frame_velocity",
    "from_pinocchio_q",
    "from_pinocchio_v",
    "integrate",
    "load_urdf",
    "parse_urdf",
    "passive_forces",
    "pinocchio_q",
    "pinocchio_v",
    "qpos_to_mujoco",
    "qvel_to_mujoco",
    "qdot",
    "rnea",
    "to_mjcf",
    "to_urdf",
]
