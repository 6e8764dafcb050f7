"""Replaying a conversation through a window memory: what the model receives on each turn.

An agent with window memory answers turn *t* with one model call. The call's message
array is the conversation's system message (sent beside the buffer, never stored in
it), then what the memory loads (earlier turns only), then the turn's new user
message. Before turn *t* the memory holds every message of turns 1..t-1, added one
message at a time, so a policy that trims on write (Spring AI, Semantic Kernel) sees
the same sequence of writes as it would in production.

Only the conversation's first system message is sent, on every call; system messages
later in the file are neither stored nor sent, because an agent's system prompt is its
configuration, not part of the chat history. A turn that opens with an assistant
message (a greeting) sends no new user message. A turn that uses tools is counted as
one call, the one that answers the user message; the further calls an agent makes
after each tool result are not modelled.

A replay keeps one :class:`~windowmem.policies.base.Memory` and adds to it as it goes,
so replaying *N* turns costs O(N × window), not O(N²).

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies.n8n import N8nSimpleMemory
>>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
>>> view = turn_view(chat, N8nSimpleMemory(5), 7)
>>> view.visible_turns, view.evicted_turns
((2, 3, 4, 5, 6), (1,))
>>> [m.content for m in view.sent][:3], view.input_tokens
(['u2', 'a2', 'u3'], 11)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import is_
from typing import TYPE_CHECKING

from windowmem.conversation import Conversation
from windowmem.errors import PolicyError, WindowMemError
from windowmem.messages import Interaction, Message
from windowmem.policies.base import Memory, TokenCounter, WindowPolicy, check_size
from windowmem.tokens import count_messages

if TYPE_CHECKING:  # pandas takes half a second to import: only the frame functions need it
    import pandas as pd

#: What a turn range shows when it holds no turns at all.
NO_TURNS = "none"


@dataclass(frozen=True)
class TurnView:
    """What the model receives when it answers turn *turn*, and which earlier turns that covers."""

    turn: int
    """The interaction being answered, from 1."""
    sent: tuple[Message, ...]
    """The exact array the model receives: system message, loaded window, the new user message."""
    window: tuple[Message, ...]
    """What the memory loaded: messages of earlier turns only."""
    visible_turns: tuple[int, ...]
    """Earlier turns with at least one message in the window."""
    partial_turns: tuple[int, ...]
    """Earlier turns only some of whose messages are in the window."""
    input_tokens: int
    """Tokens of ``sent`` under the replay's counter: what this call is billed for."""
    new_message: Message | None = None
    """The turn's opening user message (None for a turn opened by an assistant greeting)."""

    @property
    def evicted_turns(self) -> tuple[int, ...]:
        """Earlier turns with nothing in the window.

        Computed on demand, so that a long replay does not hold O(N²) turn numbers.
        """
        visible = set(self.visible_turns)
        return tuple(t for t in range(1, self.turn) if t not in visible)


def as_conversation(conversation: Conversation | Sequence[Message]) -> Conversation:
    """*conversation* itself, or a Conversation holding the given messages.

    >>> from windowmem.messages import user
    >>> as_conversation([user("Hi")]).turn_count
    1
    """
    if isinstance(conversation, Conversation):
        return conversation
    if isinstance(conversation, (str, bytes)) or not isinstance(conversation, Sequence):
        raise WindowMemError(
            f"expected a Conversation or a list of messages, got {type(conversation).__name__}: "
            "load a file with windowmem.load_conversation first"
        )
    return Conversation.of(conversation)


def _check_policy(policy: object) -> WindowPolicy:
    if not isinstance(policy, WindowPolicy):
        raise PolicyError(
            f"expected a window policy such as N8nSimpleMemory(5), got {type(policy).__name__}: "
            "build one with windowmem.policies.registry.make_policy(name, size)"
        )
    return policy


def _locate(
    window: Sequence[Message],
    history: Sequence[Message],
    owners: Sequence[int],
    last_index: Mapping[Message, int] | None = None,
) -> list[int]:
    """The turn of each window message, matched as a subsequence of *history* from its end.

    For windows that are not a plain suffix of what was stored. Messages are matched by
    identity first (equal texts in different turns stay apart), by value if a policy
    returned copies. A message found in neither way gets turn 0. *last_index* (each
    stored value's last position) lets a message the policy wrote itself, such as a
    summary, be found missing at once instead of by a walk over the whole history.
    """
    by_identity = _match_backwards(window, history, owners, lambda a, b: a is b, last_index)
    if all(by_identity):
        return by_identity
    return _match_backwards(window, history, owners, lambda a, b: a is b or a == b, last_index)


def _match_backwards(
    window: Sequence[Message],
    history: Sequence[Message],
    owners: Sequence[int],
    same: Callable[[Message, Message], bool],
    last_index: Mapping[Message, int] | None = None,
) -> list[int]:
    turns = [0] * len(window)
    cursor = len(history) - 1
    for i in range(len(window) - 1, -1, -1):
        wanted = window[i]
        if last_index is not None:
            last = last_index.get(wanted)
            if last is None:
                continue  # no stored message equals it, so none is it either
            if last <= cursor and same(history[last], wanted):
                turns[i] = owners[last]
                cursor = last - 1
                continue
        j = cursor
        while j >= 0 and not same(history[j], wanted):
            j -= 1
        if j >= 0:
            turns[i] = owners[j]
            cursor = j - 1
    return turns


