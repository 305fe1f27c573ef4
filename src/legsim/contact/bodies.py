"""Free rigid bodies with contact at a fixed step: a small world for tests and examples.

Not the articulated-body engine (``legsim.multibody``): each body is a free 6-DoF rigid body
whose frame origin is its centre of mass. See ``_bodies`` for the integrator (semi-implicit
Euler, Konyev §2.5.1 discrete solver).

Example
-------
>>> from legsim.contact import RigidWorld, Sphere, Plane, LawTable, ContactLaw, restitution, coulomb
>>> w = RigidWorld(LawTable(1, ContactLaw(restitution(1e5, 0.5), coulomb(0.8))))
>>> b = w.add_solid(Sphere(0.05), density=1000.0, pos=(0, 0, 0.2))
>>> w.scene.add(Plane())
1
>>> res = w.simulate(0.5, 1e-4)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._compiling import compile_in_background
from .._compiling import watch as watch_compilation
from ..errors import InputError, SimulationError, as_floats, check_array, check_number
from . import _bodies, _gjk
from ._response import new_state
from .detection import make_contacts
from .laws import LawTable
from .response import check_capacity
from .scene import Scene, check_rotation
from .shapes import mass_properties
from .stepping import fixed_steps

__all__ = ["RigidWorld", "WorldResult"]


@dataclass
class WorldResult:
    """Records of a run: t (n,) [s]; pos, vel, omega (n, nb, 3); rot (n, nb, 3, 3);
    contact_force (n, nb, 3) total contact force on each body [N]; ncontact (n,)."""

    t: np.ndarray
    pos: np.ndarray
    rot: np.ndarray
    vel: np.ndarray
    omega: np.ndarray
    contact_force: np.ndarray
    ncontact: np.ndarray

    @classmethod
    def empty(cls, nrec, nb):
        """Zeroed records for ``nrec`` samples of ``nb`` bodies."""
        return cls(
            np.zeros(nrec),
            np.zeros((nrec, nb, 3)),
            np.zeros((nrec, nb, 3, 3)),
            np.zeros((nrec, nb, 3)),
            np.zeros((nrec, nb, 3)),
            np.zeros((nrec, nb, 3)),
            np.zeros(nrec, np.int64),
        )

    def truncate(self, n):
        """Keep the first ``n`` records (a run that stopped early)."""
        for f in ("t", "pos", "rot", "vel", "omega", "contact_force", "ncontact"):
            setattr(self, f, getattr(self, f)[:n])


class RigidWorld:
    """Free rigid bodies, static terrain and contact laws.

    Parameters
    ----------
    laws : LawTable
        Contact law per material pair.
    gravity : (3,) [m/s^2]
    capacity : int
        Contact buffer size.
    single : bool
        Single-witness-pair collision mode (SOLID behaviour).
    """

    def __init__(self, laws: LawTable, gravity=(0.0, 0.0, -9.81), capacity=256, single=False):
        if not isinstance(laws, LawTable):
            raise InputError(f"RigidWorld 'laws' is a {type(laws).__name__}: expected a LawTable")
        self.laws = laws
        self.scene = Scene(laws)
        self.gravity = check_array("RigidWorld", "gravity", gravity, (3,))
        self.capacity = check_capacity("RigidWorld", capacity)
        self.single = bool(single)
        self.mass: list = []
        self.inertia: list = []
        self.pos: list = []
        self.rot: list = []
        self.vel: list = []
        self.omega: list = []
        self.fext: list = []
        self.t = 0.0
        self._state = None

    def add_body(self, mass, inertia, pos=(0, 0, 0), rot=None, vel=(0, 0, 0), omega=(0, 0, 0), fext=None):
        """Add a body (frame at its CoM); mass [kg] (0 = kinematic), inertia (3, 3) [kg m^2].

        ``fext`` (6,) is a constant external wrench (force [N], torque [N m]) in the world frame.
        Returns the body id.
        """
        o = "RigidWorld.add_body"
        m = check_number(o, "mass", mass, lo=0.0)
        given, inertia = inertia, as_floats(inertia)
        if m > 0 and (inertia.shape != (3, 3) or not np.all(np.isfinite(inertia))
                      or not np.allclose(inertia, inertia.T) or np.any(np.linalg.eigvalsh(inertia) <= 0)):
            raise InputError(f"{o} 'inertia' = {given!r}: expected a symmetric "
                             f"positive-definite 3x3 [kg m^2]")
        rot = np.eye(3) if rot is None else check_rotation(o, "rot", rot, atol=1e-6)
        self.mass.append(m)
        self.inertia.append(inertia if m > 0 else np.eye(3))
        self.pos.append(check_array(o, "pos", pos, (3,)))
        self.rot.append(rot)
        self.vel.append(check_array(o, "vel", vel, (3,)))
        self.omega.append(check_array(o, "omega", omega, (3,)))
        self.fext.append(np.zeros(6) if fext is None else check_array(o, "fext", fext, (6,), "N, N m"))
        self._state = None
        return len(self.mass) - 1

    def add_solid(self, shape, density=None, mass=None, material=0, **pose):
        """Add a body made of one solid ``shape`` of uniform density [kg/m^3] (or total mass [kg]).

        The body frame sits at the shape's centre of mass. Returns the body id.
        """
        if (density is None) == (mass is None):
            raise InputError("add_solid: give exactly one of 'density' [kg/m^3] or 'mass' [kg]")
        m1, com, inertia = mass_properties(shape, 1.0 if density is None else density)
        if mass is not None:
            mass = check_number("add_solid", "mass", mass, lo=0.0, lo_open=True)
            m1, inertia = mass, inertia * (mass / m1)
        b = self.add_body(m1, inertia, **pose)
        self.scene.add(shape, body=b, pos=-com, material=material)
        return b

    def _compile(self):
        model = self.scene.compile()
        lpos, lrot = self.scene.local_poses()
        nb = len(self.mass)
        ncode, fcode, prm, _ = self.laws.arrays()
        self._arrays = dict(
            m=model,
            lpos=np.ascontiguousarray(lpos),
            lrot=np.ascontiguousarray(lrot),
            mass=np.array(self.mass),
            ibody=np.array(self.inertia).reshape(nb, 3, 3),
            ncode=ncode,
            fcode=fcode,
            prm=prm,
        )
        cap = self.capacity
        self._contacts = make_contacts(model, cap, self.single)
        self._work = _gjk.new_work()
        self._state = new_state(cap)
        self.model = model

    def simulate(self, t_final, dt, record_every=1, vmax=1e3):
        """Run for ``t_final`` [s] at fixed step ``dt`` [s]; continues from the current state.

        Raises
        ------
        SimulationError
            Contact buffer overflow, or a body speed above ``vmax`` [m/s] (names time, body and
            deepest contact); ``err.result`` keeps the records up to that point.
        """
        nsteps, every, (pos, rot, vel, omega), rec = self._begin(t_final, dt, record_every)
        vmax = check_number("RigidWorld.simulate", "vmax", vmax, lo=0.0, lo_open=True)
        watch_compilation()  # a first run on a machine compiles (~40 s): say so rather than sit silent
        if not getattr(_bodies.run, "overloads", True):  # not in this process yet: perhaps a first run
            compile_in_background(world="rigid")  # the loop's late callees in a second process, if not cached
        a = self._arrays
        nb = len(self.mass)
        ng = len(a["m"].gtype)
        cap = self.capacity
        err = np.zeros(4, np.int64)
        n = _bodies.run(
            a["m"],
            a["lpos"],
            a["lrot"],
            a["mass"],
            a["ibody"],
            self.gravity,
            np.ascontiguousarray(self.fext, dtype=float).reshape(nb, 6),
            a["ncode"],
            a["fcode"],
            a["prm"],
            self._contacts,
            self._work,
            self._state,
            pos,
            rot,
            vel,
            omega,
            np.zeros((ng, 3)),
            np.zeros((ng, 3, 3)),
            np.zeros((cap, 3)),
            np.zeros((cap, 3)),
            np.zeros((nb, 6)),
            np.zeros((3, 3, 3)),
            self.t,
            float(dt),
            nsteps,
            every,
            float(vmax),
            rec.t,
            rec.pos,
            rec.rot,
            rec.vel,
            rec.omega,
            rec.contact_force,
            rec.ncontact,
            err,
        )
        self.pos, self.rot, self.vel, self.omega = list(pos), list(rot), list(vel), list(omega)
        if err[0] != 0:
            rec.truncate(n)
            t_err = self.t + err[1] * dt
            if err[0] == _bodies.ERR_OVERFLOW:
                msg = (
                    f"contact buffer overflow at t={t_err:.6g} s: {err[3]} contacts, capacity "
                    f"{cap} (raise RigidWorld capacity)"
                )
                cause = "contact overflow"
            else:
                k = int(err[3])
                where = (
                    (
                        f"deepest contact {k} between geoms {tuple(int(g) for g in self._contacts.geom[k])} "
                        f"depth {self._contacts.depth[k]:.3g} m"
                    )
                    if k >= 0
                    else "no contact"
                )
                msg = (
                    f"velocity blow-up at t={t_err:.6g} s: body {err[2]} exceeds {vmax} m/s ({where}); "
                    f"reduce dt or the contact stiffness"
                )
                cause = "velocity blow-up"
            raise SimulationError(msg, t=t_err, mode="rigid-world", cause=cause, result=rec)
        self.t += nsteps * dt
        return rec

    def _begin(self, t_final, dt, record_every):
        """Checks and set-up shared by the steppers: (nsteps, every, state arrays, empty records)."""
        if len(self.mass) == 0:
            raise InputError("RigidWorld has no bodies: call add_body or add_solid first")
        nb = len(self.mass)
        record_bytes = 8 * (2 + 21 * nb)  # t, ncontact; pos, rot, vel, omega, contact_force
        nsteps, every, _ = fixed_steps("RigidWorld.simulate", t_final, dt, record_every, record_bytes)
        if self._state is None:
            self._compile()
        state = (
            np.ascontiguousarray(self.pos, dtype=float).reshape(nb, 3),
            np.ascontiguousarray(self.rot, dtype=float).reshape(nb, 3, 3),
            np.ascontiguousarray(self.vel, dtype=float).reshape(nb, 3),
            np.ascontiguousarray(self.omega, dtype=float).reshape(nb, 3),
        )
        return nsteps, every, state, WorldResult.empty((nsteps + every - 1) // every, nb)

    @property
    def contacts(self):
        """The contact buffer of the last step (after :meth:`simulate`)."""
        return self._contacts

    @property
    def contact_state(self):
        """Per-contact state arrays (latched v_impact, anchors, normal forces) of the last step."""
        return self._state
