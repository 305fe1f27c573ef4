"""Property-based fuzzing of the parts a Python user builds a robot from (issue 20 §3, the Python side of
test_fuzz_inputs): every actuator, sensor, measurement, obstacle and transmission of ``legsim.assembly``
with one field given a value of the wrong kind or range is either accepted or refused with an
:class:`InputError` that names the part and the field, never another exception (before session 30 a
string, None or a matrix as a joint, an effort, a current limit, a sensor's names, a position or an
exhaust was a ``TypeError``/``ValueError`` from numpy or Python). The same for the contact laws and
shapes of ``legsim.contact``, whose messages name the parameter, for CJTC's control variables, chain and
controller (``legsim.control``) and for the RATS robot's builder and controllers (session 31)."""

import atexit
import contextlib
import functools
import importlib.util
import inspect
import math
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from legsim import contact as C
from legsim.actuators.pneumatic import SupplyTank
from legsim.assembly import (
    IMU,
    AirSupply,
    ChamberPressure,
    CommandTable,
    ContactForce,
    DCMotor,
    ForceTorque,
    IncrementalEncoder,
    JointEncoder,
    JointVelocity,
    LimitSwitch,
    Measurement,
    MotorCurrent,
    Obstacle,
    PhaseCurrent,
    PMSMDrive,
    PositionServo,
    Rod,
    SolenoidCylinder,
    TorqueSource,
    VelocityServo,
)
from legsim.errors import InputError
from legsim.robots.pneumatic_rig.hop import PRESETS

M = Measurement(noise_std=0.1, lo=-1.0, hi=1.0, bits=12, cutoff_hz=10.0, delay=1, seed=1)
VALID = {  # one valid set of fields per part, every field given
    TorqueSource: dict(name="a", joint="j", gear=1.0, lo=-1.0, hi=1.0),
    PositionServo: dict(name="a", joint="j", kp=1.0, kd=1.0, effort=5.0),
    VelocityServo: dict(name="a", joint="j", kv=1.0, effort=5.0),
    DCMotor: dict(name="a", joint="j", resistance=1.0, torque_constant=0.02, v_max=24.0, back_emf=0.02,
                  inductance=1e-3, gear=10.0, efficiency=0.9, i_max=3.0, command="voltage",
                  rotor_inertia=1e-6),
    PMSMDrive: dict(name="a", joint="j", resistance=1.0, inductance=1e-3, flux_linkage=0.01, pole_pairs=4,
                    rotor_inertia=1e-6, v_dc=24.0, i_max=5.0, gear=10.0),
    SolenoidCylinder: dict(name="a", joint="j", valve=PRESETS["rubber"]["valve"], supply="tank", area=1e-4,
                           dead_volume=1e-6, stroke=0.05, k_return=10.0, friction=1.0, viscous=1.0,
                           v_eps=1e-3, kappa=1.0, exhaust="trapped", exhaust_area=1e-6),
    AirSupply: dict(name="tank", tank=SupplyTank(), p0=5e5),
    Rod: dict(body_a="a", point_a=(0.0, 0.0, 0.0), body_b="b", point_b=(0.0, 0.0, 1.0)),
    JointEncoder: dict(name="e", rate_hz=1000.0, measurement=M, joints=["j"]),
    JointVelocity: dict(name="e", rate_hz=1000.0, measurement=M, joints=["j"]),
    IMU: dict(name="imu", rate_hz=100.0, measurement=M, body="b", position=(0.0, 0.0, 0.1),
              rotation=np.eye(3)),
    ContactForce: dict(name="f", rate_hz=100.0, measurement=M, geometries=["g"]),
    ForceTorque: dict(name="ft", rate_hz=100.0, measurement=M, body="b", geometries=["g"]),
    MotorCurrent: dict(name="i", rate_hz=100.0, measurement=M, actuators=["a"]),
    PhaseCurrent: dict(name="i", rate_hz=100.0, measurement=M, actuators=["a"]),
    ChamberPressure: dict(name="p", rate_hz=100.0, measurement=M, actuators=["a"]),
    IncrementalEncoder: dict(name="e", rate_hz=1000.0, measurement=M, joints=["j"], counts_per_unit=1000.0),
    LimitSwitch: dict(name="e", rate_hz=1000.0, measurement=M, joints=["j"], positions=[0.1]),
    Obstacle: dict(half_extents=(0.1, 0.1, 0.1), centre=(0.0, 0.0, 0.0), rotation=np.eye(3), name="o"),
    CommandTable: dict(actuators=["a"], table=[[0.0], [1.0]], dt=0.01),
}
MEASUREMENT = dict(noise_std=0.1, offset=0.0, scale_error=0.0, lo=-1.0, hi=1.0, bits=12, cutoff_hz=10.0,
                   delay=1, seed=1)

WRONG = st.one_of(
    st.sampled_from([None, True, "", "abc", "j", [], {}, [1.0, 2.0], ["j", 3], (0.0, 0.0), np.eye(2),
                     np.zeros(3), np.eye(3), -1, 0, 7, 2**40, -1e-300, 1e300]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=4),
    st.lists(st.floats(allow_nan=True), max_size=4),
)
"""Values of the wrong kind or range for some field: None, bools, strings, empty and odd containers,
matrices, negative, zero, huge and non-finite numbers."""


def _refused_by_name(part: str, field: str, exc: InputError) -> None:
    message = str(exc)
    assert part in message and field in message, f"{part}.{field}: {message}"


@settings(max_examples=400, deadline=None, derandomize=True)
@given(part=st.sampled_from(sorted(VALID, key=lambda c: c.__name__)), data=st.data())
def test_a_part_with_one_wrong_field_is_accepted_or_refused_naming_the_field(part, data):
    fields = VALID[part]
    part(**fields)  # the valid set is valid
    field = data.draw(st.sampled_from(sorted(fields)), label="field")
    value = data.draw(WRONG, label="value")
    try:
        made = part(**{**fields, field: value})
    except InputError as exc:
        _refused_by_name(part.__name__, field, exc)
        return
    # accepted: the field holds a value that the part can use (checked where the type is plain)
    held = getattr(made, field)
    if isinstance(fields[field], float):
        assert isinstance(held, float) and not math.isnan(held), (part.__name__, field, value, held)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(field=st.sampled_from(sorted(MEASUREMENT)), value=WRONG)
def test_a_wrong_measurement_is_refused_by_the_sensor_naming_the_field(field, value):
    """A :class:`Measurement` checks its fields itself (since session 40; a seed of NaN waited for a sensor
    before); the sensor that takes it checks what needs its context (quantising needs a finite range), its
    messages naming the sensor."""
    try:
        JointEncoder("enc", joints=["j"], measurement=Measurement(**{**MEASUREMENT, field: value}))
    except InputError as exc:
        _refused_by_name("Measurement" if str(exc).startswith("Measurement") else "JointEncoder 'enc'", field,
                         exc)


def test_what_random_examples_found_a_huge_foot_count_and_whole_numbers_held_as_floats():
    """Found by running these properties with random rather than derandomized examples (session 33): a
    force-distribution QP for 2^40 feet was numpy's ValueError ("array is too big"); a tipping planner
    with a slip of 1e154 m overflowed its norms (a numpy warning); an encoder's
    counts_per_unit and a measurement's numbers given as whole numbers were kept as ints, where every
    other part holds the float."""
    from legsim.robots.rats.planner import line_path, plan
    from legsim.walking.forces import SupportQP

    with pytest.raises(InputError, match=r"SupportQP: 'n_feet' = 1099511627776, expected a whole number in"):
        SupportQP(2**40, 0.8)
    with pytest.raises(InputError, match=r"slip=1.34e\+154: expected a distance in \[-1, 1\] m"):
        plan(line_path((0.0, 0.0), (1.0, 0.0)), 0, slip=1.34e154)  # overflowed the planner's norms
    enc = IncrementalEncoder("e", joints=["j"], counts_per_unit=7,
                             measurement=Measurement(noise_std=1, offset=2, lo=-3, hi=3, cutoff_hz=5))
    held = [enc.counts_per_unit] + [getattr(enc.measurement, k) for k in ("noise_std", "offset", "lo", "hi",
                                                                            "cutoff_hz")]
    assert held == [7.0, 1.0, 2.0, -3.0, 3.0, 5.0] and all(type(v) is float for v in held)


def test_what_random_examples_found_in_session_34_components_of_1e154_and_stretched_plans(recwarn):
    """Found the same way in session 34 (RuntimeWarning as an error): a plane's normal or a joint's axis
    with a 1e154 component overflowed its norm (numpy's warning, and the plane's normal became 0); a
    body's com of 1e155 m warned before it was refused; a cylinder's bore of 1e154 m overflowed its area
    (OverflowError), and its refusal of a slider area as wide as the bore did not name the field; LIBRA's
    plan stretched 1e306 times overflowed its times."""
    from legsim.actuators.pneumatic.cylinder import Cylinder
    from legsim.multibody import RobotBuilder
    from legsim.robots.libra.gait import climb_cycle, stretch

    assert C.Plane(normal=(0.0, 0.0, 1.34e154)).normal == (0.0, 0.0, 1.0)
    b = RobotBuilder("arm")
    b.add_body("link", parent="world", joint="revolute", axis=(0.0, 1.34e154, 0.0), mass=1.0)
    assert np.array_equal(b.compile().jnt_axis[1], [0.0, 1.0, 0.0])
    with pytest.raises(InputError, match=r"body 'far': com = .* within ±MAX_LENGTH"):  # since session 40
        b.add_body("far", parent="link", joint="revolute", axis=(0.0, 1.0, 0.0), mass=1.0,
                   com=(0.0, 0.0, 1e155))
    b.add_body("heavy", parent="link", joint="revolute", axis=(0.0, 1.0, 0.0), mass=1e300,
               com=(0.0, 0.0, 1e6))
    with pytest.raises(InputError, match="body 'heavy': mass 1e\\+300 kg, com .* overflow its spatial"):
        b.compile()
    with pytest.raises(InputError, match=r"'bore' = 1.34e\+154, expected a finite number in \(0, 10\]"):
        Cylinder(bore=1.34e154)
    with pytest.raises(InputError, match="slider_area = 7 m² leaves no rod-side annulus"):
        Cylinder(slider_area=7)
    with pytest.raises(InputError, match=r"stretch: factors = .* expected one number in \[1, 10000\] each"):
        stretch(climb_cycle(), [1.0, 1.0, 1.0, 1e306])
    with pytest.raises(InputError, match=r"'hold' = 9000000000000000.0, expected a finite number in \[0, 86"):
        climb_cycle(hold=9e15)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_path_with_a_tilde_of_no_user_is_refused_naming_it(tmp_path):
    """A sweep's scenario "~nosuchuser/x.toml" was pathlib's RuntimeError ("Could not determine home
    directory"; found in session 34 by fuzzing the public API with its defaults); ``~`` still expands."""
    from legsim.sweep import Sweep
    from legsim.userfiles import user_path

    with pytest.raises(InputError, match="scenario = '~nosuchuser_legsim/x.toml': no home directory"):
        Sweep(scenario="~nosuchuser_legsim/x.toml")
    assert user_path("~/x.toml", "scenario") == user_path(str(Path.home() / "x.toml"), "scenario")


def test_what_fuzzing_the_robot_packages_helpers_found_in_session_34():
    """Each was a TypeError, ValueError or AttributeError from Python or numpy (or a numpy overflow
    warning), found by fuzzing the robot packages' public callables with all-default arguments."""
    from legsim.robots.anton.model import build_model
    from legsim.robots.crr_leg import (
        JointReference,
        LegBench,
        WalkingPath,
        crr_leg_bodies,
        massless_cylinders,
    )
    from legsim.robots.crr_leg.walking import walking_references
    from legsim.robots.crr_quadruped import crawl_references, quadruped_bodies, stance_references

    for call, says in ((lambda: crawl_references(points="40"), "'points' = '40', expected a whole number"),
                       (lambda: crawl_references(period=[4.0]), "'period' = \\[4.0\\], expected a number"),
                       (lambda: stance_references(posture_deg=""), "posture_deg='': expected three"),
                       (lambda: quadruped_bodies(trunk_mass=[90.0]), "'trunk_mass' = \\[90.0\\]"),
                       (lambda: crr_leg_bodies(gravity=None), "'gravity' = None"),
                       (lambda: massless_cylinders(mass=None), "'mass' = None"),
                       (lambda: JointReference(steps=True), "steps=True, expected"),
                       (lambda: JointReference(period="1"), "'period' = '1'"),
                       (lambda: LegBench(valve=0.5), "valve=0.5: expected a ProportionalValve"),
                       (lambda: walking_references(bodies=""), "bodies = '': expected None or"),
                       (lambda: WalkingPath(stride=1e300), "'stride' = 1e\\+300, expected a finite number"),
                       (lambda: build_model([1.0]), "params = \\[1.0\\], expected None or an AntonParams")):
        with pytest.raises(InputError, match=says):
            call()


LAWS_AND_SHAPES = {  # one valid set of arguments per contact law factory and shape
    C.linear_penalty: dict(k=1e5), C.engelson: dict(k=1e5, d=0.1),
    C.restitution: dict(k=1e5, eps=0.5, v_min=1e-2, exact=True, exponent=1.5),
    C.hunt_crossley: dict(k=1e5, alpha=0.3, exponent=1.5), C.hertz: dict(k=1e5),
    C.kelvin_voigt: dict(k=1e5, c=10.0), C.coulomb: dict(mu=0.5, v_eps=1e-3),
    C.stribeck: dict(mu=0.5, brk=1.5, decay=-100.0, viscous=0.0, v_eps=1e-3),
    C.threshold: dict(brk=1.5, damping=100.0, v_th=1e-3, v_min=1e-3, decay=-1.0, mu=1.0),
    C.anchor_spring: dict(mu=0.5, k_i=1e4, n=1.0, brk=1.5, damping=100.0, v_th=1e-3, v_min=1e-3, decay=-1.0),
    C.Sphere: dict(radius=0.1), C.Box: dict(half_extents=(0.1, 0.1, 0.1)),
    C.Capsule: dict(radius=0.1, half_length=0.2), C.Cylinder: dict(radius=0.1, half_length=0.2),
    C.Plane: dict(normal=(0.0, 0.0, 1.0), offset=0.0),
}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(maker=st.sampled_from(sorted(LAWS_AND_SHAPES, key=lambda f: f.__name__)), data=st.data())
def test_a_contact_law_or_shape_with_one_wrong_argument_is_accepted_or_refused_naming_it(maker, data):
    _one_wrong_argument(maker, LAWS_AND_SHAPES[maker], data)


def _detection_cases():
    law = C.ContactLaw(C.kelvin_voigt(1e4, 10.0))
    scene = C.Scene(C.LawTable(2, law))
    scene.add(C.Sphere(0.1), body=0)
    scene.add(C.Plane())
    model = scene.compile()
    lpos, lrot = scene.local_poses()
    gpos, grot = np.zeros((2, 3)), np.tile(np.eye(3), (2, 1, 1))

    def scene_add(**a):
        C.Scene(C.LawTable(2, law)).add(**a)

    def law_table_set(**a):
        C.LawTable(2, law).set(**a)

    return {
        scene_add: dict(shape=C.Sphere(0.1), body=0, pos=(0.0, 0.0, 0.0), rot=np.eye(3), material=1,
                        contype=1, conaffinity=1),
        C.LawTable: dict(nmat=2, default=law),
        law_table_set: dict(mat_a=0, mat_b=1, law=law),
        C.make_contacts: dict(model=model, capacity=16, single=False),
        C.collide: dict(model=model, gpos=gpos, grot=grot, contacts=C.make_contacts(model, 16), work=None),
        C.convex_distance: dict(model=model, g1=0, g2=0, gpos=gpos, grot=grot, work=C.make_work()),
        C.geom_world_poses: dict(model=model, local_pos=lpos, local_rot=lrot, body_pos=np.zeros((1, 3)),
                                 body_rot=np.eye(3)[None]),
    }


DETECTION = _detection_cases()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(DETECTION, key=lambda f: f.__name__)), data=st.data())
def test_a_collision_query_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """The collision layer a user calls directly (legsim.contact: a scene's shapes, the law table, the
    contact buffer, collide, convex_distance, geom_world_poses) with one argument of the wrong kind or
    range: accepted, or an InputError naming the argument. Before session 35 a string or None as a body,
    a material, a pose or a geom index was Python's or numpy's error, a wrong model an AttributeError,
    a wrong buffer or scratch a numba TypingError (after trying to compile for it), 2^40 materials
    numpy's "array is too big", and the messages about poses named neither 'gpos' nor 'grot'."""
    _one_wrong_argument(call, DETECTION[call], data)


def _one_wrong_argument(call, arguments: dict, data):
    """Call ``call`` with ``arguments`` (a valid set), then with one of them replaced by a value drawn from
    WRONG: it is accepted, or refused with an InputError whose message names the argument."""
    call(**arguments)
    _wrong_argument(call, arguments, data)


def _wrong_argument(call, arguments: dict, data):
    """``call`` with one of ``arguments`` replaced by a value drawn from WRONG: accepted, or refused with an
    InputError whose message names the argument."""
    name = data.draw(st.sampled_from(sorted(arguments)), label="argument")
    value = data.draw(WRONG, label="value")
    try:
        call(**{**arguments, name: value})
    except InputError as exc:
        assert name in str(exc), f"{call.__name__}.{name}: {exc}"


def _walking_functions():
    from legsim import walking as W

    feet = np.array([[0.2, 0.1], [-0.2, 0.1], [0.0, -0.2]])
    feet3 = np.column_stack([feet, np.zeros(3)])
    return {W.support_polygon: dict(feet=feet), W.support_margin: dict(com=(0.0, 0.0), feet=feet),
            W.com_correction: dict(com=(0.0, 0.0), feet=feet, gain=1.0),
            W.zmp_from_wrenches: dict(positions=feet3, forces=np.tile([0.0, 0.0, 10.0], (3, 1)),
                                      moments=np.zeros((3, 3)), ground_height=0.0),
            W.segment_orientation: dict(normal_next=0.1, normal_previous=0.0),
            W.max_ledge_height: dict(leg_length=0.2, segment_length=0.3, alpha=0.3),
            W.lift_torque_proxy: dict(segment_length=0.3, alpha=0.3),
            W.vertical_forces: dict(feet=feet, weight=100.0, com=(0.0, 0.0)),
            W.support_forces: dict(feet=feet3, mass=10.0, com=(0.0, 0.0, 0.1), mu=0.8,
                                   gravity=(0.0, 0.0, -9.81), f_min=0.0),
            W.wave_gait: dict(name="tripod", n_legs=6, tau=None), W.neighbours: dict(n_legs=6),
            W.LegCycle: dict(cycle=W.StepCycle(0.07, 0.025, 0.14, 0.5)),
            W.adapt_clearance: dict(legs=[W.LegCycle(W.StepCycle(0.07, 0.025, 0.14, 0.5)) for _ in range(3)])}


WALKING_FUNCTIONS = _walking_functions()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(WALKING_FUNCTIONS, key=lambda f: f.__name__)), data=st.data())
def test_a_walking_function_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """The walking layer's balance, force-distribution, climbing and gait functions (ANTON's and
    ROTTO's controllers call them) with one argument of the wrong kind or range: a result, or an
    InputError naming the argument. Before session 35 a string as feet, a CoM, a gain, a weight, a
    mass, an angle or a tau was Python's or numpy's error; a CoM of the wrong length a broadcasting
    error or "no pushing forces ... is the CoM outside the support polygon?"; 2^40 legs asked numpy for
    8 TB (wave_gait) or looped for hours (neighbours)."""
    _one_wrong_argument(call, WALKING_FUNCTIONS[call], data)


