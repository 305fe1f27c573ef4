"""The six engine hooks every assembled robot uses (compiled once, shared by all robots).

Layouts: :mod:`._layout`; stages: :mod:`._kernels`. Event path: bit k of the mode is set while
contact point k touches; guards 2k (gap falling, while open) and 2k + 1 (gap rising, while
touching) (:func:`legsim.world.event_contact_model` is this path). Smooth path: one mode, no
contact guards. Then one guard per solenoid valve: its pending switch instant (command time +
latency) is an event.

The hooks borrow their arrays (:mod:`legsim._borrow`): every view of ``p`` they make (the model, the
data workspace, the scratch) then costs no reference counting. They are compiled with numba's
reference counting all the same, not ``allocates=False``: numba reuses a callee's machine code
across callers, and a helper such as ``model_from_buffers`` compiled for a caller without
reference counting returns unreferenced arrays to every other caller in the process (measured:
heap corruption in a loop that views the model after these hooks had compiled).
"""

from __future__ import annotations

import math

from .._borrow import borrow_all
from ..hybrid import signatures as hs
from ..multibody import _configuration as C
from . import _kernels as K
from . import _layout as L


@hs.njit_helper
def n_contact_guards(p):
    """2 per contact point on the event path, none on the smooth path."""
    return 0 if p[L.P_SMOOTH] != 0.0 else 2 * int(p[L.P_NC])


@hs.guards
def robot_guards(t, x, p, mode, g):
    """g[2k] = gap_k while point k is open (onset, falling), g[2k+1] = gap_k while it touches
    (separation, rising), NaN otherwise (event path only); then per solenoid valve with a switch
    pending, its switch time minus t (falling), NaN otherwise."""
    x, p, g = borrow_all((x, p, g))
    ngc = n_contact_guards(p)
    if ngc > 0:
        m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.moved_workspace(p, K.closed(x, p))
        oR, op, ov = d.oR, d.op, d.ov
        for k in range(fn.shape[0]):
            gap = K.contact_gap(oR, op, ov, p, k, scr)
            on = (mode >> k) & 1
            g[2 * k] = hs.INACTIVE if on else gap
            g[2 * k + 1] = gap if on else hs.INACTIVE
    j = ngc
    oa = int(p[L.P_OA])
    for a in range(int(p[L.P_NACT])):
        o = oa + L.AW * a
        if int(p[o + L.A_TYPE]) == L.ACT_SOLENOID:
            ts = x[int(p[o + L.A_STATE]) + 3]
            g[j] = ts - t if ts < L.NEVER else hs.INACTIVE
            j += 1


@hs.reset
def robot_reset(t, x, p, mode, fired, x_new):
    """Contact onset: set the bit, latch v_imp = max(approach rate, 0), put the friction anchor at
    the contact point (s = 0); separation: clear the bit and the anchor. A solenoid's switch: the
    valve takes its held command (1 open, 0 closed); closing with the "instant" exhaust vents the
    chamber to atmospheric."""
    x, p, fired, x_new = borrow_all((x, p, fired, x_new))
    new = mode
    ngc = n_contact_guards(p)
    if ngc > 0:
        m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.moved_workspace(p, K.closed(x, p))
        xc = int(p[L.P_XC])
        xs = int(p[L.P_XS])
        for k in range(fn.shape[0]):
            if not (fired[2 * k] or fired[2 * k + 1]):
                continue
            if xs >= 0:
                for i in range(3):
                    x_new[xs + 3 * k + i] = 0.0
            if fired[2 * k]:
                K.contact_point(d.oR, d.op, d.ov, p, k, scr)
                x_new[xc + k] = scr[1] if scr[1] > 0.0 else 0.0
                new |= 1 << k
            else:
                new &= ~(1 << k)
    j = ngc
    oa = int(p[L.P_OA])
    xu = int(p[L.P_XU])
    for a in range(int(p[L.P_NACT])):
        o = oa + L.AW * a
        if int(p[o + L.A_TYPE]) != L.ACT_SOLENOID:
            continue
        if fired[j]:
            s = int(p[o + L.A_STATE])
            opened = x[xu + a] > 0.5
            x_new[s + 2] = 1.0 if opened else 0.0
            x_new[s + 3] = L.NEVER
            if not opened and int(p[int(p[o + L.SO_BLOCK]) + L.SB_EXHAUST]) == L.EXH_INSTANT:
                x_new[s] = p[int(p[L.P_OR]) + L.RW * int(p[o + L.A_SUPPLY]) + L.R_P_ATM]
        j += 1
    return new


