"""Our ``create_agent`` middleware models against real langchain 1.x agents.

Random conversations with tool calls are played turn by turn through ``create_agent``
with a scripted chat model and ``InMemorySaver`` (``tests/policies/langgraph_driver.py``).
*Every* model call, also the ones after tool results, must receive what our memory
loads just before that call's reply is added (system prompt first); the first call of
each turn must be our replay's; and the saved thread must be what our memory stores.
Vectors name the behaviour and the version they were run on.
"""

from __future__ import annotations

import importlib.metadata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.policies.model_calls import every_call, our_key
from tests.strategies import PROPERTY_SETTINGS, chat, conversations, turns
from windowmem.messages import Role
from windowmem.policies.base import Memory
from windowmem.policies.langchain_agents import (
    CLEARED_PLACEHOLDER,
    LangChainContextEditing,
    LangChainTrimInput,
    LangChainTrimState,
)
from windowmem.policies.langgraph import LangGraphThread, LangGraphTrimInput
from windowmem.replay import replay

pytest.importorskip("langchain.agents.middleware")
driver = pytest.importorskip("tests.policies.langgraph_driver")
middleware = pytest.importorskip("langchain.agents.middleware")

VERSIONS = {p: importlib.metadata.version(p) for p in ("langgraph", "langchain", "langchain-core")}

agent_conversations = conversations(mid_chat_system=False).map(driver.with_replies)


def check(messages, build, policy) -> None:
    """The real agent's every model input and saved thread are our memory's, and the first
    input of each turn is our replay's."""
    run = driver.play(messages, build)
    assert run.every_input == every_call(messages, policy)
    ours = [[our_key(m) for m in view.sent] for view in replay(messages, policy)]
    assert run.first_inputs == ours
    memory = Memory(policy)
    memory.add(*(m for m in messages if m.role is not Role.SYSTEM))
    assert run.thread == [our_key(m) for m in memory.stored]


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(messages=agent_conversations, budget=st.integers(0, 30), replace_state=st.booleans())
def test_trim_middleware_trims_as_create_agent_does(messages, budget, replace_state):
    policy = (LangChainTrimState if replace_state else LangChainTrimInput)(budget)
    build = driver.middleware_agent(driver.trim_middleware(budget, replace_state=replace_state))
    check(messages, build, policy)


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(
    messages=agent_conversations,
    trigger=st.integers(0, 40),
    keep=st.integers(0, 4),
    clear_at_least=st.integers(0, 8),
)
def test_context_editing_clears_as_langchain_does(messages, trigger, keep, clear_at_least):
    edit = middleware.ClearToolUsesEdit(trigger=trigger, keep=keep, clear_at_least=clear_at_least)
    build = driver.middleware_agent(
        middleware.ContextEditingMiddleware(edits=[edit], token_counter=driver.words)
    )
    policy = LangChainContextEditing(trigger, keep=keep, clear_at_least=clear_at_least)
    check(messages, build, policy)


@settings(parent=PROPERTY_SETTINGS, max_examples=30)
@given(messages=agent_conversations)
def test_create_agent_without_middleware_sends_the_whole_thread(messages):
    """What ``windowmem policies`` says of the deprecated ``create_react_agent`` holds."""
    check(messages, driver.middleware_agent(), LangGraphThread())


# --- named vectors (langchain 1.5.2, langgraph 1.2.24, langchain-core 1.8.3) ------------


def test_versions_are_the_ones_the_vectors_were_run_on():
    """A newer release may change these rules: re-run the vectors and update the models."""
    assert VERSIONS["langchain"].startswith("1.") and VERSIONS["langgraph"].startswith("1.")


def test_an_empty_trim_under_middleware_sends_only_the_system_prompt():
    """``pre_model_hook`` reads ``llm_input_messages or messages``; ``wrap_model_call`` has no
    such fallback: a budget nothing fits in sends the system prompt alone."""
    history = driver.with_replies(chat("s u1 a1 u2 a2 u3 a3"))
    hook = driver.play(history, driver.react_agent(driver.trim_hook(0, replace_state=False)))
    wrapped = driver.play(
        history, driver.middleware_agent(driver.trim_middleware(0, replace_state=False))
    )
    assert [c for _, c, _ in hook.first_inputs[-1]] == ["s", "u1", "a1", "u2", "a2", "u3"]
    assert wrapped.first_inputs[-1] == [("system", "s", ())]
    assert len(wrapped.thread) == 6  # the thread itself keeps every message
    assert len(LangGraphTrimInput(0).window(history[1:6])) == 5
    assert LangChainTrimInput(0).window(history[1:6]) == ()


def test_an_empty_trim_of_the_state_empties_the_thread():
    """``@before_model`` with nothing kept removes every message before each call."""
    history = driver.with_replies(chat("u1 a1 u2 a2"))
    run = driver.play(
        history, driver.middleware_agent(driver.trim_middleware(0, replace_state=True))
    )
    assert run.every_input == [[], []]
    assert [c for _, c, _ in run.thread] == ["a2"]  # the reply is written after the cut
    memory = Memory(LangChainTrimState(0))
    memory.add(*history)
    assert [m.content for m in memory.stored] == ["a2"]


def test_trimming_the_input_keeps_the_thread_trimming_the_state_cuts_it():
    history = turns(5)
    kept = driver.play(
        history, driver.middleware_agent(driver.trim_middleware(3, replace_state=False))
    )
    cut = driver.play(
        history, driver.middleware_agent(driver.trim_middleware(3, replace_state=True))
    )
    assert kept.first_inputs == cut.first_inputs  # the model sees the same messages...
    assert len(kept.thread) == 10  # ...but one thread still holds every message
    assert [c for _, c, _ in cut.thread] == ["u4", "a4", "u5", "a5"]


def test_context_editing_keeps_the_newest_results_and_the_thread():
    """Past the trigger, all tool results but the newest ``keep`` are cleared in the input."""
    history = driver.with_replies(chat("u1 c1 r1 a1 u2 c2 r2 a2 u3 c3 r3 a3 u4 c4 r4 a4 u5"))
    edit = middleware.ClearToolUsesEdit(trigger=10, keep=2)
    run = driver.play(
        history,
        driver.middleware_agent(
            middleware.ContextEditingMiddleware(edits=[edit], token_counter=driver.words)
        ),
    )
    last = [c for _, c, _ in run.first_inputs[-1]]
    assert last.count(CLEARED_PLACEHOLDER) == 2 and "r3" in last and "r4" in last
    assert "r1" not in last and "r2" not in last
    assert "r1" in [c for _, c, _ in run.thread]  # the saved thread keeps the results
    ours = LangChainContextEditing(10, keep=2).window(history[:-1])
    assert [m.content for m in ours] == last


def test_context_editing_at_its_defaults_clears_nothing_in_a_short_chat():
    """``ClearToolUsesEdit()`` triggers past 100,000 tokens: a short chat is sent as it is."""
    history = driver.with_replies(chat("u1 c1 r1 a1 u2 c2 r2 a2 u3 c3 r3 a3 u4 c4 r4 a4"))
    run = driver.play(history, driver.middleware_agent(middleware.ContextEditingMiddleware()))
    assert CLEARED_PLACEHOLDER not in [c for call in run.every_input for _, c, _ in call]
    assert run.every_input == every_call(history, LangChainContextEditing())
