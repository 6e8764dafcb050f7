"""The conversation file format: round trips, and bad input named precisely."""

from __future__ import annotations

import json

import pytest

from windowmem import Conversation, ConversationFormatError, Role, assistant, system, tool, user
from windowmem.conversation import (
    dumps_conversation,
    load_conversation,
    loads_conversation,
    save_conversation,
)


def test_list_and_object_forms_load_the_same_messages():
    items = [{"role": "system", "content": "S"}, {"role": "user", "content": "hi"}]
    as_list = loads_conversation(json.dumps(items))
    as_object = loads_conversation(json.dumps({"title": "t", "messages": items}))
    assert as_list.messages == as_object.messages
    assert as_object.title == "t"
    assert as_list.system_message == system("S")


def test_round_trip_keeps_tool_links_and_unicode(tmp_path):
    chat = Conversation.of(
        [
            user("¿Envían a Medellín? 🚚"),
            assistant("", tool_calls=["c1"]),
            tool("sí", "c1"),
            assistant("Sí."),
        ],
        title="tools",
    )
    path = tmp_path / "chat.json"
    save_conversation(chat, path)
    again = load_conversation(path)
    assert again.messages == chat.messages
    assert again.title == "tools"
    assert "Medellín" in path.read_text(encoding="utf-8")


def test_role_aliases_from_other_libraries():
    chat = loads_conversation('[{"role": "human", "content": "a"}, {"role": "ai", "content": "b"}]')
    assert [m.role for m in chat.messages] == [Role.USER, Role.ASSISTANT]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not valid JSON"),
        ('{"title": "x"}', "no 'messages' list"),
        ('"just a string"', "list of messages"),
        ('[{"role": "user"}]', "message 0 has no content"),
        ('[{"content": "x"}]', "message 0 has no role"),
        ('[{"role": "robot", "content": "x"}]', "unknown role 'robot'"),
        ('[{"role": "user", "content": 5}]', "content must be a string"),
        ('[{"role": "user", "content": "a"}, 7]', "message 1 is a int"),
        ('[{"role": "assistant", "content": "", "tool_calls": "c1"}]', "tool_calls must be a list"),
    ],
)
def test_malformed_input_names_the_problem(text, words):
    with pytest.raises(ConversationFormatError, match=words):
        loads_conversation(text)


def test_file_errors_name_the_file(tmp_path):
    missing = tmp_path / "nope.json"
    with pytest.raises(ConversationFormatError, match="nope.json: no such file"):
        load_conversation(missing)
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe[")
    with pytest.raises(ConversationFormatError, match="bad.json: not UTF-8"):
        load_conversation(bad)


def test_save_is_atomic_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "c.json"
    save_conversation([user("a")], path)
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
    assert json.loads(path.read_text()) == {"messages": [{"role": "user", "content": "a"}]}
    assert dumps_conversation([user("a")]) == path.read_text()
