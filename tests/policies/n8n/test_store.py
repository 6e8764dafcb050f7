"""Where n8n keeps Simple Memory buffers: their names, their fixed window, the one-hour idle clean-up, restarts."""

from __future__ import annotations

import pytest

from tests.strategies import turns
from windowmem.errors import SessionKeyError
from windowmem.messages import user
from windowmem.policies.n8n import (
    IDLE_LIMIT_SECONDS,
    ManualClock,
    SimpleMemoryStore,
)


def test_buffers_are_named_workflow_and_session():
    store = SimpleMemoryStore(ManualClock())
    store.memory("wf1", "chat-7")
    assert store.keys() == ("wf1__chat-7",)


def test_numbers_and_their_text_share_a_buffer():
    store = SimpleMemoryStore(ManualClock())
    assert store.memory("wf1", 42) is store.memory("wf1", "42")
    assert len(store) == 1


def test_session_id_errors_are_n8n_s():
    store = SimpleMemoryStore(ManualClock())
    with pytest.raises(SessionKeyError, match="No session ID found"):
        store.memory("wf1", None)
    with pytest.raises(SessionKeyError, match="No session ID found"):
        store.memory("wf1", "")
    with pytest.raises(SessionKeyError, match="Key parameter is empty"):
        store.memory("wf1", "", source="customKey")
    with pytest.raises(SessionKeyError):
        store.memory("wf1", {"id": 1})
    assert len(store) == 0


def test_type_version_1_4_from_input_appends_the_node_name():
    store = SimpleMemoryStore(ManualClock())
    agent = store.memory("wf1", "s1", node_name="Agent Memory", type_version=1.4)
    sub = store.memory("wf1", "s1", node_name="Subagent Memory", type_version=1.4)
    assert agent is not sub
    assert store.keys() == ("wf1__s1__Agent_Memory", "wf1__s1__Subagent_Memory")
    # A custom key is shared on purpose, so no node name is added.
    assert store.buffer_key("wf1", "k", source="customKey", type_version=1.4) == "wf1__k"
    # Before 1.4 two memory nodes on one chat share a buffer.
    assert store.memory("wf1", "s1", node_name="A") is store.memory("wf1", "s1", node_name="B")


def test_context_window_length_is_fixed_when_the_buffer_is_created():
    store = SimpleMemoryStore(ManualClock())
    store.memory("wf1", "s1", context_window_length=5).add(*turns(7))
    later = store.memory("wf1", "s1", context_window_length=2)
    assert later.policy.size == 5
    assert len(later.load()) == 10
    assert store.memory("wf1", "s2", context_window_length=2).policy.size == 2


def test_idle_buffer_is_kept_at_59_minutes_and_gone_at_61():
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    store.memory("wf1", "s1").add(user("Hi, I'm Marta"))
    clock.advance(minutes=59)
    assert len(store.memory("wf1", "s1")) == 1
    clock.advance(minutes=61)
    fresh = store.memory("wf1", "s1")
    assert len(fresh) == 0


def test_exactly_one_hour_idle_is_not_yet_stale():
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    store.memory("wf1", "s1").add(user("x"))
    clock.advance(seconds=IDLE_LIMIT_SECONDS)
    assert store.delete_stale() == ()
    clock.advance(seconds=1)
    assert store.delete_stale() == ("wf1__s1",)


def test_any_memory_node_run_deletes_every_stale_buffer():
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    store.memory("wf1", "old")
    clock.advance(minutes=90)
    store.memory("wf2", "someone-else")
    assert store.keys() == ("wf2__someone-else",)


def test_using_a_buffer_resets_its_idle_time():
    clock = ManualClock()
    store = SimpleMemoryStore(clock)
    for _ in range(3):
        store.memory("wf1", "s1").add(user("still here"))
        clock.advance(minutes=50)
    assert len(store.memory("wf1", "s1")) == 3
    entry = store.entry("wf1__s1")
    assert entry is not None and entry.created == 0 and entry.last_accessed == 150 * 60


def test_a_restart_loses_every_buffer_and_workers_do_not_share():
    worker_a, worker_b = SimpleMemoryStore(ManualClock()), SimpleMemoryStore(ManualClock())
    worker_a.memory("wf1", "s1").add(user("order 1234"))
    assert len(worker_b.memory("wf1", "s1")) == 0
    worker_a.restart()
    assert len(worker_a) == 0


def test_clock_only_moves_forward():
    with pytest.raises(ValueError, match="forward"):
        ManualClock().advance(minutes=-1)
