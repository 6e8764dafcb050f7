"""n8n's Chat Memory Manager node: load, insert and delete against the *whole* stored history.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1 (``nodes/memory/MemoryManager``, typeVersion
1.1). Every mode starts from ``memory.chatHistory.getMessages()``: everything the
connected memory node has stored, never the window the agent loads. So a rolling
summary written here reaches the agent only if it lands among the newest ``2 × k``
messages of the store (:mod:`windowmem.design.rolling_summary` puts numbers on it).

* **load** (the default mode): the stored messages. With *Simplify Output* (default on)
  they are grouped into objects keyed by message type (``human``, ``ai``, ``system``,
  ``tool``), a new object starting whenever a type repeats, and ``messagesCount`` counts
  those objects, not messages. With it off, ``messagesCount`` is the message count.
* **insert**: append messages of type ``ai``, ``system`` (the default type) or ``user``;
  *Override All Messages* clears the history first. There is no tool type: the node can
  write neither a tool call nor a tool result.
* **delete**: the last N messages (default 2; if fewer are stored, nothing is deleted)
  or all of them.
* ``hideFromUI`` marks a message; among n8n's AI nodes (2.41.1) only the Chat Trigger's
  *Load Previous Session* filter reads the mark, so a hidden message still reaches the model.
  (At typeVersion 1, *Simplify Output* on with *Group Messages* unset returns the objects
  ungrouped, without ``messagesCount``; this module models 1.1.)

>>> from windowmem.messages import user, assistant
>>> history = stored_history([user("h1"), assistant("a1"), user("h2"), assistant("a2")])
>>> load(history).messages_count, load(history, simplify_output=False).messages_count
(2, 4)
>>> history = insert(history, [ManagerMessage("Internal note", hide_from_ui=True)])
>>> len(chat_widget_messages(history)), len(model_history(history))
(4, 5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, system, user


class MessageType(StrEnum):
    """The types the node's *Insert Messages* offers (no tool type)."""

    AI = "ai"
    SYSTEM = "system"
    USER = "user"


class InsertMode(StrEnum):
    """*Insert Mode*: add after the stored messages, or replace them."""

    INSERT = "insert"
    OVERRIDE = "override"


class DeleteMode(StrEnum):
    """*Delete Mode*: the last N messages, or all."""

    LAST_N = "lastN"
    ALL = "all"


#: The defaults of the node (2.41.1): the mode, the inserted type, the count deleted.
DEFAULT_MODE = "load"
DEFAULT_TYPE = MessageType.SYSTEM
DEFAULT_DELETE_COUNT = 2

_TYPE_NAMES = {Role.USER: "human", Role.ASSISTANT: "ai", Role.SYSTEM: "system", Role.TOOL: "tool"}


@dataclass(frozen=True, slots=True)
class StoredMessage:
    """One message of a memory's history, with the ``hideFromUI`` mark the node can set."""

    message: Message
    hide_from_ui: bool = False


@dataclass(frozen=True, slots=True)
class ManagerMessage:
    """One row of *Messages to Insert*: the text, its type (default ``system``), ``hideFromUI``."""

    message: str
    type: MessageType | str = DEFAULT_TYPE
    hide_from_ui: bool = False

    def as_message(self) -> Message:
        """The LangChain message the node builds for this row."""
        try:
            kind = MessageType(self.type)
        except ValueError:
            valid = ", ".join(t.value for t in MessageType)
            raise WindowMemError(
                f"the Chat Memory Manager inserts messages of type {valid}; got {self.type!r} "
                "(it has no tool type)"
            ) from None
        if not isinstance(self.message, str) or self.message == "":
            raise WindowMemError("a message to insert needs its text: the field is required")
        build = {MessageType.AI: assistant, MessageType.SYSTEM: system, MessageType.USER: user}
        return build[kind](self.message)


History = tuple[StoredMessage, ...]


def stored_history(messages: Sequence[Message]) -> History:
    """A history holding *messages*, none of them hidden."""
    return tuple(StoredMessage(m) for m in messages)


