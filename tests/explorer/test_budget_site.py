"""The token-budget explorer's states for the website: every budget, policy and step, read back right."""

from __future__ import annotations

import pytest

from windowmem.explorer.budget_cache import CHOICES
from windowmem.explorer.budget_site import budget_site_data
from windowmem.explorer.budget_view import budget_view

BUDGETS = range(400, 1601, 400)


@pytest.fixture(scope="module")
def data(runs):
    return budget_site_data(runs, budgets=BUDGETS, budget=800, choice="compact", step=None)


def test_every_policy_and_budget_has_every_step_of_its_run(data, runs):
    assert list(data["runs"]) == list(CHOICES)
    for choice, per_budget in data["runs"].items():
        assert len(per_budget) == len(BUDGETS)
        for budget, (final_input, answered, steps) in zip(BUDGETS, per_budget):
            result = runs.run(budget, choice)
            assert len(steps) == len(result.trace)
            assert (final_input, answered) == (result.bill.input_tokens, result.answered)


def test_each_step_reads_back_as_the_view_of_that_setting(data, runs):
    for choice, per_budget in data["runs"].items():
        for budget, (_, _, steps) in zip(BUDGETS, per_budget):
            result = runs.run(budget, choice)
            for index, row in enumerate(steps):
                view = budget_view(
                    result, index, choice=choice, scale=runs.scale(budget), prepared=runs.prepared
                )
                step, event, detail, entry_list, used, scale, held, *bill = row
                assert (step, data["texts"][event], data["texts"][detail]) == (
                    view.step,
                    view.event,
                    view.detail,
                )
                entries = [data["entries"][i] for i in data["entry_lists"][entry_list]]
                assert [(k, t, data["texts"][label], tuple(f)) for k, t, label, f in entries] == [
                    (e.kind, e.tokens, e.label, e.facts) for e in view.entries
                ]
                assert (used, scale, tuple(held)) == (view.used, view.scale, view.facts_held)
                assert bill == [view.input_tokens, view.calls, view.reads, view.compactions]


def test_repeated_strings_are_stored_once(data):
    assert len(data["texts"]) == len(set(data["texts"]))
    assert len(data["entry_lists"]) < sum(
        len(steps) for per_budget in data["runs"].values() for _, _, steps in per_budget
    )


def test_the_starting_controls_and_the_questions_are_kept(data, runs):
    assert (data["budget"], data["choice"], data["step"]) == (800, "compact", None)
    assert data["budgets"] == list(BUDGETS)
    assert len(data["questions"]) == len(runs.run(800, "compact").task)


def test_the_explorer_exports_its_slider_range(runs):
    from windowmem.explorer.budget_widgets import (
        BUDGET_MAX,
        BUDGET_MIN,
        BUDGET_STEP,
        BudgetExplorer,
    )

    explorer = BudgetExplorer(runs.prepared, budget=1500, choice="truncate", step=3)
    data = explorer.site_data()
    assert data["budgets"] == list(range(BUDGET_MIN, BUDGET_MAX + 1, BUDGET_STEP))
    assert (data["budget"], data["choice"], data["step"]) == (1500, "truncate", 3)
