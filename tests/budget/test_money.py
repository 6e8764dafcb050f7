"""The budget task in money: each policy's calls, its cached prefix, its dollars.

The expectations come from the policies' rules, worked by hand: an unbounded window only
appends, so each call can be served the whole call before it; a truncated one shares only
its opening once the window slides; just-in-time shares everything up to its references.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.budget.test_just_in_time import tiny
from windowmem.budget import Event, help_centre, prepare, run_task
from windowmem.budget.money import (
    RUNS,
    call_entries,
    call_outputs,
    call_steps,
    policy_costs,
    shared_start,
    task_bill,
    task_calls,
)
from windowmem.prices import MODEL_PRICES, CacheRule, ModelPrice, call_cost

PREPARED = prepare(help_centre())
POLICIES = ("unbounded", "truncate", "compact", "retrieve", "just-in-time")

#: A provider that caches any prefix of one token or more, by itself, at a tenth of the price.
ANY_PREFIX = ModelPrice(
    "test",
    "any-prefix",
    "Any prefix",
    Decimal("1"),
    Decimal("0.1"),
    Decimal("5"),
    None,
    CacheRule(1, 1, False, "a test's own rule"),
    "a test's own prices",
    1_000_000,
)


def test_an_unbounded_call_is_served_the_whole_call_before_it():
    result = run_task(tiny(), 10_000, "unbounded")
    sizes = [s.used for s in call_steps(result)]
    calls = task_calls(result, ANY_PREFIX)
    assert [c.cached for c in calls] == [0, *sizes[:-1]]
    assert [c.input for c in calls] == sizes


def test_just_in_time_is_served_its_opening_and_its_references():
    prepared = tiny()
    result = run_task(prepared, 10_000, "just-in-time")
    steps = call_steps(result)
    # Each call shares with the call before it all but that call's read, which it turned
    # into a reference at the end.
    expected = [0] + [
        before.used - (before.context[-1].tokens if before.context[-1].kind.value == "read" else 0)
        for before in steps[:-1]
    ]
    assert [c.cached for c in task_calls(result, ANY_PREFIX)] == expected


def test_a_truncated_window_keeps_only_its_opening_after_each_drop():
    result = run_task(PREPARED, 1500, "truncate")
    steps = call_steps(result)
    opening = steps[0].used
    calls = task_calls(result, ANY_PREFIX)
    dropped_between = [
        any(s.event is Event.TRUNCATE for s in result.trace[before.number : after.number])
        for before, after in zip(steps, steps[1:])
    ]
    assert any(dropped_between)
    for call, before, dropped in zip(calls[1:], steps[:-1], dropped_between, strict=True):
        # A drop changes the window right after the task text; otherwise it only appended.
        assert call.cached == (opening if dropped else before.used)


def test_outputs_and_inputs_add_up_to_the_engine_s_bill():
    for policy in POLICIES:
        result = run_task(PREPARED, 1500, policy)
        assert sum(call_outputs(result)) == result.bill.output_tokens
        for model in MODEL_PRICES:
            bill = task_bill(result, model.model)
            assert bill.total("input") == result.bill.input_tokens
            assert bill.total("output") == result.bill.output_tokens
            assert len(bill.calls) == result.bill.calls
            assert all(0 <= c.cached + c.written <= c.input for c in bill.calls)


def test_a_cache_needs_1024_tokens_so_the_small_just_in_time_window_is_never_cached():
    result = run_task(PREPARED, 1500, "just-in-time")
    assert result.bill.peak < 1024
    for model in MODEL_PRICES:
        assert task_bill(result, model).total("cached") == 0


def test_dollars_are_the_calls_priced_one_by_one():
    result = run_task(PREPARED, 1500, "compact")
    for cost, model in zip(policy_costs([result]), MODEL_PRICES, strict=True):
        by_hand = sum((call_cost(c, model) for c in task_calls(result, model)), Decimal(0))
        assert cost.dollars == by_hand * RUNS
        assert (cost.policy, cost.model, cost.answered) == ("compact", model.name, 12)


@pytest.mark.parametrize("model", MODEL_PRICES, ids=lambda m: m.model)
def test_at_1500_no_budget_is_the_cheapest_run_that_answers_everything(model):
    """The lesson's point in money: the unbounded window keeps its prefix, and the cache pays."""
    runs = [run_task(PREPARED, 1500, p) for p in POLICIES]
    costs = {c.policy: c for c in policy_costs(runs, (model,))}
    assert costs["unbounded"].input > costs["just-in-time"].input
    assert costs["unbounded"].dollars < min(
        c.dollars for c in costs.values() if c is not costs["unbounded"]
    )
    assert max(costs.values(), key=lambda c: c.dollars).policy == "retrieve"


@pytest.mark.parametrize("policy", POLICIES)
def test_call_entries_add_up_to_each_call_s_size_and_name_what_it_holds(policy):
    result = run_task(PREPARED, 1500, policy)
    steps = call_steps(result)
    for number, step in enumerate(steps, start=1):
        entries = call_entries(result, number)
        assert sum(tokens for _, tokens in entries) == step.used
        assert entries[:2] == (("system prompt", 33), ("task text", 160))
    # The one read that answers nothing, Q10's first (Q4's chunk), is sent once by every policy.
    labels = {label for n in range(1, len(steps) + 1) for label, _ in call_entries(result, n)}
    assert any(label.endswith("(no fact)") for label in labels)


def test_call_entries_group_a_run_of_references():
    jit = run_task(PREPARED, 1500, "just-in-time")
    last = call_entries(jit, len(call_steps(jit)))
    assert [label for label, _ in last] == [
        "system prompt",
        "task text",
        "references to Q1-Q12",
        "Q12's chunk",
    ]
    assert last[2][1] == sum(
        i.tokens for i in call_steps(jit)[-1].context if i.kind.value == "reference"
    )


@pytest.mark.parametrize("number", [0, 15, True, "1"])
def test_call_entries_refuses_a_call_the_run_does_not_have(number):
    with pytest.raises(ValueError, match="use 1 to 14"):
        call_entries(run_task(PREPARED, 1500, "unbounded"), number)


def test_shared_start_is_what_a_cache_with_no_minimum_serves():
    """shared_start of two calls is the prefix ANY_PREFIX's cache serves the later one, when the
    earlier one is the only call before it that shares the most."""
    for policy in POLICIES:
        result = run_task(PREPARED, 1500, policy)
        served = task_calls(result, ANY_PREFIX)
        for n in range(2, len(served) + 1):
            best = max(shared_start(result, k, n) for k in range(1, n))
            assert served[n - 1].cached == best, (policy, n)
    unbounded = run_task(PREPARED, 1500, "unbounded")
    steps = call_steps(unbounded)
    assert all(shared_start(unbounded, n, n + 1) == steps[n - 1].used for n in range(1, len(steps)))
