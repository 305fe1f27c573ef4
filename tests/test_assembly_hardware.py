"""Hardware files (legsim.assembly.hardware, issue 14 §1): a TOML beside a URDF declares a robot's parts,
checked key by key; a scenario names one with a Python controller and ``legsim run`` runs it."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from legsim.assembly import (
    IMU,
    ContactForce,
    Contacts,
    DCMotor,
    JointEncoder,
    JointVelocity,
    Measurement,
    MotorCurrent,
    PositionServo,
    Robot,
    TorqueSource,
    VelocityServo,
)
from legsim.assembly.hardware import default_options, load_hardware, parse_hardware
from legsim.cli import SCENARIO_DIR, main
from legsim.contact import ContactLaw, Plane, coulomb, hunt_crossley, inclined_plane, stribeck
from legsim.errors import InputError
from legsim.io import load_run
from legsim.multibody import RobotBuilder, load_urdf
from legsim.scenario import load_scenario

HOPPER = ("hopper.urdf", "hopper_hardware.toml", "hopper_controller.py", "hopper.toml")
WEIGHT = 2.5 * 9.81  # the hopper's 2.5 kg [N]


@pytest.fixture
def hopper_dir(tmp_path):
    """A copy of the bundled hopper files, to edit."""
    for name in HOPPER:
        shutil.copy(SCENARIO_DIR / name, tmp_path / name)
    return tmp_path


def edit(path, old, new):
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))
    return path


# ------------------------------------------------------------------------------- the bundled example
def test_the_bundled_hopper_runs_through_legsim_run_with_its_controller_and_writes_records(tmp_path):
    out = tmp_path / "run"
    assert main(["run", str(SCENARIO_DIR / "hopper.toml"), "--out", str(out), "--plot", "-q"]) == 0
    run = load_run(out)
    rec = run.records
    assert run.meta["status"] == "done" and run.meta["model"] == "hopper"
    assert run.t[-1] == 3.0 and np.allclose(np.diff(run.t), 0.005)
    sc = run.meta["scenario"]
    assert sc["controller"] == "hopper_controller.py:pd_bounce"
    assert sc["controller_params"]["amplitude"] == 0.25
    assert [a["name"] for a in sc["hardware"]["actuators"]] == ["hip", "knee"]
    assert sc["initial"]["rail"] == 0.36 and sc["integrator"]["h_max"] == 0.001
    # crouched and still before the controller starts bobbing at 0.5 s: the foot carries the weight,
    # and its force sensor and the contact output agree
    still = (run.t > 0.3) & (run.t <= 0.5)
    assert rec["foot_force_foot_z"][still].mean() == pytest.approx(WEIGHT, rel=0.02)
    assert rec["fn_total"][still].mean() == pytest.approx(WEIGHT, rel=0.02)
    # the PD law holds the bend, then the sine of 0.25 rad moves the knee and bobs the trunk
    assert rec["knee"][still].mean() == pytest.approx(-1.2, abs=0.1)
    late = run.t > 1.0
    assert np.ptp(rec["knee"][late]) > 0.8 and np.ptp(rec["rail"][late]) > 0.08
    assert np.abs(rec["u_knee"][late]).max() > 5.0  # voltage commands [V] from the controller
    assert len(run.events["t"]) >= 2                  # the foot leaves and lands again
    for name in ("states.png", "outputs.png"):
        assert (out / "plots" / name).stat().st_size > 5000
        (out / "plots" / name).unlink()
    # and legsim plot draws the robot's run directory again (no registered model behind it)
    assert main(["plot", str(out)]) == 0
    assert (out / "plots" / "states.png").stat().st_size > 5000


def test_demo_lists_the_hopper_and_not_its_hardware_file(capsys):
    assert main(["demo", "hopper_hardware"]) == 2
    err = capsys.readouterr().err
    assert "no demo named 'hopper_hardware'" in err
    available = err.split("available:")[1]
    assert "hopper" in available and "hopper_hardware" not in available


# ------------------------------------------------------------------------ the same robot as Python
def hopper_in_python():
    """The bundled hopper_hardware.toml written with the Python API."""
    mb = load_urdf(SCENARIO_DIR / "hopper.urdf")
    motors = [DCMotor(j, j, resistance=1.0, torque_constant=0.03, gear=30.0, efficiency=0.9, v_max=24.0,
                      i_max=10.0, rotor_inertia=1e-5) for j in ("hip", "knee")]
    sensors = [JointEncoder("enc", joints=["rail", "hip", "knee"], measurement=Measurement(bits=14, lo=-3.2,
                                                                                         hi=3.2)),
               JointVelocity("rate", joints=["hip", "knee"],
                             measurement=Measurement(noise_std=0.01, seed=3, cutoff_hz=100.0)),
               IMU("imu", body="trunk", rate_hz=500.0, measurement=Measurement(noise_std=0.05, seed=1)),
               ContactForce("foot_force", geometries=["foot"]),
               MotorCurrent("amps", actuators=["hip", "knee"])]
    contacts = Contacts(ContactLaw(hunt_crossley(1e5, 0.5), coulomb(0.8, 0.01)), Plane((0, 0, 1), 0.0),
                        geometries=["foot"], path="event")
    return Robot(mb, actuators=motors, sensors=sensors, contacts=contacts, control_period=0.001)


VARIANT = """
urdf = "hopper.urdf"
control_period = 0.002
name = "variant"
[urdf_options]
limit_stiffness = 50.0
[contacts]
path = "smooth"
point = "sphere"
normal = { law = "hunt_crossley", k = 3e4, alpha = 0.2, exponent = 1.0 }
friction = { law = "stribeck", mu = 0.6, brk = 1.2, decay = -50.0 }
ground = { incline = 0.1, through = [0, 0, -0.01] }
[actuators.all]
type = "PositionServo"
joints = "all"
kp = 20.0
kd = 0.5
[actuators.knee_motor]
type = "DCMotor.simsect"
joint = "knee"
gear = 20.0
[actuators.push]
type = "TorqueSource"
joint = "rail"
lo = -5.0
hi = 5.0
[actuators.spin]
type = "VelocityServo"
joint = "hip"
kv = 0.3
[sensors.enc]
type = "JointEncoder"
joints = "hip"
rate_hz = 250
[sensors.imu]
type = "IMU"
body = "thigh"
position = [0, 0, -0.1]
rotation = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]
gyro = false
measurement = { delay = 2, offset = 0.1, scale_error = 0.01 }
[sensors.amps]
type = "MotorCurrent"
actuators = "all"
"""


def variant_in_python():
    mb = load_urdf(SCENARIO_DIR / "hopper.urdf", limit_stiffness=50.0)
    acts = [PositionServo(j, j, kp=20.0, kd=0.5) for j in ("rail", "hip", "knee")]
    acts += [DCMotor.simsect("knee_motor", "knee", gear=20.0), TorqueSource("push", "rail", lo=-5.0, hi=5.0),
             VelocityServo("spin", "hip", kv=0.3)]
    sensors = [JointEncoder("enc", joints=["hip"], rate_hz=250.0),
               IMU("imu", body="thigh", position=(0, 0, -0.1), rotation=((0, -1, 0), (1, 0, 0), (0, 0, 1)),
                   gyro=False, measurement=Measurement(delay=2, offset=0.1, scale_error=0.01)),
               MotorCurrent("amps", actuators=["knee_motor"])]
    law = ContactLaw(hunt_crossley(3e4, 0.2, exponent=1.0), stribeck(0.6, brk=1.2, decay=-50.0))
    contacts = Contacts(law, inclined_plane(0.1, (0, 0, -0.01)), path="smooth", point="sphere")
    return Robot(mb, actuators=acts, sensors=sensors, contacts=contacts, control_period=0.002, name="variant")


def test_a_hardware_file_builds_the_same_robot_as_the_equivalent_python(tmp_path):
    shutil.copy(SCENARIO_DIR / "hopper.urdf", tmp_path / "hopper.urdf")
    (tmp_path / "variant.toml").write_text(VARIANT)
    for got, want in ((load_hardware(SCENARIO_DIR / "hopper_hardware.toml"), hopper_in_python()),
                      (load_hardware(tmp_path / "variant.toml"), variant_in_python())):
        assert got.model.name == want.model.name
        assert got.model.state_names == want.model.state_names
        assert got.model.output_names == want.model.output_names
        assert got.actuator_names == want.actuator_names and got.sensor_names == want.sensor_names
        np.testing.assert_array_equal(got.model.param_defaults, want.model.param_defaults)
        np.testing.assert_array_equal(got.model.state_defaults, want.model.state_defaults)
        assert got.model.sample_period == want.model.sample_period
        assert got.model.nguard == want.model.nguard


def test_a_model_given_by_the_caller_replaces_the_urdf():
    b = RobotBuilder("wheel")
    b.add_body("link", "world", "revolute", axis=(0, 0, 1), mass=1.0, inertia=np.diag([0.01, 0.01, 0.02]))
    text = ('[actuators.m]\ntype = "TorqueSource"\njoint = "link"\n'
            '[sensors.s]\ntype = "JointVelocity"\njoints = "all"\n')
    robot = parse_hardware(text, "wheel_hardware.toml", model=b.compile())
    assert robot.name == "wheel" and robot.actuator_names == ("m",)
    res = robot.simulate(0.1, lambda t, s: [0.02])
    assert res.x[-1, robot.model.state_names.index("s_link")] == pytest.approx(0.1, rel=0.02)  # 0.02/0.02 t


def test_the_default_options_are_those_robot_simulate_uses():
    robot = load_hardware(SCENARIO_DIR / "hopper_hardware.toml")
    q0 = [0.36, 0.6, -1.2]
    a = robot.simulate(0.1, lambda t, s: [1.0, -2.0], q0=q0)  # the foot lands after 0.05 s
    b = robot.simulate(0.1, lambda t, s: [1.0, -2.0], q0=q0, options=default_options(robot))
    assert a.stats["steps"] == b.stats["steps"] and a.events.size == b.events.size >= 1
    np.testing.assert_array_equal(a.x, b.x)


def test_initial_values_by_array_by_name_and_first_commands(hopper_dir):
    path = edit(hopper_dir / "hopper.toml", "knee = -1.2", "q0 = [0.5, 0.1, -0.2]\nv0 = [0.0, 1.0, 2.0]\n"
                "knee = -1.2\nu_knee = 3.0")
    sc = load_scenario(path)
    x = sc.initial
    assert (x["rail"], x["hip"], x["knee"]) == (0.36, 0.6, -1.2)  # names override the arrays
    assert (x["rail_dot"], x["hip_dot"], x["knee_dot"]) == (0.0, 1.0, 2.0)
    assert (x["u_hip"], x["u_knee"]) == (0.0, 3.0)
    assert sc.robot_start["commands0"] == {"knee": 3.0}


def test_integrator_options_override_the_robots_defaults(hopper_dir):
    path = hopper_dir / "hopper.toml"
    path.write_text(path.read_text() + '[integrator]\nmethod = "rk4_fixed"\n')
    opts = load_scenario(path).options
    assert opts.method_code.name.lower() == "rk4_fixed" and opts.h_max == 0.001
    assert opts.record_period == 0.005  # from [outputs]


def test_a_scenarios_hardware_table_changes_keys_of_the_hardware_file_and_keeps_the_rest(hopper_dir,
                                                                                         tmp_path):
    path = hopper_dir / "hopper.toml"
    path.write_text(path.read_text() + "[hardware.actuators.legs]\ngear = 40.0\n"
                    "[hardware.sensors.imu]\nrate_hz = 250\n[hardware]\ncontrol_period = 0.002\n")
    sc = load_scenario(path)
    motors = [a for a in sc.robot.actuators if a.name in ("hip", "knee")]
    assert [m.gear for m in motors] == [40.0, 40.0] and [m.resistance for m in motors] == [1.0, 1.0]
    imu = next(s for s in sc.robot.sensors if s.name == "imu")
    assert imu.rate_hz == 250 and imu.measurement.noise_std == 0.05  # the rest of [sensors.imu] stays
    assert sc.robot.control_period == 0.002
    assert load_scenario(SCENARIO_DIR / "hopper.toml").robot.actuators[0].gear == 30.0  # the file itself
    out = tmp_path / "run"
    assert main(["run", str(path), "--out", str(out), "-q"]) == 0
    meta = load_run(out).meta
    assert meta["scenario"]["hardware_overrides"]["actuators"]["legs"]["gear"] == 40.0
    assert "gear" in str(meta["scenario"]["hardware"])  # the robot as built is described beside


@pytest.mark.parametrize("extra, message", [
    ("[hardware.actuators.legs]\ngeer = 40.0\n",
     r"hopper.toml: robot = 'hopper_hardware.toml': .*hopper_hardware.toml \(with overrides\) "
     r"\[actuators.legs\]: unknown DCMotor key 'geer' \(did you mean 'gear'\?\)"),
    ("[hardware.actuators.legs]\ngear = -1.0\n", r"\(with overrides\).*gear"),
    ("hardware = 3\n", r"'hardware' must be a table"),
])
def test_bad_hardware_overrides_name_the_scenario_the_file_and_the_key(hopper_dir, extra, message):
    path = hopper_dir / "hopper.toml"
    text = path.read_text()
    path.write_text(extra + text if extra.startswith("hardware =") else text + extra)
    with pytest.raises(InputError, match=message):
        load_scenario(path)


# ----------------------------------------------------------------------------------- bad input
HW_ERRORS = [
    ("control_period = 0.001", "control_perod = 0.001",
     r"hopper_hardware.toml: unknown key 'control_perod' \(did you mean 'control_period'\?\)", None),
    ("resistance = 1.0", "resistence = 1.0",
     r"\[actuators.legs\]: unknown DCMotor key 'resistence' \(did you mean 'resistance'\?\)", None),
    ("resistance = 1.0", "resistance = -1.0",
     r"\[actuators.legs\]: DCMotor 'hip': 'resistance' = -1.0, expected a finite number in \(0, inf\]", None),
    ("resistance = 1.0", 'resistance = "one"',
     r"\[actuators.legs\]: resistance = 'one': expected a number", None),
    ("resistance = 1.0", "", r"\[actuators.legs\]: missing key 'resistance' \(required by DCMotor\)", None),
    ('type = "DCMotor"', 'type = "DCMotr"',
     r"\[actuators.legs\]: type = 'DCMotr' is unknown.*'DCMotor'", None),
    ('joints = ["hip", "knee"]', 'joints = ["hip", "kne"]',
     r"\[actuators.legs\]: DCMotor 'kne': joint 'kne' does not exist in 'hopper' \(did you mean 'knee'",
     None),
    ('body = "trunk"', 'body = "trunc"',
     r"\[sensors.imu\]: IMU 'imu': body 'trunc' does not exist.*'trunk'", None),
    ('urdf = "hopper.urdf"', 'urdf = "hoper.urdf"',
     r"urdf = 'hoper.urdf': URDF file '.*hoper.urdf' not found", None),
    ('law = "hunt_crossley"', 'law = "hunt_crosley"',
     r"\[contacts.normal\]: law = 'hunt_crosley' is unknown \(did you mean 'hunt_crossley'", None),
    ("alpha = 0.5", "alfa = 0.5", r"\[contacts.normal\]: unknown hunt_crossley key 'alfa'.*'alpha'", None),
    ("k = 1e5", "k = -1e5",
     r"\[contacts.normal\]: hunt_crossley: 'k' = -100000.0, expected a number in \[1e-12, 1e\+12\]", None),
    ("offset = 0.0", "offset = 0.0, incline = 0.1", r"\[contacts.ground\]: give either incline", None),
    ('geometries = ["foot"]', 'geometries = ["fot"]', r"\[contacts\]: .*'fot' is not a geometry", None),
    ('path = "event"', 'path = "event"\npoint = "top"',
     r"\[contacts\]: .*point = 'top', expected 'midway' or 'sphere'", None),
    ("noise_std = 0.05", "noise = 0.05",
     r"\[sensors.imu.measurement\]: unknown Measurement key 'noise' \(did you mean 'noise_std'", None),
    ("noise_std = 0.05", "noise_std = -0.05",
     r"\[sensors.imu.measurement\]: Measurement: 'noise_std' = -0.05, expected a finite number in \[0", None),
    ('body = "trunk"', 'body = "trunk"\njoints = ["hip"]',
     r"\[sensors.imu\]: unknown IMU key 'joints'", None),
    ('actuators = "all"', 'actuators = ["hop"]',
     r"\[sensors.amps\]: MotorCurrent 'amps': actuator 'hop' does not exist \(did you mean 'hip'", None),
    ("control_period = 0.001", "control_period = 0",
     r"'control_period' = 0.0, expected a finite number in \[1e-06, 1000\]", None),
    ('[contacts]', '[urdf_options]\nmimic = "x"\n[contacts]',
     r"\[urdf_options\]: mimic = 'x': expected one of", None),
    ('joints = ["hip", "knee"]', 'joints = []',
     r"\[actuators.legs\]: joints = \[\]: expected one or more", None),
    ('[sensors.imu]', '[sensors.t]',
     r"\[sensors.t\]: IMU 't': a sensor name must be a Python identifier", None),
    ("", "", r"\[sensors.foot_force\]: geometries = 'all', but the robot has no contact geometries",
     "[contacts]"),
]


@pytest.mark.parametrize("old, new, message, drop", HW_ERRORS)
def test_bad_hardware_files_name_the_file_table_key_and_what_is_allowed(hopper_dir, old, new, message, drop):
    path = hopper_dir / "hopper_hardware.toml"
    if drop:  # remove a whole table
        text = path.read_text()
        start = text.index(drop)
        path.write_text(text[:start] + text[text.index("\n[", start + 1) + 1:])
    else:
        edit(path, old, new)
    with pytest.raises(InputError, match=message) as exc:
        load_hardware(path)
    assert str(exc.value).startswith(f"{path}")
    # the scenario naming it says the same
    with pytest.raises(InputError, match=message):
        load_scenario(hopper_dir / "hopper.toml")


SCENARIO_ERRORS = [
    ('"hopper_controller.py:', '"hoper_controller.py:', r"controller = 'hoper_controller.py:pd_bounce': "
     r"controller file '.*hoper_controller.py' not found"),
    (":pd_bounce", ":pd_bonce",
     r"hopper_controller.py has no function 'pd_bonce' \(did you mean 'pd_bounce'"),
    ('"hopper_controller.py:pd_bounce"', '"no_such.module:pd"', r"cannot import module 'no_such.module'"),
    ('"hopper_controller.py:pd_bounce"', '"hopper_controller.py"', "expected 'package.module:function'"),
    ("kp = 60.0", "kpp = 60.0",
     r"\[controller_params\] kpp: pd_bounce\(\) takes no parameter 'kpp' \(did you mean 'kp'"),
    ("kp = 60.0", 'kp = "high"', r"\[controller_params\] kp = 'high': expected a number"),
    ("[controller_params]", "[controller_paramz]",
     r"controller_paramz: unknown key of a robot scenario \(did you mean 'controller_params'"),
    ("knee = -1.2", "kne = -1.2",
     r"\[initial\] kne: unknown initial value of robot 'hopper' \(did you mean 'knee'"),
    ("knee = -1.2", "q0 = [1, 2]", r"\[initial\] q0 = \[1, 2\]: expected a list of 3 numbers"),
    ("t_final = 3.0", "t_final = 3.0\nmode = 1", "mode: unknown key of a robot scenario"),
    ("t_final = 3.0", 't_final = 3.0\nmodel = "slip"', "'model' and 'robot' exclude each other"),
    ('"hopper_hardware.toml"', '"hoper_hardware.toml"',
     r"robot = 'hoper_hardware.toml': hardware file .* not found"),
    ("[outputs]", "[integrator]\nrtol = -1\n[outputs]", r"\[integrator\] rtol = -1: out of range"),
]


@pytest.mark.parametrize("old, new, message", SCENARIO_ERRORS)
def test_bad_robot_scenarios_name_the_file_key_and_what_is_wrong(hopper_dir, old, new, message):
    path = edit(hopper_dir / "hopper.toml", old, new)
    with pytest.raises(InputError, match=message) as exc:
        load_scenario(path)
    assert str(exc.value).startswith(f"{path}: ")


def test_a_factory_without_controller_params_and_a_controller_module_that_fails_are_explained(hopper_dir):
    path = hopper_dir / "hopper.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[controller_params]")] + text[text.index("[initial]"):])
    factory = (r"pd_bounce\(\) cannot be called as controller\(t, sensors\); if it makes the controller, "
               r"give its parameters in \[controller_params\]")
    with pytest.raises(InputError, match=factory):
        load_scenario(path)
    (hopper_dir / "broken.py").write_text("import no_such_package_here\n")
    edit(path, "hopper_controller.py:pd_bounce", "broken.py:pd")
    with pytest.raises(InputError, match=r"importing '.*broken.py' failed: ModuleNotFoundError: "
                                         r"No module named 'no_such_package_here'"):
        load_scenario(path)


def test_a_plain_controller_function_runs_without_controller_params(hopper_dir):
    (hopper_dir / "hold.py").write_text("def hold(t, s):\n    return {'knee': -4.0 * (s.enc[2] + 1.2)}\n")
    path = hopper_dir / "hopper.toml"
    text = path.read_text()
    text = text[:text.index("[controller_params]")] + text[text.index("[initial]"):]
    path.write_text(text.replace("hopper_controller.py:pd_bounce", "hold.py:hold").replace("3.0", "0.05"))
    sc = load_scenario(path)
    calls = []
    ctrl = sc.robot_controller

    def spy(t, s):
        calls.append(t)
        return ctrl(t, s)

    res = sc.robot.simulate(sc.t_final, spy, options=sc.options, **sc.robot_start)
    assert len(calls) == 51 and math.isclose(calls[-1], 0.05)
    names = sc.model.state_names
    u_knee = res.x[-1, names.index("u_knee")]
    assert u_knee != 0.0
    assert u_knee == pytest.approx(-4.0 * (res.x[-1, names.index("enc_knee")] + 1.2), abs=0.05)
    assert np.all(res.x[:, names.index("u_hip")] == 0.0)  # a mapping command leaves the hip's held at 0


def test_cli_reports_a_bad_hardware_file_in_one_line_without_traceback(hopper_dir):
    edit(hopper_dir / "hopper_hardware.toml", "gear = 30.0", "gear = 0.0")
    proc = subprocess.run([sys.executable, "-m", "legsim", "run", str(hopper_dir / "hopper.toml"), "--out",
                           str(hopper_dir / "out")], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "hopper_hardware.toml [actuators.legs]: DCMotor 'hip': 'gear' = 0.0" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_a_controller_that_fails_mid_run_stops_it_and_the_records_so_far_are_kept(hopper_dir, capsys):
    (hopper_dir / "flaky.py").write_text("def flaky(t, s):\n    if t > 0.02:\n"
                                         "        raise RuntimeError('lost the encoder')\n"
                                         "    return [0.0, 0.0]\n")
    path = hopper_dir / "hopper.toml"
    text = path.read_text()
    path.write_text(text[:text.index("[controller_params]")].replace("hopper_controller.py:pd_bounce",
                                                                     "flaky.py:flaky")
                    + text[text.index("[initial]"):])
    assert main(["run", str(path), "--out", str(hopper_dir / "run"), "-q"]) == 1
    assert "lost the encoder" in capsys.readouterr().err
    run = load_run(hopper_dir / "run")
    assert run.meta["status"] != "done" and "lost the encoder" in run.meta["message"]
    assert 0.015 <= run.t[-1] <= 0.025 and run.meta["scenario"]["controller"] == "flaky.py:flaky"


# ------------------------------------------------------------------- pneumatics, resources, batteries
RAIL_URDF = """<?xml version="1.0"?>
<robot name="pneumatic_hopper">
  <link name="world"/>
  <joint name="rail" type="prismatic">
    <parent link="world"/><child link="body"/><axis xyz="0 0 1"/>
    <limit lower="-1.0" upper="2.0" effort="0" velocity="10"/>
  </joint>
  <link name="body">
    <inertial><mass value="3.397"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <joint name="leg" type="prismatic">
    <parent link="body"/><child link="foot"/><origin xyz="0 0 -0.10"/><axis xyz="0 0 -1"/>
    <limit lower="0.0" upper="0.063" effort="0" velocity="10"/>
  </joint>
  <link name="foot">
    <inertial><mass value="0.049"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <collision name="foot_pad"><geometry><sphere radius="0.01"/></geometry></collision>
  </link>
