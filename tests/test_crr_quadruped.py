"""The pneumatic CRR quadruped (pneumatic digest §1.1, §7 item 7: "a 4-leg quadruped … fixed-base
mode; joint limits; gravity; later, ground contact and friction (penalty) and a floating base").

The thesis ran no quadruped experiment, so these are consistency checks: the fixed-base robot must
reproduce the single-leg bench leg by leg; the floating robot must carry its weight (statics), hold
its posture, follow a squat by the amount its own kinematics predict; sealed chambers must keep
their mass and follow the adiabatic law P V^k = const. Thresholds are ours and stated per test.
"""

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.crr_leg import JointReference, LegBench, crr_leg_bodies, foot_position
from legsim.robots.crr_quadruped import (
    LEGS,
    ContactParameters,
    Quadruped,
    crawl_references,
    quadruped_bodies,
    squat_posture,
    squat_references,
    stance_references,
)
from legsim.robots.crr_quadruped.body import SHOULDERS, TRUNK_MASS
from legsim.robots.crr_quadruped.quadruped import JOINT_NAMES

d = np.radians
G = 9.81
SQUAT_DEPTH = 0.03
T_SQUAT, RAMP, HOLD = 2.5, 1.0, 1.5
T_UP = T_SQUAT + 2 * RAMP + HOLD          # squat over, posture commanded again
T_END = T_UP + 1.5                 # 7.5 s


@pytest.fixture(scope="module")
def squat_run():
    """Dropped from 3 mm holding the stance, settle 2.5 s, squat 3 cm (1 s ramps, 1.5 s hold)."""
    q = Quadruped()
    return q, q.run(squat_references(SQUAT_DEPTH, T_SQUAT, RAMP, HOLD), T_END, drop=0.003)


def _window(run, t0, t1):
    return (run.t >= t0 - 1e-9) & (run.t <= t1 + 1e-9)


# ------------------------------------------------------------------------------ rigid bodies
def test_each_mirrored_leg_places_its_foot_at_the_mirror_image_of_the_single_leg_foot():
    m = quadruped_bodies("fixed", trunk_height=0.0)
    q_leg = d([25.0, -35.0, 60.0])
    from legsim.multibody import forward_kinematics, frame_placement
    data = m.make_data()
    forward_kinematics(m, data, np.tile(q_leg, 4))
    single = foot_position(q_leg)                        # the crr_leg model, its own base frame
    for leg, shoulder in zip(LEGS, SHOULDERS, strict=True):
        sx = 1.0 if leg[1] == "f" else -1.0
        sy = 1.0 if leg[0] == "l" else -1.0
        got = frame_placement(m, data, f"{leg}_foot")[:3, 3] - np.asarray(shoulder)
        np.testing.assert_allclose(got, single * [sx, sy, 1.0], atol=1e-12)
    leg = crr_leg_bodies()
    np.testing.assert_array_equal(m.dof_range, np.tile(leg.dof_range, (4, 1)))    # §2.6 limits
    np.testing.assert_array_equal(m.dof_limit_stiffness, np.tile(leg.dof_limit_stiffness, 4))


def test_the_floating_robot_weighs_the_trunk_plus_four_srlib_legs():
    legs = quadruped_bodies("fixed").total_mass()       # welded trunk merges into the world
    assert legs == pytest.approx(4 * 0.665916, rel=1e-5)   # 4 x the crr_leg capsules
    assert quadruped_bodies("floating").total_mass() == pytest.approx(legs + TRUNK_MASS, rel=1e-12)