def test_what_random_examples_found_in_session_35(recwarn):
    """A whole float as a leg count (neighbours(2.0) was range()'s TypeError after the count was checked);
    a record interval of 1e300 steps (int64's OverflowError inside the compiled loop); an inductance of
    1e306 H (its derived current-loop gain was inf, refused under the name 'p_gain'; since session 40 the
    drive's constants lie within MAX_VALUE and the inductance itself is refused); a 1 s step in
    velocity_from_position (the message named 'fs', not 'dt'); a support force floor above the weight
    (the message named only the CoM); a gravity of 1e154 and a valve slope of 1e307 (numpy's overflow
    warnings); a LIBRA stage of 1e-109 s (its waypoint times collapsed: "must increase strictly") and a
    LIBRA body height of None (Python's TypeError); a CJTC finite-difference step of 9e307 (numpy's overflow
    warning), a RATS centre-of-mass offset of 8e153 m (refused as the shell's overflowing inertia), and joint
    limits (inf, inf): a lower stop at +inf (its force is inf - q); a stop on one side only, (0, inf), is a
    joint's range open on that side and stays accepted."""
    from legsim.identify import area_from_cd, velocity_from_position
    from legsim.walking import neighbours, support_forces

    assert neighbours(2.0) == [[], []] and neighbours(np.int64(4)) == [[1], [0], [3], [2]]
    with pytest.raises(InputError, match="'record_every' = 1e\\+300, expected a whole number in \\[1, "):
        _rigid_world(record_every=1e300)
    with pytest.raises(InputError, match="PMSMDrive 'a': 'inductance' = 1e\\+306, expected a finite number"):
        PMSMDrive(**{**VALID[PMSMDrive], "inductance": 1e306})  # was an infinite p_gain (session 40: bounded)
    with pytest.raises(InputError, match="at 'dt' = 1.0 s \\(fs = 1 Hz\\)"):
        velocity_from_position(np.zeros(100), dt=1.0)
    feet = [[0.2, 0.1, 0.0], [-0.2, 0.1, 0.0], [0.0, -0.2, 0.0]]
    with pytest.raises(InputError, match="each at least 'f_min' = 1e\\+06 N"):
        support_forces(feet, 10.0, (0.0, 0.0, 0.1), 0.8, f_min=1e6)
    with pytest.raises(InputError, match="'gravity' = \\[0.0, 0.0, 1.34e\\+154\\]"):
        support_forces(feet, 10.0, (0.0, 0.0, 0.1), 0.8, gravity=[0.0, 0.0, 1.34e154])
    with pytest.raises(InputError, match="'slope' = 3.6e\\+307"):
        area_from_cd([0.0, 1.0], [0.5, 0.5], slope=3.6e307)
    from legsim.robots.libra.gait import climb_cycle

    with pytest.raises(InputError, match="'stage_time' = 2.5e-109"):  # was "waypoint times ... increase"
        climb_cycle(stage_time=2.5e-109)
    with pytest.raises(InputError, match="y_body = None, expected 2 numbers"):  # was a TypeError
        climb_cycle(y_body=None)
    from legsim import control as K
    from legsim.examples import two_link_arm
    from legsim.robots.rats.robot import build

    kin = K.Kinematics(two_link_arm.build())
    with pytest.raises(InputError, match="eps = 8.99e\\+307, expected a finite-difference step in"):
        K.FunctionVariable(kin, "f", lambda q, extra: float(q[0]), eps=8.99e307)
    with pytest.raises(InputError, match="com_offset = \\[0.0, 0.0, 7.9e\\+153\\], expected each component"):
        build(com_offset=[0.0, 0.0, 7.9e153])  # was the shell's spatial-inertia overflow, not naming it
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("arm")
    link = dict(joint="revolute", axis=(0, 1, 0), mass=1.0, inertia=(1e-3,) * 3)
    b.add_body("a", "world", **link, limits=(0.0, math.inf))
    with pytest.raises(InputError, match="joint limits must be .* got \\(inf, inf\\)"):  # a stop at +inf
        b.add_body("b", "a", **link, limits=(math.inf, math.inf))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_whole_numbers_flags_and_worker_counts_share_one_check_each(recwarn):
    """Session 36 moved ~35 hand-written whole-number and True/False checks onto errors.check_whole and
    errors.check_flag. What they did differently before: an int beyond the largest float (10**400) was
    Python's OverflowError in every number check; a sweep's or link model's negative seed passed the check
    and failed in numpy's SeedSequence; a whole float (2.0) was refused as a step count in some places and
    accepted in others; Options(sliding=1) was taken as True while a scenario refused it; a sweep of a
    grid of 3 million runs, a RealtimeLoop capacity of 2^40 periods and FunctionPool(workers=10**6)
    started building them (lists of runs, arrays, processes); plan(max_firings=10**9) was accepted."""
    from legsim.actuators.electric.pmsm import DriveController, DriveLoad, simulate_drive
    from legsim.errors import check_number, check_whole
    from legsim.hybrid import Options
    from legsim.realtime.loop import RealtimeLoop
    from legsim.realtime.timing import EtherCATTiming, LinkModel
    from legsim.robots.rats.planner import plan
    from legsim.simsect.runner import ENGINE_DEFAULTS, Symbol, options_from_symbols
    from legsim.sweep import FunctionPool, Sweep
    from legsim.viz.viewer import frame_indices

    slip = Path(__file__).parents[1] / "src" / "legsim" / "scenarios" / "slip_run.toml"
    with pytest.raises(InputError, match="'x' = 1000000000.*, expected a finite number"):
        check_number("o", "x", 10**400)
    assert check_whole("o", "seed", 2**64 - 1, hi=2**64 - 1) == 2**64 - 1  # exact, not via a float
    assert check_whole("o", "n", 3.0) == 3 and type(check_whole("o", "n", np.int64(3))) is int
    assert Options(max_transitions=5.0, max_stop_iter=np.int64(4)).max_transitions == 5
    assert EtherCATTiming(use_delay=2.0).use_delay == 2
    grid = {"params.k": list(range(1000)), "params.c": list(range(3001))}
    for call, says in ((lambda: Options(sliding=1), "'sliding' = 1, expected True or False"),
                       (lambda: LinkModel(seed=-1), "LinkModel: 'seed' = -1, expected a whole number in"),
                       (lambda: Sweep(slip, grid=grid), "grid: 3001000 runs, expected at most MAX_RUNS"),
                       (lambda: Sweep(slip, ranges={"params.k": (1, 2)}, samples=10**7),
                        "'samples' = 10000000"),
                       (lambda: RealtimeLoop(1e-3, capacity=2**40), "'capacity' = 1099511627776"),
                       (lambda: FunctionPool("legsim.examples.two_link_arm:build", workers=10**6),
                        r"'workers' = 1000000, expected a whole number in \[1, 1024\]"),
                       (lambda: plan([(0.0, 0.0), (1.0, 0.0)], 0, max_firings=10**9),
                        "'max_firings' = 10+,")):
        with pytest.raises(InputError, match=says):
            call()
    # random rounds of the new property below found: an array as a loop's policy or a pool's backend
    # (numpy's ambiguous truth value), a NUL in a scenario's path (ValueError: embedded null byte), a
    # period of 1e300 s (int's OverflowError), None as simulate_drive's motor (an AttributeError), and a
    # joint axis of 1e-168 (its norm underflowed to 0: numpy's divide-by-zero warning); a replay at 2^40
    # frames a second (the OOM killer) or over 6e306 s (numpy's overflow warning)
    for call, says in ((lambda: RealtimeLoop(1e-3, policy=np.eye(2)), "policy = array"),
                       (lambda: FunctionPool("math:hypot", backend=np.eye(2)), "backend = array"),
                       (lambda: FunctionPool("math:hypot", backend="serial", address="auto"),
                        "address = 'auto'"),
                       (lambda: Sweep("a\x00b"), "a path cannot hold a NUL character"),
                       (lambda: RealtimeLoop(1e300), "period = 1e\\+300 s: expected a number in"),
                       (lambda: frame_indices(np.linspace(0.0, 60.0, 7), 2**40), "at most MAX_FRAMES"),
                       (lambda: frame_indices(np.array([-6e306, 0.0]), 30.0), "inf frames"),
                       (lambda: simulate_drive(None, DriveLoad(), DriveController(0.5, 500.0), [0.0]),
                        "motor = None, expected a PMSM")):
        with pytest.raises(InputError, match=says):
            call()
    from legsim.multibody import RobotBuilder

    b = RobotBuilder("tiny axis")
    b.add_body("a", "world", "revolute", axis=(0.0, 0.0, 2.8e-168), mass=1.0, inertia=(1e-3,) * 3)
    assert np.array_equal(b.compile().jnt_axis[1], [0.0, 0.0, 1.0])  # row 0: the world
    table = {k: Symbol(v, 0) for k, v in ENGINE_DEFAULTS.items()}
    table["maxChartCount"] = Symbol(-3.0, 7)  # SimSect's own names, with the line that set it
    with pytest.raises(InputError, match=r"^x.rc:7: 'maxChartCount' = -3.0, expected a whole number >= 0$"):
        options_from_symbols(table, "x.rc")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _drive_sweep_and_loop_calls():
    from legsim.actuators.electric.pmsm import PMSM, DriveController, DriveLoad, simulate_drive
    from legsim.realtime.loop import RealtimeLoop
    from legsim.sweep import FunctionPool, Sweep

    motor = dict(resistance=0.3, inductance_d=1e-4, flux_linkage=0.003, pole_pairs=4, rotor_inertia=1e-5,
                 v_dc=24.0, inductance_q=None, viscous=0.0, coulomb=0.0, coulomb_speed=1.0, pwm_hz=28000.0,
                 park_factor=2.0 / 3.0)
    load = dict(kv=1.0, spring=0.0, mass=0.0, damping=0.0, obstacle=math.inf, force=0.0, counts_per_turn=0)
    control = dict(p_gain=0.5, i_gain=500.0, outer="current", period=1e-3, i_max=math.inf, kp_f=0.0,
                   kd_f=0.0, ff=0.0, kp_x=0.0, kd_x=0.0, force_limit=math.inf, k_pos=0.0, k_vel=0.0,
                   ki_vel=0.0, v_max=math.inf, a_max=math.inf, align_current=5.0, align_time=1.0)
    slip = Path(__file__).parents[1] / "src" / "legsim" / "scenarios" / "slip_run.toml"
    return {PMSM: motor, DriveLoad: load, DriveController: control,
            simulate_drive: dict(motor=PMSM(**motor), load=DriveLoad(**load),
                                 controller=DriveController(**control), refs=np.zeros(3), pwm="averaged",
                                 substeps=4, theta0=0.0, omega0=0.0, x0=None, continue_from=None),
            RealtimeLoop: dict(period=1e-3, spin=3e-4, policy="catch_up", capacity=16, gc_off=True),
            FunctionPool: dict(function="math:hypot", workers=1, backend="serial", address=None, seed=0,
                               batch_seconds=1.0),
            Sweep: dict(scenario=slip, grid={"params.k": [1000.0, 1200.0]}, ranges=None, samples=None,
                        method="lhs", variations=None, seed=0),
            **_sil_calls()}


def _sil_calls():
    from legsim.realtime import InProcessLink
    from legsim.realtime.sil import RobotPlant, SilServer, crr_leg_robot

    robot = crr_leg_robot()
    link = InProcessLink(6, 3)
    return {SilServer: dict(robot=robot, endpoint=link.robot, sensors=["enc", "rate"], q0=None,
                            lockstep=False, lockstep_timeout=None, spin=3e-4, drain=0.05),
            RobotPlant: dict(robot=robot, q0=None, v0=None, options=None)}


