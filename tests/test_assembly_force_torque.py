"""The six-axis force/torque sensor of the assembly (legsim.assembly.ForceTorque): the contact wrench on
its geometries about its mounting point, in its axes, against statics and against the wrench rebuilt
from the per-geometry contact forces and the contact points; per-channel measurements (ROTTO's Table
4.1); clear errors for bad input, in Python and in hardware files."""

from __future__ import annotations

import numpy as np
import pytest

from legsim.assembly import (
    ROTTO_FT_ROTATION,
    ContactForce,
    Contacts,
    ForceTorque,
    Measurement,
    Robot,
    TorqueSource,
    rotto_ft_measurements,
    rotto_ft_sensor,
)
from legsim.assembly.hardware import parse_hardware
from legsim.contact import ContactLaw, coulomb, hunt_crossley
from legsim.errors import InputError
from legsim.hybrid import Options
from legsim.multibody import RobotBuilder, center_of_mass, forward_kinematics

FEET = ("fl", "fr", "rl", "rr")
CORNERS = {"fl": (0.10, 0.05), "fr": (0.10, -0.05), "rl": (-0.10, 0.05), "rr": (-0.10, -0.05)}
R_FOOT = 0.01
M_BASE, M_TAIL = 2.0, 0.3


def table(tail=True):
    """A free box on four sphere feet, its centre of mass 3 cm behind its origin, with a tail on a
    hinge (a body below the sensor's)."""
    b = RobotBuilder("table")
    b.add_body("base", "world", "free", mass=M_BASE, com=(-0.03, 0.0, 0.0), inertia=(0.004, 0.008, 0.01))
    if tail:
        b.add_body("tail", "base", "revolute", xyz=(-0.12, 0.0, 0.0), axis=(0, 1, 0), mass=M_TAIL,
                   com=(-0.03, 0.0, 0.0), inertia=(1e-4, 1e-4, 1e-4), damping=0.05)
        b.add_geometry("tail", "sphere", xyz=(-0.06, 0.0, -0.04), radius=R_FOOT, name="tip")
    for name, (x, y) in CORNERS.items():
        b.add_geometry("base", "sphere", xyz=(x, y, -0.05), radius=R_FOOT, name=name)
    return b.compile()


LAW = ContactLaw(hunt_crossley(2e5, 0.5), coulomb(0.8, v_eps=1e-3))
# for the rest test: damping ratio ~1, and a friction slope mu N / v_eps that fixed-step RK4 at 0.25 ms
# resolves (v_eps = 1 mm/s put it in a period-h limit cycle: the feet's friction summed to -3.5 N "at rest")
SETTLING = ContactLaw(hunt_crossley(2e5, 30.0), coulomb(0.8, v_eps=0.02))
Q0 = np.array([0.0, 0.0, 0.06 - 1e-4, 0.0, 0.0, 0.0, 1.0, 0.0])


def col(res, robot, name):
    names = robot.model.state_names
    return res.x[:, names.index(name)] if name in names else res.y[:, robot.model.output_names.index(name)]


