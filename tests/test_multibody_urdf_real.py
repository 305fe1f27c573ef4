"""Real robots nobody here wrote: pybullet_data's URDFs load and agree with Pinocchio.

Every robot below loads with ``legsim.multibody.load_urdf``; ABA, RNEA and CRBA agree with
Pinocchio's ``buildModelFromUrdf`` model to 1e-9 relative (max |legsim - pinocchio| / max
|pinocchio|) at random states, joints matched by name and continuous joints converted by
:class:`legsim.multibody.PinocchioMap`. Also: ``<mimic>`` handling, mesh collision hulls and the
errors for a missing mesh file. franka_panda is loaded with ``mimic="ignore"`` because that is what
Pinocchio (``mimic=False``, its default) and PyBullet do with its second finger joint.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin
import pybullet_data
import pytest
import trimesh

import legsim.multibody as mb
from legsim.contact.shapes import ConvexMesh
from legsim.errors import InputError
from legsim.multibody.samples import random_state

DATA = Path(pybullet_data.getDataPath())
RTOL = 1e-9
# name: (file under pybullet_data, floating base, load_urdf options)
ROBOTS = {
    "a1": ("a1/a1.urdf", True, {}),
    "aliengo": ("aliengo/aliengo.urdf", True, {}),
    "laikago": ("laikago/laikago.urdf", True, {}),
    "laikago_toes": ("laikago/laikago_toes.urdf", True, {}),
    "mini_cheetah": ("mini_cheetah/mini_cheetah.urdf", True, {}),
    "minitaur": ("quadruped/minitaur.urdf", True, {}),
    "spirit40": ("quadruped/spirit40.urdf", True, {}),
    "r2d2": ("r2d2.urdf", True, {}),
    "franka_panda": ("franka_panda/panda.urdf", False, {"mimic": "ignore"}),
    "kuka_iiwa": ("kuka_iiwa/model.urdf", False, {}),
}
# robots whose URDF has continuous joints (unit-circle joints in Pinocchio)
CONTINUOUS = {"aliengo", "laikago", "laikago_toes", "mini_cheetah", "minitaur", "r2d2"}


def rel_err(ours, ref):
    ours, ref = np.asarray(ours), np.asarray(ref)
    return float(np.abs(ours - ref).max() / max(np.abs(ref).max(), 1e-300))


def load_pair(name, **extra):
    rel, floating, opts = ROBOTS[name]
    path = DATA / rel
    model = mb.load_urdf(path, floating_base=floating, **{**opts, **extra})
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating \
        else pin.buildModelFromUrdf(str(path))
    return model, pm


def dynamics_errors(model, pm, seed, nstate=3):
    """Max relative errors (rnea, crba, aba) against Pinocchio over ``nstate`` random states."""
    conv = mb.PinocchioMap.build(model, pm)
    rng = np.random.default_rng(seed)
    pd, data = pm.createData(), model.make_data()
    errs = np.zeros(3)
    for _ in range(nstate):
        q, v, a, tau = random_state(rng, model)
        Q, V, A, T = conv.q_to_pin(q), conv.v_to_pin(v), conv.v_to_pin(a), conv.v_to_pin(tau)
        M = pin.crba(pm, pd, Q)
        M = np.triu(M) + np.triu(M, 1).T
        idx = conv.v_index
        errs = np.maximum(errs, [
            rel_err(mb.rnea(model, data, q, v, a), conv.v_from_pin(pin.rnea(pm, pd, Q, V, A))),
            rel_err(mb.crba(model, data, q), M[np.ix_(idx, idx)]),
            rel_err(mb.aba(model, data, q, v, tau), pin.aba(pm, pd, Q, V, T)[idx]),
        ])
    return errs


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_real_robot_loads_and_its_dynamics_agree_with_pinocchio(name):
    model, pm = load_pair(name)
    assert model.nv == pm.nv >= 7
    ncont = sum(1 for j in range(1, pm.njoints) if pm.nqs[j] == 2)
    assert (ncont > 0) == (name in CONTINUOUS)
    assert pm.nq == model.nq + ncont
    # every moving Pinocchio body's mass is in legsim's moving bodies (fixed-base roots: the world)
    assert model.total_mass() == pytest.approx(sum(pm.inertias[j].mass for j in range(1, pm.njoints)),
                                               rel=1e-12)
    errs = dynamics_errors(model, pm, seed=len(name))
    assert errs.max() <= RTOL, f"{name}: relative errors rnea, crba, aba = {errs}"


def test_the_tolerance_catches_a_massless_links_dropped_rotational_inertia():
    """franka's panda_link8 (fixed to link 7) has mass 0 and inertia 0.1 kg m^2: the loader keeps
    it, as Pinocchio does. Dropping it (the old behaviour) is a 1e-1 error, far above RTOL."""
    rel, _, _ = ROBOTS["franka_panda"]
    b = mb.parse_urdf((DATA / rel).read_text(), source=str(DATA / rel), mimic="ignore", meshes="skip")
    massless = [s for s in b.bodies if s.mass == 0.0 and np.any(s.inertia != 0.0)]
    assert {s.name for s in massless} >= {"panda_link8"}
    for s in massless:
        s.inertia = np.zeros((3, 3))
    _, pm = load_pair("franka_panda")
    errs = dynamics_errors(b.compile(), pm, seed=0)
    assert errs.max() > 1e3 * RTOL


def test_continuous_joints_convert_to_pinocchio_unit_circle_and_back():
    model, pm = load_pair("laikago")
    conv = mb.PinocchioMap.build(model, pm)
    assert len(conv.q_circle) == 12 and conv.pin_nq == model.nq + 12
    q, _, _, _ = random_state(np.random.default_rng(1), model)
    q[7:] += 2.0 * np.pi  # a full turn more: the same configuration
    Q = mb.pinocchio_q(model, q, pm)
    assert np.allclose(Q[conv.q_circle_pin] ** 2 + Q[conv.q_circle_pin + 1] ** 2, 1.0)
    jid = pm.getJointId("FR_hip_motor_2_chassis_joint")
    k = model.joint_names.index("FR_hip_motor_2_chassis_joint")
    assert Q[pm.idx_qs[jid]:pm.idx_qs[jid] + 2] == pytest.approx([np.cos(q[7 + k]), np.sin(q[7 + k])])
    back = mb.from_pinocchio_q(model, Q, pm)
    np.testing.assert_allclose(back[:7], q[:7], rtol=0, atol=1e-15)
    np.testing.assert_allclose(back[7:], q[7:] - 2.0 * np.pi, rtol=0, atol=1e-12)
    # batches of states, and nv-vectors only permute
    assert conv.q_to_pin(np.stack([q, q])).shape == (2, pm.nq)
    v = np.arange(model.nv, dtype=float)
    np.testing.assert_array_equal(conv.v_from_pin(mb.pinocchio_v(model, v, pm)), v)
    np.testing.assert_array_equal(mb.from_pinocchio_v(model, conv.v_to_pin(v), pm), v)
    with pytest.raises(InputError, match=r"\(\.\.\., 19\)"):
        conv.q_to_pin(np.zeros(model.nq + 1))


def test_free_flyer_quaternion_order_is_xyzw_in_both():
    model, pm = load_pair("a1")
    q = model.neutral()
    q[3:7] = [0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)]  # 90 deg about z, scalar last
    pd = pm.createData()
    pin.forwardKinematics(pm, pd, mb.pinocchio_q(model, q, pm))
    np.testing.assert_allclose(pd.oMi[pm.getJointId("root_joint")].rotation,
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_joints_that_do_not_match_by_name_are_input_errors():
    model, _ = load_pair("kuka_iiwa")
    _, other = load_pair("franka_panda")
    with pytest.raises(InputError, match="lbr_iiwa_joint_1"):
        mb.PinocchioMap.build(model, other)


def test_mimic_joints_are_refused_by_default_with_what_to_do():
    path = DATA / ROBOTS["franka_panda"][0]
    mimics = {j.get("name"): j.find("mimic").get("joint")
              for j in ET.parse(path).getroot().findall("joint") if j.find("mimic") is not None}
    assert mimics == {"panda_finger_joint2": "panda_finger_joint1"}
    with pytest.raises(InputError) as info:
        mb.load_urdf(path)
    msg = str(info.value)
    for word in (str(path), "'panda_finger_joint2' mimics joint 'panda_finger_joint1'",
                 "mimic='ignore'", "mimic='fixed'"):
        assert word in msg
    with pytest.raises(InputError, match="mimic='sometimes'"):
        mb.load_urdf(path, mimic="sometimes")


MIMIC = """<robot name="mimic">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="a"><inertial><origin xyz="0.1 0.2 0"/><mass value="0.5"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><origin xyz="0 0.1 0.3"/><mass value="0.3"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><origin xyz="0.2 0 0"/><mass value="0.2"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="ja" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="jb" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.3 0 0" rpy="0.2 0 0"/>
    <axis xyz="1 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="ja" multiplier="2" offset="0.7"/></joint>
  <joint name="jc" type="prismatic"><parent link="b"/><child link="c"/><origin xyz="0 0.2 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="ja" offset="-0.25"/></joint>
  <joint name="jd" type="revolute"><parent link="c"/><child link="d"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <link name="d"><inertial><origin xyz="0 0 -0.2"/><mass value="0.4"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>"""


def test_mimic_fixed_locks_the_joint_at_its_offset_like_a_pinocchio_reduced_model():
    model = mb.parse_urdf(MIMIC, mimic="fixed").compile()
    assert model.joint_names == ("ja", "jd")
    pm = pin.buildModelFromXML(MIMIC)
    locked = pin.neutral(pm)
    locked[pm.idx_qs[pm.getJointId("jb")]] = 0.7
    locked[pm.idx_qs[pm.getJointId("jc")]] = -0.25
    reduced = pin.buildReducedModel(pm, [pm.getJointId("jb"), pm.getJointId("jc")], locked)
    errs = dynamics_errors(model, reduced, seed=3)
    assert errs.max() <= RTOL, errs
    # locking at 0 instead of the offsets would be caught
    zero = pin.buildReducedModel(pm, [pm.getJointId("jb"), pm.getJointId("jc")], pin.neutral(pm))
    assert dynamics_errors(model, zero, seed=3).max() > 1e3 * RTOL
    ignored = mb.parse_urdf(MIMIC, mimic="ignore").compile()
    assert ignored.joint_names == ("ja", "jb", "jc", "jd")
    assert dynamics_errors(ignored, pm, seed=4).max() <= RTOL


def test_mesh_collisions_become_convex_hulls_of_plausible_size():
    model, _ = load_pair("mini_cheetah")
    meshes = [g for g in model.geometries if g.shape == "mesh"]
    assert len(meshes) == 13 and sum(g.shape == "sphere" for g in model.geometries) == 4
    for g in meshes:
        V, F = g.params["vertices"], g.params["faces"]
        assert 4 <= len(V) <= 200 and F.shape[1] == 3 and not V.flags.writeable
        raw = trimesh.load_mesh(g.params["filename"], process=False)
        lo, hi = raw.vertices.min(axis=0), raw.vertices.max(axis=0)
        # an inner approximation of the raw mesh that still spans (nearly) all of it
        assert np.all(V.min(axis=0) >= lo - 1e-12) and np.all(V.max(axis=0) <= hi + 1e-12)
        assert np.all(np.ptp(V, axis=0) >= 0.95 * (hi - lo))
        assert 0.04 < np.ptp(V, axis=0).max() < 0.4  # m: a 9 kg quadruped's parts
        ConvexMesh(V)  # the contact library takes it as is
    body = next(g for g in meshes if g.body == "body")
    assert np.ptp(body.params["vertices"], axis=0) == pytest.approx([0.2755, 0.197, 0.0985], rel=0.02)
    assert len(trimesh.load_mesh(body.params["filename"]).convex_hull.vertices) > 200  # decimated
    kuka, _ = load_pair("kuka_iiwa")
    assert sum(g.shape == "mesh" and len(g.params["vertices"]) >= 20 for g in kuka.geometries) == 8


def kuka_copy(tmp_path, replace=None):
    text = (DATA / ROBOTS["kuka_iiwa"][0]).read_text()
    if replace:
        text = text.replace(*replace)
    path = tmp_path / "urdf" / "iiwa.urdf"
    path.parent.mkdir()
    path.write_text(text)
    return path


def test_a_missing_mesh_names_the_urdf_the_link_and_the_path(tmp_path):
    path = kuka_copy(tmp_path)
    with pytest.raises(InputError) as info:
        mb.load_urdf(path)
    msg = str(info.value)
    for word in (str(path), "link 'lbr_iiwa_link_0'", "'meshes/link_0.stl' not found",
                 str(path.parent.resolve() / "meshes" / "link_0.stl"), "meshes='skip'"):
        assert word in msg
    skipped = mb.load_urdf(path, meshes="skip")
    assert skipped.geometries == ()
    recorded = mb.load_urdf(path, meshes="record")
    names = [g.params["filename"] for g in recorded.geometries]
    assert names[:2] == ["meshes/link_0.stl", "meshes/link_1.stl"]
    found = mb.load_urdf(path, package_dirs=[DATA / "kuka_iiwa"])
    assert all(len(g.params["vertices"]) >= 20 for g in found.geometries)


def test_package_uris_resolve_in_parent_folders_and_mesh_scale_applies(tmp_path):
    shutil.copytree(DATA / "kuka_iiwa" / "meshes", tmp_path / "kuka" / "meshes")
    text = (DATA / ROBOTS["kuka_iiwa"][0]).read_text()
    text = text.replace('"meshes/link_0.stl"', '"package://kuka/meshes/link_0.stl" scale="2 2 2"')
    path = tmp_path / "kuka" / "urdf" / "iiwa.urdf"
    path.parent.mkdir()
    path.write_text(text.replace('"meshes/', '"package://kuka/meshes/'))
    model = mb.load_urdf(path)
    ref = mb.load_urdf(DATA / ROBOTS["kuka_iiwa"][0])
    g0 = [g for g in model.geometries if g.body == "world"][0]
    r0 = [g for g in ref.geometries if g.body == "world"][0]
    assert g0.params["uri"] == "package://kuka/meshes/link_0.stl"
    np.testing.assert_allclose(g0.params["vertices"], 2.0 * r0.params["vertices"], rtol=1e-12)
    for g, r in zip(model.geometries[1:], ref.geometries[1:], strict=True):
        np.testing.assert_array_equal(g.params["vertices"], r.params["vertices"])
    bad = tmp_path / "kuka" / "urdf" / "bad.urdf"
    bad.write_text(text.replace('"meshes/link_3.stl"', '"package://nowhere/link_3.stl"'))
    with pytest.raises(InputError, match="link 'lbr_iiwa_link_3'.*'package://nowhere/link_3.stl' not found"):
        mb.load_urdf(bad)
    # a scale of 1e200 was refused as "flat or empty mesh" (its hull lost every digit), 0 the same way
    for factor in ("1e200", "0"):
        scale = " ".join([factor] * 3)
        bad.write_text(text.replace('scale="2 2 2"', f'scale="{scale}"'))
        said = f"<mesh>: attribute scale='{scale}': expected factors of magnitude 1e-6 to 1e6"
        with pytest.raises(InputError, match=said):
            mb.load_urdf(bad)


def test_a_robot_with_mesh_collisions_lands_on_its_hulls_in_robotworld():
    from legsim.contact import ContactLaw, coulomb, kelvin_voigt
    from legsim.world import RobotWorld

    model = mb.load_urdf(DATA / ROBOTS["laikago"][0], floating_base=True)
    assert any(g.shape == "mesh" for g in model.geometries)
    world = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(2e4, 200.0), coulomb(0.8, 0.05)),
                       kp=100.0, kd=1.0)
    q0 = model.neutral()
    q0[2] = 0.7
    world.reset(q=q0)
    world.set_targets(q0[7:])
    res = world.simulate(1.2, dt=5e-4, method="rk4")
    z = res.q[:, 2]
    # falls, lands on its mesh hulls, and over the last 0.1 s the hulls' contacts carry its weight
    weight = model.total_mass() * 9.81
    support = res.contact_force[-200:, :, 2].sum(axis=1).mean()
    assert np.all(np.isfinite(res.q)) and 0.05 < z[-1] < 0.69
    assert abs(support - weight) < 0.1 * weight


def test_the_warm_ups_contact_family_is_what_a_robotworld_or_rigidworld_run_loads():
    """Issue 20 §1: ``legsim warmup``'s ``contact`` family (``legsim.world._prewarm``: a sphere in a
    RigidWorld, a one-body RobotWorld) compiles the loops that other worlds load: here the laikago with
    mesh hulls, under both integrators, and a RigidWorld bounce compile nothing more (a different argument
    type would compile a second overload, 80 s with an empty cache). Both runs announce a first compile."""
    from numba.core import event

    import legsim._compiling as compiling
    import legsim.world._prewarm  # noqa: F401 - loads from the cache the suite's warm-up filled
    from legsim.contact import ContactLaw, LawTable, Plane, RigidWorld, coulomb, kelvin_voigt, restitution
    from legsim.contact.shapes import Sphere
    from legsim.world import RobotWorld

    compiled = []

    class Listener(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func.__qualname__)

        def on_end(self, ev):
            pass

    model = mb.load_urdf(DATA / ROBOTS["laikago"][0], floating_base=True)
    world = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(2e4, 200.0), coulomb(0.8, 0.05)))
    q0 = model.neutral()
    q0[2] = 0.7
    world.reset(q=q0)
    rigid = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.7, v_min=0.05), coulomb(0.5))))
    rigid.add_solid(Sphere(0.05), mass=0.2, pos=(0.0, 0.0, 0.3))
    rigid.scene.add(Plane())
    listener = Listener()
    event.register("numba:compile", listener)
    try:
        world.simulate(0.01, dt=5e-4, method="euler")
        world.simulate(0.01, dt=5e-4, method="rk4")
        rigid.simulate(0.01, 1e-4)
    finally:
        event.unregister("numba:compile", listener)
    assert compiled == []
    assert compiling._WATCHER is not None  # registered by simulate: a compile over 2 s says so
