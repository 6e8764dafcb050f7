"""n8n Simple Memory: the peers.md runs, the agent's orphan clean-up, and the buffer store."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, chat, contents, conversations, turns
from windowmem.errors import PolicyError, SessionKeyError
from windowmem.messages import Role, assistant, tool, user
from windowmem.policies import Memory, N8nSimpleMemory, drop_orphaned_tool_messages
from windowmem.policies.n8n import IDLE_LIMIT_SECONDS, ManualClock, SimpleMemoryStore


def test_default_window_is_five_interactions():
    assert N8nSimpleMemory().size == 5 == N8nSimpleMemory.default_size


def test_seven_turns_with_k5_load_u2_to_a6_then_u3_to_a7_and_store_all():
    memory = Memory(N8nSimpleMemory(5))
    memory.add(*turns(6))
    # LangChain saves a turn after the reply, so turn 7 starts by loading the 12 stored messages.
    assert contents(memory.load()) == contents(turns(6, first=2))
    memory.add(user("u7"), assistant("a7"))
    assert contents(memory.load()) == contents(turns(7, first=3))
    assert len(memory.stored) == 14


def test_k0_loads_every_message():
    assert contents(N8nSimpleMemory(0).window(turns(12))) == contents(turns(12))


def test_negative_or_fractional_window_is_rejected():
    with pytest.raises(PolicyError, match="n8n"):
        N8nSimpleMemory(-1)
    with pytest.raises(PolicyError, match="whole number"):
        N8nSimpleMemory(2.5)  # type: ignore[arg-type]


def test_count_based_window_cuts_a_tool_exchange_and_the_agent_drops_the_orphan():
    stored = chat("[u1, ai(call), tool, a1, u2, a2]")
    window = N8nSimpleMemory(2).load(stored)
    assert contents(window) == ["tool", "a1", "u2", "a2"]
    assert contents(drop_orphaned_tool_messages(window)) == ["a1", "u2", "a2"]


def test_a_trailing_call_without_its_result_is_dropped():
    window = chat("u1 a1 u2 c2")
    assert contents(drop_orphaned_tool_messages(window)) == ["u1", "a1", "u2"]


def test_a_trailing_call_with_only_some_results_is_dropped_with_them():
    window = (user("u1"), assistant("c", ["x", "y"]), tool("rx", "x"))
    assert contents(drop_orphaned_tool_messages(window)) == ["u1"]


def test_complete_exchanges_are_kept_at_either_edge():
    window = chat("c1 r1 a1 u2 c2 r2")
    assert drop_orphaned_tool_messages(window) == window


def test_exchanges_inside_the_window_are_not_touched():
    window = chat("u1 c1 a1 u2 a2")  # c1's result is missing, but it is not at an edge
    assert drop_orphaned_tool_messages(window) == window


@PROPERTY_SETTINGS
@given(conversations(), st.integers(1, 6))
def test_cleaned_window_has_no_leading_tool_result_and_no_unanswered_trailing_call(messages, k):
    cleaned = drop_orphaned_tool_messages(N8nSimpleMemory(k).window(messages))
    assert not cleaned or cleaned[0].role is not Role.TOOL
    calls = [i for i, m in enumerate(cleaned) if m.calls_tool]
    if calls and all(m.role is Role.TOOL for m in cleaned[calls[-1] + 1 :]):
        answered = {m.tool_call_id for m in cleaned[calls[-1] + 1 :]}
        assert set(cleaned[calls[-1]].tool_calls) <= answered
    # Only messages from the edges go: what is kept is one unbroken run of the window.
    window = N8nSimpleMemory(k).window(messages)
    assert any(
        window[i : i + len(cleaned)] == cleaned for i in range(len(window) - len(cleaned) + 1)
    )


# --- the process-wide buffer store --------------------------------------------------


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
