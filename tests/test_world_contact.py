"""legsim.world with contact: resting depth m g / k, the standing hexapod, the walking hexapod against
a Python+Pinocchio loop of the same model, contact state, blow-ups."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import legsim.multibody as mb
from legsim.contact import (
    ContactLaw,
    Plane,
    anchor_spring,
    coulomb,
    inclined_plane,
    kelvin_voigt,
    linear_penalty,
)
from legsim.contact._collide import collide
from legsim.contact._gjk import new_work
from legsim.contact.detection import make_contacts
from legsim.errors import SimulationError
from legsim.multibody.samples import hexapod, hexapod_stance
from legsim.world import RobotWorld
from legsim.world._terrain import plane_contacts

G = 9.81


def free_solid(shape, mass=1.5, **params):
    b = mb.RobotBuilder(shape)
    b.add_body("body", "world", "free", mass=mass, inertia=(0.01, 0.012, 0.014))
    b.add_geometry("body", shape, **params)
    return b.compile()


@pytest.mark.parametrize("method", ["euler", "rk4"])
def test_a_dropped_sphere_comes_to_rest_at_the_linear_penalty_depth_m_g_over_k(method):
    m, k, r = 1.5, 2e4, 0.05
    model = free_solid("sphere", mass=m, radius=r)
    # k p + c pdot: the damper only removes the bounce; at rest the spring alone carries m g
    w = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(k, 60.0), coulomb(1.0, 1e-2)))
    q = model.neutral()
    q[2] = 0.1
    w.reset(q)
    res = w.simulate(2.0, 1e-4, method=method, record_every=100)
    assert w.q[2] == pytest.approx(r - m * G / k, abs=1e-9)
    assert res.contact_force[-1, 1] == pytest.approx([0.0, 0.0, m * G], abs=1e-7)
    assert res.ncontact[-1] == 1


def test_a_dropped_box_rests_on_four_corners_each_carrying_a_quarter_of_its_weight():
    m, k = 2.0, 4e4
    model = free_solid("box", mass=m, size=(0.3, 0.2, 0.1))
    w = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(k, 80.0), coulomb(1.0, 1e-2)))
    q = model.neutral()
    q[2] = 0.08
    w.reset(q)
    w.simulate(2.0, 2e-4, method="rk4", record_every=1000)
    assert w.q[2] == pytest.approx(0.05 - m * G / (4 * k), abs=1e-9)
    np.testing.assert_allclose(w.contact_state.fn[:4], m * G / 4, rtol=1e-7)


def test_a_sphere_on_a_heightfield_takes_the_generic_collision_path_and_rests_on_its_surface():
    from legsim.contact import HeightField

    m, k, r = 1.0, 2e4, 0.05
    model = free_solid("sphere", mass=m, radius=r)
    ground = HeightField(np.full((5, 5), 0.1), 0.5, 0.5, origin=(-1.0, -1.0))
    law = ContactLaw(kelvin_voigt(k, 40.0), coulomb(1.0, 1e-2))
    w = RobotWorld(model, terrain=(ground,), contact_law=law)
    assert w._w.fast[0] == 0
    q = model.neutral()
    q[2] = 0.2
    w.reset(q)
    res = w.simulate(1.5, 2e-4, method="rk4", record_every=500)
    assert w.q[2] == pytest.approx(0.1 + r - m * G / k, abs=1e-9)
    assert res.contact_force[-1, 1, 2] == pytest.approx(m * G, rel=1e-7)


def test_the_plane_fast_path_finds_exactly_the_contacts_of_the_generic_collision_pass():
    model = hexapod()
    w = RobotWorld(model, terrain=(Plane(), inclined_plane(0.2, (0, 0, 0.02))),
                   contact_law=ContactLaw(linear_penalty(1e4), coulomb(1.0)))
    cm, W = w.collision_model, w._w
    rng = np.random.default_rng(3)
    data = model.make_data()
    found = 0
    for _ in range(20):
        q = hexapod_stance(model)
        q[7:] += rng.normal(0, 0.4, 18)
        q[2] += rng.uniform(-0.06, 0.0)
        quat = np.array([*rng.normal(0, 0.2, 3), 1.0])
        q[3:7] = quat / np.linalg.norm(quat)
        mb.forward_kinematics(model, data, q)
        R, p = data.oR, data.op
        gpos, grot = np.zeros_like(W.gpos), np.zeros_like(W.grot)
        for g in range(len(cm.gtype)):
            b = cm.gbody[g]
            if b < 0:
                continue
            gpos[g] = p[b] + R[b] @ W.lpos[g]
            grot[g] = R[b] @ W.lrot[g]
        c1, c2 = make_contacts(cm, 256), make_contacts(cm, 256)
        n1 = collide(cm, gpos, grot, c1, new_work())
        n2 = plane_contacts(cm.gtype, cm.gsize, cm.gbody, cm.gmat, cm.grbound, cm.pair_law, W.pnorm, W.poff,
                            W.planes, W.bgeoms, gpos, grot, c2, np.zeros((0, 3, 3)), W.lrot)
        assert n1 == n2
        # lazily rotated geoms (as RobotWorld runs it): the same contacts
        c3 = make_contacts(cm, 256)
        n3 = plane_contacts(cm.gtype, cm.gsize, cm.gbody, cm.gmat, cm.grbound, cm.pair_law, W.pnorm, W.poff,
                            W.planes, W.bgeoms, gpos, np.zeros_like(grot), c3, R, W.lrot)
        assert n3 == n1
        for f in ("normal", "geom", "body", "law", "feature"):
            np.testing.assert_array_equal(getattr(c3, f)[:n3], getattr(c1, f)[:n1])
        for f in ("pos", "depth"):  # rotations formed in the kernel (fused multiply-adds): round-off
            np.testing.assert_allclose(getattr(c3, f)[:n3], getattr(c1, f)[:n1], rtol=0, atol=1e-15)
        found += n1
        for f in ("normal", "geom", "body", "law", "feature"):
            np.testing.assert_array_equal(getattr(c1, f)[:n1], getattr(c2, f)[:n2])
        for f in ("pos", "depth"):  # the fast path is compiled with fused multiply-adds: round-off
            np.testing.assert_allclose(getattr(c2, f)[:n2], getattr(c1, f)[:n1], rtol=0, atol=1e-15)
    assert found > 40  # the random poses do touch both planes


def standing_world(**kw):
    model = hexapod()
    law = ContactLaw(kelvin_voigt(2e4, 20.0), anchor_spring(1.0, 5e3, brk=1.0, damping=20.0))
    w = RobotWorld(model, contact_law=law, kp=30.0, kd=0.3, **kw)
    q = hexapod_stance(model)
    w.reset(q)
    w.set_targets(q[7:])
    return model, w, q


@pytest.mark.parametrize("method, dt", [("euler", 1e-3), ("rk4", 1e-3), ("euler", 1e-4)])
def test_the_hexapod_stands_under_pd_control_and_its_feet_carry_its_weight(method, dt):
    model, w, q = standing_world()
    res = w.simulate(1.0, dt, method=method, record_every=int(round(0.01 / dt)))
    weight = model.total_mass() * G
    assert weight == pytest.approx(3.5 * G)
    fz = res.contact_force[:, :, 2].sum(axis=1)
    assert fz[-10:] == pytest.approx(np.full(10, weight), rel=1e-6)
    # standing: the six feet (and only they) touch; the base sinks by the feet's spring deflection
    # plus the PD sag and then stays put
    assert np.all(res.ncontact[-10:] == 6)
    feet = {f"leg{k}_tibia" for k in range(6)}
    touching = {model.body_names[int(b)] for b in w.contacts.body[:6, 1]}
    assert touching == feet
    assert 0.0 < q[2] - w.q[2] < 0.01
    assert np.abs(res.q[-10:, 2] - w.q[2]).max() < 1e-6


def _benchmark_module(name):
    """A module of benchmarks/ (the peers live there, next to the benchmark that times them)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, mod)
    spec.loader.exec_module(mod)
    return mod


