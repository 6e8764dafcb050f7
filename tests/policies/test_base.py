"""A session that keeps only the tail its policy can load loads exactly the same windows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS, message_lists
from windowmem.chat_memory import tail_needed
from windowmem.messages import user
from windowmem.policies.base import Memory
from windowmem.policies.registry import POLICIES, make_policy

SIZES = {
    "n8n": st.integers(0, 6),
    "langchain-js": st.integers(-2, 6),
    "langchain-py": st.integers(-1, 6),
    "tensorify": st.integers(1, 12),
    "openai-agents": st.one_of(st.none(), st.integers(-2, 12)),
    "langgraph": st.none(),
    "langgraph-trim-input": st.integers(0, 12),
    "langgraph-trim-state": st.integers(0, 12),
    "langchain-trim-input": st.integers(0, 12),
    "langchain-trim-state": st.integers(0, 12),
    "langchain-context-editing": st.integers(0, 12),
}


@PROPERTY_SETTINGS
@given(data=st.data(), messages=message_lists(max_size=60))
def test_lean_memory_loads_what_the_full_memory_loads(data, messages):
    for name in POLICIES:
        size = data.draw(SIZES.get(name, st.integers(1, 12)), label=name)
        policy = make_policy(name, size)
        full, lean = Memory(policy), Memory(policy, keep_all=False)
        for message in messages:
            full.add(message)
            lean.add(message)
            assert lean.load() == full.load(), (name, size)


def test_lean_memory_stays_proportional_to_the_window():
    lean = Memory(make_policy("n8n", 50), keep_all=False)
    for i in range(10_000):
        lean.add(user(str(i)))
        assert len(lean) <= 2 * 100 + 16
    assert [m.content for m in lean.load()] == [str(i) for i in range(9_900, 10_000)]


def test_chat_memory_reads_the_policy_s_own_tail():
    for name in POLICIES:
        policy = make_policy(name)
        assert tail_needed(policy) == policy.tail_needed(), name
