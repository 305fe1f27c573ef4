"""Compiled hooks of the pneumatic CRR quadruped (private; see :mod:`.quadruped`).

Per joint (12: legs lf, rf, lr, rr × Alpha, Beta, Gamma) the CRR leg's chain (digest §4 algorithm 1,
:mod:`legsim.robots.crr_leg._hooks`, whose per-joint kernels are called here at this layout's
offsets): PID + pressure-force feedback at 1 kHz → MPYE-5 valve → chamber energy balance →
piston force with Stribeck-tanh friction → joint torque through the Alpha/Beta/Gamma linkage. The
rigid bodies (:func:`.body.quadruped_bodies`) are integrated with the gas states as one ODE.

Base modes (parameter ``BASE``): FIXED, the trunk welded (multibody q = the 12 joints), or
FLOATING, the trunk a free body (q = [x y z qx qy qz qw, joints], v = [v_body, w_body, joint
rates], pinocchio convention). In FLOATING each foot sphere (centre = frame ``<leg>_foot_centre``,
radius r) touches the plane z = z_g with a stateless penalty force evaluated inside the vector
field, so the adaptive integrator sees a smooth ODE (no events):

    depth δ = r − (c_z − z_g);  δ̇ = −v_z of the contact point c − r e_z (world axes)
    F_n = k δ^n (1 + α δ̇), clipped at 0 (Hunt–Crossley; :func:`legsim.contact._laws.normal_force`)
    F_t = −μ F_n v_t / √(|v_t|² + ε²)   (regularised Coulomb; ``_laws.friction_force``)

applied at the contact point to the tibia (``multibody._aba_world.add_point_force``) and passed to
ABA as world wrenches. Only the feet touch the ground: the trunk and the other links pass
through it (a fallen robot is not modelled). Units SI (m, N, s, Pa, kg, rad).

Parameter vector ``p``: 12 actuator rows (``actuators.pneumatic._layout``, ``NA`` each, joint J =
3 leg + j at ``J*NA``), 12 joint blocks (the crr_leg block layout, ``NJ`` each, at
``O_J + J*NJ``), the header (``DT`` … ``NIB``), a contact-law row (``_laws.NPRM``), the
multibody ``fbuf`` and ``ibuf`` (as exact floats), then the actuators' SIMD lane block
(``actuators.pneumatic._lane_kernels.embedded_lanes`` of the 12 rows: derived from them, written
with them by :class:`.quadruped.Quadruped`). The twelve chambers' rates are evaluated together by
the lane kernel (four per AVX2 vector); forces and torques per joint by the scalar kernels.

State ``x``: trunk pose (7), joint angles (12), trunk twist (6), joint rates (12) — in FIXED the
trunk entries are constants —, gas states 12 × [P_cap, P_rod, m_cap, m_rod, m_air], then the
controller's bookkeeping (held voltage, integral, previous error, reference, previous net pressure
force; 12 each).
"""

from __future__ import annotations

import math

from legsim.actuators.pneumatic import _lane_kernels as LK
from legsim.contact import _laws as CL
from legsim.hybrid import signatures as sig
from legsim.multibody import _configuration as C
from legsim.multibody._aba_world import add_point_force, forward_dynamics_world, world_kinematics
from legsim.multibody._kernels import forward_dynamics
from legsim.multibody._workspace import model_workspace
from legsim.world._terrain import sphere_on_plane

from ..crr_leg import _hooks as LH

NLEG = 4
NJOINT = 12
NA = LH.NA
NJ = LH.NJ
O_J = NJOINT * NA                       # first joint block
HDR = O_J + NJOINT * NJ                 # header
DT, BASE, FOOT_R, GROUND_Z, FID0 = range(HDR, HDR + 5)   # FID0..FID0+3: foot-centre frame ids
NFB = FID0 + NLEG
NIB = NFB + 1
LAW = NIB + 1                           # contact-law row
MB = LAW + CL.NPRM                      # multibody fbuf, then ibuf

FIXED = 0
FLOATING = 1

