"""What the window explorer shows, computed by pure functions: a frozen view and its HTML.

Given a conversation replayed through a window memory, :func:`explorer_view` picks one
turn and gathers everything the explorer displays at once: the timeline of turns
(visible, evicted, current, later), the exact message array the model receives,
messages versus interactions, the tokens of this call and the running input bill, and
whether a chosen fact is still in view. :func:`render_html` turns that view into a
self-contained HTML fragment, which is both the live widget's content and the static
snapshot a notebook keeps for readers without a kernel.

All the memory logic is :mod:`windowmem.replay`'s; this module only arranges it.

>>> from windowmem.messages import user, assistant
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t} #6023" if t == 1 else f"u{t}"), assistant(f"a{t}"))]
>>> view = explorer_view(ReplayCache(chat), window=5, turn=7, fact="#6023")
>>> view.visible, view.evicted, view.fact_visible, view.fact_turns
('2–6', '1', False, (1,))
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from windowmem.conversation import Conversation, loads_conversation
from windowmem.errors import ConversationFormatError, WindowMemError
from windowmem.messages import ROLE_ALIASES, Message
from windowmem.policies.base import TokenCounter
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.replay import TurnView, as_conversation, fact_visible, replay, turn_runs
from windowmem.tokens import qwen_counter

#: The statuses a turn can have on the timeline, seen from the turn being answered.
VISIBLE, PARTIAL, EVICTED, CURRENT, LATER = "visible", "partial", "evicted", "current", "later"

#: Past this many turns the timeline draws small unlabelled squares (numbers on hover).
LABELLED_TIMELINE_TURNS = 60


class ReplayCache:
    """A conversation's replays under n8n Simple Memory, one per window size, each computed once.

    Moving the turn slider then only indexes a replay; moving the window slider replays
    the conversation once per new size. The conversation's turns, and the turn each of
    its messages belongs to, are worked out once too.

    >>> from windowmem.messages import user, assistant
    >>> cache = ReplayCache([user("a"), assistant("b"), user("c")])
    >>> len(cache.views(5)), cache.views(5) is cache.views(5)
    (2, True)
    """

    def __init__(
        self, conversation: Conversation | Sequence[Message], counter: TokenCounter | None = None
    ) -> None:
        self.conversation = as_conversation(conversation)
        self.counter = counter if counter is not None else qwen_counter()
        self.turns = self.conversation.interactions
        # Memories hand back the very Message objects they were given, so identity finds
        # a sent message's turn even when two turns say the same words.
        self.turn_of = {id(m): t.number for t in self.turns for m in t.messages}
        self._views: dict[int, tuple[TurnView, ...]] = {}

    def views(self, window: int) -> tuple[TurnView, ...]:
        """Every turn's view at Context Window Length *window*."""
        if window not in self._views:
            self._views[window] = replay(self.conversation, N8nSimpleMemory(window), self.counter)
        return self._views[window]


@dataclass(frozen=True)
class TimelineMark:
    """One turn on the timeline: its *number*, its *status* and a preview of its user message."""

    number: int
    status: str
    preview: str


@dataclass(frozen=True)
class ExplorerView:
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


def explorer_view(
    replays: ReplayCache,
    window: int,
    turn: int,
    fact: str = "",
    *,
    title: str | None = None,
) -> ExplorerView:
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
    return ExplorerView(
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
        sent_turns=tuple(replays.turn_of.get(id(m)) for m in view.sent),
    )


# Styles are inline, not a <style> sheet: JupyterLab strips style sheets from the
# outputs of an untrusted notebook (one opened without running it) but keeps inline
# styles, so the static snapshot looks the same with or without a kernel.
_STATUS_STYLE = {
    VISIBLE: "background:#2da44e;color:#fff",
    PARTIAL: "background:#bf8700;color:#fff",
    EVICTED: "background:#eaeef2;color:#8c959f;text-decoration:line-through",
    CURRENT: "background:#0969da;color:#fff;font-weight:600",
    LATER: "background:#fff;color:#afb8c1;border:1px solid #d0d7de",
}
_STATUS_LABEL = {
    VISIBLE: "in the window",
    PARTIAL: "partly in the window",
    EVICTED: "out of the window, still stored",
    CURRENT: "being answered",
    LATER: "not yet said",
}
_ROLE_COLOUR = {"system": "#8250df", "user": "#0969da", "assistant": "#1a7f37", "tool": "#9a6700"}
_MARK = "display:inline-block;border-radius:4px;padding:1px 6px;min-width:14px;text-align:center;margin:0 3px 3px 0;"
_COMPACT_MARK = "display:inline-block;width:9px;height:9px;margin:1px;font-size:0;"
_SECTION = "margin:12px 0 4px;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:#57606a"
_FIGURE = "display:inline-block;vertical-align:top;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:0 8px 8px 0;min-width:150px"
_NUMBER = "display:block;font-size:18px;font-weight:600"
_CELL = (
    "padding:3px 8px;border:none;border-bottom:1px solid #eaeef2;vertical-align:top;text-align:left"
)


