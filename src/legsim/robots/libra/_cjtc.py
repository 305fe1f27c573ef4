"""LIBRA's CJTC controller compiled (numba): the law of :class:`legsim.robots.libra.control.LibraController`
run inside the engine's sample hook (:func:`legsim.assembly.compiled_controller`), with no return to Python.

Why a compiled twin of the Python controller: the Python cycle (generic control variables, constraint
elimination, the law, ~110 µs with the engine's return to Python) was 80 % of a climb's wall time once the
engine ran LIBRA on its Rosenbrock method, and the speed goal (a climbing cycle ≥ 50× real time) cannot be
met with it. The Python controller stays the readable reference and the one other engines (the MuJoCo twin)
call; a test feeds both the same encoder readings and asserts the same torques.

The kinematics are those of a planar tree (every joint a slider along an in-plane axis or a hinge about
z, one degree of freedom per body, bodies after their parents): body poses (x, y, angle), world points
and their Jacobians, the gravity torques ∂V/∂q of the bodies' masses. :func:`pack` reads them from the
multibody model, so the controller and the simulated robot share one geometry.

A cycle allocates a few small work arrays (it runs once per 3.3 ms control period, not per integration
step: 2.3 µs a cycle called from Python, measured).

Layouts (``params``: floats; ``memory``: the controller's states, recorded with the run)
--------------------------------------------------------------------------------------
``params``: a header (``H_*``), the bodies (``BS`` floats each: parent, kind, placement x y angle, slider
axis x y, mass, centre of mass x y), the points (frame body, x, y), the control variables (``VS``: the
point's index or −1 − body for an angle, the component 0 x / 1 y / 2 angle), the stages (``SS`` floats
each: t0, t1, lumped row, 6 variables, 6 k_p, 6 k_d, 3 constraint variables, 3 targets, 6 × (waypoint
offset, count)) and the waypoints (t, value).
``memory``: ``M_*`` below.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...assembly import compiled_controller

# ---- params header
(H_NB, H_NSTAGE, H_PERIOD, H_BLEND, H_COUNTS, H_PLAY, H_TAU_MAX, H_GRAVITY, H_LUMPED_WEIGHT, H_GX, H_GY,
 H_OFF_BODIES, H_OFF_POINTS, H_OFF_VARS, H_OFF_STAGES, H_OFF_WAYPOINTS) = range(16)
N_HEADER = 16
BS = 10  # body: parent, kind (0 slider, 1 hinge), x, y, angle, axis x, axis y, mass, com x, com y
VS = 2   # variable: point index (>= 0) or -1 - body (an angle), component
SS = 2 + 1 + 6 + 6 + 6 + 3 + 3 + 12
S_T0, S_T1, S_LUMPED, S_VARS, S_KP, S_KD, S_CON, S_TARGET, S_PATHS = 0, 1, 2, 3, 9, 15, 21, 24, 27
GRAVITY_NONE, GRAVITY_FULL, GRAVITY_LUMPED = 0, 1, 2
N_PASSIVE = 3
N_ACTIVE = 6
NQ = N_PASSIVE + N_ACTIVE

# ---- memory
M_STAGE, M_T_ENTER, M_STARTED, M_HAS_START, M_FAILED = range(5)
M_Q = 5                     # 9: the configuration solved at the last cycle (passive, then active)
M_THETA = M_Q + NQ          # 6: the last measured joint angles
M_MOTOR = M_THETA + 6       # 6: the motors' angles through the backlash (play operator)
M_TAU = M_MOTOR + 6         # 6: the last torques sent
M_START = M_TAU + 6         # 6: the bumpless start command of the current stage
M_U = M_START + 6           # 6: log: u as measured
M_U_CMD = M_U + 6           # 6: log: the command (after the blend)
M_TAU_RAW = M_U_CMD + 6     # 6: log: the torques before saturation
N_MEMORY = M_TAU_RAW + 6


@njit(cache=True)
def poses(par, q, pose):
    """Body poses ``pose`` (nb + 1, 3) = (x, y, angle) in the plane; row 0 is the world."""
    nb = int(par[H_NB])
    ob = int(par[H_OFF_BODIES])
    pose[0, 0] = 0.0
    pose[0, 1] = 0.0
    pose[0, 2] = 0.0
    for i in range(1, nb + 1):
        o = ob + (i - 1) * BS
        pa = int(par[o])
        c, s = math.cos(pose[pa, 2]), math.sin(pose[pa, 2])
        x = pose[pa, 0] + c * par[o + 2] - s * par[o + 3]
        y = pose[pa, 1] + s * par[o + 2] + c * par[o + 3]
        a = pose[pa, 2] + par[o + 4]
        if par[o + 1] > 0.5:
            a += q[i - 1]
        else:
            ca, sa = math.cos(a), math.sin(a)
            x += (ca * par[o + 5] - sa * par[o + 6]) * q[i - 1]
            y += (sa * par[o + 5] + ca * par[o + 6]) * q[i - 1]
        pose[i, 0] = x
        pose[i, 1] = y
        pose[i, 2] = a


@njit(cache=True)
def point_jacobian(par, pose, b, px, py, comp, row):
    """``row`` (nq,) = ∂/∂q of component ``comp`` (0 x, 1 y, 2 angle) of the world point (px, py) of
    body ``b`` (for an angle, of body b's angle)."""
    ob = int(par[H_OFF_BODIES])
    row[:] = 0.0
    j = b
    while j > 0:
        o = ob + (j - 1) * BS
        if par[o + 1] > 0.5:  # a hinge at body j's origin
            if comp == 0:
                row[j - 1] = -(py - pose[j, 1])
            elif comp == 1:
                row[j - 1] = px - pose[j, 0]
            else:
                row[j - 1] = 1.0
        elif comp < 2:  # a slider: its axis turned by the angle of its placement
            a = pose[int(par[o]), 2] + par[o + 4]
            ax = math.cos(a) * par[o + 5] - math.sin(a) * par[o + 6]
            ay = math.sin(a) * par[o + 5] + math.cos(a) * par[o + 6]
            row[j - 1] = ax if comp == 0 else ay
        j = int(par[o])


@njit(cache=True)
def variable(par, pose, v, row):
    """Value of control variable ``v`` and its gradient into ``row`` (nq,)."""
    o = int(par[H_OFF_VARS]) + VS * v
    ref = int(par[o])
    comp = int(par[o + 1])
    if ref < 0:
        b = -1 - ref
        point_jacobian(par, pose, b, 0.0, 0.0, np.int64(2), row)  # a literal would compile it twice
        return math.atan2(math.sin(pose[b, 2]), math.cos(pose[b, 2]))
    op = int(par[H_OFF_POINTS]) + 3 * ref
    b = int(par[op])
    c, s = math.cos(pose[b, 2]), math.sin(pose[b, 2])
    px = pose[b, 0] + c * par[op + 1] - s * par[op + 2]
    py = pose[b, 1] + s * par[op + 1] + c * par[op + 2]
    point_jacobian(par, pose, b, px, py, comp, row)
    return px if comp == 0 else py


@njit(cache=True)
def gravity_torques(par, pose, g, row):
    """∂V/∂q (nq,) into ``g``: the efforts that hold the bodies' masses against gravity."""
    nb = int(par[H_NB])
    ob = int(par[H_OFF_BODIES])
    g[:] = 0.0
    for b in range(1, nb + 1):
        o = ob + (b - 1) * BS
        m = par[o + 7]
        if m == 0.0:
            continue
        c, s = math.cos(pose[b, 2]), math.sin(pose[b, 2])
        px = pose[b, 0] + c * par[o + 8] - s * par[o + 9]
        py = pose[b, 1] + s * par[o + 8] + c * par[o + 9]
        for comp in range(2):
            point_jacobian(par, pose, b, px, py, comp, row)
            gc = par[H_GX] if comp == 0 else par[H_GY]
            for k in range(g.size):
                g[k] -= m * gc * row[k]


@njit(cache=True)
def solve_small(a, b):
    """Solve a x = b in place (b becomes x; a is destroyed): Gaussian elimination with partial pivoting
    on a small square system (b (n,) or (n, m))."""
    n = a.shape[0]
    for k in range(n):
        m = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[m, k]):
                m = i
        if m != k:
            for j in range(n):
                a[k, j], a[m, j] = a[m, j], a[k, j]
            for j in range(b.shape[1]):
                b[k, j], b[m, j] = b[m, j], b[k, j]
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, n):
                a[i, j] -= f * a[k, j]
            for j in range(b.shape[1]):
                b[i, j] -= f * b[k, j]
    for k in range(n - 1, -1, -1):
        for j in range(b.shape[1]):
            acc = b[k, j]
            for i in range(k + 1, n):
                acc -= a[k, i] * b[i, j]
            b[k, j] = acc / a[k, k]


