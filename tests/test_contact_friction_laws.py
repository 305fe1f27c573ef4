"""Friction laws of Konyev (2.18), (2.19), (2.21) and regularised Coulomb: digest §7.4 A6, A7.

Also the rolling sphere (a = 5/7 g sin(theta)) and the anchor-spring block that holds on an
incline below tan(theta) = mu with bounded creep (google-deepmind/mujoco#3328 asks for this).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legsim.contact import (
    Box,
    ContactLaw,
    LawTable,
    RigidWorld,
    Sphere,
    anchor_spring,
    coulomb,
    inclined_plane,
    linear_penalty,
    restitution,
    stribeck,
    threshold,
)
from legsim.contact import laws as L
from legsim.contact._laws import anchor_update
from legsim.errors import InputError

G = 9.81


def test_threshold_curve_is_continuous_at_the_threshold_velocity():
    law = ContactLaw(
        linear_penalty(1.0), threshold(brk=2.0, damping=30.0, v_th=0.01, v_min=0.005, decay=-1.0)
    )
    below = L.threshold_curve(law, 0.01 * (1 - 1e-12))
    above = L.threshold_curve(law, 0.01)
    assert below == pytest.approx(2.0 * 30.0 * 0.01, rel=1e-9)
    assert above == pytest.approx(2.0 * 30.0 * 0.01, rel=1e-9)


def test_threshold_curve_decays_monotonically_to_the_viscous_line_and_is_odd():
    law = ContactLaw(
        linear_penalty(1.0), threshold(brk=2.0, damping=30.0, v_th=0.01, v_min=0.005, decay=-1.0)
    )
    v = np.linspace(0.01, 0.08, 400)
    excess = np.array([L.threshold_curve(law, x) for x in v]) - 30.0 * v
    assert np.all(np.diff(excess) < 0)
    assert excess[-1] < 1e-6 * excess[0]
    for x in (0.003, 0.02, 0.5):
        assert L.threshold_curve(law, -x) == -L.threshold_curve(law, x)


def test_stribeck_law_starts_at_breakaway_and_tends_to_coulomb_plus_viscous():
    law = ContactLaw(linear_penalty(1.0), stribeck(mu=0.5, brk=1.6, decay=-200.0, viscous=2.0, v_eps=0.0))
    fn = 10.0
    f0 = np.linalg.norm(L.friction_force(law, fn, [1e-9, 0, 0]))
    f1 = np.linalg.norm(L.friction_force(law, fn, [1.0, 0, 0]))
    assert f0 == pytest.approx(1.6 * 0.5 * fn, rel=1e-6)
    assert f1 == pytest.approx(0.5 * fn + 2.0 * 1.0, rel=1e-6)
    f = L.friction_force(law, fn, [0.0, -0.3, 0.0])
    assert f[1] > 0 and f[0] == 0.0


def test_regularised_coulomb_reaches_mu_fn_when_sliding_fast():
    law = ContactLaw(linear_penalty(1.0), coulomb(0.7, v_eps=1e-4))
    f = L.friction_force(law, 20.0, [0.0, 1.0, 0.0])
    assert np.linalg.norm(f) == pytest.approx(14.0, rel=1e-7)
    assert f[1] < 0


LAWS = [
    coulomb(0.6, 1e-3),
    threshold(brk=1.5, damping=500.0, v_th=0.01, v_min=0.01, decay=-1.0, mu=0.6),
    anchor_spring(0.6, 2e4, n=2.0, brk=1.5, damping=500.0, v_th=0.01, v_min=0.01),
]


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, len(LAWS) - 1),
    st.one_of(st.just(0.0), st.floats(1e-12, 1e3)),  # normal forces [N] (no subnormals)
    st.lists(st.floats(-10, 10), min_size=3, max_size=3),
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
)
def test_friction_never_exceeds_mu_times_normal_force(i, fn, vt, anchor):
    # A7: |F_t| <= mu F_n always
    law = ContactLaw(linear_penalty(1.0), LAWS[i])
    f = L.friction_force(law, fn, vt, anchor)
    if fn == 0.0:
        assert np.all(f == 0.0)
    else:
        assert np.linalg.norm(f / fn) <= 0.6 * (1 + 1e-12)


def test_anchor_slides_when_the_force_saturates():
    law = ContactLaw(linear_penalty(1.0), anchor_spring(0.5, 1e4, n=1.0))
    prm = law.params
    anchor = np.zeros(3)
    force = np.zeros(3)
    n = np.array([0.0, 0.0, 1.0])
    for _ in range(200):  # keep sliding at 0.1 m/s for 20 ms
        sat = anchor_update(prm, 10.0, np.array([0.1, 0.0, 0.0]), n, 1e-4, anchor, force)
    assert sat
    assert force[0] == pytest.approx(-5.0)
    # the spring alone carries the saturated force: anchor displacement mu F_n / K_I, not 2 mm
    assert anchor[0] == pytest.approx(5.0 / 1e4)


def _block_on_incline(theta, fric, t_final=1.5, every=100):
    w = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.3, v_min=0.05), fric)))
    h = 0.05
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    c, s = math.cos(-theta), math.sin(-theta)
    R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    rest = G * math.cos(theta) / (4 * 1e5)  # static depth of each of the 4 corners
    w.add_solid(Box((0.1, 0.1, h)), mass=1.0, pos=n * (h - rest), rot=R)
    w.scene.add(inclined_plane(theta))
    res = w.simulate(t_final, 1e-4, record_every=every)
    downhill = -np.array([math.cos(theta), 0.0, math.sin(theta)])
    return res, res.pos[:, 0, :] @ downhill, res.vel[:, 0, :] @ downhill


def test_anchor_spring_holds_a_block_below_tan_theta_equals_mu_with_bounded_creep():
    mu = 0.5
    theta = math.atan(0.8 * mu)
    fric = anchor_spring(mu, 2e4, n=1.0, brk=1.5, damping=200.0, v_th=1e-3, v_min=1e-3)
    res, s, v = _block_on_incline(theta, fric, t_final=3.0)
    creep = s - s[0]
    assert abs(creep[-1]) < 2e-4  # a fraction of a millimetre: the anchor springs' static stretch
    assert abs(creep[-1] - creep[len(creep) // 2]) < 1e-7  # no creep in the second half
    assert abs(v[-1]) < 1e-6


def test_block_slides_above_tan_theta_equals_mu_with_coulomb_acceleration():
    mu = 0.5
    theta = math.atan(1.2 * mu)
    fric = anchor_spring(mu, 2e4, n=1.0, brk=1.5, damping=200.0, v_th=1e-3, v_min=1e-3)
    res, s, v = _block_on_incline(theta, fric, t_final=1.0)
    a = np.polyfit(res.t[5:], v[5:], 1)[0]
    assert a == pytest.approx(G * (math.sin(theta) - mu * math.cos(theta)), rel=0.02)


def test_regularised_coulomb_creeps_on_an_incline_below_tan_theta_equals_mu():
    # the failure the anchor model removes: a regularised law needs slip to make force
    mu = 0.5
    theta = math.atan(0.8 * mu)
    res, s, v = _block_on_incline(theta, coulomb(mu, v_eps=1e-3), t_final=1.5)
    assert v[-1] > 1e-4  # still creeping after 1.5 s


def test_sphere_rolls_without_slipping_down_an_incline_at_five_sevenths_g_sin_theta():
    theta = 0.25
    r = 0.05
    w = RigidWorld(
        LawTable(1, ContactLaw(restitution(1e5, 0.3), anchor_spring(1.0, 3e4, n=1.0, brk=1.5, damping=100.0)))
    )
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    w.add_solid(Sphere(r), mass=1.0, pos=n * (r - 9.81 * math.cos(theta) / 1e5))
    w.scene.add(inclined_plane(theta))
    res = w.simulate(0.6, 1e-4, record_every=50)
    downhill = -np.array([math.cos(theta), 0.0, math.sin(theta)])
    v = res.vel[:, 0, :] @ downhill
    k = res.t > 0.05
    a = np.polyfit(res.t[k], v[k], 1)[0]
    assert a == pytest.approx(5.0 / 7.0 * G * math.sin(theta), rel=5e-3)
    # rolling: contact point at rest, omega r = v
    wy = res.omega[-1, 0, 1]
    assert abs(wy) * r == pytest.approx(v[-1], rel=1e-2)


def test_bad_friction_parameters_raise_input_errors():
    with pytest.raises(InputError, match="decay"):
        stribeck(0.5, decay=3.0)
    with pytest.raises(InputError, match="k_i"):
        anchor_spring(0.5, 0.0)


def test_friction_laws_at_their_bounds_give_finite_forces_at_the_engines_limits():
    """Before session 40 the friction parameters were only checked to be finite: an anchor stiffness
    k_i of 1e300 made the anchor-spring force NaN (its raw force overflowed, then 0 * inf), and a
    breakaway ratio and damping of 1e-300 divided by zero in the anchor's rate (a ZeroDivisionError in
    the compiled law). Each parameter now lies in [1/MAX_PARAMETER, MAX_PARAMETER] (a decay's magnitude
    too; a friction ratio, viscous coefficient or stribeck's v_eps may be 0), and at every corner of
    that box the force stays finite for slip speeds and anchor displacements up to the engine's 1e6."""
    from legsim.contact._laws import anchor_rate, friction_force

    lo, hi = 1.0 / L.MAX_PARAMETER, L.MAX_PARAMETER
    for make, says in ((lambda: anchor_spring(0.5, 1e300), r"anchor_spring: 'k_i' = 1e\+300, expected a"),
                       (lambda: anchor_spring(0.5, 1e4, brk=1e-300, damping=1e-300),
                        r"anchor_spring: 'brk' = 1e-300, expected a number in \[1e-12, 1e\+12\]"),
                       (lambda: stribeck(0.5, decay=-math.inf),
                        r"stribeck: 'decay' = -inf, expected a negative number in \[-1e\+12, -1e-12\]"),
                       (lambda: stribeck(0.5, v_eps=5e-324), r"stribeck: 'v_eps' = 5e-324, expected 0 or a")):
        with pytest.raises(InputError, match="^" + says):
            make()
    laws = [anchor_spring(mu, k_i, n=n, brk=brk, damping=c, v_th=v_th, v_min=v_min, decay=-d)
            for mu in (0.0, hi) for k_i in (lo, hi) for n in (lo, hi) for brk in (lo, hi) for c in (lo, hi)
            for v_th in (lo, hi) for v_min in (lo, hi) for d in (lo, hi)]
    laws += [stribeck(mu, brk, -d, visc, v_eps) for mu in (lo, hi) for brk in (lo, hi) for d in (lo, hi)
             for visc in (0.0, hi) for v_eps in (0.0, lo, hi)]
    laws += [coulomb(mu, v_eps) for mu in (lo, hi) for v_eps in (lo, hi)]
    laws += [threshold(brk, c, v_th, v_min, -d, mu) for brk in (lo, hi) for c in (lo, hi)
             for v_th in (lo, hi) for v_min in (lo, hi) for d in (lo, hi) for mu in (lo, math.inf)]
    out = np.zeros(3)
    for fr in laws:
        prm = ContactLaw(linear_penalty(1.0), fr).params
        for fn in (1e-300, 1.0, 1e57):  # 1e57 N: the largest normal force of a law at its bounds
            for v in (1e-300, 1e-3, 1e6):
                for s in (0.0, 1e6):
                    vt, anchor = np.array([v, 0.0, 0.0]), np.array([0.0, s, 0.0])
                    friction_force(int(fr.law), prm, fn, vt, anchor, out)
                    assert np.all(np.isfinite(out)), (fr, fn, v, s)
                    if fr.law == L.FrictionLaw.ANCHOR:
                        anchor_rate(prm, fn, vt, anchor, out)
                        assert np.all(np.isfinite(out)), (fr, fn, v, s)
