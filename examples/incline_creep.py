"""A block resting on an incline below tan(theta) = mu: legsim's anchor-spring friction holds it,
MuJoCo's regularised friction lets it creep (google-deepmind/mujoco#3328).

A 1 kg box (0.1 x 0.1 x 0.05 m) sits on a plane inclined at theta = atan(0.8 mu), mu = 0.5, so
static friction can hold it with a 20 % margin. Any steady downhill motion is creep.

- legsim, anchor-spring friction (Konyev (2.21), §2.3.9): per contact an anchor is set at
  the onset; the tangential force is ``-(g(|v|)/|v| v / n + K_I s)`` with ``s`` the displacement
  from the anchor (the integral loop), saturated at ``mu F_n`` (the anchor slides when saturated).
  Below the friction limit the spring ``K_I s`` carries the load with zero slip velocity, so the
  block moves only by the springs' static stretch (``m g sin(theta) / (4 K_I)``) and then stops.
  ``RigidWorld`` at 0.1 ms, normal law (2.20) with k = 1e5 N/m.
- legsim, the same law in the event-located model (``legsim.world.event_contact_model``: the
  box's corners are event contacts on the inclined plane, the anchor is a state set at the
  located onset and integrated with the motion, DP45 at rtol 1e-8): the same static stretch, and
  a creep rate of zero to the integration tolerance.
- legsim, regularised Coulomb ``-mu F_n v / sqrt(|v|^2 + v_eps^2)`` (v_eps = 1 mm/s): the same
  failure as MuJoCo's, for reference (a regularised law needs slip to make force).
- MuJoCo, default soft contact at its default 2 ms step, pyramidal (default) and elliptic cones.

Creep is the downhill displacement of the block's centre; the printed creep rate is the mean
downhill speed over the second half of the run. Usage:
``python examples/incline_creep.py --out DIR [--quick]`` (quick: 2 s instead of 5 s).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.contact import Box as BoxShape
from legsim.contact import (
    ContactLaw,
    LawTable,
    Plane,
    RigidWorld,
    anchor_spring,
    coulomb,
    inclined_plane,
    restitution,
)
from legsim.viz.example_cli import run_example

G = 9.81
MU = 0.5
THETA = math.atan(0.8 * MU)  # rad
HALF = (0.05, 0.05, 0.025)  # m, box half extents
MASS = 1.0  # kg
K_NORMAL = 1e5  # N/m per contact
K_ANCHOR = 2e4  # N/m per contact (K_I)
DT_LEGSIM = 1e-4
DT_MUJOCO = 2e-3  # MuJoCo's default timestep
NORMAL = np.array([-math.sin(THETA), 0.0, math.cos(THETA)])
DOWNHILL = -np.array([math.cos(THETA), 0.0, math.sin(THETA)])

MJCF = """<mujoco>
  <compiler angle="radian"/>
  <option timestep="{dt}" cone="{cone}" gravity="0 0 -{g}"/>
  <worldbody>
    <geom name="slope" type="plane" size="5 5 0.1" euler="0 {tilt} 0" friction="{mu} 0.005 0.0001"/>
    <body name="block" pos="{px} {py} {pz}" euler="0 {tilt} 0">
      <freejoint/>
      <geom type="box" size="{hx} {hy} {hz}" mass="{m}" friction="{mu} 0.005 0.0001"/>
    </body>
  </worldbody>
