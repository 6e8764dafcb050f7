"""Messages, the unit every window memory stores, and interactions, the unit n8n counts.

A *message* has a role and a text. An *interaction* (a turn) is a user message and
every message after it up to the next user message: the assistant's reply and, with
tools, the assistant's tool calls and their results.  System messages belong to no
interaction: agents send them beside the buffer on every call.

>>> chat = [system("Be brief."), user("Hi"), assistant("Hello!"), user("Bye")]
>>> [len(turn.messages) for turn in interactions(chat)]
[2, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from windowmem.errors import ConversationFormatError


class Role(StrEnum):
    """Who wrote a message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


#: Spellings of roles found in other libraries' exports, mapped to ours.
ROLE_ALIASES = {
    "system": Role.SYSTEM,
    "user": Role.USER,
    "human": Role.USER,
    "assistant": Role.ASSISTANT,
    "ai": Role.ASSISTANT,
    "tool": Role.TOOL,
    "function": Role.TOOL,
}


def parse_role(value: object) -> Role:
    """The Role that *value* names, or a ConversationFormatError listing the valid names.

    >>> parse_role("human")
    <Role.USER: 'user'>
    """
    if isinstance(value, Role):
        return value
    if isinstance(value, str) and value.strip().lower() in ROLE_ALIASES:
        return ROLE_ALIASES[value.strip().lower()]
    valid = ", ".join(r.value for r in Role)
    raise ConversationFormatError(f"unknown role {value!r}: use one of {valid}")


_set_field = object.__setattr__


@dataclass(frozen=True, slots=True, init=False)
class Message:
    """One message: its *role*, its *content*, and tool-call links where there are any.

    *tool_calls* holds the ids of the tools an assistant message asks for;
    *tool_call_id* is the id of the call a tool message answers.
    """

    role: Role
    content: str
    tool_calls: tuple[str, ...]
    tool_call_id: str | None

    # Written by hand rather than generated: a replay of 100,000 messages builds every
    # one of them, and the generated __init__ plus __post_init__ cost twice as much.
    def __init__(
        self,
        role: Role | str,
        content: str,
        tool_calls: Iterable[str] = (),
        tool_call_id: str | None = None,
    ) -> None:
        if type(role) is not Role:
            role = parse_role(role)
        if type(content) is not str and not isinstance(content, str):
            raise ConversationFormatError(
                f"message content must be text, got {type(content).__name__}: "
                "write the content as a JSON string"
            )
        if type(tool_calls) is not tuple:
            tool_calls = tuple(tool_calls)
        _set_field(self, "role", role)
        _set_field(self, "content", content)
        _set_field(self, "tool_calls", tool_calls)
        _set_field(self, "tool_call_id", tool_call_id)

    @property
    def calls_tool(self) -> bool:
        """True for an assistant message that requests one or more tools."""
        return self.role is Role.ASSISTANT and bool(self.tool_calls)

    def as_dict(self) -> dict[str, object]:
        """The message as the JSON object of the conversation file format."""
        out: dict[str, object] = {"role": self.role.value, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = list(self.tool_calls)
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out

    def short(self, width: int = 40) -> str:
        """A one-line preview, for tables: ``user: Hi, I'm Marta…``."""
        text = " ".join(self.content.split())
        if len(text) > width:
            text = text[: width - 1] + "…"
        return f"{self.role.value}: {text}"


def system(content: str) -> Message:
    """A system message."""
    return Message(Role.SYSTEM, content)


def user(content: str) -> Message:
    """A user message."""
    return Message(Role.USER, content)


def assistant(content: str, tool_calls: Iterable[str] = ()) -> Message:
    """An assistant message, asking for the tools whose call ids are in *tool_calls*."""
    return Message(Role.ASSISTANT, content, tuple(tool_calls))


def tool(content: str, call_id: str | None = None) -> Message:
    """A tool result, answering the call *call_id*."""
    return Message(Role.TOOL, content, tool_call_id=call_id)


@dataclass(frozen=True, slots=True)
class Interaction:
    """Turn *number* (from 1) and its messages: the user message first, then the replies."""

    number: int
    messages: tuple[Message, ...] = field(default=())

    @property
    def user_message(self) -> Message | None:
        """The message that opened the turn (None for replies before any user message)."""
        first = self.messages[0] if self.messages else None
        return first if first is not None and first.role is Role.USER else None


def interactions(messages: Sequence[Message]) -> tuple[Interaction, ...]:
    """Split *messages* into interactions, leaving system messages out.

    Every user message opens a new interaction. Non-system messages before the first
    user message (a greeting, say) form an interaction of their own.

    >>> turns = interactions([user("a"), assistant("b"), user("c")])
    >>> [(t.number, [m.content for m in t.messages]) for t in turns]
    [(1, ['a', 'b']), (2, ['c'])]
    """
    turns: list[list[Message]] = []
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.USER or not turns:
            turns.append([message])
        else:
            turns[-1].append(message)
    return tuple(Interaction(i, tuple(ms)) for i, ms in enumerate(turns, start=1))


def without_system(messages: Iterable[Message]) -> tuple[Message, ...]:
    """The messages that are not system messages, in order."""
    return tuple(m for m in messages if m.role is not Role.SYSTEM)
