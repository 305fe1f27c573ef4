"""What a controller written in Python sees and returns: read-only views of the held measurements,
and a validated write of its commands into the held-command states (DESIGN.md "Robots from parts")."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError, closest

if TYPE_CHECKING:
    from .robot import Robot

__all__ = ["SensorReadings", "Controller", "python_controller", "CommandWriter"]

Controller = Callable[[float, "SensorReadings"], object]
"""``controller(t, sensors) -> commands``: t [s]; commands (nact,) in actuator order, a mapping
{actuator name: value}, or None to keep the held commands."""


class SensorReadings:
    """What a Python controller sees: ``readings.<sensor>`` (or ``readings["<sensor>"]``) is a
    read-only array of that sensor's held measurements (channels in :attr:`Robot.channels` order);
    ``readings.q`` and ``readings.v`` are the true joint positions and velocities (read-only), for
    controllers that want truth, and ``readings.x`` the whole engine state (truth, read-only; index it
    with ``robot.model.state_names``: tank pressures, chamber pressures, ...). The arrays are views of
    the live state: read them during the call, copy what you keep."""

    def __init__(self, robot: Robot, x: np.ndarray):
        xy = robot._x["xy"]
        nq, nv = robot.mb.nq, robot.mb.nv
        self.names = tuple(ch.name for ch in robot.channels)
        for ch in robot.channels:
            setattr(self, ch.name, _readonly(x[xy + ch.start:xy + ch.start + len(ch.labels)]))
        self.q = _readonly(x[:nq])
        self.v = _readonly(x[nq:nq + nv])
        self.x = _readonly(x[:])

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self.names:
            raise KeyError(self._unknown(name))
        return getattr(self, name)

    def __getattr__(self, name: str):  # called only for a name that is not an attribute
        if name.startswith("__") or name == "names":
            raise AttributeError(name)
        raise AttributeError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        return (f"no sensor {name!r}{closest(name, self.names)}; sensors: {', '.join(self.names)} "
                "(and q, v, x: the true state)")


def _readonly(view: np.ndarray) -> np.ndarray:
    view.flags.writeable = False
    return view


class CommandWriter:
    """Writes a controller's commands into the held-command states (validated: count, names, numbers;
    finiteness and ranges are checked by the compiled check hook, which names the actuator). A
    solenoid valve whose command changes gets its switch scheduled at t + its latency (opening) or
    close latency (closing): the engine locates that instant as an event."""

    def __init__(self, robot: Robot, x: np.ndarray):
        xu, n = robot._x["xu"], robot._x["nact"]
        self.x = x
        self.u = x[xu:xu + n]
        self.n = n
        self.names = robot.actuator_names
        self.index = {name: i for i, name in enumerate(self.names)}
        self.solenoids = robot._solenoids
        self.last = self.u.tolist()  # the commands at the last call (Python floats: cheap to compare)

    def __call__(self, cmd, t: float = 0.0) -> None:
        if cmd is None:
            return
        if type(cmd) is np.ndarray and cmd.shape == (self.n,):  # the fast path
            self.u[:] = cmd
        elif isinstance(cmd, Mapping):
            for key, val in cmd.items():
                i = self.index.get(key)
                if i is None:
                    raise InputError(f"command for unknown actuator {key!r}{closest(str(key), self.names)}; "
                                     f"actuators: {', '.join(self.names)}")
                self.u[i] = _number(val, key)
        else:
            try:
                arr = np.asarray(cmd, dtype=float)
            except (TypeError, ValueError, OverflowError):  # (OverflowError: an int beyond any float)
                raise InputError(f"commands = {cmd!r}: expected {self.n} numbers (actuators "
                                 f"{', '.join(self.names)}) or a mapping actuator -> value") from None
            if arr.shape != (self.n,):
                raise InputError(f"the controller returned commands of shape {arr.shape}, expected "
                                 f"({self.n},): one per actuator ({', '.join(self.names)})")
            self.u[:] = arr
        if not self.solenoids:
            return
        now = self.u.tolist()
        last = self.last
        if now != last:  # (one comparison of the lists first: most ticks change no command)
            for state, a, t_open, t_close in self.solenoids:
                if now[a] != last[a]:
                    self.x[state + 3] = t + (t_open if now[a] > 0.5 else t_close)
        self.last = now


def _number(val, key: str) -> float:
    try:
        return float(val)
    except (TypeError, ValueError):
        raise InputError(f"command for actuator {key!r} = {val!r}: expected a number") from None


def signature(fn: Callable[..., Any]) -> inspect.Signature:
    """``inspect.signature(fn)``, or one taking any arguments for a callable without one (a builtin)."""
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])


def python_controller(robot: Robot, controller: Controller):
    """The engine callback running ``controller`` on views made once (the state array is the same
    object for the whole run)."""
    if not callable(controller):
        raise InputError(f"controller = {controller!r}: expected a function controller(t, sensors)")
    try:
        signature(controller).bind(0.0, None)
    except TypeError:
        name = getattr(controller, "__qualname__", repr(controller))
        raise InputError(f"controller {name}{signature(controller)} cannot be called as controller(t, "
                         "sensors)") from None
    views: list = []

    def callback(t: float, x: np.ndarray, mode: int) -> None:
        if not views:
            views.extend((SensorReadings(robot, x), CommandWriter(robot, x)))
        readings, write = views
        write(controller(t, readings), t)

    return callback
