"""What each model call of an agent receives under one of our policies, in the drivers' key shape."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from windowmem.design.sizing import calls_sent
from windowmem.messages import Message, Role, interactions
from windowmem.policies.base import WindowPolicy

Key = tuple[str, str, tuple[str, ...]]


def our_key(message: Message) -> Key:
    """One of our messages as (role, content, tool call ids or the call it answers)."""
    if message.role is Role.TOOL:
        links: tuple[str, ...] = (message.tool_call_id or "",)
    else:
        links = message.tool_calls
    return (message.role.value, message.content, links)


def every_call(
    messages: Sequence[Message], policy: WindowPolicy, *, system_sent: bool = True
) -> list[list[Key]]:
    """What each model call receives under *policy*: the system prompt (if *system_sent*),
    then what the memory loads just before the call's reply (an assistant message) is added."""
    system = [m for m in messages[:1] if m.role is Role.SYSTEM and system_sent]
    return [[our_key(m) for m in (*system, *sent)] for sent in calls_sent(messages, policy)]


def scripted_turns(
    messages: Sequence[Message], outputs: dict[str, str]
) -> Iterator[tuple[Message, list[Message]]]:
    """Each turn's opening message and the assistant messages a scripted model answers with;
    the turn's tool results are put in *outputs* (call id -> result) before it is yielded."""
    for turn in interactions(messages):
        opening, replies = turn.messages[0], turn.messages[1:]
        for reply in replies:
            if reply.role is Role.TOOL and reply.tool_call_id is not None:
                outputs[reply.tool_call_id] = reply.content
        yield opening, [m for m in replies if m.role is Role.ASSISTANT]


def numbered(messages: Sequence[Message]) -> tuple[Message, ...]:
    """*messages* with each text numbered: some agents neither send nor store an empty text
    or a turn that repeats the one before, which is not what the differential tests are about."""
    return tuple(
        Message(m.role, f"{n} {m.content}", m.tool_calls, m.tool_call_id)
        for n, m in enumerate(messages)
    )
