"""Compiled stages of an assembled robot (private; layouts in :mod:`._layout`).

Every robot shares these functions: they read the robot from its parameter vector, so a second
robot compiles nothing. Stages, in the order the vector field runs them (DESIGN.md "Robots from
parts")::

    world kinematics -> contact forces -> actuator forces (and actuator state rates) -> ABA

and, at a sample instant, sensors (truth -> measurement pipeline -> held sensordata).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .._borrow import view_c
from ..actuators.electric._kernels import peukert_rate
from ..actuators.electric._pmsm_kernels import circle_limit, inverse_park
from ..actuators.pneumatic import _lane_kernels as LK
from ..actuators.pneumatic import _layout as PL
from ..actuators.pneumatic._chamber_kernels import cylinder_rates, pressure_force, tank_pressure_rate
from ..actuators.pneumatic._flow_kernels import cv_flow_corrected, cv_flow_source, orifice_flow
from ..actuators.pneumatic._friction_kernels import friction_force
from ..actuators.pneumatic._linkage_kernels import cylinder_coordinates, cylinder_of_joint
from ..contact import _laws as LW
from ..hybrid import signatures as hs
from ..multibody._aba_world import add_point_force, forward_dynamics_world, world_kinematics
from ..multibody._explicit import explicit_dynamics
from ..multibody._layout import data_buffer_size, data_from_buffer, model_from_buffers
from ..world._terrain import (
    body_point,
    sphere_contact_force,
    sphere_gap_to_plane,
    sphere_on_box,
    sphere_on_plane,
    sphere_on_terrain,
)
from . import _layout as L

NSCR = 12 + PL.NPARAM  # contact kinematics and normal (12), then a cylinder's row fed by a tank, or v_t (3),
# an obstacle contact's kinematics (12) and force (3)


@hs.njit_helper
def scratch_size(nb, nv, nc, na, nas):
    """Length of the scratch at the end of ``p`` (:func:`workspace`)."""
    return data_buffer_size(nb, nv) + 12 * nb + 7 * nc + 2 * na + nas + NSCR + 6 * nc + 2 * na


@nb.njit(cache=True, nogil=True, inline="always")
def workspace(p):
    """``(m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr)``: the multibody model viewed from ``p``,
    its data workspace and the stages' scratch, all views of ``p`` (:mod:`._layout`): world wrenches
    ``fext`` (nb, 6), normal forces ``fn`` (nc,) [N], contact forces ``fc`` (nc, 3) [N, world axes],
    anchor rates ``sdot`` (nc, 3), body accelerations ``acc`` (nb, 6), actuator forces ``force``
    (nact,) [N m or N], currents ``cur`` (nact,) [A], the rates of the actuator states ``adot``
    (nas,), contact scratch ``scr`` (NSCR,)."""
    nf = int(p[L.P_NF])
    ni = int(p[L.P_NI])
    oi = L.HEAD + nf
    ib = p[oi:oi + ni].view(np.int64)
    nb = ib[0]
    nv = ib[1]
    nc = int(p[L.P_NC])
    na = int(p[L.P_NACT])
    m = model_from_buffers(p[L.HEAD:oi], ib)
    o0 = int(p[L.P_OSCR])
    dsize = data_buffer_size(nb, nv)
    d = data_from_buffer(p[o0:o0 + dsize], nb, nv)
    o1 = o0 + dsize + 6 * nb
    o2 = o1 + nc
    o3 = o2 + 3 * nc
    o4 = o3 + 3 * nc
    o5 = o4 + 6 * nb
    o6 = o5 + na
    o7 = o6 + na
    o8 = o7 + int(p[L.P_NAS])
    return (m, d, view_c(p[o0 + dsize:o1], (nb, 6)), p[o1:o2], view_c(p[o2:o3], (nc, 3)),
            view_c(p[o3:o4], (nc, 3)), view_c(p[o4:o5], (nb, 6)), p[o5:o6], p[o6:o7], p[o7:o8],
            p[o8:o8 + NSCR])


@hs.njit_helper
def loop_scratch_size(nx, nv, nb, ni):
    """Length of the closed loops' scratch (``_layout.LB_SCR``; :func:`loop_workspace`)."""
    return nx + 3 * nv + 6 * nb + ni * ni + ni


@hs.njit_helper
def loop_workspace(p):
    """``(src, g, conv, r, fb, A, y)`` of a robot with closed loops (views of ``p``, ``_layout.LB_*``): the
    independent dof each tree dof follows (nv,), G's coefficients g (nv,) and Ġẏ (nv,) of the state last
    closed by :func:`closed`, then scratch for :func:`legsim.multibody._explicit.explicit_dynamics`: the
    inverse-dynamics forces (nv,), body wrenches (nb, 6), Gᵀ M G (ni, ni) and ÿ (ni,)."""
    ob = int(p[L.P_OLP])
    nv = int(p[L.P_NV])
    nx = int(p[ob + L.LB_NX])
    ni = int(p[ob + L.LB_NI])
    oi = L.HEAD + int(p[L.P_NF])
    nb = p[oi:oi + 1].view(np.int64)[0]  # ibuf[0] (:func:`workspace`)
    o = int(p[ob + L.LB_SCR]) + nx
    o1 = o + nv
    o2 = o1 + nv
    o3 = o2 + nv
    o4 = o3 + 6 * nb
    o5 = o4 + ni * ni
    return (p[ob + L.LB_MAP:ob + L.LB_MAP + nv], p[o:o1], p[o1:o2], p[o2:o3], view_c(p[o3:o4], (nb, 6)),
            view_c(p[o4:o5], (ni, ni)), p[o5:o5 + ni])


@hs.njit_helper
def close_loops(x, p):
    """The closed copy of the state ``x`` (a view of ``p``'s loop scratch): ``x`` with each loop's barrel
    angle and piston position replaced by φ(θ), x(θ) and their rates by dφ/dθ θ̇, dx/dθ θ̇
    (:class:`legsim.assembly.LinkageLoop`; Featherstone (2008) ch. 8, q = γ(y), q̇ = G ẏ); G's coefficients
    and Ġẏ = (d²φ/dθ² θ̇², d²x/dθ² θ̇²) go to :func:`loop_workspace`'s ``g`` and ``conv`` (1 and 0 for the
    independent dofs)."""
    ob = int(p[L.P_OLP])
    nq = int(p[L.P_NQ])
    nv = int(p[L.P_NV])
    nx = int(p[ob + L.LB_NX])
    so = int(p[ob + L.LB_SCR])
    xc = p[so:so + nx]
    for k in range(nx):
        xc[k] = x[k]
    g = p[so + nx:so + nx + nv]
    conv = p[so + nx + nv:so + nx + 2 * nv]
    for k in range(nv):
        g[k] = 1.0
        conv[k] = 0.0
    rows = ob + L.LB_MAP + nv
    for j in range(int(p[L.P_NLP])):
        o = rows + L.LPW * j
        c = o + L.LP_L1
        phi, dphi, ddphi, xp, dx, ddx = cylinder_coordinates(int(p[o + L.LP_KIND]), p[c], p[c + 1], p[c + 2],
                                                            p[c + 3], p[c + 4], x[int(p[o + L.LP_QADR])])
        w = x[nq + int(p[o + L.LP_DOF])]
        bd = int(p[o + L.LP_BDOF])
        pd = int(p[o + L.LP_PDOF])
        xc[int(p[o + L.LP_BQADR])] = phi
        xc[int(p[o + L.LP_PQADR])] = xp
        xc[nq + bd] = dphi * w
        xc[nq + pd] = dx * w
        g[bd] = dphi
        g[pd] = dx
        conv[bd] = ddphi * w * w
        conv[pd] = ddx * w * w
    return xc


