"""Tutorial (docs/tutorial-a1.md): the Unitree A1 of pybullet_data on 12 DC motors, foot contact, an IMU,
joint encoders and rates, trotting under a Python PD controller at 1 kHz.
Usage: ``python examples/a1_trot.py [--t 3] [--path event|smooth] [--plot a1.png]``"""
import argparse

import numpy as np
import pybullet_data
from scipy.spatial.transform import Rotation

from legsim.assembly import IMU, Contacts, DCMotor, JointEncoder, JointVelocity, Measurement, Robot
from legsim.cli import run_script
from legsim.contact import ContactLaw, coulomb, hunt_crossley
from legsim.multibody import load_urdf

A1 = load_urdf(pybullet_data.getDataPath() + "/a1/a1.urdf", floating_base=True)
# joints: legs FR, FL, RR, RL, each hip (abduction), upper (thigh), lower (knee); feet: the toe spheres
JOINTS, FEET = A1.joint_names, [g.name for g in A1.geometries if "_toe_" in g.name]
# A1 joint motor: 9.1:1 gear, 33.5 N m peak, 21 rad/s at no load, rotor 1.2e-4 kg m^2 (9.1^2 J_r = 0.01
# kg m^2, MuJoCo Menagerie's armature); 21.6 V pack; R and kt give that torque-speed line (tutorial).
MOTOR = dict(gear=9.1, efficiency=0.9, v_max=21.6, torque_constant=0.113, resistance=0.6, i_max=36.0,
             rotor_inertia=1.2e-4, command="torque")
# PD gains [N m/rad, N m s/rad], gyro damping [m per rad/s], thigh-joint-to-foot height, stride and foot
# lift [m], trot frequency [Hz], standing time before the gait [s]
KP, KD, DAMP, HEIGHT, STRIDE, LIFT, FREQ, T_STAND = 120.0, 2.5, 0.3, 0.29, 0.08, 0.05, 2.0, 0.5
HIP_X, HIP_Y = np.array([1, 1, -1, -1]) * 0.183, np.array([-1, 1, -1, 1]) * 0.132  # feet under the hips
PHASE, WEIGHT = np.array([0.0, np.pi, np.pi, 0.0]), A1.total_mass() * 9.81  # pairs FR+RL, FL+RR


def build(path="event"):
    sensors = [JointEncoder("enc", joints=JOINTS, measurement=Measurement(bits=16, lo=-np.pi, hi=np.pi)),
               JointVelocity("rate", joints=JOINTS, measurement=Measurement(noise_std=0.02, seed=1)),
               IMU("acc", body="trunk", gyro=False, measurement=Measurement(noise_std=0.04, seed=2)),
               IMU("gyro", body="trunk", accelerometer=False,
                   measurement=Measurement(noise_std=5e-3, seed=3))]
    feet = Contacts(ContactLaw(hunt_crossley(2e5, 1.5), coulomb(0.8, 1e-2)), geometries=FEET, path=path)
    return Robot(A1, actuators=[DCMotor(j, j, **MOTOR) for j in JOINTS], sensors=sensors, contacts=feet)


def leg_ik(x, z):  # thigh and knee angles that put the foot at (x, z) from the thigh joint (links 0.2 m)
    knee = -2.0 * np.arccos(np.clip(np.hypot(x, z) / 0.4, 0.0, 1.0))
    return np.arctan2(-x, -z) - knee / 2.0, knee


# the standing pose, at rest, with the feet (spheres of radius 2 cm) just touching the ground
Q0 = np.r_[0.0, 0.0, HEIGHT + 0.02, 0.0, 0.0, 0.0, 1.0, np.tile([0.0, *leg_ik(0.0, -HEIGHT)], 4)]


def controller(t, s):
    ramp = np.clip((t - T_STAND) / 0.5, 0.0, 1.0)  # stand still, then bring the gait in over 0.5 s
    phi = 2.0 * np.pi * FREQ * max(t - T_STAND, 0.0) + PHASE
    x = -0.5 * STRIDE * ramp * np.cos(phi)  # foot forward while lifted (sin phi > 0), backward on the ground
    z = -HEIGHT + LIFT * ramp * np.maximum(np.sin(phi), 0.0) - DAMP * (HIP_X * s.gyro[1] - HIP_Y * s.gyro[0])
    q_ref = np.column_stack([np.zeros(4), *leg_ik(x, z)])  # (4 legs, 3 joints)
    fz = np.where(ramp > 0.0, WEIGHT / 2 * (np.sin(phi) <= 0.0), WEIGHT / 4)  # weight on the stance feet
    tau_ff = np.column_stack([np.zeros(4), x * fz, -0.2 * np.sin(q_ref[:, 1] + q_ref[:, 2]) * fz])
    return KP * (q_ref.ravel() - s.enc) - KD * s.rate + tau_ff.ravel()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--t", type=float, default=3.0, help="simulated time [s]")
    ap.add_argument("--path", choices=["event", "smooth"], default="event", help="contact path")
    ap.add_argument("--plot", help="save a figure to this file")
    args = ap.parse_args(argv)
    res = build(args.path).simulate(args.t, controller, q0=Q0)
    roll, pitch, _ = np.degrees(Rotation.from_quat(res.x[:, 3:7]).as_euler("xyz")).T
    dist, t_walk = res.x[-1, 0] - np.interp(T_STAND, res.t, res.x[:, 0]), res.t[-1] - T_STAND
    print(f"walked {dist:.3f} m in {t_walk:.1f} s ({dist / t_walk:.3f} m/s), trunk height "
          f"{res.x[:, 2].min():.3f}..{res.x[:, 2].max():.3f} m, roll {roll.min():.1f}..{roll.max():.1f} deg, "
          f"pitch {pitch.min():.1f}..{pitch.max():.1f} deg; standing, the feet carry "
          f"{res.output('fn_total')[(res.t > 0.2) & (res.t < T_STAND)].mean() / WEIGHT:.3f} m g")
    if args.plot:  # trunk position, roll and pitch, each foot's normal force
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(3, 1, sharex=True, figsize=(8, 8))
        fn = np.transpose([res.output(f"fn_{p}") for p in FEET])
        for ax, y, lab in zip(axes, (res.x[:, :3], np.transpose([roll, pitch]), fn), ("trunk x, y, z [m]",
                              "roll, pitch [deg]", "FR, FL, RR, RL normal force [N]"), strict=True):
            ax.plot(res.t, y)
            ax.set_ylabel(lab)
        fig.savefig(args.plot, dpi=120)
    return res


if __name__ == "__main__":
    run_script(main)
