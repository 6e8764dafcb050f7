"""The run's shared highlighted code and Markdown: made once, read back the same, never stale."""

from __future__ import annotations

import copy
from pathlib import Path

import nbconvert.filters.highlight
import pytest
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.records.feedback_page import FeedbackExporter
from autograder.records.render_cache import RenderCache
from tests.autograder.records.test_feedback_page import REPO, feedback_config, graded, with_images

RESOURCES = {"nbgrader": {"notebook": "probe", "score": 1.0, "max_score": 2.0, "late_penalty": 0.0}}


def page(notebook, cache: Path | None) -> str:
    config = feedback_config()
    if cache is not None:
        config.FeedbackExporter.render_cache = str(cache)
    html, _ = FeedbackExporter(config=config).from_notebook_node(
        notebook, resources=dict(RESOURCES)
    )
    return html


def lesson_page_notebook():
    return graded(REPO / "source/lesson03_window_buffer/window_buffer.ipynb")


def test_a_piece_is_made_once_and_read_back(tmp_path):
    made = []

    def make():
        made.append(1)
        return "<pre>x = 1</pre>"

    first = RenderCache(tmp_path).get("code", ("x = 1", "ipython3"), make)
    second = RenderCache(tmp_path).get("code", ("x = 1", "ipython3"), make)
    other = RenderCache(tmp_path).get("code", ("x = 1", "python"), lambda: "<pre>other</pre>")
    assert first == second == "<pre>x = 1</pre>" and len(made) == 1
    assert other == "<pre>other</pre>"
    assert not list(tmp_path.rglob(".*")), "no half-written file is left"


def test_a_cache_folder_that_is_a_file_only_costs_speed(tmp_path):
    (tmp_path / "code").write_text("not a folder")
    assert RenderCache(tmp_path).get("code", ("a",), lambda: "made") == "made"


@pytest.mark.parametrize(
    "notebook", [with_images, lesson_page_notebook], ids=["images", "lesson03"]
)
def test_cached_pages_are_nbconvert_s_pages(notebook, tmp_path, monkeypatch):
    made = notebook()  # once: new cells get random ids

    def notebook():
        return copy.deepcopy(made)

    stock, _ = HTMLExporter(config=feedback_config()).from_notebook_node(
        notebook(), resources=dict(RESOURCES)
    )
    uncached = page(notebook(), None)
    filled = page(notebook(), tmp_path)
    assert filled == uncached
    assert list((tmp_path / "code").iterdir()) and list((tmp_path / "markdown").iterdir())

    # a second student's page reads every piece back: with pygments and mistune gone, the same page
    def refuse(*args, **kwargs):
        raise AssertionError("made again instead of read from the cache")

    monkeypatch.setattr(nbconvert.filters.highlight, "_pygments_highlight", refuse)
    monkeypatch.setattr(HTMLExporter, "markdown2html", refuse)
    assert page(notebook(), tmp_path) == uncached
    assert stock.count("<pre>") == uncached.count("<pre>")


def test_a_changed_cell_is_made_afresh_not_read_stale(tmp_path):
    first = new_notebook(
        cells=[new_markdown_cell("# Title\nsome *text*"), new_code_cell("answer = 41")],
        metadata={"language_info": {"name": "python"}},
    )
    page(first, tmp_path)
    second = new_notebook(
        cells=[new_markdown_cell("# Title\nother *text*"), new_code_cell("answer = 42")],
        metadata={"language_info": {"name": "python"}},
    )
    html = page(copy.deepcopy(second), tmp_path)
    assert "42" in html and "other" in html
    assert ">41<" not in html and "some <em>text" not in html
    assert html == page(second, None)


def test_markdown_with_attachments_is_kept_apart(tmp_path):
    def notebook(data: str):
        cell = new_markdown_cell("![pic](attachment:a.png)")
        cell.attachments = {"a.png": {"image/png": data}}
        return new_notebook(cells=[cell], metadata={"language_info": {"name": "python"}})

    page(notebook("AAAA"), tmp_path)
    assert "BBBB" in page(notebook("BBBB"), tmp_path)


def test_an_empty_piece_is_made_again(tmp_path):
    cache = RenderCache(tmp_path)
    path = cache.path("code", "x = 1")
    path.parent.mkdir(parents=True)
    path.write_text("")  # a crash before the rename can leave this
    assert cache.get("code", ("x = 1",), lambda: "<pre>made</pre>") == "<pre>made</pre>"


def test_an_empty_magics_language_is_not_the_same_cell_as_none(tmp_path):
    """nbconvert looks at whether the key is there: an empty one leaves the cell unhighlighted."""
    marked = new_code_cell("total = sum(range(3))", metadata={"magics_language": ""})
    plain = new_code_cell("total = sum(range(3))")
    notebook = new_notebook(
        cells=[marked, plain],
        metadata={"language_info": {"name": "python", "pygments_lexer": "ipython3"}},
    )
    uncached = page(copy.deepcopy(notebook), None)
    assert page(copy.deepcopy(notebook), tmp_path) == uncached
    # the other order, over the filled cache: each cell still gets its own HTML
    notebook.cells.reverse()
    assert page(copy.deepcopy(notebook), tmp_path) == page(copy.deepcopy(notebook), None)


def test_a_configured_highlighter_of_another_class_is_never_cached(tmp_path):
    from nbconvert.filters.highlight import Highlight2HTML

    class Tagged(Highlight2HTML):  # reads cell metadata the cache's key does not hold
        def __call__(self, source, language=None, metadata=None):
            tag = (metadata or {}).get("tag", "none")
            return f"<i>{tag}</i>" + super().__call__(source, language, metadata)

    def tagged_page(tag: str) -> str:
        config = feedback_config()
        config.FeedbackExporter.render_cache = str(tmp_path)
        config.FeedbackExporter.filters = {"highlight_code": Tagged()}
        cell = new_code_cell("x = 1", metadata={"tag": tag})
        notebook = new_notebook(cells=[cell], metadata={"language_info": {"name": "python"}})
        html, _ = FeedbackExporter(config=config).from_notebook_node(
            notebook, resources=dict(RESOURCES)
        )
        return html

    assert "<i>first</i>" in tagged_page("first")
    assert "<i>second</i>" in tagged_page("second")


def test_a_piece_that_cannot_be_stored_as_utf_8_is_still_returned(tmp_path):
    odd = "<pre>\ud800</pre>"  # a lone surrogate, as a notebook's JSON can hold
    assert RenderCache(tmp_path).get("code", ("x",), lambda: odd) == odd


def test_pieces_are_written_without_waiting_for_the_disk_and_results_with(tmp_path, monkeypatch):
    from autograder.sandbox import safe_files

    synced = []
    monkeypatch.setattr(safe_files.os, "fsync", lambda fd: synced.append(fd))
    RenderCache(tmp_path).get("code", ("x = 1",), lambda: "<pre>x</pre>")
    assert synced == [], "a cache piece lives one run: no wait for the disk"
    safe_files.write_bytes(tmp_path / "grades.csv", b"a,b\n")
    assert len(synced) == 1, "the grader's results still wait for the disk"