@njit(cache=True)
def solve_chain(par, st, theta, q, pose, row):
    """Passive coordinates q[:3] with the active ones at ``theta`` and the stage's three constraints met
    (Newton from the current q: branch continuity; tolerance 1e-12, 30 steps as the Python chain).
    False when they cannot be met."""
    for k in range(N_ACTIVE):
        q[N_PASSIVE + k] = theta[k]
    cp = np.empty((N_PASSIVE, N_PASSIVE))
    r = np.empty((N_PASSIVE, 1))
    for _ in range(30):
        poses(par, q, pose)
        big = 0.0
        for i in range(N_PASSIVE):
            r[i, 0] = variable(par, pose, int(par[st + S_CON + i]), row) - par[st + S_TARGET + i]
            big = max(big, abs(r[i, 0]))
            for j in range(N_PASSIVE):
                cp[i, j] = row[j]
        if big < 1e-12:
            return True
        solve_small(cp, r)
        for i in range(N_PASSIVE):
            q[i] -= r[i, 0]
    return False


@njit(cache=True)
def measure(par, st, q, pose, u, jac, grav):
    """At the solved configuration q: u (6,), the extended Jacobian J (6, 6) = U T (eq. 11 through the
    T-matrix: T = [−C_p⁻¹ C_θ; I]) and the gravity compensation G (6,) (full Tᵀ ∂V/∂q, or lumped
    J[row] M |g|, eq. 19, or none)."""
    row = np.empty(NQ)
    poses(par, q, pose)
    cp = np.empty((N_PASSIVE, N_PASSIVE))
    tp = np.empty((N_PASSIVE, N_ACTIVE))  # becomes C_p⁻¹ C_θ
    for i in range(N_PASSIVE):
        variable(par, pose, int(par[st + S_CON + i]), row)
        for j in range(N_PASSIVE):
            cp[i, j] = row[j]
        for j in range(N_ACTIVE):
            tp[i, j] = row[N_PASSIVE + j]
    solve_small(cp, tp)
    for i in range(N_ACTIVE):
        u[i] = variable(par, pose, int(par[st + S_VARS + i]), row)
        for j in range(N_ACTIVE):
            acc = row[N_PASSIVE + j]
            for k in range(N_PASSIVE):
                acc -= row[k] * tp[k, j]
            jac[i, j] = acc
    mode = int(par[H_GRAVITY])
    if mode == GRAVITY_FULL:
        g = np.empty(NQ)
        gravity_torques(par, pose, g, row)
        for j in range(N_ACTIVE):
            acc = g[N_PASSIVE + j]
            for k in range(N_PASSIVE):
                acc -= g[k] * tp[k, j]
            grav[j] = acc
    elif mode == GRAVITY_LUMPED:
        li = int(par[st + S_LUMPED])
        for j in range(N_ACTIVE):
            grav[j] = jac[li, j] * par[H_LUMPED_WEIGHT]
    else:
        grav[:] = 0.0


