"""BM25 search over chunks, written from its definition (Lucene's idf, k1 = 1.2, b = 0.75).

Terms are lower-cased runs of letters and digits minus Lucene's English stop words; a
query's terms are de-duplicated; ranks break ties toward the lower chunk index. The
scores are float64 sums in query-term order, so a rank never depends on a library's
internal precision; ``bm25s`` (``method="lucene"``) agrees on every reference top three,
which a test checks.

>>> index = build_index(["ships to Bogota", "pay by card", "card or cash, card only"])
>>> index.rank("Which card do you take?")
(2, 1, 0)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import regex

K1 = 1.2
B = 0.75

#: Lucene's default English stop set (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``).
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)

_TERM = regex.compile(r"[\p{L}\p{N}]+")


def terms(text: str) -> list[str]:
    """The index terms of *text*, in order, repeats kept.

    >>> terms("Is the Zona T store open on Sundays?")
    ['zona', 't', 'store', 'open', 'sundays']
    """
    return [
        term for term in (match.lower() for match in _TERM.findall(text)) if term not in STOP_WORDS
    ]


def query_terms(text: str) -> list[str]:
    """The terms of a query, each once, in first-seen order."""
    return list(dict.fromkeys(terms(text)))


@dataclass(frozen=True)
class BM25Index:
    """Postings, document lengths and idf of a set of documents, ready to score queries."""

    postings: Mapping[str, tuple[tuple[int, int], ...]] = field(repr=False)
    lengths: tuple[int, ...] = field(repr=False)
    average_length: float
    idf: Mapping[str, float] = field(repr=False)
    k1: float = K1
    b: float = B

    def scores(self, query: str) -> list[float]:
        """Every document's BM25 score for *query*."""
        scores = [0.0] * len(self.lengths)
        for term in query_terms(query):
            idf = self.idf.get(term, 0.0)
            for document, tf in self.postings.get(term, ()):
                norm = self.k1 * (
                    1 - self.b + self.b * self.lengths[document] / self.average_length
                )
                scores[document] += idf * tf * (self.k1 + 1) / (tf + norm)
        return scores

    def rank(self, query: str) -> tuple[int, ...]:
        """Every document's index, best first; equal scores go to the lower index first."""
        scores = self.scores(query)
        return tuple(sorted(range(len(scores)), key=lambda document: (-scores[document], document)))


def build_index(documents: Sequence[str], k1: float = K1, b: float = B) -> BM25Index:
    """Index *documents* (chunk texts, in corpus order)."""
    if not documents:
        raise ValueError("BM25 needs at least one document to index")
    counts = [Counter(terms(text)) for text in documents]
    postings: dict[str, list[tuple[int, int]]] = {}
    for document, counter in enumerate(counts):
        for term, tf in counter.items():
            postings.setdefault(term, []).append((document, tf))
    lengths = tuple(sum(counter.values()) for counter in counts)
    n = len(documents)
    # A corpus of stop words only has no terms at all; any positive average keeps scores at 0.
    average = sum(lengths) / n or 1.0
    idf = {
        term: math.log(1 + (n - len(posts) + 0.5) / (len(posts) + 0.5))
        for term, posts in postings.items()
    }
    return BM25Index(
        {term: tuple(posts) for term, posts in postings.items()}, lengths, average, idf, k1, b
    )
