"""Conversations: the file format's round trips, a learner's typed text, atomic saves, bad input named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from windowmem import Conversation, ConversationFormatError, Role, assistant, system, tool, user
from windowmem.conversation import (
    conversation_from_text,
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


def test_save_writes_the_file_format_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "c.json"
    save_conversation([user("a")], path)
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]
    assert json.loads(path.read_text()) == {"messages": [{"role": "user", "content": "a"}]}
    assert dumps_conversation([user("a")]) == path.read_text()


def test_a_save_that_dies_mid_write_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "c.json"
    save_conversation([user("kept")], path)
    before = path.read_text()
    real_write_text = Path.write_text

    def crash_halfway(self, data, *args, **kwargs):
        real_write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", crash_halfway)
    with pytest.raises(OSError, match="disk full"):
        save_conversation([user("lost"), assistant("in the crash")], path)
    monkeypatch.undo()
    assert path.read_text() == before
    assert load_conversation(path).messages == (user("kept"),)


class TestTypedConversation:
    def test_lines_with_roles_and_continuations(self):
        chat = conversation_from_text(
            "system: Be kind\n\nuser: Hi\nsecond line\nAI: Hello\nhuman: Bye"
        )
        assert [(m.role.value, m.content) for m in chat.messages] == [
            ("system", "Be kind"),
            ("user", "Hi\nsecond line"),
            ("assistant", "Hello"),
            ("user", "Bye"),
        ]

    def test_json_in_the_file_format(self):
        text = json.dumps({"title": "t", "messages": [{"role": "user", "content": "a: b"}]})
        chat = conversation_from_text(text)
        assert chat.title == "t" and chat.messages[0].content == "a: b"

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("", "empty"),
            ("hello there", "line 1 does not start with a role"),
            ("system: only rules", "no user message"),
            ('[{"role": "user"}]', "no content"),
            ("{not json", "not valid JSON"),
        ],
    )
    def test_bad_text_says_what_to_fix(self, text, message):
        with pytest.raises(ConversationFormatError, match=message):
            conversation_from_text(text)
