"""The compiled layer: spatial-algebra kernels against dense-matrix twins, and the dynamics kernels
called from a hybrid-engine style hook (the model viewed from the hook's parameters, scratch carved from a
buffer)."""

from __future__ import annotations

import numpy as np
from numba import njit

import legsim.multibody as mb
from legsim.hybrid.signatures import FLOW_SIG
from legsim.multibody import _configuration as C
from legsim.multibody import _kernels as K
from legsim.multibody._layout import data_buffer_size, data_from_buffer, model_from_buffers
from legsim.multibody._spatial import (
    force_to_parent_add,
    inertia_to_parent_add,
    motion_to_child,
    motion_transform,
    rot_to_quat_wxyz,
    rot_to_rpy,
    rpy_to_rot,
    spatial_inertia,
)
from legsim.multibody.samples import hexapod, hexapod_stance


def skew(p):
    return np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])


def test_spatial_transforms_match_their_dense_matrix_definitions():
    rng = np.random.default_rng(0)
    for _ in range(5):
        R = rpy_to_rot(rng.uniform(-np.pi, np.pi, 3))
        p = rng.normal(size=3)
        # Featherstone (2.24), linear part first: B_X_A = [[R^T, -R^T [p]x], [0, R^T]]
        X = np.zeros((6, 6))
        X[:3, :3] = R.T
        X[:3, 3:] = -R.T @ skew(p)
        X[3:, 3:] = R.T
        Xk = np.zeros((6, 6))
        motion_transform(R, p, Xk)
        np.testing.assert_allclose(Xk, X, atol=1e-15)
        m = rng.normal(size=6)
        out = np.zeros(6)
        motion_to_child(R, p, m, out)
        np.testing.assert_allclose(out, X @ m, atol=1e-14)
        f = rng.normal(size=6)
        fp = np.zeros(6)
        force_to_parent_add(R, p, f, fp)
        np.testing.assert_allclose(fp, X.T @ f, atol=1e-14)
        # power is frame independent: (X m) . f_child == m . (X^T f_child)
        assert abs(out @ f - m @ fp) < 1e-13
        A = spatial_inertia(rng.uniform(0.1, 2), rng.normal(size=3), np.diag(rng.uniform(0.1, 1, 3)))
        acc = np.zeros((6, 6))
        inertia_to_parent_add(R, p, A, acc)
        np.testing.assert_allclose(acc, X.T @ A @ X, atol=1e-13)
        # an articulated inertia is a general symmetric 6x6 (not of the rigid-body form)
        G = rng.normal(size=(6, 6))
        A = G @ G.T
        acc = rng.normal(size=(6, 6))
        ref = acc + X.T @ A @ X
        inertia_to_parent_add(R, p, A, acc)
        np.testing.assert_allclose(acc, ref, atol=1e-12)


def test_rotation_conversions_round_trip():
    rng = np.random.default_rng(1)
    for _ in range(20):
        rpy = rng.uniform(-3, 3, 3) * np.array([1, 0.5, 1])
        R = rpy_to_rot(rpy)
        np.testing.assert_allclose(rpy_to_rot(rot_to_rpy(R)), R, atol=1e-14)
        w, x, y, z = rot_to_quat_wxyz(R)
        Rq = np.empty((3, 3))
        from legsim.multibody._spatial import quat_to_rot
        quat_to_rot(x, y, z, w, Rq)
        np.testing.assert_allclose(Rq, R, atol=1e-14)


def test_dynamics_kernels_run_inside_a_compiled_hybrid_flow_hook():
    model = hexapod(floating_base=True)
    nq, nv, nb = model.nq, model.nv, model.nbody
    size = data_buffer_size(nb, nv)
    fbuf, ibuf = model.kernel_buffers
    nf = fbuf.size

    def make_flow():
        @njit(FLOW_SIG)
        def flow(t, x, p, mode, xdot):
            # x = [q, v]; p = [joint torques (nv,), the model's float buffer, its int buffer's bits]: the
            # model viewed from the parameters, as the robots' hooks do (the kernels' one compiled
            # variant; a model frozen as globals is read-only and compiles every kernel again).
            # Scratch: one allocation per call.
            ma = model_from_buffers(p[nv:nv + nf], p[nv + nf:].view(np.int64))
            d = data_from_buffer(np.empty(size), nb, nv)
            q = x[:nq]
            v = x[nq:]
            C.qdot(ma, q, v, xdot[:nq])
            K.forward_dynamics(ma, d, q, v, p[:nv], d.zero_nb6, xdot[nq:])

        return flow

    flow = make_flow()
    rng = np.random.default_rng(3)
    x = np.concatenate([hexapod_stance(model), rng.normal(size=nv)])
    tau = rng.normal(size=nv)
    xdot = np.zeros(nq + nv)
    flow(0.0, x, np.concatenate([tau, fbuf, ibuf.view(np.float64)]), 0, xdot)
    data = model.make_data()
    np.testing.assert_allclose(xdot[nq:], mb.forward_dynamics(model, data, x[:nq], x[nq:], tau), rtol=1e-14)
    np.testing.assert_allclose(xdot[:nq], mb.qdot(model, x[:nq], x[nq:]), rtol=1e-14)


