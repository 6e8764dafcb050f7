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

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import is_

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import PolicyError, WindowMemError
from windowmem.messages import Interaction, Message
from windowmem.policies.base import Memory, WindowPolicy
from windowmem.tokens import TokenCounter, count_messages


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
    sent_turns: tuple[int | None, ...] = ()
    """The turn each message of ``sent`` belongs to (None for the system message, and for a
    message found in no stored turn)."""

    @property
    def evicted_turns(self) -> tuple[int, ...]:
        """Earlier turns with nothing in the window.

        Computed on demand, so that a long replay does not hold O(N²) turn numbers.
        """
        visible = set(self.visible_turns)
        return tuple(t for t in range(1, self.turn) if t not in visible)


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
    head_turns = (None,) * len(head)
    memory = Memory(policy)
    stored = _StoredTurns()
    for interaction in conversation.interactions:
        opening = interaction.user_message
        new = (opening,) if opening is not None else ()
        window, sent = _window_and_sent(memory, new)
        visible, partial, window_tokens, owners = stored.account(window, counter)
        after_window = sent[len(window) :]  # the new message, unless a hook cut it
        tokens = head_tokens + window_tokens + sum(counter(m) for m in after_window)
        yield TurnView(
            interaction.number,
            head + sent,
            window,
            visible,
            partial,
            tokens,
            opening,
            (*head_turns, *owners, *((interaction.number,) * len(after_window))),
        )
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
    ) -> tuple[tuple[int, ...], tuple[int, ...], int, Sequence[int | None]]:
        """Visible turns, partial turns, tokens of *window*, and the turn of each of its messages."""
        size = len(window)
        if size == 0:
            return (), (), 0, ()
        start = len(self.messages) - size
        if start >= 0 and all(map(is_, window, self.messages[start:])):
            first, last = self.owners[start], self.owners[-1]
            partial: tuple[int, ...] = (first,) if start > self.turn_starts[first - 1] else ()
            return (
                tuple(range(first, last + 1)),
                partial,
                self.tokens_before[-1] - self.tokens_before[start],
                self.owners[start:],
            )
        owners = _locate(window, self.messages, self.owners, self.last_index)
        in_window: dict[int, int] = {}
        for owner in owners:
            if owner:
                in_window[owner] = in_window.get(owner, 0) + 1
        visible = tuple(sorted(in_window))
        partial = tuple(t for t in visible if in_window[t] < self.turn_size(t))
        return (
            visible,
            partial,
            sum(counter(m) for m in window),
            [owner or None for owner in owners],
        )

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


def check_turn(turn: object, turn_count: int) -> int:
    """*turn* if it is a turn of a conversation with *turn_count* turns, else a WindowMemError."""
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
    check_turn(turn, conversation.turn_count)
    for view in iter_turn_views(conversation, policy, counter):
        if view.turn == turn:
            return view
    raise AssertionError("unreachable: the turn was checked against turn_count")


__all__ = ["TurnView", "check_turn", "iter_turn_views", "replay", "turn_view"]
