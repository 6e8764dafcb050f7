"""What the token-budget explorer shows, computed by a pure function: one step of a run, as a frozen view.

A run of the budget task (:func:`windowmem.budget.run_task`) leaves a trace: the context
and the bill after every event. :func:`budget_view` picks one step of that trace and
gathers what the explorer displays at once: the context's entries, how much of the budget
they use, which of the task's facts it holds, and the bill so far.
:func:`~.budget_html.render_budget_html` writes it as HTML. All the budget logic is
:mod:`windowmem.budget`'s; this module only arranges it.

>>> from windowmem.budget import help_centre
>>> from windowmem.explorer.budget_cache import RunCache
>>> runs = RunCache(help_centre())
>>> view = budget_view(runs.run(1500, "truncate"), -1, choice="truncate", scale=runs.scale(1500), prepared=runs.prepared)
>>> view.step == view.step_count - 1, len(view.facts_held) == view.final_answered
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from windowmem.budget import ItemKind, Prepared, TaskResult


@dataclass(frozen=True)
class EntryRow:
    """One entry of the window (system prompt, task text, read or summary) as the explorer lists it."""

    kind: str
    tokens: int
    label: str
    facts: tuple[int, ...]
    """The task positions (1 to 12) of the facts the entry holds."""


@dataclass(frozen=True)
class BudgetView:
    """Everything the explorer shows for one run at one step of its trace.

    ``entries``, ``used`` and ``facts_held`` describe the agent's context (the chapter's
    "window") after the step.
    """

    corpus: str
    budget: int
    choice: str
    step: int
    step_count: int
    event: str
    detail: str
    entries: tuple[EntryRow, ...]
    used: int
    scale: int
    """The token count the window bar spans (fixed while the sliders move)."""
    questions: tuple[str, ...]
    """The task's questions, in task order: fact *n* answers ``questions[n - 1]``."""
    facts_held: tuple[int, ...]
    """The task positions of the facts the window holds after this step."""
    input_tokens: int
    """The input bill so far: the window summed over every call up to this step."""
    calls: int
    reads: int
    compactions: int
    final_input_tokens: int
    final_answered: int

    @property
    def over_budget(self) -> bool:
        """Whether the window is over its budget right now (between a read and its trim)."""
        return self.used > self.budget

    @property
    def task_size(self) -> int:
        """How many questions the task holds."""
        return len(self.questions)


def _positions(result: TaskResult) -> dict[int, int]:
    return {question: position for position, question in enumerate(result.task, start=1)}


def _label(
    result: TaskResult,
    prepared: Prepared,
    kind: ItemKind,
    chunk: int | None,
    lines: tuple[int, ...],
) -> str:
    if kind is ItemKind.SYSTEM:
        return "system prompt"
    if kind is ItemKind.TASK:
        return f"the task: {len(result.task)} questions"
    if kind is ItemKind.SUMMARY:
        return f"summary of earlier reads: {len(lines)} line(s)"
    assert chunk is not None
    if kind is ItemKind.REFERENCE:
        return f"reference to {_chunk_name(prepared, chunk)}"
    return _chunk_name(prepared, chunk)


def _chunk_name(prepared: Prepared, chunk: int) -> str:
    # The engine numbers chunks across the whole help centre; a reader wants the article's count.
    article = prepared.chunks[chunk].article
    own = [k for k, c in enumerate(prepared.chunks) if c.article == article]
    title = prepared.corpus.articles[article].title
    return f"“{title}”, chunk {own.index(chunk) + 1} of {len(own)}"


def _readable(detail: str, prepared: Prepared, positions: dict[int, int]) -> str:
    """The trace's *detail* with chunks named by article and questions by task position (Q1…)."""
    detail = re.sub(r"chunk (\d+)", lambda m: _chunk_name(prepared, int(m.group(1))), detail)
    return re.sub(
        r"question (\d+)",
        lambda m: f"Q{positions[int(m.group(1))]}" if int(m.group(1)) in positions else m.group(0),
        detail,
    )


def budget_view(
    result: TaskResult, step: int, *, choice: str, scale: int, prepared: Prepared
) -> BudgetView:
    """The explorer's view of *result* after trace step *step* (negative counts from the end).

    *choice* is the menu label the run was made with; *scale* the token count the window
    bar spans; *prepared* the corpus the run was made on (it names the chunks' articles).
    """
    count = len(result.trace)
    if isinstance(step, bool) or not isinstance(step, int) or not -count <= step < count:
        raise ValueError(f"step {step!r} is out of range: pick a step from 0 to {count - 1}")
    state = result.trace[step]
    positions = _positions(result)
    entries = tuple(
        EntryRow(
            item.kind.value,
            item.tokens,
            _label(result, prepared, item.kind, item.chunk, item.lines),
            tuple(sorted(positions[q] for q in item.facts)),
        )
        for item in state.context
    )
    return BudgetView(
        corpus=result.corpus,
        budget=result.budget,
        choice=choice,
        step=state.number,
        step_count=count,
        event=state.event.value,
        detail=_readable(state.detail, prepared, positions),
        entries=entries,
        used=state.used,
        scale=max(scale, state.used),
        questions=tuple(prepared.corpus.questions[q].question for q in result.task),
        facts_held=tuple(sorted(positions[q] for q in state.facts)),
        input_tokens=state.bill.input_tokens,
        calls=state.bill.calls,
        reads=state.bill.reads,
        compactions=state.bill.compactions,
        final_input_tokens=result.bill.input_tokens,
        final_answered=result.answered,
    )
