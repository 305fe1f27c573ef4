"""The arguments of a fixed-step run of the contact worlds (:class:`legsim.contact.RigidWorld`,
:class:`legsim.world.RobotWorld`), checked before anything is allocated or compiled."""

from __future__ import annotations

import math

from ..errors import InputError, check_number, check_whole

__all__ = ["MAX_RECORD_BYTES", "MAX_DURATION", "MAX_STEPS", "fixed_steps"]

MAX_RECORD_BYTES = 4 * 2**30
"""The most memory a run's records may take [bytes]; a longer run records every n-th step."""

MAX_DURATION = 1e7
"""The longest run [s] (about 116 days of simulated time)."""

MAX_STEPS = 10**10
"""The most steps of one run (hours of a compiled loop that Ctrl-C cannot stop; call simulate again to go
on, it continues from where the last call ended)."""


def fixed_steps(owner: str, t_final, dt, record_every, record_bytes: int) -> tuple[int, int, int]:
    """``(nsteps, every, nrec)`` of a run of ``t_final`` [s] at the step ``dt`` [s] that records every
    ``record_every`` steps, each record ``record_bytes`` bytes (the caller's record size, a whole number
    in [1, :data:`MAX_RECORD_BYTES`]); else an :class:`InputError` naming ``owner`` and the argument: a
    duration or step that is not a finite number > 0 (at most :data:`MAX_DURATION`), a step longer than the
    run, more than :data:`MAX_STEPS` steps, a ``record_every`` that is not a whole number >= 1, or records
    beyond :data:`MAX_RECORD_BYTES` (the message gives the ``record_every`` that fits)."""
    t_final = check_number(owner, "t_final", t_final, lo=0.0, lo_open=True, hi=MAX_DURATION)
    dt = check_number(owner, "dt", dt, lo=0.0, lo_open=True, hi=MAX_DURATION)
    every = check_whole(owner, "record_every", record_every, 1, MAX_STEPS)
    record_bytes = check_whole(owner, "record_bytes", record_bytes, 1, MAX_RECORD_BYTES)
    steps = t_final / dt  # inf for a subnormal dt: more than MAX_STEPS, refused below
    nsteps = round(steps) if math.isfinite(steps) else steps
    if nsteps < 1:
        raise InputError(f"{owner} 't_final' = {t_final!r} s is shorter than one step dt = {dt!r} s")
    if nsteps > MAX_STEPS:
        raise InputError(f"{owner}: t_final = {t_final!r} s at dt = {dt!r} s is {nsteps:.4g} steps, "
                         f"expected at most {MAX_STEPS:.0e} in one call (simulate again to continue)")
    nrec = (nsteps + every - 1) // every
    if nrec * record_bytes > MAX_RECORD_BYTES:
        fits = math.ceil(nsteps * record_bytes / MAX_RECORD_BYTES)
        raise InputError(f"{owner}: {nsteps:.4g} steps recorded every {every} would take "
                         f"{nrec * record_bytes / 2**30:.4g} GiB of records, expected at most "
                         f"{MAX_RECORD_BYTES / 2**30:g} GiB: record_every={fits} or more")
    return nsteps, every, nrec
