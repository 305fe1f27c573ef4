"""Contact onset/separation as engine events (issue 3: per-contact state exact at the event)."""

import dataclasses
import math

import numpy as np
import pytest

from legsim.assembly import ContactForce, JointEncoder, JointVelocity, TorqueSource, compiled_controller
from legsim.contact import ContactLaw, Plane, coulomb, kelvin_voigt, linear_penalty, restitution
from legsim.contact.laws import anchor_spring, restitution_damping_exact
from legsim.errors import InputError
from legsim.hybrid import Options, simulate
from legsim.multibody import RobotBuilder
from legsim.multibody.samples import HEXAPOD_STANCE, hexapod, hexapod_stance
from legsim.world import RobotWorld
from legsim.world.event_contact import contact_points, event_contact_model, event_contact_robot

M = 0.5
R = 0.05
OPTS = Options(method="dp45", rtol=1e-11, atol=1e-13, record_period=0.0, stop_precision=1e-13)


def _ball(gravity=(0.0, 0.0, 0.0)):
    b = RobotBuilder("ball", gravity=gravity)
    b.add_body("ball", "world", "free", mass=M, inertia=(1e-3, 1e-3, 1e-3))
    b.add_geometry("ball", "sphere", radius=R, material="ball")
    return b.compile()


def _drop(law, v0, t_final, gravity=(0.0, 0.0, 0.0), height=0.1):
    q0 = np.array([0.0, 0.0, R + height, 0.0, 0.0, 0.0, 1.0])
    model = event_contact_model(_ball(gravity), law, q0=q0, v0=[0.0, 0.0, -v0, 0.0, 0.0, 0.0])
    return simulate(model, t_final, options=OPTS)


def _contact_events(res):
    ev = res.events[res.events["kind"] == 0]             # guard events: 2k touchdown, 2k+1 liftoff
    return ev["t"][ev["guard"] % 2 == 0], ev["t"][ev["guard"] % 2 == 1]


@pytest.mark.parametrize("v0", [0.5, 2.0])
def test_pure_penalty_contact_lasts_pi_over_q_and_returns_the_impact_speed(v0):
    # digest A1: a linear spring alone, no gravity: contact time pi / sqrt(k/m), exit speed = entry
    k = 1e4
    res = _drop(ContactLaw(linear_penalty(k)), v0, 0.1 / v0 + 0.05)
    on, off = _contact_events(res)
    assert on.size == 1 and off.size == 1
    assert on[0] == pytest.approx(0.1 / v0, abs=1e-10)
    assert off[0] - on[0] == pytest.approx(math.pi / math.sqrt(k / M), rel=1e-9)
    assert res.x[-1, 9] == pytest.approx(v0, rel=1e-9)          # vz after separation
    assert res.state("v_imp_ball_sphere_0")[-1] == pytest.approx(v0, rel=1e-10)


@pytest.mark.parametrize("v0", [0.3, 1.0, 4.0])
def test_restitution_law_latches_the_located_impact_speed_and_gives_exactly_the_requested_e(v0):
    # (2.20) with the exact inversion: e = eps independent of the impact speed (A4), here to
    # integration tolerance because the latch is the located onset speed (RobotWorld: within ~1 %)
    eps = 0.6
    law = ContactLaw(restitution(1e5, eps, exact=True, v_min=1e-3))
    res = _drop(law, v0, 0.1 / v0 + 0.05)
    on, off = _contact_events(res)
    assert on.size == 1 and off.size == 1
    assert res.state("v_imp_ball_sphere_0")[-1] == pytest.approx(v0, rel=1e-10)   # latched
    assert res.x[-1, 9] / v0 == pytest.approx(eps, rel=1e-7)     # exit speed / entry speed


def test_exact_damping_inversion_is_what_the_law_uses():
    # guards the test above against a law that ignores D: D(0.6) is not small
    assert restitution_damping_exact(0.6) > 0.3


