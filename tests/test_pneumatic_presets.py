"""Presets of Daepp's rig and leg setups and their ambiguity flags (pneumatic digest §7 item 13, §3, §8).

Each preset must build with the §3 values, and each flag must change exactly what its wording in the
digest says is ambiguous (checked on the built bench's parameters, not by running it).
"""

import numpy as np
import pytest

from legsim.actuators.pneumatic.units import INCH, LBF, PSI
from legsim.actuators.pneumatic.valves import VoltageReference
from legsim.errors import InputError
from legsim.robots import pneumatic_presets as P
from legsim.robots.crr_leg.geometry import JOINT_LIMITS


def test_each_preset_builds_with_the_setup_files_values():
    rig = P.preset("rig 50 psig, vertical, 0.2 kg")
    assert rig.actuator.p_supply == pytest.approx(65.0 * PSI)  # 50.3 psig
    assert rig.actuator.p_exhaust == pytest.approx(15.7 * PSI)
    assert rig.rig["mass"] == 0.2 and rig.rig["gravity_along_extension"] == 9.81
    assert rig.actuator.cylinder.stroke == pytest.approx(1.75 * INCH)
    leg = P.preset("leg 50 psig (P_E 24.7 psia)")
    assert all(a.p_exhaust == pytest.approx(24.7 * PSI) for a in leg.actuators)
    assert [a.cylinder.stroke / INCH for a in leg.actuators] == pytest.approx([3.75, 1.75, 1.75])
    for bench in (rig, leg):
        fr = bench.actuator.friction if bench is rig else bench.actuators[0].friction
        assert (fr.f_s, fr.f_c_pos, fr.k_tanh) == pytest.approx((4.5 * LBF, 3.0 * LBF, 40.0))
    with pytest.raises(InputError, match="did you mean 'rig 50 psig, vertical, 0.2 kg'"):
        P.preset("rig 50 psig vertical")


@pytest.mark.parametrize("flag", sorted(P.FLAGS))
def test_every_flag_quotes_the_digest_and_refuses_values_outside_its_choices(flag):
    spec = P.FLAGS[flag]
    assert "⚠" in spec["digest"] or "(§" in spec["digest"]
    for preset in spec["default"]:
        builder = P.rig_preset if preset == "rig" else P.leg_preset
        with pytest.raises(InputError, match=flag):
            builder(**{flag: "nonsense"})


def test_exhaust_flag_changes_only_the_exhaust_pressure():
    a, b = P.rig_preset(), P.rig_preset(exhaust_psia=24.7)
    assert b.actuator.p_exhaust == pytest.approx(24.7 * PSI) and a.actuator.p_supply == b.actuator.p_supply
    ra, rb = a.actuator.row(), b.actuator.row()
    assert np.count_nonzero(ra != rb) == 1
    leg = P.leg_preset(exhaust_psia=15.7)
    assert all(x.p_exhaust == pytest.approx(15.7 * PSI) for x in leg.actuators)


def test_alpha_stroke_flag_changes_alphas_cylinder_and_linkage_only():
    a, b = P.leg_preset(), P.leg_preset(alpha_stroke_in=3.5)
    assert b.actuators[0].cylinder.stroke == pytest.approx(3.5 * INCH)
    assert b.actuators[1].cylinder.stroke == a.actuators[1].cylinder.stroke
    # the redesigned linkage moves the piston over exactly 0 .. 3.5 in across Alpha's joint range
    lo, hi = JOINT_LIMITS[0]
    x_lo, x_hi = (float(np.asarray(b.linkages[0].cylinder(th))[0]) for th in (lo, hi))
    assert abs(x_hi - x_lo) == pytest.approx(3.5 * INCH, rel=1e-6)
    assert b.linkages[1:] == a.linkages[1:] and b.linkages[0] != a.linkages[0]


@pytest.mark.parametrize("ref", ["centered", "adjusted"])
def test_voltage_reference_flag_sets_the_valves_reference(ref):
    rig, leg = P.rig_preset(voltage_reference=ref), P.leg_preset(voltage_reference=ref)
    assert rig.actuator.valve.voltage_reference == VoltageReference[ref.upper()]
    assert all(a.valve.voltage_reference == VoltageReference[ref.upper()] for a in leg.actuators)
    base = P.rig_preset().actuator.valve
    # CONSISTENT reads the tanh pressure from u − 5 and the area from u − 5.25 (valves module doc):
    # "centered" moves the area curve, "adjusted" the pressure curve, each by the 0.25 V offset
    v = rig.actuator.valve
    moved = "equivalent_area" if ref == "centered" else "input_pressure"
    kept = "input_pressure" if ref == "centered" else "equivalent_area"
    args = {"input_pressure": (5.5, 4.5e5, 1.08e5), "equivalent_area": (5.5,)}
    assert getattr(v, moved)(*args[moved]) != pytest.approx(getattr(base, moved)(*args[moved]), rel=1e-3)
    assert getattr(v, kept)(*args[kept]) == getattr(base, kept)(*args[kept])


def test_friction_units_flag_rescales_only_the_velocity_parameters():
    a, b = P.rig_preset().actuator.friction, P.rig_preset(friction_units="lbf_in_s").actuator.friction
    assert (a.f_s, a.f_c_pos, a.exponent) == (b.f_s, b.f_c_pos, b.exponent)
    assert b.v_s == pytest.approx(0.1 * INCH) and b.k_tanh == pytest.approx(40.0 / INCH)
    assert b.c_v == pytest.approx(0.5 * LBF / INCH)
    assert a.v_s == 0.1 and a.k_tanh == 40.0


def test_orientation_flag_flips_gravity_along_extension():
    assert P.rig_preset(orientation="rod_up").rig["gravity_along_extension"] == -9.81
    with pytest.raises(InputError, match="'mass' is set by the preset"):
        P.rig_preset(mass=1.0)


def test_the_identified_rig_preset_carries_the_joint_fit_beside_the_source_preset():
    from legsim.robots.pneumatic_rig.identification import IDENTIFIED

    rig = P.preset("rig identified (A4–A6 joint fit)")
    src = P.preset("rig 50 psig, vertical, 0.2 kg")
    assert rig.rig["kp"] == IDENTIFIED["kp"] and rig.rig["kd"] == IDENTIFIED["kd"]
    assert rig.actuator.valve.u_offset == IDENTIFIED["u_aeq"] and src.actuator.valve.u_offset == 5.25
    assert rig.actuator.friction.k_tanh == IDENTIFIED["k_tanh"] and src.actuator.friction.k_tanh == 40.0
    assert (rig.actuator.p_supply, rig.rig["mass"]) == (src.actuator.p_supply, src.rig["mass"])
    simple = P.rig_identified_preset(valve="simple")
    leak = 0.09 * IDENTIFIED["simple_cd"] * IDENTIFIED["simple_leak"]
    assert simple.actuator.valve.leak_cap == pytest.approx(leak)