</robot>
"""

RATS_TOML = """
urdf = "rail.urdf"
[urdf_options]
limit_stiffness = 2e5
limit_damping = 200.0
[contacts]
geometries = ["foot_pad"]
normal = { law = "hunt_crossley", k = 2e6, alpha = 0.3 }
friction = { law = "coulomb", mu = 0.8, v_eps = 0.01 }
[resources.tank]
type = "AirSupply"
p0 = 825325.0
gas = "nitrogen"
temperature = 298.15
leak = "exponential"
leak_tau = 400.0
[actuators.leg]
type = "SolenoidCylinder"
supply = "tank"
valve = { preset = "rubber_seat", latency = 6e-3 }
flow = "cv_corrected"
exhaust = "orifice"
exhaust_area = 1.6e-6
stroke = 0.063
[actuators.spare]
type = "SolenoidCylinder"
joint = "rail"
supply = "tank"
valve = "spool_sleeve"
k_return = 50.0
[actuators.third]
type = "SolenoidCylinder"
joint = "leg"
supply = "tank"
valve = { latency = 0.01, flow = "cv", cv = 0.2, close_latency = 0.002 }
[sensors.z]
type = "JointEncoder"
joints = ["rail"]
[sensors.p]
type = "ChamberPressure"
actuators = "all"
"""


def rats_in_python(urdf):
    """RATS_TOML written with the Python API (as examples/pneumatic_hopper.py builds its hopper)."""
    import dataclasses

    from legsim.actuators.pneumatic import RUBBER_SEAT, SPOOL_SLEEVE, SolenoidValve, SupplyTank
    from legsim.actuators.pneumatic.gas import NITROGEN
    from legsim.assembly import AirSupply, ChamberPressure, SolenoidCylinder

    mb = load_urdf(urdf, limit_stiffness=2e5, limit_damping=200.0)
    tank = SupplyTank(temperature=298.15, gas=NITROGEN, leak="exponential", leak_tau=400.0)
    rubber = dataclasses.replace(RUBBER_SEAT, latency=6e-3)
    third = SolenoidValve("third", latency=0.01, flow="cv", cv=0.2, close_latency=0.002)
    acts = [SolenoidCylinder("leg", "leg", rubber, "tank", flow="cv_corrected", exhaust="orifice",
                             exhaust_area=1.6e-6, stroke=0.063),
            SolenoidCylinder("spare", "rail", SPOOL_SLEEVE, "tank", k_return=50.0),
            SolenoidCylinder("third", "leg", third, "tank")]
    contacts = Contacts(ContactLaw(hunt_crossley(2e6, 0.3), coulomb(0.8, 0.01)), geometries=["foot_pad"])
    return Robot(mb, actuators=acts, resources=[AirSupply("tank", tank, p0=825325.0)],
                 sensors=[JointEncoder("z", joints=["rail"]), ChamberPressure("p", actuators=["leg", "spare",
                                                                                             "third"])],
                 contacts=contacts)


def same_robot(got, want):
    assert got.model.name == want.model.name
    assert got.model.state_names == want.model.state_names
    assert got.model.output_names == want.model.output_names
    assert got.actuator_names == want.actuator_names and got.sensor_names == want.sensor_names
    assert got.actuators == want.actuators and got.resources == want.resources
    np.testing.assert_array_equal(got.model.param_defaults, want.model.param_defaults)
    np.testing.assert_array_equal(got.model.state_defaults, want.model.state_defaults)
    assert got.model.nguard == want.model.nguard


@pytest.fixture
def rats_dir(tmp_path):
    (tmp_path / "rail.urdf").write_text(RAIL_URDF)
    (tmp_path / "rats_hardware.toml").write_text(RATS_TOML)
    return tmp_path


def test_a_solenoid_leg_on_an_air_supply_builds_the_same_robot_as_the_equivalent_python(rats_dir):
    got = load_hardware(rats_dir / "rats_hardware.toml")
    want = rats_in_python(rats_dir / "rail.urdf")
    same_robot(got, want)
    names = got.model.state_names
    assert "tank_p" in names and "leg_p" in names and "third_p" in names
    assert got.resources[0].tank.gas.name == "nitrogen" and got.actuators[0].valve.latency == 6e-3
    assert got.actuators[2].valve.name == "third"  # a valve table without preset: named by its actuator
    x = got.initial_state([0.2, 0.0])
    assert x[names.index("tank_p")] == 825325.0
    # the parts, as the run metadata records them
    from legsim.assembly.hardware import describe
    d = describe(got)
    assert d["resources"][0]["type"] == "AirSupply" and d["resources"][0]["p0"] == 825325.0
    assert d["actuators"][0]["valve"]["cv"] == 0.3


def crr_toml(linkages, actuators):
    """The CRR leg's three cylinders as a hardware file (floats written exactly)."""
    out = ['control_period = 0.001\n[sensors.p]\ntype = "ChamberPressure"\nactuators = "all"\n']
    for j, (link, act) in enumerate(zip(linkages, actuators, strict=True)):
        name = ("alpha", "beta", "gamma")[j]
        lk = ", ".join(f"{k} = {getattr(link, k)!r}" for k in ("l1", "l2", "l3", "l4", "l5"))
        joint = link.joint.name if j != 1 else link.joint.name.lower()  # either case
        out.append(f'[actuators.{name}]\ntype = "PneumaticCylinder"\n'
                   f'transmission = {{ type = "JointLinkage", joint = "{joint}", {lk} }}\n'
                   f'[actuators.{name}.actuator]\np_supply = {act.p_supply!r}\n'
                   f'p_exhaust = {act.p_exhaust!r}\n'
                   f'valve = "mpye5_fitted"\nfriction = "stribeck_tanh_source"\n'
                   f'cylinder = {{ stroke = {act.cylinder.stroke!r} }}\n')
    return "".join(out)


