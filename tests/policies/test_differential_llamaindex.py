"""Our LlamaIndex model against llama-index-core's ChatMemoryBuffer, with a word tokenizer (no download)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import (
    PROPERTY_SETTINGS,
    chat,
    conversations,
    message_lists,
    roles_and_contents,
)
from windowmem.messages import Message
from windowmem.policies import LlamaIndexChatMemoryBuffer

memory_module = pytest.importorskip("llama_index.core.memory")
llm_types = pytest.importorskip("llama_index.core.base.llms.types")


def split_words(text: str) -> list[str]:
    """A tokenizer for LlamaIndex that needs no vocabulary: one token per word."""
    return text.split()


def llama_window(messages: tuple[Message, ...], limit: int) -> list[tuple[str, str]]:
    """What ChatMemoryBuffer.get() returns after *messages* were put one by one."""
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # ChatMemoryBuffer is deprecated; its behaviour is what we model
        memory = memory_module.ChatMemoryBuffer.from_defaults(
            token_limit=limit, tokenizer_fn=split_words
        )
        for message in messages:
            memory.put(llm_types.ChatMessage(role=message.role.value, content=message.content))
        return [(m.role.value, m.content) for m in memory.get()]


@PROPERTY_SETTINGS
@given(
    messages=st.one_of(conversations(), message_lists()),
    limit=st.integers(1, 40),
    joined=st.booleans(),
)
def test_chat_memory_buffer_matches_llama_index(messages, limit, joined):
    policy = LlamaIndexChatMemoryBuffer(limit, count_joined=joined)
    assert roles_and_contents(policy.window(messages)) == llama_window(messages, limit)


@pytest.mark.parametrize(
    ("history", "limit"),
    [
        ("[u1,a1,u2,a2,u3,a3]", 5),
        ("[u1,a1,u2,a2,u3,a3]", 3),
        ("[s0,u1,a1,u2,a2]", 4),
        ("[u1,a1,u2,a2]", 1),
    ],
)
def test_peers_vectors_are_what_llama_index_returns(history, limit):
    messages = chat(history)
    assert roles_and_contents(LlamaIndexChatMemoryBuffer(limit).window(messages)) == llama_window(
        messages, limit
    )


def test_llama_index_rejects_a_zero_limit_as_we_do():
    with pytest.raises(ValueError):
        memory_module.ChatMemoryBuffer.from_defaults(token_limit=0, tokenizer_fn=split_words)


@settings(parent=PROPERTY_SETTINGS, max_examples=60)
@given(messages=st.one_of(conversations(), message_lists()), limit=st.integers(1, 60))
def test_joined_counting_with_qwen_matches_llama_index_with_the_qwen_tokenizer(messages, limit):
    tokens = pytest.importorskip("windowmem.tokens")
    qwen = tokens._qwen_tokenizer()

    def qwen_tokens(text: str) -> list[int]:
        return qwen.encode(text, allowed_special=set(), disallowed_special=())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = memory_module.ChatMemoryBuffer.from_defaults(
            token_limit=limit, tokenizer_fn=qwen_tokens
        )
        for message in messages:
            memory.put(llm_types.ChatMessage(role=message.role.value, content=message.content))
        expected = [(m.role.value, m.content) for m in memory.get()]
    policy = LlamaIndexChatMemoryBuffer(limit, counter=tokens.qwen_counter(), count_joined=True)
    assert roles_and_contents(policy.window(messages)) == expected
