"""The side-by-side view of lesson 5: every product's exact input per turn, in its own unit."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings

from tests.strategies import PROPERTY_SETTINGS, chat, conversations
from windowmem.design.side_by_side import default_lineup, measure, side_by_side
from windowmem.errors import PolicyError
from windowmem.examples import load_example
from windowmem.frames import side_by_side_frame
from windowmem.messages import Role, interactions
from windowmem.policies.base import Unit
from windowmem.policies.registry import make_policy
from windowmem.replay import replay


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(messages=conversations(tools=False, mid_chat_system=False))
def test_without_tool_calls_each_row_is_that_product_s_memory_replay(messages):
    """Agents differ from their memories only over tool turns, unanswered runs (n8n stores a run
    once it has an answer, and empty text is none) and system messages met mid-chat (an agent
    stores none): without them, the rows are the memories' replays."""
    chat = [m for m in messages if m.role is not Role.SYSTEM]
    assume(all(a.role is not b.role for a, b in zip(chat, chat[1:])))
    assume(all(m.content for m in chat if m.role is Role.ASSISTANT))
    plain = list(messages)
    rows = side_by_side(plain)
    lineup = default_lineup()
    assert len(rows) == len(lineup) * len(interactions(plain))
    for policy in lineup:
        views = replay(plain, policy)
        mine = [row for row in rows if row.policy == policy.name]
        assert [row.sent for row in mine] == [view.sent for view in views]
        assert [row.turn for row in mine] == list(range(1, len(views) + 1))


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(messages=conversations())
def test_question_and_answer_stores_never_send_a_tool_message(messages):
    """Spring AI's advisors and LangChain's save_context keep no tool call and no tool result."""
    for row in side_by_side(messages, [("spring-ai", 4), ("langchain-py", 2)]):
        assert not any(m.role is Role.TOOL or m.calls_tool for m in row.sent)


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(messages=conversations())
def test_n8n_never_sends_a_tool_result_without_its_call(messages):
    """n8n 2.41.1's agent drops the exchanges its window cut, so every result follows its call."""
    for row in side_by_side(messages, [("n8n", 2)]):
        called: set[str] = set()
        for m in row.sent:
            called.update(m.tool_calls)
            if m.role is Role.TOOL:
                assert m.tool_call_id in called


def test_units_on_the_tool_use_example():
    """Turn 2 of the tool-use example: one earlier turn holding a tool call, counted four ways."""
    rows = {row.policy: row for row in side_by_side(load_example("tool_use")) if row.turn == 2}
    assert rows["n8n"].unit is Unit.INTERACTIONS and rows["n8n"].amount == 2
    assert rows["spring-ai"].amount == 3  # u1, a1, u2: the advisors never stored the call
    assert rows["openai-agents"].unit is Unit.ITEMS and rows["openai-agents"].amount == 5
    assert rows["llamaindex"].unit is Unit.TOKENS
    assert all(row.sent[0].role is Role.SYSTEM for row in rows.values())


def test_a_limit_that_splits_a_call_shows_in_the_items_column():
    history = chat("u1 c1 r1 a1 u2")
    (row,) = [r for r in side_by_side(history, [("openai-agents", 2)]) if r.turn == 2]
    assert [m.content for m in row.sent] == ["a1", "u2"] and row.amount == 2


def test_measure_counts_tokens_with_the_policy_s_counter():
    history = chat("u1 a1")
    assert measure(make_policy("llamaindex"), history) == 2
    assert measure(make_policy("langgraph"), history) == 2


def test_frame_has_a_column_per_product():
    frame = side_by_side_frame(load_example("tool_use"))
    assert list(frame.columns) == [policy.name for policy in default_lineup()]
    assert frame.index.name == "turn" and frame.loc[1, "n8n"] == "1 interactions (none)"


def test_a_bad_lineup_names_the_policy():
    with pytest.raises(PolicyError, match="langgraph"):
        side_by_side(chat("u1 a1"), [("langgraph", 3)])


def test_each_row_counts_the_memory_s_messages_and_the_turns_it_cut():
    """Lesson 5's turn 9: n8n's window starts inside turn 5, Semantic Kernel's holds turn 5 whole."""
    rows = {r.policy: r for r in side_by_side(load_example("two_orders")) if r.turn == 9}
    for row in rows.values():
        system = 1 if row.sent[0].role is Role.SYSTEM else 0
        assert row.memory_messages == len(row.sent) - system - 1  # the new question aside
    n8n = rows["n8n"]
    assert (n8n.memory_messages, n8n.visible_turns, n8n.partial_turns) == (9, (5, 6, 7, 8), (5,))
    assert (
        rows["semantic-kernel"].partial_turns == ()
        and rows["semantic-kernel"].visible_turns[0] == 5
    )
    assert rows["spring-ai"].memory_messages == 16 and rows["spring-ai"].partial_turns == ()


def test_a_window_that_cuts_a_turn_s_question_marks_that_turn_partial():
    history = chat("u1 c1 r1 a1 u2")
    (row,) = [r for r in side_by_side(history, [("n8n", 1)]) if r.turn == 2]
    # The last two stored messages are r1 and a1; the clean-up drops the orphaned r1.
    assert [m.content for m in row.sent][-2:] == ["a1", "u2"]
    assert row.partial_turns == (1,) and row.memory_messages == 1


def test_stored_per_turn_counts_as_each_framework_stores_a_tool_turn():
    """Lesson 5's table: two rounds of one call each, then two calls asked at once, then none."""
    from windowmem.design.side_by_side import framework_lineup, stored_per_turn
    from windowmem.messages import assistant, tool, user

    chat = [
        user("u1"),
        assistant("", ["c1"]),
        tool("r1", "c1"),
        assistant("", ["c2"]),
        tool("r2", "c2"),
        assistant("a1"),
        user("u2"),
        assistant("", ["c3", "c4"]),
        tool("r3", "c3"),
        tool("r4", "c4"),
        assistant("a2"),
        user("u3"),
        assistant("a3"),
    ]
    n8n, langchain, agents_sdk, spring, llamaindex, agent_framework = framework_lineup()
    # n8n keeps the last round only, one assistant message per call: 2 + 2, 2 + 2 × 2, 2.
    assert stored_per_turn(chat, n8n) == (4, 6, 2)
    # LangChain keeps the model's own messages: one assistant message for both calls.
    assert stored_per_turn(chat, langchain) == (6, 5, 2)
    # The Agents SDK: one item per message with text, per function call, per output.
    assert stored_per_turn(chat, agents_sdk) == (6, 6, 2)
    # Spring AI's advisor outside the tool loop: question and answer.
    assert stored_per_turn(chat, spring) == (2, 2, 2)
    # LlamaIndex's FunctionAgent stores the model's messages, a message per result.
    assert stored_per_turn(chat, llamaindex) == (6, 5, 2)
    # The Agent Framework: one tool message for a round's results (turn 2's two results).
    assert stored_per_turn(chat, agent_framework) == (6, 4, 2)
