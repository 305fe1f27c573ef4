"""Where an assembled robot keeps its tables in the parameter vector ``p`` and its states in ``x``
(shared by the compiled hooks and :mod:`legsim.assembly.robot`, which packs them; numba reads
these as compile-time constants).

``p = [header (HEAD), multibody fbuf (nf), ibuf (ni int64 stored as their raw bits), contact block,
actuator rows (nact x AW), sensor rows (nrow x SW), the cylinders' parameter rows, the solenoids' and
PMSM drives' blocks, resource rows, obstacle rows, the cylinders' SIMD lane block (P_OLN), the split
exchange's block (P_OEX), the closed loops' block (P_OLP), scratch (the loops' scratch last)]``,
then with a compiled controller its parameters; the header holds the sizes and every offset. The
hooks' scratch (the multibody data workspace and the stages' buffers) lives at
the end of ``p`` and ``ibuf`` is read through an int64 view of its bits, so a hook call allocates
nothing and copies nothing (hence the hooks compile without reference counting). The scratch is
rewritten before it is read in every call; a run's ``p`` is its own copy (``Model.params``), so
runs in parallel threads do not share it.

``x = [q (nq), v (nv), v_imp (nc), anchors (3 nc, anchor-spring friction only), actuator states,
commands (nu), sensordata (nch), sensor filter and delay states, the split exchange's states (P_XEX),
a compiled controller's memory (P_XM, P_NM)]``: continuous states first (q, v, anchors, actuator
states), the rest bookkeeping states that change only at events and samples (v_imp at contact onsets;
commands, sensordata, filter states, the exchange's states and the controller's memory at samples).
"""

import hashlib
from pathlib import Path

_STAMPED = ("_layout.py", "_kernels.py", "_hooks.py", "../world/_terrain.py")
"""The files :data:`STAMP` hashes, beside this one."""


def _stamp() -> float:
    """A 48-bit hash of the sources the hooks are compiled from, exact as a float64. numba compiles it
    into the hooks as a constant; a hook loaded from a disk cache older than these sources (numba does
    not see an edit of an imported constant or of a callee in another file) carries another value, and
    the check hook refuses to run (DESIGN.md "numba's on-disk cache"). ``world/_terrain.py`` is hashed
    too: its contact kinematics are inlined into the hooks. Only files the hooks import: legsim's own cache
    keys the hooks on exactly those, so an edit recompiles the hooks and their stamp together.
    ``compiled.py`` (which the hooks do not import) was hashed until session 43: any edit of it made every
    assembled robot refuse to run, its hooks loaded from the cache with the old stamp."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for name in _STAMPED:
        h.update((here / name).read_bytes())
    return float(int.from_bytes(h.digest()[:6], "little"))


STAMP = _stamp()

# ---- header (P_STAMP stays at index 0 whatever else changes) ---------------------------------
(P_STAMP, P_NQ, P_NV, P_NF, P_NI, P_NC, P_SMOOTH, P_NACT, P_NROW, P_NCH, P_OC, P_OA, P_OS, P_XC, P_XS, P_XA,
 P_XU, P_XY, P_XF, P_NGEOM, P_OSCR, P_SENSE, P_NAS, P_OR, P_NR, P_OB, P_NB, P_OCP, P_NCP,
 P_CEVERY, P_OOB, P_NOB, P_OT, P_OTR, P_ORD, P_XM, P_NM, P_OLN, P_OLS, P_OWC, P_OAE,
 P_OLP, P_NLP, P_OEX, P_XEX) = range(45)
HEAD = 45
"""``P_XM``, ``P_NM``: first state and length of a compiled controller's memory (0, 0 without);
``P_OLN``: offset of the cylinders' SIMD lane block (``actuators.pneumatic._lane_kernels.embedded_lanes``),
-1 when every cylinder takes the scalar kernel; ``P_OLS``: its scratch (the lane inputs, then outputs);
``P_OWC``: the contact points' wrenches (nc x 6, scratch: :func:`._kernels.contact_wrenches`);
``P_OAE``: the PMSM drives' electrical angle and i_d (nact x 2, scratch:
:func:`._kernels.drive_electrical`).
``P_OLP``, ``P_NLP``: the closed loops' block (below, ``LB_*``) and the loops' count (-1, 0: none);
``P_OEX``, ``P_XEX``: the split exchange's block and its first state (-1, -1: none)."""

