"""Semantic Kernel ChatHistoryTruncationReducer: the peers.md vectors, with and without auto_reduce."""

from __future__ import annotations

import pytest

from tests.strategies import chat, contents
from windowmem.errors import PolicyError
from windowmem.policies import Memory, SemanticKernelTruncation
from windowmem.policies.semantic_kernel import reduce_history, truncation_start

PEERS_VECTORS = [
    ("[u1,a1,u2,a2,u3,a3]", 3, 0, "a2 u3 a3"),
    ("[u1,a1,u2,a2,u3,a3]", 3, 1, "u2 a2 u3 a3"),
    ("[s0,u1,a1,u2,a2,u3,a3]", 4, 0, "s0 a2 u3 a3"),
    ("[u1,a1,u2,c2,r2,a2]", 2, 0, "c2 r2 a2"),
]


@pytest.mark.parametrize(("history", "target", "threshold", "expected"), PEERS_VECTORS)
def test_one_reduce_over_the_whole_history(history, target, threshold, expected):
    assert contents(reduce_history(chat(history), target, threshold)) == expected.split()


@pytest.mark.parametrize(("history", "target", "threshold", "expected"), PEERS_VECTORS)
def test_auto_reduce_after_every_add_reaches_the_same_windows(history, target, threshold, expected):
    policy = SemanticKernelTruncation(target, threshold=threshold)
    assert contents(policy.window(chat(history))) == expected.split()


def test_nothing_happens_within_target_plus_threshold():
    history = chat("u1 a1 u2 a2")
    assert reduce_history(history, 3, 1) == history
    assert truncation_start(history, 3, 1) is None


def test_result_depends_on_when_the_reducer_runs():
    history = chat("u1 a1 u2 a2 u3 a3 u4")
    once = reduce_history(history, 3, 2)
    memory = Memory(SemanticKernelTruncation(3, threshold=2))
    for message in history:
        memory.add(message)
    assert contents(once) == ["u3", "a3", "u4"]
    assert contents(memory.load()) == ["u2", "a2", "u3", "a3", "u4"]


def test_the_first_system_message_is_kept_and_takes_a_slot():
    kept = reduce_history(chat("s0 u1 a1 s1 u2 a2 u3 a3"), 3)
    assert contents(kept) == ["s0", "u3", "a3"]


def test_a_system_message_already_in_the_tail_takes_no_extra_slot():
    assert contents(reduce_history(chat("u1 a1 u2 s0 a2"), 3)) == ["u2", "s0", "a2"]


def test_target_one_with_a_system_message_keeps_only_the_system_message():
    assert contents(reduce_history(chat("s0 u1 a1"), 1)) == ["s0"]


def test_a_cut_on_parallel_results_moves_back_to_their_call():
    history = chat("u1 a1 u2 c2 r2 r2 a2")  # one call, two results sharing the notation id
    assert contents(reduce_history(history, 2)) == ["c2", "r2", "r2", "a2"]


def test_store_is_trimmed_on_write():
    memory = Memory(SemanticKernelTruncation(4))
    memory.add(*chat("u1 a1 u2 a2 u3 a3"))
    assert len(memory.stored) <= 4 and memory.load() == memory.stored
    assert SemanticKernelTruncation.trims_on_write


def test_sizes_and_default():
    assert SemanticKernelTruncation().size == 10 and SemanticKernelTruncation().threshold == 0
    with pytest.raises(PolicyError, match="at least 1"):
        SemanticKernelTruncation(0)
    with pytest.raises(PolicyError, match="threshold"):
        SemanticKernelTruncation(3, threshold=-1)
