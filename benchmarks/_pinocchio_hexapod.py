"""The hexapod benchmark's "plain Python loop around Pinocchio": classical RK4 in Python, forward
dynamics by ``pinocchio.aba``, contact forces in numpy (the peer of ``RobotWorld``; issue 3 §6).

The same model as legsim's ``RobotWorld`` runs (so the two can be compared state for state):
- every geometry of the robot is reduced to the plane manifold of ``legsim.world._terrain``
  (sphere centre, capsule segment ends, box corners with radius 0; ``event_contact.contact_points``
  lists them: 50 points for the hexapod), each tested against the ground z = 0 at every stage;
- a point of sweep radius r at height s penetrates by ``depth = r - s``; the force acts at the
  point midway between its lowest point and the plane, with that point's velocity;
- Kelvin-Voigt normal force ``max(0, k depth - c v_z)`` and regularised Coulomb friction
  ``-mu F_n v_t / sqrt(|v_t|^2 + v_eps^2)`` (``legsim.contact.kelvin_voigt``, ``coulomb``);
- joint PD ``tau = kp (q_ref(t) - q) - kd v`` with ``q_ref`` interpolated in a table sampled every
  ``dt_table`` at each stage's time, as ``RobotWorld`` does;
- RK4 on the configuration manifold (``pinocchio.integrate`` for the free joint).
"""

from __future__ import annotations

import math

import numpy as np


def make_pinocchio_loop(model, q0, tab, dt_table, *, k_n, c_n, mu, v_eps, kp, kd):
    """run(t_final, dt) -> (q, v) after ``round(t_final / dt)`` RK4 steps from (q0, 0)."""
    import pinocchio as pin

    from legsim.multibody import to_urdf
    from legsim.world.event_contact import contact_points

    pm = pin.buildModelFromXML(to_urdf(model, capsules="cylinder_spheres"), pin.JointModelFreeFlyer())
    pm.gravity.linear[:] = (0.0, 0.0, -9.81)
    pd = pm.createData()
    order = [pm.idx_vs[pm.getJointId(n)] - 6 for n in model.joint_names]
    if order != list(range(len(model.joint_names))):
        raise RuntimeError("Pinocchio's joint order differs from legsim's")

    points = contact_points(model)
    joints, loc, rad = [], [], []
    for _name, body, centre, radius in points:
        frame = pm.frames[pm.getFrameId(model.body_names[body], pin.BODY)]
        joints.append(frame.parentJoint)
        loc.append(frame.placement.rotation @ centre + frame.placement.translation)
        rad.append(radius)
    used = sorted(set(joints))
    slot = np.array([used.index(j) for j in joints])
    joints, loc, rad = np.array(joints), np.array(loc), np.array(rad)
    nj = len(model.joint_names)

    def accel(t, q, v):
        x = t / dt_table
        i0 = min(max(int(x), 0), len(tab) - 2)
        fr = min(max(x - i0, 0.0), 1.0)
        qref = (1.0 - fr) * tab[i0] + fr * tab[i0 + 1]
        pin.computeJointJacobians(pm, pd, q)                 # also the joint placements oMi
        hom = np.array([pd.oMi[j].homogeneous for j in used])[slot]
        org = hom[:, :3, 3]
        world = org + (hom[:, :3, :3] @ loc[:, :, None])[:, :, 0]
        depth = rad - world[:, 2]
        tau = np.zeros(pm.nv)
        tau[6:] = kp * (qref - q[7:7 + nj]) - kd * v[6:]
        for k in np.nonzero(depth > 0.0)[0]:
            a0, a1, a2 = world[k] - org[k]
            a2 -= 0.5 * (rad[k] + world[k, 2])              # midway between lowest point and plane
            jac = pin.getJointJacobian(pm, pd, int(joints[k]), pin.LOCAL_WORLD_ALIGNED)
            skew = np.array([[0.0, -a2, a1], [a2, 0.0, -a0], [-a1, a0, 0.0]])
            jp = jac[:3] - skew @ jac[3:]                    # v_point = v_o + w x arm
            vx, vy, vz = jp @ v
            fn = max(0.0, k_n * depth[k] - c_n * vz)
            g = -mu * fn / math.sqrt(vx * vx + vy * vy + v_eps * v_eps)
            tau += jp.T @ np.array([g * vx, g * vy, fn])
        return pin.aba(pm, pd, q, v, tau)

    def run(t_final, dt):
        q, v = np.array(q0, dtype=float), np.zeros(pm.nv)
        for i in range(int(round(t_final / dt))):
            t = i * dt
            a1 = accel(t, q, v)
            v2 = v + 0.5 * dt * a1
            a2 = accel(t + 0.5 * dt, pin.integrate(pm, q, 0.5 * dt * v), v2)
            v3 = v + 0.5 * dt * a2
            a3 = accel(t + 0.5 * dt, pin.integrate(pm, q, 0.5 * dt * v2), v3)
            v4 = v + dt * a3
            a4 = accel(t + dt, pin.integrate(pm, q, dt * v3), v4)
            q = pin.integrate(pm, q, dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4))
            v = v + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        return q, v

    return run
