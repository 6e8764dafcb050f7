"""Hypothesis strategies for random conversations, and the chat notation of peers.md.

Two shapes of conversation:

* :func:`conversations` builds plausible agent histories: an optional system prompt,
  then turns of a user message, sometimes an assistant message calling tools with
  its tool results, and an assistant reply. System messages can reappear mid-chat.
* :func:`message_lists` puts messages of any role in any order, for properties that
  must hold whatever a caller stores.

Contents are short phrases from a fixed vocabulary (sometimes empty), so word counts
vary and a failing example reads easily. Tool-call ids are unique within a conversation.

:data:`PROPERTY_SETTINGS` is the one place the randomness is fixed: derandomized, so
every run draws the same examples, with no example database written to disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from windowmem.messages import Message, Role, assistant, system, tool, user

#: Settings for every property test here: same examples on every run, no timing limits.
PROPERTY_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

VOCABULARY = (
    "order",
    "refund",
    "empanadas",
    "Marta",
    "shipping",
    "size",
    "blue",
    "yes",
    "no",
    "tracking",
)

#: Message text: zero to six words.
texts = st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=6).map(" ".join)


@st.composite
def conversations(
    draw: st.DrawFn,
    *,
    max_turns: int = 10,
    system_prompt: bool | None = None,
    tools: bool = True,
    mid_chat_system: bool = True,
) -> tuple[Message, ...]:
    """A plausible agent history (see the module docstring); *system_prompt* None means maybe."""
    messages: list[Message] = []
    if system_prompt is None:
        system_prompt = draw(st.booleans())
    if system_prompt:
        messages.append(system(draw(texts)))
    call_number = 0
    for _ in range(draw(st.integers(0, max_turns))):
        if mid_chat_system and draw(st.integers(0, 9)) == 0:
            messages.append(system(draw(texts)))
        messages.append(user(draw(texts)))
        if tools and draw(st.booleans()):
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                call_number += 1
                calls.append(f"call{call_number}")
            messages.append(assistant(draw(texts), calls))
            messages.extend(tool(draw(texts), call) for call in calls)
        if draw(st.integers(0, 4)) > 0:  # sometimes the reply is still missing
            messages.append(assistant(draw(texts)))
    return tuple(messages)


@st.composite
def message_lists(draw: st.DrawFn, *, max_size: int = 25) -> tuple[Message, ...]:
    """Messages of any role in any order; assistants may call tools, tool results carry ids."""
    messages: list[Message] = []
    for number in range(draw(st.integers(0, max_size))):
        role = draw(st.sampled_from(list(Role)))
        content = draw(texts)
        if role is Role.ASSISTANT and draw(st.booleans()):
            messages.append(assistant(content, [f"call{number}"]))
        elif role is Role.TOOL:
            messages.append(tool(content, f"call{draw(st.integers(0, max_size))}"))
        else:
            messages.append(Message(role, content))
    return tuple(messages)


# --- peers.md notation -------------------------------------------------------------

_TOKEN = re.compile(r"ai\(call\)|[A-Za-z]+\d*")


def chat(notation: str) -> tuple[Message, ...]:
    """Messages from peers.md notation; each message's content is its own token.

    ``s``/``S1`` system, ``u1``/``U``/``Q1`` user, ``a1``/``A`` assistant, ``tool`` a
    tool result, ``ai(call)`` an assistant message calling tool ``call``, ``cN`` an
    assistant message calling ``callN`` and ``rN`` the result of ``callN``.

    >>> [str(m.role) for m in chat("[S1, u1, c2, r2, a1]")]
    ['system', 'user', 'assistant', 'tool', 'assistant']
    """
    messages = []
    for token in _TOKEN.findall(notation):
        head, number = re.fullmatch(r"([A-Za-z]+?|ai\(call\))(\d*)", token).groups()
        if token == "ai(call)":
            messages.append(assistant(token, ["call"]))
        elif token == "tool":
            messages.append(tool(token, "call"))
        elif head in ("s", "S"):
            messages.append(system(token))
        elif head in ("u", "U", "Q"):
            messages.append(user(token))
        elif head in ("a", "A"):
            messages.append(assistant(token))
        elif head == "c" and number:
            messages.append(assistant(token, [f"call{number}"]))
        elif head == "r" and number:
            messages.append(tool(token, f"call{number}"))
        else:
            raise ValueError(f"unknown token {token!r} in {notation!r}")
    return tuple(messages)


def turns(count: int, first: int = 1) -> tuple[Message, ...]:
    """``u{first} a{first} ... u{count} a{count}``: *count* plain turns."""
    return tuple(m for n in range(first, count + 1) for m in (user(f"u{n}"), assistant(f"a{n}")))


def contents(messages: Iterable[Message]) -> list[str]:
    """The contents of *messages*, in order: how the tests compare windows."""
    return [m.content for m in messages]


def roles_and_contents(messages: Sequence[Message]) -> list[tuple[str, str]]:
    """``(role, content)`` pairs: what a differential test compares across libraries."""
    return [(m.role.value, m.content) for m in messages]