def test_make_data_gives_writable_contiguous_arrays_with_cleared_zero_arrays():
    model = hexapod()
    d = model.make_data()
    assert d.M.shape == (model.nv, model.nv) and d.IA.shape == (model.nbody, 6, 6)
    assert not d.zero_nb6.any() and not d.zero_nv.any()
    for arr in d:
        assert arr.flags.c_contiguous and arr.flags.writeable and arr.dtype == np.float64


def test_unit_axis_joints_take_the_column_path_and_agree_with_pinocchio():
    """ABA and placements read ``I S`` as a column of ``I`` for joints about ``+e_k`` (``dof_axis``);
    ``-e_k`` and oblique axes keep the general path. Both agree with Pinocchio (exported URDF)."""
    import pinocchio as pin

    rng = np.random.default_rng(7)
    b = mb.RobotBuilder("unit_axes")
    b.add_body("b0", "world", "free", mass=1.5, com=rng.uniform(-0.1, 0.1, 3), inertia=(0.02, 0.03, 0.04))
    names = ["b0"]
    for i in range(1, 16):
        jt = "prismatic" if i % 3 == 0 else "revolute"
        axis = np.eye(3)[i % 3] if i % 5 else -np.eye(3)[i % 3]
        if i == 7:
            axis = rng.normal(size=3)
        b.add_body(f"b{i}", names[rng.integers(len(names))], jt, joint_name=f"j{i}",
                   xyz=rng.uniform(-0.3, 0.3, 3), rpy=rng.uniform(-np.pi, np.pi, 3), axis=axis,
                   mass=rng.uniform(0.2, 1.0), com=rng.uniform(-0.1, 0.1, 3),
                   inertia=tuple(rng.uniform(0.01, 0.02, 3)), limits=(-4.0, 4.0), armature=0.01 * (i % 2))
        names.append(f"b{i}")
    model = b.compile()
    codes = model.arrays.dof_axis
    assert codes[:6].tolist() == list(range(6))
    assert (codes[6:] >= 0).sum() == 11 and (codes[6:] < 0).sum() == 4  # i = 5, 10, 15: -e_k; i = 7: oblique
    S = model.arrays.dof_S
    for j in range(model.nv):
        if codes[j] >= 0:
            assert S[j, codes[j]] == 1.0 and np.count_nonzero(S[j]) == 1

    pm = pin.buildModelFromXML(mb.to_urdf(model), pin.JointModelFreeFlyer())
    pm.armature[:] = 0.0
    pv = np.zeros(model.nv, dtype=int)
    pq = np.zeros(model.nq, dtype=int)
    pv[:6], pq[:7] = np.arange(6), np.arange(7)
    for i in range(2, model.nbody):
        jid = pm.getJointId(model.jnt_names[i])
        pv[model.arrays.jnt_dofadr[i]] = pm.idx_vs[jid]
        pq[model.arrays.jnt_qposadr[i]] = pm.idx_qs[jid]
        pm.armature[pm.idx_vs[jid]] = model.arrays.dof_armature[model.arrays.jnt_dofadr[i]]
    data = model.make_data()
    pd = pm.createData()
    for _ in range(3):
        q = np.concatenate([rng.uniform(-1, 1, 3), np.ones(4) / 2.0, rng.uniform(-2, 2, model.nq - 7)])
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
        Q, V, T = np.empty(pm.nq), np.empty(pm.nv), np.empty(pm.nv)
        Q[pq], V[pv], T[pv] = q, v, tau
        ref = pin.aba(pm, pd, Q, V, T)[pv]
        ddq = mb.aba(model, data, q, v, tau)
        assert np.abs(ddq - ref).max() <= 1e-9 * np.abs(ref).max()
        pin.forwardKinematics(pm, pd, Q)
        mb.forward_kinematics(model, data, q, v, np.zeros(model.nv))
        for i in range(2, model.nbody):
            jid = pm.getJointId(model.jnt_names[i])
            np.testing.assert_allclose(data.oR[i], pd.oMi[jid].rotation, atol=1e-12)
