"""Borrowed (non-reference-counted) array views for compiled loops (numba intrinsics).

Every array a numba function receives, rebinds or slices costs an atomic increment and decrement
of its reference count; numba cannot prune them across loops and calls. In the hybrid engine that
was ~20 % of a SLIP run; in the rigid-body kernels, whose loops take per-body views
(``d.liR[i]``, ``m.body_I[i]``...), a third of an ABA pass. A *borrowed* array is the same array
with its memory-info pointer set to null: numba then skips the counting for it and for every view
made from it.

Only for arrays that outlive every use of the borrowed value: the arguments of the compiled
function doing the borrowing, which its caller holds for the whole call. Never return a borrowed
array or store it anywhere that outlives the call.

With ``NUMBA_DISABLE_JIT=1`` both functions return their argument unchanged.
"""

from __future__ import annotations

import numba
from llvmlite import ir
from numba import types as T
from numba.core import errors
from numba.extending import intrinsic

__all__ = ["borrow", "borrow_all"]


def _members(ty) -> list:
    """Element types of a numba tuple type (every concrete tuple type is iterable)."""
    return list(ty)


def _plain(ty) -> bool:
    """Types a borrowed tuple may hold: arrays, scalars and (nested) tuples of them."""
    if isinstance(ty, T.Array | T.Number | T.Boolean):
        return True
    if isinstance(ty, T.BaseTuple):
        return all(_plain(t) for t in _members(ty))
    return False


def _borrow_value(builder, ty, val):
    if isinstance(ty, T.Array):
        return builder.insert_value(val, ir.Constant(val.type.elements[0], None), 0)
    if isinstance(ty, T.BaseTuple):
        for i, ti in enumerate(_members(ty)):
            val = builder.insert_value(val, _borrow_value(builder, ti, builder.extract_value(val, i)), i)
    return val


if getattr(numba.config, "DISABLE_JIT", False):  # pragma: no cover - pure-Python runs
    def borrow(a):
        """Pure-Python twin of the compiled :func:`borrow`: the array itself."""
        return a

    def borrow_all(t):
        """Pure-Python twin of the compiled :func:`borrow_all`: the tuple itself."""
        return t
else:
    @intrinsic
    def borrow(typingctx, a):
        """A view of array ``a`` that numba does not reference-count (its meminfo is null)."""
        if not isinstance(a, T.Array):
            raise errors.TypingError(f"borrow() takes an array, got {a}")

        def codegen(context, builder, sig, args):
            return _borrow_value(builder, sig.args[0], args[0])
        return a(a), codegen

    @intrinsic
    def borrow_all(typingctx, t):
        """The (named) tuple ``t`` with every array in it borrowed (see :func:`borrow`)."""
        if not (isinstance(t, T.BaseTuple) and _plain(t)):
            raise errors.TypingError(f"borrow_all() takes a tuple of arrays and scalars, got {t}")

        def codegen(context, builder, sig, args):
            return _borrow_value(builder, sig.args[0], args[0])
        return t(t), codegen
