"""Our LangGraph models against real agents: langgraph 1.2 ``create_react_agent`` with a
``pre_model_hook``, and langchain 1.5 ``create_agent`` with ``SummarizationMiddleware``.

Random conversations with tool calls are played turn by turn through the agent with a
scripted chat model and ``InMemorySaver``; the first model call of every turn must
receive what our replay sends (system prompt included), and the saved thread must be
what our memory stores. Vectors name the behaviour and the version they were run on.
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
from windowmem.policies.langgraph import (
    SUMMARY_PREFIX,
    LangChainSummarization,
    LangGraphThread,
    LangGraphTrimInput,
    LangGraphTrimState,
    count_summarised,
)
from windowmem.replay import replay

pytest.importorskip("langgraph.prebuilt")
pytest.importorskip("langchain.agents.middleware")
driver = pytest.importorskip("tests.policies.langgraph_driver")

VERSIONS = {p: importlib.metadata.version(p) for p in ("langgraph", "langchain", "langchain-core")}

agent_conversations = conversations(mid_chat_system=False).map(driver.with_replies)


def check(messages, build, policy) -> None:
    """The real agent's model inputs (every call's and each turn's first) and saved thread are
    our memory's and our replay's."""
    run = driver.play(messages, build)
    assert run.every_input == every_call(messages, policy)
    ours = [[our_key(m) for m in view.sent] for view in replay(messages, policy)]
    assert run.first_inputs == ours
    memory = Memory(policy)
    memory.add(*(m for m in messages if m.role is not Role.SYSTEM))
    assert run.thread == [our_key(m) for m in memory.stored]


def our_summariser(messages) -> str:
    """Our stand-in summariser, given to the middleware in LangChain's message types."""
    return count_summarised([driver.from_langchain(m) for m in messages])


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(messages=agent_conversations, budget=st.integers(0, 30), replace_state=st.booleans())
def test_pre_model_hook_trims_as_langgraph_does(messages, budget, replace_state):
    policy = (LangGraphTrimState if replace_state else LangGraphTrimInput)(budget)
    check(
        messages, driver.react_agent(driver.trim_hook(budget, replace_state=replace_state)), policy
    )


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(
    messages=agent_conversations,
    keep=st.integers(1, 12),
    keep_tokens=st.booleans(),
    trigger_messages=st.one_of(st.none(), st.integers(1, 14)),
    trigger_tokens=st.one_of(st.none(), st.integers(1, 40)),
)
def test_summarization_middleware_as_langchain_does(
    messages, keep, keep_tokens, trigger_messages, trigger_tokens
):
    clause = {
        kind: value
        for kind, value in (("messages", trigger_messages), ("tokens", trigger_tokens))
        if value is not None
    }
    build = driver.summarizing_agent(
        trigger=clause or None,
        keep=("tokens" if keep_tokens else "messages", keep),
        token_counter=driver.words,
        summarizer=our_summariser,
        trim_tokens_to_summarize=None,
    )
    policy = LangChainSummarization(
        keep,
        trigger_tokens=trigger_tokens,
        trigger_messages=trigger_messages,
        keep_tokens=keep_tokens,
    )
    check(messages, build, policy)


@settings(parent=PROPERTY_SETTINGS, max_examples=30)
@given(messages=agent_conversations)
def test_a_thread_without_a_hook_sends_everything(messages):
    check(messages, driver.react_agent(None), LangGraphThread())


# --- named vectors (langgraph 1.2.24, langchain 1.5.2, langchain-core 1.8.3) ------------


def test_versions_are_the_ones_the_vectors_were_run_on():
    """A newer release may change these rules: re-run the vectors and update the models."""
    assert VERSIONS["langgraph"].startswith("1.") and VERSIONS["langchain"].startswith("1.")


def test_an_empty_trim_sends_the_whole_thread():
    """``llm_input_messages or messages``: a budget nothing fits in sends every message."""
    history = driver.with_replies(chat("u1 a1 u2 a2 u3 a3"))
    run = driver.play(history, driver.react_agent(driver.trim_hook(0, replace_state=False)))
    assert len(run.first_inputs[-1]) == 5  # u1 a1 u2 a2 u3: the whole thread, not nothing
    assert len(LangGraphTrimInput(0).window(history[:5])) == 5


def test_trimming_the_input_keeps_the_thread_trimming_the_state_cuts_it():
    history = turns(5)
    kept = driver.play(history, driver.react_agent(driver.trim_hook(3, replace_state=False)))
    cut = driver.play(history, driver.react_agent(driver.trim_hook(3, replace_state=True)))
    assert kept.first_inputs == cut.first_inputs  # the model sees the same messages...
    assert len(kept.thread) == 10  # ...but one thread still holds every message
    assert [c for _, c, _ in cut.thread] == ["u4", "a4", "u5", "a5"]
    memory = Memory(LangGraphTrimState(3))
    memory.add(*history)
    assert [m.content for m in memory.stored] == ["u4", "a4", "u5", "a5"]


def test_summarization_keeps_a_call_with_its_results():
    """keep=2 would start on r2 (a tool result): the cut moves back to its call c2."""
    history = driver.with_replies(chat("u1 a1 u2 c2 r2 a2 u3 a3"))
    build = driver.summarizing_agent(
        trigger=("messages", 6), keep=("messages", 3), summarizer=our_summariser
    )
    run = driver.play(history, build)
    policy = LangChainSummarization(3, trigger_tokens=None, trigger_messages=6)
    assert run.first_inputs[-1][0][1] == SUMMARY_PREFIX + "summary of 3 messages"
    assert [c for _, c, _ in run.first_inputs[-1][1:]] == ["c2", "r2", "a2", "u3"]
    ours = [[our_key(m) for m in view.sent] for view in replay(history, policy)]
    assert ours == run.first_inputs


def test_a_fake_model_writes_the_summary():
    """With the middleware's own model path (prompt, trim, ``response.text.strip()``)."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    history = turns(4)
    summariser = FakeListChatModel(responses=["  Marta asked about order 6023.  "] * 5)
    build = driver.summarizing_agent(
        model=summariser, trigger=("messages", 5), keep=("messages", 2)
    )
    run = driver.play(history, build)
    policy = LangChainSummarization(
        2,
        trigger_tokens=None,
        trigger_messages=5,
        summarizer=lambda messages: "Marta asked about order 6023.",
    )
    ours = [[our_key(m) for m in view.sent] for view in replay(history, policy)]
    assert ours == run.first_inputs
    assert run.thread[0][1] == SUMMARY_PREFIX + "Marta asked about order 6023."


def test_the_default_trigger_never_summarises():
    """``SummarizationMiddleware(model)`` has trigger None: nothing is ever summarised."""
    history = turns(12)
    run = driver.play(history, driver.summarizing_agent(summarizer=our_summariser))
    assert len(run.thread) == 24
    policy = LangChainSummarization(trigger_tokens=None)
    assert len(policy.window(history)) == 24