</mujoco>"""


def _law(friction: str) -> ContactLaw:
    fric = (anchor_spring(MU, K_ANCHOR, n=1.0, brk=1.5, damping=200.0, v_th=1e-3, v_min=1e-3)
            if friction == "anchor" else coulomb(MU, v_eps=1e-3))
    return ContactLaw(restitution(K_NORMAL, 0.3, v_min=0.05), fric)


REST = MASS * G * math.cos(THETA) / (4 * K_NORMAL)  # static depth of each corner, m
P0 = NORMAL * (HALF[2] - REST)  # start position of the box centre, m (at its static depth)


def legsim_block(friction: str, t_final: float):
    """Box on the incline in legsim with ``friction`` = "anchor" or "coulomb"; returns (t, s_downhill)."""
    world = RigidWorld(LawTable(1, _law(friction)))
    c, s = math.cos(-THETA), math.sin(-THETA)
    rot = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    world.add_solid(BoxShape(HALF), mass=MASS, pos=P0, rot=rot)
    world.scene.add(inclined_plane(THETA))
    rec = world.simulate(t_final, DT_LEGSIM, record_every=100)
    pos = rec.pos[:, 0, :]
    return np.r_[0.0, rec.t], np.r_[0.0, (pos - P0) @ DOWNHILL]


def legsim_block_events(t_final: float):
    """The anchor-spring box in the event-located model (corners as event contacts on the tilted
    plane, anchor as a state); returns (t, s_downhill)."""
    from legsim.hybrid import Options, simulate
    from legsim.multibody import RobotBuilder
    from legsim.world import event_contact_model

    b = RobotBuilder("block")
    b.add_body("block", "world", "free", mass=MASS, inertia=MASS / 3.0 * np.array(
        [HALF[1] ** 2 + HALF[2] ** 2, HALF[0] ** 2 + HALF[2] ** 2, HALF[0] ** 2 + HALF[1] ** 2]))
    b.add_geometry("block", "box", size=tuple(2.0 * h for h in HALF), material="block")
    q0 = np.r_[P0, 0.0, math.sin(-THETA / 2.0), 0.0, math.cos(-THETA / 2.0)]  # tilted by -theta about y
    model = event_contact_model(b.compile(), _law("anchor"), ground=Plane(tuple(NORMAL), 0.0), q0=q0)
    res = simulate(model, t_final, options=Options(method="dp45", rtol=1e-8, atol=1e-12, record_period=0.01),
                   progress=False)
    return res.t, (res.x[:, :3] - P0) @ DOWNHILL


def mujoco_block(cone: str, t_final: float):
    """Box on the incline in MuJoCo (default contact, ``cone`` = "pyramidal"/"elliptic");
    returns (t, s_downhill)."""
    import mujoco

    p0 = NORMAL * HALF[2]
    m = mujoco.MjModel.from_xml_string(MJCF.format(dt=DT_MUJOCO, cone=cone, g=G, tilt=-THETA, mu=MU,
                                                   px=p0[0], py=p0[1], pz=p0[2], hx=HALF[0], hy=HALF[1],
                                                   hz=HALF[2], m=MASS))
    d = mujoco.MjData(m)
    n = int(round(t_final / DT_MUJOCO))
    every = max(1, int(round(0.01 / DT_MUJOCO)))
    t, s = [0.0], [0.0]
    for k in range(n):
        mujoco.mj_step(m, d)
        if (k + 1) % every == 0:
            t.append(d.time)
            s.append(float((d.qpos[:3] - p0) @ DOWNHILL))
    return np.array(t), np.array(s)


def run(quick: bool = False) -> dict:
    """Every variant; returns {name: {"t", "s", "final", "rate"}} plus "t_final"."""
    t_final = 2.0 if quick else 5.0
    runs = {"legsim anchor-spring (2.21)": legsim_block("anchor", t_final),
            "legsim anchor-spring, events": legsim_block_events(t_final),
            "legsim regularised Coulomb": legsim_block("coulomb", t_final),
            "MuJoCo pyramidal cone": mujoco_block("pyramidal", t_final),
            "MuJoCo elliptic cone": mujoco_block("elliptic", t_final)}
    out: dict = {"t_final": t_final, "theta": THETA, "mu": MU}
    for name, (t, s) in runs.items():
        half = t >= t_final / 2
        rate = (s[-1] - s[half][0]) / (t[-1] - t[half][0])
        out[name] = {"t": t, "s": s, "final": float(s[-1]), "rate": float(rate)}
    return out


def report(res: dict) -> str:
    lines = [f"block on an incline, tan(theta) = {math.tan(res['theta']):.3f} < mu = {res['mu']}, "
             f"{res['t_final']:g} s",
             "variant                      | downhill displacement at end | creep rate (2nd half)"]
    for name, r in res.items():
        if isinstance(r, dict):
            lines.append(f"{name:28s} | {r['final'] * 1e3:12.6f} mm{'':14s} | {r['rate'] * 1e3:.3e} mm/s")
    return "\n".join(lines)


def plot(res: dict, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, r in res.items():
        if isinstance(r, dict):
            ax1.plot(r["t"], r["s"] * 1e3, label=name)
    ax1.set_xlabel("t [s]")
    ax1.set_ylabel("downhill displacement [mm]")
    ax1.set_title(f"Block on an incline, tanθ = 0.8 μ (μ = {res['mu']})")
    ax1.legend(fontsize=8)
    for k, name in enumerate(("legsim anchor-spring (2.21)", "legsim anchor-spring, events")):
        ax2.plot(res[name]["t"], res[name]["s"] * 1e6, color=f"C{k}", label=name)
    ax2.legend(fontsize=8)
    ax2.set_xlabel("t [s]")
    ax2.set_ylabel("downhill displacement [µm]")
    ax2.set_title("legsim anchor-spring: static stretch, then no creep")
    fig.tight_layout()
    path = out / "incline_creep.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


def main(argv=None) -> dict:
    return run_example(__doc__, run, report, plot, "2 s instead of 5 s (tests)", argv)


if __name__ == "__main__":
    run_script(lambda: main(sys.argv[1:]))
