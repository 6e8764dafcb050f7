"""The window explorer's widget layer without a browser: controls in, the pure view's HTML out."""

from __future__ import annotations

import pytest

from windowmem.examples import ANCHOR_FACTS, load_example
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_html import render_window_html
from windowmem.explorer.window_view import window_view


class TestWidgets:
    """The widget layer without a browser: controls in, the pure view's HTML out."""

    @pytest.fixture
    def explorer(self, marta):
        from windowmem.explorer.window_widgets import WindowExplorer

        return WindowExplorer(
            {"marta": marta, "empanadas": load_example("empanadas")},
            start="marta",
            window=5,
            turn=7,
            fact="#6023",
            facts=ANCHOR_FACTS,
        )

    def test_starts_on_the_worked_example(self, explorer, marta):
        view = window_view(ReplayCache(marta), 5, 7, "#6023", title="marta")
        assert explorer.output.value == render_window_html(view, "Qwen tokens")
        assert explorer.snapshot_html().endswith(explorer.output.value)

    def test_sliders_and_fact_change_the_view(self, explorer):
        explorer.window.value = 10
        assert 'data-fact-visible="true"' in explorer.output.value
        explorer.turn.value = 3
        assert 'class="wm-visible-turns">1–2<' in explorer.output.value
        explorer.fact.value = "Medellín"
        assert "&ldquo;Medellín&rdquo; (said in turn 2)" in explorer.output.value

    def test_switching_conversation_clamps_the_turn(self, explorer):
        explorer.conversation.value = "empanadas"
        assert (explorer.turn.max, explorer.turn.value) == (5, 5)
        assert 'data-turn="5"' in explorer.output.value
        assert (
            explorer.fact.value == "Carlos Ruiz"
            and 'data-fact-visible="true"' in explorer.output.value
        )

    def test_typed_conversation_and_its_errors(self, explorer):
        from windowmem.explorer.window_widgets import OWN

        explorer.conversation.value = OWN
        assert "type or paste a conversation" in explorer.output.value
        explorer.own_text.value = "oops"
        assert "line 1 does not start with a role" in explorer.output.value
        explorer.own_text.value = "user: a\nassistant: b\nuser: c"
        assert explorer.turn.max == 2 and 'data-turn="2"' in explorer.output.value
