"""The worker's feedback page parses to the same tree as the one nbconvert's own exporter writes."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import nbformat
import pytest
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output
from nbgrader.converters import GenerateFeedback
from nbgrader.coursedir import CourseDirectory
from traitlets.config import Config

from autograder.records.feedback_page import (
    MISSING_ALT,
    FeedbackExporter,
    add_missing_alt,
    nbconvert_pass,
)

REPO = Path(__file__).resolve().parents[3]
#: A 1x1 PNG: an image output nbconvert writes as an <img> without alt.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def feedback_config() -> Config:
    """The configuration GenerateFeedback gives its exporter, with the course's sanitising on."""
    config = Config()
    config.HTMLExporter.sanitize_html = True
    converter = GenerateFeedback(coursedir=CourseDirectory(config=config), config=config)
    return converter.config


def pages(notebook: nbformat.NotebookNode) -> tuple[str, str]:
    """(nbconvert's page, ours) for *notebook*."""
    config = feedback_config()
    resources = {
        "nbgrader": {"notebook": "probe", "score": 1.0, "max_score": 2.0, "late_penalty": 0.0}
    }
    stock, _ = HTMLExporter(config=config).from_notebook_node(notebook, resources=dict(resources))
    ours, _ = FeedbackExporter(config=config).from_notebook_node(
        notebook, resources=dict(resources)
    )
    return stock, ours


def tree(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, features="html.parser")


def graded(path: Path) -> nbformat.NotebookNode:
    """*path* with the scores and comments nbgrader's GetGrades puts on its cells."""
    notebook = nbformat.read(path, as_version=4)
    for number, cell in enumerate(notebook.cells):
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade"):
            meta["score"], meta["points"] = number % 2, meta.get("points", 1)
        if meta.get("grade") or meta.get("solution"):
            meta["comment"] = "See <b>here</b> & <img src='x.png'>" if number % 3 else None
    return notebook


def html_output(html: str) -> nbformat.NotebookNode:
    """A notebook of one code cell whose output is *html*."""
    output = new_output("display_data", data={"text/html": html})
    return new_notebook(cells=[new_code_cell("x", outputs=[output])])


def with_images() -> nbformat.NotebookNode:
    """Images every way a feedback page meets them, and text that only looks like one."""
    return new_notebook(
        cells=[
            new_markdown_cell(
                "An image: <img src='a.png'> and one with text: <img alt='a chart' src='b.png'/>\n\n"
                "<!-- <img src='in-a-comment.png'> -->\n\n"
                f"![inline](data:image/png;base64,{PNG})"
            ),
            new_code_cell(
                "plot()  # prints '<img src=x>'",
                outputs=[
                    new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
                    new_output("stream", text="<img src=x> as text\n"),
                    new_output(
                        "display_data",
                        data={
                            "text/html": "<div><IMG SRC='c.png' title='a > b'></div>"
                            "<textarea><img src='d.png'></textarea><style>/* <img> */</style>"
                        },
                    ),
                ],
            ),
        ],
        metadata={"language_info": {"name": "python"}},
    )


@pytest.mark.parametrize(
    "notebook",
    [
        pytest.param(lambda: with_images(), id="images"),
        pytest.param(
            lambda: graded(REPO / "source/lesson03_window_buffer/window_buffer.ipynb"),
            id="lesson03-source",
        ),
        pytest.param(
            lambda: html_output(
                "<div class='jp-Notebook'><div class='jp-OutputArea-output'>x</div></div>"
            ),
            id="jp-notebook-classes",
        ),
    ],
)
def test_the_page_parses_to_nbconvert_s_tree(notebook):
    stock, ours = pages(notebook())
    assert tree(ours) == tree(stock)


def test_the_common_pages_take_the_tag_edit_not_nbconvert_s_pass(monkeypatch):
    import autograder.records.feedback_page as feedback_page

    def refuse(html, log):
        raise AssertionError("nbconvert's pass was taken")

    monkeypatch.setattr(feedback_page, "nbconvert_pass", refuse)
    pages(with_images())
    pages(graded(REPO / "source/lesson03_window_buffer/window_buffer.ipynb"))


def test_the_images_get_nbconvert_s_alt_and_a_changed_page_would_show():
    stock, ours = pages(with_images())
    assert ours.count(MISSING_ALT) == stock.count(MISSING_ALT) >= 2
    # the comparison can fail: one alt fewer is a different tree
    assert tree(ours.replace(f' alt="{MISSING_ALT}"', "", 1)) != tree(stock)


@pytest.mark.parametrize(
    "html",
    [
        "<img src='a' onerror='x>y' <img",
        '<div class="jp-Notebook"><img src=a></div>',
    ],
)
def test_what_the_tag_edit_cannot_be_sure_of_goes_to_nbconvert_s_pass(html):
    assert add_missing_alt(html) is None


def test_the_fallback_is_nbconvert_s_own_pass(caplog):
    notebook = html_output(
        "<div class='jp-Notebook'><div class='jp-OutputArea-output'><img src='a.png'></div></div>"
    )
    with caplog.at_level(logging.WARNING):
        stock, ours = pages(notebook)
    assert ours == stock


@pytest.mark.parametrize(
    "html",
    [
        "<p><img src=a.png><IMG SRC='b.png' ALT='b'><img src=c.png /></p>",
        "<textarea><img src='in-a-textarea.png'></textarea><title><img src=t></title>",
        "<script>var s = '<img src=x>';</script><style>/* <img src=y> */</style><img src=z>",
        "<!-- <img src=a> --><![CDATA[ <img src=b> ]]><img\nsrc='c'\ndata-alt='no'>",
        "<img src='a > b' title=\"alt\"><img alt src=bare-alt>",
    ],
)
def test_the_tag_edit_and_nbconvert_s_pass_agree_on_raw_html(html):
    edited = add_missing_alt(html)
    assert edited is not None
    assert tree(edited) == tree(nbconvert_pass(html, logging.getLogger("test")))