@njit(cache=True)
def command(par, st, t, u_cmd, u_dot_cmd):
    """The stage's command (6,) and its rate at t: minimum-jerk quintics through each variable's
    waypoints, constant outside them (:class:`legsim.robots.libra.gait.Path`)."""
    ow = int(par[H_OFF_WAYPOINTS])
    for i in range(N_ACTIVE):
        off = ow + 2 * int(par[st + S_PATHS + 2 * i])
        n = int(par[st + S_PATHS + 2 * i + 1])
        if t <= par[off]:
            u_cmd[i] = par[off + 1]
            u_dot_cmd[i] = 0.0
        elif t >= par[off + 2 * (n - 1)]:
            u_cmd[i] = par[off + 2 * (n - 1) + 1]
            u_dot_cmd[i] = 0.0
        else:
            k = 0
            while par[off + 2 * (k + 1)] < t:
                k += 1
            t0, v0 = par[off + 2 * k], par[off + 2 * k + 1]
            dt = par[off + 2 * (k + 1)] - t0
            dv = par[off + 2 * (k + 1) + 1] - v0
            s = (t - t0) / dt
            u_cmd[i] = v0 + dv * (10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5)
            u_dot_cmd[i] = dv * (30 * s ** 2 - 60 * s ** 3 + 30 * s ** 4) / dt


