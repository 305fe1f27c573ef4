"""RigidWorld: compound bodies, and failure reporting (time, body, contact; records kept)."""

import numpy as np
import pytest

from legsim.contact import ContactLaw, LawTable, Plane, RigidWorld, Sphere, linear_penalty, restitution
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
