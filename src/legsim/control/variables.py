"""Control variables of Coordinated Jacobian Transpose Control (CJTC digest §3.1, eq. 9).

A control variable is a differentiable scalar function u(q) of a robot's configuration with non-zero
first partial derivatives: a coordinate of a point, an orientation, a joint angle, the centre of mass,
the potential energy, a static-stability margin. CJTC stacks r of them into the control vector
u = [x(q); α(q); Γ(q)] (eq. 9) and acts through its Jacobian J = ∂u/∂q (eq. 11).

Here every variable reads one shared :class:`Kinematics` of a :class:`legsim.multibody.Model`
(forward kinematics once per configuration, each frame's Jacobian once), so a control vector of r
variables costs one kinematics pass, not r. Gradients are with respect to the generalised
velocities v (= dq/dt for robots without a free joint), shape (nv,).

>>> kin = Kinematics(model)
>>> u = [PointCoordinate(kin, "body", 0), PointCoordinate(kin, "body", 1), Orientation(kin, "body")]
>>> u[0].value(q), u[0].gradient(q)          # x_b [m] and ∂x_b/∂q (nv,)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import InputError, as_float, check_number
from ..multibody import Model, forward_kinematics, rnea
from ..multibody import _packed as P
from ..multibody.dynamics import _ref
from .mobility import finite_difference_jacobian

__all__ = ["Kinematics", "ControlVariable", "PointCoordinate", "Orientation", "JointAngle", "CentreOfMass",
           "PotentialEnergy", "StabilityMargin", "FunctionVariable", "force_offset", "OFFSET_LIMIT"]

AXES = {"x": 0, "y": 1, "z": 2}

OFFSET_LIMIT = 1e9
"""Largest |position| [m] :func:`force_offset` takes and returns (a contact position, the offset F/k_p), as
:func:`legsim.control.cjtc.compliant_equilibrium`'s commands: a small stiffness cannot turn a force into
an inf command."""


def _axis(owner: str, axis, field: str = "axis") -> int:
    if isinstance(axis, str) and axis in AXES:
        return AXES[axis]
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and 0 <= int(axis) <= 2:
        return int(axis)
    raise InputError(f"{owner}: {field} = {axis!r}, expected 'x', 'y', 'z' or 0, 1, 2")


def _named(name, default: str):
    """``name``, or ``default`` when it is None (the variable's name is checked by ControlVariable)."""
    return default if name is None else name


class Kinematics:
    """Forward kinematics of ``model`` at the configuration last given to :meth:`at`, with each frame's
    placement and Jacobian computed once per configuration (the control variables share it).

    Parameters
    ----------
    model : legsim.multibody.Model.
    """

    def __init__(self, model: Model):
        if not isinstance(model, Model):
            raise InputError(f"Kinematics: model = {type(model).__name__}, expected a legsim.multibody.Model")
        self.model = model
        self.data = model.make_data()
        self.q = np.full(model.nq, np.nan)
        self._jac: dict[int, np.ndarray] = {}
        self._gravity: np.ndarray | None = None
        self.gravity_vector = np.asarray(model.arrays.gravity, dtype=float)
        self._zero = np.zeros(model.nv)
        self._lwa = _ref("local_world_aligned")

    def at(self, q) -> Kinematics:
        """Move to configuration ``q`` (nq,) (a no-op when it is the current one)."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.model.nq,):
            raise InputError(f"Kinematics: q has shape {q.shape}, expected ({self.model.nq},) for "
                             f"model {self.model.name!r}")
        if not np.array_equal(q, self.q):
            self.q[:] = q
            forward_kinematics(self.model, self.data, self.q)
            self._jac.clear()
            self._gravity = None
        return self

    def frame(self, frame, owner: str = "Kinematics") -> int:
        """The index of ``frame`` (a frame's name or index); an InputError from ``owner`` (e.g.
        "PointCoordinate frame") naming it otherwise."""
        if isinstance(frame, bool) or not isinstance(frame, (str, int, np.integer)):
            raise InputError(f"{owner} = {frame!r}: expected a frame's name or index in model "
                             f"{self.model.name!r}")
        try:
            return self.model.frame_id(frame)
        except InputError as e:
            raise InputError(f"{owner}: {e}") from None

    def position(self, fid: int) -> np.ndarray:
        """World position (3,) [m] of frame ``fid`` (a view; copy to keep)."""
        b = int(self.model.arrays.frame_body[fid])
        return self.data.op[b] + self.data.oR[b] @ self.model.arrays.frame_p[fid]

    def rotation(self, fid: int) -> np.ndarray:
        b = int(self.model.arrays.frame_body[fid])
        return self.data.oR[b] @ self.model.arrays.frame_R[fid]

    def jacobian(self, fid: int) -> np.ndarray:
        """Frame Jacobian (6, nv) [linear; angular], world axes at the frame origin."""
        J = self._jac.get(fid)
        if J is None:  # the compiled kernel directly: this runs several times per control cycle
            m = self.model
            P.frame_jacobian(*m.kernel_buffers, self.data.buf, self.q, fid, self._lwa)
            J = self.data.J.copy()
            self._jac[fid] = J
        return J

    def gravity_torques(self) -> np.ndarray:
        """Generalised gravity forces g(q) (nv,) = ∂V/∂q [N m or N]: the efforts that hold the robot
        still against gravity (rnea at zero velocity and acceleration, passive forces excluded)."""
        if self._gravity is None:
            self._gravity = rnea(self.model, self.data, self.q, self._zero, self._zero).copy()
        return self._gravity

    def _body_point_jacobian(self, b: int, local) -> np.ndarray:
        """Linear Jacobian (3, nv) of body point ``local`` (body axes) of body ``b``."""
        J = self.jacobian(_body_frame(self.model, b))
        r = self.data.oR[b] @ np.asarray(local)
        return J[:3] - np.cross(r, J[3:].T).T  # v_p = v_o + w x r = v_o - r x w

    def centre_of_mass(self) -> tuple[np.ndarray, np.ndarray]:
        """Whole-body centre of mass (3,) [m] and its Jacobian (3, nv)."""
        m, c = self.model.body_mass, self.model.body_com
        mt = float(m.sum())
        pos = np.zeros(3)
        J = np.zeros((3, self.model.nv))
        for b in range(1, self.model.nbody):
            if m[b] == 0.0:
                continue
            pos += m[b] * (self.data.op[b] + self.data.oR[b] @ c[b])
            J += m[b] * self._body_point_jacobian(b, c[b])
        return pos / mt, J / mt


def _body_frame(model: Model, b: int) -> int:
    """The frame named after body ``b`` (every body has one)."""
    return model.frame_id(model.body_names[b])


class ControlVariable:
    """One control variable u(q) (digest §3.1): :meth:`value` [SI] and :meth:`gradient` ∂u/∂v (nv,).

    ``extra`` carries measurements other than q that a variable may need (eq. 9's Γ; Fig. 7's
    "Sensors" block); the built-in kinds need none. ``force_gain`` marks a variable that is blocked by
    the environment and commanded "inside" it to set a force (§2.2, :func:`force_offset`).
    """

    name: str = "u"
    unit: str = ""

    def __init__(self, kin: Kinematics, name: str):
        if not isinstance(kin, Kinematics):
            raise InputError(f"{type(self).__name__} {name!r}: expected a legsim.control.Kinematics, got "
                             f"{type(kin).__name__}")
        if not isinstance(name, str) or not name:
            raise InputError(f"{type(self).__name__}: name = {name!r}, expected a non-empty string")
        self.kin = kin
        self.name = name

    def value(self, q, extra=None) -> float:
        return self._value(self.kin.at(q), extra)

    def gradient(self, q, extra=None) -> np.ndarray:
        return self._gradient(self.kin.at(q), extra)

    def _value(self, kin: Kinematics, extra) -> float:
        raise NotImplementedError

    def _gradient(self, kin: Kinematics, extra) -> np.ndarray:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class PointCoordinate(ControlVariable):
    """World coordinate ``axis`` of frame ``frame``'s origin [m] (a foot, the body centre: eq. 9's x)."""

    unit = "m"

    def __init__(self, kin: Kinematics, frame, axis, name: str | None = None):
        ax = _axis("PointCoordinate", axis)
        super().__init__(kin, _named(name, f"{frame}_{'xyz'[ax]}"))
        self.fid = kin.frame(frame, "PointCoordinate frame")
        self.axis = ax

    def _value(self, kin, extra):
        return float(kin.position(self.fid)[self.axis])

    def _gradient(self, kin, extra):
        return kin.jacobian(self.fid)[self.axis]


class Orientation(ControlVariable):
    """Angle [rad] of frame ``frame`` about the world axis ``axis`` (default z): for a planar robot
    moving in the plane normal to ``axis`` (LIBRA's θ_b), atan2 of the frame's first axis in that
    plane; its gradient is the angular Jacobian's ``axis`` row (eq. 9's α)."""

    unit = "rad"

    def __init__(self, kin: Kinematics, frame, axis="z", name: str | None = None):
        ax = _axis("Orientation", axis)
        super().__init__(kin, _named(name, f"{frame}_angle"))
        self.fid = kin.frame(frame, "Orientation frame")
        self.axis = ax

    def _value(self, kin, extra):
        R = kin.rotation(self.fid)
        i, j = (self.axis + 1) % 3, (self.axis + 2) % 3
        return math.atan2(R[j, i], R[i, i])

    def _gradient(self, kin, extra):
        return kin.jacobian(self.fid)[3 + self.axis]


class JointAngle(ControlVariable):
    """The position of a 1-DoF joint [rad or m] (the most basic control variable, §3.1)."""

    unit = "rad"

    def __init__(self, kin: Kinematics, joint: str, name: str | None = None):
        super().__init__(kin, _named(name, str(joint)))
        names = list(kin.model.joint_names)
        if not isinstance(joint, str) or joint not in names:
            raise InputError(f"JointAngle: joint {joint!r} not in model {kin.model.name!r}; joints: "
                             f"{', '.join(names)}")
        b = list(kin.model.jnt_names).index(joint)
        self.qadr = int(kin.model.arrays.jnt_qposadr[b])
        self.dof = int(kin.model.arrays.jnt_dofadr[b])

    def _value(self, kin, extra):
        return float(kin.q[self.qadr])

    def _gradient(self, kin, extra):
        g = np.zeros(kin.model.nv)
        g[self.dof] = 1.0
        return g


class CentreOfMass(ControlVariable):
    """Coordinate ``axis`` of the whole-body centre of mass [m]."""

    unit = "m"

    def __init__(self, kin: Kinematics, axis, name: str | None = None):
        ax = _axis("CentreOfMass", axis)
        super().__init__(kin, _named(name, f"com_{'xyz'[ax]}"))
        self.axis = ax

    def _value(self, kin, extra):
        return float(kin.centre_of_mass()[0][self.axis])

    def _gradient(self, kin, extra):
        return kin.centre_of_mass()[1][self.axis]


class PotentialEnergy(ControlVariable):
    """Gravitational potential energy V = −Σ m_i g·c_i [J] (zero at the world origin); ∂V/∂q is the
    generalised gravity force (§3.1's "potential energy" example)."""

    unit = "J"

    def __init__(self, kin: Kinematics, name: str = "potential_energy"):
        super().__init__(kin, name)

    def _value(self, kin, extra):
        com = kin.centre_of_mass()[0]
        return -float(kin.model.body_mass.sum() * (kin.gravity_vector @ com))

    def _gradient(self, kin, extra):
        return kin.gravity_torques()


class StabilityMargin(ControlVariable):
    """Static-stability margin [m]: the horizontal distance from the centre of mass's ground projection
    to the nearest edge of the support interval spanned by the supporting ``feet`` (frames), positive
    inside (a planar robot: the support polygon is the interval along ``horizontal``). Differentiable
    wherever the nearest edge is unique (§3.1's "static-stability (anti-tip) function")."""

    unit = "m"

    def __init__(self, kin: Kinematics, feet: Sequence, horizontal="x", name: str = "stability_margin"):
        super().__init__(kin, name)
        if not isinstance(feet, (list, tuple, np.ndarray)) or len(feet) < 2:
            raise InputError(f"StabilityMargin: feet = {feet!r}, expected a list of at least two support "
                             "frames")
        self.fids = [kin.frame(f, "StabilityMargin feet") for f in feet]
        self.axis = _axis("StabilityMargin", horizontal, "horizontal")

    def _edges(self, kin):
        xs = [(kin.position(f)[self.axis], f) for f in self.fids]
        return min(xs), max(xs)

    def _value(self, kin, extra):
        (lo, _), (hi, _) = self._edges(kin)
        c = kin.centre_of_mass()[0][self.axis]
        return float(min(c - lo, hi - c))

    def _gradient(self, kin, extra):
        (lo, flo), (hi, fhi) = self._edges(kin)
        c, Jc = kin.centre_of_mass()
        jc = Jc[self.axis]
        if c[self.axis] - lo <= hi - c[self.axis]:
            return jc - kin.jacobian(flo)[self.axis]
        return kin.jacobian(fhi)[self.axis] - jc


class FunctionVariable(ControlVariable):
    """Any differentiable u(q, extra) the user writes [units of ``unit``], with its gradient by central
    finite differences over v (step ``eps``) unless ``gradient`` (q, extra) -> (nv,) is given
    (robots without a free joint: q and v coincide)."""

    def __init__(self, kin: Kinematics, name: str, fn: Callable, gradient: Callable | None = None,
                 unit: str = "", eps: float = 1e-7):
        super().__init__(kin, name)
        if kin.model.nq != kin.model.nv:
            raise InputError(f"FunctionVariable {name!r}: model {kin.model.name!r} has a free joint "
                             "(nq != nv); give an analytic gradient over v")
        if not callable(fn):
            raise InputError(f"FunctionVariable {name!r}: fn = {fn!r}, expected a function (q, extra) -> "
                             "value")
        if gradient is not None and not callable(gradient):
            raise InputError(f"FunctionVariable {name!r}: gradient = {gradient!r}, expected None or a "
                             "function (q, extra) -> (nv,)")
        if not isinstance(unit, str):
            raise InputError(f"FunctionVariable {name!r}: unit = {unit!r}, expected a string ('m', 'rad', "
                             "...)")
        step = as_float(eps)
        if not 0.0 < step <= 1.0:  # (a step beyond 1 rad or 1 m is no derivative, and q + eps overflows)
            raise InputError(f"FunctionVariable {name!r}: eps = {eps!r}, expected a finite-difference "
                             "step in (0, 1]")
        self.fn, self.grad, self.unit, self.eps = fn, gradient, unit, step

    def _value(self, kin, extra):
        return float(self.fn(kin.q.copy(), extra))

    def _gradient(self, kin, extra):
        q = kin.q.copy()
        if self.grad is not None:
            return np.asarray(self.grad(q, extra), dtype=float)
        return finite_difference_jacobian(lambda p: self.fn(p, extra), q, self.eps)[0]


def force_offset(x_contact: float, force: float, kp: float) -> float:
    """Command that sets a contact force through a position variable (§2.2): x_cmd = x_contact + F/k_p
    [m] (10 N at k_p = 100 N/m: 0.1 m into the wall, §6.1). Against a compliant environment the force
    reached is lower (:func:`legsim.control.cjtc.compliant_equilibrium`). ``x_contact`` and the offset
    F/k_p within ±:data:`OFFSET_LIMIT` m; k_p in (0, 1e12] N/m."""
    o = "force_offset"
    x_contact = check_number(o, "x_contact", x_contact, lo=-OFFSET_LIMIT, hi=OFFSET_LIMIT)  # [m]
    force = check_number(o, "force", force)  # [N]
    kp = check_number(o, "kp", kp, lo=0.0, hi=1e12, lo_open=True)  # [N/m], as compliant_equilibrium
    offset = force / kp  # Python floats: a quotient beyond the float range is inf, refused here
    if not abs(offset) <= OFFSET_LIMIT:
        raise InputError(f"{o}: 'force' / 'kp' = {force!r} / {kp!r} = {offset:g} m, expected an offset of at "
                         f"most {OFFSET_LIMIT:g} m")
    return x_contact + offset