@compiled_controller
def libra_cjtc(t, sensors, params, commands, memory):
    """One cycle of LIBRA's CJTC controller (:class:`legsim.robots.libra.control.LibraController`, the
    same steps in the same order): the encoders through the backlash and quantisation, rates by
    differencing, the stage at t (on a change: the new constraints and a bumpless start command), the
    passive coordinates, τ = Jᵀ[K_p(u_cmd − u) + K_d(u̇_cmd − u̇)] + G, saturated."""
    par = params
    nb = int(par[H_NB])
    pose = np.empty((nb + 1, 3))
    row = np.empty(NQ)
    theta = np.empty(N_ACTIVE)
    play = par[H_PLAY]
    for k in range(N_ACTIVE):
        th = sensors[k]
        if play > 0.0:
            m = th if memory[M_STARTED] == 0.0 else min(max(memory[M_MOTOR + k], th - play), th + play)
            memory[M_MOTOR + k] = m
            th = m
        if par[H_COUNTS] > 0.0:
            step = 2.0 * math.pi / par[H_COUNTS]
            th = np.round(th / step) * step
        theta[k] = th
    theta_dot = np.zeros(N_ACTIVE)
    if memory[M_STARTED] != 0.0:
        for k in range(N_ACTIVE):
            theta_dot[k] = (theta[k] - memory[M_THETA + k]) / par[H_PERIOD]
    for k in range(N_ACTIVE):
        memory[M_THETA + k] = theta[k]
    memory[M_STARTED] = 1.0

    nst = int(par[H_NSTAGE])
    os_ = int(par[H_OFF_STAGES])
    index = int(memory[M_STAGE])
    k = index if index >= 0 else 0
    while k + 1 < nst and t >= par[os_ + SS * (k + 1) + S_T0] - 1e-9:
        k += 1
    st = os_ + SS * k
    q = memory[M_Q:M_Q + NQ]
    u = np.empty(N_ACTIVE)
    jac = np.empty((N_ACTIVE, N_ACTIVE))
    grav = np.empty(N_ACTIVE)
    if k != index:
        if not solve_chain(par, st, theta, q, pose, row):
            memory[M_FAILED] = 1.0
            commands[:] = np.nan
            return
        memory[M_HAS_START] = 0.0
        if index >= 0:  # bumpless: the command at which this vector gives the last torques (u̇_cmd = 0)
            measure(par, st, q, pose, u, jac, grav)
            jt = np.empty((N_ACTIVE, N_ACTIVE))
            f = np.empty((N_ACTIVE, 1))
            for i in range(N_ACTIVE):
                f[i, 0] = memory[M_TAU + i] - grav[i]
                for j in range(N_ACTIVE):
                    jt[i, j] = jac[j, i]
            solve_small(jt, f)
            for i in range(N_ACTIVE):
                ud = 0.0
                for j in range(N_ACTIVE):
                    ud += jac[i, j] * theta_dot[j]
                memory[M_START + i] = u[i] + (f[i, 0] + par[st + S_KD + i] * ud) / par[st + S_KP + i]
            memory[M_HAS_START] = 1.0
        memory[M_T_ENTER] = t
        memory[M_STAGE] = k
    if not solve_chain(par, st, theta, q, pose, row):
        memory[M_FAILED] = 1.0
        commands[:] = np.nan
        return
    u_cmd = memory[M_U_CMD:M_U_CMD + N_ACTIVE]
    u_dot_cmd = np.empty(N_ACTIVE)
    command(par, st, t, u_cmd, u_dot_cmd)
    if memory[M_HAS_START] != 0.0 and t - memory[M_T_ENTER] < par[H_BLEND]:
        w = (t - memory[M_T_ENTER]) / par[H_BLEND]
        w = w * w * (3.0 - 2.0 * w)
        for i in range(N_ACTIVE):
            s0 = memory[M_START + i]
            u_cmd[i] = s0 + w * (u_cmd[i] - s0)
    measure(par, st, q, pose, u, jac, grav)
    f = np.empty(N_ACTIVE)
    for i in range(N_ACTIVE):
        ud = 0.0
        for j in range(N_ACTIVE):
            ud += jac[i, j] * theta_dot[j]
        f[i] = par[st + S_KP + i] * (u_cmd[i] - u[i]) + par[st + S_KD + i] * (u_dot_cmd[i] - ud)
        memory[M_U + i] = u[i]
    tm = par[H_TAU_MAX]
    for j in range(N_ACTIVE):
        acc = grav[j]
        for i in range(N_ACTIVE):
            acc += jac[i, j] * f[i]
        memory[M_TAU_RAW + j] = acc
        tau = min(max(acc, -tm), tm)
        memory[M_TAU + j] = tau
        commands[j] = tau


