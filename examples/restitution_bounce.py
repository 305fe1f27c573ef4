"""Bounce with a requested coefficient of restitution: legsim's (2.20) law next to MuJoCo.

MuJoCo has no coefficient of restitution (google-deepmind/mujoco#2080): its soft contact is set by
``solref = (timeconst, dampratio)``, so the bounce a user gets follows from those settings and the
impact. legsim's restitution-parameterised normal law (Konyev (2.20), §2.3.9)

    F_n = k p (1 + D / max(v_impact, v_min) * pdot),   D = D(eps)

latches the impact velocity at each contact onset and takes ``D`` from the exact phase-plane
inversion (``restitution(..., exact=True)``, see ``legsim.contact.laws``), so the rebound is the
requested ``eps`` for every impact speed.

What is run: a sphere (r = 20 mm, m = 0.1 kg) dropped on a plane from heights 0.05, 0.2 and
0.8 m (impact speeds ≈ 1, 2, 4 m/s), for eps = 0.3, 0.5, 0.7, 0.9.

- legsim: ``RigidWorld``, k = 1e6 N/m, fixed step 10 µs.
- MuJoCo: the same sphere, timestep 1 ms (Euler), (a) default ``solref = (0.02, 1)``;
  (b) ``solref = (0.02, zeta(eps))`` with ``zeta = -ln eps / sqrt(pi^2 + ln^2 eps)``, the damping
  ratio that gives ``eps`` for a linear spring-damper: the natural way to ask MuJoCo for ``eps``.

Achieved restitution is measured from the bounce itself: ``e = sqrt(H1 / H0)`` with H1 the apex
of the first rebound (gravity acts during the contact too, so this is the bounce a user sees).

Usage: ``python examples/restitution_bounce.py --out DIR [--quick]``; prints a table and writes
``restitution_vs_speed.png`` and ``bounce_trajectories.png`` into DIR.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.contact import ContactLaw, LawTable, Plane, RigidWorld, Sphere, restitution
from legsim.viz.example_cli import run_example

G = 9.81
RADIUS = 0.02  # m
MASS = 0.1  # kg
K_LEGSIM = 1e6  # N/m
DT_LEGSIM = 1e-5  # s
DT_MUJOCO = 1e-3  # s
TIMECONST = 0.02  # s, MuJoCo's default solref[0]

MJCF = """<mujoco>
  <compiler angle="radian"/>
  <option timestep="{dt}" gravity="0 0 -{g}"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" solref="{tc} {dr}"/>
    <body name="ball" pos="0 0 {z0}">
      <freejoint/>
      <geom type="sphere" size="{r}" mass="{m}" solref="{tc} {dr}"/>
    </body>
  </worldbody>
