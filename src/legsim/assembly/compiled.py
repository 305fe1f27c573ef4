"""Controllers compiled with numba for assembled robots: called inside the engine's sample hook, with
no return to Python (the Python controllers of :mod:`.controller` cost ~5 µs a call; these nothing
but their own work).

>>> @compiled_controller
... def pd(t, sensors, params, commands):      # sensordata (nch,), params (ncp,), commands (nact,)
...     for j in range(commands.shape[0]):
...         commands[j] = params[0] * (params[1 + j] - sensors[j]) - params[2] * sensors[3 + j]
>>> robot.simulate(1.0, pd, controller_params=[kp, q1, q2, q3, kd])

``sensors`` is the robot's sensordata (the held measurements, channels in ``Robot.channels`` order),
``params`` the ``controller_params`` given to :meth:`Robot.simulate`, and ``commands`` arrives holding
the commands in force (one per actuator) and leaves holding the new ones. It runs every control
period at exact sample instants, after the sensors have sampled; bad commands stop the run naming the
actuator, as with a Python controller; a solenoid whose command changes is scheduled to switch one
latency later, as the Python command writer does.

A controller that keeps values from one sample to the next (an integral, a previous error, a tick
count) takes a fifth argument, its *memory*::

    @compiled_controller
    def pi(t, sensors, params, commands, memory):   # memory (nm,): [integral]
        e = params[1] - sensors[0]
        memory[0] += e * params[2]
        commands[0] = params[0] * (e + memory[0])

    robot.simulate(1.0, pi, controller_params=[kp, q_ref, dt], controller_memory=[0.0])

The memory is bookkeeping states of the run (``ctrl_m<k>``, after the robot's states, starting at
``controller_memory``), so the records hold it and a run continued from a recorded state
(``x0=res.x[-1]``) continues it. Name the values and give them ranges, and a run's parameters can be
set by name (checked)::

    robot.simulate(1.0, pi, controller_params=[kp, q_ref, dt], controller_memory=[0.0],
                   param_names=("kp", "q_ref", "dt"), param_ranges={"kp": positive("V/rad")},
                   memory_names=("integral",), params={"kp": 2.0})

A parameter that sizes or indexes the controller's arrays (a count, a channel) gets ``choice(<its value>)``:
another value would make the compiled code read or write past them (DESIGN "Bad input").
"""

from __future__ import annotations

import hashlib
import inspect
import re
import types
from pathlib import Path
from typing import Any

import numba as nb

from .._compiling import assembly_hooks
from ..hybrid import signatures as hs
from . import _layout as L

__all__ = ["CONTROLLER_SIG", "MEMORY_SIG", "compiled_controller", "is_compiled_controller", "takes_memory",
           "sample_hook"]

_ARR = nb.types.float64[::1]
CONTROLLER_SIG = nb.types.void(nb.types.float64, _ARR, _ARR, _ARR)
"""``controller(t, sensors, params, commands) -> None`` (see the module docstring)."""
MEMORY_SIG = nb.types.void(nb.types.float64, _ARR, _ARR, _ARR, _ARR)
"""``controller(t, sensors, params, commands, memory) -> None``: a controller with a memory."""


def compiled_controller(fn):
    """Compile ``fn`` as a controller for assembled robots (numba, cached): ``fn(t, sensors, params,
    commands)`` (:data:`CONTROLLER_SIG`) or, keeping a memory, ``fn(t, sensors, params, commands,
    memory)`` (:data:`MEMORY_SIG`); see the module docstring."""
    from ..errors import InputError

    try:
        n = len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        n = -1
    if n not in (4, 5):
        raise InputError(f"compiled_controller: {getattr(fn, '__name__', fn)!r} takes {n} arguments, "
                         "expected (t, sensors, params, commands) or (t, sensors, params, commands, memory)")
    return nb.njit(CONTROLLER_SIG if n == 4 else MEMORY_SIG, cache=True, nogil=True)(fn)


def _compiled_as(fn, sig) -> bool:
    sigs = getattr(fn, "signatures", None)
    return sigs is not None and sig.args in [tuple(sg) for sg in sigs]


def is_compiled_controller(fn) -> bool:
    """Whether ``fn`` was compiled with :func:`compiled_controller`."""
    return _compiled_as(fn, CONTROLLER_SIG) or _compiled_as(fn, MEMORY_SIG)


def takes_memory(fn) -> bool:
    """Whether the compiled controller ``fn`` keeps a memory (its fifth argument)."""
    return _compiled_as(fn, MEMORY_SIG)