# ------------------------------------------------------------------------------ fixed base
def test_fixed_base_legs_reproduce_the_single_leg_bench_joint_by_joint():
    refs = [
        (JointReference(amplitude=0.3, omega=3.0, offset=d(20)), JointReference.hold(d(-30)),
         JointReference(steps=((0.0, d(30)), (0.2, d(80))))),
        (JointReference.hold(d(10)), JointReference(steps=((0.0, d(-30)), (0.3, d(-50)))),
         JointReference.hold(d(56))),
        (JointReference.hold(d(-20)), JointReference.hold(d(-20)),
         JointReference(amplitude=0.4, omega=5.0, offset=d(60))),
        (JointReference.hold(d(40)), JointReference(amplitude=0.3, omega=4.0, offset=d(-35)),
         JointReference.hold(d(70))),
    ]
    run = Quadruped(base="fixed").run(refs, 1.0)
    for i, triple in enumerate(refs):
        bench = LegBench().run(list(triple), 1.0)
        np.testing.assert_array_equal(run.t, bench.t)
        assert np.abs(bench.q - run.leg(LEGS[i])).max() < 1e-6          # measured ~4e-9 rad
        assert np.abs(bench.q - bench.q[0]).max() > 0.1                  # the legs did move
        np.testing.assert_allclose(run.p_cap[:, 3 * i:3 * i + 3], bench.p_cap, rtol=1e-6)
    assert np.all(run.foot_force == 0.0)
    np.testing.assert_array_equal(run.trunk_position, np.tile([0.0, 0.0, 0.3], (run.t.size, 1)))


def _random_state(q, rng):
    """A state of the assembled quadruped with every valve, pressure, chamber mass, joint angle and
    rate different (a floating trunk tilted and its feet in the ground), and the controller's memory
    after some ticks."""
    from legsim.robots.crr_leg.geometry import JOINT_LIMITS

    lim = np.array(JOINT_LIMITS * 4)
    x = q.initial_state(rng.uniform(lim[:, 0] + 0.05, lim[:, 1] - 0.05), drop=0.0)
    x[q._x_v] = rng.normal(0.0, 1.0, 12)
    x[q._x_u] = rng.uniform(0.0, 10.0, 12)
    gas = x[q._x_gas]
    gas[:, :2] = rng.uniform(1.5e5, 4.4e5, (12, 2))
    gas[:, 2:4] *= rng.uniform(0.5, 2.0, (12, 2))
    x[q._x_gas] = gas
    if q.base == "floating":
        x[q._x_pose[2]] -= rng.uniform(0.0, 1e-3)                  # feet in the ground
        x[q._x_pose[3:]] = np.array([0.02, -0.03, 0.01, 1.0]) / np.linalg.norm([0.02, -0.03, 0.01, 1.0])
        x[q._x_twist] = rng.normal(0.0, 0.2, 6)
    xm = q.robot.model.state_defaults.size                         # memory: ticks, ∫e, e, r, F_p
    x[xm] = rng.integers(1, 1000)
    x[xm + 1:xm + 49] = np.concatenate([rng.normal(0.0, 0.05, 36), rng.normal(0.0, 30.0, 12)])
    return x


@pytest.mark.parametrize("base, valves", [("floating", "fitted"), ("fixed", "shut")])
def test_the_twelve_chambers_evaluated_together_match_the_scalar_kernel(base, valves):
    """The assembly evaluates the 12 cylinders' chamber rates together with the SIMD lane kernel; the
    whole vector field must equal the same robot assembled with ``lanes=False`` (each cylinder through
    the scalar kernel, ``_chamber_kernels.cylinder_rates``) to 1e-12 of each rate's largest magnitude,
    at states with every valve, pressure and joint rate different."""
    from legsim.assembly import Robot
    from legsim.assembly import _layout as AL

    q = Quadruped(base=base, valves=valves)
    r = q.robot
    scalar = Robot(q.bodies, actuators=r.actuators, sensors=r.sensors, contacts=r.contacts,
                   control_period=r.control_period, lanes=False)
    p_lanes, p_scalar = r.model.param_defaults.copy(), scalar.model.param_defaults.copy()
    assert p_lanes[AL.P_OLN] >= 0 and p_scalar[AL.P_OLN] == -1          # the two paths
    assert scalar.model.state_names == r.model.state_names
    rng = np.random.default_rng(7)
    for _ in range(5):
        x = _random_state(q, rng)[:len(r.model.state_names)]
        got, want = np.zeros_like(x), np.zeros_like(x)
        r.model.vector_field(0.0, x, p_lanes, 0, got)
        scalar.model.vector_field(0.0, x, p_scalar, 0, want)
        gas = q._x_gas
        scale = np.maximum(np.abs(want[gas]).max(axis=0), 1e-300)
        assert np.all(np.abs(got[gas] - want[gas]) / scale < 1e-12)     # measured 2.7e-14
        rest = np.setdiff1d(np.arange(x.size), gas.ravel())
        np.testing.assert_array_equal(got[rest], want[rest])
        if valves == "fitted":
            assert np.all(np.abs(want[gas][:, :2]).max(axis=0) > 1e3)   # Pa/s: the valves do flow


