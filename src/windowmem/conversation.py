"""Conversations and their JSON file format.

A conversation file is either a JSON list of messages or a JSON object with a
``messages`` list (and, optionally, a ``title``). Each message is an object with a
``role`` (``system``, ``user``, ``assistant`` or ``tool``) and a ``content`` string;
an assistant message may list the ids of the tools it calls in ``tool_calls`` and a
tool message may name the call it answers in ``tool_call_id``::

    {"title": "Marta", "messages": [
        {"role": "system", "content": "You are TuTienda's support assistant."},
        {"role": "user", "content": "Hi, I'm Marta, my order is #6023."},
        {"role": "assistant", "content": "Hi Marta! How can I help?"}]}

Bad input raises :class:`~windowmem.errors.ConversationFormatError` naming the
message (by its position) and the field that is wrong; nothing is half-loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from windowmem.errors import ConversationFormatError, WindowMemError
from windowmem.messages import ROLE_ALIASES, Interaction, Message, Role, interactions, parse_role


@dataclass(frozen=True, slots=True)
class Conversation:
    """A titled, ordered, immutable list of messages.

    >>> c = Conversation.of([{"role": "user", "content": "Hi"}], title="tiny")
    >>> c.turn_count, c.system_message
    (1, None)
    """

    messages: tuple[Message, ...]
    title: str = ""

    @classmethod
    def of(cls, messages: Iterable[Message | dict[str, Any]], title: str = "") -> Conversation:
        """A conversation from Message objects or file-format dicts."""
        return cls(tuple(_to_message(m, i) for i, m in enumerate(messages)), title)

    @property
    def system_message(self) -> Message | None:
        """The first system message, which an agent sends beside the buffer."""
        return next((m for m in self.messages if m.role is Role.SYSTEM), None)

    @property
    def interactions(self) -> tuple[Interaction, ...]:
        """The conversation's turns, system messages left out."""
        return interactions(self.messages)

    @property
    def turn_count(self) -> int:
        """How many interactions the conversation has."""
        return len(self.interactions)

    def as_dict(self) -> dict[str, Any]:
        """The conversation in the file format."""
        out: dict[str, Any] = {"messages": [m.as_dict() for m in self.messages]}
        if self.title:
            out = {"title": self.title, **out}
        return out


def as_conversation(conversation: Conversation | Sequence[Message]) -> Conversation:
    """*conversation* itself, or a Conversation holding the given messages.

    >>> from windowmem.messages import user
    >>> as_conversation([user("Hi")]).turn_count
    1
    """
    if isinstance(conversation, Conversation):
        return conversation
    if isinstance(conversation, (str, bytes)) or not isinstance(conversation, Sequence):
        raise WindowMemError(
            f"expected a Conversation or a list of messages, got {type(conversation).__name__}: "
            "load a file with windowmem.load_conversation first"
        )
    return Conversation.of(conversation)


def _to_message(item: Message | dict[str, Any], index: int) -> Message:
    if isinstance(item, Message):
        return item
    where = f"message {index}"
    if not isinstance(item, dict):
        raise ConversationFormatError(
            f"{where} is a {type(item).__name__}, not an object: write each message as "
            '{"role": ..., "content": ...}'
        )
    missing = [key for key in ("role", "content") if key not in item]
    if missing:
        raise ConversationFormatError(
            f"{where} has no {' or '.join(missing)}: every message needs a role and a content"
        )
    try:
        role = parse_role(item["role"])
    except ConversationFormatError as exc:
        raise ConversationFormatError(f"{where}: {exc}") from None
    content = item["content"]
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ConversationFormatError(
            f"{where}: content must be a string, got {type(content).__name__}"
        )
    calls = item.get("tool_calls", ())
    if not isinstance(calls, (list, tuple)) or not all(isinstance(c, str) for c in calls):
        raise ConversationFormatError(f"{where}: tool_calls must be a list of call ids (strings)")
    call_id = item.get("tool_call_id")
    if call_id is not None and not isinstance(call_id, str):
        raise ConversationFormatError(f"{where}: tool_call_id must be a string")
    return Message(role, content, tuple(calls), call_id)


