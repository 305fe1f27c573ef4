"""Assembled robots on a terrain z = h(x, y) (issue 14 §1: contacts against plane, slope or heightfield):
a contact sphere meets the terrain's tangent plane under its centre."""

import math

import numpy as np
import pytest

from legsim.assembly import Contacts, Robot
from legsim.contact import (
    ContactLaw,
    HeightField,
    HeightFunction,
    Plane,
    coulomb,
    hunt_crossley,
    kelvin_voigt,
    linear_penalty,
)
from legsim.errors import InputError
from legsim.hybrid import Options
from legsim.multibody import RobotBuilder

M, R, G = 0.5, 0.05, 9.81


def _ball():
    b = RobotBuilder("ball")
    b.add_body("ball", "world", "free", mass=M, inertia=(1e-3, 1e-3, 1e-3))
    b.add_geometry("ball", "sphere", radius=R)
    return b.compile()


def _slope_grid(a, b, c):
    """z = a x + b y + c sampled on a grid (bilinear interpolation is exact on a plane)."""
    x, y = np.linspace(-1.0, 1.0, 9), np.linspace(-0.5, 0.5, 5)
    return HeightField(a * x[:, None] + b * y[None, :] + c, dx=0.25, dy=0.25, origin=(-1.0, -0.5))


def _plane(a, b, c):
    n = np.array([-a, -b, 1.0]) / math.sqrt(1 + a * a + b * b)
    return Plane(tuple(n), float(n[2] * c))


@pytest.mark.parametrize("path", ["smooth", "event"])
def test_a_heightfield_that_is_a_plane_has_the_planes_vector_field(path):
    a, b, c = 0.2, -0.1, 0.03
    law = ContactLaw(hunt_crossley(2e4, 0.5), coulomb(0.6, 0.01))
    on = {"plane": Robot(_ball(), contacts=Contacts(law, ground=_plane(a, b, c), path=path)),
          "grid": Robot(_ball(), contacts=Contacts(law, ground=_slope_grid(a, b, c), path=path))}
    rng = np.random.default_rng(3)
    for _ in range(10):
        x, y = rng.uniform(-0.8, 0.8), rng.uniform(-0.4, 0.4)
        depth = rng.uniform(1e-4, 3e-3)                     # the sphere's penetration along the normal
        n = np.asarray(_plane(a, b, c).normal)
        centre = np.array([x, y, a * x + b * y + c]) + (R - depth) * n
        quat = rng.normal(size=4)
        q = np.r_[centre, quat / np.linalg.norm(quat)]
        v = rng.normal(0.0, 0.3, 6)
        fields = []
        for robot in on.values():
            xs = robot.initial_state(q, v)
            xs, mode = robot.model.init_partition(xs, robot.model.param_defaults.copy())
            f = np.empty_like(xs)
            robot.model.vector_field(0.0, xs, robot.model.param_defaults.copy(), mode, f)
            fields.append(f[:13])
        assert np.linalg.norm(fields[0][7:]) > 1.0          # it is pressed: the contact force acts
        np.testing.assert_allclose(fields[1], fields[0], rtol=1e-12, atol=1e-12 * np.abs(fields[0]).max())


def test_a_frictionless_ball_slides_down_a_heightfield_slope_at_g_sin_theta():
    theta = 0.15
    grid = _slope_grid(math.tan(theta), 0.0, 0.0)
    law = ContactLaw(kelvin_voigt(2e4, 40.0))
    robot = Robot(_ball(), contacts=Contacts(law, ground=grid, path="smooth"))
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    sink = M * G * math.cos(theta) / 2e4                     # static compression under the normal load
    q0 = np.r_[(R - sink) * n, 0.0, 0.0, 0.0, 1.0]
    res = robot.simulate(0.4, q0=q0, options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))
    t = res.t[res.t > 0.1]
    s = res.state("ball_x")[res.t > 0.1] / math.cos(theta)   # distance along the slope
    accel = 2.0 * np.polyfit(t, s, 2)[0]
    assert accel == pytest.approx(-G * math.sin(theta), rel=1e-4)


def test_a_ball_dropped_on_a_bump_touches_its_top_when_free_fall_says_and_rests_there():
    A, drop = 0.08, 0.1
    bump = HeightFunction("bump", (A, 0.3, -0.2, 0.25))
    k = 2e4
    robot = Robot(_ball(), contacts=Contacts(ContactLaw(kelvin_voigt(k, 30.0)), ground=bump))  # event path
    q0 = np.r_[0.3, -0.2, A + R + drop, 0.0, 0.0, 0.0, 1.0]
    res = robot.simulate(1.5, q0=q0, options=Options(rtol=1e-10, atol=1e-12, record_period=0.01))
    first = res.events["t"][res.events["guard"] == 0][0]      # the touchdown guard of the only point
    assert first == pytest.approx(math.sqrt(2.0 * drop / G), rel=1e-9)
    assert res.state("ball_z")[-1] == pytest.approx(A + R - M * G / k, abs=1e-6)
    assert res.output("n_touching")[-1] == 1


