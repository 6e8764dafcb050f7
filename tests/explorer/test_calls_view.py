"""Lesson 2's explorer view: memory off beside memory on, call by call, and what each tool receives.

Expectations are written from the scenario's messages and the fact sheet's rules, not
read back from windowmem's replay: without memory a call is the system message, the
input and this run's tool steps; with memory the window sits between them; a failed
run writes nothing; a tool's item is its mapping.
"""

from __future__ import annotations

import pytest

from windowmem.calls.agent_calls import Part
from windowmem.calls.tool_scenario import load_tool_scenario, without_tools
from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.explorer.calls_cache import NEW_SESSION_EACH_MESSAGE, ONE_SESSION, CallsCache
from windowmem.explorer.calls_html import render_calls_html
from windowmem.explorer.calls_view import calls_view

SCENARIO = load_tool_scenario("tutienda_tools")


@pytest.fixture(scope="module")
def cache() -> CallsCache:
    return CallsCache(SCENARIO)


def test_memory_off_sends_system_input_and_this_run_only(cache):
    for number in range(1, len(cache.order) + 1):
        view = calls_view(cache, 5, number)
        parts = [row.part for row in view.off.rows]
        expected = [Part.SYSTEM, Part.INPUT] + [Part.THIS_RUN] * (2 if view.round == 2 else 0)
        assert parts == expected, number
        assert view.off.from_memory == 0 and view.off.session_id is None


def test_memory_on_puts_the_window_between_them(cache):
    view = calls_view(cache, 5, 4)  # turn 3, first call: turns 1 and 2 are stored, 6 messages
    parts = [row.part for row in view.on.rows]
    assert parts == [Part.SYSTEM] + [Part.MEMORY] * 6 + [Part.INPUT]
    assert view.on.memory_turns == (1, 2) and view.on.stored_before == 6
    assert view.on.session_id == SCENARIO.session_id


def test_the_failed_run_writes_nothing_and_is_missing_later(cache):
    failed = calls_view(cache, 5, 6)
    assert (failed.turn, failed.reply, failed.answered, failed.on.saves) == (4, None, False, 0)
    after = calls_view(cache, 5, 7)
    assert after.on.stored_before == failed.on.stored_before  # turn 4 added nothing
    assert 4 not in after.on.memory_turns
    assert "Chapinero" not in " ".join(row.content for row in after.on.rows)


def test_window_five_drops_turn_one_on_the_last_call(cache):
    # stored: turn 1 (2 messages), turns 2 and 3 (4 each, with a tool), turn 5 (2) = 12; k=5 loads 10
    last = calls_view(cache, 5, 8)
    assert last.on.stored_before == 12 and last.on.from_memory == 10
    assert last.on.memory_turns == (2, 3, 5)
    assert calls_view(cache, 0, 8).on.memory_turns == (1, 2, 3, 5)  # 0 loads everything


def test_a_new_session_per_message_is_memory_off_plus_a_session(cache):
    for number in range(1, len(cache.order) + 1):
        view = calls_view(cache, 5, number, NEW_SESSION_EACH_MESSAGE)
        assert [r.content for r in view.on.rows] == [r.content for r in view.off.rows]
        assert view.on.stored_before == 0 and view.on.session_id.endswith(f"-{view.turn:02d}")


def test_the_tool_receives_its_mapping_and_nothing_else(cache):
    view = calls_view(cache, 5, 2)
    (delivery,) = view.deliveries
    assert delivery.item == {"order_number": "#6023", "session_id": SCENARIO.session_id}
    assert delivery.tool.workflow_id == "wf-track-order"
    (evidence,) = view.evidence
    assert (evidence.key, evidence.in_off, evidence.in_on) == ("order_number", False, True)
    per_message = calls_view(cache, 5, 2, NEW_SESSION_EACH_MESSAGE).deliveries[0]
    assert per_message.item["session_id"] == SCENARIO.session_id + "-02"
    change = calls_view(cache, 5, 4).deliveries[0].item
    assert change == {
        "order_number": "#6023",
        "new_address": "Calle 93 #11-26, Bogotá",
        "requested_by": "chat agent",
    }


def test_answer_calls_deliver_nothing(cache):
    assert calls_view(cache, 5, 3).deliveries == () and calls_view(cache, 5, 1).evidence == ()


def test_a_conversation_without_tools():
    cache = CallsCache(without_tools(load_example("marta")))
    view = calls_view(cache, 5, 7, ONE_SESSION)
    assert view.on.memory_turns == (2, 3, 4, 5, 6) and view.deliveries == ()
    assert "no tool runs now" in render_calls_html(view)


@pytest.mark.parametrize("number", [0, 9, True, "2"])
def test_out_of_range_calls_are_explained(cache, number):
    with pytest.raises(WindowMemError, match="out of range"):
        calls_view(cache, 5, number)