def test_each_joint_has_the_rates_torque_and_command_of_the_pneumatic_models_and_the_pid():
    """The assembled quadruped against the CRR joint's models called one by one: at random states, each
    joint's chamber rates (the lane kernel against the actuator's Python model
    ``PneumaticActuator.derivatives`` at the linkage's piston state), joint torque (``force`` × dx/dθ
    through ``JointLinkage.cylinder``) and sampled valve command, integral, error, reference and pressure
    force (``_joint_kernels.pid_law`` against ``reference_at`` on the joint's block) agree to 1e-12."""
    from legsim.actuators.pneumatic import _layout as PL
    from legsim.actuators.pneumatic._chamber_kernels import pressure_force
    from legsim.robots.crr_leg import _joint_kernels as JB
    from legsim.robots.crr_leg import control

    q = Quadruped()
    refs = crawl_references(stride=0.06, lift=0.03, period=3.0, t_start=1.0)
    p = q.params(refs)
    model = q.model
    y_names = model.output_names
    ocp = q.robot.model.param_defaults.size
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(5):
        x = _random_state(q, rng)
        t, k = rng.uniform(0.0, 6.0), 1 + int(rng.integers(0, 5000))
        xm = q.robot.model.state_defaults.size
        x[xm] = k
        f, y, x_new = np.zeros_like(x), np.zeros(len(y_names)), x.copy()
        model.vector_field(t, x, p, 0, f)
        model.outputs(t, x, p, 0, y)
        model.sample(t, x, p, 0, k, x_new)
        for J in range(12):
            j = J % 3
            act, link = q.leg_bench.actuators[j], q.linkages[j]
            gas, u_held = x[q._x_gas[J]], x[q._x_u[J]]
            theta, rate = x[q._x_q[J]], x[q._x_v[J]]
            xp, xd, arm = (float(c) for c in link.cylinder(theta, rate))
            want = act.derivatives(0.0, gas, u_held, min(max(xp, 0.0), act.cylinder.stroke), xd)[0]
            worst = max(worst, np.max(np.abs(f[q._x_gas[J]] - want) / np.abs(want).max()))
            tau = act.force(gas, xdot=xd)[0] * arm
            assert y[y_names.index(f"tau_{JOINT_NAMES[J]}")] == pytest.approx(tau, rel=1e-12)
            b, ra = ocp + control.block_offset(J), ocp + control.row_offset(12, J)
            r = JB.reference_at(t, p, b)
            mem = [x[xm + 1 + J], x[xm + 13 + J], x[xm + 37 + J]]      # ∫e, e, F_p before
            f_p = pressure_force(p[ra:ra + PL.NPARAM], gas[0], gas[1])
            u, integ, e = JB.pid_law(p, ra, b, f_p, theta, r, *mem, False, 1e-3)
            assert x_new[q._x_u[J]] == u
            np.testing.assert_array_equal(x_new[[xm + 1 + J, xm + 13 + J, xm + 25 + J, xm + 37 + J]],
                                          [integ, e, r, f_p])
    assert worst < 1e-12, worst