def _highlight(text: str, needle: str) -> str:
    escaped = html.escape(text)
    if not needle:
        return escaped
    return escaped.replace(
        html.escape(needle),
        f'<mark class="wm-hit" style="background:#fff8c5">{html.escape(needle)}</mark>',
    )


def _section(title: str) -> str:
    return f'<div style="{_SECTION}">{title}</div>'


def _timeline_html(view: ExplorerView) -> str:
    # A long conversation's timeline is hundreds of marks, resent on every update: keep
    # each one short (no preview on hover, a terse style).
    compact = view.turn_count > LABELLED_TIMELINE_TURNS
    mark_style = _COMPACT_MARK if compact else _MARK
    marks = " ".join(
        f'<span class="wm-turn wm-{m.status}" style="{mark_style}{_STATUS_STYLE[m.status]}" '
        f'title="turn {m.number} ({_STATUS_LABEL[m.status]}){"" if compact else ": " + html.escape(m.preview)}">'
        f"{m.number}</span>"
        for m in view.timeline
    )
    key = " &middot; ".join(
        f'<span style="{_MARK}min-width:0;padding:0 5px;{_STATUS_STYLE[status]}">&nbsp;</span>{label}'
        for status, label in _STATUS_LABEL.items()
    )
    return (
        f'<div class="wm-timeline" data-visible-turns="{html.escape(view.visible)}" style="margin:4px 0">{marks}</div>'
        f'<div class="wm-key" style="font-size:12px;color:#57606a">{key}</div>'
        f'<div>In the window: {_turn_word(view.visible_turns)}<b class="wm-visible-turns">{html.escape(view.visible)}</b>'
        f" &middot; out of the window (n8n still stores them): "
        f'{_turn_word(view.evicted_turns)}<b class="wm-evicted-turns">{html.escape(view.evicted)}</b></div>'
    )


def _turn_word(turns: Sequence[int]) -> str:
    # "turn 1", "turns 2–6", and plain "none": the word agrees with what follows it.
    return "" if not turns else ("turn " if len(turns) == 1 else "turns ")


def _messages_html(view: ExplorerView) -> str:
    rows = []
    for message, owner in zip(view.sent, view.sent_turns):
        is_new = owner == view.turn
        where = (
            "sent beside the buffer"
            if owner is None
            else ("new message" if is_new else f"turn {owner}")
        )
        role = message.role.value
        rows.append(
            f'<tr class="{"wm-new" if is_new else ""}" style="background:{"#ddf4ff" if is_new else "#fff"}">'
            f'<td style="{_CELL};width:1%;font-weight:600;white-space:nowrap;color:{_ROLE_COLOUR.get(role, "#1f2328")}">{role}</td>'
            f'<td style="{_CELL}">{_highlight(message.content, view.fact)}</td>'
            f'<td style="{_CELL};width:1%;white-space:nowrap;color:#57606a">{where}</td></tr>'
        )
    return (
        '<div class="wm-messages" style="max-height:400px;overflow:auto;border:1px solid #d0d7de;border-radius:6px">'
        f'<table style="border-collapse:collapse;table-layout:auto;width:100%;margin:0;font-size:13px">{"".join(rows)}</table></div>'
    )


def _fact_html(view: ExplorerView) -> str:
    if view.fact_visible is None:
        return "<div>Type a fact to follow it through the window.</div>"
    said = (
        f"said in turn {turn_runs(view.fact_turns)}"
        if view.fact_turns
        else "not said in this conversation"
    )
    verdict = (
        '<b style="color:#1a7f37">the model can see it on this call</b>'
        if view.fact_visible
        else '<b style="color:#cf222e">the model cannot see it on this call</b>'
    )
    return (
        f'<div class="wm-fact" data-fact-visible="{str(view.fact_visible).lower()}">'
        f"&ldquo;{html.escape(view.fact)}&rdquo; ({said}): {verdict}</div>"
    )


