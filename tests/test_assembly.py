"""Robots assembled from parts (legsim.assembly): actuator laws against closed forms, sensors against
kinematics and scipy's filters, the Python controller's contract, and clear errors for bad input."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy import signal
from scipy.integrate import solve_ivp

from legsim.assembly import (
    IMU,
    CommandTable,
    ContactForce,
    Contacts,
    DCMotor,
    JointEncoder,
    JointVelocity,
    Measurement,
    MotorCurrent,
    PositionServo,
    Robot,
    Rod,
    TorqueSource,
    VelocityServo,
)
from legsim.contact import ContactLaw, coulomb, hunt_crossley
from legsim.errors import InputError, SimulationError
from legsim.hybrid import Options, simulate
from legsim.multibody import RobotBuilder
from legsim.multibody.samples import hexapod, hexapod_stance

J_ROTOR = 0.02  # kg m^2 about the joint axis


def wheel(gravity=(0.0, 0.0, -9.81), axis=(0, 0, 1)):
    """One link turning about a vertical axis through its centre of mass (gravity does no work)."""
    b = RobotBuilder("wheel", gravity=gravity)
    b.add_body("link", "world", "revolute", axis=axis, mass=1.0, inertia=np.diag([0.01, 0.01, J_ROTOR]))
    return b.compile()


def col(res, robot, name):
    names = robot.model.state_names
    return res.x[:, names.index(name)] if name in names else res.y[:, robot.model.output_names.index(name)]


# ------------------------------------------------------------------------------------- actuators
def test_a_voltage_driven_dc_motor_spins_up_as_the_first_order_closed_form():
    # J dw/dt = eta N kt (V - kb N w) / R  ->  w = V/(kb N) (1 - exp(-t/tau)), tau = J R / (eta N^2 kt kb)
    R, kt, N, eta, V = 2.0, 0.05, 10.0, 0.9, 12.0
    robot = Robot(wheel(), actuators=[DCMotor("m", "link", resistance=R, torque_constant=kt, v_max=24.0,
                                              gear=N, efficiency=eta)])
    res = robot.simulate(0.5, commands0=[V], options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))
    tau = J_ROTOR * R / (eta * N**2 * kt * kt)
    w = V / (kt * N) * (1.0 - np.exp(-res.t / tau))
    np.testing.assert_allclose(col(res, robot, "link_dot"), w, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(col(res, robot, "current_m"), (V - kt * N * w) / R, rtol=1e-7, atol=1e-8)


def test_a_dc_motor_with_inductance_follows_its_two_state_ode():
    R, L, kt, N, V = 1.5, 0.02, 0.05, 10.0, 12.0
    robot = Robot(wheel(), actuators=[DCMotor("m", "link", resistance=R, torque_constant=kt, v_max=24.0,
                                              gear=N, inductance=L)])
    res = robot.simulate(0.3, commands0=[V], options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))

    def f(t, y):
        w, i = y
        return [N * kt * i / J_ROTOR, (V - R * i - kt * N * w) / L]

    ref = solve_ivp(f, (0.0, 0.3), [0.0, 0.0], t_eval=res.t, rtol=1e-11, atol=1e-12, method="DOP853")
    np.testing.assert_allclose(col(res, robot, "link_dot"), ref.y[0], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(col(res, robot, "i_m"), ref.y[1], rtol=1e-6, atol=1e-8)
    assert ref.y[1].max() > 1.2 * ref.y[1][-1]  # the current overshoots: the state matters


def test_a_rotor_inertia_reflects_through_the_gear_squared():
    R, kt, N, Jr, V = 2.0, 0.05, 10.0, 2e-4, 12.0
    robot = Robot(wheel(), actuators=[DCMotor("m", "link", resistance=R, torque_constant=kt, v_max=24.0,
                                              gear=N, rotor_inertia=Jr)])
    res = robot.simulate(0.5, commands0=[V], options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))
    tau = (J_ROTOR + N**2 * Jr) * R / (N**2 * kt * kt)
    np.testing.assert_allclose(col(res, robot, "link_dot"), V / (kt * N) * (1.0 - np.exp(-res.t / tau)),
                               rtol=1e-7, atol=1e-9)


def test_the_current_limit_caps_the_torque_at_stall():
    robot = Robot(wheel(), actuators=[DCMotor("m", "link", resistance=1.0, torque_constant=0.05, v_max=24.0,
                                              gear=10.0, i_max=3.0)])
    res = robot.simulate(0.01, commands0=[24.0], options=Options(record_period=0.01))
    assert col(res, robot, "current_m")[0] == pytest.approx(24.0)   # what flows at stall
    assert col(res, robot, "tau_m")[0] == pytest.approx(10.0 * 0.05 * 3.0)  # what turns the joint


def test_the_simsect_motor_gives_the_torque_speed_band_of_simsect():
    from legsim.actuators.electric import saturate_torque
    from legsim.actuators.electric.dcmotor import stall_torque

    robot = Robot(wheel(), actuators=[DCMotor.simsect("m", "link")])
    for w in (-40.0, -5.0, 0.0, 3.0, 20.0, 31.0, 40.0):
        for u in (-9.0, -2.0, 0.5, 4.0, 9.0):
            res = robot.simulate(1e-3, v0=[w], commands0=[u], options=Options(record_period=1e-3))
            want = saturate_torque(u, w, stall_torque(), 10000.0, 33.0)
            assert col(res, robot, "tau_m")[0] == pytest.approx(float(want), rel=1e-12, abs=1e-12)


def test_servo_and_torque_source_laws_with_their_limits():
    robot = Robot(wheel(), actuators=[PositionServo("p", "link", kp=5.0, kd=0.5, effort=2.0),
                                      VelocityServo("v", "link", kv=0.3, effort=0.4),
                                      TorqueSource("t", "link", gear=3.0, lo=-1.0, hi=0.5)])
    cases = ((0.1, 0.2, (0.3, 1.0, 0.2)), (0.0, 0.0, (1.0, 5.0, 2.0)), (0.0, 1.0, (-1.0, -9.0, -7.0)))
    for q, w, cmd in cases:
        res = robot.simulate(1e-3, q0=[q], v0=[w], commands0=list(cmd), options=Options(record_period=1e-3))
        expect = (np.clip(5.0 * (cmd[0] - q) - 0.5 * w, -2.0, 2.0), np.clip(0.3 * (cmd[1] - w), -0.4, 0.4),
                  3.0 * np.clip(cmd[2], -1.0, 0.5))
        got = [col(res, robot, f"tau_{n}")[0] for n in "pvt"]
        np.testing.assert_allclose(got, expect, rtol=1e-14)


@pytest.mark.parametrize("method", ["radau", "bdf"])
def test_a_python_controller_closes_its_loop_under_scipys_stiff_solvers_as_under_dp45(method):
    # scipy's solvers hand back a new state array after each stretch; the controller's sensor views and
    # command writes must follow it (they once stayed on the first array: the encoder froze at q0 and
    # the commands went nowhere, so the loop ran open without an error)
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link", lo=-1.0, hi=1.0)],
                  sensors=[JointEncoder("enc", joints=["link"]), JointVelocity("rate", joints=["link"])],
                  control_period=0.01)

    def pd(t, s):
        return [4.0 * (1.0 - s.enc[0]) - 0.5 * s.rate[0]]

    def final(m, rtol):
        res = robot.simulate(2.0, pd, q0=[0.0], options=Options(method=m, rtol=rtol, atol=1e-3 * rtol,
                                                              h_max=1e-3, record_period=0.01))
        return res.x[-1, :2], col(res, robot, "tau_t")

    ref, tau_ref = final("dp45", 1e-10)
    got, tau = final(method, 1e-8)
    assert abs(ref[0] - 1.0) < 0.02  # the loop settled the wheel at its target
    np.testing.assert_allclose(got, ref, atol=1e-5)
    np.testing.assert_allclose(tau, tau_ref, atol=1e-4)


def test_an_assembled_robots_own_parameter_vector_is_accepted_back_whole():
    """Its open limits are infinite defaults (and some unused slots NaN). Before session 41,
    model.params(model.param_defaults) refused them ("non-finite parameter value(s)"), and so did
    simulate_stiff given the vector simulate had just built: the radau and bdf runs of a robot with a Python
    controller failed. A non-finite value other than the default's is still refused."""
    from legsim.hybrid.stiff import simulate_stiff

    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")], control_period=0.01)
    model = robot.model
    p = model.param_defaults
    open_limits = np.flatnonzero(~np.isfinite(p))
    assert open_limits.size  # the torque source's ±inf bounds
    np.testing.assert_array_equal(model.params(p), p)
    res = simulate_stiff(model, 0.05, model.state_defaults, p, 0, Options(method="radau"))
    assert res.status == "done"
    for value in (np.nan, -p[open_limits[0]]):
        bad = p.copy()
        bad[open_limits[0]] = value
        with pytest.raises(InputError, match="non-finite parameter value"):
            model.params(bad)
    finite = np.flatnonzero(np.isfinite(p))[0]
    bad = p.copy()
    bad[finite] = np.inf
    with pytest.raises(InputError, match=model.param_names[finite]):
        model.params(bad)