def test_shut_valves_keep_every_chamber_mass_and_compress_the_gas_adiabatically():
    # A9: sealed chambers (all port areas 0): m constant, P V^k constant with k = 1.4 (adiabatic),
    # V_cap = A_cap (x + L_dead,cap), L_dead,cap = 0.012 m (digest §3.2). The legs sag under gravity
    # onto their gas springs, so the pressures do change.
    run = Quadruped(base="fixed", valves="shut").run(stance_references((20.0, -40.0, 60.0)), 0.5)
    np.testing.assert_array_equal(run.m_cap, np.broadcast_to(run.m_cap[0], run.m_cap.shape))
    np.testing.assert_array_equal(run.m_rod, np.broadcast_to(run.m_rod[0], run.m_rod.shape))
    assert np.all(run.air_used == 0.0)
    assert np.abs(run.p_cap - run.p_cap[0]).max() > 1e3                 # Pa: the gas did work
    pv = run.p_cap * (run.x_piston + 0.012) ** 1.4
    np.testing.assert_allclose(pv, np.broadcast_to(pv[0], pv.shape), rtol=1e-6)


# ------------------------------------------------------------------------------ floating base
def test_dropped_robot_settles_on_its_feet_carrying_its_weight(squat_run):
    q, run = squat_run
    w = _window(run, T_SQUAT - 0.5, T_SQUAT)            # the last 0.5 s before the squat
    mg = q.bodies.total_mass() * G
    fz = run.foot_force[w, :, 2].sum(axis=1)
    assert np.abs(fz / mg - 1.0).max() < 0.01            # measured within 0.06 %, each foot mg/4
    assert np.all(run.foot_force[w, :, 2] > 0.2 * mg / 4)   # every foot carries load
    z = run.trunk_position[w, 2]
    assert np.ptp(z) < 2e-3                             # m; measured 0.6 mm
    assert np.abs(z - q.standing_height(run.ref[w][-1])).max() < 0.01   # measured 6.4 mm low (0.5 mm sink)
    assert np.abs(run.q[w] - run.ref[w]).max() < d(3.0)  # measured 1.1 deg
    assert np.abs(run.trunk_quaternion[w, :3]).max() < 1e-3   # level
    assert np.abs(run.trunk_position[w, :2]).max() < 1e-3     # no drift of the trunk


def test_squat_lowers_and_raises_the_trunk_by_the_kinematic_amount(squat_run):
    q, run = squat_run
    stance = np.tile(d([0.0, -10.0, 85.0]), 4)
    squat = np.tile(squat_posture(SQUAT_DEPTH), 4)
    expected = q.standing_height(squat) - q.standing_height(stance)   # FK of the foot spheres
    assert expected == pytest.approx(-SQUAT_DEPTH, abs=1e-3)

    def height(t0, t1):
        return run.trunk_position[_window(run, t0, t1), 2].mean()

    before = height(T_SQUAT - 0.25, T_SQUAT)
    low = height(T_SQUAT + RAMP + HOLD - 0.25, T_SQUAT + RAMP + HOLD)
    after = height(T_END - 0.25, T_END)
    assert abs((low - before) - expected) < 0.2 * SQUAT_DEPTH    # measured -34.7 vs -29.9 mm
    assert abs((after - low) + expected) < 0.2 * SQUAT_DEPTH     # measured +32.0 mm
    mid = _window(run, T_SQUAT, T_SQUAT + RAMP)
    assert np.all(np.diff(run.trunk_position[mid, 2][::50]) < 0)   # going down while commanded


def test_air_is_drawn_from_the_supply_while_standing(squat_run):
    _, run = squat_run
    assert np.all(np.diff(run.air_used) >= -1e-15)
    assert run.air_used[-1] > run.air_used[0]


