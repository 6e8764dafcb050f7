"""The token-budget explorer's widgets: a budget slider, a policy menu and a step slider over the pure view.

Every change of a control recomputes :func:`windowmem.explorer.budget_view.budget_view`
and puts :func:`~windowmem.explorer.budget_html.render_budget_html` into one HTML
widget; nothing here knows how the budget task runs. CSS classes (``wm-budget-slider``,
``wm-policy``, ``wm-step-slider``, ``wm-budget-output``) name the controls for the
browser tests.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from windowmem.budget import Corpus, Prepared
from windowmem.explorer.budget_cache import CHOICES, RunCache
from windowmem.explorer.budget_html import render_budget_html
from windowmem.explorer.budget_site import budget_site_data
from windowmem.explorer.budget_view import budget_view
from windowmem.explorer.live import LiveExplorer

#: The budget slider's range and notch, in tokens.
BUDGET_MIN, BUDGET_MAX, BUDGET_STEP = 200, 3200, 50


class BudgetExplorer(LiveExplorer):
    """Sliders for the token budget and the step through the task, and a policy menu.

    *budget*, *choice* and *step* set what it shows first (*step* None: the last step).
    :meth:`snapshot_html` is that first view as static HTML.
    """

    label = "Token-budget explorer"

    def __init__(
        self,
        corpus: Corpus | Prepared,
        *,
        budget: int = 1500,
        choice: str = "truncate",
        step: int | None = None,
    ) -> None:
        self.runs = RunCache(corpus)
        first = self.runs.run(budget, choice)
        last = len(first.trace) - 1
        self.budget = widgets.IntSlider(
            value=budget,
            min=BUDGET_MIN,
            max=BUDGET_MAX,
            step=BUDGET_STEP,
            description="Budget (tokens)",
            continuous_update=True,
            style={"description_width": "initial"},
            layout=widgets.Layout(width="420px"),
        )
        self.policy = widgets.Dropdown(options=list(CHOICES), value=choice, description="Policy")
        self.step = widgets.IntSlider(
            value=last if step is None else min(max(step, 0), last),
            min=0,
            max=last,
            description="Step",
            continuous_update=True,
            layout=widgets.Layout(width="520px"),
        )
        self.output = widgets.HTML()
        for control, css in (
            (self.budget, "wm-budget-slider"),
            (self.policy, "wm-policy"),
            (self.step, "wm-step-slider"),
            (self.output, "wm-budget-output"),
        ):
            control.add_class(css)
        self.budget.observe(self._on_run_change, names="value")
        self.policy.observe(self._on_run_change, names="value")
        self.step.observe(self._refresh, names="value")
        self.box = widgets.VBox([widgets.HBox([self.budget, self.policy]), self.step, self.output])
        self._refresh()

    def _on_run_change(self, _change: object = None) -> None:
        # A new run has its own number of steps. A slider left at the end stays at the end,
        # so the learner keeps seeing the outcome; elsewhere it keeps its place if it can.
        at_end = self.step.value == self.step.max
        last = len(self.runs.run(self.budget.value, self.policy.value).trace) - 1
        with self.step.hold_trait_notifications():
            self.step.max = last
            self.step.value = last if at_end else min(self.step.value, last)
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now."""
        run = self.runs.run(self.budget.value, self.policy.value)
        view = budget_view(
            run,
            min(self.step.value, len(run.trace) - 1),
            choice=self.policy.value,
            scale=self.runs.scale(self.budget.value),
            prepared=self.runs.prepared,
        )
        return render_budget_html(view)

    def site_data(self) -> dict[str, Any]:
        """Every state its controls offer, from where they stand now, for the course website."""
        step = None if self.step.value == self.step.max else self.step.value
        return budget_site_data(
            self.runs,
            budgets=range(self.budget.min, self.budget.max + 1, self.budget.step),
            budget=self.budget.value,
            choice=self.policy.value,
            step=step,
        )