NEVER = 1e300
"""A solenoid's switch time when none is pending (state values must be finite)."""

# ---- the split exchange (components.SplitExchange): block at p[P_OEX], states from x[P_XEX] ----------
EX_DUP, EX_DDOWN, EX_T0, EX_DUR = range(4)
EXW = 4
"""The exchange's block: one-way delays up (joint states to the target) and down (forces to the body)
[controller ticks], the pause's start and duration [s]."""
EX_DMAX = 4
"""Depth of the exchange's rings: one-way delays 0 .. EX_DMAX - 1 ticks (the CRR leg's ``DMAX``)."""
EX_PAUSED, EX_PKT, EX_RX = range(3)
"""The exchange's states from ``P_XEX``: the paused flag (1 while the exchange stalls: the rigid body
frozen), the packets exchanged, then per actuator a (nact of them) its held joint position, rate and
generalised force at ``EX_RX + EX_RXW a`` (+ EX_Q, EX_V, EX_F), then the ring up (EX_DMAX slots of nact
(q, v) pairs) and the ring down (EX_DMAX slots of nact forces): ``_kernels.ex_up``, ``ex_down``."""
EX_Q, EX_V, EX_F = range(3)
EX_RXW = 3

SENSE_STATE, SENSE_KINEMATICS, SENSE_CONTACT, SENSE_DYNAMICS = range(4)
"""What the sensors need at a sample (``p[P_SENSE]``): the state only (encoders, joint rates, chamber
pressures), world kinematics (gyros), world kinematics and the contact forces (contact-force and
force/torque sensors), or the whole dynamics (accelerometers, motor and phase currents)."""

# ---- closed loops (components.LinkageLoop) at p[P_OLP]: a block head, the dof map, then one row a loop -----
LB_SCR, LB_NX, LB_NI = range(3)
"""Offset in ``p`` of the loops' scratch (:func:`._kernels.loop_workspace`: the closed copy of the state
(LB_NX), G's coefficients g, Ġẏ, the inverse-dynamics forces (nv each), body wrenches (nb x 6), Gᵀ M G
(LB_NI²) and its right-hand side (LB_NI), at the end of the scratch); the robot's state count (the closed
copy's length; a compiled controller's memory after it is not copied); the count of independent dofs
(nv − 2 P_NLP)."""
LB_MAP = 3
"""From here, per tree dof (nv): the independent dof it follows, numbered 0 .. LB_NI − 1 among the
independent dofs in tree order (G has one entry per row: Featherstone (2008) ch. 8 with q = γ(y)); the
loop rows follow the map, at ``p[P_OLP] + LB_MAP + nv``."""
LPW = 12
(LP_DOF, LP_QADR, LP_BDOF, LP_BQADR, LP_PDOF, LP_PQADR, LP_KIND, LP_L1) = range(8)
"""A loop row: the independent revolute joint's dof and q address, the barrel's (revolute), the piston's
(prismatic), the linkage's kind (``actuators.pneumatic.linkage.Joint``) and l1 .. l5 [m] (from LP_L1)."""

# ---- contact block at p[P_OC]: ground, law, then one row per contact point ------------------
C_NX, C_NY, C_NZ, C_OFF, C_NLAW, C_FLAW, C_MIDWAY, C_LAW = range(8)
"""Ground normal (3) and offset, normal- and friction-law codes, where a point pushes on the ground
(1: midway between the sphere's deepest point and the plane, 0: at the sphere's deepest point;
``components.Contacts.point``), then the law's parameters (``contact._laws.NPRM``)."""
CW = 6
"""Per contact point: body, centre in body axes (3), radius, index of its geometry."""
CP_BODY, CP_X, CP_Y, CP_Z, CP_R, CP_GEOM = range(CW)