# states
POSE = 0                                # trunk [x y z qx qy qz qw]
QJ = 7                                  # joint angles (12) [rad]
TWIST = 19                              # trunk [v_body, w_body]
VJ = 25                                 # joint rates (12) [rad/s]
GAS = 37                                # 12 x 5 gas states
NC = GAS + 5 * NJOINT                   # continuous states
U = NC                                  # held valve voltages [V]
INTEG = U + NJOINT
EPREV = INTEG + NJOINT
REF = EPREV + NJOINT
FPREV = REF + NJOINT
NX = FPREV + NJOINT

FOOT_F = 18                             # scratch: contact kinematics (9), v_t, anchor, F_t, then feet
NY = 5 * NJOINT                         # outputs: ref, torque, force, piston x, foot forces


@sig.njit_helper
def joint_offsets(J):
    """(actuator row, joint block, gas states, held voltage) offsets of joint J (0 … 11)."""
    return J * NA, O_J + J * NJ, GAS + 5 * J, U + J


@sig.njit_helper
def lanes_offset(p):
    """Offset of the actuators' lane block in ``p`` (after the multibody buffers)."""
    return MB + int(p[NFB]) + int(p[NIB])


@sig.njit_helper
def workspace(p):
    """``(m, d, fext, scratch, lanes_scratch)``: the multibody model viewed from ``p``, a fresh
    data workspace, external wrenches (nb, 6), a scratch (FOOT_F + 3 NLEG,) and the lane kernel's
    ``lin`` + ``lout`` — one allocation (as ``multibody._workspace.workspace``)."""
    nb = int(p[MB + int(p[NFB])])
    nl = LK.scratch_size(p, lanes_offset(p))
    nfoot = FOOT_F + 3 * NLEG
    m, d, extra = model_workspace(p, MB, int(p[NFB]), int(p[NIB]), 6 * nb + nfoot + nl)
    fext = extra[:6 * nb].reshape((nb, 6))
    return m, d, fext, extra[6 * nb:6 * nb + nfoot], extra[6 * nb + nfoot:]


@sig.njit_helper
def foot_forces(m, d, p, fext, scratch):
    """Penalty contact of the four foot spheres with the plane (module docstring). Needs world
    placements and velocities in ``d`` (``world_kinematics``). Adds the world wrenches (about the
    world origin) to ``fext`` (nb, 6) and writes the world force on each foot [N] into
    ``scratch[FOOT_F + 3 i : + 3]``."""
    r = p[FOOT_R]
    law = p[LAW:LAW + CL.NPRM]
    kin = scratch[0:9]
    vt = scratch[9:12]
    anchor = scratch[12:15]
    ft = scratch[15:18]
    anchor[:] = 0.0
    for i in range(fext.shape[0]):
        for k in range(6):
            fext[i, k] = 0.0
    for leg in range(NLEG):
        f = scratch[FOOT_F + 3 * leg:FOOT_F + 3 * leg + 3]
        f[:] = 0.0
        fid = int(p[FID0 + leg])
        b = m.frame_body[fid]
        fp = m.frame_p[fid]
        # contact at the sphere's lowest point (cx, cy, cz - r) on the plane z = z_g
        sphere_on_plane(d, b, fp[0], fp[1], fp[2], r, 0.0, 0.0, 1.0, p[GROUND_Z], False, kin)
        if kin[0] >= 0.0:
            continue
        fn = CL.normal_force(CL.N_HUNT_CROSSLEY, law, -kin[0], kin[1], 0.0)
        vt[0] = kin[6]
        vt[1] = kin[7]
        vt[2] = 0.0
        CL.friction_force(CL.F_COULOMB, law, fn, vt, anchor, ft)
        f[0] = ft[0]
        f[1] = ft[1]
        f[2] = fn
        add_point_force(fext, b, kin[2], kin[3], kin[4], f[0], f[1], f[2])


