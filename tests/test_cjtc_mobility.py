"""Gruebler/Kutzbach mobility, the Extended Mobility Analysis and the Jacobian-rank tests of CJTC
(digest shared/spec/cjtc-libra.md §3.2–§3.6, §4.4; acceptance tests §10.2 items 1–3)."""

import math

import numpy as np
import pytest

from legsim.control.mechanism import JOINT_KINDS, Mechanism, PlanarPoses, gruebler, joint_kind
from legsim.control.mobility import (
    ControlCandidate,
    ForceCandidate,
    cjtc_rank_test,
    extended_mobility_analysis,
    finite_difference_jacobian,
    format_mobility,
    mechanism_rank_mobility,
    numerical_rank,
    rank_mobility,
    scan_singularities,
)
from legsim.errors import InputError
from legsim.robots.libra.mobility import (
    LIBRA_CONTROL_VECTORS,
    NOMINAL_Q,
    libra_candidates,
    libra_mechanism,
    libra_mobility,
    libra_report,
)
from legsim.validation import cjtc as case  # measurements shared with `legsim report`

# ------------------------------------------------------------------------------------------------ toys


def four_bar(third_crank_x=None, skew=0.0):
    """A planar four-bar: cranks pinned to ground at (0, 0) and (1, 0), tips at (0, 1) and (1, 1), joined by
    a coupler. With ``third_crank_x`` a third crank from (x, 0) to (x + skew, 1) joins the coupler too: the
    double parallelogram (skew 0) that Gruebler counts as rigid though it moves."""
    m = Mechanism("four-bar")
    m.add_link("crank1", "coupler", "crank2")
    m.add_joint("A", "pin", "crank1", "ground", at=(0.0, 0.0), active=True)
    m.add_joint("B", "pin", "crank1", "coupler", at=(0.0, 1.0))
    m.add_joint("C", "pin", "coupler", "crank2", at=(1.0, 1.0))
    m.add_joint("D", "pin", "crank2", "ground", at=(1.0, 0.0))
    m.add_point("tip", "coupler", (0.5, 1.0))
    if third_crank_x is not None:
        m.add_link("crank3")
        m.add_joint("E", "pin", "crank3", "ground", at=(third_crank_x, 0.0))
        m.add_joint("G", "pin", "crank3", "coupler", at=(third_crank_x + skew, 1.0))
    return m


def brace_toy():
    """The internal-force toy of Figs. 11–12 (the figures are lost; this is a reconstruction).

    A telescopic brace wedged between walls A (x = 0) and B (x = 1): cylinder 1 is pinned to wall A, rod 1
    slides in it (prismatic actuator 1), rod 2 telescopes out of rod 1 (prismatic actuator 2) and is
    pinned to wall B. Actuator 2's internal displacement constraint is drawn as a weld across its
    prismatic joint (role ``"internal"``, still active, so s = 2). Gruebler: the weld merges rods 1 and 2,
    l = 3, f1 = 3 -> F = 0 = a. Relaxing wall B's x (pin -> roll-slide) gives F = 1; relaxing actuator 2's
    internal constraint (weld -> slider) gives F = 2 = s.
    """
    m = Mechanism("brace between two walls")
    m.add_link("cylinder1", "rod1", "rod2")
    m.add_point("footA", "cylinder1", (0.0, 0.0))
    m.add_point("footB", "rod2", (1.0, 0.0))
    m.add_joint("wallA", "pin", "cylinder1", "ground", role="environment", point="footA")
    m.add_joint("act1", "prismatic", "rod1", "cylinder1", active=True, at=(0.3, 0.0), axis="x")
    m.add_joint("act2", "weld", "rod2", "rod1", active=True, role="internal", at=(0.6, 0.0))
    m.add_joint("wallB", "pin", "rod2", "ground", role="environment", point="footB")
    return m


TOY_FORCES = (ForceCandidate("F_x at wall B", point="footB", coord="x"),
              ForceCandidate("internal force of actuator 2", joint="act2", relax_to="slider", axis="x"))


