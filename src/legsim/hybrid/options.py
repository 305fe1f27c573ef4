"""Integrator options (DESIGN.md §5: options are typed data, never module globals)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum

import numpy as np

from ..errors import InputError, check_fields, check_flag, check_whole
from . import _layout as L

__all__ = ["Method", "Options"]


class Method(IntEnum):
    """Continuous integrators.

    DP45: adaptive Dormand–Prince 5(4) with dense output (error per ``rtol``/``atol``).
    RK4: SimSect's adaptive classical RK4; error by step doubling, max-norm, absolute, against
    ``tolerance``; next step h·0.9·(tolerance/err)^``power`` clamped to [0.1 h, 5 h].
    RK4_FIXED: classical RK4 with the constant step ``h_max``.
    DP5_FIXED: the Dormand–Prince 5th-order solution with the constant step ``h_max`` and no error
    control (Simulink's fixed-step ode5, the solver of Daepp's xPC model, digest §3.5); records
    and events use its dense output.
    EULER: explicit (forward) Euler with the constant step ``h_max`` (first order).
    ROS23: the linearly implicit Rosenbrock 2(3) pair of MATLAB's ode23s (Shampine & Reichelt 1997),
    compiled: L-stable, for models made stiff by regularised friction, stiff contacts or fast loops;
    error per ``rtol``/``atol`` as DP45; a forward-difference Jacobian (nx + 1 evaluations) kept
    for several steps (:data:`legsim.hybrid._steppers.JAC_MAX_AGE`, across sample instants too) and
    re-evaluated after every event and every rejected step.
    RADAU, BDF: scipy's implicit stiff solvers (``solve_ivp`` "Radau", "BDF"; ``rtol``/``atol``,
    ``h_max`` as max_step), run between events by :mod:`legsim.hybrid.stiff` on the same hooks.

    All fixed-step methods shorten a step to land on a sample instant or the final time, and
    locate events inside a step as the adaptive ones do.
    """

    DP45 = L.M_DP45
    RK4 = L.M_RK4
    RK4_FIXED = L.M_RK4_FIXED
    DP5_FIXED = L.M_DP5_FIXED
    EULER = L.M_EULER
    RADAU = L.M_RADAU
    BDF = L.M_BDF
    ROS23 = L.M_ROS23

    @property
    def stiff(self) -> bool:
        """True for scipy's implicit solvers (not run by the compiled kernel)."""
        return self in (Method.RADAU, Method.BDF)


_METHOD_NAMES = {"dp45": Method.DP45, "rk45": Method.DP45, "dopri5": Method.DP45,
                 "rk4": Method.RK4, "rk4_fixed": Method.RK4_FIXED, "dp5_fixed": Method.DP5_FIXED,
                 "ode5": Method.DP5_FIXED, "euler": Method.EULER, "radau": Method.RADAU,
                 "bdf": Method.BDF, "ros23": Method.ROS23, "ode23s": Method.ROS23}