def test_dropped_ball_under_gravity_bounces_lower_each_time_and_separates_at_the_ground():
    res = _drop(ContactLaw(restitution(1e5, 0.8, exact=True)), 0.0, 1.5, gravity=(0, 0, -9.81))
    on, off = _contact_events(res)
    assert on.size >= 3 and off.size >= 3
    assert np.all(on[1:] - off[:on.size - 1] > 0)               # flights between contacts
    apex = [res.x[(res.t > a) & (res.t < b), 2].max() for a, b in zip(off, on[1:], strict=False)]
    assert np.all(np.diff(apex) < 0)
    # located events sit on the ground to stop precision: gap at every event is ~0
    z_at_events = res.events["x"][res.events["kind"] == 0, 2] - R
    assert np.max(np.abs(z_at_events)) < 1e-9


def test_standing_hexapod_rests_on_six_contacts_and_matches_the_fixed_step_world():
    mb = hexapod()
    q0 = hexapod_stance(mb)                       # lowest foot exactly on the ground
    # v_eps = 1e-2: with 1e-3 the tangential friction slope mu F_n / v_eps is too stiff for RK4 at
    # 0.1 ms (RobotWorld then strays 0.8 mm from the converged motion in 1 s; at 5 us it agrees)
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=1e-2))
    q_ref = {f"leg{k}_{s}": v for k in range(6) for s, v in HEXAPOD_STANCE.items()}
    model = event_contact_model(mb, law, kp=30.0, kd=0.3, q_ref=q_ref, q0=q0)
    res = simulate(model, 1.0, options=Options(method="dp45", rtol=1e-8, atol=1e-10,
                                                      record_period=0.01))
    assert res.output("n_touching")[-1] == 6
    assert res.output("fn_total")[-1] == pytest.approx(3.5 * 9.81, rel=1e-3)
    # the same robot in the fixed-step RobotWorld (RK4, 20 us; the same six foot spheres, since
    # RobotWorld would also let the tibia capsules touch) follows the same settling
    feet_only = dataclasses.replace(mb, geometries=tuple(g for g in mb.geometries if g.shape == "sphere"))
    w = RobotWorld(feet_only, contact_law=law, kp=30.0, kd=0.3)
    w.reset(q=q0)
    w.set_targets(np.array([q_ref[j] for j in mb.joint_names]))
    wr = w.simulate(1.0, 2e-5, method="rk4", record_every=500)
    z = np.interp(wr.t, res.t, res.state("base_z"))
    assert np.max(np.abs(z - wr.q[:, 2])) < 1e-6


def test_bad_inputs_name_the_value():
    with pytest.raises(InputError, match="expected a ContactLaw"):
        event_contact_model(_ball(), "penalty")
    with pytest.raises(InputError, match="expected a legsim.contact.Plane"):
        event_contact_model(_ball(), ContactLaw(linear_penalty(1e4)), ground=(0, 0, 1))
    b = RobotBuilder("can")
    b.add_body("can", "world", "free", mass=1.0, inertia=(1, 1, 1))
    b.add_geometry("can", "cylinder", radius=0.05, length=0.1)
    with pytest.raises(InputError, match="is a cylinder; expected sphere, capsule or box"):
        event_contact_model(b.compile(), ContactLaw(linear_penalty(1e4)))
    with pytest.raises(InputError, match="'foot' is not a geometry"):
        event_contact_model(_ball(), ContactLaw(linear_penalty(1e4)), geometries=["foot"])
    assert Plane()  # the default ground exists


def test_the_joint_law_of_an_event_contact_model_is_refused_in_its_own_name():
    """Before session 40 a bad gain given to event_contact_model or event_contact_robot was refused as
    "articulated_model: ..." (the helper they share), and the string "30" was read as the gain 30."""
    arm = RobotBuilder("arm")
    arm.add_body("link", "world", "revolute", axis=(0, 1, 0), mass=1.0, inertia=(1e-2, 1e-2, 1e-2))
    arm.add_geometry("link", "sphere", radius=0.05, xyz=(0.0, 0.0, -0.3))
    mb, law = arm.compile(), ContactLaw(linear_penalty(1e4))
    with pytest.raises(InputError, match=r"^event_contact_model: 'kp' = '30', expected finite numbers in"):
        event_contact_model(mb, law, kp="30")
    with pytest.raises(InputError, match=r"^event_contact_model: 'tau_ff\['link'\]' = 1e\+300, expected a"):
        event_contact_robot(mb, law, tau_ff={"link": 1e300})