@nb.njit(cache=True, nogil=True, inline="always")
def closed(x, p):
    """The state every hook reads: ``x`` itself for a robot without closed loops (one header test), else
    its closed copy (:func:`close_loops`)."""
    if p[L.P_NLP] == 0.0:
        return x
    return close_loops(x, p)


@hs.njit_helper
def contact_wrenches(p):
    """``wc`` (nc, 6): each contact point's wrench on its body from the last :func:`contact_forces`,
    ``(f, x × f)`` [N, N m] about the world origin in world axes (ground and obstacles), a view of
    ``p``'s scratch at ``p[P_OWC]``: what a force/torque sensor sums."""
    o = int(p[L.P_OWC])
    return view_c(p[o:o + 6 * int(p[L.P_NC])], (int(p[L.P_NC]), 6))


@hs.njit_helper
def drive_electrical(p):
    """``ae`` (nact, 2): each PMSM drive's electrical angle phi_e [rad] and d-axis current i_d [A] from
    the last :func:`actuator_forces` (other actuators' rows unused), a view of ``p``'s scratch at
    ``p[P_OAE]``: what a phase-current sensor transforms (with i_q, ``cur``)."""
    o = int(p[L.P_OAE])
    return view_c(p[o:o + 2 * int(p[L.P_NACT])], (int(p[L.P_NACT]), 2))


@nb.njit(cache=True, nogil=True, inline="always")
def moved_workspace(p, x):
    """:func:`workspace` with the world kinematics of the state ``x`` done (placements, velocities)."""
    ws = workspace(p)
    nq = int(p[L.P_NQ])
    world_kinematics(ws[0], ws[1], x[:nq], x[nq:nq + int(p[L.P_NV])])
    return ws


@nb.njit(cache=True, nogil=True, inline="always")
def contact_point(oR, op, ov, p, k, out):
    """Contact point k against the ground, from the world placements and velocities ``oR``, ``op``,
    ``ov`` of the data (:func:`legsim.world._terrain.body_point` says why the arrays and not the data):
    ``out`` (12,) = gap, approach rate, point (3), point
    velocity (3) (:func:`sphere_on_plane`; the point midway between the sphere and the ground, or the
    sphere's deepest point, ``C_MIDWAY``), then the ground's outward normal there (3) (the plane's,
    or a terrain's tangent plane under the sphere: :func:`sphere_on_terrain`)."""
    oc = int(p[L.P_OC])
    o = oc + L.C_LAW + LW.NPRM + L.CW * k
    b, lx, ly, lz, r = int(p[o + L.CP_BODY]), p[o + L.CP_X], p[o + L.CP_Y], p[o + L.CP_Z], p[o + L.CP_R]
    midway = p[oc + L.C_MIDWAY] != 0.0
    ot = int(p[L.P_OTR])
    if ot >= 0:
        sphere_on_terrain(oR, op, ov, b, lx, ly, lz, r, p, ot + L.TR_DATA, int(p[ot + L.TR_KIND]),
                          int(p[ot + L.TR_N]), int(p[ot + L.TR_NX]), int(p[ot + L.TR_NY]), p[ot + L.TR_DX],
                          p[ot + L.TR_DY], midway, out)
        return
    sphere_on_plane(oR, op, ov, b, lx, ly, lz, r, p[oc + L.C_NX], p[oc + L.C_NY], p[oc + L.C_NZ],
                    p[oc + L.C_OFF], midway, out)
    out[9] = p[oc + L.C_NX]
    out[10] = p[oc + L.C_NY]
    out[11] = p[oc + L.C_NZ]


@nb.njit(cache=True, nogil=True, inline="always")
def contact_gap(oR, op, ov, p, k, out):
    """Gap [m] of contact point k, :func:`contact_point`'s ``out[0]`` (the value the event path's
    guards watch): against the plane from the placements alone, without the point's velocity (a
    guard evaluation runs once per step for every point); against a terrain through
    :func:`contact_point` (``out`` (12,) its scratch)."""
    oc = int(p[L.P_OC])
    if int(p[L.P_OTR]) >= 0:
        contact_point(oR, op, ov, p, k, out)
        return out[0]
    o = oc + L.C_LAW + LW.NPRM + L.CW * k
    return sphere_gap_to_plane(oR, op, int(p[o + L.CP_BODY]), p[o + L.CP_X], p[o + L.CP_Y], p[o + L.CP_Z],
                               p[o + L.CP_R], p[oc + L.C_NX], p[oc + L.C_NY], p[oc + L.C_NZ],
                               p[oc + L.C_OFF])[0]


@hs.njit_helper
def contact_forces(d, p, x, mode, fext, fn, fc, sdot, scr):
    """Contact forces of every touching point (after world kinematics): normal law (with the
    latched impact speed on the event path) and friction law (anchor spring: its rate into
    ``sdot``), as world wrenches added to ``fext``; ``fn`` (nc,) normal forces, ``fc`` (nc, 3)
    total contact forces [N]. Event path: point k touches while mode bit k is set; smooth path:
    while its gap is negative."""
    oc = int(p[L.P_OC])
    nc = int(p[L.P_NC])
    smooth = p[L.P_SMOOTH] != 0.0
    ncode = int(p[oc + L.C_NLAW])
    fcode = int(p[oc + L.C_FLAW])
    prm = p[oc + L.C_LAW:oc + L.C_LAW + LW.NPRM]
    rows = oc + L.C_LAW + LW.NPRM
    xc = int(p[L.P_XC])
    xs = int(p[L.P_XS])
    nob = int(p[L.P_NOB])  # obstacles exist on the smooth path only (Contacts checks)
    kin = scr[0:12]
    vt = scr[12:15]
    wc = contact_wrenches(p)
    oR, op, ov = d.oR, d.op, d.ov
    for b in range(fext.shape[0]):
        for i in range(6):
            fext[b, i] = 0.0
    for k in range(nc):
        fn[k] = 0.0
        for i in range(3):
            sdot[k, i] = 0.0
            fc[k, i] = 0.0
        for i in range(6):
            wc[k, i] = 0.0
        if not smooth and not (mode >> k) & 1:
            continue
        contact_point(oR, op, ov, p, k, kin)
        if not smooth or kin[0] < 0.0:
            anchor = x[xs + 3 * k:xs + 3 * k + 3] if fcode == LW.F_ANCHOR else sdot[k]
            fn[k] = sphere_contact_force(ncode, fcode, prm, kin[9], kin[10], kin[11], kin,
                                         0.0 if smooth else x[xc + k], anchor, sdot[k], vt, fc[k])
            add_point_force(fext, int(p[rows + L.CW * k + L.CP_BODY]), kin[2], kin[3], kin[4],
                            fc[k, 0], fc[k, 1], fc[k, 2])
            add_point_force(wc, k, kin[2], kin[3], kin[4], fc[k, 0], fc[k, 1], fc[k, 2])
        if nob > 0:
            obstacle_forces(oR, op, ov, p, k, nob, ncode, fcode, prm, fext, fn, fc, wc, scr)