DRIVE_SWEEP_AND_LOOP_CALLS = _drive_sweep_and_loop_calls()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(DRIVE_SWEEP_AND_LOOP_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_drive_sweep_or_realtime_loop_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """The PMSM drive's motor, load, controller and simulate_drive, the real-time loop, a function pool,
    a sweep's definition and the software-in-the-loop server and plant with one argument of the wrong kind
    or range: accepted, or an InputError naming the argument. Before session 36 a string as a resistance,
    a gain or a capacity was Python's ValueError (float('abc')), a string as a PWM limit a TypeError, a
    capacity of 2^40 numpy's MemoryError, a negative pool seed passed to fail later in numpy's
    SeedSequence, and the SiL server took anything as its robot, endpoint, flags and waits (an
    AttributeError or a ValueError, or a failure once its clock had started)."""
    _one_wrong_argument(call, DRIVE_SWEEP_AND_LOOP_CALLS[call], data)


def _dynamics_calls():
    from legsim import multibody as M

    b = M.RobotBuilder("fuzz arm")
    b.add_body("base", "world", "free", mass=1.0, inertia=(4e-3, 4e-3, 4e-3))
    b.add_body("leg", "base", "revolute", axis=(0.0, 1.0, 0.0), mass=0.1, inertia=(1e-4, 1e-4, 1e-4),
               xyz=(0.0, 0.0, -0.1))
    model = b.compile()
    q, v, z = model.neutral(), np.full(model.nv, 0.1), np.zeros(model.nv)
    state = dict(model=model, data=model.make_data(), q=q)
    frame = dict(model=model, data=model.make_data(), frame="leg")
    return {M.forward_kinematics: dict(**state, v=v, a=z), M.rnea: dict(**state, v=v, a=z, fext=None),
            M.crba: state, M.aba: dict(**state, v=v, tau=z, fext=None), M.passive_forces: dict(**state, v=v),
            M.forward_dynamics: dict(**state, v=v, tau=z, fext=None), M.frame_placement: frame,
            M.frame_velocity: dict(**frame, reference="world"),
            M.frame_jacobian: dict(**state, frame="leg", reference="local"),
            M.add_world_force: dict(model=model, data=model.make_data(), fext=np.zeros((model.nbody, 6)),
                                    body="leg", point=(0.0, 0.0, -0.1), force=(1.0, 0.0, 0.0)),
            M.qdot: dict(model=model, q=q, v=v), M.integrate: dict(model=model, q=q, v=v, dt=1e-3),
            M.center_of_mass: state, M.energy: dict(**state, v=v)}


DYNAMICS_CALLS = _dynamics_calls()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(DYNAMICS_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_dynamics_function_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """The multibody dynamics functions (ABA, RNEA, CRBA, kinematics, frames, Jacobians, world forces,
    integration, energy) with one argument of the wrong kind: a result, or an InputError naming it.
    Before session 36 a string as q or fext was numpy's ValueError, a list as a reference frame
    ("unhashable type"), a list as add_world_force's fext an AttributeError, a body of 1.5 was taken as
    body 1, and a string as integrate's dt was float()'s ValueError."""
    _one_wrong_argument(call, DYNAMICS_CALLS[call], data)


def _replay_calls():
    from legsim.assembly import Robot
    from legsim.multibody import RobotBuilder
    from legsim.viz import scene as S
    from legsim.viz.viewer import frame_indices, scene_html, write_robot_replay

    b = RobotBuilder("fuzz pendulum")
    b.add_body("arm", "world", "revolute", axis=(0.0, 1.0, 0.0), mass=1.0, inertia=(1e-3,) * 3)
    b.add_geometry("arm", "sphere", radius=0.05)
    mb = b.compile()
    robot = Robot(mb)
    result = robot.simulate(0.01)
    t = np.linspace(0.0, 1.0, 11)
    records = {"t": t, mb.coordinate_names()[0][0]: t}
    return {scene_html: dict(scene=S.multibody_scene(mb), records=records, fps=30.0, speed=1.0),
            write_robot_replay: dict(path="replay.html", robot=robot, result=result, fps=25.0),
            frame_indices: dict(t=t, fps=30.0, speed=1.0)}


REPLAY_CALLS = _replay_calls()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(REPLAY_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_replay_call_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data, tmp_path_factory):
    """The viewer's Python calls that write or build a replay (``scene_html``, ``write_robot_replay``,
    ``frame_indices``) with one argument of the wrong kind or range: a page, or an InputError naming the
    argument. Run in a directory of its own: a wrong path may be a file name. Before session 36: a huge
    fps asked numpy for a frame list beyond the machine's memory (the kernel's OOM killer stopped the test
    process), a path of '' was IsADirectoryError and None a TypeError, None as the robot or the result an
    AttributeError, fps='30' a TypeError, a list as the records a TypeError."""
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("replays"))
    try:
        _one_wrong_argument(call, REPLAY_CALLS[call], data)
    finally:
        os.chdir(cwd)


def _server_calls():
    """The viewer's calls that start a server: each wrapped so that an accepted call closes what it started
    (``serve`` returns at once: its wait for Ctrl-C is replaced by a Ctrl-C in the test)."""
    from legsim.assembly import Robot
    from legsim.cli import SCENARIO_DIR
    from legsim.multibody import RobotBuilder
    from legsim.scenario import load_scenario
    from legsim.viz import scene as S
    from legsim.viz import viewer as V

    b = RobotBuilder("fuzz pendulum")
    b.add_body("arm", "world", "revolute", axis=(0.0, 1.0, 0.0), mass=1.0, inertia=(1e-3,) * 3)
    b.add_geometry("arm", "sphere", radius=0.05)
    mb = b.compile()
    robot = Robot(mb)
    scene = S.multibody_scene(mb)
    t = np.linspace(0.0, 1.0, 11)
    records = {"t": t, mb.coordinate_names()[0][0]: t}
    quiet = dict(host="127.0.0.1", port=V._free_port(), echo=lambda line: None)

    def live_view_class(**kw):
        V.LiveView(**kw).close()

    def live_view(**kw):
        V.live_view(**kw).close()

    def live_view_of(**kw):
        V.live_view_of(**kw).close()

    return {live_view_class: dict(scene=scene, columns=["t", *robot.model.state_names], framerate=30.0,
                                  pace=None, **quiet),
            live_view: dict(robot=robot, framerate=30.0, pace=1.0, **quiet),
            live_view_of: dict(scenario=load_scenario(SCENARIO_DIR / "slip_run.toml"), framerate=30.0,
                                **quiet),
            V.serve: dict(scene=scene, records=records, plot_columns=["t"], **quiet)}


SERVER_CALLS = _server_calls()


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the same patch for every example
@given(call=st.sampled_from(sorted(SERVER_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_viewer_server_call_with_one_wrong_argument_starts_or_is_refused_naming_it(call, data,
                                                                                      monkeypatch):
    """``LiveView``, ``live_view``, ``live_view_of`` and ``serve`` with one argument of the wrong kind or
    range: a server, or an InputError naming the argument before one starts. Before session 37: a string
    framerate or pace was a TypeError, None as the robot or the scenario an AttributeError; a port of 2^40
    (an OverflowError), a name that does not resolve or an address of no interface here stopped viser's
    server thread, and the caller waited for ever (``legsim view RUN --host x`` hung); None as the host
    served on every interface, and a list of numbers was taken as the column names."""
    from legsim.viz import viewer as V

    def ctrl_c():
        raise KeyboardInterrupt

    monkeypatch.setattr(V, "_wait_forever", ctrl_c)
    _one_wrong_argument(call, SERVER_CALLS[call], data)


def _hybrid_calls():
    from legsim import hybrid
    from legsim.examples import bouncing_ball as B

    model = dict(name="bouncing_ball", state_names=("y", "v"), state_defaults=np.array([1.0, 0.0]),
                 param_names=("g", "e"), param_defaults=np.array([9.81, 0.9]),
                 guards=(hybrid.Guard("ground", hybrid.Direction.FALLING, hybrid.Placement.RIGHT),),
                 output_names=("energy",), vector_field=B.ball_field, guard_values=B.ball_guards,
                 reset=B.ball_reset, outputs=B.ball_outputs, mode_name=str, error_messages={}, description="",
                 sample_period=0.0, error_states=0)
    # a run that ends early (a start at t0 = -14 s bounces to a Zeno stop) returns with its status:
    # raise_on_error=False, and max_transitions keeps such a run short
    run = dict(model=B.build_model(), t_final=0.5, x0=None, params={"e": 0.8},
               options=hybrid.Options(max_transitions=1000), mode0=None, t0=0.0, progress=False,
               raise_on_error=False, controller_every=1, keep_records=True)
    return {hybrid.Model: model, hybrid.simulate: run,
            hybrid.Guard: dict(name="ground", direction=hybrid.Direction.FALLING,
                               placement=hybrid.Placement.RIGHT)}


HYBRID_CALLS = _hybrid_calls()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(HYBRID_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_hybrid_model_or_run_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """A hybrid model of one's own (docs/writing-a-model.md: the bouncing ball), its guard and a run of it
    with one argument of the wrong kind or range: accepted (a run may end with its status and message),
    or an InputError naming the argument. Before session 36: None as the names or the guards was
    Python's "not iterable", a string as the defaults or the sample period float()'s ValueError, a list
    of numbers as the guards an AttributeError, '' as mode0 int()'s ValueError, None as the model an
    AttributeError, an array as progress numpy's ambiguous truth value, and the messages about the
    defaults, the names, t_final and params did not name the argument."""
    _one_wrong_argument(call, HYBRID_CALLS[call], data)


def _identification_calls():
    from legsim import identify as I

    t = np.arange(400) * 1e-3
    v = np.repeat([0.1, 0.2, -0.1, -0.3, 0.4, -0.05, 0.15, -0.25], 50)  # 7 speeds: (4.2.6) determined
    f = 5.0 * np.sign(v) + 10.0 * v
    vc = np.linspace(-5.0, 5.0, 41)
    return {I.design_lowpass: dict(spec="position", fs=1000.0),
            I.zero_phase: dict(x=np.sin(8.0 * t), spec="velocity", fs=1000.0),
            I.velocity_from_position: dict(x=np.sin(8.0 * t), dt=1e-3, filter_position=True,
                                           filter_velocity=True),
            I.stiction_from_step: dict(t=t, f_net=np.where(t > 0.1, 30.0, 0.0),
                                       x=np.where(t > 0.2, (t - 0.2) * 0.1, 0.0), t_step=0.0, offset=0.0,
                                       move_threshold=2e-4),
            I.constant_velocity_segments: dict(v=v, tol=0.01, min_samples=20),
            I.coulomb_viscous_fit: dict(v=v, f=f, segments=[(0, 100), (100, 200)]),
            I.fit_stribeck_tanh: dict(v=v, f=f, p0={"f_s": 6.0}, fix={"i": 2.0}),
            I.fit_input_pressure: dict(vc=vc, p_ss=3.5e5 + 2.5e5 * np.tanh(vc / 2.0), supply=6e5, exhaust=1e5,
                                       rising=True),
            I.fit_quartic_area: dict(vc=vc, a_eq=1e-8 * vc ** 4 + 1e-7),
            I.area_from_cd: dict(vc=vc, cd=np.full(vc.size, 0.5), slope=2e-6, leak=2e-7)}


IDENTIFICATION = _identification_calls()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(IDENTIFICATION, key=lambda f: f.__name__)), data=st.data())
def test_an_identification_call_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """legsim.identify's filters and fits (the Python side of ``legsim fit``) with one argument of the
    wrong kind or range: a result, or an InputError naming the argument. Before session 35 a string, None
    or a list as a log, a rate, a step, a tolerance, a pressure or a flag was Python's, numpy's or
    SciPy's error ("x must be at least 1-D", "padlen", "unhashable type", a singular matrix at 2^40 Hz),
    and a filter name or an empty log got a message naming neither the argument nor the function."""
    _one_wrong_argument(call, IDENTIFICATION[call], data)


def _walking_parts():
    from legsim import walking as W

    return {W.GaitGenerator: dict(gait=W.wave_gait("tripod"), period=1.0),
            W.StepCycle: dict(step_length=0.1, adaptation_height=0.05, transfer_speed=0.2, tau=0.5),
            W.SupportQP: dict(n_feet=4, mu=0.5), W.Gait: dict(name="g", offsets=(0.0, 0.5), tau=0.5)}


@settings(max_examples=200, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_walking_layer_part_with_one_wrong_argument_is_accepted_or_refused_naming_it(data):
    """The walking layer's gait generator, step cycle, support QP and gait (was a TypeError for a string
    period, tau or mu, an AttributeError for a gait that is not a Gait)."""
    parts = _walking_parts()
    maker = data.draw(st.sampled_from(sorted(parts, key=lambda c: c.__name__)), label="part")
    arguments = parts[maker]
    name = data.draw(st.sampled_from(sorted(k for k in arguments if k not in ("name", "offsets"))),
                     label="argument")
    value = data.draw(WRONG, label="value")
    try:
        maker(**{**arguments, name: value})
    except InputError as exc:
        assert name in str(exc), f"{maker.__name__}.{name}: {exc}"



FRESH = object()
"""A valid plant argument of :func:`_timing_calls`: a new ClockPlant each call (a plant serves one run)."""


def _timing_calls():
    from legsim import walking as W
    from legsim.realtime.timing import (
        ClockPlant,
        EtherCATTiming,
        LinkModel,
        run_ethercat,
        run_exchange,
        run_tick_delays,
    )
    from legsim.robots.libra.linear import configuration
    from legsim.robots.libra.params import LibraParams

    def fresh(run):
        @functools.wraps(run)
        def call(plant, **kw):
            return run(ClockPlant() if plant is FRESH else plant, **kw)
        return call

    def zero(t, y):
        return [0.0]

    gen = W.GaitGenerator(W.wave_gait("tripod"), 1.4)
    return {fresh(run_ethercat): dict(plant=FRESH, controller=zero, timing=EtherCATTiming(), t_final=0.01),
            fresh(run_exchange): dict(plant=FRESH, controller=zero, period=1e-3, t_final=0.01,
                                      up=LinkModel(), down=LinkModel(), u0=[0.0], controller_phase=0.0,
                                      clocked=False),
            fresh(run_tick_delays): dict(plant=FRESH, controller=zero, period=1e-3,
                                         delays=np.array([-1, 0, 1]), u0=[0.0]),
            gen.step: dict(dt=1e-3), gen.set_gait: dict(gait=W.wave_gait("wave"), period=2.0),
            configuration: dict(y_b=0.0, separation=0.18, y2=0.0, x_b=None, theta_b=0.0,
                                elbows=(-1, -1, None), params=LibraParams())}


TIMING_CALLS = _timing_calls()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(TIMING_CALLS, key=lambda f: f.__name__)), data=st.data())
def test_a_timing_run_gait_step_or_libra_configuration_with_a_wrong_argument_is_refused_naming_it(call, data):
    """The timing models' runs (EtherCAT, the co-simulation link, the SiL server's tick delays), the gait
    generator's step and gait change, and LIBRA's linearisation configuration with one argument of the
    wrong kind or range: accepted, or an InputError naming the argument. Before session 38 these took
    anything: a negative or NaN t_final was numpy's "negative dimensions" or int()'s ValueError, 1e12 s a
    MemoryError of 7 PiB, None as the plant, the controller or the timing an AttributeError or
    TypeError, a string as the new gait an AttributeError, a NaN or negative step was taken (the gait
    clocks ran backwards or went NaN), and LIBRA's elbows as a number or params as None a TypeError or
    AttributeError; a random round then found t_final = 0 (numpy's reshape of no rows)."""
    _one_wrong_argument(call, TIMING_CALLS[call], data)


def _library_function_calls():
    from legsim.actuators.electric import battery as EB
    from legsim.actuators.electric import dcmotor as EM
    from legsim.actuators.electric import drive_loops as ED
    from legsim.actuators.electric import pmsm as EP
    from legsim.actuators.pneumatic import consumption as PC
    from legsim.actuators.pneumatic import flow as PF
    from legsim.contact import impulse as CI
    from legsim.contact import laws as CL
    from legsim.contact import meshes as CM
    from legsim.contact import shapes as CS
    from legsim.control import cjtc as KC
    from legsim.control import mobility as KM
    from legsim.robots.anton import AntonParams, leg_fk
    from legsim.robots.anton import leg_ik as anton_leg_ik
    from legsim.robots.pneumatic_rig import metrics as RM
    from legsim.robots.rats import geometry as G
    from legsim.robots.rats import planner as P
    from legsim.robots.rats import rolling as R
    from legsim.robots.rats import stance as S
    from legsim.robots.rats.experiments import stance_now
    from legsim.robots.rotto.model import leg_ik as rotto_leg_ik
    from legsim.robots.rotto.params import RottoParams

    leg = int(G.STANCES[0][0])
    tri = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    t = np.linspace(0.0, 1.0, 101)
    step = np.where(t < 0.2, 0.0, 1.0 - np.exp(-(t - 0.2) / 0.05))
    air = dict(critical_ratio=None, laminar_ratio=0.999)
    return {
        G.stance_of: dict(legs=tuple(int(i) for i in G.STANCES[0])), G.transition: dict(stance=0, leg=leg),
        G.tip_edge: dict(stance=0, leg=leg), G.gravity_dir: dict(stance=0),
        G.tip_axis: dict(stance=0, leg=leg),
        G.tip_rotation: dict(stance=0, leg=leg), G.resting_rotation: dict(stance=0, yaw=0.0),
        G.planar_feet: dict(stance=0, l=0.2, yaw=0.0, centre=(0.0, 0.0)),
        G.tip_pose: dict(rotation=G.resting_rotation(0), centre=(0.0, 0.0, 0.2), stance=0, leg=leg, l=0.2),
        G.reflect_across_line: dict(points=tri, a=(0.0, 0.0), b=(1.0, 1.0)),
        G.honeycomb: dict(feet=G.planar_feet(0), radius=0.5),
        P.barycentric: dict(tri=tri, w=(0.2, 0.2)), P.in_triangle: dict(tri=tri, w=(0.2, 0.2), tol=1e-12),
        P.edge_normals: dict(feet=tri),
        P.circle_path: dict(radius=1.0, centre=(0.0, 0.0), spacing=0.02, start_angle=0.0, ccw=True),
        P.figure8_path: dict(width=1.0, centre=(0.0, 0.0), spacing=0.02),
        P.path_distance: dict(points=tri, path=P.circle_path(1.0)),
        R.quantise_ms: dict(duration_s=0.03),
        R.heading_error: dict(omega_world=(0.0, 1.0, 0.0), heading_world=(1.0, 0.0, 0.0),
                              gravity_world=(0.0, 0.0, -1.0), omega_min=0.0),
        S.classify: dict(detected=1, predicted=1, previous=0),
        S.shortest_transitions: dict(start=0, goal=5, first_leg=None),
        S.expected_readings: dict(mounting=None, g=9.80665), stance_now: dict(quat=(0.0, 0.0, 0.0, 1.0)),
        CM.sphere_mesh: dict(radius=1.0, nlat=12, nlon=24),
        CM.capsule_mesh: dict(radius=1.0, half_length=0.5, nlat=12, nlon=24),
        CM.cone_mesh: dict(radius=1.0, half_length=0.5, nseg=24),
        CM.box_mesh: dict(half_extents=(1.0, 1.0, 1.0)),
        CM.convex_triangle_mesh: dict(points=np.array([[x, y, z] for x in (0, 1) for y in (0, 1)
                                                       for z in (0, 1)], dtype=float)),
        CL.restitution_damping_thesis: dict(eps=0.5), CL.restitution_damping_exact: dict(eps=0.5),
        CL.restitution_of_damping: dict(D=0.5), CL.kelvin_voigt_damping: dict(eps=0.5, k=1e5, m=1.0),
        CI.collide_spheres_1d: dict(masses=[1.0, 1.0, 1.0], velocities=[1.0, 0.0, 0.0], e=1.0,
                                    scheme="simultaneous"),
        CS.inclined_plane: dict(angle=0.1, through=(0.0, 0.0, 0.0)),
        PF.orifice_mass_flow: dict(area=1e-6, p_up=6e5, p_down=1e5, T_up=293.0, **air),
        PF.signed_mass_flow: dict(area=1e-6, p_a=6e5, p_b=1e5, T_a=293.0, T_b=293.0, **air),
        PF.flow_function: dict(pressure_ratio=0.5, critical_ratio=None, laminar_ratio=0.0),
        PF.iso6358_mass_flow: dict(conductance=1e-8, critical_ratio=0.3, p_up=6e5, p_down=1e5, T_up=293.0,
                                   subsonic_index=0.5, laminar_ratio=0.999, rho0=1.185, T0=293.15),
        PF.cv_mass_flow: dict(cv=0.1, p_up=6e5, p_down=1e5, T_up=293.0, mode="corrected",
                              critical_ratio=0.528, laminar_ratio=0.999),
        PC.endurance_s: dict(supply_kg=1.0, rate_kg_s=0.01),
        EB.charge_fraction: dict(t=[0.0, 1.0, 2.0], current=[1.0, 1.0, 1.0], battery=None),
        EB.lifetime: dict(t=[0.0, 1.0, 2.0], charge=[1.0, 0.5, 0.2]),
        EM.torque_limits: dict(omega_leg=1.0, stall_torque=1.0, max_speed_rpm=10000.0, gear_ratio=33.0),
        EM.stall_torque: dict(max_speed_rpm=10000.0, speed_constant=61.26, torque_constant=0.0163,
                              armature_resist=2.0, gear_ratio=33.0),
        EP.park_clarke: dict(ia=1.0, ib=-0.5, ic=-0.5, phi=0.0, factor=2.0 / 3.0),
        ED.second_order_from_specs: dict(bandwidth_hz=50.0, first_reach=0.015),
        ED.shape_step: dict(target=1.0, v_max=1.0, a_max=10.0, period=1e-3, n=100, y0=0.0),
        KC.compliant_equilibrium: dict(kp=100.0, ke=1000.0, x_cmd=0.1, x_e=0.0),
        KM.numerical_rank: dict(A=np.eye(3), rtol=1e-6), KM.cjtc_rank_test: dict(J=np.eye(3), rtol=1e-6),
        anton_leg_ik: dict(p=AntonParams(), foot=leg_fk(AntonParams(), 0.1, 0.3, -0.6)),
        leg_fk: dict(p=AntonParams(), alpha=0.1, beta=0.3, gamma=-0.6),
        rotto_leg_ik: dict(p=RottoParams(), ankle=(0.0, 0.0, -0.55), yaw=0.0),
        RM.rmse: dict(y=[1.0, 2.0], y_ref=[1.0, 2.5]),
        RM.step_metrics: dict(t=t, y=step, y0=0.0, y1=1.0, t_step=0.2, band=0.05),
        RM.first_order_fit: dict(t=t, y=step, t0=0.2, t1=None),
        RM.lag_by_xcorr: dict(t=t, y=step, ref=step, max_lag=0.1)}


def _more_library_function_calls():
    from legsim.control import cost as KK
    from legsim.control import mobility as KM
    from legsim.control.cjtc import environment_is_rigid
    from legsim.hybrid import params as HP
    from legsim.realtime.transport import is_loopback
    from legsim.robots.anton import AntonParams, hip_placements
    from legsim.robots.crr_leg import walking as CW
    from legsim.robots.crr_quadruped.motions import squat_posture
    from legsim.robots.libra import dynamics as LD
    from legsim.robots.libra import kinematics as LK
    from legsim.robots.libra.linear import configuration, linearise
    from legsim.robots.rats.geometry import resting_rotation
    from legsim.robots.rats.hopping import thrust_directions
    from legsim.robots.rotto.linkage import drive_envelope
    from legsim.robots.rotto.model import hip_centre
    from legsim.robots.rotto.params import RottoParams

    phi, theta = configuration(0.0)
    pose = dict(phi=phi, theta=theta)
    foot = CW.foot_position(np.radians(CW.NOMINAL_POSTURE_DEG))
    return {
        LK.u1: pose, LK.t_matrix: pose, LK.jacobian_u1: pose, LK.points: pose,
        LK.joint_limit_excess: dict(theta=theta), LK.phi_from_y2: dict(theta=theta, y2=0.0, phi_ref=None),
        LD.inertia_matrix: pose, LD.gravity_forces: pose, LD.potential_energy: pose,
        linearise: dict(phi=phi, theta=theta, k_wall=None),
        CW.foot_position: dict(q=np.radians(CW.NOMINAL_POSTURE_DEG)),
        CW.inverse_kinematics: dict(target=foot, q_guess=None, tol=1e-12, max_iter=60),
        thrust_directions: dict(rotation=resting_rotation(0)),
        KM.rank_mobility: dict(constraint=lambda q: [q[0] - q[1]], p0=[0.1, 0.2], controls=(), step=1e-6,
                               rtol=1e-6),
        KM.finite_difference_jacobian: dict(fun=lambda q: [q[0] * q[1]], p0=[0.1, 0.2], step=1e-6),
        environment_is_rigid: dict(deflection=0.001, span=0.7),
        KK.cjtc_flops: dict(r=6, s=6, full_gains=False, gravity="lumped"),
        KK.resolved_rate_flops: dict(r=6, s=6), KK.computed_torque_flops: dict(r=6, s=6),
        is_loopback: dict(host="127.0.0.1"),  # (legsim.realtime.messages raises ValueError: it imports
        # nothing from legsim, so that a controller on another machine can take a copy of the file)
        HP.between: dict(low=0.0, high=1.0, unit="m", doc="", open_low=False, open_high=False),
        HP.positive: dict(unit="m", doc=""), squat_posture: dict(depth=0.02, posture_deg=None),
        hip_placements: dict(p=AntonParams()), hip_centre: dict(p=RottoParams(), leg="L"),
        drive_envelope: dict(p=None, n=145)}


def _contact_library_function_calls():
    from legsim.contact import impulse as CI
    from legsim.contact import laws as CL
    from legsim.contact import lcp as LCP
    from legsim.contact import meshes as CM
    from legsim.contact import shapes as CS
    from legsim.validation.contact import impact

    law = CL.ContactLaw(CL.kelvin_voigt(1e4, 10.0), CL.coulomb(1.0, 0.01))
    box = CM.box_mesh((1.0, 1.0, 1.0))
    return {
        CL.normal_force: dict(law=law, p=1e-3, pdot=0.1, v_imp=0.0),
        CL.friction_force: dict(law=law, fn=10.0, vt=(0.1, 0.0, 0.0), anchor=None),
        CL.threshold_curve: dict(law=CL.ContactLaw(law.normal, CL.threshold(1.5, 100.0, 1e-3, 1e-3)), v=0.1),
        # (a pivot limit too low to solve is Lemke's documented LemkeError, which names max_pivots)
        LCP.solve_lcp: dict(M=2.0 * np.eye(2), q=np.array([-1.0, 1.0])),
        CI.newton_impulse_pair: dict(m1=1.0, m2=2.0, v1=(1.0, 0.0, 0.0), v2=(0.0, 0.0, 0.0),
                                     normal=(1.0, 0.0, 0.0), e=0.5),
        CI.resolve_impulses: dict(masses=[1.0, 1.0], velocities=[[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                  contacts=[(0, 1, (1.0, 0.0, 0.0))], e=1.0, scheme="propagation",
                                  max_sweeps=1000),
        CM.grid_surface: dict(height=lambda x, y: 0.1 * x * y, size=1.0, n=4),
        CS.Cone: dict(radius=1.0, half_length=0.5),
        CS.HeightField: dict(heights=np.zeros((3, 3)), dx=0.1, dy=0.1, origin=(0.0, 0.0)),
        CS.TerrainMesh: dict(vertices=np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
                             faces=np.array([[0, 1, 2]]), cell=0.0),
        CS.TriangleMesh: dict(vertices=box.vertices, faces=box.faces),
        CS.mass_properties: dict(shape=CS.Cone(1.0, 0.5), density=1000.0),
        CS.check_closed_mesh: dict(vertices=box.vertices, faces=box.faces, name="TriangleMesh"),
        impact: dict(law=law, m=1.0, v0=1.0, t_max=1.0)}


def _actuator_and_control_function_calls():
    from legsim.actuators.electric import battery as EB
    from legsim.actuators.electric import dcmotor as EM
    from legsim.actuators.electric import drive_loops as ED
    from legsim.actuators.electric import pmsm as EP
    from legsim.actuators.pneumatic import consumption as PC
    from legsim.actuators.pneumatic import friction as PF
    from legsim.actuators.pneumatic import gas as PG
    from legsim.actuators.pneumatic import linkage as PL
    from legsim.actuators.pneumatic import solenoid as PS
    from legsim.control import cost as KK
    from legsim.control import mechanism as KME
    from legsim.control import variables as KV

    gains = ED.sea_force_gains(cf=1e4, kv=1e-3, cm=0.1, inertia=1e-5)
    freqs = np.linspace(1.0, 200.0, 50)
    plant = dict(cf=1e4, kv=1e-3, cm=0.1, inertia=1e-5, viscous=0.0)
    J, M = np.array([[1.0, 0.2], [0.0, 1.0]]), np.array([[2.0, 0.1], [0.1, 1.0]])
    e, zero = np.array([0.1, 0.0]), np.zeros(2)
    return {
        EM.speed_constant_rpm_per_volt: dict(k_omega=61.261056),
        EM.saturate_torque: dict(tau=[0.5, -0.5], omega_leg=1.0, stall_torque=1.0, max_speed_rpm=1e4,
                                 gear_ratio=33.0),
        EM.armature_current: dict(tau=0.5, torque_constant=0.0163, gear_ratio=33.0),
        EM.armature_voltage: dict(i_a=1.0, omega_leg=1.0, armature_resist=2.0, gear_ratio=33.0,
                                  speed_constant=61.26),
        EB.PeukertBattery: dict(capacity_ah=2.2, rated_hours=20.0, exponent=1.16, voltage=12.0),
        ED.rotto_actuator: dict(v_dc=24.0, pole_pairs=4, inductance=1e-4, lead=0.008, belt=2.0,
                                rotor_inertia=3e-6, ratings=None),
        ED.second_order_bandwidth: dict(zeta=0.7), ED.second_order_first_reach: dict(zeta=0.7),
        ED.sea_force_gains: dict(**plant, bandwidth_hz=50.0, first_reach=0.015),
        ED.obstacle_force_bound: dict(force_limit=100.0, f_impact=50.0, spring_rate_jump=2.0, omega_n=300.0,
                                      zeta=0.7),
        ED.sea_force_response: dict(freqs=freqs, gains=gains, **plant, current_bandwidth_hz=1000.0,
                                    pwm_hz=28000.0, period=0.0),
        ED.bandwidth_of: dict(response=ED.sea_force_response(freqs, gains, **plant), freqs=freqs),
        EP.inverse_park_clarke: dict(ud=1.0, uq=0.5, phi=0.3),
        EP.pi_response: dict(errors=[1.0, 0.5, 0.2], p_gain=1.0, i_gain=0.1, s0=0.0),
        EP.current_pi_gains: dict(motor=ED.rotto_actuator().motor, bandwidth_hz=1000.0),
        EP.ripple_rms: dict(duties=np.array([[0.5, 0.3, 0.2]]), v_dc=24.0, inductance=1e-4, period=1 / 28000),
        PC.air_summary: dict(t=[0.0, 1.0, 2.0], m_air=[0.0, 0.01, 0.02], supply_kg=0.1),
        PF.friction_force: dict(friction=PF.stribeck_tanh_source(), v=[0.1, -0.1], f_applied=0.0, stuck=0,
                                z=0.0),
        PF.lugre_bristle_rate: dict(friction=PF.stribeck_tanh_source(), v=0.1, z=0.0),
        PG.Gas: dict(k=1.4, R=287.0, cp=1012.0, specific_gravity=1.0, name="air"),
        PL.LinearLinkage: dict(theta0=0.0, x0=0.0, theta1=1.0, x1=0.05),
        PS.Command: dict(leg=1, duration_ms=20, wait_ms=10),
        PS.CommandQueue: dict(n_legs=12, commands=[(3, 40, 100), (7, 20, 5)]),
        KV.force_offset: dict(x_contact=0.1, force=10.0, kp=1000.0),
        KK.cjtc_law: dict(J=J, kp=np.ones(2), kd=np.full(2, 0.1), e=e, e_dot=zero, G=zero),
        KK.resolved_rate_law: dict(J=J, k=np.ones(2), e=e, u_dot_cmd=zero, theta_dot=np.array([0.05, 0.0]),
                                   kv=np.full(2, 2.0), G=zero),
        KK.computed_torque_law: dict(J=J, M=M, h=zero, kp=np.ones(2), kd=np.full(2, 0.1), e=e, e_dot=zero,
                                     u_ddot_cmd=zero),
        KME.joint_kind: dict(name="revolute", space=None)}


_FILES = tempfile.TemporaryDirectory(prefix="legsim-fuzz-")
"""Where the file functions write (removed at the interpreter's exit)."""


def _file_and_drawing_function_calls(tmp: Path):
    from legsim import simsect as SS
    from legsim.io.results import run_params
    from legsim.sweep import apply_variation
    from legsim.viz import scene as VS
    from legsim.viz.viewer import frame_times

    return {
        # (a malformed text is told by its source and line: "text" here, a file's path in read_rc, which
        # names a missing file as "init file '...'")
        SS.parse_rc: dict(text="finalTime = 1.0\nname = \"x\"\n", source="text"),
        SS.format_rc: dict(values={"finalTime": 1.0, "name": "Müller"}, header="a header"),
        SS.write_rc: dict(path=tmp / "written.rc", values={"finalTime": 1.0}, header=""),
        run_params: dict(meta={"scenario": {"params": {"k": 1.0}}}),
        apply_variation: dict(data={"params": {"k": 1.0}}, variation={"params.k": 2.0}),
        VS.rotation_to_wxyz: dict(R=np.eye(3)), VS.wxyz_to_rotation: dict(q=np.array([1.0, 0.0, 0.0, 0.0])),
        VS.inertia_box: dict(mass=1.0, inertia=np.diag([0.1, 0.2, 0.25])),
        VS.z_to: dict(direction=(0.0, 1.0, 0.0)),
        frame_times: dict(t=np.linspace(0.0, 1.0, 11), fps=30.0, speed=1.0, owner="viewer")}


def _multibody_conversion_calls():
    import pinocchio as pin

    from legsim import multibody as MB
    from legsim.examples import two_link_arm
    from legsim.multibody import hybrid_model as HM

    arm = two_link_arm.build()
    b = MB.RobotBuilder("floating")
    b.add_body("base", "world", "free", mass=1.0, inertia=(0.1, 0.1, 0.1))
    b.add_body("l1", "base", "revolute", axis=(0, 0, 1), mass=0.5, com=(0.1, 0, 0),
               inertia=(1e-3, 1e-3, 1e-3))
    floating = b.compile()
    pin_arm = pin.buildModelFromXML(MB.to_urdf(arm))  # continuous joints: nq 2 each in Pinocchio
    pin_floating = pin.buildModelFromXML(MB.to_urdf(floating), pin.JointModelFreeFlyer())
    q = np.array([0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0, 0.3])
    urdf = MB.to_urdf(floating)
    return {
        # (a malformed text is told by its source, "text" here: a file's path when load_urdf reads one)
        MB.parse_urdf: dict(text=urdf, source="text", floating_base=False, gravity=(0.0, 0.0, -9.81),
                            limit_stiffness=0.0, limit_damping=0.0, friction_velocity=0.001, mimic="error",
                            meshes="hull", package_dirs=(), base_dir=None, max_hull_vertices=200),
        MB.to_mjcf: dict(model=arm, timestep=0.001, integrator="RK4"),
        MB.to_urdf: dict(model=arm, capsules="capsule"),
        MB.pinocchio_q: dict(model=floating, q=q, pin_model=pin_floating),
        MB.pinocchio_v: dict(model=arm, v=np.zeros(2), pin_model=pin_arm),
        MB.from_pinocchio_q: dict(model=arm, q_pin=pin.neutral(pin_arm), pin_model=pin_arm),
        MB.from_pinocchio_v: dict(model=floating, v_pin=np.arange(7.0), pin_model=pin_floating),
        MB.qpos_to_mujoco: dict(model=floating, q=q),
        MB.qvel_to_mujoco: dict(model=floating, q=q, v=np.arange(7.0)),
        HM.articulated_model: dict(mb_model=floating, kp=1.0, kd=[0.5], q_ref={"l1": 0.2}, v_ref=0.0,
                                   tau_ff=0.1, q0=q, v0=np.ones(7), name="floating"),
        HM.initial_state: dict(mb_model=floating, q=q, v=None),
        HM.split_state: dict(mb_model=floating, x=np.stack([np.concatenate([q, np.zeros(7)])] * 2))}


def _crr_and_rig_helper_calls():
    from legsim.actuators.pneumatic.linkage import Joint
    from legsim.robots import pneumatic_presets as PP
    from legsim.robots.crr_leg import control as CC
    from legsim.robots.crr_leg import geometry as CG
    from legsim.robots.crr_leg.prismatic import bimba_cylinder_inertia
    from legsim.robots.crr_leg.recorded import knots_from_samples
    from legsim.robots.crr_quadruped.body import trunk_inertia
    from legsim.robots.crr_quadruped.motions import squat_references
    from legsim.robots.pneumatic_rig import metrics as RM

    t = np.linspace(0.0, 1.0, 201)
    y = np.where(t < 0.2, 0.0, 1.0 - np.exp(-(t - 0.2) / 0.05) * np.cos(40.0 * (t - 0.2)))
    pid = np.zeros(len(CC.param_names(["knee", "hip"])))
    pid[CC.C_N] = 2
    return {
        CC.param_names: dict(joints=["knee", "hip"]),
        CC.memory_names: dict(joints=("knee",)),
        CC.param_ranges: dict(joints=["knee", "hip"], params=pid),
        RM.ringing: dict(t=t, y=y, y0=0.0, y1=1.0, t_step=0.2, min_prominence=0.1),
        RM.pneumatic_natural_frequency: dict(p_cap=4e5, p_rod=3e5, v_cap=1e-5, v_rod=1e-5, a_cap=5e-4,
                                             a_rod=4e-4, mass=0.2, n=1.4),
        PP.friction_for_units: dict(units="lbf_in_s"),
        CG.design_linkage: dict(joint=Joint.ALPHA, l1=0.05, stroke=0.04, gamma_mid=math.pi / 2, phi1=0.2),
        knots_from_samples: dict(t=t, theta=y, tolerance=0.01, max_knots=64),
        squat_references: dict(depth=0.02, t_start=0.5, ramp=1.0, hold=1.0, posture_deg=None),
        trunk_inertia: dict(mass=2.0),
        bimba_cylinder_inertia: dict(linkage=CG.default_linkages()[1], cylinder=None)}


def _rats_and_rhex_helper_calls():
    from legsim.robots.rats import geometry as G
    from legsim.robots.rats import planner as P
    from legsim.robots.rats import rolling as R
    from legsim.robots.rhex import terrain as T
    from legsim.robots.rhex.model import build_model

    params = R.RollingParams()
    theta_cor = np.array([0.6, -0.6, 0.0, -params.beta, 0.2])
    sines = build_model().params(T.terrain_params("sinusoidal", 0.05, 3.0, 2.0))
    field = T.HeightField(np.arange(12.0).reshape(3, 4) * 0.01, -0.5, -0.5, 0.25, 0.25)
    grid = build_model(heightfield=field, terrain_type=4).params()
    return {
        R.leg_angles: dict(R=G.resting_rotation(3, 0.2), heading_world=(1.0, 0.0, 0.0), legs=G.LEG_DIRECTIONS,
                           gravity_world=(0.0, 0.0, -1.0)),
        R.r_total: dict(z=0.19, theta_cor=0.4, phi=0.093),
        R.firing_angle: dict(theta_cor=theta_cor, z=0.19, omega_pitch=6.0, omega_roll=2.0, params=params,
                             phi=None),
        R.eligible: dict(z=0.2, theta_sag=np.array([1.0, -1.0, 0.0]), theta_cor=np.array([0.0, 0.3, 0.9]),
                         dr=np.array([0.0, 0.05, 0.1]), down=np.array([True, True, False]), params=params),
        R.brake_signal: dict(v=1.25, v_d=1.0, params=params, integral=0.5),
        R.brake_valve_time: dict(theta_cor=0.3, xi=0.5, params=params),
        R.turn_effort: dict(theta_error=0.3, params=params),
        R.turn_adjustments: dict(theta_cor=theta_cor, theta_error=0.5, xi_turn=0.5, params=params),
        R.BrakeController: dict(params=params),
        P.initial_state: dict(stance=6, dims=G.RatsDims(), yaw=0.3, centre=(0.0, 0.0)),
        P.choose_leg: dict(state=P.initial_state(0), heading=(1.0, 0.5)),
        T.terrain_height: dict(p=sines, x=np.array([0.1, 0.5]), y=0.2),
        T.terrain_normal: dict(p=grid, x=0.1, y=np.array([0.1, -0.3])),
        T.terrain_params: dict(kind="sinusoidal", a1=0.05, a2=3.0, a3=2.0),
        T.check_heightfield: dict(p=grid), T.check_terrain: dict(p=grid)}


def _libra_rotto_anton_helper_calls():
    from legsim.robots.anton import model as AM
    from legsim.robots.anton.params import AntonParams
    from legsim.robots.libra import control as LC
    from legsim.robots.libra import dynamics as LD
    from legsim.robots.libra import kinematics as LK
    from legsim.robots.libra import linear as LL
    from legsim.robots.libra.params import FOOT3_KD, FOOT3_KP, TUNED_KD, TUNED_KP, LibraParams
    from legsim.robots.rotto import model as RM
    from legsim.robots.rotto import robot as RR
    from legsim.robots.rotto.params import RottoParams

    params, anton = LibraParams(), AntonParams()
    phi, theta = LL.configuration(0.0)
    pose = dict(phi=phi, theta=theta, params=params)
    linear = LL.linearise(phi, theta)
    n = 11
    track = {"t": np.linspace(0.0, 1.0, n),
             "com": np.column_stack([np.linspace(0.0, 0.1, n), np.zeros(n), np.full(n, 0.7)]),
             "margin_com": np.linspace(0.02, 0.03, n),
             "margin_zmp": np.r_[np.nan, np.linspace(0.001, 0.04, n - 1)], "tilt": np.linspace(0.0, 0.01, n)}
    return {  # (ROTTO's peak_drive_force takes a simulated Robot and Result: checked by type, not swept here)
        LK.point_jacobian: dict(name="foot2", **pose), LK.u2: dict(pose),
        LK.u3: dict(**pose, foot1=(0.01, -0.02)),
        LK.phi_from_y2_newton: dict(theta=theta, y2=0.0, params=params, phi0=phi + 0.05, tol=1e-13,
                                    max_iter=50),
        LK.phi_branches: dict(theta=theta, y2=0.0, params=params),
        LK.dphi_dtheta: dict(pose), LK.dphi_dtheta_atan: dict(pose), LK.jacobian_4x5: dict(pose),
        LK.jacobian_over: dict(names=("x_b", "y2", "theta_b"), **pose),
        LD.mass_points: dict(pose), LD.reduced_inertia: dict(pose), LD.gravity_torques: dict(**pose, g=9.81),
        LD.top_chain_mass: dict(params=params),
        LL.loop_bandwidths: dict(sys=linear.consistent()),
        LL.peak_magnitudes: dict(sys=linear.position_only(), omega=np.logspace(-1.0, 2.0, 50)),
        LL.analyse: dict(phi=phi, theta=theta, kp=TUNED_KP, kd=TUNED_KD, params=params, y_b=0.0, k_wall=None),
        LL.sweep_row: dict(y_b=0.0, separation=0.18, y2=0.0, kp_scale=1.0, kd_scale=1.0, seed=0),
        LC.gains: dict(vector="u1", body_kp=TUNED_KP[:3], body_kd=TUNED_KD[:3], force_kp=TUNED_KP[3],
                       force_kd=TUNED_KD[3], foot_kp=FOOT3_KP[0], foot_kd=FOOT3_KD[0]),
        RM.pad_positions: dict(p=RottoParams()),
        RR.drive_strokes: dict(mb=RM.build_model(RottoParams()), params=RottoParams(), n=9),
        RR.balance_summary: dict(track=track, t_from=0.1),
        AM.leg_jacobian: dict(p=anton, alpha=0.1, beta=0.3, gamma=-0.6),
        AM.feet_in_body: dict(p=anton, q_joints=np.linspace(-0.5, 0.5, 22),
                              placements=AM.hip_placements(anton))}


def _pneumatic_identify_and_preset_calls(tmp: Path):
    from legsim.actuators.pneumatic import (
        AIR,
        ActuatorBatch,
        Cylinder,
        Friction,
        HeatModel,
        PneumaticActuator,
        ProportionalValve,
        mpye5_fitted,
        mpye5_simple,
        mpye5_underlapped,
        stack_rows,
    )
    from legsim.actuators.pneumatic import _layout as PL
    from legsim.actuators.pneumatic import units as U
    from legsim.actuators.pneumatic.batch import checked_state
    from legsim.identify import FilterSpec, fit_parameters, read_log
    from legsim.identify.friction import stribeck_tanh_curve
    from legsim.identify.valve import input_pressure_curve
    from legsim.robots.crr_leg import (
        CylinderInertia,
        capsule_inertia,
        default_cylinder_inertias,
        default_linkages,
        references_from_csv,
    )
    from legsim.robots.crr_leg import _joint_kernels as JB
    from legsim.robots.crr_leg.control import (
        block_offset,
        controller_params,
        initial_memory,
        memory_offset,
        row_offset,
    )
    from legsim.robots.crr_leg.geometry import Capsule
    from legsim.robots.pneumatic_presets import leg_preset, preset, rig_identified_preset, rig_preset
    from legsim.robots.pneumatic_rig.hop import HopBench
    from legsim.robots.pneumatic_rig.rig import Reference, RigBench
    from legsim.robots.rhex import default_options
    from legsim.robots.rhex.model import stance_mask

    log = tmp / "log.csv"  # three rows: time, three joint angles, a reference
    log.write_text("t,alpha,beta,gamma,ref\n0.0,0.1,-0.5,0.8,0.0\n0.01,0.11,-0.49,0.81,0.001\n"
                   "0.02,0.12,-0.48,0.82,0.002\n")
    valve = dict(u_min=0.0, u_max=10.0, u_center=5.0, u_offset=5.25, voltage_reference=0, slope_cap=1.8e-7,
                 leak_cap=1.8e-8, slope_rod=2.4e-7, leak_rod=2.4e-8, underlap=0.75, c_hp_cap=1.25,
                 c_lp_cap=-0.75, c_hp_rod=-0.75, c_lp_rod=1.25,
                 poly_cap_pos=(1.32e-8, -1.302e-7, 3.608e-7, -4.33e-8, 1.42e-8),
                 poly_cap_neg=(9.4e-9, 9.35e-8, 2.326e-7, -2.225e-7, 1.87e-8),
                 poly_rod_pos=(8.619e-9, -9.566e-8, 2.899e-7, 7.747e-8, 4.378e-9),
                 poly_rod_neg=(6.531e-9, 6.397e-8, 1.490e-7, -1.928e-7, 1.419e-8))
    return {
        U.psi_to_pa: dict(p=65.0), U.pa_to_psi: dict(p=4.5e5),
        U.psig_to_pa: dict(p=50.3, p_atm_psi=14.7), U.pa_to_psig: dict(p=4.5e5, p_atm_psi=14.7),
        U.psia_to_pa: dict(p=65.0), U.pa_to_psia: dict(p=4.5e5),
        U.lbf_to_n: dict(f=4.5), U.n_to_lbf: dict(f=20.0), U.inch_to_m: dict(x=1.75),
        U.m_to_inch: dict(x=0.0445),
        U.mpa_gauge_to_pa: dict(p=0.724, p_atm=101325.0), U.kelvin_to_rankine: dict(t=298.15),
        mpye5_fitted: dict(model=2, **valve), mpye5_simple: dict(model=0, **valve),
        mpye5_underlapped: dict(model=1, **valve),
        PneumaticActuator: dict(gas=AIR, t_supply=298.0, p_supply=448159.4, p_exhaust=108247.7,
                                p_atm=101352.0,
                                cylinder=Cylinder(), valve=ProportionalValve(), friction=Friction(),
                                heat=HeatModel.ADIABATIC, n_poly=1.3, critical_ratio=0.528,
                                laminar_ratio=0.999),
        ActuatorBatch: dict(actuators=[PneumaticActuator()]),
        stack_rows: dict(actuators=[PneumaticActuator()]),
        checked_state: dict(state=np.array([[4e5, 2e5, 1e-4, 1e-4, 0.0]]), n=1),
        stribeck_tanh_curve: dict(v=np.array([-0.1, 0.0, 0.05]), f_s=20.0, f_c=13.3, c_v=2.2, v_s=0.1, i=5.0,
                                  k_tanh=40.0),
        input_pressure_curve: dict(vc=np.array([-1.0, 0.0, 1.0]), c_hp=1.25, c_lp=-0.75, p_s=4.5e5,
                                   p_e=1.08e5),
        FilterSpec: dict(f_pass=12.0, f_stop=15.0, a_pass=1.0, a_stop=30.0),
        read_log: dict(path=log, required=("t", "ref")),
        fit_parameters: dict(predict=lambda d: d["a"] * np.arange(3.0) + d["b"],
                             measured=np.array([1.0, 3.0, 5.0]), start={"a": 1.0}, bounds={"a": (0.0, 10.0)},
                             scale=1.0, fixed={"b": 1.0}),
        preset: dict(name="rig 50 psig, vertical, 0.2 kg"),
        rig_preset: dict(exhaust_psia=15.7, voltage_reference="consistent", friction_units="lbf_m_s",
                         orientation="rod_down"),
        rig_identified_preset: dict(valve="fitted", friction="stribeck"),
        leg_preset: dict(exhaust_psia=24.7, alpha_stroke_in=3.75, voltage_reference="consistent",
                         friction_units="lbf_m_s"),
        RigBench: dict(valve="fitted", friction="stribeck", supply_psig=50.3, exhaust_psia=15.7, mass=0.2,
                       gravity_along_extension=9.81, kp=100.0, ki=0.0, kd=0.0, u_bias=5.25,
                       heat=HeatModel.ADIABATIC, options=None, controller="pid", kv=2.0, ka=0.02,
                       pva_cutoff=0.0, gain_scale=1.0),
        Reference: dict(kind="step", r0=0.0, r1=0.01, t_start=0.1, t_ramp=0.5, t_hold=0.5, amplitude=0.0,
                        omega=1.0, times=[0.0, 1.0], values=[0.0, 0.01], open_loop=False),
        HopBench: dict(preset="spool", exhaust="trapped", friction="thesis", leak=False, options=None),
        references_from_csv: dict(path=log, time_column="t", columns=("alpha", "beta", "gamma"), unit="rad",
                                  tolerance=0.001),
        capsule_inertia: dict(cap=Capsule(0.05, 0.123, 700.0)),
        Capsule: dict(diameter=0.05, length=0.123, density=700.0),
        CylinderInertia: dict(barrel_mass=0.08, barrel_com=0.04, barrel_axial=1e-5, barrel_transverse=1e-4,
                              rod_mass=0.06, rod_com=0.03, rod_axial=1e-6, rod_transverse=5e-5),
        default_cylinder_inertias: dict(linkages=default_linkages()),
        controller_params: dict(blocks=np.zeros((3, JB.NJ)), rows=np.zeros((3, PL.NPARAM)), dt=1e-3,
                                channel_q=0, channel_p=3),
        initial_memory: dict(n=3), block_offset: dict(j=1), row_offset: dict(n=3, j=1),
        memory_offset: dict(n=3, group=2),
        default_options: dict(method="dp45", rtol=1e-6, atol=1e-8, h_max=5e-3, record_period=0.01,
                              max_transitions=200_000, stop_precision=1e-10, sliding=True),
        stance_mask: dict(mode=5)}


def _assembly_contact_and_world_calls():
    from legsim.actuators.electric import PeukertBattery
    from legsim.actuators.electric.drive_loops import RottoActuator, SeaGains, rotto_actuator
    from legsim.actuators.pneumatic import PneumaticActuator
    from legsim.assembly import (
        Battery,
        Contacts,
        JointEncoder,
        LinkageLoop,
        PneumaticCylinder,
        PositionServo,
        Robot,
        SplitExchange,
        contact_geometries,
        rotto_ft_measurements,
        rotto_ft_sensor,
    )
    from legsim.assembly.hardware import merge_overrides, start_state
    from legsim.contact import (
        ContactLaw,
        ConvexMesh,
        HeightFunction,
        LawTable,
        Plane,
        RigidWorld,
        Scene,
        Sphere,
        accumulate_wrenches,
        anchor_spring,
        collide,
        contact_forces,
        coulomb,
        free_body_velocities,
        hunt_crossley,
        linear_penalty,
        make_contacts,
        make_state,
    )
    from legsim.contact.lcp import simulate_lcp
    from legsim.contact.response import check_capacity
    from legsim.contact.stepping import fixed_steps
    from legsim.multibody import RobotBuilder
    from legsim.multibody.model import Geometry
    from legsim.robots.crr_leg.geometry import default_linkages
    from legsim.robots.rotto.linkage import drive_rods, leg_drives
    from legsim.robots.rotto.model import build_model as rotto_model
    from legsim.robots.rotto.params import RottoParams
    from legsim.robots.rotto.robot import RodTargets
    from legsim.world.event_contact import contact_points, event_contact_model, event_contact_robot

    law = ContactLaw(hunt_crossley(1e5, 1.0), coulomb(0.8))
    b = RobotBuilder("ball", gravity=(0.0, 0.0, -9.81))
    b.add_body("ball", "world", "free", mass=0.5, inertia=(1e-3, 1e-3, 1e-3))
    b.add_geometry("ball", "sphere", radius=0.05)
    ball = b.compile()
    b = RobotBuilder("arm", gravity=(0.0, 0.0, -9.81))
    b.add_body("link", "world", "revolute", axis=(0, 1, 0), mass=1.0, inertia=np.eye(3) * 1e-2)
    b.add_geometry("link", "sphere", radius=0.05, xyz=(0.0, 0.0, -0.3))
    arm = b.compile()
    servo = PositionServo("s", "link", kp=10.0, kd=1.0)
    lcp_world = RigidWorld(LawTable(1, ContactLaw(linear_penalty(1e5))))  # the LCP ignores the law table
    lcp_world.add_solid(Sphere(0.05), mass=1.0, pos=(0.0, 0.0, 0.05 - 1e-5))
    lcp_world.scene.add(Plane())
    rotto = RottoParams()
    drive = rotto_actuator()
    cube = 0.1 * np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float)
    scene = Scene()  # a plane under two spheres on bodies 0 and 1: two contacts
    scene.add(Plane())
    scene.add(Sphere(0.05), body=0)
    scene.add(Sphere(0.05), body=1)
    cmodel = scene.compile()
    contacts = make_contacts(cmodel, 16)
    collide(cmodel, np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.049], [0.3, 0.0, 0.048]]),
            np.stack([np.eye(3)] * 3), contacts)
    coms = np.array([[0.0, 0.0, 0.049], [0.3, 0.0, 0.048]])
    return {
        Robot: dict(model=arm, actuators=[servo], sensors=[JointEncoder("e", joints=["link"])], contacts=None,
                    resources=(), control_period=1e-3, command_table=None, name="arm", lanes=True,
                    options=None, loops=(), exchange=None),
        Contacts: dict(law=law, ground=Plane(), geometries=["ball_sphere_0"], path="event", obstacles=(),
                       point="midway"),
        PneumaticCylinder: dict(name="c", joint="piston", actuator=PneumaticActuator(), transmission=None,
                                p_cap0=3e5, p_rod0=2e5, supply=None),
        Battery: dict(name="b", model=PeukertBattery(), c0=0.5),
        rotto_ft_sensor: dict(name="ft", body="foot", geometries=["pad"], position=(0.0, 0.0, 0.0),
                              rotation=np.eye(3), rate_hz=100.0, seed=1),
        rotto_ft_measurements: dict(seed=1),
        SplitExchange: dict(delay_up=1, delay_down=2, pause_t0=0.1, pause_duration=0.05),
        LinkageLoop: dict(joint="alpha", barrel="alpha_barrel", piston="alpha_piston",
                          linkage=default_linkages()[0]),
        contact_geometries: dict(mb=ball, c=Contacts(law)),
        merge_overrides: dict(data={"actuators": {"legs": {"gear": 10.0, "kp": 1.0}}, "name": "x"},
                              overrides={"actuators": {"legs": {"gear": 40.0}}}),
        start_state: dict(robot=Robot(arm, actuators=[servo]), initial={"q0": [0.1], "link_dot": 0.5,
                                                                        "u_s": 0.2}, where="scenario"),
        ConvexMesh: dict(vertices=cube),
        HeightFunction: dict(kind="bump", params=(0.05, 0.0, 0.0, 0.2)),
        simulate_lcp: dict(world=lcp_world, t_final=0.01, dt=1e-3, mu=0.5, restitution=0.2, nd=4, v_rest=1e-2,
                           beta=0.2, slop=1e-5, record_every=1),
        check_capacity: dict(owner="RigidWorld", capacity=64),
        fixed_steps: dict(owner="RigidWorld", t_final=1.0, dt=1e-3, record_every=2, record_bytes=100),
        free_body_velocities: dict(contacts=contacts, com=coms,
                                   vel=np.array([[0.1, 0.0, -0.2], [0.0, 0.2, 0.0]]),
                                   omega=np.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.0]]), vrel=None),
        contact_forces: dict(contacts=contacts, laws=LawTable(1, ContactLaw(hunt_crossley(1e5, 1.0),
                                                                           anchor_spring(0.8, 1e4))),
                             state=make_state(16), vrel=np.array([[0.1, 0.0, -0.2], [0.0, 0.2, -0.1]]),
                             t=0.1, dt=1e-3, force=None),
        accumulate_wrenches: dict(contacts=contacts, force=np.array([[0.0, 0.0, 10.0], [1.0, 0.0, 20.0]]),
                                  com=coms, wrench=None),
        event_contact_robot: dict(model=arm, contact_law=law, ground=Plane(), geometries=["link_sphere_0"],
                                  targets=[[0.0], [0.1]], dt_targets=0.01, name="arm", kp=10.0, kd=1.0,
                                  q_ref=0.1, v_ref=0.0, tau_ff=0.5, actuators=(), sensors=(),
                                  control_period=1e-3),
        event_contact_model: dict(model=arm, contact_law=law, ground=Plane(), geometries=["link_sphere_0"],
                                  targets=None, dt_targets=0.0, name="arm", q0=[0.1], v0=[0.0], kp=10.0,
                                  kd=1.0, q_ref=0.1, v_ref=0.0, tau_ff=0.5),
        contact_points: dict(model=ball, geometries=["ball_sphere_0"]),
        Geometry: dict(name="g", body="link", shape="sphere", params={"radius": 0.05}, R=np.eye(3),
                       p=np.zeros(3), material="default"),
        leg_drives: dict(p=rotto),
        drive_rods: dict(mb=rotto_model(rotto), p=rotto),
        RodTargets: dict(params=rotto),
        RottoActuator: dict(motor=drive.motor, lead=0.008, belt=2.0, i_max=drive.i_max, counts_per_turn=2000,
                            stroke_min=0.0, stroke_max=0.1),
        SeaGains: dict(kp=0.1, kd=0.001, ff=0.05, omega_n=400.0, zeta=0.9)}


