"""T13 (issue 15; digest §3.5-§3.7, §6.2): the impact-angle rolling controller driving the full RATS
(rolling contact set, spool valves at 0.689 MPa) at 1 kHz for 8 s from rest.

The supply is held at 0.689 MPa (a 1 m^3 tank): with the 0.84 L core tank the 33 ms firings (about 20
per second) empty it within 4-5 s (measured: 0.689 -> 0.09 MPa in 8 s, the robot stops), which cannot
give the thesis's "continual acceleration" over 8 s (Fig 6.20); the thesis does not say what supply
its rolling simulations had. The thesis gives no rolling numbers; the targets are the digest's."""

from __future__ import annotations

import numpy as np
import pytest

from legsim.robots.rats.experiments import SIM_ROLLING_PARAMS
from legsim.robots.rats.robot import build
from legsim.robots.rats.rolling import RollingController, leg_angles


@pytest.fixture(scope="module")
def rats():
    return build(contact_set="rolling", valve="spool", p0=0.689e6, tank_volume=1.0)


def _roll(rats, stance, yaw, heading, t_final=8.0, v_desired=None, integrator="rk4"):
    """Run the controller; heading: angle [rad] or a function of t. Returns (result, lateral sides)."""
    ctl = RollingController(SIM_ROLLING_PARAMS)
    sides = []

    def policy(obs):
        a = heading(obs.t) if callable(heading) else heading
        h = np.array([np.cos(a), np.sin(a), 0.0])
        fire = ctl.step(obs.t, obs.rotation, obs.omega, obs.position[2], obs.velocity, h, v_desired=v_desired)
        if fire:
            cor = leg_angles(obs.rotation, h).theta_cor
            sides.extend(float(np.sign(cor[leg])) for leg, _ in fire if abs(cor[leg]) > 0.3)
        return fire

    res = rats.simulate(t_final, policy, q0=rats.q_rest(stance, yaw),
                        options=rats.default_options(integrator))
    assert res.status == "done"
    return res, np.array(sides)


def _speed(res, t0, t1):
    m = (res.t >= t0) & (res.t < t1)
    d = res.x[m][-1, :2] - res.x[m][0, :2]
    return float(np.hypot(*d) / (res.t[m][-1] - res.t[m][0])), float(np.arctan2(d[1], d[0]))


def _wrap(a):
    return (a + np.pi) % (2 * np.pi) - np.pi


@pytest.mark.parametrize("integrator", ["rk4", "euler"])
def test_rolls_from_rest_at_random_orientations(rats, integrator):
    """From rest on a random stance and yaw toward a random heading, with the controller tuned for this
    robot (experiments.SIM_ROLLING_PARAMS: Table 6.2 re-tuned by Nelder-Mead on other starts): rolling
    starts (> 2 m in 8 s) in >= 90 % of 10 trials; the final displacement heading is within 0.15 rad
    of the command in >= 90 % (measured 9 of 10, errors 0.001-0.049 rad and 0.177 rad for the start on
    stance 17, which rolls 9 m; 10 of 10 with a largest error of 0.108 rad when SIM_ROLLING_PARAMS
    was tuned: the runs are chaotic, and the robot's model has changed in details since; with Table
    6.2's values 6 of 10, errors up to 0.66 rad); speed rises (the last second faster than the second one, no
    brake; measured 0.6-1.2 -> 1.2-6.0 m/s); alternating left and right lateral firings
    (|theta_cor| > 0.3 rad) appear: the side changes between consecutive lateral firings more than
    once a second. The same with the Euler option (robot.EULER_STEP; measured: 10 of 10 start and hold
    the heading, errors up to 0.054 rad; 9 of 10 speed up, the start on stance 5 rolls 5.3 m)."""
    rng = np.random.default_rng(7)
    started = on_course = faster = alternating = 0
    for _ in range(10):
        stance, yaw, head = int(rng.integers(20)), rng.uniform(-np.pi, np.pi), rng.uniform(-np.pi, np.pi)
        res, sides = _roll(rats, stance, yaw, head, integrator=integrator)
        d = res.x[-1, :2] - res.x[0, :2]
        started += np.hypot(*d) > 2.0
        on_course += abs(_wrap(np.arctan2(d[1], d[0]) - head)) <= 0.15
        faster += _speed(res, 7.0, 8.0)[0] > _speed(res, 1.0, 2.0)[0]
        alternating += (sides[1:] != sides[:-1]).sum() > 8
    assert started >= 9 and on_course >= 9 and faster >= 9 and alternating >= 9, \
        (started, on_course, faster, alternating)


