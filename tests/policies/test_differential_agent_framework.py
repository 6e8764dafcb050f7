"""Our Agent Framework models against ``agent-framework-core``'s ``TruncationStrategy`` and
``SummarizationStrategy``.

Two levels: the strategy itself (``apply_compaction`` on random message lists, what
the model would receive) and a real ``Agent`` with a session, driven by a scripted
chat client that records every request (``tests/policies/agent_framework_driver.py``).
"""

from __future__ import annotations

import importlib.metadata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import event_loop
from tests.policies.model_calls import every_call, numbered, our_key
from tests.strategies import PROPERTY_SETTINGS, chat, conversations, message_lists
from windowmem.policies.agent_framework import (
    AGENT_FRAMEWORK_VERSION,
    AgentFrameworkSummarization,
    AgentFrameworkTruncation,
    message_groups,
    summarise,
    truncate,
)

compaction = pytest.importorskip("agent_framework._compaction")
driver = pytest.importorskip("tests.policies.agent_framework_driver")
with_replies = pytest.importorskip("tests.policies.langgraph_driver").with_replies

VERSION = importlib.metadata.version("agent-framework-core")


def real_truncation(messages, max_n, compact_to, **options):
    """What ``apply_compaction`` with a ``TruncationStrategy`` projects for the model."""
    strategy = compaction.TruncationStrategy(max_n=max_n, compact_to=compact_to, **options)
    listed = [driver.to_af(m) for m in messages]
    return [
        driver.key(m)
        for m in event_loop.run(compaction.apply_compaction(listed, strategy=strategy))
    ]


def real_summary(messages, target, threshold, budget):
    """What ``apply_compaction`` with a ``SummarizationStrategy`` projects for the model."""
    strategy = compaction.SummarizationStrategy(
        client=driver.CountingSummarizer(),
        target_count=target,
        threshold=threshold,
        max_summary_input_tokens=budget,
    )
    listed = [driver.to_af(m) for m in messages]
    return [
        driver.key(m)
        for m in event_loop.run(compaction.apply_compaction(listed, strategy=strategy))
    ]


@st.composite
def limits(draw):
    max_n = draw(st.integers(1, 14))
    return max_n, draw(st.integers(1, max_n))


@PROPERTY_SETTINGS
@given(
    messages=st.one_of(conversations(), message_lists()),
    sizes=limits(),
    preserve_system=st.booleans(),
    preserve_first_user_group=st.booleans(),
)
def test_truncation_strategy_leaves_out_what_agent_framework_does(
    messages, sizes, preserve_system, preserve_first_user_group
):
    options = {
        "preserve_system": preserve_system,
        "preserve_first_user_group": preserve_first_user_group,
    }
    ours = truncate(messages, *sizes, **options)
    assert [our_key(m) for m in ours] == real_truncation(messages, *sizes, **options)


@PROPERTY_SETTINGS
@given(
    messages=st.one_of(conversations(), message_lists()),
    target=st.integers(1, 8),
    threshold=st.integers(0, 4),
    budget=st.sampled_from([None, 8000]),
)
def test_summarization_strategy_summarises_what_agent_framework_does(
    messages, target, threshold, budget
):
    ours = summarise(messages, target, threshold)
    assert [our_key(m) for m in ours] == real_summary(messages, target, threshold, budget)


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(messages=conversations(tools=False, mid_chat_system=False), sizes=limits())
def test_an_agent_without_tools_sends_what_we_replay(messages, sizes):
    """Without a tool loop no message is flagged inside a run: every call is computed afresh."""
    history = numbered(with_replies(messages))
    max_n, compact_to = sizes
    strategy = compaction.TruncationStrategy(max_n=max_n, compact_to=compact_to)
    calls, stored = driver.play(history, compaction_strategy=strategy)
    policy = AgentFrameworkTruncation(max_n, compact_to=compact_to)
    assert calls == every_call(history, policy, system_sent=False)
    assert stored == [our_key(m) for m in history if m.role.value != "system"]