</mujoco>"""


def damping_ratio(eps: float) -> float:
    """Damping ratio of a linear spring-damper whose half-oscillation rebounds with ``eps``."""
    le = math.log(eps)
    return -le / math.sqrt(math.pi**2 + le * le)


def legsim_drop(eps: float, height: float, t_final: float | None = None):
    """Drop the sphere from ``height`` [m] (gap to the plane) in legsim; returns (t, z, e_achieved)."""
    world = RigidWorld(LawTable(1, ContactLaw(restitution(K_LEGSIM, eps, exact=True))))
    world.add_solid(Sphere(RADIUS), mass=MASS, pos=(0.0, 0.0, RADIUS + height))
    world.scene.add(Plane())
    first_apex = 2.0 * math.sqrt(2.0 * height / G) + 0.01
    rec = world.simulate(t_final or first_apex, DT_LEGSIM, record_every=10)
    z = rec.pos[:, 0, 2] - RADIUS
    return rec.t, z, _first_bounce(z, rec.ncontact > 0, height)


def mujoco_drop(eps: float | None, height: float, t_final: float | None = None):
    """Drop the sphere in MuJoCo with solref (0.02, zeta(eps)), or the default (0.02, 1) for
    ``eps=None``; returns (t, z, e_achieved)."""
    import mujoco

    dr = 1.0 if eps is None else damping_ratio(eps)
    m = mujoco.MjModel.from_xml_string(MJCF.format(dt=DT_MUJOCO, g=G, tc=TIMECONST, dr=dr, z0=RADIUS + height,
                                                   r=RADIUS, m=MASS))
    d = mujoco.MjData(m)
    n = int(round((t_final or 2.0 * math.sqrt(2.0 * height / G) + 0.1) / DT_MUJOCO))
    t, z, touch = np.empty(n), np.empty(n), np.empty(n, dtype=bool)
    for k in range(n):
        mujoco.mj_step(m, d)
        t[k], z[k], touch[k] = d.time, d.qpos[2] - RADIUS, d.ncon > 0
    return t, z, _first_bounce(z, touch, height)


def _first_bounce(z, touching, height):
    """sqrt(apex of the first rebound / drop height); 0 if the body never leaves the ground."""
    if not touching.any():
        raise RuntimeError("the ball never reached the ground: simulate longer")
    i0 = int(np.argmax(touching))
    after = np.flatnonzero(~touching[i0:])
    if after.size == 0:
        return 0.0
    i1 = i0 + int(after[0])
    apex = float(z[i1:].max())
    return math.sqrt(max(apex, 0.0) / height)


def run(quick: bool = False) -> dict:
    """All drops; returns {"eps": (ne,), "height": (nh,), "v_impact": (nh,), "legsim": (ne, nh),
    "mujoco": (ne, nh), "mujoco_default": (nh,), "traj": {...}}."""
    eps_list = (0.3, 0.9) if quick else (0.3, 0.5, 0.7, 0.9)
    heights = (0.05, 0.8) if quick else (0.05, 0.2, 0.8)
    ls = np.array([[legsim_drop(e, h)[2] for h in heights] for e in eps_list])
    mj = np.array([[mujoco_drop(e, h)[2] for h in heights] for e in eps_list])
    mj0 = np.array([mujoco_drop(None, h)[2] for h in heights])
    t_traj = 1.0 if quick else 2.5
    eps_traj, h_traj = 0.7, 0.5
    traj = {"eps": eps_traj, "height": h_traj,
            "legsim": legsim_drop(eps_traj, h_traj, t_traj)[:2],
            "mujoco": mujoco_drop(eps_traj, h_traj, t_traj)[:2],
            "mujoco_default": mujoco_drop(None, h_traj, t_traj)[:2]}
    return {"eps": np.array(eps_list), "height": np.array(heights),
            "v_impact": np.sqrt(2 * G * np.array(heights)), "legsim": ls, "mujoco": mj,
            "mujoco_default": mj0, "traj": traj}


def report(res: dict) -> str:
    lines = ["requested e | impact speed [m/s] | legsim e (err %) | MuJoCo solref(0.02, zeta(e)) e (err %)"]
    for i, e in enumerate(res["eps"]):
        for j, v in enumerate(res["v_impact"]):
            a, b = res["legsim"][i, j], res["mujoco"][i, j]
            lines.append(f"{e:11.2f} | {v:18.3f} | {a:.4f} ({100 * (a / e - 1):+6.2f}) | "
                         f"{b:.4f} ({100 * (b / e - 1):+6.2f})")
    lines.append("MuJoCo default solref (0.02, 1): e = "
                 + ", ".join(f"{x:.4f}" for x in res["mujoco_default"]) + " at the same speeds")
    worst_ls = np.abs(res["legsim"] / res["eps"][:, None] - 1).max()
    worst_mj = np.abs(res["mujoco"] / res["eps"][:, None] - 1).max()
    lines.append(f"worst relative error: legsim {100 * worst_ls:.2f} %, MuJoCo (calibrated solref) "
                 f"{100 * worst_mj:.2f} %")
    return "\n".join(lines)


def plot(res: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    files = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, e in enumerate(res["eps"]):
        c = colors[i % len(colors)]
        ax.axhline(e, color=c, lw=0.8, ls=":")
        ax.plot(res["v_impact"], res["legsim"][i], "o-", color=c, label=f"legsim (2.20), e = {e:g}")
        ax.plot(res["v_impact"], res["mujoco"][i], "s--", color=c, mfc="none",
                label=f"MuJoCo solref (0.02, ζ({e:g}))")
    ax.plot(res["v_impact"], res["mujoco_default"], "x-", color="k", label="MuJoCo default solref")
    ax.set_xlabel("impact speed [m/s]")
    ax.set_ylabel("achieved restitution √(H1/H0)")
    ax.set_title("Requested vs achieved restitution (dotted: requested)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    files.append(out / "restitution_vs_speed.png")
    fig.savefig(files[-1], dpi=120)
    plt.close(fig)

    tr = res["traj"]
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("legsim", f"legsim, e = {tr['eps']}"),
                       ("mujoco", f"MuJoCo solref (0.02, ζ({tr['eps']}))"),
                       ("mujoco_default", "MuJoCo default solref")):
        t, z = tr[key]
        ax.plot(t, z * 1e3, label=label)
    t = np.linspace(0, tr["legsim"][0][-1], 4000)
    ax.plot(t, 1e3 * _ideal_bounce(t, tr["height"], tr["eps"]), "k:", lw=1, label="ideal impact law")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("gap [mm]")
    ax.set_title(f"Ball dropped from {tr['height']} m")
    ax.legend(fontsize=8)
    fig.tight_layout()
    files.append(out / "bounce_trajectories.png")
    fig.savefig(files[-1], dpi=120)
    plt.close(fig)
    return files


def _ideal_bounce(t, h0, e):
    """Height of an ideal point ball with instantaneous impacts of restitution e."""
    z = np.empty_like(t)
    t_hit = math.sqrt(2 * h0 / G)
    v = math.sqrt(2 * G * h0)
    start, z0, v0 = 0.0, h0, 0.0
    for k, tk in enumerate(t):
        while tk > start + (t_hit if z0 > 0 else 2 * v0 / G) and v > 1e-3:
            start += t_hit if z0 > 0 else 2 * v0 / G
            v = e * (v if z0 > 0 else v0)
            z0, v0 = 0.0, v
        s = tk - start
        z[k] = max(0.0, z0 + v0 * s - 0.5 * G * s * s)
    return z


def main(argv=None) -> dict:
    return run_example(__doc__, run, report, plot, "fewer cases and a shorter trajectory (tests)", argv)


if __name__ == "__main__":
    run_script(lambda: main(sys.argv[1:]))
