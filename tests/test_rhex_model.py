"""Hexapod statics, init partition, touchdown/liftoff resets, inputs (SimSect digest §4.8, §6.3 9–10)."""

import numpy as np
import pytest

from legsim.errors import InputError
from legsim.hybrid import simulate
from legsim.robots.rhex import _hooks, build_model, default_options
from legsim.robots.rhex.model import GUARD_NAMES, OUTPUT_NAMES, mode_name, stance_mask
from legsim.robots.rhex.params import NX, P_AX, X_POS, X_TOE, X_TOEV
from legsim.robots.rhex.terrain import terrain_height, terrain_params
from legsim.validation import simsect as case  # measurements shared with `legsim report`

M, G = 7.0, 9.81


def _vertical_legs_state(model, z=0.2, toe_z=None):
    """Level body at height z with every toe straight below its hip at toe_z (default 0)."""
    p = model.params()
    x = model.state({"z": z})
    for i in range(6):
        x[X_TOE + 3 * i:X_TOE + 3 * i + 3] = [p[P_AX + i], p[P_AX + 6 + i],
                                              0.0 if toe_z is None else toe_z[i]]
    return x


def test_six_legs_in_stance_with_zero_hip_torque_settle_where_the_leg_springs_carry_the_weight():
    """Sum k_rho (rho0 - rho) = M g with sum k_rho = 4000 N/m: sag M g / 4000 (digest §6.3 item 9)."""
    res = case.hexapod_six_leg_statics()  # 3 s from _vertical_legs_state(model), zero hip torque
    assert res.mode[0] & 63 == 63 and np.all(res.mode & 63 == 63)     # never lifts off
    z = res.x[-1, X_POS + 2]
    assert z == pytest.approx(0.2 - M * G / 4000.0, abs=1e-6)
    np.testing.assert_allclose(res.x[-1, X_POS:X_POS + 2], 0.0, atol=1e-9)
    np.testing.assert_allclose(res.x[-1, :9], np.eye(3).ravel(), atol=1e-8)
    tau = res.y[:, [OUTPUT_NAMES.index(f"tau{i}") for i in range(6)]]
    assert np.all(tau == 0.0)


def test_one_tripod_in_stance_settles_at_twice_the_sag():
    """Tripod {0, 2, 4}: 500 + 1000 + 500 N/m, sag M g / 2000 (digest §6.3 item 9)."""
    # toes of tripod B 0.1 m up; the vector field integrated 6 s with LSODA (rtol 1e-9)
    sol, mode = case.hexapod_tripod_statics()
    assert mode & 63 == 0b010101
    assert sol.success
    assert sol.y[X_POS + 2, -1] == pytest.approx(0.2 - M * G / 2000.0, abs=1e-6)
    np.testing.assert_allclose(sol.y[:9, -1], np.eye(3).ravel(), atol=1e-7)


def test_init_partition_marks_exactly_the_toes_on_the_ground_as_stance():
    model = build_model()
    p = model.params()
    # clock rest posture: tripod A straight down, tripod B straight up
    _, mode = model.init_partition(model.state({"z": 0.19}), p)
    assert mode & 63 == 0b010101
    _, mode = model.init_partition(model.state({"z": 0.25}), p)
    assert mode & 63 == 0
    # explicit toes: those at or below the terrain are stance, and are put on it at rest
    m2 = build_model(posture="state", **terrain_params("sinusoidal", 0.02, 5.0, 3.0))
    p2 = m2.params()
    x0 = _vertical_legs_state(m2, z=0.3, toe_z=[0.5, -0.05, 0.1, -0.01, 0.2, 0.3])
    x0[X_TOEV:X_TOEV + 18] = 1.0
    x, mode = m2.init_partition(x0, p2)
    heights = [terrain_height(p2, x0[X_TOE + 3 * i], x0[X_TOE + 3 * i + 1]) for i in range(6)]
    expected = sum(1 << i for i in range(6) if x0[X_TOE + 3 * i + 2] <= heights[i])
    assert mode & 63 == expected == 0b001010
    for i in (1, 3):
        assert x[X_TOE + 3 * i + 2] == pytest.approx(heights[i])
        assert np.all(x[X_TOEV + 3 * i:X_TOEV + 3 * i + 3] == 0.0)
    assert x[X_TOE + 2] == 0.5 and x[X_TOEV] == 1.0          # flight toe untouched
    assert "stance 1,3" in mode_name(mode)


