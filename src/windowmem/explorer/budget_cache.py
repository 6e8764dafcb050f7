"""The token-budget explorer's cache: the task run once per budget and menu choice.

>>> from windowmem.budget import help_centre
>>> runs = RunCache(help_centre())
>>> runs.run(1500, "truncate") is runs.run(1500, "truncate")
True
"""

from __future__ import annotations

from collections.abc import Mapping

from windowmem.budget import (
    Corpus,
    OverflowStrategy,
    Prepared,
    Summariser,
    TaskResult,
    prepare,
    run_task,
)
from windowmem.budget.engine import check_budget
from windowmem.errors import BudgetError

#: The explorer's policy menu: a label for each (overflow strategy, summariser) pair it offers.
CHOICES: Mapping[str, tuple[OverflowStrategy, Summariser]] = {
    "unbounded": (OverflowStrategy.UNBOUNDED, Summariser.PERFECT),
    "truncate": (OverflowStrategy.TRUNCATE, Summariser.PERFECT),
    "compact": (OverflowStrategy.COMPACT, Summariser.PERFECT),
    "compact (lossy)": (OverflowStrategy.COMPACT, Summariser.LOSSY),
    "retrieve": (OverflowStrategy.RETRIEVE, Summariser.PERFECT),
    "just-in-time": (OverflowStrategy.JUST_IN_TIME, Summariser.PERFECT),
}


def choice_named(choice: str) -> tuple[OverflowStrategy, Summariser]:
    """The (overflow strategy, summariser) pair the menu entry *choice* stands for.

    >>> choice_named("compact (lossy)")
    (<OverflowStrategy.COMPACT: 'compact'>, <Summariser.LOSSY: 'lossy'>)
    """
    if choice not in CHOICES:
        raise BudgetError(f"unknown explorer policy {choice!r}: use one of {', '.join(CHOICES)}")
    return CHOICES[choice]


class RunCache:
    """The task's runs on one corpus, one per budget and menu choice, each computed once.

    Moving the step slider then only indexes a trace; moving the budget slider runs the
    task once per new budget and policy (a millisecond or two on the help-centre corpus).
    """

    def __init__(self, corpus: Corpus | Prepared) -> None:
        self.prepared = corpus if isinstance(corpus, Prepared) else prepare(corpus)
        self._runs: dict[tuple[int, str], TaskResult] = {}

    def run(self, budget: int, choice: str) -> TaskResult:
        """The run at *budget* tokens under the menu entry *choice*."""
        key = (check_budget(budget), choice)
        if key not in self._runs:
            strategy, summariser = choice_named(choice)
            self._runs[key] = run_task(self.prepared, budget, strategy, summariser)
        return self._runs[key]

    def scale(self, budget: int) -> int:
        """The token count the window bar spans: the unbounded run's peak, or *budget* if larger.

        A fixed scale keeps the bar comparable while the sliders move.
        """
        return max(self.run(budget, "unbounded").bill.peak, budget)
