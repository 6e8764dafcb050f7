"""The rolling summary: the plain replay is the n8n agent's, and the summary is seen exactly when it fits."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from windowmem.calls.agent_calls import agent_runs
from windowmem.design.rolling_summary import (
    SUMMARY_PREFIX,
    extractive_summary,
    rolling_summary,
    summary_savings,
)
from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.messages import Role, assistant, system, tool, user
from windowmem.policies import N8nSimpleMemory
from windowmem.tokens import count_all, qwen_counter

CHAT = load_example("two_orders")


@pytest.mark.parametrize("k", [1, 2, 5])
def test_without_a_schedule_it_is_the_n8n_agent(k):
    plain = rolling_summary(CHAT, window=k, every=0)
    runs = agent_runs(CHAT, N8nSimpleMemory(k))
    assert [t.sent for t in plain] == [run.calls[0].messages for run in runs]
    assert [t.input_tokens for t in plain] == [
        sum(len(call.messages) for call in run.calls) for run in runs
    ]
    assert all(t.summary_sent is None and not t.summarised_after for t in plain)


def chat_of(calls: list[int]) -> list:
    out = [system("S")]
    for turn, n in enumerate(calls, start=1):
        out.append(user(f"u{turn} order #{turn}"))
        for c in range(n):
            out += [assistant("", [f"c{turn}{c}"]), tool("r", f"c{turn}{c}")]
        out.append(assistant(f"a{turn}"))
    return out


@PROPERTY_SETTINGS
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=10),
    st.integers(1, 5),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_the_summary_is_sent_exactly_while_it_is_among_the_newest_2k(calls, k, every, keep):
    """Closed form: after an override the store is 1 + 2·keep; each turn adds 2 + 2·calls."""
    turns = rolling_summary(chat_of(calls), window=k, every=every, keep_turns=keep)
    since: int | None = None
    for t in turns:
        if since is None:
            assert t.summary_sent is None
        else:
            assert t.summary_sent == (1 + since <= 2 * k), (t.turn, since)
        since = (since or 0) + 2 + 2 * calls[t.turn - 1] if since is not None else None
        if t.summarised_after:
            kept = min(keep, t.turn)
            since = 2 * kept
            assert t.stored_after == 1 + 2 * kept


def test_the_kept_turns_lose_their_tool_calls():
    turns = rolling_summary(CHAT, window=5, every=3, keep_turns=2)
    after = turns[3].sent  # turn 4 loads what the override after turn 3 wrote
    assert after[1].content.startswith(SUMMARY_PREFIX) and after[1].role is Role.ASSISTANT
    assert not any(m.role is Role.TOOL or m.calls_tool for m in after[1:4])


def test_the_summary_keeps_identifiers_and_carries_the_last_one_on():
    first = extractive_summary([user("I'm Ana, order #12."), assistant("ok #12")])
    again = extractive_summary([assistant(first), user("And #13?")])
    assert (
        "#12" in first
        and "#12" in again
        and "#13" in again
        and again.split(" Requests:")[0].count("#12") == 1
    )


def test_savings_add_up_and_use_real_tokens():
    q = qwen_counter()
    s = summary_savings(CHAT, window=5, every=3, keep_turns=1, counter=q)
    plain = rolling_summary(CHAT, window=5, counter=q)
    assert s.plain_tokens == sum(t.input_tokens for t in plain)
    assert s.plain_tokens == sum(
        count_all(call.messages, q)
        for run in agent_runs(CHAT, N8nSimpleMemory(5))
        for call in run.calls
    )
    assert (
        s.saved == s.plain_tokens - s.summarised_tokens
        and s.net_saved == s.saved - s.summariser_tokens
    )


def test_a_turn_without_an_answer_is_refused():
    with pytest.raises(WindowMemError, match="end with the agent's answer"):
        rolling_summary([user("u1")], every=1)
    with pytest.raises(WindowMemError, match="every"):
        rolling_summary(CHAT, every=-1)


def test_the_summariser_s_prompt_and_output_are_counted_on_every_compaction():
    """Issue 22: the bill counts the summariser's instruction (input) and the summary it writes (output)."""
    from windowmem.design.rolling_summary import (
        SUMMARISER_PROMPT,
        extractive_summary,
        rolling_summary,
        summary_savings,
    )
    from windowmem.messages import assistant, system, user
    from windowmem.tokens import count_messages

    chat = [m for t in range(1, 9) for m in (user(f"u{t} order #{t}"), assistant(f"a{t}"))]
    turns = rolling_summary(chat, window=3, every=2, keep_turns=1)
    compactions = [t for t in turns if t.summarised_after]
    assert len(compactions) == 4
    prompt = count_messages(system(SUMMARISER_PROMPT))
    assert all(t.summariser_prompt_tokens == prompt for t in compactions)
    assert all(
        t.summariser_prompt_tokens == t.summary_tokens == 0 for t in turns if not t.summarised_after
    )
    first = compactions[0]
    # Turn 2 is kept verbatim, so the first summary covers turn 1 only.
    assert first.summary_tokens == count_messages(assistant(extractive_summary(chat[:2])))
    savings = summary_savings(chat, window=3, every=2, keep_turns=1)
    assert savings.summariser_prompt_tokens == 4 * prompt
    assert savings.summary_output_tokens == sum(t.summary_tokens for t in compactions) > 0


@PROPERTY_SETTINGS
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=10),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_the_summary_never_repeats_a_question_kept_verbatim_after_it(calls, every, keep):
    """Issue 22: the summariser reads up to the kept turns, so no kept question is in the summary too."""
    chat = [
        m if m.role is not Role.USER else user(f"question {i} about order #{i}")
        for i, m in enumerate(chat_of(calls))
    ]
    history = rolling_summary(chat, window=0, every=every, keep_turns=keep)
    for t in history:
        if not t.summarised_after or t.turn == len(calls):
            continue
        after = history[
            t.turn
        ].sent  # the next run loads (window 0: all of) what the override wrote
        summary, kept = after[1], [m.content for m in after[2:-1] if m.role is Role.USER]
        assert summary.content.startswith(SUMMARY_PREFIX)
        assert len(kept) == min(keep, t.turn)
        assert not any(q in summary.content for q in kept), (t.turn, summary.content, kept)
        older = [f"question {i} " for i, m in enumerate(chat) if m.role is Role.USER][
            : t.turn - len(kept)
        ]
        assert all(q in summary.content for q in older[-5:]), (summary.content, older)