@sig.vector_field
def vector_field(t, x, p, mode, xdot):
    for i in range(xdot.size):
        xdot[i] = 0.0
    m, d, fext, scratch, lane_scratch = workspace(p)
    lane_of, block_lanes, nfb, lanes = LK.embedded_view(p, lanes_offset(p))
    nlin = lane_scratch.size * LK.NIN // (LK.NIN + LK.NOUT)
    lin = lane_scratch[:nlin]
    lout = lane_scratch[nlin:]
    floating = int(p[BASE]) == FLOATING
    off = 6 if floating else 0
    tau = d.tau
    for i in range(tau.size):
        tau[i] = 0.0
    for J in range(NJOINT):
        ra, b, g, ui = joint_offsets(J)
        xp, xd, arm = LH.piston_at(p, ra, b, x[QJ + J], x[VJ + J])
        tau[off + J] = LH.piston_force_at(p, ra, x, g, xd) * arm      # T = F dx/dθ
        LK.set_lane_inputs(lin, int(lane_of[J]), x[ui], xp, xd, x[g], x[g + 1], x[g + 2], x[g + 3])
    LK.lane_rates(lanes, block_lanes, nfb, lin, lout)                  # Daepp (4.1.1), (4.1.10)
    for J in range(NJOINT):
        g = GAS + 5 * J
        (xdot[g], xdot[g + 1], xdot[g + 2], xdot[g + 3],
         xdot[g + 4]) = LK.rates_of_lane(lout, int(lane_of[J]))
    if floating:
        q = x[POSE:POSE + 7 + NJOINT]
        v = x[TWIST:TWIST + 6 + NJOINT]
        C.qdot(m, q, v, xdot[POSE:POSE + 7 + NJOINT])
        world_kinematics(m, d, q, v)
        foot_forces(m, d, p, fext, scratch)
        ok = forward_dynamics_world(m, d, q, v, tau, fext, d.ddq)
        for k in range(6 + NJOINT):
            xdot[TWIST + k] = d.ddq[k] if ok else math.nan
    else:
        ok = forward_dynamics(m, d, x[QJ:QJ + NJOINT], x[VJ:VJ + NJOINT], tau, d.zero_nb6, d.ddq)
        for J in range(NJOINT):
            xdot[QJ + J] = x[VJ + J]
            xdot[VJ + J] = d.ddq[J] if ok else math.nan


@sig.sample(allocates=False)
def sample(t, x, p, mode, k, x_new):
    """The 1 kHz joint controllers: per joint the crr_leg law (``crr_leg._hooks.pid_voltage``: PID
    on the joint angle plus net-pressure-force feedback, 0–10 V) against its reference."""
    dt = p[DT]
    for J in range(NJOINT):
        ra, b, g, ui = joint_offsets(J)
        r = LH.reference_at(t, p, b)
        u, integ, e, f_p = LH.pid_voltage(p, ra, b, x, g, x[QJ + J], r, x[INTEG + J], x[EPREV + J],
                                          x[FPREV + J], k, dt)
        x_new[ui] = u
        x_new[INTEG + J] = integ
        x_new[EPREV + J] = e
        x_new[REF + J] = r
        x_new[FPREV + J] = f_p
    return mode


@sig.outputs
def outputs(t, x, p, mode, y):
    """y = [ref (12) rad, joint torque (12) N m, piston force (12) N, piston position (12) m,
    foot forces (4 × [f_x, f_y, f_z]) N, world axes, on the feet; zero with a fixed base]."""
    for J in range(NJOINT):
        ra, b, g, ui = joint_offsets(J)
        xp, xd, arm = LH.piston_at(p, ra, b, x[QJ + J], x[VJ + J])
        f = LH.piston_force_at(p, ra, x, g, xd)
        y[J] = x[REF + J]
        y[NJOINT + J] = f * arm
        y[2 * NJOINT + J] = f
        y[3 * NJOINT + J] = xp
    for i in range(3 * NLEG):
        y[4 * NJOINT + i] = 0.0
    if int(p[BASE]) == FLOATING:
        m, d, fext, scratch, _ = workspace(p)
        world_kinematics(m, d, x[POSE:POSE + 7 + NJOINT], x[TWIST:TWIST + 6 + NJOINT])
        foot_forces(m, d, p, fext, scratch)
        for i in range(3 * NLEG):
            y[4 * NJOINT + i] = scratch[FOOT_F + i]
