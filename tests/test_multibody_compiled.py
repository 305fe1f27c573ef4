"""The compiled layer: spatial-algebra kernels against dense-matrix twins, and the dynamics kernels
called from a hybrid-engine style hook (model arrays frozen as globals, scratch carved from a buffer)."""

from __future__ import annotations

import numpy as np
from numba import njit

import legsim.multibody as mb
from legsim.hybrid.signatures import FLOW_SIG
from legsim.multibody import _configuration as C
from legsim.multibody import _kernels as K
from legsim.multibody._layout import data_buffer_size, data_from_buffer
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
        inertia_to_parent_add(R, p, A, np.zeros((6, 6)), np.zeros((3, 3)), acc)
        np.testing.assert_allclose(acc, X.T @ A @ X, atol=1e-13)


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
    ma = model.arrays
    nq, nv, nb = model.nq, model.nv, model.nbody
    size = data_buffer_size(nb, nv)

    def make_flow():
        @njit(FLOW_SIG)
        def flow(t, x, p, mode, xdot):
            # x = [q, v]; p = joint torques (nv,). Scratch: one allocation per call.
            d = data_from_buffer(np.empty(size), nb, nv)
            q = x[:nq]
            v = x[nq:]
            C.qdot(ma, q, v, xdot[:nq])
            K.forward_dynamics(ma, d, q, v, p, d.zero_nb6, xdot[nq:])

        return flow

    flow = make_flow()
    rng = np.random.default_rng(3)
    x = np.concatenate([hexapod_stance(model), rng.normal(size=nv)])
    tau = rng.normal(size=nv)
    xdot = np.zeros(nq + nv)
    flow(0.0, x, tau, 0, xdot)
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
