"""CRR leg: piecewise-linear (trapezoid) references and the cyclic walking path (pneumatic digest §5.2
Figs. 39, 44, 45; §7 item 11).

The thesis's RMSEs compare its simulation with the measured prototype; we have no measured data, so
the walking tests measure tracking of the reference. Thresholds marked "ours" are our choices.
"""

import math

import numpy as np
import pytest

from legsim.actuators.pneumatic.friction import Friction, FrictionModel, viscous_source
from legsim.errors import InputError
from legsim.robots.crr_leg import JointReference, LegBench
from legsim.robots.crr_leg._joint_kernels import NTAB, reference_at
from legsim.robots.crr_leg.geometry import JOINT_LIMITS, LINKS
from legsim.robots.crr_leg.walking import (
    NOMINAL_POSTURE_DEG,
    WalkingPath,
    foot_position,
    inverse_kinematics,
    lag_compensated_rmse,
    plot_tracking,
    tracking_rmse,
    walking_references,
)

d = np.radians
HOLDS = (JointReference.hold(d(20)), JointReference.hold(d(-30)))


def _compiled(ref, times):
    """The reference as the compiled controller evaluates it (joint Gamma's block)."""
    bench = LegBench()
    p = bench.params([*HOLDS, ref])
    block = bench.model.param_names.index("gamma_kind")  # the block's first slot
    return np.array([reference_at(t, p, block) for t in times])


# ------------------------------------------------------------------------------- references
def test_linear_table_interpolates_between_points_and_holds_outside_them():
    ref = JointReference(steps=((1.0, 0.0), (2.0, 1.0), (4.0, 1.0), (5.0, 0.0)), interpolate="linear")
    t = [0.0, 1.0, 1.5, 1.75, 3.0, 4.5, 5.0, 9.0]
    expected = [0.0, 0.0, 0.5, 0.75, 1.0, 0.5, 0.0, 0.0]
    np.testing.assert_allclose(_compiled(ref, t), expected, atol=1e-15)
    np.testing.assert_allclose(ref.values_at(t), expected, atol=1e-15)


def test_a_period_repeats_the_table_and_the_linear_kind_ramps_back_to_the_first_point():
    lin = JointReference(steps=((1.0, 0.0), (2.0, 1.0), (3.0, 1.0)), interpolate="linear", period=4.0)
    t = [0.5, 1.5, 2.5, 4.0, 5.0, 5.5, 7.0, 9.5]
    expected = [0.0, 0.5, 1.0, 0.5, 0.0, 0.5, 1.0, 0.5]   # 3 → 5: 1 → 0 back to the start
    np.testing.assert_allclose(_compiled(lin, t), expected, atol=1e-12)
    np.testing.assert_allclose(lin.values_at(t), expected, atol=1e-12)
    held = JointReference(steps=((1.0, 0.0), (2.0, 1.0)), period=3.0)
    t = [0.5, 1.5, 3.5, 4.5, 5.5, 8.5]
    expected = [0.0, 0.0, 1.0, 0.0, 1.0, 1.0]
    np.testing.assert_allclose(_compiled(held, t), expected)
    np.testing.assert_allclose(held.values_at(t), expected)


def test_trapezoid_is_ramp_hold_ramp():
    tr = JointReference.trapezoid(0.2, 1.0, t_start=1.0, ramp=0.5, hold=2.0)
    t = [0.0, 1.0, 1.25, 1.5, 3.0, 3.5, 3.75, 4.0, 6.0]
    np.testing.assert_allclose(_compiled(tr, t), [0.2, 0.2, 0.6, 1.0, 1.0, 1.0, 0.6, 0.2, 0.2],
                               atol=1e-12)


def test_bad_references_and_benches_are_rejected_naming_the_value():
    with pytest.raises(InputError, match="increase strictly"):
        JointReference(steps=((0.0, 0.1), (1.0, 0.2), (1.0, 0.3)), interpolate="linear")
    with pytest.raises(InputError, match=f"{NTAB + 1} steps, at most {NTAB}"):
        JointReference(steps=tuple((float(i), 0.0) for i in range(NTAB + 1)))
    with pytest.raises(InputError, match="interpolate='cubic'"):
        JointReference(steps=((0.0, 0.1),), interpolate="cubic")
    with pytest.raises(InputError, match="period=1.0"):
        JointReference(steps=((0.0, 0.1), (1.0, 0.2)), interpolate="linear", period=1.0)
    with pytest.raises(InputError, match="period=2.0"):
        JointReference.trapezoid(0.0, 1.0, 0.0, ramp=1.0, hold=0.5, period=2.0)
    with pytest.raises(InputError, match="friction="):
        LegBench(friction=Friction(model=FrictionModel.COULOMB))