def iter_turn_views(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> Iterator[TurnView]:
    """The :class:`TurnView` of every turn, in order, computed lazily (bad input fails at once)."""
    return _turn_views(as_conversation(conversation), _check_policy(policy), counter)


def _turn_views(
    conversation: Conversation, policy: WindowPolicy, counter: TokenCounter
) -> Iterator[TurnView]:
    system_message = conversation.system_message
    head = (system_message,) if system_message is not None else ()
    head_tokens = sum(counter(m) for m in head)
    memory = Memory(policy)
    stored = _StoredTurns()
    for interaction in conversation.interactions:
        opening = interaction.user_message
        new = (opening,) if opening is not None else ()
        window, sent = _window_and_sent(memory, new)
        visible, partial, window_tokens = stored.account(window, counter)
        tokens = head_tokens + window_tokens + sum(counter(m) for m in sent[len(window) :])
        yield TurnView(interaction.number, head + sent, window, visible, partial, tokens, opening)
        for message in interaction.messages:
            memory.add(message)
        stored.append(interaction, counter)


def _window_and_sent(
    memory: Memory, new: tuple[Message, ...]
) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """The loaded window (earlier turns only) and everything sent after the system message.

    Most policies load the window and the new message follows it. A policy that windows
    the history with the new message in it (LangGraph) may cut or keep that message
    itself, so it is asked for the whole input and the window is what precedes it.
    """
    if not memory.policy.includes_new_message:
        window = memory.load()
        return window, window + new
    sent = memory.load_with(new)
    if new and len(sent) >= len(new) and all(map(is_, sent[len(sent) - len(new) :], new)):
        return sent[: len(sent) - len(new)], sent
    return sent, sent


class _StoredTurns:
    """Every message a replay has stored, with its turn and running token total.

    Most policies load a suffix of what was stored; for those the visible and partial
    turns and the window's tokens come from the bookkeeping in O(1) plus one identity
    check of the window against the stored tail, instead of a walk over the window.
    """

    __slots__ = ("messages", "owners", "tokens_before", "turn_starts", "last_index")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.owners: list[int] = []  # the turn of messages[i]
        self.tokens_before: list[int] = [0]  # tokens of messages[:i]
        self.turn_starts: list[int] = []  # index of turn t's first message, at t - 1
        self.last_index: dict[Message, int] = {}  # each stored value's last position

    def append(self, interaction: Interaction, counter: TokenCounter) -> None:
        self.turn_starts.append(len(self.messages))
        total = self.tokens_before[-1]
        for message in interaction.messages:
            self.last_index[message] = len(self.messages)
            self.messages.append(message)
            self.owners.append(interaction.number)
            total += counter(message)
            self.tokens_before.append(total)

    def account(
        self, window: tuple[Message, ...], counter: TokenCounter
    ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """Visible turns, partial turns and tokens of *window*."""
        size = len(window)
        if size == 0:
            return (), (), 0
        start = len(self.messages) - size
        if start >= 0 and all(map(is_, window, self.messages[start:])):
            first, last = self.owners[start], self.owners[-1]
            partial: tuple[int, ...] = (first,) if start > self.turn_starts[first - 1] else ()
            return (
                tuple(range(first, last + 1)),
                partial,
                self.tokens_before[-1] - self.tokens_before[start],
            )
        in_window: dict[int, int] = {}
        for owner in _locate(window, self.messages, self.owners, self.last_index):
            if owner:
                in_window[owner] = in_window.get(owner, 0) + 1
        visible = tuple(sorted(in_window))
        partial = tuple(t for t in visible if in_window[t] < self.turn_size(t))
        return visible, partial, sum(counter(m) for m in window)

    def turn_size(self, turn: int) -> int:
        """How many messages turn *turn* stored."""
        end = self.turn_starts[turn] if turn < len(self.turn_starts) else len(self.messages)
        return end - self.turn_starts[turn - 1]


def replay(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> tuple[TurnView, ...]:
    """What the model receives on every turn of *conversation* under *policy*.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 6) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> [view.visible_turns for view in replay(chat, N8nSimpleMemory(3))][-1]
    (2, 3, 4)
    """
    return tuple(iter_turn_views(conversation, policy, counter))


def _check_turn(turn: object, turn_count: int) -> int:
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise WindowMemError(f"turn must be a whole number, got {turn!r}")
    if not 1 <= turn <= turn_count:
        raise WindowMemError(
            f"turn {turn} is out of range: the conversation has turns 1 to {turn_count}"
        )
    return turn


def turn_view(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    turn: int,
    counter: TokenCounter = count_messages,
) -> TurnView:
    """What the model receives on turn *turn* (from 1); replays only up to that turn.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [user("u1"), assistant("a1"), user("u2")]
    >>> [m.content for m in turn_view(chat, N8nSimpleMemory(5), 2).sent]
    ['u1', 'a1', 'u2']
    """
    conversation = as_conversation(conversation)
    _check_turn(turn, conversation.turn_count)
    for view in iter_turn_views(conversation, policy, counter):
        if view.turn == turn:
            return view
    raise AssertionError("unreachable: the turn was checked against turn_count")


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


def fact_visible(view: TurnView, needle: str) -> bool:
    """True when *needle* appears in any message the model receives on this turn.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [user("my order is #6023"), assistant("ok"), user("u2"), assistant("a2"), user("which order?")]
    >>> fact_visible(turn_view(chat, N8nSimpleMemory(1), 3), "#6023")
    False
    """
    if not isinstance(needle, str) or not needle:
        raise WindowMemError(f"the fact to look for must be a non-empty string, got {needle!r}")
    return any(needle in message.content for message in view.sent)


def smallest_window_recalling(
    conversation: Conversation | Sequence[Message],
    needle: str,
    turn: int,
    policy_for_size: type[WindowPolicy] | None = None,
    sizes: Iterable[int] | None = None,
) -> int | None:
    """The smallest size at which *needle* is still in what the model receives on *turn*.

    *policy_for_size* builds a policy from a size (n8n Simple Memory by default); sizes
    are tried in order (1, 2, … by default) and None means no size recalled it.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("I'm Carlos Ruiz"), assistant("hi"), user("q2"), assistant("a2"), user("q3"), assistant("a3"), user("name?")]
    >>> smallest_window_recalling(chat, "Carlos Ruiz", 4)
    3
    """
    if policy_for_size is None:
        from windowmem.policies.n8n import N8nSimpleMemory

        policy_for_size = N8nSimpleMemory
    conversation = as_conversation(conversation)
    _check_turn(turn, conversation.turn_count)
    if sizes is None:
        sizes = range(1, len(conversation.messages) + 1)
    for size in sizes:
        if fact_visible(turn_view(conversation, policy_for_size(size), turn), needle):
            return size
    return None


def turn_runs(turns: Iterable[int]) -> str:
    """Turn numbers written as runs: ``"2–6"``, ``"1–3, 5"``, or ``"none"``.

    >>> turn_runs([2, 3, 4, 5, 6]), turn_runs([5, 1, 2, 3]), turn_runs([4]), turn_runs([])
    ('2–6', '1–3, 5', '4', 'none')
    """
    return _write_spans(_spans(sorted(set(turns))))


def _spans(ordered: Sequence[int]) -> list[tuple[int, int]]:
    """The maximal runs of consecutive numbers in sorted *ordered*, as (first, last)."""
    spans: list[tuple[int, int]] = []
    for t in ordered:
        if spans and t == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], t)
        else:
            spans.append((t, t))
    return spans


def _gaps(spans: Sequence[tuple[int, int]], turn: int) -> list[tuple[int, int]]:
    """The runs of turns 1..turn-1 that *spans* leave out: the evicted turns, run by run."""
    gaps: list[tuple[int, int]] = []
    expected = 1
    for first, last in [*spans, (turn, turn)]:
        if first > expected:
            gaps.append((expected, first - 1))
        expected = last + 1
    return gaps


def _write_spans(spans: Sequence[tuple[int, int]]) -> str:
    if not spans:
        return NO_TURNS
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in spans)


