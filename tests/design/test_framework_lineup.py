"""Lesson 5's code, run: the LangChain middleware and the Agents SDK session the lesson shows,
driven through the real packages with a scripted model on Valentina's chat, send what
``framework_lineup`` predicts on every turn (the arrays the lesson's tables are built from)."""

from __future__ import annotations

from typing import NotRequired

import pytest

from tests.policies.model_calls import every_call, our_key
from windowmem.design.side_by_side import SAME_NUMBER, framework_lineup, stored_per_turn
from windowmem.errors import PolicyError
from windowmem.examples import load_example
from windowmem.replay import replay

CHAT = load_example("two_orders")


def lesson_middleware():
    """The lesson's ``keep_last_10``, word for word but the decorator's import."""
    from langchain.agents.middleware import before_model
    from langchain_core.messages import RemoveMessage, trim_messages
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    @before_model
    def keep_last_10(state, runtime):
        kept = trim_messages(
            state["messages"],
            strategy="last",
            token_counter=len,
            max_tokens=10,
            start_on="human",
            end_on=("human", "tool"),
        )
        return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept]}

    return keep_last_10


def test_the_lesson_s_langchain_middleware_sends_what_the_lineup_predicts():
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    policy = framework_lineup()[1]
    assert policy.name == "langchain-trim-state" and policy.size == SAME_NUMBER
    messages = driver.with_replies(CHAT.messages)
    run = driver.play(messages, driver.middleware_agent(lesson_middleware()))
    assert run.first_inputs == [
        [our_key(m) for m in view.sent] for view in replay(messages, policy)
    ]
    assert run.every_input == every_call(messages, policy)


def test_the_lesson_s_agents_sdk_session_sends_what_the_lineup_predicts():
    pytest.importorskip("agents")
    driver = pytest.importorskip("tests.policies.openai_agents_driver")
    policy = framework_lineup()[2]
    assert policy.name == "openai-agents" and policy.size == SAME_NUMBER
    run = driver.play(CHAT.messages, SAME_NUMBER)
    assert run.first_inputs == driver.expected_inputs(CHAT.messages, policy)
    # Valentina's turn 3 asked for two tools at once: six items stored, as the lesson's table says.
    assert stored_per_turn(CHAT, policy)[2] == 6
    assert len(run.stored) == sum(stored_per_turn(CHAT, policy))


def test_the_lineup_wants_an_even_number():
    assert [p.size for p in framework_lineup(4)] == [2, 4, 4, 4]
    for bad in (3, 0, -2, True, "10"):
        with pytest.raises(PolicyError, match="even whole number"):
            framework_lineup(bad)


def anchor_middleware():
    """The lesson's anchor-fact fix in LangChain 1.x: save the order number in a state key of
    its own when first given, and read it in ``@dynamic_prompt`` on every call."""
    import re

    from langchain.agents import AgentState
    from langchain.agents.middleware import before_model, dynamic_prompt

    class OrderState(AgentState):
        order: NotRequired[str]

    @before_model(state_schema=OrderState)
    def remember_order(state, runtime):
        if not state.get("order"):
            for m in state["messages"]:
                if m.type == "human" and (found := re.search(r"#\d+", str(m.content))):
                    return {"order": found.group()}

    @dynamic_prompt
    def pin_order(request):
        order = request.state.get("order")
        return PROMPT + (f"\nOrder on file: {order}" if order else "")

    return remember_order, pin_order


PROMPT = "You are TuTienda's support agent."


def test_the_lesson_s_anchor_fix_carries_the_order_on_every_call():
    pytest.importorskip("langchain.agents.middleware")
    driver = pytest.importorskip("tests.policies.langgraph_driver")
    messages = driver.with_replies(CHAT.messages)
    agent = driver.middleware_agent(lesson_middleware(), *anchor_middleware())
    run = driver.play(messages, agent)
    assert len(run.first_inputs) == CHAT.turn_count == 9
    for sent in run.every_input:
        system = [content for role, content, _ in sent if role == "system"]
        assert system == [PROMPT + "\nOrder on file: #4417"]
    # Turn 9's call: the window has lost turn 1, the system prompt still carries #4417.
    turn_9 = run.first_inputs[8]
    assert not any("#4417" in content for role, content, _ in turn_9 if role != "system")