def test_a_python_controller_that_holds_its_commands_costs_no_field_evaluation():
    """At a controller tick the engine hands the state to Python and, on the next call, evaluates the
    field again only if the state changed (the sample hook's measurements, the controller's commands):
    a controller that holds its commands runs exactly as no controller (states and field evaluations), and
    one that changes them costs one evaluation per tick more."""
    robot = Robot(wheel(), actuators=[TorqueSource("m", "link", lo=-10.0, hi=10.0)])
    opts = Options(method="rk4_fixed", h_max=2.5e-4, record_period=1e-3)
    plain = robot.simulate(0.2, commands0=[0.5], options=opts)
    held = robot.simulate(0.2, lambda t, s: None, commands0=[0.5], options=opts)
    same = robot.simulate(0.2, lambda t, s: [0.5], commands0=[0.5], options=opts)
    ramp = robot.simulate(0.2, lambda t, s: [0.5 + t], commands0=[0.5], options=opts)
    assert plain.stats["fevals"] == 4 * plain.stats["steps"] + 1 == 3201
    for res in (held, same):
        assert res.stats["fevals"] == plain.stats["fevals"]
        np.testing.assert_array_equal(res.x, plain.x)
    ticks = 200  # k = 1..200 (the first sample, k = 0, comes before the first evaluation)
    assert ramp.stats["fevals"] == plain.stats["fevals"] + ticks
    assert col(ramp, robot, "link_dot")[-1] > col(plain, robot, "link_dot")[-1]


# --------------------------------------------------------------------------------------- sensors
def test_the_accelerometer_reads_centripetal_tangential_and_gravity_terms_in_sensor_axes():
    r, w0, torque = 0.3, 4.0, 0.5
    rot = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # sensor x = body y
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[IMU("imu", body="link", position=(r, 0.0, 0.0)),
                           IMU("mounted", body="link", position=(r, 0.0, 0.0), rotation=rot, gyro=False)])
    res = robot.simulate(0.2, v0=[w0], commands0=[torque], options=Options(rtol=1e-10, record_period=0.01))
    w = col(res, robot, "link_dot")
    alpha = torque / J_ROTOR
    np.testing.assert_allclose(w, w0 + alpha * res.t, rtol=1e-9)
    # specific force in body axes: (-w^2 r, alpha r, +g); gyro: (0, 0, w)
    np.testing.assert_allclose(col(res, robot, "true_imu_acc_x"), -w**2 * r, rtol=1e-9)
    np.testing.assert_allclose(col(res, robot, "true_imu_acc_y"), alpha * r, rtol=1e-9)
    np.testing.assert_allclose(col(res, robot, "true_imu_acc_z"), 9.81, rtol=1e-12)
    np.testing.assert_allclose(col(res, robot, "true_imu_gyro_z"), w, rtol=1e-12)
    np.testing.assert_allclose(col(res, robot, "true_mounted_acc_x"), alpha * r, rtol=1e-9)
    np.testing.assert_allclose(col(res, robot, "true_mounted_acc_y"), w**2 * r, rtol=1e-9)
    # the held measurement is the truth at the last sample (both at every record here)
    np.testing.assert_allclose(col(res, robot, "imu_acc_x"), col(res, robot, "true_imu_acc_x"), rtol=1e-9)


def test_a_free_falling_spinning_body_feels_only_the_centripetal_term_and_its_gyro_reads_its_spin():
    b = RobotBuilder("brick")
    b.add_body("brick", "world", "free", mass=2.0, inertia=np.diag([0.1, 0.2, 0.3]))
    robot = Robot(b.compile(), sensors=[IMU("imu", body="brick", position=(0.05, 0.02, 0.0))])
    v0 = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 3.0])  # spin about the principal z axis
    res = robot.simulate(0.5, v0=v0, options=Options(rtol=1e-10, atol=1e-12, record_period=0.05))
    acc = np.stack([col(res, robot, f"true_imu_acc_{a}") for a in "xyz"], axis=1)
    # gravity is felt by nothing in free fall; the point 5 cm, 2 cm off the spin axis turns with it
    np.testing.assert_allclose(acc, np.broadcast_to([-9.0 * 0.05, -9.0 * 0.02, 0.0], acc.shape),
                               atol=1e-9)
    np.testing.assert_allclose(col(res, robot, "true_imu_gyro_z"), 3.0, rtol=1e-10)


def measured(noise=0.0, rate=0.0, cutoff=0.0, delay=0, bits=0, lo=-math.inf, hi=math.inf, seed=1,
             method="dp45", t=1.0, offset=0.0, scale=0.0):
    """A wheel spun by a constant torque with one velocity sensor; (t of its samples, truth, measured)."""
    ms = Measurement(noise_std=noise, offset=offset, scale_error=scale, lo=lo, hi=hi, bits=bits,
                     cutoff_hz=cutoff, delay=delay, seed=seed)
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointVelocity("rate", joints=["link"], rate_hz=rate, measurement=ms)],
                  control_period=1e-3)
    opts = Options(method=method, h_max=1e-3, record_period=1e-3)
    res = robot.simulate(t, commands0=[0.04], options=opts)
    period = 1.0 / rate if rate else 1e-3
    every = int(round(period / 1e-3))
    k = np.arange(0, res.t.size, every)
    return res.t[k], col(res, robot, "link_dot")[k], col(res, robot, "rate_link")[k]


def test_sensor_noise_has_its_std_is_seeded_and_does_not_depend_on_the_integrator():
    t, truth, a = measured(noise=0.05, seed=7)
    _, _, b = measured(noise=0.05, seed=7, method="rk4_fixed")
    _, _, c = measured(noise=0.05, seed=8)
    err = a - truth
    assert abs(err.std() - 0.05) < 0.05 * 0.1 and abs(err.mean()) < 4 * 0.05 / math.sqrt(err.size)
    np.testing.assert_allclose(a - truth, b - truth, atol=1e-12)   # same draws whatever the steps
    assert np.corrcoef(a - truth, c - truth)[0, 1] < 0.1               # another seed, other draws
    assert abs(np.corrcoef(err[:-1], err[1:])[0, 1]) < 0.1           # white


def test_offset_scale_saturation_and_quantisation_in_that_order():
    t, truth, y = measured(offset=0.1, scale=0.02, bits=8, lo=-1.0, hi=1.5)
    lsb = 2.5 / 256
    want = np.clip((1.02 * truth + 0.1), -1.0, 1.5)
    want = -1.0 + np.clip(np.floor((want + 1.0) / lsb + 0.5), 0, 255) * lsb
    np.testing.assert_allclose(y, want, atol=1e-12)
    assert y.max() == pytest.approx(-1.0 + 255 * lsb) and truth.max() > 1.5  # saturated at the top code


