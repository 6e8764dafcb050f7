"""Lesson 6's general claims, checked on the reference chapter's own corpus (six Wikipedia articles).

The lesson runs on the shipped help-centre corpus and asserts its figures there; these
tests check that what it states as general (the ordering of the policies, what a lossy
summary does, when the budget stops mattering) also holds on the published task. The
corpus is not the project's to commit: the tests skip, saying so, where
``../shared/reference/agent-context/`` is absent.
"""

from __future__ import annotations

import pytest

from windowmem.budget import load_corpus, prepare, run_task
from windowmem.frames import reference_table

POLICIES = ["unbounded", "truncate", "compact", "retrieve"]


@pytest.fixture(scope="module")
def prepared(reference_corpus):
    return prepare(load_corpus(reference_corpus))


def test_the_bill_is_many_windows_not_one(prepared):
    unbounded = run_task(prepared, 1500, "unbounded")
    calls = [s.used for s in unbounded.trace if s.event.value == "call"]
    assert sum(calls) == unbounded.bill.input_tokens > 5 * unbounded.bill.peak


def test_the_three_policies_trade_as_the_lesson_says(prepared):
    row = (
        reference_table(prepared, budgets=[1500], strategies=POLICIES, summarisers=["perfect"])
        .set_index("policy")
        .loc
    )
    assert (
        row["truncate", "answered"]
        < row["compact", "answered"]
        == row["retrieve", "answered"]
        == row["unbounded", "answered"]
    )
    assert (
        row["compact", "input_tokens"]
        < row["unbounded", "input_tokens"]
        < row["retrieve", "input_tokens"]
    )
    assert row["retrieve", "reads"] == 2 * row["unbounded", "reads"]
    assert row["compact", "calls"] == row["unbounded", "calls"] + row["compact", "compactions"]


def test_a_lossy_summary_is_cheaper_and_knows_less(prepared):
    perfect = run_task(prepared, 1500, "compact")
    lossy = run_task(prepared, 1500, "compact", summariser="lossy")
    assert lossy.answered < perfect.answered and lossy.bill.input_tokens < perfect.bill.input_tokens


def test_from_the_unbounded_peak_every_policy_is_the_unbounded_run(prepared):
    peak = run_task(prepared, 1500, "unbounded").bill.peak
    table = reference_table(prepared, budgets=[peak, peak + 500], strategies=POLICIES)
    columns = ["answered", "input_tokens", "calls", "reads", "compactions", "peak"]
    assert (table[columns] == table[columns].iloc[0]).all().all()
    assert (table["input_tokens"] == run_task(prepared, 10**6, "unbounded").bill.input_tokens).all()
