"""Which overflow policy a small task needs under a team's requirements: lesson 6's design task.

A :class:`Situation` is a task like the lesson's, made small: the window it opens with, its
reads in order (each holds one question's fact, or none when search ranked a chunk without
the answer first), a token budget and the size of one summary line, and what the team
requires. :func:`run_situation` runs it through the budget engine (:mod:`windowmem.budget.engine`,
the agent of the lesson's tables, with the situation's sizes in place of a corpus's);
:func:`expected_policy` names the first policy of :data:`POLICIES` (least machinery first)
whose run meets every requirement. (The assignment's graded situations are drawn by its
hidden tests, never by the library a student installs.)

>>> s = Situation(100, (("Q1", 300), ("Q2", 250)), budget=700, summary_line_tokens=20)
>>> expected_policy(s)
'unbounded'
>>> expected_policy(Situation(100, ((None, 300), ("Q1", 250), ("Q2", 200)), 600, 20))
'truncate'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from windowmem.budget.bm25 import build_index
from windowmem.budget.chunking import Chunk
from windowmem.budget.context import Bill, Event, Item, ItemKind
from windowmem.budget.corpus import Article, Corpus, Question
from windowmem.budget.engine import TaskResult, _Agent
from windowmem.budget.prepared import Prepared
from windowmem.budget.strategies import SUMMARY_SEED, OverflowStrategy, Summariser
from windowmem.errors import BudgetError

#: The lesson's four policies, least machinery first: none, dropping, summarising, searching again.
POLICIES = ("unbounded", "truncate", "compact", "retrieve")


@dataclass(frozen=True)
class Situation:
    """A small research task, its budget, and what the team requires of the policy."""

    base_tokens: int
    reads: tuple[tuple[str | None, int], ...]
    budget: int
    summary_line_tokens: int
    every_fact: bool = True
    """True: every question must be answered; False: only those whose fact the window still holds."""
    summary_will_do: bool = True
    """False: an answer must come from the read itself, not from a summary line."""
    extra_calls: bool = True
    """False: no calls but one per read and the last one (no compaction, no search again)."""
    search_again: bool = True
    """False: the source cannot be searched a second time."""

    def __post_init__(self) -> None:
        sizes = [
            self.base_tokens,
            self.budget,
            self.summary_line_tokens,
            *(t for _, t in self.reads),
        ]
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in sizes):
            raise BudgetError(
                f"a situation's sizes are whole numbers of tokens, 0 or more: {sizes}"
            )
        facts = [f for f, _ in self.reads if f is not None]
        if not self.reads or self.reads[-1][0] is None or len(set(facts)) != len(facts):
            raise BudgetError("a situation's reads end with a fact, and each fact is read once")

    def questions(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """Per question, in order: its fact and the sizes of its reads (misses first, then the fact's)."""
        out, pending = [], []
        for fact, tokens in self.reads:
            pending.append(tokens)
            if fact is not None:
                out.append((fact, tuple(pending)))
                pending = []
        return tuple(out)

    def as_dict(self) -> dict[str, Any]:
        """The situation as the assignment hands it to a student: plain values only."""
        return {
            "base_tokens": self.base_tokens,
            "reads": [(fact, tokens) for fact, tokens in self.reads],
            "budget": self.budget,
            "summary_line_tokens": self.summary_line_tokens,
            "every_fact": self.every_fact,
            "summary_will_do": self.summary_will_do,
            "extra_calls": self.extra_calls,
            "search_again": self.search_again,
        }


def _prepared(situation: Situation) -> Prepared:
    """The situation as the engine's input: one chunk per read, one question per fact."""
    questions = situation.questions()
    chunks: list[Chunk] = []
    top: list[tuple[int, ...]] = []
    relevant: list[frozenset[int]] = []
    for sizes in (s for _, s in questions):
        first = len(chunks)
        chunks += [Chunk(first + n, 0, 0, 1, tokens, "") for n, tokens in enumerate(sizes)]
        top.append(tuple(range(first, len(chunks))))
        relevant.append(frozenset({len(chunks) - 1}))
    corpus = Corpus(
        "situation",
        (Article("situation", "-"),),
        tuple(Question(0, fact, fact, 0, 1) for fact, _ in questions),
    )
    return Prepared(
        corpus=corpus,
        article_tokens=(situation.base_tokens,),
        chunks=tuple(chunks),
        index=build_index(["situation"]),
        top_chunks=tuple(top),
        relevant=tuple(relevant),
        answer_rank=tuple(len(t) - 1 for t in top),
        task=tuple(range(len(questions))),
    )


class _SituationAgent(_Agent):
    """The lesson's agent, opening with the situation's window and summarising at its line size."""

    def __init__(self, situation: Situation, strategy: OverflowStrategy) -> None:
        super().__init__(
            _prepared(situation), situation.budget, strategy, Summariser.PERFECT, SUMMARY_SEED
        )
        self.line_tokens = situation.summary_line_tokens
        self.context = [Item(ItemKind.SYSTEM, situation.base_tokens), Item(ItemKind.TASK, 0)]
        self.bill, self.trace = Bill(), []
        self._changed(Event.START, None, "the opening window")

    def _summary(self, lines: tuple[int, ...]) -> Item:
        return Item(ItemKind.SUMMARY, self.line_tokens * len(lines), frozenset(lines), lines=lines)


def run_situation(situation: Situation, policy: str) -> TaskResult:
    """The engine's run of *situation* under *policy* (one of :data:`POLICIES`)."""
    if policy not in POLICIES:
        raise BudgetError(f"policy must be one of {POLICIES}, got {policy!r}")
    if situation.budget < 1:
        raise BudgetError(f"the budget must be at least 1 token, got {situation.budget}")
    agent = _SituationAgent(situation, OverflowStrategy(policy))
    for question in agent.prepared.task:
        agent.read(question)
    answered = agent.answer_all()
    return TaskResult(
        "situation",
        situation.budget,
        agent.strategy,
        Summariser.PERFECT,
        SUMMARY_SEED,
        agent.prepared.task,
        answered,
        agent.bill,
        tuple(agent.trace),
    )


def answered_from_summary(result: TaskResult) -> tuple[int, ...]:
    """The questions a run answered from a summary line, with no read of the fact in the window."""
    return tuple(
        step.question
        for step in result.trace
        if step.event is Event.ANSWER
        and step.question in result.answered_questions
        and not any(i.kind is ItemKind.READ and step.question in i.facts for i in step.context)
    )


def meets(situation: Situation, policy: str) -> bool:
    """Whether *policy*'s run of *situation* meets every requirement (unbounded: never over budget)."""
    result = run_situation(situation, policy)
    if policy == "unbounded":
        return result.bill.peak <= situation.budget
    reads = len(situation.reads)
    return not (
        (situation.every_fact and result.answered < len(result.task))
        or (not situation.summary_will_do and answered_from_summary(result))
        or (not situation.extra_calls and result.bill.calls != reads + 1)
        or (not situation.search_again and result.bill.reads != reads)
    )


def expected_policy(situation: Situation) -> str | None:
    """The first policy of :data:`POLICIES` that meets every requirement; None when none does."""
    return next((p for p in POLICIES if meets(situation, p)), None)


__all__ = [
    "POLICIES",
    "Situation",
    "answered_from_summary",
    "expected_policy",
    "meets",
    "run_situation",
]
