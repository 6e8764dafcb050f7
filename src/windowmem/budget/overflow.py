"""The budget policies at work: what truncate, compact and just-in-time do to a run's context.

A run's state is its context (the items every call is charged on), its bill and its trace.
:class:`Policies` holds that state and the policies' moves on it: turning seen reads into
one-line references (just-in-time), dropping the oldest item (truncate), and replacing the
reads by a summary in one extra call (compact). The run loop that searches, reads and
answers is :mod:`windowmem.budget.engine`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from windowmem.budget.context import Bill, Event, Item, ItemKind, Step, used
from windowmem.budget.mulberry32 import mulberry32
from windowmem.budget.prepared import Prepared
from windowmem.budget.prompts import (
    SYSTEM_PROMPT,
    reference_line,
    summary_line,
    summary_text,
    task_prompt,
)
from windowmem.budget.strategies import LOSSY_DROP_BELOW, OverflowStrategy, Summariser
from windowmem.tokens import count_text


class Policies:
    """One run's mutable state (the context, the bill, the trace) and what each policy does to it.

    :class:`windowmem.budget.engine._Agent` adds the run loop (search, read, answer) on top.
    """

    def __init__(
        self,
        prepared: Prepared,
        budget: int,
        strategy: OverflowStrategy,
        summariser: Summariser,
        seed: int,
        *,
        system_tokens: int | None = None,
        trim_to: int | None = None,
    ) -> None:
        self.prepared, self.budget, self.strategy, self.summariser = (
            prepared,
            budget,
            strategy,
            summariser,
        )
        # Truncation cuts down to this size (the budget unless a block size is asked for).
        self.trim_to = budget if trim_to is None else trim_to
        self.draws: Iterator[float] = mulberry32(seed)
        questions = prepared.corpus.questions
        task_text = task_prompt(questions[q].question for q in prepared.task)
        self.context: list[Item] = [
            Item(
                ItemKind.SYSTEM,
                count_text(SYSTEM_PROMPT) if system_tokens is None else system_tokens,
            ),
            Item(ItemKind.TASK, count_text(task_text)),
        ]
        self.bill = Bill()
        self.trace: list[Step] = []
        self.answering_from = 0
        self._changed(Event.START, None, "system prompt and task")

    def _note(self, event: Event, question: int | None, detail: str) -> None:
        self.trace.append(
            Step(len(self.trace), event, question, detail, tuple(self.context), self.bill)
        )

    def _changed(self, event: Event, question: int | None, detail: str) -> None:
        # The peak counts every state the context passes through, over budget or not.
        self.bill = self.bill.seen(used(self.context))
        self._note(event, question, detail)

    def _call(self, output: str, question: int | None, detail: str) -> None:
        if self.strategy.just_in_time:
            self._to_references(question)
        self.bill = self.bill.charge(used(self.context), count_text(output))
        self._note(Event.CALL, question, detail)

    def _summary_text(self, lines: tuple[int, ...]) -> str:
        questions = self.prepared.corpus.questions
        return summary_text(summary_line(questions[q].question, questions[q].answer) for q in lines)

    def _summary(self, lines: tuple[int, ...]) -> Item:
        return Item(
            ItemKind.SUMMARY, count_text(self._summary_text(lines)), frozenset(lines), lines=lines
        )

    def _reference(self, read: Item) -> Item | None:
        """The one-line reference a seen read leaves, or None for a read that answered nothing."""
        if not read.facts:
            return None
        assert read.chunk is not None
        chunk = self.prepared.chunks[read.chunk]
        title = self.prepared.corpus.articles[chunk.article].title
        (question,) = read.facts
        text = reference_line(read.chunk, title, self.prepared.task.index(question) + 1)
        return Item(ItemKind.REFERENCE, count_text(text), chunk=read.chunk, points_to=read.facts)

    def _to_references(self, question: int | None) -> None:
        """Every read but the last item, which the model has not been sent yet, becomes a reference."""
        seen = [k for k, item in enumerate(self.context[:-1]) if item.kind is ItemKind.READ]
        if not seen:
            return
        kept = []
        for k, item in enumerate(self.context):
            if k in seen:
                reference = self._reference(item)
                # A read again by id leaves nothing new: its reference is still there.
                if reference is not None and reference not in self.context:
                    kept.append(reference)
            else:
                kept.append(item)
        self.context = kept
        self._changed(
            Event.REFERENCE, question, f"{len(seen)} read(s) the model has seen kept as references"
        )

    def _overflow(self, question: int) -> None:
        """What the strategy does once a read has landed and the context is over budget."""
        if not (self.strategy.bounded and used(self.context) > self.budget):
            return
        if self.strategy.compacts:
            self.compact(question)
            return
        if self.strategy.just_in_time:
            # The reads already seen become references before anything is dropped.
            self._to_references(question)
        self.truncate(question, self.trim_to)

    def truncate(self, question: int | None, down_to: int | None = None) -> None:
        """Drop the oldest reads, summary lines or references until the context is at most
        *down_to* tokens (the budget when None), never the read just added."""
        target = self.budget if down_to is None else down_to
        while used(self.context) > target:
            oldest = next(
                (
                    k
                    for k, item in enumerate(self.context)
                    if item.kind in (ItemKind.READ, ItemKind.SUMMARY, ItemKind.REFERENCE)
                ),
                None,
            )
            # The read just added is the last item and is never dropped.
            if oldest is None or oldest == len(self.context) - 1:
                return
            item = self.context[oldest]
            if item.kind is ItemKind.SUMMARY and len(item.lines) > 1:
                self.context[oldest] = self._summary(item.lines[1:])
                self._changed(
                    Event.TRUNCATE,
                    question,
                    f"dropped the summary's line for question {item.lines[0]}",
                )
            else:
                del self.context[oldest]
                what = (
                    "summary"
                    if item.kind is ItemKind.SUMMARY
                    else f"{item.kind.value} of chunk {item.chunk}"
                )
                self._changed(Event.TRUNCATE, question, f"dropped the {what}")

    def compact(self, question: int | None) -> None:
        reads = [item for item in self.context if item.kind is ItemKind.READ]
        if len(reads) < 2:
            self.truncate(question)
            return
        lines: list[int] = [
            q for item in self.context if item.kind is ItemKind.SUMMARY for q in item.lines
        ]
        for read in reads[:-1]:
            lines.extend(q for q in sorted(read.facts) if q not in lines)
        if self.summariser is Summariser.LOSSY:
            # Every line is drawn for again at every compaction, old summary lines too.
            lines = [q for q in lines if next(self.draws) >= LOSSY_DROP_BELOW]
        summary = self._summary(tuple(lines))
        self._call(self._summary_text(summary.lines), question, f"summarise {len(reads) - 1} reads")
        self.bill = replace(self.bill, compactions=self.bill.compactions + 1)
        self.context = [self.context[0], self.context[1], summary, reads[-1]]
        self._changed(
            Event.COMPACT,
            question,
            f"summary of {len(summary.lines)} facts replaces the earlier reads",
        )
        self.truncate(question)
