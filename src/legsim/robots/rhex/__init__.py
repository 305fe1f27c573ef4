"""Compliant RHex-like hexapod of SimSect (digest §4): :func:`model.build_model`."""

from .model import DEFAULT_GAIT, OUTPUT_NAMES, build_model, default_options, mode_name
from .terrain import HeightField, TerrainType, terrain_params

__all__ = ["DEFAULT_GAIT", "OUTPUT_NAMES", "build_model", "default_options", "mode_name",
           "HeightField", "TerrainType", "terrain_params"]