def _tripod_table(q0):
    """Joint targets every 1 ms: stance, then a tripod gait ramped in from 0.2 to 0.5 s."""
    t = np.arange(0.0, 1.2, 1e-3)
    tab = np.tile(q0[7:], (t.size, 1))
    ramp = np.clip((t - 0.2) / 0.3, 0.0, 1.0)
    for k in range(6):
        phi = 2 * np.pi * 1.5 * t + (0.0 if k in (0, 3, 4) else np.pi)
        tab[:, 3 * k] += ramp * (1 if k % 2 == 0 else -1) * 0.25 * np.sin(phi)
        tab[:, 3 * k + 1] -= ramp * 0.15 * (1 + np.cos(phi))
        tab[:, 3 * k + 2] += ramp * 0.15 * (1 + np.cos(phi))
    return tab


def test_walking_hexapod_lifts_and_plants_feet_as_events_and_matches_the_fixed_step_world():
    # tripod gait from a 1 ms target table; feet lift off and touch down as located events
    mb = hexapod()
    q0 = hexapod_stance(mb)
    tab = _tripod_table(q0)
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=0.05))
    model = event_contact_model(mb, law, kp=30.0, kd=0.3, targets=tab, dt_targets=1e-3, q0=q0)
    res = simulate(model, 1.0, options=Options(method="dp45", rtol=1e-8, atol=1e-10, record_period=0.01))
    on, off = _contact_events(res)
    assert off.size >= 6 and on.size >= 6                     # every leg swung at least once
    feet_only = dataclasses.replace(mb, geometries=tuple(g for g in mb.geometries if g.shape == "sphere"))
    w = RobotWorld(feet_only, contact_law=law, kp=30.0, kd=0.3)
    w.reset(q=q0)
    w.set_targets(tab, 1e-3)
    wr = w.simulate(1.0, 2e-5, method="rk4", record_every=500)
    for i in range(3):                                        # base x, y, z
        assert np.max(np.abs(np.interp(wr.t, res.t, res.x[:, i]) - wr.q[:, i])) < 2e-6
    assert abs(res.x[-1, 0] - q0[0]) > 0.01                   # and it did walk



# ---- anchor-spring friction (2.21) with the anchor as a state -------------------------------------
MU_A = 0.5
ANCHOR_LAW = ContactLaw(kelvin_voigt(1e5, 200.0), anchor_spring(MU_A, 1e4, brk=1.0, damping=20.0))


def _sled_on_incline(tan_theta):
    """A 2 kg sled on three sphere feet; the incline is gravity tilted by theta about y."""
    th = math.atan(tan_theta)
    b = RobotBuilder("sled", gravity=(9.81 * math.sin(th), 0.0, -9.81 * math.cos(th)))
    b.add_body("sled", "world", "free", mass=2.0, inertia=(0.01, 0.01, 0.01))
    for x, y in ((0.1, 0.0), (-0.05, 0.08), (-0.05, -0.08)):
        b.add_geometry("sled", "sphere", radius=0.01, xyz=(x, y, 0.0), material="sled")
    q0 = np.array([0.0, 0.0, 0.01 - 2.0 * 9.81 * math.cos(th) / 3.0 / 1e5, 0.0, 0.0, 0.0, 1.0])
    res = simulate(event_contact_model(b.compile(), ANCHOR_LAW, q0=q0), 3.0,
                   options=Options(method="dp45", rtol=1e-9, atol=1e-12, record_period=0.01))
    return th, res


def test_anchor_friction_holds_a_sled_below_tan_theta_mu_without_creep():
    # the issue's "anchor-spring friction holds a block on an incline below tan(theta) = mu with
    # bounded creep" (MuJoCo's regularised friction creeps, google-deepmind/mujoco#3328): here the
    # anchor holds exactly once the start transient has died out
    th, res = _sled_on_incline(0.8 * MU_A)
    x = res.state("sled_x")
    x1 = np.interp(1.0, res.t, x)
    assert 0.0 < x1 < 1e-3                                    # the springs took up the load
    assert abs(x[-1] - x1) < 1e-10                            # and nothing moved in the next 2 s
    # each anchor spring carries its share of m g sin(theta) (K_I s, s = x-displacement)
    s_x = [res.state(f"s_sled_sphere_{k}_x")[-1] for k in range(3)]
    assert 1e4 * sum(s_x) == pytest.approx(2.0 * 9.81 * math.sin(th), rel=1e-6)


