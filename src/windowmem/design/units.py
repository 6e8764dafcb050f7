"""Converting between the units products count a window in: interactions, stored messages, whole turns.

n8n's Context Window Length counts *interactions* but loads ``2 × k`` *messages*
(``@n8n/n8n-nodes-langchain`` 2.41.1 over ``BufferWindowMemory``); Spring AI's
``maxMessages`` and Tensorify's ``windowSize`` count messages. Which unit is "the same
size" depends on how many messages one turn leaves in the store, and that depends on the
product and on the tools the turn called:

* n8n's AI Agent at typeVersion 3 and 3.1 (3.1 is the default for new agents in
  ``@n8n/n8n-nodes-langchain`` 2.41.1; stored this way since 2.3.0) saves a turn as the user
  message, then for every tool call of the run's **last model round** an assistant message
  asking for that one call and the call's result, then the answer: ``2 + 2 × calls``
  messages (two calls made at once become two pairs; a run that called a tool, then another,
  keeps only the second; seen running n8n 2.41.1, ``make verify-n8n``). Its typeVersions 1 to 2.3 hand the memory to LangChain's ``AgentExecutor``,
  which saves the input and the output only;
* Spring AI's memory advisor (1.0.0 to 2.0.1), at the default advisor order (outside the
  tool-calling loop), stores only the user message and the final answer: 2 messages,
  whatever tools ran. Moved inside the loop (2.0) it stores the tool messages too.

So every conversion here is computed from the turns' sizes, never assumed.

>>> sizes = stored_turn_sizes([1, 0, 2])          # tool calls per turn
>>> sizes
(4, 2, 6)
>>> turns_in_window(n8n_loaded_messages(5), sizes)
TurnCoverage(whole_turns=2, partial_messages=2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.errors import WindowMemError
from windowmem.messages import Message, interactions


def _whole(value: object, label: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WindowMemError(f"{label} must be a whole number >= {minimum}, got {value!r}")
    return value


def messages_per_turn(tool_calls: int = 0, *, stores_tool_calls: bool = True) -> int:
    """The messages one answered turn leaves in the store.

    *stores_tool_calls* True is n8n's AI Agent typeVersion 3/3.1 (a call and its result per
    tool call), False is a question-and-answer store (Spring AI's advisor at its default
    order, LangChain's ``save_context``, Tensorify).

    >>> messages_per_turn(), messages_per_turn(3), messages_per_turn(3, stores_tool_calls=False)
    (2, 8, 2)
    """
    calls = _whole(tool_calls, "tool_calls")
    return 2 + 2 * calls if stores_tool_calls else 2


def stored_turn_sizes(
    tool_calls_per_turn: Sequence[int], *, stores_tool_calls: bool = True
) -> tuple[int, ...]:
    """:func:`messages_per_turn` for each turn, oldest first."""
    return tuple(
        messages_per_turn(c, stores_tool_calls=stores_tool_calls) for c in tool_calls_per_turn
    )


def tool_calls_per_turn(messages: Sequence[Message]) -> tuple[int, ...]:
    """How many tool calls of each interaction n8n's agent stores: those of its last model round.

    An assistant message asking for tools is one model round; n8n 2.41.1 (AI Agent 3.1)
    keeps only the last round's calls (system messages aside).

    >>> from windowmem.messages import user, assistant, tool
    >>> chat = [user("u1"), assistant("", ["a", "b"]), tool("ra", "a"), tool("rb", "b"),
    ...         assistant("a1"), user("u2"), assistant("", ["c"]), tool("rc", "c"),
    ...         assistant("", ["d"]), tool("rd", "d"), assistant("a2"), user("u3")]
    >>> tool_calls_per_turn(chat)
    (2, 1, 0)
    """
    return tuple(
        next((len(m.tool_calls) for m in reversed(turn.messages) if m.calls_tool), 0)
        for turn in interactions(messages)
    )


def n8n_loaded_messages(context_window_length: int) -> int | None:
    """How many stored messages n8n Simple Memory loads: ``2 × k``; None for k = 0 (every message).

    >>> n8n_loaded_messages(5), n8n_loaded_messages(0)
    (10, None)
    """
    k = _whole(context_window_length, "Context Window Length")
    return None if k == 0 else 2 * k


@dataclass(frozen=True, slots=True)
class TurnCoverage:
    """What a window of the newest N messages covers: whole turns, and the tail of one more."""

    whole_turns: int
    partial_messages: int
    """Messages of the next older turn that also fit (0: the cut falls between turns)."""


def turns_in_window(window_messages: int | None, sizes: Sequence[int]) -> TurnCoverage:
    """The turns (newest first) that the last *window_messages* stored messages hold.

    *sizes* are the stored sizes of the turns, oldest first; None means no limit.

    >>> turns_in_window(10, [2] * 7)
    TurnCoverage(whole_turns=5, partial_messages=0)
    >>> turns_in_window(10, [4, 4, 4])
    TurnCoverage(whole_turns=2, partial_messages=2)
    >>> turns_in_window(None, [4, 4])
    TurnCoverage(whole_turns=2, partial_messages=0)
    """
    room = None if window_messages is None else _whole(window_messages, "the window")
    whole = 0
    for size in reversed([_whole(s, "a turn's size", minimum=1) for s in sizes]):
        if room is not None and size > room:
            return TurnCoverage(whole, room)
        whole += 1
        if room is not None:
            room -= size
    return TurnCoverage(whole, 0)


def messages_for_turns(turns: int, sizes: Sequence[int]) -> int:
    """The message window that holds the newest *turns* turns whole.

    >>> messages_for_turns(5, [4, 2, 4, 6, 2, 4])
    18
    """
    wanted = _whole(turns, "turns")
    if wanted > len(sizes):
        raise WindowMemError(f"only {len(sizes)} turns are stored, cannot hold the newest {wanted}")
    return sum(sizes[len(sizes) - wanted :])


__all__ = [
    "TurnCoverage",
    "messages_for_turns",
    "messages_per_turn",
    "n8n_loaded_messages",
    "stored_turn_sizes",
    "tool_calls_per_turn",
    "turns_in_window",
]
