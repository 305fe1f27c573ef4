"""RigidWorld: compound bodies, and failure reporting (time, body, contact; records kept)."""

import numpy as np
import pytest

from legsim.contact import (
    ContactLaw,
    LawTable,
    Plane,
    RigidWorld,
    Scene,
    Sphere,
    accumulate_wrenches,
    collide,
    contact_forces,
    free_body_velocities,
    linear_penalty,
    make_contacts,
    make_state,
    restitution,
)
from legsim.errors import InputError, SimulationError


def test_a_diverging_contact_stops_with_time_body_and_contact_and_keeps_records():
    # k dt^2 / m = 1e9 * 1e-6 = 1000 >> 4: explicit Euler must diverge on the first bounce
    w = RigidWorld(LawTable(1, ContactLaw(linear_penalty(1e9))))
    w.add_solid(Sphere(0.05), mass=1.0, pos=(0, 0, 0.06), vel=(0, 0, -1.0))
    w.scene.add(Plane())
    with pytest.raises(SimulationError) as err:
        w.simulate(1.0, 1e-3, vmax=100.0)
    e = err.value
    assert e.cause == "velocity blow-up"
    assert 0.0 < e.t < 1.0
    assert "body 0" in str(e) and "between geoms (1, 0)" in str(e)  # plane (geom 1) and sphere
    assert len(e.result.t) > 0 and np.all(e.result.t < e.t + 1e-12)


def test_world_input_errors_name_the_value():
    w = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.5))))
    with pytest.raises(InputError, match="mass"):
        w.add_body(-1.0, np.eye(3))
    with pytest.raises(InputError, match="inertia"):
        w.add_body(1.0, -np.eye(3))
    with pytest.raises(InputError, match="no bodies"):
        w.simulate(1.0, 1e-4)
    with pytest.raises(InputError, match="LawTable"):
        RigidWorld({"k": 1})


def test_response_wrappers_refuse_arrays_too_short_for_the_contacts_and_their_bodies():
    """Before session 40 accumulate_wrenches and free_body_velocities handed ``com`` and the buffers to
    compiled kernels that index them by the contacts' body numbers without a bounds check: a ``com`` of one
    row for contacts on bodies 0 and 1 wrote body 1's wrench past the end of its array (the process then
    crashed with a segmentation fault) and free_body_velocities returned body 1's velocity read from beyond
    ``com`` (garbage such as 6.9e-310); a ``force`` buffer of one row took the second contact's force out
    of bounds; a string time was a ValueError."""
    scene = Scene()
    scene.add(Plane())
    scene.add(Sphere(0.05), body=0)
    scene.add(Sphere(0.05), body=1)
    model = scene.compile()
    contacts = make_contacts(model, 8)
    poses = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.049], [0.3, 0.0, 0.048]])
    assert collide(model, poses, np.stack([np.eye(3)] * 3), contacts) == 2  # on bodies 0 and 1
    com, force = poses[1:], np.array([[0.0, 0.0, 10.0], [1.0, 0.0, 20.0]])
    with pytest.raises(InputError, match=r"accumulate_wrenches: 'com' = .*expected \(2 or more, 3\)"):
        accumulate_wrenches(contacts, force, com[:1])
    with pytest.raises(InputError, match=r"free_body_velocities: 'com' = .*expected \(2 or more, 3\)"):
        free_body_velocities(contacts, com[:1], np.zeros((2, 3)), np.zeros((2, 3)))
    laws, state = LawTable(1, ContactLaw(restitution(1e5, 0.5))), make_state(8)
    with pytest.raises(InputError, match=r"contact_forces: 'force' = .*expected None or a writable float64"):
        contact_forces(contacts, laws, state, np.zeros((2, 3)), 0.0, 1e-3, force=np.zeros((1, 3)))
    with pytest.raises(InputError, match="contact_forces: 't' = 'abc', expected a number"):
        contact_forces(contacts, laws, state, np.zeros((2, 3)), "abc", 1e-3)
    wrench = accumulate_wrenches(contacts, force, com)  # the plane pushes at the spheres' bottoms
    lever = contacts.pos[1] - com[1]
    np.testing.assert_allclose(wrench[1], np.r_[force[1], np.cross(lever, force[1])], rtol=1e-15)


def test_compound_dumbbell_rests_level_on_two_sphere_contacts_carrying_its_weight():
    # two spheres on one body (a compound of primitives): symmetric, so each carries m g / 2
    w = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.5, v_min=0.05))))
    r, half = 0.05, 0.2
    m = 2.0
    w.add_body(m, np.diag([0.01, 2 * 0.5 * m * half**2, 2 * 0.5 * m * half**2]), pos=(0, 0, r + 1e-3))
    w.scene.add(Sphere(r), body=0, pos=(-half, 0, 0))
    w.scene.add(Sphere(r), body=0, pos=(half, 0, 0))
    w.scene.add(Plane())
    res = w.simulate(1.0, 1e-4, record_every=100)
    assert res.ncontact[-1] == 2
    assert res.contact_force[-1, 0, 2] == pytest.approx(m * 9.81, rel=1e-6)
    np.testing.assert_allclose(w.contact_state.fn[:2], m * 9.81 / 2, rtol=1e-6)
    np.testing.assert_allclose(res.omega[-1, 0], 0.0, atol=1e-9)
