"""An articulated robot (``legsim.multibody`` Model) touching terrain (``legsim.contact``), fixed step.

:class:`RobotWorld` joins the two packages: the model's collision geometry (``model.geometries``)
becomes a contact scene together with terrain shapes; one compiled call (``_kernels.run``) then
advances many steps of forward kinematics -> collision -> contact laws (Konyev (2.1)-(2.21), per
material pair, per-contact state kept across steps) -> joint PD + passive joint forces -> ABA ->
semi-implicit Euler or classical RK4 (see :mod:`legsim.world._kernels` for the pipeline and how
contact state is committed once per step).

Conventions: ``q``, ``v`` follow :mod:`legsim.multibody.model` (floating base: Pinocchio's
``[x y z qx qy qz qw, joints]`` / body-axes twist). The actuated joints are all 1-DoF joints in
``model.joint_names`` order; joint PD control is ``tau = kp (q_ref(t) - q) - kd v`` (the form of a
MuJoCo position actuator with ``kv``). Geoms of the robot touch terrain only (no self-collision).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from .._compiling import compile_in_background
from .._compiling import watch as watch_compilation
from ..contact import _gjk
from ..contact._response import new_state
from ..contact.detection import make_contacts
from ..contact.laws import ContactLaw, LawTable
from ..contact.response import check_capacity
from ..contact.scene import Scene
from ..contact.shapes import (
    Box,
    Capsule,
    ConvexMesh,
    Cylinder,
    HeightField,
    HeightFunction,
    Plane,
    Sphere,
    TerrainMesh,
)
from ..contact.stepping import fixed_steps
from ..errors import InputError, SimulationError, as_floats, check_number
from ..multibody.model import Model
from . import _kernels as K

__all__ = ["RobotWorld", "WorldResult", "METHODS"]

METHODS = {"euler": K.EULER, "rk4": K.RK4}
TERRAIN_MATERIAL = "ground"
FLAT_GROUND = (Plane(),)

WorldArrays = namedtuple(
    "WorldArrays",
    ["lpos", "lrot", "gpos", "grot", "vrel", "force", "fext", "fbody", "info", "ncode", "fcode",
     "lprm", "act_dof", "kp", "kd", "qref", "tab", "prm", "tau", "q0", "v0", "qs", "vs", "kq", "kv",
     "acc_q", "acc_v", "fast", "pnorm", "poff", "planes", "bgeoms", "adelta", "ads"],
)


@dataclass
class WorldResult:
    """Records of a run (state at the start of each recorded step).

    ``t`` (n,) s; ``q`` (n, nq); ``v`` (n, nv); ``contact_force`` (n, nbody, 3) total contact force
    on each body, world axes, N (row 0 = world, unused); ``ncontact`` (n,).
    """

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    contact_force: np.ndarray
    ncontact: np.ndarray

    @property
    def base_position(self):
        """(n, 3) position of the floating base (first 3 entries of q), m."""
        return self.q[:, :3]

    def _trim(self, n):
        return WorldResult(self.t[:n], self.q[:n], self.v[:n], self.contact_force[:n], self.ncontact[:n])


def _shape_of(g):
    P = g.params
    if g.shape == "sphere":
        return Sphere(float(P["radius"]))
    if g.shape == "box":
        return Box(tuple(0.5 * np.asarray(P["size"], dtype=float)))
    if g.shape == "capsule":
        return Capsule(float(P["radius"]), 0.5 * float(P["length"]))
    if g.shape == "cylinder":
        return Cylinder(float(P["radius"]), 0.5 * float(P["length"]))
    if g.shape == "mesh" and "vertices" in P:  # load_urdf's convex hull of the mesh file
        return ConvexMesh(P["vertices"])
    if g.shape == "mesh":
        raise InputError(f"geometry {g.name!r} on body {g.body!r}: a mesh without vertices (only its file "
                         f"name {P.get('filename')!r}); load the URDF with meshes='hull' (the default) "
                         "to get its convex hull")
    raise InputError(f"geometry {g.name!r} on body {g.body!r}: shape {g.shape!r} is not supported by "
                     f"RobotWorld; expected sphere, box, capsule, cylinder or mesh")


def _gains(x, na, name):
    a = as_floats(x) if not isinstance(x, str) else np.full(1, np.nan)  # numpy reads "1.5" as a number
    if a.ndim == 0:
        a = np.full(na, float(a))
    if a.shape != (na,) or not np.all(np.isfinite(a)) or np.any(a < 0):
        raise InputError(f"RobotWorld '{name}' = {x!r}: expected a finite scalar >= 0 or an array "
                         f"of {na} values >= 0 (one per actuated joint)")
    return a


class RobotWorld:
    """A robot model on terrain, stepped by a compiled fixed-step loop.

    Parameters
    ----------
    model : legsim.multibody.Model
        Fixed or floating base; its ``geometries`` (sphere, box, capsule, cylinder) collide with
        the terrain. Geoms on the world body (fixed to it) are ignored.
    terrain : sequence of Plane, HeightFunction, HeightField or TerrainMesh
        Static terrain, material ``"ground"``.
    contact_law : ContactLaw
        Law of every material pair not in ``pair_laws``.
    pair_laws : dict, optional
        ``{(material_a, material_b): ContactLaw}`` using the geometry material names of the
        model and ``"ground"`` for terrain.
    kp, kd : float or (na,) array
        Joint PD gains (N m/rad, N m s/rad; N/m, N s/m for prismatic joints), na = len(model.joint_names).
    capacity : int, optional
        Contact buffer size (default: 8 per geom, at least 64).
    """

    def __init__(self, model: Model, terrain=FLAT_GROUND, contact_law: ContactLaw | None = None,
                 pair_laws=None, kp=0.0, kd=0.0, capacity=None):
        if not isinstance(model, Model):
            raise InputError(f"RobotWorld 'model' is a {type(model).__name__}: expected a "
                             f"legsim.multibody.Model")
        if not isinstance(contact_law, ContactLaw):
            raise InputError(f"RobotWorld 'contact_law' = {contact_law!r}: expected a ContactLaw "
                             f"(e.g. ContactLaw(linear_penalty(1e5), coulomb(1.0)))")
        terrain = tuple(terrain)
        for tr in terrain:
            if not isinstance(tr, (Plane, HeightFunction, HeightField, TerrainMesh)):
                raise InputError(f"RobotWorld 'terrain' item {tr!r}: expected Plane, HeightFunction, "
                                 f"HeightField or TerrainMesh")
        self.model = model
        geoms = [g for g in model.geometries if g.body != model.body_names[0]]
        if not geoms:
            raise InputError(f"model {model.name!r} has no collision geometry on a moving body")
        mats = [TERRAIN_MATERIAL] + sorted({g.material for g in geoms} - {TERRAIN_MATERIAL})
        mid = {n: i for i, n in enumerate(mats)}
        laws = LawTable(len(mats), contact_law)
        for key, law in (pair_laws or {}).items():
            if not (isinstance(key, tuple) and len(key) == 2 and all(k in mid for k in key)):
                raise InputError(f"RobotWorld 'pair_laws' key {key!r}: expected a pair of material "
                                 f"names from {mats}")
            if not isinstance(law, ContactLaw):
                raise InputError(f"RobotWorld 'pair_laws'[{key!r}] = {law!r}: expected a ContactLaw")
            laws.set(mid[key[0]], mid[key[1]], law)
        scene = Scene(laws)
        self.geom_names = []
        for g in geoms:
            scene.add(_shape_of(g), body=model.body_id(g.body), pos=g.p, rot=g.R, material=mid[g.material],
                      contype=1, conaffinity=0)
            self.geom_names.append(f"{g.name} (body {g.body})")
        for i, tr in enumerate(terrain):
            scene.add(tr, body=-1, material=0, contype=0, conaffinity=1)
            self.geom_names.append(f"terrain{i} ({type(tr).__name__})")
        self.materials = tuple(mats)
        self.laws = laws
        self.collision_model = scene.compile()
        cap = check_capacity("RobotWorld", capacity if capacity is not None else max(64, 8 * len(geoms)))
        self.capacity = cap
        self._contacts = make_contacts(self.collision_model, cap)
        self._work = _gjk.new_work()
        self._state = new_state(cap)
        self._data = model.make_data()
        a = model.arrays
        act = np.array([k for k in range(model.nv) if a.dof_qposadr[k] >= 0], dtype=np.int64)
        na = len(act)
        self.na = na
        lpos, lrot = scene.local_poses()
        ng = len(self.geom_names)
        ncode, fcode, prm, _ = laws.arrays()
        nq, nv, nb = model.nq, model.nv, model.nbody
        fast, pnorm, poff, planes, bgeoms = self._fast_path(geoms, terrain)
        self._w = WorldArrays(
            np.ascontiguousarray(lpos), np.ascontiguousarray(lrot), np.zeros((ng, 3)), np.zeros((ng, 3, 3)),
            np.zeros((cap, 3)), np.zeros((cap, 3)), np.zeros((nb, 6)), np.zeros((nb, 3)), np.zeros(3),
            ncode, fcode, prm, act, _gains(kp, na, "kp"), _gains(kd, na, "kd"),
            np.zeros(na), np.zeros((1, na)), np.zeros(1), np.zeros(nv), np.zeros(nq), np.zeros(nv),
            np.zeros(nq), np.zeros(nv), np.zeros(nq), np.zeros(nv), np.zeros(nq), np.zeros(nv),
            fast, pnorm, poff, planes, bgeoms, np.zeros((cap, 3)), np.zeros((cap, 3)))
        self.q = model.neutral()
        self.v = np.zeros(nv)
        self.t = 0.0
        self.set_targets(self.q[a.dof_qposadr[act]] if na else np.zeros(0))

    def _fast_path(self, geoms, terrain):
        """Arrays of the primitives-on-planes collision path (``_terrain``), and whether it applies."""
        cm = self.collision_model
        ng = len(cm.gtype)
        nb_g = len(geoms)
        fast = all(g.shape in ("sphere", "capsule", "box") for g in geoms) and all(
            isinstance(tr, Plane) for tr in terrain)
        pnorm = np.array(cm.gsize, dtype=float)
        poff = np.zeros(ng)
        planes = np.arange(nb_g, ng, dtype=np.int64)
        for gt in planes:
            if cm.gtype[gt] == Plane.code:
                poff[gt] = cm.data[cm.gdadr[gt]]
        return (np.array([1 if fast else 0], np.int64), pnorm, poff, planes,
                np.arange(nb_g, dtype=np.int64))

    # ---- state and control ---------------------------------------------------------------------
    def reset(self, q=None, v=None, t=0.0):
        """Set the state (``q`` (nq,), ``v`` (nv,), time s) and forget all contact state."""
        m = self.model
        q = m.neutral() if q is None else as_floats(q).copy()
        v = np.zeros(m.nv) if v is None else as_floats(v).copy()
        if q.shape != (m.nq,) or not np.all(np.isfinite(q)):
            raise InputError(f"RobotWorld.reset 'q' has shape {q.shape}: expected finite (nq={m.nq},)")
        if v.shape != (m.nv,) or not np.all(np.isfinite(v)):
            raise InputError(f"RobotWorld.reset 'v' has shape {v.shape}: expected finite (nv={m.nv},)")
        self.q, self.v, self.t = q, v, check_number("RobotWorld.reset", "t", t)
        self._state = new_state(self.capacity)
        self._w.adelta[:] = 0.0
        self._w.ads[:] = 0.0

    def set_targets(self, q_ref, dt_table=0.0):
        """Joint PD targets: a constant (na,) array [rad or m], or a table (K, na) sampled every
        ``dt_table`` s from t = 0, linearly interpolated in the compiled loop and held beyond its ends."""
        tab = as_floats(q_ref).copy() if not isinstance(q_ref, str) else np.full(1, np.nan)
        if tab.ndim == 1:
            tab = tab.reshape(1, -1)
        if tab.ndim != 2 or tab.shape[1] != self.na or tab.shape[0] < 1 or not np.all(np.isfinite(tab)):
            raise InputError(f"RobotWorld targets have shape {np.shape(q_ref)}: expected finite "
                             f"(na={self.na},) or (K, {self.na}) (one column per joint of model.joint_names)")
        dt_table = check_number("RobotWorld.set_targets", "dt_table", dt_table, lo=0.0)
        if tab.shape[0] > 1 and not dt_table > 0.0:
            raise InputError(f"RobotWorld 'dt_table' = {dt_table!r}: expected > 0 s for a (K, na) table")
        self._w = self._w._replace(tab=np.ascontiguousarray(tab), prm=np.array([dt_table]))

    # ---- run -----------------------------------------------------------------------------------
    def kernel_buffers(self) -> tuple:
        """What the compiled loop (:func:`._kernels.run`) takes before the state: the model's and the
        data's arrays, the collision model, the contacts, the GJK work, the contact state and the world's
        arrays (named tuples of arrays)."""
        return (self.model.kernel_arrays, self._data, self.collision_model, self._contacts, self._work,
                self._state, self._w)

    def simulate(self, t_final, dt, method="euler", record_every=1, vmax=100.0, max_depth=0.05):
        """Advance ``t_final`` s at the fixed step ``dt`` s from the current state; returns a
        :class:`WorldResult` and keeps the final state (``self.q``, ``self.v``, ``self.t``).

        ``method``: ``"euler"`` (semi-implicit) or ``"rk4"``. Stops with :class:`SimulationError`
        (``err.result`` keeps the records) when the state is not finite, a joint or base speed
        exceeds ``vmax`` (m/s or rad/s), a penetration exceeds ``max_depth`` m, or the contact
        buffer overflows; the message names the time, the body and the contact.
        """
        if not (isinstance(method, str) and method in METHODS):
            raise InputError(f"simulate 'method' = {method!r}: expected one of {sorted(METHODS)}")
        m = self.model
        record_bytes = 8 * (2 + m.nq + m.nv + 3 * m.nbody)  # t, ncontact; q, v, contact_force
        nsteps, every, nrec = fixed_steps("RobotWorld.simulate", t_final, dt, record_every, record_bytes)
        vmax = check_number("RobotWorld.simulate", "vmax", vmax, lo=0.0, lo_open=True)
        max_depth = check_number("RobotWorld.simulate", "max_depth", max_depth, lo=0.0, lo_open=True)
        watch_compilation()  # a first run on a machine compiles (~1 min): say so rather than sit silent
        if not getattr(K.run, "overloads", True):  # not yet compiled or loaded here: perhaps a first run
            compile_in_background(world="robot")  # the loop's late callees in a second process, if not cached
        rec = WorldResult(np.zeros(nrec), np.zeros((nrec, m.nq)), np.zeros((nrec, m.nv)),
                          np.zeros((nrec, m.nbody, 3)), np.zeros(nrec, np.int64))
        err = np.zeros(4, np.int64)
        q = np.ascontiguousarray(self.q, dtype=float).copy()
        v = np.ascontiguousarray(self.v, dtype=float).copy()
        n = K.run(*self.kernel_buffers(), q, v, self.t, float(dt), nsteps, METHODS[method], every,
                  float(vmax), float(max_depth), rec.t, rec.q, rec.v, rec.contact_force, rec.ncontact, err)
        self.q, self.v = q, v
        if err[0] != K.ERR_OK:
            step = int(err[1])
            t_err = self.t + step * float(dt)
            self.t = t_err
            raise self._error(err, t_err, rec._trim(n), vmax, max_depth)
        self.t += nsteps * float(dt)
        return rec

    def _contact_text(self, k):
        c = self._contacts
        if k < 0 or k >= min(int(c.n[0]), c.depth.shape[0]):
            return "no contact"
        g1, g2 = (int(x) for x in c.geom[k])
        return (f"contact {k} between {self.geom_names[g1]} and {self.geom_names[g2]}, depth "
                f"{c.depth[k]:.3g} m at {np.round(c.pos[k], 4).tolist()}")

    def _error(self, err, t, result, vmax, max_depth):
        code = int(err[0])
        m = self.model
        info = self._w.info
        kdeep = int(info[1])
        deep = self._contact_text(kdeep)
        if code == K.ERR_OVERFLOW:
            msg = (f"contact buffer overflow at t={t:.6g} s: {int(info[2])} contacts, capacity "
                   f"{self.capacity} (pass a larger RobotWorld capacity)")
            cause = "contact overflow"
        elif code == K.ERR_VELOCITY:
            b = int(err[2])
            msg = (f"velocity blow-up at t={t:.6g} s: body {m.body_names[b]!r} (dof {int(err[3])}) "
                   f"exceeds {vmax} (m/s or rad/s); deepest {deep}; reduce dt or the contact stiffness")
            cause = "velocity blow-up"
        elif code == K.ERR_PENETRATION:
            body = self.geom_names[int(self._contacts.geom[kdeep, 1])] if kdeep >= 0 else "?"
            msg = (f"penetration blow-up at t={t:.6g} s: {body} sinks deeper than {max_depth} m; "
                   f"deepest {deep}; raise the contact stiffness or reduce dt")
            cause = "penetration blow-up"
        elif code == K.ERR_NONFINITE:
            b = int(err[2])
            name = m.body_names[b] if b > 0 else "(configuration)"
            msg = f"non-finite state at t={t:.6g} s: body {name!r}; deepest {deep}; reduce dt"
            cause = "non-finite state"
        else:
            msg = f"singular articulated inertia at t={t:.6g} s (massless leaf body?)"
            cause = "singular inertia"
        return SimulationError(msg, t=t, mode="robot-world", cause=cause, result=result)

    @property
    def contacts(self):
        """Contact buffer of the last evaluation (``n[0]`` contacts; see ``legsim.contact``)."""
        return self._contacts

    @property
    def contact_state(self):
        """Committed per-contact state (latched v_impact, anchors, normal forces ``fn``)."""
        return self._state
