"""Rows, cases and the registry of the validation report.

A *case* is a function without arguments that runs legsim's code and returns :class:`Row` objects,
one per published number it checks. Cases get their measurements from cached *measurement*
functions (``functools.cache``) that the tests call too, so a test session and a report build
compute each measurement once and the report shows exactly the numbers the tests assert on.
A *figure* is a function returning a matplotlib figure drawn from the same measurements.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "Row",
    "Case",
    "Figure",
    "STATUSES",
    "SOURCES",
    "case",
    "figure",
    "cases",
    "figures",
    "band_status",
    "fmt",
]

STATUSES = ("pass", "fail", "not reproduced", "project-chosen parameter", "error")
"""Row statuses: ``pass``/``fail`` against the source's tolerance; ``not reproduced``: legsim's figure is
outside the source's band (the test asserts this model's own value, its docstring says why);
``project-chosen parameter``: met only because legsim chose a parameter the source does not give;
``error``: the case raised (the report shows the exception)."""

SOURCES: dict[str, tuple[str, str, str]] = {
    "simsect": ("SimSect: SLIP runner and compliant hexapod",
                "U. Saranli, SimSect Hybrid Dynamical Simulation Environment: User's Manual, University of "
                "Michigan", "simsect-hexapod.md"),
    "pneumatic": ("Pneumatic CRR quadruped: cylinder rig and valves",
                  "H. G. Daepp, Development of a Multi-Platform Simulation for a Pneumatically-Actuated "
                  "Quadruped Robot, M.S. thesis, Georgia Institute of Technology, 2011",
                  "pneumatic-quadruped.md"),
    "rats": ("RATS spherical robot: hop bench, depletion, geometry",
             "B. E. Wagenknecht, Mobility Characterization and Control of a Spherical Multi-Legged Robot, "
             "CMU-RI-TR-09-46, Carnegie Mellon University, 2009", "rats-spherical-robot.md"),
    "contact": ("Contact processing (Konyev); ANTON/ROTTO",
                "M. Konyev, Contact Processing within Walking Robots' Design, Dr.-Ing. thesis, "
                "Otto-von-Guericke-Universität Magdeburg, 2011", "contact-processing-anton-rotto.md"),
    "cjtc": ("CJTC and the LIBRA climber",
             "the MIT master's thesis on Coordinated Jacobian Transpose Control and the LIBRA climbing robot "
             "(its title page is lost)", "cjtc-libra.md"),
}
"""Source key → (section title, the source work by its title, legsim's reading of it: the file in the
developers' shared/spec that the rows' ``cite`` and ids refer to)."""


@dataclass(frozen=True)
class Row:
    """One published number against legsim's.

    ``id`` numbers the item in legsim's acceptance list for the source ("A4", "T7", "S9"); ``source`` the
    source's figure with its unit (value or band) and ``cite`` where in legsim's reading of the source
    (the developers' shared/spec) it is; ``legsim`` legsim's measured figure with its unit; ``tolerance``
    the band or tolerance the status is judged against; ``test`` the pytest node id of the test asserting
    on the same measurement.
    """

    id: str
    quantity: str
    source: str
    cite: str
    legsim: str
    tolerance: str
    status: str
    note: str
    test: str

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"row {self.id}: status {self.status!r} not in {STATUSES}")

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class Case:
    """A registered case: ``func()`` returns the rows of ``source``."""

    source: str
    name: str
    func: Callable[[], list[Row]]


@dataclass(frozen=True)
class Figure:
    """A registered figure: ``func()`` returns a matplotlib Figure drawn from cached measurements."""

    source: str
    title: str
    func: Callable[[], Any]


_CASES: list[Case] = []
_FIGURES: list[Figure] = []


def case(source: str) -> Callable[[Callable[[], list[Row]]], Callable[[], list[Row]]]:
    """Register a case function of ``source`` (a key of :data:`SOURCES`)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")

    def deco(func: Callable[[], list[Row]]) -> Callable[[], list[Row]]:
        _CASES.append(Case(source, func.__name__, func))
        return func

    return deco


def figure(source: str, title: str) -> Callable[[Callable[[], Any]], Callable[[], Any]]:
    """Register a figure function of ``source``."""

    def deco(func: Callable[[], Any]) -> Callable[[], Any]:
        _FIGURES.append(Figure(source, title, func))
        return func

    return deco


def cases(source: str | None = None) -> list[Case]:
    """The registered cases (of one source), in registration order (imports every source module)."""
    from . import cjtc, contact, pneumatic, rats, simsect  # noqa: F401  (registration)

    _source("cases", source)
    return [c for c in _CASES if source is None or c.source == source]


def figures(source: str | None = None) -> list[Figure]:
    """The registered figures (of one source)."""
    cases()
    _source("figures", source)
    return [f for f in _FIGURES if source is None or f.source == source]


def _source(owner: str, source) -> None:
    """None or a key of :data:`SOURCES`, else an :class:`InputError` naming ``owner``, the closest key and
    all of them (a typo listed nothing before session 43)."""
    if source is not None:
        from ..errors import lookup

        lookup("source", source, tuple(SOURCES), owner)


def band_status(value: float, lo: float, hi: float) -> str:
    """``pass`` if lo ≤ value ≤ hi, else ``fail``."""
    return "pass" if lo <= value <= hi else "fail"


def fmt(value: float, digits: int = 4) -> str:
    """A number with ``digits`` significant digits (no unit)."""
    return f"{value:.{digits}g}"
