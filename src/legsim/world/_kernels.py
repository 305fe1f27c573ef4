"""Compiled fixed-step loop of an articulated robot touching terrain (numba, no allocation per step).

One evaluation of the dynamics (:func:`evaluate`) at ``(q, v, t)``::

    placements, world twists and motion subspaces     multibody._aba_world.world_kinematics
                                                      (Featherstone (5.1)-(5.2), world coordinates)
    -> geom world poses -> contacts                   legsim.contact._collide.world_poses / collide
                                                      (primitives on planes: _terrain.plane_contacts)
    -> contact point velocities (body 2 minus body 1) v_x = v_O + w x x (spatial velocity about the
                                                      world origin), world axes
    -> contact forces with the per-pair laws          legsim.contact._response.contact_forces
    -> world wrenches fext = (f, x x f) (J^T f through ABA)
    -> joint PD  tau = kp (q_ref(t) - q) - kd v
    -> passive joint forces + ABA -> ddq              multibody._aba_world.forward_dynamics_world
                                                      (ABA in world coordinates: no transform
                                                      between a body and its parent)

Per-contact state (impact-velocity latch of Konyev (2.20), friction anchor of (2.21)) is kept in a
``ContactState`` keyed by (geom 1, geom 2, feature) and **committed once per step**, so a
persisting contact keeps its latch and anchor exactly from step to step:
- semi-implicit Euler: ``_response.contact_forces`` at the step's single evaluation (anchor
  ``s += v_t h`` then the force, as ``legsim.contact.RigidWorld`` does);
- RK4: the anchor is integrated as a state by the RK4 rule itself. The first stage (t_n) commits
  ``s_n = s_{n-1} + h/6 (v1 + 2 v2 + 2 v3 + v4)`` of the previous step (slid back when the force
  saturates) and uses it; stage k uses ``s_n + c_k h v_{k-1}`` (:func:`rk4_commit_forces`,
  :func:`rk4_stage_forces`). A new contact starts with the anchor ``v_t tau``, ``tau`` the time
  since its onset estimated from depth / approach rate; one first seen at stage 2-4 is latched
  (``v_impact = max(pdot, 0)``) at the next step's first stage.

Order of accuracy: RK4 is fourth order for stateless laws and for a sticking anchor (tested). The
slide of the anchor when (2.21) saturates is applied at step boundaries only, so every stick/slip
switch (and every liftoff, where F_n -> 0 forces saturation) costs an O(h) anchor error: on the
walking hexapod the anchor-spring runs converge at first order, the regularised Coulomb runs at
about fourth order (benchmarks/bench_hexapod_contact.py --work-precision). Locating those
switches exactly is the hybrid engine's job (events), not this fixed-step loop's.

``run`` and ``evaluate`` borrow their array arguments
(:mod:`legsim._borrow`): passing the model, data, contact and world tuples to the per-stage calls
then costs no atomic reference counting (it was about a sixth of a semi-implicit Euler step).

Integrators (fixed step h):
- semi-implicit (symplectic) Euler: ``v+ = v + h ddq(q, v)``, ``q+ = q (+) h v+`` (SE(3) exponential
  for a free base, :func:`legsim.multibody._configuration.integrate`);
- classical RK4 on ``(q, v)`` in coordinates: ``dq/dt = qdot(q, v)`` (quaternion kinematics), quaternions
  renormalised after the step.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._borrow import borrow_all
from .._fastmath import FASTMATH
from ..contact import _laws as L
from ..contact._collide import collide, world_poses
from ..contact._response import _claim, _commit, _lookup, contact_forces
from ..multibody import _configuration as C
from ..multibody._aba_world import add_point_force, forward_dynamics_world, world_kinematics
from ..multibody._layout import JOINT_FREE
from ._terrain import plane_contacts

ERR_OK = 0
ERR_OVERFLOW = 1
ERR_NONFINITE = 2
ERR_VELOCITY = 3
ERR_PENETRATION = 4
ERR_SINGULAR = 5

EULER = 0
RK4 = 1


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _tangent(c, k, vrel, nrm, vt):
    """Unit normal of contact k into ``nrm``, tangential slip into ``vt``; returns pdot = -vrel . n."""
    for j in range(3):
        nrm[j] = c.normal[k, j]
    vn = vrel[k, 0] * nrm[0] + vrel[k, 1] * nrm[1] + vrel[k, 2] * nrm[2]
    for j in range(3):
        vt[j] = vrel[k, j] - vn * nrm[j]
    return -vn


@njit(cache=True, fastmath=FASTMATH, inline="always")
def _since_onset(depth, pdot, dt_max):
    """Time since a new contact began [s], from its depth and approach rate (linear estimate
    ``depth / pdot``, at most ``dt_max``): the anchor of a contact first seen mid-step starts at
    ``v_t`` times this, so the touchdown instant is located to O(h^2) instead of O(h)."""
    if pdot <= 0.0:
        return 0.0
    tau = depth / pdot
    return tau if tau < dt_max else dt_max


@njit(cache=True, fastmath=FASTMATH)
def rk4_commit_forces(c, ncode, fcode, prm, s, vrel, t, h, adelta, ads, force):
    """First RK4 stage at t_n: advance and commit the per-contact state, then the forces [N].

    For each contact found at t_n: a contact already known (same key) gets the anchor
    ``s_n = s_{n-1} + adelta`` (the RK4-weighted increment ``h/6 (v1 + 2 v2 + 2 v3 + v4)`` of its
    slip over the last step, accumulated by :func:`rk4_stage_forces`), projected on the tangent
    plane and slid back to ``K_I s = -F`` when the (2.21) force saturates (as
    ``_laws.anchor_update`` does); it keeps its latched v_impact (2.20) and onset time. A new
    contact latches ``v_impact = max(pdot, 0)`` and starts with the anchor ``v_t tau`` and onset
    time ``t - tau``, ``tau`` = :func:`_since_onset` (at most h). The state is then
    committed (``_response._commit``) and ``adelta`` restarts with ``h/6 v1``; ``ads`` (cap, 3)
    keeps the last stage slip velocity of each slot.
    """
    n = min(c.n[0], c.depth.shape[0])
    vt = s.scratch[0]
    nrm = s.scratch[1]
    for k in range(n):
        pdot = _tangent(c, k, vrel, nrm, vt)
        i = _claim(s, c, k)
        anchor = s.anchor2[k]
        if i >= 0:
            vimp = s.vimp[i]
            for j in range(3):
                anchor[j] = s.anchor[i, j] + adelta[i, j]
            s.ton2[k] = s.ton[i]
        else:
            vimp = pdot if pdot > 0.0 else 0.0
            tau = _since_onset(c.depth[k], pdot, h)
            for j in range(3):
                anchor[j] = tau * vt[j]
            s.ton2[k] = t - tau
        sn = anchor[0] * nrm[0] + anchor[1] * nrm[1] + anchor[2] * nrm[2]
        for j in range(3):
            anchor[j] -= sn * nrm[j]
        s.vimp2[k] = vimp
        law = c.law[k]
        fn = L.normal_force(ncode[law], prm[law], c.depth[k], pdot, vimp)
        s.fn[k] = fn
        ft = force[k]
        sat = L.friction_force(fcode[law], prm[law], fn, vt, anchor, ft)
        s.slip[k] = sat
        if sat and fcode[law] == L.F_ANCHOR:
            ki = prm[law, L.S_KI]
            for j in range(3):
                anchor[j] = -ft[j] / ki
        for j in range(3):
            ft[j] += fn * nrm[j]
    _commit(s, n)
    for k in range(n):  # slot k now holds contact k
        for j in range(3):
            vtj = vrel[k, j] - (vrel[k, 0] * c.normal[k, 0] + vrel[k, 1] * c.normal[k, 1]
                                + vrel[k, 2] * c.normal[k, 2]) * c.normal[k, j]
            ads[k, j] = vtj
            adelta[k, j] = h / 6.0 * vtj
    return n


@njit(cache=True, fastmath=FASTMATH)
def rk4_stage_forces(c, ncode, fcode, prm, s, vrel, dt_stage, wgt, adelta, ads, force):
    """Contact forces (ncontact, 3) [N] at an RK4 stage 2-4, reading the committed state.

    Same laws and sign conventions as ``legsim.contact._response.contact_forces`` (normal from
    geom 1 to geom 2, ``pdot = -vrel . n``, ``v_t = vrel - (vrel . n) n``). A known contact uses
    its latched v_impact (2.20) and the stage anchor ``s_n + dt_stage * v_prev`` (``v_prev`` = its
    slip at the previous stage, RK4 stage rule), then adds ``wgt * v_stage`` to ``adelta``; a
    contact not known at t_n uses ``v_impact = max(pdot, 0)`` and the anchor ``v_t tau``,
    ``tau`` = :func:`_since_onset` (at most ``dt_stage``).
    """
    n = min(c.n[0], c.depth.shape[0])
    vt = s.scratch[0]
    nrm = s.scratch[1]
    for k in range(n):
        pdot = _tangent(c, k, vrel, nrm, vt)
        i = _lookup(s, c.geom[k, 0], c.geom[k, 1], c.feature[k])
        ft = force[k]
        law = c.law[k]
        anchor = s.anchor2[k]  # scratch: anchor2 is only read by _commit
        if i >= 0:
            vimp = s.vimp[i]
            for j in range(3):
                anchor[j] = s.anchor[i, j] + dt_stage * ads[i, j]
                ads[i, j] = vt[j]
                adelta[i, j] += wgt * vt[j]
        else:
            vimp = pdot if pdot > 0.0 else 0.0
            tau = _since_onset(c.depth[k], pdot, dt_stage)
            for j in range(3):
                anchor[j] = tau * vt[j]
        fn = L.normal_force(ncode[law], prm[law], c.depth[k], pdot, vimp)
        L.friction_force(fcode[law], prm[law], fn, vt, anchor, ft)
        for j in range(3):
            ft[j] += fn * nrm[j]
    return n


@njit(cache=True, fastmath=FASTMATH)
def _target(w, t, na):
    """Joint targets q_ref(t) (na,) into ``w.qref``: linear interpolation in the table
    ``w.tab`` (K, na) sampled every ``w.prm[0]`` s from t = 0, held constant beyond its ends."""
    tab = w.tab
    nk = tab.shape[0]
    dtab = w.prm[0]
    if nk == 1 or dtab <= 0.0:
        for j in range(na):
            w.qref[j] = tab[0, j]
        return
    x = t / dtab
    if x <= 0.0:
        i0 = 0
        fr = 0.0
    elif x >= nk - 1:
        i0 = nk - 2
        fr = 1.0
    else:
        i0 = int(x)
        fr = x - i0
    for j in range(na):
        w.qref[j] = (1.0 - fr) * tab[i0, j] + fr * tab[i0 + 1, j]


@njit(cache=True, fastmath=FASTMATH)
def evaluate(m, d, cm, c, wk, s, w, q, v, t, h, mode, cst, wgt, ddq):
    """Generalised acceleration ``ddq`` (nv,) at ``(q, v, t)`` (module docstring pipeline).

    ``mode`` 0: semi-implicit Euler step ``h``: ``_response.contact_forces`` integrates the anchor
    and commits; 2: RK4 first stage (:func:`rk4_commit_forces`); 1: RK4 stage at ``t_n + cst h``
    with RK4 weight ``wgt`` (:func:`rk4_stage_forces`). Modes 0 and 2 write ``w.fbody`` (nbody, 3)
    total world contact force per body [N] and ``w.info`` = (deepest depth [m], its contact index,
    ncontact). Returns an ``ERR_*`` code.
    """
    m, d, cm, c, wk, s, w = borrow_all((m, d, cm, c, wk, s, w))
    nb = m.body_parent.shape[0]
    world_kinematics(m, d, q, v)
    if w.fast[0] == 1:  # rotations only where a candidate needs them (_terrain.plane_contacts)
        world_poses(cm, w.lpos, w.lrot, d.op, d.oR, w.gpos, w.grot, np.bool_(False))
        nc = plane_contacts(cm.gtype, cm.gsize, cm.gbody, cm.gmat, cm.grbound, cm.pair_law, w.pnorm,
                            w.poff, w.planes, w.bgeoms, w.gpos, w.grot, c, d.oR, w.lrot)
    else:
        world_poses(cm, w.lpos, w.lrot, d.op, d.oR, w.gpos, w.grot, np.bool_(True))
        nc = collide(cm, w.gpos, w.grot, c, wk)
    if nc > c.depth.shape[0]:
        w.info[2] = nc
        return ERR_OVERFLOW
    # contact point velocities, body 2 minus body 1: v_O + w x x (world spatial velocities)
    ov = d.ov
    for k in range(nc):
        for i in range(3):
            w.vrel[k, i] = 0.0
        x0 = c.pos[k, 0]
        x1 = c.pos[k, 1]
        x2 = c.pos[k, 2]
        for side in range(2):
            b = c.body[k, side]
            if b <= 0:
                continue
            sg = 1.0 if side == 1 else -1.0
            w.vrel[k, 0] += sg * (ov[b, 0] + ov[b, 4] * x2 - ov[b, 5] * x1)
            w.vrel[k, 1] += sg * (ov[b, 1] + ov[b, 5] * x0 - ov[b, 3] * x2)
            w.vrel[k, 2] += sg * (ov[b, 2] + ov[b, 3] * x1 - ov[b, 4] * x0)
    if mode == 0:
        contact_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, t, h, w.force)
    elif mode == 2:
        rk4_commit_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, t, h, w.adelta, w.ads, w.force)
    else:
        rk4_stage_forces(c, w.ncode, w.fcode, w.lprm, s, w.vrel, cst * h, wgt * h / 6.0, w.adelta, w.ads,
                         w.force)
    fext = w.fext
    for b in range(nb):
        for i in range(6):
            fext[b, i] = 0.0
    if mode != 1:
        for b in range(nb):
            for i in range(3):
                w.fbody[b, i] = 0.0
        deep = 0.0
        kdeep = -1
        for k in range(nc):
            if c.depth[k] > deep:
                deep = c.depth[k]
                kdeep = k
        w.info[0] = deep
        w.info[1] = kdeep
        w.info[2] = nc
    # world wrench about the world origin of the force f at the world point x: (f, x x f)
    for k in range(nc):
        x0 = c.pos[k, 0]
        x1 = c.pos[k, 1]
        x2 = c.pos[k, 2]
        for side in range(2):
            b = c.body[k, side]
            if b <= 0:
                continue
            sg = 1.0 if side == 1 else -1.0
            f0 = sg * w.force[k, 0]
            f1 = sg * w.force[k, 1]
            f2 = sg * w.force[k, 2]
            add_point_force(fext, b, x0, x1, x2, f0, f1, f2)
            if mode != 1:
                w.fbody[b, 0] += f0
                w.fbody[b, 1] += f1
                w.fbody[b, 2] += f2
    # joint PD: tau = kp (q_ref - q) - kd v on the actuated 1-DoF joints
    na = w.act_dof.shape[0]
    _target(w, t, na)
    tau = w.tau
    for i in range(tau.shape[0]):
        tau[i] = 0.0
    for j in range(na):
        dof = w.act_dof[j]
        qa = m.dof_qposadr[dof]
        tau[dof] = w.kp[j] * (w.qref[j] - q[qa]) - w.kd[j] * v[dof]
    if not forward_dynamics_world(m, d, q, v, tau, fext, ddq):
        return ERR_SINGULAR
    return ERR_OK


@njit(cache=True, fastmath=FASTMATH)
def _normalise_quats(m, q):
    nb = m.body_parent.shape[0]
    for i in range(1, nb):
        if m.jnt_type[i] == JOINT_FREE:
            a = m.jnt_qposadr[i] + 3
            n = math.sqrt(q[a] ** 2 + q[a + 1] ** 2 + q[a + 2] ** 2 + q[a + 3] ** 2)
            for j in range(4):
                q[a + j] /= n


@njit(cache=True, fastmath=FASTMATH)
def _check(m, w, q, v, vmax, max_depth, err):
    """Blow-up test after a step: non-finite state, |v_i| > vmax, deepest contact > max_depth."""
    for i in range(q.shape[0]):
        if not math.isfinite(q[i]):
            err[0] = ERR_NONFINITE
            return True
    big = 0.0
    ib = -1
    for i in range(v.shape[0]):
        if not math.isfinite(v[i]):
            err[0] = ERR_NONFINITE
            err[2] = m.dof_body[i]
            return True
        if abs(v[i]) > big:
            big = abs(v[i])
            ib = i
    if big > vmax:
        err[0] = ERR_VELOCITY
        err[2] = m.dof_body[ib]
        err[3] = ib
        return True
    if w.info[0] > max_depth:
        err[0] = ERR_PENETRATION
        return True
    return False


@njit(cache=True, fastmath=FASTMATH)
def run(m, d, cm, c, wk, s, w, q, v, t0, h, nsteps, method, every, vmax, max_depth,
        rec_t, rec_q, rec_v, rec_f, rec_nc, err):
    """Advance ``nsteps`` fixed steps of ``h`` [s] from ``t0`` (``method`` EULER or RK4).

    ``q`` (nq,), ``v`` (nv,) are updated in place. Every ``every`` steps the state at the start of
    the step and the contact forces evaluated there are recorded (``rec_t`` (n,), ``rec_q``
    (n, nq), ``rec_v`` (n, nv), ``rec_f`` (n, nbody, 3) world contact force per body [N],
    ``rec_nc`` (n,)). ``err`` int64[4] = (code, step, body, dof) when the run stops early; the
    deepest contact of the failing step stays in ``c`` at index ``w.info[1]``. Returns the number
    of records written.
    """
    m, d, cm, c, wk, s, w = borrow_all((m, d, cm, c, wk, s, w))
    nq = q.shape[0]
    nv = v.shape[0]
    nb = m.body_parent.shape[0]
    q0 = w.q0
    v0 = w.v0
    qs = w.qs
    vs = w.vs
    kq = w.kq
    kv = w.kv
    acc_q = w.acc_q
    acc_v = w.acc_v
    nrec = 0
    for step in range(nsteps):
        t = t0 + step * h
        code = evaluate(m, d, cm, c, wk, s, w, q, v, t, h, 0 if method == EULER else 2, 0.0, 1.0, kv)
        if code != ERR_OK:
            err[0] = code
            err[1] = step
            return nrec
        if step % every == 0:
            rec_t[nrec] = t
            for i in range(nq):
                rec_q[nrec, i] = q[i]
            for i in range(nv):
                rec_v[nrec, i] = v[i]
            for b in range(nb):
                for i in range(3):
                    rec_f[nrec, b, i] = w.fbody[b, i]
            rec_nc[nrec] = int(w.info[2])
            nrec += 1
        if method == EULER:
            for i in range(nv):
                v[i] += h * kv[i]
            for i in range(nq):
                q0[i] = q[i]
            C.integrate(m, q0, v, h, q)
        else:
            for i in range(nq):
                q0[i] = q[i]
            for i in range(nv):
                v0[i] = v[i]
            C.qdot(m, q0, v0, kq)
            for i in range(nq):
                acc_q[i] = kq[i]
            for i in range(nv):
                acc_v[i] = kv[i]
            for st in range(3):
                cst = 0.5 if st < 2 else 1.0
                wgt = 2.0 if st < 2 else 1.0
                for i in range(nq):
                    qs[i] = q0[i] + cst * h * kq[i]
                for i in range(nv):
                    vs[i] = v0[i] + cst * h * kv[i]
                # np.int64(1), not 1: a literal argument would type (and compile) evaluate a second time
                code = evaluate(m, d, cm, c, wk, s, w, qs, vs, t + cst * h, h, np.int64(1), cst, wgt, kv)
                if code != ERR_OK:
                    err[0] = code
                    err[1] = step
                    return nrec
                C.qdot(m, qs, vs, kq)
                for i in range(nq):
                    acc_q[i] += wgt * kq[i]
                for i in range(nv):
                    acc_v[i] += wgt * kv[i]
            for i in range(nq):
                q[i] = q0[i] + h / 6.0 * acc_q[i]
            for i in range(nv):
                v[i] = v0[i] + h / 6.0 * acc_v[i]
            _normalise_quats(m, q)
        if _check(m, w, q, v, vmax, max_depth, err):
            err[1] = step
            return nrec
    return nrec
