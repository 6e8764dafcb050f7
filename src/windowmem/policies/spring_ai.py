"""Spring AI ``MessageWindowChatMemory``: a window of ``maxMessages`` applied when messages are saved.

Each ``add`` loads what is stored, applies the rules below and replaces what is
stored (``saveAll``); ``get`` returns what is stored, so the window is the store.

1. System messages: if the added batch holds a system message that is not already
   stored (same role and text), every stored system message is removed first. The
   batch is then appended in order, so an equal system message re-added is stored
   twice, and a new one lands where it was added, not at the front.
2. Over ``maxMessages``, system messages are never evicted. Spring AI 1.0 and 1.1
   evict the oldest other messages one by one; 2.0 evicts the same number and then
   keeps going until the window starts at a user message, so a turn is never cut in
   half and the window can end up shorter than the limit. When system messages alone
   reach the limit, both leave nothing else.

What the model then receives is the stored window followed by the new prompt, with the
first system message moved to the front (:func:`advisor_prompt`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy, check_size


def same_text(a: Message, b: Message) -> bool:
    """True when *a* and *b* have the same role and content (Spring AI's message equality here)."""
    return a.role is b.role and a.content == b.content


def replace_system_messages(stored: Sequence[Message], added: Sequence[Message]) -> list[Message]:
    """*stored* then *added*, without the stored system messages if *added* brings a new one.

    >>> from windowmem.messages import system, user
    >>> [m.content for m in replace_system_messages([system("S1"), user("u1")], [system("S2")])]
    ['u1', 'S2']
    >>> [m.content for m in replace_system_messages([system("S1")], [system("S1")])]
    ['S1', 'S1']
    """
    stored_systems = [m for m in stored if m.role is Role.SYSTEM]
    brings_new_system = any(
        m.role is Role.SYSTEM and not any(same_text(m, old) for old in stored_systems)
        for m in added
    )
    kept = [m for m in stored if not (brings_new_system and m.role is Role.SYSTEM)]
    return [*kept, *added]


def advisor_prompt(
    memory: Sequence[Message], instructions: Sequence[Message] = ()
) -> tuple[Message, ...]:
    """What the chat memory advisor sends: the *memory*, then the new *instructions*, first system message first.

    >>> from windowmem.messages import system, user, assistant
    >>> [m.content for m in advisor_prompt([user("u1"), assistant("a1"), system("S2")], [user("u2")])]
    ['S2', 'u1', 'a1', 'u2']
    """
    messages = [*memory, *instructions]
    first_system = next((i for i, m in enumerate(messages) if m.role is Role.SYSTEM), None)
    if first_system is not None:
        messages.insert(0, messages.pop(first_system))
    return tuple(messages)


@dataclass(frozen=True)
class _SpringAiWindow(WindowPolicy):
    """What both Spring AI versions share: size rules, system-message replacement, load = stored."""

    size: int = 20
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int] = 20
    trims_on_write: ClassVar[bool] = True
    accepted_sizes: ClassVar[str] = (
        "a whole number of messages >= 1 (Spring AI rejects 0 and negatives)"
    )

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored)

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        messages = replace_system_messages(stored, added)
        excess = len(messages) - self.size
        if excess <= 0:
            return tuple(messages)
        positions = [i for i, m in enumerate(messages) if m.role is not Role.SYSTEM]
        evicted = set(positions[: self._evicted_count([messages[i] for i in positions], excess)])
        return tuple(m for i, m in enumerate(messages) if i not in evicted)

    @abstractmethod
    def _evicted_count(self, others: list[Message], excess: int) -> int:
        """How many of the oldest non-system messages *others* to evict when *excess* must go."""


@dataclass(frozen=True)
class SpringAiMessageWindow(_SpringAiWindow):
    """Spring AI 2.x ``MessageWindowChatMemory``: evict the oldest turns, keep system messages (default 20).

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.base import Memory
    >>> memory = Memory(SpringAiMessageWindow(2))
    >>> memory.add(user("U1"), assistant("A1"), user("U2"), assistant("A2"), user("U3"))
    >>> [m.content for m in memory.load()]
    ['U3']
    """

    name: ClassVar[str] = "spring-ai"
    source: ClassVar[str] = "spring-ai-model chat/memory/MessageWindowChatMemory.java (v2.0.1)"
    product: ClassVar[str] = "Spring AI 2.x MessageWindowChatMemory"

    def _evicted_count(self, others: list[Message], excess: int) -> int:
        cut = min(excess, len(others))
        # The cut moves forward to the next user message, so no turn is split.
        while cut < len(others) and others[cut].role is not Role.USER:
            cut += 1
        return cut


@dataclass(frozen=True)
class SpringAi1xMessageWindow(_SpringAiWindow):
    """Spring AI 1.0/1.1 ``MessageWindowChatMemory``: evict the oldest non-system messages one by one (default 20).

    >>> from windowmem.messages import user, assistant
    >>> from windowmem.policies.base import Memory
    >>> memory = Memory(SpringAi1xMessageWindow(2))
    >>> memory.add(user("U1"), assistant("A1"), user("U2"), assistant("A2"), user("U3"))
    >>> [m.content for m in memory.load()]
    ['A2', 'U3']
    """

    name: ClassVar[str] = "spring-ai-1x"
    source: ClassVar[str] = "spring-ai-model chat/memory/MessageWindowChatMemory.java (v1.1.8)"
    product: ClassVar[str] = "Spring AI 1.x MessageWindowChatMemory"

    def _evicted_count(self, others: list[Message], excess: int) -> int:
        return min(excess, len(others))