def _touchdown(model, z):
    """Reset at a touchdown of leg 0 with the toe on the ground below a body at height z."""
    p = model.params()
    x = _vertical_legs_state(model, z=z, toe_z=[0.0, 1, 1, 1, 1, 1])
    x[X_TOEV:X_TOEV + 3] = [0.3, 0.2, -1.0]
    fired = np.zeros(len(GUARD_NAMES), dtype=np.int64)
    fired[1] = 1                                                   # touchdown of leg 0
    x_new = x.copy()
    mode = _hooks.reset(0.0, x, p, 0, fired, x_new)
    return x_new, mode, p


def test_touchdown_zeroes_the_toe_velocity_and_sets_the_stance_bit_when_the_leg_presses():
    x_new, mode, p = _touchdown(build_model(control_type=1), z=0.18)   # leg compressed 2 cm
    assert mode & 1 == 1
    assert np.all(x_new[X_TOEV:X_TOEV + 3] == 0.0)
    assert _hooks.normal_force(x_new, p, mode, 0) > 0


def test_touchdown_is_skipped_without_a_mode_change_when_the_leg_would_pull_the_toe_up():
    """Leg stretched 5 cm past its rest length: the ground reaction would pull (digest §4.8)."""
    model = build_model(control_type=1)
    x_new, mode, p = _touchdown(model, z=0.25)
    assert mode == 0
    assert np.all(x_new[X_TOEV:X_TOEV + 3] == 0.0)
    assert x_new[X_TOE + 2] == pytest.approx(p[model.param_names.index("contact_clearance")])
    assert _hooks.normal_force(x_new, p, 1, 0) <= 0


def test_liftoff_clears_the_stance_bit_and_starts_the_flight_strictly_above_the_terrain():
    model = build_model(control_type=1)
    p = model.params()
    x = _vertical_legs_state(model, z=0.2)
    fired = np.zeros(len(GUARD_NAMES), dtype=np.int64)
    fired[0] = 1
    x_new = x.copy()
    mode = _hooks.reset(0.0, x, p, 0b1, fired, x_new)
    assert mode & 1 == 0
    g = np.empty(len(GUARD_NAMES))
    _hooks.guards(0.0, x_new, p, mode, g)
    assert g[1] > 0 and np.isnan(g[0])


def test_guard_layout_is_liftoff_2_leg_touchdown_2_leg_plus_1_then_the_clock():
    assert GUARD_NAMES[:4] == ("liftoff0", "touchdown0", "liftoff1", "touchdown1")
    assert GUARD_NAMES[10:13] == ("liftoff5", "touchdown5", "clock_half_cycle")
    model = build_model()
    assert model.nx == NX == 81 and model.nguard == 19
    assert len(model.state_names) == 81 and model.state_names[54] == "phi_ref0"


def test_table_2_parameter_names_are_all_accepted():
    names = set(build_model().param_names)
    table2 = ({"body_mass", "leg_mass", "friction_coeff", "max_torque", "max_speed", "speed_constant",
               "torque_constant", "armature_resist", "gear_ratio", "torque_loss", "terrain_type",
               "terrain_arg1", "terrain_arg2", "terrain_arg3", "control_type", "framerate", "gravity",
               "frame_width", "frame_height", "q_rt", "q_rl"}
              | {f"{q}{i}_{s}" for q in ("rho", "theta") for i in range(6) for s in ("k", "d", "r0")}
              | {f"attach{i}_{a}" for i in range(6) for a in "xyz"}
              | {f"J_{r}{c}" for r in (1, 2, 3) for c in (1, 2, 3)})
    assert table2 <= names
    p = build_model().params()
    idx = build_model().param_names.index
    assert [p[idx(f"rho{i}_k")] for i in range(6)] == [500, 1000, 500, 500, 1000, 500]
    assert p[idx("speed_constant")] == 61.261056 and p[idx("gear_ratio")] == 33