@settings(parent=PROPERTY_SETTINGS, max_examples=40)
@given(
    messages=conversations(tools=False, mid_chat_system=False),
    target=st.integers(1, 6),
    threshold=st.integers(0, 3),
)
def test_a_summarising_agent_without_tools_sends_what_we_replay(messages, target, threshold):
    history = numbered(with_replies(messages))
    strategy = compaction.SummarizationStrategy(
        client=driver.CountingSummarizer(), target_count=target, threshold=threshold
    )
    calls, stored = driver.play(history, compaction_strategy=strategy)
    policy = AgentFrameworkSummarization(target, threshold=threshold)
    assert calls == every_call(history, policy, system_sent=False)
    assert stored == [our_key(m) for m in history if m.role.value != "system"]


# --- named vectors (agent-framework-core 1.23.0) ----------------------------------------


def test_version_is_the_one_the_vectors_were_run_on():
    """A newer release may change these rules: re-run the vectors and update the model."""
    assert VERSION == AGENT_FRAMEWORK_VERSION == "1.23.0"


def test_a_call_stays_with_its_results():
    history = with_replies(chat("u1 c1 r1 a1 u2 a2 u3"))
    strategy = compaction.TruncationStrategy(max_n=3, compact_to=3)
    calls, _ = driver.play(history, compaction_strategy=strategy)
    # 7 > 3: u1 goes (6 left), then c1 with r1 (4), then a1 (3).
    assert [c for _, c, _ in calls[-1]] == ["u2", "a2", "u3"]
    policy = AgentFrameworkTruncation(3)
    assert calls == every_call(history, policy, system_sent=False)
    assert [(g.kind, len(g.indices)) for g in message_groups(history[:4])] == [
        ("user", 1),
        ("tool_call", 2),
        ("assistant_text", 1),
    ]


def test_a_flag_set_in_the_tool_loop_sticks_to_the_stored_message():
    """Seen in 1.23.0, and not modelled: what a run's tool loop left out stays left out.

    max_n=6, compact_to=2. Turn 1's fourth call holds u1 c1 r1 c2 r2 c3 r3 (7 > 6): u1, c1 r1
    and c2 r2 are flagged and c3 r3 sent. u1 was a copy of the input; c1 r1 c2 r2 are the
    stored objects. So in turn 2 only u1 c3 r3 a1 u2 count (5 <= 6): u1 comes back, the first
    two calls never do; computed afresh, 9 > 6 would cut to a1 u2.
    """
    history = with_replies(chat("u1 c1 r1 c2 r2 c3 r3 a1 u2"))
    strategy = compaction.TruncationStrategy(max_n=6, compact_to=2)
    calls, stored = driver.play(history, compaction_strategy=strategy)
    assert [c for _, c, _ in calls[-1]] == ["u1", "c3", "r3", "a1", "u2"]
    ours = every_call(history, AgentFrameworkTruncation(6, compact_to=2), system_sent=False)
    assert calls[:-1] == ours[:-1]  # every call before the flags matter is ours
    assert [c for _, c, _ in ours[-1]] == ["a1", "u2"]
    assert len(stored) == 10  # nothing is deleted from the history


def test_a_turn_that_repeats_the_previous_one_is_not_stored():
    """``filter_new_messages`` takes a repeat of the stored tail for a replayed transcript."""
    history = chat("u1 a1") * 2
    calls, stored = driver.play(history)
    assert [c for _, c, _ in calls[-1]] == ["u1", "a1", "u1"]
    assert [c for _, c, _ in stored] == ["u1", "a1"]  # the second u1 a1 is gone


def test_the_summary_is_written_again_before_every_turn():
    """The summary lives only in the run's working list: each turn summarises the whole
    older history again, one summarising call per turn once past the trigger."""
    history = with_replies(chat("u1 a1 u2 a2 u3 a3 u4 a4 u5"))
    summariser = driver.CountingSummarizer()
    strategy = compaction.SummarizationStrategy(client=summariser, target_count=2, threshold=1)
    calls, stored = driver.play(history, compaction_strategy=strategy)
    assert [call[0][1] for call in calls[2:]] == [
        "summary of 3 messages",
        "summary of 5 messages",
        "summary of 7 messages",
    ]
    assert summariser.calls == 3 and len(stored) == 10
    assert calls == every_call(
        history, AgentFrameworkSummarization(2, threshold=1), system_sent=False
    )
