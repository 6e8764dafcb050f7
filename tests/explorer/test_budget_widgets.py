"""The token-budget explorer's widget layer without a browser: controls in, the pure view's HTML out."""

from __future__ import annotations

import re

from windowmem.budget import help_centre


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