@dataclass(frozen=True)
class Options:
    """How to integrate a hybrid model.

    Parameters
    ----------
    method : "dp45" | "rk4" | "rk4_fixed" | "dp5_fixed" (alias "ode5") | "euler" | "ros23" (alias
        "ode23s") | "radau" | "bdf" (or a :class:`Method`).
    rtol, atol : DP45 (and ROS23, Radau/BDF) relative/absolute tolerances.
    tolerance, power : SimSect adaptive RK4 state-error tolerance and step exponent.
    h_min, h_max : step bounds [s]; ``h_max`` is the step of "rk4_fixed", "dp5_fixed" and "euler",
        and the max_step of "radau" and "bdf".
    h0 : first step [s]; 0 chooses one automatically.
    stop_precision : event location precision in guard value (SimSect ``stopPrecision``).
    max_stop_iter : iterations allowed to locate one event (``maxStopIter``).
    max_transitions : events (transition maps applied, into a new mode or the same one) allowed
        before the run stops as chattering (0 = no limit; SimSect ``maxChartCount``). More than
        1000 events in a row at one instant stop the run as Zeno/chattering whatever this says.
    record_period : record at exact multiples of this period [s]; 0 records every step.
    sample_period : period of the model's sampled controller [s]; 0 = no sampled controller.
    sliding : integrate Filippov sliding motions instead of chattering across a guard.
    sliding_tolerance : how close to zero a guard must be, and how little a return reset may
        change the state, for a pair of events to count as a sliding motion.
    check_every_step : call the model's ``check`` hook after every step (always after events).
    restart_step_after_event : after an event that changes the mode, choose the next DP45 step
        afresh (Hairer–Nørsett–Wanner starting step, as a restarted ``solve_ivp`` does). False
        (default) keeps the step the controller proposed: when it is too long for the new mode's
        dynamics the error control rejects and shrinks it, which costs less than the restart's
        extra evaluation and slow regrowth (SLIP: 15 % fewer steps, same accuracy class).
    wall_time_limit : stop the run after this much wall time [s] (0 = no limit), keeping its records,
        with status ``"wall_time_limit"``: checked each time the engine returns to Python, and able to
        stop a Python controller that never returns (a SIGALRM timer, in the main thread on POSIX, when
        no other real-time timer is set).
        Not for "radau" and "bdf".
    """

    method: str | Method = "dp45"
    rtol: float = 1e-8
    atol: float = 1e-10
    tolerance: float = 1e-4
    power: float = 0.33
    h_min: float = 1e-15
    h_max: float = 1e-2
    h0: float = 0.0
    stop_precision: float = 1e-10
    max_stop_iter: int = 128
    max_transitions: int = 1_000_000
    record_period: float = 0.0
    sample_period: float = 0.0
    sliding: bool = True
    sliding_tolerance: float = 1e-8
    check_every_step: bool = True
    restart_step_after_event: bool = False
    wall_time_limit: float = 0.0

    def __post_init__(self) -> None:
        m = self.method
        if isinstance(m, str):
            key = m.lower()
            if key not in _METHOD_NAMES:
                raise InputError(f"integrator method '{m}' is unknown; expected one of "
                                 f"{', '.join(sorted(_METHOD_NAMES))}")
            object.__setattr__(self, "method", _METHOD_NAMES[key])
        elif isinstance(m, (int, np.integer)) and not isinstance(m, bool) and int(m) in set(Method):
            object.__setattr__(self, "method", Method(m))
        else:
            raise InputError(f"integrator method {m!r} is unknown; expected one of "
                             f"{', '.join(sorted(_METHOD_NAMES))}")
        check_fields("integrator option", self,
                     positive=("rtol", "atol", "tolerance", "power", "h_min", "h_max", "stop_precision",
                               "sliding_tolerance"),
                     nonnegative=("h0", "record_period", "sample_period", "wall_time_limit"))
        if self.h_min > self.h_max:
            raise InputError(f"integrator options: h_min = {self.h_min} exceeds h_max = {self.h_max}")
        for name, least in (("max_stop_iter", 1), ("max_transitions", 0)):  # int64 slots of pack()
            object.__setattr__(self, name, check_whole("integrator option", name, getattr(self, name), least))
        for name in ("sliding", "check_every_step", "restart_step_after_event"):
            object.__setattr__(self, name, check_flag("integrator option", name, getattr(self, name)))

    @property
    def method_code(self) -> Method:
        """The integrator as a :class:`Method` (``method`` may have been given as a name)."""
        return self.method if isinstance(self.method, Method) else _METHOD_NAMES[self.method.lower()]

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def as_dict(self) -> dict:
        """Plain name -> value dictionary (method as its lower-case name); a fresh copy each call."""
        cached = self.__dict__.get("_as_dict")
        if cached is None:
            cached = {f.name: getattr(self, f.name) for f in fields(self)}
            cached["method"] = self.method_code.name.lower()
            object.__setattr__(self, "_as_dict", cached)
        return dict(cached)

    def pack(self, t0: float, t_final: float, max_steps: int,
             yield_every: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Option vectors in the kernel's layout (fresh arrays; the kernel only reads them).
        ``yield_every`` > 0 hands every sample instant k with k % yield_every == 0 to Python."""
        key = (t0, t_final, max_steps, yield_every)
        cache = self.__dict__.get("_packed")
        if cache is not None and cache[0] == key:
            return cache[1].copy(), cache[2].copy()
        f, i = self._pack(t0, t_final, max_steps)
        i[L.OI_YIELD_EVERY] = yield_every
        object.__setattr__(self, "_packed", (key, f, i))
        return f.copy(), i.copy()

    def _pack(self, t0: float, t_final: float, max_steps: int) -> tuple[np.ndarray, np.ndarray]:
        f = np.zeros(L.N_OPTF)
        f[L.OF_T0] = t0
        f[L.OF_TF] = t_final
        f[L.OF_RTOL] = self.rtol
        f[L.OF_ATOL] = self.atol
        f[L.OF_TOL] = self.tolerance
        f[L.OF_POWER] = self.power
        f[L.OF_HMIN] = self.h_min
        f[L.OF_HMAX] = self.h_max
        f[L.OF_H0] = self.h0
        f[L.OF_STOP_PREC] = self.stop_precision
        f[L.OF_REC_PERIOD] = self.record_period
        f[L.OF_SAMPLE_PERIOD] = self.sample_period
        f[L.OF_SLIDE_TOL] = self.sliding_tolerance
        i = np.zeros(L.N_OPTI, dtype=np.int64)
        i[L.OI_METHOD] = int(self.method_code)
        i[L.OI_MAX_STOP_ITER] = self.max_stop_iter
        i[L.OI_MAX_TRANS] = self.max_transitions
        i[L.OI_SLIDING] = int(bool(self.sliding))
        i[L.OI_MAX_STEPS] = max_steps
        i[L.OI_CHECK_STEPS] = int(bool(self.check_every_step))
        i[L.OI_RESTART_STEP] = int(bool(self.restart_step_after_event))
        return f, i
