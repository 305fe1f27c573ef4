"""Normal-force laws of Konyev (2.1), (2.15), (2.20), Hunt–Crossley, Hertz: digest §7.4 A1–A5.

Impacts are integrated independently of the library with scipy (rtol 1e-11) on the 1-D model
m p'' = -F(p, p') (p penetration depth), calling only the law kernel for F
(``legsim.validation.contact.impact``, shared with `legsim report`).
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from legsim.contact import (
    ContactLaw,
    engelson,
    hertz,
    hunt_crossley,
    kelvin_voigt_damping,
    linear_penalty,
    restitution,
    restitution_damping_exact,
    restitution_of_damping,
)
from legsim.contact import laws as L
from legsim.errors import InputError
from legsim.validation import contact as case
from legsim.validation.contact import impact


def test_pure_penalty_contact_is_perfectly_elastic_with_contact_time_pi_over_q():
    # A1: m = 1 kg, k = 1e5 N/m, v0 = 1 m/s
    v_out, tau, pmax = case.penalty_impact()
    assert v_out == pytest.approx(-1.0, abs=1e-7)
    assert tau == pytest.approx(math.pi / math.sqrt(1e5), rel=1e-7)
    assert tau * 1e3 == pytest.approx(9.935, abs=5e-4)
    assert pmax * 1e3 == pytest.approx(3.162, abs=5e-4)


@pytest.mark.parametrize("law", [ContactLaw(hertz(3e6)), ContactLaw(linear_penalty(2e4))])
def test_any_position_only_force_returns_the_impact_speed(law):
    # A2: energy argument (2.6)-(2.12)
    for v0 in (0.2, 3.0):
        v_out, _, _ = impact(law, 0.7, v0)
        assert abs(v_out) == pytest.approx(v0, rel=1e-8)


TABLE = case.ENGELSON_TABLE


@pytest.mark.parametrize("eps", sorted(TABLE))
def test_engelson_damping_with_thesis_d_reproduces_the_digest_restitution_table(eps):
    # A3: (2.15) with d = (1 - eps)/(eps v0), (2.17); independent of m and k
    for e in case.engelson_restitution(eps):  # v0 = 1.3; (m, k) = (1, 1e5) and (0.2, 4e3)
        assert e == pytest.approx(TABLE[eps], abs=1e-3)


def test_phase_plane_relation_gives_the_same_restitution_as_integration():
    for D in (0.111, 1.0, 2.333):
        law = ContactLaw(engelson(1e5, D / 1.0))
        v_out, _, _ = impact(law, 1.0, 1.0)
        assert restitution_of_damping(D) == pytest.approx(-v_out, abs=1e-7)


@pytest.mark.parametrize("exact", [False, True])
def test_restitution_law_gives_the_same_bounce_for_every_impact_speed(exact):
    # A4: (2.20) with per-impact latch; exact=True also hits eps itself
    es = case.restitution_latch(exact)  # eps = 0.5, v0 = 0.1, 1, 5
    assert max(es) - min(es) < 1e-6
    assert es[0] == pytest.approx(0.5 if exact else 0.5936, abs=1e-4 if not exact else 1e-6)


def test_exact_inversion_hits_requested_restitution_for_hertzian_exponent_too():
    law = ContactLaw(restitution(1e6, 0.3, exact=True, exponent=1.5))
    v_out, _, _ = impact(law, 2.0, 0.8)
    assert -v_out / 0.8 == pytest.approx(0.3, abs=1e-6)


def test_hunt_crossley_restitution_depends_on_impact_speed():
    law = ContactLaw(hunt_crossley(1e6, 0.5, 1.5))
    e1 = -impact(law, 1.0, 0.1)[0] / 0.1
    e2 = -impact(law, 1.0, 2.0)[0] / 2.0
    assert e1 > e2 + 0.1
    assert e2 == pytest.approx(restitution_of_damping(0.5 * 2.0), abs=1e-6)


def test_kelvin_voigt_damping_formula_matches_a_tension_allowed_integration():
    eps, k, m = 0.6, 1e4, 0.5
    c = kelvin_voigt_damping(eps, k, m)
    sol = solve_ivp(
        lambda t, y: [y[1], (-k * y[0] - c * y[1]) / m],
        (0, 1),
        [0.0, 1.0],
        rtol=1e-11,
        atol=1e-14,
        events=lambda t, y: y[0] if t > 1e-9 else 1.0,
    )
    assert -sol.y_events[0][0][1] == pytest.approx(eps, abs=1e-6)


def test_exact_inversion_holds_for_small_restitutions_where_d_e_nears_one():
    """D e = 1 - exp(-(D - ln(1 + D) + D e)) rounds to 1 in a double below e ~ 0.03: the relation is
    solved in u = -ln(1 - D e) (brentq found no sign change in D for e = 0.0156 before session 38).
    An impact integrated with the law hits the small restitution too."""
    for e in (0.2, 0.03, 0.0156, 1e-3, 1e-6):
        D = restitution_damping_exact(e)
        assert restitution_of_damping(D) == pytest.approx(e, rel=1e-9)
        assert D == pytest.approx(1.0 / e, rel=0.15 if e > 0.01 else 0.01)  # D -> 1/e as e -> 0
    law = ContactLaw(restitution(1e6, 0.02, exact=True))
    v_out, _, _ = impact(law, 1.0, 1.0)
    assert -v_out == pytest.approx(0.02, abs=1e-6)


def test_exact_damping_is_larger_than_the_thesis_approximation():
    for eps in (0.3, 0.5, 0.9):
        assert restitution_damping_exact(eps) > (1 - eps) / eps
    assert restitution_damping_exact(1.0) == 0.0


def test_small_impact_velocity_is_clamped_so_resting_force_stays_finite():
    law = ContactLaw(restitution(1e5, 0.5, v_min=1e-3))
    f = L.normal_force(law, 1e-4, 1e-3, v_imp=0.0)
    assert np.isfinite(f)
    assert f == pytest.approx(1e5 * 1e-4 * (1 + 1.0 / 1e-3 * 1e-3))


def test_laws_never_pull_and_vanish_without_penetration():
    for law in (ContactLaw(engelson(1e5, 10.0)), ContactLaw(restitution(1e5, 0.2)), ContactLaw(hertz(1e5))):
        assert L.normal_force(law, 0.0, 1.0, 1.0) == 0.0
        assert L.normal_force(law, -1e-3, 1.0, 1.0) == 0.0
        assert L.normal_force(law, 1e-3, -50.0, 1.0) >= 0.0


def test_bad_law_parameters_raise_input_errors_naming_the_value():
    with pytest.raises(InputError, match="eps"):
        restitution(1e5, 1.5)
    with pytest.raises(InputError, match="'k'"):
        linear_penalty(-3.0)


def test_resting_sphere_settles_at_mg_over_k_with_no_drift_over_ten_seconds():
    # A5: m = 1 kg, k = 1e5 N/m, g = 9.81, Ts = 0.1 ms
    r = 0.05
    res = case.resting_sphere()  # k = 1e5 (2.20), r = 0.05 m dropped from 1 cm
    depth = r - res.pos[:, 0, 2]
    assert depth[-1] * 1e6 == pytest.approx(98.1, abs=0.01)
    assert res.contact_force[-1, 0, 2] == pytest.approx(9.81, rel=1e-6)
    assert abs(res.vel[-1, 0, 2]) < 1e-9
    # no drift between 5 s and 10 s
    assert abs(depth[-1] - depth[len(depth) // 2]) < 1e-12


def test_normal_laws_at_their_bounds_give_finite_forces_at_the_engines_limits():
    """Before session 40 the normal-law parameters were only checked to be finite: a restitution law's
    v_min of 1e-310 made its force inf (D / v_min overflowed), an exponent of 1e3 overflowed p^n for
    p > 2 m, and exact=array(...) was numpy's ValueError (an ambiguous truth value). Each parameter now
    lies in [1/MAX_PARAMETER, MAX_PARAMETER] (a damping may be 0), an exponent up to MAX_EXPONENT, exact
    is True or False; at every corner the force stays finite (below 1e60 N) for penetrations up to
    MAX_LENGTH and rates up to MAX_SPEED."""
    from legsim.contact._laws import normal_force

    lo, hi = 1.0 / L.MAX_PARAMETER, L.MAX_PARAMETER
    for make, says in ((lambda: restitution(1e5, 0.5, v_min=1e-310), r"restitution: 'v_min' = 1e-310, "),
                       (lambda: hunt_crossley(1e5, 0.1, 1e3),
                        r"hunt_crossley: 'exponent' = 1000.0, expected a number in \[1e-12, 3\]"),
                       (lambda: restitution(1e5, 0.5, exact=np.zeros(2)),
                        r"restitution: 'exact' = array\(\[0., 0.\]\), expected True or False")):
        with pytest.raises(InputError, match="^" + says):
            make()
    eps = (L.MIN_RESTITUTION, 1.0)
    laws = [restitution(k, e, v_min=v, exponent=n, exact=x) for k in (lo, hi) for e in eps for v in (lo, hi)
            for n in (lo, L.MAX_EXPONENT) for x in (False, True)]
    laws += [hunt_crossley(k, a, n) for k in (lo, hi) for a in (0.0, hi) for n in (lo, L.MAX_EXPONENT)]
    laws += [engelson(k, d) for k in (lo, hi) for d in (0.0, hi)] + [hertz(hi), linear_penalty(hi)]
    for law in laws:
        prm = ContactLaw(law).params
        for p in (5e-324, 1.0, 1e6):
            for pdot in (-1e6, 0.0, 1e6):
                for v_imp in (0.0, 1e6):
                    f = normal_force(int(law.law), prm, p, pdot, v_imp)
                    assert 0.0 <= f < 1e60, (law, p, pdot, v_imp)


def test_an_impact_window_below_a_nanosecond_is_refused_naming_t_max():
    """Before session 42 ``impact(t_max=1e-300)`` reached scipy, whose first step overflowed (a
    RuntimeWarning) before the run was refused for not leaving the contact."""
    import warnings

    law = ContactLaw(L.kelvin_voigt(1e4, 10.0), L.coulomb(1.0, 0.01))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for t_max in (1e-300, 5e-324, 1e-10):
            with pytest.raises(InputError, match=r"'t_max' = .*expected a finite number in \[1e-09,"):
                impact(law, 1.0, 1.0, t_max=t_max)
    v_out, tau, depth = impact(law, 1.0, 1.0)
    assert -1.0 < v_out < 0.0 and 0.0 < tau < 0.1 and depth > 0.0