def test_anchor_friction_slides_a_sled_above_tan_theta_mu_at_the_coulomb_acceleration():
    th, res = _sled_on_incline(1.2 * MU_A)
    i = res.t >= 1.0
    accel = 2.0 * np.polyfit(res.t[i], res.state("sled_x")[i], 2)[0]
    assert accel == pytest.approx(9.81 * (math.sin(th) - MU_A * math.cos(th)), rel=1e-9)


def test_anchor_friction_standing_hexapod_matches_the_fixed_step_world():
    # while every foot sticks the anchor is the integral of v_t in both: same motion
    mb = hexapod()
    q0 = hexapod_stance(mb)
    law = ContactLaw(linear_penalty(2e4), anchor_spring(1.0, 5e3, brk=1.0, damping=20.0))
    q_ref = {n: HEXAPOD_STANCE[n.split("_")[1]] for n in mb.joint_names}
    res = simulate(event_contact_model(mb, law, kp=30.0, kd=0.3, q_ref=q_ref, q0=q0), 0.5,
                   options=Options(method="dp45", rtol=1e-10, atol=1e-12, record_period=0.01))
    feet_only = dataclasses.replace(mb, geometries=tuple(g for g in mb.geometries if g.shape == "sphere"))
    w = RobotWorld(feet_only, contact_law=law, kp=30.0, kd=0.3)
    w.reset(q=q0)
    w.set_targets(np.array([q_ref[j] for j in mb.joint_names]))
    wr = w.simulate(0.5, 2e-5, method="rk4", record_every=500)
    assert np.max(np.abs(np.interp(wr.t, res.t, res.state("base_z")) - wr.q[:, 2])) < 1e-9


def test_anchor_friction_walking_hexapod_converges_without_chattering():
    # feet slip at touchdown and liftoff; the slide of the anchor is a continuous rate, so the
    # adaptive integrator converges (no stick/slip events, no step collapse)
    mb = hexapod()
    q0 = hexapod_stance(mb)
    law = ContactLaw(linear_penalty(2e4), anchor_spring(1.0, 5e3, brk=1.0, damping=20.0))
    model = event_contact_model(mb, law, kp=30.0, kd=0.3, targets=_tripod_table(q0), dt_targets=1e-3, q0=q0)
    ends = []
    for rtol in (1e-6, 1e-8):
        res = simulate(model, 1.0, options=Options(method="dp45", rtol=rtol, atol=1e-2 * rtol,
                                                   record_period=0.0, h_max=0.01))
        assert res.stats["steps"] < 10_000                    # 1 s: ~1e3 steps at 1e-6, ~3e3 at 1e-8
        ends.append(res.x[-1, :3])
        on, off = _contact_events(res)
        assert on.size >= 6 and off.size >= 6
    assert np.max(np.abs(ends[0] - ends[1])) < 1e-6
    assert abs(ends[1][0] - q0[0]) > 0.01                     # it walked
    # a foot in the air carries no anchor displacement (cleared at liftoff, set at touchdown)
    names = [pt[0] for pt in contact_points(mb)]
    mode = int(res.mode[-1])
    for k, n in enumerate(names):
        if not (mode >> k) & 1:
            assert all(res.state(f"s_{n}_{a}")[-1] == 0.0 for a in "xyz")


# ---- boxes and capsules: their multi-point manifolds as event contacts ----------------------------
def _dropped(shape, rpy, z0, **size):
    b = RobotBuilder(shape)
    b.add_body("body", "world", "free", mass=1.0, inertia=(0.01, 0.02, 0.03))
    b.add_geometry("body", shape, rpy=rpy, material="body", **size)
    return b.compile(), np.array([0.0, 0.0, z0, 0.0, 0.0, 0.0, 1.0])


