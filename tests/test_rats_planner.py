"""RATS path-following tipping planner: RATS digest §6.2 T5 (planner kinematics), §3.2."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.path import Path

from legsim.errors import InputError
from legsim.robots.rats import geometry as g
from legsim.robots.rats.planner import (
    TippingPlanner,
    barycentric,
    choose_leg,
    circle_path,
    edge_normals,
    figure8_path,
    in_triangle,
    initial_state,
    line_path,
    path_distance,
    plan,
    tip,
)

DIMS = g.RatsDims()
coord = st.floats(-5.0, 5.0, allow_nan=False)


def _sides(tri):
    return np.sort(np.linalg.norm(tri - np.roll(tri, 1, axis=0), axis=1))


def _cross2(a, b):
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _edge_crosses(tri, w):
    """(3, ...) signed cross products of each edge with the point: the reference point-in-triangle
    test is "all of one sign"."""
    return np.array([_cross2(tri[(i + 1) % 3] - tri[i], np.asarray(w) - tri[i]) for i in range(3)])


@settings(max_examples=300, deadline=None)
@given(st.lists(coord, min_size=8, max_size=8))
def test_barycentric_test_matches_a_cross_product_point_in_triangle_reference(xs):
    tri = np.array(xs[:6]).reshape(3, 2)
    w = np.array(xs[6:])
    assume(abs(_cross2(tri[1] - tri[0], tri[2] - tri[0])) > 1e-3)
    s = _edge_crosses(tri, w)
    assume(np.min(np.abs(s)) > 1e-6)           # not on an edge, where rounding decides
    inside = bool(np.all(s > 0) or np.all(s < 0))
    assert bool(in_triangle(tri, w)) == inside
    lam = barycentric(tri, w)
    assert np.allclose(lam @ tri, w) and np.isclose(lam.sum(), 1.0)


def test_barycentric_test_matches_matplotlib_contains_point_on_random_points():
    rng = np.random.default_rng(5)
    agree = 0
    for _ in range(200):
        tri = rng.uniform(-1, 1, (3, 2))
        pts = rng.uniform(-1.5, 1.5, (50, 2))
        ref = Path(tri).contains_points(pts)
        ours = in_triangle(tri, pts)
        clear = np.min(np.abs(_edge_crosses(tri, pts)), axis=0) > 1e-9
        assert np.array_equal(ours[clear], ref[clear])
        agree += int(clear.sum())
    assert agree > 9900


def test_the_printed_minus_sign_in_eq_6_3_would_reject_the_centroid():
    tri = g.planar_feet(0, DIMS.l, 0.3)
    (x1, y1), (x2, y2), (x3, y3) = tri
    xw, yw = tri.mean(axis=0)
    det = (x1 - x3) * (y2 - y3) - (x2 - x3) * (y1 - y3)
    l1 = ((y2 - y3) * (xw - x3) - (x2 - x3) * (yw - y3)) / det
    l2_printed = (-(y1 - y3) * (xw - x3) - (x1 - x3) * (yw - y3)) / det
    assert not (0 <= l2_printed <= 1 and 0 <= 1 - l1 - l2_printed <= 1)
    assert np.allclose(barycentric(tri, (xw, yw)), 1 / 3)
    with pytest.raises(InputError, match="degenerate"):
        barycentric([[0, 0], [1, 1], [2, 2]], (0.5, 0.5))


def test_reflection_keeps_the_foot_triangle_congruent_and_the_pivot_edge_fixed():
    rng = np.random.default_rng(2)
    for _ in range(50):
        s = int(rng.integers(20))
        state = initial_state(s, DIMS, rng.uniform(-math.pi, math.pi), rng.uniform(-3, 3, 2))
        for _k in range(10):
            leg = int(rng.choice(state.legs))
            new = tip(state, leg)
            assert np.allclose(_sides(new.feet), _sides(state.feet))
            assert np.allclose(_sides(new.feet), DIMS.side_length)
            assert np.allclose(new.centre, new.feet.mean(axis=0))
            kept = [i for i in state.legs if i != leg]
            for i in kept:
                assert np.allclose(new.feet[new.legs.index(i)], state.feet[state.legs.index(i)])
            assert np.isclose(np.linalg.norm(new.centre - state.centre), DIMS.lattice_step)
            assert new.stance == g.TRANSITIONS[state.stance, leg]
            state = new


def test_the_planar_motion_model_agrees_with_the_rigid_3d_tip():
    yaw = 0.9
    state = initial_state(4, DIMS, yaw, (0.5, 0.5))
    r, c = g.resting_rotation(4, yaw), np.array([0.5, 0.5, DIMS.centre_height])
    rng = np.random.default_rng(3)
    for _ in range(30):
        leg = int(rng.choice(state.legs))
        r, c, s = g.tip_pose(r, c, state.stance, leg, DIMS.l)
        state = tip(state, leg)
        assert s == state.stance
        world = c + (r @ (DIMS.l * g.LEG_DIRECTIONS[g.STANCES[s]]).T).T
        assert np.allclose(world[:, :2], state.feet, atol=1e-9)
        assert np.allclose(c[:2], state.centre, atol=1e-9)


def test_slip_translates_all_four_points_along_the_tip_direction():
    state = initial_state(0, DIMS)
    leg = state.legs[1]
    n = edge_normals(state.feet)[1]
    a, b = tip(state, leg), tip(state, leg, slip=0.02)
    assert np.allclose(b.feet - a.feet, 0.02 * n) and np.allclose(b.centre - a.centre, 0.02 * n)
    assert (a.centre - state.centre) @ n > 0                    # the tip direction is forward


def test_the_chosen_leg_is_opposite_the_edge_with_the_largest_projection_of_the_heading():
    state = initial_state(0, DIMS, 0.3)
    normals = edge_normals(state.feet)
    for k in range(3):
        leg, proj = choose_leg(state, normals[k] + 0.1 * normals[(k + 1) % 3])
        assert leg == state.legs[k] and np.argmax(proj) == k
        # the fired leg moves the centre across the edge it faces, towards the heading
        assert (tip(state, leg).centre - state.centre) @ normals[k] > 0
    with pytest.raises(InputError, match="heading"):
        choose_leg(state, (0.0, 0.0))


@pytest.mark.parametrize("heading_deg", [0, 10, 23, 30, 45, 60, 77, 90, 135, 200, 290])
def test_straight_line_progress_per_tip_is_0_75_to_0_87_of_the_lattice_step(heading_deg):
    # T5; 20 m lines, gamma 1.5, zero slip, start stance 0 at yaws 0 and 0.4 rad
    u = np.array([math.cos(math.radians(heading_deg)), math.sin(math.radians(heading_deg))])
    for yaw in (0.0, 0.4):
        r = plan(line_path((0, 0), 20 * u), 0, yaw=yaw)
        assert r.reached_goal
        ratio = (r.centres[-1] - r.centres[0]) @ u / r.n_firings / DIMS.lattice_step
        assert 0.75 - 1e-3 <= ratio <= 0.87
        assert r.mean_error < 0.5 * DIMS.side_length


def test_straight_line_progress_with_slip_scales_with_step_plus_slip():
    u = np.array([math.cos(0.3), math.sin(0.3)])
    for slip in (-0.01, 0.01, 0.03):
        r = plan(line_path((0, 0), 20 * u), 5, yaw=1.0, slip=slip)
        assert r.reached_goal
        ratio = (r.centres[-1] - r.centres[0]) @ u / r.n_firings / (DIMS.lattice_step + slip)
        assert 0.75 - 3e-3 <= ratio <= 0.87


# several starting poses: the trade-off is a statement about typical runs
STARTS = [(0, 0.0), (7, 1.0), (13, 2.5), (3, -0.7), (18, 0.2), (10, 4.0)]


@pytest.mark.parametrize("name", ["circle r=2 m", "figure-8 4 m x 2 m"])
def test_a_longer_look_ahead_never_costs_more_firings_and_never_lowers_the_mean_error(name):
    # T5: gamma in {0.5, 1.5, 5}; circle of radius 2 m (~95 lattice steps around) and a
    # figure-8 (lemniscate of Gerono) 4 m wide: both bend on the scale of R = 5 L ~ 1.05 m
    path = circle_path(2.0) if name.startswith("circle") else figure8_path(4.0)
    firings, errors = [], []
    for gamma in (0.5, 1.5, 5.0):
        runs = [plan(path, s, yaw=yaw, gamma=gamma) for s, yaw in STARTS]
        assert all(r.reached_goal for r in runs)
        firings.append(np.mean([r.n_firings for r in runs]))
        errors.append(np.mean([r.mean_error for r in runs]))
        for r in runs:
            assert np.isclose(r.mean_error, path_distance(r.centres[1:], path).mean())
    assert firings[0] >= firings[1] >= firings[2]
    assert errors[0] <= errors[1] <= errors[2]
    assert errors[2] > 1.3 * errors[0]
    if name.startswith("figure"):
        assert firings[2] < firings[0]


def test_with_zero_slip_every_planned_centre_lies_on_the_honeycomb():
    r = plan(figure8_path(3.0), 2, yaw=0.5, gamma=1.5)
    comb = g.honeycomb(r.feet[0], 3.0)
    d = np.min(np.linalg.norm(comb[None] - r.centres[:, None], axis=2), axis=1)
    assert np.all(d < 1e-9)
    assert [k for k, _s, _c in r.steps()] == r.legs.tolist()


def test_the_planner_stops_when_the_goal_is_inside_the_triangle_and_respects_max_firings():
    r = plan(line_path((0, 0), (1.0, 0.3)), 0)
    assert r.reached_goal and in_triangle(r.feet[-1], (1.0, 0.3))
    assert not in_triangle(r.feet[-2], (1.0, 0.3))
    short = plan(line_path((0, 0), (1.0, 0.3)), 0, max_firings=3)
    assert short.n_firings == 3 and not short.reached_goal


def test_a_new_waypoint_is_at_least_gamma_L_from_the_centre():
    path = line_path((0, 0), (3, 0), spacing=0.01)
    planner = TippingPlanner(path, DIMS, gamma=2.0)
    state = initial_state(0, DIMS)
    w = planner.target(state)
    assert np.linalg.norm(w - state.centre) >= 2.0 * DIMS.side_length
    assert np.linalg.norm(path[planner.index - 1] - state.centre) < 2.0 * DIMS.side_length


def test_path_helpers_give_the_requested_shapes():
    c = circle_path(2.0, spacing=0.02)
    assert np.allclose(np.linalg.norm(c, axis=1), 2.0, atol=1e-3)
    assert np.allclose(c[0], c[-1]) and np.allclose(c[0], (0, -2))
    f = figure8_path(4.0)
    assert np.isclose(f[:, 0].max(), 2.0, atol=1e-3) and np.isclose(f[:, 1].max(), 1.0, atol=1e-3)
    seg = np.linalg.norm(np.diff(line_path((0, 0), (1, 1), spacing=0.05), axis=0), axis=1)
    assert np.allclose(seg, seg[0]) and seg[0] <= 0.05
    assert path_distance((0.5, 1.0), [[0, 0], [1, 0]]) == pytest.approx(1.0)


def test_bad_planner_inputs_are_rejected_by_name():
    with pytest.raises(InputError, match="gamma=0"):
        plan(line_path((0, 0), (1, 0)), 0, gamma=0)
    with pytest.raises(InputError, match="path"):
        plan(np.zeros((3, 3)), 0)
    with pytest.raises(InputError, match="leg=7 is not in stance 0"):
        tip(initial_state(0), 7)
    with pytest.raises(InputError, match="circle_path: 'radius' = -1, expected"):
        circle_path(-1)
