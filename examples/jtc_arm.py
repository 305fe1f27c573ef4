"""Classical Jacobian Transpose Control (CJTC thesis §2.1, eqs. 3–8, Fig. 5): a planar 2-link arm whose end
point follows a circle under τ = Jᵀ[K_p(x_cmd − x) + K_d(ẋ_cmd − ẋ)] + G(q), at 300 Hz, then is pushed by
10 N and yields F / K_p. CJTC with u = the end point's (x, y) is exactly this law.

    python examples/jtc_arm.py [--plot jtc_arm.png]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from legsim.cli import run_script

KP, KD = 1000.0, 60.0
RATE = 300.0
CENTRE, RADIUS, PERIOD = np.array([0.4, 0.2]), 0.08, 4.0


def circle(t):
    """Commanded end point (2,) [m] and its rate (2,) [m/s]: one turn per PERIOD after 1 s at rest."""
    w = 2 * math.pi / PERIOD
    a = w * max(0.0, t - 1.0)
    on = t >= 1.0
    return (CENTRE + RADIUS * np.array([math.cos(a), math.sin(a)]),
            RADIUS * w * np.array([-math.sin(a), math.cos(a)]) * on)


def run(t_final: float = 7.0, push_at: float = 5.0):
    from legsim.assembly import Robot, TorqueSource
    from legsim.control import CJTC, Kinematics, PointCoordinate, solve_configuration
    from legsim.examples import two_link_arm
    from legsim.hybrid import Options

    mb = two_link_arm.build()
    kin = Kinematics(mb)
    u = [PointCoordinate(kin, "tip", "x"), PointCoordinate(kin, "tip", "y")]
    jtc = CJTC(u, [KP, KP], [KD, KD], active=["l1", "l2"], gravity="full")
    log = []

    def controller(t, s):
        q, qd = s.x[:2], s.x[2:4]
        x_cmd, xd_cmd = circle(min(t, push_at))
        out = jtc.step(q, qd, x_cmd, xd_cmd if t < push_at else np.zeros(2))
        push = np.array([10.0, 0.0]) if t >= push_at else np.zeros(2)
        log.append((t, *out.u, *x_cmd))
        return out.tau + out.J.T @ push  # the push enters as its joint torques

    q0 = solve_configuration(u, circle(0.0)[0], np.array([0.3, 1.2]))
    robot = Robot(mb, actuators=[TorqueSource("t1", "l1"), TorqueSource("t2", "l2")], control_period=1 / RATE)
    robot.simulate(t_final, controller, q0=q0, progress=False,
                   options=Options(method="rk4_fixed", h_max=1e-3, record_period=1 / RATE))
    return np.array(log)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plot", default=None)
    a = ap.parse_args(argv)
    log = run()
    t, x, x_cmd = log[:, 0], log[:, 1:3], log[:, 3:5]
    track = (t > 2.0) & (t < 5.0)
    err = np.linalg.norm(x - x_cmd, axis=1)
    print(f"JTC 2-link arm at {RATE:g} Hz, k_p {KP:g} N/m, k_d {KD:g} N s/m:")
    print(f"  circle r {RADIUS * 100:g} cm in {PERIOD:g} s: tracking error mean "
          f"{1e3 * err[track].mean():.2f} mm, max {1e3 * err[track].max():.2f} mm")
    push = t > 6.5
    print(f"  a 10 N push moves the end point {1e3 * (x[push, 0] - x_cmd[push, 0]).mean():.2f} mm "
          f"(F / k_p = {1e3 * 10 / KP:.2f} mm)")
    if a.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 5))
        ax.plot(x_cmd[:, 0], x_cmd[:, 1], "--", label="commanded")
        ax.plot(x[:, 0], x[:, 1], label="end point")
        ax.set_aspect("equal")
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.legend()
        fig.savefig(a.plot, dpi=90)
        print(f"wrote {a.plot}")
    return 0


if __name__ == "__main__":
    run_script(main)
