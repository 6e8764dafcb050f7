"""What the window explorer shows, computed by a pure function: one turn of a replay, as a frozen view.

Given a conversation replayed through a window memory (:class:`~.window_cache.ReplayCache`),
:func:`window_view` picks one turn and gathers everything the explorer displays at
once: the timeline of turns (visible, evicted, current, later), the exact message array
the model receives, messages versus interactions, the tokens of this call and the
running input tokens, and whether a chosen fact is still in view.
:func:`~.window_html.render_window_html` writes it as HTML. All the memory logic is
:mod:`windowmem.replay`'s; this module only arranges it.

>>> from windowmem.messages import user, assistant
>>> from windowmem.explorer.window_cache import ReplayCache
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t} #6023" if t == 1 else f"u{t}"), assistant(f"a{t}"))]
>>> view = window_view(ReplayCache(chat), window=5, turn=7, fact="#6023")
>>> view.visible, view.evicted, view.fact_visible, view.fact_turns
('2–6', '1', False, (1,))
"""

from __future__ import annotations

from dataclasses import dataclass

from windowmem.errors import WindowMemError
from windowmem.explorer.window_cache import ReplayCache
from windowmem.messages import Message
from windowmem.recall import fact_visible
from windowmem.turn_ranges import turn_runs

#: The statuses a turn can have on the timeline, seen from the turn being answered.
VISIBLE, PARTIAL, EVICTED, CURRENT, LATER = "visible", "partial", "evicted", "current", "later"


@dataclass(frozen=True)
class TimelineMark:
    """One turn on the timeline: its *number*, its *status* and a preview of its user message."""

    number: int
    status: str
    preview: str


@dataclass(frozen=True)
class WindowView:
    """Everything the explorer shows for one conversation, window and turn."""

    title: str
    window: int
    turn: int
    turn_count: int
    timeline: tuple[TimelineMark, ...]
    visible_turns: tuple[int, ...]
    evicted_turns: tuple[int, ...]
    sent: tuple[Message, ...]
    messages_in_window: int
    tokens_this_call: int
    running_bill: int
    fact: str
    fact_visible: bool | None
    """None when no fact was given."""
    fact_turns: tuple[int, ...]
    """The turns whose messages mention the fact: where it was said."""
    sent_turns: tuple[int | None, ...]
    """The turn each message of ``sent`` belongs to (None for the system message)."""

    @property
    def visible(self) -> str:
        """The visible turns written as runs, e.g. ``"2–6"`` or ``"none"``."""
        return turn_runs(self.visible_turns)

    @property
    def evicted(self) -> str:
        """The evicted turns written as runs."""
        return turn_runs(self.evicted_turns)

    @property
    def interactions_in_window(self) -> int:
        """How many earlier turns have at least one message in the window."""
        return len(self.visible_turns)


def _status(number: int, turn: int, visible: set[int], partial: set[int]) -> str:
    if number == turn:
        return CURRENT
    if number > turn:
        return LATER
    if number in partial:
        return PARTIAL
    return VISIBLE if number in visible else EVICTED


def window_view(
    replays: ReplayCache,
    window: int,
    turn: int,
    fact: str = "",
    *,
    title: str | None = None,
) -> WindowView:
    """The explorer's view of *turn* (from 1) at Context Window Length *window*.

    The running bill adds up the input tokens of every call from turn 1 to *turn*.
    *title* names the conversation (its own title by default).
    """
    views = replays.views(window)
    if not views:
        raise WindowMemError("the conversation has no turns: give it at least one user message")
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= len(views):
        raise WindowMemError(f"turn {turn!r} is out of range: pick a turn from 1 to {len(views)}")
    view = views[turn - 1]
    visible, partial = set(view.visible_turns), set(view.partial_turns)
    turns = replays.turns
    timeline = tuple(
        TimelineMark(
            t.number,
            _status(t.number, turn, visible, partial),
            t.messages[0].short(48) if t.messages else "",
        )
        for t in turns
    )
    needle = fact.strip()
    return WindowView(
        title=replays.conversation.title if title is None else title,
        window=window,
        turn=turn,
        turn_count=len(views),
        timeline=timeline,
        visible_turns=view.visible_turns,
        evicted_turns=view.evicted_turns,
        sent=view.sent,
        messages_in_window=len(view.window),
        tokens_this_call=view.input_tokens,
        running_bill=sum(v.input_tokens for v in views[:turn]),
        fact=needle,
        fact_visible=fact_visible(view, needle) if needle else None,
        fact_turns=tuple(
            t.number for t in turns if needle and any(needle in m.content for m in t.messages)
        ),
        sent_turns=view.sent_turns,
    )