def test_the_walking_hexapod_follows_a_python_pinocchio_loop_of_the_same_contact_model():
    """Peer cross-check of the whole contact simulation: ``RobotWorld`` RK4 (all 25 geoms, Kelvin-Voigt
    k = 2e4 N/m, c = 20 N s/m, regularised Coulomb mu = 1, v_eps = 0.05 m/s, joint PD) against an
    independent loop: ``pinocchio.aba`` with numpy forces at the same 50 manifold points through
    point Jacobians, classical RK4 on the configuration manifold (benchmarks/_pinocchio_hexapod.py).
    The tripod gait starts at 0.05 s; 0.25 s at 0.2 ms. Measured: 6.1e-11 m, 3.3e-9 m/s; bounds
    1e-8 m and 1e-6 m/s (round-off grown through contact; the base has moved 4.7 mm, 5e5 times the
    position bound)."""
    bench = _benchmark_module("bench_hexapod_contact")
    peer = _benchmark_module("_pinocchio_hexapod")
    model = hexapod()
    q0 = hexapod_stance(model)
    tab = bench.gait_table(model, q0, 1.0, 0.05)
    law = ContactLaw(kelvin_voigt(bench.K_N, bench.C_N), coulomb(bench.MU, 0.05))
    w = RobotWorld(model, contact_law=law, kp=bench.KP, kd=bench.KD)
    w.set_targets(tab, bench.DT_TABLE)
    w.reset(q0)
    res = w.simulate(0.25, 2e-4, method="rk4", record_every=50)
    run = peer.make_pinocchio_loop(model, q0, tab, bench.DT_TABLE, k_n=bench.K_N, c_n=bench.C_N,
                                   mu=bench.MU, v_eps=0.05, kp=bench.KP, kd=bench.KD)
    q, v = run(0.25, 2e-4)
    assert np.abs(w.q[:3] - q0[:3]).max() > 5e-4        # it walked: the comparison is not of a still robot
    assert res.contact_force[-1][:, 2].sum() > 30.0      # feet carry the weight (3.5 kg)
    assert np.abs(q - w.q).max() < 1e-8
    assert np.abs(v - w.v).max() < 1e-6