#: The columns of :func:`replay_frame`, in order.
FRAME_COLUMNS = (
    "turn",
    "user message",
    "visible",
    "evicted",
    "messages in window",
    "interactions in window",
    "input tokens",
    "cumulative input tokens",
)


def replay_frame(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    counter: TokenCounter = count_messages,
) -> pd.DataFrame:
    """One row per turn: the user message, which earlier turns are visible or evicted, the tokens.

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> last = replay_frame(chat, N8nSimpleMemory(5)).iloc[-1]
    >>> last["visible"], last["evicted"], int(last["input tokens"])
    ('2–6', '1', 11)
    """
    rows = []
    total = 0
    for view in iter_turn_views(conversation, policy, counter):
        total += view.input_tokens
        visible = _spans(view.visible_turns)
        rows.append(
            (
                view.turn,
                view.new_message.content if view.new_message is not None else "",
                _write_spans(visible),
                # Written from the gaps, so a long replay never lists evicted turns one by one.
                _write_spans(_gaps(visible, view.turn)),
                len(view.window),
                len(view.visible_turns),
                view.input_tokens,
                total,
            )
        )
    import pandas as pd

    return pd.DataFrame.from_records(rows, columns=list(FRAME_COLUMNS))


__all__ = [
    "FRAME_COLUMNS",
    "TurnView",
    "as_conversation",
    "fact_visible",
    "iter_turn_views",
    "replay",
    "replay_frame",
    "smallest_window_recalling",
    "turn_runs",
    "turn_view",
    "visible_turns",
]