def parse_conversation(data: Any, title: str = "") -> Conversation:
    """A conversation from already-decoded JSON: a list of messages or ``{"messages": [...]}``."""
    if isinstance(data, dict):
        if "messages" not in data:
            raise ConversationFormatError(
                "the conversation object has no 'messages' list: give a list of messages "
                'or an object {"messages": [...]}'
            )
        title = data.get("title", title) or title
        if not isinstance(title, str):
            raise ConversationFormatError("the conversation's title must be a string")
        data = data["messages"]
    if not isinstance(data, list):
        raise ConversationFormatError(
            f"a conversation is a list of messages, got {type(data).__name__}: "
            'give [{"role": ..., "content": ...}, ...]'
        )
    return Conversation.of(data, title)


def loads_conversation(text: str, title: str = "") -> Conversation:
    """A conversation from JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConversationFormatError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}): "
            "fix the file or re-export it as JSON"
        ) from None
    return parse_conversation(data, title)


def load_conversation(path: str | Path) -> Conversation:
    """Read a conversation file; the title defaults to the file's stem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConversationFormatError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise ConversationFormatError(
            f"{path}: not UTF-8 text; save the file as UTF-8 JSON"
        ) from None
    try:
        return loads_conversation(text, title=path.stem)
    except ConversationFormatError as exc:
        raise ConversationFormatError(f"{path}: {exc}") from None


def conversation_from_text(text: str, title: str = "your conversation") -> Conversation:
    """A conversation the learner typed: conversation-file JSON, or one ``role: text`` per line.

    In the line format a line that starts with no known role continues the message above
    it, and blank lines are skipped.

    >>> chat = conversation_from_text("system: Be brief.\\nuser: Hi, order #6023\\nassistant: Hello!\\nuser: Which order?")
    >>> chat.turn_count, chat.messages[1].content
    (2, 'Hi, order #6023')
    """
    stripped = text.strip()
    if not stripped:
        raise ConversationFormatError(
            "the conversation is empty: paste conversation JSON or write one message per line, e.g. 'user: Hi'"
        )
    if stripped[0] in "[{":
        return loads_conversation(stripped, title=title)
    messages: list[dict[str, str]] = []
    for number, line in enumerate(stripped.splitlines(), start=1):
        if not line.strip():
            continue
        role, colon, content = line.partition(":")
        if colon and role.strip().lower() in ROLE_ALIASES:
            messages.append({"role": role.strip(), "content": content.strip()})
        elif messages:
            messages[-1]["content"] += "\n" + line.strip()
        else:
            roles = ", ".join(sorted({r.value for r in ROLE_ALIASES.values()}))
            raise ConversationFormatError(
                f"line {number} does not start with a role: begin each message with one of {roles} "
                f"and a colon, e.g. 'user: {line.strip()[:30]}'"
            )
    conversation = Conversation.of(messages, title=title)
    if conversation.turn_count == 0:
        raise ConversationFormatError(
            "the conversation has no user message: add at least one line 'user: ...'"
        )
    return conversation


def dumps_conversation(conversation: Conversation | Sequence[Message]) -> str:
    """JSON text for *conversation* in the file format (pretty, UTF-8, stable)."""
    if not isinstance(conversation, Conversation):
        conversation = Conversation(tuple(conversation))
    return json.dumps(conversation.as_dict(), ensure_ascii=False, indent=2) + "\n"


def save_conversation(conversation: Conversation | Sequence[Message], path: str | Path) -> None:
    """Write *conversation* to *path*, atomically, so a crash never leaves half a file."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(dumps_conversation(conversation), encoding="utf-8")
    tmp.replace(path)
