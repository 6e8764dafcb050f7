"""The scope explorer's widgets show exactly what the pure view renders for their settings."""

from __future__ import annotations

import pytest

from windowmem.errors import WindowMemError
from windowmem.explorer.scope_cache import ScopeRuns
from windowmem.explorer.scope_html import render_scope_html
from windowmem.explorer.scope_view import scope_view
from windowmem.explorer.scope_widgets import ScopeExplorer


def test_the_widgets_follow_their_controls():
    explorer = ScopeExplorer()
    assert 'data-choice="per user"' in explorer.output.value
    explorer.choice.value = "constant"
    explorer.store.value = "sqlite"
    explorer.between.value = "the agent restarts"
    explorer.request.value = 7
    expected = render_scope_html(
        scope_view(ScopeRuns(), "constant", "sqlite", "the agent restarts", 7)
    )
    assert explorer.output.value == expected
    assert explorer.snapshot_html().endswith(expected)


def test_a_request_outside_the_script_is_refused():
    with pytest.raises(WindowMemError, match="between 1 and 7"):
        ScopeExplorer(request=9)
