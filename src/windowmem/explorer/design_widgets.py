"""Lesson 5's explorer widgets: a turn slider, a system-prompt toggle, a summary schedule.

Every change recomputes :func:`windowmem.explorer.design_view.design_view` and puts
:func:`~windowmem.explorer.design_html.render_design_html` into one HTML widget; nothing
here knows how a product builds its array. CSS classes (``wm-turn-slider``,
``wm-fact-toggle``, ``wm-every``, ``wm-keep``, ``wm-output``) name the controls for the
browser test.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets

from windowmem.conversation import Conversation
from windowmem.errors import WindowMemError
from windowmem.explorer.design_html import render_design_error, render_design_html
from windowmem.explorer.design_view import DesignCache, design_view
from windowmem.explorer.live import LiveExplorer
from windowmem.policies.base import WindowPolicy
from windowmem.tokens import TokenCounter, count_messages

IN_CHAT = "in the chat only"
IN_SYSTEM = "also in the system prompt"


class DesignExplorer(LiveExplorer):
    """One conversation through *policies*, turn by turn, with the anchor *fact* followed.

    *turn*, *every* and *keep_turns* set what it shows first; the schedule is n8n's with
    Context Window Length *window*, its tokens counted by *counter*.
    """

    label = "Design explorer"

    def __init__(
        self,
        conversation: Conversation,
        policies: Sequence[WindowPolicy],
        fact: str,
        *,
        turn: int = 1,
        window: int = 5,
        every: int = 3,
        keep_turns: int = 1,
        counter: TokenCounter = count_messages,
    ) -> None:
        self._cache = DesignCache.build(conversation, policies, fact)
        self._window = window
        self._counter = counter
        turns = conversation.turn_count
        if not 1 <= turn <= turns:
            raise WindowMemError(f"turn={turn} is outside the conversation's 1 to {turns}")
        self.turn = widgets.IntSlider(value=turn, min=1, max=turns, description="Turn")
        self.fact_toggle = widgets.ToggleButtons(
            options=[IN_CHAT, IN_SYSTEM],
            value=IN_CHAT,
            description="The fact",
            style={"button_width": "auto"},
        )
        self.every = widgets.IntSlider(
            value=every,
            min=0,
            max=turns,
            description="Summarise every (turns, 0 = never)",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="460px"),
        )
        self.keep = widgets.IntSlider(
            value=keep_turns,
            min=0,
            max=window + 1,
            description="Turns kept after the summary",
            style={"description_width": "initial"},
            layout=widgets.Layout(width="420px"),
        )
        self.output = widgets.HTML()
        for control, css in (
            (self.turn, "wm-turn-slider"),
            (self.fact_toggle, "wm-fact-toggle"),
            (self.every, "wm-every"),
            (self.keep, "wm-keep"),
            (self.output, "wm-output"),
        ):
            control.add_class(css)
        for control in (self.turn, self.fact_toggle, self.every, self.keep):
            control.observe(self._refresh, names="value")
        self.box = widgets.VBox(
            [
                widgets.HBox([self.turn, self.fact_toggle]),
                widgets.HBox([self.every, self.keep]),
                self.output,
            ]
        )
        self._refresh()

    def current_html(self) -> str:
        """The HTML of what the controls select now (an error pane for bad input)."""
        try:
            view = design_view(
                self._cache,
                self.turn.value,
                fact_in_system=self.fact_toggle.value == IN_SYSTEM,
                window=self._window,
                every=self.every.value,
                keep_turns=self.keep.value,
                counter=self._counter,
            )
        except WindowMemError as exc:
            return render_design_error(str(exc))
        return render_design_html(view)


__all__ = ["IN_CHAT", "IN_SYSTEM", "DesignExplorer"]