def test_a_measurement_is_checked_when_made_and_quantises_only_with_a_step_the_model_can_divide_by():
    """Before session 40 a Measurement was checked only by the sensor that took it (seed = NaN or a string
    noise_std lived until then); quantising over lo = 0, hi = 5e-324 divided by zero in the compiled sensor
    model (the run stopped at t = 0 with a ZeroDivisionError) and a range of ±1.7e308 made the state
    infinite. The numbers lie within ±MAX_MEASURED (1e12), a quantiser's step is at least 1/MAX_MEASURED."""
    from legsim.assembly.components import MAX_MEASURED

    for kw, says in ((dict(seed=math.nan), r"'seed' = nan, expected a whole number >= 0"),
                     (dict(noise_std="0.1"), r"'noise_std' = '0.1', expected a number"),
                     (dict(scale_error=1e300), r"'scale_error' = 1e\+300, expected a finite number in \(-1,"),
                     (dict(bits=12, lo=-1.7e308, hi=1.7e308), r"'lo' = -1.7e\+308, expected -inf, inf or a")):
        with pytest.raises(InputError, match="^Measurement: " + says):
            Measurement(**kw)
    with pytest.raises(InputError, match=r"^JointVelocity 'rate': quantising to 12 bits over lo = 0.0, "
                                         r"hi = 5e-324 gives an LSB of 0, expected at least 1e-12"):
        JointVelocity("rate", joints=["link"], measurement=Measurement(bits=12, lo=0.0, hi=5e-324))
    t, truth, y = measured(bits=8, lo=0.0, hi=256 * 4.0 / MAX_MEASURED, t=0.01)  # a step of 4e-12 rad/s
    assert np.all(np.isfinite(y)) and y.max() == pytest.approx(255 * 4.0 / MAX_MEASURED, rel=1e-12)


def test_the_low_pass_is_scipys_first_order_butterworth_at_the_sensor_rate():
    t, truth, y = measured(rate=100.0, cutoff=5.0)
    b, a = signal.butter(1, 5.0, fs=100.0)
    zi = signal.lfilter_zi(b, a) * truth[0]
    want = signal.lfilter(b, a, truth, zi=zi)[0]
    np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


def test_a_delay_shifts_the_measurements_by_whole_samples():
    t, truth, y = measured(rate=50.0, delay=3)
    np.testing.assert_allclose(y[3:], truth[:-3], rtol=1e-12)
    np.testing.assert_allclose(y[:3], truth[0])


def test_a_16_hz_sensor_under_a_1_khz_controller_samples_at_exact_multiples_of_1_16_s():
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointVelocity("slow", joints=["link"], rate_hz=16.0)], control_period=1e-3)
    assert float(robot.sample_rate) == 2000.0 and robot.controller_every == 2
    calls, seen = [], []

    def controller(t, s):
        calls.append(t)
        seen.append(float(s.slow[0]))
        return [0.04]

    res = robot.simulate(0.5, controller, options=Options(rtol=1e-10, record_period=1e-3))
    np.testing.assert_allclose(np.diff(calls), 1e-3, rtol=1e-9)
    w = 0.04 / J_ROTOR  # angular acceleration
    # the held value is the speed at the last sample instant k/16 s before or at t
    want = w * np.floor(np.asarray(calls) * 16.0 + 1e-9) / 16.0
    np.testing.assert_allclose(seen, want, rtol=1e-9, atol=1e-12)
    assert res.t[-1] == 0.5


# -------------------------------------------------------------------- robots, contacts, controllers
@pytest.fixture(scope="module")
def hexapod_parts():
    mb = hexapod()
    feet = [g.name for g in mb.geometries if "sphere" in g.name]
    law = ContactLaw(hunt_crossley(2e4, 0.5), coulomb(0.8, 1e-2))
    return mb, feet, law, hexapod_stance(mb)


def test_the_event_contact_models_parts_give_articulated_models_joint_law(hexapod_parts):
    """event_contact_model builds the joint law kp (q_ref - q) + kd (v_ref - v) + tau_ff from servos,
    feed-forward sources and a command table; in the air its vector field is articulated_model's (its
    own compiled PD kernel), with constant targets and with a target table between two rows."""
    from legsim.multibody.hybrid_model import articulated_model
    from legsim.world import event_contact_model

    mb, feet, law, q0 = hexapod_parts
    na = len(mb.joint_names)
    rng = np.random.default_rng(7)
    gains = dict(kp=rng.uniform(10, 40, na), kd=rng.uniform(0.1, 1.0, na),
                 q_ref=q0[7:] + rng.normal(0, 0.1, na), v_ref=rng.normal(0, 0.5, na),
                 tau_ff=rng.normal(0, 0.3, na))
    q = q0.copy()
    q[2] += 0.2                                                # in the air: no contact force
    q[7:] += rng.normal(0, 0.05, na)
    v = rng.normal(0, 0.3, mb.nv)
    table = q0[7:] + rng.normal(0, 0.1, (3, na))
    t, dt = 0.0137, 0.01                                       # 37 % of the way from row 1 to row 2
    cases = [(gains, gains, 0.0),
             ({**gains, "q_ref": None}, {**gains, "targets": table, "dt_targets": dt}, t)]
    for free, contact, time in cases:
        if "targets" in contact:
            free = {**free, "q_ref": table[1] + (time / dt - 1) * (table[2] - table[1])}
        ref = articulated_model(mb, **free)
        model = event_contact_model(mb, law, geometries=feet, **contact)
        x_ref = np.concatenate([q, v])
        x = model.state_defaults.copy()
        x[:mb.nq + mb.nv] = x_ref
        f_ref, f = np.empty_like(x_ref), np.empty_like(x)
        ref.vector_field(time, x_ref, ref.param_defaults.copy(), 0, f_ref)
        model.vector_field(time, x, model.param_defaults.copy(), 0, f)
        n = mb.nq + mb.nv
        np.testing.assert_allclose(f[:n], f_ref, rtol=1e-12, atol=1e-12 * np.abs(f_ref).max())


def test_a_python_pd_controller_stands_the_hexapod_on_its_sensed_feet(hexapod_parts):
    mb, feet, law, q0 = hexapod_parts
    # a 20 W-class motor (RE25-like rotor 1.1e-6 kg m^2) behind a 50:1 gear
    motors = [DCMotor(j, j, resistance=2.0, torque_constant=0.02, v_max=24.0, gear=50.0,
                      rotor_inertia=1.1e-6) for j in mb.joint_names]
    sensors = [JointEncoder("enc", joints=mb.joint_names, measurement=Measurement(bits=14, lo=-4, hi=4)),
               JointVelocity("rate", joints=mb.joint_names),
               IMU("imu", body="base"), ContactForce("feet", geometries=feet),
               MotorCurrent("amps", actuators=mb.joint_names[:3])]
    for path in ("event", "smooth"):
        robot = Robot(mb, actuators=motors, sensors=sensors,
                      contacts=Contacts(law, geometries=feet, path=path))
        target = q0[7:].copy()

        def pd(t, s, target=target):
            return np.clip(40.0 * (target - s.enc) - 1.0 * s.rate, -24.0, 24.0)

        res = robot.simulate(1.0, pd, q0=q0)
        weight = mb.total_mass() * 9.81
        fz = sum(col(res, robot, f"feet_{g}_z") for g in feet)
        assert fz[-1] == pytest.approx(weight, rel=0.02)
        assert col(res, robot, "fn_total")[-1] == pytest.approx(weight, rel=0.02)
        assert col(res, robot, "imu_acc_z")[-1] == pytest.approx(9.81, rel=0.02)
        assert abs(res.x[-1, 2] - q0[2]) < 0.02


def test_bad_commands_stop_the_run_naming_the_actuator_and_keep_the_records():
    robot = Robot(wheel(), actuators=[TorqueSource("hip", "link"), TorqueSource("knee", "link")])

    def nan_knee(t, s):
        return [0.0, math.nan] if t > 0.005 else [0.0, 0.1]

    with pytest.raises(SimulationError, match="the command of actuator 'knee' is not finite") as info:
        robot.simulate(0.1, nan_knee)
    # the records end at the instant of the bad command, which they show
    last = info.value.result
    assert last.t[-1] == pytest.approx(0.006) and math.isnan(last.x[-1, last.state_names.index("u_knee")])
    with pytest.raises(SimulationError,
                       match=r"shape \(3,\), expected \(2,\): one per actuator \(hip, knee\)"):
        robot.simulate(0.1, lambda t, s: [0.0, 0.0, 0.0])
    with pytest.raises(SimulationError, match="unknown actuator 'kne'.*did you mean 'knee'"):
        robot.simulate(0.1, lambda t, s: {"kne": 1.0})
    res = robot.simulate(0.01, lambda t, s: {"knee": 0.2})
    np.testing.assert_allclose(col(res, robot, "u_knee")[1:], 0.2)


