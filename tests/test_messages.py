"""Messages and interactions: the units the window policies count."""

from __future__ import annotations

import pytest

from windowmem import (
    ConversationFormatError,
    Message,
    Role,
    assistant,
    interactions,
    system,
    tool,
    user,
)
from windowmem.messages import parse_role, without_system


def test_interactions_start_at_user_messages_and_skip_system():
    chat = [
        system("S"),
        user("u1"),
        assistant("", ["c"]),
        tool("r", "c"),
        assistant("a1"),
        user("u2"),
        assistant("a2"),
    ]
    turns = interactions(chat)
    assert [t.number for t in turns] == [1, 2]
    assert [m.content for m in turns[0].messages] == ["u1", "", "r", "a1"]
    assert turns[1].user_message == user("u2")


def test_replies_before_any_user_message_form_their_own_interaction():
    turns = interactions([assistant("Welcome!"), user("hi"), assistant("hello")])
    assert [len(t.messages) for t in turns] == [1, 2]
    assert turns[0].user_message is None


def test_messages_are_immutable_values():
    m = user("x")
    with pytest.raises(AttributeError):
        m.content = "y"  # type: ignore[misc]
    assert m == Message(Role.USER, "x")
    assert hash(m) == hash(Message("user", "x"))


def test_role_names_are_checked():
    with pytest.raises(ConversationFormatError, match="use one of system, user, assistant, tool"):
        parse_role("bot")
    with pytest.raises(ConversationFormatError, match="content must be text"):
        Message(Role.USER, 42)  # type: ignore[arg-type]


def test_tool_call_flag_and_short_preview():
    assert assistant("", ["c1"]).calls_tool
    assert not assistant("done").calls_tool
    assert user("a " * 50).short(10) == "user: a a a a a…"
    assert without_system([system("s"), user("u")]) == (user("u"),)
