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

__all__ = ["borrow", "borrow_all", "view_c"]


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

    def view_c(a, shape):
        """Pure-Python twin of the compiled :func:`view_c`: ``a.reshape(shape)``."""
        return a.reshape(shape)
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

    @intrinsic
    def view_c(typingctx, a, shape):
        """``a.reshape(shape)`` for a C-contiguous 1-D array ``a`` whose size the caller guarantees to
        be ``prod(shape)``, without numba's run-time reshape check (a C call per reshape: 29 of
        them were ~1 µs of every hook call that views a multibody model from its flat buffers)."""
        if not (isinstance(a, T.Array) and a.ndim == 1 and a.layout == "C"):
            raise errors.TypingError(f"view_c() takes a C-contiguous 1-D array, got {a}")
        if not (isinstance(shape, T.UniTuple) and isinstance(shape.dtype, T.Integer)):
            raise errors.TypingError(f"view_c() takes a tuple of integers as shape, got {shape}")
        ndim = shape.count
        ret = T.Array(a.dtype, ndim, "C")

        def codegen(context, builder, sig, args):
            from numba.core import cgutils
            from numba.core.imputils import impl_ret_borrowed
            from numba.np.arrayobj import make_array, populate_array

            src = make_array(sig.args[0])(context, builder, args[0])
            out = make_array(ret)(context, builder)
            intp = context.get_value_type(T.intp)
            dims = [builder.sext(d, intp) if d.type.width < intp.width else d
                    for d in cgutils.unpack_tuple(builder, args[1], ndim)]
            strides = []
            step = src.itemsize
            for dim in reversed(dims):
                strides.insert(0, step)
                step = builder.mul(step, dim)
            populate_array(out, data=src.data, shape=dims, strides=strides, itemsize=src.itemsize,
                           meminfo=src.meminfo, parent=src.parent)
            return impl_ret_borrowed(context, builder, ret, out._getvalue())
        return ret(a, shape), codegen
