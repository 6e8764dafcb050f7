"""The real create_agent runs of lesson 5's two summaries, held to windowmem's models of them."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain.agents.middleware")

from windowmem.design.side_by_side import framework_lineup  # noqa: E402
from windowmem.design.sizing import calls_sent, parallel_tool_chat  # noqa: E402
from windowmem.design.summary_run import (  # noqa: E402
    BY_HAND_PREFIX,
    PROMPT,
    by_hand,
    by_middleware,
    summaries_sent,
)
from windowmem.messages import user  # noqa: E402
from windowmem.policies.langgraph import SUMMARY_PREFIX, LangChainSummarization  # noqa: E402
from windowmem.tokens import count_messages  # noqa: E402


@pytest.mark.parametrize(("trigger", "keep"), [(30, 10), (12, 4), (9, 6)])
def test_the_middleware_s_calls_are_the_sizes_windowmem_models(trigger, keep):
    real = by_middleware(24, trigger=trigger, keep=keep)
    modelled = calls_sent(
        parallel_tool_chat(24, calls=0),
        LangChainSummarization(keep, trigger_tokens=None, trigger_messages=trigger),
    )
    assert all(call[0].type == "system" and call[0].content == PROMPT for call in real)
    assert [len(c) - 1 for c in real] == [len(c) for c in modelled]
    summarised = [bool(s) for s in summaries_sent(real)]
    assert summarised == [c[0].content.startswith(SUMMARY_PREFIX) for c in modelled]


def test_a_new_summary_replaces_the_last_one_every_ten_turns():
    """Lesson 5's Going-further check: the second summary comes on turn 26."""
    sent = summaries_sent(by_middleware(36))
    firsts = [t for t in range(2, 37) if sent[t - 1] and sent[t - 1] != sent[t - 2]]
    assert firsts == [16, 26, 36]
    assert sent[25] == SUMMARY_PREFIX + "summary 2"


def test_the_summary_kept_by_hand_leaves_when_the_window_no_longer_reaches_it():
    calls = by_hand(22, written_after=15)
    sent = summaries_sent(calls)
    assert sent[15] == BY_HAND_PREFIX + "turns 1 to 15." and not any(sent[:15])
    trim = framework_lineup()[1]
    assert (trim.name, trim.size, trim.counter) == ("langchain-trim-state", 10, count_messages)
    summary = user(str(calls[15][1].content))  # the same summary, as windowmem's message
    rest = parallel_tool_chat(22, calls=0)[30:]
    modelled = calls_sent([summary, *rest], trim)
    assert [summary in c for c in modelled] == [bool(s) for s in sent[15:]]
    assert [bool(s) for s in sent[15:22]] == [True] * 5 + [False] * 2
