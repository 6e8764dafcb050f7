"""Lesson 4's reference page in a real JupyterLab, where the lesson's explorer lives: run every
cell (real processes included), then drive the explorer.

What the page shows is checked against :func:`windowmem.outlive.store_scenarios.play_scenario`,
run here in the test, not against anything the widget computes.
"""

from __future__ import annotations

import pytest

from tests.browser.lab_harness import (
    error_outputs,
    nudge_slider,
    open_notebook,
    run_all_cells,
    screenshot,
    slider_value,
)
from windowmem.outlive.store_scenarios import STORES, play_scenario

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "reference/04_memory_that_outlives_the_session_notes.ipynb"


def wait_for_view(page, store: str, workers: int, event: str, call: int):
    """The live explorer's pane once it shows these settings (the kernel answered)."""
    pane = page.locator(
        f'.wm-outlive-output .wm-outlive[data-store="{store}"][data-workers="{workers}"]'
        f'[data-event="{event}"][data-call="{call}"]'
    )
    pane.wait_for(timeout=60_000)
    return pane


def expected(store: str, workers: int, event: str, call: int) -> tuple[str, str, str]:
    """(worker, messages sent from memory, messages stored after) as the model says."""
    this = play_scenario(store, workers, event)[call - 1]
    return str(this.worker), str(len(this.sent) - 1), str(len(this.stored_after))


def readout(pane) -> tuple[str, str, str]:
    return tuple(pane.get_attribute(name) for name in ("data-worker", "data-sent", "data-stored"))


def pick(page, css_class: str, label: str) -> None:
    page.locator(f".{css_class} select").select_option(label=label)


def test_lesson4_explorer_follows_its_controls(lab_server, page):
    """All cells run without error; store, workers, event and call move the view as the model says."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    settings = ["Simple Memory (in-process)", 2, "nothing", 4]
    pane = wait_for_view(page, *settings)
    pane.scroll_into_view_if_needed()
    assert slider_value(page, "wm-outlive-call") == 4
    assert readout(pane) == expected(*settings)
    assert pane.locator(".wm-sent tr.wm-from-memory").count() == 2  # only worker 2's own turn

    # The same call on the shared table: every earlier turn the window allows.
    pick(page, "wm-outlive-store", "n8n Postgres table")
    pane = wait_for_view(page, "n8n Postgres table", 2, "nothing", 4)
    assert readout(pane) == expected("n8n Postgres table", 2, "nothing", 4)
    assert pane.locator(".wm-sent tr.wm-from-memory").count() == 4

    # The menu offers n8n's stores and Spring AI's window store (the page's race compares them).
    options = [
        o.replace("\xa0", " ")
        for o in page.locator(".wm-outlive-store select option").all_inner_texts()
    ]
    assert options == list(STORES)
    # The table, one worker, two requests at once: both blind, all ten rows kept.
    pick(page, "wm-outlive-workers", "1")
    pick(page, "wm-outlive-event", "two requests at once")
    nudge_slider(page, "wm-outlive-call", 1)
    pane = wait_for_view(page, "n8n Postgres table", 1, "two requests at once", 5)
    assert readout(pane) == expected("n8n Postgres table", 1, "two requests at once", 5)
    assert pane.locator(".wm-stored tr.wm-stored-row").count() == 10
    assert "both loaded before either wrote" in pane.locator(".wm-note").inner_text()
    pane.scroll_into_view_if_needed()
    screenshot(page, "lesson04-explorer-table-two-requests-call5")
