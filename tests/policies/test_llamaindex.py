"""LlamaIndex ChatMemoryBuffer: the peers.md vectors (1 word = 1 token) and the rules around them."""

from __future__ import annotations

import pytest

from tests.strategies import chat, contents
from windowmem.errors import PolicyError
from windowmem.messages import assistant, user
from windowmem.policies import LlamaIndexChatMemoryBuffer, Memory


@pytest.mark.parametrize(
    ("history", "limit", "expected"),
    [
        ("[u1,a1,u2,a2,u3,a3]", 5, "u2 a2 u3 a3"),
        ("[u1,a1,u2,a2,u3,a3]", 3, "u3 a3"),
        ("[s0,u1,a1,u2,a2]", 4, "u1 a1 u2 a2"),
        ("[u1,a1,u2,a2]", 1, "a2"),
    ],
)
def test_peers_vectors(history, limit, expected):
    assert contents(LlamaIndexChatMemoryBuffer(limit).window(chat(history))) == expected.split()


def test_last_message_survives_alone_over_the_limit():
    history = (user("short"), assistant("a reply of quite a few words"))
    assert contents(LlamaIndexChatMemoryBuffer(2).window(history)) == [
        "a reply of quite a few words"
    ]


def test_window_never_starts_on_a_tool_result_while_more_could_go():
    history = chat("u1 c1 r1 a1 u2 a2")
    assert contents(LlamaIndexChatMemoryBuffer(4).window(history)) == ["u2", "a2"]


def test_system_messages_are_not_protected():
    assert contents(LlamaIndexChatMemoryBuffer(2).window(chat("s u1 a1"))) == ["u1", "a1"]


def test_storage_keeps_everything_window_applied_on_load():
    memory = Memory(LlamaIndexChatMemoryBuffer(2))
    memory.add(*chat("u1 a1 u2 a2"))
    assert len(memory.stored) == 4 and len(memory.load()) == 2


def test_joined_counting_matches_summed_word_counting():
    history = (
        user("where is"),
        assistant(""),
        user("my order  please"),
        assistant("it ships today"),
    )
    for limit in range(1, 10):
        summed = LlamaIndexChatMemoryBuffer(limit).window(history)
        assert LlamaIndexChatMemoryBuffer(limit, count_joined=True).window(history) == summed


def test_empty_history_loads_nothing():
    assert LlamaIndexChatMemoryBuffer(10).window(()) == ()


def test_limit_must_be_positive_default_3000():
    assert LlamaIndexChatMemoryBuffer().size == 3000
    with pytest.raises(PolicyError, match="at least 1"):
        LlamaIndexChatMemoryBuffer(0)