# robot_field is compiled after the guards and the reset hook (their definition order): its compile
# then reaches the joint accelerations late enough for a second process to have them cached
# (._prewarm, DESIGN.md "Compile time").
@hs.vector_field
def robot_field(t, x, p, mode, xdot):
    """``xdot = [qdot, ddq, 0 (v_imp), anchor rates, actuator state rates, 0 (commands, sensors, the
    exchange's states)]``; while a split exchange is paused, 0 for every state before the actuators'. With
    closed loops every stage reads the closed state (:func:`._kernels.closed`): a dependent coordinate's
    rate is G θ̇, its acceleration G θ̈ + Ġθ̇, so the recorded dependents follow γ(θ) to integration
    accuracy."""
    x, p, xdot = borrow_all((x, p, xdot))
    xc = K.closed(x, p)
    m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.workspace(p)
    ok = K.dynamics(t, xc, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, True)
    nq = int(p[L.P_NQ])
    nv = int(p[L.P_NV])
    C.qdot(m, xc[:nq], xc[nq:nq + nv], xdot[:nq])
    for k in range(nv):
        xdot[nq + k] = d.ddq[k] if ok else math.nan
    for k in range(nq + nv, x.shape[0]):
        xdot[k] = 0.0
    xs = int(p[L.P_XS])
    if xs >= 0:
        for k in range(fn.shape[0]):
            for i in range(3):
                xdot[xs + 3 * k + i] = sdot[k, i]
    xa = int(p[L.P_XA])
    for i in range(adot.shape[0]):
        xdot[xa + i] = adot[i]
    if K.exchange_paused(p, x):  # the split exchange stalls: the rigid body (q, v, anchors) is frozen
        for k in range(xa):
            xdot[k] = 0.0


@hs.outputs
def robot_outputs(t, x, p, mode, y):
    """``y = [true value of every sensor channel (nch), actuator forces (nact) N m or N,
    actuator currents (nact) A, normal force of every contact point (nc) N, their sum N, the points
    touching (event path: the mode's bits; smooth path: the points pressing, F_n > 0), then per
    pneumatic cylinder its piston position [m] and per cylinder its piston force [N]]``."""
    x, p, y = borrow_all((x, p, y))
    x = K.closed(x, p)
    m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.workspace(p)
    if int(p[L.P_SENSE]) == L.SENSE_DYNAMICS:  # an accelerometer may need the accelerations
        K.dynamics(t, x, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, False)
        K.body_accelerations(m, d, d.ddq, acc)
    else:
        K.forces(t, x, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, False)
    nch = int(p[L.P_NCH])
    os_ = int(p[L.P_OS])
    for r in range(int(p[L.P_NROW])):
        o = os_ + L.SW * r
        c0 = int(p[o + L.S_CH0])
        for c in range(int(p[o + L.S_NCH])):
            y[c0 + c] = K.sensor_truth(p, x, o, c, d.oR, d.op, d.ov, m.gravity, acc, fc, cur)
            if int(p[o + L.S_TYPE]) == L.SEN_INCREMENTAL:  # counts since the zero, unquantised
                y[c0 + c] -= x[K.zero_count_slot(p, o)]
    na = cur.shape[0]
    for a in range(na):
        y[nch + a] = force[a]
        y[nch + na + a] = cur[a]
    total = 0.0
    touching = 0
    smooth = p[L.P_SMOOTH] != 0.0
    nc = fn.shape[0]
    for k in range(nc):
        y[nch + 2 * na + k] = fn[k]
        total += fn[k]
        if (fn[k] > 0.0) if smooth else ((mode >> k) & 1) == 1:
            touching += 1
    y[nch + 2 * na + nc] = total
    y[nch + 2 * na + nc + 1] = touching
    oy = nch + 2 * na + nc + 2
    ncyl = (y.shape[0] - oy) // 2
    oa = int(p[L.P_OA])
    xe = int(p[L.P_XEX])
    j = 0
    for a in range(na):
        o = oa + L.AW * a
        if int(p[o + L.A_TYPE]) == L.ACT_PNEUMATIC:
            q, qd = K.joint_state(p, x, o, a, xe)  # (under a split exchange, the held packet)
            xp, xd, arm, row, fp = K.cylinder_force(p, o, x, q, qd, scr)
            y[oy + j] = xp
            y[oy + ncyl + j] = fp
            j += 1


