"""The window explorer's widgets: sliders, a conversation picker and text boxes over the pure view.

Every change of a control recomputes :func:`windowmem.explorer.window_view.window_view`
and puts :func:`~windowmem.explorer.window_html.render_window_html` into one HTML widget; nothing here
knows how a window memory works. CSS classes (``wm-window``, ``wm-turn-slider``, …)
name the controls for the browser tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ipywidgets as widgets

from windowmem.conversation import Conversation, conversation_from_text
from windowmem.errors import WindowMemError
from windowmem.explorer.live import LiveExplorer
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_html import render_error, render_window_html
from windowmem.explorer.window_site import window_site_data
from windowmem.explorer.window_view import window_view

#: What the explorer's token figures count (ReplayCache's default counter).
COUNTER_LABEL = "Qwen tokens"

#: The conversation picker's entry for a conversation the learner types or pastes.
OWN = "your own (type it below)"

OWN_PLACEHOLDER = (
    "One message per line, or paste a conversation file's JSON:\n"
    "system: You are the support assistant for TuTienda.\n"
    "user: Hi, I'm Marta, my order is #6023.\n"
    "assistant: Hi Marta! How can I help?\n"
    "user: What was my order number?"
)


class WindowExplorer(LiveExplorer):
    """Sliders for Context Window Length and turn over a choice of *conversations*.

    *start*, *window*, *turn* and *fact* set what it shows first; *max_window* is the
    window slider's top. *facts* maps a conversation's name to the fact to follow when
    the learner picks it. :meth:`snapshot_html` is the current view as static HTML.
    """

    label = "Window explorer"

    def __init__(
        self,
        conversations: Mapping[str, Conversation],
        *,
        start: str,
        window: int = 5,
        turn: int = 1,
        fact: str = "",
        max_window: int = 50,
        facts: Mapping[str, str] | None = None,
    ) -> None:
        if start not in conversations:
            raise WindowMemError(
                f"start={start!r} is not one of the conversations: {', '.join(conversations)}"
            )
        self._caches = {name: ReplayCache(c) for name, c in conversations.items()}
        self._own_cache: ReplayCache | None = None
        self._facts = dict(facts or {})
        first = self._caches[start].conversation
        self.conversation = widgets.Dropdown(
            options=[*conversations, OWN],
            value=start,
            description="Conversation",
            style={"description_width": "initial"},
        )
        self.own_text = widgets.Textarea(
            placeholder=OWN_PLACEHOLDER,
            continuous_update=False,
            rows=6,
            layout=widgets.Layout(width="98%", display="none"),
        )
        self.window = widgets.IntSlider(
            value=window,
            min=0,
            max=max(max_window, window),
            description="Window length",
            continuous_update=True,
            style={"description_width": "initial"},
        )
        self.turn = widgets.IntSlider(
            value=min(max(turn, 1), first.turn_count),
            min=1,
            max=first.turn_count,
            description="Turn",
            continuous_update=True,
        )
        self.fact = widgets.Text(value=fact, description="Fact", placeholder="e.g. #6023")
        self.output = widgets.HTML()
        for control, css in (
            (self.conversation, "wm-conversation"),
            (self.own_text, "wm-own-text"),
            (self.window, "wm-window"),
            (self.turn, "wm-turn-slider"),
            (self.fact, "wm-fact-text"),
            (self.output, "wm-output"),
        ):
            control.add_class(css)
        self.conversation.observe(self._on_conversation, names="value")
        self.own_text.observe(self._on_conversation, names="value")
        for control in (self.window, self.turn, self.fact):
            control.observe(self._refresh, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.conversation, self.fact]),
                self.own_text,
                widgets.HBox([self.window, self.turn]),
                self.output,
            ]
        )
        self._refresh()

    def _cache(self) -> ReplayCache:
        if self.conversation.value != OWN:
            return self._caches[self.conversation.value]
        if self._own_cache is None:
            raise WindowMemError("type or paste a conversation in the box above to explore it")
        return self._own_cache

    def _on_conversation(self, _change: object = None) -> None:
        own = self.conversation.value == OWN
        self.own_text.layout.display = "" if own else "none"
        self._own_cache = None
        if own and self.own_text.value.strip():
            try:
                self._own_cache = ReplayCache(conversation_from_text(self.own_text.value))
            except WindowMemError as exc:
                self.output.value = render_error(str(exc))
                return
        try:
            turns = self._cache().conversation.turn_count
        except WindowMemError as exc:
            self.output.value = render_error(str(exc))
            return
        # Changing the slider's range and the fact fires their own updates; hold them so
        # the view renders once.
        with self.turn.hold_trait_notifications(), self.fact.hold_trait_notifications():
            self.turn.max = turns
            self.turn.value = min(self.turn.value, turns)
            if self.conversation.value in self._facts:
                self.fact.value = self._facts[self.conversation.value]
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now (an error pane for bad input)."""
        try:
            view = window_view(
                self._cache(),
                self.window.value,
                self.turn.value,
                self.fact.value,
                title=self.conversation.value,
            )
        except WindowMemError as exc:
            return render_error(str(exc))
        return render_window_html(view, COUNTER_LABEL)

    def site_data(self) -> dict[str, Any]:
        """Every state its controls offer, from where they stand now, for the course website."""
        controls = {
            "start": self.conversation.value,
            "window": self.window.value,
            "turn": self.turn.value,
            "fact": self.fact.value,
            "max_window": self.window.max,
        }
        return window_site_data(self._caches, controls, self._facts, COUNTER_LABEL, OWN)
