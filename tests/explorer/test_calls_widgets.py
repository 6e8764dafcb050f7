"""Lesson 2's explorer widgets without a browser: controls in, the pure view's HTML out."""

from __future__ import annotations

import pytest

from windowmem.calls.tool_scenario import load_tool_scenario, without_tools
from windowmem.errors import WindowMemError
from windowmem.examples import load_example
from windowmem.explorer.calls_cache import NEW_SESSION_EACH_MESSAGE, CallsCache
from windowmem.explorer.calls_html import render_calls_html
from windowmem.explorer.calls_view import calls_view

SCENARIO = load_tool_scenario("tutienda_tools")


@pytest.fixture(scope="module")
def cache() -> CallsCache:
    return CallsCache(SCENARIO)


class TestWidgets:
    """The widget layer without a browser: controls in, the pure view's HTML out."""

    @pytest.fixture
    def explorer(self):
        from windowmem.explorer.calls_widgets import CallsExplorer

        return CallsExplorer(
            {"tutienda_tools": SCENARIO, "marta": without_tools(load_example("marta"))},
            start="tutienda_tools",
            window=5,
            call=2,
        )

    def test_starts_on_the_chosen_call(self, explorer, cache):
        assert explorer.output.value == render_calls_html(calls_view(cache, 5, 2))
        assert explorer.snapshot_html().endswith(explorer.output.value)
        assert explorer.call.max == len(cache.order)

    def test_controls_change_the_view(self, explorer):
        explorer.call.value = 6
        assert 'data-call="6"' in explorer.output.value and "no answer" in explorer.output.value
        explorer.mode.value = NEW_SESSION_EACH_MESSAGE
        assert 'class="wm-on" data-messages="2" data-from-memory="0"' in explorer.output.value
        explorer.window.value = 0
        assert 'data-window="0"' in explorer.output.value

    def test_switching_conversation_clamps_the_call(self, explorer):
        explorer.call.value = 8
        explorer.scenario.value = "marta"
        assert (explorer.call.max, explorer.call.value) == (7, 7)
        assert 'data-call="7"' in explorer.output.value

    def test_a_bad_start_is_explained(self):
        from windowmem.explorer.calls_widgets import CallsExplorer

        with pytest.raises(WindowMemError, match="not one of the conversations"):
            CallsExplorer({"marta": without_tools(load_example("marta"))}, start="nope")