def _in_folder(function, folder: Path):
    """``function`` called with ``folder`` as the working directory: the path functions create what a
    wrong value names ("abc" is a relative path) there, not in the repository."""
    @functools.wraps(function)
    def call(**kwargs):
        here = os.getcwd()
        os.chdir(folder)
        try:
            return function(**kwargs)
        finally:
            os.chdir(here)
    return call


def _mechanism_robot_and_file_calls(tmp: Path):
    from legsim import control as K
    from legsim import userfiles as UF
    from legsim.control import mechanism as KME
    from legsim.control import mobility as KM
    from legsim.examples import two_link_arm
    from legsim.robots.anton import foot_layout
    from legsim.robots.anton.climb import FeltFootholds
    from legsim.robots.anton.robot import SurfaceFollowing
    from legsim.robots.libra import mobility as LM
    from legsim.robots.libra.control import Inclinometer
    from legsim.robots.libra.params import LibraParams
    from legsim.robots.libra.robot import gear_friction
    from legsim.robots.rats import stance as RS
    from legsim.robots.rats.robot import ValveTimers
    from legsim.sweep import outputs as SO
    from legsim.sweep import spec as SP
    from legsim.viz import scene as VS
    from legsim.viz.animate import terrain_label
    from test_cjtc_mobility import four_bar

    def on_a_new_four_bar(method):  # the add_* methods change their mechanism: a new one each call
        @functools.wraps(method)
        def call(**kw):
            return method(four_bar(), **kw)
        return call

    def add_link(name):  # Mechanism.add_link(*names), one name
        return four_bar().add_link(name)

    @functools.wraps(KME.draw_fixed_coordinates)
    def draw_fixed_coordinates(m, link, fixed):  # it adds joints to m
        return KME.draw_fixed_coordinates(four_bar() if m is FRESH else m, link, fixed)

    def two_link_jacobian(q):
        s1, c1, s12, c12 = math.sin(q[0]), math.cos(q[0]), math.sin(q[0] + q[1]), math.cos(q[0] + q[1])
        return np.array([[-s1 - 0.8 * s12, -0.8 * s12], [c1 + 0.8 * c12, 0.8 * c12]])

    kin = K.Kinematics(two_link_arm.build())
    libra = LM.libra_mechanism("u1")
    candidates, forces = LM.libra_candidates("u1")
    poses = KME.PlanarPoses(four_bar())
    (tmp / "s.toml").write_text('model = "slip"\n')
    return {
        K.solve_configuration: dict(variables=[K.PointCoordinate(kin, "tip", "x"),
                                               K.PointCoordinate(kin, "tip", "y")],
                                    targets=[0.5, 0.2], q0=np.array([0.3, 0.5]), tol=1e-12, max_iter=50),
        KME.Point: dict(name="p", link="a", position=(0.0, 1.0)),
        KME.Mechanism: dict(name="m", space="planar", ground="ground", links=["ground", "a"],
                            points={"p": KME.Point("p", "a", (0.0, 1.0))},
                            joints=[KME.Joint("j", "pin", "a", "ground", at=(0.0, 0.0), point="p")]),
        add_link: dict(name="extra"),
        on_a_new_four_bar(KME.Mechanism.add_point): dict(name="p", link="coupler", position=(0.5, 0.5)),
        on_a_new_four_bar(KME.Mechanism.add_joint): dict(name="E", kind="slider", link_a="coupler",
                                                         link_b="ground", active=False, role="control",
                                                         limb="1", point="tip", at=None, axis="x"),
        KME.gruebler: dict(mechanism=libra),
        draw_fixed_coordinates: dict(m=FRESH, link="coupler",
                                     fixed={"tip": {"x": "control", "y": "environment"}}),
        KME.PlanarPoses: dict(mechanism=libra),
        poses.position: dict(p=np.zeros(9), link="coupler", local=(0.5, 1.0)),
        poses.constraints: dict(p=np.full(9, 0.01)),
        poses.coordinate: dict(point="tip", coord="x"),
        KM.ControlCandidate: dict(name="x", point="tip", coords=("x", "y"), labels=("a", "b")),
        KM.ForceCandidate: dict(name="F", point="tip", coord="x", joint=None, relax_to=None, axis=None),
        KM.extended_mobility_analysis: dict(mechanism=libra, candidates=candidates, forces=forces, rank=False,
                                            rtol=1e-6, step=1e-6),
        KM.mechanism_rank_mobility: dict(mechanism=four_bar(),
                                         candidates=(KM.ControlCandidate("x", "tip", ("x",)),),
                                         step=1e-6, rtol=1e-6),
        KM.scan_singularities: dict(jacobian=two_link_jacobian, configurations=[(0.3, 1.2), (0.3, 0.0)],
                                    expected_rank=2, ratio_threshold=1e-3, rtol=1e-6),
        KM.format_mobility: dict(result=KM.extended_mobility_analysis(libra, candidates, forces)),
        LM.libra_mechanism: dict(vector="u2", q=LM.NOMINAL_Q, phi=1.2, contact="pin",
                                 supports=("foot1", "foot3"), params=LibraParams()),
        LM.libra_candidates: dict(vector="u3"),
        LM.libra_mobility: dict(vector="u1", q=LM.NOMINAL_Q, phi=1.2, rank=False, params=LibraParams()),
        LM.libra_report: dict(vector="u1", q=LM.NOMINAL_Q, phi=1.2, rank=False, params=LibraParams()),
        gear_friction: dict(p=LibraParams()),
        Inclinometer: dict(resolution=0.006, stiction=0.017, reading=math.nan),  # NaN: no reading yet
        Inclinometer().read: dict(angle=0.05),
        foot_layout: dict(kind="ellipse", half_length=0.2, half_width=0.25),
        SurfaceFollowing: dict(slope=lambda x: 0.5 * x, x0=0.3, segment_gap=0.2, tau=0.01, limit=0.5),
        SurfaceFollowing(lambda x: 0.5 * x, x0=0.3).update: dict(advance=0.001, dt=1e-3),
        FeltFootholds: dict(touch=2.0, search_speed=0.02, search_depth=0.03),
        FeltFootholds(2.0).update: dict(stage=1, u=0.5, swing=(0, 3), fz=np.ones(6), dt=1e-3),
        RS.calibrate_mounting: dict(readings=RS.expected_readings()[[0, 1, 2, 3]],
                                    stances=np.array([0, 1, 2, 3])),
        RS.FiringCommand: dict(leg=3, duration_ms=20, retry=False),
        ValveTimers: dict(n=12),
        ValveTimers().fire: dict(leg=3, duration_ms=2),
        SO.Output: dict(column="x", reduction="max"),
        SO.parse_outputs: dict(specs=["x@final", "y@max"]),
        # (where, source, option: the argument's name in messages, as SS.parse_rc's source)
        SO.load_function: dict(ref="legsim.sweep.outputs:plain_value", where="ref"),
        SO.plain_value: dict(value=np.float64(1.5)),
        SP.check_key: dict(key="params.k", where="variation"),
        SP.read_scenario: dict(path=tmp / "s.toml"),
        UF.parse_toml: dict(text='a = 1\n[b]\nc = "x"\n', source="text"),
        _in_folder(UF.output_dir, tmp): dict(path=tmp / "out", what="the test", option="path"),
        _in_folder(UF.output_file, tmp): dict(path=tmp / "out2" / "f.txt", what="the test", option="path"),
        VS.Shape: dict(name="s", kind="box", dims=(0.1, 0.2, 0.3), frame="", R=np.eye(3), p=np.zeros(3),
                       color=(1, 2, 3), vertices=None, faces=None),
        VS.shape_mesh: dict(s=VS.Shape("s", "capsule", (0.1, 0.2))),
        terrain_label: dict(p={"terrain_type": 1.0, "terrain_arg1": 0.05, "terrain_arg2": 3.0,
                               "terrain_arg3": 2.0})}