def _figure(label: str, number: str, note: str = "", css: str = "") -> str:
    return (
        f'<div style="{_FIGURE}">{label}<b class="{css}" style="{_NUMBER}">{number}</b>{note}</div>'
    )


def render_html(view: ExplorerView, counter_name: str = "tokens") -> str:
    """The explorer's view as one self-contained HTML fragment (inline styles, no script)."""
    headline = (
        f"<b>{html.escape(view.title or 'conversation')}</b>: Context Window Length <b>{view.window}</b>"
        f"{' (0 loads every message)' if view.window == 0 else ''}, answering turn <b>{view.turn}</b> of {view.turn_count}"
    )
    parts_sent = " + ".join(
        part
        for part, present in (
            ("system", view.sent_turns[:1] == (None,)),
            ("buffer", view.messages_in_window > 0),
            ("new message", view.sent_turns[-1:] == (view.turn,)),
        )
        if present
    )
    interactions = f'from <span class="wm-interactions-in-window">{view.interactions_in_window}</span> interaction(s)'
    figures = (
        _figure(
            "messages loaded from the buffer",
            str(view.messages_in_window),
            interactions,
            "wm-messages-in-window",
        )
        + _figure("messages sent on this call", str(len(view.sent)), parts_sent)
        + _figure(
            f"{html.escape(counter_name)} this call",
            f"{view.tokens_this_call:,}",
            css="wm-tokens-this-call",
        )
        + _figure(
            f"running input bill, turns 1&ndash;{view.turn}",
            f"{view.running_bill:,}",
            css="wm-running-bill",
        )
    )
    return (
        f'<div class="wm-explorer" data-window="{view.window}" data-turn="{view.turn}" '
        'style="font-family:system-ui,sans-serif;font-size:13px;line-height:1.4;color:#1f2328;max-width:980px">'
        f'<div style="font-size:14px;margin:4px 0 8px">{headline}</div>'
        f"{_section('Timeline')}{_timeline_html(view)}"
        f"{_section('Messages and interactions')}<div>{figures}</div>"
        f"{_section('Fact')}{_fact_html(view)}"
        f"{_section('The message array the model receives')}{_messages_html(view)}"
        "</div>"
    )


def render_error(message: str) -> str:
    """An explorer pane that says what is wrong with the learner's input."""
    return f'<div class="wm-explorer" style="color:#cf222e;font-weight:600">{html.escape(message)}</div>'


def conversation_from_text(text: str, title: str = "your conversation") -> Conversation:
    """A conversation the learner typed: conversation-file JSON, or one ``role: text`` per line.

    In the line format a line that starts with no known role continues the message above
    it, and blank lines are skipped.

    >>> chat = conversation_from_text("system: Be brief.\\nuser: Hi, order #6023\\nassistant: Hello!\\nuser: Which order?")
    >>> chat.turn_count, chat.messages[1].content
    (2, 'Hi, order #6023')
    """
    stripped = text.strip()
    if not stripped:
        raise ConversationFormatError(
            "the conversation is empty: paste conversation JSON or write one message per line, e.g. 'user: Hi'"
        )
    if stripped[0] in "[{":
        return loads_conversation(stripped, title=title)
    messages: list[dict[str, str]] = []
    for number, line in enumerate(stripped.splitlines(), start=1):
        if not line.strip():
            continue
        role, colon, content = line.partition(":")
        if colon and role.strip().lower() in ROLE_ALIASES:
            messages.append({"role": role.strip(), "content": content.strip()})
        elif messages:
            messages[-1]["content"] += "\n" + line.strip()
        else:
            roles = ", ".join(sorted({r.value for r in ROLE_ALIASES.values()}))
            raise ConversationFormatError(
                f"line {number} does not start with a role: begin each message with one of {roles} "
                f"and a colon, e.g. 'user: {line.strip()[:30]}'"
            )
    conversation = Conversation.of(messages, title=title)
    if conversation.turn_count == 0:
        raise ConversationFormatError(
            "the conversation has no user message: add at least one line 'user: ...'"
        )
    return conversation