@hs.njit_helper
def obstacle_forces(oR, op, ov, p, k, nob, ncode, fcode, prm, fext, fn, fc, wc, scr):
    """Smooth-path forces of contact point k against each of the ``nob`` static box obstacles it
    penetrates (same law as the ground; stateless friction only), added to ``fext``, ``fn[k]``,
    ``fc[k]`` and the point's wrench ``wc[k]``."""
    oob = int(p[L.P_OOB])
    o = int(p[L.P_OC]) + L.C_LAW + LW.NPRM + L.CW * k
    body = int(p[o + L.CP_BODY])
    kin = scr[15:27]
    vt = scr[12:15]
    f = scr[27:30]
    for j in range(nob):
        sphere_on_box(oR, op, ov, body, p[o + L.CP_X], p[o + L.CP_Y], p[o + L.CP_Z], p[o + L.CP_R],
                      p[oob + L.OW * j:oob + L.OW * (j + 1)], kin)
        if kin[0] >= 0.0:
            continue
        fn[k] += sphere_contact_force(ncode, fcode, prm, kin[9], kin[10], kin[11], kin, 0.0, f, f, vt, f)
        for i in range(3):
            fc[k, i] += f[i]
        add_point_force(fext, body, kin[2], kin[3], kin[4], f[0], f[1], f[2])
        add_point_force(wc, k, kin[2], kin[3], kin[4], f[0], f[1], f[2])


@hs.njit_helper
def _clip(u, lo, hi):
    return lo if u < lo else (hi if u > hi else u)


@nb.njit(cache=True, nogil=True, inline="always")
def piston(p, pp, q, qd):
    """``(x, xdot, dx/dq, row)`` of a pneumatic cylinder through its transmission (``pp``: its type
    parameters in ``p``): piston position [m] clamped to [0, stroke], velocity [m/s], lever arm
    [m/rad or -] (Daepp (5.2.1)–(5.2.9) for the CRR linkage), and its parameter row."""
    ro = int(p[pp])
    row = p[ro:ro + PL.NPARAM]
    tr = int(p[pp + 1])
    if tr == L.TR_DIRECT:
        xp, xd, arm = q, qd, 1.0
    elif tr == L.TR_LINEAR:
        arm = p[pp + 4]
        xp, xd = p[pp + 3] + arm * (q - p[pp + 2]), arm * qd
    else:
        xp, xd, arm = cylinder_of_joint(int(p[pp + 2]), p[pp + 3], p[pp + 4], p[pp + 5], p[pp + 6],
                                        p[pp + 7], q, qd)
    xp = _clip(xp, 0.0, row[PL.STROKE])
    return xp, xd, arm, row


@nb.njit(cache=True, nogil=True, inline="always")
def cylinder_force(p, o, x, q, qd, scr):
    """The pneumatic cylinder at actuator row ``p[o]`` at joint position ``q`` and rate ``qd``:
    ``(x, xdot, dx/dq, row, F)``: piston position [m] (clamped), velocity [m/s] and lever arm through
    its transmission (:func:`piston`), its parameter row (a copy in ``scr`` with its air supply's
    pressure and temperature when it draws from one) and the piston force
    F = P_cap A_cap - P_rod A_rod - P_atm A_rod,cs - F_f(xdot) [N] (Daepp (4.1.11); velocity-only
    friction)."""
    xp, xd, arm, row = piston(p, o + L.A_P0, q, qd)
    k = int(p[o + L.A_SUPPLY])
    if k >= 0:
        row = supplied_row(p, row, k, x, scr[12:12 + PL.NPARAM])
    s = int(p[o + L.A_STATE])
    return xp, xd, arm, row, pressure_force(row, x[s], x[s + 1]) - friction_force(row, xd, 0.0, 0, 0.0)


@hs.njit_helper
def lane_blocks(p):
    """The cylinders' SIMD lane block (:mod:`legsim.actuators.pneumatic._lane_kernels`) viewed from
    ``p``: ``(lane_of, block_lanes, n_fitted_blocks, lanes, lin, lout)``, the last two its input and
    output scratch at ``P_OLS``; empty views without a lane block (``P_OLN`` < 0)."""
    off = int(p[L.P_OLN])
    if off < 0:
        none = p[0:0]
        return none, none, 0.0, none, none, none
    lane_of, block_lanes, nfb, lanes = LK.embedded_view(p, off)
    o = int(p[L.P_OLS])
    nin = block_lanes.shape[0] * LK.NIN * LK.LANE_WIDTH
    nout = block_lanes.shape[0] * LK.NOUT * LK.LANE_WIDTH
    return lane_of, block_lanes, nfb, lanes, p[o:o + nin], p[o + nin:o + nin + nout]


@hs.njit_helper
def battery_drain(p, adot):
    """Turn each battery's summed motor current |i| [A] (accumulated in its slot of ``adot`` by
    :func:`actuator_forces`) into the rate of its charge fraction, ``-1 / f(i)`` (Peukert, SimSect
    digest §4.10)."""
    xa = int(p[L.P_XA])
    ob = int(p[L.P_OB])
    for r in range(int(p[L.P_NB])):
        o = ob + L.BW * r
        k = int(p[o]) - xa
        adot[k] = -peukert_rate(adot[k], p[o + 1], p[o + 2], p[o + 3])


@hs.njit_helper
def supply_leaks(p, x, adot):
    """Start the air supplies' pressure rates with their leakage (RATS (5.12); the cylinders then
    subtract what they draw), and the batteries' current sums at 0: ``adot`` (nas,) at each
    resource's state."""
    xa = int(p[L.P_XA])
    ob = int(p[L.P_OB])
    for r in range(int(p[L.P_NB])):
        adot[int(p[ob + L.BW * r]) - xa] = 0.0
    orr = int(p[L.P_OR])
    for r in range(int(p[L.P_NR])):
        o = orr + L.RW * r
        s = int(p[o + L.R_STATE])
        adot[s - xa] = tank_pressure_rate(x[s], 0.0, p[o + L.R_TEMP], p[o + L.R_VOLUME], p[o + L.R_GAS_R],
                                          p[o + L.R_P_ATM], int(p[o + L.R_LEAK]), p[o + L.R_LEAK_TAU],
                                          p[o + L.R_LEAK_AREA], p[o + L.R_K], p[o + L.R_C1],
                                          p[o + L.R_C2], p[o + L.R_CR], p[o + L.R_LAM])


@hs.njit_helper
def supplied_row(p, row, k, x, buf):
    """The parameter row of a cylinder fed by air supply ``k``: a copy in ``buf`` with the supply's
    pressure (its state) and temperature."""
    o = int(p[L.P_OR]) + L.RW * k
    for i in range(row.shape[0]):
        buf[i] = row[i]
    buf[PL.P_SUPPLY] = x[int(p[o + L.R_STATE])]
    buf[PL.T_SUPPLY] = p[o + L.R_TEMP]
    return buf