def _builder_and_parameter_calls():
    from legsim.multibody import RobotBuilder
    from legsim.robots.libra import kinematics as LK
    from legsim.robots.libra.params import (
        JOINT_LIMITS_DEG,
        EscapMotor,
        LibraParams,
        continuous_torque,
        encoder_counts_per_output_rev,
    )

    def on_a_new_builder(method):  # RobotBuilder's add_* on a builder holding a free base, then compile()
        @functools.wraps(method)
        def call(**kw):
            b = RobotBuilder("r")
            b.add_body("base", "world", "free", mass=1.0, inertia=(0.1, 0.1, 0.1))
            method(b, **kw)
            return b.compile()
        return call

    return {
        on_a_new_builder(RobotBuilder.add_body): dict(
            name="l", parent="base", joint="revolute", joint_name="j", xyz=(0.1, 0.0, 0.0),
            rpy=(0.0, 0.1, 0.0), rotation=None, axis=(0.0, 1.0, 0.0), mass=0.5, com=(0.0, 0.0, 0.1),
            inertia=(1e-3, 1e-3, 1e-3), limits=(-1.0, 1.0), damping=0.1, friction=0.1, armature=0.01,
            effort=5.0, velocity=3.0),
        on_a_new_builder(RobotBuilder.add_geometry): dict(
            body="base", shape="capsule", xyz=(0.0, 0.0, 0.1), rpy=(0.0, 0.2, 0.0), rotation=None,
            material="rubber", name="g", radius=0.05, length=0.2),
        LibraParams: dict(half_link=0.078, r=0.048, N=0.083, m_link=0.196, m_motor=0.3466, m_body=1.0,
                          m_limb3=1.09, k_wall=5837.0, wheel_diameter=0.083, span=0.7, mass_stated=8.0,
                          gear=792.0, backlash=0.035, tau_dynamic=4.5, tau_static=20.0,
                          joint_limits=np.radians(np.array(JOINT_LIMITS_DEG)), motor=EscapMotor()),
        EscapMotor: dict(torque_constant=0.0233, back_emf=0.0229, resistance=9.7, inductance=0.8e-3,
                         no_load_current=0.02, i_continuous=0.9, efficiency=0.55, supply=24.0,
                         max_input_speed=3000.0),
        continuous_torque: dict(motor=EscapMotor(), gear=792.0),
        encoder_counts_per_output_rev: dict(counts=2000, gear=792.0),
        LK.inverse: dict(body=(0.09, 0.0, 0.0), foot2=(0.18, 0.0), foot3=(0.05, -0.1), params=LibraParams(),
                         elbows=None)}


