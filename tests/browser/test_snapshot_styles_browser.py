"""The explorers' static snapshots keep their colours for a reader without a kernel.

A notebook opened without being run is untrusted: JupyterLab sanitizes its stored HTML
outputs, dropping ``<style>`` elements and keeping only the inline ``style`` properties
its allow-list knows. Both explorers therefore style with inline properties alone; this
opens each lesson without running it and reads the colours the browser computed.
"""

from __future__ import annotations

import pytest
from nbformat.v4 import new_code_cell, new_output

from tests.browser.lab_harness import open_notebook, pristine_notebook, write_notebook
from tests.conftest import REPO_ROOT as REPO

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TRANSPARENT = "rgba(0, 0, 0, 0)"


def computed(page, selector: str, prop: str) -> str:
    """The computed CSS *prop* of the first stored-output element matching *selector*."""
    element = page.locator(f".jp-OutputArea-output {selector}").first
    element.wait_for(state="attached", timeout=30_000)
    return element.evaluate(f"e => getComputedStyle(e).getPropertyValue('{prop}')")


def test_untrusted_outputs_drop_style_sheets_and_keep_inline_styles(lab_server, page):
    """Why the explorers style inline: the same colour, by sheet and inline, in a stored output."""
    html = (
        "<style>.probe-sheet{background:#2da44e}</style>"
        '<div class="probe-sheet">by a style sheet</div>'
        '<div class="probe-inline" style="background:#2da44e">inline</div>'
    )
    output = new_output("display_data", data={"text/html": html, "text/plain": "probe"})
    name = write_notebook(lab_server, "style_probe.ipynb", [new_code_cell("", outputs=[output])])
    open_notebook(page, lab_server, name)
    assert computed(page, ".probe-inline", "background-color") == "rgb(45, 164, 78)"
    assert computed(page, ".probe-sheet", "background-color") == TRANSPARENT
    assert page.locator(".jp-OutputArea-output style").count() == 0


def test_window_snapshot_is_coloured_without_a_kernel(lab_server, page):
    open_notebook(
        page,
        lab_server,
        pristine_notebook(lab_server, REPO / "course" / "03_window_buffer_memory.ipynb"),
    )
    # #1a7f37: the AA-contrast green of windowmem.explorer.window_html.
    assert computed(page, ".wm-turn.wm-visible", "background-color") == "rgb(26, 127, 55)"
    assert computed(page, ".wm-turn.wm-current", "background-color") == "rgb(9, 105, 218)"


def test_budget_snapshot_is_coloured_without_a_kernel(lab_server, page):
    open_notebook(
        page,
        lab_server,
        pristine_notebook(lab_server, REPO / "course" / "06_token_budgets.ipynb"),
    )
    assert computed(page, ".wm-seg-system", "background-color") == "rgb(130, 80, 223)"
    assert computed(page, ".wm-dot.wm-held", "background-color") == "rgb(26, 127, 55)"
    assert computed(page, ".wm-bar", "position") == "relative"
    assert computed(page, ".wm-seg", "position") == "absolute"
    assert computed(page, ".wm-bar", "height") == "26px"
    assert TRANSPARENT != computed(page, ".wm-limit", "border-left-color")