@hs.njit_helper
def solenoid_force(p, o, x, q, qd, adot, xa):
    """The RATS leg at actuator row ``p[o]`` (``components.SolenoidCylinder``): its force on the joint
    (5.5), and into ``adot`` the rates of its pressure (5.11) and gas used and, through its supply's
    pressure, the tank's (5.12). The valve's state (open 1 / closed 0) is the actuator's third state."""
    s = int(p[o + L.A_STATE])
    b = int(p[o + L.SO_BLOCK])
    ro = int(p[L.P_OR]) + L.RW * int(p[o + L.A_SUPPLY])
    r_gas, temp, p_atm = p[ro + L.R_GAS_R], p[ro + L.R_TEMP], p[ro + L.R_P_ATM]
    k, c1, c2, r_cr, r_lam = p[ro + L.R_K], p[ro + L.R_C1], p[ro + L.R_C2], p[ro + L.R_CR], p[ro + L.R_LAM]
    area = p[o + L.SO_AREA]
    xl = _clip(q, 0.0, p[o + L.SO_STROKE])
    pc = x[s]
    pt = x[int(p[ro + L.R_STATE])]
    mdot = 0.0
    for i in range(1, L.NSOL):  # gas used (while open, below), valve and switch time (bookkeeping)
        adot[s + i - xa] = 0.0
    if x[s + 2] > 0.5:  # open: tank -> cylinder, (5.7) or (5.8)-(5.10)
        code = int(p[b + L.SB_FLOW])
        if code == L.FLOW_ORIFICE:
            mdot = orifice_flow(p[b + L.SB_AREA], pt, pc, temp, k, c1, c2, r_cr, r_lam)
        elif code == L.FLOW_CV:
            mdot = cv_flow_source(p[b + L.SB_CV], pt, pc, temp, p[ro + L.R_SG], r_gas, r_cr)
        else:
            mdot = cv_flow_corrected(p[b + L.SB_CV], pt, pc, temp, p[ro + L.R_SG], r_gas, 1.0 - r_cr, r_lam)
        adot[int(p[ro + L.R_STATE]) - xa] -= mdot * r_gas * temp / p[ro + L.R_VOLUME]
        adot[s + 1 - xa] = mdot
    elif int(p[b + L.SB_EXHAUST]) == L.EXH_ORIFICE:
        mdot = -orifice_flow(p[b + L.SB_EXH_AREA], pc, p_atm, temp, k, c1, c2, r_cr, r_lam)
    if x[s + 2] <= 0.5 and int(p[b + L.SB_EXHAUST]) == L.EXH_INSTANT:
        adot[s - xa] = 0.0  # vented: held at atmospheric (set at the closing event)
    else:
        vol = p[o + L.SO_V0] + area * xl
        adot[s - xa] = p[b + L.SB_KAPPA] * (r_gas * temp * mdot - pc * area * qd) / vol
    if p[b + L.SB_FRICTION] != 0.0:  # the thesis's constant F_f against extension, (5.5)/(5.6) as printed
        friction = p[o + L.SO_FF]
    else:
        friction = p[o + L.SO_FF] * math.tanh(qd / p[b + L.SB_VEPS])
    return (pc - p_atm) * area - p[o + L.SO_KRET] * xl - friction - p[o + L.SO_BETA] * qd


@hs.njit_helper
def pmsm_drive(p, o, x, u, q, qd, adot, xa):
    """A PMSM drive at actuator row ``p[o]`` (``components.PMSMDrive``): ``(joint force, i_q, i_d,
    phi_e)``, and into ``adot`` the rates of its states (motor side x_m, v_m with a series spring; i_d,
    i_q, PI integrals in the current-loop mode). The electrical angle ``phi_e = p G s`` [rad] of the
    motor-side coordinate s (the joint's, or x_m behind a series spring): the rotor's D axis at s = 0."""
    b = int(p[o + L.PM_BLOCK])
    g = p[o + L.A_GEAR]
    s = int(p[o + L.A_STATE])
    res, ld, lq, psi, pp = p[b + L.PB_R], p[b + L.PB_LD], p[b + L.PB_LQ], p[b + L.PB_PSI], p[b + L.PB_PP]
    eta, imax, cf = p[b + L.PB_ETA], p[b + L.PB_IMAX], p[b + L.PB_CF]
    w = g * (x[s + 1] if cf > 0.0 else qd)  # rotor speed [rad/s]
    fs = cf * (x[s] - q) if cf > 0.0 else 0.0
    cmd = int(p[b + L.PB_CMD])
    if cmd == L.PM_CURRENT:
        iref = u
    else:
        fref = u if cmd == L.PM_FORCE else _clip(p[b + L.PB_KP] * (u - q) - p[b + L.PB_KD] * qd,
                                                  -p[b + L.PB_FG], p[b + L.PB_FG])
        if cf > 0.0:
            iref = (p[b + L.PB_FF] * fref + p[b + L.PB_KPF] * (fref - fs)
                    - p[b + L.PB_KDF] * cf * (x[s + 1] - qd))
        else:
            iref = fref / (eta * g * 1.5 * pp * psi)
    iref = _clip(iref, -imax, imax)
    we = pp * w
    ulim2 = p[b + L.PB_VDC] * p[b + L.PB_VDC] / 3.0
    if int(p[b + L.PB_MODE]) == L.PM_IDEAL:  # steady band of the voltage circle at this speed, i_d = 0
        qa = res * res + we * we * lq * lq
        qb = 2.0 * res * we * psi
        disc = qb * qb - 4.0 * qa * (we * we * psi * psi - ulim2)
        root = math.sqrt(disc) if disc > 0.0 else 0.0
        i_d, i_q = 0.0, _clip(iref, (-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa))
    else:  # the PI (4.2) as its continuous equivalent, voltage limited D first, dq winding equations
        e = s + int(p[b + L.PB_E0])
        i_d, i_q = x[e], x[e + 1]
        ud, uq, clip_d, clip_q = circle_limit(p[b + L.PB_P] * -i_d + p[b + L.PB_IT] * x[e + 2],
                                              p[b + L.PB_P] * (iref - i_q) + p[b + L.PB_IT] * x[e + 3],
                                              p[b + L.PB_VDC])
        adot[e - xa] = (ud - res * i_d + we * lq * i_q) / ld
        adot[e + 1 - xa] = (uq - res * i_q - we * (ld * i_d + psi)) / lq
        adot[e + 2 - xa] = 0.0 if clip_d else -i_d
        adot[e + 3 - xa] = 0.0 if clip_q else iref - i_q
    fm = eta * g * 1.5 * pp * (psi * i_q + (ld - lq) * i_d * i_q) - g * p[b + L.PB_B] * w
    if cf > 0.0:
        adot[s - xa] = x[s + 1]
        adot[s + 1 - xa] = (fm - fs) / p[b + L.PB_MM]
        return fs, i_q, i_d, pp * g * x[s]
    return fm, i_q, i_d, pp * g * q


@hs.njit_helper
def table_command(p, t, c):
    """Column ``c`` of the command table at time ``t`` [s]: linear between the rows sampled every dt
    from t = 0, the first row before 0, the last after (K - 1) dt (:class:`legsim.assembly.CommandTable`)."""
    ot = int(p[L.P_OT])
    rows = int(p[ot + L.T_ROWS])
    n = int(p[ot + L.T_NCOL])
    d = ot + L.T_DATA + c
    s = t / p[ot + L.T_DT]
    i0 = 0
    fr = 0.0
    if rows > 1 and s >= rows - 1:
        i0 = rows - 2
        fr = 1.0
    elif rows > 1 and s > 0.0:
        i0 = int(s)
        fr = s - i0
    i1 = i0 + 1 if rows > 1 else i0
    return (1.0 - fr) * p[d + i0 * n] + fr * p[d + i1 * n]


