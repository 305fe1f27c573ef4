"""The compliant RHex-like hexapod of SimSect as a legsim hybrid model (digest §4).

>>> from legsim.hybrid import simulate
>>> from legsim.robots.rhex.model import build_model, default_options
>>> model = build_model()                      # Table 2 defaults + DEFAULT_GAIT, flat ground
>>> res = simulate(model, t_final=3.0, options=default_options())   # doctest: +SKIP

State (81): R_b (9, row-major, body→world), w_b in W (3), r_b (3), rdot_b (3), toes f_i (18),
toe velocities (18) = 54 mechanical states; 6 reference hip angles ``phi_ref{i}``; then
bookkeeping states of the clock (:mod:`.params`). Mode: stance bits 0–5 and 2 clock-phase bits
per leg in bits 6–17 (64 × 4096 modes). Guards: liftoff = 2·leg, touchdown = 2·leg + 1,
12 = clock half cycle, 13 + leg = slow/fast switch.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...errors import InputError, check_whole, lookup
from ...hybrid import Direction, Guard, Model, Options, Placement
from . import _hooks
from ._kinematics import leg_cart
from .controller import check_gait, initial_clock, phase_of
from .params import (
    HF_HEADER,
    NLEG,
    P_AX,
    P_J,
    P_QRT,
    P_TH_R0,
    PARAM_DEFAULTS,
    PARAM_NAMES,
    PARAM_RANGES,
    STATE_NAMES,
    X_POS,
    X_R,
    X_REF,
    X_TOE,
    X_TOEV,
    X_VEL,
    X_W,
    state_defaults,
)
from .terrain import HeightField, check_heightfield, terrain

__all__ = ["DEFAULT_GAIT", "OUTPUT_NAMES", "GUARD_NAMES", "build_model", "default_options",
           "mode_name", "stance_mask"]

DEFAULT_GAIT = {"t_c": 1.0, "t_s": 0.6, "phi_s": 0.8, "phi_0": 0.0, "kp": 30.0, "kd": 0.5}
"""Walking gait used by default: 1 Hz clock, duty factor 0.6, 0.8 rad stance sweep, vertical
mid-stance. The digest gives no controller defaults; with the Table 2 legs these walk straight
at ~0.31 m/s on flat ground (RHex: up to ~0.55 m/s). Faster clocks (t_c = 0.5 s) walk at
~0.65 m/s; turning in place is stable with a slower clock (t_c = 1.5 s, t_s = 0.9 s)."""

GUARD_NAMES = tuple(n for i in range(NLEG) for n in (f"liftoff{i}", f"touchdown{i}")) + (
    "clock_half_cycle",) + tuple(f"clock_switch{i}" for i in range(NLEG))

OUTPUT_NAMES = ("time", "x", "y", "z", "xdot", "ydot", "zdot", "roll", "pitch", "yaw",
                "w_x", "w_y", "w_z") + tuple(f"{n}{i}" for i in range(NLEG) for n in _hooks.LEG_OUTPUTS)


def stance_mask(mode: int) -> tuple[bool, ...]:
    """Stance flags of the six legs in ``mode`` (a whole number >= 0: bits 0–5)."""
    mode = check_whole("stance_mask", "mode", mode)
    return tuple(bool((mode >> i) & 1) for i in range(NLEG))


def stance_table(modes: np.ndarray) -> np.ndarray:
    """(n, 6) stance flags of an array of modes (bits 0–5), for gait diagrams."""
    m = np.asarray(modes, dtype=np.int64)
    return ((m[:, None] >> np.arange(NLEG)) & 1).astype(bool)


def mode_name(mode: int) -> str:
    """E.g. ``"stance 0,2,4 | phases 0 2 0 2 0 2"``."""
    st = ",".join(str(i) for i, s in enumerate(stance_mask(mode)) if s) or "none"
    ph = " ".join(str(int(phase_of(int(mode), i))) for i in range(NLEG))
    return f"stance {st} | phases {ph}"


def check_params(p: np.ndarray) -> None:
    """The rules that tie hexapod parameters together (per-name ranges: ``PARAM_RANGES``)."""
    check_heightfield(p)
    j = p[P_J:P_J + 9].reshape(3, 3)
    if not (np.allclose(j, j.T) and np.all(np.linalg.eigvalsh(0.5 * (j + j.T)) > 0)):
        raise InputError(f"parameters 'J_11'..'J_33' = {j.ravel().tolist()}: expected a symmetric "
                         "positive-definite inertia tensor [kg m^2]")
    check_gait(p)


def _place_toes(x: np.ndarray, p: np.ndarray, from_clock: bool) -> int:
    """Rest posture and stance classification (``hex_InitPartition``); returns stance bits."""
    r = x[X_R:X_R + 9].reshape(3, 3)
    pos = x[X_POS:X_POS + 3]
    w = x[X_W:X_W + 3]
    bits = 0
    for i in range(NLEG):
        k = X_TOE + 3 * i
        if from_clock:
            v = np.array(leg_cart(p[P_QRT], p[P_TH_R0 + i], x[X_REF + i]))
            a = np.array([p[P_AX + i], p[P_AX + NLEG + i], p[P_AX + 2 * NLEG + i]])
            x[k:k + 3] = r @ (v + a) + pos
            x[X_TOEV + 3 * i:X_TOEV + 3 * i + 3] = x[X_VEL:X_VEL + 3] + np.cross(w, x[k:k + 3] - pos)
        h, _, _ = terrain(p, x[k], x[k + 1])
        if x[k + 2] - h <= 0.0:
            bits |= 1 << i
            x[k + 2] = h
            x[X_TOEV + 3 * i:X_TOEV + 3 * i + 3] = 0.0
    return bits


def _make_init_partition(posture: str):
    def init_partition(x0: np.ndarray, p: np.ndarray):
        """Finalise the initial state and mode (``hex_InitPartition``, digest §4.8).

        Latches the clock for t0 = 0 (tripod A {0, 2, 4} at mid-stance, B at mid-flight), puts
        the toes at the alternating-tripod rest posture (legs of length ``q_rt`` at the clock's
        reference angles and lateral rest angles) when ``posture == "clock"`` (with
        ``"state"`` the toes of ``x0`` are kept), and marks as stance exactly the toes at or
        below the terrain, which are placed on it with zero velocity.
        """
        p = np.asarray(p, dtype=np.float64)  # checked by Model.params (check_params)
        x = np.array(x0, dtype=np.float64)
        r = x[X_R:X_R + 9].reshape(3, 3)
        if not np.allclose(r.T @ r, np.eye(3), atol=1e-6) or np.linalg.det(r) <= 0:
            raise InputError(f"initial state 'R_11'..'R_33' = {r.ravel().tolist()}: expected a "
                             "rotation matrix (orthonormal, det +1)")
        h, _, _ = terrain(p, x[X_POS], x[X_POS + 1])
        if x[X_POS + 2] <= h:
            raise InputError(f"initial state 'z' = {x[X_POS + 2]:g}: the body must start above the "
                             f"terrain (height {h:g} m there)")
        mode = initial_clock(p, x)
        mode |= _place_toes(x, p, posture == "clock")
        return x, int(mode)

    return init_partition


def build_model(*, heightfield: HeightField | None = None, posture: str = "clock",
                **overrides: float) -> Model:
    """The hexapod model with Table 2 defaults, :data:`DEFAULT_GAIT` and ``overrides``.

    Parameters
    ----------
    heightfield : optional :class:`~.terrain.HeightField`; appends its ``hf_z*`` grid
        parameters (select it with ``terrain_type=4``).
    posture : ``"clock"`` (default) puts the toes at the Buehler clock's rest posture at
        start; ``"state"`` keeps the toe positions of the initial state.
    **overrides : parameter name -> default value (any Table 2 or controller name).
    """
    if posture not in ("clock", "state"):
        raise InputError(f"build_model: posture={posture!r}; expected 'clock' or 'state'")
    names = list(PARAM_NAMES)
    defaults = PARAM_DEFAULTS.copy()
    idx = {n: i for i, n in enumerate(names)}
    for k, v in DEFAULT_GAIT.items():
        defaults[idx[k]] = v
    if isinstance(heightfield, dict):  # from a scenario: {file = ..., x0, y0, dx, dy}
        opts = dict(heightfield)
        if "file" not in opts:
            raise InputError("build_model: heightfield table needs 'file' (and x0, y0, dx, dy)")
        unknown = set(opts) - {"file", "x0", "y0", "dx", "dy"}
        if unknown:
            raise InputError(f"build_model: heightfield has unknown keys {sorted(unknown)}; "
                             "expected file, x0, y0, dx, dy")
        heightfield = HeightField.from_file(**opts)
    if heightfield is not None:
        if not isinstance(heightfield, HeightField):
            raise InputError(f"build_model: heightfield must be a HeightField, got {type(heightfield)}")
        for n, v in zip(HF_HEADER, heightfield.header(), strict=True):
            defaults[idx[n]] = v
        names += list(heightfield.param_names())
        defaults = np.concatenate([defaults, heightfield.z.ravel()])
    model = Model(
        name="hexapod",
        state_names=STATE_NAMES,
        state_defaults=state_defaults(),
        param_names=tuple(names),
        param_defaults=defaults,
        guards=tuple(Guard(n, Direction.FALLING, Placement.RIGHT) for n in GUARD_NAMES),
        output_names=OUTPUT_NAMES,
        vector_field=_hooks.vector_field,
        guard_values=_hooks.guards,
        reset=_hooks.reset,
        outputs=_hooks.outputs,
        check=_hooks.check,
        init_partition=_make_init_partition(posture),
        mode_name=mode_name,
        error_messages=_hooks.ERROR_MESSAGES,
        description="SimSect compliant hexapod (RHex-like), SimSect manual §5",
        stance=stance_table,
        path_states=("x", "y"),
        param_ranges=PARAM_RANGES,
        check_params=check_params,
    )
    p = model.params(overrides, where="build_model overrides") if overrides else model.param_defaults
    x = model.state_defaults.copy()
    initial_clock(p, x)          # latched controller values, so that the defaults are usable
    return replace(model, param_defaults=p, state_defaults=x)


def default_options(**changes) -> Options:
    """Integrator options for hexapod runs (DP45, rtol 1e-6, atol 1e-8, h_max 5 ms, records
    every 10 ms); ``changes`` override any :class:`~legsim.hybrid.Options` field (an InputError names an
    unknown one; Options checks the values)."""
    for key in changes:
        lookup("option", key, Options.field_names(), "default_options")
    base = Options(method="dp45", rtol=1e-6, atol=1e-8, h_max=5e-3, record_period=0.01,
                   max_transitions=200_000, stop_precision=1e-10)
    return replace(base, **changes) if changes else base


assert math.isclose(PARAM_DEFAULTS[P_QRT], 0.2)
