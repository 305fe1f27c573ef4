"""Compiled hooks of :mod:`legsim.world.event_contact` (private): sphere contacts on a plane whose
onset and separation are events of the hybrid engine.

Parameter vector: the layout of :mod:`legsim.multibody.hybrid_model` (sizes, joint PD gains,
multibody buffers), then the contact block at offset ``oc`` = 5 + 5 na + len(fbuf) + len(ibuf)::

    [nc, n_x, n_y, n_z, d, normal law code, friction law code, law row (NPRM),
     nc x (body, o_x, o_y, o_z, radius), K, dt_table, table (K x na), nu, ncp, cp (ncp)]

for the ground half-space {x : n . x <= d} and spheres of radius r centred at body point o
(body axes). State: ``x = [q (nq), v (nv), v_imp (nc)]``, then with the anchor-spring friction
(2.21) ``s (nc x 3)``, then with a controller ``u (nu = na)``. ``v_imp`` is the approach speed
latched at each contact's onset (Konyev
(2.20)); it changes only at events. ``s`` is the anchor displacement (contact point minus anchor,
tangent plane, m): zero at the located onset, then integrated with ``contact._laws.anchor_rate``. ``u`` are
the joint torques of the user's controller, held between its samples (written by the model's
``sample`` hook, added to the PD torques here; ``cp`` its parameters). Mode:
bit k set while contact k touches. Guards 2k (falling, active while k is open) and 2k + 1
(rising, active while k touches) are both the gap g_k = n . c_k − d − r_k of the sphere centre
c_k. With K > 0 rows, the joint PD targets q_ref(t) are the table sampled every ``dt_table`` s
from t = 0, linearly interpolated and held beyond its ends (as
:meth:`legsim.world.RobotWorld.set_targets`), instead of the constant ``q_ref_<joint>`` parameters.
"""

from __future__ import annotations

import math

from ..contact import _laws as LW
from ..hybrid import signatures as hs
from ..multibody import _configuration as C
from ..multibody._aba_world import add_point_force, forward_dynamics_world, world_kinematics
from ..multibody._workspace import joint_torques, model_workspace, pd_torques
from ._terrain import sphere_contact_force, sphere_on_plane

NCON = 5          # per-contact block: body, o (3), radius
HEAD = 7 + LW.NPRM
NSCR = 15         # hook scratch: contact kinematics (9), v_t (3), F_t (3)


@hs.njit_helper
def contact_offset(p):
    """Offset of the contact block in ``p``."""
    na = int(p[2])
    return 5 + 5 * na + int(p[3]) + int(p[4])


@hs.njit_helper
def state_offsets(p, nq, nv, nc):
    """``(os, ou, nu)``: where the anchor displacements and the controller torques start in the
    state, and the number of controller torques (0 without a controller)."""
    oc = contact_offset(p)
    os_ = nq + nv + nc
    ou = os_ + (3 * nc if int(p[oc + 6]) == LW.F_ANCHOR else 0)
    return os_, ou, int(p[controller_offset(p)])


@hs.njit_helper
def controller_offset(p):
    """Offset of ``[nu, ncp, cp (ncp)]`` (after the target table) in ``p``."""
    oc = contact_offset(p)
    na = int(p[2])
    ot = oc + HEAD + NCON * int(p[oc])
    return ot + 2 + int(p[ot]) * na


@hs.njit_helper
def contact_workspace(p):
    """``(m, d, nq, nv, na, nc, fext, fn, gr, sdot, scr)``: the multibody model viewed from ``p``, its
    data workspace and every scratch array of the hooks — external wrenches ``fext`` (nb, 6), normal
    forces ``fn`` (nc,), gaps and approach rates ``gr`` (nc, 2), anchor rates ``sdot`` (nc, 3),
    ``scr`` (NSCR,) — from one allocation (:func:`legsim.multibody.hybrid_model.model_workspace`)."""
    nq = int(p[0])
    nv = int(p[1])
    na = int(p[2])
    of = 5 + 5 * na
    nf = int(p[3])
    ni = int(p[4])
    nb = int(p[of + nf])
    nc = int(p[of + nf + ni])
    m, d, e = model_workspace(p, of, nf, ni, 6 * nb + 6 * nc + NSCR)
    o = 6 * nb
    return (m, d, nq, nv, na, nc, e[:o].reshape((nb, 6)), e[o:o + nc],
            e[o + nc:o + 3 * nc].reshape((nc, 2)), e[o + 3 * nc:o + 6 * nc].reshape((nc, 3)),
            e[o + 6 * nc:])