@hs.njit_helper
def _body_point(oR, op, ov, body, lx, ly, lz, out, o):
    """World position (3) and velocity (3) [m, m/s] of the point (lx, ly, lz) of ``body`` (body axes),
    from the world placements and velocities ``oR``, ``op``, ``ov``, into ``out[o:o + 6]``."""
    px, py, pz = body_point(oR, op, body, lx, ly, lz)
    vo = ov[body]  # spatial velocity about the world origin: v_x = v_O + w x x
    out[o], out[o + 1], out[o + 2] = px, py, pz
    out[o + 3] = vo[0] + vo[4] * pz - vo[5] * py
    out[o + 4] = vo[1] + vo[5] * px - vo[3] * pz
    out[o + 5] = vo[2] + vo[3] * py - vo[4] * px


@hs.njit_helper
def rod_length(oR, op, p, k):
    """Length [m] of rod k (:class:`legsim.assembly.Rod`) from the world placements ``oR``, ``op``."""
    o = int(p[L.P_ORD]) + L.RDW * k
    a, b = o + L.RD_PA, o + L.RD_PB
    ax, ay, az = body_point(oR, op, int(p[o + L.RD_A]), p[a], p[a + 1], p[a + 2])
    bx, by, bz = body_point(oR, op, int(p[o + L.RD_B]), p[b], p[b + 1], p[b + 2])
    return math.sqrt((bx - ax) ** 2 + (by - ay) ** 2 + (bz - az) ** 2)


@hs.njit_helper
def rod_state(oR, op, ov, p, k, out):
    """Rod k (:class:`legsim.assembly.Rod`, from the world placements and velocities): ``out`` (17,) =
    length l [m], rate l̇ = u · (v_B − v_A) [m/s], the unit vector u from A to B (3), then A's and B's
    world position and velocity (6 each)."""
    o = int(p[L.P_ORD]) + L.RDW * k
    a, b = o + L.RD_PA, o + L.RD_PB
    _body_point(oR, op, ov, int(p[o + L.RD_A]), p[a], p[a + 1], p[a + 2], out, np.int64(5))
    _body_point(oR, op, ov, int(p[o + L.RD_B]), p[b], p[b + 1], p[b + 2], out, np.int64(11))
    dx, dy, dz = out[11] - out[5], out[12] - out[6], out[13] - out[7]
    length = math.sqrt(dx * dx + dy * dy + dz * dz)
    out[0] = length
    out[2], out[3], out[4] = dx / length, dy / length, dz / length
    out[1] = out[2] * (out[14] - out[8]) + out[3] * (out[15] - out[9]) + out[4] * (out[16] - out[10])


@hs.njit_helper
def ex_up(nact, slot, a):
    """Offset from ``P_XEX`` of actuator a's joint position in the split exchange's ring-up ``slot`` (its
    rate follows), for ``nact`` actuators (:mod:`._layout` ``EX_*``)."""
    return L.EX_RX + L.EX_RXW * nact + 2 * (nact * slot + a)


@hs.njit_helper
def ex_down(nact, slot, a):
    """Offset from ``P_XEX`` of actuator a's force in the split exchange's ring-down ``slot``."""
    return L.EX_RX + L.EX_RXW * nact + 2 * L.EX_DMAX * nact + nact * slot + a


@nb.njit(cache=True, nogil=True, inline="always")
def joint_state(p, x, o, a, xe):
    """``(q, qdot)`` of the joint that actuator a (its row at ``p[o]``) drives, as the actuator's model
    sees it: the live state ``x`` [rad or m, rad/s or m/s] or, under a split exchange (``xe`` =
    ``p[P_XEX]`` >= 0, read once by the caller), the packet the target holds (``<actuator>_q_rx``,
    ``_v_rx``: :func:`exchange_up`)."""
    if xe >= 0:
        h = xe + L.EX_RX + L.EX_RXW * a
        return x[h + L.EX_Q], x[h + L.EX_V]
    return x[int(p[o + L.A_QADR])], x[int(p[L.P_NQ]) + int(p[o + L.A_DOF])]


@hs.njit_helper
def exchange_paused(p, x):
    """Whether the split exchange is stalled at state ``x`` (its paused flag; False without one)."""
    xe = int(p[L.P_XEX])
    return xe >= 0 and x[xe + L.EX_PAUSED] != 0.0


@hs.njit_helper
def exchange_held_forces(p, x, tau, force):
    """Under a split exchange the body feels the held forces (``<actuator>_f_rx``), not its actuators'
    live ones: ``force`` (nact,) and the joint forces ``tau`` (nv,) (zeroed first) from them."""
    xe = int(p[L.P_XEX])
    oa = int(p[L.P_OA])
    for k in range(tau.shape[0]):
        tau[k] = 0.0
    for a in range(force.shape[0]):
        f = x[xe + L.EX_RX + L.EX_RXW * a + L.EX_F]
        force[a] = f
        tau[int(p[oa + L.AW * a + L.A_DOF])] += f


@hs.njit_helper
def exchange_up(t, x, p, x_new):
    """The target's side of a controller tick of the split exchange (Daepp (2011) digest §1.2, §7 item 8;
    the CRR leg's ``_hooks.sample``): the paused flag is set while t is in [t0, t0 + duration) (1e-9 s
    tolerance); unless paused, packet n (``<..>_packets``) carries the live joint states (q, v) of the
    actuators' joints into ring-up slot n % EX_DMAX, and the target takes the packet sent ``delay_up``
    ticks earlier (slot (n - delay_up) % EX_DMAX) as its held q_rx, v_rx. Writes ``x_new``; returns
    whether the exchange runs this tick (not paused)."""
    o = int(p[L.P_OEX])
    xe = int(p[L.P_XEX])
    dur = p[o + L.EX_DUR]
    t0 = p[o + L.EX_T0]
    eps = 1e-9
    paused = dur > 0.0 and t >= t0 - eps and t < t0 + dur - eps
    x_new[xe + L.EX_PAUSED] = 1.0 if paused else 0.0
    if paused:
        return False
    na = int(p[L.P_NACT])
    nq = int(p[L.P_NQ])
    oa = int(p[L.P_OA])
    n = int(x[xe + L.EX_PKT])
    slot = n % L.EX_DMAX
    src = (n - int(p[o + L.EX_DUP])) % L.EX_DMAX
    for a in range(na):
        r = oa + L.AW * a
        w = xe + ex_up(na, slot, a)
        x_new[w] = x[int(p[r + L.A_QADR])]
        x_new[w + 1] = x[nq + int(p[r + L.A_DOF])]
    for a in range(na):
        r = xe + ex_up(na, src, a)
        h = xe + L.EX_RX + L.EX_RXW * a
        x_new[h + L.EX_Q] = x_new[r]
        x_new[h + L.EX_V] = x_new[r + 1]
    return True


