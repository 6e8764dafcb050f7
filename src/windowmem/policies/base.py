"""What every window policy is: a size in a unit, a rule for writing, a rule for loading.

Real memories differ in *when* they cut. n8n and LangChain store every message and
cut when they load (``trims_on_write = False``); Spring AI and Semantic Kernel cut
what they store (``trims_on_write = True``). A policy is a frozen value holding its
size; :class:`Memory` is the thin mutable session that applies it message by message.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message


class Unit(StrEnum):
    """What a policy's size counts."""

    INTERACTIONS = "interactions"
    MESSAGES = "messages"
    #: Stored input items (OpenAI Agents SDK): a message, a tool call, a tool output, reasoning.
    ITEMS = "items"
    TOKENS = "tokens"


def check_size(
    size: object, *, policy: str, allow_zero: bool = True, allow_negative: bool = False
) -> int:
    """*size* as an int, or a PolicyError that says which sizes *policy* accepts."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise PolicyError(f"{policy}: window size must be a whole number, got {size!r}")
    if size < 0 and not allow_negative:
        raise PolicyError(f"{policy}: window size must not be negative, got {size}")
    if size == 0 and not allow_zero:
        raise PolicyError(f"{policy}: window size must be at least 1, got 0")
    return size


@dataclass(frozen=True)
class WindowPolicy(ABC):
    """A window memory's rule, parameterised by its *size*."""

    size: int

    name: ClassVar[str]
    product: ClassVar[str]
    unit: ClassVar[Unit]
    #: None where the product's default is no window at all (every stored item is sent).
    default_size: ClassVar[int | None]
    trims_on_write: ClassVar[bool] = False
    #: True where the product windows the history *with* the turn's new user message in it
    #: (LangGraph's hooks): then :meth:`load_with` is what the model receives.
    includes_new_message: ClassVar[bool] = False
    #: The product's file(s) the model was read from, in the package ``package_versions`` names.
    source: ClassVar[str] = ""
    #: Where the product's own project tells users to leave this API, and since which version.
    superseded: ClassVar[str | None] = None
    #: The registered policies that model what that project recommends instead.
    use_instead: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)

    @abstractmethod
    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        """What the memory returns for the model, given what it has *stored*."""

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        """What the memory stores after *added* is saved (only called when ``trims_on_write``)."""
        return (*stored, *added)

    def load_with(self, stored: Sequence[Message], new: Sequence[Message]) -> tuple[Message, ...]:
        """What the model receives when the turn's *new* messages follow what is *stored*."""
        return (*self.load(stored), *new)

    def tail_needed(self) -> int | None:
        """How many of the newest stored messages ``load`` can return; None if it may need them all.

        Reading or keeping only this tail gives the same window as keeping everything,
        which is what lets a store or a session stay proportional to the window.
        """
        return None

    def window(self, messages: Iterable[Message]) -> tuple[Message, ...]:
        """What the memory returns after *messages* were added to it one at a time."""
        memory = Memory(self)
        for message in messages:
            memory.add(message)
        return memory.load()


#: Builds a policy of a given size, e.g. ``N8nSimpleMemory`` or ``lambda k: make_policy("n8n", k)``.
PolicyFactory = Callable[[int], WindowPolicy]


class Memory:
    """One session's buffer under a policy: add messages, load the window.

    Load-windowed policies append in O(1) and load in O(window); write-windowed
    policies keep at most about a window's worth of messages. By default the memory
    keeps every message, as n8n and LangChain do; ``keep_all=False`` keeps only the tail
    the policy can ever load (:meth:`WindowPolicy.tail_needed`), so a long session holds
    O(window) messages and loads exactly the same windows.

    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> from windowmem.messages import user, assistant
    >>> memory = Memory(N8nSimpleMemory(1))
    >>> memory.add(user("a"), assistant("b"), user("c"), assistant("d"))
    >>> [m.content for m in memory.load()], len(memory)
    (['c', 'd'], 4)
    >>> lean = Memory(N8nSimpleMemory(1), keep_all=False)
    >>> for i in range(1000):
    ...     lean.add(user(str(i)))
    >>> [m.content for m in lean.load()], len(lean) < 25
    (['998', '999'], True)
    """

    __slots__ = ("policy", "_stored", "_keep")

    def __init__(self, policy: WindowPolicy, *, keep_all: bool = True) -> None:
        self.policy = policy
        self._stored: list[Message] | tuple[Message, ...] = () if policy.trims_on_write else []
        # None keeps everything; n keeps at least the newest n, trimming in amortised O(1).
        self._keep = None if keep_all or policy.trims_on_write else policy.tail_needed()

    def add(self, *messages: Message) -> None:
        """Save *messages* as one write (one ``add`` call in Spring AI terms)."""
        if self.policy.trims_on_write:
            self._stored = self.policy.write(self._stored, messages)
            return
        stored = self._stored
        assert isinstance(stored, list)
        stored.extend(messages)
        keep = self._keep
        # Trim only when twice the tail has piled up, so each message is moved at most once.
        if keep is not None and len(stored) > 2 * keep + 16:
            del stored[: len(stored) - keep]

    def load(self) -> tuple[Message, ...]:
        """The window the model would receive from this memory now."""
        return self.policy.load(self._stored)

    def load_with(self, new: Sequence[Message]) -> tuple[Message, ...]:
        """What the model receives when *new* (the turn's user message) is sent after this memory."""
        return self.policy.load_with(self._stored, new)

    @property
    def stored(self) -> tuple[Message, ...]:
        """Everything the memory holds, windowed or not."""
        return tuple(self._stored)

    def __len__(self) -> int:
        return len(self._stored)
