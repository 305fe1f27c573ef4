"""Terrain height and normal for the hexapod (SimSect digest §4.11, Table 3; ``SS_HexTerrain.c``).

``terrain_type`` (numeric code, names in :class:`TerrainType`) and ``terrain_arg1..3`` = a1..a3:

=====================  =====================================================================
``FLAT`` (0)           h = 0
``SINUSOIDAL`` (1)     h = a1 sin(a2 x) cos(a3 y)
``SLOPED`` (2)         h = a1 x + a2 y + a3 if y > 0 else a3   (Table 3 as read; the surface
                       jumps by a1 x across y = 0 unless a1 = 0, and the normal jumps too)
``SLOPED_CONTINUOUS``  h = a1 x + a2 max(y, 0) + a3: the same ramp in y, with the lateral tilt
(3)                    a1 applied everywhere, so the surface is continuous (kink at y = 0)
``HEIGHTFIELD`` (4)    bilinear interpolation of a user grid (parameters ``hf_*``), clamped
                       to the border value outside the grid
=====================  =====================================================================

The unit normal is (−h_x, −h_y, 1)/‖·‖ (digest §6.3 item 14). Heights in m, x/y in m (world).

The compiled lookup has no checks: :func:`check_terrain` keeps its numbers within ±MAX_TERRAIN and a
heightfield's spacings at least MIN_SPACING, so that every product it forms stays finite.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

from ...errors import (
    InputError,
    as_float,
    as_floats,
    check_broadcast,
    check_number,
    check_values,
    check_whole,
    lookup,
    shown,
)
from ...userfiles import read_text
from .params import HF_HEADER, MAX_TERRAIN, P_HF, P_HF_Z, P_TA1, P_TA2, P_TA3, P_TERRAIN

__all__ = ["TerrainType", "HeightField", "terrain_height", "terrain_normal", "terrain_params",
           "check_heightfield", "check_terrain", "MAX_TERRAIN", "MIN_SPACING"]

MIN_SPACING = 1e-6
"""The smallest heightfield spacing hf_dx, hf_dy [m]: a height step over it stays finite (at most
2 MAX_TERRAIN / MIN_SPACING = 2e12)."""


class TerrainType(IntEnum):
    """Codes of the ``terrain_type`` parameter."""

    FLAT = 0
    SINUSOIDAL = 1
    SLOPED = 2
    SLOPED_CONTINUOUS = 3
    HEIGHTFIELD = 4


@njit(cache=True, nogil=True)
def _heightfield(p, x, y):
    """Bilinear heightfield (h, h_x, h_y) from the ``hf_*`` parameters (clamped outside)."""
    nx = int(p[P_HF])
    ny = int(p[P_HF + 1])
    x0 = p[P_HF + 2]
    y0 = p[P_HF + 3]
    dx = p[P_HF + 4]
    dy = p[P_HF + 5]
    u = (x - x0) / dx
    v = (y - y0) / dy
    inside_x = 1.0
    inside_y = 1.0
    if u <= 0.0:
        u = 0.0
        inside_x = 0.0
    elif u >= nx - 1:
        u = nx - 1.0
        inside_x = 0.0
    if v <= 0.0:
        v = 0.0
        inside_y = 0.0
    elif v >= ny - 1:
        v = ny - 1.0
        inside_y = 0.0
    i = min(int(u), nx - 2)
    j = min(int(v), ny - 2)
    s = u - i
    r = v - j
    z00 = p[P_HF_Z + j * nx + i]
    z10 = p[P_HF_Z + j * nx + i + 1]
    z01 = p[P_HF_Z + (j + 1) * nx + i]
    z11 = p[P_HF_Z + (j + 1) * nx + i + 1]
    h = (1 - s) * (1 - r) * z00 + s * (1 - r) * z10 + (1 - s) * r * z01 + s * r * z11
    hx = inside_x * ((1 - r) * (z10 - z00) + r * (z11 - z01)) / dx
    hy = inside_y * ((1 - s) * (z01 - z00) + s * (z11 - z10)) / dy
    return h, hx, hy


@njit(cache=True, nogil=True)
def terrain(p, x, y):
    """Terrain height and slope at world (x, y): returns ``(h, h_x, h_y)`` [m, -, -].

    Digest §4.11, Table 3; see the module docstring for the types. Unknown codes give flat
    ground (the Python layer rejects them before a run).
    """
    kind = int(p[P_TERRAIN])
    a1 = p[P_TA1]
    a2 = p[P_TA2]
    a3 = p[P_TA3]
    if kind == 1:
        s2 = math.sin(a2 * x)
        c3 = math.cos(a3 * y)
        return (a1 * s2 * c3, a1 * a2 * math.cos(a2 * x) * c3, -a1 * a3 * s2 * math.sin(a3 * y))
    if kind == 2:
        if y > 0.0:
            return a1 * x + a2 * y + a3, a1, a2
        return a3, 0.0, 0.0
    if kind == 3:
        if y > 0.0:
            return a1 * x + a2 * y + a3, a1, a2
        return a1 * x + a3, a1, 0.0
    if kind == 4:
        return _heightfield(p, x, y)
    return 0.0, 0.0, 0.0


@njit(cache=True, nogil=True)
def normal_from_slope(hx, hy):
    """Unit normal ``(−h_x, −h_y, 1)/sqrt(1 + h_x² + h_y²)`` (digest §4.11)."""
    inv = 1.0 / math.sqrt(1.0 + hx * hx + hy * hy)
    return -hx * inv, -hy * inv, inv


# ------------------------------------------------------------------------- Python layer
class HeightField:
    """A user terrain grid: heights ``z[j, i]`` at ``(x0 + i dx, y0 + j dy)`` [m].

    Parameters
    ----------
    z : (ny, nx) array, ny, nx >= 2
    x0, y0 : grid origin [m];  dx, dy : spacings [m] (> 0)
    """

    def __init__(self, z, x0: float = 0.0, y0: float = 0.0, dx: float = 0.1, dy: float = 0.1):
        z = np.asarray(z, dtype=np.float64)
        if z.ndim != 2 or z.shape[0] < 2 or z.shape[1] < 2:
            raise InputError(f"HeightField: 'z' must be a 2-D array with at least 2x2 points, "
                             f"got shape {z.shape}")
        if not np.all(np.isfinite(z)):
            raise InputError("HeightField: 'z' contains non-finite heights")
        for name, v in (("dx", dx), ("dy", dy)):
            if not (math.isfinite(v) and v > 0):
                raise InputError(f"HeightField: '{name}' must be a positive spacing, got {v!r}")
        self.z, self.x0, self.y0, self.dx, self.dy = z, float(x0), float(y0), float(dx), float(dy)

    @classmethod
    def from_file(cls, file: str, x0: float = 0.0, y0: float = 0.0, dx: float = 0.1,
                  dy: float = 0.1) -> HeightField:
        """Read heights from a CSV/whitespace text file: row j is y = y0 + j·dy, column i is
        x = x0 + i·dx [m]."""
        text = read_text(file, "heightfield file")
        try:
            z = np.loadtxt(text.splitlines(), delimiter="," if "," in text else None, ndmin=2)
        except ValueError as exc:
            raise InputError(f"heightfield file '{file}': expected a grid of numbers ({exc})") from None
        try:
            return cls(z, x0, y0, dx, dy)
        except InputError as exc:
            raise InputError(f"heightfield file '{file}': {exc}") from None

    def header(self) -> tuple[float, ...]:
        """Values of the ``hf_*`` header parameters."""
        ny, nx = self.z.shape
        return (float(nx), float(ny), self.x0, self.y0, self.dx, self.dy)

    def param_names(self) -> tuple[str, ...]:
        """Names of the grid parameters appended to the model (``hf_z0`` …)."""
        return tuple(f"hf_z{k}" for k in range(self.z.size))


def terrain_params(kind: TerrainType | int | str = TerrainType.FLAT, a1: float = 0.0, a2: float = 0.0,
                   a3: float = 0.0) -> dict[str, float]:
    """Parameter overrides selecting a terrain by name (any case) or code, e.g.
    ``terrain_params("sinusoidal", ...)``; the arguments a1..a3 (module docstring) within ±MAX_TERRAIN."""
    o = "terrain_params"
    if isinstance(kind, str):
        code = lookup("kind", kind.lower(), [t.name.lower() for t in TerrainType], o)
    else:
        code = check_whole(o, "kind", kind, 0, len(TerrainType) - 1)
    for name, value in (("a1", a1), ("a2", a2), ("a3", a3)):
        check_number(o, name, value, lo=-MAX_TERRAIN, hi=MAX_TERRAIN)
    return {"terrain_type": float(code), "terrain_arg1": a1, "terrain_arg2": a2, "terrain_arg3": a3}


def check_terrain_code(value) -> int:
    """Validate a ``terrain_type`` value; returns the integer code or raises :class:`InputError`."""
    v = as_float(value)
    code = int(v) if math.isfinite(v) and v == math.floor(v) else -1
    if code not in {t.value for t in TerrainType}:
        shown = repr(value) if math.isnan(v) else f"{v:g}"  # not np.float64(7.0)
        raise InputError(f"parameter 'terrain_type' = {shown}: expected one of "
                         + ", ".join(f"{t.value} ({t.name.lower()})" for t in TerrainType))
    return code


def check_heightfield(p: np.ndarray) -> None:
    """With ``terrain_type`` 4 (heightfield), the ``hf_*`` header of parameter vector ``p`` must describe
    the grid that follows it: ``hf_nx`` and ``hf_ny`` whole numbers >= 2 with ``hf_nx · hf_ny`` heights
    after the header, ``hf_x0``, ``hf_y0`` within ±MAX_TERRAIN [m], ``hf_dx``, ``hf_dy`` in [MIN_SPACING,
    MAX_TERRAIN] [m], and the heights within ±MAX_TERRAIN [m]. The compiled lookup (:func:`_heightfield`)
    reads the grid without bounds checks: a header larger than its grid would read past the vector."""
    p = _param_vector("check_heightfield", p)
    if float(p[P_TERRAIN]) != TerrainType.HEIGHTFIELD:
        return
    grid = p.size - P_HF_Z
    if grid == 0:
        raise InputError("parameter 'terrain_type' = 4 (heightfield) needs a model built with "
                         "build_model(heightfield=HeightField(...))")
    nx, ny, x0, y0, dx, dy = (float(v) for v in p[P_HF:P_HF_Z])  # finite (_param_vector)
    whole = all(n == math.floor(n) and n >= 2 for n in (nx, ny))
    if not (whole and nx * ny == grid and abs(x0) <= MAX_TERRAIN and abs(y0) <= MAX_TERRAIN
            and all(MIN_SPACING <= d <= MAX_TERRAIN for d in (dx, dy))):
        header = ", ".join(f"'{n}' = {v:g}" for n, v in zip(HF_HEADER, p[P_HF:P_HF_Z], strict=True))
        raise InputError(f"parameters {header}: expected the header of the model's heightfield of {grid} "
                         "heights (whole numbers hf_nx, hf_ny >= 2 with hf_nx * hf_ny heights, hf_x0, hf_y0 "
                         f"within ±{MAX_TERRAIN:g} m, and spacings hf_dx, hf_dy in [{MIN_SPACING:g}, "
                         f"{MAX_TERRAIN:g}] m); the heightfield's own values are set by "
                         "build_model(heightfield=...)")
    high = np.flatnonzero(np.abs(p[P_HF_Z:]) > MAX_TERRAIN)
    if high.size:
        raise InputError(f"parameter 'hf_z{high[0]}' = {p[P_HF_Z + high[0]]:g}: expected a height within "
                         f"±MAX_TERRAIN = {MAX_TERRAIN:g} m")


def check_terrain(p: np.ndarray) -> None:
    """The terrain of parameter vector ``p``: a known ``terrain_type`` (:func:`check_terrain_code`), the
    arguments ``terrain_arg1..3`` within ±MAX_TERRAIN and, for a heightfield, a header that describes its
    grid (:func:`check_heightfield`)."""
    p = _param_vector("check_terrain", p)
    check_terrain_code(p[P_TERRAIN])
    for k in (P_TA1, P_TA2, P_TA3):
        if not abs(p[k]) <= MAX_TERRAIN:
            raise InputError(f"parameter 'terrain_arg{k - P_TA1 + 1}' = {p[k]:g}: expected a number within "
                             f"±MAX_TERRAIN = {MAX_TERRAIN:g}")
    check_heightfield(p)


def _param_vector(owner: str, p) -> np.ndarray:
    """``p`` as a contiguous float vector of at least the scalar, leg and ``hf_*`` header parameters, all
    finite (the model's own vector is), else an :class:`InputError` naming ``owner`` and ``p``."""
    a = as_floats(p)
    if a.ndim != 1 or a.size < P_HF_Z or not np.all(np.isfinite(a)):
        value = shown(p) if a.size <= 8 else f"{type(p).__name__} of shape {a.shape}"
        raise InputError(f"{owner}: 'p' = {value}, expected the hexapod's parameter vector: at least "
                         f"{P_HF_Z} finite numbers (build_model().params())")
    return np.ascontiguousarray(a)


def _points(owner: str, p, x, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checked parameter vector ``p`` (:func:`check_terrain`) and world points ``x``, ``y`` [m] within
    ±MAX_TERRAIN, broadcast together, else an :class:`InputError` naming ``owner`` and the argument."""
    p = _param_vector(owner, p)
    check_terrain(p)
    x = check_values(owner, "x", x, lo=-MAX_TERRAIN, hi=MAX_TERRAIN, unit="m")
    y = check_values(owner, "y", y, lo=-MAX_TERRAIN, hi=MAX_TERRAIN, unit="m")
    check_broadcast(owner, x=x, y=y)
    xb, yb = np.broadcast_arrays(x, y)
    return p, xb, yb


def terrain_height(p, x, y):
    """Terrain height [m] at world points ``(x, y)`` [m] (broadcast, within ±MAX_TERRAIN) for parameter
    vector ``p`` (:func:`check_terrain`)."""
    p, xb, yb = _points("terrain_height", p, x, y)
    out = np.array([terrain(p, float(a), float(b))[0] for a, b in zip(xb.ravel(), yb.ravel(), strict=True)])
    return out.reshape(xb.shape) if xb.ndim else float(out[0])


def terrain_normal(p, x, y):
    """Unit terrain normal(s), shape ``(..., 3)``, at world points ``(x, y)`` [m] (broadcast, within
    ±MAX_TERRAIN) for parameter vector ``p`` (:func:`check_terrain`)."""
    p, xb, yb = _points("terrain_normal", p, x, y)
    out = np.empty((xb.size, 3))
    for k, (a, b) in enumerate(zip(xb.ravel(), yb.ravel(), strict=True)):
        _, hx, hy = terrain(p, float(a), float(b))
        out[k] = normal_from_slope(hx, hy)
    return out.reshape(xb.shape + (3,)) if xb.ndim else out[0]


assert len(HF_HEADER) == P_HF_Z - P_HF
