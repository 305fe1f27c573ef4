"""legsim.multibody against Pinocchio (the peer oracle) on random kinematic trees.

Trees: 32 moving bodies (revolute and prismatic mixed, random axes, placements, inertias), fixed and
floating base. Pinocchio's model is built from a URDF: either the one legsim exports, or a URDF
written here independently (with fixed joints and rotated inertials) and parsed by both libraries.
Tolerance: max |legsim - pinocchio| <= 1e-9 * max |pinocchio|.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest

import legsim.multibody as mb
from legsim.multibody.samples import random_state, random_tree

RTOL = 1e-9
REFS = {"world": pin.ReferenceFrame.WORLD, "local_world_aligned": pin.ReferenceFrame.LOCAL_WORLD_ALIGNED,
        "local": pin.ReferenceFrame.LOCAL}


def assert_rel(ours, ref, tol=RTOL):
    ours, ref = np.asarray(ours), np.asarray(ref)
    scale = max(np.abs(ref).max(), 1e-300)
    err = np.abs(ours - ref).max() / scale
    assert err <= tol, f"relative error {err:.3e} > {tol:.0e}"


def index_maps(model, pm):
    """legsim q/v index -> Pinocchio q/v index, matched by joint name."""
    a = model.arrays
    pq = np.zeros(model.nq, dtype=int)
    pv = np.zeros(model.nv, dtype=int)
    for i in range(1, model.nbody):
        name = model.jnt_names[i]
        jid = pm.getJointId(name) if pm.existJointName(name) else 1  # free joint = root_joint
        nv = a.jnt_nv[i]
        nq = 7 if nv == 6 else 1
        pv[a.jnt_dofadr[i]:a.jnt_dofadr[i] + nv] = np.arange(pm.idx_vs[jid], pm.idx_vs[jid] + nv)
        pq[a.jnt_qposadr[i]:a.jnt_qposadr[i] + nq] = np.arange(pm.idx_qs[jid], pm.idx_qs[jid] + nq)
    return pq, pv


def to_pin(x, idx, n):
    out = np.empty(n)
    out[idx] = x
    return out


def random_urdf(rng, nlink=36, floating=False):
    """Independent URDF writer: random tree with revolute, prismatic and fixed joints and inertials
    with rotated principal axes (origin rpy), for parsing by both libraries."""
    lines = ['<robot name="rand">']
    links = []
    for i in range(nlink):
        p = rng.uniform(0.05, 1.0, 3)
        d = np.array([p[1] + p[2], p[0] + p[2], p[0] + p[1]]) * 0.05
        xyz = " ".join(repr(float(x)) for x in rng.uniform(-0.2, 0.2, 3))
        rpy = " ".join(repr(float(x)) for x in rng.uniform(-np.pi, np.pi, 3))
        lines.append(
            f'<link name="l{i}"><inertial><origin xyz="{xyz}" rpy="{rpy}"/>'
            f'<mass value="{float(rng.uniform(0.1, 2.0))!r}"/>'
            f'<inertia ixx="{float(d[0])!r}" iyy="{float(d[1])!r}" izz="{float(d[2])!r}" '
            'ixy="0" ixz="0" iyz="0"/>'
            f'</inertial></link>')
        if i > 0:
            parent = links[rng.integers(len(links))] if rng.random() < 0.5 else links[-1]
            u = rng.random()
            jt = "revolute"
            if u < 0.3:
                jt = "prismatic"
            elif u > 0.88:
                jt = "fixed"
            oxyz = " ".join(repr(float(x)) for x in rng.uniform(-0.5, 0.5, 3))
            orpy = " ".join(repr(float(x)) for x in rng.uniform(-np.pi, np.pi, 3))
            ax = rng.normal(size=3)
            ax = " ".join(repr(float(x)) for x in ax / np.linalg.norm(ax))
            lines.append(
                f'<joint name="j{i}" type="{jt}"><parent link="{parent}"/><child link="l{i}"/>'
                f'<origin xyz="{oxyz}" rpy="{orpy}"/><axis xyz="{ax}"/>'
                f'<limit lower="-4" upper="4" effort="1" velocity="1"/></joint>')
        links.append(f"l{i}")
    lines.append("</robot>")
    return "\n".join(lines)


def build_pair(seed, floating, source):
    rng = np.random.default_rng(seed)
    if source == "export":
        model = random_tree(rng, 32, floating_base=floating).compile()
        text = mb.to_urdf(model)
    else:
        text = random_urdf(rng, 40, floating)
        model = mb.parse_urdf(text, floating_base=floating).compile()
    pm = pin.buildModelFromXML(text, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromXML(text)
    return rng, model, pm


CASES = [(0, False, "export"), (1, True, "export"), (2, False, "urdf"), (3, True, "urdf")]


@pytest.mark.parametrize("seed,floating,source", CASES)
def test_dynamics_agree_with_pinocchio_on_random_trees(seed, floating, source):
    rng, model, pm = build_pair(seed, floating, source)
    assert model.nv >= 30
    assert (model.nq, model.nv) == (pm.nq, pm.nv)
    kinds = set(model.arrays.jnt_type[1:].tolist())
    assert {2, 3} <= kinds  # revolute and prismatic both present
    pd = pm.createData()
    data = model.make_data()
    pq, pv = index_maps(model, pm)
    for _ in range(3):
        q, v, a, tau = random_state(rng, model)
        Q, V = to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv)
        A, T = to_pin(a, pv, pm.nv), to_pin(tau, pv, pm.nv)
        # forward kinematics of every body
        pin.forwardKinematics(pm, pd, Q, V, A)
        mb.forward_kinematics(model, data, q, v, a)
        for i in range(1, model.nbody):
            jid = pm.getJointId(model.jnt_names[i]) if pm.existJointName(model.jnt_names[i]) else 1
            assert_rel(data.oR[i], pd.oMi[jid].rotation)
            assert_rel(data.op[i], pd.oMi[jid].translation)
            assert_rel(data.v[i], pd.v[jid].vector)
        # RNEA, CRBA, ABA
        assert_rel(mb.rnea(model, data, q, v, a), pin.rnea(pm, pd, Q, V, A)[pv])
        Mp = pin.crba(pm, pd, Q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert_rel(mb.crba(model, data, q), Mp[np.ix_(pv, pv)])
        assert_rel(mb.aba(model, data, q, v, tau), pin.aba(pm, pd, Q, V, T)[pv])


@pytest.mark.parametrize("seed,floating,source", CASES)
def test_frame_placements_velocities_and_jacobians_agree_with_pinocchio(seed, floating, source):
    rng, model, pm = build_pair(seed, floating, source)
    pd = pm.createData()
    data = model.make_data()
    pq, pv = index_maps(model, pm)
    q, v, _, _ = random_state(rng, model)
    Q, V = to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv)
    pin.forwardKinematics(pm, pd, Q, V)
    pin.updateFramePlacements(pm, pd)
    mb.forward_kinematics(model, data, q, v)
    checked = 0
    for name in model.frame_names[1:]:
        if not pm.existFrame(name):
            continue
        fid = pm.getFrameId(name)
        assert_rel(mb.frame_placement(model, data, name), pd.oMf[fid].homogeneous)
        for ref, pref in REFS.items():
            ref_v = pin.getFrameVelocity(pm, pd, fid, pref).vector
            assert_rel(mb.frame_velocity(model, data, name, ref), ref_v)
            J = pin.computeFrameJacobian(pm, pd, Q, fid, pref)[:, pv]
            assert_rel(mb.frame_jacobian(model, data, q, name, ref), J)
        checked += 1
    assert checked >= 30
    if source == "urdf":  # fixed-joint links were merged and kept as frames
        assert model.nframe > model.nbody


@pytest.mark.parametrize("seed", [1, 3])
def test_integrate_matches_pinocchio_on_the_floating_base_lie_group(seed):
    rng, model, pm = build_pair(seed, True, "export" if seed == 1 else "urdf")
    pq, pv = index_maps(model, pm)
    q, v, _, _ = random_state(rng, model)
    for dt in (1e-3, 0.7):
        ours = mb.integrate(model, q, v, dt)
        ref = pin.integrate(pm, to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv) * dt)[pq]
        assert_rel(ours, ref, 1e-12)


@pytest.mark.parametrize("seed,floating,source", CASES[:2])
def test_external_body_wrenches_agree_with_pinocchio_fext(seed, floating, source):
    rng, model, pm = build_pair(seed, floating, source)
    pd = pm.createData()
    data = model.make_data()
    pq, pv = index_maps(model, pm)
    q, v, a, tau = random_state(rng, model)
    fext = rng.normal(size=(model.nbody, 6))
    fext[0] = 0.0
    pin_f = [pin.Force.Zero() for _ in range(pm.njoints)]
    for i in range(1, model.nbody):
        name = model.jnt_names[i]
        jid = pm.getJointId(name) if pm.existJointName(name) else 1
        pin_f[jid] = pin.Force(fext[i, :3], fext[i, 3:])
    Q, V = to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv)
    A, T = to_pin(a, pv, pm.nv), to_pin(tau, pv, pm.nv)
    assert_rel(mb.rnea(model, data, q, v, a, fext), pin.rnea(pm, pd, Q, V, A, pin_f)[pv])
    assert_rel(mb.aba(model, data, q, v, tau, fext), pin.aba(pm, pd, Q, V, T, pin_f)[pv])


def test_armature_agrees_with_pinocchio_model_armature():
    rng, model, pm = build_pair(5, True, "export")
    pq, pv = index_maps(model, pm)
    arm = np.zeros(model.nv)
    arm[6:] = rng.uniform(0.01, 0.5, model.nv - 6)
    model = model.with_options(armature=arm)
    pm.armature = to_pin(arm, pv, pm.nv)
    pd, data = pm.createData(), model.make_data()
    q, v, a, tau = random_state(rng, model)
    Q, V = to_pin(q, pq, pm.nq), to_pin(v, pv, pm.nv)
    A, T = to_pin(a, pv, pm.nv), to_pin(tau, pv, pm.nv)
    assert_rel(mb.aba(model, data, q, v, tau), pin.aba(pm, pd, Q, V, T)[pv])
    assert_rel(mb.rnea(model, data, q, v, a), pin.rnea(pm, pd, Q, V, A)[pv])
