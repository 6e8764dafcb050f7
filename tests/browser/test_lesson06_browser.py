"""Lesson 6 in a real JupyterLab: run every cell, move the budget and step sliders, pick a policy.

What the page shows is checked against :func:`windowmem.budget.run_task`, run here in
the test, not against anything the widget computes.
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
    type_slider_value,
)
from windowmem.budget import help_centre, prepare, run_task

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "06_token_budgets.ipynb"


def wait_for_view(page, budget: int, choice: str, step: int):
    """The live explorer's pane once it shows *budget*, *choice* and *step* (the kernel answered)."""
    pane = page.locator(
        f'.wm-budget-output .wm-budget[data-budget="{budget}"][data-step="{step}"][data-choice="{choice}"]'
    )
    # Generous: on a loaded CI machine the kernel may take a while to answer a slider.
    pane.wait_for(timeout=60_000)
    return pane


def readout(pane) -> tuple[int, str, str]:
    """The window's tokens, the facts-held figure and the running bill, as the page shows them."""
    return (
        int(pane.locator(".wm-bar").get_attribute("data-used")),
        pane.locator(".wm-facts-held").inner_text().strip(),
        pane.locator(".wm-running-bill").inner_text().strip(),
    )


def expected(run, step: int) -> tuple[int, str, str]:
    state = run.trace[step]
    return state.used, f"{len(state.facts)} / {len(run.task)}", f"{state.bill.input_tokens:,}"


def test_lesson6_explorer_follows_its_controls(lab_server, page):
    """All cells run without error; budget, policy and step move the view exactly as run_task says."""
    prepared = prepare(help_centre())
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    # The lesson opens the explorer on just-in-time: its last window holds one read in full.
    just_in_time = run_task(prepared, 1500, "just-in-time")
    last = len(just_in_time.trace) - 1
    pane = wait_for_view(page, 1500, "just-in-time", last)
    pane.scroll_into_view_if_needed()
    assert (slider_value(page, "wm-budget-slider"), slider_value(page, "wm-step-slider")) == (
        1500,
        last,
    )
    assert readout(pane) == expected(just_in_time, last)
    assert pane.locator(".wm-dot.wm-held").count() == len(just_in_time.trace[-1].facts) == 1

    # A person picks "compact" from the menu: the step slider stays at the end of the new run.
    page.locator(".wm-policy select").select_option(label="compact")
    compact = run_task(prepared, 1500, "compact")
    pane = wait_for_view(page, 1500, "compact", len(compact.trace) - 1)
    assert readout(pane) == expected(compact, len(compact.trace) - 1)
    assert pane.locator(".wm-dot.wm-held").count() == compact.answered == len(compact.task)

    # Budget 1,500 -> 1,000 with the keyboard, ten notches of 50 tokens.
    nudge_slider(page, "wm-budget-slider", -10)
    tighter = run_task(prepared, 1000, "compact")
    pane = wait_for_view(page, 1000, "compact", len(tighter.trace) - 1)
    assert readout(pane) == expected(tighter, len(tighter.trace) - 1)

    # Step back to the read that first pushes the window over budget, typed in the readout.
    over = next(s.number for s in tighter.trace if s.used > 1000)
    type_slider_value(page, "wm-step-slider", over)
    pane = wait_for_view(page, 1000, "compact", over)
    assert readout(pane) == expected(tighter, over)
    assert "wm-over" in pane.locator(".wm-figure").first.get_attribute("class")
    pane.scroll_into_view_if_needed()
    screenshot(page, "lesson06-explorer-compact-1000-over-budget")
