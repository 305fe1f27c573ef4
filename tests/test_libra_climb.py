"""LIBRA climbing under CJTC on the assembly layer (CJTC digest §6.1, acceptance 8): the robot between two
ladders of L-shaped steps, gear friction, encoder quantisation and backlash, the 300 Hz controller."""

import numpy as np
import pytest

from legsim.control import Kinematics
from legsim.errors import InputError
from legsim.robots.libra.control import variables
from legsim.robots.libra.experiments import climb, cycle_measures, initial_configuration, stage1_measures
from legsim.robots.libra.gait import Path, Stage, climb_cycle
from legsim.robots.libra.robot import Ladders, build, gear_friction
from legsim.validation import cjtc as case  # measurements shared with `legsim report`


@pytest.fixture(scope="module")
def stage1():
    return case.stage1()  # climb(build(), climb_cycle(..., stages=(1,))) and stage1_measures


def test_the_gear_friction_is_the_motors_no_load_torque_through_the_gear():
    assert gear_friction(build().params) == pytest.approx(0.0233 * 0.020 * 792, rel=1e-12)


def test_the_start_pose_puts_feet_1_and_2_on_their_seats_and_the_body_where_commanded():
    lib = build()
    st = climb_cycle(lib.ladders, stages=(1,))[0]
    q = initial_configuration(lib, st)
    kin = Kinematics(lib.mb)
    v = variables(kin)
    kin.at(q)
    np.testing.assert_allclose([v["x1"]._value(kin, None), v["y1"]._value(kin, None)], [0.0, 0.0], atol=1e-10)
    np.testing.assert_allclose([v["x2"]._value(kin, None), v["y2"]._value(kin, None)],
                               [lib.ladders.separation, 0.0], atol=1e-10)
    u, _ = st.command(0.0)
    np.testing.assert_allclose([v["x_b"]._value(kin, None), v["y_b"]._value(kin, None)], u[:2], atol=1e-10)
    assert np.all(q[3:] >= lib.params.joint_limits[:, 0]) and np.all(q[3:] <= lib.params.joint_limits[:, 1])


def test_stage_one_pushes_the_body_up_and_places_foot_3_on_the_right_ladder(stage1):
    run, m = stage1
    st = run.stages[0]
    u_end, _ = st.command(run.t[-1])
    # the body rose 14 cm; it ends 4.9 mm below its command, 2.4 mm as the robot measures it (the
    # rest is the treads' sinking, m g / K_e ≈ 3.6 mm, which the controller cannot see)
    assert run.true["y_b"][-1] - run.true["y_b"][0] > 0.13
    assert m["y_b_final"] < 0.006 and m["y_b_final_measured"] < 0.003
    # foot 3 sits on its seat (0.45, -0.134), pressed into the post by the 0.1 m offset of its command
    assert run.true["x3"][-1] == pytest.approx(lib_sep(run), abs=0.006)
    assert run.true["y3"][-1] == pytest.approx(-lib_step(run), abs=0.006)
    assert 3.0 < -run.force[-1, 2, 0] < 18.0  # 10 N commanded (0.1 m at 100 N/m); measured 6.7 N


def test_stage_one_against_the_sources_numbers(stage1):
    # §6.1 / acceptance 8 on the real robot, with the true state here: settles in about 4.5 s, x_b error
    # <= 5 mm transient, foot 2's wall force within +-4 N of 10 N throughout (no force feedback):
    _, m = stage1
    assert m["settle_time"] <= 4.5          # measured 3.78 s (y_b within 5 mm of its final command)
    assert m["x_b_peak"] <= 0.005           # measured 3.2 mm
    assert 6.0 <= m["f2_min"] and m["f2_max"] <= 14.0   # measured 6.5 .. 12.1 N
    # NOT MET: x_b steady <= 2 mm (measured 2.6 mm; 1.1 mm without the 2-degree backlash, which the
    # motor-side encoders cannot see through) and |theta_b| <= 0.03 rad (measured 0.058: the theta_b
    # loop, k_p 8 N m/rad, against the 0.369 N m gear friction of the three joints that set theta_b is a
    # ~0.05 rad dead band, next test; the real gearheads' friction is not given by the source). The bounds
    # below are this model's measured values, not the source's.
    assert m["x_b_final"] < 0.003
    assert m["theta_b_peak"] < 0.065


