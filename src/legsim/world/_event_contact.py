"""Compiled hooks of :mod:`legsim.world.event_contact` (private): sphere contacts on a plane whose
onset and separation are events of the hybrid engine.

Parameter vector: the layout of :mod:`legsim.multibody.hybrid_model` (sizes, joint PD gains,
multibody buffers), then the contact block at offset ``oc`` = 5 + 5 na + len(fbuf) + len(ibuf)::

    [nc, n_x, n_y, n_z, d, normal law code, friction law code, law row (NPRM),
     nc x (body, o_x, o_y, o_z, radius), K, dt_table, table (K x na)]

for the ground half-space {x : n . x <= d} and spheres of radius r centred at body point o
(body axes). State: ``x = [q (nq), v (nv), v_imp (nc)]``; ``v_imp`` is the approach speed latched
at each contact's onset (Konyev (2.20)); it changes only at events. Mode: bit k set while contact
k touches. Guards 2k (falling, active while k is open) and 2k + 1 (rising, active while k
touches) are both the gap g_k = n . c_k − d − r_k of the sphere centre c_k. With K > 0 rows, the
joint PD targets q_ref(t) are the table sampled every ``dt_table`` s from t = 0, linearly
interpolated and held beyond its ends (as :meth:`legsim.world.RobotWorld.set_targets`), instead of
the constant ``q_ref_<joint>`` parameters.
"""

from __future__ import annotations

import math

import numpy as np

from ..contact import _laws as LW
from ..hybrid import signatures as hs
from ..multibody import _configuration as C
from ..multibody import _kernels as K
from ..multibody.hybrid_model import _joint_torques, _workspace, pd_torques
from ._kernels import placements_and_twists

NCON = 5          # per-contact block: body, o (3), radius
HEAD = 7 + LW.NPRM


@hs.njit_helper
def contact_offset(p):
    """Offset of the contact block in ``p``."""
    na = int(p[2])
    return 5 + 5 * na + int(p[3]) + int(p[4])


@hs.njit_helper
def sphere_contact(m, d, p, oc, k, out):
    """Kinematics of contact k after ``placements_and_twists``: writes ``out`` = [gap (m),
    approach rate pdot = −dgap/dt (m/s), contact point (3) m, velocity (3) m/s of the body point
    there], world axes. The contact point is midway between the sphere's lowest point and the
    plane, c − (r + gap/2) n."""
    b = int(p[oc + HEAD + NCON * k])
    o = oc + HEAD + NCON * k + 1
    r = p[o + 3]
    nx, ny, nz = p[oc + 1], p[oc + 2], p[oc + 3]
    R = d.oR[b]
    op = d.op[b]
    vb = d.v[b]
    cx = op[0] + R[0, 0] * p[o] + R[0, 1] * p[o + 1] + R[0, 2] * p[o + 2]
    cy = op[1] + R[1, 0] * p[o] + R[1, 1] * p[o + 1] + R[1, 2] * p[o + 2]
    cz = op[2] + R[2, 0] * p[o] + R[2, 1] * p[o + 1] + R[2, 2] * p[o + 2]
    gap = nx * cx + ny * cy + nz * cz - p[oc + 4] - r
    h = r + 0.5 * gap                    # contact point midway between the sphere's lowest point
    px = cx - h * nx                     # and the plane (as RobotWorld and MuJoCo place it)
    py = cy - h * ny
    pz = cz - h * nz
    wx = R[0, 0] * vb[3] + R[0, 1] * vb[4] + R[0, 2] * vb[5]
    wy = R[1, 0] * vb[3] + R[1, 1] * vb[4] + R[1, 2] * vb[5]
    wz = R[2, 0] * vb[3] + R[2, 1] * vb[4] + R[2, 2] * vb[5]
    rx = px - op[0]
    ry = py - op[1]
    rz = pz - op[2]
    out[6] = R[0, 0] * vb[0] + R[0, 1] * vb[1] + R[0, 2] * vb[2] + wy * rz - wz * ry
    out[7] = R[1, 0] * vb[0] + R[1, 1] * vb[1] + R[1, 2] * vb[2] + wz * rx - wx * rz
    out[8] = R[2, 0] * vb[0] + R[2, 1] * vb[1] + R[2, 2] * vb[2] + wx * ry - wy * rx
    # n . v_point = n . v_centre (omega x (-h n) is normal to n), so pdot = -dgap/dt exactly
    out[0] = gap
    out[1] = -(nx * out[6] + ny * out[7] + nz * out[8])
    out[2] = px
    out[3] = py
    out[4] = pz


