"""Recursive chunking to a token limit: paragraphs, then sentences, then fixed windows, then merge.

Everything works on an article's pre-tokenizer pieces, so chunk boundaries fall between
pieces and a chunk's token count is the sum of the counts of the pieces it spans.

>>> from windowmem.budget.pieces import piece_text
>>> article = piece_text("First one. Second one.\\nNew paragraph here.")
>>> [chunk.text for chunk in chunk_article(article, article=0, first_index=0, limit=4)]
['First one.', ' Second one.\\n', 'New paragraph here.']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from windowmem.budget.pieces import PiecedText

#: The reference task's chunk size, in Qwen2.5 tokens.
CHUNK_TOKENS = 256

# A piece that ends a sentence: . ! or ?, then closing quotes or brackets, then line breaks.
_SENTENCE_END = regex.compile(r"[.!?][\"'”’)\]]*[\r\n]*\Z")
# What a new sentence may begin with: an upper-case letter, a digit, an opening quote or bracket.
_SENTENCE_OPENING = regex.compile(r"[\p{Lu}\p{N}\"'“‘(\[]")

#: A run of pieces ``[first, stop)`` of one article.
Span = tuple[int, int]


@dataclass(frozen=True)
class Chunk:
    """A run of an article's pieces: its corpus-wide index, article, characters and tokens."""

    index: int
    article: int
    start: int
    end: int
    tokens: int
    text: str

    def holds_span(self, article: int, start: int, end: int) -> bool:
        """Whether the characters ``[start, end)`` of *article* lie wholly inside this chunk."""
        return article == self.article and self.start <= start and end <= self.end


def paragraph_starts(pieces: Sequence[str]) -> tuple[bool, ...]:
    """For each piece, whether a paragraph starts there: at 0 and after a piece with a line break."""
    return tuple(i == 0 or "\n" in pieces[i - 1] for i in range(len(pieces)))


def _opens_sentence(pieces: Sequence[str], i: int) -> bool:
    piece = pieces[i]
    if not piece[:1].isspace() or not _SENTENCE_END.search(pieces[i - 1]):
        return False
    visible = piece.lstrip()
    if not visible and i + 1 < len(pieces):
        visible = pieces[i + 1]
    return bool(_SENTENCE_OPENING.match(visible))


def sentence_starts(pieces: Sequence[str]) -> tuple[bool, ...]:
    """For each piece, whether a sentence starts there (every paragraph start is one)."""
    paragraphs = paragraph_starts(pieces)
    return tuple(paragraphs[i] or _opens_sentence(pieces, i) for i in range(len(pieces)))


def _runs(starts: Sequence[bool], first: int, stop: int) -> list[Span]:
    """Cut ``[first, stop)`` at every piece marked in *starts* (``first`` always opens a run)."""
    cuts = [first] + [i for i in range(first + 1, stop) if starts[i]]
    return list(zip(cuts, cuts[1:] + [stop]))


def _fixed_windows(tokens: Sequence[int], first: int, stop: int, limit: int) -> list[Span]:
    """Take pieces while the window stays within *limit*, always at least one piece."""
    windows = []
    while first < stop:
        end, total = first + 1, tokens[first]
        while end < stop and total + tokens[end] <= limit:
            total += tokens[end]
            end += 1
        windows.append((first, end))
        first = end
    return windows


def leaves(article: PiecedText, limit: int = CHUNK_TOKENS) -> list[Span]:
    """The leaves: paragraphs within *limit*, else their sentences, else fixed windows."""
    pieces, tokens = article.pieces, article.tokens
    sentences = sentence_starts(pieces)
    result: list[Span] = []
    for paragraph in _runs(paragraph_starts(pieces), 0, len(pieces)):
        if article.span_tokens(*paragraph) <= limit:
            result.append(paragraph)
            continue
        for sentence in _runs(sentences, *paragraph):
            if article.span_tokens(*sentence) <= limit:
                result.append(sentence)
            else:
                result.extend(_fixed_windows(tokens, *sentence, limit))
    return result


def merge_leaves(
    article: PiecedText, spans: Sequence[Span], limit: int = CHUNK_TOKENS
) -> list[Span]:
    """Join neighbouring leaves greedily while the merged run stays within *limit*."""
    merged: list[Span] = []
    for first, stop in spans:
        if merged and article.span_tokens(merged[-1][0], stop) <= limit:
            merged[-1] = (merged[-1][0], stop)
        else:
            merged.append((first, stop))
    return merged


def chunk_article(
    pieced: PiecedText, *, article: int, first_index: int, limit: int = CHUNK_TOKENS
) -> tuple[Chunk, ...]:
    """The chunks of one pieced article (number *article*), numbered from *first_index*."""
    offsets = pieced.offsets
    return tuple(
        Chunk(
            first_index + n,
            article,
            offsets[first],
            offsets[stop],
            pieced.span_tokens(first, stop),
            "".join(pieced.pieces[first:stop]),
        )
        for n, (first, stop) in enumerate(merge_leaves(pieced, leaves(pieced, limit), limit))
    )


def chunk_corpus(articles: Sequence[PiecedText], limit: int = CHUNK_TOKENS) -> tuple[Chunk, ...]:
    """Every article's chunks, numbered across the corpus article by article."""
    chunks: list[Chunk] = []
    for number, pieced in enumerate(articles):
        chunks.extend(chunk_article(pieced, article=number, first_index=len(chunks), limit=limit))
    return tuple(chunks)