def test_pneumatic_cylinders_through_joint_linkages_build_the_crr_leg_as_in_python(tmp_path):
    from legsim.assembly import ChamberPressure, PneumaticCylinder
    from legsim.robots.crr_leg.geometry import crr_leg_bodies
    from legsim.robots.crr_leg.leg import LegBench

    bench = LegBench()  # the CRR leg's own actuators and linkages
    want = Robot(bench.bodies, actuators=[PneumaticCylinder(j, j, act, link) for j, act, link in
                                          zip(("alpha", "beta", "gamma"), bench.actuators, bench.linkages,
                                              strict=True)],
                 sensors=[ChamberPressure("p", actuators=["alpha", "beta", "gamma"])])
    path = tmp_path / "crr_hardware.toml"
    path.write_text(crr_toml(bench.linkages, bench.actuators))
    got = load_hardware(path, model=crr_leg_bodies())
    same_robot(got, want)
    assert got.model.state_names[6:11] == ("alpha_p_cap", "alpha_p_rod", "alpha_m_cap", "alpha_m_rod",
                                           "alpha_m_supply")


LINEAR_TOML = """
[resources.tank]
type = "AirSupply"
p0 = 5.0e5
gas = "air"
volume = 0.5e-3
temperature = 298.0
[actuators.c]
type = "PneumaticCylinder"
joint = "rail"
supply = "tank"
p_cap0 = 2.0e5
transmission = { type = "LinearLinkage", theta0 = 0.0, x0 = 0.01, theta1 = 1.0, x1 = 0.05 }
[actuators.c.actuator]
heat = "isothermal"
gas = "nitrogen"
t_supply = 300.0
cylinder = { preset = "bimba_rig", bore = 0.03 }
valve = { preset = "mpye5_simple", u_max = 9.0 }
friction = { model = "viscous", c_v = 50.0 }
[actuators.d]
type = "PneumaticCylinder"
joint = "leg"
actuator = {}
"""


