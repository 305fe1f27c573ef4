"""The CRR leg with prismatic cylinder actuators (pneumatic digest §6 item 3, §7 item 7).

Each cylinder is a barrel + piston-rod closed loop with mass; the loop is closed by coordinate
projection (legsim.robots.crr_leg._prismatic_hooks). The references here are derived
independently: the law-of-cosines linkage of the torque mode, the multibody forward kinematics,
finite differences, an analytic kinetic energy of one cylinder, and energy balances.
"""

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid, solve_ivp

from legsim.errors import InputError
from legsim.multibody import crba, energy, forward_kinematics, frame_placement, passive_forces
from legsim.robots.crr_leg import JointReference, LegBench, crr_leg_bodies
from legsim.robots.crr_leg import _hooks as H
from legsim.robots.crr_leg import _prismatic_hooks as P
from legsim.robots.crr_leg.geometry import JOINT_LIMITS
from legsim.robots.crr_leg.prismatic import (
    CylinderInertia,
    _builder_of,
    crr_leg_with_cylinders,
    default_cylinder_inertias,
    massless_cylinders,
)
from legsim.robots.pneumatic_rig.metrics import step_metrics

d = np.radians
JOINTS = ("alpha", "beta", "gamma")
LO = np.array([r[0] for r in JOINT_LIMITS])
HI = np.array([r[1] for r in JOINT_LIMITS])


@pytest.fixture(scope="module")
def bench():
    return LegBench(actuation="prismatic")


def _closure(p, q, v):
    qf, vf, conv = np.zeros(9), np.zeros(9), np.zeros(9)
    gphi, gx = np.zeros(3), np.zeros(3)
    P.closure(p, np.asarray(q, float), np.asarray(v, float), qf, vf, conv, gphi, gx)
    G = np.zeros((9, 3))
    G[:3] = np.eye(3)
    for j in range(3):
        G[3 + 2 * j, j] = gphi[j]
        G[4 + 2 * j, j] = gx[j]
    return qf, vf, conv, G


# ------------------------------------------------------------------------------- the tree
def test_the_augmented_tree_is_the_leg_plus_a_barrel_and_a_rod_per_joint(bench):
    leg = crr_leg_bodies()
    rebuilt = _builder_of(leg).compile()
    np.testing.assert_array_equal(rebuilt.fbuf, leg.fbuf)
    np.testing.assert_array_equal(rebuilt.ibuf, leg.ibuf)
    tree = bench.bodies
    assert tree.joint_names[:3] == leg.joint_names
    assert tree.nv == 9
    cyl = sum(c.barrel_mass + c.rod_mass for c in bench.cylinder_inertias)
    assert tree.total_mass() == pytest.approx(leg.total_mass() + cyl, rel=1e-14)
    assert 0.3 < cyl < 0.6                     # kg: three small Bimba cylinders (estimate)


# ------------------------------------------------------------------------------- loop closure
def test_each_rod_end_lands_on_its_crank_tip_over_the_joint_ranges(bench):
    p = bench.model.param_defaults
    m = bench.bodies
    data = m.make_data()
    rng = np.random.default_rng(1)
    grid = np.linspace(LO, HI, 25)
    for q in np.vstack([grid, rng.uniform(LO, HI, size=(25, 3))]):
        qf, _, _, G = _closure(p, q, np.zeros(3))
        forward_kinematics(m, data, qf)
        for j, name in enumerate(JOINTS):
            rod_end = frame_placement(m, data, f"{name}_rod")[:3, 3]
            crank = frame_placement(m, data, f"{name}_crank_end")[:3, 3]
            assert np.linalg.norm(rod_end - crank) < 1e-10, (name, q)
            # the rod coordinate is the torque mode's piston position, its G entry the lever arm
            x, _, arm = bench.linkages[j].cylinder(q[j])
            assert qf[4 + 2 * j] == pytest.approx(float(x), abs=1e-12)
            assert G[4 + 2 * j, j] == pytest.approx(float(arm), rel=1e-12)