def two_link_tip(q, l1=1.0, l2=0.8):
    return np.array([l1 * math.cos(q[0]) + l2 * math.cos(q[0] + q[1]),
                     l1 * math.sin(q[0]) + l2 * math.sin(q[0] + q[1])])


def two_link_jacobian(q, l1=1.0, l2=0.8):
    s1, c1, s12, c12 = math.sin(q[0]), math.cos(q[0]), math.sin(q[0] + q[1]), math.cos(q[0] + q[1])
    return np.array([[-l1 * s1 - l2 * s12, -l2 * s12], [l1 * c1 + l2 * c12, l2 * c12]])


def libra_rows(result):
    return [(row.candidate, row.l, row.f1, row.f2, row.b, row.accepted) for row in result.steps]


# --------------------------------------------------------------------------------- catalogue and Gruebler


def test_the_planar_catalogue_matches_fig_8_and_the_spatial_one_the_lower_pairs():
    planar = {k: v.planar_dof for k, v in JOINT_KINDS.items() if v.planar_dof is not None}
    assert planar == {"pin": 1, "slider": 1, "rolling": 1, "roll_slide": 2, "spring": 3, "weld": 0}
    spatial = {name: joint_kind(name).spatial_dof for name in ("revolute", "prismatic", "cylindrical",
                                                               "universal", "spherical", "planar",
                                                               "point_contact", "weld", "spring")}
    assert spatial == {"revolute": 1, "prismatic": 1, "cylindrical": 2, "universal": 2, "spherical": 3,
                       "planar": 3, "point_contact": 5, "weld": 0, "spring": 6}
    assert JOINT_KINDS["spring"].marker and not JOINT_KINDS["weld"].marker


def test_a_planar_four_bar_has_one_dof_by_eq_14_and_a_spatial_one_minus_two_by_eq_13():
    count = gruebler(four_bar())
    assert (count.l, count.j, count.f1, count.f2, count.F) == (4, 4, 4, 0, 1)
    spatial = Mechanism("spatial four-bar", "spatial")
    spatial.add_link("crank1", "coupler", "crank2")
    for name, a, b in (("A", "crank1", "ground"), ("B", "crank1", "coupler"), ("C", "coupler", "crank2"),
                       ("D", "crank2", "ground")):
        spatial.add_joint(name, "revolute", a, b)
    assert gruebler(spatial).F == 6 * (4 - 4 - 1) + 4 == -2


def test_a_weld_merges_two_links_and_a_weld_closing_a_loop_removes_a_whole_body():
    m = Mechanism("welded")
    m.add_link("a", "b")
    m.add_joint("pin", "pin", "a", "ground")
    m.add_joint("weld", "weld", "b", "a")
    count = gruebler(m)
    assert (count.l, count.j, count.f1, count.welds, count.F) == (2, 1, 1, 1, 1)
    m.add_joint("loop", "weld", "a", "b")
    count = gruebler(m)
    assert (count.l, count.welds, count.loop_welds, count.F) == (2, 1, 1, 1 - 3)


def test_a_spring_is_neither_a_joint_nor_a_constraint():
    m = four_bar()
    before = gruebler(m)
    m.add_joint("spring", "spring", "coupler", "ground")
    after = gruebler(m)
    assert (after.l, after.j, after.F, after.springs) == (before.l, before.j, before.F, 1)


def test_s_counts_the_active_joints_of_every_limb():
    m = libra_mechanism("u1")
    assert m.s == 6
    assert m.active_by_limb() == {"1": 2, "2": 2, "3": 2}


# ---------------------------------------------------------------------------------- LIBRA, §4.4 and §10.2


def test_libra_under_the_full_environment_has_five_dof_with_eight_links_and_eight_pins():
    count = case.libra_gruebler()  # gruebler(libra_mechanism("u1"))
    assert (count.l, count.j, count.f1, count.f2, count.F) == (8, 8, 8, 0, 5)


