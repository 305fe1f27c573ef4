"""The CRR joint controller for robots assembled from parts (:mod:`legsim.assembly`), any number of joints.

Per joint, at the control rate (Daepp (2011) digest §1.1, §4 algorithm 1; the gains are those of
:data:`.leg.DEFAULT_GAINS`): the PID on the joint angle plus feedback of the net pressure force of its
cylinder, saturated to the valve's voltage range with the integrator held while saturated
(:func:`._joint_kernels.pid_law`), against a sine or a table reference (:func:`._joint_kernels.
reference_at`, set with :meth:`.leg.JointReference.write`). It is one compiled controller of the
assembly (:func:`legsim.assembly.compiled_controller`, run inside the sample hook): it reads the joint
angles from a :class:`~legsim.assembly.JointEncoder` and the chamber pressures from a
:class:`~legsim.assembly.ChamberPressure` sensor of the robot (the cap and rod pressure of each joint's
cylinder, in joint order), and commands one valve voltage [V] per joint, the robot's first n actuators
(the joints' cylinders, in joint order).

``controller_params`` (:func:`controller_params`): a header ``[n, dt [s], first encoder channel,
first pressure channel]``, then n joint blocks (:mod:`._joint_kernels` layout, ``NJ`` floats each:
linkage kind for the sign of dx/dθ, gains, reference), then n actuator rows
(``actuators.pneumatic._layout``: the pressure force's areas and atmosphere, the voltage range).
Memory (``controller_memory``, :func:`initial_memory`): ``[ticks done, ∫e (n) [rad s], previous error
(n) [rad], reference (n) [rad], previous net pressure force (n) [N]]``; the first tick has no
derivative terms.

This module compiles the assembly's shared hooks on import (a minute once per machine, then loaded from
the cache); the CRR leg's own hooks (:mod:`._hooks`) use the same kernels without it.
"""

from __future__ import annotations

import numpy as np

from ...actuators.pneumatic import _layout as PL
from ...actuators.pneumatic._chamber_kernels import pressure_force
from ...assembly.compiled import compiled_controller
from ...errors import InputError, as_floats, check_number, check_whole, shown
from ...hybrid import ParamRange, choice, nonnegative, positive
from . import _joint_kernels as JB

__all__ = ["joint_pid", "controller_params", "initial_memory", "block_offset", "row_offset", "memory_offset",
           "param_names", "param_ranges", "memory_names", "BLOCK_NAMES", "HEADER_NAMES", "MAX_JOINTS",
           "DT_RANGE", "HEAD", "C_N", "C_DT", "C_CH_Q", "C_CH_P", "M_TICKS", "M_INTEG", "M_EPREV", "M_REF",
           "M_FPREV"]

C_N, C_DT, C_CH_Q, C_CH_P = range(4)
HEAD = 4
M_TICKS, M_INTEG, M_EPREV, M_REF, M_FPREV = 0, 1, 2, 3, 4
"""Memory: ticks done, then per joint (n each, in this order from 1): ∫e, previous error, reference,
previous net pressure force; :func:`memory_offset` gives where each starts."""
MAX_JOINTS = 1000
"""The most joints one controller takes (its parameters hold 4 + n (NJ + NPARAM) floats, 212 per joint)."""
DT_RANGE = (1e-6, 10.0)
"""The control period [s] :func:`controller_params` takes: 1 µs to 10 s (the derivative terms' e / dt stay
finite)."""


@compiled_controller
def joint_pid(t, sensors, params, commands, memory):
    """One control tick of n CRR joints (module docstring for the layouts): per joint j the reference
    r_j(t), the net pressure force F_p = P_cap A_cap − P_rod A_rod − P_atm A_rod,cs of its cylinder
    (Daepp (4.1.11), from the sensed pressures), and ``commands[j]`` = u_j [V] of
    :func:`._joint_kernels.pid_law`; the memory keeps ∫e, e, r and F_p for the next tick."""
    n = int(params[C_N])
    dt = params[C_DT]
    cq = int(params[C_CH_Q])
    cp = int(params[C_CH_P])
    first = memory[M_TICKS] == 0.0
    na = PL.NPARAM
    for j in range(n):
        b = HEAD + j * JB.NJ
        ra = HEAD + n * JB.NJ + j * na
        r = JB.reference_at(t, params, b)
        f_p = pressure_force(params[ra:ra + na], sensors[cp + 2 * j], sensors[cp + 2 * j + 1])
        u, integ, e = JB.pid_law(params, ra, b, f_p, sensors[cq + j], r, memory[1 + j], memory[1 + n + j],
                                 memory[1 + 3 * n + j], first, dt)
        commands[j] = u
        memory[1 + j] = integ
        memory[1 + n + j] = e
        memory[1 + 2 * n + j] = r
        memory[1 + 3 * n + j] = f_p
    memory[M_TICKS] += 1.0


