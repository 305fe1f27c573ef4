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
"""

from __future__ import annotations

import numba as nb

from ..hybrid import signatures as hs
from . import _hooks as H
from . import _layout as L

__all__ = ["CONTROLLER_SIG", "compiled_controller", "is_compiled_controller", "sample_hook"]

_ARR = nb.types.float64[::1]
CONTROLLER_SIG = nb.types.void(nb.types.float64, _ARR, _ARR, _ARR)
"""``controller(t, sensors, params, commands) -> None`` (see the module docstring)."""


def compiled_controller(fn):
    """Compile ``fn`` as a controller for assembled robots (numba, :data:`CONTROLLER_SIG`, cached)."""
    return nb.njit(CONTROLLER_SIG, cache=True, nogil=True)(fn)


def is_compiled_controller(fn) -> bool:
    """Whether ``fn`` was compiled with :func:`compiled_controller`."""
    sigs = getattr(fn, "signatures", None)
    return sigs is not None and CONTROLLER_SIG.args in [tuple(sg) for sg in sigs]


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


def sample_hook(controller):
    """The assembly's sample hook followed by ``controller`` every ``P_CEVERY`` ticks (compiled once
    per controller and process: a closure)."""
    hook = _HOOKS.get(controller)
    if hook is None:
        def sample(t, x, p, mode, k, x_new):
            m = H.robot_sample(t, x, p, mode, k, x_new)
            if k % int(p[L.P_CEVERY]) == 0:
                xy, nch = int(p[L.P_XY]), int(p[L.P_NCH])
                xu, na = int(p[L.P_XU]), int(p[L.P_NACT])
                oc, nc = int(p[L.P_OCP]), int(p[L.P_NCP])
                controller(t, x_new[xy:xy + nch], p[oc:oc + nc], x_new[xu:xu + na])
                schedule_valves(p, t, x, x_new)
            return m

        hook = hs.sample(sample)
        _HOOKS[controller] = hook
    return hook
