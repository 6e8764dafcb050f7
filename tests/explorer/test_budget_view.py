"""Lesson 6's token-budget explorer's pure view: each step of a run, added up and labelled."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.explorer.conftest import view_at
from windowmem.budget import help_centre, prepare
from windowmem.explorer.budget_cache import CHOICES, RunCache
from windowmem.explorer.budget_view import budget_view


@settings(max_examples=200, deadline=None)
@given(
    budget=st.integers(200, 3200), choice=st.sampled_from(list(CHOICES)), fraction=st.floats(0, 1)
)
def test_view_adds_up(budget, choice, fraction):
    """At any step the entries fill the window, and the bill so far is C_in = Σ|W_t| over the calls made."""
    runs = RunCache(prepare(help_centre()))  # prepare() is cached: this is cheap
    result = runs.run(budget, choice)
    step = round(fraction * (len(result.trace) - 1))
    view = view_at(runs, budget, choice, step)
    assert sum(entry.tokens for entry in view.entries) == view.used == result.trace[step].used
    # Each call is charged the window as it stands at that call.
    calls = [s for s in result.trace[: step + 1] if s.event.value == "call"]
    assert view.input_tokens == sum(s.used for s in calls)
    assert view.calls == len(calls)
    held = {n for entry in view.entries for n in entry.facts}
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
        droppable = [entry for entry in view.entries if entry.kind in ("read", "summary")]
        assert not view.over_budget or (len(droppable) == 1 and view.entries[-1].kind == "read"), (
            step,
            state.detail,
        )


def test_unbounded_scale_is_the_whole_task(runs):
    """The bar spans the unbounded window at its largest: the base entries plus every read."""
    last = view_at(runs, 1500, "unbounded", -1)
    assert runs.scale(1500) == last.used == sum(entry.tokens for entry in last.entries)
    assert [entry.kind for entry in last.entries][:2] == ["system", "task"]
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
    assert [entry.kind for entry in view.entries] == ["system", "task"]
    assert view.facts_held == () and view.input_tokens == 0 and view.calls == 0
    assert view.entries[1].label == f"the task: {view.task_size} questions"


def test_reads_are_labelled_with_their_article(runs):
    view = view_at(runs, 1500, "unbounded", -1)
    titles = {article.title for article in runs.prepared.corpus.articles}
    reads = [entry for entry in view.entries if entry.kind == "read"]
    assert reads and all(any(f"“{title}”" in entry.label for title in titles) for entry in reads)


def test_a_step_out_of_range_says_which_steps_exist(runs):
    result = runs.run(1500, "truncate")
    with pytest.raises(ValueError, match="pick a step from 0 to"):
        budget_view(
            result, len(result.trace), choice="truncate", scale=2000, prepared=runs.prepared
        )


def test_chunks_and_questions_are_named_as_the_lesson_names_them(runs):
    """Chunks by their article and their place in it (every article has two), questions by
    their place in the task: the engine's help-centre-wide numbers confused a reader."""
    import re

    result = runs.run(1500, "truncate")
    for step in range(len(result.trace)):
        view = view_at(runs, 1500, "truncate", step)
        for entry in view.entries:
            if entry.kind == "read":
                assert re.fullmatch(r"“[^”]+”, chunk [12] of 2", entry.label), entry.label
        assert not re.search(r"question \d|chunk \d+(?! of 2)", view.detail), view.detail
    assert view_at(runs, 1500, "truncate", 1).detail == "search for Q1"
    assert view_at(runs, 1500, "truncate", 2).detail == (
        "read “Shipping and delivery”, chunk 1 of 2 (holds the answer)"
    )
