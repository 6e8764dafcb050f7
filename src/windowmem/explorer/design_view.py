"""Lesson 5's explorer as a pure view: every product's array on one turn, the anchor fact, a summary schedule.

:func:`design_view` takes what :class:`DesignCache` computed once (every product's
agent windows with the fact left in the chat and with it in the system prompt) and the
controls' values, and returns a :class:`DesignView`: for each product its array on the
chosen turn, its size in the product's own unit, and where the anchor fact is; then n8n's
rolling-summary schedule and the input tokens it saves. The widgets only display it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.conversation import Conversation
from windowmem.design.anchor_facts import with_fact_in_system_prompt
from windowmem.design.rolling_summary import rolling_summary
from windowmem.design.side_by_side import FactPlace, ProductTurn, side_by_side
from windowmem.errors import WindowMemError
from windowmem.policies.base import Unit, WindowPolicy
from windowmem.tokens import TokenCounter, count_messages
from windowmem.turn_ranges import turn_runs

#: The fact line the system-prompt toggle adds, as a prompt reading a saved fact would.
FACT_LINE = "Order on file for this customer: {fact}"


@dataclass(frozen=True)
class DesignCache:
    """Every product's windows on *conversation*, computed once for both places of the fact."""

    conversation: Conversation
    policies: tuple[WindowPolicy, ...]
    fact: str
    in_chat: tuple[ProductTurn, ...]
    in_system: tuple[ProductTurn, ...]

    @classmethod
    def build(
        cls, conversation: Conversation, policies: Sequence[WindowPolicy], fact: str
    ) -> DesignCache:
        """Replay *conversation* through *policies*, as given and with *fact* in the system prompt."""
        if not any(fact in m.content for m in conversation.messages):
            raise WindowMemError(f"the anchor fact {fact!r} is said nowhere in the conversation")
        anchored = with_fact_in_system_prompt(conversation, FACT_LINE.format(fact=fact))
        return cls(
            conversation,
            tuple(policies),
            fact,
            side_by_side(conversation, policies),
            side_by_side(anchored, policies),
        )


@dataclass(frozen=True, slots=True)
class SentLine:
    """One message of an array as the explorer lists it."""

    role: str
    text: str
    has_fact: bool


@dataclass(frozen=True, slots=True)
class ProductCell:
    """One product on the chosen turn."""

    policy: str
    product: str
    size: str
    """The window's setting in the product's unit, e.g. ``5 message pairs (the last 10 messages)``."""
    amount: str
    """What this call's array holds, system prompt aside (the new input included), in that unit."""
    turns_seen: str
    place: FactPlace
    lines: tuple[SentLine, ...]
    memory_messages: int = 0
    """How many messages of the array the memory loaded (no system prompt, no new input)."""
    visible_turns: tuple[int, ...] = ()
    """The earlier turns with a message in the array."""
    partial_turns: tuple[int, ...] = ()
    """The earlier turns only part of which is in the array (the window cut inside them)."""
    counts_tokens_or_items: bool = False
    """Whether the window's limit counts the new input too (tokens, items, or LangChain's
    ``token_counter=len`` messages), so *amount* says the whole of it."""

    @property
    def memory_line(self) -> str:
        """What the memory put in the array, in messages and turns: what the card says.

        >>> cell = ProductCell("n8n", "n8n", "5 message pairs", "5 interactions", "5–8",
        ...                    FactPlace.NOT_SENT, (), 9, (5, 6, 7, 8), (5,))
        >>> cell.memory_line
        'from memory: 9 messages, turns 5–8 (turn 5 only in part)'
        """
        if not self.memory_messages:
            return "from memory: nothing"
        messages = f"{self.memory_messages} message{'' if self.memory_messages == 1 else 's'}"
        turns = f"turn{'' if len(self.visible_turns) == 1 else 's'} {turn_runs(self.visible_turns)}"
        part = ""
        if self.partial_turns:
            cut = "" if len(self.partial_turns) == 1 else "s"
            part = f" (turn{cut} {turn_runs(self.partial_turns)} only in part)"
        return f"from memory: {messages}, {turns}{part}"


@dataclass(frozen=True, slots=True)
class ScheduleRow:
    """One turn of n8n's rolling-summary schedule."""

    turn: int
    plain_tokens: int
    full_tokens: int
    summarised_tokens: int
    summary_sent: bool | None
    summarised_after: bool
    summariser_tokens: int
    """What the summariser read after this turn (0 when it did not run)."""