def test_a_persisting_contact_keeps_its_onset_time_and_state_across_steps():
    _, w, _ = standing_world()
    w.simulate(0.3, 1e-3, method="rk4", record_every=100)
    ton_early = w.contact_state.ton[:6].copy()
    w.simulate(0.3, 1e-3, method="rk4", record_every=100)
    assert w.t == pytest.approx(0.6)
    np.testing.assert_array_equal(w.contact_state.ton[:6], ton_early)
    assert np.all(ton_early < 0.3)


@pytest.mark.parametrize("friction", ["anchor", "coulomb"])
def test_rk4_keeps_fourth_order_on_a_sphere_creeping_on_the_ground_with_stateful_anchor_friction(friction):
    # the anchor of (2.21) is integrated by the RK4 rule (committed once per step): a sticking
    # contact converges at fourth order like a stateless law
    model = free_solid("sphere", mass=1.0, radius=0.05)
    fr = anchor_spring(5.0, 5e3, brk=1.0, damping=20.0) if friction == "anchor" else coulomb(1.0, 0.05)
    w = RobotWorld(model, contact_law=ContactLaw(kelvin_voigt(2e4, 20.0), fr))
    q = model.neutral()
    q[2] = 0.05 - G / 2e4

    def final(dt):
        w.reset(q, np.array([0.05, 0.0, 0.0, 0.0, 0.0, 0.0]))
        res = w.simulate(0.3, dt, method="rk4", record_every=100000)
        assert np.all(res.ncontact == 1)
        return w.q[:3].copy()

    ref = final(2e-5)
    e1 = np.abs(final(1e-3) - ref).max()
    e2 = np.abs(final(5e-4) - ref).max()
    assert 12.0 < e1 / e2 < 20.0


def test_a_diverging_contact_stops_with_time_body_and_contact_named_and_keeps_records():
    model = free_solid("sphere", mass=1.0, radius=0.05)
    # k dt^2 / m = 1e8 * 1e-6 = 100 >> 4: the explicit step must blow up at the first impact
    w = RobotWorld(model, contact_law=ContactLaw(linear_penalty(1e8), coulomb(1.0)))
    q = model.neutral()
    q[2] = 0.06
    w.reset(q, np.array([0, 0, -1.0, 0, 0, 0]))
    with pytest.raises(SimulationError) as err:
        w.simulate(1.0, 1e-3, method="euler", vmax=50.0, max_depth=0.02)
    e = err.value
    assert e.cause in ("penetration blow-up", "velocity blow-up")
    assert 0.0 < e.t < 0.1
    assert "body" in str(e) and "terrain0 (Plane)" in str(e) and "t=" in str(e)
    assert len(e.result.t) >= 1 and np.all(e.result.t <= e.t + 1e-12)
    assert w.t == pytest.approx(e.t)


def test_a_contact_buffer_that_is_too_small_is_reported_as_an_overflow():
    model = free_solid("box", mass=1.0, size=(0.2, 0.2, 0.2))
    w = RobotWorld(model, contact_law=ContactLaw(linear_penalty(1e4)), capacity=2)
    q = model.neutral()
    q[2] = 0.09
    w.reset(q)
    with pytest.raises(SimulationError, match="capacity 2") as err:
        w.simulate(0.1, 1e-3)
    assert err.value.cause == "contact overflow"
