"""Issue 3 §6: the 18-DoF hexapod standing then walking a tripod gait, legsim vs MuJoCo, PyBullet and a
plain Python loop around Pinocchio, at fixed steps of 1 ms and 0.1 ms, all in one run.

Robot: ``legsim.multibody.samples.hexapod`` (base box 0.4 x 0.2 x 0.1 m 2 kg, 3.5 kg in all, coxa
yaw / femur pitch / tibia pitch, capsule links 0.05/0.10/0.12 m, sphere feet r = 0.015 m), joint PD
``tau = kp (q_ref - q) - kd v`` with kp = 30, kd = 0.3 (MuJoCo: ``position`` actuators with ``kv``;
PyBullet: ``PD_CONTROL``), stance femur -0.5 rad, tibia +1.9 rad, mu = 1. Scenario: stand for
``--stand`` s, then a tripod gait (legs 0, 3, 4 vs 1, 2, 5 in antiphase; sinusoidal coxa swing and
femur lift at 1.5 Hz, amplitudes ramped in over 0.5 s). The targets are a table sampled every 1 ms
(legsim interpolates it inside the compiled loop; the peers get ``ctrl`` set from Python each 1 ms).

Contact models (each engine's own, as a user would run it):
- legsim: Kelvin-Voigt normal force ``k p + c pdot`` (k = 2e4 N/m, c = 20 N s/m, never pulling) and
  the anchor-spring friction of Konyev (2.21) (mu = 1, K_I = 5e3 N/m, viscous 20 N s/m), or
  (``legsim-coulomb``) regularised Coulomb v_eps = 0.05 m/s; all 25 geoms (box, 18 capsules,
  6 spheres) against the plane; semi-implicit Euler and RK4.
- MuJoCo: exported MJCF (``to_mjcf``), default soft contacts, same collision pairs (robot geoms
  touch only the floor), Euler and RK4 integrators.
- PyBullet: exported URDF, DIRECT mode, default LCP contacts, lateral friction 1.
- Python + Pinocchio (the "plain Python loop" of the issue, ``_pinocchio_hexapod.py``): ``pin.aba``
  in a Python RK4 loop with numpy contact forces through ``J^T f``, the same model as legsim's
  ``coulomb`` row (all 50 contact points of the 25 geoms, Kelvin-Voigt + regularised Coulomb
  v_eps = 0.05 m/s, forces at legsim's contact points, targets interpolated at each stage): its
  trajectory equals legsim's to ~1e-10 m (``tests/test_world_contact.py``), so the ratio compares
  the same work. Also a minimal loop (``feet only``): the six foot-sphere centres, targets held
  over the step, v_eps = 0.01 m/s: what a hand-written loop costs when it drops the other
  geometry; a lower bound on a Python loop's time, not the same model.

Reported: wall time per step (steady state: after a warm-up run, so numba compile is excluded and
printed separately), real-time factor (simulated s / wall s), ratios to MuJoCo Euler at the same
step and to the Python+Pinocchio loop, the base position at the end (a sanity check that every
engine stands and walks). The machine is shared: each timing is the best of ``--repeat`` runs.
Optionally (``--work-precision``) the final base-position error of legsim RK4 (anchor-spring
friction, and stateless regularised Coulomb with v_eps = 0.05 m/s) and MuJoCo (Euler, RK4) against
each engine's own dt = 25 us solution vs wall time; and of legsim's event-located contact model
(``legsim.world.event_contact_model``: all 25 geoms as 50 contact points, Kelvin-Voigt + regularised
Coulomb v_eps = 0.05 m/s or the anchor spring, adaptive DP45 with touchdowns and liftoffs located
as events) against its own rtol = 1e-11 solution.

Usage: ``python benchmarks/bench_hexapod_contact.py [--t 10] [--pin-t T] [--repeat 2] [--work-precision]``
(every engine runs the same ``--t`` unless ``--pin-t`` shortens the slow peers' runs).
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
import xml.etree.ElementTree as ET

import numpy as np

KP, KD, MU = 30.0, 0.3, 1.0
K_N, C_N = 2e4, 20.0
K_I, C_T = 5e3, 20.0
R_FOOT = 0.015
TRIPOD_A = (0, 3, 4)
DT_TABLE = 1e-3


def gait_table(model, q_stance, t_total, t_stand, freq=1.5, a_coxa=0.25, a_lift=0.3):
    """Joint targets (K, 18) every 1 ms: stance, then a tripod gait ramped in over 0.5 s."""
    t = np.arange(int(round(t_total / DT_TABLE)) + 2) * DT_TABLE
    tab = np.tile(q_stance[7:], (len(t), 1))
    ramp = np.clip((t - t_stand) / 0.5, 0.0, 1.0)
    for k in range(6):
        side = 1.0 if k % 2 == 0 else -1.0
        phi = 2 * np.pi * freq * (t - t_stand) + (0.0 if k in TRIPOD_A else np.pi)
        tab[:, 3 * k] += ramp * side * a_coxa * np.sin(phi)
        tab[:, 3 * k + 1] -= ramp * a_lift * 0.5 * (1.0 + np.cos(phi))
        tab[:, 3 * k + 2] += ramp * a_lift * 0.5 * (1.0 + np.cos(phi))
    return tab


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


# ---- legsim ------------------------------------------------------------------------------------
def make_legsim(model, q0, tab, friction="anchor"):
    from legsim.contact import ContactLaw, anchor_spring, coulomb, kelvin_voigt
    from legsim.world import RobotWorld

    if friction == "anchor":
        fr = anchor_spring(MU, K_I, brk=1.0, damping=C_T)
    else:  # stateless regularised Coulomb, v_eps = 0.05 m/s (slope mu F_n / v_eps stable at 1 ms)
        fr = coulomb(MU, 0.05)
    law = ContactLaw(kelvin_voigt(K_N, C_N), fr)
    w = RobotWorld(model, contact_law=law, kp=KP, kd=KD)
    w.set_targets(tab, DT_TABLE)

    def run(t_final, dt, method):
        w.reset(q0)
        w.simulate(t_final, dt, method=method, record_every=max(1, int(round(0.01 / dt))))
        return w.q.copy()

    return run


def make_legsim_events(model, q0, tab, friction="coulomb"):
    """The hexapod as a hybrid-engine model with event-located contacts (all 25 geoms as 50 contact
    points: box corners, capsule ends, foot spheres); run(t, rtol) -> q."""
    from legsim.contact import ContactLaw, anchor_spring, coulomb, kelvin_voigt
    from legsim.hybrid import Options, simulate
    from legsim.world import event_contact_model

    fr = anchor_spring(MU, K_I, brk=1.0, damping=C_T) if friction == "anchor" else coulomb(MU, 0.05)
    hm = event_contact_model(model, ContactLaw(kelvin_voigt(K_N, C_N), fr), kp=KP, kd=KD,
                             targets=tab, dt_targets=DT_TABLE, q0=q0)

    def run(t_final, rtol):
        opts = Options(method="dp45", rtol=rtol, atol=1e-2 * rtol, record_period=0.0, h_max=0.01)
        return simulate(hm, t_final, options=opts, progress=False).x[-1, :model.nq]

    return run


# ---- MuJoCo ------------------------------------------------------------------------------------
def mjcf_with_floor_and_actuators(model, dt, integrator):
    from legsim.multibody import to_mjcf

    root = ET.fromstring(to_mjcf(model, timestep=dt, integrator=integrator))
    world = root.find("worldbody")
    for g in world.iter("geom"):
        g.set("contype", "1")
        g.set("conaffinity", "0")
        g.set("friction", f"{MU} 0.005 0.0001")
    ET.SubElement(world, "geom", name="floor", type="plane", size="0 0 1", contype="0", conaffinity="1",
                  friction=f"{MU} 0.005 0.0001")
    act = ET.SubElement(root, "actuator")
    for name in model.joint_names:
        ET.SubElement(act, "position", joint=name, kp=repr(KP), kv=repr(KD))
    return ET.tostring(root, encoding="unicode")


def make_mujoco(model, q0, tab):
    import mujoco

    from legsim.multibody import qpos_to_mujoco

    cache = {}

    def run(t_final, dt, integrator):
        key = (dt, integrator)
        if key not in cache:
            m = mujoco.MjModel.from_xml_string(mjcf_with_floor_and_actuators(model, dt, integrator))
            cache[key] = (m, mujoco.MjData(m))
        m, d = cache[key]
        mujoco.mj_resetData(m, d)
        d.qpos[:] = qpos_to_mujoco(model, q0)
        n = int(round(t_final / dt))
        every = max(1, int(round(DT_TABLE / dt)))
        step = mujoco.mj_step
        for i in range(n):
            if i % every == 0:
                d.ctrl[:] = tab[i // every]
            step(m, d)
        return d.qpos.copy()

    return run


# ---- PyBullet ----------------------------------------------------------------------------------
def make_pybullet(model, q0, tab):
    import pybullet as p

    from legsim.multibody import to_urdf

    fd, path = tempfile.mkstemp(suffix=".urdf")
    with os.fdopen(fd, "w") as f:
        f.write(to_urdf(model))
    cid = p.connect(p.DIRECT)
    p.setGravity(0, 0, -9.81, physicsClientId=cid)
    floor = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=cid)
    plane = p.createMultiBody(0, floor, physicsClientId=cid)
    p.changeDynamics(plane, -1, lateralFriction=MU, physicsClientId=cid)
    robot = p.loadURDF(path, useFixedBase=False, physicsClientId=cid)
    os.unlink(path)
    nj = p.getNumJoints(robot, physicsClientId=cid)
    names = [p.getJointInfo(robot, j, physicsClientId=cid)[1].decode() for j in range(nj)]
    idx = [names.index(n) for n in model.joint_names]
    for j in range(-1, nj):
        p.changeDynamics(robot, j, lateralFriction=MU, linearDamping=0, angularDamping=0, physicsClientId=cid)
    p.setJointMotorControlArray(robot, idx, p.VELOCITY_CONTROL, forces=[0.0] * len(idx), physicsClientId=cid)

    def run(t_final, dt, _unused=None):
        p.setTimeStep(dt, physicsClientId=cid)
        # base frame = link frame of the root in the exported URDF (inertial origin at the base origin)
        p.resetBasePositionAndOrientation(robot, q0[:3], q0[3:7], physicsClientId=cid)
        p.resetBaseVelocity(robot, [0, 0, 0], [0, 0, 0], physicsClientId=cid)
        for k, j in enumerate(idx):
            p.resetJointState(robot, j, q0[7 + k], 0.0, physicsClientId=cid)
        n = int(round(t_final / dt))
        every = max(1, int(round(DT_TABLE / dt)))
        for i in range(n):
            if i % every == 0:
                p.setJointMotorControlArray(robot, idx, p.PD_CONTROL, targetPositions=tab[i // every],
                                            positionGains=[KP] * 18, velocityGains=[KD] * 18,
                                            forces=[1e3] * 18, physicsClientId=cid)
            p.stepSimulation(physicsClientId=cid)
        pos, _ = p.getBasePositionAndOrientation(robot, physicsClientId=cid)
        return np.array(pos)

    return run


# ---- Python loops around Pinocchio -------------------------------------------------------------
def make_pinocchio(model, q0, tab):
    """The same model as legsim-coulomb (``_pinocchio_hexapod.py``); run(t, dt, _) -> q."""
    from _pinocchio_hexapod import make_pinocchio_loop

    loop = make_pinocchio_loop(model, q0, tab, DT_TABLE, k_n=K_N, c_n=C_N, mu=MU, v_eps=0.05, kp=KP, kd=KD)
    return lambda t_final, dt, _unused=None: loop(t_final, dt)[0]


def make_pinocchio_feet(model, q0, tab):
    """Minimal loop: the six foot-sphere centres only, targets held over each RK4 step."""
    import pinocchio as pin

    from legsim.multibody import to_urdf

    pm = pin.buildModelFromXML(to_urdf(model, capsules="cylinder_spheres"), pin.JointModelFreeFlyer())
    pm.gravity.linear[:] = (0, 0, -9.81)
    feet = []
    for k in range(6):
        jid = pm.getJointId(f"leg{k}_tibia")
        feet.append(pm.addFrame(pin.Frame(f"leg{k}_foot", jid, pin.SE3(np.eye(3), np.array([0.12, 0, 0])),
                                          pin.FrameType.OP_FRAME)))
    pd = pm.createData()
    v_eps = 1e-2

    def accel(q, v, qref):
        pin.computeJointJacobians(pm, pd, q)
        pin.forwardKinematics(pm, pd, q, v)
        pin.updateFramePlacements(pm, pd)
        tau = np.zeros(pm.nv)
        tau[6:] = KP * (qref - q[7:]) - KD * v[6:]
        for fid in feet:
            z = pd.oMf[fid].translation[2]
            depth = R_FOOT - z
            if depth <= 0.0:
                continue
            vel = pin.getFrameVelocity(pm, pd, fid, pin.LOCAL_WORLD_ALIGNED).linear
            fn = max(0.0, K_N * depth - C_N * vel[2])
            vt = vel[:2]
            f = np.zeros(3)
            f[:2] = -MU * fn * vt / np.sqrt(vt @ vt + v_eps * v_eps)
            f[2] = fn
            J = pin.getFrameJacobian(pm, pd, fid, pin.LOCAL_WORLD_ALIGNED)
            tau += J[:3].T @ f
        return pin.aba(pm, pd, q, v, tau)

    def run(t_final, dt, _unused=None):
        q, v = q0.copy(), np.zeros(pm.nv)
        n = int(round(t_final / dt))
        for i in range(n):
            t = i * dt
            x = t / DT_TABLE
            i0 = min(int(x), len(tab) - 2)
            qref = tab[i0] + (x - i0) * (tab[i0 + 1] - tab[i0])
            a1 = accel(q, v, qref)
            v2 = v + 0.5 * dt * a1
            q2 = pin.integrate(pm, q, 0.5 * dt * v)
            a2 = accel(q2, v2, qref)
            v3 = v + 0.5 * dt * a2
            q3 = pin.integrate(pm, q, 0.5 * dt * v2)
            a3 = accel(q3, v3, qref)
            v4 = v + dt * a3
            q4 = pin.integrate(pm, q, dt * v3)
            a4 = accel(q4, v4, qref)
            q = pin.integrate(pm, q, dt / 6.0 * (v + 2 * v2 + 2 * v3 + v4))
            v = v + dt / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4)
        return q

    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t", type=float, default=10.0, help="simulated time per run, s (issue: 10)")
    ap.add_argument("--stand", type=float, default=0.5, help="standing phase before the gait, s")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--pin-t", type=float, default=None,
                    help="simulated time of the slow peers (PyBullet, Python loops), s (default: --t)")
    ap.add_argument("--work-precision", action="store_true")
    args = ap.parse_args()

    t0 = time.perf_counter()
    from legsim.multibody.samples import hexapod, hexapod_stance

    model = hexapod()
    q0 = hexapod_stance(model)
    tab = gait_table(model, q0, max(args.t, 1.0) + 1.0, args.stand)
    legsim_run = make_legsim(model, q0, tab)
    legsim_run(0.002, 1e-3, "euler")
    legsim_run(0.002, 1e-3, "rk4")
    cold = time.perf_counter() - t0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"legsim import + build + first calls (numba compile or cache load): {cold:.1f} s")
    print(f"hexapod nq={model.nq} nv={model.nv} mass={model.total_mass():.3f} kg; simulated {args.t} s "
          f"(stand {args.stand} s, then tripod gait); best of {args.repeat}\n")

    coulomb_run = make_legsim(model, q0, tab, friction="coulomb")
    coulomb_run(0.002, 1e-3, "rk4")
    engines = [("legsim", "euler", legsim_run), ("legsim", "rk4", legsim_run),
               ("legsim-coulomb", "euler", coulomb_run), ("legsim-coulomb", "rk4", coulomb_run)]
    try:
        mj = make_mujoco(model, q0, tab)
        engines += [("mujoco", "Euler", mj), ("mujoco", "RK4", mj)]
    except ImportError as e:  # pragma: no cover
        print("mujoco unavailable:", e)
    try:
        engines.append(("pybullet", "default", make_pybullet(model, q0, tab)))
    except ImportError as e:  # pragma: no cover
        print("pybullet unavailable:", e)
    try:
        engines.append(("python+pinocchio", "rk4", make_pinocchio(model, q0, tab)))
        engines.append(("py+pin feet only", "rk4", make_pinocchio_feet(model, q0, tab)))
    except ImportError as e:  # pragma: no cover
        print("pinocchio unavailable:", e)

    rows = []
    for dt in (1e-3, 1e-4):
        for name, method, run in engines:
            slow = name.startswith("py")
            t_sim = min(args.t, args.pin_t) if slow and args.pin_t is not None else args.t
            wall, qf = best_time(lambda run=run, method=method, t_sim=t_sim, dt=dt: run(t_sim, dt, method),
                                 1 if slow else args.repeat)
            n = int(round(t_sim / dt))
            rows.append(dict(engine=name, method=method, dt=dt, us=wall / n * 1e6, rtf=t_sim / wall,
                             base=np.asarray(qf)[:3], t_sim=t_sim))
    print(f"{'engine':18s} {'method':8s} {'dt':>7s} {'us/step':>9s} {'RTF':>8s} {'vs MuJoCo Euler':>16s} "
          f"{'vs Py+Pin':>10s} {'vs feet only':>12s}  base x, y, z at the end [m]")

    def same_step(engine, r):
        return next((x["us"] for x in rows if x["engine"] == engine and x["dt"] == r["dt"]
                     and (engine != "mujoco" or x["method"] == "Euler")), np.nan)

    for r in rows:
        note = f" (over {r['t_sim']} s)" if r["t_sim"] != args.t else ""
        print(f"{r['engine']:18s} {r['method']:8s} {r['dt']:7.0e} {r['us']:9.1f} {r['rtf']:8.1f} "
              f"{r['us'] / same_step('mujoco', r):16.2f} {same_step('python+pinocchio', r) / r['us']:9.1f}x "
              f"{same_step('py+pin feet only', r) / r['us']:11.1f}x  "
              f"{np.array2string(r['base'], precision=4, suppress_small=True)}{note}")
    print("\n'vs MuJoCo Euler' = per-step time / MuJoCo Euler's at the same step (lower is faster); "
          "'vs Py+Pin' = how many times faster than the Python+Pinocchio RK4 loop of the same model "
          "(legsim-coulomb's); 'vs feet only' = than the minimal six-feet loop.")

    if args.work_precision:
        work_precision(model, q0, tab, engines, args)


def work_precision(model, q0, tab, engines, args):
    """Final base position error vs each engine's own finest step, against wall time."""
    t_wp = 1.0 + args.stand
    print(f"\nwork-precision: {t_wp} s (stand + gait start), error of the final base position vs the "
          f"engine's own dt = 2.5e-5 s solution")
    steps = (2e-3, 1e-3, 5e-4, 2.5e-4, 1e-4, 5e-5)
    for name, method, run in engines:
        if not ((name.startswith("legsim") and method == "rk4") or (name == "mujoco")):
            continue
        ref = np.asarray(run(t_wp, 2.5e-5, method))[:3]
        for dt in steps:
            try:
                wall, qf = best_time(lambda run=run, method=method, dt=dt: run(t_wp, dt, method), 1)
                err = np.abs(np.asarray(qf)[:3] - ref).max()
                print(f"  {name:14s} {method:6s} dt={dt:7.1e}  error {err:9.2e} m  wall {wall * 1e3:8.1f} ms")
            except Exception as e:  # noqa: BLE001 - report divergence and go on
                print(f"  {name:14s} {method:6s} dt={dt:7.1e}  failed: {type(e).__name__}: {str(e)[:80]}")
    for friction in ("coulomb", "anchor"):
        events = make_legsim_events(model, q0, tab, friction)
        events(0.01, 1e-4)  # compile or load the hooks outside the timings
        ref = events(t_wp, 1e-11)[:3]
        for rtol in (1e-4, 1e-5, 1e-6, 1e-7, 1e-8):
            wall, qf = best_time(lambda rtol=rtol, events=events: events(t_wp, rtol), 1)
            print(f"  {'legsim-events':14s} {friction:7s} rtol={rtol:5.0e}  error "
                  f"{np.abs(qf[:3] - ref).max():9.2e} m  wall {wall * 1e3:8.1f} ms  (vs its own rtol 1e-11)")

if __name__ == "__main__":
    main()