def test_u1_stage_one_reproduces_the_digest_table_row_by_row():
    result = case.u1_mobility()  # libra_mobility("u1")
    assert (result.a, result.s) == (5, 6)
    assert libra_rows(result)[:5] == [
        ("full environment", 8, 8, 0, 5, None),
        ("x_b", 9, 10, 0, 4, True),  # vertical slider: slider block + slider + pin
        ("y_b", 8, 9, 0, 3, True),  # body pinned
        ("theta_b", 7, 8, 0, 2, True),  # body welded to ground
        ("foot 3 (x3, y3)", 7, 9, 0, 0, True),  # foot 3 pinned: two variables at once
    ]
    assert result.control_variables == ("x_b", "y_b", "theta_b", "x3", "y3")
    assert "slider block" in result.steps[1].constraint and "weld" in result.steps[3].constraint


def test_u1_stage_two_relaxing_foot_2_x_gives_one_dof_and_r_equals_s():
    result = libra_mobility("u1")
    last = result.steps[5]
    assert (last.candidate, last.l, last.f1, last.f2, last.b, last.accepted) == ("x2", 7, 8, 1, 1, True)
    assert "roll-slide" in last.constraint
    assert result.r == result.s == 6 and result.forces == ("x2",)
    assert result.status == "admissible"
    assert set(result.control_vector) == set(LIBRA_CONTROL_VECTORS["u1"])
    assert [j.kind for j in result.final.joints if j.role == "force"] == ["spring"]


@pytest.mark.parametrize("vector, free, force", [("u2", ("x2", "y2"), "x3"), ("u3", ("x1", "y1"), "x2")])
def test_u2_and_u3_are_admissible_with_b_zero_after_stage_one_and_r_six(vector, free, force):
    result = libra_mobility(vector)
    stage_one = [row for row in result.steps if row.stage == 1]
    assert [row.accepted for row in stage_one] == [True] * 4
    assert stage_one[-1].b == 0 and result.a == 5
    assert result.r == 6 and result.forces == (force,)
    assert set(free) <= set(result.control_variables)
    assert set(result.control_vector) == set(LIBRA_CONTROL_VECTORS[vector])
    assert [row.b for row in result.steps] == ([5, 3, 2, 1, 0, 1] if vector == "u3" else [5, 4, 3, 2, 0, 1])


def test_a_single_supporting_foot_would_leave_libra_underactuated_so_two_feet_support_in_u2_and_u3():
    for vector in ("u2", "u3"):
        alone = libra_mechanism(vector, supports=("foot3",))
        assert gruebler(alone).F == 7 > alone.s == 6
        result = extended_mobility_analysis(alone, libra_candidates(vector)[0])
        assert result.status == "underactuated"


def test_foot_2_y_is_rejected_with_b_unchanged_while_foot_2_is_pinned():
    candidates, forces = libra_candidates("u1")
    y2 = ControlCandidate("y2", "foot2", ("y",), ("y2",))
    result = extended_mobility_analysis(libra_mechanism("u1"), (candidates[0], y2) + candidates[1:], forces)
    row = result.steps[2]
    assert (row.candidate, row.accepted, row.b, result.steps[1].b) == ("y2", False, 4, 4)
    assert "already fixed by the environment (foot2_rung)" in row.reason
    assert "y2" not in result.control_vector and result.r == 6 and result.status == "admissible"


def test_a_candidate_fixed_by_an_earlier_choice_is_rejected_naming_that_choice():
    candidates, forces = libra_candidates("u1")
    again = ControlCandidate("x_b again", "body_centre", ("x",))
    result = extended_mobility_analysis(libra_mechanism("u1"), candidates[:2] + (again,), ())
    row = result.steps[3]
    assert (row.accepted, row.b) == (False, 3)
    assert "already fixed by earlier choices (x_b)" in row.reason
    assert result.status == "dependent" and result.b == 3


