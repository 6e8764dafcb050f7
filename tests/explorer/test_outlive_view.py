"""The outlive explorer's pure view and its HTML: settings, counts, and colours a reader can read."""

from __future__ import annotations

import html
import re

import pytest

from windowmem.explorer.outlive_html import render_outlive_html
from windowmem.explorer.outlive_view import outlive_view
from windowmem.outlive.store_scenarios import STORES, play_scenario


def test_the_view_is_the_scenario_s_call():
    view = outlive_view("n8n Postgres table", 2, "the agent restarts", 5)
    call = play_scenario("n8n Postgres table", 2, "the agent restarts")[4]
    assert (view.worker, view.sent, view.stored_after) == (
        call.worker,
        call.sent,
        call.stored_after,
    )
    assert [line.current for line in view.calls] == [False] * 4 + [True, False]
    assert view.missing_turns == (1, 2)
    # The table keeps both turns: the window of 2 left them out, the store did not lose them.
    assert (view.outside_window_turns, view.unstored_turns) == ((1, 2), ())


def test_two_workers_on_simple_memory_miss_the_other_worker_s_turns():
    view = outlive_view("Simple Memory (in-process)", 2, "nothing", 4)
    assert view.missing_turns == (1, 3)
    assert (view.outside_window_turns, view.unstored_turns) == ((), (1, 3))
    html = render_outlive_html(view)
    assert "2 from memory; missing from this store: turns 1, 3</" in html
    assert "outside the window" not in html


def test_spring_ai_s_missing_turns_are_not_in_its_store():
    view = outlive_view("Spring AI JDBC (maxMessages 4)", 1, "nothing", 6)
    assert (view.outside_window_turns, view.unstored_turns) == ((), (1, 2, 3))


@pytest.mark.parametrize("bad", [0, 7, True, "4"])
def test_a_call_outside_the_chat_is_refused(bad):
    with pytest.raises(ValueError, match="call is a turn from 1 to 6"):
        outlive_view(STORES[0], 1, "nothing", bad)


def test_the_html_carries_the_settings_and_every_message():
    view = outlive_view("Spring AI JDBC (maxMessages 4)", 1, "two requests at once", 5)
    page = render_outlive_html(view)
    assert 'data-store="Spring AI JDBC (maxMessages 4)"' in page and 'data-call="5"' in page
    assert f'data-stored="{len(view.stored_after)}"' in page and "only the window" in page
    for message in (*view.sent, *view.stored_after):
        assert html.escape(message.content) in page
    assert page.count('class="wm-stored-row"') == len(view.stored_after)
    assert "<style" not in page and "<script" not in page


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_every_text_colour_has_aa_contrast_on_its_background():
    page = render_outlive_html(outlive_view("Simple Memory (in-process)", 2, "an hour passes", 4))
    pairs = 0
    for style in re.findall(r'style="([^"]*)"', page):
        background = re.search(r"background:(#[0-9a-fA-F]{6})", style)
        colour = re.search(r"(?<![-\w])color:(#[0-9a-fA-F]{6})", style)
        if background and colour:
            light, dark = sorted(
                (_luminance(background.group(1)), _luminance(colour.group(1))), reverse=True
            )
            assert (light + 0.05) / (dark + 0.05) >= 4.5, style
            pairs += 1
    assert pairs >= 3