# ------------------------------------------------------------------------------- kinematics
def test_foot_position_matches_the_dh_chain_of_table_1():
    # Independent planar formula of the leg (geometry.py's axes): reach r and height z in the
    # Alpha plane, then the Alpha rotation about z with the coxa along +y at Alpha = 0.
    a1, a2, a3 = LINKS
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = np.array([rng.uniform(*lim) for lim in JOINT_LIMITS])
        r = a1 + a2 * math.cos(q[1]) + a3 * math.cos(q[1] + q[2])
        z = -a2 * math.sin(q[1]) - a3 * math.sin(q[1] + q[2])
        np.testing.assert_allclose(foot_position(q), [-r * math.sin(q[0]), r * math.cos(q[0]), z],
                                   atol=1e-12)


def test_inverse_kinematics_round_trips_along_the_whole_path_inside_the_joint_ranges():
    path = WalkingPath()
    q = d(NOMINAL_POSTURE_DEG)
    lo = np.array([lim[0] for lim in JOINT_LIMITS])
    hi = np.array([lim[1] for lim in JOINT_LIMITS])
    for pt in path.foot_point(np.linspace(0.0, 1.0, 200, endpoint=False)):
        q = inverse_kinematics(pt, q)
        assert np.linalg.norm(foot_position(q) - pt) < 1e-9
        assert np.all(q > lo) and np.all(q < hi)
    # and IK recovers joint angles it did not produce (random postures within the ranges)
    rng = np.random.default_rng(11)
    for _ in range(5):
        q_true = np.array([rng.uniform(lo[j] + 0.1, hi[j] - 0.1) for j in range(3)])
        np.testing.assert_allclose(inverse_kinematics(foot_position(q_true), q_true + 0.05), q_true,
                                   atol=1e-9)


def test_walking_path_has_fig_44_shape_rear_bottom_up_front_bottom_then_dragged_back():
    path = WalkingPath(stride=0.16, lift=0.05, swing_fraction=0.4)
    c = path.ground_centre()
    pts = path.foot_point([0.0, 0.2, 0.4, 0.7, 1.0 - 1e-9])
    np.testing.assert_allclose(pts[0], c + [-0.08, 0.0, 0.0], atol=1e-12)      # rear bottom
    np.testing.assert_allclose(pts[1], c + [0.0, 0.0, 0.05], atol=1e-12)       # apex
    np.testing.assert_allclose(pts[2], c + [0.08, 0.0, 0.0], atol=1e-12)       # front bottom
    np.testing.assert_allclose(pts[3], c, atol=1e-12)                          # mid drag
    np.testing.assert_allclose(pts[4], pts[0], atol=1e-6)                      # closed cycle
    stance = path.foot_point(np.linspace(0.4, 0.99, 30))
    assert np.all(stance[:, 2] == c[2]) and np.all(np.diff(stance[:, 0]) < 0.0)


def test_walking_references_pass_through_the_inverse_kinematics_of_the_path_samples():
    path = WalkingPath()
    refs = walking_references(path)
    times, pts = path.knots()
    assert len(refs[0].steps) == len(times) <= NTAB
    q = np.array([[r.values_at(t) for r in refs] for t in times])
    for qi, pt in zip(q, pts, strict=True):
        assert np.linalg.norm(foot_position(qi) - pt) < 1e-9
    assert times[-1] == pytest.approx(path.duration)
    # one cycle repeated through JointReference.period
    one = WalkingPath(periods=(2.0,))
    cyc = walking_references(one, repeat=True)
    t = np.linspace(1.0, 3.0, 50)
    for r in cyc:
        assert r.period == 2.0
        np.testing.assert_allclose(r.values_at(t + 2.0), r.values_at(t), atol=1e-12)


def test_unreachable_paths_are_rejected():
    with pytest.raises(InputError, match="out of the leg's reach"):
        inverse_kinematics([0.0, 0.9, 0.0])
    with pytest.raises(InputError, match="joint range|out of the leg's reach"):
        walking_references(WalkingPath(stride=0.6))
    with pytest.raises(InputError, match="at most 64"):
        WalkingPath(periods=(1.0,) * 8)
    with pytest.raises(InputError, match="single cycle"):
        walking_references(WalkingPath(), repeat=True)
    with pytest.raises(InputError, match="swing_fraction=1.2"):
        WalkingPath(swing_fraction=1.2)


# ------------------------------------------------------------------------------- Fig. 39
TRAPEZOID = JointReference.trapezoid(d(40), d(80), t_start=1.5, ramp=1.0, hold=1.0, period=4.0)
RAMP_STARTS = (1.5, 3.5, 5.5, 7.5)
RAMP_RATE = d(40) / 1.0


@pytest.fixture(scope="module")
def trapezoid_runs():
    refs = [*HOLDS, TRAPEZOID]
    return {"stribeck": LegBench().run(refs, 9.5),
            "viscous": LegBench(friction=viscous_source()).run(refs, 9.5)}


MOVED = math.radians(0.5)


def _start_delay(run, t_ramp, threshold=MOVED):
    """Time [s] from a ramp's start until Gamma has moved ``threshold`` from where it was."""
    i0 = np.searchsorted(run.t, t_ramp)
    k = np.argmax((run.t > t_ramp) & (np.abs(run.q[:, 2] - run.q[i0, 2]) > threshold))
    return run.t[k] - t_ramp, i0, k