def test_the_terrains_height_is_the_compiled_one_and_the_viewer_draws_it():
    from legsim.viz.scene import multibody_scene

    hills = HeightFunction("sines", (0.05, 2.0, 0.0, 0.0, 0.02, 0.0, 3.0, 0.5))
    x, y = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 4))
    np.testing.assert_allclose(hills.height(x, y), 0.05 * np.sin(2 * x) + 0.02 * np.sin(3 * y + 0.5),
                               atol=1e-15)
    grid = HeightField(np.array([[0.0, 0.1], [0.2, 0.4]]), dx=1.0, dy=1.0)
    assert grid.height(0.5, 0.5) == pytest.approx(0.175)   # bilinear
    assert grid.height(-3.0, 9.0) == pytest.approx(0.1)    # clamped to the border outside
    scene = multibody_scene(_ball(), ground=hills)
    shapes = scene.terrain(((-1.0, -1.0, 0.0), (1.0, 1.0, 0.5)))
    assert shapes and shapes[0].kind == "mesh"
    z = shapes[0].vertices[:, 2]
    xy = shapes[0].vertices[:, :2]
    np.testing.assert_allclose(z, hills.height(xy[:, 0], xy[:, 1]), atol=1e-15)


def test_a_ground_that_is_not_a_plane_or_terrain_is_refused_naming_what_is_allowed():
    with pytest.raises(InputError, match="expected a legsim.contact.Plane, HeightField or HeightFunction"):
        Contacts(ContactLaw(linear_penalty(1e4)), ground="hills")
    with pytest.raises(InputError, match="'origin'"):
        HeightField(np.zeros((2, 2)), dx=1.0, dy=1.0, origin=(0.0,))


def test_a_hardware_file_declares_a_terrain_and_bad_terrain_keys_are_named():
    from legsim.assembly.hardware import parse_parts

    text = """
    [contacts]
    normal = { law = "linear_penalty", k = 2e4 }
    ground = { terrain = "bump", params = [0.08, 0.3, -0.2, 0.25] }
    """
    parts = parse_parts(text, "hills.toml", model=_ball())
    ground = parts.contacts.ground
    assert isinstance(ground, HeightFunction) and ground.kind == "bump"
    bad = text.replace('params = [0.08, 0.3, -0.2, 0.25]', 'params = [0.08, 0.3, -0.2, 0.25], offset = 1.0')
    with pytest.raises(InputError, match=r"hills.toml \[contacts.ground\]: a terrain .* got offset"):
        parse_parts(bad, "hills.toml", model=_ball())
    with pytest.raises(InputError, match="hills.toml"):
        parse_parts(text.replace('"bump"', '"hill"'), "hills.toml", model=_ball())


def test_a_hardware_file_reads_a_heightfield_from_a_file_beside_it(tmp_path):
    from legsim.assembly.hardware import load_parts

    grid = _slope_grid(0.1, -0.05, 0.02)
    np.savetxt(tmp_path / "slope.csv", grid.heights, delimiter=",")
    np.save(tmp_path / "slope.npy", grid.heights)
    body = """
    [contacts]
    normal = { law = "linear_penalty", k = 2e4 }
    ground = { heightfield = "FILE", dx = 0.25, dy = 0.25, origin = [-1.0, -0.5] }
    """
    x, y = np.linspace(-1.2, 1.2, 7), np.linspace(-0.7, 0.7, 5)
    for name in ("slope.csv", "slope.npy"):
        (tmp_path / "hw.toml").write_text(body.replace("FILE", name))
        ground = load_parts(tmp_path / "hw.toml", model=_ball()).contacts.ground
        assert isinstance(ground, HeightField)
        np.testing.assert_allclose(ground.height(x[:, None], y[None, :]),
                                   grid.height(x[:, None], y[None, :]), rtol=0, atol=1e-15)
    (tmp_path / "ragged.csv").write_text("0,0,0\n0,0\n")
    good = body.replace("FILE", "slope.csv")
    bad = [
        (body.replace("FILE", "gone.csv"),
         r"hw.toml \[contacts.ground\]: heightfield = 'gone.csv': file .* not found"),
        (body.replace("FILE", "slope.png"), "expected a .npy, .csv or .txt file of heights"),
        (good.replace("dx = 0.25, ", ""), "missing key 'dx'"),
        (good.replace("origin", "offset = 1.0, origin"),
         "a heightfield takes heightfield, dx, dy, origin, not offset"),
        (body.replace("FILE", "ragged.csv"), r"cannot read .*ragged.csv' as a grid of numbers"),
        (good.replace("dx = 0.25", "dx = -0.25"), r"hw.toml \[contacts.ground\]: .*dx"),
    ]
    for text, pattern in bad:
        (tmp_path / "hw.toml").write_text(text)
        with pytest.raises(InputError, match=pattern):
            load_parts(tmp_path / "hw.toml", model=_ball())
