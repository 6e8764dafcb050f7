"""The lessons' reference pages (``course/reference/NN_<slug>_notes.ipynb``): linked, and true.

A reference page holds the version tables, the other products and the sources that a lesson's
main path leaves out. Its last cell, tagged ``maintainer-checks``, asserts every fact the page
states against windowmem. Here each page's code runs again, top to bottom, in a fresh
namespace in the page's own folder, so a library change that moves a fact fails the page's
checks; and the stored output must show that the checks ran to their end, so the committed
page is not older than its checks.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "course" / "reference"
NOTES = sorted(REFERENCE.glob("[0-9][0-9]_*_notes.ipynb"))
DONE = "every fact on this page checked"


def cells(page: Path) -> list[dict]:
    return json.loads(page.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def lesson_of(page: Path) -> Path:
    """``reference/01_scope_and_storage_notes.ipynb`` belongs to ``01_scope_and_storage.ipynb``."""
    return REPO / "course" / page.name.replace("_notes.ipynb", ".ipynb")


def test_lesson_1_has_its_reference_page():
    assert REFERENCE / "01_scope_and_storage_notes.ipynb" in NOTES


@pytest.mark.parametrize("page", NOTES, ids=lambda p: p.name)
def test_the_lesson_links_its_reference_page_and_the_page_links_back(page):
    lesson = lesson_of(page)
    assert lesson.is_file(), f"{page.name} belongs to no lesson ({lesson.name})"
    lesson_text = "\n".join(source(c) for c in cells(lesson) if c["cell_type"] == "markdown")
    assert f"](reference/{page.name})" in lesson_text
    page_text = "\n".join(source(c) for c in cells(page) if c["cell_type"] == "markdown")
    assert f"](../{lesson.name})" in page_text


@pytest.mark.parametrize("page", NOTES, ids=lambda p: p.name)
def test_the_page_s_checks_run_to_their_end_now_and_in_its_stored_output(page):
    code = [c for c in cells(page) if c["cell_type"] == "code"]
    checks = code[-1]
    assert "maintainer-checks" in checks["metadata"].get("tags", []), (
        f"{page.name}: its last code cell checks the page's facts (tag it maintainer-checks)"
    )
    stored = "".join("".join(o.get("text", "")) for o in checks.get("outputs", []))
    assert stored.strip() == DONE, f"{page.name}: execute it with scripts/execute_notebooks.py"
    namespace: dict = {"__name__": "__reference_page__"}
    here = Path.cwd()
    os.chdir(page.parent)
    try:
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            for cell in code:
                exec(compile(source(cell), f"{page.name} cell", "exec"), namespace)
    finally:
        os.chdir(here)
    assert printed.getvalue().strip().endswith(DONE)
