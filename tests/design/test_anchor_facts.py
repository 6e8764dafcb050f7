"""Every product's agent on one conversation: n8n's runs, Spring AI's advisors, the others' replays."""

from __future__ import annotations

import pytest

from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import agent_runs
from windowmem.design.anchor_facts import turns_reached, with_fact_in_system_prompt
from windowmem.design.side_by_side import FactPlace, questions_and_answers, side_by_side
from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.messages import Role
from windowmem.policies.registry import make_policy
from windowmem.replay import replay

CHAT = load_example("two_orders")
FACT = ANCHOR_FACTS["two_orders"]
POLICIES = [
    make_policy("n8n", 5),
    make_policy("langchain-py", 5),
    make_policy("spring-ai", 20),
    make_policy("spring-ai-1x", 20),
    make_policy("tensorify", 20),
    make_policy("semantic-kernel", 10, threshold=2),
    make_policy("openai-agents"),
    make_policy("langgraph"),
]


def test_rows_are_each_product_s_agent():
    rows = side_by_side(CHAT, POLICIES)
    assert len(rows) == len(POLICIES) * CHAT.turn_count
    by = lambda name: [r for r in rows if r.policy == name]  # noqa: E731
    assert [r.sent for r in by("n8n")] == [
        run.calls[0].messages for run in agent_runs(CHAT, POLICIES[0])
    ]
    assert [r.sent for r in by("spring-ai")] == [c.sent for c in advisor_calls(CHAT, POLICIES[2])]
    assert [r.sent for r in by("langgraph")] == [v.sent for v in replay(CHAT, POLICIES[-1])]


def test_spring_ai_and_langchain_store_no_tool_messages():
    stored = questions_and_answers(CHAT).messages
    assert not any(m.role is Role.TOOL or m.calls_tool for m in stored)
    assert len(stored) == 1 + 2 * CHAT.turn_count
    rows = [r for r in side_by_side(CHAT, [POLICIES[1]]) if r.turn == 9]
    assert rows[0].visible_turns == (4, 5, 6, 7, 8)  # five pairs: five whole turns
    rows = [r for r in side_by_side(CHAT, [POLICIES[2]])]
    assert all(not any(m.role is Role.TOOL for m in r.sent) for r in rows)


def test_tensorify_saves_only_the_question_and_the_reply():
    # Its docs: after the agent answers, the new user message and the reply are saved.
    rows = side_by_side(CHAT, [POLICIES[4]])
    assert all(not any(m.role is Role.TOOL or m.calls_tool for m in r.sent) for r in rows)
    assert rows[-1].amount == 2 * (CHAT.turn_count - 1) + 1  # every earlier pair, and the question


def test_n8n_loses_the_order_number_when_tool_turns_fill_its_ten_slots():
    rows = side_by_side(CHAT, POLICIES)
    assert turns_reached(rows, FACT, "n8n") == (1, 2, 3)
    assert turns_reached(rows, FACT, "spring-ai") == tuple(range(1, 10))


def test_in_the_system_prompt_the_fact_reaches_every_call_of_every_product():
    anchored = with_fact_in_system_prompt(CHAT, f"Order on file: {FACT}")
    rows = side_by_side(anchored, POLICIES)
    assert all(r.fact_place(FACT) is FactPlace.SYSTEM for r in rows)


@pytest.mark.parametrize(
    "turn, place", [(1, FactPlace.INPUT), (2, FactPlace.MEMORY), (9, FactPlace.NOT_SENT)]
)
def test_fact_place(turn, place):
    (row,) = [r for r in side_by_side(CHAT, POLICIES[:1]) if r.turn == turn]
    assert row.fact_place(FACT) is place
