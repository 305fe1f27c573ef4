"""Lemke's method (legsim.contact.lcp.solve_lcp) against closed forms and brute-force enumeration, and
the LCP time-stepping baseline on a falling, resting and sliding sphere (issue 21 §3; digest §1.8, §2)."""

import itertools
import math

import numpy as np
import pytest

from legsim.contact import ContactLaw, LawTable, Plane, RigidWorld, Sphere, linear_penalty
from legsim.contact.lcp import MAX_FRICTION, LemkeError, simulate_lcp, solve_lcp
from legsim.errors import InputError

RNG = np.random.default_rng(3)


def _brute_force(M, q):
    """Every complementary index set S (z_S > 0 free, w_S = 0): the solutions found."""
    n = len(q)
    sols = []
    for k in range(n + 1):
        for S in itertools.combinations(range(n), k):
            S = list(S)
            z = np.zeros(n)
            if S:
                try:
                    z[S] = np.linalg.solve(M[np.ix_(S, S)], -q[S])
                except np.linalg.LinAlgError:
                    continue
            w = M @ z + q
            if np.all(z >= -1e-10) and np.all(w >= -1e-10):
                sols.append(z)
    return sols


def test_lemke_solves_small_lcps_with_known_solutions():
    q = np.array([-1.0, 2.0, -3.0, 0.0])
    np.testing.assert_allclose(solve_lcp(np.eye(4), q), [1.0, 0.0, 3.0, 0.0], atol=1e-15)  # z = max(-q, 0)
    np.testing.assert_allclose(solve_lcp(np.eye(2), [1.0, 2.0]), [0.0, 0.0])  # q >= 0: z = 0
    # both active: 2 z1 + z2 = 5, z1 + 2 z2 = 6
    np.testing.assert_allclose(solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]), [4 / 3, 7 / 3], atol=1e-14)
    # one active: z2 = 0 because w2 = z1 + 3 > 0
    np.testing.assert_allclose(solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-4.0, 3.0]), [2.0, 0.0], atol=1e-14)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_lemke_agrees_with_brute_force_enumeration_on_random_p_matrices(n):
    for _ in range(60):
        A = RNG.normal(size=(n, n))
        S = RNG.normal(size=(n, n))
        M = A @ A.T + 0.1 * np.eye(n) + (S - S.T)  # positive definite (not symmetric): a P-matrix
        q = RNG.normal(size=n)
        sols = _brute_force(M, q)
        assert len(sols) == 1  # a P-matrix LCP has exactly one solution
        np.testing.assert_allclose(solve_lcp(M, q), sols[0], atol=1e-10)


def test_lemke_solves_degenerate_psd_contact_lcps_complementarily():
    # four coplanar contacts of a box on a plane: J M^-1 J^T is singular, the impulses not unique
    for _ in range(20):
        J = np.c_[np.ones(4), RNG.normal(size=(4, 2))]
        M = J @ J.T
        q = RNG.normal(size=4) - 1.0
        z = solve_lcp(M, q)
        w = M @ z + q
        assert np.all(z >= 0) and np.all(w >= -1e-10) and abs(z @ w) < 1e-10


def test_lemke_reports_an_infeasible_lcp_and_bad_input():
    with pytest.raises(LemkeError, match="ray termination"):
        solve_lcp([[-1.0]], [-1.0])  # w = -z - 1 >= 0 has no z >= 0
    with pytest.raises(InputError, match="shape"):
        solve_lcp(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="NaN"):
        solve_lcp(np.eye(1), [math.nan])


def _sphere_world(z0, vel=(0.0, 0.0, 0.0)):
    w = RigidWorld(LawTable(1, ContactLaw(linear_penalty(1e5))))  # the law table is unused by the LCP
    w.add_solid(Sphere(0.05), mass=1.0, pos=(0.0, 0.0, z0), vel=vel)
    w.scene.add(Plane())
    return w


def test_lcp_refuses_a_friction_coefficient_lemke_cannot_solve_and_a_subnormal_step():
    """Before session 40 mu = 1e12 or more stopped the run on a LemkeError (ray termination: the pivot
    tolerance is relative to the largest entry), and dt = 5e-324 s was an OverflowError (t_final / dt is
    inf) instead of an InputError naming the argument."""
    with pytest.raises(InputError, match=r"'mu' = 1000000000000.0, expected a finite number in \[0, 1e\+06"):
        simulate_lcp(_sphere_world(0.1), 0.2, 1e-3, mu=1e12)
    with pytest.raises(InputError, match="dt = 5e-324 s is inf steps"):
        simulate_lcp(_sphere_world(0.1), 0.2, 5e-324, mu=0.5)
    res = simulate_lcp(_sphere_world(0.1, vel=(1.0, 0.0, -1.0)), 0.2, 1e-3, mu=MAX_FRICTION)
    assert np.all(np.isfinite(res.vel)) and res.ncontact[-1] == 1


def test_lcp_bounce_leaves_with_exactly_e_times_the_approach_speed():
    w = _sphere_world(0.3)
    res = simulate_lcp(w, 0.5, 1e-3, mu=0.5, restitution=0.5)
    vz = res.vel[:, 0, 2]
    k = int(np.argmax(res.ncontact > 0))  # the impact step: one step, one contact
    assert vz[k + 1] == pytest.approx(-0.5 * vz[k], rel=1e-12)
    assert np.all(res.vel[:, 0, :2] == 0.0) and np.all(res.omega == 0.0)  # a central impact


def test_lcp_resting_sphere_carries_exactly_its_weight_at_a_constant_depth():
    w = _sphere_world(0.05 - 1e-5)  # starts at the slop depth
    res = simulate_lcp(w, 1.0, 1e-3, mu=0.5, slop=1e-5)
    np.testing.assert_allclose(res.contact_force[:, 0, 2], 9.81, rtol=1e-12)
    np.testing.assert_allclose(res.pos[:, 0, 2], 0.05 - 1e-5, atol=1e-15)


def test_lcp_sliding_sphere_decelerates_at_mu_g_then_rolls_at_five_sevenths():
    v0, mu, dt = 2.0, 0.4, 1e-3
    w = _sphere_world(0.05 - 1e-5, vel=(v0, 0.0, 0.0))
    res = simulate_lcp(w, 0.5, dt, mu=mu, slop=1e-5)
    vx = res.vel[:, 0, 0]
    t_roll = 2 * v0 / (7 * mu * 9.81)  # slip ends when v = r omega: v = 5/7 v0
    slip = res.t < t_roll - 2 * dt
    np.testing.assert_allclose(np.diff(vx[slip]), -mu * 9.81 * dt, rtol=1e-9)
    # rolling: angular momentum about the contact point is kept, m v0 r' = m v r' + I v / r', with the
    # lever r' = 0.05 - slop / 2 from the centre to the contact point (midway through the 1e-5 m depth)
    # and I = 2/5 m r^2: v = v0 r'^2 / (r'^2 + 0.4 r^2), 5/7 v0 up to the slop
    lever = 0.05 - 0.5e-5
    assert vx[-1] == pytest.approx(v0 * lever**2 / (lever**2 + 0.4 * 0.05**2), rel=1e-9)
    assert vx[-1] == pytest.approx(5 / 7 * v0, rel=1e-4)
    assert res.omega[-1, 0, 1] * lever == pytest.approx(vx[-1], rel=1e-9)