def _pneumatic_run_calls():
    from legsim.actuators.pneumatic import ActuatorBatch, PneumaticActuator
    from legsim.actuators.pneumatic.actuator import HeatModel
    from legsim.identify.filters import design_lowpass, velocity_from_position, zero_phase
    from legsim.robots.pneumatic_rig.hop import PARAM_DEFAULTS, PARAM_NAMES, PRESETS, HopBench
    from legsim.robots.pneumatic_rig.identification import (
        IDENTIFIED,
        VARIANTS,
        RigMeasurements,
        bench_for,
        identified_bench,
        residuals,
    )
    from legsim.robots.pneumatic_rig.rig import Reference, RigBench, rig_model

    act = PneumaticActuator()
    gas3 = act.initial_state(x=0.01, p_cap=3e5, p_rod=2e5, n=3)
    batch = ActuatorBatch([act, act.with_(heat=HeatModel.ISOTHERMAL), act])
    rows3 = np.tile(act.row(), (3, 1))
    hop = HopBench("spool")
    hop_params = {k: v for k, v in zip(PARAM_NAMES, PARAM_DEFAULTS, strict=True)
                  if k not in ("exhaust", "friction")}
    rig = RigBench()
    step = Reference("step", r0=0.0, r1=0.01, t_start=0.005)
    position = np.cumsum(np.random.default_rng(1).standard_normal(200)) * 1e-3
    lags = {v: [0.2, 0.14, 0.11] for v in VARIANTS}
    measured = dict(peaks=[18.4, 22.4], taus=[0.0844, 0.084, 0.0828, 0.0831], r2=[0.99] * 4, lags=lags)

    def hop_bench(preset):  # every override of the hop model by keyword
        @functools.wraps(HopBench)
        def call(**kw):
            return HopBench(preset, **kw)
        return call

    def bench_for_params(**params):  # every identification parameter by keyword
        return bench_for(variant=("simple", "stribeck"), params=params)

    return {
        **{hop_bench(p): dict(exhaust="trapped", friction="thesis", leak=False, options=None,
                              **{**hop_params, **{k: v for k, v in PRESETS[p].items() if k in hop_params}})
           for p in PRESETS},
        hop.fire: dict(duration_ms=1.0, p_supply_gauge=0.724e6, p_tank=None, t_flight=0.002),
        hop.repeated: dict(n=2, duration_ms=1.0, p_supply_gauge=0.724e6, interval=3.0, leak_tau=100.0),
        act.initial_state: dict(x=0.01, p_cap=3e5, p_rod=2e5, n=3),
        act.force: dict(state=gas3, x=0.01, xdot=0.1, rows=rows3),
        act.derivatives: dict(t=0.0, state=gas3, u=6.0, x=0.01, xdot=0.1, rows=rows3),
        act.with_: dict(t_supply=300.0),
        batch.derivatives: dict(state=gas3, u=6.0, x=0.01, xdot=0.1, out=np.empty((3, 5))),
        batch.force: dict(state=gas3, xdot=0.1),
        rig.run: dict(reference=step, t_final=0.005, x0=0.005, p_cap0=3e5, p_rod0=2e5),
        rig.params: dict(reference=step, model=rig_model(0)),
        step.values_at: dict(t=np.array([0.0, 0.01])),
        step.write: dict(p=np.zeros(rig_model(0).nparam)),
        rig_model: dict(n_table=2),
        design_lowpass: dict(spec="position", fs=1000.0),
        zero_phase: dict(x=position, spec="position", fs=1000.0),
        velocity_from_position: dict(x=position, dt=1e-3, filter_position=True, filter_velocity=True),
        bench_for: dict(variant=("fitted", "stribeck"), params={"kp": 90.0}, mass=0.2),
        bench_for_params: dict(IDENTIFIED),
        identified_bench: dict(valve="fitted", friction="stribeck", mass=0.2),
        residuals: dict(m=RigMeasurements(**measured)),
        RigMeasurements: measured}


LIBRARY_FUNCTION_CALLS = {**_library_function_calls(), **_more_library_function_calls(),
                          **_contact_library_function_calls(), **_actuator_and_control_function_calls(),
                          **_file_and_drawing_function_calls(Path(_FILES.name)),
                          **_multibody_conversion_calls(), **_crr_and_rig_helper_calls(),
                          **_rats_and_rhex_helper_calls(), **_libra_rotto_anton_helper_calls(),
                          **_pneumatic_identify_and_preset_calls(Path(_FILES.name)),
                          **_assembly_contact_and_world_calls(),
                          **_mechanism_robot_and_file_calls(Path(_FILES.name)),
                          **_builder_and_parameter_calls(), **_pneumatic_run_calls()}


@settings(max_examples=2400, deadline=None, derandomize=True)
@given(call=st.sampled_from(sorted(LIBRARY_FUNCTION_CALLS, key=lambda f: f.__module__ + f.__name__)),
       data=st.data())
def test_a_library_function_with_one_wrong_argument_is_accepted_or_refused_naming_it(call, data):
    """The library's stand-alone functions that a script calls (RATS geometry, planner, rolling and
    stance helpers; contact meshes, restitution laws and impulses; pneumatic flows; battery, DC motor,
    PMSM and drive-loop helpers; the CJTC and mobility helpers; ANTON's and ROTTO's leg kinematics; the
    rig's step metrics) with one argument of the wrong kind or range: a result, or an InputError naming
    the argument. Before session 38, 63 of these 83 functions let a string, None, an array or a huge
    number through to float(), numpy or scipy (TypeError, ValueError, LinAlgError, a MemoryError), and
    sphere_mesh(1e200), through scipy's Qhull, crashed the process with a segmentation fault. The second
    batch: LIBRA's kinematics, dynamics and linearisation, the CRR leg's inverse kinematics (which also
    hit numpy's "Singular matrix" from a straight-leg guess), the mobility helpers with user functions,
    the cost counts, ANTON's and ROTTO's hips, ROTTO's drive envelope and the quadruped's squat. The third
    and fourth (session 39): the contact laws' scalar forms, the impulse updates, terrains and meshes, the
    impact validation; the DC motor, battery, PMSM and series-elastic drive helpers; the pneumatic friction,
    gas, linkage, solenoid queue and air summary; the three control laws of the cost comparison and the
    joint catalogue: 31 of the 41 functions of the first sweep let wrong arguments through (1378 failures),
    among them numerical bugs (an undamped plant's NaN at resonance, zeta = 0 and a LuGre friction without
    levels dividing by zero, an inductive drop beyond the supply a math domain error, a friction model 7
    taken as Coulomb and a joint-space typo "planer" as spatial). The fifth (session 39): SimSect's init-file
    functions, the scene's frame helpers, run_params, apply_variation, the multibody exports and state
    conversions (MuJoCo, Pinocchio) and the articulated model's helpers (a 1e200 quaternion came back
    as zeros, a Pinocchio helical joint passed as revolute). The sixth (session 39): the RATS rolling and
    planner helpers, RHex's terrain, LIBRA's kinematics, dynamics, linear analysis and gains, ROTTO's and
    ANTON's model helpers, the CRR leg's linkage design, knots and cylinder bodies, the quadruped's squat and
    trunk, the rig's ringing and gas-spring frequency (ANTON's feet_in_body read past a short q_joints
    array in compiled code; LIBRA's dphi_dtheta_atan was 0/0 at y + k2 = 0). The seventh (session 40, 119
    callables, 4500 failures in the first sweeps): the pneumatic unit conversions, valve presets, actuator and
    batch, the identification helpers and log reader, the rig's and the hop bench's constructors, the CRR
    leg's controller layout; Robot itself and the assembly parts not yet here, the contact-response
    wrappers (which wrote and read past arrays one body short in compiled code), the LCP, the event-contact
    models, ROTTO's rod targets (read past a short joint vector); the mechanism and mobility analysis (a
    vector axis was numpy's ambiguous truth value), LIBRA's mobility, ANTON's surface following and felt
    footholds, the RATS valve timers, the sweep's outputs and the file helpers."""
    _one_wrong_argument(call, LIBRARY_FUNCTION_CALLS[call], data)



EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _sweep_run_and_view_calls(tmp: Path):
    """Sweeps, the scenario runner, run files, SimSect's runner, the viewer's scene and animation, the
    warm-up: each valid call cheap (a 0.02 s SLIP run, one serial worker, two frames). Run the calls in a
    folder of their own: a wrong path may be a name ('abc', '') of a folder the call then writes."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from legsim.cli import SCENARIO_DIR
    from legsim.hybrid import simulate
    from legsim.io import RunWriter, load_run
    from legsim.io.results import Columns, read_parquet, record_columns
    from legsim.registry import build
    from legsim.runner import run_scenario, simulate_scenario, summarize
    from legsim.scenario import load_scenario, parse_scenario
    from legsim.simsect import run_simsect
    from legsim.sweep import Sweep, load_sweep, resume_sweep, run_sweep
    from legsim.sweep import _worker as W
    from legsim.sweep import cli as SC
    from legsim.sweep.backends import SerialPool, make_pool
    from legsim.sweep.outputs import Output, check_outputs, reduce_outputs, summary_ref
    from legsim.sweep.schedule import execute
    from legsim.sweep.table import SweepDir, spec_hash
    from legsim.userfiles import parse_toml
    from legsim.viz import scene as S
    from legsim.viz.animate import BackgroundAnimation, scene_animation, write_animation
    from legsim.viz.viewer import Replay, _free_port, result_columns, start_server, stop_server
    from legsim.warmup import exclusive, warmup

    tmp = Path(tmp)
    quiet = dict(progress=False, echo=lambda line: None)
    tiny = ('model = "slip"\nt_final = 0.02\n[initial]\ny = 0.9\nxdot = 1.0\n[outputs]\n'
            'record_period = 0.005\n')
    (tmp / "tiny.toml").write_text(tiny)
    (tmp / "tiny.rc").write_text('systemName = "slip"\nfinalTime = 0.02\ndataBaseName = "tiny"\n'
                                 'recordPeriod = 0.005\nmeasurePeriod = 0.01\n')
    (tmp / "vars.csv").write_text("params.k,t_final\n1000,0.02\n1200,0.02\n")
    slip_sweep = Sweep(SCENARIO_DIR / "slip_run.toml", variations=[{"t_final": 0.02}],
                       grid={"params.k": [1000.0, 1200.0]})
    run_sweep(slip_sweep, tmp / "sweep", outputs=["x@final"], backend="serial", **quiet)
    slip = build("slip")
    chunks = []
    result = simulate(slip, 0.02, sinks=[lambda *chunk: chunks.append(chunk)])
    rec, modes, events = (np.concatenate([c[i] for c in chunks]) for i in range(3))
    sc = load_scenario(tmp / "tiny.toml")
    run_scenario(sc, tmp / "run", **quiet)
    run = load_run(tmp / "run")
    crr_file = SCENARIO_DIR / "crr_leg_gamma_steps.toml"
    crr = parse_scenario({**parse_toml(crr_file.read_text(), str(crr_file)), "t_final": 0.01}, str(crr_file))
    ctx = W.Context(token="fuzz", source=str(SCENARIO_DIR / "slip_run.toml"), data=dict(slip_sweep.data),
                    outputs=(Output("x", "final"),))
    spec = {"scenario": "slip_run.toml", "seed": 0, "variations": [{"params.k": 1.0}]}
    module = importlib.util.spec_from_file_location("fuzz_pneumatic_hopper", EXAMPLES / "pneumatic_hopper.py")
    hopper = importlib.util.module_from_spec(module)
    module.loader.exec_module(hopper)
    robot = hopper.build()
    server = start_server(port=_free_port(), quiet=True)
    atexit.register(stop_server, server)

    def agg_figure():
        fig = Figure(figsize=(2, 2))
        FigureCanvasAgg(fig)
        return fig

    def run_writer(**kw):  # a run written whole, read back
        with RunWriter(**kw) as writer:
            writer(rec, modes, events)
        return load_run(kw["out_dir"]).records["t"]

    def run_writer_call(**kw):
        with RunWriter(tmp / "writer_call", slip, {}) as writer:
            writer(**kw)
        return load_run(tmp / "writer_call").records["x"]

    def run_writer_flush(**kw):
        with RunWriter(tmp / "writer_flush", slip, {}) as writer:
            writer(rec, modes, events)
            writer.flush(**kw)
        return load_run(tmp / "writer_flush").meta

    def run_writer_finish(**kw):
        with RunWriter(tmp / "writer_finish", slip, {}) as writer:
            writer.finish(**kw)
        return load_run(tmp / "writer_finish").meta

    def run_writer_run_ended(**kw):
        with RunWriter(tmp / "writer_ended", slip, {}) as writer:
            writer.run_ended(**kw)
        return load_run(tmp / "writer_ended").meta

    def background_animation(**kw):  # started, then called off (its process exits without drawing)
        job = BackgroundAnimation(**kw)
        job.cancel()
        if job._job is not None:
            job._job.wait()

    def scene_animation_frame(**kw):
        scene_animation(**kw)(0)

    def replay(**kw):
        Replay(**kw).close()

    def exclusive_block(**kw):
        with exclusive(**kw) as mine:
            return mine

    return {
        run_sweep: dict(sweep=slip_sweep, out=tmp / "sweep", outputs=["x@final"], summary=None, records=False,
                        common_noise=False, workers=1, backend="serial", address=None, runs=None,
                        overwrite=False, batch_seconds=None, run_timeout=None, **quiet),
        resume_sweep: dict(out=tmp / "sweep", summary=None, backend="serial", **quiet),
        load_sweep: dict(out=tmp / "sweep"),
        Sweep: dict(scenario=SCENARIO_DIR / "slip_run.toml", data=slip_sweep.data, function=None,
                    variations=[{"t_final": 0.1}], seed=0),
        SC.parse_value: dict(text="1.5"),
        SC.parse_grid: dict(args=["params.k=800,1000", "initial.xdot=1:2:3"]),
        SC.parse_range: dict(args=["params.k=800:1200", "params.c=1e-3:1e-1:log"]),
        SC.parse_runs: dict(text="0-3,7"),
        SC.read_variations: dict(path=str(tmp / "vars.csv")),
        check_outputs: dict(outputs=(Output("x", "final"),), model=slip, where="model 'slip'"),
        reduce_outputs: dict(result=result, outputs=(Output("x", "final"), Output("y", "mean"))),
        summary_ref: dict(summary=SC.parse_value),
        SweepDir: dict(out=tmp / "sweep_dir", spec=spec, overwrite=False, keys=("params.k",)),
        spec_hash: dict(spec=spec),
        make_pool: dict(backend="serial", ctx=ctx, workers=1, address=None),
        execute: dict(pool=SerialPool(ctx), runs=[W.Run(0, {"t_final": 0.01}, 1)], on_rows=lambda rows: None,
                      batch_seconds=1.0, progress=False, total=None, done=0),
        run_scenario: dict(scenario=tmp / "tiny.toml", out_dir=tmp / "run_scenario", plot=False,
                           keep_records=True, monitor=None, **quiet),
        simulate_scenario: dict(sc=sc, sinks=(), progress=False, keep_records=True, monitor=None),
        summarize: dict(scenario=crr, result=simulate_scenario(crr, progress=False)),
        parse_scenario: dict(data=parse_toml(tiny, "tiny"), source=str(tmp / "tiny.toml")),
        run_simsect: dict(rc_path=tmp / "tiny.rc", out_dir=tmp / "simsect", monitor=None, **quiet),
        load_run: dict(out_dir=tmp / "run"),
        run_writer: dict(out_dir=tmp / "writer", model=slip, metadata={"note": "x"}),
        run_writer_call: dict(rec=rec, modes=modes, events=events),
        run_writer_flush: dict(meta=True),
        run_writer_finish: dict(status="done", message="", stats={}),
        run_writer_run_ended: dict(status="done", message="", stats={"steps": 3}),
        read_parquet: dict(path=sorted((tmp / "run" / "records").glob("part-*.parquet"))[0], what="table"),
        record_columns: dict(model=slip),
        Columns: dict(folder=tmp / "run" / "records"),
        S.scene_for_run: dict(meta=run.meta, where="run"),
        S.robot_scene: dict(robot=robot),
        S.cylinder_barrels: dict(robot=robot),
        write_animation: dict(fig=agg_figure(), draw=lambda k: None, frames=range(2), path=tmp / "a.gif",
                              fps=10.0),
        scene_animation_frame: dict(scene=S.scene_for_run(run.meta), records=run.records, fig=agg_figure(),
                                    frames=np.arange(2), title="slip"),
        background_animation: dict(run_dir=tmp / "run", fps=20, speed=1.0),
        result_columns: dict(result=result),
        replay: dict(server=server, scene=S.robot_scene(robot), records=result_columns(robot.simulate(0.01)),
                     plot_columns=["leg"], fps=30.0),
        warmup: dict(families=["slip"], jobs=1, echo=lambda line: None, background=False),
        exclusive_block: dict(wait=True, echo=lambda line: None, background=False),
    }


def _reaching_no_simulation(fn, *patched):
    """``fn`` with the simulations it would start replaced: a call that gets past its checks returns the
    ``t_final`` it asked for (so that a wrong value let through shows as a non-finite or odd duration) instead
    of running (ANTON's climb is 20 s of computing). ``patched``: (module, attribute) pairs of the simulate
    functions to replace."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        seen = {}

        class _Reached(Exception):
            pass

        def simulate(*a, **k):
            seen["t_final"] = k.get("t_final", a[1] if len(a) > 1 else a[0])
            raise _Reached

        with contextlib.ExitStack() as stack:
            for owner, name in patched:
                original = getattr(owner, name)
                setattr(owner, name, simulate)
                stack.callback(setattr, owner, name, original)
            try:
                return fn(*args, **kwargs)
            except _Reached:
                return seen

    return wrapper


def _robot_package_calls(tmp: Path):
    from legsim.actuators.pneumatic.friction import stribeck_tanh_source
    from legsim.assembly.robot import Robot
    from legsim.hybrid import Options, simulate
    from legsim.identify.hop import fit_hop_heights
    from legsim.multibody import RobotBuilder
    from legsim.robots import crr_leg as CL
    from legsim.robots.anton import climb as AC
    from legsim.robots.anton import climb_demo as ACD
    from legsim.robots.anton import demo as AD
    from legsim.robots.anton import robot as AR
    from legsim.robots.anton.params import AntonParams
    from legsim.robots.crr_leg.geometry import crr_leg_bodies, default_linkages
    from legsim.robots.crr_leg.leg import DEFAULT_FORCE_GAIN, DEFAULT_FORCE_RATE_GAIN, DEFAULT_GAINS
    from legsim.robots.crr_leg.prismatic import default_cylinder_inertias
    from legsim.robots.crr_quadruped import Quadruped, graft_leg
    from legsim.robots.crr_quadruped import quadruped as CQ
    from legsim.robots.crr_quadruped.quadruped import ContactParameters
    from legsim.robots.libra import demo as LD
    from legsim.robots.libra import experiments as E
    from legsim.robots.libra.control import LibraController
    from legsim.robots.libra.gait import climb_cycle
    from legsim.robots.libra.robot import build
    from legsim.robots.pneumatic_rig import ablation as A
    from legsim.robots.pneumatic_rig import scenarios as S
    from legsim.robots.pneumatic_rig.rig import Reference, RigBench
    from legsim.robots.rhex.model import build_model as rhex_model
    from legsim.robots.rhex.postprocess import motor_battery
    from legsim.robots.rotto import demo as RD
    from legsim.robots.rotto import robot as RR

    def graft_leg_on_a_copy(builder, leg, parent, prefix, shoulder, mirror):  # each call adds the same bodies
        import copy

        graft_leg(copy.deepcopy(builder) if isinstance(builder, RobotBuilder) else builder, leg, parent,
                  prefix, shoulder, mirror)

    def ticks():  # a deterministic clock for the timing helpers: 1, 2, 3, ... s
        n = [0.0]

        def clock():
            n[0] += 1.0
            return n[0]
        return clock

    refs = [CL.JointReference(offset=float(np.radians(a)), amplitude=0.1, omega=20.0)
            for a in (20.0, -30.0, 56.0)]
    leg_run = CL.LegBench().run(refs, 0.3)
    leg = crr_leg_bodies()
    trunk = RobotBuilder("q")
    trunk.add_body("trunk", "world", "fixed", mass=2.0, inertia=(0.1, 0.1, 0.1))
    rig = RigBench()
    small_rig = RigBench("simple", "viscous")
    rig_run = rig.run(Reference("step", r0=0.01, r1=0.02, t_start=0.05), 0.1, x0=0.01)
    plan = AC.ClimbPlan()
    anton = AC.climb_robot(plan)
    q0 = plan.configuration(plan.start)
    q0[2] += 0.002
    ctrl = AC.climber(plan, start=0.3)
    anton_res = anton.simulate(0.4, ctrl, q0=q0, progress=False)
    track = AR.support_track(anton, anton_res)
    walk = RR.StaticWalk(steps=1)
    rotto = RR.build_robot()
    rotto_res = rotto.simulate(0.05, RR.walker(walk), q0=RR.standing_pose(walk), progress=False)
    libra = build()
    stages = climb_cycle(libra.ladders, stages=(1,))
    libra_run = E.climb(libra, stages)
    no_robot_run = [(Robot, "simulate")]
    return {
        CL.tracking_rmse: dict(run=leg_run, t_from=0.05, t_to=0.25),
        CL.lag_compensated_rmse: dict(run=leg_run, t_from=0.0, t_to=0.3, max_lag=0.05),
        CL.plot_tracking: dict(run=leg_run, filename=tmp / "tracking.png", title="t"),
        CL.crr_leg_model: dict(reference=None),
        CL.crr_leg_with_cylinders: dict(leg=leg, linkages=default_linkages(),
                                        cylinders=default_cylinder_inertias(default_linkages())),
        Quadruped: dict(base="fixed", trunk_mass=2.0, trunk_height=0.3, contact=ContactParameters(),
                        valves="fitted", supply_psig=50.3, exhaust_psia=24.7, gains=dict(DEFAULT_GAINS),
                        gain_scale={"alpha": 1.0}, u_bias=5.25, force_gain=dict(DEFAULT_FORCE_GAIN),
                        force_rate_gain=dict(DEFAULT_FORCE_RATE_GAIN), friction=stribeck_tanh_source(),
                        linkages=default_linkages(),
                        options=Options(method="dp45", rtol=1e-6, atol=1e-8, h_max=1e-3, record_period=1e-3,
                                        sample_period=1e-3, sliding=False)),
        # (an hour of the quadruped is a quarter of an hour of computing: its simulate is replaced)
        _reaching_no_simulation(Quadruped(base="fixed").run, (CQ, "simulate")):
            dict(refs=refs, t_final=0.01, q0=None, drop=0.003),
        graft_leg_on_a_copy: dict(builder=trunk, leg=leg, parent="trunk", prefix="fl",
                                  shoulder=(0.1, 0.1, 0.0), mirror=(1.0, -1.0)),
        motor_battery: dict(result=simulate(rhex_model(), 0.05), params=None, battery=None),
        fit_hop_heights: dict(valve_ms=[20.0, 30.0], heights=[0.05, 0.09], p_gauge=0.724e6, preset="spool",
                              fit_latency=False),
        S.closed_loop_steps: dict(bench=small_rig),
        S.sine_tracking: dict(bench=small_rig, omegas=(30.0,)),
        S.hop_sweep: dict(durations=(20.0,), p_gauge=0.724e6),
        S.plot_rig_run: dict(run=rig_run, path=tmp / "rig.png", title="t"),
        S.plot_hop_sweep: dict(durations=(20.0, 30.0), heights={"spool": [0.05, 0.09]},
                               path=tmp / "hops.png"),
        A.ablation_table: dict(variants=(("fitted", "stribeck"),), n_evals=10, t_final=0.01, clock=ticks()),
        A.per_eval_cost: dict(bench=rig, n=10, clock=ticks()),
        A.tet_per_step: dict(bench=rig, t_final=0.01, clock=ticks()),
        AC.steps_at: dict(plan=plan, ctrl=ctrl, t=track["t"]),
        AC.step_summary: dict(plan=plan, ctrl=ctrl, track=track),
        AC.climb_robot: dict(plan=plan),
        _reaching_no_simulation(AC.simulate_climb, *no_robot_run): dict(plan=plan, robot=anton, settle=0.3,
                                                                         after=1.0),
        AR.support_track: dict(robot=anton, result=anton_res, every=10, contact_force=2.0),
        AR.standing_pose: dict(plan=AR.WalkPlan()),
        AR.StaticFeedforward: dict(params=AntonParams()),
        _reaching_no_simulation(AD.run_demo, *no_robot_run): dict(out_dir=tmp / "anton_walk", echo=print,
                                                                   t_final=14.0),
        _reaching_no_simulation(ACD.run_demo, *no_robot_run): dict(out_dir=tmp / "anton_climb", echo=print),
        RR.support_track: dict(robot=rotto, result=rotto_res, params=None, every=5, contact_force=10.0),
        RR.standing_pose: dict(walk=walk),
        _reaching_no_simulation(RD.run_demo, *no_robot_run): dict(out_dir=tmp / "rotto_walk", echo=print,
                                                                   steps=4),
        LibraController: dict(libra=libra, stages=stages, gravity="full", lumped_mass=None, quantise=True,
                              backlash=True, blend=0.5, gain_kw=None),
        E.initial_configuration: dict(libra=libra, stage=stages[0], t=0.0, guess=None),
        E.compiled_model: dict(libra=libra, stages=stages, controller_kw=None),
        E.pace_for_motors: dict(libra=libra, stages=stages, speed=None, percentile=99.0, max_iter=2),
        E.stage1_measures: dict(run=libra_run, settle_band=0.005),
        E.cycle_measures: dict(run=libra_run),
        LD.plot_climb: dict(run=libra_run, out=tmp),
        _reaching_no_simulation(LD.run_demo, *no_robot_run): dict(out_dir=tmp / "libra_climb", echo=print,
                                                                   progress=None),
    }


def _rats_realtime_and_engine_calls():
    from legsim import hybrid
    from legsim.examples import bouncing_ball as B
    from legsim.hybrid.stiff import simulate_scipy, simulate_stiff
    from legsim.realtime import Endpoint, Packet, UdpEndpoint
    from legsim.realtime.messages import COMMANDS, NO_ACK, SENSORS, CRRFormat, GenericFormat, format_by_name
    from legsim.realtime.sil import robot_options
    from legsim.realtime.transport import controller_side, robot_side
    from legsim.robots.rats import experiments as E
    from legsim.robots.rats.robot import build, firing_controller

    def udp_endpoint(fmt, send_kind, recv_kind, recv_count, bind, peer):  # closes what it opens
        with UdpEndpoint(fmt, send_kind, recv_kind, recv_count, bind=bind, peer=peer) as ep:
            return ep.recv_count, ep.peer

    def robot_side_endpoint(fmt, n_commands, bind, peer):
        with robot_side(fmt, n_commands, bind=bind, peer=peer) as ep:
            return ep.recv_count, ep.peer

    def controller_side_endpoint(fmt, n_sensors, bind, peer):
        with controller_side(fmt, n_sensors, bind=bind, peer=peer) as ep:
            return ep.recv_count, ep.peer

    def choice_of_two(a, b, doc):  # choice(*values, doc=...)
        return hybrid.choice(a, b, doc=doc)


    rats = build(contact_set="rolling", valve="spool", p0=0.689e6, tank_volume=1.0)
    ball = B.build_model()
    x, p = ball.state(None), ball.params({"e": 0.8})
    return {
        E.tip_threshold: dict(p0=0.689e6, leg=0, stance=0, yaw=0.2, lo=16, hi=24, step=4, settle=0.5,
                              valve="rubber", contact_set="tipping"),
        E.calibrate_tip_model: dict(pressures_mpa=(0.3, 0.45, 0.6, 0.8), progress=False, settle=0.5, lo=16),
        E.range_run: dict(compensate=True, p0=0.689e6, model=None, margin_ms=2, max_tips=1, stance=0, yaw=0.2,
                          heading=0.0, valve="rubber", contact_set="tipping", progress=False),
        E.measure_tip_slip: dict(tips=1, progress=False, margin_ms=2),
        E.roll: dict(rats=rats, params=E.SIM_ROLLING_PARAMS, stance=0, yaw=0.2, heading=0.5, t_final=0.2,
                     v_desired=None, integrator="euler", sinks=()),
        E.roll_trial: dict(rats=rats, params=E.SIM_ROLLING_PARAMS, stance=0, yaw=0.2, heading=0.5,
                           t_final=1.0, v_desired=1.0, integrator="euler"),
        E.rolling_start: dict(stance=3, yaw=0.2, heading=0.5, t_final=1.0, seed=0, integrator="euler",
                              robot=None, phi=0.1),
        E.tune_rolling: dict(names=("phi",), starts=1, seed=11, t_final=1.0, maxfev=1, step=0.25, base=None,
                             workers=1, backend="serial", progress=False),
        E.endurance_run: dict(interval=0.3, firings=1, duration_ms=40, p0=0.758e6, valve="spool",
                              contact_set="rolling", progress=False),
        E.fire_once: dict(leg=3, ms=20),
        E.per_leg_hops: dict(pressures=(0.5e6,), friction_spread=0.15, seed=4, duration_ms=40,
                             progress=False),
        E.leak_hop_ratio: dict(t_leak=100.0, p0=0.758e6, leg=0, duration_ms=40),
        E.hop_landing: dict(stances=(0,), latency_ms=E.E1_LATENCY_MS, balance=False, duration_ms=40,
                            p0=0.689e6, yaw=0.3, t_final=0.3),
        firing_controller: dict(rats=rats, policy=E.fire_once(0, 20)),
        udp_endpoint: dict(fmt=GenericFormat(), send_kind=SENSORS, recv_kind=COMMANDS, recv_count=3,
                           bind=("127.0.0.1", 0), peer=("127.0.0.1", 47001)),
        Endpoint: dict(fmt=CRRFormat(), send_kind=COMMANDS, recv_kind=SENSORS, recv_count=6),
        robot_side_endpoint: dict(fmt=CRRFormat(), n_commands=3, bind="127.0.0.1:0", peer=None),
        controller_side_endpoint: dict(fmt=GenericFormat(), n_sensors=6, bind=("localhost", 0),
                                       peer="127.0.0.1:47002"),
        Packet: dict(seq=3, t=0.5, values=np.arange(3.0), echo=0.25, ack=NO_ACK, kind=COMMANDS),
        format_by_name: dict(name="crr"),
        robot_options: dict(period=1e-3),
        hybrid.ParamRange: dict(unit="kg", low=0.0, high=math.inf, low_open=True, high_open=False, choices=(),
                                doc="a mass"),
        choice_of_two: dict(a=0, b=1, doc="a code"),
        hybrid.nonnegative: dict(unit="N", doc="a force"),
        hybrid.event_dtype: dict(nx=3),
        simulate_scipy: dict(model=ball, t_final=0.5, x0=x, p=p, mode=0, rtol=1e-6, atol=1e-8, max_step=0.1,
                             method="RK45", t0=0.0, sample_period=0.0, record_period=0.05, controller=None,
                             controller_every=1, max_events=100),
        simulate_stiff: dict(model=ball, t_final=0.5, x=x, p=p, mode=0,
                             opts=hybrid.Options(method="radau", max_transitions=100), t0=0.0, sinks=(),
                             controller=None, controller_every=1, keep_records=True, raise_on_error=False),
    }


def _rats_calls_without_simulations():
    """:func:`_rats_realtime_and_engine_calls` with the RATS experiments' simulations replaced
    (:func:`_reaching_no_simulation`): their wrong values must be refused before any simulation starts
    (a calibration is seconds of runs). The tuning runs its one short roll: its pool reports a roll that
    raised as a failed roll."""
    from legsim.robots.rats import experiments as E
    from legsim.robots.rats.robot import RatsRobot

    def replaced(call):
        simulates = call.__module__ == E.__name__ and call is not E.tune_rolling
        return _reaching_no_simulation(call, (RatsRobot, "simulate")) if simulates else call

    return {replaced(call): arguments for call, arguments in _rats_realtime_and_engine_calls().items()}


@pytest.fixture(scope="module")
def rats_realtime_and_engine_calls():
    return _rats_calls_without_simulations()


def _group_in_a_folder(group, folder: Path) -> dict:
    """A group of calls that write files (``group(folder)``), each run with ``folder`` as the working
    directory."""
    return {_in_folder(call, folder): arguments for call, arguments in group(folder).items()}


VALID_ONCE = frozenset({"warmup", "background_animation", "plot_climb", "pace_for_motors", "plot_tracking",
                        "plot_rig_run", "tune_rolling"})
"""The groups' calls whose valid call costs 0.1 s or more (measured: starting a process 3.1 and 1.1 s,
ANTON's climb figure 0.40 s, LIBRA's motor pacing 0.35 s, the CRR leg's tracking figure 0.30 s, the rig's
figure 0.13 s, the RATS tuning with its simulation replaced 0.16 s; every other call 0.1 s or less): their
valid call runs at a call's first draw in a test process, not at every draw. Their arguments are not
mutable and the calls keep no state, so a second valid call would repeat the first."""
_CALLED: set[tuple[str, str]] = set()


def _one_wrong_argument_of_a_group(calls: dict, data) -> None:
    call = data.draw(st.sampled_from(sorted(calls, key=lambda f: f.__module__ + f.__name__)), label="call")
    key = (call.__module__, call.__qualname__)
    if call.__name__ in VALID_ONCE and key in _CALLED:
        _wrong_argument(call, calls[call], data)
        return
    _CALLED.add(key)
    _one_wrong_argument(call, calls[call], data)


@pytest.fixture(scope="module")
def run_and_view_calls(tmp_path_factory):
    return _group_in_a_folder(_sweep_run_and_view_calls, tmp_path_factory.mktemp("run-and-view"))


@pytest.fixture(scope="module")
def robot_package_calls(tmp_path_factory):
    return _group_in_a_folder(_robot_package_calls, tmp_path_factory.mktemp("robot-packages"))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_sweep_run_file_or_view_call_with_one_wrong_argument_is_accepted_or_refused_naming_it(
        run_and_view_calls, data):
    """Sweeps (run, resume, load, the CLI's parsers, outputs, the table, pools, the scheduler), the scenario
    runner, run files (RunWriter, load_run, read_parquet), SimSect's runner, the viewer's scenes, animations
    and replay, the warm-up, with one argument of the wrong kind or range: a result, or an InputError naming
    the argument. Session 41's first sweeps of these 41 callables found about 900 failures, among them a
    typo'd pool backend that started Ray, a sweep left "running" for ever by an echo that was not a
    function, and run_scenario and run_simsect deleting an earlier run's records before refusing a typo."""
    _one_wrong_argument_of_a_group(run_and_view_calls, data)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_rats_experiment_realtime_or_engine_call_with_one_wrong_argument_is_accepted_or_refused_naming_it(
        rats_realtime_and_engine_calls, data):
    """The RATS experiments (tip thresholds, range runs, rolls, tuning, endurance, hops; their simulations
    replaced), the software-in-the-loop endpoints and packets, the parameter ranges and the scipy runs of the
    hybrid engine, with one argument of the wrong kind or range: a result, or an InputError naming the
    argument. Session 41's first sweeps found 1620 failures in the RATS experiments and 303 in the endpoints,
    among them searches and tunings that never ended (hi or starts 2**40), a tip slip measured along +x
    whatever the run's heading, a bind address of 0.0 that listened on every interface, and scipy runs that
    recorded for ever (record_period 1e-300)."""
    _one_wrong_argument_of_a_group(rats_realtime_and_engine_calls, data)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data())
def test_a_robot_packages_helper_with_one_wrong_argument_is_accepted_or_refused_naming_it(
        robot_package_calls, data):
    """The robot packages' public helpers (the CRR leg's tracking errors and plots, the quadruped, RHex's
    motor and battery report, the hop fit, the rig's scenarios and ablation, ANTON's climb and demos, ROTTO's
    and LIBRA's controllers, measures and demos), their simulations replaced (``_reaching_no_simulation``):
    a result, or an InputError naming the argument before any simulation starts. Session 41's sweeps found,
    besides the missing checks, runs of 2**40 s that hung, demos that checked ``echo`` only after the run,
    a walk demo whose speed window was clamped to a too-short run, and a hop fit that left the valve
    model's range."""
    _one_wrong_argument_of_a_group(robot_package_calls, data)