@hs.njit_helper
def exchange_down(p, x_new, force):
    """The force side of a controller tick of the split exchange (after :func:`exchange_up` and the
    sensors): ``force`` (nact,), the actuators' forces at the new held joint states and the current
    actuator states, goes into ring-down slot n % EX_DMAX; the body takes the one sent ``delay_down``
    ticks earlier (slot (n - delay_down) % EX_DMAX) as its held f_rx; packet count n + 1."""
    o = int(p[L.P_OEX])
    xe = int(p[L.P_XEX])
    na = force.shape[0]
    n = int(x_new[xe + L.EX_PKT])
    slot = n % L.EX_DMAX
    src = (n - int(p[o + L.EX_DDOWN])) % L.EX_DMAX
    for a in range(na):
        x_new[xe + ex_down(na, slot, a)] = force[a]
    for a in range(na):
        x_new[xe + L.EX_RX + L.EX_RXW * a + L.EX_F] = x_new[xe + ex_down(na, src, a)]
    x_new[xe + L.EX_PKT] = n + 1


@hs.njit_helper
def actuator_forces(p, t, x, d, fext, tau, force, cur, adot, scr, rates):
    """Generalised force of every actuator on its joint, ``force`` (nact,), summed per joint into
    ``tau`` (nv,) (zeroed first), or, for an actuator on a rod, applied as a pair of point forces to
    the world wrenches ``fext`` (after world kinematics ``d``); ``cur`` (nact,) the DC motors'
    armature currents and the PMSM drives' i_q [A] (0 for other types), ``adot`` (nas,) the rates of
    the actuator states (DC motor current with inductance, PMSM drive states, the cylinders' gas
    states, the air supplies' pressures); ``scr`` scratch (NSCR,). Equations:
    :mod:`legsim.assembly.components`. The chamber rates of the cylinders with a lane (``A_LANE`` >= 0)
    are evaluated together by the SIMD lane kernel after the loop, the others' one by one by the
    scalar kernel (``_chamber_kernels.cylinder_rates``); both are the same equations, equal to 1e-12.
    Under a split exchange (``P_XEX`` >= 0) every actuator on a joint sees the held packet
    (:func:`joint_state`) and ``force`` is what its model gives there; :func:`forces` then applies the
    held forces instead (:func:`exchange_held_forces`). ``rates`` False: the forces alone, the cylinders'
    chamber rates not evaluated (``adot``'s cylinder entries left as they were; what outputs, sensors and
    the exchange's packet need; the CRR leg's outputs hook: 3.0 → 2.6 µs, before the workspace was
    inlined)."""
    na = int(p[L.P_NACT])
    oa = int(p[L.P_OA])
    xu = int(p[L.P_XU])
    xa = int(p[L.P_XA])
    xe = int(p[L.P_XEX])
    for k in range(tau.shape[0]):
        tau[k] = 0.0
    supply_leaks(p, x, adot)
    lane_of, block_lanes, nfb, lanes, lin, lout = lane_blocks(p)
    for a in range(na):
        o = oa + L.AW * a
        typ = int(p[o + L.A_TYPE])
        dof = int(p[o + L.A_DOF])
        gear = p[o + L.A_GEAR]
        u = x[xu + a]
        if p[o + L.A_TABLE] >= 0.0:
            u = table_command(p, t, int(p[o + L.A_TABLE]))
        rod = int(p[o + L.A_ROD])
        if rod >= 0:  # a linear actuator between two bodies: its length and rate
            rod_state(d.oR, d.op, d.ov, p, rod, scr)
            q = scr[0]
            qd = scr[1]
        else:
            q, qd = joint_state(p, x, o, a, xe)
        pp = o + L.A_P0
        cur[a] = 0.0
        if typ == L.ACT_TORQUE:
            f = gear * _clip(u, p[pp], p[pp + 1])
        elif typ == L.ACT_POSITION:
            f = _clip(p[pp] * (u - q) - p[pp + 1] * qd, -p[pp + 2], p[pp + 2])
        elif typ == L.ACT_VELOCITY:
            f = _clip(p[pp] * (u - qd), -p[pp + 1], p[pp + 1])
        elif typ == L.ACT_PNEUMATIC:
            s = int(p[o + L.A_STATE])
            xp, xd, arm, row, fp = cylinder_force(p, o, x, q, qd, scr)
            lane = int(p[o + L.A_LANE])
            if not rates:  # the force alone (outputs, sensors, a split exchange's packet)
                pass
            elif lane >= 0:  # its rates come from the lane kernel, below
                LK.set_lane_inputs(lin, lane, u, xp, xd, x[s], x[s + 1], x[s + 2], x[s + 3])
            else:
                r0, r1, r2, r3, r4 = cylinder_rates(row, u, xp, xd, x[s], x[s + 1], x[s + 2], x[s + 3])
                k = int(p[o + L.A_SUPPLY])
                if k >= 0:  # the draw lowers the supply's pressure (isothermal tank, RATS (5.12))
                    ro = int(p[L.P_OR]) + L.RW * k
                    rt_v = p[ro + L.R_GAS_R] * p[ro + L.R_TEMP] / p[ro + L.R_VOLUME]
                    adot[int(p[ro + L.R_STATE]) - xa] -= r4 * rt_v
                adot[s - xa] = r0
                adot[s - xa + 1] = r1
                adot[s - xa + 2] = r2
                adot[s - xa + 3] = r3
                adot[s - xa + 4] = r4
            f = fp * arm
        elif typ == L.ACT_SOLENOID:
            f = solenoid_force(p, o, x, q, qd, adot, xa)
        elif typ == L.ACT_PMSM:
            f, cur[a], i_d, phi = pmsm_drive(p, o, x, u, q, qd, adot, xa)
            ae = drive_electrical(p)
            ae[a, 0] = phi
            ae[a, 1] = i_d
        else:  # DC motor through a gear: R, L, kt, kb, i_max, v_max, torque command?, efficiency
            res, ind, kt, kb = p[pp], p[pp + 1], p[pp + 2], p[pp + 3]
            imax, vmax, eta = p[pp + 4], p[pp + 5], p[pp + 7]
            emf = kb * gear * qd
            if p[pp + 6] != 0.0:  # torque command within the voltage- and current-limited band
                ihi = _clip((vmax - emf) / res, -imax, imax)
                ilo = _clip((-vmax - emf) / res, -imax, imax)
                i = _clip(u / (eta * gear * kt), ilo, ihi)
                ieff = i
            else:
                volt = _clip(u, -vmax, vmax)
                if ind > 0.0:
                    s = int(p[o + L.A_STATE])
                    i = x[s]
                    adot[s - xa] = (volt - res * i - emf) / ind
                else:
                    i = (volt - emf) / res
                ieff = _clip(i, -imax, imax)
            cur[a] = i
            f = eta * gear * kt * ieff
            k = int(p[o + L.A_SUPPLY])
            if k >= 0:
                adot[int(p[int(p[L.P_OB]) + L.BW * k]) - xa] += abs(i)
        force[a] = f
        if rod >= 0:  # F along u on B, against it on A (scr still holds the rod's state)
            ro = int(p[L.P_ORD]) + L.RDW * rod
            fx, fy, fz = f * scr[2], f * scr[3], f * scr[4]
            add_point_force(fext, int(p[ro + L.RD_B]), scr[11], scr[12], scr[13], fx, fy, fz)
            add_point_force(fext, int(p[ro + L.RD_A]), scr[5], scr[6], scr[7], -fx, -fy, -fz)
        else:
            tau[dof] += f
    if rates and block_lanes.shape[0] > 0:  # the lane cylinders' chamber rates together, Daepp (4.1.1),
        # (4.1.10)
        LK.pad_inputs(lin, lane_of, block_lanes)
        LK.lane_rates(lanes, block_lanes, nfb, lin, lout)
        for a in range(na):
            o = oa + L.AW * a
            lane = int(p[o + L.A_LANE])
            if lane >= 0:
                s = int(p[o + L.A_STATE]) - xa
                adot[s], adot[s + 1], adot[s + 2], adot[s + 3], adot[s + 4] = LK.rates_of_lane(lout, lane)
    battery_drain(p, adot)