def test_velocity_map_and_convective_term_match_finite_differences_of_the_closure(bench):
    # along theta(t) = theta0 + w t + a t^2 / 2: dq_full/dt = G w(t), d2q_full/dt2 = G a + Gdot w
    p = bench.model.param_defaults
    th0 = np.array([0.1, -0.6, 0.9])
    w0 = np.array([1.3, -0.8, 2.1])
    acc = np.array([-3.0, 4.0, 2.5])
    h = 1e-4
    for t in np.linspace(0.0, 0.4, 9):
        def q_at(s):
            return _closure(p, th0 + w0 * s + 0.5 * acc * s * s, np.zeros(3))[0]
        w = w0 + acc * t
        _, vf, conv, G = _closure(p, th0 + w0 * t + 0.5 * acc * t * t, w)
        np.testing.assert_allclose((q_at(t + h) - q_at(t - h)) / (2 * h), vf, atol=1e-7)
        np.testing.assert_allclose(vf, G @ w, rtol=1e-14, atol=1e-15)
        second = (q_at(t + h) - 2 * q_at(t) + q_at(t - h)) / h ** 2
        np.testing.assert_allclose(second, G @ acc + conv, atol=2e-5)
        assert np.abs(conv[3:]).max() > 1e-2        # the convective term is not trivially zero


# ------------------------------------------------------------------------------- vs torque mode
def test_with_massless_cylinders_the_state_rates_equal_the_torque_modes():
    torque = LegBench()
    light = LegBench(actuation="prismatic", cylinders=massless_cylinders(1e-12))
    refs = [JointReference.hold(0.3), JointReference.hold(-0.5), JointReference.hold(1.0)]
    pt, pp = torque.params(refs), light.params(refs)
    rng = np.random.default_rng(7)
    for k in range(8):
        # inside the ranges, and (k >= 6) a few degrees past a limit so the limit law acts
        q = rng.uniform(LO, HI) if k < 6 else np.where(rng.uniform(size=3) < 0.5, LO - 0.05, HI + 0.05)
        s = torque.initial_state(np.clip(q, LO, HI))
        s[H.Q:H.Q + 3] = q
        s[H.V:H.V + 3] = rng.uniform(-3.0, 3.0, 3)
        for j in range(3):
            s[H.GAS + 5 * j:H.GAS + 5 * j + 2] *= rng.uniform(0.6, 1.4, 2)
        s[H.U:H.U + 3] = rng.uniform(3.0, 7.0, 3)
        s[H.TRX:H.TRX + 3] = rng.uniform(-2.0, 2.0, 3)
        s[H.QRX:H.QRX + 3] = np.clip(q + 0.01, LO, HI)
        for mode in (H.MONOLITHIC, H.COSIM):
            xt, xp = np.zeros(H.NX), np.zeros(H.NX)
            H.vector_field(0.0, s, pt, mode, xt)
            P.vector_field(0.0, s, pp, mode, xp)
            np.testing.assert_array_equal(xp[H.GAS:], xt[H.GAS:])
            np.testing.assert_array_equal(xp[H.Q:H.Q + 3], xt[H.Q:H.Q + 3])
            np.testing.assert_allclose(xp[H.V:H.V + 3], xt[H.V:H.V + 3], rtol=1e-8,
                                       atol=1e-8 * np.abs(xt[H.V:H.V + 3]).max())