@hs.njit_helper
def schedule_valves(p, t, x, x_new):
    """A solenoid whose command the controller just changed switches one latency (open or close) later."""
    xu = int(p[L.P_XU])
    oa = int(p[L.P_OA])
    for a in range(int(p[L.P_NACT])):
        o = oa + L.AW * a
        if int(p[o + L.A_TYPE]) == L.ACT_SOLENOID and x_new[xu + a] != x[xu + a]:
            b = int(p[o + L.SO_BLOCK])
            lat = p[b + L.SB_T_OPEN] if x_new[xu + a] > 0.5 else p[b + L.SB_T_CLOSE]
            x_new[int(p[o + L.A_STATE]) + 3] = t + lat


_HOOKS: dict = {}

_STEP: Any = None
"""Where :func:`_controller_step` and :func:`_controller_sample` find the controller: each compiled copy
of them (:func:`_bound`) has its own globals holding it here."""
H: Any = None
"""Where :func:`_controller_sample` finds the assembly's hooks (:mod:`._hooks`): set in each copy's globals
by :func:`_bound`, so that importing this module compiles nothing (legsim._compiling.assembly_hooks)."""


def _controller_step(t, sensors, params, commands, memory):  # a template: see _bound
    """A controller without a memory, called as one with (:data:`MEMORY_SIG`)."""
    _STEP(t, sensors, params, commands)


def _controller_sample(t, x, p, mode, k, x_new):  # a template: see _bound
    """The assembly's sample hook, then every ``P_CEVERY`` ticks the controller (``_STEP``, taking a
    memory) on views of the sensordata, its parameters, the held commands and its memory."""
    m = H.robot_sample(t, x, p, mode, k, x_new)
    if k % int(p[L.P_CEVERY]) == 0:
        xy, nch = int(p[L.P_XY]), int(p[L.P_NCH])
        xu, na = int(p[L.P_XU]), int(p[L.P_NACT])
        oc, nc = int(p[L.P_OCP]), int(p[L.P_NCP])
        xm, nm = int(p[L.P_XM]), int(p[L.P_NM])
        _STEP(t, x_new[xy:xy + nch], p[oc:oc + nc], x_new[xu:xu + na], x_new[xm:xm + nm])
        schedule_valves(p, t, x, x_new)
    return m


def _identity(controller) -> str | None:
    """A name for ``controller`` that is the same in every process and changes with its source file:
    its qualified name and a hash of its file's bytes (None without a source file: a REPL's)."""
    py = getattr(controller, "py_func", controller)
    try:
        data = Path(inspect.getfile(py)).read_bytes()
    except (TypeError, OSError):
        return None
    digest = hashlib.sha256(data + py.__module__.encode() + py.__qualname__.encode()).hexdigest()[:12]
    return re.sub(r"\W", "_", f"{py.__module__}_{py.__qualname__}") + "_" + digest


def _bound(template, sig, controller, ident: str | None):
    """``template`` compiled with ``sig`` and its ``_STEP`` bound to ``controller``: a copy of the function
    with its own globals, named after the controller (``ident``), so that numba caches it on disk under
    that name. (A closure over the controller was compiled anew in every process, ~3 s with the
    assembly's sample hook, and written to the cache each time under a new key: numba keys a closure by
    its cells, and a dispatcher pickles with a per-process id.) Without ``ident`` it is not cached."""
    glb = dict(template.__globals__, _STEP=controller, H=assembly_hooks())
    fn = types.FunctionType(template.__code__, glb, template.__name__)
    fn.__qualname__ = f"{template.__name__}_{ident}" if ident else template.__name__
    return nb.njit(sig, cache=ident is not None, nogil=True)(fn)


def sample_hook(controller):
    """The assembly's sample hook followed by ``controller`` every ``P_CEVERY`` ticks (compiled once per
    controller, cached on disk; a controller without a memory is called through an adapter that takes
    one). The controller sees the sensordata, its parameters, the held commands and its memory
    (``P_XM``, ``P_NM``: empty without one) as views of ``x_new`` and ``p``."""
    hook = _HOOKS.get(controller)
    if hook is None:
        ident = _identity(controller)
        step = controller if takes_memory(controller) else _bound(_controller_step, MEMORY_SIG, controller,
                                                                   ident)
        hook = _bound(_controller_sample, hs.SAMPLE_SIG, step, ident)
        _HOOKS[controller] = hook
    return hook