def test_the_theta_b_excursion_is_the_gear_frictions_dead_band():
    """Why acceptance 8's |θ_b| <= 0.03 rad is not met (previous test): the excursion grows with the
    Coulomb gear friction, from 0.018 rad frictionless (the 300 Hz loop's own wobble; 0.015 rad at
    0.05 N m) through 0.027 rad at 0.1 N m and 0.040 rad at 0.2 N m to 0.058 rad at the 0.369 N m of
    the motor's no-load torque through the gear. The θ_b loop's k_p = 8 N m/rad holds a 0.369 N m
    friction off by 0.046 rad; the source's 0.03 rad needs a friction below ~0.12 N m, a third of
    the motor's own no-load torque, before any gearhead loss (η = 0.55). The source gives no gear
    friction; the default stays the no-load torque, and no friction value is tuned here."""
    peaks = []
    for fr in (0.1, 0.2, gear_friction(build().params)):
        lib = build(friction=fr)
        peaks.append(stage1_measures(climb(lib, climb_cycle(lib.ladders, stages=(1,))))["theta_b_peak"])
    assert np.all(np.diff(peaks) > 0.005)  # measured 0.027, 0.040, 0.058 rad
    assert peaks[0] < 0.03 < peaks[1]
    assert peaks[-1] == pytest.approx(gear_friction(build().params) / 8.0, rel=0.3)  # 0.058 vs 0.046


def test_the_motor_drive_gives_the_escap_motors_torque_at_each_speed_within_the_gearheads_ratings():
    # §4.2: k_t 23.3 mN m/A, 0.0024 V/rpm, R_m 9.7 ohm, 0.9 A continuous, eta 0.55, 792:1, and the
    # amplifiers' +-24 V rails (App. B): the torque a large command gets at joint speed w is
    # eta N k_t min(0.9 A, (24 V - k_b N w) / R_m): 9.13 N m at rest, less past 0.84 rad/s, braking past
    # the no-load 1.32 rad/s; it stays under the gearhead's ratings (20 N m static falling to 4.5 N m at
    # 20 rpm, read as a line) at every speed, so the ratings never bind
    from legsim.hybrid import Options

    lib = build(drive="motor")
    m, p = lib.params.motor, lib.params
    g = m.efficiency * p.gear * m.torque_constant
    names = list(lib.robot.model.output_names)
    q0 = initial_configuration(lib, climb_cycle(lib.ladders, stages=(1,))[0])
    for w in (0.0, 0.5, 1.0, 1.5, -1.0):
        v0 = np.zeros(9)
        v0[3] = w
        res = lib.robot.simulate(1e-4, q0=q0, v0=v0, commands0=[50.0] * 6,
                                 options=Options(record_period=1e-4))
        expect = g * min(m.i_continuous, (m.supply - m.back_emf * p.gear * w) / m.resistance)
        assert res.y[0, names.index("tau_m1")] == pytest.approx(expect, rel=1e-9)
    assert g * m.i_continuous == pytest.approx(lib.tau_max, rel=1e-12)
    w = np.linspace(0.0, m.supply / (m.back_emf * p.gear), 50)
    envelope = g * np.minimum(m.i_continuous, (m.supply - m.back_emf * p.gear * w) / m.resistance)
    rating = p.tau_static + (p.tau_dynamic - p.tau_static) * (w * 60.0 / (2.0 * np.pi)) / 20.0
    assert np.all(envelope < rating)


