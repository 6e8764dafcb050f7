"""Lesson 1 in a real JupyterLab: run every cell, pick a key, a store and an interval, move the request slider.

What the page shows is checked against :func:`windowmem.scope.shared_agent.run_script`, run
here in the test, not against anything the widget computes.
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
from windowmem.scope.key_choices import key_choice
from windowmem.scope.shared_agent import run_script
from windowmem.scope.support_desk import support_desk

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "01_scope_and_storage.ipynb"


def wait_for_view(page, choice: str, store: str, between: str, request: int):
    """The live explorer's pane once it shows these settings (the kernel answered)."""
    pane = page.locator(
        f'.wm-scope-output .wm-scope[data-choice="{choice}"][data-store="{store}"]'
        f'[data-between="{between}"][data-request="{request}"]'
    )
    pane.wait_for(timeout=60_000)
    return pane


def expected(choice: str, store: str, between: str, request: int):
    """What run_script says that request's call received: its key, the foreign customers, the causes."""
    run = run_script(support_desk(between), key_choice(choice).template, store)
    call = run.calls[request - 1]
    foreign = " ".join(dict.fromkeys(ref.customer for ref in call.foreign))
    causes = " ".join(dict.fromkeys(m.cause for m in call.missing))
    return call.key, foreign, causes


def readout(pane):
    return (
        pane.locator(".wm-key").inner_text().strip(),
        pane.get_attribute("data-foreign"),
        pane.locator(".wm-missing").get_attribute("data-causes"),
    )


def pick(page, css_class: str, label: str) -> None:
    page.locator(f".{css_class} select").select_option(label=label)


def test_lesson1_explorer_follows_its_controls(lab_server, page):
    """All cells run without error; key, store, interval and request move the view as run_script says."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    pane = wait_for_view(page, "per user", "in-process", "nothing", 5)
    pane.scroll_into_view_if_needed()
    assert slider_value(page, "wm-request-slider") == 5
    assert readout(pane) == expected("per user", "in-process", "nothing", 5)
    assert pane.locator(".wm-prompt tr.wm-foreign").count() == 2  # Carlos's message and its reply

    # A restart between the sessions: the in-process store has nothing left for Marta.
    pick(page, "wm-between", "the agent restarts")
    pane = wait_for_view(page, "per user", "in-process", "the agent restarts", 5)
    assert readout(pane) == expected("per user", "in-process", "the agent restarts", 5)
    assert pane.locator(".wm-held").get_attribute("data-buffers") == "0"

    # The same restart with SQLite and the tenant + user key: remembered, and only her turns.
    pick(page, "wm-store", "SQLite file")
    pick(page, "wm-key-choice", "tenant + user")
    pane = wait_for_view(page, "tenant + user", "sqlite", "the agent restarts", 5)
    assert readout(pane) == ("tutienda:u-1", "", "")
    assert pane.locator(".wm-prompt tr.wm-own").count() == 4

    # Two requests on with the keyboard: Carlos's last question, under a constant key.
    pick(page, "wm-key-choice", "constant")
    nudge_slider(page, "wm-request-slider", 2)
    pane = wait_for_view(page, "constant", "sqlite", "the agent restarts", 7)
    assert readout(pane) == expected("constant", "sqlite", "the agent restarts", 7)
    pane.scroll_into_view_if_needed()
    screenshot(page, "lesson01-explorer-constant-sqlite-restart-request7")