@hs.njit_helper
def contact_wrenches(m, d, p, x, mode, nq, nv, fext, fn):
    """Placements and twists of (q, v), then the force of every touching contact (normal law with
    its latched v_imp, stateless friction law) as body-axes wrenches about the body origins in
    ``fext`` (nb, 6); ``fn`` (nc,) receives the normal forces [N] (0 when open)."""
    placements_and_twists(m, d, x[:nq], x[nq:nq + nv])
    oc = contact_offset(p)
    nc = int(p[oc])
    ncode = int(p[oc + 5])
    fcode = int(p[oc + 6])
    prm = p[oc + 7:oc + 7 + LW.NPRM]
    nx, ny, nz = p[oc + 1], p[oc + 2], p[oc + 3]
    kin = np.empty(9)
    vt = np.empty(3)
    ft = np.empty(3)
    zero = np.zeros(3)
    for b in range(fext.shape[0]):
        for i in range(6):
            fext[b, i] = 0.0
    for k in range(nc):
        fn[k] = 0.0
        if not (mode >> k) & 1:
            continue
        sphere_contact(m, d, p, oc, k, kin)
        f_n = LW.normal_force(ncode, prm, -kin[0], kin[1], x[nq + nv + k])
        vn = nx * kin[6] + ny * kin[7] + nz * kin[8]
        vt[0] = kin[6] - vn * nx
        vt[1] = kin[7] - vn * ny
        vt[2] = kin[8] - vn * nz
        LW.friction_force(fcode, prm, f_n, vt, zero, ft)
        fn[k] = f_n
        b = int(p[oc + HEAD + NCON * k])
        f0 = f_n * nx + ft[0]
        f1 = f_n * ny + ft[1]
        f2 = f_n * nz + ft[2]
        r0 = kin[2] - d.op[b, 0]
        r1 = kin[3] - d.op[b, 1]
        r2 = kin[4] - d.op[b, 2]
        n0 = r1 * f2 - r2 * f1
        n1 = r2 * f0 - r0 * f2
        n2 = r0 * f1 - r1 * f0
        R = d.oR[b]
        for i in range(3):
            fext[b, i] += R[0, i] * f0 + R[1, i] * f1 + R[2, i] * f2
            fext[b, 3 + i] += R[0, i] * n0 + R[1, i] * n1 + R[2, i] * n2


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
    """``(m, d, nq, nv, na, nc, fext, fn)`` after :func:`contact_wrenches` at state ``x``."""
    m, d, nq, nv, na = _workspace(p)
    nc = int(p[contact_offset(p)])
    fext = np.empty((m.body_parent.shape[0], 6))
    fn = np.empty(nc)
    contact_wrenches(m, d, p, x, mode, nq, nv, fext, fn)
    return m, d, nq, nv, na, nc, fext, fn


@hs.vector_field
def contact_field(t, x, p, mode, xdot):
    """``xdot = [qdot, ABA(q, v, tau_PD + tau_passive, contact wrenches), 0 (v_imp)]``."""
    m, d, nq, nv, na, nc, fext, fn = evaluate_contacts(p, x, mode)
    q = x[:nq]
    v = x[nq:nq + nv]
    C.qdot(m, q, v, xdot[:nq])
    tau = d.tau
    if not table_torques(m, p, x, t, nq, nv, na, tau):
        _joint_torques(m, p, x, nq, nv, na, tau)
    ok = K.forward_dynamics(m, d, q, v, tau, fext, d.ddq, True)  # placements/twists reused
    for k in range(nv):
        xdot[nq + k] = d.ddq[k] if ok else math.nan
    for k in range(nc):
        xdot[nq + nv + k] = 0.0


@hs.njit_helper
def gaps_and_rates(p, x, out):
    """(nc, 2) gap [m] and approach rate [m/s] of every contact at state x (for the start mode)."""
    m, d, nq, nv, na = _workspace(p)
    placements_and_twists(m, d, x[:nq], x[nq:nq + nv])
    oc = contact_offset(p)
    kin = np.empty(9)
    for k in range(int(p[oc])):
        sphere_contact(m, d, p, oc, k, kin)
        out[k, 0] = kin[0]
        out[k, 1] = kin[1]


@hs.guards
def contact_guards(t, x, p, mode, g):
    """g[2k] = gap_k while k is open (onset, falling), g[2k+1] = gap_k while it touches
    (separation, rising); NaN otherwise."""
    gr = np.empty((int(p[contact_offset(p)]), 2))
    gaps_and_rates(p, x, gr)
    for k in range(gr.shape[0]):
        on = (mode >> k) & 1
        g[2 * k] = hs.INACTIVE if on else gr[k, 0]
        g[2 * k + 1] = gr[k, 0] if on else hs.INACTIVE


@hs.reset
def contact_reset(t, x, p, mode, fired, x_new):
    """Onset: set the bit and latch v_imp = max(pdot, 0) at the located instant; separation:
    clear the bit."""
    m, d, nq, nv, na = _workspace(p)
    placements_and_twists(m, d, x[:nq], x[nq:nq + nv])
    oc = contact_offset(p)
    kin = np.empty(9)
    new = mode
    for k in range(int(p[oc])):
        if fired[2 * k]:
            sphere_contact(m, d, p, oc, k, kin)
            x_new[nq + nv + k] = kin[1] if kin[1] > 0.0 else 0.0
            new |= 1 << k
        elif fired[2 * k + 1]:
            new &= ~(1 << k)
    return new


@hs.outputs
def contact_outputs(t, x, p, mode, y):
    """``y = [normal force of each contact (nc) N, their sum N, number touching]``."""
    m, d, nq, nv, na, nc, fext, fn = evaluate_contacts(p, x, mode)
    total = 0.0
    touching = 0
    for k in range(nc):
        y[k] = fn[k]
        total += fn[k]
        touching += (mode >> k) & 1
    y[nc] = total
    y[nc + 1] = touching