@dataclass(frozen=True)
class DesignView:
    """Everything the explorer shows for one setting of its controls."""

    title: str
    fact: str
    turn: int
    turn_count: int
    fact_in_system: bool
    products: tuple[ProductCell, ...]
    window: int
    every: int
    keep_turns: int
    schedule: tuple[ScheduleRow, ...]

    @property
    def reaching(self) -> int:
        """How many products' arrays carry the fact on this turn."""
        return sum(1 for c in self.products if c.place is not FactPlace.NOT_SENT)

    @property
    def plain_total(self) -> int:
        """The conversation's input tokens with the window alone."""
        return sum(r.plain_tokens for r in self.schedule)

    @property
    def full_total(self) -> int:
        """The input tokens with every stored message sent."""
        return sum(r.full_tokens for r in self.schedule)

    @property
    def summarised_total(self) -> int:
        """The input tokens with the rolling summary."""
        return sum(r.summarised_tokens for r in self.schedule)

    @property
    def summariser_total(self) -> int:
        """What the summariser read over the conversation."""
        return sum(r.summariser_tokens for r in self.schedule)


def _text(content: str, calls: Sequence[str], call_id: str | None) -> str:
    if calls:
        return f"{content} [asks for {', '.join(calls)}]".strip()
    if call_id:
        return f"[result of {call_id}] {content}"
    return content


def _amount(count: int, unit: Unit) -> str:
    """*count* in *unit*, singular for one: ``"1 item"``, ``"29 items"``."""
    return f"{count} {unit.value[:-1] if count == 1 else unit.value}"


def _size(size: int | None, unit: Unit) -> str:
    """The window's setting as the card says it; a count of pairs also in messages.

    n8n's Context Window Length and LangChain Python's ``k`` count pairs of stored
    messages, not turns: a tool turn stores more than two, so the card says the messages.

    >>> _size(5, Unit.INTERACTIONS), _size(1, Unit.INTERACTIONS), _size(20, Unit.MESSAGES)
    ('5 message pairs (the last 10 messages)', '1 message pair (the last 2 messages)', '20 messages')
    >>> _size(None, Unit.ITEMS)
    'no limit'
    """
    if size is None:
        return "no limit"
    if unit is Unit.INTERACTIONS:
        pairs = "1 message pair" if size == 1 else f"{size} message pairs"
        return f"{pairs} (the last {2 * size} messages)"
    return _amount(size, unit)


def _cell(row: ProductTurn, fact: str) -> ProductCell:
    size = _size(row.size, row.unit)
    lines = tuple(
        SentLine(
            m.role.value,
            _text(m.content, m.tool_calls, m.tool_call_id),
            fact in m.content,
        )
        for m in row.sent
    )
    return ProductCell(
        row.policy,
        row.product,
        size,
        _amount(row.amount, row.unit),
        turn_runs(row.visible_turns),
        row.fact_place(fact),
        lines,
        row.memory_messages,
        row.visible_turns,
        row.partial_turns,
        row.counts_new_input,
    )


def design_view(
    cache: DesignCache,
    turn: int,
    *,
    fact_in_system: bool = False,
    window: int = 5,
    every: int = 3,
    keep_turns: int = 1,
    counter: TokenCounter = count_messages,
) -> DesignView:
    """The view for *turn*, the fact's place, and n8n's summary schedule (*every* 0: none)."""
    count = cache.conversation.turn_count
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= count:
        raise WindowMemError(f"turn must be a whole number from 1 to {count}, got {turn!r}")
    rows = cache.in_system if fact_in_system else cache.in_chat
    cells = tuple(_cell(r, cache.fact) for r in rows if r.turn == turn)
    plain = rolling_summary(cache.conversation, window=window, counter=counter)
    full = rolling_summary(cache.conversation, window=0, counter=counter)
    rolled = rolling_summary(
        cache.conversation, window=window, every=every, keep_turns=keep_turns, counter=counter
    )
    schedule = tuple(
        ScheduleRow(
            p.turn,
            p.input_tokens,
            f.input_tokens,
            r.input_tokens,
            r.summary_sent,
            r.summarised_after,
            r.summariser_tokens,
        )
        for p, f, r in zip(plain, full, rolled)
    )
    return DesignView(
        cache.conversation.title,
        cache.fact,
        turn,
        count,
        fact_in_system,
        cells,
        window,
        every,
        keep_turns,
        schedule,
    )


__all__ = [
    "FACT_LINE",
    "DesignCache",
    "DesignView",
    "ProductCell",
    "ScheduleRow",
    "SentLine",
    "design_view",
]