def test_the_controller_sees_read_only_measurements_and_truth():
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointEncoder("enc", joints=["link"])])
    seen = []

    def controller(t, s):
        seen.append((s.enc.flags.writeable, s["enc"] is not None, s.q[0], s.v[0]))
        with pytest.raises(ValueError):
            s.enc[0] = 1.0
        return [0.0]

    robot.simulate(0.003, controller, v0=[2.0])
    assert len(seen) == 4 and not any(w for w, *_ in seen)
    assert seen[-1][3] == pytest.approx(2.0)


@pytest.mark.parametrize("make, message", [
    (lambda mb: Robot(mb, actuators=[TorqueSource("a", "lnk")]),
     "joint 'lnk' does not exist.*did you mean 'link'"),
    (lambda mb: Robot(mb, sensors=[IMU("imu", body="lnk")]),
     "body 'lnk' does not exist.*did you mean 'link'"),
    (lambda mb: Robot(mb, actuators=[TorqueSource("a", "link"), TorqueSource("a", "link")]),
     "another actuator has this name"),
    (lambda mb: Robot(mb, actuators=[PositionServo("s", "link", kp=1.0)],
                      sensors=[MotorCurrent("i", actuators=["s"])]),
     "is a PositionServo; a current sensor needs"),
    (lambda mb: Robot(mb, sensors=[ContactForce("f", geometries=["foot"])]), "has no contacts"),
    (lambda mb: Robot(mb, sensors=[JointEncoder("q", joints=["link"])]),
     "a sensor name must be a Python identifier"),
    (lambda mb: Robot(mb, sensors=[JointEncoder("e", joints=["link"], rate_hz=1.0 / 3.0e-7)]),
     "common sample clock"),
    (lambda mb: Robot(mb, sensors=[JointEncoder("e", joints=["link"], rate_hz=100.0,
                                                measurement=Measurement(cutoff_hz=60.0))]), "Nyquist"),
    (lambda mb: Robot(mb, control_period=0.0), r"'control_period' = 0.0, expected a finite number in \["),
    (lambda mb: DCMotor("m", "link", resistance=-1.0, torque_constant=0.1, v_max=12.0),
     "'resistance' = -1.0, expected a finite number in \\(0"),
    (lambda mb: Measurement(bits=12).check("enc"), "quantising to 12 bits needs a finite range"),
    (lambda mb: Contacts(ContactLaw(hunt_crossley(1e4, 0.1)), path="fast"), "expected 'event' or 'smooth'"),
    (lambda mb: CommandTable(["a"], [[0.0, 1.0]], 0.01), r"table of shape \(1, 2\), expected a finite table"),
    (lambda mb: CommandTable(["a"], [[0.0]], 0.0), "'dt' = 0.0, expected a finite number in \\(0"),
    (lambda mb: Robot(mb, actuators=[TorqueSource("a", Rod("world", (0, 0, 0), "nope", (0, 0, 0)))]),
     "body 'nope' does not exist"),
    (lambda mb: Rod("link", (0, 0, 0), "link", (1, 0, 0)), "both ends on body 'link'"),
    (lambda mb: Robot(mb, actuators=[DCMotor("m", Rod("world", (1, 0, 0), "link", (0.1, 0, 0)),
                                             resistance=1.0, torque_constant=0.1, v_max=12.0)]),
     "a rod takes a TorqueSource"),
    (lambda mb: Robot(mb, actuators=[TorqueSource("a", "link")],
                      command_table=CommandTable(["b"], [[0.0]], 0.01)),
     "CommandTable: actuator 'b' does not exist"),
    (lambda mb: Contacts(ContactLaw(hunt_crossley(1e4, 0.1)), point="top"),
     "point = 'top', expected 'midway' or 'sphere'"),
    (lambda mb: Robot(mb, lanes="yes"), "'lanes' = 'yes', expected True or False"),
])
def test_bad_parts_are_refused_with_a_message_naming_what_and_why(make, message):
    with pytest.raises(InputError, match=message):
        make(wheel())


def test_a_force_on_a_rod_turns_the_wheel_by_dl_dq_times_f_and_a_rod_servo_holds_its_length():
    # a rod from a world point to a point on the wheel: tau = (dl/dq) F by virtual work (dl/dq by
    # central differences of the rod length), so qdd = tau / J_ROTOR; a position servo on the rod starts
    # holding the initial length
    mb = wheel()
    rod = Rod("world", (0.5, 0.3, 0.0), "link", (0.2, 0.05, 0.0))
    robot = Robot(mb, actuators=[TorqueSource("push", rod), PositionServo("hold", rod, kp=50.0, kd=1.0)])
    q, h, force = np.array([0.4]), 1e-6, 7.0
    dl = (robot.rod_lengths(q + h)[0] - robot.rod_lengths(q - h)[0]) / (2 * h)
    x = robot.initial_state(q, [0.0], commands0=[force, robot.rod_lengths(q)[1]])
    f = np.empty_like(x)
    robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
    assert f[1] == pytest.approx(dl * force / J_ROTOR, rel=1e-8)
    held = robot.initial_state(q)
    assert held[robot.model.state_names.index("u_hold")] == pytest.approx(robot.rod_lengths(q)[1], abs=1e-15)
    assert np.isfinite(robot.rod_lengths(q)).all()


def test_a_command_table_plays_commands_back_linearly_and_holds_its_ends():
    # a torque source on a free wheel (inertia I): tau(t) from the table, so the wheel's speed is the
    # integral of the piecewise-linear tau / I (trapezoid rule exact), held at the last row after 0.2 s
    mb = wheel()
    table = np.array([[0.0], [0.3], [-0.1]])
    robot = Robot(mb, actuators=[TorqueSource("a", "link")], command_table=CommandTable(["a"], table, 0.1))
    res = robot.simulate(0.35, options=Options(rtol=1e-10, atol=1e-12, record_period=0.05))
    t = res.t
    tau = np.interp(t, [0.0, 0.1, 0.2], table[:, 0])
    np.testing.assert_allclose(col(res, robot, "tau_a"), tau, atol=1e-12)
    grid = np.linspace(0.0, 0.35, 35001)                       # knots 0.1 and 0.2 on the grid: exact
    f = np.interp(grid, [0.0, 0.1, 0.2], table[:, 0])
    impulse = np.interp(t, grid, np.r_[0.0, np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(grid))])
    np.testing.assert_allclose(res.x[:, mb.nq], impulse / J_ROTOR, rtol=1e-8, atol=1e-10)


def test_the_readme_example_runs_and_stands_the_hexapod():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "legsim.assembly" in b)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    res, robot, mb = scope["res"], scope["robot"], scope["mb"]
    assert res.t[-1] == 2.0
    assert col(res, robot, "fn_total")[-1] == pytest.approx(mb.total_mass() * 9.81, rel=0.03)


# ------------------------------------------------------------------------------ pneumatic cylinders
def test_a_chamber_pressure_sensor_reads_the_crr_leg_cylinders_chamber_states():
    """The CRR leg's cylinders assembled by hand (its physics against the actuator library and the
    multibody ABA: tests/test_crr_leg.py): the state names of a cylinder's gas, and the pressure sensor's
    truth equal to the chamber states it reads."""
    from legsim.assembly import ChamberPressure, PneumaticCylinder
    from legsim.robots.crr_leg.leg import LegBench

    bench = LegBench()
    robot = Robot(bench.bodies, actuators=[PneumaticCylinder(j, j, act, link) for j, act, link in
                                           zip(("alpha", "beta", "gamma"), bench.actuators, bench.linkages,
                                               strict=True)],
                  sensors=[ChamberPressure("p", actuators=["alpha", "beta", "gamma"])])
    names = robot.model.state_names
    assert names[6:11] == ("alpha_p_cap", "alpha_p_rod", "alpha_m_cap", "alpha_m_rod", "alpha_m_supply")
    res = robot.simulate(0.01, q0=[0.3, -0.5, 1.0], commands0=[6.0, 4.0, 5.0],
                         options=Options(record_period=0.005))
    assert np.ptp(col(res, robot, "beta_p_rod")) > 1e3  # Pa: the chambers fill and empty
    for j in ("alpha", "beta", "gamma"):
        for side in ("cap", "rod"):
            np.testing.assert_allclose(col(res, robot, f"true_p_{j}_{side}"),
                                       col(res, robot, f"{j}_p_{side}"), rtol=1e-15)