def test_gamma_trapezoid_starts_late_while_pressure_builds_past_stiction(trapezoid_runs):
    # Fig. 39: "at the start of each command, the response takes a moment to actually respond,
    # waiting until the pressures build up". A loop without stiction (viscous friction, b = 70 N s/m)
    # also needs time to move 0.5 deg on a ramp (its lag); stiction must add to it (ours: 20 ms on
    # the first ramp, from a settled hold) and the chamber pressure difference must change more
    # while the joint waits.
    fric, visc = trapezoid_runs["stribeck"], trapezoid_runs["viscous"]
    for t_ramp in RAMP_STARTS:
        assert _start_delay(fric, t_ramp)[0] > _start_delay(visc, t_ramp)[0]
    delay, i0, k = _start_delay(fric, RAMP_STARTS[0])
    delay_v, i0v, kv = _start_delay(visc, RAMP_STARTS[0])
    assert delay > 0.05 and delay > delay_v + 0.02
    dp = fric.p_cap[:, 2] - fric.p_rod[:, 2]
    dp_v = visc.p_cap[:, 2] - visc.p_rod[:, 2]
    assert abs(dp[k] - dp[i0]) > 3.0 * abs(dp_v[kv] - dp_v[i0v])


def test_gamma_then_tracks_each_ramp_and_hold(trapezoid_runs):
    run = trapezoid_runs["stribeck"]
    for t_ramp in RAMP_STARTS[::2]:                         # the rising ramps
        late = (run.t > t_ramp + 0.5) & (run.t < t_ramp + 1.0)
        assert np.mean(run.v[late, 2]) == pytest.approx(RAMP_RATE, rel=0.15)
        # error within the ramp rate times Gamma's sine lag bound (0.2 s, digest §5.2)
        assert np.abs(run.q[late, 2] - run.ref[late, 2]).max() < RAMP_RATE * 0.2
        held = (run.t > t_ramp + 1.5) & (run.t < t_ramp + 2.0)
        assert np.degrees(np.abs(run.q[held, 2] - d(80)).max()) < 3.5        # ours


# ------------------------------------------------------------------------------- Figs. 44, 45
PATH = WalkingPath()


@pytest.fixture(scope="module")
def walking_runs():
    refs = walking_references(PATH)
    return {s: LegBench(gain_scale={"alpha": s}).run(refs, PATH.duration) for s in (1.0, 0.75)}


def _cycle_rmse(run):
    out, t0 = [], PATH.t_start
    for T in PATH.periods:
        out.append(np.degrees(tracking_rmse(run, t0, t0 + T)))
        t0 += T
    return np.array(out)


def test_walking_path_tracking_beta_and_gamma_within_2_5_degrees_once_the_loop_lag_is_removed(
        walking_runs):
    # Fig. 44: Beta and Gamma RMSE < 2.5 deg (sim vs robot; both lag the command alike). Against
    # the reference itself the default gains give larger RMSEs (Beta 3.9, Gamma 4.1 deg over the
    # run), dominated by the loop's 0.15-0.2 s lag; removing that delay leaves the shape error.
    run = walking_runs[1.0]
    shape, lag = lag_compensated_rmse(run, PATH.t_start, PATH.duration)
    assert np.degrees(shape[1]) < 2.5 and np.degrees(shape[2]) < 2.5
    assert np.all((lag > 0.1) & (lag < 0.25))
    # a lagging loop's error grows with the cycle speed: slow < medium < fast (pairs of cycles)
    per_cycle = _cycle_rmse(run)
    by_speed = per_cycle.reshape(3, 2, 3).mean(axis=1)
    assert np.all(np.diff(by_speed, axis=0) > 0.0)
    raw = np.degrees(tracking_rmse(run, PATH.t_start, PATH.duration))
    assert np.all(raw < 6.0)                                             # ours: no divergence


def test_alpha_gain_cut_by_25_percent_increases_alpha_lag_and_rmse_and_leaves_beta_gamma(
        walking_runs):
    # Fig. 45: the thesis cut Alpha's gain by 25 % to remove its oscillation (RMSE 10.2 -> 7.3 deg vs
    # the robot, "inflated by phase lag"). Our Alpha does not oscillate on this path, so the cut
    # only adds lag: its tracking RMSE rises; Beta and Gamma barely change.
    full = tracking_rmse(walking_runs[1.0], PATH.t_start, PATH.duration)
    cut = tracking_rmse(walking_runs[0.75], PATH.t_start, PATH.duration)
    assert cut[0] > 1.1 * full[0]
    assert np.degrees(np.abs(cut[1:] - full[1:])).max() < 0.05
    lag_full = lag_compensated_rmse(walking_runs[1.0], PATH.t_start, PATH.duration)[1]
    lag_cut = lag_compensated_rmse(walking_runs[0.75], PATH.t_start, PATH.duration)[1]
    assert lag_cut[0] > lag_full[0]


def test_tracking_plot_is_written_as_png(walking_runs, tmp_path):
    out = tmp_path / "walking.png"
    plot_tracking(walking_runs[1.0], out, title="walking path, default gains")
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