@nb.njit(cache=True, nogil=True, inline="always")
def forces(t, x, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, rates):
    """The stages before the accelerations at state ``x``: world kinematics, contact forces, actuator
    forces (and, ``rates`` True, the actuator states' rates; under a split exchange the joints get the
    held forces).
    This function, :func:`dynamics` and :func:`contact_point` are inlined into the hooks (numba IR):
    the model and the data are named tuples of ~40 arrays each, which a call passes by value
    (measured: ~0.5 us a call level on the CRR quadruped, 15 % of its
    vector field)."""
    nq = int(p[L.P_NQ])
    world_kinematics(m, d, x[:nq], x[nq:nq + int(p[L.P_NV])])
    contact_forces(d, p, x, mode, fext, fn, fc, sdot, scr)
    actuator_forces(p, t, x, d, fext, d.tau, force, cur, adot, scr, rates)
    if p[L.P_XEX] >= 0.0:  # a split exchange: the body feels the held forces
        exchange_held_forces(p, x, d.tau, force)


@nb.njit(cache=True, nogil=True, inline="always")
def dynamics(t, x, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, rates):
    """Every stage at state ``x``: :func:`forces`, then the joint accelerations ``d.ddq``
    (world-coordinate ABA with the joints' passive forces; with closed loops, ``x`` closed by
    :func:`closed`, the tree's equations projected onto the independent dofs,
    :func:`legsim.multibody._explicit.explicit_dynamics`, with G and Ġẏ from :func:`close_loops`); False
    when the articulated inertia (or Gᵀ M G) is singular."""
    forces(t, x, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, rates)
    nq = int(p[L.P_NQ])
    if p[L.P_NLP] != 0.0:  # closed loops: the tree's dynamics projected onto the independent dofs
        src, g, conv, r, fb, A, y = loop_workspace(p)
        return explicit_dynamics(m, d, x[:nq], x[nq:nq + int(p[L.P_NV])], d.tau, fext, src, g, conv, r, fb,
                                 A, y, d.ddq)
    return forward_dynamics_world(m, d, x[:nq], x[nq:nq + int(p[L.P_NV])], d.tau, fext, d.ddq)


@hs.njit_helper
def body_accelerations(m, d, ddq, acc):
    """World spatial accelerations ``acc`` (nb, 6) [linear about the world origin, angular] of every
    body, after :func:`dynamics`: ``a_i = a_parent + S_i ddq_i + v_i x (v_i - v_parent)``
    (Featherstone (7.31) in world coordinates, where ``dS_i/dt = v_i x S_i`` for axes fixed in body i)."""
    ov = d.ov
    for k in range(6):
        acc[0, k] = 0.0
    for i in range(1, m.body_parent.shape[0]):
        par = m.body_parent[i]
        jl0, jl1, jl2 = ov[i, 0] - ov[par, 0], ov[i, 1] - ov[par, 1], ov[i, 2] - ov[par, 2]
        jw0, jw1, jw2 = ov[i, 3] - ov[par, 3], ov[i, 4] - ov[par, 4], ov[i, 5] - ov[par, 5]
        vl0, vl1, vl2, w0, w1, w2 = ov[i, 0], ov[i, 1], ov[i, 2], ov[i, 3], ov[i, 4], ov[i, 5]
        a0 = acc[par, 0] + (w1 * jl2 - w2 * jl1) + (vl1 * jw2 - vl2 * jw1)
        a1 = acc[par, 1] + (w2 * jl0 - w0 * jl2) + (vl2 * jw0 - vl0 * jw2)
        a2 = acc[par, 2] + (w0 * jl1 - w1 * jl0) + (vl0 * jw1 - vl1 * jw0)
        a3 = acc[par, 3] + (w1 * jw2 - w2 * jw1)
        a4 = acc[par, 4] + (w2 * jw0 - w0 * jw2)
        a5 = acc[par, 5] + (w0 * jw1 - w1 * jw0)
        da = m.jnt_dofadr[i]
        for j in range(m.jnt_nv[i]):
            s = d.oS[da + j]
            qa = ddq[da + j]
            a0 += s[0] * qa
            a1 += s[1] * qa
            a2 += s[2] * qa
            a3 += s[3] * qa
            a4 += s[4] * qa
            a5 += s[5] * qa
        acc[i, 0], acc[i, 1], acc[i, 2], acc[i, 3], acc[i, 4], acc[i, 5] = a0, a1, a2, a3, a4, a5


# ------------------------------------------------------------------------------------ sensors
_M32 = np.uint64(0xFFFFFFFF)
_H1 = np.uint64(0x7FEB352D)
_H2 = np.uint64(0x846CA68B)
_S15 = np.uint64(15)
_S16 = np.uint64(16)


@hs.njit_helper
def _hash32(z):
    """A 32-bit integer hash (Wellons' "lowbias32": xor-shift-multiply, products < 2**64)."""
    z = z & _M32
    z = z ^ (z >> _S16)
    z = (z * _H1) & _M32
    z = z ^ (z >> _S15)
    z = (z * _H2) & _M32
    return z ^ (z >> _S16)


