"""The budget engine against every published figure of the reference task (ALGORITHM.md).

The reference corpus is not the project's to commit: it is read from
``../shared/reference/agent-context/`` (see ``tests/conftest.py``) and these tests skip,
saying so, where it is absent.
"""

from __future__ import annotations

import pytest

from windowmem.budget import load_corpus, prepare, run_task
from windowmem.frames import reference_table

# ALGORITHM.md, "The task" and "Published figures" (budget 1,500 unless said).
PUBLISHED_TASK = (0, 38, 58, 92, 130, 159, 1, 39, 59, 93, 131, 160)
PUBLISHED_ARTICLE_TOKENS = (5496, 4101, 6889, 6802, 5160, 9051)


@pytest.fixture(scope="module")
def prepared(reference_corpus):
    return prepare(load_corpus(reference_corpus))


def test_article_token_counts(prepared):
    assert prepared.article_tokens == PUBLISHED_ARTICLE_TOKENS
    assert sum(prepared.article_tokens) == 37499


def test_chunks_count_mean_and_max(prepared):
    sizes = [chunk.tokens for chunk in prepared.chunks]
    assert len(sizes) == 208
    assert round(sum(sizes) / len(sizes), 1) == 180.3
    assert max(sizes) == 256


def test_chunks_tile_each_article(prepared):
    for number, article in enumerate(prepared.corpus.articles):
        chunks = [chunk for chunk in prepared.chunks if chunk.article == number]
        assert "".join(chunk.text for chunk in chunks) == article.text
        assert [c.start for c in chunks[1:]] == [c.end for c in chunks[:-1]]


def test_no_answer_span_is_cut(prepared):
    assert all(len(relevant) == 1 for relevant in prepared.relevant)


def test_recall_at_one(prepared):
    assert prepared.recall_at(1) == 0.785


def test_task_questions_and_their_articles(prepared):
    assert prepared.task == PUBLISHED_TASK
    # "twelve questions, two from each of the six articles"
    assert prepared.task_articles() == (2, 2, 2, 2, 2, 2)


def test_bm25s_agrees_on_every_top_three(prepared):
    bm25s = pytest.importorskip("bm25s")
    from windowmem.budget.bm25 import query_terms, terms

    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    retriever.index([terms(chunk.text) for chunk in prepared.chunks], show_progress=False)
    for number, question in enumerate(prepared.corpus.questions):
        known = [term for term in query_terms(question.question) if term in retriever.vocab_dict]
        scores = retriever.get_scores(known)
        top = sorted(range(len(scores)), key=lambda chunk: (-scores[chunk], chunk))[:3]
        assert tuple(top) == prepared.top_chunks[number], f"question {number}"


@pytest.mark.parametrize(
    ("budget", "policy", "summariser", "published"),
    [
        (
            1500,
            "unbounded",
            "perfect",
            {
                "answered": 12,
                "input_tokens": 26616,
                "calls": 16,
                "reads": 15,
                "compactions": 0,
                "peak": 3033,
            },
        ),
        (
            1500,
            "truncate",
            "perfect",
            {"answered": 5, "input_tokens": 18094, "calls": 16, "reads": 15, "compactions": 0},
        ),
        (
            1500,
            "compact",
            "perfect",
            {"answered": 12, "input_tokens": 16768, "calls": 18, "reads": 15, "compactions": 2},
        ),
        (
            1500,
            "retrieve",
            "perfect",
            {"answered": 12, "input_tokens": 39175, "reads": 30, "compactions": 0},
        ),
        (1500, "compact", "lossy", {"answered": 7}),
        (1000, "truncate", "perfect", {"answered": 3}),
    ],
)
def test_published_figures(prepared, budget, policy, summariser, published):
    result = run_task(prepared, budget, policy, summariser).as_dict()
    assert {key: result[key] for key in published} == published
    assert result["task"] == list(PUBLISHED_TASK)


def test_compact_keeps_all_facts_for_63_percent_of_unbounded(prepared):
    # The chapter: compaction costs "63% of the unbounded cost".
    compact = run_task(prepared, 1500, "compact").bill.input_tokens
    unbounded = run_task(prepared, 1500, "unbounded").bill.input_tokens
    assert round(100 * compact / unbounded) == 63


def test_reference_table_holds_the_published_rows(prepared):
    table = reference_table(prepared, budgets=[1000, 1500, 2000, 3000]).set_index(
        ["budget", "policy", "summariser"]
    )
    assert len(table) == 4 * 8  # six policies, two of them with both summarisers
    assert table.loc[(1500, "unbounded", "perfect"), "input_tokens"] == 26616
    assert table.loc[(1500, "truncate", "perfect"), "input_tokens"] == 18094
    assert table.loc[(1500, "compact", "perfect"), "input_tokens"] == 16768
    assert table.loc[(1500, "retrieve", "perfect"), "input_tokens"] == 39175
    assert table.loc[(1500, "compact", "lossy"), "answered"] == 7
    assert table.loc[(1000, "truncate", "perfect"), "answered"] == 3
    # "at 3,000 the whole task almost fits and the policies barely differ": the ones that act
    # only over budget (just-in-time acts at every call, whatever the budget)
    at_3000 = table.loc[3000].xs("perfect", level="summariser").drop(index="just-in-time")
    assert (at_3000["answered"] == 12).all()
    unbounded = at_3000.loc["unbounded", "input_tokens"]
    assert (abs(at_3000["input_tokens"] - unbounded) <= 0.03 * unbounded).all()


def test_the_figures_lesson_6_quotes_are_the_ones_the_engine_reproduces(prepared):
    """windowmem.budget.published, which lesson 6 shows, is what the engine gets on this corpus."""
    from windowmem.budget.published import PUBLISHED, PUBLISHED_BUDGET

    for (policy, summariser), figures in PUBLISHED.items():
        result = run_task(prepared, PUBLISHED_BUDGET, policy, summariser=summariser)
        assert result.answered == figures.answered, (policy, summariser)
        for name in ("input_tokens", "calls", "reads", "compactions"):
            assert getattr(figures, name) in (None, getattr(result.bill, name)), (policy, name)