def test_with_the_motor_drive_the_joints_stay_under_the_no_load_speed_and_stage_one_still_climbs():
    # the ideal torque sources let the swinging limb's joints reach 1.7-4.0 rad/s in the cycle (10x the
    # gearhead's 3000 rpm input rating, 0.40 rad/s); the motors' back-EMF brakes them at the rails'
    # no-load speed. Stage 1 still meets the §6.1 bounds it met (measured: settles 3.78 s, x_b peak
    # 3.9 mm, foot 2 6.5-12.5 N) and foot 3 pushes "up to 10 N" (10.8 N; 17.3 N with ideal drives);
    # x_b ends 3.5 mm off (2.6 mm ideal; the source's 2 mm not met either way)
    lib = build(drive="motor")
    run = climb(lib, climb_cycle(lib.ladders, stages=(1,)))
    m = stage1_measures(run)
    no_load = lib.params.motor.supply / (lib.params.motor.back_emf * lib.params.gear)
    assert np.max(np.abs(run.result.x[:, 12:18])) < 1.05 * no_load  # measured 1.34 vs 1.32 rad/s
    assert m["settle_time"] <= 4.5 and m["x_b_peak"] <= 0.005
    assert 6.0 <= m["f2_min"] and m["f2_max"] <= 14.0
    assert m["f3_peak"] < 12.0


def test_a_full_climbing_cycle_switches_control_vectors_and_leaves_every_foot_one_rung_up():
    # acceptance 9 (§6.2): four stages with u1, u2, u1, u3; |theta_b| peak <= 8 degrees; joint 1 at its
    # -117 degree stop (as in the thesis) while the controller keeps tracking foot 1's height
    lib = build()
    run = climb(lib)
    m = cycle_measures(run)
    assert m["stages_done"]
    assert [st.vector for st in run.stages] == ["u1", "u2", "u1", "u3"]
    assert np.degrees(m["theta_b_peak"]) < 8.0  # measured 4.7 degrees
    assert m["limit_margin"][0] < np.radians(0.5)  # joint 1 reached its stop
    np.testing.assert_allclose(m["seats_final"], [[0.0, 0.134], [0.45, 0.134], [0.0, -0.134]])
    # every foot ends standing on its tread: a rung up for feet 1 and 2, the left rung below for foot 3;
    # heights within the treads' sinking and the gear friction (measured -5.5, -3.4, -2.9 mm); foot 1
    # stops 2.1 cm from its post (the friction holds it before the corner), the others in the corner
    assert np.all(np.abs(m["y_error_final"]) < 0.006)
    assert np.all(np.abs(m["feet_final"][:, 0] - m["seats_final"][:, 0]) < lib.ladders.tread)
    assert np.all(np.abs(m["feet_final"][1:, 0] - m["seats_final"][1:, 0]) < 0.003)
    # no torque jump at a switch: the new vector's first command reproduces the last torques (a start
    # from the measured u, zero spring force, jumps 3.1-5.9 N m here)
    k = np.nonzero(np.diff(run.stage))[0]
    assert k.size == 3
    assert np.max(np.abs(run.tau_raw[k + 1] - run.tau_raw[k])) < 1e-9


def lib_sep(run):
    return run.libra.ladders.separation


def lib_step(run):
    return run.libra.ladders.step


def test_a_path_is_minimum_jerk_between_waypoints_and_bad_plans_are_refused():
    p = Path([(0.0, 1.0), (2.0, 3.0)])
    assert p(1.0) == (pytest.approx(2.0), pytest.approx(1.875))  # 15/8 x mean rate at the midpoint
    assert p(-1.0) == (1.0, 0.0) and p(5.0) == (3.0, 0.0)
    with pytest.raises(InputError, match="increase"):
        Path([(1.0, 0.0), (1.0, 2.0)])
    with pytest.raises(InputError, match=r"stages = \(5,\), expected some of 1, 2, 3, 4"):
        climb_cycle(stages=(5,))
    with pytest.raises(InputError, match="tread"):
        Ladders(tread=-0.01)
    with pytest.raises(InputError, match="'step' = '0.1', expected a number"):
        Ladders(step="0.1")
    # a rung every nanometre was 10^9 obstacles (numpy's MemoryError, or a hang building them)
    with pytest.raises(InputError, match="1e\\+09 rungs .* at most 1000"):
        Ladders(step=1e-9, lowest=0.0, highest=1.0)


