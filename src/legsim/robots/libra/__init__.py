"""LIBRA: the planar three-limbed robot that climbs between two ladders under CJTC (MIT thesis on
Coordinated Jacobian Transpose Control; digest ``shared/spec/cjtc-libra.md``).

Modules: :mod:`.params` (the thesis's numbers), :mod:`.kinematics` (App. A positions, φ from the
foot-2 constraint, the T-matrix and the analytic Jacobians, inverse kinematics), :mod:`.dynamics` (the
App. C top-chain point-mass model, derived), :mod:`.linear` (eq. 22 state space, poles, bandwidths, the
18-configuration sweep), :mod:`.mobility` (the Extended Mobility Analysis of §4.3), :mod:`.robot` (LIBRA
on the assembly layer between two ladders of L-shaped steps), :mod:`.gait` (the four-stage climbing
plan), :mod:`.control` (the 300 Hz CJTC controller with its sensor models), :mod:`.experiments` (the
§6 runs and their measures).
"""
