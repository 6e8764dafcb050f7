"""Our LangChain models against the real libraries: langchain-core trim_messages and
langchain-classic ConversationBufferWindowMemory, on random conversations."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import (
    PROPERTY_SETTINGS,
    chat,
    conversations,
    message_lists,
    roles_and_contents,
)
from windowmem.messages import Message, Role
from windowmem.policies import LangChainPyBufferWindow, TrimMessages
from windowmem.tokens import count_messages, count_words

lc_messages = pytest.importorskip("langchain_core.messages")
buffer_window = pytest.importorskip("langchain_classic.memory.buffer_window")

#: LangChain message type -> our role.
ROLE_OF_TYPE = {"system": Role.SYSTEM, "human": Role.USER, "ai": Role.ASSISTANT, "tool": Role.TOOL}


def to_langchain(message: Message):
    """The langchain-core message for one of ours (tool calls keep their ids)."""
    if message.role is Role.SYSTEM:
        return lc_messages.SystemMessage(message.content)
    if message.role is Role.USER:
        return lc_messages.HumanMessage(message.content)
    if message.role is Role.ASSISTANT:
        calls = [
            {"name": "lookup", "args": {}, "id": call, "type": "tool_call"}
            for call in message.tool_calls
        ]
        return lc_messages.AIMessage(message.content, tool_calls=calls)
    return lc_messages.ToolMessage(message.content, tool_call_id=message.tool_call_id or "unknown")


def from_langchain(messages) -> list[tuple[str, str]]:
    return [(ROLE_OF_TYPE[m.type].value, m.content) for m in messages]


def words_in(messages) -> int:
    """A list token counter for LangChain: words of every message's content."""
    return sum(len(m.content.split()) for m in messages)


role_choices = st.sampled_from([None, "human", "ai", "tool", "system"])


@PROPERTY_SETTINGS
@given(
    messages=st.one_of(conversations(), message_lists()),
    budget=st.integers(0, 40),
    include_system=st.booleans(),
    start_on=role_choices,
    end_on=role_choices,
    by_words=st.booleans(),
)
def test_trim_messages_matches_langchain_core(
    messages, budget, include_system, start_on, end_on, by_words
):
    expected = lc_messages.trim_messages(
        [to_langchain(m) for m in messages],
        max_tokens=budget,
        strategy="last",
        token_counter=words_in if by_words else len,
        include_system=include_system,
        start_on=start_on,
        end_on=end_on,
    )
    policy = TrimMessages(
        budget,
        counter=count_words if by_words else count_messages,
        include_system=include_system,
        start_on=start_on,
        end_on=end_on,
    )
    assert roles_and_contents(policy.window(messages)) == from_langchain(expected)


@pytest.mark.parametrize(
    ("max_tokens", "include_system", "start_on"),
    [
        (4, False, None),
        (4, True, None),
        (4, True, "human"),
        (5, True, "human"),
        (0, True, None),
        (0, False, None),
        (100, False, "human"),
    ],
)
def test_peers_table_is_what_langchain_core_returns(max_tokens, include_system, start_on):
    history = chat("[s,u1,a1,u2,a2,u3,a3]")
    expected = lc_messages.trim_messages(
        [to_langchain(m) for m in history],
        max_tokens=max_tokens,
        token_counter=len,
        include_system=include_system,
        start_on=start_on,
    )
    policy = TrimMessages(
        max_tokens, counter=count_messages, include_system=include_system, start_on=start_on
    )
    assert roles_and_contents(policy.window(history)) == from_langchain(expected)


def classic_window(messages, k: int) -> list[tuple[str, str]]:
    """What langchain-classic's ConversationBufferWindowMemory loads after *messages* were added one by one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the class is deprecated; its behaviour is what we model
        memory = buffer_window.ConversationBufferWindowMemory(k=k, return_messages=True)
        for message in messages:
            memory.chat_memory.add_message(to_langchain(message))
        return from_langchain(memory.load_memory_variables({})["history"])


@PROPERTY_SETTINGS
@given(messages=st.one_of(conversations(), message_lists()), k=st.integers(-3, 12))
def test_buffer_window_matches_langchain_classic(messages, k):
    assert roles_and_contents(LangChainPyBufferWindow(k).window(messages)) == classic_window(
        messages, k
    )


def test_buffer_window_default_k_is_five_in_langchain_classic():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert buffer_window.ConversationBufferWindowMemory().k == LangChainPyBufferWindow().size


def test_buffer_window_through_save_context_matches_too():
    history = chat("u1 a1 u2 a2 u3 a3 u4 a4")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = buffer_window.ConversationBufferWindowMemory(k=3, return_messages=True)
        for question, answer in zip(history[::2], history[1::2]):
            memory.save_context({"input": question.content}, {"output": answer.content})
        loaded = from_langchain(memory.load_memory_variables({})["history"])
    assert roles_and_contents(LangChainPyBufferWindow(3).window(history)) == loaded
