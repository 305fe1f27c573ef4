"""The tutorials in docs/ run as written, and draw the figures they show.

One mechanism for every tutorial (``docs/*.md``):

* a fenced block opened with ```` ```python ```` is *run*: the blocks of a page are joined, in order,
  into one script that runs in a fresh temporary directory (the page's own checks against its source
  are ``assert`` statements in those blocks);
* a block opened with ```` ```python excerpt ```` quotes (or uses) a script of the repository that the
  page names (``examples/...``); it is not run here: the page must name the script, and a test must
  run it (tests/test_examples.py, tests/test_tutorials.py);
* every figure the page shows (``![...](figures/NAME.png)``) must be drawn by the page's code into
  ``figures/NAME.png`` of the run directory, not blank, and committed as ``docs/figures/NAME.png``.

Regenerate the committed figures from the pages' code (all pages, or the ones named)::

    python tests/test_docs.py [tutorial-contact.md ...]
"""

from __future__ import annotations

import os
import re
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md"))
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.M | re.S)
FIGURE = re.compile(r"!\[[^\]]*\]\((figures/[^)\s]+\.png)\)")
SCRIPT = re.compile(r"\(\.\./(examples/[\w./-]+\.py)\)|`(examples/[\w./-]+\.py)`|`(src/legsim/[\w./-]+\.py)`")


def blocks(page: str) -> list[tuple[str, str]]:
    """(info string, code) of every fenced block of ``docs/<page>``."""
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer((DOCS / page).read_text())]


def runnable(page: str) -> str:
    return "\n".join(code for info, code in blocks(page) if info == "python")


def figures(page: str) -> list[str]:
    return sorted(set(FIGURE.findall((DOCS / page).read_text())))


def run_page(page: str, where: Path) -> dict:
    """Run the page's python blocks as one script in directory ``where``; returns its globals."""
    script = where / (Path(page).stem.replace("-", "_") + ".py")
    script.write_text(runnable(page))
    (where / "figures").mkdir(exist_ok=True)
    cwd = os.getcwd()
    os.chdir(where)
    try:
        import matplotlib

        matplotlib.use("Agg")
        return runpy.run_path(str(script), run_name="__tutorial__")
    finally:
        os.chdir(cwd)
        import matplotlib.pyplot as plt

        plt.close("all")


def not_blank(png: Path) -> bool:
    """A drawn figure: more than a few distinct grey levels, and ink on a good part of it."""
    from PIL import Image

    img = np.asarray(Image.open(png).convert("L"), dtype=float)
    return img.shape[0] > 100 and img.shape[1] > 100 and img.std() > 5.0 and (img < 200).mean() > 0.01


RUN_PAGES = [p for p in PAGES if runnable(p).strip()]


@pytest.mark.parametrize("page", RUN_PAGES)
def test_the_tutorial_code_runs_and_draws_the_figures_it_shows(page, tmp_path):
    run_page(page, tmp_path)
    shown = figures(page)
    for name in shown:
        drawn = tmp_path / name
        assert drawn.is_file(), f"{page} shows {name}, which its code did not draw"
        assert not_blank(drawn), f"{page}: {name} is blank"
        assert (DOCS / name).is_file(), f"{page}: {name} is not committed (python tests/test_docs.py {page})"
    drawn = {f"figures/{p.name}" for p in (tmp_path / "figures").glob("*.png")}
    assert drawn <= set(shown), f"{page} draws figures it does not show: {sorted(drawn - set(shown))}"


@pytest.mark.parametrize("page", PAGES)
def test_every_block_of_a_tutorial_is_run_or_quotes_a_script_that_a_test_runs(page):
    text = (DOCS / page).read_text()
    scripts = [next(g for g in m.groups() if g) for m in SCRIPT.finditer(text)]
    tests = "\n".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    for info, _ in blocks(page):
        if not info.startswith("python") or info == "python":
            continue
        assert info == "python excerpt", f"{page}: unknown block kind {info!r}"
        assert scripts, f"{page}: a python excerpt, but the page names no script"
        for script in scripts:
            assert (ROOT / script).is_file(), f"{page} names {script}, which does not exist"
            assert Path(script).stem in tests, f"{page}: no test runs {script}"


def test_every_tutorial_is_linked_from_the_readme_and_every_committed_figure_is_shown():
    readme = (ROOT / "README.md").read_text()
    for page in PAGES:
        assert f"docs/{page}" in readme, f"README.md does not link docs/{page}"
    shown = {name for page in PAGES for name in figures(page)}
    committed = {f"figures/{p.name}" for p in (DOCS / "figures").glob("*.png")}
    assert committed <= shown, f"docs/figures holds figures no page shows: {sorted(committed - shown)}"


def regenerate(pages: list[str]) -> None:
    """Run each page's code and copy the figures it shows into docs/figures/."""
    (DOCS / "figures").mkdir(exist_ok=True)
    for page in pages:
        with tempfile.TemporaryDirectory() as tmp:
            run_page(page, Path(tmp))
            for name in figures(page):
                shutil.copyfile(Path(tmp) / name, DOCS / name)
                print(f"{page}: docs/{name}")


if __name__ == "__main__":
    regenerate(sys.argv[1:] or RUN_PAGES)
