"""Fact queries over a replay: is a fact still in what the model receives, and from what size on.

A learner follows one fact ("my order is #6023") through a conversation: these say
whether a turn's call still carries it, and the smallest window that keeps it there.
A fact is plain text found in a message's content; the model can only use what it is
sent, so a fact outside the ``sent`` array is forgotten for that call.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import WindowMemError
from windowmem.messages import Message
from windowmem.policies.base import PolicyFactory
from windowmem.policies.n8n import N8nSimpleMemory
from windowmem.replay import TurnView, check_turn, turn_view


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
    policy_for_size: PolicyFactory = N8nSimpleMemory,
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
    conversation = as_conversation(conversation)
    check_turn(turn, conversation.turn_count)
    if sizes is None:
        sizes = range(1, len(conversation.messages) + 1)
    for size in sizes:
        if fact_visible(turn_view(conversation, policy_for_size(size), turn), needle):
            return size
    return None


__all__ = ["fact_visible", "smallest_window_recalling"]
