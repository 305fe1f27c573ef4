"""A one-leg pneumatic hopper from parts: the RATS leg (Wagenknecht 2009 §5.2) on a body sliding on a
vertical rail, fired by a controller written in Python.

The body (3.397 kg) rides a vertical rail; the leg is a prismatic joint (0.049 kg foot, 63 mm
stroke, end stops) pushed by a single-chamber cylinder on a 3-way solenoid valve fed from a tank at
0.724 MPa gauge (``SolenoidCylinder``, ``AirSupply``); the foot is a sphere on the ground. The
controller energises the valve for ``--fire`` ms once the robot rests on its foot; the script prints
the hop's apex rise beside the hop bench's (``HopBench``: the same leg and valve as a dedicated
hybrid model with rigid ground and an ideal end stop) and draws body height and chamber pressure.
The run's records go to ``--out`` as a run directory: ``legsim view OUT`` replays the hop in 3-D (the
run names this file's ``build`` to rebuild the robot) and ``legsim plot OUT`` draws every state.

With the default ``--exhaust trapped`` (the variant that reproduces the source's 26 cm, E4) the gas
stays in the chamber after the valve closes, so the landed leg is a gas spring and the robot keeps
bouncing; ``--exhaust orifice`` vents it through the valve's exhaust port (a 3-way valve's real
behaviour) and the robot lands on its retracted leg.

Run: ``python examples/pneumatic_hopper.py --out out/hopper [--fire 80] [--valve rubber]``
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

from legsim.actuators.pneumatic import SupplyTank
from legsim.actuators.pneumatic.gas import NITROGEN
from legsim.assembly import (
    AirSupply,
    ChamberPressure,
    ContactForce,
    Contacts,
    JointEncoder,
    Robot,
    SolenoidCylinder,
)
from legsim.cli import run_script
from legsim.contact import ContactLaw, coulomb, hunt_crossley
from legsim.hybrid import Options
from legsim.io import RunWriter
from legsim.multibody import RobotBuilder
from legsim.robots.pneumatic_rig.hop import PRESETS, HopBench
from legsim.userfiles import output_dir
from legsim.viz.scene import robot_builder

P_GAUGE = 0.724e6  # tank charge [Pa gauge] (E4)


def build(valve: str = "rubber", exhaust: str = "trapped") -> Robot:
    """The hopper: rail (body height z) and leg (extension x, downward) joints, foot contact."""
    b = RobotBuilder("pneumatic_hopper", limit_stiffness=2e5, limit_damping=200.0)
    b.add_body("body", "world", "prismatic", joint_name="rail", axis=(0, 0, 1), mass=3.397,
               inertia=np.eye(3) * 1e-2)
    b.add_body("foot", "body", "prismatic", joint_name="leg", axis=(0, 0, -1), xyz=(0, 0, -0.10),
               mass=0.049, inertia=np.eye(3) * 1e-6, limits=(0.0, 0.063))   # 63 mm stroke, end stops
    b.add_geometry("foot", "sphere", radius=0.01, name="foot_pad")
    pre = PRESETS[valve]
    sol = dataclasses.replace(pre["valve"], cv=pre["cv"]) if "cv" in pre else pre["valve"]
    tank = SupplyTank(temperature=298.15, gas=NITROGEN)
    flow = {0: "orifice", 1: "cv", 2: "cv_corrected"}[int(pre["flow"])]
    return Robot(b.compile(),
                 actuators=[SolenoidCylinder("leg", "leg", sol, "tank", flow=flow, exhaust=exhaust,
                                             exhaust_area=sol.area if sol.area > 0 else 1.6e-6)],
                 resources=[AirSupply("tank", tank, p0=P_GAUGE + tank.p_atm)],
                 sensors=[JointEncoder("z", joints=["rail"]), ContactForce("ground", geometries=["foot_pad"]),
                          ChamberPressure("p", actuators=["leg"])],
                 contacts=Contacts(ContactLaw(hunt_crossley(2e6, 0.3), coulomb(0.8, 0.01)),
                                   geometries=["foot_pad"]))


def hopper_controller(fire_ms: float, rest_s: float = 0.4):
    """Energise the valve for ``fire_ms`` once, after the foot has carried the weight for ``rest_s``."""
    state = {"since": 0.0, "fire_at": None}

    def controller(t, s):
        if state["fire_at"] is not None:
            return [1.0 if t < state["fire_at"] + fire_ms * 1e-3 - 1e-9 else 0.0]
        loaded = s.ground[2] > 0.9 * 3.446 * 9.81
        state["since"] = state["since"] if loaded else t
        if loaded and t - state["since"] >= rest_s:
            state["fire_at"] = t
            return [1.0]
        return [0.0]

    return controller


def apex_rise(res, robot: Robot) -> float:
    """Apex rise [m] of the body above its resting height when the valve first opened."""
    z = res.x[:, robot.model.state_names.index("rail")]
    valve = res.x[:, robot.model.state_names.index("leg_valve")]
    i = int(np.argmax(valve > 0.5))
    return float(z[i:].max() - z[i])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="hopper-out")
    ap.add_argument("--fire", type=float, default=80.0, help="valve energised [ms]")
    ap.add_argument("--valve", choices=sorted(PRESETS), default="rubber")
    ap.add_argument("--exhaust", choices=("trapped", "instant", "orifice"), default="trapped")
    ap.add_argument("--quick", action="store_true", help="a shorter flight")
    args = ap.parse_args(argv)
    robot = build(args.valve, args.exhaust)
    out = output_dir(Path(args.out), "the hop's records and figure")
    q0 = [0.12, 0.0]  # the foot 1 cm up: it settles onto the ground first
    meta = {"robot_builder": robot_builder(f"{__file__}:build", valve=args.valve, exhaust=args.exhaust),
            "fire_ms": args.fire}
    with RunWriter(out, robot.model, meta) as writer:  # records on disk as the run goes; a final status
        res = robot.simulate(1.8 if args.quick else 2.5, hopper_controller(args.fire), q0=q0, sinks=[writer],
                             options=Options(rtol=1e-8, atol=1e-10, h_max=1e-3, record_period=1e-3))
    ours = apex_rise(res, robot)
    bench = HopBench(args.valve, exhaust=args.exhaust).fire(args.fire, P_GAUGE)
    p_end = res.x[-1, robot.model.state_names.index("tank_p")]
    print(f"hop: {100 * ours:.1f} cm (hop bench: {100 * bench.height:.1f} cm; source E4, rubber valve, "
          f"0.724 MPa, 80 ms: 26 cm)")
    print(f"tank: {P_GAUGE / 1e6:.3f} -> {(p_end - 101325.0) / 1e6:.3f} MPa gauge")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    ax[0].plot(res.t, res.x[:, robot.model.state_names.index("rail")] * 100)
    ax[0].set_ylabel("body height [cm]")
    ax[1].plot(res.t, (res.x[:, robot.model.state_names.index("leg_p")] - 101325.0) / 1e6)
    ax[1].set_ylabel("chamber [MPa gauge]")
    ax[1].set_xlabel("t [s]")
    fig.savefig(out / "hopper.png", dpi=100)
    print(f"figure: {out / 'hopper.png'}; records: {out} (legsim view {out}: the hop in 3-D)")
    return {"hop": ours, "bench": bench.height, "result": res, "robot": robot}


if __name__ == "__main__":
    run_script(main)