def test_gamma_gains_exactly_the_kinetic_energy_of_its_cylinder(bench):
    # independent: with the femur still, the barrel turns about its pin A (phi_dot) and the rod
    # turns with it while sliding (x_dot): dM_33 = (I_b + m_b c_b^2) phi'^2
    #   + m_r (x'^2 + (L - c_r)^2 phi'^2) + I_r phi'^2,   L = l2 + x
    p = bench.model.param_defaults
    m = bench.bodies
    leg = crr_leg_bodies()
    c = bench.cylinder_inertias[2]
    link = bench.linkages[2]
    rng = np.random.default_rng(3)
    for q in rng.uniform(LO, HI, size=(10, 3)):
        qf, _, _, G = _closure(p, q, np.zeros(3))
        closed = G.T @ crba(m, m.make_data(), qf) @ G
        dM = closed - crba(leg, leg.make_data(), q)
        phi1, x1 = G[7, 2], G[8, 2]
        r = link.l2 + qf[8] - c.rod_com
        expected = ((c.barrel_transverse + c.barrel_mass * c.barrel_com ** 2) * phi1 ** 2
                    + c.rod_mass * (x1 ** 2 + r ** 2 * phi1 ** 2) + c.rod_transverse * phi1 ** 2)
        assert dM[2, 2] == pytest.approx(expected, rel=1e-10)
        assert np.linalg.eigvalsh(dM).min() > -1e-15        # cylinders only ever add inertia
        assert np.linalg.eigvalsh(dM).max() > 1e-4


# ------------------------------------------------------------------------------- passive energy
def test_passive_swing_of_leg_and_cylinders_conserves_energy():
    # F = 0, no friction, no damping and no joint-limit law (limit_stiffness = 0: no limit force can
    # act), gravity on: E = T + V of the 9-body tree along the projected dynamics is constant.
    bench = LegBench(actuation="prismatic")
    tree = crr_leg_with_cylinders(crr_leg_bodies(limit_stiffness=0.0, limit_damping=0.0),
                                  bench.linkages, default_cylinder_inertias(bench.linkages))
    p = bench.model.param_defaults.copy()
    nfb = int(p[H.NFB])
    assert tree.fbuf.size == nfb and tree.ibuf.size == int(p[H.NIB])
    p[H.MB:H.MB + nfb] = tree.fbuf
    p[H.MB + nfb:H.MB + nfb + tree.ibuf.size] = tree.ibuf
    zero = np.zeros(3)

    def rhs(t, y):
        ddq = np.zeros(3)
        assert P.leg_acceleration(p, y[:3], y[3:], zero, zero, ddq)
        return np.concatenate([y[3:], ddq])

    y0 = np.array([d(10), d(-40), d(50), 2.0, 0.5, -1.0])
    sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-11, atol=1e-12,
                    t_eval=np.linspace(0.0, 1.0, 201))
    assert sol.success
    data = tree.make_data()
    E = []
    for q, v in zip(sol.y[:3].T, sol.y[3:].T, strict=True):
        qf, vf, _, _ = _closure(p, q, v)
        E.append(sum(energy(tree, data, qf, vf)))
    E = np.array(E)
    swing = np.ptp(sol.y[:3], axis=1)
    assert swing.min() > 0.3                                # it really swings (rad)
    kinetic0, _ = energy(tree, data, *_closure(p, y0[:3], y0[3:])[:2])
    assert kinetic0 > 0.01                                  # J
    assert np.abs(E - E[0]).max() < 1e-8                    # J, integrator tolerance


# ------------------------------------------------------------------------------- effect size
GAMMA_STEPS = ((0.0, d(30)), (1.0, d(80)), (2.5, d(40)), (4.0, d(90)), (5.5, d(20)))
T_STEPS = 7.0


def _energy_balance_residual(run, bench, tree, p):
    """max |E(t) − E(0) − W(t)| [J]: E the mechanical energy of ``tree`` (the leg, or the leg and
    cylinders), W the work of the piston forces F ẋ and of the joint-limit law."""
    data = tree.make_data()
    E, limit_power = [], []
    for q, v in zip(run.q, run.v, strict=True):
        if tree.nv == 9:
            qf, vf, _, _ = _closure(p, q, v)
        else:
            qf, vf = q, v
        E.append(sum(energy(tree, data, qf, vf)))
        limit_power.append(passive_forces(tree, data, qf, vf)[:3] @ v)
    arm = np.array([[float(bench.linkages[j].cylinder(q[j])[2]) for j in range(3)] for q in run.q])
    power = (run.force * arm * run.v).sum(axis=1) + np.array(limit_power)
    W = cumulative_trapezoid(power, run.t, initial=0.0)
    E = np.array(E)
    return np.abs(E - E[0] - W).max()


