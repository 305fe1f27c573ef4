"""RATS: the spherical robot with 12 pneumatic legs (Wagenknecht (2009), CMU-RI-TR-09-46; digest
``shared/spec/rats-spherical-robot.md``).

Modules: :mod:`.geometry` (leg directions, stances, tip edges, transition table, lattice),
:mod:`.robot` (the full robot on the assembly layer), :mod:`.valve_time` (the tip valve-time model
(6.6)/(6.7) and the depletion estimator), :mod:`.planner` (the tipping path planner, §3.2),
:mod:`.stance` (stance identification and recovery, §3.4), :mod:`.rolling` (the impact-angle
rolling controller, brake and turning, §3.5–§3.7), :mod:`.hopping` (the forward and the balanced
vertical hop, §4.1.1), :mod:`.experiments` (the thesis's procedures on
the simulated robot: E6 thresholds and the (6.6) fit, range runs, endurance, rolling trials and
their Nelder–Mead tuning). Runnable experiments: ``legsim demo rats_<name>`` (:mod:`.demo`).
"""