def _cjtc_cases():
    from legsim import control as K
    from legsim.examples import two_link_arm

    kin = K.Kinematics(two_link_arm.build())
    tip_x, tip_y = K.PointCoordinate(kin, "tip", "x"), K.PointCoordinate(kin, "tip", "y")
    with_kin = {  # one valid set of arguments per control variable and the constrained chain (after kin)
        K.PointCoordinate: dict(frame="tip", axis="x", name="x"),
        K.Orientation: dict(frame="l2", axis="z", name="a"),
        K.JointAngle: dict(joint="l2", name="j"),
        K.CentreOfMass: dict(axis="y", name="c"),
        K.PotentialEnergy: dict(name="e"),
        K.StabilityMargin: dict(feet=["l2", "tip"], horizontal="x", name="s"),
        K.FunctionVariable: dict(name="f", fn=lambda q, extra: float(q[0]), gradient=None, unit="m",
                                 eps=1e-7),
        K.ConstrainedChain: dict(active=["l1"], constraints=[tip_y], targets=[0.2]),
    }
    cases = {c: functools.partial(c, kin) for c in with_kin}
    arguments = dict(with_kin)
    cases[K.CJTC] = K.CJTC
    arguments[K.CJTC] = dict(variables=[tip_x, tip_y], kp=[300.0, 200.0], kd=[20.0, 15.0],
                             active=["l1", "l2"], gravity="full", lumped_mass=1.0, lumped_index=1,
                             tau_max=5.0)
    return cases, arguments


CONTROL, CONTROL_ARGUMENTS = _cjtc_cases()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(kind=st.sampled_from(sorted(CONTROL, key=lambda c: c.__name__)), data=st.data())
def test_a_cjtc_variable_or_controller_with_one_wrong_argument_is_accepted_or_refused_naming_it(kind, data):
    """The control variables, constrained chain and CJTC of ``legsim.control`` (digest §3) with one
    argument of the wrong kind or range: accepted and usable at a valid configuration, or an InputError
    naming the class and the argument (before session 31 a string, None, a bool or an array as a frame,
    joint, axis, foot list, gain, mass or limit was a TypeError/ValueError from Python or numpy, or a
    failure at the first use)."""
    from legsim.control import CJTC, ControlVariable

    arguments = CONTROL_ARGUMENTS[kind]
    CONTROL[kind](**arguments)  # the valid set is valid
    name = data.draw(st.sampled_from(sorted(arguments)), label="argument")
    value = data.draw(WRONG, label="value")
    try:
        made = CONTROL[kind](**{**arguments, name: value})
    except InputError as exc:
        _refused_by_name(kind.__name__, name, exc)
        return
    q = np.array([0.5, 0.9])  # accepted: it works at a valid configuration
    if isinstance(made, ControlVariable):
        assert math.isfinite(made.value(q)) and np.all(np.isfinite(made.gradient(q)))
    elif isinstance(made, CJTC):
        assert np.all(np.isfinite(made.step(q, np.zeros(2), np.array([0.3, 0.4])).tau))


def _robot_cases():
    from legsim.actuators.pneumatic.cylinder import Cylinder
    from legsim.actuators.pneumatic.friction import Friction
    from legsim.actuators.pneumatic.linkage import Joint, JointLinkage
    from legsim.actuators.pneumatic.solenoid import SolenoidValve
    from legsim.actuators.pneumatic.valves import ProportionalValve
    from legsim.contact import make_state
    from legsim.hybrid import Options
    from legsim.realtime import EtherCATTiming, LinkModel
    from legsim.robots.anton import climb as AC
    from legsim.robots.anton import robot as AR
    from legsim.robots.anton.params import AntonParams
    from legsim.robots.crr_leg.walking import WalkingPath
    from legsim.robots.crr_quadruped.quadruped import ContactParameters
    from legsim.robots.libra import gait as LG
    from legsim.robots.libra import robot as LR
    from legsim.robots.rats import hopping as H
    from legsim.robots.rats import planner as P
    from legsim.robots.rats import robot as R
    from legsim.robots.rats import rolling as RL
    from legsim.robots.rats import stance as S
    from legsim.robots.rats import valve_time as V
    from legsim.robots.rats.geometry import RatsDims
    from legsim.robots.rotto import robot as RR
    from legsim.robots.rotto.params import RottoParams

    line = P.line_path((0.0, 0.0), (1.0, 0.0))

    def stretch(factors):  # a LIBRA cycle's stages stretched
        return LG.stretch(LG.climb_cycle(), factors)

    return {  # one valid set of arguments per entry point a user calls with numbers of their own
        R.build: dict(valve="rubber", contact_set="tipping", p0=0.5e6, tank_volume=1e-3, exhaust="orifice",
                      leak=False, latency=0.005, friction=9.7, k_return=100.0, com_offset=(0.0, 0.0, 0.0),
                      inertia=np.eye(3) * 0.01, path="smooth", mounting=np.eye(3), gyro=False, mu=1.0,
                      v_eps=0.03, friction_law="signed", piston_v_eps=1e-3, foot_forces=False),
        P.TippingPlanner: dict(path=line, dims=RatsDims(), gamma=1.5, slip=0.01),
        P.plan: dict(path=line, start_stance=0, yaw=0.1, start_centre=(0.0, 0.0), gamma=1.5, slip=0.0,
                     max_firings=20),
        RL.RollingParams: dict(alpha=1.0, beta=0.5, phi=0.1, gamma=0.5, t_fire=0.04, turn_policy="both",
                               require_rearm=False),
        RL.RollingController: dict(legs=RL.LEG_DIRECTIONS, gravity_world=(0.0, 0.0, -1.0)),
        V.TipStrengthModel: dict(a=2.2584, b=-1.1795, c_surface=0.01, c_latency=(3.0,) * 12),
        V.DepletionEstimator: dict(p0_mpa=0.689, cv=0.08, cv_mode="corrected", chamber_extension=0.01,
                                   rtol=1e-8),
        S.ClosedLoopTipper: dict(path=line, start_stance=0, yaw=0.1, gamma=1.5, slip=0.0, mounting=np.eye(3),
                                 retry_increment_ms=1, max_extra_ms=10, strength=V.TipStrengthModel(),
                                 estimator=V.DepletionEstimator(), keep_extra=True, min_cos=0.5,
                                 start_centre=(0.0, 0.0), dims=RatsDims()),
        S.identify_stance: dict(reading=(0.0, 0.0, 9.81), min_cos=0.5),
        H.forward_hop: dict(rotation=np.eye(3), heading=0.5, duration_ms=40),
        H.vertical_hop: dict(rotation=np.eye(3), duration_ms=40, latency_ms=(13.16,) * 12),
        R.schedule_policy: dict(commands=[(0, 40, 2), (1, 38, 0)], t0=0.5),
        AR.build_robot: dict(mu=0.8, path="smooth", obstacles=(), body_contact=False),
        AR.walker: dict(plan=AR.WalkPlan(), kp=60.0, kd=0.5, touch=2.0, force_feedforward=True,
                        posture_gain=5.0, force_gain=0.0, follow_surface=None),
        AntonParams: {f: getattr(AntonParams(), f) for f in AntonParams.__dataclass_fields__},
        AR.WalkPlan: dict(speed=0.1, gait="tripod", step_length=0.07, adaptation_height=0.02, height=0.12,
                          half_length=0.2, half_width=0.26, feet_x=0.0, start=0.3, direction=0.0, turn=0.0,
                          gait_changes=((1.0, "wave"),), params=AntonParams()),
        AC.Ledge: dict(height=0.15, edge_x=0.45),
        AC.climber: dict(plan=AC.ClimbPlan(), kp=60.0, kd=0.5, start=0.3, touch=2.0, posture_gain=5.0,
                         rate_ff=True, feel=True),
        RR.build_robot: dict(mu=0.8, path="event", mode="ideal", drive_sensors=False),
        RottoParams: {f: getattr(RottoParams(), f) for f in RottoParams.__dataclass_fields__},
        RR.StaticWalk: dict(steps=4, step_length=0.1, clearance=0.04, transfer=1.0, tau=0.2, height=0.66,
                            stance_width=0.18, start=0.5, shift=2.0, params=RottoParams()),
        RR.walker: dict(walk=RR.StaticWalk(), force_gain=1e-4, max_offset=0.01, touch_force=20.0),
        LR.Ladders: dict(separation=0.45, step=0.134, lowest=-0.268, highest=0.402, tread=0.045),
        LR.build: dict(friction=0.3, damping=0.0, armature=0.0, extra_body_mass=0.0, mu=0.8,
                       contact_damping_ratio=0.5, control_rate=300.0, drive="ideal", tau_max=9.0),
        LG.Path: dict(points=[(0.0, 0.0), (1.0, 0.5)]),
        LG.climb_cycle: dict(ladders=None, level=0, y_body=(-0.08, 0.06), x_body=None, push=0.1, clear=0.055,
                             lift=0.02, stage_time=6.0, stages=(1, 2, 3, 4), foot3_start=None, hold=1.0,
                             sink=0.02, shift=0.065, drop=0.06, cycles=1),
        stretch: dict(factors=[1.0, 1.5, 1.0, 2.0]),
        ContactParameters: dict(stiffness=1e6, exponent=1.5, damping=10.0, mu=0.8, slip_velocity=0.005,
                                foot_radius=0.02, ground_height=0.0),
        WalkingPath: dict(centre=None, stride=0.16, lift=0.05, swing_fraction=0.4, periods=(4.0, 2.5),
                          t_start=1.0, swing_points=6, stance_points=3),
        EtherCATTiming: dict(period=1e-3, jitter=1e-6, seed=0, sample_delay=None, use_delay=2),
        LinkModel: dict(delay=(0.001, 0.002), loss=0.1, pauses=((1.0, 0.1),), pause_drops=False, seed=0),
        make_state: dict(capacity=16),
        Options: dict(method="rk4", rtol=1e-6, atol=1e-8, h_max=1e-3, record_period=1e-3),
        SupplyTank: dict(volume=1e-3, temperature=300.0, leak="exponential", leak_tau=400.0, leak_area=0.0,
                         p_atm=101325.0),
        Cylinder: dict(bore=0.027, rod=0.0095, slider_area=1e-5, stroke=0.044, dead_cap=0.012,
                       dead_rod=0.018),
        Friction: {f: getattr(Friction(), f) for f in Friction.__dataclass_fields__},
        ProportionalValve: {f: getattr(ProportionalValve(), f)
                            for f in ProportionalValve.__dataclass_fields__},
        JointLinkage: dict(joint=Joint.GAMMA, l1=0.05, l2=0.15, l3=0.1, l4=0.01, l5=0.0),
        SolenoidValve: dict(name="v", latency=0.005, flow="cv", area=1e-6, cv=0.08, close_latency=0.001,
                            leak_tau=0.0, max_pressure=1e6),
    }


ROBOTS = _robot_cases()


@settings(max_examples=600, deadline=None, derandomize=True)
@given(entry=st.sampled_from(sorted(ROBOTS, key=lambda f: f"{f.__module__}.{f.__name__}")), data=st.data())
def test_a_robots_builder_or_controller_with_one_wrong_argument_is_accepted_or_refused_naming_it(entry, data):
    """The RATS robot's ``build``, its planner, rolling controller, valve-time model, depletion estimator,
    closed-loop tipper and stance identification (issue 15: every parameter exposed), ANTON's, ROTTO's
    and LIBRA's builders and ANTON's walker, with one argument of the wrong kind or range: accepted, or an
    InputError naming the argument (before session 31 a string, None or an array as a number, a valve, a
    path, a flag or the parameters was a TypeError/ValueError/AttributeError from Python or numpy, or a
    message naming a leg's cylinder or the robot's control period instead of the keyword). Since session
    34 also ANTON's and ROTTO's parameters, ANTON's walk plan, ledge and climber, ROTTO's static walk
    and walker, LIBRA's paths and climbing cycle, the CRR leg's walking path, the quadruped's contact and
    the pneumatic cylinder, friction, proportional valve and joint linkage (those took NaN), the EtherCAT
    timing, the network link model and the contact state:
    until then they took any value (a list as a speed, a string as a gain or a step count) and failed
    later inside a run, or with a TypeError/ValueError from Python or numpy."""
    _one_wrong_argument(entry, ROBOTS[entry], data)


SPHERE_INERTIA = np.eye(3) * 2e-4


def _rigid_world(laws=None, gravity=(0.0, 0.0, -9.81), capacity=64, mass=0.2, inertia=SPHERE_INERTIA,
                 pos=(0.0, 0.0, 0.05), rot=None, vel=(0.0, 0.0, -0.1), omega=(0.0, 0.0, 0.0), fext=None,
                 record_every=1, vmax=1e3):
    """A sphere body dropped on a plane in a RigidWorld and stepped twice, every argument a keyword."""
    w = C.RigidWorld(C.LawTable(1, C.ContactLaw(C.kelvin_voigt(1e4, 10.0))) if laws is None else laws,
                     gravity=gravity, capacity=capacity)
    b = w.add_body(mass, inertia, pos=pos, rot=rot, vel=vel, omega=omega, fext=fext)
    w.scene.add(C.Sphere(0.05), body=b)
    w.scene.add(C.Plane())
    w.simulate(2e-3, 1e-3, record_every=record_every, vmax=vmax)


def _robot_world(kp=1.0, kd=0.1, capacity=64, q=None, v=None, t=0.0, q_ref=(0.0,), dt_table=0.0,
                 method="rk4", record_every=1, vmax=100.0, max_depth=0.05):
    """A pendulum-legged body (a free base, one revolute joint, two spheres) in a RobotWorld."""
    from legsim.multibody import RobotBuilder
    from legsim.world import RobotWorld

    b = RobotBuilder("fuzz")
    b.add_body("base", "world", "free", mass=1.0, inertia=(4e-3, 4e-3, 4e-3))
    b.add_body("leg", "base", "revolute", axis=(0.0, 1.0, 0.0), mass=0.1, inertia=(1e-4, 1e-4, 1e-4))
    b.add_geometry("base", "sphere", radius=0.1)
    b.add_geometry("leg", "sphere", radius=0.02, xyz=(0.0, 0.0, -0.1))
    model = b.compile()
    w = RobotWorld(model, contact_law=C.ContactLaw(C.kelvin_voigt(1e4, 10.0), C.coulomb(1.0, 0.01)), kp=kp,
                   kd=kd, capacity=capacity)
    q0 = model.neutral()
    q0[2] = 0.2
    w.reset(q=q0 if q is None else q, v=v, t=t)
    w.set_targets(q_ref, dt_table=dt_table)
    w.simulate(2e-3, 1e-3, method=method, record_every=record_every, vmax=vmax, max_depth=max_depth)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(world=st.sampled_from([_rigid_world, _robot_world]), data=st.data())
def test_a_contact_world_with_one_wrong_argument_runs_or_is_refused_naming_it(world, data):
    """RigidWorld and RobotWorld (legsim.contact, legsim.world), built, set and run with one argument of
    the wrong kind or range: they run (a run may stop with a SimulationError that says when and why: a
    huge gravity blows up), or an InputError names the argument. Before session 35 a string or None as
    a duration, a step, a gain, a speed limit, a capacity, a pose or the gravity was Python's or numpy's
    ValueError/TypeError, and a capacity of 2**40 was numpy's MemoryError."""
    from legsim.errors import SimulationError

    arguments = {k: p.default for k, p in inspect.signature(world).parameters.items()}
    world()
    name = data.draw(st.sampled_from(sorted(arguments)), label="argument")
    value = data.draw(WRONG, label="value")
    try:
        world(**{**arguments, name: value})
    except InputError as exc:
        said = str(exc)
        assert name in said or (name == "q_ref" and "targets" in said), f"{world.__name__}.{name}: {exc}"
    except SimulationError:
        pass


def test_a_contact_worlds_run_that_would_not_end_or_not_fit_in_memory_is_refused():
    """What the arguments of a fixed-step run can ask that no check of one value catches: 10^15 steps
    (a compiled loop that Ctrl-C cannot stop), records of 1.7 TB (numpy's MemoryError of 7 PiB before
    session 35), a run shorter than its step."""
    with pytest.raises(InputError, match="1e\\+15 steps, expected at most 1e\\+10 in one call"):
        _rigid_world_run(1e6, 1e-9)
    with pytest.raises(InputError, match="1714 GiB of records, expected at most 4 GiB: record_every=429"):
        _rigid_world_run(1e4, 1e-6)
    with pytest.raises(InputError, match="'t_final' = 1e-06 s is shorter than one step dt = 0.001 s"):
        _rigid_world_run(1e-6, 1e-3)
    with pytest.raises(InputError, match="'t_final' = 100000000.0, expected a finite number in \\(0, 1e"):
        _rigid_world_run(1e8, 1.0)


def _rigid_world_run(t_final, dt):
    w = C.RigidWorld(C.LawTable(1, C.ContactLaw(C.kelvin_voigt(1e4, 10.0))))
    w.add_solid(C.Sphere(0.05), mass=0.2, pos=(0.0, 0.0, 0.05))
    w.simulate(t_final, dt)


BODY = dict(name="link", parent="world", joint="revolute", joint_name="j", xyz=(0.0, 0.0, 0.1),
            rpy=(0.1, 0.0, 0.0), rotation=None, axis=(0.0, 1.0, 0.0), mass=1.0, com=(0.0, 0.0, -0.5),
            inertia=(1e-3, 1e-3, 1e-3), limits=(-1.0, 1.0), damping=0.1, friction=0.1, armature=1e-4,
            effort=5.0, velocity=3.0)
FRAME = dict(name="tip", body="link", xyz=(0.0, 0.0, -1.0), rpy=(0.0, 0.0, 0.0), rotation=None)
GEOMETRY = dict(body="link", shape="box", xyz=(0.0, 0.0, -0.5), rpy=(0.0, 0.0, 0.0), rotation=None,
                material="rubber", name="shin", size=(0.05, 0.05, 1.0))
BUILDER = dict(name="arm", gravity=(0.0, 0.0, -9.81), friction_velocity=1e-3, limit_stiffness=1e4,
               limit_damping=10.0)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(step=st.sampled_from(["builder", "body", "frame", "geometry"]), data=st.data())
def test_a_multibody_description_with_one_wrong_argument_is_accepted_or_refused_naming_it(step, data):
    """``RobotBuilder`` (every robot built in Python: bodies, joints, frames, collision shapes) with one
    argument of the wrong kind or range: it compiles to a model, or an InputError names the argument
    (before session 31 a string, None or a wrong-sized list as a position, an axis, an inertia, limits,
    a shape's size, a name or the gravity was a ValueError/TypeError from numpy or Python)."""
    from legsim.multibody import RobotBuilder

    arguments = {"builder": BUILDER, "body": BODY, "frame": FRAME, "geometry": GEOMETRY}[step]
    name = data.draw(st.sampled_from(sorted(arguments)), label="argument")
    value = data.draw(WRONG, label="value")
    given = {**arguments, name: value}
    body = given["name"] if step == "body" and isinstance(given["name"], str) else "link"  # a body renamed
    try:
        b = RobotBuilder(**(given if step == "builder" else BUILDER))
        b.add_body(**(given if step == "body" else BODY))
        b.add_frame(**(given if step == "frame" else {**FRAME, "body": body}))
        b.add_geometry(**(given if step == "geometry" else {**GEOMETRY, "body": body}))
        model = b.compile()
    except InputError as exc:
        assert name in str(exc), f"{step}.{name}: {exc}"
        return
    finite = np.isfinite(model.fbuf)
    # no limits, or a stop on one side only: the joint range's open sides are ±inf
    open_sides = step == "body" and name == "limits"
    assert model.nv == 1 and (finite.all() or open_sides and (~finite).sum() <= 2
                              and np.isinf(model.fbuf[~finite]).all()), (step, name, value)