def test_gamma_step_series_with_massive_cylinders_balances_leg_plus_cylinder_energy(bench):
    refs = [JointReference.hold(d(20)), JointReference.hold(d(-30)), JointReference(steps=GAMMA_STEPS)]
    runs = {"torque": LegBench().run(refs, T_STEPS), "prismatic": bench.run(refs, T_STEPS)}
    rows = []
    for k in range(1, len(GAMMA_STEPS)):
        t0 = GAMMA_STEPS[k][0]
        t1 = GAMMA_STEPS[k + 1][0] if k + 1 < len(GAMMA_STEPS) else T_STEPS
        y0, y1 = GAMMA_STEPS[k - 1][1], GAMMA_STEPS[k][1]
        ms = {}
        for name, run in runs.items():
            sel = (run.t >= t0) & (run.t < t1)
            ms[name] = step_metrics(run.t[sel], run.q[sel, 2], y0, y1, t0)
            assert abs(np.degrees(ms[name].final - y1)) < 2.0, (name, k, ms[name])
        rows.append((k, ms["torque"], ms["prismatic"]))
    print("\nGamma steps: rise [s] torque / prismatic, overshoot [deg] torque / prismatic")
    for k, a, b in rows:
        span = np.degrees(abs(GAMMA_STEPS[k][1] - GAMMA_STEPS[k - 1][1]))
        print(f"  step {k}: {a.rise:.3f} / {b.rise:.3f}   {a.overshoot * span:.2f} / "
              f"{b.overshoot * span:.2f}")
    dq = np.degrees(np.abs(runs["prismatic"].q - runs["torque"].q).max(axis=0))
    print(f"  max |q_prismatic - q_torque| [deg] = {dq}")
    # The cylinders change the motion visibly (0.43 kg of cylinders on a 0.67 kg leg). The sign of
    # the rise-time change is not asserted: it is not fixed by physics here. In this pneumatic
    # servo even pure added Gamma inertia (a torque-mode leg with armature 8e-5 / 3e-4 kg m², no
    # gravity) shortens the 30->80 deg rise (0.104 -> 0.100 / 0.092 s, measured while writing
    # this test), and the cylinders' weight adds to gravity's torque on Beta and Gamma.
    assert dq[2] > 0.2
    # Work-energy: the piston work balances the energy of leg + cylinders, not of the leg alone
    # (1 ms records, trapezoidal work: the quadrature error is the tolerance)
    p = bench.params(refs)
    full = _energy_balance_residual(runs["prismatic"], bench, bench.bodies, p)
    leg_only = _energy_balance_residual(runs["prismatic"], bench, crr_leg_bodies(), p)
    torque_mode = _energy_balance_residual(runs["torque"], bench, crr_leg_bodies(), p)
    print(f"  energy-balance residual [J]: prismatic {full:.2e} (leg alone {leg_only:.2e}), "
          f"torque mode {torque_mode:.2e}")
    assert full < 1e-3
    assert torque_mode < 1e-3
    assert leg_only > 10.0 * full


# ------------------------------------------------------------------------------- inputs
def test_bad_actuator_options_are_rejected_with_the_value():
    with pytest.raises(InputError, match="actuation='hydraulic'"):
        LegBench(actuation="hydraulic")
    with pytest.raises(InputError, match="only used with actuation='prismatic'"):
        LegBench(cylinders=massless_cylinders())
    with pytest.raises(InputError, match="expected three CylinderInertia"):
        LegBench(actuation="prismatic", cylinders=(1.0, 2.0, 3.0))
    with pytest.raises(InputError, match="rod_mass=-0.1"):
        CylinderInertia(0.1, 0.04, 1e-5, 1e-4, -0.1, 0.04, 1e-6, 1e-5)
