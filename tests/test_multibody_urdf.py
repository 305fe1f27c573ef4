"""URDF loading (incl. bad input), URDF/MJCF export, and the exported robot in MuJoCo and PyBullet."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

import legsim.multibody as mb
from legsim.errors import InputError
from legsim.multibody.samples import hexapod, hexapod_stance, random_state

LEG = """<robot name="leg">
  <link name="hip"><inertial><mass value="2.0"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="thigh">{thigh_inertial}
    <collision name="thigh_col" material="rubber"><origin xyz="0 0 -0.2" rpy="0 0 0"/>
      <geometry><capsule radius="0.03" length="0.3"/></geometry></collision></link>
  <link name="shin"><inertial><origin xyz="0 0 -0.15" rpy="0.1 0.2 0.3"/><mass value="0.5"/>
    <inertia ixx="0.004" iyy="0.005" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="foot"><collision><origin xyz="0 0 0.01"/>
    <geometry><sphere radius="0.02"/></geometry></collision></link>
  <joint name="hip_pitch" type="{hip_type}"><parent link="hip"/><child link="thigh"/>
    <origin xyz="0 0.1 0" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-1.5" upper="1.5" effort="20" velocity="5"/>
    <dynamics damping="0.3" friction="0.1"/></joint>
  <joint name="knee" type="prismatic"><parent link="thigh"/><child link="shin"/>
    <origin xyz="0 0 -0.4"/><axis xyz="0 0 1"/>
    <limit lower="-0.1" upper="0.05" effort="20" velocity="5"/></joint>
  <joint name="ankle" type="fixed"><parent link="shin"/><child link="foot"/><origin xyz="0 0 -0.3"/></joint>
