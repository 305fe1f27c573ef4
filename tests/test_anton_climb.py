"""ANTON's climbing script on a body-high ledge (issue 16; Konyev 2011 §3.4.7, contact digest §4.2):
the body-joint kinematics it needs, the plan's statics, and the script run on the dynamic robot
with the CoM inside the support polygon at every instant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.anton import AntonParams
from legsim.robots.anton import _kinematics as K
from legsim.robots.anton.climb import MAX_WAVES, PAIRS, ClimbPlan, Ledge, simulate_climb, step_summary
from legsim.robots.anton.model import leg_arrays
from legsim.robots.anton.robot import _joint_targets, support_track

P = AntonParams()


def test_joint_targets_invert_the_feet_through_pitched_and_yawed_body_joints():
    """Random body joints (±0.5 rad) and legs: the encoders' view of the feet (feet_in_body) taken back
    through the body joints and the leg IK gives the same 22 angles."""
    legs = hips, yaws, segs = leg_arrays(P)
    rng = np.random.default_rng(11)
    feet = np.empty((6, 3))
    for _ in range(50):
        q = np.empty(22)
        q[:4] = rng.uniform(-0.5, 0.5, 4)
        for k in range(6):
            q[4 + 3 * k:7 + 3 * k] = rng.uniform(-0.6, 0.6), rng.uniform(-0.5, 0.8), rng.uniform(-2.0, -0.3)
        K.feet_in_body(q, hips, yaws, segs, P.coxa, P.femur, P.tibia, 0.5 * P.segment_gap, feet)
        np.testing.assert_allclose(_joint_targets(P, legs, feet, q[:4].copy()), q, atol=1e-9)


@pytest.fixture(scope="module")
def plan():
    return ClimbPlan()


def test_the_script_runs_its_eight_steps_in_order_with_the_articulated_body(plan):
    steps = [s.step for s in plan.stages]
    assert steps == sorted(steps) and set(steps) == set(range(1, 9))
    by_step = {k: [s for s in plan.stages if s.step == k] for k in range(1, 9)}
    # 3: the front legs go onto the top, the front segment pitched up (negative: the joint's axis)
    front_on_top = [s for s in by_step[3] if s.swing == PAIRS["front"]]
    assert front_on_top and front_on_top[0].end.pitch[0] < 0.0
    assert np.all(front_on_top[0].end.feet[[0, 3], 2] == pytest.approx(plan.ledge.height + P.foot_radius))
    # 7: the body rests, the rear legs lift onto the top, the rear segment pitched up (positive)
    assert all(s.body_rests for s in by_step[7]) and not any(s.body_rests for s in plan.stages if s.step != 7)
    rear_up = [s for s in by_step[7] if s.swing == PAIRS["rear"]]
    assert rear_up and rear_up[0].end.pitch[1] > 0.0 and rear_up[0].end.feet[2, 0] > plan.ledge.edge_x
    # the end: the walking posture on the top, feet on their rectangle
    end = plan.stages[-1].end
    assert end.base[1] == pytest.approx(plan.ledge.height + plan.height)
    np.testing.assert_allclose(end.feet[:3, 0] - end.base[0], [plan.half_length, 0.0, -plan.half_length],
                               atol=1e-9)
    assert np.all(end.feet[:, 0] > plan.ledge.edge_x + P.foot_radius)


def test_the_planners_segment_corners_are_the_multibody_models_boxes(plan):
    """The planner's body geometry (segment_corners, used for the clearance) against the model's box
    geometries placed by its forward kinematics, at a pose of every stage."""
    from legsim.multibody.dynamics import forward_kinematics

    mb, data = plan._mb, plan._data
    for stage in plan.stages:
        q = plan.configuration(stage.end)
        forward_kinematics(mb, data, q)
        got = plan.segment_corners(stage.end)
        for i, seg in enumerate(("front", "middle", "rear")):
            g = next(g for g in mb.geometries if g.name == f"{seg}_box")
            b = mb.body_id(g.body)
            half = 0.5 * np.asarray(g.params["size"])
            signs = np.array([[sx, sy, sz] for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)])
            expected = data.op[b] + (data.oR[b] @ g.R @ (signs * half).T).T + data.oR[b] @ g.p
            np.testing.assert_allclose(got[i], expected, atol=1e-12)


def test_the_plans_statics_hold_at_every_instant(plan):
    """Sampled every 20 ms: every joint within its limits and every foot within reach (else check
    raises), the CoM at least min_margin inside the supporting feet's (and resting body's) polygon
    (measured 54.5 mm), the body body_gap clear of the ledge outside step 7 (measured 15.0 mm) and
    touching, not cutting, in it."""
    c = plan.check()
    assert c["margin"] >= plan.min_margin
    assert c["clearance"] >= plan.body_gap - 1e-4
    assert c["rest_clearance"] == pytest.approx(-plan.press, abs=1e-9)


@pytest.mark.parametrize("height", [0.05, 0.10, 0.18])
def test_the_planner_adapts_to_other_ledge_heights(height):
    """The body heights follow the ledge (approach 2 cm over it, climb with the body's bottom 2 cm
    over it): the same statics from 5 to 18 cm (at 22 cm the rear legs no longer reach the ground
    from the climbing height)."""
    plan = ClimbPlan(ledge=Ledge(height=height, edge_x=0.6))
    c = plan.check(dt=0.05)
    assert c["margin"] >= plan.min_margin and c["clearance"] >= plan.body_gap - 1e-4
    assert plan.stages[-1].end.base[1] == pytest.approx(height + plan.height)


def test_the_articulated_body_is_what_lets_the_script_climb():
    """Figs. 3.30/3.31 (rigid vs articulated body): with the front segment kept straight the body
    must stop further from the face (its front end would cut the ledge), the CoM stays further back
    and a foot leaves its leg's reach; with the rear segment kept straight the rear legs cannot lift
    from the ground onto the top in step 7 (a femur joint past its limit)."""
    with pytest.raises(InputError, match="out of reach"):
        ClimbPlan(front_pitch=0.0)
    with pytest.raises(InputError, match="beta .* leaves its limits .*rear legs onto the top"):
        ClimbPlan(rear_pitch=0.0).check()


def test_a_ledge_out_of_the_legs_reach_or_bad_parameters_are_refused():
    with pytest.raises(InputError, match="0.22 m ledge: ANTON leg: .* out of reach"):
        ClimbPlan(ledge=Ledge(height=0.22))
    with pytest.raises(InputError, match="swing_time"):
        ClimbPlan(swing_time=0.0)
    with pytest.raises(InputError, match="front_pitch = nan"):
        ClimbPlan(front_pitch=float("nan"))
    with pytest.raises(InputError, match=r"edge_x = 0.1 m is in the way .* expected edge_x >= 0.295 m"):
        ClimbPlan(ledge=Ledge(edge_x=0.1))
    with pytest.raises(InputError, match="height"):
        Ledge(height=-0.1)
    # a wrong kind of value, named (before session 31: AttributeError, TypeError, or a foot out of reach
    # for a bool taken as 1 m)
    for kw, name in ((dict(ledge=0.15), "ledge"), (dict(params=None), "params"),
                     (dict(height=True), "height"), (dict(start_x="0"), "start_x"),
                     (dict(top_footholds=0.1), "top_footholds"),
                     (dict(top_footholds=(0.1, 0.1)), "top_footholds"), (dict(press=None), "press")):
        with pytest.raises(InputError, match=f"ClimbPlan: '?{name}'? = "):
            ClimbPlan(**kw)
    # found by random fuzzing (session 34): a string height was a TypeError (compared before it was
    # checked), and a tiny stride planned ~1e8 gallop waves, which looked like a hang
    with pytest.raises(InputError, match="ClimbPlan: 'height' = 'x', expected a number"):
        ClimbPlan(height="x")
    with pytest.raises(InputError, match=rf"stride = 1e-09 m needs \d+ gallop waves .* expected at most "
                                         rf"{MAX_WAVES}: stride >= 0.0015 m"):
        ClimbPlan(stride=1e-9)
    assert len(ClimbPlan(stride=0.002).stages) > len(ClimbPlan().stages)  # 78 waves: planned
    with pytest.raises(InputError, match=r"'swing_time' = 1e-300, expected a finite number in \[0.001"):
        ClimbPlan(swing_time=1e-300)  # was numpy's "invalid value" in the pacing, and a plan of 0 s stages


@pytest.fixture(scope="module")
def climb_demo(tmp_path_factory):
    """``legsim demo anton_climb`` (its Python entry, which the CLI calls): the climb that the tests
    below measure, records every 10 ms (the integration is the same as with records every 1 ms, bit
    for bit: records fall on the fixed steps), its printed lines and its run directory."""
    from legsim.robots.anton.climb_demo import run_demo

    out, lines = tmp_path_factory.mktemp("anton_climb"), []
    return run_demo(out, echo=lines.append), lines, out


@pytest.fixture(scope="module")
def climb(climb_demo):
    run = climb_demo[0]
    return run.plan, run.robot, run.ctrl, run.res, run.track


def test_the_climb_demo_prints_each_steps_margin_and_writes_records_figures_and_a_replay(climb_demo):
    from legsim.io.results import load_run

    run, lines, out = climb_demo
    text = "\n".join(lines)
    assert "anton_climb: done" in text and "6 of 6 feet on the top" in text
    assert text.count("least CoM margin") == 9 and "body carries up to" in text
    meta = load_run(out).meta
    assert meta["status"] == "done" and len(meta["stages"]) > 8
    from legsim.viz.scene import scene_for_run

    # `legsim view` rebuilds the robot by the function its run names
    assert len(scene_for_run(meta).frames) > 6
    for name in ("anton_climb_steps.png", "anton_climb_balance.png"):
        assert (out / name).stat().st_size > 5000
    assert "__VISER_EMBED_DATA__" in (out / "anton_climb.html").read_text()


def test_anton_climbs_the_body_high_ledge_in_simulation(climb):
    """The script completes on the dynamic robot (22 drives at 1 kHz, rubber feet, body boxes
    touching): all six feet end on the top, each carrying a sixth of the weight (measured 12.4 N of
    74.6 / 6 = 12.4 N), the body at the walking height over it (measured 0.2644 m for 0.27 m
    planned: the feet's 6 mm rubber penetration that the encoders cannot see). Every joint's path
    is paced within half its drive's no-load speed."""
    plan, robot, ctrl, res, track = climb
    assert res.status == "done"
    weight = robot.mb.total_mass() * 9.81
    feet, fn = track["feet"][-1], track["fn"][-1]
    assert np.all(feet[:, 0] > plan.ledge.edge_x + P.foot_radius)
    assert np.all(np.abs(feet[:, 2] - (plan.ledge.height + P.foot_radius)) < 0.01)
    np.testing.assert_allclose(fn, weight / 6.0, rtol=0.05)
    assert abs(res.x[-1, 2] - (plan.ledge.height + plan.height)) < 0.01
    assert track["fn_body"][-1] == 0.0


def test_the_com_stays_inside_the_support_polygon_at_every_instant_of_every_step(climb):
    """Every record of steps 1-8 (every 10 ms) has at least three contact points carrying over 2 N
    and the CoM inside their polygon. Measured least margins per step: 54.2, 85.3, 50.1, 173.1,
    133.6, 142.2, 60.9, 81.2 mm (step 3, the front legs leaving the ground, is the tightest)."""
    plan, robot, ctrl, res, track = climb
    steps = step_summary(plan, ctrl, track)
    assert set(range(1, 9)) <= set(steps)
    for k in range(1, 9):
        assert steps[k]["margin"] > 0.0, (k, steps[k])


def test_in_step_7_the_body_carries_part_of_the_weight_while_the_rear_legs_lift(climb):
    """Step 7: the body's segments on the ledge carry a share of the weight (measured up to 40.8 N of
    74.6 N) while the middle and front feet carry the rest; the body touches nothing before it (steps
    1-6) and is lifted off in step 8."""
    plan, robot, ctrl, res, track = climb
    steps = step_summary(plan, ctrl, track)
    weight = robot.mb.total_mass() * 9.81
    assert all(steps[k]["body_load"] == 0.0 for k in range(1, 7))
    assert 0.3 * weight < steps[7]["body_load"] < weight * 1.2
    hist = np.array(ctrl.history)
    rear_lift = next(i for i, s in enumerate(plan.stages) if s.step == 7 and s.swing)
    t_mid = hist[np.flatnonzero(hist[:, 1] == rear_lift), 0].mean()
    k = np.searchsorted(track["t"], t_mid)
    assert track["fn"][k, [2, 5]].max() < 1.0  # the rear feet in the air
    assert track["fn_body"][k] > 0.3 * weight and track["fn"][k, [1, 4]].sum() > 0.1 * weight
    assert math.isfinite(track["margin"][k]) and track["margin"][k] > 0.0


@pytest.mark.parametrize("real", [0.13, 0.17])
def test_a_plan_for_a_15_cm_ledge_climbs_one_2_cm_lower_or_higher(real):
    """The operator measured 15 cm; the ledge is 13 or 17 cm. On the higher one the feet are pressed
    onto it as planned; on the lower one a foot that finds nothing where the plan put it searches
    down (FeltFootholds) and the body follows the top as found. Both complete with all six feet on
    the top and the CoM inside the support polygon in every step (measured least margins: 13 cm
    13.1 mm in step 4, 17 cm 42.9 mm in step 7; without the search the 13 cm ledge leaves the CoM
    outside in step 4, −10.5 mm)."""
    from legsim.robots.anton.climb import climb_robot

    plan = ClimbPlan()
    plan_, robot, ctrl, res = simulate_climb(plan, climb_robot(ClimbPlan(ledge=Ledge(height=real))))
    assert res.status == "done"
    track = support_track(robot, res, every=10)
    steps = step_summary(plan, ctrl, track)
    assert all(steps[k]["margin"] > 0.0 for k in range(1, 9)), steps
    feet = track["feet"][-1]
    assert np.all(np.abs(feet[:, 2] - (real + P.foot_radius)) < 0.01)
    assert np.all(feet[:, 0] > plan.ledge.edge_x + P.foot_radius)


# ------------------------------------------------------------------ (3.10) on smooth obstacles
def test_surface_following_sets_each_body_joint_to_the_difference_of_the_normals():
    """(3.10) with the signs of the joints (positive pitch turns a segment nose-down): on a surface
    whose slope is s(x), the front joint settles to −(s(x + gap) − s(x)), the rear to
    −(s(x − gap) − s(x)), clipped at ±limit; the position follows the advance."""
    from legsim.robots.anton.robot import SurfaceFollowing

    slope = lambda x: 0.5 * x  # noqa: E731  (a parabolic surface: the slope grows along x)
    f = SurfaceFollowing(slope, x0=0.3, segment_gap=0.2, tau=0.01)
    for _ in range(400):
        body = f.update(0.0, 1e-3)
    assert f.x == pytest.approx(0.3)
    np.testing.assert_allclose(body, [0.0, -0.1, 0.0, 0.1], atol=1e-6)
    for _ in range(400):
        body = f.update(0.001, 1e-3)  # 0.4 m on: the differences stay (a parabola's slope is linear)
    assert f.x == pytest.approx(0.7)
    np.testing.assert_allclose(body, [0.0, -0.1, 0.0, 0.1], atol=1e-6)
    steep = SurfaceFollowing(lambda x: 5.0 * x, tau=1e-3, limit=0.5)
    np.testing.assert_allclose(steep.update(0.0, 1e-3), [0.0, -0.5, 0.0, 0.5])


def _segment_slope_errors(robot, res, terrain, slope):
    """Each body segment's pitch (nose up) minus the surface's slope under its centre, every 20 ms
    after the first second: (n, 3) [rad], front, middle, rear."""
    from legsim.multibody.dynamics import forward_kinematics

    mb = robot.mb
    data = mb.make_data()
    q = np.column_stack([res.state(n) for n in robot.model.state_names[:mb.nq]])
    boxes = [next(g for g in mb.geometries if g.name == f"{seg}_box") for seg in ("front", "middle", "rear")]
    out = []
    for k in range(0, len(res.t), 20):
        if res.t[k] < 1.0:
            continue
        forward_kinematics(mb, data, q[k])
        row = []
        for g in boxes:
            b = mb.body_id(g.body)
            axis = (data.oR[b] @ g.R)[:, 0]
            centre = data.op[b] + data.oR[b] @ g.p
            row.append(math.atan2(axis[2], axis[0]) - float(slope(np.array([centre[0]]))[0]))
        out.append(row)
    return np.array(out)


def test_on_a_smooth_wave_the_segments_follow_the_surface_by_3_10():
    """ANTON's tripod over a 3 cm, 0.8 m sine wave (slopes to ±0.23 rad), 14 s: with (3.10) the
    segments lie closer to the surface under them. Measured RMS of segment pitch minus surface
    slope: straight body 0.211 / 0.051 / 0.187 rad (front / middle / rear), following 0.064 /
    0.058 / 0.128 (not the rear joint's sag: the body joints' static feedforward left it at 0.124,
    measured); the walk goes on as on flat ground (1.35-1.37 m, no rule violation)."""
    import dataclasses

    from legsim.assembly import Robot
    from legsim.contact import HeightFunction
    from legsim.robots.anton.robot import SurfaceFollowing, WalkPlan, build_robot, standing_pose, walker

    k = 2.0 * math.pi / 0.8
    terrain = HeightFunction("sines", (0.03, k, 0.0, 0.0))
    slope = lambda x: np.arctan(0.03 * k * np.cos(k * x))  # noqa: E731
    plan = WalkPlan(adaptation_height=0.03)
    base = build_robot()
    robot = Robot(base.mb, actuators=base.actuators, sensors=base.sensors,
                  contacts=dataclasses.replace(base.contacts, ground=terrain))
    q0 = standing_pose(plan)
    q0[2] += 0.002
    rms = {}
    for name, follow in (("straight", None), ("following", SurfaceFollowing(slope))):
        ctrl = walker(plan, follow_surface=follow)
        res = robot.simulate(14.0, ctrl, q0=q0, progress=False)
        assert res.status == "done" and ctrl.gen.violations == 0 and res.x[-1, 0] > 1.25
        rms[name] = np.sqrt(np.mean(_segment_slope_errors(robot, res, terrain, slope) ** 2, axis=0))
    assert rms["following"][0] < 0.5 * rms["straight"][0]
    assert rms["following"][2] < 0.8 * rms["straight"][2]
    assert np.sqrt(np.mean(rms["following"] ** 2)) < 0.6 * np.sqrt(np.mean(rms["straight"] ** 2))


def test_the_climb_is_converged_in_the_step_size(climb):
    """The run uses fixed-step RK4 at half the control period (0.5 ms) on the smooth contact path;
    at 0.25 ms the least margins of steps 1-3 (the front legs' lift, the tightest) agree to 0.1 mm
    (measured on the unpaced script of the same session: the whole script to 1e-5 m step by step,
    the body at the end to 0.1 mm)."""
    from legsim.hybrid import Options
    from legsim.robots.anton.climb import climb_robot, climber

    plan, robot, ctrl, res, track = climb
    t_end = 0.3 + sum(s.duration for s in plan.stages if s.step <= 3)
    fine_ctrl = climber(plan, start=0.3)
    q0 = plan.configuration(plan.start)
    q0[2] += 0.002
    fine = climb_robot(plan).simulate(t_end, fine_ctrl, q0=q0, progress=False,
                                      options=Options(method="rk4_fixed", h_max=2.5e-4, record_period=1e-3))
    fine_steps = step_summary(plan, fine_ctrl, support_track(robot, fine, every=10))
    steps = step_summary(plan, ctrl, track)
    for k in (1, 2, 3):
        assert fine_steps[k]["margin"] == pytest.approx(steps[k]["margin"], abs=1e-4)


def test_the_compiled_static_feedforward_is_the_virtual_work_of_the_foot_forces_and_the_weights():
    """StaticFeedforward (one compiled call: kinematics, the feet's wrenches, RNEA at rest) at random
    postures and foot forces: with no force it is the links' weights g(q) of the public RNEA; the
    forces' part does the virtual work of the forces at the feet's lowest points, Δτ·δq = −Σ F·δp for a
    small joint displacement δq (the points moved with their links, by central differences of the
    forward kinematics): the sign and the body-axes transform checked without the wrench formula."""
    from legsim.multibody import dynamics as D
    from legsim.robots.anton import LEGS
    from legsim.robots.anton.robot import StaticFeedforward, _feedforward_gains

    ff = StaticFeedforward(P)
    mb = ff._mb  # the model with the middle segment fixed and level
    data = mb.make_data()
    gains = _feedforward_gains()
    tibias = [mb.body_id(f"{leg}_tibia") for leg in LEGS]
    rng = np.random.default_rng(5)
    zero = np.zeros(mb.nv)

    def points(q, local):  # the material points (6, 3) in the world
        D.forward_kinematics(mb, data, q)
        return np.array([data.op[b] + data.oR[b] @ local[k] for k, b in enumerate(tibias)])

    for _ in range(10):
        q = np.empty(22)
        q[:4] = rng.uniform(-0.4, 0.4, 4)
        for k in range(6):
            q[4 + 3 * k:7 + 3 * k] = rng.uniform(-0.6, 0.6), rng.uniform(-0.5, 0.8), rng.uniform(-2.0, -0.3)
        shank = rng.normal(0.0, 10.0, 18)
        weights = ff(q, np.zeros(18)) / gains
        np.testing.assert_allclose(weights, D.rnea(mb, data, q, zero, zero), rtol=1e-12, atol=1e-12)
        loaded = ff(q, shank) / gains
        D.forward_kinematics(mb, data, q)
        local = np.array([ff._foot - P.foot_radius * data.oR[b][2] for b in tibias])  # lowest points
        dq = rng.normal(0.0, 1.0, 22)
        h = 1e-6
        dp = (points(q + h * dq, local) - points(q - h * dq, local)) / (2 * h)  # (6, 3) per unit step
        work = -np.sum(shank.reshape(6, 3) * dp)
        assert (loaded - weights) @ dq == pytest.approx(work, rel=1e-6, abs=1e-6)


def test_a_climb_refuses_endless_standing_and_a_controller_that_never_ran_before_any_simulation():
    """Before session 41 ``simulate_climb(after=2**40)`` simulated 35,000 years of standing (it looked hung),
    ``settle=-1`` was refused as the climber's 'start', a robot of the wrong kind failed with AttributeError,
    and ``steps_at`` of a climber that had not run with IndexError (its empty history). Each is an InputError
    naming the argument now, told before anything is simulated."""
    from legsim.robots.anton.climb import climber, steps_at

    for kw, said in ((dict(after=2**40), r"'after' = 1099511627776, expected a finite number in \[0, 3600\]"),
                     (dict(settle=-1.0), r"'settle' = -1.0"), (dict(robot="anton"), "'robot' = 'anton'")):
        with pytest.raises(InputError, match=f"simulate_climb: {said}"):
            simulate_climb(**kw)
    plan = ClimbPlan()
    with pytest.raises(InputError, match="steps_at: 'ctrl' = .*, expected a climber that ran"):
        steps_at(plan, climber(plan), [0.0, 1.0])
