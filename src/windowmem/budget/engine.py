"""The twelve-question agent under a token budget: its reads, its overflow strategy, its bill, its trace.

For each task question the agent searches and reads the top chunks until it has read
the one that holds the answer; each read is one call, charged the whole context. When the
context (the chapter's "window") goes over budget, the overflow strategy truncates or
compacts it. At the end it answers from what the context holds (searching again first
under a retrieve strategy) in one last call.

Under the just-in-time strategy, before every call each read the model has already been
sent (every read but one that has just arrived) becomes a one-line reference: its chunk
id, its article's title and the question it answers; a read that answered nothing leaves
no reference. While answering, a question whose read is only a reference is read again by
that id (one call, one read, no search); one whose reference a truncation dropped is
searched again. Over budget, the seen reads become references first, then truncation
drops the oldest references.

Points a reader of the specification could take two ways, and what the published
figures (budget 1,500) settle:

* the compaction call is charged on the context *before* the summary replaces the
  reads: 16,768 input tokens (charging the compacted context instead gives 14,615);
* the lossy summariser draws again for every line at every compaction, old summary
  lines included: 7 answered (keeping old lines without a draw gives 8);
* leaves merge across paragraph boundaries: 208 chunks (merging inside a paragraph
  only gives 256);
* the peak includes the moment a read has landed and the context is over budget, as
  the specification says; no published figure but the unbounded peak depends on it.
"""

from __future__ import annotations

from dataclasses import replace

from windowmem.budget.context import Event, Item, ItemKind, facts_held
from windowmem.budget.corpus import Corpus
from windowmem.budget.overflow import Policies
from windowmem.budget.prepared import Prepared, prepare
from windowmem.budget.prompts import answers_text, read_call, search_call
from windowmem.budget.result import TaskResult
from windowmem.budget.strategies import (
    SUMMARY_SEED,
    OverflowStrategy,
    Summariser,
    strategy_named,
    summariser_named,
)
from windowmem.errors import BudgetError

__all__ = [
    "TaskResult",
    "check_budget",
    "check_seed",
    "check_system_tokens",
    "check_trim_to",
    "run_task",
]


def check_seed(seed: object) -> int:
    """*seed* as a whole number, or a BudgetError saying so."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise BudgetError(f"the summariser's seed must be a whole number; got {seed!r}")
    return seed


def check_budget(budget: object) -> int:
    """*budget* as a whole number of tokens of at least 1, or a BudgetError saying so."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise BudgetError(
            f"the budget must be a whole number of tokens, at least 1; got {budget!r}"
        )
    return budget


def check_system_tokens(tokens: object) -> int:
    """*tokens* as a whole number of at least 1, or a BudgetError saying so."""
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
        raise BudgetError(
            f"the system prompt's size must be a whole number of tokens, at least 1; got {tokens!r}"
        )
    return tokens


def check_trim_to(trim_to: object, budget: int) -> int:
    """*trim_to* as a whole number of tokens from 1 to *budget*, or a BudgetError saying so."""
    if isinstance(trim_to, bool) or not isinstance(trim_to, int) or not 1 <= trim_to <= budget:
        raise BudgetError(
            f"trim_to is the size truncation cuts down to: a whole number of tokens from 1 to "
            f"the budget ({budget}); got {trim_to!r}"
        )
    return trim_to


class _Agent(Policies):
    """One run's state and policies (:class:`~windowmem.budget.overflow.Policies`) with the
    run loop: search and read for each question, then answer; :func:`run_task` is its only user."""

    def reread(self, question: int, chunk: int) -> None:
        """Read *chunk* again by its id for *question*: one call, one read, no search."""
        self._call(read_call(chunk), question, f"read chunk {chunk} again for question {question}")
        self.bill = replace(self.bill, reads=self.bill.reads + 1)
        self.context.append(
            Item(
                ItemKind.READ,
                self.prepared.chunks[chunk].tokens,
                frozenset({question}),
                chunk=chunk,
            )
        )
        self._changed(Event.READ, question, f"read chunk {chunk} again (holds the answer)")
        self._overflow(question)

    def read(self, question: int) -> None:
        text = self.prepared.corpus.questions[question].question
        relevant = self.prepared.relevant[question]
        for chunk in self.prepared.top_chunks[question]:
            self._call(search_call(text), question, f"search for question {question}")
            holds = chunk in relevant
            self.bill = replace(self.bill, reads=self.bill.reads + 1)
            facts = frozenset({question}) if holds else frozenset()
            self.context.append(
                Item(ItemKind.READ, self.prepared.chunks[chunk].tokens, facts, chunk=chunk)
            )
            self._changed(
                Event.READ,
                question,
                f"read chunk {chunk}" + (" (holds the answer)" if holds else ""),
            )
            self._overflow(question)
            if holds:
                return

    def answer_all(self) -> tuple[int, ...]:
        answered = []
        self.answering_from = len(self.trace)
        for question in self.prepared.task:
            if self.strategy.just_in_time and question not in facts_held(self.context):
                reference = next((i for i in self.context if question in i.points_to), None)
                if reference is not None:
                    assert reference.chunk is not None
                    self.reread(question, reference.chunk)
                else:
                    self.read(question)
            elif self.strategy.retrieves and question not in facts_held(self.context):
                self.read(question)
            held = question in facts_held(self.context)
            if held:
                answered.append(question)
            self._note(Event.ANSWER, question, "answered" if held else "fact not in the window")
        questions = self.prepared.corpus.questions
        positions = {q: n for n, q in enumerate(self.prepared.task, 1)}
        self._call(
            answers_text((positions[q], questions[q].answer) for q in answered),
            None,
            "write the answers",
        )
        return tuple(answered)


def run_task(
    corpus: Corpus | Prepared,
    budget: int,
    strategy: str | OverflowStrategy,
    summariser: str | Summariser = Summariser.PERFECT,
    seed: int = SUMMARY_SEED,
    *,
    system_tokens: int | None = None,
    trim_to: int | None = None,
) -> TaskResult:
    """Run the task on *corpus* with a context of *budget* tokens under overflow *strategy*.

    *system_tokens* sizes the system prompt, for an agent whose instructions and tool schemas
    are longer than the simulation's own prompt (None: that prompt, counted). The budget counts
    it like every other item, and no policy ever drops it.

    *trim_to* makes truncation cut in blocks: once the context is over budget, the oldest
    items go until it is at most *trim_to* tokens (None: the budget, one read at a time). The
    calls after a cut then only append until the next one, so a prompt cache serves their
    shared start.

    >>> from windowmem.budget.corpus import help_centre
    >>> result = run_task(help_centre(), 1500, "truncate")
    >>> result.answered <= len(result.task), result.bill.peak > 1500
    (True, True)
    """
    prepared = corpus if isinstance(corpus, Prepared) else prepare(corpus)
    if not prepared.task:
        raise BudgetError(
            f"corpus {prepared.corpus.name!r} has no question whose answer search ranks in the top three"
        )
    budget = check_budget(budget)
    agent = _Agent(
        prepared,
        budget,
        strategy_named(strategy),
        summariser_named(summariser),
        check_seed(seed),
        system_tokens=None if system_tokens is None else check_system_tokens(system_tokens),
        trim_to=None if trim_to is None else check_trim_to(trim_to, budget),
    )
    for question in prepared.task:
        agent.read(question)
    answered = agent.answer_all()
    return TaskResult(
        prepared.corpus.name,
        budget,
        agent.strategy,
        agent.summariser,
        seed,
        prepared.task,
        answered,
        agent.bill,
        tuple(agent.trace),
        agent.answering_from,
    )