@hs.njit_helper
def gaussian(seed, sensor, channel, k):
    """A standard normal draw that depends only on (seed, sensor, channel, sample k): Box–Muller on
    two 32-bit hashes of the four, so a run's noise does not depend on its integrator steps."""
    h = _hash32(np.uint64(seed) ^ _hash32(np.uint64(sensor) ^ _hash32(np.uint64(channel)
                                                                       ^ _hash32(np.uint64(k)))))
    u1 = (float(_hash32(h ^ np.uint64(0x9E3779B9))) + 0.5) / 4294967296.0
    u2 = (float(_hash32(h ^ np.uint64(0x85EBCA6B))) + 0.5) / 4294967296.0
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@nb.njit(cache=True, nogil=True, inline="always")
def sensor_truth(p, x, o, c, oR, op, ov, gravity, acc, fc, cur):
    """True value of channel c of the sensor row at ``p[o]`` (after :func:`dynamics`, and
    :func:`body_accelerations` for an accelerometer): joint position/velocity, specific force
    ``a - g`` of a body point or the body's angular velocity in sensor axes, contact force of a
    geometry (world axes), motor current, a PMSM drive's phase currents, or (a force/torque sensor
    row, one channel) a component of the contact wrench on its geometries about its mounting point
    in sensor axes. ``oR``, ``op``, ``ov``: the data's world placements and velocities, ``gravity``
    the model's (3,) [m/s^2]. Inlined into the hooks (numba IR), as :func:`measure`: called once per
    channel, a call cost ~0.25 us with the model and data as arguments (numba passes every array of
    a structure by value) and ~75 ns with these arrays."""
    typ = int(p[o + L.S_TYPE])
    src = int(p[o + L.S_SRC])
    if typ == L.SEN_JPOS:
        return x[src]
    if typ == L.SEN_JVEL:
        return x[int(p[L.P_NQ]) + src]
    if typ == L.SEN_CURRENT:
        return cur[src]
    if typ == L.SEN_PHASE:  # (4.3) from i_d, i_q at the drive's electrical angle
        ae = drive_electrical(p)
        ia, ib, ic = inverse_park(ae[src, 1], cur[src], ae[src, 0])
        return ia if c == 0 else (ib if c == 1 else ic)
    if typ == L.SEN_PRESSURE:
        return x[src + c]
    if typ == L.SEN_INCREMENTAL or typ == L.SEN_SWITCH:  # a joint's position or a rod's length
        s = rod_length(oR, op, p, src) if p[o + L.S_ROD] != 0.0 else x[src]
        if typ == L.SEN_SWITCH:
            return 1.0 if (s - p[o + L.S_TRIP]) * p[o + L.S_SIDE] >= 0.0 else 0.0
        return p[o + L.S_COUNTS] * s  # k s: :func:`edge_count` makes it a count from the zero
    rows = int(p[L.P_OC]) + L.C_LAW + LW.NPRM
    if typ == L.SEN_FORCE:
        total = 0.0
        for k in range(int(p[L.P_NC])):
            if int(p[rows + L.CW * k + L.CP_GEOM]) == src:
                total += fc[k, c]
        return total
    R = oR[src]
    if typ == L.SEN_GYRO:
        w0, w1, w2 = ov[src, 3], ov[src, 4], ov[src, 5]
    elif typ == L.SEN_WRENCH:  # the contacts' wrench on the sensor's geometries about its point
        wc = contact_wrenches(p)
        ng = int(p[o + L.S_NG])
        f0 = f1 = f2 = m0 = m1 = m2 = 0.0
        for k in range(int(p[L.P_NC])):
            g = int(p[rows + L.CW * k + L.CP_GEOM])
            for j in range(ng):
                if int(p[o + L.S_GEOM + j]) == g:
                    f0 += wc[k, 0]
                    f1 += wc[k, 1]
                    f2 += wc[k, 2]
                    m0 += wc[k, 3]
                    m1 += wc[k, 4]
                    m2 += wc[k, 5]
                    break
        comp = int(p[o + L.S_COMP])
        c = comp % 3
        if comp < 3:
            w0, w1, w2 = f0, f1, f2
        else:  # about the sensor point s: M_s = M_o - s x F
            px, py, pz = p[o + L.S_POS], p[o + L.S_POS + 1], p[o + L.S_POS + 2]
            x0 = op[src, 0] + R[0, 0] * px + R[0, 1] * py + R[0, 2] * pz
            x1 = op[src, 1] + R[1, 0] * px + R[1, 1] * py + R[1, 2] * pz
            x2 = op[src, 2] + R[2, 0] * px + R[2, 1] * py + R[2, 2] * pz
            w0 = m0 - (x1 * f2 - x2 * f1)
            w1 = m1 - (x2 * f0 - x0 * f2)
            w2 = m2 - (x0 * f1 - x1 * f0)
    else:  # accelerometer: classical acceleration of the point minus gravity
        px, py, pz = p[o + L.S_POS], p[o + L.S_POS + 1], p[o + L.S_POS + 2]
        x0 = op[src, 0] + R[0, 0] * px + R[0, 1] * py + R[0, 2] * pz
        x1 = op[src, 1] + R[1, 0] * px + R[1, 1] * py + R[1, 2] * pz
        x2 = op[src, 2] + R[2, 0] * px + R[2, 1] * py + R[2, 2] * pz
        v = ov[src]
        a = acc[src]
        u0 = v[0] + v[4] * x2 - v[5] * x1  # point velocity
        u1 = v[1] + v[5] * x0 - v[3] * x2
        u2 = v[2] + v[3] * x1 - v[4] * x0
        g = gravity
        w0 = a[0] + a[4] * x2 - a[5] * x1 + v[4] * u2 - v[5] * u1 - g[0]
        w1 = a[1] + a[5] * x0 - a[3] * x2 + v[5] * u0 - v[3] * u2 - g[1]
        w2 = a[2] + a[3] * x1 - a[4] * x0 + v[3] * u1 - v[4] * u0 - g[2]
    b0 = R[0, 0] * w0 + R[1, 0] * w1 + R[2, 0] * w2  # body axes
    b1 = R[0, 1] * w0 + R[1, 1] * w1 + R[2, 1] * w2
    b2 = R[0, 2] * w0 + R[1, 2] * w1 + R[2, 2] * w2
    r = o + L.S_ROT
    return p[r + c] * b0 + p[r + 3 + c] * b1 + p[r + 6 + c] * b2  # sensor axes: R_s^T b


@nb.njit(cache=True, nogil=True, inline="always")
def zero_count_slot(p, o):
    """Index in ``x`` of the zero count of the incremental encoder row at ``p[o]`` (after its channel's
    filter and delay states)."""
    return int(p[o + L.S_XSTATE]) + L.NFSTATE + int(p[o + L.S_DELAY])


@nb.njit(cache=True, nogil=True, inline="always")
def edge_count(p, o, truth, x):
    """Counts an incremental encoder row reads from its truth k s: the edges below k s, floor(k s), minus
    its zero count (the edges below its initial position, set by ``Robot.initial_state``)."""
    return math.floor(truth) - x[zero_count_slot(p, o)]


@nb.njit(cache=True, nogil=True, inline="always")
def measure(p, o, c, ks, truth, x, x_new):
    """Sample ``ks`` of channel c of the sensor row at ``p[o]``: scale error, offset, noise,
    saturation, quantisation, first-order Butterworth low-pass, delay (``components.Measurement``);
    writes the held value into the sensordata and the filter and delay states into ``x_new``."""
    lo = p[o + L.S_LO]
    hi = p[o + L.S_HI]
    y = (1.0 + p[o + L.S_SCALE]) * truth + p[o + L.S_OFFSET]
    std = p[o + L.S_STD]
    if std > 0.0:
        y += std * gaussian(int(p[o + L.S_SEED]), int(p[o + L.S_ID]), c, ks)
    y = _clip(y, lo, hi)
    bits = int(p[o + L.S_BITS])
    if bits > 0:
        levels = 2.0 ** bits
        lsb = (hi - lo) / levels
        y = lo + _clip(math.floor((y - lo) / lsb + 0.5), 0.0, levels - 1.0) * lsb
    delay = int(p[o + L.S_DELAY])
    xs = int(p[o + L.S_XSTATE]) + c * (L.NFSTATE + delay)
    b0 = p[o + L.S_B0]
    if ks == 0:  # start in steady state at the first value
        for j in range(L.NFSTATE + delay):
            x_new[xs + j] = y
    elif b0 > 0.0:  # y_k = b0 (u_k + u_{k-1}) - a1 y_{k-1}
        yf = b0 * (y + x[xs]) - p[o + L.S_A1] * x[xs + 1]
        x_new[xs] = y
        x_new[xs + 1] = yf
        y = yf
    if delay > 0 and ks > 0:
        slot = xs + L.NFSTATE + ks % delay
        out = x[slot]
        x_new[slot] = y
        y = out
    x_new[int(p[L.P_XY]) + int(p[o + L.S_CH0]) + c] = y