def test_crawl_gait_moves_the_trunk_forward_and_keeps_it_upright():
    # one leg swings at a time (Fig. 44's path per leg, 6 cm stride, 3 cm lift, 3 s cycle); the
    # rear legs' paths are reversed in their mirrored frames, so all four push the trunk to +x.
    # Thresholds ours: the trunk advances by at least a quarter of the kinematic stride per cycle
    # (measured 0.039 m over 2 cycles, 32 %: the feet slip and the joints lag by up to 11 deg),
    # never tilts more than 5 deg and never sags below 0.2 m.
    run = Quadruped().run(crawl_references(stride=0.06, lift=0.03, period=3.0, t_start=1.0), 7.0)
    x = run.trunk_position[:, 0]
    assert x[-1] - x[run.t <= 1.0][-1] > 2 * 0.25 * 0.06
    tilt = 2.0 * np.arcsin(np.clip(np.linalg.norm(run.trunk_quaternion[:, :2], axis=1), 0, 1))
    assert tilt.max() < d(5.0)
    assert run.trunk_position[:, 2].min() > 0.2
    assert run.foot_force[:, :, 2].min() == 0.0          # feet do leave the ground


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, word", [
    ({"base": "hovering"}, "hovering"), ({"valves": "open"}, "open"), ({"trunk_mass": -1.0}, "trunk_mass"),
    ({"gains": {"delta": (1, 0, 0)}}, "delta"),
])
def test_bad_quadruped_settings_raise_input_errors_naming_the_value(kwargs, word):
    with pytest.raises(InputError, match=word):
        Quadruped(**kwargs)


def test_bad_references_and_contact_parameters_raise_input_errors():
    q = Quadruped(base="fixed")
    with pytest.raises(InputError, match="None"):
        q.run(None, 0.01)
    with pytest.raises(InputError, match="2 entries"):
        q.run([stance_references(), stance_references()], 0.01)
    with pytest.raises(InputError, match="'xx'"):
        q.params({"xx": stance_references()})
    with pytest.raises(InputError, match="mu"):
        ContactParameters(mu=-0.1)
    with pytest.raises(InputError, match="gamma"):
        squat_posture(0.06)                             # out of Gamma's range


def test_a_run_of_2_to_the_40_seconds_is_refused_not_simulated():
    """Before session 41 ``Quadruped.run`` and ``LegBench.run`` took any finite ``t_final``: 2**40 s (a count
    typed for a time) started a simulation of 35,000 years that looked hung. Both take at most
    ``pneumatic_rig.rig.MAX_DURATION`` (an hour) now, told before anything is built."""
    refs = [JointReference.hold(float(np.radians(a))) for a in (20.0, -30.0, 56.0)]
    for run in (Quadruped(base="fixed").run, LegBench().run):
        with pytest.raises(InputError, match=r"'t_final' = 1099511627776, expected a finite number in "
                                             r"\(0, 3600\]"):
            run(refs, 2**40)


def test_the_joint_controllers_layout_cannot_be_set_by_name():
    """Before session 42 the joint PID's layout slots (joint count, first encoder and pressure channels) were
    parameters without a range, which a scenario could set to anything: the compiled controller then read
    and wrote past its arrays (the leg with n_joints = 40 wrote 37 commands beyond its 3; the quadruped's
    were unnamed ``ctrl_p<k>``). They are fixed at their built values; the gains and references stay
    settable, named per joint (``lf_alpha_kp`` on the quadruped, as ``alpha_kp`` on the leg)."""
    from legsim.hybrid import simulate
    from legsim.robots.crr_leg.leg import crr_leg_model

    leg, quad = crr_leg_model(), Quadruped(base="fixed").model
    for model, joints in ((leg, 3), (quad, 12)):
        assert model.params({"n_joints": joints})[model.param_names.index("n_joints")] == joints
        for name, value in (("n_joints", 40), ("channel_q", 1e5), ("channel_p", -1)):
            with pytest.raises(InputError, match=f"parameter '{name}' = .*fixed: the controller's layout"):
                model.params({name: value})
    assert "rf_gamma_kp" in quad.param_names and "pid_ticks" in quad.state_names
    with pytest.raises(InputError, match="'n_joints' = 40"):
        simulate(leg, 0.01, params={"n_joints": 40})
