"""ROTTO: the drives' rods, leg kinematics, and static walking with the CoM over the support (contact
digest §4.3; Konyev 2011 §4.1–4.4)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.multibody import forward_kinematics, frame_placement
from legsim.robots.rotto.linkage import drive_envelope, drive_rods, leg_drives
from legsim.robots.rotto.model import armature, build_model, hip_centre, joint_names, leg_ik
from legsim.robots.rotto.params import (
    DRIVE_F_MAX,
    DRIVE_F_NOMINAL,
    DRIVE_V_NOMINAL,
    JOINTS,
    RottoParams,
)
from legsim.robots.rotto.robot import (
    RodTargets,
    StaticWalk,
    balance_summary,
    build_robot,
    peak_drive_force,
    standing_pose,
    support_track,
    walker,
)

P = RottoParams()


# ------------------------------------------------------------------------------------- the rods
@pytest.mark.parametrize("drive", leg_drives(P), ids=lambda d: d.name)
def test_rod_jacobian_is_the_derivative_of_the_rod_length(drive):
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-0.5, 0.5, len(drive.joints))
        h = 1e-6
        fd = [(drive.length(q + h * e) - drive.length(q - h * e)) / (2 * h) for e in np.eye(len(q))]
        np.testing.assert_allclose(drive.jacobian(q), fd, atol=1e-8)


def test_parallel_pairs_double_the_torque_on_both_axes():
    """First order at q = 0: l = l0 + a θ_pitch ∓ d θ_roll; two equal forces turn only the pitch axis
    with 2 a F, opposite forces only the roll axis with 2 d F (source: "double rotation moment")."""
    d = {dr.name: dr for dr in leg_drives(P)}
    F = 100.0
    pairs = (("hip", P.hip_arm, P.hip_spread, 1), ("ankle", P.ankle_arm, P.ankle_spread, 0))
    for pair, arm, spread, pitch in pairs:
        J = np.array([d[f"{pair}_1"].jacobian([0.0, 0.0]), d[f"{pair}_2"].jacobian([0.0, 0.0])])
        roll = 1 - pitch
        np.testing.assert_allclose(np.abs(J[:, pitch]), [arm, arm], rtol=1e-12)
        np.testing.assert_allclose(np.abs(J[:, roll]), [spread, spread], rtol=1e-12)
        together = J.T @ [F, F]
        opposed = J.T @ [F, -F]
        assert together[pitch] == pytest.approx(2 * arm * F) and abs(together[roll]) < 1e-9
        assert abs(opposed[roll]) == pytest.approx(2 * spread * F) and abs(opposed[pitch]) < 1e-9
    assert abs(d["knee"].jacobian([0.0])[0]) == pytest.approx(P.knee_arm)
    assert abs(d["hip_yaw"].jacobian([0.0])[0]) == pytest.approx(P.yaw_arm)


def test_drive_force_speed_envelope_reproduces_the_source_figures():
    """Nominal 128 N at 0.64 m/s, maximum 400 N and 0.72 m/s, not together (source §4.1.1): the
    envelope of the drive library's actuator, and the force the assembled robot's knee drive (a
    PMSMDrive on its rod, ideal current) gives at those rod speeds when its position loop asks for
    more than it can: the envelope along the motion, the current limit against it, and beyond the
    no-load speed a braking force (measured −166 N at 0.8 m/s: the back-EMF exceeds the voltage)."""
    grid, limit = drive_envelope(P)
    assert limit[0] == pytest.approx(DRIVE_F_MAX) and limit[-1] == pytest.approx(0.0, abs=1e-6)
    assert np.interp(DRIVE_V_NOMINAL, grid, limit) == pytest.approx(DRIVE_F_NOMINAL, rel=0.01)
    assert np.all(np.diff(limit) <= 1e-9)  # falls with speed
    assert grid[limit >= DRIVE_F_MAX - 1e-6].max() < DRIVE_V_NOMINAL  # 400 N only well below 0.64 m/s
    robot = build_robot(P)
    model, mb = robot.model, robot.mb
    J = leg_drives(P)[3].jacobian([0.3])[0]                     # dl/dq of the knee drive [m/rad]
    y = np.empty(model.ny)
    for v, push, want in ((0.1, 1.0, DRIVE_F_MAX), (DRIVE_V_NOMINAL, 1.0, DRIVE_F_NOMINAL), (0.8, 1.0, None),
                          (0.7, -1.0, -DRIVE_F_MAX)):
        q = standing_pose(StaticWalk())
        q[7 + JOINTS.index("knee")] = 0.3
        v_q = np.zeros(mb.nv)
        v_q[6 + JOINTS.index("knee")] = v / J                  # the rod lengthens at v
        x = robot.initial_state(q, v_q)
        x[model.state_names.index("u_L_knee")] += push         # 1 m off: the loop asks for 1e6 N
        model.outputs(0.0, x, model.param_defaults.copy(), 0, y)
        force = y[model.output_names.index("tau_L_knee")]
        if want is None:  # beyond the no-load speed the back-EMF exceeds the inverter's voltage: it brakes
            assert force < 0.0, (v, force)
        else:
            assert force == pytest.approx(want, rel=0.01), (v, force)


def test_armature_is_the_rotor_inertia_seen_through_the_rods():
    arm = armature(P)
    by_joint = dict(zip(JOINTS, arm, strict=True))
    m = P.drive_mass
    assert m == pytest.approx(3e-6 * (2 * math.pi * 2 / 0.008) ** 2)  # J_r / KV²
    assert P.drive.kv == pytest.approx(1 / P.drive_ratio)
    assert by_joint["knee"] == pytest.approx(m * P.knee_arm ** 2)
    assert by_joint["hip_pitch"] == pytest.approx(2 * m * P.hip_arm ** 2)
    assert by_joint["ankle_roll"] == pytest.approx(2 * m * P.ankle_spread ** 2)
    mb = build_model(P)
    assert mb.nv == 6 + 12


def test_the_drives_on_their_rods_give_the_joints_j_transpose_f():
    """The engine's rods (assembly Rod between anchor and lever bodies, ``drive_rods``) against the
    exact rod kinematics of :mod:`.linkage`: rod lengths to 1e-14 m, and the whole vector field of
    ROTTO with an ideal force source on each rod equals ROTTO with a torque source on each joint
    carrying τ = Jᵀ F, at random postures, rates and forces (measured 7e-14 relative)."""
    from legsim.assembly import Robot, TorqueSource

    mb = build_model(P)
    drives = leg_drives(P)
    names = [f"{leg}_{d.name}" for leg in ("L", "R") for d in drives]
    on_rods = Robot(mb, actuators=[TorqueSource(n, r) for n, r in zip(names, drive_rods(mb, P), strict=True)])
    on_joints = Robot(mb, actuators=[TorqueSource(j, j) for j in joint_names()])
    rng = np.random.default_rng(0)
    n = mb.nq + mb.nv
    for _ in range(10):
        q = mb.neutral().copy()
        q[7:] = rng.uniform(-0.3, 0.3, 12)
        q[7 + 3], q[7 + 9] = rng.uniform(0.2, 0.8, 2)           # knees bent
        v = rng.normal(0.0, 0.5, mb.nv)
        F = rng.uniform(-300.0, 300.0, len(names))
        tau = np.zeros(12)
        lengths = []
        for k, (leg, d) in enumerate((leg, d) for leg in range(2) for d in drives):
            idx = [6 * leg + j for j in d.joints]
            tau[idx] += d.jacobian(q[7:][idx]) * F[k]
            lengths.append(d.length(q[7:][idx]))
        np.testing.assert_allclose(on_rods.rod_lengths(q), lengths, atol=1e-14)
        fields = []
        for robot, u in ((on_rods, F), (on_joints, tau)):
            x = robot.initial_state(q, v, commands0=u)
            f = np.empty_like(x)
            robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
            fields.append(f[:n])
        np.testing.assert_allclose(fields[0], fields[1], rtol=1e-12, atol=1e-12 * np.abs(fields[1]).max())


def test_rod_targets_refuse_a_joint_vector_that_is_not_the_robots_twelve_angles():
    """Before session 40 ``RodTargets()(q)`` handed any ``q`` to the compiled kernel, which indexes it by
    joint without a bounds check: two angles (or none) gave 24 rod lengths read from memory beyond the
    array, with no error."""
    targets = RodTargets()
    want = targets(np.zeros(12)).copy()
    for q in (np.zeros(2), np.zeros(0), np.zeros((12, 1)), np.zeros(13), "abc", None):
        with pytest.raises(InputError, match="RodTargets: q .*expected 12 joint angles"):
            targets(q)
    np.testing.assert_array_equal(targets([0.0] * 12), want)
    with pytest.raises(InputError, match="params = 'p', expected a RottoParams"):
        RodTargets("p")


# ------------------------------------------------------------------------------------- kinematics
def test_leg_ik_against_the_multibody_forward_kinematics():
    mb = build_model(P, floating=False)
    data = mb.make_data()
    names = joint_names()
    rng = np.random.default_rng(11)
    for leg in ("L", "R"):
        hip = hip_centre(P, leg)
        for _ in range(10):
            target = rng.uniform([-0.15, -0.08, -0.62], [0.15, 0.08, -0.45])
            yaw = rng.uniform(-0.3, 0.3)
            q = np.zeros(mb.nq)
            q[[names.index(f"{leg}_{j}") for j in JOINTS]] = leg_ik(P, target, yaw)
            forward_kinematics(mb, data, q)
            M = frame_placement(mb, data, f"{leg}_ankle")
            np.testing.assert_allclose(M[:3, 3], hip + target, atol=1e-12)
            c, s = math.cos(yaw), math.sin(yaw)
            np.testing.assert_allclose(M[:3, :3], [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-12)  # flat foot


# ------------------------------------------------------------------------------------- walking
@pytest.fixture(scope="module")
def walk_run():
    walk = StaticWalk(steps=4)
    robot = build_robot(walk.params)
    ctrl = walker(walk)
    res = robot.simulate(walk.duration, ctrl, q0=standing_pose(walk))
    return walk, robot, ctrl, res, support_track(robot, res, walk.params, every=2)


def test_static_walk_keeps_the_com_and_zmp_inside_the_support_polygon(walk_run):
    """Four steps of the static gait (τ = 0.2, L = 10 cm): the CoM's projection stays inside the
    support polygon (the soles carrying weight; static stability, §4.3) and the ZMP strictly inside
    it (no sole rolls over an edge); the pelvis stays upright. The feet land where the step cycles
    put them, to 5 mm (the swing leg's tracking error at touchdown, 2–3 mm measured; the
    anchor-spring friction keeps the stance soles from creeping): each transfer carries a foot
    L_sum forward relative to the body while the body covers V_st T_tr, so after two steps per
    foot both feet (and the CoM between them) are about 2 (L_sum + V_st T_tr) ahead (the gait
    generator's catch-up stretches a stance by a fraction of a second: 1 cm).

    Measured (session 14, the drives as PMSMs on their rods): CoM margin 25.0 mm and ZMP margin
    13.7 mm, the same at rtol 1e-7 and 1e-9. Before, a landing foot could bounce off at its
    touchdown and hover (the step cycle froze its height at the touch) until the CoM's move pressed
    it down; the smallest CoM margin then depended on the tolerance (−3.0 to 12.3 mm). The foot-force
    loop now acts whenever both step cycles support, which presses such a foot down."""
    walk, _, ctrl, res, track = walk_run
    m = balance_summary(track)
    st = ctrl.state
    print("ROTTO static walk:", {k: round(v, 4) for k, v in m.items()}, "peak drive force",
          peak_drive_force(walk_run[1], res))
    assert res.status == "done"
    assert st.lifts == walk.steps and st.t_stop is not None
    assert m["com_margin_min_m"] > 0.005
    assert m["zmp_margin_min_m"] > 0.0
    assert m["tilt_max_rad"] < math.radians(2.0)
    c = walk.cycle()
    per_foot = walk.steps / 2 * (c.step_length + c.stance_speed * c.transfer_time)
    feet_x = track["pads"][:, :, 0].reshape(len(track["t"]), 2, 4).mean(axis=2)
    planned = st.feet()[:, 0] - standing_pose_feet(walk)
    np.testing.assert_allclose(feet_x[-1] - feet_x[1], planned, atol=5e-3)
    np.testing.assert_allclose(planned, [per_foot, per_foot], atol=0.01)
    assert m["advance_m"] == pytest.approx(per_foot, abs=0.01)


def standing_pose_feet(walk) -> np.ndarray:
    """The feet's x (2,) [m] where the walk starts them."""
    from legsim.robots.rotto.robot import _StaticWalker

    return _StaticWalker(walk).feet()[:, 0]


def _single_support(ctrl, leg_in_air: int) -> tuple[float, float]:
    """The first whole interval [s] with ``leg_in_air`` in transfer and the other in support."""
    t = np.array([h[0] for h in ctrl.state.history])
    air = np.array([not h[1][leg_in_air] for h in ctrl.state.history])
    k0 = int(np.argmax(air))
    k1 = k0 + int(np.argmax(~air[k0:]))
    return float(t[k0]), float(t[k1])


def test_mean_zmp_is_the_com_while_standing_on_one_foot(walk_run):
    """Statics: averaged over a transfer (one sole carrying the body, nearly at rest), the centre of
    pressure under the stance sole is the CoM's projection (the structure's vibration averages
    out), and the CoM is over that sole's centre as planned."""
    walk, _, ctrl, _, track = walk_run
    t0, t1 = _single_support(ctrl, 1)  # the right foot in the air
    sel = (track["t"] > t0 + 0.1) & (track["t"] < t1 - 0.1)
    assert sel.sum() > 100
    assert track["fn"][sel][:, 4:].max() == 0.0  # it is in the air
    np.testing.assert_allclose(track["zmp"][sel].mean(axis=0), track["com"][sel, :2].mean(axis=0), atol=5e-3)
    sole_y = 0.5 * walk.stance_width
    assert track["com"][sel, 1].mean() == pytest.approx(sole_y, abs=5e-3)  # over the stance (left) sole


def test_without_the_foot_force_loop_the_robot_rolls_onto_a_sole_edge():
    """The measured reason for the force loop: with the drives position-controlled alone, each
    landing foot arrives a millimetre low (the stance leg's sag) and pushes the body over the
    stance sole's outer edge (the ZMP on the support polygon's boundary) before the weight moves."""
    walk = StaticWalk(steps=2)
    robot = build_robot(walk.params)
    res = robot.simulate(walk.duration, walker(walk, force_gain=0.0), q0=standing_pose(walk))
    m = balance_summary(support_track(robot, res, walk.params, every=2))
    print("without the force loop:", {k: round(v, 4) for k, v in m.items()})
    assert m["zmp_margin_min_m"] < 1e-3


def test_rotto_demo_writes_its_figures_and_replay(tmp_path):
    from legsim.robots.rotto.demo import run_demo

    lines: list[str] = []
    m = run_demo(tmp_path / "out", echo=lines.append, steps=2)
    assert (tmp_path / "out" / "rotto_balance.png").stat().st_size > 10_000
    assert (tmp_path / "out" / "rotto_walk.html").stat().st_size > 10_000
    assert m["com_margin_min_m"] > 0.0 and "rotto_walk: 2 steps" in lines[0]
    from legsim.io.results import load_run
    from legsim.viz.scene import scene_for_run

    # `legsim view` rebuilds the robot by the function its run names
    assert len(scene_for_run(load_run(tmp_path / "out").meta).frames) == 13  # the pelvis and 2 x 6 links


def test_the_drives_current_loops_change_the_walk_by_micrometres():
    """ROTTO's 24 drives with their current loops in the engine (PMSMDrive mode "current_loop": the
    28 kHz PI as its averaged equivalent, 1 kHz bandwidth) against ideal currents: the first 1.5 s of
    the walk (standing, the CoM's shift) leave the pelvis within 10 µm (measured 4.8 µm after 3 s).
    On ROTTO's fixed-step RK4 (:data:`STEP`) the loops cost 1.01x the ideal drives' run; on DP45 at rtol
    1e-7 they cost 4.9x (BENCHMARKS "ROTTO drives": the error control resolves every current transient)."""
    walk = StaticWalk()
    ends = []
    for mode in ("ideal", "current_loop"):
        robot = build_robot(walk.params, mode=mode)
        res = robot.simulate(1.5, walker(walk), q0=standing_pose(walk), progress=False)
        assert res.status == "done"
        ends.append(res.x[-1, :3])
    assert np.abs(ends[1] - ends[0]).max() < 1e-5


def test_each_drive_has_an_incremental_encoder_and_two_limit_switches_on_its_rod():
    """Source §4.1: "per actuator: an incremental encoder, 2 current sensors and 2 limit switches"
    (``build_robot(drive_sensors=True)``). The counts are the rod's travel since the first sample at
    counts per turn x belt / lead per metre, computed here from the recorded joint angles through the
    rods' own geometry (:meth:`Drive.length`); the switches sit at the rods' extreme lengths over the
    joints' ranges, which a walk never reaches."""
    from legsim.robots.rotto.robot import drive_names, drive_strokes

    walk = StaticWalk()
    robot = build_robot(walk.params, drive_sensors=True)
    res = robot.simulate(2.0, walker(walk), q0=standing_pose(walk), progress=False)
    names = robot.model.state_names
    k = P.drive.counts_per_turn * P.drive.belt / P.drive.lead          # 500 000 counts per metre
    q = res.x[:, 7:19]                                                  # the 12 joints after the free base
    for leg_i, leg in enumerate(("L", "R")):
        for d in leg_drives(P):
            qd = q[:, [6 * leg_i + j for j in d.joints]]
            length = np.array([d.length(row) for row in qd])
            counts = res.x[:, names.index(f"counts_{leg}_{d.name}")]
            want = np.floor(k * length) - math.floor(k * length[0])
            assert np.abs(counts - want).max() <= 1.0                   # an edge within round-off of 2e-6 m
    moved = [abs(res.x[-1, names.index(f"counts_{n}")]) for n in drive_names()]
    assert max(moved) > 5000                                            # the drives really travelled
    strokes = drive_strokes(robot.mb, P)
    assert np.all(strokes[:, 0] < strokes[:, 1])
    assert all(res.x[:, names.index(f"stroke_{s}_{n}")].max() == 0.0
               for s in ("min", "max") for n in drive_names())


def test_rottos_rk4_step_is_converged_against_tight_dp45_through_contact_events():
    """ROTTO runs fixed-step RK4 at :data:`STEP` = 0.25 ms with its pad contacts' events located. Against
    DP45 at rtol 1e-9 over 3.5 s of the walk (standing, the CoM's shift, the first step's lift-off and
    touchdown: contact events) the pelvis stays within 0.1 µm (measured 0.03 µm over 6 s), the joints
    within 1e-6 rad and the pad forces within 0.05 N of ~300 N, with the same events; with the current
    loops against their own DP45 run (rtol 1e-7, 1 s) likewise."""
    import dataclasses

    from legsim.robots.rotto.robot import STEP

    walk = StaticWalk()
    for mode, t_final, rtol in (("ideal", 3.5, 1e-9), ("current_loop", 1.0, 1e-7)):
        robot = build_robot(walk.params, mode=mode)
        assert robot.default_options().method.name == "RK4_FIXED" and robot.default_options().h_max == STEP
        tight = dataclasses.replace(robot.default_options(smooth=False), rtol=rtol, atol=rtol * 1e-2)
        ref = robot.simulate(t_final, walker(walk), q0=standing_pose(walk), options=tight, progress=False)
        res = robot.simulate(t_final, walker(walk), q0=standing_pose(walk), progress=False)
        np.testing.assert_array_equal(res.t, ref.t)
        assert np.abs(res.x[:, :3] - ref.x[:, :3]).max() < 1e-7
        assert np.abs(res.x[:, 7:19] - ref.x[:, 7:19]).max() < 1e-6
        forces = [c for c in robot.model.output_names if c.startswith("fn_")]
        fr, f = (np.column_stack([r.output(c) for c in forces]) for r in (ref, res))
        assert np.abs(f - fr).max() < 0.05 and fr.max() > 100.0
        assert res.stats["events"] == ref.stats["events"]
        if mode == "ideal":
            assert ref.stats["events"] >= 2                     # the first step's lift-off and touchdown


def test_the_walk_demo_checks_its_echo_before_it_walks(tmp_path):
    """Before session 41 ``rotto.demo.run_demo(echo=None)`` made its run directory, walked the whole run (13 s
    simulated) and then failed with TypeError at its first message. ``echo`` is checked first now, before
    anything is written."""
    from legsim.robots.rotto.demo import run_demo

    with pytest.raises(InputError, match="rotto_walk run_demo: 'echo' = None, expected a function of one "
                                         "string"):
        run_demo(tmp_path / "out", echo=None)
    assert not (tmp_path / "out").exists()
