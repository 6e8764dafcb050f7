"""The design task's situations: the engine's runs of them and the policy each needs.

The graded situations are drawn by lesson 6's hidden support, and checked in
``tests/assignments/test_lesson06_assignment.py``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from windowmem.budget import Event, help_centre, prepare, run_task
from windowmem.budget.policy_choice import (
    POLICIES,
    Situation,
    answered_from_summary,
    expected_policy,
    meets,
    run_situation,
)
from windowmem.errors import BudgetError

PREPARED = prepare(help_centre())


def help_centre_situation(budget: int) -> Situation:
    """The lesson's twelve-question task as a situation: its opening window and its reads."""
    start = run_task(PREPARED, budget, "unbounded").trace[0].used
    reads: list[tuple[str | None, int]] = []
    for question in PREPARED.task:
        for chunk in PREPARED.top_chunks[question]:
            holds = chunk in PREPARED.relevant[question]
            reads.append((f"Q{question}" if holds else None, PREPARED.chunks[chunk].tokens))
            if holds:
                break
    return Situation(start, tuple(reads), budget, summary_line_tokens=20)


@pytest.mark.parametrize("policy", ["unbounded", "truncate", "retrieve"])
@pytest.mark.parametrize("budget", [600, 1000, 1500, 2950, 2951, 4000])
def test_a_situation_runs_as_the_lesson_s_task_does(policy, budget):
    """Without summaries every size is the corpus's, so the input bill is the lesson's to the token
    (output tokens are not the situation's: its questions and answers are only names)."""
    ours = run_situation(help_centre_situation(budget), policy)
    lesson = run_task(PREPARED, budget, policy)
    assert replace(ours.bill, output_tokens=0) == replace(lesson.bill, output_tokens=0)
    assert ours.answered == lesson.answered
    assert [s.used for s in ours.trace] == [s.used for s in lesson.trace]


def test_a_compaction_by_hand():
    """Three reads of 300 from 100 at 500 tokens, lines of 20: two compactions, worked out by hand."""
    s = Situation(100, (("Q1", 300), ("Q2", 300), ("Q3", 300)), 500, summary_line_tokens=20)
    result = run_situation(s, "compact")
    calls = [step.used for step in result.trace if step.event is Event.CALL]
    # 100, 400; read 2 makes 700: a compaction on 700 leaves [Q1] 20 + 300; read 3 makes 720:
    # a compaction on 720 leaves [Q1, Q2] 40 + 300; the last call on 440
    assert calls == [100, 400, 700, 420, 720, 440]
    assert result.bill.input_tokens == 2780 and result.bill.compactions == 2
    assert result.answered == 3 and answered_from_summary(result) == (0, 1)


def test_a_summary_that_outgrows_the_room_loses_its_oldest_lines():
    s = Situation(100, (("Q1", 150), ("Q2", 150), ("Q3", 150), ("Q4", 300)), 430, 50)
    result = run_situation(s, "compact")
    assert result.answered < 4 and not meets(s, "compact")
    assert meets(s, "retrieve") and expected_policy(s) == "retrieve"


@pytest.mark.parametrize(
    ("situation", "policy"),
    [
        # the budget is exactly the largest window: nothing ever acts
        (Situation(100, (("Q1", 300), ("Q2", 250)), 650, 20), "unbounded"),
        # one token less: a budget the task reaches, and truncation loses Q1
        (Situation(100, (("Q1", 300), ("Q2", 250)), 649, 20), "compact"),
        # truncation drops only the miss, so every fact is still there to answer
        (Situation(100, ((None, 300), ("Q1", 250), ("Q2", 200)), 600, 20), "truncate"),
        # forgetting is fine
        (
            Situation(100, (("Q1", 300), ("Q2", 250), ("Q3", 200)), 600, 20, every_fact=False),
            "truncate",
        ),
        # a summary will not do: the answers must come from the reads
        (
            Situation(100, (("Q1", 300), ("Q2", 250), ("Q3", 200)), 600, 20, summary_will_do=False),
            "retrieve",
        ),
    ],
)
def test_the_policy_a_situation_needs(situation, policy):
    assert expected_policy(situation) == policy
    assert [p for p in POLICIES if meets(situation, p)][0] == policy


def test_no_policy_fits_when_every_way_out_is_forbidden():
    s = Situation(100, (("Q1", 300), ("Q2", 250), ("Q3", 200)), 600, 20, extra_calls=False)
    assert expected_policy(s) is None


@pytest.mark.parametrize(
    "bad",
    [
        dict(base_tokens=-1, reads=(("Q1", 10),), budget=100, summary_line_tokens=5),
        dict(base_tokens=10, reads=(("Q1", -10),), budget=100, summary_line_tokens=5),
        dict(base_tokens=10, reads=(("Q1", 10), (None, 5)), budget=100, summary_line_tokens=5),
        dict(base_tokens=10, reads=(("Q1", 10), ("Q1", 5)), budget=100, summary_line_tokens=5),
        dict(base_tokens=10, reads=(), budget=100, summary_line_tokens=5),
        dict(base_tokens=10, reads=(("Q1", 10),), budget=True, summary_line_tokens=5),
    ],
)
def test_a_malformed_situation_is_refused(bad):
    with pytest.raises(BudgetError):
        Situation(**bad)


def test_an_unknown_policy_or_an_empty_budget_is_refused():
    s = Situation(10, (("Q1", 10),), 100, 5)
    with pytest.raises(BudgetError, match="one of"):
        run_situation(s, "forget")
    with pytest.raises(BudgetError, match="at least 1"):
        run_situation(Situation(10, (("Q1", 10),), 0, 5), "truncate")
