"""The side-by-side view of lesson 5: every product's exact input per turn, in its own unit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.strategies import PROPERTY_SETTINGS, chat, conversations
from windowmem.errors import PolicyError
from windowmem.examples import load_example
from windowmem.frames import side_by_side_frame
from windowmem.messages import Role, interactions
from windowmem.policies.base import Unit
from windowmem.policies.registry import make_policy
from windowmem.replay import replay
from windowmem.side_by_side import DEFAULT_LINEUP, measure, side_by_side


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(messages=conversations())
def test_each_row_is_that_product_s_replay(messages):
    rows = side_by_side(messages)
    assert len(rows) == len(DEFAULT_LINEUP) * len(interactions(messages))
    for name, size in DEFAULT_LINEUP:
        views = replay(messages, make_policy(name, size))
        mine = [row for row in rows if row.policy == name]
        assert [row.sent for row in mine] == [view.sent for view in views]
        assert [row.turn for row in mine] == list(range(1, len(views) + 1))


def test_units_on_the_tool_use_example():
    """Turn 2 of the tool-use example: one earlier turn holding a tool call, counted four ways."""
    rows = {row.policy: row for row in side_by_side(load_example("tool_use")) if row.turn == 2}
    assert rows["n8n"].unit is Unit.INTERACTIONS and rows["n8n"].amount == 2
    assert rows["spring-ai"].amount == 5  # u1, the call, its result, a1, u2
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
    assert list(frame.columns) == [name for name, _ in DEFAULT_LINEUP]
    assert frame.index.name == "turn" and frame.loc[1, "n8n"] == "1 interactions (none)"


def test_a_bad_lineup_names_the_policy():
    with pytest.raises(PolicyError, match="langgraph"):
        side_by_side(chat("u1 a1"), [("langgraph", 3)])
