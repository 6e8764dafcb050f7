"""Everything about a corpus that does not depend on the budget: pieces, chunks, search, task.

Computed once per corpus and task size (and cached), so a table of many runs only
replays windows.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

from windowmem.budget.bm25 import BM25Index, build_index
from windowmem.budget.chunking import CHUNK_TOKENS, Chunk, chunk_corpus
from windowmem.budget.corpus import Corpus
from windowmem.budget.pieces import piece_text
from windowmem.budget.task import (
    SEARCH_DEPTH,
    TASK_QUESTIONS,
    first_relevant_rank,
    relevant_chunks,
    select_task,
)


@dataclass(frozen=True)
class Prepared:
    """A corpus with its chunks, search results and the task selected from it."""

    corpus: Corpus
    article_tokens: tuple[int, ...]
    chunks: tuple[Chunk, ...]
    index: BM25Index
    #: Per question: the chunks the agent reads for it, best first (the top three).
    top_chunks: tuple[tuple[int, ...], ...]
    #: Per question: the chunks that hold its answer span.
    relevant: tuple[frozenset[int], ...]
    #: Per question: the 0-based rank of its first relevant chunk, None if no chunk holds it.
    answer_rank: tuple[int | None, ...]
    task: tuple[int, ...]

    def recall_at(self, k: int) -> float:
        """The share of questions whose first relevant chunk ranks in the top *k*."""
        hits = sum(1 for rank in self.answer_rank if rank is not None and rank < k)
        return hits / len(self.answer_rank)

    def task_articles(self) -> tuple[int, ...]:
        """How many task questions come from each article, in article order."""
        counts = [0] * len(self.corpus.articles)
        for question in self.task:
            counts[self.corpus.questions[question].article] += 1
        return tuple(counts)


@lru_cache(maxsize=8)
def _searched(corpus: Corpus) -> Prepared:
    """*corpus* pieced, chunked, indexed and every question ranked; no task chosen yet."""
    pieced = [piece_text(article.text) for article in corpus.articles]
    chunks = chunk_corpus(pieced, CHUNK_TOKENS)
    index = build_index([chunk.text for chunk in chunks])
    rankings = [index.rank(question.question) for question in corpus.questions]
    relevant = tuple(frozenset(relevant_chunks(question, chunks)) for question in corpus.questions)
    return Prepared(
        corpus=corpus,
        article_tokens=tuple(article.total_tokens for article in pieced),
        chunks=chunks,
        index=index,
        top_chunks=tuple(ranking[:SEARCH_DEPTH] for ranking in rankings),
        relevant=relevant,
        answer_rank=tuple(
            first_relevant_rank(ranking, wanted) for ranking, wanted in zip(rankings, relevant)
        ),
        task=(),
    )


@lru_cache(maxsize=16)
def prepare(corpus: Corpus, task_size: int = TASK_QUESTIONS) -> Prepared:
    """Chunk and index *corpus*, rank every question, and select a task of *task_size* questions.

    >>> from windowmem.budget.corpus import help_centre
    >>> prepared = prepare(help_centre(), 6)
    >>> [prepared.corpus.questions[q].article for q in prepared.task]
    [0, 1, 2, 3, 4, 5]
    """
    searched = _searched(corpus)
    qualifies = [rank is not None and rank < SEARCH_DEPTH for rank in searched.answer_rank]
    task = select_task([question.article for question in corpus.questions], qualifies, task_size)
    return replace(searched, task=task)