def block_offset(j: int) -> int:
    """Offset of joint j's block (j a whole number in [0, MAX_JOINTS)) in the controller parameters
    (:meth:`.leg.JointReference.write` there sets its reference)."""
    return HEAD + check_whole("block_offset", "j", j, 0, MAX_JOINTS - 1) * JB.NJ


def row_offset(n: int, j: int) -> int:
    """Offset of joint j's actuator row (j in [0, n)) in the controller parameters of n joints (n in
    [1, MAX_JOINTS])."""
    n = _joints("row_offset", n)
    return HEAD + n * JB.NJ + check_whole("row_offset", "j", j, 0, n - 1) * PL.NPARAM


def controller_params(blocks, rows, dt: float, channel_q: int, channel_p: int) -> np.ndarray:
    """The parameters of :func:`joint_pid` for n joints: ``blocks`` (n, NJ) joint blocks
    (:mod:`._joint_kernels` layout, e.g. a :class:`~.leg.LegBench`'s), ``rows`` (n, NPARAM) the
    joints' actuator rows (:meth:`PneumaticActuator.row`), both finite, 1 <= n <= MAX_JOINTS, ``dt`` [s]
    the control period in :data:`DT_RANGE`, and the first sensordata channels (whole numbers >= 0) of the
    joint encoder and of the chamber pressures (``Robot.channels``)."""
    o = "joint controller"
    b = as_floats(blocks)
    n = b.shape[0] if b.ndim == 2 else -1
    if b.shape != (n, JB.NJ) or not 1 <= n <= MAX_JOINTS or not np.all(np.isfinite(b)):
        raise InputError(f"{o}: 'blocks' = {shown(blocks)}, expected finite joint blocks (n, {JB.NJ}) for "
                         f"1 <= n <= {MAX_JOINTS} joints")
    r = as_floats(rows)
    if r.shape != (n, PL.NPARAM) or not np.all(np.isfinite(r)):
        raise InputError(f"{o}: 'rows' = {shown(rows)}, expected finite actuator rows ({n}, {PL.NPARAM}), "
                         "one per joint of 'blocks'")
    check_number(o, "dt", dt, lo=DT_RANGE[0], hi=DT_RANGE[1])  # [s]
    for name, ch in (("channel_q", channel_q), ("channel_p", channel_p)):
        check_whole(o, name, ch)
    return np.concatenate([[n, dt, channel_q, channel_p], b.ravel(), r.ravel()])


def memory_offset(n: int, group: int) -> int:
    """Where memory ``group`` (``M_TICKS``, or ``M_INTEG`` … ``M_FPREV``: n values, joint order) starts in
    the memory of n joints (n in [1, MAX_JOINTS])."""
    n = _joints("memory_offset", n)
    group = check_whole("memory_offset", "group", group, M_TICKS, M_FPREV)
    return 0 if group == M_TICKS else 1 + (group - 1) * n


BLOCK_NAMES = ("kind", "l1", "l2", "l3", "l4", "l5", "kp", "ki", "kd", "gain", "u_bias", "ref_kind", "ref_t0",
               "ref_amp", "ref_omega", "ref_offset", "n_table", "k_force", "k_force_rate", "ref_period")
"""Names of a joint block's slots (:mod:`._joint_kernels`, KIND … REF_PERIOD), as ``<joint>_<name>``."""
HEADER_NAMES = ("n_joints", "dt_control", "channel_q", "channel_p")
"""Names of the header's slots (``C_N`` … ``C_CH_P``)."""


def _joint_names(owner: str, joints) -> tuple[str, ...]:
    """``joints`` as a tuple of 1 to MAX_JOINTS distinct identifiers, else an :class:`InputError`."""
    names = tuple(joints) if isinstance(joints, (list, tuple)) else ()
    if not (1 <= len(names) <= MAX_JOINTS and all(isinstance(j, str) and j.isidentifier() for j in names)
            and len(set(names)) == len(names)):
        raise InputError(f"{owner}: 'joints' = {shown(joints)}, expected a list of 1 to {MAX_JOINTS} "
                         "distinct joint names (identifiers)")
    return names