def test_a_candidate_after_b_reaches_zero_over_constrains_and_is_rejected():
    candidates, _ = libra_candidates("u1")
    m = libra_mechanism("u1")
    m.add_point("knee6", "link3a", (0.308, -0.139))
    result = extended_mobility_analysis(m, candidates + (ControlCandidate("x of knee 6", "knee6", ("x",)),))
    row = result.steps[-1]
    assert (row.accepted, row.b) == (False, 0)
    assert "over-constrains" in row.reason and "b would be -1" in row.reason


def test_a_two_coordinate_candidate_with_one_already_fixed_is_rejected():
    m = libra_mechanism("u1")
    m.add_joint("foot3_floor", "roll_slide", "link3b", "ground", role="environment", point="foot3", axis="y")
    assert gruebler(m).F == 4
    result = extended_mobility_analysis(m, (ControlCandidate("foot 3", "foot3", ("x", "y")),))
    row = result.steps[1]
    assert (row.accepted, row.b) == (False, 4)
    assert "fixes only 1 of its 2 coordinates" in row.reason and "environment (foot3_floor)" in row.reason


def test_a_force_on_a_coordinate_held_by_a_control_variable_is_rejected_and_the_next_one_accepted():
    candidates, forces = libra_candidates("u1")
    foot3_x = ForceCandidate("x3 force", point="foot3", coord="x")
    result = extended_mobility_analysis(libra_mechanism("u1"), candidates, (foot3_x,) + forces)
    row = result.steps[5]
    assert (row.candidate, row.accepted, row.b) == ("x3 force", False, 0)
    assert "fixed by control variable foot 3 (x3, y3), not by the environment" in row.reason
    assert (result.steps[6].accepted, result.steps[6].b, result.r, result.forces) == (True, 1, 6, ("x2",))


def test_a_link_pinned_at_two_points_is_reported_over_constrained():
    m = Mechanism("plank pinned at both ends")
    m.add_link("plank")
    m.add_point("left", "plank", (0.0, 0.0))
    m.add_point("right", "plank", (1.0, 0.0))
    m.add_joint("left pin", "pin", "plank", "ground", role="environment", point="left")
    m.add_joint("right pin", "pin", "plank", "ground", role="environment", point="right")
    result = extended_mobility_analysis(m, ())
    assert (result.status, result.a, result.b, result.s) == ("over-constrained", -1, -1, 0)
    assert "1 redundant constraint(s)" in result.message
    assert mechanism_rank_mobility(m).a == 0


def test_a_ground_contact_with_a_vector_axis_is_analysed_and_the_callers_links_are_left_alone():
    """A roll-slide's axis given as a numpy vector (documented: "x", "y", "z" or a vector) made the Extended
    Mobility Analysis stop with numpy's ValueError "The truth value of an array ... is ambiguous" (its
    ground contacts were read with ``axis in ("x", "y")``): a joint now keeps a vector axis as a tuple.
    And ``Mechanism(name, links=[...])`` inserted ground into the caller's list (it now keeps a copy)."""
    links = ["plank"]
    m = Mechanism("plank on a floor", links=links)
    assert links == ["plank"] and m.links == ["ground", "plank"]
    m.add_point("left", "plank", (0.0, 0.0))
    floor = m.add_joint("floor", "roll_slide", "plank", "ground", role="environment", point="left",
                        axis=np.array([0.0, 2.0]))
    assert floor.axis == (0.0, 2.0)
    result = extended_mobility_analysis(m, ())
    assert (result.a, result.status) == (gruebler(m).F, "underactuated") == (2, "underactuated")


def test_too_few_candidates_leave_the_set_dependent():
    candidates, forces = libra_candidates("u1")
    result = extended_mobility_analysis(libra_mechanism("u1"), candidates[:2], forces)
    assert (result.status, result.b, result.r) == ("dependent", 3, 2)
    assert result.forces == () and "b = 3" in result.message