def test_the_generic_constraint_eliminated_jacobian_of_the_assembled_robot_is_app_a_analytic_one():
    # acceptance 4 across two independent derivations: the CJTC's T-matrix elimination on the multibody
    # model (frame Jacobians, φ and foot 1's base eliminated through x1, y1, y2) against App. A's
    # closed-form 6x6 Jacobian of u1
    from legsim.control import CJTC, ConstrainedChain
    from legsim.robots.libra import kinematics as K
    from legsim.robots.libra.robot import JOINTS

    lib = build()
    kin = Kinematics(lib.mb)
    v = variables(kin)
    for body, foot2, foot3 in (((0.2, -0.05, 0.05), (0.45, 0.0), (0.3, -0.3)),
                               ((0.22, 0.06, -0.1), (0.45, 0.134), (0.45, -0.134))):
        phi, theta = K.inverse(body=body, foot2=foot2, foot3=foot3)
        q = np.concatenate([[0.0, 0.0, phi], theta])
        chain = ConstrainedChain(kin, JOINTS, [v["x1"], v["y1"], v["y2"]], [0.0, 0.0, foot2[1]])
        c = CJTC([v[n] for n in ("x_b", "y_b", "theta_b", "x2", "x3", "y3")], np.ones(6), np.ones(6),
                 chain=chain)
        u, J, _ = c.measure(q)
        np.testing.assert_allclose(u, K.u1(phi, theta), atol=1e-12)
        np.testing.assert_allclose(J, K.jacobian_u1(phi, theta), atol=1e-12)


def test_lumped_gravity_compensation_climbs_too_but_leaves_the_limbs_weight_to_the_springs(stage1):
    # eq. 19: G = J^T [0, M g, 0, ...] with M the whole robot (4.26 kg) at the body, as the thesis ran it;
    # the limbs' own weight is then carried by the virtual springs: the body sits lower than with the
    # exact G (measured 18.5 mm vs 4.9 mm below its command) and foot 3 rests 11 mm above its seat
    lib = build()
    run = climb(lib, climb_cycle(lib.ladders, stages=(1,)), controller_kw={"gravity": "lumped"})
    m = stage1_measures(run)
    _, m_full = stage1
    assert m["y_b_final"] > m_full["y_b_final"] + 0.01
    assert m["y_b_final"] < 0.025
    assert run.true["x3"][-1] == pytest.approx(0.45, abs=0.006)
    assert run.true["y3"][-1] == pytest.approx(-0.134, abs=0.015)


def test_a_10_newton_push_on_the_frictionless_body_moves_it_10_mm_at_1000_newton_per_metre():
    # acceptance 6 (derived): exact gravity compensation, no gear friction, the body held by CJTC with
    # k_p,x = 1000 N/m: a 10 N push (entered as its joint torques through the constrained chain) moves x_b
    # by F / k_p = 10 mm (the source's 2 mm specification needs the gearhead friction the model lacks).
    # The loop runs at 1 kHz here: at 300 Hz without friction the theta_b loop's differenced-rate damping is
    # marginal (k_d T / I ≈ 2 N m s/rad x 3.3 ms / 0.0068 kg m^2 ≈ 1) and the body wobbles (measured).
    from legsim.robots.libra.control import LibraController
    from legsim.robots.libra.experiments import options
    from legsim.robots.libra.gait import Stage

    lib = build(friction=0.0, control_rate=1000.0)
    s1 = climb_cycle(lib.ladders, stages=(1,))[0]
    u0, _ = s1.command(0.0)
    hold = Stage("hold", "u1", s1.pinned, s1.height,
                 {n: Path([(0.0, float(v))]) for n, v in zip(("x_b", "y_b", "theta_b", "x2", "x3", "y3"), u0,
                                                             strict=True)}, 0.0, 4.0)

    class Pushed(LibraController):
        def __call__(self, t, s):
            tau = super().__call__(t, s)
            if t < 2.0:
                return tau
            kin = self.kin.at(self.q)
            return tau + 10.0 * (kin.jacobian(kin.frame("body_centre"))[0] @ self.chain.t_matrix(self.q))

    ctrl = Pushed(lib, [hold], backlash=False, quantise=False)
    lib.robot.simulate(4.0, ctrl, q0=initial_configuration(lib, hold), progress=False,
                       options=options(period=lib.robot.control_period))
    r = ctrl.records()
    before = r["u"][(r["t"] > 1.5) & (r["t"] < 2.0), 0] - u0[0]
    after = r["u"][r["t"] > 3.5, 0] - u0[0]
    assert np.max(np.abs(before)) < 5e-4
    assert np.mean(after) == pytest.approx(0.010, abs=0.001)  # measured 10.2-10.5 mm


