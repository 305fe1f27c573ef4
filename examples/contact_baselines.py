"""Force-based contact laws vs the LCP (Lemke) baseline on the trade-off cases of Konyev §2.3.

M. Konyev, "Contact Processing within Walking Robots' Design" (2011), §2.3.5 and §2.3.10, weighs the
penalty (force-based) laws the thesis chose against the constraint/LCP update it rejected without
running it. Three cases, one 1 kg sphere (r = 50 mm) on a plane, SI units:

- bounce: launched at the plane at 2.215 m/s (the speed of a 0.25 m drop) with gravity off, so the
  rebound is the contact law's alone; requested restitution e = 0.5. Force-based: (2.20) with the
  exact D inversion at Ts = 0.1 ms; LCP: Newton restitution at the velocity level. Closed form:
  rebound speed = e × impact speed.
- resting: 2 s on the plane. Force-based (2.20), k = 1e5 N/m: depth m g / k = 98.1 µm, force m g.
  LCP: the depth stays at its slop (1e-5 m, a chosen parameter), impulse exactly m g h.
- sliding: launched at 2 m/s without spin, mu = 0.4. Closed form: deceleration mu g while it slips,
  rolling at 5/7 v0 after t = 2 v0 / (7 mu g). Force-based: regularised Coulomb (v_eps = 1e-3 m/s).

The LCP runs at h = 1 ms and at the thesis' 0.1 ms. Usage:
``python examples/contact_baselines.py --out DIR [--quick]`` (quick: the LCP at 1 ms only).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.contact import ContactLaw, LawTable, Plane, RigidWorld, Sphere, coulomb, restitution
from legsim.contact.lcp import simulate_lcp
from legsim.viz.example_cli import run_example

G = 9.81
R, M = 0.05, 1.0  # sphere radius [m], mass [kg]
K = 1e5  # N/m, the force laws' stiffness
EPS, MU, V0 = 0.5, 0.4, 2.0
TS = 1e-4  # s, the thesis' discrete step
SLOP = 1e-5  # m, depth the LCP leaves uncorrected


def _world(z0, vel=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, -G)):
    w = RigidWorld(LawTable(1, ContactLaw(restitution(K, EPS, exact=True), coulomb(MU, v_eps=1e-3))),
                   gravity=gravity)
    w.add_solid(Sphere(R), mass=M, pos=(0.0, 0.0, z0), vel=vel)
    w.scene.add(Plane())
    return w


def _run(method, z0, t_final, vel=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, -G)):
    """(records, step) of one case: method "force" (RigidWorld at TS) or "lcp <h>"."""
    w = _world(z0, vel, gravity)
    if method == "force":
        return w.simulate(t_final, TS), TS
    h = float(method.split()[1])
    return simulate_lcp(w, t_final, h, mu=MU, restitution=EPS, slop=SLOP), h


def bounce(method):
    """First bounce: impact and rebound speeds from the last record before and the first after contact."""
    v0 = math.sqrt(2 * G * 0.25)
    res, h = _run(method, R + 1e-3, 0.03, vel=(0.0, 0.0, -v0), gravity=(0.0, 0.0, 0.0))
    touching = res.ncontact > 0
    k0 = int(np.argmax(touching))
    k1 = k0 + int(np.argmax(~touching[k0:]))
    v_in, v_out = -res.vel[k0, 0, 2], res.vel[k1, 0, 2]
    pushing = res.contact_force[:, 0, 2] > 0
    return {"v_in": v_in, "v_out": v_out, "e": v_out / v_in, "duration": float(pushing.sum() * h),
            "peak": float(res.contact_force[:, 0, 2].max()), "t": res.t, "z": res.pos[:, 0, 2]}


def resting(method):
    z0 = R - (M * G / K if method == "force" else SLOP)
    res, _ = _run(method, z0, 2.0)
    depth = R - res.pos[:, 0, 2]
    fz = res.contact_force[:, 0, 2]
    late = res.t >= 1.0
    return {"depth": float(depth[-1]), "drift": float(abs(depth[-1] - depth[np.argmax(late)])),
            "f_mean": float(fz[late].mean()), "f_std": float(fz[late].std())}


def sliding(method):
    res, h = _run(method, R - (M * G / K if method == "force" else SLOP), 0.5, vel=(V0, 0.0, 0.0))
    vx = res.vel[:, 0, 0]
    t_roll = 2 * V0 / (7 * MU * G)
    slip = (res.t > 0.01) & (res.t < t_roll - 0.01)
    decel = -float(np.polyfit(res.t[slip], vx[slip], 1)[0])
    return {"decel": decel, "v_end": float(vx[-1]), "roll": float(res.omega[-1, 0, 1] * R / vx[-1]),
            "t": res.t, "vx": vx}


def run(quick: bool = False) -> dict:
    methods = ["force", "lcp 1e-3"] + ([] if quick else ["lcp 1e-4"])
    return {m: {"bounce": bounce(m), "resting": resting(m), "sliding": sliding(m)} for m in methods}


def report(res: dict) -> str:
    name = {"force": "force (2.20)+Coulomb, Ts=0.1 ms", "lcp 1e-3": "LCP Lemke, h=1 ms",
            "lcp 1e-4": "LCP Lemke, h=0.1 ms"}
    lines = [f"{'method':34s} | {'bounce e':>9s} {'pushing':>9s} {'peak F':>8s} | "
             f"{'rest depth':>11s} {'drift':>8s} {'F mean':>9s} {'F std':>8s} | {'decel':>7s} "
             f"{'v_end/v0':>9s} "
             f"{'omega r/v':>9s}",
             f"{'closed form':34s} | {EPS:9.4f} {'—':>9s} {'—':>8s} | {'mg/k|slop':>11s} {0:8.1e} "
             f"{M * G:9.4f} {0:8.1e} | {MU * G:7.4f} {5 / 7:9.5f} {1:9.5f}"]
    for m, r in res.items():
        b, s, sl = r["bounce"], r["resting"], r["sliding"]
        lines.append(
            f"{name[m]:34s} | {b['e']:9.4f} {b['duration'] * 1e3:7.2f}ms "
            f"{b['peak']:8.1f} | {s['depth'] * 1e6:9.3f}µm {s['drift']:8.1e} {s['f_mean']:9.6f} "
            f"{s['f_std']:8.1e} | {sl['decel']:7.4f} {sl['v_end'] / V0:9.5f} {sl['roll']:9.5f}")
    return "\n".join(lines)


def plot(res: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.4))
    for m, r in res.items():
        a1.plot(r["bounce"]["t"], r["bounce"]["z"] * 1e3, label=m, lw=0.9)
        a2.plot(r["sliding"]["t"], r["sliding"]["vx"], label=m, lw=0.9)
    a2.axhline(5 / 7 * V0, color="k", ls=":", lw=0.8, label="5/7 v0")
    a1.set(xlabel="t [s]", ylabel="centre height [mm]", title=f"bounce (no gravity), e = {EPS}")
    a2.set(xlabel="t [s]", ylabel="v_x [m/s]", title=f"sliding sphere, μ = {MU}")
    a1.legend(fontsize=7)
    a2.legend(fontsize=7)
    fig.tight_layout()
    path = out / "contact_baselines.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


def main(argv=None) -> dict:
    return run_example(__doc__, run, report, plot, "the LCP at 1 ms only (tests)", argv)


if __name__ == "__main__":
    run_script(lambda: main(sys.argv[1:]))
