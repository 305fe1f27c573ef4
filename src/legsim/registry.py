"""Model registry: ``systemName`` / scenario ``model`` -> model builder (digest §6.1-6, a plugin
registry instead of SimSect's hard-wired ``SS_InitSystem``).

Built-in models are listed here; other packages add theirs through the ``legsim.models``
entry-point group (``name = "package.module:build_model"``), where ``build_model()`` returns a
:class:`legsim.hybrid.Model`.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

from .errors import InputError, closest

if TYPE_CHECKING:
    from .hybrid.model import Model

__all__ = ["BUILTIN_MODELS", "available_models", "build"]

BUILTIN_MODELS = {
    "slip": "legsim.robots.slip:build_model",
    "hexapod": "legsim.robots.rhex.model:build_model",
    "bouncing_ball": "legsim.examples.bouncing_ball:build_model",
    "coulomb_block": "legsim.examples.coulomb_block:build_model",
    "crr_leg": "legsim.robots.crr_leg.leg:crr_leg_model",
}


def available_models() -> dict[str, str]:
    """Model name -> "module:function" of its builder (built-ins and installed plugins)."""
    return dict(_installed_models())


@functools.cache
def _installed_models() -> tuple[tuple[str, str], ...]:
    # importing importlib.metadata and scanning the installed packages' entry points costs ~30 ms:
    # once per process, and only when a name is not built in
    from importlib.metadata import entry_points

    models = dict(BUILTIN_MODELS)
    for ep in entry_points(group="legsim.models"):
        models.setdefault(ep.name, ep.value)
    return tuple(models.items())


def build(name: str, where: str = "model", **options) -> Model:
    """Build the model registered as ``name`` (``options`` go to its builder); an unknown name
    gets the closest valid one."""
    models = BUILTIN_MODELS if name in BUILTIN_MODELS else available_models()
    if name not in models:
        raise InputError(f"{where}: unknown model '{name}'{closest(name, list(models))}; "
                         f"available: {', '.join(sorted(models))}")
    module, func = models[name].split(":")
    from ._compiling import engine_callees

    engine_callees()  # on a first run, before the model's module compiles its hooks
    builder = getattr(importlib.import_module(module), func)
    try:
        return builder(**options)
    except TypeError as exc:
        if options:
            raise InputError(f"{where}: model '{name}' does not take these options "
                             f"{sorted(options)}: {exc}") from None
        raise
