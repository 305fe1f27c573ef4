"""Hook compilation: ``allocates=False`` (no reference counting) is checked and changes no result.

Not part of the NUMBA_DISABLE_JIT pass in .ci/run: with numba off nothing is compiled.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from legsim.hybrid import Options, simulate
from legsim.hybrid import signatures as hs
from legsim.robots import slip


def test_a_hook_declared_allocation_free_that_allocates_is_refused_naming_it():
    def field_with_scratch(t, x, p, mode, xdot):
        scratch = np.zeros(2)
        xdot[0] = scratch[0] + x[0]

    with pytest.raises(TypeError) as info:
        hs.vector_field(allocates=False)(field_with_scratch)
    msg = str(info.value)
    assert "vector_field hook" in msg and "field_with_scratch" in msg
    assert "allocates=False" in msg and "zeros" in msg


def test_a_hook_that_builds_a_list_is_refused_with_where_it_does_so():
    def reset_with_list(t, x, p, mode, fired, x_new):
        picks = [i for i in range(fired.size) if fired[i]]
        x_new[0] = len(picks)
        return mode

    with pytest.raises(TypeError) as info:
        hs.reset(allocates=False)(reset_with_list)
    msg = str(info.value)
    assert "reset hook" in msg and "reset_with_list" in msg
    assert "NRT required" in msg and "test_hooks_compile.py" in msg


def test_allocation_free_hooks_give_the_same_run_bit_for_bit():
    # the SLIP hooks are declared allocates=False; the same sources compiled the default way
    # (with reference counting; not cached, numba's cache index does not tell the two apart)
    # must give identical records and events
    fast = slip.build_model()
    default = slip.build_model()
    for name, hook, sig in (("vector_field", slip.slip_field, hs.FLOW_SIG),
                            ("guard_values", slip.slip_guards, hs.GUARD_SIG),
                            ("reset", slip.slip_reset, hs.RESET_SIG),
                            ("outputs", slip.slip_outputs, hs.OUTPUT_SIG),
                            ("check", slip.slip_check, hs.CHECK_SIG)):
        object.__setattr__(default, name, numba.njit(sig)(hook.py_func))
    assert fast.vector_field.targetoptions["_nrt"] is False
    assert "_nrt" not in default.vector_field.targetoptions
    opts = Options(rtol=1e-9, atol=1e-11)
    a = simulate(fast, 3.0, options=opts)
    b = simulate(default, 3.0, options=opts)
    assert a.events.size >= 10
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.events["t"], b.events["t"])