# ---- terrain block at p[P_OTR] (-1: the ground is the contact block's plane) -----------------------
TR_KIND, TR_N, TR_NX, TR_NY, TR_DX, TR_DY, TR_DATA = range(7)
"""A height function or heightfield z = h(x, y) (:func:`legsim.contact._geom.height_at`: its kind, count
of numbers, grid size and spacing, then its numbers)."""

# ---- obstacle rows at p[P_OOB] (smooth path): static boxes every contact point also touches --------
OW = 15
"""Per obstacle: centre (3) [m], rotation box -> world (9, row-major), half extents (3) [m]
(:func:`legsim.world._terrain.sphere_on_box`)."""

# ---- actuator rows at p[P_OA] ----------------------------------------------------------------
AW = 19
A_TYPE, A_DOF, A_QADR, A_STATE, A_GEAR, A_ULO, A_UHI = range(7)
A_P0 = 7
"""Type parameters from here: torque (lo, hi), servo (kp, kd, effort), velocity servo (kv, effort),
DC motor (R, L, kt, kb, i_max, v_max, torque command?, efficiency), pneumatic cylinder (offset of
its ``actuators.pneumatic._layout`` row in ``p``, transmission code, then the transmission's
numbers: TR_LINEAR q0, x0, dx/dq; TR_LINKAGE joint kind, l1 .. l5). ``A_STATE`` is the first of an
actuator's states in x (DC motor with inductance: the current; cylinder: p_cap, p_rod, m_cap,
m_rod, m_supply), -1 for none; the rates of all actuator states are one block (``P_NAS`` long)."""
ACT_TORQUE, ACT_POSITION, ACT_VELOCITY, ACT_DC, ACT_PNEUMATIC, ACT_SOLENOID, ACT_PMSM = range(7)
TR_DIRECT, TR_LINEAR, TR_LINKAGE = range(3)
A_SUPPLY = A_P0 + 8
"""The resource an actuator draws from: a cylinder's air supply, a DC motor's battery (the index of
its row), or -1 for none (a cylinder's own constant supply; a motor without a battery)."""
A_TABLE = A_SUPPLY + 1
"""The actuator's column in the command table (:class:`legsim.assembly.CommandTable`), -1 for none."""
A_ROD = A_TABLE + 1
"""The actuator's rod (:class:`legsim.assembly.Rod`, its row at ``p[P_ORD] + RDW * k``), -1: on a joint."""
A_LANE = A_ROD + 1
"""A pneumatic cylinder's lane in the SIMD lane block (``P_OLN``): its chamber rates come from the lane
kernel; -1: from the scalar kernel (any other actuator, a cylinder fed by an air supply, or a robot with
fewer than two lane-compatible cylinders)."""

# ---- rod rows at p[P_ORD]: body a, point on a (3), body b, point on b (3) (body axes, m) -----------
RDW = 8
RD_A, RD_PA, RD_B, RD_PB = 0, 1, 4, 5

# ---- command table at p[P_OT] (-1: none): rows K, period dt [s], columns n, then K x n values --------
T_ROWS, T_DT, T_NCOL, T_DATA = range(4)

# ---- battery rows at p[P_OB]: state, then the Peukert law (capacity [Ah], rated hours, exponent) ----
BW = 4

# ---- resource rows at p[P_OR] (air supplies: isothermal tanks) -------------------------------
RW = 16
(R_STATE, R_VOLUME, R_TEMP, R_GAS_R, R_P_ATM, R_LEAK, R_LEAK_TAU, R_LEAK_AREA, R_K, R_C1, R_C2, R_CR,
 R_LAM, R_SG) = range(14)

# ---- a solenoid cylinder's type parameters (from A_P0; its supply in A_SUPPLY) ---------------------
(SO_AREA, SO_V0, SO_STROKE, SO_KRET, SO_FF, SO_BETA) = range(A_P0, A_P0 + 6)
SO_BLOCK = A_P0 + 6
"""Offset in ``p`` of the rest: kappa, v_eps, exhaust code, exhaust area, flow code, orifice area,
C_v, open latency, close latency, friction law (0 signed, 1 thesis)."""
(SB_KAPPA, SB_VEPS, SB_EXHAUST, SB_EXH_AREA, SB_FLOW, SB_AREA, SB_CV, SB_T_OPEN, SB_T_CLOSE,
 SB_FRICTION) = range(10)
