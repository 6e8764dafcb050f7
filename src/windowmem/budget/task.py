"""Which questions make the task: those search can answer, taken round robin over the articles.

A question's relevant chunks hold its whole answer span. A question qualifies when its
first relevant chunk ranks in the search's top three; the task takes qualifying
questions (in corpus order within an article) one article at a time, in article order,
until it has the number asked for, or as many as qualify.

>>> select_task(articles=[0, 0, 1, 1, 2], qualifies=[True, True, False, True, True], size=3)
(0, 3, 4)
>>> select_task(articles=[0, 0, 1, 1, 2], qualifies=[True, True, False, True, True], size=12)
(0, 3, 4, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from windowmem.budget.chunking import Chunk
from windowmem.budget.corpus import Question

#: How many questions the reference task holds.
TASK_QUESTIONS = 12

#: The budgets the chapter compares, in tokens.
REFERENCE_BUDGETS = (1000, 1500, 2000, 3000)

#: How many of a search's best chunks the agent reads, and where the answer must rank.
SEARCH_DEPTH = 3


def relevant_chunks(question: Question, chunks: Iterable[Chunk]) -> tuple[int, ...]:
    """The indices of the chunks that hold *question*'s whole answer span."""
    return tuple(
        chunk.index
        for chunk in chunks
        if chunk.holds_span(question.article, question.start, question.end)
    )


def first_relevant_rank(ranking: Sequence[int], relevant: Iterable[int]) -> int | None:
    """The 0-based rank of the best-ranked relevant chunk, or None when no chunk is relevant.

    >>> first_relevant_rank((7, 3, 5), {5, 3}), first_relevant_rank((7, 3), set())
    (1, None)
    """
    wanted = set(relevant)
    return next((rank for rank, chunk in enumerate(ranking) if chunk in wanted), None)


def select_task(
    articles: Sequence[int], qualifies: Sequence[bool], size: int = TASK_QUESTIONS
) -> tuple[int, ...]:
    """Question ids, round robin over articles in index order, of the qualifying questions."""
    if size < 1:
        raise ValueError(f"a task needs at least one question, got {size}")
    queues: dict[int, list[int]] = {}
    for question, (article, ok) in enumerate(zip(articles, qualifies, strict=True)):
        if ok:
            queues.setdefault(article, []).append(question)
    ordered = [queues[article] for article in sorted(queues)]
    task: list[int] = []
    depth = 0
    while len(task) < size and any(depth < len(queue) for queue in ordered):
        task.extend(queue[depth] for queue in ordered if depth < len(queue))
        depth += 1
    return tuple(task[:size])
