"""BM25 from its definition: the analyser, the tie rule, and agreement with bm25s."""

from __future__ import annotations

import math

import pytest

from windowmem.budget import help_centre, prepare
from windowmem.budget.bm25 import K1, STOP_WORDS, build_index, query_terms, terms

bm25s = pytest.importorskip("bm25s")


def test_terms_are_lower_cased_letter_and_digit_runs_without_stop_words():
    assert terms("Is the store in Bogotá open 24/7? It IS.") == [
        "store",
        "bogotá",
        "open",
        "24",
        "7",
    ]
    assert len(STOP_WORDS) == 33


def test_query_terms_are_deduplicated_in_order():
    assert query_terms("card, CARD or cash card") == ["card", "cash"]
    index = build_index(["pay by card", "card card card cash", "cash only"])
    assert index.scores("card card cash") == index.scores("cash card")


def test_equal_scores_rank_the_lower_chunk_first():
    index = build_index(["refund policy", "shipping times", "refund policy"])
    assert index.rank("refund")[:2] == (0, 2)
    assert index.rank("nothing matches")[:3] == (0, 1, 2)


def test_one_term_score_by_hand():
    # Three documents, "card" in one of them once; lengths 2, 1, 3 terms (average 2).
    index = build_index(["pay card", "cash", "cash cash cash"])
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    expected = idf * 1 * (K1 + 1) / (1 + K1 * (1 - 0.75 + 0.75 * 2 / 2))
    assert index.scores("card") == pytest.approx([expected, 0.0, 0.0], rel=1e-12)


def test_scores_match_bm25s_lucene_up_to_its_constant_factor():
    # bm25s's "lucene" method leaves out the (k1 + 1) factor, which no ranking depends on.
    prepared = prepare(help_centre())
    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index([terms(chunk.text) for chunk in prepared.chunks], show_progress=False)
    for number, question in enumerate(prepared.corpus.questions):
        known = [term for term in query_terms(question.question) if term in retriever.vocab_dict]
        theirs = [(K1 + 1) * float(score) for score in retriever.get_scores(known)]
        assert prepared.index.scores(question.question) == pytest.approx(theirs, rel=1e-5, abs=1e-6)
        top = sorted(range(len(theirs)), key=lambda chunk: (-theirs[chunk], chunk))[:3]
        assert tuple(top) == prepared.top_chunks[number]
