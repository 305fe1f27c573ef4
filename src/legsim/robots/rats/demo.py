"""RATS experiments (Wagenknecht 2009; digest shared/spec/rats-spherical-robot.md §4) on legsim's full
robot, each printing the source's figure beside legsim's and saving a plot: ``legsim demo rats_<name>``.

    legsim demo rats_hop        # E3-E5: single-leg hop height vs valve time (hop bench)
    legsim demo rats_tip        # E6: tip threshold vs pressure on the full robot, (6.6) fit
    legsim demo rats_legs       # E7: every leg's 40 ms hop at three pressures
    legsim demo rats_range      # E11-E13: straight-line tipping range from one charge (both valves)
    legsim demo rats_roll       # E16: rolling from rest toward several headings
    legsim demo rats_planner    # E18: the tipping planner on a circle and a figure-8, gamma sweep
    legsim demo rats_closed     # E14: closed-loop tipping with an uncommanded tip
    legsim demo rats_endurance  # E8-E10: repeated 40 ms firings from one charge, every 3 s
    legsim demo rats_landing    # E15: landing after a three-leg hop, unbalanced and balanced

``--out DIR`` (default ``rats_<name>-out``) takes the figure; ``rats_roll`` (its first heading) and
``rats_closed`` also write their run's records there and a 3-D replay (``rats_roll.html``,
``rats_closed.html``; ``legsim view DIR`` shows the records again). From Python, :func:`run_demo` with
``quick=True`` runs fewer points and shorter runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from ...userfiles import output_dir
from . import experiments as E
from . import geometry as geo
from .planner import circle_path, figure8_path, line_path, plan
from .robot import build


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def hop(out: Path, quick: bool) -> None:
    from ..pneumatic_rig.hop import HopBench

    ms = np.arange(10, 70, 10 if quick else 5)
    spool = [HopBench("spool").fire(float(m), 0.724e6).height for m in ms]
    rubber = [HopBench("rubber").fire(float(m), 0.724e6).height for m in ms]
    print("E3 spool valves, 0.724 MPa: no lift below 15 ms, plateau 31.75 cm from 50 ms (source)")
    print("   legsim:", ", ".join(f"{m} ms {100 * h:.1f} cm" for m, h in zip(ms, spool, strict=True)))
    print(f"E4 rubber valves, 0.724 MPa: max 26 cm (source); legsim max {100 * max(rubber):.1f} cm")
    high = HopBench("rubber").fire(80.0, 1.034e6).height
    print(f"E5 rubber valves, 1.034 MPa: max 33 cm (source); legsim {100 * high:.1f} cm (80 ms)")
    plt = _plt()
    plt.plot(ms, np.array(spool) * 100, "o-", label="spool (E3)")
    plt.plot(ms, np.array(rubber) * 100, "s-", label="rubber (E4)")
    plt.axhline(31.75, ls=":", c="C0")
    plt.axhline(26.0, ls=":", c="C1")
    plt.xlabel("valve time [ms]")
    plt.ylabel("hop height [cm]")
    plt.legend()
    plt.savefig(out / "rats_hop.png", dpi=100)


def legs(out: Path, quick: bool) -> None:
    pressures = E.E7_PRESSURES
    print("E7 every leg fired 40 ms at 0.379 / 0.552 / 0.758 MPa: higher pressure, higher hops for every "
          "leg; legs 4, 5, 11 strongest, 2, 3, 9 weakest at all pressures; the spread grows (source)",
          flush=True)
    rise, friction = E.per_leg_hops(pressures)
    print("   legsim (spool valves, the legs differing by a seeded +-15 % piston friction; the source gives "
          "no per-leg values):")
    for p, r in zip(pressures, rise, strict=True):
        order = np.argsort(r)
        print(f"   {p * 1e-6:.3f} MPa: mean {100 * r.mean():.1f} cm, spread (std) {100 * r.std():.2f} cm; "
              f"strongest legs {', '.join(str(k + 1) for k in order[::-1][:3])}, weakest "
              f"{', '.join(str(k + 1) for k in order[:3])}")
    print(f"   every leg higher at higher pressure: {bool(np.all(np.diff(rise, axis=0) > 0))}; the "
          f"highest-friction legs: {', '.join(str(k + 1) for k in np.argsort(friction)[::-1][:3])}")
    plt = _plt()
    for p, r in zip(pressures, rise, strict=True):
        plt.plot(np.arange(1, 13), r * 100, "o-", label=f"{p * 1e-6:.3f} MPa")
    plt.xticks(np.arange(1, 13))
    plt.xlabel("leg")
    plt.ylabel("apex rise of the centre [cm]")
    plt.legend()
    plt.savefig(out / "rats_legs.png", dpi=100)


def tip(out: Path, quick: bool) -> None:
    p = (0.2, 0.3, 0.45, 0.689) if quick else (0.15, 0.2, 0.3, 0.45, 0.6, 0.689, 0.8)  # (6.6) needs 4
    print("E6/(6.6): thresholds fall with pressure; the source's legs need 6-9 ms at 100 psi with its "
          "rubber valves (Table 6.1)", flush=True)
    model, th = E.calibrate_tip_model(p)
    print("   legsim:", ", ".join(f"{pi} MPa {t:.0f} ms" for pi, t in zip(p, th, strict=True)))
    print(f"   fit: a = {model.a:.3f}, b = {model.b:.4f}, c_res = {model.c_resistance[0]:.4f} MPa, "
          f"c_lat = {model.c_latency[0]:.3f} ms (source shape: a = 2.2584, b = -1.1795)")
    plt = _plt()
    pp = np.linspace(min(p), max(p), 100)
    plt.plot(p, th, "o", label="threshold (simulated)")
    plt.plot(pp, model.raw_time(np.zeros(pp.size, dtype=int), pp), label="(6.6) fit")
    plt.xlabel("tank pressure [MPa gauge]")
    plt.ylabel("valve time [ms]")
    plt.legend()
    plt.savefig(out / "rats_tip_threshold.png", dpi=100)


def range_(out: Path, quick: bool) -> None:
    t0 = time.time()
    print("E13 with compensation: 160 firings, 17 m (source)", flush=True)
    comp = E.range_run(compensate=True, margin_ms=2, max_tips=40 if quick else 400)
    print(f"   legsim: {comp.tips} tips, {comp.distance:.1f} m" + (" (--quick: capped)" if quick else ""))
    print("E12 without compensation: fixed times work for 30-50 tips, first failure within 6.34 m (source)",
          flush=True)
    fixed = E.range_run(compensate=False, margin_ms=2)
    print(f"   legsim: {fixed.tips} tips, {fixed.distance:.1f} m")
    print("E11 spool valves (leaking, 13 ms latency), with compensation: 9.5 m, 92 tips (source)", flush=True)
    spool = E.range_run(compensate=True, margin_ms=2, valve="spool", model=E.SIM_TIP_MODEL_SPOOL,
                        max_tips=40 if quick else 400)
    print(f"   legsim: {spool.tips} tips, {spool.distance:.1f} m" + (" (--quick: capped)" if quick else "")
          + f"   ({time.time() - t0:.0f} s wall in all)")
    plt = _plt()
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(comp.centres[:, 0], comp.centres[:, 1], ".-", label="with compensation")
    ax[0].plot(fixed.centres[:, 0], fixed.centres[:, 1], ".-", label="without")
    ax[0].plot(spool.centres[:, 0], spool.centres[:, 1], ".-", label="spool valves, with compensation")
    ax[0].set_xlabel("x [m]")
    ax[0].set_ylabel("y [m]")
    ax[0].legend()
    ax[1].plot(comp.p_true, label="tank (simulated)")
    ax[1].plot(comp.p_estimate, label="estimate (§3.3)")
    ax[1].set_xlabel("tip")
    ax[1].set_ylabel("MPa gauge")
    ax[1].legend()
    fig.savefig(out / "rats_range.png", dpi=100)


def _records(out: Path, rats, demo: str, builder: dict, **meta):
    """A run directory's writer in ``out`` for a run of ``rats`` (``builder``: how ``legsim view`` rebuilds
    it, :func:`legsim.viz.scene.robot_builder`)."""
    from ...io.results import RunWriter
    from ...viz.scene import robot_builder

    rebuild = robot_builder("legsim.robots.rats.robot:build", **builder)
    return RunWriter(out, rats.robot.model, {"demo": demo, **meta, "robot_builder": rebuild})


def _replay(path: Path, rats, res) -> None:
    from ...viz.viewer import write_robot_replay

    print(f"   3-D replay (open in a browser): {write_robot_replay(path, rats.robot, res)}")


def roll(out: Path, quick: bool) -> None:
    build_kw: dict[str, Any] = {"contact_set": "rolling", "tank_volume": 1.0}
    rats = build(**build_kw)
    prm = E.SIM_ROLLING_PARAMS   # Table 6.2 re-tuned for this robot (experiments.tune_rolling)
    plt = _plt()
    print("E16: stable straight rolling with continual acceleration over 8 s (source gives no speeds)")
    for k, head in enumerate(np.radians([0, 60, 120] if quick else [0, 45, 90, 135, 180, 225, 270, 315])):
        start: dict[str, Any] = {"stance": 3, "yaw": 0.5, "heading": float(head),
                                 "t_final": 4.0 if quick else 8.0}
        if k == 0:  # the first roll's records (run.json gets a final status however it ends)
            with _records(out, rats, "rats_roll", build_kw, **start) as writer:
                res = E.roll(rats, prm, **start, sinks=[writer])
        else:
            res = E.roll(rats, prm, **start)
        tr = E.RollTrial.of(res, float(head))
        print(f"   heading {np.degrees(head):5.0f} deg: {tr.distance:5.1f} m, off by "
              f"{tr.heading_error:+.2f} rad, speed {tr.v_first:.1f} -> {tr.v_last:.1f} m/s")
        if k == 0:
            print(f"   records of this roll in {out}/")
            _replay(out / "rats_roll.html", rats, res)
        plt.plot([0, tr.distance * np.cos(head + tr.heading_error)],
                 [0, tr.distance * np.sin(head + tr.heading_error)], "-o")
    plt.axis("equal")
    plt.xlabel("x [m]")
    plt.ylabel("y [m]")
    plt.savefig(out / "rats_roll.png", dpi=100)


def planner(out: Path, quick: bool) -> None:
    plt = _plt()
    fig, ax = plt.subplots(1, 2, figsize=(10, 5))
    print("E18: gamma = 1.5 recommended; gamma < 1 jagged, accurate; gamma > 4 greedy (source, no numbers)")
    paths = (("circle r = 2 m", circle_path(2.0)), ("figure-8 4 x 2 m", figure8_path(4.0)))
    for a, (name, path) in zip(ax, paths, strict=True):
        a.plot(path[:, 0], path[:, 1], "k:")
        for g in (0.5, 1.5, 5.0):
            r = plan(path, 0, gamma=g)
            print(f"   {name}, gamma {g}: {r.n_firings} firings, mean error {1000 * r.mean_error:.0f} mm")
            a.plot(r.centres[:, 0], r.centres[:, 1], label=f"gamma {g}")
        a.axis("equal")
        a.legend()
    fig.savefig(out / "rats_planner.png", dpi=100)


def closed(out: Path, quick: bool) -> None:
    from legsim.robots.rats.stance import ClosedLoopTipper
    from legsim.robots.rats.valve_time import DepletionEstimator

    build_kw: dict[str, Any] = {"valve": "rubber", "contact_set": "tipping"}
    rats = build(**build_kw)
    goal = np.array([1.2, 0.0])
    tipper = ClosedLoopTipper(line_path((0.0, 0.0), goal), start_stance=0, dims=rats.dims, yaw=0.2,
                              slip=E.SIM_TIP_SLIP, strength=E.SIM_TIP_MODEL,
                              estimator=DepletionEstimator(p0_mpa=0.689))
    st = {"next": 2.5, "n": 0}

    def policy(obs):
        if obs.t + 1e-9 < st["next"]:
            return None
        st["next"] = obs.t + 2.5
        st["n"] += 1
        if st["n"] == 4:   # a disturbance: another stance leg fires
            s = geo.resting_stance(obs.rotation)
            return [(int(geo.STANCES[s][1]), 30)]
        cmd = tipper.update(obs.accel, obs.t)
        return None if cmd is None else [(cmd.leg, cmd.duration_ms)]

    with _records(out, rats, "rats_closed", build_kw, goal=goal.tolist()) as writer:  # a final status
        res = rats.simulate(45.0, policy, q0=rats.q_rest(0, 0.2), sinks=[writer], progress=None)
    print("E14: after a disturbance the planner re-plans and reaches the goal (source, qualitative)")
    for e in tipper.log:
        print(f"   t {e.t:5.1f} s: stance {e.detected:2d} {e.outcome.value if e.outcome else 'start':10s} "
              f"-> {e.command}")
    print(f"   status {tipper.status}; robot at {res.x[-1, :2].round(2)} m, goal {goal} m")
    plt = _plt()
    plt.plot(res.x[:, 0], res.x[:, 1])
    plt.plot(*goal, "r*")
    plt.axis("equal")
    plt.savefig(out / "rats_closed_loop.png", dpi=100)
    print(f"   records in {out}/")
    _replay(out / "rats_closed.html", rats, res)


def endurance(out: Path, quick: bool) -> None:
    from ...validation.rats import LEAKING_HOP_INTERVAL

    n = 20 if quick else 90
    frac, ratio = E.leak_hop_ratio(150.0)
    frac300, _ = E.leak_hop_ratio(300.0)
    print("E10 leakage alone, spool valves, no firing, from 0.758 MPa: tank pressure -50 % in 5 min, hop "
          "height -50 % after 2.5 min (source)")
    print(f"   legsim: tank at {100 * frac300:.0f} % after 300 s (the leak law, tau = 433 s), a 40 ms hop at "
          f"{100 * ratio:.0f} % of the first after 150 s (tank at {100 * frac:.0f} %)")
    print("E9 leaking spool valves, 40 ms, 0.758 MPa: 40 hops until it cannot leave the ground (source)",
          flush=True)
    leak = E.endurance_run(interval=LEAKING_HOP_INTERVAL, firings=n)
    grounded = np.flatnonzero(leak.rise < 0.01)
    print(f"   legsim, a firing every {LEAKING_HOP_INTERVAL:g} s (the source's \"rapid succession\" read as "
          f"the middle of 2-5 s), leak tau = 433 s: rise {100 * leak.rise[0]:.1f} cm first, "
          + (f"below 1 cm from firing {grounded[0] + 1}" if grounded.size
             else f"{100 * leak.rise[-1]:.1f} cm at firing {n}"))
    plt = _plt()
    plt.plot(np.arange(1, n + 1), leak.rise * 100, ".-", label="spool, leaking, 0.758 MPa")
    if not quick:
        print("E8 rubber valves (no leak), 40 ms, 0.689 MPa: only a few cm after 75 firings (source)",
              flush=True)
        tight = E.endurance_run(interval=LEAKING_HOP_INTERVAL, firings=110, valve="rubber", p0=0.689e6)
        low = np.flatnonzero(tight.rise < 0.05)
        print(f"   legsim: below 5 cm from firing {low[0] + 1 if low.size else '-'}, "
              f"{100 * tight.rise[74]:.1f} cm at firing 75")
        plt.plot(np.arange(1, 111), tight.rise * 100, ".-", label="rubber, 0.689 MPa")
    plt.xlabel("firing")
    plt.ylabel("apex rise of the centre [cm]")
    plt.legend()
    plt.savefig(out / "rats_endurance.png", dpi=100)


def landing(out: Path, quick: bool) -> None:
    stances = (0, 1, 3) if quick else tuple(range(geo.N_STANCES))
    print("E15: a three-leg hop that lands on three feet at once is stable; one that lands on fewer "
          "frequently tumbles and comes to rest 10-30 cm from its launch point (source)", flush=True)
    print(f"   legsim: 40 ms, spool valves at 0.689 MPa with E1's latencies (leg 6 11.25 ms, leg 3 "
          f"14.58 ms, the others 13.16 ms), from {len(stances)} stances:")
    plt = _plt()
    for balance, label in ((False, "unbalanced"), (True, "balanced by the latencies")):
        hops = E.hop_landing(stances, balance=balance)
        three = [h for h in hops if h.feet_at_touchdown >= 3]
        fewer = [h for h in hops if h.feet_at_touchdown < 3]
        moved = [h for h in fewer if h.final_stance != h.stance]
        rest = [100 * h.rest_distance for h in moved]
        far = f"at rest {min(rest):.1f}-{max(rest):.1f} cm from the launch point" if rest else "none"
        stayed = [100 * h.rest_distance for h in hops if h.final_stance == h.stance]
        print(f"   {label}: {len(three)} landed on three feet, {len(fewer)} on fewer; tumbled onto another "
              f"stance: {len(moved)} ({far}); back on their own: {len(stayed)} (within "
              f"{max(stayed, default=0.0):.1f} cm)")
        plt.plot([h.stance for h in hops], [100 * h.rest_distance for h in hops], "o" if balance else "x",
                 label=label)
    plt.axhspan(10.0, 30.0, color="0.9", label="source: 10-30 cm after landing on fewer feet")
    plt.xlabel("stance launched from")
    plt.ylabel("rest distance from the launch point [cm]")
    plt.legend()
    plt.savefig(out / "rats_landing.png", dpi=100)


RUNS = {"endurance": endurance, "hop": hop, "legs": legs, "tip": tip, "range": range_, "roll": roll,
        "planner": planner, "closed": closed, "landing": landing}


def run_demo(out_dir: str | Path, experiment: str, quick: bool = False) -> None:
    """Run ``experiment`` (one of :data:`RUNS`), printing the source's figures beside legsim's, and
    save its plot in ``out_dir``."""
    if experiment not in RUNS:
        raise InputError(f"no RATS experiment named {experiment!r}; available: {', '.join(sorted(RUNS))}")
    out = output_dir(out_dir, "the demo's figures")
    RUNS[experiment](out, quick)
    print(f"figures in {out}/")

