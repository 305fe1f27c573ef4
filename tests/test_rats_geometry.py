"""RATS geometry and topology: RATS digest §6.2 T1 (geometry) and T2 (masses)."""

import math
from collections import deque

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.robots.rats import geometry as g
from legsim.validation import rats as case  # measurements shared with `legsim report`

V = g.LEG_DIRECTIONS


def _graph_edges():
    return {tuple(sorted((s, int(t)))) for s in range(g.N_STANCES) for t in g.TRANSITIONS[s] if t >= 0}


def _bfs_eccentricity(start, neighbours):
    dist = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for t in neighbours[s]:
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def test_adjacent_legs_are_63_435_deg_apart_with_5_neighbours_5_far_legs_and_1_antipode():
    ang = np.degrees(np.arccos(np.clip(V @ V.T, -1.0, 1.0)))
    for i in range(g.N_LEGS):
        others = np.sort(np.delete(ang[i], i))
        assert np.all(np.abs(others[:5] - 63.435) < 0.01)
        assert np.all(np.abs(others[5:10] - 116.565) < 0.01)
        assert abs(others[10] - 180.0) < 1e-5     # arccos near -1 loses digits
    assert abs(case.geometry_angles_deg()["adjacent"] - 63.435) < 0.01


def test_every_stance_leg_is_37_377_deg_from_the_face_normal():
    for s, legs in enumerate(g.STANCES):
        cos = V[legs] @ g.GRAVITY_DIRECTIONS[s]
        assert np.all(np.abs(np.degrees(np.arccos(cos)) - 37.377) < 0.01)
    assert abs(case.geometry_angles_deg()["stance_leg"] - 37.377) < 0.01


def test_there_are_20_stances_of_three_mutual_neighbours_and_every_leg_is_in_5():
    assert g.STANCES.shape == (20, 3)
    assert len({tuple(r) for r in g.STANCES}) == 20
    assert all(list(r) == sorted(r) for r in g.STANCES)
    assert [tuple(r) for r in g.STANCES] == sorted(tuple(r) for r in g.STANCES)   # documented order
    for a, b, c in g.STANCES:
        assert np.allclose([V[a] @ V[b], V[a] @ V[c], V[b] @ V[c]], 1 / math.sqrt(5))
    counts = np.bincount(g.STANCES.ravel(), minlength=12)
    assert np.all(counts == 5)
    for leg in range(12):
        assert all(leg in g.STANCES[s] for s in g.LEG_STANCES[leg])


def test_stance_of_finds_each_stance_from_its_legs_in_any_order_and_rejects_non_faces():
    rng = np.random.default_rng(0)
    for s, legs in enumerate(g.STANCES):
        assert g.stance_of(rng.permutation(legs)) == s
    with pytest.raises(InputError, match="neighbouring"):
        g.stance_of((0, 1, 11))
    with pytest.raises(InputError, match="stance=20"):
        g.gravity_dir(20)
    with pytest.raises(InputError, match="leg=12"):
        g.transition(0, 12)
    with pytest.raises(InputError, match="leg=7 is not in stance 0"):
        g.transition(0, 7)


def test_the_30_tip_edges_are_the_neighbouring_leg_pairs_each_shared_by_two_stances():
    assert g.EDGES.shape == (30, 2)
    assert np.allclose(np.einsum("ij,ij->i", V[g.EDGES[:, 0]], V[g.EDGES[:, 1]]), 1 / math.sqrt(5))
    for a, b in g.EDGES:
        assert sum(a in r and b in r for r in g.STANCES) == 2


def test_transition_graph_is_3_regular_with_30_edges_connected_and_of_diameter_5():
    assert np.all((g.TRANSITIONS >= 0).sum(axis=1) == 3)
    edges = _graph_edges()
    assert len(edges) == 30
    neighbours = {s: [int(t) for t in g.TRANSITIONS[s] if t >= 0] for s in range(20)}
    assert all(len(set(n)) == 3 for n in neighbours.values())
    ecc = [max(_bfs_eccentricity(s, neighbours).values()) for s in range(20)]
    assert all(len(_bfs_eccentricity(s, neighbours)) == 20 for s in range(20))   # connected
    assert max(ecc) == 5 and min(ecc) == 5                                          # vertex-transitive


def test_each_successor_differs_by_exactly_the_fired_leg_and_keeps_the_pivot_edge():
    for s, legs in enumerate(g.STANCES):
        for leg in range(12):
            t = g.TRANSITIONS[s, leg]
            if leg not in legs:
                assert t == -1
                continue
            new = set(g.STANCES[t])
            assert len(new & set(legs)) == 2
            assert leg not in new
            assert set(g.tip_edge(s, leg)) == set(legs) - {leg} <= new


def test_tipping_back_over_the_same_edge_returns_to_the_stance():
    for s, legs in enumerate(g.STANCES):
        for leg in legs:
            t = g.TRANSITIONS[s, leg]
            (new_leg,) = set(g.STANCES[t]) - set(legs)
            assert g.TRANSITIONS[t, new_leg] == s


def test_one_tip_turns_the_body_41_81_deg_about_the_pivot_edge_half_of_it_to_the_apex():
    assert abs(case.geometry_angles_deg()["tip"] - 41.81) < 0.005
    assert abs(math.degrees(g.APEX_ANGLE) - 20.905) < 0.005
    for s, legs in enumerate(g.STANCES):
        for leg in legs:
            t = g.transition(s, leg)
            d = g.tip_rotation(s, leg)
            assert np.allclose(d @ g.GRAVITY_DIRECTIONS[t], g.GRAVITY_DIRECTIONS[s], atol=1e-12)
            angle = math.degrees(math.acos((np.trace(d) - 1) / 2))
            assert abs(angle - 41.81) < 0.005
            a, b = g.tip_edge(s, leg)
            assert abs(abs(g.tip_axis(s, leg) @ (V[a] - V[b])) / np.linalg.norm(V[a] - V[b]) - 1) < 1e-12


