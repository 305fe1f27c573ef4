"""Configuration presets of Daepp's two setups, with flags for the source's known ambiguities
(pneumatic digest §7 item 13, §3, §8).

``rig_preset()`` is "rig 50 psig, vertical, 0.2 kg" (App. B setup file: 50.3 psig supply, exhaust
15.7 psia, 0.2 kg attached mass, vertical and downward-facing); ``leg_preset()`` is "leg 50 psig
(P_E 24.7 psia)" (App. C setup file). Each returns the bench (:class:`RigBench`, :class:`LegBench`)
with every §3 value the model takes. Each ambiguity is a keyword whose allowed values and default are
in :data:`FLAGS`, beside the digest's own words; ``PRESETS`` maps the digest's names to the builders.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..actuators.pneumatic.friction import Friction
from ..actuators.pneumatic.units import INCH, LBF
from ..actuators.pneumatic.valves import VoltageReference
from ..errors import InputError, as_float, closest, lookup, shown

__all__ = ["FLAGS", "PRESETS", "preset", "rig_preset", "rig_identified_preset", "leg_preset",
           "friction_for_units"]

FLAGS: dict[str, dict[str, Any]] = {
    "exhaust_psia": {
        "choices": (15.7, 24.7),
        "default": {"rig": 15.7, "leg": 24.7},
        "digest": "Exhaust P_E: 15.7 psia (108.2 kPa) in the rig setup; 24.7 psia (170.3 kPa), \"room – "
                  "measured\", in the leg/SrLib setup ⚠ (§3.1; §8 item 7)",
    },
    "alpha_stroke_in": {
        "choices": (3.75, 3.5),
        "default": {"leg": 3.75},
        "digest": "Alpha: 3.75 in in the setup file vs \"3.5 in, about 2 in longer\" in the text ⚠ (§3.2; "
                  "§8 item 6)",
    },
    "voltage_reference": {
        "choices": ("consistent", "centered", "adjusted"),
        "default": {"rig": "consistent", "leg": "consistent"},
        "digest": "The code comments call Vc the \"adjusted\" voltage (offset removed, so Vc = 0 at 5.25 V), "
                  "yet the tanh pressure centre is at Vc = 0.25. That is the offset only if Vc is the merely "
                  "centered voltage (u − 5). A reimplementation should make the reference explicit and "
                  "configurable (§2.5; §8 item 12)",
    },
    "friction_units": {
        "choices": ("lbf_m_s", "lbf_in_s"),
        "default": {"rig": "lbf_m_s", "leg": "lbf_m_s"},
        "digest": "Per the setup comment the forces are \"all in lbf\" (4.5 lbf = 20.0 N, 3 lbf = 13.3 N). "
                  "⚠ The units of v, v_S, C_v and k_tanh are not stated. Most likely m/s, since the model is "
                  "otherwise SI (§2.4; §8 item 11)",
    },
    "orientation": {
        "choices": ("rod_down", "rod_up"),
        "default": {"rig": "rod_down"},
        "digest": "Test-rig load (App. B): m·ẍ = F_net ± m·g depending on orientation (vertical, "
                  "downward-facing in the setup file, g = 9.81) (§2.3)",
    },
}
"""Ambiguity flag -> allowed values, the default of each preset that has it, and the digest's wording.
``lbf_m_s``: F_S, F_C in lbf, C_v in lbf·s/m, v_S in m/s, k_tanh in s/m (the reading of
:mod:`legsim.actuators.pneumatic.friction`); ``lbf_in_s``: velocities in in/s (v_S = 0.1 in/s, k_tanh =
40 s/in, C_v = 0.5 lbf·s/in). ``rod_down``: gravity along extension +9.81 m/s²."""


def _flag(preset: str, name: str, value: Any) -> Any:
    """``value`` of flag ``name`` (None: the preset's default), else an :class:`InputError`: one of its
    choices, a name (a string) or a number equal to one."""
    spec = FLAGS[name]
    if value is None:
        return spec["default"][preset]
    choices = spec["choices"]
    known = (isinstance(value, str) and value in choices if isinstance(choices[0], str)
             else as_float(value) in choices)
    if not known:
        raise InputError(f"{preset} preset: {name}={shown(value)}: expected one of "
                         f"{', '.join(map(repr, choices))} ({spec['digest']})")
    return value


def _bench_keys(preset: str, bench: dict, builder: type, fixed: tuple[str, ...]) -> None:
    """An :class:`InputError` naming a keyword of ``bench`` that the preset sets itself (``fixed``) or that
    ``builder`` (the bench class the rest go to) does not take."""
    import inspect

    takes = [n for n, p in inspect.signature(builder).parameters.items()
             if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in fixed]
    for key in bench:
        if key in fixed:
            raise InputError(f"{preset} preset: {key!r} is set by the preset; build {builder.__name__} "
                             "directly to change it")
        lookup("keyword", key, takes, f"{preset} preset")


def friction_for_units(units: str) -> Friction:
    """The source's Stribeck-tanh parameters (F_S 4.5, F_C 3 lbf; C_v 0.5, i 5, v_S 0.1, k_tanh 40) read
    with velocities in m/s (``"lbf_m_s"``) or in in/s (``"lbf_in_s"``), as SI values."""
    if not isinstance(units, str):
        units = shown(units)  # a name of no choice: refused below, naming it
    if units == "lbf_m_s":
        return Friction()
    if units == "lbf_in_s":
        return Friction().with_(c_v=0.5 * LBF / INCH, v_s=0.1 * INCH, k_tanh=40.0 / INCH)
    choices = ", ".join(FLAGS["friction_units"]["choices"])
    raise InputError(f"friction_units={units!r}: expected one of {choices}")


def rig_preset(*, exhaust_psia: float | None = None, voltage_reference: str | None = None,
               friction_units: str | None = None, orientation: str | None = None, **bench: Any):
    """"rig 50 psig, vertical, 0.2 kg": the 1-DoF rig of App. B (supply 50.3 psig, exhaust 15.7 psia,
    0.2 kg, rod pointing down, fitted valve, Stribeck-tanh friction). Flags: see :data:`FLAGS`;
    other keywords go to :class:`~legsim.robots.pneumatic_rig.rig.RigBench` (gains, options)."""
    from .pneumatic_rig.rig import RigBench

    pe = _flag("rig", "exhaust_psia", exhaust_psia)
    vref = _flag("rig", "voltage_reference", voltage_reference)
    units = _flag("rig", "friction_units", friction_units)
    orient = _flag("rig", "orientation", orientation)
    _bench_keys("rig", bench, RigBench,
                ("supply_psig", "mass", "gravity_along_extension", "valve", "friction"))
    b = RigBench(valve="fitted", friction="stribeck", supply_psig=50.3, exhaust_psia=pe, mass=0.2,
                 gravity_along_extension=9.81 if orient == "rod_down" else -9.81, **bench)
    act = b.actuator
    b.actuator = act.with_(valve=act.valve.with_(voltage_reference=VoltageReference[vref.upper()]),
                           friction=friction_for_units(units))
    return b


def leg_preset(*, exhaust_psia: float | None = None, alpha_stroke_in: float | None = None,
               voltage_reference: str | None = None, friction_units: str | None = None, **bench: Any):
    """"leg 50 psig (P_E 24.7 psia)": the CRR leg of App. C (supply 50.3 psig, exhaust 24.7 psia,
    Alpha stroke 3.75 in, Beta and Gamma 1.75 in, fitted valves, Stribeck-tanh friction). Flags: see
    :data:`FLAGS` (a different Alpha stroke redesigns Alpha's linkage for it); other keywords go to
    :class:`~legsim.robots.crr_leg.leg.LegBench`."""
    from ..actuators.pneumatic.valves import mpye5_fitted
    from .crr_leg.geometry import STROKES, Joint, default_linkages, design_linkage
    from .crr_leg.leg import LegBench

    pe = _flag("leg", "exhaust_psia", exhaust_psia)
    stroke_in = _flag("leg", "alpha_stroke_in", alpha_stroke_in)
    vref = _flag("leg", "voltage_reference", voltage_reference)
    units = _flag("leg", "friction_units", friction_units)
    _bench_keys("leg", bench, LegBench,
                ("supply_psig", "exhaust_psia", "valve", "friction", "strokes", "linkages"))
    alpha = stroke_in * INCH
    linkages = default_linkages()
    if alpha != STROKES[0]:
        linkages = (design_linkage(Joint.ALPHA, 0.14, alpha), *linkages[1:])
    return LegBench(supply_psig=50.3, exhaust_psia=pe, valve=mpye5_fitted(
        voltage_reference=VoltageReference[vref.upper()]), friction=friction_for_units(units),
        strokes=(alpha, STROKES[1], STROKES[2]), linkages=linkages, **bench)


def rig_identified_preset(*, valve: str = "fitted", friction: str = "stribeck", **bench: Any):
    """"rig identified (A4–A6 joint fit)": the App. B rig with the unknowns the source leaves open (PID
    gains ⚠ 13, the A_eq origin ⚠ 12, the Stribeck-tanh velocity units ⚠ 11, the simple valve's c_d and
    leak) fitted jointly to A4, A5 and A6 (:data:`legsim.robots.pneumatic_rig.identification.IDENTIFIED`).
    A separate preset because ``rig_preset`` keeps the setup file's literal values; the validation
    report's A4–A6 rows use this one. ``valve`` / ``friction`` pick the ablation variant."""
    from .pneumatic_rig.identification import identified_bench
    from .pneumatic_rig.rig import RigBench

    _bench_keys("rig identified", bench, RigBench, ("kp", "kd"))
    return identified_bench(valve, friction, **bench)


PRESETS: dict[str, Callable[..., Any]] = {
    "rig 50 psig, vertical, 0.2 kg": rig_preset,
    "rig identified (A4–A6 joint fit)": rig_identified_preset,
    "leg 50 psig (P_E 24.7 psia)": leg_preset,
}
"""The digest's preset names (§7 item 13) -> builders."""


def preset(name: str, **flags: Any):
    """Build a preset by its digest name (:data:`PRESETS`); an unknown name gets the closest one."""
    if not (isinstance(name, str) and name in PRESETS):
        raise InputError(f"preset: 'name' = {shown(name)} is unknown{closest(name, list(PRESETS))}; "
                         f"expected one of {', '.join(map(repr, PRESETS))}")
    return PRESETS[name](**flags)