def test_at_rest_the_sensor_reads_the_weight_and_its_moment_about_an_offset_mount():
    # on the box at (a, 0, h) from its origin: the four feet carry the weight W through the centre
    # of mass c, so F = (0, 0, W) and, about the mount s, M = (c - s) x F = (0, (s_x - c_x) W, 0)
    a, h = 0.04, 0.02
    mb = table(tail=False)
    robot = Robot(mb, sensors=[ForceTorque("ft", body="base", geometries=FEET, position=(a, 0.0, h))],
                  contacts=Contacts(SETTLING, path="smooth", point="sphere"))
    res = robot.simulate(2.0, q0=Q0[:7],
                         options=Options(method="rk4_fixed", h_max=2.5e-4, record_period=0.01))
    W = M_BASE * 9.81
    q = res.x[-1, :mb.nq]
    data = mb.make_data()
    c = center_of_mass(mb, data, q)
    base = mb.body_id("base")
    s = data.op[base] + data.oR[base] @ [a, 0.0, h]
    assert s[0] - c[0] == pytest.approx(0.07, abs=1e-3)
    F = np.array([0.0, 0.0, W])
    # in the sensor's axes: the box's (its unequal feet tilt it by ~2 mrad)
    want = np.concatenate([data.oR[base].T @ F, data.oR[base].T @ np.cross(c - s, F)])
    got = np.array([col(res, robot, f"true_ft_{ch}")[-1] for ch in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * W)
    assert got[4] == pytest.approx((s[0] - c[0]) * W, rel=1e-3)


def test_the_wrench_equals_the_sum_over_its_contact_points_in_any_mounting_rotation():
    # a rocking, sliding landing with friction: rebuild the wrench about the mount from the per-
    # geometry contact forces (ContactForce, world axes) at the spheres' lowest points (point =
    # "sphere", flat ground), then rotate it into the sensor's axes
    mb = table()
    rot = np.array(ROTTO_FT_ROTATION) @ np.array([[np.cos(0.4), -np.sin(0.4), 0.0],
                                                   [np.sin(0.4), np.cos(0.4), 0.0], [0.0, 0.0, 1.0]])
    pos = np.array([0.01, -0.02, 0.03])
    geoms = [*FEET, "tip"]
    robot = Robot(mb, actuators=[TorqueSource("hold", "tail")],
                  sensors=[ForceTorque("ft", body="base", geometries=geoms, position=pos, rotation=rot),
                           ContactForce("f", geometries=geoms)],
                  contacts=Contacts(LAW, geometries=geoms, path="event", point="sphere"))
    q0 = Q0.copy()
    q0[2] += 0.01
    q0[3:7] = [0.05, 0.03, 0.0, np.sqrt(1 - 0.05**2 - 0.03**2)]
    res = robot.simulate(0.3, lambda t, s: [0.0], q0=q0, v0=[0.3, 0.1, -0.2, 0.5, -1.0, 2.0, 0.0],
                         options=Options(rtol=1e-8, atol=1e-10, record_period=0.002))
    data = mb.make_data()
    geo = {g.name: g for g in mb.geometries}
    base = mb.body_id("base")
    checked = 0
    for k in range(0, len(res.t), 5):
        q = res.x[k, :mb.nq]
        forward_kinematics(mb, data, q)
        F = np.zeros(3)
        M = np.zeros(3)
        s = data.op[base] + data.oR[base] @ pos
        for g in geoms:
            f = np.array([col(res, robot, f"true_f_{g}_{a}")[k] for a in "xyz"])
            b = mb.body_id(geo[g].body)
            point = data.op[b] + data.oR[b] @ geo[g].p - [0.0, 0.0, R_FOOT]
            F += f
            M += np.cross(point - s, f)
        to_sensor = rot.T @ data.oR[base].T
        got = np.array([col(res, robot, f"true_ft_{ch}")[k] for ch in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")])
        np.testing.assert_allclose(got[:3], to_sensor @ F, atol=1e-9 * (1 + abs(F).max()))
        np.testing.assert_allclose(got[3:], to_sensor @ M, atol=1e-9 * (1 + abs(M).max()))
        checked += bool(abs(F).max() > 1.0 and abs(M).max() > 0.01)
    assert checked >= 10  # loaded records with a moment, not only flights


def test_each_channel_takes_its_own_measurement_as_table_4_1_asks():
    mb = table()
    ms = rotto_ft_measurements()
    quiet = {ch: Measurement(lo=m.lo, hi=m.hi, bits=m.bits) for ch, m in ms.items()}  # no noise
    robot = Robot(mb, actuators=[TorqueSource("hold", "tail")],
                  sensors=[ForceTorque("ft", body="base", geometries=FEET, position=(0.06, 0.0, 0.0),
                                       channel_measurements=quiet)],
                  contacts=Contacts(LAW, geometries=FEET, path="smooth", point="sphere"))
    res = robot.simulate(0.5, lambda t, s: [0.0], q0=Q0, options=Options(method="rk4_fixed", h_max=2.5e-4,
                                                                         record_period=1e-3))
    for ch, m in quiet.items():
        lsb = (m.hi - m.lo) / 2**m.bits
        held, truth = col(res, robot, f"ft_{ch}")[1:], col(res, robot, f"true_ft_{ch}")[1:]
        # the held value is the truth of the same sample instant (records are at the samples), quantised
        assert np.all(np.abs(held - truth) <= 0.5 * lsb + 1e-9), ch
    lsb_fy = 800.0 / 4096
    assert np.any(np.abs(col(res, robot, "ft_Fz")[1:] - col(res, robot, "true_ft_Fz")[1:]) > 0.2 * lsb_fy)


def test_the_rotto_preset_is_a_force_torque_sensor_with_table_4_1_per_channel():
    s = rotto_ft_sensor("ft", "foot", ["pad"], seed=3)
    assert isinstance(s, ForceTorque)
    assert s.measurement_of("Mx") == rotto_ft_measurements(3)["Mx"]
    assert s.measurement_of("Fy").hi == 400.0 and s.measurement_of("Fx").hi == 300.0
    # sensor y (Table 4.1's vertical axis) along the foot's z
    np.testing.assert_allclose(np.array(s.rotation) @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])
    hash(s)  # a frozen component stays hashable


@pytest.mark.parametrize("make, message", [
    (lambda: ForceTorque("ft", body="base", geometries=FEET, channel_measurements={"Fw": Measurement()}),
     "channel_measurements has 'Fw'; channels are Fx, Fy, Fz, Mx, My, Mz"),
    (lambda: ForceTorque("ft", body="base", geometries=[f"g{k}" for k in range(17)]),
     "expected 1 to 16 distinct contact geometries"),
    (lambda: ForceTorque("ft", geometries=FEET), "expected the name of the body it is mounted on"),
    (lambda: ForceTorque("ft", body="base", geometries=FEET, rotation=np.diag([1.0, 1.0, -1.0])),
     "expected a 3x3 rotation matrix"),
    (lambda: Robot(table(), sensors=[ForceTorque("ft", body="tail", geometries=["fl"])],
                   contacts=Contacts(LAW, geometries=FEET)),
     "contact geometry 'fl' is on body 'base', which body 'tail' does not carry"),
    (lambda: Robot(table(), sensors=[ForceTorque("ft", body="base", geometries=["fx"])],
                   contacts=Contacts(LAW, geometries=FEET)), "contact geometry 'fx' does not exist"),
    (lambda: Robot(table(), sensors=[ForceTorque("ft", body="base", geometries=["fl"])]), "has no contacts"),
])
def test_bad_force_torque_sensors_are_named(make, message):
    with pytest.raises(InputError, match=message):
        make()


INERTIA = 'ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"'
URDF = f"""<robot name="foot">
  <link name="shank"><inertial><mass value="1.0"/><inertia {INERTIA}/></inertial></link>
  <link name="sole"><inertial><mass value="0.2"/><inertia {INERTIA}/></inertial>
    <collision name="heel"><origin xyz="-0.05 0 -0.02"/><geometry><sphere radius="0.01"/></geometry>
    </collision>
    <collision name="toe"><origin xyz="0.08 0 -0.02"/><geometry><sphere radius="0.01"/></geometry>
    </collision>
  </link>
  <joint name="ankle" type="revolute"><parent link="shank"/><child link="sole"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="5"/></joint>
</robot>
"""


def _hardware(tmp_path, sensor: str):
    (tmp_path / "foot.urdf").write_text(URDF)
    f = tmp_path / "foot_hardware.toml"
    f.write_text(f"""urdf = "foot.urdf"
floating_base = true
[contacts]
normal = {{ law = "hunt_crossley", k = 2e5, alpha = 0.5 }}
friction = {{ law = "coulomb", mu = 0.8 }}
[actuators.ankle]
type = "TorqueSource"
{sensor}
""")
    return f


def test_a_hardware_file_declares_a_force_torque_sensor_with_per_channel_measurements(tmp_path):
    f = _hardware(tmp_path, """[sensors.ft]
type = "ForceTorque"
body = "sole"
geometries = "all"
position = [0.0, 0.0, 0.01]
measurement = { bits = 12, lo = -300, hi = 300 }
channel_measurements.Fz = { bits = 12, lo = -400, hi = 400 }
channel_measurements.My = { noise_std = 0.1, lo = -20, hi = 20 }
""")
    robot = parse_hardware(f.read_text(), str(f))
    (ft,) = robot.sensors
    assert isinstance(ft, ForceTorque) and set(ft.geometries) == {"heel", "toe"}
    assert ft.measurement_of("Fz").hi == 400.0 and ft.measurement_of("My").noise_std == 0.1
    assert ft.measurement_of("Fx").hi == 300.0
    assert [n for n in robot.model.state_names if n.startswith("ft_")] == [
        "ft_Fx", "ft_Fy", "ft_Fz", "ft_Mx", "ft_My", "ft_Mz"]


@pytest.mark.parametrize("sensor, message", [
    ('[sensors.ft]\ntype = "ForceTorque"\nbody = "sole"\ngeometries = "all"\n'
     'channel_measurements = { Fq = { bits = 12 } }', r"sensors\.ft\.channel_measurements.*'Fq'"),
    ('[sensors.ft]\ntype = "ForceTorque"\nbody = "sole"\ngeometries = "all"\n'
     'channel_measurements = { Fz = 3 }', r"Fz = 3: expected a table"),
    ('[sensors.ft]\ntype = "ForceTorque"\nbody = "sole"\ngeometries = "all"\n'
     'channel_measurements = { Fz = { bitz = 12 } }', r"sensors\.ft\.channel_measurements\.Fz.*'bitz'"),
    ('[sensors.ft]\ntype = "ForceTorque"\nbody = "shin"\ngeometries = ["toe"]',
     r"sensors\.ft.*body 'shin' does not exist"),
])
def test_bad_force_torque_keys_in_a_hardware_file_are_named(tmp_path, sensor, message):
    f = _hardware(tmp_path, sensor)
    with pytest.raises(InputError, match=message):
        parse_hardware(f.read_text(), str(f))