def _slider():
    b = RobotBuilder("slider", gravity=(0.0, 0.0, 0.0))
    b.add_body("piston", "world", "prismatic", axis=(1, 0, 0), mass=0.8, inertia=np.eye(3) * 1e-4)
    return b.compile()


def test_a_direct_cylinder_on_a_prismatic_joint_has_the_actuator_libraries_rates_and_force():
    from legsim.actuators.pneumatic import PneumaticActuator
    from legsim.assembly import PneumaticCylinder

    act = PneumaticActuator()
    robot = Robot(_slider(), actuators=[PneumaticCylinder("cyl", "piston", act)])
    x = robot.initial_state([0.01], [0.05], commands0=[7.0])
    s = robot.model.state_names.index("cyl_p_cap")
    x[s:s + 2] = 3.1e5, 2.2e5
    f = np.empty_like(x)
    robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
    want = act.derivatives(0.0, x[s:s + 5], 7.0, 0.01, 0.05)[0]
    np.testing.assert_allclose(f[s:s + 5], want, rtol=1e-12)
    force = float(act.force(x[s:s + 5], 0.01, 0.05)[0])
    assert f[1] == pytest.approx(force / 0.8, rel=1e-12)  # piston acceleration F / m


def test_a_valve_voltage_outside_its_range_stops_the_run_naming_the_cylinder():
    from legsim.actuators.pneumatic import PneumaticActuator
    from legsim.assembly import PneumaticCylinder

    robot = Robot(_slider(), actuators=[PneumaticCylinder("cyl", "piston", PneumaticActuator())])
    with pytest.raises(SimulationError, match=r"the command of actuator 'cyl' is outside \[0, 10\]"):
        robot.simulate(0.01, lambda t, s: [11.0], q0=[0.01])
    with pytest.raises(InputError, match="not prismatic; a revolute joint needs a transmission"):
        Robot(wheel(), actuators=[PneumaticCylinder("cyl", "link", PneumaticActuator())])
    with pytest.raises(InputError, match=r"'cyl', row 2: 12.0 is outside its command range \[0, 10\]"):
        Robot(_slider(), actuators=[PneumaticCylinder("cyl", "piston", PneumaticActuator())],
              command_table=CommandTable(["cyl"], [[5.0], [7.0], [12.0]], 0.01))


def _two_sliders():
    b = RobotBuilder("sliders", gravity=(0.0, 0.0, 0.0))
    for k in range(2):
        b.add_body(f"piston{k}", "world", "prismatic", axis=(1, 0, 0), xyz=(0, 0.2 * k, 0), mass=0.8,
                   inertia=np.eye(3) * 1e-4)
    return b.compile()


def test_cylinders_on_one_tank_draw_its_pressure_down_and_conserve_its_mass():
    import dataclasses

    from legsim.actuators.pneumatic import PneumaticActuator
    from legsim.actuators.pneumatic.tank import SupplyTank
    from legsim.assembly import AirSupply, PneumaticCylinder

    act = PneumaticActuator()
    tank = SupplyTank(volume=0.5e-3, temperature=act.t_supply)
    robot = Robot(_two_sliders(), actuators=[PneumaticCylinder(f"c{k}", f"piston{k}", act, supply="tank")
                                             for k in range(2)],
                  resources=[AirSupply("tank", tank, p0=5.0e5)])
    names = robot.model.state_names
    # rates at one state: each cylinder sees the tank's pressure; the tank loses what they draw
    x = robot.initial_state([0.01, 0.02], [0.0, 0.0], commands0=[8.0, 7.0])
    ip = names.index("tank_p")
    x[ip] = 4.2e5
    f = np.empty_like(x)
    robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
    fed = dataclasses.replace(act, p_supply=4.2e5)
    draws = 0.0
    for k, (xp, u) in enumerate(((0.01, 8.0), (0.02, 7.0))):
        s = names.index(f"c{k}_p_cap")
        want = fed.derivatives(0.0, x[s:s + 5], u, xp, 0.0)[0]
        np.testing.assert_allclose(f[s:s + 5], want, rtol=1e-12)
        draws += want[4]
    assert draws > 0.0
    assert f[ip] == pytest.approx(-draws * tank.gas.R * tank.temperature / tank.volume, rel=1e-12)
    # a run with both valves open: the pressure falls and the tank's mass loss is what was drawn
    res = robot.simulate(0.3, q0=[0.01, 0.02], commands0=[9.0, 9.0],
                         options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))
    p_tank = col(res, robot, "tank_p")
    assert np.all(np.diff(p_tank) <= 0.0) and p_tank[-1] < 0.9 * 5.0e5
    drawn = col(res, robot, "c0_m_supply")[-1] + col(res, robot, "c1_m_supply")[-1]
    assert tank.mass(5.0e5) - tank.mass(p_tank[-1]) == pytest.approx(drawn, rel=1e-8)
    with pytest.raises(InputError, match="supply 'tnak'.*did you mean 'tank'"):
        Robot(_two_sliders(), actuators=[PneumaticCylinder("c", "piston0", act, supply="tnak")],
              resources=[AirSupply("tank", tank, p0=5.0e5)])


# --------------------------------------------------------------------------- RATS solenoid cylinder
def _rats_leg(valve, exhaust="trapped", flow=None):
    """One RATS leg on a vertical prismatic joint (no gravity: the joint force is the leg force)."""
    from legsim.actuators.pneumatic import SupplyTank
    from legsim.actuators.pneumatic.gas import NITROGEN
    from legsim.assembly import AirSupply, SolenoidCylinder

    b = RobotBuilder("leg", gravity=(0.0, 0.0, 0.0))
    b.add_body("foot", "world", "prismatic", axis=(0, 0, 1), mass=0.049, inertia=np.eye(3) * 1e-6)
    tank = SupplyTank(temperature=298.15, gas=NITROGEN)
    robot = Robot(b.compile(), actuators=[SolenoidCylinder("leg", "foot", valve, "tank", exhaust=exhaust,
                                                           flow=flow)],
                  resources=[AirSupply("tank", tank, p0=0.724e6 + tank.p_atm)])
    return robot, tank


@pytest.mark.parametrize("preset", ["spool", "rubber", "rubber_source"])
def test_the_solenoid_leg_has_the_hop_benchs_pressure_tank_and_force_equations(preset):
    import dataclasses

    from legsim.actuators.pneumatic.flow import DEFAULT_LAMINAR_RATIO
    from legsim.robots.pneumatic_rig import _hop_hooks as HH
    from legsim.robots.pneumatic_rig.hop import PARAM_NAMES, PRESETS, hop_model

    pre = PRESETS[preset]
    flow = {HH.FLOW_ORIFICE: "orifice", HH.FLOW_CV_SOURCE: "cv", HH.FLOW_CV_CORRECTED: "cv_corrected"}
    valve = dataclasses.replace(pre["valve"], cv=pre["cv"]) if "cv" in pre else pre["valve"]
    robot, tank = _rats_leg(valve, flow=flow[pre["flow"]])
    g = tank.gas
    hop = hop_model()
    p_hop = hop.params({"flow": pre["flow"], "cv": pre.get("cv", pre["valve"].cv), "c1": g.c1, "c2": g.c2,
                        "r_cr": g.critical_ratio, "r_lam": DEFAULT_LAMINAR_RATIO, "r_gas": g.R,
                        "sg": g.specific_gravity, "temperature": tank.temperature, "v_tank": tank.volume,
                        "p_atm": tank.p_atm})
    assert p_hop[PARAM_NAMES.index("k_return")] == 100.0
    names = robot.model.state_names
    for xl, v, pc, pt in ((0.01, 0.4, 3.0e5, 8.0e5), (0.05, 1.2, 6.5e5, 7.0e5), (0.0, 0.0, 1.2e5, 5.0e5)):
        x_hop = np.array([0.0, xl, v, pc, pt, 0.0])
        f_hop = np.zeros(6)
        hop.vector_field(0.0, x_hop, p_hop, HH.UP + HH.VALVE, f_hop)   # stance, valve open
        x = robot.initial_state([xl], [v], commands0=[1.0])
        x[names.index("leg_p")], x[names.index("tank_p")], x[names.index("leg_valve")] = pc, pt, 1.0
        f = np.empty_like(x)
        pa = robot.model.param_defaults.copy()
        robot.model.vector_field(0.0, x, pa, 0, f)
        for ours, theirs in (("leg_p", HH.P), ("tank_p", HH.PT), ("leg_m_used", HH.MU)):
            assert f[names.index(ours)] == pytest.approx(f_hop[theirs], rel=1e-12, abs=1e-9)
        y = np.empty(robot.model.ny)
        robot.model.outputs(0.0, x, pa, 0, y)
        want = HH.leg_force(x_hop, p_hop, HH.UP) if v > 0.0 else HH.drive_force(x_hop, p_hop)
        assert y[robot.model.output_names.index("tau_leg")] == pytest.approx(want, rel=1e-12)