@hs.sample
def robot_sample(t, x, p, mode, k, x_new):
    """Sample instant k of the sample clock: every sensor whose period (in ticks) divides k measures
    (:func:`._kernels.measure`) and holds its value in the sensordata. The stages run only as far as
    the sensors due at this instant need them (their rows' ``S_SENSE``: kinematics, contact forces, the
    whole dynamics), not at all when none is due (RATS: a 16 Hz accelerometer on a 2 kHz clock). With a split
    exchange (``P_OEX`` >= 0), at a controller tick (every ``P_CEVERY``): the pause check and the packet
    up (:func:`._kernels.exchange_up`) first, so the sensors read the new held joint states; then,
    unless paused, the forces at those states go down (:func:`._kernels.exchange_down`), before any
    controller's new commands."""
    x, p, x_new = borrow_all((x, p, x_new))
    nrow = int(p[L.P_NROW])
    ex = p[L.P_OEX] >= 0.0
    if nrow == 0 and not ex:
        return mode
    x = K.closed(x, p)  # x_new keeps the integrated dependents; only the sensors' states are written
    send = False
    xs = x
    if ex:  # the stages and sensors see the new held packet (x_new is x but for the exchange's states)
        xs = x_new
        if k % int(p[L.P_CEVERY]) == 0:
            send = K.exchange_up(t, x, p, x_new)
    os_ = int(p[L.P_OS])
    sense = -1  # the stages the rows due at this tick need (S_SENSE), -1: no row due
    for r in range(nrow):
        o = os_ + L.SW * r
        if k % int(p[o + L.S_TICKS]) == 0 and p[o + L.S_SENSE] > sense:
            sense = int(p[o + L.S_SENSE])
    if sense < 0 and not send:
        return mode
    m, d, fext, fn, fc, sdot, acc, force, cur, adot, scr = K.workspace(p)
    if sense == L.SENSE_DYNAMICS:
        K.dynamics(t, xs, p, mode, m, d, fext, fn, fc, sdot, force, cur, adot, scr, False)
        K.body_accelerations(m, d, d.ddq, acc)
    elif sense >= L.SENSE_KINEMATICS:
        nq = int(p[L.P_NQ])
        K.world_kinematics(m, d, xs[:nq], xs[nq:nq + int(p[L.P_NV])])
        if sense == L.SENSE_CONTACT:
            K.contact_forces(d, p, xs, mode, fext, fn, fc, sdot, scr)
    for r in range(nrow):
        o = os_ + L.SW * r
        ticks = int(p[o + L.S_TICKS])
        if k % ticks != 0:
            continue
        for c in range(int(p[o + L.S_NCH])):
            truth = K.sensor_truth(p, xs, o, c, d.oR, d.op, d.ov, m.gravity, acc, fc, cur)
            if int(p[o + L.S_TYPE]) == L.SEN_INCREMENTAL:
                truth = K.edge_count(p, o, truth, x)
            K.measure(p, o, c, k // ticks, truth, x, x_new)
    if send:  # the actuators' forces at the held packet, without the held forces applied
        K.actuator_forces(p, t, x_new, d, fext, d.tau, force, cur, adot, scr, False)
        K.exchange_down(p, x_new, force)
    return mode


@hs.check
def robot_check(t, x, p, mode):
    """Every held command finite and within its actuator's range, else ``ERR_CMD + 2 a + r``; first,
    ``ERR_STALE`` when ``p`` was packed by newer sources than these hooks were compiled from."""
    if p[L.P_STAMP] != L.STAMP:
        return L.ERR_STALE
    xu = int(p[L.P_XU])
    oa = int(p[L.P_OA])
    for a in range(int(p[L.P_NACT])):
        u = x[xu + a]
        if not math.isfinite(u):
            return L.ERR_CMD + 2 * a
        o = oa + L.AW * a
        if u < p[o + L.A_ULO] or u > p[o + L.A_UHI]:
            return L.ERR_CMD + 2 * a + 1
        if int(p[o + L.A_TYPE]) == L.ACT_SOLENOID and u != 0.0 and u != 1.0:
            return L.ERR_CMD + 2 * a + 1
    return 0