def test_the_inclinometer_sticks_within_one_degree_and_reads_in_0_35_degree_steps():
    from legsim.robots.libra.control import Inclinometer

    inc = Inclinometer()
    first = inc.read(np.radians(3.0))
    assert np.degrees(first) == pytest.approx(round(3.0 / 0.35) * 0.35)
    assert inc.read(np.radians(3.8)) == first  # within the ±1° stiction: the pendulum does not move
    moved = inc.read(np.radians(4.5))
    assert moved != first and np.degrees(moved) / 0.35 == pytest.approx(round(4.5 / 0.35))


def test_two_cycles_climb_two_rungs():
    # from the second cycle on foot 3 leaves its left seat and swings under the body to the right ladder
    lib = build()
    run = climb(lib, climb_cycle(lib.ladders, cycles=2), progress=False)
    m = cycle_measures(run)
    assert m["stages_done"] and len(run.stages) == 8
    np.testing.assert_allclose(m["seats_final"], [[0.0, 0.268], [0.45, 0.268], [0.0, 0.0]])
    assert np.all(np.abs(m["y_error_final"]) < 0.006)  # measured -5.5, -3.4, -2.9 mm
    assert np.all(np.abs(m["feet_final"][:, 0] - m["seats_final"][:, 0]) < lib.ladders.tread)
    # foot 3 pushes on the right post (-x) before cycle 2's stage 2 lifts foot 2 off: a later placement
    # left it 42 mm short and unloaded there, and the outcome then hung on the integrator's round-off
    i = np.searchsorted(run.t, run.stages[5].t0 - 0.02)
    assert run.force[i, 2, 0] < -3.0  # measured -5.9 N (foot 3 at x = 0.451 m, the post)
    # the source's acceptance (<= 8 degrees over a cycle); measured 5.07 degrees at DP45 rtol 1e-6 to 2e-5
    assert np.degrees(m["theta_b_peak"]) < 8.0


def test_a_stage_whose_paths_outlast_it_is_refused():
    late = Path([(0.0, 0.1), (7.5, 0.2)])
    with pytest.raises(InputError, match="end after the stage's end"):
        Stage("s", "u1", ("foot1", np.zeros(2)), ("foot2", 0.0), {"x_b": late}, 0.0, 7.0)


def test_a_plan_paced_for_the_motors_is_climbed_alike_by_the_motor_and_the_ideal_drives():
    # pace_for_motors stretches each stage until its joints' 99th-percentile speed (ideal drives) is
    # under the 0.84 rad/s past which the motors' torque falls; the cycle then takes ~80 s (25 s
    # unpaced) and the motor model changes nothing that matters: the same θ_b peak (4.77°, ≤ 8° of
    # acceptance 9, where the unpaced plan with motors peaks at 9.5°) and the same end positions
    from legsim.robots.libra.experiments import pace_for_motors

    ideal, motor = build(), build(drive="motor")
    plan = pace_for_motors(ideal, climb_cycle(ideal.ladders))
    assert all(s.t1 - s.t0 >= 6.0 - 1e-9 for s in plan) and plan[-1].t1 > 50.0
    runs = {name: climb(lib, plan) for name, lib in (("ideal", ideal), ("motor", motor))}
    m = {name: cycle_measures(r) for name, r in runs.items()}
    no_load = motor.params.motor.supply / (motor.params.motor.back_emf * motor.params.gear)
    assert np.max(np.abs(runs["motor"].result.x[:, 12:18])) < 1.05 * no_load
    for name in runs:
        assert m[name]["stages_done"] and np.degrees(m[name]["theta_b_peak"]) < 8.0
        assert np.all(np.abs(m[name]["y_error_final"]) < 0.006)
    assert abs(m["motor"]["theta_b_peak"] - m["ideal"]["theta_b_peak"]) < np.radians(0.5)
    np.testing.assert_allclose(m["motor"]["feet_final"], m["ideal"]["feet_final"], atol=0.003)
