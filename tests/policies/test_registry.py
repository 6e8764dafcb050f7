"""The policy registry, the Tensorify model, and what every registered policy promises."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from tests.strategies import PROPERTY_SETTINGS, contents, conversations, turns
from windowmem.errors import PolicyError
from windowmem.policies import POLICIES, Memory, TensorifyWindowMemory, make_policy, policy_infos
from windowmem.policies.base import Unit

EXPECTED_NAMES = (
    "n8n",
    "langchain-js",
    "langchain-py",
    "trim-messages",
    "spring-ai",
    "spring-ai-1x",
    "llamaindex",
    "semantic-kernel",
    "tensorify",
    "openai-agents",
    "langgraph",
    "langgraph-trim-input",
    "langgraph-trim-state",
    "langchain-summarization",
    "langchain-trim-input",
    "langchain-trim-state",
    "langchain-context-editing",
    "llamaindex-memory",
    "agent-framework-truncation",
    "agent-framework-summarization",
)


def test_registry_names_are_the_cli_names():
    assert tuple(POLICIES) == EXPECTED_NAMES


def test_defaults_follow_the_products():
    defaults = {info.name: info.default_size for info in policy_infos()}
    assert defaults["n8n"] == 5 and defaults["langchain-py"] == 5 and defaults["langchain-js"] == 5
    assert (
        defaults["spring-ai"] == 20
        and defaults["spring-ai-1x"] == 20
        and defaults["tensorify"] == 20
    )
    assert defaults["llamaindex"] == 3000
    assert defaults["openai-agents"] is None  # SessionSettings().limit: every item is sent


def test_policy_infos_rows():
    rows = {info.name: info for info in policy_infos()}
    assert rows["spring-ai"].trims_on_write and rows["semantic-kernel"].trims_on_write
    assert not rows["n8n"].trims_on_write
    assert rows["trim-messages"].unit is Unit.TOKENS and rows["n8n"].unit is Unit.INTERACTIONS
    assert all(row.description and row.product for row in rows.values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows["n8n"].name = "x"  # type: ignore[misc]


def test_make_policy_uses_the_default_size_or_the_given_one():
    assert make_policy("n8n").size == 5
    assert make_policy("spring-ai", 3).size == 3
    assert make_policy("trim-messages", 10, include_system=True).include_system


def test_unknown_name_lists_the_valid_names():
    with pytest.raises(PolicyError) as error:
        make_policy("langchain")
    assert all(name in str(error.value) for name in EXPECTED_NAMES)


def test_invalid_size_names_the_policy_and_the_accepted_sizes():
    with pytest.raises(PolicyError, match=r"spring-ai.*accepts a whole number of messages >= 1"):
        make_policy("spring-ai", 0)
    with pytest.raises(PolicyError, match="llamaindex"):
        make_policy("llamaindex", -5)


def test_unknown_option_lists_the_options():
    with pytest.raises(PolicyError, match="include_system"):
        make_policy("trim-messages", 5, include_sytem=True)


def test_tensorify_loads_the_last_window_size_messages():
    assert contents(TensorifyWindowMemory(3).window(turns(3))) == ["a2", "u3", "a3"]
    assert TensorifyWindowMemory().size == 20
    with pytest.raises(PolicyError):
        TensorifyWindowMemory(0)


@pytest.mark.parametrize("name", EXPECTED_NAMES)
@settings(parent=PROPERTY_SETTINGS, max_examples=60)  # nine policies: keep the total modest
@given(messages=conversations())
def test_every_window_is_an_ordered_selection_of_what_was_added(name, messages):
    size = 6 if POLICIES[name].unit is not Unit.TOKENS else 12
    policy = make_policy(name, None if name == "langgraph" else size)
    window = policy.window(messages)
    # Each message of the window was added (or, where a product sends part of one, is that
    # part), and the window keeps their order.
    remaining = iter(messages)
    assert all(any(_is_or_part_of(message, added) for added in remaining) for message in window)
    memory = Memory(policy)
    for message in messages:
        memory.add(message)
    assert memory.load() == window


def _is_or_part_of(message, added) -> bool:
    """*message* is *added*, or the part of it an OpenAI Agents session sends when a limit
    cut some of its items: the same role, its text or none, and some of its tool calls."""
    if message is added:
        return True
    if message.content.startswith("Here is a summary of the conversation to date:"):
        return True  # LangChain's SummarizationMiddleware writes one message of its own
    if message.content.startswith("summary of "):
        return True  # Agent Framework's SummarizationStrategy writes one (our stand-in's text)
    if message.content == "[cleared]":  # LangChain's ContextEditingMiddleware clears a result
        return message.role is added.role and message.tool_call_id == added.tool_call_id
    calls = iter(added.tool_calls)
    return (
        message.role is added.role
        and message.content in ("", added.content)
        and all(call in calls for call in message.tool_calls)
    )


def test_superseded_policies_name_registered_successors():
    rows = {info.name: info for info in policy_infos()}
    for row in rows.values():
        assert all(name in POLICIES for name in row.use_instead), row.name
        assert not row.use_instead or row.superseded, row.name
    assert rows["langgraph-trim-input"].use_instead == ("langchain-trim-input",)
    assert rows["llamaindex"].use_instead == ("llamaindex-memory",)
    assert rows["langchain-trim-input"].superseded is None  # the hook it replaces is
    assert "0.3.1" in (rows["langchain-py"].superseded or "")
