"""Spring AI's memory advisor: memory before the prompt, the user message stored before the call.

Vectors: the fact sheet (MessageChatMemoryAdvisor v1.0.0 and v2.0.1) and peers.md's
one-add-per-message table for MessageWindowChatMemory.
"""

from __future__ import annotations

import pytest

from windowmem.calls.advisor_calls import advisor_calls
from windowmem.calls.agent_calls import agent_runs
from windowmem.errors import WindowMemError
from windowmem.messages import assistant, system, tool, user
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.policies.spring_ai import SpringAi1xMessageWindow, SpringAiMessageWindow


def contents(messages):
    return [m.content for m in messages]


def seven_turns():
    return [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]


@pytest.mark.parametrize(
    "policy, expected",
    [
        (SpringAiMessageWindow(5), ["u6", "a6", "u7", "a7"]),
        (SpringAi1xMessageWindow(5), ["a5", "u6", "a6", "u7", "a7"]),
    ],
)
def test_peers_table_five_messages_seven_turns(policy, expected):
    assert contents(advisor_calls(seven_turns(), policy)[-1].stored_after) == expected


def test_twenty_messages_eleven_turns():
    chat = [m for t in range(1, 12) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    assert contents(advisor_calls(chat, SpringAiMessageWindow(20))[-1].stored_after) == [
        f"{r}{t}" for t in range(2, 12) for r in "ua"
    ]


def test_a_failed_call_leaves_the_user_message_but_n8n_keeps_nothing():
    chat = [user("u1"), assistant("a1"), user("u2 (the call fails)"), user("u3")]
    spring = advisor_calls(chat, SpringAiMessageWindow(20))
    n8n = agent_runs(chat, N8nSimpleMemory(5))
    assert contents(spring[2].sent) == ["u1", "a1", "u2 (the call fails)", "u3"]
    assert contents(n8n[2].calls[0].messages) == ["u1", "a1", "u3"]
    assert spring[1].answer is None


def test_system_message_first_and_never_stored():
    chat = [system("S"), user("u1"), assistant("a1"), user("u2")]
    calls = advisor_calls(chat, SpringAiMessageWindow(20))
    assert contents(calls[1].sent) == ["S", "u1", "a1", "u2"]
    assert "S" not in contents(calls[1].stored_after)


def test_tool_steps_are_not_stored():
    chat = [user("u1"), assistant("", ["c"]), tool("r", "c"), assistant("a1")]
    assert contents(advisor_calls(chat, SpringAiMessageWindow(20))[0].stored_after) == ["u1", "a1"]


def test_a_greeting_first_is_refused():
    with pytest.raises(WindowMemError, match="opens with an assistant"):
        advisor_calls([assistant("hi"), user("u")], SpringAiMessageWindow(20))
