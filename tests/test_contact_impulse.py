"""Impulse-based baseline of Konyev §2.3.10 (digest §1.8, Fig. 2.7): acceptance test A8."""

import numpy as np
import pytest

from legsim.contact import collide_spheres_1d, newton_impulse_pair
from legsim.contact.impulse import resolve_impulses
from legsim.errors import InputError


def _energy(m, v):
    return 0.5 * np.sum(np.asarray(m)[:, None] * np.atleast_2d(np.asarray(v).T).T ** 2)


def test_propagation_passes_the_whole_momentum_to_the_last_billiard_ball():
    v = 2.0
    out = collide_spheres_1d([1.0, 1.0, 1.0], [v, 0.0, 0.0], scheme="propagation")
    np.testing.assert_allclose(out, [0.0, 0.0, v], atol=1e-14)


def test_simultaneous_update_gives_minus_third_and_two_thirds():
    v = 2.0
    out = collide_spheres_1d([1.0, 1.0, 1.0], [v, 0.0, 0.0], scheme="simultaneous")
    np.testing.assert_allclose(out, [-v / 3, 2 * v / 3, 2 * v / 3], atol=1e-14)


@pytest.mark.parametrize("scheme", ["propagation", "simultaneous"])
def test_both_schemes_conserve_momentum_and_kinetic_energy(scheme):
    m = np.array([1.0, 1.0, 1.0])
    v0 = np.array([1.5, 0.0, 0.0])
    out = collide_spheres_1d(m, v0, scheme=scheme)
    assert np.sum(m * out) == pytest.approx(np.sum(m * v0), abs=1e-14)
    assert np.sum(m * out**2) == pytest.approx(np.sum(m * v0**2), rel=1e-14)


def test_schemes_agree_for_a_single_contact():
    a = collide_spheres_1d([1.0, 3.0], [1.0, -0.5], e=0.6, scheme="propagation")
    b = collide_spheres_1d([1.0, 3.0], [1.0, -0.5], e=0.6, scheme="simultaneous")
    np.testing.assert_allclose(a, b, atol=1e-14)
    # Newton's law: separation speed = e * approach speed
    assert a[1] - a[0] == pytest.approx(0.6 * 1.5)


def test_pair_impulse_acts_along_the_normal_only():
    v1, v2 = newton_impulse_pair(1.0, 2.0, [1.0, 0.5, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0)
    assert v1[1] == 0.5 and v2[1] == 0.0
    assert v2[0] - v1[0] == pytest.approx(1.0)


def test_separating_contacts_receive_no_impulse_in_the_simultaneous_scheme():
    out = resolve_impulses([1.0, 1.0, 1.0], [[1.0], [0.0], [0.5]], [(0, 1, [1.0]), (1, 2, [1.0])], 1.0)
    # the second contact separates: its impulse would pull, so it is dropped (P >= 0)
    assert out[2, 0] >= 0.5 - 1e-14
    assert _energy([1, 1, 1], out) == pytest.approx(_energy([1, 1, 1], [[1.0], [0.0], [0.5]]), rel=1e-12)


def test_bad_impulse_input_raises_input_error():
    with pytest.raises(InputError, match="masses"):
        collide_spheres_1d([1.0, -1.0], [1.0, 0.0])
    with pytest.raises(InputError, match="scheme"):
        collide_spheres_1d([1.0, 1.0], [1.0, 0.0], scheme="magic")
