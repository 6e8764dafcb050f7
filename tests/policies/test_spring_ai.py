"""Spring AI MessageWindowChatMemory 1.x and 2.x: every row of the peers.md table, and the runs around it."""

from __future__ import annotations

import pytest

from tests.strategies import chat, contents, turns
from windowmem.errors import PolicyError
from windowmem.messages import system
from windowmem.policies import Memory, SpringAi1xMessageWindow, SpringAiMessageWindow
from windowmem.policies.spring_ai import advisor_prompt

ONE_ADD_PER_MESSAGE = tuple(
    message.content for message in turns(7)
)  # seven turns, one add per message

#: (maxMessages, the add calls, result in 2.0.1, result in 1.1.8 or None when not run).
SPRING_TABLE = [
    (2, ["U1 A1 U2 A2 U3"], "U3", "A2 U3"),
    (3, ["U A", "U"], "U A U", "U A U"),
    (2, ["U1 A1", "U2 A2"], "U2 A2", "U2 A2"),
    (3, ["S U1 A1", "U2 A2"], "S U2 A2", "S U2 A2"),
    (3, ["S1 S2 U1 A1", "U2 A2"], "S1 S2", "S1 S2 A2"),
    (3, ["Q1 A1 Q2 A2 Q3 A3"], "Q3 A3", "A2 Q3 A3"),
    (4, ["U1 A1 U2 A2 U3 A3"], "U2 A2 U3 A3", None),
    (2, ["S1 S2", "S3"], "S3", None),
    (5, ONE_ADD_PER_MESSAGE, "u6 a6 u7 a7", "a5 u6 a6 u7 a7"),
]


def after_adds(policy, adds):
    memory = Memory(policy)
    for batch in adds:
        memory.add(*chat(batch))
    return contents(memory.load())


@pytest.mark.parametrize(("size", "adds", "v2", "v1"), SPRING_TABLE)
def test_spring_ai_2x_row(size, adds, v2, v1):
    assert after_adds(SpringAiMessageWindow(size), adds) == v2.split()


@pytest.mark.parametrize(
    ("size", "adds", "v2", "v1"), [row for row in SPRING_TABLE if row[3] is not None]
)
def test_spring_ai_1x_row(size, adds, v2, v1):
    assert after_adds(SpringAi1xMessageWindow(size), adds) == v1.split()


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_new_system_message_is_appended_not_moved_to_the_front(policy):
    assert after_adds(policy(20), ["S1 u1 a1", "S2"]) == ["u1", "a1", "S2"]


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_equal_system_message_re_added_is_stored_twice(policy):
    assert after_adds(policy(20), ["S1 u1", "S1"]) == ["S1", "u1", "S1"]


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_replacement_is_per_add_call(policy):
    assert after_adds(policy(20), ["S1", "S2"]) == ["S2"]
    assert after_adds(policy(20), ["S1 S2"]) == ["S1", "S2"]


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_default_20_with_11_turns_keeps_u2_to_a11(policy):
    memory = Memory(policy())
    for message in turns(11):
        memory.add(message)
    assert contents(memory.load()) == contents(turns(11, first=2))


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_system_messages_alone_over_the_limit_leave_nothing_else(policy):
    memory = Memory(policy(2))
    memory.add(*chat("S1 S2 S3 u1 a1"))
    assert contents(memory.load()) == ["S1", "S2", "S3"]


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
def test_window_is_applied_on_write(policy):
    memory = Memory(policy(3))
    memory.add(*turns(4))
    assert len(memory.stored) <= 3 and memory.load() == memory.stored


def test_2x_can_end_shorter_than_the_limit_1x_fills_it():
    v2, v1 = Memory(SpringAiMessageWindow(5)), Memory(SpringAi1xMessageWindow(5))
    for message in turns(7):
        v2.add(message)
        v1.add(message)
    assert len(v2) == 4 and len(v1) == 5


@pytest.mark.parametrize("policy", [SpringAiMessageWindow, SpringAi1xMessageWindow])
@pytest.mark.parametrize("bad", [0, -1])
def test_zero_or_negative_max_messages_raises(policy, bad):
    with pytest.raises(PolicyError, match="at least 1|negative"):
        policy(bad)


def test_system_message_equality_is_role_and_text():
    memory = Memory(SpringAiMessageWindow(20))
    memory.add(system("Be brief."))
    memory.add(system("Be brief."))
    assert contents(memory.load()) == ["Be brief.", "Be brief."]


def test_the_advisor_puts_the_first_system_message_first():
    memory = Memory(SpringAiMessageWindow(20))
    memory.add(*chat("S1 u1 a1"))
    memory.add(*chat("S2"))
    assert contents(memory.load()) == ["u1", "a1", "S2"]
    assert contents(advisor_prompt(memory.load(), chat("u2"))) == ["S2", "u1", "a1", "u2"]
    assert contents(advisor_prompt(chat("u1 S1 a1 S2"))) == ["S1", "u1", "a1", "S2"]