NSB = 10
EXH_TRAPPED, EXH_INSTANT, EXH_ORIFICE = range(3)
FLOW_ORIFICE, FLOW_CV, FLOW_CV_CORRECTED = range(3)
NSOL = 4
"""States of a solenoid cylinder: pressure, gas used (continuous), valve open, pending switch time."""
NGAS = 5
"""States of a pneumatic cylinder."""

# ---- a PMSM drive (components.PMSMDrive): A_GEAR holds G, A_P0 the offset of its block in p --------
PM_BLOCK = A_P0
(PB_R, PB_LD, PB_LQ, PB_PSI, PB_PP, PB_B, PB_VDC, PB_IMAX, PB_ETA, PB_MODE, PB_CMD, PB_P, PB_IT, PB_KP,
 PB_KD, PB_FG, PB_CF, PB_FF, PB_KPF, PB_KDF, PB_MM, PB_E0) = range(22)
NPB = 22
"""R, L_d, L_q, psi, p, b, v_dc, i_max, eta, mode, command, PI P and I/T, position kp, kd, force limit,
series spring CF (0: rigid), force feedforward 1/g, force kp, kd, motor-side mass G^2 J, offset of the
electrical states from A_STATE (2 with a spring: x_m, v_m come first)."""
PM_IDEAL, PM_LOOP = range(2)
PM_CURRENT, PM_FORCE, PM_POSITION = range(3)
NPM_SPRING = 2
NPM_LOOP = 4

# ---- sensor rows at p[P_OS] ------------------------------------------------------------------
SW = 48
(S_TYPE, S_SRC, S_NCH, S_CH0, S_TICKS, S_STD, S_OFFSET, S_SCALE, S_LO, S_HI, S_BITS, S_B0, S_A1,
 S_DELAY, S_SEED, S_XSTATE, S_ID) = range(17)
S_POS = 17
"""Body point of an accelerometer (3) [m], then the mounting rotation (9, row-major, sensor ->
body axes) from S_ROT; a force/torque sensor's mounting point and rotation likewise."""
S_ROT = 20
S_COMP, S_NG = 29, 30
"""A force/torque sensor row (one channel): its wrench component (0-2 force, 3-5 moment, sensor axes)
and how many contact geometries it carries, their indices from ``S_GEOM``."""
S_SENSE = 31
"""What the row's truth needs at a sample (``SENSE_*``); ``P_SENSE`` is the largest over the rows."""
S_GEOM = 32
NG_WRENCH = SW - S_GEOM
"""At most this many contact geometries under one force/torque sensor."""
SEN_JPOS, SEN_JVEL, SEN_ACC, SEN_GYRO, SEN_FORCE, SEN_CURRENT, SEN_PRESSURE, SEN_WRENCH, SEN_PHASE = range(9)
SEN_INCREMENTAL, SEN_SWITCH = 9, 10
S_ROD = S_COMP
"""An incremental encoder's or limit switch's row: 1 when ``S_SRC`` is a rod (its length is read), 0 when
it is a joint's q address."""
S_COUNTS, S_TRIP, S_SIDE = S_POS, S_POS, S_POS + 1
"""An incremental encoder's counts per unit [counts/rad or counts/m]; a limit switch's trip position and
side (+1: pressed at s >= trip, -1: at s <= trip)."""

NFSTATE = 2
"""Filter states per channel (previous input, previous output), then its delay line; an incremental
encoder's channel then holds its zero count (the edges below its initial position)."""

# ---- model error codes -------------------------------------------------------------------------
ERR_STALE = 999
"""Check-hook code: the compiled hooks are older than the assembly's sources (stale numba cache)."""
ERR_CMD = 1000
"""Check-hook code ``ERR_CMD + 2 a + r``: actuator a's command is not finite (r = 0) or outside its
range (r = 1)."""
