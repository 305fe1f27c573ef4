"""The co-simulation artefact of Daepp (2011) (legsim's acceptance check A10), in simulated time.

The thesis split its leg simulation over UDP: the xPC target (1 kHz Simulink: controller and
actuators) sent joint torques to SrLib, which stepped the rigid bodies and sent joint angles and
velocities back. With realtime UDP on a dedicated NIC the round trip was 3–4 ms and the results were
sound; in the old configuration xPC's buffered UDP task paused for up to ~100 ms (one of 90 ms in a
Wireshark trace) and the results showed erroneous steps and high-frequency oscillation (Fig. 51).

Here the simulated 3-DoF CRR leg (``legsim.realtime.sil.crr_leg_robot``: torque sources, ideal
angle and velocity sensors) is driven by the PD controller of ``examples/sil_controller.py`` through
two :class:`legsim.realtime.timing.LinkModel` links, deterministically:

* ``ideal`` — one period of exchange, no network delay;
* ``3-4 ms`` — a one-way delay uniform in 1.5–2 ms each way (a 3–4 ms round trip);
* ``pauses`` — the same, plus two exchange pauses, 95 ms at t = 1.0 s and 90 ms at t = 2.0 s
  (packets held and delivered in a burst at the end, as xPC's buffered task did).

Two controller sides: ``clocked`` (the thesis's target: it computes every 1 ms in its own time from
the newest measurement it holds, stale during a pause, while its reference moves on) and
``event`` (our SiL client: it computes only when a new measurement arrives). Printed per case: the
largest joint deviation from the ideal run [mrad], the torque peak after the start-up (t > 0.2 s)
[N m], and the largest torque change in one period [N m].

    python examples/sil_cosim_artefact.py
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from legsim.cli import run_script
from legsim.realtime.sil import CRR_POSTURE, RobotPlant, crr_leg_robot
from legsim.realtime.timing import LinkModel, run_exchange

PAUSES = ((1.0, 0.095), (2.0, 0.090))
"""Exchange pauses (start, duration) [s]: the thesis's 90–100 ms."""
ONE_WAY = (1.5e-3, 2.0e-3)
"""One-way delay range [s]: a 3–4 ms round trip (Daepp (2011) §5.3.2)."""


def _pd_class():
    path = Path(__file__).with_name("sil_controller.py")
    spec = importlib.util.spec_from_file_location("sil_controller", path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.PDController


def run_case(robot, delay, pauses, clocked: bool, t_final: float = 3.0) -> dict[str, np.ndarray]:
    """The leg's log (t, q, v, u) for one link configuration."""
    plant = RobotPlant(robot, q0=np.array(CRR_POSTURE))
    period = robot.control_period
    up, down = LinkModel(delay, pauses=pauses, seed=1), LinkModel(delay, pauses=pauses, seed=2)
    run_exchange(plant, _pd_class()(), period=period, t_final=t_final, up=up, down=down, u0=np.zeros(3),
                 clocked=clocked)
    return plant.log()


def experiment(t_final: float = 3.0) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """{clocked|event: {ideal|3-4 ms|pauses: {deviation_mrad (3,), torque_peak (3,), torque_step (3,)}}}."""
    robot = crr_leg_robot(1e-3)
    out: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for side, clocked in (("clocked", True), ("event", False)):
        logs = {"ideal": run_case(robot, 0.0, (), clocked, t_final),
                "3-4 ms": run_case(robot, ONE_WAY, (), clocked, t_final),
                "pauses": run_case(robot, ONE_WAY, PAUSES, clocked, t_final)}
        ideal = logs["ideal"]
        late = ideal["t"] > 0.2
        out[side] = {name: {"deviation_mrad": 1e3 * np.abs(log["q"] - ideal["q"]).max(axis=0),
                            "torque_peak": np.abs(log["u"][late]).max(axis=0),
                            "torque_step": np.abs(np.diff(log["u"][late], axis=0)).max(axis=0)}
                     for name, log in logs.items()}
    return out


def main(argv=None) -> int:
    res = experiment()
    print("controller  link     deviation from ideal [mrad]   torque peak [N m]     "
          "largest torque step [N m]")
    for side, cases in res.items():
        for name, m in cases.items():
            print(f"{side:10s}  {name:7s}  " + "  ".join(f"{x:6.2f}" for x in m["deviation_mrad"]) + "    "
                  + "  ".join(f"{x:5.2f}" for x in m["torque_peak"]) + "    "
                  + "  ".join(f"{x:5.3f}" for x in m["torque_step"]))
    return 0


if __name__ == "__main__":
    run_script(lambda: main(sys.argv[1:]))
