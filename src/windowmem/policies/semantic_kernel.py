"""Semantic Kernel ``ChatHistoryTruncationReducer``: cut the stored history back to ``target_count``.

With ``auto_reduce`` the reducer runs after every added message and truncates what
is stored, so the result depends on when it ran. Its rules (Python semantic-kernel
1.45, which mirrors the .NET reducer):

* Nothing happens while the history holds at most ``target_count + threshold_count``
  messages; the threshold lets it grow past the target before cutting in one go.
* The first system (or developer) message is kept and takes one of the target's
  slots: when it would be cut away, the cut keeps one message fewer and the system
  message is put back in front.
* The cut starts at ``len - target``. It moves back while it would start on a tool
  result, so a function call (an assistant message asking for tools) is never split
  from its results. Then, looking back no further than the threshold allows, it
  moves to a user message if there is one, so a question stays with its answer.

Edge case, modelled rather than copied: with ``target_count = 1`` and a system message
that would be cut away, no slot is left for anything else. The real reducer then
indexes past the end of the history and raises; this model keeps only the system message.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy, check_size


def truncation_start(messages: Sequence[Message], target: int, threshold: int) -> int | None:
    """Where the reduced history starts, or None when it is too short to reduce.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> truncation_start(chat, 3, 0), truncation_start(chat, 3, 1)
    (3, 2)
    """
    threshold_index = len(messages) - threshold - target
    if threshold_index <= 0:
        return None
    start = len(messages) - target
    while start > 0 and messages[start].role is Role.TOOL:
        start -= 1
    fallback = start
    for index in range(start, threshold_index - 1, -1):
        if messages[index].role is Role.USER:
            return index
    return fallback


def reduce_history(
    messages: Sequence[Message], target: int, threshold: int = 0
) -> tuple[Message, ...]:
    """*messages* after one ``reduce()`` of a truncation reducer with *target* and *threshold*."""
    messages = tuple(messages)
    if len(messages) <= target + threshold:
        return messages
    system_at = next((i for i, m in enumerate(messages) if m.role is Role.SYSTEM), None)
    system_is_cut = system_at is not None and system_at < len(messages) - target
    slots = target - 1 if system_is_cut else target
    if slots == 0:
        assert system_at is not None
        return (messages[system_at],)
    start = truncation_start(messages, slots, threshold)
    if start is None:
        return messages
    kept = messages[start:]
    if system_at is not None and system_at < start:
        kept = (messages[system_at], *kept)
    return kept


@dataclass(frozen=True)
class SemanticKernelTruncation(WindowPolicy):
    """Semantic Kernel ``ChatHistoryTruncationReducer`` with ``target_count`` = *size*, reducing after every add.

    ``target_count`` is required in Semantic Kernel; the default here, 10 messages, is
    the window n8n's default of 5 interactions loads, so the two compare directly.

    >>> from windowmem.messages import system, user, assistant
    >>> chat = [system("s0"), user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> [m.content for m in SemanticKernelTruncation(4).window(chat)]
    ['s0', 'a2', 'u3', 'a3']
    """

    size: int = 10
    threshold: int = 0

    superseded: ClassVar[str | None] = (
        "not deprecated in its code; Microsoft's migration guide "
        "(learn.microsoft.com/agent-framework/migration-guide/from-semantic-kernel) moves "
        "users to Agent Framework"
    )
    use_instead: ClassVar[tuple[str, ...]] = (
        "agent-framework-truncation",
        "agent-framework-summarization",
    )
    name: ClassVar[str] = "semantic-kernel"
    source: ClassVar[str] = (
        "semantic_kernel/contents/history_reducer/chat_history_truncation_reducer.py"
    )
    product: ClassVar[str] = "Semantic Kernel ChatHistoryTruncationReducer"
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int] = 10
    trims_on_write: ClassVar[bool] = True
    accepted_sizes: ClassVar[str] = "a whole number of messages >= 1 (target_count must be > 0)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        if (
            isinstance(self.threshold, bool)
            or not isinstance(self.threshold, int)
            or self.threshold < 0
        ):
            raise PolicyError(
                f"{self.name}: threshold must be a whole number >= 0, got {self.threshold!r}"
            )

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored)

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        history = tuple(stored)
        for message in added:
            # auto_reduce reduces after each message, not after each batch.
            history = reduce_history((*history, message), self.size, self.threshold)
        return history
