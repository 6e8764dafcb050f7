"""Sizing a window that runs before every model call: every call of a tool turn must fit.

An agent calls the model more than once on a tool turn: once per round of tool calls, then
once to answer. A window applied before *every* call (langchain 1.x ``create_agent`` with a
``@before_model`` trim, LangGraph's ``pre_model_hook``) counts what the thread holds at that
moment, and before the answering call the thread also holds the turn's own question, its
tool calls and their results. So the fullest call of a turn is its last, and a window sized
only for the first call loses an older turn there; with ``RemoveMessage(REMOVE_ALL_MESSAGES)``
the lost turn is deleted from the saved thread too (checked against the real package by
``tests/design/test_sizing.py``).

>>> from windowmem.policies.langchain_agents import LangChainTrimState
>>> from windowmem.tokens import count_messages
>>> chat = parallel_tool_chat(12, calls=3)
>>> whole_turns_per_call(chat, LangChainTrimState(19, counter=count_messages), 12)
(3, 2)
>>> smallest_window(chat, lambda n: LangChainTrimState(n, counter=count_messages), 12, 3)
23
>>> per_call_window(turn_size=6, turns=3)
23
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role, assistant, interactions, tool, user
from windowmem.policies.base import Memory, WindowPolicy


def calls_sent(messages: Sequence[Message], policy: WindowPolicy) -> list[tuple[Message, ...]]:
    """What the memory hands each model call: the thread as *policy* loads it just before each
    assistant message (one model call) is added, system messages aside.

    >>> from windowmem.policies.langchain_agents import LangChainTrimState
    >>> from windowmem.tokens import count_messages
    >>> chat = [user("u1"), assistant("", ["c"]), tool("r", "c"), assistant("a1")]
    >>> [[m.content for m in sent] for sent in calls_sent(chat, LangChainTrimState(3, counter=count_messages))]
    [['u1'], ['u1', '', 'r']]
    """
    memory = Memory(policy)
    calls = []
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        if message.role is Role.ASSISTANT:
            calls.append(memory.load())
        memory.add(message)
    return calls


def whole_turns_per_call(
    messages: Sequence[Message], policy: WindowPolicy, turn: int
) -> tuple[int, ...]:
    """For each model call of *turn* (1 is the first), how many earlier turns it sends whole.

    A turn is whole when every one of its messages is in the call: this is for agents that
    store every message of a turn (``create_agent``'s thread), not n8n's or Spring AI's stores.
    """
    turns = interactions([m for m in messages if m.role is not Role.SYSTEM])
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(turns):
        raise WindowMemError(f"turn must be a whole number from 1 to {len(turns)}, got {turn!r}")
    first_call = sum(1 for t in turns[: turn - 1] for m in t.messages if m.role is Role.ASSISTANT)
    own_calls = sum(1 for m in turns[turn - 1].messages if m.role is Role.ASSISTANT)
    out = []
    for sent in calls_sent(messages, policy)[first_call : first_call + own_calls]:
        present = set(sent)
        out.append(sum(1 for t in turns[: turn - 1] if all(m in present for m in t.messages)))
    return tuple(out)


def smallest_window(
    messages: Sequence[Message],
    make: Callable[[int], WindowPolicy],
    turn: int,
    whole: int,
    *,
    largest: int = 1000,
) -> int:
    """The smallest size *n* for which every model call of *turn* under ``make(n)`` sends
    at least *whole* earlier turns whole."""
    for size in range(largest + 1):
        if min(whole_turns_per_call(messages, make(size), turn), default=0) >= whole:
            return size
    raise WindowMemError(f"no size up to {largest} sends {whole} whole turns on every call")


def per_call_window(*, turn_size: int, turns: int) -> int:
    """The sizing rule for a window counted in messages before every call: the turns the
    answers need, plus the turn in progress up to its answering call (all of it but the
    answer), ``(turns + 1) × turn_size − 1``.

    >>> per_call_window(turn_size=2, turns=5)   # no tools: the new question only
    11
    """
    for value, label in ((turn_size, "turn_size"), (turns, "turns")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise WindowMemError(f"{label} must be a whole number >= 1, got {value!r}")
    return (turns + 1) * turn_size - 1


def parallel_tool_chat(turns: int, *, calls: int) -> list[Message]:
    """A stock-checking agent's chat: every turn asks for *calls* tools at once, in one round
    (none: a question and its answer).

    >>> [len(t.messages) for t in interactions(parallel_tool_chat(2, calls=3))]
    [6, 6]
    >>> [len(t.messages) for t in interactions(parallel_tool_chat(2, calls=0))]
    [2, 2]
    """
    out: list[Message] = []
    for t in range(1, turns + 1):
        ids = tuple(f"call_{t}_{c}" for c in range(1, calls + 1))
        asked = [assistant("", ids), *(tool(f'{{"answer": "{c}"}}', c) for c in ids)]
        out += [
            user(f"Is item {t} in stock, at what price, and when can it come?"),
            *(asked if ids else ()),
            assistant(f"Item {t}: 3 in stock, 45,000 pesos, here on Friday."),
        ]
    return out


__all__ = [
    "calls_sent",
    "parallel_tool_chat",
    "per_call_window",
    "smallest_window",
    "whole_turns_per_call",
]
