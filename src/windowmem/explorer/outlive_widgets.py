"""The outlive explorer's widgets: three menus and a call slider over the pure view.

Every change recomputes :func:`~windowmem.explorer.outlive_view.outlive_view` and puts
its HTML into one widget. CSS classes (``wm-outlive-store``, ``wm-outlive-workers``,
``wm-outlive-event``, ``wm-outlive-call``, ``wm-outlive-output``) name the controls for
the browser test.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from windowmem.explorer.live import LiveExplorer
from windowmem.explorer.outlive_html import render_outlive_html
from windowmem.explorer.outlive_view import outlive_view
from windowmem.outlive.store_scenarios import (
    EVENTS,
    MARTA_TURNS,
    N8N_STORES,
    STORES,
    EventName,
    StoreName,
)


class OutliveExplorer(LiveExplorer):
    """Menus for the store, the workers and the event, and a slider over the six calls.

    The store menu offers *stores*: n8n's three by default, any of
    :data:`~windowmem.outlive.store_scenarios.STORES` when given (the reference page adds
    Spring AI's).
    """

    label = "Memory that outlives the session explorer"

    def __init__(
        self,
        *,
        store: StoreName = "Simple Memory (in-process)",
        workers: int = 1,
        event: EventName = "nothing",
        call: int = 4,
        stores: Sequence[StoreName] = N8N_STORES,
    ) -> None:
        unknown = [s for s in stores if s not in STORES]
        if unknown or store not in stores:
            raise ValueError(
                f"stores are some of {STORES} and store one of them; got stores {list(stores)}, store {store!r}"
            )
        outlive_view(store, workers, event, call)  # a bad starting value fails here, clearly
        self.store = widgets.Dropdown(options=list(stores), value=store, description="Store")
        self.workers = widgets.Dropdown(options=[1, 2], value=workers, description="Workers")
        self.event = widgets.Dropdown(
            options=list(EVENTS),
            value=event,
            description="Before turn 4",
            style={"description_width": "initial"},
        )
        self.call = widgets.IntSlider(value=call, min=1, max=len(MARTA_TURNS), description="Call")
        self.output = widgets.HTML()
        for control, css in (
            (self.store, "wm-outlive-store"),
            (self.workers, "wm-outlive-workers"),
            (self.event, "wm-outlive-event"),
            (self.call, "wm-outlive-call"),
            (self.output, "wm-outlive-output"),
        ):
            control.add_class(css)
        for control in (self.store, self.workers, self.event, self.call):
            control.observe(self._refresh, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.store, self.workers]),
                widgets.HBox([self.event, self.call]),
                self.output,
            ]
        )
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now."""
        return render_outlive_html(
            outlive_view(self.store.value, self.workers.value, self.event.value, self.call.value)
        )
