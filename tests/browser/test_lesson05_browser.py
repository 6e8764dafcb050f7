"""Lesson 5 in a real JupyterLab: run every cell, move the explorer's controls, check it follows windowmem."""

from __future__ import annotations

import pytest

from tests.browser.lab_harness import (
    error_outputs,
    nudge_slider,
    open_notebook,
    pristine_notebook,
    run_all_cells,
    screenshot,
    slider_value,
    type_slider_value,
)
from tests.conftest import REPO_ROOT as REPO
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import FactPlace, framework_lineup, side_by_side
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.tokens import qwen_counter

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = "05_designing_multi_turn_conversations.ipynb"
CHAT = load_example("two_orders")
FACT = ANCHOR_FACTS["two_orders"]
COUNTER = qwen_counter()
ROWS = side_by_side(CHAT, framework_lineup())


def places(turn: int) -> dict[str, str]:
    """Where the fact is in each product's array on *turn*, by windowmem's replay."""
    return {r.policy: r.fact_place(FACT).value for r in ROWS if r.turn == turn}


def shown_places(page) -> dict[str, str]:
    cards = page.locator(".wm-output .wm-product")
    return {
        cards.nth(i).get_attribute("data-policy"): cards.nth(i).get_attribute("data-place")
        for i in range(cards.count())
    }


def wait_for(page, selector: str) -> None:
    page.locator(f".wm-output {selector}").wait_for(timeout=20_000)


def test_lesson5_explorer_follows_its_controls(lab_server, page):
    """All cells run; the turn slider, the fact toggle and the schedule change the view as windowmem says."""
    open_notebook(page, lab_server, NOTEBOOK)
    run_all_cells(page)
    assert error_outputs(page) == []

    explorer = page.locator(".wm-output").first
    explorer.scroll_into_view_if_needed()
    wait_for(page, '.wm-design[data-turn="3"][data-in-system="false"]')
    assert slider_value(page, "wm-turn-slider") == 3
    assert shown_places(page) == places(3)
    assert shown_places(page)["n8n"] == FactPlace.MEMORY.value
    assert explorer.locator(".wm-fact").count() >= 1  # highlighted where still sent
    screenshot(page, "lesson05-explorer-turn3")

    # Turn 3 -> 9 with the keyboard: no framework sends turn 1 there.
    nudge_slider(page, "wm-turn-slider", 6)
    wait_for(page, '.wm-design[data-turn="9"]')
    assert shown_places(page) == places(9)
    assert FactPlace.MEMORY.value not in shown_places(page).values()

    # The fact in the system prompt: every card has it.
    page.locator(".wm-fact-toggle button", has_text="also in the system prompt").click()
    wait_for(page, '.wm-design[data-turn="9"][data-in-system="true"]')
    assert set(shown_places(page).values()) == {FactPlace.SYSTEM.value}
    assert int(explorer.locator(".wm-reaching").inner_text()) == len(ROWS) // CHAT.turn_count

    # A schedule that keeps four turns: the summary is cut on the calls windowmem says.
    type_slider_value(page, "wm-every", 2)
    type_slider_value(page, "wm-keep", 4)
    wait_for(page, '.wm-design[data-every="2"][data-keep="4"]')
    schedule = rolling_summary(CHAT, window=5, every=2, keep_turns=4, counter=COUNTER)
    rows = page.locator(".wm-output .wm-schedule-row")
    assert [rows.nth(i).get_attribute("data-sent") for i in range(rows.count())] == [
        str(t.summary_sent).lower() for t in schedule
    ]
    saved = int(explorer.locator(".wm-savings").get_attribute("data-summarised"))
    assert saved == sum(t.input_tokens for t in schedule)
    screenshot(page, "lesson05-explorer-schedule")


def test_lesson5_snapshot_is_coloured_without_a_kernel(lab_server, page):
    """The stored snapshot keeps its inline colours in an untrusted notebook."""
    open_notebook(page, lab_server, pristine_notebook(lab_server, REPO / "course" / NOTEBOOK))
    mark = page.locator(".jp-OutputArea-output .wm-fact").first
    mark.wait_for(state="attached", timeout=30_000)
    # #fff8c5 behind dark text: the highlight of windowmem.explorer.design_html.
    assert mark.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 248, 197)"
