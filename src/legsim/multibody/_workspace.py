"""The compiled helpers behind :mod:`.hybrid_model`'s parameter layout: a multibody model's arrays
viewed from a hook's parameter vector, and the joint PD torques.

They live apart from :mod:`.hybrid_model`, whose hooks are compiled when it is imported (eager
signatures, ~27 s with an empty cache), so that robots which only need these helpers (the CRR leg
and quadruped, the event-contact world, the assembly layer) do not compile hooks they never call.
Parameter layout: see :mod:`.hybrid_model`.
"""

from __future__ import annotations

import numpy as np

from ..hybrid import signatures as hs
from ._layout import data_buffer_size, data_from_buffer, model_from_buffers

__all__ = ["model_workspace", "workspace", "joint_torques"]


@hs.njit_helper
def model_workspace(p, of, nf, ni, nextra):
    """``(m, d, extra)`` for a hook whose parameter vector ``p`` holds a multibody model's flat
    buffers at ``p[of:of + nf]`` (``fbuf``) and ``p[of + nf:of + nf + ni]`` (``ibuf`` as exact
    floats): the model arrays viewed from ``p``, a fresh data workspace and ``nextra`` float64 of
    scratch — one allocation (float scratch, then the int64 copy of ``ibuf``, then ``extra``)."""
    oi = of + nf
    nb = int(p[oi])
    nv = int(p[oi + 1])
    dsize = data_buffer_size(nb, nv)
    buf = np.empty(dsize + ni + nextra)
    ib = buf.view(np.int64)[dsize:dsize + ni]
    for k in range(ni):
        ib[k] = int(p[oi + k])
    m = model_from_buffers(p[of:oi], ib)
    d = data_from_buffer(buf[:dsize], nb, nv)
    return m, d, buf[dsize + ni:]


@hs.njit_helper
def workspace(p):
    """``(m, d, nq, nv, na)``: model arrays viewed from ``p`` and a fresh data workspace
    (:func:`model_workspace` of this module's parameter layout)."""
    nq = int(p[0])
    nv = int(p[1])
    na = int(p[2])
    m, d, _ = model_workspace(p, 5 + 5 * na, int(p[3]), int(p[4]), 0)
    return m, d, nq, nv, na


@hs.njit_helper
def joint_torques(m, p, x, nq, nv, na, tau):
    """PD + feed-forward torque (nv,) of every 1-DoF joint toward the constant targets ``q_ref_<joint>``
    (free-joint DoFs get 0): ``ff + kp (q_ref - q) + kd (v_ref - v)``."""
    j = 0
    for k in range(nv):
        qa = m.dof_qposadr[k]
        if qa < 0:
            tau[k] = 0.0
            continue
        kp = p[5 + j]
        kd = p[5 + na + j]
        qr = p[5 + 2 * na + j]
        vr = p[5 + 3 * na + j]
        ff = p[5 + 4 * na + j]
        tau[k] = ff + kp * (qr - x[qa]) + kd * (vr - x[nq + k])
        j += 1