def test_bad_parameters_are_rejected_naming_the_parameter():
    model = build_model()
    with pytest.raises(InputError, match="terrain_type"):
        model.init_partition(model.state(), model.params({"terrain_type": 7}))
    with pytest.raises(InputError, match="t_s"):
        model.init_partition(model.state(), model.params({"t_s": 1.5}))
    with pytest.raises(InputError, match="heightfield"):
        model.init_partition(model.state(), model.params({"terrain_type": 4}))
    with pytest.raises(InputError, match="R_11"):
        model.init_partition(model.state({"R_11": 2.0}), model.params())
    with pytest.raises(InputError, match="kpp"):
        build_model(kpp=3.0)
    # a terrain argument beyond MAX_TERRAIN made NaN heights (1e308 * x overflows in the lookup)
    with pytest.raises(InputError, match=r"'terrain_arg2' = 1e\+308: out of range, expected in \[-1e\+06"):
        model.params({"terrain_type": 1, "terrain_arg2": 1e308})
    # an unknown option was dataclasses' TypeError; a mode of no number int()'s ValueError
    with pytest.raises(InputError, match="default_options: option 'rtoll' does not exist .*'rtol'"):
        default_options(rtoll=1e-6)
    with pytest.raises(InputError, match="stance_mask: 'mode' = 'abc', expected a whole number >= 0"):
        stance_mask("abc")
    assert stance_mask(5) == (True, False, True, False, False, False)


def _light_pull_stand(contact_weight):
    """Tripod A carries the body; tripod B's vertical legs pull their toes up by 0.5 N or less
    (less than the 0.98 N toe weight); the B toes start 1 um above the ground."""
    zs = 0.2 - M * G / 2000
    kw = {"control_type": 1, "posture": "state", "contact_weight": contact_weight}
    for i in (1, 3, 5):
        kw[f"rho{i}_r0"] = zs - 0.5 / (1000.0 if i == 1 else 500.0)
    model = build_model(**kw)
    x0 = _vertical_legs_state(model, z=zs, toe_z=[0, 1e-6, 0, 1e-6, 0, 1e-6])
    return simulate(model, 0.02, x0=x0, options=default_options(record_period=0.005), progress=False)


def test_a_toe_pulled_up_by_less_than_its_weight_stays_on_the_ground():
    res = _light_pull_stand(1.0)
    assert res.mode[-1] & 63 == 63 and res.stats["events"] <= 4


def test_with_the_leg_force_alone_as_liftoff_force_the_same_toe_chatters_in_skipped_touchdowns():
    """SimSect's flaw (digest §4.15): the leg pulls (N_leg < 0) so every touchdown is skipped,
    but in flight the weight brings the toe straight back: an event every ~20 us."""
    res = _light_pull_stand(0.0)
    td = res.events[res.events["guard"] == 3]                 # touchdowns of leg 1
    assert td.size > 100
    assert np.all(td["mode_before"] == td["mode_after"])     # skipped: no mode change
    assert res.mode[-1] & 63 == 0b010101


def test_skipped_touchdown_chatter_trips_max_transitions_with_the_mode_and_guard_named():
    """SimSect's maxChartCount guard (digest §6.3 item 4) on the literal-rule chatter above:
    every skipped touchdown applies a transition map, so the run stops and keeps its records."""
    from legsim.errors import SimulationError

    zs = 0.2 - M * G / 2000
    kw = {"control_type": 1, "posture": "state", "contact_weight": 0.0}
    for i in (1, 3, 5):
        kw[f"rho{i}_r0"] = zs - 0.5 / (1000.0 if i == 1 else 500.0)
    model = build_model(**kw)
    x0 = _vertical_legs_state(model, z=zs, toe_z=[0, 1e-6, 0, 1e-6, 0, 1e-6])
    with pytest.raises(SimulationError) as exc:
        simulate(model, 0.02, x0=x0, options=default_options(record_period=0.001,
                                                               max_transitions=300), progress=False)
    msg = str(exc.value)
    assert "chattering" in msg and "touchdown" in msg and "stance 0,2,4" in msg
    assert exc.value.result.n >= 1 and exc.value.result.t[-1] < 0.02


def test_a_toe_resting_exactly_on_the_ground_under_the_literal_rule_stops_as_zeno_not_a_hang():
    """With zero clearance the skipped touchdown leaves the guard at exactly 0 going negative:
    events pile up at one instant; the engine reports it instead of stalling."""
    from legsim.errors import SimulationError

    zs = 0.2 - M * G / 2000
    kw = {"control_type": 1, "posture": "state", "contact_weight": 0.0, "contact_clearance": 0.0}
    for i in (1, 3, 5):
        kw[f"rho{i}_r0"] = zs - 0.5 / (1000.0 if i == 1 else 500.0)
    model = build_model(**kw)
    x0 = _vertical_legs_state(model, z=zs, toe_z=[0, 1e-6, 0, 1e-6, 0, 1e-6])
    with pytest.raises(SimulationError, match="chattering"):
        simulate(model, 0.02, x0=x0, options=default_options(record_period=0.001), progress=False)
