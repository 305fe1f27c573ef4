"""Sample robots: random kinematic trees (for tests) and the 18-DoF hexapod of issue 3 §6.

``hexapod()``: base box 0.4 x 0.2 x 0.1 m, 2 kg; six legs (coxa yaw, femur pitch, tibia pitch) with
capsule links 0.05 / 0.10 / 0.12 m long (radius 0.01 m) and sphere feet r = 0.015 m; 3.5 kg in all
(legs 0.25 kg each, split in proportion to link length). Link inertias are those of solid
cylinders (rod formula ``m (3 r^2 + L^2) / 12`` across, ``m r^2 / 2`` along).
"""

from __future__ import annotations

import numpy as np

from .model import Model, RobotBuilder

HEXAPOD_STANCE = {"coxa": 0.0, "femur": -0.5, "tibia": 1.9}


def _rod_inertia(m, r, L, along):
    """Rotational inertia (3, 3) of a solid cylinder of mass m (kg), radius r, length L (m) whose
    axis is the body axis ``along`` (0, 1 or 2), about its centre."""
    across = m * (3.0 * r * r + L * L) / 12.0
    d = np.full(3, across)
    d[along] = 0.5 * m * r * r
    return np.diag(d)


def hexapod(*, floating_base=True) -> Model:
    """The hexapod of issue 3 §6 (18 actuated DoF, plus a free base if ``floating_base``).

    Leg k sits at ``(x_k, +-0.1, 0)`` on the base (x_k in {0.15, 0, -0.15}); its coxa frame is yawed
    so that its x axis points outward; femur and tibia pitch about the leg's y axis; links extend
    along the local x axis. Joint names: ``leg{k}_coxa``, ``leg{k}_femur``, ``leg{k}_tibia``;
    frames ``leg{k}_foot`` at the foot-sphere centres. Stance: :data:`HEXAPOD_STANCE`.
    """
    b = RobotBuilder("hexapod")
    base_I = np.diag([2.0 * (0.2**2 + 0.1**2) / 12.0, 2.0 * (0.4**2 + 0.1**2) / 12.0,
                      2.0 * (0.4**2 + 0.2**2) / 12.0])
    b.add_body("base", "world", "free" if floating_base else "fixed", mass=2.0, inertia=base_I)
    b.add_geometry("base", "box", size=(0.4, 0.2, 0.1), material="body")
    lengths = (0.05, 0.10, 0.12)
    masses = tuple(0.25 * L / sum(lengths) for L in lengths)
    r = 0.01
    k = 0
    for x in (0.15, 0.0, -0.15):
        for side in (1.0, -1.0):
            yaw = side * np.pi / 2.0
            parent = "base"
            xyz = (x, side * 0.1, 0.0)
            rpy = (0.0, 0.0, yaw)
            for seg, L, m, axis in zip(("coxa", "femur", "tibia"), lengths, masses,
                                       ((0, 0, 1), (0, 1, 0), (0, 1, 0)), strict=True):
                name = f"leg{k}_{seg}"
                b.add_body(name, parent, "revolute", axis=axis, xyz=xyz, rpy=rpy, mass=m,
                           com=(L / 2.0, 0.0, 0.0), inertia=_rod_inertia(m, r, L, 0),
                           limits=(-np.pi, np.pi), effort=10.0, velocity=10.0)
                b.add_geometry(name, "capsule", radius=r, length=L, xyz=(L / 2.0, 0, 0),
                               rpy=(0.0, np.pi / 2.0, 0.0), material="leg")
                parent, xyz, rpy = name, (L, 0.0, 0.0), (0.0, 0.0, 0.0)
            b.add_frame(f"leg{k}_foot", parent, xyz=(lengths[2], 0.0, 0.0))
            b.add_geometry(parent, "sphere", radius=0.015, xyz=(lengths[2], 0, 0), material="foot")
            k += 1
    return b.compile()


def hexapod_stance(model: Model, height=None) -> np.ndarray:
    """Stance configuration (nq,) of :func:`hexapod`. A floating base sits at ``height`` m; the
    default puts the lowest foot sphere (r = 0.015 m) exactly on the ground z = 0."""
    q = model.neutral()
    off = 0
    if model.floating_base:
        off = 7
    for i, name in enumerate(model.joint_names):
        q[off + i] = HEXAPOD_STANCE[name.split("_")[1]]
    if model.floating_base:
        if height is None:
            from .dynamics import forward_kinematics, frame_placement

            data = model.make_data()
            forward_kinematics(model, data, q)
            feet = [frame_placement(model, data, f"leg{k}_foot")[2, 3] for k in range(6)]
            height = 0.015 - min(feet)
        q[2] = height
    return q


def random_tree(rng: np.random.Generator, nbody=32, *, floating_base=False, prismatic_fraction=0.3,
                fixed_fraction=0.0, branching=0.5) -> RobotBuilder:
    """A random kinematic tree (RobotBuilder) for tests: ``nbody`` moving bodies with random parents
    (a new body attaches to a random earlier one with probability ``branching``, else to the last),
    random unit axes, random placements (|xyz| <= 0.5 m, any rpy), masses 0.1-2 kg, random centres of
    mass and physically valid inertias (principal moments satisfying the triangle inequality, random
    principal axes). Revolute joints get limits +-4 rad so the URDF export keeps them ``revolute``.
    """
    b = RobotBuilder("random_tree")
    names: list[str] = []

    def inertia():
        p = rng.uniform(0.05, 1.0, 3)
        d = np.array([p[1] + p[2], p[0] + p[2], p[0] + p[1]]) * 0.05  # triangle inequality holds
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        return Q @ np.diag(d) @ Q.T

    for i in range(nbody):
        if i == 0:
            parent = "world"
            jt = "free" if floating_base else "revolute"
        else:
            parent = names[rng.integers(len(names))] if rng.random() < branching else names[-1]
            u = rng.random()
            jt = "revolute"
            if u < prismatic_fraction:
                jt = "prismatic"
            elif u > 1.0 - fixed_fraction:
                jt = "fixed"
        axis = rng.normal(size=3)
        name = f"b{i}"
        kw = {}
        if jt == "revolute":
            kw["limits"] = (-4.0, 4.0)
        elif jt == "prismatic":
            kw["limits"] = (-1.0, 1.0)
        b.add_body(name, parent, jt, joint_name=f"j{i}",
                   xyz=(0, 0, 0) if jt == "free" else rng.uniform(-0.5, 0.5, 3),
                   rpy=(0, 0, 0) if jt == "free" else rng.uniform(-np.pi, np.pi, 3),
                   axis=axis, mass=rng.uniform(0.1, 2.0), com=rng.uniform(-0.2, 0.2, 3),
                   inertia=inertia(), **kw)
        names.append(name)
    return b


def random_state(rng: np.random.Generator, model: Model):
    """Random ``(q, v, a, tau)``: joint coordinates in (-pi, pi) (prismatic in (-1, 1)), a random unit
    quaternion and position for free joints, velocities, accelerations and torques ~ N(0, 1)."""
    q = rng.uniform(-np.pi, np.pi, model.nq)
    a = model.arrays
    for i in range(1, model.nbody):
        k = a.jnt_qposadr[i]
        if a.jnt_type[i] == 1:
            quat = rng.normal(size=4)
            q[k:k + 3] = rng.uniform(-1, 1, 3)
            q[k + 3:k + 7] = quat / np.linalg.norm(quat)
        elif a.jnt_type[i] == 3:
            q[k] = rng.uniform(-1, 1)
    return q, rng.normal(size=model.nv), rng.normal(size=model.nv), rng.normal(size=model.nv)