</robot>"""
GOOD_THIGH = ('<inertial><origin xyz="0 0 -0.2"/><mass value="1.0"/>'
              '<inertia ixx="0.01" iyy="0.01" izz="0.002" ixy="0" ixz="0" iyz="0"/></inertial>')

INERTIAL = ('<inertial><mass value="{mass}"/>'
            '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>')


def leg(thigh_inertial=GOOD_THIGH, hip_type="revolute"):
    return LEG.format(thigh_inertial=thigh_inertial, hip_type=hip_type)


def test_urdf_loader_reads_joints_dynamics_limits_fixed_frames_and_collision_shapes(tmp_path):
    path = tmp_path / "leg.urdf"
    path.write_text(leg())
    model = mb.load_urdf(path)
    assert model.joint_names == ("hip_pitch", "knee")
    assert (model.nq, model.nv, model.nbody) == (2, 2, 3)  # hip is fixed to the world, foot merged
    a = model.arrays
    assert a.dof_damping.tolist() == [0.3, 0.0] and a.dof_frictionloss.tolist() == [0.1, 0.0]
    np.testing.assert_array_equal(a.dof_range, [[-1.5, 1.5], [-0.1, 0.05]])
    assert "foot" in model.frame_names and "hip" in model.frame_names
    geoms = {g.shape: g for g in model.geometries}
    assert geoms["capsule"].material == "rubber"
    assert geoms["capsule"].params == {"radius": 0.03, "length": 0.3}
    # the foot sphere moved onto the shin with the fixed-joint offset composed
    assert geoms["sphere"].body == "shin"
    np.testing.assert_allclose(geoms["sphere"].p, [0, 0, -0.29], atol=1e-15)
    # rotated inertial: the inertia about the COM is R diag(I) R^T
    from legsim.multibody._spatial import rpy_to_rot
    R = rpy_to_rot((0.1, 0.2, 0.3))
    np.testing.assert_allclose(model.body_inertia[2], R @ np.diag([0.004, 0.005, 0.001]) @ R.T, rtol=1e-14)
    np.testing.assert_allclose(model.body_com[2], [0, 0, -0.15])


@pytest.mark.parametrize(
    "thigh,hip_type,expected",
    [
        ("", "revolute", ["thigh", "hip_pitch", "inertial"]),
        (INERTIAL.format(mass="0"), "revolute", ["thigh", "hip_pitch", "mass", "0"]),
        (INERTIAL.format(mass="-1.5"), "revolute", ["thigh", "-1.5"]),
        (GOOD_THIGH, "planar", ["hip_pitch", "planar"]),
        (GOOD_THIGH, "banana", ["hip_pitch", "banana"]),
        (INERTIAL.format(mass="abc"), "revolute", ["thigh", "abc"]),
    ],
)
def test_bad_urdf_raises_input_error_naming_the_link_or_joint(tmp_path, thigh, hip_type, expected):
    path = tmp_path / "bad.urdf"
    path.write_text(leg(thigh, hip_type))
    with pytest.raises(InputError) as info:
        mb.load_urdf(path)
    for word in expected + [str(path)]:
        assert word in str(info.value)


def test_a_massless_moving_link_is_fine_when_a_fixed_child_carries_the_mass():
    text = leg("").replace(
        '<joint name="ankle"',
        '<link name="thigh_mass">' + GOOD_THIGH + '</link><joint name="thigh_fix" type="fixed">'
        '<parent link="thigh"/><child link="thigh_mass"/></joint><joint name="ankle"')
    model = mb.parse_urdf(text).compile()
    good = mb.parse_urdf(leg()).compile()
    q, v = np.array([0.3, -0.02]), np.array([0.5, 0.1])
    np.testing.assert_allclose(mb.aba(model, model.make_data(), q, v, [0.1, 0.2]),
                               mb.aba(good, good.make_data(), q, v, [0.1, 0.2]), rtol=1e-13)


def test_missing_file_and_wrong_state_sizes_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="nope.urdf"):
        mb.load_urdf(tmp_path / "nope.urdf")
    model = mb.parse_urdf(leg()).compile()
    data = model.make_data()
    with pytest.raises(InputError, match="nq=2"):
        mb.crba(model, data, np.zeros(3))
    with pytest.raises(InputError, match="leg: frame 'toe' does not exist; valid: world, thigh"):
        mb.frame_jacobian(model, data, np.zeros(2), "toe")
    with pytest.raises(InputError, match="unknown joint type 'ball'"):
        mb.RobotBuilder().add_body("x", "world", "ball", mass=1.0, inertia=(1, 1, 1))
    with pytest.raises(InputError, match="parent 'nobody'"):
        mb.RobotBuilder().add_body("x", "nobody", "revolute", mass=1.0, inertia=(1, 1, 1))


def test_a_builders_lengths_lie_within_the_contact_shapes_range_and_huge_limits_mean_none():
    """Before session 40 a body's or geometry's position (xyz, com, Geometry.p) and a geometry's radius,
    length or size took any finite value (1e300 m), where the contact shapes stop at MAX_LENGTH (1e6 m);
    an effort or velocity limit of 10**400 was Python's OverflowError, and a radius of 10**5000 made the
    refusal itself fail (its repr has too many digits)."""
    from legsim.contact.shapes import MAX_LENGTH

    b = mb.RobotBuilder("r")
    for make, says in (
            (lambda: b.add_geometry("world", "sphere", xyz=(1e300, 0.0, 0.0), radius=0.1),
             r"geometry 'sphere' on 'world': xyz = \(1e\+300, 0.0, 0.0\), expected 3 finite numbers within "
             r"±MAX_LENGTH = 1e\+06 m"),
            (lambda: b.add_geometry("world", "box", size=(0.1, 0.1, 2e6)), r"size = .*within ±MAX_LENGTH"),
            (lambda: b.add_geometry("world", "capsule", radius=10**5000, length=0.1),
             r"radius = <a whole number of about 5001 digits>, expected a finite number in \[0, 1e\+06\]"),
            (lambda: b.add_body("l", "world", com=(0.0, 0.0, -2e6), mass=1.0), r"'l': com = .*within ±MAX"),
            (lambda: b.add_body("l", "world", limits=(0.0, 1e300), mass=1.0),
             r"body 'l': joint limits must be .* each within ±MAX_LENGTH"),
            (lambda: mb.Geometry("g", "b", "sphere", {"radius": 0.1}, np.eye(3), (0.0, 0.0, 1e300)),
             r"Geometry 'g': p = .*within ±MAX_LENGTH")):
        with pytest.raises(InputError, match=says):
            make()
    b.add_body("l", "world", xyz=(0.0, 0.0, MAX_LENGTH), limits=(-np.inf, MAX_LENGTH), mass=1.0,
               inertia=(1.0, 1.0, 1.0), effort=10**400, velocity=np.inf)
    b.add_geometry("l", "sphere", xyz=(-MAX_LENGTH, 0.0, 0.0), radius=MAX_LENGTH)
    model = b.compile()
    assert model.dof_effort[0] == model.dof_velocity[0] == np.inf  # no limit, as inf
    np.testing.assert_array_equal(model.dof_range[0], [-np.inf, MAX_LENGTH])


@pytest.mark.parametrize("floating", [False, True])
def test_urdf_export_round_trips_dynamics_and_geometry(floating):
    model = hexapod(floating_base=floating)
    again = mb.parse_urdf(mb.to_urdf(model), floating_base=floating).compile()
    assert again.joint_names == model.joint_names
    # a fixed base is merged into the world, so only the 1.5 kg of legs move
    assert again.total_mass() == pytest.approx(3.5 if floating else 1.5, rel=1e-12)
    assert again.total_mass() == pytest.approx(model.total_mass(), rel=1e-14)
    d1, d2 = model.make_data(), again.make_data()
    q, v, _, tau = random_state(np.random.default_rng(4), model)
    np.testing.assert_allclose(mb.aba(again, d2, q, v, tau), mb.aba(model, d1, q, v, tau),
                               rtol=1e-11, atol=1e-11)
    shapes = sorted((g.body, g.shape, g.material) for g in model.geometries)
    assert sorted((g.body, g.shape, g.material) for g in again.geometries) == shapes


def test_joints_without_stops_or_effort_limits_round_trip_and_pinocchio_reads_the_file():
    """Before session 41 an unlimited prismatic joint was written with stops at ±1e10, which parse_urdf
    refused (beyond MAX_LENGTH), and an infinite effort, velocity or one-sided stop as "inf", which
    urdfdom (pinocchio's reader) refuses. Now only finite numbers are written: a side without a stop at
    ±MAX_LENGTH, read back as no stop, as are the large placeholders other tools write."""
    import pinocchio as pin

    b = mb.RobotBuilder()
    b.add_body("a", "world", "revolute", mass=1.0, inertia=(0.01, 0.01, 0.01), limits=(-np.inf, 1.0),
               effort=np.inf, velocity=3.0)
    b.add_body("c", "a", "prismatic", mass=1.0, inertia=(0.01, 0.01, 0.01))
    b.add_body("d", "c", "revolute", mass=1.0, inertia=(0.01, 0.01, 0.01), effort=2.0)  # continuous
    model = b.compile()
    text = mb.to_urdf(model)
    assert "inf" not in text.lower()
    again = mb.parse_urdf(text).compile()
    a, a2 = model.arrays, again.arrays
    np.testing.assert_array_equal(a2.dof_limited, a.dof_limited)
    np.testing.assert_array_equal(a2.dof_range, a.dof_range)
    np.testing.assert_array_equal(again.dof_velocity, model.dof_velocity)
    assert again.dof_effort[0] >= 1e308 and again.dof_effort[2] == 2.0  # the largest float: no limit
    pm = pin.buildModelFromXML(text)
    assert pm.nv == 3 and pm.effortLimit[2] == 2.0
    placeholder = text.replace('lower="-1000000.0" upper="1000000.0"', 'lower="-1e16" upper="1e+16"')
    assert placeholder != text
    np.testing.assert_array_equal(mb.parse_urdf(placeholder).compile().arrays.dof_limited, a.dof_limited)


def test_cylinder_sphere_capsules_load_in_pinocchio_without_parser_errors():
    import pinocchio as pin

    text = mb.to_urdf(hexapod(floating_base=False), capsules="cylinder_spheres")
    assert "<capsule" not in text
    pm = pin.buildModelFromXML(text)
    assert pm.nv == 18


def _mujoco(model):
    m = mujoco.MjModel.from_xml_string(mb.to_mjcf(model))
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT | mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    return m, mujoco.MjData(m)


def test_mjcf_export_gives_mujoco_the_same_mass_matrix_bias_and_frames_fixed_base():
    model = hexapod(floating_base=False)
    m, d = _mujoco(model)
    rng = np.random.default_rng(8)
    q = mb.samples.hexapod_stance(model) + rng.normal(size=18) * 0.3
    v = rng.normal(size=18)
    d.qpos[:], d.qvel[:] = q, v
    mujoco.mj_forward(m, d)
    M = np.zeros((18, 18))
    mujoco.mj_fullM(m, d, M)
    data = model.make_data()
    np.testing.assert_allclose(mb.crba(model, data, q), M, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(mb.rnea(model, data, q, v, np.zeros(18)), d.qfrc_bias, rtol=1e-9, atol=1e-10)
    mb.forward_kinematics(model, data, q)
    for k in range(6):
        site = m.site(f"leg{k}_foot").id
        np.testing.assert_allclose(mb.frame_placement(model, data, f"leg{k}_foot")[:3, 3], d.site_xpos[site],
                                   rtol=1e-12, atol=1e-12)


def test_mjcf_export_floating_base_accelerations_agree_with_mujoco():
    model = hexapod(floating_base=True)
    m, d = _mujoco(model)
    assert m.nq == model.nq and m.nv == model.nv
    rng = np.random.default_rng(12)
    q, v, _, tau = random_state(rng, model)
    d.qpos[:] = mb.qpos_to_mujoco(model, q)
    d.qvel[:] = mb.qvel_to_mujoco(model, q, v)
    d.qfrc_applied[:] = 0.0
    d.qfrc_applied[6:] = tau[6:]
    mujoco.mj_forward(m, d)
    tau[:6] = 0.0
    ddq = mb.aba(model, model.make_data(), q, v, tau)
    from legsim.multibody._spatial import quat_to_rot
    R = np.empty((3, 3))
    quat_to_rot(*q[3:7], R)
    # MuJoCo's linear coordinate is R v_lin, so its derivative is R (a_lin + w x v_lin)
    expected = ddq.copy()
    expected[:3] = R @ (ddq[:3] + np.cross(v[3:6], v[:3]))
    np.testing.assert_allclose(d.qacc, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())


def test_exported_urdf_loads_in_pybullet_with_the_same_masses_and_mass_matrix(tmp_path):
    import pybullet as p

    model = hexapod(floating_base=False)
    path = tmp_path / "hexapod.urdf"
    path.write_text(mb.to_urdf(model))
    cid = p.connect(p.DIRECT)
    try:
        body = p.loadURDF(str(path), useFixedBase=True, flags=p.URDF_USE_INERTIA_FROM_FILE,
                          physicsClientId=cid)
        assert p.getNumJoints(body, physicsClientId=cid) == 18
        masses = [p.getDynamicsInfo(body, j, physicsClientId=cid)[0] for j in range(18)]
        np.testing.assert_allclose(masses, model.body_mass[1:], rtol=1e-12)
        q = hexapod_stance(model) + 0.1
        M = np.array(p.calculateMassMatrix(body, q.tolist(), physicsClientId=cid))
    finally:
        p.disconnect(cid)
    np.testing.assert_allclose(M, mb.crba(model, model.make_data(), q), rtol=1e-9, atol=1e-12)
