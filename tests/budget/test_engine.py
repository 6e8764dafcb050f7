"""The budget engine on the course's corpus: the bill agrees with the trace, policies keep their rules."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import PROPERTY_SETTINGS
from windowmem.budget import (
    Event,
    ItemKind,
    OverflowStrategy,
    Summariser,
    help_centre,
    prepare,
    run_task,
)
from windowmem.budget.mulberry32 import mulberry32
from windowmem.budget.prompts import summary_line, summary_text
from windowmem.errors import BudgetError
from windowmem.frames import trace_table
from windowmem.tokens import count_text

PREPARED = prepare(help_centre())
ALL_RUNS = [
    (policy, summariser)
    for policy in OverflowStrategy
    for summariser in Summariser
    if policy.compacts or summariser is Summariser.PERFECT
]
#: What truncation may drop: never the system prompt or the task.
DROPPABLE = (ItemKind.READ, ItemKind.SUMMARY, ItemKind.REFERENCE)


def bill_from_trace(result):
    """The bill recomputed from the steps alone."""
    steps = result.trace
    calls = [s for s in steps if s.event is Event.CALL]
    return {
        "input_tokens": sum(s.used for s in calls),
        "calls": len(calls),
        "reads": sum(s.event is Event.READ for s in steps),
        "compactions": sum(s.event is Event.COMPACT for s in steps),
        "peak": max(s.used for s in steps),
    }


def check_rules(result):
    """Every rule a run must keep, whatever its budget and policy."""
    trace, budget, policy = result.trace, result.budget, result.strategy
    assert [s.number for s in trace] == list(range(len(trace)))
    assert {
        k: v for k, v in result.as_dict().items() if k in bill_from_trace(result)
    } == bill_from_trace(result)
    for before, step in zip(trace, trace[1:]):
        window = step.context
        assert [item.kind for item in window[:2]] == [ItemKind.SYSTEM, ItemKind.TASK]
        if step.event is Event.READ:
            assert window[:-1] == before.context and window[-1].kind is ItemKind.READ
        if step.event is Event.REFERENCE:
            # Every read but the last item becomes its reference; one that answered nothing goes.
            assert policy.just_in_time and step.used < before.used
            assert [i for i in window if i.kind is ItemKind.READ] in ([], [before.context[-1]])
            assert all(not i.facts for i in window if i.kind is ItemKind.REFERENCE)
            assert {q for i in window for q in i.points_to} == {
                q
                for i in before.context
                for q in i.points_to | (i.facts if i is not before.context[-1] else frozenset())
            }
        if step.event is Event.TRUNCATE:
            assert policy.bounded and before.used > budget
            assert window[-1] == before.context[-1], "the read just added is never dropped"
            oldest = next(k for k, item in enumerate(before.context) if item.kind in DROPPABLE)
            dropped = before.context[oldest]
            if dropped.kind is ItemKind.SUMMARY and len(dropped.lines) > 1:
                assert window[oldest].lines == dropped.lines[1:]
            else:
                assert window == before.context[:oldest] + before.context[oldest + 1 :]
        if step.event is Event.COMPACT:
            summary = window[2]
            assert [item.kind for item in window] == [
                ItemKind.SYSTEM,
                ItemKind.TASK,
                ItemKind.SUMMARY,
                ItemKind.READ,
            ]
            assert summary.tokens == count_text(
                summary_text(
                    summary_line(
                        PREPARED.corpus.questions[q].question, PREPARED.corpus.questions[q].answer
                    )
                    for q in summary.lines
                )
            )
            if result.summariser is Summariser.PERFECT:
                assert step.facts == before.facts
            else:
                assert step.facts <= before.facts
        if (
            step.event is Event.CALL
            and policy.bounded
            and not (trace[step.number + 1 :] and trace[step.number + 1].event is Event.COMPACT)
        ):
            # Before a search or the answers, the policy has brought the window within budget,
            # or nothing is left that it may drop.
            droppable = [k for k, item in enumerate(window) if item.kind in DROPPABLE]
            assert step.used <= budget or droppable in ([], [len(window) - 1])
    final = trace[-1]
    assert final.event is Event.CALL
    answers = [s for s in trace if s.event is Event.ANSWER]
    assert [s.question for s in answers] == list(result.task)
    # A question counts as answered when its fact is in the window at its turn.
    assert result.answered_questions == tuple(s.question for s in answers if s.question in s.facts)
    if not policy.retrieves:
        assert set(result.answered_questions) == set(result.task) & final.facts


@pytest.mark.parametrize(("policy", "summariser"), ALL_RUNS)
@pytest.mark.parametrize("budget", [1, 600, 1000, 1500, 3000])
def test_every_policy_keeps_its_rules(budget, policy, summariser):
    check_rules(run_task(PREPARED, budget, policy, summariser))


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(
    budget=st.integers(min_value=1, max_value=4000),
    run=st.sampled_from(ALL_RUNS),
    seed=st.integers(0, 2**32 - 1),
)
def test_rules_hold_for_any_budget_and_seed(budget, run, seed):
    check_rules(run_task(PREPARED, budget, run[0], run[1], seed))


def test_unbounded_never_forgets_and_answers_everything():
    result = run_task(PREPARED, 500, "unbounded")
    known = result.facts_known()
    assert all(a <= b for a, b in zip(known, known[1:]))
    assert result.answered == len(result.task) == 12
    assert result.bill.peak == result.trace[-1].used > 500


def test_without_pressure_every_policy_costs_the_same():
    """Every policy but just-in-time acts only over budget; just-in-time acts at every call."""
    unbounded = run_task(PREPARED, 100_000, "unbounded")
    for policy, summariser in ALL_RUNS:
        if policy.just_in_time:
            continue
        result = run_task(PREPARED, 100_000, policy, summariser)
        assert (result.bill, result.answered_questions) == (
            unbounded.bill,
            unbounded.answered_questions,
        )


def test_retrieve_answers_everything_by_reading_again():
    truncated = run_task(PREPARED, 1000, "truncate")
    retrieved = run_task(PREPARED, 1000, "retrieve")
    assert truncated.answered < 12 == retrieved.answered
    # Every lost question is searched again: at least one more read for each.
    assert retrieved.bill.reads >= truncated.bill.reads + (12 - truncated.answered)


def test_answered_so_far_counts_answers_as_the_engine_gives_them():
    """Retrieve answers all twelve while its last window holds fewer facts: the two curves differ."""
    retrieved = run_task(PREPARED, 1500, "retrieve")
    so_far = retrieved.answered_so_far()
    assert len(so_far) == len(retrieved.trace) and so_far[-1] == retrieved.answered == 12
    assert all(b - a in (0, 1) for a, b in zip(so_far, so_far[1:]))
    assert retrieved.facts_known()[-1] < 12
    answers = [s for s in retrieved.trace if s.event is Event.ANSWER]
    assert retrieved.trace[answers[0].number] is answers[0]
    assert so_far[answers[0].number] == 1 and set(so_far[: answers[0].number]) == {0}
    truncated = run_task(PREPARED, 1500, "truncate")
    assert truncated.answered_so_far()[-1] == truncated.answered


def test_truncation_at_a_smaller_budget_forgets_more():
    answered = [
        run_task(PREPARED, budget, "truncate").answered for budget in (600, 1000, 1500, 3000)
    ]
    assert answered == sorted(answered) and answered[0] < answered[-1] == 12


def test_lossy_runs_repeat_for_a_seed():
    first, again = (run_task(PREPARED, 1000, "compact", "lossy", seed=5) for _ in range(2))
    assert first == again
    assert {run_task(PREPARED, 1000, "compact", "lossy", seed=s).answered for s in range(10)} != {
        12
    }


def test_mulberry32_draws_what_the_javascript_original_draws():
    # From the reference JavaScript (Math.imul, >>> 0) run under Node for these seeds.
    published = {
        23: [
            0.09272266505286098,
            0.06831189128570259,
            0.6321120406500995,
            0.30546968476846814,
            0.32397183775901794,
        ],
        0: [
            0.26642920868471265,
            0.0003297457005828619,
            0.2232720274478197,
            0.1462021479383111,
            0.46732782293111086,
        ],
        4294967295: [
            0.8964226141106337,
            0.189478256739676,
            0.7156526781618595,
            0.9440599093213677,
            0.8452364315744489,
        ],
    }
    for seed, draws in published.items():
        generator = mulberry32(seed)
        assert [next(generator) for _ in draws] == draws


@pytest.mark.skipif(
    shutil.which("node") is None,
    reason="node is not installed: the live JavaScript cross-check needs it",
)
def test_mulberry32_matches_node_for_more_seeds():
    script = (
        "function m(a){return function(){var t=a+=0x6D2B79F5;t=Math.imul(t^t>>>15,t|1);"
        "t^=t+Math.imul(t^t>>>7,t|61);return((t^t>>>14)>>>0)/4294967296;}}"
        "for(const s of [1,7,23,99,123456789,2147483648]){const r=m(s);"
        "console.log([r(),r(),r(),r(),r(),r(),r(),r()].join(' '))}"
    )
    lines = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    for seed, line in zip([1, 7, 23, 99, 123456789, 2147483648], lines):
        generator = mulberry32(seed)
        assert [next(generator) for _ in range(8)] == [float(x) for x in line.split()]


@pytest.mark.parametrize("budget", [0, -5, 2.5, "1500", True, None])
def test_a_bad_budget_is_refused(budget):
    with pytest.raises(BudgetError, match="budget must be a whole number of tokens"):
        run_task(PREPARED, budget, "truncate")


def test_a_bad_seed_is_refused():
    with pytest.raises(BudgetError, match="seed must be a whole number"):
        run_task(PREPARED, 1000, "compact", "lossy", seed="23")


def test_unknown_policy_and_summariser_list_the_names():
    with pytest.raises(
        BudgetError, match="use one of unbounded, truncate, compact, retrieve, compact\\+retrieve"
    ):
        run_task(PREPARED, 1000, "forget")
    with pytest.raises(BudgetError, match="use one of perfect, lossy"):
        run_task(PREPARED, 1000, "compact", "sloppy")


def test_task_size():
    assert prepare(help_centre(), 3).task == PREPARED.task[:3]
    qualifying = sum(rank is not None and rank < 3 for rank in PREPARED.answer_rank)
    assert len(prepare(help_centre(), 100).task) == qualifying
    assert run_task(prepare(help_centre(), 3), 1000, "unbounded").answered == 3


def test_a_step_is_looked_up_by_number():
    result = run_task(PREPARED, 1000, "compact")
    middle = result.trace[len(result.trace) // 2]
    assert result.trace[middle.number] is middle
    assert result.facts_known()[middle.number] == len(middle.facts)


def test_trace_table_is_the_trace():
    result = run_task(PREPARED, 900, "retrieve")
    frame = trace_table(result)
    assert list(frame["step"]) == list(range(len(result.trace)))
    assert tuple(frame["facts_known"]) == result.facts_known()
    assert list(frame["used"]) == [step.used for step in result.trace]
    assert frame["input_tokens"].iloc[-1] == result.bill.input_tokens
    assert frame["question"].isna().sum() == 2  # the start and the final answers call
