"""Lesson 2 in a real JupyterLab: run every cell, move the explorer's controls, check it follows windowmem."""

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
from windowmem.calls.agent_calls import Part, agent_runs
from windowmem.calls.tool_scenario import load_tool_scenario, session_per_message
from windowmem.policies import N8nSimpleMemory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "02_with_and_without_memory.ipynb"
SCENARIO = load_tool_scenario("tutienda_tools")
#: (turn, round) of each model call of the scenario, in order.
CALLS = [(run.turn, call.round) for run in agent_runs(SCENARIO.conversation) for call in run.calls]


def from_memory(window: int, number: int, per_message: bool = False) -> int:
    """How many messages of call *number* come from memory, by windowmem's replay."""
    ids = session_per_message(SCENARIO.session_id, len(SCENARIO.conversation.interactions))
    runs = agent_runs(
        SCENARIO.conversation, N8nSimpleMemory(window), session_ids=ids if per_message else None
    )
    turn, round_number = CALLS[number - 1]
    return len(runs[turn - 1].calls[round_number - 1].part(Part.MEMORY))


def wait_for_call(page, window: int, number: int) -> None:
    page.locator(f'.wm-output .wm-calls[data-window="{window}"][data-call="{number}"]').wait_for(
        timeout=20_000
    )


def readout(page) -> tuple[int, int]:
    """Messages from memory on the left (off) and on the right (on), as the explorer shows them."""
    output = page.locator(".wm-output")
    return (
        int(output.locator(".wm-off").get_attribute("data-from-memory")),
        int(output.locator(".wm-on").get_attribute("data-from-memory")),
    )


def test_lesson2_explorer_follows_its_controls(lab_server, page):
    """All cells run, and the call slider, the window and the memory mode change the arrays as windowmem says."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    explorer = page.locator(".wm-output").first
    explorer.scroll_into_view_if_needed()
    wait_for_call(page, 5, 2)
    assert (slider_value(page, "wm-window"), slider_value(page, "wm-call-slider")) == (5, 2)
    assert readout(page) == (0, from_memory(5, 2))
    item = explorer.locator(".wm-tool-item").inner_text()
    assert '"order_number":"#6023"' in item and SCENARIO.session_id in item
    screenshot(page, "lesson02-explorer-call2")

    # Call 2 -> 6 with the keyboard: the run that fails, and writes nothing.
    nudge_slider(page, "wm-call-slider", 4)
    wait_for_call(page, 5, 6)
    assert readout(page) == (0, from_memory(5, 6))
    assert "no answer" in explorer.inner_text()

    # Window 5 -> 1 typed, call 6 -> 4: the cut inside turn 2's tool exchange is cleaned.
    type_slider_value(page, "wm-window", 1)
    type_slider_value(page, "wm-call-slider", 4)
    wait_for_call(page, 1, 4)
    assert readout(page) == (0, from_memory(1, 4)) == (0, 1)

    # A new session id per message: memory connected, nothing comes back.
    page.locator(".wm-mode button", has_text="a new session id per message").click()
    page.locator('.wm-output .wm-calls[data-mode="a new session id per message"]').wait_for(
        timeout=20_000
    )
    type_slider_value(page, "wm-window", 5)
    type_slider_value(page, "wm-call-slider", 8)
    wait_for_call(page, 5, 8)
    assert readout(page) == (0, from_memory(5, 8, per_message=True)) == (0, 0)
    screenshot(page, "lesson02-explorer-new-session")

    # Marta's conversation has no tools: the tool panel says so.
    page.locator(".wm-scenario select").select_option(label="marta")
    page.locator(".wm-output .wm-calls", has_text="Marta").wait_for(timeout=20_000)
    assert "no tool runs now" in explorer.inner_text()
