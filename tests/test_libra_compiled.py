"""LIBRA's compiled CJTC controller (robots/libra/_cjtc.py) against the Python one and the multibody model:
the planar kinematics it carries, the torques cycle by cycle, a whole run, and its refusals."""

import numpy as np
import pytest

from legsim.control import Kinematics
from legsim.errors import InputError, SimulationError
from legsim.multibody import RobotBuilder
from legsim.robots.libra import _cjtc as C
from legsim.robots.libra.control import LibraController, variables
from legsim.robots.libra.experiments import climb, initial_configuration, options, stage1_measures
from legsim.robots.libra.gait import Path, Stage, climb_cycle
from legsim.robots.libra.robot import build


@pytest.fixture(scope="module")
def libra():
    return build()


def test_the_planar_kinematics_are_the_multibody_models(libra):
    # values, gradients and gravity torques at random configurations, against the generic control
    # variables (multibody forward kinematics and frame Jacobians) and RNEA's gravity torques
    params, _ = C.pack(libra, climb_cycle(libra.ladders))
    kin = Kinematics(libra.mb)
    v = variables(kin)
    rng = np.random.default_rng(3)
    pose = np.empty((libra.mb.nbody, 3))
    row = np.empty(C.NQ)
    g = np.empty(C.NQ)
    for _ in range(20):
        q = rng.uniform(-2.0, 2.0, C.NQ)
        C.poses(params, q, pose)
        kin.at(q)
        for i, name in enumerate(C.VARIABLES):
            value = C.variable(params, pose, i, row)
            assert value == pytest.approx(v[name]._value(kin, None), abs=1e-13)
            np.testing.assert_allclose(row, v[name]._gradient(kin, None), rtol=0, atol=1e-13)
        C.gravity_torques(params, pose, g, row)
        np.testing.assert_allclose(g, kin.gravity_torques(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("gravity", ["full", "lumped"])
def test_cycle_by_cycle_the_compiled_controller_gives_the_python_controllers_torques(libra, gravity):
    # both fed the same encoder readings (those of a whole four-stage climb under the Python controller:
    # backlash, quantisation, three stage switches with their bumpless starts, the blends; the lumped
    # compensation climbs stage 1 only: in stage 4 the robot sags until limb 1 cannot reach its rung)
    stages = climb_cycle(libra.ladders, stages=(1, 2, 3, 4) if gravity == "full" else (1,))
    seen = []

    class Spy(LibraController):
        def __call__(self, t, s):
            seen.append((t, np.array(s.enc)))
            return super().__call__(t, s)

    ctrl = Spy(libra, stages, gravity=gravity)
    libra.robot.simulate(stages[-1].t1, ctrl, q0=initial_configuration(libra, stages[0]), progress=False,
                         options=options())
    ref = ctrl.records()
    params, memory = C.pack(libra, stages, gravity=gravity)
    sensors, commands = np.zeros(len(libra.robot.model.state_names)), np.zeros(6)
    tau, u_cmd = [], []
    for t, enc in seen:
        sensors[:6] = enc
        C.libra_cjtc(t, sensors, params, commands, memory)
        tau.append(commands.copy())
        u_cmd.append(memory[C.M_U_CMD:C.M_U_CMD + 6].copy())
    assert set(ref["stage"]) == set(range(len(stages)))
    np.testing.assert_allclose(tau, ref["tau"], rtol=0, atol=1e-10)  # measured 2.9e-14 N m
    np.testing.assert_allclose(u_cmd, ref["u_cmd"], rtol=0, atol=1e-12)


def test_a_compiled_climb_is_the_python_climb(libra):
    """With continuous encoders the two closed loops stay within round-off of each other (measured 2.9e-12
    m, rad; torques 1.6e-9 N m). With the encoders' whole counts (the default), a round-off difference of
    a true angle can straddle a count boundary: on a machine with FMA (the compiled controller's sums are
    fused, numpy's are not) the angles differed by 2e-9 rad at t = 4.9 s when one of them crossed it, the
    rate estimate differed by a count for two ticks (torques 2.8e-3 N m apart at ticks 1470 and 1471, then
    1e-15 again) and the states by 7.8e-7 afterwards; from then on other counts flip (342 of the 2100 ticks
    end with torques more than 1e-8 apart). So the default runs are held to what the experiment reports
    (stages, settle time) and to states within 1e-5."""
    stages = climb_cycle(libra.ladders, stages=(1,))
    fast = climb(libra, stages, controller_kw={"quantise": False})
    slow = climb(libra, stages, compiled=False, controller_kw={"quantise": False})
    assert fast.controller is None and slow.controller is not None
    nx = libra.robot.model.nx  # the compiled controller's memory is named in the run (session 43)
    assert fast.result.state_names[nx:nx + 3] == ("cjtc_stage", "cjtc_t_enter", "cjtc_started")
    for k in fast.true:
        np.testing.assert_allclose(fast.true[k], slow.true[k], rtol=0, atol=1e-8)
    np.testing.assert_allclose(fast.tau, slow.tau, rtol=0, atol=1e-8)
    fast, slow = climb(libra, stages), climb(libra, stages, compiled=False)
    np.testing.assert_array_equal(fast.stage, slow.stage)
    assert stage1_measures(fast)["settle_time"] == stage1_measures(slow)["settle_time"]
    for k in fast.true:  # measured 7.8e-7 m, rad
        np.testing.assert_allclose(fast.true[k], slow.true[k], rtol=0, atol=1e-5)


def test_a_support_out_of_reach_stops_the_compiled_run_saying_why(libra):
    st = climb_cycle(libra.ladders, stages=(1,))[0]
    held = {n: Path([(0.0, st.paths[n](0.0)[0])]) for n in st.paths}
    far = Stage("far", "u1", st.pinned, ("foot2", 5.0), held, 0.0, 0.1)  # foot 2 on a rung 5 m up
    with pytest.raises(SimulationError, match="contact constraints cannot be met"):
        climb(libra, [far], q0=initial_configuration(libra, st))


def test_a_model_that_is_not_a_planar_tree_is_refused():
    b = RobotBuilder("tilted")
    b.add_body("a", "world", "revolute", axis=(1, 0, 0), mass=1.0, inertia=(0.1, 0.1, 0.1))
    lib = build()
    lib.mb = b.compile()
    with pytest.raises(InputError, match="not a planar tree"):
        C.pack(lib, [Stage("s", "u1", ("foot1", np.zeros(2)), ("foot2", 0.0), {"x_b": Path([(0.0, 0.0)])},
                           0.0, 1.0)])


def test_the_python_controllers_options_are_checked_when_it_is_made_and_a_bad_plot_folder_leaves_no_figure(
        libra, tmp_path):
    """Before session 41 ``LibraController`` stored its gains unchecked: ``gain_kw={"kp": 1.0}`` was accepted
    and the climb stopped at its first control tick (gains() got an unexpected keyword argument 'kp'), and
    ``plot_climb`` drew a figure with pyplot before it found ``out`` unusable (None: TypeError), leaving the
    figure open (pyplot keeps it: after 20 such calls, a RuntimeWarning). Both are told before anything is
    made now, with the compiled controller's options checked the same way."""
    import matplotlib.pyplot as plt

    from legsim.robots.libra.demo import plot_climb
    from legsim.robots.libra.experiments import compiled_model

    stages = climb_cycle(libra.ladders, stages=(1,))
    with pytest.raises(InputError, match="LibraController: 'gain_kw' key 'kp' is no gain"):
        LibraController(libra, stages, gain_kw={"kp": 1.0})
    with pytest.raises(InputError, match="LIBRA controller: 'gain_kw': gains: 'foot_kd' = -1.0"):
        compiled_model(libra, stages, controller_kw={"gain_kw": {"foot_kd": -1.0}})
    with pytest.raises(InputError, match="compiled_model: 'controller_kw' key 'blend_time' is no controller "
                                         "option \\(did you mean 'blend'\\?\\)"):
        compiled_model(libra, stages, controller_kw={"blend_time": 1.0})
    run = climb(libra, stages)
    (tmp_path / "afile").write_text("")
    figures = plt.get_fignums()
    for out in (None, tmp_path / "afile"):
        with pytest.raises(InputError, match="plot_climb: 'out'"):
            plot_climb(run, out)
    assert plt.get_fignums() == figures


def test_the_compiled_models_controller_values_are_named_and_its_layout_cannot_be_set(libra):
    """Before session 43 the compiled controller's 424 values were ``ctrl_p<k>`` without ranges: setting
    ``ctrl_p0`` (the body count) by name made the controller read past its parameters. Every value now
    has a name saying what it is; a gain set by name is the value :func:`pack` puts there for that gain,
    and the layout refuses any value but its own, by name or in a whole vector."""
    from legsim.robots.libra.control import TUNED_KP
    from legsim.robots.libra.experiments import compiled_model

    stages = climb_cycle(libra.ladders)
    model = compiled_model(libra, stages)
    params, memory = C.pack(libra, stages)
    own = len(libra.robot.model.param_names)
    names = model.param_names[own:]
    assert len(names) == params.size == len(set(names)) and all(n.startswith("cjtc_") for n in names)
    at = dict(zip(names, params, strict=True))
    assert at["cjtc_n_bodies"] == libra.mb.nbody - 1 and at["cjtc_n_stages"] == len(stages)
    assert at["cjtc_period"] == libra.robot.control_period
    for k, st in enumerate(stages):
        assert (at[f"cjtc_s{k}_t0"], at[f"cjtc_s{k}_t1"]) == (st.t0, st.t1)
        for v, path in st.paths.items():
            assert [at[f"cjtc_s{k}_{v}_t{i}"] for i in range(path.t.size)] == path.t.tolist()
            assert [at[f"cjtc_s{k}_{v}_v{i}"] for i in range(path.v.size)] == path.v.tolist()
    mem = model.state_names[-memory.size:]
    assert mem[C.M_STAGE] == "cjtc_stage" and mem[C.M_TAU:C.M_TAU + 6][0] == "cjtc_tau_theta1"
    assert model.describe_param("cjtc_s0_kp_theta_b").startswith("> 0 N m/rad")

    body_kp = np.array(TUNED_KP[:3])
    body_kp[1] *= 2.0
    doubled, _ = C.pack(libra, stages, gain_kw={"body_kp": body_kp})
    by_name = model.params({f"cjtc_s{k}_kp_y_b": 2.0 * at[f"cjtc_s{k}_kp_y_b"] for k in range(len(stages))})
    np.testing.assert_array_equal(by_name[own:], doubled)

    layout = [n for n in names if model.describe_param(n).endswith("fixed: the compiled controller's layout")]
    assert {"cjtc_n_bodies", "cjtc_off_waypoints", "cjtc_body_parent", "cjtc_foot2_body", "cjtc_s3_var_y_b",
            "cjtc_s0_x3_count"} <= set(layout)
    for name in layout:
        with pytest.raises(InputError, match=f"parameter '{name}' = .*fixed: the compiled controller's"):
            model.params({name: at[name] + 1.0})
    whole = model.param_defaults.copy()
    whole[own + names.index("cjtc_n_bodies")] = 1e5
    with pytest.raises(InputError, match="'cjtc_n_bodies' = 100000"):
        model.params(whole)
    with pytest.raises(InputError, match="'cjtc_s0_kp_y_b' = 0: out of range, expected > 0 N/m"):
        model.params({"cjtc_s0_kp_y_b": 0.0})