def test_the_rank_test_agrees_with_every_row_of_the_libra_analyses_at_a_generic_configuration():
    for vector in LIBRA_CONTROL_VECTORS:
        result = libra_mobility(vector, rank=True)
        assert [row.b_rank for row in result.steps] == [row.b for row in result.steps]


def test_a_stretched_limb_3_is_singular_for_the_rank_test_though_gruebler_admits_u1():
    q = NOMINAL_Q.copy()
    q[5] = 0.0  # knee 6 straight
    result = libra_mobility("u1", q=q)
    assert result.steps[4].b == 0 and result.steps[4].b_rank == 1
    assert result.status == "singular" and "1 uncontrolled DOF" in result.message


def test_the_report_prints_every_row_with_the_verdict():
    text = libra_report("u1")
    lines = text.splitlines()
    assert len(lines) == 2 + 6 + 2
    assert lines[1].split()[:9] == ["step", "stage", "candidate", "constraint", "l", "j", "f1", "f2", "b"]
    assert "a = 5, s = 6, r = 6" in lines[0] and lines[-1].startswith("admissible")
    assert sum("accepted" in line for line in lines) == 5


# -------------------------------------------------------------------------- internal-force toy, Figs. 11–12


def test_the_internal_force_toy_has_two_actuators_and_no_dof_under_the_environment():
    m = brace_toy()
    count = gruebler(m)
    assert (m.s, count.l, count.j, count.f1, count.F) == (2, 3, 3, 3, 0)


def test_the_toy_controls_the_x_interaction_force_then_the_internal_force():
    result = extended_mobility_analysis(brace_toy(), (), TOY_FORCES, rank=True)
    assert result.a == 0
    x_force, internal = result.steps[1], result.steps[2]
    assert (x_force.accepted, x_force.b, x_force.f1, x_force.f2, x_force.b_rank) == (True, 1, 2, 1, 1)
    assert (internal.accepted, internal.b, internal.l, internal.f1, internal.b_rank) == (True, 2, 4, 3, 2)
    assert "weld -> slider" in internal.constraint
    assert result.r == result.s == 2 and result.forces == tuple(f.name for f in TOY_FORCES)
    assert sum(j.kind == "spring" for j in result.final.joints) == 2


def test_a_force_requested_after_r_equals_s_is_not_tried():
    extra = ForceCandidate("F_y at wall B", point="footB", coord="y")
    result = extended_mobility_analysis(brace_toy(), (), TOY_FORCES + (extra,))
    assert result.steps[-1].accepted is False and "not tried: r = s = 2" in result.steps[-1].reason
    assert result.r == 2


def test_relaxing_a_coordinate_the_environment_does_not_fix_is_rejected():
    m = brace_toy()
    m.add_point("middle", "rod1", (0.5, 0.0))
    result = extended_mobility_analysis(m, (), (ForceCandidate("nothing", point="middle", coord="x"),))
    assert (result.steps[1].accepted, result.steps[1].b, result.r) == (False, 0, 0)
    assert "nothing to relax" in result.steps[1].reason


# ----------------------------------------------------------------------------------------- underactuation


def test_libra_on_spring_contacts_is_refused_as_underactuated():
    candidates, forces = libra_candidates("u1")
    m = libra_mechanism("u1", contact="spring")
    count = gruebler(m)
    assert (count.l, count.j, count.springs, count.F) == (8, 6, 2, 9)
    result = extended_mobility_analysis(m, candidates, forces)
    assert (result.status, result.a, result.s, result.r, len(result.steps)) == ("underactuated", 9, 6, 0, 1)
    assert "s = 6 active joints < a = 9" in result.message and "CJTC cannot be used" in result.message
    assert "underactuated" in format_mobility(result)


