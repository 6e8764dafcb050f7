"""n8n Simple Memory: the peers.md run, the agent's orphan clean-up, n8n's turn arithmetic and its bill."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, chat, contents, conversations, turns
from windowmem.conversation import Conversation
from windowmem.cost import input_bill
from windowmem.errors import PolicyError, WindowMemError
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import Memory, drop_orphaned_tool_messages
from windowmem.policies.n8n import (
    N8nSimpleMemory,
    n8n_uniform_bill,
    visible_turns,
)
from windowmem.replay import turn_view
from windowmem.tokens import count_words


def test_default_window_is_five_interactions():
    assert N8nSimpleMemory().size == 5 == N8nSimpleMemory.default_size


def test_peers_run_seven_turns_with_k5_load_u2_to_a6_then_u3_to_a7_and_store_all():
    memory = Memory(N8nSimpleMemory(5))
    memory.add(*turns(6))
    # LangChain saves a turn after the reply, so turn 7 starts by loading the 12 stored messages.
    assert contents(memory.load()) == contents(turns(6, first=2))
    # A replay sends that same window on turn 7.
    replayed = turn_view([*turns(6), user("u7")], N8nSimpleMemory(5), 7)
    assert contents(replayed.window) == contents(turns(6, first=2))
    memory.add(user("u7"), assistant("a7"))
    assert contents(memory.load()) == contents(turns(7, first=3))
    assert len(memory.stored) == 14


def test_k0_loads_every_message():
    assert contents(N8nSimpleMemory(0).window(turns(12))) == contents(turns(12))


def test_negative_or_fractional_window_is_rejected():
    with pytest.raises(PolicyError, match="n8n"):
        N8nSimpleMemory(-1)
    with pytest.raises(PolicyError, match="whole number"):
        N8nSimpleMemory(2.5)  # type: ignore[arg-type]


def test_count_based_window_cuts_a_tool_exchange_and_the_agent_drops_the_orphan():
    stored = chat("[u1, ai(call), tool, a1, u2, a2]")
    window = N8nSimpleMemory(2).load(stored)
    assert contents(window) == ["tool", "a1", "u2", "a2"]
    assert contents(drop_orphaned_tool_messages(window)) == ["a1", "u2", "a2"]


def test_a_trailing_call_without_its_result_is_dropped():
    window = chat("u1 a1 u2 c2")
    assert contents(drop_orphaned_tool_messages(window)) == ["u1", "a1", "u2"]


def test_a_trailing_call_followed_by_some_results_stays_as_in_2_41_1():
    """2.41.1 checks only that results follow a call, not that they answer every call."""
    window = (user("u1"), assistant("c", ["x", "y"]), tool("rx", "x"))
    assert drop_orphaned_tool_messages(window) == window


def test_fact_sheet_vectors_of_2_41_1():
    """The run vectors of the checked fact sheet (B4): leading, looped, trailing."""
    assert contents(drop_orphaned_tool_messages(chat("[tool, ai(call), u]"))) == ["u"]
    assert contents(drop_orphaned_tool_messages(chat("[u, a, u2, ai(call)]"))) == ["u", "a", "u2"]


def test_one_implementation_serves_the_agent_and_the_policy():
    from windowmem.calls.agent_calls import cleanup_orphaned_messages

    assert cleanup_orphaned_messages is drop_orphaned_tool_messages


def test_complete_exchanges_are_kept_at_either_edge():
    window = chat("c1 r1 a1 u2 c2 r2")
    assert drop_orphaned_tool_messages(window) == window


def test_exchanges_inside_the_window_are_not_touched():
    window = chat("u1 c1 a1 u2 a2")  # c1's result is missing, but it is not at an edge
    assert drop_orphaned_tool_messages(window) == window


@PROPERTY_SETTINGS
@given(conversations(), st.integers(1, 6))
def test_cleaned_window_has_no_leading_tool_result_and_no_trailing_call(messages, k):
    cleaned = drop_orphaned_tool_messages(N8nSimpleMemory(k).window(messages))
    assert not cleaned or cleaned[0].role is not Role.TOOL
    assert not cleaned or not cleaned[-1].calls_tool
    assert not cleaned or not (
        cleaned[0].calls_tool and (len(cleaned) < 2 or cleaned[1].role is not Role.TOOL)
    )
    # Only messages from the edges go: what is kept is one unbroken run of the window.
    window = N8nSimpleMemory(k).window(messages)
    assert any(
        window[i : i + len(cleaned)] == cleaned for i in range(len(window) - len(cleaned) + 1)
    )


# --- the process-wide buffer store --------------------------------------------------


@pytest.mark.parametrize("window", [-1, 2.5, "5", True, None])
def test_visible_turns_refuses_a_bad_window(window):
    with pytest.raises(PolicyError, match="Context Window Length"):
        visible_turns(window, 3)


@pytest.mark.parametrize("turn", [0, -2, 1.5])
def test_visible_turns_refuses_a_bad_turn(turn):
    with pytest.raises(WindowMemError, match="turn must be a whole number"):
        visible_turns(5, turn)


def uniform_chat(turn_count: int, s: int, u: int, r: int) -> Conversation:
    head = [system(" ".join(["s"] * s))] if s else []
    body = [
        m
        for _ in range(turn_count)
        for m in (user(" ".join(["u"] * u)), assistant(" ".join(["r"] * r)))
    ]
    return Conversation.of(head + body)


@PROPERTY_SETTINGS
@given(
    st.integers(1, 30), st.integers(0, 12), st.integers(0, 5), st.integers(1, 5), st.integers(0, 5)
)
def test_n8n_bill_equals_the_closed_form(turn_count, window, s, u, r):
    bill = input_bill(uniform_chat(turn_count, s, u, r), N8nSimpleMemory(window), count_words)
    assert bill == n8n_uniform_bill(turn_count, window, s, u, r)


def test_closed_form_past_the_window_grows_linearly():
    # Past turn k+1 every call costs s + u + k(u + r): the bill's increments are constant.
    bills = [n8n_uniform_bill(t, 5, 20, 10, 30) for t in range(7, 12)]
    steps = {b - a for a, b in zip(bills, bills[1:])}
    assert steps == {20 + 10 + 5 * (10 + 30)}