def test_linear_linkages_presets_changed_by_keys_and_enumerated_fields_by_name(rats_dir):
    import dataclasses

    from legsim.actuators.pneumatic import (
        AIR,
        NITROGEN,
        Friction,
        FrictionModel,
        HeatModel,
        LinearLinkage,
        PneumaticActuator,
        SupplyTank,
        bimba_rig,
        mpye5_simple,
    )
    from legsim.assembly import AirSupply, PneumaticCylinder

    path = rats_dir / "linear_hardware.toml"
    path.write_text('urdf = "rail.urdf"\n' + LINEAR_TOML)
    got = load_hardware(path)
    act = PneumaticActuator(heat=HeatModel.ISOTHERMAL, gas=NITROGEN, t_supply=300.0,
                            cylinder=dataclasses.replace(bimba_rig(), bore=0.03),
                            valve=mpye5_simple(u_max=9.0),
                            friction=Friction(model=FrictionModel.VISCOUS, c_v=50.0))
    want = Robot(load_urdf(rats_dir / "rail.urdf"),
                 actuators=[PneumaticCylinder("c", "rail", act, LinearLinkage(0.0, 0.01, 1.0, 0.05),
                                              p_cap0=2.0e5, supply="tank"),
                            PneumaticCylinder("d", "leg", PneumaticActuator())],
                 resources=[AirSupply("tank", SupplyTank(volume=0.5e-3, temperature=298.0, gas=AIR),
                                      p0=5.0e5)])
    same_robot(got, want)