def test_box_lands_on_its_corners_and_matches_the_fixed_step_world():
    # a box tilted about x and y lands on its lowest corner first, settles on its four bottom
    # corners (RobotWorld's box-on-plane manifold) carrying m g, along the fixed-step trajectory
    mb, q0 = _dropped("box", (0.1, 0.05, 0.0), 0.08, size=(0.2, 0.1, 0.05))
    law = ContactLaw(kelvin_voigt(1e5, 300.0), coulomb(0.8, v_eps=0.05))
    res = simulate(event_contact_model(mb, law, q0=q0), 1.0,
                   options=Options(method="dp45", rtol=1e-9, atol=1e-11, record_period=0.01))
    points = contact_points(mb)                                 # 8 corners, body axes (body at q0 unrotated)
    lowest = int(np.argmin([centre[2] for _, _, centre, _ in points]))
    first = int(res.events[res.events["kind"] == 0]["guard"][0])
    assert len(points) == 8 and first == 2 * lowest             # touchdown guard of the lowest corner
    assert points[lowest][0] == f"{mb.geometries[0].name}_corner{lowest}"
    assert res.y[-1, -1] == 4                                   # n_touching at rest
    assert res.y[-1, -2] == pytest.approx(9.81, rel=1e-6)       # fn_total = m g
    # the fixed-step world (same corners, RK4 at 10 us) is first order across the dozen touchdowns
    # and liftoffs of the landing: its base stays within 1e-5 m of the located-event trajectory
    # (measured 2.6e-6 m laterally, 5.7e-6 m vertically; the event run itself is converged to 1e-10)
    # and comes to rest at the same place
    w = RobotWorld(mb, contact_law=law)
    w.reset(q=q0)
    wr = w.simulate(1.0, 1e-5, method="rk4", record_every=1000)
    for i in range(3):
        assert np.max(np.abs(np.interp(wr.t, res.t, res.x[:, i]) - wr.q[:, i])) < 1e-5
    assert np.max(np.abs(w.q[:3] - res.x[-1, :3])) < 1e-6


def test_capsule_lying_on_the_ground_rests_on_both_segment_ends():
    mb, q0 = _dropped("capsule", (0.0, np.pi / 2, 0.0), 0.0201, radius=0.02, length=0.3)
    law = ContactLaw(kelvin_voigt(1e5, 300.0), coulomb(0.8, v_eps=0.05))
    res = simulate(event_contact_model(mb, law, q0=q0), 0.5,
                   options=Options(method="dp45", rtol=1e-9, atol=1e-11, record_period=0.01))
    assert res.y[-1, -1] == 2
    assert res.y[-1, 0] == pytest.approx(9.81 / 2, rel=1e-6)
    assert res.y[-1, 1] == pytest.approx(9.81 / 2, rel=1e-6)
    assert res.state("body_z")[-1] == pytest.approx(0.02 - 9.81 / 2e5, abs=1e-9)


# ---- a compiled controller sampled at a fixed rate (the assembly's, on event_contact_robot) --------
@compiled_controller
def _constant_torques(t, sensors, params, commands):
    n = params.shape[0]  # the controller's torque sources follow the table-driven parts
    for j in range(n):
        commands[commands.shape[0] - n + j] = params[j]


@compiled_controller
def _clock_torques(t, sensors, params, commands):
    for j in range(commands.shape[0]):
        commands[j] = t


@compiled_controller
def _pd_controller(t, sensors, params, commands):
    # params = [kp, kd, q_ref (na)]; sensors = [joint angles (na), joint rates (na)]
    na = commands.shape[0]
    for j in range(na):
        commands[j] = params[0] * (params[2 + j] - sensors[j]) - params[1] * sensors[na + j]


def _torque_sources(mb, prefix=""):
    return [TorqueSource(f"{prefix}{j}", j) for j in mb.joint_names]


def test_controller_torques_are_held_between_samples_taken_at_exact_multiples_of_the_period():
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=0.05))
    mb = hexapod()
    robot = event_contact_robot(mb, law, actuators=_torque_sources(mb), control_period=2e-3)
    res = robot.simulate(0.02, _clock_torques, q0=hexapod_stance(mb),
                         options=Options(method="dp45", rtol=1e-8, atol=1e-10, record_period=5e-4))
    u = res.state("u_leg0_coxa")
    held = np.floor(res.t / 2e-3 + 1e-9) * 2e-3               # the last sample at or before t
    assert np.max(np.abs(u - held)) < 1e-12


