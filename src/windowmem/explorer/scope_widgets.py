"""The scope-and-storage explorer's widgets: three menus and a request slider over the pure view.

Every change of a control recomputes :func:`windowmem.explorer.scope_view.scope_view`
and puts :func:`~windowmem.explorer.scope_html.render_scope_html` into one HTML widget;
nothing here knows how keys or stores work. CSS classes (``wm-key-choice``,
``wm-store``, ``wm-between``, ``wm-request-slider``, ``wm-scope-output``) name the
controls for the browser tests.
"""

from __future__ import annotations

import ipywidgets as widgets

from windowmem.errors import WindowMemError
from windowmem.explorer.live import LiveExplorer
from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.explorer.scope_html import render_scope_html
from windowmem.explorer.scope_view import STORE_LABELS, request_positions, scope_view
from windowmem.scope.agent_stores import StoreKind
from windowmem.scope.key_choices import KEY_CHOICES
from windowmem.scope.support_desk import BETWEEN


class ScopeExplorer(LiveExplorer):
    """Menus for the key, the store and what happens between sessions, and a slider over the requests.

    *choice*, *store*, *between* and *request* (counted from 1) set the first view.
    """

    label = "Scope and storage explorer"

    def __init__(
        self,
        *,
        choice: str = "per user",
        store: StoreKind = "in-process",
        between: str = "nothing",
        request: int = 5,
    ) -> None:
        self.runs = ScopeRuns()
        count = len(request_positions(between))
        if not 1 <= request <= count:
            raise WindowMemError(f"request must be between 1 and {count}, got {request}")
        self.choice = widgets.Dropdown(
            options=[c.name for c in KEY_CHOICES], value=choice, description="Session key"
        )
        self.store = widgets.Dropdown(
            options=[(label, kind) for kind, label in STORE_LABELS.items()],
            value=store,
            description="Store",
        )
        self.between = widgets.Dropdown(
            options=list(BETWEEN),
            value=between,
            description="Between sessions",
            style={"description_width": "initial"},
        )
        self.request = widgets.IntSlider(
            value=request, min=1, max=count, description="Request", continuous_update=True
        )
        self.output = widgets.HTML()
        for control, css in (
            (self.choice, "wm-key-choice"),
            (self.store, "wm-store"),
            (self.between, "wm-between"),
            (self.request, "wm-request-slider"),
            (self.output, "wm-scope-output"),
        ):
            control.add_class(css)
        for control in (self.choice, self.store, self.between, self.request):
            control.observe(self._refresh, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.choice, self.store]),
                widgets.HBox([self.between, self.request]),
                self.output,
            ]
        )
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now."""
        view = scope_view(
            self.runs, self.choice.value, self.store.value, self.between.value, self.request.value
        )
        return render_scope_html(view)