@njit(cache=True)
def variables_along(par, qs, out):
    """The values of all :data:`VARIABLES` (9,) at each configuration of ``qs`` (n, nq) into ``out``
    (n, 9): the true control variables of a recorded run."""
    pose = np.empty((int(par[H_NB]) + 1, 3))
    row = np.empty(NQ)
    for j in range(qs.shape[0]):
        poses(par, qs[j], pose)
        for v in range(out.shape[1]):
            out[j, v] = variable(par, pose, v, row)


# ------------------------------------------------------------------------------------------ packing
POINTS = ("body_centre", "foot1", "foot2", "foot3")
VARIABLES = ("x_b", "y_b", "theta_b", "x1", "y1", "x2", "y2", "x3", "y3")
"""The control variables the compiled controller knows, by name (as :func:`control.variables`)."""


def _planar_bodies(mb) -> np.ndarray:
    """(nb, BS) rows of ``mb``'s bodies as a planar tree, read from its forward kinematics at q = 0;
    InputError unless every joint is one slider along an in-plane axis or one hinge about +z, bodies
    after their parents, one dof each in body order."""
    from ...control import Kinematics
    from ...errors import InputError

    a = mb.arrays
    nb = mb.nbody - 1
    kin = Kinematics(mb).at(np.zeros(mb.nq))
    op, oR = kin.data.op, kin.data.oR
    rows = np.zeros((nb, BS))
    for i in range(1, nb + 1):
        pa = int(a.body_parent[i])
        axis = np.asarray(a.jnt_axis[i], float)
        kind = int(a.jnt_type[i])
        planar_rot = np.allclose(oR[i][2], [0.0, 0.0, 1.0], atol=1e-12)
        if not (0 <= pa < i and int(a.jnt_dofadr[i]) == i - 1 and mb.nq == mb.nv == nb and planar_rot
                and ((kind == 2 and np.allclose(axis, [0.0, 0.0, 1.0])) or (kind == 3 and axis[2] == 0.0))):
            raise InputError(f"libra compiled controller: body {mb.body_names[i]!r} of {mb.name!r} is not a "
                             "planar tree's (one slider in the plane or one hinge about +z per body)")
        rel = oR[pa].T @ (op[i] - op[pa])
        rot = oR[pa].T @ oR[i]
        rows[i - 1] = (pa, 1.0 if kind == 2 else 0.0, rel[0], rel[1], math.atan2(rot[1, 0], rot[0, 0]),
                       axis[0], axis[1], mb.body_mass[i], mb.body_com[i][0], mb.body_com[i][1])
    return rows


