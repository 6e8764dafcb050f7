"""The budget agent's context: its items, the bill a run runs up, and one step of a run's trace.

The context is everything the agent's next call is sent (system prompt, task, reads,
summaries); the chapter calls it "the window". It is measured in tokens against a
budget, unlike the window policies of :mod:`windowmem.policies`, which count messages
or turns of a chat.

>>> context = (Item(ItemKind.SYSTEM, 30), Item(ItemKind.READ, 200, frozenset({4}), chunk=9))
>>> used(context), facts_held(context)
(230, frozenset({4}))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum


class ItemKind(StrEnum):
    """What an item of the context is."""

    SYSTEM = "system"
    TASK = "task"
    READ = "read"
    SUMMARY = "summary"
    REFERENCE = "reference"


@dataclass(frozen=True)
class Item:
    """One entry of the context: its size, and the question ids whose facts it holds.

    A read knows its chunk; a summary knows its lines, as question ids, oldest first. A
    reference knows its chunk and, in *points_to*, the question whose fact that chunk holds:
    it holds no fact itself, only where to read it again.
    """

    kind: ItemKind
    tokens: int
    facts: frozenset[int] = frozenset()
    chunk: int | None = None
    lines: tuple[int, ...] = ()
    points_to: frozenset[int] = frozenset()


def used(context: Iterable[Item]) -> int:
    """The context's size in tokens: the sum of its items' counts."""
    return sum(item.tokens for item in context)


def facts_held(context: Iterable[Item]) -> frozenset[int]:
    """The question ids whose facts some item of the context holds."""
    return frozenset().union(*(item.facts for item in context))


@dataclass(frozen=True)
class Bill:
    """What a run has cost so far: tokens in and out, calls, reads, compactions, peak context."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    reads: int = 0
    compactions: int = 0
    peak: int = 0

    def charge(self, context_tokens: int, output_tokens: int) -> Bill:
        """The bill after one call on a context of *context_tokens* that wrote *output_tokens*.

        >>> Bill().charge(1200, 14).charge(1300, 9)
        Bill(input_tokens=2500, output_tokens=23, calls=2, reads=0, compactions=0, peak=0)
        """
        return replace(
            self,
            input_tokens=self.input_tokens + context_tokens,
            output_tokens=self.output_tokens + output_tokens,
            calls=self.calls + 1,
        )

    def seen(self, context_tokens: int) -> Bill:
        """The bill with its peak raised to *context_tokens* if the context got that big."""
        return self if context_tokens <= self.peak else replace(self, peak=context_tokens)


class Event(StrEnum):
    """What happened at one step of a run."""

    START = "start"
    CALL = "call"
    READ = "read"
    TRUNCATE = "truncate"
    COMPACT = "compact"
    REFERENCE = "reference"
    ANSWER = "answer"


@dataclass(frozen=True)
class Step:
    """The state right after one event: the context as it stands and the bill so far."""

    number: int
    event: Event
    question: int | None
    detail: str
    context: tuple[Item, ...]
    bill: Bill

    @property
    def used(self) -> int:
        """The context's size in tokens after this step."""
        return used(self.context)

    @property
    def facts(self) -> frozenset[int]:
        """The question ids whose facts the context holds after this step."""
        return facts_held(self.context)