def test_a_free_floating_planar_and_a_free_floating_spatial_robot_are_refused():
    candidates, _ = libra_candidates("u1")
    planar = extended_mobility_analysis(libra_mechanism("u1", contact="none"), candidates)
    assert (planar.status, planar.a, planar.s) == ("underactuated", 9, 6)
    craft = Mechanism("spacecraft with a 3R arm", "spatial")
    craft.add_link("bus", "arm1", "arm2", "arm3")
    for i, (a, b) in enumerate((("bus", "arm1"), ("arm1", "arm2"), ("arm2", "arm3"))):
        craft.add_joint(f"q{i + 1}", "revolute", a, b, active=True)
    craft.add_point("hand", "arm3")
    result = extended_mobility_analysis(craft, (ControlCandidate("hand", "hand", ("x", "y", "z")),))
    assert (result.status, result.a, result.s) == ("underactuated", 9, 3)


# ------------------------------------------------------------------------------------------ spatial analysis


def test_a_spatial_six_r_arm_takes_its_tip_position_then_attitude():
    arm = Mechanism("6R arm", "spatial")
    links = [f"link{i}" for i in range(1, 7)]
    arm.add_link(*links)
    for i, (a, b) in enumerate(zip(["ground"] + links[:-1], links, strict=True)):
        arm.add_joint(f"q{i + 1}", "revolute", b, a, active=True)
    arm.add_point("tip", "link6")
    cands = (ControlCandidate("tip x", "tip", ("x",)), ControlCandidate("tip y, z", "tip", ("y", "z")),
             ControlCandidate("tip attitude", "tip", ("alpha", "beta", "gamma")))
    result = extended_mobility_analysis(arm, cands)
    assert [(row.l, row.j, row.b) for row in result.steps] == [(7, 6, 6), (9, 9, 5), (7, 7, 3), (6, 6, 0)]
    assert "spherical" in result.steps[2].constraint and "weld" in result.steps[3].constraint
    assert result.r == result.s == 6 and result.status == "admissible"


# ------------------------------------------------------------------------------------------------ rank tests


def test_finite_differences_match_the_analytic_two_link_jacobian():
    q = np.array([0.4, 1.1])
    J = finite_difference_jacobian(two_link_tip, q)
    assert np.max(np.abs(J - two_link_jacobian(q))) < 1e-8


def test_the_rank_test_agrees_with_gruebler_on_a_four_bar_and_a_pinned_two_link_arm():
    rm = mechanism_rank_mobility(four_bar())
    assert (rm.n, rm.k, rm.a) == (9, 8, gruebler(four_bar()).F) == (9, 8, 1)
    crank = rank_mobility(PlanarPoses(four_bar()).constraints, np.zeros(9),
                          [PlanarPoses(four_bar()).coordinate("tip", "x")])
    assert crank.b == 0
    arm = Mechanism("2-link arm, tip pinned")
    arm.add_link("upper", "fore")
    arm.add_joint("shoulder", "pin", "upper", "ground", active=True)
    arm.add_joint("elbow", "pin", "fore", "upper", active=True)
    arm.add_joint("tip", "pin", "fore", "ground", role="environment")
    q0 = np.array([0.4, 1.1])
    pinned = rank_mobility(lambda q: two_link_tip(q) - two_link_tip(q0), q0)
    assert pinned.a == gruebler(arm).F == 0


def test_the_rank_test_catches_the_double_parallelogram_gruebler_counts_as_rigid():
    m = four_bar(third_crank_x=0.5)
    count = gruebler(m)
    assert (count.l, count.f1, count.F) == (5, 6, 0)
    parallelogram = mechanism_rank_mobility(m)
    assert parallelogram.a == 1 and parallelogram.rank_env == 11
    skewed = mechanism_rank_mobility(four_bar(third_crank_x=0.5, skew=0.2))
    assert skewed.a == 0


def test_a_stretched_arm_with_its_tip_pinned_fools_gruebler():
    q0 = np.array([0.4, 0.0])
    stretched = rank_mobility(lambda q: two_link_tip(q) - two_link_tip(q0), q0)
    assert stretched.a == 1 and stretched.sigma_env[-1] < 1e-9