BATTERY_TOML = """
[resources.pack]
type = "Battery"
c0 = 0.9
capacity_ah = 1.5
exponent = 1.2
[actuators.motors]
type = "DCMotor"
joints = "all"
resistance = 2.0
torque_constant = 0.05
v_max = 24.0
gear = 10.0
battery = "pack"
[sensors.amps]
type = "MotorCurrent"
actuators = "all"
"""


def two_wheels():
    b = RobotBuilder("two", gravity=(0.0, 0.0, 0.0))
    for k in range(2):
        b.add_body(f"l{k}", "world", "revolute", axis=(0, 0, 1), xyz=(k, 0, 0), mass=1.0,
                   inertia=np.diag([0.01, 0.01, 0.02]))
    return b.compile()


def test_a_battery_drained_by_dc_motors_builds_as_in_python_and_drains():
    from legsim.actuators.electric import PeukertBattery
    from legsim.assembly import Battery

    got = parse_hardware(BATTERY_TOML, "two_hardware.toml", model=two_wheels())
    pack = PeukertBattery(capacity_ah=1.5, exponent=1.2)
    want = Robot(two_wheels(), actuators=[DCMotor(f"l{k}", f"l{k}", resistance=2.0, torque_constant=0.05,
                                                  v_max=24.0, gear=10.0, battery="pack") for k in range(2)],
                 resources=[Battery("pack", pack, c0=0.9)],
                 sensors=[MotorCurrent("amps", actuators=["l0", "l1"])])
    same_robot(got, want)
    names = got.model.state_names
    x = got.initial_state(commands0=[12.0, -6.0])
    assert x[names.index("pack_charge")] == 0.9
    f = np.empty_like(x)
    got.model.vector_field(0.0, x, got.model.param_defaults.copy(), 0, f)
    want_rate = -float(pack.rate(12.0 / 2.0 + 6.0 / 2.0))  # at rest each motor draws V / R
    assert f[names.index("pack_charge")] == pytest.approx(want_rate, rel=1e-12)


