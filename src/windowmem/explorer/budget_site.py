"""Every state of the token-budget explorer's controls, as compact data for the course website.

At build time :func:`budget_site_data` runs the task at every budget the slider offers
under every policy of the menu, and records :func:`~.budget_view.budget_view` for every
step of each run. Strings (events, details, entries) are stored once and referred to by
index. ``website/_static/windowmem/explorers.js`` draws the same HTML as
:func:`~.budget_html.render_budget_html` from it.

>>> from windowmem.budget import help_centre
>>> from windowmem.explorer.budget_cache import RunCache
>>> data = budget_site_data(RunCache(help_centre()), budgets=range(1500, 1501), budget=1500, choice="truncate", step=None)
>>> sorted(data["runs"]) == sorted(CHOICES)
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from windowmem.explorer.budget_cache import CHOICES, RunCache
from windowmem.explorer.budget_html import site_styles
from windowmem.explorer.budget_view import budget_view


class _Table:
    """Distinct values, each numbered the first time it is seen."""

    def __init__(self) -> None:
        self.rows: list[Any] = []
        self._index: dict[Hashable, int] = {}

    def index(self, key: Hashable, row: Any) -> int:
        if key not in self._index:
            self._index[key] = len(self.rows)
            self.rows.append(row)
        return self._index[key]


def budget_site_data(
    runs: RunCache,
    *,
    budgets: Iterable[int],
    budget: int,
    choice: str,
    step: int | None,
) -> dict[str, Any]:
    """Every step of every run at *budgets* under every menu choice; *budget*, *choice*, *step* start it.

    ``runs[choice][k]`` is the run at the *k*-th budget: ``[final input tokens, answered at
    the end, steps]``; each step is ``[step, event, detail, entries, used, scale, facts
    held, input tokens, calls, reads, compactions]``, with event, detail and entries
    indices into ``texts`` and ``entry_lists``.
    """
    texts, entries, entry_lists = _Table(), _Table(), _Table()
    budgets = list(budgets)
    questions: tuple[str, ...] = ()
    corpus = ""
    out: dict[str, list[Any]] = {}
    for name in CHOICES:
        per_budget = []
        for size in budgets:
            result = runs.run(size, name)
            scale = runs.scale(size)
            steps = []
            for number in range(len(result.trace)):
                view = budget_view(result, number, choice=name, scale=scale, prepared=runs.prepared)
                questions, corpus = view.questions, view.corpus
                rows = tuple(
                    entries.index(e, [e.kind, e.tokens, texts.index(e.label, e.label), e.facts])
                    for e in view.entries
                )
                steps.append(
                    [
                        view.step,
                        texts.index(view.event, view.event),
                        texts.index(view.detail, view.detail),
                        entry_lists.index(rows, rows),
                        view.used,
                        view.scale,
                        view.facts_held,
                        view.input_tokens,
                        view.calls,
                        view.reads,
                        view.compactions,
                    ]
                )
            per_budget.append([result.bill.input_tokens, result.answered, steps])
        out[name] = per_budget
    return {
        "kind": "budget",
        "styles": site_styles(),
        "corpus": corpus,
        "questions": questions,
        "budgets": budgets,
        "budget": budget,
        "choice": choice,
        "step": step,
        "texts": texts.rows,
        "entries": entries.rows,
        "entry_lists": entry_lists.rows,
        "runs": out,
    }