@pytest.mark.parametrize("v_desired", [2.5, 3.5])
def test_brake_holds_a_commanded_speed(rats, v_desired):
    """Brake (6.20)-(6.22) at high commands: the mean speed over the last 4 s of 12 s is within 15 % of
    the command (measured +3.9 % at 2.5 m/s, -3.8 % at 3.5 m/s; without the brake the robot passes
    5 m/s by 8 s). The brake's gains dv_max, K_I, c_ff are RollingParams' untuned defaults (the
    source does not give its own)."""
    res, _ = _roll(rats, 5, 1.0, 0.0, t_final=12.0, v_desired=v_desired)
    v, _ = _speed(res, 8.0, 12.0)
    assert abs(v - v_desired) <= 0.15 * v_desired, v


@pytest.mark.parametrize("step_deg", [30.0, 45.0])
def test_turning_converges_after_a_heading_step(rats, step_deg):
    """Turning (6.23)-(6.25): rolling toward 0 rad, the command steps by 30 or 45 degrees at 5 s (speed
    held at 3 m/s); the direction of travel over the last second of 10 s is within 0.2 rad of the new
    heading (twice the 0.1 rad the straight-line controller tolerates without turning, §3.7), where
    it started 0.52 or 0.79 rad off (measured: 34.0 and 45.1 degrees)."""
    new = np.radians(step_deg)
    res, _ = _roll(rats, 5, 1.0, lambda t: 0.0 if t < 5.0 else new, t_final=10.0, v_desired=3.0)
    _, before = _speed(res, 4.0, 5.0)
    _, after = _speed(res, 9.0, 10.0)
    assert abs(_wrap(before - new)) > 0.4
    assert abs(_wrap(after - new)) < 0.2, (np.degrees(before), np.degrees(after))


def test_nelder_mead_tuning_scores_what_it_returns_alike_on_one_process_and_on_a_pool(capsys):
    """experiments.tune_rolling (the tuning that produced SIM_ROLLING_PARAMS, 17 min) on a small case:
    one parameter, three starts of 1 s, at most 3 evaluations of ROLL_OBJECTIVE, each evaluation's starts
    rolled through a legsim.sweep.FunctionPool. In this process ("serial") and on 2 worker processes
    kept up for the whole tuning, the same evaluations and optimum to the bit; only the tuned field
    moves; the returned parameters score the returned objective value when rolled again here; the
    progress bar counts the evaluations on stderr."""
    import dataclasses

    from legsim.robots.rats.experiments import T13_ROBOT, roll_trial, tune_rolling
    from legsim.robots.rats.rolling import RollingParams

    base = dataclasses.replace(SIM_ROLLING_PARAMS, phi=0.09)
    kw = {"starts": 3, "t_final": 1.0, "maxfev": 3, "base": base}
    prm, res = tune_rolling(("phi",), backend="serial", progress=True, **kw)
    assert f"{res.nfev}/3" in capsys.readouterr().err
    prm2, res2 = tune_rolling(("phi",), workers=2, **kw)
    assert (prm2, res2.fun, res2.nfev) == (prm, res.fun, res.nfev)
    assert isinstance(prm, RollingParams) and res.nfev <= 3
    assert dataclasses.replace(prm, phi=base.phi) == base and prm.phi == res.x[0]
    rats = build(**T13_ROBOT)
    rng = np.random.default_rng(11)
    score = []
    for _ in range(3):
        s, y, h = int(rng.integers(20)), rng.uniform(-np.pi, np.pi), rng.uniform(-np.pi, np.pi)
        r = roll_trial(rats, prm, stance=s, yaw=y, heading=h, t_final=1.0)
        score.append(abs(r.heading_error) + (r.distance < 2.0))
    assert res.fun == np.mean(score)


def test_a_roll_trial_of_too_few_records_in_a_second_is_refused_naming_res():
    """Before session 42 ``RollTrial.of`` divided 0/0 (a NaN speed and a RuntimeWarning) when its first
    or last second held one record, and raised IndexError when it held none."""
    from types import SimpleNamespace

    from legsim.errors import InputError
    from legsim.robots.rats.experiments import RollTrial

    t = np.arange(0.0, 2.01, 0.5)                 # a record every 0.5 s: two in each second
    x = np.zeros((t.size, 7))
    x[:, 0] = t                                     # 1 m/s along +x
    trial = RollTrial.of(SimpleNamespace(t=t, x=x), 0.0)
    assert (trial.distance, trial.heading_error, trial.v_first, trial.v_last) == (2.0, 0.0, 1.0, 1.0)
    assert RollTrial.of(SimpleNamespace(t=t, x=x), np.pi / 2).heading_error == pytest.approx(-np.pi / 2)
    for res in (SimpleNamespace(t=t[::2], x=x[::2]), SimpleNamespace(t=t[:1], x=x[:1])):
        with pytest.raises(InputError, match=r"RollTrial.of: 'res' holds [01] record"):
            RollTrial.of(res, 0.0)
    for res in (None, SimpleNamespace(t=t, x=x[:, :1]), SimpleNamespace(t=t[:-1], x=x)):
        with pytest.raises(InputError, match="(?s)RollTrial.of: .res. = .*expected the Result of roll"):
            RollTrial.of(res, 0.0)
