"""What the explorers' tests share: the worked example, the help-centre runs, and one way to take a view."""

from __future__ import annotations

import pytest

from windowmem.budget import help_centre
from windowmem.conversation import Conversation
from windowmem.examples import load_example
from windowmem.explorer.budget_cache import RunCache
from windowmem.explorer.budget_view import BudgetView, budget_view
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_view import WindowView, window_view
from windowmem.tokens import TokenCounter, count_words


@pytest.fixture(scope="module")
def marta() -> Conversation:
    return load_example("marta")


@pytest.fixture(scope="module")
def runs() -> RunCache:
    return RunCache(help_centre())


def view_of(
    conversation, window: int, turn: int, fact: str = "", counter: TokenCounter = count_words
) -> WindowView:
    """The window explorer's view of *turn* at *window*, counting words unless told otherwise."""
    return window_view(ReplayCache(conversation, counter), window, turn, fact)


def view_at(runs: RunCache, budget: int, choice: str, step: int) -> BudgetView:
    """The budget explorer's view of one step of the run at *budget* under *choice*."""
    return budget_view(
        runs.run(budget, choice),
        step,
        choice=choice,
        scale=runs.scale(budget),
        prepared=runs.prepared,
    )
