"""Lesson 3 in a real JupyterLab: run every cell, move both sliders, check the view follows windowmem."""

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
from windowmem.examples import ANCHOR_FACTS
from windowmem.policies.n8n import visible_turns
from windowmem.turn_ranges import turn_runs

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "03_window_buffer_memory.ipynb"


def explorer_readout(page) -> tuple[str, str]:
    """The visible-turns text the explorer shows, and its fact verdict (``true``/``false``)."""
    output = page.locator(".wm-output")
    return (
        output.locator(".wm-visible-turns").inner_text().strip(),
        output.locator(".wm-fact").get_attribute("data-fact-visible"),
    )


def wait_for_view(page, window: int, turn: int) -> None:
    """Wait until the live explorer shows *window* and *turn* (the kernel answered the slider)."""
    page.locator(f'.wm-output .wm-explorer[data-window="{window}"][data-turn="{turn}"]').wait_for(
        timeout=20_000
    )


def test_lesson3_explorer_follows_its_sliders(lab_server, page):
    """All cells run without error, and the sliders move the timeline exactly as visible_turns says."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    explorer = page.locator(".wm-output").first
    explorer.scroll_into_view_if_needed()
    wait_for_view(page, 5, 7)
    assert (slider_value(page, "wm-window"), slider_value(page, "wm-turn-slider")) == (5, 7)
    assert explorer_readout(page) == (turn_runs(visible_turns(5, 7)), "false")
    screenshot(page, "lesson03-explorer-window5-turn7")

    # Window 5 -> 10 with the keyboard, as a person nudging the handle: #6023 comes back.
    nudge_slider(page, "wm-window", 5)
    wait_for_view(page, 10, 7)
    assert explorer_readout(page) == (turn_runs(visible_turns(10, 7)), "true")

    # Turn 7 -> 3 with the keyboard, then window 10 -> 1 typed in the readout.
    nudge_slider(page, "wm-turn-slider", -4)
    wait_for_view(page, 10, 3)
    type_slider_value(page, "wm-window", 1)
    wait_for_view(page, 1, 3)
    assert explorer_readout(page) == (turn_runs(visible_turns(1, 3)), "false")

    # Window 0 is n8n's "load everything".
    type_slider_value(page, "wm-window", 0)
    wait_for_view(page, 0, 3)
    assert explorer_readout(page)[0] == turn_runs(visible_turns(0, 3))
    assert ANCHOR_FACTS["marta"] in explorer.inner_text()
    screenshot(page, "lesson03-explorer-window0-turn3")

    # The long generated chat, at the far end of both sliders.
    page.locator(".wm-conversation select").select_option(label="support_500")
    # The turn slider's new range comes back from the kernel with the new view: wait for it.
    page.locator(".wm-output .wm-explorer", has_text="support_500").wait_for(timeout=20_000)
    type_slider_value(page, "wm-window", 50)
    wait_for_view(page, 50, 3)
    type_slider_value(page, "wm-turn-slider", 500)
    wait_for_view(page, 50, 500)
    assert explorer_readout(page)[0] == turn_runs(visible_turns(50, 500))
    screenshot(page, "lesson03-explorer-window50-turn500")


def test_lesson3_explorer_reads_a_typed_conversation(lab_server, page):
    """Choosing "your own" and typing lines replaces the conversation and resizes the turn slider."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    page.locator(".wm-conversation select").select_option(label="your own (type it below)")
    box = page.locator(".wm-own-text textarea")
    box.fill(
        "user: I'm Carlos Ruiz from Empanadas del Sur\nassistant: Hello Carlos!\n"
        "user: Opening hours?\nassistant: 8 to 6.\nuser: Who am I?"
    )
    box.blur()  # the text box updates on blur, like a person clicking away
    page.locator(".wm-fact-text input").fill("Carlos Ruiz")
    page.locator('.wm-output .wm-explorer[data-turn="3"]').wait_for(timeout=20_000)
    assert slider_value(page, "wm-turn-slider") == 3
    type_slider_value(page, "wm-window", 1)
    wait_for_view(page, 1, 3)
    assert explorer_readout(page) == (turn_runs(visible_turns(1, 3)), "false")
    screenshot(page, "lesson03-explorer-typed")
