"""Lesson 2's explorer widgets: a conversation picker, a memory mode, a window and a call slider.

Every change recomputes :func:`windowmem.explorer.calls_view.calls_view` and puts
:func:`~windowmem.explorer.calls_html.render_calls_html` into one HTML widget; nothing
here knows how an agent builds its calls. CSS classes (``wm-scenario``, ``wm-mode``,
``wm-window``, ``wm-call-slider``, ``wm-output``) name the controls for the browser test.
"""

from __future__ import annotations

from collections.abc import Mapping

import ipywidgets as widgets

from windowmem.calls.tool_scenario import ToolScenario
from windowmem.errors import WindowMemError
from windowmem.explorer.calls_cache import MODES, ONE_SESSION, CallsCache
from windowmem.explorer.calls_html import render_calls_error, render_calls_html
from windowmem.explorer.calls_view import calls_view
from windowmem.explorer.live import LiveExplorer


class CallsExplorer(LiveExplorer):
    """Memory off beside memory on, for every model call of a choice of *scenarios*.

    *start*, *window*, *call* and *mode* set what it shows first.
    """

    label = "Calls explorer"

    def __init__(
        self,
        scenarios: Mapping[str, ToolScenario],
        *,
        start: str,
        window: int = 5,
        call: int = 1,
        mode: str = ONE_SESSION,
        max_window: int = 20,
    ) -> None:
        if start not in scenarios:
            raise WindowMemError(
                f"start={start!r} is not one of the conversations: {', '.join(scenarios)}"
            )
        self._caches = {name: CallsCache(s) for name, s in scenarios.items()}
        calls = len(self._caches[start].order)
        self.scenario = widgets.Dropdown(
            options=list(scenarios),
            value=start,
            description="Conversation",
            style={"description_width": "initial"},
        )
        self.mode = widgets.ToggleButtons(
            options=list(MODES),
            value=mode,
            description="Memory",
            style={"button_width": "auto"},
        )
        self.window = widgets.IntSlider(
            value=window,
            min=0,
            max=max(max_window, window),
            description="Window length",
            style={"description_width": "initial"},
        )
        self.call = widgets.IntSlider(
            value=min(max(call, 1), calls), min=1, max=calls, description="Model call"
        )
        self.output = widgets.HTML()
        for control, css in (
            (self.scenario, "wm-scenario"),
            (self.mode, "wm-mode"),
            (self.window, "wm-window"),
            (self.call, "wm-call-slider"),
            (self.output, "wm-output"),
        ):
            control.add_class(css)
        self.scenario.observe(self._on_scenario, names="value")
        for control in (self.mode, self.window, self.call):
            control.observe(self._refresh, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.scenario, self.mode]),
                widgets.HBox([self.window, self.call]),
                self.output,
            ]
        )
        self._refresh()

    def _on_scenario(self, _change: object = None) -> None:
        calls = len(self._caches[self.scenario.value].order)
        with self.call.hold_trait_notifications():
            self.call.max = calls
            self.call.value = min(self.call.value, calls)
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now (an error pane for bad input)."""
        try:
            view = calls_view(
                self._caches[self.scenario.value],
                self.window.value,
                self.call.value,
                self.mode.value,
            )
        except WindowMemError as exc:
            return render_calls_error(str(exc))
        return render_calls_html(view)


__all__ = ["CallsExplorer"]
