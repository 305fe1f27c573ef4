"""Calling a compiled function again and again with arguments of the same types, without numba's dispatch.

A numba dispatcher types every argument at every call to pick its overload (~0.1 µs an argument; the
assembly's hooks bundle, a StructRef, ~0.6 µs). A loop that calls the same function with the same objects,
or objects of the same types, at each tick (the engine re-entered after a Python controller, RATS's compiled
rolling tick) can look the overload up once and call its compiled entry: the wrapper that unboxes the
arguments as that overload's types (it refuses an object that is not of them) and runs the machine code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["entry_point"]


def entry_point(dispatcher: Any, args: tuple) -> Callable[..., Any]:
    """The compiled entry of ``dispatcher``'s overload for ``args``, to call as the dispatcher is called,
    once a call with ``args`` has run (it compiled or loaded that overload); ``dispatcher`` itself when it
    has no overload for their types, or is not a dispatcher (``NUMBA_DISABLE_JIT``: a Python function).

    With one overload, that call ran it: it is taken without typing ``args`` (typing the engine's 15
    arguments and hashing their types costs ~0.1 ms, a third of a whole SLIP run)."""
    overloads = getattr(dispatcher, "overloads", None)
    if not overloads:
        return dispatcher
    if len(overloads) == 1:  # (dict.values: an OrderedDict's own iteration hashes its keys, 10 µs here)
        return next(iter(dict.values(overloads))).entry_point
    from numba import typeof

    compiled = overloads.get(tuple(typeof(a) for a in args))
    return dispatcher if compiled is None else compiled.entry_point