def insert(
    history: History,
    rows: Sequence[ManagerMessage],
    mode: InsertMode | str = InsertMode.INSERT,
) -> History:
    """The history after *Insert Messages*: appended, or (``override``) instead of what was stored.

    >>> from windowmem.messages import user
    >>> [s.message.content for s in insert(stored_history([user("old")]), [ManagerMessage("new", "ai")], "override")]
    ['new']
    """
    chosen = _mode(InsertMode, mode, "Insert Mode")
    added = tuple(StoredMessage(row.as_message(), row.hide_from_ui) for row in rows)
    return added if chosen is InsertMode.OVERRIDE else (*history, *added)


def delete(
    history: History,
    mode: DeleteMode | str = DeleteMode.LAST_N,
    last_messages_count: int = DEFAULT_DELETE_COUNT,
) -> History:
    """The history after *Delete Messages*: the last *last_messages_count*, or all.

    With fewer messages stored than the count, the node deletes nothing.

    >>> from windowmem.messages import user
    >>> len(delete(stored_history([user("a"), user("b"), user("c")]))), len(delete(stored_history([user("a")])))
    (1, 1)
    """
    chosen = _mode(DeleteMode, mode, "Delete Mode")
    if chosen is DeleteMode.ALL:
        return ()
    if isinstance(last_messages_count, bool) or not isinstance(last_messages_count, int):
        raise WindowMemError(
            f"Last Messages Count must be a whole number, got {last_messages_count!r}"
        )
    if last_messages_count < 0:
        raise WindowMemError(f"Last Messages Count must not be negative, got {last_messages_count}")
    if len(history) < last_messages_count:
        return history
    return history[: len(history) - last_messages_count]


def simplify_messages(messages: Sequence[Message]) -> list[dict[str, object]]:
    """The node's *Simplify Output*: one object per run of distinct types, keyed by type.

    An assistant message that only calls tools is shown as ``[]``, its stored content.

    >>> from windowmem.messages import user, assistant, tool
    >>> simplify_messages([user("u"), assistant("", ["c"]), tool("t", "c"), assistant("a")])
    [{'human': 'u', 'ai': [], 'tool': 't'}, {'ai': 'a'}]
    """
    groups: list[dict[str, object]] = []
    for message in messages:
        key = _TYPE_NAMES[message.role]
        if not groups or key in groups[-1]:
            groups.append({})
        groups[-1][key] = [] if message.calls_tool and message.content == "" else message.content
    return groups


@dataclass(frozen=True, slots=True)
class LoadOutput:
    """What *Get Many Messages* returns, grouped: the messages and ``messagesCount``."""

    messages: tuple[object, ...]
    messages_count: int


def load(history: History, *, simplify_output: bool = True) -> LoadOutput:
    """*Get Many Messages* with *Group Messages* on (the default) over the whole history.

    ``messages_count`` is the number of simplified groups with *simplify_output*, the
    number of messages without it.
    """
    messages = model_history(history)
    out: tuple[object, ...] = (
        tuple(simplify_messages(messages)) if simplify_output else tuple(messages)
    )
    return LoadOutput(out, len(out))


def model_history(history: History) -> tuple[Message, ...]:
    """What the memory hands the agent before its window: every message, hidden ones too."""
    return tuple(s.message for s in history)


def chat_widget_messages(history: History) -> tuple[Message, ...]:
    """What the Chat Trigger's *Load Previous Session* (From Memory) draws: hidden ones filtered out."""
    return tuple(s.message for s in history if not s.hide_from_ui)


def _mode(kind: type[InsertMode] | type[DeleteMode], value: object, label: str) -> object:
    try:
        return kind(str(value)) if isinstance(value, str) else kind(value)  # type: ignore[arg-type]
    except ValueError:
        valid = ", ".join(m.value for m in kind)
        raise WindowMemError(f"{label} must be one of {valid}, got {value!r}") from None


__all__ = [
    "DEFAULT_DELETE_COUNT",
    "DEFAULT_MODE",
    "DEFAULT_TYPE",
    "DeleteMode",
    "History",
    "InsertMode",
    "LoadOutput",
    "ManagerMessage",
    "MessageType",
    "StoredMessage",
    "chat_widget_messages",
    "delete",
    "insert",
    "load",
    "model_history",
    "simplify_messages",
    "stored_history",
]
