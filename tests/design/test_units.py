"""Unit conversion (lesson 5): interactions, stored messages and whole turns, computed from the turns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from windowmem.calls.agent_calls import agent_runs
from windowmem.design.units import (
    TurnCoverage,
    messages_for_turns,
    messages_per_turn,
    n8n_loaded_messages,
    stored_turn_sizes,
    tool_calls_per_turn,
    turns_in_window,
)
from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.messages import interactions
from windowmem.policies import N8nSimpleMemory


def test_fact_sheet_turn_sizes():
    """B4: one tool 4 messages, three parallel tools 8; Spring AI's advisors store 2 either way."""
    assert messages_per_turn(0) == 2 and messages_per_turn(1) == 4 and messages_per_turn(3) == 8
    assert messages_per_turn(3, stores_tool_calls=False) == 2


def test_n8n_loads_two_messages_per_interaction_and_everything_at_zero():
    assert n8n_loaded_messages(5) == 10 and n8n_loaded_messages(1) == 2
    assert n8n_loaded_messages(0) is None


def test_twenty_messages_are_ten_spring_turns_even_with_tools():
    sizes = stored_turn_sizes([2, 1, 0] * 5, stores_tool_calls=False)
    assert turns_in_window(20, sizes) == TurnCoverage(10, 0)


def test_a_window_can_end_inside_a_turn():
    assert turns_in_window(10, [4, 4, 4]) == TurnCoverage(2, 2)
    assert turns_in_window(10, [8, 4]) == TurnCoverage(1, 6)
    assert turns_in_window(0, [2]) == TurnCoverage(0, 0)


def test_messages_for_turns_sums_the_newest():
    assert messages_for_turns(2, [6, 4, 2]) == 6 and messages_for_turns(0, [3]) == 0
    with pytest.raises(WindowMemError, match="only 1 turns"):
        messages_for_turns(2, [2])


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3", None])
def test_bad_counts_are_refused(bad):
    with pytest.raises(WindowMemError, match="whole number"):
        messages_per_turn(bad)


def test_the_sizes_are_what_the_n8n_agent_stores_on_the_lesson_chat():
    chat = load_example("two_orders")
    runs = agent_runs(chat, N8nSimpleMemory(5))
    assert stored_turn_sizes(tool_calls_per_turn(chat.messages)) == tuple(
        len(run.saved) for run in runs
    )


@PROPERTY_SETTINGS
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.integers(1, 8))
def test_coverage_is_what_n8n_s_window_holds(calls, k):
    """Whole turns and the partial tail agree with counting the loaded window by hand."""
    from windowmem.messages import assistant, tool, user

    chat = []
    for turn, n in enumerate(calls, start=1):
        chat.append(user(f"u{turn}"))
        for c in range(n):
            chat += [assistant("", [f"c{turn}_{c}"]), tool("r", f"c{turn}_{c}")]
        chat.append(assistant(f"a{turn}"))
    stored = [m for run in agent_runs(chat, N8nSimpleMemory(k)) for m in run.saved]
    window = N8nSimpleMemory(k).load(stored)
    # each call is a model round of its own, and n8n stores only a run's last round
    sizes = stored_turn_sizes(tool_calls_per_turn(chat))
    assert sizes == tuple(4 if n else 2 for n in calls)
    coverage = turns_in_window(n8n_loaded_messages(k), sizes)
    owners = [t.number for t in interactions(stored) for _ in t.messages]
    in_window = owners[len(owners) - len(window) :]
    whole = {t for t in set(in_window) if in_window.count(t) == sizes[t - 1]}
    assert coverage.whole_turns == len(whole)
    assert coverage.partial_messages == len(in_window) - sum(sizes[t - 1] for t in whole)