# (file, old, new, message): edits of RATS_TOML ("rats"), LINEAR_TOML ("linear") or BATTERY_TOML
PART_ERRORS = [
    ('rats', 'temperature = 298.15', 'temprature = 298.15',
     r"\[resources.tank\]: unknown AirSupply key 'temprature' \(did you mean 'temperature'\?\)"),
    ('rats', 'gas = "nitrogen"', 'gas = "helium"',
     r"\[resources.tank\]: gas = 'helium' is unknown; one of air, nitrogen"),
    ('rats', 'p0 = 825325.0', 'p0 = -1.0',
     r"\[resources.tank\]: AirSupply 'tank': 'p0' = -1.0, expected"),
    ('rats', 'p0 = 825325.0', '',
     r"\[resources.tank\]: missing key 'p0' \(required by AirSupply\)"),
    ('rats', 'leak = "exponential"', 'leak = "slow"',
     r"\[resources.tank\]: tank leak='slow': expected 'none', 'exponential' or 'orifice'"),
    ('rats', 'type = "AirSupply"', 'type = "AirSuply"',
     r"\[resources.tank\]: type = 'AirSuply' is unknown \(did you mean 'AirSupply'\?\)"),
    ('rats', 'supply = "tank"\nvalve = {', 'supply = "tnak"\nvalve = {',
     r"\[actuators.leg\]: SolenoidCylinder 'leg': air supply 'tnak' does not exist \(did you mean "
     r"'tank'"),
    ('rats', 'valve = "spool_sleeve"', 'valve = "spool"',
     r"\[actuators.spare\]: valve = 'spool' is unknown \(did you mean 'spool_sleeve'\?\); one of "
     r"spool_sleeve, rubber_seat"),
    ('rats', 'valve = "spool_sleeve"', 'valve = 3',
     r"\[actuators.spare\]: valve = 3: expected the name of a preset \(spool_sleeve, rubber_seat\) or a "
     r"table"),
    ('rats', 'latency = 0.01', 'latncy = 0.01',
     r"\[actuators.third.valve\]: unknown SolenoidValve key 'latncy' \(did you mean 'latency'\?\)"),
    ('rats', 'latency = 0.01, ', '',
     r"\[actuators.third.valve\]: missing key 'latency' \(required by SolenoidValve"),
    ('rats', 'latency = 6e-3', 'cv = -1.0',
     r"\[actuators.leg.valve\]: valve 'rubber-seat': 'cv' = -1.0, expected a finite number in \[0, inf\]"),
    ('rats', 'preset = "rubber_seat"', 'preset = "rubber"',
     r"\[actuators.leg.valve\]: preset = 'rubber' is unknown \(did you mean 'rubber_seat'\?\)"),
    ('rats', 'exhaust = "orifice"', 'exhaust = "vent"',
     r"\[actuators.leg\]: SolenoidCylinder 'leg': exhaust = 'vent', expected one of trapped, instant, "
     r"orifice"),
    ('rats', 'k_return = 50.0', 'k_retrun = 50.0',
     r"\[actuators.spare\]: unknown SolenoidCylinder key 'k_retrun' \(did you mean 'k_return'\?\)"),
    ('rats', 'k_return = 50.0', 'k_return = "soft"',
     r"\[actuators.spare\]: k_return = 'soft': expected a number"),
    ('rats', 'joint = "rail"\nsupply = "tank"', 'joint = "rail"',
     r"\[actuators.spare\]: missing key 'supply' \(required by SolenoidCylinder\)"),
    ('rats', '[sensors.z]', '[resources.more]\ntype = "Tank"\n[sensors.z]',
     r"\[resources.more\]: type = 'Tank' is unknown; one of AirSupply, Battery"),
    ('linear', 'type = "LinearLinkage"', 'type = "Linear"',
     r"\[actuators.c.transmission\]: type = 'Linear' is unknown \(did you mean 'LinearLinkage'\?\)"),
    ('linear', 'theta1 = 1.0', 'theta1 = 0.0',
     r"\[actuators.c.transmission\]: LinearLinkage: theta0 and theta1 must differ"),
    ('linear', 'x1 = 0.05', 'x2 = 0.05',
     r"\[actuators.c.transmission\]: unknown LinearLinkage key 'x2' \(did you mean 'x1'\?\); valid: "
     r"type, theta0, x0, theta1, x1"),
    ('linear', 'bore = 0.03', 'bore = 0.005',
     r"\[actuators.c.actuator.cylinder\]: cylinder rod 0.0095\d* m must be thinner than bore 0.005 m"),
    ('linear', 'bore = 0.03', 'bor = 0.03',
     r"\[actuators.c.actuator.cylinder\]: unknown Cylinder key 'bor' \(did you mean 'bore'\?\)"),
    ('linear', 'heat = "isothermal"', 'heat = "isotherm"',
     r"\[actuators.c.actuator\]: heat = 'isotherm' is unknown \(did you mean 'isothermal'\?\); one of "
     r"adiabatic"),
    ('linear', 't_supply = 300.0', 't_suply = 300.0',
     r"\[actuators.c.actuator\]: unknown PneumaticActuator key 't_suply' \(did you mean 't_supply'\?\)"),
    ('linear', 't_supply = 300.0', 'p_supply = 1.0e5\np_exhaust = 2.0e5',
     r"\[actuators.c.actuator\]: PneumaticActuator: 'p_supply' = 100000.0 Pa is not above 'p_exhaust' = "
     r"200000.0 Pa"),
    ('linear', 'model = "viscous"', 'model = "lugre"',
     r"\[actuators.c\]: PneumaticCylinder 'c': friction law LUGRE, expected a velocity-only law"),
    ('linear', 'friction = { model = "viscous", c_v = 50.0 }', 'friction = "coulomb"',
     r"\[actuators.c.actuator\]: friction = 'coulomb' is unknown; one of stribeck_tanh_source, "
     r"viscous_source"),
    ('linear', 'preset = "mpye5_simple", u_max = 9.0', 'u_max = -1.0',
     r"\[actuators.c.actuator.valve\]: valve voltage range \[0.0, -1.0\] V: expected u_min < u_max"),
    ('linear', 'actuator = {}', '',
     r"\[actuators.d\]: missing key 'actuator' \(required by PneumaticCylinder\)"),
    ('linear', 'actuator = {}', 'actuator = 1',
     r"\[actuators.d\]: actuator = 1: expected a table of PneumaticActuator fields"),
    ('linear', 'joint = "leg"', 'joint = "leg"\nsupply = "pack"',
     r"\[actuators.d\]: PneumaticCylinder 'd': air supply 'pack' does not exist"),
    ('battery', 'exponent = 1.2', 'exponent = 0.5',
     r"\[resources.pack\]: PeukertBattery: 'exponent' must be >= 1 \(Peukert\), got 0.5"),
    ('battery', 'c0 = 0.9', 'c0 = 1.5',
     r"\[resources.pack\]: Battery 'pack': 'c0' = 1.5, expected a finite number in \[0, 1\]"),
    ('battery', 'capacity_ah = 1.5', 'capacity = 1.5',
     r"\[resources.pack\]: unknown Battery key 'capacity' \(did you mean 'capacity_ah'\?\)"),
    ('battery', 'battery = "pack"', 'battery = "pak"',
     r"\[actuators.motors\]: DCMotor 'l0': battery 'pak' does not exist \(did you mean 'pack'"),
    ('battery', 'battery = "pack"', 'battery = 1',
     r"\[actuators.motors\]: battery = 1: expected a quoted string"),
    ('battery', '[sensors.amps]', '[sensors.p]\ntype = "ChamberPressure"\nactuators = "all"\n[sensors.amps]',
     r"\[sensors.p\]: actuators = 'all', but the robot has no pneumatic or solenoid cylinders"),
]


