"""Progress bars of counted work (runs of a sweep, tips of a RATS range run, firings, thresholds).

One rule for every such bar: ``progress`` True shows it, False hides it, None (the default of the
functions that take it) shows it only when stderr is a terminal and the work has lasted 2 s, so that
scripts, logs and the tests stay quiet and a user at a terminal never waits on silence. The engine's
own bar counts simulated seconds instead (:class:`legsim.hybrid.simulate._Progress`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["counter", "check_progress"]


def check_progress(progress: Any, where: str) -> None:
    """An :class:`~legsim.errors.InputError` naming ``where`` unless ``progress`` is True, False or None."""
    from .errors import check_flag

    if progress is not None:
        check_flag(where, "progress", progress)  # None: shown on a terminal


def counter(total: int | None, *, unit: str, desc: str, progress: bool | None = None, **tqdm_kw: Any) -> Any:
    """A tqdm bar of ``total`` ``unit`` (None: a count without a bar) labelled ``desc``, shown by the
    module's rule; ``tqdm_kw`` go to tqdm. Use it as a context manager, or ``close()`` it."""
    from tqdm import tqdm

    tqdm_kw.setdefault("delay", 0.0 if progress else 2.0)
    tqdm_kw.setdefault("leave", False)
    return tqdm(total=total, unit=unit, desc=desc, disable=None if progress is None else not progress,
                **tqdm_kw)