def test_the_valve_opens_one_latency_after_the_command_and_vents_at_once_when_told():
    from legsim.actuators.pneumatic.solenoid import RUBBER_SEAT

    robot, tank = _rats_leg(RUBBER_SEAT, exhaust="instant")
    names = robot.model.state_names

    def fire_20_ms(t, s):
        return [1.0 if t < 0.02 - 1e-12 else 0.0]

    res = robot.simulate(0.05, fire_20_ms, options=Options(rtol=1e-9, atol=1e-11, record_period=1e-3))
    ev = res.events
    t_ev = ev["t"][ev["guard"] == robot.model.guards.index(next(g for g in robot.model.guards
                                                                  if g.name == "valve_leg"))]
    np.testing.assert_allclose(t_ev, [0.005, 0.02], atol=1e-12)            # opens after 5 ms, closes at 20
    valve = res.x[:, names.index("leg_valve")]
    assert valve[res.t < 0.005 - 1e-9].max() == 0.0
    assert valve[(res.t > 0.0051) & (res.t < 0.0199)].min() == 1.0
    p_leg = res.x[:, names.index("leg_p")]
    assert p_leg[res.t < 0.02].max() > 3e5 and np.all(p_leg[res.t > 0.0201] == tank.p_atm)  # vented
    m_used = res.x[-1, names.index("leg_m_used")]
    p_tank = res.x[:, names.index("tank_p")]
    assert tank.mass(p_tank[0]) - tank.mass(p_tank[-1]) == pytest.approx(m_used, rel=1e-8)
    with pytest.raises(SimulationError, match="the command of actuator 'leg' is outside"):
        robot.simulate(0.01, lambda t, s: [0.5])


def test_a_battery_drains_at_the_peukert_rate_of_its_motors_summed_currents():
    from legsim.actuators.electric import PeukertBattery, charge_fraction
    from legsim.assembly import Battery

    b = RobotBuilder("two", gravity=(0.0, 0.0, 0.0))
    for k in range(2):
        b.add_body(f"l{k}", "world", "revolute", axis=(0, 0, 1), xyz=(k, 0, 0), mass=1.0,
                   inertia=np.diag([0.01, 0.01, J_ROTOR]))
    pack = PeukertBattery()
    robot = Robot(b.compile(), actuators=[DCMotor(f"m{k}", f"l{k}", resistance=2.0, torque_constant=0.05,
                                                  v_max=24.0, gear=10.0, battery="pack") for k in range(2)],
                  resources=[Battery("pack", pack)])
    # at rest the motors draw V/R: the charge falls at 1/f(i1 + i2)
    x = robot.initial_state(commands0=[12.0, -6.0])
    f = np.empty_like(x)
    robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
    total = 12.0 / 2.0 + 6.0 / 2.0
    rate = f[robot.model.state_names.index("pack_charge")]
    assert rate == pytest.approx(-float(pack.rate(total)), rel=1e-12)
    res = robot.simulate(0.2, commands0=[12.0, -6.0], options=Options(rtol=1e-10, record_period=0.05))
    charge = col(res, robot, "pack_charge")
    current = np.abs(col(res, robot, "current_m0")) + np.abs(col(res, robot, "current_m1"))
    fine = robot.simulate(0.2, commands0=[12.0, -6.0], options=Options(rtol=1e-10, record_period=1e-4))
    cur_fine = np.abs(col(fine, robot, "current_m0")) + np.abs(col(fine, robot, "current_m1"))
    want = charge_fraction(fine.t, cur_fine, pack)
    # SimSect's offline C(t) (trapezoids on 0.1 ms samples) against the integrated state
    np.testing.assert_allclose(col(fine, robot, "pack_charge"), want, atol=1e-10)
    assert charge[-1] < 1.0 and current[0] == pytest.approx(total)
    with pytest.raises(InputError, match="battery 'pak'.*did you mean 'pack'"):
        Robot(wheel(), actuators=[DCMotor("m", "link", resistance=2.0, torque_constant=0.05, v_max=24.0,
                                          battery="pak")], resources=[Battery("pack")])


def test_initial_commands_and_the_options_choice_of_the_wrong_kind_are_refused_by_name():
    """Found sweeping Robot.simulate in session 43: ``commands0`` of the wrong count or kind was told as
    "the controller returned commands of shape ...", 10**400 was an OverflowError, and
    ``default_options(smooth=array)`` numpy's ValueError."""
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")])
    for bad in ([1.0, 2.0], "abc", True, 10**400, [float("nan")]):
        with pytest.raises(InputError, match=r"commands0 = .*, expected 1 finite numbers \(actuators t\)"):
            robot.simulate(0.01, q0=[0.0], commands0=bad)
    with pytest.raises(InputError, match="command for unknown actuator 'u'"):
        robot.initial_state(commands0={"u": 1.0})
    assert robot.initial_state(commands0={"t": 0.5})[-1] == 0.5
    with pytest.raises(InputError, match="default_options: 'smooth' = .*, expected True or False"):
        robot.default_options(smooth=np.zeros(3))
    assert robot.simulate(0.01, lambda t, s: 10**400, q0=[0.0], raise_on_error=False).status != "done"


def test_hooks_compiled_from_older_sources_are_refused_with_what_to_do():
    from legsim.assembly import _layout as L

    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")])
    p = robot.model.param_defaults.copy()
    x = robot.model.state_defaults.copy()
    assert robot.model.check(0.0, x, p, 0) == 0
    p[L.P_STAMP] += 1.0  # what a stale hook sees: another stamp than the one it was compiled with
    assert robot.model.check(0.0, x, p, 0) == L.ERR_STALE
    assert "delete legsim/assembly/__pycache__" in robot.model.message(L.ERR_STALE)


def test_the_stamp_hashes_only_files_the_hooks_cache_key_covers():
    """legsim's cache keys the hooks on their import closure; a file the stamp hashes outside it would change
    the stamp without recompiling the hooks, and every assembled robot would then be refused as stale (until
    session 43 the stamp hashed ``compiled.py``, which the hooks do not import: an edit of its docstring did
    that)."""
    from pathlib import Path

    from legsim import _numba_cache as nc
    from legsim.assembly import _layout as L

    here = Path(L.__file__).parent
    closure = {Path(nc._module_file(m)).resolve() for m in nc.closure("legsim.assembly._hooks")}
    assert {(here / f).resolve() for f in L._STAMPED} <= closure


def test_contacts_by_link_name_and_by_default_skip_the_shapes_they_cannot_take():
    import pybullet_data

    from legsim.multibody import load_urdf

    a1 = load_urdf(pybullet_data.getDataPath() + "/a1/a1.urdf", floating_base=True)
    law = ContactLaw(hunt_crossley(2e5, 1.5), coulomb(0.8, 1e-2))
    feet = Robot(a1, contacts=Contacts(law, geometries=["FR_toe", "FL_toe", "RR_toe", "RL_toe"]))
    assert feet.point_names == ("FR_toe_sphere_6", "FL_toe_sphere_11", "RR_toe_sphere_16", "RL_toe_sphere_21")
    every = Robot(a1, contacts=Contacts(law, path="smooth"))  # the hips' cylinders are left out
    assert len(every.point_names) == 84
    with pytest.raises(InputError, match="the event path takes at most 62"):
        Robot(a1, contacts=Contacts(law))
    with pytest.raises(InputError, match="'FR_tow' is not a geometry.*did you mean 'FR_toe'"):
        Robot(a1, contacts=Contacts(law, geometries=["FR_tow"]))