def test_the_cjtc_rank_test_admits_independent_rows_only():
    ok = cjtc_rank_test(two_link_jacobian([0.4, 1.1]))
    assert ok.admissible and (ok.r, ok.s, ok.rank) == (2, 2, 2)
    dependent = cjtc_rank_test([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0]])
    assert not dependent.admissible and dependent.rank == 1 and "rank J = 1 < r = 2" in dependent.message
    too_many = cjtc_rank_test(np.eye(3)[:, :2])
    assert not too_many.admissible and "r = 3 control variables > s = 2" in too_many.message


def test_numerical_rank_of_a_zero_or_empty_matrix_is_zero():
    assert numerical_rank(np.zeros((3, 2)))[0] == 0
    assert numerical_rank(np.zeros((0, 4)))[0] == 0
    assert numerical_rank(np.diag([1.0, 1e-3, 1e-9]))[0] == 2


def test_the_singularity_scanner_flags_a_stretched_arm_and_not_a_bent_one():
    configs = [(0.3, 1.2), (0.3, 0.0), (0.3, -0.8), (0.3, 1e-5)]
    scan = scan_singularities(two_link_jacobian, configs)
    assert scan.flagged == (1, 3)
    bent, stretched, nearly = scan.rows[0], scan.rows[1], scan.rows[3]
    assert (bent.rank, bent.flagged) == (2, False) and bent.ratio > 0.1
    assert stretched.rank == 1 and stretched.sigma_min < 1e-12 and "rank 1 < 2" in stretched.reason
    assert nearly.rank == 2 and nearly.ratio < 1e-3 and "σ_min/σ_max" in nearly.reason


# -------------------------------------------------------------------------------------------------- bad input


def test_bad_topology_input_raises_input_errors_naming_the_value():
    m = Mechanism("bad")
    m.add_link("a")
    with pytest.raises(InputError, match="'hinge'"):
        m.add_joint("j", "hinge", "a", "ground")
    with pytest.raises(InputError, match="link 'nowhere' does not exist"):
        m.add_joint("j", "pin", "a", "nowhere")
    with pytest.raises(InputError, match="'spherical' is not a planar joint"):
        m.add_joint("j", "spherical", "a", "ground")
    with pytest.raises(InputError, match="to itself"):
        m.add_joint("j", "pin", "a", "a")
    with pytest.raises(InputError, match="role = 'boss'"):
        m.add_joint("j", "pin", "a", "ground", role="boss")
    with pytest.raises(InputError, match="link 'b' does not exist"):
        m.add_point("p", "b")
    m.add_point("p", "a", (0.0, 0.0))
    with pytest.raises(InputError, match="link name = 'ground', expected a new"):
        m.add_link("ground")
    with pytest.raises(InputError, match="space = 'curved'"):
        Mechanism("bad", "curved")
    m.add_joint("roll", "rolling", "a", "ground", at=(0.0, 0.0))
    with pytest.raises(InputError, match="rolling contact"):
        PlanarPoses(m)


def test_bad_candidates_and_forces_raise_input_errors():
    m = libra_mechanism("u1")
    with pytest.raises(InputError, match="point 'foot4' does not exist"):
        extended_mobility_analysis(m, (ControlCandidate("x4", "foot4", ("x",)),))
    with pytest.raises(InputError, match="coordinate 'z'"):
        extended_mobility_analysis(m, (ControlCandidate("z3", "foot3", ("z",)),))
    with pytest.raises(InputError, match="expected either point and coord"):
        ForceCandidate("vague", point="foot2")
    with pytest.raises(InputError, match="expected more than joint 'act2'"):
        extended_mobility_analysis(brace_toy(), (), (ForceCandidate("f", joint="act2", relax_to="weld"),))
    with pytest.raises(InputError, match="control vector 'u4'"):
        libra_mobility("u4")
    with pytest.raises(InputError, match="supports = \\('foot4',\\)"):
        libra_mechanism("u1", supports=("foot4",))