def test_resting_rotation_levels_the_stance_feet_with_the_yaw_convention():
    l = 0.2
    for s in range(20):
        for yaw in (0.0, 0.7, -2.5):
            r = g.resting_rotation(s, yaw)
            assert np.allclose(r @ r.T, np.eye(3)) and np.isclose(np.linalg.det(r), 1.0)
            assert np.allclose(r @ g.gravity_dir(s), [0, 0, -1], atol=1e-12)
            z = (r @ (l * V).T)[2]
            stance = g.STANCES[s]
            assert np.allclose(z[stance], -l * math.cos(g.STANCE_LEG_ANGLE))
            assert np.all(np.delete(z, stance) > z[stance[0]] + 0.01)   # the other feet are off the ground
            first = (r @ V[stance[0]])[:2]
            assert np.isclose(math.atan2(first[1], first[0]), yaw)


def test_planar_feet_form_an_equilateral_triangle_of_side_L_centred_under_the_body():
    dims = g.RatsDims()
    for s in (0, 7, 19):
        f = g.planar_feet(s, dims.l, 0.3, (1.0, -2.0))
        sides = np.linalg.norm(f - np.roll(f, 1, axis=0), axis=1)
        assert np.allclose(sides, dims.side_length)
        assert np.allclose(f.mean(axis=0), (1.0, -2.0))
    assert np.isclose(dims.side_length, 0.2 * 1.0514622, atol=1e-7)
    assert np.isclose(dims.lattice_step, 0.2 * math.sin(g.STANCE_LEG_ANGLE))


def test_a_rigid_tip_on_level_ground_reflects_the_fired_foot_and_the_centre_across_the_pivot_edge():
    l, yaw = 0.2, 0.4
    c = np.array([0.3, -0.1, l * math.cos(g.STANCE_LEG_ANGLE)])
    for s, legs in enumerate(g.STANCES):
        r = g.resting_rotation(s, yaw)
        feet = g.planar_feet(s, l, yaw, c[:2])
        for k, leg in enumerate(legs):
            r2, c2, t = g.tip_pose(r, c, s, leg, l)
            assert t == g.TRANSITIONS[s, leg]
            assert np.allclose(r2 @ g.gravity_dir(t), [0, 0, -1], atol=1e-12)
            world = c2 + (r2 @ (l * V[g.STANCES[t]]).T).T
            assert np.allclose(world[:, 2], 0.0, atol=1e-12)            # rests on the new stance
            a, b = np.delete(feet, k, axis=0)
            img = g.reflect_across_line(np.vstack([feet[k], c[:2]]), a, b)
            (new_leg,) = set(g.STANCES[t]) - set(legs)
            by_leg = dict(zip(g.STANCES[t], world[:, :2], strict=True))
            assert np.allclose(by_leg[new_leg], img[0], atol=1e-12)
            assert np.allclose(c2[:2], img[1], atol=1e-12)
            for j, other in enumerate(legs):
                if other != leg:
                    assert np.allclose(by_leg[other], feet[j], atol=1e-12)   # the pivot feet stay put


def test_the_honeycomb_holds_every_centre_reached_by_tipping_with_neighbours_one_step_apart():
    dims = g.RatsDims()
    feet0 = g.planar_feet(0, dims.l, 0.2)
    comb = g.honeycomb(feet0, 1.0)
    assert np.allclose(comb[0], feet0.mean(axis=0))
    nearest = np.sort(np.linalg.norm(comb[1:] - comb[0], axis=1))[:3]
    assert np.allclose(nearest, dims.lattice_step)
    assert len(g.honeycomb(feet0, dims.lattice_step * 1.01)) == 4
    rng = np.random.default_rng(1)
    r, c, s = g.resting_rotation(0, 0.2), np.array([0.0, 0.0, dims.centre_height]), 0
    for _ in range(25):
        r, c, s = g.tip_pose(r, c, s, int(rng.choice(g.STANCES[s])), dims.l)
        if np.linalg.norm(c[:2] - comb[0]) < 0.95:
            assert np.min(np.linalg.norm(comb - c[:2], axis=1)) < 1e-9
    with pytest.raises(InputError, match="equilateral"):
        g.honeycomb([[0, 0], [1, 0], [0, 2]], 1.0)


def test_table_5_1_masses_sum_to_3_446_kg():
    # T2
    dims = g.RatsDims()
    assert abs(case.total_mass() - 3.446) < 0.001
    assert (dims.body_mass, dims.leg_mass, dims.stroke, dims.foot_radius, dims.body_radius,
            dims.capsule_length) == (2.858, 0.049, 0.063, 0.012, 0.15, 0.114)


def test_the_estimated_l_lets_the_body_sphere_clear_the_ground_and_bad_dims_are_rejected():
    assert g.RatsDims().rests_on_feet                 # 0.2 cos 37.38 deg = 0.159 > 0.15
    assert not g.RatsDims(l=0.18).rests_on_feet       # digest §1.2: needs l > 0.189 m
    with pytest.raises(InputError, match="RatsDims: 'l' = -0.1, expected a finite number in"):
        g.RatsDims(l=-0.1)
    with pytest.raises(InputError, match="resting_rotation: 'yaw' = nan, expected a number"):
        g.resting_rotation(0, float("nan"))
