"""n8n's Simple Memory (node ``memoryBufferWindow``): a window counted in interactions.

It wraps LangChain JS ``BufferWindowMemory`` with ``k = contextWindowLength``: every
message is stored, and a load returns the last ``2k`` messages, whatever their roles.
``k = 0`` loads everything (JavaScript's ``slice(-0)`` is the whole array).

Counting messages can cut a tool exchange in two; the n8n agent then removes the
broken pieces at the window's edges (:func:`drop_orphaned_tool_messages`). Where the
buffers live and when they vanish is modelled in :mod:`windowmem.policies.n8n.store`,
how they are named in :mod:`windowmem.policies.n8n.buffer_names`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import WindowMemError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy, check_size


@dataclass(frozen=True)
class N8nSimpleMemory(WindowPolicy):
    """n8n Simple Memory with Context Window Length *size* (interactions, default 5).

    >>> from windowmem.messages import user, assistant
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> [m.content for m in N8nSimpleMemory(5).window(chat[:12])][:2]
    ['u2', 'a2']
    """

    size: int = 5
    name: ClassVar[str] = "n8n"
    source: ClassVar[str] = (
        "nodes/memory/MemoryBufferWindow/MemoryBufferWindow.node.js, utils/agent-execution/memoryManagement.js"
    )
    product: ClassVar[str] = "n8n Simple Memory"
    unit: ClassVar[Unit] = Unit.INTERACTIONS
    default_size: ClassVar[int] = 5
    accepted_sizes: ClassVar[str] = "a whole number of interactions >= 0: 0 loads every message"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)

    def tail_needed(self) -> int | None:
        return 2 * self.size if self.size > 0 else None

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        if self.size == 0:
            return tuple(stored)
        return tuple(stored[-2 * self.size :])


def drop_orphaned_tool_messages(messages: Sequence[Message]) -> tuple[Message, ...]:
    """*messages* without the broken tool exchanges at their edges, as n8n 2.41.1's agent removes them.

    The agent runs this (``cleanupOrphanedMessages``) on the loaded window before calling
    the model, because a model API rejects a tool result without the call that asked for
    it, and a call without its results. It makes two passes (``memoryManagement.js``), each
    repeated until nothing changes: first the start, dropping tool results and an assistant
    tool call not followed by a tool result; then the end, dropping a run of tool results
    not preceded by an assistant tool call, and a trailing assistant tool call. Exchanges
    inside the window are left alone, and so is a call at
    the end that some results follow: 2.41.1 checks the order of the messages, not which
    call each result answers. (n8n 2.3.0 cleaned only the start, in one pass; the end is
    cleaned in 2.41.1 and not in 2.20.0.) This is the one implementation;
    :func:`windowmem.calls.agent_calls.cleanup_orphaned_messages` is the same function.

    >>> from windowmem.messages import user, assistant, tool
    >>> window = [tool("42 °C", "c1"), assistant("It is hot."), user("u2"), assistant("a2")]
    >>> [m.content for m in drop_orphaned_tool_messages(window)]
    ['It is hot.', 'u2', 'a2']
    >>> [m.content for m in drop_orphaned_tool_messages([tool("r"), assistant("", ["c1"]), user("u")])]
    ['u']
    >>> [m.content for m in drop_orphaned_tool_messages([user("u1"), assistant("", ["c1"])])]
    ['u1']
    """
    kept = list(messages)
    changed = True
    while changed and kept:  # the start
        changed = False
        while kept and kept[0].role is Role.TOOL:
            kept.pop(0)
            changed = True
        if kept and kept[0].calls_tool and (len(kept) < 2 or kept[1].role is not Role.TOOL):
            kept.pop(0)
            changed = True
    changed = True
    while changed and kept:  # then the end
        changed = False
        end = len(kept)
        while end > 0 and kept[end - 1].role is Role.TOOL:
            end -= 1
        if end < len(kept) and not (end > 0 and kept[end - 1].calls_tool):
            del kept[end:]
            changed = True
        elif end == len(kept) and kept[-1].calls_tool:
            kept.pop()
            changed = True
    return tuple(kept)


def visible_turns(window: int, turn: int) -> tuple[int, ...]:
    """Turns n8n's buffer holds when turn *turn* is processed with Context Window Length *window*.

    Pure arithmetic in interactions: turns ``max(1, turn - window)`` to ``turn - 1``;
    *window* 0 means every earlier turn (n8n loads all messages then).

    >>> visible_turns(5, 7)
    (2, 3, 4, 5, 6)
    >>> visible_turns(3, 5), visible_turns(5, 1), visible_turns(0, 4)
    ((2, 3, 4), (), (1, 2, 3))
    """
    check_size(window, policy="Context Window Length")
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise WindowMemError(f"turn must be a whole number from 1, got {turn!r}")
    first = 1 if window == 0 else max(1, turn - window)
    return tuple(range(first, turn))


def n8n_uniform_bill(
    turns: int, window: int, system_tokens: int, user_tokens: int, reply_tokens: int
) -> int:
    """The closed-form input bill of n8n Simple Memory over *turns* identical user/reply turns.

    Turn t is sent the system message, min(t-1, window) earlier turns (every earlier turn
    when *window* is 0) and its own user message, so

    C_in = T·(s + u) + (u + r)·Σ_{t=1..T} min(t-1, k).

    Once t > k+1 every call costs the same: past the window, the bill grows linearly
    with the conversation instead of quadratically.

    >>> n8n_uniform_bill(turns=7, window=5, system_tokens=0, user_tokens=1, reply_tokens=1)
    47
    """
    for label, value in (
        ("turns", turns),
        ("window", window),
        ("system_tokens", system_tokens),
        ("user_tokens", user_tokens),
        ("reply_tokens", reply_tokens),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise WindowMemError(f"{label} must be a whole number >= 0, got {value!r}")
    if window == 0 or turns <= window + 1:
        earlier_turns = turns * (turns - 1) // 2
    else:
        earlier_turns = window * (window + 1) // 2 + (turns - window - 1) * window
    return turns * (system_tokens + user_tokens) + (user_tokens + reply_tokens) * earlier_turns