@hs.njit_helper
def sphere_contact(m, d, p, oc, k, out):
    """:func:`sphere_on_plane` of contact k of the contact block (contact point midway)."""
    o = oc + HEAD + NCON * k
    sphere_on_plane(d, int(p[o]), p[o + 1], p[o + 2], p[o + 3], p[o + 4], p[oc + 1], p[oc + 2],
                    p[oc + 3], p[oc + 4], True, out)


@hs.njit_helper
def contact_wrenches(m, d, p, x, mode, nq, nv, fext, fn, sdot, scr):
    """World kinematics of (q, v), then the force of every touching contact (normal law with
    its latched v_imp, friction law with its anchor displacement) as world wrenches about the
    world origin in ``fext`` (nb, 6); ``fn`` (nc,) receives the normal forces [N] (0 when open),
    ``sdot`` (nc, 3) the anchor rates (``contact._laws.anchor_rate``; 0 when open; unused by stateless
    laws); ``scr`` (NSCR,) scratch."""
    world_kinematics(m, d, x[:nq], x[nq:nq + nv])
    oc = contact_offset(p)
    nc = int(p[oc])
    ncode = int(p[oc + 5])
    fcode = int(p[oc + 6])
    prm = p[oc + 7:oc + 7 + LW.NPRM]
    nx, ny, nz = p[oc + 1], p[oc + 2], p[oc + 3]
    kin = scr[0:9]
    vt = scr[9:12]
    ft = scr[12:15]
    os_ = nq + nv + nc
    for b in range(fext.shape[0]):
        for i in range(6):
            fext[b, i] = 0.0
    for k in range(nc):
        fn[k] = 0.0
        for i in range(3):
            sdot[k, i] = 0.0
        if not (mode >> k) & 1:
            continue
        sphere_contact(m, d, p, oc, k, kin)
        anchor = x[os_ + 3 * k:os_ + 3 * k + 3] if fcode == LW.F_ANCHOR else sdot[k]
        fn[k] = sphere_contact_force(ncode, fcode, prm, nx, ny, nz, kin, x[nq + nv + k], anchor, sdot[k],
                                     vt, ft)
        add_point_force(fext, int(p[oc + HEAD + NCON * k]), kin[2], kin[3], kin[4], ft[0], ft[1], ft[2])


@hs.njit_helper
def table_torques(m, p, x, t, nq, nv, na, tau):
    """PD torque (nv,) toward the tabled targets q_ref(t) (module docstring); returns False when
    the model has no table (then the constant-target law of ``hybrid_model`` applies)."""
    oc = contact_offset(p)
    ot = oc + HEAD + NCON * int(p[oc])
    rows = int(p[ot])
    if rows == 0:
        return False
    s = t / p[ot + 1]
    i0 = 0
    fr = 0.0
    if rows > 1 and s >= rows - 1:
        i0 = rows - 2
        fr = 1.0
    elif rows > 1 and s > 0.0:
        i0 = int(s)
        fr = s - i0
    i1 = i0 + 1 if rows > 1 else i0
    pd_torques(m, p, x, nq, nv, na, tau, ot + 2, i0, i1, fr)
    return True


@hs.njit_helper
def evaluate_contacts(p, x, mode):
    """``(m, d, nq, nv, na, nc, fext, fn, sdot)`` after :func:`contact_wrenches` at state ``x``."""
    m, d, nq, nv, na, nc, fext, fn, gr, sdot, scr = contact_workspace(p)
    contact_wrenches(m, d, p, x, mode, nq, nv, fext, fn, sdot, scr)
    return m, d, nq, nv, na, nc, fext, fn, sdot


