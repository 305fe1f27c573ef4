"""Contact points of a robot's geometries (shared by :func:`legsim.world.event_contact_model` and
:class:`legsim.assembly.Robot`): the multi-point manifolds of primitives on a plane that
RobotWorld uses (``legsim.contact._geom.candidate``), each point a sphere of some radius."""

from __future__ import annotations

import numpy as np

from ..errors import InputError, shown
from ..multibody.model import Model

__all__ = ["contact_points", "ContactPoint"]

ContactPoint = tuple[str, int, np.ndarray, float, str]
"""(point name, body index, sphere centre in body axes (3,) m, radius m, geometry name)."""


def _geometry_points(g, who: str) -> list[tuple[str, np.ndarray, float]]:
    """Contact candidates of one geometry as (name, centre in body axes (3,) m, radius m): a
    sphere's centre; a capsule's two segment ends (its axis is the geometry's z); a box's eight
    corners (radius 0)."""
    P = g.params
    R = np.asarray(g.R, dtype=float)
    p = np.asarray(g.p, dtype=float)
    if g.shape == "sphere":
        return [(g.name, p.copy(), float(P["radius"]))]
    if g.shape == "capsule":
        h = 0.5 * float(P["length"])
        return [(f"{g.name}_end{k}", p + R @ np.array([0.0, 0.0, z]), float(P["radius"]))
                for k, z in enumerate((h, -h))]
    if g.shape == "box":
        hx, hy, hz = 0.5 * np.asarray(P["size"], dtype=float)
        return [(f"{g.name}_corner{k}", p + R @ np.array([hx if k & 1 else -hx, hy if k & 2 else -hy,
                                                            hz if k & 4 else -hz]), 0.0)
                for k in range(8)]
    raise InputError(f"{who}: geometry {g.name!r} on body {g.body!r} is a {g.shape}; expected sphere, "
                     f"capsule or box (leave it out with geometries=, or use RobotWorld)")


def contact_points(model: Model, geometries=None, who: str = "contact_points") -> list[ContactPoint]:
    """The contact candidates of ``model``'s geometries on moving bodies (all of them, or those
    named in ``geometries``: a name or a sequence of names): a sphere gives its centre, a capsule its two
    segment ends (``<geom>_end0``/``_end1``), a box its eight corners (``<geom>_corner0``..``7``, radius 0).
    ``who`` names the caller in error messages."""
    if not isinstance(model, Model):
        raise InputError(f"{who}: 'model' = {shown(model)}, expected a legsim.multibody.Model")
    moving = [g for g in model.geometries if g.body != model.body_names[0]]
    if geometries is not None:
        try:
            wanted = [geometries] if isinstance(geometries, str) else [str(n) for n in geometries]
        except TypeError:  # not iterable: a number, a bool, an object
            raise InputError(f"{who}: 'geometries' = {shown(geometries)}, expected None (every geometry on a "
                             "moving body), a geometry's name or a sequence of names") from None
        known = {g.name for g in moving}
        for n in wanted:
            if n not in known:
                raise InputError(f"{who}: geometries item {n!r} is not a geometry on a moving body of "
                                 f"{model.name!r}; expected one of {sorted(known)}")
        moving = [g for g in moving if g.name in wanted]
    return [(name, model.body_id(g.body), centre, radius, g.name)
            for g in moving for name, centre, radius in _geometry_points(g, who)]