def test_an_imus_gyro_can_have_its_own_measurement_model():
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[IMU("imu", body="link", position=(0.2, 0.0, 0.0),
                               gyro_measurement=Measurement(noise_std=0.01, seed=5))])
    res = robot.simulate(0.2, v0=[3.0], options=Options(record_period=1e-3))
    acc_err = col(res, robot, "imu_acc_x") - col(res, robot, "true_imu_acc_x")
    gyro_err = col(res, robot, "imu_gyro_z") - col(res, robot, "true_imu_gyro_z")
    assert np.abs(acc_err).max() < 1e-12                    # the accelerometer's model: exact
    assert 0.007 < gyro_err.std() < 0.013                    # the gyro's: 0.01 rad/s noise


# ------------------------------------------------------------------------------- compiled controllers
from legsim.assembly import compiled_controller  # noqa: E402


@compiled_controller
def compiled_pd(t, sensors, params, commands):
    """u = kp (q_ref - q) - kd qdot on the wheel's encoder and rate (params: kp, kd, q_ref)."""
    commands[0] = params[0] * (params[2] - sensors[0]) - params[1] * sensors[1]


@compiled_controller
def compiled_fire_20_ms(t, sensors, params, commands):
    commands[0] = 1.0 if t < params[0] - 1e-12 else 0.0


@compiled_controller
def compiled_nan_after(t, sensors, params, commands):
    commands[0] = np.nan if t > params[0] else 0.0


def test_a_compiled_controller_equals_the_same_python_controller():
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointEncoder("enc", joints=["link"]), JointVelocity("rate", joints=["link"])])
    kp, kd, q_ref = 0.8, 0.05, 1.0

    def python_pd(t, s):
        return [kp * (q_ref - s.enc[0]) - kd * s.rate[0]]

    opts = Options(rtol=1e-10, atol=1e-12, record_period=0.01)
    ref = robot.simulate(1.0, python_pd, options=opts)
    res = robot.simulate(1.0, compiled_pd, controller_params=[kp, kd, q_ref], options=opts)
    np.testing.assert_array_equal(res.t, ref.t)
    np.testing.assert_allclose(res.x, ref.x, rtol=0, atol=1e-13)
    assert col(res, robot, "link")[-1] > 0.5  # it does turn toward q_ref


def test_a_compiled_controller_schedules_solenoid_switches_and_its_bad_commands_are_named():
    from legsim.actuators.pneumatic.solenoid import RUBBER_SEAT

    robot, _ = _rats_leg(RUBBER_SEAT, exhaust="instant")
    res = robot.simulate(0.05, compiled_fire_20_ms, controller_params=[0.02],
                         options=Options(rtol=1e-9, atol=1e-11, record_period=1e-3))
    g = [i for i, gd in enumerate(robot.model.guards) if gd.name == "valve_leg"][0]
    np.testing.assert_allclose(res.events["t"][res.events["guard"] == g], [0.005, 0.02], atol=1e-12)
    with pytest.raises(SimulationError, match="the command of actuator 'leg' is not finite"):
        robot.simulate(0.05, compiled_nan_after, controller_params=[0.01])


@compiled_controller
def compiled_pi(t, sensors, params, commands, memory):
    """u = kp e + ki ∫e dt on the wheel's encoder (params: kp, ki, q_ref, dt); memory: [∫e dt, ticks]."""
    e = params[2] - sensors[0]
    memory[0] += e * params[3]
    memory[1] += 1.0
    commands[0] = params[0] * e + params[1] * memory[0]


def test_a_compiled_controller_keeps_a_memory_that_the_records_hold_and_a_continued_run_continues():
    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointEncoder("enc", joints=["link"])])
    kp, ki, q_ref, dt = 0.3, 0.4, 1.0, 1e-3
    integral = [0.0]

    def python_pi(t, s):
        e = q_ref - s.enc[0]
        integral[0] += e * dt
        return [kp * e + ki * integral[0]]

    opts = Options(rtol=1e-10, atol=1e-12, record_period=0.01)
    ref = robot.simulate(1.0, python_pi, options=opts)
    res = robot.simulate(1.0, compiled_pi, controller_params=[kp, ki, q_ref, dt],
                         controller_memory=[0.0, 0.0], options=opts)
    nx = robot.model.state_defaults.size
    np.testing.assert_allclose(res.x[:, :nx], ref.x, rtol=0, atol=1e-13)
    names = list(robot.with_compiled_controller(compiled_pi, [kp, ki, q_ref, dt], [0.0, 0.0]).state_names)
    assert names[nx:] == ["ctrl_m0", "ctrl_m1"]
    np.testing.assert_array_equal(res.x[:, nx + 1], np.round(res.t * 1000.0) + 1.0)  # ticks so far
    assert res.x[-1, nx] == pytest.approx(integral[0], rel=1e-12)
    first = robot.simulate(0.5, compiled_pi, controller_params=[kp, ki, q_ref, dt],
                           controller_memory=[0.0, 0.0], options=opts)
    rest = robot.simulate(0.6, compiled_pi, controller_params=[kp, ki, q_ref, dt], x0=first.x[-1],
                          t0=0.5, options=opts)
    # a run samples at its start: the continued run ticks once more at t = 0.5, from the recorded memory
    e = q_ref - first.x[-1, robot.model.state_names.index("link")]
    assert rest.x[0, nx] == first.x[-1, nx] + e * dt
    assert rest.x[0, nx + 1] == first.x[-1, nx + 1] + 1.0 == 502.0
    with pytest.raises(InputError, match="controller_memory has 1 values, but the controller takes no"):
        robot.simulate(0.01, compiled_pd, controller_params=[1.0, 0.1, 0.0], controller_memory=[0.0])
    with pytest.raises(InputError, match="controller_memory is for a compiled controller"):
        robot.simulate(0.01, python_pi, controller_memory=[0.0])
    with pytest.raises(InputError, match="takes 3 arguments, expected"):
        compiled_controller(lambda t, sensors, commands: None)


def test_a_compiled_controller_s_parameters_and_memory_take_names_and_ranges_a_scenario_can_use():
    """``with_compiled_controller(param_names=, param_ranges=, memory_names=)``: the model's parameters can
    be set by name (``Model.params``, as a scenario's ``[controller]`` table), ranges are checked there,
    the memory states are named in the records; wrong counts, unknown or clashing names are refused."""
    from legsim.hybrid import ParamRange, positive

    robot = Robot(wheel(), actuators=[TorqueSource("t", "link")],
                  sensors=[JointEncoder("enc", joints=["link"])])
    names = ("kp", "ki", "q_ref", "dt")
    model = robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0, 1e-3], [0.0, 0.0], param_names=names,
                                           param_ranges={"kp": positive("N m/rad"),
                                                         "q_ref": ParamRange("rad")},
                                           memory_names=("integral", "ticks"))
    assert model.param_names[-4:] == names and model.state_names[-2:] == ("integral", "ticks")
    p = model.params({"q_ref": 0.5, "kp": 2.0})
    np.testing.assert_array_equal(p[-4:], [2.0, 0.4, 0.5, 1e-3])
    with pytest.raises(InputError, match="parameter 'kp' = -1: out of range, expected > 0 N m/rad"):
        model.params({"kp": -1.0})
    res = simulate(dataclasses.replace(model, param_defaults=p), 0.2, options=Options(record_period=1e-3))
    np.testing.assert_array_equal(res.state("ticks"), np.round(res.t * 1000.0) + 1.0)
    # each tick adds (q_ref - q) dt, the encoder reading the angle at the tick (the records' instants)
    np.testing.assert_allclose(res.state("integral"), np.cumsum(0.5 - res.state("link")) * 1e-3, rtol=1e-12)
    with pytest.raises(InputError, match="param_names has 3 entries, expected 4 unique"):
        robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0, 1e-3], param_names=("a", "b", "c"))
    with pytest.raises(InputError, match="memory_names has 2 entries, expected 2 unique"):
        robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0, 1e-3], [0.0, 0.0],
                                       memory_names=("m", "m"))
    with pytest.raises(InputError, match="param_ranges names 'kd', which are not among"):
        robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0, 1e-3], param_names=names,
                                       param_ranges={"kd": positive()})
    with pytest.raises(InputError, match="controller names 'link' are already the robot's own"):
        robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0, 1e-3], [0.0, 0.0],
                                       memory_names=("link", "ticks"))
    # the same names through Robot.simulate (session 43), where a run's parameters are also set by name
    run = robot.simulate(0.2, compiled_pi, controller_params=[0.3, 0.4, 1.0, 1e-3],
                         controller_memory=[0.0, 0.0], param_names=names,
                         param_ranges={"q_ref": ParamRange("rad")}, memory_names=("integral", "ticks"),
                         params={"q_ref": 0.5, "kp": 2.0},
                         options=Options(record_period=1e-3))
    np.testing.assert_array_equal(run.x, res.x)
    with pytest.raises(InputError, match="param_names, memory_names name a compiled controller's values"):
        robot.simulate(0.01, lambda t, s: [0.0], param_names=names, memory_names=("a",))
    # before session 43 these were Python's TypeError or ValueError (a string of names was its letters)
    pi = (compiled_pi, [0.3, 0.4, 1.0, 1e-3], [0.0, 0.0])
    for kw, said in ((dict(param_names="abcd"), "param_names = 'abcd', expected None or a list of names"),
                     (dict(memory_names=7), "memory_names = 7, expected None or a list of names"),
                     (dict(param_names=names, param_ranges=[("kp", positive())]),
                      "param_ranges = .*, expected None or a mapping of parameter name"),
                     (dict(param_names=names, param_ranges={"kp": 1.0}), "param_ranges = .*, expected None")):
        with pytest.raises(InputError, match=said):
            robot.with_compiled_controller(*pi, **kw)
    for bad in ("abc", {"kp": 1.0}, True, ["j", 3]):
        with pytest.raises(InputError, match="controller_params = .*, expected finite numbers"):
            robot.with_compiled_controller(compiled_pi, bad)
    with pytest.raises(InputError, match="param_names has 4 entries, expected 3 .* of controller_params"):
        robot.with_compiled_controller(compiled_pi, [0.3, 0.4, 1.0], param_names=names)