@hs.vector_field
def contact_field(t, x, p, mode, xdot):
    """``xdot = [qdot, ABA(q, v, tau_PD + tau_passive, contact wrenches), 0 (v_imp), ds/dt]``."""
    m, d, nq, nv, na, nc, fext, fn, sdot = evaluate_contacts(p, x, mode)
    q = x[:nq]
    v = x[nq:nq + nv]
    C.qdot(m, q, v, xdot[:nq])
    tau = d.tau
    if not table_torques(m, p, x, t, nq, nv, na, tau):
        joint_torques(m, p, x, nq, nv, na, tau)
    os_, ou, nu = state_offsets(p, nq, nv, nc)
    if nu > 0:  # the controller's held torques, on the 1-DoF joints in joint order
        j = 0
        for k in range(nv):
            if m.dof_qposadr[k] >= 0:
                tau[k] += x[ou + j]
                j += 1
    ok = forward_dynamics_world(m, d, q, v, tau, fext, d.ddq)  # kinematics reused
    for k in range(nv):
        xdot[nq + k] = d.ddq[k] if ok else math.nan
    for k in range(nq + nv, x.shape[0]):  # v_imp, controller torques: change only at events
        xdot[k] = 0.0
    for k in range(nc if ou > os_ else 0):  # anchor displacements
        for i in range(3):
            xdot[os_ + 3 * k + i] = sdot[k, i]


@hs.njit_helper
def gaps_and_rates(p, x):
    """``(gr, nq, nv)``: gr (nc, 2) the gap [m] and approach rate [m/s] of every contact at x."""
    m, d, nq, nv, na, nc, fext, fn, gr, sdot, scr = contact_workspace(p)
    world_kinematics(m, d, x[:nq], x[nq:nq + nv])
    oc = contact_offset(p)
    kin = scr[0:9]
    for k in range(nc):
        sphere_contact(m, d, p, oc, k, kin)
        gr[k, 0] = kin[0]
        gr[k, 1] = kin[1]
    return gr, nq, nv


@hs.guards
def contact_guards(t, x, p, mode, g):
    """g[2k] = gap_k while k is open (onset, falling), g[2k+1] = gap_k while it touches
    (separation, rising); NaN otherwise."""
    gr, nq, nv = gaps_and_rates(p, x)
    for k in range(gr.shape[0]):
        on = (mode >> k) & 1
        g[2 * k] = hs.INACTIVE if on else gr[k, 0]
        g[2 * k + 1] = gr[k, 0] if on else hs.INACTIVE


@hs.reset
def contact_reset(t, x, p, mode, fired, x_new):
    """Onset: set the bit, latch v_imp = max(pdot, 0) and put the friction anchor at the contact
    point (s = 0) at the located instant; separation: clear the bit and the anchor."""
    gr, nq, nv = gaps_and_rates(p, x)
    new = mode
    nc = gr.shape[0]
    os_, ou, nu = state_offsets(p, nq, nv, nc)
    anchors = ou > os_
    for k in range(nc):
        if anchors and (fired[2 * k] or fired[2 * k + 1]):
            for i in range(3):
                x_new[nq + nv + nc + 3 * k + i] = 0.0
        if fired[2 * k]:
            x_new[nq + nv + k] = gr[k, 1] if gr[k, 1] > 0.0 else 0.0
            new |= 1 << k
        elif fired[2 * k + 1]:
            new &= ~(1 << k)
    return new


@hs.outputs
def contact_outputs(t, x, p, mode, y):
    """``y = [normal force of each contact (nc) N, their sum N, number touching]``."""
    m, d, nq, nv, na, nc, fext, fn, sdot = evaluate_contacts(p, x, mode)
    total = 0.0
    touching = 0
    for k in range(nc):
        y[k] = fn[k]
        total += fn[k]
        touching += (mode >> k) & 1
    y[nc] = total
    y[nc + 1] = touching
