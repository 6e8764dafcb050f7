"""Lesson 2's explorer HTML: what the browser test and a reader without a kernel see."""

from __future__ import annotations

import re

import pytest

from windowmem.calls.tool_scenario import load_tool_scenario, without_tools
from windowmem.examples import load_example
from windowmem.explorer.calls_cache import CallsCache
from windowmem.explorer.calls_html import render_calls_error, render_calls_html
from windowmem.explorer.calls_view import calls_view

SCENARIO = load_tool_scenario("tutienda_tools")


@pytest.fixture(scope="module")
def cache() -> CallsCache:
    return CallsCache(SCENARIO)


def test_html_carries_what_the_browser_test_reads(cache):
    text = render_calls_html(calls_view(cache, 5, 2))
    assert 'data-call="2"' in text and 'data-window="5"' in text
    assert re.search(r'class="wm-on" data-messages="4" data-from-memory="2"', text)
    assert re.search(r'class="wm-off" data-messages="2" data-from-memory="0"', text)
    assert "wm-tool-item" in text and "&quot;order_number&quot;:&quot;#6023&quot;" in text
    failed = render_calls_html(calls_view(cache, 5, 6))
    assert "no answer" in failed and "nothing" in failed
    assert "&lt;b&gt;" in render_calls_error("<b>")


def test_a_conversation_without_tools_says_no_tool_runs():
    view = calls_view(CallsCache(without_tools(load_example("marta"))), 5, 7)
    assert "no tool runs now" in render_calls_html(view)


def test_the_turns_that_reach_a_call_are_named_in_the_right_number(cache):
    # Call 2 loads turn 1 alone, call 4 (turn 3's first) loads turns 1 and 2.
    one = render_calls_html(calls_view(cache, 5, 2))
    two = render_calls_html(calls_view(cache, 5, 4))
    assert "2 reach this call (turn 1)" in one and "(turns 1)" not in one
    assert "6 reach this call (turns 1, 2)" in two