def test_a_sphere_pushes_at_its_deepest_point_or_midway_to_the_ground():
    """A ball sunk 2 mm into the ground, sliding: the normal force is the same, and the friction force's
    moment about the ball's centre has the lever r (``point="sphere"``) or r + gap/2 (``"midway"``)."""
    r, sink = 0.05, 0.002
    b = RobotBuilder("ball", gravity=(0.0, 0.0, 0.0))
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 1e-3)
    b.add_geometry("ball", "sphere", radius=r, name="ball")
    law = ContactLaw(hunt_crossley(1e5, 0.0), coulomb(0.5, 1e-3))
    spin = []
    for point in ("sphere", "midway"):
        robot = Robot(b.compile(), contacts=Contacts(law, path="smooth", point=point))
        x = robot.initial_state(q0=[0.0, 0.0, r - sink, 0.0, 0.0, 0.0, 1.0],
                                v0=[1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
        f = np.zeros_like(x)
        robot.model.vector_field(0.0, x, robot.model.param_defaults.copy(), 0, f)
        names = robot.model.state_names
        assert f[names.index("ball_vz")] == pytest.approx(1e5 * sink**1.5, rel=1e-12)  # F_n / m
        spin.append(f[names.index("ball_wy")])
    assert spin[0] > 0.0                       # friction against +x under the centre: it starts to roll
    assert spin[1] / spin[0] == pytest.approx((r - sink / 2) / r, rel=1e-9)    # gap = -sink


def test_piston_position_and_force_are_outputs_of_every_cylinder():
    from legsim.actuators.pneumatic import PneumaticActuator
    from legsim.assembly import PneumaticCylinder

    act = PneumaticActuator()
    robot = Robot(_slider(), actuators=[PneumaticCylinder("cyl", "piston", act)])
    res = robot.simulate(0.05, q0=[0.01], commands0=[7.0], options=Options(record_period=0.01))
    s = robot.model.state_names.index("cyl_p_cap")
    force = act.force(res.x[:, s:s + 5], col(res, robot, "piston"), col(res, robot, "piston_dot"))
    np.testing.assert_allclose(col(res, robot, "piston_force_cyl"), force, rtol=1e-12)
    np.testing.assert_array_equal(col(res, robot, "piston_x_cyl"), col(res, robot, "piston"))
    np.testing.assert_array_equal(col(res, robot, "piston_force_cyl"), col(res, robot, "tau_cyl"))  # x = q
    assert col(res, robot, "piston")[-1] > 0.011                        # it does extend


# ------------------------------------------------------------------------- URDF effort limits
URDF_ARM = """<robot name="arm">
  <link name="base"/>
  <link name="link"><inertial><mass value="1.0"/><origin xyz="0 0 0"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="hinge" type="revolute"><parent link="base"/><child link="link"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="2.5" velocity="5"/></joint>
</robot>
"""


def test_a_urdf_effort_limit_bounds_torque_sources_and_servos_that_set_none(tmp_path):
    from legsim.multibody import load_urdf

    (tmp_path / "arm.urdf").write_text(URDF_ARM)
    mb = load_urdf(tmp_path / "arm.urdf")
    cases = [(TorqueSource("t", "hinge"), 100.0, 2.5), (TorqueSource("t", "hinge", gear=2.0), 100.0, 2.5),
             (TorqueSource("t", "hinge", lo=-50.0, hi=50.0), 100.0, 50.0),  # the user's own range wins
             (PositionServo("t", "hinge", kp=1000.0), 1.0, 2.5),
             (PositionServo("t", "hinge", kp=1000.0, effort=4.0), 1.0, 4.0),
             (VelocityServo("t", "hinge", kv=100.0), 10.0, 2.5)]
    for act, u, want in cases:
        res = Robot(mb, actuators=[act]).simulate(1e-3, commands0=[u], options=Options(record_period=1e-3))
        assert col(res, Robot(mb, actuators=[act]), "tau_t")[0] == pytest.approx(want, rel=1e-12), act
    # a model without effort limits (RobotBuilder's default 0) stays unlimited
    res = Robot(wheel(), actuators=[TorqueSource("t", "link")]).simulate(1e-3, commands0=[100.0])
    assert res.y[0, list(res.output_names).index("tau_t")] == 100.0



@compiled_controller
def compiled_sine_target(t, sensors, params, commands):
    commands[0] = params[0] * np.sin(params[1] * t)


def test_a_command_that_jumps_at_every_sample_costs_dp45_no_rejected_step():
    """The engine's step after a sample that changed the state (DESIGN.md "Integrators"): a stiff
    servo (poles -225 and -1775 1/s) tracking a sine sampled at 1 kHz. Each held step of the target
    excites the fast pole again; the step kept across the sample, sized at the settled end of the
    period, had been rejected at every sample (measured before: 496-498 of 500 at rtol 1e-4 ... 1e-8).
    Now the first step starts at the size the previous period's first step proposed: measured 16-18
    rejections in 500 samples, with the Python controller and the same law compiled alike."""
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("rail", gravity=(0.0, 0.0, 0.0))
    b.add_body("slider", "world", "prismatic", axis=(1, 0, 0), mass=0.1, inertia=np.eye(3) * 1e-3)
    robot = Robot(b.compile(), actuators=[PositionServo("s", "slider", kp=4e4, kd=200.0)],
                  sensors=[JointEncoder("enc", joints=["slider"])], control_period=1e-3)
    opts = Options(rtol=1e-6, atol=1e-9, h_max=1e-3, record_period=1e-2)
    runs = [robot.simulate(0.5, lambda t, s: [0.01 * np.sin(20.0 * t)], options=opts),
            robot.simulate(0.5, compiled_sine_target, controller_params=[0.01, 20.0], options=opts)]
    for res in runs:
        assert res.status == "done" and res.stats["steps"] > 2000   # the transients set the step
        assert res.stats["rejected"] < 50                            # of 500 samples
    np.testing.assert_allclose(runs[1].x[:, 0], runs[0].x[:, 0], rtol=0, atol=1e-12)
    assert np.abs(runs[0].x[:, 0]).max() > 0.009                     # it tracks the 10 mm sine
