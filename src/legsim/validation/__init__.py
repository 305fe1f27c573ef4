"""The validation report: legsim's figures against the published numbers of its five sources.

One module per source (:mod:`.simsect`, :mod:`.pneumatic`, :mod:`.rats`, :mod:`.contact`, :mod:`.cjtc`)
holds cached *measurement* functions, which the tests assert on, and *cases* that turn the same
measurements into report rows (:class:`Row`). ``legsim report`` (:mod:`.report`) runs the cases and
writes ``report.html`` and ``report.json``.
"""

from ._core import SOURCES, STATUSES, Case, Figure, Row, cases, figures

__all__ = ["SOURCES", "STATUSES", "Case", "Figure", "Row", "cases", "figures"]
