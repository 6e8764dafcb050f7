"""Lesson 6's token-budget explorer: the pure view, its HTML, and the thin widget layer."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from windowmem.budget import help_centre, prepare
from windowmem.errors import BudgetError
from windowmem.explorer.budget_cache import CHOICES, RunCache, choice_named
from windowmem.explorer.budget_html import render_budget_html
from windowmem.explorer.budget_view import budget_view


@pytest.fixture(scope="module")
def runs() -> RunCache:
    return RunCache(help_centre())


def view_at(runs: RunCache, budget: int, choice: str, step: int):
    return budget_view(
        runs.run(budget, choice),
        step,
        choice=choice,
        scale=runs.scale(budget),
        prepared=runs.prepared,
    )


@settings(max_examples=200, deadline=None)
@given(
    budget=st.integers(200, 3200), choice=st.sampled_from(list(CHOICES)), fraction=st.floats(0, 1)
)
def test_view_adds_up(budget, choice, fraction):
    """At any step the items fill the window, and the bill so far is C_in = Σ|W_t| over the calls made."""
    runs = RunCache(prepare(help_centre()))  # prepare() is cached: this is cheap
    result = runs.run(budget, choice)
    step = round(fraction * (len(result.trace) - 1))
    view = view_at(runs, budget, choice, step)
    assert sum(item.tokens for item in view.items) == view.used == result.trace[step].used
    # Each call is charged the window as it stands at that call.
    calls = [s for s in result.trace[: step + 1] if s.event.value == "call"]
    assert view.input_tokens == sum(s.used for s in calls)
    assert view.calls == len(calls)
    held = {n for item in view.items for n in item.facts}
    assert set(view.facts_held) == held
    assert all(1 <= n <= view.task_size for n in held)
    assert view.used <= view.scale


@pytest.mark.parametrize("choice", ["truncate", "compact", "compact (lossy)", "retrieve"])
@pytest.mark.parametrize("budget", [300, 600, 1000, 1500, 2000])
def test_bounded_window_fits_its_budget_when_it_searches_and_answers(runs, budget, choice):
    """A bounded policy has trimmed the window by the next search or answer, unless only the newest read is left to drop."""
    result = runs.run(budget, choice)
    for step, state in enumerate(result.trace):
        searching = state.event.value == "call" and state.detail.startswith("search")
        if not (searching or state.event.value == "answer" or step == len(result.trace) - 1):
            continue
        view = view_at(runs, budget, choice, step)
        droppable = [item for item in view.items if item.kind in ("read", "summary")]
        assert not view.over_budget or (len(droppable) == 1 and view.items[-1].kind == "read"), (
            step,
            state.detail,
        )


def test_unbounded_scale_is_the_whole_task(runs):
    """The bar spans the unbounded window at its largest: the base items plus every read."""
    last = view_at(runs, 1500, "unbounded", -1)
    assert runs.scale(1500) == last.used == sum(item.tokens for item in last.items)
    assert [item.kind for item in last.items][:2] == ["system", "task"]
    assert runs.scale(4000) == 4000


def test_last_step_holds_the_answered_facts(runs):
    for choice in ("unbounded", "truncate", "compact", "compact (lossy)"):
        result = runs.run(1500, choice)
        view = view_at(runs, 1500, choice, -1)
        positions = [result.task.index(q) + 1 for q in result.answered_questions]
        assert list(view.facts_held) == sorted(positions), choice
        assert view.final_answered == len(positions)
        assert view.input_tokens == view.final_input_tokens == result.bill.input_tokens


def test_first_step_is_the_system_prompt_and_the_task(runs):
    view = view_at(runs, 1500, "truncate", 0)
    assert [item.kind for item in view.items] == ["system", "task"]
    assert view.facts_held == () and view.input_tokens == 0 and view.calls == 0
    assert view.items[1].label == f"the task: {view.task_size} questions"


def test_reads_are_labelled_with_their_article(runs):
    view = view_at(runs, 1500, "unbounded", -1)
    titles = {article.title for article in runs.prepared.corpus.articles}
    reads = [item for item in view.items if item.kind == "read"]
    assert reads and all(any(f"“{title}”" in item.label for title in titles) for item in reads)


def test_html_shows_the_view(runs):
    view = view_at(runs, 1000, "compact (lossy)", 20)
    page = render_budget_html(view)
    assert f'data-used="{view.used}"' in page and f'data-budget="{view.budget}"' in page
    assert page.count('class="wm-dot ') == view.task_size
    assert page.count("wm-dot wm-held") == len(view.facts_held)
    assert page.count('class="wm-seg wm-seg-') == len(view.items)
    assert f'<b class="wm-running-bill">{view.input_tokens:,}</b>' in page
    assert "compact (lossy)" in page


def test_html_escapes_question_text(runs):
    view = view_at(runs, 1500, "truncate", -1)
    tricky = view.__class__(
        **{**view.__dict__, "questions": ("<b>bold?</b>",) + view.questions[1:]}
    )
    page = render_budget_html(tricky)
    assert "<b>bold?</b>" not in page and "&lt;b&gt;bold?&lt;/b&gt;" in page


def test_bad_input_says_what_to_do(runs):
    result = runs.run(1500, "truncate")
    with pytest.raises(ValueError, match="pick a step from 0 to"):
        budget_view(
            result, len(result.trace), choice="truncate", scale=2000, prepared=runs.prepared
        )
    with pytest.raises(BudgetError, match="use one of"):
        choice_named("forget everything")
    with pytest.raises(BudgetError, match="budget"):
        runs.run(0, "truncate")


def test_widgets_follow_the_controls():
    from windowmem.explorer.budget_widgets import BudgetExplorer

    explorer = BudgetExplorer(help_centre(), budget=1500, choice="truncate")
    assert explorer.step.value == explorer.step.max  # starts at the end of the task
    explorer.policy.value = "retrieve"
    retrieve = explorer.runs.run(1500, "retrieve")
    # Left at the end, the step slider follows the longer run to its end.
    assert explorer.step.max == explorer.step.value == len(retrieve.trace) - 1
    explorer.step.value = 5
    explorer.budget.value = 1000
    assert explorer.step.value == 5
    assert re.search(
        r'data-budget="1000" data-step="5" data-choice="retrieve"', explorer.output.value
    )
    assert explorer.snapshot_html().endswith(explorer.current_html())