@pytest.mark.parametrize("which, old, new, message", PART_ERRORS)
def test_bad_pneumatic_and_battery_parts_name_the_file_table_key_and_what_is_allowed(rats_dir, which, old,
                                                                                     new, message):
    text = {"rats": RATS_TOML, "linear": 'urdf = "rail.urdf"\n' + LINEAR_TOML, "battery": BATTERY_TOML}[which]
    assert old in text, old
    path = rats_dir / "bad_hardware.toml"
    path.write_text(text.replace(old, new, 1))
    model = two_wheels() if which == "battery" else None
    with pytest.raises(InputError, match=message) as exc:
        load_hardware(path, model=model)
    assert str(exc.value).startswith(f"{path} [")
    # the unedited file builds
    path.write_text(text)
    load_hardware(path, model=model)


def test_reading_and_drawing_parts_compiles_no_robot_hooks():
    """The viewer draws a hardware-file robot from its parts: neither the robot module nor the shared
    hooks it compiles (about a minute cold) are imported, and the parts match the built robot's."""
    hardware = str(SCENARIO_DIR / "hopper_hardware.toml")
    code = ("import sys; from legsim.assembly import load_parts; from legsim.viz.scene import robot_scene; "
            f"parts = load_parts({hardware!r}); scene = robot_scene(parts); "
            "print(len(scene.shapes), len(parts.actuators), parts.name, "
            "'legsim.assembly.robot' in sys.modules, 'legsim.assembly._hooks' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    robot = load_hardware(hardware)
    assert out[1:] == [str(len(robot.actuators)), robot.name, "False", "False"]
    assert int(out[0]) > 0


def test_contact_gaps_are_the_feet_above_the_ground_and_a_run_that_starts_inside_it_says_so(tmp_path, capsys):
    """``Robot.contact_gaps(q)``: the bundled hopper's 2 cm foot sphere at the end of two 0.2 m links,
    hip and knee about y: gap = rail - 0.2 cos(hip) - 0.2 cos(hip + knee) - 0.02 (hopper.toml's start,
    "the foot 1 cm above the floor", is 9.87 mm). A user's first scenario for a URDF quadruped with no
    [initial] table starts it with its base at the origin and the legs in the floor: the run failed
    with only "the state became non-finite"; it now names the deepest point and what to set."""
    import pybullet_data

    hopper = load_hardware(SCENARIO_DIR / "hopper_hardware.toml")
    for rail, hip, knee in ((0.36, 0.6, -1.2), (0.0, 0.0, 0.0), (0.5, -0.3, -2.0)):
        expected = rail - 0.2 * math.cos(hip) - 0.2 * math.cos(hip + knee) - 0.02
        assert hopper.contact_gaps([rail, hip, knee]) == {"foot": pytest.approx(expected, abs=1e-12)}
    urdf = pybullet_data.getDataPath() + "/laikago/laikago_toes.urdf"
    (tmp_path / "dog_hardware.toml").write_text(f"""urdf = "{urdf}"
floating_base = true
control_period = 0.002
[contacts]
path = "smooth"
normal = {{ law = "hunt_crossley", k = 1e5, alpha = 0.5 }}
friction = {{ law = "coulomb", mu = 0.8, v_eps = 0.01 }}
[actuators.legs]
type = "PositionServo"
joints = "all"
kp = 80.0
kd = 2.0
[sensors.enc]
type = "JointEncoder"
joints = "all"
""")
    (tmp_path / "stand.py").write_text("def hold(t, s):\n    return 0.0 * s.enc\n")
    (tmp_path / "stand.toml").write_text('robot = "dog_hardware.toml"\ncontroller = "stand.py:hold"\n'
                                         't_final = 0.5\n')
    assert main(["run", str(tmp_path / "stand.toml"), "--out", str(tmp_path / "o"), "-q"]) == 1
    err = capsys.readouterr().err
    dog = load_hardware(tmp_path / "dog_hardware.toml")
    gaps = dog.contact_gaps(dog.initial_state()[:dog.mb.nq])
    deepest = min(gaps, key=gaps.__getitem__)
    assert gaps[deepest] < -0.3
    assert (f"At the start, contact point {deepest!r} was {-gaps[deepest]:.3g} m inside the ground "
            f"({sum(g < -0.01 for g in gaps.values())} of 4 points more than 1 cm inside): start the robot "
            "on or above the ground (its initial coordinates: a scenario's [initial] table, or q0)." in err)


def test_a_controller_reference_or_a_robot_of_the_wrong_kind_is_named(tmp_path):
    """Before session 42 ``load_controller`` took any ``base_dir``, ``params`` and ``ref`` to pathlib,
    ``.items()`` and ``.rpartition()`` (TypeError, AttributeError), and ``describe`` read ``robot.contacts``
    of whatever it was given."""
    from legsim.assembly.hardware import describe, load_controller

    (tmp_path / "ctl.py").write_text("def make(gain=1.0):\n    return lambda t, s: None\n")
    assert callable(load_controller("ctl.py:make", tmp_path, {"gain": 2.0}))
    for kwargs, expected in ((dict(base_dir=None), "controller: 'base_dir' = None, expected a folder"),
                             (dict(base_dir=7), "controller: 'base_dir' = 7, expected a folder"),
                             (dict(params="gain"), "'params' = 'gain', expected None or a mapping"),
                             (dict(ref=5), "controller = 5: expected 'package.module:function'"),
                             (dict(ref=None), "controller = None: expected 'package.module:function'")):
        args = {"ref": "ctl.py:make", "base_dir": tmp_path, "params": {"gain": 2.0}, **kwargs}
        with pytest.raises(InputError, match=re.escape(expected)):
            load_controller(**args)
    with pytest.raises(InputError, match="describe: 'robot' = 5, expected a legsim.assembly.Robot"):
        describe(5)
