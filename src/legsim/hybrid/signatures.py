"""The compiled contract between a hybrid model and the engine.

A legsim hybrid model is six small functions, each compiled by numba with one of the
fixed signatures below. Because the signatures never change, the engine loop is compiled
once, cached on disk, and called with any model's functions as first-class function
values (``numba.types.FunctionType``): a new model costs only the compilation of its own
functions, and a second process pays nothing.

Arguments shared by every hook (SI units throughout):

``t``     float, time [s]
``x``     float64[nx], the state: continuous states first, then bookkeeping states that
          change only at events (SimSect convention, digest §1.8)
``p``     float64[np], parameters (read-only by convention)
``mode``  int64, the discrete mode ("chart" in SimSect). Any non-negative integer; models
          with many modes encode them in bits (the hexapod uses 6 stance bits + 12 phase bits)

The hooks (decorate them with the decorator of the same name):

``vector_field(t, x, p, mode, xdot) -> None``
    Write dx/dt into ``xdot`` (float64[nx]). A *pure* function of its arguments: it is
    called at Runge–Kutta stages and during event location, out of chronological order.
``guards(t, x, p, mode, g) -> None``
    Write the value of every guard (boundary function) into ``g`` (float64[nguard]).
    A guard that does not apply in ``mode`` is written as NaN (``INACTIVE``). The patch of a
    mode is where its active guards are positive (SimSect §3.1); an event happens when a
    guard crosses zero in its declared direction.
``reset(t, x, p, mode, fired, x_new) -> int``
    Called at an event. ``fired`` (int64[nguard]) is 1 for each guard that crossed at this
    event (several when events coincide). ``x_new`` arrives holding a copy of ``x``; write
    the post-event state into it. Return the new mode (``mode`` itself for an event that
    changes no mode), or a negative model error code.
``outputs(t, x, p, mode, y) -> None``
    Write the auxiliary outputs (SimSect ``AuxFunc``) into ``y`` (float64[ny]).
``sample(t, x, p, mode, k, x_new) -> int``
    A discrete controller called exactly at t = t0 + k * sample_period (k = 0, 1, ...).
    ``x_new`` holds a copy of ``x``; write the controller's bookkeeping states into it and
    return the new mode (or a negative model error code).
``check(t, x, p, mode) -> int``
    Validate the state against the mode (SimSect ``ValidateChart``): 0 when consistent,
    else a positive model error code whose message the model supplies.

Speed: a hook that creates no array or list, itself or in the helpers it calls, can be declared
so with ``@vector_field(allocates=False)`` (and likewise for the others). It is then compiled
without numba's reference counting: numba otherwise leaves an atomic increment/decrement pair
per array argument in the hook, which costs ~6 % of a SLIP run. A declared hook that does
allocate is refused at import with a message that names it and where it allocates.
"""

from __future__ import annotations

import re

import numba as nb
from numba import types

__all__ = [
    "INACTIVE",
    "FLOW_SIG",
    "GUARD_SIG",
    "RESET_SIG",
    "OUTPUT_SIG",
    "SAMPLE_SIG",
    "CHECK_SIG",
    "vector_field",
    "guards",
    "reset",
    "outputs",
    "sample",
    "check",
    "njit_helper",
]

INACTIVE = float("nan")
"""Guard value meaning "this guard does not apply in this mode"."""

_F8 = types.float64
_ARR = types.float64[::1]
_IARR = types.int64[::1]
_I8 = types.int64

FLOW_SIG = types.void(_F8, _ARR, _ARR, _I8, _ARR)
GUARD_SIG = types.void(_F8, _ARR, _ARR, _I8, _ARR)
RESET_SIG = types.int64(_F8, _ARR, _ARR, _I8, _IARR, _ARR)
OUTPUT_SIG = types.void(_F8, _ARR, _ARR, _I8, _ARR)
SAMPLE_SIG = types.int64(_F8, _ARR, _ARR, _I8, _I8, _ARR)
CHECK_SIG = types.int64(_F8, _ARR, _ARR, _I8)

FLOW_T = types.FunctionType(FLOW_SIG)
GUARD_T = types.FunctionType(GUARD_SIG)
RESET_T = types.FunctionType(RESET_SIG)
OUTPUT_T = types.FunctionType(OUTPUT_SIG)
SAMPLE_T = types.FunctionType(SAMPLE_SIG)
CHECK_T = types.FunctionType(CHECK_SIG)


def _decorator(sig, kind: str):
    def deco(fn=None, *, allocates: bool = True):
        if fn is None:  # used as @hook(allocates=False)
            return lambda f: _compile(f, sig, kind, allocates)
        return _compile(fn, sig, kind, allocates)

    deco.__doc__ = (f"Compile a model's {kind} hook with signature {sig} (numba, cached on disk). "
                    f"Use as ``@{kind}``, or ``@{kind}(allocates=False)`` for a hook that creates "
                    "no array or list (see the module documentation).")
    return deco


def _compile(fn, sig, kind: str, allocates: bool):
    """Compile one hook. ``allocates=False`` declares that the hook (and every helper it calls)
    creates no array: it is then compiled without numba's reference counting, which saves the
    atomic increment/decrement pairs numba otherwise leaves on array arguments in the hook's
    prologue and exits (SLIP: ~6 % of the run). A hook that does allocate is refused at import
    with a message naming it (numba's own error would name neither the hook nor the remedy)."""
    if allocates:
        return nb.njit(sig, cache=True, nogil=True)(fn)
    try:
        # _nrt is a numba target option its type stubs do not list
        return nb.njit(sig, cache=True, nogil=True, _nrt=False)(fn)  # type: ignore[call-overload]
    except nb.core.errors.NumbaError as exc:
        # numba marks up its messages with terminal escapes (bold) when TERM is set: drop them
        lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in str(exc).splitlines()]
        what = next((ln for ln in lines if ln.startswith(("No implementation", "NRT required"))),
                    lines[0])
        where = next((ln[ln.rfind(" at ") + 4:] for ln in lines
                      if ln.startswith("During: lowering") and " at " in ln), "")
        raise TypeError(f"{kind} hook '{fn.__module__}.{fn.__qualname__}' is declared "
                        f"allocates=False but creates an array or list (itself or in a helper it "
                        f"calls{', at ' + where if where else ''}): {what}. Remove allocates=False "
                        f"or preallocate the storage.") from None


vector_field = _decorator(FLOW_SIG, "vector_field")
guards = _decorator(GUARD_SIG, "guards")
reset = _decorator(RESET_SIG, "reset")
outputs = _decorator(OUTPUT_SIG, "outputs")
sample = _decorator(SAMPLE_SIG, "sample")
check = _decorator(CHECK_SIG, "check")


def njit_helper(fn):
    """Compile a helper that hooks call (numba ``njit``, cached on disk, signature inferred)."""
    return nb.njit(cache=True, nogil=True)(fn)


# Hooks a model may leave out.
@sample
def no_sample(t, x, p, mode, k, x_new):  # pragma: no cover - trivial
    """Default sampled controller: changes nothing."""
    return mode


@check
def no_check(t, x, p, mode):  # pragma: no cover - trivial
    """Default validity check: always valid."""
    return 0


@guards
def no_guards(t, x, p, mode, g):  # pragma: no cover - trivial
    """Default for models without events."""
    return None


@reset
def no_reset(t, x, p, mode, fired, x_new):  # pragma: no cover - trivial
    """Default reset: the state and mode are unchanged."""
    return mode