def param_names(joints) -> tuple[str, ...]:
    """Names of :func:`joint_pid`'s parameters for joints named ``joints`` (a list of n distinct
    identifiers, the parameters' joint order): the header (:data:`HEADER_NAMES`), per joint its block
    (``<joint>_<slot>``, :data:`BLOCK_NAMES`) and reference table (``<joint>_tab_t<i>``,
    ``<joint>_tab_v<i>``), then per joint its actuator row (``<joint>_row_<i>``)."""
    joints = _joint_names("param_names", joints)
    assert len(BLOCK_NAMES) == JB.TAB
    names = list(HEADER_NAMES)
    for j in joints:
        names += [f"{j}_{b}" for b in BLOCK_NAMES]
        names += [f"{j}_tab_t{i}" for i in range(JB.NTAB)] + [f"{j}_tab_v{i}" for i in range(JB.NTAB)]
    return tuple(names + [f"{j}_row_{i}" for j in joints for i in range(PL.NPARAM)])


def memory_names(joints) -> tuple[str, ...]:
    """Names of :func:`joint_pid`'s memory for joints named ``joints`` (:func:`initial_memory`'s order)."""
    joints = _joint_names("memory_names", joints)
    return ("pid_ticks", *(f"{g}_{j}" for g in ("integ", "e_prev", "ref", "f_prev") for j in joints))


def param_ranges(joints, params) -> dict[str, ParamRange]:
    """Units and allowed values of the parameters a scenario may set, for joints named ``joints`` and the
    built ``params`` (:func:`controller_params`). The layout (the joint count and the first encoder and
    pressure channels) is fixed at its built values: the compiled controller reads and writes its arrays
    by it, so another value read past their ends (before session 42 a scenario could set them). The
    actuator rows and linkage slots are the model's own tables: any value goes unchecked."""
    joints = _joint_names("param_ranges", joints)
    p = as_floats(params)
    if p.ndim != 1 or p.size != len(param_names(joints)) or not np.all(np.isfinite(p)) \
            or p[C_N] != len(joints):
        raise InputError(f"param_ranges: 'params' = {shown(params)}, expected the {len(param_names(joints))} "
                         f"finite parameters controller_params() built for the {len(joints)} 'joints'")
    r: dict[str, ParamRange] = {
        "n_joints": choice(p[C_N], doc="joints (fixed: the controller's layout)"),
        "channel_q": choice(p[C_CH_Q], doc="first encoder channel (fixed: the controller's layout)"),
        "channel_p": choice(p[C_CH_P], doc="first pressure channel (fixed: the controller's layout)"),
        "dt_control": positive("s", "the PID's period (equal to the model's sample period)")}
    for j in joints:
        r |= {f"{j}_kp": nonnegative("V/rad", "PID proportional gain"),
              f"{j}_ki": nonnegative("V/(rad s)", "PID integral gain"),
              f"{j}_kd": nonnegative("V s/rad", "PID derivative gain"),
              f"{j}_gain": positive(doc="overall gain factor"),
              f"{j}_u_bias": ParamRange("V", 0.0, 10.0, doc="valve voltage at zero PID output"),
              f"{j}_ref_kind": choice(0, 1, 2, doc="0 held steps, 1 sine, 2 linear table"),
              f"{j}_ref_t0": ParamRange("s", doc="sine start"),
              f"{j}_ref_amp": ParamRange("rad", doc="sine amplitude"),
              f"{j}_ref_omega": nonnegative("rad/s", "sine frequency"),
              f"{j}_ref_offset": ParamRange("rad", doc="sine offset"),
              f"{j}_n_table": choice(*range(JB.NTAB + 1), doc="points used in the step table"),
              f"{j}_k_force": ParamRange("V/N", doc="net pressure-force feedback gain"),
              f"{j}_k_force_rate": ParamRange("V s/N", doc="force-rate feedback gain"),
              f"{j}_ref_period": nonnegative("s", "table repeat period (0: no repeat)")}
        r |= {f"{j}_tab_t{i}": ParamRange("s") for i in range(JB.NTAB)}
        r |= {f"{j}_tab_v{i}": ParamRange("rad") for i in range(JB.NTAB)}
    return r


def initial_memory(n: int) -> np.ndarray:
    """The memory of :func:`joint_pid` for n joints (n in [1, MAX_JOINTS]) before its first tick (all
    zero)."""
    return np.zeros(1 + 4 * _joints("initial_memory", n))


def _joints(owner: str, n) -> int:
    """A number of joints: a whole number in [1, MAX_JOINTS], else an :class:`InputError`."""
    return check_whole(owner, "n", n, 1, MAX_JOINTS)