@compiled_controller
def _load_sensing(t, sensors, params, commands):
    total = 0.0
    for k in range(sensors.shape[0] // 3):                    # z of each geometry's 3-axis force
        total += sensors[3 * k + 2]
    n = commands.shape[0] // 2                                # servos (table-driven), then torques
    for j in range(n):
        commands[n + j] = params[0] * total


def test_the_controller_reads_the_contact_normal_forces_at_its_sample():
    # torques = 1e-6 x total normal force (negligible effect): the torque held over (t_k, t_k+1)
    # is 1e-6 x the recorded fn_total at t_k (flat ground: the normal force is the force's z)
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=0.05))
    mb = hexapod()
    q_ref = {n: HEXAPOD_STANCE[n.split("_")[1]] for n in mb.joint_names}
    geoms = [g.name for g in mb.geometries]                   # all of them touch (the default)
    robot = event_contact_robot(mb, law, kp=30.0, kd=0.3, q_ref=q_ref, actuators=_torque_sources(mb, "ctrl_"),
                                sensors=[ContactForce("forces", geometries=geoms)], control_period=1e-3)
    res = robot.simulate(0.05, _load_sensing, controller_params=[1e-6], q0=hexapod_stance(mb),
                         options=Options(method="dp45", rtol=1e-9, atol=1e-11, record_period=5e-4))
    at_samples = np.isclose(res.t % 1e-3, 0.0) & (res.t < 0.0495)
    fn_total = res.y[at_samples, -2]
    held = res.state("u_ctrl_leg3_tibia")[np.flatnonzero(at_samples) + 1]  # 0.5 ms after each sample
    assert fn_total.max() > 10.0                              # the robot settles onto its feet
    assert np.max(np.abs(held - 1e-6 * fn_total)) < 1e-12


def test_constant_controller_torques_equal_the_same_feed_forward_torques():
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=0.05))
    mb = hexapod()
    q0 = hexapod_stance(mb)
    q_ref = {n: HEXAPOD_STANCE[n.split("_")[1]] for n in mb.joint_names}
    ff = np.linspace(-0.2, 0.2, len(mb.joint_names))
    opts = Options(method="dp45", rtol=1e-10, atol=1e-12, record_period=0.01)
    robot = event_contact_robot(mb, law, kp=30.0, kd=0.3, q_ref=q_ref, actuators=_torque_sources(mb, "ctrl_"))
    with_ctrl = robot.simulate(0.3, _constant_torques, controller_params=ff, q0=q0, options=opts)
    with_ff = simulate(event_contact_model(mb, law, kp=30.0, kd=0.3, q_ref=q_ref, tau_ff=ff, q0=q0), 0.3,
                       options=opts)
    assert np.max(np.abs(with_ctrl.x[:, :mb.nq] - with_ff.x[:, :mb.nq])) < 1e-9


def test_a_sampled_pd_controller_stands_the_hexapod_like_the_continuous_pd_law():
    law = ContactLaw(linear_penalty(2e4), coulomb(1.0, v_eps=0.05))
    mb = hexapod()
    q0 = hexapod_stance(mb)
    q_ref = np.array([HEXAPOD_STANCE[n.split("_")[1]] for n in mb.joint_names])
    opts = Options(method="dp45", rtol=1e-8, atol=1e-10, record_period=0.01)
    robot = event_contact_robot(mb, law, actuators=_torque_sources(mb), control_period=5e-4,
                                sensors=[JointEncoder("angles", joints=mb.joint_names),
                                         JointVelocity("rates", joints=mb.joint_names)])
    sampled = robot.simulate(1.0, _pd_controller, controller_params=np.r_[30.0, 0.3, q_ref], q0=q0,
                             options=opts)
    targets = dict(zip(mb.joint_names, q_ref, strict=True))
    continuous = simulate(event_contact_model(mb, law, kp=30.0, kd=0.3, q_ref=targets, q0=q0), 1.0,
                          options=opts)
    z_s, z_c = sampled.state("base_z"), continuous.state("base_z")
    assert np.max(np.abs(z_s - z_c)) < 1e-4                   # a 2 kHz zero-order hold vs continuous
    assert sampled.y[-1, -1] == 6                             # standing on its six feet


def test_a_controller_argument_is_refused_with_where_controllers_go():
    law = ContactLaw(linear_penalty(1e4))
    with pytest.raises(InputError, match="event_contact_robot"):
        event_contact_model(_ball(), law, controller=_constant_torques)