def pack(libra, stages, *, gravity: str = "full", lumped_mass: float | None = None, quantise: bool = True,
         backlash: bool = True, blend: float = 0.5,
         gain_kw: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(params, memory) of :func:`libra_cjtc` for ``libra`` over ``stages``, with the options of
    :class:`legsim.robots.libra.control.LibraController`."""
    from .control import _options, _plan, gains
    from .gait import VECTORS
    from .params import encoder_counts_per_output_rev

    o = "LIBRA controller"
    stages = _plan(o, libra, stages)
    gravity, lumped_mass, quantise, backlash, blend, gain_kw = _options(
        o, stages, gravity, lumped_mass, quantise, backlash, blend, gain_kw)
    mb = libra.mb
    bodies = _planar_bodies(mb)
    nb = bodies.shape[0]
    points = np.zeros((len(POINTS), 3))
    for k, name in enumerate(POINTS):
        fid = mb.frame_id(name)
        points[k] = (mb.arrays.frame_body[fid], *np.asarray(mb.arrays.frame_p[fid])[:2])
    body = mb.body_names.index("body")
    ref = {"x_b": (0, 0), "y_b": (0, 1), "theta_b": (-1 - body, 2)}
    for i in (1, 2, 3):
        ref[f"x{i}"], ref[f"y{i}"] = (i, 0), (i, 1)
    var_rows = np.array([ref[n] for n in VARIABLES], dtype=float)
    stage_rows: list[list[float]] = []
    waypoints: list[tuple[float, float]] = []
    for st in stages:
        vec = list(VECTORS[st.vector])
        kp, kd = gains(st.vector, **(gain_kw or {}))
        cons = [f"x{st.pinned[0][-1]}", f"y{st.pinned[0][-1]}", f"y{st.height[0][-1]}"]
        row = [st.t0, st.t1, vec.index("y_b"), *[VARIABLES.index(n) for n in vec], *kp, *kd,
               *[VARIABLES.index(n) for n in cons], st.pinned[1][0], st.pinned[1][1], st.height[1]]
        for n in vec:
            path = st.paths[n]
            row += [len(waypoints), path.t.size]
            waypoints += list(zip(path.t.tolist(), path.v.tolist(), strict=True))
        stage_rows.append(row)
    blocks = [bodies.ravel(), points.ravel(), var_rows.ravel(), np.array(stage_rows, float).ravel(),
              np.array(waypoints, float).ravel()]
    offsets = np.cumsum([N_HEADER] + [b.size for b in blocks[:-1]])
    gvec = np.asarray(mb.arrays.gravity, float)
    mass = float(mb.body_mass.sum() if lumped_mass is None else lumped_mass)
    header = np.zeros(N_HEADER)
    header[[H_NB, H_NSTAGE, H_PERIOD, H_BLEND, H_COUNTS, H_PLAY, H_TAU_MAX, H_GRAVITY, H_LUMPED_WEIGHT,
            H_GX, H_GY]] = (nb, len(stages), libra.robot.control_period, float(blend),
                            encoder_counts_per_output_rev() if quantise else 0,
                            0.5 * libra.params.backlash if backlash else 0.0, libra.tau_max,
                            GRAVITY_FULL if gravity == "full" else GRAVITY_LUMPED,
                            mass * float(np.linalg.norm(gvec)), gvec[0], gvec[1])
    header[H_OFF_BODIES:H_OFF_WAYPOINTS + 1] = offsets
    memory = np.zeros(N_MEMORY)
    memory[M_STAGE] = -1.0
    return np.concatenate([header, *blocks]), memory


def names(libra, params) -> tuple[tuple[str, ...], dict, tuple[str, ...]]:
    """(param_names, param_ranges, memory_names) of :func:`pack`'s ``params`` (and memory) for ``libra``,
    for :meth:`legsim.assembly.Robot.with_compiled_controller`: every value named after what it is
    (``cjtc_`` and the header field, body, point, variable, stage ``s<k>`` or waypoint), the memory after
    ``M_*``.

    The layout (counts, offsets, parent and frame bodies, joint kinds, variable, constraint and path
    indices) is fixed at its packed values: :func:`libra_cjtc` indexes ``params`` by it, so any other
    value would read past the array or mix its blocks. The numbers (gains, limits, geometry, masses,
    times, waypoints) get their units and signs; a gain k_p > 0 (the bumpless start divides by it).
    Changing the geometry or masses makes the controller's model differ from the robot's, which is a
    model-error study, not a fault."""
    from ...hybrid.params import ParamRange, choice, nonnegative, positive

    p = np.asarray(params, float)
    nb, nst = int(p[H_NB]), int(p[H_NSTAGE])
    ow = int(p[H_OFF_WAYPOINTS])
    fixed = "fixed: the compiled controller's layout"
    pn: list[str] = []
    rng: dict[str, ParamRange] = {}

    def add(name: str, r: ParamRange | None) -> None:
        pn.append(f"cjtc_{name}")
        rng[f"cjtc_{name}"] = r if r is not None else choice(p[len(pn) - 1], doc=fixed)

    for name, r in (("n_bodies", None), ("n_stages", None),
                    ("period", positive("s", "control period (the encoders' differencing)")),
                    ("blend", nonnegative("s", "bumpless blend time at a stage change")),
                    ("encoder_counts", nonnegative(doc="encoder counts per output revolution (0: exact)")),
                    ("play", nonnegative("rad", "half the gears' backlash (0: none)")),
                    ("tau_max", nonnegative("N m", "torque saturation")),
                    ("gravity", choice(GRAVITY_NONE, GRAVITY_FULL, GRAVITY_LUMPED,
                                       doc="gravity compensation: 0 none, 1 full, 2 lumped (eq. 19)")),
                    ("lumped_weight", nonnegative("N", "lumped weight M |g| (eq. 19)")),
                    ("gx", ParamRange("m/s^2", doc="gravity x")),
                    ("gy", ParamRange("m/s^2", doc="gravity y")),
                    ("off_bodies", None), ("off_points", None), ("off_variables", None), ("off_stages", None),
                    ("off_waypoints", None)):
        add(name, r)
    length = ParamRange("m")
    for b in libra.mb.body_names[1:nb + 1]:
        for name, r in (("parent", None), ("kind", None), ("x", length), ("y", length),
                        ("angle", ParamRange("rad")), ("axis_x", ParamRange()), ("axis_y", ParamRange()),
                        ("mass", nonnegative("kg")), ("com_x", length), ("com_y", length)):
            add(f"{b}_{name}", r)
    for point in POINTS:
        for name, r in (("body", None), ("x", length), ("y", length)):
            add(f"{point}_{name}", r)
    for v in VARIABLES:
        add(f"{v}_point", None)
        add(f"{v}_component", None)
    unit = {v: "rad" if v.startswith("theta") else "m" for v in VARIABLES}
    force = {"m": "N", "rad": "N m"}
    paths = []
    for k in range(nst):
        st = int(p[H_OFF_STAGES]) + SS * k
        vec = [VARIABLES[int(p[st + S_VARS + i])] for i in range(N_ACTIVE)]
        s = f"s{k}"
        add(f"{s}_t0", ParamRange("s", doc="stage start"))
        add(f"{s}_t1", ParamRange("s", doc="stage end"))
        add(f"{s}_lumped_row", None)
        for v in vec:
            add(f"{s}_var_{v}", None)
        for v in vec:
            add(f"{s}_kp_{v}", positive(f"{force[unit[v]]}/{unit[v]}", "CJTC stiffness (eq. 18)"))
        for v in vec:
            add(f"{s}_kd_{v}", nonnegative(f"{force[unit[v]]} s/{unit[v]}", "CJTC damping (eq. 18)"))
        for i in range(N_PASSIVE):
            add(f"{s}_constraint{i}", None)
        for i in range(N_PASSIVE):
            add(f"{s}_target{i}", length)
        for v in vec:
            add(f"{s}_{v}_offset", None)
            add(f"{s}_{v}_count", None)
            paths.append((f"{s}_{v}", unit[v], int(p[st + S_PATHS + 2 * vec.index(v) + 1])))
    for path, u, n in paths:  # in the order pack wrote them
        for i in range(n):
            add(f"{path}_t{i}", ParamRange("s", doc="waypoint time"))
            add(f"{path}_v{i}", ParamRange(u, doc="waypoint value"))
    if len(pn) != p.size or ow + 2 * sum(n for *_, n in paths) != p.size:
        raise AssertionError("libra _cjtc.names: the names do not cover the packed layout")
    j = libra.mb.joint_names
    active = j[N_PASSIVE:]
    mem = ["cjtc_stage", "cjtc_t_enter", "cjtc_started", "cjtc_has_start", "cjtc_failed",
           *(f"cjtc_q_{n}" for n in j), *(f"cjtc_measured_{n}" for n in active),
           *(f"cjtc_motor_{n}" for n in active), *(f"cjtc_tau_{n}" for n in active),
           *(f"cjtc_u_start{i}" for i in range(N_ACTIVE)), *(f"cjtc_u{i}" for i in range(N_ACTIVE)),
           *(f"cjtc_u_cmd{i}" for i in range(N_ACTIVE)), *(f"cjtc_tau_raw_{n}" for n in active)]
    return tuple(pn), rng, tuple(mem)


def log(result, nx: int) -> dict[str, np.ndarray]:
    """The controller's log from a run's records (taken at the control period; the memory follows the
    robot's ``nx`` states; the last record, at the final time, is after the last cycle): t (n,), stage
    (n,), u, u_cmd, tau, tau_raw (n, 6), as :meth:`LibraController.records`."""
    mem = result.x[:-1, nx:]
    return {"t": result.t[:-1], "stage": mem[:, M_STAGE].astype(int), "u": mem[:, M_U:M_U + 6],
            "u_cmd": mem[:, M_U_CMD:M_U_CMD + 6], "tau": mem[:, M_TAU:M_TAU + 6],
            "tau_raw": mem[:, M_TAU_RAW:M_TAU_RAW + 6]}
