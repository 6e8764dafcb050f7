"""The token-budget explorer's cache: its menu of strategies, one run per budget and choice."""

from __future__ import annotations

import pytest

from windowmem.budget import OverflowStrategy, Summariser, help_centre, run_task
from windowmem.errors import BudgetError
from windowmem.explorer.budget_cache import CHOICES, choice_named


def test_each_run_is_computed_once_and_is_the_engine_s_run(runs):
    assert runs.run(1500, "compact (lossy)") is runs.run(1500, "compact (lossy)")
    expected = run_task(help_centre(), 1500, OverflowStrategy.COMPACT, Summariser.LOSSY)
    assert runs.run(1500, "compact (lossy)") == expected


def test_the_menu_offers_every_strategy():
    assert {strategy for strategy, _ in CHOICES.values()} == set(OverflowStrategy) - {
        OverflowStrategy.COMPACT_RETRIEVE
    }


def test_bad_choices_and_budgets_say_what_to_do(runs):
    with pytest.raises(BudgetError, match="use one of"):
        choice_named("forget everything")
    with pytest.raises(BudgetError, match="budget"):
        runs.run(0, "truncate")
