"""Lesson 2's explorer, as pure functions: one conversation replayed with memory off and on, call by call.

:func:`calls_view` picks one model call of the replay and gathers what the explorer
shows side by side: the exact array that call sends without memory and with it (one
session, or a new session id for every message), where each message comes from, what
the run writes to memory, and, when the model's reply asks for tools, the item each
tool's sub-workflow receives. The replays are cached in :mod:`.calls_cache`, the HTML
lives in :mod:`.calls_html` and the widgets in :mod:`.calls_widgets`. The agent logic is
all :mod:`windowmem.calls.agent_calls`'s.

>>> from windowmem.calls.tool_scenario import load_tool_scenario
>>> cache = CallsCache(load_tool_scenario("tutienda_tools"))
>>> view = calls_view(cache, window=5, number=2, mode=ONE_SESSION)
>>> (view.turn, view.round, len(view.off.rows), len(view.on.rows), view.on.memory_turns)
(2, 1, 2, 4, (1,))
>>> [d.item["order_number"] for d in view.deliveries]
['#6023']
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.calls.agent_calls import AgentRun, ModelCall, Part
from windowmem.calls.tool_scenario import Delivery
from windowmem.errors import WindowMemError
from windowmem.explorer.calls_cache import ONE_SESSION, CallsCache
from windowmem.messages import Message


@dataclass(frozen=True)
class Row:
    """One message of a call's array: its role, text, tool links, and where it comes from."""

    role: str
    content: str
    part: Part
    turn: int | None
    tool_calls: tuple[str, ...] = ()
    tool_call_id: str | None = None

    @property
    def source(self) -> str:
        """Where the message comes from, in words: ``memory · turn 2``, ``input · turn 5``."""
        return self.part.value if self.turn is None else f"{self.part.value} · turn {self.turn}"


@dataclass(frozen=True)
class Column:
    """One side of the comparison: the array one call sends under one memory set-up."""

    label: str
    session_id: str | None
    rows: tuple[Row, ...]
    stored_before: int
    """Messages the session held when the call was made (0 without memory)."""
    saves: int
    """Messages the run adds to memory when it ends (0 without memory or without an answer)."""

    @property
    def from_memory(self) -> int:
        """How many messages of the array came from memory."""
        return sum(1 for r in self.rows if r.part is Part.MEMORY)

    @property
    def memory_turns(self) -> tuple[int, ...]:
        """The earlier turns the memory part covers."""
        return tuple(sorted({r.turn for r in self.rows if r.part is Part.MEMORY and r.turn}))


@dataclass(frozen=True)
class ArgumentEvidence:
    """Whether a value the model gave a tool appears in the array it was given, off and on."""

    tool: str
    key: str
    value: str
    in_off: bool
    in_on: bool


@dataclass(frozen=True)
class CallsView:
    """Everything the explorer shows for one model call."""

    title: str
    window: int
    mode: str
    number: int
    call_count: int
    turn: int
    round: int
    rounds_in_run: int
    turn_count: int
    off: Column
    on: Column
    reply: Message | None
    """What the model returned on this call in the recorded conversation."""
    answered: bool
    """Whether this call's run ends with an answer."""
    deliveries: tuple[Delivery, ...]
    """What each tool the reply asks for receives (empty when the reply is no tool call)."""
    evidence: tuple[ArgumentEvidence, ...] = ()
    """For each text argument of those tool calls: could the model have read it in its array?"""


def _rows(call: ModelCall) -> tuple[Row, ...]:
    return tuple(
        Row(
            s.message.role.value,
            s.message.content,
            s.part,
            s.turn,
            s.message.tool_calls,
            s.message.tool_call_id,
        )
        for s in call.sent
    )


def _before(runs: tuple[AgentRun, ...], turn: int) -> int:
    """Messages the session of run *turn* held before it started."""
    run = runs[turn - 1]
    return run.stored_after - len(run.saved)


def calls_view(cache: CallsCache, window: int, number: int, mode: str = ONE_SESSION) -> CallsView:
    """The explorer's view of model call *number* (from 1) at Context Window Length *window*."""
    count = len(cache.order)
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise WindowMemError(f"call {number!r} is out of range: pick a call from 1 to {count}")
    turn, round_number = cache.order[number - 1]
    on_runs = cache.on(window, mode)
    off_run, on_run = cache.off[turn - 1], on_runs[turn - 1]
    off_call, on_call = off_run.calls[round_number - 1], on_run.calls[round_number - 1]
    reply = on_call.reply
    session = cache.session_id(turn, mode)
    deliveries: tuple[Delivery, ...] = ()
    if reply is not None and reply.calls_tool:
        deliveries = cache.scenario.deliveries(
            *reply.tool_calls, chat_input=on_call.part(Part.INPUT)[0].content, session_id=session
        )
    evidence = tuple(
        ArgumentEvidence(
            d.tool.name,
            key,
            value,
            any(value in m.content for m in off_call.messages),
            any(value in m.content for m in on_call.messages),
        )
        for d in deliveries
        if isinstance(d.arguments, dict)
        for key, value in d.arguments.items()
        if isinstance(value, str) and value
    )
    on_label = f"memory on, {mode} (Context Window Length {window})"
    return CallsView(
        title=cache.scenario.conversation.title,
        window=window,
        mode=mode,
        number=number,
        call_count=count,
        turn=turn,
        round=round_number,
        rounds_in_run=len(off_run.calls),
        turn_count=cache.turn_count,
        off=Column("memory off", None, _rows(off_call), 0, 0),
        on=Column(
            on_label, on_run.session_id, _rows(on_call), _before(on_runs, turn), len(on_run.saved)
        ),
        reply=reply,
        answered=on_run.answered,
        deliveries=deliveries,
        evidence=evidence,
    )


__all__ = [
    "ArgumentEvidence",
    "CallsView",
    "Column",
    "Row",
    "calls_view",
]
