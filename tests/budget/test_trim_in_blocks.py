"""Truncation in blocks (``run_task(..., trim_to=N)``): each cut goes down to *N* tokens, and
the calls between two cuts only append, so a prompt cache serves their shared start."""

from __future__ import annotations

import pytest

from windowmem.budget import help_centre, prepare, run_task
from windowmem.budget.money import call_steps, task_calls
from windowmem.errors import BudgetError
from windowmem.prices import price_of

PREPARED = prepare(help_centre())


def cuts(result):
    """The context sizes right after each run of truncation, in order."""
    trace = result.trace
    return [
        s.used
        for k, s in enumerate(trace)
        if s.event.value == "truncate"
        and (k + 1 == len(trace) or trace[k + 1].event.value != "truncate")
    ]


def test_the_default_cuts_to_the_budget_as_before():
    assert run_task(PREPARED, 1500, "truncate", trim_to=1500) == run_task(
        PREPARED, 1500, "truncate"
    )


@pytest.mark.parametrize("trim_to", [700, 900, 1100, 1300])
def test_every_cut_goes_down_to_trim_to_and_every_call_fits_the_budget(trim_to):
    result = run_task(PREPARED, 1500, "truncate", trim_to=trim_to)
    assert cuts(result) and all(size <= trim_to for size in cuts(result))
    assert all(s.used <= 1500 for s in call_steps(result))


def test_between_two_cuts_each_call_starts_with_the_whole_call_before_it():
    result = run_task(PREPARED, 1500, "truncate", trim_to=1100)
    steps = list(result.trace)
    calls = [k for k, s in enumerate(steps) if s.event.value == "call"]
    for before, after in zip(calls, calls[1:]):
        cut = any(s.event.value == "truncate" for s in steps[before:after])
        if not cut:
            assert steps[after].context[: len(steps[before].context)] == steps[before].context


def test_blocks_read_more_from_claude_s_cache_and_cost_less_than_one_read_at_a_time():
    claude = price_of("claude-sonnet-4-6")
    one_at_a_time = run_task(PREPARED, 1500, "truncate")
    blocks = run_task(PREPARED, 1500, "truncate", trim_to=1100)
    plain, blocked = (task_calls(r, claude) for r in (one_at_a_time, blocks))
    assert sum(c.cached for c in blocked) > 2 * sum(c.cached for c in plain)
    assert blocks.answered == one_at_a_time.answered


@pytest.mark.parametrize("bad", [0, -5, 1501, 2.5, True, "900"])
def test_a_trim_to_outside_one_to_the_budget_says_what_to_give(bad):
    with pytest.raises(BudgetError, match="from 1 to the budget"):
        run_task(PREPARED, 1500, "truncate", trim_to=bad)
