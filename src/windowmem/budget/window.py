"""The window's items, the bill a run runs up, and one step of a run's trace.

>>> window = (Item(ItemKind.SYSTEM, 30), Item(ItemKind.READ, 200, frozenset({4}), chunk=9))
>>> used(window), facts_held(window)
(230, frozenset({4}))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum


class ItemKind(StrEnum):
    """What an item of the window is."""

    SYSTEM = "system"
    TASK = "task"
    READ = "read"
    SUMMARY = "summary"


@dataclass(frozen=True)
class Item:
    """One entry of the window: its size, and the question ids whose facts it holds.

    A read knows its chunk; a summary knows its lines, as question ids, oldest first.
    """

    kind: ItemKind
    tokens: int
    facts: frozenset[int] = frozenset()
    chunk: int | None = None
    lines: tuple[int, ...] = ()


def used(window: Iterable[Item]) -> int:
    """The window's size in tokens: the sum of its items' counts."""
    return sum(item.tokens for item in window)


def facts_held(window: Iterable[Item]) -> frozenset[int]:
    """The question ids whose facts some item of the window holds."""
    return frozenset().union(*(item.facts for item in window))


@dataclass(frozen=True)
class Bill:
    """What a run has cost so far: tokens in and out, calls, reads, compactions, peak window."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    reads: int = 0
    compactions: int = 0
    peak: int = 0

    def charge(self, window_tokens: int, output_tokens: int) -> Bill:
        """The bill after one call on a window of *window_tokens* that wrote *output_tokens*.

        >>> Bill().charge(1200, 14).charge(1300, 9)
        Bill(input_tokens=2500, output_tokens=23, calls=2, reads=0, compactions=0, peak=0)
        """
        return replace(
            self,
            input_tokens=self.input_tokens + window_tokens,
            output_tokens=self.output_tokens + output_tokens,
            calls=self.calls + 1,
        )

    def seen(self, window_tokens: int) -> Bill:
        """The bill with its peak raised to *window_tokens* if the window got that big."""
        return self if window_tokens <= self.peak else replace(self, peak=window_tokens)


class Event(StrEnum):
    """What happened at one step of a run."""

    START = "start"
    CALL = "call"
    READ = "read"
    TRUNCATE = "truncate"
    COMPACT = "compact"
    ANSWER = "answer"


@dataclass(frozen=True)
class Step:
    """The state right after one event: the window as it stands and the bill so far."""

    number: int
    event: Event
    question: int | None
    detail: str
    window: tuple[Item, ...]
    bill: Bill

    @property
    def used(self) -> int:
        """The window's size in tokens after this step."""
        return used(self.window)

    @property
    def facts(self) -> frozenset[int]:
        """The question ids whose facts the window holds after this step."""
        return facts_held(self.window)
