"""The just-in-time policy: references in the window, reads again by id, every call on the bill.

The small case is worked by hand from its items' sizes: three one-chunk articles, three
questions, each answer ranked first, no budget pressure.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from windowmem.budget import Event, ItemKind, help_centre, prepare, run_task
from windowmem.budget.corpus import corpus_from_dict
from windowmem.budget.prompts import SYSTEM_PROMPT, read_call, reference_line, task_prompt
from windowmem.errors import BudgetError
from windowmem.tokens import count_text

PREPARED = prepare(help_centre())

ARTICLES = {
    "Shipping": "Parcels travel with Servientrega and reach Bogota in two days.",
    "Payments": "Cards can be split into twelve monthly instalments with no interest.",
    "Stores": "Stores open on Sundays from ten in the morning until six.",
}
QUESTIONS = [
    ("Shipping", "Which carrier takes parcels?", "Servientrega"),
    ("Payments", "Into how many monthly instalments can cards be split?", "twelve"),
    ("Stores", "When do stores open on Sundays?", "ten in the morning"),
]


def tiny():
    texts = list(ARTICLES.values())
    titles = list(ARTICLES)
    questions = []
    for title, question, answer in QUESTIONS:
        text = ARTICLES[title]
        start = text.index(answer)
        questions.append(
            {
                "article": titles.index(title),
                "question": question,
                "answer": answer,
                "start": start,
                "end": start + len(answer),
            }
        )
    data = {
        "articles": [{"title": t, "text": x} for t, x in zip(titles, texts, strict=True)],
        "questions": questions,
    }
    return prepare(corpus_from_dict(data, "tiny"), 3)


def call_sizes(result):
    return [s.used for s in result.trace if s.event is Event.CALL]


def test_the_small_case_worked_by_hand():
    prepared = tiny()
    # The premise: one chunk per article, each question's own chunk ranked first.
    assert prepared.task == (0, 1, 2) and prepared.answer_rank == (0, 0, 0)
    base = count_text(SYSTEM_PROMPT) + count_text(task_prompt(q for _, q, _ in QUESTIONS))
    c1, c2, c3 = (chunk.tokens for chunk in prepared.chunks)
    r1, r2, r3 = (count_text(reference_line(k, title, k + 1)) for k, title in enumerate(ARTICLES))
    refs = r1 + r2 + r3
    result = run_task(prepared, 10_000, "just-in-time")
    # Search Q1; search Q2 with Q1's read still unseen; search Q3 with Q1's read a reference;
    # then each question read again by id, the previous read in full until the next call
    # (a read again leaves no second reference); the answers call last.
    expected = [
        base,
        base + c1,
        base + r1 + c2,
        base + r1 + r2 + c3,
        base + refs + c1,
        base + refs + c2,
        base + refs + c3,
    ]
    assert call_sizes(result) == expected
    assert result.bill.input_tokens == sum(expected)
    assert (result.bill.calls, result.bill.reads, result.reads_while_answering()) == (7, 6, 3)
    assert result.answered == 3
    outputs = (
        sum(count_text(f'search("{q}")') for _, q, _ in QUESTIONS)
        + sum(count_text(read_call(k)) for k in range(3))
        + count_text("Answers:\n1. Servientrega\n2. twelve\n3. ten in the morning\n")
    )
    assert result.bill.output_tokens == outputs


def test_the_small_case_without_references_is_the_unbounded_run():
    """The same three questions unbounded: each call carries every read before it, no re-read."""
    prepared = tiny()
    base = count_text(SYSTEM_PROMPT) + count_text(task_prompt(q for _, q, _ in QUESTIONS))
    c1, c2, c3 = (chunk.tokens for chunk in prepared.chunks)
    result = run_task(prepared, 10_000, "unbounded")
    assert call_sizes(result) == [base, base + c1, base + c1 + c2, base + c1 + c2 + c3]


def test_on_the_help_centre_every_question_is_read_again_by_id():
    result = run_task(PREPARED, 1500, "just-in-time")
    unbounded = run_task(PREPARED, 1500, "unbounded")
    assert result.answered == 12 and result.reads_while_answering() == 12
    assert result.bill.reads == unbounded.bill.reads + 12
    # A read again by id is one call, with no search: Q10's miss is not read twice.
    rereads = [s for s in result.trace[result.answering_from :] if s.event is Event.READ]
    assert all("again" in s.detail for s in rereads)
    # Its window stays far under the unbounded peak, so the budget never acts at 1,500.
    assert result.bill.peak < 1500 and not any(s.event is Event.TRUNCATE for s in result.trace)
    assert result.bill.input_tokens < unbounded.bill.input_tokens


def test_a_dropped_reference_is_searched_again():
    result = run_task(PREPARED, 300, "just-in-time")
    truncated = [s for s in result.trace if s.event is Event.TRUNCATE]
    assert any("reference" in s.detail for s in truncated)
    searched = [
        s
        for s in result.trace[result.answering_from :]
        if s.event is Event.CALL and s.detail.startswith("search")
    ]
    assert searched and result.answered == 12


@settings(PROPERTY_SETTINGS, max_examples=60)
@given(budget=st.integers(min_value=1, max_value=4000))
def test_at_any_budget_one_full_read_per_call_and_every_read_on_the_bill(budget):
    result = run_task(PREPARED, budget, "just-in-time")
    first_pass = run_task(PREPARED, 10**6, "unbounded").bill.reads
    assert result.answered == 12
    for step in result.trace:
        if step.event is Event.CALL:
            reads = [i for i in step.context if i.kind is ItemKind.READ]
            assert len(reads) <= 1 and (not reads or step.context[-1] == reads[0])
    assert result.bill.calls == result.bill.reads + 1
    assert result.bill.reads >= first_pass + result.reads_while_answering() - 1
    assert result.bill.reads == first_pass + result.reads_while_answering() or any(
        s.event is Event.TRUNCATE for s in result.trace
    )


@settings(PROPERTY_SETTINGS, max_examples=40)
@given(
    budget=st.integers(min_value=1, max_value=3500),
    extra=st.integers(min_value=0, max_value=3000),
    policy=st.sampled_from(["unbounded", "truncate", "compact", "retrieve", "just-in-time"]),
)
def test_a_longer_system_prompt_with_the_budget_raised_as_much_changes_no_decision(
    budget, extra, policy
):
    own = count_text(SYSTEM_PROMPT)
    short = run_task(PREPARED, budget, policy)
    longer = run_task(PREPARED, budget + extra, policy, system_tokens=own + extra)
    assert [(s.event, s.detail) for s in short.trace] == [(s.event, s.detail) for s in longer.trace]
    assert [s.used + extra for s in short.trace] == [s.used for s in longer.trace]
    assert longer.bill.input_tokens == short.bill.input_tokens + extra * short.bill.calls


@pytest.mark.parametrize("tokens", [0, -5, 2.5, True, "1700"])
def test_a_bad_system_prompt_size_is_refused(tokens):
    with pytest.raises(BudgetError, match="system prompt's size"):
        run_task(PREPARED, 1500, "truncate", system_tokens=tokens)
